"""RealityBench grading rules as properties (App. C/D), on the real key specs of the prompts.

* damage kinds (enum_list): set equality, no partial credit: over-reporting (a strict
  superset of the true kinds) and under-reporting both score 0;
* a malformed reply (not exactly one JSON object: prose, a code fence, a truncated or
  doubled object, NaN, a duplicate key) is wrong everywhere: every field scores 0 and its
  verdict is neither an accept nor a reject, so it counts as a miss on a scorer-accepted
  frame and as a false accept on a scorer-rejected one, even when the JSON inside it holds
  the right answer.
"""
from __future__ import annotations

import json
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packagers.prompts import get_prompt
from scorers.realitybench_grading import (
    GradingItem, acceptability_metrics, grade_item, score_enum_list, score_field,
)

DAMAGE = get_prompt("damage_view").keys
TAPE = get_prompt("tape_gap").keys
KINDS = ("dent", "scratch", "rust")
SUBSETS = [list(c) for n in range(1, 4) for c in combinations(KINDS, n)]


def damage_item(kinds, verdict="accept", severity="moderate") -> GradingItem:
    return GradingItem(id="d1", env="damage_view", stratum="random", scorer_verdict=verdict,
                       ground_truth={"damage_types": list(kinds), "severity": severity}, keys=DAMAGE)


def damage_reply(kinds, severity="moderate", adequate=True) -> str:
    return json.dumps({"adequate": adequate, "damage_types": list(kinds), "severity": severity})


# ---------------------------------------------------------------- damage kinds


def test_damage_key_spec_is_an_enum_list_of_the_three_kinds():
    spec = {k.name: k for k in DAMAGE}["damage_types"]
    assert spec.type == "enum_list" and tuple(spec.options) == KINDS


@pytest.mark.parametrize("truth", SUBSETS)
@pytest.mark.parametrize("answer", SUBSETS)
def test_damage_kinds_score_one_only_for_the_same_set(truth, answer):
    spec = {k.name: k for k in DAMAGE}["damage_types"]
    want = 1.0 if set(answer) == set(truth) else 0.0
    assert score_field(spec, answer, truth) == want
    g = grade_item(damage_item(truth), damage_reply(answer))
    assert g.in_grammar and g.field_scores == {"damage_types": want, "severity": 1.0}
    assert g.doc_score == pytest.approx((want + 1.0) / 2)


def test_over_reporting_damage_gets_no_credit():
    """Worked example: truth dent; 'dent, scratch' and 'every kind' are wrong, 'dent' is right."""
    assert grade_item(damage_item(["dent"]), damage_reply(["dent", "scratch"])).field_scores["damage_types"] == 0.0
    assert grade_item(damage_item(["dent"]), damage_reply(list(KINDS))).field_scores["damage_types"] == 0.0
    assert grade_item(damage_item(["dent", "rust"]), damage_reply(["rust"])).field_scores["damage_types"] == 0.0
    assert grade_item(damage_item(["dent", "rust"]), damage_reply(["rust", "dent", "rust"])).field_scores[
        "damage_types"] == 1.0
    # a model that always lists every kind scores only on the frames that have every kind
    grades = [grade_item(damage_item(t), damage_reply(list(KINDS), severity="minor")) for t in SUBSETS]
    assert sum(g.field_scores["damage_types"] for g in grades) == 1.0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(KINDS), min_size=1, max_size=6), st.lists(st.sampled_from(KINDS), max_size=6))
def test_enum_list_is_set_equality(truth, answer):
    assert score_enum_list(answer, truth) == float(set(answer) == set(truth))
    if set(answer) > set(truth) or set(answer) < set(truth):
        assert score_enum_list(answer, truth) == 0.0


# ---------------------------------------------------------------- malformed replies


RIGHT = {"adequate": True, "reading_in": 3.5, "gap_in": 3.0, "tilted": False}
TRUTH = {"reading_in": 3.5, "gap_in": 3.0, "tilted": False}


def tape_item(verdict: str, i: int = 0) -> GradingItem:
    return GradingItem(id=f"t{i}", env="tape_gap", stratum="random", scorer_verdict=verdict,
                       ground_truth=dict(TRUTH), keys=TAPE)


def _wrappings(obj: dict):
    """Ways to break the 'exactly one JSON object' grammar around a reply's object."""
    txt = json.dumps(obj)
    prose = st.text(alphabet="abcdefghij .:,!?\n", min_size=1, max_size=30).filter(lambda s: s.strip())
    return st.one_of(
        prose.map(lambda p: p + " " + txt),                                     # prose before
        prose.map(lambda p: txt + "\n" + p),                                     # prose after
        st.sampled_from(["```json\n" + txt + "\n```", "```\n" + txt + "\n```"]),  # a code fence
        st.integers(1, len(txt) - 1).map(lambda n: txt[:n]),                     # truncated
        st.just(txt + txt),                                                      # two objects
        st.just(txt[:-1] + ', "tilted": false}'),                               # a duplicate key
        st.just(txt.replace("3.5", "NaN")),                                      # not JSON
        st.just("[" + txt + "]"),                                                # not an object
        st.just(json.dumps(txt)),                                                # a JSON string
    )


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_malformed_reply_with_the_right_content_scores_as_wrong(data):
    reply = data.draw(_wrappings(RIGHT))
    acc, rej = grade_item(tape_item("accept"), reply), grade_item(tape_item("reject", 1), reply)
    for g in (acc, rej):
        assert not g.in_grammar and g.adequate is None
        assert all(v == 0.0 for v in g.field_scores.values())
    assert acc.field_scores == {"reading_in": 0.0, "gap_in": 0.0, "tilted": 0.0} and acc.doc_score == 0.0
    assert rej.field_scores == {"tilted": 0.0} and rej.doc_score is None  # App. D: accepted frames only
    m = acceptability_metrics([acc, rej])
    assert m.miss_rate == 1.0 and m.false_accept_rate == 1.0 and m.precision is None
    # the same content in grammar is right on both frames
    ok = json.dumps(RIGHT)
    assert grade_item(tape_item("accept"), ok).doc_score == 1.0
    assert acceptability_metrics([grade_item(tape_item("accept"), ok)]).miss_rate == 0.0


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_that_is_not_one_object_scores_zero(text):
    try:
        is_object = isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        is_object = False
    g = grade_item(tape_item("accept"), text)
    if not is_object:
        assert not g.in_grammar and g.adequate is None and g.doc_score == 0.0
        assert acceptability_metrics([g]).miss_rate == 1.0


def test_huge_reply_scores_as_wrong():
    huge = json.dumps(RIGHT | {"note": "x" * 100_000})
    g = grade_item(tape_item("accept"), huge)
    assert not g.in_grammar and g.adequate is None and g.doc_score == 0.0
    g = grade_item(tape_item("accept"), " " * 70_000 + json.dumps(RIGHT))
    assert not g.in_grammar and g.doc_score == 0.0
