"""Road users of the intersection as numpy parts or points in their agent's box frame (no bpy).

Frame as `bodies`: x forward, y left, z up, origin at the centre of the agent's box, every
part inside the box. New bodies: a motorcycle with its rider and a bicycle with its rider.
Reused ones: pedestrians are `bodies.person_parts` (the vest and its reflective bands in
the shirt's colour, the hard hat in the hair's: a person in a shirt and hair), cars are the
RealityBench parametric bodies (`blender_envs.vehicle.body`, built by `car_build`); a car's
box points are `body.hull_points` shifted to the box centre, so the projected box of every
body is computable without Blender.

Simplified on purpose: riders are rigid (no pedalling), wheels do not turn, handlebars
do not steer; a motorcycle's rider sits upright.
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.infra import bodies
from blender_envs.vehicle.body import WHEEL_PROUD_M, Body, hull_points
from geometry.mesh_parts import Part, box_part, cylinder_part

MOTORCYCLE_SIZE = (2.1, 0.8, 1.5)
BICYCLE_SIZE = (1.8, 0.6, 1.75)


def _wheel(cx: float, cz: float, radius: float, half_w: float, segments: int = 14) -> Part:
    """A capped cylinder along y (a wheel) about (cx, cz)."""
    t = np.arange(segments) * 2 * np.pi / segments
    x, z = cx + radius * np.cos(t), cz + radius * np.sin(t)
    V = np.vstack([np.c_[x, np.full(segments, -half_w), z], np.c_[x, np.full(segments, half_w), z]])
    n = segments
    F = [tuple(range(n)), tuple(range(2 * n - 1, n - 1, -1))]
    F += [(i, n + i, n + (i + 1) % n, (i + 1) % n) for i in range(n)]
    return V, F


def _shift(parts: list[tuple[Part, str]], dz: float) -> list[tuple[Part, str]]:
    return [((np.asarray(V, float) + np.array([0.0, 0.0, dz]), F), k) for (V, F), k in parts]


def motorcycle_parts() -> list[tuple[Part, str]]:
    """A road motorcycle facing +x with an upright rider (jacket, trousers, helmet)."""
    b = box_part
    p: list[tuple[Part, str]] = [
        (_wheel(0.7, 0.31, 0.31, 0.06), "tyre"), (_wheel(-0.7, 0.31, 0.31, 0.065), "tyre"),
        (b((-0.25, -0.17, 0.25), (0.35, 0.17, 0.6)), "dark"),            # engine
        (b((0.05, -0.16, 0.6), (0.48, 0.16, 0.86)), "paint"),            # tank
        (b((-0.55, -0.15, 0.7), (0.05, 0.15, 0.8)), "dark"),             # seat
        (b((-0.9, -0.12, 0.62), (-0.5, 0.12, 0.76)), "paint"),           # tail
        (b((-0.62, -0.05, 0.3), (-0.2, 0.05, 0.4)), "metal"),            # swing arm
        (b((0.55, -0.09, 0.3), (0.63, 0.09, 1.0)), "metal"),             # fork
        (b((0.45, -0.38, 1.0), (0.52, 0.38, 1.05)), "metal"),            # handlebar
        (b((0.63, -0.08, 0.82), (0.7, 0.08, 0.96)), "headlamp"),
        (b((-0.93, -0.06, 0.66), (-0.9, 0.06, 0.72)), "taillamp"),
    ]
    for s in (-1, 1):
        y0, y1 = sorted((s * 0.06, s * 0.19))
        p.append((b((-0.35, y0, 0.55), (0.2, y1, 0.8)), "trousers"))      # thighs
        p.append((b((0.05, y0, 0.3), (0.2, y1, 0.58)), "trousers"))       # shins
        ya0, ya1 = sorted((s * 0.2, s * 0.29))
        p.append((b((-0.05, ya0, 1.02), (0.46, ya1, 1.13)), "jacket"))    # arms to the bar
    p.append((b((-0.38, -0.21, 0.8), (0.0, 0.21, 1.27)), "jacket"))
    p.append((cylinder_part((-0.17, 0.0), 0.06, 1.26, 1.3, 10), "jacket"))
    p.append((cylinder_part((-0.17, 0.0), 0.14, 1.29, 1.5, 14), "helmet"))
    return _shift(p, -MOTORCYCLE_SIZE[2] / 2)


def bicycle_parts(helmet: bool) -> list[tuple[Part, str]]:
    """A bicycle facing +x (thin wheels, frame as slim boxes) with a rider in a shirt and
    trousers, head and an optional helmet."""
    b = box_part
    p: list[tuple[Part, str]] = [
        (_wheel(0.52, 0.34, 0.34, 0.02, 18), "tyre"), (_wheel(-0.52, 0.34, 0.34, 0.02, 18), "tyre"),
        (b((-0.2, -0.02, 0.8), (0.38, 0.02, 0.84)), "frame"),            # top tube
        (b((0.0, -0.02, 0.35), (0.36, 0.02, 0.8)), "frame"),             # down tube (a slab)
        (b((-0.23, -0.02, 0.35), (-0.18, 0.02, 0.9)), "frame"),          # seat tube
        (b((-0.52, -0.03, 0.32), (-0.2, 0.03, 0.37)), "frame"),          # chainstays
        (b((0.4, -0.03, 0.34), (0.46, 0.03, 0.96)), "frame"),            # fork
        (b((0.3, -0.28, 0.95), (0.4, 0.28, 1.0)), "metal"),              # handlebar
        (b((-0.31, -0.07, 0.9), (-0.1, 0.07, 0.95)), "dark"),            # saddle
    ]
    for s in (-1, 1):
        y0, y1 = sorted((s * 0.05, s * 0.15))
        p.append((b((-0.25, y0, 0.45), (0.1, y1, 0.95)), "trousers"))
        ya0, ya1 = sorted((s * 0.19, s * 0.26))
        p.append((b((-0.02, ya0, 1.12), (0.36, ya1, 1.24)), "shirt"))
    p.append((b((-0.3, -0.19, 0.95), (0.05, 0.19, 1.42)), "shirt"))
    p.append((cylinder_part((-0.12, 0.0), 0.1, 1.44, 1.63, 12), "skin"))
    p.append((cylinder_part((-0.12, 0.0), 0.13 if helmet else 0.1, 1.6, 1.74, 14), "helmet" if helmet else "hair"))
    return _shift(p, -BICYCLE_SIZE[2] / 2)


def pedestrian_parts(height: float) -> list[tuple[Part, str]]:
    """`bodies.person_parts` with its vest, bands and hat keyed as shirt and hair."""
    rename = {"vest": "shirt", "reflective": "shirt", "hat": "hair"}
    return [(part, rename.get(k, k)) for part, k in bodies.person_parts(height)]


def car_body(params: dict) -> Body:
    return Body.model_validate(params)


def car_size(body: Body) -> list[float]:
    """The agent box of a car: its length and height, and the width of everything it draws
    (the side mirrors reach past the wheels), rounded up so every hull point lies inside."""
    half_w = max(body.width_m / 2 + WHEEL_PROUD_M, float(np.abs(hull_points(body)[:, 1]).max()))
    return [body.length_m, math.ceil(2 * half_w * 1e6) / 1e6, body.height_m]


def body_parts(kind: str, params: dict) -> list[tuple[Part, str]]:
    if kind == "person":
        return pedestrian_parts(params["height"])
    if kind == "motorcycle":
        return motorcycle_parts()
    if kind == "bicycle":
        return bicycle_parts(params["helmet"] == "yes")
    raise ValueError(f"{kind!r} has no numpy parts (cars are built by car_build)")


def body_vertices(kind: str, params: dict) -> np.ndarray:
    """(n, 3) box-frame points spanning what the builder draws."""
    if kind == "car":
        body = car_body(params)
        return hull_points(body) - np.array([0.0, 0.0, body.height_m / 2])
    return np.vstack([np.asarray(p[0], float) for p, _ in body_parts(kind, params)])


def body_size(kind: str, params: dict) -> list[float]:
    if kind == "car":
        return car_size(car_body(params))
    if kind == "person":
        return [bodies.PERSON_SIZE_XY[0], bodies.PERSON_SIZE_XY[1], float(params["height"])]
    return list(MOTORCYCLE_SIZE if kind == "motorcycle" else BICYCLE_SIZE)
