"""Trivial baselines of the timeline tasks, written as replies so they go through the very
parsers and graders a model's reply does (VANTAGE issue 13: their scores must be what their
definitions imply).

  always_yes   Event Verification: "yes" to every hypothesis -> sensitivity 1, specificity 0,
               macro-F1 = F1_yes / 2 = P / (2P + N) for P positives and N negatives.
  whole_clip   Temporal Localization: [0, duration] for every query -> tIoU = the best
               window's length / duration (windows lie inside the clip).
"""
from __future__ import annotations

import json
import math

from formats.vantage_item import VantageItem
from scorers.vantage_grading import grade, set_metrics
from scorers.vantage_metrics import Compat


def mmss(t: float) -> str:
    """Seconds as the prompts' 'mm:ss.ss' (hundredths)."""
    cs = int(round(float(t) * 100))
    return f"{cs // 6000:02d}:{(cs % 6000) // 100:02d}.{cs % 100:02d}"


def always_yes(item: VantageItem) -> str:
    return "yes"


def whole_clip(item: VantageItem) -> str:
    return json.dumps({"start": mmss(0.0), "end": mmss(item.media.duration_s)})


BASELINES = {"always_yes": ("event_verification", always_yes),
             "whole_clip": ("temporal_localization", whole_clip)}


def score_baseline(name: str, items: list[VantageItem], compat: Compat = "strict") -> dict:
    """The baseline's set metrics over the items of its task."""
    if name not in BASELINES:
        raise ValueError(f"unknown baseline {name!r}; known: {sorted(BASELINES)}")
    task, reply = BASELINES[name]
    if any(it.task != task for it in items):
        raise ValueError(f"baseline {name} answers {task} items only")
    return set_metrics(task, [grade(it, reply(it)) for it in items], compat)


def _box_1000_up(box, width: int, height: int) -> list[float]:
    """A pixel box in 0–1000, each coordinate rounded up to 0.01: the vantage rules int-truncate
    the scaled box, and a value written a hair below a pixel edge would lose a whole row."""
    return [math.ceil(v * 1000 / (width if k % 2 == 0 else height) * 100) / 100 for k, v in enumerate(box)]


def reference_reply(item: VantageItem) -> str:
    """The ground truth written as a model that knows it would reply, in the form the task's
    prompt asks for: scored by the same readers as a model, it must score perfectly (strict SOT
    excepted: `IoU > 1` never holds, so a perfect track scores 20/21 there)."""
    a, m = item.answer, item.media
    if item.task == "event_verification":
        return a.label
    if item.task in ("video_qa", "spatial_pointing"):
        return f"Answer: {a.letter}"
    if item.task == "temporal_localization":
        s, e = a.windows[0]
        return json.dumps({"start": mmss(s), "end": mmss(e)})
    if item.task == "dense_captioning":
        return json.dumps([{"start": mmss(e.start), "end": mmss(e.end), "caption": e.caption} for e in a.events])
    if item.task == "single_object_tracking":
        return json.dumps({f"frame_{k}": (None if b is None else [float(x) for x in b])
                           for k, b in enumerate(a.boxes) if k >= 1})
    if item.task == "referring_expressions":   # IoU of the scaled box: exact values, no rounding
        b = a.boxes[0]
        return json.dumps([[v * 1000 / (m.width if k % 2 == 0 else m.height) for k, v in enumerate(b)]])
    boxes = [_box_1000_up(b, m.width, m.height) for b in a.boxes]
    return json.dumps([{"bbox_2d": b, "label": a.category} for b in boxes])
