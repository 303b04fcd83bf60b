"""Build a `CarPlateSpec`: the shared parking lot with every car's plate printed."""
from __future__ import annotations

from blender_envs.vehicle.body import to_world
from blender_envs.vehicle.car_plate import CarPlateSpec, plate_frame
from blender_envs.vehicle.lot_build import build_lot
from blender_envs.vehicle.plate_build import print_plates
from geometry.scene import BuildInfo


def build(scene, spec: CarPlateSpec) -> BuildInfo:
    objects = build_lot(scene, spec.lot)
    print_plates(spec.lot)
    car = spec.lot.subject
    keys = {"subject_center": [float(v) for v in to_world(car.placement, car.body.center())]}
    for end in ("front", "rear"):
        keys[f"plate_{end}_center"] = [float(v) for v in plate_frame(car, end)[:3, 3]]
    return BuildInfo(objects=objects, key_points=keys)
