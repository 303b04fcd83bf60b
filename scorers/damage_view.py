"""Scorer core of `damage_view`: a dent / scratch / rust site, square-on from an arm's length.

Table 1 terms (RealityBench), pure functions on explicit geometry, and the Protocol
adapters (`score_scene`, `score_frame`, `ground_truth`) of the environment
(`blender_envs.vehicle.damage_view`). The site is sampled on the damaged surface itself
(`damage_view.surface_samples`, the dent's displacement included); unoccluded is the
ray cast of those samples against the exported mesh (first hit the damage patch):

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
frame side  damage_contrast_px     >= 60 contrasting px: pixels of the damage patch's object-index
                                   mask whose luma differs from the median of the same panel's
                                   undamaged paint by >= CONTRAST_STEP

Severity (Table 3 question, App. D): minor < 100 cm^2 <= moderate <= 500 cm^2 < severe.
"""
from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np

from blender_envs.vehicle.body import to_world
from blender_envs.vehicle.damage import site_area_cm2, site_rect
from blender_envs.vehicle.damage_view import (DAMAGE_OBJECT, DamageViewSpec, ellipse_axes, neighbour_samples,
                                              neighbours, surface_samples)
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


def _r(x, nd: int = 6):
    if x is None:
        return None
    x = float(x)
    return round(x, nd) if math.isfinite(x) else None


# ------------------------------------------------------------------ the environment's adapters

def site_frame(spec: DamageViewSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """World (centre, outward normal, panel u, panel v) of the damage site."""
    car = spec.lot.subject
    c, _, _, n = ellipse_axes(car.body, spec.damage)
    rect = site_rect(car.body, spec.damage)
    origin = to_world(car.placement, np.zeros(3))

    def direction(d):
        return to_world(car.placement, np.asarray(d, float)) - origin

    return to_world(car.placement, c), direction(n), direction(rect.u), direction(rect.v)


def site_world_samples(spec: DamageViewSpec) -> np.ndarray:
    car = spec.lot.subject
    return to_world(car.placement, surface_samples(car.body, spec.damage))


def neighbour_world_samples(spec: DamageViewSpec) -> dict[str, np.ndarray]:
    car = spec.lot.subject
    return {k: to_world(car.placement, v) for k, v in neighbour_samples(car.body, spec.damage).items()}


def scene_terms_of(spec: DamageViewSpec, pose: CameraPose, unoccluded: float) -> list[TermResult]:
    """Every scene-side term of one pose from the spec, with the unoccluded fraction of the
    in-frame site samples ray-cast by the caller (`score_scene`: the exported mesh)."""
    centre, normal, u, v = site_frame(spec)
    in_frame = in_frame_fraction(pose, site_world_samples(spec))
    _, nb = neighbour_in_frame(pose, neighbour_world_samples(spec), neighbours(spec.lot.subject.body, spec.damage))
    return scene_terms(pose, centre, normal, u, v, in_frame, unoccluded, nb)


def visibility(raycaster, damage_id: int, spec: DamageViewSpec, pose: CameraPose) -> tuple[float, float]:
    """(in-frame, unoccluded) fractions of the site samples against a scene mesh."""
    from geometry.raycast import frame_and_occlusion_fractions

    return frame_and_occlusion_fractions(raycaster, site_world_samples(spec), damage_id, pose.K_array(),
                                         pose.cam_to_world_array(), pose.width, pose.height)


def score_scene(geo, view) -> list[TermResult]:
    _, unocc = visibility(geo.raycaster, geo.object_id(DAMAGE_OBJECT), geo.spec, view.pose)
    return scene_terms_of(geo.spec, view.pose, unocc)


def panel_object(spec: DamageViewSpec) -> str:
    """Object name of the damaged panel (car_build's `subject_<panel>`)."""
    return f"subject_{spec.damage.panel}"


def frame_masks(geo, object_index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(damage mask, the damaged panel's undamaged paint mask) from the object-index pass."""
    oi = np.asarray(object_index)
    return oi == geo.object_id(DAMAGE_OBJECT), oi == geo.object_id(panel_object(geo.spec))


def score_frame(geo, view, frame) -> list[TermResult]:
    dmg, paint = frame_masks(geo, frame.object_index)
    return [contrast_term(contrasting_pixels(frame.image, dmg, paint))]


def ground_truth(geo, view, frame=None) -> dict:
    """Answer keys `damage_types` and `severity`, the site as drawn, and the numbers behind
    the terms (the rendered mask's pixel count and contrasting pixels with a frame)."""
    spec, pose = geo.spec, view.pose
    site, body = spec.damage, spec.lot.subject.body
    centre, normal, u, v = site_frame(spec)
    nb_name, nb = neighbour_in_frame(pose, neighbour_world_samples(spec), neighbours(body, site))
    gt = damage_ground_truth(site.kinds, site_area_cm2(body, site))
    gt.update({
        "panel": site.panel, "neighbour_panels": neighbours(body, site), "best_neighbour": nb_name,
        "neighbour_in_frame": _r(nb), "semi_axes_cm": list(site.semi_axes_cm), "depth_mm": site.depth_mm,
        "site_center_world": [_r(x) for x in centre], "body_style": body.style, "color": spec.lot.subject.color,
        "distance_m": _r(np.linalg.norm(pose.center - centre)), "view_angle_deg": _r(view_angle_deg(pose.center,
                                                                                                    centre, normal)),
        "px_per_cm": _r(px_per_cm(pose, centre, u, v)),
        "damage_in_frame_fraction": _r(in_frame_fraction(pose, site_world_samples(spec))),
    })
    if frame is not None:
        dmg, paint = frame_masks(geo, frame.object_index)
        gt.update({"damage_mask_px": int(dmg.sum()),
                   "damage_contrasting_px": contrasting_pixels(frame.image, dmg, paint)})
    return gt


__all__ = ["score_scene", "score_frame", "ground_truth"]
