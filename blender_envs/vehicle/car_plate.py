"""`car_plate` (RealityBench §3.2, Tables 1-3): a vehicle-intake technician photographs
the subject car's mounted plate close up, in the shared parking lot (`lot.py`).

Spec side only (no bpy). The scene is car_view's: the lot with its subject and 10-18
distractors, each car with its own plate (`plates.py`; every plate is printed by
`plate_texture`), and the phone. The field pose (`sample_view`) walks to the requested
end of the subject (front or rear, uniform), stands or crouches at a distance
log-uniform in DISTANCE_M from the plate, off its normal by N(0, AZIMUTH_SD_DEG), and
aims by hand at the plate. The whole pose lies inside the lot's clear disc (distance
<= 5 m; the disc's radius is half a length + 6 m, about 8 m: `clear_radius`), so no other car
can stand between phone and plate.

Plate geometry (`plate_frame`) is car_build's: a 305 x 152 mm plane 5 mm in front of
the front bumper or the rear face, x = the viewer's right, y = up, z = out.
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.registry import Environment
from blender_envs.vehicle.body import PLATE_SIZE_M, car_to_world, plate_centers, sample_body, sample_color
from blender_envs.stages import stage_rng
from blender_envs.vehicle.car_view import GENERATOR_VERSION, SUBJECT_PREFIX
from blender_envs.vehicle.lot import LotCar, LotSpec, sample_lot
from geometry.camera import Phone, look_at, sample_phone, sample_phone_pose
from geometry.scene import SceneSpec, View

TARGET = "subject_plate"
ENDS = ("front", "rear")
PLATE_OFFSET_M = 0.005           # car_build.PLATE_OFFSET_M (a spec module may not import the builder)

# field-pose distribution (docs/envs/car_plate.md)
DISTANCE_M = (0.45, 5.0)         # log-uniform, camera to plate centre (3-D)
AZIMUTH_SD_DEG = 22.0            # horizontal, off the plate normal
EYE_HEIGHT_M = (1.25, 1.75)      # standing
CROUCH_HEIGHT_M = (0.45, 0.95)   # crouched to the plate
CROUCH_SHARE = 0.40
AIM_SD_FRAC = 0.05               # aim error, m per m of distance (each axis)
ROLL_SD_DEG = 4.0
CLEAR_MARGIN_M = 1.0             # clear disc radius = half a length + DISTANCE_M[1] + this (vehicle-6)


class CarPlateSpec(SceneSpec):
    lot: LotSpec
    phone: Phone


def clear_radius(length_m: float) -> float:
    """The lot's clear disc (lot.py) for this environment's poses: a pose stands at most
    DISTANCE_M[1] from a plate at most half a length from the car's centre, so this disc holds
    every pose and every line from it to the plate. vehicle-6: car_view's 4.5 lengths before
    (about 21 m, where these poses reach 8 m), which left the subject alone in an empty lot."""
    return length_m / 2 + DISTANCE_M[1] + CLEAR_MARGIN_M


def sample_scene(rng: np.random.Generator, scene_id: str, seed: int) -> CarPlateSpec:
    """car_view's scene draw (same stages, same lot rules, this environment's clear disc)."""
    root = int(rng.integers(0, 2**63 - 1))
    srng = stage_rng(root, "subject")
    body, color = sample_body(srng), sample_color(srng)
    lot = sample_lot(stage_rng(root, "lot"), clear_radius(body.length_m), body, color)
    phone = sample_phone(stage_rng(root, "phone"))
    return CarPlateSpec(env="car_plate", scene_id=scene_id, seed=seed, lot=lot, phone=phone)


def plate_object(end: str, prefix: str = SUBJECT_PREFIX) -> str:
    """Blender object name of a car's plate (car_build's naming)."""
    return f"{prefix}plate_{end}"


def plate_frame(car: LotCar, end: str) -> np.ndarray:
    """4x4 world matrix of a plate's printed face: x = text right, y = up, z = out (car_build's)."""
    c = plate_centers(car.body)[end]
    s = 1.0 if end == "front" else -1.0
    T = np.eye(4)
    T[:3, 0] = [0.0, s, 0.0]
    T[:3, 1] = [0.0, 0.0, 1.0]
    T[:3, 2] = [s, 0.0, 0.0]
    T[:3, 3] = c + PLATE_OFFSET_M * T[:3, 2]
    return car_to_world(car.placement) @ T


def plate_points(car: LotCar, end: str, nu: int = 9, nv: int = 5, inset: float = 0.02) -> np.ndarray:
    """Grid over the plate's face, `inset` (fraction) inside its edges, lifted 0.1 mm."""
    T = plate_frame(car, end)
    su = np.linspace(-0.5 + inset, 0.5 - inset, nu) * PLATE_SIZE_M[0]
    sv = np.linspace(-0.5 + inset, 0.5 - inset, nv) * PLATE_SIZE_M[1]
    U, V = np.meshgrid(su, sv)
    return T[:3, 3] + U.reshape(-1, 1) * T[:3, 0] + V.reshape(-1, 1) * T[:3, 1] + 1e-4 * T[:3, 2]


def plate_corners(car: LotCar, end: str) -> np.ndarray:
    """(4, 3) world corners: top-left, top-right, bottom-right, bottom-left (as printed)."""
    T = plate_frame(car, end)
    w, h = PLATE_SIZE_M[0] / 2, PLATE_SIZE_M[1] / 2
    return np.array([T[:3, 3] + sx * w * T[:3, 0] + sy * h * T[:3, 1] for sx, sy in
                     ((-1, 1), (1, 1), (1, -1), (-1, -1))])


def sample_view(spec: CarPlateSpec, rng: np.random.Generator, view_index: int, long_side_px: int,
                attempt: int = 0) -> View:
    """Walk to the requested end, step back, crouch or stand, aim at the plate by hand."""
    car = spec.lot.subject
    end = ENDS[int(rng.integers(len(ENDS)))]
    T = plate_frame(car, end)
    X, n = T[:3, 3], T[:3, 2]
    d = float(math.exp(rng.uniform(math.log(DISTANCE_M[0]), math.log(DISTANCE_M[1]))))
    az = math.radians(float(rng.normal(0.0, AZIMUTH_SD_DEG)))
    height = float(rng.uniform(*CROUCH_HEIGHT_M)) if rng.random() < CROUCH_SHARE else float(rng.uniform(*EYE_HEIGHT_M))
    dz = height - X[2]
    h = math.sqrt(max(d * d - dz * dz, 0.04))      # at least 0.2 m out in front of the plate
    side = np.cross([0.0, 0.0, 1.0], n)
    eye = X + h * (math.cos(az) * n + math.sin(az) * side)
    eye[2] = height
    dist = float(np.linalg.norm(X - eye))
    aim = X + rng.normal(0.0, AIM_SD_FRAC * dist, size=3)
    cam = look_at(eye, aim, roll_rad=math.radians(float(rng.normal(0.0, ROLL_SD_DEG))))
    pose = sample_phone_pose(rng, spec.phone, cam, X if (X - eye) @ cam[:3, 2] > 0.05 else aim, long_side_px)
    return View(view_index=view_index, pose=pose, target=f"{TARGET}:{end}", attempt=attempt)


ENV = Environment(
    name="car_plate",
    family="vehicle",
    version=GENERATOR_VERSION,
    views_per_scene=4,
    sample_scene=sample_scene,
    sample_view=sample_view,
    builder="blender_envs.vehicle.car_plate_build:build",
    scorer="scorers.car_plate",
    spec_model=CarPlateSpec,
    prompts="realitybench",
    acceptability_scored=False,
)
