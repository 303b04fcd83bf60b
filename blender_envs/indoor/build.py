"""Build an `IndoorSpec` in Blender: floors, walls with doorways, ceiling, windows,
one object per furniture piece (its boxes joined), ceiling lights.

Every object a scorer may ask about has its own pass index (= object id in the exported
mesh): floors, wall lines, the ceiling, windows and each piece. Materials are simple
principled shaders in the drawn colours with a little procedural texture (wood, tiles,
carpet, wall paint) so frames look like rooms, not flat renders.
"""
from __future__ import annotations

import numpy as np

from blender_envs.core import materials, shapes
from blender_envs.core.bpy_env import bpy
from blender_envs.indoor.furniture import ACCENT_RGB, CATEGORIES
from blender_envs.indoor.layout import DOOR_HEIGHT, WALL_T, IndoorSpec, piece_matrix
from blender_envs.indoor.mesh import FLOOR_THICKNESS, object_table  # noqa: F401  (object_table re-exported)
from geometry import mesh_parts
from geometry.scene import BuildInfo, SceneObject

LIGHT_W_PER_M2 = 45.0       # ceiling area lights, per square metre of room
WINDOW_STRENGTH = 6.0


def _floor_material(name: str, style: str, rgb):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nt = mat.node_tree
    bsdf = nt.nodes["Principled BSDF"]
    if style == "tile":
        bsdf.inputs["Roughness"].default_value = 0.35
        tc = nt.nodes.new("ShaderNodeTexCoord")
        chk = nt.nodes.new("ShaderNodeTexChecker")
        chk.inputs["Scale"].default_value = 2.5  # 0.4 m tiles in object coordinates
        light = np.clip(np.asarray(rgb) * 1.15, 0, 1)
        chk.inputs["Color1"].default_value = (*light, 1.0)
        chk.inputs["Color2"].default_value = (*(np.asarray(rgb) * 0.8), 1.0)
        nt.links.new(tc.outputs["Object"], chk.inputs["Vector"])
        nt.links.new(chk.outputs["Color"], bsdf.inputs["Base Color"])
    elif style == "wood":
        bsdf.inputs["Roughness"].default_value = 0.45
        materials.noise_tint(nt, bsdf, rgb, scale=3.0, amount=0.3, detail=8.0, stretch=(1.0, 14.0, 1.0))  # grain along x
    else:  # carpet
        bsdf.inputs["Roughness"].default_value = 0.95
        materials.noise_tint(nt, bsdf, rgb, scale=60.0, amount=0.18, bump=0.3)
    return mat


def _solid(name: str, rgb, roughness: float, amount: float = 0.06):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nt = mat.node_tree
    bsdf = nt.nodes["Principled BSDF"]
    bsdf.inputs["Roughness"].default_value = roughness
    materials.noise_tint(nt, bsdf, rgb, scale=6.0, amount=amount)
    return mat


def _emission(name: str, rgb, strength: float):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nt = mat.node_tree
    for n in list(nt.nodes):
        if n.type == "BSDF_PRINCIPLED":
            nt.nodes.remove(n)
    em = nt.nodes.new("ShaderNodeEmission")
    em.inputs["Color"].default_value = (*rgb, 1.0)
    em.inputs["Strength"].default_value = strength
    nt.links.new(em.outputs["Emission"], nt.nodes["Material Output"].inputs["Surface"])
    return mat


def _boxes_part(rects_z) -> mesh_parts.Part:
    return mesh_parts.merge_parts([mesh_parts.box_part((x0, y0, z0), (x1, y1, z1)) for (x0, y0, x1, y1, z0, z1) in rects_z])


def build(scene, spec: IndoorSpec) -> BuildInfo:
    table = object_table(spec)
    index = {name: k + 1 for k, (name, _) in enumerate(table)}
    objects = [SceneObject(id=index[n], name=n, category=c, pass_index=index[n]) for n, c in table]
    H = spec.wall_height_m
    W, D = spec.plan_size

    for k, room in enumerate(spec.rooms):
        x0, y0, x1, y1 = room.cell
        shapes.mesh_object(scene, f"floor_{k}", _boxes_part([(x0, y0, x1, y1, -FLOOR_THICKNESS, 0.0)]),
                           _floor_material(f"floor_{k}", room.floor_style, room.floor_rgb), index[f"floor_{k}"])
    wall_rgb = np.mean([r.wall_rgb for r in spec.rooms], axis=0) if spec.rooms else (0.8, 0.8, 0.8)
    wall_mat = _solid("wall_paint", wall_rgb, 0.85, amount=0.05)
    for w in spec.walls:
        rects = [(*r, 0.0, H) for r in w.segments]
        for d in w.doorways:  # lintel over the opening
            if d.axis == "x":
                rects.append((d.at - WALL_T / 2, d.lo, d.at + WALL_T / 2, d.hi, DOOR_HEIGHT, H))
            else:
                rects.append((d.lo, d.at - WALL_T / 2, d.hi, d.at + WALL_T / 2, DOOR_HEIGHT, H))
        shapes.mesh_object(scene, w.name, _boxes_part(rects), wall_mat, index[w.name])
    shapes.mesh_object(scene, "ceiling", _boxes_part([(-WALL_T, -WALL_T, W + WALL_T, D + WALL_T, H, H + 0.05)]),
                       materials.principled("ceiling", (0.85, 0.85, 0.84), 0.9), index["ceiling"])
    win_mat = _emission("window_light", (0.85, 0.92, 1.0), WINDOW_STRENGTH)
    frame_mat = materials.principled("window_frame", (0.9, 0.9, 0.88), 0.4)
    for k, win in enumerate(spec.windows):
        n = np.array([*win.normal, 0.0])
        t = np.array([-n[1], n[0], 0.0])
        c = np.array([*win.centre, (win.z0 + win.z1) / 2])
        M = np.eye(4)
        M[:3, 0], M[:3, 1], M[:3, 2], M[:3, 3] = t, (0, 0, 1), n, c
        hw, hh = win.width / 2, (win.z1 - win.z0) / 2
        quad = (np.array([[-hw, -hh, 0], [hw, -hh, 0], [hw, hh, 0], [-hw, hh, 0]]), [(0, 1, 2, 3)])
        b, m, dz = 0.05, 0.02, 0.015  # frame bar, mullion half-width, depth (stays behind furniture backs)
        bars = [(-hw, -hh, hw, -hh + b), (-hw, hh - b, hw, hh), (-hw, -hh, -hw + b, hh), (hw - b, -hh, hw, hh),
                (-m, -hh, m, hh), (-hw, 0.15 * hh - m, hw, 0.15 * hh + m)]
        part = mesh_parts.merge_parts([quad] + [mesh_parts.box_part((x0, y0, 0.0), (x1, y1, dz)) for x0, y0, x1, y1 in bars])
        ob = shapes.mesh_object(scene, f"window_{k}", part, win_mat, index[f"window_{k}"], matrix=M)
        ob.data.materials.append(frame_mat)
        ob.data.polygons.foreach_set("material_index", np.array([0] + [1] * (6 * len(bars)), np.int32))
        ob.data.update()

    cache: dict[tuple, object] = {}
    for f in spec.furniture:
        key = (f.category, f.color)
        if key not in cache:
            cache[key] = _solid(f"{f.category}_{f.color}", f.rgb, CATEGORIES[f.category].roughness)
        main = cache[key]
        part = mesh_parts.merge_parts([mesh_parts.box_part(b.lo, b.hi) for b in f.boxes])
        ob = shapes.mesh_object(scene, f.name, part, main, index[f.name], matrix=piece_matrix(f))
        if any(b.part == "accent" for b in f.boxes):
            akey = ("accent", f.category)
            if akey not in cache:
                rgb = ACCENT_RGB.get(f.category, (0.5, 0.5, 0.5))
                cache[akey] = (_emission(f"{f.category}_shade", rgb, 2.0) if f.category == "lamp"
                               else _solid(f"{f.category}_accent", rgb, 0.3 if f.category == "tv_stand" else 0.7))
            ob.data.materials.append(cache[akey])
            mi = np.repeat([1 if b.part == "accent" else 0 for b in f.boxes], 6).astype(np.int32)
            ob.data.polygons.foreach_set("material_index", mi)
            ob.data.update()

    for k, room in enumerate(spec.rooms):
        x0, y0, x1, y1 = room.interior
        light = bpy.data.lights.new(f"ceiling_light_{k}", type="AREA")
        light.shape = "RECTANGLE"
        light.size, light.size_y = 0.5 * (x1 - x0), 0.5 * (y1 - y0)
        light.energy = LIGHT_W_PER_M2 * (x1 - x0) * (y1 - y0)
        ob = bpy.data.objects.new(f"ceiling_light_{k}", light)
        ob.location = ((x0 + x1) / 2, (y0 + y1) / 2, H - 0.02)  # area lights shine down their -Z
        scene.collection.objects.link(ob)
    world = bpy.data.worlds.new("world")
    scene.world = world
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    bg.inputs["Color"].default_value = (0.6, 0.7, 0.85, 1.0)
    bg.inputs["Strength"].default_value = 0.3
    key_points = {f"room_centre_{k}": [(r.interior[0] + r.interior[2]) / 2, (r.interior[1] + r.interior[3]) / 2, 0.0]
                  for k, r in enumerate(spec.rooms)}
    return BuildInfo(objects=objects, key_points=key_points)
