"""render -> export -> predict (stub OpenAI-compatible server on 127.0.0.1) -> score."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import preview_quality, run_cli, run_config
from render_farm.runner import render

pytestmark = pytest.mark.render

REPLY = json.dumps({"adequate": True, "reading_in": 4.5, "gap_in": 4.0, "tilted": False})


class _Stub(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        content = body["messages"][0]["content"]
        assert content[0]["type"] == "text" and "tape measure" in content[0]["text"].lower()
        assert content[1]["image_url"]["url"].startswith("data:image/jpeg;base64,")
        out = json.dumps({"choices": [{"message": {"role": "assistant", "content": REPLY},
                                       "finish_reason": "stop"}],
                          "usage": {"prompt_tokens": 900, "completion_tokens": 30}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *a):
        pass




def test_render_export_predict_score(tmp_path):
    quality = preview_quality(long_side_px=320)
    render(run_config(tmp_path / "out", env="tape_gap", n=3, quality=quality))
    render(run_config(tmp_path / "out", env="tape_gap", n=1, stratum="positive", quality=quality))
    run_cli("export", "--runs", str(tmp_path / "out" / "tape_gap"), "--out", str(tmp_path / "ds"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        preds = tmp_path / "preds.jsonl"
        run_cli("predict", "--dataset", str(tmp_path / "ds" / "realitybench"), "--endpoint",
             f"http://127.0.0.1:{server.server_port}/v1", "--model", "stub-vlm", "--out", str(preds),
             "--no-progress")
    finally:
        server.shutdown()
    lines = [json.loads(l) for l in preds.read_text().splitlines()]
    assert len(lines) == 4 and all(l["response"] == REPLY for l in lines)
    run_cli("score", "--dataset", str(tmp_path / "ds" / "realitybench"), "--predictions", str(preds),
         "--report-dir", str(tmp_path / "report"))
    metrics = json.loads((tmp_path / "report" / "metrics.json").read_text())
    assert "stub-vlm" in json.dumps(metrics)
    for f in ("report.md", "fig2_f1_doc_vs_cost.png", "fig3_field_heatmap.png"):
        assert (tmp_path / "report" / f).exists()
