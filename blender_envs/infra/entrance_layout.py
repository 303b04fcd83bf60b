"""The entrance's static parts and the door panel as numpy parts (no bpy): the wall with the
door opening and its frame, the secure corridor behind it, the badge reader, the floor
mat, lobby furniture. The builder links exactly these parts; `door_panel_parts` is also
what the scorer projects for the door's box.
"""
from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict

from blender_envs.infra import entrance_furnishings as furnishings
from geometry.mesh_parts import Part, box_part, cylinder_part
from geometry.polygons import nearest_poly_distance

WALL_T = 0.2           # the door wall's thickness (the door line is its middle plane)
DOOR_W = 1.0           # clear opening
DOOR_H = 2.1
PANEL_SIZE = (0.96, 0.05, 2.08)   # the door agent's box: along the panel, thickness, height
FRAME_W = 0.07
READER_Z = 1.15        # the reader's centre height on the wall
READER_OFFSET = 0.15   # from the opening's latch edge to the reader's centre (along the wall)
MAT_Z = 0.004


class Furniture(BaseModel):
    """A static lobby thing standing at `position` ([x, y]): a bench, a planter or a bin (the
    first draw), or one of `entrance_furnishings.NEW_KINDS` (the lobby stage's draw)."""

    model_config = ConfigDict(extra="forbid")
    kind: str          # "bench" | "planter" | "bin" | entrance_furnishings.NEW_KINDS
    position: list[float]
    yaw_deg: float
    size: list[float] = []   # [length] for the kinds that draw one (reception, sofa, low_table)


FURNITURE_HALF_DIAG = 0.85   # the largest (a 1.6 x 0.45 m bench) within this of its position


def door_panel_parts() -> list[tuple[Part, str]]:
    """A door leaf in its box frame (x hinge -> latch, y thickness, z up): the leaf, a tall
    narrow vision panel, and a pull handle near the latch edge on both faces."""
    L, T, H = PANEL_SIZE
    x0, x1, z0, z1 = -L / 2, L / 2, -H / 2, H / 2
    parts = [(box_part((x0, -0.015, z0), (x1, 0.015, z1)), "door")]
    parts.append((box_part((x0 + 0.55, -0.018, z0 + 1.0), (x0 + 0.72, 0.018, z0 + 1.85)), "glass"))
    for s in (-1, 1):
        y0, y1 = sorted((s * 0.015, s * 0.025))
        parts.append((box_part((x1 - 0.12, y0, z0 + 0.85), (x1 - 0.08, y1, z0 + 1.25)), "handle"))
    parts.append((box_part((x0, -0.016, z0), (x1, 0.016, z0 + 0.25)), "kick"))
    return parts


def door_wall_parts(x_lo: float, x_hi: float, y: float, door_x: float, height: float) -> list[tuple[Part, str]]:
    """The wall along x at y (thickness WALL_T) from x_lo to x_hi with the door opening, a
    dark frame round the opening on the lobby face and a skirting on the lobby face."""
    y0, y1 = y - WALL_T / 2, y + WALL_T / 2
    a, b = door_x - DOOR_W / 2, door_x + DOOR_W / 2
    parts = [(box_part((x_lo, y0, 0.0), (a, y1, height)), "wall"),
             (box_part((b, y0, 0.0), (x_hi, y1, height)), "wall"),
             (box_part((a, y0, DOOR_H), (b, y1, height)), "wall")]
    f = FRAME_W
    parts += [(box_part((a - f, y0 - 0.02, 0.0), (a, y1 + 0.02, DOOR_H + f)), "frame"),
              (box_part((b, y0 - 0.02, 0.0), (b + f, y1 + 0.02, DOOR_H + f)), "frame"),
              (box_part((a, y0 - 0.02, DOOR_H), (b, y1 + 0.02, DOOR_H + f)), "frame")]
    for lo, hi in ((x_lo, a - f), (b + f, x_hi)):
        if hi - lo > 0.05:
            parts.append((box_part((lo, y0 - 0.012, 0.0), (hi, y0, 0.1)), "skirting"))
    parts.append((box_part((door_x - 0.35, y0 - 0.015, DOOR_H + 0.2), (door_x + 0.35, y0, DOOR_H + 0.42)),
                  "sign"))
    return parts


def room_walls(x_lo: float, y_lo: float, x_hi: float, y_hi: float, height: float, leave_out: tuple[str, ...]
               ) -> list[tuple[Part, str]]:
    """Walls round a rectangle (outside it, 0.2 m thick) but the sides in `leave_out`
    ("bottom", "top", "left", "right")."""
    t = 0.2
    sides = {"bottom": ((x_lo - t, y_lo - t, 0.0), (x_hi + t, y_lo, height)),
             "top": ((x_lo - t, y_hi, 0.0), (x_hi + t, y_hi + t, height)),
             "left": ((x_lo - t, y_lo, 0.0), (x_lo, y_hi, height)),
             "right": ((x_hi, y_lo, 0.0), (x_hi + t, y_hi, height))}
    return [(box_part(*v), "wall") for k, v in sides.items() if k not in leave_out]


def side_wall_with_opening(x: float, y_lo: float, y_hi: float, gap: tuple[float, float], height: float
                           ) -> list[tuple[Part, str]]:
    """A 0.2 m wall along y from x to x + 0.2 with a 2.3 m high opening over `gap`."""
    g0, g1 = gap
    return [(box_part((x, y_lo, 0.0), (x + 0.2, g0, height)), "wall"),
            (box_part((x, g1, 0.0), (x + 0.2, y_hi, height)), "wall"),
            (box_part((x, g0, 2.3), (x + 0.2, g1, height)), "wall")]


def reader_parts(x: float, y_face: float) -> list[tuple[Part, str]]:
    """A badge reader on the lobby face of the wall (the face at y_face, the lobby at smaller
    y): a dark housing with a light card pad and a status LED."""
    z = READER_Z
    return [(box_part((x - 0.045, y_face - 0.035, z - 0.075), (x + 0.045, y_face, z + 0.075)), "reader"),
            (box_part((x - 0.032, y_face - 0.038, z - 0.045), (x + 0.032, y_face - 0.035, z + 0.035)), "pad"),
            (box_part((x - 0.012, y_face - 0.039, z + 0.048), (x + 0.012, y_face - 0.035, z + 0.062)), "led")]


def mat_part(door_x: float, y_face: float) -> Part:
    return box_part((door_x - 0.8, y_face - 1.2, 0.0), (door_x + 0.8, y_face, MAT_Z))


def _local_furniture_parts(f: Furniture) -> list[tuple[Part, str]]:
    if f.kind in furnishings.NEW_KINDS:
        return furnishings.local_parts(f.kind, f.size)
    if f.kind == "bench":
        local = [(box_part((-0.8, -0.22, 0.40), (0.8, 0.22, 0.46)), "seat")]
        for x in (-0.7, 0.7):
            local.append((box_part((x - 0.03, -0.2, 0.0), (x + 0.03, 0.2, 0.40)), "metal"))
    elif f.kind == "planter":
        local = [(cylinder_part((0.0, 0.0), 0.28, 0.0, 0.55, 16), "pot"),
                 (cylinder_part((0.0, 0.0), 0.36, 0.55, 1.25, 10), "plant"),
                 (cylinder_part((0.0, 0.0), 0.24, 1.25, 1.55, 8), "plant")]
    elif f.kind == "bin":
        local = [(cylinder_part((0.0, 0.0), 0.18, 0.0, 0.7, 14), "metal")]
    else:
        raise ValueError(f"unknown furniture kind {f.kind!r}")
    return local


def furniture_parts(f: Furniture) -> list[tuple[Part, str]]:
    """World-space parts of one furniture item."""
    return furnishings.place(_local_furniture_parts(f), f.position, f.yaw_deg)


def furniture_footprint(f: Furniture) -> np.ndarray:
    """The (4, 2) floor rectangle that holds every part of the item (what people keep clear of)."""
    return furnishings.footprint_of(_local_furniture_parts(f), f.position, f.yaw_deg)


def furniture_distance(xy, items: list[Furniture]) -> np.ndarray:
    """Distance of floor points (N, 2) to the nearest item's footprint (0 inside; inf if none)."""
    p = np.atleast_2d(np.asarray(xy, float))
    if not items:
        return np.full(len(p), np.inf)
    return nearest_poly_distance(p, [furniture_footprint(f) for f in items])
