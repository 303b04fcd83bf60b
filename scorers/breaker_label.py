"""Scorer of `breaker_label`: the circuit directory card on the load centre's door.

Table 1 terms (RealityBench), with the card = a grid of points over its face:

scene side  card_in_frame     >= 98% of card samples in frame ("card in frame": every row must be read)
            card_unoccluded   >= 95% of in-frame samples visible (first hit is the card)
            text_row_px       pixels per text row (the row pitch, at the worst of the card's
                              top, centre and bottom) >= 11
            view_angle        ray to the card centre vs the card normal <= 45 deg (one-sided:
                              the back of the door reads 180)
            card_bbox         projected card bbox >= 4% of the frame
            sharp_at_target   defocus + motion blur <= 5 px at the worst of a 3x3 grid over the
                              card's text block (rows at the top, centre and bottom, each at its
                              left, centre and right): Table 1's caption, every capture task.
                              The worst point, not the centre, because every row must be read
                              and a tilted card's ends sit off the focus plane.
frame side  text_contrast     Weber contrast (paper vs ink) in the card's mask >= 0.225
            card_saturated    saturated fraction in the card's mask <= 0.30

The frame terms are read from the rendered, post-ISP frame inside the card's mask of the
object-index pass (Table 2).
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.house.breaker_label import (CARD_OBJECT, BreakerLabelSpec, card_frame, card_layout, card_points)
from geometry.camera import CameraPose, blur_at_target_px, project
from geometry.raycast import frame_and_occlusion_fractions, px_per_unit
from scorers.image_stats import saturated_fraction, weber_contrast
from scorers.terms import TermResult, term

IN_FRAME_MIN = 0.98
UNOCCLUDED_MIN = 0.95
ROW_PX_MIN = 11.0
VIEW_ANGLE_MAX = 45.0
BBOX_MIN = 0.04
WEBER_MIN = 0.225
SATURATED_MAX = 0.30
BLUR_MAX_PX = 5.0      # Table 1 caption: sharp at target, as equipment_label / slope_gauge
BLUR_GRID = (-0.4, 0.0, 0.4)   # card fractions of the blur points (the text_row_px rows)


def view_angle(spec: BreakerLabelSpec, C) -> float:
    """One-sided angle between the ray card-centre -> camera and the card normal."""
    M = card_frame(spec)
    to = np.asarray(C, float) - M[:3, 3]
    c = float(to @ M[:3, 2]) / max(float(np.linalg.norm(to)), 1e-12)
    return math.degrees(math.acos(max(-1.0, min(1.0, c))))


def text_row_px(spec: BreakerLabelSpec, pose: CameraPose) -> float:
    """Pixel height of one text row (the row pitch) at the card's top, centre and bottom
    rows; the smallest counts. nan if any is behind the camera."""
    M = card_frame(spec)
    pitch = card_layout(spec)["pitch_m"]
    vals = []
    for f in (-0.4, 0.0, 0.4):
        p = M[:3, 3] + f * spec.card.height_m * M[:3, 1]
        vals.append(px_per_unit(pose.K_array(), pose.cam_to_world_array(), p, M[:3, 1], pitch))
    return float(min(vals)) if all(np.isfinite(vals)) else float("nan")


def card_bbox_fraction(spec: BreakerLabelSpec, pose: CameraPose) -> float:
    """Area of the card's projected bounding box within the frame / frame area."""
    uv, z = project(card_points(spec, 5, 5), pose.K_array(), pose.cam_to_world_array())
    if np.any(z <= 1e-6):
        uv = uv[z > 1e-6]
        if not len(uv):
            return 0.0
    W, H = pose.width, pose.height
    u0, u1 = np.clip([uv[:, 0].min(), uv[:, 0].max()], -0.5, W - 0.5)
    v0, v1 = np.clip([uv[:, 1].min(), uv[:, 1].max()], -0.5, H - 0.5)
    return float((u1 - u0) * (v1 - v0) / (W * H))


def blur_points(spec: BreakerLabelSpec) -> np.ndarray:
    """(9, 3) world points where sharpness is checked: the text rows that text_row_px
    reads (top, centre, bottom at +-0.4 of the card height), each at its left, centre and
    right end (+-0.4 of the width)."""
    M = card_frame(spec)
    c = spec.card
    return np.array([M[:3, 3] + fx * c.width_m * M[:3, 0] + fy * c.height_m * M[:3, 1]
                     for fy in BLUR_GRID for fx in BLUR_GRID])


def blur_at_card_px(spec: BreakerLabelSpec, pose: CameraPose) -> float | None:
    """Table 2 blur at target (circle of confusion + motion displacement), the worst of
    the card's text points; None when any of them is behind the camera (or on its plane)."""
    b = max(blur_at_target_px(pose, p) for p in blur_points(spec))
    return b if math.isfinite(b) else None


def scene_terms(spec: BreakerLabelSpec, pose: CameraPose, visibility: tuple[float, float]) -> list[TermResult]:
    in_frame, unocc = visibility
    return [
        term("card_in_frame", "scene", in_frame, ">=", IN_FRAME_MIN),
        term("card_unoccluded", "scene", unocc, ">=", UNOCCLUDED_MIN),
        term("text_row_px", "scene", text_row_px(spec, pose), ">=", ROW_PX_MIN, "px"),
        term("view_angle", "scene", view_angle(spec, pose.center), "<=", VIEW_ANGLE_MAX, "deg"),
        term("card_bbox", "scene", card_bbox_fraction(spec, pose), ">=", BBOX_MIN),
        term("sharp_at_target", "scene", blur_at_card_px(spec, pose), "<=", BLUR_MAX_PX, "px"),
    ]


def frame_terms(image: np.ndarray, object_index: np.ndarray, card_id: int) -> tuple[list[TermResult], dict]:
    mask = object_index == int(card_id)
    wc = weber_contrast(image, mask)
    sat = saturated_fraction(image, mask)
    return ([term("text_contrast", "frame", wc, ">=", WEBER_MIN),
             term("card_saturated", "frame", sat, "<=", SATURATED_MAX)],
            {"card_mask_px": int(mask.sum())})


def card_visibility(geo, spec: BreakerLabelSpec, pose: CameraPose) -> tuple[float, float]:
    pts = card_points(spec, 9, 13, inset=0.01) + 2e-4 * card_frame(spec)[:3, 2]
    return frame_and_occlusion_fractions(geo.raycaster, pts, geo.object_id(CARD_OBJECT), pose.K_array(),
                                         pose.cam_to_world_array(), pose.width, pose.height)


def score_scene(geo, view) -> list[TermResult]:
    spec = geo.spec
    return scene_terms(spec, view.pose, card_visibility(geo, spec, view.pose))


def score_frame(geo, view, frame) -> list[TermResult]:
    return frame_terms(frame.image, frame.object_index, geo.object_id(CARD_OBJECT))[0]


def ground_truth(geo, view, frame=None) -> dict:
    """Answer key (main_amps, entries) plus the numbers behind the card's legibility."""
    spec = geo.spec
    pose = view.pose
    uv, z = project(card_frame(spec)[:3, 3][None], pose.K_array(), pose.cam_to_world_array())
    gt = {
        "main_amps": spec.main_amps,
        "entries": [{"name": e.name, "amps": e.amps} for e in spec.entries],
        "card_style": spec.card.style,
        "text_row_px": _r(text_row_px(spec, pose)),
        "view_angle_deg": _r(view_angle(spec, pose.center)),
        "card_distance_m": _r(np.linalg.norm(card_frame(spec)[:3, 3] - pose.center)),
        "target_center_px": [_r(uv[0, 0]), _r(uv[0, 1])] if z[0] > 0 else None,
        "blur_at_card_px": _r(blur_at_card_px(spec, pose)),
    }
    if frame is not None:
        gt.update(frame_terms(frame.image, frame.object_index, geo.object_id(CARD_OBJECT))[1])
    return gt


def _r(x, nd: int = 6):
    if x is None:
        return None
    x = float(x)
    return round(x, nd) if math.isfinite(x) else None
