"""More pinned motion for geometry/timeline.py: a carried load's rigid offset and velocity at a
yaw that is neither axis, its lift ramps at a lift time other than 1 s (and the vertical speed at
each ramp's ends), a fall of a duration other than 1 s, a fallen body's pose as a rigid 4x4, and
the ground hull against scipy's. Unit-level, no Blender."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.spatial import ConvexHull

from geometry.timeline import (Arc, Carried, Fall, FallingAgent, Line, Path, PathTrajectory, convex_hull_2d,
                               profile_from_phases)


def _straight(heading_deg=30.0, speed=2.0):
    return PathTrajectory(path=Path(start=[1.0, -2.0], heading_deg=heading_deg, segments=[Line(length=50.0)]),
                          speed=profile_from_phases(speed, []), z=1.0)


def _turning():
    # radius 4 m at 1 m/s: yaw rate 0.25 rad/s, left turn from heading 20 deg
    return PathTrajectory(path=Path(start=[0.5, 0.5], heading_deg=20.0, segments=[Arc(radius=4.0, angle_deg=300.0)]),
                          speed=profile_from_phases(1.0, []), z=1.0)


# ------------------------------------------------------------------ carried loads

def test_carried_offset_is_rotated_by_the_carrier_yaw():
    # yaw 30 deg, offset 2 m ahead and 1 m to the left: world offset R(30) (2, 1)
    c = Carried(carrier=_straight(), offset=[2.0, 1.0], z=0.3, t_pick=0.0, lift_m=0.0, lift_s=1.0)
    p, yaw, _, _ = c.carrier.state(1.0)
    cs, sn = math.cos(math.radians(30.0)), math.sin(math.radians(30.0))
    want = [p[0] + 2.0 * cs - 1.0 * sn, p[1] + 2.0 * sn + 1.0 * cs, 0.3]
    assert np.allclose(c.state(1.0)[0], want, atol=1e-12)
    assert c.state(1.0)[1] == pytest.approx(yaw)
    # the distance from the carrier's centre is the offset's length, whatever the yaw
    assert math.hypot(*(c.state(1.0)[0][:2] - p[:2])) == pytest.approx(math.sqrt(5.0))


@pytest.mark.parametrize("t", [0.3, 1.7, 4.0, 6.5])
def test_carried_velocity_is_the_derivative_of_its_position(t):
    c = Carried(carrier=_turning(), offset=[1.5, 0.7], z=0.2, t_pick=0.0, lift_m=0.0, lift_s=1.0)
    h = 1e-5
    numeric = (c.state(t + h)[0] - c.state(t - h)[0]) / (2 * h)
    pos, yaw, vel, omega = c.state(t)
    assert np.allclose(vel, numeric, atol=1e-6)
    assert np.allclose(omega, [0.0, 0.0, 0.25])
    # the load turns with the carrier: its position stays on the carrier's body frame
    p = c.carrier.state(t)[0]
    assert np.allclose(pos[:2] - p[:2], [1.5 * math.cos(yaw) - 0.7 * math.sin(yaw),
                                         1.5 * math.sin(yaw) + 0.7 * math.cos(yaw)])


def test_carried_lift_ramps_at_lift_m_over_lift_s():
    # lift 0.2 m over 0.5 s: 0.4 m/s up after the pick-up at 1 s, down before the drop at 4 s
    c = Carried(carrier=_straight(), offset=[1.0, 0.0], z=0.3, t_pick=1.0, t_drop=4.0, lift_m=0.2, lift_s=0.5)
    assert c.state(1.25)[0][2] == pytest.approx(0.4)                     # half way up
    assert c.state(1.25)[2][2] == pytest.approx(0.4)
    assert c.state(2.0)[0][2] == pytest.approx(0.5)                      # fully lifted
    assert c.state(3.75)[0][2] == pytest.approx(0.4)                     # half way down
    assert c.state(3.75)[2][2] == pytest.approx(-0.4)
    # velocity and angular velocity are 3-vectors of zeros while at rest, before and after
    for t in (0.5, 9.0):
        assert c.state(t)[2].shape == (3,) and c.state(t)[3].shape == (3,)
        assert np.array_equal(c.state(t)[2], np.zeros(3)) and np.array_equal(c.state(t)[3], np.zeros(3))


@pytest.mark.parametrize("t, z", [(1.0, 0.3), (1.5, 0.5), (3.5, 0.5), (4.0, 0.3)])
def test_carried_vertical_speed_is_zero_at_every_ramp_end(t, z):
    # the knots of the lift (pick-up, lifted, lowering starts, drop) belong to the flat side
    c = Carried(carrier=_straight(), offset=[1.0, 0.0], z=0.3, t_pick=1.0, t_drop=4.0, lift_m=0.2, lift_s=0.5)
    pos, _, vel, _ = c.state(t)
    assert pos[2] == pytest.approx(z)
    assert vel[2] == 0.0
    # still moving with the carrier at those instants (held), so the horizontal speed is the carrier's
    assert math.hypot(vel[0], vel[1]) == pytest.approx(2.0)


# ------------------------------------------------------------------ falls

def _faller(duration_s=2.0, angle_deg=90.0):
    traj = PathTrajectory(path=Path(start=[0.0, 0.0], heading_deg=40.0, segments=[Line(length=1.0)]),
                          speed=profile_from_phases(0.0, [("stop", 1.0)]), z=0.9)
    return FallingAgent(track_id="p", category="person", mesh="person", size=[0.4, 0.5, 1.8], trajectory=traj,
                        fall=Fall(t_start=1.0, duration_s=duration_s, angle_deg=angle_deg))


def test_fall_angle_over_a_two_second_fall():
    f = _faller(duration_s=2.0).fall
    assert f.angle(2.0) == pytest.approx(math.radians(90.0) * (1 - math.cos(math.pi / 4)))   # half way
    assert f.angle(1.5) == pytest.approx(math.radians(90.0) * (1 - math.cos(math.pi / 8)))   # a quarter
    assert f.angle(3.0) == pytest.approx(math.pi / 2) and f.angle(1.0) == 0.0


@pytest.mark.parametrize("t", [0.0, 1.4, 2.0, 2.7, 5.0])
def test_falling_pose_is_a_rigid_4x4(t):
    M = _faller(angle_deg=70.0).pose(t)
    assert M.shape == (4, 4)
    assert np.array_equal(M[3], [0.0, 0.0, 0.0, 1.0])
    R = M[:3, :3]
    assert np.allclose(R.T @ R, np.eye(3), atol=1e-12) and np.linalg.det(R) == pytest.approx(1.0)
    # the box keeps its size: every edge of the 8 corners is one of the three extents
    corners = _faller(angle_deg=70.0).box_corners(t)
    assert np.linalg.norm(corners[1] - corners[0]) == pytest.approx(1.8)   # z extent
    assert np.linalg.norm(corners[2] - corners[0]) == pytest.approx(0.5)   # y extent
    assert np.linalg.norm(corners[4] - corners[0]) == pytest.approx(0.4)   # x extent


# ------------------------------------------------------------------ the ground hull

@pytest.mark.parametrize("seed", range(6))
def test_convex_hull_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    pts = rng.normal(size=(25, 2)) * [3.0, 1.0] + [10.0, -20.0]    # off the origin, x and y different
    hull = convex_hull_2d(pts)
    ref = pts[ConvexHull(pts).vertices]                            # counter-clockwise in 2-D
    assert len(hull) == len(ref)
    start = int(np.argmin(ref[:, 0]))                              # scipy starts anywhere; ours at min (x, y)
    assert np.allclose(hull, np.roll(ref, -start, axis=0))


def test_convex_hull_of_three_points_is_counter_clockwise():
    tri = convex_hull_2d(np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]]))   # sorted order is clockwise
    assert tri.tolist() == [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
    assert convex_hull_2d(np.array([[0.0, 0.0], [2.0, 2.0], [1.0, 1.0]])).tolist() == [[0.0, 0.0], [2.0, 2.0]]


def test_convex_hull_merges_corners_closer_than_1e_12():
    # a fallen box's corners carry float noise of ~1e-16; coordinates are rounded to 12 decimals, so a
    # corner 3e-13 off another is the same point and the hull keeps the clean coordinates
    pts = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0 + 3e-13, 1.0 + 3e-13]])
    assert convex_hull_2d(pts).tolist() == [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
