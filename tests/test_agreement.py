"""Rater agreement (App. E / Table 13): metrics.md §8 worked examples and hand cases."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from scorers.agreement import (heldout_split, krippendorff_alpha, majority, pairwise_agreement,
                               rater_vs_majority, ratings_to_matrix, scorer_vs_majority, table13_row)

nan = np.nan
N = None


def test_alpha_worked_examples():
    assert krippendorff_alpha([[1, 1, 0, nan], [1, 0, 0, 1]]) == pytest.approx(0.444444, abs=1e-6)
    assert krippendorff_alpha([[0, 1, 1, 0, nan], [0, 1, 0, 0, 1], [nan, 1, 1, 0, 1]]) == pytest.approx(0.714286, abs=1e-6)
    package_docstring = [
        [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
        [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
        [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
    ]
    assert krippendorff_alpha(package_docstring) == pytest.approx(0.691358, abs=1e-6)
    krippendorff_2011 = [  # 4 coders x 12 units, nominal
        [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
        [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
    ]
    assert krippendorff_alpha(krippendorff_2011) == pytest.approx(0.743421, abs=1e-6)


def test_alpha_edge_cases_and_dict_input():
    assert krippendorff_alpha([[1, nan], [nan, 0]]) is None          # nothing pairable
    assert krippendorff_alpha([[1, 1, 1], [1, 1, 1]]) is None        # one value: undefined, not 1
    assert krippendorff_alpha([[0, 1, 0, 1], [0, 1, 0, 1]]) == 1.0
    assert krippendorff_alpha([[0, 1], [1, 0]]) < 0                   # worse than chance
    ratings = {"u1": {"A": 1, "B": 1}, "u2": {"A": 1, "B": 0}, "u3": {"A": 0, "B": 0}, "u4": {"B": 1, "A": None}}
    assert krippendorff_alpha(ratings) == pytest.approx(0.444444, abs=1e-6)
    assert ratings_to_matrix(ratings) == [[1, 1, 0, None], [1, 0, 0, 1]]
    labels = {"u1": {"A": "accept", "B": "accept"}, "u2": {"A": "accept", "B": "reject"},
              "u3": {"A": "reject", "B": "reject"}, "u4": {"B": "accept"}}
    assert krippendorff_alpha(labels) == pytest.approx(0.444444, abs=1e-6)   # labels need not be numeric


def test_pairwise_agreement():
    ratings = {
        "f1": {"A": True, "B": True, "C": True},          # 3 agreeing pairs
        "f2": {"A": True, "B": False, "C": False},        # 1 of 3
        "f3": {"A": False, "B": None},                    # no pair
        "f4": {"A": False, "B": True},                    # 0 of 1
    }
    assert pairwise_agreement(ratings) == pytest.approx(4 / 7)
    assert pairwise_agreement({"f": {"A": 1}}) is None


def test_majority_and_rater_vs_majority():
    assert majority([1, 1, 0]) == 1 and majority([1, 0]) is None and majority([]) is None
    ratings = {
        "f1": {"A": 1, "B": 1, "C": 1, "D": 0},
        "f2": {"A": 1, "B": 0, "C": 0, "D": 0},
        "f3": {"A": 0, "B": 1, "C": 0},
        "f4": {"A": 1, "B": 1},
    }
    r = rater_vs_majority(ratings)
    # A: f1 others(1,1,0)->1 ok; f2 others(0,0,0)->0 wrong; f3 others(1,0) tie; f4 one other (< 2)
    assert r["A"].n == 2 and r["A"].agreement == 0.5
    # D: f1 others(1,1,1) wrong; f2 others(1,0,0) ok
    assert r["D"].n == 2 and r["D"].agreement == 0.5
    # B: f1 others(1,1,0) ok; f2 others(1,0,0) ok; f3 others(0,0) -> 0, B=1 wrong
    assert r["B"].n == 3 and r["B"].agreement == pytest.approx(2 / 3)
    r1 = rater_vs_majority(ratings, min_others=1)
    assert r1["A"].n == 3


def test_heldout_split_is_fixed_and_about_40_percent():
    ids = [f"tape_gap/r{i:04d}" for i in range(4000)]
    s = [heldout_split(i) for i in ids]
    assert set(s) == {"tune", "heldout"}
    assert 0.37 < s.count("heldout") / len(s) < 0.43
    # pinned literals (the default salt is scenebench/realitybench/ratings-split/v1)
    f = [f"f{i}" for i in range(12)]
    assert [heldout_split(i) for i in f] == [
        "tune", "tune", "heldout", "tune", "heldout", "heldout", "heldout", "heldout", "heldout", "tune", "heldout", "tune"]
    # the salt matters: other salts split the same ids differently
    assert [heldout_split(i, salt="a") for i in f] == [
        "tune", "tune", "tune", "heldout", "heldout", "heldout", "heldout", "tune", "tune", "heldout", "tune", "tune"]
    assert [heldout_split(i, salt="b") for i in f] == [
        "heldout", "heldout", "heldout", "tune", "tune", "tune", "tune", "tune", "tune", "tune", "tune", "tune"]
    # the default salt is this string: naming it gives the same pinned split
    assert [heldout_split(i, salt="scenebench/realitybench/ratings-split/v1") for i in f] == [
        "tune", "tune", "heldout", "tune", "heldout", "heldout", "heldout", "heldout", "heldout", "tune", "heldout", "tune"]
    # the documented scheme, by hand: u = blake2b-64("salt/id") big-endian / 2^64; tune iff u < 0.6
    for i in f + ids[:300]:
        for salt in ("scenebench/realitybench/ratings-split/v1", "a", "b"):
            u = int.from_bytes(hashlib.blake2b(f"{salt}/{i}".encode(), digest_size=8).digest(), "big") / 2.0**64
            assert heldout_split(i, salt=salt) == ("tune" if u < 0.6 else "heldout")


def test_scorer_vs_majority_on_heldout_frames():
    held = [f"f{i}" for i in range(200) if heldout_split(f"f{i}") == "heldout"][:6]
    tune = [f"f{i}" for i in range(200) if heldout_split(f"f{i}") == "tune"][:2]
    ratings = {
        held[0]: {"A": "accept", "B": "accept", "C": "reject"},   # maj accept, scorer accept: ok
        held[1]: {"A": "reject", "B": "reject", "C": "reject"},   # maj reject, scorer accept: lenient
        held[2]: {"A": True, "B": True, "C": True, "D": False},   # maj accept, scorer reject: strict
        held[3]: {"A": True, "B": False, "C": True, "D": False},  # tie: excluded
        held[4]: {"A": True, "B": True},                          # < 3 ratings: excluded
        held[5]: {"A": False, "B": False, "C": False},            # scorer unscored: excluded
        tune[0]: {"A": True, "B": True, "C": True},               # tuning frame: excluded
        tune[1]: {"A": True, "B": True, "C": True},
    }
    scorer = {held[0]: "accept", held[1]: "accept", held[2]: "reject", held[3]: "accept",
              held[4]: "accept", held[5]: "unscored", tune[0]: "reject", tune[1]: "reject"}
    s = scorer_vs_majority(ratings, scorer)
    assert s.n == 3 and s.agreement == pytest.approx(1 / 3) and s.n_ties == 1 and s.n_unscored == 1
    assert (s.accepts_of_majority_rejects, s.n_majority_rejects) == (1, 1)
    assert (s.rejects_of_majority_accepts, s.n_majority_accepts) == (1, 2)
    s_all = scorer_vs_majority(ratings, scorer, split=None, n_resamples=200, seed=0)
    assert s_all.n == 5 and s_all.agreement == pytest.approx(1 / 5) and s_all.ci is not None
    row = table13_row(ratings, scorer)
    assert row.frames == 8 and row.raters == 4 and row.scorer.n == 3
    assert row.ratings_per_frame == pytest.approx(25 / 8)
