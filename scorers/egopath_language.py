"""EgoPathBench target language (§3.3 "Question text"): explicit target phrases and
intent requests, attached only after the geometry fixed the target, and accepted only
when an independent parse of the text picks out that target alone among the objects
visible in the view.

Two halves that must not share shortcuts:
- generators (`explicit_target_text`, `intent_request`) enumerate candidate phrases from
  the target's attributes, simplest first;
- resolvers (`resolve_explicit`, `resolve_intent`) read a phrase back with a small
  grammar and return every visible object it fits. A phrase is kept only when its
  resolver returns exactly [target_id], so an ambiguous or unsupported cue never reaches
  a question.

Grammar (lower case, an optional leading "the"):
  explicit := [size] [colour...] NOUN [suffix]
  suffix   := "nearest to you" | "farthest from you" | "next to the" [colour...] NOUN
  intent   := REQUEST "; take me to the" ( [size] [colour...] "one" | "one" suffix' )
  suffix'  := "nearest to me" | "farthest from me" | "next to the" [colour...] NOUN
where the REQUEST implies exactly one category through `INTENT_KEYWORDS`.

Perceptual margins (ours; the paper gives none): "nearest"/"farthest" need the runner-up
at least `DISTANCE_MARGIN_M` farther/nearer; "next to" means floor-plane centre distance
<= `NEXT_TO_M` and the anchor must be the only visible object fitting its own phrase.

`visible_objects` entries: dicts with object_id, name, category, color, size_word, room,
distance_m, bbox_px, centre_xy (extra keys ignored; missing distance/centre disable the
cues that need them).
"""
from __future__ import annotations

import math
import re

import numpy as np

SIZE_WORDS = ("small", "large")
DISTANCE_MARGIN_M = 0.5
NEXT_TO_M = 1.2

# Intent requests per category. Each implies its category through a keyword phrase of
# INTENT_KEYWORDS (and no keyword of another category) without naming the object.
INTENTS: dict[str, tuple[str, ...]] = {
    "chair": ("I need a seat for one person while I tie my shoes",
              "Let me pull up a seat for one person and rest my legs"),
    "sofa": ("I want to lounge with friends for a while",
             "I'd like to stretch out and lounge for a bit"),
    "bed": ("I'm exhausted and want to take a nap",
            "I need to lie down and sleep for the night"),
    "table": ("I need to set down this dinner tray",
              "Let's serve the dinner plates somewhere we can all eat together"),
    "desk": ("I need to open my laptop and get some work done",
             "I have to sit and write this letter with a pen"),
    "cabinet": ("I need to put these dishes away behind closed doors",
                "Where can I store the cleaning supplies behind closed doors"),
    "shelf": ("I want to put this book back with the other books",
              "I need to display this little vase with the books"),
    "plant": ("I have to water something green with this watering can",
              "I want to check whether the leaves need watering"),
    "box": ("I need to pack these spare cables into something with a lid",
            "I want to pack up these old letters"),
    "lamp": ("It's too dark here to read; I need more light",
             "I need more light so I can see what I am doing"),
    "bin": ("I need to throw this wrapper away",
            "Where can I get rid of this rubbish"),
    "tv_stand": ("I want to watch the evening news",
                 "I'd like to watch the football match on a screen"),
    "armchair": ("I want to curl up somewhere cushioned with my coffee",
                 "Let me sink into something cushioned and read the paper"),
    "coffee_table": ("I need somewhere low to set my mug down while I sit",
                     "Let me put these magazines down within reach of the couch"),
    "nightstand": ("I need to put my alarm clock within reach of my pillow",
                   "Where can I leave my reading glasses overnight"),
    "wardrobe": ("I need to hang up my coat",
                 "I want to put my shirts on hangers"),
    "stool": ("I need something to stand on to reach up high",
              "I just want to perch for a minute"),
    "counter": ("I need to chop these vegetables",
                "Where can I knead this bread dough"),
    "fridge": ("I need to keep this milk cold",
               "Let me put the leftovers away"),
}

# The resolver's own reading: keyword phrase -> category (word-boundary matches).
INTENT_KEYWORDS: dict[str, str] = {
    "seat for one": "chair", "tie my shoes": "chair",
    "lounge": "sofa",
    "nap": "bed", "sleep": "bed",
    "dinner tray": "table", "dinner plates": "table",
    "laptop": "desk", "write this letter": "desk",
    "behind closed doors": "cabinet",
    "books": "shelf", "book back": "shelf",
    "water something": "plant", "watering": "plant", "leaves": "plant",
    "pack": "box",
    "more light": "lamp", "lamp": "lamp",
    "throw this wrapper away": "bin", "throw": "bin", "rubbish": "bin", "trash": "bin",
    "watch": "tv_stand", "screen": "tv_stand",
    "curl up": "armchair", "cushioned": "armchair",
    "set my mug": "coffee_table", "magazines": "coffee_table",
    "alarm clock": "nightstand", "reading glasses": "nightstand",
    "hang up my coat": "wardrobe", "hangers": "wardrobe",
    "stand on": "stool", "perch": "stool",
    "chop": "counter", "knead": "counter",
    "milk cold": "fridge", "leftovers": "fridge",
}

NOUNS: dict[str, str] = {"tv": "TV", "tv_stand": "TV stand"}  # category -> display noun where it differs

CUE_SEP = "; take me to the "


def noun_of(category: str) -> str:
    return NOUNS.get(category, category.replace("_", " "))


# ---------------------------------------------------------------------------- resolver side
def _norm(text: str) -> str:
    t = text.strip().lower()
    t = re.sub(r"[“”\"'.!?,]+$", "", t)
    t = re.sub(r"^[“”\"']+", "", t)
    return re.sub(r"\s+", " ", t).strip()


def _noun_table(objs: list[dict]) -> dict[str, str]:
    """lower-case noun -> category, for every category in view plus the lexicon."""
    out = {noun_of(c).lower(): c for c in INTENTS}
    for o in objs:
        out[noun_of(str(o["category"])).lower()] = str(o["category"])
    return out


def _parse_mods(words: list[str]) -> tuple[str | None, str | None] | None:
    """(size, colour) from the modifier words; None if a size word is not first."""
    size = None
    if words and words[0] in SIZE_WORDS:
        size, words = words[0], words[1:]
    if any(w in SIZE_WORDS for w in words):
        return None
    return size, (" ".join(words) if words else None)


def _fits(o: dict, category: str, size: str | None, colour: str | None) -> bool:
    return (str(o["category"]) == category
            and (size is None or str(o.get("size_word") or "").lower() == size)
            and (colour is None or str(o.get("color") or "").lower() == colour))


def _split_noun_phrase(phrase: str, nouns: dict[str, str]) -> tuple[list[str], str] | None:
    """'small red chair' -> (['small','red'], 'chair'): the noun must end the phrase."""
    phrase = re.sub(r"^the ", "", phrase.strip())
    for noun in sorted(nouns, key=len, reverse=True):
        if phrase == noun:
            return [], nouns[noun]
        if phrase.endswith(" " + noun):
            return phrase[: -len(noun) - 1].split(), nouns[noun]
    return None


def _anchor(phrase: str, objs: list[dict]) -> dict | None:
    """The one visible object an anchor phrase ('the bed', 'the blue sofa') names."""
    split = _split_noun_phrase(phrase, _noun_table(objs))
    if split is None:
        return None
    mods = _parse_mods(split[0])
    if mods is None:
        return None
    hits = [o for o in objs if _fits(o, split[1], *mods)]
    return hits[0] if len(hits) == 1 else None


def _xy_dist(a: dict, b: dict) -> float:
    ca, cb = a.get("centre_xy"), b.get("centre_xy")
    if ca is None or cb is None:
        return math.inf
    return math.hypot(float(ca[0]) - float(cb[0]), float(ca[1]) - float(cb[1]))


def _apply_suffix(cands: list[dict], suffix: str, objs: list[dict], me: str) -> list[dict] | None:
    """Filter candidates by a distance or relation clause; None if the clause is not grammatical."""
    if suffix in (f"nearest to {me}", f"closest to {me}", f"farthest from {me}"):
        if any(o.get("distance_m") is None for o in cands):
            return []
        if not cands:
            return []
        d = [float(o["distance_m"]) for o in cands]
        if suffix.startswith("farthest"):
            best = max(d)
            return [o for o, x in zip(cands, d) if x > best - DISTANCE_MARGIN_M]
        best = min(d)
        return [o for o, x in zip(cands, d) if x < best + DISTANCE_MARGIN_M]
    m = re.fullmatch(r"next to (.+)", suffix)
    if m:
        anchor = _anchor(m.group(1), objs)
        if anchor is None:
            return []
        return [o for o in cands if o["object_id"] != anchor["object_id"] and _xy_dist(o, anchor) <= NEXT_TO_M]
    return None


_SUFFIX_RE = r"(nearest to {me}|closest to {me}|farthest from {me}|next to the .+)"


def resolve_explicit(text: str, visible_objects: list[dict]) -> list[int]:
    """Every visible object an explicit target phrase fits (sorted ids); [] if none or unparseable."""
    t = _norm(text)
    t = re.sub(r"^the ", "", t)
    nouns = _noun_table(visible_objects)
    head, suffix = t, None
    m = re.fullmatch(r"(.+?) " + _SUFFIX_RE.format(me="you"), t)
    if m:
        head, suffix = m.group(1), m.group(2)
    split = _split_noun_phrase(head, nouns)
    if split is None:
        return []
    mods = _parse_mods(split[0])
    if mods is None:
        return []
    cands = [o for o in visible_objects if _fits(o, split[1], *mods)]
    if suffix is not None:
        cands = _apply_suffix(cands, suffix, visible_objects, "you")
        if cands is None:
            return []
    return sorted(int(o["object_id"]) for o in cands)


# Word-boundary patterns of INTENT_KEYWORDS, compiled once: intent_request resolves every candidate
# phrase, so the request is matched against the lexicon thousands of times per view set.
_KEYWORD_PATTERNS = tuple((re.compile(r"\b" + re.escape(kw) + r"\b"), cat) for kw, cat in INTENT_KEYWORDS.items())


def intent_category(request: str) -> str | None:
    """The single category the request part implies through INTENT_KEYWORDS, else None."""
    t = _norm(request)
    hits = {cat for pattern, cat in _KEYWORD_PATTERNS if pattern.search(t)}
    return hits.pop() if len(hits) == 1 else None


def resolve_intent(text: str, visible_objects: list[dict]) -> list[int]:
    """Every visible object an intent request fits: implied category, then the cue clause."""
    t = _norm(text)
    sep = CUE_SEP.strip().lower()
    if sep not in t:
        return []
    request, cue = t.split(sep, 1)
    category = intent_category(request)
    if category is None:
        return []
    cue = cue.strip()
    m = re.fullmatch(r"(?:(.*) )?one(?: (.+))?", cue)
    if m is None:
        return []
    mods = _parse_mods((m.group(1) or "").split())
    if mods is None:
        return []
    cands = [o for o in visible_objects if _fits(o, category, *mods)]
    if m.group(2):
        if not re.fullmatch(_SUFFIX_RE.format(me="me"), m.group(2)):
            return []
        cands = _apply_suffix(cands, m.group(2), visible_objects, "me")
        if cands is None:
            return []
    return sorted(int(o["object_id"]) for o in cands)


# --------------------------------------------------------------------------- generator side
def _target(target_id: int, objs: list[dict]) -> dict:
    for o in objs:
        if int(o["object_id"]) == int(target_id):
            return o
    raise ValueError(f"target {target_id} is not among the {len(objs)} visible objects")


def _anchor_phrases(target: dict, objs: list[dict]) -> list[str]:
    """'the bed', 'the blue sofa': anchors within NEXT_TO_M that their phrase names uniquely."""
    out = []
    for o in sorted(objs, key=lambda o: (_xy_dist(target, o), int(o["object_id"]))):
        if o["object_id"] == target["object_id"] or o["category"] == target["category"]:
            continue
        if _xy_dist(target, o) > NEXT_TO_M:
            continue
        noun = noun_of(str(o["category"]))
        for phrase in (f"the {noun}", f"the {o.get('color')} {noun}" if o.get("color") else None):
            if phrase and phrase not in out and _anchor(phrase, objs) is o:
                out.append(phrase)
                break
    return out


def _modifier_sets(t: dict) -> list[tuple[str, ...]]:
    colour = str(t.get("color") or "").lower()
    size = str(t.get("size_word") or "").lower()
    sets: list[tuple[str, ...]] = [()]
    if colour:
        sets.append((colour,))
    if size in SIZE_WORDS:
        sets.append((size,))
        if colour:
            sets.append((size, colour))
    return sets


def explicit_candidates(target_id: int, visible_objects: list[dict]) -> list[str]:
    """Candidate phrases, simplest first: attributes alone (none, colour, size, both), then
    with a distance clause, then with a relation clause; shorter first within a tier."""
    t = _target(target_id, visible_objects)
    noun = noun_of(str(t["category"]))
    suffixes = [("", 0), (" nearest to you", 1), (" farthest from you", 1)]
    suffixes += [(f" next to {a}", 2) for a in _anchor_phrases(t, visible_objects)]
    cands = []
    for mods in _modifier_sets(t):
        for suf, kind in suffixes:
            text = " ".join((*mods, noun)) + suf
            cands.append((kind > 0, len(mods), kind, len(text), text))
    return [c[-1] for c in sorted(cands)]


def explicit_target_text(target_id: int, visible_objects: list[dict]) -> str | None:
    """The simplest phrase that `resolve_explicit` maps to exactly [target_id]; None if none does."""
    for text in explicit_candidates(target_id, visible_objects):
        if resolve_explicit(text, visible_objects) == [int(target_id)]:
            return text
    return None


def intent_request(target_id: int, visible_objects: list[dict], rng: np.random.Generator
                   ) -> tuple[str, list[str]] | None:
    """(request, cues): a category-implying request plus at least one visual cue, resolved
    uniquely by `resolve_intent`; the rng picks the request wording and which unique cue."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError("intent_request needs an explicit numpy Generator")
    t = _target(target_id, visible_objects)
    category = str(t["category"])
    if category not in INTENTS:
        return None
    templates = INTENTS[category]
    request = templates[int(rng.integers(len(templates)))]
    options: list[tuple[str, list[str]]] = []
    for mods in _modifier_sets(t):
        cues = [f"{'size' if m in SIZE_WORDS else 'colour'}:{m}" for m in mods]
        suffixes = [("", [])] if mods else []
        suffixes += [(" nearest to me", ["distance:nearest"]), (" farthest from me", ["distance:farthest"])]
        suffixes += [(f" next to {a}", [f"relation:next to {a[4:]}"]) for a in _anchor_phrases(t, visible_objects)]
        for suf, extra in suffixes:
            cue = " ".join((*mods, "one")) + suf
            text = request + CUE_SEP + cue
            if resolve_intent(text, visible_objects) == [int(target_id)]:
                options.append((text, cues + extra))
    if not options:
        return None
    fewest = min(len(c) for _, c in options)
    simplest = [o for o in options if len(o[1]) == fewest]
    return simplest[int(rng.integers(len(simplest)))]
