"""The render farm on real (tiny) renders: determinism, retries, dying workers, resume."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, preview_quality, run_config
from formats.records import FrameRecord
from render_farm.runner import render
from render_farm.store import RunStore

pytestmark = pytest.mark.render


def _stable_lines(run_dir: Path) -> list[str]:
    return [FrameRecord.model_validate_json(l).stable_json() for l in (run_dir / "records.jsonl").read_text().splitlines()]


def test_same_seed_gives_identical_records_scenes_and_frames(tmp_path):
    # a: 2 workers, 2 threads each, both scenes split into single-view jobs; b: 1 worker, 1 thread, whole scenes
    a = render(run_config(tmp_path / "a", n=5, workers=2)).run_dir
    b = render(run_config(tmp_path / "b", n=5, workers=1, quality=preview_quality(threads=1))).run_dir
    assert json.loads((a / "manifest.json").read_text())["threads_per_worker"] == min(2, os.cpu_count())
    assert json.loads((b / "manifest.json").read_text())["threads_per_worker"] == 1
    assert _stable_lines(a) == _stable_lines(b)
    assert len(_stable_lines(a)) == 5
    for scene in sorted((a / "scenes").glob("*.json")):
        assert scene.read_bytes() == (b / "scenes" / scene.name).read_bytes()
    for kind in ("scenes/*.npz", "frames/*.jpg", "passes/*.npz"):
        files = sorted(a.glob(kind))
        assert files
        for f in files:
            assert f.read_bytes() == (b / f.relative_to(a)).read_bytes(), f"{f.name} differs"
    c = render(run_config(tmp_path / "c", n=5, seed=1)).run_dir
    assert _stable_lines(c) != _stable_lines(a)


def test_raising_scene_is_retried_and_recorded(tmp_path):
    s = render(run_config(tmp_path, n=8, faults={"raise_in": ["random-00000"], "raise_times": 1}))
    assert s.frames == 8 and not s.failed_scenes
    fails = RunStore(s.run_dir).load_failures()
    # 2 scenes on 2 workers are split into one job per view (plan.split_tail): each raised once
    assert sorted(f["views"] for f in fails) == [[0], [1], [2], [3]]
    assert all(f["scene_id"] == "random-00000" and not f["final"] and f["attempt"] == 0 for f in fails)
    assert all("InjectedFault" in f["error"] and "Traceback" in f["error"] for f in fails)


def test_scene_that_always_raises_fails_alone(tmp_path):
    s = render(run_config(tmp_path, n=8, max_attempts=3, faults={"raise_in": ["random-00001"], "raise_times": 99}))
    assert s.failed_scenes == ["random-00001"]
    assert s.frames == 4  # the other scene's frames are all there
    fails = RunStore(s.run_dir).load_failures()
    for view in range(4):  # the scene's four single-view jobs, each tried three times
        mine = [f for f in fails if f["views"] == [view]]
        assert [f["attempt"] for f in mine] == [0, 1, 2] and [f["final"] for f in mine] == [False, False, True]
    assert len(fails) == 12 and {f["scene_id"] for f in fails} == {"random-00001"}
    manifest = json.loads((s.run_dir / "manifest.json").read_text())
    assert manifest["status"] == "complete_with_failures"


def test_dead_worker_is_replaced_and_its_job_requeued(tmp_path):
    s = render(run_config(tmp_path, n=8, workers=1, faults={"exit_in": ["random-00000"], "exit_times": 1}))
    assert s.frames == 8 and not s.failed_scenes
    fails = RunStore(s.run_dir).load_failures()
    assert len(fails) == 1 and "worker process died with exit code 17" in fails[0]["error"]
    manifest = json.loads((s.run_dir / "manifest.json").read_text())
    assert manifest["timings"]["worker_deaths"] == 1


def test_workers_are_recycled_after_max_scenes(tmp_path):
    s = render(run_config(tmp_path, n=12, workers=1, max_scenes_per_worker=1))
    assert s.frames == 12
    assert len(s.worker_startup_s) == 3  # one fresh process per scene


def _cli(*args, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "scenebench", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, **kw)


def test_killed_run_resumes_without_duplicates_or_gaps(tmp_path):
    args = ["render", "env=calib", "n=12", "render=preview", f"out={tmp_path}", "workers=1", "progress=false"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "scenebench", *args], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    records = tmp_path / "calib" / "records.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline:
        if records.exists() and len(records.read_text().splitlines()) >= 5:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    n_before = len(records.read_text().splitlines())
    assert 5 <= n_before < 12, "the kill should land half-way"
    with open(records, "a") as f:  # a torn line, as a kill during a write would leave
        f.write('{"frame_id": "calib-random-00002-0')
    done = _cli(*args, timeout=300)
    assert done.returncode == 0, done.stderr
    ids = [json.loads(l)["frame_id"] for l in records.read_text().splitlines()]
    assert len(ids) == len(set(ids)) == 12
    assert sorted(ids) == ids
    for i in ids:
        assert (tmp_path / "calib" / "frames" / f"{i}.jpg").exists()
    assert "12 frames" in done.stdout and f"({12 - n_before} rendered" in done.stdout


@pytest.mark.ray
def test_ray_executor_matches_local(tmp_path):
    local = render(run_config(tmp_path / "local", n=4)).run_dir
    ray_run = render(run_config(tmp_path / "ray", n=4, executor="ray",
                                faults={"raise_in": ["random-00000"], "raise_times": 1}))
    assert _stable_lines(ray_run.run_dir) == _stable_lines(local)
    fails = RunStore(ray_run.run_dir).load_failures()
    assert len(fails) == 4 and all("InjectedFault" in f["error"] for f in fails)  # one per view job


def test_positive_stratum_culls_before_rendering(tmp_path):
    """Positive frames are all scorer-acceptable, and poses failing the scene-side
    terms are rejected before any render is spent on them."""
    s = render(run_config(tmp_path, n=4, stratum="positive"))
    recs = [FrameRecord.model_validate_json(l) for l in (s.run_dir / "records.jsonl").read_text().splitlines()]
    assert len(recs) == 4 and all(r.verdict == "accept" and r.stratum == "positive" for r in recs)
    assert all(r.frame_id.startswith("calib-positive-") for r in recs)
    assert sum(r.pose_attempts for r in recs) > sum(r.renders for r in recs)  # culling happened
    assert sum(r.renders for r in recs) <= 6
