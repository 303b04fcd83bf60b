"""Score prediction files against an exported RealityBench and write the report (Table 5/6, Figs. 2-3).

Predictions: the one schema and reader of `formats.predictions` (id and reply aliases,
the duplicate rule, torn and unreadable lines, size caps). The reply must be the raw text:
anything else (a parsed object, null, an `error` line) is scored as out of grammar, never a
crash. Torn, unreadable and id-less lines and ids not in the dataset are skipped and
reported; a frame without a line is a missing reply (wrong on every count). Token usage
(`scorers.cost.usage_of_record`) is read from the line that counts.

Only the frames in the set are graded (not gray, not `unscored`: App. D), so the bootstrap
resamples exactly the 1,378-style set. One resample stream per call serves every model:
`scorers.stats`' draws with `seed`, the first 1,000 resamples for the 95% intervals (what
`stratified_bootstrap(seed)` would draw) and all 2,000 for the paired differences (what
`paired_bootstrap(seed)` draws), so each model's metric is computed once per resample and
the M*(M-1)/2 pairs are differences of stored vectors.
"""
from __future__ import annotations

import io
import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from formats import atomic
from formats.predictions import PredictionsError, read_predictions_file
from scorers.cost import DEFAULT_PRICES, Price, Usage, load_prices, set_cost, usage_of_record
from scorers.realitybench_grading import (
    GradingItem, ItemGrade, _Arrays, _metrics_from, always_accept_grades, bootstrap_strata, field_scores,
    grade_item)
from scorers.stats import _groups, _resamples, percentile_ci

CI_METRICS = ("f1", "false_accept_rate", "miss_rate", "precision", "recall", "doc_score", "in_grammar")
PAIRED_METRICS = ("f1", "doc_score")
COUNT_KEYS = ("n_rejected_random", "n_acceptable", "n_accepted_random", "n_doc_frames", "n_acceptability",
              "n_in_set")
BASELINE = "always-accept"
CONFIDENCE = 0.95
# Fig. 3's skill groups (Table 10): reading = transcribe text or digits, judgment = a categorical
# scene state, measurement = reading tape measures. Decided per key type, tape_gap's numbers apart.
MEASUREMENT_FIELDS = frozenset({"tape_gap/reading_in", "tape_gap/gap_in"})
SKILL_ORDER = ("reading", "judgment", "measurement")

__all__ = ["ReportError", "Predictions", "load_predictions", "score", "write_report", "summary_table",
           "field_skill", "cost_frontier"]


class ReportError(ValueError):
    """Bad input to `scenebench score` (missing file, clashing model names); one line says why."""


# ---------------------------------------------------------------- predictions

@dataclass
class Predictions:
    path: Path
    model: str
    replies: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, Usage] = field(default_factory=dict)
    n_lines: int = 0
    torn_last_line: bool = False
    unreadable_lines: list[int] = field(default_factory=list)
    duplicate_ids: list[str] = field(default_factory=list)
    no_id_lines: int = 0
    bad_usage: int = 0
    model_names: list[str] = field(default_factory=list)


def load_predictions(path: str | Path) -> Predictions:
    """Read one predictions file (`formats.predictions` rules); ReportError if it cannot be read.

    Over-long lines count as unreadable; token usage is read from the line that counts."""
    try:
        pf = read_predictions_file(path)
    except PredictionsError as exc:
        raise ReportError(str(exc)) from None
    pred = Predictions(path=pf.path, model=pf.model, replies=pf.replies, n_lines=pf.n_lines,
                       torn_last_line=pf.torn_last_line,
                       unreadable_lines=sorted(pf.unreadable_lines + pf.oversize_lines),
                       duplicate_ids=list(pf.duplicate_ids), no_id_lines=len(pf.no_id_lines),
                       model_names=pf.model_names)
    for fid, rec in pf.records.items():
        u = usage_of_record(rec)
        if u is False:
            pred.bad_usage += 1
        elif u is not None:
            pred.usage[fid] = u
    return pred


def _unique_names(preds: list[Predictions]) -> None:
    """Two files naming the same model fall back to their stems; still equal -> error."""
    counts = Counter(p.model for p in preds)
    for p in preds:
        if counts[p.model] > 1:
            p.model = p.path.stem
    counts = Counter(p.model for p in preds)
    dup = sorted(k for k, v in counts.items() if v > 1)
    if dup:
        raise ReportError(f"two prediction files for model {dup[0]!r}; rename one file or fix its `model` field")
    if BASELINE in counts:
        raise ReportError(f"model name {BASELINE!r} is reserved for the baseline")


# ---------------------------------------------------------------- metrics

def field_skill(field_name: str, key_type: str) -> str:
    """Fig. 3 group of an `env/key` field."""
    if field_name in MEASUREMENT_FIELDS:
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
    """(metrics dict for metrics.json, warning lines) for every prediction file against `items`."""
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
            "non_text_replies": non_text, "null_replies": no_reply, "bad_usage_lines": p.bad_usage, "model_names_in_file": p.model_names,
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
    return metrics, warnings


def set_metrics_fields(grades: list[ItemGrade]) -> dict[str, float]:
    return {f"{e}/{k}": v for (e, k), v in field_scores(grades).items()}


# ---------------------------------------------------------------- writing

def _f(v: Any, d: int = 2) -> str:
    return "–" if v is None else f"{v:.{d}f}"


def _pct(v: Any) -> str:
    return "–" if v is None else f"{100 * v:.0f}"


def _ci(m: dict, d: int = 2) -> str:
    if m["estimate"] is None:
        return "–"
    if m["low"] is None:
        return _f(m["estimate"], d)
    return f"{_f(m['estimate'], d)} [{_f(m['low'], d)}, {_f(m['high'], d)}]"


def _usd(v: Any) -> str:
    return "–" if v is None else (f"{v:.2f}" if v >= 0.1 else f"{v:.4f}")


def _rows(metrics: dict) -> list[tuple[str, dict, dict | None]]:
    out = [(m, metrics["models"][m]["metrics"], metrics["models"][m]) for m in metrics["model_order"]]
    out.append((BASELINE, metrics["baseline"][BASELINE]["metrics"], None))
    return out


def summary_table(metrics: dict) -> str:
    """The short stdout table."""
    head = ("model", "F1 [95% CI]", "FA%", "miss%", "doc [95% CI]", "gram%", "cost $")
    rows = [head]
    for name, m, full in _rows(metrics):
        cost = "–" if full is None else _usd(full["cost"]["cost"])
        rows.append((name, _ci(m["f1"]), _pct(m["false_accept_rate"]["estimate"]), _pct(m["miss_rate"]["estimate"]),
                     _ci(m["doc_score"]), _pct(m["in_grammar"]["estimate"]), cost))
    w = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(r)) for r in rows)


def _md_table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(r) + " |" for r in rows]


def _sorted_fields(metrics: dict) -> list[str]:
    """Fig. 3 column order: by skill group, then by the mean over models (descending)."""
    fields = list(metrics["fields"])
    mean = {}
    for f in fields:
        v = [metrics["models"][m]["field_scores"][f] for m in metrics["model_order"]
             if f in metrics["models"][m]["field_scores"]]
        mean[f] = sum(v) / len(v) if v else -1.0
    return sorted(fields, key=lambda f: (SKILL_ORDER.index(metrics["fields"][f]["skill"]), -mean[f], f))


def report_markdown(metrics: dict) -> str:
    ds, st = metrics["dataset"], metrics["settings"]
    L = ["# RealityBench report", "",
         f"Dataset `{ds['path']}`: {ds['frames']} frames, {ds['in_set']} in the set "
         f"({ds['excluded_gray']} gray and {ds['excluded_unscored']} unscored frames left out, App. D). "
         f"Replies are parsed strictly (one JSON object, nothing else); a missing or malformed reply is wrong. "
         f"Intervals: {int(100 * st['confidence'])}% percentile, stratified bootstrap over frames "
         f"({st['n_resamples_ci']} resamples; random frames together, each positive stratum apart), seed {st['seed']}.",
         ""]
    L += ["## Acceptability and documentation", "",
          "FA: random frames the scorer rejects that the model does not reject; miss: scorer-acceptable frames "
          "(both strata) the model does not accept; precision on random frames, recall on both strata; "
          "documentation: mean per-frame field score on scorer-acceptable frames (App. D; per field, tape "
          "leaning is scored on all tape_gap frames); gram.: replies in the stated grammar (lenient: a JSON object somewhere in the reply).", ""]
    rows = []
    for name, m, full in _rows(metrics):
        cost = full["cost"] if full else None
        rows.append([name, _pct(m["false_accept_rate"]["estimate"]), _pct(m["miss_rate"]["estimate"]),
                     _f(m["precision"]["estimate"]), _f(m["recall"]["estimate"]), _ci(m["f1"]), _ci(m["doc_score"]),
                     _pct(m["in_grammar"]["estimate"]), "–" if full is None else _pct(full["lenient_in_grammar"]),
                     "–" if cost is None else _usd(cost["cost"]),
                     "–" if cost is None else _f(cost["mean_thinking_tokens"], 0)])
    L += _md_table(["model", "FA (%)", "miss (%)", "P", "R", "F1 [95% CI]", "doc. [95% CI]", "gram. (%)",
                    "lenient gram. (%)", "cost ($)", "think"], rows)
    L += ["", "Intervals of every rate:", ""]
    rows = [[name] + [_ci(m[k]) for k in ("false_accept_rate", "miss_rate", "precision", "recall", "in_grammar")]
            for name, m, _ in _rows(metrics)]
    L += _md_table(["model", "FA", "miss", "precision", "recall", "in grammar"], rows)
    counts = metrics["baseline"][BASELINE]["counts"]
    L += ["", f"Frames: {counts['n_acceptability']} scored for acceptability ({counts['n_rejected_random']} random "
          f"scorer-rejected = FA denominator, {counts['n_acceptable']} scorer-acceptable = miss denominator), "
          f"{counts['n_doc_frames']} documented.", ""]

    fields = _sorted_fields(metrics)
    names = metrics["model_order"]
    L += ["## Documentation by field", "", "Mean score over the frames each field is scored on (Fig. 3).", ""]
    rows = []
    for f in fields:
        n = next((metrics["models"][m]["field_n"].get(f) for m in names if f in metrics["models"][m]["field_n"]), 0)
        rows.append([f, metrics["fields"][f]["skill"], str(n)] +
                    [_f(metrics["models"][m]["field_scores"].get(f)) for m in names])
    L += _md_table(["field", "skill", "frames"] + names, rows)
    L += ["", "## Per environment", ""]
    envs = sorted({e for m in names for e in metrics["models"][m]["per_env"]})
    rows = []
    for e in envs:
        for m in names:
            pe = metrics["models"][m]["per_env"].get(e)
            if pe:
                rows.append([e, m, _f(pe["f1"]), _pct(pe["false_accept_rate"]), _pct(pe["miss_rate"]),
                             _f(pe["doc_score"]), _pct(pe["in_grammar"]), str(pe["n_in_set"])])
    L += _md_table(["environment", "model", "F1", "FA (%)", "miss (%)", "doc.", "gram. (%)", "frames"], rows)

    L += ["", "## Paired differences", "",
          f"Model A minus model B on the same resampled frames ({st['n_resamples_paired']} resamples); "
          "* = the interval excludes zero. Top group: the leader and every model whose interval against it "
          "includes zero (Table 6).", ""]
    for metric, title in (("f1", "acceptability F1"), ("doc_score", "documentation")):
        pairs = metrics["paired_differences"][metric]
        tg = metrics["top_group"][metric]
        L += [f"**{title}**: top group {', '.join(tg['members']) or '–'} (leader {tg['leader'] or '–'}).", ""]
        if pairs:
            L += _md_table(["A − B", "difference [95% CI]", "excludes 0"],
                           [[k, _ci(v, 3), "*" if v["excludes_zero"] else ""] for k, v in pairs.items()])
        else:
            L += ["(one model: no pairs)"]
        L += [""]

    L += ["## Cost", "", "Whole set at the price table's rates: every prompt token at the input rate, reply and "
          f"thinking tokens at the output rate, no cache discount (prices: `{st['prices']}`).", ""]
    rows = []
    for m in names:
        c = metrics["models"][m]["cost"]
        pr = c["price"] or {}
        rows.append([m, _f(pr.get("input")), _f(pr.get("output")), str(c["prompt_tokens"]), str(c["output_tokens"]),
                     str(c["thinking_tokens"]), _f(c["mean_thinking_tokens"], 0), _usd(c["cost"]),
                     _pct(c["prompt_share"]), c.get("note", "")])
    L += _md_table(["model", "in $/M", "out $/M", "prompt tok.", "reply tok.", "thinking tok.", "think/item",
                    "cost ($)", "prompt share (%)", "note"], rows)
    L += ["", "## Prediction files", ""]
    rows = []
    for m in names:
        p = metrics["models"][m]["predictions"]
        rows.append([m, f"`{p['file']}`", str(p["lines"]), str(p["matched"]), str(p["missing"]), str(p["unknown"]),
                     str(p["n_duplicates"]), "yes" if p["torn_last_line"] else "no", str(p["n_unreadable_lines"])])
    L += _md_table(["model", "file", "lines", "matched", "no reply", "unknown ids", "repeated ids", "torn last line",
                    "unreadable lines"], rows)
    L += ["", "## Figures", "", "![F1 and documentation against cost](fig2_f1_doc_vs_cost.png)", "",
          "![Documentation score by field](fig3_field_heatmap.png)", ""]
    return "\n".join(L)


def cost_frontier(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Models no cheaper-or-equal model beats: sorted by cost, each strictly better than all cheaper."""
    out: list[tuple[float, float]] = []
    best = -math.inf
    for c, s in sorted(points, key=lambda p: (p[0], -p[1])):
        if s > best:
            out.append((c, s))
            best = s
    return out


def _wrap(name: str, width: int = 14) -> str:
    """Break a long model name at - _ / or spaces so it fits the narrow 'cost unknown' strip."""
    import re

    parts = re.findall(r"[^-_/ ]+[-_/ ]?", name) or [name]
    lines, cur = [], ""
    for p in parts:
        if cur and len(cur) + len(p) > width:
            lines.append(cur)
            cur = ""
        cur += p
    lines.append(cur)
    return "\n".join(x.strip() for x in lines)


def _declutter(fig, labels: list) -> None:
    """Move a name label up or down (in steps of its height) until it overlaps no earlier label."""
    renderer = fig.canvas.get_renderer()
    placed: list = []
    for ann in labels:
        dx, dy = ann.xyann
        h = ann.get_window_extent(renderer).height * 72 / fig.dpi + 1
        for step in (0, -1, 1, -2, 2, -3, 3, -4, 4):
            ann.xyann = (dx, dy + step * h)
            box = ann.get_window_extent(renderer)
            if not any(box.overlaps(b) for b in placed):
                break
        placed.append(ann.get_window_extent(renderer))


def _fig2(metrics: dict, path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = metrics["model_order"]
    colors = plt.get_cmap("tab10" if len(names) <= 10 else "tab20")
    color = {m: colors(i % colors.N) for i, m in enumerate(names)}
    cost = {m: metrics["models"][m]["cost"]["cost"] for m in names}
    priced = [m for m in names if cost[m] is not None and cost[m] > 0]
    unpriced = [m for m in names if m not in priced]
    nu = len(unpriced)
    strip_w = 1.4 if nu <= 2 else 0.6 + 0.45 * nu  # room for every unpriced model's column
    fig = plt.figure(figsize=(13 + 0.45 * max(0, nu - 2), 5.6))
    gs = fig.add_gridspec(1, 5, width_ratios=[strip_w, 5, 0.55, strip_w, 5], wspace=0.05)
    base = metrics["baseline"][BASELINE]["metrics"]["f1"]["estimate"]
    all_labels: list = []
    for col, (metric, title) in enumerate((("f1", "acceptability F1"), ("doc_score", "documentation score"))):
        strip = fig.add_subplot(gs[0, 3 * col])
        ax = fig.add_subplot(gs[0, 3 * col + 1], sharey=strip)
        for a in (strip, ax):
            a.set_ylim(0, 1.05)
            a.grid(axis="y", alpha=0.3)
        strip.set_xlim(0, 1)
        strip.set_xticks([0.5], ["cost\nunknown"], fontsize=8)
        strip.set_ylabel(title)
        strip.set_facecolor("#f2f2f2")
        plt.setp(ax.get_yticklabels(), visible=False)
        ax.set_title(f"{title} vs cost of the set")
        if metric == "f1" and base is not None:
            for a in (strip, ax):
                a.axhline(base, ls=":", color="0.3", lw=1.2)
            ax.annotate(f"always accept ({base:.2f})", xy=(0.99, base), xycoords=("axes fraction", "data"),
                        xytext=(0, 3), textcoords="offset points", ha="right", va="bottom", fontsize=8, color="0.3")
        labels: list = []
        for k, m in enumerate(unpriced):
            ci = metrics["models"][m]["metrics"][metric]
            if ci["estimate"] is None:
                continue
            y = ci["estimate"]
            x = 0.5 if nu == 1 else 0.15 + 0.7 * k / (nu - 1)
            err = None if ci["low"] is None else [[y - ci["low"]], [ci["high"] - y]]
            strip.errorbar([x], [y], yerr=err, fmt="o", mfc="white", mec=color[m], ecolor=color[m], ms=7, capsize=2)
            labels.append(strip.annotate(_wrap(m), (x, y), xytext=(0, -6), textcoords="offset points", ha="center",
                                         va="top", fontsize=7, color=color[m],
                                         bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none",
                                               "alpha": 0.8}))
        pts = []
        for m in priced:
            ci = metrics["models"][m]["metrics"][metric]
            if ci["estimate"] is None:
                continue
            y = ci["estimate"]
            pts.append((cost[m], y))
            err = None if ci["low"] is None else [[y - ci["low"]], [ci["high"] - y]]
            ax.errorbar([cost[m]], [y], yerr=err, fmt="o", color=color[m], ms=7, capsize=2)
        if pts:
            ax.set_xscale("log")
            lo, hi = min(p[0] for p in pts), max(p[0] for p in pts)
            ax.set_xlim(lo / 3, hi * 4)
            span = math.log(hi * 4) - math.log(lo / 3)
            for m in priced:  # names to the right of a point, or to its left near the right edge
                y = metrics["models"][m]["metrics"][metric]["estimate"]
                if y is None:
                    continue
                right = (math.log(cost[m]) - math.log(lo / 3)) / span > 0.6
                labels.append(ax.annotate(m, (cost[m], y), xytext=(-6 if right else 6, 4), textcoords="offset points",
                                          ha="right" if right else "left", fontsize=8, color=color[m]))
            fr = cost_frontier(pts)
            if len(fr) > 1:
                xs = [p[0] for p in fr]
                ys = [p[1] for p in fr]
                ax.step(xs, ys, where="post", ls="--", color="0.5", lw=1, label="cost frontier")
                ax.legend(loc="lower right", fontsize=8, frameon=False)
            ax.set_xlabel("cost of the whole set (USD, log scale)")
        all_labels.extend(labels)
        if not pts:
            ax.set_xticks([])
            ax.text(0.5, 0.25, "no priced model\n(add prices to the price table)", ha="center", va="center",
                    transform=ax.transAxes, color="0.4")
    fig.suptitle("RealityBench: acceptability F1 and documentation score against cost (95% CIs)", fontsize=11)
    fig.subplots_adjust(left=0.06, right=0.98, bottom=0.14, top=0.88)
    _declutter(fig, all_labels)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _fig3(metrics: dict, path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fields = _sorted_fields(metrics)
    names = sorted(metrics["model_order"], key=lambda m: (
        -(metrics["models"][m]["metrics"]["doc_score"]["estimate"] or -1.0), metrics["model_order"].index(m)))
    rows = ["mean (all models)"] + names
    data = np.full((len(rows), max(1, len(fields))), np.nan)
    for j, f in enumerate(fields):
        for i, m in enumerate(names, start=1):
            v = metrics["models"][m]["field_scores"].get(f)
            data[i, j] = np.nan if v is None else v
        col = data[1:, j]
        if np.any(~np.isnan(col)):
            data[0, j] = np.nanmean(col)
    w = max(8.0, 0.62 * len(fields) + 4.0)
    h = max(3.2, 0.5 * len(rows) + 2.8)
    fig, ax = plt.subplots(figsize=(w, h))
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("#dddddd")
    im = ax.imshow(np.ma.masked_invalid(data), cmap=cmap, vmin=0, vmax=1, aspect="auto")
    for i in range(len(rows)):
        for j in range(len(fields)):
            v = data[i, j]
            ax.text(j, i, "–" if np.isnan(v) else f"{v:.2f}", ha="center", va="center", fontsize=8,
                    color="black" if (np.isnan(v) or v > 0.6) else "white")
    ax.set_yticks(range(len(rows)), rows, fontsize=9)
    ax.set_xticks(range(len(fields)), fields, rotation=55, ha="right", rotation_mode="anchor", fontsize=8)
    ax.axhline(0.5, color="white", lw=3)
    if not fields:
        ax.set_xticks([])
        ax.text(0, 0, "no documented fields", ha="center", va="center")
    # skill groups: separators and a label above each group
    start = 0
    for skill in SKILL_ORDER:
        n = sum(1 for f in fields if metrics["fields"][f]["skill"] == skill)
        if n == 0:
            continue
        if start > 0:
            ax.axvline(start - 0.5, color="white", lw=3)
        ax.text(start + n / 2 - 0.5, 1.015, skill, ha="center", va="bottom", fontsize=9, fontweight="bold",
                transform=ax.get_xaxis_transform())
        start += n
    ax.set_ylim(len(rows) - 0.5, -0.5)
    fig.colorbar(im, ax=ax, fraction=0.03, pad=0.02, label="documentation score")
    ax.set_title("Documentation score by field and model\n(scorer-acceptable frames; tape leaning: all tape_gap "
                 "frames)", fontsize=10, pad=20)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_report(metrics: dict, report_dir: str | Path) -> list[Path]:
    """report.md, metrics.json (sorted keys) and the two figures; returns the paths written."""
    d = Path(report_dir)
    d.mkdir(parents=True, exist_ok=True)
    out = [d / "report.md", d / "metrics.json", d / "fig2_f1_doc_vs_cost.png", d / "fig3_field_heatmap.png"]
    # everything is rendered before anything is written, and each file is replaced atomically
    texts = [report_markdown(metrics) + "\n", json.dumps(metrics, sort_keys=True, indent=2, allow_nan=False) + "\n"]
    figs = [_png(_fig2, metrics), _png(_fig3, metrics)]
    # "replace": a path with undecodable bytes must not leave the report unwritten
    for path, data in zip(out, [t.encode("utf-8", "replace") for t in texts] + figs):
        atomic.write_bytes(path, data)
    return out


def _png(draw, metrics: dict) -> bytes:
    buf = io.BytesIO()
    draw(metrics, buf)
    return buf.getvalue()


def load_price_table(path: str | Path | None) -> dict[str, Price]:
    p = Path(path) if path else DEFAULT_PRICES
    if not p.is_file():
        raise ReportError(f"price table {p} does not exist")
    try:
        return load_prices(p)
    except (ValueError, TypeError, AttributeError) as exc:
        raise ReportError(f"price table {p} is malformed: {str(exc).splitlines()[0]}") from None


# ---------------------------------------------------------------- human ratings (App. E / Table 13)

_YES = {"true", "1", "yes", "y", "accept", "accepted", "adequate"}
_NO = {"false", "0", "no", "n", "reject", "rejected", "inadequate"}


def read_ratings_csv(path: str | Path) -> dict[str, dict[str, bool]]:
    """{frame_id: {rater: acceptable}} from a CSV with columns frame_id, rater, acceptable.

    An empty `acceptable` is a skipped frame; any other unreadable value, a missing column or
    the same rater giving two different labels to one frame is an error naming the line.
    """
    import csv

    p = Path(path)
    if not p.is_file():
        raise ReportError(f"ratings file {p} does not exist")
    with p.open(newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        cols = [c.strip() for c in (reader.fieldnames or [])]
        missing = [c for c in ("frame_id", "rater", "acceptable") if c not in cols]
        if missing:
            raise ReportError(f"{p}: missing column(s) {', '.join(missing)} (need frame_id, rater, acceptable)")
        out: dict[str, dict[str, bool]] = {}
        for row in reader:
            row = {(k or "").strip(): (v or "").strip() for k, v in row.items() if k is not None}
            line = reader.line_num
            fid, rater, val = row.get("frame_id", ""), row.get("rater", ""), row.get("acceptable", "").lower()
            if not fid and not rater and not val:
                continue
            if not fid or not rater:
                raise ReportError(f"{p}:{line}: empty frame_id or rater")
            if val == "":
                continue
            if val not in _YES and val not in _NO:
                raise ReportError(f"{p}:{line}: acceptable must be true/false/1/0/yes/no, got {val!r}")
            b = val in _YES
            prev = out.setdefault(fid, {}).get(rater)
            if prev is not None and prev != b:
                raise ReportError(f"{p}:{line}: rater {rater!r} labels frame {fid!r} both ways")
            out[fid][rater] = b
    return out


def ratings_report(ratings: dict[str, dict[str, bool]], items: list[GradingItem] | None, seed: int = 0,
                   n_resamples: int = 1000, csv_path: str = "", dataset: str = "") -> dict:
    """Table 13 for the whole CSV and per environment, plus each rater against the others' majority."""
    from scorers.agreement import heldout_split, rater_vs_majority, scorer_vs_majority, table13_row

    by_id = {it.id: it for it in items or []}
    # the scorer's label: None where the frame is not scored for acceptability (car_plate, gray, unscored)
    scorer: dict[str, bool | None] = {}
    for fid, it in by_id.items():
        ok = it.acceptability_scored and not it.gray and it.scorer_verdict in ("accept", "reject")
        scorer[fid] = (it.scorer_verdict == "accept") if ok else None
    unknown = sorted(f for f in ratings if items is not None and f not in by_id)

    def env_of(fid: str) -> str:
        return by_id[fid].env if fid in by_id else fid.split("-")[0]

    envs: dict[str, dict] = {}
    for env in sorted({env_of(f) for f in ratings}):
        sub = {f: r for f, r in ratings.items() if env_of(f) == env}
        envs[env] = table13_row(sub, scorer).model_dump()
    overall = table13_row(ratings, scorer).model_dump()
    rated = {f: r for f, r in ratings.items() if len(r) >= 2}
    overall["scorer"] = scorer_vs_majority(rated, scorer, n_resamples=n_resamples, seed=seed).model_dump()
    split = Counter(heldout_split(f) for f in ratings)
    return {
        "csv": csv_path, "dataset": dataset or None, "seed": seed,
        "n_ratings": sum(len(r) for r in ratings.values()), "n_frames": len(ratings),
        "raters": sorted({k for r in ratings.values() for k in r}),
        "all": overall, "environments": envs,
        "rater_vs_majority": {k: v.model_dump() for k, v in rater_vs_majority(ratings).items()},
        "split": {"tune": split.get("tune", 0), "heldout": split.get("heldout", 0)},
        "unknown_frames": unknown,
        "scorer_available": items is not None,
    }


def ratings_table(rep: dict) -> str:
    """The Table 13-like text printed by `scenebench ratings`."""
    head = ("set", "frames", "raters", "ratings/frame", "agree", "alpha", "scorer (held-out)")
    rows = [head]

    def row(name: str, r: dict) -> tuple:
        s = r["scorer"]
        sc = "–" if s["agreement"] is None else f"{s['agreement']:.2f} ({s['n']})"
        return (name, str(r["frames"]), str(r["raters"]), _f(r["ratings_per_frame"], 1), _f(r["agree"]),
                _f(r["alpha"]), sc)

    for env, r in rep["environments"].items():
        rows.append(row(env, r))
    rows.append(row("all", rep["all"]))
    w = [max(len(r[i]) for r in rows) for i in range(len(head))]
    L = ["  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(r)) for r in rows]
    s = rep["all"]["scorer"]
    if s.get("ci") and s["ci"]["low"] is not None:
        L.append(f"scorer vs majority (held-out, >= 3 ratings, ties excluded): {s['agreement']:.2f} "
                 f"[{s['ci']['low']:.2f}, {s['ci']['high']:.2f}] on {s['n']} frames; accepts "
                 f"{s['accepts_of_majority_rejects']} of {s['n_majority_rejects']} majority rejects, rejects "
                 f"{s['rejects_of_majority_accepts']} of {s['n_majority_accepts']} majority accepts")
    L.append("each rater vs the majority of the others:")
    for k, v in rep["rater_vs_majority"].items():
        L.append(f"  {k}: {_f(v['agreement'])} ({v['n']} frames)")
    if rep["unknown_frames"]:
        L.append(f"{len(rep['unknown_frames'])} rated frame(s) not in the dataset (no scorer verdict): "
                 f"{', '.join(rep['unknown_frames'][:5])}")
    return "\n".join(L)
