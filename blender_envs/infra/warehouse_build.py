"""Build a `WarehouseSpec` in Blender: concrete floor, walls, painted markings, racks with
loads, high-bay lamps, the hall's light for the drawn condition, and every agent as
one object named by its track id (so the farm can move it per timestamp), standing at
its pose at `BUILD_T`.

Pass indices: floor 1, walls 2, markings 3, lamp fixtures 4, floor clutter 5, racks 10.., agents 100..
(in timeline order). Every mesh is `bodies` / `warehouse_layout` parts, unchanged.
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.core import materials, shapes
from blender_envs.core.bpy_env import bpy
from blender_envs.infra import bodies
from blender_envs.infra.warehouse import WarehouseSpec, body_params
from blender_envs.infra.warehouse_layout import clutter_parts, rack_parts, stripe_part
from geometry import mesh_parts
from geometry.clip import BUILD_T
from geometry.scene import BuildInfo, SceneObject

PASS = {"floor": 1, "walls": 2, "markings": 3, "lamp_fixtures": 4, "clutter": 5}
FIRST_RACK_PASS = 10
FIRST_AGENT_PASS = 100
PAINT = {"yellow": (0.85, 0.6, 0.02), "white": (0.8, 0.8, 0.78), "red": (0.65, 0.03, 0.02),
         "green": (0.05, 0.35, 0.1)}
ROUGH = {"reflective": 0.25, "vest": 0.7, "paint": 0.35, "wrap": 0.2, "tote": 0.5, "fork": 0.45, "mast": 0.5}
METAL = {"fork": 0.6, "mast": 0.4}


def kelvin_rgb(k: float) -> tuple[float, float, float]:
    """Approximate linear RGB of a black body at k kelvin (Tanner Helland's fit, 1000-40000 K)."""
    t = k / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
    return tuple(float(np.clip(c / 255.0, 0, 1)) ** 2.2 for c in (r, g, b))


def _multi(scene, name: str, parts: list, mats: dict, pass_index: int, matrix=None):
    """One object of many parts, each with the material of its key (`mats[key]`)."""
    keys = sorted({k for _, k in parts})
    merged = mesh_parts.merge_parts([p for p, _ in parts])
    ob = shapes.mesh_object(scene, name, merged, mats[keys[0]], pass_index, matrix)
    for k in keys[1:]:
        ob.data.materials.append(mats[k])
    index = np.concatenate([np.full(len(p[1]), keys.index(k), np.int32) for p, k in parts])
    ob.data.polygons.foreach_set("material_index", index)
    ob.data.update()
    return ob


def _noisy(name, color, scale, amount, roughness, bump=0.0):
    mat = materials.principled(name, color, roughness)
    nt = mat.node_tree
    materials.noise_tint(nt, nt.nodes["Principled BSDF"], color, scale, amount, coord="Object",
                         bump=bump)
    return mat


def _floor_material(color):
    """Polished concrete: large pale/dark blotches, fine grain and a little bump."""
    mat = materials.principled("floor", color, 0.45)
    nt = mat.node_tree
    materials.noise_tint(nt, nt.nodes["Principled BSDF"], color, 0.35, 0.28, coord="Object", bump=0.08, detail=8.0)
    return mat


def _emission(name: str, color, strength: float):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nt = mat.node_tree
    nt.nodes.remove(nt.nodes["Principled BSDF"])
    em = nt.nodes.new("ShaderNodeEmission")
    em.inputs["Color"].default_value = (*color, 1.0)
    em.inputs["Strength"].default_value = strength
    nt.links.new(em.outputs["Emission"], nt.nodes["Material Output"].inputs["Surface"])
    return mat


def _agent_materials(track_id: str, colors: dict) -> dict:
    return {k: materials.principled(f"{track_id}_{k}", c, ROUGH.get(k, 0.6), METAL.get(k, 0.0))
            for k, c in colors.items()}


def _hall(scene, spec: WarehouseSpec, add) -> None:
    x0, y0, x1, y1 = spec.hall
    M = np.eye(4)
    M[:3, 3] = [(x0 + x1) / 2, (y0 + y1) / 2, 0.0]
    add(shapes.mesh_object(scene, "floor", mesh_parts.box_part((x0 - (x0 + x1) / 2, y0 - (y0 + y1) / 2, -0.2),
                                                              (x1 - (x0 + x1) / 2, y1 - (y0 + y1) / 2, 0.0)),
                           _floor_material(spec.floor_color), PASS["floor"], M), "floor")
    H, t = spec.wall_height, 0.3
    walls = [mesh_parts.box_part((x0 - t, y0 - t, 0), (x1 + t, y0, H)), mesh_parts.box_part((x0 - t, y1, 0), (x1 + t, y1 + t, H)),
             mesh_parts.box_part((x0 - t, y0, 0), (x0, y1, H)), mesh_parts.box_part((x1, y0, 0), (x1 + t, y1, H))]
    # horizontal cladding seams every 1 m on the walls, a darker band at the bottom
    parts = [(w, "wall") for w in walls]
    for z in np.arange(1.2, H, 1.0):
        parts.append((mesh_parts.box_part((x0 + 0.5, y1 - 0.02, z), (x1 - 0.5, y1, z + 0.03)), "seam"))
    parts.append((mesh_parts.box_part((x0, y1 - 0.03, 0), (x1, y1, 1.2)), "base"))
    mats = {"wall": _noisy("wall", spec.wall_color, 0.8, 0.1, 0.8),
            "seam": materials.principled("seam", [c * 0.6 for c in spec.wall_color], 0.8),
            "base": materials.principled("wall_base", (0.15, 0.15, 0.16), 0.7)}
    add(_multi(scene, "walls", parts, mats, PASS["walls"]), "wall")


def _markings(scene, spec: WarehouseSpec, add) -> None:
    parts = [(stripe_part(s), s.paint) for s in spec.stripes]
    mats = {k: materials.principled(f"paint_{k}", c, 0.5) for k, c in PAINT.items()}
    add(_multi(scene, "markings", parts, mats, PASS["markings"]), "floor_marking")


def _lamps(scene, spec: WarehouseSpec, add) -> None:
    L = spec.lighting
    rgb = kelvin_rgb(L.lamp_kelvin)
    parts = []
    for x, y, z in spec.lamps:
        parts.append((mesh_parts.cylinder_part((x, y), 0.3, z, z + 0.25, 16), "housing"))
        parts.append((mesh_parts.cylinder_part((x, y), 0.26, z - 0.01, z, 16), "lens"))
        parts.append((mesh_parts.box_part((x - 0.01, y - 0.01, z + 0.25), (x + 0.01, y + 0.01, spec.wall_height)),
                      "housing"))
        if L.lamps_on:
            light = bpy.data.lights.new(f"lamp_{x}_{y}", type="AREA")
            light.shape = "DISK"
            light.size = 0.5
            light.energy = L.lamp_power_w
            light.color = rgb
            ob = bpy.data.objects.new(light.name, light)
            ob.location = (x, y, z - 0.02)
            scene.collection.objects.link(ob)
    mats = {"housing": materials.principled("lamp_housing", (0.3, 0.3, 0.32), 0.4, 0.6),
            "lens": _emission("lamp_lens", rgb, 25.0 if L.lamps_on else 0.0)}
    add(_multi(scene, "lamp_fixtures", parts, mats, PASS["lamp_fixtures"]), "lamp")


def _world(scene, spec: WarehouseSpec) -> None:
    world = bpy.data.worlds.new("world")
    scene.world = world
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    bg.inputs["Color"].default_value = (*spec.lighting.sky_color, 1.0)
    bg.inputs["Strength"].default_value = spec.lighting.sky_strength


def build(scene, spec: WarehouseSpec) -> BuildInfo:
    objects: list[SceneObject] = []

    def add(ob, category):
        objects.append(SceneObject(id=ob.pass_index, name=ob.name, category=category, pass_index=ob.pass_index))

    _hall(scene, spec, add)
    _markings(scene, spec, add)
    _lamps(scene, spec, add)
    rack_mats = {"upright": materials.principled("upright", spec.upright_color, 0.45, 0.3),
                 "beam": materials.principled("beam", spec.beam_color, 0.4, 0.2),
                 "deck": materials.principled("deck", (0.35, 0.35, 0.36), 0.5, 0.6)}
    for key, c in sorted({"wood": (0.55, 0.42, 0.27), "carton": (0.5, 0.36, 0.2),
                                "carton_dark": (0.42, 0.29, 0.16), "wrap": (0.7, 0.74, 0.78)}.items()):
        rack_mats[key] = materials.principled(f"rack_{key}", c, 0.2 if key == "wrap" else 0.8)
    rack_mats["bin"] = materials.principled("bin", (0.05, 0.18, 0.45), 0.5)
    rack_mats["bin_lid"] = materials.principled("bin_lid", (0.04, 0.12, 0.3), 0.5)
    if spec.clutter:
        parts = [p for c in spec.clutter for p in clutter_parts(c)]
        add(_multi(scene, "clutter", parts, rack_mats, PASS["clutter"]), "clutter")
    for k, rack in enumerate(spec.racks):
        add(_multi(scene, rack.name, rack_parts(rack), rack_mats, FIRST_RACK_PASS + k), "rack")
    for k, agent in enumerate(spec.timeline.agents):
        look = spec.looks[agent.track_id]
        parts = bodies.body_parts(look.kind, body_params(look))
        add(_multi(scene, agent.track_id, parts, _agent_materials(agent.track_id, look.colors),
                   FIRST_AGENT_PASS + k, agent.pose(BUILD_T)), agent.category)
    _world(scene, spec)
    return BuildInfo(objects=objects)
