"""VANTAGE-Bench task metrics (Table 5, App. B.2), each once, with two rule sets.

`compat="strict"` (default) follows metrics.md's recommendations; `compat="vantage"` follows
the official harness (vantage_metrics.md §0), the only mode checkable against the paper:

1. SOT success AUC: strict `IoU > τ`; vantage `IoU >= τ` (τ on linspace(0,1,21), so an
   all-wrong tracker scores 1/21 and a perfect one 1.0). The freeze rate also follows the
   harness there (previous non-null prediction; frozen / max(1, n_predicted - 1)).
2. EV macro-F1: strict keeps an unparseable answer as an error for its true class (labels
   pinned to yes/no); vantage drops it, over the labels present.
3. Temporal mIoU / R@t: strict: unparseable IoU 0, mean over queries; vantage: unparseable =
   the whole clip [0, duration], mean over videos of per-video means.
4. DVC (scorers.vantage_dvc): vantage drops videos with no parseable prediction.
5. Object Localization F1: strict Hungarian (order-free); vantage greedy in output order with
   boxes int-truncated to pixels (first GT wins IoU ties).

Referring Expressions also has two rules: vantage scores the best of every (predicted box,
GT box) pair and gives an empty GT IoU 0; strict scores the first predicted box only and gives
an empty GT with no box 1 (a correct abstention). Video QA and Pointing accuracy are the same
in both (unparseable = wrong, all rows counted).

Inputs are parsed replies (scorers.vantage_parse); every "none" is scored, never skipped
unless the vantage rule says so. Scores are fractions in [0, 1] (the paper's ×100 is the
report's business). Per-unit arrays (`*_units`) make bootstrap resamples cheap.
"""
from __future__ import annotations

from typing import Literal, Sequence

import numpy as np

from scorers.vantage_boxes import (box_iou, coco_ap, greedy_matches, hungarian_matches, iou_matrix,
                                   scale_box, segment_iou, valid_box)

Compat = Literal["strict", "vantage"]
COMPATS = ("strict", "vantage")
YES, NO, INVALID = 1, 0, -1
SOT_THRESHOLDS = np.linspace(0.0, 1.0, 21)
FREEZE_IOU = 0.95
F1_THRESHOLDS = np.round(np.arange(0.5, 0.951, 0.05), 2)
RECALL_THRESHOLDS = (0.3, 0.5, 0.7)
REFEX_THRESHOLDS = (0.25, 0.5, 0.75)

__all__ = ["Compat", "COMPATS", "check_compat", "ev_codes", "event_verification_from_codes",
           "event_verification", "choice_accuracy", "referring_iou", "referring_expressions",
           "objloc_image", "micro_f1", "object_localization", "temporal_ious", "temporal_from_ious",
           "temporal_localization", "track_frames", "track_scores", "single_object_tracking"]


def check_compat(compat: str) -> str:
    if compat not in COMPATS:
        raise ValueError(f"compat must be one of {COMPATS}, not {compat!r}")
    return compat


def _ratio(num: float, den: float) -> float | None:
    return float(num / den) if den > 0 else None


# ---------------------------------------------------------------- Event Verification

def ev_codes(labels: Sequence[str | None]) -> np.ndarray:
    """'yes' -> 1, 'no' -> 0, anything else (unparseable) -> -1."""
    return np.array([YES if v == "yes" else NO if v == "no" else INVALID for v in labels])


def _f1(t: np.ndarray, p: np.ndarray, c: int) -> float:
    tp = np.sum((t == c) & (p == c))
    den = 2 * tp + np.sum((t != c) & (p == c)) + np.sum((t == c) & (p != c))
    return float(2 * tp / den) if den > 0 else 0.0


def event_verification_from_codes(truth: np.ndarray, pred: np.ndarray, compat: Compat = "strict") -> dict:
    """Macro-F1, sensitivity (recall of yes), specificity (recall of no) from codes.

    strict: every row, labels yes and no, an invalid answer is a miss of its true class;
    vantage: rows with an invalid answer dropped, macro over the labels present (sklearn's
    classification_report without `labels=`). A per-class F1 with no support is 0."""
    check_compat(compat)
    t, p = np.asarray(truth), np.asarray(pred)
    n_items, n_invalid = len(t), int(np.sum(p == INVALID))
    if compat == "vantage":
        keep = p != INVALID
        t, p = t[keep], p[keep]
        labels = sorted(set(t.tolist()) | set(p.tolist()))
    else:
        labels = [NO, YES]
    pos, neg = np.sum(t == YES), np.sum(t == NO)
    sens = _ratio(np.sum((t == YES) & (p == YES)), pos)
    spec = _ratio(np.sum((t == NO) & (p == NO)), neg)
    return {
        "macro_f1": float(np.mean([_f1(t, p, c) for c in labels])) if len(t) else None,
        "sensitivity": sens, "specificity": spec,
        "balanced_accuracy": None if sens is None or spec is None else (sens + spec) / 2,
        "accuracy": _ratio(np.sum(t == p), len(t)),
        "n_items": n_items, "n_scored": int(len(t)), "n_invalid": n_invalid,
        "n_positive": int(pos), "n_negative": int(neg),
    }


def event_verification(truth: Sequence[str], answers: Sequence[str | None], compat: Compat = "strict") -> dict:
    """EV scores from 'yes'/'no' truths and parsed answers ('yes', 'no' or None)."""
    t = ev_codes(truth)
    if np.any(t == INVALID):
        raise ValueError("Event Verification truth must be 'yes' or 'no'")
    if len(truth) != len(answers):
        raise ValueError("truth and answers differ in length")
    return event_verification_from_codes(t, ev_codes(answers), compat)


# ---------------------------------------------------------------- Video QA, Pointing

def choice_accuracy(truth: Sequence[str], answers: Sequence[str | None]) -> dict:
    """Correct / all rows; an unparseable answer (None) is wrong (both modes)."""
    if len(truth) != len(answers):
        raise ValueError("truth and answers differ in length")
    correct = [a is not None and a == t for t, a in zip(truth, answers)]
    return {"accuracy": _ratio(sum(correct), len(correct)), "n_items": len(correct),
            "n_invalid": sum(a is None for a in answers)}


# ---------------------------------------------------------------- Referring Expressions

def referring_iou(pred_boxes: Sequence[Sequence[float]], gt_boxes: Sequence[Sequence[float]],
                  width: float, height: float, compat: Compat = "strict") -> float:
    """One expression's IoU: predictions 0–1000 xyxy, GT in pixels xyxy.

    vantage: every scaled, non-degenerate predicted box against every GT box, the best pair;
    empty GT or no box -> 0. strict: the first predicted box only (degenerate -> 0); empty GT
    -> 1 if no box was given, else 0."""
    check_compat(compat)
    if compat == "vantage":
        boxes = [b for b in (scale_box(p, width, height) for p in pred_boxes) if valid_box(b)]
        if not boxes or not gt_boxes:
            return 0.0
        return float(iou_matrix(boxes, gt_boxes).max())
    if not gt_boxes:
        return 1.0 if not pred_boxes else 0.0
    if not pred_boxes:
        return 0.0
    first = scale_box(pred_boxes[0], width, height)
    if not valid_box(first):
        return 0.0
    return max(box_iou(first, g) for g in gt_boxes)


def referring_expressions(ious: Sequence[float]) -> dict:
    """mIoU and Acc@t (IoU >= t) over all expressions."""
    v = np.asarray(ious)
    out = {"miou": float(v.mean()) if v.size else None, "n_items": int(v.size)}
    for t in REFEX_THRESHOLDS:
        out[f"acc@{t}"] = float(np.mean(v >= t)) if v.size else None
    return out


# ---------------------------------------------------------------- Object Localization

def _objloc_boxes(pred_boxes, gt_boxes, width, height, compat, min_area):
    preds = [scale_box(p, width, height, truncate=compat == "vantage") for p in pred_boxes]
    preds = [b for b in preds if valid_box(b, min_area)]
    gts = [tuple(map(float, g)) for g in gt_boxes if valid_box(g, min_area)]
    return preds, gts


def objloc_image(pred_boxes: Sequence[Sequence[float]], gt_boxes: Sequence[Sequence[float]],
                 width: float, height: float, compat: Compat = "strict", min_area: float = 0.0) -> dict:
    """One image: TP count per F1 threshold, prediction and GT counts, and the boxes used.

    Predictions 0–1000 xyxy -> pixels (int-truncated in vantage mode); boxes below `min_area`
    px² or degenerate are dropped on both sides. Matching: vantage greedy, strict Hungarian."""
    check_compat(compat)
    preds, gts = _objloc_boxes(pred_boxes, gt_boxes, width, height, compat, min_area)
    ious = iou_matrix(preds, gts)
    match = greedy_matches if compat == "vantage" else hungarian_matches
    tp = {float(t): sum(m >= 0 for m in match(ious, t)) for t in F1_THRESHOLDS}
    return {"tp": tp, "n_pred": len(preds), "n_gt": len(gts), "preds": preds, "gts": gts}


def micro_f1(tp: float, n_pred: float, n_gt: float, compat: Compat) -> float:
    """2TP / (n_pred + n_gt). With neither a prediction nor a GT box: strict 1, vantage 0 (the
    harness's 2PR/(P+R) with P, R = 0 when undefined, which equals 2TP/(n_pred + n_gt) otherwise)."""
    if n_pred + n_gt == 0:
        return 0.0 if compat == "vantage" else 1.0
    return 2 * tp / (n_pred + n_gt)


def object_localization(images: Sequence[tuple], compat: Compat = "strict", min_area: float = 0.0,
                        max_dets: int = 100) -> dict:
    """F1@0.5 (micro over images), F1 at 0.50:0.05:0.95 and their mean, and COCO AP.

    `images`: (pred_boxes 0–1000, gt_boxes px, width, height) per image. COCO AP uses the same
    pixel boxes in output order with `max_dets` per image (raise it for crowds)."""
    check_compat(compat)
    per = [objloc_image(p, g, w, h, compat, min_area) for p, g, w, h in images]
    n_pred = sum(x["n_pred"] for x in per)
    n_gt = sum(x["n_gt"] for x in per)
    f1 = {t: micro_f1(sum(x["tp"][t] for x in per), n_pred, n_gt, compat) for t in map(float, F1_THRESHOLDS)}
    tp50 = sum(x["tp"][0.5] for x in per)
    ap = coco_ap([(x["preds"], x["gts"]) for x in per], max_dets=max_dets)
    return {"f1@0.5": f1[0.5], "precision@0.5": _ratio(tp50, n_pred), "recall@0.5": _ratio(tp50, n_gt),
            "f1_by_threshold": f1, "f1_mean": float(np.mean(list(f1.values()))),
            "coco_ap": ap["ap"], "coco_ap50": ap["ap50"], "coco_ap75": ap["ap75"], "coco_ar": ap["ar"],
            "n_images": len(per), "n_pred": n_pred, "n_gt": n_gt,
            "units": np.array([[x["tp"][0.5], x["n_pred"], x["n_gt"]] for x in per]).reshape(-1, 3)}


# ---------------------------------------------------------------- Temporal Localization

def temporal_ious(items: Sequence[tuple], compat: Compat = "strict") -> list[float]:
    """tIoU per query from (video_id, gt_segments, predicted (s, e) or None, duration).

    The prediction is ordered and clipped to [0, duration]; several GT windows -> the best
    (Moment-DETR). None: strict IoU 0, vantage the whole clip [0, duration]."""
    check_compat(compat)
    out = []
    for _vid, gts, pred, dur in items:
        if pred is None:
            if compat == "strict":
                out.append(0.0)
                continue
            pred = (0.0, dur)
        s, e = (min(max(float(x), 0.0), dur) for x in pred)
        seg = (min(s, e), max(s, e))
        out.append(max((segment_iou(seg, g) for g in gts), default=0.0))
    return out


def temporal_from_ious(videos: Sequence, ious: Sequence[float], compat: Compat = "strict") -> dict:
    """mIoU and R@t (IoU >= t): strict mean over queries, vantage mean of per-video means."""
    check_compat(compat)
    v = np.asarray(ious)
    groups: dict = {}
    for vid, x in zip(videos, v):
        groups.setdefault(vid, []).append(x)
    out = {"n_queries": int(v.size), "n_videos": len(groups)}
    if not v.size:
        return {**out, "miou": None, **{f"r@{t}": None for t in RECALL_THRESHOLDS}}

    def agg(f):
        if compat == "vantage":
            return float(np.mean([f(np.asarray(g)) for g in groups.values()]))
        return float(f(v))

    out["miou"] = agg(np.mean)
    for t in RECALL_THRESHOLDS:
        out[f"r@{t}"] = agg(lambda a, t=t: np.mean(a >= t))
    return out


def temporal_localization(items: Sequence[tuple], compat: Compat = "strict") -> dict:
    """Temporal Localization scores of (video_id, gt_segments, pred or None, duration) rows."""
    ious = temporal_ious(items, compat)
    out = temporal_from_ious([it[0] for it in items], ious, compat)
    out["n_unparsed"] = sum(it[2] is None for it in items)
    return out


# ---------------------------------------------------------------- Single Object Tracking

def _clean_pred(b):
    """A predicted 0–1000 box clipped to [0, 1000]; degenerate -> None (harness)."""
    if b is None:
        return None
    c = tuple(min(max(float(x), 0.0), 1000.0) for x in b)
    return c if valid_box(c) else None


def track_frames(gt: Sequence, pred: Sequence) -> list[tuple[int, float, object, bool]]:
    """(t, IoU, cleaned prediction, GT present) per evaluated frame t >= 1 (frame 0 is given)."""
    # GT absent and no prediction: not evaluated; GT absent and a box: IoU 0 (false detection);
    # GT present and no box: IoU 0. `pred` shorter than `gt` means missing boxes.
    rows = []
    for t in range(1, len(gt)):
        g = gt[t]
        p = _clean_pred(pred[t] if t < len(pred) else None)
        if g is None:
            if p is not None:
                rows.append((t, 0.0, p, False))
            continue
        rows.append((t, box_iou(g, p) if p is not None else 0.0, p, True))
    return rows


def _freeze_rate(rows, compat: Compat) -> float | None:
    if compat == "vantage":
        # harness: frozen vs the previous non-null prediction on GT-present frames (prev not reset
        # by nulls, never set by false detections); / max(1, n_predicted - 1)
        frozen, prev = 0, None
        for _t, _iou, p, gt_present in rows:
            if not gt_present or p is None:
                continue
            if prev is not None and box_iou(p, prev) >= FREEZE_IOU:
                frozen += 1
            prev = p
        n_pred = sum(r[2] is not None for r in rows)
        return frozen / max(1, n_pred - 1)
    # strict (metrics.md §2): consecutive evaluated frames both predicted; a gap breaks the pair
    pairs = [(a[2], b[2]) for a, b in zip(rows, rows[1:])
             if b[0] == a[0] + 1 and a[2] is not None and b[2] is not None]
    return _ratio(sum(box_iou(a, b) >= FREEZE_IOU for a, b in pairs), len(pairs))


def track_scores(gt: Sequence, pred: Sequence, compat: Compat = "strict") -> dict:
    """One tracklet: success AUC, mean IoU, P@0.5 and freeze rate (boxes 0–1000 xyxy, GT None =
    target absent). AUC over τ in linspace(0,1,21): vantage `>=`, strict `>`."""
    check_compat(compat)
    rows = track_frames(gt, pred)
    ious = np.array([r[1] for r in rows])
    if not ious.size:
        return {"auc": None, "mean_iou": None, "p@0.5": None, "freeze_rate": None, "n_eval": 0, "n_null": 0}
    hit = ious[:, None] >= SOT_THRESHOLDS if compat == "vantage" else ious[:, None] > SOT_THRESHOLDS
    return {"auc": float(hit.mean()), "mean_iou": float(ious.mean()), "p@0.5": float(np.mean(ious >= 0.5)),
            "freeze_rate": _freeze_rate(rows, compat), "n_eval": int(ious.size),
            "n_null": sum(r[2] is None for r in rows)}


def single_object_tracking(tracks: Sequence[tuple[Sequence, Sequence]], compat: Compat = "strict") -> dict:
    """Unweighted means over tracklets (those with no evaluated frame are left out)."""
    per = [track_scores(g, p, compat) for g, p in tracks]
    scored = [x for x in per if x["auc"] is not None]

    def mean(k):
        vals = [x[k] for x in scored if x[k] is not None]
        return float(np.mean(vals)) if vals else None

    return {"auc": mean("auc"), "mean_iou": mean("mean_iou"), "p@0.5": mean("p@0.5"),
            "freeze_rate": mean("freeze_rate"), "n_tracklets": len(per), "n_scored": len(scored),
            "units": np.array([x["auc"] if x["auc"] is not None else np.nan for x in per])}
