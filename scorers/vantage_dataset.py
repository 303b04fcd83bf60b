"""Read an exported VANTAGE-Bench dataset (packagers.vantage_export) back into items.

Scorers must not import packagers, so the shards are read here with pyarrow: every column
but the media (`images`, `video`), which grading never needs. A row that does not validate
as a formats.vantage_item.VantageItem is a one-line error naming it.
"""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from pydantic import ValidationError

from formats import dataset_layout as layout
from formats.vantage_item import TASKS, VantageItem

DATASET_NAME = "vantage"
COLUMNS = ("id", "task", "domain", "env", "clip_id", "prompt", "media_kind", "frame_numbers", "times_s", "fps",
           "duration_s", "width", "height", "answer", "tags")

__all__ = ["VantageDataError", "find_root", "item_of_row", "load_items"]


class VantageDataError(ValueError):
    """The directory is not a readable VANTAGE export (the message says why)."""


def find_root(path: str | Path) -> Path | None:
    """The export root if `path` (or `path/vantage`) holds `<task>/test-*.parquet` of a VANTAGE task."""
    p = Path(path)
    for cand in (p, p / DATASET_NAME):
        if cand.is_dir() and any(layout.find_shards(cand, t, "test") for t in TASKS):
            return cand
    return None


def item_of_row(r: dict) -> VantageItem:
    """An exported row (without its media) as the item it was built from."""
    media = {"kind": r["media_kind"], "clip_id": r["clip_id"], "frame_numbers": r["frame_numbers"],
             "times_s": r["times_s"], "fps": r["fps"], "duration_s": r["duration_s"], "width": r["width"],
             "height": r["height"]}
    return VantageItem.model_validate({"id": r["id"], "task": r["task"], "domain": r["domain"], "env": r["env"],
                                       "media": media, "prompt": r["prompt"], "answer": json.loads(r["answer"]),
                                       "tags": json.loads(r["tags"])})


def load_items(path: str | Path, split: str = "test") -> list[VantageItem]:
    """Every item of the export, sorted by id."""
    root = find_root(path)
    if root is None:
        raise VantageDataError(f"{path}: no <task>/{split}-*.parquet shards of a VANTAGE task (not a vantage export?)")
    items: dict[str, VantageItem] = {}
    for task in TASKS:
        for shard in layout.find_shards(root, task, split):
            try:
                rows = pq.read_table(shard, columns=list(COLUMNS)).to_pylist()
            except (OSError, ValueError, KeyError) as exc:
                raise VantageDataError(f"{shard}: unreadable shard ({str(exc).splitlines()[0][:200]})") from None
            for r in rows:
                try:
                    it = item_of_row(r)
                except (ValidationError, ValueError, TypeError) as exc:
                    raise VantageDataError(f"{shard}: row {r.get('id')!r} is not a valid item "
                                           f"({str(exc).splitlines()[0][:200]})") from None
                if it.task != task:
                    raise VantageDataError(f"{shard}: row {it.id} of task {it.task} in the {task} config")
                if it.id in items:
                    raise VantageDataError(f"{shard}: item {it.id} appears twice")
                items[it.id] = it
    return [items[k] for k in sorted(items)]


def tracker_frames(path: str | Path, split: str = "test") -> dict[str, list]:
    """SOT rows' frames as a tracker baseline sees them (RGB arrays): frame 0 as rendered
    (`frame0`, without the drawn box), then frames 1, 2, ... (`images` after the crop and the
    marked frame 0)."""
    import io

    import numpy as np
    from PIL import Image as PILImage

    root = find_root(path)
    if root is None:
        raise VantageDataError(f"{path}: not a vantage export")

    def rgb(cell) -> np.ndarray:
        return np.asarray(PILImage.open(io.BytesIO(cell["bytes"])).convert("RGB"))

    out: dict[str, list] = {}
    for shard in layout.find_shards(root, "single_object_tracking", split):
        for r in pq.read_table(shard, columns=["id", "frame0", "images"]).to_pylist():
            if not r["frame0"] or len(r["images"] or []) < 2:
                raise VantageDataError(f"{shard}: SOT row {r['id']} lacks its raw frame 0 or its frames")
            out[r["id"]] = [rgb(r["frame0"]), *(rgb(c) for c in r["images"][2:])]
    return out
