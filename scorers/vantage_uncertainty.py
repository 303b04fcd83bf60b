"""Item-level bootstrap intervals for VANTAGE-Bench's primary metrics (App. G.1, Table 13).

95 % percentile bootstrap, 10,000 resamples per model–task cell, the metric recomputed on
every resample (scorers.stats). The resampling unit is what the metric averages over:
items for VQA, EV, Pointing and RefEx; images for Object Localization (micro F1 from summed
per-image counts); videos for Temporal Localization (Table 13's 203 "items" are videos, and the
vantage metric is video-macro) and Dense Video Captioning; tracklets for Single Object
Tracking (frames within a tracklet are correlated). The units are built by
scorers.vantage_metrics / vantage_dvc; a seed per (model, task) comes from `cell_seed`.
"""
from __future__ import annotations

import hashlib
from typing import Callable, Sequence

import numpy as np

from scorers.stats import CI, stratified_bootstrap
from scorers.vantage_metrics import Compat, micro_f1, check_compat, event_verification_from_codes

N_RESAMPLES = 10_000
CONFIDENCE = 0.95
RESAMPLING_UNIT = {"video_qa": "item", "event_verification": "item", "spatial_pointing": "item",
                   "referring_expressions": "item", "object_localization": "image",
                   "temporal_localization": "video", "dense_captioning": "video",
                   "single_object_tracking": "tracklet"}

Statistic = Callable[[np.ndarray], float]

__all__ = ["N_RESAMPLES", "CONFIDENCE", "RESAMPLING_UNIT", "cell_seed", "mean_statistic", "ev_statistic",
           "objloc_statistic", "temporal_units", "temporal_statistic", "bootstrap_ci", "half_width"]


def cell_seed(*names: str) -> int:
    """A stable 32-bit seed from names (e.g. model and task): SHA-256, not Python's hash()."""
    return int.from_bytes(hashlib.sha256("/".join(names).encode()).digest()[:4], "big")


def mean_statistic(values: Sequence[float]) -> Statistic:
    """Mean over the resampled units, NaN units (nothing scored) left out."""
    v = np.asarray(values)

    def f(idx: np.ndarray) -> float:
        x = v[idx]
        x = x[~np.isnan(x)]
        return float(x.mean()) if x.size else np.nan

    return f


def ev_statistic(truth_codes: Sequence[int], pred_codes: Sequence[int], compat: Compat = "strict") -> Statistic:
    """Macro-F1 recomputed on the resampled items (scorers.vantage_metrics codes)."""
    t, p = np.asarray(truth_codes), np.asarray(pred_codes)
    check_compat(compat)

    def f(idx: np.ndarray) -> float:
        v = event_verification_from_codes(t[idx], p[idx], compat)["macro_f1"]
        return np.nan if v is None else v

    return f


def objloc_statistic(units: np.ndarray, compat: Compat = "strict") -> Statistic:
    """Micro F1@0.5 from per-image (TP, n_pred, n_gt) rows (`object_localization()["units"]`, shape (n, 3))."""
    u = np.asarray(units)
    check_compat(compat)

    def f(idx: np.ndarray) -> float:
        tp, n_pred, n_gt = u[idx].sum(axis=0)
        return micro_f1(tp, n_pred, n_gt, compat)

    return f


def temporal_units(videos: Sequence, ious: Sequence[float]) -> np.ndarray:
    """Per-video rows (sum of tIoU, number of queries), in order of first appearance."""
    order: dict = {}
    for vid, x in zip(videos, ious):
        row = order.setdefault(vid, [0.0, 0])
        row[0] += float(x)
        row[1] += 1
    return np.array(list(order.values())).reshape(-1, 2)


def temporal_statistic(units: np.ndarray, compat: Compat = "strict") -> Statistic:
    """mIoU over resampled videos: vantage the mean of per-video means, strict pooled queries."""
    u = np.asarray(units)
    check_compat(compat)

    def f(idx: np.ndarray) -> float:
        x = u[idx]
        if not len(x):
            return np.nan
        if compat == "vantage":
            return float(np.mean(x[:, 0] / x[:, 1]))
        return float(x[:, 0].sum() / x[:, 1].sum())

    return f


def bootstrap_ci(statistic: Statistic, n_units: int, n_resamples: int = N_RESAMPLES, seed: int = 0,
                 confidence: float = CONFIDENCE) -> CI:
    """Percentile interval of `statistic` over `n_units` units resampled with replacement."""
    return stratified_bootstrap(statistic, [0] * n_units, n_resamples=n_resamples, seed=seed,
                                confidence=confidence)


def half_width(ci: CI) -> float | None:
    """(high - low) / 2, the ± of Table 13."""
    if ci.low is None:  # percentile_ci gives both ends or neither
        return None
    return (ci.high - ci.low) / 2
