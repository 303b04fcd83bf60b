"""`scenebench predict` against a stub OpenAI-compatible server on 127.0.0.1 (no other traffic)."""
from __future__ import annotations

from synthetic_runs import ground_truth, jpeg_bytes

import os

os.environ["HF_DATASETS_OFFLINE"] = "1"  # the exporter imports `datasets`; never reach the hub
os.environ["HF_HUB_OFFLINE"] = "1"

import base64  # noqa: E402
import hashlib  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import socket  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from PIL import Image as PILImage  # noqa: E402

from model_runs import predict  # noqa: E402
from model_runs.dataset_items import DatasetError, item_ids, iter_items, list_configs  # noqa: E402
from model_runs.predict import read_predictions, usage_for_cost  # noqa: E402
from scenebench.predict_cli import predict_main  # noqa: E402
from packagers.hf_export import export_realitybench  # noqa: E402
from packagers.prompts import render_prompt  # noqa: E402
from formats.records import FrameRecord  # noqa: E402
from scorers.terms import TermResult  # noqa: E402

MODEL = "stub/vlm-1"
KEY = "sk-test-5ecret-never-in-files"


# -- a tiny exported dataset (run-store helper copied from test_hf_export.py, trimmed) ---------------
def _jpeg(seed: int, size=(32, 24)) -> bytes:
    return jpeg_bytes(seed, size)


_ground_truth = ground_truth


def make_run(run_dir: Path, env: str, stratum: str, n: int) -> Path:
    """A run store as the farm writes it (real FrameRecord model, real JPEGs)."""
    for sub in ("frames", "passes", "scenes"):
        (run_dir / sub).mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(n):
        scene_id = f"{stratum}-{i // 2:05d}"
        fid = f"{env}-{scene_id}-{i % 2:02d}"
        pixel_seed = len(env) * 1000 + i + (500 if stratum == "positive" else 0)
        (run_dir / "frames" / f"{fid}.jpg").write_bytes(_jpeg(pixel_seed))
        (run_dir / "passes" / f"{fid}.npz").write_bytes(b"")
        (run_dir / "scenes" / f"{scene_id}.json").write_text(json.dumps({"env": env, "scene_id": scene_id,
                                                                         "spec": {"seed": i // 2}}))
        rec = FrameRecord(
            frame_id=fid, env=env, scene_id=scene_id, view_index=i % 2, seed=12345 * i, stratum=stratum,
            target="crossing", camera={"width": 32, "height": 24},
            terms=[TermResult(name="in_frame", side="scene", value=1.0, threshold=">= 0.9", passed=True)],
            verdict="accept", failing_term=None, sanity={"ok": True, "reasons": []},
            ground_truth=_ground_truth(env, i), image=f"frames/{fid}.jpg", passes=f"passes/{fid}.npz",
            isp={}, pose_attempts=1, renders=1, timings={})
        lines.append(rec.model_dump_json())
    (run_dir / "records.jsonl").write_text("".join(line + "\n" for line in lines))
    (run_dir / "manifest.json").write_text(json.dumps({
        "fingerprint": {"env": env, "generator_version": f"{env}-1", "seed": 0, "quality": {"name": "preview"}},
        "config": {"env": env, "stratum": stratum}, "seeds": {"root_seed": 0}, "versions": {}, "git_commit": "x"}))
    return run_dir


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("predict_ds")
    runs = [make_run(base / "runs/r/tape_gap", "tape_gap", "random", 4),
            make_run(base / "runs/p/tape_gap", "tape_gap", "positive", 2),
            make_run(base / "runs/r/slope_gauge", "slope_gauge", "random", 3)]
    # one row per shard for tape_gap: the reader must merge shards in id order
    return export_realitybench(runs, base / "hf", None, max_shard_rows=2).root


@pytest.fixture(scope="module")
def truth(dataset) -> dict[str, tuple[str, bytes]]:
    return {it.id: (it.prompt, it.image) for it in iter_items(dataset)}


# -- the stub server ---------------------------------------------------------------------------
class Stub:
    """An OpenAI-compatible /v1/chat/completions that checks each request and can misbehave per id."""

    def __init__(self, truth: dict[str, tuple[str, bytes]]):
        self.by_hash = {hashlib.sha256(img).hexdigest(): i for i, (_, img) in truth.items()}
        self.truth = truth
        self.fail: dict[str, list] = {}     # id -> [remaining (-1 = forever), status]
        self.sleep: dict[str, list] = {}    # id -> [remaining, seconds]
        self.delay = 0.0                    # every request (to see concurrency)
        self.requests: list[dict] = []      # {id, auth, keys}
        self.problems: list[str] = []
        self.inflight = self.max_inflight = 0
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):   # quiet
                pass

            def _send(self, status: int, body: dict, headers: dict | None = None):
                data = json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:             # the client timed out and left
                    pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with stub.lock:
                    stub.inflight += 1
                    stub.max_inflight = max(stub.max_inflight, stub.inflight)
                try:
                    status, reply, headers = stub.answer(self.path, self.headers, body)
                    self._send(status, reply, headers)
                finally:
                    with stub.lock:
                        stub.inflight -= 1

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda *a: None
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def check(self, path: str, body: dict) -> str:
        """The request shape, or raise AssertionError with what is wrong."""
        assert path == "/v1/chat/completions", path
        assert body["model"] == MODEL, body["model"]
        assert isinstance(body["max_tokens"], int)
        (msg,) = body["messages"]
        assert msg["role"] == "user"
        text, image = msg["content"]
        assert text["type"] == "text" and image["type"] == "image_url"
        url = image["image_url"]["url"]
        assert url.startswith("data:image/jpeg;base64,")
        raw = base64.b64decode(url.split(",", 1)[1], validate=True)
        with PILImage.open(io.BytesIO(raw)) as im:
            assert im.format == "JPEG"
            im.load()
        item = self.by_hash[hashlib.sha256(raw).hexdigest()]
        assert text["text"] == self.truth[item][0], "prompt does not match the item"
        return item

    def answer(self, path, headers, body):
        try:
            item = self.check(path, body)
        except (AssertionError, KeyError, ValueError) as exc:
            self.problems.append(repr(exc))
            return 400, {"error": {"message": f"bad request: {exc!r}"}}, None
        with self.lock:
            self.requests.append({"id": item, "auth": headers.get("Authorization"), "keys": sorted(body),
                                  "temperature": body.get("temperature")})
            fail, sleep = self.fail.get(item), self.sleep.get(item)
            do_fail = fail is not None and fail[0] != 0
            if do_fail and fail[0] > 0:
                fail[0] -= 1
            do_sleep = sleep is not None and sleep[0] > 0
            if do_sleep:
                sleep[0] -= 1
        time.sleep(sleep[1] if do_sleep else self.delay)
        if do_fail:
            extra = {"Retry-After": "0"} if fail[1] == 429 else None
            return fail[1], {"error": {"message": "try again"}}, extra
        return 200, {"id": "cmpl-1", "object": "chat.completion", "model": MODEL,
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": f"answer for {item}"}}],
                     "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150,
                               "completion_tokens_details": {"reasoning_tokens": 20}}}, None

    def count(self, item: str) -> int:
        return sum(r["id"] == item for r in self.requests)


@pytest.fixture()
def stub(truth):
    s = Stub(truth)
    s.thread.start()
    yield s
    s.server.shutdown()
    s.server.server_close()


@pytest.fixture(autouse=True)
def _fast_backoff(monkeypatch):
    monkeypatch.setattr(predict, "BACKOFF_BASE_S", 0.01)
    monkeypatch.setattr(predict, "BACKOFF_CAP_S", 0.05)
    monkeypatch.setattr(predict, "RETRY_AFTER_CAP_S", 0.05)


def _argv(dataset, url, out, *extra) -> list[str]:
    return ["--dataset", str(dataset), "--endpoint", url, "--model", MODEL, "--out", str(out), "--no-progress",
            *extra]


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# -- the dataset reader ----------------------------------------------------------------------------
def test_dataset_items_in_id_order_without_decoding(dataset, tmp_path):
    assert list_configs(dataset) == ["slope_gauge", "tape_gap"]
    assert list_configs(dataset.parent) == ["slope_gauge", "tape_gap"]    # the export's parent works too
    assert len(list((dataset / "tape_gap").glob("test-*.parquet"))) == 3
    items = list(iter_items(dataset))
    ids = [it.id for it in items]
    assert ids == sorted(ids) == item_ids(dataset) and len(ids) == 9
    src = dataset.parent.parent / "runs/p/tape_gap/frames/tape_gap-positive-00000-01.jpg"
    by_id = {it.id: it for it in items}
    it = by_id["tape_gap-positive-00000-01"]
    assert it.image == src.read_bytes() and it.env == it.config == "tape_gap" and it.stratum == "positive"
    assert it.prompt == render_prompt("tape_gap")
    assert [i.id for i in iter_items(dataset, ["slope_gauge"])] == [i for i in ids if i.startswith("slope")]
    assert [i.id for i in iter_items(dataset, wanted={ids[5], ids[1]})] == [ids[1], ids[5]]
    with pytest.raises(DatasetError, match="unknown config.*nope"):
        item_ids(dataset, ["nope"])
    with pytest.raises(DatasetError, match="does not exist"):
        list_configs(tmp_path / "missing")
    with pytest.raises(DatasetError, match="not an exported dataset"):
        list_configs(tmp_path)


# -- predict ------------------------------------------------------------------------------------
def test_predicts_every_item_concurrently_with_usage_latency_and_key(dataset, stub, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SB_TEST_KEY", KEY)
    stub.delay = 0.15
    out = tmp_path / "preds.jsonl"
    argv = _argv(dataset, stub.url, out, "--api-key-env", "SB_TEST_KEY", "--concurrency", "4",
                 "--temperature", "0.2")
    argv.remove("--no-progress")                 # the bar goes to stderr
    assert predict_main(argv) == 0
    assert stub.problems == []
    lines = _lines(out)
    ids = [r["id"] for r in lines]
    assert ids == sorted(stub.truth) and len(ids) == 9          # every item once, sorted
    for r in lines:
        assert r["response"] == f"answer for {r['id']}" and r["error"] is None and r["model"] == MODEL
        assert r["usage"] == {"prompt_tokens": 120, "completion_tokens": 30, "reasoning_tokens": 20}
        assert r["latency_s"] >= 0.1 and r["attempts"] == 1 and r["finish_reason"] == "stop"
    u = usage_for_cost(lines[0])
    assert (u.prompt_tokens, u.output_tokens, u.thinking_tokens) == (120, 10, 20)
    assert stub.max_inflight > 1                                 # concurrency really happened
    assert {r["auth"] for r in stub.requests} == {f"Bearer {KEY}"}
    assert {r["temperature"] for r in stub.requests} == {0.2}
    cap = capsys.readouterr()
    assert KEY not in out.read_text() and KEY not in cap.out + cap.err
    assert "9 items" in cap.out


def test_retries_timeouts_and_a_permanent_failure(dataset, stub, tmp_path, capsys):
    ids = sorted(stub.truth)
    flaky, limited, slow, broken = ids[1], ids[2], ids[4], ids[6]
    stub.fail[flaky] = [2, 500]
    stub.fail[limited] = [1, 429]
    stub.sleep[slow] = [1, 1.0]
    stub.fail[broken] = [-1, 503]
    out = tmp_path / "preds.jsonl"
    t0 = time.monotonic()
    rc = predict_main(_argv(dataset, stub.url, out, "--concurrency", "3", "--max-retries", "2", "--timeout", "0.4"))
    assert time.monotonic() - t0 < 8
    assert rc == 3                                           # the run finished, with one failed item
    assert stub.problems == []
    recs = {r["id"]: r for r in _lines(out)}
    assert sorted(recs) == ids
    assert recs[flaky]["response"] == f"answer for {flaky}" and recs[flaky]["attempts"] == 3
    assert recs[limited]["response"] and recs[limited]["attempts"] == 2
    assert recs[slow]["response"] and recs[slow]["attempts"] == 2 and recs[slow]["latency_s"] < 0.4
    assert recs[broken]["response"] is None and recs[broken]["usage"] is None
    assert recs[broken]["error"].startswith("HTTP 503") and recs[broken]["attempts"] == 3
    assert stub.count(broken) == 3 and stub.count(flaky) == 3 and stub.count(ids[0]) == 1
    assert all(r["error"] is None for i, r in recs.items() if i != broken)
    assert all("temperature" not in r["keys"] for r in stub.requests)      # provider default
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "1 of 9 items failed" in err[0]

    # a rerun retries only the failed item, which now succeeds
    stub.fail.pop(broken)
    n = len(stub.requests)
    assert predict_main(_argv(dataset, stub.url, out)) == 0
    assert [r["id"] for r in stub.requests[n:]] == [broken]
    assert [r["id"] for r in _lines(out)] == ids and all(r["error"] is None for r in _lines(out))


def test_resume_after_a_kill_with_a_torn_line(dataset, stub, tmp_path):
    ids = sorted(stub.truth)
    out = tmp_path / "preds.jsonl"
    done = {"id": ids[3], "model": MODEL, "response": "old answer", "error": None, "usage": None,
            "latency_s": 1.0, "attempts": 1, "finish_reason": "stop"}
    failed = dict(done, id=ids[0], response=None, error="HTTP 500: boom")
    out.write_text(json.dumps(failed) + "\n" + json.dumps(done) + "\n" + '{"id": "' + ids[5] + '", "resp')
    assert read_predictions(out)[ids[3]]["response"] == "old answer"      # the torn line is ignored

    assert predict_main(_argv(dataset, stub.url, out, "--concurrency", "2")) == 0
    assert sorted(r["id"] for r in stub.requests) == [i for i in ids if i != ids[3]]   # no repeat
    lines = _lines(out)
    assert [r["id"] for r in lines] == ids                               # no duplicates, sorted
    assert {r["id"]: r for r in lines}[ids[3]]["response"] == "old answer"
    assert {r["id"]: r for r in lines}[ids[0]]["response"] == f"answer for {ids[0]}"

    before, n = out.read_bytes(), len(stub.requests)
    assert predict_main(_argv(dataset, stub.url, out)) == 0              # nothing left to do
    assert len(stub.requests) == n and out.read_bytes() == before


def test_configs_limit_and_default_out(dataset, stub, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["--dataset", str(dataset), "--endpoint", stub.url + "/chat/completions", "--model", MODEL,
            "--configs", "slope_gauge", "--limit", "2", "--no-progress"]
    assert predict_main(argv) == 0
    out = tmp_path / "preds" / "stub__vlm-1.jsonl"
    slope = sorted(i for i in stub.truth if i.startswith("slope_gauge"))
    assert [r["id"] for r in _lines(out)] == slope[:2]


def test_bad_input_and_unreachable_endpoint(dataset, stub, tmp_path, monkeypatch, capsys):
    out = tmp_path / "p.jsonl"

    def one_line_error(rc_expected: int, argv, needle: str) -> None:
        assert predict_main(argv) == rc_expected
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and needle in err[0], err

    one_line_error(2, _argv(tmp_path / "nope", stub.url, out), "does not exist")
    one_line_error(2, _argv(dataset, stub.url, out, "--configs", "tape_gap", "nope"), "unknown config(s) nope")
    monkeypatch.delenv("SB_MISSING_KEY", raising=False)
    one_line_error(2, _argv(dataset, stub.url, out, "--api-key-env", "SB_MISSING_KEY"), "SB_MISSING_KEY")
    assert stub.requests == [] and not out.exists()

    with socket.socket() as s:                    # a port on 127.0.0.1 where nothing listens
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    one_line_error(3, _argv(dataset, dead, out, "--max-retries", "1"), "cannot connect")
    (rec,) = _lines(out)                          # stopped after the first item, not one per item
    assert rec["error"].startswith("cannot connect") and rec["response"] is None and rec["attempts"] == 2

    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"id": "x", "model": "someone-else", "response": "a", "error": None}) + "\n")
    one_line_error(2, _argv(dataset, stub.url, other), "someone-else")


def test_retry_after_backoff_and_urls(monkeypatch):
    monkeypatch.setattr(predict, "RETRY_AFTER_CAP_S", 60.0)
    assert predict.retry_after_s("3") == 3.0 and predict.retry_after_s("600") == 60.0
    assert predict.retry_after_s("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == 10.0
    assert predict.retry_after_s("soon") is None and predict.retry_after_s(None) is None
    monkeypatch.setattr(predict, "BACKOFF_BASE_S", 1.0)
    monkeypatch.setattr(predict, "BACKOFF_CAP_S", 30.0)
    import random

    a = [predict.backoff_s(k, random.Random("0/x")) for k in (1, 2, 3, 9)]
    assert a == [predict.backoff_s(k, random.Random("0/x")) for k in (1, 2, 3, 9)]   # seeded, reproducible
    assert 0.5 <= a[0] <= 1 and 1 <= a[1] <= 2 and 2 <= a[2] <= 4 and 15 <= a[3] <= 30
    assert predict.backoff_s(1, random.Random(0), retry_after=7.0) == 7.0
    assert predict.chat_url("http://h:8000/v1/") == "http://h:8000/v1/chat/completions"
    assert predict.chat_url("https://api.x/v1/chat/completions") == "https://api.x/v1/chat/completions"
    assert predict.default_out("org/model") == Path("preds/org__model.jsonl")


def test_read_predictions_repairs_only_a_torn_tail(tmp_path):
    p = tmp_path / "p.jsonl"
    good = json.dumps({"id": "a", "response": "x", "error": None})
    p.write_text(good + "\n" + '{"id": "b", "respo')
    assert set(read_predictions(p, repair=True)) == {"a"}
    assert p.read_text() == good + "\n"
    p.write_text(good + "\n{not json\n" + good + "\n")
    with pytest.raises(predict.PredictError, match=":2: unreadable"):
        read_predictions(p)


def test_read_predictions_keeps_a_good_last_line_without_newline(tmp_path):
    """A complete answer whose newline was lost is not thrown away (and paid for twice): the
    shared reader keeps it and `repair` finishes the line, so the next append starts cleanly."""
    p = tmp_path / "p.jsonl"
    a = json.dumps({"id": "a", "response": "x", "error": None})
    b = json.dumps({"id": "b", "response": "y", "error": None})
    p.write_text(a + "\n" + b)
    assert set(read_predictions(p, repair=True)) == {"a", "b"}
    assert p.read_text() == a + "\n" + b + "\n"
    p.write_text(a + "\n" + '{"model": "m", "response": "no id"}\n' + b + "\n")
    with pytest.raises(predict.PredictError, match=":2: prediction line without a string id"):
        read_predictions(p)
