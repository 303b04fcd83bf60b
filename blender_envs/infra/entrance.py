"""`entrance`: a building's access-controlled door seen by one fixed CCTV camera in the
lobby (VANTAGE-Bench §3, domain S, smart spaces).

The draw, in order (all of it plain data, no bpy):
  1. the camera: a wall mount at the origin 2.4-6.1 m high, 30-60 degrees from vertical,
     yaw 90 +- 20 degrees (into the lobby along +y), a wide lens (80-100 degrees); the
     door wall across the view at a depth where the camera sees the doorway up to head
     height, the reader and the loiter region (else the camera is redrawn);
  2. the door (hinge side, a hold time) and its badge reader on the latch side, the
     secure corridor behind it, the loiter region beside the door;
  3. one door episode (who goes through the door and how, see EPISODES) and one lobby
     script (a loiterer, a near-negative visitor who leaves before the threshold, or
     nobody); the episode fixes the access log (grant times) and the door's openings,
     so the door is a timed agent whose angle the builder poses per frame;
  4. furniture, lamps, lighting (day, dusk, night with lamps on), every person's look.
Each script lists the event it plans in `scripts` (positive or a near negative); the
events themselves are derived from the motion (`entrance_events`), and the tests check
that the two agree.
"""
from __future__ import annotations

import copy
import math

import numpy as np
from pydantic import BaseModel, ConfigDict

from blender_envs.infra import people
from blender_envs.infra.entrance_door import DoorAgent, EntranceTimeline, Swing, swing_knots
from blender_envs.infra.entrance_events import LOITER_S, DoorGeometry, derive_events, door_events
from blender_envs.infra.entrance_lobby import ITEM_GAP_M, LobbyDecor, LobbyStage
from blender_envs.stages import stage_rng
from blender_envs.infra.entrance_layout import (DOOR_W, FURNITURE_HALF_DIAG, PANEL_SIZE, READER_OFFSET,
                                                WALL_T, Furniture, door_panel_parts, furniture_footprint)
from blender_envs.infra.warehouse import Lighting, Look
from blender_envs.infra.warehouse_layout import Zone
from blender_envs.registry import Environment
from geometry.camera import project, projected_pixel_box
from geometry.clip import ClipSpec, MountedCamera, camera_pose, on_a_frame
from geometry.events import Event
from geometry.polygons import poly_distance
from geometry.scene import SceneSpec, View
from geometry.timeline import Agent, Arc, Line, Path, PathTrajectory, SpeedProfile, profile_from_phases

# -2: a furnished lobby (entrance_lobby: desk, seating, planters, windows, posters; tiles as texture)
# -3: the door episode starts so that its events hold shown frames (`_episode_start`)
# -4: a person takes 0.4-2.5 s at the reader before the grant (was 0.4-0.8 s: a tailgating leader's
#     badge use then mostly fell between frames)
GENERATOR_VERSION = "entrance-4"
DURATION_S = 30.0
FRAMES_PER_CLIP = 8
SHOWN_TIMES = ClipSpec(duration_s=DURATION_S, sampling={"kind": "uniform", "k": FRAMES_PER_CLIP}).timestamps()
T0_S = (0.5, 2.0)                 # the door episode's start, drawn; then moved by < a frame gap (`_episode_start`)
KEY_EVENTS = ("tailgating", "unauthorized_entry", "badge_use")   # the episode's events to show, rarest first
LIGHTINGS = ("day", "dusk", "night")
CAMERA_ATTEMPTS = 200
OPEN_S, CLOSE_S = 1.2, 1.8        # the door operator's swing times (0 -> 90 deg, back)
UNLOCK_S = 0.3                    # grant -> the door starts to move (< entrance_events.GRANT_LAG_S)
HOLD_S = (6.0, 7.0)               # how long the door stands fully open (drawn per clip)
STAND_M = 0.45                    # the badge spot: person centre this far in front of the wall face
EGRESS_WAIT_M = 1.45              # a leaver waits this far behind the door (outside the leaf's sweep)
QUEUE_GAP_M = (1.0, 1.5)          # a follower's distance behind the leader along the route
OWN_BADGE_AFTER_S = (0.3, 1.5)    # near-negative tailgater: sets off this long after the door shut (grant later)
BADGE_PRESENT_S = (0.4, 2.5)      # at the badge spot until the grant: finding and presenting the badge
LOITER_POS_S = (1.5, 5.0)         # loiterers stay LOITER_S + this; near negatives LOITER_S - LOITER_NEG_S
LOITER_NEG_S = (1.0, 3.0)
REGION_X = (1.6, 4.6)             # the loiter region's x extent from the door centre (on side k)
REGION_Y = (0.3, 3.6)             # ... and its y extent in front of the wall face
OFF_FRAME_Y = (-1.6, -1.2)        # where people start and end: behind the camera (at y = 0), out of its view
LOBBY_BACK_Y = -3.6               # the lobby's back wall (a follower starts up to 1.5 m behind the others)
TURN_R = 0.3                      # walking routes' corner radius
WALL_Y = (5.0, 11.0)              # the door wall's distance ahead of the camera (drawn per clip)
HALF_WIDTH = (6.0, 8.0)           # the lobby's half width about the door (at least)
FURNITURE_CLEAR_M = 0.4           # furniture keeps this much room from every person's box
R = 6

EPISODES = ("badge_entry", "tailgating", "own_badge", "forced", "exit_slip", "exit_then_badge", "denied")
LOBBY_SCRIPTS = ("loiter", "loiter_negative", "none")


def _r(x) -> float:
    return round(float(x), R)


# ------------------------------------------------------------------ looks

PALETTES = {
    "shirt": {"white": (0.8, 0.8, 0.78), "light blue": (0.4, 0.55, 0.75), "grey": (0.35, 0.35, 0.37),
              "black": (0.03, 0.03, 0.03), "red": (0.55, 0.06, 0.05), "green": (0.08, 0.3, 0.12)},
    "coat": {"beige": (0.55, 0.45, 0.3), "black": (0.03, 0.03, 0.035), "grey": (0.3, 0.3, 0.32),
             "navy": (0.03, 0.06, 0.18), "olive": (0.22, 0.24, 0.1)},
    "trousers": {"black": (0.02, 0.02, 0.02), "navy": (0.03, 0.05, 0.13), "grey": (0.22, 0.22, 0.23),
                 "khaki": (0.4, 0.33, 0.2), "blue": (0.08, 0.14, 0.3)},
    "hair": {"black": (0.02, 0.015, 0.01), "brown": (0.12, 0.06, 0.03), "blonde": (0.55, 0.42, 0.2),
             "grey": (0.45, 0.45, 0.45)},
    "item": {"black": (0.02, 0.02, 0.02), "brown": (0.25, 0.12, 0.05), "red": (0.5, 0.05, 0.04),
             "blue": (0.05, 0.15, 0.45)},
    "accent": {"slate": (0.22, 0.25, 0.3), "sand": (0.55, 0.47, 0.35), "sage": (0.33, 0.4, 0.32),
               "white": (0.75, 0.75, 0.72), "brick": (0.4, 0.17, 0.12), "teal": (0.1, 0.3, 0.32)},
    "door": {"grey": (0.45, 0.46, 0.48), "blue": (0.1, 0.2, 0.4), "wood": (0.45, 0.3, 0.16),
             "white": (0.8, 0.8, 0.78)},
}
SKIN = ((0.85, 0.64, 0.5), (0.63, 0.44, 0.32), (0.42, 0.27, 0.18), (0.25, 0.16, 0.1))


def _pick(rng, palette: str) -> tuple[str, list[float]]:
    names = sorted(PALETTES[palette])
    name = names[int(rng.integers(len(names)))]
    return name, [float(c) for c in PALETTES[palette][name]]


def _person_look(rng) -> Look:
    top = people.TOPS[int(rng.integers(2))]
    hair = people.HAIRS[int(rng.integers(2))]
    item = people.ITEMS[int(rng.integers(3))]
    names, colors = {}, {"shoes": [0.03, 0.03, 0.03]}
    names["top"], colors["top"] = _pick(rng, "coat" if top == "coat" else "shirt")
    names["trousers"], colors["trousers"] = _pick(rng, "trousers")
    names["hair"], colors["hair"] = _pick(rng, "hair")
    name, colors["item"] = _pick(rng, "item")
    if item != "none":
        names[item] = name
    colors["skin"] = [float(c) for c in SKIN[int(rng.integers(len(SKIN)))]]
    return Look(kind="person", params={"height": _r(rng.uniform(1.55, 1.92)), "top": top, "hair": hair,
                                       "item": item}, colors=colors, color_names=names)


def _door_look(rng) -> Look:
    name, paint = _pick(rng, "door")
    return Look(kind="door", params={}, colors={"door": paint, "glass": [0.05, 0.07, 0.08],
                                                "handle": [0.6, 0.6, 0.62], "kick": [0.5, 0.5, 0.52]},
                color_names={"door": name})


def body_parts(look: Look):
    if look.kind == "door":
        return door_panel_parts()
    p = look.params
    return people.civilian_parts(float(p["height"]), str(p["top"]), str(p["hair"]), str(p["item"]))


def body_vertices(look: Look) -> np.ndarray:
    return np.vstack([np.asarray(part[0], float) for part, _ in body_parts(look)])


# ------------------------------------------------------------------ the spec

class ScriptedEvent(BaseModel):
    """What a script meant to happen: an event type, its actors, and whether it should
    occur (`positive`) or is a near negative (just outside the event's rule)."""

    model_config = ConfigDict(extra="forbid")
    type: str
    actors: list[str]
    positive: bool
    script: str
    planned: dict[str, float | str]


class EntranceSpec(SceneSpec):
    lobby: list[float]                 # [x0, y0, x1, y1] inside of the lobby walls (y1: the door wall's middle)
    corridor: list[float]              # [x0, y0, x1, y1] the secure side behind the door
    side_gap: list[float]              # [y_lo, y_hi] of the opening in the lobby's side wall on the region side
    region_side: int                   # +1 / -1: the loiter region (and side opening) on the door's +x / -x side
    wall_height: float
    door: DoorGeometry
    door_x: float
    hinge_side: int                    # +1: hinge at the opening's +x edge
    hold_s: float
    grants: list[float]                # the access log: times a grant was issued at the reader
    loiter_region: Zone
    floor_color: list[float]
    wall_color: list[float]
    accent_color: list[float]          # the door wall's colour
    furniture: list[Furniture]         # the first draw's, then the lobby stage's
    decor: LobbyDecor                  # the lobby stage's windows, wall items, rugs, tiles, colours
    lamps: list[list[float]]
    lighting: Lighting
    looks: dict[str, Look]
    scripts: list[ScriptedEvent]
    timeline: EntranceTimeline


# ------------------------------------------------------------------ camera and stage

class _View:
    """Visibility of points in a nominal 640-px frame of the camera."""

    def __init__(self, cam: MountedCamera, margin: float = 0.04):
        pose = camera_pose(cam, 0.0, 640)
        self.K, self.T, self.w, self.h = pose.K_array(), pose.cam_to_world_array(), pose.width, pose.height
        self.m = margin
        self.yaw = math.radians(cam.yaw_deg)

    def sees(self, pts) -> bool:
        uv, z = project(np.atleast_2d(np.asarray(pts, float)), self.K, self.T)
        mu, mv = self.m * self.w, self.m * self.h
        return bool(np.all((z > 0.3) & (uv[:, 0] > mu) & (uv[:, 0] < self.w - mu) & (uv[:, 1] > mv)
                           & (uv[:, 1] < self.h - mv)))

    def centre_x(self, y: float) -> float:
        return y / math.tan(self.yaw)


def _draw_camera(rng) -> MountedCamera:
    return MountedCamera(position=[0.0, 0.0], height_m=_r(rng.uniform(2.4, 6.1)),
                         depression_deg=_r(90.0 - rng.uniform(30.0, 60.0)),
                         yaw_deg=_r(90.0 + rng.uniform(-20.0, 20.0)), hfov_deg=_r(rng.uniform(80.0, 100.0)),
                         shutter_s=1.0 / 60)


def _stage(rng, wall_y=WALL_Y):
    """(camera, door wall y, door x, region side) such that the camera sees the doorway up
    to head height, the reader, the badge spot and the loiter region's middle."""
    for _ in range(CAMERA_ATTEMPTS):
        cam = _draw_camera(rng)
        view = _View(cam)
        yw = rng.uniform(*wall_y)
        xd = view.centre_x(yw) + rng.uniform(-1.0, 1.0)
        yf = yw - WALL_T / 2
        door = [[xd + sx * (DOOR_W / 2 + 0.1), yf, z] for sx in (-1, 1) for z in (0.0, 1.9)]
        if not view.sees(door + [[xd, yf - STAND_M, 0.0]]):
            continue
        sides = [k for k in (1, -1) if view.sees([[xd + k * sum(REGION_X) / 2, yf - sum(REGION_Y) / 2, 0.0],
                                                  [xd + k * sum(REGION_X) / 2, yf - sum(REGION_Y) / 2, 1.7]])]
        if not sides:
            continue
        return cam, _r(yw), _r(xd), sides[int(rng.integers(len(sides)))]
    raise RuntimeError("no camera draw saw the door and the lobby")


# ------------------------------------------------------------------ routes and speed

def _turn(d0: np.ndarray, d1: np.ndarray) -> float:
    return math.atan2(d0[0] * d1[1] - d0[1] * d1[0], float(d0 @ d1))


def route(points, radius: float = TURN_R) -> tuple[Path, list[float]]:
    """A walking path through `points` ([x, y]) with every corner rounded by an arc of
    `radius` (smaller where a leg is short); and the arc length of each point's place on
    the path (start 0, a corner the middle of its arc, the end the path's length)."""
    P = np.asarray(points, float)
    d = np.diff(P, axis=0)
    L = np.linalg.norm(d, axis=1)
    u = d / L[:, None]
    phis = [_turn(u[i - 1], u[i]) for i in range(1, len(P) - 1)]
    radii = []
    for i, phi in enumerate(phis):
        t = math.tan(abs(phi) / 2)
        room = min(L[i], L[i + 1]) / 2
        radii.append(min(radius, room / t) if t > 1e-9 else radius)
    tang = [0.0] + [r * math.tan(abs(phi) / 2) for r, phi in zip(radii, phis)] + [0.0]
    segments, marks, s = [], [0.0], 0.0
    for i in range(len(L)):
        straight = L[i] - tang[i] - tang[i + 1]
        if straight > 1e-9:
            segments.append(Line(length=_r(straight)))
            s += _r(straight)
        if i < len(phis):
            phi, rr = phis[i], radii[i]
            if abs(phi) > 1e-9:
                half = _r(math.degrees(phi) / 2)
                segments += [Arc(radius=_r(rr), angle_deg=half), Arc(radius=_r(rr), angle_deg=half)]
                arc = _r(rr) * abs(math.radians(half))
                marks.append(s + arc)
                s += 2 * arc
            else:
                marks.append(s)
    path = Path(start=[_r(P[0][0]), _r(P[0][1])], heading_deg=_r(math.degrees(math.atan2(u[0][1], u[0][0]))),
                segments=segments)
    marks.append(path.length)
    return path, marks


def time_at(profile: SpeedProfile, s: float) -> float:
    """The first time the profile has covered `s` metres (bisection on its distance)."""
    lo, hi = 0.0, 1.0
    while profile.distance(hi) < s - 1e-12:
        hi *= 2.0
        if hi > 1e4:
            raise ValueError(f"the profile never covers {s} m")
    for _ in range(80):
        m = 0.5 * (lo + hi)
        if profile.distance(m) < s - 1e-12:
            lo = m
        else:
            hi = m
    return hi


class _Walk:
    """A speed profile built leg by leg: stand, walk `dist` metres at v (0.5 s ramps) and
    stop, ... Each `go` returns the time of arrival."""

    RAMP_S = 0.5

    def __init__(self, v: float):
        self.v, self.phases, self.t = v, [], 0.0

    def wait_until(self, t: float) -> None:
        if t > self.t + 1e-6:
            self.phases.append(("stop", _r(t - self.t)))
            self.t = _r(t)

    def go(self, dist: float) -> float:
        v, ramp = self.v, self.RAMP_S
        if dist < v * ramp:
            v = dist / ramp                                    # too short to reach cruising speed
        cruise = (dist - v * ramp) / v
        self.phases += [("accelerate", _r(v), ramp)] + ([("cruise", _r(cruise))] if cruise > 1e-6 else []) \
            + [("decelerate", 0.0, ramp)]
        self.t = _r(self.t + 2 * ramp + max(cruise, 0.0))
        return self.t

    def walk_on(self) -> None:
        self.phases += [("accelerate", _r(self.v), self.RAMP_S), ("cruise", 60.0)]

    def profile(self) -> SpeedProfile:
        return profile_from_phases(0.0, self.phases)


# ------------------------------------------------------------------ the cast

class _Cast:
    def __init__(self, rng):
        self.rng, self.agents, self.looks, self.n = rng, [], {}, 0

    def person(self, path: Path, profile: SpeedProfile) -> str:
        self.n += 1
        tid = f"person_{self.n}"
        look = _person_look(self.rng)
        h = float(look.params["height"])
        self.agents.append(Agent(track_id=tid, category="person", mesh="person",
                                 size=[*people.CIVILIAN_SIZE_XY, h],
                                 trajectory=PathTrajectory(path=path, speed=profile, z=_r(h / 2))))
        self.looks[tid] = look
        return tid


class _Door:
    """The door's geometry and the openings the episode schedules."""

    def __init__(self, yw: float, xd: float, hinge: int, hold: float):
        self.yw, self.xd, self.hinge, self.hold = yw, xd, hinge, hold
        self.yf = yw - WALL_T / 2                              # the lobby face
        self.hy = yw + WALL_T / 2 + PANEL_SIZE[1] / 2          # the hinge axis (the leaf behind the wall)
        self.openings: list[tuple[float, float, float, float]] = []
        self.grants: list[float] = []
        self.reader_x = xd - hinge * (DOOR_W / 2 + READER_OFFSET)

    @property
    def stand(self) -> list[float]:
        return [self.xd, self.yf - STAND_M]

    def open_at(self, t: float) -> tuple[float, float]:
        """Schedule an opening starting at t; (fully open, fully closed) times."""
        self.openings.append((_r(t), OPEN_S, self.hold, CLOSE_S))
        return _r(t + OPEN_S), _r(t + OPEN_S + self.hold + CLOSE_S)

    def grant_at(self, t: float) -> tuple[float, float]:
        self.grants.append(_r(t))
        return self.open_at(t + UNLOCK_S)

    def shut_time(self) -> float:
        """When the last scheduled opening is closed again."""
        t, o, h, c = self.openings[-1]
        return _r(t + o + h + c)

    def agent(self) -> DoorAgent:
        times, angles = swing_knots(self.openings)
        hx = self.xd + self.hinge * DOOR_W / 2
        swing = Swing(hinge=[_r(hx), _r(self.hy)], radius=_r(PANEL_SIZE[0] / 2), z=_r(PANEL_SIZE[2] / 2 + 0.01),
                      yaw0_deg=0.0 if self.hinge < 0 else 180.0, direction=-self.hinge, times=times,
                      angles_deg=angles)
        return DoorAgent(track_id="door_1", category="door", mesh="door", size=list(PANEL_SIZE), trajectory=swing)

    def geometry(self) -> DoorGeometry:
        return DoorGeometry(line_y=self.yw, x0=_r(self.xd - DOOR_W / 2), x1=_r(self.xd + DOOR_W / 2),
                            reader_xy=[_r(self.reader_x), _r(self.yf)])


def _through(door: _Door) -> list[float]:
    return [door.xd, door.yw + 5.0]


def _approach(door: _Door, start, stop_at, *after) -> tuple[Path, list[float]]:
    """A route from the lobby's camera side up the door's centre line to `stop_at`, then
    through `after` (mark 2 is the stop)."""
    c1 = [door.xd, min(start[1] + 1.6, stop_at[1] - 1.2)]
    return route([start, c1, stop_at, *after])


def _shifted(path: Path, gap: float) -> Path:
    """A follower's path: the same route begun `gap` m further back along its first leg
    and ended `gap` m short of its end (so the two never stand on one spot)."""
    h = math.radians(path.heading_deg)
    start = [_r(path.start[0] - gap * math.cos(h)), _r(path.start[1] - gap * math.sin(h))]
    first, last = path.segments[0], path.segments[-1]
    if not isinstance(first, Line) or not isinstance(last, Line) or last.length <= gap:
        raise ValueError("a shifted path must begin and end with straight legs longer than the gap")
    mid = list(path.segments[1:-1])
    return Path(start=start, heading_deg=path.heading_deg,
                segments=[Line(length=_r(first.length + gap))] + mid + [Line(length=_r(last.length - gap))])


def _badge(door: _Door, walk: _Walk, rng) -> float:
    """At the badge spot: the grant after BADGE_PRESENT_S; walk on once the door is fully open.
    Returns the grant time."""
    t_grant = _r(walk.t + rng.uniform(*BADGE_PRESENT_S))
    t_open, _ = door.grant_at(t_grant)
    walk.wait_until(t_open)
    walk.walk_on()
    return t_grant


def _entries(cast: _Cast, door: _Door, kind: str, k: int, t0: float) -> list[ScriptedEvent]:
    """badge_entry, tailgating, own_badge, forced, denied: people from the camera side."""
    rng = cast.rng
    v = rng.uniform(1.1, 1.4)
    start = [door.xd - k * rng.uniform(0.0, 2.5), rng.uniform(*OFF_FRAME_Y)]
    walk = _Walk(v)
    walk.wait_until(t0)
    if kind == "denied":
        cut = TURN_R * (math.sqrt(2.0) - 1.0) / math.sqrt(2.0)   # the corner's arc passes this far inside it
        p = [door.stand[0] + k * cut, door.stand[1] + cut]        # so that the arc's middle is the badge spot
        path, marks = _approach(door, start, p, [door.xd - 2.0 * k, p[1]], [door.xd - 2.0 * k, OFF_FRAME_Y[0]])
        t_arr = walk.go(marks[2])
        walk.wait_until(t_arr + rng.uniform(1.5, 2.5))
        walk.walk_on()
        pid = cast.person(path, walk.profile())
        return [ScriptedEvent(type="badge_use", actors=[pid], positive=False, script=kind,
                              planned={"t_at_reader_s": _r(t_arr), "grants": 0.0})]
    if kind == "forced":
        path, marks = _approach(door, start, [door.xd, door.yf - 0.3], _through(door))
        t_arr = walk.go(marks[2])
        t_open, _ = door.open_at(t_arr + rng.uniform(0.5, 1.0))
        walk.wait_until(t_open)
        walk.walk_on()
        pid = cast.person(path, walk.profile())
        return [ScriptedEvent(type="unauthorized_entry", actors=[pid], positive=True, script=kind,
                              planned={"how": "forced"})]
    path, marks = _approach(door, start, door.stand, _through(door))
    walk.go(marks[2])
    first = list(walk.phases)                                  # the leader's walk up to the badge spot
    t_grant = _badge(door, walk, rng)
    t_shut = door.shut_time()
    pid = cast.person(path, walk.profile())
    out = [ScriptedEvent(type="badge_use", actors=[pid], positive=True, script=kind,
                         planned={"t_grant_s": t_grant})]
    if kind == "tailgating":
        gap = rng.uniform(*QUEUE_GAP_M)
        qid = cast.person(_shifted(path, gap), walk.profile())       # the leader's steps, gap behind
        out.append(ScriptedEvent(type="tailgating", actors=[pid, qid], positive=True, script=kind,
                                 planned={"gap_m": _r(gap), "t_shut_s": t_shut}))
    elif kind == "own_badge":
        gap = rng.uniform(*QUEUE_GAP_M)
        w2 = _Walk(v)
        w2.phases, w2.t = first, walk_time(first)                # stops gap behind the leader
        w2.wait_until(t_shut + rng.uniform(*OWN_BADGE_AFTER_S) - 1.0)
        w2.go(gap)
        t_grant2 = _badge(door, w2, rng)
        qid = cast.person(_shifted(path, gap), w2.profile())
        out += [ScriptedEvent(type="badge_use", actors=[qid], positive=True, script=kind,
                              planned={"t_grant_s": t_grant2}),
                ScriptedEvent(type="tailgating", actors=[pid, qid], positive=False, script=kind,
                              planned={"grant_after_shut_s": _r(t_grant2 - t_shut)})]
    return out


def _exits(cast: _Cast, door: _Door, kind: str, k: int, t0: float) -> list[ScriptedEvent]:
    """exit_slip, exit_then_badge: a leaver from the secure side opens the door (free
    egress, no grant) while a visitor waits beside the door; the visitor slips in behind
    the leaver (unauthorized) or waits until the door has shut and badges (near negative)."""
    rng = cast.rng
    side = [door.xd + 0.9 * k, door.yf - 1.2]
    vstart = [door.xd + 0.9 * k, rng.uniform(*OFF_FRAME_Y)]
    after = [door.xd, door.yf - 0.3] if kind == "exit_slip" else door.stand
    vpath, vmarks = route([vstart, side, after, _through(door)])
    vw = _Walk(rng.uniform(1.1, 1.4))
    vw.wait_until(t0)
    t_side = vw.go(vmarks[1])
    wait = [door.xd, door.hy + EGRESS_WAIT_M]
    xpath, xmarks = route([[door.xd, door.yw + 5.0], wait, [door.xd, door.yf - 0.9],
                           [door.xd - 2.5 * k, door.yf - 2.2], [door.xd - 2.5 * k, OFF_FRAME_Y[0]]])
    s_cross = xmarks[1] + (wait[1] - door.yw)
    v = rng.uniform(1.1, 1.4)
    lag = rng.uniform(0.2, 0.5)

    def leaver(t_start: float, door_: _Door | None):
        w = _Walk(v)
        w.wait_until(t_start)
        t_open = w.go(xmarks[1]) + lag + OPEN_S
        if door_ is not None:
            door_.open_at(t_open - OPEN_S)
        w.wait_until(t_open)
        w.walk_on()
        return w.profile()

    c0 = time_at(leaver(0.5, None), s_cross) - 0.5
    t_xcross = t_side + rng.uniform(0.5, 1.5)                # the visitor is in place first
    xprof = leaver(max(0.5, t_xcross - c0), door)
    t_xcross = time_at(xprof, s_cross)
    t_shut = door.shut_time()
    xid = cast.person(xpath, xprof)
    if kind == "exit_slip":
        vw.wait_until(t_xcross + 0.7)
        vw.walk_on()
        vid = cast.person(vpath, vw.profile())
        return [ScriptedEvent(type="unauthorized_entry", actors=[vid], positive=True, script=kind,
                              planned={"how": "held by a leaver", "leaver": xid})]
    vw.wait_until(t_shut + rng.uniform(*OWN_BADGE_AFTER_S) - 1.0)
    vw.go(vmarks[2] - vmarks[1])
    t_grant = _badge(door, vw, rng)
    vid = cast.person(vpath, vw.profile())
    return [ScriptedEvent(type="unauthorized_entry", actors=[vid], positive=False, script=kind,
                          planned={"grant_after_shut_s": _r(t_grant - t_shut), "leaver": xid}),
            ScriptedEvent(type="badge_use", actors=[vid], positive=True, script=kind,
                          planned={"t_grant_s": t_grant})]


def _episode_start(rng, episode, door_args: tuple, kind: str, k: int, t0: float) -> float:
    """The episode's start, moved from the drawn t0 (by less than a frame gap either way, and
    no earlier than T0_S[0]) so that as many of its door events as can be, by KEY_EVENTS'
    order, hold a shown frame; the nearest to t0 of the best. Each candidate start puts one
    event's middle on one frame; it is found by trial: the episode drawn on a copy of the
    generator (its draws do not depend on the start), its events derived, the start moved by
    what the middle missed, and again (an event moves with the start, except while a leaver's
    start is held at 0.5 s)."""
    gap = SHOWN_TIMES[1] - SHOWN_TIMES[0]
    lo, hi = T0_S[0], T0_S[1] + gap
    trials: dict[float, tuple[list[Event], tuple[int, ...]]] = {}

    def trial(t: float) -> tuple[list[Event], tuple[int, ...]]:
        if t not in trials:
            door, cast = _Door(*door_args), _Cast(copy.deepcopy(rng))
            episode(cast, door, kind, k, t)
            evs = door_events([door.agent()] + cast.agents, sorted(door.grants), door.geometry(), DURATION_S)
            inside = [e.type for e in evs if any(e.t_start <= f <= e.t_end for f in SHOWN_TIMES)]
            trials[t] = evs, tuple(inside.count(kind_) for kind_ in KEY_EVENTS)
        return trials[t]

    def middle(t: float, key: tuple) -> float | None:
        return next((0.5 * (e.t_start + e.t_end) for e in trial(t)[0] if (e.type, e.actors) == key), None)

    starts = [t0]
    for e in trial(t0)[0]:
        for f in SHOWN_TIMES:
            s, key = t0, (e.type, e.actors)
            for _step in range(3):
                m = middle(s, key)
                if m is None or abs(f - m) < 1e-6 or not lo <= s + f - m <= hi:
                    break
                s += f - m
            starts.append(s)
    return max(starts, key=lambda s: (trial(s)[1], -abs(s - t0), -s))


def walk_time(phases) -> float:
    return _r(sum(p[-1] for p in phases))


# ------------------------------------------------------------------ the lobby script

def _loiterer(cast: _Cast, door: _Door, k: int, lobby_x: float, positive: bool) -> list[ScriptedEvent]:
    """A visitor who comes in through the side opening, stands at one spot, moves to a
    second and leaves towards the camera, staying in the region LOITER_S + 1.5-5 s
    (loiter) or LOITER_S - 1-3 s (near negative). The stay is planned from the route:
    in when the straight first leg crosses the region's outer edge, out when the straight
    last leg crosses its near edge."""
    rng = cast.rng
    xd, yf = door.xd, door.yf
    y_lo, y_hi = yf - REGION_Y[1], yf - REGION_Y[0]
    y1 = rng.uniform(y_lo + 1.5, y_hi - 0.6)
    s1 = [xd + k * rng.uniform(3.3, 3.9), y1]
    s2 = [xd + k * rng.uniform(2.2, 2.8), y1 - rng.uniform(0.4, 0.9)]
    start = [lobby_x + k * 2.5, y1]                           # out of sight beyond the side opening
    end = [s2[0], OFF_FRAME_Y[0]]
    path, marks = route([start, s1, s2, end])
    s_in = abs(start[0] - (xd + k * REGION_X[1]))
    s_out = path.length - (y_lo - end[1])
    target = LOITER_S + rng.uniform(*LOITER_POS_S) if positive else LOITER_S - rng.uniform(*LOITER_NEG_S)
    v = rng.uniform(0.9, 1.2)

    def build(dwell: float, t_start: float) -> SpeedProfile:
        w = _Walk(v)
        w.wait_until(t_start)
        t = w.go(marks[1])
        w.wait_until(t + dwell * 0.6)
        t = w.go(marks[2] - marks[1])
        w.wait_until(t + dwell * 0.4)
        w.walk_on()
        return w.profile()

    probe = build(1.0, 1.0)
    moving = time_at(probe, s_out) - time_at(probe, s_in) - 1.0
    dwell = target - moving
    lead = time_at(probe, s_in) - 1.0                        # start to the region's edge
    t_start = rng.uniform(0.5, max(0.5, DURATION_S - 2.0 - target - lead))
    prof = build(dwell, t_start)
    pid = cast.person(path, prof)
    t_in, t_out = time_at(prof, s_in), time_at(prof, s_out)
    return [ScriptedEvent(type="loitering", actors=[pid], positive=positive, script="loiter" if positive else
                          "loiter_negative", planned={"t_in_s": _r(t_in), "t_out_s": _r(t_out),
                                                       "stay_s": _r(t_out - t_in), "zone": "loiter_1"})]


# ------------------------------------------------------------------ static layout

def _lighting(rng) -> Lighting:
    cond = LIGHTINGS[int(rng.integers(len(LIGHTINGS)))]
    if cond == "day":
        return Lighting(condition=cond, sky_color=[0.75, 0.82, 0.95], sky_strength=_r(rng.uniform(0.6, 1.2)),
                        lamps_on=bool(rng.random() < 0.5), lamp_power_w=_r(rng.uniform(80, 160)),
                        lamp_kelvin=_r(rng.uniform(3500, 5000)))
    if cond == "dusk":
        return Lighting(condition=cond, sky_color=[0.95, 0.6, 0.4], sky_strength=_r(rng.uniform(0.06, 0.15)),
                        lamps_on=True, lamp_power_w=_r(rng.uniform(80, 160)), lamp_kelvin=_r(rng.uniform(3000, 4000)))
    return Lighting(condition=cond, sky_color=[0.1, 0.12, 0.2], sky_strength=_r(rng.uniform(0.003, 0.01)),
                    lamps_on=True, lamp_power_w=_r(rng.uniform(100, 200)), lamp_kelvin=_r(rng.uniform(2800, 4500)))


def _furniture(rng, agents: list[Agent], x_lo: float, x_hi: float, yf: float, side_gap, k: int,
               anchors: list[Furniture]) -> list[Furniture]:
    """Benches, planters and bins along the lobby's side walls and the door wall, wherever
    no person's box comes within FURNITURE_CLEAR_M of them at any time (a 0.2 s scan; a
    walker covers < 0.3 m in 0.2 s, inside the margin) and ITEM_GAP_M from the lobby stage's
    anchors (desk, seating). A slot next to an anchor still makes its draws, so the generator
    is where it was without the anchors (entrance_crowd draws on from it)."""
    spots = [furniture_footprint(a) for a in anchors]
    ts = np.arange(0.0, DURATION_S + 1e-9, 0.2)
    tracks = [np.array([a.position(float(t))[:2] for t in ts]) for a in agents if a.category == "person"]
    reach = FURNITURE_HALF_DIAG + 0.5 * math.hypot(*people.CIVILIAN_SIZE_XY) + FURNITURE_CLEAR_M

    def free(xy) -> bool:
        return all(np.min(np.linalg.norm(P - xy, axis=1)) > reach for P in tracks)

    out = []
    slots = [(x, y, 90.0) for x in (x_lo + 0.45, x_hi - 0.45) for y in np.arange(1.5, yf - 0.5, 2.2)]
    slots += [(x, yf - 0.45, 0.0) for x in np.arange(x_lo + 1.2, x_hi - 1.0, 1.9)]
    for x, y, yaw in slots:
        if side_gap[0] - 1.0 <= y <= side_gap[1] + 1.0 and (x - 0.5 * (x_lo + x_hi)) * k > 0 and yaw == 90.0:
            continue                                  # the side opening stays clear
        if rng.random() < 0.55 and free(np.array([x, y])):
            kind = ("bench", "planter", "bin")[int(rng.integers(3))]
            f = Furniture(kind=kind, position=[_r(x), _r(y)], yaw_deg=_r(yaw + rng.uniform(-4, 4)))
            if all(poly_distance(furniture_footprint(f), P) >= ITEM_GAP_M for P in spots):
                out.append(f)
    return out


# ------------------------------------------------------------------ the draw

def sample_scene(rng: np.random.Generator, scene_id: str, seed: int, wall_y: tuple[float, float] = WALL_Y,
                 half_width: tuple[float, float] = HALF_WIDTH) -> EntranceSpec:
    """The entrance draw (module docstring); `wall_y` (the door wall's distance ahead of the
    camera) and `half_width` (the lobby's half width about the door) are ranges a variant may
    widen (entrance_crowd's concourse); the defaults are the entrance's own."""
    cam, yw, xd, k = _stage(rng, wall_y)
    hinge = 1 if rng.random() < 0.5 else -1
    door = _Door(yw, xd, hinge, _r(rng.uniform(*HOLD_S)))
    half = max(rng.uniform(*half_width), abs(xd) + 2.0, REGION_X[1] + 1.4)
    x_lo, x_hi = _r(xd - half), _r(xd + half)
    cast = _Cast(rng)
    kind = EPISODES[int(rng.integers(len(EPISODES)))]
    episode = _exits if kind.startswith("exit") else _entries
    t0 = _episode_start(rng, episode, (yw, xd, hinge, door.hold), kind, k, rng.uniform(*T0_S))
    scripts = episode(cast, door, kind, k, t0)
    lobby = LOBBY_SCRIPTS[int(rng.integers(len(LOBBY_SCRIPTS)))]
    side_gap = [0.0, 0.0]
    if lobby != "none":
        scripts += _loiterer(cast, door, k, x_hi if k > 0 else x_lo, lobby == "loiter")
        y1 = cast.agents[-1].trajectory.path.start[1]
        side_gap = [_r(y1 - 0.9), _r(y1 + 0.9)]
    agents = [door.agent()] + cast.agents
    looks = {"door_1": _door_look(rng), **cast.looks}
    yf = door.yf
    region = Zone(name="loiter_1", polygon=[
        [_r(xd + k * REGION_X[0]), _r(yf - REGION_Y[1])], [_r(xd + k * REGION_X[1]), _r(yf - REGION_Y[1])],
        [_r(xd + k * REGION_X[1]), _r(yf - REGION_Y[0])], [_r(xd + k * REGION_X[0]), _r(yf - REGION_Y[0])]])
    if k < 0:
        region.polygon = region.polygon[::-1]            # counter-clockwise either way
    lighting = _lighting(rng)
    shutter = {"day": (1 / 250, 1 / 60), "dusk": (1 / 60, 1 / 30), "night": (1 / 30, 1 / 15)}[lighting.condition]
    cam = cam.model_copy(update={"shutter_s": _r(rng.uniform(*shutter))})
    clip = ClipSpec(duration_s=DURATION_S, sampling={"kind": "uniform", "k": FRAMES_PER_CLIP})
    tone = rng.uniform(0.45, 0.7)
    wall_h = _r(max(rng.uniform(3.0, 3.6), cam.height_m + rng.uniform(0.6, 1.5)))  # an atrium over a high camera
    wall = [_r(x) for x in (rng.uniform(0.6, 0.85), rng.uniform(0.6, 0.82), rng.uniform(0.55, 0.8))]
    accent = _pick(rng, "accent")[1]
    lobby_rect = [x_lo, LOBBY_BACK_Y, x_hi, yw]
    stage = LobbyStage(stage_rng(seed, "lobby"), lobby_rect, wall_h, xd, k, side_gap, region.polygon, cast.agents)
    anchors = stage.anchors()
    furniture = _furniture(rng, cast.agents, x_lo, x_hi, yf, side_gap, k, anchors)
    extra, decor = stage.finish(furniture)
    return EntranceSpec(
        env="entrance", scene_id=scene_id, seed=seed,
        lobby=lobby_rect,
        corridor=[_r(xd - 1.3), yw, _r(xd + 1.3), _r(yw + 6.5)],
        side_gap=side_gap, region_side=k,
        wall_height=wall_h,
        door=door.geometry(), door_x=xd, hinge_side=hinge, hold_s=door.hold, grants=sorted(door.grants),
        loiter_region=region,
        floor_color=[_r(tone), _r(tone * 0.97), _r(tone * 0.92)],
        wall_color=wall,
        accent_color=accent,
        furniture=furniture + extra, decor=decor,
        lamps=[[_r(x), _r(y), _r(wall_h - 0.1)] for y in np.arange(1.5, yw - 0.5, 3.0)
               for x in np.linspace(x_lo + 1.5, x_hi - 1.5, 3)] + [[_r(xd), _r(yw + 3.0), _r(wall_h - 0.1)]],
        lighting=lighting, looks=looks, scripts=scripts,
        timeline=EntranceTimeline(clip=clip, agents=agents, camera=cam),
    )


def timeline(spec: EntranceSpec) -> EntranceTimeline:
    return spec.timeline


def events(spec: EntranceSpec) -> list[Event]:
    return derive_events(spec.timeline.agents, spec.grants, spec.door,
                         (spec.loiter_region.name, spec.loiter_region.polygon), spec.timeline.clip.duration_s)


def sample_view(spec: EntranceSpec, rng: np.random.Generator, view_index: int, long_side_px: int,
                attempt: int = 0) -> View:
    """Frame `view_index` of the clip: the fixed camera at that sampled timestamp (no draw)."""
    tl = spec.timeline
    t = tl.clip.timestamps()[view_index]
    return View(view_index=view_index, pose=camera_pose(tl.camera, t, long_side_px), target="clip", attempt=attempt)


def agent_vertices(spec: EntranceSpec, track_id: str, t: float) -> np.ndarray:
    """World vertices of the agent's body at t (what the builder links, posed at t)."""
    M = spec.timeline.agent(track_id).pose(t)
    return body_vertices(spec.looks[track_id]) @ M[:3, :3].T + M[:3, 3]


def projected_box(spec: EntranceSpec, track_id: str, t: float, K, cam_to_world, width: int,
                  height: int) -> list[float] | None:
    """The box of the agent's projected body vertices at t, clipped to the image's pixel
    centres (no Blender: the silhouette box of an unoccluded body, to within a pixel)."""
    box = projected_pixel_box(agent_vertices(spec, track_id, t), K, cam_to_world, width, height)
    return None if box is None else [_r(v) for v in box]


ENV = Environment(
    name="entrance",
    family="vantage",
    version=GENERATOR_VERSION,
    views_per_scene=FRAMES_PER_CLIP,
    sample_scene=sample_scene,
    sample_view=sample_view,
    builder="blender_envs.infra.entrance_build:build",
    scorer="scorers.entrance",
    spec_model=EntranceSpec,
    timeline=timeline,
    events=events,
    isp="cctv",
)
