"""The bpy half of the mesh pieces: link a `geometry.mesh_parts` part as a Blender
object, and turn a bevelled curve into a mesh object.

The parts themselves (boxes, cylinders, prisms, rings, merges) are plain numpy in
`geometry.mesh_parts`, so bpy-free code triangulates exactly what builders link here.
"""
from __future__ import annotations

import numpy as np

from blender_envs.core.bpy_env import bpy  # first: it makes mathutils/bmesh importable
from mathutils import Matrix  # noqa: E402

from geometry.mesh_parts import Part  # noqa: E402


def mesh_object(scene, name: str, part: Part, material, pass_index: int, matrix=None,
                face_attrs: dict[str, np.ndarray] | None = None, uvs: np.ndarray | None = None):
    """Link a mesh object made of `part`; optional per-face float attributes and
    per-loop UVs (an (n_loops, 2) array in face order)."""
    V, F = part
    me = bpy.data.meshes.new(name)
    me.from_pydata([tuple(v) for v in np.asarray(V, float)], [], [tuple(f) for f in F])
    if uvs is not None:
        layer = me.uv_layers.new(name="UVMap")
        layer.data.foreach_set("uv", np.asarray(uvs, np.float32).ravel())
    for key, vals in (face_attrs or {}).items():
        at = me.attributes.new(key, "FLOAT", "FACE")
        at.data.foreach_set("value", np.asarray(vals, np.float32))
    me.validate(clean_customdata=False)
    me.update()
    ob = bpy.data.objects.new(name, me)
    ob.matrix_world = Matrix(np.eye(4) if matrix is None else np.asarray(matrix, float).tolist())
    ob.pass_index = pass_index
    if material is not None:
        me.materials.append(material)
    scene.collection.objects.link(ob)
    return ob


def tube_from_curve(scene, name: str, points, radius: float, material, pass_index: int,
                    bevel_resolution: int = 2):
    """A bevelled poly curve through `points` (world), converted to a mesh object so the
    mesh exporter (meshes only) and the object-index pass see the same triangles."""
    cu = bpy.data.curves.new(name + "_curve", "CURVE")
    cu.dimensions = "3D"
    cu.bevel_depth = radius
    cu.bevel_resolution = bevel_resolution
    cu.use_fill_caps = True
    sp = cu.splines.new("POLY")
    pts = np.asarray(points, float)
    sp.points.add(len(pts) - 1)
    sp.points.foreach_set("co", np.c_[pts, np.ones(len(pts))].ravel().astype(np.float32))
    tmp = bpy.data.objects.new(name + "_curve", cu)
    scene.collection.objects.link(tmp)
    dg = bpy.context.evaluated_depsgraph_get()
    me = bpy.data.meshes.new_from_object(tmp.evaluated_get(dg))
    me.name = name
    bpy.data.objects.remove(tmp)
    bpy.data.curves.remove(cu)
    ob = bpy.data.objects.new(name, me)
    ob.pass_index = pass_index
    for poly in me.polygons:
        poly.use_smooth = True
    if material is not None:
        me.materials.clear()
        me.materials.append(material)
    scene.collection.objects.link(ob)
    return ob


def cone_part(cx, cy, z0, radius, height, seg=10):
    """A closed cone standing at (cx, cy, z0): a tree crown (numpy part)."""
    t = np.arange(seg) * 2 * np.pi / seg
    V = np.vstack([np.c_[cx + radius * np.cos(t), cy + radius * np.sin(t), np.full(seg, z0)], [[cx, cy, z0 + height]]])
    F = [tuple(range(seg - 1, -1, -1))] + [(i, (i + 1) % seg, seg) for i in range(seg)]
    return V, F


def sphere_part(cx, cy, cz, radius, nu=10, nv=6):
    """A low-poly sphere squashed to 0.85 in z: a tree crown (numpy part)."""
    th = np.linspace(0, np.pi, nv + 1)[1:-1]
    ph = np.arange(nu) * 2 * np.pi / nu
    T, P = np.meshgrid(th, ph, indexing="ij")
    ring = np.c_[np.sin(T).ravel() * np.cos(P).ravel(), np.sin(T).ravel() * np.sin(P).ravel(), np.cos(T).ravel()]
    V = np.vstack([[[0, 0, 1]], ring, [[0, 0, -1]]]) * radius * np.array([1, 1, 0.85]) + [cx, cy, cz]
    bot = len(V) - 1
    F = [(0, 1 + i, 1 + (i + 1) % nu) for i in range(nu)]
    for r in range(nv - 2):
        a, b = 1 + r * nu, 1 + (r + 1) * nu
        F += [(a + i, b + i, b + (i + 1) % nu, a + (i + 1) % nu) for i in range(nu)]
    a = 1 + (nv - 2) * nu
    F += [(a + (i + 1) % nu, a + i, bot) for i in range(nu)]
    return V, F
