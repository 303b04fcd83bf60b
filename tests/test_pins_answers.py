"""Pinned behaviour of scorers/answers.py (RealityBench App. C strict parse): limits at their exact
values, per-value grammar, the errors a report shows, and the lenient reading."""
from __future__ import annotations

import json

import pytest

from scorers import answers as a
from scorers.answer_keys import KeySpec

KEYS = [KeySpec(name="n", type="number", grammar="x"), KeySpec(name="s", type="string", grammar="x"),
        KeySpec(name="b", type="bool", grammar="x"),
        KeySpec(name="e", type="enum", grammar="x", options=["up", "down"]),
        KeySpec(name="l", type="enum_list", grammar="x", options=["rust", "dent"]),
        KeySpec(name="r", type="entries", grammar="x")]
GOOD = {"adequate": True, "n": 1.5, "s": "A1", "b": False, "e": "up", "l": ["dent"], "r": [{"name": "K", "amps": 20}]}


def parse(obj_or_text):
    text = obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text)
    return a.parse_answer(text, KEYS)


def test_constants():
    assert a.MAX_REPLY_CHARS == 64_000 and a.MAX_DEPTH == 16 and a.ADEQUATE_KEY == "adequate"


def test_good_reply_reads_every_field():
    p = parse(GOOD)
    assert p.in_grammar and p.errors == [] and p.adequate is True and p.lenient is None
    assert p.fields == {"n": 1.5, "s": "A1", "b": False, "e": "up", "l": ["dent"], "r": [{"name": "K", "amps": 20}]}
    assert p.best_effort is p
    assert parse("  \n" + json.dumps(GOOD) + "\n\t ").in_grammar


def test_reply_length_cap_is_inclusive():
    body = json.dumps(GOOD)
    ok = body + " " * (a.MAX_REPLY_CHARS - len(body))
    assert len(ok) == 64_000 and parse(ok).in_grammar
    p = parse(ok + " ")
    assert not p.in_grammar and p.errors == ["reply longer than 64000 chars"] and p.lenient is None
    assert p.fields == {k.name: None for k in KEYS}


def test_depth_cap_is_inclusive_and_strings_are_skipped():
    def nested(d):
        return "[" * d + "1" + "]" * d
    # "n" nested d-1 deep inside the top-level object: total depth d
    assert parse('{"adequate": true, "n": ' + nested(15) + "}").errors != ["strict: nested deeper than 16"]
    p = parse('{"adequate": true, "n": ' + nested(16) + "}")
    assert not p.in_grammar and p.errors == ["strict: nested deeper than 16"]
    assert a._depth_ok("[" * 16 + "]" * 16) and not a._depth_ok("[" * 17 + "]" * 17)
    assert a._depth_ok('"' + "[" * 40 + '"')                       # brackets inside strings do not count
    assert a._depth_ok('"\\"' + "[" * 40 + '"')                    # an escaped quote does not end the string
    assert not a._depth_ok('"\\\\"' + "[" * 17)                    # an escaped backslash does
    assert a._depth_ok("{}" * 100 + "[" * 16)
    assert a._depth_ok("[" * 16, limit=16) and not a._depth_ok("[" * 3, limit=2)


def test_not_json_values_and_duplicates():
    p = parse('{"adequate": true, "n": NaN}')
    assert not p.in_grammar and p.errors == ["strict: NaN is not JSON"]
    p = parse('{"adequate": true, "adequate": false}')
    assert p.errors == ["strict: duplicate key 'adequate'"] and p.adequate is None
    p = parse(json.dumps(GOOD) + json.dumps(GOOD))
    assert p.errors == ["strict: not exactly one JSON value"]
    assert p.lenient is not None and p.lenient.in_grammar and p.lenient.adequate is True
    assert p.best_effort is p.lenient and p.adequate is None and p.fields["n"] is None


def test_lenient_reading_finds_first_decodable_object():
    text = "Sure! {not json} here: ```json\n" + json.dumps(GOOD) + "\n``` {\"adequate\": false}"
    p = parse(text)
    assert not p.in_grammar and p.lenient is not None and p.lenient.fields["n"] == 1.5 and p.lenient.adequate is True
    assert parse("no object at all").lenient is None
    assert parse("{" * 17 + "}" * 17).lenient is None
    many = '{"a":1,} ' * 64 + json.dumps(GOOD)
    assert parse(many).lenient is None                        # gives up after 64 tries
    few = '{"a":1,} ' * 63 + json.dumps(GOOD)
    assert parse(few).lenient is not None and parse(few).lenient.in_grammar
    p = parse('[1, 2]')
    assert p.errors == ["not a JSON object"] and p.lenient is None


def test_non_text_replies():
    assert a.parse_answer(None, KEYS).errors == ["no reply"]
    assert a.parse_answer(5, KEYS).errors == ["reply is int, not text"]
    assert a.parse_answer(b"{}", KEYS).errors == ["reply is bytes, not text"]


def test_each_value_checked_on_its_own():
    bad = dict(GOOD, n="1.5", e="sideways")
    p = parse(bad)
    assert not p.in_grammar and p.adequate is True
    assert p.fields["n"] is None and p.fields["e"] is None and p.fields["s"] == "A1"
    assert p.errors == ["n: not a finite JSON number", "e: not one of ['up', 'down']"]


def test_missing_extra_and_adequate_errors():
    d = dict(GOOD)
    del d["s"]
    d["zz"] = 1
    d["adequate"] = "yes"
    p = parse(d)
    assert p.errors == ["adequate: not a JSON boolean", "s: missing", "extra keys: ['zz']"]
    assert p.adequate is None and p.fields["n"] == 1.5
    d2 = dict(GOOD)
    del d2["adequate"]
    assert parse(d2).errors == ["adequate: missing"]
    assert parse(dict(GOOD, adequate=None)).errors == ["adequate: not a JSON boolean"]
    long = dict(GOOD, **{("k" * 50 + str(i)): 0 for i in range(12)})
    err = parse(long).errors[-1]
    assert err.startswith("extra keys: [") and err.count("'") == 20 and "k" * 41 not in err


@pytest.mark.parametrize("name,value,ok", [
    ("n", 3, True), ("n", -2.5, True), ("n", True, False), ("n", 1e400, False), ("n", "3", False),
    ("s", "", True), ("s", 3, False), ("b", True, True), ("b", 0, False), ("b", "true", False),
    ("e", "down", True), ("e", "Down", False), ("e", 1, False),
    ("l", [], True), ("l", ["rust", "rust"], True), ("l", ["rust", "crack"], False), ("l", "rust", False),
    ("l", [1], False), ("r", [], True), ("r", "rows", False),
])
def test_check_value_grammar(name, value, ok):
    spec = next(k for k in KEYS if k.name == name)
    v, why = a.check_value(spec, value)
    assert (why is None) is ok
    if not ok and name != "r":
        assert v is None


def test_number_grammar_overflowing_int():
    spec = KEYS[0]
    assert a.check_value(spec, 10 ** 400) == (None, "n: not a finite JSON number")


def test_entries_rows_are_values_of_their_own():
    spec = KEYS[5]
    rows = [{"name": "A", "amps": 15}, {"name": "B"}, {"name": "C", "amps": 20, "x": 1}, "D", {"name": 4, "amps": 1},
            {"name": "E", "amps": True}, {"name": "F", "amps": 30.5}, {"name": "G", "amps": float("inf")}]
    v, why = a.check_value(spec, rows)
    assert v == [{"name": "A", "amps": 15}, {"name": "F", "amps": 30.5}]
    assert why == 'r[1, 2, 3, 4, 5]: not {"name": string, "amps": number}'
    p = parse(dict(GOOD, r=rows[:-1]))
    assert not p.in_grammar and p.fields["r"] == v and p.errors == [why]


def test_enum_list_copy_is_a_new_list():
    spec = KEYS[4]
    src = ["rust"]
    v, _ = a.check_value(spec, src)
    assert v == src and v is not src


def test_depth_counts_only_brackets_and_each_close_once():
    # letters outside strings neither open nor close a level
    assert a._depth_ok("X" * 40) and a._depth_ok("X" * 40 + "[" * 16)
    assert not a._depth_ok("[" * 16 + "X" * 5 + "[")
    # a closing bracket takes back exactly one level: 16, 15, 16, 17 -> too deep
    assert not a._depth_ok("[" * 16 + "]" + "[[")
    assert a._depth_ok("[" * 16 + "]" + "[")


def test_lenient_reading_is_as_strict_as_rfc_8259_inside_the_object():
    """The lenient reading only forgives what surrounds the object: NaN or a duplicate key
    inside it still means no object."""
    assert parse('Sure: {"adequate": true, "n": NaN}').lenient is None
    assert parse('Sure: {"adequate": true, "adequate": false}').lenient is None
    ok = parse('Sure: {"adequate": true, "n": NaN} then ' + json.dumps(GOOD))
    assert ok.lenient is not None and ok.lenient.in_grammar


def test_lenient_reading_tries_every_brace_and_never_reads_a_bare_value():
    # an object starting at index 1, and one right after a stray "{"
    assert parse("x" + json.dumps(GOOD)).lenient.in_grammar
    assert parse("{" + json.dumps(GOOD)).lenient.in_grammar
    # no object anywhere: a trailing number is not read as the answer
    assert parse("the answer is 5").lenient is None
    assert parse("{oops} 5").lenient is None


def test_a_missing_key_does_not_stop_the_later_keys_being_checked():
    d = dict(GOOD, s=3)
    del d["n"]
    p = parse(d)
    assert p.errors == ["n: missing", "s: not a JSON string"]
    assert p.fields == {"n": None, "s": None, "b": False, "e": "up", "l": ["dent"], "r": [{"name": "K", "amps": 20}]}


def test_an_internal_error_scores_as_an_unreadable_reply(monkeypatch):
    """parse_answer never raises: whatever goes wrong inside is an out-of-grammar reply with
    every field None and the error's type recorded."""
    def boom(reply, keys):
        raise RuntimeError("bug")
    monkeypatch.setattr(a, "_parse", boom)
    p = a.parse_answer(json.dumps(GOOD), KEYS)
    assert p == a.ParsedAnswer(in_grammar=False, fields={k.name: None for k in KEYS},
                               errors=["internal: RuntimeError"])
    assert p.in_grammar is False and p.adequate is None and p.lenient is None
