"""The `calib_clip` scene as data: the clip counterpart of `calib`, whose motion is known
exactly so the time conventions (per-frame poses, boxes, visibility, motion blur,
events) can be checked against hand numbers.

A ground plane, three static boxes and three moving boxes:
  * `line`    crosses the scene along +x at a constant 3-5 m/s;
  * `circle`  goes round a 1.2-1.6 m circle at 1.5-2.5 m/s (heading follows the path);
  * `stop_go` drives +y, brakes to a stop at (0, -1), waits, and drives on.
`line` passes the stopped `stop_go` with a lateral offset of 1.0-1.3 m (a near miss
under NEAR_MISS_M) in half of the clips and 2.2-3.0 m (none) in the others. The camera
is a VANTAGE-style mount (2.4-6.1 m high, 30-60 degrees from vertical) aimed at the
scene centre; in 30% of the clips it dollies sideways at 0.5-1 m/s instead.
"""
from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel, ConfigDict

from geometry.clip import CarriedCamera, ClipSpec, MountedCamera, Timeline, camera_pose
from geometry.events import Event, collisions, near_misses
from geometry.scene import SceneSpec, View
from geometry.timeline import Agent, Arc, Line, Path, PathTrajectory, profile_from_phases

GENERATOR_VERSION = "calib_clip-1"
FRAMES_PER_CLIP = 8                 # VANTAGE SOT's short setting: 8 frames at stride 15
STRIDE = 15
DURATION_S = 4.0
NEAR_MISS_M = 1.5                   # centre distance on the ground under which two agents nearly collide
STOP_XY = (0.0, -1.0)               # where stop_go stands still
SCENE_CENTRE = (-0.5, -1.0, 0.0)    # the camera aims here
CIRCLE_CENTRE = (-3.5, -4.0)        # >= 1.9 m from stop_go's lane and >= 2.4 m from line's: no event with them
AGENT_SIZES = {"line": [0.8, 0.5, 0.5], "circle": [0.5, 0.5, 0.5], "stop_go": [0.6, 0.5, 0.4]}
TRACKS = ("line", "circle", "stop_go")


class StaticBox(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    center: list[float]
    size: list[float]
    color: list[float]


class CalibClipSpec(SceneSpec):
    ground_size: float
    ground_color: list[float]
    boxes: list[StaticBox]
    agent_colors: dict[str, list[float]]
    timeline: Timeline
    near_miss_planned: bool          # the draw meant `line` to pass `stop_go` within NEAR_MISS_M
    sun_elevation_deg: float
    sun_azimuth_deg: float


def _stop_go(cruise: float) -> Agent:
    """Accelerate 0->cruise in 0.75 s, cruise 0.25 s, brake to 0 in 0.75 s, stand until
    3 s, accelerate again: it stands at STOP_XY from 1.75 s to 3.0 s."""
    prof = profile_from_phases(0.0, [("accelerate", cruise, 0.75), ("cruise", 0.25), ("decelerate", 0.0, 0.75),
                                     ("stop", 1.25), ("accelerate", cruise, 0.75)])
    before_stop = prof.distance(1.75)
    start = [STOP_XY[0], STOP_XY[1] - before_stop]
    traj = PathTrajectory(path=Path(start=start, heading_deg=90.0, segments=[Line(length=30.0)]), speed=prof,
                          z=AGENT_SIZES["stop_go"][2] / 2)
    return Agent(track_id="stop_go", category="box", mesh="box", size=AGENT_SIZES["stop_go"], trajectory=traj)


def _line(speed: float, t_pass: float, offset: float) -> Agent:
    """Constant speed along +x, at x = STOP_XY[0] at t_pass, `offset` m beside the stop point."""
    start = [STOP_XY[0] - speed * t_pass, STOP_XY[1] + offset]
    traj = PathTrajectory(path=Path(start=start, heading_deg=0.0, segments=[Line(length=60.0)]),
                          speed=profile_from_phases(speed, []), z=AGENT_SIZES["line"][2] / 2)
    return Agent(track_id="line", category="box", mesh="box", size=AGENT_SIZES["line"], trajectory=traj)


def _circle(radius: float, speed: float, phase_deg: float) -> Agent:
    cx, cy = CIRCLE_CENTRE
    ph = math.radians(phase_deg)
    start = [cx + radius * math.cos(ph), cy + radius * math.sin(ph)]
    traj = PathTrajectory(path=Path(start=start, heading_deg=phase_deg + 90.0,
                                    segments=[Arc(radius=radius, angle_deg=3 * 360.0)]),
                          speed=profile_from_phases(speed, []), z=AGENT_SIZES["circle"][2] / 2)
    return Agent(track_id="circle", category="box", mesh="box", size=AGENT_SIZES["circle"], trajectory=traj)


def _camera(rng: np.random.Generator):
    height = float(rng.uniform(2.4, 6.1))
    from_vertical = float(rng.uniform(30.0, 60.0))
    depression = 90.0 - from_vertical
    yaw = float(rng.uniform(0.0, 360.0))
    ground_dist = height / math.tan(math.radians(depression))
    slant = math.hypot(ground_dist, height)
    # wide enough to see the ~10 m wide stage at this distance, as a CCTV lens would be chosen
    hfov = float(np.clip(2 * math.degrees(math.atan(5.5 / slant)), 55.0, 110.0))
    shutter = float(rng.uniform(1 / 120, 1 / 30))
    c = np.array(SCENE_CENTRE[:2])
    back = -np.array([math.cos(math.radians(yaw)), math.sin(math.radians(yaw))])
    pos = c + ground_dist * back
    r = lambda x: round(float(x), 6)  # noqa: E731
    if rng.random() < 0.3:
        speed = float(rng.uniform(0.5, 1.0))
        side = yaw + 90.0
        d = np.array([math.cos(math.radians(side)), math.sin(math.radians(side))])
        start = pos - d * speed * DURATION_S / 2
        traj = PathTrajectory(path=Path(start=[r(start[0]), r(start[1])], heading_deg=r(side),
                                        segments=[Line(length=20.0)]),
                              speed=profile_from_phases(r(speed), []), z=r(height))
        return CarriedCamera(trajectory=traj, depression_deg=r(depression), yaw_offset_deg=-90.0, hfov_deg=r(hfov),
                             shutter_s=r(shutter))
    return MountedCamera(position=[r(pos[0]), r(pos[1])], height_m=r(height), depression_deg=r(depression),
                         yaw_deg=r(yaw), hfov_deg=r(hfov), shutter_s=r(shutter))


def sample_scene(rng: np.random.Generator, scene_id: str, seed: int) -> CalibClipSpec:
    def color(lo=0.15, hi=0.85):
        return [round(float(c), 4) for c in rng.uniform(lo, hi, size=3)]

    near = bool(rng.random() < 0.5)
    offset = float(rng.uniform(1.0, 1.3) if near else rng.uniform(2.2, 3.0))
    line = _line(round(float(rng.uniform(3.0, 5.0)), 4), round(float(rng.uniform(2.0, 2.6)), 4), round(offset, 4))
    circle = _circle(round(float(rng.uniform(1.2, 1.6)), 4), round(float(rng.uniform(1.5, 2.5)), 4),
                     round(float(rng.uniform(0.0, 360.0)), 3))
    stop_go = _stop_go(round(float(rng.uniform(1.5, 2.5)), 4))
    clip = ClipSpec(duration_s=DURATION_S, sampling={"kind": "strided", "n": FRAMES_PER_CLIP, "stride": STRIDE})
    boxes = [StaticBox(name="static_a", center=[3.0, -3.0, 0.4], size=[0.8, 0.8, 0.8], color=color()),
             StaticBox(name="static_b", center=[-5.5, 4.0, 0.6], size=[1.0, 1.0, 1.2], color=color()),
             StaticBox(name="static_c", center=[2.5, 4.5, 0.45], size=[1.2, 0.6, 0.9], color=color())]
    return CalibClipSpec(
        env="calib_clip", scene_id=scene_id, seed=seed, ground_size=30.0, ground_color=[0.3, 0.3, 0.3],
        boxes=boxes, agent_colors={k: color(0.6, 0.95) for k in TRACKS},
        timeline=Timeline(clip=clip, agents=[line, circle, stop_go], camera=_camera(rng)),
        near_miss_planned=near,
        sun_elevation_deg=round(float(rng.uniform(35.0, 70.0)), 3),
        sun_azimuth_deg=round(float(rng.uniform(0.0, 360.0)), 3),
    )


def timeline(spec: CalibClipSpec) -> Timeline:
    return spec.timeline


def events(spec: CalibClipSpec) -> list[Event]:
    """Near misses and collisions between every pair of agents over the whole clip."""
    agents = spec.timeline.agents
    out: list[Event] = []
    for i, a in enumerate(agents):
        for b in agents[i + 1:]:
            out += collisions(a, b, 0.0, DURATION_S) + near_misses(a, b, NEAR_MISS_M, 0.0, DURATION_S)
    return sorted(out, key=lambda e: (e.t_start, e.type, e.actors))


def sample_view(spec: CalibClipSpec, rng: np.random.Generator, view_index: int, long_side_px: int,
                attempt: int = 0) -> View:
    """Frame `view_index` of the clip: the camera at that sampled timestamp (no draw)."""
    tl = spec.timeline
    t = tl.clip.timestamps()[view_index]
    return View(view_index=view_index, pose=camera_pose(tl.camera, t, long_side_px), target="clip", attempt=attempt)
