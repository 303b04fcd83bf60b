"""Parse a model's reply the way RealityBench's prompt demands it (App. C).

The prompt says: "Answer with exactly one JSON object and nothing else -- no prose, no
code fence -- with exactly these keys ... a value in any other form is scored as wrong."
So the benchmark score uses the STRICT parse:

* the reply, stripped of surrounding whitespace, must be exactly one JSON object
  (RFC 8259: no NaN/Infinity, no duplicate keys); anything else (prose, a code fence,
  two objects) means nothing can be read: `in_grammar=False`, `adequate=None`, every
  field None;
* inside the object each value is checked on its own against its `KeySpec`: a value in
  the wrong form is None (scored wrong) and makes the reply out of grammar, but the
  other values still count ("a value in any other form is scored as wrong" is per value);
  a breaker directory row is a value too: a malformed row is dropped (it matches nothing)
  and the well-formed rows are kept;
* a missing key, an extra key or an `adequate` that is not a JSON boolean also makes the
  reply out of grammar.

A LENIENT parse (the first balanced ``{...}`` anywhere in the text, e.g. inside a code
fence or after prose) is recorded in `ParsedAnswer.lenient` when the strict parse found
no object, so reports can show how much a model loses to format alone. It never feeds
the benchmark score.

Never evals, caps the size (64 kB) and the nesting depth, and never raises.
"""
from __future__ import annotations

import json
import math
from typing import Any

from pydantic import BaseModel, Field

from scorers.answer_keys import KeySpec

MAX_REPLY_CHARS = 64_000
MAX_DEPTH = 16
ADEQUATE_KEY = "adequate"

__all__ = ["ParsedAnswer", "parse_answer", "check_value", "MAX_REPLY_CHARS", "MAX_DEPTH", "ADEQUATE_KEY"]


class ParsedAnswer(BaseModel):
    """What could be read from one reply. `fields[k] is None` = missing or out of grammar."""

    in_grammar: bool
    adequate: bool | None = None
    fields: dict[str, Any] = Field(default_factory=dict)
    errors: list[str] = Field(default_factory=list)
    lenient: ParsedAnswer | None = None  # first {...} in the text, when strict found no object

    @property
    def best_effort(self) -> "ParsedAnswer":
        """The lenient reading when there is one, else the strict one (reports only)."""
        return self.lenient if self.lenient is not None else self


class _Reject(ValueError):
    pass


def _no_constants(name: str):
    raise _Reject(f"{name} is not JSON")


def _no_duplicates(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise _Reject(f"duplicate key {k!r}")
        d[k] = v
    return d


def _depth_ok(text: str, limit: int = MAX_DEPTH) -> bool:
    """Bracket depth outside strings <= limit; checked before json.loads recurses."""
    depth = 0
    in_str = False
    esc = False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def _loads(text: str) -> Any:
    """Strict RFC 8259 JSON (no NaN/Infinity, no duplicate keys); raises on anything else."""
    if not _depth_ok(text):
        raise _Reject(f"nested deeper than {MAX_DEPTH}")
    return json.loads(text, parse_constant=_no_constants, object_pairs_hook=_no_duplicates)


def _is_number(v: Any) -> bool:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    try:
        return math.isfinite(float(v))
    except (OverflowError, ValueError):
        return False


def check_value(spec: KeySpec, v: Any) -> tuple[Any, str | None]:
    """(value, None) when `v` is in `spec`'s grammar, else (None, why)."""
    t = spec.type
    if t == "bool":
        return (v, None) if isinstance(v, bool) else (None, f"{spec.name}: not a JSON boolean")
    if t == "number":
        return (v, None) if _is_number(v) else (None, f"{spec.name}: not a finite JSON number")
    if t == "string":
        return (v, None) if isinstance(v, str) else (None, f"{spec.name}: not a JSON string")
    if t == "enum":
        if isinstance(v, str) and v in spec.options:
            return v, None
        return None, f"{spec.name}: not one of {spec.options}"
    if t == "enum_list":
        if isinstance(v, list) and all(isinstance(x, str) and x in spec.options for x in v):
            return list(v), None
        return None, f"{spec.name}: not a list of {spec.options}"
    if t == "entries":
        if not isinstance(v, list):
            return None, f"{spec.name}: not a list"
        # Each row is a value of its own: a malformed row is wrong (matches no card row) and puts
        # the reply out of grammar, but the well-formed rows still count (App. D: the fraction of
        # the card's rows matched by a reply row).
        rows, bad = [], []
        for i, row in enumerate(v):
            if not (isinstance(row, dict) and set(row) == {"name", "amps"}
                    and isinstance(row["name"], str) and _is_number(row["amps"])):
                bad.append(i)
                continue
            rows.append({"name": row["name"], "amps": row["amps"]})
        if bad:
            return rows, f"{spec.name}{bad[:5]}: not {{\"name\": string, \"amps\": number}}"
        return rows, None
    return None, f"{spec.name}: unknown key type {t!r}"  # pragma: no cover


def _read_object(obj: Any, keys: list[KeySpec]) -> ParsedAnswer:
    """Check one decoded JSON value against the key list."""
    fields: dict[str, Any] = {k.name: None for k in keys}
    if not isinstance(obj, dict):
        return ParsedAnswer(in_grammar=False, fields=fields, errors=["not a JSON object"])
    errors: list[str] = []
    adequate = obj.get(ADEQUATE_KEY)
    if ADEQUATE_KEY not in obj:
        errors.append("adequate: missing")
        adequate = None
    elif not isinstance(adequate, bool):
        errors.append("adequate: not a JSON boolean")
        adequate = None
    for spec in keys:
        if spec.name not in obj:
            errors.append(f"{spec.name}: missing")
            continue
        val, why = check_value(spec, obj[spec.name])
        fields[spec.name] = val
        if why:
            errors.append(why)
    expected = {ADEQUATE_KEY, *(k.name for k in keys)}
    extra = sorted(str(k)[:40] for k in obj if k not in expected)
    if extra:
        errors.append(f"extra keys: {extra[:10]}")
    return ParsedAnswer(in_grammar=not errors, adequate=adequate, fields=fields, errors=errors)


def strict_decoder(text: str) -> json.JSONDecoder | None:
    """A decoder refusing NaN/Infinity and duplicate keys, for scanning `text` value by value;
    None when `text` nests deeper than MAX_DEPTH (decoding it could exhaust the stack). Shared
    by every reply parser so that all of them read model output by the same strict rules."""
    if not _depth_ok(text):
        return None
    return json.JSONDecoder(parse_constant=_no_constants, object_pairs_hook=_no_duplicates)


def _first_object(text: str) -> dict | None:
    """The object at the first '{' where one decodes (lenient reading); None if none does
    (nothing reports why: the strict parse's error is the one recorded)."""
    dec = strict_decoder(text)
    if dec is None:
        return None
    start = text.find("{")
    tries = 0
    while start != -1 and tries < 64:
        tries += 1
        try:
            obj, _ = dec.raw_decode(text, start)
            return obj
        except (ValueError, RecursionError):
            start = text.find("{", start + 1)
    return None


def parse_answer(reply: Any, keys: list[KeySpec]) -> ParsedAnswer:
    """Strict parse of `reply` against `keys` (+ the lenient one when strict finds no object)."""
    try:
        return _parse(reply, keys)
    except Exception as e:  # never raise: a grader must survive any reply  # pragma: no cover
        return ParsedAnswer(in_grammar=False, fields={k.name: None for k in keys},
                            errors=[f"internal: {type(e).__name__}"])


def _parse(reply: Any, keys: list[KeySpec]) -> ParsedAnswer:
    empty = {k.name: None for k in keys}
    if reply is None:
        return ParsedAnswer(in_grammar=False, fields=empty, errors=["no reply"])
    if not isinstance(reply, str):
        return ParsedAnswer(in_grammar=False, fields=empty, errors=[f"reply is {type(reply).__name__}, not text"])
    if len(reply) > MAX_REPLY_CHARS:
        return ParsedAnswer(in_grammar=False, fields=empty, errors=[f"reply longer than {MAX_REPLY_CHARS} chars"])
    text = reply.strip()
    try:
        obj = _loads(text)
    except (ValueError, RecursionError) as e:  # JSONDecodeError and _Reject are ValueErrors
        why = str(e) if isinstance(e, _Reject) else "not exactly one JSON value"
        try:
            found = _first_object(text)
            lenient = None if found is None else _read_object(found, keys)
        except (ValueError, RecursionError):
            lenient = None
        return ParsedAnswer(in_grammar=False, fields=empty, errors=[f"strict: {why}"], lenient=lenient)
    return _read_object(obj, keys)
