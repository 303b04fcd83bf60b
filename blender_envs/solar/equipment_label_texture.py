"""Equipment data labels as images (Pillow, no bpy), with our own Code 128 (subset B).

Code 128: each symbol is 6 alternating bar/space widths (11 modules), the stop symbol
7 widths (13 modules). Subset B encodes ASCII 32-127 as value = ord(c) - 32; the check
symbol is (104 + sum(i * value_i)) mod 103 over positions i = 1, 2, ...
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

# bar/space widths of the 107 symbols, values 0..105 then STOP (ISO/IEC 15417 table)
_PATTERNS = (
    "212222 222122 222221 121223 121322 131222 122213 122312 132212 221213 221312 231212 112232 122132 "
    "122231 113222 123122 123221 223211 221132 221231 213212 223112 312131 311222 321122 321221 312212 "
    "322112 322211 212123 212321 232121 111323 131123 131321 112313 132113 132311 211313 231113 231311 "
    "112133 112331 132131 113123 113321 133121 313121 211331 231131 213113 213311 213131 311123 311321 "
    "331121 312113 312311 332111 314111 221411 431111 111224 111422 121124 121421 141122 141221 112214 "
    "112412 122114 122411 142112 142211 241211 221114 413111 241112 134111 111242 121142 121241 114212 "
    "124112 124211 411212 421112 421211 212141 214121 412121 111143 111341 131141 114113 114311 411113 "
    "411311 113141 114131 311141 411131 211412 211214 211232 2331112"
).split()
START_B = 104
STOP = 106
QUIET_MODULES = 10

PAPER = (236, 236, 230)
INK = (18, 18, 20)


def code128b_values(text: str) -> list[int]:
    """Symbol values: START B, data, check symbol, STOP."""
    if not all(32 <= ord(c) <= 127 for c in text):
        raise ValueError("Code 128 subset B encodes ASCII 32-127 only")
    data = [ord(c) - 32 for c in text]
    check = (START_B + sum(i * v for i, v in enumerate(data, start=1))) % 103
    return [START_B, *data, check, STOP]


def code128b_modules(text: str) -> str:
    """The barcode as a '1' (bar) / '0' (space) string, without quiet zones."""
    out = []
    for v in code128b_values(text):
        for k, w in enumerate(_PATTERNS[v]):
            out.append(("1" if k % 2 == 0 else "0") * int(w))
    return "".join(out)


def decode_code128b(modules: str) -> str:
    """Inverse of `code128b_modules` (checks the check symbol): the tests' read-back."""
    inv = {p: v for v, p in enumerate(_PATTERNS)}
    runs, i = [], 0
    while i < len(modules):
        j = i
        while j < len(modules) and modules[j] == modules[i]:
            j += 1
        runs.append(str(j - i))
        i = j
    vals = [inv["".join(runs[k:k + 6])] for k in range(0, len(runs) - 7, 6)]
    if vals[0] != START_B or "".join(runs[-7:]) != _PATTERNS[STOP]:
        raise ValueError("not a Code 128 B symbol")
    data, check = vals[1:-1], vals[-1]
    if (START_B + sum(i * v for i, v in enumerate(data, start=1))) % 103 != check:
        raise ValueError("check symbol mismatch")
    return "".join(chr(v + 32) for v in data)


@lru_cache(maxsize=16)
def _font(size: int):
    return ImageFont.load_default(size=size)


def label_texture(brand: str, model: str, serial: str, kind: str, size_m: tuple[float, float],
                  row_m: float, px_per_m: float = 10000.0) -> tuple[Image.Image, dict]:
    """The printed label (width x height = size_m) and its layout in metres: text row
    height `row_m` (the model/serial lines), the barcode module width and box."""
    W, H = int(round(size_m[0] * px_per_m)), int(round(size_m[1] * px_per_m))
    img = Image.new("RGB", (W, H), PAPER)
    dr = ImageDraw.Draw(img)
    m = int(0.06 * H)
    row = int(round(row_m * px_per_m))
    y = m
    brand_px = int(row * 1.7)
    dr.text((m, y), brand, font=_font(brand_px), fill=INK)
    y += int(brand_px * 1.25)
    dr.line([(m, y), (W - m, y)], fill=INK, width=max(2, row // 8))
    y += row // 2
    small = _font(int(row * 0.62))
    what = {"module": "PHOTOVOLTAIC MODULE", "microinverter": "MICROINVERTER", "inverter": "GRID-TIE INVERTER"}[kind]
    dr.text((m, y), what, font=small, fill=INK)
    y += int(row * 0.95)
    for key, val in (("MODEL", model), ("S/N", serial)):
        dr.text((m, y), f"{key}: {val}", font=_font(row), fill=INK)
        y += int(row * 1.35)
    bits = code128b_modules(serial)
    n = len(bits) + 2 * QUIET_MODULES
    mod_px = max(1, int((W - 2 * m) / n))
    bar_h = int(min(H - y - m, 2.6 * row))
    x0 = m + QUIET_MODULES * mod_px
    for k, b in enumerate(bits):
        if b == "1":
            dr.rectangle([x0 + k * mod_px, y, x0 + (k + 1) * mod_px - 1, y + bar_h - 1], fill=INK)
    layout = {"row_m": row / px_per_m, "barcode_module_m": mod_px / px_per_m,
              "barcode_box_px": [x0, y, x0 + len(bits) * mod_px - 1, y + bar_h - 1], "barcode_module_px": mod_px,
              "size_px": [W, H]}
    return img, layout


def read_barcode_row(img: Image.Image, layout: dict) -> str:
    """Decode the barcode from the texture by sampling each module's centre on its mid row."""
    a = np.asarray(img.convert("L"), dtype=float)
    x0, y0, x1, y1 = layout["barcode_box_px"]
    mp = layout["barcode_module_px"]
    row = a[(y0 + y1) // 2]
    n = (x1 - x0 + 1) // mp
    bits = "".join("1" if row[x0 + k * mp + mp // 2] < 128 else "0" for k in range(n))
    return decode_code128b(bits)
