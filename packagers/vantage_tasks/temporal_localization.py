"""Temporal Localization items: a query about one event type -> its [t_start, t_end] in
seconds (VANTAGE Table 5), one query per event type shown in the clip (of any
environment with a timeline vocabulary).

The windows are every shown event of that type in `events(spec)` (two collisions in two aisles
give two windows; the graders score a reply against the best one, Moment-DETR's rule,
docs/vantage-deviations.md), rounded to the hundredths of a second that the prompt's
'mm:ss.ss' can express, so an exact reply scores IoU 1.
"""
from __future__ import annotations

from formats.vantage_item import SegmentsAnswer, VantageItem
from packagers.vantage_tasks.timeline_clip import TimelineClip, round_time

TASK = "temporal_localization"


def windows(clip: TimelineClip, kind: str) -> list[tuple[float, float]]:
    """The shown events of this type (one that falls between the shown frames is no window)."""
    return sorted((round_time(e.t_start), round_time(e.t_end)) for e in clip.shown_events if e.type == kind)


def items(clip: TimelineClip) -> list[VantageItem]:
    p = clip.prompts(TASK)
    media = clip.media()
    out = []
    for kind in (k for k in clip.vocab.event_types if any(e.type == k for e in clip.shown_events)):
        ws = windows(clip, kind)
        tags = {"event_type": kind, "n_windows": len(ws), "shortest_s": round(min(b - a for a, b in ws), 6),
                **clip.condition_tags()}
        out.append(VantageItem(id=f"{TASK}/{clip.clip_id}/{len(out)}", task=TASK, domain=clip.domain, env=clip.spec.env,
                               media=media, prompt=p["template"].format(query=p["queries"][kind]),
                               answer=SegmentsAnswer(windows=ws), tags=tags))
    return out
