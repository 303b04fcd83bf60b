"""The entrance clip's events, derived from the agents' analytic motion, the door's angle
and the access log (the grant times), never from the script that placed them or from pixels.

  * opening        the door is open while its angle is > 0; an opening is *granted* when
                   a grant was issued at most GRANT_LAG_S before it began;
  * passage        a person's ground point inside the doorway's threshold box (the door
                   opening's width, THRESHOLD_M either side of the door line); inward when
                   it enters from the lobby side and leaves on the secure side; its
                   crossing instant is when the ground point crosses the door line;
  * badge_use      a grant issued while a person's ground point is within READER_REACH_M
                   of the reader's floor point (the nearest such person); the interval is
                   that person's stay within reach;
  * tailgating     a second (third...) inward crossing inside one granted opening; actors
                   [the opening's first crosser, the tailgater], the tailgater's passage;
  * unauthorized_entry  an inward crossing while no granted opening is under way (the
                   door forced, or held open by someone leaving); the person's passage;
  * loitering      a person's ground point inside the loiter region continuously for longer
                   than LOITER_S; the whole stay (within the clip), `zone` names the region.
Every boundary is found by `geometry.events.intervals_where` (1/240 s grid, bisection to
1e-6 s) inside windows found by a COARSE_S scan with a margin.
"""
from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel, ConfigDict

from geometry.events import Event, TIME_DECIMALS, _inside, grid_windows, intervals_where
from geometry.timeline import Agent

READER_REACH_M = 0.9       # person centre to the reader's floor point: an arm's reach from the stand spot
GRANT_LAG_S = 1.0          # a grant opens the door within this (the lock releases in 0.3 s)
THRESHOLD_M = 0.5          # half-depth of the doorway's threshold box
LOITER_S = 10.0            # a stay in the loiter region longer than this is loitering
COARSE_S = 0.05
COARSE_MARGIN_M = 0.5      # > 2 m/s (a brisk walk) x COARSE_S, with room to spare


class DoorGeometry(BaseModel):
    """Where the door is: the door line y = `line_y` (the wall's middle plane, the secure
    side at larger y) and the opening between x0 and x1; the reader's floor point."""

    model_config = ConfigDict(extra="forbid")
    line_y: float
    x0: float
    x1: float
    reader_xy: list[float]


def _ev(kind: str, actors: list[str], span, zone: str | None = None) -> Event:
    return Event(type=kind, actors=actors, t_start=round(span[0], TIME_DECIMALS),
                 t_end=round(span[1], TIME_DECIMALS), zone=zone)


class _Coarse:
    """Ground positions on a COARSE_S grid and the windows around grid hits: a condition
    false at a grid time with the margin is false up to the neighbouring grid times."""

    def __init__(self, agents: list[Agent], t1: float):
        n = max(1, int(math.ceil(t1 / COARSE_S)))
        self.ts = np.linspace(0.0, t1, n + 1)
        self.xy = {a.track_id: np.array([a.position(float(t))[:2] for t in self.ts]) for a in agents}

    def windows(self, hits: np.ndarray) -> list[tuple[float, float]]:
        return grid_windows(self.ts, hits)

    def in_box(self, a: Agent, lo, hi) -> list[tuple[float, float]]:
        p = self.xy[a.track_id]
        lo, hi = np.asarray(lo) - COARSE_MARGIN_M, np.asarray(hi) + COARSE_MARGIN_M
        return self.windows(np.all((p >= lo) & (p <= hi), axis=1))


def openings(door, t1: float) -> list[tuple[float, float]]:
    """Intervals where the door stands open (angle > 0)."""
    return intervals_where(lambda t: door.opening_deg(t) > 0.0, 0.0, t1)


def granted(opening: tuple[float, float], grants: list[float]) -> bool:
    return any(opening[0] - GRANT_LAG_S <= g <= opening[0] for g in grants)


def _ground(a: Agent, t: float) -> np.ndarray:
    return a.position(t)[:2]


def passages(person: Agent, g: DoorGeometry, coarse: _Coarse) -> list[tuple[float, float, float, int]]:
    """(t_start, t_end, crossing instant, +1 inward / -1 outward) of every time the person
    goes through the threshold box from one side of the door line to the other."""
    lo, hi = (g.x0, g.line_y - THRESHOLD_M), (g.x1, g.line_y + THRESHOLD_M)

    def inside(t: float) -> bool:
        x, y = _ground(person, t)
        return bool(lo[0] <= x <= hi[0] and lo[1] <= y <= hi[1])

    out = []
    for w in coarse.in_box(person, lo, hi):
        for s in intervals_where(inside, *w):
            y0, y1 = _ground(person, s[0])[1], _ground(person, s[1])[1]
            if (y0 - g.line_y) * (y1 - g.line_y) >= 0:
                continue                              # stepped in and back out on one side
            side = 1 if y1 > y0 else -1
            past = intervals_where(lambda t: side * (_ground(person, t)[1] - g.line_y) > 0, *s)
            cross = past[0][0]                        # the first time over the line (a dithering walker: its first)
            out.append((s[0], s[1], cross, side))
    return out


def door_entries(people: list[Agent], door, grants: list[float], g: DoorGeometry, coarse: _Coarse,
                 t1: float) -> list[Event]:
    """Tailgating and unauthorized entries from the inward crossings and the door's openings."""
    ops = openings(door, t1)
    crossings = sorted((c, s0, s1, p.track_id) for p in people for s0, s1, c, side in passages(p, g, coarse)
                       if side > 0)
    out = []
    first: dict[int, str] = {}
    for c, s0, s1, tid in crossings:
        k = next((i for i, (a, b) in enumerate(ops) if a <= c <= b), None)
        if k is None or not granted(ops[k], grants):
            out.append(_ev("unauthorized_entry", [tid], (s0, s1)))
        elif k in first:
            out.append(_ev("tailgating", [first[k], tid], (s0, s1)))
        else:
            first[k] = tid
    return out


def badge_uses(people: list[Agent], grants: list[float], g: DoorGeometry, coarse: _Coarse) -> list[Event]:
    reader = np.asarray(g.reader_xy, float)
    out = []
    for gt in grants:
        near = [(float(np.linalg.norm(_ground(p, gt) - reader)), p) for p in people]
        near = sorted((d, p.track_id, p) for d, p in near if d < READER_REACH_M)
        if not near:
            continue
        p = near[0][2]
        w = coarse.in_box(p, reader - READER_REACH_M, reader + READER_REACH_M)
        spans = [s for win in w for s in intervals_where(
            lambda t: float(np.linalg.norm(_ground(p, t) - reader)) < READER_REACH_M, *win)]
        (span,) = [s for s in spans if s[0] <= gt <= s[1]]
        out.append(_ev("badge_use", [p.track_id], span))
    return out


def loiterings(people: list[Agent], region: tuple[str, list[list[float]]], coarse: _Coarse) -> list[Event]:
    name, poly = region
    P = np.asarray(poly, float)
    out = []
    for p in people:
        for w in coarse.in_box(p, P.min(axis=0), P.max(axis=0)):
            for s in intervals_where(lambda t: _inside(P, _ground(p, t)), *w):
                if s[1] - s[0] > LOITER_S:
                    out.append(_ev("loitering", [p.track_id], s, name))
    return out


def door_events(agents: list[Agent], grants: list[float], g: DoorGeometry, t1: float) -> list[Event]:
    """The door's events of the clip [0, t1] (badge uses, tailgatings, unauthorized entries),
    sorted by (t_start, type, actors)."""
    people = [a for a in agents if a.category == "person"]
    (door,) = [a for a in agents if a.category == "door"]
    coarse = _Coarse(people, t1)
    within = [gt for gt in grants if 0.0 <= gt <= t1]        # a grant outside the clip is no badge use in it
    out = badge_uses(people, within, g, coarse) + door_entries(people, door, grants, g, coarse, t1)
    return sorted(out, key=lambda e: (e.t_start, e.type, e.actors))


def derive_events(agents: list[Agent], grants: list[float], g: DoorGeometry,
                  loiter_region: tuple[str, list[list[float]]], t1: float) -> list[Event]:
    """All events of the clip [0, t1], sorted by (t_start, type, actors)."""
    people = [a for a in agents if a.category == "person"]
    out = door_events(agents, grants, g, t1) + loiterings(people, loiter_region, _Coarse(people, t1))
    return sorted(out, key=lambda e: (e.t_start, e.type, e.actors))
