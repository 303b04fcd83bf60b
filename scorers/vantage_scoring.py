"""One model's VANTAGE-Bench results: every item graded, every task's metrics in both rule sets
with a bootstrap interval on its primary metric, the pillars and Overall.

The graders are per task family (scorers/vantage_grading.py: the four timeline tasks;
scorers/vantage_grading_boxes.py: the four box/point tasks); this module dispatches to them
and adds what a report needs on top: intervals resampling each task's own unit (items, images,
videos or tracklets, scorers.vantage_uncertainty) and App. D.5's pillars, all ×100 as the
paper's tables print them. A task with no items is None, and so is every pillar it belongs to.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from formats.vantage_item import TASKS, VantageItem
from scorers import vantage_grading, vantage_grading_boxes
from scorers import vantage_uncertainty as vu
from scorers.vantage_dvc import dense_captioning
from scorers.vantage_metrics import (COMPATS, Compat, ev_codes, object_localization, referring_iou,
                                     single_object_tracking, temporal_ious)
from scorers.vantage_pillars import PRIMARY, pillar_scores

__all__ = ["grade", "grade_all", "task_result", "model_result"]


def grade(item: VantageItem, reply: Any) -> dict:
    """One item and the model's raw reply -> its graded record (the family's grader)."""
    if item.task in vantage_grading_boxes.BOX_TASKS:
        return vantage_grading_boxes.grade(item, reply)
    return vantage_grading.grade(item, reply)


def grade_all(items: Sequence[VantageItem], replies: Mapping[str, Any]) -> list[dict]:
    """Every item graded; an item without a reply is graded as the empty reply (wrong)."""
    return [grade(it, replies.get(it.id)) for it in items]


def _parsed(rec: dict, key: str | None = None):
    p = rec.get("parsed")
    return p.get(key) if key and isinstance(p, dict) else p


def _unit_values(task: str, items: Sequence[VantageItem], recs: Sequence[dict], compat: Compat):
    """(point estimate of the primary metric ×100, bootstrap statistic, number of units)."""
    if task == "event_verification":
        t, p = ev_codes([it.answer.label for it in items]), ev_codes([_parsed(r) for r in recs])
        stat, n = vu.ev_statistic(t, p, compat), len(items)
    elif task in ("video_qa", "spatial_pointing"):
        key = "letter" if task == "spatial_pointing" else None
        v = [float(_parsed(r, key) == it.answer.letter) for it, r in zip(items, recs)]
        stat, n = vu.mean_statistic(v), len(v)
    elif task == "referring_expressions":
        v = [referring_iou(_parsed(r, "boxes") or [], it.answer.boxes, it.media.width, it.media.height, compat)
             for it, r in zip(items, recs)]
        stat, n = vu.mean_statistic(v), len(v)
    elif task == "object_localization":
        units = object_localization([(_parsed(r, "boxes") or [], it.answer.boxes, it.media.width, it.media.height)
                                     for it, r in zip(items, recs)], compat,
                                    max_dets=vantage_grading_boxes.OBJLOC_MAX_DETS)["units"]
        stat, n = vu.objloc_statistic(units, compat), len(units)
    elif task == "temporal_localization":
        rows = [(it.media.clip_id, [tuple(w) for w in it.answer.windows],
                 None if _parsed(r) is None else tuple(_parsed(r)), it.media.duration_s) for it, r in zip(items, recs)]
        units = vu.temporal_units([x[0] for x in rows], temporal_ious(rows, compat))
        stat, n = vu.temporal_statistic(units, compat), len(units)
    elif task == "dense_captioning":
        gold = [[(e.start, e.end, e.caption) for e in it.answer.events] for it in items]
        pred = [None if _parsed(r) is None else [tuple(e) for e in _parsed(r)] for r in recs]
        units = dense_captioning(list(zip(gold, pred)), compat, vantage_grading.DEFAULT_SIMILARITY)["units"]
        stat, n = vu.mean_statistic(units), len(units)
    else:                       # the headline horizon's tracklets (8 frames, as the paper's SOT column)
        head = vantage_grading_boxes.sot_headline(items)
        units = single_object_tracking([(items[k].answer.boxes, _parsed(recs[k], "track")
                                         or [None] * len(items[k].answer.boxes)) for k in head], compat)["units"]
        stat, n = vu.mean_statistic(units), len(units)
    return stat, n


def _metrics(task: str, items: Sequence[VantageItem], recs: Sequence[dict], compat: Compat) -> dict:
    if task in vantage_grading_boxes.BOX_TASKS:
        return vantage_grading_boxes.task_metrics(items, recs)[compat]
    return vantage_grading.set_metrics(task, list(recs), compat)


def task_result(task: str, items: Sequence[VantageItem], recs: Sequence[dict], model: str,
                n_resamples: int = vu.N_RESAMPLES) -> dict:
    """Both rule sets' metrics of one task, and the primary metric ×100 with its 95 % interval."""
    out: dict = {"n_items": len(items)}
    for compat in COMPATS:
        stat, n = _unit_values(task, items, recs, compat)
        ci = vu.bootstrap_ci(stat, n, n_resamples, seed=vu.cell_seed(model, task, compat))
        scale = (lambda x: None if x is None else 100 * x)
        out[compat] = {"metrics": _metrics(task, items, recs, compat), "primary": PRIMARY[task],
                       "score": scale(ci.estimate), "low": scale(ci.low), "high": scale(ci.high),
                       "unit": vu.RESAMPLING_UNIT[task], "n_units": n}
    return out


def model_result(items: Sequence[VantageItem], replies: Mapping[str, Any], model: str,
                 n_resamples: int = vu.N_RESAMPLES) -> dict:
    """Every task of the export, the pillars and Overall in both rule sets, and the records."""
    records = grade_all(items, replies)
    by_task: dict[str, list[int]] = {}
    for k, it in enumerate(items):
        by_task.setdefault(it.task, []).append(k)
    tasks = {t: task_result(t, [items[k] for k in ks], [records[k] for k in ks], model, n_resamples)
             for t, ks in sorted(by_task.items(), key=lambda kv: TASKS.index(kv[0]))}
    pillars = {c: pillar_scores({t: (tasks[t][c]["score"] if t in tasks else None) for t in TASKS}) for c in COMPATS}
    return {"model": model, "tasks": tasks, "pillars": pillars, "records": records,
            "n_answered": sum(1 for it in items if replies.get(it.id) is not None)}


def primary_table(result: dict) -> np.ndarray:
    """tasks × (strict, vantage) primary scores (NaN where absent), in TASKS order (figures)."""
    return np.array([[np.nan if t not in result["tasks"] or result["tasks"][t][c]["score"] is None
                      else result["tasks"][t][c]["score"] for c in COMPATS] for t in TASKS])
