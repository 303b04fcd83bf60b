"""Pinned values for scorers/realitybench_metrics.py: a six-frame set graded by hand, the shared
bootstrap stream against scorers.stats, paired differences, top groups, cost notes, Fig. 3 skills."""
from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from scorers import realitybench_grading as g
from scorers import realitybench_metrics as rm
from scorers.answer_keys import KeySpec
from scorers.cost import Price, Usage
from scorers.realitybench_inputs import Predictions, ReportError
from scorers.stats import paired_bootstrap, stratified_bootstrap

KEYS = [KeySpec(name="reading_in", type="number", grammar="n", tolerance=0.125),
        KeySpec(name="ok", type="bool", grammar="b")]


def it(i, verdict="accept", stratum="random", gray=False, env="tape_gap"):
    return g.GradingItem(id=i, env=env, stratum=stratum, scorer_verdict=verdict, gray=gray,
                         ground_truth={"reading_in": 2.0, "ok": True}, keys=KEYS)


ITEMS = [it("a"), it("b"), it("c", "reject"), it("d", "reject"), it("e", stratum="positive"),
         it("g", gray=True), it("u", "unscored")]


def reply(adequate, reading=2.0, ok=True):
    return json.dumps({"adequate": adequate, "reading_in": reading, "ok": ok})


def preds(name, replies, path=None, usage=None, **kw):
    return Predictions(path=Path(path or f"/x/{name}.jsonl"), model=name, replies=replies, usage=usage or {}, **kw)


# model "good": a accept (doc 1), b accept (reading off: doc .5), c reject, d accept (false accept), e accept (doc 1)
GOOD = {"a": reply(True), "b": reply(True, 2.2), "c": reply(False), "d": reply(True), "e": reply(True),
        "zz": reply(True)}
# model "bad": a missing, b prose, c accept, d accept, e reject (doc 1 since fields right), u answered
BAD = {"b": "I think it is fine", "c": reply(True), "d": reply(True), "e": reply(False), "u": reply(True),
       "g": None}


def test_field_skill_and_constants():
    assert rm.field_skill("tape_gap/reading_in", "number") == "measurement"
    assert rm.field_skill("tape_gap/gap_in", "number") == "measurement"
    assert rm.field_skill("slope_gauge/angle", "number") == "reading"
    assert rm.field_skill("x/y", "string") == "reading"
    for t in ("bool", "enum", "enum_list"):
        assert rm.field_skill("x/y", t) == "judgment"
    assert rm.field_skill("x/y", "entries") == "reading"
    assert rm.BASELINE == "always-accept" and rm.CONFIDENCE == 0.95
    assert rm.PAIRED_METRICS == ("f1", "doc_score")
    assert rm.SKILL_ORDER == ("reading", "judgment", "measurement")


def test_cost_frontier():
    pts = [(3.0, 0.5), (1.0, 0.4), (2.0, 0.4), (2.0, 0.6), (5.0, 0.6), (4.0, 0.9), (1.0, 0.3)]
    assert rm.cost_frontier(pts) == [(1.0, 0.4), (2.0, 0.6), (4.0, 0.9)]
    assert rm.cost_frontier([]) == []
    assert rm.cost_frontier([(0.0, -1.0)]) == [(0.0, -1.0)]


def test_unique_names():
    a, b = preds("m", {}, "/d1/one.jsonl"), preds("m", {}, "/d2/two.jsonl")
    rm._unique_names([a, b, preds("k", {})])
    assert (a.model, b.model) == ("one", "two")
    with pytest.raises(ReportError, match="two prediction files for model 'same'"):
        rm._unique_names([preds("m", {}, "/a/same.jsonl"), preds("m", {}, "/b/same.jsonl")])
    with pytest.raises(ReportError, match="reserved"):
        rm._unique_names([preds("always-accept", {})])


def test_score_point_metrics_by_hand():
    res = rm.score_result(ITEMS, [preds("good", GOOD), preds("bad", BAD)], {}, n_ci=50, n_paired=80, seed=3)
    m = res.metrics.model_dump()
    d = m["dataset"]
    assert d["frames"] == 7 and d["in_set"] == 5 and d["excluded_gray"] == 1 and d["excluded_unscored"] == 1
    assert d["scorer_verdicts"] == {"accept": 4, "reject": 2, "unscored": 1}
    assert d["environments"]["tape_gap"] == {"frames": 7, "gray": 1, "unscored": 1, "in_set": 5,
                                             "acceptability_scored": 5, "random": 6, "positive": 1}
    good = m["models"]["good"]["metrics"]
    # FA: random rejected c (no), d (yes) -> 1/2 ; miss over a, b, e: 0 ; precision: random yes a, b, d -> 2/3
    assert good["false_accept_rate"]["estimate"] == pytest.approx(0.5)
    assert good["miss_rate"]["estimate"] == 0.0 and good["recall"]["estimate"] == 1.0
    assert good["precision"]["estimate"] == pytest.approx(2 / 3)
    assert good["f1"]["estimate"] == pytest.approx(0.8)
    assert good["doc_score"]["estimate"] == pytest.approx((1 + 0.5 + 1) / 3)
    assert good["in_grammar"]["estimate"] == 1.0
    bad = m["models"]["bad"]["metrics"]
    # FA: c yes, d yes -> 1 ; miss: a missing, b prose, e no -> 1 ; precision: random yes c, d, none right -> 0
    assert bad["false_accept_rate"]["estimate"] == 1.0 and bad["miss_rate"]["estimate"] == 1.0
    assert bad["precision"]["estimate"] == 0.0 and bad["f1"]["estimate"] == 0.0
    assert bad["doc_score"]["estimate"] == pytest.approx(1 / 3)        # a 0, b 0, e 1
    assert bad["in_grammar"]["estimate"] == pytest.approx(3 / 5)
    assert m["models"]["good"]["counts"] == {"n_rejected_random": 2, "n_acceptable": 3, "n_accepted_random": 3,
                                             "n_doc_frames": 3, "n_acceptability": 5, "n_in_set": 5}
    assert m["models"]["bad"]["lenient_in_grammar"] == pytest.approx(3 / 5)
    assert m["models"]["good"]["field_scores"] == {"tape_gap/ok": 1.0, "tape_gap/reading_in": pytest.approx(2 / 3)}
    assert m["models"]["good"]["field_n"] == {"tape_gap/ok": 3, "tape_gap/reading_in": 3}
    assert m["models"]["good"]["per_env"]["tape_gap"]["f1"] == pytest.approx(0.8)
    assert m["models"]["good"]["per_env"]["tape_gap"]["n_in_set"] == 5
    info = m["models"]["bad"]["predictions"]
    assert (info["matched"], info["missing"], info["missing_ids"], info["unknown"]) == (4, 1, ["a"], 0)
    assert m["models"]["good"]["predictions"]["unknown_ids"] == ["zz"]
    base = m["baseline"]["always-accept"]["metrics"]
    assert base["false_accept_rate"]["estimate"] == 1.0 and base["miss_rate"]["estimate"] == 0.0
    assert base["precision"]["estimate"] == pytest.approx(2 / 4) and base["doc_score"]["estimate"] == 0.0
    assert base["in_grammar"]["estimate"] == 0.0
    assert m["fields"] == {"tape_gap/ok": {"skill": "judgment", "type": "bool"},
                           "tape_gap/reading_in": {"skill": "measurement", "type": "number"}}
    assert m["model_order"] == ["good", "bad"]
    assert m["settings"]["n_resamples_ci"] == 50 and m["settings"]["n_resamples_paired"] == 80
    assert m["settings"]["seed"] == 3


def test_intervals_match_the_stats_module_streams():
    """The shared stream equals stratified_bootstrap(seed) for CIs and paired_bootstrap(seed) for differences."""
    p_good, p_bad = preds("good", GOOD), preds("bad", BAD)
    res = rm.score_result(ITEMS, [p_good, p_bad], {}, n_ci=60, n_paired=90, seed=5).metrics.model_dump()
    in_set = [x for x in ITEMS if not x.gray and x.scorer_verdict != "unscored"]
    strata = g.bootstrap_strata(g.always_accept_grades(in_set))
    gg = [g.grade_item(x, GOOD.get(x.id)) for x in in_set]
    gb = [g.grade_item(x, BAD.get(x.id)) for x in in_set]
    for metric in ("doc_score", "false_accept_rate", "in_grammar"):
        ci = stratified_bootstrap(g.statistic(gg, metric), strata, n_resamples=60, seed=5)
        got = res["models"]["good"]["metrics"][metric]
        assert (got["low"], got["high"], got["n_undefined"]) == (pytest.approx(ci.low), pytest.approx(ci.high),
                                                                   ci.n_undefined)
    pd = paired_bootstrap(g.statistic(gg, "doc_score"), g.statistic(gb, "doc_score"), strata, n_resamples=90, seed=5)
    got = res["paired_differences"]["doc_score"]["good - bad"]
    assert got["low"] == pytest.approx(pd.low) and got["high"] == pytest.approx(pd.high)
    assert got["estimate"] == pytest.approx(2.5 / 3 - 1 / 3) and got["excludes_zero"] == pd.excludes_zero
    assert got["a"] == "good" and got["b"] == "bad"
    f1 = res["paired_differences"]["f1"]["good - bad"]
    assert f1["estimate"] == pytest.approx(0.8)


def test_top_group_rules():
    paired = {"a - b": {"low": -0.1, "excludes_zero": False}, "a - c": {"low": 0.2, "excludes_zero": True},
              "d - a": {"low": None, "excludes_zero": False}}
    est = {"a": 0.9, "b": 0.8, "c": 0.1, "d": 0.85, "e": None}
    assert rm._top_group(paired, est, "f1", ["b", "a", "c", "d", "e"]) == {"leader": "a", "members": ["a", "b"]}
    assert rm._top_group({}, {"x": None}, "f1", ["x"]) == {"leader": None, "members": []}
    # a tie goes to the model listed first
    assert rm._top_group({}, {"x": 0.5, "y": 0.5}, "f1", ["y", "x"])["leader"] == "y"
    paired2 = {"b - a": {"low": -0.3, "excludes_zero": False}}
    assert rm._top_group(paired2, {"a": 0.9, "b": 0.8}, "f1", ["a", "b"])["members"] == ["a", "b"]


def test_cost_block_notes():
    u = {"a": Usage(prompt_tokens=100, output_tokens=10), "b": Usage(prompt_tokens=300, thinking_tokens=30)}
    prices = {"m": Price(input=1.0, output=2.0, per_tokens=100, source="s"), "free": Price()}
    c = rm._cost(preds("m", {}, usage=u), ["a", "b"], prices)
    assert c["cost"] == pytest.approx((400 * 1 + 40 * 2) / 100) and c["n_with_usage"] == 2 and c["n_set"] == 2
    assert c["priced"] is True and "note" not in c
    assert c["price"] == {"input": 1.0, "output": 2.0, "per_tokens": 100, "source": "s"}
    part = rm._cost(preds("m", {}, usage=u), ["a", "b", "c"], prices)
    assert part["note"] == "usage recorded for 2 of 3 frames; cost covers those only"
    none = rm._cost(preds("m", {}, usage={}), ["a"], prices)
    assert none["cost"] is None and none["note"] == "no token usage in the predictions file"
    unl = rm._cost(preds("zz", {}, usage=u), ["a"], prices)
    assert unl["cost"] is None and unl["priced"] is False and unl["price"] is None
    assert unl["note"] == "no price in the price table"
    nul = rm._cost(preds("free", {}, usage=u), ["a"], prices)
    assert nul["note"] == "unpriced (null price)" and nul["priced"] is False
    only_set = rm._cost(preds("m", {}, usage=u), ["a"], prices)
    assert only_set["prompt_tokens"] == 100 and only_set["n_with_usage"] == 1


def test_warnings_lines():
    p = preds("bad", {**BAD, "x1": "r", "x2": "r", "x3": "r", "x4": "r", "c": 5}, path="/w/bad.jsonl",
              torn_last_line=True, unreadable_lines=[3, 4, 5, 6, 7, 9], duplicate_ids=["c", "c"],
              model_names=["bad", "other"], invalid_utf8_lines=[2])
    w = rm.score_result(ITEMS, [p], {}, n_ci=5, n_paired=5).warnings
    assert w == ["/w/bad.jsonl: torn last line ignored",
                 "/w/bad.jsonl: 6 unreadable line(s) skipped (line 3, 4, 5, 6, 7)",
                 "/w/bad.jsonl: 4 id(s) not in the dataset ignored (e.g. x1, x2, x3)",
                 "/w/bad.jsonl: 1 of 5 frame(s) have no line (scored wrong)",
                 "/w/bad.jsonl: 2 repeated id(s); the last line of each counts",
                 "/w/bad.jsonl: 1 reply value(s) are not text (scored out of grammar)",
                 "/w/bad.jsonl: several `model` values ['bad', 'other']; using 'bad'",
                 "/w/bad.jsonl: 1 line(s) with invalid UTF-8, read with U+FFFD (line 2)"]
    nul = preds("n", {"a": None, "b": reply(True), "c": reply(True), "d": reply(True), "e": reply(True)})
    w2 = rm.score_result(ITEMS, [nul], {}, n_ci=5, n_paired=5).warnings
    assert w2 == ["/x/n.jsonl: 1 frame(s) have a null reply, e.g. a request error (scored wrong)"]
    m = rm.score_result(ITEMS, [nul], {}, n_ci=5, n_paired=5).metrics.model_dump()
    assert m["models"]["n"]["predictions"]["null_replies"] == 1


def test_score_returns_dump_and_warnings():
    d, w = rm.score(ITEMS, [preds("good", GOOD)], {}, n_ci=10, n_paired=10, dataset="ds", prices_path="p.yaml")
    assert d["dataset"]["path"] == "ds" and d["settings"]["prices"] == "p.yaml"
    assert w == ["/x/good.jsonl: 1 id(s) not in the dataset ignored (e.g. zz)"]
    assert d["top_group"]["f1"] == {"leader": "good", "members": ["good"]}
    assert d["paired_differences"] == {"f1": {}, "doc_score": {}}


# --- pins added for the live mutation run's survivors (issue 16) ---

def test_none_maps_nan_and_none_to_none():
    assert rm._none(None) is None
    assert rm._none(float("nan")) is None
    v = rm._none(1)
    assert v == 1.0 and isinstance(v, float)
    assert rm._none(0.25) == 0.25


def test_cost_frontier_equal_score_at_higher_cost_is_not_on_the_frontier():
    # (2.0, 0.5) is not strictly better than the cheaper (1.0, 0.5): off the frontier
    assert rm.cost_frontier([(2.0, 0.5), (1.0, 0.5)]) == [(1.0, 0.5)]
    assert rm.cost_frontier([(1.0, 0.5), (2.0, 0.5000001)]) == [(1.0, 0.5), (2.0, 0.5000001)]


def test_cost_thinking_not_derivable_note():
    prices = {"m": Price(input=1.0, output=2.0, per_tokens=100, source="s")}
    u = {"a": Usage(prompt_tokens=100, output_tokens=10),
         "b": Usage(prompt_tokens=300, output_tokens=50, single_count=True)}
    tail = "thinking not derivable for 1 of 2 frames (one output count; score --reply-tokenizer splits it)"
    alone = rm._cost(preds("m", {}, usage=u), ["a", "b"], prices)
    assert alone["note"] == tail
    both = rm._cost(preds("m", {}, usage=u), ["a", "b", "c"], prices)
    assert both["note"] == "usage recorded for 2 of 3 frames; cost covers those only; " + tail


def test_defaults_and_settings_strings(monkeypatch):
    # the defaults are read from the settings record; the stream is cut to its first 4 resamples so the
    # 1,000/2,000-resample defaults cost no time (the intervals are pinned by the tests above)
    real = rm._resamples
    monkeypatch.setattr(rm, "_resamples", lambda groups, n, rng: itertools.islice(real(groups, n, rng), 4))
    r = rm.score_result(ITEMS, [preds("good", GOOD)], {})
    s = r.metrics.model_dump()["settings"]
    assert s == {"seed": 0, "confidence": 0.95, "n_resamples_ci": 1000, "n_resamples_paired": 2000,
                 "bootstrap": "stratified: random frames together, each environment's positive stratum apart",
                 "prices": "", "grading": "strict parse (App. C); missing or malformed reply = wrong"}
    assert r.metrics.model_dump()["dataset"]["path"] == ""
    d, _ = rm.score(ITEMS, [preds("good", GOOD)], {})
    assert (d["settings"]["seed"], d["settings"]["n_resamples_ci"], d["settings"]["n_resamples_paired"]) == (0, 1000,
                                                                                                            2000)
    assert d["settings"]["prices"] == "" and d["dataset"]["path"] == ""
    monkeypatch.undo()
    d2, _ = rm.score(ITEMS, [preds("good", GOOD)], {}, seed=4, n_ci=6, n_paired=8)
    assert (d2["settings"]["seed"], d2["settings"]["n_resamples_ci"], d2["settings"]["n_resamples_paired"]) == (4, 6, 8)
    # the seed reaches the stream: seed 4's interval is stratified_bootstrap(seed=4)'s
    in_set = [x for x in ITEMS if not x.gray and x.scorer_verdict != "unscored"]
    strata = g.bootstrap_strata(g.always_accept_grades(in_set))
    gg = [g.grade_item(x, GOOD.get(x.id)) for x in in_set]
    ci = stratified_bootstrap(g.statistic(gg, "doc_score"), strata, n_resamples=6, seed=4)
    got = d2["models"]["good"]["metrics"]["doc_score"]
    assert (got["low"], got["high"]) == (pytest.approx(ci.low), pytest.approx(ci.high))


def test_prediction_lists_keep_twenty_ids():
    items = [it(f"f{i:02d}") for i in range(22)]
    unknown = {f"u{i:02d}": reply(True) for i in range(22)}
    dups = [f"f{i:02d}" for i in range(22)] * 2
    p = preds("m", unknown, path="/p/m.jsonl", duplicate_ids=dups, unreadable_lines=list(range(1, 23)))
    info = rm.score_result(items, [p], {}, n_ci=3, n_paired=3).metrics.model_dump()["models"]["m"]["predictions"]
    assert info["file"] == "/p/m.jsonl"
    assert info["missing"] == 22 and info["missing_ids"] == [f"f{i:02d}" for i in range(20)]
    assert info["unknown"] == 22 and info["unknown_ids"] == [f"u{i:02d}" for i in range(20)]
    assert info["n_duplicates"] == 44 and info["duplicate_ids"] == [f"f{i:02d}" for i in range(20)]
    assert info["n_unreadable_lines"] == 22 and info["unreadable_lines"] == list(range(1, 21))


def test_cut_by_cap_and_thinking_errors_in_set_only():
    p = preds("m", GOOD, path="/c/m.jsonl", cut_by_cap={"a", "c", "zz", "u"}, model_names=["m"],
              thinking_errors=["b: count 3: below the reply's 5 tokens", "zz: not in the data set", "u: unscored",
                               "d: the reply is not text, so its tokens cannot be counted"],
              invalid_utf8_lines=[2, 3, 4, 5, 6, 7])
    r = rm.score_result(ITEMS, [p], {}, n_ci=3, n_paired=3)
    info = r.metrics.model_dump()["models"]["m"]["predictions"]
    assert info["replies_cut_by_cap"] == 2          # a and c; zz is unknown, u is unscored
    assert info["thinking_errors"] == ["b: count 3: below the reply's 5 tokens",
                                       "d: the reply is not text, so its tokens cannot be counted"]
    assert r.warnings == [
        "/c/m.jsonl: 2 reply(ies) cut by the output cap (finish_reason \"length\"; scored as given: "
        "raise --max-tokens to avoid it)",
        "/c/m.jsonl: thinking not derived for b: count 3: below the reply's 5 tokens",
        "/c/m.jsonl: thinking not derived for d: the reply is not text, so its tokens cannot be counted",
        "/c/m.jsonl: 1 id(s) not in the dataset ignored (e.g. zz)",
        "/c/m.jsonl: 6 line(s) with invalid UTF-8, read with U+FFFD (line 2, 3, 4, 5, 6)"]


def test_empty_set_has_no_lenient_fraction():
    items = [it("a", gray=True), it("u", "unscored")]
    m = rm.score_result(items, [preds("m", {"a": reply(True)})], {}, n_ci=3, n_paired=3).metrics.model_dump()
    assert m["models"]["m"]["lenient_in_grammar"] is None
    assert m["dataset"]["in_set"] == 0


def test_identical_models_interval_is_zero_and_does_not_exclude_it():
    # every resample gives the same value to both: the difference is 0 on all of them, low = high = 0
    m = rm.score_result(ITEMS, [preds("good", GOOD), preds("twin", dict(GOOD))], {}, n_ci=20,
                        n_paired=30).metrics.model_dump()
    for metric in ("f1", "doc_score"):
        d = m["paired_differences"][metric]["good - twin"]
        assert (d["estimate"], d["low"], d["high"]) == (0.0, 0.0, 0.0)
        assert d["excludes_zero"] is False
        assert m["top_group"][metric] == {"leader": "good", "members": ["good", "twin"]}


def test_undefined_f1_gives_no_difference():
    # "no" says inadequate to every frame: no random frame accepted, precision and so F1 undefined (None)
    no = {i: reply(False) for i in "abcde"}
    m = rm.score_result(ITEMS, [preds("good", GOOD), preds("no", no)], {}, n_ci=20,
                        n_paired=30).metrics.model_dump()
    assert m["models"]["no"]["metrics"]["f1"]["estimate"] is None
    d = m["paired_differences"]["f1"]["good - no"]
    assert d["estimate"] is None and d["low"] is None and d["high"] is None and d["n_undefined"] == 30
    assert d["excludes_zero"] is False
    m2 = rm.score_result(ITEMS, [preds("no", no), preds("good", GOOD)], {}, n_ci=5,
                         n_paired=5).metrics.model_dump()
    assert m2["paired_differences"]["f1"]["no - good"]["estimate"] is None
    assert m["top_group"]["f1"] == {"leader": "good", "members": ["good"]}


def test_environment_acceptability_counts_per_env():
    items = [it("a"), it("b", env="car_plate"), it("c", env="car_plate")]
    items[2] = items[2].model_copy(update={"acceptability_scored": False})
    m = rm.score_result(items, [preds("m", {"a": reply(True)})], {}, n_ci=3, n_paired=3).metrics.model_dump()
    envs = m["dataset"]["environments"]
    assert envs["tape_gap"]["acceptability_scored"] == 1 and envs["tape_gap"]["in_set"] == 1
    assert envs["car_plate"]["acceptability_scored"] == 1 and envs["car_plate"]["in_set"] == 2
