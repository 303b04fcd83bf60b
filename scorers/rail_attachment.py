"""Scorer of `rail_attachment`: a close-up of one roof attachment (L-foot, flashing, lag bolt).

Table 1 terms (RealityBench); the attachment = the L-foot, its lag bolt and the exposed
part of its flashing (whichever exist), sampled on their exported surfaces:

scene side  attachment_in_frame       >= 90% of the attachment's samples in frame
            attachment_unoccluded     >= 60% of in-frame samples whose first hit is the
                                      attachment itself (project default, as tape_gap)
            bolt_location_unoccluded  >= 50% of the spot where the bolt sits (or would sit:
                                      the foot's plate under it) in frame and first hit
            fills_frame               projected bbox of the attachment >= 2% of the frame
            not_wide_shot             camera to the bolt's seat <= 1.8 m
            sharp_at_target           defocus + motion blur at the bolt's seat <= 5 px

Table 1 has no frame-side term here; the object-index mask pixel counts and the
Laplacian of the attachment crop are recorded in the ground truth as cross-checks.
Scenes whose bolt or flashing is missing are scored term by term like the others, but
their ground truth carries `acceptability_scored: false` (the paper drops them from the
acceptability task; their documentation answers still count).
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.solar.rail_attachment import bolt_point, bolt_spot_points
from blender_envs.solar.roof_spec import roof_frame
from geometry.camera import CameraPose, blur_at_target_px, project
from scorers.image_stats import laplacian_variance
from scorers.terms import TermResult, term

IN_FRAME_MIN = 0.9
UNOCCLUDED_MIN = 0.6
BOLT_SPOT_MIN = 0.5
BBOX_MIN = 0.02
DISTANCE_MAX_M = 1.8
BLUR_MAX_PX = 5.0
N_INTERIOR = 300


# ------------------------------------------------------------------------- pure core

def part_names(spec) -> dict[str, str]:
    """Object names of the target's existing parts."""
    i = spec.attachment
    out = {"foot": f"l_foot_{i}"}
    if spec.lag_present:
        out["bolt"] = f"lag_bolt_{i}"
    if spec.flashing_present:
        out["flashing"] = f"flashing_{i}"
    return out


def first_hit_is(raycaster, center, points, ids, eps: float = 1e-3, tol: float = 1e-5) -> np.ndarray:
    """Table 2 'unoccluded': the first hit on the ray to the point is one of `ids` (the
    target's own parts do not occlude each other), or nothing lies before the point."""
    P = np.asarray(points, float).reshape(-1, 3)
    c = np.asarray(center, float).reshape(3)
    d = P - c
    dist = np.linalg.norm(d, axis=1)
    t, oid, _, _ = raycaster.cast(np.broadcast_to(c, P.shape), d)
    return (np.isin(oid, list(ids)) | (t > dist * (1 + eps) + tol)) & (dist > tol)


def bbox_fraction(points, pose: CameraPose) -> float:
    """Area of the projected bounding box of the points in front, clipped to the frame."""
    uv, z = project(points, pose.K_array(), pose.cam_to_world_array())
    front = z > 1e-6
    if not front.any():
        return 0.0
    W, H = pose.width, pose.height
    u0, u1 = np.clip([uv[front, 0].min(), uv[front, 0].max()], -0.5, W - 0.5)
    v0, v1 = np.clip([uv[front, 1].min(), uv[front, 1].max()], -0.5, H - 0.5)
    return float((u1 - u0) * (v1 - v0) / (W * H))


def scene_terms(pose: CameraPose, target, in_frame: float, unocc: float, bolt_spot: float,
                bbox: float) -> list[TermResult]:
    C = pose.center
    blur = blur_at_target_px(pose, target)
    return [
        term("attachment_in_frame", "scene", in_frame, ">=", IN_FRAME_MIN),
        term("attachment_unoccluded", "scene", unocc, ">=", UNOCCLUDED_MIN),
        term("bolt_location_unoccluded", "scene", bolt_spot, ">=", BOLT_SPOT_MIN),
        term("fills_frame", "scene", bbox, ">=", BBOX_MIN),
        term("not_wide_shot", "scene", float(np.linalg.norm(np.asarray(target) - C)), "<=", DISTANCE_MAX_M, "m"),
        term("sharp_at_target", "scene", blur if math.isfinite(blur) else None, "<=", BLUR_MAX_PX, "px"),
    ]


def attachment_samples(geo) -> tuple[np.ndarray, set[int]]:
    """Surface samples of the attachment's existing parts; the flashing only where it is
    exposed (on the shingles, not the part tucked under the course above)."""
    from geometry.raycast import sample_surface

    spec = geo.spec
    M = roof_frame(spec.roof)
    pts, ids = [], set()
    for kind, name in part_names(spec).items():
        oid = geo.object_id(name)
        ids.add(oid)
        P, _, _ = sample_surface(geo.mesh, oid, n_interior=N_INTERIOR)
        if kind == "flashing":
            P = P[(P - M[:3, 3]) @ M[:3, 2] >= -1e-4]
        pts.append(P)
    return np.concatenate(pts), ids


def visibility(geo, pose: CameraPose) -> dict:
    """(in-frame, unoccluded, bolt spot, bbox) fractions of the target for one pose."""
    from geometry.raycast import in_frame_mask

    spec = geo.spec
    K, T, C = pose.K_array(), pose.cam_to_world_array(), pose.center
    P, ids = attachment_samples(geo)
    inside = in_frame_mask(P, K, T, pose.width, pose.height)
    unocc = float(first_hit_is(geo.raycaster, C, P[inside], ids).mean()) if inside.any() else 0.0
    S = bolt_spot_points(spec)
    spot_id = geo.object_id(part_names(spec)["bolt" if spec.lag_present else "foot"])
    s_in = in_frame_mask(S, K, T, pose.width, pose.height)
    seen = np.zeros(len(S), bool)
    if s_in.any():
        seen[s_in] = first_hit_is(geo.raycaster, C, S[s_in], {spot_id})
    return {"in_frame": float(inside.mean()), "unoccluded": unocc, "bolt_spot": float(seen.mean()),
            "bbox": bbox_fraction(P, pose)}


def frame_checks(image, object_index, part_ids: dict[str, int]) -> dict:
    """Recorded cross-checks read off the object-index mask (no vote)."""
    att = np.isin(object_index, list(part_ids.values()))
    lv = laplacian_variance(image, att) if att.any() else None
    return {
        "attachment_mask_px": int(att.sum()),
        "bolt_mask_px": int((object_index == part_ids["bolt"]).sum()) if "bolt" in part_ids else 0,
        "flashing_mask_px": int((object_index == part_ids["flashing"]).sum()) if "flashing" in part_ids else 0,
        "attachment_laplacian_var": None if lv is None else round(lv, 6),
    }


def _r(x, nd: int = 6):
    x = float(x)
    return round(x, nd) if math.isfinite(x) else None


# ------------------------------------------------------------------------- adapters

def score_scene(geo, view) -> list[TermResult]:
    vis = visibility(geo, view.pose)
    return scene_terms(view.pose, bolt_point(geo.spec), vis["in_frame"], vis["unoccluded"], vis["bolt_spot"],
                       vis["bbox"])


def score_frame(geo, view, frame) -> list[TermResult]:
    return []


def ground_truth(geo, view, frame=None) -> dict:
    spec, pose = geo.spec, view.pose
    X = bolt_point(spec)
    uv, z = project(X[None], pose.K_array(), pose.cam_to_world_array())
    gt: dict = {
        "lag_present": bool(spec.lag_present),
        "flashing_present": bool(spec.flashing_present),
        "acceptability_scored": bool(spec.lag_present and spec.flashing_present),
        "variant": spec.variant,
        "attachment": spec.attachment,
        "bolt_point": [round(float(x), 6) for x in X],
        "bolt_px": [_r(uv[0, 0]), _r(uv[0, 1])] if z[0] > 0 else None,
        "distance_m": _r(np.linalg.norm(X - pose.center)),
        "blur_at_target_px": _r(blur_at_target_px(pose, X)),
    }
    if frame is not None:
        ids = {k: geo.object_id(n) for k, n in part_names(spec).items()}
        gt.update(frame_checks(frame.image, frame.object_index, ids))
    return gt
