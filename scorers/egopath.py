"""EgoPathBench evaluator (egopathbench.txt App. A, Table S4; metrics.md §6 and §9).

A prediction is graded against its `Question` alone. Route questions go through the
ordered contract of Table S4; the first failing stage names the outcome:

    format      -> no single ordered ID list could be recovered (or it is empty)
    invalid_id  -> an ID is not one of the question's displayed IDs
    wrong_start -> the first ID is not the required start
    illegal_edge-> a consecutive pair is not a legal direct (undirected) edge
    wrong_goal  -> the last ID is not an acceptable goal
    None        -> success; SPL = l / max(l, p) with p the floor-plane route length

Decisions the paper leaves open (documented in the report's settings too):

* A repeated consecutive ID (``[1, 4, 4, 7]``) is a self-loop, which is never a legal
  direct edge, so it fails at ``illegal_edge``: the contract checks every consecutive
  pair and we do not rewrite the model's answer.
* A single-ID route (``[1]``) has no edge; the edge stage passes vacuously, so V_i = 1 and
  S_i = 1 only if the start is itself an acceptable goal. Such answers are counted
  (``single_id``) so a VPR inflated by them is visible. Its ``first_edge_legal`` is False.
* Non-consecutive revisits are allowed when every edge is legal; they lengthen p_i.
* The Figure-3 diagnostics are computed in parallel (not gated by earlier stages) on
  every parsed list: ``endpoint_hit`` = last ID is an acceptable goal; ``first_edge_legal``
  = the list starts at the start and its first edge is legal; ``evaluable`` = a non-empty
  list of displayed IDs.
* Traversability pools the confusion matrix over all candidates of a task (micro BA/F1;
  per-question TNR is undefined when a view has no negatives, metrics.md §6). A predicted
  ID that is not displayed is a false positive and is counted as invalid; an unparseable
  answer is the empty set.
* Missing or non-text predictions are format failures, never crashes. So are replies the
  parser will not read, each bounded so that no reply can stall `score`: longer than
  RealityBench's cap (`scorers.answers.MAX_REPLY_CHARS`, 64,000 characters), bracket nesting
  deeper than MAX_DEPTH (16), more than MAX_ARRAYS (1,000) '[' characters, or an id longer
  than MAX_ID_DIGITS (9) digits (no display id is that large; `int()` refuses 4,300+ digits).
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from geometry.egopath_schema import ROUTE_TASKS, TASKS, TRAVERSABILITY_TASKS, Question
from scorers.answers import MAX_REPLY_CHARS
from scorers.stats import CI, _groups, cluster_bootstrap, percentile_ci

__all__ = [
    "STAGES", "SEED", "N_RESAMPLES", "RouteOutcome", "TravOutcome", "parse_id_list", "evaluate_route",
    "evaluate_traversability", "evaluate", "route_length_m", "traversability_metrics", "route_metrics",
    "egopath_score", "ItemTable", "ClusterDraws", "evaluate_model", "strict_subset_metrics",
]

STAGES = ("format", "invalid_id", "wrong_start", "illegal_edge", "wrong_goal")
SEED = 20260717          # App. A: "10,000 scene-cluster bootstrap resamples with seed 20260717"
N_RESAMPLES = 10_000
CONFIDENCE = 0.95
_DIGITS = re.compile(r"\s*\+?[0-9]+\s*")
# MAX_REPLY_CHARS (scorers.answers): RealityBench's cap: a longer reply is a format failure
MAX_ID_DIGITS = 9                   # display ids are small; a longer one is absurd, a format failure
MAX_DEPTH = 16                      # bracket nesting (strings included), so no decode recurses deeply
MAX_ARRAYS = 1000                   # '[' positions tried; more is not an answer, and bounds the work


class _Absurd:
    """An integer literal too long to be a display id (never converted with int())."""


def _parse_int(s: str) -> int | _Absurd:
    return _Absurd() if len(s.lstrip("-")) > MAX_ID_DIGITS else int(s)


_DECODER = json.JSONDecoder(parse_int=_parse_int)
_OPEN_BRACKET = re.compile(r"\[")


def _shallow(text: str, limit: int = MAX_DEPTH) -> bool:
    """Greatest rise of the open-minus-close bracket count <= limit, strings NOT skipped: it bounds
    the recursion of a decode started at any '[' (inside a string or not), so each try is cheap."""
    depth = 0
    for ch in text:
        if ch in "[{":
            depth += 1
            if depth > limit:
                return False
        elif ch in "]}" and depth:
            depth -= 1
    return True


# ---------------------------------------------------------------- parsing

def _json_arrays(text: str) -> list[Any] | None:
    """Every top-level JSON array in free text, left to right (arrays inside one are not separate);
    None when the text is too long, too deeply nested or holds too many '[' to be an answer."""
    if len(text) > MAX_REPLY_CHARS or text.count("[") > MAX_ARRAYS or not _shallow(text):
        return None
    # a for loop over the '[' positions, not a while loop that moves an index: no edit of it can hang
    out: list[Any] = []
    end = 0
    for bracket in _OPEN_BRACKET.finditer(text):
        if bracket.start() < end:   # inside the array decoded last
            continue
        try:
            value, end = _DECODER.raw_decode(text, bracket.start())
        except (ValueError, RecursionError):
            continue
        out.append(value)
    return out


def parse_id_list(text: Any) -> list[int] | None:
    """One ordered list of display IDs from raw model text, or None (Table S4 "Parse").

    The LAST JSON array in the text counts (prose, code fences and an "Answer: [...]"
    line around it are fine). Its items must be ints or digit strings ("3") of at most
    MAX_ID_DIGITS digits; floats, bools, nested lists, objects, absurd ids, a reply over
    MAX_REPLY_CHARS or no array at all -> None. json only, never eval.
    """
    if not isinstance(text, str):
        return None
    try:
        arrays = _json_arrays(text)
    except Exception:  # noqa: BLE001 - whatever the input, a parse failure is a format failure
        return None
    if not arrays:
        return None
    ids: list[int] = []
    for item in arrays[-1]:
        if isinstance(item, bool):
            return None
        if isinstance(item, int):
            ids.append(item)
        elif isinstance(item, str) and _DIGITS.fullmatch(item) and len(item.strip().lstrip("+")) <= MAX_ID_DIGITS:
            ids.append(int(item))
        else:
            return None
    return ids


# ---------------------------------------------------------------- per question

@dataclass(frozen=True)
class RouteOutcome:
    """One route prediction graded by Table S4 plus the Figure-3 diagnostics."""

    stage: str | None                    # first failing stage, None = success
    valid: bool                          # V_i: parsed, displayed IDs, start, all edges legal
    success: bool                        # S_i: V_i and the last ID is an acceptable goal
    spl: float                           # S_i * l / max(l, p)
    endpoint_hit: bool
    first_edge_legal: bool
    illegal_edges: list[tuple[int, int]] = field(default_factory=list)
    ids: list[int] | None = None
    evaluable: bool = False              # non-empty list of displayed IDs
    path_m: float | None = None          # p_i (floor plane), when every ID has a world point
    shortest_m: float | None = None      # l_i

    @property
    def has_illegal_edge(self) -> bool:
        return bool(self.illegal_edges)


@dataclass(frozen=True)
class TravOutcome:
    """One traversability prediction as confusion counts over the displayed candidates."""

    tp: int
    fp: int
    fn: int
    tn: int
    n_invalid: int                       # predicted IDs that are not displayed (already in fp)
    parsed: bool
    predicted: list[int] = field(default_factory=list)   # deduplicated, sorted


def _require_route(q: Question) -> None:
    if q.task not in ROUTE_TASKS:
        raise ValueError(f"question {q.question_id}: task {q.task!r} is not a route task")
    if q.start_id is None:
        raise ValueError(f"route question {q.question_id} has no start_id")
    if not q.goal_ids:
        raise ValueError(f"route question {q.question_id} has no goal_ids")


def _floor_xy(q: Question, i: int) -> np.ndarray:
    w = q.waypoint_world.get(str(i))
    if w is None or len(w) < 2:
        raise ValueError(f"question {q.question_id}: no world point for display id {i}")
    return np.asarray(w[:2], float)


def route_length_m(q: Question, ids: Sequence[int]) -> float:
    """Floor-plane (x, y) length of a route through the question's waypoint world points."""
    pts = [_floor_xy(q, i) for i in ids]
    return float(sum(np.linalg.norm(b - a) for a, b in zip(pts, pts[1:])))


def _shortest(q: Question) -> float:
    """l_i: the stored shortest legal length, else the verified reference route's length."""
    if q.shortest_m is not None:
        if not math.isfinite(q.shortest_m) or q.shortest_m < 0:
            raise ValueError(f"question {q.question_id}: shortest_m {q.shortest_m} is not a length")
        return float(q.shortest_m)
    if q.reference_route:
        return route_length_m(q, q.reference_route)
    raise ValueError(f"route question {q.question_id} has neither shortest_m nor reference_route (SPL needs l_i)")


def evaluate_route(q: Question, text: Any) -> RouteOutcome:
    """Grade one route answer (Point/Embodied/Intent Path) by the ordered Table S4 contract."""
    _require_route(q)
    ids = parse_id_list(text)
    if not ids:  # None (no list) or [] (no route): nothing to check
        return RouteOutcome(stage="format", valid=False, success=False, spl=0.0, endpoint_hit=False,
                            first_edge_legal=False, ids=ids)
    shown = set(q.display_ids)
    legal = {frozenset((int(a), int(b))) for a, b in q.legal_edges}
    goals = set(q.goal_ids)
    edges = list(zip(ids, ids[1:]))
    illegal = [(a, b) for a, b in edges if a == b or frozenset((a, b)) not in legal]
    all_shown = all(i in shown for i in ids)
    starts = ids[0] == q.start_id
    endpoint_hit = ids[-1] in goals
    first_edge_legal = starts and len(ids) >= 2 and (ids[0], ids[1]) not in illegal
    if not all_shown:
        stage = "invalid_id"
    elif not starts:
        stage = "wrong_start"
    elif illegal:
        stage = "illegal_edge"
    elif not endpoint_hit:
        stage = "wrong_goal"
    else:
        stage = None
    valid = stage in (None, "wrong_goal")
    success = stage is None
    path = None
    if all(str(i) in q.waypoint_world for i in ids):
        path = route_length_m(q, ids)
    spl, ell = 0.0, None
    if success:
        ell = _shortest(q)
        if path is None:  # a displayed id without a world point is a broken question, not a model error
            raise ValueError(f"question {q.question_id}: a route id lacks a world point")
        spl = 1.0 if ell == 0 and path == 0 else ell / max(ell, path)
    return RouteOutcome(stage=stage, valid=valid, success=success, spl=float(spl), endpoint_hit=endpoint_hit,
                        first_edge_legal=bool(first_edge_legal), illegal_edges=illegal, ids=ids,
                        evaluable=all_shown, path_m=path, shortest_m=ell)


def evaluate_traversability(q: Question, text: Any) -> TravOutcome:
    """Confusion counts of one traversability answer (a set) over the displayed candidates."""
    if q.task not in TRAVERSABILITY_TASKS:
        raise ValueError(f"question {q.question_id}: task {q.task!r} is not a traversability task")
    shown = set(q.display_ids)
    pos = set(q.positives)
    if not pos <= shown:
        raise ValueError(f"question {q.question_id}: positives {sorted(pos - shown)} are not displayed")
    ids = parse_id_list(text)
    pred = set(ids or [])
    invalid = pred - shown
    tp = len(pred & pos)
    fp = len(pred - pos)            # includes the invalid (not displayed) ids
    fn = len(pos - pred)
    tn = len(shown - pos - pred)
    return TravOutcome(tp=tp, fp=fp, fn=fn, tn=tn, n_invalid=len(invalid), parsed=ids is not None,
                       predicted=sorted(pred))


def evaluate(q: Question, text: Any) -> RouteOutcome | TravOutcome:
    return evaluate_traversability(q, text) if q.task in TRAVERSABILITY_TASKS else evaluate_route(q, text)


# ---------------------------------------------------------------- aggregation

def _div(a: float, b: float) -> float:
    return a / b if b else float("nan")


def traversability_metrics(tp: float, fp: float, fn: float, tn: float) -> dict[str, float]:
    """Pooled BA, F1, precision, TPR, TNR in [0, 1]; NaN where a class is empty.

    F1 = 2TP / (2TP + FP + FN); 1.0 when there is neither a positive nor a prediction."""
    tpr, tnr = _div(tp, tp + fn), _div(tn, tn + fp)
    denom = 2 * tp + fp + fn
    return {"ba": (tpr + tnr) / 2, "f1": 2 * tp / denom if denom else 1.0, "precision": _div(tp, tp + fp),
            "tpr": tpr, "tnr": tnr}


def route_metrics(outcomes: Sequence[RouteOutcome]) -> dict[str, float]:
    """VPR, SR, SPL and the Figure-3 / Table S11 diagnostics as fractions (NaN when empty)."""
    n = len(outcomes)
    if n == 0:
        nan = float("nan")
        return {k: nan for k in ("vpr", "sr", "spl", "evaluable", "endpoint_hit", "first_edge_legal",
                                 "full_route_legal", "has_illegal_edge", "illegal_later_given_first_legal",
                                 "illegal_later_given_first_and_end")}
    fe = [o for o in outcomes if o.first_edge_legal]
    fe_end = [o for o in fe if o.endpoint_hit]
    return {
        "vpr": sum(o.valid for o in outcomes) / n,
        "sr": sum(o.success for o in outcomes) / n,
        "spl": sum(o.spl for o in outcomes) / n,
        "evaluable": sum(o.evaluable for o in outcomes) / n,
        "endpoint_hit": sum(o.endpoint_hit for o in outcomes) / n,
        "first_edge_legal": len(fe) / n,
        "full_route_legal": sum(o.valid for o in outcomes) / n,
        "has_illegal_edge": sum(o.has_illegal_edge for o in outcomes) / n,
        "illegal_later_given_first_legal": _div(sum(o.has_illegal_edge for o in fe), len(fe)),
        "illegal_later_given_first_and_end": _div(sum(o.has_illegal_edge for o in fe_end), len(fe_end)),
    }


def egopath_score(ba_pt: float, ba_et: float, sr_pp: float, sr_ep: float, sr_ip: float) -> float:
    """EgoPath Score = 100/5 [(2BA_PT-1) + (2BA_ET-1) + SR_PP + SR_EP + SR_IP], range [-40, 100]."""
    return 100.0 / 5.0 * ((2 * ba_pt - 1) + (2 * ba_et - 1) + sr_pp + sr_ep + sr_ip)


# ---------------------------------------------------------------- bootstrap

class ItemTable:
    """Per-question numeric columns, so every statistic is a few sums over an index array."""

    def __init__(self, questions: Sequence[Question], outcomes: Sequence[RouteOutcome | TravOutcome]):
        if len(questions) != len(outcomes):
            raise ValueError("one outcome per question")
        n = len(questions)
        self.task = np.array([TASKS.index(q.task) for q in questions], np.intp)
        self.group = [q.scene_group for q in questions]
        cols = {k: np.zeros(n) for k in ("tp", "fp", "fn", "tn", "valid", "success", "spl")}
        for i, o in enumerate(outcomes):
            if isinstance(o, TravOutcome):
                cols["tp"][i], cols["fp"][i], cols["fn"][i], cols["tn"][i] = o.tp, o.fp, o.fn, o.tn
            else:
                cols["valid"][i], cols["success"][i], cols["spl"][i] = o.valid, o.success, o.spl
        self.cols = cols

    def matrix(self, idx: np.ndarray) -> np.ndarray:
        """Items idx as rows of 8 columns per task (COLS; zero outside the item's task block)."""
        X = np.zeros((len(idx), 8 * len(TASKS)))
        for j, name in enumerate(COLS):
            v = np.ones(len(idx)) if name == "n" else self.cols[name][idx]
            X[np.arange(len(idx)), 8 * self.task[idx] + j] = v
        return X

    def sums(self, idx: np.ndarray, cols: Sequence[str] | None = None) -> dict[str, np.ndarray]:
        """Per-task sums of the columns (default all; "n" = counts) over idx (with repeats)."""
        t = self.task[idx]
        out = {k: np.bincount(t, weights=self.cols[k][idx], minlength=len(TASKS))
               for k in (cols if cols is not None else self.cols) if k != "n"}
        out["n"] = np.bincount(t, minlength=len(TASKS)).astype(float)
        return out

    def task_stat(self, task: str, metric: str):
        """statistic(idx) -> one task metric in percent (NaN when undefined); idx within that task."""
        if task in TRAVERSABILITY_TASKS:
            tp, fp, fn, tn = (self.cols[k] for k in ("tp", "fp", "fn", "tn"))

            def stat(idx: np.ndarray) -> float:
                return 100 * traversability_metrics(tp[idx].sum(), fp[idx].sum(), fn[idx].sum(),
                                                    tn[idx].sum())[metric]
            return stat
        col = self.cols[{"vpr": "valid", "sr": "success", "spl": "spl"}[metric]]

        def stat(idx: np.ndarray) -> float:
            return 100 * _div(col[idx].sum(), len(idx))
        return stat

    def score(self, idx: np.ndarray) -> float:
        """EgoPath Score over the items in idx; NaN if a task has no item (or BA undefined)."""
        s = self.sums(idx, ("tp", "fp", "fn", "tn", "success"))
        ba = [traversability_metrics(s["tp"][k], s["fp"][k], s["fn"][k], s["tn"][k])["ba"]
              for k in (TASKS.index(t) for t in TRAVERSABILITY_TASKS)]
        sr = [_div(s["success"][k], s["n"][k]) for k in (TASKS.index(t) for t in ROUTE_TASKS)]
        return egopath_score(*ba, *sr)


COLS = ("tp", "fp", "fn", "tn", "valid", "success", "spl", "n")


def _vec(metric: str, R: np.ndarray, k: int) -> np.ndarray:
    """A task metric (percent) for each row of per-task column sums R (rows x 8*tasks), block k."""
    c = {name: R[:, 8 * k + j] for j, name in enumerate(COLS)}
    with np.errstate(divide="ignore", invalid="ignore"):
        if metric in TRAV_METRICS:
            tpr = np.where(c["tp"] + c["fn"] > 0, c["tp"] / (c["tp"] + c["fn"]), np.nan)
            tnr = np.where(c["tn"] + c["fp"] > 0, c["tn"] / (c["tn"] + c["fp"]), np.nan)
            if metric == "ba":
                return 100 * (tpr + tnr) / 2
            den = 2 * c["tp"] + c["fp"] + c["fn"]
            return 100 * np.where(den > 0, 2 * c["tp"] / den, 1.0)
        col = {"vpr": "valid", "sr": "success", "spl": "spl"}[metric]
        return 100 * np.where(c["n"] > 0, c[col] / c["n"], np.nan)


def _vec_score(R: np.ndarray) -> np.ndarray:
    ba = [_vec("ba", R, TASKS.index(t)) / 100 for t in TRAVERSABILITY_TASKS]
    sr = [_vec("sr", R, TASKS.index(t)) / 100 for t in ROUTE_TASKS]
    return egopath_score(*ba, *sr)


class ClusterDraws:
    """The scene-cluster resamples of `scorers.stats.cluster_bootstrap`, drawn once and reused.

    Same generator, same per-resample draws (`rng.integers(0, K, K)`, clusters in order of
    first appearance), so every interval equals cluster_bootstrap's with the same seed; but
    all EgoPath statistics are ratios of per-task sums, so a resample's sums are
    counts-per-cluster @ cluster sums, and one draw serves every metric (10,000 resamples
    of 1,111 questions in well under a second instead of ~20 s per model)."""

    def __init__(self, labels: Sequence[Any], n_resamples: int, seed: int):
        self.groups = _groups(labels)
        k = len(self.groups)
        rng = np.random.default_rng(seed)
        self.counts = np.zeros((n_resamples, k))
        for b in range(n_resamples):
            self.counts[b] = np.bincount(rng.integers(0, k, k), minlength=k)
        self.n = len(labels)

    def ci(self, X: np.ndarray, fn, confidence: float = CONFIDENCE) -> dict:
        """{estimate, low, high, n_undefined} of fn(column sums), X = per-item columns in label order."""
        C = np.stack([X[g].sum(0) for g in self.groups]) if self.groups else np.zeros((0, X.shape[1]))
        est = float(fn(X.sum(0)[None, :])[0])
        lo, hi, bad = percentile_ci(fn(self.counts @ C), confidence)
        return {"estimate": None if math.isnan(est) else est, "low": lo, "high": hi, "n_undefined": bad}


def _ci_dict(ci: CI | None, estimate: float) -> dict:
    est = None if estimate is None or math.isnan(estimate) else float(estimate)
    if ci is None:
        return {"estimate": est, "low": None, "high": None, "n_undefined": 0}
    return {"estimate": est, "low": ci.low, "high": ci.high, "n_undefined": ci.n_undefined}


TRAV_METRICS = ("ba", "f1")
ROUTE_METRICS = ("vpr", "sr", "spl")


def _nan_none(d: Mapping[str, float]) -> dict[str, float | None]:
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in d.items()}


def strict_subset_metrics(questions: Sequence[Question], outcomes: Sequence[Any]) -> dict:
    """Table S7 per route task: All vs Strict (target bbox short side >= 64 px, surface >= 0.5).

    End = endpoint hit, Full = full-route success, Gap = End - Full, Illegal = has an illegal edge (%)."""
    out: dict[str, dict] = {}
    for task in ROUTE_TASKS:
        rows = {}
        for view, keep in (("all", lambda q: True), ("strict", lambda q: q.strict_visible is True)):
            os_ = [o for q, o in zip(questions, outcomes) if q.task == task and keep(q)]
            n = len(os_)
            end = 100 * sum(o.endpoint_hit for o in os_) / n if n else None
            full = 100 * sum(o.success for o in os_) / n if n else None
            rows[view] = {"n": n, "end": end, "full": full, "gap": None if n == 0 else end - full,
                          "illegal": 100 * sum(o.has_illegal_edge for o in os_) / n if n else None}
        out[task] = rows
    return out


def _by_reference_edges(questions: Sequence[Question], outcomes: Sequence[RouteOutcome]) -> dict:
    """Table S12 counts: questions by edges in the verified reference (1, 2, >=3; 0 = none stored)."""
    out: dict[str, dict[str, int]] = {}
    for q, o in zip(questions, outcomes):
        e = max(len(q.reference_route) - 1, 0)
        key = ">=3" if e >= 3 else str(e)
        row = out.setdefault(key, {"n": 0, "endpoint_hit": 0, "success": 0, "illegal_edge": 0})
        row["n"] += 1
        row["endpoint_hit"] += o.endpoint_hit
        row["success"] += o.success
        row["illegal_edge"] += o.has_illegal_edge
    return dict(sorted(out.items()))


def evaluate_model(questions: Sequence[Question], answers: Mapping[str, Any], n_resamples: int = N_RESAMPLES,
                   seed: int = SEED, confidence: float = CONFIDENCE, engine: str = "fast") -> dict:
    """Every Table 2 / Figure 3 / Table S7 number for one model, with scene-cluster CIs (percent).

    `answers` maps question_id -> raw text; a missing id is a format failure. Per-task CIs
    resample that task's scene groups (`scorers.stats.cluster_bootstrap`); the EgoPath Score
    resamples scene groups jointly over all five tasks, so one draw serves every task.
    n_resamples = 0 gives point estimates only. engine "fast" (ClusterDraws) and
    "cluster_bootstrap" (the generic helper, one statistic call per resample) give the same
    intervals; the second is the slow reference.
    """
    if engine not in ("fast", "cluster_bootstrap"):
        raise ValueError(f"unknown bootstrap engine {engine!r}")
    if not questions:
        raise ValueError("no questions to score")
    ids = [q.question_id for q in questions]
    if len(set(ids)) != len(ids):
        raise ValueError("question ids must be unique")
    outcomes = [evaluate(q, answers.get(q.question_id)) for q in questions]
    table = ItemTable(questions, outcomes)
    full = np.arange(len(questions), dtype=np.intp)

    draws: dict[int, ClusterDraws] = {}

    def boot(stat, idx: np.ndarray, vec=None, key: int = 0) -> dict:
        groups = [table.group[i] for i in idx]
        if n_resamples <= 0 or not len(idx):
            return _ci_dict(None, stat(idx))
        if engine == "fast":
            if key not in draws:
                draws[key] = ClusterDraws(groups, n_resamples, seed)
            return draws[key].ci(table.matrix(idx), vec, confidence)
        ci = cluster_bootstrap(lambda sub: stat(idx[sub]), groups, n_resamples=n_resamples, seed=seed,
                               confidence=confidence)
        return _ci_dict(ci, stat(idx))

    tasks: dict[str, dict] = {}
    for task in TASKS:
        k = TASKS.index(task)
        idx = full[table.task == k]
        t_out = [outcomes[i] for i in idx]
        entry: dict[str, Any] = {"n": int(len(idx)), "n_scene_groups": len({table.group[i] for i in idx})}
        for m in TRAV_METRICS if task in TRAVERSABILITY_TASKS else ROUTE_METRICS:
            entry[m] = boot(table.task_stat(task, m), idx, lambda R, m=m, k=k: _vec(m, R, k), key=k + 1)
        if task in TRAVERSABILITY_TASKS:
            c = {k: int(sum(getattr(o, k) for o in t_out)) for k in ("tp", "fp", "fn", "tn", "n_invalid")}
            entry["counts"] = c
            entry["pooled"] = _nan_none({k: 100 * v for k, v in
                                         traversability_metrics(c["tp"], c["fp"], c["fn"], c["tn"]).items()})
            entry["parse_failures"] = sum(not o.parsed for o in t_out)
        else:
            entry["diagnostics"] = _nan_none({k: 100 * v for k, v in route_metrics(t_out).items()})
            entry["stages"] = {s or "success": sum(o.stage == s for o in t_out) for s in (*STAGES, None)}
            entry["single_id"] = sum(1 for o in t_out if o.ids and len(o.ids) == 1)
            entry["by_reference_edges"] = _by_reference_edges([questions[i] for i in idx], t_out)
            fe_end = [o for o in t_out if o.first_edge_legal and o.endpoint_hit]
            entry["table_s11"] = {"first_edge_legal_and_endpoint": len(fe_end),
                                  "illegal_later_edge": sum(o.has_illegal_edge for o in fe_end),
                                  "complete_route_legal": sum(not o.has_illegal_edge for o in fe_end)}
        tasks[task] = entry
    missing = [t for t in TASKS if tasks[t]["n"] == 0]
    score = boot(table.score, full, _vec_score, key=0) if not missing else {"estimate": None, "low": None, "high": None,
                                                         "n_undefined": 0}
    return {"score": score, "score_missing_tasks": missing, "tasks": tasks,
            "strict": strict_subset_metrics(questions, outcomes),
            "n_missing": sum(1 for q in questions if answers.get(q.question_id) is None),
            "outcomes": outcomes}


def iter_outcomes(questions: Iterable[Question], answers: Mapping[str, Any]):
    """(question, outcome) pairs, for overlays and per-question dumps."""
    for q in questions:
        yield q, evaluate(q, answers.get(q.question_id))
