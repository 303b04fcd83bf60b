"""The painted panels as shaped meshes (no bpy): what car_build links for every panel.

A panel's data stay its planar `PanelRect`s (body.py: damage placement, keep-outs, hull,
adjacency); its mesh is the same rectangle with every point moved onto the shaped surface
by `body.on_surface`, only inwards (into the body, or down), never out of it:

* on the sides (fenders, doors, quarter panels): a grid moved in by `body.side_inset`
  (the shoulder rolls in under the beltline, the sill tucks under) and, near the ends, by
  `body.corner_inset` (vehicle-5: the vertical corners are arcs of `body.corner_radius_m` in
  plan), with the wheel arch (`body.arch_top_z`: the keep-out disc and the strip under it)
  cut out of the fenders and quarter panels along polygon columns, so the tyre stands in a
  real opening; a side's grid ends where the corner's arc reaches 45 degrees
  (`body.corner_split_m` short of the end plane);
* on the front and rear faces: rows out to the sides' shaped width, set back along the
  other half of the same arc (`body.end_setback`), so side and end meet on one split line;
* hood, deck and roof: a grid crowned by `body.top_drop` (centre on the plane, edges lower),
  the hood and deck inside the beltline's outline (rounded at the corners as the sides are);
  the vertical panels' top band (`body.TOP_BAND_M`) comes down to the crowned edge.

Every side point keeps its (x, z) below that band, every end point its (y, z), so a panel
seen square-on covers its rectangle minus the arch cut-out (`body.arch_cut_area_m2`), the
corner strips and the top band's drop; the shared edges are the same vertices on both
panels (tests/test_panel_shape.py).
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.vehicle.body import (ROOF_INSET_M, SIDES, TOP_BAND_M, Body, PanelRect, arch_axles, arch_top_z,
                                       corner_radius_m, corner_split_m, end_tuck, on_surface, panels, side_inset,
                                       top_drop, top_half_width)
from geometry.mesh_parts import Part, merge_parts

COLUMN_M = 0.06              # grid column spacing on the sides
ROW_M = 0.025                # grid row spacing (the shoulder's curve)
ARCH_SEGMENTS = 32           # columns over one arch's semicircle
CORNER_SEGMENTS = 6          # columns over each half (45 degrees) of a corner's arc
ACROSS_M = 0.10              # spacing across the end faces' flat part and the hood / deck / roof
ALONG_M = 0.10               # spacing along the roof


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


def corner_stations(body: Body) -> np.ndarray:
    """The corner arc's stations d = r sin(psi) into the last r of the length, psi from the
    side's tangent (0) to the end plane's (90 deg) in 2 CORNER_SEGMENTS steps: the side's grid
    takes the first half, the end face the second (as its own arc angle 90 - psi)."""
    r = corner_radius_m(body)
    return r * np.sin(np.linspace(0.0, math.pi / 2, 2 * CORNER_SEGMENTS + 1))


def end_arc_offsets(body: Body, z: float) -> np.ndarray:
    """The end faces' arc points in a row at height z: how far past w - r in-plane, r sin(phi),
    phi from 0 to where the side's last column (x = L/2 - e) meets the arc: 45 deg, less
    where the face tucks back (`body.end_tuck`, at most e) and the side's column reaches further."""
    r, e = corner_radius_m(body), corner_split_m(body)
    c = min((r - e + float(end_tuck(body, z))) / r, 1.0)
    return r * np.sin(np.linspace(0.0, math.acos(c), CORNER_SEGMENTS + 1))


def _odd(span: float, step: float) -> int:
    """An odd number of grid points (so the middle is one) at most `step` apart over `span`."""
    return 2 * max(1, int(math.ceil(span / step / 2))) + 1


def _across(body: Body) -> np.ndarray:
    """eta samples (-1..1) across the end faces' flat part and the hood's and deck's width,
    the centre line (eta = 0, where the crown's top is) one of them."""
    return np.linspace(-1.0, 1.0, _odd(body.width_m - 2 * corner_radius_m(body), ACROSS_M))


def _rows(z0: float, z1: float, body: Body) -> np.ndarray:
    zs = np.linspace(z0, z1, max(2, int(math.ceil((z1 - z0) / ROW_M)) + 1))
    zb = z1 - TOP_BAND_M
    if abs(z1 - body.beltline_m) < 1e-9 and zb > z0 + 1e-6:   # the top band's lower edge: a crease row
        zs = np.sort(np.append(zs[np.abs(zs - zb) > 1e-6], zb))
    return zs


def _columns(body: Body, panel: str, x0: float, x1: float) -> list[tuple[float, float]]:
    """(x, bottom z) of every grid column, front edge to rear; an arch's vertical sides are two
    columns at one x (inside: the circle's z; outside: the sill); the corner arc's stations
    where the range reaches into the last r of the length."""
    zc = body.clearance_m
    xs = set(np.linspace(x0, x1, max(2, int(math.ceil((x1 - x0) / COLUMN_M)) + 1)).tolist())
    r = body.arch_radius_m()
    for xa in arch_axles(body, panel):
        xs |= {float(xa + r * math.cos(t)) for t in np.linspace(0.0, math.pi, ARCH_SEGMENTS + 1)}
    L2, rc = body.length_m / 2, corner_radius_m(body)
    for d in corner_stations(body)[:CORNER_SEGMENTS + 1]:
        xs |= {float(L2 - rc + d), float(-(L2 - rc + d))}
    xs |= {float(body.x_windshield_base()), float(body.x_rear_glass_base())}   # where the crowned hood / deck end
    xs = sorted(x for x in xs if x0 - 1e-9 <= x <= x1 + 1e-9)
    keep = [xs[0]] + [x for a, x in zip(xs, xs[1:]) if x - a > 1e-6]   # a station on a grid line: one column
    xs = keep if abs(keep[-1] - x1) < 1e-6 else keep[:-1] + [x1]
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


def side_range(body: Body, rect: PanelRect) -> tuple[float, float]:
    """The x range a side rectangle's mesh covers: the rectangle less `corner_split_m` at an end plane."""
    c, L2, e = rect.center[0], body.length_m / 2, corner_split_m(body)
    x0, x1 = c - rect.half_u, c + rect.half_u
    return (max(x0, -L2 + e), min(x1, L2 - e))


def side_part(body: Body, rect: PanelRect) -> Part:
    c = np.asarray(rect.center, float)
    x0, x1 = side_range(body, rect)
    z0, z1 = c[2] - rect.half_v, c[2] + rect.half_v
    cols = _columns(body, rect.panel, x0, x1)
    zs = _rows(z0, z1, body)
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


def end_row_y(body: Body, z: float) -> np.ndarray:
    """In-plane y of one end-face row, -y to +y: the flat part (`_across` over w - r) and each
    corner's arc half out to the split, w = W/2 - side_inset(z)."""
    r = corner_radius_m(body)
    w = body.width_m / 2 - float(side_inset(body, z))
    arc = (w - r) + end_arc_offsets(body, z)[1:]
    return np.concatenate([-arc[::-1], _across(body) * (w - r), arc])


def end_part(body: Body, rect: PanelRect) -> Part:
    """A front or rear face: rows out to the shaped sides' width at their height, set back
    round the corners (`body.end_setback`), the top band down to the hood's or deck's edge."""
    c = np.asarray(rect.center, float)
    zs = _rows(c[2] - rect.half_v, c[2] + rect.half_v, body)
    rows = [end_row_y(body, z) for z in zs]
    n = len(rows[0])
    V = np.array([[c[0], y, z] for z, ys in zip(zs, rows) for y in ys])
    faces = [(j * n + k, j * n + k + 1, (j + 1) * n + k + 1, (j + 1) * n + k)
             for j in range(len(zs) - 1) for k in range(n - 1)]
    V = on_surface(body, rect.face, V)
    return V, _orient(V, faces, rect.normal())


def _side_stations(body: Body, lo: float, hi: float) -> list[float]:
    """Every x of the sides' grid columns in [lo, hi] (the hood's and deck's columns, so their
    side edges share the side panels' top-row vertices)."""
    xs = []
    for name, rects in panels(body).items():
        for r in rects:
            if r.face == "driver":
                a, b = side_range(body, r)
                xs += [x for x, _ in _columns(body, r.panel, a, b) if lo - 1e-9 <= x <= hi + 1e-9]
    return xs


def top_part(body: Body, rect: PanelRect) -> Part:
    """Hood and deck: columns along x (the sides' grid stations, so the side edges are the side
    panels' top-row vertices, and the corner arc's end-face half),
    each across the outline's width at `_across`; the roof a plain grid. Crowned by
    `body.top_drop`."""
    c = np.asarray(rect.center, float)
    x0, x1 = c[0] - rect.half_v, c[0] + rect.half_v      # top faces: u = -y, v = +x
    L2, roll = body.length_m / 2, float(end_tuck(body, body.beltline_m))
    if rect.panel == "roof":
        xs = np.linspace(x0, x1, _odd(x1 - x0, ALONG_M))        # the centre (the crown's top) a vertex
        hw = body.width_m / 2 - ROOF_INSET_M
        eta = np.linspace(-1.0, 1.0, _odd(2 * hw, ACROSS_M))
        half = np.full(len(xs), hw)
    else:
        x0, x1 = max(x0, -(L2 - roll)), min(x1, L2 - roll)   # the end faces roll back under the leading edge
        ends = [on_surface(body, f, [[s * L2, y, body.beltline_m] for y in end_row_y(body, body.beltline_m)])[:, 0]
                for f, s in (("front", 1.0), ("rear", -1.0))]
        xs = [x0, x1] + _side_stations(body, x0, x1) + list(np.concatenate(ends))    # the end faces' top rows
        xs = sorted(x for x in xs if x0 - 1e-9 <= x <= x1 + 1e-9)
        xs = np.array([xs[0]] + [x for a, x in zip(xs, xs[1:]) if x - a > 1e-6])
        xs[0], xs[-1] = x0, x1
        eta = _across(body)
        half = top_half_width(body, xs)
    n = len(eta)
    V = np.array([[x, e * h, c[2]] for x, h in zip(xs, half) for e in eta])
    faces = [(i * n + k, (i + 1) * n + k, (i + 1) * n + k + 1, i * n + k + 1)
             for i in range(len(xs) - 1) for k in range(n - 1)]
    V[:, 2] -= top_drop(body, rect.panel, V[:, 0], V[:, 1])
    return V, _orient(V, faces, rect.normal())


def rect_part(body: Body, rect: PanelRect) -> Part:
    if rect.face in SIDES:
        return side_part(body, rect)
    if rect.face == "top":
        return top_part(body, rect)
    return end_part(body, rect)


def panel_part(body: Body, rects: list[PanelRect]) -> Part:
    return merge_parts([rect_part(body, r) for r in rects])
