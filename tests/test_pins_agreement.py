"""Pinned values for scorers/agreement.py (metrics.md §8; RealityBench App. E / Table 13).

The split values were computed from the documented formula u = blake2b(salt + "/" + id, 8 bytes)
read big-endian / 2**64 (u < 0.6 -> tune): f170 u = 0.60028, f1329 u = 0.59942, f0 u = 0.2084,
f5 u = 0.9111; with salt "other", f0 u = 0.5463 and f2 u = 0.9998.
"""
from __future__ import annotations

import math

import pytest

from scorers import agreement as ag


def test_split_constants_and_threshold_edges():
    assert ag.SPLIT_SALT == "scenebench/realitybench/ratings-split/v1" and ag.TUNE_FRACTION == 0.6
    assert ag.heldout_split("f170") == "heldout"      # u just above 0.6
    assert ag.heldout_split("f1329") == "tune"        # u just below 0.6
    assert ag.heldout_split("f0") == "tune" and ag.heldout_split("f5") == "heldout"
    assert ag.heldout_split("f2") == "heldout" and ag.heldout_split("f1") == "tune"


def test_split_salt_matters():
    # f5 is heldout under the project salt; under "other" f0 (0.546) is tune, f2 (0.9998) heldout
    assert ag.heldout_split("f0", salt="other") == "tune"
    assert ag.heldout_split("f3", salt="other") == "tune"
    assert ag.heldout_split("f1", salt="other") == "heldout"     # u = 0.7265, tune under the project salt
    assert ag.heldout_split("f1") == "tune"


def test_pairwise_agreement_pools_pairs():
    # frame a: 3 raters x,x,y -> 3 pairs, 1 agreeing; frame b: 2 raters agree -> 1 of 1
    r = {"a": {"r1": "x", "r2": "x", "r3": "y"}, "b": {"r1": "z", "r2": "z", "r3": None},
         "c": {"r1": "x"}, "d": {"r1": float("nan"), "r2": "x"}}
    assert ag.pairwise_agreement(r) == pytest.approx(2 / 4)
    assert ag.pairwise_agreement({"c": {"r1": "x"}}) is None
    assert ag.pairwise_agreement({}) is None


def test_alpha_worked_examples_from_notes():
    assert ag.krippendorff_alpha([[1, 1, 0, None], [1, 0, 0, 1]]) == pytest.approx(0.444444, abs=1e-6)
    nan = float("nan")
    assert ag.krippendorff_alpha([[0, 1, 1, 0, nan], [0, 1, 0, 0, 1], [nan, 1, 1, 0, 1]]) == \
        pytest.approx(0.714286, abs=1e-6)
    # ratings-dict form of the first example
    d = {"u1": {"a": 1, "b": 1}, "u2": {"a": 1, "b": 0}, "u3": {"a": 0, "b": 0}, "u4": {"a": None, "b": 1}}
    assert ag.krippendorff_alpha(d) == pytest.approx(0.444444, abs=1e-6)
    # ragged rows: the missing tail counts as missing
    assert ag.krippendorff_alpha([[1, 1, 0], [1, 0, 0, 1]]) == pytest.approx(0.444444, abs=1e-6)
    assert ag.krippendorff_alpha([[1, 1], [1, 1]]) is None            # one value observed
    assert ag.krippendorff_alpha([[1, None], [None, 0]]) is None       # nothing pairable
    assert ag.krippendorff_alpha([]) is None
    assert ag.krippendorff_alpha([[0, 1], [1, 0]]) == pytest.approx(-0.5)   # 1 - 3*4/8


def test_ratings_to_matrix_sorted():
    r = {"f2": {"b": 1}, "f1": {"a": 0, "b": 1}}
    assert ag.ratings_to_matrix(r) == [[0, None], [1, 1]]


def test_majority():
    assert ag.majority(["a", "b", "a"]) == "a"
    assert ag.majority(["a", "b"]) is None
    assert ag.majority([]) is None
    assert ag.majority(["b"]) == "b"
    assert ag.majority(["a", "a", "b", "b", "c"]) is None
    assert ag.majority([False, False, True]) is False


def test_rater_vs_majority_min_others():
    r = {"f1": {"a": "x", "b": "x", "c": "y"},           # a vs {x,y} tie; b vs {x,y} tie; c vs {x,x}: miss
         "f2": {"a": "x", "b": "x", "c": "x", "d": "y"},  # a,b,c hit; d miss
         "f3": {"a": "x", "b": "y"}}                       # one other only: skipped
    out = ag.rater_vs_majority(r)
    assert list(out) == ["a", "b", "c", "d"]
    assert (out["a"].agreement, out["a"].n) == (1.0, 1)
    assert (out["c"].agreement, out["c"].n) == (0.5, 2)
    assert (out["d"].agreement, out["d"].n) == (0.0, 1)
    one = ag.rater_vs_majority(r, min_others=1)
    assert one["a"].n == 2 and one["a"].agreement == 0.5     # f3: a vs {y}
    none = ag.rater_vs_majority({"f": {"a": 1, "b": 1}})
    assert none["a"].agreement is None and none["a"].n == 0
    assert list(none) == ["a", "b"] and none["b"].n == 0     # every rater is listed, even with nothing compared


@pytest.mark.parametrize("v,want", [
    (True, True), (False, False), (1, True), (0, False), (1.0, True), (2, None), (float("nan"), None),
    (" Accept ", True), ("ACCEPTED", True), ("adequate", True), ("yes", True), ("true", True), ("1", True),
    ("reject", False), ("Rejected", False), ("inadequate", False), ("no", False), ("false", False),
    ("0", False), ("maybe", None), (None, None), ([1], None),
])
def test_as_bool(v, want):
    assert ag._as_bool(v) is want


def test_scorer_vs_majority_counts_all_frames():
    r = {"a": {"r1": "accept", "r2": "accept", "r3": "reject"},   # maj accept, scorer accept: hit
         "b": {"r1": "reject", "r2": "reject", "r3": "reject"},   # maj reject, scorer accept: false accept
         "c": {"r1": "accept", "r2": "accept", "r3": "accept"},   # maj accept, scorer reject: too strict
         "d": {"r1": True, "r2": False, "r3": "maybe", "r4": None},  # 2 usable labels < 3: skipped
         "e": {"r1": 1, "r2": 0, "r3": 1, "r4": 0},               # tie
         "f": {"r1": "no", "r2": "no", "r3": "yes"},              # maj reject, scorer unscored
         "g": {"r1": "no", "r2": "no", "r3": "no"}}               # maj reject, scorer reject: hit
    sc = {"a": "accept", "b": True, "c": "reject", "d": True, "e": True, "f": "unscored", "g": False}
    s = ag.scorer_vs_majority(r, sc, split=None)
    assert s.n == 4 and s.agreement == 0.5
    assert (s.n_ties, s.n_unscored) == (1, 1)
    assert (s.accepts_of_majority_rejects, s.n_majority_rejects) == (1, 2)
    assert (s.rejects_of_majority_accepts, s.n_majority_accepts) == (1, 2)
    assert s.ci is None
    s2 = ag.scorer_vs_majority(r, sc, split=None, min_ratings=2)
    assert s2.n == 4 and s2.n_ties == 2                      # d is now a 1-1 tie
    ci = ag.scorer_vs_majority(r, sc, split=None, n_resamples=50, seed=1).ci
    assert ci is not None and ci.estimate == 0.5 and ci.n_resamples == 50 and 0.0 <= ci.low <= ci.high <= 1.0


def test_scorer_vs_majority_uses_only_the_requested_split():
    three = {"r1": "accept", "r2": "accept", "r3": "accept"}
    r = {"f0": three, "f5": three, "f170": three, "f1329": three}      # tune, heldout, heldout, tune
    sc = {"f0": False, "f5": True, "f170": True, "f1329": False}
    h = ag.scorer_vs_majority(r, sc)
    assert h.n == 2 and h.agreement == 1.0
    t = ag.scorer_vs_majority(r, sc, split="tune")
    assert t.n == 2 and t.agreement == 0.0
    assert ag.scorer_vs_majority({}, {}).agreement is None


def test_table13_row():
    r = {"f5": {"r1": "accept", "r2": "accept", "r3": "reject"},
         "f170": {"r1": "reject", "r2": "reject", "r4": "reject"},
         "f0": {"r1": "accept", "r2": "accept"},
         "f1": {"r1": "accept"}}                        # one rating: not a Table 13 frame
    row = ag.table13_row(r, {"f5": "accept", "f170": "reject", "f0": "reject"})
    assert row.frames == 3 and row.raters == 4
    assert row.ratings_per_frame == pytest.approx(8 / 3)
    assert row.agree == pytest.approx((1 + 3 + 1) / 7)
    # alpha by hand: units (A,A,R), (R,R,R), (A,A): o_AA = 1 + 2 = 3, o_AR = o_RA = 1, o_RR = 3
    # n_A = 4, n_R = 4, n = 8: 1 - 7 * 2 / (64 - 32) = 0.5625
    assert row.alpha == pytest.approx(0.5625)
    assert row.scorer.n == 2 and row.scorer.agreement == 1.0        # f5, f170 heldout; f0 tune
    empty = ag.table13_row({"f": {"a": 1}}, {})
    assert empty.frames == 0 and empty.ratings_per_frame is None and empty.agree is None and empty.alpha is None


def test_scorer_vs_majority_ci_uses_seed_0_by_default():
    """Ten frames, the scorer right on six: the 200-resample percentile CI of the stream seeded 0
    is [0.3, 0.9]; seed 1 draws another stream, whose upper end is 0.9025."""
    three = {"r1": "accept", "r2": "accept", "r3": "accept"}
    r = {f"f{i}": three for i in range(10)}
    sc = {f"f{i}": i < 6 for i in range(10)}
    ci = ag.scorer_vs_majority(r, sc, split=None, n_resamples=200).ci
    assert (ci.estimate, ci.low, ci.n_undefined) == (0.6, 0.3, 0) and ci.high == pytest.approx(0.9, abs=1e-12)
    assert ag.scorer_vs_majority(r, sc, split=None, n_resamples=200, seed=1).ci.high == pytest.approx(0.9025)


def test_scorer_vs_majority_splits_with_the_salt_it_is_given():
    # under salt "other" only f1 is held out (u = 0.7265); under the project salt f0, f1, f3 are all tune
    three = {"r1": "accept", "r2": "accept", "r3": "accept"}
    r = {"f0": three, "f1": three, "f3": three}
    sc = {"f0": True, "f1": False, "f3": True}
    s = ag.scorer_vs_majority(r, sc, salt="other")
    assert (s.n, s.agreement, s.rejects_of_majority_accepts) == (1, 0.0, 1)
    assert ag.scorer_vs_majority(r, sc).n == 0
