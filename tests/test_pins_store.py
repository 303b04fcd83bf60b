"""The run store's resume rules on real files (render_farm/store.py), without a render.

A small run directory is written by hand: real JPEGs (PIL), real .npz passes and scene
files (numpy), and records taken from tests/data/record.json. Each test damages one
thing the way a kill or a disk fault would and checks exactly which frames survive.
"""
from __future__ import annotations

import json
import logging

import numpy as np
import pytest
from PIL import Image

from conftest import ROOT
from formats.records import FrameRecord
from render_farm.store import PASS_ARRAYS, ConfigMismatchError, RunStore

W, H = 6, 4
FP = {"env": "calib", "seed": 0, "width": W, "height": H}
BASE = FrameRecord.model_validate_json((ROOT / "tests" / "data" / "record.json").read_text())


def _rec(scene: int, view: int, **update) -> FrameRecord:
    fid = f"calib-random-{scene:05d}-{view:02d}"
    camera = {**BASE.camera, "width": W, "height": H}
    fields = {"frame_id": fid, "scene_id": f"random-{scene:05d}", "view_index": view, "camera": camera,
              "image": f"frames/{fid}.jpg", "passes": f"passes/{fid}.npz", **update}
    return BASE.model_copy(update=fields)


def _write_frame(store: RunStore, rec: FrameRecord, size=(W, H), fmt="JPEG", arrays=PASS_ARRAYS) -> None:
    Image.new("RGB", size, (120, 80, 40)).save(store.dir / rec.image, format=fmt)
    np.savez(store.dir / rec.passes, **{k: np.zeros(size[::-1], np.float32) for k in arrays})


def _write_scene(store: RunStore, scene_id: str) -> None:
    store.scene_json_path(scene_id).write_text(json.dumps({"scene_id": scene_id}))
    np.savez(store.scene_mesh_path(scene_id), vertices=np.zeros((3, 3)))


def _run(tmp_path, recs, manifest=True) -> RunStore:
    store = RunStore(tmp_path / "calib")
    store.create()
    for r in recs:
        _write_frame(store, r)
        _write_scene(store, r.scene_id)
        store.append_record(r)
    if manifest:
        store.manifest_path.write_text(json.dumps({"fingerprint": FP}))
    return store


def _never(rec):
    return None


RECS = [_rec(0, 0), _rec(0, 1), _rec(1, 0)]
IDS = [r.frame_id for r in RECS]


def test_layout_paths(tmp_path):
    s = RunStore(tmp_path / "r")
    assert s.records_path == tmp_path / "r" / "records.jsonl"
    assert s.failures_path == tmp_path / "r" / "failures.jsonl"
    assert s.manifest_path == tmp_path / "r" / "manifest.json"
    assert s.frame_path("f-1") == tmp_path / "r" / "frames" / "f-1.jpg"
    assert s.passes_path("f-1") == tmp_path / "r" / "passes" / "f-1.npz"
    assert s.scene_json_path("s-1") == tmp_path / "r" / "scenes" / "s-1.json"
    assert s.scene_mesh_path("s-1") == tmp_path / "r" / "scenes" / "s-1.npz"
    assert s.rel(tmp_path / "r" / "frames" / "f-1.jpg") == "frames/f-1.jpg"
    s.create()
    assert sorted(p.name for p in s.dir.iterdir()) == ["frames", "passes", "scenes"]
    s.create()  # idempotent
    assert PASS_ARRAYS == ("depth", "object_index")


def test_absent_directory_is_a_new_run(tmp_path):
    assert RunStore(tmp_path / "nothing").open_run(FP, False, _never) == ("new", {})
    assert not (tmp_path / "nothing").exists()


def test_intact_run_resumes_with_every_record_and_the_log_untouched(tmp_path):
    store = _run(tmp_path, RECS)
    before = store.records_path.read_bytes()
    state, finished = store.open_run(FP, False, _never)
    assert state == "resume" and list(finished) == IDS
    assert finished[IDS[1]] == RECS[1]
    assert store.records_path.read_bytes() == before


def test_other_fingerprint_is_refused_with_the_differences(tmp_path):
    store = _run(tmp_path, RECS)
    with pytest.raises(ConfigMismatchError) as exc:
        store.open_run({**FP, "seed": 1, "width": 8}, False, _never)
    assert str(exc.value) == (f"{store.dir} holds a run with a different config (seed: 0 -> 1; width: 6 -> 8); "
                              "rerun with new_run=true (make ... NEW_RUN=1) to move it aside and start over, "
                              "or pick another OUT")
    assert store.records_path.exists()
    # new_run moves it aside, numbering previous runs
    assert store.open_run({**FP, "seed": 1}, True, _never) == ("new", {})
    assert not store.dir.exists() and (tmp_path / "calib.previous-1" / "records.jsonl").exists()
    _run(tmp_path, RECS)
    assert store.open_run({**FP, "seed": 1}, True, _never) == ("new", {})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["calib.previous-1", "calib.previous-2"]


def test_foreign_records_are_refused_or_moved_aside(tmp_path):
    store = _run(tmp_path, RECS)

    def foreign(rec):
        return "seed differs" if rec.scene_id == "random-00001" else None

    with pytest.raises(ConfigMismatchError) as exc:
        store.open_run(FP, False, foreign)
    assert str(exc.value) == (f"{store.records_path} holds 1 of 3 frames of another config "
                              "(first: calib-random-00001-00: seed differs); rerun with new_run=true "
                              "(make ... NEW_RUN=1) to move it aside and start over, or pick another OUT")
    assert store.open_run(FP, True, foreign) == ("new", {})
    assert (tmp_path / "calib.previous-1").is_dir() and not store.dir.exists()


def _damaged(tmp_path, damage, caplog=None):
    store = _run(tmp_path, RECS)
    damage(store)
    state, finished = store.open_run(FP, False, _never)
    kept = [json.loads(line)["frame_id"] for line in store.records_path.read_text().splitlines()]
    assert kept == list(finished)
    return state, list(finished)


@pytest.mark.parametrize("damage", [
    pytest.param(lambda s: s.frame_path(IDS[1]).write_bytes(s.frame_path(IDS[1]).read_bytes()[:-40]),
                 id="truncated-jpeg"),
    pytest.param(lambda s: s.frame_path(IDS[1]).unlink(), id="missing-jpeg"),
    pytest.param(lambda s: s.frame_path(IDS[1]).write_bytes(b"\xff\xd8garbage"), id="garbled-jpeg"),
    pytest.param(lambda s: Image.new("RGB", (W, H)).save(s.frame_path(IDS[1]), format="PNG"), id="png-not-jpeg"),
    pytest.param(lambda s: Image.new("RGB", (W + 1, H)).save(s.frame_path(IDS[1]), format="JPEG"),
                 id="jpeg-wrong-width"),
    pytest.param(lambda s: Image.new("RGB", (W, H + 1)).save(s.frame_path(IDS[1]), format="JPEG"),
                 id="jpeg-wrong-height"),
    pytest.param(lambda s: Image.new("RGB", (H, W)).save(s.frame_path(IDS[1]), format="JPEG"),
                 id="jpeg-transposed"),
    pytest.param(lambda s: s.passes_path(IDS[1]).unlink(), id="missing-passes"),
    pytest.param(lambda s: s.passes_path(IDS[1]).write_bytes(b"PK\x03\x04torn"), id="torn-passes"),
    pytest.param(lambda s: np.savez(s.passes_path(IDS[1]), depth=np.zeros((H, W))), id="passes-without-index"),
    pytest.param(lambda s: np.savez(s.passes_path(IDS[1]), object_index=np.zeros((H, W))), id="passes-without-depth"),
    pytest.param(lambda s: np.savez(s.passes_path(IDS[1]), depth=np.zeros((W, H)), object_index=np.zeros((H, W))),
                 id="depth-transposed"),
    pytest.param(lambda s: np.savez(s.passes_path(IDS[1]), depth=np.zeros((H, W)), object_index=np.zeros((W, H))),
                 id="index-transposed"),
    pytest.param(lambda s: np.savez(s.passes_path(IDS[1]), depth=np.array([None] * W * H).reshape(H, W),
                                    object_index=np.zeros((H, W))), id="pickled-passes"),
])
def test_a_damaged_frame_is_dropped_and_redone(tmp_path, damage, caplog):
    with caplog.at_level(logging.WARNING, logger="render_farm.store"):
        state, kept = _damaged(tmp_path, damage)
    assert state == "resume" and kept == [IDS[0], IDS[2]]
    assert caplog.messages == [f"{tmp_path / 'calib'}: redoing 1 frame(s) whose files are missing or corrupt and "
                               "dropping 0 unreadable line(s) of records.jsonl"]


@pytest.mark.parametrize("damage", [
    pytest.param(lambda s: s.scene_json_path("random-00000").unlink(), id="missing-scene-json"),
    pytest.param(lambda s: s.scene_json_path("random-00000").write_bytes(b'{"torn": '), id="torn-scene-json"),
    pytest.param(lambda s: s.scene_json_path("random-00000").write_bytes(b'"\xff"'), id="non-utf8-scene-json"),
    pytest.param(lambda s: s.scene_mesh_path("random-00000").unlink(), id="missing-scene-mesh"),
    pytest.param(lambda s: s.scene_mesh_path("random-00000").write_bytes(b"not a zip"), id="garbled-scene-mesh"),
])
def test_a_damaged_scene_drops_all_its_frames(tmp_path, damage):
    assert _damaged(tmp_path, damage) == ("resume", [IDS[2]])


def test_scene_mesh_with_a_bad_crc_is_dropped(tmp_path):
    def flip_payload(s):
        path = s.scene_mesh_path("random-00001")
        np.savez(path, vertices=np.arange(400, dtype=np.float64))  # stored, not deflated: payload bytes visible
        raw = bytearray(path.read_bytes())
        raw[300] ^= 0xFF
        path.write_bytes(bytes(raw))
    assert _damaged(tmp_path, flip_payload) == ("resume", IDS[:2])


def test_paths_outside_the_run_are_not_trusted(tmp_path):
    outside = tmp_path / "elsewhere.jpg"
    Image.new("RGB", (W, H)).save(outside, format="JPEG")
    recs = [RECS[0], _rec(0, 1, image="../elsewhere.jpg")]
    store = _run(tmp_path, [RECS[0]])
    store.append_record(recs[1])
    _write_frame(store, _rec(0, 1))  # its own passes exist
    state, finished = store.open_run(FP, False, _never)
    assert list(finished) == [IDS[0]]
    recs2 = _rec(0, 1, passes="../../x.npz")
    np.savez(tmp_path / "x.npz", **{k: np.zeros((H, W)) for k in PASS_ARRAYS})
    store.append_record(recs2)
    assert list(store.open_run(FP, False, _never)[1]) == [IDS[0]]


def test_torn_last_line_is_cut_off_on_disk(tmp_path):
    store = _run(tmp_path, RECS)
    raw = store.records_path.read_bytes()
    store.records_path.write_bytes(raw[:-25])  # a kill in the middle of the third append
    state, finished = store.open_run(FP, False, _never)
    assert state == "resume" and list(finished) == IDS[:2]
    assert store.records_path.read_bytes() == raw[: raw.index(b"\n", raw.index(b"\n") + 1) + 1]
    # load_records cuts the same way (and leaves a whole log alone)
    store.records_path.write_bytes(raw + b'{"frame_id": "calib-ran')
    assert list(store.load_records()) == IDS
    assert store.records_path.read_bytes() == raw


def test_unreadable_and_duplicate_lines_are_dropped_first_record_wins(tmp_path, caplog):
    store = _run(tmp_path, RECS)
    later = RECS[0].model_copy(update={"pose_attempts": 99})
    with open(store.records_path, "ab") as f:
        f.write(b"\xff\xfe not utf-8\n")
        f.write(b'{"frame_id": "x"}\n')
        f.write(b"\n   \n")
        f.write((later.model_dump_json() + "\n").encode())
    with caplog.at_level(logging.WARNING, logger="render_farm.store"):
        state, finished = store.open_run(FP, False, _never)
    assert state == "resume" and list(finished) == IDS and finished[IDS[0]].pose_attempts == BASE.pose_attempts
    assert "redoing 0 frame(s)" in caplog.text and "dropping 3 unreadable line(s)" in caplog.text
    assert store.records_path.read_text() == "".join(r.model_dump_json() + "\n" for r in RECS)


def test_records_log_that_cannot_be_read_is_refused(tmp_path):
    store = _run(tmp_path, [])
    store.records_path.mkdir()
    with pytest.raises(ConfigMismatchError, match=r"cannot read .*records\.jsonl: Is a directory"):
        store.open_run(FP, False, _never)


@pytest.mark.parametrize("damage, what", [
    (lambda p: p.unlink(), "missing"),
    (lambda p: p.write_bytes(b'{"fingerprint": '), "unreadable"),
    (lambda p: p.write_bytes(b'{"fingerprint": "\xff"}'), "unreadable"),
    (lambda p: (p.unlink(), p.mkdir()), "unreadable"),
    (lambda p: p.write_text('["not", "a", "dict"]'), None),
    (lambda p: p.write_text('{"fingerprint": "text"}'), None),
])
def test_lost_manifest_with_own_records_is_repaired(tmp_path, damage, what, caplog):
    store = _run(tmp_path, RECS)
    damage(store.manifest_path)
    with caplog.at_level(logging.WARNING, logger="render_farm.store"):
        state, finished = store.open_run(FP, False, _never)
    assert state == "repaired" and list(finished) == IDS
    if what:
        assert caplog.messages == [f"{store.dir}: manifest.json is {what}; its 3 records match this config (env, "
                                   "seed, image size), so the run resumes and the manifest is rewritten"]


def test_manifest_reader(tmp_path):
    store = _run(tmp_path, [], manifest=False)
    assert store._read_manifest() is None
    store.manifest_path.write_text('{"fingerprint": {"a": 1}}')
    assert store._read_manifest() == {"fingerprint": {"a": 1}}
    store.manifest_path.write_bytes(b"\xff")
    assert store._read_manifest() == "unreadable"


def test_lost_manifest_without_records_is_a_new_run(tmp_path, caplog):
    store = _run(tmp_path, [], manifest=False)
    with caplog.at_level(logging.WARNING, logger="render_farm.store"):
        assert store.open_run(FP, False, _never) == ("new", {})
    assert caplog.messages == [] and not store.records_path.exists()      # nothing to repair, nothing written
    store.manifest_path.write_text("garbage")
    assert store.open_run(FP, False, _never) == ("new", {})
    assert store.dir.is_dir()  # nothing moved aside


def test_temp_files_of_killed_writes_are_removed(tmp_path):
    store = _run(tmp_path, RECS)
    (store.dir / "clips").mkdir()
    temps = [store.dir / ".manifest.json.abc.tmp", store.dir / "frames" / ".x.jpg.1.tmp",
             store.dir / "passes" / ".y.npz.2.tmp", store.dir / "scenes" / ".z.json.3.tmp",
             store.dir / "clips" / ".c.mp4.4.tmp"]
    keep = [store.dir / "frames" / "visible.tmp", store.dir / ".hidden", store.dir / "frames" / ".a.tmp.bak"]
    for p in temps + keep:
        p.write_bytes(b"x")
    assert store.open_run(FP, False, _never)[0] == "resume"
    assert [p.exists() for p in temps] == [False] * 5
    assert all(p.exists() for p in keep)
    # a run whose subdirectories are gone still opens
    for sub in ("frames", "passes", "scenes", "clips"):
        for p in (store.dir / sub).iterdir():
            p.unlink()
        (store.dir / sub).rmdir()
    (store.dir / ".t.tmp").write_bytes(b"x")
    assert store.open_run(FP, False, _never) == ("resume", {})
    assert not (store.dir / ".t.tmp").exists()


def test_append_canonicalise_and_failures(tmp_path):
    store = RunStore(tmp_path)
    for r in (RECS[2], RECS[0], RECS[2], RECS[1]):
        store.append_record(r)
    assert store.records_path.read_text().count("\n") == 4
    recs = store.canonicalise_records()
    assert [r.frame_id for r in recs] == IDS
    assert store.records_path.read_text() == "".join(r.model_dump_json() + "\n" for r in RECS)
    assert store.load_failures() == []
    store.append_failure({"scene": "random-00001", "attempt": 2, "error": "boom"})
    assert store.failures_path.read_text() == '{"attempt": 2, "error": "boom", "scene": "random-00001"}\n'
    with open(store.failures_path, "ab") as f:
        f.write(b"\xff\n{torn\n")
    store.append_failure({"b": 1, "a": [1]})
    assert store.load_failures() == [{"scene": "random-00001", "attempt": 2, "error": "boom"}, {"a": [1], "b": 1}]


def test_reading_an_intact_log_does_not_rewrite_it(tmp_path):
    """A finished run is read (packagers, a resume) without writing into it: only a torn log is rewritten."""
    store = _run(tmp_path, RECS)
    ino = store.records_path.stat().st_ino
    assert list(store.load_records()) == IDS
    assert store.open_run(FP, False, _never)[0] == "resume"
    assert store.records_path.stat().st_ino == ino
    store.records_path.write_bytes(b"")
    ino = store.records_path.stat().st_ino
    assert store.load_records() == {} and store.records_path.stat().st_ino == ino
