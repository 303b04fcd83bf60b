"""VANTAGE-Bench pillars and Overall (App. D.5, Table 11).

Each pillar is the unweighted mean of its tasks' primary metrics, Overall the unweighted mean
of the four pillars, so Single Object Tracking alone carries a quarter of Overall. This is
the paper's Overall, not the old leaderboard app's macro over seven tasks (which gives 44.97
instead of 41.86 for Qwen3-VL-2B, vantage_metrics.md §9). A pillar with a missing task, and
then Overall, is None rather than a mean of what is there.
"""
from __future__ import annotations

from typing import Mapping

TASKS = ("video_qa", "event_verification", "spatial_pointing", "referring_expressions", "object_localization",
         "temporal_localization", "dense_captioning", "single_object_tracking")

# task -> the key of its primary metric (Table 5), as scorers.vantage_metrics / vantage_dvc name it
PRIMARY = {"video_qa": "accuracy", "event_verification": "macro_f1", "spatial_pointing": "accuracy",
           "referring_expressions": "miou", "object_localization": "f1@0.5",
           "temporal_localization": "miou", "dense_captioning": "soda_c", "single_object_tracking": "auc"}

PILLARS = {"semantic": ("video_qa", "event_verification"),
           "spatial": ("spatial_pointing", "referring_expressions", "object_localization"),
           "temporal": ("temporal_localization", "dense_captioning"),
           "spatio_temporal": ("single_object_tracking",)}

__all__ = ["TASKS", "PRIMARY", "PILLARS", "pillar_scores"]


def pillar_scores(task_scores: Mapping[str, float | None]) -> dict[str, float | None]:
    """Pillar means and `overall` from each task's primary score (any one scale, e.g. ×100)."""
    unknown = sorted(set(task_scores) - set(TASKS))
    if unknown:
        raise ValueError(f"unknown VANTAGE task(s): {unknown}")
    out: dict[str, float | None] = {}
    for name, tasks in PILLARS.items():
        vals = [task_scores.get(t) for t in tasks]
        out[name] = None if any(v is None for v in vals) else sum(vals) / len(vals)
    pillars = [out[p] for p in PILLARS]
    out["overall"] = None if any(v is None for v in pillars) else sum(pillars) / len(pillars)
    return out
