"""Licence plates and the repair-order board as images (Pillow, no bpy), with their layout.

Font: DejaVu Sans Condensed Bold from Debian's `fonts-dejavu-extra` (Bitstream Vera
licence; scripts/ensure_system_libs.sh installs it). A missing font stops the build with
the install command: no fallback font, so every frame prints the same glyphs. The serial
is drawn at exactly `plates.CHAR_HEIGHT_M` cap height and then narrowed horizontally to
the plate's die width, as plate fonts are (about half as wide as high); the state name
is printed in full (`PlateStyle.name_on_plate`) above or below it. Embossed plates also
get a height map (the glyph mask, softened) that the builder turns into a bump.

Layouts are in metres on the printed face, origin top-left, y down (image rows), so a
scorer can find the character cells without reading the image.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter, ImageFont

from blender_envs.vehicle.body import PLATE_SIZE_M
from blender_envs.vehicle.handwriting import hand_text_mask
from blender_envs.vehicle.plates import CHAR_HEIGHT_M, NAME_HEIGHT_M, Plate

FONT_PACKAGE = "fonts-dejavu-extra"
FONT_PATH = Path("/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf")
PLATE_PX_PER_M = 4000.0          # 1219 x 610 px: the serial's 70 mm glyphs are 280 px tall
SERIAL_WIDTH_FRAC = 0.86         # the serial spans at most this share of the plate's width
NAME_GAP_M = 0.008               # from the plate's edge to the state name
RIM_M = 0.004                    # the dark embossed rim round the plate
BOARD_PX_PER_M = 3000.0


class FontMissing(RuntimeError):
    """The plate font is not installed (no silent fallback)."""


@lru_cache(maxsize=64)
def font(size_px: int) -> ImageFont.FreeTypeFont:
    if not FONT_PATH.is_file():
        raise FontMissing(f"{FONT_PATH} is missing: apt-get install {FONT_PACKAGE}")
    return ImageFont.truetype(str(FONT_PATH), int(size_px))


def _hex(c: str) -> tuple[int, int, int]:
    c = c.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


def cap_font(cap_px: float) -> ImageFont.FreeTypeFont:
    """The font size whose capital H is `cap_px` tall (to the pixel)."""
    ref = font(200)
    _, t, _, b = ref.getbbox("H")
    return font(max(4, int(round(200 * cap_px / (b - t)))))


def text_mask(text: str, cap_px: float, max_width_px: float | None = None) -> Image.Image:
    """An L image of `text` cropped to its cap-height box (rows = cap height), optionally
    narrowed to `max_width_px`."""
    f = cap_font(cap_px)
    _, t, _, b = f.getbbox("H")
    l, _, r, _ = f.getbbox(text)
    im = Image.new("L", (r - l + 4, b - t), 0)
    ImageDraw.Draw(im).text((2 - l, -t), text, font=f, fill=255)
    if max_width_px is not None and im.width > max_width_px:
        im = im.resize((int(max_width_px), im.height), Image.LANCZOS)
    return im


def plate_texture(plate: Plate, px_per_m: float = PLATE_PX_PER_M) -> tuple[Image.Image, Image.Image, dict]:
    """(colour image, height map (L, 255 = raised), layout) of one plate."""
    st = plate.style
    W, H = int(round(PLATE_SIZE_M[0] * px_per_m)), int(round(PLATE_SIZE_M[1] * px_per_m))
    img = Image.new("RGB", (W, H), _hex(st.background))
    height = Image.new("L", (W, H), 0)
    d, dh = ImageDraw.Draw(img), ImageDraw.Draw(height)
    rim = max(1, int(round(RIM_M * px_per_m)))
    d.rectangle([0, 0, W - 1, H - 1], outline=_hex(st.characters), width=rim)
    dh.rectangle([0, 0, W - 1, H - 1], outline=255, width=rim)
    m = px_per_m
    name = text_mask(st.name_on_plate, NAME_HEIGHT_M * m, 0.8 * W)
    ny = int(round((NAME_GAP_M + RIM_M) * m)) if st.name_position == "top" else \
        H - int(round((NAME_GAP_M + RIM_M) * m)) - name.height
    nx = (W - name.width) // 2
    img.paste(Image.new("RGB", name.size, _hex(st.name_color)), (nx, ny), name)
    serial = text_mask(plate.text, CHAR_HEIGHT_M * m, SERIAL_WIDTH_FRAC * W)
    sx, sy = (W - serial.width) // 2, (H - serial.height) // 2 + (int(0.006 * m) if st.name_position == "top" else
                                                                 -int(0.006 * m))
    img.paste(Image.new("RGB", serial.size, _hex(st.characters)), (sx, sy), serial)
    height.paste(serial, (sx, sy), serial)
    # registration sticker in the top corner away from the name's centre line
    sw, sh = int(0.028 * m), int(0.022 * m)
    d.rectangle([W - rim - sw - int(0.006 * m), rim + int(0.005 * m), W - rim - int(0.006 * m),
                 rim + int(0.005 * m) + sh], fill=(232, 170, 40) if len(plate.text) % 2 else (60, 150, 200))
    if st.embossed:
        height = height.filter(ImageFilter.GaussianBlur(radius=max(1.0, 0.0008 * m)))
    layout = {
        "size_px": [W, H],
        "px_per_m": px_per_m,
        "serial_box_m": [sx / m, sy / m, (sx + serial.width) / m, (sy + serial.height) / m],
        "char_height_m": serial.height / m,
        "name_box_m": [nx / m, ny / m, (nx + name.width) / m, (ny + name.height) / m],
        "name_height_m": name.height / m,
        "embossed": st.embossed,
    }
    return img, height, layout


# ---------------------------------------------------------------- the repair-order board

BOARD_PAPER = (238, 238, 232)
BOARD_INK = (20, 24, 70)           # blue-black marker
BOARD_LABEL = (90, 90, 90)


def board_rows(ro: str, vin: str, date: str) -> list[tuple[str, str]]:
    """(label, value) per written row, top to bottom."""
    return [("RO#", ro), ("VIN", vin), ("DATE", date)]


def board_texture(ro: str, vin: str, date: str, size_m: tuple[float, float], row_m: float,
                  px_per_m: float = BOARD_PX_PER_M, style: str = "printed", hand=None) -> tuple[Image.Image, dict]:
    """The board's face: a header bar, then each row's small grey label above its value
    in marker ink; layout in metres (top-left origin).

    printed: the values' capitals `row_m` tall (cap height); `row_height_m` = that.
    handwritten: the values in `handwriting.hand_text_mask`, median glyph `row_m` tall, each
    character moved by its jitter in `hand` (one list per row); `row_height_m` = the
    smallest drawn letter or digit (what limits reading), `glyph_heights_m` per row."""
    if style not in ("printed", "handwritten"):
        raise ValueError(f"unknown board style {style!r}")
    m = px_per_m
    W, H = int(round(size_m[0] * m)), int(round(size_m[1] * m))
    img = Image.new("RGB", (W, H), BOARD_PAPER)
    d = ImageDraw.Draw(img)
    margin = int(0.06 * W)
    head = int(0.13 * H)
    d.rectangle([0, 0, W - 1, head], fill=(170, 30, 35))
    title = text_mask("REPAIR ORDER", 0.45 * head)
    img.paste(Image.new("RGB", title.size, (245, 245, 245)),
              ((W - title.width) // 2, (head - title.height) // 2), title)
    y = head + int(0.04 * H)
    boxes, glyph_h = [], []
    cap = row_m * m
    rows = board_rows(ro, vin, date)
    if style == "handwritten" and (hand is None or len(hand) != len(rows)):
        raise ValueError("a handwritten board needs one jitter list per row")
    for k, (label, value) in enumerate(rows):
        lab = text_mask(label, 0.38 * cap)
        img.paste(Image.new("RGB", lab.size, BOARD_LABEL), (margin, y), lab)
        y += lab.height + int(0.25 * cap)
        if style == "printed":
            val = text_mask(value, cap, W - 2 * margin)
        else:
            val, hs = hand_text_mask(value, cap, hand[k], W - 2 * margin)
            glyph_h.append([h / m for h in hs])
        img.paste(Image.new("RGB", val.size, BOARD_INK), (margin, y), val)
        boxes.append([margin / m, y / m, (margin + val.width) / m, (y + val.height) / m])
        y += val.height + int(0.45 * cap)
        d.line([(margin, y - int(0.2 * cap)), (W - margin, y - int(0.2 * cap))], fill=(200, 200, 196),
               width=max(1, int(0.002 * m)))
    if y > H:
        raise ValueError(f"board rows ({y} px) do not fit a {H} px board")
    lay = {"size_px": [W, H], "px_per_m": m, "row_boxes_m": boxes, "row_height_m": cap / m}
    if style == "handwritten":
        lay.update(row_height_m=min(min(r) for r in glyph_h), glyph_heights_m=glyph_h)
    return img, lay
