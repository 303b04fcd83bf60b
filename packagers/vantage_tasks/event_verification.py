"""Event Verification items: a yes/no hypothesis about one clip (VANTAGE Table 5) of the
warehouse (W), the intersection (T) or the entrance (S).

Hypotheses come from the clip's scripts (each script planned an event or a near negative:
a near miss passed at 1.2-2x the threshold, a zone walk just outside the zone, a car stopping
just before its stop line, a follower who badges after the door shut, a stay in the loiter
region a few seconds short of the limit) and, to
bring the set near the paper's 104 positive / 59 negative split, from event types that did
not happen although their actors are in the clip ("Did a forklift set down a pallet?"). The
label is never the script's intent: it is whether `events(spec)` holds an event of that type
whose actors fit the hypothesis's descriptions (timeline_clip.matches).
"""
from __future__ import annotations

from blender_envs.infra.entrance_events import LOITER_S
from formats.vantage_item import VantageItem, YesNoAnswer
from packagers.vantage_tasks.timeline_clip import TimelineClip, event_matches, slots, task_rng

TASK = "event_verification"
PAPER_POSITIVES, PAPER_NEGATIVES = 104, 59          # Table 7's split


def _hypothesis(clip: TimelineClip, kind: str, actors: list[str], generic: bool) -> tuple[str, str | None]:
    """The hypothesis and its label: "yes" when a shown event fits it, "no" when no event at all
    does, None (not asked) when the only events that fit are not shown (between the shown
    frames, or out of view) or when a named actor never appears in the shown frames."""
    fields, refs = slots(kind, clip, actors, generic=generic)
    text = clip.prompts(TASK)["hypotheses"][kind].format(**fields)
    if not generic and not all(clip.appears(a) for a in actors):
        return text, None
    fitting = [e for e in clip.events if event_matches(clip, e, kind, refs)]
    label = "yes" if any(clip.shown(e) for e in fitting) else None if fitting else "no"
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


# the intersection's and entrance's scripts: which planned numbers say how near the rule a
# script came (its `planned` entries copied as tags), and the ratio to the rule's threshold
NEARNESS = {"intersection": ("min_gap_m", "overshoot_m", "penetration_m", "lateral_m", "kerb_offset_m"),
            "entrance": ("grant_after_shut_s", "stay_s")}


def _nearness_tags(clip: TimelineClip, script) -> dict:
    p = script.planned
    tags = {k: float(p[k]) for k in NEARNESS[clip.spec.env] if k in p}
    if "min_gap_m" in p:
        tags["threshold_ratio"] = round(float(p["min_gap_m"]) / float(p["threshold_m"]), 6)
    if "t_cross_s" in p:                                    # a red-light runner: after (+) or before (-) red
        tags["after_red_s"] = round(float(p["t_cross_s"]) - float(p["t_red_s"]), 6)
    if "stay_s" in p:
        tags["threshold_ratio"] = round(float(p["stay_s"]) / LOITER_S, 6)
    return tags


def _cast(clip: TimelineClip, kind: str) -> list[str]:
    """Distinct agents for the first of the type's actor shapes the clip can fill (an
    absent-type hypothesis names their categories only), or [] when none fits."""
    for shape in clip.vocab.signatures[kind]:
        pools = {c: clip.agents(c) for c in shape}
        if all(len(pools[c]) >= shape.count(c) for c in shape):
            return [pools[c][shape[:i].count(c)] for i, c in enumerate(shape)]
    return []


def candidates(clip: TimelineClip) -> list[dict]:
    """Scripted hypotheses (positives and near negatives), then absent-type negatives as
    needed for about PAPER_NEGATIVES / PAPER_POSITIVES negatives per positive."""
    out = []
    tags = _script_tags if clip.spec.env == "warehouse" else _nearness_tags
    for script in clip.spec.scripts:
        text, label = _hypothesis(clip, script.type, script.actors, generic=False)
        if label is None:
            continue
        out.append({"question": text, "label": label, "event_type": script.type, "actors": ",".join(script.actors),
                    "source": "scripted" if script.positive else "near_negative", **tags(clip, script)})
    n_pos = sum(c["label"] == "yes" for c in out)
    need = round(n_pos * PAPER_NEGATIVES / PAPER_POSITIVES) - sum(c["label"] == "no" for c in out)
    asked = {s.type for s in clip.spec.scripts}
    happened = {e.type for e in clip.events}
    shapes = {k: _cast(clip, k) for k in clip.vocab.event_types if k not in asked | happened}
    absent = [k for k, actors in shapes.items() if actors]
    rng = task_rng(TASK, clip.clip_id, "absent_types")
    order = [absent[i] for i in rng.permutation(len(absent))]
    for kind in order[:max(0, need)]:
        text, label = _hypothesis(clip, kind, shapes[kind], generic=True)
        out.append({"question": text, "label": label, "event_type": kind, "actors": "", "source": "absent_type"})
    return out


def items(clip: TimelineClip) -> list[VantageItem]:
    p = clip.prompts(TASK)
    media = clip.media()
    out = []
    for k, c in enumerate(candidates(clip)):
        tags = {key: v for key, v in c.items() if key not in ("question", "label")}
        tags.update(clip.condition_tags())
        out.append(VantageItem(id=f"{TASK}/{clip.clip_id}/{k}", task=TASK, domain=clip.domain, env=clip.spec.env,
                               media=media, prompt=p["template"].format(system=p["system"], question=c["question"]),
                               answer=YesNoAnswer(label=c["label"]), tags=tags))
    return out
