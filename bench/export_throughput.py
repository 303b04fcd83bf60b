"""Export and score throughput on a synthetic RealityBench-sized run store, measured in one run.

Builds the whole set's shape without rendering: 1,450 frames over the 11 environments with the
benchmark file's strata (real FrameRecords, real JPEGs of the final quality's size, scene state
files, ground truth with every answer key of Table 3), then times
  - `export_realitybench` (frames per second; goal >= 100 on the 2-core dev machine), and
  - `scenebench score` on 26 prediction files over the export, one per model, each answering
    every item (goal: under a minute), as a subprocess, as a user runs it.
Not a test: the figures vary with the machine's load.

    make bench            # or: .venv/bin/python bench/export_throughput.py [--frames 1450] [--models 26]
"""
from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from formats.records import FrameRecord  # noqa: E402
from packagers.hf_export import export_realitybench  # noqa: E402
from packagers.prompts import get_prompt  # noqa: E402
from scorers.terms import TermResult  # noqa: E402

BENCHMARK = ROOT / "configs" / "benchmark" / "realitybench.yaml"


def photo_jpeg(rng: np.random.Generator, long_side: int) -> bytes:
    """A smooth picture with a little noise: compresses like a rendered frame, not like noise."""
    h, w = long_side * 3 // 4, long_side
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    base = rng.random(3) * 255
    img = base + 60 * np.sin(x[..., None] / rng.uniform(20, 80) + rng.random(3) * 6) \
        * np.cos(y[..., None] / rng.uniform(20, 80)) + rng.normal(0, 4, (h, w, 3))
    buf = io.BytesIO()
    Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).save(buf, format="JPEG", quality=90)
    return buf.getvalue()


def truth_value(key, rng: np.random.Generator):
    """A ground-truth value of the key's type (Table 3 grammar)."""
    if key.type == "bool":
        return bool(rng.integers(2))
    if key.type == "number":
        return round(float(rng.uniform(1, 100)), 2)
    if key.type == "string":
        return "".join(rng.choice(list("ABCDEFGHJKLMNPRSTUVWXYZ0123456789"), 8))
    if key.type == "enum":
        return str(rng.choice(key.options))
    if key.type == "enum_list":
        k = int(rng.integers(1, len(key.options) + 1))
        return sorted(str(o) for o in rng.choice(key.options, k, replace=False))
    if key.type == "entries":
        return [{"name": f"CIRCUIT {i}", "amps": int(rng.choice([15, 20, 30]))} for i in range(int(rng.integers(3, 9)))]
    raise ValueError(f"no synthetic value for key type {key.type}")


def frame_terms(verdict: str) -> list[TermResult]:
    ok = TermResult(name="in_frame", side="scene", value=1.0, threshold=">= 0.9", passed=True)
    if verdict == "accept":
        return [ok]
    return [ok, TermResult(name="distance", side="scene", value=2.0, threshold="<= 0.65 m", unit="m", passed=False)]


def make_store(base: Path, long_side: int, frames: int, seed: int = 0) -> list[Path]:
    """One run directory per (environment, stratum) of the benchmark file, `frames` in all."""
    plan = yaml.safe_load(BENCHMARK.read_text())["environments"]
    total = sum(n for strata in plan.values() for n in strata.values())
    rng = np.random.default_rng(seed)
    jpegs = [photo_jpeg(rng, long_side) for _ in range(16)]   # reused: JPEG encoding is not what is timed
    runs = []
    for env, strata in plan.items():
        keys = get_prompt(env).keys
        for stratum, n in strata.items():
            n = round(n * frames / total)
            if n == 0:
                continue
            run = base / stratum / env
            for sub in ("frames", "passes", "scenes"):
                (run / sub).mkdir(parents=True, exist_ok=True)
            lines = []
            for i in range(n):
                scene_id, view = f"{stratum}-{i // 4:05d}", i % 4
                fid = f"{env}-{scene_id}-{view:02d}"
                (run / "frames" / f"{fid}.jpg").write_bytes(jpegs[int(rng.integers(len(jpegs)))])
                (run / "passes" / f"{fid}.npz").write_bytes(b"")
                if view == 0:
                    (run / "scenes" / f"{scene_id}.json").write_text(json.dumps(
                        {"env": env, "scene_id": scene_id, "spec": {"seed": i, "pitch_deg": float(rng.uniform(0, 40))}}))
                verdict = "accept" if stratum == "positive" or rng.random() < 0.25 else "reject"
                rec = FrameRecord(
                    frame_id=fid, env=env, scene_id=scene_id, view_index=view, seed=int(rng.integers(2**62)),
                    stratum=stratum, target="target", camera={"width": long_side, "height": long_side * 3 // 4},
                    terms=frame_terms(verdict), verdict=verdict, failing_term=None if verdict == "accept" else "distance",
                    sanity={"ok": True, "reasons": []}, ground_truth={k.name: truth_value(k, rng) for k in keys},
                    image=f"frames/{fid}.jpg", passes=f"passes/{fid}.npz", isp={}, pose_attempts=1, renders=1,
                    timings={"render_s": 1.0})
                lines.append(rec.model_dump_json())
            (run / "records.jsonl").write_text("".join(x + "\n" for x in lines))
            (run / "manifest.json").write_text(json.dumps({
                "fingerprint": {"env": env, "generator_version": f"{env}-synthetic", "seed": seed,
                                "quality": {"name": "final"}},
                "config": {"env": env, "stratum": stratum}, "seeds": {"root_seed": seed, "scheme": "synthetic"},
                "versions": {"python": "3.11"}, "git_commit": None}))
            runs.append(run)
    return runs


def wrong(value):
    """Another answer of the same JSON type."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value * 1.5 + 3
    if isinstance(value, str):
        return value[::-1] + "X"
    return value[:-1]


def prediction_files(dataset: Path, out: Path, models: int, seed: int = 0) -> list[Path]:
    """`models` JSONL files answering every item: model m is right on about (40 + 2m)% of the fields,
    and some replies are prose, fenced or cut off, as real models' are."""
    import pyarrow.parquet as pq

    rows = []
    for shard in sorted(dataset.glob("*/*.parquet")):
        rows += pq.read_table(shard, columns=["id", "ground_truth", "scorer_verdict"]).to_pylist()
    rng = np.random.default_rng(seed)
    files = []
    for m in range(models):
        p_right = 0.40 + 0.02 * m
        lines = []
        for row in rows:
            truth = {"adequate": row["scorer_verdict"] == "accept", **json.loads(row["ground_truth"])}
            reply = {k: v if rng.random() < p_right else wrong(v) for k, v in truth.items()}
            text = json.dumps(reply)
            r = rng.random()
            if r < 0.03:
                text = "I cannot tell from this photo."
            elif r < 0.06:
                text = "```json\n" + text + "\n```"
            elif r < 0.07:
                text = text[: len(text) // 2]
            lines.append(json.dumps({"id": row["id"], "model": f"synthetic-model-{m:02d}", "reply": text,
                                     "usage": {"prompt_tokens": 1200, "output_tokens": 60}}))
        path = out / f"model-{m:02d}.jsonl"
        path.write_text("".join(x + "\n" for x in lines))
        files.append(path)
    return files


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=1450)
    ap.add_argument("--models", type=int, default=26)
    ap.add_argument("--long-side", type=int, default=1600, help="the frames' long side (final quality)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        runs = make_store(tmp / "runs", args.long_side, args.frames)
        n = sum(len((r / "records.jsonl").read_text().splitlines()) for r in runs)
        size = sum(f.stat().st_size for r in runs for f in (r / "frames").iterdir())
        print(f"synthetic run store: {n} frames in {len(runs)} runs, {size / 2**20:.0f} MiB of JPEG "
              f"({time.perf_counter() - t0:.1f} s to build)")
        t0 = time.perf_counter()
        summary = export_realitybench(runs, tmp / "datasets", BENCHMARK)
        export_s = time.perf_counter() - t0
        rows = sum(summary.rows.values())
        print(f"export: {rows} rows in {export_s:.1f} s = {rows / export_s:.0f} frames/s (goal >= 100)")
        preds = tmp / "predictions"
        preds.mkdir()
        files = prediction_files(summary.root, preds, args.models)
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "scenebench", "score", "--dataset", str(summary.root),
                            "--predictions", *map(str, files), "--report-dir", str(tmp / "report"), "--seed", "0"],
                           cwd=ROOT, env=env, capture_output=True, text=True)
        score_s = time.perf_counter() - t0
        if r.returncode != 0:
            sys.exit(f"scenebench score failed: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")
        metrics = json.loads((tmp / "report" / "metrics.json").read_text())
        matched = {m: v["predictions"] for m, v in metrics["models"].items()}
        if len(matched) != len(files) or any(p["unknown"] or p["missing"] for p in matched.values()):
            sys.exit(f"scenebench score did not match every reply to an item: {matched}")
        print(f"score: {len(files)} prediction files x {rows} items in {score_s:.1f} s (goal < 60 s); "
              f"every reply matched an item")


if __name__ == "__main__":
    main()
