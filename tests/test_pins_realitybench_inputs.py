"""Pins of scorers.realitybench_inputs.load_predictions on a hand-written predictions file: replies
cut by the output cap (Table 5), a single output count split with a reply tokenizer (Table 11:
thinking = count - the reply's tokens), and the records that cannot be split."""
from __future__ import annotations

import json

from scorers.cost import Usage
from scorers.realitybench_inputs import load_predictions


def words(text: str) -> int:
    """A stand-in tokenizer: one token per whitespace-separated word."""
    return len(text.split())


LINES = [
    # one output count (Anthropic style): 50 tokens, of which the reply's 3 words
    {"id": "a", "model": "m", "response": "yes it is", "usage": {"input_tokens": 100, "output_tokens": 50},
     "finish_reason": "stop"},
    # cut by the cap, one count below the reply's 4 words: no measurement
    {"id": "b", "model": "m", "response": "one two three four", "finish_reason": "length",
     "usage": {"prompt_tokens": 7, "completion_tokens": 3}},
    # a reasoning count given: nothing to split
    {"id": "c", "model": "m", "response": "no", "finish_reason": "LENGTH",
     "usage": {"prompt_tokens": 10, "completion_tokens": 30, "completion_tokens_details": {"reasoning_tokens": 20}}},
    # a reply that is not text: its tokens cannot be counted
    {"id": "d", "model": "m", "response": {"x": 1}, "usage": {"input_tokens": 5, "output_tokens": 9}},
    # no reply at all (an error line): the whole count is thinking
    {"id": "e", "model": "m", "response": None, "error": "timeout", "usage": {"input_tokens": 5, "output_tokens": 4}},
]


def _file(tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text("".join(json.dumps(x) + "\n" for x in LINES))
    return p


def test_cut_by_cap_is_finish_reason_length_exactly(tmp_path):
    pred = load_predictions(_file(tmp_path))
    assert pred.cut_by_cap == {"b"}                       # "LENGTH" is no OpenAI finish reason


def test_without_a_tokenizer_single_counts_stay_unsplit(tmp_path):
    pred = load_predictions(_file(tmp_path))
    assert pred.usage["a"] == Usage(prompt_tokens=100, output_tokens=50, single_count=True)
    assert pred.usage["c"] == Usage(prompt_tokens=10, output_tokens=10, thinking_tokens=20)
    assert pred.thinking_errors == []


def test_a_tokenizer_splits_each_single_count(tmp_path):
    pred = load_predictions(_file(tmp_path), reply_tokens=words)
    assert pred.usage["a"] == Usage(prompt_tokens=100, output_tokens=3, thinking_tokens=47)
    assert pred.usage["b"] == Usage(prompt_tokens=7, output_tokens=3, single_count=True)      # kept unsplit
    assert pred.usage["c"] == Usage(prompt_tokens=10, output_tokens=10, thinking_tokens=20)   # untouched
    assert pred.usage["d"] == Usage(prompt_tokens=5, output_tokens=9, single_count=True)
    assert pred.usage["e"] == Usage(prompt_tokens=5, output_tokens=0, thinking_tokens=4)
    assert pred.thinking_errors == [
        "b: output count 3 is below the reply's 4 tokens (another tokenizer than the provider's?)",
        "d: the reply is not text, so its tokens cannot be counted"]
