"""Procedural bodies of the infrastructure scenes as numpy parts (no bpy).

Every body is a list of (part, material key) in its agent's body frame: x forward, y
left, z up, origin at the centre of the agent's box (`geometry.timeline.Agent.size`),
so the builder links exactly these vertices and bpy-free code (the scorer, tests)
projects the same ones to get a frame's box without Blender. Every body lies inside
its box; `body_extent` checks it.

Simplified on purpose (docs/envs/warehouse.md): people are rigid (standing pose, no
walk cycle, arms down), built from boxes and prisms; forklifts have a fixed mast and
fork height (a lifted pallet rises a few centimetres off the forks' rest height);
AMRs are a chassis with a lidar puck.
"""
from __future__ import annotations

import numpy as np

from geometry.mesh_parts import Part, box_part, cylinder_part

PERSON_SIZE_XY = (0.40, 0.56)        # depth along the heading, shoulder width with arms
FORKLIFT_SIZE = (3.2, 1.16, 2.25)    # body 2.05 m + forks 1.15 m, width, overhead guard height
FORK_X = (0.6, 1.6)                  # fork blades in the body frame (x, before the box-centre shift)
PALLET_SIZE_XY = (1.2, 1.0)          # EUR pallet
PALLET_H = 0.144
AMR_SIZE = (0.95, 0.65, 0.42)
CARRY_OFFSET_X = 1.15                # a carried pallet's centre ahead of the forklift's box centre


def _box(lo, hi) -> Part:
    return box_part(lo, hi)


def _cyl_y(cx: float, cz: float, radius: float, y0: float, y1: float, segments: int = 16) -> Part:
    """A capped cylinder along y (a wheel) about (cx, cz), outward faces."""
    t = np.arange(segments) * 2 * np.pi / segments
    x, z = cx + radius * np.cos(t), cz + radius * np.sin(t)
    V = np.vstack([np.c_[x, np.full(segments, y0), z], np.c_[x, np.full(segments, y1), z]])
    n = segments
    F = [tuple(range(n)), tuple(range(2 * n - 1, n - 1, -1))]
    F += [(i, n + i, n + (i + 1) % n, (i + 1) % n) for i in range(n)]
    return V, F


def person_parts(height: float) -> list[tuple[Part, str]]:
    """A standing worker `height` m tall: shoes, trousers, shirt, hi-vis vest with two
    reflective bands, arms, head and hard hat."""
    h = float(height)
    zb = -h / 2
    z = lambda f: zb + f * h  # noqa: E731
    out: list[tuple[Part, str]] = []
    for side in (-1, 1):
        y0, y1 = sorted((side * 0.04, side * 0.16))
        out.append((_box((-0.08, y0, z(0.035)), (0.08, y1, z(0.48))), "trousers"))
        out.append((_box((-0.10, y0 - 0.005, zb), (0.15, y1 + 0.005, z(0.035))), "shoes"))
        ya0, ya1 = sorted((side * 0.215, side * 0.28))
        out.append((_box((-0.055, ya0, z(0.50)), (0.055, ya1, z(0.815))), "shirt"))
        out.append((_box((-0.045, ya0 + 0.005, z(0.43)), (0.045, ya1 - 0.005, z(0.50))), "skin"))
    out.append((_box((-0.11, -0.20, z(0.47)), (0.11, 0.20, z(0.83))), "shirt"))
    out.append((_box((-0.13, -0.212, z(0.55)), (0.13, 0.212, z(0.815))), "vest"))
    for f in (0.60, 0.70):
        out.append((_box((-0.135, -0.214, z(f)), (0.135, 0.214, z(f + 0.025))), "reflective"))
    out.append((cylinder_part((0.0, 0.0), 0.05, z(0.83), z(0.87), 10), "skin"))
    out.append((cylinder_part((0.01, 0.0), 0.095, z(0.865), z(0.955), 12), "skin"))
    out.append((cylinder_part((0.01, 0.0), 0.118, z(0.935), z(0.965), 14), "hat"))
    out.append((cylinder_part((0.0, 0.0), 0.10, z(0.965), z(1.0), 14), "hat"))
    return out


def forklift_parts() -> list[tuple[Part, str]]:
    """A counterbalance forklift facing +x: chassis and counterweight, four wheels,
    overhead guard on four posts, seat and a seated operator's torso, mast, carriage and
    two fork blades. The box centre is the middle of body + forks."""
    L, W, H = FORKLIFT_SIZE
    shift = -(1.6 - L / 2)        # parts are authored with the rear at x = -1.6 and the fork tips at 1.6
    zb = -H / 2
    parts: list[tuple[Part, str]] = []

    def add(p: Part, m: str):
        V, F = p
        V = np.asarray(V, float) + np.array([shift, 0.0, zb])
        parts.append(((V, F), m))

    add(_box((-1.45, -0.55, 0.18), (0.45, 0.55, 0.95)), "paint")            # chassis
    add(_box((-1.60, -0.56, 0.15), (-1.05, 0.56, 1.15)), "counterweight")    # counterweight
    add(_box((-0.75, -0.25, 0.95), (-0.35, 0.25, 1.10)), "dark")             # seat
    add(_box((-0.62, -0.18, 1.10), (-0.38, 0.18, 1.55)), "vest")             # operator torso
    add(cylinder_part((-0.50, 0.0), 0.10, 1.55, 1.78, 12), "skin")           # operator head
    add(cylinder_part((-0.50, 0.0), 0.12, 1.74, 1.80, 12), "hat")
    for x in (-1.25, 0.25):                                                  # guard posts
        for y in (-0.5, 0.5):
            add(_box((x - 0.035, y - 0.035, 0.95), (x + 0.035, y + 0.035, 2.15)), "dark")
    add(_box((-1.30, -0.55, 2.15), (0.30, 0.55, 2.20)), "dark")              # guard roof
    for x in (-1.05, 0.05):                                                  # wheels
        for y0, y1 in ((-0.58, -0.36), (0.36, 0.58)):
            add(_cyl_y(x, 0.27, 0.27, y0, y1), "tyre")
    for y in (-0.38, 0.38):                                                  # mast rails
        add(_box((0.45, y - 0.05, 0.05), (0.55, y + 0.05, 2.25)), "mast")
    add(_box((0.52, -0.45, 0.05), (0.60, 0.45, 0.60)), "mast")               # carriage
    for y0, y1 in ((-0.37, -0.25), (0.25, 0.37)):                            # forks
        add(_box((FORK_X[0], y0, 0.04), (FORK_X[1], y1, 0.09)), "fork")
    return parts


def pallet_parts(load_h: float, load_kind: str) -> list[tuple[Part, str]]:
    """A EUR pallet (top deck, nine blocks, three bottom boards; fork pockets across x)
    and its load: a stack of cartons or a shrink-wrapped block, `load_h` m tall."""
    lx, ly = PALLET_SIZE_XY
    H = PALLET_H + load_h
    zb = -H / 2
    parts: list[tuple[Part, str]] = []
    parts.append((_box((-lx / 2, -ly / 2, zb + 0.122), (lx / 2, ly / 2, zb + PALLET_H)), "wood"))
    for x in (-lx / 2 + 0.05, 0.0, lx / 2 - 0.05):
        parts.append((_box((x - 0.05, -ly / 2, zb), (x + 0.05, ly / 2, zb + 0.022)), "wood"))
        for y in (-ly / 2 + 0.05, 0.0, ly / 2 - 0.05):
            parts.append((_box((x - 0.05, y - 0.05, zb + 0.022), (x + 0.05, y + 0.05, zb + 0.122)), "wood"))
    if load_h > 0:
        z0 = zb + PALLET_H
        if load_kind == "wrapped":
            parts.append((_box((-0.58, -0.48, z0), (0.58, 0.48, z0 + load_h)), "wrap"))
        else:                                           # cartons in two columns, layers of ~0.3 m
            layers = max(1, int(round(load_h / 0.3)))
            dz = load_h / layers
            for k in range(layers):
                for i, (x0, x1) in enumerate(((-0.58, -0.005), (0.005, 0.58))):
                    for j, (y0, y1) in enumerate(((-0.48, -0.005), (0.005, 0.48))):
                        m = "carton" if (i + j + k) % 3 else "carton_dark"
                        parts.append((_box((x0, y0, z0 + k * dz), (x1, y1, z0 + (k + 1) * dz - 0.004)), m))
    return parts


def amr_parts(with_tote: bool) -> list[tuple[Part, str]]:
    """An autonomous mobile robot facing +x: a low chassis, bumper band, lidar puck and
    optionally a tote on top (the box height is the same either way)."""
    L, W, H = AMR_SIZE
    zb = -H / 2
    parts: list[tuple[Part, str]] = [
        (_box((-L / 2, -W / 2, zb + 0.04), (L / 2, W / 2, zb + 0.26)), "paint"),
        (_box((-L / 2 - 0.0, -W / 2, zb + 0.06), (L / 2, W / 2, zb + 0.10)), "bumper"),
        (_box((-L / 2 + 0.02, -W / 2 + 0.02, zb), (L / 2 - 0.02, W / 2 - 0.02, zb + 0.04)), "tyre"),
        (cylinder_part((L / 2 - 0.14, 0.0), 0.06, zb + 0.26, zb + 0.32, 12), "dark"),
    ]
    if with_tote:
        parts.append((_box((-0.36, -0.27, zb + 0.26), (0.26, 0.27, zb + H)), "tote"))
    return parts


def body_parts(kind: str, params: dict) -> list[tuple[Part, str]]:
    """The body of an agent from its look's kind and parameters."""
    if kind == "person":
        return person_parts(params["height"])
    if kind == "forklift":
        return forklift_parts()
    if kind == "pallet":
        return pallet_parts(params["load_h"], params["load_kind"])
    if kind == "amr":
        return amr_parts(bool(params["tote"]))
    raise ValueError(f"unknown body kind {kind!r}")


def body_vertices(kind: str, params: dict) -> np.ndarray:
    """(n, 3) body-frame vertices of the whole body."""
    return np.vstack([np.asarray(p[0], float) for p, _ in body_parts(kind, params)])


def body_extent(kind: str, params: dict) -> tuple[np.ndarray, np.ndarray]:
    V = body_vertices(kind, params)
    return V.min(axis=0), V.max(axis=0)
