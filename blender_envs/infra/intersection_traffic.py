"""Lane following: the Intelligent Driver Model on a fixed grid, as speed profiles the
timeline understands (no bpy).

Every road user of a lane moves along one straight path; its state is the arc length s
(front-to-back ordering along the path) and speed v. Followers obey IDM (Treiber et al.
2000) towards the one ahead and towards the approach's stop line while the signal shows
red, or amber once they can stop comfortably (a vehicle that cannot stop within
`B_STOP` at amber onset is committed and goes through). The update is ballistic with
the speed linear over each step (v' = max(0, v + a dt), s' = s + (v + v') dt / 2), which is
exactly what `geometry.timeline.SpeedProfile` integrates: the stored profile reproduces the
integrated positions at every knot. Scripted leaders (a red-light runner, a late braker)
enter with their own analytic profiles; for t < 0 (the warm-up) they are extrapolated at
their speed at 0.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from geometry.timeline import SpeedProfile

DT = 0.1                 # integration step and knot spacing (s)
WARMUP_S = 12.0          # followers start this long before the clip
B_STOP = 3.0             # m/s^2: at amber, a vehicle stops if it can within this deceleration
MAX_DECEL = 9.0          # m/s^2: physical limit of any brake
DELTA = 4.0


@dataclass(frozen=True)
class Idm:
    v0: float            # desired speed (m/s)
    T: float             # time headway (s)
    s0: float            # standstill gap to the one ahead (m)
    a: float             # maximum acceleration (m/s^2)
    b: float             # comfortable deceleration (m/s^2)
    s0_line: float = 1.0  # standstill gap to the stop line (m)

    def accel(self, v: float, gap: float, dv: float) -> float:
        """IDM acceleration at speed v, `gap` to the obstacle (bumper to bumper), closing speed dv."""
        s_star = self.s0 + max(0.0, v * self.T + v * dv / (2 * math.sqrt(self.a * self.b)))
        free = 1.0 - (v / self.v0) ** DELTA
        return self.a * (free - (s_star / max(gap, 1e-3)) ** 2)

    def line_accel(self, v: float, gap: float) -> float:
        s_star = self.s0_line + v * self.T + v * v / (2 * math.sqrt(self.a * self.b))
        return self.a * (1.0 - (v / self.v0) ** DELTA - (s_star / max(gap, 1e-3)) ** 2)


@dataclass
class LaneUser:
    """One road user of a lane: its length, and either an IDM driver with a state at
    t = -WARMUP_S or a scripted motion `s_of(t)`, `v_of(t)` (path arc length, speed)."""

    length: float
    idm: Idm | None = None
    s_start: float = 0.0
    v_start: float = 0.0
    s_of: Callable[[float], float] | None = None
    v_of: Callable[[float], float] | None = None


def integrate_lane(users: list[LaneUser], s_line: float, signal: Callable[[float], str],
                   t_end: float) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(times, s, v) on the grid from -WARMUP_S to t_end for each user, front one first
    (`users` ordered by decreasing s). `s_line`: the stop line's arc length; `signal(t)`
    -> 'green' | 'amber' | 'red'."""
    n = int(round((t_end + WARMUP_S) / DT))
    ts = -WARMUP_S + DT * np.arange(n + 1)
    out = []
    for k, u in enumerate(users):
        if u.idm is None:
            s = np.array([u.s_of(max(t, 0.0)) + (min(t, 0.0) * u.v_of(0.0)) for t in ts])
            v = np.array([u.v_of(max(t, 0.0)) for t in ts])
            out.append((ts, s, v))
            continue
        lead = out[k - 1] if k else None
        L_lead = users[k - 1].length if k else 0.0
        s, v = np.zeros(n + 1), np.zeros(n + 1)
        s[0], v[0] = u.s_start, u.v_start
        committed = False
        for i in range(n):
            t = ts[i]
            acc = u.idm.accel(v[i], 1e9, 0.0)
            if lead is not None:
                gap = lead[1][i] - s[i] - 0.5 * (u.length + L_lead)
                acc = min(acc, u.idm.accel(v[i], gap, v[i] - lead[2][i]))
            gap_line = s_line - (s[i] + 0.5 * u.length)
            state = signal(t)
            if state == "green":
                committed = False
            stop = False
            if gap_line > 0.0 and state != "green":
                if state == "red" and not committed:
                    stop = True
                elif not committed:
                    stop = v[i] * v[i] / (2 * gap_line) <= B_STOP
                    committed = not stop
            if stop:
                acc = min(acc, u.idm.line_accel(v[i], gap_line))
            acc = max(acc, -MAX_DECEL)
            v[i + 1] = max(0.0, v[i] + acc * DT)
            s[i + 1] = s[i] + 0.5 * (v[i] + v[i + 1]) * DT
        out.append((ts, s, v))
    return out


SIMPLIFY_MPS = 0.01     # a knot is dropped when the line through its neighbours misses it by less


def profile_from_grid(ts: np.ndarray, v: np.ndarray, decimals: int = 6) -> SpeedProfile:
    """The knots from t = 0 on as a SpeedProfile, keeping only the knots where the speed's
    slope changes by more than SIMPLIFY_MPS (a drop moves the car by < SIMPLIFY_MPS x the
    clip: under a centimetre), so cruising and standing cost two knots, not hundreds."""
    i0 = int(np.argmin(np.abs(ts)))
    t, x = ts[i0:] - ts[i0], v[i0:]
    keep = [0]
    for i in range(1, len(t) - 1):
        j = keep[-1]
        seg = slice(j + 1, i + 2)
        line = x[j] + (x[i + 1] - x[j]) * (t[seg] - t[j]) / (t[i + 1] - t[j])
        if np.max(np.abs(line - x[seg])) > SIMPLIFY_MPS:
            keep.append(i)
    keep.append(len(t) - 1)
    times = [round(float(t[i]), decimals) + 0.0 for i in keep]
    speeds = [round(float(x[i]), decimals) + 0.0 for i in keep]
    return SpeedProfile(times=times, speeds=speeds)
