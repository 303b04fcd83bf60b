"""The typed result of EgoPathBench scoring: metrics.json's schema (`EgoPathScore`).

`score_predictions` builds the content; `run_score` validates it against these models before
anything is written, so a metrics.json that leaves the schema is an error, not a file. Numbers
are percent; None where a metric is undefined (an empty denominator).
"""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from scorers.realitybench_results import Interval  # one interval model for every benchmark

__all__ = ["Interval", "TaskResult", "ModelResult", "DatasetSummary", "Settings", "PredictionFileInfo",
           "EgoPathScore"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TaskResult(BaseModel):
    """One task's numbers: BA/F1 for traversability, VPR/SR/SPL and diagnostics for routes."""

    model_config = ConfigDict(extra="allow")   # per-task metric names (ba, f1 / vpr, sr, spl) as Intervals
    n: int
    n_scene_groups: int


class ModelResult(_Strict):
    score: Interval
    score_missing_tasks: list[str]
    tasks: dict[str, TaskResult]
    strict: dict[str, Any]                     # Table S7: route task -> {all, strict} rows
    n_missing: int
    controls: dict[str, Any] | None = None     # Table S5 controls (benchmark split only)
    predictions: dict[str, Any] | None = None  # how the file matched the questions (models only, not baselines)


class DatasetSummary(_Strict):
    path: str
    split: str
    n_questions: int
    per_task: dict[str, int]
    n_scene_groups: int
    strict_route_questions: dict[str, int]


class Settings(_Strict):
    seed: int
    n_resamples: int
    confidence: float
    bootstrap: str
    traversability: str
    route: str
    missing: str
    units: str


class PredictionFileInfo(_Strict):
    file: str
    lines: int
    torn_last_line: bool
    unreadable_lines: list[int]
    lines_without_id: int
    n_duplicates: int


class EgoPathScore(_Strict):
    benchmark: str
    dataset: DatasetSummary
    settings: Settings
    model_order: list[str]
    models: dict[str, ModelResult]
    baselines: dict[str, ModelResult]
    warnings: list[str]
    prediction_files: dict[str, PredictionFileInfo] | None = None
