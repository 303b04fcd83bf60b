"""Projection convention on a real render, checked by OpenCV's own corner detector:
the projected inner corners of the printed checkerboard land on the detected corners,
in landscape (horizontal sensor fit) and portrait (vertical fit) frames."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from blender_envs.calib.spec import card_inner_corners, object_centers, sample_scene
from geometry.camera import look_at, pose_for_phone, project
from render_farm.isp import IspParams, apply_isp
from render_farm.seeds import rng_for

pytestmark = pytest.mark.render


@pytest.mark.parametrize("orientation", ["landscape", "portrait"])
def test_checker_corners_project_onto_detected_corners(orientation):
    from blender_envs.calib.build import build
    from blender_envs.core.camera_rig import apply_camera_pose
    from blender_envs.core.cycles_setup import configure_cycles, configure_device
    from blender_envs.core.render_passes import render_frame
    from blender_envs.core.scene_reset import reset_scene
    from blender_envs.core.settings import RenderSettings

    spec = sample_scene(rng_for("test", "checker"), "checker", 0)
    spec = spec.model_copy(update={"sun_elevation_deg": 60.0, "sun_azimuth_deg": 200.0})
    quality = RenderSettings(name="t", long_side_px=320, samples=8, pass_samples=1)
    scene = reset_scene()
    configure_cycles(scene, quality, seed=1)
    configure_device(scene, "cpu")
    build(scene, spec)
    card = object_centers(spec)["card"]
    T = look_at(card + np.array([0.15, -0.75, 0.1]), card + np.array([0.02, 0.0, -0.01]))
    pose = pose_for_phone(spec.phone, "main", 1.0, orientation, 320, T, "pinhole", None, 0.01)
    apply_camera_pose(scene, pose)
    out = render_frame(scene, quality)
    img = apply_isp(out.linear_rgb, IspParams(), np.random.default_rng(0))
    gray = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
    nu, nv = spec.card.squares_u - 1, spec.card.squares_v - 1
    found, corners = cv2.findChessboardCornersSB(gray, (nu, nv))
    assert found, "OpenCV found no checkerboard in the render"
    detected = corners.reshape(-1, 2)
    uv, z = project(card_inner_corners(spec.card), pose.K_array(), pose.cam_to_world_array())
    assert np.all(z > 0)
    # match each projected corner to its nearest detection (detector ordering is its own)
    d = np.linalg.norm(uv[:, None, :] - detected[None, :, :], axis=-1)
    err = d.min(axis=1)
    assert len(set(d.argmin(axis=1))) == len(uv)
    assert err.max() < 0.75, f"max corner error {err.max():.3f} px"


def _render_card(pose_kwargs, long_side=480):
    from blender_envs.calib.build import build
    from blender_envs.core.camera_rig import apply_camera_pose
    from blender_envs.core.cycles_setup import configure_cycles, configure_device
    from blender_envs.core.render_passes import render_frame
    from blender_envs.core.scene_reset import reset_scene
    from blender_envs.core.settings import RenderSettings

    spec = sample_scene(rng_for("test", "checker"), "checker", 0)
    spec = spec.model_copy(update={"sun_elevation_deg": 60.0, "sun_azimuth_deg": 200.0})
    quality = RenderSettings(name="t", long_side_px=long_side, samples=16, pass_samples=1)
    scene = reset_scene()
    configure_cycles(scene, quality, seed=1)
    configure_device(scene, "cpu")
    build(scene, spec)
    card = object_centers(spec)["card"]
    T = look_at(card + np.array([0.0, -0.6, 0.0]), card)
    pose = pose_for_phone(spec.phone, "main", 1.0, "landscape", long_side, T, **pose_kwargs)
    apply_camera_pose(scene, pose)
    out = render_frame(scene, quality)
    img = apply_isp(out.linear_rgb, IspParams(), np.random.default_rng(0))
    return pose, img, out.object_index == 6, card


def test_rendered_blur_follows_the_blur_model():
    """Defocus and hand shake predicted > 5 px at the target visibly blur the card
    (Laplacian variance inside the card mask), a focused steady shot does not."""
    from geometry.camera import blur_at_target_px, shake_end_pose, Shake
    from scorers.image_stats import laplacian_variance

    sharp_pose, sharp, mask, card = _render_card(dict(focus_mode="target", focus_distance_m=0.6, shutter_s=0.002))
    assert blur_at_target_px(sharp_pose, card) < 1.0
    T = sharp_pose.cam_to_world_array()
    defocus_pose, defocused, _, _ = _render_card(dict(focus_mode="locked_elsewhere", focus_distance_m=0.12, shutter_s=0.002))
    shake = Shake(angular_velocity_rad_s=[0.0, 0.6, 0.0], linear_velocity_m_s=[0.0, 0.0, 0.0])
    shake_end = shake_end_pose(T, shake, 1 / 25)
    shaken_pose, shaken, _, _ = _render_card(dict(focus_mode="shake", focus_distance_m=0.6, shutter_s=1 / 25,
                                                  shake_end=shake_end))
    assert blur_at_target_px(defocus_pose, card) > 5.0
    assert blur_at_target_px(shaken_pose, card) > 5.0
    v_sharp = laplacian_variance(sharp, mask)
    assert laplacian_variance(defocused, mask) < 0.5 * v_sharp
    assert laplacian_variance(shaken, mask) < 0.6 * v_sharp  # blur along one axis only
