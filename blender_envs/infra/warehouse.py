"""`warehouse`: a logistics hall seen by one fixed CCTV camera (VANTAGE-Bench §3, domain W).

The draw, in order (all of it plain data, no bpy):
  1. the camera: a wall mount at the origin 2.4-6.1 m high, 30-60 degrees from vertical,
     yaw 90 +- 25 degrees (looking into the hall along +y), a wide lens (80-100 degrees);
     redrawn until it sees a stage deep enough for a pedestrian band and one vehicle aisle;
  2. bands at increasing depth: the pedestrian band P (a walkway with the restricted
     zone), then one or two vehicle aisles V1, V2 (lanes along x through gaps in the
     side racks), each far enough from the others that nothing in one band can touch or
     nearly miss anything in another;
  3. one script per band: P hosts a zone entry (or a near-negative walk along the zone's
     edge) and/or a fall, else a plain walker; each aisle hosts a near miss (or a
     near-negative pass at 1.2-2x the threshold), a forklift-AMR collision, a pallet
     pickup, a drop, or background traffic (a loaded forklift or an AMR driving through);
  4. racks (with loads), floor markings, walls, lamps, lighting (day, dusk, night with
     lamps on) and every agent's look (colours with names);
  5. further scripts per band, interleaved in time with the first (warehouse-2: the paper's
     DVC videos hold 6.9 events, one script per band gave 1-4): up to MORE_SCRIPTS more zone
     walks and falls in P, and more event scripts in each one-way lane, before or after its
     events, each kept only when none of its agents comes near an agent of another script
     (`_Cast.apart`); clutter in their way is taken away. The SOT variant adds background
     movers last (`_roamers`).
Each script lists the event it plans in `scripts` (positive or a near negative); the
events themselves are derived from the motion (`warehouse_events`), and the tests check
that the two agree.
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from blender_envs.infra import bodies
from blender_envs.infra.warehouse_events import NEAR_MISS_M, derive_events
from blender_envs.infra.warehouse_layout import (BAY_LEN, RACK_DEPTH, Clutter, Rack, RackLoad, Stripe, Zone,
                                                 zone_stripes)
from blender_envs.registry import Environment
from geometry.camera import project, projected_pixel_box
from geometry.clip import ClipSpec, MountedCamera, Timeline, camera_pose, on_a_frame
from geometry.events import Event
from geometry.scene import SceneSpec, View
from geometry.timeline import (Agent, Arc, Carried, Fall, FallingAgent, Line, Path, PathTrajectory,
                               profile_from_phases)

# 3: near misses and zone walks timed so that a shown frame holds the event's middle
GENERATOR_VERSION = "warehouse-3"
DURATION_S = 16.0
FRAMES_PER_CLIP = 8                     # VANTAGE's default: 8 frames sampled uniformly over the clip
SHOWN_TIMES = ClipSpec(duration_s=DURATION_S, sampling={"kind": "uniform", "k": FRAMES_PER_CLIP}).timestamps()
LIGHTINGS = ("day", "dusk", "night")
CAMERA_ATTEMPTS = 200
BAND_GAP_M = 2.0                        # > NEAR_MISS_M: bands never interact
AISLE_BELOW_M = 4.1                     # an aisle's lane centre to the lowest y its script uses (the waiting person)
AISLE_ABOVE_M = 1.5                     # ... and the highest (the AMR turning away)
LANE_GAP_HALF_M = 2.3                   # half-width of the gap in the side racks where a lane runs through
NEAR_POS_M = (0.95, 1.4)                # planned near-miss centre distances (contact at 0.86 m)
NEAR_NEG_M = (1.8, 3.0)                 # near negatives: 1.2-2x the threshold
ZONE_NEG_M = (0.25, 0.8)                # near negatives: the walker's centre this far outside the zone edge
CLUTTER_CLEAR_M = 1.2                   # > 0.875 m (the clutter's half-diagonal) + 0.44 m (3.5 m/s x 0.125 s): no agent touches it
R = 6                                   # decimals of stored floats
MORE_SCRIPTS = {"P": 5, "V": 3}         # further scripts tried per band (P, each aisle), after its first
MORE_SCRIPT_ATTEMPTS = 16               # draws per further script before it is given up
LATEST_FURTHER_S = 12.0                 # a further aisle script's event lies in [EARLIEST.., LATEST..]
EARLIEST_FURTHER_S = 3.5
LANE_BLOCKERS = ("drop", "collision")
QUEUE_M = 4.0                           # each further forklift of a lane starts this much farther upstream
SEPARATION_MARGIN_M = 0.5               # agents of different scripts stay this much beyond reach (Cast.apart)
SEPARATION_STEP_S = 0.1
_SEPARATION_TS = np.arange(0.0, DURATION_S + 1e-9, SEPARATION_STEP_S)


def _r(x) -> float:
    return round(float(x), R)


# ------------------------------------------------------------------ looks (colours with names)

PALETTES = {
    "vest": {"yellow": (0.85, 0.95, 0.05), "orange": (1.0, 0.32, 0.02), "lime": (0.45, 0.95, 0.1)},
    "shirt": {"grey": (0.35, 0.35, 0.37), "blue": (0.08, 0.16, 0.4), "black": (0.03, 0.03, 0.03),
              "white": (0.8, 0.8, 0.78), "red": (0.5, 0.05, 0.04)},
    "trousers": {"navy": (0.03, 0.05, 0.13), "black": (0.02, 0.02, 0.02), "khaki": (0.4, 0.33, 0.2),
                 "grey": (0.2, 0.2, 0.21)},
    "hat": {"white": (0.85, 0.85, 0.85), "yellow": (0.9, 0.75, 0.05), "blue": (0.05, 0.2, 0.6),
            "orange": (0.9, 0.3, 0.03)},
    "forklift": {"yellow": (0.9, 0.65, 0.02), "orange": (0.85, 0.25, 0.02), "red": (0.6, 0.04, 0.03),
                 "blue": (0.05, 0.15, 0.5), "green": (0.1, 0.35, 0.1)},
    "amr": {"white": (0.75, 0.76, 0.78), "grey": (0.3, 0.31, 0.33), "orange": (0.85, 0.3, 0.03),
            "black": (0.04, 0.04, 0.04)},
    "tote": {"blue": (0.05, 0.2, 0.55), "grey": (0.35, 0.36, 0.38), "red": (0.55, 0.05, 0.04)},
}
SKIN = ((0.85, 0.64, 0.5), (0.63, 0.44, 0.32), (0.42, 0.27, 0.18), (0.25, 0.16, 0.1))
FIXED = {"reflective": (0.8, 0.8, 0.82), "shoes": (0.03, 0.03, 0.03), "tyre": (0.02, 0.02, 0.02),
         "dark": (0.05, 0.05, 0.05), "mast": (0.08, 0.08, 0.09), "fork": (0.1, 0.1, 0.1),
         "counterweight": (0.06, 0.06, 0.06), "wood": (0.55, 0.42, 0.27), "carton": (0.5, 0.36, 0.2),
         "carton_dark": (0.42, 0.29, 0.16), "wrap": (0.7, 0.74, 0.78), "bumper": (0.9, 0.7, 0.02)}


class Look(BaseModel):
    """How one agent looks: its body kind and parameters (`bodies.body_parts`), a colour
    per material key, and the names of the colours a description may use."""

    model_config = ConfigDict(extra="forbid")
    kind: str
    params: dict[str, float | str]
    colors: dict[str, list[float]]
    color_names: dict[str, str]


def _pick(rng, palette: str) -> tuple[str, list[float]]:
    names = sorted(PALETTES[palette])
    name = names[int(rng.integers(len(names)))]
    return name, [float(c) for c in PALETTES[palette][name]]


def _person_look(rng) -> Look:
    colors, names = {k: list(v) for k, v in FIXED.items() if k in ("reflective", "shoes")}, {}
    for key in ("vest", "shirt", "trousers", "hat"):
        names[key], colors[key] = _pick(rng, key)
    colors["skin"] = [float(c) for c in SKIN[int(rng.integers(len(SKIN)))]]
    return Look(kind="person", params={"height": _r(rng.uniform(1.6, 1.9))}, colors=colors, color_names=names)


def _forklift_look(rng) -> Look:
    name, paint = _pick(rng, "forklift")
    vest_name, vest = _pick(rng, "vest")
    hat_name, hat = _pick(rng, "hat")
    colors = {k: list(v) for k, v in FIXED.items() if k in ("tyre", "dark", "mast", "fork", "counterweight")}
    colors.update(paint=paint, vest=vest, hat=hat, skin=[float(c) for c in SKIN[int(rng.integers(len(SKIN)))]])
    return Look(kind="forklift", params={}, colors=colors,
                color_names={"paint": name, "operator_vest": vest_name, "operator_hat": hat_name})


def _pallet_look(rng) -> Look:
    kind = "wrapped" if rng.random() < 0.4 else "cartons"
    colors = {k: list(v) for k, v in FIXED.items() if k in ("wood", "carton", "carton_dark", "wrap")}
    return Look(kind="pallet", params={"load_h": _r(rng.uniform(0.5, 1.2)), "load_kind": kind}, colors=colors,
                color_names={"load": "wrapped" if kind == "wrapped" else "brown"})


def _amr_look(rng) -> Look:
    name, paint = _pick(rng, "amr")
    tote = bool(rng.random() < 0.5)
    colors = {k: list(v) for k, v in FIXED.items() if k in ("tyre", "dark", "bumper")}
    names = {"paint": name}
    colors["paint"] = paint
    tote_name, colors["tote"] = _pick(rng, "tote")
    if tote:
        names["tote"] = tote_name
    return Look(kind="amr", params={"tote": "yes" if tote else "no"}, colors=colors, color_names=names)


def agent_size(look: Look) -> list[float]:
    if look.kind == "person":
        return [bodies.PERSON_SIZE_XY[0], bodies.PERSON_SIZE_XY[1], float(look.params["height"])]
    if look.kind == "forklift":
        return list(bodies.FORKLIFT_SIZE)
    if look.kind == "pallet":
        return [*bodies.PALLET_SIZE_XY, _r(bodies.PALLET_H + float(look.params["load_h"]))]
    return list(bodies.AMR_SIZE)


def body_params(look: Look) -> dict:
    p = dict(look.params)
    if look.kind == "amr":
        p["tote"] = p["tote"] == "yes"
    return p


# ------------------------------------------------------------------ the spec

class ScriptedEvent(BaseModel):
    """What a script meant to happen: an event type, its actors, and whether it should
    occur (`positive`) or is a near negative (just outside the event's threshold)."""

    model_config = ConfigDict(extra="forbid")
    type: str
    actors: list[str]
    positive: bool
    band: str
    planned: dict[str, float | str]   # e.g. min_distance_m, t_event_s, zone


class Lighting(BaseModel):
    model_config = ConfigDict(extra="forbid")
    condition: Literal["day", "dusk", "night"]
    sky_color: list[float]
    sky_strength: float
    lamps_on: bool
    lamp_power_w: float
    lamp_kelvin: float


class WarehouseSpec(SceneSpec):
    hall: list[float]                  # [x0, y0, x1, y1] inside of the walls
    wall_height: float
    floor_color: list[float]
    wall_color: list[float]
    upright_color: list[float]
    beam_color: list[float]
    racks: list[Rack]
    stripes: list[Stripe]
    zones: list[Zone]
    clutter: list[Clutter]             # static things on the floor, in the gaps between bands
    lamps: list[list[float]]
    lighting: Lighting
    looks: dict[str, Look]
    scripts: list[ScriptedEvent]
    bands: dict[str, list[float]]      # band name -> [y_lo, y_hi] (the y range its agents use)
    timeline: Timeline


# ------------------------------------------------------------------ camera and stage depth

def _draw_camera(rng) -> MountedCamera:
    height = rng.uniform(2.4, 6.1)
    depression = 90.0 - rng.uniform(30.0, 60.0)
    return MountedCamera(position=[0.0, 0.0], height_m=_r(height), depression_deg=_r(depression),
                         yaw_deg=_r(90.0 + rng.uniform(-25.0, 25.0)), hfov_deg=_r(rng.uniform(80.0, 100.0)),
                         shutter_s=1.0 / 60)


class _View:
    """Visibility of ground points in a nominal 640-px frame of the camera."""

    def __init__(self, cam: MountedCamera, margin: float = 0.05):
        pose = camera_pose(cam, 0.0, 640)
        self.K, self.T, self.w, self.h = pose.K_array(), pose.cam_to_world_array(), pose.width, pose.height
        self.m = margin
        self.yaw = math.radians(cam.yaw_deg)
        self._half = {}

    def sees(self, pts) -> bool:
        uv, z = project(np.atleast_2d(np.asarray(pts, float)), self.K, self.T)
        mu, mv = self.m * self.w, self.m * self.h
        return bool(np.all((z > 0.3) & (uv[:, 0] > mu) & (uv[:, 0] < self.w - mu) & (uv[:, 1] > mv)
                           & (uv[:, 1] < self.h - mv)))

    def centre_x(self, y: float) -> float:
        """x of the camera's ground centre line at depth y."""
        return y / math.tan(self.yaw)

    def depth_range(self) -> tuple[float, float]:
        ys = np.arange(0.5, 26.0, 0.25)
        ok = [y for y in ys if self.sees([[self.centre_x(y), y, 0.0], [self.centre_x(y), y, 1.8]])]
        return (float(ok[0]), float(ok[-1])) if ok else (0.0, 0.0)

    def half_width(self, y: float, z: float = 0.9) -> float:
        key = (y, z)
        if key not in self._half:
            self._half[key] = self._half_width(y, z)
        return self._half[key]

    def _half_width(self, y: float, z: float) -> float:
        c, w = self.centre_x(y), 0.0
        while w < 30 and self.sees([[c - w - 0.25, y, z], [c + w + 0.25, y, z]]):
            w += 0.25
        return w


def _stage(rng):
    """(camera, view, P band lower y, aisle lane ys) for a camera that sees enough depth."""
    for _ in range(CAMERA_ATTEMPTS):
        cam = _draw_camera(rng)
        view = _View(cam)
        near, far = view.depth_range()
        if far <= near:
            continue
        p0 = near + 0.6
        p_top = p0 + 0.3 + 2.6 + 1.9             # zone (<= 2.6 deep) + the fall walker's line
        y1 = p_top + BAND_GAP_M + AISLE_BELOW_M + rng.uniform(0.0, 1.0)
        if y1 > far - 1.0:
            continue
        lanes = [y1]
        y2 = y1 + AISLE_ABOVE_M + BAND_GAP_M + AISLE_BELOW_M + rng.uniform(0.0, 1.0)
        if y2 <= min(far - 1.0, 24.0):
            lanes.append(y2)
        return cam, view, p0, lanes
    raise RuntimeError("no camera draw saw a deep enough stage")


# ------------------------------------------------------------------ motion helpers

def _line_path(x0: float, y: float, direction: int, length: float = 60.0) -> Path:
    return Path(start=[_r(x0), _r(y)], heading_deg=0.0 if direction > 0 else 180.0, segments=[Line(length=length)])


def _phases(*phases) -> list:
    """Phases with zero-length waits dropped (knot times must increase)."""
    return [p for p in phases if not (p[0] in ("stop", "cruise") and p[-1] <= 1e-6)]


def _profile(phases):
    return profile_from_phases(0.0, _phases(*[(p[0], *(_r(x) for x in p[1:])) for p in phases]))


class _Cast:
    """Agents and looks being added, with track ids numbered per category; a script tried
    after `mark` is taken back with `undo` when `apart` finds it meeting another script."""

    def __init__(self, rng):
        self.rng, self.agents, self.looks, self.counts = rng, [], {}, {}
        self._ground = {}                       # track id -> ground positions on the SEPARATION_STEP_S grid

    def mark(self):
        return len(self.agents), dict(self.looks), dict(self.counts)

    def undo(self, mark) -> None:
        n, self.looks, self.counts = mark[0], mark[1], mark[2]
        for a in self.agents[n:]:
            self._ground.pop(a.track_id, None)
        del self.agents[n:]

    def ground(self, a: Agent, every: int = 1) -> np.ndarray:
        """The agent's ground positions at every `every`-th grid time (all of them are kept)."""
        if a.track_id in self._ground:
            return self._ground[a.track_id][::every]
        got = np.array([a.position(float(t))[:2] for t in _SEPARATION_TS[::every]])
        if every == 1:
            self._ground[a.track_id] = got
        return got

    def apart(self, mark) -> bool:
        """No agent added since `mark` comes within reach of an earlier one at any time of
        the clip: ground centres farther apart than both ground reaches (and, for a person
        and a forklift, NEAR_MISS_M) plus SEPARATION_MARGIN_M at every SEPARATION_STEP_S.
        A true minimum lies within half a step of a grid time, where no pair has closed in
        by more than 0.35 m (3.5 m/s each), so the true gap stays above the reaches by
        0.15 m: nothing of one script can touch or nearly miss anything of another. A
        pass over every 5th grid time rejects most draws cheaply first."""
        old, new = self.agents[:mark[0]], self.agents[mark[0]:]
        for every in (5, 1):
            for a in new:
                pa = self.ground(a, every)
                for b in old:
                    need = a.ground_reach() + b.ground_reach()
                    if {a.category, b.category} == {"person", "forklift"}:
                        need = max(need, NEAR_MISS_M)
                    if np.min(np.linalg.norm(pa - self.ground(b, every), axis=1)) <= need + SEPARATION_MARGIN_M:
                        return False
        return True

    def add(self, look: Look, traj, fall: Fall | None = None) -> str:
        self.counts[look.kind] = self.counts.get(look.kind, 0) + 1
        tid = f"{look.kind}_{self.counts[look.kind]}"
        size = agent_size(look)
        kw = dict(track_id=tid, category=look.kind, mesh=look.kind, size=size, trajectory=traj)
        self.agents.append(FallingAgent(**kw, fall=fall) if fall is not None else Agent(**kw))
        self.looks[tid] = look
        return tid


def _forklift_to(x_stop: float, y: float, s: int, t_stop: float, v: float, t_acc: float, t_dec: float,
                 approach: float, after: list) -> PathTrajectory:
    """A forklift along lane y (direction s) that stands, accelerates to v in t_acc,
    cruises, brakes to a stop at x_stop at t_stop in t_dec, then follows `after`;
    it starts `approach` m before x_stop (shortened when there is no time)."""
    ramps = 0.5 * v * (t_acc + t_dec)
    cruise_t = (approach - ramps) / v
    wait = t_stop - t_acc - t_dec - cruise_t
    if wait < 0:
        wait, cruise_t = 0.0, t_stop - t_acc - t_dec
    D = ramps + v * cruise_t
    prof = _profile([("stop", wait), ("accelerate", v, t_acc), ("cruise", cruise_t), ("decelerate", 0.0, t_dec)]
                    + after)
    return PathTrajectory(path=_line_path(x_stop - s * D, y, s), speed=prof, z=bodies.FORKLIFT_SIZE[2] / 2)


def _forklift_through(x_pass: float, y: float, s: int, t_pass: float, v: float, approach: float) -> PathTrajectory:
    """A forklift that passes x_pass at t_pass at constant speed v (after a 1.5 s ramp)."""
    t_acc = 1.5
    cruise_t = (approach - 0.5 * v * t_acc) / v
    wait = t_pass - t_acc - cruise_t
    if wait < 0:
        wait, cruise_t = 0.0, t_pass - t_acc
    D = 0.5 * v * t_acc + v * cruise_t
    prof = _profile([("stop", wait), ("accelerate", v, t_acc), ("cruise", 40.0)])
    return PathTrajectory(path=_line_path(x_pass - s * D, y, s), speed=prof, z=bodies.FORKLIFT_SIZE[2] / 2)


def _carried(carrier: PathTrajectory, look: Look, t_pick: float, t_drop: float | None) -> Carried:
    return Carried(carrier=carrier, offset=[bodies.CARRY_OFFSET_X, 0.0], z=_r(agent_size(look)[2] / 2),
                   t_pick=_r(t_pick), t_drop=None if t_drop is None else _r(t_drop), lift_m=0.06, lift_s=1.0)


# ------------------------------------------------------------------ aisle scripts

AISLE_SCRIPTS = ("near_miss", "near_miss_negative", "collision", "pickup", "drop", "carry_through", "amr_through")
EVENT_AISLE_SCRIPTS = AISLE_SCRIPTS[:5]
FURTHER_AISLE_SCRIPTS = ("near_miss", "near_miss", "near_miss_negative", "collision", "pickup", "pickup", "drop")


def _aisle(cast: _Cast, kind: str, band: str, y: float, xe: float, approach: float,
           s: int | None = None, window: tuple[float, float] | None = None) -> list[ScriptedEvent]:
    """One script in the lane at y around xe; its vehicles drive in direction s (drawn
    when None: the lane's first script; later ones keep the lane one-way). A further
    script's event time is drawn in `window` (within what the script allows), the first's
    in the clip's middle."""
    rng = cast.rng
    if s is None:
        s = 1 if rng.random() < 0.5 else -1
    if kind in ("near_miss", "near_miss_negative"):
        return _near_miss(cast, band, y, xe, s, kind == "near_miss", approach, window)
    if kind == "collision":
        return _collision(cast, band, y, xe, s, approach, window)
    if kind in ("pickup", "drop"):
        return _pallet_job(cast, band, y, xe, s, kind, approach, window)
    t_pass = rng.uniform(3.0, 12.0)
    if kind == "carry_through":
        traj = _forklift_through(xe, y, s, t_pass, rng.uniform(1.5, 2.8), approach)
        cast.add(_forklift_look(rng), traj)
        look = _pallet_look(rng)
        cast.add(look, _carried(traj, look, -3.0, None))
        return []
    v = rng.uniform(0.8, 1.5)                 # amr_through: constant speed, passing xe at t_pass
    D = min(approach, v * t_pass)
    prof = _profile([("stop", t_pass - D / v), ("accelerate", v, 1e-3), ("cruise", 40.0)])
    traj = PathTrajectory(path=_line_path(xe - s * D, y + rng.uniform(-0.4, 0.4), s), speed=prof,
                          z=bodies.AMR_SIZE[2] / 2)
    cast.add(_amr_look(rng), traj)
    return []


def _within(window, first: tuple[float, float], limits: tuple[float, float]) -> tuple[float, float]:
    """The range an event time is drawn from: `first` for a band's first script, else
    `window` cut to the script's `limits` (an empty cut is the window's nearer limit)."""
    if window is None:
        return first
    lo, hi = max(window[0], limits[0]), min(window[1], limits[1])
    return (lo, hi) if lo < hi else ((hi, hi) if window[1] <= limits[0] else (lo, lo))


def _near_miss(cast: _Cast, band: str, y: float, xe: float, s: int, positive: bool, approach: float,
               window: tuple[float, float] | None = None):
    """A person walks up to the lane and waits `d` m beside it while a forklift passes at
    constant speed: the closest centre distance is exactly d; after the forklift is 6 m on,
    the person turns round and walks back."""
    rng = cast.rng
    d = rng.uniform(*(NEAR_POS_M if positive else NEAR_NEG_M))
    v = rng.uniform(1.8, 3.0)
    # >= 5 s: the person's walk up fits before the pass; the closest approach (the gap's
    # minimum, the middle of a near miss) on a shown frame where the range allows
    span = _within(window, (5.0, 11.0), (5.0, 13.5))
    t_pass = on_a_frame(rng.uniform(*span), 0.0, SHOWN_TIMES, *span)
    traj = _forklift_through(xe, y, s, t_pass, v, approach)
    fid = cast.add(_forklift_look(rng), traj)
    if rng.random() < 0.5:
        look = _pallet_look(rng)
        cast.add(look, _carried(traj, look, -3.0, None))
    vp = rng.uniform(1.0, 1.4)
    start_y = y - max(3.6, d + 1.0)
    walk = (y - d) - start_y
    cruise = walk / vp - 0.5
    t_arrive = t_pass - rng.uniform(1.0, 2.0)
    t_walk = t_arrive - 1.0 - cruise
    t_back = t_pass + 6.0 / v + rng.uniform(0.5, 1.5)
    prof = _profile([("stop", t_walk), ("accelerate", vp, 0.5), ("cruise", cruise), ("decelerate", 0.0, 0.5),
                     ("stop", t_back - t_arrive), ("accelerate", vp, 0.5), ("cruise", 40.0)])
    look = _person_look(rng)
    path = Path(start=[_r(xe), _r(start_y)], heading_deg=90.0,
                segments=[Line(length=_r(walk)), Arc(radius=0.25, angle_deg=180.0 * s), Line(length=_r(walk))])
    pid = cast.add(look, PathTrajectory(path=path, speed=prof, z=_r(float(look.params["height"]) / 2)))
    return [ScriptedEvent(type="near_miss", actors=[pid, fid], positive=positive, band=band,
                          planned={"min_distance_m": _r(d), "t_event_s": _r(t_pass), "threshold_m": NEAR_MISS_M})]


def _collision(cast: _Cast, band: str, y: float, xc: float, s: int, approach: float,
               window: tuple[float, float] | None = None):
    """An AMR crosses the lane and stops in it; a forklift brakes too late and its forks
    run `p` m into the AMR's side; after a pause the AMR turns away and leaves."""
    rng = cast.rng
    w_amr = rng.uniform(*_within(None if window is None else (window[0] - 5.0, window[1] - 6.2), (0.5, 4.0),
                                 (0.5, 9.0)))                    # the stop comes 5.0-6.2 s after w_amr
    t_amr_stop = w_amr + 4.2                             # 1 s ramp, 2.2 s at 1 m/s, 1 s brake: 3.2 m
    t_stop = t_amr_stop + rng.uniform(0.8, 2.0)
    t_resume = t_stop + rng.uniform(1.2, 2.0)
    amr_prof = _profile([("stop", w_amr), ("accelerate", 1.0, 1.0), ("cruise", 2.2), ("decelerate", 0.0, 1.0),
                         ("stop", t_resume - t_amr_stop), ("accelerate", 0.8, 1.0), ("cruise", 40.0)])
    amr_path = Path(start=[_r(xc), _r(y - 3.2)], heading_deg=90.0,
                    segments=[Line(length=3.2), Arc(radius=0.9, angle_deg=-90.0 * s), Line(length=12.0)])
    aid = cast.add(_amr_look(rng), PathTrajectory(path=amr_path, speed=amr_prof, z=bodies.AMR_SIZE[2] / 2))
    p = rng.uniform(0.05, 0.12)
    x_stop = xc - s * (bodies.AMR_SIZE[1] / 2 - p + bodies.FORKLIFT_SIZE[0] / 2)
    traj = _forklift_to(x_stop, y, s, t_stop, rng.uniform(2.0, 2.8), 1.5, rng.uniform(0.5, 0.7), approach,
                           [("stop", 40.0)])
    fid = cast.add(_forklift_look(rng), traj)
    return [ScriptedEvent(type="collision", actors=sorted([aid, fid]), positive=True, band=band,
                          planned={"penetration_m": _r(p), "t_event_s": _r(t_stop)})]


def _pallet_job(cast: _Cast, band: str, y: float, xe: float, s: int, kind: str, approach: float,
                window: tuple[float, float] | None = None):
    """pickup: the forklift stops with its forks in a floor pallet, lifts it (1 s) and
    drives off with it; drop: a loaded forklift stops, lowers its pallet (1 s) and stands."""
    rng = cast.rng
    v = rng.uniform(1.2, 1.8)
    t_arrive = rng.uniform(*_within(window, (4.0, 10.0), (3.0, 13.0)))
    x_stop = xe - s * bodies.CARRY_OFFSET_X
    look = _pallet_look(rng)
    if kind == "pickup":
        traj = _forklift_to(x_stop, y, s, t_arrive, v, 1.2, 1.2, approach,
                               [("stop", 1.8), ("accelerate", v, 1.2), ("cruise", 40.0)])
        fid = cast.add(_forklift_look(rng), traj)
        t_pick = t_arrive + 0.4
        pid = cast.add(look, _carried(traj, look, t_pick, None))
        t_ev = t_pick
    else:
        traj = _forklift_to(x_stop, y, s, t_arrive, v, 1.2, 1.2, approach, [("stop", 40.0)])
        fid = cast.add(_forklift_look(rng), traj)
        t_drop = t_arrive + 1.3
        pid = cast.add(look, _carried(traj, look, -3.0, t_drop))
        t_ev = t_drop - 1.0
    return [ScriptedEvent(type=kind, actors=[fid, pid], positive=True, band=band,
                          planned={"t_event_s": _r(t_ev)})]


# ------------------------------------------------------------------ pedestrian band

def _walker(cast: _Cast, y: float, x0: float, s: int, t_walk: float, v: float, length: float,
            look: Look | None = None) -> tuple[str, Look]:
    look = look or _person_look(cast.rng)
    prof = _profile([("stop", t_walk), ("accelerate", v, 0.6), ("cruise", 40.0)])
    tid = cast.add(look, PathTrajectory(path=_line_path(x0, y, s, length), speed=prof,
                                        z=_r(float(look.params["height"]) / 2)))
    return tid, look


def _pedestrian_band(cast: _Cast, view: _View, p0: float, x_lo: float, x_hi: float):
    """The restricted zone, a zone walker (entry or near negative) and/or a faller."""
    rng = cast.rng
    zd, zw = rng.uniform(2.0, 2.6), rng.uniform(2.4, 3.4)
    zy0 = p0 + 0.3
    zy1 = zy0 + zd
    c = view.centre_x(0.5 * (zy0 + zy1))
    half = max(0.5, min(view.half_width(0.5 * (zy0 + zy1)), 0.5 * (x_hi - x_lo)) - zw / 2 - 0.5)
    xz = float(np.clip(c + rng.uniform(-0.4, 0.4) * half, x_lo + zw / 2 + 2.6, x_hi - zw / 2 - 2.6))
    zone = Zone(name="restricted_1", polygon=[[_r(xz - zw / 2), _r(zy0)], [_r(xz + zw / 2), _r(zy0)],
                                              [_r(xz + zw / 2), _r(zy1)], [_r(xz - zw / 2), _r(zy1)]])
    scripts = []
    u = rng.random()
    zone_kind = "entry" if u < 0.45 else ("near" if u < 0.8 else None)
    if zone_kind:
        scripts += _zone_walk(cast, zone, zone_kind == "entry", xz, zw, zy0, zy1)
    yf = zy1 + 1.6
    scripts += _fall_walk(cast, view, yf, x_lo, x_hi, plain_ok=not zone_kind)
    return zone, scripts, [zy0 - ZONE_NEG_M[1] - 0.3, yf + 0.3], (xz, zw, zy0, zy1, yf)


def _more_pedestrian_scripts(cast: _Cast, view: _View, zone: Zone, geom, x_lo: float, x_hi: float):
    """Further P-band scripts after the first ones, each kept only when `Cast.apart` finds it
    clear of everything drawn before: zone walks (entries and near negatives) and falls
    anywhere along the fall line."""
    rng = cast.rng
    xz, zw, zy0, zy1, yf = geom
    out = []
    for _ in range(MORE_SCRIPTS["P"]):
        for _attempt in range(MORE_SCRIPT_ATTEMPTS):
            mark = cast.mark()
            u = rng.random()
            if u < 0.6:
                got = _zone_walk(cast, zone, u < 0.4, xz, zw, zy0, zy1, lead=rng.uniform(0.0, 4.0))
            else:
                half = min(view.half_width(yf), 0.5 * (x_hi - x_lo))
                got = _fall_walk(cast, view, yf, x_lo, x_hi, plain_ok=False, fall=True,
                                 centre=view.centre_x(yf) + rng.uniform(-0.7, 0.7) * half)
            if cast.apart(mark):
                out += got
                break
            cast.undo(mark)
    return out


def _lane_direction(agents: list[Agent]) -> int:
    """+1 / -1: the direction along x of the first lane-following (heading 0 or 180) agent."""
    for a in agents:
        traj = a.trajectory
        if getattr(traj, "kind", None) == "path" and traj.path.heading_deg in (0.0, 180.0):
            return 1 if traj.path.heading_deg == 0.0 else -1
    raise ValueError("a lane script without a vehicle along the lane")


def _more_aisle_scripts(cast: _Cast, view: _View, band: str, y: float, s: int, x_lo: float, x_hi: float,
                        c_mid: float, approach: float, scripts: list[ScriptedEvent]):
    """Further event scripts in one lane, one-way (direction s): each either after the
    lane's latest event (by 1.5 s or more, starting QUEUE_M farther upstream than the
    farthest so far: it queues behind) or before its earliest one (starting QUEUE_M
    nearer than the nearest: it leaves first), kept only when `Cast.apart` finds it clear
    of everything drawn before. None comes after a drop or a collision, whose forklift
    stands in the lane for good, and one before the earliest is never a drop or collision."""
    rng = cast.rng
    out = []
    lead = {"far": approach, "near": approach}       # the upstream reach of the lane's queue
    for _k in range(MORE_SCRIPTS["V"]):
        lane = [x for x in scripts if x.band == band] + out
        times = [float(x.planned["t_event_s"]) for x in lane if "t_event_s" in x.planned] or [6.0]
        after_ok = not any(x.type in LANE_BLOCKERS for x in lane) and max(times) + 1.5 <= LATEST_FURTHER_S
        before_ok = min(times) - 1.5 >= EARLIEST_FURTHER_S and lead["near"] - QUEUE_M >= -2.0
        for _attempt in range(MORE_SCRIPT_ATTEMPTS):
            if not (after_ok or before_ok):
                break
            side = "far" if after_ok and (not before_ok or rng.random() < 0.5) else "near"
            window = (max(times) + 1.5, 13.5) if side == "far" else (0.0, min(times) - 1.5)
            reach = lead[side] + (QUEUE_M if side == "far" else -QUEUE_M)
            mark = cast.mark()
            kind = FURTHER_AISLE_SCRIPTS[int(rng.integers(len(FURTHER_AISLE_SCRIPTS)))]
            if side == "near" and kind in LANE_BLOCKERS:
                kind = "pickup"                      # a forklift that stays would block the lane's others
            xe = view.centre_x(y) + rng.uniform(-0.6, 0.6) * min(view.half_width(y), x_hi - c_mid - 2.0)
            xe = float(np.clip(xe, x_lo + 2.5, x_hi - 2.5))
            got = _aisle(cast, kind, band, y, xe, (x_hi - x_lo) / 2 + reach, s, window)
            if cast.apart(mark):
                out += got
                lead[side] = reach
                break
            cast.undo(mark)
    return out


def _fall_walk(cast: _Cast, view: _View, yf: float, x_lo: float, x_hi: float, plain_ok: bool,
               fall: bool | None = None, centre: float | None = None) -> list[ScriptedEvent]:
    """A worker along yf who walks 2-3 m, trips and falls ahead (`fall`; drawn 50/50 when
    None); a plain walker instead when it does not fall and `plain_ok`. It starts 0.5-2 m
    before `centre` (the camera's centre line when None)."""
    rng = cast.rng
    s = 1 if rng.random() < 0.5 else -1
    v = rng.uniform(1.0, 1.4)
    look = _person_look(rng)
    reach = 3.2 + float(look.params["height"])               # walk <= 3 m, then the body falls ahead
    cf = view.centre_x(yf) if centre is None else centre
    xs = float(np.clip(cf - s * rng.uniform(0.5, 2.0), x_lo + 0.6 + (reach if s < 0 else 0),
                       x_hi - 0.6 - (reach if s > 0 else 0)))
    if (rng.random() < 0.5) if fall is None else fall:
        walk = rng.uniform(2.0, 3.0)
        t_walk = rng.uniform(1.0, 8.0)
        cruise = walk / v - 0.45
        prof = _profile([("stop", t_walk), ("accelerate", v, 0.6), ("cruise", cruise), ("decelerate", 0.0, 0.3),
                         ("stop", 40.0)])
        t_fall = prof.times[-2]                               # the knot where it stands (tripped)
        fall_ = Fall(t_start=t_fall, duration_s=_r(rng.uniform(0.7, 1.1)))
        pid = cast.add(look, PathTrajectory(path=_line_path(xs, yf, s, 10.0), speed=prof,
                                            z=_r(float(look.params["height"]) / 2)), fall=fall_)
        return [ScriptedEvent(type="fall", actors=[pid], positive=True, band="P", planned={"t_event_s": _r(t_fall)})]
    if plain_ok:
        _walker(cast, yf, xs, s, rng.uniform(0.0, 6.0), v, reach, look)
    return []


def _zone_walk(cast: _Cast, zone: Zone, entry: bool, xz: float, zw: float, zy0: float,
               zy1: float, lead: float = 0.0) -> list[ScriptedEvent]:
    """A worker walking along x through the zone (entry) or 0.25-0.8 m outside its near
    edge, from 2.5 + `lead` m before it to 2.5 m past it; the zone spans
    [xz - zw/2, xz + zw/2] x [zy0, zy1] (unrounded)."""
    rng = cast.rng
    s = 1 if rng.random() < 0.5 else -1
    v = rng.uniform(1.0, 1.5)
    length = zw + 5.0 + lead
    span = (1.0, max(1.0, DURATION_S - 1.5 - length / v))
    mid = 0.3 + (zw / 2 + 2.5 + lead) / v                    # start -> the zone's middle (a 0.6 s ramp)
    t_walk = on_a_frame(rng.uniform(*span), mid, SHOWN_TIMES, *span)
    yp = rng.uniform(zy0 + 0.4, zy1 - 0.4) if entry else zy0 - rng.uniform(*ZONE_NEG_M)
    pid, _ = _walker(cast, yp, xz - s * (zw / 2 + 2.5 + lead), s, t_walk, v, length)
    return [ScriptedEvent(type="zone_entry", actors=[pid], positive=entry, band="P",
                          planned={"zone": zone.name, "walk_y": _r(yp)})]


# ------------------------------------------------------------------ static layout

def _racks(rng, x_lo: float, x_hi: float, y_lo: float, y_back: float, lanes: list[float]) -> list[Rack]:
    """Double rows of racks along y on both sides (gaps where lanes run through) and one
    row along the back wall."""
    levels_n = int(rng.integers(2, 4))
    pitch = rng.uniform(1.5, 1.8)
    levels = [_r(pitch * (k + 1)) for k in range(levels_n)]
    height = _r(levels[-1] + rng.uniform(0.8, 1.4))
    fill = rng.uniform(0.5, 0.95)
    cuts = sorted([y_lo] + [v for y in lanes for v in (y - LANE_GAP_HALF_M, y + LANE_GAP_HALF_M)] + [y_back - 3.0])
    segments = [(a, b) for a, b in zip(cuts[::2], cuts[1::2]) if b - a >= BAY_LEN]
    out = []

    def loads(bays):
        return [RackLoad(bay=b, level=lv, load_h=_r(rng.uniform(0.6, min(1.2, pitch - 0.35))),
                         kind="wrapped" if rng.random() < 0.35 else "cartons")
                for b in range(bays) for lv in range(levels_n + 1) if rng.random() < fill]

    for side, x in (("left", x_lo), ("right", x_hi)):
        sign = -1 if side == "left" else 1
        for k, (a, b) in enumerate(segments):
            bays = int((b - a) // BAY_LEN)
            for row, off in enumerate((0.0, RACK_DEPTH + 0.2)):
                out.append(Rack(name=f"rack_{side}_{k}_{row}", origin=[_r(x + sign * off), _r(a)], axis="y",
                                depth_sign=sign, bays=bays, levels=levels, height=height, loads=loads(bays)))
    bays = int((x_hi - x_lo - 2.0) // BAY_LEN)
    x0 = 0.5 * (x_lo + x_hi) - bays * BAY_LEN / 2
    out.append(Rack(name="rack_back", origin=[_r(x0), _r(y_back - 0.3)], axis="x", depth_sign=-1, bays=bays,
                    levels=levels, height=height, loads=loads(bays)))
    return out


def _stripes(x_lo: float, x_hi: float, lanes: list[float], p_band: list[float], y_back: float) -> list[Stripe]:
    out = []
    for y in lanes:                                   # aisle edge lines, dashed centre line
        for e in (-1.6, 1.6):
            out.append(Stripe(p0=[_r(x_lo - 3), _r(y + e)], p1=[_r(x_hi + 3), _r(y + e)], width=0.1,
                              paint="yellow"))
        x = x_lo
        while x < x_hi:
            out.append(Stripe(p0=[_r(x), _r(y)], p1=[_r(x + 1.0), _r(y)], width=0.08, paint="white"))
            x += 2.0
    for y in p_band:                                  # the walkway's edges
        out.append(Stripe(p0=[_r(x_lo + 0.2), _r(y)], p1=[_r(x_hi - 0.2), _r(y)], width=0.1, paint="green"))
    for x in (x_lo - 0.25, x_hi + 0.25):              # keep-clear lines in front of the side racks
        out.append(Stripe(p0=[_r(x), 0.5], p1=[_r(x), _r(y_back - 0.5)], width=0.08, paint="yellow"))
    return out


def _clutter_free(agents: list[Agent]):
    """xy -> whether no agent's box comes within CLUTTER_CLEAR_M of a clutter item there."""
    ts = np.arange(0.0, DURATION_S + 1e-9, 0.25)
    tracks = [(np.array([a.position(float(t))[:2] for t in ts]), 0.5 * math.hypot(*a.size[:2])) for a in agents]

    def free(xy) -> bool:
        return all(np.min(np.linalg.norm(P - xy, axis=1)) > r + CLUTTER_CLEAR_M for P, r in tracks)

    return free


def _clutter(rng, agents: list[Agent], x_lo: float, x_hi: float, y_lo: float, y_back: float) -> list[Clutter]:
    """Pallet stacks, loaded pallets and bins along the fronts of the side racks, wherever
    no agent's box comes within CLUTTER_CLEAR_M of them at any time of the clip (checked
    on a 0.25 s grid with a margin larger than any agent moves in 0.125 s)."""
    free = _clutter_free(agents)
    out = []
    y = y_lo
    while y <= y_back - 2.0:
        for x, sign in ((x_lo, 1), (x_hi, -1)):
            xy = np.array([x + sign * rng.uniform(0.8, 1.3), y])
            if rng.random() < 0.6 and free(xy):
                kind = ("pallet_stack", "loaded_pallet", "bin")[int(rng.integers(3))]
                out.append(Clutter(kind=kind, position=[_r(xy[0]), _r(xy[1])],
                                   yaw_deg=_r(90.0 * int(rng.integers(2)) + rng.uniform(-6, 6)),
                                   count=int(rng.integers(2, 9)), load_h=_r(rng.uniform(0.5, 1.3)),
                                   load_kind="wrapped" if rng.random() < 0.4 else "cartons"))
        y += 1.5
    return out


def _lighting(rng) -> Lighting:
    cond = LIGHTINGS[int(rng.integers(len(LIGHTINGS)))]
    if cond == "day":
        return Lighting(condition=cond, sky_color=[0.75, 0.82, 0.95], sky_strength=_r(rng.uniform(0.8, 1.4)),
                        lamps_on=bool(rng.random() < 0.5), lamp_power_w=_r(rng.uniform(300, 600)),
                        lamp_kelvin=_r(rng.uniform(4000, 5500)))
    if cond == "dusk":
        return Lighting(condition=cond, sky_color=[0.95, 0.6, 0.4], sky_strength=_r(rng.uniform(0.08, 0.2)),
                        lamps_on=True, lamp_power_w=_r(rng.uniform(300, 600)), lamp_kelvin=_r(rng.uniform(3500, 4500)))
    return Lighting(condition=cond, sky_color=[0.1, 0.12, 0.2], sky_strength=_r(rng.uniform(0.003, 0.01)),
                    lamps_on=True, lamp_power_w=_r(rng.uniform(400, 900)), lamp_kelvin=_r(rng.uniform(3000, 5000)))


def _lamps(x_lo: float, x_hi: float, y_back: float, z: float) -> list[list[float]]:
    xs = np.linspace(x_lo + 1.5, x_hi - 1.5, 3)
    ys = np.arange(3.0, y_back - 1.0, 6.0)
    return [[_r(x), _r(y), _r(z)] for y in ys for x in xs]


# ------------------------------------------------------------------ the draw

def _roamers(cast: _Cast, n: int, zone: Zone, x_lo: float, x_hi: float, y_lo: float, y_hi: float) -> None:
    """Up to n background movers for tracking (the SOT variant): workers (and now and then
    a mobile robot) moving from the clip's start along three lines joined by 90-degree
    turns (6-17 m, then standing), along x and towards or away from the camera (the box
    grows or shrinks), each kept only when it stays on the open floor [x_lo, x_hi] x
    [y_lo, y_hi], 0.5 m or more outside the restricted zone, and `Cast.apart` from
    everything else: it makes no event."""
    rng = cast.rng
    Z = np.asarray(zone.polygon, float)
    z_lo, z_hi = Z.min(axis=0) - 0.5, Z.max(axis=0) + 0.5
    for _ in range(n):
        for _attempt in range(MORE_SCRIPT_ATTEMPTS):
            mark = cast.mark()
            amr = rng.random() < 0.25
            look = _amr_look(rng) if amr else _person_look(rng)
            v = rng.uniform(0.8, 1.4) if amr else rng.uniform(1.0, 1.6)
            start = [_r(rng.uniform(x_lo, x_hi)), _r(rng.uniform(y_lo, y_hi))]
            heading = float(90.0 * int(rng.integers(4)))
            segments = [Line(length=_r(rng.uniform(1.5, 5.0)))]
            for _turn in range(2):
                segments += [Arc(radius=_r(rng.uniform(0.6, 1.5)), angle_deg=90.0 if rng.random() < 0.5 else -90.0),
                             Line(length=_r(rng.uniform(1.5, 5.0)))]
            path = Path(start=start, heading_deg=heading, segments=segments)
            prof = _profile([("stop", rng.uniform(0.0, 0.5)), ("accelerate", v, 0.6), ("cruise", 40.0)])
            z = bodies.AMR_SIZE[2] / 2 if amr else float(look.params["height"]) / 2
            cast.add(look, PathTrajectory(path=path, speed=prof, z=_r(z)))
            xy = cast.ground(cast.agents[-1])
            on_floor = np.all((xy[:, 0] >= x_lo) & (xy[:, 0] <= x_hi) & (xy[:, 1] >= y_lo) & (xy[:, 1] <= y_hi))
            in_zone = np.any(np.all((xy >= z_lo) & (xy <= z_hi), axis=1))
            if on_floor and not in_zone and cast.apart(mark):
                break
            cast.undo(mark)


def sample_scene(rng: np.random.Generator, scene_id: str, seed: int, roamers: int = 0,
                 further: bool = True) -> WarehouseSpec:
    """The warehouse draw; `roamers` adds that many background movers at most (`_roamers`),
    drawn after everything else (the SOT variant). `further=False` leaves out the further
    scripts: one script per band, the scene of warehouse-1 with its events timed as now (the
    packagers' pin tests read such small clips; the environment always draws them)."""
    cam, view, p0, lanes = _stage(rng)
    yc = lanes[0]
    W = rng.uniform(5.5, 9.0)
    c_mid = view.centre_x(yc)
    x_lo, x_hi = c_mid - max(W, 6.5), c_mid + max(W, 6.5)
    cast = _Cast(rng)
    zone, scripts, p_band, p_geom = _pedestrian_band(cast, view, p0, x_lo, x_hi)
    bands = {"P": [_r(p_band[0]), _r(p_band[1])]}
    approach = rng.uniform(4.0, 7.0)
    directions = []
    for k, y in enumerate(lanes):
        band = f"V{k + 1}"
        choices = EVENT_AISLE_SCRIPTS if k == 0 else AISLE_SCRIPTS
        kind = choices[int(rng.integers(len(choices)))]
        xe = view.centre_x(y) + rng.uniform(-0.35, 0.35) * min(view.half_width(y), x_hi - c_mid - 2.0)
        xe = float(np.clip(xe, x_lo + 2.5, x_hi - 2.5))
        n0 = len(cast.agents)
        scripts += _aisle(cast, kind, band, y, xe, (x_hi - x_lo) / 2 + approach)
        directions.append(_lane_direction(cast.agents[n0:]))
        bands[band] = [_r(y - AISLE_BELOW_M), _r(y + AISLE_ABOVE_M)]
    y_back = _r(min(max(lanes) + rng.uniform(5.0, 9.0), 34.0))
    clip = ClipSpec(duration_s=DURATION_S, sampling={"kind": "uniform", "k": FRAMES_PER_CLIP})
    lighting = _lighting(rng)
    shutter = {"day": (1 / 250, 1 / 60), "dusk": (1 / 60, 1 / 30), "night": (1 / 30, 1 / 15)}[lighting.condition]
    cam = cam.model_copy(update={"shutter_s": _r(rng.uniform(*shutter))})
    grey = rng.uniform(0.35, 0.55)
    wall_height = _r(rng.uniform(8.0, 10.0))
    wall_color = [_r(x) for x in (rng.uniform(0.55, 0.8), rng.uniform(0.55, 0.8), rng.uniform(0.55, 0.85))]
    upright_color = [0.05, 0.15, _r(rng.uniform(0.4, 0.6))]
    beam_color = [_r(rng.uniform(0.8, 0.95)), _r(rng.uniform(0.25, 0.4)), 0.02]
    racks = _racks(rng, x_lo, x_hi, p0 - 3.0, y_back, lanes)
    clutter = _clutter(rng, cast.agents, x_lo, x_hi, p0 - 1.0, y_back)
    # the further scripts come last, so each band's first script (and the hall, its looks and
    # its light) is the draw without them; clutter in their way is taken away, not redrawn
    n_first = len(cast.agents)
    if further:
        scripts += _more_pedestrian_scripts(cast, view, zone, p_geom, x_lo, x_hi)
        for k, (y, s) in enumerate(zip(lanes, directions)):
            scripts += _more_aisle_scripts(cast, view, f"V{k + 1}", y, s, x_lo, x_hi, c_mid, approach, scripts)
    if roamers:
        _roamers(cast, roamers, zone, x_lo + 0.8, x_hi - 0.8, p0 - 0.5, y_back - 2.0)
    still_free = _clutter_free(cast.agents[n_first:])
    clutter = [c for c in clutter if still_free(np.array(c.position))]
    return WarehouseSpec(
        env="warehouse", scene_id=scene_id, seed=seed,
        hall=[_r(x_lo - 2 * RACK_DEPTH - 12.0), -0.4, _r(x_hi + 2 * RACK_DEPTH + 12.0), y_back],
        wall_height=wall_height,
        floor_color=[_r(grey), _r(grey * 0.98), _r(grey * 0.95)],
        wall_color=wall_color,
        upright_color=upright_color,
        beam_color=beam_color,
        racks=racks,
        stripes=_stripes(x_lo, x_hi, lanes, bands["P"], y_back) + zone_stripes(zone),
        zones=[zone],
        clutter=clutter,
        lamps=_lamps(x_lo, x_hi, y_back, 7.5),
        lighting=lighting,
        looks=cast.looks,
        scripts=scripts,
        bands=bands,
        timeline=Timeline(clip=clip, agents=cast.agents, camera=cam),
    )


def timeline(spec: WarehouseSpec) -> Timeline:
    return spec.timeline


def events(spec: WarehouseSpec) -> list[Event]:
    return derive_events(spec.timeline.agents, [(z.name, z.polygon) for z in spec.zones], spec.timeline.clip.duration_s)


def sample_view(spec: WarehouseSpec, rng: np.random.Generator, view_index: int, long_side_px: int,
                attempt: int = 0) -> View:
    """Frame `view_index` of the clip: the fixed camera at that sampled timestamp (no draw)."""
    tl = spec.timeline
    t = tl.clip.timestamps()[view_index]
    return View(view_index=view_index, pose=camera_pose(tl.camera, t, long_side_px), target="clip", attempt=attempt)


def agent_vertices(spec: WarehouseSpec, track_id: str, t: float) -> np.ndarray:
    """World vertices of the agent's body at t (what the builder links, posed at t)."""
    agent = spec.timeline.agent(track_id)
    look = spec.looks[track_id]
    V = bodies.body_vertices(look.kind, body_params(look))
    M = agent.pose(t)
    return V @ M[:3, :3].T + M[:3, 3]


def projected_box(spec: WarehouseSpec, track_id: str, t: float, K, cam_to_world, width: int,
                  height: int) -> list[float] | None:
    """The box of the agent's projected body vertices at t, clipped to the image's pixel
    centres (no Blender: the silhouette box of an unoccluded body, to within a pixel)."""
    box = projected_pixel_box(agent_vertices(spec, track_id, t), K, cam_to_world, width, height)
    return None if box is None else [_r(v) for v in box]


ENV = Environment(
    name="warehouse",
    family="vantage",
    version=GENERATOR_VERSION,
    views_per_scene=FRAMES_PER_CLIP,
    sample_scene=sample_scene,
    sample_view=sample_view,
    builder="blender_envs.infra.warehouse_build:build",
    scorer="scorers.warehouse",
    spec_model=WarehouseSpec,
    timeline=timeline,
    events=events,
    isp="cctv",
)
