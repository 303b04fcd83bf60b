"""2D Referring Expressions (Table 5: f(I, Q) -> box; mIoU, P@0.5) from rendered warehouse frames.

An expression names one clear object by its category and colour ("the worker in the orange
vest", "the red forklift"), then, only when that is not yet unique, its load ("carrying a
pallet", "with empty forks", "carrying a blue tote", "without a tote") and/or where it is in
the image ("is located near the bottom left of the image", thirds of the frame), in the
paper's wording (Fig. 2: "The black motorcycle is located near the bottom right of the
image."). Identical-colour distractors are the hard cases: they force the load or position
words, and the item records how many there were (`tags.same_color_distractors`).

Uniqueness is confirmed by `resolve`, an independent reader: it parses the expression's
words back and filters every object with any visible pixel (not only the clear ones), so an
item exists only when exactly the target survives. Two more rules keep the words safe for a
viewer: a position word is used only when the target's box centre lies inside that third by
at least `POSITION_MARGIN` of the frame and every object the rest of the expression matches
lies outside it by as much; and a forklift whose pallet is being lifted or set down has no
load word (and matches both load words in `resolve`). A seated forklift operator is a worker
in a vest too: `resolve` counts forklifts whose operator wears the named vest, so such a
forklift is a distractor for a worker expression.

The answer is the target's modal pixel box (BoxesAnswer, one box).
"""
from __future__ import annotations

import itertools
import re
from typing import Sequence

from formats.vantage_item import BoxesAnswer, VantageItem
from packagers.vantage_tasks.box_scene import (NOUNS, Clip, Thing, centre, domain, frame_things, image_media,
                                               min_visible_px, prompt_template)

TASK = "referring_expressions"
POSITION_MARGIN = 0.04          # fraction of the frame's width / height

_EXPR = re.compile(
    r"^The (?:worker in the (?P<vest>[a-z]+) vest|(?P<fpaint>[a-z]+) forklift|(?P<apaint>[a-z]+) mobile robot)"
    r"(?P<load> carrying a pallet| with empty forks| carrying a (?P<tote>[a-z]+) tote| without a tote)?"
    r"(?: is located near the (?P<pos>top left|top right|bottom left|bottom right|top|bottom|left|right)"
    r" of the image)?\.$")


# ------------------------------------------------------------------ the independent reader

def _in_third(value: float, size: float, word: str) -> bool:
    return value < size / 3 if word in ("left", "top") else value > 2 * size / 3


def _position_ok(thing: Thing, pos: str, width: int, height: int) -> bool:
    cx, cy = centre(thing.box)
    words = pos.split()
    for w in words:
        if w in ("top", "bottom") and not _in_third(cy, height, w):
            return False
        if w in ("left", "right") and not _in_third(cx, width, w):
            return False
    return True


def resolve(expression: str, things: Sequence[Thing], width: int, height: int) -> list[str] | None:
    """Track ids of every seen object the expression describes; None if it cannot be read."""
    m = _EXPR.match(expression)
    if m is None:
        return None
    load = m.group("load")
    out = []
    for t in things:
        if not t.seen:
            continue
        if m.group("vest"):
            ok = (t.category == "person" and t.color == m.group("vest")) or \
                 (t.category == "forklift" and t.operator_vest == m.group("vest"))
        elif m.group("fpaint"):
            ok = t.category == "forklift" and t.color == m.group("fpaint")
            if ok and load == " carrying a pallet":
                ok = t.load is not False
            elif ok and load == " with empty forks":
                ok = t.load is not True
            elif ok and load is not None:
                ok = False
        else:
            ok = t.category == "amr" and t.color == m.group("apaint")
            if ok and m.group("tote"):
                ok = t.tote == m.group("tote")
            elif ok and load == " without a tote":
                ok = t.tote is None
            elif ok and load is not None:
                ok = False
        if ok and m.group("pos"):
            ok = _position_ok(t, m.group("pos"), width, height)
        if ok:
            out.append(t.track_id)
    return out


# ------------------------------------------------------------------ the generator

def _head(t: Thing) -> str:
    if t.category == "person":
        return f"The worker in the {t.color} vest"
    return f"The {t.color} {NOUNS[t.category]}"


def _load_phrase(t: Thing) -> str | None:
    if t.category == "forklift":
        return None if t.load is None else (" carrying a pallet" if t.load else " with empty forks")
    if t.category == "amr":
        return f" carrying a {t.tote} tote" if t.tote else " without a tote"
    return None


def _third_word(value: float, size: float, low: str, high: str, margin: float) -> str | None:
    if value < size / 3 - margin:
        return low
    if value > 2 * size / 3 + margin:
        return high
    return None


def _positions(t: Thing, width: int, height: int) -> list[str]:
    """Position phrases whose thirds hold the target's centre with margin, shortest first."""
    cx, cy = centre(t.box)
    h = _third_word(cx, width, "left", "right", POSITION_MARGIN * width)
    v = _third_word(cy, height, "top", "bottom", POSITION_MARGIN * height)
    return [p for p in (h, v, f"{v} {h}" if v and h else None) if p]


def _clearly_outside(t: Thing, pos: str, width: int, height: int) -> bool:
    """Some axis of `pos` puts t's centre outside its third by the margin."""
    cx, cy = centre(t.box)
    mx, my = POSITION_MARGIN * width, POSITION_MARGIN * height
    for w in pos.split():
        if (w == "left" and cx > width / 3 + mx) or (w == "right" and cx < 2 * width / 3 - mx) or \
           (w == "top" and cy > height / 3 + my) or (w == "bottom" and cy < 2 * height / 3 - my):
            return True
    return False


def describe(target: Thing, things: Sequence[Thing], width: int, height: int) -> str | None:
    """The shortest expression that `resolve` reads as exactly the target (and whose position
    words hold with margin), or None."""
    load = _load_phrase(target)
    options = [("", None)] + ([(load, None)] if load else [])
    for pos in _positions(target, width, height):
        options += [("", pos)] + ([(load, pos)] if load else [])
    for load_words, pos in options:
        text = _head(target) + load_words + (f" is located near the {pos} of the image" if pos else "") + "."
        if pos:
            rest = resolve(_head(target) + load_words + ".", things, width, height) or []
            if any(r != target.track_id and not _clearly_outside(_thing(things, r), pos, width, height)
                   for r in rest):
                continue
        if resolve(text, things, width, height) == [target.track_id]:
            return text
    return None


def _thing(things: Sequence[Thing], track_id: str) -> Thing:
    return next(t for t in things if t.track_id == track_id)


def items_for_clip(clip: Clip, frame_indices: Sequence[int] | None = None) -> list[VantageItem]:
    """One item per clear person/forklift/AMR per frame that an expression picks out uniquely."""
    out = []
    frames = clip.frames if frame_indices is None else [clip.frames[i] for i in frame_indices]
    for frame in frames:
        media = image_media(clip, frame)
        w, h = media.width, media.height
        things = frame_things(clip, frame)
        min_px = min_visible_px(w, h)
        for target in things:
            if target.category not in NOUNS or not target.clear(min_px):
                continue
            text = describe(target, things, w, h)
            if text is None:
                continue
            same = sum(1 for t in things if t.seen and t.track_id != target.track_id
                       and t.category == target.category and t.color == target.color)
            out.append(VantageItem(
                id=f"{TASK}/{clip.clip_id}/f{frame['frame_number']:04d}-{target.track_id}", task=TASK,
                domain=domain(clip), env=clip.env, media=media,
                prompt=prompt_template(TASK).format(description=text),
                answer=BoxesAnswer(task=TASK, boxes=[target.box], category=target.category),
                tags={"expression": text, "target": target.track_id, "category": target.category,
                      "same_color_distractors": same, "uses_position": " is located near " in text,
                      "uses_load": text.count(" carrying ") + text.count(" with empty ") + text.count(" without ") > 0,
                      "lighting": clip.spec.lighting.condition}))
    return out


def items(clips: Sequence[Clip]) -> list[VantageItem]:
    return list(itertools.chain.from_iterable(items_for_clip(c) for c in clips))
