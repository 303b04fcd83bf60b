"""EgoPathBench supporting audits (App. B): the swept-corridor obstruction audit of illegal
edges and the geometry sensitivity of Table S8. Both read the run stores (passes, scene
meshes, scene states, records) next to the exported questions; neither changes a label.

(a) Obstruction: one selected illegal edge per route prediction (its first illegal edge),
    or, without predictions, per route question the shortest displayed non-edge (the
    most tempting illegal move); `geometry.corridor.audit_edge` classifies the evidence in
    the aligned depth / object-index renders as depth / index / inconclusive.
(b) Sensitivity: occupancy rebuilt from the scene mesh for radius 0.25/0.35, grid
    0.04/0.06 and ring 0.05/0.15 (plus the nominal contract as a reproducibility check);
    for the same displayed waypoints: Ref. = share of route questions that keep a graph
    solution; edge flips = share of reference-route (+ predicted) edges whose legality
    differs from the exported contract; success flips = share of predictions (the
    reference answers when none are given) whose success changes.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from geometry.corridor import audit_edge, audit_summary
from geometry.egopath_schema import AGENT_OF_TASK, ROUTE_TASKS, GeometryParams, Question, ViewAnnotation
from geometry.feasibility import agent_radius, feasibility_graph, goal_mask, shortest_route
from geometry.occupancy import occupancy_from_mesh
from geometry.raycast import SceneMesh
from packagers.egopath import SPLITS, load_questions, read_records
from formats import atomic
from formats import dataset_layout as layout
from formats.predictions import PredictionsError, read_predictions_file, reply_of
from scorers.egopath import evaluate_route

# Table S8's variants of the nominal contract (0.30 m radius, 0.05 m grid, 0.10 m ring).
SENSITIVITY_VARIANTS: dict[str, dict] = {
    "nominal": {},
    "radius_0.25": {"body_radius_m": 0.25},
    "radius_0.35": {"body_radius_m": 0.35},
    "grid_0.04": {"grid_m": 0.04},
    "grid_0.06": {"grid_m": 0.06},
    "ring_0.05": {"goal_ring_m": 0.05},
    "ring_0.15": {"goal_ring_m": 0.15},
}


class AuditError(ValueError):
    pass


def _inside(run_dir: Path, rel: str, what: str) -> Path:
    """A path named by a record, refused unless it resolves inside its run directory."""
    try:
        return layout.resolve_inside(run_dir, rel, what)
    except layout.LayoutError as exc:
        raise AuditError(str(exc)) from None


# ------------------------------------------------------------------------------------ inputs
class RunIndex:
    """frame id -> (run dir, record, annotation); scene state ids and meshes, cached."""

    def __init__(self, run_dirs):
        self.frames: dict[str, tuple[Path, object, ViewAnnotation]] = {}
        for d in run_dirs:
            d = Path(d)
            for rec in read_records(d):
                gt = {k: v for k, v in rec.ground_truth.items() if k != "scene_group"}
                if rec.verdict == "accept":
                    self.frames[rec.frame_id] = (d, rec, ViewAnnotation.model_validate(gt))
        self._ids: dict[tuple, tuple[set, set]] = {}
        self._mesh: dict[tuple, SceneMesh] = {}

    def view(self, frame_id: str):
        if frame_id not in self.frames:
            raise AuditError(f"frame {frame_id} is not an accepted view of the given runs")
        return self.frames[frame_id]

    def floor_wall_ids(self, run_dir: Path, scene_id: str) -> tuple[set, set]:
        key = (run_dir, scene_id)
        if key not in self._ids:
            path = _inside(run_dir, f"scenes/{scene_id}.json", f"scene {scene_id!r}: state")
            if not path.is_file():
                raise AuditError(f"{path}: scene state missing (floor ids come from it)")
            objs = json.loads(path.read_text(encoding="utf-8")).get("objects") or []
            floor = {int(o["id"]) for o in objs if o.get("category") == "floor"}
            wall = {int(o["id"]) for o in objs if o.get("category") == "wall"}
            if not floor:
                raise AuditError(f"{path}: no object of category 'floor'")
            self._ids[key] = (floor, wall)
        return self._ids[key]

    def mesh(self, run_dir: Path, scene_id: str) -> SceneMesh:
        key = (run_dir, scene_id)
        if key not in self._mesh:
            path = _inside(run_dir, f"scenes/{scene_id}.npz", f"scene {scene_id!r}: mesh")
            if not path.is_file():
                raise AuditError(f"{path}: scene mesh missing")
            self._mesh[key] = SceneMesh.load(path)
        return self._mesh[key]


def route_questions(dataset_root: str | Path, splits=SPLITS) -> list[Question]:
    out = []
    for task in ROUTE_TASKS:
        for split in splits:
            if (Path(dataset_root) / layout.shard_path(task, split)).is_file():
                out += load_questions(dataset_root, task, split)
    return sorted(out, key=lambda q: q.question_id)


def load_predictions(path: str | Path) -> list[tuple[str, Any, str | None]]:
    """(question id, raw reply, model) per id, by the `formats.predictions` rules (the line that
    counts for each id); a file that cannot be read, or an unreadable or id-less line, is an error."""
    try:
        pf = read_predictions_file(path)
    except PredictionsError as exc:
        raise AuditError(str(exc)) from None
    bad = sorted(pf.unreadable_lines + pf.oversize_lines + pf.no_id_lines)
    if bad:
        raise AuditError(f"{path}:{bad[0]}: not a prediction line (JSON object with a string `id`)")
    return [(i, reply_of(r), r.get("model")) for i, r in sorted(pf.records.items(), key=lambda kv: pf.line_of[kv[0]])]


def _predictions_by_question(predictions, questions) -> list[tuple[Question, str, str | None]]:
    by_id = {q.question_id: q for q in questions}
    return [(by_id[i], t, m) for i, t, m in predictions if i in by_id]


# ------------------------------------------------------------------------------ obstruction
def nominal_illegal_edge(q: Question) -> tuple[int, int] | None:
    """The shortest displayed pair that is not a legal edge (ties: smaller ids)."""
    legal = {tuple(sorted(e)) for e in q.legal_edges}
    best = None
    ids = sorted(int(i) for i in q.waypoint_world)
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            if (a, b) in legal:
                continue
            pa, pb = q.waypoint_world[str(a)], q.waypoint_world[str(b)]
            d = math.hypot(pb[0] - pa[0], pb[1] - pa[1])
            if best is None or (d, a, b) < best:
                best = (d, a, b)
    return None if best is None else (best[1], best[2])


def obstruction_audit(run_dirs, dataset_root, predictions_path=None, splits=("benchmark",)) -> dict:
    """Per task and in total: depth / index / inconclusive shares of the selected illegal edges."""
    index = RunIndex(run_dirs)
    qs = route_questions(dataset_root, splits)
    if predictions_path is not None:
        items = []
        for q, text, model in _predictions_by_question(load_predictions(predictions_path), qs):
            o = evaluate_route(q, text)
            legal_ids = [e for e in o.illegal_edges if e[0] != e[1] and str(e[0]) in q.waypoint_world
                         and str(e[1]) in q.waypoint_world]
            if legal_ids:
                items.append((q, legal_ids[0], model))
        source = str(predictions_path)
    else:
        items = [(q, e, None) for q in qs if (e := nominal_illegal_edge(q)) is not None]
        source = "route sheet non-edges (shortest per question)"
    passes_cache: dict[str, dict] = {}
    per_task: dict[str, list[str]] = {}
    cases = []
    for q, (a, b), model in items:
        run_dir, rec, ann = index.view(q.frame_id)
        if q.frame_id not in passes_cache:
            path = _inside(run_dir, rec.passes, f"{q.frame_id}: passes")
            try:
                with np.load(path, allow_pickle=False) as z:
                    passes_cache = {q.frame_id: {"depth": z["depth"], "object_index": z["object_index"]}}
            except (OSError, ValueError, KeyError) as exc:  # missing, truncated or without the two passes
                raise AuditError(f"{path}: passes unreadable ({exc})") from None
        p = passes_cache[q.frame_id]
        floor, wall = index.floor_wall_ids(run_dir, rec.scene_id)
        out = audit_edge(q.waypoint_world[str(a)], q.waypoint_world[str(b)], ann.params,
                         np.asarray(rec.camera["K"], float), np.asarray(rec.camera["cam_to_world"], float),
                         p["depth"], p["object_index"], floor, wall)
        per_task.setdefault(q.task, []).append(out)
        cases.append({"id": q.question_id, "edge": [a, b], "outcome": out, **({"model": model} if model else {})})
    return {"source": source, "radius_m": GeometryParams().body_radius_m,
            "step_m": GeometryParams().corridor_step_m, "splits": list(splits),
            "total": audit_summary([c["outcome"] for c in cases]),
            "per_task": {t: audit_summary(v) for t, v in sorted(per_task.items())}, "cases": cases}


# ------------------------------------------------------------------------------ sensitivity
def _variant_question(q: Question, ann: ViewAnnotation, grid, params: GeometryParams) -> tuple[Question, bool]:
    """q with legal edges and goals recomputed under params; and whether a graph solution exists."""
    unit = next((u for u in ann.routes if u.route_id == q.route_id), None)
    if unit is None:
        raise AuditError(f"{q.question_id}: route {q.route_id} not in the view's annotation")
    radius = agent_radius(AGENT_OF_TASK[q.task], params)
    pts = {int(i): w[:2] for i, w in q.waypoint_world.items()}
    G = feasibility_graph(grid, pts, radius, params.corridor_step_m)
    try:
        mask = goal_mask(grid, unit.target_object_id, radius, params.goal_ring_m)
    except ValueError:
        mask = np.zeros_like(grid.floor)
    ids = sorted(pts)
    inside = grid.lookup(mask, np.array([pts[i] for i in ids], float), outside=False)
    goals = [i for i, ok in zip(ids, inside) if ok and G.nodes[i]["feasible"]]
    edges = sorted(sorted((int(a), int(b))) for a, b in G.edges)
    solvable = bool(goals) and shortest_route(G, q.start_id, goals) is not None
    return q.model_copy(update={"legal_edges": edges, "goal_ids": goals}), solvable


def sensitivity_audit(run_dirs, dataset_root, predictions_path=None, variants=None, splits=("benchmark",)) -> dict:
    """Table S8 rows: Ref., edge flip and success flip per variant (shares in [0, 1])."""
    variants = SENSITIVITY_VARIANTS if variants is None else variants
    index = RunIndex(run_dirs)
    qs = route_questions(dataset_root, splits)
    if not qs:
        raise AuditError(f"{dataset_root}: no route questions in splits {list(splits)}")
    if predictions_path is not None:
        preds = _predictions_by_question(load_predictions(predictions_path), qs)
        pred_source = str(predictions_path)
    else:
        preds = [(q, q.answer, None) for q in qs]
        pred_source = "reference answers"
    pred_by_q: dict[str, list[str]] = {}
    for q, text, _ in preds:
        pred_by_q.setdefault(q.question_id, []).append(text)
    grids: dict[tuple, object] = {}
    rows = {}
    for name, change in variants.items():
        n_ref = n_edges = n_edge_flips = n_pred = n_succ_flips = 0
        for q in qs:
            run_dir, rec, ann = index.view(q.frame_id)
            params = ann.params.model_copy(update=change)
            key = (run_dir, rec.scene_id, params)
            if key not in grids:
                floor, _ = index.floor_wall_ids(run_dir, rec.scene_id)
                grids[key] = occupancy_from_mesh(index.mesh(run_dir, rec.scene_id), floor, params)
            vq, ok = _variant_question(q, ann, grids[key], params)
            n_ref += ok
            nominal_legal = {tuple(sorted(e)) for e in q.legal_edges}
            variant_legal = {tuple(e) for e in vq.legal_edges}
            edges = {tuple(sorted(e)) for e in zip(q.reference_route, q.reference_route[1:])}
            for text in pred_by_q.get(q.question_id, []):
                o = evaluate_route(q, text)
                if o.ids:
                    edges |= {tuple(sorted(e)) for e in zip(o.ids, o.ids[1:]) if e[0] != e[1]}
                n_pred += 1
                v_success = bool(vq.goal_ids) and evaluate_route(vq, text).success   # no goal: nothing succeeds
                n_succ_flips += o.success != v_success
            n_edges += len(edges)
            n_edge_flips += sum((e in nominal_legal) != (e in variant_legal) for e in edges)
        rows[name] = {"params": change, "ref": n_ref / len(qs), "edge_flip": n_edge_flips / n_edges if n_edges else None,
                      "success_flip": n_succ_flips / n_pred if n_pred else None, "n_questions": len(qs),
                      "n_edges": n_edges, "n_predictions": n_pred}
    return {"predictions": pred_source, "splits": list(splits), "variants": rows}


def run_audits(run_dirs, dataset_root, out_dir, predictions_path=None, splits=("benchmark",)) -> list[Path]:
    """Write `<out>/obstruction.json` and `<out>/sensitivity.json`."""
    out = Path(out_dir)
    written = []
    for name, fn in (("obstruction", obstruction_audit), ("sensitivity", sensitivity_audit)):
        path = out / f"{name}.json"
        atomic.write_json(path, fn(run_dirs, dataset_root, predictions_path, splits=splits))
        written.append(path)
    return written
