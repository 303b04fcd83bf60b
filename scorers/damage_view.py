"""Scorer core of `damage_view`: a dent / scratch / rust site, square-on from an arm's length.

Table 1 terms (RealityBench), pure functions on explicit geometry; the Protocol adapters
come with the builder (issue 12):

scene side  damage_in_frame        every sample of the site's ellipse in frame (the
                                   requirement's "whole damaged region"; project: 100%)
            damage_unoccluded      >= 90% of the in-frame samples visible (no number: project)
            view_angle             ray to the camera vs the panel normal at the site <= 45 deg
            distance_min           camera to the site centre >= 0.3 m
            distance               <= 1.5 m; 1.5-3 m is gray (Table 1 "an arm away (0.3-3.0 m)",
                                   gray 1.5-3 m), so > 3 m rejects
            neighbour_panel        the best neighbouring panel >= 10% in frame
            px_per_cm              >= 3 px per cm at the site, the worse of the panel's two axes
            sharp_at_target        blur at the site centre <= 6 px
frame side  damage_contrast_px     >= 60 contrasting px (with the builder: the damage mask)

Severity (Table 3 question, App. D): minor < 100 cm^2 <= moderate <= 500 cm^2 < severe.
"""
from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np

from geometry.camera import CameraPose, blur_at_target_px, view_angle_deg
from geometry.raycast import in_frame_mask, px_per_unit
from scorers.image_stats import luma
from scorers.terms import TermResult, term

IN_FRAME_MIN = 1.0
UNOCCLUDED_MIN = 0.9
VIEW_ANGLE_MAX = 45.0
DISTANCE_MIN_M = 0.3
DISTANCE_MAX_M = 1.5
DISTANCE_GRAY = (1.5, 3.0)
NEIGHBOUR_PANEL_MIN = 0.10
PX_PER_CM_MIN = 3.0
CONTRAST_PX_MIN = 60
BLUR_MAX_PX = 6.0
CONTRAST_STEP = 0.04        # project default: display-luma step from the paint that makes a pixel "contrasting"

MINOR_BELOW_CM2 = 100.0     # minor: area < 100
SEVERE_ABOVE_CM2 = 500.0    # severe: area > 500; moderate: 100 <= area <= 500


def severity_of(area_cm2: float) -> str:
    """Table 3: minor under 100 cm^2, moderate 100-500 cm^2 (both ends), severe above 500."""
    a = float(area_cm2)
    if not math.isfinite(a) or a < 0:
        raise ValueError(f"not an area: {area_cm2!r}")
    if a < MINOR_BELOW_CM2:
        return "minor"
    if a <= SEVERE_ABOVE_CM2:
        return "moderate"
    return "severe"


def px_per_cm(pose: CameraPose, point, u_dir, v_dir) -> float:
    """Pixels per cm at `point`: the smaller of a 1 cm step along the panel's u and v axes.

    The worse axis counts, so an oblique view that squeezes the damage one way is not
    rescued by the other. NaN when the point is behind the camera.
    """
    K, T = pose.K_array(), pose.cam_to_world_array()
    return float(min(px_per_unit(K, T, point, u_dir, 0.01), px_per_unit(K, T, point, v_dir, 0.01)))


def neighbour_fraction(in_frame_by_panel: Mapping[str, float], neighbours: Sequence[str]) -> tuple[str | None, float]:
    """(panel, fraction) of the neighbour with the largest in-frame fraction; ties to the first
    in `neighbours`' order; (None, 0.0) when the panel has no neighbour measured."""
    best, frac = None, 0.0
    for name in neighbours:
        f = float(in_frame_by_panel.get(name, 0.0))
        if best is None or f > frac:
            best, frac = name, f
    return best, frac


def in_frame_fraction(pose: CameraPose, points) -> float:
    """Fraction of world points (N, 3) in front of the camera and inside the image (0 for none)."""
    P = np.asarray(points)
    if not len(P):
        return 0.0
    return float(in_frame_mask(P, pose.K_array(), pose.cam_to_world_array(), pose.width, pose.height).mean())


def neighbour_in_frame(pose: CameraPose, samples_by_panel: Mapping[str, np.ndarray],
                       neighbours: Sequence[str]) -> tuple[str | None, float]:
    """`neighbour_fraction` of the neighbours' in-frame fractions, from their world samples."""
    fr = {n: in_frame_fraction(pose, samples_by_panel[n]) for n in neighbours if n in samples_by_panel}
    return neighbour_fraction(fr, neighbours)


def contrasting_pixels(image: np.ndarray, damage_mask: np.ndarray, paint_mask: np.ndarray,
                       step: float = CONTRAST_STEP) -> int:
    """Damage pixels whose display luma differs from the undamaged paint's median by >= step.

    The paint reference is the median over `paint_mask` (the same panel outside the
    damage), so a dent on silver paint counts only where its reflections change the
    brightness. 0 when there is no paint pixel to compare with.
    """
    dm, pm = np.asarray(damage_mask, bool), np.asarray(paint_mask, bool) & ~np.asarray(damage_mask, bool)
    if not pm.any():
        return 0
    y = luma(image)
    ref = float(np.median(y[pm]))
    return int(np.count_nonzero(np.abs(y[dm] - ref) >= step))


def scene_terms(pose: CameraPose, center, normal, u_dir, v_dir, in_frame: float, unoccluded: float,
                neighbour: float) -> list[TermResult]:
    """Scene-side terms at the site centre (world), with the panel's outward normal and axes;
    the visibility fractions are ray-cast by the caller."""
    C = pose.center
    P = np.asarray(center)
    dist = float(np.linalg.norm(C - P))
    ang = view_angle_deg(C, P, normal)
    ppcm = px_per_cm(pose, P, u_dir, v_dir)
    blur = blur_at_target_px(pose, P)
    return [
        term("damage_in_frame", "scene", float(in_frame), ">=", IN_FRAME_MIN),
        term("damage_unoccluded", "scene", float(unoccluded), ">=", UNOCCLUDED_MIN),
        term("view_angle", "scene", ang, "<=", VIEW_ANGLE_MAX, "deg"),
        term("distance_min", "scene", dist, ">=", DISTANCE_MIN_M, "m"),
        term("distance", "scene", dist, "<=", DISTANCE_MAX_M, "m", gray_band=DISTANCE_GRAY),
        term("neighbour_panel", "scene", float(neighbour), ">=", NEIGHBOUR_PANEL_MIN),
        term("px_per_cm", "scene", ppcm, ">=", PX_PER_CM_MIN, "px/cm"),   # NaN (behind) -> None
        term("sharp_at_target", "scene", blur if math.isfinite(blur) else None, "<=", BLUR_MAX_PX, "px"),
    ]


def contrast_term(n_contrasting_px: int) -> TermResult:
    """Frame side: 'damage visible (>= 60 contrasting px in frame)'."""
    return term("damage_contrast_px", "frame", int(n_contrasting_px), ">=", CONTRAST_PX_MIN, "px")


def damage_ground_truth(kinds: Sequence[str], area_cm2: float) -> dict:
    """Answer keys `damage_types` (sorted, unique) and `severity`, with the area behind it."""
    return {"damage_types": sorted(set(kinds)), "severity": severity_of(area_cm2),
            "damage_area_cm2": round(float(area_cm2), 4)}
