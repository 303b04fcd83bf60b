"""Scorer of `equipment_label`: a data label on a module back, a microinverter or the inverter.

Table 1 terms (RealityBench):
scene side  label_in_frame      all label samples (9x7 grid, 2% inside its edges) in frame
            label_unoccluded    >= 95% of them visible (first hit is the label)
            text_row_px         >= 10 px per text row (model/serial lines) at the label
            barcode_module_px   >= 1 px per barcode module at the label
            label_view_angle    <= 60 deg
            equipment_in_view   >= 5% of the frame's pixels see the equipment or its mounting
            sharp_at_target     defocus + motion blur at the label centre <= 5 px (Table 1's
                                caption: every capture task; the requirement rejects a blur)
frame side  label_saturated     <= 30% of label pixels clipped
            paper_luminance     >= 0.05 (linear) inside the label mask
            label_contrast      Weber contrast >= 0.3 inside the label mask
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.solar.equipment_label import (EQUIPMENT_OBJECT, LABEL_OBJECT, EquipmentLabelSpec, label_corners,
                                                label_frame, label_points)
from blender_envs.solar.equipment_label_texture import label_texture
from geometry.camera import CameraPose, blur_at_target_px, project
from scorers.image_stats import paper_luminance, saturated_fraction, weber_contrast
from scorers.terms import TermResult, term

IN_FRAME_MIN = 1.0
UNOCCLUDED_MIN = 0.95
ROW_PX_MIN = 10.0
MODULE_PX_MIN = 1.0
VIEW_ANGLE_MAX = 60.0
CONTEXT_MIN = 0.05
SATURATED_MAX = 0.3
PAPER_MIN = 0.05
WEBER_MIN = 0.3
BLUR_MAX_PX = 5.0        # Table 1 caption: sharp at target, as rail_attachment / tape_gap
GRID_STEP_PX = 8
_CONTEXT_CATEGORIES = {"module": {"module_backsheet", "module_glass", "module_frame", "module_jbox", "rail", "l_foot",
                                  "clamp"},
                       "microinverter": {"microinverter", "rail", "l_foot", "module_backsheet", "module_glass",
                                         "module_frame"},
                       "inverter": {"inverter", "conduit"}}


def barcode_module_m(spec: EquipmentLabelSpec) -> float:
    lab = spec.label
    return label_texture(lab.brand, lab.model, lab.serial, lab.on, tuple(lab.size_m), lab.row_m)[1]["barcode_module_m"]


def resolution_px(spec: EquipmentLabelSpec, pose: CameraPose) -> tuple[float, float]:
    """(px per text row, px per barcode module) at the label centre (Table 2 px per unit)."""
    from geometry.raycast import px_per_unit

    T = label_frame(spec.label)
    K, C = pose.K_array(), pose.cam_to_world_array()
    return (px_per_unit(K, C, T[:3, 3], T[:3, 1], spec.label.row_m),
            px_per_unit(K, C, T[:3, 3], T[:3, 0], barcode_module_m(spec)))


def label_view_angle(spec: EquipmentLabelSpec, pose: CameraPose) -> float:
    from geometry.camera import view_angle_deg

    T = label_frame(spec.label)
    return float(view_angle_deg(pose.center, T[:3, 3], T[:3, 2]))


def context_ids(geo, spec: EquipmentLabelSpec) -> list[int]:
    cats = _CONTEXT_CATEGORIES[spec.label.on]
    return [o.id for o in geo.state.objects if o.category in cats]


def pixel_grid_ids(raycaster, pose: CameraPose, step: int = GRID_STEP_PX) -> np.ndarray:
    """Object ids of the first hit through every `step`-th pixel centre."""
    K, T = pose.K_array(), pose.cam_to_world_array()
    U, V = np.meshgrid(np.arange(step // 2, pose.width, step, dtype=float),
                       np.arange(step // 2, pose.height, step, dtype=float))
    pix = np.stack([U.ravel(), V.ravel(), np.ones(U.size)])
    d = (np.linalg.solve(K, pix).T) @ T[:3, :3].T
    _, oid, _, _ = raycaster.cast(T[:3, 3][None, :], d)
    return oid.reshape(V.shape)


def blur_at_label_px(spec: EquipmentLabelSpec, pose: CameraPose) -> float | None:
    """Table 2 blur at target (circle of confusion + motion displacement) at the label centre."""
    b = blur_at_target_px(pose, np.asarray(spec.label.center, float))
    return b if math.isfinite(b) else None


def scene_terms_of(spec, pose, in_frame: float, unocc: float, context: float) -> list[TermResult]:
    row_px, mod_px = resolution_px(spec, pose)
    return [
        term("label_in_frame", "scene", in_frame, ">=", IN_FRAME_MIN),
        term("label_unoccluded", "scene", unocc, ">=", UNOCCLUDED_MIN),
        term("text_row_px", "scene", row_px, ">=", ROW_PX_MIN, "px"),
        term("barcode_module_px", "scene", mod_px, ">=", MODULE_PX_MIN, "px"),
        term("label_view_angle", "scene", label_view_angle(spec, pose), "<=", VIEW_ANGLE_MAX, "deg"),
        term("equipment_in_view", "scene", context, ">=", CONTEXT_MIN),
        term("sharp_at_target", "scene", blur_at_label_px(spec, pose), "<=", BLUR_MAX_PX, "px"),
    ]


def score_scene(geo, view) -> list[TermResult]:
    from geometry.raycast import frame_and_occlusion_fractions

    spec, pose = geo.spec, view.pose
    in_frame, unocc = frame_and_occlusion_fractions(geo.raycaster, label_points(spec.label), geo.object_id(LABEL_OBJECT),
                                                    pose.K_array(), pose.cam_to_world_array(), pose.width, pose.height)
    ids = pixel_grid_ids(geo.raycaster, pose)
    context = float(np.isin(ids, context_ids(geo, spec)).mean())
    return scene_terms_of(spec, pose, in_frame, unocc, context)


def frame_terms_of(image: np.ndarray, mask: np.ndarray) -> list[TermResult]:
    return [
        term("label_saturated", "frame", saturated_fraction(image, mask), "<=", SATURATED_MAX),
        term("paper_luminance", "frame", paper_luminance(image, mask), ">=", PAPER_MIN),
        term("label_contrast", "frame", weber_contrast(image, mask), ">=", WEBER_MIN),
    ]


def score_frame(geo, view, frame) -> list[TermResult]:
    return frame_terms_of(frame.image, frame.object_index == geo.object_id(LABEL_OBJECT))


def _r(x, nd: int = 4):
    return round(float(x), nd) if x is not None and math.isfinite(float(x)) else None


def ground_truth(geo, view, frame=None) -> dict:
    spec, pose = geo.spec, view.pose
    lab = spec.label
    row_px, mod_px = resolution_px(spec, pose)
    uv, z = project(label_corners(lab), pose.K_array(), pose.cam_to_world_array())
    gt = {
        "brand": lab.brand,
        "model": lab.model,
        "serial": lab.serial,
        "on": lab.on,
        "text_row_px": _r(row_px),
        "barcode_module_px": _r(mod_px),
        "label_corners_px": np.round(uv, 3).tolist() if bool(np.all(z > 0)) else None,
        "blur_at_label_px": _r(blur_at_label_px(spec, pose)),
    }
    if frame is not None:
        gt["label_mask_px"] = int((frame.object_index == geo.object_id(LABEL_OBJECT)).sum())
    return gt


__all__ = ["score_scene", "score_frame", "ground_truth", "EQUIPMENT_OBJECT"]
