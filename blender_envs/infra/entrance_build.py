"""Build an `EntranceSpec` in Blender: the lobby floor with tile joints, the walls (the
door wall with its opening, frame and sign; the side walls, one with an opening; the
secure corridor behind the door), the badge reader, the door mat, furniture, ceiling
lamps, the light for the drawn condition, and every agent (the door leaf and the
people) as one object named by its track id, posed at `BUILD_T` (the farm moves them
per frame, the door included).

Pass indices: floor 1, walls (and what hangs on them) 2, markings (mat, rugs) 3, lamp fixtures 4, furniture 5, reader 6,
agents 100.. (in timeline order: the door first). Every mesh is `entrance_layout` /
`people` parts, unchanged. The small material helpers are the warehouse builder's.
"""
from __future__ import annotations

import numpy as np

from blender_envs.core import materials
from blender_envs.core.bpy_env import bpy
from blender_envs.infra.entrance import EntranceSpec, body_parts
from blender_envs.infra import entrance_furnishings as fu
from blender_envs.infra.entrance_layout import (WALL_T, door_wall_parts, furniture_parts, mat_part, reader_parts,
                                                room_walls, side_wall_with_opening)
from blender_envs.infra.warehouse_build import _emission, _multi, _noisy, kelvin_rgb
from geometry import mesh_parts
from geometry.clip import BUILD_T
from geometry.scene import BuildInfo, SceneObject

PASS = {"floor": 1, "walls": 2, "markings": 3, "lamp_fixtures": 4, "furniture": 5, "reader": 6}
FIRST_AGENT_PASS = 100
JOINT_M = 0.008        # a tile joint's width (in the floor's brick texture)
LAMP_REF_M = 3.0       # lamp_power_w is for a lamp this high
ROUGH = {"glass": 0.05, "handle": 0.3, "kick": 0.35, "item": 0.5, "hair": 0.7, "shoes": 0.4}
METAL = {"handle": 0.9, "kick": 0.8}


def _floor(scene, spec: EntranceSpec, add) -> None:
    x0, y0, x1, y1 = spec.lobby
    cx0, _, cx1, cy1 = spec.corridor
    parts = [(mesh_parts.box_part((x0 - 3.0, y0, -0.2), (x1 + 3.0, y1, 0.0)), "floor"),
             (mesh_parts.box_part((cx0, y1, -0.2), (cx1, cy1, 0.0)), "floor")]
    mat = materials.principled("floor", spec.floor_color, 0.3)
    nt = mat.node_tree
    mix = materials.noise_tint(nt, nt.nodes["Principled BSDF"], spec.floor_color, 1.5, 0.12, coord="Object",
                               detail=4.0)
    _tile_joints(nt, mix, spec)
    add(_multi(scene, "floor", parts, {"floor": mat}, PASS["floor"]), "floor")


def _tile_joints(nt, mix, spec: EntranceSpec) -> None:
    """Square tiles of `decor.tile_m` with darker joints, a joint line through the door's
    centre and along the door wall's face: a brick texture without offset feeding the noise
    tint's colour (geometry strips would overlap where they cross)."""
    tile, c = spec.decor.tile_m, spec.floor_color
    tc = nt.nodes.new("ShaderNodeTexCoord")
    mp = nt.nodes.new("ShaderNodeMapping")
    mp.inputs["Location"].default_value = (-spec.door_x + tile / 2, -(spec.lobby[3] - WALL_T / 2), 0.0)
    brick = nt.nodes.new("ShaderNodeTexBrick")
    brick.offset, brick.squash = 0.0, 1.0
    brick.inputs["Scale"].default_value = 1.0
    brick.inputs["Brick Width"].default_value = tile
    brick.inputs["Row Height"].default_value = tile
    brick.inputs["Mortar Size"].default_value = JOINT_M
    brick.inputs["Mortar Smooth"].default_value = 0.2
    brick.inputs["Color1"].default_value = (*c, 1.0)
    brick.inputs["Color2"].default_value = (*[v * 0.94 for v in c], 1.0)
    brick.inputs["Mortar"].default_value = (*[v * 0.55 for v in c], 1.0)
    brick.inputs["Bias"].default_value = 0.0
    nt.links.new(tc.outputs["Object"], mp.inputs["Vector"])
    nt.links.new(mp.outputs["Vector"], brick.inputs["Vector"])
    nt.links.new(brick.outputs["Color"], mix.inputs["A"])


def _wall_decor(spec: EntranceSpec) -> tuple[list, dict]:
    """Posters, the directory board and side-wall skirting as wall parts, with their materials."""
    d, lobby = spec.decor, spec.lobby
    parts, mats = [], {"poster_frame": materials.principled("poster_frame", (0.05, 0.05, 0.055), 0.4, 0.3),
                       "lettering": _emission("directory_lettering", (0.9, 0.9, 0.85), 1.5),
                       "directory": materials.principled("directory", (0.03, 0.03, 0.04), 0.3)}
    for i, w in enumerate(d.wall_items):
        key = "directory" if w.kind == "directory" else f"poster{i}"
        parts += fu.poster_parts(w.wall, lobby, w.u, w.z, w.width, w.height, key)
        if w.kind != "directory":
            mats[f"{key}_print"] = materials.principled(f"{key}_print", w.colors[0], 0.35)
            mats[f"{key}_band"] = materials.principled(f"{key}_band", w.colors[1], 0.35)
    for wall, spans in d.skirting.items():
        parts += fu.skirting_parts(wall, lobby, spans)
    return parts, mats


def _walls(scene, spec: EntranceSpec, add) -> None:
    x0, y0, x1, yw = spec.lobby
    H = spec.wall_height
    parts = door_wall_parts(x0 - 0.2, x1 + 0.2, yw, spec.door_x, H)
    k = spec.region_side
    win = spec.decor.windows
    glazed = (win.wall,) if win else ()
    if win:
        parts += [(p, "side" if m == "side" else m) for p, m in
                  fu.window_wall_parts(win.wall, spec.lobby, y0, yw, win.bays, win.sill, win.head, H)]
    if spec.side_gap[1] > spec.side_gap[0]:               # the region side's wall has the opening
        walls = room_walls(x0, y0, x1, yw, H, ("top", "right" if k > 0 else "left", *glazed))
        xs = x1 if k > 0 else x0 - 0.2
        walls += side_wall_with_opening(xs, y0, yw, tuple(spec.side_gap), H)
        g0, g1 = spec.side_gap                            # the passage beyond the opening, 2.8 m deep
        bx0, bx1 = (x1 + 0.2, x1 + 3.0) if k > 0 else (x0 - 3.0, x0 - 0.2)
        walls += room_walls(bx0, g0 - 0.6, bx1, g1 + 0.6, H, ("left",) if k > 0 else ("right",))
    else:
        walls = room_walls(x0, y0, x1, yw, H, ("top", *glazed))
    parts += [(p, "side") for p, _ in walls]
    cx0, cy0, cx1, cy1 = spec.corridor
    for p, _ in room_walls(cx0, cy0 + WALL_T / 2, cx1, cy1, H, ("bottom",)):
        parts.append((p, "side"))
    mats = {"wall": _noisy("wall_accent", spec.accent_color, 2.0, 0.06, 0.7),
            "side": _noisy("wall", spec.wall_color, 2.0, 0.06, 0.8),
            "frame": materials.principled("frame", (0.08, 0.08, 0.09), 0.4, 0.5),
            "skirting": materials.principled("skirting", (0.1, 0.1, 0.1), 0.5),
            "sign": materials.principled("sign", (0.75, 0.75, 0.72), 0.4),
            "mullion": materials.principled("mullion", (0.55, 0.56, 0.58), 0.35, 0.8)}
    decor_parts, decor_mats = _wall_decor(spec)
    add(_multi(scene, "walls", parts + decor_parts, {**mats, **decor_mats}, PASS["walls"]), "wall")


def _markings(scene, spec: EntranceSpec, add) -> None:
    """The door mat and the seating groups' rugs (8 mm, flat on the floor)."""
    yf = spec.lobby[3] - WALL_T / 2
    parts = [(mat_part(spec.door_x, yf), "mat")]
    mats = {"mat": materials.principled("mat", (0.05, 0.05, 0.055), 0.9)}
    for i, rug in enumerate(spec.decor.rugs):
        P = rug.polygon()
        V = np.vstack([np.c_[P, np.zeros(4)], np.c_[P, np.full(4, 0.008)]])
        parts.append(((V, list(mesh_parts.BOX_FACES)), f"rug{i}"))
        mats[f"rug{i}"] = _noisy(f"rug{i}", rug.color, 40.0, 0.25, 0.95)
    add(_multi(scene, "markings", parts, mats, PASS["markings"]), "floor_marking")


def _reader(scene, spec: EntranceSpec, add) -> None:
    x, y = spec.door.reader_xy
    mats = {"reader": materials.principled("reader", (0.04, 0.04, 0.045), 0.4),
            "pad": materials.principled("reader_pad", (0.35, 0.36, 0.4), 0.3),
            "led": _emission("reader_led", (0.9, 0.05, 0.02), 6.0)}
    add(_multi(scene, "reader", reader_parts(x, y), mats, PASS["reader"]), "badge_reader")


def _lamps(scene, spec: EntranceSpec, add) -> None:
    L = spec.lighting
    rgb = kelvin_rgb(L.lamp_kelvin)
    parts = []
    for x, y, z in spec.lamps:
        parts.append((mesh_parts.box_part((x - 0.3, y - 0.3, z), (x + 0.3, y + 0.3, z + 0.06)), "housing"))
        parts.append((mesh_parts.box_part((x - 0.27, y - 0.27, z - 0.005), (x + 0.27, y + 0.27, z)), "lens"))
        if L.lamps_on:
            light = bpy.data.lights.new(f"lamp_{x}_{y}", type="AREA")
            light.shape = "SQUARE"
            light.size = 0.55
            light.energy = L.lamp_power_w * (z / LAMP_REF_M) ** 2    # the same light on the floor from any height
            light.color = rgb
            ob = bpy.data.objects.new(light.name, light)
            ob.location = (x, y, z - 0.01)
            scene.collection.objects.link(ob)
    mats = {"housing": materials.principled("lamp_housing", (0.7, 0.7, 0.7), 0.5),
            "lens": _emission("lamp_lens", rgb, 8.0 if L.lamps_on else 0.0)}
    add(_multi(scene, "lamp_fixtures", parts, mats, PASS["lamp_fixtures"]), "lamp")


def _furniture(scene, spec: EntranceSpec, add) -> None:
    if not spec.furniture:
        return
    parts = [p for f in spec.furniture for p in furniture_parts(f)]
    d = spec.decor
    wood, fabric = d.wood_color, d.fabric_color
    mats = {"seat": materials.principled("bench_seat", (0.35, 0.22, 0.12), 0.6),
            "metal": materials.principled("furniture_metal", (0.25, 0.25, 0.27), 0.4, 0.7),
            "pot": materials.principled("planter_pot", (0.12, 0.12, 0.13), 0.6),
            "plant": _noisy("plant", (0.06, 0.2, 0.05), 8.0, 0.4, 0.8),
            "desk": _noisy("desk", wood, 3.0, 0.15, 0.45),
            "desk_front": _noisy("desk_front", [c * 0.8 for c in wood], 3.0, 0.15, 0.45),
            "counter": materials.principled("counter", (0.8, 0.8, 0.78), 0.25),
            "screen": materials.principled("screen", (0.02, 0.02, 0.025), 0.2),
            "chair": materials.principled("chair", (0.04, 0.04, 0.045), 0.6),
            "plinth": materials.principled("plinth", (0.03, 0.03, 0.03), 0.5),
            "fabric": _noisy("fabric", fabric, 60.0, 0.15, 0.95),
            "cushion": _noisy("cushion", [c * 1.12 for c in fabric], 60.0, 0.15, 0.95),
            "wood": _noisy("table_wood", wood, 3.0, 0.15, 0.35),
            "trunk": materials.principled("trunk", (0.18, 0.12, 0.07), 0.8),
            "appliance": materials.principled("appliance", (0.85, 0.85, 0.83), 0.35),
            "bottle": materials.principled("bottle", (0.35, 0.55, 0.8), 0.1)}
    add(_multi(scene, "furniture", parts, mats, PASS["furniture"]), "furniture")


def _agent_materials(track_id: str, colors: dict) -> dict:
    return {k: materials.principled(f"{track_id}_{k}", c, ROUGH.get(k, 0.65), METAL.get(k, 0.0))
            for k, c in colors.items()}


def _world(scene, spec: EntranceSpec) -> None:
    world = bpy.data.worlds.new("world")
    scene.world = world
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    bg.inputs["Color"].default_value = (*spec.lighting.sky_color, 1.0)
    bg.inputs["Strength"].default_value = spec.lighting.sky_strength


def build(scene, spec: EntranceSpec) -> BuildInfo:
    objects: list[SceneObject] = []

    def add(ob, category):
        objects.append(SceneObject(id=ob.pass_index, name=ob.name, category=category, pass_index=ob.pass_index))

    _floor(scene, spec, add)
    _walls(scene, spec, add)
    _markings(scene, spec, add)
    _lamps(scene, spec, add)
    _furniture(scene, spec, add)
    _reader(scene, spec, add)
    for k, agent in enumerate(spec.timeline.agents):
        look = spec.looks[agent.track_id]
        add(_multi(scene, agent.track_id, body_parts(look), _agent_materials(agent.track_id, look.colors),
                   FIRST_AGENT_PASS + k, agent.pose(BUILD_T)), agent.category)
    _world(scene, spec)
    return BuildInfo(objects=objects)
