"""Pipeline overhead on `calib` at `standard` quality, measured in one run.

Prints pipeline wall time / summed pure Cycles beauty-render time, the share of each
stage, and worker start-up time (process spawn + `import bpy`). Not a test: numbers
vary by about +-30% on a shared machine.

    make bench            # or: .venv/bin/python bench/render_overhead.py --n 8 --quality standard
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from render_farm.runner import RunConfig, render  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=8)
    ap.add_argument("--quality", default="standard")
    ap.add_argument("--workers", default="auto")
    ap.add_argument("--device", default="auto")
    ap.add_argument("--threads", type=int, default=None, help="Cycles threads per worker (default: the farm's choice)")
    args = ap.parse_args()
    quality = yaml.safe_load((ROOT / "configs" / "render" / f"{args.quality}.yaml").read_text())
    if args.threads:
        quality["threads"] = args.threads
    workers = args.workers if args.workers == "auto" else int(args.workers)
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        s = render(RunConfig(env="calib", n=args.n, out=out, quality=quality, workers=workers,
                             device=args.device, progress=True))
        wall = time.perf_counter() - t0
        import json
        manifest = json.loads((s.run_dir / "manifest.json").read_text())
    totals = manifest["timings"]["stage_totals_s"]
    workers_used = manifest["workers"]
    render_s = totals.get("render_s", 0.0)
    print(f"calib x{args.n} at {args.quality}: {workers_used} worker(s) x {manifest['threads_per_worker']} thread(s)")
    print(f"pipeline wall time            {wall:8.2f} s  ({args.n / wall:.3f} frames/s)")
    print(f"summed Cycles beauty renders  {render_s:8.2f} s")
    print(f"wall / (beauty render / workers) = {wall / (render_s / workers_used):.2f}  "
          f"(1.00 = nothing but rendering)")
    print(f"wall / summed beauty render      = {wall / render_s:.2f}")
    for k in sorted(totals):
        print(f"  {k:<14} {totals[k]:8.2f} s  ({100 * totals[k] / max(1e-9, sum(totals.values())):4.1f}% of stage time)")
    st = manifest["timings"]["worker_startup_s"]
    print(f"worker start-up (spawn + import bpy): {', '.join(f'{x:.2f}' for x in st)} s")


if __name__ == "__main__":
    main()
