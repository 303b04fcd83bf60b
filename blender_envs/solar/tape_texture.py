"""The printed face of a tape-measure blade as an image (Pillow + numpy, no bpy).

Laid out like a common imperial tape: yellow blade, 1/16-inch ticks from both long
edges with graded lengths (inch > 1/2 > 1/4 > 1/8 > 1/16), a black number at every
inch, and every foot the number in red with a small red "nF" mark. The numbers read
upright when the blade lies horizontally with the hook on the left, as on a real tape,
so with the hook at the bottom they run bottom-to-top.

Mapping (used by the builder for UVs and by tests): the image is `width_px` wide
(blade width) and `length_in * px_per_inch` tall (blade length); the hook end (reading
0) is the image's bottom edge. Reading `r` lies on the continuous row coordinate
`(length_in - r) * px_per_inch` measured from the top edge, i.e. at pixel-centre row
`texel_v(r, ...)`, and at Blender UV `v = uv_v(r, length_in)` (v = 0 at the bottom).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

BLADE_WIDTH_IN = 0.025 / 0.0254
YELLOW = (246, 200, 28)
BLACK = (22, 20, 18)
RED = (196, 28, 30)

# tick length as a fraction of the blade width, by the finest division a tick belongs to
TICK_FRACTION = {1: 0.30, 2: 0.24, 4: 0.18, 8: 0.13, 16: 0.085}
TICK_THICKNESS_IN = 1.0 / 128   # 2 px at 256 px/in: the ticks stay separated at 1/16 in


def texel_v(reading_in: float, length_in: float, px_per_inch: int = 256) -> float:
    """Pixel-centre row (from the top) on which the tick of `reading_in` is centred."""
    return (float(length_in) - float(reading_in)) * px_per_inch - 0.5


def uv_v(reading_in: float, length_in: float) -> float:
    """Blender UV v (0 = image bottom = hook end) of `reading_in`."""
    return float(reading_in) / float(length_in)


def _division(k: int) -> int:
    """Finest division (1, 2, 4, 8 or 16 per inch) a tick k/16 in belongs to."""
    for div in (1, 2, 4, 8):
        if k % (16 // div) == 0:
            return div
    return 16


@lru_cache(maxsize=8)
def _font(size: int):
    return ImageFont.load_default(size=size)


def _number_stamp(text: str, color, size: int, stroke: int) -> Image.Image:
    """Text rendered horizontally on a transparent tile, then turned to run along the blade."""
    font = _font(size)
    l, t, r, b = font.getbbox(text, stroke_width=stroke)
    tile = Image.new("RGBA", (r - l + 2, b - t + 2), (0, 0, 0, 0))
    ImageDraw.Draw(tile).text((1 - l, 1 - t), text, font=font, fill=color + (255,),
                              stroke_width=stroke, stroke_fill=color + (255,))
    return tile.rotate(90, expand=True)  # counter-clockwise: reads bottom-to-top


def tape_blade_texture(length_in: float, px_per_inch: int = 256) -> Image.Image:
    """RGB image of the numbered face for a blade `length_in` long from the hook."""
    if px_per_inch % 16:
        raise ValueError("px_per_inch must be a multiple of 16 so 1/16-in ticks land on pixel edges")
    H = int(round(length_in * px_per_inch))
    W = int(round(BLADE_WIDTH_IN * px_per_inch))
    img = Image.new("RGB", (W, H), YELLOW)
    draw = ImageDraw.Draw(img)
    # an even pixel count keeps each tick centred exactly on texel_v (a half-pixel row)
    thick = max(2, 2 * int(round(TICK_THICKNESS_IN * px_per_inch / 2)))
    step = px_per_inch // 16
    n_ticks = int(np.floor(length_in * 16 + 1e-9))
    for k in range(0, n_ticks + 1):
        y_edge = H - k * step  # continuous row coordinate of reading k/16
        y0 = y_edge - thick // 2
        y1 = y0 + thick - 1
        if y1 < 0 or y0 >= H:
            continue
        length = int(round(TICK_FRACTION[_division(k)] * W))
        color = RED if (k % (16 * 12) == 0 and k > 0) else BLACK
        draw.rectangle([0, max(y0, 0), length - 1, min(y1, H - 1)], fill=color)
        draw.rectangle([W - length, max(y0, 0), W - 1, min(y1, H - 1)], fill=color)
    size = int(round(0.30 * px_per_inch))
    stroke = max(1, px_per_inch // 128)
    for inch in range(1, int(np.floor(length_in + 1e-9)) + 1):
        foot = inch % 12 == 0
        stamp = _number_stamp(str(inch), RED if foot else BLACK, size, stroke)
        cy = H - inch * px_per_inch
        x = (W - stamp.width) // 2
        y = cy - stamp.height // 2
        img.paste(stamp, (x, y), stamp)
        if foot:
            mark = _number_stamp(f"{inch // 12}F", RED, size // 2, max(1, stroke // 2))
            img.paste(mark, ((W - mark.width) // 2, cy + stamp.height // 2 + step), mark)
    return img


if __name__ == "__main__":  # pragma: no cover - writes the example crop to look at
    im = tape_blade_texture(30.0)
    ppi = 256
    crop = im.crop((0, int(texel_v(14.0, 30.0, ppi)), im.width, int(texel_v(10.5, 30.0, ppi))))
    crop.rotate(-90, expand=True).save("/tmp/tape_texture_example.png")
    print(im.size, crop.size)
