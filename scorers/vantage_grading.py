"""Graders of the four VANTAGE timeline tasks: an item and a model's raw reply -> one graded
record; a list of records -> the task's set metrics in either rule set.

Every record is JSON-ready and self-contained (the set metrics need no item), with the same
keys for every task, so one dispatcher can write and aggregate records of all eight tasks
(scorers/vantage_grading_boxes.py grades the four box tasks):

    id, task, clip_id   the item's
    parsed              the reply as read by scorers.vantage_parse: 'yes'/'no' (EV), a letter
                        (VQA), [start, end] (Temporal), [[start, end, caption], ...] (DVC);
                        None when nothing could be read (hostile, malformed, refused)
    truth               the answer: 'yes'/'no', a letter, [[s, e], ...] windows, [[s, e, caption], ...]
    correct             EV/VQA: parsed == truth (an unread reply is wrong); Temporal/DVC: None
    score               the item's strict-mode score: 1/0 (EV, VQA), the best window's tIoU
                        (Temporal), SODA_c F with token-F1 captions (DVC)
    extra               task-specific: Temporal {duration_s, iou_vantage}

Replies are read, never evaluated; the parsers bound size and nesting, so a huge, NaN-laden or
deeply nested reply reads as None and scores as wrong.
"""
from __future__ import annotations

from typing import Any, Callable

from formats.vantage_item import VantageItem
from scorers import vantage_parse as vp
from scorers.vantage_dvc import dense_captioning, get_similarity, video_scores
from scorers.vantage_metrics import (Compat, check_compat, choice_accuracy, event_verification,
                                     temporal_ious, temporal_localization)

TASKS = ("event_verification", "video_qa", "temporal_localization", "dense_captioning")
DEFAULT_SIMILARITY = "token_f1"


def _record(item: VantageItem, parsed: Any, truth: Any, correct: bool | None, score: float, extra=None) -> dict:
    return {"id": item.id, "task": item.task, "clip_id": item.media.clip_id, "parsed": parsed, "truth": truth,
            "correct": correct, "score": float(score), "extra": extra or {}}


def _expect(item: VantageItem, task: str) -> None:
    if item.task != task:
        raise ValueError(f"{item.id}: a {item.task} item given to the {task} grader")


def grade_event_verification(item: VantageItem, reply: Any) -> dict:
    _expect(item, "event_verification")
    parsed = vp.parse_yes_no(reply)
    ok = parsed == item.answer.label
    return _record(item, parsed, item.answer.label, ok, 1.0 if ok else 0.0)


def grade_video_qa(item: VantageItem, reply: Any) -> dict:
    _expect(item, "video_qa")
    parsed = vp.parse_choice(reply)
    ok = parsed == item.answer.letter
    return _record(item, parsed, item.answer.letter, ok, 1.0 if ok else 0.0)


def _temporal_row(rec: dict) -> tuple:
    seg = None if rec["parsed"] is None else tuple(rec["parsed"])
    return rec["clip_id"], [tuple(w) for w in rec["truth"]], seg, rec["extra"]["duration_s"]


def grade_temporal_localization(item: VantageItem, reply: Any) -> dict:
    _expect(item, "temporal_localization")
    seg = vp.parse_segment(reply)
    truth = [list(w) for w in item.answer.windows]
    rec = _record(item, None if seg is None else list(seg), truth, None, 0.0,
                  {"duration_s": item.media.duration_s})
    row = _temporal_row(rec)
    rec["score"] = float(temporal_ious([row], "strict")[0])
    rec["extra"]["iou_vantage"] = float(temporal_ious([row], "vantage")[0])
    return rec


def _events(rows) -> list[tuple[float, float, str]] | None:
    return None if rows is None else [(float(s), float(e), str(c)) for s, e, c in rows]


def grade_dense_captioning(item: VantageItem, reply: Any) -> dict:
    _expect(item, "dense_captioning")
    evs = vp.parse_events(reply)
    truth = [[e.start, e.end, e.caption] for e in item.answer.events]
    parsed = None if evs is None else [list(e) for e in evs]
    score = video_scores(_events(truth), _events(parsed), get_similarity(DEFAULT_SIMILARITY))["soda_c"]
    return _record(item, parsed, truth, None, score)


GRADERS: dict[str, Callable[[VantageItem, Any], dict]] = {
    "event_verification": grade_event_verification, "video_qa": grade_video_qa,
    "temporal_localization": grade_temporal_localization, "dense_captioning": grade_dense_captioning}


def grade(item: VantageItem, reply: Any) -> dict:
    if item.task not in GRADERS:
        raise ValueError(f"{item.id}: no timeline grader for task {item.task!r}")
    return GRADERS[item.task](item, reply)


# ------------------------------------------------------------------ set metrics

def _of(records: list[dict], task: str) -> list[dict]:
    bad = sorted({r["task"] for r in records} - {task})
    if bad:
        raise ValueError(f"{task} metrics given records of {bad}")
    return records


def event_verification_metrics(records: list[dict], compat: Compat = "strict") -> dict:
    rs = _of(records, "event_verification")
    return event_verification([r["truth"] for r in rs], [r["parsed"] for r in rs], compat)


def video_qa_metrics(records: list[dict], compat: Compat = "strict") -> dict:
    check_compat(compat)                      # accuracy is the same in both rule sets
    rs = _of(records, "video_qa")
    return choice_accuracy([r["truth"] for r in rs], [r["parsed"] for r in rs])


def temporal_localization_metrics(records: list[dict], compat: Compat = "strict") -> dict:
    rs = _of(records, "temporal_localization")
    return temporal_localization([_temporal_row(r) for r in rs], compat)


def dense_captioning_metrics(records: list[dict], compat: Compat = "strict",
                             similarity: str = DEFAULT_SIMILARITY) -> dict:
    rs = _of(records, "dense_captioning")
    out = dense_captioning([(_events(r["truth"]), _events(r["parsed"])) for r in rs], compat, similarity)
    out.pop("units")                          # a numpy array: the bootstrap's input, not a JSON field
    return out


METRICS = {"event_verification": event_verification_metrics, "video_qa": video_qa_metrics,
           "temporal_localization": temporal_localization_metrics, "dense_captioning": dense_captioning_metrics}


def set_metrics(task: str, records: list[dict], compat: Compat = "strict") -> dict:
    if task not in METRICS:
        raise ValueError(f"no timeline metrics for task {task!r}")
    return METRICS[task](records, compat)
