"""Numpy mesh pieces (vertices + quad/tri faces) that builders assemble into objects and
that bpy-free code (indoor meshes as data, scorers) triangulates the same way.

Builders assemble many small parts (feet, bolts, rungs) into one mesh per object with
numpy instead of one bmesh op per part: it keeps scene builds fast and the geometry
exactly what the spec helpers say. `blender_envs.core.shapes.mesh_object` links a part
into a Blender scene; everything here is plain data.
"""
from __future__ import annotations

import numpy as np

Part = tuple[np.ndarray, list]  # (V (n, 3), faces as lists of vertex indices)

# Outward quads of a box over corners 0-3 at z0 and 4-7 at z1 (each ring counter-clockwise
# seen from +z: (x0,y0), (x1,y0), (x1,y1), (x0,y1)).
BOX_FACES = ((0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7))
_BOX_FACES = np.array(BOX_FACES)
BOX_TRIANGLES = np.concatenate([_BOX_FACES[:, [0, 1, 2]], _BOX_FACES[:, [0, 2, 3]]])  # (12, 3)


def box_part(lo, hi) -> Part:
    """An axis-aligned box from corner lo to corner hi, outward-facing quads."""
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    V = np.array([[x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0],
                  [x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]], float)
    return V, list(BOX_FACES)


def box_triangles(lo_hi, M: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (8n, 3) and triangles (12n, 3) of n boxes given as rows [x0 y0 z0 x1 y1 z1]
    (corner order of `box_part`, each quad split 0-1-2 / 0-2-3), optionally moved by the
    4x4 matrix M."""
    b = np.asarray(lo_hi, float).reshape(-1, 6)
    x = np.stack([b[:, 0], b[:, 3], b[:, 3], b[:, 0]], 1)
    y = np.stack([b[:, 1], b[:, 1], b[:, 4], b[:, 4]], 1)
    V = np.concatenate([np.stack([x, y, np.repeat(b[:, 2:3], 4, 1)], -1),
                        np.stack([x, y, np.repeat(b[:, 5:6], 4, 1)], -1)], axis=1).reshape(-1, 3)
    if M is not None:
        V = V @ M[:3, :3].T + M[:3, 3]
    F = (BOX_TRIANGLES[None, :, :] + 8 * np.arange(len(b))[:, None, None]).reshape(-1, 3)
    return V, F


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
    return np.array(V), list(BOX_FACES)


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
    """The part with its vertices moved by the 4x4 matrix M."""
    V, F = part
    M = np.asarray(M, float)
    return V @ M[:3, :3].T + M[:3, 3], F


def merge_parts(parts) -> Part:
    """One part holding all of `parts` (face indices offset)."""
    Vs, Fs, off = [], [], 0
    for V, F in parts:
        Vs.append(np.asarray(V, float))
        Fs.extend(tuple(int(i) + off for i in f) for f in F)
        off += len(V)
    return np.vstack(Vs), Fs
