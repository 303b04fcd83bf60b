"""Office people for the entrance scene as numpy parts (no bpy): everyday clothes instead
of the warehouse's hi-vis vests and hard hats (`bodies.person_parts`).

A body is a list of (part, material key) in its agent's box frame (x forward, y left, z up,
origin at the box centre), so the builder links exactly these vertices and the scorer
projects the same ones for a frame's box without Blender. Every body lies inside
`CIVILIAN_SIZE_XY` x height (`tests/test_entrance.py` checks it).

Simplified on purpose: rigid standing bodies (no walk cycle, arms down), boxes and
cylinders; the clothing varies by top (shirt or knee-length coat), hair (short or long)
and a carried item (none, a backpack, a briefcase in the right hand).
"""
from __future__ import annotations

from geometry.mesh_parts import Part, box_part, cylinder_part

CIVILIAN_SIZE_XY = (0.44, 0.56)      # depth (a backpack sticks out behind), shoulder width with arms
TOPS = ("shirt", "coat")
HAIRS = ("short", "long")
ITEMS = ("none", "backpack", "briefcase")


def civilian_parts(height: float, top: str, hair: str, item: str) -> list[tuple[Part, str]]:
    """A standing person `height` m tall: shoes, trousers, a top (shirt, or a coat down to
    the knees), arms with hands, neck, head, hair, and the carried item."""
    if top not in TOPS or hair not in HAIRS or item not in ITEMS:
        raise ValueError(f"unknown civilian look {(top, hair, item)!r}")
    h = float(height)
    zb = -h / 2
    z = lambda f: zb + f * h  # noqa: E731
    out: list[tuple[Part, str]] = []
    for side in (-1, 1):
        y0, y1 = sorted((side * 0.04, side * 0.15))
        out.append((box_part((-0.07, y0, z(0.035)), (0.07, y1, z(0.48))), "trousers"))
        out.append((box_part((-0.09, y0 - 0.005, zb), (0.14, y1 + 0.005, z(0.035))), "shoes"))
        ya0, ya1 = sorted((side * 0.205, side * 0.265))
        out.append((box_part((-0.05, ya0, z(0.50)), (0.05, ya1, z(0.815))), "top"))
        out.append((box_part((-0.04, ya0 + 0.005, z(0.43)), (0.04, ya1 - 0.005, z(0.50))), "skin"))
    if top == "coat":
        out.append((box_part((-0.12, -0.20, z(0.30)), (0.12, 0.20, z(0.83))), "top"))
    else:
        out.append((box_part((-0.10, -0.19, z(0.46)), (0.10, 0.19, z(0.83))), "top"))
    out.append((cylinder_part((0.0, 0.0), 0.05, z(0.83), z(0.87), 10), "skin"))
    out.append((cylinder_part((0.01, 0.0), 0.09, z(0.865), z(0.975), 12), "skin"))
    out.append((cylinder_part((-0.005, 0.0), 0.095, z(0.955), z(1.0), 12), "hair"))
    if hair == "long":
        out.append((box_part((-0.10, -0.085, z(0.80)), (-0.03, 0.085, z(0.96))), "hair"))
    if item == "backpack":
        out.append((box_part((-0.22, -0.15, z(0.55)), (-0.10, 0.15, z(0.80))), "item"))
    elif item == "briefcase":
        out.append((box_part((-0.17, -0.262, z(0.20)), (0.17, -0.212, z(0.43))), "item"))
        out.append((box_part((-0.04, -0.245, z(0.43)), (0.04, -0.229, z(0.445))), "item"))
    return out
