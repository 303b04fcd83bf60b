"""Build a `CarViewSpec`: the shared parking lot with its subject and distractor cars, every
car's plates printed (plate_build, as car_plate does: a blank plate would be a tell)."""
from __future__ import annotations

from blender_envs.vehicle.body import to_world
from blender_envs.vehicle.car_view import CarViewSpec
from blender_envs.vehicle.lot_build import build_lot
from blender_envs.vehicle.plate_build import print_plates
from geometry.scene import BuildInfo


def build(scene, spec: CarViewSpec) -> BuildInfo:
    objects = build_lot(scene, spec.lot)
    print_plates(spec.lot)
    car = spec.lot.subject
    centre = to_world(car.placement, car.body.center())
    return BuildInfo(objects=objects, key_points={"subject_center": [float(v) for v in centre]})
