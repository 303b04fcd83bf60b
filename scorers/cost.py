"""Cost of a benchmark set from token usage x a price table (RealityBench §4, App. D).

Every prompt token at the full input rate, visible output AND thinking tokens at the
output rate, no cache discount. `Usage.output_tokens` must be the visible reply only;
where a provider reports a single output count, pass `thinking_tokens = count - reply
tokens` (the paper's rule) so nothing is counted twice. A model without a price (absent
from the table, or null prices: self-served) costs None, never 0.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Iterable, Mapping

import yaml
from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt

DEFAULT_PRICES = Path(__file__).resolve().parents[1] / "configs" / "prices.yaml"

MAX_TOKENS = 10**12   # per item; a larger count is not a count (and 10**309 would overflow a float)

__all__ = ["Price", "Usage", "SetCost", "load_prices", "item_cost", "set_cost", "usage_of_record", "DEFAULT_PRICES",
           "MAX_TOKENS", "valid_count", "derive_thinking"]


class Price(BaseModel):
    """USD per `per_tokens` tokens (1M by default)."""

    model_config = ConfigDict(extra="ignore")
    input: float | None = Field(default=None, ge=0)
    output: float | None = Field(default=None, ge=0)
    per_tokens: int = 1_000_000
    source: str | None = None
    date: str | None = None

    @property
    def priced(self) -> bool:
        return self.input is not None and self.output is not None


class Usage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    prompt_tokens: NonNegativeInt = 0
    output_tokens: NonNegativeInt = 0      # visible reply (reply + thinking when single_count)
    thinking_tokens: NonNegativeInt = 0    # priced at the output rate
    single_count: bool = False             # one output count, split unknown: thinking not derivable


class SetCost(BaseModel):
    cost: float | None               # USD for the whole set; None = unpriced
    n_items: int
    prompt_tokens: int
    output_tokens: int
    thinking_tokens: int             # over the items whose thinking is known
    mean_thinking_tokens: float | None   # per item whose thinking is known; None if none is
    prompt_share: float | None       # fraction of the cost that is prompt tokens
    n_thinking_not_derivable: int = 0    # items with one output count and no reply-token count


def load_prices(path: str | Path = DEFAULT_PRICES) -> dict[str, Price]:
    """Model name -> Price from a YAML table (safe_load)."""
    doc = yaml.safe_load(Path(path).read_text()) or {}
    per = int(doc.get("per_tokens", 1_000_000))
    out = {}
    for name, p in (doc.get("models") or {}).items():
        p = dict(p or {})
        p.setdefault("per_tokens", per)
        out[str(name)] = Price(**p)
    return out


def item_cost(usage: Usage, price: Price | None) -> float | None:
    if price is None or not price.priced:
        return None
    return (usage.prompt_tokens * price.input
            + (usage.output_tokens + usage.thinking_tokens) * price.output) / price.per_tokens


def set_cost(usages: Iterable[Usage | Mapping], price: Price | None) -> SetCost:
    """Whole-set cost and token totals (Table 5 / Table 11 columns)."""
    us = [u if isinstance(u, Usage) else Usage(**u) for u in usages]
    known = [u for u in us if not u.single_count]
    p = sum(u.prompt_tokens for u in us)
    o = sum(u.output_tokens for u in us)
    t = sum(u.thinking_tokens for u in known)
    total = item_cost(Usage(prompt_tokens=p, output_tokens=o, thinking_tokens=t), price)
    share = None
    if total is not None and total > 0:
        share = p * price.input / price.per_tokens / total
    return SetCost(cost=total, n_items=len(us), prompt_tokens=p, output_tokens=o, thinking_tokens=t,
                   mean_thinking_tokens=(t / len(known)) if known else None, prompt_share=share,
                   n_thinking_not_derivable=len(us) - len(known))


def derive_thinking(u: Usage, reply_tokens: int) -> Usage:
    """The paper's rule for a single output count: thinking = count - the reply's tokens.
    A count below the reply's tokens is no measurement (ValueError says so), never a negative."""
    if not u.single_count:
        return u
    if reply_tokens > u.output_tokens:
        raise ValueError(f"output count {u.output_tokens} is below the reply's {reply_tokens} tokens "
                         f"(another tokenizer than the provider's?)")
    return Usage(prompt_tokens=u.prompt_tokens, output_tokens=reply_tokens,
                 thinking_tokens=u.output_tokens - reply_tokens)


def valid_count(v: Any) -> int | None:
    """A token count: a non-negative finite number up to MAX_TOKENS, else None (malformed)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if v < 0 or v > MAX_TOKENS:
        return None
    return int(v)


def _first(d: dict, *names: str) -> Any:
    for n in names:
        if d.get(n) is not None:
            return d[n]
    return None


def usage_of_record(rec: dict) -> Usage | None | bool:
    """Token usage of one predictions line; None when it has none, False when it is malformed.

    `scenebench predict` lines carry `usage` as the server reported it; OpenAI-style
    (`completion_tokens` with `completion_tokens_details.reasoning_tokens`, or `input_tokens` /
    `output_tokens_details`) is mapped so that output = the visible reply = completion - reasoning;
    top-level `prompt_tokens` / `output_tokens` / `thinking_tokens` are read when there is no `usage`.
    A provider's one output count with no reasoning count anywhere (`completion_tokens` alone, or
    `input_tokens` / `output_tokens` alone, as Anthropic reports) is `single_count`."""
    u = rec.get("usage")
    if u is None:
        u = {k: rec[k] for k in ("prompt_tokens", "output_tokens", "thinking_tokens") if k in rec}
        if not u:
            return None
    if not isinstance(u, dict):
        return False
    details = u.get("completion_tokens_details") or u.get("output_tokens_details") or {}
    prompt = _first(u, "prompt_tokens", "input_tokens")
    thinking = _first(u, "thinking_tokens", "reasoning_tokens")
    if thinking is None and isinstance(details, dict):
        thinking = details.get("reasoning_tokens")
    if "output_tokens" in u and "completion_tokens" not in u:
        output = u["output_tokens"]
        if _first(u, "thinking_tokens", "reasoning_tokens") is None and thinking is not None:
            # Responses-API style: output_tokens counts the reasoning of output_tokens_details too
            o, t = valid_count(output), valid_count(thinking)
            if o is None or t is None:
                return False
            output = max(o - t, 0)
    elif "completion_tokens" in u:  # one count for reply + thinking: reply = count - thinking
        c, t = valid_count(u["completion_tokens"]), valid_count(thinking or 0)
        if c is None or t is None:
            return False
        output = max(c - t, 0)
    else:
        output = 0
    vals = [valid_count(x if x is not None else 0) for x in (prompt, output, thinking)]
    if any(v is None for v in vals):
        return False
    single = thinking is None and ("completion_tokens" in u or ("output_tokens" in u and "input_tokens" in u))
    return Usage(prompt_tokens=vals[0], output_tokens=vals[1], thinking_tokens=vals[2], single_count=single)
