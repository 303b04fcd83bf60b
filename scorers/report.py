"""`scenebench score` for RealityBench: the entry points the CLI calls, and the report writer.

One concern per module: `realitybench_inputs` (prediction files, price table),
`realitybench_grading` (per-item grades, pydantic), `realitybench_metrics` (set metrics and
bootstrap intervals, typed as `realitybench_results`), `realitybench_markdown` (summary table,
report.md), `realitybench_figures` (Figs. 2-3), `realitybench_ratings` (human ratings, Table 13).
This module only writes the files.
"""
from __future__ import annotations

import io
import json
from pathlib import Path

from formats import atomic
from scorers.realitybench_figures import fig2, fig3
from scorers.realitybench_inputs import Predictions, ReportError, load_predictions, load_price_table
from scorers.realitybench_markdown import report_markdown, summary_table
from scorers.realitybench_metrics import (
    BASELINE, SKILL_ORDER, cost_frontier, field_skill, score, score_result, set_metrics_fields)
from scorers.realitybench_ratings import ratings_report, ratings_table, read_ratings_csv

REPORT_FILES = ("report.md", "metrics.json", "fig2_f1_doc_vs_cost.png", "fig3_field_heatmap.png")

__all__ = ["ReportError", "Predictions", "load_predictions", "load_price_table", "score", "write_report",
           "summary_table", "report_markdown", "score_result", "field_skill", "cost_frontier", "set_metrics_fields",
           "read_ratings_csv", "ratings_report", "ratings_table", "BASELINE", "SKILL_ORDER",
           "REPORT_FILES"]


def write_report(metrics: dict, report_dir: str | Path) -> list[Path]:
    """report.md, metrics.json (sorted keys) and the two figures; returns the paths written.

    Everything is rendered before anything is written, and each file is replaced atomically,
    so a failure leaves the previous report whole."""
    d = Path(report_dir)
    d.mkdir(parents=True, exist_ok=True)
    out = [d / name for name in REPORT_FILES]
    texts = [report_markdown(metrics) + "\n", json.dumps(metrics, sort_keys=True, indent=2, allow_nan=False) + "\n"]
    # "replace": a path with undecodable bytes must not leave the report unwritten
    data = [t.encode("utf-8", "replace") for t in texts] + [_png(fig2, metrics), _png(fig3, metrics)]
    for path, blob in zip(out, data):
        atomic.write_bytes(path, blob)
    return out


def _png(draw, metrics: dict) -> bytes:
    buf = io.BytesIO()
    draw(metrics, buf)
    return buf.getvalue()
