"""Print every car's plates: the plate planes car_build made get their state's texture
(and, for embossed states, a bump from the glyph height map). bpy side."""
from __future__ import annotations

from blender_envs.core import materials
from blender_envs.core.bpy_env import bpy
from blender_envs.vehicle.lot import NEIGHBOUR_PREFIX, LotSpec
from blender_envs.vehicle.plate_texture import PLATE_PX_PER_M, plate_texture
from blender_envs.vehicle.plates import Plate

DISTRACTOR_PX_PER_M = 2000.0     # other cars' plates: half the texture resolution (never the target)
EMBOSS_DISTANCE_M = 0.0015       # raised glyphs, as a bump
PLATE_ALBEDO = 0.75              # the print's linear colours times this: sheeting reflects ~0.7, not
                                 # the 0.9 of sRGB F4 (auto-exposure on a dark car blew 3 of 4 plates out)
PLATE_ROUGHNESS = 0.5


def plate_material(name: str, plate: Plate, px_per_m: float = PLATE_PX_PER_M):
    """The plate's printed face; embossed plates get a bump from the glyph height map."""
    img, height, _ = plate_texture(plate, px_per_m)
    mat = materials.image_material(name, img, roughness=PLATE_ROUGHNESS, metallic=0.0)
    nt = mat.node_tree
    bsdf = nt.nodes["Principled BSDF"]
    mix = nt.nodes.new("ShaderNodeMix")
    mix.data_type = "RGBA"
    mix.blend_type = "MULTIPLY"
    mix.inputs["Factor"].default_value = 1.0
    mix.inputs["B"].default_value = (PLATE_ALBEDO, PLATE_ALBEDO, PLATE_ALBEDO, 1.0)
    nt.links.new(bsdf.inputs["Base Color"].links[0].from_socket, mix.inputs["A"])
    nt.links.new(mix.outputs["Result"], bsdf.inputs["Base Color"])
    if plate.style.embossed:
        uv = nt.nodes.new("ShaderNodeTexCoord")
        tex = nt.nodes.new("ShaderNodeTexImage")
        tex.image = materials.pil_to_bpy_image(height.convert("RGB"), f"{name}_height")
        tex.image.colorspace_settings.name = "Non-Color"
        tex.interpolation = "Cubic"
        tex.extension = "CLIP"
        nt.links.new(uv.outputs["UV"], tex.inputs["Vector"])
        bump = nt.nodes.new("ShaderNodeBump")
        bump.inputs["Strength"].default_value = 0.8
        bump.inputs["Distance"].default_value = EMBOSS_DISTANCE_M
        nt.links.new(tex.outputs["Color"], bump.inputs["Height"])
        nt.links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    return mat


def print_plates(lot: LotSpec) -> int:
    """Give every car's plate objects (`subject_plate_front`, `car3_plate_rear`, `nb0_plate_front`, ...) its
    own printed material; returns how many plate objects were printed."""
    done = 0
    named = [("subject_" if k == 0 else f"car{k}_", car) for k, car in enumerate(lot.cars)]
    named += [(NEIGHBOUR_PREFIX.format(i=i), car) for i, car in enumerate(lot.neighbours)]   # vehicle-8
    for k, (prefix, car) in enumerate(named):
        mat = plate_material(f"{prefix}plate_print", car.plate, PLATE_PX_PER_M if k == 0 else DISTRACTOR_PX_PER_M)
        for end in ("front", "rear"):
            ob = bpy.data.objects.get(f"{prefix}plate_{end}")
            if ob is None:
                raise RuntimeError(f"car {k} has no {end} plate object")
            ob.data.materials.clear()
            ob.data.materials.append(mat)
            done += 1
    return done
