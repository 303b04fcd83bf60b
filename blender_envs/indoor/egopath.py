"""`egopath` (EgoPathBench §3.3): first-person views of procedural furnished rooms.

Spec side only (no bpy): `sample_scene` draws a floor plan with furniture
(`layout.sample_indoor`), `sample_view` stands a walker in free floor space and points
a level-ish pinhole camera at furniture. `build.build` renders the plan and
`scorers.egopath_view` scores views and computes the per-view `ViewAnnotation`.
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.indoor.layout import IndoorSpec, clearance, obstacle_polygons, room_at, sample_indoor
from blender_envs.registry import Environment
from geometry.camera import CameraPose, PhoneLens
from geometry.scene import View

GENERATOR_VERSION = "egopath-2"
EYE_HEIGHT_RANGE = (1.45, 1.70)
PITCH_DOWN_DEG = (10.0, 30.0)
HFOV_DEG = (70.0, 90.0)
CAMERA_CLEARANCE_M = 0.60      # the walker stands this far from any wall or furniture footprint (open floor)
TARGET_DISTANCE_M = (2.0, 7.5)  # camera to the centres of the pieces a pose is aimed at
FREE_POINT_DRAWS = 40           # floor points drawn per room try ...
POSITIONS_SCORED = 10           # ... of which the first this many free ones are scored
SENSOR_WIDTH_MM = 36.0
SHUTTER_S = 1.0 / 1000.0       # fast shutter, no shake: views are sharp


def sample_scene(rng: np.random.Generator, scene_id: str, seed: int) -> IndoorSpec:
    return sample_indoor(rng, scene_id, seed, env="egopath")


def first_person_pose(eye, yaw_deg: float, pitch_down_deg: float, hfov_deg: float, long_side_px: int,
                      roll_deg: float = 0.0) -> CameraPose:
    """An OpenCV pinhole pose at `eye` looking along yaw (0 = +x, counter-clockwise),
    tilted down by `pitch_down_deg`; 4:3 landscape with the given horizontal FOV."""
    yaw, pitch = math.radians(yaw_deg), math.radians(pitch_down_deg)
    fwd = np.array([math.cos(yaw) * math.cos(pitch), math.sin(yaw) * math.cos(pitch), -math.sin(pitch)])
    x = np.array([math.sin(yaw), -math.cos(yaw), 0.0])          # camera right, horizontal
    y = np.cross(fwd, x)                                         # camera down
    if roll_deg:
        c, s = math.cos(math.radians(roll_deg)), math.sin(math.radians(roll_deg))
        x, y = c * x + s * y, -s * x + c * y
    T = np.eye(4)
    T[:3, 0], T[:3, 1], T[:3, 2], T[:3, 3] = x, y, fwd, np.asarray(eye, float)
    width = int(long_side_px)
    height = int(round(width * 3 / 4))
    f_mm = SENSOR_WIDTH_MM / (2.0 * math.tan(math.radians(hfov_deg) / 2.0))
    f_px = f_mm / SENSOR_WIDTH_MM * width
    lens = PhoneLens(name="main", focal_mm=f_mm, sensor_width_mm=SENSOR_WIDTH_MM,
                     sensor_height_mm=0.75 * SENSOR_WIDTH_MM, fnumber=2.0,
                     equiv_focal_mm=f_mm * 43.27 / (SENSOR_WIDTH_MM * 1.25))
    return CameraPose(width=width, height=height,
                      K=[[f_px, 0.0, (width - 1) / 2.0], [0.0, f_px, (height - 1) / 2.0], [0.0, 0.0, 1.0]],
                      cam_to_world=[[float(v) for v in row] for row in T], orientation="landscape", lens=lens,
                      digital_zoom=1.0, sensor_width_mm=SENSOR_WIDTH_MM, focus_mode="pinhole",
                      focus_distance_m=None, shutter_s=SHUTTER_S)


def _free_points(spec: IndoorSpec, rng: np.random.Generator, room, polys, n: int = 24) -> np.ndarray:
    """Up to n uniform floor points of a room with >= CAMERA_CLEARANCE_M clearance."""
    x0, y0, x1, y1 = room.interior
    xy = np.stack([rng.uniform(x0, x1, n), rng.uniform(y0, y1, n)], 1)
    return xy[clearance(spec, xy, polys) >= CAMERA_CLEARANCE_M]


def _wall_blocked(spec: IndoorSpec, xy: np.ndarray, targets: np.ndarray, step_m: float = 0.1) -> np.ndarray:
    """bool (P, N): does a wall segment cross the floor-plane sight line from xy[p] to targets[n]?
    (Doorway openings are gaps in the segments, so views through a doorway stay open.)"""
    rects = np.array([r for w in spec.walls for r in w.segments], float).reshape(-1, 4)
    d = targets[None, :, :] - xy[:, None, :]
    k = max(2, int(np.ceil(np.linalg.norm(d, axis=2).max() / step_m)))
    t = np.linspace(0.05, 0.95, k)  # the ends stand in the room; the wall lies between
    pts = xy[:, None, None, :] + t[None, None, :, None] * d[:, :, None, :]
    x, y = pts[..., 0][..., None], pts[..., 1][..., None]
    inside = (x >= rects[:, 0]) & (x <= rects[:, 2]) & (y >= rects[:, 1]) & (y <= rects[:, 3])
    return inside.any(axis=(2, 3))


def _view_scores(spec: IndoorSpec, xy: np.ndarray, yaws_deg: np.ndarray, half_fov_deg: float):
    """(score per (position, yaw), in-view mask per (position, yaw, piece), pieces): how many
    pieces (of any room: views may look through a doorway) lie 2-7.5 m away inside the
    central field of view with no wall across the sight line, plus 1.5 x the number of them
    that share their category with another (the paper's same-family ambiguity), plus
    1.5 x their mean distance in metres (longer sight lines, longer routes)."""
    pieces = list(spec.furniture)
    c = np.array([f.position for f in pieces])
    rel = c[None, :, :] - xy[:, None, :]
    dist = np.linalg.norm(rel, axis=2)
    bearing = np.degrees(np.arctan2(rel[..., 1], rel[..., 0]))
    diff = (bearing[:, None, :] - yaws_deg[None, :, None] + 180.0) % 360.0 - 180.0
    seen = (dist >= TARGET_DISTANCE_M[0]) & (dist <= TARGET_DISTANCE_M[1]) & ~_wall_blocked(spec, xy, c)
    inview = (np.abs(diff) < half_fov_deg) & seen[:, None, :]
    cats = sorted({f.category for f in pieces})
    onehot = np.array([[f.category == k for k in cats] for f in pieces], float)
    per_cat = inview.astype(float) @ onehot
    n = inview.sum(axis=2)
    mean_dist = (inview * dist[:, None, :]).sum(axis=2) / np.maximum(n, 1)
    score = n + 1.5 * np.maximum(per_cat - 1.0, 0.0).sum(axis=2) + 1.5 * mean_dist
    return score, inview, pieces


def sample_view(spec: IndoorSpec, rng: np.random.Generator, view_index: int, long_side_px: int,
                attempt: int = 0) -> View:
    """A walker standing in free floor space looking into a room: eye 1.45-1.70 m, pitch
    down 10-30 deg, horizontal FOV 70-90 deg, a slight roll; pinhole (no defocus),
    1/1000 s (no shake). The yaw is drawn among the directions that see the most
    furniture (clusters), and `target` is the faced piece nearest the view axis."""
    if not spec.furniture:
        raise ValueError(f"scene {spec.scene_id} has no furniture to face")
    polys = obstacle_polygons(spec)
    hfov = float(rng.uniform(*HFOV_DEG))
    n_by_room = {r.name: sum(f.room == r.name for f in spec.furniture) for r in spec.rooms}
    rooms = [r for r in spec.rooms if n_by_room[r.name]]
    w = np.array([n_by_room[r.name] for r in rooms], float)
    yaws = np.arange(0.0, 360.0, 10.0)
    best = None
    for _ in range(8):  # bounded: a crowded room may have no free point in one batch
        room = rooms[int(rng.choice(len(rooms), p=w / w.sum()))]
        xy = _free_points(spec, rng, room, polys, n=FREE_POINT_DRAWS)[:POSITIONS_SCORED]
        if not len(xy):
            continue
        score, inview, pieces = _view_scores(spec, xy, yaws, 0.5 * hfov - 8.0)
        if score.max() <= 0:
            continue
        flat = np.argsort(-score.ravel(), kind="stable")[:4]  # among the four best (position, yaw)
        k = int(flat[int(rng.integers(len(flat)))])
        i, j = divmod(k, len(yaws))
        best = (xy[i], float(yaws[j]), [p for p, m in zip(pieces, inview[i, j]) if m])
        break
    if best is None:  # no free point seeing furniture: the freest grid point, facing the nearest piece
        x0, y0, x1, y1 = rooms[0].interior
        gx, gy = np.meshgrid(np.linspace(x0, x1, 25), np.linspace(y0, y1, 25))
        g = np.stack([gx.ravel(), gy.ravel()], 1)
        p = g[int(np.argmax(clearance(spec, g, polys)))]
        f = min((f for f in spec.furniture if f.room == rooms[0].name),
                key=lambda f: float(np.hypot(*(np.asarray(f.position) - p))))
        d = np.asarray(f.position) - p
        best = (p, math.degrees(math.atan2(d[1], d[0])), [f])
    xy, yaw, seen = best
    yaw += float(rng.normal(0.0, 4.0))
    def off_axis(f):
        d = np.asarray(f.position) - xy
        return abs((math.degrees(math.atan2(d[1], d[0])) - yaw + 180.0) % 360.0 - 180.0)
    target = min(seen, key=off_axis)
    eye = [float(xy[0]), float(xy[1]), float(rng.uniform(*EYE_HEIGHT_RANGE))]
    pose = first_person_pose(eye, yaw, float(rng.uniform(*PITCH_DOWN_DEG)), hfov, long_side_px,
                             roll_deg=float(rng.normal(0.0, 1.5)))
    return View(view_index=view_index, pose=pose, target=target.name, attempt=attempt)


def camera_room(spec: IndoorSpec, pose: CameraPose) -> str | None:
    c = pose.center
    return room_at(spec, c[:2])


ENV = Environment(
    name="egopath",
    family="indoor",
    version=GENERATOR_VERSION,
    views_per_scene=4,
    sample_scene=sample_scene,
    sample_view=sample_view,
    builder="blender_envs.indoor.build:build",
    scorer="scorers.egopath_view",
    spec_model=IndoorSpec,
    prompts="egopathbench",
)
