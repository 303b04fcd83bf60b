"""Docs figures of a clip run: a contact sheet (one row per clip, every other frame) and
the same frames with the ground truth drawn on (modal boxes by category, the events
active at each frame's time).

    python scripts/clip_sheet.py OUT/warehouse docs/img/warehouse_contact_sheet.jpg \
        docs/img/warehouse_labels.jpg [--every 2]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PIL import Image

from render_farm.clip_figures import ClipFigureError, draw_labels, frame_image, read_clips


def _sheet(rows, labels: bool, run: Path) -> Image.Image:
    cells = [[draw_labels(frame_image(run, f), clip, f) if labels else frame_image(run, f) for f in frames]
             for clip, frames in rows]
    w, h = cells[0][0].size
    sheet = Image.new("RGB", (w * max(len(r) for r in cells), h * len(cells)))
    for i, row in enumerate(cells):
        for j, im in enumerate(row):
            sheet.paste(im, (j * w, i * h))
    return sheet


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=Path)
    ap.add_argument("sheet", type=Path)
    ap.add_argument("labels", type=Path)
    ap.add_argument("--every", type=int, default=2)
    a = ap.parse_args(argv)
    try:
        rows = [(clip, clip["frames"][::a.every]) for clip in read_clips(a.run)]
        if not rows:
            raise ClipFigureError(f"no clips in {a.run}")
        _sheet(rows, False, a.run).save(a.sheet, quality=88)
        _sheet(rows, True, a.run).save(a.labels, quality=88)
    except (ClipFigureError, KeyError) as exc:
        print(f"clip_sheet: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
