"""report.md of `scenebench score` for VANTAGE-Bench (scorers.vantage_report computes, this writes).

Report text only: every number here was computed before (scorers.vantage_scoring); the paper's
numbers for the same baselines are printed beside ours (PAPER_BASELINES, from
../shared/notes/vantage_metrics.md).
"""
from __future__ import annotations

from scorers.vantage_pillars import PILLARS

# (task, model name as scenebench's baselines write it) -> the paper's number for that baseline (×100)
PAPER_BASELINES = {
    ("single_object_tracking", "static_box"): 24.64,      # Table 9, success AUC, 8 frames
    ("single_object_tracking", "random_box"): 6.55,       # Table 9
    ("event_verification", "always_yes"): 38.95,          # macro-F1 on the paper's 104/59 split (notes §2)
}


def fmt_score(x) -> str:
    """A score as printed (two decimals), a missing one as a dash."""
    return "–" if x is None else f"{x:.2f}"


def cell(r: dict) -> str:
    """A task result as printed: the score and its interval."""
    if r["score"] is None:
        return "–"
    ci = "" if r["low"] is None else f" [{r['low']:.1f}, {r['high']:.1f}]"
    return f"{r['score']:.2f}{ci}"


def _baseline_markdown(b: dict) -> list[str]:
    L = ["## Baselines", "", "`reference` is the ground truth written as replies (every reader and grader at full "
         "marks; strict SOT tops out at 95.24, since IoU > 1 never holds). The others answer their own task only.", "",
         "| baseline | task | strict | vantage | paper (same baseline, vantage rules) |", "|---|---|---|---|---|"]
    for t, r in b["reference"]["tasks"].items():
        L.append(f"| reference | {t} | {cell(r['strict'])} | {cell(r['vantage'])} | |")
    for name, r in b.items():
        if name == "reference":
            continue
        paper = PAPER_BASELINES.get((r["task"], name))
        L.append(f"| {name} | {r['task']} | {cell(r['strict'])} | {cell(r['vantage'])} | "
                 f"{fmt_score(paper) if paper is not None else ''} |")
    return L + [""]


def _horizons_markdown(sot: dict | None) -> list[str]:
    """SOT per horizon: the primary score above is the shortest (8 frames, the paper's SOT column);
    the 16- and 32-frame tracklets of the same targets are here."""
    if sot is None:
        return []
    by = {c: sot[c]["metrics"].get("by_horizon") or {} for c in ("strict", "vantage")}
    L = ["", f"Single object tracking by horizon (success AUC ×100; the primary score is the "
         f"{sot['strict']['metrics'].get('horizon_frames')}-frame one):", "",
         "| frames | tracklets | strict | vantage | freeze rate |", "|---|---|---|---|---|"]
    for n, r in by["strict"].items():
        v = by["vantage"].get(n, {})
        L.append(f"| {n} | {r.get('n_tracklets')} | {fmt_score(_x100(r.get('auc')))} | "
                 f"{fmt_score(_x100(v.get('auc')))} | {fmt_score(r.get('freeze_rate'))} |")
    return L


def _x100(x):
    return None if x is None else 100 * x


def report_markdown(metrics: dict, figure: str | None) -> str:
    """report.md: each model's tasks and pillars, the baselines beside the paper's, the warnings."""
    L = ["# VANTAGE-Bench results", "", f"Dataset: `{metrics['dataset']}`; {metrics['n_items']} items. Every score "
         "×100; the primary metric per task (Table 5) with a 95 % percentile bootstrap interval "
         f"({metrics['n_resamples']} resamples of the task's unit). `strict` is scenebench's default, `vantage` the "
         "paper's evaluation code's rules (the only numbers comparable with its tables).", ""]
    if figure:
        L += [f"![primary scores]({figure})", ""]
    for name, m in metrics["models"].items():
        L += [f"## {name}", "", f"Answered {m['n_answered']} of {metrics['n_items']} items.", "",
              "| task | primary | unit | strict | vantage | paper (same baseline) |", "|---|---|---|---|---|---|"]
        for t, r in m["tasks"].items():
            paper = PAPER_BASELINES.get((t, name))
            L.append(f"| {t} | {r['strict']['primary']} | {r['strict']['unit']} ({r['strict']['n_units']}) | "
                     f"{cell(r['strict'])} | {cell(r['vantage'])} | {fmt_score(paper) if paper is not None else ''} |")
        L += _horizons_markdown(m["tasks"].get("single_object_tracking"))
        L += ["", "| pillar | strict | vantage |", "|---|---|---|"]
        for p in (*PILLARS, "overall"):
            L.append(f"| {p} | {fmt_score(m['pillars']['strict'][p])} | {fmt_score(m['pillars']['vantage'][p])} |")
        L.append("")
    L += _baseline_markdown(metrics["baselines"])
    if metrics["warnings"]:
        L += ["## Warnings", "", *(f"- {w}" for w in metrics["warnings"]), ""]
    return "\n".join(L)
