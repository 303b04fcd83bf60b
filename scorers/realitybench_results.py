"""The typed result of RealityBench scoring: what `realitybench_metrics.score_result` returns and
metrics.json holds (`RealityBenchScore.model_dump()`, keys sorted on writing).

Rates are fractions in [0, 1]; None where a metric is undefined (an empty denominator).
The markdown and the figures read the dumped dict, so the file format is this model.
"""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["Interval", "PredictionsInfo", "ModelScore", "BaselineScore", "PairedDifference", "TopGroup",
           "FieldInfo", "EnvironmentCounts", "DatasetSummary", "Settings", "RealityBenchScore", "ScoreResult"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Interval(_Strict):
    """A point estimate with its percentile bootstrap interval; n_undefined resamples had no value."""

    estimate: float | None
    low: float | None
    high: float | None
    n_undefined: int


class PredictionsInfo(_Strict):
    """How one predictions file matched the dataset (formats.predictions counts)."""

    file: str
    lines: int
    matched: int
    missing: int
    missing_ids: list[str]
    unknown: int
    unknown_ids: list[str]
    duplicate_ids: list[str]
    n_duplicates: int
    torn_last_line: bool
    unreadable_lines: list[int]
    n_unreadable_lines: int
    lines_without_id: int
    non_text_replies: int
    null_replies: int
    bad_usage_lines: int
    model_names_in_file: list[str]
    replies_cut_by_cap: int = 0      # in-set frames whose reply ended at the output cap (finish_reason "length")
    thinking_errors: list[str] = []  # "<id>: why" for each in-set count --reply-tokenizer could not split


class ModelScore(_Strict):
    predictions: PredictionsInfo
    metrics: dict[str, Interval]                 # CI_METRICS
    counts: dict[str, int]                       # COUNT_KEYS
    lenient_in_grammar: float | None
    field_scores: dict[str, float]               # "env/key" -> mean over the frames it is scored on
    field_n: dict[str, int]                      # "env/key" -> those frames
    per_env: dict[str, dict[str, int | float | None]]
    cost: dict[str, Any]                         # scorers.cost.SetCost + price, coverage and an optional note


class BaselineScore(_Strict):
    metrics: dict[str, Interval]
    counts: dict[str, int]


class PairedDifference(_Strict):
    """Model a minus model b on the same resamples (Table 6)."""

    a: str
    b: str
    estimate: float | None
    low: float | None
    high: float | None
    n_undefined: int
    excludes_zero: bool


class TopGroup(_Strict):
    leader: str | None
    members: list[str]


class FieldInfo(_Strict):
    skill: str                                   # Fig. 3 group: reading, judgment or measurement
    type: str | None                             # the answer key's type


class EnvironmentCounts(_Strict):
    frames: int
    gray: int
    unscored: int
    in_set: int
    acceptability_scored: int
    random: int
    positive: int


class DatasetSummary(_Strict):
    path: str
    frames: int
    in_set: int
    excluded_gray: int
    excluded_unscored: int
    scorer_verdicts: dict[str, int]
    environments: dict[str, EnvironmentCounts]


class Settings(_Strict):
    seed: int
    confidence: float
    n_resamples_ci: int
    n_resamples_paired: int
    bootstrap: str
    prices: str
    grading: str


class RealityBenchScore(_Strict):
    """metrics.json."""

    dataset: DatasetSummary
    settings: Settings
    model_order: list[str]
    models: dict[str, ModelScore]
    baseline: dict[str, BaselineScore]
    paired_differences: dict[str, dict[str, PairedDifference]]   # metric -> "a - b" -> difference
    top_group: dict[str, TopGroup]                                # metric -> group
    fields: dict[str, FieldInfo]


class ScoreResult(_Strict):
    metrics: RealityBenchScore
    warnings: list[str]
