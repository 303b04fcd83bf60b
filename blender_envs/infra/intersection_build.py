"""Build an `IntersectionSpec` in Blender: asphalt, sidewalks with kerbs, painted markings,
traffic signals, street lamps, corner buildings, the light and weather of the draw, and
every road user as one object named by its track id (the farm moves it per timestamp),
standing at its pose at `BUILD_T`.

Cars are the RealityBench parametric bodies built by `blender_envs.vehicle.car_build`
(unchanged), whose objects are then merged into one object in the agent's box frame;
with `lighting.headlights`, emissive head and tail lamps are added inside the body's box
and, at dusk and night, two spot lights parented to it. Other bodies are `road_bodies`
parts. `frame_hook` lights each signal's lens for the phase at t (the farm calls it before
every frame).

Pass indices: ground 1, sidewalks 2, markings 3, signals 4, lamps 5, buildings 10.., agents
100.. (in timeline order).
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.core import materials
from blender_envs.core.bpy_env import bpy
from blender_envs.infra import road_bodies
from blender_envs.infra.intersection import IntersectionSpec
from blender_envs.infra.intersection_layout import (ARMS, GROUND_HALF_M, ROAD_HALF, building_parts, lamp_parts,
                                                    signal_parts)
from blender_envs.infra.warehouse_build import _emission, _multi, _noisy, kelvin_rgb
from blender_envs.infra.warehouse_layout import stripe_part
from blender_envs.vehicle.car_build import build_car
from blender_envs.vehicle.body import Placement
from geometry.clip import BUILD_T
from geometry.mesh_parts import box_part
from geometry.scene import BuildInfo, SceneObject

PASS = {"ground": 1, "sidewalks": 2, "markings": 3, "signals": 4, "lamps": 5}
FIRST_BUILDING_PASS = 10
FIRST_AGENT_PASS = 100
PAINT = {"yellow": (0.8, 0.55, 0.02), "white": (0.78, 0.78, 0.76), "green": (0.08, 0.3, 0.1)}
FACADES = {"brick": (0.35, 0.13, 0.08), "concrete": (0.45, 0.44, 0.42), "sand": (0.55, 0.45, 0.3),
           "grey": (0.25, 0.26, 0.28)}
LENS = {"red": (1.0, 0.03, 0.01), "amber": (1.0, 0.45, 0.0), "green": (0.05, 1.0, 0.35)}
LENS_ON, LENS_OFF = 60.0, 0.15
FOG_BOX_M = (110.0, 40.0)       # half-width round the centre, height: sky light crosses <= 40 m of fog
ROUGH = {"paint": 0.3, "helmet": 0.25, "metal": 0.35, "tyre": 0.8}
METAL = {"metal": 0.8}


def _agent_materials(track_id: str, colors: dict) -> dict:
    mats = {k: materials.principled(f"{track_id}_{k}", c, ROUGH.get(k, 0.6), METAL.get(k, 0.0))
            for k, c in colors.items() if k not in ("headlamp", "taillamp")}
    mats["headlamp"] = _emission(f"{track_id}_headlamp", (1.0, 0.95, 0.85), 0.0)
    mats["taillamp"] = _emission(f"{track_id}_taillamp", (1.0, 0.02, 0.01), 0.0)
    return mats


def _merge_objects(scene, name: str, obs: list, shift_z: float, extra: list, extra_mats: dict, pass_index: int,
                   matrix):
    """One object holding the world-space meshes of `obs` (removed afterwards) and the numpy
    parts `extra` ([(part, key)] with materials `extra_mats[key]`, in the same frame: the car
    built at the origin, z from the ground), all moved by shift_z."""
    from mathutils import Matrix

    V, F, mats, index = [], [], [], []
    for ob in obs:
        me = ob.data
        M = np.array(ob.matrix_world)
        co = np.empty(len(me.vertices) * 3)
        me.vertices.foreach_get("co", co)
        P = co.reshape(-1, 3) @ M[:3, :3].T + M[:3, 3]
        off = sum(len(v) for v in V)
        V.append(P)
        for m in me.materials:
            if m not in mats:
                mats.append(m)
        for poly in me.polygons:
            F.append([off + i for i in poly.vertices])
            index.append(mats.index(me.materials[poly.material_index]))
    for (P, faces), key in extra:
        off = sum(len(v) for v in V)
        V.append(np.asarray(P, float))
        m = extra_mats[key]
        if m not in mats:
            mats.append(m)
        F.extend([off + i for i in f] for f in faces)
        index.extend([mats.index(m)] * len(faces))
    allv = np.vstack(V) + np.array([0.0, 0.0, shift_z])
    for ob in obs:
        me = ob.data
        bpy.data.objects.remove(ob)
        bpy.data.meshes.remove(me)
    me = bpy.data.meshes.new(name)
    me.from_pydata([tuple(v) for v in allv], [], [tuple(f) for f in F])
    for m in mats:
        me.materials.append(m)
    me.polygons.foreach_set("material_index", np.asarray(index, np.int32))
    me.update()
    ob = bpy.data.objects.new(name, me)
    ob.matrix_world = Matrix(np.asarray(matrix, float).tolist())
    ob.pass_index = pass_index
    scene.collection.objects.link(ob)
    return ob


def _lamp_boxes(body, H: float) -> list:
    """Head and tail lamps in the car frame (z from the ground), just inside the body's box."""
    L2, W2 = body.length_m / 2, body.width_m / 2
    z0 = body.clearance_m + 0.35
    out = []
    for sy in (-1.0, 1.0):
        y0, y1 = sorted((sy * (W2 - 0.12), sy * (W2 - 0.42)))
        out.append((box_part((L2 - 0.02, y0, z0), (L2 - 0.001, y1, z0 + 0.12)), "headlamp"))
        out.append((box_part((-L2 + 0.001, y0, z0 + 0.05), (-L2 + 0.02, y1, z0 + 0.17)), "taillamp"))
    return out


def _car(scene, spec: IntersectionSpec, agent, pass_index: int):
    look = spec.looks[agent.track_id]
    body = road_bodies.car_body(look.params)
    prefix = agent.track_id + "_"
    made = build_car(scene, body, Placement(x=0.0, y=0.0, yaw_deg=0.0), look.color_names["paint"], pass_index,
                     prefix=prefix)
    parts = [bpy.data.objects[o.name] for o in made]
    lamps = _lamp_boxes(body, body.height_m)
    mats = _agent_materials(agent.track_id, {})
    ob = _merge_objects(scene, agent.track_id, parts, -body.height_m / 2, lamps, mats, pass_index,
                        agent.pose(BUILD_T))
    if spec.lighting.headlights:
        mats["headlamp"].node_tree.nodes["Emission"].inputs["Strength"].default_value = 30.0
        mats["taillamp"].node_tree.nodes["Emission"].inputs["Strength"].default_value = 8.0
    if spec.lighting.condition in ("dusk", "night"):
        for sy in (-1.0, 1.0):
            light = bpy.data.lights.new(f"{agent.track_id}_beam_{int(sy)}", type="SPOT")
            light.energy = 250.0
            light.spot_size = math.radians(60.0)
            light.spot_blend = 0.5
            light.color = (1.0, 0.95, 0.85)
            lo = bpy.data.objects.new(light.name, light)
            lo.parent = ob
            from mathutils import Euler

            lo.location = (body.length_m / 2 + 0.05, sy * (body.width_m / 2 - 0.3), body.clearance_m + 0.4 -
                           body.height_m / 2)
            lo.rotation_euler = Euler((0.0, math.radians(-82.0), 0.0))   # the light's -z: along +x, 8 degrees down
            scene.collection.objects.link(lo)
    return ob


def _ground(scene, spec: IntersectionSpec, add) -> None:
    cx, cy = spec.centre
    E = GROUND_HALF_M
    asphalt = materials.principled("asphalt", spec.asphalt_color, 0.12 if spec.lighting.weather == "rain" else 0.75)
    materials.noise_tint(asphalt.node_tree, asphalt.node_tree.nodes["Principled BSDF"], spec.asphalt_color, 0.6, 0.35,
                         coord="Object", bump=0.05, detail=8.0)
    M = np.eye(4)
    M[:3, 3] = [cx, cy, 0.0]
    from blender_envs.core import shapes

    add(shapes.mesh_object(scene, "ground", box_part((-E, -E, -0.2), (E, E, 0.0)), asphalt, PASS["ground"], M), "road")
    parts = []
    for sx in (-1, 1):
        for sy in (-1, 1):
            xs = sorted((cx + sx * ROAD_HALF, cx + sx * E))
            ys = sorted((cy + sy * ROAD_HALF, cy + sy * E))
            parts.append((box_part((xs[0], ys[0], 0.0), (xs[1], ys[1], 0.002)), "sidewalk"))
            kx = sorted((cx + sx * ROAD_HALF, cx + sx * (ROAD_HALF + 0.25)))
            ky = sorted((cy + sy * ROAD_HALF, cy + sy * (ROAD_HALF + 0.25)))
            parts.append((box_part((kx[0], ys[0], 0.002), (kx[1], ys[1], 0.0025)), "kerb"))
            parts.append((box_part((xs[0], ky[0], 0.002), (xs[1], ky[1], 0.0025)), "kerb"))
    mats = {"sidewalk": _noisy("sidewalk", spec.sidewalk_color, 1.5, 0.15, 0.8 if spec.lighting.weather != "rain"
                               else 0.3, bump=0.03),
            "kerb": materials.principled("kerb", [min(1.0, c * 1.35) for c in spec.sidewalk_color], 0.7)}
    add(_multi(scene, "sidewalks", parts, mats, PASS["sidewalks"]), "sidewalk")


def _markings(scene, spec: IntersectionSpec, add) -> None:
    parts = [(stripe_part(s), s.paint) for s in spec.markings]
    mats = {k: materials.principled(f"paint_{k}", c, 0.5) for k, c in PAINT.items()}
    add(_multi(scene, "markings", parts, mats, PASS["markings"]), "road_marking")


def _signals(scene, spec: IntersectionSpec, add) -> None:
    parts = [p for arm in ARMS for p in signal_parts(spec.centre, arm)]
    mats = {"pole": materials.principled("signal_pole", (0.12, 0.13, 0.12), 0.5, 0.5),
            "housing": materials.principled("signal_housing", (0.05, 0.05, 0.04), 0.6)}
    for arm in ARMS:
        for colour, rgb in LENS.items():
            mats[f"lens_{arm}_{colour}"] = _emission(f"signal_lens_{arm}_{colour}", rgb, LENS_OFF)
    add(_multi(scene, "signals", parts, mats, PASS["signals"]), "traffic_signal")
    frame_hook(scene, spec, BUILD_T)


def frame_hook(scene, spec: IntersectionSpec, t: float) -> None:
    """Light each approach's lens for its signal state at t, the other two dim."""
    for arm in ARMS:
        state = spec.signals.state(arm, t)
        for colour in LENS:
            mat = bpy.data.materials[f"signal_lens_{arm}_{colour}"]
            mat.node_tree.nodes["Emission"].inputs["Strength"].default_value = LENS_ON if colour == state else LENS_OFF


def _lamps(scene, spec: IntersectionSpec, add) -> None:
    L = spec.lighting
    rgb = kelvin_rgb(L.lamp_kelvin)
    parts = [p for lamp in spec.lamps for p in lamp_parts(lamp)]
    for k, (qx, qy, z, _, _) in enumerate(spec.lamps):
        if L.lamps_on:
            light = bpy.data.lights.new(f"street_lamp_{k}", type="AREA")
            light.shape = "RECTANGLE"
            light.size, light.size_y = 0.5, 0.3
            light.energy = L.lamp_power_w
            light.color = rgb
            ob = bpy.data.objects.new(light.name, light)
            ob.location = (qx, qy, z - 0.02)
            scene.collection.objects.link(ob)
    mats = {"pole": materials.principled("lamp_pole", (0.2, 0.21, 0.2), 0.5, 0.5),
            "lamp_housing": materials.principled("lamp_housing", (0.15, 0.15, 0.16), 0.5, 0.4),
            "lamp_lens": _emission("lamp_lens", rgb, 20.0 if L.lamps_on else 0.0)}
    add(_multi(scene, "street_lamps", parts, mats, PASS["lamps"]), "street_lamp")


def _buildings(scene, spec: IntersectionSpec, add) -> None:
    night = spec.lighting.condition != "day"
    for k, b in enumerate(spec.buildings):
        mats = {"facade": _noisy(f"facade_{k}", FACADES[b.facade], 0.5, 0.12, 0.85, bump=0.02),
                "base": materials.principled(f"facade_base_{k}", (0.06, 0.06, 0.06), 0.6),
                "window": (_emission(f"window_{k}", (1.0, 0.8, 0.55), 0.6) if night else
                           materials.principled(f"window_{k}", (0.04, 0.05, 0.06), 0.08, 0.3))}
        add(_multi(scene, f"building_{k}", building_parts(b, spec.centre), mats, FIRST_BUILDING_PASS + k), "building")


def _world(scene, spec: IntersectionSpec) -> None:
    L = spec.lighting
    world = bpy.data.worlds.new("world")
    scene.world = world
    world.use_nodes = True
    nt = world.node_tree
    bg = nt.nodes["Background"]
    bg.inputs["Color"].default_value = (*L.sky_color, 1.0)
    bg.inputs["Strength"].default_value = L.sky_strength
    if L.fog_density > 0:
        _fog(scene, spec)
    if L.sun_strength > 0:
        sun = bpy.data.lights.new("sun", type="SUN")
        sun.energy = L.sun_strength
        sun.angle = math.radians(1.0)
        ob = bpy.data.objects.new("sun", sun)
        el, az = math.radians(L.sun_elevation_deg), math.radians(L.sun_azimuth_deg)
        from mathutils import Vector

        ob.rotation_euler = Vector((-math.cos(el) * math.cos(az), -math.cos(el) * math.sin(az),
                                    -math.sin(el))).to_track_quat("-Z", "Y").to_euler()
        scene.collection.objects.link(ob)


def _fog(scene, spec: IntersectionSpec) -> None:
    """A box of scattering volume round the crossroads (FOG_BOX_M), not the world's volume: a
    world volume is infinite and swallows the sky's light. Pass index 0: the box is no object
    of the scene (not exported, not in the index pass: it has no surface)."""
    from blender_envs.core import shapes

    mat = bpy.data.materials.new("fog")
    mat.use_nodes = True
    nt = mat.node_tree
    nt.nodes.remove(nt.nodes["Principled BSDF"])
    vol = nt.nodes.new("ShaderNodeVolumeScatter")
    vol.inputs["Density"].default_value = spec.lighting.fog_density
    vol.inputs["Color"].default_value = (0.85, 0.87, 0.9, 1.0)
    nt.links.new(vol.outputs["Volume"], nt.nodes["Material Output"].inputs["Volume"])
    cx, cy = spec.centre
    h, top = FOG_BOX_M
    shapes.mesh_object(scene, "fog", box_part((cx - h, cy - h, -0.1), (cx + h, cy + h, top)), mat, 0)


def build(scene, spec: IntersectionSpec) -> BuildInfo:
    objects: list[SceneObject] = []

    def add(ob, category):
        objects.append(SceneObject(id=ob.pass_index, name=ob.name, category=category, pass_index=ob.pass_index))

    _ground(scene, spec, add)
    _markings(scene, spec, add)
    _signals(scene, spec, add)
    _lamps(scene, spec, add)
    _buildings(scene, spec, add)
    for k, agent in enumerate(spec.timeline.agents):
        look = spec.looks[agent.track_id]
        pid = FIRST_AGENT_PASS + k
        if look.kind == "car":
            ob = _car(scene, spec, agent, pid)
        else:
            mats = _agent_materials(agent.track_id, look.colors)
            if spec.lighting.headlights and look.kind == "motorcycle":
                mats["headlamp"].node_tree.nodes["Emission"].inputs["Strength"].default_value = 30.0
                mats["taillamp"].node_tree.nodes["Emission"].inputs["Strength"].default_value = 8.0
            ob = _multi(scene, agent.track_id, road_bodies.body_parts(look.kind, look.params), mats, pid,
                        agent.pose(BUILD_T))
        add(ob, agent.category)
    _world(scene, spec)
    return BuildInfo(objects=objects)
