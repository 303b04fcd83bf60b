"""Dense Video Captioning: SODA_c with a pluggable caption similarity (vantage_metrics.md §6).

Our own implementation from the algorithm's description in metrics.md §1 (the reference
code's licence forbids copying it). Per video, gold and predicted events sorted by start;
`S = tIoU ⊙ C` with C the caption similarity in [0, 1] (no tIoU threshold); the
order-preserving DP `D[i,j] = max(D[i-1,j], D[i,j-1], D[i-1,j-1] + S[i,j])`;
`F_v = 2·D[m,n] / (n_pred + n_gold)`; SODA_c = mean over videos. Side metrics from the
DP-matched pairs (backtrack prefers up, then left, then the diagonal, as np.argmax over
[up, left, diag], so a pair always has S > 0): IoU-F1 and Sim-F1 (BERTScore-F1 when C is BERTScore)
as F-measures of their sums over the pairs, and the mean tIoU of all matched pairs pooled.

compat: strict keeps a video with no parseable prediction (F = 0); vantage drops it
(`gt_vids = gts ∩ preds`). Empty gold (not expected): strict F = 1 when the prediction is
empty too, else 0.

Similarities (name -> a function of (gold captions, predicted captions) -> m×n matrix):
`token_f1` (default, SQuAD-style multiset overlap, no model), `rouge_l` (LCS F-measure), and
`bertscore_similarity(model_dir, num_layers)` for a local checkpoint the user supplies.
Numbers from the offline similarities are not comparable to the paper's (which used
BERTScore with roberta-large); nothing is ever downloaded, and a missing model is an error,
never a constant score (the harness silently used 0.5).
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from scorers.vantage_boxes import segment_iou
from scorers.vantage_metrics import Compat, check_compat

Event = tuple[float, float, str]
Similarity = Callable[[Sequence[str], Sequence[str]], np.ndarray]

__all__ = ["SimilarityUnavailable", "tokens", "token_f1", "rouge_l", "matrix", "SIMILARITIES",
           "get_similarity", "bertscore_similarity", "soda_dp", "video_scores", "dense_captioning"]


class SimilarityUnavailable(RuntimeError):
    """A caption similarity was asked for whose model or resource is not on this machine."""


_TOKEN = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> list[str]:
    """Lower-case alphanumeric words."""
    return _TOKEN.findall(text.lower())


def token_f1(gold: str, pred: str) -> float:
    """Multiset token overlap F1 (SQuAD); 0 when either side has no token."""
    g, p = Counter(tokens(gold)), Counter(tokens(pred))
    common = sum((g & p).values())
    if common == 0:
        return 0.0
    return 2 * common / (sum(g.values()) + sum(p.values()))


def _lcs(a: list[str], b: list[str]) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def rouge_l(gold: str, pred: str) -> float:
    """ROUGE-L F-measure (beta 1) on lower-case words; 0 when either side has no token."""
    g, p = tokens(gold), tokens(pred)
    lcs = _lcs(g, p)
    if lcs == 0:
        return 0.0
    r, pr = lcs / len(g), lcs / len(p)
    return 2 * r * pr / (r + pr)


def matrix(pair_fn: Callable[[str, str], float]) -> Similarity:
    """A pairwise similarity as a matrix function (rows gold, columns predictions)."""
    def sim(gold: Sequence[str], pred: Sequence[str]) -> np.ndarray:
        return np.array([[pair_fn(g, p) for p in pred] for g in gold]).reshape(len(gold), len(pred))
    return sim


SIMILARITIES: dict[str, Similarity] = {"token_f1": matrix(token_f1), "rouge_l": matrix(rouge_l)}


def get_similarity(name: str) -> Similarity:
    """A named offline similarity; BERTScore needs `bertscore_similarity` with a local model."""
    if name in SIMILARITIES:
        return SIMILARITIES[name]
    if name == "bertscore":
        raise SimilarityUnavailable("BERTScore needs a local model: use bertscore_similarity(model_dir, num_layers)")
    if name == "meteor":
        raise SimilarityUnavailable("METEOR is not available: it needs Java and pycocoevalcap, not installed here")
    raise ValueError(f"unknown caption similarity {name!r}; known: {sorted(SIMILARITIES)} and bertscore")


def bertscore_similarity(model_dir: str | Path, num_layers: int) -> Similarity:
    """BERTScore F1 (no idf, no rescaling) from a checkpoint directory on this machine.

    Refuses (SimilarityUnavailable) when bert_score is not installed or the directory does not
    exist, so nothing is downloaded and no constant stands in for the score."""
    path = Path(model_dir)
    try:
        found = path.is_dir()
    except OSError:  # e.g. a name longer than the file system allows
        found = False
    if not found:
        raise SimilarityUnavailable(f"BERTScore model directory {str(path)[:200]!r} does not exist")
    try:
        from bert_score import BERTScorer  # optional; never in the default install
    except ImportError as e:
        raise SimilarityUnavailable("BERTScore needs the bert-score package (and torch), not installed") from e
    scorer = BERTScorer(model_type=str(path), num_layers=int(num_layers), lang="en")

    def sim(gold: Sequence[str], pred: Sequence[str]) -> np.ndarray:
        if not gold or not pred:
            return np.zeros((len(gold), len(pred)))
        # every (gold, pred) pair, row-major: candidates = predictions, references = gold
        _p, _r, f = scorer.score([p for _ in gold for p in pred], [g for g in gold for _ in pred])
        return np.asarray(f, float).reshape(len(gold), len(pred))

    return sim


def soda_dp(score: np.ndarray) -> tuple[float, list[tuple[int, int]]]:
    """Best order-preserving one-to-one sum of `score` and its matched (gold, pred) pairs."""
    m, n = score.shape
    d = np.zeros((m + 1, n + 1))
    move = np.zeros((m + 1, n + 1), int)
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            opts = (d[i - 1, j], d[i, j - 1], d[i - 1, j - 1] + score[i - 1, j - 1])
            k = int(np.argmax(opts))
            d[i, j], move[i, j] = opts[k], k
    pairs = []
    i, j = m, n
    while i > 0 and j > 0:
        k = move[i, j]
        if k == 2:  # only when S > 0: with S = 0 the diagonal never beats `up` (D is monotone)
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif k == 0:
            i -= 1
        else:
            j -= 1
    return float(d[m, n]), pairs[::-1]


def _fmeasure(total: float, n_pred: int, n_gold: int) -> float:
    return 2 * total / (n_pred + n_gold)


def video_scores(gold: Sequence[Event], pred: Sequence[Event] | None, similarity: Similarity) -> dict:
    """SODA_c F, IoU-F1, Sim-F1 and the matched pairs' tIoUs for one video (pred None = none)."""
    g = sorted(gold, key=lambda e: e[0])
    p = sorted(pred or [], key=lambda e: e[0])
    if not g:
        f = 1.0 if not p else 0.0
        return {"soda_c": f, "iou_f1": f, "sim_f1": f, "matched_ious": []}
    if not p:
        return {"soda_c": 0.0, "iou_f1": 0.0, "sim_f1": 0.0, "matched_ious": []}
    tiou = np.array([[segment_iou((a[0], a[1]), (b[0], b[1])) for b in p] for a in g])
    c = np.nan_to_num(np.asarray(similarity([a[2] for a in g], [b[2] for b in p]), float))
    if c.shape != tiou.shape:
        raise ValueError(f"caption similarity returned shape {c.shape}, expected {tiou.shape}")
    c = np.clip(c, 0.0, 1.0)
    total, pairs = soda_dp(tiou * c)
    ious = [float(tiou[i, j]) for i, j in pairs]
    return {"soda_c": _fmeasure(total, len(p), len(g)), "iou_f1": _fmeasure(sum(ious), len(p), len(g)),
            "sim_f1": _fmeasure(sum(float(c[i, j]) for i, j in pairs), len(p), len(g)), "matched_ious": ious}


def dense_captioning(videos: Sequence[tuple[Sequence[Event], Sequence[Event] | None]],
                     compat: Compat = "strict", similarity: Similarity | str = "token_f1") -> dict:
    """Means over videos of SODA_c, IoU-F1 and Sim-F1, plus mIoU of all matched pairs pooled.

    `videos`: (gold events, parsed prediction or None) per video; None or [] = no prediction
    (vantage mode drops such videos)."""
    check_compat(compat)
    sim = get_similarity(similarity) if isinstance(similarity, str) else similarity
    kept = [(g, p) for g, p in videos if compat == "strict" or p]
    per = [video_scores(g, p, sim) for g, p in kept]
    pooled = [x for v in per for x in v["matched_ious"]]

    def mean(k):
        return float(np.mean([v[k] for v in per])) if per else None

    return {"soda_c": mean("soda_c"), "iou_f1": mean("iou_f1"), "sim_f1": mean("sim_f1"),
            "miou_matched": float(np.mean(pooled)) if pooled else None,
            "n_videos": len(videos), "n_scored": len(per), "n_dropped": len(videos) - len(per),
            "units": np.array([v["soda_c"] for v in per], float)}
