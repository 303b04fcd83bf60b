"""Bootstrap confidence intervals (RealityBench App. D; metrics.md §9), percentile method.

A statistic is a function of an index array into the item list, so non-additive metrics
(F1, precision) are recomputed on every resample rather than averaged per item.

* `stratified_bootstrap`: each stratum resampled with replacement at its own size (Table 5:
  the random frames and each positive stratum apart; 1,000 resamples);
* `paired_bootstrap`: the same resampled indices score both models (Table 6; 2,000
  resamples), so the interval is of the difference on shared items;
* `cluster_bootstrap`: scene clusters resampled whole (items of a scene are correlated).

Deterministic given `seed`: one `numpy.random.Generator` per call, no global RNG. Per
resample the draws are `rng.integers(0, n_s, n_s)` for each stratum in order of first
appearance (cluster: `rng.integers(0, K, K)`), so with one item per cluster the cluster and
item bootstraps see the same index stream. Resamples whose statistic is NaN (undefined,
e.g. no positive) are dropped from the quantiles and counted in `n_undefined`.
Quantiles use numpy's default linear interpolation (as scipy.stats.bootstrap).
"""
from __future__ import annotations

import itertools
from typing import Callable, Hashable, Sequence

import numpy as np
from pydantic import BaseModel

Statistic = Callable[[np.ndarray], float]

__all__ = ["CI", "PairedCI", "stratified_bootstrap", "paired_bootstrap", "cluster_bootstrap",
           "percentile_ci", "exact_bootstrap_ci"]


class CI(BaseModel):
    estimate: float | None
    low: float | None
    high: float | None
    confidence: float
    n_resamples: int
    n_undefined: int = 0


class PairedCI(CI):
    excludes_zero: bool


def _groups(labels: Sequence[Hashable]) -> list[np.ndarray]:
    """Index arrays per label, in order of first appearance."""
    order: dict[Hashable, list[int]] = {}
    for i, s in enumerate(labels):
        order.setdefault(s, []).append(i)
    return [np.asarray(v, dtype=np.intp) for v in order.values()]


def _resamples(groups: list[np.ndarray], n_resamples: int, rng: np.random.Generator):
    for _ in range(n_resamples):
        yield np.concatenate([g[rng.integers(0, len(g), len(g))] for g in groups]) if groups \
            else np.empty(0, np.intp)


def percentile_ci(values: Sequence[float], confidence: float = 0.95,
                  method: str = "linear") -> tuple[float | None, float | None, int]:
    """(low, high, n_nan) percentile interval of bootstrap replicates, NaNs dropped."""
    v = np.asarray(values, float)
    ok = v[~np.isnan(v)]
    if ok.size == 0:
        return None, None, int(v.size)
    a = (1 - confidence) / 2
    lo, hi = np.quantile(ok, [a, 1 - a], method=method)
    return float(lo), float(hi), int(v.size - ok.size)


def _nan_to_none(x: float) -> float | None:
    return None if x is None or np.isnan(x) else float(x)


def stratified_bootstrap(statistic: Statistic, strata: Sequence[Hashable], n_resamples: int = 1000,
                         seed: int = 0, confidence: float = 0.95) -> CI:
    """Percentile CI of statistic(indices), strata resampled separately (one stratum = plain)."""
    n = len(strata)
    rng = np.random.default_rng(seed)
    groups = _groups(strata)
    est = statistic(np.arange(n, dtype=np.intp))
    reps = [statistic(idx) for idx in _resamples(groups, n_resamples, rng)]
    lo, hi, bad = percentile_ci(reps, confidence)
    return CI(estimate=_nan_to_none(est), low=lo, high=hi, confidence=confidence,
              n_resamples=n_resamples, n_undefined=bad)


def paired_bootstrap(stat_a: Statistic, stat_b: Statistic, strata: Sequence[Hashable],
                     n_resamples: int = 2000, seed: int = 0, confidence: float = 0.95) -> PairedCI:
    """CI of stat_a - stat_b, both computed on the same resampled items."""
    n = len(strata)
    rng = np.random.default_rng(seed)
    groups = _groups(strata)
    full = np.arange(n, dtype=np.intp)
    est = stat_a(full) - stat_b(full)
    reps = [stat_a(idx) - stat_b(idx) for idx in _resamples(groups, n_resamples, rng)]
    lo, hi, bad = percentile_ci(reps, confidence)
    excl = lo is not None and (lo > 0 or hi < 0)
    return PairedCI(estimate=_nan_to_none(est), low=lo, high=hi, confidence=confidence,
                    n_resamples=n_resamples, n_undefined=bad, excludes_zero=bool(excl))


def cluster_bootstrap(statistic: Statistic, clusters: Sequence[Hashable], n_resamples: int = 1000,
                      seed: int = 0, confidence: float = 0.95) -> CI:
    """Resample whole clusters (scenes) with replacement; the statistic sees all their items.

    With `statistic = mean over the given items` this is the item-weighted ratio
    (total correct / total items over the drawn clusters), metrics.md §9's recommendation.
    """
    rng = np.random.default_rng(seed)
    groups = _groups(clusters)
    k = len(groups)
    est = statistic(np.arange(len(clusters), dtype=np.intp))
    reps = []
    for _ in range(n_resamples):
        pick = rng.integers(0, k, k)
        reps.append(statistic(np.concatenate([groups[j] for j in pick]) if k else np.empty(0, np.intp)))
    lo, hi, bad = percentile_ci(reps, confidence)
    return CI(estimate=_nan_to_none(est), low=lo, high=hi, confidence=confidence,
              n_resamples=n_resamples, n_undefined=bad)


def exact_bootstrap_ci(statistic: Statistic, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Oracle for tiny n: all n**n resamples, `inverted_cdf` quantiles (metrics.md §9)."""
    if n > 7:
        raise ValueError("exact bootstrap enumerates n**n resamples; n <= 7 only")
    vals = [statistic(np.asarray(idx, np.intp)) for idx in itertools.product(range(n), repeat=n)]
    a = (1 - confidence) / 2
    lo, hi = np.quantile(np.asarray(vals, float), [a, 1 - a], method="inverted_cdf")
    return float(lo), float(hi)
