"""Contact sheets: a grid of frame thumbnails for people to eyeball a run.

Scores and logs do not show a flipped camera or a grey-boxed asset; a glance
at a sheet does. Each thumbnail gets a border coloured by its status and a
few label lines (frame id, verdict, failing term). Missing or unreadable
images become labelled placeholders so a half-finished run still yields a
sheet. Written as JPEG atomically, like the frames themselves.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from PIL import Image, ImageDraw, ImageFont

from render_farm.isp import write_jpeg_atomic

__all__ = ["STATUS_COLOURS", "SheetLayout", "write_contact_sheet"]

STATUS_COLOURS: dict[str, tuple[int, int, int]] = {
    "accept": (0, 170, 60),
    "reject": (215, 30, 30),
    "unscored": (150, 150, 150),
    "excluded": (245, 140, 0),
    "failed": (0, 0, 0),
}

DEFAULT_MAX_ITEMS = 120
MAX_LABEL_LINES = 6

_BG = (248, 248, 248)
_TEXT = (25, 25, 25)
_PLACEHOLDER_BG = (210, 210, 210)
_MARGIN = 12
_GAP = 12
_BORDER = 5
_JPEG_QUALITY = 90


@dataclass
class SheetLayout:
    """What was drawn where; returned so callers and tests need not re-derive it."""

    width: int
    height: int
    shown: int
    omitted: int
    # Outer box (x0, y0, x1, y1), end-exclusive, of each coloured border, in item order.
    boxes: list[tuple[int, int, int, int]] = field(default_factory=list)


def _get(item: Any, name: str, default: Any = None) -> Any:
    """Items may be dicts or objects (pydantic models, dataclasses)."""
    if isinstance(item, dict):
        return item.get(name, default)
    return getattr(item, name, default)


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    """Pillow's bundled font, so sheets render the same on any worker."""
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # Pillow without FreeType: fixed bitmap font
        return ImageFont.load_default()


def _line_height(font: Any) -> int:
    x0, y0, x1, y1 = font.getbbox("Ag|")
    return int(y1 - min(y0, 0)) + 3


def _fit(draw: ImageDraw.ImageDraw, text: str, font: Any, width: int) -> str:
    """Truncate with '...' so labels never spill into the next cell."""
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "...", font=font) > width:
        text = text[:-1]
    return text + "..."


def _load_thumb(path: Any, long_side: int) -> tuple[Image.Image | None, str | None]:
    """Thumbnail scaled so its long side is ``long_side`` (aspect kept), or a reason."""
    if path is None or str(path) == "":
        return None, "no image"
    p = Path(path)
    if not p.is_file():
        return None, "missing"
    try:
        with Image.open(p) as im:
            im.draft("RGB", (long_side, long_side))  # cheap JPEG downscale on decode
            im = im.convert("RGB")
            w, h = im.size
            s = long_side / max(w, h)
            size = (max(1, round(w * s)), max(1, round(h * s)))
            return im.resize(size, Image.Resampling.LANCZOS), None
    except Exception:  # any decode failure must still give a sheet
        return None, "unreadable"


def _placeholder(long_side: int, reason: str, path: Any, font: Any) -> Image.Image:
    """Grey 4:3 box stating why there is no picture and which file it wanted."""
    w, h = long_side, max(1, long_side * 3 // 4)
    im = Image.new("RGB", (w, h), _PLACEHOLDER_BG)
    d = ImageDraw.Draw(im)
    lh = _line_height(font)
    lines = [reason.upper(), _fit(d, Path(str(path)).name if path else "", font, w - 8)]
    y = (h - lh * len(lines)) // 2
    for line in lines:
        tw = d.textlength(line, font=font)
        d.text(((w - tw) / 2, y), line, fill=_TEXT, font=font)
        y += lh
    return im


def write_contact_sheet(
    path: str | os.PathLike[str],
    items: Iterable[Any],
    thumb_long: int = 240,
    columns: int = 6,
    title: str | None = None,
    max_items: int = DEFAULT_MAX_ITEMS,
) -> SheetLayout:
    """Write a JPEG grid of thumbnails with status borders and label lines.

    Each item (dict or object) has ``image_path``, ``label_lines`` and
    ``status`` in STATUS_COLOURS. At most ``max_items`` thumbnails are drawn;
    the rest are summarised as "+N more".
    """
    if thumb_long < 16:
        raise ValueError(f"thumb_long must be >= 16, got {thumb_long}")
    if columns < 1:
        raise ValueError(f"columns must be >= 1, got {columns}")
    items = list(items)
    for i, it in enumerate(items):
        st = _get(it, "status", "unscored")
        if st not in STATUS_COLOURS:
            raise ValueError(f"item {i}: unknown status {st!r}; expected one of {sorted(STATUS_COLOURS)}")
    shown_items = items[: max(0, max_items)]
    omitted = len(items) - len(shown_items)

    font = _font(max(11, thumb_long // 20))
    head_font = _font(max(16, thumb_long // 12))
    lh = _line_height(font)
    head_lh = _line_height(head_font)

    labels = [[str(s) for s in (_get(it, "label_lines") or [])][:MAX_LABEL_LINES] for it in shown_items]
    n_lines = max((len(l) for l in labels), default=0)
    cell_w = thumb_long + 2 * _BORDER
    cell_h = thumb_long + 2 * _BORDER + 4 + n_lines * lh
    ncols = max(1, min(columns, len(shown_items)))
    nrows = (len(shown_items) + ncols - 1) // ncols

    # Header: optional title, then a colour legend with counts per status.
    header_h = (head_lh + 4 if title else 0) + lh + 8
    footer_h = lh + 8 if omitted or not shown_items else 0
    legend_w = 0
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    counts = {s: sum(1 for it in items if _get(it, "status", "unscored") == s) for s in STATUS_COLOURS}
    legend = [(s, f"{s} {counts[s]}") for s in STATUS_COLOURS]
    for _, text in legend:
        legend_w += lh + 4 + int(probe.textlength(text, font=font)) + 14
    title_w = int(probe.textlength(title, font=head_font)) if title else 0

    width = max(2 * _MARGIN + ncols * cell_w + (ncols - 1) * _GAP, 2 * _MARGIN + max(legend_w, title_w))
    height = 2 * _MARGIN + header_h + nrows * cell_h + max(0, nrows - 1) * _GAP + footer_h

    sheet = Image.new("RGB", (width, height), _BG)
    d = ImageDraw.Draw(sheet)
    y = _MARGIN
    if title:
        d.text((_MARGIN, y), title, fill=_TEXT, font=head_font)
        y += head_lh + 4
    x = _MARGIN
    for status, text in legend:
        sw = lh - 4
        d.rectangle([x, y + 1, x + sw, y + 1 + sw], fill=STATUS_COLOURS[status])
        x += sw + 5
        d.text((x, y), text, fill=_TEXT, font=font)
        x += int(d.textlength(text, font=font)) + 14
    top = _MARGIN + header_h

    boxes: list[tuple[int, int, int, int]] = []
    for i, (it, lines) in enumerate(zip(shown_items, labels)):
        r, c = divmod(i, ncols)
        cx0 = _MARGIN + c * (cell_w + _GAP)
        cy0 = top + r * (cell_h + _GAP)
        img_path = _get(it, "image_path")
        thumb, reason = _load_thumb(img_path, thumb_long)
        if thumb is None:
            thumb = _placeholder(thumb_long, reason or "missing", img_path, font)
        tw, th = thumb.size
        # Centred horizontally, sitting on the label baseline, so mixed
        # orientations line up and each label stays next to its picture.
        bx0 = cx0 + (thumb_long - tw) // 2
        by0 = cy0 + (thumb_long - th)
        bx1, by1 = bx0 + tw + 2 * _BORDER, by0 + th + 2 * _BORDER
        d.rectangle([bx0, by0, bx1 - 1, by1 - 1], fill=STATUS_COLOURS[_get(it, "status", "unscored")])
        sheet.paste(thumb, (bx0 + _BORDER, by0 + _BORDER))
        boxes.append((bx0, by0, bx1, by1))
        ty = cy0 + thumb_long + 2 * _BORDER + 4
        for line in lines:
            d.text((cx0, ty), _fit(d, line, font, cell_w), fill=_TEXT, font=font)
            ty += lh

    if footer_h:
        note = f"+{omitted} more not shown" if shown_items else "(no frames)"
        d.text((_MARGIN, height - _MARGIN - lh), note, fill=_TEXT, font=font)

    buf = io.BytesIO()
    # 4:4:4 keeps thin coloured borders and small text crisp.
    sheet.save(buf, format="JPEG", quality=_JPEG_QUALITY, subsampling=0, optimize=False)
    write_jpeg_atomic(path, buf.getvalue())
    return SheetLayout(width=width, height=height, shown=len(shown_items), omitted=omitted, boxes=boxes)
