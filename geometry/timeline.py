"""Agents moving in time, as pure data: a path, a speed profile, an analytic pose.

A path is a chain of straight lines, circular arcs and clothoids (curvature linear in arc
length, for turns without a jump in steering) from a start point and heading; it is
G1-continuous and arc length, heading and curvature are exact (a clothoid's position
through the Fresnel integrals). A speed profile is piecewise linear in time
(constant acceleration between knots), so the distance travelled is an exact piecewise
quadratic. Together they give pose, velocity and angular velocity at any t without
numeric integration; the renderer, the event functions and the scorers all evaluate
the same formulas. World axes: z up; a heading of 0 points along +x, positive turns left.
"""
from __future__ import annotations

import bisect
import math
from functools import cached_property
from typing import Annotated, Literal, Union

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator


class Line(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["line"] = "line"
    length: float = Field(gt=0)


class Arc(BaseModel):
    """A circular arc of `radius`; `angle_deg` > 0 turns left (counter-clockwise), may exceed 360."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["arc"] = "arc"
    radius: float = Field(gt=0)
    angle_deg: float

    @property
    def length(self) -> float:
        return self.radius * abs(math.radians(self.angle_deg))

    @property
    def curvature(self) -> float:
        return math.copysign(1.0 / self.radius, self.angle_deg)


class Clothoid(BaseModel):
    """Curvature going linearly from `k0` to `k1` (1/m, > 0 turns left) over `length`."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["clothoid"] = "clothoid"
    length: float = Field(gt=0)
    k0: float
    k1: float

    def curvature_at(self, u: float) -> float:
        return self.k0 + (self.k1 - self.k0) * u / self.length


Segment = Annotated[Union[Line, Arc, Clothoid], Field(discriminator="kind")]

_STRAIGHT = 1e-12  # |curvature rate| (1/m^2) below which a clothoid is treated as an arc


class Path(BaseModel):
    """Lines and arcs chained from `start` ([x, y], metres) at `heading_deg`."""

    model_config = ConfigDict(extra="forbid")
    start: list[float]
    heading_deg: float
    segments: list[Segment]

    @model_validator(mode="after")
    def _check(self) -> "Path":
        if len(self.start) != 2:
            raise ValueError("path start must be [x, y]")
        if not self.segments:
            raise ValueError("a path needs at least one segment")
        return self

    @cached_property
    def length(self) -> float:
        return float(sum(s.length for s in self.segments))

    @cached_property
    def _segment_starts(self) -> list[tuple[float, float, float, float]]:
        """(arc length, x, y, heading rad) at the start of every segment."""
        out = []
        s, x, y, th = 0.0, float(self.start[0]), float(self.start[1]), math.radians(self.heading_deg)
        for seg in self.segments:
            out.append((s, x, y, th))
            x, y, th = _advance(seg, x, y, th, seg.length)
            s += seg.length
        return out

    def at(self, s: float) -> tuple[float, float, float, float]:
        """(x, y, heading rad, curvature) at arc length s, clamped to [0, length]."""
        s = min(max(float(s), 0.0), self.length)
        starts = self._segment_starts
        k = len(starts) - 1
        while k > 0 and starts[k][0] > s:
            k -= 1
        s0, x, y, th = starts[k]
        seg = self.segments[k]
        u = min(s - s0, seg.length)
        x, y, th2 = _advance(seg, x, y, th, u)
        if isinstance(seg, Arc):
            return x, y, th2, seg.curvature
        if isinstance(seg, Clothoid):
            return x, y, th2, seg.curvature_at(u)
        return x, y, th2, 0.0


def _advance(seg, x: float, y: float, th: float, u: float) -> tuple[float, float, float]:
    """Move u metres along one segment from (x, y) at heading th."""
    if isinstance(seg, Line):
        return x + u * math.cos(th), y + u * math.sin(th), th
    if isinstance(seg, Clothoid):
        return _advance_clothoid(seg, x, y, th, u)
    k = seg.curvature
    th1 = th + k * u
    return x + (math.sin(th1) - math.sin(th)) / k, y - (math.cos(th1) - math.cos(th)) / k, th1


def _advance_clothoid(seg: Clothoid, x: float, y: float, th: float, u: float) -> tuple[float, float, float]:
    """theta(w) = th + k0 w + c w^2 / 2 (c = curvature rate); the position is the
    integral of exp(i theta), a difference of Fresnel integrals after completing the square."""
    from scipy.special import fresnel

    k0, c = seg.k0, (seg.k1 - seg.k0) / seg.length
    th1 = th + k0 * u + 0.5 * c * u * u
    if abs(c) < _STRAIGHT:  # an arc (or a line) to within float precision
        if abs(k0) < _STRAIGHT:
            return x + u * math.cos(th), y + u * math.sin(th), th
        return x + (math.sin(th1) - math.sin(th)) / k0, y - (math.cos(th1) - math.cos(th)) / k0, th1
    sigma = 1.0 if c > 0 else -1.0
    scale = math.sqrt(abs(c) / math.pi)
    phi = th - k0 * k0 / (2 * c)                       # theta = phi + sigma * pi/2 * s^2
    s0, s1 = scale * (k0 / c), scale * (u + k0 / c)
    S0, C0 = fresnel(s0)
    S1, C1 = fresnel(s1)
    dc, ds = float(C1 - C0), sigma * float(S1 - S0)    # integral of exp(i sigma pi/2 s^2) ds
    re = (math.cos(phi) * dc - math.sin(phi) * ds) / scale
    im = (math.sin(phi) * dc + math.cos(phi) * ds) / scale
    return x + re, y + im, th1


class SpeedProfile(BaseModel):
    """Speed (m/s) linear between knots `times` (s, increasing, first 0), constant after the last."""

    model_config = ConfigDict(extra="forbid")
    times: list[float]
    speeds: list[float]

    @model_validator(mode="after")
    def _check(self) -> "SpeedProfile":
        if not self.times or len(self.times) != len(self.speeds):
            raise ValueError("times and speeds must be non-empty and of equal length")
        if self.times[0] != 0.0 or any(b <= a for a, b in zip(self.times, self.times[1:])):
            raise ValueError("knot times must start at 0 and increase")
        if any(v < 0 for v in self.speeds):
            raise ValueError("speeds must be >= 0 (an agent moves forward along its path)")
        return self

    def _knot(self, t: float) -> int:
        return max(0, bisect.bisect_right(self.times, t) - 1)

    def speed(self, t: float) -> float:
        t = max(float(t), 0.0)
        i = self._knot(t)
        if i == len(self.times) - 1:
            return float(self.speeds[i])
        a = (self.speeds[i + 1] - self.speeds[i]) / (self.times[i + 1] - self.times[i])
        return float(self.speeds[i] + a * (t - self.times[i]))

    def distance(self, t: float) -> float:
        """Metres travelled from 0 to t: the exact integral of the piecewise linear speed."""
        t = max(float(t), 0.0)
        s = 0.0
        for i in range(len(self.times) - 1):
            t0, t1 = self.times[i], self.times[i + 1]
            if t <= t0:
                return s
            dt = min(t, t1) - t0
            a = (self.speeds[i + 1] - self.speeds[i]) / (t1 - t0)
            s += self.speeds[i] * dt + 0.5 * a * dt * dt
        if t > self.times[-1]:
            s += self.speeds[-1] * (t - self.times[-1])
        return float(s)


Phase = tuple  # ("accelerate" | "decelerate", to_speed, duration) | ("cruise" | "stop", duration)


def profile_from_phases(start_speed: float, phases: list[Phase]) -> SpeedProfile:
    """A speed profile from readable phases: ramp to a speed over a duration, hold it
    (cruise), or stand still (stop: the speed must already be 0)."""
    times, speeds = [0.0], [float(start_speed)]
    for ph in phases:
        kind = ph[0]
        if kind in ("accelerate", "decelerate"):
            to, dur = float(ph[1]), float(ph[2])
            if (kind == "accelerate") != (to > speeds[-1]):
                raise ValueError(f"{kind} to {to} m/s from {speeds[-1]} m/s")
            times.append(times[-1] + dur)
            speeds.append(to)
        elif kind in ("cruise", "stop"):
            if kind == "stop" and speeds[-1] != 0.0:
                raise ValueError("stop needs speed 0: decelerate first")
            times.append(times[-1] + float(ph[1]))
            speeds.append(speeds[-1])
        else:
            raise ValueError(f"unknown phase {kind!r}")
    return SpeedProfile(times=times, speeds=speeds)


class PathTrajectory(BaseModel):
    """Follow `path` with `speed`; the body's centre stays `z` above the ground. Heading
    follows the path unless `heading_follows_path` is false (then `yaw_deg` is kept)."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["path"] = "path"
    path: Path
    speed: SpeedProfile
    z: float
    heading_follows_path: bool = True
    yaw_deg: float = 0.0

    def state(self, t: float) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
        """(position, yaw rad, velocity, angular velocity) at t, all world-frame."""
        s = self.speed.distance(t)
        x, y, th, kappa = self.path.at(s)
        v = self.speed.speed(t) if s < self.path.length else 0.0  # past the end it stands still
        vel = np.array([v * math.cos(th), v * math.sin(th), 0.0])
        if self.heading_follows_path:
            yaw, wz = th, v * kappa
        else:
            yaw, wz = math.radians(self.yaw_deg), 0.0
        return np.array([x, y, self.z]), yaw, vel, np.array([0.0, 0.0, wz])


class Stationary(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["stationary"] = "stationary"
    position: list[float]
    yaw_deg: float = 0.0

    def state(self, t: float) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
        return np.asarray(self.position, float), math.radians(self.yaw_deg), np.zeros(3), np.zeros(3)


class Carried(BaseModel):
    """A load moved by a carrier (a forklift's pallet): at rest until `t_pick`, then held at
    `offset` ([x ahead, y left] metres in the carrier's body frame) as the carrier follows
    `carrier` (a copy of the carrier's own trajectory), put down at `t_drop` and at rest
    from there on. Its rest poses are the carrier's poses at `t_pick` and `t_drop`, so the
    hand-over is continuous by construction. It rises by `lift_m` over the `lift_s` after
    `t_pick` and sinks back over the `lift_s` before `t_drop` (the carrier should stand
    still then); `t_pick` < -`lift_s` means carried, lifted, from before the clip.
    `t_drop` None: never put down."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["carried"] = "carried"
    carrier: PathTrajectory
    offset: list[float]
    z: float                         # the load's centre height at rest
    t_pick: float
    t_drop: float | None = None
    lift_m: float = Field(ge=0)
    lift_s: float = Field(gt=0)

    @model_validator(mode="after")
    def _check(self) -> "Carried":
        if len(self.offset) != 2:
            raise ValueError("carried offset must be [x, y]")
        if self.t_drop is not None and self.t_drop - self.t_pick < 2 * self.lift_s:
            raise ValueError("a carried load needs t_drop - t_pick >= 2 lift_s (up, then down)")
        return self

    def _lift(self, t: float) -> tuple[float, float]:
        """(height above rest, vertical speed) at t."""
        rate = self.lift_m / self.lift_s
        if t <= self.t_pick or (self.t_drop is not None and t >= self.t_drop):
            return 0.0, 0.0
        if t < self.t_pick + self.lift_s:
            return rate * (t - self.t_pick), rate
        if self.t_drop is not None and t > self.t_drop - self.lift_s:
            return rate * (self.t_drop - t), -rate
        return self.lift_m, 0.0

    def state(self, t: float) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
        t = float(t)
        tc = min(max(t, self.t_pick), self.t_drop if self.t_drop is not None else math.inf)
        p, yaw, vel, omega = self.carrier.state(tc)
        held = tc == t                   # between pick-up and drop: moving with the carrier
        c, s = math.cos(yaw), math.sin(yaw)
        dx, dy = self.offset
        lift, vz = self._lift(t)
        pos = np.array([p[0] + c * dx - s * dy, p[1] + s * dx + c * dy, self.z + lift])
        if not held:
            return pos, yaw, np.zeros(3), np.zeros(3)
        wz = float(omega[2])             # rigid: v_load = v_carrier + w x r
        v = np.array([vel[0] - wz * (s * dx + c * dy), vel[1] + wz * (c * dx - s * dy), vz])
        return pos, yaw, v, np.array([0.0, 0.0, wz])


Trajectory = Annotated[Union[PathTrajectory, Stationary, Carried], Field(discriminator="kind")]


def yaw_matrix(yaw: float) -> np.ndarray:
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


class Agent(BaseModel):
    """A rigid moving thing: a track id, a category, the environment's mesh name, its
    box extents (x along its heading, y to its left, z up: footprint and amodal box) and
    a trajectory."""

    model_config = ConfigDict(extra="forbid")
    track_id: str
    category: str
    mesh: str
    size: list[float]
    trajectory: Trajectory

    def position(self, t: float) -> np.ndarray:
        return self.trajectory.state(t)[0]

    def yaw(self, t: float) -> float:
        return self.trajectory.state(t)[1]

    def velocity(self, t: float) -> np.ndarray:
        return self.trajectory.state(t)[2]

    def angular_velocity(self, t: float) -> np.ndarray:
        return self.trajectory.state(t)[3]

    def pose(self, t: float) -> np.ndarray:
        """4x4 body-to-world at t."""
        p, yaw, _, _ = self.trajectory.state(t)
        M = np.eye(4)
        M[:3, :3] = yaw_matrix(yaw)
        M[:3, 3] = p
        return M

    def footprint(self, t: float) -> np.ndarray:
        """(4, 2) ground-plane corners of the box at t, counter-clockwise."""
        hx, hy = self.size[0] / 2, self.size[1] / 2
        local = np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
        M = self.pose(t)
        return local @ M[:2, :2].T + M[:2, 3]

    def box_corners(self, t: float) -> np.ndarray:
        """(8, 3) world corners of the agent's box at t (its amodal extent)."""
        h = np.asarray(self.size, float) / 2
        signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)
        M = self.pose(t)
        return (signs * h) @ M[:3, :3].T + M[:3, 3]


class Fall(BaseModel):
    """A fall: from `t_start` the body tips forward (along its heading) about the front
    edge of its feet, reaching `angle_deg` after `duration_s`, and lies there."""

    model_config = ConfigDict(extra="forbid")
    t_start: float
    duration_s: float = Field(gt=0)
    angle_deg: float = Field(default=90.0, gt=0, le=90.0)

    def angle(self, t: float) -> float:
        """Tilt (rad) from upright at t; the angle grows as 1 - cos (it accelerates, then lands)."""
        u = min(max((float(t) - self.t_start) / self.duration_s, 0.0), 1.0)
        return math.radians(self.angle_deg) * (1.0 - math.cos(0.5 * math.pi * u))


class FallingAgent(Agent):
    """An agent (a person) that falls: its trajectory carries it as usual, and its body
    turns about its front-bottom edge by `fall.angle(t)`; a fallen body's footprint is the
    ground outline of its tilted box and its position is the tilted box's centre."""

    fall: Fall

    @model_validator(mode="after")
    def _stands_when_falling(self) -> "FallingAgent":
        traj = self.trajectory
        if isinstance(traj, PathTrajectory):
            sp = traj.speed
            later = [v for t, v in zip(sp.times, sp.speeds) if t > self.fall.t_start]
            if sp.speed(self.fall.t_start) != 0.0 or any(later):
                raise ValueError("a falling agent must stand still from the fall's start")
        return self

    def pose(self, t: float) -> np.ndarray:
        p, yaw, _, _ = self.trajectory.state(t)
        hx, hz = self.size[0] / 2, self.size[2] / 2
        a = self.fall.angle(t)
        ca, sa = math.cos(a), math.sin(a)
        tilt = np.array([[ca, 0.0, sa], [0.0, 1.0, 0.0], [-sa, 0.0, ca]])   # pitch forward: +z leans to +x
        pivot = np.array([hx, 0.0, -hz])                                      # front-bottom edge, body frame
        M = np.eye(4)
        M[:3, :3] = yaw_matrix(yaw) @ tilt
        M[:3, 3] = p + yaw_matrix(yaw) @ (pivot - tilt @ pivot)
        return M

    def position(self, t: float) -> np.ndarray:
        return self.pose(t)[:3, 3]

    def footprint(self, t: float) -> np.ndarray:
        """(n, 2) counter-clockwise convex outline of the tilted box on the ground."""
        return convex_hull_2d(self.box_corners(t)[:, :2])


def convex_hull_2d(points: np.ndarray) -> np.ndarray:
    """Counter-clockwise hull of 2-D points (Andrew's monotone chain), collinear points dropped."""
    pts = sorted(map(tuple, np.round(np.asarray(points, float), 12)))
    if len(pts) < 3:
        return np.asarray(pts, float)

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.asarray(lower[:-1] + upper[:-1], float)
