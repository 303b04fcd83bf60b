"""Handwriting-like marker text for the repair-order board (Pillow, no bpy).

Font: Humor Sans from Debian's `fonts-humor-sans` (SIL Open Font License 1.1; an
all-capitals hand-lettered face with an even, marker-like stroke; digits and capitals are
told apart clearly, its 0 is round and its 1 a plain stroke). scripts/ensure_system_libs.sh
installs it; a missing font stops with the install command, never a fallback font.

Each character is drawn on its own and moved by its jitter `[dx, dy, scale, slant_deg,
rot_deg]` (dx, dy in units of the nominal row height; the spec draws them, so the same seed
gives the same bytes): scaled about its baseline origin, sheared by the slant (a forward
lean, x += tan(slant) * height above the baseline), rotated about its own middle, then set on
a pen that advances by the scaled glyph advance plus a small gap. The font's own glyphs
already differ in height (its capitals and digits are 0.86-1.3 times its H); on top of that
the scale jitter changes each character's height, so the board's legibility term uses the
drawn glyphs' ink heights (`hand_text_mask`'s heights), not a nominal cap height.
"""
from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageChops, ImageDraw, ImageFont

HAND_FONT_PACKAGE = "fonts-humor-sans"
HAND_FONT_PATH = Path("/usr/share/fonts/truetype/humor-sans/Humor-Sans.ttf")
REF_SIZE = 200
SIZE_CHARS = "0123456789ABCDEFGHJKLMNPRSTUVWXYZ"   # the VIN alphabet sets the nominal height
GAP = 0.10                  # extra pen advance between characters, x nominal height
INK_LEVEL = 128             # a mask pixel at or above this is ink (for the measured heights)


class HandFontMissing(RuntimeError):
    """The handwriting font is not installed (no silent fallback)."""


@lru_cache(maxsize=64)
def hand_font(size_px: int) -> ImageFont.FreeTypeFont:
    if not HAND_FONT_PATH.is_file():
        raise HandFontMissing(f"{HAND_FONT_PATH} is missing: apt-get install {HAND_FONT_PACKAGE}")
    return ImageFont.truetype(str(HAND_FONT_PATH), int(size_px))


@lru_cache(maxsize=1)
def _median_ink_height_ref() -> float:
    """Median ink height of the VIN alphabet's glyphs at REF_SIZE (the font's own variety)."""
    f = hand_font(REF_SIZE)
    return float(np.median([f.getbbox(c)[3] - f.getbbox(c)[1] for c in SIZE_CHARS]))


def size_for(nominal_px: float) -> float:
    """The font size whose median glyph (of the VIN alphabet) is `nominal_px` tall."""
    return REF_SIZE * nominal_px / _median_ink_height_ref()


def _glyph(c: str, size: float, slant_deg: float, rot_deg: float) -> tuple[Image.Image, float, float, float]:
    """(mask, x, y of the baseline origin in it, advance) of one character, sheared and rotated."""
    f = hand_font(max(4, int(round(size))))
    pad = int(f.size)
    im = Image.new("L", (3 * pad, 3 * pad), 0)
    ox, oy = pad, 2 * pad
    ImageDraw.Draw(im).text((ox, oy), c, font=f, fill=255, anchor="ls")
    l, t, r, b = im.getbbox() or (ox, oy, ox + 1, oy + 1)
    cx, cy = (l + r) / 2, (t + b) / 2
    sh = math.tan(math.radians(slant_deg))
    a = math.radians(rot_deg)
    ca, sa = math.cos(a), math.sin(a)
    # forward map: shear about the baseline (x += sh * (oy - y)), then rotate about the centre;
    # Pillow wants the inverse (output pixel -> input pixel)
    fwd = np.array([[1.0, -sh, sh * oy], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    rot = np.array([[ca, sa, 0.0], [-sa, ca, 0.0], [0.0, 0.0, 1.0]])    # clockwise on the image for rot > 0
    c0 = np.array([[1.0, 0.0, -cx], [0.0, 1.0, -cy], [0.0, 0.0, 1.0]])
    c1 = np.array([[1.0, 0.0, cx], [0.0, 1.0, cy], [0.0, 0.0, 1.0]])
    M = c1 @ rot @ c0 @ fwd
    inv = np.linalg.inv(M)
    out = im.transform(im.size, Image.AFFINE, tuple(inv[:2].ravel()), resample=Image.BICUBIC)
    return out, float(ox), float(oy), float(f.getlength(c))


def hand_text_mask(text: str, nominal_px: float, jitter, max_width_px: float | None = None
                   ) -> tuple[Image.Image, list[float]]:
    """An L image of `text` written by hand, cropped to its ink, and each character's ink
    height in px (after its scale, slant and rotation; unchanged by the narrowing).

    `jitter`: one `[dx, dy, scale, slant_deg, rot_deg]` per character."""
    if len(jitter) != len(text):
        raise ValueError(f"{len(jitter)} jitter entries for {len(text)} characters")
    size = size_for(nominal_px)
    H = int(3 * nominal_px) + 8
    base = int(2.0 * nominal_px) + 4
    W = int(sum(hand_font(max(4, int(round(size * j[2])))).getlength(c) for c, j in zip(text, jitter))
            + len(text) * (GAP + 0.5) * nominal_px + 4 * nominal_px)
    row = Image.new("L", (W, H), 0)
    pen = nominal_px
    heights = []
    for c, (dx, dy, scale, slant, rot) in zip(text, jitter):
        g, ox, oy, adv = _glyph(c, size * scale, slant, rot)
        x, y = int(round(pen + dx * nominal_px - ox)), int(round(base + dy * nominal_px - oy))
        layer = Image.new("L", (W, H), 0)
        layer.paste(g, (x, y))
        row = ImageChops.lighter(row, layer)
        ink = g.point(lambda v: 255 if v >= INK_LEVEL else 0).getbbox()
        if c.isalnum() and ink is not None:
            heights.append(float(ink[3] - ink[1]))
        pen += adv + GAP * nominal_px
    box = row.getbbox()
    if box is None:
        raise ValueError(f"nothing drawn for {text!r}")
    l, t, r, b = box
    im = row.crop((l - 2, t, r + 2, b))
    if max_width_px is not None and im.width > max_width_px:
        im = im.resize((int(max_width_px), im.height), Image.LANCZOS)
    return im, heights
