"""Frames per second at `final` on the GPUs of this machine: workers per GPU, OptiX against CUDA,
and how long the GPU waits on scene building, measured in one run.

    .venv/bin/python bench/gpu_throughput.py [--envs tape_gap egopath] [--workers-per-gpu 1 2 4]
                                             [--backends optix cuda] [--n 16]

A warm-up render per backend compiles the kernels into the cache first (its time is printed,
never counted). "GPU busy" is the summed Cycles beauty-render time over the GPU-seconds of the
run (wall x GPUs); with several workers on a GPU their renders overlap and stretch, so it is an
upper bound, and "waits" (1 - busy) a lower bound on the time the GPU waited for scenes. The
last line projects the 1,450-frame RealityBench set at `final` from tape_gap's best setting.
Refuses with one line (exit 2) on a machine without a GPU.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from blender_envs.core.device_choice import (BACKEND_REQUESTS, DeviceProbeError, NoGpuError,  # noqa: E402
                                             choose_device, probe_devices)
from render_farm.runner import RunConfig, render  # noqa: E402

REALITYBENCH_FRAMES = 1450


def quality(name: str) -> dict:
    return yaml.safe_load((ROOT / "configs" / "render" / f"{name}.yaml").read_text())


def one_run(out: Path, env: str, n: int, backend: str, per_gpu: int, cache: Path, q: dict) -> dict:
    t0 = time.perf_counter()
    s = render(RunConfig(env=env, n=n, out=str(out), quality=q, device=backend, workers="auto",
                         workers_per_gpu=per_gpu, kernel_cache=str(cache), progress=False, new_run=True))
    wall = time.perf_counter() - t0
    manifest = json.loads((s.run_dir / "manifest.json").read_text())
    render_s = manifest["timings"]["stage_totals_s"].get("render_s", 0.0)
    gpus = max(1, manifest.get("gpus") or 1)
    busy = min(1.0, render_s / (wall * gpus)) if wall > 0 else 0.0
    return {"env": env, "backend": backend, "per_gpu": per_gpu, "workers": manifest["workers"], "gpus": gpus,
            "frames": s.rendered_now, "wall_s": wall, "fps": s.rendered_now / wall if wall else 0.0,
            "busy": busy}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--envs", nargs="+", default=["tape_gap", "egopath"])
    ap.add_argument("--workers-per-gpu", nargs="+", type=int, default=[1, 2, 4])
    ap.add_argument("--backends", nargs="+", default=["optix", "cuda"], choices=BACKEND_REQUESTS)
    ap.add_argument("--n", type=int, default=16, help="frames per measurement")
    ap.add_argument("--quality", default="final")
    args = ap.parse_args(argv)
    try:
        found = probe_devices()
        names = choose_device("gpu", found).device_names
    except (NoGpuError, DeviceProbeError) as exc:
        print(f"gpu_throughput: no GPU to measure on: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    backends = [b for b in args.backends if found.get(b.upper())]
    print(f"GPUs: {', '.join(names)}; backends here: {', '.join(backends) or 'none of ' + ', '.join(args.backends)}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "kernel-cache"
        for backend in backends:
            t0 = time.perf_counter()
            one_run(Path(tmp) / f"warm-{backend}", "calib", 1, backend, 1, cache, quality("preview"))
            print(f"warm-up {backend}: {time.perf_counter() - t0:.1f} s (kernel load/compile, not counted)")
        for env in args.envs:
            for backend in backends:
                for k in args.workers_per_gpu:
                    r = one_run(Path(tmp) / f"{env}-{backend}-{k}", env, args.n, backend, k, cache, quality(args.quality))
                    rows.append(r)
                    print(f"  {env:<9} {backend:<6} {k} per GPU ({r['workers']} workers): {r['fps']:.3f} frames/s",
                          flush=True)
    print()
    print(f"| env | backend | workers/GPU | workers | frames | wall (s) | frames/s | GPU busy | GPU waits |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['env']} | {r['backend']} | {r['per_gpu']} | {r['workers']} | {r['frames']} | {r['wall_s']:.1f} | "
              f"{r['fps']:.3f} | {100 * r['busy']:.0f}% | {100 * (1 - r['busy']):.0f}% |")
    tape = [r for r in rows if r["env"] == "tape_gap" and r["fps"] > 0]
    if tape:
        best = max(tape, key=lambda r: r["fps"])
        hours = REALITYBENCH_FRAMES / best["fps"] / 3600
        print(f"\nprojection: {REALITYBENCH_FRAMES} RealityBench frames at {args.quality} ≈ {hours:.2f} h on this "
              f"machine ({best['backend']}, {best['per_gpu']} workers per GPU, tape_gap's rate)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
