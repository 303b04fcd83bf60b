"""RealityBench set metrics for `scenebench score` (Tables 5/6, Figs. 2-3): every model graded on the same
frames, stratified-bootstrap intervals, paired differences, top groups, cost; a JSON-ready dict.

Only the frames in the set are graded (not gray, not `unscored`: App. D), so the bootstrap
resamples exactly the 1,378-style set. One resample stream per call serves every model:
`scorers.stats`' draws with `seed`, the first 1,000 resamples for the 95% intervals (what
`stratified_bootstrap(seed)` would draw) and all 2,000 for the paired differences (what
`paired_bootstrap(seed)` draws), so each model's metric is computed once per resample and
the M*(M-1)/2 pairs are differences of stored vectors.
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np

from blender_envs.registry import measurement_fields
from formats.predictions import settle_model_names
from scorers.cost import Price, set_cost
from scorers.realitybench_grading import (
    GradingItem, ItemGrade, _Arrays, _metrics_from, always_accept_grades, bootstrap_strata, field_scores,
    grade_item)
from scorers.realitybench_inputs import Predictions, ReportError
from scorers.realitybench_results import RealityBenchScore, ScoreResult
from scorers.stats import _groups, _resamples, percentile_ci

__all__ = ["score", "score_result", "field_skill", "cost_frontier", "set_metrics_fields", "BASELINE", "CI_METRICS",
           "PAIRED_METRICS", "SKILL_ORDER"]

CI_METRICS = ("f1", "false_accept_rate", "miss_rate", "precision", "recall", "doc_score", "in_grammar")
PAIRED_METRICS = ("f1", "doc_score")
COUNT_KEYS = ("n_rejected_random", "n_acceptable", "n_accepted_random", "n_doc_frames", "n_acceptability",
              "n_in_set")
BASELINE = "always-accept"
CONFIDENCE = 0.95
# Fig. 3's skill groups (Table 10): reading = transcribe text or digits, judgment = a categorical
# scene state, measurement = reading tape measures. Decided per key type, tape_gap's numbers apart.
SKILL_ORDER = ("reading", "judgment", "measurement")


def _unique_names(preds: list[Predictions]) -> None:
    """Two files naming the same model fall back to their stems; still equal -> error."""
    dup = settle_model_names(preds)
    if dup:
        raise ReportError(f"two prediction files for model {dup!r}; rename one file or fix its `model` field")
    if BASELINE in {p.model for p in preds}:
        raise ReportError(f"model name {BASELINE!r} is reserved for the baseline")


def field_skill(field_name: str, key_type: str) -> str:
    """Fig. 3 group of an `env/key` field."""
    if field_name in measurement_fields():
        return "measurement"
    return "judgment" if key_type in ("bool", "enum", "enum_list") else "reading"


def _none(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


class _Boot:
    """The shared resample stream and every model's per-resample metric vectors."""

    def __init__(self, strata: list[str], n_ci: int, n_paired: int, seed: int):
        rng = np.random.default_rng(seed)
        n = max(n_ci, n_paired)
        self.idx = list(_resamples(_groups(strata), n, rng))
        self.n_ci, self.n_paired = n_ci, n_paired

    def vectors(self, grades: list[ItemGrade]) -> tuple[dict, dict[str, np.ndarray]]:
        a = _Arrays(grades)
        point = _metrics_from(a)
        reps = [_metrics_from(a, i) for i in self.idx]
        vec = {m: np.array([np.nan if r[m] is None else r[m] for r in reps], float) for m in CI_METRICS}
        return point, vec

    def ci(self, point: dict, vec: dict[str, np.ndarray]) -> dict:
        out = {}
        for m in CI_METRICS:
            lo, hi, bad = percentile_ci(vec[m][: self.n_ci], CONFIDENCE)
            out[m] = {"estimate": _none(point[m]), "low": lo, "high": hi, "n_undefined": bad}
        return out


def _per_env(grades: list[ItemGrade]) -> dict:
    out = {}
    for env in sorted({g.env for g in grades}):
        m = _metrics_from(_Arrays([g for g in grades if g.env == env]))
        out[env] = {k: m[k] for k in (*CI_METRICS, "n_in_set", "n_acceptability", "n_doc_frames")}
    return out


def _field_counts(grades: list[ItemGrade]) -> dict[str, int]:
    c: Counter = Counter()
    for g in grades:
        for k in g.field_scores:
            c[f"{g.env}/{k}"] += 1
    return dict(sorted(c.items()))


def _cost(pred: Predictions, ids: list[str], prices: dict[str, Price]) -> dict:
    price = prices.get(pred.model)
    usages = [pred.usage[i] for i in ids if i in pred.usage]
    sc = set_cost(usages, price)
    out = sc.model_dump()
    out["n_with_usage"] = len(usages)
    out["n_set"] = len(ids)
    out["priced"] = bool(price is not None and price.priced)
    out["price"] = None if price is None else {"input": price.input, "output": price.output,
                                                "per_tokens": price.per_tokens, "source": price.source}
    if not usages:  # a price times no recorded tokens is not a cost of 0
        out["cost"] = None
        out["note"] = "no token usage in the predictions file"
    elif not out["priced"]:
        out["note"] = "no price in the price table" if price is None else "unpriced (null price)"
    elif len(usages) < len(ids):
        out["note"] = f"usage recorded for {len(usages)} of {len(ids)} frames; cost covers those only"
    if usages and sc.n_thinking_not_derivable:   # Table 11's thinking needs the reply's own token count
        note = (f"thinking not derivable for {sc.n_thinking_not_derivable} of {len(usages)} frames (one output "
                f"count; score --reply-tokenizer splits it)")
        out["note"] = f"{out['note']}; {note}" if out.get("note") else note
    return out


def _top_group(paired: dict, est: dict[str, float | None], metric: str, models: list[str]) -> dict:
    scored = [(m, est[m]) for m in models if est[m] is not None]
    if not scored:
        return {"leader": None, "members": []}
    leader = sorted(scored, key=lambda kv: (-kv[1], models.index(kv[0])))[0][0]
    members = [leader]
    for m, _ in scored:
        if m == leader:
            continue
        key = f"{leader} - {m}" if f"{leader} - {m}" in paired else f"{m} - {leader}"
        d = paired.get(key)
        if d is not None and d["low"] is not None and not d["excludes_zero"]:
            members.append(m)
    return {"leader": leader, "members": members}


def score(items: list[GradingItem], preds: list[Predictions], prices: dict[str, Price], seed: int = 0,
          n_ci: int = 1000, n_paired: int = 2000, dataset: str = "", prices_path: str = "") -> tuple[dict, list[str]]:
    """(metrics dict for metrics.json, warning lines): `score_result` dumped, as the CLI and the report use it."""
    r = score_result(items, preds, prices, seed=seed, n_ci=n_ci, n_paired=n_paired, dataset=dataset,
                     prices_path=prices_path)
    return r.metrics.model_dump(), r.warnings


def score_result(items: list[GradingItem], preds: list[Predictions], prices: dict[str, Price], seed: int = 0,
                 n_ci: int = 1000, n_paired: int = 2000, dataset: str = "", prices_path: str = "") -> ScoreResult:
    """Every prediction file graded against `items`: the typed metrics and the warning lines."""
    _unique_names(preds)
    warnings: list[str] = []
    all_ids = {it.id for it in items}
    in_set = [it for it in items if not it.gray and it.scorer_verdict != "unscored"]
    ids = [it.id for it in in_set]
    boot = _Boot(bootstrap_strata(always_accept_grades(in_set)), n_ci, n_paired, seed)

    models: dict[str, dict] = {}
    vecs: dict[str, dict[str, np.ndarray]] = {}
    for p in preds:
        unknown = sorted(set(p.replies) - all_ids)
        missing = [i for i in ids if i not in p.replies]
        no_reply = sum(1 for i in ids if i in p.replies and p.replies[i] is None)
        non_text = sum(1 for i in ids if p.replies.get(i) is not None and not isinstance(p.replies[i], str))
        grades = [grade_item(it, p.replies.get(it.id)) for it in in_set]
        point, vec = boot.vectors(grades)
        vecs[p.model] = vec
        fc = _field_counts(grades)
        info = {
            "file": str(p.path), "lines": p.n_lines, "matched": len(ids) - len(missing), "missing": len(missing),
            "missing_ids": missing[:20], "unknown": len(unknown), "unknown_ids": unknown[:20],
            "duplicate_ids": sorted(set(p.duplicate_ids))[:20], "n_duplicates": len(p.duplicate_ids),
            "torn_last_line": p.torn_last_line, "unreadable_lines": p.unreadable_lines[:20],
            "n_unreadable_lines": len(p.unreadable_lines), "lines_without_id": p.no_id_lines,
            "non_text_replies": non_text, "null_replies": no_reply, "bad_usage_lines": p.bad_usage,
            "model_names_in_file": p.model_names,
            "replies_cut_by_cap": sum(1 for i in ids if i in p.cut_by_cap),
            "thinking_errors": [e for e in p.thinking_errors if e.partition(":")[0] in set(ids)],
        }
        models[p.model] = {
            "predictions": info,
            "metrics": boot.ci(point, vec),
            "counts": {k: point[k] for k in COUNT_KEYS},
            "lenient_in_grammar": (sum(g.lenient_in_grammar for g in grades) / len(grades)) if grades else None,
            "field_scores": {k: v for k, v in set_metrics_fields(grades).items()},
            "field_n": fc,
            "per_env": _per_env(grades),
            "cost": _cost(p, ids, prices),
        }
        w = f"{p.path}"
        if p.torn_last_line:
            warnings.append(f"{w}: torn last line ignored")
        if info["replies_cut_by_cap"]:
            warnings.append(f"{w}: {info['replies_cut_by_cap']} reply(ies) cut by the output cap "
                            f"(finish_reason \"length\"; scored as given: raise --max-tokens to avoid it)")
        for e in info["thinking_errors"]:      # one line per record whose count could not be split
            warnings.append(f"{w}: thinking not derived for {e}")
        if p.unreadable_lines:
            warnings.append(f"{w}: {len(p.unreadable_lines)} unreadable line(s) skipped "
                            f"(line {', '.join(map(str, p.unreadable_lines[:5]))})")
        if unknown:
            warnings.append(f"{w}: {len(unknown)} id(s) not in the dataset ignored (e.g. {', '.join(unknown[:3])})")
        if missing:
            warnings.append(f"{w}: {len(missing)} of {len(ids)} frame(s) have no line (scored wrong)")
        if no_reply:
            warnings.append(f"{w}: {no_reply} frame(s) have a null reply, e.g. a request error (scored wrong)")
        if p.duplicate_ids:
            warnings.append(f"{w}: {len(p.duplicate_ids)} repeated id(s); the last line of each counts")
        if non_text:
            warnings.append(f"{w}: {non_text} reply value(s) are not text (scored out of grammar)")
        if len(p.model_names) > 1:
            warnings.append(f"{w}: several `model` values {p.model_names}; using {p.model!r}")
        if p.invalid_utf8_lines:
            warnings.append(f"{w}: {len(p.invalid_utf8_lines)} line(s) with invalid UTF-8, read with U+FFFD "
                            f"(line {', '.join(map(str, p.invalid_utf8_lines[:5]))})")

    base_grades = always_accept_grades(in_set)
    bpoint, bvec = boot.vectors(base_grades)
    baseline = {"metrics": boot.ci(bpoint, bvec), "counts": {k: bpoint[k] for k in COUNT_KEYS}}

    names = [p.model for p in preds]
    paired: dict[str, dict] = {m: {} for m in PAIRED_METRICS}
    top: dict[str, dict] = {}
    for metric in PAIRED_METRICS:
        est = {m: models[m]["metrics"][metric]["estimate"] for m in names}
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                d = vecs[a][metric][: boot.n_paired] - vecs[b][metric][: boot.n_paired]
                lo, hi, bad = percentile_ci(d, CONFIDENCE)
                e = None if est[a] is None or est[b] is None else est[a] - est[b]
                paired[metric][f"{a} - {b}"] = {
                    "a": a, "b": b, "estimate": e, "low": lo, "high": hi, "n_undefined": bad,
                    "excludes_zero": bool(lo is not None and (lo > 0 or hi < 0))}
        top[metric] = _top_group(paired[metric], est, metric, names)

    key_types = {f"{it.env}/{k.name}": k.type for it in in_set for k in it.keys}
    fields = sorted({f for m in models.values() for f in m["field_scores"]})
    verdicts = Counter(it.scorer_verdict for it in items)
    envs = {}
    for env in sorted({it.env for it in items}):
        e_items = [it for it in items if it.env == env]
        envs[env] = {"frames": len(e_items), "gray": sum(it.gray for it in e_items),
                     "unscored": sum(it.scorer_verdict == "unscored" and not it.gray for it in e_items),
                     "in_set": sum(1 for it in in_set if it.env == env),
                     "acceptability_scored": sum(1 for it in in_set if it.env == env and it.acceptability_scored),
                     "random": sum(1 for it in e_items if it.stratum == "random"),
                     "positive": sum(1 for it in e_items if it.stratum == "positive")}
    metrics = {
        "dataset": {"path": dataset, "frames": len(items), "in_set": len(in_set),
                    "excluded_gray": sum(it.gray for it in items),
                    "excluded_unscored": sum(it.scorer_verdict == "unscored" and not it.gray for it in items),
                    "scorer_verdicts": dict(sorted(verdicts.items())), "environments": envs},
        "settings": {"seed": seed, "confidence": CONFIDENCE, "n_resamples_ci": n_ci, "n_resamples_paired": n_paired,
                     "bootstrap": "stratified: random frames together, each environment's positive stratum apart",
                     "prices": prices_path, "grading": "strict parse (App. C); missing or malformed reply = wrong"},
        "model_order": names,
        "models": models,
        "baseline": {BASELINE: baseline},
        "paired_differences": paired,
        "top_group": top,
        "fields": {f: {"skill": field_skill(f, key_types.get(f, "")), "type": key_types.get(f)} for f in fields},
    }
    return ScoreResult(metrics=RealityBenchScore.model_validate(metrics), warnings=warnings)


def set_metrics_fields(grades: list[ItemGrade]) -> dict[str, float]:
    return {f"{e}/{k}": v for (e, k), v in field_scores(grades).items()}


def cost_frontier(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Models no cheaper-or-equal model beats: sorted by cost, each strictly better than all cheaper."""
    out: list[tuple[float, float]] = []
    best = -math.inf
    for c, s in sorted(points, key=lambda p: (p[0], -p[1])):
        if s > best:
            out.append((c, s))
            best = s
    return out
