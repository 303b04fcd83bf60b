"""Mesh objects built from data with bmesh (no bpy.ops): boxes, cylinders, planes."""
from __future__ import annotations

import numpy as np

from blender_envs.core.bpy_env import bpy  # first: it makes mathutils/bmesh importable
import bmesh  # noqa: E402
from mathutils import Matrix  # noqa: E402


def _link(scene, name: str, mesh, matrix, material, pass_index: int):
    ob = bpy.data.objects.new(name, mesh)
    ob.matrix_world = Matrix(np.asarray(matrix, float).tolist())
    ob.pass_index = pass_index
    if material is not None:
        mesh.materials.append(material)
    scene.collection.objects.link(ob)
    return ob


def box(scene, name: str, size, matrix, material, pass_index: int):
    """An axis-aligned box of `size` (x, y, z) centred on the local origin."""
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    bmesh.ops.scale(bm, vec=tuple(float(s) for s in size), verts=bm.verts)
    me = bpy.data.meshes.new(name)
    bm.to_mesh(me)
    bm.free()
    return _link(scene, name, me, matrix, material, pass_index)


def cylinder(scene, name: str, radius: float, depth: float, matrix, material, pass_index: int,
             segments: int = 32):
    """A capped cylinder along local z, centred on the local origin."""
    bm = bmesh.new()
    bmesh.ops.create_cone(bm, cap_ends=True, cap_tris=False, segments=segments,
                          radius1=radius, radius2=radius, depth=depth)
    me = bpy.data.meshes.new(name)
    bm.to_mesh(me)
    bm.free()
    for poly in me.polygons:
        poly.use_smooth = len(poly.vertices) == 4
    return _link(scene, name, me, matrix, material, pass_index)


def plane(scene, name: str, width: float, height: float, matrix, material, pass_index: int):
    """A width x height rectangle in local xy facing +z, with UVs 0..1 (u along x, v along y)."""
    w, h = width / 2.0, height / 2.0
    me = bpy.data.meshes.new(name)
    me.from_pydata([(-w, -h, 0), (w, -h, 0), (w, h, 0), (-w, h, 0)], [], [(0, 1, 2, 3)])
    uv = me.uv_layers.new(name="UVMap")
    for loop, (u, v) in zip(uv.data, [(0, 0), (1, 0), (1, 1), (0, 1)]):
        loop.uv = (u, v)
    me.update()
    return _link(scene, name, me, matrix, material, pass_index)
