"""Events as data derived from trajectories, never from pixels.

Each event is a type, its actors (track ids) and [t_start, t_end] in seconds. An event
is the set of times where a predicate over the agents' analytic poses holds: the
predicate is sampled on a grid of `EVENT_GRID_S` and every change of truth value is
refined by bisection to `EVENT_TOL_S`, far below one frame (1/30 s), so the reported
times are exact for any interval longer than the grid step.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
from pydantic import BaseModel, ConfigDict

from geometry.timeline import Agent

EVENT_GRID_S = 1.0 / 240.0   # coarse sampling: events shorter than this can be missed
EVENT_TOL_S = 1e-6           # bisection tolerance of every boundary
TIME_DECIMALS = 6            # event times are stored rounded to the microsecond


class Event(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: str
    actors: list[str]
    t_start: float
    t_end: float
    zone: str | None = None      # zone entries only: the zone's name (actors are track ids)


def _refine(pred: Callable[[float], bool], a: float, b: float) -> float:
    """The switch time of `pred` in [a, b] (pred(a) != pred(b)), by bisection."""
    pa = pred(a)
    # a fixed count of halvings (down to EVENT_TOL_S), not a while loop on the width: no edit of it can hang
    halvings = max(0, math.ceil(math.log2((b - a) / EVENT_TOL_S))) if b > a else 0
    for _ in range(halvings):
        m = 0.5 * (a + b)
        if pred(m) == pa:
            a = m
        else:
            b = m
    return 0.5 * (a + b)


def intervals_where(pred: Callable[[float], bool], t0: float, t1: float) -> list[tuple[float, float]]:
    """Maximal [start, end] sub-intervals of [t0, t1] where `pred(t)` is true."""
    n = max(1, int(np.ceil((t1 - t0) / EVENT_GRID_S)))
    ts = np.linspace(t0, t1, n + 1)
    vals = [bool(pred(float(t))) for t in ts]
    out, start = [], (t0 if vals[0] else None)
    for k in range(1, len(ts)):
        if vals[k] == vals[k - 1]:
            continue
        edge = _refine(pred, float(ts[k - 1]), float(ts[k]))
        if vals[k]:
            start = edge
        else:
            out.append((start, edge))
            start = None
    if start is not None:
        out.append((start, t1))
    return out


def _event(kind: str, actors: list[str], span: tuple[float, float], zone: str | None = None) -> Event:
    return Event(type=kind, actors=actors, t_start=round(span[0], TIME_DECIMALS),
                 t_end=round(span[1], TIME_DECIMALS), zone=zone)


def ground_distance(a: Agent, b: Agent, t: float) -> float:
    """Centre-to-centre distance on the ground plane (metres)."""
    return float(np.linalg.norm(a.position(t)[:2] - b.position(t)[:2]))


def _separated(p: np.ndarray, q: np.ndarray) -> bool:
    """Separating-axis test of two convex polygons (ground footprints)."""
    for poly in (p, q):
        edges = np.roll(poly, -1, axis=0) - poly
        for e in edges:
            n = np.array([-e[1], e[0]])
            pp, qq = p @ n, q @ n
            if pp.max() < qq.min() or qq.max() < pp.min():
                return True
    return False


def footprints_overlap(a: Agent, b: Agent, t: float) -> bool:
    # farther apart than the two footprints can reach from their positions: they cannot touch
    # (a fallen body's outline reaches much farther than its upright half-diagonal)
    if ground_distance(a, b, t) > a.ground_reach() + b.ground_reach():
        return False
    return not _separated(a.footprint(t), b.footprint(t))


def collisions(a: Agent, b: Agent, t0: float, t1: float) -> list[Event]:
    """Intervals where the two footprints overlap."""
    spans = intervals_where(lambda t: footprints_overlap(a, b, t), t0, t1)
    return [_event("collision", [a.track_id, b.track_id], s) for s in spans]


def near_misses(a: Agent, b: Agent, threshold_m: float, t0: float, t1: float) -> list[Event]:
    """Intervals where the centres are closer than `threshold_m` on the ground and the
    footprints never touch during the interval (a touch makes it a collision instead)."""
    spans = intervals_where(lambda t: ground_distance(a, b, t) < threshold_m, t0, t1)
    keep = [s for s in spans if not collisions(a, b, s[0], s[1])]
    return [_event("near_miss", [a.track_id, b.track_id], s) for s in keep]


def _inside(poly: np.ndarray, p: np.ndarray) -> bool:
    """Point in a simple polygon (even-odd rule)."""
    x, y = p
    inside = False
    for (x0, y0), (x1, y1) in zip(poly, np.roll(poly, -1, axis=0)):
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


def zone_entries(agent: Agent, zone: list[list[float]], zone_name: str, t0: float, t1: float) -> list[Event]:
    """Each stay of the agent's centre inside the ground polygon `zone`, from the
    boundary crossing in to the crossing out (or the clip's end); a stay that began
    before t0 is no entry and is left out."""
    poly = np.asarray(zone, float)
    spans = intervals_where(lambda t: _inside(poly, agent.position(t)[:2]), t0, t1)
    return [_event("zone_entry", [agent.track_id], s, zone_name) for s in spans if s[0] > t0]


def grid_windows(ts, hits) -> list[tuple[float, float]]:
    """Windows around the grid times where a coarse test hit: each hit widened to its
    neighbouring grid times, overlapping windows merged. A condition tested with a margin that
    covers one grid step is false outside these windows, so an exact search
    (`intervals_where`) needs to run only inside them."""
    out: list[list[float]] = []
    last = len(ts) - 1
    for i in np.flatnonzero(hits):
        a, b = float(ts[max(i - 1, 0)]), float(ts[min(i + 1, last)])
        if out and a <= out[-1][1]:
            out[-1][1] = b
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]
