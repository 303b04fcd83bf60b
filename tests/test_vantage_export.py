"""The VANTAGE export: items and their rendered media -> per-task Parquet configs that
`datasets.load_dataset` reads offline, that scenebench reads back into the same items, and
that `predict` sends as several images in one request."""
import base64
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage

from formats.vantage_item import VantageItem
from model_runs.dataset_items import iter_items
from model_runs.predict import ClientConfig, build_payload
from packagers.vantage_export import VantageExportError, export_vantage
from render_farm.video import decode_mp4, encode_mp4
from scorers.vantage_dataset import VantageDataError, find_root, load_items
from synthetic_runs import clip_manifest, flat_jpeg


W, H = 64, 48
NUMBERS = [0, 68, 137]


def _jpeg(value: int) -> bytes:
    return flat_jpeg(value, (W, H))


@pytest.fixture()
def run(tmp_path) -> Path:
    d = tmp_path / "runs" / "warehouse"
    (d / "clips").mkdir(parents=True)
    (d / "frames").mkdir()
    frames = []
    for k, n in enumerate(NUMBERS):
        (d / "frames" / f"f{n}.jpg").write_bytes(_jpeg(40 + 80 * k))
        frames.append({"frame_number": n, "t": n / 30, "image": f"frames/f{n}.jpg"})
    arrays = [np.asarray(PILImage.open(d / f["image"]).convert("RGB")) for f in frames]
    (d / "clips" / "c0.mp4").write_bytes(encode_mp4(arrays, NUMBERS, 30))
    (d / "clips" / "c0.json").write_text(json.dumps({"clip_id": "c0", "frames": frames, "video": "clips/c0.mp4"}))
    (d / "manifest.json").write_text(json.dumps(clip_manifest("warehouse")))
    return d


def _media(kind="video", numbers=NUMBERS):
    return {"kind": kind, "clip_id": "c0", "frame_numbers": numbers, "times_s": [n / 30 for n in numbers],
            "duration_s": 16.0, "width": W, "height": H}


def _items() -> list[VantageItem]:
    ev = {"id": "event_verification/c0/0", "task": "event_verification", "domain": "W", "env": "warehouse",
          "media": _media(), "prompt": "Did a near miss occur?", "answer": {"task": "event_verification", "label": "no"},
          "tags": {"margin_m": 0.42}}
    tl = {**ev, "id": "temporal_localization/c0/0", "task": "temporal_localization", "prompt": "When?",
          "answer": {"task": "temporal_localization", "windows": [[1.5, 2.25]]}, "tags": {}}
    ol = {**ev, "id": "object_localization/c0/0", "task": "object_localization", "prompt": "Box every person.",
          "media": _media("image", [68]),
          "answer": {"task": "object_localization", "boxes": [[1, 2, 30, 40]], "category": "person"}, "tags": {}}
    return [VantageItem.model_validate(x) for x in (ev, tl, ol)]


def test_export_loads_offline_and_reads_back_as_the_same_items(run, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    items = _items()
    s = export_vantage([(it, run) for it in items], tmp_path / "ds")
    assert s.rows == {"event_verification": 1, "temporal_localization": 1, "object_localization": 1}
    assert find_root(tmp_path / "ds") == s.root
    assert load_items(tmp_path / "ds") == sorted(items, key=lambda it: it.id)

    from datasets import load_dataset
    ev = load_dataset(str(s.root), "event_verification", split="test", cache_dir=str(tmp_path / "cache"))
    row = ev[0]
    assert row["id"] == "event_verification/c0/0" and row["frame_numbers"] == NUMBERS
    assert [np.asarray(im).mean().round() for im in row["images"]] == pytest.approx([40, 120, 200], abs=2)
    times = [t for t, _ in decode_mp4(row["video"])]
    assert times == pytest.approx([n / 30 for n in NUMBERS], abs=1e-3)        # a real mp4, at the frame times
    assert json.loads(row["answer"]) == {"task": "event_verification", "label": "no"}
    ol = load_dataset(str(s.root), "object_localization", split="test", cache_dir=str(tmp_path / "cache"))[0]
    assert ol["video"] is None and len(ol["images"]) == 1                   # an image item: one frame, no clip

    card = (s.root / "README.md").read_text()
    assert "| event_verification | 1 | 0 | 0 | 1 | 163 | W T S |" in card   # ours beside the paper's Table 13
    assert "| single_object_tracking | 0 | 0 | 0 | 0 | 200 | W (synthetic) |" in card


def test_export_is_byte_identical_and_predict_sends_every_frame(run, tmp_path):
    a = export_vantage([(it, run) for it in _items()], tmp_path / "a")
    b = export_vantage([(it, run) for it in reversed(_items())], tmp_path / "b")
    assert (a.root / "SHA256SUMS").read_bytes() == (b.root / "SHA256SUMS").read_bytes()

    got = {it.id: it for it in iter_items(a.root)}
    ev = got["event_verification/c0/0"]
    assert ev.frames == tuple((run / "frames" / f"f{n}.jpg").read_bytes() for n in NUMBERS)
    body = build_payload(ClientConfig(endpoint="http://127.0.0.1:1", model="m"), ev.prompt, ev.images)
    parts = body["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["image_url", "image_url", "image_url", "text"]   # frames, then the text
    assert base64.b64decode(parts[2]["image_url"]["url"].split(",", 1)[1]) == ev.frames[2]
    assert len(got["object_localization/c0/0"].images) == 1


def test_a_frame_the_clip_did_not_render_is_refused_and_nothing_is_written(run, tmp_path):
    bad = _items()[0].model_copy(update={"media": _items()[0].media.model_copy(update={
        "frame_numbers": [0, 69, 137]})})
    with pytest.raises(VantageExportError, match="has no rendered frame 69"):
        export_vantage([(bad, run)], tmp_path / "ds")
    assert not (tmp_path / "ds").exists()


def test_media_outside_the_run_is_refused(run, tmp_path):
    (tmp_path / "secret.jpg").write_bytes(_jpeg(0))
    doc = json.loads((run / "clips/c0.json").read_text())
    doc["frames"][0]["image"] = "../../secret.jpg"
    (run / "clips/c0.json").write_text(json.dumps(doc))
    with pytest.raises(VantageExportError, match="outside"):
        export_vantage([(_items()[0], run)], tmp_path / "ds")
    assert not (tmp_path / "ds").exists()


def test_the_same_item_twice_is_refused(run, tmp_path):
    it = _items()[0]
    with pytest.raises(VantageExportError, match="built twice"):
        export_vantage([(it, run), (it, run)], tmp_path / "ds")


def test_a_tampered_row_is_a_one_line_error(run, tmp_path):
    import pyarrow.parquet as pq

    s = export_vantage([(it, run) for it in _items()], tmp_path / "ds")
    shard = s.root / s.shards["event_verification"][0]
    t = pq.read_table(shard).to_pylist()
    t[0]["answer"] = json.dumps({"task": "event_verification", "label": "maybe"})
    import pyarrow as pa
    pq.write_table(pa.Table.from_pylist(t, schema=pq.read_schema(shard)), shard)
    with pytest.raises(VantageDataError, match="event_verification/c0/0.*not a valid item"):
        load_items(s.root)


def test_harness_files_show_every_frame():
    """lmms-eval gets the decoded frames in order; VLMEvalKit's image cell lists them as its
    `toliststr` reads a list (checked here with an independent literal parser)."""
    import ast

    from packagers.vlmevalkit import image_cell
    from scenebench.lmms_eval_hooks import messages, visuals

    a, b = _jpeg(10), _jpeg(200)
    doc = {"prompt": "q", "images": ["A", "B"]}
    assert visuals(doc) == ["A", "B"] and visuals({"prompt": "q", "image": "I"}) == ["I"]
    assert [c.get("url") for c in messages(doc)[0]["content"]] == ["A", "B", None]
    assert [c.get("url") for c in messages({"prompt": "q", "image": "I"})[0]["content"]] == [None, "I"]
    cell = image_cell([a, b])
    assert [base64.b64decode(x) for x in ast.literal_eval(cell)] == [a, b]
    assert image_cell([a]) == base64.b64encode(a).decode() and image_cell([]) == ""


def test_score_options_that_do_not_apply_are_one_line_errors(run, tmp_path, capsys):
    from scenebench.cli import main

    s = export_vantage([(it, run) for it in _items()], tmp_path / "ds")
    (tmp_path / "p.jsonl").write_text("")
    for extra, needle in ((["--seed", "3"], "--seed does not apply"), (["--prices", "x.yaml"], "--prices do not apply")):
        assert main(["score", "--dataset", str(s.root), "--predictions", str(tmp_path / "p.jsonl"), *extra]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and needle in err[0], err


def test_lmms_eval_rows_grade_to_the_primary_score():
    """lmms-eval's `score`: one task's strict primary metric x100 from graded rows (here the
    always-right and always-wrong EV replies on one yes item and one no item: macro-F1 1 and 0)."""
    from scenebench.benchmarks import get_benchmark

    b = get_benchmark("vantage")
    yes = VantageItem.model_validate({**_items()[0].model_dump(mode="json"), "id": "event_verification/c0/1",
                                      "answer": {"task": "event_verification", "label": "yes"}})
    rows = [{"id": it.id, "task": it.task, "domain": it.domain, "env": it.env, "clip_id": "c0", "prompt": it.prompt,
             "media_kind": "video", "frame_numbers": NUMBERS, "times_s": [n / 30 for n in NUMBERS], "fps": 30.0,
             "duration_s": 16.0, "width": W, "height": H, "answer": json.dumps(it.answer.model_dump(mode="json")),
             "tags": "{}"} for it in (_items()[0], yes)]
    right = [b.grade_row(r, json.loads(r["answer"])["label"]) for r in rows]
    wrong = [b.grade_row(r, "yes" if json.loads(r["answer"])["label"] == "no" else "no") for r in rows]
    assert b.row_config(rows[0]) == "event_verification"
    assert b.set_metrics(right) == {"score": pytest.approx(100.0)}
    assert b.set_metrics(wrong) == {"score": pytest.approx(0.0)}
