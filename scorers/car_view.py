"""Scorer core of `car_view`: a named face of the subject car, straight on, whole car in frame.

Table 1 terms (RealityBench), pure functions on explicit geometry, and the Protocol
adapters (`score_scene`, `score_frame`, `ground_truth`) of the environment
(`blender_envs.vehicle.car_view`). Every term is scene side: the field pose sampler keeps
only poses from which no other car's or lamp's box meets a sight line to the subject's hull
points (vehicle-8, `blender_envs.vehicle.sightline`; before, the lot's clear disc did), so
"whole car in frame" needs no ray cast; `car_in_frame` and `car_fill` are measured on
`body.hull_points` (panel grids and wheel rims) projected through the pose:

scene side  car_in_frame          every body sample in frame (Table 1 "whole car in frame",
                                  the requirement's "both corners in frame"; project: 100%)
            face_angle            |angle off the nearest face| <= 30 deg: the camera's azimuth
                                  about the car centre, in the car frame, against the four
                                  face normals (not three-quarter)
            distance_min_lengths  camera-to-car-centre distance >= 1.5 car lengths
            distance_lengths      <= 3 car lengths; 3-4 lengths is gray (not scored)
            car_fill              the car's clipped projected bbox >= 3% of the frame
            sharp_at_target       blur at the centre of the named face <= 6 px (Table 1 caption,
                                  "<= 6 px for these four")

The car length is the subject's own `Body.length_m`. The ground-truth `side` is the
nearest face, so the answer a frame asks for is the face the photo shows, also on
rejected (three-quarter) frames.
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.vehicle.body import FACES, Body, Placement, hull_points, to_car, to_world
from blender_envs.vehicle.car_view import SUBJECT_PREFIX, CarViewSpec
from geometry.camera import CameraPose, blur_at_target_px, project
from scorers.terms import TermResult, term

FACE_ANGLE_MAX_DEG = 30.0
LENGTHS_MIN = 1.5
LENGTHS_MAX = 3.0
LENGTHS_GRAY = (3.0, 4.0)
CAR_IN_FRAME_MIN = 1.0
CAR_FILL_MIN = 0.03
BLUR_MAX_PX = 6.0

FACE_AZIMUTH_DEG: dict[str, float] = {"front": 0.0, "rear": 180.0, "driver": 90.0, "passenger": -90.0}


def view_azimuth_deg(camera_center, placement: Placement) -> float:
    """Azimuth of the camera about the car centre in the car frame, degrees in [-180, 180].

    0 = in front (+x), +90 = on the driver side (+y), -90 = passenger side, +-180 = behind.
    NaN when the camera stands (within 1 nm) straight above the centre: no horizontal direction.
    """
    c = to_car(placement, camera_center)
    if math.hypot(c[0], c[1]) < 1e-9:
        return math.nan
    return math.degrees(math.atan2(c[1], c[0]))


def angle_between_deg(a: float, b: float) -> float:
    """Absolute difference of two azimuths, wrapped to [0, 180]."""
    d = (a - b) % 360.0
    return min(d, 360.0 - d)


def nearest_face(azimuth_deg: float) -> tuple[str | None, float]:
    """(face, |angle off it|) for a camera azimuth; ties go to the first face in FACES order.

    The angle is at most 45 deg (the diagonal of the car frame); NaN gives (None, NaN).
    """
    if not math.isfinite(azimuth_deg):
        return None, math.nan
    best, off = FACES[0], angle_between_deg(azimuth_deg, FACE_AZIMUTH_DEG[FACES[0]])
    for f in FACES[1:]:
        d = angle_between_deg(azimuth_deg, FACE_AZIMUTH_DEG[f])
        if d < off:
            best, off = f, d
    return best, off


def distance_in_lengths(camera_center, placement: Placement, body: Body) -> float:
    """Camera to the centre of the car's bounding box, in the subject's own lengths."""
    centre = to_world(placement, body.center())
    return float(np.linalg.norm(centre - camera_center)) / body.length_m


def scene_terms(pose: CameraPose, placement: Placement, body: Body, in_frame: float,
                fill: float) -> list[TermResult]:
    """Scene-side terms; `in_frame` (fraction of body samples in frame) and `fill`
    (clipped projected bbox / frame) are measured by the caller on the built mesh."""
    face, off = nearest_face(view_azimuth_deg(pose.center, placement))
    lengths = distance_in_lengths(pose.center, placement, body)
    blur = None
    if face is not None:
        b = blur_at_target_px(pose, to_world(placement, body.face_center(face)))
        blur = b if math.isfinite(b) else None
    return [
        term("car_in_frame", "scene", float(in_frame), ">=", CAR_IN_FRAME_MIN),
        term("face_angle", "scene", off, "<=", FACE_ANGLE_MAX_DEG, "deg"),
        term("distance_min_lengths", "scene", lengths, ">=", LENGTHS_MIN, "lengths"),
        term("distance_lengths", "scene", lengths, "<=", LENGTHS_MAX, "lengths", gray_band=LENGTHS_GRAY),
        term("car_fill", "scene", float(fill), ">=", CAR_FILL_MIN),
        term("sharp_at_target", "scene", blur, "<=", BLUR_MAX_PX, "px"),
    ]


def view_ground_truth(pose: CameraPose, placement: Placement, body: Body) -> dict:
    """Answer keys `side` and `body_style`, with the numbers behind `side`."""
    az = view_azimuth_deg(pose.center, placement)
    face, off = nearest_face(az)
    return {
        "side": face,
        "body_style": body.style,
        "view_azimuth_deg": _r(az),
        "face_angle_deg": _r(off),
        "distance_lengths": _r(distance_in_lengths(pose.center, placement, body)),
    }


def _r(x, nd: int = 6):
    x = float(x)
    return round(x, nd) if math.isfinite(x) else None


# ------------------------------------------------------------------ the environment's adapters

def projected_hull(pose: CameraPose, placement: Placement, body: Body) -> tuple[np.ndarray, np.ndarray]:
    """Pixel coordinates and planar depths of the car's hull points."""
    return project(to_world(placement, hull_points(body)), pose.K_array(), pose.cam_to_world_array())


def in_frame_and_fill(pose: CameraPose, placement: Placement, body: Body) -> tuple[float, float]:
    """(fraction of hull points in front of the camera and inside the frame, the clipped
    projected bbox of the points in front / frame area): `frame_share_and_fill` of the hull."""
    uv, z = projected_hull(pose, placement, body)
    return frame_share_and_fill(uv, z, pose.width, pose.height)


def frame_share_and_fill(uv: np.ndarray, z: np.ndarray, W: int, H: int) -> tuple[float, float]:
    """Of projected points (pixel coordinates `uv`, depths `z`): the fraction in front of the
    camera (z > 1e-6) and inside the frame, and the bbox of those in front, clipped to the
    frame, over the frame's area. Pixel centres are integers, so the frame spans -0.5 .. W - 0.5
    (edges included)."""
    front = z > 1e-6
    inside = front & (uv[:, 0] >= -0.5) & (uv[:, 0] <= W - 0.5) & (uv[:, 1] >= -0.5) & (uv[:, 1] <= H - 0.5)
    if not front.any():
        return 0.0, 0.0
    q = uv[front]
    u0, u1 = np.clip([q[:, 0].min(), q[:, 0].max()], -0.5, W - 0.5)
    v0, v1 = np.clip([q[:, 1].min(), q[:, 1].max()], -0.5, H - 0.5)
    return float(inside.mean()), float((u1 - u0) * (v1 - v0) / (W * H))


def scene_terms_of(spec: CarViewSpec, pose: CameraPose) -> list[TermResult]:
    """Every term of one pose from the spec alone (what score_scene returns)."""
    car = spec.lot.subject
    in_frame, fill = in_frame_and_fill(pose, car.placement, car.body)
    return scene_terms(pose, car.placement, car.body, in_frame, fill)


def subject_ids(geo) -> list[int]:
    """Object-index ids of every object of the subject car."""
    return sorted(o.id for o in geo.state.objects if o.name.startswith(SUBJECT_PREFIX))


def score_scene(geo, view) -> list[TermResult]:
    return scene_terms_of(geo.spec, view.pose)


def score_frame(geo, view, frame) -> list[TermResult]:
    """car_view's Table 1 terms are all geometric: nothing is read off the frame."""
    return []


def mask_stats(object_index: np.ndarray, ids) -> dict:
    """The subject's object-index mask: pixel share and its bbox's share of the frame."""
    mask = np.isin(object_index, np.asarray(ids, int))
    H, W = mask.shape
    if not mask.any():
        return {"subject_mask_fraction": 0.0, "subject_mask_bbox_fraction": 0.0}
    vs, us = np.nonzero(mask)
    bbox = (us.max() - us.min() + 1) * (vs.max() - vs.min() + 1) / (W * H)
    return {"subject_mask_fraction": _r(mask.mean()), "subject_mask_bbox_fraction": _r(bbox)}


def ground_truth(geo, view, frame=None) -> dict:
    """Answer keys `side` (the face the photo shows) and `body_style`, the subject's
    colour and the requested face, and the numbers behind the terms."""
    spec = geo.spec
    car = spec.lot.subject
    gt = view_ground_truth(view.pose, car.placement, car.body)
    in_frame, fill = in_frame_and_fill(view.pose, car.placement, car.body)
    gt.update({"color": car.color, "requested_face": view.target.partition(":")[2] or None,
               "car_in_frame_fraction": _r(in_frame), "car_bbox_fraction": _r(fill),
               "distractors": len(spec.lot.cars) - 1})
    if frame is not None:
        gt.update(mask_stats(frame.object_index, subject_ids(geo)))
    return gt
