"""Pins for scorers/vantage_parse.py: the harness's reading of each answer form, and hostile
replies (non-text, huge, NaN, nested garbage) reading as nothing, fast, without raising."""
from __future__ import annotations

import time

import pytest

from scorers.answers import MAX_REPLY_CHARS
from scorers.vantage_parse import (MAX_BOXES, MAX_EVENTS, parse_boxes, parse_choice, parse_events,
                                   parse_segment, parse_time, parse_track, parse_yes_no, read_text)

HOSTILE = [None, 3, 2.5, ["yes"], {"a": 1}, b"yes", "", "   ", "x" * (MAX_REPLY_CHARS + 1),
           "[" * 5000, "{" * 5000, '{"a": NaN}', "[NaN, 1, 2, 3]", "[Infinity,0,1,1]", "\x00\xff" * 100,
           '{"start": {"start": {"start": 1}}}', "1" * 5000]


@pytest.mark.parametrize("reply", HOSTILE)
def test_hostile_replies_read_as_nothing_quickly(reply):
    t0 = time.process_time()
    assert parse_yes_no(reply) is None
    assert parse_choice(reply) is None
    assert parse_boxes(reply) == []
    assert parse_events(reply) is None
    assert parse_track(reply, 4) == [None] * 4
    assert time.process_time() - t0 < 2.0


def test_read_text_cap_is_inclusive():
    assert read_text("a" * MAX_REPLY_CHARS) == "a" * MAX_REPLY_CHARS
    assert read_text("a" * (MAX_REPLY_CHARS + 1)) is None
    assert read_text(7) is None


def test_yes_no_is_the_first_whole_word():
    assert parse_yes_no("Yes, the forklift came close.") == "yes"
    assert parse_yes_no("NO") == "no"
    assert parse_yes_no("No. Yes.") == "no"
    assert parse_yes_no("It did not happen: no") == "no"
    assert parse_yes_no("Nobody, yesterday, nope") is None   # whole words only
    assert parse_yes_no("maybe") is None


@pytest.mark.parametrize("reply,letter", [
    ("Answer: C", "C"), ("answer:(b) is wrong; Answer: D", "D"), ("The answer: B.", "B"),
    ("B. The forklift", "B"), ("(C) because", "C"), ("A: left", "A"), ("  D", "D"), ("D)", "D"),
    ("I pick a spot. The answer is C", "C"), ("option B", "B"), ("I choose (A)", "A"), ("select: D", "D"),
    ("Between A and B I think B is right", "B"), ("none of them", None), ("E. other", None),
])
def test_choice_in_the_harness_order(reply, letter):
    assert parse_choice(reply) == letter


def test_choice_rules_take_precedence_over_the_last_letter():
    assert parse_choice("Answer: A, not B or C") == "A"         # rule 1 beats the last letter
    assert parse_choice("C. Answer: A") == "A"                  # rule 1 beats a leading letter
    assert parse_choice("B. then option C") == "B"              # a leading letter beats rule 3
    assert parse_choice("A and option C") == "C"                # not leading (no '.'/':'): rule 3
    assert parse_choice("answer: b") is None                    # letters are upper-case
    assert parse_choice("Answer: E", letters="ABCDE") == "E"


@pytest.mark.parametrize("value,seconds", [
    ("00:02.50", 2.5), ("01:02.05", 62.05), ("1:00", 60.0), ("12.5", 12.5), ("12.5s", 12.5), (" 3 ", 3.0),
    (".5", 0.5), ("7.", 7.0), (3, 3.0), (4.25, 4.25), (0, 0.0),
])
def test_time_values(value, seconds):
    assert parse_time(value) == pytest.approx(seconds, abs=1e-9)


@pytest.mark.parametrize("value", ["-1", -1, -0.5, "abc", "1:2:3", "nan", float("nan"), float("inf"), True, None,
                                   [1], "1e999", 10 ** 400, ""])
def test_time_rejects(value):
    assert parse_time(value) is None


def test_boxes_from_json_objects_lists_and_text():
    assert parse_boxes('[{"bbox_2d": [1, 2, 3, 4], "label": "person"}, {"bbox_2d": [5, 6, 7, 8]}]') == \
        [(1.0, 2.0, 3.0, 4.0), (5.0, 6.0, 7.0, 8.0)]
    assert parse_boxes('{"bbox": [1, 2, 3, 4]}') == [(1.0, 2.0, 3.0, 4.0)]
    assert parse_boxes('{"box": ["1", "2", "3", "4"]}') == []          # strings are not numbers
    assert parse_boxes("[10, 20, 30, 40]") == [(10.0, 20.0, 30.0, 40.0)]
    assert parse_boxes("[[1,2,3,4],[5,6,7,8]]") == [(1.0, 2.0, 3.0, 4.0), (5.0, 6.0, 7.0, 8.0)]
    assert parse_boxes('```json\n{"people": [{"bbox_2d": [1,2,3,4]}]}\n```') == [(1.0, 2.0, 3.0, 4.0)]
    assert parse_boxes("The person is at [1, 2, 3, 4.5] and [5,6,7,8]") == [(1, 2, 3, 4.5), (5, 6, 7, 8)]
    assert parse_boxes("[1, 2, 3]") == []
    assert parse_boxes("[true, 2, 3, 4]") == []
    assert parse_boxes('[1, 2, 3, "x"]') == []
    assert parse_boxes("[1e999, 1, 2, 3]") == []


def test_box_count_is_capped():
    many = "[" + ",".join("[1,2,3,4]" for _ in range(MAX_BOXES + 50)) + "]"
    assert len(parse_boxes(many)) == MAX_BOXES
    text = " ".join("[1,2,3,4]" for _ in range(MAX_BOXES + 50))   # regex fallback (not one JSON value)
    assert len(parse_boxes("see " + text)) == MAX_BOXES


def test_boxes_deeper_than_the_walk_are_not_read_from_the_json():
    assert parse_boxes('[[[[[[1,2,3,4]]]]], [5,6,7,8]]') == [(5.0, 6.0, 7.0, 8.0)]
    assert parse_boxes('[[[[[1,2,3,4]]]]], [5,6,7,8]]') == [(1.0, 2.0, 3.0, 4.0), (5.0, 6.0, 7.0, 8.0)]
    assert parse_boxes('[[[[[[[1,2,3,4]]]]]]]') == [(1.0, 2.0, 3.0, 4.0)]   # the text fallback still reads it


def test_failed_json_starts_are_bounded_but_decoded_values_are_not():
    ev = '[{"start": 1, "end": 2, "caption": "c"}]'
    assert parse_events("[x] " * 63 + ev) == [(1.0, 2.0, "c")]
    assert parse_events("[x] " * 64 + ev) is None                     # 64 failed starts: search stops
    assert parse_events("[x " * 20 + ev) is None                      # unbalanced nesting > 16: not JSON
    boxes = " ".join('{"bbox": [1,2,3,4]}' for _ in range(100))      # 100 decoded values, no failure
    assert len(parse_boxes("see " + boxes)) == 100
    assert parse_segment("[x] " * 70 + '{"start": 5, "end": 9}') == (5.0, 9.0)  # by the two-number fallback


def test_segment_forms():
    assert parse_segment('{"start": "00:02.00", "end": "00:08.50"}') == (2.0, 8.5)
    assert parse_segment('[{"start": 3, "end": 9}, {"start": 1, "end": 2}]') == (3.0, 9.0)
    assert parse_segment('Sure: {"start": "01:00.00", "end": "01:30.00"}') == (60.0, 90.0)
    assert parse_segment("from 3 to 9.5 seconds") == (3.0, 9.5)
    assert parse_segment("between 00:03.00 and 00:09.00") == (3.0, 9.0)
    assert parse_segment("at 4 seconds") is None
    assert parse_segment("") is None
    assert parse_segment(None) is None


def test_segment_json_wins_over_the_numbers_in_the_text():
    # the two-number fallback would read (5, 1) or (1, 7) here
    assert parse_segment('After 5 s: {"start": 1, "end": 2}') == (1.0, 2.0)
    assert parse_segment('[{"start": 1, "end": 2}, 7]') == (1.0, 2.0)
    assert parse_segment('5 [] {"start": 1, "end": 2}') == (1.0, 2.0)            # an empty list is skipped
    assert parse_segment('5 [3] {"start": 1, "end": 2}') == (1.0, 2.0)           # a list of no object too
    assert parse_segment('9 {"start": 1} {"start": 1, "end": 2}') == (1.0, 2.0)  # no end: next object
    assert parse_segment('9 {"end": 1} {"start": 3, "end": 4}') == (3.0, 4.0)    # no start: next object
    assert parse_segment('9 {"start": "x", "end": 2} {"start": 3, "end": 4}') == (3.0, 4.0)
    assert parse_segment('9 {"start": 2, "end": "x"} {"start": 3, "end": 4}') == (3.0, 4.0)
    assert parse_segment('{"start": "x", "end": "y"}') is None   # no two numbers either


def test_events_sorted_and_incomplete_ones_dropped():
    reply = ('```json\n[{"start": "00:10.00", "end": "00:20.00", "caption": "b"},'
             '{"start": "00:00.00", "end": "00:05.00", "caption": " a "},'
             '{"start": 1, "end": 2, "caption": ""}, {"start": 1, "caption": "no end"},'
             '{"end": 1, "caption": "no start"}, {"start": 1, "end": "x", "caption": "bad end"},'
             '{"start": 1, "end": 2, "caption": 5}, "junk"]\n```')
    assert parse_events(reply) == [(0.0, 5.0, "a"), (10.0, 20.0, "b")]
    assert parse_events('{"start": 1, "end": 2, "caption": "one"}') == [(1.0, 2.0, "one")]
    assert parse_events('[]') is None
    assert parse_events('[{"caption": ""}]') is None
    assert parse_events("a man walks") is None
    # sorted by start only: end and caption do not order them
    evs = parse_events('[{"start": 5, "end": 6, "caption": "a"}, {"start": 1, "end": 9, "caption": "b"}]')
    assert evs == [(1.0, 9.0, "b"), (5.0, 6.0, "a")]
    # the first JSON value that holds an event
    assert parse_events('[1] {"start": 1, "end": 2, "caption": "x"}') == [(1.0, 2.0, "x")]


def test_events_same_start_keep_reply_order_and_are_capped():
    evs = parse_events('[{"start": 1, "end": 3, "caption": "y"}, {"start": 1, "end": 2, "caption": "x"}]')
    assert [e[2] for e in evs] == ["y", "x"]
    many = "[" + ",".join(f'{{"start": {i}, "end": {i + 1}, "caption": "c"}}' for i in range(MAX_EVENTS + 10)) + "]"
    assert len(parse_events(many)) == MAX_EVENTS


def test_track_keys():
    reply = ('{"frame_1": [1, 2, 3, 4], "frame_2": null, "frame_3": "lost", "frame_9": [1,2,3,4], '
             '"frame_0": [9,9,9,9], "f4": [1,2,3,4]}')
    assert parse_track(reply, 5) == [None, (1.0, 2.0, 3.0, 4.0), None, None, None]
    assert parse_track('{"frame_2": [1, 2, 3, 4]}', 3) == [None, None, (1.0, 2.0, 3.0, 4.0)]
    assert parse_track('{"frame_4": {"bbox": [1, 2, 3, 4]}}', 5)[4] == (1.0, 2.0, 3.0, 4.0)
    assert parse_track('{"frame_4": [1, 2, 3, 4]}', 4) == [None] * 4       # frame index out of the clip
    assert parse_track('{"frame_3": [1, 2, 3, 4]}', 4)[3] == (1.0, 2.0, 3.0, 4.0)
    assert parse_track('[1, 2] {"frame_1": [1, 2, 3, 4]}', 2) == [None, (1.0, 2.0, 3.0, 4.0)]
    assert parse_track('{"frame_1": [1,2,3,4]} {"frame_2": [1,2,3,4]}', 3) == [None, (1.0, 2.0, 3.0, 4.0), None]
    assert parse_track('{"frame_1": [1,2,3,4]}', 0) == []
    assert parse_track('{"frame_1": [1,2,3,4]}', -3) == []
    assert parse_track('{"frame_12": [1,2,3,4]}', 13)[12] == (1.0, 2.0, 3.0, 4.0)


def test_box_key_wins_over_other_lists_in_the_object():
    assert parse_boxes('{"label": [5, 6, 7, 8], "bbox": [1, 2, 3, 4]}') == [(1.0, 2.0, 3.0, 4.0)]
    assert parse_boxes('{"bbox_2d": [1, 2, 3, 4], "box": [5, 6, 7, 8]}') == [(1.0, 2.0, 3.0, 4.0)]
    assert parse_boxes('{"bbox": [1, 2, 3], "other": [5, 6, 7, 8]}') == [(5.0, 6.0, 7.0, 8.0)]


def test_json_boxes_are_read_where_the_text_fallback_could_not():
    # exponents and a leading '+' are JSON-only / text-only forms, so these pin which path read them
    assert parse_boxes("[[1e1, 2, 3, 4], [5, 6, 7, 8]]") == [(10.0, 2.0, 3.0, 4.0), (5.0, 6.0, 7.0, 8.0)]
    assert parse_boxes("[[[[[1e0, 2, 3, 4]]]]]") == [(1.0, 2.0, 3.0, 4.0)]            # 4 levels down: read
    assert parse_boxes("[[[[[[1e0, 2, 3, 4]]]]], [5e0, 6, 7, 8]]") == [(5.0, 6.0, 7.0, 8.0)]
    assert parse_boxes("[[1e0, 2, 3, 4]") == [(1.0, 2.0, 3.0, 4.0)]                  # next '[' after a failure
    assert parse_boxes('{"bbox": [1, 2, 3, 4], "bbox": [5e0, 6, 7, 8]}') == [(1.0, 2.0, 3.0, 4.0), (5.0, 6.0, 7.0, 8.0)]
    assert parse_boxes("[+1, 2, 3, 4]") == [(1.0, 2.0, 3.0, 4.0)]                   # text fallback only


def test_text_fallback_box_count_is_capped():
    text = " ".join("[+1,2,3,4]" for _ in range(MAX_BOXES + 50))   # not JSON: the regex reads them
    out = parse_boxes("see " + text)
    assert isinstance(out, list) and len(out) == MAX_BOXES


def test_choice_rule_three_and_the_last_letter():
    assert parse_choice("I'd pick B over D") == "B"
    assert parse_choice("A, B or C? C... no, D") == "D"
    assert parse_choice("the answer is B, but D") == "B"


def test_boxes_inside_objects_are_walked_to_four_levels():
    assert parse_boxes('{"people": [[1e0, 2, 3, 4]]}') == [(1.0, 2.0, 3.0, 4.0)]
    assert parse_boxes('{"a": {"b": {"c": {"d": [1e0, 2, 3, 4]}}}}') == [(1.0, 2.0, 3.0, 4.0)]
    assert parse_boxes('{"a": {"b": {"c": {"d": {"e": [1e0, 2, 3, 4]}}}}, "z": [5e0, 6, 7, 8]}') == \
        [(5.0, 6.0, 7.0, 8.0)]


def test_nan_anywhere_makes_the_json_unreadable():
    assert parse_events('[{"start": 1, "end": 2, "caption": "c", "x": NaN}]') is None
    assert parse_events('[{"start": 1, "end": 2, "caption": "c", "caption": "d"}]') is None   # duplicate key


def test_segment_fallback_needs_exactly_the_first_two_numbers_and_lists_use_their_first_item():
    assert parse_segment("from 3 to 9 of a 20 s clip") == (3.0, 9.0)
    assert parse_segment('[{"end": 9, "start": 3}]') == (3.0, 9.0)      # the text order would be (9, 3)


def test_only_the_given_letters_are_options():
    assert parse_choice("X") is None and parse_choice("Answer: X") is None
