"""Video QA items: 4-option multiple choice from small programs over one clip's spec and
events (VANTAGE Table 5; CLEVR-style, one program per question type).

Programs (their data per environment in timeline_vocab): how many agents of a category
appear (workers, forklifts, AMRs; pedestrians, cars, motorcycles, cyclists; people; asked
only when every one of them is wholly in frame at some shown time), how many distinct
agents do a scripted thing (workers entering the restricted zone, jaywalkers, badge uses),
a colour of the actor of an event that happened once (the hard hat of the worker who falls,
the car that runs the red, the tailgater's coat, ...), the colour of the one forklift that
carries a pallet, and which event happens first / last (asked only when it leads the next
one by MIN_ORDER_GAP_S at both its start and its end). A question that rests on events is asked
only when every event it counts, names or orders is shown (timeline_clip.TimelineClip.shown).
Distractors are values of the same type (other counts, other colours of the same palette,
other event types). The correct option's letter comes from a balanced sequence: shuffled
blocks of ABCD over one clip (`items`) or over a whole set of clips (`generate`), so every
letter is the answer equally often, to within one (the harness falls back to the *last*
letter of a reply, so a skewed key would reward a letter bias).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from formats.vantage_item import LETTERS, ChoiceAnswer, VantageItem
from packagers.vantage_tasks.timeline_clip import TimelineClip, task_rng
from packagers.vantage_tasks.timeline_vocab import WAREHOUSE

TASK = "video_qa"
MIN_ORDER_GAP_S = 0.5
# the warehouse's programs under their old names (every environment's: timeline_vocab)
COUNTED = WAREHOUSE.counted
# question id -> (event type, actor category or slot index, colour key, palette)
ACTOR_COLOUR = WAREHOUSE.actor_colour


@dataclass(frozen=True)
class Question:
    program: str
    text: str
    correct: str
    distractors: tuple[str, str, str]
    tags: dict = field(default_factory=dict)


def _pick(clip: TimelineClip, program: str, pool: list[str], k: int = 3) -> tuple[str, ...]:
    rng = task_rng(TASK, clip.clip_id, f"distractors/{program}")
    return tuple(pool[i] for i in sorted(rng.choice(len(pool), size=k, replace=False)))


def _count_options(clip: TimelineClip, program: str, n: int) -> tuple[str, ...]:
    near = sorted((v for v in range(max(0, n - 3), n + 4) if v != n), key=lambda v: (abs(v - n), v))[:5]
    return _pick(clip, program, [str(v) for v in sorted(near)])


def counts(clip: TimelineClip) -> list[Question]:
    out = []
    texts = clip.prompts(TASK)["questions"]
    for cat in clip.vocab.counted:
        ids = clip.agents(cat)
        if all(clip.in_view(t) for t in ids):
            prog = f"count_{cat}"
            out.append(Question(prog, texts[prog], str(len(ids)), _count_options(clip, prog, len(ids))))
    for prog, kind in clip.vocab.event_counts.items():
        evs = [e for e in clip.events if e.type == kind]
        if any(s.type == kind for s in clip.spec.scripts) and all(clip.shown(e) for e in evs):
            n = len({e.actors[0] for e in evs})
            out.append(Question(prog, texts[prog], str(n), _count_options(clip, prog, n)))
    return out


def actor_colours(clip: TimelineClip) -> list[Question]:
    out = []
    vocab = clip.vocab
    for prog, (kind, role, key, palette) in vocab.actor_colour.items():
        evs = [e for e in clip.events if e.type == kind]
        if len(evs) != 1 or not clip.shown(evs[0]):
            continue
        if isinstance(role, int):                     # a slot of a positional event: the tailgater is [1]
            actor = evs[0].actors[role:role + 1]
        else:
            actor = [a for a in evs[0].actors if clip.category(a) == role]
        colour = clip.color(actor[0], key) if len(actor) == 1 else None
        if colour is None:
            continue
        pool = [c for c in vocab.palettes[palette] if c != colour]
        out.append(Question(prog, clip.prompts(TASK)["questions"][prog], colour, _pick(clip, prog, pool),
                            {"event_type": kind, "actor": actor[0]}))
    return out


def carriers(clip: TimelineClip) -> list[str]:
    """Forklifts that hold a pallet at some time of the clip (a Carried load's carrier is
    a copy of its forklift's trajectory)."""
    dur = clip.duration_s
    out = set()
    for a in clip.spec.timeline.agents:
        tr = a.trajectory
        if a.category != "pallet" or tr.kind != "carried":
            continue
        if tr.t_pick < dur and (tr.t_drop is None or tr.t_drop > 0):
            out |= {f.track_id for f in clip.spec.timeline.agents
                    if f.category == "forklift" and f.trajectory == tr.carrier}
    return sorted(out)


def carrier_colour(clip: TimelineClip) -> list[Question]:
    held = carriers(clip)
    if len(held) != 1:
        return []
    colour = clip.color(held[0], "paint")
    pool = [c for c in clip.vocab.palettes["forklift"] if c != colour]
    return [Question("carrier_paint", clip.prompts(TASK)["questions"]["carrier_paint"], colour,
                     _pick(clip, "carrier_paint", pool), {"actor": held[0]})]


def _order_question(clip: TimelineClip, prog: str, first: bool) -> Question | None:
    evs = sorted(clip.events, key=lambda e: (e.t_start, e.t_end))
    if len(evs) < 2 or not all(clip.shown(e) for e in evs):
        return None
    sign = 1.0 if first else -1.0
    lead = min(evs, key=lambda e: sign * e.t_start)
    rest = [e for e in evs if e is not lead]
    if any(e.type == lead.type for e in rest):
        return None
    if not all(sign * (e.t_start - lead.t_start) >= MIN_ORDER_GAP_S and sign * (e.t_end - lead.t_end) >= MIN_ORDER_GAP_S
               for e in rest):
        return None
    texts = clip.prompts(TASK)["event_options"]
    present = sorted({e.type for e in rest})
    absent = [k for k in clip.vocab.event_types if k != lead.type and k not in present]
    pool = present if len(present) >= 3 else present + absent
    picked = _pick(clip, prog, pool) if len(present) >= 3 else tuple(present) + _pick(clip, prog, absent, 3 - len(present))
    return Question(prog, clip.prompts(TASK)["questions"][prog], texts[lead.type], tuple(texts[k] for k in picked),
                    {"event_type": lead.type})


def event_order(clip: TimelineClip) -> list[Question]:
    return [q for q in (_order_question(clip, "first_event", True), _order_question(clip, "last_event", False)) if q]


def questions(clip: TimelineClip) -> list[Question]:
    return counts(clip) + actor_colours(clip) + carrier_colour(clip) + event_order(clip)


def balanced_letters(n: int, *key: str) -> str:
    """n letters from shuffled blocks of ABCD: each letter n // 4 or n // 4 + 1 times."""
    rng = task_rng(TASK, "/".join(key), "letters")
    blocks = "".join("".join(LETTERS[i] for i in rng.permutation(4)) for _ in range((n + 3) // 4))
    return blocks[:n]


def _item(clip: TimelineClip, k: int, q: Question, letter: str) -> VantageItem:
    rng = task_rng(TASK, clip.clip_id, f"options/{k}")
    others = [q.distractors[i] for i in rng.permutation(3)]
    pos = LETTERS.index(letter)
    options = tuple(others[:pos] + [q.correct] + others[pos:])
    p = clip.prompts(TASK)
    prompt = p["template"].format(question=f"{p['preamble']} {q.text}", **dict(zip(LETTERS, options)))
    tags = {"program": q.program, **clip.condition_tags(), **q.tags}
    return VantageItem(id=f"{TASK}/{clip.clip_id}/{k}", task=TASK, domain=clip.domain, env=clip.spec.env,
                       media=clip.media(), prompt=prompt,
                       answer=ChoiceAnswer(task=TASK, letter=letter, options=options), tags=tags)


def items(clip: TimelineClip, letters: str | None = None) -> list[VantageItem]:
    """The clip's questions; `letters` (one per question) from `generate`, else balanced over the clip."""
    qs = questions(clip)
    letters = balanced_letters(len(qs), clip.clip_id) if letters is None else letters
    if len(letters) != len(qs):
        raise ValueError(f"{clip.clip_id}: {len(qs)} questions but {len(letters)} letters")
    return [_item(clip, k, q, letter) for k, (q, letter) in enumerate(zip(qs, letters))]


def generate(clips: list[TimelineClip]) -> list[VantageItem]:
    """Items of a set of clips with the answer letters balanced over the whole set."""
    per = [len(questions(c)) for c in clips]
    letters = balanced_letters(sum(per), *(c.clip_id for c in clips))
    out, at = [], 0
    for clip, n in zip(clips, per):
        out += items(clip, letters[at:at + n])
        at += n
    return out
