"""`intersection`: a signalised crossroads seen by one fixed CCTV camera (VANTAGE-Bench §3,
domain T, transportation).

The draw, in order (all of it plain data, no bpy):
  1. the camera: on a pole at one corner of the crossroads, 2.4-6.1 m high, 30-60 degrees
     from vertical, a wide lens (80-100 degrees), looking at the centre (+-12 degrees);
     redrawn until the centre is well inside the frame;
  2. the signal plan: one axis (EW or NS) green until t_amber, 3 s amber, 2 s all red,
     then the other axis green;
  3. two or three event scripts on distinct arms and lanes (kinds in a drawn order, each on
     an arm where the camera sees its actors at the event: `EVENT_SPOTS`; a kind no arm
     allows is passed over), each a positive or a near negative: a red-light runner (or
     one who crosses just before red), a late braker who runs into a queued car (or stops
     just short), a late braker who stops past the stop line (or just before it), a
     pedestrian who steps off the kerb as a car passes (gap below the near-miss threshold
     or 1.3-2x it), a wrong-way cyclist (or one riding the wrong way on the sidewalk), a
     jaywalker (or a walker along the kerb);
  4. lane traffic on every lane a script does not own: cars (the RealityBench body styles
     and colours) and motorcycles following the Intelligent Driver Model and the signal,
     cyclists in the bike lanes; pedestrians crossing on the zebra crossings in their phase
     and walking along the sidewalks;
  5. buildings, street lamps, signals, markings, lighting (day, dusk, night: lamps on) and
     weather (clear, rain: a wet road, fog: a volume).
Each script records what it planned in `scripts`; the events are derived from the motion
and the signal plan (`intersection_events`), and the tests check that the two agree.
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from blender_envs.infra import road_bodies
from blender_envs.infra.intersection_events import NEAR_MISS_GAP_M, derive_events, footprint_gap
from blender_envs.infra.intersection_layout import (ARMS, AXIS, BIKE_LAT, CAR_LAT, CROSS_A, OPPOSITE, ROAD_HALF,
                                                    STOP_A, Building, Crossing, Lane, SignalPlan, StopLine,
                                                    arm_point, corner_buildings, crossings, heading_deg, inbound,
                                                    lamp_positions, lanes, markings, right_of, stop_lines)
from blender_envs.infra.intersection_traffic import Idm, LaneUser, integrate_lane, profile_from_grid
from blender_envs.infra.warehouse_layout import Stripe
from blender_envs.registry import Environment
from blender_envs.vehicle.body import BODY_STYLES, linear_rgb, sample_body, sample_color
from geometry.camera import project, projected_pixel_box, share_in_image
from geometry.clip import ClipSpec, MountedCamera, Timeline, camera_pose, on_a_frame
from geometry.events import Event
from geometry.scene import SceneSpec, View
from geometry.timeline import Agent, Arc, Line, Path, PathTrajectory, SpeedProfile, profile_from_phases

# 2: a heading square to a lane (cos within 1e-9 of 0) is no wrong-way (the events of some clips change)
# 3: kerb-step near misses and red-light runs timed onto a shown frame (runners 0.3-2.6 s into red)
# 4: scripts only on arms where the camera sees their event spots; a wrong-way rider on a shown frame
#    as it brakes; the kerb walker 1-12 m past the stop line, on the kerb the camera sees more of;
#    the build's car head and tail lamps on the body (they floated half a body height too high)
GENERATOR_VERSION = "intersection-4"
DURATION_S = 16.0
FRAMES_PER_CLIP = 8
SHOWN_TIMES = ClipSpec(duration_s=DURATION_S, sampling={"kind": "uniform", "k": FRAMES_PER_CLIP}).timestamps()
LIGHTINGS = ("day", "dusk", "night")
WEATHERS = ("clear", "rain", "fog")
CAMERA_ATTEMPTS = 200
PATH_FAR = 200.0                 # lane paths start this far out (off the drawn road) and run 2x through
NEAR_POS_M = (0.3, 0.8)          # planned kerb-step near-miss gaps (threshold NEAR_MISS_GAP_M = 1.0)
NEAR_NEG_M = (1.3, 2.0)          # near negatives: 1.3-2x the threshold
RUN_POS_S = (0.3, 2.6)           # red-light runner: crosses this long after red began (> a frame gap wide)
RUN_NEG_S = (0.25, 0.8)          # near negative: crosses this long before red
OVERSHOOT_POS_M = (0.6, 1.8)     # late braker stops with its front this far past the stop line
OVERSHOOT_NEG_M = (0.15, 0.5)    # ... or this far before it
REAR_END_POS_M = (0.05, 0.15)    # the striker's front stops this far into the queued car
REAR_END_NEG_M = (0.3, 0.8)      # ... or this far short of it
KERB_WALK_M = (0.25, 0.6)        # near-negative jaywalker: a walk this far outside the kerb
SIDEWALK_RIDE_M = (0.4, 0.8)     # near-negative wrong way: a ride on the sidewalk this far past the kerb
JAY_CLEAR_M = 2.0                # a jaywalk is placed where no vehicle comes closer than this
SCRIPTS = ("red_light", "rear_end", "overshoot", "kerb_step", "wrong_way", "jaywalk")
A_CROSS = 0.5 * (CROSS_A[0] + CROSS_A[1])   # the zebra crossing's middle, from the centre
SPOT_SIZES = {"car": (4.8, 2.3, 1.6), "bicycle": (1.8, 0.6, 1.75), "person": (0.4, 0.56, 1.75)}   # drawn means
# where each script's actors are at its event, as (actor, along, lateral) in the arm's coordinates
# (the queued car and the striker; the car and the pedestrian beside it; the cyclist just before
# it stops; the road's middle at both ends of the mid-block band): a script takes an arm where
# the camera sees SPOT_IN_VIEW of each spot's box
EVENT_SPOTS = {
    "red_light": (("car", STOP_A, CAR_LAT),),
    "overshoot": (("car", STOP_A + 1.2, CAR_LAT),),
    "rear_end": (("car", STOP_A + 3.6, CAR_LAT), ("car", STOP_A + 8.4, CAR_LAT)),
    "kerb_step": (("car", A_CROSS - 0.25, CAR_LAT), ("person", A_CROSS - 0.25, ROAD_HALF - 1.6)),
    "wrong_way": (("bicycle", CROSS_A[1] + 2.4, -BIKE_LAT),),
    "jaywalk": (("person", STOP_A + 4.0, 0.0), ("person", STOP_A + 9.0, 0.0)),
}
SPOT_IN_VIEW = 0.6       # the items ask for half of each actor in view (ACTOR_IN_VIEW); the spots are approximate
R = 6


def _r(x) -> float:
    return round(float(x), R) + 0.0


# ------------------------------------------------------------------ looks

PALETTES = {
    "shirt": {"white": (0.8, 0.8, 0.78), "black": (0.03, 0.03, 0.03), "grey": (0.35, 0.35, 0.37),
              "blue": (0.08, 0.16, 0.45), "red": (0.55, 0.05, 0.04), "green": (0.08, 0.3, 0.1),
              "yellow": (0.85, 0.7, 0.05), "beige": (0.6, 0.5, 0.35)},
    "trousers": {"navy": (0.03, 0.05, 0.13), "black": (0.02, 0.02, 0.02), "khaki": (0.4, 0.33, 0.2),
                 "grey": (0.2, 0.2, 0.21), "blue": (0.1, 0.15, 0.3)},
    "hair": {"black": (0.02, 0.015, 0.01), "brown": (0.12, 0.06, 0.03), "blond": (0.55, 0.42, 0.2),
             "grey": (0.4, 0.4, 0.4)},
    "helmet": {"white": (0.85, 0.85, 0.85), "black": (0.03, 0.03, 0.03), "red": (0.6, 0.04, 0.03),
               "blue": (0.05, 0.15, 0.5)},
    "moto": {"black": (0.03, 0.03, 0.03), "red": (0.6, 0.04, 0.03), "blue": (0.05, 0.15, 0.5),
             "white": (0.8, 0.8, 0.8), "orange": (0.85, 0.3, 0.03)},
    "frame": {"black": (0.03, 0.03, 0.03), "red": (0.6, 0.04, 0.03), "blue": (0.05, 0.15, 0.5),
              "white": (0.8, 0.8, 0.8), "green": (0.1, 0.35, 0.1)},
}
SKIN = ((0.85, 0.64, 0.5), (0.63, 0.44, 0.32), (0.42, 0.27, 0.18), (0.25, 0.16, 0.1))
FIXED = {"shoes": (0.03, 0.03, 0.03), "tyre": (0.02, 0.02, 0.02), "dark": (0.04, 0.04, 0.04),
         "metal": (0.5, 0.5, 0.52), "headlamp": (0.9, 0.9, 0.85), "taillamp": (0.5, 0.02, 0.02)}


class Look(BaseModel):
    """How one road user looks: its body kind and parameters (`road_bodies`), a colour per
    material key, and the names of the colours a description may use."""

    model_config = ConfigDict(extra="forbid")
    kind: str
    params: dict[str, float | str]
    colors: dict[str, list[float]]
    color_names: dict[str, str]


def _pick(rng, palette: str) -> tuple[str, list[float]]:
    names = sorted(PALETTES[palette])
    name = names[int(rng.integers(len(names)))]
    return name, [float(c) for c in PALETTES[palette][name]]


def _skin(rng) -> list[float]:
    return [float(c) for c in SKIN[int(rng.integers(len(SKIN)))]]


def person_look(rng) -> Look:
    colors, names = {"shoes": list(FIXED["shoes"])}, {}
    for key in ("shirt", "trousers", "hair"):
        names[key], colors[key] = _pick(rng, key)
    colors["skin"] = _skin(rng)
    return Look(kind="person", params={"height": _r(rng.uniform(1.55, 1.9))}, colors=colors, color_names=names)


def car_look(rng) -> Look:
    style = BODY_STYLES[int(rng.integers(len(BODY_STYLES)))]
    body = sample_body(rng, style)
    color = sample_color(rng)
    return Look(kind="car", params=body.model_dump(), colors={"paint": linear_rgb(color)},
                color_names={"paint": color, "style": style})


def motorcycle_look(rng) -> Look:
    colors = {k: list(FIXED[k]) for k in ("tyre", "dark", "metal", "headlamp", "taillamp")}
    names = {}
    names["paint"], colors["paint"] = _pick(rng, "moto")
    names["jacket"], colors["jacket"] = _pick(rng, "shirt")
    names["trousers"], colors["trousers"] = _pick(rng, "trousers")
    names["helmet"], colors["helmet"] = _pick(rng, "helmet")
    return Look(kind="motorcycle", params={}, colors=colors, color_names=names)


def bicycle_look(rng) -> Look:
    colors = {k: list(FIXED[k]) for k in ("tyre", "dark", "metal")}
    names = {}
    names["frame"], colors["frame"] = _pick(rng, "frame")
    names["shirt"], colors["shirt"] = _pick(rng, "shirt")
    names["trousers"], colors["trousers"] = _pick(rng, "trousers")
    helmet = bool(rng.random() < 0.6)
    hname, colors["helmet"] = _pick(rng, "helmet")
    _, colors["hair"] = _pick(rng, "hair")
    if helmet:
        names["helmet"] = hname
    colors["skin"] = _skin(rng)
    return Look(kind="bicycle", params={"helmet": "yes" if helmet else "no"}, colors=colors, color_names=names)


def agent_size(look: Look) -> list[float]:
    return [_r(x) for x in road_bodies.body_size(look.kind, look.params)]


# ------------------------------------------------------------------ the spec

class ScriptedEvent(BaseModel):
    """What a script meant to happen: an event type, its actors, and whether it should
    occur (`positive`) or is a near negative (just outside the event's rule)."""

    model_config = ConfigDict(extra="forbid")
    type: str
    script: str
    actors: list[str]
    positive: bool
    arm: str
    planned: dict[str, float | str]


class Lighting(BaseModel):
    model_config = ConfigDict(extra="forbid")
    condition: Literal["day", "dusk", "night"]
    weather: Literal["clear", "rain", "fog"]
    sky_color: list[float]
    sky_strength: float
    sun_strength: float              # 0: no sun (dusk, night, overcast)
    sun_elevation_deg: float
    sun_azimuth_deg: float
    lamps_on: bool
    lamp_power_w: float
    lamp_kelvin: float
    headlights: bool
    fog_density: float               # 1/m of the fog volume round the crossroads (0: none)


class IntersectionSpec(SceneSpec):
    centre: list[float]
    signals: SignalPlan
    lanes: list[Lane]
    crossings: list[Crossing]
    stop_lines: list[StopLine]
    markings: list[Stripe]
    buildings: list[Building]
    lamps: list[list[float]]
    asphalt_color: list[float]
    sidewalk_color: list[float]
    lighting: Lighting
    looks: dict[str, Look]
    scripts: list[ScriptedEvent]
    timeline: Timeline


# ------------------------------------------------------------------ camera

def _draw_camera(rng) -> tuple[MountedCamera, list[float]]:
    qx, qy = (1 if rng.random() < 0.5 else -1), (1 if rng.random() < 0.5 else -1)
    a, b = rng.uniform(5.8, 8.6), rng.uniform(5.8, 8.6)     # on the corner's sidewalk (kerb 5.3, buildings 9.3)
    centre = [_r(-qx * a), _r(-qy * b)]
    yaw = math.degrees(math.atan2(centre[1], centre[0])) + rng.uniform(-12.0, 12.0)
    cam = MountedCamera(position=[0.0, 0.0], height_m=_r(rng.uniform(2.4, 6.1)),
                        depression_deg=_r(90.0 - rng.uniform(30.0, 60.0)), yaw_deg=_r(yaw),
                        hfov_deg=_r(rng.uniform(80.0, 100.0)), shutter_s=1.0 / 60)
    return cam, centre


class _View:
    def __init__(self, cam: MountedCamera):
        pose = camera_pose(cam, 0.0, 640)
        self.K, self.T, self.w, self.h = pose.K_array(), pose.cam_to_world_array(), pose.width, pose.height

    def uv(self, p) -> tuple[float, float, float]:
        uv, z = project(np.atleast_2d(np.asarray(p, float)), self.K, self.T)
        return float(uv[0, 0]) / self.w, float(uv[0, 1]) / self.h, float(z[0])

    def share(self, centre, arm: str, actor: str, along: float, lat: float) -> float:
        """The share of an `actor`-sized box, square to the arm at (along, lat), in the image."""
        L, W, H = SPOT_SIZES[actor]
        corners = [[*arm_point(centre, arm, along + a, lat + b), z] for a in (-L / 2, L / 2)
                   for b in (-W / 2, W / 2) for z in (0.0, H)]
        return share_in_image(np.array(corners), self.K, self.T, self.w, self.h)


def _stage(rng):
    for _ in range(CAMERA_ATTEMPTS):
        cam, centre = _draw_camera(rng)
        view = _View(cam)
        u, v, z = view.uv([*centre, 0.0])
        if z > 0 and 0.2 < u < 0.8 and 0.25 < v < 0.85:
            return cam, centre, view
    raise RuntimeError("no camera draw saw the crossroads")


# ------------------------------------------------------------------ cast and lanes

def _phases(phases) -> list:
    return [p for p in phases if not (p[0] in ("stop", "cruise") and p[-1] <= 1e-6)]


def _profile(phases, v_start: float = 0.0) -> SpeedProfile:
    return profile_from_phases(_r(v_start), _phases([(p[0], *(_r(x) for x in p[1:])) for p in phases]))


def _constant(v: float) -> SpeedProfile:
    return SpeedProfile(times=[0.0], speeds=[_r(v)])


class _Cast:
    """Agents and looks being added, with track ids numbered per category, and the camera's
    view (a script places its actors where it sees them)."""

    def __init__(self, rng, view: _View):
        self.rng, self.view, self.agents, self.looks, self.counts = rng, view, [], {}, {}

    def add(self, look: Look, traj) -> str:
        self.counts[look.kind] = self.counts.get(look.kind, 0) + 1
        tid = f"{look.kind}_{self.counts[look.kind]}"
        self.agents.append(Agent(track_id=tid, category=look.kind, mesh=look.kind, size=agent_size(look),
                                 trajectory=traj))
        self.looks[tid] = look
        return tid


def _lane_path(centre, arm: str, lateral: float, s0: float) -> Path:
    """The straight lane path of `arm`'s inbound traffic at `lateral`, from arc length s0
    of the full path (which starts PATH_FAR out)."""
    d = inbound(arm)
    p = arm_point(centre, arm, PATH_FAR - s0, lateral)
    return Path(start=[_r(p[0]), _r(p[1])], heading_deg=_r(heading_deg(d)), segments=[Line(length=_r(2 * PATH_FAR - s0))])


S_LINE = PATH_FAR - STOP_A           # the stop line's arc length on every lane path


class _LaneScript:
    """A scripted leader of a lane: its look and analytic motion from arc length s_start."""

    def __init__(self, look: Look, s_start: float, profile: SpeedProfile):
        self.look, self.s_start, self.profile = look, s_start, profile

    def user(self) -> LaneUser:
        L = agent_size(self.look)[0]
        return LaneUser(length=L, s_of=lambda t: self.s_start + self.profile.distance(t), v_of=self.profile.speed)


def _idm_for(kind: str, rng) -> Idm:
    if kind == "bicycle":
        return Idm(v0=rng.uniform(4.0, 6.0), T=1.0, s0=1.5, a=1.0, b=1.5, s0_line=0.8)
    if kind == "motorcycle":
        return Idm(v0=rng.uniform(10.0, 13.0), T=1.2, s0=2.0, a=2.0, b=2.0)
    return Idm(v0=rng.uniform(9.0, 12.5), T=rng.uniform(1.2, 1.6), s0=2.0, a=1.5, b=2.0)


def _fill_lane(cast: _Cast, spec_centre, arm: str, kind: str, plan: SignalPlan, leader: _LaneScript | None,
               n: int) -> list[str]:
    """A lane's traffic: the scripted leader (if any) and n IDM followers behind it, all
    integrated together; returns the track ids (leader first)."""
    rng = cast.rng
    lateral = BIKE_LAT if kind == "bike" else CAR_LAT
    users, looks, scripted = [], [], []
    if leader is not None:
        users.append(leader.user())
        looks.append(leader.look)
        scripted.append(leader)
        s_back = leader.s_start - 12.0 * leader.profile.speed(0.0)      # its place at the warm-up's start
    else:
        s_back = PATH_FAR - rng.uniform(-20.0, 110.0) - 12.0 * (5.0 if kind == "bike" else 11.0)   # near the crossroads by t = 0
    for _ in range(n):
        look = bicycle_look(rng) if kind == "bike" else (motorcycle_look(rng) if rng.random() < 0.2 else car_look(rng))
        idm = _idm_for(look.kind, rng)
        L = agent_size(look)[0]
        prev_L = agent_size(looks[-1])[0] if looks else 0.0
        gap = rng.uniform(8.0, 35.0) if kind != "bike" else rng.uniform(6.0, 20.0)
        s = s_back - 0.5 * (L + prev_L) - gap if looks else s_back
        users.append(LaneUser(length=L, idm=idm, s_start=s, v_start=idm.v0 * rng.uniform(0.8, 1.0)))
        looks.append(look)
        scripted.append(None)
        s_back = s
    grids = integrate_lane(users, S_LINE, lambda t: plan.state(arm, t), DURATION_S + 1.0)
    ids = []
    for look, script, (ts, s, v) in zip(looks, scripted, grids):
        z = agent_size(look)[2] / 2
        if script is not None:
            traj = PathTrajectory(path=_lane_path(spec_centre, arm, lateral, script.s_start), speed=script.profile,
                                  z=_r(z))
        else:
            i0 = int(np.argmin(np.abs(ts)))
            traj = PathTrajectory(path=_lane_path(spec_centre, arm, lateral, _r(s[i0])), speed=profile_from_grid(ts, v),
                                  z=_r(z))
        ids.append(cast.add(look, traj))
    return ids


# ------------------------------------------------------------------ event scripts

def _car_script(rng, s_front_at: float, t_at: float, v: float, look: Look | None = None) -> _LaneScript:
    """A car cruising at v whose front is at arc length s_front_at at t_at."""
    look = look or car_look(rng)
    L = agent_size(look)[0]
    return _LaneScript(look, _r(s_front_at - L / 2 - v * t_at), _constant(v))


def _braker(rng, s_front_rest: float, t_stop: float, v: float, decel: float, after: list,
            look: Look | None = None) -> _LaneScript:
    """A car cruising at v that brakes at `decel` to rest with its front at s_front_rest at t_stop."""
    look = look or car_look(rng)
    L = agent_size(look)[0]
    tb = v / decel
    t_b0 = t_stop - tb
    s_start = s_front_rest - L / 2 - v * t_b0 - 0.5 * v * tb
    prof = _profile([("cruise", t_b0), ("decelerate", 0.0, tb)] + after, v)
    # the knots are rounded: the rest point follows from the stored profile
    return _LaneScript(look, _r(s_start), prof)


def _script_red_light(cast, centre, plan, arm, positive):
    rng = cast.rng
    v = rng.uniform(11.0, 13.0)
    t_x = plan.t_red + rng.uniform(*RUN_POS_S) if positive else plan.t_red - rng.uniform(*RUN_NEG_S)
    look = car_look(rng)
    if positive:                                  # its straddle of the line (front to rear) on a shown frame
        t_x = on_a_frame(t_x, agent_size(look)[0] / (2 * v), SHOWN_TIMES,
                         plan.t_red + RUN_POS_S[0], plan.t_red + RUN_POS_S[1])
    lead = _car_script(rng, S_LINE, t_x, v, look)
    ids = _fill_lane(cast, centre, arm, "car", plan, lead, int(rng.integers(0, 3)))
    return [ScriptedEvent(type="stop_line_violation", script="red_light", actors=[ids[0]], positive=positive, arm=arm,
                          planned={"t_cross_s": _r(t_x), "t_red_s": _r(plan.t_red)})], {f"car:{arm}"}


def _script_overshoot(cast, centre, plan, arm, positive):
    rng = cast.rng
    v, decel = rng.uniform(10.0, 12.0), rng.uniform(5.0, 7.0)
    o = rng.uniform(*OVERSHOOT_POS_M) if positive else -rng.uniform(*OVERSHOOT_NEG_M)
    t_stop = rng.uniform(3.0, plan.t_second_green - 1.5)
    after = [("stop", plan.t_second_green + 1.0 - t_stop), ("accelerate", 10.0, 6.0), ("cruise", 40.0)]
    lead = _braker(rng, S_LINE + o, t_stop, v, decel, after)
    ids = _fill_lane(cast, centre, arm, "car", plan, lead, int(rng.integers(0, 3)))
    return [ScriptedEvent(type="stop_line_violation", script="overshoot", actors=[ids[0]], positive=positive, arm=arm,
                          planned={"overshoot_m": _r(o), "t_stop_s": _r(t_stop)})], {f"car:{arm}", f"cross:{arm}"}


def _script_rear_end(cast, centre, plan, arm, positive):
    rng = cast.rng
    q_look = car_look(rng)
    Lq = agent_size(q_look)[0]
    q_front = S_LINE - rng.uniform(0.8, 1.5)
    tg = plan.t_second_green
    q_after = [("stop", 40.0)] if positive else [("stop", tg + 1.0), ("accelerate", 10.0, 6.7), ("cruise", 40.0)]
    queue = _LaneScript(q_look, _r(q_front - Lq / 2), _profile(q_after))
    p = rng.uniform(*REAR_END_POS_M) if positive else -rng.uniform(*REAR_END_NEG_M)
    v, decel = rng.uniform(10.0, 12.0), rng.uniform(6.0, 7.5)
    t_stop = rng.uniform(3.5, min(tg - 1.0, 12.0))
    s_after = [("stop", 40.0)] if positive else [("stop", tg + 2.5 - t_stop), ("accelerate", 10.0, 6.7),
                                                 ("cruise", 40.0)]
    striker = _braker(rng, queue.s_start - Lq / 2 + p + 0.0, t_stop, v, decel, s_after)
    qid = cast.add(q_look, PathTrajectory(path=_lane_path(centre, arm, CAR_LAT, queue.s_start), speed=queue.profile,
                                          z=_r(agent_size(q_look)[2] / 2)))
    sid = cast.add(striker.look, PathTrajectory(path=_lane_path(centre, arm, CAR_LAT, striker.s_start),
                                                speed=striker.profile, z=_r(agent_size(striker.look)[2] / 2)))
    return [ScriptedEvent(type="collision", script="rear_end", actors=sorted([qid, sid]), positive=positive, arm=arm,
                          planned={"penetration_m": _r(p), "t_stop_s": _r(t_stop), "decel_mps2": _r(decel)})], \
        {f"car:{arm}"}


def _walk_profile(t_walk: float, v: float, dist: float, then: list | None = None) -> SpeedProfile:
    cruise = max(dist - 0.5 * v, 0.0) / v
    return _profile([("stop", t_walk), ("accelerate", v, 0.5), ("cruise", cruise), ("decelerate", 0.0, 0.5)]
                    + (then or [("stop", 40.0)]))


def _script_kerb_step(cast, centre, plan, arm, positive):
    """A pedestrian steps off the kerb on the zebra crossing (against the signal) as a
    car passes, and steps back: the footprint gap while the car is beside is d."""
    rng = cast.rng
    d = rng.uniform(*(NEAR_POS_M if positive else NEAR_NEG_M))
    v = rng.uniform(9.0, 12.0)
    t_p = rng.uniform(4.5, plan.t_amber - 0.8)
    a_c = 0.5 * (CROSS_A[0] + CROSS_A[1])
    car_ = car_look(rng)
    # the near miss's middle (the car's middle beside the pedestrian, 0.25 m past a_c) on a shown
    # frame: the car may then pass in the amber's first second (over its stop line 0.2 s earlier)
    t_p = on_a_frame(t_p, (0.25 + agent_size(car_)[0] / 2) / v, SHOWN_TIMES, 4.5, plan.t_amber + 1.0)
    car = _car_script(rng, PATH_FAR - a_c, t_p, v, car_)  # its front reaches the crossing's middle at t_p
    (cid,) = _fill_lane(cast, centre, arm, "car", plan, car, 0)
    W = agent_size(car.look)[1]
    look = person_look(rng)
    lat_p = CAR_LAT + W / 2 + d + road_bodies.bodies.PERSON_SIZE_XY[0] / 2
    lat_0 = ROAD_HALF + 0.6
    walk = lat_0 - lat_p
    vp = rng.uniform(1.1, 1.4)
    t_arrive = t_p - rng.uniform(0.6, 1.5)
    t_walk = t_arrive - (walk - 0.5 * vp) / vp - 1.0
    t_back = t_p + (agent_size(car.look)[0] + 3.0) / v + rng.uniform(0.3, 0.8)
    prof = _profile([("stop", t_walk), ("accelerate", vp, 0.5), ("cruise", (walk - 0.5 * vp) / vp),
                     ("decelerate", 0.0, 0.5), ("stop", t_back - t_arrive), ("accelerate", vp, 0.5), ("cruise", 40.0)])
    start = arm_point(centre, arm, a_c - 0.25, lat_0)
    left = -right_of(inbound(arm))
    turn = 180.0
    path = Path(start=[_r(start[0]), _r(start[1])], heading_deg=_r(heading_deg(left)),
                segments=[Line(length=_r(walk)), Arc(radius=0.25, angle_deg=turn), Line(length=_r(walk + 1.5))])
    pid = cast.add(look, PathTrajectory(path=path, speed=prof, z=_r(float(look.params["height"]) / 2)))
    return [ScriptedEvent(type="near_miss", script="kerb_step", actors=[pid, cid], positive=positive, arm=arm,
                          planned={"min_gap_m": _r(d), "t_event_s": _r(t_p), "threshold_m": NEAR_MISS_GAP_M})], \
        {f"car:{arm}", f"bike:{arm}", f"cross:{arm}"}


def _script_wrong_way(cast, centre, plan, arm, positive):
    """A cyclist rides inbound in `arm`'s outbound bike lane (or, the near negative, on the
    sidewalk just past the kerb) and stops short of the crossing."""
    rng = cast.rng
    v = rng.uniform(3.5, 5.0)
    a_stop = CROSS_A[1] + 1.5
    t_arr = rng.uniform(7.0, 14.0)
    t_arr = on_a_frame(t_arr, -0.75, SHOWN_TIMES, 7.0, 14.0)   # a shown frame as it brakes near the stop
    dist = v * (t_arr - 0.75)                        # cruise to t_arr - 1.5, then 1.5 s of braking
    lat = -BIKE_LAT if positive else -(ROAD_HALF + rng.uniform(*SIDEWALK_RIDE_M))
    start = arm_point(centre, arm, a_stop + dist, lat)
    prof = SpeedProfile(times=[0.0, _r(t_arr - 1.5), _r(t_arr)], speeds=[_r(v), _r(v), 0.0])
    look = bicycle_look(rng)
    bid = cast.add(look, PathTrajectory(path=Path(start=[_r(start[0]), _r(start[1])],
                                                  heading_deg=_r(heading_deg(inbound(arm))),
                                                  segments=[Line(length=_r(dist + 1.0))]),
                                        speed=prof, z=_r(agent_size(look)[2] / 2)))
    claims = {f"bike:{OPPOSITE[arm]}"} | ({f"walk:{arm}:-"} if not positive else set())
    return [ScriptedEvent(type="wrong_way", script="wrong_way", actors=[bid], positive=positive, arm=arm,
                          planned={"lateral_m": _r(lat), "t_stop_s": _r(t_arr)})], claims


class _Clearance:
    """Footprint gaps between a probe and the agents placed so far, on a 0.1 s grid (the
    centres prefilter; the exact gap only where the centres are close)."""

    def __init__(self, agents: list[Agent]):
        self.ts = np.round(np.arange(0.0, DURATION_S + 1e-9, 0.1), 6)
        self.agents = agents
        self.xy = [np.array([a.position(float(t))[:2] for t in self.ts]) for a in agents]

    def clear(self, probe: Agent, t0: float, t1: float, gap: float) -> bool:
        idx = np.flatnonzero((self.ts >= t0) & (self.ts <= t1))
        P = np.array([probe.position(float(self.ts[i]))[:2] for i in idx])
        for a, xy in zip(self.agents, self.xy):
            d = np.linalg.norm(xy[idx] - P, axis=1)
            for k in np.flatnonzero(d < probe.ground_reach() + a.ground_reach() + gap):
                if footprint_gap(probe, a, float(self.ts[idx[k]])) <= gap:
                    return False
        return True


def _script_jaywalk(cast, centre, plan, arm, positive):
    """A pedestrian crosses `arm` mid-block (searching for a time when no vehicle comes
    within JAY_CLEAR_M) or, the near negative, walks along the kerb on the sidewalk."""
    rng = cast.rng
    look = person_look(rng)
    vp = rng.uniform(1.2, 1.6)
    z = _r(float(look.params["height"]) / 2)
    side = 1.0 if rng.random() < 0.5 else -1.0
    if positive:
        along = rng.uniform(STOP_A + 4.0, STOP_A + 9.0)
        start = arm_point(centre, arm, along, side * (ROAD_HALF + 1.0))
        d = -side * right_of(inbound(arm))
        length = 2 * ROAD_HALF + 2.0
        dur = 0.5 + length / vp
        vehicles = _Clearance([a for a in cast.agents if a.category != "person"])
        people = _Clearance([a for a in cast.agents if a.category == "person"])
        for t0 in rng.permutation(np.arange(0.5, DURATION_S - dur, 0.25)):
            traj = PathTrajectory(path=Path(start=[_r(start[0]), _r(start[1])], heading_deg=_r(heading_deg(d)),
                                            segments=[Line(length=_r(length))]),
                                  speed=_profile([("stop", t0), ("accelerate", vp, 0.5), ("cruise", 40.0)]), z=z)
            probe = Agent(track_id="probe", category="person", mesh="person", size=agent_size(look), trajectory=traj)
            if vehicles.clear(probe, t0, t0 + dur, JAY_CLEAR_M) and people.clear(probe, t0, t0 + dur, 0.6):
                pid = cast.add(look, traj)
                return [ScriptedEvent(type="jaywalking", script="jaywalk", actors=[pid], positive=True, arm=arm,
                                      planned={"along_m": _r(along), "t_walk_s": _r(t0)})], set()
        positive = False                                   # no gap in the traffic: the near negative instead
    off = rng.uniform(*KERB_WALK_M)
    # along the kerb the camera sees more of (the drawn one on a tie)
    kerb = {k: cast.view.share(centre, arm, "person", STOP_A + 6.5, k * (ROAD_HALF + off)) for k in (side, -side)}
    side = max(kerb, key=kerb.get)
    a0, a1 = (STOP_A + 1.0, STOP_A + 12.0) if rng.random() < 0.5 else (STOP_A + 12.0, STOP_A + 1.0)
    start = arm_point(centre, arm, a0, side * (ROAD_HALF + off))
    end = arm_point(centre, arm, a1, side * (ROAD_HALF + off))
    d = end - start
    pid = cast.add(look, PathTrajectory(path=Path(start=[_r(start[0]), _r(start[1])], heading_deg=_r(heading_deg(d)),
                                                  segments=[Line(length=_r(np.linalg.norm(d)))]),
                                        speed=_walk_profile(rng.uniform(0.0, 3.0), vp, float(np.linalg.norm(d))), z=z))
    return [ScriptedEvent(type="jaywalking", script="jaywalk", actors=[pid], positive=False, arm=arm,
                          planned={"kerb_offset_m": _r(off)})], {f"walk:{arm}:{'+' if side > 0 else '-'}"}


SCRIPT_FUNCS = {"red_light": _script_red_light, "rear_end": _script_rear_end, "overshoot": _script_overshoot,
                "kerb_step": _script_kerb_step, "wrong_way": _script_wrong_way, "jaywalk": _script_jaywalk}


def _arms_for(script: str, plan: SignalPlan) -> list[str]:
    """Arms a script may use: runners and kerb steps on the axis green first (it turns red
    in the clip), late brakers on the axis red first."""
    first = [a for a in ARMS if AXIS[a] == plan.first]
    second = [a for a in ARMS if AXIS[a] != plan.first]
    if script in ("red_light", "kerb_step"):
        return first
    if script in ("rear_end", "overshoot"):
        return second
    return list(ARMS)


# ------------------------------------------------------------------ background people

def _crossers(cast: _Cast, centre, plan: SignalPlan, claims: set[str]) -> None:
    """Pedestrians on the zebra crossings while their road is red: a crossing of a
    second-axis arm is walked while the first axis is green (off the road before that arm's
    green), a first-axis crossing from 1.5 s after the second axis turned green."""
    rng = cast.rng
    a_c = 0.5 * (CROSS_A[0] + CROSS_A[1])
    for arm in ARMS:
        if f"cross:{arm}" in claims:
            continue
        for k, off in enumerate((-0.7, 0.7)):
            if rng.random() < 0.55:
                continue
            look = person_look(rng)
            vp = rng.uniform(1.1, 1.5)
            side = 1.0 if rng.random() < 0.5 else -1.0
            lat0 = ROAD_HALF + 1.2
            length = 2 * lat0
            road_s = 0.5 + (lat0 + ROAD_HALF) / vp             # start to leaving the road
            if AXIS[arm] != plan.first:
                hi = plan.t_second_green - road_s - 0.5
                if hi < 0.3:
                    continue
                t0 = rng.uniform(0.3, hi)
            else:
                lo = plan.t_second_green + 1.5
                if lo > DURATION_S - 2.0:
                    continue
                t0 = rng.uniform(lo, DURATION_S - 2.0)
            start = arm_point(centre, arm, a_c + off, side * lat0)
            d = -side * right_of(inbound(arm))
            cast.add(look, PathTrajectory(path=Path(start=[_r(start[0]), _r(start[1])], heading_deg=_r(heading_deg(d)),
                                                    segments=[Line(length=_r(length))]),
                                          speed=_walk_profile(t0, vp, length), z=_r(float(look.params["height"]) / 2)))


def _walkers(cast: _Cast, centre, claims: set[str], n: int) -> None:
    """People walking along the sidewalks, outward from beyond the crossings or inward to
    stop short of them (one per sidewalk at most)."""
    rng = cast.rng
    sides = [f"walk:{a}:{s}" for a in ARMS for s in "+-" if f"walk:{a}:{s}" not in claims]
    for key in rng.permutation(sides)[:n]:
        _, arm, s = key.split(":")
        side = 1.0 if s == "+" else -1.0
        look = person_look(rng)
        lat = side * (ROAD_HALF + rng.uniform(1.4, 2.4))
        a0, a1 = (CROSS_A[1] + rng.uniform(1.5, 4.0), 45.0)
        if rng.random() < 0.5:
            a0, a1 = a1 - rng.uniform(0.0, 15.0), CROSS_A[1] + rng.uniform(1.5, 4.0)
        start, end = arm_point(centre, arm, a0, lat), arm_point(centre, arm, a1, lat)
        d = end - start
        cast.add(look, PathTrajectory(path=Path(start=[_r(start[0]), _r(start[1])], heading_deg=_r(heading_deg(d)),
                                                segments=[Line(length=_r(np.linalg.norm(d)))]),
                                      speed=_walk_profile(rng.uniform(0.0, 4.0), rng.uniform(1.0, 1.5),
                                                          float(np.linalg.norm(d))),
                                      z=_r(float(look.params["height"]) / 2)))


# ------------------------------------------------------------------ lighting

def _lighting(rng) -> Lighting:
    cond = LIGHTINGS[int(rng.integers(len(LIGHTINGS)))]
    weather = WEATHERS[int(rng.choice(3, p=[0.5, 0.25, 0.25]))]
    overcast = weather != "clear"
    fog = _r(rng.uniform(0.01, 0.025)) if weather == "fog" else 0.0
    az = _r(rng.uniform(0.0, 360.0))
    if cond == "day":
        return Lighting(condition=cond, weather=weather, sky_color=[0.55, 0.65, 0.85] if not overcast else [0.6, 0.62, 0.66],
                        sky_strength=_r(rng.uniform(0.6, 1.0) if not overcast else rng.uniform(1.0, 1.6)),
                        sun_strength=0.0 if overcast else _r(rng.uniform(2.5, 4.0)),
                        sun_elevation_deg=_r(rng.uniform(25.0, 60.0)), sun_azimuth_deg=az, lamps_on=False,
                        lamp_power_w=_r(rng.uniform(300, 600)), lamp_kelvin=_r(rng.uniform(3500, 5000)),
                        headlights=overcast, fog_density=fog)
    if cond == "dusk":
        return Lighting(condition=cond, weather=weather, sky_color=[0.9, 0.55, 0.38], sky_strength=_r(rng.uniform(0.06, 0.15)),
                        sun_strength=0.0, sun_elevation_deg=0.0, sun_azimuth_deg=az, lamps_on=True,
                        lamp_power_w=_r(rng.uniform(400, 800)), lamp_kelvin=_r(rng.uniform(3000, 4500)),
                        headlights=True, fog_density=fog)
    return Lighting(condition=cond, weather=weather, sky_color=[0.08, 0.1, 0.18], sky_strength=_r(rng.uniform(0.003, 0.01)),
                    sun_strength=0.0, sun_elevation_deg=0.0, sun_azimuth_deg=az, lamps_on=True,
                    lamp_power_w=_r(rng.uniform(500, 1000)), lamp_kelvin=_r(rng.uniform(2700, 4500)),
                    headlights=True, fog_density=fog)


# ------------------------------------------------------------------ the draw

def sample_scene(rng: np.random.Generator, scene_id: str, seed: int) -> IntersectionSpec:
    cam, centre, view = _stage(rng)
    plan = SignalPlan(first="EW" if rng.random() < 0.5 else "NS", t_amber=_r(rng.uniform(6.0, 8.0)))
    cast = _Cast(rng, view)
    n_scripts = int(rng.integers(2, 4))
    kinds = [SCRIPTS[i] for i in rng.permutation(len(SCRIPTS))]
    used_arms: set[str] = set()
    claims: set[str] = set()
    scripts: list[ScriptedEvent] = []
    deferred = []
    for kind in kinds:
        if len(used_arms) == n_scripts:
            break
        arms = [a for a in _arms_for(kind, plan) if a not in used_arms
                and all(view.share(centre, a, *spot) >= SPOT_IN_VIEW for spot in EVENT_SPOTS[kind])]
        if not arms:                                             # the camera sees no arm's event spots
            continue
        arm = arms[int(rng.integers(len(arms)))]
        positive = bool(rng.random() < 0.6)
        if kind == "jaywalk":                                    # it searches the traffic: placed last
            deferred.append((arm, positive))
            used_arms.add(arm)
            continue
        evs, c = SCRIPT_FUNCS[kind](cast, centre, plan, arm, positive)
        used_arms.add(arm)
        scripts += evs
        claims |= c
    for arm in ARMS:                                             # lane traffic wherever no script owns the lane
        if f"car:{arm}" not in claims:
            _fill_lane(cast, centre, arm, "car", plan, None, int(rng.integers(0, 4)))
        if f"bike:{arm}" not in claims and rng.random() < 0.4:
            _fill_lane(cast, centre, arm, "bike", plan, None, 1)
    for arm, positive in deferred:
        evs, c = _script_jaywalk(cast, centre, plan, arm, positive)
        scripts += evs
        claims |= c
    _crossers(cast, centre, plan, claims)
    _walkers(cast, centre, claims, int(rng.integers(1, 5)))
    lighting = _lighting(rng)
    shutter = {"day": (1 / 250, 1 / 60), "dusk": (1 / 60, 1 / 30), "night": (1 / 30, 1 / 15)}[lighting.condition]
    cam = cam.model_copy(update={"shutter_s": _r(rng.uniform(*shutter))})
    grey = rng.uniform(0.08, 0.14) * (0.6 if lighting.weather == "rain" else 1.0)
    side = rng.uniform(0.3, 0.45)
    return IntersectionSpec(
        env="intersection", scene_id=scene_id, seed=seed, centre=centre, signals=plan,
        lanes=lanes(centre), crossings=crossings(centre), stop_lines=stop_lines(), markings=markings(centre),
        buildings=corner_buildings(rng, centre), lamps=lamp_positions(centre),
        asphalt_color=[_r(grey), _r(grey), _r(grey * 1.03)], sidewalk_color=[_r(side), _r(side * 0.98), _r(side * 0.94)],
        lighting=lighting, looks=cast.looks, scripts=scripts,
        timeline=Timeline(clip=ClipSpec(duration_s=DURATION_S, sampling={"kind": "uniform", "k": FRAMES_PER_CLIP}),
                          agents=cast.agents, camera=cam),
    )


def timeline(spec: IntersectionSpec) -> Timeline:
    return spec.timeline


def events(spec: IntersectionSpec) -> list[Event]:
    return derive_events(spec.timeline.agents, spec.centre, spec.lanes, spec.crossings, spec.stop_lines, spec.signals,
                         spec.timeline.clip.duration_s)


def sample_view(spec: IntersectionSpec, rng: np.random.Generator, view_index: int, long_side_px: int,
                attempt: int = 0) -> View:
    """Frame `view_index` of the clip: the fixed camera at that sampled timestamp (no draw)."""
    tl = spec.timeline
    t = tl.clip.timestamps()[view_index]
    return View(view_index=view_index, pose=camera_pose(tl.camera, t, long_side_px), target="clip", attempt=attempt)


def agent_vertices(spec: IntersectionSpec, track_id: str, t: float) -> np.ndarray:
    """World points of the agent's body at t (what the builder links, posed at t)."""
    look = spec.looks[track_id]
    V = road_bodies.body_vertices(look.kind, look.params)
    M = spec.timeline.agent(track_id).pose(t)
    return V @ M[:3, :3].T + M[:3, 3]


def projected_box(spec: IntersectionSpec, track_id: str, t: float, K, cam_to_world, width: int,
                  height: int) -> list[float] | None:
    """The box of the agent's projected body points at t, clipped to the image's pixel centres."""
    box = projected_pixel_box(agent_vertices(spec, track_id, t), K, cam_to_world, width, height)
    return None if box is None else [_r(v) for v in box]


# What the crossroads' environments share: the CCTV view here and the camera swaps
# (intersection_forward, intersection_aerial), whose draws differ only in the camera they put on
# the spec. Each still declares ENV = Environment(name="...", ...) literally (the registry reads it).
CROSSROADS = dict(
    family="vantage",
    views_per_scene=FRAMES_PER_CLIP,
    sample_view=sample_view,
    builder="blender_envs.infra.intersection_build:build",
    scorer="scorers.intersection",
    spec_model=IntersectionSpec,
    timeline=timeline,
    events=events,
    isp="cctv",
    frame_hook="blender_envs.infra.intersection_build:frame_hook",
)

ENV = Environment(name="intersection", version=GENERATOR_VERSION, sample_scene=sample_scene, **CROSSROADS)
