"""Pinned values for scorers/realitybench_grading.py (App. D rules, hand arithmetic).

Every expected number below is worked out by hand from the rules in the module docstring and
RealityBench App. D, not by calling the code twice.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from scorers.answer_keys import KeySpec
from scorers.answers import ParsedAnswer
from scorers import realitybench_grading as g


def spec(name, type_, tolerance=None, options=(), scored_on="acceptable"):
    return KeySpec(name=name, type=type_, grammar="x", tolerance=tolerance, options=list(options),
                   scored_on=scored_on)


# ---------------------------------------------------------------- field scores

def test_normalize_text_keeps_only_upper_letters_and_digits():
    assert g.normalize_text("a-b 1.2_c!") == "AB12C"
    assert g.normalize_text("ＡＢ１") == "AB1"          # full-width forms fold under NFKC
    assert g.normalize_text("ﬁ") == "FI"               # NFKC ligature, then upper-case
    assert g.normalize_text(5) == ""
    assert g.normalize_text(None) == ""


def test_score_text_exact_after_normalisation():
    assert g.score_text("ab-12", "AB 12") == 1.0
    assert g.score_text("ab-13", "AB 12") == 0.0
    assert g.score_text(12, "12") == 0.0
    assert g.score_text("12", 12) == 0.0
    # a non-string is wrong even where both sides normalise to "" (punctuation-only or empty)
    assert g.score_text(5, "--") == 0.0
    assert g.score_text("", None) == 0.0
    assert g.score_text("--", "") == 1.0


@pytest.mark.parametrize("answer,truth,tol,want", [
    (10.125, 10.0, 0.125, 1.0),      # exactly 1/8 in off: inclusive
    (9.875, 10.0, 0.125, 1.0),
    (10.126, 10.0, 0.125, 0.0),      # just outside
    (9.874, 10.0, 0.125, 0.0),
    (10.25, 10.0, 0.25, 1.0),
    (10.2501, 10.0, 0.25, 0.0),
    (10.0, 10.0, None, 1.0),         # tolerance None = equal
    (10.001, 10.0, None, 0.0),
    (10, 10.0, None, 1.0),           # ints are numbers
    (True, 1.0, 0.5, 0.0),           # a bool is not a number
    (1.0, True, 0.5, 0.0),
    ("10", 10.0, 1.0, 0.0),
    (float("inf"), 10.0, 1e9, 0.0),
    (float("nan"), 10.0, 1e9, 0.0),
    (10.0, float("nan"), 1e9, 0.0),
    (10 ** 400, 10.0, 1e9, 0.0),     # int too large for a float: not a number
])
def test_score_number_tolerance_edges(answer, truth, tol, want):
    assert g.score_number(answer, truth, tol) == want


def test_score_number_float_slack_is_tiny():
    # 0.1 + 0.2 differs from 0.3 by 5.6e-17, inside the 1e-9 slack; 1e-6 is not.
    assert g.score_number(0.1 + 0.2, 0.3, None) == 1.0
    assert g.score_number(0.3 + 1e-6, 0.3, None) == 0.0
    assert g.score_number(0.3 + 1e-6, 0.3, 1e-6 - 5e-10) == 1.0
    assert g.score_number(0.3 + 1e-6, 0.3, 1e-6 - 5e-9) == 0.0
    assert g.FLOAT_SLACK == 1e-9
    # the edge itself, tolerance + slack, is inclusive: 1e-9 off with tolerance None is right
    assert g.score_number(1e-9, 0.0, None) == 1.0
    assert g.score_number(2e-9, 0.0, None) == 0.0


def test_score_enum_list_is_set_equality():
    assert g.score_enum_list(["rust", "dent"], ["dent", "rust"]) == 1.0
    assert g.score_enum_list(["rust", "rust", "dent"], ("dent", "rust")) == 1.0
    assert g.score_enum_list(["rust", "dent", "crack"], ["dent", "rust"]) == 0.0   # over-reporting
    assert g.score_enum_list(["rust"], ["dent", "rust"]) == 0.0                    # under-reporting
    assert g.score_enum_list([], []) == 1.0
    assert g.score_enum_list([], {"a"}) == 0.0
    assert g.score_enum_list("rust", ["rust"]) == 0.0
    assert g.score_enum_list(["rust"], "rust") == 0.0
    assert g.score_enum_list([["x"]], ["x"]) == 0.0     # unhashable member: wrong, no crash
    # a string is not a list even when its characters are the right set, on either side
    assert g.score_enum_list("ab", ["a", "b"]) == 0.0
    assert g.score_enum_list(["r"], "r") == 0.0
    assert g.score_enum_list(("a",), ["a"]) == 0.0     # a reply list is a JSON array, never a tuple


def test_score_entries_fraction_one_to_one():
    card = [{"name": "Kitchen", "amps": 20}, {"name": "Bath", "amps": 15},
            {"name": "Bath", "amps": 15}, {"name": "Dryer", "amps": 30}]
    # one Bath reply row can match only one of the two Bath card rows: 2 of 4
    reply = [{"name": "kitchen", "amps": 20.0}, {"name": "BATH", "amps": 15},
             {"name": "Dryer", "amps": 40}, {"name": "Extra", "amps": 5}]
    assert g.score_entries(reply, card) == 0.5
    reply2 = reply + [{"name": "bath", "amps": 15}, {"name": "dryer", "amps": 30}]
    assert g.score_entries(reply2, card) == 1.0        # extra rows are free
    assert g.score_entries([], card) == 0.0
    assert g.score_entries(None, card) == 0.0
    assert g.score_entries("x", []) == 1.0             # no card rows scores 1
    assert g.score_entries([], None) == 0.0
    # malformed rows match nothing
    bad = [{"name": "Kitchen", "amps": True}, {"name": 3, "amps": 15}, "Bath", {"amps": 30}]
    assert g.score_entries(bad, card) == 0.0
    assert g.score_entries(reply, [{"name": "Kitchen", "amps": 20}, {"name": "x", "amps": "y"}]) == 1.0
    # a non-finite amperage is not a number, so such a card row is not a row (an empty card scores 1)
    # and such a reply row matches nothing
    assert g.score_entries([], [{"name": "Main", "amps": float("inf")}]) == 1.0
    assert g.score_entries([{"name": "Main", "amps": float("inf")}],
                           [{"name": "Main", "amps": 100}]) == 0.0


def test_score_field_dispatches_on_type():
    assert g.score_field(spec("s", "string"), "ab", "AB") == 1.0
    assert g.score_field(spec("n", "number", 0.25), 1.25, 1.0) == 1.0
    assert g.score_field(spec("n", "number", 0.25), 1.3, 1.0) == 0.0
    assert g.score_field(spec("b", "bool"), True, True) == 1.0
    assert g.score_field(spec("b", "bool"), False, True) == 0.0
    assert g.score_field(spec("b", "bool"), 1, True) == 0.0
    assert g.score_field(spec("b", "bool"), True, 1) == 0.0
    assert g.score_field(spec("e", "enum", options=["a", "b"]), "a", "a") == 1.0
    assert g.score_field(spec("e", "enum", options=["a", "b"]), "b", "a") == 0.0
    assert g.score_field(spec("e", "enum", options=["a", "b"]), 1, 1) == 0.0
    assert g.score_field(spec("l", "enum_list", options=["a", "b"]), ["b", "a"], ["a", "b"]) == 1.0
    assert g.score_field(spec("l", "enum_list", options=["a", "b"]), ["a"], ["a", "b"]) == 0.0
    rows = [{"name": "A", "amps": 1}, {"name": "B", "amps": 2}]
    assert g.score_field(spec("r", "entries"), rows[:1], rows) == 0.5
    assert g.score_field(spec("s", "string"), None, "AB") == 0.0
    assert g.score_field(spec("r", "entries"), None, []) == 0.0   # missing answer is 0 even if card empty
    # a key type the grader does not know never gives credit (KeySpec validation normally stops it)
    odd = KeySpec.model_construct(name="o", type="rating", grammar="x", tolerance=None, options=[],
                                  scored_on="acceptable")
    assert g.score_field(odd, "a", "a") == 0.0


# ---------------------------------------------------------------- items

KEYS = [spec("reading", "number", 0.125), spec("tilted", "bool", scored_on="all"), spec("label", "string")]


def item(id_="f", verdict="accept", stratum="random", gray=False, truth=None, acc_scored=True, env="tape_gap"):
    return g.GradingItem(id=id_, env=env, stratum=stratum, scorer_verdict=verdict, gray=gray,
                         ground_truth={"reading": 10.0, "tilted": False, "label": "A1"} if truth is None else truth,
                         keys=KEYS, acceptability_scored=acc_scored)


def parsed(adequate=True, reading=10.0, tilted=False, label="a1", in_grammar=True):
    return ParsedAnswer(in_grammar=in_grammar, adequate=adequate,
                        fields={"reading": reading, "tilted": tilted, "label": label})


def test_grade_accepted_frame_scores_every_key_and_their_mean():
    r = g.grade_parsed(item(), parsed(reading=10.2))
    assert r.in_set and r.acceptability_scored
    assert r.field_scores == {"reading": 0.0, "tilted": 1.0, "label": 1.0}
    assert r.doc_score == pytest.approx(2 / 3)
    assert r.adequate is True and r.in_grammar is True


def test_grade_rejected_frame_scores_only_scored_on_all_keys_and_no_doc_score():
    r = g.grade_parsed(item(verdict="reject"), parsed(tilted=True))
    assert r.in_set
    assert r.field_scores == {"tilted": 0.0}
    assert r.doc_score is None


def test_grade_gray_and_unscored_frames_are_out_of_the_set():
    for it in (item(gray=True), item(verdict="unscored")):
        r = g.grade_parsed(it, parsed())
        assert not r.in_set and not r.acceptability_scored
        assert r.field_scores == {} and r.doc_score is None


def test_grade_missing_truth_is_not_scored_and_acceptability_flag_passes_through():
    r = g.grade_parsed(item(truth={"reading": 10.0, "tilted": None}, acc_scored=False), parsed())
    assert r.field_scores == {"reading": 1.0}
    assert r.doc_score == 1.0
    assert r.in_set and not r.acceptability_scored
    # a key without truth is skipped, the keys after it are still scored
    r = g.grade_parsed(item(truth={"reading": None, "tilted": False, "label": "A1"}), parsed(label="b2"))
    assert r.field_scores == {"tilted": 1.0, "label": 0.0} and r.doc_score == 0.5


def test_grade_item_strict_parse_and_errors():
    reply = '{"adequate": true, "reading": 10.125, "tilted": false, "label": "A-1"}'
    r = g.grade_item(item(), reply)
    assert r.in_grammar and r.lenient_in_grammar and r.errors == []
    assert r.doc_score == 1.0
    fenced = "```json\n" + reply + "\n```"
    r2 = g.grade_item(item(), fenced)
    assert not r2.in_grammar and r2.lenient_in_grammar
    assert r2.adequate is None and r2.doc_score == 0.0
    assert r2.errors and r2.errors[0].startswith("strict:")


def test_always_accept_baseline():
    out = g.always_accept_grades([item("a"), item("b", verdict="reject")])
    assert [x.adequate for x in out] == [True, True]
    assert [x.in_grammar for x in out] == [False, False]
    assert out[0].doc_score == 0.0 and out[0].field_scores == {"reading": 0.0, "tilted": 0.0, "label": 0.0}
    assert out[1].field_scores == {"tilted": 0.0}
    assert out[0].errors == ["baseline: fields unanswered"]


# ---------------------------------------------------------------- set metrics

def _grade(stratum, verdict, adequate, doc=None, in_grammar=True, acc=True, in_set=True, env="e", fs=None):
    return g.ItemGrade(id="x", env=env, stratum=stratum, scorer_verdict=verdict, in_set=in_set,
                       acceptability_scored=acc and in_set, adequate=adequate, in_grammar=in_grammar,
                       lenient_in_grammar=in_grammar, field_scores=fs or {}, doc_score=doc)


def worked_set():
    """10 frames. Hand counts:

    random rejected (acc-scored): #0 no, #1 yes, #2 None -> FA = 2/3 (None counts as not rejecting)
    accepted, all strata: #3 yes, #4 no, #5 None (random), #6 yes, #7 yes (positive) -> miss = 2/5, recall 3/5
    precision: random & says yes = #1, #3 -> 1 of 2 accepted -> 1/2
    F1 = 2*(.5*.6)/(1.1) = 6/11
    #8: random accepted, acceptability_scored False, says no -> only documentation
    #9: gray (not in set), says yes
    doc: #3 .5, #4 1, #5 0, #6 1, #7 .25, #8 .75 -> mean 3.5/6
    in grammar: in-set #0..#8 = 9, out of grammar #2, #5 -> 7/9
    """
    return [
        _grade("random", "reject", False),
        _grade("random", "reject", True),
        _grade("random", "reject", None, in_grammar=False),
        _grade("random", "accept", True, doc=0.5),
        _grade("random", "accept", False, doc=1.0),
        _grade("random", "accept", None, doc=0.0, in_grammar=False),
        _grade("positive", "accept", True, doc=1.0),
        _grade("positive", "accept", True, doc=0.25),
        _grade("random", "accept", False, doc=0.75, acc=False),
        _grade("random", "accept", True, in_set=False, in_grammar=False),
    ]


def test_set_metrics_worked_example():
    m = g.set_metrics(worked_set())
    a = m.acceptability
    assert a.false_accept_rate == pytest.approx(2 / 3)
    assert a.miss_rate == pytest.approx(2 / 5)
    assert a.recall == pytest.approx(3 / 5)
    assert a.precision == pytest.approx(1 / 2)
    assert a.f1 == pytest.approx(6 / 11)
    assert (a.n_acceptability, a.n_rejected_random, a.n_acceptable, a.n_accepted_random) == (8, 3, 5, 2)
    assert m.doc_score == pytest.approx(3.5 / 6)
    assert m.in_grammar == pytest.approx(7 / 9)
    assert m.n_in_set == 9 and m.n_doc_frames == 6
    assert g.documentation_score(worked_set()) == pytest.approx(3.5 / 6)
    assert g.in_grammar_fraction(worked_set()) == pytest.approx(7 / 9)
    assert g.acceptability_metrics(worked_set()) == a


def test_metrics_undefined_and_zero_f1():
    assert g.acceptability_metrics([]).f1 is None
    assert g.documentation_score([]) is None
    assert g.in_grammar_fraction([]) is None
    # precision 0 and recall 0 -> F1 0, not None
    zero = [_grade("random", "reject", True), _grade("random", "accept", False)]
    a = g.acceptability_metrics(zero)
    assert a.precision == 0.0 and a.recall == 0.0 and a.f1 == 0.0
    assert a.false_accept_rate == 1.0 and a.miss_rate == 1.0
    # no model accepts -> precision undefined -> F1 undefined
    none_yes = [_grade("random", "accept", False), _grade("random", "reject", False)]
    b = g.acceptability_metrics(none_yes)
    assert b.precision is None and b.f1 is None and b.recall == 0.0 and b.false_accept_rate == 0.0
    # no accepted frame -> miss undefined
    c = g.acceptability_metrics([_grade("random", "reject", False)])
    assert c.miss_rate is None and c.recall is None and c.f1 is None


def test_field_scores_mean_per_env_and_key_sorted():
    gs = [_grade("random", "accept", True, env="b", fs={"k": 1.0}),
          _grade("random", "accept", True, env="a", fs={"k": 0.0, "j": 0.5}),
          _grade("random", "accept", True, env="a", fs={"k": 1.0})]
    fs = g.field_scores(gs)
    assert fs == {("a", "j"): 0.5, ("a", "k"): 0.5, ("b", "k"): 1.0}
    assert list(fs) == [("a", "j"), ("a", "k"), ("b", "k")]
    assert g.set_metrics(gs).field_scores == {"a/j": 0.5, "a/k": 0.5, "b/k": 1.0}


def test_bootstrap_strata_and_statistic_on_resample():
    gs = worked_set()
    gs[6] = gs[6].model_copy(update={"env": "tape"})
    strata = g.bootstrap_strata(gs)
    assert strata[0] == "random" and strata[6] == "positive/tape" and strata[7] == "positive/e"
    f = g.statistic(gs, "false_accept_rate")
    assert f(np.arange(10)) == pytest.approx(2 / 3)
    assert f([0, 0, 1]) == pytest.approx(1 / 3)        # a resample with repeats
    assert math.isnan(f([3, 4]))                       # no rejected frame -> NaN
    assert g.statistic(gs, "n_in_set")([0, 9, 9]) == 1.0
    with pytest.raises(KeyError, match="nope"):
        g.statistic(gs, "nope")
    # an empty resample (a plain list, as a caller may pass) has every rate undefined
    assert math.isnan(f([])) and g.statistic(gs, "n_in_set")([]) == 0.0
