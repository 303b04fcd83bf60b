"""Tests for contact sheets: layout, status borders, placeholders, atomic write."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from render_farm.contact_sheet import STATUS_COLOURS, write_contact_sheet


def _make_images(tmp_path: Path, rng: np.random.Generator) -> list[dict]:
    """7 items: mixed landscape/portrait/square, one missing file, every status."""
    sizes = [(64, 48), (48, 64), (80, 45), (40, 40), (30, 60), (64, 48), (64, 48)]
    statuses = ["accept", "reject", "unscored", "excluded", "failed", "accept", "reject"]
    items = []
    for i, ((w, h), st) in enumerate(zip(sizes, statuses)):
        p = tmp_path / f"frame_{i:03d}.png"
        if i != 3:  # item 3 is missing on disk
            base = rng.integers(0, 255, size=3)
            arr = np.clip(base + rng.integers(-30, 30, size=(h, w, 3)), 0, 255).astype(np.uint8)
            Image.fromarray(arr).save(p)
        items.append(
            {
                "image_path": str(p),
                "label_lines": [f"frame {i:03d}", st, "term: very_long_failing_term_name_that_must_be_cut"],
                "status": st,
            }
        )
    return items


def _near(px, colour, tol=40) -> bool:
    return all(abs(int(a) - int(b)) <= tol for a, b in zip(px, colour))


def test_sheet_layout_borders_and_placeholder(tmp_path):
    items = _make_images(tmp_path, np.random.default_rng(0))
    out = tmp_path / "sheets" / "sheet.jpg"
    lay = write_contact_sheet(out, items, thumb_long=120, columns=3, title="run 0001 / kitchen")
    assert lay.shown == 7 and lay.omitted == 0 and len(lay.boxes) == 7
    with Image.open(out) as im:
        assert im.format == "JPEG"
        assert im.size == (lay.width, lay.height)
        sheet = np.asarray(im.convert("RGB"))
    assert [p.name for p in out.parent.iterdir()] == ["sheet.jpg"]  # no temp file left

    # Border pixels of every thumb carry the status colour (midline of the border strip).
    for box, it in zip(lay.boxes, items):
        x0, y0, x1, y1 = box
        colour = STATUS_COLOURS[it["status"]]
        ym = (y0 + y1) // 2
        xm = (x0 + x1) // 2
        for px in (sheet[ym, x0 + 2], sheet[ym, x1 - 3], sheet[y0 + 2, xm], sheet[y1 - 3, xm]):
            assert _near(px, colour), (it["status"], px)
    assert _near(sheet[lay.boxes[0][1] + 2, lay.boxes[0][0] + 2], STATUS_COLOURS["accept"])

    # Aspect ratio is kept: portrait thumb is taller than wide and vice versa.
    def inner(b):
        return b[2] - b[0] - 10, b[3] - b[1] - 10

    assert inner(lay.boxes[0]) == (120, 90)
    assert inner(lay.boxes[1]) == (90, 120)
    assert inner(lay.boxes[4]) == (60, 120)
    # Placeholder for the missing file is the same width as a landscape thumb.
    assert inner(lay.boxes[3]) == (120, 90)

    # More rows -> taller sheet, same width.
    lay1 = write_contact_sheet(tmp_path / "one_row.jpg", items[:3], thumb_long=120, columns=3)
    lay2 = write_contact_sheet(tmp_path / "two_rows.jpg", items[:6], thumb_long=120, columns=3)
    assert lay1.height < lay2.height < lay.height
    assert lay1.width == lay2.width
    with Image.open(tmp_path / "two_rows.jpg") as im:
        assert im.size == (lay2.width, lay2.height)


@dataclass
class _Obj:
    image_path: str | None
    label_lines: list[str]
    status: str


def test_objects_cap_and_missing_everything(tmp_path):
    items = [_Obj(None if i % 2 else str(tmp_path / "nope.jpg"), [f"f{i}"], "failed") for i in range(10)]
    (tmp_path / "corrupt.jpg").write_bytes(b"not a jpeg")
    items.append(_Obj(str(tmp_path / "corrupt.jpg"), ["corrupt"], "excluded"))
    lay = write_contact_sheet(tmp_path / "capped.jpg", items, thumb_long=40, columns=4, max_items=5)
    assert lay.shown == 5 and lay.omitted == 6
    with Image.open(tmp_path / "capped.jpg") as im:
        assert im.size == (lay.width, lay.height)


def test_empty_and_bad_status(tmp_path):
    lay = write_contact_sheet(tmp_path / "empty.jpg", [], title="nothing rendered")
    assert lay.shown == 0 and (tmp_path / "empty.jpg").is_file()
    with pytest.raises(ValueError):
        write_contact_sheet(tmp_path / "bad.jpg", [{"image_path": None, "label_lines": [], "status": "maybe"}])
    assert not (tmp_path / "bad.jpg").exists()

