"""The warehouse's static parts as data and numpy parts (no bpy): pallet racks, floor
markings (aisle lines, walkway, the restricted zone's red border and hatching), walls and
high-bay lamps. The builder links exactly these parts; the scorer never needs them
(static things are no tracks), but their meshes are exported like every object.
"""
from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel, ConfigDict

from blender_envs.infra.bodies import PALLET_H, pallet_parts
from geometry.mesh_parts import Part, box_part

RACK_DEPTH = 1.1
BAY_LEN = 2.7
UPRIGHT = 0.09
BEAM_H = 0.12
MARK_Z = 0.003        # floor paint thickness (above the floor, below every body)


class RackLoad(BaseModel):
    model_config = ConfigDict(extra="forbid")
    bay: int
    level: int
    load_h: float
    kind: str          # "cartons" | "wrapped"


class Rack(BaseModel):
    """A row of pallet-rack bays from `origin` ([x, y] of one front corner) along `axis`
    ("x" or "y", positive direction), `depth` deep towards `depth_sign` of the other axis."""

    model_config = ConfigDict(extra="forbid")
    name: str
    origin: list[float]
    axis: str
    depth_sign: int
    bays: int
    levels: list[float]      # beam heights (m), the floor level excluded
    height: float
    loads: list[RackLoad]


class Stripe(BaseModel):
    """A painted floor stripe from p0 to p1 ([x, y]), `width` m wide."""

    model_config = ConfigDict(extra="forbid")
    p0: list[float]
    p1: list[float]
    width: float
    paint: str         # "yellow" | "white" | "red" | "green"


class Clutter(BaseModel):
    """A static thing on the floor: a stack of empty pallets, a loaded pallet or a bin."""

    model_config = ConfigDict(extra="forbid")
    kind: str          # "pallet_stack" | "loaded_pallet" | "bin"
    position: list[float]
    yaw_deg: float
    count: int = 1     # pallets in a stack
    load_h: float = 0.0
    load_kind: str = "cartons"


class Zone(BaseModel):
    """A marked restricted zone: a ground polygon (counter-clockwise [x, y] corners)."""

    model_config = ConfigDict(extra="forbid")
    name: str
    polygon: list[list[float]]


def _rack_frame(rack: Rack):
    """(origin, along unit vector, depth unit vector) in the ground plane."""
    o = np.array(rack.origin, float)
    along = np.array([1.0, 0.0]) if rack.axis == "x" else np.array([0.0, 1.0])
    across = np.array([0.0, 1.0]) if rack.axis == "x" else np.array([1.0, 0.0])
    return o, along, across * rack.depth_sign


def _slab(o, along, across, a0, a1, d0, d1, z0, z1) -> Part:
    """A box spanning [a0, a1] along, [d0, d1] across, [z0, z1] up, from origin o."""
    corners = [o + along * a + across * d for a in (a0, a1) for d in (d0, d1)]
    xs = [c[0] for c in corners]
    ys = [c[1] for c in corners]
    return box_part((min(xs), min(ys), z0), (max(xs), max(ys), z1))


def rack_parts(rack: Rack) -> list[tuple[Part, str]]:
    """Uprights, beams, wire decks and the loaded pallets of one rack row."""
    o, along, across = _rack_frame(rack)
    L = rack.bays * BAY_LEN
    parts: list[tuple[Part, str]] = []
    for k in range(rack.bays + 1):
        a = k * BAY_LEN
        for d in (0.0, RACK_DEPTH - UPRIGHT):
            parts.append((_slab(o, along, across, a - UPRIGHT / 2, a + UPRIGHT / 2, d, d + UPRIGHT, 0.0, rack.height),
                          "upright"))
        for z in np.arange(0.35, rack.height, 0.9):          # frame bracing between the two uprights
            parts.append((_slab(o, along, across, a - 0.02, a + 0.02, UPRIGHT, RACK_DEPTH - UPRIGHT, z, z + 0.04),
                          "upright"))
    for z in rack.levels:
        for d in (0.0, RACK_DEPTH - 0.06):
            parts.append((_slab(o, along, across, 0.0, L, d, d + 0.06, z - BEAM_H, z), "beam"))
        parts.append((_slab(o, along, across, 0.0, L, 0.06, RACK_DEPTH - 0.06, z - 0.03, z - 0.01), "deck"))
    floor_levels = [0.0] + list(rack.levels)
    for ld in rack.loads:
        z0 = floor_levels[ld.level]
        for j in range(2):                                   # two pallets per bay, side by side
            centre_a = ld.bay * BAY_LEN + (0.5 + j) * BAY_LEN / 2
            c = o + along * centre_a + across * (RACK_DEPTH / 2)
            yaw = math.atan2(across[1], across[0])           # pallet long side across the rack
            H = PALLET_H + ld.load_h
            M = np.eye(4)
            cz, sz = math.cos(yaw), math.sin(yaw)
            M[:3, :3] = [[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]]
            M[:3, 3] = [c[0], c[1], z0 + H / 2]
            for (V, F), m in pallet_parts(ld.load_h, ld.kind):
                V = np.asarray(V) * np.array([0.9, 1.0, 1.0])  # 1.08 m across a 1.1 m deep rack
                parts.append(((V @ M[:3, :3].T + M[:3, 3], F), m))
    return parts


def stripe_part(s: Stripe) -> Part:
    p0, p1 = np.array(s.p0, float), np.array(s.p1, float)
    d = p1 - p0
    n = np.array([-d[1], d[0]]) / np.linalg.norm(d) * s.width / 2
    V = np.array([[*(p0 - n), MARK_Z], [*(p1 - n), MARK_Z], [*(p1 + n), MARK_Z], [*(p0 + n), MARK_Z]])
    return V, [(0, 1, 2, 3)]


def zone_stripes(zone: Zone, border: float = 0.12, pitch: float = 0.6, hatch: float = 0.08) -> list[Stripe]:
    """A red border along the polygon's inside edge and 45-degree hatching clipped to it
    (an axis-aligned rectangle: the only zones drawn)."""
    P = np.array(zone.polygon, float)
    out = []
    for a, b in zip(P, np.roll(P, -1, axis=0)):
        d = (b - a) / np.linalg.norm(b - a)
        inward = np.array([-d[1], d[0]]) * border / 2
        out.append(Stripe(p0=(a + inward - d * border / 2).tolist(), p1=(b + inward + d * border / 2).tolist(),
                          width=border, paint="red"))
    x0, y0 = P.min(axis=0) + border
    x1, y1 = P.max(axis=0) - border
    c = x0 - (y1 - y0)
    while c < x1:                                # lines x - y = c - y0 ... clipped to the rectangle
        pts = []
        for y in (y0, y1):
            x = c + (y - y0)
            if x0 <= x <= x1:
                pts.append((x, y))
        for x in (x0, x1):
            y = y0 + (x - c)
            if y0 < y < y1:
                pts.append((x, y))
        if len(pts) >= 2:
            pts = sorted(pts)
            a, b = np.array(pts[0]), np.array(pts[-1])
            if np.linalg.norm(b - a) > 0.05:
                out.append(Stripe(p0=a.tolist(), p1=b.tolist(), width=hatch, paint="red"))
        c += pitch
    return out


def clutter_parts(c: Clutter) -> list[tuple[Part, str]]:
    """World-space parts of one clutter item."""
    if c.kind == "pallet_stack":
        local = []
        for k in range(c.count):
            for (V, F), m in pallet_parts(0.0, "cartons"):
                local.append(((np.asarray(V) + [0.0, 0.0, PALLET_H / 2 + k * PALLET_H], F), m))
    elif c.kind == "loaded_pallet":
        local = [((np.asarray(V) + [0.0, 0.0, (PALLET_H + c.load_h) / 2], F), m)
                 for (V, F), m in pallet_parts(c.load_h, c.load_kind)]
    elif c.kind == "bin":
        local = [(box_part((-0.4, -0.3, 0.0), (0.4, 0.3, 0.75)), "bin"),
                 (box_part((-0.42, -0.32, 0.72), (0.42, 0.32, 0.78)), "bin_lid")]
    else:
        raise ValueError(f"unknown clutter kind {c.kind!r}")
    a = math.radians(c.yaw_deg)
    R = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1.0]])
    t = np.array([c.position[0], c.position[1], 0.0])
    return [((np.asarray(V) @ R.T + t, F), m) for (V, F), m in local]
