"""`make harness-check`: real lmms-eval runs of exported task groups against a local
OpenAI-compatible stub, compared with `scenebench score` on the same answers.

For each benchmark (RealityBench, EgoPathBench): tiny synthetic run stores (the ones of
tests/test_score_cli.py and tests/test_egopath_export.py: real JPEGs, real records) ->
`scenebench export` (dataset + lmms-eval task folder) -> a stub /v1/chat/completions on
127.0.0.1 that recognises each request as an exported row (system prompt, user prompt and the
decoded pixels of the image lmms-eval sends, so it also checks the prompt) and answers with a
fixed reply -> lmms-eval (its own venv, `--model openai`, the group and, for EgoPathBench, the
Table S5 control tasks, `--log_samples`) -> `scenebench import-predictions --from lmms-eval` ->
`scenebench score` -> every number lmms-eval printed must equal metrics.json's. Exit 0 when all do.

The VLMEvalKit leg (`--vlmevalkit-path`, VLMEvalKit's code installed there): `scenebench export
--format vlmevalkit` -> scripts/harness/vlmevalkit_run.py builds each dataset with the folder's
class inside VLMEvalKit's ImageBaseDataset, answers every built prompt with the same fixed replies,
writes the result sheets with VLMEvalKit's `dump` and runs `evaluate` -> `import-predictions
--from vlmevalkit` -> `scenebench score` -> every number `evaluate` returned must equal metrics.json's.

Run as: <scenebench python> scripts/harness_check.py --lmms-python .venv-harness/bin/python
        [--vlmevalkit-path .venv-vlmevalkit]
No traffic leaves 127.0.0.1; each benchmark takes a few minutes (most of it lmms-eval's imports).
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
RB_KINDS = {"tape_gap": ["accept", "reject", "accept", "reject"], "slope_gauge": ["accept", "reject", "accept",
                                                                                  "gray_two"]}
RB_ADEQUATE = {"tape_gap": [True, True, False, False], "slope_gauge": [True, False, None, True]}


def request_key(system: str | None, user: str, image: bytes | None) -> str:
    """What identifies a row in a request: its prompts and its image's pixels (lmms-eval re-encodes it)."""
    h = hashlib.sha256(json.dumps([system or "", user]).encode())
    if image:
        with Image.open(io.BytesIO(image)) as im:
            h.update(np.asarray(im.convert("RGB")).tobytes())
    return h.hexdigest()


def rb_reply(row: dict, k: int) -> str:
    """Per environment: a right accept, a false accept, a miss, ... (the hand counts of tests/test_lmms_eval_export.py)."""
    adequate = RB_ADEQUATE[row["env"]][k]
    if adequate is None:
        return "I cannot tell from this photo."
    gt = json.loads(row["ground_truth"])
    fields = {key["name"]: gt[key["name"]] for key in row["keys"]}
    if k == 0 and row["env"] == "tape_gap":
        fields["gap_in"] += 1.0
    return json.dumps({"adequate": adequate, **fields})


def ep_reply(row: dict, k: int) -> str:
    """The reference answer on every other row, else a one-id route (or a one-id selection)."""
    return row["answer"] if k % 2 == 0 else "[1]"


class Stub:
    """/v1/chat/completions: the row found by request_key, a fixed reply (the first row's, if rows look alike)."""

    def __init__(self, replies: dict[str, str], max_tokens: int):
        self.replies, self.max_tokens = replies, max_tokens
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
            assert body.get("max_tokens") == self.max_tokens, body.get("max_tokens")
            system = None
            for msg in body["messages"]:
                if msg["role"] == "system":
                    system = "".join(c["text"] for c in msg["content"] if c["type"] == "text")
            (user,) = [m for m in body["messages"] if m["role"] == "user"]
            text = "".join(c["text"] for c in user["content"] if c["type"] == "text")
            urls = [c["image_url"]["url"] for c in user["content"] if c["type"] == "image_url"]
            image = base64.b64decode(urls[0].split(",", 1)[1]) if urls else None
            reply = self.replies[request_key(system, text, image)]
        except (AssertionError, KeyError, ValueError) as exc:
            self.problems.append(repr(exc))
            return 400, {"error": {"message": repr(exc)}}
        self.n += 1
        return 200, {"id": "c", "object": "chat.completion", "model": MODEL,
                     "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": reply}}],
                     "usage": {"prompt_tokens": 500, "completion_tokens": 40, "total_tokens": 540}}


def scenebench(*args: str) -> None:
    from scenebench.cli import main

    rc = main(list(args))
    if rc != 0:
        raise SystemExit(f"harness-check: scenebench {' '.join(args)} exited {rc}")


def stub_replies(root: Path, split: str, reply) -> dict[str, str]:
    out: dict[str, str] = {}
    for config in sorted(d.name for d in root.iterdir() if d.is_dir()):
        rows = [r for s in sorted((root / config).glob(f"{split}-*.parquet")) for r in pq.read_table(s).to_pylist()]
        for k, r in enumerate(rows):
            prompt = r.get("prompt") or r.get("user_prompt")
            out.setdefault(request_key(r.get("system_prompt"), prompt, (r["image"] or {}).get("bytes")), reply(r, k))
    return out


def realitybench(work: Path, fmt: str = "hf") -> tuple[Path, list[str], object]:
    from test_score_cli import make_run

    runs = [make_run(work / "runs" / env, env, "random", kinds) for env, kinds in RB_KINDS.items()]
    scenebench("export", "--runs", *map(str, runs), "--out", str(work / "datasets"), "--format", fmt)

    def checks(results: dict, m: dict) -> list[tuple]:
        names = ("f1", "false_accept_rate", "miss_rate", "doc_score", "in_grammar")
        out = [("realitybench", n, results["realitybench"].get(f"{n},none"), m["metrics"][n]["estimate"]) for n in names]
        return out + [(f"realitybench_{e}", n, results[f"realitybench_{e}"].get(f"{n},none"), m["per_env"][e][n])
                      for e in RB_KINDS for n in names]
    return work / "datasets" / "realitybench", ["realitybench"], checks


def egopathbench(work: Path, fmt: str = "hf") -> tuple[Path, list[str], object]:
    from test_egopath_export import BENCH, make_run
    import yaml

    from geometry.egopath_schema import ROUTE_TASKS, TASKS, TRAVERSABILITY_TASKS

    run = make_run(work / "runs")
    bench_file = work / "egopathbench.yaml"
    bench_file.write_text(yaml.safe_dump(dict(BENCH, version="harness-check")))
    scenebench("export", "--benchmark", str(bench_file), "--runs", str(run), "--out", str(work / "datasets"),
               "--format", fmt)
    controls = [f"{t}_{c}" for t in ROUTE_TASKS for c in ("text_only", "mismatched_overlay")]

    def checks(results: dict, m: dict) -> list[tuple]:
        out = [("egopathbench", "egopath_score", results["egopathbench"].get("egopath_score,none"),
                m["score"]["estimate"])]
        for t in TASKS:
            for n in (("ba", "f1") if t in TRAVERSABILITY_TASKS else ("vpr", "sr", "spl")):
                out.append((f"egopathbench_{t}", n, results[f"egopathbench_{t}"].get(f"{n},none"),
                            m["tasks"][t][n]["estimate"]))
        for c in controls:
            t, control = next((t, c[len(t) + 1:]) for t in ROUTE_TASKS if c.startswith(t + "_"))
            out.append((f"egopathbench_{c}", "sr", results[f"egopathbench_{c}"].get("sr,none"),
                        m["controls"][t][control]))
        return out
    return work / "datasets" / "egopathbench", ["egopathbench", *(f"egopathbench_{c}" for c in controls)], checks


CASES = {"realitybench": (realitybench, rb_reply), "egopathbench": (egopathbench, ep_reply)}


def check(name: str, work: Path, lmms_python: str) -> int:
    from scenebench.benchmarks import get_benchmark

    bench = get_benchmark(name)
    build, reply = CASES[name]
    root, tasks, checks = build(work)
    stub = Stub(stub_replies(root, bench.default_split, reply), bench.request_defaults.max_tokens)
    out = work / "lmms_out"
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENAI_API_KEY="sk-stub", HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1",
               NO_PROXY="127.0.0.1", no_proxy="127.0.0.1")
    cmd = [str(Path(lmms_python).absolute()), "-m", "lmms_eval", "--model", "openai",
           "--model_args", f"model={MODEL},base_url={stub.url},num_concurrent=2,max_retries=1",
           "--tasks", ",".join(tasks), "--include_path", str(root.parent / f"{name}_lmms_eval"), "--log_samples",
           "--output_path", str(out), "--batch_size", "1", "--verbosity", "WARNING"]
    print("harness-check: " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, env=env, cwd=work, text=True, capture_output=True, timeout=1800)
    print(proc.stdout[-8000:])
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
    rows = checks(results, metrics)
    print(f"harness-check: {name}: {stub.n} requests answered by the stub; {len(samples)} samples files imported")
    return compare(name, rows, ("task", 40), ("metric", 18), "lmms-eval")


def vlmevalkit_rows(name: str, results: dict, m: dict, meta: dict) -> list[tuple]:
    """(dataset, metric, what evaluate returned, what metrics.json says) for every number."""
    rows = []
    for ds, info in meta["datasets"].items():
        got = results[ds]["results"]
        if name == "realitybench":
            names = ("f1", "false_accept_rate", "miss_rate", "doc_score", "in_grammar")
            rows += [(ds, n, got.get(n), m["metrics"][n]["estimate"]) for n in names]
            rows += [(ds, f"{e}/{n}", got.get(f"{e}/{n}"), m["per_env"][e][n]) for e in info["configs"] for n in names]
        elif info["set"]:
            rows.append((ds, "egopath_score", got.get("egopath_score"), m["score"]["estimate"]))
            for t in info["configs"]:
                for n in (("ba", "f1") if "traversability" in t else ("vpr", "sr", "spl")):
                    rows.append((ds, f"{t}/{n}", got.get(f"{t}/{n}"), m["tasks"][t][n]["estimate"]))
        else:
            from geometry.egopath_schema import ROUTE_TASKS

            (c,) = info["configs"]
            t = next(t for t in ROUTE_TASKS if c.startswith(t + "_"))
            rows.append((ds, "sr", got.get("sr"), m["controls"][t][c[len(t) + 1:]]))
    return rows


def check_vlmevalkit(name: str, work: Path, vlmeval_path: str) -> int:
    from scenebench.benchmarks import get_benchmark

    bench = get_benchmark(name)
    build, reply = CASES[name]
    root = build(work, fmt="vlmevalkit")[0]
    folder = root.with_name(f"{name}_vlmevalkit")
    replies = work / "replies.json"
    replies.write_text(json.dumps(stub_replies(root, bench.default_split, reply)))
    out = work / "vlmevalkit_results.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), str(Path(vlmeval_path).absolute()),
                                                                    os.environ.get("PYTHONPATH")])))
    cmd = [sys.executable, str(ROOT / "scripts" / "harness" / "vlmevalkit_run.py"), "--folder", str(folder),
           "--replies", str(replies), "--work", str(work / "vlmeval_work"), "--model", MODEL, "--out", str(out)]
    print("harness-check: " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, env=env, cwd=work, text=True, capture_output=True, timeout=1800)
    if proc.returncode != 0:
        print(proc.stdout[-4000:], proc.stderr[-6000:], file=sys.stderr)
        raise SystemExit(f"harness-check: the VLMEvalKit leg exited {proc.returncode}")
    results = json.loads(out.read_text())
    preds = work / "preds" / f"{MODEL}.jsonl"
    scenebench("import-predictions", "--from", "vlmevalkit", *(r["sheet"] for r in results.values()),
               "--dataset", str(root), "--out", str(preds))
    scenebench("score", "--dataset", str(root), "--predictions", str(preds), "--report-dir", str(work / "report"))
    metrics = json.loads((work / "report" / "metrics.json").read_text())["models"][MODEL]
    meta = json.loads((folder / "scenebench_vlmevalkit.json").read_text())
    rows = vlmevalkit_rows(name, results, metrics, meta)
    n = sum(r["rows"] for r in results.values())
    print(f"harness-check: {name} (VLMEvalKit): {n} rows built and answered in {len(results)} datasets")
    return compare(f"{name} (VLMEvalKit)", rows, ("dataset", 52), ("metric", 32), "evaluate")


def compare(label: str, rows: list[tuple], first: tuple[str, int], second: tuple[str, int], harness: str) -> int:
    """Print the harness's numbers beside `scenebench score`'s and return how many differ."""
    (h1, w1), (h2, w2) = first, second
    print(f"{h1:{w1}} {h2:{w2}} {harness:>20} {'scenebench score':>20}")
    bad = 0
    for a, b, got, want in rows:
        bad += got != want
        print(f"{a:{w1}} {b:{w2}} {got!r:>20} {want!r:>20}{'' if got == want else '  MISMATCH'}")
    print(f"harness-check: {label}: {len(rows) - bad} of {len(rows)} numbers equal" + ("; FAILED" if bad else ""))
    return bad


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lmms-python", default=None, help="the Python of the venv that has lmms-eval")
    p.add_argument("--vlmevalkit-path", default=None, help="the folder VLMEvalKit's code is installed in")
    p.add_argument("--work", default=None, help="working folder (default: a temporary one)")
    p.add_argument("--benchmarks", nargs="+", default=list(CASES), choices=list(CASES))
    args = p.parse_args()
    if not (args.lmms_python or args.vlmevalkit_path):
        p.error("give --lmms-python, --vlmevalkit-path or both")
    work = Path(args.work or tempfile.mkdtemp(prefix="harness-check-"))
    bad = 0
    for name in args.benchmarks:
        if args.lmms_python:
            bad += check(name, work / name, args.lmms_python)
        if args.vlmevalkit_path:
            bad += check_vlmevalkit(name, work / f"{name}_vlmevalkit", args.vlmevalkit_path)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
