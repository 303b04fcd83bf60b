"""Scorer of `horizon_peak`: one photo of the set taken from the ridge for a shading study.

Table 1 terms (RealityBench), all scene side:
horizon_in_frame    the geometric horizon (0 deg elevation) lies in rows 10%-90% on every
                    sampled column (value: fraction of 33 columns that do; needs 1.0)
own_roof_horizon    fraction of the 0-deg rays (64 columns across the frame) whose first
                    hit is this house <= 0.10
skyline_in_frame    >= 65% of columns (ray-cast id grid, every 4th pixel, <= 160 px long side)
                    have their top-most hit inside the frame with sky above and a hit in
                    the bottom row
own_roof_bottom     >= 4% of the bottom quarter's grid pixels see this house
camera_above_ridge  phone height over the ridge line >= 0 m
sharp_at_target     defocus + motion blur <= 5 px (Table 1's caption: every capture task) at
                    the worst of three horizon points: 0 deg elevation on the columns at 10%,
                    50% and 90% of the width, at the hill ring's inner radius (the far
                    skyline, 200-260 m). The target spans the frame, so roll shake (zero at
                    the centre) counts at its ends. At that distance camera translation is
                    negligible, a phone lens focused beyond ~2 m is sharp there, and nearer
                    skyline objects (trees, houses >= 20 m) change the value < 1 px; what fails
                    is focus locked near or a long-shutter turn.
`level` (|roll| <= 10 deg) is ground truth only.
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.solar.horizon_peak import HorizonPeakSpec, ridge_z
from blender_envs.solar.roof_spec import ROOF_PASS_INDEX
from geometry.camera import CameraPose, blur_at_target_px
from scorers.terms import TermResult, term

HORIZON_BAND = (0.10, 0.90)
HORIZON_COLUMNS = 33
BLOCK_COLUMNS = 64
OWN_BLOCK_MAX = 0.10
SKYLINE_MIN = 0.65
BOTTOM_OWN_MIN = 0.04
HEIGHT_MIN_M = 0.0
LEVEL_MAX_DEG = 10.0
GRID_STEP_PX = 4
GRID_MAX_PX = 160
BLUR_MAX_PX = 5.0                 # Table 1 caption: sharp at target, as equipment_label / slope_gauge
BLUR_COLUMNS = (0.1, 0.5, 0.9)    # width fractions of the horizon points checked for blur


def own_ids(geo) -> np.ndarray:
    """This house: every roof-builder object but the ground (ids 2-99 and >= 200)."""
    g = ROOF_PASS_INDEX["ground"][0]
    lo, _ = ROOF_PASS_INDEX["env_reserved"]
    return np.array(sorted(o.id for o in geo.state.objects if o.id != g and not lo <= o.id < 200), int)


def _horizon_line(pose: CameraPose) -> np.ndarray:
    """(a, b, c) with a*u + b*v + c = world-z of the ray through pixel (u, v)."""
    return (pose.cam_to_world_array()[:3, :3] @ np.linalg.inv(pose.K_array()))[2]


def horizon_rows(pose: CameraPose, us) -> np.ndarray:
    """Row of 0-deg elevation on each column u (nan when the horizon runs along columns)."""
    a, b, c = _horizon_line(pose)
    us = np.asarray(us, float)
    if abs(b) < 1e-9:
        return np.full(us.shape, np.nan)
    return -(a * us + c) / b


def horizon_fraction(pose: CameraPose) -> float:
    us = np.linspace(0, pose.width - 1, HORIZON_COLUMNS)
    v = horizon_rows(pose, us)
    ok = (v >= HORIZON_BAND[0] * pose.height) & (v <= HORIZON_BAND[1] * pose.height)
    return float(np.mean(ok))


def horizon_dirs(pose: CameraPose, n: int = BLOCK_COLUMNS) -> np.ndarray:
    """Unit 0-deg-elevation directions of n columns across the frame."""
    us = np.linspace(0, pose.width - 1, n)
    v = horizon_rows(pose, us)
    if np.isnan(v).any():
        v = np.full(n, pose.K_array()[1, 2])
    Kinv, R = np.linalg.inv(pose.K_array()), pose.cam_to_world_array()[:3, :3]
    d = np.c_[us, v, np.ones(n)] @ Kinv.T @ R.T
    d[:, 2] = 0.0
    return d / np.linalg.norm(d, axis=1, keepdims=True)


def horizon_target_points(spec: HorizonPeakSpec, pose: CameraPose) -> np.ndarray:
    """(3, 3) world points on the geometric horizon at BLUR_COLUMNS of the width, the hill
    ring's inner radius (horizontally) from the camera: where the skyline photo must be sharp."""
    us = np.asarray(BLUR_COLUMNS, float) * (pose.width - 1)
    v = horizon_rows(pose, us)
    if np.isnan(v).any():  # horizon along columns (camera rolled 90 deg): use the centre row
        v = np.full(len(us), pose.K_array()[1, 2])
    R = pose.cam_to_world_array()[:3, :3]
    d = np.c_[us, v, np.ones(len(us))] @ np.linalg.inv(pose.K_array()).T @ R.T
    d[:, 2] = 0.0
    n = np.linalg.norm(d, axis=1, keepdims=True)
    if np.any(n < 1e-9):   # looking straight up or down: no horizontal direction
        return np.full((len(us), 3), np.nan)
    return pose.center + spec.hills.inner_radius_m * d / n


def blur_at_horizon_px(spec: HorizonPeakSpec, pose: CameraPose) -> float | None:
    """Table 2 blur at target (circle of confusion + motion displacement), the worst of the
    horizon points; None when one is undefined or behind the camera."""
    P = horizon_target_points(spec, pose)
    if not np.isfinite(P).all():
        return None
    b = max(blur_at_target_px(pose, p) for p in P)
    return b if math.isfinite(b) else None


def own_block_fraction(geo, pose: CameraPose) -> float:
    d = horizon_dirs(pose)
    _, oid, _, _ = geo.raycaster.cast(np.broadcast_to(pose.center, d.shape), d)
    return float(np.isin(oid, own_ids(geo)).mean())


def grid_step(pose: CameraPose) -> int:
    return max(GRID_STEP_PX, math.ceil(pose.long_side_px / GRID_MAX_PX))


def id_grid(raycaster, pose: CameraPose, step: int) -> np.ndarray:
    """First-hit ids at the centres of step x step pixel blocks (0 = sky)."""
    K = pose.K_array().copy()
    o = (step - 1) / 2.0
    K[0, 0] /= step
    K[1, 1] /= step
    K[0, 2] = (K[0, 2] - o) / step
    K[1, 2] = (K[1, 2] - o) / step
    ids, _ = raycaster.first_hit_ids_for_pixels(K, pose.cam_to_world_array(), pose.width // step,
                                                 pose.height // step)
    return ids


def skyline_rows(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Top-most hit row per column (-1 when none) and whether the column passes: sky
    above it and a hit in the bottom row."""
    hit = ids != 0
    has = hit.any(axis=0)
    top = np.where(has, np.argmax(hit, axis=0), -1)
    return top, has & (top >= 1) & hit[-1]


def camera_height_m(spec: HorizonPeakSpec, pose: CameraPose) -> float:
    return float(pose.center[2] - ridge_z(spec.roof))


def roll_deg(pose: CameraPose) -> float:
    """Signed roll: angle of the image's x axis out of the horizontal plane."""
    T = pose.cam_to_world_array()
    return math.degrees(math.atan2(-T[2, 0], -T[2, 1]))


def scene_terms_of(horizon: float, own_block: float, skyline: float, bottom_own: float,
                   height_m: float, blur_px: float | None) -> list[TermResult]:
    return [
        term("horizon_in_frame", "scene", horizon, ">=", 1.0),
        term("own_roof_horizon", "scene", own_block, "<=", OWN_BLOCK_MAX),
        term("skyline_in_frame", "scene", skyline, ">=", SKYLINE_MIN),
        term("own_roof_bottom", "scene", bottom_own, ">=", BOTTOM_OWN_MIN),
        term("camera_above_ridge", "scene", height_m, ">=", HEIGHT_MIN_M, "m"),
        term("sharp_at_target", "scene", blur_px, "<=", BLUR_MAX_PX, "px"),
    ]


def measure(geo, pose: CameraPose) -> dict:
    spec = geo.spec
    ids = id_grid(geo.raycaster, pose, grid_step(pose))
    _, ok = skyline_rows(ids)
    bottom = ids[int(round(0.75 * ids.shape[0])):]
    return {"horizon": horizon_fraction(pose), "own_block": own_block_fraction(geo, pose),
            "skyline": float(ok.mean()), "bottom_own": float(np.isin(bottom, own_ids(geo)).mean()),
            "height_m": camera_height_m(spec, pose), "blur_px": blur_at_horizon_px(spec, pose)}


def score_scene(geo, view) -> list[TermResult]:
    m = measure(geo, view.pose)
    return scene_terms_of(m["horizon"], m["own_block"], m["skyline"], m["bottom_own"], m["height_m"], m["blur_px"])


def score_frame(geo, view, frame) -> list[TermResult]:
    return []


def ground_truth(geo, view, frame=None) -> dict:
    pose = view.pose
    m = measure(geo, pose)
    roll = roll_deg(pose)
    return {
        "horizon_visible": m["horizon"] >= 1.0,
        "level": abs(roll) <= LEVEL_MAX_DEG,
        "own_roof_blocks": m["own_block"] > OWN_BLOCK_MAX,
        "roll_deg": round(roll, 4),
        "camera_height_m": round(m["height_m"], 4),
        "own_block_fraction": round(m["own_block"], 4),
        "skyline_fraction": round(m["skyline"], 4),
        "bottom_own_fraction": round(m["bottom_own"], 4),
        "blur_at_horizon_px": None if m["blur_px"] is None else round(m["blur_px"], 4),
    }
