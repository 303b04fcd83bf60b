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
