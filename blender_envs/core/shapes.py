"""Numpy mesh pieces (vertices + quad/tri faces) and one call that links them as an object.

Builders assemble many small parts (feet, bolts, rungs) into one mesh per object with
numpy instead of one bmesh op per part: it keeps scene builds fast and the geometry
exactly what the spec helpers say.
"""
from __future__ import annotations

import numpy as np

from blender_envs.core.bpy_env import bpy  # first: it makes mathutils/bmesh importable
from mathutils import Matrix  # noqa: E402

Part = tuple[np.ndarray, list]  # (V (n, 3), faces as lists of vertex indices)

_BOX_FACES = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]


def box_part(lo, hi) -> Part:
    """An axis-aligned box from corner lo to corner hi, outward-facing quads."""
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    V = np.array([[x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0],
                  [x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]], float)
    return V, list(_BOX_FACES)


def oriented_box_part(p0, p1, side, width: float, depth: float) -> Part:
    """A box whose axis runs p0 -> p1, `width` along `side` and `depth` along axis x side."""
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    a = (p1 - p0) / np.linalg.norm(p1 - p0)
    s = np.asarray(side, float)
    s = s - a * (s @ a)
    s /= np.linalg.norm(s)
    n = np.cross(a, s)
    V = []
    for p in (p0, p1):
        for i, j in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            V.append(p + i * width / 2 * s + j * depth / 2 * n)
    # ring 0 at p0 (bottom), ring 1 at p1 (top): same layout as box_part
    return np.array(V), list(_BOX_FACES)


def cylinder_part(center, radius: float, z0: float, z1: float, segments: int = 12) -> Part:
    """A capped prism (cylinder for many segments, hex nut for 6) along local z."""
    t = np.arange(segments) * 2 * np.pi / segments
    ring = np.stack([np.cos(t) * radius + center[0], np.sin(t) * radius + center[1]], 1)
    V = np.vstack([np.c_[ring, np.full(segments, z0)], np.c_[ring, np.full(segments, z1)]])
    F = [tuple(range(segments - 1, -1, -1)), tuple(range(segments, 2 * segments))]
    for i in range(segments):
        j = (i + 1) % segments
        F.append((i, j, segments + j, segments + i))
    return V, F


def prism_part(profile_yz, x0: float, x1: float) -> Part:
    """Extrude a convex (y, z) polygon (counter-clockwise seen from +x) from x0 to x1."""
    P = np.asarray(profile_yz, float)
    n = len(P)
    V = np.vstack([np.c_[np.full(n, x0), P], np.c_[np.full(n, x1), P]])
    F = [tuple(range(n - 1, -1, -1)), tuple(range(n, 2 * n))]
    for i in range(n):
        j = (i + 1) % n
        F.append((i, j, n + j, n + i))
    return V, F


def ring_part(outer_lo, outer_hi, inner_lo, inner_hi, z0: float, z1: float) -> Part:
    """A rectangular frame (outer minus inner rectangle in xy) between z0 and z1."""
    (ox0, oy0), (ox1, oy1) = outer_lo, outer_hi
    (ix0, iy0), (ix1, iy1) = inner_lo, inner_hi
    o = [(ox0, oy0), (ox1, oy0), (ox1, oy1), (ox0, oy1)]
    i = [(ix0, iy0), (ix1, iy0), (ix1, iy1), (ix0, iy1)]
    V = np.array([(*p, z0) for p in o] + [(*p, z0) for p in i] + [(*p, z1) for p in o] + [(*p, z1) for p in i])
    F = []
    for k in range(4):
        m = (k + 1) % 4
        F.append((k, m, 8 + m, 8 + k))                  # outer wall
        F.append((4 + m, 4 + k, 12 + k, 12 + m))          # inner wall
        F.append((8 + k, 8 + m, 12 + m, 12 + k))          # top
        F.append((m, k, 4 + k, 4 + m))                    # bottom
    return V, F


def transform_part(part: Part, M) -> Part:
    V, F = part
    M = np.asarray(M, float)
    return V @ M[:3, :3].T + M[:3, 3], F


def merge_parts(parts) -> Part:
    Vs, Fs, off = [], [], 0
    for V, F in parts:
        Vs.append(np.asarray(V, float))
        Fs.extend(tuple(int(i) + off for i in f) for f in F)
        off += len(V)
    return np.vstack(Vs), Fs


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
