"""RealityBench grading (App. D): per-field scores, per-item grades, set metrics.

Field scores (App. D "Test conditions"), all in [0, 1]:

* string: exact match after normalisation: NFKC, upper-case, keep letters and digits only;
* number: |answer - truth| <= KeySpec.tolerance (1/8 in tape reading, 1/4 in gap, 0.2 deg
  gauge), inclusive, with 1e-9 slack for float representation; tolerance None = equal;
* bool / enum: exact;
* enum_list (damage kinds): set equality (order and repeats ignored); no partial credit,
  because the paper scores every non-breaker field as exact match;
* entries (breaker directory rows): the fraction of the card's rows matched by a reply
  row with the same normalised name and the same amperage, in any order, each reply row
  used once, extra reply rows not penalised (a card with no rows scores 1). The main
  amperage is its own number field, so the breaker frame mean (2 fields) is exactly
  0.5*[main ok] + 0.5*rows_fraction: "main amperage and rows count half each".

A field that is missing or out of grammar scores 0. A field whose truth is absent from
`ground_truth` (None) is not scored on that frame.

Which frames and fields count (§4, footnote 2, Fig. 3, App. D):

* gray frames and `unscored` verdicts are not in the set at all (the 1,378 frames exclude
  them): no acceptability, no documentation, not in the in-grammar fraction;
* acceptability is scored on the remaining frames whose `acceptability_scored` is True
  (False for car_plate and rail_attachment frames with a missing part, which the paper
  drops from acceptability but still documents);
* documentation (App. D): "the mean, over the frames the scorer accepts, of each frame's
  mean field score". On a scorer-accepted frame every key is scored and the frame's score is
  the mean of its fields. Per-field scores (Fig. 3 / Table 10) are means over the frames the
  field is scored on, and keys with `scored_on="all"` (tape `tilted`, footnote 2: "tape
  leaning is scored on all tape_gap frames") are scored on scorer-rejected frames too; those
  frames have field scores but no frame documentation score, so they never enter the
  documentation score.

Acceptability (App. D, Table 5), positive = "adequate":

* an out-of-grammar verdict (adequate not a JSON boolean, or no object at all) is the
  wrong answer for its true class and a positive for no class (metrics.md §7): it counts
  as a false accept on a scorer-rejected frame and as a miss on a scorer-accepted frame,
  but never as a model accept in precision;
* false-accept rate = (random, scorer-rejected, model not rejecting) / (random, scorer-rejected);
* miss rate = (scorer-accepted, random AND positive strata, model not accepting) / (scorer-accepted);
* precision = (random, scorer-accepted, model accepts) / (random, model accepts): random
  frames only, since the positive strata would inflate it;
* recall = 1 - miss rate (positive strata included);
* F1 = 2PR / (P + R) from that precision and recall (0 when P + R = 0, None when either
  is undefined); it is not 2TP/(2TP+FP+FN), because P and R use different frame sets.
"""
from __future__ import annotations

import math
import unicodedata
from collections import Counter
from typing import Any, Callable, Iterable, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from scorers.answer_keys import KeySpec
from scorers.answers import ParsedAnswer, parse_answer

FLOAT_SLACK = 1e-9

__all__ = [
    "normalize_text", "score_text", "score_number", "score_enum_list", "score_entries", "score_field",
    "GradingItem", "ItemGrade", "grade_item", "grade_parsed", "always_accept_grades",
    "AcceptabilityMetrics", "acceptability_metrics", "documentation_score", "field_scores",
    "in_grammar_fraction", "SetMetrics", "set_metrics", "bootstrap_strata", "statistic",
]


# ---------------------------------------------------------------- field scores

def normalize_text(s: Any) -> str:
    """Upper-case, letters and digits only (NFKC first so full-width forms compare)."""
    if not isinstance(s, str):
        return ""
    s = unicodedata.normalize("NFKC", s).upper()
    return "".join(c for c in s if c.isalpha() or c.isdecimal())


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        f = float(v)
    except (OverflowError, ValueError):
        return None
    return f if math.isfinite(f) else None


def score_text(answer: Any, truth: Any) -> float:
    if not isinstance(answer, str) or not isinstance(truth, str):
        return 0.0
    return float(normalize_text(answer) == normalize_text(truth))


def score_number(answer: Any, truth: Any, tolerance: float | None) -> float:
    """Inclusive tolerance: exactly 1/8 in off is still right."""
    a, t = _num(answer), _num(truth)
    if a is None or t is None:
        return 0.0
    return float(abs(a - t) <= (tolerance or 0.0) + FLOAT_SLACK)


def score_enum_list(answer: Any, truth: Any) -> float:
    if not isinstance(answer, list) or not isinstance(truth, (list, tuple, set)):
        return 0.0
    try:
        return float(set(answer) == set(truth))
    except TypeError:
        return 0.0


def _row_key(row: Any) -> tuple[str, float] | None:
    if not isinstance(row, dict):
        return None
    a = _num(row.get("amps"))
    if a is None or not isinstance(row.get("name"), str):
        return None
    return normalize_text(row["name"]), a


def score_entries(answer: Any, truth: Any) -> float:
    """Fraction of card rows matched one-to-one by reply rows (same name and amps); extras free.

    Matching is on exact (normalised name, amps) pairs, so counting multiplicities is an
    optimal one-to-one matching: a card row listed twice needs two reply rows.
    """
    if not isinstance(truth, (list, tuple)):
        return 0.0
    card = Counter(k for k in map(_row_key, truth) if k is not None)
    n = sum(card.values())
    if n == 0:
        return 1.0
    if not isinstance(answer, list):
        return 0.0
    reply = Counter(k for k in map(_row_key, answer) if k is not None)
    return sum(min(c, reply.get(k, 0)) for k, c in card.items()) / n


def score_field(spec: KeySpec, answer: Any, truth: Any) -> float:
    """Score of one field in [0, 1]; a None (missing/out-of-grammar) answer is 0."""
    if answer is None:
        return 0.0
    t = spec.type
    if t == "string":
        return score_text(answer, truth)
    if t == "number":
        return score_number(answer, truth, spec.tolerance)
    if t in ("bool",):
        return float(isinstance(answer, bool) and isinstance(truth, bool) and answer == truth)
    if t == "enum":
        return float(isinstance(answer, str) and answer == truth)
    if t == "enum_list":
        return score_enum_list(answer, truth)
    if t == "entries":
        return score_entries(answer, truth)
    return 0.0


# ---------------------------------------------------------------- items

class GradingItem(BaseModel):
    """One frame to grade; `acceptability_scored=False` documents it without an acceptability score."""

    model_config = ConfigDict(extra="forbid")
    id: str
    env: str
    stratum: Literal["random", "positive"]
    scorer_verdict: Literal["accept", "reject", "unscored"]
    gray: bool = False
    ground_truth: dict[str, Any] = Field(default_factory=dict)
    keys: list[KeySpec]
    acceptability_scored: bool = True


class ItemGrade(BaseModel):
    id: str
    env: str
    stratum: Literal["random", "positive"]
    scorer_verdict: Literal["accept", "reject", "unscored"]
    in_set: bool                  # not gray and not unscored
    acceptability_scored: bool    # in_set and the env/frame is scored for acceptability
    adequate: bool | None         # the model's verdict (None = out of grammar)
    in_grammar: bool
    lenient_in_grammar: bool      # the same reply under the lenient parse (reports only)
    field_scores: dict[str, float]  # only the fields scored on this frame
    doc_score: float | None       # mean of field_scores on a scorer-accepted frame, else None (App. D)
    errors: list[str] = Field(default_factory=list)


def grade_parsed(item: GradingItem, parsed: ParsedAnswer) -> ItemGrade:
    in_set = not item.gray and item.scorer_verdict != "unscored"
    fs: dict[str, float] = {}
    if in_set:
        for spec in item.keys:
            if item.scorer_verdict != "accept" and spec.scored_on != "all":
                continue
            truth = item.ground_truth.get(spec.name)
            if truth is None:
                continue
            fs[spec.name] = score_field(spec, parsed.fields.get(spec.name), truth)
    return ItemGrade(
        id=item.id, env=item.env, stratum=item.stratum, scorer_verdict=item.scorer_verdict,
        in_set=in_set, acceptability_scored=in_set and item.acceptability_scored,
        adequate=parsed.adequate, in_grammar=parsed.in_grammar,
        lenient_in_grammar=parsed.best_effort.in_grammar,
        field_scores=fs,
        doc_score=(sum(fs.values()) / len(fs)) if fs and item.scorer_verdict == "accept" else None,
        errors=list(parsed.errors),
    )


def grade_item(item: GradingItem, reply: str | None) -> ItemGrade:
    """Strict-parse `reply` and grade it; never raises on any reply."""
    return grade_parsed(item, parse_answer(reply, item.keys))


def always_accept_grades(items: Iterable[GradingItem]) -> list[ItemGrade]:
    """The 'always accept' baseline: adequate=true, every field None (so out of grammar)."""
    out = []
    for it in items:
        p = ParsedAnswer(in_grammar=False, adequate=True, fields={k.name: None for k in it.keys},
                         errors=["baseline: fields unanswered"])
        out.append(grade_parsed(it, p))
    return out


# ---------------------------------------------------------------- set metrics (vectorised)

class _Arrays:
    """Per-item 0/1 arrays so bootstrap resamples recompute non-additive metrics quickly."""

    def __init__(self, grades: list[ItemGrade]):
        g = grades
        self.acc_set = np.array([x.acceptability_scored for x in g], bool)
        self.random = np.array([x.stratum == "random" for x in g], bool)
        self.truth = np.array([x.scorer_verdict == "accept" for x in g], bool)
        self.says_yes = np.array([x.adequate is True for x in g], bool)
        self.says_no = np.array([x.adequate is False for x in g], bool)
        self.in_set = np.array([x.in_set for x in g], bool)
        self.gram = np.array([x.in_grammar for x in g], bool)
        self.doc = np.array([np.nan if x.doc_score is None else x.doc_score for x in g], float)


def _ratio(num: float, den: float) -> float | None:
    return float(num / den) if den > 0 else None


def _metrics_from(a: _Arrays, idx: np.ndarray | None = None) -> dict[str, float | None]:
    if idx is None:
        idx = np.arange(len(a.acc_set))
    s, r, t = a.acc_set[idx], a.random[idx], a.truth[idx]
    yes, no = a.says_yes[idx], a.says_no[idx]
    rej_rand = s & r & ~t
    pos = s & t
    fa = _ratio(np.sum(rej_rand & ~no), np.sum(rej_rand))
    miss = _ratio(np.sum(pos & ~yes), np.sum(pos))
    prec = _ratio(np.sum(s & r & t & yes), np.sum(s & r & yes))
    rec = None if miss is None else 1.0 - miss
    if prec is None or rec is None:
        f1 = None
    else:
        f1 = 0.0 if prec + rec == 0 else 2 * prec * rec / (prec + rec)
    d = a.doc[idx]
    d = d[~np.isnan(d)]
    ins = a.in_set[idx]
    return {
        "false_accept_rate": fa, "miss_rate": miss, "precision": prec, "recall": rec, "f1": f1,
        "doc_score": float(d.mean()) if d.size else None,
        "in_grammar": _ratio(np.sum(a.gram[idx] & ins), np.sum(ins)),
        "n_rejected_random": int(np.sum(rej_rand)), "n_acceptable": int(np.sum(pos)),
        "n_accepted_random": int(np.sum(s & r & yes)), "n_doc_frames": int(d.size),
        "n_acceptability": int(np.sum(s)), "n_in_set": int(np.sum(ins)),
    }


class AcceptabilityMetrics(BaseModel):
    false_accept_rate: float | None
    miss_rate: float | None
    precision: float | None
    recall: float | None
    f1: float | None
    n_acceptability: int      # frames scored for acceptability
    n_rejected_random: int    # FA denominator
    n_acceptable: int         # miss/recall denominator (all strata)
    n_accepted_random: int    # precision denominator


def acceptability_metrics(grades: list[ItemGrade]) -> AcceptabilityMetrics:
    m = _metrics_from(_Arrays(grades))
    return AcceptabilityMetrics(**{k: m[k] for k in AcceptabilityMetrics.model_fields})


def documentation_score(grades: list[ItemGrade]) -> float | None:
    """Mean of frame means over frames with a scored field (see module docstring)."""
    return _metrics_from(_Arrays(grades))["doc_score"]


def in_grammar_fraction(grades: list[ItemGrade]) -> float | None:
    return _metrics_from(_Arrays(grades))["in_grammar"]


def field_scores(grades: list[ItemGrade]) -> dict[tuple[str, str], float]:
    """(env, key) -> mean score over the frames that field is scored on (Fig. 3 / Table 10)."""
    acc: dict[tuple[str, str], list[float]] = {}
    for g in grades:
        for k, v in g.field_scores.items():
            acc.setdefault((g.env, k), []).append(v)
    return {k: sum(v) / len(v) for k, v in sorted(acc.items())}


class SetMetrics(BaseModel):
    acceptability: AcceptabilityMetrics
    doc_score: float | None
    in_grammar: float | None
    n_in_set: int
    n_doc_frames: int
    field_scores: dict[str, float]  # "env/key" -> mean


def set_metrics(grades: list[ItemGrade]) -> SetMetrics:
    m = _metrics_from(_Arrays(grades))
    return SetMetrics(
        acceptability=AcceptabilityMetrics(**{k: m[k] for k in AcceptabilityMetrics.model_fields}),
        doc_score=m["doc_score"], in_grammar=m["in_grammar"], n_in_set=m["n_in_set"],
        n_doc_frames=m["n_doc_frames"],
        field_scores={f"{e}/{k}": v for (e, k), v in field_scores(grades).items()},
    )


def bootstrap_strata(grades: list[ItemGrade]) -> list[str]:
    """Table 5's strata: all random frames together, and each env's positive stratum apart."""
    return ["random" if g.stratum == "random" else f"positive/{g.env}" for g in grades]


def statistic(grades: list[ItemGrade], name: str) -> Callable[[np.ndarray], float]:
    """f(indices) -> metric `name` on that resample (NaN when undefined), for scorers.stats."""
    a = _Arrays(grades)
    if name not in _metrics_from(a):
        raise KeyError(name)

    def f(idx: np.ndarray) -> float:
        v = _metrics_from(a, np.asarray(idx, dtype=np.intp))[name]
        return float("nan") if v is None else float(v)

    return f
