"""Build a `RoBoardSpec`: the shared parking lot (every plate printed), the board (printed
or handwritten, `BoardSpec.style`) on its hardboard backing, and the hand that holds it."""
from __future__ import annotations

import numpy as np

from blender_envs.core import materials, primitives, shapes
from blender_envs.vehicle.body import to_world
from blender_envs.vehicle.lot_build import build_lot
from blender_envs.vehicle.plate_build import print_plates
from blender_envs.vehicle.plate_texture import board_texture
from blender_envs.vehicle.ro_board import (BOARD_BACK_OBJECT, BOARD_BACK_PASS, BOARD_OBJECT, BOARD_PASS,
                                           BOARD_THICK_M, HAND_OBJECT, HAND_PASS, RoBoardSpec, board_frame,
                                           hand_part)
from geometry.scene import BuildInfo, SceneObject

SKIN = (0.62, 0.42, 0.32)          # tape_gap's hand


def build(scene, spec: RoBoardSpec) -> BuildInfo:
    objects = list(build_lot(scene, spec.lot))
    print_plates(spec.lot)
    b = spec.board
    T = board_frame(b)

    def add(ob, category):
        objects.append(SceneObject(id=ob.pass_index, name=ob.name, category=category, pass_index=ob.pass_index))

    img, _ = board_texture(b.ids.ro, b.ids.vin, b.ids.date, tuple(b.size_m), b.row_m, style=b.style, hand=b.hand)
    add(primitives.plane(scene, BOARD_OBJECT, b.size_m[0], b.size_m[1], T,
                         materials.image_material("ro_board_print", img, roughness=0.55), BOARD_PASS), "board")
    back = T.copy()
    back[:3, 3] = T[:3, 3] - (BOARD_THICK_M / 2 + 1e-4) * T[:3, 2]
    add(primitives.box(scene, BOARD_BACK_OBJECT, [b.size_m[0] + 0.004, b.size_m[1] + 0.004, BOARD_THICK_M], back,
                       materials.principled("ro_board_back", (0.25, 0.2, 0.15), 0.7), BOARD_BACK_PASS), "board_back")
    add(shapes.mesh_object(scene, HAND_OBJECT, hand_part(b), materials.principled("skin", SKIN, 0.55), HAND_PASS,
                           matrix=T), "hand")
    car = spec.lot.subject
    keys = {"subject_center": [float(v) for v in to_world(car.placement, car.body.center())],
            "board_center": [float(v) for v in np.asarray(b.center)]}
    return BuildInfo(objects=sorted(objects, key=lambda o: o.id), key_points=keys)
