"""A frame with its verdict and every term printed beside it: what a reviewer looks at."""
from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from formats.records import FrameRecord

COLOURS = {"accept": (20, 160, 60), "reject": (200, 30, 30), "unscored": (120, 120, 120),
           "excluded": (230, 130, 0)}


def annotate(run_dir: Path, rec: FrameRecord, long_side: int = 900) -> Image.Image:
    img = Image.open(Path(run_dir) / rec.image).convert("RGB")
    scale = long_side / max(img.size)
    img = img.resize((round(img.width * scale), round(img.height * scale)), Image.LANCZOS)
    draw = ImageDraw.Draw(img)
    px = rec.ground_truth.get("crossing_px") or rec.ground_truth.get("target_center_px")
    if px:  # the labelled point, e.g. where the module edge crosses the tape
        u, v = px[0] * scale, px[1] * scale
        draw.ellipse((u - 9, v - 9, u + 9, v + 9), outline=(255, 0, 255), width=2)
    font = ImageFont.load_default(size=17)
    lines = [f"{rec.frame_id}   verdict: {rec.verdict.upper()}"]
    for t in rec.terms:
        mark = "ok " if t.passed else ("gray" if t.gray else "FAIL")
        value = t.value if not isinstance(t.value, float) else f"{t.value:.3g}"
        lines.append(f"[{mark}] {t.name}: {value} (needs {t.threshold})")
    gt = {k: rec.ground_truth[k] for k in ("reading_in", "gap_in", "tilted", "geometric_reading_in")
          if k in rec.ground_truth}
    for k, v in gt.items():
        lines.append(f"truth {k} = {v:.3f}" if isinstance(v, float) else f"truth {k} = {v}")
    panel_w = 520
    out = Image.new("RGB", (img.width + panel_w, max(img.height, 24 * len(lines) + 20)), (250, 250, 250))
    out.paste(img, (0, 0))
    d = ImageDraw.Draw(out)
    d.rectangle((0, 0, img.width - 1, img.height - 1), outline=COLOURS.get(rec.verdict, (0, 0, 0)), width=6)
    for i, line in enumerate(lines):
        d.text((img.width + 12, 12 + 24 * i), line, fill=(20, 20, 20), font=font)
    return out
