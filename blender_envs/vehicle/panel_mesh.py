"""The painted panels as shaped meshes (no bpy): what car_build links for every panel.

A panel's data stay its planar `PanelRect`s (body.py: damage placement, keep-outs, hull,
adjacency); its mesh is the same rectangle

* on the sides (fenders, doors, quarter panels): a grid moved in by `body.side_inset`
  (the shoulder rolls in under the beltline, the sill tucks under), with the wheel arch
  (`body.arch_top_z`: the keep-out disc and the strip under it) cut out of the fenders
  and quarter panels along polygon columns, so the tyre stands in a real opening;
* on the front and rear faces: narrowed row by row to the sides' shaped outline;
* hood and deck: narrowed to the shoulder's width at the beltline; the roof as drawn.

Every point keeps its in-plane coordinates, so a panel seen square-on covers its rectangle
minus the arch cut-out (`body.arch_cut_area_m2`, the tests' independent check).
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.vehicle.body import (SHOULDER_IN_M, SIDES, Body, PanelRect, arch_axles, arch_top_z, on_surface,
                                       side_inset)
from geometry.mesh_parts import Part, merge_parts

COLUMN_M = 0.06              # grid column spacing on the sides
ROW_M = 0.025                # grid row spacing (the shoulder's curve)
ARCH_SEGMENTS = 32           # columns over one arch's semicircle


def _orient(V: np.ndarray, faces: list, normal: np.ndarray) -> list:
    """Each face wound so its normal (triangles: edge cross; quads: diagonal cross) faces `normal`."""
    out = [None] * len(faces)
    for size in (3, 4):
        at = [i for i, f in enumerate(faces) if len(f) == size]
        if not at:
            continue
        p = V[np.array([faces[i] for i in at])]
        n = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]) if size == 3 else np.cross(p[:, 2] - p[:, 0], p[:, 3] - p[:, 1])
        for i, keep in zip(at, (n @ np.asarray(normal, float) >= 0).tolist()):
            out[i] = tuple(faces[i]) if keep else tuple(faces[i][::-1])
    return out


def _columns(body: Body, panel: str, x0: float, x1: float) -> list[tuple[float, float]]:
    """(x, bottom z) of every grid column, front edge to rear; an arch's vertical sides are two
    columns at one x (inside: the circle's z; outside: the sill)."""
    zc = body.clearance_m
    xs = set(np.linspace(x0, x1, max(2, int(math.ceil((x1 - x0) / COLUMN_M)) + 1)).tolist())
    r = body.arch_radius_m()
    for xa in arch_axles(body, panel):
        xs |= {float(xa + r * math.cos(t)) for t in np.linspace(0.0, math.pi, ARCH_SEGMENTS + 1)}
    xs = sorted(x for x in xs if x0 - 1e-9 <= x <= x1 + 1e-9)
    cols: list[tuple[float, float]] = []
    for x in xs:
        tops = [float(arch_top_z(body, xa, x)) for xa in arch_axles(body, panel)]
        edge = [xa for xa in arch_axles(body, panel) if abs(abs(x - xa) - r) < 1e-9]
        if edge and x0 + 1e-9 < x < x1 - 1e-9:          # an arch side inside the panel: two columns
            xa = edge[0]
            pair = [(x, body.wheel_radius_m), (x, zc)]
            cols += pair[::-1] if x < xa else pair
            continue
        if edge:
            tops.append(body.wheel_radius_m)
        cols.append((x, max([zc] + tops)))
    return cols


def side_part(body: Body, rect: PanelRect) -> Part:
    c = np.asarray(rect.center, float)
    x0, x1 = c[0] - rect.half_u, c[0] + rect.half_u
    z0, z1 = c[2] - rect.half_v, c[2] + rect.half_v
    cols = _columns(body, rect.panel, x0, x1)
    zs = np.linspace(z0, z1, max(2, int(math.ceil((z1 - z0) / ROW_M)) + 1))
    nz = len(zs)
    V = np.array([[x, c[1], max(z, min(zb, z1 - 0.01))] for x, zb in cols for z in zs])
    i = np.array([k for k in range(len(cols) - 1) if cols[k + 1][0] - cols[k][0] >= 1e-9], int)
    i, j = np.repeat(i, nz - 1), np.tile(np.arange(nz - 1), len(i))
    Q = np.stack([i * nz + j, (i + 1) * nz + j, (i + 1) * nz + j + 1, i * nz + j + 1], axis=1)
    a, b = V[Q], V[np.roll(Q, 1, axis=1)]                 # each corner and the one before it
    keep = ~np.all(np.abs(a - b) <= 1e-9 + 1e-5 * np.abs(b), axis=2)   # np.allclose(a, b, atol=1e-9)
    faces = [f for f in ([k for k, m in zip(q, km) if m] for q, km in zip(Q.tolist(), keep.tolist())) if len(f) >= 3]
    V = on_surface(body, rect.face, V)
    return V, _orient(V, faces, rect.normal())


def end_part(body: Body, rect: PanelRect) -> Part:
    """A front or rear face: rows narrowed to the shaped sides' width at their height."""
    c = np.asarray(rect.center, float)
    zs = np.linspace(c[2] - rect.half_v, c[2] + rect.half_v, max(2, int(math.ceil(2 * rect.half_v / ROW_M)) + 1))
    hw = body.width_m / 2 - side_inset(body, zs)
    V = np.array([[c[0], s * w, z] for z, w in zip(zs, hw) for s in (-1.0, 1.0)])
    faces = [(2 * j, 2 * j + 1, 2 * j + 3, 2 * j + 2) for j in range(len(zs) - 1)]
    return V, _orient(V, faces, rect.normal())


def top_part(body: Body, rect: PanelRect) -> Part:
    c = np.asarray(rect.center, float)
    hx, hy = rect.half_v, rect.half_u                   # top faces: u = -y, v = +x
    if rect.panel != "roof":
        hy = min(hy, body.width_m / 2 - SHOULDER_IN_M)
    V = np.array([[c[0] + sx * hx, c[1] + sy * hy, c[2]] for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    return V, _orient(V, [(0, 1, 2, 3)], rect.normal())


def rect_part(body: Body, rect: PanelRect) -> Part:
    if rect.face in SIDES:
        return side_part(body, rect)
    if rect.face == "top":
        return top_part(body, rect)
    return end_part(body, rect)


def panel_part(body: Body, rects: list[PanelRect]) -> Part:
    return merge_parts([rect_part(body, r) for r in rects])

