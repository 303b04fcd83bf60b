"""Bootstrap CIs: metrics.md §9's RNG-free tests plus determinism and structure checks."""
from __future__ import annotations

import numpy as np
import pytest

from scorers.stats import (cluster_bootstrap, exact_bootstrap_ci, paired_bootstrap, percentile_ci,
                           stratified_bootstrap)


def mean_of(x):
    x = np.asarray(x, float)
    return lambda idx: float(x[idx].mean()) if len(idx) else float("nan")


def test_exact_oracle_worked_examples():
    assert exact_bootstrap_ci(mean_of([0, 1, 1, 1]), 4) == (0.25, 1.0)
    assert exact_bootstrap_ci(mean_of([0, 1, 1]), 3) == (0.0, 1.0)
    with pytest.raises(ValueError):
        exact_bootstrap_ci(mean_of(range(8)), 8)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_monte_carlo_converges_to_exact_oracle(seed):
    ci = stratified_bootstrap(mean_of([0, 1, 1, 1]), [0] * 4, n_resamples=2000, seed=seed)
    assert (ci.low, ci.high) == (0.25, 1.0) and ci.estimate == 0.75


def test_constant_data_gives_degenerate_interval():
    ci = stratified_bootstrap(mean_of([0.7] * 9), ["a"] * 4 + ["b"] * 5, n_resamples=500, seed=3)
    assert ci.low == pytest.approx(0.7) and ci.high == pytest.approx(0.7)
    ci = cluster_bootstrap(mean_of([0.7] * 9), [1, 1, 2, 2, 2, 3, 4, 4, 4], n_resamples=300, seed=3)
    assert ci.low == pytest.approx(0.7) and ci.high == pytest.approx(0.7)


def test_paired_shift_gives_exact_interval():
    rng = np.random.default_rng(5)
    a = rng.random(40)
    b = a + 0.2
    strata = ["r"] * 25 + ["p1"] * 10 + ["p2"] * 5
    ci = paired_bootstrap(mean_of(b), mean_of(a), strata, n_resamples=2000, seed=1)
    assert ci.estimate == pytest.approx(0.2)
    assert ci.low == pytest.approx(0.2) and ci.high == pytest.approx(0.2) and ci.excludes_zero
    assert ci.n_resamples == 2000


def test_paired_illustrative_example():
    """metrics.md §9 illustration: difference 0.3; Monte Carlo CI about [0.0, 0.6] (not a constant)."""
    a = [1, 1, 0, 1, 1, 0, 1, 1, 0, 1]
    b = [1, 0, 0, 1, 0, 0, 1, 0, 0, 1]
    ci = paired_bootstrap(mean_of(a), mean_of(b), [0] * 10, n_resamples=2000, seed=0)
    assert ci.estimate == pytest.approx(0.3)
    assert -0.05 <= ci.low <= 0.1 and 0.5 <= ci.high <= 0.65


def test_one_item_per_cluster_equals_item_bootstrap():
    x = np.random.default_rng(9).random(12)
    item = stratified_bootstrap(mean_of(x), [0] * 12, n_resamples=400, seed=11)
    clus = cluster_bootstrap(mean_of(x), list(range(12)), n_resamples=400, seed=11)
    assert (item.low, item.high) == (clus.low, clus.high)


def test_cluster_interval_wider_for_correlated_items():
    sizes = [8, 2, 5, 3, 6, 4]              # metrics.md §9's cluster sizes
    outcome = [1, 1, 0, 1, 1, 0]            # whole scenes right or wrong: strongly clustered
    x = np.concatenate([[o] * s for o, s in zip(outcome, sizes)]).astype(float)
    clusters = np.concatenate([[k] * s for k, s in enumerate(sizes)])
    item = stratified_bootstrap(mean_of(x), [0] * len(x), n_resamples=1000, seed=0)
    clus = cluster_bootstrap(mean_of(x), clusters, n_resamples=1000, seed=0)
    assert item.estimate == clus.estimate == pytest.approx(19 / 28)
    assert clus.high - clus.low > item.high - item.low


def test_stratification_keeps_stratum_sizes():
    seen = []

    def stat(idx):
        seen.append(idx.copy())
        return 0.0

    strata = ["a", "b", "a", "b", "b", "c"]
    stratified_bootstrap(stat, strata, n_resamples=50, seed=2)
    for idx in seen[1:]:
        labels = [strata[i] for i in idx]
        assert labels.count("a") == 2 and labels.count("b") == 3 and labels.count("c") == 1


def test_deterministic_given_seed_and_nan_resamples_counted():
    x = np.random.default_rng(0).random(30)
    one = stratified_bootstrap(mean_of(x), [0] * 30, n_resamples=300, seed=42)
    two = stratified_bootstrap(mean_of(x), [0] * 30, n_resamples=300, seed=42)
    other = stratified_bootstrap(mean_of(x), [0] * 30, n_resamples=300, seed=43)
    assert one == two and one != other

    y = np.array([1.0, 0.0, 0.0, 0.0])

    def ratio(idx):  # undefined (NaN) when no 1 is drawn
        d = y[idx]
        return float("nan") if d.sum() == 0 else float(d.sum() / len(d))

    ci = stratified_bootstrap(ratio, [0] * 4, n_resamples=1000, seed=0)
    assert 200 < ci.n_undefined < 450   # P(no 1 drawn) = (3/4)^4 = 0.316
    assert percentile_ci([float("nan")] * 3) == (None, None, 3)
