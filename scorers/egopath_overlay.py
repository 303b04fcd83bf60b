"""EgoPathBench overlays (PIL): the numbered model-input markers, and prediction overlays in
the style of Figures S1-S10.

`draw_candidates` makes the image a model sees: every marker looks the same (white disc,
black ring, thin white halo, black number), so the overlay never leaks a label. Marker
size follows the image size (radius 2.2% of the short side, at least 7 px: 11 px at
640x480). Deterministic: Pillow's bundled font, fixed draw order (by display id).

`draw_prediction` draws a recorded answer on top of that image:
* traversability: green ring = feasible and selected, red cross = selected but not
  feasible, dashed orange ring = feasible but omitted;
* route: faint green outlines on acceptable goals; the returned route as a polyline,
  green when every edge is legal, else red with the illegal edges dashed; the required
  start in blue; the returned endpoint green (acceptable goal) or orange (wrong goal).
A caption band names the Table S4 outcome.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from PIL import Image, ImageDraw, ImageFont

from geometry.egopath_schema import TRAVERSABILITY_TASKS, Question, Waypoint
from scorers.egopath import evaluate_route, evaluate_traversability

__all__ = ["draw_candidates", "draw_prediction", "contact_sheet", "marker_radius"]

GREEN = (20, 200, 60)
RED = (230, 30, 30)
ORANGE = (255, 150, 0)
BLUE = (40, 110, 255)
FAINT_GREEN = (150, 235, 160)
BLACK = (0, 0, 0)
WHITE = (255, 255, 255)


def _font(size: int) -> Any:
    try:
        return ImageFont.load_default(size=max(6, int(size)))
    except (TypeError, OSError):  # Pillow without FreeType: fixed bitmap font
        return ImageFont.load_default()


def marker_radius(size: tuple[int, int], scale: float = 1.0) -> int:
    """Marker radius in px for an image of `size` (w, h)."""
    return max(7, round(0.022 * min(size) * scale))


def _rgb(image: Image.Image) -> Image.Image:
    if not isinstance(image, Image.Image):
        raise TypeError(f"expected a PIL image, got {type(image).__name__}")
    return image.convert("RGB")  # always a copy


def draw_candidates(image: Image.Image, waypoints: Sequence[Waypoint], scale: float = 1.0) -> Image.Image:
    """The model-input overlay: a numbered marker at every waypoint's pixel."""
    if scale <= 0:
        raise ValueError("scale must be positive")
    ids = [w.display_id for w in waypoints]
    if len(set(ids)) != len(ids):
        raise ValueError("display ids must be unique on one overlay")
    out = _rgb(image)
    d = ImageDraw.Draw(out)
    r = marker_radius(out.size, scale)
    ring = max(2, round(r / 6))
    for w in sorted(waypoints, key=lambda w: w.display_id):
        if len(w.pixel) != 2 or not all(math.isfinite(c) for c in w.pixel):
            raise ValueError(f"waypoint {w.display_id}: pixel {w.pixel} is not [u, v]")
        u, v = w.pixel
        label = str(w.display_id)
        font = _font(r * (1.25 if len(label) == 1 else 1.0 if len(label) == 2 else 0.8))
        d.ellipse((u - r - 1, v - r - 1, u + r + 1, v + r + 1), fill=WHITE)               # halo on dark ground
        d.ellipse((u - r, v - r, u + r, v + r), fill=WHITE, outline=BLACK, width=ring)
        d.text((u, v), label, fill=BLACK, font=font, anchor="mm")
    return out


# ---------------------------------------------------------------- prediction overlays

def _ring(d: ImageDraw.ImageDraw, c: tuple[float, float], r: float, colour, width: int, dashed: bool = False) -> None:
    box = (c[0] - r, c[1] - r, c[0] + r, c[1] + r)
    if not dashed:
        d.ellipse(box, outline=colour, width=width)
        return
    for a in range(0, 360, 30):  # 12 dashes of 18 degrees
        d.arc(box, a, a + 18, fill=colour, width=width)


def _cross(d: ImageDraw.ImageDraw, c: tuple[float, float], r: float, colour, width: int) -> None:
    u, v = c
    d.line((u - r, v - r, u + r, v + r), fill=colour, width=width)
    d.line((u - r, v + r, u + r, v - r), fill=colour, width=width)


def _line(d: ImageDraw.ImageDraw, a, b, colour, width: int, dashed: bool = False) -> None:
    if not dashed:
        d.line((a[0], a[1], b[0], b[1]), fill=colour, width=width)
        return
    length = math.dist(a, b)
    dash = max(4.0, 2.5 * width)
    n = max(1, int(length // (2 * dash)))
    for k in range(n + 1):
        t0, t1 = (2 * k * dash) / max(length, 1e-9), ((2 * k + 1) * dash) / max(length, 1e-9)
        if t0 >= 1:
            break
        t1 = min(t1, 1.0)
        d.line((a[0] + (b[0] - a[0]) * t0, a[1] + (b[1] - a[1]) * t0,
                a[0] + (b[0] - a[0]) * t1, a[1] + (b[1] - a[1]) * t1), fill=colour, width=width)


def _trim(a, b, r: float):
    """Segment a->b shortened by r at both ends; (None, None) if nothing is left."""
    length = math.dist(a, b)
    if length <= 2 * r:
        return None, None
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    return (a[0] + ux * r, a[1] + uy * r), (b[0] - ux * r, b[1] - uy * r)


def _caption(out: Image.Image, text: str) -> None:
    d = ImageDraw.Draw(out, "RGBA")
    size = max(10, out.size[1] // 30)
    font = _font(size)
    d.rectangle((0, 0, out.size[0], size + 8), fill=(0, 0, 0, 170))
    d.text((4, 4), text, fill=WHITE, font=font)


def _pixel_map(q: Question, pixels: Mapping[Any, Sequence[float]] | None) -> dict[int, tuple[float, float]]:
    src = pixels if pixels else q.waypoint_pixels
    out = {}
    for k, uv in (src or {}).items():
        out[int(k)] = (float(uv[0]), float(uv[1]))
    return out


def draw_prediction(image: Image.Image, q: Question, text: Any,
                    pixels: Mapping[int, Sequence[float]] | None = None) -> Image.Image:
    """One recorded answer drawn over the question image (Figures S1-S10 conventions).

    `pixels` maps display id -> (u, v); when empty, `q.waypoint_pixels` is used."""
    out = _rgb(image)
    px = _pixel_map(q, pixels)
    r = marker_radius(out.size) + 4
    w = max(2, r // 4)
    d = ImageDraw.Draw(out)
    if q.task in TRAVERSABILITY_TASKS:
        o = evaluate_traversability(q, text)
        pred, pos = set(o.predicted), set(q.positives)
        for i in sorted(q.display_ids):
            if i not in px:
                continue
            if i in pred and i in pos:
                _ring(d, px[i], r, GREEN, w)
            elif i in pred:
                _cross(d, px[i], r, RED, w)
            elif i in pos:
                _ring(d, px[i], r, ORANGE, w, dashed=True)
        cap = (f"TP {o.tp}  FP {o.fp}  FN {o.fn}  TN {o.tn}" + (f"  invalid {o.n_invalid}" if o.n_invalid else "")
               + ("" if o.parsed else "  (unparseable)"))
        _caption(out, cap)
        return out
    o = evaluate_route(q, text)
    for g in sorted(q.goal_ids):
        if g in px:
            _ring(d, px[g], r + 2, FAINT_GREEN, max(2, w // 2))
    ids = o.ids or []
    bad = {(a, b) for a, b in o.illegal_edges}
    colour = GREEN if not bad else RED
    for a, b in zip(ids, ids[1:]):
        if a in px and b in px and a != b:
            p, q_ = _trim(px[a], px[b], r - w)   # stop at the marker edge: numbers stay legible
            if p is not None:
                _line(d, p, q_, colour, w, dashed=(a, b) in bad)
    if q.start_id in px:
        _ring(d, px[q.start_id], r, BLUE, w)
    if ids and ids[-1] in px:
        _ring(d, px[ids[-1]], r + w + 1, GREEN if o.endpoint_hit else ORANGE, w)
    stage = "success" if o.stage is None else o.stage
    spl = f"  SPL {o.spl:.2f}" if o.success else ""
    _caption(out, f"{stage}{spl}  {ids if o.ids is not None else 'no list'}"[:120])
    return out


def contact_sheet(panels: Sequence[Image.Image], titles: Sequence[str], cols: int | None = None,
                  panel_width: int | None = None) -> Image.Image:
    """A grid of same-size panels with a title above each (e.g. one question across models).

    render_farm.contact_sheet works from files and writes JPEGs; scorers may not import
    render_farm, and this grid takes in-memory panels, so it is drawn here."""
    if not panels:
        raise ValueError("contact_sheet needs at least one panel")
    if len(titles) != len(panels):
        raise ValueError(f"{len(panels)} panels but {len(titles)} titles")
    cols = cols or min(len(panels), 4)
    if cols < 1:
        raise ValueError("cols must be >= 1")
    pw = panel_width or max(panels[0].size[0], 320)   # tiny renders are upscaled to stay readable
    ph = max(1, round(pw * panels[0].size[1] / panels[0].size[0]))
    font = _font(max(10, pw // 28))
    th = font.getbbox("Ag|")[3] + 6
    gap = 8
    rows = math.ceil(len(panels) / cols)
    sheet = Image.new("RGB", (gap + cols * (pw + gap), gap + rows * (ph + th + gap)), (248, 248, 248))
    d = ImageDraw.Draw(sheet)
    for k, (p, t) in enumerate(zip(panels, titles)):
        x = gap + (k % cols) * (pw + gap)
        y = gap + (k // cols) * (ph + th + gap)
        label = str(t)
        while label and d.textlength(label, font=font) > pw:
            label = label[:-1]
        d.text((x, y), label, fill=(20, 20, 20), font=font)
        sheet.paste(_rgb(p).resize((pw, ph), Image.Resampling.LANCZOS), (x, y + th))
    return sheet
