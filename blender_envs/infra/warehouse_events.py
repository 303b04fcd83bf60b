"""The warehouse clip's events, derived from the agents' analytic motion (never from the
script that placed them, never from pixels).

  * collision   two of {person, forklift, amr} whose ground footprints overlap;
  * near_miss   a person and a *moving* forklift whose box centres are closer than
                NEAR_MISS_M on the ground, with no contact during the interval;
  * pickup/drop a pallet rising off / sinking onto the floor (its vertical speed > 0 / < 0);
                the forklift is the one whose footprint holds the pallet then;
  * zone_entry  a person's ground point (the centre of its footprint) inside a
                restricted zone's polygon, from the crossing in to the crossing out;
  * fall        a person's body tilting from upright until it lies (tilt strictly
                between 0 and its final angle).
Every boundary is found by `geometry.events.intervals_where` (grid + bisection to 1e-6 s).
"""
from __future__ import annotations

import math

import numpy as np

from geometry.events import (Event, TIME_DECIMALS, collisions, footprints_overlap, grid_windows,
                             ground_distance, intervals_where, zone_entries)
from geometry.timeline import Agent, FallingAgent

NEAR_MISS_M = 1.5          # centre distance on the ground (forklift half-width 0.58 + person 0.28 = contact at 0.86)
MOVING_MPS = 0.1           # a forklift slower than this is standing, and a person near it is no near miss
MOVERS = ("person", "forklift", "amr")
COARSE_S = 0.05            # coarse scan that finds the windows where an event may happen
COARSE_MARGIN_M = 1.0      # > (3.5 + 3.5 m/s) * COARSE_S plus rounding: outside a window nothing can touch


def _ev(kind: str, actors: list[str], span, zone: str | None = None) -> Event:
    return Event(type=kind, actors=actors, t_start=round(span[0], TIME_DECIMALS), t_end=round(span[1], TIME_DECIMALS),
                 zone=zone)


def _half_diag(a: Agent) -> float:
    return 0.5 * math.sqrt(sum(s * s for s in a.size))   # 3-D: also bounds a fallen body's footprint


class _Coarse:
    """Every agent's ground position on the coarse grid, and the windows around the grid
    times where a condition may hold: a condition false at a grid time (with the
    margin) is false up to the neighbouring grid times, so the exact search
    (`intervals_where`) runs only inside the windows and finds the same intervals."""

    def __init__(self, agents: list[Agent], t1: float):
        n = max(1, int(math.ceil(t1 / COARSE_S)))
        self.ts = np.linspace(0.0, t1, n + 1)
        self.xy = {a.track_id: np.array([a.position(float(t))[:2] for t in self.ts]) for a in agents}

    def windows(self, hits: np.ndarray) -> list[tuple[float, float]]:
        return grid_windows(self.ts, hits)

    def near(self, a: Agent, b: Agent, reach: float) -> list[tuple[float, float]]:
        d = np.linalg.norm(self.xy[a.track_id] - self.xy[b.track_id], axis=1)
        return self.windows(d < reach + COARSE_MARGIN_M)

    def near_polygon(self, a: Agent, poly: np.ndarray) -> list[tuple[float, float]]:
        lo, hi = poly.min(axis=0) - COARSE_MARGIN_M, poly.max(axis=0) + COARSE_MARGIN_M
        p = self.xy[a.track_id]
        return self.windows(np.all((p >= lo) & (p <= hi), axis=1))


def speed(a: Agent, t: float) -> float:
    return float(np.linalg.norm(a.velocity(t)[:2]))


def tilt(a: Agent, t: float) -> float:
    """Angle (rad) between the body's up axis and the world's (atan2: exact near upright,
    where acos of a cosine within 1e-16 of 1 is 0)."""
    up = a.pose(t)[:3, 2]
    return math.atan2(float(np.hypot(up[0], up[1])), float(up[2]))


def near_misses_moving(person: Agent, forklift: Agent, t0: float, t1: float) -> list[Event]:
    def near(t: float) -> bool:
        return ground_distance(person, forklift, t) < NEAR_MISS_M and speed(forklift, t) > MOVING_MPS

    spans = intervals_where(near, t0, t1)
    return [_ev("near_miss", [person.track_id, forklift.track_id], s) for s in spans
            if not collisions(person, forklift, s[0], s[1])]


def _holder(pallet: Agent, forklifts: list[Agent], t: float) -> str | None:
    for f in forklifts:
        if footprints_overlap(pallet, f, t):
            return f.track_id
    return None


def pallet_moves(pallet: Agent, forklifts: list[Agent], coarse: _Coarse) -> list[Event]:
    out = []
    vz = np.array([float(pallet.velocity(float(t))[2]) for t in coarse.ts])
    for kind, sign in (("pickup", 1.0), ("drop", -1.0)):
        for w in coarse.windows(sign * vz > 0.0):
            for s in intervals_where(lambda t: sign * float(pallet.velocity(t)[2]) > 0.0, *w):
                holder = _holder(pallet, forklifts, 0.5 * (s[0] + s[1]))
                out.append(_ev(kind, ([holder] if holder else []) + [pallet.track_id], s))
    return out


def falls(person: Agent, coarse: _Coarse) -> list[Event]:
    if not isinstance(person, FallingAgent):
        return []
    full = math.radians(person.fall.angle_deg)

    def falling(t: float) -> bool:
        return 0.0 < tilt(person, t) < full - 1e-9

    hits = np.array([falling(float(t)) for t in coarse.ts])
    return [_ev("fall", [person.track_id], s) for w in coarse.windows(hits) for s in intervals_where(falling, *w)]


def derive_events(agents: list[Agent], zones: list[tuple[str, list[list[float]]]], t1: float) -> list[Event]:
    """All events of the clip [0, t1], sorted by (t_start, type, actors). Motion events
    shorter than COARSE_S (a fall, a lift) can be missed; none of the scripts makes one."""
    coarse = _Coarse(agents, t1)
    movers = [a for a in agents if a.category in MOVERS]
    people = [a for a in agents if a.category == "person"]
    forklifts = [a for a in agents if a.category == "forklift"]
    out: list[Event] = []
    for i, a in enumerate(movers):
        for b in movers[i + 1:]:
            for w in coarse.near(a, b, _half_diag(a) + _half_diag(b)):
                out += collisions(a, b, *w)
    for p in people:
        for f in forklifts:
            for w in coarse.near(p, f, NEAR_MISS_M):
                out += near_misses_moving(p, f, *w)
        for name, poly in zones:
            for w in coarse.near_polygon(p, np.asarray(poly, float)):
                out += zone_entries(p, poly, name, *w)
        out += falls(p, coarse)
    for pallet in (a for a in agents if a.category == "pallet"):
        out += pallet_moves(pallet, forklifts, coarse)
    return sorted(out, key=lambda e: (e.t_start, e.type, e.actors))
