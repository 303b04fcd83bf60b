"""RealityBench scoring inputs: prediction files (formats.predictions rules, token usage) and the price table.

Every bad input is a ReportError whose message is one line for `scenebench score`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import yaml

from formats.predictions import PredictionsError, read_predictions_file
from scorers.cost import DEFAULT_PRICES, Price, Usage, derive_thinking, load_prices, usage_of_record

__all__ = ["ReportError", "Predictions", "load_predictions", "load_price_table"]


class ReportError(ValueError):
    """Bad input to `scenebench score` (missing file, clashing model names); one line says why."""


@dataclass
class Predictions:
    path: Path
    model: str
    replies: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, Usage] = field(default_factory=dict)
    n_lines: int = 0
    torn_last_line: bool = False
    unreadable_lines: list[int] = field(default_factory=list)
    duplicate_ids: list[str] = field(default_factory=list)
    no_id_lines: int = 0
    bad_usage: int = 0
    cut_by_cap: set[str] = field(default_factory=set)   # ids whose reply stopped at the output cap
    model_names: list[str] = field(default_factory=list)
    invalid_utf8_lines: list[int] = field(default_factory=list)
    thinking_errors: list[str] = field(default_factory=list)   # "<id>: why" per count not split


def load_predictions(path: str | Path, reply_tokens: Callable[[str], int] | None = None) -> Predictions:
    """Read one predictions file (`formats.predictions` rules); ReportError if it cannot be read.

    Over-long lines count as unreadable; token usage is read from the line that counts. With
    `reply_tokens` (scorers.reply_tokens), a single output count is split into reply and thinking
    (cost.derive_thinking); a record it cannot split keeps its thinking "not derivable"."""
    try:
        pf = read_predictions_file(path)
    except PredictionsError as exc:
        raise ReportError(str(exc)) from None
    pred = Predictions(path=pf.path, model=pf.model, replies=pf.replies, n_lines=pf.n_lines,
                       torn_last_line=pf.torn_last_line,
                       unreadable_lines=sorted(pf.unreadable_lines + pf.oversize_lines),
                       duplicate_ids=list(pf.duplicate_ids), no_id_lines=len(pf.no_id_lines),
                       model_names=pf.model_names, invalid_utf8_lines=pf.invalid_utf8_lines)
    for fid, rec in pf.records.items():
        if rec.get("finish_reason") == "length":     # Table 5: "replies cut by the output cap"
            pred.cut_by_cap.add(fid)
        u = usage_of_record(rec)
        if u is False:
            pred.bad_usage += 1
        elif u is not None:
            if u.single_count and reply_tokens is not None:
                u = _split(pred, fid, u, pf.replies.get(fid), reply_tokens)
            pred.usage[fid] = u
    return pred


def _split(pred: Predictions, fid: str, u: Usage, reply: Any, reply_tokens: Callable[[str], int]) -> Usage:
    if reply is not None and not isinstance(reply, str):
        pred.thinking_errors.append(f"{fid}: the reply is not text, so its tokens cannot be counted")
        return u
    try:
        return derive_thinking(u, reply_tokens(reply or ""))
    except ValueError as exc:
        pred.thinking_errors.append(f"{fid}: {exc}")
        return u


def load_price_table(path: str | Path | None) -> dict[str, Price]:
    p = Path(path) if path else DEFAULT_PRICES
    if not p.is_file():
        raise ReportError(f"price table {p} does not exist")
    try:
        return load_prices(p)
    except (ValueError, TypeError, AttributeError, yaml.YAMLError) as exc:  # YAMLError: not YAML at all
        raise ReportError(f"price table {p} is malformed: {str(exc).splitlines()[0]}") from None
