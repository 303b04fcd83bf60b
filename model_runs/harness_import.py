"""`scenebench import-predictions`: another harness's logged answers -> a predictions file.

lmms-eval (`--log_samples`) writes one `<date>_samples_<task>.jsonl` per task, one line per
document: `doc_id` (the row's position in the task's split, as lmms-eval loaded the shards the
task YAML lists), `target` (our tasks' `doc_to_target` is the row id), `filtered_resps` (the
reply lmms-eval scored; `resps` when it differs), `token_counts`, and the metric values. The
rows are joined on the export's row order (the shards of the config in name order, rows in
file order: exactly the task's `data_files`), and checked against it: a task the dataset has
no config for, a doc_id that is not a row, a row answered twice, a file that does not answer
every row, or a `target` that is not the row's id is an error, and nothing is written.

The file is written as `scenebench predict` writes it (model_runs.predict), sorted by id; a
request lmms-eval gave up on (`[LMMS_EVAL_REQUEST_FAILED ...]`, `[LMMS_EVAL_BUDGET_EXCEEDED]`)
becomes an error line with no response, as a failed `predict` request does.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Sequence

import pyarrow.parquet as pq

from formats.predictions import MAX_FILE_BYTES, MAX_LINE_BYTES
from model_runs.dataset_items import DatasetError, resolve_root
from model_runs.predict import PredictError, token_count, write_sorted

SAMPLES_NAME = re.compile(r"_samples_(?P<task>.+)\.jsonl$")
FAILED_PREFIXES = ("[LMMS_EVAL_REQUEST_FAILED", "[LMMS_EVAL_BUDGET_EXCEEDED]")


def task_of(path: Path) -> str:
    m = SAMPLES_NAME.search(path.name)
    if not m:
        raise PredictError(f"{path}: not an lmms-eval samples file (expected <date>_samples_<task>.jsonl)")
    return m.group("task")


def row_ids(root: Path, config: str, split: str) -> list[str]:
    """The ids of one config's split in the order lmms-eval loads them."""
    out: list[str] = []
    for shard in sorted((root / config).glob(f"{split}-*.parquet")):
        try:
            out += pq.read_table(shard, columns=["id"]).column("id").to_pylist()
        except (OSError, ValueError, KeyError) as exc:
            raise PredictError(f"{shard}: cannot read the id column ({exc})") from None
    return out


def _lines(path: Path):
    if not path.is_file():
        raise PredictError(f"samples file {path} does not exist" if not path.exists() else f"{path} is not a file")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise PredictError(f"{path}: larger than {MAX_FILE_BYTES >> 20} MiB")
    with path.open("rb") as f:
        for n, raw in enumerate(f, 1):
            if len(raw) > MAX_LINE_BYTES:
                raise PredictError(f"{path}:{n}: line longer than {MAX_LINE_BYTES} bytes")
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError, RecursionError):
                raise PredictError(f"{path}:{n}: not a JSON line") from None
            if not isinstance(rec, dict):
                raise PredictError(f"{path}:{n}: not a JSON object")
            yield n, rec


def reply_of(rec: dict) -> Any:
    """The reply lmms-eval scored: `filtered_resps`, unwrapped from one-element lists."""
    v = rec.get("filtered_resps", rec.get("resps"))
    while isinstance(v, list) and len(v) == 1:
        v = v[0]
    return v


def usage_of(rec: dict) -> dict | None:
    """token_counts -> predict's usage names (output tokens include reasoning, as completion_tokens do)."""
    tc = rec.get("token_counts")
    while isinstance(tc, list) and len(tc) == 1:
        tc = tc[0]
    if not isinstance(tc, dict):
        return None
    out = {}
    for src, dst in (("input_tokens", "prompt_tokens"), ("output_tokens", "completion_tokens"),
                     ("reasoning_tokens", "reasoning_tokens")):
        c = token_count(tc.get(src))
        if c is not None:
            out[dst] = c
    return out or None


def _record(rid: str, model: str, reply: Any, usage: dict | None) -> dict:
    failed = isinstance(reply, str) and reply.startswith(FAILED_PREFIXES)
    if isinstance(reply, list):   # repeats > 1, or nothing: not one answer to keep
        raise ValueError(f"{len(reply)} responses where one belongs")
    return {"id": rid, "model": model, "response": None if failed else reply,
            "error": reply if failed else None, "usage": usage, "latency_s": None, "attempts": None,
            "finish_reason": None, "source": "lmms-eval"}


def convert_lmms_eval(samples: Sequence[str | Path], root: str | Path, benchmark: str, split: str,
                      out: str | Path, model: str | None = None) -> tuple[int, Path]:
    """Every samples file (one task `<benchmark>_<config>` each) of the export at `root` -> one
    predictions file; returns (records, path)."""
    try:
        root = resolve_root(root, split)
    except DatasetError as exc:
        raise PredictError(str(exc)) from None
    configs = sorted(d.name for d in root.iterdir() if d.is_dir() and any(d.glob(f"{split}-*.parquet")))
    tasks = {f"{benchmark}_{c}": c for c in configs}
    records: dict[str, dict] = {}
    seen_tasks: dict[str, Path] = {}
    for path in map(Path, samples):
        task = task_of(path)
        if task not in tasks:
            raise PredictError(f"{path}: unknown task {task!r}; {root} has tasks {', '.join(sorted(tasks)) or 'none'}")
        if task in seen_tasks:
            raise PredictError(f"{path}: task {task} is also in {seen_tasks[task]}")
        seen_tasks[task] = path
        ids = row_ids(root, tasks[task], split)
        name = model or path.parent.name
        got: dict[int, dict] = {}
        for n, rec in _lines(path):
            doc_id = rec.get("doc_id")
            if isinstance(doc_id, bool) or not isinstance(doc_id, int):
                raise PredictError(f"{path}:{n}: doc_id is not an integer")
            if not 0 <= doc_id < len(ids):
                raise PredictError(f"{path}:{n}: doc_id {doc_id} is not a row of {task} ({len(ids)} rows)")
            if doc_id in got:
                raise PredictError(f"{path}:{n}: doc_id {doc_id} answered twice")
            rid = ids[doc_id]
            if "target" in rec and rec["target"] != rid:
                raise PredictError(f"{path}:{n}: doc_id {doc_id} is row {rid!r} but the sample's target is "
                                   f"{str(rec['target'])[:80]!r} (samples of another export?)")
            try:
                got[doc_id] = _record(rid, name, reply_of(rec), usage_of(rec))
            except ValueError as exc:
                raise PredictError(f"{path}:{n}: {exc}") from None
        if len(got) != len(ids):
            raise PredictError(f"{path}: {len(got)} samples for the {len(ids)} rows of {task} "
                               f"(a run with --limit cannot be imported)")
        records.update({r["id"]: r for r in got.values()})
    out = Path(out)
    write_sorted(out, records)
    return len(records), out


IMPORTERS = {"lmms-eval": convert_lmms_eval}
