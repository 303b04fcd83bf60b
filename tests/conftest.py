"""Shared fixtures: one tiny real calib run that several convention tests read."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import Phase, settings

# Under mutation testing (scripts/mutants_run.py sets SCENEBENCH_MUTANTS) every mutant reruns the same
# property tests: derandomized, so that a mutant's verdict does not depend on the examples drawn for
# it, and without the example database, which would carry one mutant's failing examples to the next.
# Nor does it shrink a failing example or hunt for a second bug: a mutant is killed by the first
# failure, and minimising it (seconds per kill) tells nobody anything. A test's own @settings
# (max_examples, deadline) still apply; it inherits these.
settings.register_profile("mutants", derandomize=True, database=None, report_multiple_bugs=False,
                          phases=(Phase.explicit, Phase.reuse, Phase.generate))
if os.environ.get("SCENEBENCH_MUTANTS") == "1":
    settings.load_profile("mutants")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
pytest_plugins = ["mutants_order"]   # a mutant's tests fastest first (tests/mutants_order.py)


def run_cli(*args, timeout: int = 600) -> subprocess.CompletedProcess:
    """`python -m scenebench ...` from the repository root, offline; asserts exit 0."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    r = subprocess.run([sys.executable, "-m", "scenebench", *args], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr
    return r


def preview_quality(**overrides) -> dict:
    q = yaml.safe_load((ROOT / "configs/render/preview.yaml").read_text())
    q.update(overrides)
    return q


def cycles_scene(quality, seed: int = 1):
    """An empty factory scene set up for Cycles on the CPU at `quality` (a RenderSettings): what a
    render test builds its own scene into."""
    from blender_envs.core.cycles_setup import configure_cycles, configure_device
    from blender_envs.core.scene_reset import reset_scene

    scene = reset_scene()
    configure_cycles(scene, quality, seed=seed)
    configure_device(scene, "cpu")
    return scene


def run_config(out, **kw):
    from render_farm.runner import RunConfig

    base = dict(env="calib", n=4, seed=0, out=str(out), quality=preview_quality(), workers=2, progress=False)
    base.update(kw)
    return RunConfig(**base)


def render_one_clip(tmp_path_factory, env: str, seed: int, long_side: int):
    """One clip of `env` (8 frames) at preview quality, one worker: a clip render test's run dir."""
    from render_farm.runner import render

    summary = render(run_config(tmp_path_factory.mktemp(env), env=env, n=1, seed=seed, workers=1,
                                quality=preview_quality(long_side_px=long_side)))
    assert summary.clips == 1 and summary.frames == 8 and not summary.failed_scenes
    return summary.run_dir


def only_clip(run, env: str):
    """(clip document, validated spec, scene state) of a run that holds one clip."""
    from blender_envs.registry import get_environment

    (path,) = sorted((run / "clips").glob("*.json"))
    clip = json.loads(path.read_text())
    state = json.loads((run / "scenes" / f"{clip['scene_id']}.json").read_text())
    return clip, get_environment(env).spec_model.model_validate(state["spec"]), state


@pytest.fixture(scope="session")
def calib_run(tmp_path_factory):
    """8 calib frames at 128x96, 4 samples: the convention tests' shared evidence."""
    from render_farm.runner import render

    out = tmp_path_factory.mktemp("calib_run")
    summary = render(run_config(out, n=8, quality=preview_quality(long_side_px=128)))
    return summary.run_dir


@pytest.fixture(scope="session")
def warehouse_sot_run(tmp_path_factory):
    """One warehouse_sot clip (seed 11, 160 x 120, preview samples; 46 frames, ~100 s), rendered
    once for the box-task tests and the VANTAGE end-to-end test. Read only."""
    from render_farm.runner import render

    summary = render(run_config(tmp_path_factory.mktemp("warehouse_sot"), env="warehouse_sot", n=1, seed=11,
                                workers=1, quality=preview_quality(long_side_px=160)))
    assert summary.clips == 1 and summary.frames == 46 and not summary.failed_scenes
    return summary.run_dir
