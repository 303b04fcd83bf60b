"""EgoPathBench report text: the Table 2 leaderboard and report.md, from a metrics dict
(`scorers.egopath_metrics.score_predictions`).
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from geometry.egopath_schema import ROUTE_TASKS, TRAVERSABILITY_TASKS

__all__ = ["TASK_SHORT", "summary_table", "report_markdown"]

TASK_SHORT = {"point_traversability": "PT", "embodied_traversability": "ET", "point_path": "PP",
              "embodied_path": "EP", "intent_path": "IP"}


def _f(v: Any, d: int = 1) -> str:
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{d}f}"


def _ci(m: Mapping[str, Any] | None, d: int = 1) -> str:
    if not m or m.get("estimate") is None:
        return "–"
    if m.get("low") is None:
        return _f(m["estimate"], d)
    return f"{_f(m['estimate'], d)} [{_f(m['low'], d)}, {_f(m['high'], d)}]"


def _row(name: str, res: Mapping[str, Any], ci: bool = True) -> str:
    fmt = _ci if ci else (lambda m, d=1: _f(m.get("estimate") if m else None, d))
    cells = [name, fmt(res["score"])]
    for t in TRAVERSABILITY_TASKS:
        cells += [fmt(res["tasks"][t].get("ba")), fmt(res["tasks"][t].get("f1"))]
    for t in ROUTE_TASKS:
        cells += [fmt(res["tasks"][t].get(m)) for m in ("vpr", "sr", "spl")]
    return "| " + " | ".join(cells) + " |"


_HEAD = ("| Model | Score | PT BA | PT F1 | ET BA | ET F1 | PP VPR | PP SR | PP SPL | EP VPR | EP SR | EP SPL "
         "| IP VPR | IP SR | IP SPL |\n|" + "---|" * 15)

DIAG = (("evaluable", "Evaluable"), ("endpoint_hit", "Endpoint hit"), ("first_edge_legal", "First edge legal"),
        ("full_route_legal", "Full route legal"), ("sr", "Success"),
        ("illegal_later_given_first_legal", "Illegal later (first legal)"),
        ("illegal_later_given_first_and_end", "Illegal later (first legal + endpoint)"))


def summary_table(metrics: Mapping[str, Any]) -> str:
    """The Table 2 leaderboard (with CIs) as markdown."""
    lines = [_HEAD]
    for m in metrics["model_order"]:
        lines.append(_row(m, metrics["models"][m]))
    return "\n".join(lines)


def report_markdown(metrics: Mapping[str, Any], overlay_names: Sequence[str]) -> str:
    ds, st = metrics["dataset"], metrics["settings"]
    L = ["# EgoPathBench report", "",
         f"Dataset `{ds['path']}`, split `{ds['split']}`: {ds['n_questions']} questions "
         f"({', '.join(f'{TASK_SHORT[t]} {n}' for t, n in ds['per_task'].items())}) "
         f"in {ds['n_scene_groups']} scene groups.", "",
         f"All numbers in percent. Intervals: {int(100 * st['confidence'])}% percentile, {st['n_resamples']} "
         f"scene-cluster bootstrap resamples, seed {st['seed']}.", "",
         "## Leaderboard (Table 2)", "", summary_table(metrics), ""]
    if metrics.get("baselines"):
        L += ["## Baselines (point estimates)", "", _HEAD]
        L += [_row(b, r, ci=False) for b, r in metrics["baselines"].items()]
        L += [""]
    L += ["## Route diagnostics (Figure 3, Table S11)", "",
          "| Model | Task | N | " + " | ".join(h for _, h in DIAG) + " | Single-ID routes |",
          "|" + "---|" * (len(DIAG) + 4)]
    for m in metrics["model_order"]:
        for t in ROUTE_TASKS:
            e = metrics["models"][m]["tasks"][t]
            dg = e["diagnostics"]
            L.append(f"| {m} | {TASK_SHORT[t]} | {e['n']} | " + " | ".join(_f(dg.get(k)) for k, _ in DIAG)
                     + f" | {e['single_id']} |")
    L += ["", "## Outcome stages (Table S4, counts)", "",
          "| Model | Task | format | invalid_id | wrong_start | illegal_edge | wrong_goal | success |",
          "|---|---|---|---|---|---|---|---|"]
    for m in metrics["model_order"]:
        for t in ROUTE_TASKS:
            s = metrics["models"][m]["tasks"][t]["stages"]
            L.append(f"| {m} | {TASK_SHORT[t]} | " + " | ".join(str(s[k]) for k in
                     ("format", "invalid_id", "wrong_start", "illegal_edge", "wrong_goal", "success")) + " |")
    pooled = {t: [0, 0, 0] for t in ROUTE_TASKS}
    by_len: dict[tuple[str, str], list[int]] = {}
    for m in metrics["model_order"]:
        for t in ROUTE_TASKS:
            e = metrics["models"][m]["tasks"][t]
            s11 = e["table_s11"]
            pooled[t][0] += s11["first_edge_legal_and_endpoint"]
            pooled[t][1] += s11["illegal_later_edge"]
            pooled[t][2] += s11["complete_route_legal"]
            for k, r in e["by_reference_edges"].items():
                acc = by_len.setdefault((t, k), [0, 0, 0, 0])
                for j, f in enumerate(("n", "endpoint_hit", "success", "illegal_edge")):
                    acc[j] += r[f]
    if metrics["model_order"]:
        L += ["", "## After a correct first step and endpoint (Table S11, pooled over models)", "",
              "| Task | First edge legal + endpoint correct | Illegal later edge | Complete route legal |",
              "|---|---|---|---|"]
        for t, (n, bad, ok) in pooled.items():
            L.append(f"| {TASK_SHORT[t]} | {n} | {bad} ({_f(100 * bad / n if n else None)}%) | "
                     f"{ok} ({_f(100 * ok / n if n else None)}%) |")
        L += ["", "## By reference length (Table S12, pooled over models; N counts predictions)", "",
              "| Task | Edges | N | End hit | Success | Illegal edge |", "|---|---|---|---|---|---|"]
        for (t, k), (n, end, suc, ill) in by_len.items():
            L.append(f"| {TASK_SHORT[t]} | {k} | {n} | {_f(100 * end / n)} | {_f(100 * suc / n)} | "
                     f"{_f(100 * ill / n)} |")
    L += ["", "## Visibility sensitivity (Table S7)", "",
          "| Model | Task | View | N | End | Full | Gap | Illegal |", "|---|---|---|---|---|---|---|---|"]
    for m in metrics["model_order"]:
        for t in ROUTE_TASKS:
            for v, r in metrics["models"][m]["strict"][t].items():
                L.append(f"| {m} | {TASK_SHORT[t]} | {v} | {r['n']} | {_f(r['end'])} | {_f(r['full'])} | "
                         f"{_f(r['gap'])} | {_f(r['illegal'])} |")
    L += ["", "## Traversability confusion (pooled)", "",
          "| Model | Task | TP | FP | FN | TN | invalid ids | unparseable | TPR | TNR | precision |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    for m in metrics["model_order"]:
        for t in TRAVERSABILITY_TASKS:
            e = metrics["models"][m]["tasks"][t]
            c, p = e["counts"], e["pooled"]
            L.append(f"| {m} | {TASK_SHORT[t]} | {c['tp']} | {c['fp']} | {c['fn']} | {c['tn']} | {c['n_invalid']} | "
                     f"{e['parse_failures']} | {_f(p['tpr'])} | {_f(p['tnr'])} | {_f(p['precision'])} |")
    ctl = [(m, t, r) for m in metrics["model_order"] for t, r in metrics["models"][m].get("controls", {}).items()]
    if ctl:
        L += ["", "## Input-dependence controls (Table S5, route SR on paired questions)", "",
              "| Model | Task | N | Full | Text only | Mismatched overlay |", "|---|---|---|---|---|---|"]
        L += [f"| {m} | {TASK_SHORT[t]} | {r.get('n_full', 0)} | {_f(r.get('full'))} | {_f(r.get('text_only'))} | "
              f"{_f(r.get('mismatched_overlay'))} |" for m, t, r in ctl]
    if overlay_names:
        L += ["", "## Prediction overlays", ""]
        L += [f"![{n}](overlays/{n}.png)" for n in overlay_names]
    if metrics.get("warnings"):
        L += ["", "## Warnings", ""] + [f"- {w}" for w in metrics["warnings"]]
    L += ["", "## Conventions", ""] + [f"- **{k}**: {v}" for k, v in st.items()
                                       if k in ("bootstrap", "traversability", "route", "missing")]
    return "\n".join(L) + "\n"
