"""Dense Video Captioning items: the clip's events in time order as {start, end, caption}
(VANTAGE Table 5), one item per clip that shows an event (events between the shown frames are
left out of the answer: the model cannot caption what it was not shown).

Captions are templates per event type filled with the actors' descriptions ("The red
forklift picks up a pallet"); times are rounded to hundredths of a second as the prompt's
'mm:ss.ff' writes them. The paper's videos hold 6.9 events on average; a warehouse clip
holds 3-8 (warehouse-2: 5.4 on average), an intersection clip 0-3 and an entrance clip 0-3
(docs/vantage-deviations.md).
"""
from __future__ import annotations

from formats.vantage_item import CaptionedEvent, CaptionsAnswer, VantageItem
from packagers.vantage_tasks.timeline_clip import TimelineClip, round_time, sentence, slots

TASK = "dense_captioning"


def captioned_events(clip: TimelineClip) -> list[CaptionedEvent]:
    captions = clip.prompts(TASK)["captions"]
    out = []
    for e in sorted(clip.shown_events, key=lambda e: (e.t_start, e.t_end, e.type)):
        fields, _ = slots(e.type, clip, e.actors)
        out.append(CaptionedEvent(start=round_time(e.t_start), end=round_time(e.t_end),
                                  caption=sentence(captions[e.type].format(**fields))))
    return out


def items(clip: TimelineClip) -> list[VantageItem]:
    evs = captioned_events(clip)
    if not evs:
        return []
    tags = {"n_events": len(evs), **clip.condition_tags()}
    return [VantageItem(id=f"{TASK}/{clip.clip_id}/0", task=TASK, domain=clip.domain, env=clip.spec.env,
                        media=clip.media(), prompt=clip.prompts(TASK)["template"], answer=CaptionsAnswer(events=evs),
                        tags=tags)]
