"""What `scenebench predict` keeps of odd, slow, huge or unwritable replies: a raw HTTP server on
127.0.0.1 sends exactly the bytes each test scripts (no other traffic)."""
from __future__ import annotations

import json
import math
import resource
import signal
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from model_runs import predict
from model_runs.dataset_items import Item
from model_runs.predict import ClientConfig, PredictError, build_payload, call_item, run_predictions, token_count

GOOD = b'{"choices": [{"finish_reason": "stop", "message": {"content": "fine"}}]}'
ITEM = Item(id="tape_gap-random-00000-00", config="tape_gap", env="tape_gap", stratum="random", prompt="q?",
            image=b"\xff\xd8\xff\xe0jpeg")


class RawServer:
    """Answers each POST with the next scripted (status, body bytes, seconds between bytes)."""

    def __init__(self):
        self.script: list[tuple[int, bytes, float]] = []
        self.default = (200, GOOD, 0.0)
        self.bodies: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                server.bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                status, body, trickle = server.script.pop(0) if server.script else server.default
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    if trickle:
                        for i in range(len(body)):
                            self.wfile.write(body[i:i + 1])
                            self.wfile.flush()
                            time.sleep(trickle)
                    else:
                        self.wfile.write(body)
                except OSError:
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda *a: None
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture()
def server():
    s = RawServer()
    yield s
    s.close()


@pytest.fixture(autouse=True)
def _fast_backoff(monkeypatch):
    monkeypatch.setattr(predict, "BACKOFF_BASE_S", 0.01)
    monkeypatch.setattr(predict, "BACKOFF_CAP_S", 0.02)


def _cfg(server, **kw) -> ClientConfig:
    return ClientConfig(endpoint=server.url, model="m", **{"timeout_s": 5.0, "max_retries": 1, **kw})


def _strict_loads(line: str):
    def refuse(name):
        raise AssertionError(f"{name} in a predictions line")
    return json.loads(line, parse_constant=refuse)


def test_token_counts_as_servers_send_them():
    assert [token_count(v) for v in (7, 7.0, "12", " 5 ", 0, 10 ** 12)] == [7, 7, 12, 5, 0, 10 ** 12]
    for bad in (7.5, math.nan, math.inf, -1, True, 10 ** 12 + 1, "1e3", "-3", "", None, [3], {"n": 3}):
        assert token_count(bad) is None, bad


def test_payload_sends_the_token_cap_it_is_given_and_sampling_only_when_set():
    cfg = ClientConfig(endpoint="http://x/v1", model="m", max_tokens=64)
    body = build_payload(cfg, "q", b"")
    assert body["max_tokens"] == 64 and not {"max_completion_tokens", "temperature", "top_p", "seed"} & set(body)
    cfg = ClientConfig(endpoint="http://x/v1", model="m", max_tokens=64, max_completion_tokens=8192,
                       temperature=0.0, top_p=1.0, seed=7)
    body = build_payload(cfg, "q", b"")
    assert "max_tokens" not in body       # o-series models refuse max_tokens
    assert (body["max_completion_tokens"], body["temperature"], body["top_p"], body["seed"]) == (8192, 0.0, 1.0, 7)


def test_nan_usage_and_odd_parts_are_normalised_and_the_raw_reply_kept(server, tmp_path):
    raw = (b'{"choices": [{"finish_reason": NaN, "message": {"content": [{"type": "text", "text": "yes"},'
           b' {"type": "image"}, {"type": "text", "text": 5}, "loose"]}}],'
           b' "usage": {"prompt_tokens": NaN, "completion_tokens": "42",'
           b' "completion_tokens_details": {"reasoning_tokens": 1e30}}}')
    server.script = [(200, raw, 0.0)]
    rec, fatal = call_item(_cfg(server), ITEM)
    assert fatal is None and rec["error"] is None
    assert (rec["response"], rec["finish_reason"], rec["usage"]) == ("yes", None, {"completion_tokens": 42})
    assert rec["raw_body"] == raw

    out = tmp_path / "preds.jsonl"
    writer = predict._Writer(out, threading.Event())
    writer.start()
    writer.q.put(rec)
    writer.close()
    (line,) = out.read_text().splitlines()
    kept = _strict_loads(line)
    assert kept["response"] == "yes" and kept["usage"] == {"completion_tokens": 42}
    assert (out.parent / kept["raw_body"]).read_bytes() == raw
    assert kept["raw_body"].startswith("preds.jsonl.raw/")


def test_a_clean_reply_keeps_no_raw_copy(server):
    server.script = [(200, b'{"choices": [{"finish_reason": "stop", "message": {"content": "A"}}], '
                           b'"usage": {"prompt_tokens": 10, "completion_tokens": 3.0}}', 0.0)]
    rec, _ = call_item(_cfg(server), ITEM)
    assert rec["response"] == "A" and rec["usage"] == {"prompt_tokens": 10, "completion_tokens": 3}
    assert "raw_body" not in rec


def test_a_value_json_cannot_hold_becomes_null_not_a_lost_record():
    line = predict.dumps_record({"id": "a", "response": "r", "latency_s": math.nan, "usage": {"x": math.inf},
                                 "extra": b"\x00"})
    rec = _strict_loads(line)
    assert rec["latency_s"] is None and rec["usage"] == {"x": None} and rec["extra"] == "b'\\x00'"
    assert rec["response"] == "r"


def test_a_bare_string_message_is_retried_not_an_empty_answer(server):
    bare = b'{"choices": [{"finish_reason": "stop", "message": "hello"}]}'
    server.script = [(200, bare, 0.0)]
    rec, fatal = call_item(_cfg(server), ITEM)
    assert (rec["response"], rec["error"], rec["attempts"], fatal) == ("fine", None, 2, None)
    server.script = [(200, bare, 0.0), (200, bare, 0.0)]
    rec, _ = call_item(_cfg(server), ITEM)
    assert rec["response"] is None and rec["attempts"] == 2
    assert rec["error"].startswith("unreadable reply (choices[0].message is a str, not an object)")


def test_a_server_that_trickles_bytes_hits_the_request_deadline(server):
    slow = b'{"choices": [{"message": {"content": "' + b"x" * 200 + b'"}}]}'
    server.script = [(200, slow, 0.02)]      # ~5 s in all, each byte well within a read timeout
    t0 = time.monotonic()
    rec, _ = call_item(_cfg(server, timeout_s=0.6, max_retries=0), ITEM)
    assert time.monotonic() - t0 < 2.0
    assert rec["response"] is None and rec["error"] == "timeout: no complete reply within 0.6 s"


def test_a_reply_over_the_byte_cap_is_an_error_and_a_long_answer_is_kept_whole_aside(server, monkeypatch):
    monkeypatch.setattr(predict, "MAX_REPLY_BYTES", 1000)
    server.script = [(200, b'{"choices": [{"message": {"content": "' + b"y" * 2000 + b'"}}]}', 0.0)]
    rec, _ = call_item(_cfg(server, max_retries=0), ITEM)
    assert rec["response"] is None and rec["error"] == "timeout: reply longer than 1000 bytes"

    monkeypatch.setattr(predict, "MAX_KEPT_CHARS", 10)
    long = b'{"choices": [{"message": {"content": "' + b"z" * 50 + b'"}}]}'
    server.script = [(200, long, 0.0)]
    rec, _ = call_item(_cfg(server), ITEM)
    assert rec["response"] == "z" * 10 and rec["response_chars"] == 50 and rec["raw_body"] == long


def _dataset(tmp_path: Path) -> Path:
    from packagers.hf_export import export_realitybench
    from test_predict import make_run

    run = make_run(tmp_path / "runs/r/tape_gap", "tape_gap", "random", 12)
    return export_realitybench([run], tmp_path / "hf", None).root


def test_a_writer_failure_stops_new_requests_at_once_and_says_what_was_saved(server, tmp_path):
    dataset = _dataset(tmp_path)
    out = tmp_path / "preds.jsonl"
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    old = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)     # a write past the limit fails with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (700, hard))  # room for 3 of the 12 lines (~200 bytes each)
    try:
        with pytest.raises(PredictError) as err:
            run_predictions(dataset, ClientConfig(endpoint=server.url, model="m"), out, concurrency=1,
                            progress=False)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old)
    saved = [_strict_loads(line) for line in out.read_text().splitlines() if line.endswith("}")]
    assert 1 <= len(saved) < 12 and out.stat().st_size <= 700
    assert f"stopped sending requests, {len(saved)} answers of this run are saved there" in str(err.value)
    # the requests in flight when the write failed (a window of 2 x concurrency) at most, no more
    sent = len(server.bodies)
    assert len(saved) < sent <= len(saved) + 3

    # the rerun (disk space back) cuts the torn line, asks only for what is missing, and loses nothing
    summary = run_predictions(dataset, ClientConfig(endpoint=server.url, model="m"), out, progress=False)
    assert (summary.skipped, summary.requested, summary.failed) == (len(saved), 12 - len(saved), 0)
    assert len(server.bodies) == sent + 12 - len(saved)
    assert [_strict_loads(line)["response"] for line in out.read_text().splitlines()] == ["fine"] * 12
