"""EgoPathBench challenge-subset selection on the benchmark split (egopathbench.txt §3,
"Benchmark Selection and Release"; Table 1: 146 traversability pairs, 309 route bundles).

Selection works on whole task bundles so a paired comparison is never cut in half:

- traversability bundle: the Point + Embodied Traversability pair of one frame;
- route bundle: Point Path and/or Embodied Path of one (frame, route_id), plus the Intent
  Path derived from that Embodied Path (same route_id, so it travels with it).

Each bundle gets a difficulty score from the fixed geometry only (never from model output):

    score = sum_k w_k * c_k / sum_k w_k      over the components k that apply to the bundle kind

    clutter     c = 0.5 * min(1, visible objects / clutter_objects)
                  + 0.5 * min(1, displayed ids on the bundle's sheet / clutter_ids)
    boundary    traversability: share of displayed candidates that are clearance-sensitive
                (point-feasible, not embodied-feasible); route: the same share on the route
                sheet, averaged with RouteUnit.embodied_narrow_fraction when that is known
    difference  traversability: |point positives \\ embodied positives| / |point positives|;
                route: 1 if the point reference is illegal for the embodied agent (an edge not
                in the embodied graph, a waypoint not embodied-feasible, or it ends outside the
                embodied goals) or the embodied route is absent; else
                min(1, (L_embodied / L_point - 1) / detour_ratio)
    competing   route only: min(1, (same_category_in_view of the target - 1) / competing_norm)
    composition route only: min(1, max reference edges over point/embodied / composition_edges)

Bundles of each kind are taken greedily by score (ties: SHA-256 of the bundle id, then the
id; no RNG state) while each scene group holds at most max(1, floor(max_group_share * n))
of the n bundles being selected. When the pool is no larger than the configured size,
everything is kept (small renders are unaffected), except that `paired_routes_only: true`
(Table 1: 309 Point Path = 309 Embodied Path) first removes route bundles lacking either side. The cap is hard: if it leaves fewer
bundles than asked for, the report says so (`shortfall`) rather than concentrating.
"""
from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from geometry.egopath_schema import ROUTE_TASKS, TASKS, TRAVERSABILITY_TASKS, Question, Sheet, ViewAnnotation

KINDS = ("traversability", "route")
COMPONENTS = {"traversability": ("clutter", "boundary", "difference"),
              "route": ("clutter", "boundary", "difference", "competing", "composition")}
DEFAULTS = {
    "enabled": True,
    "traversability_bundles": 146,
    "route_bundles": 309,
    "max_group_share": 0.1,
    "paired_routes_only": False,   # Table 1 has 309 PP = 309 EP: when true, route bundles lacking either side are dropped
    "weights": {"clutter": 1.0, "boundary": 1.0, "difference": 1.0, "competing": 1.0, "composition": 1.0},
    "norms": {"clutter_objects": 12, "clutter_ids": 16, "detour_ratio": 0.5, "competing_norm": 3,
              "composition_edges": 6},
}
QUANTILES = (0.0, 0.25, 0.5, 0.75, 1.0)


class EgoPathSelectionError(ValueError):
    """The questions or the selection config cannot be bundled / selected (the message says why)."""


@dataclass(frozen=True)
class Bundle:
    """One unit of selection: its questions are kept or dropped together."""

    bundle_id: str                      # "<frame_id>/traversability" or "<frame_id>/route/<route_id>"
    kind: str                           # "traversability" or "route"
    frame_id: str
    scene_group: str
    question_ids: tuple[str, ...]
    tasks: tuple[str, ...]
    components: dict[str, float] = field(default_factory=dict)
    score: float = 0.0


# ------------------------------------------------------------------------------------- config
def resolve_config(config: Mapping | None) -> dict:
    """Defaults overlaid with the benchmark file's `benchmark_selection:` block, checked."""
    cfg = {k: (dict(v) if isinstance(v, dict) else v) for k, v in DEFAULTS.items()}
    for k, v in dict(config or {}).items():
        if k not in DEFAULTS:
            raise EgoPathSelectionError(f"benchmark_selection: unknown key {k!r} (known: {sorted(DEFAULTS)})")
        if isinstance(DEFAULTS[k], dict):
            if not isinstance(v, Mapping):
                raise EgoPathSelectionError(f"benchmark_selection.{k} must be a mapping, got {v!r}")
            unknown = set(v) - set(DEFAULTS[k])
            if unknown:
                raise EgoPathSelectionError(f"benchmark_selection.{k}: unknown key(s) {sorted(unknown)}")
            cfg[k].update({kk: float(vv) for kk, vv in v.items()})
        else:
            cfg[k] = v
    for k in ("enabled", "paired_routes_only"):
        if not isinstance(cfg[k], bool):
            raise EgoPathSelectionError(f"benchmark_selection.{k} must be true/false, got {cfg[k]!r}")
    for k in ("traversability_bundles", "route_bundles"):
        if isinstance(cfg[k], bool) or not isinstance(cfg[k], int) or cfg[k] < 0:
            raise EgoPathSelectionError(f"benchmark_selection.{k} must be a non-negative integer, got {cfg[k]!r}")
    share = cfg["max_group_share"]
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 < share <= 1:
        raise EgoPathSelectionError(f"benchmark_selection.max_group_share must be in (0, 1], got {share!r}")
    cfg["max_group_share"] = float(share)
    if any(not math.isfinite(w) or w < 0 for w in cfg["weights"].values()):
        raise EgoPathSelectionError(f"benchmark_selection.weights must be finite and >= 0, got {cfg['weights']}")
    for kind in KINDS:
        if sum(cfg["weights"][c] for c in COMPONENTS[kind]) <= 0:
            raise EgoPathSelectionError(f"benchmark_selection.weights: all {kind} components weigh 0")
    if any(not math.isfinite(n) or n <= 0 for n in cfg["norms"].values()):
        raise EgoPathSelectionError(f"benchmark_selection.norms must be finite and > 0, got {cfg['norms']}")
    return cfg


def _annotations(views_or_annotations) -> dict[str, ViewAnnotation]:
    """frame_id -> ViewAnnotation from a mapping or from `packagers.egopath.View`s."""
    if isinstance(views_or_annotations, Mapping):
        out = dict(views_or_annotations)
    else:
        out = {}
        for v in views_or_annotations:
            try:
                out[v.record.frame_id] = v.annotation
            except AttributeError as exc:
                raise EgoPathSelectionError(
                    "views_or_annotations must be {frame_id: ViewAnnotation} or View objects") from exc
    for fid, ann in out.items():
        if not isinstance(ann, ViewAnnotation):
            raise EgoPathSelectionError(f"{fid}: expected a ViewAnnotation, got {type(ann).__name__}")
    return out


# --------------------------------------------------------------------------------- components
def _sat(x: float, norm: float) -> float:
    return float(min(1.0, max(0.0, x / norm)))


def _clearance_sensitive_share(sheet: Sheet) -> float:
    n = len(sheet.waypoints)
    cs = sum(w.kind == "ground" and w.point_feasible and not w.embodied_feasible for w in sheet.waypoints)
    return cs / n if n else 0.0


def _clutter(ann: ViewAnnotation, sheet: Sheet, norms: dict) -> float:
    n_vis = len(ann.visible_objects) if ann.visible_objects else len(ann.targets)
    return 0.5 * _sat(n_vis, norms["clutter_objects"]) + 0.5 * _sat(len(sheet.waypoints), norms["clutter_ids"])


def _path_length(route: list[int], sheet: Sheet) -> float:
    xy = {w.display_id: np.asarray(w.world[:2], float) for w in sheet.waypoints}
    try:
        return float(sum(np.linalg.norm(xy[b] - xy[a]) for a, b in zip(route, route[1:])))
    except KeyError as exc:
        raise EgoPathSelectionError(f"reference route {route} names id {exc.args[0]} not on the route sheet") from exc


def traversability_components(ann: ViewAnnotation, norms: dict) -> dict[str, float]:
    sheet = ann.traversability
    g = [w for w in sheet.waypoints if w.kind == "ground"]
    point = {w.display_id for w in g if w.point_feasible}
    emb = {w.display_id for w in g if w.embodied_feasible}
    return {"clutter": _clutter(ann, sheet, norms),
            "boundary": _clearance_sensitive_share(sheet),
            "difference": len(point - emb) / len(point) if point else 0.0}


def route_components(ann: ViewAnnotation, route_id: str, norms: dict) -> dict[str, float]:
    units = [u for u in ann.routes if u.route_id == route_id]
    if len(units) != 1:
        raise EgoPathSelectionError(f"route_id {route_id!r}: {len(units)} route units in the annotation (need 1)")
    unit, sheet = units[0], ann.route
    boundary = _clearance_sensitive_share(sheet)
    if unit.embodied_narrow_fraction is not None:
        boundary = 0.5 * boundary + 0.5 * float(unit.embodied_narrow_fraction)
    pref, eref = unit.point_reference, unit.embodied_reference
    if pref and not eref:
        diff = 1.0
    elif pref and eref:
        emb_edges = {tuple(sorted(e)) for e in sheet.embodied_edges}
        emb_ok = {w.display_id for w in sheet.waypoints if w.embodied_feasible}
        legal = (all(tuple(sorted((a, b))) in emb_edges for a, b in zip(pref, pref[1:]))
                 and all(i in emb_ok for i in pref) and pref[-1] in set(unit.embodied_goal_ids))
        if not legal:
            diff = 1.0
        else:
            lp = unit.point_shortest_m if unit.point_shortest_m is not None else _path_length(pref, sheet)
            le = unit.embodied_shortest_m if unit.embodied_shortest_m is not None else _path_length(eref, sheet)
            diff = _sat(le / lp - 1.0, norms["detour_ratio"]) if lp > 0 else 0.0
    else:
        diff = 0.0  # embodied only: no point side to compare against
    same = {t.object_id: t.same_category_in_view for t in ann.targets}.get(unit.target_object_id, 1)
    edges = max(len(pref or []) - 1, len(eref or []) - 1, 0)
    return {"clutter": _clutter(ann, sheet, norms), "boundary": boundary, "difference": diff,
            "competing": _sat(same - 1, norms["competing_norm"]),
            "composition": _sat(edges, norms["composition_edges"])}


def _score(components: dict[str, float], kind: str, weights: dict) -> float:
    ws = {c: weights[c] for c in COMPONENTS[kind]}
    return round(sum(ws[c] * components[c] for c in ws) / sum(ws.values()), 12)


# ------------------------------------------------------------------------------------ bundles
def make_bundles(questions: list[Question], annotations: dict[str, ViewAnnotation], cfg: dict) -> list[Bundle]:
    """Benchmark-split bundles with their scores, sorted by bundle id; incomplete bundles are errors."""
    groups: dict[str, list[Question]] = {}
    for q in questions:
        if q.split != "benchmark":
            continue
        if q.task in TRAVERSABILITY_TASKS:
            bid = f"{q.frame_id}/traversability"
        elif q.task in ROUTE_TASKS:
            if q.route_id is None:
                raise EgoPathSelectionError(f"{q.question_id}: route question without route_id")
            bid = f"{q.frame_id}/route/{q.route_id}"
        else:
            raise EgoPathSelectionError(f"{q.question_id}: unknown task {q.task!r}")
        groups.setdefault(bid, []).append(q)
    out = []
    for bid in sorted(groups):
        qs = sorted(groups[bid], key=lambda q: q.question_id)
        tasks = [q.task for q in qs]
        if len(set(tasks)) != len(tasks):
            raise EgoPathSelectionError(f"bundle {bid}: a task occurs twice ({tasks})")
        first = qs[0]
        if any(q.scene_group != first.scene_group for q in qs):
            raise EgoPathSelectionError(f"bundle {bid}: questions from different scene groups")
        ann = annotations.get(first.frame_id)
        if ann is None:
            raise EgoPathSelectionError(f"bundle {bid}: no annotation for frame {first.frame_id}")
        if tasks[0] in TRAVERSABILITY_TASKS:
            kind = "traversability"
            if set(tasks) != set(TRAVERSABILITY_TASKS):
                raise EgoPathSelectionError(f"bundle {bid}: traversability pair is incomplete ({tasks})")
            comps = traversability_components(ann, cfg["norms"])
        else:
            kind = "route"
            if "intent_path" in tasks and "embodied_path" not in tasks:
                raise EgoPathSelectionError(f"bundle {bid}: intent_path without its embodied_path")
            comps = route_components(ann, first.route_id, cfg["norms"])
        comps = {k: round(float(v), 12) for k, v in comps.items()}
        out.append(Bundle(bid, kind, first.frame_id, first.scene_group, tuple(q.question_id for q in qs),
                          tuple(tasks), comps, _score(comps, kind, cfg["weights"])))
    return out


def _tiebreak(bundle_id: str) -> str:
    return hashlib.sha256(f"egopath-selection:{bundle_id}".encode()).hexdigest()


def group_cap(n_select: int, share: float) -> int:
    return max(1, int(math.floor(share * n_select + 1e-9)))


def greedy_select(bundles: list[Bundle], size: int, share: float) -> tuple[list[Bundle], int | None]:
    """Highest score first, deterministic ties, at most `group_cap` per scene group.
    Everything is kept (no cap) when the pool is no larger than `size`; returns (kept, cap)."""
    if len(bundles) <= size:
        return list(bundles), None
    cap = group_cap(size, share)
    per_group: dict[str, int] = {}
    kept = []
    for b in sorted(bundles, key=lambda b: (-b.score, _tiebreak(b.bundle_id), b.bundle_id)):
        if len(kept) >= size:
            break
        if per_group.get(b.scene_group, 0) >= cap:
            continue
        per_group[b.scene_group] = per_group.get(b.scene_group, 0) + 1
        kept.append(b)
    return kept, cap


def _quantiles(xs: list[float]) -> dict[str, float] | None:
    if not xs:
        return None
    v = np.quantile(np.asarray(xs, float), QUANTILES)
    return {f"q{int(q * 100)}": round(float(x), 6) for q, x in zip(QUANTILES, v)}


def _task_counts(questions) -> dict[str, int]:
    return {t: n for t in TASKS if (n := sum(q.task == t for q in questions))}


# -------------------------------------------------------------------------------------- entry
def select_benchmark(questions: list[Question], views_or_annotations, config: Mapping | None
                     ) -> tuple[list[Question], dict]:
    """Keep the challenging subset of the benchmark split (whole bundles); other splits pass
    through untouched, order preserved. Returns (kept questions, JSON-ready report)."""
    cfg = resolve_config(config)
    if not cfg["enabled"]:
        return list(questions), {"enabled": False}
    bundles = make_bundles(questions, _annotations(views_or_annotations), cfg)
    size = {"traversability": cfg["traversability_bundles"], "route": cfg["route_bundles"]}
    kept_ids: set[str] = set()
    report: dict = {"enabled": True, "pool_bundles": {}, "target_bundles": size, "selected_bundles": {},
                    "shortfall": {}, "group_cap": {}, "score_quantiles": {}, "groups": {}}
    for kind in KINDS:
        pool = [b for b in bundles if b.kind == kind]
        ineligible = [b for b in pool if kind == "route" and cfg["paired_routes_only"]
                      and not {"point_path", "embodied_path"} <= set(b.tasks)]
        report.setdefault("ineligible_bundles", {})[kind] = len(ineligible)
        bad = {b.bundle_id for b in ineligible}
        pool_all, pool = pool, [b for b in pool if b.bundle_id not in bad]
        kept, cap = greedy_select(pool, size[kind], cfg["max_group_share"])
        kept_b = {b.bundle_id for b in kept}
        kept_ids |= {qid for b in kept for qid in b.question_ids}
        report["pool_bundles"][kind] = len(pool_all)
        report["selected_bundles"][kind] = len(kept)
        report["shortfall"][kind] = max(0, min(size[kind], len(pool)) - len(kept))
        report["group_cap"][kind] = cap
        report["score_quantiles"][kind] = {
            "kept": _quantiles([b.score for b in pool if b.bundle_id in kept_b]),
            "dropped": _quantiles([b.score for b in pool_all if b.bundle_id not in kept_b])}
        groups: dict[str, dict[str, int]] = {}
        for b in pool_all:
            g = groups.setdefault(b.scene_group, {"pool": 0, "kept": 0})
            g["pool"] += 1
            g["kept"] += b.bundle_id in kept_b
        report["groups"][kind] = dict(sorted(groups.items()))
    bench = [q for q in questions if q.split == "benchmark"]
    kept_q = [q for q in questions if q.split != "benchmark" or q.question_id in kept_ids]
    report["questions"] = {"pool": _task_counts(bench),
                           "kept": _task_counts([q for q in bench if q.question_id in kept_ids]),
                           "dropped": _task_counts([q for q in bench if q.question_id not in kept_ids])}
    report["config"] = {k: cfg[k] for k in ("traversability_bundles", "route_bundles", "max_group_share",
                                            "paired_routes_only", "weights", "norms")}
    return kept_q, report
