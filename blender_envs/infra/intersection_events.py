"""The intersection clip's events, derived from the agents' analytic motion and the signal
phases (never from the scripts that placed them, never from pixels).

  * collision            two road users, at least one a vehicle (car, motorcycle, bicycle), whose
                         ground footprints (rotated boxes) overlap (people brushing past each other
                         on a crossing are no traffic collision);
  * near_miss            a motor vehicle (car, motorcycle) moving faster than MOVING_MPS and a
                         vulnerable road user (person, bicycle) whose footprints come closer than
                         NEAR_MISS_GAP_M on the ground, with no contact during the interval;
  * wrong_way            a vehicle (car, motorcycle, bicycle) moving faster than MOVING_MPS whose
                         ground point lies in a lane (car or bike lane of an arm) and whose
                         heading is more than 90 degrees from the lane's direction;
  * stop_line_violation  an inbound vehicle of an arm straddling its stop line (front past it,
                         rear not yet) in a spell that began while that arm's signal showed red;
                         from the front's crossing to the rear's;
  * jaywalking           a person whose ground point is on the carriageway and in no zebra crossing.
Every boundary is found by `geometry.events.intervals_where` (grid + bisection to 1e-6 s)
inside windows of a COARSE_S scan (exact for events longer than COARSE_S).
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.infra.intersection_layout import (ROAD_HALF, Crossing, Lane, SignalPlan, StopLine, arm_coords,
                                                    inbound, on_carriageway)
from geometry.events import (Event, TIME_DECIMALS, _inside, footprints_overlap, grid_windows,
                             intervals_where)
from geometry.timeline import Agent

NEAR_MISS_GAP_M = 1.0      # footprint to footprint on the ground
MOVING_MPS = 1.0
MOTOR = ("car", "motorcycle")
VULNERABLE = ("person", "bicycle")
VEHICLES = ("car", "motorcycle", "bicycle")
COARSE_S = 0.05
SQUARE_COS = 1e-9          # |cos| below this between a heading and a lane: square to it (float noise)


def _ev(kind: str, actors: list[str], span) -> Event:
    return Event(type=kind, actors=actors, t_start=round(span[0], TIME_DECIMALS), t_end=round(span[1], TIME_DECIMALS))


def speed(a: Agent, t: float) -> float:
    return float(np.linalg.norm(a.velocity(t)[:2]))


def _points_to_polygon(P: np.ndarray, Q: np.ndarray) -> float:
    """Smallest distance from the points P to the edges of polygon Q."""
    A, AB = Q, np.roll(Q, -1, axis=0) - Q
    AP = P[:, None, :] - A[None, :, :]
    u = np.clip(np.sum(AP * AB, axis=2) / np.maximum(np.sum(AB * AB, axis=1), 1e-18), 0.0, 1.0)
    return float(np.min(np.linalg.norm(AP - u[..., None] * AB, axis=2)))


def footprint_gap(a: Agent, b: Agent, t: float) -> float:
    """Ground distance between the two footprints at t (0 when they overlap)."""
    if footprints_overlap(a, b, t):
        return 0.0
    P, Q = a.footprint(t), b.footprint(t)
    return min(_points_to_polygon(P, Q), _points_to_polygon(Q, P))


class _Coarse:
    """Every agent's ground position, yaw and speed on the COARSE_S grid; windows around
    the grid times where a condition may hold (false at a grid time with the margin means
    false up to the neighbouring grid times, so the exact search runs only inside them)."""

    def __init__(self, agents: list[Agent], t1: float):
        n = max(1, int(math.ceil(t1 / COARSE_S)))
        self.ts = np.linspace(0.0, t1, n + 1)
        self.state = {a.track_id: [a.trajectory.state(float(t)) for t in self.ts] for a in agents}
        self.xy = {k: np.array([s[0][:2] for s in v]) for k, v in self.state.items()}
        self.vmax = {k: max(float(np.linalg.norm(s[2][:2])) for s in v) for k, v in self.state.items()}

    def windows(self, hits: np.ndarray) -> list[tuple[float, float]]:
        return grid_windows(self.ts, hits)

    def near(self, a: Agent, b: Agent, gap: float) -> list[tuple[float, float]]:
        """Windows where the footprints may come closer than `gap`: the coarse footprint
        gap is below gap + what the two can close in one coarse step (both straight-line
        movers: speed x step, doubled for safety)."""
        d = np.linalg.norm(self.xy[a.track_id] - self.xy[b.track_id], axis=1)
        reach = a.ground_reach() + b.ground_reach()
        margin = 2.0 * (self.vmax[a.track_id] + self.vmax[b.track_id]) * COARSE_S + 0.05
        cand = d < reach + gap + margin
        hits = np.zeros(len(self.ts), bool)
        for i in np.flatnonzero(cand):
            hits[i] = footprint_gap(a, b, float(self.ts[i])) < gap + margin
        return self.windows(hits)

    def scan(self, a: Agent, pred) -> list[tuple[float, float]]:
        """Windows of `pred(position, yaw, velocity)` true at a coarse time."""
        return self.windows(np.array([bool(pred(s[0], s[1], s[2])) for s in self.state[a.track_id]]))


def _on_state(a: Agent, pred):
    """pred over (position, yaw, velocity) as a predicate of t."""
    def f(t: float) -> bool:
        p, yaw, vel, _ = a.trajectory.state(t)
        return bool(pred(p, yaw, vel))
    return f


def collisions(a: Agent, b: Agent, t0: float, t1: float) -> list[Event]:
    return [_ev("collision", [a.track_id, b.track_id], s)
            for s in intervals_where(lambda t: footprints_overlap(a, b, t), t0, t1)]


def near_misses(vehicle: Agent, vru: Agent, t0: float, t1: float) -> list[Event]:
    def near(t: float) -> bool:
        return speed(vehicle, t) > MOVING_MPS and footprint_gap(vehicle, vru, t) < NEAR_MISS_GAP_M

    return [_ev("near_miss", [vru.track_id, vehicle.track_id], s) for s in intervals_where(near, t0, t1)
            if not collisions(vehicle, vru, s[0], s[1])]


def _lane_of(lanes: list[Lane], p) -> Lane | None:
    """The lane holding ground point p (lanes are axis-aligned rectangles: a bounds test)."""
    x, y = float(p[0]), float(p[1])
    for ln in lanes:
        P = ln.polygon
        if min(q[0] for q in P) < x < max(q[0] for q in P) and min(q[1] for q in P) < y < max(q[1] for q in P):
            return ln
    return None


def wrong_way(a: Agent, lanes: list[Lane], coarse: _Coarse) -> list[Event]:
    def against(p, yaw, vel) -> bool:
        if float(np.hypot(vel[0], vel[1])) <= MOVING_MPS:
            return False
        ln = _lane_of(lanes, p)
        # against: more than 90 degrees off; a heading square to the lane (a cosine within SQUARE_COS of
        # 0, e.g. cos(-pi/2) = 6e-17) crosses it and is no wrong-way rider
        return ln is not None and math.cos(yaw) * ln.direction[0] + math.sin(yaw) * ln.direction[1] < -SQUARE_COS

    return [_ev("wrong_way", [a.track_id], s) for w in coarse.scan(a, against)
            for s in intervals_where(_on_state(a, against), *w)]


def stop_line_violations(a: Agent, centre, line: StopLine, plan: SignalPlan, coarse: _Coarse) -> list[Event]:
    d_in = inbound(line.arm)
    half = a.size[0] / 2

    def straddles(p, yaw, vel) -> bool:
        c, s = math.cos(yaw), math.sin(yaw)
        if c * d_in[0] + s * d_in[1] <= 0.0:                     # not driving inbound on this arm
            return False
        along, lat = arm_coords(centre, line.arm, p)
        if not 0.0 <= lat <= ROAD_HALF:
            return False
        head = (c * d_in[0] + s * d_in[1]) * half                 # the front's along offset (towards the centre)
        return along - head < line.along <= along + head

    out = []
    for w in coarse.scan(a, straddles):
        for s in intervals_where(_on_state(a, straddles), *w):
            if s[0] > 0.0 and plan.state(line.arm, s[0]) == "red":
                out.append(_ev("stop_line_violation", [a.track_id], s))
    return out


def jaywalking(p: Agent, centre, crossings: list[Crossing], coarse: _Coarse) -> list[Event]:
    polys = [np.asarray(c.polygon, float) for c in crossings]

    def jay(q, yaw, vel) -> bool:
        return on_carriageway(centre, q) and not any(_inside(P, q[:2]) for P in polys)

    return [_ev("jaywalking", [p.track_id], s) for w in coarse.scan(p, jay)
            for s in intervals_where(_on_state(p, jay), *w)]


def derive_events(agents: list[Agent], centre, lanes: list[Lane], crossings: list[Crossing],
                  stop_lines: list[StopLine], plan: SignalPlan, t1: float) -> list[Event]:
    """All events of the clip [0, t1], sorted by (t_start, type, actors)."""
    coarse = _Coarse(agents, t1)
    out: list[Event] = []
    for i, a in enumerate(agents):
        for b in agents[i + 1:]:
            if a.category in VEHICLES or b.category in VEHICLES:
                for w in coarse.near(a, b, 0.0):
                    out += collisions(a, b, *w)
    for v in (a for a in agents if a.category in MOTOR):
        for u in (a for a in agents if a.category in VULNERABLE):
            for w in coarse.near(v, u, NEAR_MISS_GAP_M):
                out += near_misses(v, u, *w)
    for a in (a for a in agents if a.category in VEHICLES):
        out += wrong_way(a, lanes, coarse)
        for line in stop_lines:
            out += stop_line_violations(a, centre, line, plan, coarse)
    for p in (a for a in agents if a.category == "person"):
        out += jaywalking(p, centre, crossings, coarse)
    return sorted(out, key=lambda e: (e.t_start, e.type, e.actors))
