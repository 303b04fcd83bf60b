"""Grade the four VANTAGE box/point tasks: an item and a model's raw reply -> a JSON-ready record,
and a task's records -> its metrics in both rule sets.

Referring Expressions, Spatial Pointing, Object Localization and Single Object Tracking
(formats.vantage_item answers: BoxesAnswer, ChoiceAnswer, TrackAnswer). Replies are read by
scorers.vantage_parse (hostile input reads as nothing) and scored by scorers.vantage_metrics,
once with compat="strict" and once with compat="vantage" (docs/vantage-deviations.md). A record
keeps what the reader took from the reply (0–1000 boxes, a letter, a per-frame track), so the
task metrics are recomputed from records alone: `task_metrics(items, records)`.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from formats.vantage_item import VantageItem
from scorers.vantage_metrics import (COMPATS, choice_accuracy, micro_f1, objloc_image, object_localization,
                                     referring_expressions, referring_iou, single_object_tracking, track_scores)
from scorers.vantage_parse import parse_boxes, parse_choice, parse_track

BOX_TASKS = ("referring_expressions", "spatial_pointing", "object_localization", "single_object_tracking")
OBJLOC_MAX_DETS = 300            # crowds of 100+ (vantage_metrics.md §4); no warehouse frame comes near


def _box(b) -> list[float] | None:
    return None if b is None else [float(x) for x in b]


def grade(item: VantageItem, reply: Any) -> dict:
    """One graded record: the parsed answer and the item's score under both rule sets."""
    task = item.task
    if task not in BOX_TASKS:
        raise ValueError(f"{item.id}: not a box/point task ({task})")
    rec: dict = {"id": item.id, "task": task}
    a, m = item.answer, item.media
    if task == "spatial_pointing":
        letter = parse_choice(reply)
        ok = letter is not None and letter == a.letter
        rec.update(parsed={"letter": letter}, parsed_ok=letter is not None,
                   score={c: {"correct": ok} for c in COMPATS})
    elif task == "referring_expressions":
        boxes = parse_boxes(reply)
        rec.update(parsed={"boxes": [_box(b) for b in boxes]}, parsed_ok=bool(boxes),
                   score={c: {"iou": referring_iou(boxes, a.boxes, m.width, m.height, c)} for c in COMPATS})
    elif task == "object_localization":
        boxes = parse_boxes(reply)
        score = {}
        for c in COMPATS:
            r = objloc_image(boxes, a.boxes, m.width, m.height, c)
            score[c] = {"tp@0.5": r["tp"][0.5], "n_pred": r["n_pred"], "n_gt": r["n_gt"],
                        "f1@0.5": micro_f1(r["tp"][0.5], r["n_pred"], r["n_gt"], c)}
        rec.update(parsed={"boxes": [_box(b) for b in boxes]}, parsed_ok=bool(boxes), score=score)
    else:
        track = parse_track(reply, len(m.frame_numbers))
        score = {}
        for c in COMPATS:
            s = track_scores(a.boxes, track, c)
            score[c] = {k: s[k] for k in ("auc", "mean_iou", "p@0.5", "freeze_rate", "n_eval", "n_null")}
        rec.update(parsed={"track": [_box(b) for b in track]}, parsed_ok=any(b is not None for b in track[1:]),
                   score=score)
    return rec


def _plain(v):
    """Metric dicts as JSON-ready values (numpy arrays and scalars to lists and floats)."""
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items() if k != "units"}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, np.generic):
        return v.item()
    return v


def sot_headline(items: Sequence[VantageItem]) -> list[int]:
    """Indices of the SOT items whose tracklets make the task's headline score: those of the
    shortest horizon in the set (8 frames in an export, the paper's `VANTAGE_SOT`: Table 1's SOT
    column, the Spatio-Temporal pillar and Overall are its 8-frame Success AUC; the 16- and
    32-frame tracklets are reported beside it, `by_horizon`)."""
    if not items:
        return []
    n = min(len(it.answer.boxes) for it in items)
    return [k for k, it in enumerate(items) if len(it.answer.boxes) == n]


def _sot(items, parsed, compat) -> dict:
    """The headline horizon's metrics, and each horizon's (frames -> metrics, units left out)."""
    tracks = [(it.answer.boxes, p.get("track", [None] * len(it.answer.boxes))) for it, p in zip(items, parsed)]
    per = {n: single_object_tracking([t for t, it in zip(tracks, items) if len(it.answer.boxes) == n], compat=compat)
           for n in sorted({len(it.answer.boxes) for it in items})}
    head = min(per, default=None)            # sot_headline's horizon: the shortest
    res = dict(per[head]) if per else single_object_tracking([], compat=compat)
    res["horizon_frames"] = head
    res["by_horizon"] = {str(n): {k: v for k, v in h.items() if k != "units"} for n, h in per.items()}
    return res


def task_metrics(items: Sequence[VantageItem], records: Sequence[dict]) -> dict:
    """{"strict": {...}, "vantage": {...}} for one task's items and their graded records
    (matched by id; an item without a record is scored as no answer)."""
    tasks = {it.task for it in items}
    if len(tasks) != 1 or not tasks <= set(BOX_TASKS):
        raise ValueError(f"task_metrics needs the items of one box/point task, got {sorted(tasks)}")
    task = tasks.pop()
    by_id = {r["id"]: r for r in records}
    parsed = [by_id.get(it.id, {}).get("parsed", {}) for it in items]
    out = {}
    for c in COMPATS:
        if task == "spatial_pointing":
            res = choice_accuracy([it.answer.letter for it in items], [p.get("letter") for p in parsed])
        elif task == "referring_expressions":
            res = referring_expressions([referring_iou(p.get("boxes", []), it.answer.boxes, it.media.width,
                                                       it.media.height, c) for it, p in zip(items, parsed)])
        elif task == "object_localization":
            res = object_localization([(p.get("boxes", []), it.answer.boxes, it.media.width, it.media.height)
                                       for it, p in zip(items, parsed)], compat=c, max_dets=OBJLOC_MAX_DETS)
        else:
            res = _sot(items, parsed, c)
        out[c] = _plain(res)
    out["n_parsed"] = sum(1 for it in items if by_id.get(it.id, {}).get("parsed_ok"))
    return out
