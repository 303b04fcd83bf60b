"""EgoPathBench prediction files: the `formats.predictions` reader, file warnings, one name per model.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from formats.predictions import PredictionsError, read_predictions_file, settle_model_names
from scorers.egopath_baselines import BASELINES
from scorers.egopath_dataset import EgoPathDataError

__all__ = ["PredictionFile", "load_prediction_file", "file_warnings", "models_from_files"]


@dataclass
class PredictionFile:
    path: Path
    model: str
    replies: dict[str, Any] = field(default_factory=dict)
    n_lines: int = 0
    torn_last_line: bool = False
    unreadable_lines: list[int] = field(default_factory=list)
    no_id_lines: int = 0
    duplicate_ids: list[str] = field(default_factory=list)
    model_names: list[str] = field(default_factory=list)
    invalid_utf8_lines: list[int] = field(default_factory=list)


def load_prediction_file(path: str | os.PathLike) -> PredictionFile:
    """Read one predictions file (`formats.predictions` rules); EgoPathDataError if it cannot be read."""
    try:
        f = read_predictions_file(path)
    except PredictionsError as exc:
        raise EgoPathDataError(str(exc)) from None
    return PredictionFile(path=f.path, model=f.model, replies=f.replies, n_lines=f.n_lines,
                          torn_last_line=f.torn_last_line,
                          unreadable_lines=sorted(f.unreadable_lines + f.oversize_lines),
                          no_id_lines=len(f.no_id_lines), duplicate_ids=list(f.duplicate_ids),
                          model_names=f.model_names, invalid_utf8_lines=f.invalid_utf8_lines)


def file_warnings(pf: PredictionFile) -> list[str]:
    w = []
    if pf.torn_last_line:
        w.append(f"{pf.path}: torn last line ignored")
    if pf.unreadable_lines:
        w.append(f"{pf.path}: {len(pf.unreadable_lines)} unreadable line(s) skipped "
                 f"(line {', '.join(map(str, pf.unreadable_lines[:5]))})")
    if pf.no_id_lines:
        w.append(f"{pf.path}: {pf.no_id_lines} line(s) without a string `id` skipped")
    if pf.duplicate_ids:
        w.append(f"{pf.path}: {len(pf.duplicate_ids)} repeated id(s); the last line of each counts")
    if len(pf.model_names) > 1:
        w.append(f"{pf.path}: several `model` values {pf.model_names}; using {pf.model!r}")
    if pf.invalid_utf8_lines:
        w.append(f"{pf.path}: {len(pf.invalid_utf8_lines)} line(s) with invalid UTF-8, read with U+FFFD "
                 f"(line {', '.join(map(str, pf.invalid_utf8_lines[:5]))})")
    return w


def models_from_files(files: Sequence[PredictionFile]) -> dict[str, dict[str, Any]]:
    """{model: replies}; clashing names fall back to file stems; still equal -> error."""
    dup = settle_model_names(files)
    if dup:
        raise EgoPathDataError(f"two prediction files for model {dup!r}; rename one file or fix its `model` field")
    clash = sorted({f.model for f in files} & {f"baseline:{b}" for b in BASELINES})
    if clash:
        raise EgoPathDataError(f"model name {clash[0]!r} is reserved for a baseline")
    return {f.model: f.replies for f in files}
