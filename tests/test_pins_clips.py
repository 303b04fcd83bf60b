"""The clip files of a run store (render_farm/clips.py) on real files, without a render: the clip's
JSON (its output contract, docs/envs/calib_clip.md), its mp4, clips.jsonl, which clips are written
(only complete ones) and when a clip already on disk is written again (only when it differs or its
video does not decode to its frames). Frames are real JPEGs of known colours; the scene is saved as
the job saves it (test_pins_clip_job's hand-made mesh)."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from PIL import Image

from conftest import ROOT
from formats.canonical import canonical_json, pretty_json
from formats.records import FrameRecord
from render_farm import clips
from render_farm.clips import CLIP_SCHEMA_VERSION, clip_document, clip_id_for, write_clips
from render_farm.job import sample_spec
from render_farm.video import decode_mp4, encode_mp4
from geometry.events import Event
from test_pins_clip_job import TIMES, _geo, _job
from test_pins_clip_job import _env as _real_env

# The clip's events come from the environment (calib_clip's take seconds of trajectory sampling):
# the contract test uses the real ones, the others an environment whose events are these two.
EVENTS = [Event(type="near_miss", actors=["line", "stop_go"], t_start=1.25, t_end=1.5),
          Event(type="zone_entry", actors=["circle"], t_start=2.0, t_end=2.0, zone="north")]


def _env():
    return dataclasses.replace(_real_env(), events=lambda spec: list(EVENTS))

BASE = FrameRecord.model_validate_json((ROOT / "tests" / "data" / "record.json").read_text())
W, H = 16, 12
# one colour per frame, far apart, so the decoded video shows which frame is where
COLOURS = [(20 + 30 * k, 200 - 20 * k, 60 + 15 * (k % 3)) for k in range(8)]


def _record(store, scene, view, colour=None):
    fid = f"calib_clip-random-{scene:05d}-{view:02d}"
    image = store.dir / "frames" / f"{fid}.jpg"
    Image.new("RGB", (W, H), colour or COLOURS[view]).save(image, format="JPEG", quality=95)
    camera = {"K": [[10.0, 0.0, 7.5], [0.0, 10.0, 5.5], [0.0, 0.0, 1.0]], "cam_to_world": np.eye(4).tolist(),
              "width": W, "height": H, "shutter_s": 0.01, "center": [0.0, 0.0, 4.0]}
    gt = {"t": TIMES[view], "frame_number": 15 * view, "objects": [{"track_id": "line", "object_id": 2, "v": view}]}
    return BASE.model_copy(update={"frame_id": fid, "env": "calib_clip", "scene_id": f"random-{scene:05d}",
                                   "view_index": view, "camera": camera, "ground_truth": gt,
                                   "image": f"frames/{fid}.jpg", "passes": f"passes/{fid}.npz"})


def _clip_run(tmp_path, scenes=(3,), views=range(8)):
    store = None
    recs = []
    for s in scenes:
        store, _ = _geo(_job(tmp_path, scene=s))
        (store.dir / "clips").mkdir(exist_ok=True)
        recs += [_record(store, s, v) for v in views]
    return store, recs


def test_clip_id_and_schema_version():
    assert clip_id_for("calib_clip", "random-00003") == "calib_clip-random-00003"
    assert CLIP_SCHEMA_VERSION == 1


def test_clip_document_is_the_output_contract(tmp_path):
    store, recs = _clip_run(tmp_path)
    spec = sample_spec(_job(tmp_path))
    doc = clip_document(_env(), store, "random-00003", recs[::-1])          # any order in, view order out
    assert list(doc) == ["schema_version", "clip_id", "env", "scene_id", "seed", "fps", "duration_s", "events",
                         "tracks", "video", "frames"]
    assert doc["schema_version"] == 1 and doc["clip_id"] == "calib_clip-random-00003" and doc["env"] == "calib_clip"
    assert doc["scene_id"] == "random-00003" and doc["seed"] == spec.seed and isinstance(doc["seed"], int)
    assert doc["fps"] == 30 and doc["duration_s"] == 4.0
    assert doc["events"] == [{"type": "near_miss", "actors": ["line", "stop_go"], "t_start": 1.25, "t_end": 1.5},
                             {"type": "zone_entry", "actors": ["circle"], "t_start": 2.0, "t_end": 2.0,
                              "zone": "north"}]                          # no "zone": None on a near miss
    assert doc["tracks"] == [{"track_id": "line", "object_id": 2, "category": "box"},
                             {"track_id": "circle", "object_id": 3, "category": "box"},
                             {"track_id": "stop_go", "object_id": 4, "category": "box"}]
    assert doc["video"] == "clips/calib_clip-random-00003.mp4"
    assert [f["index"] for f in doc["frames"]] == list(range(8))
    f = doc["frames"][5]
    assert f == {"index": 5, "t": 2.5, "frame_number": 75, "image": "frames/calib_clip-random-00003-05.jpg",
                 "passes": "passes/calib_clip-random-00003-05.npz",
                 "camera": {"K": recs[5].camera["K"], "cam_to_world": np.eye(4).tolist(), "width": W, "height": H},
                 "objects": [{"track_id": "line", "object_id": 2, "v": 5}]}


def test_clip_document_events_are_the_environments(tmp_path):
    store, recs = _clip_run(tmp_path)
    spec = sample_spec(_job(tmp_path))
    doc = clip_document(_real_env(), store, "random-00003", recs)
    assert doc["events"] == [e.model_dump(exclude_none=True) for e in _real_env().events(spec)]
    assert [e["type"] for e in doc["events"]] == (["near_miss"] if spec.near_miss_planned else [])


def test_write_clips_writes_complete_clips_their_video_and_the_index(tmp_path):
    store, recs = _clip_run(tmp_path, scenes=(3, 1, 2))
    partial = [r for r in recs if not (r.scene_id == "random-00002" and r.view_index == 6)]   # one frame missing
    lines = write_clips(_env(), store, partial[::-1])
    assert lines == [{"clip_id": f"calib_clip-random-{s:05d}", "scene_id": f"random-{s:05d}",
                      "path": f"clips/calib_clip-random-{s:05d}.json", "video": f"clips/calib_clip-random-{s:05d}.mp4",
                      "frames": 8, "events": 2} for s in (1, 3)]
    assert (store.dir / "clips.jsonl").read_text() == "".join(canonical_json(x) + "\n" for x in lines)
    assert sorted(p.name for p in (store.dir / "clips").iterdir()) == [
        "calib_clip-random-00001.json", "calib_clip-random-00001.mp4",
        "calib_clip-random-00003.json", "calib_clip-random-00003.mp4"]
    mine = [r for r in recs if r.scene_id == "random-00003"]
    text = (store.dir / "clips" / "calib_clip-random-00003.json").read_text()
    assert text == pretty_json(clip_document(_env(), store, "random-00003", mine))
    assert json.loads(text)["frames"][2]["t"] == 1.0
    assert json.loads(text)["events"] == [
        {"type": "near_miss", "actors": ["line", "stop_go"], "t_start": 1.25, "t_end": 1.5},
        {"type": "zone_entry", "actors": ["circle"], "t_start": 2.0, "t_end": 2.0, "zone": "north"}]
    video = decode_mp4((store.dir / "clips" / "calib_clip-random-00003.mp4").read_bytes())
    assert [t for t, _ in video] == TIMES                                   # frame numbers / fps
    for (_, img), colour in zip(video, COLOURS):
        assert img.shape == (H, W, 3)
        assert np.abs(img.reshape(-1, 3).mean(0) - colour).max() < 12       # the frame's own JPEG, in order


@pytest.mark.parametrize("views", [range(7), [0, 1, 2, 3, 4, 5, 6, 6], [0, 1, 2, 3, 4, 5, 6, 8], [1, 2, 3, 4, 5, 6, 7]])
def test_an_incomplete_clip_is_not_written(tmp_path, views):
    store, _ = _clip_run(tmp_path, views=[])
    recs = [_record(store, 3, min(v, 7)).model_copy(update={"view_index": v}) for v in views]
    assert write_clips(_env(), store, recs) == []
    assert (store.dir / "clips.jsonl").read_text() == ""
    assert list((store.dir / "clips").iterdir()) == []


def _files(store):
    return {p.name: (p.stat().st_ino, p.read_bytes()) for p in (store.dir / "clips").iterdir()}


def test_a_clip_already_written_is_left_alone(tmp_path):
    store, recs = _clip_run(tmp_path)
    first = write_clips(_env(), store, recs)
    before = _files(store)
    assert write_clips(_env(), store, recs) == first
    assert _files(store) == before                                           # same files, not even replaced


@pytest.mark.parametrize("damage", [
    pytest.param(lambda d: (d / "calib_clip-random-00003.mp4").unlink(), id="video-missing"),
    pytest.param(lambda d: (d / "calib_clip-random-00003.mp4").write_bytes(b"\x00\x00\x00\x18ftypisom"),
                 id="video-garbled"),
    pytest.param(lambda d: (d / "calib_clip-random-00003.mp4").write_bytes(
        encode_mp4([np.zeros((H, W, 3), np.uint8)] * 7, [15 * k for k in range(7)], 30)), id="video-7-frames"),
    pytest.param(lambda d: (d / "calib_clip-random-00003.json").unlink(), id="json-missing"),
    pytest.param(lambda d: (d / "calib_clip-random-00003.json").write_text("{}"), id="json-other"),
    pytest.param(lambda d: ((d / "calib_clip-random-00003.json").unlink(),
                            (d / "calib_clip-random-00003.json").mkdir()), id="json-a-directory"),
])
def test_a_damaged_clip_is_written_again(tmp_path, damage):
    store, recs = _clip_run(tmp_path)
    write_clips(_env(), store, recs)
    good = {k: v[1] for k, v in _files(store).items()}
    damage(store.dir / "clips")
    if (store.dir / "clips" / "calib_clip-random-00003.json").is_dir():
        (store.dir / "clips" / "calib_clip-random-00003.json").rmdir()      # atomic writes replace files only
        (store.dir / "clips" / "calib_clip-random-00003.json").write_text("{}")
        (store.dir / "clips" / "calib_clip-random-00003.json").chmod(0o000)
    write_clips(_env(), store, recs)
    again = {k: v[1] for k, v in _files(store).items()}
    assert sorted(again) == sorted(good)
    for name in sorted(good):
        assert again[name] == good[name], (name, _first_difference(good[name], again[name]))


def _first_difference(a: bytes, b: bytes) -> str:
    """Where two files part (a one-time mismatch in a mutmut clean run could not be read back from
    pytest's elided repr, docs/testing.md)."""
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    lo = max(i - 16, 0)
    return f"lengths {len(a)} and {len(b)}, first difference at byte {i}: {a[lo:i + 16]!r} vs {b[lo:i + 16]!r}"


def test_a_changed_frame_rewrites_the_video(tmp_path):
    store, recs = _clip_run(tmp_path)
    write_clips(_env(), store, recs)
    json_before = (store.dir / "clips" / "calib_clip-random-00003.json").read_text()
    Image.new("RGB", (W, H), (250, 250, 250)).save(store.dir / recs[4].image, format="JPEG", quality=95)
    (store.dir / "clips" / "calib_clip-random-00003.json").write_text("stale")
    write_clips(_env(), store, recs)
    assert (store.dir / "clips" / "calib_clip-random-00003.json").read_text() == json_before
    video = decode_mp4((store.dir / "clips" / "calib_clip-random-00003.mp4").read_bytes())
    assert video[4][1].mean() > 240 and video[3][1].mean() < 200


def test_video_ok(tmp_path):
    path = tmp_path / "v.mp4"
    assert clips._video_ok(path, 1) is False                                 # missing
    path.write_bytes(encode_mp4([np.zeros((4, 6, 3), np.uint8)] * 3, [0, 15, 30], 30))
    assert clips._video_ok(path, 3) is True
    assert clips._video_ok(path, 2) is False and clips._video_ok(path, 4) is False
    path.write_bytes(b"not an mp4")
    assert clips._video_ok(path, 3) is False
