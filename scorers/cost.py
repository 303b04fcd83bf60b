"""Cost of a benchmark set from token usage x a price table (RealityBench §4, App. D).

Every prompt token at the full input rate, visible output AND thinking tokens at the
output rate, no cache discount. `Usage.output_tokens` must be the visible reply only;
where a provider reports a single output count, pass `thinking_tokens = count - reply
tokens` (the paper's rule) so nothing is counted twice. A model without a price (absent
from the table, or null prices: self-served) costs None, never 0.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Mapping

import yaml
from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt

DEFAULT_PRICES = Path(__file__).resolve().parents[1] / "configs" / "prices.yaml"

__all__ = ["Price", "Usage", "SetCost", "load_prices", "item_cost", "set_cost", "DEFAULT_PRICES"]


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
    output_tokens: NonNegativeInt = 0      # visible reply
    thinking_tokens: NonNegativeInt = 0    # priced at the output rate


class SetCost(BaseModel):
    cost: float | None               # USD for the whole set; None = unpriced
    n_items: int
    prompt_tokens: int
    output_tokens: int
    thinking_tokens: int
    mean_thinking_tokens: float | None
    prompt_share: float | None       # fraction of the cost that is prompt tokens


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
    p = sum(u.prompt_tokens for u in us)
    o = sum(u.output_tokens for u in us)
    t = sum(u.thinking_tokens for u in us)
    total = item_cost(Usage(prompt_tokens=p, output_tokens=o, thinking_tokens=t), price)
    share = None
    if total is not None and total > 0:
        share = p * price.input / price.per_tokens / total
    return SetCost(cost=total, n_items=len(us), prompt_tokens=p, output_tokens=o, thinking_tokens=t,
                   mean_thinking_tokens=(t / len(us)) if us else None, prompt_share=share)
