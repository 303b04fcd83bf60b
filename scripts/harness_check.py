"""`make harness-check`: a real lmms-eval run of an exported task group against a local
OpenAI-compatible stub, compared with `scenebench score` on the same answers.

Steps: tiny RealityBench run stores (the synthetic ones of tests/test_score_cli.py: real JPEGs,
real FrameRecords) -> `scenebench export` (dataset + lmms-eval task folder) -> a stub
/v1/chat/completions on 127.0.0.1 that answers each frame with a fixed reply (it finds the
frame by the decoded pixels of the image lmms-eval sends, so it also checks the prompt) ->
lmms-eval (the separate venv, `--model openai`, `--tasks realitybench`, `--log_samples`) ->
`scenebench import-predictions --from lmms-eval` -> `scenebench score` -> every set-level and
per-environment number lmms-eval printed must equal metrics.json's. Exit 0 when all do.

Run as: <scenebench python> scripts/harness_check.py --lmms-python .venv-harness/bin/python
No traffic leaves 127.0.0.1; the whole check takes a few minutes (most of it lmms-eval's imports).
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import os
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from PIL import Image  # noqa: E402

MODEL = "stub-vlm"
KINDS = {"tape_gap": ["accept", "reject", "accept", "reject"], "slope_gauge": ["accept", "reject", "accept",
                                                                               "gray_two"]}
ADEQUATE = {"tape_gap": [True, True, False, False], "slope_gauge": [True, False, None, True]}


def pixels_key(data: bytes) -> str:
    with Image.open(io.BytesIO(data)) as im:
        return hashlib.sha256(np.asarray(im.convert("RGB")).tobytes()).hexdigest()


def reply_for(row: dict, k: int) -> str:
    adequate = ADEQUATE[row["env"]][k]
    if adequate is None:
        return "I cannot tell from this photo."
    gt = json.loads(row["ground_truth"])
    fields = {key["name"]: gt[key["name"]] for key in row["keys"]}
    if k == 0 and row["env"] == "tape_gap":
        fields["gap_in"] += 1.0
    return json.dumps({"adequate": adequate, **fields})


class Stub:
    """/v1/chat/completions: the frame found by its pixels, its prompt checked, a fixed reply."""

    def __init__(self, rows: list[tuple[dict, int]]):
        self.by_pixels = {pixels_key(r["image"]["bytes"]): (r, k) for r, k in rows}
        self.problems: list[str] = []
        self.n = 0
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                status, out = stub.answer(self.path, body)
                data = json.dumps(out).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, path: str, body: dict) -> tuple[int, dict]:
        try:
            assert path.endswith("/chat/completions"), path
            (msg,) = body["messages"]
            text = next(c["text"] for c in msg["content"] if c["type"] == "text")
            url = next(c["image_url"]["url"] for c in msg["content"] if c["type"] == "image_url")
            row, k = self.by_pixels[pixels_key(base64.b64decode(url.split(",", 1)[1]))]
            assert text == row["prompt"], "the prompt is not the exported one"
            assert body.get("max_tokens") == 16384, body.get("max_tokens")
        except (AssertionError, KeyError, StopIteration, ValueError) as exc:
            self.problems.append(repr(exc))
            return 400, {"error": {"message": repr(exc)}}
        self.n += 1
        return 200, {"id": "c", "object": "chat.completion", "model": MODEL,
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": reply_for(row, k)}}],
                     "usage": {"prompt_tokens": 500, "completion_tokens": 40, "total_tokens": 540}}


def scenebench(*args: str) -> None:
    from scenebench.cli import main

    rc = main(list(args))
    if rc != 0:
        raise SystemExit(f"harness-check: scenebench {' '.join(args)} exited {rc}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lmms-python", required=True, help="the Python of the venv that has lmms-eval")
    p.add_argument("--work", default=None, help="working folder (default: a temporary one)")
    args = p.parse_args()
    from test_score_cli import make_run

    work = Path(args.work or tempfile.mkdtemp(prefix="harness-check-"))
    runs = [make_run(work / "runs" / env, env, "random", kinds) for env, kinds in KINDS.items()]
    scenebench("export", "--runs", *map(str, runs), "--out", str(work / "datasets"))
    root, tasks = work / "datasets" / "realitybench", work / "datasets" / "realitybench_lmms_eval"
    rows = []
    for env in KINDS:
        env_rows = [r for s in sorted((root / env).glob("test-*.parquet")) for r in pq.read_table(s).to_pylist()]
        rows += [(r, k) for k, r in enumerate(env_rows)]
    stub = Stub(rows)
    out = work / "lmms_out"
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENAI_API_KEY="sk-stub", HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1",
               NO_PROXY="127.0.0.1", no_proxy="127.0.0.1")
    cmd = [str(Path(args.lmms_python).absolute()), "-m", "lmms_eval", "--model", "openai",
           "--model_args", f"model={MODEL},base_url={stub.url},num_concurrent=2,max_retries=1",
           "--tasks", "realitybench", "--include_path", str(tasks), "--log_samples", "--output_path", str(out),
           "--batch_size", "1", "--verbosity", "WARNING"]
    print("harness-check: " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, env=env, cwd=work, text=True, capture_output=True, timeout=1800)
    print(proc.stdout[-6000:])
    if proc.returncode != 0 or stub.problems:
        print(proc.stderr[-6000:], file=sys.stderr)
        raise SystemExit(f"harness-check: lmms-eval exited {proc.returncode}; stub problems: {stub.problems[:3]}")
    results = json.loads(max(out.rglob("*_results.json")).read_text())["results"]
    samples = sorted(out.rglob("*_samples_*.jsonl"))
    preds = work / "preds" / f"{MODEL}.jsonl"
    scenebench("import-predictions", "--from", "lmms-eval", *map(str, samples), "--dataset", str(root),
               "--out", str(preds), "--model", MODEL)
    scenebench("score", "--dataset", str(root), "--predictions", str(preds), "--report-dir", str(work / "report"))
    metrics = json.loads((work / "report" / "metrics.json").read_text())["models"][MODEL]
    from scenebench.benchmarks import get_benchmark

    names = get_benchmark("realitybench").lmms_eval_group_metrics
    checks = [("realitybench", m, results["realitybench"].get(f"{m},none"), metrics["metrics"][m]["estimate"])
              for m in names]
    checks += [(f"realitybench_{e}", m, results[f"realitybench_{e}"].get(f"{m},none"), metrics["per_env"][e][m])
               for e in KINDS for m in names]
    print(f"harness-check: {stub.n} requests answered by the stub; {len(samples)} samples files imported")
    print(f"{'task':26} {'metric':18} {'lmms-eval':>20} {'scenebench score':>20}")
    bad = 0
    for task, m, got, want in checks:
        ok = got == want
        bad += not ok
        print(f"{task:26} {m:18} {got!r:>20} {want!r:>20}{'' if ok else '  MISMATCH'}")
    print(f"harness-check: {len(checks) - bad} of {len(checks)} numbers equal" + ("" if not bad else "; FAILED"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
