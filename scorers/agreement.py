"""Human-rating agreement (RealityBench §4, App. E / Table 13).

Ratings are `{frame_id: {rater: label}}`; a rater who skipped a frame is absent or None.

* `pairwise_agreement`: raw agreement pooled over every unordered pair of raters on every
  frame (agreeing pairs / all pairs), so a frame with more raters weighs more;
* `krippendorff_alpha`: nominal alpha with missing ratings (coincidence matrix; units with
  fewer than 2 ratings are not pairable); None when undefined (no pairable unit, or a
  single value observed) -- metrics.md §8 says report "n/a", not 1;
* `rater_vs_majority`: each rater against the strict majority of the OTHER raters on the
  frames where at least `min_others` others rated (ties skipped);
* `heldout_split` / `scorer_vs_majority`: the scorer against the raters' majority on the
  held-out frames only, frames with >= 3 ratings, ties excluded, frames the scorer leaves
  unscored excluded. The 60/40 split is fixed per frame id: u = blake2b(salt + "/" +
  frame_id) read as a 64-bit fraction; u < 0.6 -> "tune", else "heldout". It depends on the
  id only, so adding frames never moves another frame across the split (the realised
  proportion on a small set is only approximately 60/40).
"""
from __future__ import annotations

import hashlib
import math
from collections import Counter
from itertools import combinations
from typing import Any, Mapping, Sequence

import numpy as np
from pydantic import BaseModel

from scorers.stats import CI, stratified_bootstrap

Ratings = Mapping[str, Mapping[str, Any]]
SPLIT_SALT = "scenebench/realitybench/ratings-split/v1"
TUNE_FRACTION = 0.6

__all__ = ["pairwise_agreement", "krippendorff_alpha", "ratings_to_matrix", "majority",
           "rater_vs_majority", "heldout_split", "scorer_vs_majority", "ScorerAgreement",
           "RaterAgreement", "table13_row", "Table13Row", "SPLIT_SALT"]


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _frame_labels(r: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in r.items() if not _missing(v)}


def pairwise_agreement(ratings: Ratings) -> float | None:
    """Agreeing rater pairs / all rater pairs, pooled over frames; None without any pair."""
    agree = total = 0
    for r in ratings.values():
        labels = list(_frame_labels(r).values())
        for a, b in combinations(labels, 2):
            total += 1
            agree += a == b
    return agree / total if total else None


def ratings_to_matrix(ratings: Ratings) -> list[list[Any]]:
    """raters x frames matrix (None = missing), raters and frames in sorted order."""
    frames = sorted(ratings)
    raters = sorted({k for r in ratings.values() for k in r})
    return [[ratings[f].get(k) for f in frames] for k in raters]


def krippendorff_alpha(data: Ratings | Sequence[Sequence[Any]]) -> float | None:
    """Nominal Krippendorff's alpha; `data` is a ratings dict or a raters x units matrix.

    alpha = 1 - (n - 1) * sum_{c != k} o_ck / sum_{c != k} n_c n_k with the coincidence
    counts o_ck = sum_u (ordered c-k pairs in u) / (m_u - 1) (metrics.md §8).
    """
    if isinstance(data, Mapping):
        units = [list(_frame_labels(r).values()) for r in data.values()]
    else:
        mat = [list(row) for row in data]
        n_units = max((len(r) for r in mat), default=0)
        units = [[row[u] for row in mat if u < len(row) and not _missing(row[u])] for u in range(n_units)]
    coinc: Counter = Counter()
    for vals in units:
        m = len(vals)
        if m < 2:
            continue
        cnt = Counter(vals)
        for c, nc in cnt.items():
            for k, nk in cnt.items():
                coinc[(c, k)] += nc * (nk - (c == k)) / (m - 1)
    if not coinc:
        return None
    n_c: Counter = Counter()
    for (c, _k), v in coinc.items():
        n_c[c] += v
    n = sum(n_c.values())
    disagree = sum(v for (c, k), v in coinc.items() if c != k)
    expected = n * n - sum(v * v for v in n_c.values())  # sum_{c != k} n_c n_k
    if expected <= 0:
        return None
    return float(1.0 - (n - 1) * disagree / expected)


def majority(labels: Sequence[Any]) -> Any | None:
    """The most frequent label if unique, else None (tie or empty)."""
    cnt = Counter(labels).most_common()
    if not cnt or (len(cnt) > 1 and cnt[0][1] == cnt[1][1]):
        return None
    return cnt[0][0]


class RaterAgreement(BaseModel):
    agreement: float | None
    n: int


def rater_vs_majority(ratings: Ratings, min_others: int = 2) -> dict[str, RaterAgreement]:
    """Each rater against the majority of the other raters (ties among the others skipped)."""
    hits: dict[str, list[bool]] = {}
    for r in ratings.values():
        labels = _frame_labels(r)
        for rater, lab in labels.items():
            others = [v for k, v in labels.items() if k != rater]
            hits.setdefault(rater, [])
            if len(others) < min_others:
                continue
            maj = majority(others)
            if maj is not None:
                hits[rater].append(lab == maj)
    return {k: RaterAgreement(agreement=(sum(v) / len(v)) if v else None, n=len(v))
            for k, v in sorted(hits.items())}


def heldout_split(frame_id: str, salt: str = SPLIT_SALT) -> str:
    """'tune' (60%) or 'heldout' (40%), fixed by a hash of the frame id."""
    h = hashlib.blake2b(f"{salt}/{frame_id}".encode(), digest_size=8).digest()
    u = int.from_bytes(h, "big") / 2.0**64
    return "tune" if u < TUNE_FRACTION else "heldout"


_TRUE = {"accept", "accepted", "adequate", "yes", "true", "1"}
_FALSE = {"reject", "rejected", "inadequate", "no", "false", "0"}


def _as_bool(v: Any) -> bool | None:
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)) and not _missing(v) and v in (0, 1):
        return bool(v)
    if isinstance(v, str):
        s = v.strip().lower()
        if s in _TRUE:
            return True
        if s in _FALSE:
            return False
    return None


class ScorerAgreement(BaseModel):
    agreement: float | None
    n: int                              # frames compared (ties and unscored excluded)
    n_ties: int
    n_unscored: int
    accepts_of_majority_rejects: int    # scorer too lenient
    n_majority_rejects: int
    rejects_of_majority_accepts: int    # scorer too strict
    n_majority_accepts: int
    ci: CI | None = None


def scorer_vs_majority(ratings: Ratings, scorer: Mapping[str, Any], min_ratings: int = 3,
                       split: str | None = "heldout", salt: str = SPLIT_SALT,
                       n_resamples: int = 0, seed: int = 0) -> ScorerAgreement:
    """Scorer verdict vs the raters' majority (accept/reject labels, bools accepted).

    `split=None` uses every frame; `n_resamples > 0` adds a bootstrap CI over frames.
    """
    hits: list[bool] = []
    ties = unscored = fa = nrej = fr = nacc = 0
    for fid in sorted(ratings):
        if split is not None and heldout_split(fid, salt) != split:
            continue
        labels = [b for b in map(_as_bool, _frame_labels(ratings[fid]).values()) if b is not None]
        if len(labels) < min_ratings:
            continue
        maj = majority(labels)
        if maj is None:
            ties += 1
            continue
        s = _as_bool(scorer.get(fid))
        if s is None:
            unscored += 1
            continue
        hits.append(s == maj)
        if maj:
            nacc += 1
            fr += not s
        else:
            nrej += 1
            fa += s
    ci = None
    if n_resamples and hits:
        h = np.asarray(hits, float)
        ci = stratified_bootstrap(lambda idx: float(h[idx].mean()), [0] * len(h),
                                  n_resamples=n_resamples, seed=seed)
    return ScorerAgreement(agreement=(sum(hits) / len(hits)) if hits else None, n=len(hits),
                           n_ties=ties, n_unscored=unscored, accepts_of_majority_rejects=fa,
                           n_majority_rejects=nrej, rejects_of_majority_accepts=fr,
                           n_majority_accepts=nacc, ci=ci)


class Table13Row(BaseModel):
    frames: int               # frames with >= 2 ratings
    raters: int
    ratings_per_frame: float | None
    agree: float | None
    alpha: float | None
    scorer: ScorerAgreement


def table13_row(ratings: Ratings, scorer: Mapping[str, Any]) -> Table13Row:
    """One environment's row of Table 13."""
    rated = {f: _frame_labels(r) for f, r in ratings.items()}
    rated = {f: r for f, r in rated.items() if len(r) >= 2}
    raters = {k for r in rated.values() for k in r}
    return Table13Row(
        frames=len(rated), raters=len(raters),
        ratings_per_frame=(sum(len(r) for r in rated.values()) / len(rated)) if rated else None,
        agree=pairwise_agreement(rated), alpha=krippendorff_alpha(rated),
        scorer=scorer_vs_majority(rated, scorer),
    )
