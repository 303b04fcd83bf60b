"""The predictions file: one schema and one reader for scoring, audits and `predict` resume.

JSONL, one object per line (what `scenebench predict` writes):
``{"id", "model", "response", "error", "usage", ...}``. Other tools' names are read too:

* the item id from the first present key of ID_KEYS (`id`, `question_id`, `frame_id`); it
  must be a string;
* the raw reply from the first non-null key of REPLY_KEYS (`response`, `reply`,
  `prediction` (VLMEvalKit's column), `answer`, `output`, `text`); anything that is not a
  string is kept as it is, and graders score it as out of grammar;
* the model name from `model`; the file's model is the most frequent name (ties: the first
  in sorted order), else the file stem.

Rules, the same for every caller:

* one id on several lines: a line that ANSWERED (a reply and no `error`) replaces any earlier
  line; a line that did not answer replaces only a line that did not answer either (a failed
  retry never replaces a reply; a resumed run's retry replaces the failure);
* torn last line: the last non-empty line, if it does not decode (a writer killed mid-line),
  is ignored and reported, and `torn_offset` says where it starts so `predict` can cut it off;
  a decodable last line without a final newline is a good line (`missing_newline`);
* any other line that does not decode to an object is reported in `unreadable_lines`, a line
  longer than MAX_LINE_BYTES in `oversize_lines` (never decoded), a line without a string id
  in `no_id_lines`; the caller decides whether that is a warning (graders) or an error
  (`predict`, which rewrites the file);
* invalid UTF-8 is replaced (U+FFFD) and counted; lone surrogates from JSON escapes
  (``"\\ud800"``) are replaced too, so every string read can be written and printed;
* a file over MAX_FILE_BYTES, a directory or an unreadable file is a PredictionsError.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ID_KEYS = ("id", "question_id", "frame_id")
REPLY_KEYS = ("response", "reply", "prediction", "answer", "output", "text")
MAX_FILE_BYTES = 1 << 30       # 1 GiB: a benchmark run's file is a few MB
MAX_LINE_BYTES = 4 << 20       # 4 MiB: 60x the graders' reply cap; longer lines are never decoded
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")

__all__ = ["ID_KEYS", "REPLY_KEYS", "MAX_FILE_BYTES", "MAX_LINE_BYTES", "PredictionsError", "PredictionsFile",
           "id_of", "reply_of", "answered", "read_predictions_file", "cut_torn_tail"]


class PredictionsError(ValueError):
    """The file cannot be read at all (absent, too big, not a file); one line says why."""


def _first(rec: dict, keys: tuple[str, ...]) -> Any:
    for k in keys:
        if rec.get(k) is not None:
            return rec[k]
    return None


def id_of(rec: dict) -> str | None:
    v = _first(rec, ID_KEYS)
    return v if isinstance(v, str) else None


def reply_of(rec: dict) -> Any:
    return _first(rec, REPLY_KEYS)


def answered(rec: dict | None) -> bool:
    """A line with a reply and no error: it needs no new request and is never replaced."""
    return rec is not None and rec.get("error") is None and reply_of(rec) is not None


def _clean(v: Any) -> Any:
    """Lone surrogates (only JSON escapes make them) -> U+FFFD, in every string of a record."""
    if isinstance(v, str):
        return _SURROGATE.sub("\ufffd", v)
    if isinstance(v, list):
        return [_clean(x) for x in v]
    if isinstance(v, dict):
        return {_clean(k): _clean(x) for k, x in v.items()}
    return v


@dataclass
class PredictionsFile:
    path: Path
    model: str                                   # the file's model name (see module docstring)
    records: dict[str, dict] = field(default_factory=dict)   # id -> the line that counts
    line_of: dict[str, int] = field(default_factory=dict)    # id -> its 1-based line number
    n_lines: int = 0                             # non-empty lines
    torn_last_line: bool = False
    torn_offset: int | None = None               # byte offset of the torn line
    missing_newline: bool = False                # the last good line has no final newline
    unreadable_lines: list[int] = field(default_factory=list)
    oversize_lines: list[int] = field(default_factory=list)
    no_id_lines: list[int] = field(default_factory=list)
    invalid_utf8_lines: list[int] = field(default_factory=list)
    duplicate_ids: list[str] = field(default_factory=list)   # one entry per repeat
    model_names: list[str] = field(default_factory=list)

    @property
    def replies(self) -> dict[str, Any]:
        return {i: reply_of(r) for i, r in self.records.items()}


def _lines(f, size: int):
    """(1-based number, byte offset, bytes or None when longer than MAX_LINE_BYTES, had newline)."""
    n = off = 0
    while off < size:
        chunk = f.readline(MAX_LINE_BYTES + 1)
        if not chunk:
            break
        n += 1
        start = off
        off += len(chunk)
        if len(chunk) > MAX_LINE_BYTES and not chunk.endswith(b"\n"):
            while chunk and not chunk.endswith(b"\n"):       # skip the rest without holding it
                chunk = f.readline(MAX_LINE_BYTES)
                off += len(chunk)
            yield n, start, None, chunk.endswith(b"\n")
            continue
        nl = chunk.endswith(b"\n")
        yield n, start, chunk, nl


def read_predictions_file(path: str | Path) -> PredictionsFile:
    """Read one predictions file by the rules of the module docstring."""
    p = Path(path)
    if not p.is_file():
        raise PredictionsError(f"predictions file {p} does not exist" if not p.exists()
                               else f"predictions file {p} is not a file")
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise PredictionsError(f"predictions file {p} is larger than {MAX_FILE_BYTES >> 20} MiB")
        pf = PredictionsFile(path=p, model=_clean(p.stem))   # an undecodable file name too
        names: Counter = Counter()
        last: tuple[int, int, bool, bool] | None = None   # (line, offset, decoded, had newline) of the last line
        with p.open("rb") as f:
            for n, off, raw, nl in _lines(f, size):
                if raw is not None and not raw.strip():
                    continue
                pf.n_lines += 1
                if raw is None:
                    pf.oversize_lines.append(n)
                    last = (n, off, True, nl)
                    continue
                rec = _decode(raw, n, pf)
                last = (n, off, rec is not None, nl)
                if rec is None:
                    pf.unreadable_lines.append(n)
                    continue
                _take(pf, rec, n, names)
    except OSError as exc:
        raise PredictionsError(f"predictions file {p}: {exc.strerror or exc}") from None
    if last is not None:
        n, off, ok, nl = last
        if not ok:
            pf.unreadable_lines.remove(n)
            pf.torn_last_line, pf.torn_offset = True, off
        elif not nl:
            pf.missing_newline = True
    if names:
        pf.model_names = sorted(names)
        pf.model = sorted(names.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    return pf


def _decode(raw: bytes, n: int, pf: PredictionsFile) -> dict | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", "replace")
        pf.invalid_utf8_lines.append(n)
    try:
        rec = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(rec, dict):
        return None
    return _clean(rec) if _SURROGATE_ESCAPE.search(raw) else rec


def _take(pf: PredictionsFile, rec: dict, n: int, names: Counter) -> None:
    if isinstance(rec.get("model"), str) and rec["model"].strip():
        names[rec["model"].strip()] += 1
    rid = id_of(rec)
    if rid is None:
        pf.no_id_lines.append(n)
        return
    old = pf.records.get(rid)
    if old is not None:
        pf.duplicate_ids.append(rid)
        if answered(old) and not answered(rec):
            return
    pf.records[rid] = rec
    pf.line_of[rid] = n


def cut_torn_tail(pf: PredictionsFile) -> None:
    """Make the file safe to append to: cut a torn last line off, end the last line with a newline."""
    import os

    if pf.torn_offset is not None:
        with open(pf.path, "r+b") as f:
            f.truncate(pf.torn_offset)
            f.flush()
            os.fsync(f.fileno())
        pf.torn_offset, pf.torn_last_line = None, False
        pf.missing_newline = _ends_without_newline(pf.path)
    if pf.missing_newline:
        with open(pf.path, "ab") as f:
            f.write(b"\n")
            f.flush()
            os.fsync(f.fileno())
        pf.missing_newline = False


def _ends_without_newline(path: Path) -> bool:
    with open(path, "rb") as f:
        f.seek(0, 2)
        if f.tell() == 0:
            return False
        f.seek(-1, 2)
        return f.read(1) != b"\n"


def settle_model_names(files) -> str | None:
    """Two prediction files naming the same model fall back to their file stems (each file has
    `.model` and `.path`); returns a name that is still shared after that, else None."""
    counts = Counter(f.model for f in files)
    for f in files:
        if counts[f.model] > 1:
            f.model = f.path.stem
    dup = sorted(k for k, v in Counter(f.model for f in files).items() if v > 1)
    return dup[0] if dup else None
