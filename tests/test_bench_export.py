"""bench/export_throughput.py at a tiny size: its synthetic store exports and scores end to end
(the bench is run by `make bench`; this keeps it from rotting, it times nothing)."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import yaml

from conftest import ROOT


def test_export_bench_builds_exports_and_scores_a_small_store():
    env = dict(os.environ, PYTHONPATH=str(ROOT), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "export_throughput.py"), "--frames", "60",
                        "--models", "3", "--long-side", "64"], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    plan = yaml.safe_load((ROOT / "configs/benchmark/realitybench.yaml").read_text())["environments"]
    n = sum(round(k * 60 / 1450) for strata in plan.values() for k in strata.values())
    assert f"synthetic run store: {n} frames" in r.stdout
    rows = int(re.search(r"export: (\d+) rows", r.stdout)[1])
    assert rows == n   # no frame is excluded in the synthetic store
    assert f"score: 3 prediction files x {n} items" in r.stdout and "every reply matched an item" in r.stdout
