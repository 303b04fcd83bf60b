"""What a documentation answer must contain: one `KeySpec` per JSON key (Table 3).

Prompts (packagers) render each key's grammar in words; graders (scorers) read the
same spec to parse and score the reply, so the two can never disagree.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

KeyType = Literal["bool", "number", "string", "enum", "enum_list", "entries"]


class KeySpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    type: KeyType
    grammar: str                       # the words the prompt uses, e.g. 'a number (JSON number, no units, no quotes)'
    tolerance: float | None = None     # number: |answer - truth| <= tolerance is right (None = exact)
    options: list[str] = Field(default_factory=list)  # enum / enum_list values, exactly as written
    scored_on: Literal["acceptable", "all"] = "acceptable"  # tape leaning is scored on all frames


class EnvPrompt(BaseModel):
    """The per-environment parts of RealityBench's prompt (Table 3)."""

    model_config = ConfigDict(extra="forbid")
    env: str
    technician: str
    requirement: str
    question: str
    keys: list[KeySpec]
    set_level: bool = False            # horizon_peak: asks whether this photo belongs in the set
