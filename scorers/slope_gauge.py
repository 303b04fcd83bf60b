"""Scorer of `slope_gauge`: a digital angle gauge on a module (or on bare roof).

Table 1 terms (RealityBench):
scene side  display_in_frame       all display samples (9x5 grid incl. corners) in frame
            display_unoccluded     >= 90% of them visible (first hit is the display)
            digit_height           >= 14 px digit height at the display
            display_view_angle     <= 65 deg between the view ray and the display normal
            gauge_on_module        the gauge sits on module glass or frame, not bare roof
            gauge_yaw              |yaw| <= 15 deg; gray for 15-45 deg
            module_glass_in_frame  >= 2% of the frame's pixels see module glass (ray cast)
            module_edge_visible    >= 300 px of module-frame top edge visible
            sharp_at_target        defocus + motion blur at the display centre <= 5 px
                                   (Table 1's caption: every capture task; the requirement
                                   rejects an unreadable display)
frame side  display_saturated      <= 30% of display pixels clipped
            display_contrast       Weber contrast >= 0.2 inside the display mask
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.solar.roof_spec import module_rect_uv, module_top_z, roof_to_world
from blender_envs.solar.slope_gauge import (DIGIT_HEIGHT_M, GAUGE_DISPLAY_OBJECT, SlopeGaugeSpec, display_matrix,
                                            display_points, on_module, reading_text, true_reading_deg)
from geometry.camera import CameraPose, blur_at_target_px, project
from scorers.image_stats import saturated_fraction, weber_contrast
from scorers.terms import TermResult, flag, term

IN_FRAME_MIN = 1.0
UNOCCLUDED_MIN = 0.9
DIGIT_PX_MIN = 14.0
VIEW_ANGLE_MAX = 65.0
YAW_MAX = 15.0
YAW_GRAY = (15.0, 45.0)
GLASS_FRACTION_MIN = 0.02
EDGE_PX_MIN = 300.0
SATURATED_MAX = 0.3
WEBER_MIN = 0.2
BLUR_MAX_PX = 5.0         # Table 1 caption: sharp at target, as rail_attachment / tape_gap
GRID_STEP_PX = 8          # ray-cast every 8th pixel for the glass share
EDGE_STEP_M = 0.01        # spacing of samples along the frame edges


def digit_height_px(spec: SlopeGaugeSpec, pose: CameraPose) -> float:
    from geometry.raycast import px_per_unit

    T = display_matrix(spec.roof, spec.gauge)
    return px_per_unit(pose.K_array(), pose.cam_to_world_array(), T[:3, 3], T[:3, 1], DIGIT_HEIGHT_M)


def display_view_angle(spec: SlopeGaugeSpec, pose: CameraPose) -> float:
    from geometry.camera import view_angle_deg

    T = display_matrix(spec.roof, spec.gauge)
    return float(view_angle_deg(pose.center, T[:3, 3], T[:3, 2]))


def pixel_grid_ids(raycaster, pose: CameraPose, step: int = GRID_STEP_PX) -> np.ndarray:
    """Object ids of the first hit through every `step`-th pixel centre."""
    K, T = pose.K_array(), pose.cam_to_world_array()
    us = np.arange(step // 2, pose.width, step, dtype=float)
    vs = np.arange(step // 2, pose.height, step, dtype=float)
    U, V = np.meshgrid(us, vs)
    pix = np.stack([U.ravel(), V.ravel(), np.ones(U.size)])
    d = (np.linalg.solve(K, pix).T) @ T[:3, :3].T
    _, oid, _, _ = raycaster.cast(T[:3, 3][None, :], d)
    return oid.reshape(V.shape)


def module_edge_polylines(spec: SlopeGaugeSpec) -> list[tuple[str, np.ndarray]]:
    """(frame object name, world points) along each module frame's outer top edge, 1 mm
    inside the outer face on the top face so a ray to it first meets that frame."""
    roof, a = spec.roof, spec.roof.array
    z = module_top_z(roof)
    out = []
    e = 0.001
    for r in range(a.rows):
        for c in range(a.cols):
            u0, v0, u1, v1 = module_rect_uv(roof, r, c)
            corners = [(u0 + e, v0 + e), (u1 - e, v0 + e), (u1 - e, v1 - e), (u0 + e, v1 - e), (u0 + e, v0 + e)]
            pts = []
            for (pa, pb) in zip(corners[:-1], corners[1:]):
                n = max(2, int(math.hypot(pb[0] - pa[0], pb[1] - pa[1]) / EDGE_STEP_M) + 1)
                t = np.linspace(0.0, 1.0, n)[:-1, None]
                pts.append(np.array(pa) + t * (np.array(pb) - np.array(pa)))
            uv = np.vstack(pts + [np.array([corners[-1]])])
            pts3 = np.column_stack([uv, np.full(len(uv), z)])
            out.append((f"module_frame_r{r}_c{c}", roof_to_world(roof, pts3)))
    return out


def visible_edge_px(geo, spec: SlopeGaugeSpec, pose: CameraPose) -> float:
    """Projected length (px) of module-frame top edge that is in frame and unoccluded:
    a segment counts when both its end samples are."""
    from geometry.raycast import in_frame_mask, visible_mask

    K, T = pose.K_array(), pose.cam_to_world_array()
    total = 0.0
    for name, P in module_edge_polylines(spec):
        inside = in_frame_mask(P, K, T, pose.width, pose.height)
        if inside.sum() < 2:
            continue
        ok = np.zeros(len(P), bool)
        ok[inside] = visible_mask(geo.raycaster, pose.center, P[inside], geo.object_id(name), self_occludes=False)
        uv, _ = project(P, K, T)
        seg = ok[:-1] & ok[1:]
        if seg.any():
            total += float(np.linalg.norm(uv[1:][seg] - uv[:-1][seg], axis=1).sum())
    return total


def blur_at_display_px(spec: SlopeGaugeSpec, pose: CameraPose) -> float | None:
    """Table 2 blur at target (circle of confusion + motion displacement) at the display centre."""
    b = blur_at_target_px(pose, display_matrix(spec.roof, spec.gauge)[:3, 3])
    return b if math.isfinite(b) else None


def glass_ids(geo) -> set[int]:
    return {o.id for o in geo.state.objects if o.category == "module_glass"}


def scene_terms_of(spec: SlopeGaugeSpec, pose: CameraPose, in_frame: float, unocc: float, glass_share: float,
                   edge_px: float) -> list[TermResult]:
    """Scene-side terms from the geometry plus the caller's ray-cast measurements."""
    yaw = abs(spec.gauge.yaw_deg)
    return [
        term("display_in_frame", "scene", in_frame, ">=", IN_FRAME_MIN),
        term("display_unoccluded", "scene", unocc, ">=", UNOCCLUDED_MIN),
        term("digit_height", "scene", digit_height_px(spec, pose), ">=", DIGIT_PX_MIN, "px"),
        term("display_view_angle", "scene", display_view_angle(spec, pose), "<=", VIEW_ANGLE_MAX, "deg"),
        flag("gauge_on_module", "scene", on_module(spec.gauge)),
        term("gauge_yaw", "scene", yaw, "<=", YAW_MAX, "deg", gray_band=YAW_GRAY),
        term("module_glass_in_frame", "scene", glass_share, ">=", GLASS_FRACTION_MIN),
        term("module_edge_visible", "scene", edge_px, ">=", EDGE_PX_MIN, "px"),
        term("sharp_at_target", "scene", blur_at_display_px(spec, pose), "<=", BLUR_MAX_PX, "px"),
    ]


def score_scene(geo, view) -> list[TermResult]:
    from geometry.raycast import frame_and_occlusion_fractions

    spec, pose = geo.spec, view.pose
    in_frame, unocc = frame_and_occlusion_fractions(
        geo.raycaster, display_points(spec.roof, spec.gauge), geo.object_id(GAUGE_DISPLAY_OBJECT),
        pose.K_array(), pose.cam_to_world_array(), pose.width, pose.height)
    ids = pixel_grid_ids(geo.raycaster, pose)
    glass = float(np.isin(ids, list(glass_ids(geo))).mean())
    return scene_terms_of(spec, pose, in_frame, unocc, glass, visible_edge_px(geo, spec, pose))


def frame_terms_of(image: np.ndarray, mask: np.ndarray) -> list[TermResult]:
    return [
        term("display_saturated", "frame", saturated_fraction(image, mask), "<=", SATURATED_MAX),
        term("display_contrast", "frame", weber_contrast(image, mask), ">=", WEBER_MIN),
    ]


def score_frame(geo, view, frame) -> list[TermResult]:
    mask = frame.object_index == geo.object_id(GAUGE_DISPLAY_OBJECT)
    return frame_terms_of(frame.image, mask)


def _r(x, nd: int = 4):
    return round(float(x), nd) if x is not None and math.isfinite(float(x)) else None


def ground_truth(geo, view, frame=None) -> dict:
    spec, pose = geo.spec, view.pose
    text = reading_text(spec.roof, spec.gauge)
    T = display_matrix(spec.roof, spec.gauge)
    uv, z = project(T[:3, 3][None], pose.K_array(), pose.cam_to_world_array())
    gt = {
        "reading_deg": float(text),
        "on_module": on_module(spec.gauge),
        "placement": spec.gauge.placement,
        "displayed_text": text,
        "true_axis_angle_deg": round(true_reading_deg(spec.roof, spec.gauge), 6),
        "roof_pitch_deg": spec.roof.pitch_deg,
        "yaw_deg": spec.gauge.yaw_deg,
        "display_px": [round(float(uv[0, 0]), 3), round(float(uv[0, 1]), 3)] if z[0] > 0 else None,
        "digit_height_px": _r(digit_height_px(spec, pose)),
        "blur_at_display_px": _r(blur_at_display_px(spec, pose)),
    }
    if frame is not None:
        gt["display_mask_px"] = int((frame.object_index == geo.object_id(GAUGE_DISPLAY_OBJECT)).sum())
    return gt
