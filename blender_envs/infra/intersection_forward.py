"""`intersection_forward`: the same crossroads clip seen from a vehicle-mounted forward camera
(VANTAGE-Bench's Spatial Pointing took its images from such a view; issue 13 asks for it).

The draw is `intersection.sample_scene`'s (same scripts, traffic, events, signal plan), then
the fixed CCTV camera is replaced by a `CarriedCamera` on the ego car: the car approaching the
centre at t = 0 that is nearest to it among those 12-80 m out. The camera rides `AHEAD_M` in
front of the ego's front bumper at 1.2-1.5 m (a grille or bumper camera: the ego body stays
behind it and out of every frame), 2-6 degrees down, with a 90-110 degree lens. A draw without
such a car is redrawn (the next draw of the same generator). Everything else — bodies, build,
frame hook, scorer, events — is the intersection's.
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.infra import intersection
from blender_envs.infra.intersection import IntersectionSpec
from blender_envs.registry import Environment
from geometry.clip import CarriedCamera
from geometry.timeline import Agent, Line, Path, PathTrajectory

# 2: the intersection-4 draw (scripts on arms the CCTV view sees) and build (car lamps on the body)
GENERATOR_VERSION = "intersection_forward-2"
AHEAD_M = 0.3
EGO_RANGE_M = (12.0, 80.0)
DRAW_ATTEMPTS = 50


def ego_car(spec: IntersectionSpec) -> Agent | None:
    """The car heading for the centre at t = 0, nearest to it within EGO_RANGE_M (straight lane paths only)."""
    best, best_d = None, math.inf
    c = np.asarray(spec.centre, float)
    for a in spec.timeline.agents:
        tr = a.trajectory
        if a.category != "car" or not isinstance(tr, PathTrajectory) or len(tr.path.segments) != 1:
            continue
        p, yaw, vel, _ = tr.state(0.0)
        to_c = c - p[:2]
        d = float(np.linalg.norm(to_c))
        heading = np.array([math.cos(yaw), math.sin(yaw)])
        if np.linalg.norm(vel[:2]) > 1.0 and to_c @ heading > 0.9 * d and EGO_RANGE_M[0] <= d <= EGO_RANGE_M[1] \
                and d < best_d:
            best, best_d = a, d
    return best


def forward_camera(rng, ego: Agent) -> CarriedCamera:
    """A camera on the ego's lane path, AHEAD_M before its front, moving with it (the same
    speed profile on the path shifted forward: exact on a straight path)."""
    tr = ego.trajectory
    shift = ego.size[0] / 2 + AHEAD_M
    h = math.radians(tr.path.heading_deg)
    start = [round(tr.path.start[0] + shift * math.cos(h), 6), round(tr.path.start[1] + shift * math.sin(h), 6)]
    path = Path(start=start, heading_deg=tr.path.heading_deg, segments=[Line(length=tr.path.segments[0].length)])
    return CarriedCamera(trajectory=PathTrajectory(path=path, speed=tr.speed, z=round(float(rng.uniform(1.2, 1.5)), 6)),
                         depression_deg=round(float(rng.uniform(2.0, 6.0)), 6),
                         hfov_deg=round(float(rng.uniform(90.0, 110.0)), 6), shutter_s=1.0 / 120)


def sample_scene(rng: np.random.Generator, scene_id: str, seed: int) -> IntersectionSpec:
    for _ in range(DRAW_ATTEMPTS):
        spec = intersection.sample_scene(rng, scene_id, seed)
        ego = ego_car(spec)
        if ego is None:
            continue
        tl = spec.timeline.model_copy(update={"camera": forward_camera(rng, ego)})
        return spec.model_copy(update={"env": "intersection_forward", "timeline": tl})
    raise RuntimeError("no intersection draw had a car approaching the centre")


ENV = Environment(name="intersection_forward", version=GENERATOR_VERSION, sample_scene=sample_scene, **intersection.CROSSROADS)
