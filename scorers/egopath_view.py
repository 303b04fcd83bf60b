"""Scorer of `egopath` (EgoPathBench §3.3, App. A): which first-person views are kept,
which furniture instances are targets, and the per-view `ViewAnnotation` (ground truth).

scene side (per pose attempt, before rendering)
  camera_clearance   occupancy-grid clearance at the camera >= 0.35 m (no wall or furniture
                     in the walker's immediate neighbourhood)
  near_view          the bottom-centre image region sees floor/furniture >= 0.8 m away
                     (a 7x5 ray fan over columns 30-70 %, rows 70-98 %)
  targets_in_view    >= 1 furniture instance passes the target filters below
  start_exists       a visible embodied-feasible floor point near the bottom centre (the
                     route start, display id 1) exists

Target filters (§3.3 "Scenes, views, and targets"; numbers ours except the strict ones):
  in frustum: the piece's centre (mid-height) projects inside the image, in front;
  distance: camera centre to the nearest footprint point on the floor plane 1.5-8 m;
  projected size: bbox short side of its visible pixels >= 24 px at a 640 px long side
  (scaled with the long side);
  visible surface >= 0.15: the share of its camera-facing surface samples that are in frame
  and not hidden (by anything, itself included);
  strict_visible (App. A): bbox short side >= 64 px (at 640) and visible surface >= 0.5.

The visible pixels come from a ray-cast id image through the pixel centres, which the
object-index pass reproduces (tests/test_egopath_env.py), so labels never depend on the
renderer. No bpy here.
"""
from __future__ import annotations

import hashlib
from collections import OrderedDict

import numpy as np

from blender_envs.indoor.layout import IndoorSpec, footprint
from geometry.camera import CameraPose, project
from geometry.egopath_schema import GeometryParams, TargetInfo
from geometry.polygons import point_poly_distance
from geometry.raycast import in_frame_mask, sample_surface, visible_mask
from scorers.terms import TermResult, flag, term

TARGET_DISTANCE_M = (1.5, 8.0)
MIN_TARGET_START_M = 1.5      # route units only for targets at least this far (footprint) from the start
BBOX_SHORT_MIN_PX = 24.0        # at REFERENCE_LONG_SIDE_PX
STRICT_BBOX_SHORT_PX = 64.0     # App. A
VISIBLE_SURFACE_MIN = 0.15
STRICT_VISIBLE_SURFACE = 0.5    # App. A
REFERENCE_LONG_SIDE_PX = 640
CAMERA_CLEARANCE_MIN_M = 0.35
NEAR_VIEW_MIN_M = 0.8
VISIBLE_OBJECT_MIN_PX = 30.0    # at 640: smaller slivers are not "visible objects" for the resolver
SURFACE_SAMPLES = 800
FLOOR_CATEGORIES = ("floor",)
NON_OBSTACLE_CATEGORIES = ("floor", "ceiling", "window")
_CACHE_SIZE = 4
_grid_cache: "OrderedDict[tuple, object]" = OrderedDict()


# ------------------------------------------------------------------------- helpers


def scale_of(pose: CameraPose) -> float:
    return max(pose.width, pose.height) / REFERENCE_LONG_SIDE_PX


def ids_of(geo, categories) -> list[int]:
    return sorted(o.id for o in geo.state.objects if o.category in categories)


def floor_ids(geo) -> list[int]:
    return ids_of(geo, FLOOR_CATEGORIES)


def obstacle_ids(geo) -> list[int]:
    return sorted(o.id for o in geo.state.objects if o.category not in NON_OBSTACLE_CATEGORIES)


def occupancy_grid(geo, params: GeometryParams = GeometryParams()):
    """The scene's occupancy grid, cached per (scene id, mesh content, params): every pose
    attempt and every view of a scene share it."""
    from geometry.occupancy import occupancy_from_mesh

    h = hashlib.blake2b(geo.mesh.vertices.tobytes(), digest_size=12)
    h.update(geo.mesh.triangles.tobytes())
    h.update(geo.mesh.tri_object_id.tobytes())
    key = (geo.state.scene_id, h.hexdigest(), params.model_dump_json())
    if key in _grid_cache:
        _grid_cache.move_to_end(key)
        return _grid_cache[key]
    grid = occupancy_from_mesh(geo.mesh, set(floor_ids(geo)), params)
    _grid_cache[key] = grid
    while len(_grid_cache) > _CACHE_SIZE:
        _grid_cache.popitem(last=False)
    return grid


def id_image(geo, pose: CameraPose) -> tuple[np.ndarray, np.ndarray]:
    """Ray-cast object ids and planar depth through every pixel centre."""
    return geo.raycaster.first_hit_ids_for_pixels(pose.K_array(), pose.cam_to_world_array(), pose.width,
                                                  pose.height)


def visible_surface(geo, pose: CameraPose, object_id: int, n: int = SURFACE_SAMPLES) -> float:
    """Share of the object's camera-facing surface samples that are in frame and unhidden."""
    pts, nrm, _ = sample_surface(geo.mesh, object_id, n_interior=n, seed=0)
    if not len(pts):
        return 0.0
    C = pose.center
    facing = np.einsum("ij,ij->i", C[None, :] - pts, nrm) > 1e-9
    if not facing.any():
        return 0.0
    P = pts[facing]
    ok = in_frame_mask(P, pose.K_array(), pose.cam_to_world_array(), pose.width, pose.height)
    vis = np.zeros(len(P), bool)
    if ok.any():
        vis[ok] = visible_mask(geo.raycaster, C, P[ok] + 1e-4 * nrm[facing][ok], object_id, self_occludes=True)
    return float(vis.mean())


def _bbox(mask: np.ndarray) -> list[float] | None:
    ys, xs = np.nonzero(mask)
    if not len(xs):
        return None
    return [float(xs.min()) - 0.5, float(ys.min()) - 0.5, float(xs.max()) + 0.5, float(ys.max()) + 0.5]


def view_objects(geo, pose: CameraPose, ids: np.ndarray | None = None) -> tuple[list[TargetInfo], list[dict]]:
    """(targets passing the filters, visible furniture for the language module)."""
    spec: IndoorSpec = geo.spec
    if ids is None:
        ids, _ = id_image(geo, pose)
    s = scale_of(pose)
    C = pose.center
    by_name = {o.name: o for o in geo.state.objects}
    counts = np.bincount(ids.ravel(), minlength=max((o.id for o in geo.state.objects), default=0) + 1)
    visible, cands = [], []
    for f in spec.furniture:
        obj = by_name.get(f.name)
        if obj is None or counts[obj.id] < VISIBLE_OBJECT_MIN_PX * s * s:
            continue
        bbox = _bbox(ids == obj.id)
        P = footprint(f)
        dist = float(point_poly_distance(C[None, :2], P)[0])
        visible.append({"object_id": obj.id, "name": f.name, "category": f.category, "color": f.color,
                        "size_word": f.size_word, "room": f.room, "distance_m": round(dist, 4),
                        "bbox_px": [round(v, 2) for v in bbox],
                        "centre_xy": [round(float(v), 4) for v in f.position],
                        "pixels": int(counts[obj.id])})
        cands.append((f, obj, bbox, dist, P))
    same = {}
    for v in visible:
        same[v["category"]] = same.get(v["category"], 0) + 1
    targets = []
    for f, obj, bbox, dist, P in cands:
        short = min(bbox[2] - bbox[0], bbox[3] - bbox[1])
        if not (TARGET_DISTANCE_M[0] <= dist <= TARGET_DISTANCE_M[1]) or short < BBOX_SHORT_MIN_PX * s:
            continue
        centre = np.array([f.position[0], f.position[1], f.size[2] / 2])
        uv, z = project(centre[None], pose.K_array(), pose.cam_to_world_array())
        if not (z[0] > 0 and -0.5 <= uv[0, 0] < pose.width - 0.5 and -0.5 <= uv[0, 1] < pose.height - 0.5):
            continue
        vs = visible_surface(geo, pose, obj.id)
        if vs < VISIBLE_SURFACE_MIN:
            continue
        targets.append(TargetInfo(
            object_id=obj.id, name=f.name, category=f.category, color=f.color, size_word=f.size_word, room=f.room,
            bbox_px=[round(v, 2) for v in bbox], visible_surface=round(vs, 4), distance_m=round(dist, 4),
            strict_visible=bool(short >= STRICT_BBOX_SHORT_PX * s and vs >= STRICT_VISIBLE_SURFACE),
            same_category_in_view=same[f.category],
            footprint_xy=[[round(float(x), 4), round(float(y), 4)] for x, y in P]))
    return targets, visible


def near_view_m(geo, pose: CameraPose) -> float:
    """Nearest hit over a 7x5 ray fan in the bottom-centre region (inf if nothing is hit)."""
    us = np.linspace(0.30, 0.70, 7) * (pose.width - 1)
    vs = np.linspace(0.70, 0.98, 5) * (pose.height - 1)
    gu, gv = np.meshgrid(us, vs)
    uv = np.stack([gu.ravel(), gv.ravel(), np.ones(gu.size)], 1)
    d_cam = uv @ np.linalg.inv(pose.K_array()).T
    T = pose.cam_to_world_array()
    t, _, _, _ = geo.raycaster.cast(np.broadcast_to(T[:3, 3], d_cam.shape), d_cam @ T[:3, :3].T)
    return float(t.min())


def _start(geo, pose: CameraPose, grid, params: GeometryParams = GeometryParams()):
    from geometry.feasibility import agent_radius, feasible_mask
    from geometry.waypoints import start_candidate

    feas = feasible_mask(grid, agent_radius("embodied", params))
    margin = max(4.0, round(0.03 * max(pose.width, pose.height)))  # as build_view_annotation's default
    return start_candidate(geo.raycaster, pose, floor_ids(geo),
                           feasible=lambda xy: grid.lookup(feas, np.atleast_2d(xy), outside=False),
                           margin_px=margin)


# ------------------------------------------------------------------------- scorer API

def score_scene(geo, view) -> list[TermResult]:
    pose = view.pose
    grid = occupancy_grid(geo)
    c = float(grid.lookup(grid.clearance_m, pose.center[None, :2], outside=0.0)[0])
    targets, _ = view_objects(geo, pose)
    return [
        term("camera_clearance", "scene", c, ">=", CAMERA_CLEARANCE_MIN_M, "m"),
        term("near_view", "scene", min(near_view_m(geo, pose), 1e6), ">=", NEAR_VIEW_MIN_M, "m"),
        term("targets_in_view", "scene", len(targets), ">=", 1),
        flag("start_exists", "scene", _start(geo, pose, grid) is not None),
    ]


def score_frame(geo, view, frame) -> list[TermResult]:
    return []  # no frame-side terms beyond the farm's render sanity check


def ground_truth(geo, view, frame=None, timings: dict | None = None) -> dict:
    """The view's `ViewAnnotation` (JSON) plus its scene group. Deterministic: waypoint
    draws use a generator seeded from (spec seed, view index). `timings` (optional)
    collects the annotation's stage durations (see `build_view_annotation`)."""
    from geometry.view_annotation import AnnotationParams, NoStartError, build_view_annotation
    from scorers.egopath_language import explicit_target_text, intent_request

    spec: IndoorSpec = geo.spec
    pose = view.pose
    grid = occupancy_grid(geo)
    targets, visible = view_objects(geo, pose)
    texts = {t.object_id: explicit_target_text(t.object_id, visible) for t in targets}
    named = [t for t in targets if texts[t.object_id] is not None]
    try:
        ann = build_view_annotation(
            mesh=geo.mesh, raycaster=geo.raycaster, grid=grid, pose=pose, targets=named,
            floor_ids=floor_ids(geo), obstacle_ids=obstacle_ids(geo),
            rng=np.random.default_rng([int(spec.seed), int(view.view_index), 7]),
            target_texts={k: v for k, v in texts.items() if v is not None}, visible_objects=visible,
            params=AnnotationParams(min_target_start_m=MIN_TARGET_START_M), timings=timings)
    except NoStartError as e:
        return {"scene_group": spec.scene_group, "annotation_error": f"no_start: {e}"}
    irng = np.random.default_rng([int(spec.seed), int(view.view_index), 11])
    for unit in ann.routes:
        req = intent_request(unit.target_object_id, visible, irng)
        unit.intent, unit.intent_cues = (None, []) if req is None else (req[0], list(req[1]))
    return ann.model_dump(mode="json") | {"scene_group": spec.scene_group}
