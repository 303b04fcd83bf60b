"""The time core (geometry.timeline, geometry.events, geometry.clip): hand-computed
poses, speeds and event times on constructed trajectories, and properties that must hold
for any path and speed profile (velocity is the derivative of position, distance the
integral of speed)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.integrate import quad

from geometry.camera import project
from geometry.clip import (CarriedCamera, ClipSpec, MountedCamera, agent_moves, camera_pose, mesh_at,
                           mounted_cam_to_world)
from geometry.events import collisions, near_misses, zone_entries
from geometry.raycast import SceneMesh
from geometry.timeline import (Agent, Arc, Clothoid, Line, Path, PathTrajectory, SpeedProfile, Stationary,
                               profile_from_phases)

FPS = 30


def line_agent(track_id, start, heading_deg, speed, length=100.0, size=(1.0, 1.0, 1.0)):
    traj = PathTrajectory(path=Path(start=list(start), heading_deg=heading_deg, segments=[Line(length=length)]),
                          speed=SpeedProfile(times=[0.0], speeds=[speed]), z=size[2] / 2)
    return Agent(track_id=track_id, category="box", mesh="box", size=list(size), trajectory=traj)


def still_agent(track_id, xy, size=(1.0, 1.0, 1.0)):
    return Agent(track_id=track_id, category="box", mesh="box", size=list(size),
                 trajectory=Stationary(position=[*xy, size[2] / 2]))


# ------------------------------------------------------------------ speed profiles and paths

def test_speed_profile_from_phases_hand_computed():
    p = profile_from_phases(0.0, [("accelerate", 2.0, 2.0), ("cruise", 3.0), ("decelerate", 0.0, 1.0),
                                  ("stop", 2.0), ("accelerate", 1.0, 1.0)])
    assert p.times == [0.0, 2.0, 5.0, 6.0, 8.0, 9.0] and p.speeds == [0.0, 2.0, 2.0, 0.0, 0.0, 1.0]
    assert p.speed(1.0) == pytest.approx(1.0) and p.speed(5.5) == pytest.approx(1.0)
    assert p.speed(7.0) == 0.0 and p.speed(20.0) == 1.0
    assert p.distance(1.0) == pytest.approx(0.5)      # 1/2 a t^2, a = 1
    assert p.distance(2.0) == pytest.approx(2.0)
    assert p.distance(5.0) == pytest.approx(8.0)
    assert p.distance(6.0) == pytest.approx(9.0)
    assert p.distance(8.0) == pytest.approx(9.0)      # standing still
    assert p.distance(10.0) == pytest.approx(9.0 + 0.5 + 1.0)
    with pytest.raises(ValueError, match="decelerate first"):
        profile_from_phases(1.0, [("stop", 1.0)])
    with pytest.raises(ValueError, match="accelerate to 0.5"):
        profile_from_phases(1.0, [("accelerate", 0.5, 1.0)])
    with pytest.raises(ValueError, match="increase"):
        SpeedProfile(times=[0.0, 0.0], speeds=[1.0, 1.0])


def test_arc_and_line_positions_hand_computed():
    path = Path(start=[1.0, 0.0], heading_deg=0.0, segments=[Line(length=2.0), Arc(radius=2.0, angle_deg=90.0),
                                                             Line(length=1.0), Arc(radius=1.0, angle_deg=-90.0)])
    assert path.length == pytest.approx(2 + math.pi + 1 + math.pi / 2)
    x, y, th, k = path.at(1.0)
    assert (x, y, th, k) == pytest.approx((2.0, 0.0, 0.0, 0.0))
    x, y, th, k = path.at(2.0 + math.pi / 2)          # half way round the left turn
    assert (x, y) == pytest.approx((3.0 + 2 * math.sin(math.pi / 4), 2 - 2 * math.cos(math.pi / 4)))
    assert th == pytest.approx(math.pi / 4) and k == pytest.approx(0.5)
    x, y, th, k = path.at(2.0 + math.pi + 1.0)        # end of the second line: (5, 3) heading +y
    assert (x, y, th) == pytest.approx((5.0, 3.0, math.pi / 2))
    x, y, th, k = path.at(1e9)                        # clamped to the end of the right turn: heading +x again
    assert (x, y, th, k) == pytest.approx((6.0, 4.0, 0.0, -1.0))


def test_clothoid_hand_computed():
    # from straight to 1/R over L: heading turns L / (2R); for small angles y = u^3 / (6 R L)
    L, R = 1.0, 100.0
    path = Path(start=[0.0, 0.0], heading_deg=0.0, segments=[Clothoid(length=L, k0=0.0, k1=1 / R)])
    x, y, th, k = path.at(L)
    assert th == pytest.approx(L / (2 * R)) and k == pytest.approx(1 / R)
    assert y == pytest.approx(L ** 2 / (6 * R), rel=1e-4) and x == pytest.approx(L, abs=1e-5)
    # a symmetric 90 degree turn: ease in (clothoid), arc, ease out (clothoid)
    R, Lc = 2.0, 1.0
    arc_deg = 90.0 - math.degrees(Lc / R)               # each clothoid turns Lc / (2R)
    turn = Path(start=[0.0, 0.0], heading_deg=0.0, segments=[
        Clothoid(length=Lc, k0=0.0, k1=1 / R), Arc(radius=R, angle_deg=arc_deg), Clothoid(length=Lc, k0=1 / R, k1=0.0)])
    x, y, th, k = turn.at(turn.length)
    assert th == pytest.approx(math.pi / 2) and k == pytest.approx(0.0, abs=1e-12)
    assert x == pytest.approx(y)                        # symmetric about the diagonal
    # the same clothoid mirrored (a right turn) mirrors the end point
    right = Path(start=[0.0, 0.0], heading_deg=0.0, segments=[Clothoid(length=Lc, k0=0.0, k1=-1 / R)])
    left = Path(start=[0.0, 0.0], heading_deg=0.0, segments=[Clothoid(length=Lc, k0=0.0, k1=1 / R)])
    (xr, yr, tr, _), (xl, yl, tl, _) = right.at(Lc), left.at(Lc)
    assert (xr, yr, tr) == pytest.approx((xl, -yl, -tl))
    # a clothoid with equal end curvatures is the arc
    same = Path(start=[0.0, 0.0], heading_deg=0.0, segments=[Clothoid(length=math.pi, k0=0.5, k1=0.5)])
    assert same.at(math.pi)[:3] == pytest.approx((2.0, 2.0, math.pi / 2))


def test_circle_agent_pose_velocity_and_yaw_rate():
    R, v = 3.0, 1.5
    traj = PathTrajectory(path=Path(start=[R, 0.0], heading_deg=90.0, segments=[Arc(radius=R, angle_deg=720.0)]),
                          speed=SpeedProfile(times=[0.0], speeds=[v]), z=0.25)
    a = Agent(track_id="c", category="box", mesh="box", size=[0.5, 0.5, 0.5], trajectory=traj)
    t = (math.pi / 2) * R / v                          # a quarter turn: at (0, R), heading 180 deg
    assert a.position(t) == pytest.approx([0.0, R, 0.25], abs=1e-12)
    assert a.velocity(t) == pytest.approx([-v, 0.0, 0.0], abs=1e-12)
    assert a.angular_velocity(t) == pytest.approx([0.0, 0.0, v / R])
    assert a.pose(t)[:3, 0] == pytest.approx([-1.0, 0.0, 0.0], abs=1e-12)   # body x along the heading
    assert a.box_corners(t)[:, 2].min() == pytest.approx(0.0)


def test_past_the_path_end_an_agent_stands_still():
    a = line_agent("a", (0, 0), 0.0, 2.0, length=4.0)
    assert a.position(5.0) == pytest.approx([4.0, 0.0, 0.5])
    assert a.velocity(5.0) == pytest.approx([0.0, 0.0, 0.0])
    assert a.velocity(1.0) == pytest.approx([2.0, 0.0, 0.0])


def test_heading_can_be_fixed():
    traj = PathTrajectory(path=Path(start=[0, 0], heading_deg=0.0, segments=[Arc(radius=1.0, angle_deg=180.0)]),
                          speed=SpeedProfile(times=[0.0], speeds=[1.0]), z=0.5, heading_follows_path=False,
                          yaw_deg=30.0)
    a = Agent(track_id="a", category="box", mesh="box", size=[1, 1, 1], trajectory=traj)
    assert a.yaw(1.0) == pytest.approx(math.radians(30.0))
    assert a.angular_velocity(1.0) == pytest.approx([0.0, 0.0, 0.0])


# ------------------------------------------------------------------ properties

segments = st.one_of(
    st.builds(lambda L: Line(length=L), st.floats(0.2, 5.0)),
    st.builds(lambda L, a, b: Clothoid(length=L, k0=a, k1=b), st.floats(0.3, 5.0), st.floats(-1.5, 1.5),
              st.floats(-1.5, 1.5)),
    st.builds(lambda r, a: Arc(radius=r, angle_deg=a), st.floats(0.5, 6.0),
              st.one_of(st.floats(-300.0, -10.0), st.floats(10.0, 300.0))),
)
profiles = st.lists(st.tuples(st.floats(0.3, 3.0), st.floats(0.0, 4.0)), min_size=1, max_size=5).map(
    lambda ks: SpeedProfile(times=list(np.cumsum([0.0] + [d for d, _ in ks[:-1]])), speeds=[v for _, v in ks]))


@st.composite
def agents(draw):
    path = Path(start=[draw(st.floats(-5, 5)), draw(st.floats(-5, 5))], heading_deg=draw(st.floats(-180, 180)),
                segments=draw(st.lists(segments, min_size=1, max_size=4)))
    traj = PathTrajectory(path=path, speed=draw(profiles), z=0.3)
    return Agent(track_id="a", category="box", mesh="box", size=[0.6, 0.4, 0.6], trajectory=traj)


@settings(max_examples=60, deadline=None)
@given(agents(), st.floats(0.05, 6.0))
def test_velocity_is_the_derivative_of_position(agent, t):
    s = agent.trajectory.speed.distance(t)
    L = agent.trajectory.path.length
    # away from the path's end (velocity drops to 0 there) and from segment joints / speed knots
    h = 1e-5
    if abs(s - L) < 1e-2 or s > L:
        return
    fd = (agent.position(t + h) - agent.position(t - h)) / (2 * h)
    assert np.allclose(fd, agent.velocity(t), atol=2e-3 * (1 + np.linalg.norm(fd))), (fd, agent.velocity(t))
    dyaw = (agent.yaw(t + h) - agent.yaw(t - h)) / (2 * h)
    assert dyaw == pytest.approx(agent.angular_velocity(t)[2], abs=2e-3 * (1 + abs(dyaw)))


@settings(max_examples=60, deadline=None)
@given(agents(), st.floats(0.0, 4.0), st.floats(0.1, 4.0))
def test_arc_length_equals_integrated_speed(agent, t0, dt):
    prof = agent.trajectory.speed
    integral, _ = quad(prof.speed, t0, t0 + dt, points=[k for k in prof.times if t0 < k < t0 + dt] or None,
                       limit=200)
    assert prof.distance(t0 + dt) - prof.distance(t0) == pytest.approx(integral, abs=1e-9, rel=1e-7)
    # and the path really is that long: the polyline through fine samples measures it
    s0, s1 = prof.distance(t0), prof.distance(t0 + dt)
    L = agent.trajectory.path.length
    ts = np.linspace(t0, t0 + dt, 2001)
    pts = np.array([agent.position(t)[:2] for t in ts])
    chord = float(np.linalg.norm(np.diff(pts, axis=0), axis=1).sum())
    assert chord == pytest.approx(min(s1, L) - min(s0, L), abs=1e-3 + 1e-4 * s1)


# ------------------------------------------------------------------ events

def test_near_miss_times_hand_computed():
    a = line_agent("a", (-10.0, 0.0), 0.0, 2.0)
    b = still_agent("b", (0.0, 1.2))
    # |x| < sqrt(1.5^2 - 1.2^2) = 0.9 with x = -10 + 2t
    (ev,) = near_misses(a, b, 1.5, 0.0, 10.0)
    assert ev.type == "near_miss" and ev.actors == ["a", "b"]
    assert abs(ev.t_start - 4.55) < 1 / FPS / 10 and abs(ev.t_end - 5.45) < 1 / FPS / 10
    assert ev.t_start == pytest.approx(4.55, abs=1e-5) and ev.t_end == pytest.approx(5.45, abs=1e-5)
    assert near_misses(a, b, 1.19, 0.0, 10.0) == []    # just inside the closest approach (1.2 m)
    assert len(near_misses(a, b, 1.21, 0.0, 10.0)) == 1
    assert collisions(a, b, 0.0, 10.0) == []


def test_collision_replaces_near_miss():
    a = line_agent("a", (-10.0, 0.0), 0.0, 2.0)
    b = still_agent("b", (0.0, 0.5))
    (ev,) = collisions(a, b, 0.0, 10.0)               # |x| < 1 (two 1 m boxes): t in [4.5, 5.5]
    assert (ev.type, ev.t_start, ev.t_end) == ("collision", pytest.approx(4.5, abs=1e-5), pytest.approx(5.5, abs=1e-5))
    assert near_misses(a, b, 1.5, 0.0, 10.0) == []


def test_two_moving_agents_cross():
    # a along +x, b along +y, both reach the origin at t = 5: distance = sqrt(2) * 2 |t - 5|
    a = line_agent("a", (-10.0, 0.0), 0.0, 2.0, size=(0.4, 0.4, 0.4))
    b = line_agent("b", (0.0, -10.0), 90.0, 2.0, size=(0.4, 0.4, 0.4))
    (ev,) = collisions(a, b, 0.0, 10.0)
    # the two 0.4 m squares (sides axis-aligned) overlap while |2(t-5)| < 0.4
    assert ev.t_start == pytest.approx(4.8, abs=1e-5) and ev.t_end == pytest.approx(5.2, abs=1e-5)
    (far,) = near_misses(a, b, 3.0, 0.0, 4.0)         # clipped to [0, 4]: the collision lies outside it
    assert far.t_start == pytest.approx(5 - 3 / (2 * math.sqrt(2)), abs=1e-5) and far.t_end == 4.0


def test_zone_entry_hand_computed():
    a = line_agent("a", (-10.0, 0.0), 0.0, 2.0)
    zone = [[2.0, -1.0], [4.0, -1.0], [4.0, 1.0], [2.0, 1.0]]
    (ev,) = zone_entries(a, zone, "dock", 0.0, 10.0)
    assert (ev.type, ev.actors, ev.zone) == ("zone_entry", ["a"], "dock")
    assert ev.t_start == pytest.approx(6.0, abs=1e-5) and ev.t_end == pytest.approx(7.0, abs=1e-5)
    (open_end,) = zone_entries(a, zone, "dock", 0.0, 6.5)
    assert open_end.t_end == 6.5
    assert zone_entries(a, zone, "dock", 6.2, 10.0) == []   # already inside at the clip's start


# ------------------------------------------------------------------ clip specs

def test_sampling_schemes():
    sot8 = ClipSpec(duration_s=4.0, sampling={"kind": "strided", "n": 8, "stride": 15})
    assert sot8.fps == 30 and sot8.frame_numbers() == [0, 15, 30, 45, 60, 75, 90, 105]
    assert sot8.timestamps()[-1] == 3.5
    sot32 = ClipSpec(duration_s=15.0, sampling={"kind": "strided", "n": 32, "stride": 14})
    assert sot32.timestamps()[-1] == pytest.approx(31 * 14 / 30)
    uni = ClipSpec(duration_s=3.0, sampling={"kind": "uniform", "k": 5})
    assert uni.total_frames == 90 and uni.frame_numbers() == [0, 22, 45, 67, 89]
    ex = ClipSpec(duration_s=1.0, fps=10, sampling={"kind": "explicit", "frames": [0, 3, 9]})
    assert ex.timestamps() == [0.0, 0.3, 0.9]
    with pytest.raises(ValueError, match="leave the clip"):
        ClipSpec(duration_s=3.5, sampling={"kind": "strided", "n": 8, "stride": 15})   # frame 105 = 3.5 s
    with pytest.raises(ValueError, match="increasing"):
        ClipSpec(duration_s=1.0, sampling={"kind": "explicit", "frames": [3, 3]})


# ------------------------------------------------------------------ cameras

def test_mounted_camera_looks_down_at_its_depression():
    cam = MountedCamera(position=[0.0, 0.0], height_m=4.0, depression_deg=45.0, yaw_deg=0.0, hfov_deg=90.0,
                        shutter_s=0.01)
    pose = camera_pose(cam, 0.0, 64)
    assert (pose.width, pose.height) == (64, 48) and pose.shake_end_cam_to_world is None
    assert pose.K[0][0] == pytest.approx(32.0)         # 90 deg: f = W / 2
    K, T = pose.K_array(), pose.cam_to_world_array()
    uv, z = project(np.array([[4.0, 0.0, 0.0], [4.0, 1.0, 0.0], [6.0, 0.0, 0.0]]), K, T)
    assert uv[0] == pytest.approx([31.5, 23.5]) and z[0] == pytest.approx(4 * math.sqrt(2))
    assert uv[1, 0] < 31.5                             # +y is to the camera's left when it looks along +x
    assert uv[2, 1] < 23.5                             # farther along the ground is higher in the image
    T2 = mounted_cam_to_world([1.0, 2.0, 3.0], 30.0, 90.0)
    assert T2[:3, 2] == pytest.approx([0.0, math.cos(math.radians(30)), -0.5])
    assert T2[2, 0] == pytest.approx(0.0)              # no roll: image x stays horizontal


def test_carried_camera_pose_holds_its_shutter_motion():
    traj = PathTrajectory(path=Path(start=[0.0, 0.0], heading_deg=0.0, segments=[Line(length=50.0)]),
                          speed=SpeedProfile(times=[0.0], speeds=[2.0]), z=1.6)
    cam = CarriedCamera(trajectory=traj, depression_deg=10.0, hfov_deg=70.0, shutter_s=0.02)
    pose = camera_pose(cam, 1.0, 64)
    assert pose.center == pytest.approx([2.0, 0.0, 1.6])
    assert pose.shake_end_array()[:3, 3] == pytest.approx([2.04, 0.0, 1.6])


def test_mesh_at_moves_only_the_agent():
    a = line_agent("a", (0.0, 0.0), 0.0, 1.0)
    V = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [5, 5, 0], [6, 5, 0], [5, 6, 0]], float)
    mesh = SceneMesh(V, np.array([[0, 1, 2], [3, 4, 5]]), np.array([7, 2]), np.array([2, 7]), np.array(["g", "a"]))
    moved = mesh_at(mesh, agent_moves([a], {"a": 7}, 3.0))
    assert moved.vertices[:3] == pytest.approx(V[:3] + [3.0, 0.0, 0.0])
    assert moved.vertices[3:] == pytest.approx(V[3:])
