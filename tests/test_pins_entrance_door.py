"""Pins of blender_envs/infra/entrance_door.py: the door's knots (closed at 0, microsecond knot
times, back-to-back openings refused with the times named), its angle before, between and after
the knots, and the panel's angular velocity as the derivative of its heading."""
from __future__ import annotations

import math

import numpy as np
import pytest

from blender_envs.infra.entrance_door import OPEN_DEG, Swing, swing_knots


def _swing(times, angles, direction=-1) -> Swing:
    return Swing(hinge=[0.5, 0.125], radius=0.48, z=1.05, yaw0_deg=180.0, direction=direction,
                 times=times, angles_deg=angles)


def test_knots_of_a_door_closed_but_for_two_openings():
    times, angles = swing_knots([(15.0, 1.0, 2.0, 1.5), (5.0, 1.2, 6.0, 1.8)])
    assert times == [0.0, 5.0, 6.2, 12.2, 14.0, 15.0, 16.0, 18.0, 19.5]
    assert angles == [0.0, 0.0, OPEN_DEG, OPEN_DEG, 0.0, 0.0, OPEN_DEG, OPEN_DEG, 0.0]


def test_knot_times_are_stored_to_the_microsecond():
    times, _ = swing_knots([(1.0000004, 1.0, 1.0, 1.0)])
    assert times == [0.0, 1.0, 2.0, 3.0, 4.0]
    times, _ = swing_knots([(0.1, 0.2, 0.1, 0.7)])
    assert times == [0.0, 0.1, 0.3, 0.4, 1.1]


def test_an_opening_when_the_last_one_shuts_or_at_the_start_is_refused():
    with pytest.raises(ValueError, match=r"door opening at 14\.0 s overlaps the previous one \(closed at 14\.0 s\)"):
        swing_knots([(5.0, 1.2, 6.0, 1.8), (14.0, 1.0, 1.0, 1.0)])
    with pytest.raises(ValueError, match=r"door opening at 13\.0 s overlaps the previous one \(closed at 14\.0 s\)"):
        swing_knots([(5.0, 1.2, 6.0, 1.8), (13.0, 1.0, 1.0, 1.0)])
    with pytest.raises(ValueError, match=r"closed at 0\.0 s"):
        swing_knots([(0.0, 1.0, 1.0, 1.0)])
    assert swing_knots([(5.0, 1.2, 6.0, 1.8), (14.000001, 1.0, 1.0, 1.0)])[0][-1] == 17.000001


def test_angle_before_the_clip_is_the_angle_at_zero_and_constant_after_the_last_knot():
    s = _swing([0.0, 2.0, 3.0], [0.0, 90.0, 30.0])
    assert s.angle(0.5) == (22.5, 45.0)
    assert s.angle(-1.0) == (0.0, 45.0)
    assert s.angle(2.5) == (60.0, -60.0)
    assert s.angle(3.0) == (30.0, 0.0) and s.angle(10.0) == (30.0, 0.0)


@pytest.mark.parametrize("direction", [1, -1])
def test_angular_velocity_is_the_derivative_of_the_heading(direction):
    s = _swing([0.0, 2.0, 4.0], [0.0, 90.0, 90.0], direction)
    for t in (0.5, 1.0, 1.7):
        _, yaw, _, omega = s.state(t)
        h = 1e-6
        dyaw = (s.state(t + h)[1] - s.state(t - h)[1]) / (2 * h)
        assert omega.tolist() == [0.0, 0.0, pytest.approx(dyaw, abs=1e-6)]
        assert omega[2] == pytest.approx(direction * math.radians(45.0))
        assert yaw == pytest.approx(math.radians(180.0 + direction * 45.0 * t))
    assert s.state(3.0)[3].tolist() == [0.0, 0.0, 0.0] and np.all(s.state(3.0)[2] == 0.0)
