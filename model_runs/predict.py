"""`scenebench predict`: send each dataset item to an OpenAI-compatible chat-completions server.

Works with any server that speaks `POST <base>/chat/completions` (vLLM, SGLang, llama.cpp,
hosted APIs). One user message per item: the prompt text, then the JPEG as a base64 data URL.

The predictions file is JSONL, one line per item:
`{"id", "model", "response", "error", "usage", "latency_s", "attempts", "finish_reason"}`
(plus `raw_body` when the reply had to be normalised to be written as strict JSON: a NaN or a
string where a count belongs, non-string content parts; the server's bytes are then kept in
`<out>.raw/`, named in `raw_body`, so nothing paid for is lost).
`error` is null, or the last error once retries are exhausted (then `response` is null and
the grader scores the item wrong). `usage` is the server's token counts as reported:
`prompt_tokens`, `completion_tokens` and, where reported, `reasoning_tokens`
(`usage_for_cost` turns it into `scorers.cost.Usage`).

Why the file is written this way: a benchmark run costs money and hours, so a killed run
must lose at most the requests in flight, and a disk that fills up stops new requests at once. Lines are appended (flush + fsync) by a single
writer thread, so concurrent workers never interleave; a rerun skips ids that already have
a response and retries the ones that failed; a torn last line (killed mid-write) is cut
off. At the end the file is rewritten sorted by id, atomically, so equal runs diff cleanly.
"""
from __future__ import annotations

import base64
import hashlib
import json
import math
import os
import queue
import random
import re
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from pathlib import Path

import requests
from tqdm import tqdm

from model_runs.dataset_items import SPLIT, Item, item_ids, iter_items
from formats import atomic
from formats import predictions as preds_format
from scorers.cost import valid_count

# Backoff (module constants so tests can shrink them; the CLI keeps the defaults).
BACKOFF_BASE_S = 1.0        # first retry waits ~1 s, then 2, 4, 8 ... (with jitter)
BACKOFF_CAP_S = 30.0
RETRY_AFTER_CAP_S = 60.0    # a server's Retry-After is honoured, up to this
RETRY_SEED = 0              # jitter comes from random.Random(f"{RETRY_SEED}/{item id}"): reproducible
FATAL_STATUS = (401, 403, 404)  # wrong key / URL / model on the first request: stop, don't burn the set
ERROR_BODY_CHARS = 300
MAX_REPLY_BYTES = 32 << 20  # a reply body beyond this is an error (retried), never read into memory whole
READ_CHUNK = 64 << 10
# A reply longer than this is cut in its line (the graders score anything over 64,000 characters as
# out of grammar anyway) and kept whole in `<out>.raw/`, so the line stays under the reader's 4 MiB.
MAX_KEPT_CHARS = 500_000

UNREACHABLE = "cannot connect to"   # prefix of a connection failure (the endpoint, not the item)
FIELDS = ("id", "model", "response", "error", "usage", "latency_s", "attempts", "finish_reason")


class PredictError(Exception):
    """A run-level problem, reported as one line with an exit code."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class ClientConfig:
    endpoint: str
    model: str
    api_key: str | None = field(default=None, repr=False)   # never in a repr, a log or a file
    timeout_s: float = 120.0     # the whole request, connect to last byte (not per read)
    max_retries: int = 4
    max_tokens: int = 1024
    max_completion_tokens: int | None = None   # sent instead of max_tokens (o-series models require it)
    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None

    @property
    def url(self) -> str:
        return chat_url(self.endpoint)


def chat_url(endpoint: str) -> str:
    """Accept a base URL (`http://host:8000/v1`) or the full chat-completions URL."""
    e = endpoint.rstrip("/")
    return e if e.endswith("/chat/completions") else e + "/chat/completions"


def build_payload(cfg: ClientConfig, prompt: str, jpeg: bytes | tuple[bytes, ...], system: str | None = None) -> dict:
    """The request body; sampling settings only when asked for (otherwise the provider's default).

    A system prompt (EgoPathBench, Table S2) goes first; then the text and the image, or for a
    multi-frame row (VANTAGE-Bench clips) every frame in order and then the text, as the VANTAGE
    harness orders them (its SOT prompt speaks of "the crop image above"); an empty image (a
    text-only control row) sends the text alone."""
    images = [im for im in ((jpeg,) if isinstance(jpeg, bytes) else jpeg) if im]
    parts = []
    for image in images:
        mime = "image/png" if image[:8] == b"\x89PNG\r\n\x1a\n" else "image/jpeg"
        url = f"data:{mime};base64," + base64.b64encode(image).decode("ascii")
        parts.append({"type": "image_url", "image_url": {"url": url}})
    text = [{"type": "text", "text": prompt}]
    content: list[dict] = parts + text if isinstance(jpeg, tuple) and len(images) > 1 else text + parts
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": content})
    body: dict = {"model": cfg.model, "messages": messages}
    if cfg.max_completion_tokens is not None:
        body["max_completion_tokens"] = cfg.max_completion_tokens
    else:
        body["max_tokens"] = cfg.max_tokens
    for key in ("temperature", "top_p", "seed"):
        if getattr(cfg, key) is not None:
            body[key] = getattr(cfg, key)
    return body


def retry_after_s(value: str | None, now: float | None = None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or HTTP-date), capped; None if absent/bad."""
    if not value:
        return None
    value = value.strip()
    try:
        secs = float(value)
    except ValueError:
        try:
            secs = parsedate_to_datetime(value).timestamp() - (time.time() if now is None else now)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
    if not math.isfinite(secs):
        return None
    return min(max(secs, 0.0), RETRY_AFTER_CAP_S)


def backoff_s(attempt: int, rng: random.Random, retry_after: float | None = None) -> float:
    """Wait before retry `attempt` (1-based): Retry-After if the server gave one, else
    exponential with jitter in [half, full] of the step (spreads out concurrent retries)."""
    if retry_after is not None:
        return retry_after
    step = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** (attempt - 1))
    return step * (0.5 + 0.5 * rng.random())


def token_count(value) -> int | None:
    """A token count as a server may send it (int, integral float, digit string), or None for anything
    else: NaN, infinities, negatives, fractions, booleans, and counts the cost module refuses
    (`scorers.cost.valid_count`: over MAX_TOKENS)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        value = value.strip()
        if not value.isdigit() or len(value) > 13:
            return None
        value = int(value)
    if isinstance(value, float) and math.isfinite(value) and value != int(value):
        return None
    return valid_count(value)


def usage_of(body: dict) -> tuple[dict | None, bool]:
    """(the reported token counts, whether any reported field was dropped as not a count); reasoning
    tokens from either place providers put them."""
    u = body.get("usage")
    if u is None:
        return None, False
    if not isinstance(u, dict):
        return None, True
    out, dropped = {}, False
    details = u.get("completion_tokens_details")
    reasoning = details.get("reasoning_tokens") if isinstance(details, dict) else None
    if reasoning is None:
        reasoning = u.get("reasoning_tokens")
    for key, value in (("prompt_tokens", u.get("prompt_tokens")), ("completion_tokens", u.get("completion_tokens")),
                       ("reasoning_tokens", reasoning)):
        if value is None:
            continue
        count = token_count(value)
        if count is None:
            dropped = True
        else:
            out[key] = count
    return out or None, dropped


def usage_for_cost(record: dict):
    """A prediction's usage as `scorers.cost.Usage` (completion tokens include the reasoning
    tokens, so the visible reply is their difference: nothing is counted twice)."""
    from scorers.cost import Usage

    u = record.get("usage") or {}
    thinking = int(u.get("reasoning_tokens") or 0)
    completion = int(u.get("completion_tokens") or 0)
    return Usage(prompt_tokens=int(u.get("prompt_tokens") or 0), output_tokens=max(completion - thinking, 0),
                 thinking_tokens=thinking)


def _content(body) -> tuple[str, str | None, bool]:
    """(reply text, finish_reason, whether anything was normalised); raises ValueError when the body is
    not a chat completion (a bare-string `message` included: retried, never an empty answer)."""
    try:
        choice = body["choices"][0]
        msg = choice["message"]
    except (KeyError, IndexError, TypeError):
        raise ValueError("reply has no choices[0].message") from None
    if not isinstance(msg, dict):
        raise ValueError(f"choices[0].message is a {type(msg).__name__}, not an object")
    content, normalised = msg.get("content"), False
    if isinstance(content, list):   # some servers return content parts
        texts = [p.get("text") for p in content if isinstance(p, dict)]
        normalised = len(texts) != len(content) or not all(isinstance(t, str) for t in texts)
        content = "".join(t for t in texts if isinstance(t, str))
    elif content is not None and not isinstance(content, str):
        content, normalised = json.dumps(content, allow_nan=True), True
    finish = choice.get("finish_reason") if isinstance(choice, dict) else None
    if finish is not None and not isinstance(finish, str):
        finish, normalised = None, True
    return ("" if content is None else content), finish, normalised


class _Deadline(Exception):
    pass


def _post(cfg: ClientConfig, data: bytes, headers: dict) -> tuple[requests.Response, bytes, float]:
    """POST and read the whole reply within `cfg.timeout_s` in total: a server that trickles bytes
    cannot hold a request past its deadline, and a reply over MAX_REPLY_BYTES is never read whole.
    Returns (response, body bytes, latency)."""
    t0 = time.monotonic()
    deadline = t0 + cfg.timeout_s
    r = _session().post(cfg.url, data=data, headers=headers, timeout=(cfg.timeout_s, cfg.timeout_s), stream=True)
    try:
        chunks, size = [], 0
        while True:
            if time.monotonic() > deadline:
                raise _Deadline(f"no complete reply within {cfg.timeout_s:g} s")
            chunk = r.raw.read1(READ_CHUNK)
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_REPLY_BYTES:
                raise _Deadline(f"reply longer than {MAX_REPLY_BYTES} bytes")
            chunks.append(chunk)
    finally:
        r.close()
    return r, b"".join(chunks), time.monotonic() - t0


def _text(raw: bytes) -> str:
    return raw[:4 * ERROR_BODY_CHARS].decode("utf-8", "replace")[:ERROR_BODY_CHARS]


def _reason(exc: Exception) -> str:
    """The OS-level cause ('[Errno 111] Connection refused') rather than urllib3's long wrapper."""
    m = re.search(r"\[Errno -?\d+\] [^'\")]+", str(exc))
    return m.group(0).strip() if m else type(exc).__name__


def _redact(text: str, secret: str | None) -> str:
    return text.replace(secret, "***") if secret else text


_local = threading.local()


def _session() -> requests.Session:
    """One session per worker thread (requests sessions are not thread-safe)."""
    s = getattr(_local, "session", None)
    if s is None:
        s = _local.session = requests.Session()
    return s


def call_item(cfg: ClientConfig, item: Item, stop: threading.Event | None = None) -> tuple[dict, str | None]:
    """Predict one item with bounded retries. Returns (record, fatal) where `fatal` names a
    failure that says the endpoint itself is wrong (unreachable, 401/403/404), else None."""
    stop = stop or threading.Event()
    rng = random.Random(f"{RETRY_SEED}/{item.id}")
    headers = {"Content-Type": "application/json"}
    if cfg.api_key:
        headers["Authorization"] = f"Bearer {cfg.api_key}"
    data = json.dumps(build_payload(cfg, item.prompt, item.images, item.system_prompt)).encode("ascii")  # ensure_ascii
    error, fatal, attempts, wait_hint = None, None, 0, None
    for attempt in range(cfg.max_retries + 1):
        if stop.is_set() or attempt and stop.wait(backoff_s(attempt, rng, wait_hint)):
            break       # the run is stopping (writer failed, endpoint gone, Ctrl-C): send nothing more
        attempts += 1
        wait_hint, fatal = None, None
        try:
            r, raw, latency = _post(cfg, data, headers)
        except requests.Timeout:
            error = f"timeout after {cfg.timeout_s:g} s"
            continue
        except _Deadline as exc:
            error = f"timeout: {exc}"
            continue
        except requests.ConnectionError as exc:
            error = f"{UNREACHABLE} {cfg.url}: {_reason(exc)}"
            fatal = error
            continue
        except requests.RequestException as exc:
            error, fatal = f"request failed: {exc}", f"request failed: {exc}"
            break
        if r.status_code == 429 or r.status_code >= 500:
            error = f"HTTP {r.status_code}: {_text(raw)}"
            wait_hint = retry_after_s(r.headers.get("Retry-After"))
            continue
        if r.status_code >= 400:
            error = f"HTTP {r.status_code}: {_text(raw)}"
            fatal = error if r.status_code in FATAL_STATUS else None
            break
        try:
            body = json.loads(raw)      # Python's reader takes NaN and Infinity; usage_of drops them
            text, finish, odd_content = _content(body)
        except (ValueError, RecursionError) as exc:   # a malformed 200 is a glitch: retried
            error = f"unreadable reply ({exc}): {_text(raw)}"
            continue
        usage, odd_usage = usage_of(body)
        rec = _record(cfg, item, text[:MAX_KEPT_CHARS], None, usage, latency, attempts, finish)
        if len(text) > MAX_KEPT_CHARS:
            rec["response_chars"] = len(text)
        if odd_content or odd_usage or len(text) > MAX_KEPT_CHARS:
            rec["raw_body"] = raw
        return rec, None
    error = _redact(error or "interrupted", cfg.api_key)
    return _record(cfg, item, None, error, None, None, attempts, None), _redact(fatal, cfg.api_key) if fatal else None


def _record(cfg, item, response, error, usage, latency, attempts, finish) -> dict:
    return {"id": item.id, "model": cfg.model, "response": response, "error": error, "usage": usage,
            "latency_s": None if latency is None else round(latency, 4), "attempts": attempts,
            "finish_reason": finish}


# -- the predictions file ----------------------------------------------------------------------
def answered(rec: dict | None) -> bool:
    """A record that needs no new request (an error is retried on the next run)."""
    return preds_format.answered(rec)


def read_predictions(path: str | Path, repair: bool = False) -> dict[str, dict]:
    """id -> the record that counts (`formats.predictions` rules: an answer beats an error,
    otherwise the later line wins). A torn last line (a run killed mid-write) is ignored, and with
    `repair` cut off (and a last line without its newline finished) so appends start on a clean
    line; an unreadable, over-long or id-less line elsewhere is an error, since the file is rewritten."""
    path = Path(path)
    if not path.exists():
        return {}
    try:
        pf = preds_format.read_predictions_file(path)
    except preds_format.PredictionsError as exc:
        raise PredictError(str(exc)) from None
    bad = sorted([(n, "unreadable prediction line") for n in pf.unreadable_lines]
                 + [(n, f"prediction line longer than {preds_format.MAX_LINE_BYTES} bytes") for n in pf.oversize_lines]
                 + [(n, "prediction line without a string id") for n in pf.no_id_lines])
    if bad:
        raise PredictError(f"{path}:{bad[0][0]}: {bad[0][1]}")
    if repair:
        preds_format.cut_torn_tail(pf)
    return {i: dict(r, id=i) for i, r in pf.records.items()}


def dumps_record(rec: dict) -> str:
    """One strict-JSON line; a value JSON cannot hold (NaN, bytes, objects) becomes null or text
    rather than losing the record."""
    ordered = {k: rec.get(k) for k in FIELDS} | {k: v for k, v in rec.items() if k not in FIELDS}
    try:
        return json.dumps(ordered, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return json.dumps(_strict(ordered), ensure_ascii=False, allow_nan=False)


def _strict(value):
    if isinstance(value, dict):
        return {str(k): _strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, (str, int, float)):
        return value
    return str(value)


def raw_dir(out: Path) -> Path:
    """Where the server's own bytes of normalised replies are kept, beside the predictions file."""
    return out.with_name(out.name + ".raw")


def keep_raw_body(out: Path, rec: dict) -> dict:
    """Save a reply's raw bytes (if the record carries them) and name the file in `raw_body`."""
    raw = rec.get("raw_body")
    if not isinstance(raw, bytes):
        return rec
    name = hashlib.sha256(rec["id"].encode()).hexdigest()[:24] + ".json"
    atomic.write_bytes(raw_dir(out) / name, raw)
    return {**rec, "raw_body": f"{raw_dir(out).name}/{name}"}


def write_sorted(path: str | Path, records: dict[str, dict]) -> None:
    atomic.write_text(path, "".join(dumps_record(records[i]) + "\n" for i in sorted(records)))


class _Writer(threading.Thread):
    """The only thread that touches the file: append a line, flush, fsync. On a write failure it sets
    `stop` at once (no new request is sent whose answer could not be kept)."""

    def __init__(self, path: Path, stop: threading.Event):
        super().__init__(name="predictions-writer", daemon=True)
        self.path, self.q, self.exc, self.stop, self.saved = path, queue.Queue(), None, stop, 0

    def run(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as f:
                while (rec := self.q.get()) is not None:
                    f.write(dumps_record(keep_raw_body(self.path, rec)) + "\n")
                    f.flush()
                    os.fsync(f.fileno())
                    self.saved += 1
        except BaseException as exc:  # surfaced by close()
            self.exc = exc
            self.stop.set()
            while self.q.get() is not None:   # keep draining so put() never blocks forever
                pass

    def close(self) -> None:
        self.q.put(None)
        self.join()
        if self.exc is not None:
            raise PredictError(f"cannot write {self.path}: {self.exc}; stopped sending requests, {self.saved} "
                               f"answers of this run are saved there (rerun to resume)")


# -- the run ---------------------------------------------------------------------------------------
@dataclass
class PredictSummary:
    out: Path
    selected: int = 0          # items chosen (configs, limit)
    skipped: int = 0           # already answered in the out file
    requested: int = 0         # items sent this run
    failed: int = 0            # selected items whose record is an error at the end
    aborted: str | None = None  # why the run stopped early

    def line(self) -> str:
        return (f"{self.selected} items ({self.skipped} already done, {self.requested} requested), "
                f"{self.failed} failed -> {self.out}")


def default_out(model: str) -> Path:
    return Path("preds") / (model.replace("/", "__") + ".jsonl")


def run_predictions(dataset: str | Path, cfg: ClientConfig, out: str | Path, *, configs: list[str] | None = None,
                    concurrency: int = 4, limit: int | None = None, progress: bool = True,
                    split: str | None = None) -> PredictSummary:
    """Predict every selected item that has no response yet in `out`; see the module docstring."""
    out = Path(out)
    split = split or SPLIT
    ids = item_ids(dataset, configs, split=split)
    if limit is not None:
        ids = ids[:limit]           # the first N in id order: reruns with --limit converge on one subset
    existing = read_predictions(out, repair=True)
    other = sorted({r.get("model") for r in existing.values()} - {cfg.model}, key=str)
    if other:
        raise PredictError(f"{out} holds predictions of model {other[0]!r}, not {cfg.model!r}; choose another --out")
    todo = [i for i in ids if not answered(existing.get(i))]    # absent or failed before
    summary = PredictSummary(out=out, selected=len(ids), skipped=len(ids) - len(todo))

    if todo:
        stop = threading.Event()
        writer = _Writer(out, stop)
        writer.start()
        bar = tqdm(total=len(todo), unit="item", desc=cfg.model, disable=not progress, file=sys.stderr)
        try:
            summary.aborted = _run(dataset, cfg, configs, todo, concurrency, writer, stop, bar, summary, split)
        except BaseException:
            stop.set()
            raise
        finally:
            bar.close()
            writer.close()

    final = read_predictions(out, repair=True)
    if final:
        write_sorted(out, final)
    summary.failed = sum(1 for i in ids if not answered(final.get(i)))
    return summary


def _run(dataset, cfg, configs, todo, concurrency, writer, stop, bar, summary, split) -> str | None:
    items = iter_items(dataset, configs, wanted=set(todo), split=split)
    failures = 0

    def done(rec: dict) -> None:
        nonlocal failures
        writer.q.put(rec)
        summary.requested += 1
        failures += rec["error"] is not None
        bar.update(1)
        if failures:
            bar.set_postfix(failed=failures)

    # The first item alone: a wrong URL, key or model shows up once, not once per item.
    first = next(items, None)
    if first is None:
        return None
    rec, fatal = call_item(cfg, first, stop)
    done(rec)
    if fatal:
        return fatal

    # Then a pool with a bounded window of submitted items (images are read lazily).
    streak = 0                      # items in a row that could not connect
    give_up = max(3, concurrency)

    def collect(pending: set) -> set:
        nonlocal streak
        finished, pending = wait(pending, return_when=FIRST_COMPLETED)
        for fut in finished:
            rec, fatal = fut.result()
            done(rec)
            streak = streak + 1 if fatal is not None and fatal.startswith(UNREACHABLE) else 0
        return pending

    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="predict") as pool:
        pending: set = set()
        try:
            for item in items:
                if streak >= give_up:
                    stop.set()
                if stop.is_set():    # unreachable endpoint, or the writer failed
                    break
                pending.add(pool.submit(call_item, cfg, item, stop))
                while len(pending) >= 2 * concurrency:
                    pending = collect(pending)
            while pending:
                pending = collect(pending)
        except BaseException:
            stop.set()
            for fut in pending:
                fut.cancel()
            raise
    if streak >= give_up:
        return f"endpoint became unreachable ({streak} items in a row could not connect)"
    return None
