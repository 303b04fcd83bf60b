"""Camera model tests against hand-computed numbers."""
from __future__ import annotations

import math

import numpy as np
import pytest

from geometry.camera import (
    BlenderCamera,
    CameraPose,
    Phone,
    PhoneLens,
    Shake,
    backproject,
    blender_camera_from_intrinsics,
    blender_camera_from_pose,
    blender_to_cv_matrix,
    blur_at_target_px,
    circle_of_confusion_px,
    cv_to_blender_matrix,
    intrinsics_from_blender,
    look_at,
    motion_blur_px,
    pixel_rays,
    pose_for_phone,
    project,
    sample_focus,
    sample_phone,
    sample_phone_pose,
    shake_end_pose,
    view_angle_deg,
)


def _phone(focal=6.0, sensor=8.0, fnumber=2.0) -> Phone:
    lens = PhoneLens(
        name="main", focal_mm=focal, sensor_width_mm=sensor, sensor_height_mm=0.75 * sensor,
        fnumber=fnumber, equiv_focal_mm=focal * 43.27 / (1.25 * sensor),
    )
    tele = PhoneLens(
        name="tele", focal_mm=12.0, sensor_width_mm=4.0, sensor_height_mm=3.0,
        fnumber=2.8, equiv_focal_mm=100.0,
    )
    return Phone(model="phone-test", lenses=[lens, tele], max_digital_zoom=5.0)


def _pose(orientation="landscape", zoom=1.0, focus_m=1.0, mode="target", shake_end=None, T=None, long_px=4000):
    T = look_at([0, -3, 1], [0, 0, 1]) if T is None else T
    return pose_for_phone(_phone(), "main", zoom, orientation, long_px, T, mode, focus_m, 1 / 100, shake_end)


K640 = np.array([[500.0, 0, 319.5], [0, 500.0, 239.5], [0, 0, 1]])


# ---------------------------------------------------------------- projection / look_at


def test_project_backproject_round_trip():
    rng = np.random.default_rng(0)
    T = look_at([1.0, -4.0, 2.0], [0.2, 0.3, 0.5], roll_rad=0.3)
    pts = rng.uniform(-1, 1, size=(50, 3))
    uv, z = project(pts, K640, T)
    assert np.all(z > 0)
    back = backproject(uv, z, K640, T)
    np.testing.assert_allclose(back, pts, atol=1e-10)


def test_look_at_target_at_principal_point():
    T = look_at([3.0, -2.0, 1.5], [0.5, 0.5, 0.2], roll_rad=0.7)
    uv, z = project(np.array([[0.5, 0.5, 0.2]]), K640, T)
    np.testing.assert_allclose(uv[0], [319.5, 239.5], atol=1e-9)
    dist = np.linalg.norm(np.array([3.0, -2.0, 1.5]) - np.array([0.5, 0.5, 0.2]))
    assert z[0] == pytest.approx(dist)
    R = T[:3, :3]
    np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-12)
    assert np.linalg.det(R) == pytest.approx(1.0)


def test_axes_right_and_down():
    # Camera at origin looking along world +y with world +z up: right = +x, up = +z.
    T = look_at([0, 0, 0], [0, 5, 0])
    np.testing.assert_allclose(T[:3, 0], [1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(T[:3, 1], [0, 0, -1], atol=1e-12)
    uv, z = project(np.array([[1.0, 5.0, 0.0], [0.0, 5.0, 1.0]]), K640, T)
    assert uv[0, 0] > 319.5 and uv[0, 1] == pytest.approx(239.5)  # to the right
    assert uv[1, 1] < 239.5 and uv[1, 0] == pytest.approx(319.5)  # above
    assert uv[0, 0] == pytest.approx(319.5 + 500 * 1 / 5)


def test_point_behind_has_nonpositive_z():
    T = look_at([0, 0, 0], [0, 5, 0])
    _, z = project(np.array([[0, -2.0, 0]]), K640, T)
    assert z[0] == pytest.approx(-2.0)


def test_look_at_straight_down_and_up():
    for target in ([0, 0, -3.0], [0, 0, 3.0]):
        T = look_at([0, 0, 0], target)
        assert np.all(np.isfinite(T))
        np.testing.assert_allclose(T[:3, :3].T @ T[:3, :3], np.eye(3), atol=1e-12)
        np.testing.assert_allclose(T[:3, 2], np.sign(target[2]) * np.array([0, 0, 1.0]), atol=1e-12)


def test_roll_rotates_about_optical_axis():
    T0 = look_at([0, 0, 0], [0, 5, 0])
    T1 = look_at([0, 0, 0], [0, 5, 0], roll_rad=math.pi / 2)
    np.testing.assert_allclose(T1[:3, 2], T0[:3, 2], atol=1e-12)
    np.testing.assert_allclose(T1[:3, 0], T0[:3, 1], atol=1e-12)  # x turned onto old y


def test_pixel_rays():
    W, H = 4, 3
    K = np.array([[2.0, 0, 1.5], [0, 2.0, 1.0], [0, 0, 1]])
    T = look_at([0, 0, 0], [0, 5, 0])
    o, d, zpu = pixel_rays(K, T, W, H)
    assert o.shape == (12, 3) and d.shape == (12, 3) and zpu.shape == (12,)
    np.testing.assert_allclose(np.linalg.norm(d, axis=1), 1.0)
    # Row-major: index 1 is (u=1, v=0); a point at planar depth 4 along it reprojects there.
    t = 4.0 / zpu[1]
    uv, z = project(o[1:2] + t * d[1:2], K, T)
    np.testing.assert_allclose(uv[0], [1.0, 0.0], atol=1e-12)
    assert z[0] == pytest.approx(4.0)
    # Index 4 is (u=0, v=1): centre row so cosine factor = f / sqrt(f^2 + 1.5^2).
    assert zpu[4] == pytest.approx(2.0 / math.sqrt(4.0 + 1.5**2))


# ---------------------------------------------------------------- Blender <-> OpenCV


def test_intrinsics_from_blender_known_numbers():
    K = intrinsics_from_blender(35, 36, 24, "HORIZONTAL", 0, 0, 640, 480)
    assert K[0, 0] == pytest.approx(622.2222222222222)
    assert K[1, 1] == pytest.approx(622.2222222222222)
    assert (K[0, 2], K[1, 2]) == (319.5, 239.5)
    K = intrinsics_from_blender(35, 36, 24, "HORIZONTAL", 0.1, 0, 640, 480)
    assert K[0, 2] == pytest.approx(319.5 - 64)
    K = intrinsics_from_blender(35, 36, 24, "HORIZONTAL", 0, 0.1, 640, 480)
    assert K[1, 2] == pytest.approx(239.5 + 64)
    # Vertical fit uses sensor height against H.
    K = intrinsics_from_blender(35, 36, 24, "VERTICAL", 0.1, 0, 640, 480)
    assert K[0, 0] == pytest.approx(35 / 24 * 480)
    assert K[0, 2] == pytest.approx(319.5 - 48)
    # AUTO: sensor width against the larger side, portrait here.
    K = intrinsics_from_blender(35, 36, 24, "AUTO", 0, 0.1, 480, 640)
    assert K[0, 0] == pytest.approx(35 / 36 * 640)
    assert K[1, 2] == pytest.approx(319.5 + 64)


@pytest.mark.parametrize("orientation", ["landscape", "portrait"])
@pytest.mark.parametrize("zoom", [1.0, 2.5])
def test_blender_camera_from_pose_round_trip(orientation, zoom):
    pose = _pose(orientation, zoom)
    cam = blender_camera_from_pose(pose)
    assert cam.sensor_fit == ("HORIZONTAL" if orientation == "landscape" else "VERTICAL")
    long_mm = cam.sensor_width_mm if orientation == "landscape" else cam.sensor_height_mm
    assert long_mm == pytest.approx(8.0 / zoom, abs=1e-12)
    assert cam.lens_mm == pytest.approx(6.0, abs=1e-12)
    K = intrinsics_from_blender(
        cam.lens_mm, cam.sensor_width_mm, cam.sensor_height_mm, cam.sensor_fit,
        cam.shift_x, cam.shift_y, pose.width, pose.height,
    )
    np.testing.assert_allclose(K, pose.K_array(), atol=1e-9, rtol=0)
    np.testing.assert_allclose(cam.intrinsics(pose.width, pose.height), pose.K_array(), atol=1e-9, rtol=0)


def test_portrait_pose_dimensions_and_fit():
    pose = _pose("portrait")
    assert (pose.width, pose.height) == (3000, 4000)
    assert pose.K_array()[0, 0] == pytest.approx(6.0 / 8.0 * 4000)
    cam = blender_camera_from_pose(pose)
    assert cam.sensor_fit == "VERTICAL"
    assert cam.sensor_height_mm == pytest.approx(8.0)


@pytest.mark.parametrize("W,H", [(640, 480), (480, 640)])
def test_blender_camera_from_intrinsics_round_trip(W, H):
    K = np.array([[700.0, 0, (W - 1) / 2 + 12.25], [0, 700.0, (H - 1) / 2 - 7.5], [0, 0, 1]])
    cam = blender_camera_from_intrinsics(K, W, H)
    assert cam.lens_mm == pytest.approx(700.0 * 36.0 / 640)
    np.testing.assert_allclose(cam.intrinsics(W, H), K, atol=1e-9, rtol=0)


def test_blender_camera_rejects_non_square_pixels():
    K = np.array([[700.0, 0, 319.5], [0, 710.0, 239.5], [0, 0, 1]])
    with pytest.raises(ValueError):
        blender_camera_from_intrinsics(K, 640, 480)


def test_cv_blender_matrix():
    T = look_at([1, 2, 3], [0, 0, 0], roll_rad=0.2)
    np.testing.assert_allclose(cv_to_blender_matrix(cv_to_blender_matrix(T)), T, atol=1e-15)
    np.testing.assert_allclose(blender_to_cv_matrix(cv_to_blender_matrix(T)), T, atol=1e-15)
    B = cv_to_blender_matrix(T)
    np.testing.assert_allclose(-B[:3, 2], T[:3, 2])  # Blender looks down -Z
    np.testing.assert_allclose(B[:3, 1], -T[:3, 1])  # Blender +Y is image up


# ---------------------------------------------------------------- blur


def test_circle_of_confusion_hand_computed():
    pose = _pose(focus_m=1.0)  # f = 6 mm, N = 2, sensor 8 mm -> 4000 px
    T = pose.cam_to_world_array()
    pt = (T[:3, 3] + 2.0 * T[:3, 2])[None, :]  # planar depth 2 m
    c_mm = 3.0 * 0.5 * 6.0 / 994.0
    expected_px = c_mm / 8.0 * 4000
    assert circle_of_confusion_px(pose, pt)[0] == pytest.approx(expected_px, rel=1e-12)
    assert expected_px == pytest.approx(4.527162977867203)
    at_focus = (T[:3, 3] + 1.0 * T[:3, 2] + 0.3 * T[:3, 0])[None, :]  # planar depth 1 m
    assert circle_of_confusion_px(pose, at_focus)[0] == pytest.approx(0.0, abs=1e-12)
    # Digital zoom crops the sensor: the same blur circle covers more pixels.
    pose2 = _pose(focus_m=1.0, zoom=2.0)
    assert circle_of_confusion_px(pose2, pt)[0] == pytest.approx(2 * expected_px, rel=1e-12)


def test_pinhole_has_no_defocus():
    pose = _pose(focus_m=None, mode="pinhole")
    assert circle_of_confusion_px(pose, np.array([[0, 5.0, 1.0]]))[0] == 0.0


def test_motion_blur_pure_rotation():
    T = look_at([0, -3, 1], [0, 0, 1])
    omega, shutter = 0.1, 1 / 30
    shake = Shake(angular_velocity_rad_s=[0.0, omega, 0.0], linear_velocity_m_s=[0.0, 0.0, 0.0])
    end = shake_end_pose(T, shake, shutter)
    pose = _pose(T=T, mode="shake", shake_end=end)
    fx = pose.K_array()[0, 0]
    pt = np.array([[0.0, 0.0, 1.0]])  # on the optical axis
    expected = fx * math.tan(omega * shutter)
    assert motion_blur_px(pose, pt)[0] == pytest.approx(expected, rel=1e-9)
    assert blur_at_target_px(pose, pt[0]) == pytest.approx(
        circle_of_confusion_px(pose, pt)[0] + expected, rel=1e-9
    )
    steady = _pose(T=T)
    assert motion_blur_px(steady, pt)[0] == 0.0


def test_shake_end_translation_in_camera_axes():
    T = look_at([0, 0, 0], [0, 5, 0])
    shake = Shake(angular_velocity_rad_s=[0, 0, 0], linear_velocity_m_s=[0.03, 0, 0])
    end = shake_end_pose(T, shake, 0.1)
    np.testing.assert_allclose(end[:3, 3], [0.003, 0, 0], atol=1e-15)  # camera x = world x
    np.testing.assert_allclose(end[:3, :3], T[:3, :3])


def test_view_angle():
    assert view_angle_deg([0, 0, 5], [0, 0, 0], [0, 0, 1]) == pytest.approx(0.0)
    assert view_angle_deg([5, 0, 5], [0, 0, 0], [0, 0, 1]) == pytest.approx(45.0)
    assert view_angle_deg([0, 0, 5], [0, 0, 0], [0, 0, -1]) == pytest.approx(180.0)
    assert view_angle_deg([0, 0, 5], [0, 0, 0], [0, 0, -1], two_sided=True) == pytest.approx(0.0)


# ---------------------------------------------------------------- poses / validation


def test_pose_for_phone_k_and_json():
    pose = _pose(zoom=2.0)
    assert (pose.width, pose.height) == (4000, 3000)
    K = pose.K_array()
    assert K[0, 0] == pytest.approx(6.0 / 4.0 * 4000)
    assert (K[0, 2], K[1, 2]) == (1999.5, 1499.5)
    assert pose.sensor_width_mm == pytest.approx(4.0)
    assert pose.fnumber == 2.0
    np.testing.assert_allclose(pose.center, [0, -3, 1])
    again = CameraPose.model_validate_json(pose.model_dump_json())
    assert again.model_dump_json() == pose.model_dump_json()


def test_pose_validation():
    with pytest.raises(ValueError):
        _pose(zoom=6.0)  # beyond max_digital_zoom 5
    with pytest.raises(ValueError):
        _pose(mode="pinhole", focus_m=1.0)
    with pytest.raises(ValueError):
        _pose(mode="target", focus_m=None)
    with pytest.raises(KeyError):
        pose_for_phone(_phone(), "ultrawide", 1.0, "landscape", 400, np.eye(4), "target", 1.0, 0.01)


# ---------------------------------------------------------------- sampling


def test_sample_phone_ranges():
    rng = np.random.default_rng(1)
    phones = [sample_phone(rng) for _ in range(500)]
    n_uw = n_tele = 0
    for p in phones:
        assert p.model.startswith("phone-")
        main = p.lenses[0]
        assert main.name == "main"
        assert 24 <= main.equiv_focal_mm <= 28
        assert 5.6 <= main.sensor_width_mm <= 9.8
        assert 1.6 <= main.fnumber <= 2.4
        assert main.sensor_height_mm == pytest.approx(0.75 * main.sensor_width_mm)
        assert main.focal_mm == pytest.approx(main.equiv_focal_mm * 1.25 * main.sensor_width_mm / 43.27)
        assert 2 <= p.max_digital_zoom <= 10
        for lens in p.lenses[1:]:
            if lens.name == "ultrawide":
                n_uw += 1
                assert 13 <= lens.equiv_focal_mm <= 16 and 2.0 <= lens.fnumber <= 2.4
                assert 4.0 <= lens.sensor_width_mm <= 6.4
            else:
                assert lens.name == "tele"
                n_tele += 1
                assert 65 <= lens.equiv_focal_mm <= 120 and 2.4 <= lens.fnumber <= 3.0
                assert 3.6 <= lens.sensor_width_mm <= 5.6
    assert 0.33 < n_uw / 500 < 0.47
    assert 0.28 < n_tele / 500 < 0.42


def test_sample_focus_frequencies_and_ranges():
    rng = np.random.default_rng(2)
    counts = {"target": 0, "locked_elsewhere": 0, "shake": 0}
    for i in range(4000):
        target = 0.3 + (i % 37) * 0.5
        mode, focus, shutter, shake = sample_focus(rng, target)
        counts[mode] += 1
        if mode == "target":
            assert focus == target and shake is None
            assert 1 / 500 <= shutter <= 1 / 60
        elif mode == "locked_elsewhere":
            assert shake is None
            assert 0.1 <= focus <= 30
            assert abs(focus - target) >= 0.35 * target - 1e-12
        else:
            assert focus == target
            assert 1 / 500 <= shutter <= 1 / 25
            w = np.linalg.norm(shake.angular_velocity_rad_s)
            v = np.linalg.norm(shake.linear_velocity_m_s)
            assert 0.02 <= w <= 0.2 and 0 <= v <= 0.05
    assert abs(counts["target"] / 4000 - 0.70) < 0.03
    assert abs(counts["locked_elsewhere"] / 4000 - 0.15) < 0.03
    assert abs(counts["shake"] / 4000 - 0.15) < 0.03


@pytest.mark.parametrize("target", [0.12, 1.0, 25.0])
def test_locked_elsewhere_push_stays_in_range(target):
    rng = np.random.default_rng(3)
    seen = 0
    for _ in range(300):
        mode, focus, _, _ = sample_focus(rng, target)
        if mode == "locked_elsewhere":
            seen += 1
            assert 0.1 <= focus <= 30 and abs(focus - target) >= 0.35 * target - 1e-12
    assert seen > 0


def test_sample_phone_pose_deterministic_and_consistent():
    def draw(seed):
        rng = np.random.default_rng(seed)
        phone = sample_phone(rng)
        T = look_at([0, -4, 1.5], [0, 0, 0.8])
        poses = [sample_phone_pose(rng, phone, T, [0, 0, 0.8], 1024) for _ in range(40)]
        return phone, poses

    phone_a, poses_a = draw(7)
    phone_b, poses_b = draw(7)
    assert phone_a.model_dump_json() == phone_b.model_dump_json()
    assert [p.model_dump_json() for p in poses_a] == [p.model_dump_json() for p in poses_b]
    for p in poses_a:
        assert p.long_side_px == 1024 and min(p.width, p.height) == 768
        assert 1.0 <= p.digital_zoom <= min(3.0, phone_a.max_digital_zoom)
        assert (p.shake_end_cam_to_world is not None) == (p.focus_mode == "shake")
        if p.focus_mode != "locked_elsewhere":
            dist = np.linalg.norm(np.array([0, -4, 1.5]) - np.array([0, 0, 0.8]))
            assert p.focus_distance_m == pytest.approx(dist)
        assert phone_a.has_lens(p.lens.name)
        cam = blender_camera_from_pose(p)
        np.testing.assert_allclose(cam.intrinsics(p.width, p.height), p.K_array(), atol=1e-9, rtol=0)


def test_sample_phone_pose_lens_mix():
    rng = np.random.default_rng(11)
    lens = PhoneLens(name="main", focal_mm=6, sensor_width_mm=8, sensor_height_mm=6, fnumber=1.8, equiv_focal_mm=26)
    uw = lens.model_copy(update={"name": "ultrawide", "focal_mm": 2.5})
    tele = lens.model_copy(update={"name": "tele", "focal_mm": 12})
    full = Phone(model="phone-0000", lenses=[lens, uw, tele], max_digital_zoom=5)
    only_main = Phone(model="phone-0001", lenses=[lens], max_digital_zoom=5)
    T = look_at([0, -4, 1.5], [0, 0, 0.8])
    names = [sample_phone_pose(rng, full, T, [0, 0, 0.8], 256).lens.name for _ in range(2000)]
    assert abs(names.count("main") / 2000 - 0.8) < 0.03
    assert abs(names.count("ultrawide") / 2000 - 0.1) < 0.03
    assert all(sample_phone_pose(rng, only_main, T, [0, 0, 0.8], 256).lens.name == "main" for _ in range(100))
    orient = [sample_phone_pose(rng, full, T, [0, 0, 0.8], 256).orientation for _ in range(2000)]
    assert abs(orient.count("landscape") / 2000 - 0.6) < 0.04
    with pytest.raises(ValueError):
        sample_phone_pose(rng, full, T, [0, -8, 0.8], 256)  # behind the camera


def test_blender_camera_model_fields():
    cam = BlenderCamera(lens_mm=35, sensor_fit="HORIZONTAL", sensor_width_mm=36, sensor_height_mm=24)
    np.testing.assert_allclose(cam.intrinsics(640, 480)[0, 0], 622.2222222222222)


class _StuckRng:
    """Generator stand-in that always lands on the target: forces the push branch."""

    def __init__(self, target):
        self.target = target

    def random(self):
        return 0.75  # the locked_elsewhere band

    def uniform(self, lo, hi):
        return math.log(self.target)  # every log-uniform draw returns the target


@pytest.mark.parametrize("target,expected", [(1.0, 1.35), (25.0, 16.25), (0.12, 0.162)])
def test_locked_elsewhere_push(target, expected):
    mode, focus, _, _ = sample_focus(_StuckRng(target), target)
    assert mode == "locked_elsewhere"
    assert focus == pytest.approx(expected)
