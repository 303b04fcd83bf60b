"""horizon_peak: hand-made poses for every term, the horizon row against a projected far
point, and the ray-cast skyline / own-roof share against a rendered object-index pass."""
from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np
import pytest
import yaml

import blender_envs.registry as registry
from conftest import ROOT

MODULE = "blender_envs.solar.horizon_peak"


def test_is_discovered_by_the_registry():
    assert registry.environment_module("horizon_peak") == MODULE


def test_sampling_is_deterministic_and_in_range():
    from blender_envs.solar.horizon_peak import house_center_xy, sample_scene, sample_view

    a = sample_scene(np.random.default_rng(5), "s", 5)
    b = sample_scene(np.random.default_rng(5), "s", 5)
    assert a.model_dump() == b.model_dump()
    va = sample_view(a, np.random.default_rng(9), 0, 320)
    vb = sample_view(b, np.random.default_rng(9), 0, 320)
    assert va.model_dump() == vb.model_dump()
    for seed in range(15):
        s = sample_scene(np.random.default_rng(seed), "s", seed)
        assert s.roof.roof_type == "gable"
        c = house_center_xy(s.roof)
        assert 30 <= len(s.trees) <= 80 and 4 <= len(s.neighbours) <= 10
        r = [math.hypot(t.xy[0] - c[0], t.xy[1] - c[1]) for t in s.trees]
        assert 25 - 1e-3 <= min(r) and max(r) <= 120 + 1e-3
        assert 200 <= s.hills.inner_radius_m < s.hills.outer_radius_m <= 400
        assert 2 - 1e-3 <= min(s.hills.heights_m) and max(s.hills.heights_m) <= 25 + 1e-3


@pytest.fixture(scope="module")
def built():
    """A built horizon_peak scene (bpy) and its geometry."""
    from render_farm.job import build_scene
    from render_farm.plan import plan_jobs

    q = yaml.safe_load((ROOT / "configs/render/preview.yaml").read_text())
    tmp = tempfile.mkdtemp()
    (Path(tmp) / "scenes").mkdir()
    job = plan_jobs("horizon_peak", 1, 1, "random", set(), root_seed=3, run_dir=tmp, quality=q, device="cpu")[0]
    scene, geo, _ = build_scene(job)
    return scene, geo


def _pose(spec, T, long_side=320):
    from geometry.camera import pose_for_phone

    return pose_for_phone(spec.phone, "main", 1.0, "landscape", long_side, T, "pinhole", None, 1 / 250)


def _terms(geo, pose):
    from geometry.scene import View
    from scorers import horizon_peak as sc

    return {t.name: t for t in sc.score_scene(geo, View(view_index=0, pose=pose, target="ridge_cap"))}


def _gt(geo, pose):
    from geometry.scene import View
    from scorers import horizon_peak as sc

    return sc.ground_truth(geo, View(view_index=0, pose=pose, target="ridge_cap"))


def test_horizon_row_is_the_projection_of_far_points_at_camera_height(built):
    from blender_envs.solar.horizon_peak import ridge_eye, view_matrix
    from geometry.camera import project
    from scorers.horizon_peak import horizon_rows

    _, geo = built
    roof = geo.spec.roof
    for yaw, pitch, roll in ((30.0, -5.0, 0.0), (200.0, 12.0, 8.0), (95.0, -20.0, -14.0)):
        pose = _pose(geo.spec, view_matrix(ridge_eye(roof, 0.0, 0.4, 1, 0.0), yaw, pitch, roll))
        T = pose.cam_to_world_array()
        for dyaw in (-15.0, 0.0, 15.0):
            a = math.radians(yaw + dyaw)
            far = T[:3, 3] + 1e5 * np.array([math.sin(a), math.cos(a), 0.0])
            (u, v), = project(far[None], pose.K_array(), T)[0]
            assert horizon_rows(pose, [u])[0] == pytest.approx(v, abs=1e-3)


def test_hand_poses_for_every_term(built):
    from blender_envs.solar.horizon_peak import ridge_eye, view_matrix
    from scorers.horizon_peak import roll_deg

    _, geo = built
    roof = geo.spec.roof
    end = -roof.eave_length_m / 2 + 0.6
    # kneeling 0.4 m over the ridge at one end, looking level along it
    good = _pose(geo.spec, view_matrix(ridge_eye(roof, end, 0.4, 1, 0.0), 90.0, -8.0, 0.0))
    t = _terms(geo, good)
    assert all(x.passed for x in t.values()), {k: x.value for k, x in t.items()}
    g = _gt(geo, good)
    assert g["horizon_visible"] and g["level"] and not g["own_roof_blocks"]
    # pitched 40 deg down: the horizon leaves the middle 80%
    down = _terms(geo, _pose(geo.spec, view_matrix(ridge_eye(roof, end, 0.4, 1, 0.0), 90.0, -40.0, 0.0)))
    assert not down["horizon_in_frame"].passed and down["horizon_in_frame"].value == 0.0
    # crouched 0.3 m below the ridge on the front slope, looking across the roof (+y)
    below = _pose(geo.spec, view_matrix(ridge_eye(roof, 0.0, -0.3, -1, 0.05), 0.0, 0.0, 0.0))
    tb = _terms(geo, below)
    assert not tb["camera_above_ridge"].passed and tb["camera_above_ridge"].value == pytest.approx(-0.3)
    assert not tb["own_roof_horizon"].passed and tb["own_roof_horizon"].value > 0.9
    assert _gt(geo, below)["own_roof_blocks"]
    # rolled 15 deg: not level (ground truth only; no term)
    rolled = _pose(geo.spec, view_matrix(ridge_eye(roof, end, 0.4, 1, 0.0), 90.0, -8.0, 15.0))
    assert abs(roll_deg(rolled)) == pytest.approx(15.0, abs=1e-6)
    assert not _gt(geo, rolled)["level"] and abs(roll_deg(good)) < 1e-6
    # straight up at the sky: no skyline, no roof along the bottom
    up = _terms(geo, _pose(geo.spec, view_matrix(ridge_eye(roof, end, 0.4, 1, 0.0), 90.0, 75.0, 0.0)))
    assert up["skyline_in_frame"].value == 0.0 and up["own_roof_bottom"].value == 0.0
    # pitched 20 deg up over the slope: the roof drops out of the bottom quarter
    lift = _terms(geo, _pose(geo.spec, view_matrix(ridge_eye(roof, 0.0, 0.6, 1, 0.0), 180.0, 20.0, 0.0)))
    assert not lift["own_roof_bottom"].passed


@pytest.mark.render
def test_skyline_and_own_roof_match_the_rendered_pass(built):
    from blender_envs.core.camera_rig import apply_camera_pose
    from blender_envs.core.render_passes import render_frame
    from blender_envs.core.settings import RenderSettings
    from blender_envs.solar.horizon_peak import ridge_eye, view_matrix
    from scorers import horizon_peak as sc

    scene, geo = built
    roof = geo.spec.roof
    pose = _pose(geo.spec, view_matrix(ridge_eye(roof, -roof.eave_length_m / 2 + 0.6, 0.3, 1, 0.0), 70.0, -6.0, 4.0),
                 long_side=160)
    apply_camera_pose(scene, pose)
    out = render_frame(scene, RenderSettings(name="t", long_side_px=160, samples=1, pass_samples=1), seed=0)
    oi = out.object_index
    assert oi.shape == (120, 160)
    # independent: top-most non-background row of the rendered pass, per column
    hit = oi != 0
    top_render = np.where(hit.any(0), np.argmax(hit, 0), -1)
    top_cast, _ = sc.skyline_rows(sc.id_grid(geo.raycaster, pose, 1))
    assert np.mean(np.abs(top_render - top_cast) <= 1) >= 0.95
    assert (top_cast > 0).mean() > 0.9                  # a real skyline, not an empty frame
    own = np.isin(oi[90:], sc.own_ids(geo)).mean()
    cast_own = np.isin(sc.id_grid(geo.raycaster, pose, 1)[90:], sc.own_ids(geo)).mean()
    assert abs(own - cast_own) <= 0.02 and own > 0.04


# ---- sharp at target (Table 1's caption) ------------------------------------------

def _focus_pose(spec, T, mode, focus_m, shutter_s=1 / 250, shake_rot=None, long_side=640):
    """A phone pose with a focus mode; `shake_rot` (3x3, camera axes) turns the camera by
    that much between shutter open and close."""
    from geometry.camera import pose_for_phone

    end = None
    if shake_rot is not None:
        end = np.array(T, float)
        end[:3, :3] = end[:3, :3] @ shake_rot
    return pose_for_phone(spec.phone, "main", 1.0, "landscape", long_side, T, mode, focus_m, shutter_s, end)


def _level_horizon_points(spec, pose, yaw_deg, pitch_deg):
    """The horizon points of an unrolled camera, derived by hand: the 0-deg ray through
    column u is x*cos(pitch)*right + forward_h (x = (u - cx) / f), so its compass azimuth
    is yaw + atan(x cos(pitch)); the point sits the hill ring's inner radius away, level
    with the camera."""
    from scorers.horizon_peak import BLUR_COLUMNS

    K = pose.K_array()
    out = []
    for frac in BLUR_COLUMNS:
        x = (frac * (pose.width - 1) - K[0, 2]) / K[0, 0]
        az = math.radians(yaw_deg) + math.atan(x * math.cos(math.radians(pitch_deg)))
        out.append(pose.center + spec.hills.inner_radius_m * np.array([math.sin(az), math.cos(az), 0.0]))
    return out


def _coc_px(pose, X):
    """Thin-lens blur-circle diameter, written out: A |S2 - S1| / S2 * f / (S1 - f)."""
    f, N = pose.lens.focal_mm, pose.fnumber
    S2 = float((np.asarray(X) - pose.center) @ pose.cam_to_world_array()[:3, 2]) * 1000
    S1 = pose.focus_distance_m * 1000
    return (f / N) * abs(S2 - S1) / S2 * f / (S1 - f) / pose.sensor_width_mm * pose.long_side_px


def _shift_px(pose, X):
    """How far X moves in the image between the start and end pose of the exposure."""
    K = pose.K_array()
    uv = []
    for T in (pose.cam_to_world_array(), pose.shake_end_array()):
        x = T[:3, :3].T @ (np.asarray(X) - T[:3, 3])
        uv.append((K @ (x / x[2]))[:2])
    return float(np.linalg.norm(uv[1] - uv[0]))


def test_horizon_blur_points_lie_on_the_horizon():
    """No bpy: the points are level with the camera, at the ring radius, and project onto
    the horizon row of their column, for rolled and unrolled cameras."""
    from blender_envs.solar.horizon_peak import ridge_eye, sample_scene, view_matrix
    from geometry.camera import project
    from scorers import horizon_peak as sc

    spec = sample_scene(np.random.default_rng(4), "s", 4)
    for yaw, pitch, roll in ((30.0, -5.0, 0.0), (200.0, 12.0, 8.0), (95.0, -20.0, -14.0)):
        pose = _focus_pose(spec, view_matrix(ridge_eye(spec.roof, 0.0, 0.3, 1, 0.0), yaw, pitch, roll), "target", 30.0)
        P = sc.horizon_target_points(spec, pose)
        assert np.allclose(P[:, 2], pose.center[2])
        assert np.allclose(np.linalg.norm(P[:, :2] - pose.center[:2], axis=1), spec.hills.inner_radius_m)
        uv, z = project(P, pose.K_array(), pose.cam_to_world_array())
        us = np.asarray(sc.BLUR_COLUMNS) * (pose.width - 1)
        assert (z > 0).all() and np.allclose(uv[:, 0], us, atol=1e-6)
        assert np.allclose(uv[:, 1], sc.horizon_rows(pose, us), atol=1e-6)
        if roll == 0.0:
            assert np.allclose(P, _level_horizon_points(spec, pose, yaw, pitch), atol=1e-6)
    # straight down: no horizontal direction through the frame's columns -> no value, fails
    down = _focus_pose(spec, view_matrix(ridge_eye(spec.roof, 0.0, 0.3, 1, 0.0), 0.0, -90.0, 0.0), "target", 1.0)
    assert sc.blur_at_horizon_px(spec, down) is None


def test_sharp_at_target_on_hand_poses(built):
    """Focus locked near or a long-shutter roll shake fails the level ridge shot on blur
    alone; the value is the written-out thin-lens + displacement at the worst horizon point."""
    from blender_envs.solar.horizon_peak import ridge_eye, view_matrix
    from scorers import horizon_peak as sc
    from scorers.terms import first_failure

    _, geo = built
    spec, roof = geo.spec, geo.spec.roof
    T = view_matrix(ridge_eye(roof, -roof.eave_length_m / 2 + 0.6, 0.4, 1, 0.0), 90.0, -8.0, 0.0)
    sharp = _terms(geo, _focus_pose(spec, T, "target", 30.0))
    assert all(x.passed for x in sharp.values()), {k: x.value for k, x in sharp.items()}
    assert sharp["sharp_at_target"].value < 1.0
    # autofocus locked at 0.1 m (a hand or the roof edge in front of the lens)
    locked = _focus_pose(spec, T, "locked_elsewhere", 0.1)
    pts = _level_horizon_points(spec, locked, 90.0, -8.0)
    t = _terms(geo, locked)
    want = max(_coc_px(locked, X) for X in pts)
    assert t["sharp_at_target"].value == pytest.approx(want, rel=1e-5) and want > sc.BLUR_MAX_PX
    assert first_failure(list(t.values())) == "sharp_at_target"
    assert all(x.passed for k, x in t.items() if k != "sharp_at_target")
    assert _gt(geo, locked)["blur_at_horizon_px"] == pytest.approx(want, rel=1e-4)
    # focus locked at 2 m: a far target stays sharp (beyond the phone's hyperfocal range)
    assert _terms(geo, _focus_pose(spec, T, "locked_elsewhere", 2.0))["sharp_at_target"].value < 1.0
    # 0.3 rad/s of roll over a 1/8 s exposure: the centre column barely moves, the ends do
    th = 0.3 / 8
    roll = np.array([[math.cos(th), -math.sin(th), 0], [math.sin(th), math.cos(th), 0], [0, 0, 1]])
    shaken = _focus_pose(spec, T, "shake", 30.0, 1 / 8, roll)
    pts = _level_horizon_points(spec, shaken, 90.0, -8.0)
    shifts = [_shift_px(shaken, X) + _coc_px(shaken, X) for X in pts]
    t = _terms(geo, shaken)
    assert t["sharp_at_target"].value == pytest.approx(max(shifts), rel=1e-5)
    assert max(shifts) > sc.BLUR_MAX_PX > shifts[1]
    assert first_failure(list(t.values())) == "sharp_at_target"
    assert all(x.passed for k, x in t.items() if k != "sharp_at_target")
    # the same hand at 1/500 s: sharp
    th = 0.3 / 500
    roll = np.array([[math.cos(th), -math.sin(th), 0], [math.sin(th), math.cos(th), 0], [0, 0, 1]])
    assert _terms(geo, _focus_pose(spec, T, "shake", 30.0, 1 / 500, roll))["sharp_at_target"].passed
