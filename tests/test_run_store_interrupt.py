"""Ctrl-C on a real run: the whole process group gets SIGINT, as from a terminal.

Workers ignore it and stop after the frame in progress; the coordinator records every
frame that finished, marks the manifest interrupted and exits 130 without a traceback;
the rerun renders exactly the rest and removes temp files that a kill left behind."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT

pytestmark = pytest.mark.render

ARGS = ["render", "env=calib", "n=12", "render=preview", "render.long_side_px=32", "render.samples=1",
        "workers=2", "progress=false"]


def _group_left(pgid: int, wait_s: float = 10.0) -> str:
    """The processes of group `pgid` still running after `wait_s` (ps lines), or ''."""
    deadline = time.time() + wait_s
    while time.time() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return ""
        time.sleep(0.1)
    ps = subprocess.run(["ps", "-eo", "pgid,pid,stat,cmd"], capture_output=True, text=True).stdout
    return "\n".join(l for l in ps.splitlines() if l.split()[0] == str(pgid))


def test_ctrl_c_stops_cleanly_and_the_rerun_finishes(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = tmp_path / "calib"
    records = run / "records.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "scenebench", *ARGS, f"out={tmp_path}"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.time() + 180
    while time.time() < deadline and not (records.exists() and len(records.read_text().splitlines()) >= 2):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    out, err = proc.communicate(timeout=120)
    assert _group_left(proc.pid) == "", "a worker outlived the coordinator"
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "interrupted; rerun the same command to resume" in err

    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "interrupted"
    ids = [json.loads(l)["frame_id"] for l in records.read_text().splitlines()]
    assert 2 <= len(ids) < 12 and ids == sorted(set(ids))
    assert sorted(p.stem for p in (run / "frames").glob("*.jpg")) == ids  # no frame without its record
    assert not list(run.rglob("*.tmp"))

    stray = run / ".records.jsonl.k1ll3d.tmp"  # what a kill during the final sort leaves
    stray.write_text("half")
    done = subprocess.run([sys.executable, "-m", "scenebench", *ARGS, f"out={tmp_path}"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"12 frames" in done.stdout and f"({12 - len(ids)} rendered" in done.stdout
    assert not stray.exists()
    assert json.loads((run / "manifest.json").read_text())["status"] == "complete"
