"""EgoPathBench metrics for `scenebench score`: every model's Table 2 / Figure 3 / Table S5 / Table S7
numbers (percent, scene-cluster CIs) and the baselines, as a JSON-ready dict.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence

from geometry.egopath_schema import ROUTE_TASKS, TASKS, Question
from scorers.egopath import CONFIDENCE, N_RESAMPLES, SEED, evaluate_model
from scorers.egopath_baselines import BASELINES
from scorers.egopath_dataset import BENCHMARK, CONTROLS, EgoPathDataError

__all__ = ["control_metrics", "score_predictions"]


def control_metrics(questions: Sequence[Question], controls: Mapping[str, Sequence[Question]],
                    replies: Mapping[str, Any]) -> dict[str, dict]:
    """Table S5: route SR (%) on the paired questions, full input vs each control.

    A control is scored only if the model answered at least one of its questions (then a
    missing answer is wrong); "full" is SR on the main questions the controls pair with
    (the id before `@`)."""
    from scorers.egopath import evaluate_route

    by_id = {q.question_id: q for q in questions}
    out: dict[str, dict] = {}
    for t in ROUTE_TASKS:
        row: dict[str, Any] = {}
        paired: set[str] = set()
        for c in CONTROLS:
            cq = list(controls.get(f"{t}_{c}", ()))
            if not cq or not any(q.question_id in replies for q in cq):
                row[c] = None
                continue
            paired |= {q.question_id.split("@")[0] for q in cq}
            row[c] = 100 * sum(evaluate_route(q, replies.get(q.question_id)).success for q in cq) / len(cq)
            row[f"n_{c}"] = len(cq)
        if not paired:
            continue
        base = [by_id[i] for i in sorted(paired) if i in by_id]
        row["full"] = (100 * sum(evaluate_route(q, replies.get(q.question_id)).success for q in base) / len(base)
                       if base else None)
        row["n_full"] = len(base)
        out[t] = row
    return out


def score_predictions(questions: Sequence[Question], predictions_by_model: Mapping[str, Mapping[str, Any]],
                      n_resamples: int = N_RESAMPLES, seed: int = SEED, baselines: bool = True,
                      dataset: str = "", split: str = "benchmark",
                      controls: Mapping[str, Sequence[Question]] | None = None) -> dict:
    """metrics.json content: every model's Table 2 / Figure 3 / Table S7 numbers (percent, CIs).

    Baselines (reference, random, all-candidates, straight-to-nearest-goal) are scored as
    point estimates; `metrics["warnings"]` lists unknown and missing ids per model."""
    if not questions:
        raise EgoPathDataError("no questions to score")
    qids = {q.question_id for q in questions}
    control_ids = {q.question_id for qs in (controls or {}).values() for q in qs}
    warnings: list[str] = []
    models: dict[str, dict] = {}
    for name, replies in predictions_by_model.items():
        unknown = sorted(set(replies) - qids - control_ids)
        missing = sorted(qids - set(replies))
        nulls = sum(1 for k in qids if k in replies and replies[k] is None)
        non_text = sum(1 for k in qids if replies.get(k) is not None and not isinstance(replies[k], str))
        res = evaluate_model(questions, replies, n_resamples=n_resamples, seed=seed)
        res.pop("outcomes")
        if controls:
            res["controls"] = control_metrics(questions, controls, replies)
        res["predictions"] = {"matched": len(qids) - len(missing), "missing": len(missing), "missing_ids": missing[:20],
                              "unknown": len(unknown), "unknown_ids": unknown[:20], "null_replies": nulls,
                              "non_text_replies": non_text}
        models[name] = res
        if unknown:
            warnings.append(f"{name}: {len(unknown)} id(s) not in the dataset ignored (e.g. {', '.join(unknown[:3])})")
        if missing:
            warnings.append(f"{name}: {len(missing)} of {len(qids)} question(s) have no prediction (scored wrong)")
        if nulls:
            warnings.append(f"{name}: {nulls} null repl(ies) (scored wrong)")
        if non_text:
            warnings.append(f"{name}: {non_text} reply value(s) are not text (scored as format failures)")
    base: dict[str, dict] = {}
    if baselines:
        for b, fn in BASELINES.items():
            res = evaluate_model(questions, fn(questions, seed), n_resamples=0, seed=seed)
            res.pop("outcomes")
            base[f"baseline:{b}"] = res
    per_task = Counter(q.task for q in questions)
    return {
        "benchmark": BENCHMARK,
        "dataset": {"path": dataset, "split": split, "n_questions": len(questions),
                    "per_task": {t: per_task.get(t, 0) for t in TASKS},
                    "n_scene_groups": len({q.scene_group for q in questions}),
                    "strict_route_questions": {t: sum(1 for q in questions if q.task == t and q.strict_visible)
                                               for t in ROUTE_TASKS}},
        "settings": {
            "seed": seed, "n_resamples": n_resamples, "confidence": CONFIDENCE,
            "bootstrap": "scene-cluster percentile bootstrap over scene_group; per-task metrics resample that "
                         "task's groups; the EgoPath Score resamples groups jointly over all five tasks",
            "traversability": "confusion matrix pooled over all candidates of a task (micro BA/F1); "
                              "undisplayed predicted ids are false positives; unparseable = empty set",
            "route": "Table S4 order format > invalid_id > wrong_start > illegal_edge > wrong_goal; undirected "
                     "edges; repeated consecutive id = illegal self-loop; single-id route = no edge (valid; "
                     "success iff start is a goal); SPL = S*l/max(l,p) on the floor plane, l=p=0 -> S",
            "missing": "a missing, null or non-text prediction is a format failure",
            "units": "percent"},
        "model_order": list(predictions_by_model),
        "models": models,
        "baselines": base,
        "warnings": warnings,
    }


def score_result(questions: Sequence[Question], predictions_by_model: Mapping[str, Mapping[str, Any]],
                 **kwargs) -> "EgoPathScore":
    """`score_predictions`, typed: the same content validated as `EgoPathScore`."""
    from scorers.egopath_results import EgoPathScore

    return EgoPathScore.model_validate(score_predictions(questions, predictions_by_model, **kwargs))
