"""Build an `EquipmentLabelSpec`: the shared roof, the equipment (microinverter on the
rail, or inverter box on the wall, with its conduit) and the printed label."""
from __future__ import annotations

import numpy as np

from blender_envs.core import materials, primitives
from blender_envs.solar.equipment_label import (EQUIPMENT_OBJECT, INVERTER_SIZE_M, LABEL_OBJECT, MICRO_SIZE_M,
                                                EquipmentLabelSpec, label_frame)
from blender_envs.solar.equipment_label_texture import label_texture
from blender_envs.solar.roof_build import build_roof
from blender_envs.solar.roof_spec import _module_dxdy, laminate_bottom_z, module_rect_uv, pass_index, roof_frame
from geometry.scene import BuildInfo, SceneObject


def build(scene, spec: EquipmentLabelSpec) -> BuildInfo:
    info = build_roof(scene, spec.roof)
    objects = list(info.objects)
    lab = spec.label

    def add(ob, category):
        objects.append(SceneObject(id=ob.pass_index, name=ob.name, category=category, pass_index=ob.pass_index))

    _add_backsheets(scene, spec, add)
    if lab.equipment_center is not None:
        T = np.eye(4)
        T[:3, :3] = np.asarray(lab.equipment_axes, float).T
        T[:3, 3] = lab.equipment_center
        if lab.on == "microinverter":
            size, mat = MICRO_SIZE_M, materials.principled("micro_body", (0.08, 0.08, 0.085), 0.45, 0.3)
        else:
            size, mat = INVERTER_SIZE_M, materials.principled("inverter_body", (0.78, 0.79, 0.8), 0.4, 0.1)
        add(primitives.box(scene, EQUIPMENT_OBJECT, list(size), T, mat, pass_index("env_reserved", 0)), lab.on)
        if lab.on == "inverter":  # conduit from the box's bottom into the wall below
            C = np.eye(4)
            C[:3, 3] = np.asarray(lab.equipment_center) + np.array([-0.1, 0.0, -size[2] / 2 - 0.25])
            add(primitives.cylinder(scene, "inverter_conduit", 0.012, 0.5, C,
                                    materials.principled("conduit", (0.6, 0.6, 0.6), 0.4, 0.8),
                                    pass_index("env_reserved", 2)), "conduit")
    img, _ = label_texture(lab.brand, lab.model, lab.serial, lab.on, tuple(lab.size_m), lab.row_m)
    add(primitives.plane(scene, LABEL_OBJECT, lab.size_m[0], lab.size_m[1], label_frame(lab),
                         materials.image_material("equipment_label", img, roughness=0.5),
                         pass_index("env_reserved", 1)), "label")
    return BuildInfo(objects=objects, key_points={**info.key_points, "label_center": lab.center})


def _add_backsheets(scene, spec: EquipmentLabelSpec, add) -> None:
    """The shared roof's laminate shows its cells on every face; a module's back is a
    plain backsheet, so each module gets one just under its laminate (a label on the
    back of a module sits on it)."""
    a = spec.roof.array
    M = roof_frame(spec.roof)
    dx, dy = _module_dxdy(a)
    z = laminate_bottom_z(spec.roof) - 0.0002
    mat = materials.principled("backsheet", a.backsheet_color, 0.6)
    for r in range(a.rows):
        for c in range(a.cols):
            u0, v0, u1, v1 = module_rect_uv(spec.roof, r, c)
            T = np.eye(4)
            T[:3, 0], T[:3, 1], T[:3, 2] = M[:3, 0], -M[:3, 1], -M[:3, 2]   # facing the roof
            T[:3, 3] = M[:3, 3] + M[:3, :3] @ np.array([(u0 + u1) / 2, (v0 + v1) / 2, z])
            add(primitives.plane(scene, f"module_backsheet_r{r}_c{c}", dx - 2 * a.frame_width_m + 0.008,
                                 dy - 2 * a.frame_width_m + 0.008, T, mat,
                                 pass_index("env_reserved", 10 + r * a.cols + c)), "module_backsheet")
