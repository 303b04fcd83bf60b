"""Reference and trivial EgoPathBench answerers, written as raw text so they go through
the same parser and evaluator as a model's replies.

* `reference_answers`: each question's verified answer (a self-check of the export:
  SR = 100 on route tasks, BA = F1 = 100 on traversability);
* `random_ids`: traversability = every subset of the displayed IDs equally likely (each
  ID in with probability 1/2); route = a length L uniform on 1..n, then L distinct
  displayed IDs in uniformly random order (it may start anywhere);
* `all_candidates`: every displayed ID (traversability TPR 1, TNR 0 -> BA 0.5; route = all
  IDs ascending);
* `straight_to_nearest_goal`: [start, acceptable goal nearest the start on the floor
  plane] (ties -> smaller ID; [start] when the start is a goal): legal only when that
  direct edge is.

Random draws are per question from `default_rng([seed, blake2b(question_id)])`, so an
answer does not depend on which other questions are in the list or their order.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from geometry.egopath_schema import TRAVERSABILITY_TASKS, Question

__all__ = ["reference_answers", "random_ids", "all_candidates", "straight_to_nearest_goal", "write_predictions",
           "BASELINES"]


def _ans(ids: Sequence[int]) -> str:
    return json.dumps([int(i) for i in ids])


def reference_answers(questions: Sequence[Question]) -> dict[str, str]:
    return {q.question_id: q.answer for q in questions}


def _qrng(seed: int, qid: str) -> np.random.Generator:
    h = int.from_bytes(hashlib.blake2b(qid.encode("utf-8"), digest_size=8).digest(), "big")
    return np.random.default_rng([int(seed), h])


def random_ids(questions: Sequence[Question], seed: int) -> dict[str, str]:
    out = {}
    for q in questions:
        rng = _qrng(seed, q.question_id)
        ids = np.asarray(sorted(q.display_ids), int)
        if q.task in TRAVERSABILITY_TASKS:
            out[q.question_id] = _ans(ids[rng.random(len(ids)) < 0.5])
        elif len(ids) == 0:
            out[q.question_id] = "[]"
        else:
            n = int(rng.integers(1, len(ids) + 1))
            out[q.question_id] = _ans(rng.permutation(ids)[:n])
    return out


def all_candidates(questions: Sequence[Question]) -> dict[str, str]:
    return {q.question_id: _ans(sorted(q.display_ids)) for q in questions}


def straight_to_nearest_goal(questions: Sequence[Question]) -> dict[str, str]:
    """Route questions only (traversability questions get every displayed ID: no goal there)."""
    out = {}
    for q in questions:
        if q.task in TRAVERSABILITY_TASKS or q.start_id is None or not q.goal_ids:
            out[q.question_id] = _ans(sorted(q.display_ids))
            continue
        s = q.start_id
        if s in q.goal_ids:
            out[q.question_id] = _ans([s])
            continue
        sp = np.asarray(q.waypoint_world[str(s)][:2], float)

        def dist(g: int) -> float:
            w = q.waypoint_world.get(str(g))
            return float("inf") if w is None else float(np.linalg.norm(np.asarray(w[:2], float) - sp))

        g = min(sorted(q.goal_ids), key=dist)
        out[q.question_id] = _ans([s, g])
    return out


BASELINES = {
    "reference": lambda qs, seed: reference_answers(qs),
    "random": random_ids,
    "all-candidates": lambda qs, seed: all_candidates(qs),
    "straight-to-nearest-goal": lambda qs, seed: straight_to_nearest_goal(qs),
}


def write_predictions(path: str | os.PathLike, answers: Mapping[str, str], model: str) -> Path:
    """JSONL `{"id", "model", "response"}` sorted by id, written atomically (tmp + replace)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as f:
        for qid in sorted(answers):
            f.write(json.dumps({"id": qid, "model": model, "response": answers[qid]}, sort_keys=True) + "\n")
    os.replace(tmp, p)
    return p
