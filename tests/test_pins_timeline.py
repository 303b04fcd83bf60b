"""Pinned values for geometry/timeline.py: hand-computed speeds, distances, poses and box corners,
and clothoid positions checked against a numeric integral of the heading (scipy quad)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import quad

from geometry.timeline import (Agent, Arc, Carried, Clothoid, Fall, FallingAgent, Line, Path, PathTrajectory,
                               SpeedProfile, Stationary, convex_hull_2d, profile_from_phases, yaw_matrix)


def _agent(traj, size=(4.0, 2.0, 1.0)):
    return Agent(track_id="a", category="box", mesh="box", size=list(size), trajectory=traj)


# ------------------------------------------------------------------ speed profiles

# speed 0 -> 2 m/s over [0, 2] (a = 1), 2 -> 1 m/s over [2, 4] (a = -0.5), then 1 m/s
PROFILE = SpeedProfile(times=[0.0, 2.0, 4.0], speeds=[0.0, 2.0, 1.0])


@pytest.mark.parametrize("t, speed", [
    (-1.0, 0.0),      # before the start: the speed at 0
    (0.0, 0.0), (0.5, 0.5), (1.0, 1.0),
    (2.0, 2.0),       # on a knot
    (3.0, 1.5),       # 2 - 0.5 * 1
    (4.0, 1.0),       # the last knot
    (10.0, 1.0),      # constant after the last knot
])
def test_speed_is_piecewise_linear(t, speed):
    assert PROFILE.speed(t) == pytest.approx(speed, abs=1e-12)


@pytest.mark.parametrize("t, dist", [
    (-1.0, 0.0), (0.0, 0.0),
    (0.5, 0.125),     # a t^2 / 2 with a = 1
    (1.0, 0.5),
    (2.0, 2.0),
    (3.0, 3.75),      # 2 + 2 * 1 - 0.5 * 0.5 * 1^2
    (4.0, 5.0),       # 2 + 2 * 2 - 0.25 * 4
    (6.0, 7.0),       # 5 + 1 m/s * 2 s
])
def test_distance_is_the_exact_integral(t, dist):
    assert PROFILE.distance(t) == pytest.approx(dist, abs=1e-12)


def test_single_knot_profile_is_constant_speed():
    p = SpeedProfile(times=[0.0], speeds=[1.5])
    assert p.speed(0.0) == 1.5 and p.speed(7.0) == 1.5
    assert p.distance(0.0) == 0.0 and p.distance(2.0) == pytest.approx(3.0)


def test_profile_from_phases_direction_rules():
    # ramping to the speed already held is not an acceleration, but it is allowed as a "deceleration"
    with pytest.raises(ValueError, match=r"^accelerate to 1.0 m/s from 1.0 m/s$"):
        profile_from_phases(1.0, [("accelerate", 1.0, 1.0)])
    with pytest.raises(ValueError, match=r"^decelerate to 2.0 m/s from 1.0 m/s$"):
        profile_from_phases(1.0, [("decelerate", 2.0, 1.0)])
    flat = profile_from_phases(1, [("decelerate", 1.0, 2.0), ("cruise", 1.5)])
    assert flat.times == [0.0, 2.0, 3.5] and flat.speeds == [1.0, 1.0, 1.0]
    assert isinstance(flat.speeds[0], float)
    with pytest.raises(ValueError, match=r"^unknown phase 'coast'$"):
        profile_from_phases(1.0, [("coast", 1.0)])
    with pytest.raises(ValueError, match=r"^stop needs speed 0: decelerate first$"):
        profile_from_phases(0.5, [("stop", 1.0)])
    stop = profile_from_phases(2.0, [("decelerate", 0.0, 4.0), ("stop", 1.0)])
    assert stop.times == [0.0, 4.0, 5.0] and stop.speeds == [2.0, 0.0, 0.0]
    assert stop.distance(5.0) == pytest.approx(4.0)   # 2 m/s to 0 over 4 s: 4 m, then standing


# ------------------------------------------------------------------ paths

def test_segment_joint_belongs_to_the_next_segment():
    # line of 2 m from (1, 0) heading +x, then a left arc of radius 2
    path = Path(start=[1.0, 0.0], heading_deg=0.0, segments=[Line(length=2.0), Arc(radius=2.0, angle_deg=90.0),
                                                             Line(length=1.0)])
    assert path.at(0.0) == pytest.approx((1.0, 0.0, 0.0, 0.0))
    assert path.at(-3.0) == pytest.approx((1.0, 0.0, 0.0, 0.0))      # clamped to the start
    assert path.at(2.0) == pytest.approx((3.0, 0.0, 0.0, 0.5))       # the joint: the arc's curvature
    assert path.at(2.0 + math.pi) == pytest.approx((5.0, 2.0, math.pi / 2, 0.0))   # next joint: the line's
    assert path.at(2.5 + math.pi) == pytest.approx((5.0, 2.5, math.pi / 2, 0.0))   # inside the last line


def test_line_from_an_offset_start_and_heading():
    path = Path(start=[1.0, 2.0], heading_deg=90.0, segments=[Line(length=3.0)])
    assert path.at(3.0) == pytest.approx((1.0, 5.0, math.pi / 2, 0.0))
    diag = Path(start=[0.0, 0.0], heading_deg=-45.0, segments=[Line(length=math.sqrt(2))])
    assert diag.at(math.sqrt(2))[:3] == pytest.approx((1.0, -1.0, -math.pi / 4))


def test_right_arc_from_a_heading():
    # heading +y from (0, 0), right turn of radius 1 by 90 degrees: centre (1, 0), ends at (1, 1) heading +x
    path = Path(start=[0.0, 0.0], heading_deg=90.0, segments=[Arc(radius=1.0, angle_deg=-90.0)])
    assert path.at(math.pi / 2) == pytest.approx((1.0, 1.0, 0.0, -1.0))
    assert path.at(math.pi / 4)[:2] == pytest.approx((1 - math.cos(math.pi / 4), math.sin(math.pi / 4)))


def test_clothoid_curvature_is_linear_in_arc_length():
    c = Clothoid(length=2.0, k0=0.5, k1=-0.5)
    assert c.curvature_at(0.0) == 0.5 and c.curvature_at(0.5) == pytest.approx(0.25)
    assert c.curvature_at(2.0) == pytest.approx(-0.5)
    path = Path(start=[0.0, 0.0], heading_deg=0.0, segments=[Line(length=1.0), c])
    assert path.at(1.5)[3] == pytest.approx(0.25)


def _integrated(x0, y0, th0, k0, c, u):
    """The position by quadrature: integral of (cos, sin) of theta(w) = th0 + k0 w + c w^2 / 2."""
    th = lambda w: th0 + k0 * w + 0.5 * c * w * w  # noqa: E731
    dx, _ = quad(lambda w: math.cos(th(w)), 0.0, u, epsabs=1e-13, epsrel=1e-13, limit=200)
    dy, _ = quad(lambda w: math.sin(th(w)), 0.0, u, epsabs=1e-13, epsrel=1e-13, limit=200)
    return x0 + dx, y0 + dy, th(u)


@pytest.mark.parametrize("start, heading_deg, L, k0, k1", [
    ((1.0, -2.0), 30.0, 2.5, 0.3, -0.7),      # curvature changes sign along the way
    ((0.0, 0.0), 0.0, 3.0, -0.4, 0.9),
    ((-1.5, 0.5), -120.0, 1.5, 1.0, 2.0),     # tightening left turn
    ((2.0, 2.0), 200.0, 2.0, -0.2, -1.6),     # tightening right turn
])
def test_clothoid_position_is_the_integral_of_its_heading(start, heading_deg, L, k0, k1):
    path = Path(start=list(start), heading_deg=heading_deg, segments=[Clothoid(length=L, k0=k0, k1=k1)])
    c = (k1 - k0) / L
    for u in (0.4 * L, L):
        x, y, th, k = path.at(u)
        ex, ey, eth = _integrated(start[0], start[1], math.radians(heading_deg), k0, c, u)
        assert (x, y, th) == pytest.approx((ex, ey, eth), abs=1e-9)
        assert k == pytest.approx(k0 + c * u)


def test_clothoid_with_no_curvature_change_is_a_line_or_an_arc():
    line = Path(start=[1.0, 1.0], heading_deg=90.0, segments=[Clothoid(length=2.0, k0=0.0, k1=0.0)])
    assert line.at(2.0) == pytest.approx((1.0, 3.0, math.pi / 2, 0.0))
    # heading 30 deg: (1, 1) + 2 (cos 30, sin 30) = (1 + sqrt 3, 2)
    slanted = Path(start=[1.0, 1.0], heading_deg=30.0, segments=[Clothoid(length=2.0, k0=0.0, k1=0.0)])
    assert slanted.at(2.0) == pytest.approx((1.0 + math.sqrt(3), 2.0, math.pi / 6, 0.0))
    # curvature 0.5 from heading 30 deg over pi / 3: a 30 deg left turn of radius 2 about
    # (1, 1) + 2 (-sin 30, cos 30) = (0, 1 + sqrt 3), ending at the centre + 2 (sin 60, -cos 60) = (sqrt 3, sqrt 3)
    arc30 = Path(start=[1.0, 1.0], heading_deg=30.0, segments=[Clothoid(length=math.pi / 3, k0=0.5, k1=0.5)])
    assert arc30.at(math.pi / 3) == pytest.approx((math.sqrt(3), math.sqrt(3), math.pi / 3, 0.5))
    # equal end curvatures -0.5 from heading +y at (0, 0): a right circle of radius 2 about (2, 0)
    arc = Path(start=[0.0, 0.0], heading_deg=90.0, segments=[Clothoid(length=math.pi, k0=-0.5, k1=-0.5)])
    assert arc.at(math.pi) == pytest.approx((2.0, 2.0, 0.0, -0.5))


# ------------------------------------------------------------------ trajectories and agents

def test_path_trajectory_state_on_an_arc_and_at_the_end():
    # left circle of radius 2 from (2, 0) heading +y, half a turn (length 2 pi) at 1 m/s
    traj = PathTrajectory(path=Path(start=[2.0, 0.0], heading_deg=90.0, segments=[Arc(radius=2.0, angle_deg=180.0)]),
                          speed=SpeedProfile(times=[0.0], speeds=[1.0]), z=0.7)
    p, yaw, vel, w = traj.state(math.pi)             # a quarter turn: at (0, 2) heading -x
    assert p == pytest.approx([0.0, 2.0, 0.7], abs=1e-12) and yaw == pytest.approx(math.pi)
    assert vel == pytest.approx([-1.0, 0.0, 0.0], abs=1e-12) and w == pytest.approx([0.0, 0.0, 0.5])
    # exactly at the end of the path (s == length) the agent already stands still
    p, yaw, vel, w = traj.state(2 * math.pi)
    assert p == pytest.approx([-2.0, 0.0, 0.7], abs=1e-12)
    assert vel.tolist() == [0.0, 0.0, 0.0] and w.tolist() == [0.0, 0.0, 0.0]


def test_fixed_heading_keeps_yaw_but_velocity_follows_the_path():
    traj = PathTrajectory(path=Path(start=[0.0, 0.0], heading_deg=90.0, segments=[Line(length=10.0)]),
                          speed=SpeedProfile(times=[0.0], speeds=[2.0]), z=0.5, heading_follows_path=False,
                          yaw_deg=-30.0)
    p, yaw, vel, w = traj.state(1.0)
    assert p == pytest.approx([0.0, 2.0, 0.5]) and yaw == pytest.approx(math.radians(-30.0))
    assert vel == pytest.approx([0.0, 2.0, 0.0], abs=1e-12) and w.tolist() == [0.0, 0.0, 0.0]


def test_yaw_matrix_turns_x_towards_y():
    assert yaw_matrix(math.pi / 2) == pytest.approx(np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]]), abs=1e-15)
    c, s = math.cos(0.3), math.sin(0.3)
    assert yaw_matrix(0.3) == pytest.approx(np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]))


def test_stationary_agent_pose_footprint_and_box():
    a = _agent(Stationary(position=[1.0, 2.0, 0.5], yaw_deg=90.0))
    assert a.position(3.0).tolist() == [1.0, 2.0, 0.5] and a.yaw(3.0) == pytest.approx(math.pi / 2)
    assert a.velocity(3.0).tolist() == [0.0, 0.0, 0.0] and a.angular_velocity(3.0).tolist() == [0.0, 0.0, 0.0]
    M = a.pose(0.0)
    assert M == pytest.approx(np.array([[0, -1, 0, 1], [1, 0, 0, 2], [0, 0, 1, 0.5], [0, 0, 0, 1]]), abs=1e-15)
    # size 4 x 2: local corners (-2,-1), (2,-1), (2,1), (-2,1); turned 90 deg, (x, y) -> (-y, x), plus (1, 2)
    assert a.footprint(0.0) == pytest.approx(np.array([[2, 0], [2, 4], [0, 4], [0, 0]]), abs=1e-12)
    # corners in (sx, sy, sz) order, sz fastest; world = (1 - y, 2 + x, 0.5 + z)
    assert a.box_corners(0.0) == pytest.approx(np.array([
        [2, 0, 0], [2, 0, 1], [0, 0, 0], [0, 0, 1], [2, 4, 0], [2, 4, 1], [0, 4, 0], [0, 4, 1]]), abs=1e-12)


def test_moving_agent_pose_follows_the_path():
    traj = PathTrajectory(path=Path(start=[0.0, 0.0], heading_deg=0.0, segments=[Line(length=10.0)]),
                          speed=SpeedProfile(times=[0.0], speeds=[1.0]), z=0.5)
    a = _agent(traj, size=(2.0, 1.0, 1.0))
    assert a.pose(3.0)[:3, 3] == pytest.approx([3.0, 0.0, 0.5])
    assert a.footprint(3.0) == pytest.approx(np.array([[2, -0.5], [4, -0.5], [4, 0.5], [2, 0.5]]))
    assert a.velocity(3.0) == pytest.approx([1.0, 0.0, 0.0]) and a.yaw(3.0) == 0.0


# ------------------------------------------------------------------ carried loads and falls

def _carrier(speed=2.0, heading=90.0):
    return PathTrajectory(path=Path(start=[0.0, 0.0], heading_deg=heading, segments=[Line(length=20.0)]),
                          speed=profile_from_phases(speed, []), z=1.0)


def test_carried_load_hand_numbers():
    c = Carried(carrier=_carrier(), offset=[1.0, 0.5], z=0.3, t_pick=1.0, t_drop=4.0, lift_m=0.1, lift_s=1.0)
    # heading +y: ahead is +y, left is -x; the carrier is at y = 2 t
    assert np.allclose(c.state(0.0)[0], [-0.5, 2.0 + 1.0, 0.3])          # at rest where the carrier is at 1 s
    assert np.allclose(c.state(0.0)[2], 0.0) and c.state(0.0)[1] == pytest.approx(math.pi / 2)
    assert np.allclose(c.state(1.0)[0], [-0.5, 3.0, 0.3])                # the pick-up instant: not yet lifted
    assert np.allclose(c.state(1.5)[0], [-0.5, 3.0 + 1.0, 0.35])         # half lifted
    assert np.allclose(c.state(1.5)[2], [0.0, 2.0, 0.1])                 # carrier's speed + the lift rate
    assert np.allclose(c.state(2.5)[0], [-0.5, 5.0 + 1.0, 0.4])          # fully lifted
    assert np.allclose(c.state(2.5)[2], [0.0, 2.0, 0.0])
    assert np.allclose(c.state(3.5)[0], [-0.5, 7.0 + 1.0, 0.35])         # half lowered
    assert np.allclose(c.state(3.5)[2], [0.0, 2.0, -0.1])
    assert np.allclose(c.state(9.0)[0], [-0.5, 8.0 + 1.0, 0.3])          # put down at 4 s
    assert np.allclose(c.state(9.0)[2], 0.0)


def test_carried_from_before_the_clip_and_never_dropped():
    c = Carried(carrier=_carrier(heading=0.0), offset=[1.2, 0.0], z=0.4, t_pick=-3.0, lift_m=0.06, lift_s=1.0)
    assert np.allclose(c.state(0.0)[0], [1.2, 0.0, 0.46])                # lifted already at t = 0
    assert np.allclose(c.state(5.0)[0], [11.2, 0.0, 0.46])
    assert np.allclose(c.state(5.0)[2], [2.0, 0.0, 0.0])


def test_carried_on_a_turning_carrier_moves_rigidly():
    arc = PathTrajectory(path=Path(start=[0.0, 0.0], heading_deg=0.0, segments=[Arc(radius=2.0, angle_deg=180.0)]),
                         speed=profile_from_phases(1.0, []), z=1.0)
    c = Carried(carrier=arc, offset=[1.0, 0.0], z=0.2, t_pick=0.0, lift_m=0.0, lift_s=1.0)
    t = math.pi                                                           # a quarter turn: at (2, 2) heading +y
    assert np.allclose(c.state(t)[0], [2.0, 3.0, 0.2])
    # v = v_carrier + w x r: (0, 1) + 0.5 * z x (0, 1) = (-0.5, 1)
    assert np.allclose(c.state(t)[2], [-0.5, 1.0, 0.0])
    assert np.allclose(c.state(t)[3], [0.0, 0.0, 0.5])


@pytest.mark.parametrize("offset, t_drop", [([1.0], None), ([1.0, 0.0, 0.0], None), ([1.0, 0.0], 2.9)])
def test_carried_rejects_bad_offsets_and_short_carries(offset, t_drop):
    with pytest.raises(ValueError):
        Carried(carrier=_carrier(), offset=offset, z=0.3, t_pick=1.0, t_drop=t_drop, lift_m=0.1, lift_s=1.0)
    Carried(carrier=_carrier(), offset=[1.0, 0.0], z=0.3, t_pick=1.0, t_drop=3.0, lift_m=0.1, lift_s=1.0)  # 2 lift_s


def _faller(speed_phases=(("stop", 1.0),), start_speed=0.0, **fall):
    traj = PathTrajectory(path=Path(start=[0.0, 0.0], heading_deg=0.0, segments=[Line(length=1.0)]),
                          speed=profile_from_phases(start_speed, list(speed_phases)), z=0.9)
    return FallingAgent(track_id="p", category="person", mesh="person", size=[0.4, 0.5, 1.8], trajectory=traj,
                        fall=Fall(t_start=1.0, duration_s=1.0, **fall))


def test_falling_agent_pivots_on_its_front_edge():
    a = _faller()
    assert np.allclose(a.position(0.5), [0.0, 0.0, 0.9]) and np.allclose(a.pose(1.0), a.pose(0.0))
    assert a.fall.angle(0.5) == 0.0 and a.fall.angle(9.0) == pytest.approx(math.pi / 2)
    assert a.fall.angle(1.5) == pytest.approx(math.radians(90) * (1 - math.cos(math.pi / 4)))
    assert np.allclose(a.position(3.0), [0.2 + 0.9, 0.0, 0.2])            # lying ahead of the front edge
    assert np.allclose(a.pose(3.0)[:3, 2], [1.0, 0.0, 0.0], atol=1e-12)   # its up axis now points ahead
    assert np.allclose(a.footprint(3.0), [[0.2, -0.25], [2.0, -0.25], [2.0, 0.25], [0.2, 0.25]])
    assert np.allclose(a.footprint(0.0), [[-0.2, -0.25], [0.2, -0.25], [0.2, 0.25], [-0.2, 0.25]])
    half = _faller(angle_deg=45.0)
    assert np.allclose(half.pose(5.0)[:3, 2], [math.sqrt(0.5), 0.0, math.sqrt(0.5)])


def test_falling_agent_must_stand_from_the_fall():
    with pytest.raises(ValueError, match="stand still"):
        _faller(speed_phases=(), start_speed=1.0)                         # still walking at 1 s
    with pytest.raises(ValueError, match="stand still"):
        _faller(speed_phases=(("stop", 2.0), ("accelerate", 1.0, 1.0)))   # gets up and walks on at 2 s
    _faller(speed_phases=(("decelerate", 0.0, 1.0), ("stop", 3.0)), start_speed=1.0)  # stops exactly at 1 s


def test_convex_hull_counter_clockwise_without_collinear_points():
    pts = np.array([[0, 0], [2, 0], [1, 0], [2, 2], [0, 2], [1, 1], [0, 1]], float)
    assert convex_hull_2d(pts).tolist() == [[0, 0], [2, 0], [2, 2], [0, 2]]
    assert convex_hull_2d(np.array([[1.0, 1.0], [0.0, 0.0]])).tolist() == [[0, 0], [1, 1]]
