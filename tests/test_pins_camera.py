"""Pinned values for geometry/camera.py, checked against OpenCV (projectPoints, Rodrigues) and hand
arithmetic; thresholds just inside and just outside (issue #16, mutation strength)."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from geometry.camera import (
    BlenderCamera,
    CameraPose,
    Phone,
    PhoneLens,
    Shake,
    _fit_scale,
    _make_lens,
    _rodrigues,
    backproject,
    blender_camera_from_intrinsics,
    blur_at_target_px,
    circle_of_confusion_px,
    cv_to_blender_matrix,
    blender_to_cv_matrix,
    intrinsics_from_blender,
    look_at,
    motion_blur_px,
    pixel_rays,
    planar_depth,
    pose_for_phone,
    project,
    shake_end_pose,
    view_angle_deg,
    world_to_camera,
)

LENS = PhoneLens(name="main", focal_mm=6.0, sensor_width_mm=8.0, sensor_height_mm=6.0, fnumber=2.0,
                 equiv_focal_mm=26.0)
PHONE = Phone(model="phone-abcd", lenses=[LENS], max_digital_zoom=4.0)


def pose(**over):
    kw = dict(width=40, height=30, K=[[50.0, 0, 19.5], [0, 50.0, 14.5], [0, 0, 1]], cam_to_world=np.eye(4).tolist(),
              orientation="landscape", lens=LENS, sensor_width_mm=8.0, focus_mode="target", focus_distance_m=1.0,
              shutter_s=0.01)
    kw.update(over)
    return CameraPose(**kw)


# ------------------------------------------------------------------ models


def test_phone_lens_lookup():
    assert PHONE.lens("main") is LENS
    assert PHONE.has_lens("main") and not PHONE.has_lens("tele")
    with pytest.raises(KeyError, match=r"phone-abcd has no 'tele' lens \(has \['main'\]\)"):
        PHONE.lens("tele")


@pytest.mark.parametrize("over", [
    dict(width=0), dict(height=0), dict(width=-3), dict(K=[[1, 0], [0, 1]]), dict(cam_to_world=np.eye(3).tolist()),
    dict(shake_end_cam_to_world=np.eye(3).tolist()), dict(focus_mode="pinhole"),
    dict(focus_distance_m=None), dict(focus_distance_m=0.006), dict(focus_distance_m=0.005),
    dict(digital_zoom=0.999), dict(shutter_s=0.0), dict(shutter_s=-1.0),
])
def test_camera_pose_rejects(over):
    with pytest.raises(ValueError):
        pose(**over)


def test_camera_pose_accepts_boundaries_and_arrays():
    p = pose(width=1, height=1, focus_distance_m=0.0061, digital_zoom=1.0, shutter_s=1e-6,
             shake_end_cam_to_world=np.eye(4).tolist())
    assert p.shake_end_array().shape == (4, 4) and p.shake_end_array().dtype == np.float64
    q = pose(focus_mode="pinhole", focus_distance_m=None, cam_to_world=look_at([1, 2, 3], [0, 0, 0]).tolist())
    assert q.shake_end_array() is None
    np.testing.assert_allclose(q.center, [1, 2, 3])
    assert q.K_array().dtype == np.float64 and q.K_array()[0, 2] == 19.5
    assert q.fnumber == 2.0 and q.long_side_px == 40 and pose(width=30, height=41).long_side_px == 41


# ------------------------------------------------------------------ Blender <-> OpenCV


def test_fit_scale():
    assert _fit_scale("AUTO", 40, 30) == ("HORIZONTAL", 40)
    assert _fit_scale("AUTO", 30, 30) == ("HORIZONTAL", 30)
    assert _fit_scale("AUTO", 30, 40) == ("VERTICAL", 40)
    assert _fit_scale("HORIZONTAL", 30, 40) == ("HORIZONTAL", 30)
    assert _fit_scale("VERTICAL", 40, 30) == ("VERTICAL", 30)
    with pytest.raises(ValueError, match="unknown sensor_fit"):
        _fit_scale("DIAGONAL", 4, 3)


def test_intrinsics_from_blender_worked_examples():
    K = intrinsics_from_blender(50.0, 36.0, 24.0, "HORIZONTAL", 0.1, -0.05, 1920, 1080)
    np.testing.assert_allclose(K, [[50 / 36 * 1920, 0, 959.5 - 192.0], [0, 50 / 36 * 1920, 539.5 - 96.0], [0, 0, 1]])
    K = intrinsics_from_blender(50.0, 36.0, 24.0, "VERTICAL", 0.1, 0.05, 1920, 1080)
    np.testing.assert_allclose(K, [[50 / 24 * 1080, 0, 959.5 - 108.0], [0, 50 / 24 * 1080, 539.5 + 54.0], [0, 0, 1]])
    # AUTO on a portrait frame: sensor *width* against the larger (vertical) side
    K = intrinsics_from_blender(50.0, 36.0, 24.0, "AUTO", 0.0, 0.0, 1080, 1920)
    np.testing.assert_allclose(K[0, 0], 50 / 36 * 1920)
    np.testing.assert_allclose(K[:2, 2], [539.5, 959.5])
    cam = BlenderCamera(lens_mm=50.0, sensor_fit="VERTICAL", sensor_width_mm=36.0, sensor_height_mm=24.0,
                        shift_x=0.1, shift_y=0.05)
    np.testing.assert_allclose(cam.intrinsics(1920, 1080), intrinsics_from_blender(50, 36, 24, "VERTICAL", .1, .05,
                                                                                  1920, 1080))


def test_blender_camera_from_intrinsics_worked_examples():
    K = np.array([[1000.0, 0, 300.0], [0, 1000.0, 250.0], [0, 0, 1]])
    cam = blender_camera_from_intrinsics(K, 800, 600, sensor_long_mm=36.0)
    assert cam.sensor_fit == "HORIZONTAL"
    assert (cam.lens_mm, cam.sensor_width_mm, cam.sensor_height_mm) == pytest.approx((45.0, 36.0, 27.0))
    assert (cam.shift_x, cam.shift_y) == pytest.approx(((399.5 - 300) / 800, (250 - 299.5) / 800))
    cam = blender_camera_from_intrinsics(K, 600, 800)
    assert cam.sensor_fit == "VERTICAL"
    assert (cam.lens_mm, cam.sensor_width_mm, cam.sensor_height_mm) == pytest.approx((45.0, 27.0, 36.0))
    assert (cam.shift_x, cam.shift_y) == pytest.approx(((299.5 - 300) / 800, (250 - 399.5) / 800))
    sq = blender_camera_from_intrinsics(K, 500, 500, sensor_long_mm=20.0)
    assert sq.sensor_fit == "HORIZONTAL" and sq.lens_mm == pytest.approx(40.0)
    np.testing.assert_allclose(cam.intrinsics(600, 800), K, atol=1e-9)


def test_square_pixel_check_tolerances():
    base = np.array([[1000.0, 0, 300.0], [0, 1000.0, 250.0], [0, 0, 1]])
    ok = base.copy()
    ok[1, 1] = 1000.0 * (1 + 1e-10)
    ok[0, 1] = 1e-13
    blender_camera_from_intrinsics(ok, 800, 600)
    for i, j, val in [(1, 1, 1000.0 * (1 + 1e-8)), (0, 0, 999.999), (0, 1, 1e-11), (0, 1, -1e-11)]:
        bad = base.copy()
        bad[i, j] = val
        with pytest.raises(ValueError, match="square pixels"):
            blender_camera_from_intrinsics(bad, 800, 600)


def test_cv_blender_flip():
    T = look_at([1, 2, 3], [0, 0, 0])
    B = cv_to_blender_matrix(T)
    np.testing.assert_allclose(B[:3, 0], T[:3, 0])
    np.testing.assert_allclose(B[:3, 1], -T[:3, 1])  # Blender +Y up = -OpenCV y (down)
    np.testing.assert_allclose(B[:3, 2], -T[:3, 2])  # Blender looks down -Z
    np.testing.assert_allclose(B[:3, 3], T[:3, 3])
    np.testing.assert_allclose(blender_to_cv_matrix(B), T)
    np.testing.assert_allclose(cv_to_blender_matrix(np.eye(4)), np.diag([1.0, -1, -1, 1]))


# ------------------------------------------------------------------ poses and projection


def test_look_at_hand_example_and_fallback():
    T = look_at([0, -5, 0], [0, 0, 0])  # looking along +y, z up
    np.testing.assert_allclose(T[:3, :3], [[1, 0, 0], [0, 0, 1], [0, -1, 0]], atol=1e-12)
    np.testing.assert_allclose(T[:3, 3], [0, -5, 0])
    np.testing.assert_allclose(T[3], [0, 0, 0, 1])
    down = look_at([0, 0, 5], [0, 0, 0])  # view parallel to up: fallback alt (0,1,0) -> x = z x y
    np.testing.assert_allclose(down[:3, 2], [0, 0, -1])
    np.testing.assert_allclose(down[:3, 0], [1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(down[:3, 1], [0, -1, 0], atol=1e-12)
    along_y = look_at([0, 0, 0], [0, 3, 0], up=(0, 1, 0))  # parallel to up and to the first alt
    np.testing.assert_allclose(along_y[:3, 0], [0, 0, -1], atol=1e-12)
    scaled = look_at([0, -5, 0], [0, 0, 0], up=(0, 0, 1e-6))  # a tiny up is still a direction
    np.testing.assert_allclose(scaled, T, atol=1e-12)
    rolled = look_at([0, -5, 0], [0, 0, 0], roll_rad=math.pi / 2)
    np.testing.assert_allclose(rolled[:3, 0], T[:3, 1], atol=1e-12)
    np.testing.assert_allclose(rolled[:3, 1], -T[:3, 0], atol=1e-12)
    with pytest.raises(ValueError):
        look_at([1, 1, 1], [1, 1, 1])
    assert np.linalg.det(T[:3, :3]) == pytest.approx(1.0)


def test_projection_matches_opencv():
    rng = np.random.default_rng(5)
    T = look_at([1.0, -4.0, 2.0], [0.2, 0.1, 0.5], roll_rad=0.3)
    K = np.array([[800.0, 0, 330.0], [0, 800.0, 235.0], [0, 0, 1]])
    P = rng.uniform(-1, 1, (50, 3))
    R = T[:3, :3].T
    rvec, _ = cv2.Rodrigues(R)
    tvec = -R @ T[:3, 3]
    ref, _ = cv2.projectPoints(P, rvec, tvec, K, None)
    uv, z = project(P, K, T)
    np.testing.assert_allclose(uv, ref.reshape(-1, 2), atol=1e-7)
    np.testing.assert_allclose(z, (P @ R.T + tvec)[:, 2], atol=1e-12)
    np.testing.assert_allclose(planar_depth(P, T), z)
    np.testing.assert_allclose(world_to_camera(P, T), P @ R.T + tvec, atol=1e-12)
    np.testing.assert_allclose(backproject(uv, z, K, T), P, atol=1e-9)


def test_pixel_rays_order_and_depth_factor():
    K = np.array([[10.0, 0, 1.0], [0, 10.0, 0.5], [0, 0, 1]])
    T = look_at([0, 0, 0], [0, 0, 5], up=(0, -1, 0))  # camera = world axes
    np.testing.assert_allclose(T[:3, :3], np.eye(3), atol=1e-12)
    o, d, zf = pixel_rays(K, T, 3, 2)
    assert o.shape == (6, 3) and d.shape == (6, 3) and zf.shape == (6,)
    raw = np.array([[(u - 1.0) / 10, (v - 0.5) / 10, 1.0] for v in range(2) for u in range(3)])
    np.testing.assert_allclose(d, raw / np.linalg.norm(raw, axis=1)[:, None], atol=1e-12)
    np.testing.assert_allclose(zf, 1 / np.linalg.norm(raw, axis=1))
    T2 = look_at([1, 2, 3], [1, 2 + 5, 3])
    o2, d2, _ = pixel_rays(K, T2, 3, 2)
    np.testing.assert_allclose(o2, np.tile([1, 2, 3], (6, 1)))
    np.testing.assert_allclose(d2, d @ T2[:3, :3].T, atol=1e-12)


# ------------------------------------------------------------------ phones


def test_make_lens_worked_example():
    lens = _make_lens("tele", 86.54, 4.0, 2.8)
    # diag = 1.25 * 4 = 5 mm; 86.54 * 5 / 43.27 = 10 mm
    assert lens.focal_mm == pytest.approx(10.0)
    assert (lens.name, lens.sensor_width_mm, lens.sensor_height_mm, lens.fnumber, lens.equiv_focal_mm) == (
        "tele", 4.0, 3.0, 2.8, 86.54)


def test_pose_for_phone_worked_example():
    T = look_at([0, -3, 1], [0, 0, 1])
    p = pose_for_phone(PHONE, "main", 2.0, "portrait", 1001, T, "target", 2.0, 0.005)
    assert (p.width, p.height) == (751, 1001)  # round(750.75)
    f = 6.0 / (8.0 / 2.0) * 1001
    np.testing.assert_allclose(p.K, [[f, 0, 375.0], [0, f, 500.0], [0, 0, 1]])
    assert p.sensor_width_mm == 4.0 and p.digital_zoom == 2.0 and p.orientation == "portrait"
    np.testing.assert_allclose(p.cam_to_world, T)
    assert p.focus_distance_m == 2.0 and p.shutter_s == 0.005 and p.shake_end_cam_to_world is None
    q = pose_for_phone(PHONE, "main", 4.0, "landscape", 400, T, "pinhole", None, 0.01, shake_end=np.eye(4))
    assert (q.width, q.height) == (400, 300) and q.focus_distance_m is None
    assert q.shake_end_cam_to_world == np.eye(4).tolist()
    pose_for_phone(PHONE, "main", 4.0 + 1e-13, "landscape", 400, T, "pinhole", None, 0.01)
    for zoom in (0.999, 4.001):
        with pytest.raises(ValueError, match="digital_zoom"):
            pose_for_phone(PHONE, "main", zoom, "landscape", 400, T, "pinhole", None, 0.01)
    with pytest.raises(ValueError, match="orientation"):
        pose_for_phone(PHONE, "main", 1.0, "square", 400, T, "pinhole", None, 0.01)


# ------------------------------------------------------------------ blur


def test_rodrigues_matches_opencv():
    for rv in ([0.3, -0.2, 0.5], [0.0, 0.0, math.pi / 2], [1e-3, 0, 0]):
        ref, _ = cv2.Rodrigues(np.array(rv, dtype=np.float64))
        np.testing.assert_allclose(_rodrigues(np.array(rv)), ref, atol=1e-12)
    assert np.array_equal(_rodrigues(np.zeros(3)), np.eye(3))


def test_shake_end_pose_worked_example():
    T = look_at([0, -2, 0], [0, 0, 0])  # camera x = world x, y = world -z, z = world +y
    shake = Shake(angular_velocity_rad_s=[0.0, 0.0, 0.0], linear_velocity_m_s=[1.0, 2.0, 3.0])
    end = shake_end_pose(T, shake, 0.1)
    np.testing.assert_allclose(end[:3, 3], [0.1, -2 + 0.3, -0.2], atol=1e-12)
    np.testing.assert_allclose(end[:3, :3], T[:3, :3], atol=1e-12)
    np.testing.assert_allclose(end[3], [0, 0, 0, 1])
    rot = Shake(angular_velocity_rad_s=[0.0, 2.0, 0.0], linear_velocity_m_s=[0.0, 0.0, 0.0])
    end = shake_end_pose(T, rot, 0.25)  # 0.5 rad about camera y
    ref, _ = cv2.Rodrigues(np.array([0.0, 0.5, 0.0]))
    np.testing.assert_allclose(end[:3, :3], T[:3, :3] @ ref, atol=1e-12)


def test_circle_of_confusion_worked_example():
    p = pose(focus_distance_m=1.0, width=4000, height=3000)
    # f = 6, A = 3, S1 = 1000, S2 = 2000: c = 3 * 1000/2000 * 6/994 mm over 8 mm -> px on 4000
    c = circle_of_confusion_px(p, [[0, 0, 2.0], [0, 0, 1.0], [0, 0, -1.0], [0, 0, 0.0]])
    expect = 3 * 0.5 * 6 / 994 / 8.0 * 4000
    assert c[0] == pytest.approx(expect) and c[1] == 0.0
    assert np.isinf(c[2]) and np.isinf(c[3])
    assert circle_of_confusion_px(pose(focus_mode="pinhole", focus_distance_m=None), [[0, 0, 2.0]]).tolist() == [0.0]


def test_motion_blur_and_blur_at_target():
    end = np.eye(4)
    end[0, 3] = 0.01  # 1 cm sideways
    p = pose(shake_end_cam_to_world=end.tolist(), focus_distance_m=2.0)
    mb = motion_blur_px(p, [[0, 0, 2.0], [0.3, 0, 4.0], [0, 0, -1.0]])
    assert mb[0] == pytest.approx(50.0 * 0.01 / 2.0) and mb[1] == pytest.approx(50.0 * 0.01 / 4.0)
    assert np.isinf(mb[2])
    assert motion_blur_px(pose(), [[0, 0, 2.0]]).tolist() == [0.0]
    coc = circle_of_confusion_px(p, [[0, 0, 4.0]])[0]
    assert coc > 0
    assert blur_at_target_px(p, [0, 0, 4.0]) == pytest.approx(coc + 0.125)
    assert blur_at_target_px(p, [0, 0, 2.0]) == pytest.approx(0.25)


def test_view_angle_one_and_two_sided():
    assert view_angle_deg([0, 0, 5.0], [0, 0, 0], [0, 0, 2.0]) == pytest.approx(0.0, abs=1e-6)
    assert view_angle_deg([0, 0, 5.0], [0, 0, 0], [0, 0, -1.0]) == pytest.approx(180.0)
    assert view_angle_deg([0, 0, 5.0], [0, 0, 0], [0, 0, -1.0], two_sided=True) == pytest.approx(0.0, abs=1e-6)
    assert view_angle_deg([1.0, 0, -math.sqrt(3)], [0, 0, 0], [0, 0, 1.0]) == pytest.approx(150.0)
    assert view_angle_deg([1.0, 0, -math.sqrt(3)], [0, 0, 0], [0, 0, 1.0], two_sided=True) == pytest.approx(30.0)
    out = view_angle_deg(np.zeros((2, 3)), [[0, 0, 1.0], [0, 1.0, 1.0]], [[0, 0, 1.0], [0, 0, 1.0]])
    assert isinstance(out, np.ndarray) and out.tolist() == pytest.approx([180.0, 135.0])
    assert isinstance(view_angle_deg([0, 0, 1.0], [0, 0, 0], [0, 0, 1.0]), float)


# ------------------------------------------------------------ properties (hypothesis)

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_c = st.floats(-5.0, 5.0, allow_nan=False)


@settings(max_examples=80, deadline=None, derandomize=True)
@given(eye=st.tuples(_c, _c, _c), tgt=st.tuples(_c, _c, _c), roll=st.floats(-3.0, 3.0),
       u=st.floats(-50.0, 700.0), v=st.floats(-50.0, 500.0), z=st.floats(0.1, 30.0),
       f=st.floats(200.0, 900.0))
def test_look_at_is_a_rotation_and_projection_inverts_backprojection(eye, tgt, roll, u, v, z, f):
    """look_at gives a right-handed orthonormal frame whose +z points at the target; a pixel
    backprojected to planar depth z projects back to the same pixel at depth z."""
    if np.linalg.norm(np.subtract(tgt, eye)) < 0.1:
        return
    T = look_at(eye, tgt, roll_rad=roll)
    R = T[:3, :3]
    assert np.allclose(R.T @ R, np.eye(3), atol=1e-9) and np.linalg.det(R) == pytest.approx(1.0)
    fwd = np.subtract(tgt, eye) / np.linalg.norm(np.subtract(tgt, eye))
    assert np.allclose(R[:, 2], fwd, atol=1e-9) and np.allclose(T[:3, 3], eye) and T[3].tolist() == [0, 0, 0, 1]
    K = np.array([[f, 0.0, 319.5], [0.0, f * 1.0, 239.5], [0.0, 0.0, 1.0]])
    X = backproject([[u, v]], [z], K, T)
    uv, depth = project(X, K, T)
    assert np.allclose(uv, [[u, v]], atol=1e-6) and depth == pytest.approx([z], rel=1e-9)
    # the target itself projects to the principal point
    uv_t, z_t = project(np.array([tgt]), K, T)
    assert np.allclose(uv_t, [[319.5, 239.5]], atol=1e-6) and z_t[0] == pytest.approx(np.linalg.norm(np.subtract(tgt, eye)))


# ------------------------------------------------------------ edges (issue #16, second pass)

def test_sample_phone_golden_draws_for_fixed_seeds():
    """Same seed, same phone: the first draws of seeds 0 and 5 written out (model id, then lenses)."""
    from geometry.camera import sample_phone
    p0 = sample_phone(np.random.default_rng(0))
    assert p0.model == "phone-d9c2" and [lens.name for lens in p0.lenses] == ["main"]
    assert (p0.lenses[0].equiv_focal_mm, p0.lenses[0].sensor_width_mm, p0.lenses[0].fnumber) == pytest.approx(
        (25.079147, 5.772089, 1.613222), abs=1e-6)
    assert p0.max_digital_zoom == pytest.approx(6.853086, abs=1e-6)
    p5 = sample_phone(np.random.default_rng(5))
    assert p5.model == "phone-abb8" and [lens.name for lens in p5.lenses] == ["main", "ultrawide", "tele"]
    assert [(lens.equiv_focal_mm, lens.sensor_width_mm, lens.fnumber) for lens in p5.lenses] == [
        pytest.approx((27.231763, 7.764367, 1.828641), abs=1e-6),
        pytest.approx((14.150107, 4.980336, 2.01811), abs=1e-6),
        pytest.approx((119.954686, 4.904738, 2.540706), abs=1e-6)]


def test_square_pixel_skew_limit_is_inclusive_and_message():
    K = np.array([[1000.0, 1e-12, 300.0], [0, 1000.0, 250.0], [0, 0, 1]])
    blender_camera_from_intrinsics(K, 800, 600)          # |skew| == 1e-12 is still "no skew"
    K[0, 1] = 2e-12
    with pytest.raises(ValueError, match=r"^Blender cameras need square pixels and no skew "
                                         r"\(fx == fy, K\[0,1\] == 0\)$"):
        blender_camera_from_intrinsics(K, 800, 600)


def test_pixel_rays_of_an_integer_pose_are_float():
    K = [[10, 0, 1], [0, 10, 0], [0, 0, 1]]
    T = [[1, 0, 0, 3], [0, 1, 0, 4], [0, 0, 1, 5], [0, 0, 0, 1]]
    origins, dirs, zpu = pixel_rays(K, T, 3, 1)
    assert origins.dtype == np.float64 and dirs.dtype == np.float64
    assert origins.tolist() == [[3.0, 4.0, 5.0]] * 3
    n = math.sqrt(1.01)                                    # pixel (0, 0): direction (-0.1, 0, 1)
    assert dirs[0] == pytest.approx([-0.1 / n, 0.0, 1 / n]) and zpu[1] == 1.0


def test_backproject_scalar_and_column_depths():
    K = np.array([[100.0, 0, 50.0], [0, 100.0, 40.0], [0, 0, 1]])
    T = np.eye(4)
    T[:3, 3] = [1.0, 2.0, 3.0]
    # pixel (150, 40) at depth 2: x = (150 - 50) / 100 * 2 = 2, then shifted by the centre
    assert backproject([150.0, 40.0], 2.0, K, T).tolist() == [[3.0, 2.0, 5.0]]
    col = backproject([[50.0, 40.0], [50.0, 140.0]], [[1.0], [4.0]], K, T)
    assert col.shape == (2, 3) and col.tolist() == [[1.0, 2.0, 4.0], [1.0, 6.0, 7.0]]


def test_circle_of_confusion_close_to_the_lens_and_on_its_plane():
    import warnings
    p = pose(focus_distance_m=1.0, width=4000, height=3000)
    # S2 = 0.5 mm (just in front of the camera): c = 3 * |0.5 - 1000| / 0.5 * 6 / 994 mm, over 8 mm -> 4000 px
    c = circle_of_confusion_px(p, [[0, 0, 0.0005]])[0]
    assert c == pytest.approx(3 * 999.5 / 0.5 * 6 / 994 / 8.0 * 4000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                     # on the camera plane: inf, with no RuntimeWarning
        assert circle_of_confusion_px(p, [[0.3, 0.0, 0.0]]).tolist() == [math.inf]


def test_motion_blur_close_points_and_points_the_camera_passes():
    end = np.eye(4)
    end[0, 3] = 0.001                                      # 1 mm sideways
    p = pose(shake_end_cam_to_world=end.tolist(), focus_distance_m=2.0)
    # 0.5 m in front: f * dx / z = 50 * 0.001 / 0.5 = 0.1 px, both ends in front of the camera
    assert motion_blur_px(p, [[0, 0, 0.5]])[0] == pytest.approx(0.1)
    fwd = np.eye(4)
    fwd[2, 3] = 2.0                                        # the camera moves 2 m forward during the exposure
    q = pose(shake_end_cam_to_world=fwd.tolist(), focus_distance_m=2.0)
    # in front at shutter open (z = 1), behind at close (z = -1); in front, then at the camera centre
    assert motion_blur_px(q, [[0, 0, 1.0], [0, 0, 2.0]]).tolist() == [math.inf, math.inf]
    back = np.eye(4)
    back[2, 3] = -2.0                                      # moving back: behind at open, in front at close
    r = pose(shake_end_cam_to_world=back.tolist(), focus_distance_m=2.0)
    # behind at open, in front at close; at the camera centre at open, in front at close
    assert motion_blur_px(r, [[0, 0, -1.0], [0, 0, 0.0]]).tolist() == [math.inf, math.inf]


def test_view_angle_non_unit_normal_and_rounding_at_the_ends():
    # ray at 30 deg to +z; a short normal must give the same angle
    assert view_angle_deg([1.0, 0, math.sqrt(3)], [0, 0, 0], [0, 0, 0.5]) == pytest.approx(30.0)
    assert view_angle_deg([1.0, 0, math.sqrt(3)], [0, 0, 0], [0, 0, 0.5], two_sided=True) == pytest.approx(30.0)
    # (2.8, 1.3, 0.2) normalised dotted with itself rounds to 1 + 2^-52: still exactly 0 (and 180), never nan
    v = [2.8, 1.3, 0.2]
    assert view_angle_deg(v, [0, 0, 0], v) == 0.0
    assert view_angle_deg(v, [0, 0, 0], [-x for x in v]) == 180.0
    assert type(view_angle_deg(v, [0, 0, 0], v)) is float   # a plain float (yaml.safe_dump can write it)


def test_sample_phone_pose_zoom_mix_and_near_targets():
    from geometry.camera import sample_phone_pose
    rng = np.random.default_rng(21)
    phone = Phone(model="phone-0002", lenses=[LENS], max_digital_zoom=5.0)
    T = look_at([0, -4, 1.5], [0, 0, 0.8])
    zooms = np.array([sample_phone_pose(rng, phone, T, [0, 0, 0.8], 64).digital_zoom for _ in range(2000)])
    zoomed = zooms[zooms != 1.0]
    # 80% of photos are not zoomed; the rest are uniform on [1, min(3, max zoom)]
    assert abs(len(zoomed) / 2000 - 0.2) < 0.03
    assert zoomed.min() < 1.05 and zoomed.max() > 2.95 and zoomed.max() <= 3.0
    # a target half a metre in front of the lens is fine; one on the camera plane is "behind"
    eye = look_at([0, 0, 0], [0, 1, 0])
    p = sample_phone_pose(rng, phone, eye, [0, 0.5, 0], 64)
    assert p.focus_mode != "target" or p.focus_distance_m == pytest.approx(0.5)
    for behind in ([0, 0, 1.0], [0, -1.0, 0]):
        with pytest.raises(ValueError, match=r"^target point is behind the camera$"):
            sample_phone_pose(rng, phone, eye, behind, 64)


def test_project_on_the_camera_plane_and_at_the_centre_is_quiet():
    import warnings
    K = np.array([[100.0, 0, 50.0], [0, 100.0, 40.0], [0, 0, 1]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")                     # the caller masks z <= 0; no RuntimeWarning
        uv, z = project([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]], K, np.eye(4))
    assert z.tolist() == [0.0, 0.0]
    assert uv[0, 0] == math.inf and np.isnan(uv[0, 1])   # (100, 0) / 0
    assert np.isnan(uv[1]).all()


class _ScriptedRng:
    """Generator stand-in: random() replays `randoms`; uniform and integers return the low end, the high
    end, or what `pick(lo, hi)` says; normal returns (0, 3, 4). Pins band edges and range ends exactly."""

    def __init__(self, randoms, end="low", pick=None):
        self.randoms, self.end, self.pick = list(randoms), end, pick

    def random(self):
        return self.randoms.pop(0)

    def uniform(self, low=0.0, high=1.0):
        if self.pick is not None:
            return self.pick(low, high)
        return low if self.end == "low" else high

    def integers(self, low, high=None):
        low, high = (0, low) if high is None else (low, high)
        return low if self.end == "low" else high - 1

    def normal(self, size=None):
        return np.array([0.0, 3.0, 4.0])


def test_sample_phone_band_edges_and_range_ends():
    from geometry.camera import sample_phone
    # random() == 0.40 / 0.35 is outside the ultrawide / tele bands (draw < p)
    p = sample_phone(_ScriptedRng([0.40, 0.35], "low"))
    assert p.model == "phone-0000" and [lens.name for lens in p.lenses] == ["main"]
    assert (p.lenses[0].equiv_focal_mm, p.lenses[0].sensor_width_mm, p.lenses[0].fnumber) == (24.0, 5.6, 1.6)
    assert p.max_digital_zoom == 2.0
    p = sample_phone(_ScriptedRng([0.3999, 0.3499], "low"))
    assert [(lens.name, lens.equiv_focal_mm, lens.sensor_width_mm, lens.fnumber) for lens in p.lenses] == [
        ("main", 24.0, 5.6, 1.6), ("ultrawide", 13.0, 4.0, 2.0), ("tele", 65.0, 3.6, 2.4)]
    p = sample_phone(_ScriptedRng([0.0, 0.0], "high"))
    assert p.model == "phone-ffff" and p.max_digital_zoom == 10.0
    assert [(lens.equiv_focal_mm, lens.sensor_width_mm, lens.fnumber) for lens in p.lenses] == [
        (28.0, 9.8, 2.4), (16.0, 6.4, 2.4), (120.0, 5.6, 3.0)]


def test_sample_phone_pose_band_edges():
    from geometry.camera import sample_phone_pose
    uw = LENS.model_copy(update={"name": "ultrawide", "focal_mm": 2.5})
    tele = LENS.model_copy(update={"name": "tele", "focal_mm": 12.0})
    phone = Phone(model="phone-0003", lenses=[LENS, uw, tele], max_digital_zoom=5.0)
    T = look_at([0, -4, 1.5], [0, 0, 0.8])

    def draw(randoms, end):   # lens band, zoom, orientation, then sample_focus's mode (0.5: target)
        return sample_phone_pose(_ScriptedRng(randoms + [0.5], end), phone, T, [0, 0, 0.8], 64)

    p = draw([0.80, 0.80, 0.60], "high")            # each edge belongs to the upper band
    assert (p.lens.name, p.digital_zoom, p.orientation) == ("ultrawide", 3.0, "portrait")
    assert p.shutter_s == pytest.approx(1 / 60)
    p = draw([0.7999, 0.7999, 0.5999], "high")
    assert (p.lens.name, p.digital_zoom, p.orientation) == ("main", 1.0, "landscape")
    p = draw([0.90, 0.85, 0.0], "low")              # zoomed at the low end of [1, 3]
    assert (p.lens.name, p.digital_zoom) == ("tele", 1.0) and p.shutter_s == pytest.approx(1 / 500)
    assert draw([0.8999, 0.0, 0.0], "low").lens.name == "ultrawide"
    small = Phone(model="phone-0004", lenses=[LENS], max_digital_zoom=2.0)
    p = sample_phone_pose(_ScriptedRng([0.95, 0.9, 0.0, 0.5], "high"), small, T, [0, 0, 0.8], 64)
    assert (p.lens.name, p.digital_zoom) == ("main", 2.0)   # no tele: main; zoom capped by the phone


def test_sample_focus_band_edges_and_range_ends():
    from geometry.camera import sample_focus
    assert sample_focus(_ScriptedRng([0.6999], "low"), 2.0) == ("target", 2.0, pytest.approx(1 / 500), None)
    assert sample_focus(_ScriptedRng([0.6999], "high"), 2.0) == ("target", 2.0, pytest.approx(1 / 60), None)
    # u == 0.70: locked elsewhere; focus at the ends of [0.1, 30] m is far from a 2 m target
    assert sample_focus(_ScriptedRng([0.70], "low"), 2.0) == (
        "locked_elsewhere", pytest.approx(0.1), pytest.approx(1 / 500), None)
    assert sample_focus(_ScriptedRng([0.8499], "high"), 2.0) == (
        "locked_elsewhere", pytest.approx(30.0), pytest.approx(1 / 60), None)
    # u == 0.85: shake, at the ends of the shutter, angular and linear speed ranges; directions (0, .6, .8)
    mode, focus, shutter, shake = sample_focus(_ScriptedRng([0.85], "low"), 2.0)
    assert (mode, focus, shutter) == ("shake", 2.0, pytest.approx(1 / 500))
    assert shake.angular_velocity_rad_s == pytest.approx([0.0, 0.012, 0.016])
    assert shake.linear_velocity_m_s == [0.0, 0.0, 0.0]
    mode, focus, shutter, shake = sample_focus(_ScriptedRng([0.99], "high"), 2.0)
    assert shutter == pytest.approx(1 / 25) and shake.angular_velocity_rad_s == pytest.approx([0.0, 0.12, 0.16])
    assert shake.linear_velocity_m_s == pytest.approx([0.0, 0.03, 0.04])
    with pytest.raises(ValueError, match=r"^target distance must be positive$"):
        sample_focus(_ScriptedRng([0.5]), 0.0)


def test_locked_focus_pushed_to_the_side_it_was_drawn_on():
    from geometry.camera import _far_enough, sample_focus
    assert _far_enough(0.65, 1.0) and not _far_enough(0.66, 1.0)   # |0.65 - 1| == 0.35 * 1 exactly: far enough
    # every focus draw lands at 0.9 x the target: too close, below it -> pushed to 0.65 x (in range)
    below = _ScriptedRng([0.75], pick=lambda lo, hi: math.log(0.9) if lo < 0 and hi > 3 else lo)
    assert sample_focus(below, 1.0)[:2] == ("locked_elsewhere", pytest.approx(0.65))
    # at 0.9 x a 0.12 m target the near side (0.078 m) leaves the range: the far side (0.162 m)
    low = _ScriptedRng([0.75], pick=lambda lo, hi: math.log(0.108) if lo < 0 and hi > 3 else lo)
    assert sample_focus(low, 0.12)[1] == pytest.approx(0.162)
    # a 30/1.35 m target pushed up lands exactly on the range's upper end, which is allowed
    top = 30.0 / 1.35
    edge = _ScriptedRng([0.75], pick=lambda lo, hi: math.log(top) if lo < 0 and hi > 3 else lo)
    assert sample_focus(edge, top)[1] == 30.0
    # and a 0.1/0.65 m target pushed down lands exactly on the lower end, also allowed
    bottom = 0.1 / 0.65
    edge = _ScriptedRng([0.75], pick=lambda lo, hi: math.log(0.9 * bottom) if lo < 0 and hi > 3 else lo)
    assert sample_focus(edge, bottom)[1] == 0.1


def test_random_unit_redraws_a_zero_vector():
    from geometry.camera import _random_unit

    class Zero:
        def __init__(self):
            self.draws = [np.zeros(3), np.array([3.0, 0.0, 4.0])]

        def normal(self, size=None):
            assert size == 3
            return self.draws.pop(0)

    assert _random_unit(Zero()).tolist() == pytest.approx([0.6, 0.0, 0.8])


def test_look_at_short_up_vector_and_messages():
    a = look_at([1.0, -3.0, 2.0], [0.0, 0.0, 0.5])
    b = look_at([1.0, -3.0, 2.0], [0.0, 0.0, 0.5], up=(0.0, 0.0, 1e-9))   # only the direction of up counts
    np.testing.assert_allclose(b, a, atol=1e-12)
    with pytest.raises(ValueError, match=r"^look_at: eye and target coincide$"):
        look_at([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])


def test_pose_for_phone_zoom_limit_is_inclusive():
    T = np.eye(4)
    pose_for_phone(PHONE, "main", 4.0 + 1e-12, "landscape", 40, T, "target", 1.0, 0.01)
    with pytest.raises(ValueError, match="outside"):
        pose_for_phone(PHONE, "main", 4.0 + 1e-11, "landscape", 40, T, "target", 1.0, 0.01)


def test_random_unit_keeps_a_short_vector():
    from geometry.camera import _random_unit

    class Short:
        def __init__(self):
            self.draws = [np.array([0.3, 0.0, 0.4]), np.array([0.0, 3.0, 4.0])]

        def normal(self, size=None):
            return self.draws.pop(0)

    assert _random_unit(Short()).tolist() == pytest.approx([0.6, 0.0, 0.8])   # norm 0.5 is not "zero"


def test_look_at_along_up_falls_back_past_an_axis_within_1e_3_of_the_view():
    # looking straight along up = (0, 1, 7e-4): the world y axis is only 7e-4 rad off the view (< 1e-3),
    # so the fallback skips it and takes x = normalised (view x world x-axis)
    up = np.array([0.0, 1.0, 7e-4])
    T = look_at([0.0, 0.0, 0.0], up, up=up)
    z = up / np.linalg.norm(up)
    x = np.cross(z, [1.0, 0.0, 0.0])
    np.testing.assert_allclose(T[:3, 2], z, atol=1e-15)
    np.testing.assert_allclose(T[:3, 0], x / np.linalg.norm(x), atol=1e-12)
    # 2e-3 rad off: the y axis is used
    up2 = np.array([0.0, 1.0, 2e-3])
    T2 = look_at([0.0, 0.0, 0.0], up2, up=up2)
    z2 = up2 / np.linalg.norm(up2)
    x2 = np.cross(z2, [0.0, 1.0, 0.0])
    np.testing.assert_allclose(T2[:3, 0], x2 / np.linalg.norm(x2), atol=1e-12)


def test_projected_pixel_box_clips_to_pixel_centres_and_drops_points_behind():
    from geometry.camera import projected_pixel_box

    K = np.array([[100.0, 0, 50], [0, 100.0, 40], [0, 0, 1]])
    T = np.eye(4)                                            # camera at the origin looking along +z
    pts = np.array([[0.1, 0.2, 2.0], [-0.3, -0.1, 2.0], [5.0, 5.0, -1.0]])   # the last is behind
    assert projected_pixel_box(pts, K, T, 100, 80) == pytest.approx((35.0, 35.0, 55.0, 50.0))
    wide = np.array([[-2.0, -1.0, 1.0], [2.0, 1.0, 1.0]])    # u -150..250, v -60..140: clipped
    assert projected_pixel_box(wide, K, T, 100, 80) == pytest.approx((0.0, 0.0, 99.0, 79.0))
    assert projected_pixel_box(np.array([[0.0, 0.0, -1.0]]), K, T, 100, 80) is None     # nothing in front
    off = np.array([[1.0, 0.0, 1.0], [1.2, 0.1, 1.0]])      # u 150..170: right of the image
    assert projected_pixel_box(off, K, T, 100, 80) is None
    edge = np.array([[0.49, 0.0, 1.0], [0.6, 0.1, 1.0]])     # u from 99.0: just inside the last centre
    assert projected_pixel_box(edge, K, T, 100, 80)[0] == pytest.approx(99.0)


def test_share_in_image_is_the_projected_box_area_inside_the_pixel_centres():
    from geometry.camera import share_in_image

    K = np.array([[100.0, 0, 50], [0, 100.0, 40], [0, 0, 1]])
    T = np.eye(4)                                            # camera at the origin looking along +z
    inside = np.array([[-0.2, -0.1, 2.0], [0.2, 0.1, 2.0]])  # u 40..60, v 35..45
    assert share_in_image(inside, K, T, 100, 80) == 1.0
    left = np.array([[-0.7, 0.0, 1.0], [-0.3, 0.2, 1.0]])    # u -20..20: 20 of 40 columns inside
    assert share_in_image(left, K, T, 100, 80) == pytest.approx(0.5)
    corner = np.array([[0.29, 0.19, 1.0], [0.69, 0.59, 1.0]])   # u 79..119 -> 79..99, v 59..99 -> 59..79
    assert share_in_image(corner, K, T, 100, 80) == pytest.approx(0.5 * 0.5)
    assert share_in_image(np.vstack([inside, [[0.0, 0.0, 0.0]]]), K, T, 100, 80) == 0.0   # a point on the camera plane
    assert share_in_image(np.vstack([inside, [[0.0, 0.0, -1.0]]]), K, T, 100, 80) == 0.0  # ... or behind it
    assert share_in_image(np.array([[0.1, 0.1, 1.0]] * 2), K, T, 100, 80) == 0.0          # no area
    below = np.array([[-0.1, 0.4, 1.0], [0.1, 0.6, 1.0]])    # v 80..100: past the last centre (79)
    assert share_in_image(below, K, T, 100, 80) == 0.0
    wholly_left = np.array([[-0.7, 0.0, 1.0], [-0.6, 0.1, 1.0]])   # u -20..-10: no negative share
    assert share_in_image(wholly_left, K, T, 100, 80) == 0.0
    top = np.array([[0.0, -0.6, 1.0], [0.1, -0.2, 1.0]])     # v -20..20: cut at the first row's centre, v = 0
    assert share_in_image(top, K, T, 100, 80) == pytest.approx(0.5)
    speck = np.array([[0.0, 0.0, 1.0], [0.005, 0.005, 1.0]])   # 0.5 x 0.5 px, inside: its whole area counts
    assert share_in_image(speck, K, T, 100, 80) == pytest.approx(1.0)
