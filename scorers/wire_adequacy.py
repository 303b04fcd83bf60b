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
                                 the boundary, of the local step (`image_stats.edge_contrast`)

Ground truth `touching`: any wire or cable of the scene with clearance <= 0 (Table 2:
beveled tube to the roof plane; `blender_envs.solar.wire_adequacy.wire_clearances`).
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.solar.wire_adequacy import (is_touching, low_point, low_point_samples, wire_clearances,
                                              wire_radius)
from geometry.camera import CameraPose, blur_at_target_px, project
from scorers.image_stats import edge_contrast, mask_pixels
from scorers.terms import TermResult, term

IN_FRAME_MIN = 0.5
LOW_POINT_MIN = 0.5
UNOCCLUDED_MIN = 0.3
DISTANCE_MAX_M = 2.5
BLUR_MAX_PX = 5.0
PIXELS_MIN_FRAC = 0.0005
EDGE_CONTRAST_MIN = 0.03
N_INTERIOR = 600


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


def frame_values(image: np.ndarray, object_index: np.ndarray, wire_id: int) -> tuple[float, float | None]:
    """(mask pixels / frame pixels, edge contrast) of the wire in the rendered frame."""
    H, W = object_index.shape
    mask = object_index == int(wire_id)
    frac = mask_pixels(object_index, wire_id) / float(H * W)
    return frac, (edge_contrast(image, mask) if mask.any() else None)


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
