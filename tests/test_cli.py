"""Bad input gets one clear line and a non-zero exit, and nothing is written."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from blender_envs.registry import known_environments
from conftest import ROOT


def _cli(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "scenebench", "render", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args, needle", [
    (["env=nope"], "unknown environment 'nope'; known environments: " + ", ".join(known_environments())),
    (["n=0"], "N must be a positive number of frames, got 0"),
    (["n=-3"], "N must be a positive number of frames, got -3"),
    (["render=ultra"], "unknown quality 'ultra'; choose one of final, preview, standard"),
    (["executor=slurm"], "unknown executor 'slurm'; choose one of local, ray"),
    (["device=tpu"], "unknown device 'tpu'; choose one of auto, cpu, gpu"),
    (["stratum=best"], "unknown stratum 'best'; choose one of random, positive"),
    (["workers=0"], "WORKERS must be a positive integer or auto"),
    (["n=abc"], "bad value for n"),
    (["frobnicate=1"], "frobnicate"),
])
def test_bad_knobs_fail_in_one_line(tmp_path, args, needle):
    r = _cli(f"out={tmp_path / 'out'}", *args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("scenebench: error:"), r.stderr
    assert needle in lines[0]
    assert not (tmp_path / "out").exists()


def test_unwritable_out(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = _cli(f"out={blocker / 'sub'}", "n=1")
    assert r.returncode == 2 and "is not writable" in r.stderr


@pytest.mark.render
def test_changed_config_is_refused_unless_new_run(tmp_path):
    base = [f"out={tmp_path}", "n=1", "render=preview", "progress=false"]
    assert _cli(*base).returncode == 0
    r = _cli(*base, "seed=7")
    assert r.returncode == 2 and "different config" in r.stderr and "seed: 0 -> 7" in r.stderr
    r = _cli(*base, "seed=7", "new_run=true")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "calib.previous-1" / "records.jsonl").exists()
    assert "1 frames" in r.stdout
