"""Scorer of `tape_gap`: a tape hooked on the roof, standing up to the module frame.

Table 1 terms (RealityBench), with the crossing = blade points within +-0.5 in of the
apparent reading (where the camera sees the module's front-bottom edge cross the blade):

scene side  crossing_on_blade   the apparent crossing lies on the blade at all
            crossing_in_frame   >= 90% of crossing samples in frame (project default, as calib)
            crossing_unoccluded >= 60% of in-frame crossing samples visible (project default)
            crossing_distance   camera centre to crossing <= 0.65 m (read 1/16 in ticks)
            tape_flush          lean vs the roof normal <= 5 deg; gray when the lean is
                                > 5 deg but shows as <= 5 deg in the image
            front_of_blade      view ray vs numbered-face normal < 75 deg
            sharp_at_crossing   defocus + motion blur at the crossing <= 5 px
frame side  crossing_pixels     the blade's mask has >= 25 px in the crossing crop

The Laplacian variance of the crossing crop is a recorded cross-check of the blur term
(ground truth `crossing_laplacian_var`), not a vote: it depends on texture and ISP and
the paper gives it no threshold.

The core is pure functions on explicit geometry (`scene_terms`, `frame_terms`,
`tape_ground_truth`); `score_scene`/`score_frame`/`ground_truth` are thin adapters that
read the validated `TapeGapSpec` (`tape`, `edge`: the module front-bottom edge as two
world points, `module_gap_m`) and a blade object named `TAPE_BLADE_OBJECT` in the scene
state.
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.solar.tape_spec import (
    FLUSH_MAX_DEG, FRONT_MAX_DEG, TAPE_BLADE_OBJECT, TapeSpec, apparent_reading_in,
    blade_point, front_of_blade, gap_in, geometric_crossing_reading_in, image_lean_deg, lean_deg,
)
from geometry.camera import CameraPose, blur_at_target_px, project
from scorers.image_stats import laplacian_variance
from scorers.terms import TermResult, flag, term

CROSSING_HALF_IN = 0.5
IN_FRAME_MIN = 0.9
UNOCCLUDED_MIN = 0.6
DISTANCE_MAX_M = 0.65
BLUR_MAX_PX = 5.0
CROSSING_PIXELS_MIN = 25
_FACE_LIFT_M = 2e-4  # samples sit this far off the printed face so the face never hides them


# ------------------------------------------------------------------------- pure core

def crossing_points(tape: TapeSpec, reading_in: float, n_along: int = 21, n_across: int = 5) -> np.ndarray:
    """Samples of the numbered face within +-CROSSING_HALF_IN of `reading_in` (N,3)."""
    r = reading_in + np.linspace(-CROSSING_HALF_IN, CROSSING_HALF_IN, n_along)
    a = np.linspace(-0.45, 0.45, n_across) * tape.blade_width_m
    P = blade_point(tape, r)[:, None, :] + a[None, :, None] * tape.width_dir()[None, None, :]
    return P.reshape(-1, 3) + _FACE_LIFT_M * tape.facing_array()


def crossing_on_blade(tape: TapeSpec, reading_in: float) -> bool:
    return bool(np.isfinite(reading_in)
                and tape.first_reading_in + CROSSING_HALF_IN <= reading_in <= tape.top_reading_in - CROSSING_HALF_IN)


def tilt_term(tape: TapeSpec, pose: CameraPose) -> TermResult:
    """Flush iff lean <= 5 deg; a lean the image shows as <= 5 deg is gray (Table 1)."""
    lean = lean_deg(tape)
    img = image_lean_deg(tape, pose)
    invisible = bool(np.isfinite(img) and img <= FLUSH_MAX_DEG)
    return term("tape_flush", "scene", lean, "<=", FLUSH_MAX_DEG, "deg",
                gray_band=(FLUSH_MAX_DEG, 180.0) if invisible else None)


def scene_terms(tape: TapeSpec, edge_p0, edge_p1, pose: CameraPose,
                crossing_visibility: tuple[float, float]) -> list[TermResult]:
    """Scene-side terms; `crossing_visibility` = (in-frame, unoccluded) fractions of
    `crossing_points(tape, apparent reading)` as ray-cast by the caller."""
    C = pose.center
    r = apparent_reading_in(tape, edge_p0, edge_p1, C)
    on_blade = crossing_on_blade(tape, r)
    P = blade_point(tape, r) if np.isfinite(r) else None
    in_frame, unocc = crossing_visibility
    dist = float(np.linalg.norm(P - C)) if P is not None else None
    _, ang = front_of_blade(tape, C, P)  # at the hook when there is no crossing
    blur = blur_at_target_px(pose, P) if P is not None else None
    blur = blur if blur is not None and math.isfinite(blur) else None  # behind the camera
    return [
        flag("crossing_on_blade", "scene", on_blade),
        term("crossing_in_frame", "scene", float(in_frame) if on_blade else 0.0, ">=", IN_FRAME_MIN),
        term("crossing_unoccluded", "scene", float(unocc) if on_blade else 0.0, ">=", UNOCCLUDED_MIN),
        term("crossing_distance", "scene", dist, "<=", DISTANCE_MAX_M, "m"),
        tilt_term(tape, pose),
        term("front_of_blade", "scene", ang, "<", FRONT_MAX_DEG, "deg"),
        term("sharp_at_crossing", "scene", blur, "<=", BLUR_MAX_PX, "px"),
    ]


def crossing_crop(tape: TapeSpec, reading_in: float, pose: CameraPose, pad_px: int = 2):
    """Integer pixel box (u0, v0, u1, v1), inclusive, around the projected crossing; None if
    it is behind the camera or entirely outside the frame."""
    if not np.isfinite(reading_in):
        return None
    P = crossing_points(tape, reading_in, n_along=3, n_across=3)
    uv, z = project(P, pose.K_array(), pose.cam_to_world_array())
    if np.any(z <= 1e-6):
        return None
    u0 = max(int(math.floor(uv[:, 0].min())) - pad_px, 0)
    v0 = max(int(math.floor(uv[:, 1].min())) - pad_px, 0)
    u1 = min(int(math.ceil(uv[:, 0].max())) + pad_px, pose.width - 1)
    v1 = min(int(math.ceil(uv[:, 1].max())) + pad_px, pose.height - 1)
    if u0 > u1 or v0 > v1:
        return None
    return u0, v0, u1, v1


def crossing_mask(object_index: np.ndarray, tape_object_id: int, box) -> np.ndarray:
    """Blade pixels inside the crossing box (full-frame boolean mask)."""
    m = np.zeros(object_index.shape, dtype=bool)
    if box is not None:
        u0, v0, u1, v1 = box
        m[v0:v1 + 1, u0:u1 + 1] = object_index[v0:v1 + 1, u0:u1 + 1] == int(tape_object_id)
    return m


def frame_terms(image: np.ndarray, object_index: np.ndarray, tape_object_id: int, pose: CameraPose,
                tape: TapeSpec, edge_p0, edge_p1) -> tuple[list[TermResult], dict]:
    """Frame-side terms, plus the recorded cross-checks (Laplacian on the crossing crop)."""
    r = apparent_reading_in(tape, edge_p0, edge_p1, pose.center)
    box = crossing_crop(tape, r, pose)
    mask = crossing_mask(object_index, tape_object_id, box)
    n = int(mask.sum())
    lv = laplacian_variance(image, mask) if n else None
    checks = {
        "crossing_crop_px": None if box is None else list(box),
        "crossing_mask_px": n,
        "crossing_laplacian_var": None if lv is None else round(lv, 6),
    }
    return [term("crossing_pixels", "frame", n, ">=", CROSSING_PIXELS_MIN, "px")], checks


def tape_ground_truth(tape: TapeSpec, edge, module_gap_m: float, pose: CameraPose) -> dict:
    """Answer key: reading_in (apparent), gap_in, tilted, and the numbers behind them."""
    p0, p1 = (np.asarray(p, float) for p in edge)
    C = pose.center
    r_app = apparent_reading_in(tape, p0, p1, C)
    r_geo = geometric_crossing_reading_in(tape, p0, p1)
    lean = lean_deg(tape)
    img_lean = image_lean_deg(tape, pose)
    gt: dict = {
        "reading_in": _r(r_app),
        "gap_in": _r(gap_in(module_gap_m)),
        "tilted": bool(lean > FLUSH_MAX_DEG),
        "geometric_reading_in": _r(r_geo),
        "parallax_in": _r(r_app - r_geo),
        "lean_deg": _r(lean),
        "lean_in_plane_deg": _r(tape.lean_in_plane_deg),
        "lean_across_deg": _r(tape.lean_across_deg),
        "image_lean_deg": _r(img_lean),
    }
    if np.isfinite(r_app):
        P = blade_point(tape, r_app)
        uv, z = project(P[None], pose.K_array(), pose.cam_to_world_array())
        gt["crossing_point"] = [round(float(x), 6) for x in P]
        gt["crossing_px"] = [_r(uv[0, 0]), _r(uv[0, 1])] if z[0] > 0 else None
        gt["crossing_distance_m"] = _r(np.linalg.norm(P - C))
        gt["front_angle_deg"] = _r(front_of_blade(tape, C, P)[1])
        gt["blur_at_crossing_px"] = _r(blur_at_target_px(pose, P))
    return gt


def _r(x, nd: int = 6):
    x = float(x)
    return round(x, nd) if math.isfinite(x) else None


# ------------------------------------------------------------------------- adapters

def _inputs(spec):
    """(tape, (p0, p1), module_gap_m) of a validated `TapeGapSpec`."""
    p0, p1 = (np.asarray(p, dtype=np.float64) for p in spec.edge)
    return spec.tape, (p0, p1), float(spec.module_gap_m)


def score_scene(geo, view) -> list[TermResult]:
    from geometry.raycast import frame_and_occlusion_fractions

    tape, (p0, p1), _ = _inputs(geo.spec)
    pose = view.pose
    r = apparent_reading_in(tape, p0, p1, pose.center)
    vis = (0.0, 0.0)
    if crossing_on_blade(tape, r):
        vis = frame_and_occlusion_fractions(geo.raycaster, crossing_points(tape, r), geo.object_id(TAPE_BLADE_OBJECT),
                                            pose.K_array(), pose.cam_to_world_array(), pose.width, pose.height)
    return scene_terms(tape, p0, p1, pose, vis)


def score_frame(geo, view, frame) -> list[TermResult]:
    tape, (p0, p1), _ = _inputs(geo.spec)
    terms, _ = frame_terms(frame.image, frame.object_index, geo.object_id(TAPE_BLADE_OBJECT),
                           view.pose, tape, p0, p1)
    return terms


def ground_truth(geo, view, frame=None) -> dict:
    tape, edge, gap = _inputs(geo.spec)
    gt = tape_ground_truth(tape, edge, gap, view.pose)
    if frame is not None:
        _, checks = frame_terms(frame.image, frame.object_index, geo.object_id(TAPE_BLADE_OBJECT),
                                view.pose, tape, *edge)
        gt.update(checks)
    return gt
