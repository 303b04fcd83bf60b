"""2D Referring Expressions (Table 5: f(I, Q) -> box; mIoU, P@0.5) from rendered frames.

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

Crossroads (T) and entrance (S) clips use the same rules with their own words (box_scene's
facts): "The white car" / "The white pickup truck" (a style word matches every style a viewer
cannot tell from it, box_scene.STYLE_GROUPS), "The red motorcycle with a rider in a black
helmet", "The cyclist on the blue bicycle wearing a white helmet" / "without a helmet", "The
pedestrian in the red shirt and khaki trousers"; "The person in the black coat and navy
trousers with a brown briefcase" / "with no bag" (a hidden backpack matches every bag phrase).
Their items tag `uses_detail` where warehouse items tag `uses_load` (the same flag: a phrase
beyond category and colour).

The answer is the target's modal pixel box (BoxesAnswer, one box).
"""
from __future__ import annotations

import itertools
import re
from typing import Sequence

from formats.vantage_item import BoxesAnswer, VantageItem
from packagers.vantage_tasks.box_scene import (STYLE_GROUPS, STYLE_WORDS, Clip, Thing, centre, domain,
                                               frame_things, head, image_media, min_visible_px, nouns,
                                               prompt_template)

TASK = "referring_expressions"
POSITION_MARGIN = 0.04          # fraction of the frame's width / height

_POS = (r"(?: is located near the (?P<pos>top left|top right|bottom left|bottom right|top|bottom|left|right)"
        r" of the image)?\.$")
_EXPR = re.compile(
    r"^The (?:worker in the (?P<vest>[a-z]+) vest|(?P<fpaint>[a-z]+) forklift|(?P<apaint>[a-z]+) mobile robot)"
    r"(?P<load> carrying a pallet| with empty forks| carrying a (?P<tote>[a-z]+) tote| without a tote)?" + _POS)
_WORD_STYLE = {w: s for s, w in STYLE_WORDS.items()}
_T_EXPR = re.compile(
    r"^The (?:(?P<cpaint>[a-z]+) (?P<cword>car|" + "|".join(sorted(_WORD_STYLE, key=len, reverse=True)) + r")"
    r"|(?P<mpaint>[a-z]+) motorcycle(?: with a rider in a (?P<mhelmet>[a-z]+) helmet)?"
    r"|cyclist on the (?P<bframe>[a-z]+) bicycle(?P<bhelmet> wearing a (?P<bhcolor>[a-z]+) helmet| without a helmet)?"
    r"|pedestrian in the (?P<pshirt>[a-z]+) shirt(?: and (?P<ptrousers>[a-z]+) trousers)?)" + _POS)
_S_EXPR = re.compile(
    r"^The person in the (?P<top>[a-z]+(?: [a-z]+)?) (?P<kind>shirt|coat)(?: and (?P<trousers>[a-z]+) trousers)?"
    r"(?P<item> with a (?P<icolor>[a-z]+) (?P<iname>backpack|briefcase)| with no bag)?" + _POS)


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


def _w_matches(m, t: Thing) -> bool:
    load = m.group("load")
    if m.group("vest"):
        return (t.category == "person" and t.color == m.group("vest")) or \
               (t.category == "forklift" and t.operator_vest == m.group("vest"))
    if m.group("fpaint"):
        ok = t.category == "forklift" and t.color == m.group("fpaint")
        if ok and load == " carrying a pallet":
            ok = t.load is not False
        elif ok and load == " with empty forks":
            ok = t.load is not True
        elif ok and load is not None:
            ok = False
        return ok
    ok = t.category == "amr" and t.color == m.group("apaint")
    if ok and m.group("tote"):
        ok = t.tote == m.group("tote")
    elif ok and load == " without a tote":
        ok = t.tote is None
    elif ok and load is not None:
        ok = False
    return ok


def _style_group(style: str | None) -> set[str]:
    return next((g for g in STYLE_GROUPS if style in g), {style})


def _t_matches(m, t: Thing) -> bool:
    if m.group("cpaint"):
        word = m.group("cword")
        return t.category == "car" and t.color == m.group("cpaint") and \
            (word == "car" or t.style in _style_group(_WORD_STYLE[word]))
    if m.group("mpaint"):
        return t.category == "motorcycle" and t.color == m.group("mpaint") and \
            m.group("mhelmet") in (None, t.helmet)
    if m.group("bframe"):
        if t.category != "bicycle" or t.color != m.group("bframe"):
            return False
        if m.group("bhelmet") is None:
            return True
        return t.helmet == m.group("bhcolor") if m.group("bhcolor") else t.helmet is None
    return t.category == "person" and t.color == m.group("pshirt") and m.group("ptrousers") in (None, t.trousers)


def _s_matches(m, t: Thing) -> bool:
    if t.category != "person" or t.color != m.group("top") or t.style != m.group("kind"):
        return False
    if m.group("trousers") and t.trousers != m.group("trousers"):
        return False
    if m.group("item") is None or t.item is None:          # no bag words, or a hidden backpack: any bag
        return True
    if m.group("iname"):
        return t.item == m.group("iname") and t.item_color == m.group("icolor")
    return t.item == "none"


_GRAMMARS = (("W", _EXPR, _w_matches), ("T", _T_EXPR, _t_matches), ("S", _S_EXPR, _s_matches))


def resolve(expression: str, things: Sequence[Thing], width: int, height: int) -> list[str] | None:
    """Track ids of every seen object the expression describes; None if it cannot be read."""
    if not isinstance(expression, str):
        return None
    for dom, grammar, matches in _GRAMMARS:
        m = grammar.match(expression)
        if m is not None:
            break
    else:
        return None
    out = []
    for t in things:
        if not t.seen or t.domain != dom:
            continue
        ok = matches(m, t)
        if ok and m.group("pos"):
            ok = _position_ok(t, m.group("pos"), width, height)
        if ok:
            out.append(t.track_id)
    return out


# ------------------------------------------------------------------ the generator

def _load_phrase(t: Thing) -> str | None:
    if t.category == "forklift":
        return None if t.load is None else (" carrying a pallet" if t.load else " with empty forks")
    if t.category == "amr":
        return f" carrying a {t.tote} tote" if t.tote else " without a tote"
    return None


def _details(t: Thing) -> list[str]:
    """The target's detail words beyond category and colour, most telling first."""
    if t.domain == "W":
        return ["load"] if _load_phrase(t) else []
    if t.domain == "S":
        return (["item"] if t.item is not None else []) + ["trousers"]
    return {"car": ["style"], "motorcycle": ["helmet"], "bicycle": ["helmet"], "person": ["trousers"]}[t.category]


def _words(t: Thing, chosen: Sequence[str]) -> str:
    """The expression of `t` with the `chosen` details, without position words or full stop."""
    if t.domain == "W":
        return head(t) + (_load_phrase(t) if "load" in chosen else "")
    if t.domain == "S":
        out = head(t) + (f" and {t.trousers} trousers" if "trousers" in chosen else "")
        if "item" in chosen:
            out += " with no bag" if t.item == "none" else f" with a {t.item_color} {t.item}"
        return out
    if not chosen:
        return head(t)
    if t.category == "car":
        return f"The {t.color} {STYLE_WORDS[t.style]}"
    if t.category == "motorcycle":
        return head(t) + f" with a rider in a {t.helmet} helmet"
    if t.category == "bicycle":
        return head(t) + (f" wearing a {t.helmet} helmet" if t.helmet else " without a helmet")
    return head(t) + f" and {t.trousers} trousers"


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


def _describe(target: Thing, things: Sequence[Thing], width: int, height: int) -> tuple[str, tuple] | None:
    dets = _details(target)
    subsets = [()] + [(d,) for d in dets] + ([tuple(dets)] if len(dets) > 1 else [])
    for pos in [None] + _positions(target, width, height):
        for chosen in subsets:
            base = _words(target, chosen)
            text = base + (f" is located near the {pos} of the image" if pos else "") + "."
            if pos:
                rest = resolve(base + ".", things, width, height) or []
                if any(r != target.track_id and not _clearly_outside(_thing(things, r), pos, width, height)
                       for r in rest):
                    continue
            if resolve(text, things, width, height) == [target.track_id]:
                return text, chosen
    return None


def describe(target: Thing, things: Sequence[Thing], width: int, height: int) -> str | None:
    """The shortest expression that `resolve` reads as exactly the target (and whose position
    words hold with margin), or None."""
    got = _describe(target, things, width, height)
    return None if got is None else got[0]


def _thing(things: Sequence[Thing], track_id: str) -> Thing:
    return next(t for t in things if t.track_id == track_id)


def items_for_clip(clip: Clip, frame_indices: Sequence[int] | None = None) -> list[VantageItem]:
    """One item per clear person/forklift/AMR per frame that an expression picks out uniquely."""
    out = []
    frames = clip.frames if frame_indices is None else [clip.frames[i] for i in frame_indices]
    dom = domain(clip)
    for frame in frames:
        media = image_media(clip, frame)
        w, h = media.width, media.height
        things = frame_things(clip, frame)
        min_px = min_visible_px(w, h)
        for target in things:
            if target.category not in nouns(dom) or not target.clear(min_px):
                continue
            got = _describe(target, things, w, h)
            if got is None:
                continue
            text, chosen = got
            same = sum(1 for t in things if t.seen and t.track_id != target.track_id
                       and t.category == target.category and t.color == target.color)
            out.append(VantageItem(
                id=f"{TASK}/{clip.clip_id}/f{frame['frame_number']:04d}-{target.track_id}", task=TASK,
                domain=dom, env=clip.env, media=media,
                prompt=prompt_template(TASK).format(description=text),
                answer=BoxesAnswer(task=TASK, boxes=[target.box], category=target.category),
                tags={"expression": text, "target": target.track_id, "category": target.category,
                      "same_color_distractors": same, "uses_position": " is located near " in text,
                      "uses_load" if dom == "W" else "uses_detail": bool(chosen),
                      "lighting": clip.spec.lighting.condition}))
    return out


def items(clips: Sequence[Clip]) -> list[VantageItem]:
    return list(itertools.chain.from_iterable(items_for_clip(c) for c in clips))
