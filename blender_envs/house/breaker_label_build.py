"""Build a `BreakerLabelSpec`: a wall with a load centre, its open door and the directory
card, breaker handles printed with their amperage, a ceiling light.

Everything is placed with `breaker_label`'s frames, so the scorer's card geometry is what
was rendered.
"""
from __future__ import annotations

import numpy as np

from blender_envs.core.bpy_env import bpy  # noqa: F401  (first: asserts Blender 4.5)
from blender_envs.core import materials, primitives, shapes  # noqa: E402
from blender_envs.house.breaker_label import (  # noqa: E402
    CARD_OBJECT, DOOR_THICK_M, PASS, BreakerLabelSpec, breaker_slots, card_frame, door_frame, panel_frame)
from blender_envs.house.breaker_label_texture import atlas_uv, card_texture, handle_atlas  # noqa: E402
from geometry import mesh_parts  # noqa: E402
from geometry.scene import BuildInfo, SceneObject  # noqa: E402


def _noisy(name, color, rough, scale, amount):
    mat = materials.principled(name, color, rough)
    materials.noise_tint(mat.node_tree, mat.node_tree.nodes["Principled BSDF"], color, scale, amount, detail=8.0)
    return mat


def _box_uvs(n_boxes: int, front_tiles: list[tuple[float, float, float, float]], plain) -> np.ndarray:
    """Per-loop UVs for `box_part` boxes: the +z face gets its tile, the rest the plain tile."""
    pu, pv = (plain[0] + plain[2]) / 2, 0.5
    out = []
    for k in range(n_boxes):
        for f in range(6):
            if f == 1:
                u0, v0, u1, v1 = front_tiles[k]
                out += [(u0, v0), (u1, v0), (u1, v1), (u0, v1)]
            else:
                out += [(pu, pv)] * 4
    return np.array(out, float)


def build(scene, spec: BreakerLabelSpec) -> BuildInfo:
    objects: list[SceneObject] = []

    def add(ob, category):
        objects.append(SceneObject(id=ob.pass_index, name=ob.name, category=category, pass_index=ob.pass_index))
        return ob

    room, pn = spec.room, spec.panel
    P = panel_frame(spec)
    W, H, D = pn.width_m, pn.height_m, pn.depth_m

    # room: wall (face at y = 0), floor, world fill, ceiling light
    wall_scale = {"drywall": 40.0, "block": 6.0, "plywood": 12.0}[room.wall]
    add(shapes.mesh_object(scene, "wall", mesh_parts.box_part((-4, 0, 0), (4, 0.1, 3.0)),
                           _noisy("wall", room.wall_color, 0.85, wall_scale, 0.12), PASS["wall"]), "wall")
    add(shapes.mesh_object(scene, "floor", mesh_parts.box_part((-4, -5, -0.05), (4, 0, 0.0)),
                           _noisy("floor", room.floor_color, 0.7, 3.0, 0.2), PASS["floor"]), "floor")
    world = bpy.data.worlds.new("world")
    scene.world = world
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    bg.inputs["Color"].default_value = (0.8, 0.78, 0.74, 1.0)
    bg.inputs["Strength"].default_value = room.ambient
    lamp = bpy.data.objects.new("ceiling_light", bpy.data.lights.new("ceiling_light", type="POINT"))
    lamp.data.energy = room.light_w
    lamp.data.shadow_soft_size = 0.15
    lamp.location = (pn.center[0] + room.light_xy[0], room.light_xy[1], 2.7)
    scene.collection.objects.link(lamp)

    steel = _noisy("panel_steel", pn.steel_color, 0.45, 80.0, 0.05)
    steel.node_tree.nodes["Principled BSDF"].inputs["Metallic"].default_value = 0.4
    # enclosure from the wall to just behind the dead front, with a lip
    back_z = -(abs(pn.center[1]))
    enc = mesh_parts.merge_parts([
        mesh_parts.box_part((-W / 2 - 0.012, -H / 2 - 0.012, back_z), (W / 2 + 0.012, H / 2 + 0.012, -0.006)),
        mesh_parts.ring_part((-W / 2 - 0.012, -H / 2 - 0.012), (W / 2 + 0.012, H / 2 + 0.012),
                         (-W / 2, -H / 2), (W / 2, H / 2), -0.006, -0.001)])
    add(shapes.mesh_object(scene, "enclosure", enc, steel, PASS["enclosure"], matrix=P), "panel")
    # dead front: a plate with a window for the two breaker columns
    slots = breaker_slots(spec)
    rows = (len(spec.entries) + 1) // 2
    top = H / 2 - 0.17
    win = ((-0.085, top - rows * 0.0254 - 0.004), (0.085, top + 0.004))
    front = mesh_parts.merge_parts([
        mesh_parts.box_part((-W / 2, -H / 2, -0.004), (W / 2, win[0][1], 0.0)),
        mesh_parts.box_part((-W / 2, win[1][1], -0.004), (W / 2, H / 2, 0.0)),
        mesh_parts.box_part((-W / 2, win[0][1], -0.004), (win[0][0], win[1][1], 0.0)),
        mesh_parts.box_part((win[1][0], win[0][1], -0.004), (W / 2, win[1][1], 0.0))])
    add(shapes.mesh_object(scene, "dead_front", front, steel, PASS["dead_front"], matrix=P), "panel")
    black = materials.principled("breaker_body", (0.03, 0.03, 0.03), 0.5)
    bodies = [mesh_parts.box_part((x - 0.04 if x < 0 else x - 0.04 + 0.0, y - 0.0115, -0.03), (x + 0.04, y + 0.0115, 0.002))
              for _, x, y in slots]
    bodies.append(mesh_parts.box_part((-0.07, H / 2 - 0.145, -0.03), (0.07, H / 2 - 0.06, 0.004)))
    add(shapes.mesh_object(scene, "breakers", mesh_parts.merge_parts(bodies), black, PASS["breakers"], matrix=P), "breaker")
    atlas = materials.image_material("handle_atlas", handle_atlas(), roughness=0.4)
    handles, tiles = [], []
    for k, x, y in slots:
        hx = x + (0.012 if x < 0 else -0.012)  # handles sit towards the centre line, as on a real panel
        handles.append(mesh_parts.box_part((hx - 0.009, y - 0.006, 0.002), (hx + 0.009, y + 0.006, 0.016)))
        tiles.append(atlas_uv(spec.entries[k].amps))
    handles.append(mesh_parts.box_part((-0.03, H / 2 - 0.112, 0.004), (0.03, H / 2 - 0.093, 0.022)))
    tiles.append(atlas_uv(spec.main_amps))
    part = mesh_parts.merge_parts(handles)
    add(shapes.mesh_object(scene, "handles", part, atlas, PASS["handles"], matrix=P,
                           uvs=_box_uvs(len(handles), tiles, atlas_uv(None))), "handle")
    # door and card
    Dm = door_frame(spec)
    door = mesh_parts.box_part((0.0, -H / 2, -DOOR_THICK_M / 2), (W, H / 2, DOOR_THICK_M / 2))
    add(shapes.mesh_object(scene, "door", door, steel, PASS["door"], matrix=Dm), "panel")
    card_mat = materials.image_material("directory_card", card_texture(spec), roughness=0.75)
    add(primitives.plane(scene, CARD_OBJECT, spec.card.width_m, spec.card.height_m, card_frame(spec), card_mat,
                         PASS["directory_card"]), "card")
    # conduit to the ceiling
    grey = materials.principled("conduit", (0.6, 0.6, 0.6), 0.4, 0.8)
    c = P[:3, 3] + P[:3, 1] * (H / 2) + np.array([0.0, 0.05, 0.0])
    add(shapes.mesh_object(scene, "conduit", mesh_parts.cylinder_part((c[0], c[1]), 0.014, c[2], 3.0, 12), grey,
                           PASS["conduit"]), "conduit")
    return BuildInfo(objects=objects, key_points={"card_center": [float(x) for x in card_frame(spec)[:3, 3]]})
