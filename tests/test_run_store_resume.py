"""Resume is byte-identical: a rerun that renders only the last view of each scene in a
fresh worker gives the same records, frames and passes as the uninterrupted run.

Seed 0 of calib draws a shake view (keyframed, quaternion camera) before ordinary views
in scenes 1 and 5, so any per-view Blender state left behind by a shake view changes the
views after it in the uninterrupted run but not in the resumed one.
"""
from __future__ import annotations

import json
import shutil

import pytest

from conftest import preview_quality, run_config
from formats.records import FrameRecord
from render_farm.job import _seed_parts, sample_spec
from render_farm.plan import plan_jobs
from render_farm.runner import render
from render_farm.seeds import rng_for
from blender_envs.registry import get_environment

pytestmark = pytest.mark.render

N, VIEWS = 24, 4
QUALITY = preview_quality(long_side_px=32, samples=1, pass_samples=1)


def _focus_modes(seed: int) -> list[str]:
    env = get_environment("calib")
    modes = []
    for job in plan_jobs("calib", N, VIEWS, "random", set(), root_seed=seed, run_dir="x", quality={}, device="cpu"):
        spec = sample_spec(job)
        modes.append("".join(env.sample_view(spec, rng_for(*_seed_parts(job), v, "view", 0), v, 32).pose.focus_mode[0]
                             for v in job.views))
    return modes


def test_seed_0_has_shake_views_before_other_views():
    """The premise of the resume test: pinned so that a change of sampler is noticed."""
    assert _focus_modes(0) == ["llts", "sttt", "lttt", "ttss", "tttt", "tstt"]


def _snapshot(run_dir):
    recs = [FrameRecord.model_validate_json(l) for l in (run_dir / "records.jsonl").read_text().splitlines()]
    files = {str(p.relative_to(run_dir)): p.read_bytes()
             for kind in ("frames/*.jpg", "passes/*.npz", "scenes/*.json", "scenes/*.npz") for p in run_dir.glob(kind)}
    return [r.stable_json() for r in recs], files


def test_rerun_after_dropping_last_view_of_every_scene_is_byte_identical(tmp_path):
    full = render(run_config(tmp_path / "full", n=N, workers=1, quality=QUALITY)).run_dir
    want_lines, want_files = _snapshot(full)
    assert len(want_lines) == N

    part = tmp_path / "part" / "calib"
    shutil.copytree(full, part)
    dropped = {f"calib-random-{s:05d}-{VIEWS - 1:02d}" for s in range(N // VIEWS)}
    lines = (part / "records.jsonl").read_text().splitlines()
    kept = [l for l in lines if json.loads(l)["frame_id"] not in dropped]
    assert len(kept) == N - len(dropped)
    (part / "records.jsonl").write_text("".join(l + "\n" for l in kept))
    for fid in dropped:
        (part / "frames" / f"{fid}.jpg").unlink()
        (part / "passes" / f"{fid}.npz").unlink()

    s = render(run_config(tmp_path / "part", n=N, workers=1, quality=QUALITY))
    assert s.rendered_now == len(dropped)
    got_lines, got_files = _snapshot(part)
    assert got_lines == want_lines
    assert sorted(got_files) == sorted(want_files)
    differ = sorted(k for k in want_files if got_files[k] != want_files[k])
    assert differ == []
