"""Pins for scorers/vantage_uncertainty.py: the resampling units of App. G.1 and intervals that
do not depend on the RNG (exact-enumeration oracle, constant data, unit sets)."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from scorers.stats import exact_bootstrap_ci
from scorers.vantage_metrics import ev_codes, object_localization, single_object_tracking, temporal_ious
from scorers.vantage_uncertainty import (CONFIDENCE, N_RESAMPLES, RESAMPLING_UNIT, bootstrap_ci, cell_seed,
                                         ev_statistic, half_width, mean_statistic, objloc_statistic,
                                         temporal_statistic, temporal_units)


def test_settings_follow_app_g():
    assert N_RESAMPLES == 10_000 and CONFIDENCE == 0.95
    assert RESAMPLING_UNIT["temporal_localization"] == "video" and RESAMPLING_UNIT["single_object_tracking"] == "tracklet"
    assert RESAMPLING_UNIT["object_localization"] == "image" and RESAMPLING_UNIT["dense_captioning"] == "video"
    assert {RESAMPLING_UNIT[t] for t in ("video_qa", "event_verification", "spatial_pointing", "referring_expressions")} == {"item"}


def test_cell_seed_is_stable_and_distinct():
    assert cell_seed("model", "video_qa") == cell_seed("model", "video_qa")
    assert cell_seed("model", "video_qa") != cell_seed("model", "event_verification")
    assert cell_seed("a", "bc") != cell_seed("ab", "c")
    assert cell_seed("x") == int.from_bytes(bytes.fromhex("2d711642"), "big")   # sha256("x")[:4]
    assert cell_seed("a", "b") == int.from_bytes(hashlib.sha256(b"a/b").digest()[:4], "big")
    assert 0 <= cell_seed("model", "sot") < 2 ** 32


def test_mean_interval_converges_to_the_exact_oracle():
    f = mean_statistic([0, 1, 1, 1])
    assert exact_bootstrap_ci(f, 4) == (0.25, 1.0)
    ci = bootstrap_ci(f, 4, n_resamples=4000, seed=3)
    assert (ci.estimate, ci.low, ci.high) == (0.75, 0.25, 1.0)
    assert half_width(ci) == 0.375 and ci.n_resamples == 4000 and ci.confidence == 0.95


def test_constant_data_gives_a_zero_width_interval_and_nan_units_are_left_out():
    ci = bootstrap_ci(mean_statistic([0.6, 0.6, np.nan]), 3, n_resamples=200, seed=1)
    assert (ci.estimate, ci.low, ci.high) == (0.6, 0.6, 0.6) and half_width(ci) == 0.0
    only_nan = bootstrap_ci(mean_statistic([np.nan]), 1, n_resamples=5, seed=0)
    assert only_nan.estimate is None and only_nan.low is None and half_width(only_nan) is None
    assert only_nan.n_undefined == 5


def test_ev_statistic_recomputes_macro_f1_in_the_chosen_mode():
    y = ev_codes(["yes", "yes", "yes", "no", "no", "no", "no", "yes"])
    p = ev_codes(["yes", "no", "yes", "no", "no", "yes", None, "yes"])
    full = np.arange(8)
    assert ev_statistic(y, p, "vantage")(full) == pytest.approx(0.708333, abs=1e-6)
    assert ev_statistic(y, p, "strict")(full) == pytest.approx(0.660714, abs=1e-6)
    assert np.isnan(ev_statistic(y, p, "vantage")(np.array([6, 6])))    # only the invalid item drawn
    assert ev_statistic(y, p, "strict")(np.array([0, 0])) == 0.5
    ci = bootstrap_ci(ev_statistic(y, p, "vantage"), 8, n_resamples=300, seed=2)
    assert 0 <= ci.low <= ci.estimate <= ci.high <= 1


def test_objloc_statistic_sums_image_counts():
    a = [[0, 0, 100, 100]]
    r = object_localization([(a, a, 1000, 1000), (a + a, a, 1000, 1000), ([], a, 1000, 1000)], "vantage")
    f = objloc_statistic(r["units"], "vantage")
    assert f(np.arange(3)) == pytest.approx(r["f1@0.5"]) == pytest.approx(2 * 2 / 6)
    assert f(np.array([0, 0])) == 1.0 and f(np.array([2])) == 0.0 and f(np.array([1])) == pytest.approx(2 / 3)
    assert f(np.array([], int)) == 0.0
    assert objloc_statistic(np.zeros((0, 3)), "strict")(np.array([], int)) == 1.0


def test_temporal_units_resample_videos_and_keep_the_mode():
    items = [("v1", [(2, 8)], (3, 9), 20), ("v1", [(10, 20)], (12, 17), 20), ("v1", [(4, 6)], None, 20),
             ("v2", [(0, 5)], (5, 10), 30)]
    vids = [i[0] for i in items]
    uv = temporal_units(vids, temporal_ious(items, "vantage"))
    assert uv.shape == (2, 2) and uv[:, 1].tolist() == [3, 1]
    fv = temporal_statistic(uv, "vantage")
    assert fv(np.arange(2)) == pytest.approx(0.219048, abs=1e-6)
    assert fv(np.array([0, 0])) == pytest.approx(0.438095, abs=1e-6)   # a video drawn twice counts twice
    us = temporal_units(vids, temporal_ious(items, "strict"))
    fs = temporal_statistic(us, "strict")
    assert fs(np.arange(2)) == pytest.approx(0.303571, abs=1e-6)
    assert fs(np.array([0, 1, 1])) == pytest.approx(1.214286 / 5, abs=1e-6)
    assert np.isnan(fs(np.array([], int)))
    ci = bootstrap_ci(fv, 2, n_resamples=400, seed=5)
    # with 2 videos every resample is v1, v2 or their mean: the interval ends are among those
    assert ci.low == pytest.approx(0.0) and ci.high == pytest.approx(0.438095, abs=1e-6)


def test_sot_units_are_tracklets():
    def box(x):
        return (x, 0, x + 20, 20)
    gt = [box(0), box(0), box(0)]
    r = single_object_tracking([(gt, [None, box(0), box(0)]), (gt, [None, None, None])], "vantage")
    f = mean_statistic(r["units"])
    assert f(np.arange(2)) == pytest.approx((1 + 1 / 21) / 2) and f(np.array([0])) == 1.0


def test_seed_and_confidence_reach_the_bootstrap():
    f = mean_statistic([0.0, 0.1, 0.5, 0.9, 1.0, 0.3, 0.7])
    a, b = bootstrap_ci(f, 7, n_resamples=50, seed=1), bootstrap_ci(f, 7, n_resamples=50, seed=2)
    assert (a.low, a.high) == (bootstrap_ci(f, 7, n_resamples=50, seed=1).low, bootstrap_ci(f, 7, n_resamples=50, seed=1).high)
    assert (a.low, a.high) != (b.low, b.high)
    assert bootstrap_ci(f, 7, n_resamples=50).low == bootstrap_ci(f, 7, n_resamples=50, seed=0).low
    narrow = bootstrap_ci(f, 7, n_resamples=400, seed=1, confidence=0.5)
    wide = bootstrap_ci(f, 7, n_resamples=400, seed=1)
    assert narrow.confidence == 0.5 and wide.confidence == 0.95
    assert half_width(narrow) < half_width(wide)
    assert bootstrap_ci(f, 7, n_resamples=3).n_resamples == 3


def test_defaults_are_strict():
    y = ev_codes(["yes", "no", "no"])
    p = ev_codes(["yes", None, "no"])
    assert ev_statistic(y, p)(np.arange(3)) == pytest.approx(ev_statistic(y, p, "strict")(np.arange(3)))
    assert ev_statistic(y, p)(np.arange(3)) != pytest.approx(ev_statistic(y, p, "vantage")(np.arange(3)))
    u = np.array([[0.0, 0.0, 0.0]])
    assert objloc_statistic(u)(np.array([0])) == 1.0
    t = np.array([[1.0, 1.0], [0.0, 3.0]])
    assert temporal_statistic(t)(np.arange(2)) == pytest.approx(0.25)
    assert temporal_statistic(t, "vantage")(np.arange(2)) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        ev_statistic(y, p, "x")
    with pytest.raises(ValueError):
        objloc_statistic(u, "x")
    with pytest.raises(ValueError):
        temporal_statistic(t, "x")
