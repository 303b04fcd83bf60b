"""Scorer core of `car_plate`: the subject's mounted plate, close up and legible.

Acceptability is not scored (Table 1 "–", §4: raters disagreed on small but legible
plates); the terms still select the documentation frames (a frame whose terms all pass
is the scorer-acceptable set the documentation score averages over, App. D). Table 1
terms, constants below, the photographed plate named by the view's target
(`subject_plate:front` or `:rear`):

Ground truth (App. D normalisation, decided in docs/envs/vehicles.md): `plate` = the
serial's letters and digits, upper case; `state` = the state's full name, which the plate
prints. The grader (scorers.realitybench_grading.score_text) normalises both sides, so
"california" matches "California"; the USPS code "CA" does not (no alias table).

scene side  plate_in_frame     every sample of a 9 x 5 grid over the plate (2% inside its
                               edges) in frame
            plate_unoccluded   >= 95% of the in-frame samples visible (the first hit is the
                               plate): on the farm's exported mesh (`score_scene`); the pure
                               estimate (`analytic_unoccluded`) is exact for this scene: every
                               part of the subject lies behind the plate's plane and every
                               other object outside the lot's clear disc, which holds the pose
            char_px            the serial's glyph height (70 mm) in px at the plate centre,
                               along the plate's up direction (foreshortening included)
            view_angle         ray to the camera vs the plate normal at its centre, <= 45 deg
            plate_bbox         the projected plate corners' bbox, clipped to the frame, >= 2%
            sharp_at_target    defocus + motion blur at the plate centre <= 6 px
frame side  plate_contrast     Weber contrast (90th vs 10th percentile of linear luminance)
                               inside the plate's object-index mask >= 0.1
            plate_saturated    <= 30% of the plate's pixels clipped
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.vehicle.car_plate import CarPlateSpec, plate_corners, plate_frame, plate_object, plate_points
from blender_envs.vehicle.plate_texture import plate_texture
from blender_envs.vehicle.plates import CHAR_HEIGHT_M, Plate
from geometry.camera import CameraPose, blur_at_target_px, project, view_angle_deg
from geometry.raycast import in_frame_mask, px_per_unit
from scorers.image_stats import saturated_fraction, weber_contrast
from scorers.realitybench_grading import normalize_text
from scorers.terms import TermResult, term

PLATE_IN_FRAME_MIN = 1.0
UNOCCLUDED_MIN = 0.95
CHAR_PX_MIN = 12.0
VIEW_ANGLE_MAX = 45.0
BBOX_MIN = 0.02
WEBER_MIN = 0.1
SATURATED_MAX = 0.30
BLUR_MAX_PX = 6.0


def plate_ground_truth(plate: Plate) -> dict:
    """Answer keys `plate` and `state`, with the printed serial and the state code recorded."""
    return {"plate": normalize_text(plate.text), "state": plate.style.state,
            "plate_text": plate.text, "plate_format": plate.format, "state_code": plate.state_code}


def target_end(view) -> str:
    """'front' or 'rear' from the view's target (`subject_plate:<end>`)."""
    end = view.target.partition(":")[2]
    if end not in ("front", "rear"):
        raise ValueError(f"car_plate view target {view.target!r} names no plate end")
    return end


def char_px(car, end: str, pose: CameraPose) -> float:
    T = plate_frame(car, end)
    return px_per_unit(pose.K_array(), pose.cam_to_world_array(), T[:3, 3], T[:3, 1], CHAR_HEIGHT_M)


def plate_view_angle(car, end: str, pose: CameraPose) -> float:
    T = plate_frame(car, end)
    return float(view_angle_deg(pose.center, T[:3, 3], T[:3, 2]))


def plate_bbox_fraction(car, end: str, pose: CameraPose) -> float:
    """The projected corners' bbox clipped to the frame / frame area (0 if any corner is behind)."""
    uv, z = project(plate_corners(car, end), pose.K_array(), pose.cam_to_world_array())
    if not bool(np.all(z > 1e-6)):
        return 0.0
    W, H = pose.width, pose.height
    u0, u1 = np.clip([uv[:, 0].min(), uv[:, 0].max()], -0.5, W - 0.5)
    v0, v1 = np.clip([uv[:, 1].min(), uv[:, 1].max()], -0.5, H - 0.5)
    return float((u1 - u0) * (v1 - v0) / (W * H))


def in_frame_fraction(car, end: str, pose: CameraPose) -> float:
    P = plate_points(car, end)
    return float(in_frame_mask(P, pose.K_array(), pose.cam_to_world_array(), pose.width, pose.height).mean())


def analytic_unoccluded(car, end: str, pose: CameraPose) -> float:
    """1 when the camera is in front of the plate's plane (nothing can come between, see
    above), else 0 (the plate's back)."""
    T = plate_frame(car, end)
    return 1.0 if float((pose.center - T[:3, 3]) @ T[:3, 2]) > 0.0 else 0.0


def blur_at_plate_px(car, end: str, pose: CameraPose) -> float | None:
    b = blur_at_target_px(pose, plate_frame(car, end)[:3, 3])
    return b if math.isfinite(b) else None


def scene_terms_of(spec: CarPlateSpec, pose: CameraPose, end: str, in_frame: float | None = None,
                   unoccluded: float | None = None) -> list[TermResult]:
    """Every scene-side term; in-frame and unoccluded from the spec unless measured."""
    car = spec.lot.subject
    if in_frame is None:
        in_frame = in_frame_fraction(car, end, pose)
    if unoccluded is None:
        unoccluded = analytic_unoccluded(car, end, pose) if in_frame > 0 else 0.0
    cpx = char_px(car, end, pose)
    return [
        term("plate_in_frame", "scene", float(in_frame), ">=", PLATE_IN_FRAME_MIN),
        term("plate_unoccluded", "scene", float(unoccluded), ">=", UNOCCLUDED_MIN),
        term("char_px", "scene", cpx if math.isfinite(cpx) else None, ">=", CHAR_PX_MIN, "px"),
        term("view_angle", "scene", plate_view_angle(car, end, pose), "<=", VIEW_ANGLE_MAX, "deg"),
        term("plate_bbox", "scene", plate_bbox_fraction(car, end, pose), ">=", BBOX_MIN),
        term("sharp_at_target", "scene", blur_at_plate_px(car, end, pose), "<=", BLUR_MAX_PX, "px"),
    ]


def score_scene(geo, view) -> list[TermResult]:
    from geometry.raycast import frame_and_occlusion_fractions

    spec, pose, end = geo.spec, view.pose, target_end(view)
    car = spec.lot.subject
    in_frame, unocc = frame_and_occlusion_fractions(geo.raycaster, plate_points(car, end),
                                                    geo.object_id(plate_object(end)), pose.K_array(),
                                                    pose.cam_to_world_array(), pose.width, pose.height)
    return scene_terms_of(spec, pose, end, in_frame, unocc)


def frame_terms_of(image: np.ndarray, mask: np.ndarray) -> list[TermResult]:
    return [
        term("plate_contrast", "frame", weber_contrast(image, mask), ">=", WEBER_MIN),
        term("plate_saturated", "frame", saturated_fraction(image, mask), "<=", SATURATED_MAX),
    ]


def score_frame(geo, view, frame) -> list[TermResult]:
    return frame_terms_of(frame.image, frame.object_index == geo.object_id(plate_object(target_end(view))))


def _r(x, nd: int = 4):
    return round(float(x), nd) if x is not None and math.isfinite(float(x)) else None


def ground_truth(geo, view, frame=None) -> dict:
    """Answer keys `plate` and `state` of the photographed plate (the subject's: both its
    plates print the same serial), and the geometry behind the terms. Acceptability is
    never graded (`acceptability_scored: false`, Table 1 "–")."""
    spec, pose, end = geo.spec, view.pose, target_end(view)
    car = spec.lot.subject
    gt = plate_ground_truth(car.plate)
    _, _, lay = plate_texture(car.plate)
    uv, z = project(plate_corners(car, end), pose.K_array(), pose.cam_to_world_array())
    gt.update({
        "acceptability_scored": False,
        "plate_end": end,
        "embossed": car.plate.style.embossed,
        "body_style": car.body.style,
        "color": car.color,
        "char_height_m": round(lay["char_height_m"], 6),
        "char_px": _r(char_px(car, end, pose)),
        "view_angle_deg": _r(plate_view_angle(car, end, pose)),
        "plate_bbox_fraction": _r(plate_bbox_fraction(car, end, pose)),
        "plate_corners_px": np.round(uv, 3).tolist() if bool(np.all(z > 0)) else None,
        "blur_at_plate_px": _r(blur_at_plate_px(car, end, pose)),
        "distractors": len(spec.lot.cars) - 1,
    })
    if frame is not None:
        gt["plate_mask_px"] = int((frame.object_index == geo.object_id(plate_object(end))).sum())
    return gt


def pure_scene_terms(spec: CarPlateSpec, view) -> list[TermResult]:
    """The scene-side terms from the spec alone (no exported mesh): what the acceptance
    estimate on hundreds of field poses uses."""
    return scene_terms_of(spec, view.pose, target_end(view))
