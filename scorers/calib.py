"""Scorer of the `calib` environment: is the aimed-at object photographed usably?

Scene-side terms (before rendering): target in frame (>= 90% of its surface samples),
unoccluded by other objects (>= 60%), big enough (projected bbox >= 2% of the
frame), close enough (<= 4.5 m) and sharp (defocus + motion blur at the target <= 5 px).
Frame-side term: the object-index mask holds >= 0.1% of the frame's pixels.
"""
from __future__ import annotations

import numpy as np

from blender_envs.calib.spec import CalibSpec, card_inner_corners, object_centers
from geometry.camera import blur_at_target_px, project
from geometry.raycast import visibility_stats
from geometry.scene import View
from scorers.context import RenderedFrame, SceneGeometry
from scorers.image_stats import laplacian_variance, mask_centroid, mask_pixels
from scorers.terms import TermResult, term


def _target_center(geo: SceneGeometry, view: View) -> np.ndarray:
    spec: CalibSpec = geo.spec  # type: ignore[assignment]
    return object_centers(spec)[view.target]


def score_scene(geo: SceneGeometry, view: View) -> list[TermResult]:
    pose = view.pose
    oid = geo.object_id(view.target)
    vis = visibility_stats(geo.raycaster, geo.mesh, oid, pose.K_array(), pose.cam_to_world_array(),
                           pose.width, pose.height)
    center = _target_center(geo, view)
    distance = float(np.linalg.norm(center - pose.center))
    return [
        term("target_in_frame", "scene", vis.in_frame_fraction, ">=", 0.9),
        term("target_unoccluded", "scene", vis.unoccluded_fraction, ">=", 0.6),
        term("target_size", "scene", vis.bbox_fraction, ">=", 0.02),
        term("target_distance", "scene", distance, "<=", 4.5, "m"),
        term("sharp_at_target", "scene", blur_at_target_px(pose, center), "<=", 5.0, "px"),
    ]


def score_frame(geo: SceneGeometry, view: View, frame: RenderedFrame) -> list[TermResult]:
    oid = geo.object_id(view.target)
    frac = mask_pixels(frame.object_index, oid) / frame.object_index.size
    return [term("target_pixels", "frame", frac, ">=", 0.001)]


def ground_truth(geo: SceneGeometry, view: View, frame: RenderedFrame | None = None) -> dict:
    pose = view.pose
    K, T = pose.K_array(), pose.cam_to_world_array()
    center = _target_center(geo, view)
    uv, z = project(center[None], K, T)
    gt = {
        "target": view.target,
        "target_id": geo.object_id(view.target),
        "target_center_px": [round(float(uv[0, 0]), 4), round(float(uv[0, 1]), 4)],
        "target_depth_m": round(float(z[0]), 6),
        "target_distance_m": round(float(np.linalg.norm(center - pose.center)), 6),
        "blur_at_target_px": round(float(blur_at_target_px(pose, center)), 4),
    }
    if view.target == "card":
        corners = card_inner_corners(geo.spec.card)  # type: ignore[attr-defined]
        cuv, _ = project(corners, K, T)
        gt["card_corners_px"] = np.round(cuv, 4).tolist()
    if frame is not None:
        mask = frame.object_index == gt["target_id"]
        c = mask_centroid(frame.object_index, gt["target_id"])
        gt["target_mask_px"] = int(mask.sum())
        gt["target_mask_centroid_px"] = None if c is None else [round(c[0], 4), round(c[1], 4)]
        lv = laplacian_variance(frame.image, mask)
        gt["target_laplacian_var"] = None if lv is None else round(lv, 6)
    return gt
