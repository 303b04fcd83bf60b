"""`scenebench score` for VANTAGE-Bench: prediction files -> metrics.json, graded records,
report.md and a figure, every task in both rule sets with its interval, pillars and Overall.

Baselines written by scenebench (always-yes, whole clip, static box, random box, an OpenCV
tracker) are scored like any model; where the paper reports the same baseline its number is
printed beside ours (scorers.vantage_report_markdown writes report.md, scorers.vantage_report_figures
the figure).
"""
from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Sequence

from formats import atomic
from formats.canonical import canonical_json, pretty_json
from formats.predictions import PredictionsError, read_predictions_file
from formats.vantage_item import TASKS
from scorers import vantage_uncertainty as vu
from scorers.vantage_baselines import always_yes, reference_reply, whole_clip
from scorers.vantage_dataset import VantageDataError, load_items, tracker_frames
from scorers.vantage_metrics import COMPATS
from scorers.vantage_pillars import PILLARS
from scorers.vantage_report_figures import primary_figure
from scorers.vantage_report_markdown import PAPER_BASELINES, fmt_score, report_markdown
from scorers.vantage_scoring import grade as grade_one
from scorers.vantage_scoring import model_result, task_result
from scorers.vantage_trackers import baseline_track, track_reply

# Baselines scored beside every model: (name, task, reply of an item, needs the frames)
BASELINES = (("always_yes", "event_verification"), ("whole_clip", "temporal_localization"),
             ("static_box", "single_object_tracking"), ("random_box", "single_object_tracking"),
             ("opencv_csrt", "single_object_tracking"))
TRACKER = {"static_box": "static", "random_box": "random", "opencv_csrt": "CSRT"}

__all__ = ["PAPER_BASELINES", "VantageScoreError", "run_score", "summary_table"]


class VantageScoreError(ValueError):
    """Scoring cannot start (no items, an unreadable predictions file); one line."""


def safe_name(model: str) -> str:
    """A model name (from a predictions file: anything) as a file-name part that stays in the report dir."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", model).lstrip(".")[:100] or "model"


def plain(v):
    """JSON-ready: numpy values as Python ones, NaN and infinities as None (strict JSON)."""
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if hasattr(v, "tolist"):
        return plain(v.tolist())
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def summary_table(metrics: dict) -> str:
    """The stdout summary: one line per model and rule set, primary scores, pillars, Overall."""
    head = ["model", "rules", *[t[:12] for t in TASKS], *PILLARS, "overall"]
    lines = ["  ".join(head)]
    for name, m in metrics["models"].items():
        for c in COMPATS:
            scores = [fmt_score(m["tasks"][t][c]["score"]) if t in m["tasks"] else "–" for t in TASKS]
            lines.append("  ".join([name, c, *scores, *(fmt_score(m["pillars"][c][p]) for p in PILLARS),
                                    fmt_score(m["pillars"][c]["overall"])]))
    return "\n".join(lines)


def baseline_results(dataset, items, n_resamples: int) -> dict:
    """The reference (ground truth written as replies: a check that every task's reader and
    grader give full marks) over every item, and each trivial baseline over its task's items."""
    out = {"reference": model_result(items, {it.id: reference_reply(it) for it in items}, "reference", n_resamples)}
    frames = None
    for name, task in BASELINES:
        its = [it for it in items if it.task == task]
        if not its:
            continue
        if name in TRACKER:
            if name == "opencv_csrt" and frames is None:
                frames = tracker_frames(dataset)
            reply = {it.id: track_reply(baseline_track(TRACKER[name], it, frames and frames[it.id])) for it in its}
        else:
            reply = {it.id: (always_yes if name == "always_yes" else whole_clip)(it) for it in its}
        recs = [grade_one(it, reply[it.id]) for it in its]
        out[name] = {"task": task, **task_result(task, its, recs, name, n_resamples)}
    ref = out["reference"]
    out["reference"] = {"tasks": ref["tasks"], "pillars": ref["pillars"]}
    return out


def run_score(dataset: str | Path, predictions: Sequence[str | Path], report_dir: str | Path | None,
              n_resamples: int = vu.N_RESAMPLES) -> tuple[dict, list[str], Path | None]:
    """Grade every predictions file against the export; write the report directory when given.
    Returns (metrics, warnings, report.md path or None)."""
    try:
        items = load_items(dataset)
    except VantageDataError as exc:
        raise VantageScoreError(str(exc)) from None
    if not predictions:
        raise VantageScoreError("no predictions file given")
    ids = {it.id for it in items}
    warnings: list[str] = []
    results = []
    for path in predictions:
        try:
            pf = read_predictions_file(path)
        except PredictionsError as exc:
            raise VantageScoreError(str(exc)) from None
        unknown = sorted(set(pf.records) - ids)
        if unknown:
            warnings.append(f"{path}: {len(unknown)} id(s) not in the dataset ignored (first: {unknown[0]})")
        bad = len(pf.unreadable_lines) + len(pf.oversize_lines) + len(pf.no_id_lines)
        if bad:
            warnings.append(f"{path}: {bad} unreadable line(s) skipped")
        replies = {i: r for i, r in pf.replies.items() if i in ids}
        missing = len(ids) - len(replies)
        if missing:
            warnings.append(f"{path}: {missing} of {len(ids)} items have no reply (scored as wrong)")
        results.append(model_result(items, replies, pf.model, n_resamples))
    names = [r["model"] for r in results]
    if len(set(names)) != len(names):
        raise VantageScoreError(f"two predictions files name the same model ({', '.join(names)})")
    metrics = plain({"dataset": str(dataset), "n_items": len(items), "n_resamples": n_resamples, "warnings": warnings,
               "models": {r["model"]: {k: r[k] for k in ("tasks", "pillars", "n_answered")} for r in results},
               "baselines": baseline_results(dataset, items, n_resamples)})
    if report_dir is None:
        return metrics, warnings, None
    out = Path(report_dir)
    out.mkdir(parents=True, exist_ok=True)
    for r in results:
        atomic.write_text(out / f"graded_{safe_name(r['model'])}.jsonl",
                          "".join(canonical_json(plain(rec)) + "\n" for rec in r["records"]))
    primary_figure(results, out / "primary_scores.png")
    atomic.write_text(out / "metrics.json", pretty_json(metrics, allow_nan=False))
    md = out / "report.md"
    atomic.write_text(md, report_markdown(metrics, "primary_scores.png"))
    return metrics, warnings, md
