"""The run store trusts nothing it did not check: another seed's records without a
manifest, a garbled manifest, a records line that is not UTF-8, a corrupt or missing
frame, passes file or scene file; and the up-front refusals (N too large, no GPU)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from conftest import ROOT, preview_quality, run_config
from formats.records import FrameRecord
from render_farm.plan import MAX_SCENES, frame_seed, max_frames, parse_scene_id, plan_jobs
from render_farm.runner import ConfigError, render, validate
from render_farm.store import ConfigMismatchError, RunStore

QUALITY = preview_quality(long_side_px=32, samples=1, pass_samples=1)


def _cfg(out, **kw):
    return run_config(out, **{"workers": 1, "quality": QUALITY, **kw})


def _cli(*args, timeout=300):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "scenebench", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


def _snapshot(run_dir):
    lines = [FrameRecord.model_validate_json(l).stable_json() for l in (run_dir / "records.jsonl").read_text().splitlines()]
    files = {str(p.relative_to(run_dir)): p.read_bytes()
             for kind in ("frames/*.jpg", "passes/*.npz", "scenes/*.json", "scenes/*.npz") for p in run_dir.glob(kind)}
    return lines, files


@pytest.fixture(scope="module")
def base_run(tmp_path_factory):
    """12 calib frames (3 scenes), seed 0, 32 px: the untouched reference."""
    out = tmp_path_factory.mktemp("base")
    return render(_cfg(out, n=12)).run_dir


@pytest.fixture
def run_copy(base_run, tmp_path):
    shutil.copytree(base_run, tmp_path / "calib")
    return tmp_path / "calib"


# -- pure parts ---------------------------------------------------------------------
def test_record_seed_is_rederived_from_the_frame_coordinates():
    assert parse_scene_id("random-00012") == ("random", 12, 0)
    assert parse_scene_id("positive-00003-r2") == ("positive", 3, 2)
    assert parse_scene_id("random-12") is None and parse_scene_id("random-00001-r0") is None
    assert frame_seed(0, "calib", "random", 1, 2) != frame_seed(1, "calib", "random", 1, 2)
    assert frame_seed(0, "calib", "positive", 3, 0, redraw=2) != frame_seed(0, "calib", "positive", 3, 0)


def test_base_records_carry_seed_0(base_run):
    recs = [FrameRecord.model_validate_json(l) for l in (base_run / "records.jsonl").read_text().splitlines()]
    assert len(recs) == 12
    for r in recs:
        _, scene, redraw = parse_scene_id(r.scene_id)
        assert r.seed == frame_seed(0, "calib", "random", scene, r.view_index, redraw)


def test_n_above_the_documented_limit_is_refused_at_once(tmp_path):
    assert MAX_SCENES == 100_000 and max_frames(4) == 400_000
    out = tmp_path / "o"
    t0 = time.perf_counter()
    with pytest.raises(ConfigError, match=r"N=400001 is too many frames .* N <= 400000 for calib"):
        render(_cfg(out, n=400_001))
    with pytest.raises(ConfigError, match="too many frames"):
        render(_cfg(out, n=10**9))
    assert time.perf_counter() - t0 < 5
    assert not out.exists()
    assert validate(_cfg(out, n=400_000)).name == "calib"  # the limit itself is allowed
    with pytest.raises(ValueError, match="at most 100000 scenes"):
        plan_jobs("calib", 400_001, 4, "random", set())


def test_cli_refuses_huge_n_in_one_line(tmp_path):
    r = _cli("render", "env=calib", "n=1e9", f"out={tmp_path / 'o'}", "progress=false")
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "too many frames" in r.stderr
    assert not (tmp_path / "o").exists()


# -- manifest and records that belong to someone else ------------------------------------
def test_deleted_manifest_and_another_seed_is_refused_in_one_line(run_copy):
    before = _snapshot(run_copy)
    (run_copy / "manifest.json").unlink()
    r = _cli("render", "env=calib", "n=12", "seed=1", "render=preview", "render.long_side_px=32",
             f"out={run_copy.parent}", "progress=false")
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1
    assert "records.jsonl holds 12 of 12 frames of another config" in r.stderr and "seed=1" in r.stderr
    assert _snapshot(run_copy) == before and not (run_copy / "manifest.json").exists()


def test_records_of_another_size_are_refused(run_copy):
    (run_copy / "manifest.json").unlink()
    with pytest.raises(ConfigMismatchError, match="long side 32 px, not 48"):
        render(_cfg(run_copy.parent, n=12, quality=preview_quality(long_side_px=48, samples=1, pass_samples=1)))


def test_new_run_moves_foreign_records_aside(run_copy):
    (run_copy / "manifest.json").write_bytes(b"\xff\xfe garbage")
    store = RunStore(run_copy)
    cfg = _cfg(run_copy.parent, n=12, seed=1, new_run=True)
    from render_farm.runner import fingerprint, foreign_reason
    state, done = store.open_run(fingerprint(cfg, validate(cfg)), True, foreign_reason(cfg))
    assert (state, done) == ("new", {})
    assert not run_copy.exists() and (run_copy.parent / "calib.previous-1" / "records.jsonl").exists()


@pytest.mark.parametrize("damage", ["deleted", "garbled"])
def test_missing_or_garbled_manifest_with_own_records_is_repaired(run_copy, damage):
    before = _snapshot(run_copy)
    if damage == "deleted":
        (run_copy / "manifest.json").unlink()
    else:
        (run_copy / "manifest.json").write_bytes(b'{"fingerprint": {"env": "cal\xff')
    s = render(_cfg(run_copy.parent, n=12))
    assert s.rendered_now == 0 and s.frames == 12
    manifest = json.loads((run_copy / "manifest.json").read_text())
    assert manifest["state"] == "repaired" and manifest["status"] == "complete"
    assert manifest["fingerprint"]["seed"] == 0
    assert _snapshot(run_copy) == before
    # once repaired, a rerun is an ordinary resume
    render(_cfg(run_copy.parent, n=12))
    assert json.loads((run_copy / "manifest.json").read_text())["state"] == "resume"


def test_garbled_manifest_and_another_seed_is_refused(run_copy):
    (run_copy / "manifest.json").write_text("[1, 2")
    with pytest.raises(ConfigMismatchError, match="of another config .*seed=3"):
        render(_cfg(run_copy.parent, n=12, seed=3))


# -- damaged files are redone, byte-identical ---------------------------------------------
def test_damaged_lines_and_files_are_detected_and_redone(base_run, run_copy):
    want = _snapshot(base_run)
    lines = (run_copy / "records.jsonl").read_bytes().split(b"\n")
    fid = lambda s, v: f"calib-random-{s:05d}-{v:02d}"  # noqa: E731
    redo = set()
    # a records line that is not UTF-8
    k = next(i for i, l in enumerate(lines) if fid(0, 1).encode() in l)
    lines[k] = lines[k].replace(b'"target":"', b'"target":"\xff', 1)
    redo.add(fid(0, 1))
    # a record pointing at a (valid) JPEG outside the run directory
    k = next(i for i, l in enumerate(lines) if fid(1, 1).encode() in l)
    outside = run_copy.parent / "outside.jpg"
    shutil.copy(run_copy / "frames" / f"{fid(1, 1)}.jpg", outside)
    lines[k] = lines[k].replace(f'"image":"frames/{fid(1, 1)}.jpg"'.encode(), b'"image":"../outside.jpg"')
    assert b"../outside.jpg" in lines[k]
    redo.add(fid(1, 1))
    (run_copy / "records.jsonl").write_bytes(b"\n".join(lines))
    # a truncated JPEG, an empty JPEG, a deleted and a garbled passes file
    jpg = run_copy / "frames" / f"{fid(0, 0)}.jpg"
    jpg.write_bytes(jpg.read_bytes()[: len(jpg.read_bytes()) // 2])
    (run_copy / "frames" / f"{fid(0, 2)}.jpg").write_bytes(b"")
    (run_copy / "passes" / f"{fid(0, 3)}.npz").unlink()
    (run_copy / "passes" / f"{fid(1, 0)}.npz").write_bytes(b"PK\x03\x04 not a zip")
    redo |= {fid(0, 0), fid(0, 2), fid(0, 3), fid(1, 0)}
    # a missing scene JSON: every frame of scene 2 is redone
    (run_copy / "scenes" / "random-00002.json").unlink()
    redo |= {fid(2, v) for v in range(4)}

    s = render(_cfg(run_copy.parent, n=12))
    assert s.rendered_now == len(redo) == 10
    assert s.frames == 12
    got = _snapshot(run_copy)
    assert got[0] == want[0]
    assert sorted(got[1]) == sorted(want[1])
    assert [k for k in want[1] if got[1][k] != want[1][k]] == []
    assert json.loads((run_copy / "manifest.json").read_text())["state"] == "resume"


# -- device=gpu on a machine without one -----------------------------------------------------
def test_device_probe_runs_without_bpy_in_this_process():
    from blender_envs.core.device_choice import probe_devices

    avail = probe_devices()
    assert "CPU" in avail and all(isinstance(v, list) for v in avail.values())
    r = subprocess.run([sys.executable, "-c", "import sys, render_farm.runner; print('bpy' in sys.modules)"],
                       cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True)
    assert r.stdout.strip() == "False", r.stderr


def test_gpu_without_gpu_is_refused_before_anything_is_written(tmp_path):
    from blender_envs.core.device_choice import GPU_PREFERENCE, probe_devices

    if any(k in GPU_PREFERENCE for k in probe_devices()):
        pytest.skip("this machine has a GPU")
    out = tmp_path / "o"
    r = _cli("render", "env=calib", "n=2", "device=gpu", f"out={out}", "progress=false")
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1
    assert "device=gpu was asked for but Cycles found no GPU" in r.stderr
    assert not out.exists()
