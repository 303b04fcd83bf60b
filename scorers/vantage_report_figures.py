"""The figure of `scenebench score` for VANTAGE-Bench: each model's primary score per task."""
from __future__ import annotations

from pathlib import Path

from formats.vantage_item import TASKS
from scorers.vantage_metrics import COMPATS
from scorers.vantage_scoring import primary_table


def primary_figure(results: list[dict], path: Path) -> None:
    """Primary score per task, strict and vantage side by side, one panel per model."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, axes = plt.subplots(len(results), 1, figsize=(11, 2.6 * len(results)), squeeze=False)
    x = np.arange(len(TASKS))
    for ax, res in zip(axes[:, 0], results):
        table = primary_table(res)
        for k, c in enumerate(COMPATS):
            ax.bar(x + (k - 0.5) * 0.38, np.nan_to_num(table[:, k]), 0.38, label=c)
        ax.set_xticks(x, [t.replace("_", "\n") for t in TASKS], fontsize=7)
        ax.set_ylim(0, 100)
        ax.set_ylabel("score ×100")
        ax.set_title(res["model"], fontsize=9)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(path)
