"""Build a `CalibSpec` in Blender (the only bpy code of the environment)."""
from __future__ import annotations

import numpy as np

from blender_envs.calib.spec import CARD_FRONT_OFFSET, CalibSpec, box_matrix, card_matrix
from blender_envs.core import materials, primitives
from geometry.scene import BuildInfo, SceneObject


def build(scene, spec: CalibSpec) -> BuildInfo:
    objects: list[SceneObject] = []

    def add(ob, category):
        objects.append(SceneObject(id=ob.pass_index, name=ob.name, category=category,
                                   pass_index=ob.pass_index))

    ground = np.eye(4)
    add(primitives.plane(scene, "ground", spec.ground_size, spec.ground_size, ground,
                         materials.principled("ground", spec.ground_color, 0.9), 1), "ground")
    for k, b in enumerate(spec.boxes):
        add(primitives.box(scene, b.name, b.size, box_matrix(b),
                           materials.principled(b.name, b.color, 0.5), 2 + k), "box")
    pole = np.eye(4)
    pole[:3, 3] = [*spec.pole.base, spec.pole.height / 2]
    add(primitives.cylinder(scene, "pole", spec.pole.radius, spec.pole.height, pole,
                            materials.principled("pole", spec.pole.color, 0.4), 5), "pole")
    card = spec.card
    M = card_matrix(card)
    front = M.copy()
    front[:3, 3] = M[:3, 3] + CARD_FRONT_OFFSET * M[:3, 2]
    add(primitives.plane(scene, "card", card.width, card.height, front,
                         materials.checker("card", card.squares_u, card.squares_v), 6), "card")
    add(primitives.box(scene, "card_back", [card.width + 0.02, card.height + 0.02, 0.006], M,
                       materials.principled("card_back", [0.2, 0.2, 0.22], 0.7), 7), "card_back")
    stand = np.eye(4)
    stand_h = card.center[2] - card.height / 2
    stand[:3, 3] = [card.center[0], card.center[1] + 0.01, stand_h / 2]
    add(primitives.cylinder(scene, "card_stand", 0.012, stand_h, stand,
                            materials.principled("card_stand", [0.1, 0.1, 0.1], 0.3), 8), "stand")
    materials.sun_and_sky(scene, spec.sun_elevation_deg, spec.sun_azimuth_deg)
    return BuildInfo(objects=objects)
