"""Scene-side acceptance of an environment's random field poses against Table 1, no rendering.

    .venv/bin/python bench/tape_gap_acceptance.py --scenes 50 --poses 8

Prints the accepted fraction, the failure count of every term and the gray share, so
the pose distribution can be tuned against the paper's rate.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from render_farm.job import scene_side_acceptance  # noqa: E402
from render_farm.plan import plan_jobs  # noqa: E402
from scorers.terms import Verdict, verdict_of  # noqa: E402

# RealityBench Table 1: share of random field poses the scorer accepts
TABLE1_ACCEPTANCE = {"tape_gap": 0.17, "rail_attachment": 0.12, "wire_adequacy": 0.39, "slope_gauge": 0.25,
                     "equipment_label": 0.06, "horizon_peak": 0.19, "breaker_label": 0.05,
                     "car_view": 0.23, "damage_view": 0.38, "ro_board": 0.18}


def measure(env: str, scenes: int, poses: int, seed: int = 0, quality: str = "standard") -> dict:
    q = yaml.safe_load((ROOT / "configs" / "render" / f"{quality}.yaml").read_text())
    verdicts, fails = Counter(), Counter()
    with tempfile.TemporaryDirectory() as tmp:
        jobs = plan_jobs(env, scenes, 1, "random", set(), root_seed=seed, run_dir=tmp, quality=q, device="cpu")
        for job in jobs:
            (Path(tmp) / "scenes").mkdir(exist_ok=True)
            for terms in scene_side_acceptance(job, poses):
                verdicts[verdict_of(terms).value] += 1
                fails.update(t.name for t in terms if not t.passed)
    n = sum(verdicts.values())
    return {"poses": n, "accept_rate": verdicts[Verdict.ACCEPT.value] / n,
            "verdicts": dict(verdicts), "term_failures": dict(fails)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--env", default="tape_gap")
    ap.add_argument("--scenes", type=int, default=50)
    ap.add_argument("--poses", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    r = measure(a.env, a.scenes, a.poses, a.seed)
    paper = TABLE1_ACCEPTANCE.get(a.env)
    print(f"{a.env}: {r['poses']} field poses, scene-side acceptance {r['accept_rate']:.3f}"
          + (f" (Table 1: {paper:.2f})" if paper is not None else ""))
    print(f"verdicts: {r['verdicts']}")
    for k, v in sorted(r["term_failures"].items(), key=lambda kv: -kv[1]):
        print(f"  fails {k:<22} {v:5d}  ({v / r['poses']:.2f})")


if __name__ == "__main__":
    main()
