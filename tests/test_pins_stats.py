"""Pinned values for scorers/stats.py (metrics.md §9): quantile arithmetic, the documented draw
order, NaN handling and the paired excludes-zero rule."""
from __future__ import annotations

import numpy as np
import pytest

from scorers import stats as s


def test_percentile_ci_linear_interpolation_by_hand():
    # 11 values 0..10: linear quantile at q is 10q -> 2.5% = 0.25, 97.5% = 9.75
    assert s.percentile_ci(list(range(11))) == (pytest.approx(0.25), pytest.approx(9.75), 0)
    assert s.percentile_ci(list(range(11)), 0.8) == (pytest.approx(1.0), pytest.approx(9.0), 0)
    lo, hi, bad = s.percentile_ci([float("nan"), 0, 10, float("nan")], 0.5)
    assert (lo, hi, bad) == (pytest.approx(2.5), pytest.approx(7.5), 2)
    assert s.percentile_ci([float("nan")] * 3) == (None, None, 3)
    assert s.percentile_ci([]) == (None, None, 0)
    assert s.percentile_ci([0, 1, 2, 3], 0.5, method="inverted_cdf") == (0.0, 2.0, 0)


def _recorder():
    seen = []

    def stat(idx):
        seen.append(np.asarray(idx).tolist())
        return float(len(idx))
    return stat, seen


def test_stratified_draw_order_is_documented_stream():
    stat, seen = _recorder()
    strata = ["b", "a", "b", "a", "a"]
    ci = s.stratified_bootstrap(stat, strata, n_resamples=3, seed=11, confidence=0.9)
    assert seen[0] == [0, 1, 2, 3, 4]
    rng = np.random.default_rng(11)
    gb, ga = np.array([0, 2]), np.array([1, 3, 4])       # order of first appearance: b, then a
    for rep in seen[1:]:
        want = np.concatenate([gb[rng.integers(0, 2, 2)], ga[rng.integers(0, 3, 3)]]).tolist()
        assert rep == want
    assert len(seen) == 4
    assert (ci.estimate, ci.low, ci.high, ci.confidence, ci.n_resamples, ci.n_undefined) == (5.0, 5.0, 5.0, 0.9, 3, 0)


def test_cluster_draw_order_and_whole_clusters():
    stat, seen = _recorder()
    clusters = ["x", "y", "x", "z"]
    ci = s.cluster_bootstrap(stat, clusters, n_resamples=4, seed=5)
    rng = np.random.default_rng(5)
    groups = [[0, 2], [1], [3]]
    for rep in seen[1:]:
        pick = rng.integers(0, 3, 3)
        assert rep == [i for j in pick for i in groups[j]]
    assert ci.n_resamples == 4 and ci.estimate == 4.0


def test_empty_inputs_give_empty_resamples():
    stat, seen = _recorder()
    s.cluster_bootstrap(stat, [], n_resamples=2)
    assert seen == [[], [], []]
    stat, seen = _recorder()
    s.stratified_bootstrap(stat, [], n_resamples=2)
    assert seen == [[], [], []]


def test_nan_estimate_is_none_and_undefined_resamples_counted():
    x = np.array([1.0, 0.0, 0.0])

    def first_positive_share(idx):
        return float("nan") if not x[idx].any() else float(x[idx].mean())
    ci = s.stratified_bootstrap(first_positive_share, ["a"] * 3, n_resamples=400, seed=1)
    # P(no positive in a resample of 3) = (2/3)^3 = 8/27 ~ 0.296 -> about 118 of 400
    assert 80 < ci.n_undefined < 160
    ci2 = s.stratified_bootstrap(lambda idx: float("nan"), ["a"] * 2, n_resamples=5)
    assert ci2.estimate is None and ci2.low is None and ci2.high is None and ci2.n_undefined == 5


def test_paired_excludes_zero_rule():
    a = np.array([1.0, 1.0, 1.0, 1.0])
    b = np.array([0.0, 0.0, 0.0, 0.0])
    p = s.paired_bootstrap(lambda i: a[i].mean(), lambda i: b[i].mean(), ["s"] * 4, n_resamples=50, seed=2)
    assert p.estimate == 1.0 and p.low == 1.0 and p.high == 1.0 and p.excludes_zero is True
    n = s.paired_bootstrap(lambda i: b[i].mean(), lambda i: a[i].mean(), ["s"] * 4, n_resamples=50, seed=2)
    assert n.low == -1.0 and n.high == -1.0 and n.excludes_zero is True
    z = s.paired_bootstrap(lambda i: a[i].mean(), lambda i: a[i].mean(), ["s"] * 4, n_resamples=50, seed=2)
    assert z.low == 0.0 and z.high == 0.0 and z.excludes_zero is False
    u = s.paired_bootstrap(lambda i: float("nan"), lambda i: 0.0, ["s"] * 4, n_resamples=5)
    assert u.low is None and u.excludes_zero is False and u.n_undefined == 5
    assert p.n_resamples == 50 and p.confidence == 0.95


def test_paired_uses_same_indices_for_both():
    sa, seen_a = _recorder()
    sb, seen_b = _recorder()
    s.paired_bootstrap(sa, sb, ["a", "b", "a"], n_resamples=6, seed=9)
    assert seen_a == seen_b and len(seen_a) == 7


def test_default_resample_counts():
    stat, seen = _recorder()
    assert s.stratified_bootstrap(stat, ["a"]).n_resamples == 1000
    assert s.cluster_bootstrap(stat, ["a"]).n_resamples == 1000
    assert s.paired_bootstrap(stat, stat, ["a"]).n_resamples == 2000


def test_default_seed_is_zero_documented_stream():
    """Without a seed, each bootstrap draws numpy's default_rng(0) stream in the documented order."""
    stat, seen = _recorder()
    s.cluster_bootstrap(stat, ["x", "y", "x"], n_resamples=3)
    rng = np.random.default_rng(0)
    groups = [[0, 2], [1]]
    assert seen[1:] == [[i for j in rng.integers(0, 2, 2) for i in groups[j]] for _ in range(3)]
    stat, seen = _recorder()
    s.stratified_bootstrap(stat, ["a", "a"], n_resamples=3)
    rng = np.random.default_rng(0)
    assert seen[1:] == [rng.integers(0, 2, 2).tolist() for _ in range(3)]
    sa, seen_a = _recorder()
    s.paired_bootstrap(sa, lambda i: 0.0, ["a", "a", "a"], n_resamples=3)
    rng = np.random.default_rng(0)
    assert seen_a[1:] == [rng.integers(0, 3, 3).tolist() for _ in range(3)]


def test_every_index_array_is_intp_even_when_empty():
    dtypes = []

    def stat(idx):
        dtypes.append(idx.dtype)
        return 0.0

    s.cluster_bootstrap(stat, [], n_resamples=2)
    s.cluster_bootstrap(stat, ["a", "b"], n_resamples=2)
    s.stratified_bootstrap(stat, [], n_resamples=2)
    s.paired_bootstrap(stat, stat, ["a"], n_resamples=2)
    assert dtypes and all(d == np.intp for d in dtypes)


def test_cluster_confidence_and_undefined_resamples():
    x = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    stat = lambda i: float(x[i].mean())                                        # noqa: E731
    wide = s.cluster_bootstrap(stat, list("abcdef"), n_resamples=300, seed=3)
    narrow = s.cluster_bootstrap(stat, list("abcdef"), n_resamples=300, seed=3, confidence=0.5)
    assert narrow.confidence == 0.5 and wide.confidence == 0.95
    # the same 300 replicates: the 25-75% range lies strictly inside the 2.5-97.5% range
    assert wide.low < narrow.low < 2.5 < narrow.high < wide.high
    # one stratum of six items (six one-item strata would never vary)
    w = s.stratified_bootstrap(stat, ["s"] * 6, n_resamples=300, seed=3)
    n = s.stratified_bootstrap(stat, ["s"] * 6, n_resamples=300, seed=3, confidence=0.5)
    assert n.confidence == 0.5 and w.low < n.low < 2.5 < n.high < w.high
    zero = lambda i: 0.0                                                      # noqa: E731
    w = s.paired_bootstrap(stat, zero, ["s"] * 6, n_resamples=300, seed=3)
    n = s.paired_bootstrap(stat, zero, ["s"] * 6, n_resamples=300, seed=3, confidence=0.5)
    assert n.confidence == 0.5 and w.low < n.low < 2.5 < n.high < w.high
    nan = s.cluster_bootstrap(lambda i: float("nan"), ["a", "b"], n_resamples=7)
    assert (nan.estimate, nan.low, nan.high, nan.n_undefined) == (None, None, None, 7)


def test_exact_bootstrap_limits_and_value():
    x = np.array([0.0, 1.0, 1.0, 1.0])
    assert s.exact_bootstrap_ci(lambda i: x[i].mean(), 4) == (0.25, 1.0)
    assert s.exact_bootstrap_ci(lambda i: x[i].mean(), 4, confidence=0.5) == (0.5, 1.0)
    with pytest.raises(ValueError, match=r"^exact bootstrap enumerates n\*\*n resamples; n <= 7 only$"):
        s.exact_bootstrap_ci(lambda i: 0.0, 8)


def test_exact_bootstrap_inverted_cdf_and_sizes():
    # metrics.md §9: mean([0, 1, 1]) over its 27 resamples has exact CI [0, 1]; linear quantiles
    # would give 0.2167 at the low end. P(mean = 0) = 1/27 > 0.025, P(mean = 1) = 8/27.
    x = np.array([0.0, 1.0, 1.0])
    assert s.exact_bootstrap_ci(lambda i: x[i].mean(), 3) == (0.0, 1.0)
    # all 27 resamples are seen, each once: the statistic records them
    seen = []
    s.exact_bootstrap_ci(lambda i: seen.append(tuple(i.tolist())) or 0.0, 3)
    assert len(seen) == 27 and len(set(seen)) == 27 and seen[0] == (0, 0, 0) and seen[-1] == (2, 2, 2)
    assert all(isinstance(v, int) for t in seen for v in t)
    # confidence 0.99: the 0.5% quantile; P(mean = 0) = P(all four draws are item 0) = 1/256 = 0.0039
    # < 0.005, so the low end is the next value, 0.25 (an alpha/3 split would give 0.0)
    x4 = np.array([0.0, 1.0, 1.0, 1.0])
    assert s.exact_bootstrap_ci(lambda i: x4[i].mean(), 4, confidence=0.99) == (0.25, 1.0)
    # n = 0: the one empty resample, as an integer index array
    assert s.exact_bootstrap_ci(lambda i: float(np.arange(3.0)[i].sum()), 0) == (0.0, 0.0)
    # n = 1: one resample
    assert s.exact_bootstrap_ci(lambda i: 0.5 + i.sum(), 1) == (0.5, 0.5)


def test_groups_first_appearance():
    assert [g.tolist() for g in s._groups(["c", "a", "c", "b", "a"])] == [[0, 2], [1, 4], [3]]


def test_exact_bootstrap_largest_n_is_seven():
    """n = 7 is allowed (7**7 = 823,543 resamples, about 10 s); last in the file, being the slowest."""
    count = [0]

    def counting(i):
        count[0] += 1
        return 0.0

    assert s.exact_bootstrap_ci(counting, 7) == (0.0, 0.0) and count[0] == 7 ** 7
