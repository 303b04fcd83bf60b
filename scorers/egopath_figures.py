"""EgoPathBench report figures: one contact sheet per task of the reference and every model's answer.
"""
from __future__ import annotations

import os
from typing import Any, Mapping, Sequence

from geometry.egopath_schema import TASKS, Question
from scorers.egopath_dataset import load_images

__all__ = ["make_overlays"]


def make_overlays(dataset_root: str | os.PathLike, questions: Sequence[Question],
                  predictions_by_model: Mapping[str, Mapping[str, Any]], split: str = "benchmark",
                  per_task: int = 1) -> dict[str, Any]:
    """{name: PIL image}: for the first `per_task` questions (by id) of each task that have an
    image and pixels, one contact sheet of the reference answer and every model's answer."""
    from PIL import Image

    from scorers.egopath_overlay import contact_sheet, draw_prediction

    chosen: list[Question] = []
    for t in TASKS:
        qs = sorted((q for q in questions if q.task == t and q.waypoint_pixels), key=lambda q: q.question_id)
        chosen.extend(qs[: max(0, per_task) * 4])  # a few spares in case an image is missing
    imgs = load_images(dataset_root, [q.question_id for q in chosen], split=split)
    out: dict[str, Any] = {}
    for t in TASKS:
        done = 0
        for q in (q for q in chosen if q.task == t):
            if done >= per_task or q.question_id not in imgs:
                continue
            img = imgs[q.question_id]
            f = max(1.0, 320 / img.size[0])   # draw small renders at a readable size
            if f > 1:
                img = img.resize((round(img.size[0] * f), round(img.size[1] * f)), Image.Resampling.LANCZOS)
            px = {int(k): (uv[0] * f, uv[1] * f) for k, uv in q.waypoint_pixels.items()}
            panels = [draw_prediction(img, q, q.answer, px)]
            titles = ["reference"]
            for m, replies in predictions_by_model.items():
                panels.append(draw_prediction(img, q, replies.get(q.question_id), px))
                titles.append(m)
            out[f"{t}__{q.question_id}"] = contact_sheet(panels, titles)
            done += 1
    return out
