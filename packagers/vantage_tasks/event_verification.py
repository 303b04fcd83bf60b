"""Event Verification items: a yes/no hypothesis about one warehouse clip (VANTAGE Table 5).

Hypotheses come from the clip's scripts (each script planned an event or a near negative:
a near miss passed at 1.2-2x the threshold, a zone walk just outside the zone) and, to
bring the set near the paper's 104 positive / 59 negative split, from event types that did
not happen although their actors are in the clip ("Did a forklift set down a pallet?"). The
label is never the script's intent: it is whether `events(spec)` holds an event of that type
whose actors fit the hypothesis's descriptions (timeline_clip.matches).
"""
from __future__ import annotations

from formats.vantage_item import VantageItem, YesNoAnswer
from packagers.vantage_tasks.timeline_clip import (DOMAIN, EVENT_CATEGORIES, EVENT_TYPES, TimelineClip, matches,
                                                   prompts, slots, task_rng)

TASK = "event_verification"
PAPER_POSITIVES, PAPER_NEGATIVES = 104, 59          # Table 7's split


def _hypothesis(clip: TimelineClip, kind: str, actors: list[str], generic: bool) -> tuple[str, str]:
    fields, refs = slots(kind, clip, actors, generic=generic)
    text = prompts()[TASK]["hypotheses"][kind].format(**fields)
    label = "yes" if any(matches(e, kind, refs) for e in clip.events) else "no"
    return text, label


def _script_tags(clip: TimelineClip, script) -> dict:
    tags = {}
    if script.type == "near_miss":
        tags["min_distance_m"] = float(script.planned["min_distance_m"])
        tags["threshold_ratio"] = round(float(script.planned["min_distance_m"]) / float(script.planned["threshold_m"]), 6)
    if script.type == "zone_entry" and not script.positive:
        zone = next(z for z in clip.spec.zones if z.name == script.planned["zone"])
        tags["outside_m"] = round(min(p[1] for p in zone.polygon) - float(script.planned["walk_y"]), 6)
    return tags


def candidates(clip: TimelineClip) -> list[dict]:
    """Scripted hypotheses (positives and near negatives), then absent-type negatives as
    needed for about PAPER_NEGATIVES / PAPER_POSITIVES negatives per positive."""
    out = []
    for script in clip.spec.scripts:
        text, label = _hypothesis(clip, script.type, script.actors, generic=False)
        out.append({"question": text, "label": label, "event_type": script.type, "actors": ",".join(script.actors),
                    "source": "scripted" if script.positive else "near_negative", **_script_tags(clip, script)})
    n_pos = sum(c["label"] == "yes" for c in out)
    need = round(n_pos * PAPER_NEGATIVES / PAPER_POSITIVES) - sum(c["label"] == "no" for c in out)
    asked = {s.type for s in clip.spec.scripts}
    happened = {e.type for e in clip.events}
    absent = [k for k in EVENT_TYPES if k not in asked | happened
              and all(clip.agents(c) for c in EVENT_CATEGORIES[k])]
    rng = task_rng(TASK, clip.clip_id, "absent_types")
    order = [absent[i] for i in rng.permutation(len(absent))]
    for kind in order[:max(0, need)]:
        actors = [clip.agents(c)[0] for c in EVENT_CATEGORIES[kind]]
        text, label = _hypothesis(clip, kind, actors, generic=True)
        out.append({"question": text, "label": label, "event_type": kind, "actors": "", "source": "absent_type"})
    return out


def items(clip: TimelineClip) -> list[VantageItem]:
    p = prompts()[TASK]
    media = clip.media()
    out = []
    for k, c in enumerate(candidates(clip)):
        tags = {key: v for key, v in c.items() if key not in ("question", "label")}
        tags["lighting"] = clip.spec.lighting.condition
        out.append(VantageItem(id=f"{TASK}/{clip.clip_id}/{k}", task=TASK, domain=DOMAIN, env=clip.spec.env,
                               media=media, prompt=p["template"].format(system=p["system"], question=c["question"]),
                               answer=YesNoAnswer(label=c["label"]), tags=tags))
    return out
