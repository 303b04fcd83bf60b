"""RealityBench report figures (Fig. 2: F1 and documentation against cost; Fig. 3: documentation by
field and model) drawn from a metrics dict onto a path or a binary file object (PNG).
"""
from __future__ import annotations

import math

import numpy as np

from scorers.realitybench_markdown import _sorted_fields
from scorers.realitybench_metrics import BASELINE, SKILL_ORDER, cost_frontier

__all__ = ["fig2", "fig3"]


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


def fig2(metrics: dict, path) -> None:
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


def fig3(metrics: dict, path) -> None:
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
