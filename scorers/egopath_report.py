"""`scenebench score` for an exported EgoPathBench: the entry points the CLI calls, and the report writer.

One concern per module: `egopath_dataset` (the exported dataset: questions, controls, images),
`egopath_inputs` (prediction files), `egopath` (grading and bootstrap), `egopath_metrics`
(metrics.json content), `egopath_results` (its typed schema), `egopath_markdown` (leaderboard, report.md), `egopath_figures`
(prediction overlays). This module writes the files and runs the whole flow.
"""
from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from formats import atomic
from scorers.egopath import N_RESAMPLES, SEED
from scorers.egopath_dataset import (BENCHMARK, CONTROLS, SPLITS, EgoPathDataError, find_egopath_root, load_controls,
                                     load_images, load_questions, require_root)
from scorers.egopath_figures import make_overlays
from scorers.egopath_inputs import PredictionFile, file_warnings, load_prediction_file, models_from_files
from scorers.egopath_markdown import TASK_SHORT, report_markdown, summary_table
from scorers.egopath_metrics import control_metrics, score_predictions
from scorers.egopath_results import EgoPathScore

__all__ = ["EgoPathDataError", "PredictionFile", "find_egopath_root", "load_questions", "load_prediction_file",
           "load_controls", "control_metrics", "run_score", "models_from_files", "score_predictions",
           "write_report", "summary_table", "report_markdown", "make_overlays", "load_images", "BENCHMARK",
           "SPLITS", "CONTROLS", "TASK_SHORT", "file_warnings"]


def write_report(metrics: Mapping[str, Any], out_dir: str | os.PathLike,
                 overlays: Mapping[str, Any] | None = None) -> Path:
    """metrics.json, report.md and overlays/<name>.png under out_dir; returns report.md's path."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    pngs: dict[str, bytes] = {}
    for name, img in sorted((overlays or {}).items()):
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        pngs[safe] = buf.getvalue()
    # everything is rendered before anything is written, and each file is replaced atomically
    metrics_text = json.dumps(metrics, indent=2, sort_keys=True, allow_nan=False) + "\n"
    md_text = report_markdown(metrics, list(pngs))
    for safe, data in pngs.items():
        atomic.write_bytes(out / "overlays" / f"{safe}.png", data)
    atomic.write_text(out / "metrics.json", metrics_text)
    md = out / "report.md"
    atomic.write_bytes(md, md_text.encode("utf-8", "replace"))   # a path with undecodable bytes still writes
    return md


def run_score(dataset: str | os.PathLike, prediction_paths: Sequence[str | os.PathLike],
              report_dir: str | os.PathLike | None = None, seed: int = SEED, n_resamples: int = N_RESAMPLES,
              split: str = "benchmark", overlays: bool = True) -> tuple[dict, list[str], Path]:
    """The whole `scenebench score` flow for EgoPathBench: (metrics, warnings, report.md path)."""
    root = require_root(dataset)
    questions = load_questions(root, split=split)
    files = [load_prediction_file(p) for p in prediction_paths]
    by_model = models_from_files(files)
    controls = load_controls(root, split=split) if split == "benchmark" else {}
    metrics = score_predictions(questions, by_model, n_resamples=n_resamples, seed=seed,
                                dataset=str(root), split=split, controls=controls)
    file_warn = [w for f in files for w in file_warnings(f)]
    metrics["warnings"] = file_warn + metrics["warnings"]
    metrics["prediction_files"] = {f.model: {"file": str(f.path), "lines": f.n_lines,
                                             "torn_last_line": f.torn_last_line,
                                             "unreadable_lines": f.unreadable_lines[:20],
                                             "lines_without_id": f.no_id_lines,
                                             "n_duplicates": len(f.duplicate_ids)} for f in files}
    EgoPathScore.model_validate(metrics)  # the schema of metrics.json, checked before anything is written
    ov = make_overlays(root, questions, by_model, split=split) if overlays else None
    out = Path(report_dir) if report_dir else Path("reports") / root.name
    md = write_report(metrics, out, overlays=ov)
    return metrics, metrics["warnings"], md
