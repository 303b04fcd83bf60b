"""Scorer of `wire_adequacy`: the lead wires and trunk cable under the array.

Table 1 terms (RealityBench), for the target lead wire (the top row's lowest-hanging):

scene side  wire_in_frame        >= 50% of the wire's surface samples in frame
            low_point_visible    >= 50% of the samples around its lowest point in frame
                                 with the wire as first hit
            wire_unoccluded      >= 30% of in-frame samples with the wire as first hit
            low_point_distance   camera within 2.5 m of the low point
            sharp_at_target      defocus + motion blur at the low point <= 5 px
frame side  wire_pixels          the wire's object-index mask >= 0.05% of the frame
            edge_contrast        mean luma step across that mask's boundary >= 0.03,
                                 read off the rendered, post-ISP frame: the mean, along
                                 the boundary, of the local step (`boundary_step`)

Ground truth `touching`: any wire or cable of the scene with clearance <= 0 (Table 2:
beveled tube to the roof plane; `blender_envs.solar.wire_adequacy.wire_clearances`).
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from blender_envs.solar.wire_adequacy import (is_touching, low_point, low_point_samples, wire_clearances,
                                              wire_radius)
from geometry.camera import CameraPose, blur_at_target_px, project
from scorers.image_stats import luma, mask_pixels
from scorers.terms import TermResult, term

IN_FRAME_MIN = 0.5
LOW_POINT_MIN = 0.5
UNOCCLUDED_MIN = 0.3
DISTANCE_MAX_M = 2.5
BLUR_MAX_PX = 5.0
PIXELS_MIN_FRAC = 0.0005
EDGE_CONTRAST_MIN = 0.03
N_INTERIOR = 600
STEP_WINDOW_PX = 7        # side of the window in which each boundary pixel's step is measured


# ------------------------------------------------------------------------- pure core

def scene_terms(pose: CameraPose, target, in_frame: float, low_visible: float, unocc: float) -> list[TermResult]:
    blur = blur_at_target_px(pose, target)
    return [
        term("wire_in_frame", "scene", in_frame, ">=", IN_FRAME_MIN),
        term("low_point_visible", "scene", low_visible, ">=", LOW_POINT_MIN),
        term("wire_unoccluded", "scene", unocc, ">=", UNOCCLUDED_MIN),
        term("low_point_distance", "scene", float(np.linalg.norm(np.asarray(target) - pose.center)), "<=",
             DISTANCE_MAX_M, "m"),
        term("sharp_at_target", "scene", blur if math.isfinite(blur) else None, "<=", BLUR_MAX_PX, "px"),
    ]


def boundary_step(image_uint8: np.ndarray, mask: np.ndarray, window: int = STEP_WINDOW_PX) -> float | None:
    """Table 2 edge contrast: the mean luminance step across the mask's boundary to the
    surrounding pixels, in display luma (0..1, what the eye compares).

    At each pixel of the 1-px ring just inside the mask: |mean luma of that inside ring -
    mean luma of the surrounding ring| within a `window` x `window` neighbourhood; the
    contrast is the mean of these local steps along the boundary. The surrounding ring is
    the pixels 2 px out: the beauty render's 1.5-px pixel filter (plus any defocus) smears
    the wire into the 1-px ring next to the pass render's exact mask. Local steps, because
    a wire is darker than sunlit shingles and, with its sheen, lighter than the shade under
    the modules: the step of the two rings' global means let those parts cancel (a plainly
    visible wire scored 0.013). Averaging a few pixels per side inside the window keeps
    sensor noise from posing as a step (see the tests)."""
    m = np.asarray(mask, bool)
    m8 = m.astype(np.uint8)
    k3, k5 = np.ones((3, 3), np.uint8), np.ones((5, 5), np.uint8)
    inner = m & ~cv2.erode(m8, k3).astype(bool)
    outer = cv2.dilate(m8, k5).astype(bool) & ~cv2.dilate(m8, k3).astype(bool)
    if not inner.any() or not outer.any():
        return None
    y = luma(image_uint8).astype(np.float32)

    def box(a):
        return cv2.boxFilter(a.astype(np.float32), -1, (window, window), normalize=False,
                             borderType=cv2.BORDER_CONSTANT)

    n_in, n_out = box(inner), box(outer)
    at = inner & (n_out > 0)
    if not at.any():
        return None
    step = np.abs(box(y * inner)[at] / n_in[at] - box(y * outer)[at] / n_out[at])
    return float(step.mean())


def frame_values(image: np.ndarray, object_index: np.ndarray, wire_id: int) -> tuple[float, float | None]:
    """(mask pixels / frame pixels, edge contrast) of the wire in the rendered frame."""
    H, W = object_index.shape
    mask = object_index == int(wire_id)
    frac = mask_pixels(object_index, wire_id) / float(H * W)
    return frac, (boundary_step(image, mask) if mask.any() else None)


def frame_terms(image, object_index, wire_id: int) -> list[TermResult]:
    frac, ec = frame_values(image, object_index, wire_id)
    return [term("wire_pixels", "frame", frac, ">=", PIXELS_MIN_FRAC),
            term("edge_contrast", "frame", ec, ">=", EDGE_CONTRAST_MIN)]


def visibility(geo, pose: CameraPose) -> dict:
    """(in-frame, low-point visible, unoccluded) fractions of the target wire."""
    from geometry.raycast import in_frame_mask, sample_surface, visible_mask

    spec = geo.spec
    oid = geo.object_id(spec.target_wire)
    K, T, C = pose.K_array(), pose.cam_to_world_array(), pose.center
    P, _, _ = sample_surface(geo.mesh, oid, n_interior=N_INTERIOR)
    inside = in_frame_mask(P, K, T, pose.width, pose.height)
    unocc = float(visible_mask(geo.raycaster, C, P[inside], oid, self_occludes=False).mean()) if inside.any() else 0.0
    S = low_point_samples(spec.roof, spec.target_wire)
    s_in = in_frame_mask(S, K, T, pose.width, pose.height)
    seen = np.zeros(len(S), bool)
    if s_in.any():
        seen[s_in] = visible_mask(geo.raycaster, C, S[s_in], oid, self_occludes=False)
    return {"in_frame": float(inside.mean()), "low_visible": float(seen.mean()), "unoccluded": unocc}


def _r(x, nd: int = 6):
    x = float(x)
    return round(x, nd) if math.isfinite(x) else None


# ------------------------------------------------------------------------- adapters

def score_scene(geo, view) -> list[TermResult]:
    vis = visibility(geo, view.pose)
    X = low_point(geo.spec.roof, geo.spec.target_wire)
    return scene_terms(view.pose, X, vis["in_frame"], vis["low_visible"], vis["unoccluded"])


def score_frame(geo, view, frame) -> list[TermResult]:
    return frame_terms(frame.image, frame.object_index, geo.object_id(geo.spec.target_wire))


def ground_truth(geo, view, frame=None) -> dict:
    spec, pose = geo.spec, view.pose
    clear = wire_clearances(spec.roof)
    X = low_point(spec.roof, spec.target_wire)
    uv, z = project(X[None], pose.K_array(), pose.cam_to_world_array())
    gt: dict = {
        "touching": any(is_touching(c) for c in clear.values()),
        "touching_wires": sorted(n for n, c in clear.items() if is_touching(c)),
        "target_wire": spec.target_wire,
        "target_touching": is_touching(clear[spec.target_wire]),
        "target_clearance_m": _r(clear[spec.target_wire]),
        "min_clearance_m": _r(min(clear.values())),
        "wire_clearance_m": {n: _r(c) for n, c in sorted(clear.items())},
        "wire_radius_m": _r(wire_radius(spec.roof, spec.target_wire)),
        "low_point": [round(float(x), 6) for x in X],
        "low_point_px": [_r(uv[0, 0]), _r(uv[0, 1])] if z[0] > 0 else None,
        "low_point_distance_m": _r(np.linalg.norm(X - pose.center)),
        "blur_at_target_px": _r(blur_at_target_px(pose, X)),
    }
    if frame is not None:
        frac, ec = frame_values(frame.image, frame.object_index, geo.object_id(spec.target_wire))
        gt["wire_mask_px"] = int((frame.object_index == geo.object_id(spec.target_wire)).sum())
        gt["wire_edge_contrast"] = None if ec is None else _r(ec)
    return gt
