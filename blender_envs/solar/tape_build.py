"""Build a `TapeGapSpec`: the shared roof, then the tape (printed blade, hook, case)."""
from __future__ import annotations

import numpy as np

from blender_envs.core import materials, primitives, shapes
from blender_envs.solar.roof_build import build_roof
from blender_envs.solar.roof_spec import pass_index
from blender_envs.solar.tape_gap import TapeGapSpec
from blender_envs.solar.tape_spec import CASE_SIZE_M, INCH_M, TAPE_BLADE_OBJECT, TAPE_CASE_OBJECT, case_matrix
from blender_envs.solar.tape_texture import tape_blade_texture
from geometry import mesh_parts
from geometry.scene import BuildInfo, SceneObject

BLADE_PX_PER_INCH = 256   # 1/16-in ticks 16 texels apart: they resolve at 0.3 m in `final`
BLADE_THICKNESS_M = 0.00015


def _frame(origin, x, y, z) -> np.ndarray:
    M = np.eye(4)
    M[:3, 0], M[:3, 1], M[:3, 2], M[:3, 3] = x, y, z, origin
    return M


def build(scene, spec: TapeGapSpec) -> BuildInfo:
    info = build_roof(scene, spec.roof)
    objects = list(info.objects)
    tape = spec.tape
    up, facing, width = tape.up_array(), tape.facing_array(), tape.width_dir()
    hook = np.asarray(tape.hook_point, float)
    L = tape.blade_length_m

    def add(ob, category):
        objects.append(SceneObject(id=ob.pass_index, name=ob.name, category=category, pass_index=ob.pass_index))

    length_in = L / INCH_M
    blade_mat = materials.image_material("tape_blade", tape_blade_texture(length_in, BLADE_PX_PER_INCH),
                                         roughness=0.35)
    # the printed face: a plane through the hook spanned by width and up, facing `facing`
    centre = hook + up * (L / 2)
    add(primitives.plane(scene, TAPE_BLADE_OBJECT, tape.blade_width_m, L, _frame(centre, width, up, facing),
                         blade_mat, pass_index("env_reserved", 0)), "tape_blade")
    back = _frame(centre - facing * (BLADE_THICKNESS_M + 1e-5), -width, up, -facing)
    add(primitives.plane(scene, "tape_blade_back", tape.blade_width_m, L, back,
                         materials.principled("tape_back", (0.55, 0.5, 0.3), 0.4, 0.6), pass_index("env_reserved", 1)),
        "tape_blade")
    # the hook: a small steel tab bent out over the roof at the blade's foot
    tab = _frame(hook + facing * 0.006 + up * 0.0008, width, facing, up)
    add(primitives.box(scene, "tape_hook", [tape.blade_width_m + 0.002, 0.012, 0.0012], tab,
                       materials.principled("tape_hook", (0.35, 0.35, 0.36), 0.35, 1.0), pass_index("env_reserved", 2)),
        "tape_hook")
    add(primitives.box(scene, TAPE_CASE_OBJECT, [CASE_SIZE_M[0], CASE_SIZE_M[1], CASE_SIZE_M[2]], case_matrix(tape),
                       materials.principled("tape_case", (0.85, 0.62, 0.05), 0.5), pass_index("env_reserved", 3)),
        "tape_case")
    if tape.case_placement == "hand":
        add(shapes.mesh_object(scene, "installer_hand", hand_part(), materials.principled(
            "skin", (0.62, 0.42, 0.32), 0.55), pass_index("env_reserved", 4), matrix=case_matrix(tape)), "hand")
    return BuildInfo(objects=objects, key_points=info.key_points)


def hand_part() -> mesh_parts.Part:
    """A simple hand gripping the case, in the case's frame (x width, y case_up, z forward):
    palm on the back face, four fingers wrapping over the front, the thumb on the side,
    and the wrist and forearm leaving upwards-back, away from the blade."""
    w, h, d = CASE_SIZE_M
    parts = [mesh_parts.box_part((-0.045, -0.03, -d / 2 - 0.028), (0.045, 0.05, -d / 2 - 0.002))]  # palm
    for k in range(4):  # fingers over the front face
        x0 = -0.042 + k * 0.022
        parts.append(mesh_parts.box_part((x0, 0.0, d / 2 + 0.001), (x0 + 0.018, 0.018, d / 2 + 0.019)))
        parts.append(mesh_parts.box_part((x0, 0.0, -d / 2 - 0.002), (x0 + 0.018, 0.018, d / 2 + 0.001)))
    parts.append(mesh_parts.box_part((w / 2 + 0.001, -0.025, -0.01), (w / 2 + 0.02, 0.02, 0.012)))  # thumb
    parts.append(mesh_parts.box_part((-0.035, 0.05, -d / 2 - 0.03), (0.035, 0.30, -d / 2 - 0.005)))  # forearm
    return mesh_parts.merge_parts(parts)
