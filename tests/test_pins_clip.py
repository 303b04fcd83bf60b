"""Pinned values for geometry/clip.py: frame sampling, CCTV intrinsics and lens, mounted and carried
camera poses, and the scene mesh moved to a time, all hand-computed."""
from __future__ import annotations

import math

import numpy as np
import pytest

from geometry.clip import (BUILD_T, CCTV_FNUMBER, CCTV_SENSOR_WIDTH_MM, CarriedCamera, ClipSpec, ExplicitFrames,
                           MountedCamera, StridedFrames, Timeline, UniformFrames, agent_moves, camera_pose,
                           cctv_intrinsics, mesh_at, mounted_cam_to_world, on_a_frame)
from geometry.raycast import SceneMesh
from geometry.timeline import Agent, Arc, Line, Path, PathTrajectory, SpeedProfile, Stationary


# ------------------------------------------------------------------ sampling

def test_uniform_frames_round_half_up():
    assert UniformFrames(k=1).frame_numbers(90) == [0]
    assert UniformFrames(k=2).frame_numbers(90) == [0, 89]
    # i * 9 / 2 = 0, 4.5, 9: the half rounds up
    assert UniformFrames(k=3).frame_numbers(10) == [0, 5, 9]
    assert UniformFrames(k=4).frame_numbers(10) == [0, 3, 6, 9]
    # i * 10 / 3 = 0, 3.33, 6.67, 10
    assert UniformFrames(k=4).frame_numbers(11) == [0, 3, 7, 10]


def test_strided_and_explicit_frames():
    assert StridedFrames(n=3, stride=4, start=2).frame_numbers(100) == [2, 6, 10]
    assert StridedFrames(n=1, stride=15).frame_numbers(100) == [0]
    ex = ExplicitFrames(frames=[1, 4])
    got = ex.frame_numbers(10)
    assert got == [1, 4] and got is not ex.frames


def test_clip_timestamps_are_frames_over_fps():
    spec = ClipSpec(duration_s=2.0, fps=10, sampling={"kind": "strided", "n": 4, "stride": 5, "start": 3})
    assert spec.total_frames == 20
    assert spec.frame_numbers() == [3, 8, 13, 18]
    assert spec.timestamps() == [0.3, 0.8, 1.3, 1.8]
    # the last frame of the stream is allowed, the one after it is not
    ClipSpec(duration_s=2.0, fps=10, sampling={"kind": "explicit", "frames": [0, 19]})
    with pytest.raises(ValueError, match=r"sampled frames 0\.\.20 leave the clip's 20 frames \(2.0 s at 10 fps\)"):
        ClipSpec(duration_s=2.0, fps=10, sampling={"kind": "explicit", "frames": [0, 20]})
    with pytest.raises(ValueError, match=r"non-empty and increasing, got \[5, 2\]"):
        ClipSpec(duration_s=2.0, fps=10, sampling={"kind": "explicit", "frames": [5, 2]})


# ------------------------------------------------------------------ cameras

def test_on_a_frame_puts_the_event_middle_on_the_nearest_fitting_frame():
    times = [0.0, 2.0, 4.0, 6.0, 8.0]
    # middle = t + 0.5: frames 4 and 6 give script times 3.5 and 5.5; 5.0 is nearer the latter
    assert on_a_frame(5.0, 0.5, times, 3.0, 7.0) == 5.5
    assert on_a_frame(4.4, 0.5, times, 3.0, 7.0) == 3.5          # 0.9 from 3.5, 1.1 from 5.5
    assert on_a_frame(4.5, 0.5, times, 3.0, 7.0) == 3.5          # a tie: the earlier
    # the range's ends are inclusive; a time outside it never comes back
    assert on_a_frame(5.0, 0.5, times, 5.5, 5.5) == 5.5
    assert on_a_frame(5.0, 0.5, times, 5.5 + 1e-9, 7.5) == 7.5   # just past 5.5: the next frame's
    assert on_a_frame(5.0, 0.5, times, 5.5 + 1e-9, 7.5 - 1e-9) == 5.0   # no frame fits: the drawn time
    assert on_a_frame(5.0, -0.5, times, 4.0, 5.0) == 4.5         # frame 4 at middle t - 0.5
    assert on_a_frame(1.2, 0.0, times, 0.0, 3.0) == 2.0 and on_a_frame(0.9, 0.0, times, 0.0, 3.0) == 0.0
    assert on_a_frame(1.0, 0.0, [], 0.0, 3.0) == 1.0


def test_cctv_intrinsics_from_the_horizontal_fov():
    assert np.array(cctv_intrinsics(90.0, 64, 48)) == pytest.approx(np.array([[32.0, 0.0, 31.5], [0.0, 32.0, 23.5],
                                                                      [0.0, 0.0, 1.0]]))
    f = 50.0 / math.tan(math.radians(30.0))           # 60 deg over 100 px: 86.60 px
    assert np.array(cctv_intrinsics(60.0, 100, 75)) == pytest.approx(np.array([[f, 0.0, 49.5], [0.0, f, 37.0],
                                                                       [0.0, 0.0, 1.0]]))


@pytest.mark.parametrize("depression, yaw", [(45.0, 0.0), (20.0, 135.0), (70.0, -60.0)])
def test_mounted_cam_to_world_axes(depression, yaw):
    d, y = math.radians(depression), math.radians(yaw)
    T = mounted_cam_to_world([1.0, -2.0, 5.0], depression, yaw)
    assert T[:3, 3] == pytest.approx([1.0, -2.0, 5.0])
    assert T[:3, 2] == pytest.approx([math.cos(d) * math.cos(y), math.cos(d) * math.sin(y), -math.sin(d)])
    # no roll: image x is horizontal and points to the camera's right (heading minus 90 deg)
    assert T[:3, 0] == pytest.approx([math.sin(y), -math.cos(y), 0.0], abs=1e-12)


def test_mounted_camera_pose_lens_and_centre():
    cam = MountedCamera(position=[3.0, 4.0], height_m=6.0, depression_deg=30.0, yaw_deg=90.0, hfov_deg=90.0,
                        shutter_s=0.02)
    assert cam.moving is False
    pose = camera_pose(cam, 1.5, 64)
    assert (pose.width, pose.height, pose.orientation) == (64, 48, "landscape")
    assert pose.center == pytest.approx([3.0, 4.0, 6.0])
    assert pose.cam_to_world_array()[:3, 2] == pytest.approx([0.0, math.cos(math.radians(30)), -0.5], abs=1e-12)
    # f = 32 px over 64 px of a 5.6 mm sensor: 2.8 mm; 35 mm equivalent 2.8 * 43.27 / (5.6 * 1.25) = 17.308 mm
    assert pose.lens.focal_mm == pytest.approx(2.8)
    assert pose.lens.equiv_focal_mm == pytest.approx(17.308)
    assert pose.lens.sensor_width_mm == CCTV_SENSOR_WIDTH_MM == 5.6
    assert pose.lens.sensor_height_mm == pytest.approx(4.2)
    assert pose.lens.fnumber == CCTV_FNUMBER == 1.6 and pose.lens.name == "main"
    assert pose.sensor_width_mm == 5.6 and pose.digital_zoom == 1.0
    assert (pose.focus_mode, pose.focus_distance_m, pose.shutter_s) == ("pinhole", None, 0.02)
    assert pose.shake_end_cam_to_world is None


def test_camera_pose_height_is_three_quarters_rounded():
    cam = MountedCamera(position=[0.0, 0.0], height_m=3.0, depression_deg=10.0, yaw_deg=0.0, hfov_deg=60.0,
                        shutter_s=0.01)
    pose = camera_pose(cam, 0.0, 102)                 # 76.5 rounds to the even 76
    assert (pose.width, pose.height) == (102, 76)
    assert pose.K[1][2] == pytest.approx(37.5) and pose.K[0][2] == pytest.approx(50.5)


def test_carried_camera_looks_off_its_heading_and_blurs_over_the_shutter():
    # heading +y along a line at 2 m/s, camera 1.6 m up, looking 30 deg left of the heading, 10 deg down
    traj = PathTrajectory(path=Path(start=[1.0, 0.0], heading_deg=90.0, segments=[Line(length=50.0)]),
                          speed=SpeedProfile(times=[0.0], speeds=[2.0]), z=1.6)
    cam = CarriedCamera(trajectory=traj, depression_deg=10.0, yaw_offset_deg=30.0, hfov_deg=70.0, shutter_s=0.05)
    assert cam.moving is True
    d, y = math.radians(10.0), math.radians(120.0)
    T = cam.cam_to_world(1.0)
    assert T[:3, 3] == pytest.approx([1.0, 2.0, 1.6])
    assert T[:3, 2] == pytest.approx([math.cos(d) * math.cos(y), math.cos(d) * math.sin(y), -math.sin(d)])
    pose = camera_pose(cam, 1.0, 64)
    assert pose.center == pytest.approx([1.0, 2.0, 1.6])
    assert pose.shake_end_array()[:3, 3] == pytest.approx([1.0, 2.1, 1.6])     # 0.05 s later at 2 m/s
    assert pose.shutter_s == 0.05


def test_carried_camera_turns_with_its_path():
    # a left circle of radius 1 from (1, 0) heading +y at pi/2 m/s: a quarter turn per second
    traj = PathTrajectory(path=Path(start=[1.0, 0.0], heading_deg=90.0, segments=[Arc(radius=1.0, angle_deg=360.0)]),
                          speed=SpeedProfile(times=[0.0], speeds=[math.pi / 2]), z=1.0)
    cam = CarriedCamera(trajectory=traj, depression_deg=0.0, hfov_deg=70.0, shutter_s=0.01)
    T = cam.cam_to_world(1.0)                          # at (0, 1) heading -x
    assert T[:3, 3] == pytest.approx([0.0, 1.0, 1.0], abs=1e-12)
    assert T[:3, 2] == pytest.approx([-1.0, 0.0, 0.0], abs=1e-12)


# ------------------------------------------------------------------ timeline and moved meshes

def _box_agent(track_id, traj):
    return Agent(track_id=track_id, category="box", mesh="box", size=[1.0, 1.0, 1.0], trajectory=traj)


def test_timeline_agent_lookup():
    cam = MountedCamera(position=[0.0, 0.0], height_m=3.0, depression_deg=10.0, yaw_deg=0.0, hfov_deg=60.0,
                        shutter_s=0.01)
    a = _box_agent("a", Stationary(position=[0.0, 0.0, 0.5]))
    b = _box_agent("b", Stationary(position=[2.0, 0.0, 0.5]))
    tl = Timeline(clip=ClipSpec(duration_s=1.0, sampling={"kind": "uniform", "k": 2}), agents=[a, b], camera=cam)
    assert tl.agent("b") is tl.agents[1]
    with pytest.raises(KeyError, match=r"^\"no agent 'c'\"$"):
        tl.agent("c")


def test_mesh_at_turns_and_moves_the_agent_from_its_build_pose():
    assert BUILD_T == 0.0
    # the agent starts at (0, 0) heading +x on a left circle of radius 1 at pi/2 m/s:
    # at t = 1 it is at (1, 1) heading +y, so its body turned 90 deg and moved by (1, 1)
    traj = PathTrajectory(path=Path(start=[0.0, 0.0], heading_deg=0.0, segments=[Arc(radius=1.0, angle_deg=360.0)]),
                          speed=SpeedProfile(times=[0.0], speeds=[math.pi / 2]), z=0.5)
    a = _box_agent("a", traj)
    still = _box_agent("s", Stationary(position=[9.0, 9.0, 0.5], yaw_deg=40.0))
    moves = agent_moves([a, still], {"a": 3, "s": 5}, 1.0)
    assert sorted(moves) == [3, 5]
    assert moves[5] == pytest.approx(np.eye(4), abs=1e-12)
    V = np.array([[0, 0, 0.5], [1, 0, 0.5], [0, 0, 1.5],           # object 3, at the build pose
                  [9, 9, 0], [10, 9, 0], [9, 10, 0]], float)         # object 5
    mesh = SceneMesh(V, np.array([[0, 1, 2], [3, 4, 5]]), np.array([3, 5]), np.array([3, 5]), np.array(["a", "s"]))
    moved = mesh_at(mesh, moves)
    # R90 (p - (0, 0, 0.5)) + (1, 1, 0.5): (1, 0) -> (0, 1) -> (1, 2)
    assert moved.vertices[:3] == pytest.approx(np.array([[1, 1, 0.5], [1, 2, 0.5], [1, 1, 1.5]]), abs=1e-6)
    assert moved.vertices[3:] == pytest.approx(V[3:], abs=1e-6)
    assert moved.triangles.tolist() == mesh.triangles.tolist()
    assert moved.tri_object_id.tolist() == [3, 5] and moved.object_names.tolist() == ["a", "s"]
    assert mesh.vertices[1].tolist() == [1.0, 0.0, 0.5]            # the input mesh is left as it was
