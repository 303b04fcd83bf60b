"""The gauge's LCD as an image (Pillow, no bpy): seven-segment digits with one decimal.

Layout (used by the builder and read back by the tests): the image is the display
window, `DISPLAY_PX` wide and tall; the text is right-aligned in fixed digit cells, so
segment k of cell i lies at `segment_boxes(text)[i][k]` (pixel boxes). Ink is dark on
a pale grey-green LCD background, like a real digital angle gauge.
"""
from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

LCD_BG = (172, 182, 160)
LCD_INK = (24, 26, 22)
DISPLAY_PX = (480, 220)            # window image (w, h)
DIGIT_H_FRAC = 0.66                # digit height / window height
CELL_W_FRAC = 0.58                 # digit cell width / digit height
SEG_T_FRAC = 0.13                  # segment thickness / digit height

# horizontal segments: centre line y (units of digit height); vertical: side and y span
_HSEG = {"a": 0.0, "g": 0.5, "d": 1.0}
_VSEG = {"f": ("l", 0.04, 0.48), "b": ("r", 0.04, 0.48), "e": ("l", 0.52, 0.96), "c": ("r", 0.52, 0.96)}
DIGIT_SEGMENTS = {
    "0": "abcdef", "1": "bc", "2": "abdeg", "3": "abcdg", "4": "bcfg", "5": "acdfg", "6": "acdefg",
    "7": "abc", "8": "abcdefg", "9": "abcdfg", "-": "g",
}
SEGMENTS_TO_DIGIT = {v: k for k, v in DIGIT_SEGMENTS.items()}


def display_text(reading_deg: float) -> str:
    """What the gauge shows: the reading to one decimal."""
    return f"{round(float(reading_deg) + 0.0, 1):.1f}"


def _layout(text: str):
    """(digit height, cell width, gap, [(x0 of each digit cell)], decimal point box)."""
    W, H = DISPLAY_PX
    dh = DIGIT_H_FRAC * H
    cw = CELL_W_FRAC * dh
    gap = 0.5 * cw
    digits = text.replace(".", "")
    n = len(digits)
    top = (H - dh) / 2
    right = W - 0.1 * W
    xs = [right - (n - i) * (cw + gap) + gap for i in range(n)]
    dp_idx = text.index(".") if "." in text else None  # digits before the point
    dp = None
    if dp_idx is not None:
        t = SEG_T_FRAC * dh
        x = xs[dp_idx - 1] + cw + (gap - t) / 2
        dp = (x, top + dh - t, x + t, top + dh)
    return dh, cw, top, xs, dp


def segment_boxes(text: str) -> list[dict[str, tuple[float, float, float, float]]]:
    """Per digit cell, the pixel box of each of its seven segments."""
    dh, cw, top, xs, _ = _layout(text)
    t = SEG_T_FRAC * dh
    out = []
    for x0 in xs:
        boxes = {}
        for s, yc in _HSEG.items():
            y = top + yc * dh
            y0 = min(max(y - t / 2, top), top + dh - t)
            boxes[s] = (x0 + 0.5 * t, y0, x0 + cw - 0.5 * t, y0 + t)
        for s, (side, a, b) in _VSEG.items():
            bx0 = x0 if side == "l" else x0 + cw - t
            boxes[s] = (bx0, top + a * dh, bx0 + t, top + b * dh)
        out.append(boxes)
    return out


def decimal_point_box(text: str):
    return _layout(text)[4]


def lcd_texture(text: str) -> Image.Image:
    """The display window showing `text` (digits, optional '-', one '.')."""
    img = Image.new("RGB", DISPLAY_PX, LCD_BG)
    dr = ImageDraw.Draw(img)
    digits = text.replace(".", "")
    for ch, boxes in zip(digits, segment_boxes(text)):
        for s in DIGIT_SEGMENTS[ch]:
            x0, y0, x1, y1 = boxes[s]
            dr.rectangle([x0 + 1, y0 + 1, x1 - 1, y1 - 1], fill=LCD_INK)
    dp = decimal_point_box(text)
    if dp is not None:
        dr.rectangle(list(dp), fill=LCD_INK)
    # faint degree mark in the corner, as many gauges show
    W, H = DISPLAY_PX
    r = 0.05 * H
    cx, cy = W - 0.045 * W, (H - DIGIT_H_FRAC * H) / 2 + r
    dr.ellipse([cx - r, cy - r, cx + r, cy + r], outline=LCD_INK, width=max(2, int(r / 2.5)))
    return img


def read_lcd(img: Image.Image | np.ndarray, n_digits: int, with_point: bool = True) -> str:
    """Read the digits back from an LCD image by sampling each segment's centre
    (the test's independent check that the texture shows what the label says)."""
    a = np.asarray(img.convert("L") if isinstance(img, Image.Image) else img, dtype=float)
    thr = (np.mean(LCD_BG) + np.mean(LCD_INK)) / 2
    proto = "8" * (n_digits - 1) + ".8" if with_point else "8" * n_digits
    out = ""
    for i, boxes in enumerate(segment_boxes(proto)):
        on = ""
        for s in "abcdefg":
            x0, y0, x1, y1 = boxes[s]
            if a[int((y0 + y1) / 2), int((x0 + x1) / 2)] < thr:
                on += s
        out += SEGMENTS_TO_DIGIT.get(on, "?")
        if with_point and i == n_digits - 2:
            out += "."
    return out
