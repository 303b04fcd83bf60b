"""EgoPathBench SFT export (App. A "Training-resource evaluation", Table S3).

One LLaVA-style conversation per training question, made from the exported Parquet (the
dataset is the single source): the human turn is `<image>\n` + the user prompt, the
assistant turn a Spatial-CoT rationale followed by the verified JSON answer on its own
last line. The rationale verbalises the geometry only (fixed target, candidates and
their feasibility labels, legal edges used, reference route) from a template.

Deviation: the paper's rationales are GPT-written ("non-template"); ours are templates
over the same geometric facts, so no language model is needed and nothing can
contradict the labels.

Audit (Table S3): complete rows, missing image / rationale, and the answer each
conversation ends with re-parsed (`scorers.egopath.parse_id_list`) and graded
(`evaluate_route` / `evaluate_traversability`) against its question -> `sft_audit.json`.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import pyarrow.parquet as pq

from geometry.egopath_schema import TASKS, TRAVERSABILITY_TASKS, Question
from formats import atomic
from formats import dataset_layout as layout
from scorers.egopath import evaluate_route, evaluate_traversability, parse_id_list

SFT_FILE = "egopathbench_sft.json"
AUDIT_FILE = "sft_audit.json"
SPLIT = "train"


class SFTExportError(ValueError):
    pass


def _ids(ids) -> str:
    ids = list(ids)
    return ", ".join(str(i) for i in ids) if ids else "none"


def _xy_dist(q: Question, a: int, b: int) -> float:
    pa, pb = q.waypoint_world[str(a)], q.waypoint_world[str(b)]
    return math.hypot(pb[0] - pa[0], pb[1] - pa[1])


def rationale(q: Question) -> str:
    """Template Spatial CoT from the question's geometry (no language model)."""
    shown = sorted(q.display_ids)
    if q.task in TRAVERSABILITY_TASKS:
        pos = sorted(q.positives)
        neg = [i for i in shown if i not in set(pos)]
        agent = ("a point agent: a candidate is walkable when it lies on free floor"
                 if q.task == "point_traversability" else
                 "the 0.6 m robot: a candidate is walkable only when free floor extends at least 0.3 m around it")
        return (f"The image shows candidates {_ids(shown)}. I judge each for {agent}. "
                f"Walkable: {_ids(pos)}. Not walkable (on an object or structure surface, blocked, or too "
                f"close to an obstacle): {_ids(neg)}.")
    body = "a point agent" if q.task == "point_path" else "my 0.6 m-diameter body"
    route = q.reference_route
    steps = [f"{a} -> {b} ({_xy_dist(q, a, b):.2f} m, a legal direct edge for {body})" for a, b in zip(route, route[1:])]
    total = sum(_xy_dist(q, a, b) for a, b in zip(route, route[1:]))
    nodes = sorted({i for e in q.legal_edges for i in e} | set(q.goal_ids) | {q.start_id})
    target = f"the {q.target_text}"
    lines = []
    if q.task == "intent_path":
        lines.append(f"The request \"{q.intent}\" points to {target}.")
    lines += [f"Target: {target}. Start: display ID {q.start_id}.",
              f"Candidates shown: {_ids(shown)}; reachable by {body} through some legal edge: {_ids(nodes)}.",
              f"Acceptable goal IDs next to {target}: {_ids(q.goal_ids)}.",
              ("Route: " + "; ".join(steps) + f". It ends at goal {route[-1]} after {total:.2f} m.") if steps else
              f"The start {q.start_id} is already an acceptable goal."]
    return " ".join(lines)


def conversation(q: Question, image: str) -> dict:
    """One LLaVA/ShareGPT row; `system` carries Table S2's system prompt (LLaMA-Factory's
    sharegpt format reads it; plain LLaVA loaders ignore the key)."""
    return {"id": q.question_id, "image": image, "system": q.system_prompt,
            "conversations": [{"from": "human", "value": "<image>\n" + q.user_prompt},
                              {"from": "gpt", "value": rationale(q) + "\n" + q.answer}]}


def _answer_verifies(q: Question, gpt_value: str) -> bool:
    last = gpt_value.rsplit("\n", 1)[-1]
    if parse_id_list(last) is None:
        return False
    if q.task in TRAVERSABILITY_TASKS:
        o = evaluate_traversability(q, last)
        return o.fp == 0 and o.fn == 0
    return evaluate_route(q, last).success


def export_sft(dataset_root: str | Path, out_dir: str | Path) -> dict:
    """`<out>/egopathbench_sft.json` + `<out>/images/` + `<out>/sft_audit.json` from the train split."""
    root, out = Path(dataset_root), Path(out_dir)
    items, n_rows, missing_image, missing_rationale, failed = [], 0, 0, 0, []
    written: set[str] = set()
    for task in TASKS:
        shard = root / layout.shard_path(task, SPLIT)
        if not shard.is_file():
            continue
        for row in pq.read_table(shard).to_pylist():
            n_rows += 1
            q = Question.model_validate_json(row["question"])
            img = row["image"]
            if not img or not img.get("bytes"):
                missing_image += 1
                continue
            name = f"images/{Path(img['path']).name}"
            if name not in written:
                atomic.write_bytes(out / name, img["bytes"])
                written.add(name)
            conv = conversation(q, name)
            if not rationale(q).strip():
                missing_rationale += 1
            if not _answer_verifies(q, conv["conversations"][1]["value"]):
                failed.append(q.question_id)
            items.append(conv)
    if not n_rows:
        raise SFTExportError(f"{root}: no {SPLIT} split to export")
    items.sort(key=lambda c: c["id"])
    atomic.write_text(out / SFT_FILE, json.dumps(items, indent=1, ensure_ascii=False) + "\n")
    complete = sum(1 for c in items if (out / c["image"]).is_file() and len(c["conversations"]) == 2)
    audit = {"complete_training_rows": complete, "training_rows": n_rows,
             "missing_image": missing_image, "missing_rationale": missing_rationale,
             "rationale_source": "template over the geometric annotation (paper: GPT-written, non-template)",
             "answer_failures": sorted(failed),
             "format_and_answer_audit": "pass" if (complete == n_rows and not failed and not missing_rationale)
             else "fail",
             "images": len(written)}
    atomic.write_json(out / AUDIT_FILE, audit)
    return audit
