"""Boxes and segments for VANTAGE-Bench: IoU, coordinate conversion, matching, COCO AP.

Conventions (metrics.md §0): boxes are xyxy floats, continuous coordinates
(`inter = max(0, min x2 - max x1) * max(0, min y2 - max y1)`), IoU 0 when the union is not
positive; a segment's tIoU is the 1-D analogue. Model boxes arrive in 0–1000 normalised
space and are scaled to pixels `x·W/1000, y·H/1000`, clipped to the image; the VANTAGE
Object Localization harness also truncates to int (`scale_bbox`), hence `truncate`.

Matching of a prediction set against a GT set at IoU threshold t:

* `greedy_matches` — the harness rule (astro_2d_dataset): predictions in output order, each
  takes the unmatched GT of highest IoU (the first GT wins ties: strict `>` update) and is a
  TP when that IoU >= t;
* `hungarian_matches` — order-free optimum on `1[IoU >= t]·(1 + IoU)` (metrics.md §4), so the
  number of TPs is maximised first and ties broken by IoU.

`coco_ap` re-implements pycocotools' COCOeval for one category without crowd boxes (area
range "all", maxDets configurable: crowds need more than 100): tests check it against
pycocotools itself.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment

Box = tuple[float, float, float, float]

COCO_IOU_THRESHOLDS = np.linspace(0.5, 0.95, 10)
COCO_RECALL_THRESHOLDS = np.linspace(0.0, 1.0, 101)

__all__ = ["Box", "box_iou", "iou_matrix", "segment_iou", "scale_box", "valid_box", "greedy_matches",
           "hungarian_matches", "coco_ap", "COCO_IOU_THRESHOLDS", "COCO_RECALL_THRESHOLDS"]


def box_iou(a: Sequence[float], b: Sequence[float]) -> float:
    """IoU of two xyxy boxes (continuous coordinates); 0 when the union is not positive."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def iou_matrix(preds: Sequence[Sequence[float]], gts: Sequence[Sequence[float]]) -> np.ndarray:
    """IoU[p, g] for every prediction/GT pair (shape len(preds) x len(gts)); the same float
    operations as `box_iou`, vectorised (crowd images have 100+ boxes on each side)."""
    p = np.asarray(preds, float).reshape(-1, 4)[:, None, :]
    g = np.asarray(gts, float).reshape(-1, 4)[None, :, :]
    ix = np.maximum(0.0, np.minimum(p[..., 2], g[..., 2]) - np.maximum(p[..., 0], g[..., 0]))
    iy = np.maximum(0.0, np.minimum(p[..., 3], g[..., 3]) - np.maximum(p[..., 1], g[..., 1]))
    inter = ix * iy
    union = (p[..., 2] - p[..., 0]) * (p[..., 3] - p[..., 1]) + (g[..., 2] - g[..., 0]) * (g[..., 3] - g[..., 1]) - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)


def segment_iou(a: Sequence[float], b: Sequence[float]) -> float:
    """tIoU of two [start, end] segments: intersection / (len_a + len_b - intersection)."""
    inter = max(0.0, min(a[1], b[1]) - max(a[0], b[0]))
    union = max(0.0, a[1] - a[0]) + max(0.0, b[1] - b[0]) - inter
    return inter / union if union > 0 else 0.0


def scale_box(box: Sequence[float], width: float, height: float, truncate: bool = False) -> Box:
    """A 0–1000 xyxy box in pixels, clipped to the image (int-truncated when `truncate`)."""
    x1, y1, x2, y2 = (min(max(box[0] * width / 1000, 0.0), width), min(max(box[1] * height / 1000, 0.0), height),
                      min(max(box[2] * width / 1000, 0.0), width), min(max(box[3] * height / 1000, 0.0), height))
    if truncate:  # after clipping, so a huge coordinate (inf after scaling) cannot overflow int()
        x1, y1, x2, y2 = float(int(x1)), float(int(y1)), float(int(x2)), float(int(y2))
    return x1, y1, x2, y2


def valid_box(box: Sequence[float], min_area: float = 0.0) -> bool:
    """Positive width and height and an area of at least `min_area`."""
    w, h = box[2] - box[0], box[3] - box[1]
    return w > 0 and h > 0 and w * h >= min_area


def greedy_matches(ious: np.ndarray, threshold: float) -> list[int]:
    """The GT index each prediction (in row order) is matched to, -1 for a false positive."""
    used = np.zeros(ious.shape[1], bool)
    out = []
    for row in ious:
        avail = np.where(used, -1.0, row)
        bi = int(np.argmax(avail)) if avail.size else -1   # the first of equal maxima
        if bi >= 0 and avail[bi] > 0 and avail[bi] >= threshold:
            used[bi] = True
            out.append(bi)
        else:
            out.append(-1)
    return out


def hungarian_matches(ious: np.ndarray, threshold: float) -> list[int]:
    """Order-free one-to-one matching maximising the TP count, then summed IoU."""
    out = [-1] * ious.shape[0]
    if ious.size == 0:
        return out
    w = np.where(ious >= threshold, 1.0 + ious, 0.0)
    rows, cols = linear_sum_assignment(-w)
    for r, c in zip(rows, cols):
        if ious[r, c] >= threshold:
            out[r] = int(c)
    return out


def _coco_image(ious: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """pycocotools evaluateImg for one image: dtm[t, d] = True where detection d is a TP."""
    n_d, n_g = ious.shape
    tp = np.zeros((len(thresholds), n_d), bool)
    for ti, t in enumerate(thresholds):
        gt_used = np.zeros(n_g, bool)
        for d in range(n_d):
            best = t  # pycocotools: min(t, 1 - 1e-10); every threshold here is <= 0.95
            m = -1
            for g in range(n_g):
                if gt_used[g] or ious[d, g] < best:
                    continue
                best, m = ious[d, g], g  # `<` skip: a later GT with equal IoU wins (pycocotools)
            if m >= 0:
                gt_used[m] = True
                tp[ti, d] = True
    return tp


def coco_ap(images: Sequence[tuple[Sequence[Sequence[float]], Sequence[Sequence[float]]]],
            max_dets: int = 100) -> dict[str, float]:
    """AP@[.5:.95], AP50, AP75 and AR@max_dets over (predictions, GTs) per image, one category.

    Predictions carry no score (VLM boxes), so each has score 1 and the stable sort keeps image
    order, then output order; each image keeps its first `max_dets` predictions. -1 when there is
    no GT box at all (pycocotools' "absent category")."""
    thresholds = COCO_IOU_THRESHOLDS
    n_gt = sum(len(g) for _, g in images)
    if n_gt == 0:
        return {"ap": -1.0, "ap50": -1.0, "ap75": -1.0, "ar": -1.0}
    tps = [_coco_image(iou_matrix(list(p)[:max_dets], g), thresholds) for p, g in images]
    tp = np.concatenate(tps, axis=1)
    precision = np.zeros((len(thresholds), len(COCO_RECALL_THRESHOLDS)))
    recall = np.zeros(len(thresholds))
    for ti in range(len(thresholds) if tp.shape[1] else 0):
        ctp = np.cumsum(tp[ti])
        rc = ctp / n_gt
        # pycocotools adds eps to the denominator (>= 1 here): a 1e-16 difference at most
        pr = (ctp / np.arange(1, len(ctp) + 1)).tolist()
        recall[ti] = rc[-1]
        for i in range(len(pr) - 1, 0, -1):
            pr[i - 1] = max(pr[i - 1], pr[i])
        idx = np.searchsorted(rc, COCO_RECALL_THRESHOLDS, side="left")
        for ri, pi in enumerate(idx):
            if pi >= len(pr):
                break
            precision[ti, ri] = pr[pi]
    return {"ap": float(precision.mean()), "ap50": float(precision[0].mean()),
            "ap75": float(precision[5].mean()), "ar": float(recall.mean())}
