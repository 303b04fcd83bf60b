"""Answer parsing and RealityBench grading (App. C/D; metrics.md §0, §7)."""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorers.answer_keys import KeySpec
from scorers.answers import MAX_REPLY_CHARS, parse_answer
from scorers.cost import Price, Usage, load_prices, set_cost
from scorers.realitybench_grading import (
    GradingItem, acceptability_metrics, always_accept_grades, bootstrap_strata, documentation_score,
    field_scores, grade_item, in_grammar_fraction, normalize_text, score_entries, score_field,
    score_number, set_metrics, statistic,
)

NUM = "a number (JSON number, no units, no quotes)"
BOOL = "true or false (a JSON boolean)"
TAPE = [
    KeySpec(name="reading_in", type="number", grammar=NUM, tolerance=1 / 8),
    KeySpec(name="gap_in", type="number", grammar=NUM, tolerance=1 / 4),
    KeySpec(name="tilted", type="bool", grammar=BOOL, scored_on="all"),
]
BREAKER = [
    KeySpec(name="main_amps", type="number", grammar=NUM),
    KeySpec(name="entries", type="entries", grammar="list of {name, amps}"),
]
DAMAGE = [
    KeySpec(name="damage_types", type="enum_list", grammar="list", options=["dent", "scratch", "rust"]),
    KeySpec(name="severity", type="enum", grammar="one of", options=["minor", "moderate", "severe"]),
]
PLATE = [KeySpec(name="plate", type="string", grammar="a string"),
         KeySpec(name="state", type="string", grammar="a string")]
GAUGE = KeySpec(name="reading_deg", type="number", grammar=NUM, tolerance=0.2)
ALL_KEYS = TAPE + BREAKER + DAMAGE + PLATE


def tape_reply(adequate=True, reading=3.5, gap=3.0, tilted=False) -> str:
    return json.dumps({"adequate": adequate, "reading_in": reading, "gap_in": gap, "tilted": tilted})


# ---------------------------------------------------------------- parser

def test_strict_valid_reply_with_surrounding_whitespace():
    p = parse_answer("  \n" + tape_reply() + "\n\t ", TAPE)
    assert p.in_grammar and p.adequate is True and p.errors == []
    assert p.fields == {"reading_in": 3.5, "gap_in": 3.0, "tilted": False}
    assert p.lenient is None


@pytest.mark.parametrize("reply", [
    "Sure, here it is: " + tape_reply(),
    "```json\n" + tape_reply() + "\n```",
    tape_reply() + "\nI hope this helps.",
])
def test_prose_or_code_fence_is_out_of_grammar_but_lenient_reads_it(reply):
    p = parse_answer(reply, TAPE)
    assert not p.in_grammar and p.adequate is None
    assert all(v is None for v in p.fields.values())
    assert p.lenient is not None and p.lenient.in_grammar and p.lenient.adequate is True
    assert p.lenient.fields["reading_in"] == 3.5 and p.best_effort is p.lenient


@pytest.mark.parametrize("reply, bad_key", [
    ('{"adequate": true, "reading_in": "3.5", "gap_in": 3, "tilted": false}', "reading_in"),   # string number
    ('{"adequate": true, "reading_in": true, "gap_in": 3, "tilted": false}', "reading_in"),    # bool as number
    ('{"adequate": true, "reading_in": 3.5, "gap_in": 3, "tilted": "false"}', "tilted"),       # string bool
    ('{"adequate": true, "reading_in": 3.5, "gap_in": 3, "tilted": 0}', "tilted"),             # int as bool
    ('{"adequate": true, "reading_in": 1e400, "gap_in": 3, "tilted": false}', "reading_in"),   # overflows to inf
    ('{"adequate": true, "reading_in": [3.5], "gap_in": 3, "tilted": false}', "reading_in"),
    ('{"adequate": true, "reading_in": null, "gap_in": 3, "tilted": false}', "reading_in"),
])
def test_bad_value_is_none_others_still_read(reply, bad_key):
    p = parse_answer(reply, TAPE)
    assert not p.in_grammar and p.adequate is True
    assert p.fields[bad_key] is None
    assert p.fields["gap_in"] == 3
    assert any(bad_key in e for e in p.errors)


def test_missing_and_extra_keys():
    p = parse_answer('{"adequate": false, "reading_in": 3.5, "gap_in": 3}', TAPE)
    assert not p.in_grammar and p.adequate is False and p.fields["tilted"] is None
    assert "tilted: missing" in p.errors
    p = parse_answer('{"adequate": false, "reading_in": 3.5, "gap_in": 3, "tilted": true, "note": "x"}', TAPE)
    assert not p.in_grammar and p.fields["tilted"] is True


@pytest.mark.parametrize("adequate", ['"true"', "1", "null", '"yes"'])
def test_adequate_must_be_json_boolean(adequate):
    p = parse_answer('{"adequate": %s, "reading_in": 3.5, "gap_in": 3, "tilted": true}' % adequate, TAPE)
    assert not p.in_grammar and p.adequate is None and p.fields["reading_in"] == 3.5


@pytest.mark.parametrize("reply", [
    '{"adequate": true, "reading_in": NaN, "gap_in": 3, "tilted": false}',
    '{"adequate": true, "reading_in": Infinity, "gap_in": 3, "tilted": false}',
    '{"adequate": true, "reading_in": -Infinity, "gap_in": 3, "tilted": false}',
    '{"adequate": true, "adequate": false, "reading_in": 3, "gap_in": 3, "tilted": false}',  # duplicate key
    '[{"adequate": true}]', '"adequate"', "true", "", "   ", "{", "{}{}",
    tape_reply() + tape_reply(),
    '{"adequate": true, "reading_in": ' + "[" * 5000 + "]" * 5000 + ', "gap_in": 3, "tilted": false}',
    "[" * 30000 + "]" * 30000,
    "{" * 30000,
    "\x00\x01\xff binary \udcff",
    tape_reply() + " " * MAX_REPLY_CHARS,  # over the size cap
])
def test_not_one_json_object_reads_nothing(reply):
    p = parse_answer(reply, TAPE)
    assert not p.in_grammar and p.adequate is None
    assert all(v is None for v in p.fields.values())
    assert p.errors


@pytest.mark.parametrize("reply", [None, b'{"adequate": true}', 42, {"adequate": True}, ["x"], object()])
def test_non_string_reply(reply):
    p = parse_answer(reply, TAPE)
    assert not p.in_grammar and p.adequate is None and set(p.fields) == {"reading_in", "gap_in", "tilted"}


def test_enum_entries_grammar():
    ok = parse_answer('{"adequate": true, "damage_types": ["dent", "rust"], "severity": "minor"}', DAMAGE)
    assert ok.in_grammar and ok.fields == {"damage_types": ["dent", "rust"], "severity": "minor"}
    bad = parse_answer('{"adequate": true, "damage_types": ["Dent"], "severity": "Minor"}', DAMAGE)
    assert not bad.in_grammar and bad.fields == {"damage_types": None, "severity": None}
    bad = parse_answer('{"adequate": true, "damage_types": "dent", "severity": "minor"}', DAMAGE)
    assert bad.fields["damage_types"] is None and bad.fields["severity"] == "minor"
    rows = '[{"name": "Kitchen", "amps": 20}, {"name": "Dryer", "amps": 30.0}]'
    ok = parse_answer('{"adequate": false, "main_amps": 200, "entries": %s}' % rows, BREAKER)
    assert ok.in_grammar and ok.fields["entries"][1] == {"name": "Dryer", "amps": 30.0}
    # a malformed row is wrong on its own (dropped, out of grammar); the well-formed rows are kept
    for bad_row in ['{"name": "K", "amps": "20"}', '{"name": "K"}', '{"name": 5, "amps": 20}',
                    '{"name": "K", "amps": 20, "pole": 2}', '["K", 20]', 'null', '"Kitchen 20"']:
        p = parse_answer('{"adequate": false, "main_amps": 200, "entries": [%s, %s]}' % (bad_row, rows[1:-1]),
                         BREAKER)
        assert not p.in_grammar and p.fields["main_amps"] == 200
        assert p.fields["entries"] == [{"name": "Kitchen", "amps": 20}, {"name": "Dryer", "amps": 30.0}], bad_row
    p = parse_answer('{"adequate": false, "main_amps": 200, "entries": {"name": "K", "amps": 20}}', BREAKER)
    assert not p.in_grammar and p.fields["entries"] is None and p.fields["main_amps"] == 200


# ---------------------------------------------------------------- field scores

def test_text_normalisation():
    assert normalize_text("ab-12 3") == "AB123"
    assert normalize_text(" 1hgcm 8263-3a004352\n") == "1HGCM82633A004352"
    assert normalize_text("ＡＢＣ１２") == "ABC12"  # full-width forms
    assert score_field(PLATE[0], "7abc-123", "7ABC123") == 1.0
    assert score_field(PLATE[0], "7ABC 124", "7ABC123") == 0.0
    assert score_field(PLATE[1], "california.", "California") == 1.0
    assert score_field(PLATE[0], "", "7ABC123") == 0.0


@pytest.mark.parametrize("answer, ok", [
    (3.5 + 1 / 8, 1.0), (3.5 - 1 / 8, 1.0), (3.5, 1.0), (3.625 + 1e-6, 0.0), (3.375 - 1e-6, 0.0), (4, 0.0),
])
def test_tape_reading_tolerance_edge(answer, ok):
    assert score_field(TAPE[0], answer, 3.5) == ok


def test_gap_and_gauge_tolerance_edges():
    assert score_field(TAPE[1], 3.25, 3.0) == 1.0 and score_field(TAPE[1], 3.2501, 3.0) == 0.0
    assert score_field(GAUGE, 30.2, 30.0) == 1.0 and score_field(GAUGE, 29.8, 30.0) == 1.0
    assert score_field(GAUGE, 30.21, 30.0) == 0.0
    assert score_field(GAUGE, 12.3, 12.1) == 1.0   # 0.2 off after float rounding
    assert score_number(200, 200.0, None) == 1.0 and score_number(201, 200, None) == 0.0
    assert score_number(True, 1, None) == 0.0 and score_number(float("nan"), 1, 1.0) == 0.0


def test_bool_enum_enum_list():
    assert score_field(TAPE[2], False, False) == 1.0 and score_field(TAPE[2], True, False) == 0.0
    assert score_field(TAPE[2], 0, False) == 0.0
    assert score_field(DAMAGE[1], "minor", "minor") == 1.0 and score_field(DAMAGE[1], "severe", "minor") == 0.0
    assert score_field(DAMAGE[0], ["rust", "dent"], ["dent", "rust"]) == 1.0      # set: order free
    assert score_field(DAMAGE[0], ["dent", "dent"], ["dent"]) == 1.0               # set: repeats free
    assert score_field(DAMAGE[0], ["dent"], ["dent", "rust"]) == 0.0               # no partial credit
    assert score_field(DAMAGE[0], None, ["dent"]) == 0.0


CARD = [{"name": "Kitchen", "amps": 20}, {"name": "Kitchen", "amps": 20},
        {"name": "Dryer", "amps": 30}, {"name": "Spare", "amps": 15}]


def test_breaker_rows_duplicates_extras_order():
    assert score_entries(list(reversed(CARD)), CARD) == 1.0
    reply = [{"name": "kitchen", "amps": 20}, {"name": "DRYER", "amps": 30.0}, {"name": "Dryer", "amps": 30},
             {"name": "Bath", "amps": 20}, {"name": "Spare", "amps": 20}]
    # one of two Kitchen rows (a reply row is used once), Dryer once, Spare has the wrong amps
    assert score_entries(reply, CARD) == pytest.approx(2 / 4)
    extras = CARD + [{"name": "Extra %d" % i, "amps": 15} for i in range(20)]
    assert score_entries(extras, CARD) == 1.0                  # extras not penalised
    assert score_entries([], CARD) == 0.0
    assert score_entries(None, CARD) == 0.0
    assert score_entries([], []) == 1.0
    assert score_entries([{"name": "K I T-chen", "amps": 20}], [{"name": "Kitchen", "amps": 20}]) == 1.0


def test_breaker_malformed_row_costs_only_itself():
    """App. D: the fraction of the card's rows matched; one bad reply row used to zero the directory."""
    item = GradingItem(id="b1", env="breaker_label", stratum="random", scorer_verdict="accept",
                       ground_truth={"main_amps": 200, "entries": CARD}, keys=BREAKER)
    rows = CARD[1:] + [{"name": "Kitchen", "amps": "20"}]           # 3 good rows + the 4th in the wrong form
    g = grade_item(item, json.dumps({"adequate": True, "main_amps": 200, "entries": rows}))
    assert g.field_scores == {"main_amps": 1.0, "entries": 0.75} and not g.in_grammar
    assert g.doc_score == pytest.approx(0.5 * 1 + 0.5 * 0.75)
    g = grade_item(item, json.dumps({"adequate": True, "main_amps": 200, "entries": [7, "x", None, {}]}))
    assert g.field_scores == {"main_amps": 1.0, "entries": 0.0}


def test_breaker_main_and_rows_count_half_each():
    item = GradingItem(id="b1", env="breaker_label", stratum="random", scorer_verdict="accept",
                       ground_truth={"main_amps": 200, "entries": CARD}, keys=BREAKER)
    reply = json.dumps({"adequate": True, "main_amps": 200, "entries": CARD[:2]})
    g = grade_item(item, reply)
    assert g.field_scores == {"main_amps": 1.0, "entries": 0.5}
    assert g.doc_score == pytest.approx(0.5 * 1 + 0.5 * 0.5)
    g = grade_item(item, json.dumps({"adequate": True, "main_amps": 100, "entries": CARD}))
    assert g.doc_score == pytest.approx(0.5)


# ---------------------------------------------------------------- items and set metrics

def item(i, verdict, stratum="random", env="tape_gap", gray=False, acc=True, gt=None, keys=TAPE):
    gt = {"reading_in": 3.5, "gap_in": 3.0, "tilted": False} if gt is None else gt
    return GradingItem(id=f"f{i}", env=env, stratum=stratum, scorer_verdict=verdict, gray=gray,
                       ground_truth=gt, keys=keys, acceptability_scored=acc)


def verdict_reply(v):
    return "garbage" if v is None else tape_reply(adequate=v)


def hand_set():
    """Known counts: 4 random accepts, 6 random rejects, 4 positive, plus excluded frames."""
    spec = [  # (scorer verdict, stratum, model adequate (None = out of grammar))
        ("accept", "random", True), ("accept", "random", True), ("accept", "random", False),
        ("accept", "random", None),
        ("reject", "random", True), ("reject", "random", False), ("reject", "random", False),
        ("reject", "random", False), ("reject", "random", False), ("reject", "random", None),
        ("accept", "positive", True), ("accept", "positive", True), ("accept", "positive", True),
        ("accept", "positive", False),
    ]
    items, replies = [], []
    for i, (v, s, a) in enumerate(spec):
        items.append(item(i, v, s))
        replies.append(verdict_reply(a))
    items.append(item(100, "reject", gray=True)); replies.append(verdict_reply(True))      # gray: out
    items.append(item(101, "unscored")); replies.append(verdict_reply(True))              # unscored: out
    items.append(item(102, "reject", acc=False)); replies.append(verdict_reply(True))     # no acceptability
    return items, replies


def test_acceptability_metrics_known_counts():
    items, replies = hand_set()
    grades = [grade_item(it, r) for it, r in zip(items, replies)]
    m = acceptability_metrics(grades)
    assert m.n_rejected_random == 6 and m.n_acceptable == 8 and m.n_accepted_random == 3
    assert m.false_accept_rate == pytest.approx(2 / 6)   # one accept + one out-of-grammar
    assert m.miss_rate == pytest.approx(3 / 8)           # random no + random invalid + positive no
    assert m.precision == pytest.approx(2 / 3)           # random frames only
    assert m.recall == pytest.approx(5 / 8)
    p, r = 2 / 3, 5 / 8
    assert m.f1 == pytest.approx(2 * p * r / (p + r)) and m.f1 == pytest.approx(20 / 31)
    sm = set_metrics(grades)
    assert sm.n_in_set == 15                             # gray and unscored out; 102 is in the set
    assert sm.in_grammar == pytest.approx(13 / 15)


def test_always_accept_baseline():
    items, _ = hand_set()
    m = set_metrics(always_accept_grades(items))
    a = m.acceptability
    assert a.false_accept_rate == 1.0 and a.miss_rate == 0.0 and a.recall == 1.0
    assert a.precision == pytest.approx(4 / 10)          # base rate of random scored frames
    assert a.f1 == pytest.approx(2 * 0.4 / 1.4)
    assert m.doc_score == 0.0 and m.in_grammar == 0.0


def test_metrics_md_section7_worked_example():
    """metrics.md §7: y_true=[1,1,1,0,0,0,0,1], y_pred=[1,0,1,0,0,1,0,1] -> sens=spec=F1_1=0.75."""
    y_true = [1, 1, 1, 0, 0, 0, 0, 1]
    y_pred = [1, 0, 1, 0, 0, 1, 0, 1]
    items = [item(i, "accept" if t else "reject") for i, t in enumerate(y_true)]
    grades = [grade_item(it, verdict_reply(bool(p))) for it, p in zip(items, y_pred)]
    m = acceptability_metrics(grades)
    assert m.recall == pytest.approx(0.75) and 1 - m.false_accept_rate == pytest.approx(0.75)
    assert m.precision == pytest.approx(0.75) and m.f1 == pytest.approx(0.75)
    # item 7 (index 6, truth 0) invalid: an error for its true class -> spec 0.5, sens 0.75, F1_1 0.75
    grades[6] = grade_item(items[6], "not json")
    m = acceptability_metrics(grades)
    assert 1 - m.false_accept_rate == pytest.approx(0.5)
    assert m.recall == pytest.approx(0.75) and m.f1 == pytest.approx(0.75)


def test_documentation_score_tilted_on_all_frames():
    acc = item(1, "accept")
    rej = item(2, "reject")
    gray = item(3, "reject", gray=True)
    brk_rej = item(4, "reject", env="breaker_label", keys=BREAKER, gt={"main_amps": 200, "entries": CARD})
    g_acc = grade_item(acc, tape_reply(reading=3.625, gap=3.5, tilted=False))   # 1, 0, 1
    g_rej = grade_item(rej, tape_reply(adequate=False, reading=9, gap=9, tilted=False))
    g_gray = grade_item(gray, tape_reply())
    g_brk = grade_item(brk_rej, "{}")
    assert g_acc.field_scores == {"reading_in": 1.0, "gap_in": 0.0, "tilted": 1.0}
    assert g_acc.doc_score == pytest.approx(2 / 3)
    # only the 'all' key is scored on a rejected frame, and App. D's documentation score is over
    # scorer-accepted frames only, so the rejected frame has a field score but no frame score
    assert g_rej.field_scores == {"tilted": 1.0} and g_rej.doc_score is None
    assert g_gray.field_scores == {} and g_gray.doc_score is None
    assert g_brk.doc_score is None
    grades = [g_acc, g_rej, g_gray, g_brk]
    assert documentation_score(grades) == pytest.approx(2 / 3)
    fs = field_scores(grades)
    assert fs[("tape_gap", "tilted")] == 1.0 and fs[("tape_gap", "reading_in")] == 1.0
    assert set_metrics(grades).n_doc_frames == 1
    g_rej0 = grade_item(rej, tape_reply(adequate=False, tilted=True))          # tilted wrong on the rejected frame
    assert documentation_score([g_acc, g_rej0]) == pytest.approx(2 / 3)        # unchanged: not a documented frame
    assert field_scores([g_acc, g_rej0])[("tape_gap", "tilted")] == pytest.approx(0.5)


def test_missing_truth_not_scored_and_missing_reply_wrong():
    it = item(1, "accept", keys=DAMAGE, env="damage_view", gt={"damage_types": ["dent"], "severity": None})
    g = grade_item(it, None)
    assert g.field_scores == {"damage_types": 0.0} and g.adequate is None and not g.in_grammar
    assert acceptability_metrics([g]).miss_rate == 1.0


def test_statistic_and_strata():
    items, replies = hand_set()
    grades = [grade_item(it, r) for it, r in zip(items, replies)]
    import numpy as np
    f = statistic(grades, "f1")
    assert f(np.arange(len(grades))) == pytest.approx(20 / 31)
    assert math.isnan(statistic(grades, "precision")(np.array([10])))   # a positive-stratum frame only
    s = bootstrap_strata(grades)
    assert s[0] == "random" and s[10] == "positive/tape_gap"
    with pytest.raises(KeyError):
        statistic(grades, "nope")
    assert in_grammar_fraction([]) is None and documentation_score([]) is None


# ---------------------------------------------------------------- cost

def test_cost_thinking_at_output_rate(tmp_path):
    price = Price(input=2.0, output=10.0)
    c = set_cost([Usage(prompt_tokens=1000, output_tokens=50, thinking_tokens=200),
                  {"prompt_tokens": 1000, "output_tokens": 50}], price)
    assert c.cost == pytest.approx((2000 * 2.0 + 300 * 10.0) / 1e6)
    assert c.mean_thinking_tokens == 100 and c.prompt_share == pytest.approx(4000 / 7000)
    assert set_cost([Usage(prompt_tokens=5)], None).cost is None
    prices = load_prices()
    assert prices["example-large-model"].priced and not prices["example-self-served-model"].priced
    assert all(k.startswith("example-") for k in prices)
    p = tmp_path / "p.yaml"
    p.write_text("models:\n  m:\n    input: 1\n    output: 4\n")
    assert set_cost([Usage(prompt_tokens=10**6, thinking_tokens=10**6)], load_prices(p)["m"]).cost == 5.0


# ---------------------------------------------------------------- fuzz

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=20),
    lambda c: st.lists(c, max_size=5) | st.dictionaries(st.text(max_size=12), c, max_size=6),
    max_leaves=30,
)
key_names = st.sampled_from(["adequate"] + [k.name for k in ALL_KEYS])
answer_objects = st.dictionaries(key_names, json_values, max_size=8)


def _assert_consistent(p, keys):
    assert set(p.fields) == {k.name for k in keys}
    if p.in_grammar:
        assert isinstance(p.adequate, bool) and all(v is not None for v in p.fields.values())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_fuzz_text_never_raises(text):
    p = parse_answer(text, TAPE)
    _assert_consistent(p, TAPE)
    g = grade_item(item(1, "accept"), text)
    assert 0.0 <= (g.doc_score or 0.0) <= 1.0


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_fuzz_json_values_not_in_grammar(v):
    txt = json.dumps(v)
    for keys in (TAPE, BREAKER, DAMAGE, PLATE):
        p = parse_answer(txt, keys)
        _assert_consistent(p, keys)
        if not isinstance(v, dict) or "adequate" not in v:
            assert not p.in_grammar


@settings(max_examples=300, deadline=None)
@given(answer_objects)
def test_fuzz_answer_objects_grade(obj):
    txt = json.dumps(obj)
    for keys, env, gt in ((TAPE, "tape_gap", None), (BREAKER, "breaker_label", {"main_amps": 200, "entries": CARD}),
                          (DAMAGE, "damage_view", {"damage_types": ["dent"], "severity": "minor"}),
                          (PLATE, "car_plate", {"plate": "7ABC123", "state": "CA"})):
        p = parse_answer(txt, keys)
        _assert_consistent(p, keys)
        if set(obj) != {"adequate", *(k.name for k in keys)}:
            assert not p.in_grammar
        g = grade_item(item(1, "accept", env=env, keys=keys, gt=gt), txt)
        assert all(0.0 <= s <= 1.0 for s in g.field_scores.values())


valid_tape = st.fixed_dictionaries({
    "adequate": st.booleans(),
    "reading_in": st.floats(allow_nan=False, allow_infinity=False) | st.integers(-10**6, 10**6),
    "gap_in": st.floats(allow_nan=False, allow_infinity=False),
    "tilted": st.booleans(),
})


@settings(max_examples=200, deadline=None)
@given(valid_tape, st.sampled_from(["", " ", "\n", "\t\n "]))
def test_fuzz_valid_replies_are_in_grammar(obj, ws):
    p = parse_answer(ws + json.dumps(obj) + ws, TAPE)
    assert p.in_grammar and p.adequate == obj["adequate"]
    assert p.fields == {k: obj[k] for k in ("reading_in", "gap_in", "tilted")}
