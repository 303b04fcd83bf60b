"""Furniture catalogue for the indoor (EgoPathBench) scenes: pure data, no bpy.

Each piece is a list of axis-aligned boxes in its own frame (x = width, y = depth with
the front at +y and the back, the side that goes against a wall, at -y; z up from the
floor at 0), so chairs and tables have real legs and open space under them, and both
the Blender builder and the scorers read the same numbers.
"""
from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

# Named palette: the colour word a question may use and the (linear) base colour drawn.
PALETTE: dict[str, tuple[float, float, float]] = {
    "red": (0.55, 0.04, 0.03),
    "orange": (0.75, 0.25, 0.03),
    "yellow": (0.80, 0.62, 0.05),
    "green": (0.08, 0.35, 0.06),
    "blue": (0.04, 0.12, 0.55),
    "teal": (0.02, 0.35, 0.33),
    "purple": (0.25, 0.06, 0.40),
    "pink": (0.80, 0.30, 0.42),
    "brown": (0.22, 0.10, 0.04),
    "black": (0.018, 0.018, 0.02),
    "white": (0.80, 0.80, 0.78),
    "gray": (0.25, 0.25, 0.26),
    "beige": (0.62, 0.50, 0.33),
}

# Fixed colours of secondary parts (plant leaves, TV screen, mattress, lamp shade, worktop).
ACCENT_RGB: dict[str, tuple[float, float, float]] = {
    "plant": (0.05, 0.22, 0.03),
    "tv_stand": (0.01, 0.01, 0.012),
    "bed": (0.75, 0.74, 0.70),
    "lamp": (0.85, 0.80, 0.65),
    "counter": (0.55, 0.55, 0.53),
}

SIZE_CLASSES = (("small", 0.8), ("", 1.0), ("large", 1.22))
SIZE_PROBS = (0.25, 0.5, 0.25)


class FBox(BaseModel):
    """One box of a piece, in the piece's frame."""

    model_config = ConfigDict(extra="forbid")
    lo: list[float]
    hi: list[float]
    part: Literal["main", "accent"] = "main"


class CategoryDef(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    base: tuple[float, float, float]   # width (x), depth (y), height (z) at size factor 1
    scale_h: bool                      # does the height scale with the size class
    colors: tuple[str, ...]            # colour words this category is drawn in
    roughness: float = 0.6


CATEGORIES: dict[str, CategoryDef] = {
    "chair": CategoryDef(base=(0.46, 0.48, 0.90), scale_h=False,
                         colors=("red", "blue", "black", "white", "brown", "green", "gray", "yellow", "teal")),
    "armchair": CategoryDef(base=(0.85, 0.80, 0.85), scale_h=False,
                            colors=("red", "blue", "gray", "beige", "green", "brown", "teal")),
    "table": CategoryDef(base=(1.40, 0.85, 0.75), scale_h=False, colors=("brown", "white", "black", "beige", "gray")),
    "coffee_table": CategoryDef(base=(1.00, 0.55, 0.42), scale_h=False, colors=("brown", "white", "black", "beige")),
    "desk": CategoryDef(base=(1.30, 0.65, 0.75), scale_h=False, colors=("brown", "white", "black", "gray", "beige")),
    "sofa": CategoryDef(base=(1.90, 0.88, 0.85), scale_h=False,
                        colors=("gray", "blue", "beige", "green", "red", "brown", "black", "teal")),
    "bed": CategoryDef(base=(1.50, 2.05, 0.95), scale_h=False, colors=("brown", "white", "gray", "black", "blue")),
    "nightstand": CategoryDef(base=(0.45, 0.40, 0.55), scale_h=True, colors=("brown", "white", "black", "beige")),
    "cabinet": CategoryDef(base=(0.85, 0.45, 0.90), scale_h=True,
                           colors=("white", "brown", "gray", "blue", "green", "black", "beige")),
    "wardrobe": CategoryDef(base=(1.00, 0.60, 2.00), scale_h=False, colors=("white", "brown", "gray", "beige")),
    "shelf": CategoryDef(base=(0.85, 0.32, 1.75), scale_h=False, colors=("brown", "white", "black", "gray", "beige")),
    "plant": CategoryDef(base=(0.42, 0.42, 0.95), scale_h=True, colors=("white", "red", "blue", "gray", "brown",
                                                                        "black", "orange", "yellow"), roughness=0.7),
    "box": CategoryDef(base=(0.42, 0.36, 0.34), scale_h=True, colors=("brown", "beige", "white", "red", "blue",
                                                                      "yellow", "green"), roughness=0.85),
    "lamp": CategoryDef(base=(0.36, 0.36, 1.55), scale_h=True, colors=("black", "white", "gray", "yellow", "red")),
    "bin": CategoryDef(base=(0.32, 0.30, 0.48), scale_h=True, colors=("gray", "blue", "green", "black", "red",
                                                                      "white", "yellow", "orange")),
    "tv_stand": CategoryDef(base=(1.40, 0.42, 0.50), scale_h=False, colors=("black", "brown", "white", "gray")),
    "stool": CategoryDef(base=(0.36, 0.36, 0.65), scale_h=True, colors=("red", "black", "white", "brown", "blue")),
    "counter": CategoryDef(base=(1.80, 0.62, 0.90), scale_h=False, colors=("white", "gray", "brown", "blue", "green")),
    "fridge": CategoryDef(base=(0.70, 0.68, 1.80), scale_h=False, colors=("white", "gray", "black")),
}


def _legs(w: float, d: float, h: float, t: float, inset: float = 0.0) -> list[FBox]:
    out = []
    for sx in (-1, 1):
        for sy in (-1, 1):
            cx = sx * (w / 2 - inset - t / 2)
            cy = sy * (d / 2 - inset - t / 2)
            out.append(FBox(lo=[cx - t / 2, cy - t / 2, 0.0], hi=[cx + t / 2, cy + t / 2, h]))
    return out


def _b(lo, hi, part="main") -> FBox:
    return FBox(lo=[float(x) for x in lo], hi=[float(x) for x in hi], part=part)


def category_boxes(category: str, w: float, d: float, h: float) -> list[FBox]:
    """The boxes of one piece of size (w, d, h), centred on the origin in x and y."""
    x, y = w / 2, d / 2
    if category in ("chair", "stool"):
        seat = 0.46 if category == "chair" else h - 0.04
        parts = _legs(w, d, seat - 0.04, 0.04) + [_b((-x, -y, seat - 0.04), (x, y, seat))]
        if category == "chair":
            parts.append(_b((-x, -y, seat), (x, -y + 0.05, h)))
        return parts
    if category in ("table", "desk", "coffee_table"):
        parts = _legs(w, d, h - 0.04, 0.05, inset=0.03) + [_b((-x, -y, h - 0.04), (x, y, h))]
        if category == "desk":  # a drawer pedestal on the right
            parts.append(_b((x - 0.42, -y + 0.03, 0.06), (x - 0.03, y - 0.05, h - 0.04)))
        return parts
    if category in ("sofa", "armchair"):
        arm = 0.16 if category == "sofa" else 0.18
        parts = _legs(w, d, 0.09, 0.06, inset=0.04)
        parts += [_b((-x, -y, 0.09), (x, y, 0.42)),                      # base + cushion
                  _b((-x, -y, 0.42), (x, -y + 0.22, h)),                  # back
                  _b((-x, -y + 0.22, 0.42), (-x + arm, y, 0.62)),         # arms
                  _b((x - arm, -y + 0.22, 0.42), (x, y, 0.62))]
        return parts
    if category == "bed":
        parts = _legs(w, d, 0.12, 0.07, inset=0.02)
        parts += [_b((-x, -y, 0.12), (x, y, 0.30)),                       # frame
                  _b((-x + 0.03, -y + 0.08, 0.30), (x - 0.03, y - 0.03, 0.52), "accent"),  # mattress
                  _b((-x, -y, 0.30), (x, -y + 0.08, h))]                  # headboard
        return parts
    if category in ("cabinet", "nightstand", "tv_stand", "counter", "wardrobe", "fridge"):
        plinth = 0.0 if category == "fridge" else 0.08
        parts = [_b((-x + 0.03, -y + 0.02, 0.0), (x - 0.03, y - 0.05, plinth))] if plinth else []
        top = h if category != "tv_stand" else 0.5
        parts.append(_b((-x, -y, plinth), (x, y, top - (0.04 if category == "counter" else 0.0))))
        if category == "counter":
            parts.append(_b((-x, -y, h - 0.04), (x, y + 0.02, h), "accent"))
        if category == "tv_stand":  # the TV standing on it, screen facing front
            tw, th = 0.8 * w, 0.48 * w
            parts.append(_b((-0.12, -0.06, top), (0.12, 0.06, top + 0.04)))
            parts.append(_b((-tw / 2, -0.04, top + 0.04), (tw / 2, 0.02, top + 0.04 + th), "accent"))
        if category in ("cabinet", "wardrobe", "fridge"):  # handles: a little relief on the front
            parts.append(_b((-0.03, y, h * 0.45), (-0.01, y + 0.02, h * 0.75)))
            parts.append(_b((0.01, y, h * 0.45), (0.03, y + 0.02, h * 0.75)))
        return parts
    if category == "shelf":
        t = 0.025
        parts = [_b((-x, -y, 0.0), (-x + t, y, h)), _b((x - t, -y, 0.0), (x, y, h)),
                 _b((-x, -y, 0.0), (x, -y + 0.01, h))]  # sides and back panel
        n = 5
        for k in range(n):
            z = 0.04 + k * (h - 0.06) / (n - 1)
            parts.append(_b((-x + t, -y + 0.01, z - t / 2), (x - t, y, z + t / 2)))
        return parts
    if category == "plant":
        pot_h = 0.32 * h
        pw = 0.62 * w
        return [_b((-pw / 2, -pw / 2, 0.0), (pw / 2, pw / 2, pot_h)),
                _b((-x, -y, pot_h), (x, y, 0.75 * h), "accent"),
                _b((-0.6 * x, -0.6 * y, 0.75 * h), (0.6 * x, 0.6 * y, h), "accent")]
    if category == "box":
        return [_b((-x, -y, 0.0), (x, y, h - 0.01)), _b((-x + 0.01, -0.02, h - 0.01), (x - 0.01, 0.02, h))]
    if category == "lamp":
        return [_b((-x * 0.7, -y * 0.7, 0.0), (x * 0.7, y * 0.7, 0.03)),
                _b((-0.015, -0.015, 0.03), (0.015, 0.015, h - 0.3)),
                _b((-x, -y, h - 0.32), (x, y, h), "accent")]
    if category == "bin":  # an open-topped bin: a bottom and four walls
        t = 0.015
        return [_b((-x, -y, 0.0), (x, y, t)), _b((-x, -y, t), (-x + t, y, h)), _b((x - t, -y, t), (x, y, h)),
                _b((-x + t, -y, t), (x - t, -y + t, h)), _b((-x + t, y - t, t), (x - t, y, h))]
    raise ValueError(f"unknown furniture category {category!r}; known: {sorted(CATEGORIES)}")


def draw_size(rng: np.random.Generator, category: str) -> tuple[str, list[float]]:
    """(size word, [w, d, h]) for one piece: a size class and a few per cent of jitter."""
    cdef = CATEGORIES[category]
    k = int(rng.choice(len(SIZE_CLASSES), p=SIZE_PROBS))
    word, f = SIZE_CLASSES[k]
    j = rng.uniform(0.97, 1.03, size=3)
    w, d, h = cdef.base
    return word, [round(float(w * f * j[0]), 4), round(float(d * f * j[1]), 4),
                  round(float((h * f if cdef.scale_h else h) * j[2]), 4)]


def draw_color(rng: np.random.Generator, category: str) -> str:
    cols = CATEGORIES[category].colors
    return str(cols[int(rng.integers(len(cols)))])
