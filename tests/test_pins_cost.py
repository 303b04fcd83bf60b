"""Pinned values for scorers/cost.py: price arithmetic by hand, the price table, and the
mapping of provider usage records (RealityBench App. D: thinking at the output rate)."""
from __future__ import annotations

import pytest

from scorers import cost as c


def test_constants_and_default_table():
    assert c.MAX_TOKENS == 10**12
    assert c.DEFAULT_PRICES.name == "prices.yaml" and c.DEFAULT_PRICES.parent.name == "configs"
    p = c.load_prices()
    assert p["example-small-model"].input == 0.10 and p["example-small-model"].output == 0.40
    assert p["example-large-model"].per_tokens == 1_000_000
    assert p["example-self-served-model"].priced is False
    assert p["example-large-model"].priced is True
    assert p["example-large-model"].source == "placeholder - edit me"


def test_load_prices_per_tokens_default_and_override(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text("per_tokens: 1000\nmodels:\n  a: {input: 1, output: 2}\n  b: {input: 1, output: 2, per_tokens: 10}\n"
                 "  c:\n  7: {input: 0, output: 0}\n")
    p = c.load_prices(f)
    assert p["a"].per_tokens == 1000 and p["b"].per_tokens == 10
    assert p["c"].priced is False and p["c"].per_tokens == 1000
    assert p["7"].priced is True
    g = tmp_path / "g.yaml"
    g.write_text("models:\n  a: {input: 1, output: 2}\n")
    assert c.load_prices(g)["a"].per_tokens == 1_000_000
    e = tmp_path / "e.yaml"
    e.write_text("")
    assert c.load_prices(e) == {}


def test_price_fields():
    assert c.Price().priced is False
    assert c.Price(input=1.0).priced is False
    assert c.Price(output=1.0).priced is False
    assert c.Price(input=0.0, output=0.0).priced is True
    with pytest.raises(ValueError):
        c.Price(input=-1.0, output=1.0)
    with pytest.raises(ValueError):
        c.Price(input=1.0, output=-0.5)
    assert c.Price(input=1, output=1, extra="x").per_tokens == 1_000_000


def test_item_cost_by_hand():
    price = c.Price(input=2.0, output=8.0)
    u = c.Usage(prompt_tokens=1000, output_tokens=100, thinking_tokens=400)
    assert c.item_cost(u, price) == pytest.approx((1000 * 2 + 500 * 8) / 1e6)
    assert c.item_cost(u, c.Price(input=2.0, output=8.0, per_tokens=1000)) == pytest.approx(6.0)
    assert c.item_cost(u, None) is None
    assert c.item_cost(u, c.Price(input=2.0)) is None
    assert c.Usage().prompt_tokens == 0 and c.Usage().thinking_tokens == 0 and c.Usage().output_tokens == 0


def test_set_cost_totals_share_and_means():
    price = c.Price(input=1.0, output=3.0, per_tokens=100)
    s = c.set_cost([c.Usage(prompt_tokens=100, output_tokens=10, thinking_tokens=20),
                    {"prompt_tokens": 300, "output_tokens": 30, "thinking_tokens": 0, "junk": 1}], price)
    # cost = (400 * 1 + 60 * 3) / 100 = 5.8 ; prompt share = 4 / 5.8
    assert s.cost == pytest.approx(5.8)
    assert (s.n_items, s.prompt_tokens, s.output_tokens, s.thinking_tokens) == (2, 400, 40, 20)
    assert s.mean_thinking_tokens == 10.0
    assert s.prompt_share == pytest.approx(4 / 5.8)
    z = c.set_cost([], price)
    assert z.cost == 0.0 and z.n_items == 0 and z.mean_thinking_tokens is None and z.prompt_share is None
    free = c.set_cost([c.Usage(prompt_tokens=5)], c.Price(input=0.0, output=0.0))
    assert free.cost == 0.0 and free.prompt_share is None
    u = c.set_cost([c.Usage(prompt_tokens=5)], None)
    assert u.cost is None and u.prompt_share is None and u.prompt_tokens == 5


def test_usage_of_record_project_format():
    assert c.usage_of_record({"id": "x"}) is None
    assert c.usage_of_record({"prompt_tokens": 10, "output_tokens": 3}) == \
        c.Usage(prompt_tokens=10, output_tokens=3, thinking_tokens=0)
    assert c.usage_of_record({"thinking_tokens": 7}) == c.Usage(thinking_tokens=7)
    assert c.usage_of_record({"usage": {"prompt_tokens": 1, "output_tokens": 2, "thinking_tokens": 3}}) == \
        c.Usage(prompt_tokens=1, output_tokens=2, thinking_tokens=3)
    assert c.usage_of_record({"usage": "lots"}) is False
    assert c.usage_of_record({"usage": {}}) == c.Usage()


def test_usage_of_record_openai_completion_minus_reasoning():
    rec = {"usage": {"prompt_tokens": 50, "completion_tokens": 120,
                     "completion_tokens_details": {"reasoning_tokens": 100}}}
    assert c.usage_of_record(rec) == c.Usage(prompt_tokens=50, output_tokens=20, thinking_tokens=100)
    rec = {"usage": {"prompt_tokens": 50, "completion_tokens": 120, "reasoning_tokens": 30}}
    assert c.usage_of_record(rec) == c.Usage(prompt_tokens=50, output_tokens=90, thinking_tokens=30)
    rec = {"usage": {"prompt_tokens": 50, "completion_tokens": 10, "thinking_tokens": 30}}
    assert c.usage_of_record(rec) == c.Usage(prompt_tokens=50, output_tokens=0, thinking_tokens=30)
    rec = {"usage": {"input_tokens": 9, "completion_tokens": 5}}      # one count: thinking unknown
    assert c.usage_of_record(rec) == c.Usage(prompt_tokens=9, output_tokens=5, thinking_tokens=0, single_count=True)
    rec = {"usage": {"prompt_tokens": None, "input_tokens": 4, "completion_tokens": 5,
                     "thinking_tokens": None, "reasoning_tokens": 2}}
    assert c.usage_of_record(rec) == c.Usage(prompt_tokens=4, output_tokens=3, thinking_tokens=2)
    # OpenAI Responses style: output_tokens includes output_tokens_details.reasoning_tokens
    rec = {"usage": {"input_tokens": 4, "output_tokens": 6, "output_tokens_details": {"reasoning_tokens": 2}}}
    assert c.usage_of_record(rec) == c.Usage(prompt_tokens=4, output_tokens=4, thinking_tokens=2)
    rec = {"usage": {"input_tokens": 4, "output_tokens": 1, "output_tokens_details": {"reasoning_tokens": 2}}}
    assert c.usage_of_record(rec) == c.Usage(prompt_tokens=4, output_tokens=0, thinking_tokens=2)
    rec = {"usage": {"input_tokens": 4, "output_tokens": 6, "output_tokens_details": {"reasoning_tokens": -2}}}
    assert c.usage_of_record(rec) is False
    rec = {"usage": {"input_tokens": 4, "output_tokens": "6", "output_tokens_details": {"reasoning_tokens": 2}}}
    assert c.usage_of_record(rec) is False
    # the project's own format: output_tokens is the visible reply, thinking_tokens apart
    rec = {"usage": {"prompt_tokens": 4, "output_tokens": 6, "thinking_tokens": 2}}
    assert c.usage_of_record(rec) == c.Usage(prompt_tokens=4, output_tokens=6, thinking_tokens=2)
    rec = {"usage": {"input_tokens": 4, "output_tokens": 6, "reasoning_tokens": 2,
                     "output_tokens_details": {"reasoning_tokens": 5}}}
    assert c.usage_of_record(rec) == c.Usage(prompt_tokens=4, output_tokens=6, thinking_tokens=2)
    rec = {"usage": {"prompt_tokens": 1, "completion_tokens": 5, "completion_tokens_details": "x"}}
    assert c.usage_of_record(rec) == c.Usage(prompt_tokens=1, output_tokens=5, single_count=True)


def test_single_output_counts():
    """One output count and no reasoning count anywhere: thinking not derivable (never a 0)."""
    one = {"usage": {"prompt_tokens": 3, "completion_tokens": 40}}
    assert c.usage_of_record(one) == c.Usage(prompt_tokens=3, output_tokens=40, single_count=True)
    anthropic = {"usage": {"input_tokens": 3, "output_tokens": 40}}
    assert c.usage_of_record(anthropic) == c.Usage(prompt_tokens=3, output_tokens=40, single_count=True)
    # a reasoning count of 0 is a measurement; so is the project's own format (output = the reply)
    zero = {"usage": {"prompt_tokens": 3, "completion_tokens": 40, "completion_tokens_details": {"reasoning_tokens": 0}}}
    assert c.usage_of_record(zero) == c.Usage(prompt_tokens=3, output_tokens=40)
    assert c.usage_of_record({"usage": {"prompt_tokens": 3, "output_tokens": 40}}).single_count is False
    assert c.usage_of_record({"prompt_tokens": 3, "output_tokens": 40}).single_count is False
    assert c.usage_of_record({"usage": {"input_tokens": 3, "output_tokens": 40, "reasoning_tokens": 9}}).single_count \
        is False


def test_derive_thinking_and_set_cost_with_unknown_thinking():
    u = c.Usage(prompt_tokens=3, output_tokens=40, single_count=True)
    assert c.derive_thinking(u, 12) == c.Usage(prompt_tokens=3, output_tokens=12, thinking_tokens=28)
    assert c.derive_thinking(u, 40) == c.Usage(prompt_tokens=3, output_tokens=40, thinking_tokens=0)
    with pytest.raises(ValueError, match=r"^output count 40 is below the reply's 41 tokens"):
        c.derive_thinking(u, 41)
    known = c.Usage(prompt_tokens=1, output_tokens=2, thinking_tokens=6)
    assert c.derive_thinking(known, 99) is known
    price = c.Price(input=1.0, output=2.0, per_tokens=1)
    s = c.set_cost([u, known, c.Usage(output_tokens=1, thinking_tokens=2)], price)
    # cost: every count at its rate (4 prompt + 43 output + 8 thinking); thinking: the two known items only
    assert (s.cost, s.thinking_tokens, s.mean_thinking_tokens, s.n_thinking_not_derivable) == (4 + 2 * 51, 8, 4.0, 1)
    none = c.set_cost([u], price)
    assert (none.thinking_tokens, none.mean_thinking_tokens, none.n_thinking_not_derivable) == (0, None, 1)
    assert none.cost == 83.0


def test_usage_of_record_completion_tokens_win_over_output_tokens():
    """A record with both counts: completion_tokens is reply + thinking, so the reply is
    completion - reasoning = 10 - 4 = 6, and output_tokens (3) is not read."""
    rec = {"usage": {"prompt_tokens": 1, "output_tokens": 3, "completion_tokens": 10, "reasoning_tokens": 4}}
    assert c.usage_of_record(rec) == c.Usage(prompt_tokens=1, output_tokens=6, thinking_tokens=4)


@pytest.mark.parametrize("usage", [
    {"prompt_tokens": -1}, {"prompt_tokens": True}, {"prompt_tokens": "10"}, {"prompt_tokens": float("inf")},
    {"prompt_tokens": float("nan")}, {"prompt_tokens": 10**12 + 1}, {"output_tokens": 10**309},
    {"completion_tokens": "5"}, {"completion_tokens": 5, "reasoning_tokens": -1},
    {"completion_tokens": -5}, {"thinking_tokens": [1]},
])
def test_usage_of_record_malformed_is_false(usage):
    assert c.usage_of_record({"usage": usage}) is False


def test_token_count_limits_inclusive():
    assert c.usage_of_record({"usage": {"prompt_tokens": 10**12}}) == c.Usage(prompt_tokens=10**12)
    assert c.usage_of_record({"usage": {"prompt_tokens": 0}}) == c.Usage()
    assert c.usage_of_record({"usage": {"prompt_tokens": 12.9}}) == c.Usage(prompt_tokens=12)
