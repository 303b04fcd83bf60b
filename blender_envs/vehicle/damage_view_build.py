"""Build a `DamageViewSpec`: the shared parking lot, then the subject's damage site.

The damaged panel (car_build's `subject_<panel>`) is rebuilt with the site's ellipse cut
out of its rectangle (`damage_view.holed_panel_mesh`: the shaped surface and the arch cut-out
as panel_mesh makes them), and the damaged surface is its own
object, `subject_damage` (pass index `DAMAGE_PASS`), so the object-index pass is the
damage mask and the exported mesh carries its area:

* dent: the patch's polar grid pushed in along the normal by `dent_depth_m` (a smooth
  (1 - rho^2)^2 falloff to zero slope at the rim), shaded smooth; the paint is intact, so
  it shows in the clear coat's reflections;
* scratch / rust: `damage_texture` arrays on the patch's UVs (colour and coverage, metal,
  roughness, a height map through a Bump node), the coat removed where paint is gone.

Every car's plates are printed as car_plate's are (plate_build). Every car's paint gets a clear coat (Principled coat weight 1, roughness COAT_ROUGHNESS):
without sharp reflections a dent on a matte panel has no contrast at all.
"""
from __future__ import annotations

import numpy as np

from blender_envs.core.bpy_env import bpy
from blender_envs.core import shapes
from blender_envs.vehicle.body import COAT_ROUGHNESS, car_to_world, linear_rgb, paint_finish, panels, to_world
from blender_envs.vehicle.damage import site_area_cm2
from blender_envs.vehicle.damage_texture import PAINT_ROUGH, damage_texture
from blender_envs.vehicle.damage_view import (DAMAGE_OBJECT, DAMAGE_PASS, DamageViewSpec, ellipse_axes,
                                              holed_panel_mesh, patch_mesh)
from blender_envs.vehicle.panel_mesh import rect_part
from blender_envs.vehicle.lot_build import build_lot
from blender_envs.vehicle.plate_build import print_plates
from geometry.scene import BuildInfo, SceneObject

BUMP_DISTANCE_M = 0.0012


def _clear_coat(mat) -> None:
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Coat Weight"].default_value = 1.0
    bsdf.inputs["Coat Roughness"].default_value = COAT_ROUGHNESS


def _float_image(name: str, rgba: np.ndarray, non_color: bool):
    """A float image; its colour space and alpha mode are set first, as changing them on a
    generated image regenerates its (blank) buffer and loses pixels set before."""
    H, W = rgba.shape[:2]
    img = bpy.data.images.new(name, W, H, alpha=True, float_buffer=True)
    if non_color:
        img.colorspace_settings.name = "Non-Color"
    img.alpha_mode = "CHANNEL_PACKED"   # alpha is a coverage channel: never divide the colour by it
    img.pixels.foreach_set(np.ascontiguousarray(rgba[::-1], np.float32).ravel())   # bpy rows run bottom-up
    img.pack()
    return img


def damage_material(spec: DamageViewSpec):
    """Paint with the site's texture on top (a dent alone: the coated paint, unchanged)."""
    car = spec.lot.subject
    paint = linear_rgb(car.color)
    mat = bpy.data.materials.new("subject_damage")
    mat.use_nodes = True
    nt = mat.node_tree
    bsdf = nt.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (*paint, 1.0)
    metallic, rough, _ = paint_finish(car.color)      # the paint car_build gives the panels
    bsdf.inputs["Roughness"].default_value = rough
    bsdf.inputs["Metallic"].default_value = metallic
    _clear_coat(mat)
    if not ({"scratch", "rust"} & set(spec.damage.kinds)):
        return mat
    tex = damage_texture(spec.damage, paint)
    albedo = np.dstack([tex["color"], tex["alpha"]])
    keep = 1.0 - tex["alpha"]                          # undamaged share: the panels' paint finish
    metal = np.clip(tex["metal"] + metallic * keep, 0.0, 1.0)
    rough_ch = tex["rough"] + (rough - PAINT_ROUGH) * keep
    data = np.dstack([metal, rough_ch, tex["height"] * 0.5 + 0.5, np.ones_like(tex["alpha"])])
    uv = nt.nodes.new("ShaderNodeTexCoord")
    t_col = nt.nodes.new("ShaderNodeTexImage")
    t_col.image = _float_image("subject_damage_color", albedo, False)
    t_dat = nt.nodes.new("ShaderNodeTexImage")
    t_dat.image = _float_image("subject_damage_data", data, True)
    for t in (t_col, t_dat):
        t.interpolation = "Linear"
        t.extension = "EXTEND"
        nt.links.new(uv.outputs["UV"], t.inputs["Vector"])
    nt.links.new(t_col.outputs["Color"], bsdf.inputs["Base Color"])
    sep = nt.nodes.new("ShaderNodeSeparateColor")
    nt.links.new(t_dat.outputs["Color"], sep.inputs["Color"])
    nt.links.new(sep.outputs["Red"], bsdf.inputs["Metallic"])
    nt.links.new(sep.outputs["Green"], bsdf.inputs["Roughness"])
    coat = nt.nodes.new("ShaderNodeMath")
    coat.operation = "SUBTRACT"
    coat.inputs[0].default_value = 1.0
    nt.links.new(t_col.outputs["Alpha"], coat.inputs[1])
    nt.links.new(coat.outputs["Value"], bsdf.inputs["Coat Weight"])
    bump = nt.nodes.new("ShaderNodeBump")
    bump.inputs["Strength"].default_value = 1.0
    bump.inputs["Distance"].default_value = BUMP_DISTANCE_M
    nt.links.new(sep.outputs["Blue"], bump.inputs["Height"])
    nt.links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    nt.links.new(bump.outputs["Normal"], bsdf.inputs["Coat Normal"])
    return mat


def _replace_panel(spec: DamageViewSpec) -> None:
    """Rebuild `subject_<panel>` with the site's ellipse cut out of its rectangle."""
    car = spec.lot.subject
    site = spec.damage
    ob = bpy.data.objects[f"subject_{site.panel}"]
    verts, faces = [], []
    for i, r in enumerate(panels(car.body)[site.panel]):
        V, F = holed_panel_mesh(car.body, site) if i == site.rect_index else rect_part(car.body, r)
        k = len(verts)
        verts += [list(v) for v in V]
        faces += [[k + j for j in f] for f in F]
    me = bpy.data.meshes.new(ob.name)
    me.from_pydata([tuple(map(float, v)) for v in verts], [], [tuple(f) for f in faces])
    me.update()
    for m in ob.data.materials:
        me.materials.append(m)
    for poly in me.polygons:
        poly.use_smooth = True
    ob.data = me


def build(scene, spec: DamageViewSpec) -> BuildInfo:
    site_area_cm2(spec.lot.subject.body, spec.damage)   # a site with no surface stops here, before anything is built
    objects = build_lot(scene, spec.lot)
    print_plates(spec.lot)
    for mat in bpy.data.materials:
        if mat.name.endswith("paint"):
            _clear_coat(mat)
    _replace_panel(spec)
    car = spec.lot.subject
    V, F, xy = patch_mesh(car.body, spec.damage)
    a, b = (x / 100.0 for x in spec.damage.semi_axes_cm)
    uv_vert = np.c_[(xy[:, 0] / a + 1) / 2, (xy[:, 1] / b + 1) / 2]
    uvs = np.concatenate([uv_vert[f] for f in F])
    ob = shapes.mesh_object(scene, DAMAGE_OBJECT, (V, F), damage_material(spec), DAMAGE_PASS,
                            matrix=car_to_world(car.placement), uvs=uvs)
    for poly in ob.data.polygons:
        poly.use_smooth = True
    objects.append(SceneObject(id=DAMAGE_PASS, name=DAMAGE_OBJECT, category="damage", pass_index=DAMAGE_PASS))
    centre = to_world(car.placement, ellipse_axes(car.body, spec.damage)[0])
    return BuildInfo(objects=sorted(objects, key=lambda o: o.id),
                     key_points={"damage_center": [float(v) for v in centre]})
