"""Pins for scorers/vantage_dvc.py: SODA_c's DP and side metrics on the notes' worked examples
(similarity given as a table, so no model), the drop-vs-zero rule of the two modes, the offline
similarities, and the refusal of a missing BERTScore/METEOR."""
from __future__ import annotations

import itertools
import sys
import types

import numpy as np
import pytest

from scorers.vantage_dvc import (SIMILARITIES, SimilarityUnavailable, bertscore_similarity, dense_captioning,
                                 get_similarity, matrix, rouge_l, soda_dp, token_f1, tokens, video_scores)

X = pytest.approx
GOLD = [(0, 10, "g0"), (10, 20, "g1")]
PRED = [(0, 8, "p0"), (9, 21, "p1"), (30, 40, "p2")]
TABLE = {("g0", "p0"): 0.9, ("g0", "p1"): 0.2, ("g0", "p2"): 0.1,
         ("g1", "p0"): 0.3, ("g1", "p1"): 0.6, ("g1", "p2"): 0.5}
SIM = matrix(lambda g, p: TABLE[(g, p)])


def test_worked_example():
    v = video_scores(GOLD, PRED, SIM)
    assert v["soda_c"] == X(0.488, abs=1e-6)
    assert v["iou_f1"] == X(0.653333, abs=1e-6)
    assert v["sim_f1"] == X(0.6, abs=1e-9)
    assert v["matched_ious"] == X([0.8, 0.833333], abs=1e-6)
    r = dense_captioning([(GOLD, PRED)], similarity=SIM)
    assert r["miou_matched"] == X(0.816667, abs=1e-6) and r["soda_c"] == X(0.488, abs=1e-6)


def test_order_is_by_start_not_by_reply_order():
    v = video_scores(list(reversed(GOLD)), [PRED[2], PRED[0], PRED[1]], SIM)
    assert v["soda_c"] == X(0.488, abs=1e-6)


def test_dp_is_order_preserving_not_hungarian():
    assert soda_dp(np.array([[0.1, 0.9], [0.9, 0.1]]))[0] == X(0.9)
    total, pairs = soda_dp(np.array([[0.72, 0.009524, 0], [0, 0.5, 0]]))
    assert total == X(1.22) and pairs == [(0, 0), (1, 1)]


def test_dp_tie_prefers_skip_and_pairs_need_a_positive_score():
    assert soda_dp(np.array([[0.5, 0.5]])) == (0.5, [(0, 0)])
    assert soda_dp(np.array([[0.5], [0.5]])) == (0.5, [(0, 0)])
    assert soda_dp(np.zeros((2, 2))) == (0.0, [])
    assert soda_dp(np.zeros((0, 3))) == (0.0, [])
    assert soda_dp(np.array([[0.0, 0.3]])) == (0.3, [(0, 1)])


def test_dp_matches_brute_force():
    rng = np.random.default_rng(7)
    for _ in range(60):
        m, n = rng.integers(1, 5, 2)
        s = rng.random((m, n)) * (rng.random((m, n)) < 0.7)
        best = 0.0
        for k in range(0, min(m, n) + 1):
            for rows in itertools.combinations(range(m), k):
                for cols in itertools.combinations(range(n), k):
                    best = max(best, sum(s[r, c] for r, c in zip(rows, cols)))
        total, pairs = soda_dp(s)
        assert total == X(best, abs=1e-12)
        assert sum(s[i, j] for i, j in pairs) == X(total, abs=1e-12)
        assert all(a[0] < b[0] and a[1] < b[1] for a, b in zip(pairs, pairs[1:]))


def test_no_prediction_zero_in_strict_dropped_in_vantage():
    videos = [(GOLD, PRED), (GOLD, None)]
    s = dense_captioning(videos, "strict", SIM)
    assert s["soda_c"] == X(0.244, abs=1e-6) and (s["n_scored"], s["n_dropped"]) == (2, 0)
    assert s["units"].tolist() == X([0.488, 0.0], abs=1e-6) and s["n_videos"] == 2
    v = dense_captioning(videos, "vantage", SIM)
    assert v["soda_c"] == X(0.488, abs=1e-6) and (v["n_scored"], v["n_dropped"]) == (1, 1)
    assert v["units"].tolist() == X([0.488], abs=1e-6) and v["units"].dtype == float
    assert dense_captioning([(GOLD, [])], "vantage", SIM)["soda_c"] is None
    assert dense_captioning([(GOLD, [])], "strict", SIM)["soda_c"] == 0.0
    assert dense_captioning([(GOLD, [])], "strict", SIM)["miou_matched"] is None
    assert dense_captioning([], "strict", SIM)["n_videos"] == 0


def test_duplicate_prediction_lowers_precision_only():
    table = dict(TABLE)
    dup = PRED + [(0, 8, "p0")]
    v = video_scores(GOLD, dup, matrix(lambda g, p: table[(g, p)]))
    assert v["soda_c"] == X(0.406667, abs=1e-6)


def test_empty_gold_and_similarity_cleaning():
    assert video_scores([], [], SIM) == {"soda_c": 1.0, "iou_f1": 1.0, "sim_f1": 1.0, "matched_ious": []}
    assert video_scores([], PRED, SIM) == {"soda_c": 0.0, "iou_f1": 0.0, "sim_f1": 0.0, "matched_ious": []}
    assert video_scores(GOLD, None, SIM) == {"soda_c": 0.0, "iou_f1": 0.0, "sim_f1": 0.0, "matched_ious": []}
    wild = lambda g, p: np.array([[np.nan, -1.0, 0.0], [0.0, 5.0, np.nan]])  # noqa: E731
    v = video_scores(GOLD, PRED, wild)   # NaN -> 0, clipped to [0, 1]: S = [[0, 0, 0], [0, .833333, 0]]
    assert v["soda_c"] == X(2 * 0.833333 / 5, abs=1e-6)
    with pytest.raises(ValueError, match="shape"):
        video_scores(GOLD, PRED, lambda g, p: np.zeros((1, 1)))


def test_soda_below_both_components():
    v = video_scores(GOLD, PRED, SIM)
    assert v["soda_c"] <= min(v["iou_f1"], v["sim_f1"])


def test_offline_similarities():
    assert tokens("A Forklift, moves!") == ["a", "forklift", "moves"]
    assert token_f1("a man is riding a horse", "a person rides a horse") == X(0.545455, abs=1e-6)
    assert token_f1("a forklift carries a pallet across the warehouse", "a forklift moves a pallet") == X(0.615385, abs=1e-6)
    assert token_f1("nothing happens", "a car turns left") == 0.0
    assert token_f1("", "x") == 0.0 and token_f1("a a", "a") == X(2 / 3)
    assert rouge_l("a b c d", "a c d") == X(2 * 0.75 * 1.0 / 1.75)
    assert rouge_l("a man is riding a horse", "a person rides a horse") == X(0.545455, abs=1e-6)
    assert rouge_l("a b", "b a") == X(0.5) and rouge_l("x", "y") == 0.0 and rouge_l("", "") == 0.0
    m = SIMILARITIES["token_f1"](["a b", "c"], ["a", "c", "d"])
    assert m.shape == (2, 3) and np.allclose(m, [[2 / 3, 0, 0], [0, 1, 0]])
    assert SIMILARITIES["rouge_l"]([], ["a"]).shape == (0, 1)
    assert get_similarity("rouge_l") is SIMILARITIES["rouge_l"]
    r = dense_captioning([([(0, 10, "a forklift moves")], [(0, 10, "a forklift moves")])])
    assert r["soda_c"] == 1.0 and r["sim_f1"] == 1.0 and r["iou_f1"] == 1.0
    assert dense_captioning([([(0, 10, "a b")], [(0, 5, "a c")])], similarity="rouge_l")["soda_c"] == X(0.25)


def test_missing_models_are_refused_never_a_constant(tmp_path):
    with pytest.raises(SimilarityUnavailable) as e:
        get_similarity("bertscore")
    assert str(e.value) == "BERTScore needs a local model: use bertscore_similarity(model_dir, num_layers)"
    with pytest.raises(SimilarityUnavailable) as e:
        dense_captioning([(GOLD, PRED)], similarity="meteor")
    assert str(e.value) == "METEOR is not available: it needs Java and pycocoevalcap, not installed here"
    with pytest.raises(ValueError, match="unknown caption similarity 'bleu'"):
        get_similarity("bleu")
    missing = tmp_path / "no-such-model"
    with pytest.raises(SimilarityUnavailable) as e:
        bertscore_similarity(missing, 6)
    assert str(e.value) == f"BERTScore model directory {str(missing)!r} does not exist"
    deep = tmp_path / ("a" * 100) / ("b" * 100) / ("c" * 100)
    with pytest.raises(SimilarityUnavailable) as e:
        bertscore_similarity(deep, 6)
    assert str(e.value) == f"BERTScore model directory {str(deep)[:200]!r} does not exist"
    with pytest.raises(SimilarityUnavailable, match="does not exist"):
        bertscore_similarity(tmp_path / ("x" * 300), 6)   # too long for the file system: not an OSError
    if "bert_score" not in sys.modules:
        with pytest.raises(SimilarityUnavailable) as e:
            bertscore_similarity(tmp_path, 6)   # the directory exists; the package is not installed here
        assert str(e.value) == "BERTScore needs the bert-score package (and torch), not installed"


class _FakeScorer:
    """Stands in for bert_score.BERTScorer, which needs torch and a model this machine lacks:
    F1 = token F1, so orientation and reshaping are checked against known values."""
    made: list = []

    def __init__(self, **kw):
        _FakeScorer.made.append(kw)

    def score(self, cands, refs):
        self.calls = (list(cands), list(refs))
        f = [token_f1(r, c) for c, r in zip(cands, refs)]
        return [0.0] * len(f), [0.0] * len(f), f


def test_bertscore_wiring_with_a_stand_in_package(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "bert_score", types.SimpleNamespace(BERTScorer=_FakeScorer))
    _FakeScorer.made.clear()
    sim = bertscore_similarity(tmp_path, "6")
    assert _FakeScorer.made == [{"model_type": str(tmp_path), "num_layers": 6, "lang": "en"}]
    m = sim(["a b", "c"], ["a", "c d", "x"])
    assert m.shape == (2, 3) and np.allclose(m, [[2 / 3, 0, 0], [0, 2 / 3, 0]])
    assert sim([], ["a"]).shape == (0, 1) and sim(["a"], []).shape == (1, 0)
    v = video_scores(GOLD, PRED, sim)
    assert v["soda_c"] == 0.0      # captions g0/g1 share no token with p0/p1/p2


def test_lcs_against_brute_force():
    rng = np.random.default_rng(3)
    for _ in range(80):
        a = list(rng.choice(list("abc"), int(rng.integers(0, 6))))
        b = list(rng.choice(list("abc"), int(rng.integers(0, 6))))
        best = 0
        for k in range(min(len(a), len(b)), 0, -1):
            subs = {tuple(c) for c in itertools.combinations(a, k)}
            if any(tuple(c) in subs for c in itertools.combinations(b, k)):
                best = k
                break
        expect = 0.0 if best == 0 else 2 * (best / len(a)) * (best / len(b)) / (best / len(a) + best / len(b))
        assert rouge_l(" ".join(a), " ".join(b)) == X(expect), (a, b)


def test_same_start_events_keep_their_order_in_the_dp():
    same = matrix(lambda g, p: float(g == p))
    gold = [(0, 10, "a"), (0, 4, "b")]
    pred = [(0, 4, "b"), (0, 10, "a")]
    # stable by start: rows (a, b), columns (b, a): the crossing pairs cannot both match
    assert video_scores(gold, pred, same)["soda_c"] == X(2 * 1.0 / 4)
    assert video_scores(gold, list(reversed(pred)), same)["soda_c"] == X(2 * 2.0 / 4)
    # sorted by start, not by end: (5, 6) comes after (1, 9)
    late = [(5, 6, "a"), (1, 9, "b")]
    assert video_scores(late, [(1, 9, "b"), (5, 6, "a")], same)["soda_c"] == X(2 * (1 + 1) / 4)
