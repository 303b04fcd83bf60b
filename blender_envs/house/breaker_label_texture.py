"""The directory card's and breaker handles' printed faces (Pillow, no bpy).

The card is drawn from `card_layout`, so the text rows sit exactly where the legibility
term measures them. Handwritten cards draw glyph by glyph with a per-glyph jitter
(slant, rotation, size, baseline) seeded from the spec: the same card every time.
"""
from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from blender_envs.house.breaker_label import BreakerLabelSpec, card_layout

PX_PER_M = 2400
TITLE = "CIRCUIT DIRECTORY"


def _rgb(c) -> tuple[int, int, int]:
    return tuple(int(round(255 * min(max(x, 0.0), 1.0) ** (1 / 2.2))) for x in c[:3])


def _glyph(ch: str, size: int, ink, angle: float, shear: float) -> Image.Image:
    font = ImageFont.load_default(size=size)
    l, t, r, b = font.getbbox(ch)
    tile = Image.new("RGBA", (max(r - l, 1) + 8, max(b - t, 1) + 8), (0, 0, 0, 0))
    ImageDraw.Draw(tile).text((4 - l, 4 - t), ch, font=font, fill=ink + (255,), stroke_width=max(1, size // 14))
    tile = tile.transform(tile.size, Image.AFFINE, (1, shear, -shear * tile.size[1] / 2, 0, 1, 0), Image.BILINEAR)
    return tile.rotate(angle, resample=Image.BICUBIC, expand=True)


def _write(img: Image.Image, xy, text: str, size: int, ink, style: str, rng: np.random.Generator | None):
    """Draw `text` with its left edge at x and its row centred on y."""
    x, yc = xy
    if style == "printed":
        font = ImageFont.load_default(size=size)
        l, t, r, b = font.getbbox("0A")
        ImageDraw.Draw(img).text((x, yc - (t + b) / 2), text, font=font, fill=ink + (255,))
        return
    for ch in text:
        if ch == " ":
            x += size * 0.45
            continue
        s = int(round(size * rng.uniform(0.9, 1.08)))
        g = _glyph(ch, s, ink, float(rng.normal(0, 4.0)), float(rng.uniform(-0.25, -0.1)))
        img.alpha_composite(g, (int(round(x)), int(round(yc - g.size[1] / 2 + rng.normal(0, size * 0.05)))))
        x += g.size[0] - 8 + size * rng.uniform(0.02, 0.1)


def card_texture(spec: BreakerLabelSpec) -> Image.Image:
    """The card at PX_PER_M: title, MAIN row, then numbered circuits with amperage."""
    c = spec.card
    lay = card_layout(spec)
    W, H = int(round(c.width_m * PX_PER_M)), int(round(c.height_m * PX_PER_M))
    img = Image.new("RGBA", (W, H), _rgb(c.paper_color) + (255,))
    ink = _rgb(c.ink_color)
    d = ImageDraw.Draw(img)
    pitch = lay["pitch_m"] * PX_PER_M
    top = lay["margin_m"] * PX_PER_M
    size = max(8, int(round(pitch * 0.62)))
    rng = np.random.default_rng(c.jitter_seed)
    margin_x = 0.05 * W
    # rule lines under every row (printed forms have them even when filled in by hand)
    for k in range(1, lay["n_rows"] + 1):
        y = top + k * pitch - 0.12 * pitch
        d.line((margin_x, y, W - margin_x, y), fill=(150, 150, 150, 255), width=max(1, int(pitch * 0.04)))
    _write(img, (margin_x, top + 0.5 * pitch), TITLE, int(size * 0.85), (40, 40, 40), "printed", rng)
    _write(img, (margin_x, top + 1.5 * pitch), f"MAIN {spec.main_amps}A", size, ink, c.style, rng)
    col_w = (W - 2 * margin_x) / c.columns
    longest = max(ImageFont.load_default(size=size).getlength(f"{e.name} {e.amps}") for e in spec.entries)
    room = 0.84 * col_w * (0.92 if c.style == "handwritten" else 1.0)
    size = min(size, int(size * room / (longest * (1.15 if c.style == "handwritten" else 1.0))))
    for k, e in enumerate(spec.entries):
        col, row = divmod(k, lay["rows"])
        y = top + (row + 2.5) * pitch
        x0 = margin_x + col * col_w
        _write(img, (x0, y), f"{k + 1}", int(size * 0.8), (60, 60, 60), "printed", rng)
        _write(img, (x0 + 0.12 * col_w, y), f"{e.name} {e.amps}", size, ink, c.style, rng)
    return img.convert("RGB")


HANDLE_AMPS = (15, 20, 30, 40, 50, 60, 100, 125, 150, 200)
TILE_PX = 64


def handle_atlas() -> Image.Image:
    """One tile per amperage (white digits on the black handle), plus a plain tile last."""
    img = Image.new("RGB", (TILE_PX * (len(HANDLE_AMPS) + 1), TILE_PX), (18, 18, 18))
    d = ImageDraw.Draw(img)
    for k, a in enumerate(HANDLE_AMPS):
        font = ImageFont.load_default(size=30 if a < 100 else 22)
        l, t, r, b = font.getbbox(str(a))
        d.text((k * TILE_PX + (TILE_PX - (r - l)) / 2 - l, (TILE_PX - (b - t)) / 2 - t), str(a), font=font,
               fill=(235, 235, 235))
    return img


def atlas_uv(amps: int | None) -> tuple[float, float, float, float]:
    """(u0, v0, u1, v1) of an amperage's tile in the atlas (None: the plain tile)."""
    k = len(HANDLE_AMPS) if amps is None else HANDLE_AMPS.index(amps)
    n = len(HANDLE_AMPS) + 1
    return k / n, 0.0, (k + 1) / n, 1.0
