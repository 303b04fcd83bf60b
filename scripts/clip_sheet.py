"""Docs figures of a clip run: a contact sheet (one row per clip, every other frame) and
the same frames with the ground truth drawn on (modal boxes by category, the events
active at each frame's time).

    python scripts/clip_sheet.py OUT/warehouse docs/img/warehouse_contact_sheet.jpg \
        docs/img/warehouse_labels.jpg [--every 2]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from PIL import Image, ImageDraw

COLOURS = {"person": (255, 60, 60), "forklift": (255, 200, 0), "amr": (0, 200, 255), "pallet": (160, 255, 120),
           "car": (0, 200, 255), "motorcycle": (255, 200, 0), "bicycle": (160, 255, 120)}   # intersection


def _frames(run: Path, every: int):
    for line in (run / "clips.jsonl").read_text().splitlines():
        clip = json.loads((run / json.loads(line)["path"]).read_text())
        yield clip, clip["frames"][::every]


def _sheet(rows, draw_labels: bool, run: Path) -> Image.Image:
    cells = []
    for clip, frames in rows:
        row = []
        for f in frames:
            im = Image.open(run / f["image"]).convert("RGB")
            if draw_labels:
                d = ImageDraw.Draw(im)
                for o in f["objects"]:
                    b = o["box_xyxy"]
                    if b is not None:
                        d.rectangle([b[0] - 0.5, b[1] - 0.5, b[2] + 0.5, b[3] + 0.5],
                                    outline=COLOURS.get(o.get("category", ""), (255, 255, 255)))
                active = [e for e in clip["events"] if e["t_start"] <= f["t"] <= e["t_end"]]
                text = f"t={f['t']:.2f}s " + ", ".join(e["type"] for e in active)
                d.rectangle([0, 0, 6 * len(text) + 4, 11], fill=(0, 0, 0))
                d.text((2, 0), text, fill=(255, 255, 255))
            row.append(im)
        cells.append(row)
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
        rows = list(_frames(a.run, a.every))
    except (OSError, ValueError, KeyError) as exc:
        print(f"clip_sheet: cannot read {a.run}: {exc}", file=sys.stderr)
        return 2
    _sheet(rows, False, a.run).save(a.sheet, quality=88)
    _sheet(rows, True, a.run).save(a.labels, quality=88)
    return 0


if __name__ == "__main__":
    sys.exit(main())
