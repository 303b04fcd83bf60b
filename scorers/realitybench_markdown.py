"""RealityBench report text: the stdout summary table and report.md, from a metrics dict
(`scorers.realitybench_metrics.score`); the fixed prose lives in templates below.
"""
from __future__ import annotations

from string import Template
from typing import Any

from scorers.realitybench_metrics import BASELINE, SKILL_ORDER

__all__ = ["summary_table", "report_markdown"]

# The fixed prose of report.md; $names are filled from the metrics.
INTRO = Template("""# RealityBench report

Dataset `$path`: $frames frames, $in_set in the set ($gray gray and $unscored unscored frames left out, \
App. D). Replies are parsed strictly (one JSON object, nothing else); a missing or malformed reply is wrong. \
Intervals: $confidence% percentile, stratified bootstrap over frames ($n_ci resamples; random frames \
together, each positive stratum apart), seed $seed.

## Acceptability and documentation

FA: random frames the scorer rejects that the model does not reject; miss: scorer-acceptable frames \
(both strata) the model does not accept; precision on random frames, recall on both strata; documentation: \
mean per-frame field score on scorer-acceptable frames (App. D; per field, tape leaning is scored on all \
tape_gap frames); gram.: replies in the stated grammar (lenient: a JSON object somewhere in the reply).
""")
FRAMES = Template("""
Frames: $n_acceptability scored for acceptability ($n_rejected_random random scorer-rejected = FA \
denominator, $n_acceptable scorer-acceptable = miss denominator), $n_doc_frames documented.
""")
PAIRED = Template("""
## Paired differences

Model A minus model B on the same resampled frames ($n_paired resamples); * = the interval excludes zero. \
Top group: the leader and every model whose interval against it includes zero (Table 6).
""")
COST = Template("""## Cost

Whole set at the price table's rates: every prompt token at the input rate, reply and thinking tokens at \
the output rate, no cache discount (prices: `$prices`).
""")
FIGURES = """
## Figures

![F1 and documentation against cost](fig2_f1_doc_vs_cost.png)

![Documentation score by field](fig3_field_heatmap.png)
"""


def _f(v: Any, d: int = 2) -> str:
    return "–" if v is None else f"{v:.{d}f}"


def _thinking(c: dict) -> str:
    """The thinking total, never a 0 that was not measured: "not derivable" when no item's is known."""
    if c.get("n_thinking_not_derivable") and c["mean_thinking_tokens"] is None:
        return "not derivable"
    return str(c["thinking_tokens"])


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
    L = INTRO.substitute(path=ds["path"], frames=ds["frames"], in_set=ds["in_set"], gray=ds["excluded_gray"],
                         unscored=ds["excluded_unscored"], confidence=int(100 * st["confidence"]),
                         n_ci=st["n_resamples_ci"], seed=st["seed"]).split("\n")
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
    cut = [(name, full["predictions"].get("replies_cut_by_cap", 0)) for name, _, full in _rows(metrics) if full]
    if any(n for _, n in cut):   # Table 5's caption line
        L += ["", "Replies cut by the output cap: " + ", ".join(f"{name} {n}" for name, n in cut if n) + "."]
    L += ["", "Intervals of every rate:", ""]
    rows = [[name] + [_ci(m[k]) for k in ("false_accept_rate", "miss_rate", "precision", "recall", "in_grammar")]
            for name, m, _ in _rows(metrics)]
    L += _md_table(["model", "FA", "miss", "precision", "recall", "in grammar"], rows)
    counts = metrics["baseline"][BASELINE]["counts"]
    L += FRAMES.substitute(counts).split("\n")

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

    L += PAIRED.substitute(n_paired=st["n_resamples_paired"]).split("\n")
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

    L += COST.substitute(prices=st["prices"]).split("\n")
    rows = []
    for m in names:
        c = metrics["models"][m]["cost"]
        pr = c["price"] or {}
        rows.append([m, _f(pr.get("input")), _f(pr.get("output")), str(c["prompt_tokens"]), str(c["output_tokens"]),
                     _thinking(c), _f(c["mean_thinking_tokens"], 0), _usd(c["cost"]),
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
    L += FIGURES.split("\n")
    return "\n".join(L)
