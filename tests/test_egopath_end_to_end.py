"""EgoPathBench through the public commands: render -> export (+ SFT, audits) -> predict
(stub OpenAI-compatible server on 127.0.0.1) -> score, on real (tiny) Cycles renders."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import yaml

from conftest import ROOT, preview_quality, run_cli, run_config
from geometry.egopath_schema import ROUTE_TASKS
from packagers.egopath import split_of_group
from render_farm.runner import render
from scorers.egopath import evaluate_route
from scorers.egopath_report import load_questions

pytestmark = pytest.mark.render

SEEN: list[dict] = []


class _Stub(BaseHTTPRequestHandler):
    """Answers every question with `[1]`; remembers what it was sent."""

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        SEEN.append(body)
        out = json.dumps({"choices": [{"message": {"role": "assistant", "content": "Answer: [1]"},
                                       "finish_reason": "stop"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *a):
        pass




def _bench_yaml(tmp_path, groups):
    """The shipped benchmark file with audits on and a salt that puts the two scene groups
    in different splits (train and benchmark), so both the SFT and the score path run."""
    bench = yaml.safe_load((ROOT / "configs/benchmark/egopathbench.yaml").read_text())
    bench["splits"] = {"train": 0.5, "validation": 0.0, "benchmark": 0.5}
    bench["export"] = {"controls": True, "sft": True, "audits": True}
    for k in range(200):
        salt = f"e2e-{k}"
        if {split_of_group(g, bench["splits"], salt) for g in groups} == {"train", "benchmark"}:
            bench["split_salt"] = salt
            break
    path = tmp_path / "egopathbench.yaml"
    path.write_text(yaml.safe_dump(bench))
    return path


def test_render_export_predict_score(tmp_path):
    quality = preview_quality(long_side_px=256, samples=4)
    summary = render(run_config(tmp_path / "out", env="egopath", n=8, quality=quality))
    run = summary.run_dir
    records = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
    groups = sorted({r["ground_truth"]["scene_group"] for r in records})
    assert len(groups) == 2

    run_cli("export", "--benchmark", str(_bench_yaml(tmp_path, groups)), "--runs", str(run),
         "--out", str(tmp_path / "ds"))
    root = tmp_path / "ds" / "egopathbench"
    meta = json.loads((root / "benchmark.json").read_text())
    assert meta["benchmark"] == "egopathbench"

    # every exported route answer verifies against its own question (the export's contract)
    questions = load_questions(root)
    assert questions, "no benchmark questions from 8 rendered views"
    for q in questions:
        if q.task in ROUTE_TASKS:
            assert evaluate_route(q, q.answer).success, q.question_id

    sft = json.loads((tmp_path / "ds" / "egopathbench_sft" / "sft_audit.json").read_text())
    assert sft["format_and_answer_audit"] == "pass"
    assert sft["complete_training_rows"] == sft["training_rows"] > 0
    audits = tmp_path / "ds" / "egopathbench_audits"
    assert (audits / "obstruction.json").is_file() and (audits / "sensitivity.json").is_file()
    nominal = json.loads((audits / "sensitivity.json").read_text())["variants"]["nominal"]
    assert nominal["ref"] == 1.0 and nominal["edge_flip"] == 0.0  # recomputed geometry reproduces the labels

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        preds = tmp_path / "stub.jsonl"
        run_cli("predict", "--dataset", str(root), "--endpoint", f"http://127.0.0.1:{server.server_port}/v1",
             "--model", "stub-vlm", "--out", str(preds), "--no-progress")
    finally:
        server.shutdown()
    systems = {m["messages"][0]["content"] for m in SEEN}
    assert "You are a navigation perception assistant." in systems   # Table S2 system prompts are sent
    with_image = [m for m in SEEN if any(c["type"] == "image_url" for c in m["messages"][-1]["content"])]
    text_only = [m for m in SEEN if m not in with_image]
    assert with_image and text_only    # the text-only control goes without its image

    report = tmp_path / "report"
    out = run_cli("score", "--dataset", str(root), "--predictions", str(preds), "--report-dir", str(report),
               "--n-resamples", "200")
    assert "stub-vlm" in out.stdout
    metrics = json.loads((report / "metrics.json").read_text())
    ref = metrics["baselines"]["baseline:reference"]["tasks"]
    assert any(ref.get(t, {}).get("n") for t in ROUTE_TASKS)
    for task in ROUTE_TASKS:
        if ref.get(task, {}).get("n"):
            assert ref[task]["sr"]["estimate"] == pytest.approx(100.0)
            assert ref[task]["spl"]["estimate"] == pytest.approx(100.0)  # the answer is a shortest legal route
    assert (report / "report.md").is_file()
