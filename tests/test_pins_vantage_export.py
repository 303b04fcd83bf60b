"""Pins of packagers/vantage_export.py on a hand-made run store (three JPEG frames, a stand-in
mp4): the media reader's refusals, the row of an item field by field, SOT's shown images,
the card's text (written out below in full, but for the library versions and the YAML
header's sizes), shards and the checks that run before anything is written."""
from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml
from PIL import Image as PILImage

from formats import dataset_layout as layout
from formats.vantage_item import VantageItem
from packagers import vantage_export as X
from synthetic_runs import clip_manifest, flat_jpeg


W, H = 64, 48
NUMBERS = [0, 68, 137]


def _jpeg(value: int) -> bytes:
    return flat_jpeg(value, (W, H))


@pytest.fixture()
def run(tmp_path) -> Path:
    d = tmp_path / "run"
    (d / "clips").mkdir(parents=True)
    (d / "frames").mkdir()
    frames = []
    for k, n in enumerate(NUMBERS):
        (d / "frames" / f"f{n}.jpg").write_bytes(_jpeg(40 + 80 * k))
        frames.append({"frame_number": n, "image": f"frames/f{n}.jpg"})
    (d / "clips" / "c0.mp4").write_bytes(b"not really an mp4")
    (d / "clips" / "c0.json").write_text(json.dumps({"clip_id": "c0", "frames": frames, "video": "clips/c0.mp4"}))
    (d / "manifest.json").write_text(json.dumps(clip_manifest("warehouse")))
    return d


def _media(kind="video", numbers=NUMBERS):
    return {"kind": kind, "clip_id": "c0", "frame_numbers": numbers, "times_s": [n / 30 for n in numbers],
            "duration_s": 16.0, "width": W, "height": H}


def ev_item(k=0, domain="W", env="warehouse", numbers=NUMBERS) -> VantageItem:
    return VantageItem.model_validate({
        "id": f"event_verification/c0/{k}", "task": "event_verification", "domain": domain, "env": env,
        "media": _media("video", numbers), "prompt": "Did it?", "answer": {"task": "event_verification", "label": "no"},
        "tags": {"b": 1, "a": 0.5}})


def ol_item() -> VantageItem:
    return VantageItem.model_validate({
        "id": "object_localization/c0/0", "task": "object_localization", "domain": "S", "env": "calib",
        "media": _media("image", [68]), "prompt": "Box.",
        "answer": {"task": "object_localization", "boxes": [[1, 2, 30, 40]], "category": "person"}, "tags": {}})


def sot_item(init=(250.0, 250.0, 750.0, 750.0)) -> VantageItem:
    return VantageItem.model_validate({
        "id": "single_object_tracking/c0/p-3f", "task": "single_object_tracking", "domain": "W", "env": "warehouse_sot",
        "media": {**_media("frames"), "fps": 30.0}, "prompt": "Track.",
        "answer": {"task": "single_object_tracking", "init_box": list(init), "boxes": [list(init), None, list(init)],
                   "object_type": "person"}, "tags": {}})


# ------------------------------------------------------------------ reading media

def test_clip_file_refusals(run):
    assert X.clip_file(run, "c0")["clip_id"] == "c0"
    with pytest.raises(X.VantageExportError, match=r"clips/c9.json: clip file of c9 missing$"):
        X.clip_file(run, "c9")
    (run / "clips" / "bad.json").write_text("{not json")
    with pytest.raises(X.VantageExportError, match=r"clips/bad.json: unreadable clip file \("):
        X.clip_file(run, "bad")
    with pytest.raises(X.VantageExportError, match="outside"):
        X.clip_file(run, "../../x")


def test_clip_media_reads_the_items_frames_in_its_order(run):
    frames, video = X.clip_media(ev_item(numbers=[0, 137]), run)
    assert frames == [(run / "frames/f0.jpg").read_bytes(), (run / "frames/f137.jpg").read_bytes()]
    assert video == b"not really an mp4"
    frames, video = X.clip_media(ol_item(), run)
    assert frames == [(run / "frames/f68.jpg").read_bytes()] and video is None
    with pytest.raises(X.VantageExportError, match=r"^event_verification/c0/0: clip c0 has no rendered frame 69$"):
        X.clip_media(ev_item(numbers=[0, 69]), run)
    (run / "frames/f68.jpg").unlink()
    with pytest.raises(X.VantageExportError, match=r"frames/f68.jpg: frame 68 of c0 missing$"):
        X.clip_media(ol_item(), run)


def test_clip_media_refusals_of_the_clip_file(run):
    doc = json.loads((run / "clips/c0.json").read_text())
    doc["frames"][1].pop("image")
    (run / "clips/c0.json").write_text(json.dumps(doc))
    with pytest.raises(X.VantageExportError, match="has no rendered frame 68"):
        X.clip_media(ol_item(), run)
    doc.pop("frames")
    (run / "clips/c0.json").write_text(json.dumps(doc))
    with pytest.raises(X.VantageExportError, match="has no rendered frame 68"):
        X.clip_media(ol_item(), run)


def test_a_video_item_needs_the_clips_mp4(run):
    doc = json.loads((run / "clips/c0.json").read_text())
    doc.pop("video")
    (run / "clips/c0.json").write_text(json.dumps(doc))
    with pytest.raises(X.VantageExportError, match=r"^event_verification/c0/0: clip c0 has no mp4$"):
        X.clip_media(ev_item(), run)      # clips/c0.mp4 exists, but the clip file does not name it
    assert X.clip_media(ol_item(), run)[1] is None
    doc["video"] = "clips/gone.mp4"
    (run / "clips/c0.json").write_text(json.dumps(doc))
    with pytest.raises(X.VantageExportError, match="has no mp4"):
        X.clip_media(ev_item(), run)
    doc["video"] = "../../elsewhere.mp4"
    (run / "clips/c0.json").write_text(json.dumps(doc))
    with pytest.raises(X.VantageExportError, match="video .*outside"):
        X.clip_media(ev_item(), run)


# ------------------------------------------------------------------ rows

def test_row_of_a_video_item():
    it = ev_item()
    r = X.row(it, [b"f0", b"f1", b"f2"], b"mp4")
    assert r == {"id": "event_verification/c0/0", "task": "event_verification", "domain": "W", "env": "warehouse",
                 "clip_id": "c0", "prompt": "Did it?",
                 "images": [{"bytes": b"f0", "path": None}, {"bytes": b"f1", "path": None}, {"bytes": b"f2", "path": None}],
                 "frame0": None, "video": b"mp4", "media_kind": "video", "frame_numbers": NUMBERS,
                 "times_s": [0.0, 68 / 30, 137 / 30], "fps": 30.0, "duration_s": 16.0, "width": W, "height": H,
                 "answer": '{"label":"no","task":"event_verification"}', "tags": '{"a":0.5,"b":1}'}
    assert set(r) == set(X.FEATURES) == set(X.FIELD_DOCS)


def test_sot_rows_show_the_crop_and_the_marked_first_frame(run):
    frames = [(run / f"frames/f{n}.jpg").read_bytes() for n in NUMBERS]
    it = sot_item()
    shown = X.sot_images(it, frames)
    first = np.asarray(PILImage.open(io.BytesIO(frames[0])).convert("RGB"))
    from packagers.vantage_tasks.single_object_tracking import init_frame, target_crop

    assert len(shown) == 4 and shown[2:] == frames[1:]
    crop = np.asarray(PILImage.open(io.BytesIO(shown[0])))
    marked = np.asarray(PILImage.open(io.BytesIO(shown[1])))
    assert shown[0][:8] == shown[1][:8] == b"\x89PNG\r\n\x1a\n"
    assert (crop == target_crop(first, it.answer.init_box)).all() and crop.shape == (31, 41, 3)   # x int(16 - 4.8)..int(48 + 4.8), y int(12 - 3.6)..int(36 + 3.6)
    assert (marked == init_frame(first, it.answer.init_box)).all() and marked.shape == (H, W, 3)
    r = X.row(it, frames, None)
    assert [i["bytes"] for i in r["images"]] == shown and r["frame0"] == {"bytes": frames[0], "path": None}
    assert r["video"] is None and r["media_kind"] == "frames"
    with pytest.raises(X.VantageExportError, match=r"^single_object_tracking/c0/p-3f: the init box \(500\.0, 500\.0, "
                                                   r"500\.0, 600\.0\) crops to nothing$"):
        X.sot_images(sot_item((500.0, 500.0, 500.0, 600.0)), frames)


# ------------------------------------------------------------------ the export

BODY = """# VANTAGE-Bench (scenebench reproduction)

Procedurally generated, Blender-rendered fixed-camera (CCTV) clips with every label computed from the simulation timeline: eight tasks over four pillars (semantic, spatial, temporal, spatio-temporal), as VANTAGE-Bench defines them. The paper used real footage with human labels; here everything is generated.

## Items per task and domain

| task | W | T | S | items | paper's items | paper's domains |
|---|---|---|---|---|---|---|
| event_verification | 2 | 1 | 0 | 3 | 163 | W T S |
| video_qa | 0 | 0 | 0 | 0 | 1195 | W T S |
| temporal_localization | 0 | 0 | 0 | 0 | 203 | W T S (videos) |
| dense_captioning | 0 | 0 | 0 | 0 | 104 | W T S |
| referring_expressions | 0 | 0 | 0 | 0 | 3276 | T (aerial) |
| spatial_pointing | 0 | 0 | 0 | 0 | 1005 | T (vehicle-mounted) |
| object_localization | 0 | 0 | 1 | 1 | 628 | S |
| single_object_tracking | 0 | 0 | 0 | 0 | 200 | W (synthetic) |

Object Localization boxes per image: mean 1.0, median 1, max 1 over 1 items (the paper's: 43.6 on average, up to 100+).

Generated by: `calib` (S), `intersection` (T), `warehouse` (W).

Benchmark file: `vantage` version `v1`, root seed 7, quality preset `preview`; clips planned: calib 0, warehouse 3.

Runs exported (from each run's manifest.json):

| env | stratum | generator version | root seed | quality | git commit |
|---|---|---|---|---|---|
| warehouse | random | g-1 | 7 | preview | abc123 |

## Scoring

`scenebench score` reports every metric twice: `strict` (the default, metrics.md's definitions) and `vantage` (the rules of the paper's official evaluation code, the only numbers comparable with its tables); see scenebench's docs/vantage-deviations.md.

## Fields

| column | meaning |
|---|---|
| `id` | `<task>/<clip_id>/<k>`, unique in the export |
| `task` | one of the eight tasks (the config) |
| `domain` | W warehouse / logistics, T transportation, S smart spaces (§3) |
| `env` | the scenebench environment that generated the clip |
| `clip_id` | the rendered clip the item is built on |
| `prompt` | the text sent with the frames |
| `images` | what the model is shown, in order: a clip's sampled frames or one image (JPEG); for SOT the harness's target crop and frame 0 with the target box drawn (PNG), then frames 1, 2, ... (JPEG) |
| `frame0` | SOT only: frame 0 as rendered, without the drawn box (what a tracker baseline starts from); else null |
| `video` | the clip's mp4 (the sampled frames at their timestamps) for video items, else null |
| `media_kind` | video, image or frames (SOT) |
| `frame_numbers` | each shown frame's index in the clip's 30 fps stream |
| `times_s` | each shown frame's time, seconds from the clip start |
| `fps` | the clip's frame rate |
| `duration_s` | the clip's length (Temporal Localization's whole-clip answer) |
| `width` | frame width in pixels |
| `height` | frame height in pixels |
| `answer` | the ground truth, canonical JSON (formats.vantage_item's answer model of the task) |
| `tags` | hard-case controls (near-negative margins, target size, motion), canonical JSON |

Boxes: replies are 0–1000 normalised xyxy; `answer` boxes of referring_expressions and object_localization are pixel xyxy of `width` × `height` (pixel centres), single_object_tracking's are 0–1000 like its replies; times are seconds.

## Reproducibility

Rows sorted by `id`; shards cut in id order at 200 MiB of media or 2000 rows; media stored uncompressed, other columns zstd; no timestamps. `SHA256SUMS` covers every file.

Library versions:

"""

TAIL = """
## Bias, risks and limitations

Synthetic scenes from procedural generators: people are rigid bodies, traffic and events are scripted; the distributions are the generators', not the world's.
"""

BENCHMARK = {"version": "v1", "root_seed": 7, "quality": "preview", "environments": {"warehouse": {"random": 3}, "calib": {}},
             "tasks": ["event_verification", "object_localization"]}


def _items():
    return [ev_item(2), ol_item(), ev_item(0), ev_item(1, domain="T", env="intersection")]


def test_the_card_in_full(run, tmp_path):
    s = X.export_vantage([(it, run) for it in _items()], tmp_path / "ds", benchmark=BENCHMARK)
    card = (s.root / "README.md").read_text(encoding="utf-8")
    head, body = card.split("\n---\n", 1)
    versions = "".join(f"- {k}: {v}\n" for k, v in layout.lib_versions().items())
    assert body == "\n" + BODY + versions + TAIL
    meta = yaml.safe_load(head.removeprefix("---\n"))
    assert meta["pretty_name"] == "VANTAGE-Bench (scenebench reproduction)" and meta["license"] == "cc-by-4.0"
    assert meta["language"] == ["en"] and meta["size_categories"] == ["n<1K"]
    assert meta["task_categories"] == ["video-text-to-text", "visual-question-answering", "object-detection"]
    assert meta["tags"] == ["synthetic", "blender", "benchmark", "vlm", "cctv", "vantage-bench"]
    assert meta["configs"] == [
        {"config_name": "event_verification", "data_files": [{"split": "test", "path": "event_verification/test-*"}],
         "default": True},
        {"config_name": "object_localization", "data_files": [{"split": "test", "path": "object_localization/test-*"}]}]
    infos = {i["config_name"]: i for i in meta["dataset_info"]}
    assert infos["event_verification"]["splits"][0]["num_examples"] == 3
    assert infos["object_localization"]["splits"][0]["num_examples"] == 1
    shard = s.root / "event_verification" / "test-00000-of-00001.parquet"
    assert infos["event_verification"]["download_size"] == shard.stat().st_size
    # without a benchmark file: no benchmark line
    s = X.export_vantage([(it, run) for it in _items()], tmp_path / "ds2")
    card = (s.root / "README.md").read_text(encoding="utf-8")
    assert "Benchmark file:" not in card
    assert "Generated by: `calib` (S), `intersection` (T), `warehouse` (W).\n\nRuns exported (" in card
    s = X.export_vantage([(ev_item(), run)], tmp_path / "ds3", benchmark={"tasks": None})
    card = (s.root / "README.md").read_text(encoding="utf-8")
    assert "Benchmark file: `vantage` version `None`, root seed None, quality preset `None`; clips planned: .\n" in card


def test_the_card_says_when_the_runs_were_rendered_at_another_quality(run, tmp_path):
    """A `--quality preview` look at a benchmark whose file says standard: the card must not pass
    the images off as the release's. Each run is its own row, in env order."""
    other = tmp_path / "other"
    shutil.copytree(run, other)
    (other / "manifest.json").write_text(json.dumps(clip_manifest("intersection", "standard", "i-4", "def456")))
    items = [(ev_item(0), run), (ev_item(1, domain="T", env="intersection"), other)]
    card = (X.export_vantage(items, tmp_path / "ds", benchmark={**BENCHMARK, "quality": "standard"}).root
            / "README.md").read_text(encoding="utf-8")
    assert ("clips planned: calib 0, warehouse 3.\n\nRendered at quality `preview`, `standard`, not the file's preset "
            "(a `--quality` override): these are not the release's images.\n\n") in card
    assert ("|---|---|---|---|---|---|\n| intersection | random | i-4 | 7 | standard | def456 |\n"
            "| warehouse | random | g-1 | 7 | preview | abc123 |\n\n## Scoring") in card
    (other / "manifest.json").write_text(json.dumps(clip_manifest("intersection", "preview")))
    card = (X.export_vantage(items, tmp_path / "ds", benchmark={**BENCHMARK, "quality": "preview"}).root
            / "README.md").read_text(encoding="utf-8")
    assert "Rendered at" not in card


def test_a_run_without_a_readable_manifest_is_refused_before_anything_is_written(run, tmp_path):
    out = tmp_path / "ds"
    (run / "manifest.json").write_text("{not json")
    with pytest.raises(X.VantageExportError, match=rf"^{run}/manifest.json: unreadable manifest \("):
        X.export_vantage([(ev_item(), run)], out)
    (run / "manifest.json").unlink()
    with pytest.raises(X.VantageExportError, match=rf"^{run}: no manifest.json \(the card needs its seeds and "
                                                   r"versions\)$"):
        X.export_vantage([(ev_item(), run)], out)
    assert not out.exists()


def test_summary_rows_shards_and_files(run, tmp_path):
    s = X.export_vantage([(it, run) for it in _items()], tmp_path / "ds")
    assert s.root == tmp_path / "ds" / "vantage"
    assert s.rows == {"event_verification": 3, "object_localization": 1}
    assert s.shards == {"event_verification": ["event_verification/test-00000-of-00001.parquet"],
                        "object_localization": ["object_localization/test-00000-of-00001.parquet"]}
    assert s.files == layout.list_files(s.root) and "README.md" in s.files and "SHA256SUMS" in s.files
    import pyarrow.parquet as pq

    t = pq.read_table(s.root / s.shards["event_verification"][0]).to_pylist()
    assert [r["id"] for r in t] == ["event_verification/c0/0", "event_verification/c0/1", "event_verification/c0/2"]
    assert [r["domain"] for r in t] == ["W", "T", "W"]
    # a re-export replaces the earlier one
    s = X.export_vantage([(ol_item(), run)], tmp_path / "ds")
    assert s.rows == {"object_localization": 1} and not (s.root / "event_verification").exists()


def test_shards_are_cut_at_the_row_limit(run, tmp_path, monkeypatch):
    monkeypatch.setattr(X, "MAX_SHARD_ROWS", 2)
    s = X.export_vantage([(ev_item(k), run) for k in range(5)], tmp_path / "ds")
    assert s.shards["event_verification"] == [f"event_verification/test-0000{i}-of-00003.parquet" for i in range(3)]
    import pyarrow.parquet as pq

    assert [pq.read_metadata(s.root / p).num_rows for p in s.shards["event_verification"]] == [2, 2, 1]
    assert "shards cut in id order at 200 MiB of media or 2 rows" in (s.root / "README.md").read_text()
    monkeypatch.setattr(X, "MAX_SHARD_ROWS", 2000)
    sizes = []

    def plan(got):
        sizes.append(got)
        return [(0, len(got))]
    monkeypatch.setattr(X, "_plan", plan)
    X.export_vantage([(ev_item(), run), (sot_item(), run)], tmp_path / "ds2")
    frames = [(run / f"frames/f{n}.jpg").read_bytes() for n in NUMBERS]
    sot_shown = X.sot_images(sot_item(), frames)
    assert sizes == [[sum(map(len, frames)) + len(b"not really an mp4")],
                     [sum(map(len, sot_shown)) + len(frames[0])]]          # media bytes: images, video, frame 0


def test_checks_run_before_anything_is_written(run, tmp_path):
    out = tmp_path / "ds"
    with pytest.raises(X.VantageExportError, match=r"^no items to export \(no clips, or no task found an item in them\)$"):
        X.export_vantage([], out)
    with pytest.raises(X.VantageExportError, match=rf"^item event_verification/c0/0 is built twice \(from {run} and "
                                                   rf"{run}2\)$"):
        X.export_vantage([(ev_item(), run), (ev_item(), Path(f"{run}2"))], out)
    with pytest.raises(X.VantageExportError, match=r"^event_verification/c0/0: 2 frames for 3 frame numbers$"):
        X.export_vantage([(ev_item(), run)], out, media=lambda it, d: ([b"a", b"b"], None))
    with pytest.raises(X.VantageExportError, match=r"^task\(s\) event_verification, object_localization not in the "
                                                   r"benchmark file's tasks$"):
        X.export_vantage([(it, run) for it in _items()], out, benchmark={"tasks": ["video_qa"]})
    assert not out.exists()
    seen = []
    X.export_vantage([(ev_item(), run)], out, media=lambda it, d: seen.append(d) or ([b"a", b"b", b"c"], None))
    assert seen == [run]
    s = X.export_vantage([(ol_item(), str(run))], tmp_path / "ds4")     # a run directory given as text
    assert s.rows == {"object_localization": 1}


def test_pngs_are_zlib_level_6_and_decode_to_the_frame():
    """SOT's PNGs are written with fixed encoder settings (level 6, no optimize pass), so a re-export
    is byte-identical: the IDAT stream's zlib header says the default level (0x789C; levels 7-9 and
    Pillow's optimize write 0x78DA), and the bytes decode to the same pixels."""
    import io
    import struct

    import numpy as np
    from PIL import Image

    from packagers.vantage_export import _png

    rgb = (np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3) * 3)
    data = _png(rgb)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        (n,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    assert idat[:2] == b"\x78\x9c"
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(data)).convert("RGB")), rgb)
    assert _png(rgb) == data


def test_the_export_log_names_tasks_without_items_and_runs_that_gave_none(tmp_path):
    from scenebench.benchmarks.vantage import nothing_from

    a, b, c = tmp_path / "warehouse", tmp_path / "warehouse_sot", tmp_path / "intersection_forward"
    items = [(ev_item(0), a), (ol_item(), str(a)), (ev_item(1), a)]       # a run directory given as text too
    assert nothing_from([a, b, str(c)], items, ["event_verification", "single_object_tracking", "spatial_pointing",
                                                "object_localization"]) == [
        "scenebench:   single_object_tracking: 0 items", "scenebench:   spatial_pointing: 0 items",
        f"scenebench: no item from {c}, {b} (their clips gave none for the tasks asked)"]
    assert nothing_from([a], items, ["event_verification"]) == []
