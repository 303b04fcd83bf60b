"""`entrance_crowd`: the entrance with a crowd of passers-by, for 2D Object Localization
(VANTAGE-Bench Table 5: 43.6 boxes an image on average, up to 100+; domain S).

The draw is the entrance's (`entrance.sample_scene`: camera, door, episode, lobby script,
furniture, lighting, looks) in a concourse (its wall distance and half-width ranges widened
by parameter, CONCOURSE_*), followed by the crowd, drawn last from the same generator; the
entrance's own draws (default ranges) and pins are untouched. A crowd clip of a seed is not
the entrance clip of that seed: the farm seeds draws by environment name.

The crowd: a target count of 20 + Exp(30) passers (mean 49, capped at CROWD_MAX), each
standing still or standing, walking 2-8 m in a straight line and standing again, with a look
from the entrance's palettes, proposed at the floor point under a uniformly drawn pixel.
Passers are placed one by one by rejection; a proposal is kept only if, at every time of a
SCAN_S grid over the clip, its footprint disc keeps CLEAR_M from every other person's (base
cast and passers) and its ground point stays inside the lobby, away from the furniture, out
of the door zone (the reader's reach, the threshold box, the badge spots) and out of the
loiter region grown by REGION_KEEP_M; and if, at every sampled frame (a nominal NOMINAL_PX
frame), the box of its projected body vertices is either wholly outside the frame, or wholly
inside it EDGE_PX from its edges, at least MIN_BOX_H_PX tall, with nearer people's and
furniture's boxes covering at most HIDDEN_MAX of it, pushing no earlier passer over
HIDDEN_MAX and covering no base-cast person. So a passer in a sampled frame is uncut and
mostly unhidden (the Object Localization rule keeps such frames), base-cast people are as
visible as without the crowd, and passers never trigger an event. Where the frame cannot
hold the target, fewer are placed (`crowd.placed`); docs/envs/entrance_crowd.md has the
numbers.
"""
from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel, ConfigDict

from blender_envs.infra import entrance, people
from blender_envs.infra.entrance import EntranceSpec, _person_look
from blender_envs.infra.entrance_layout import furniture_footprint, furniture_parts
from blender_envs.registry import Environment
from geometry.camera import world_to_camera
from geometry.clip import camera_pose
from geometry.polygons import nearest_poly_distance
from geometry.timeline import Agent, Line, Path, PathTrajectory, Stationary, profile_from_phases

# -2: the entrance's furnished lobby (entrance-2); passers keep clear of furniture footprints
# -3: the entrance-3 draw (its door episode timed onto shown frames)
# -4: the entrance-4 draw (0.4-2.5 s at the reader before the grant)
# -5: a bigger concourse (14-26 m deep, 24-36 m wide; was 10-18 and 20-28) and targets of mean 49
#     (was 44): 41 people a frame on average, up to 105 (was 28, up to 66; the paper: 43.6, up to 100+)
GENERATOR_VERSION = "entrance_crowd-5"
CROWD_MIN, CROWD_MEAN_EXTRA, CROWD_MAX = 20, 30.0, 120   # target = min(MAX, MIN + round(Exp(MEAN_EXTRA)))
CONCOURSE_WALL_Y = (14.0, 26.0)    # the door wall farther (entrance: 5-11 m) ...
CONCOURSE_HALF_WIDTH = (12.0, 18.0)  # ... and the lobby wider (entrance: 6-8 m): a concourse
ATTEMPTS_PER_PASSER = 40
WALKER_P = 0.5                     # a proposal walks (else it stands all clip)
WALK_M = (2.0, 8.0)
WALK_V = (0.9, 1.4)
RAMP_S = 0.5
SCAN_S = 0.05                      # ground clearance grid; 2 x 1.4 m/s x SCAN_S / 2 = 0.07 m < CLEAR_M
CLEAR_M = 0.15                     # footprint discs (half-diagonal radius) at least this far apart
FURNITURE_CLEAR_M = 0.2
WALL_CLEAR_M = 0.15
DOOR_ZONE_X = 2.0                  # passers' ground points stay out of |x - door_x| < this, y > face - DOOR_ZONE_Y
DOOR_ZONE_Y = 2.0
REGION_KEEP_M = 0.5                # and this far outside the loiter region's rectangle
NEAR_Y = 0.5                       # and in front of the camera's wall plane by this much
NOMINAL_PX = 640
EDGE_PX = 4.0                      # at NOMINAL_PX: an in-frame box keeps this far from the frame's edge
HIDDEN_MAX = 0.3                   # ... and nearer boxes cover at most this share of its box
MIN_BOX_H_PX = 30.0                # ... and is at least this tall
NEAR_Z = 0.05
R = 6

_SIGNS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)
_EDGES = [(i, j) for i in range(8) for j in range(i + 1, 8) if int(np.sum(_SIGNS[i] != _SIGNS[j])) == 1]


def _r(x) -> float:
    return round(float(x), R)


class Crowd(BaseModel):
    """What the crowd draw asked for and what the frame held."""

    model_config = ConfigDict(extra="forbid")
    target: int
    placed: int
    walkers: int
    attempts: int
    passers: list[str]


class EntranceCrowdSpec(EntranceSpec):
    crowd: Crowd


# ------------------------------------------------------------------ image boxes

def _project(Xc: np.ndarray, K) -> np.ndarray:
    h = Xc @ np.asarray(K, float).T
    uv = h[:, :2] / h[:, 2:3]
    return np.concatenate([uv.min(axis=0), uv.max(axis=0)])


def image_box(points: np.ndarray, K: np.ndarray, cam_to_world: np.ndarray) -> tuple[np.ndarray | None, bool]:
    """(image box [u0, v0, u1, v1] of `points` (N, 3, world), or None when nothing is in front
    of the camera; whether every point is in front). With every point in front the box is the
    projected points' box; otherwise it bounds the part in front of the plane z = NEAR_Z of the
    points' world bounding box (its 8 corners clipped along its 12 edges)."""
    P = np.asarray(points, float)
    Xc = world_to_camera(P, cam_to_world)
    if np.all(Xc[:, 2] > NEAR_Z):
        return _project(Xc, K), True
    lo, hi = P.min(axis=0), P.max(axis=0)
    corners = lo + (_SIGNS > 0) * (hi - lo)
    Xc = world_to_camera(corners, cam_to_world)
    z = Xc[:, 2]
    pts = [Xc[z > NEAR_Z]]
    for i, j in _EDGES:
        if (z[i] - NEAR_Z) * (z[j] - NEAR_Z) < 0:
            a = (NEAR_Z - z[i]) / (z[j] - z[i])
            pts.append((Xc[i] + a * (Xc[j] - Xc[i]))[None])
    Q = np.vstack(pts)
    return (_project(Q, K) if len(Q) else None), False


def _intersections(box: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Areas of `box` intersected with each of `boxes` (N, 4)."""
    w = np.minimum(box[2], boxes[:, 2]) - np.maximum(box[0], boxes[:, 0])
    h = np.minimum(box[3], boxes[:, 3]) - np.maximum(box[1], boxes[:, 1])
    return np.clip(w, 0.0, None) * np.clip(h, 0.0, None)


def _area(box) -> float:
    return float((box[2] - box[0]) * (box[3] - box[1]))


class _Frame:
    """One sampled frame's image boxes so far: each with its depth (camera z of the agent's
    centre), its kind (0 furniture, 1 base cast, 2 passer) and the share of its box that
    nearer boxes cover (the sum of the pairwise overlaps, a bound of their union)."""

    def __init__(self):
        self.boxes, self.depth, self.kind, self.hidden = np.zeros((0, 4)), np.zeros(0), np.zeros(0, int), np.zeros(0)

    def add(self, box, depth: float, kind: int, hidden: float = 0.0) -> None:
        self.boxes = np.vstack([self.boxes, np.asarray(box, float)[None]])
        self.depth = np.append(self.depth, depth)
        self.kind = np.append(self.kind, kind)
        self.hidden = np.append(self.hidden, hidden)

    def admits(self, box: np.ndarray, depth: float) -> tuple[float, np.ndarray] | None:
        """(the share of `box` hidden, the others' new hidden shares) if a passer there keeps
        every passer's hidden share <= HIDDEN_MAX and hides no base-cast person; else None."""
        inter = _intersections(box, self.boxes)
        front = self.depth < depth
        hidden = float(inter[front].sum()) / _area(box)
        if hidden > HIDDEN_MAX:
            return None
        behind = ~front & (inter > 0)
        if np.any(behind & (self.kind == 1)):
            return None
        areas = (self.boxes[:, 2] - self.boxes[:, 0]) * (self.boxes[:, 3] - self.boxes[:, 1])
        new = self.hidden + np.where(behind & (self.kind == 2), inter / np.maximum(areas, 1e-9), 0.0)
        if np.any(new[self.kind == 2] > HIDDEN_MAX):
            return None
        return hidden, new


class _Frames:
    """The sampled frames at NOMINAL_PX and what each frame's image holds so far."""

    def __init__(self, spec: EntranceSpec):
        tl = spec.timeline
        self.ts = [float(t) for t in tl.clip.timestamps()]
        poses = [camera_pose(tl.camera, t, NOMINAL_PX) for t in self.ts]
        self.K = [p.K_array() for p in poses]
        self.T = [p.cam_to_world_array() for p in poses]
        self.K0_inv = np.linalg.inv(self.K[0])       # floor_point's, once (it runs for every proposal)
        self.w, self.h = poses[0].width, poses[0].height
        self.frames = [_Frame() for _ in self.ts]
        for f in spec.furniture:
            V = np.vstack([np.asarray(part[0], float) for part, _ in furniture_parts(f)])
            for i in range(len(self.ts)):
                self._add(i, V, np.array([*f.position, 0.5]), 0)
        for a in tl.agents:
            if a.category == "person":
                V0 = entrance.body_vertices(spec.looks[a.track_id])
                for i, t in enumerate(self.ts):
                    M = a.pose(t)
                    self._add(i, V0 @ M[:3, :3].T + M[:3, 3], M[:3, 3], 1)

    def floor_point(self, rng) -> np.ndarray | None:
        """The floor point seen at a uniformly drawn pixel of the first frame (None above the
        horizon): proposals spread evenly over the image, so far (small) people are as likely
        as near ones."""
        u, v = rng.uniform(0.0, self.w - 1.0), rng.uniform(0.0, self.h - 1.0)
        T = self.T[0]
        d = T[:3, :3] @ (self.K0_inv @ np.array([u, v, 1.0]))
        if d[2] >= -1e-9:
            return None
        return T[:2, 3] + (-T[2, 3] / d[2]) * d[:2]

    def _depth(self, i: int, xyz) -> float:
        return float(world_to_camera(np.asarray(xyz, float)[None], self.T[i])[0, 2])

    def _add(self, i: int, V: np.ndarray, centre, kind: int) -> None:
        box, _ = image_box(V, self.K[i], self.T[i])
        if box is not None:
            self.frames[i].add(box, self._depth(i, centre), kind)

    def fits(self, agent: Agent, body: np.ndarray) -> list | None:
        """Per frame, None (wholly out of frame) or (box, depth, hidden share, others' new shares),
        if every frame admits the agent with body vertices `body` (its box frame); else None."""
        out = []
        for i, t in enumerate(self.ts):
            M = agent.pose(t)
            box, whole = image_box(body @ M[:3, :3].T + M[:3, 3], self.K[i], self.T[i])
            if box is None or box[2] < 0 or box[3] < 0 or box[0] > self.w - 1 or box[1] > self.h - 1:
                out.append(None)                                       # nothing of it in frame
                continue
            inside = (whole and box[0] >= EDGE_PX and box[1] >= EDGE_PX and box[2] <= self.w - 1 - EDGE_PX
                      and box[3] <= self.h - 1 - EDGE_PX)
            if not inside or box[3] - box[1] < MIN_BOX_H_PX:
                return None
            depth = self._depth(i, M[:3, 3])
            ok = self.frames[i].admits(box, depth)
            if ok is None:
                return None
            out.append((box, depth, *ok))
        return out if any(f is not None for f in out) else None     # a passer is in view at least once

    def take(self, fitted: list) -> None:
        for frame, f in zip(self.frames, fitted):
            if f is not None:
                box, depth, hidden, others = f
                frame.hidden = others
                frame.add(box, depth, 2, hidden)


# ------------------------------------------------------------------ the ground

class _Ground:
    """Where passers may be: positions of everyone so far on the SCAN_S grid, the keep-out
    zones and the furniture."""

    def __init__(self, spec: EntranceSpec):
        self.ts = np.arange(0.0, spec.timeline.clip.duration_s + 1e-9, SCAN_S)
        self.radius = 0.5 * math.hypot(*people.CIVILIAN_SIZE_XY)
        self.tracks = [np.array([a.position(float(t))[:2] for t in self.ts])
                       for a in spec.timeline.agents if a.category == "person"]
        x_lo, _, x_hi, _ = spec.lobby
        yf = spec.door.reader_xy[1]                            # the door wall's lobby face
        m = self.radius + WALL_CLEAR_M
        self.box = (x_lo + m, NEAR_Y, x_hi - m, yf - m)
        self.door = (spec.door_x - DOOR_ZONE_X, yf - DOOR_ZONE_Y)
        self.door_x1 = spec.door_x + DOOR_ZONE_X
        P = np.asarray(spec.loiter_region.polygon, float)
        self.region = (*(P.min(axis=0) - REGION_KEEP_M), *(P.max(axis=0) + REGION_KEEP_M))
        self.furniture = [furniture_footprint(f) for f in spec.furniture]
        self.furniture_reach = self.radius + FURNITURE_CLEAR_M        # from a footprint's edge

    def allowed(self, xy: np.ndarray) -> bool:
        """Every point of `xy` (N, 2) inside the lobby box and out of the keep-out zones."""
        x, y = xy[:, 0], xy[:, 1]
        x0, y0, x1, y1 = self.box
        if np.any((x < x0) | (x > x1) | (y < y0) | (y > y1)):
            return False
        if np.any((x > self.door[0]) & (x < self.door_x1) & (y > self.door[1])):
            return False
        rx0, ry0, rx1, ry1 = self.region
        if np.any((x > rx0) & (x < rx1) & (y > ry0) & (y < ry1)):
            return False
        return not (self.furniture and np.any(nearest_poly_distance(xy, self.furniture) < self.furniture_reach))

    def clear(self, track: np.ndarray) -> bool:
        if not self.tracks:
            return True
        d = np.linalg.norm(np.stack(self.tracks) - track[None], axis=2)
        return bool(np.all(d >= 2 * self.radius + CLEAR_M))

    def track(self, agent: Agent) -> np.ndarray:
        if isinstance(agent.trajectory, Stationary):
            return np.repeat(np.asarray(agent.trajectory.position[:2], float)[None], len(self.ts), axis=0)
        return np.array([agent.position(float(t))[:2] for t in self.ts])


# ------------------------------------------------------------------ proposals

def _propose(rng, tid: str, look, start: np.ndarray, duration: float) -> Agent:
    """A passer at `start` standing still, or standing, walking a straight 2-8 m and standing again."""
    h = float(look.params["height"])
    size = [*people.CIVILIAN_SIZE_XY, h]
    heading = rng.uniform(-180.0, 180.0)
    if rng.random() >= WALKER_P:
        return Agent(track_id=tid, category="person", mesh="person", size=size,
                     trajectory=Stationary(position=[_r(start[0]), _r(start[1]), _r(h / 2)], yaw_deg=_r(heading)))
    length = rng.uniform(*WALK_M)
    v = rng.uniform(*WALK_V)
    cruise = (length - v * RAMP_S) / v
    t0 = rng.uniform(0.0, duration - 2 * RAMP_S - cruise)
    phases = ([("stop", _r(t0))] if t0 > 1e-6 else []) + [("accelerate", _r(v), RAMP_S), ("cruise", _r(cruise)),
                                                           ("decelerate", 0.0, RAMP_S)]
    path = Path(start=[_r(start[0]), _r(start[1])], heading_deg=_r(heading), segments=[Line(length=_r(length))])
    return Agent(track_id=tid, category="person", mesh="person", size=size,
                 trajectory=PathTrajectory(path=path, speed=profile_from_phases(0.0, phases), z=_r(h / 2)))


def crowd_target(rng) -> int:
    return int(min(CROWD_MAX, CROWD_MIN + round(rng.exponential(CROWD_MEAN_EXTRA))))


def add_crowd(spec: EntranceSpec, rng: np.random.Generator) -> EntranceCrowdSpec:
    """The spec with passers added after every other agent (module docstring)."""
    target = crowd_target(rng)
    ground, frames = _Ground(spec), _Frames(spec)
    agents, looks, walkers, attempts = [], {}, 0, 0
    for _ in range(target * ATTEMPTS_PER_PASSER):
        if len(agents) == target:
            break
        attempts += 1
        tid = f"passer_{len(agents) + 1}"
        start = frames.floor_point(rng)
        look = _person_look(rng)
        if start is None or not ground.allowed(start[None]):
            continue
        agent = _propose(rng, tid, look, start, spec.timeline.clip.duration_s)
        fitted = frames.fits(agent, entrance.body_vertices(look))
        if fitted is None:
            continue
        track = ground.track(agent)
        if not ground.allowed(track) or not ground.clear(track):
            continue
        frames.take(fitted)
        ground.tracks.append(track)
        agents.append(agent)
        looks[tid] = look
        walkers += isinstance(agent.trajectory, PathTrajectory)
    data = spec.model_dump(mode="json")
    data["env"] = "entrance_crowd"
    data["timeline"]["agents"] += [a.model_dump(mode="json") for a in agents]
    data["looks"].update({k: v.model_dump(mode="json") for k, v in looks.items()})
    data["crowd"] = Crowd(target=target, placed=len(agents), walkers=walkers, attempts=attempts,
                          passers=[a.track_id for a in agents]).model_dump(mode="json")
    return EntranceCrowdSpec.model_validate(data)


def sample_scene(rng: np.random.Generator, scene_id: str, seed: int) -> EntranceCrowdSpec:
    """An entrance draw, then its crowd from the same generator."""
    return add_crowd(entrance.sample_scene(rng, scene_id, seed, wall_y=CONCOURSE_WALL_Y,
                                           half_width=CONCOURSE_HALF_WIDTH), rng)


ENV = Environment(
    name="entrance_crowd",
    family="vantage",
    version=GENERATOR_VERSION,
    views_per_scene=entrance.FRAMES_PER_CLIP,
    sample_scene=sample_scene,
    sample_view=entrance.sample_view,
    builder="blender_envs.infra.entrance_build:build",
    scorer="scorers.entrance",
    spec_model=EntranceCrowdSpec,
    timeline=entrance.timeline,
    events=entrance.events,
    isp="cctv",
)
