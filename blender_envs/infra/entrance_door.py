"""The entrance's door as a timed agent (no bpy): a panel swinging about its hinge, its
opening angle a piecewise-linear function of time, so the farm poses it per frame like
any other agent and the events read its angle from the same timeline.

`Swing` is a trajectory (the `state(t)` contract of `geometry.timeline`): the panel's box
centre lies `radius` from the hinge along the panel, and the panel's heading is
`yaw0_deg + direction * angle(t)`. `DoorAgent` is an `Agent` whose trajectory is a
`Swing`; `EntranceTimeline` is the clip timeline whose agents may be doors (the shared
`Timeline` knows only path, stationary and carried trajectories). Kept here rather than
in `geometry/` so the shared timeline stays untouched by this scene.
"""
from __future__ import annotations

import bisect
import math
from typing import Literal, Union

import numpy as np
from pydantic import BaseModel, ConfigDict, model_validator

from geometry.clip import Timeline
from geometry.timeline import Agent, FallingAgent

OPEN_DEG = 90.0


class Swing(BaseModel):
    """A panel turning about a vertical hinge at `hinge` ([x, y]): angle (deg) linear
    between the knots (`times` increasing from 0, `angles_deg` >= 0), constant after the last."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["swing"] = "swing"
    hinge: list[float]
    radius: float                  # hinge axis to the panel's box centre, along the panel
    z: float                       # the box centre's height
    yaw0_deg: float                # the panel's heading (hinge -> latch) when closed
    direction: int                 # +1: opens counter-clockwise, -1: clockwise
    times: list[float]
    angles_deg: list[float]

    @model_validator(mode="after")
    def _check(self) -> "Swing":
        if len(self.hinge) != 2 or self.direction not in (-1, 1):
            raise ValueError("a swing needs an [x, y] hinge and direction +-1")
        if not self.times or len(self.times) != len(self.angles_deg):
            raise ValueError("times and angles_deg must be non-empty and of equal length")
        if self.times[0] != 0.0 or any(b <= a for a, b in zip(self.times, self.times[1:])):
            raise ValueError("knot times must start at 0 and increase")
        if any(not 0.0 <= a <= OPEN_DEG for a in self.angles_deg):
            raise ValueError(f"angles must lie in [0, {OPEN_DEG}]")
        return self

    def angle(self, t: float) -> tuple[float, float]:
        """(opening angle deg, its rate deg/s) at t."""
        t = max(float(t), 0.0)
        i = max(0, bisect.bisect_right(self.times, t) - 1)
        if i == len(self.times) - 1:
            return float(self.angles_deg[i]), 0.0
        rate = (self.angles_deg[i + 1] - self.angles_deg[i]) / (self.times[i + 1] - self.times[i])
        return float(self.angles_deg[i] + rate * (t - self.times[i])), float(rate)

    def state(self, t: float) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
        a, rate = self.angle(t)
        yaw = math.radians(self.yaw0_deg + self.direction * a)
        wz = math.radians(self.direction * rate)
        r = np.array([math.cos(yaw), math.sin(yaw)]) * self.radius
        pos = np.array([self.hinge[0] + r[0], self.hinge[1] + r[1], self.z])
        vel = np.array([-wz * r[1], wz * r[0], 0.0])       # w x r
        return pos, yaw, vel, np.array([0.0, 0.0, wz])


class DoorAgent(Agent):
    """A door panel: an agent whose box (x along the panel, y its thickness) swings."""

    trajectory: Swing  # type: ignore[assignment]

    def opening_deg(self, t: float) -> float:
        return self.trajectory.angle(t)[0]


class EntranceTimeline(Timeline):
    agents: list[Union[DoorAgent, FallingAgent, Agent]]  # type: ignore[assignment]


def swing_knots(openings: list[tuple[float, float, float, float]]) -> tuple[list[float], list[float]]:
    """Knots of a door that is closed except for `openings`, each (t_open, open_s, hold_s,
    close_s): it swings from 0 to OPEN_DEG over open_s from t_open, stands open for hold_s,
    closes over close_s. Openings must not overlap (a door closes before it opens again)."""
    times, angles = [0.0], [0.0]
    for t0, open_s, hold_s, close_s in sorted(openings):
        if t0 <= times[-1]:
            raise ValueError(f"door opening at {t0} s overlaps the previous one (closed at {times[-1]} s)")
        for t, a in ((t0, 0.0), (t0 + open_s, OPEN_DEG), (t0 + open_s + hold_s, OPEN_DEG),
                     (t0 + open_s + hold_s + close_s, 0.0)):
            times.append(round(t, 6))
            angles.append(a)
    return times, angles
