"""Pins of scorers.vantage_dataset: an exported VANTAGE dataset (per-task Parquet shards) read back
into items without packagers, on shards written here with pyarrow (no render, no export run):
where the root is found, every field of a row lands in its item, items come back sorted by id
across shards and tasks, and each kind of bad shard is a one-line error naming it."""
from __future__ import annotations

import io
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image as PILImage

from formats.vantage_item import (BoxesAnswer, Media, SegmentsAnswer, TrackAnswer, VantageItem, YesNoAnswer)
from scorers import vantage_dataset as D


def _item(task, key, answer, kind="video", n=2, tags=None):
    nums = [15 * k for k in range(n)]
    media = Media(kind=kind, clip_id=f"clip-{key}", frame_numbers=nums, times_s=[k / 25 for k in nums], fps=25.0,
                  duration_s=12.5, width=320, height=240)
    return VantageItem(id=f"{task}/clip-{key}/0", task=task, domain="T", env="intersection", media=media,
                       prompt=f"prompt {key}", answer=answer, tags=tags or {})


EV_B = _item("event_verification", "b", YesNoAnswer(label="no"), tags={"night": True, "margin": 0.25})
EV_A = _item("event_verification", "a", YesNoAnswer(label="yes"))
TL = _item("temporal_localization", "c", SegmentsAnswer(windows=[(1.5, 4.0)]))
RX = _item("referring_expressions", "d", BoxesAnswer(task="referring_expressions", boxes=[(1, 2, 30, 40)]), "image", 1)
SOT = _item("single_object_tracking", "e", TrackAnswer(init_box=(1, 2, 3, 4), boxes=[(1, 2, 3, 4), None],
                                                       object_type="person"), "frames", 3 - 1)


def row(it: VantageItem, **over) -> dict:
    m = it.media
    r = {"id": it.id, "task": it.task, "domain": it.domain, "env": it.env, "clip_id": m.clip_id, "prompt": it.prompt,
         "media_kind": m.kind, "frame_numbers": m.frame_numbers, "times_s": m.times_s, "fps": m.fps,
         "duration_s": m.duration_s, "width": m.width, "height": m.height,
         "answer": json.dumps(it.answer.model_dump(mode="json")), "tags": json.dumps(it.tags),
         "video": b"not read"}
    r.update(over)
    return r


def write(root, config, rows, split="test", index=0):
    (root / config).mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), root / config / f"{split}-{index:05d}-of-00002.parquet")


def test_every_field_of_a_row_lands_in_its_item():
    for it in (EV_B, TL, RX, SOT):
        assert D.item_of_row(row(it)) == it
    got = D.item_of_row(row(EV_B))
    assert (got.media.fps, got.media.width, got.media.height, got.media.duration_s) == (25.0, 320, 240, 12.5)
    assert got.media.times_s == [0.0, 0.6] and got.tags == {"night": True, "margin": 0.25}


def test_items_come_back_sorted_by_id_over_shards_and_tasks(tmp_path):
    write(tmp_path, "event_verification", [row(EV_B)], index=0)
    write(tmp_path, "event_verification", [row(EV_A)], index=1)
    write(tmp_path, "temporal_localization", [row(TL)])
    write(tmp_path, "single_object_tracking", [row(SOT)])
    write(tmp_path, "referring_expressions", [row(RX)], split="validation")
    items = D.load_items(tmp_path)
    assert items == sorted([EV_A, EV_B, TL, SOT], key=lambda it: it.id)
    assert D.load_items(tmp_path, "validation") == [RX]
    assert D.load_items(str(tmp_path)) == items
    (tmp_path.parent / "up").mkdir()
    write(tmp_path.parent / "up" / "vantage", "video_qa", [row(EV_A, task="video_qa")], split="x")
    write(tmp_path.parent / "up" / "vantage", "temporal_localization", [row(TL)])
    assert D.find_root(tmp_path.parent / "up") == tmp_path.parent / "up" / "vantage"
    assert D.load_items(tmp_path.parent / "up") == [TL]


def test_find_root_needs_a_shard_of_a_vantage_task(tmp_path):
    assert D.find_root(tmp_path) is None
    write(tmp_path, "not_a_task", [row(EV_A)])
    write(tmp_path, "event_verification", [row(EV_A)], split="train")
    assert D.find_root(tmp_path) is None                     # a foreign config, and only a train split
    (tmp_path / "file").write_text("x")
    assert D.find_root(tmp_path / "file") is None and D.find_root(tmp_path / "missing") is None
    write(tmp_path, "dense_captioning", [row(EV_A)])
    assert D.find_root(tmp_path) == tmp_path
    with pytest.raises(D.VantageDataError, match=r"no <task>/test-\*\.parquet shards of a VANTAGE task"):
        D.load_items(tmp_path / "missing")
    with pytest.raises(D.VantageDataError, match=r"no <task>/validation-\*\.parquet"):
        D.load_items(tmp_path / "file", "validation")


def _error(tmp_path, config, rows=None, raw=None) -> str:
    if raw is not None:
        (tmp_path / config).mkdir(parents=True)
        (tmp_path / config / "test-00000-of-00001.parquet").write_bytes(raw)
    else:
        write(tmp_path, config, rows)
    with pytest.raises(D.VantageDataError) as exc:
        D.load_items(tmp_path)
    msg = str(exc.value)
    assert "\n" not in msg and str(tmp_path / config) in msg
    return msg


def test_bad_shards_are_one_line_errors_naming_them(tmp_path):
    assert "unreadable shard" in _error(tmp_path / "a", "video_qa", raw=b"PAR1 not parquet at all")
    no_answer = {k: v for k, v in row(EV_A).items() if k != "answer"}
    assert "unreadable shard" in _error(tmp_path / "b", "event_verification", [no_answer])
    msg = _error(tmp_path / "c", "event_verification", [row(EV_A, answer='{"task": "event_verification"}')])
    assert "row 'event_verification/clip-a/0' is not a valid item" in msg
    assert "is not a valid item" in _error(tmp_path / "d", "event_verification", [row(EV_A, answer="{not json")])
    assert "is not a valid item" in _error(tmp_path / "e", "event_verification", [row(EV_A, tags="[1, 2]")])
    msg = _error(tmp_path / "f", "temporal_localization", [row(EV_A)])
    assert msg.endswith("row event_verification/clip-a/0 of task event_verification in the temporal_localization config")
    msg = _error(tmp_path / "g", "event_verification", [row(EV_A), row(EV_A)])
    assert msg.endswith("item event_verification/clip-a/0 appears twice")


def _png(value: int) -> dict:
    buf = io.BytesIO()
    PILImage.fromarray(np.full((4, 6, 3), value, np.uint8)).save(buf, format="PNG")
    return {"bytes": buf.getvalue(), "path": None}


def test_tracker_frames_are_the_raw_frame_0_then_the_shown_frames(tmp_path):
    # images: [marked frame 0, crop, frame 1, frame 2]; the tracker sees the raw frame 0, then frames 1 and 2
    write(tmp_path, "single_object_tracking", [{"id": SOT.id, "frame0": _png(10),
                                                "images": [_png(20), _png(30), _png(40), _png(50)]}])
    frames = D.tracker_frames(tmp_path)
    assert list(frames) == [SOT.id]
    assert [int(f[0, 0, 0]) for f in frames[SOT.id]] == [10, 40, 50]
    assert all(f.shape == (4, 6, 3) and f.dtype == np.uint8 for f in frames[SOT.id])
    assert D.tracker_frames(tmp_path, "validation") == {}


@pytest.mark.parametrize("cells", [{"frame0": None, "images": None}, {"frame0": None},
                                   {"images": None}, {"images": ["one"]}])
def test_tracker_frames_refuse_a_row_without_its_frames(tmp_path, cells):
    r = {"id": SOT.id, "frame0": _png(10), "images": [_png(20), _png(30)]}
    r.update({k: ([_png(20)] if v == ["one"] else v) for k, v in cells.items()})
    write(tmp_path, "single_object_tracking", [r])
    with pytest.raises(D.VantageDataError, match=f"SOT row {SOT.id} lacks its raw frame 0 or its frames"):
        D.tracker_frames(tmp_path)


def test_tracker_frames_need_an_export(tmp_path):
    with pytest.raises(D.VantageDataError, match="not a vantage export"):
        D.tracker_frames(tmp_path)


def test_tracker_frames_are_rgb_whatever_the_stored_mode_and_a_one_frame_row_is_frame_0(tmp_path):
    buf = io.BytesIO()
    PILImage.fromarray(np.full((4, 6), 77, np.uint8), mode="L").save(buf, format="PNG")    # grayscale frame 0
    write(tmp_path, "single_object_tracking", [
        {"id": "single_object_tracking/c/one", "frame0": {"bytes": buf.getvalue(), "path": None},
         "images": [_png(20), _png(30)]},                    # the marked frame 0 and the crop: no later frame
        {"id": "single_object_tracking/c/two", "frame0": _png(10), "images": [_png(20), _png(30), _png(40)]}])
    frames = D.tracker_frames(tmp_path)
    (f0,) = frames["single_object_tracking/c/one"]
    assert f0.shape == (4, 6, 3) and (f0 == 77).all()
    assert [int(f[0, 0, 0]) for f in frames["single_object_tracking/c/two"]] == [10, 40]


def test_an_error_quotes_the_first_line_of_its_cause_up_to_200_characters(tmp_path):
    msg = _error(tmp_path / "a", "event_verification", [row(EV_A, answer='{"task": "event_verification"}')])
    assert msg.endswith("is not a valid item (1 validation error for VantageItem)")
    # a shard lacking a column: pyarrow's first line names it and the schema's first field (here 300 characters
    # long), cut at 200
    no_answer = {"f" * 300: 1, **{k: v for k, v in row(EV_A).items() if k != "answer"}}
    msg = _error(tmp_path / "b", "event_verification", [no_answer])
    cause = msg.split("unreadable shard (", 1)[1]
    assert cause.endswith(")") and len(cause) == 201 and "answer" in cause
