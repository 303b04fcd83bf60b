"""Small material and lighting builders shared by environments."""
from __future__ import annotations

import math

from blender_envs.core.bpy_env import bpy


def principled(name: str, color, roughness: float = 0.6, metallic: float = 0.0):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (*color[:3], 1.0)
    bsdf.inputs["Roughness"].default_value = roughness
    bsdf.inputs["Metallic"].default_value = metallic
    return mat


def checker(name: str, squares_u: int, squares_v: int, dark=(0.02, 0.02, 0.02), light=(0.85, 0.85, 0.85)):
    """A printed checkerboard over the object's 0..1 UVs: squares_u x squares_v squares."""
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nt = mat.node_tree
    bsdf = nt.nodes["Principled BSDF"]
    bsdf.inputs["Roughness"].default_value = 0.8
    uv = nt.nodes.new("ShaderNodeTexCoord")
    mapping = nt.nodes.new("ShaderNodeMapping")
    mapping.inputs["Scale"].default_value = (squares_u / 2.0, squares_v / 2.0, 1.0)
    tex = nt.nodes.new("ShaderNodeTexChecker")
    tex.inputs["Scale"].default_value = 2.0
    tex.inputs["Color1"].default_value = (*light, 1.0)
    tex.inputs["Color2"].default_value = (*dark, 1.0)
    nt.links.new(uv.outputs["UV"], mapping.inputs["Vector"])
    nt.links.new(mapping.outputs["Vector"], tex.inputs["Vector"])
    nt.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    return mat


def sun_and_sky(scene, elevation_deg: float, azimuth_deg: float, strength: float = 3.0,
                sky_color=(0.45, 0.6, 0.9), sky_strength: float = 0.8):
    """A sun lamp shining from (elevation, azimuth: 0 = +y, 90 = +x) and a flat sky fill."""
    sun = bpy.data.objects.new("sun", bpy.data.lights.new("sun", type="SUN"))
    sun.data.energy = strength
    sun.data.angle = math.radians(0.53)
    # a sun lamp shines along its local -Z; rotate -Z onto the direction away from the sun
    sun.rotation_euler = (math.radians(90.0 - elevation_deg), 0.0, math.radians(180.0 - azimuth_deg))
    scene.collection.objects.link(sun)
    world = bpy.data.worlds.new("world")
    scene.world = world
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    bg.inputs["Color"].default_value = (*sky_color, 1.0)
    bg.inputs["Strength"].default_value = sky_strength
    return sun


def nishita_sun_and_sky(scene, elevation_deg: float, azimuth_deg: float, sun_strength: float = 4.0,
                        sky_strength: float = 0.25, dust_density: float = 1.0):
    """Sun lamp + Nishita sky with the same sun (azimuth 0 = +y, 90 = +x).

    Convention check (rendered, Blender 4.5): a pinhole camera aimed along
    (sin r cos e, cos r cos e, sin e) with r = sun_rotation = 60 deg, e = 30 deg centres
    the Nishita sun disc; r = -60, 120, 240 do not. `sun_and_sky` shines from the same
    vector for azimuth = r, so sun_rotation = radians(azimuth). The sky's disc is off:
    the lamp alone carries the direct sun (no double sun, crisp shadows). `dust_density`
    (Blender's default 1.0) below 1 clears the haze: a bluer sky, a less milky horizon.
    """
    sun = sun_and_sky(scene, elevation_deg, azimuth_deg, strength=sun_strength)
    nt = scene.world.node_tree
    bg = nt.nodes["Background"]
    sky = nt.nodes.new("ShaderNodeTexSky")
    sky.sky_type = "NISHITA"
    sky.sun_elevation = math.radians(elevation_deg)
    sky.sun_rotation = math.radians(azimuth_deg)
    sky.sun_disc = False
    sky.dust_density = dust_density
    nt.links.new(sky.outputs["Color"], bg.inputs["Color"])
    bg.inputs["Strength"].default_value = sky_strength
    return sun


def pil_to_bpy_image(pil_image, name: str):
    """A packed Blender image from a Pillow image (bpy pixels run bottom-up)."""
    import numpy as np

    rgba = pil_image.convert("RGBA")
    w, h = rgba.size
    arr = np.asarray(rgba, dtype=np.float32)[::-1] / 255.0
    img = bpy.data.images.new(name, w, h, alpha=True)
    img.pixels.foreach_set(arr.ravel())
    img.pack()
    return img


def image_material(name: str, pil_image, roughness: float = 0.45, metallic: float = 0.0):
    """A printed surface: the image on the object's 0..1 UVs, cubic-filtered, clipped."""
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nt = mat.node_tree
    bsdf = nt.nodes["Principled BSDF"]
    bsdf.inputs["Roughness"].default_value = roughness
    bsdf.inputs["Metallic"].default_value = metallic
    tex = nt.nodes.new("ShaderNodeTexImage")
    tex.image = pil_to_bpy_image(pil_image, name)
    tex.interpolation = "Cubic"
    tex.extension = "CLIP"
    nt.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    return mat


def noise_tint(nt, bsdf, color, scale: float, amount: float, coord="Object", bump: float = 0.0,
               detail: float = 6.0, stretch=None):
    """Base colour = colour x (1 - amount + amount * noise); optional bump from the noise.
    `stretch` (x, y, z) scales the coordinates first, e.g. (1, 14, 1) for wood grain along x."""
    tc = nt.nodes.new("ShaderNodeTexCoord")
    noise = nt.nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = scale
    noise.inputs["Detail"].default_value = detail
    if stretch is None:
        nt.links.new(tc.outputs[coord], noise.inputs["Vector"])
    else:
        mp = nt.nodes.new("ShaderNodeMapping")
        mp.inputs["Scale"].default_value = tuple(stretch)
        nt.links.new(tc.outputs[coord], mp.inputs["Vector"])
        nt.links.new(mp.outputs["Vector"], noise.inputs["Vector"])
    ramp = nt.nodes.new("ShaderNodeMapRange")
    ramp.inputs["To Min"].default_value = 1.0 - amount
    ramp.inputs["To Max"].default_value = 1.0 + amount
    nt.links.new(noise.outputs["Fac"], ramp.inputs["Value"])
    mix = nt.nodes.new("ShaderNodeMix")
    mix.data_type = "RGBA"
    mix.blend_type = "MULTIPLY"
    mix.inputs["Factor"].default_value = 1.0
    mix.inputs["A"].default_value = (*color[:3], 1.0)
    nt.links.new(ramp.outputs["Result"], mix.inputs["B"])
    nt.links.new(mix.outputs["Result"], bsdf.inputs["Base Color"])
    if bump > 0:
        b = nt.nodes.new("ShaderNodeBump")
        b.inputs["Strength"].default_value = bump
        b.inputs["Distance"].default_value = 0.002
        nt.links.new(noise.outputs["Fac"], b.inputs["Height"])
        nt.links.new(b.outputs["Normal"], bsdf.inputs["Normal"])
    return mix
