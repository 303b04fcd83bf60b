"""Acceptability terms and verdicts.

A scorer is an intersection of terms (RealityBench §4). Each term keeps its value and
threshold so a reader can see by how much a frame failed. A term may be `gray`: its
value lies in a range the requirement text leaves open, and a frame whose verdict
depends only on gray terms is not scored (`unscored`).
"""
from __future__ import annotations

from formats.records import TermResult, Verdict

__all__ = ["TermResult", "Verdict", "term", "flag", "verdict_of", "first_failure"]


def term(name: str, side: str, value, op: str, threshold: float, unit: str = "",
         gray_band: tuple[float, float] | None = None) -> TermResult:
    """Compare `value` with `threshold`; inside `gray_band` (inclusive) a failure is gray."""
    if value is None or (isinstance(value, float) and value != value):
        return TermResult(name=name, side=side, value=None, threshold=f"{op} {threshold:g} {unit}".strip(),
                          unit=unit, passed=False)
    ops = {"<=": value <= threshold, ">=": value >= threshold, "<": value < threshold, ">": value > threshold}
    passed = bool(ops[op])
    gray = bool(not passed and gray_band is not None and gray_band[0] <= value <= gray_band[1])
    return TermResult(name=name, side=side, value=_clean(value), threshold=f"{op} {threshold:g} {unit}".strip(),
                      unit=unit, passed=passed, gray=gray)


def flag(name: str, side: str, ok: bool, gray: bool = False) -> TermResult:
    """A yes/no term (e.g. 'photographed from the front of the blade')."""
    return TermResult(name=name, side=side, value=bool(ok), threshold="true", passed=bool(ok), gray=bool(gray))


def _clean(value):
    if isinstance(value, bool):
        return value
    return round(float(value), 6)


def verdict_of(terms: list[TermResult]) -> Verdict:
    """Accept iff every term passes; unscored iff every failing term is gray."""
    failing = [t for t in terms if not t.passed]
    if not failing:
        return Verdict.ACCEPT
    if all(t.gray for t in failing):
        return Verdict.UNSCORED
    return Verdict.REJECT


def first_failure(terms: list[TermResult]) -> str | None:
    """Name of the first failing hard term (the one a contact sheet shows)."""
    for t in terms:
        if not t.passed and not t.gray:
            return t.name
    for t in terms:
        if not t.passed:
            return t.name
    return None
