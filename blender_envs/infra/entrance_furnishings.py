"""A lobby's furnishings as numpy parts (no bpy): the reception desk, sofas, armchairs, low
tables, planters of three sizes, a water dispenser; and what hangs on or opens in the walls
(posters, a directory board, window bays with mullions, skirting). The builder links exactly
these parts, and `footprint` (the floor rectangle of an item's parts) is what every people
rule keeps clear of, so the two cannot disagree.

Items are drawn in a local frame: x along the item, its front towards local -y, its back at
the largest local y (placed against a wall). Parts touch, never overlap in a shared face
(two faces lying on each other render black in Cycles).
"""
from __future__ import annotations

import math

import numpy as np

from geometry.mesh_parts import Part, box_part, cylinder_part
from geometry.polygons import rect_poly

PLANTER_RADIUS = {"planter_small": 0.18, "planter_tall": 0.3}
DESK_DEPTH = 0.75          # the reception desk's body, front panel to back
STAFF_M = 0.85             # the staff side behind the desk (the chair's room)


def reception_parts(length: float) -> list[tuple[Part, str]]:
    """A desk with a raised counter along its front, a monitor and a staff chair behind it."""
    h = length / 2
    d0, d1 = -DESK_DEPTH / 2, DESK_DEPTH / 2
    parts = [(box_part((-h, d0 + 0.06, 0.0), (h, d1, 0.74)), "desk"),             # the work desk
             (box_part((-h, d0, 0.0), (h, d0 + 0.06, 1.06)), "desk_front"),      # the raised front panel
             (box_part((-h - 0.04, d0 - 0.12, 1.06), (h + 0.04, d0 + 0.22, 1.1)), "counter")]
    for x in (-h * 0.45, h * 0.45):
        parts += [(box_part((x - 0.04, 0.05, 0.74), (x + 0.04, 0.11, 0.84)), "metal"),
                  (box_part((x - 0.26, 0.06, 0.84), (x + 0.26, 0.09, 1.18)), "screen")]
    cy = d1 + STAFF_M / 2 + 0.05
    parts += [(cylinder_part((0.0, cy), 0.04, 0.0, 0.44, 8), "metal"),
              (box_part((-0.25, cy - 0.24, 0.44), (0.25, cy + 0.22, 0.52)), "chair"),
              (box_part((-0.23, cy + 0.22, 0.52), (0.23, cy + 0.3, 1.0)), "chair")]
    return parts


def sofa_parts(length: float) -> list[tuple[Part, str]]:
    """A sofa (or, 0.85 m long, an armchair): plinth, seat base, cushions, arms, back."""
    h, d = length / 2, 0.42
    arm = 0.16
    return [(box_part((-h + 0.06, -d + 0.06, 0.0), (h - 0.06, d - 0.06, 0.1)), "plinth"),
            (box_part((-h, -d, 0.1), (h, d, 0.4)), "fabric"),
            (box_part((-h + arm, -d, 0.4), (h - arm, d - 0.2, 0.5)), "cushion"),
            (box_part((-h, -d, 0.4), (-h + arm, d - 0.2, 0.64)), "fabric"),
            (box_part((h - arm, -d, 0.4), (h, d - 0.2, 0.64)), "fabric"),
            (box_part((-h, d - 0.2, 0.4), (h, d, 0.84)), "fabric")]


def low_table_parts(length: float) -> list[tuple[Part, str]]:
    h, d = length / 2, 0.3
    parts = [(box_part((-h, -d, 0.36), (h, d, 0.41)), "wood")]
    for sx in (-1, 1):
        for sy in (-1, 1):
            x, y = sx * (h - 0.06), sy * (d - 0.06)
            parts.append((box_part((x - 0.025, y - 0.025, 0.0), (x + 0.025, y + 0.025, 0.36)), "metal"))
    return parts


def planter_small_parts() -> list[tuple[Part, str]]:
    r = PLANTER_RADIUS["planter_small"]
    return [(cylinder_part((0.0, 0.0), r, 0.0, 0.38, 14), "pot"),
            (cylinder_part((0.0, 0.0), r + 0.06, 0.38, 0.7, 9), "plant"),
            (cylinder_part((0.0, 0.0), r - 0.04, 0.7, 0.86, 7), "plant")]


def planter_tall_parts() -> list[tuple[Part, str]]:
    """A potted indoor tree: a pot, a trunk and three foliage tiers up to 2.2 m."""
    r = PLANTER_RADIUS["planter_tall"]
    return [(cylinder_part((0.0, 0.0), r, 0.0, 0.5, 16), "pot"),
            (cylinder_part((0.0, 0.0), 0.035, 0.5, 1.0, 6), "trunk"),
            (cylinder_part((0.0, 0.0), r + 0.08, 1.0, 1.55, 10), "plant"),
            (cylinder_part((0.0, 0.0), r - 0.02, 1.55, 1.95, 9), "plant"),
            (cylinder_part((0.0, 0.0), r - 0.14, 1.95, 2.2, 7), "plant")]


def water_dispenser_parts() -> list[tuple[Part, str]]:
    return [(box_part((-0.16, -0.16, 0.0), (0.16, 0.16, 1.0)), "appliance"),
            (box_part((-0.06, -0.19, 0.78), (0.06, -0.16, 0.86)), "metal"),
            (cylinder_part((0.0, 0.0), 0.13, 1.0, 1.4, 14), "bottle")]


NEW_KINDS = {"reception", "sofa", "armchair", "low_table", "planter_small", "planter_tall", "water_dispenser"}


def local_parts(kind: str, size: list[float]) -> list[tuple[Part, str]]:
    """An item's parts in its local frame (`size[0]` its length where the kind draws one)."""
    if kind == "reception":
        return reception_parts(size[0])
    if kind == "sofa":
        return sofa_parts(size[0])
    if kind == "armchair":
        return sofa_parts(0.85)
    if kind == "low_table":
        return low_table_parts(size[0])
    if kind == "planter_small":
        return planter_small_parts()
    if kind == "planter_tall":
        return planter_tall_parts()
    if kind == "water_dispenser":
        return water_dispenser_parts()
    raise ValueError(f"unknown furnishing kind {kind!r}")


def local_bounds(parts: list[tuple[Part, str]]) -> np.ndarray:
    """[x0, y0, x1, y1] of the parts' vertices in their frame."""
    V = np.vstack([np.asarray(p[0], float) for p, _ in parts])
    return np.array([V[:, 0].min(), V[:, 1].min(), V[:, 0].max(), V[:, 1].max()])


def place(parts: list[tuple[Part, str]], position, yaw_deg: float) -> list[tuple[Part, str]]:
    a = math.radians(yaw_deg)
    R = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1.0]])
    t = np.array([position[0], position[1], 0.0])
    return [((np.asarray(V, float) @ R.T + t, F), m) for (V, F), m in parts]


def footprint_of(parts_local: list[tuple[Part, str]], position, yaw_deg: float) -> np.ndarray:
    """The (4, 2) floor rectangle (counter-clockwise) of parts at a pose: their local bounding
    rectangle, turned and moved."""
    a = math.radians(yaw_deg)
    R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return rect_poly(local_bounds(parts_local)) @ R.T + np.asarray(position, float)


# ------------------------------------------------------------------ on the walls

def wall_frame(wall: str, lobby: list[float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a point of the wall's lobby face at u = 0, the unit vector along it (u), the unit normal
    into the lobby) for 'left', 'right' (u = y) or 'door' (u = x; the face WALL_T / 2 in front
    of the door line lobby[3])."""
    x0, _, x1, yw = lobby
    if wall == "left":
        return np.array([x0, 0.0]), np.array([0.0, 1.0]), np.array([1.0, 0.0])
    if wall == "right":
        return np.array([x1, 0.0]), np.array([0.0, 1.0]), np.array([-1.0, 0.0])
    if wall == "door":
        return np.array([0.0, yw - 0.1]), np.array([1.0, 0.0]), np.array([0.0, -1.0])
    raise ValueError(f"unknown wall {wall!r}")


def _wall_box(o, u_dir, n, u0: float, u1: float, d0: float, d1: float, z0: float, z1: float) -> Part:
    """A box on a wall: u0..u1 along it, d0..d1 out of its face, z0..z1 up."""
    a = o + u_dir * u0 + n * d0
    b = o + u_dir * u1 + n * d1
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return box_part((lo[0], lo[1], z0), (hi[0], hi[1], z1))


def poster_parts(wall: str, lobby, u: float, z: float, w: float, h: float, kind: str) -> list[tuple[Part, str]]:
    """A framed poster (a print with a band of a second colour) or a directory board (a dark
    board with light lines of names), each layer on the face of the one below."""
    o, ud, n = wall_frame(wall, lobby)
    parts = [(_wall_box(o, ud, n, u - w / 2, u + w / 2, 0.0, 0.02, z - h / 2, z + h / 2), "poster_frame")]
    m = 0.035
    if kind == "directory":
        parts.append((_wall_box(o, ud, n, u - w / 2 + m, u + w / 2 - m, 0.02, 0.024, z - h / 2 + m, z + h / 2 - m),
                      "directory"))
        top = z + h / 2 - m - 0.08
        for i in range(int((h - 2 * m - 0.12) / 0.07)):
            zz = top - i * 0.07
            ln = (w - 2 * m - 0.12) * (0.55 + 0.4 * ((i * 7919) % 5) / 4)
            parts.append((_wall_box(o, ud, n, u - w / 2 + m + 0.06, u - w / 2 + m + 0.06 + ln, 0.024, 0.026,
                                    zz - 0.012, zz + 0.012), "lettering"))
        return parts
    parts.append((_wall_box(o, ud, n, u - w / 2 + m, u + w / 2 - m, 0.02, 0.024, z - h / 2 + m, z + h / 2 - m),
                  f"{kind}_print"))
    parts.append((_wall_box(o, ud, n, u - w / 2 + m, u + w / 2 - m, 0.024, 0.026, z - h / 2 + m + 0.12 * h,
                            z - h / 2 + m + 0.34 * h), f"{kind}_band"))
    return parts


def window_wall_parts(wall: str, lobby, y_lo: float, y_hi: float, bays: list[list[float]], sill: float,
                      head: float, height: float) -> list[tuple[Part, str]]:
    """A 0.2 m side wall (outside the lobby face) from y_lo to y_hi with window bays
    ([y0, y1] each) open from `sill` to `head`: solid piers, the wall below and above each bay,
    and in each bay a frame, one mullion and one transom, all in the wall's middle."""
    x_face = lobby[0] if wall == "left" else lobby[2]
    xo = x_face - 0.2 if wall == "left" else x_face           # the wall's outer x range xo..xo + 0.2
    wall_parts: list[tuple[Part, str]] = []
    y = y_lo
    for y0, y1 in bays:
        wall_parts.append((box_part((xo, y, 0.0), (xo + 0.2, y0, height)), "side"))
        wall_parts += [(box_part((xo, y0, 0.0), (xo + 0.2, y1, sill)), "side"),
                       (box_part((xo, y0, head), (xo + 0.2, y1, height)), "side")]
        y = y1
    wall_parts.append((box_part((xo, y, 0.0), (xo + 0.2, y_hi, height)), "side"))
    f, m0, m1 = 0.05, xo + 0.07, xo + 0.13
    for y0, y1 in bays:
        ym = 0.5 * (y0 + y1)
        wall_parts += [(box_part((m0, y0, sill), (m1, y0 + f, head)), "mullion"),
                       (box_part((m0, y1 - f, sill), (m1, y1, head)), "mullion"),
                       (box_part((m0, y0 + f, sill), (m1, y1 - f, sill + f)), "mullion"),
                       (box_part((m0, y0 + f, head - f), (m1, y1 - f, head)), "mullion"),
                       (box_part((m0, ym - f / 2, sill + f), (m1, ym + f / 2, head - f)), "mullion")]
        zt = min(sill + 1.75, head - 0.4)
        for a, b in ((y0 + f, ym - f / 2), (ym + f / 2, y1 - f)):
            wall_parts.append((box_part((m0, a, zt - f / 2), (m1, b, zt + f / 2)), "mullion"))
    return wall_parts


def skirting_parts(wall: str, lobby, spans: list[list[float]]) -> list[tuple[Part, str]]:
    """A 10 cm skirting board 12 mm proud of a side wall's face over each [u0, u1] span."""
    o, ud, n = wall_frame(wall, lobby)
    return [(_wall_box(o, ud, n, a, b, 0.0, 0.012, 0.0, 0.1), "skirting") for a, b in spans if b - a > 0.05]
