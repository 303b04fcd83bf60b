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

VLMEvalKit writes one result sheet per model and dataset, `<model>_<dataset>.xlsx` (or `.tsv` /
`.csv` with PRED_FORMAT): the dataset's TSV columns but `image`, plus `prediction`. Its rows are
joined on `index`, which scenebench's TSVs make unique to the export (packagers.vlmevalkit), and
checked against it: an index that is no row, a row answered twice, rows of several of the
export's VLMEvalKit datasets, a sheet that does not answer every row of its dataset, or an `id`
cell that is not the row's id is an error, and nothing is written. VLMEvalKit's failure text
("Failed to obtain answer ...") becomes an error line with no response.
"""
from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

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
                      out: str | Path, model: str | None = None, bench=None) -> tuple[int, Path]:
    """Every samples file (one task `<benchmark>_<config>` each) of the export at `root` -> one
    predictions file; returns (records, path). (`bench` is not needed here: task names say the config.)"""
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


# ---------------------------------------------------------------- VLMEvalKit result sheets
SHEET_SUFFIXES = (".xlsx", ".tsv", ".csv")
MAX_SHEET_ROWS = 1_048_576          # an xlsx sheet's own limit
VLMEVALKIT_FAILED = "Failed to obtain answer"


MAX_XLSX_UNPACKED = 8 << 30        # a workbook that unpacks to more is no result sheet (a zip bomb)


def _xlsx_rows(path: Path) -> Iterator[tuple]:
    import zipfile

    import openpyxl

    try:
        with zipfile.ZipFile(path) as z:
            unpacked = sum(i.file_size for i in z.infolist())
        if unpacked > MAX_XLSX_UNPACKED:
            raise PredictError(f"{path}: unpacks to {unpacked >> 20} MiB, more than {MAX_XLSX_UNPACKED >> 20} MiB")
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
        try:
            yield from wb.worksheets[0].iter_rows(values_only=True)
        finally:
            wb.close()
    except PredictError:
        raise
    except Exception as exc:  # zipfile, XML and openpyxl's own errors: not a workbook either way
        raise PredictError(f"{path}: not a readable .xlsx workbook ({type(exc).__name__})") from None


def _sheet_rows(path: Path) -> Iterator[tuple]:
    if path.suffix == ".xlsx":
        yield from _xlsx_rows(path)
        return
    csv.field_size_limit(MAX_LINE_BYTES)
    with path.open(newline="", encoding="utf-8") as f:
        try:
            yield from (tuple(r) for r in csv.reader(f, delimiter="\t" if path.suffix == ".tsv" else ","))
        except (csv.Error, UnicodeDecodeError) as exc:
            raise PredictError(f"{path}: not a readable {path.suffix[1:]} sheet ({exc})") from None


def read_sheet(path: str | Path) -> list[dict]:
    """A VLMEvalKit result sheet's rows as {column: cell}, header from the first row."""
    path = Path(path)
    if path.suffix not in SHEET_SUFFIXES:
        raise PredictError(f"{path}: not a VLMEvalKit result sheet (expected <model>_<dataset>"
                           f"{'/'.join(SHEET_SUFFIXES)})")
    if not path.is_file():
        raise PredictError(f"result sheet {path} does not exist" if not path.exists() else f"{path} is not a file")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise PredictError(f"{path}: larger than {MAX_FILE_BYTES >> 20} MiB")
    rows = _sheet_rows(path)
    header = next(rows, None)
    if header is None:
        raise PredictError(f"{path}: empty sheet")
    header = tuple("" if h is None else str(h) for h in header)
    missing = [c for c in ("index", "prediction") if c not in header]
    if missing:
        raise PredictError(f"{path}: no {' and no '.join(missing)} column (columns: {', '.join(header)[:200]})")
    if len(set(header)) != len(header):
        raise PredictError(f"{path}: a column name appears twice")
    out = []
    for n, cells in enumerate(rows, 2):
        if len(out) >= MAX_SHEET_ROWS:
            raise PredictError(f"{path}: more than {MAX_SHEET_ROWS} rows")
        if all(c is None or c == "" for c in cells):
            continue
        out.append({"_line": n, **dict(zip(header, cells))})
    return out


def _index(v: Any) -> int | None:
    """A sheet's index cell: an int, or an integral float or digit string (csv, hand-saved sheets)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and math.isfinite(v) and v.is_integer():
        return int(v)
    if isinstance(v, str) and re.fullmatch(r"\s*\d{1,19}\s*", v):
        return int(v)
    return None


def _prediction(v: Any) -> Any:
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return str(v)        # a number a spreadsheet made of a textual reply


def vlmevalkit_replies(sheet: str | Path, root: str | Path, split: str, in_set: Callable[[str], bool]
                       ) -> tuple[tuple[str, ...], dict[str, Any]]:
    """A result sheet joined on the export at `root`: (the configs of the VLMEvalKit dataset it
    answers, {row id: reply}); every check of the module docstring."""
    from packagers.vlmevalkit import VlmError, export_identity, row_index

    path, root = Path(sheet), Path(root)
    try:
        identity = export_identity(root)
    except VlmError as exc:
        raise PredictError(str(exc)) from None
    configs = sorted(d.name for d in root.iterdir() if d.is_dir() and any(d.glob(f"{split}-*.parquet")))
    rows: dict[int, tuple[str, str]] = {}
    for c in configs:
        for rid in row_ids(root, c, split):
            rows[row_index(identity, rid)] = (c, rid)
    got: dict[int, Any] = {}
    for rec in read_sheet(path):
        n, k = rec["_line"], _index(rec["index"])
        if k is None:
            raise PredictError(f"{path}:{n}: index {str(rec['index'])[:40]!r} is not an integer")
        if k not in rows:
            raise PredictError(f"{path}:{n}: index {k} is not a row of {root} (a sheet of another export?)")
        if k in got:
            raise PredictError(f"{path}:{n}: index {k} answered twice")
        if rec.get("id") not in (None, rows[k][1]):
            raise PredictError(f"{path}:{n}: index {k} is row {rows[k][1]!r} but the sheet's id is "
                               f"{str(rec['id'])[:80]!r}")
        got[k] = _prediction(rec["prediction"])
    if not got:
        raise PredictError(f"{path}: no rows")
    found = sorted({rows[k][0] for k in got})
    if all(in_set(c) for c in found):
        want = tuple(c for c in configs if in_set(c))
    elif len(found) == 1:
        want = tuple(found)
    else:
        raise PredictError(f"{path}: rows of several VLMEvalKit datasets ({', '.join(found)})")
    expected = [k for k, (c, _) in rows.items() if c in want]
    if len(got) != len(expected):
        raise PredictError(f"{path}: {len(got)} rows answered of the {len(expected)} of its dataset "
                           f"({', '.join(want)}); every row must be answered")
    return want, {rows[k][1]: v for k, v in got.items()}


def model_of_sheet(path: Path, display: str) -> str:
    """`<model>_<Display>_v<version>[_<config>]` -> model (VLMEvalKit's file name), else the stem."""
    stem = path.stem
    cut = stem.rfind(f"_{display}_v")
    return stem[:cut] if cut > 0 else stem


def convert_vlmevalkit(sheets: Sequence[str | Path], root: str | Path, benchmark: str, split: str,
                       out: str | Path, model: str | None = None, bench=None) -> tuple[int, Path]:
    """Result sheets (one per VLMEvalKit dataset of the export at `root`) -> one predictions file.
    `bench` is the scenebench Benchmark (its set and display name say how the TSVs were cut)."""
    if bench is None:
        raise TypeError("convert_vlmevalkit needs the Benchmark (bench=...)")
    try:
        root = resolve_root(root, split)
    except DatasetError as exc:
        raise PredictError(str(exc)) from None
    records: dict[str, dict] = {}
    seen: dict[tuple[str, ...], Path] = {}
    for path in map(Path, sheets):
        configs, replies = vlmevalkit_replies(path, root, split, bench.lmms_eval_in_group)
        if configs in seen:
            raise PredictError(f"{path}: answers the same rows as {seen[configs]}")
        seen[configs] = path
        name = model or model_of_sheet(path, bench.display_name)
        for rid, reply in replies.items():
            failed = isinstance(reply, str) and reply.startswith(VLMEVALKIT_FAILED)
            records[rid] = {"id": rid, "model": name, "response": None if failed else reply,
                            "error": reply if failed else None, "usage": None, "latency_s": None,
                            "attempts": None, "finish_reason": None, "source": "vlmevalkit"}
    out = Path(out)
    write_sorted(out, records)
    return len(records), out


IMPORTERS = {"lmms-eval": convert_lmms_eval, "vlmevalkit": convert_vlmevalkit}
