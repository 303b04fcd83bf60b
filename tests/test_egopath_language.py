"""EgoPathBench target language: generated phrases resolve uniquely, and the choices agree
with independent, hand-written computations of what makes an object unique."""
from __future__ import annotations

import numpy as np
import pytest

from scorers.egopath_language import (DISTANCE_MARGIN_M, INTENT_KEYWORDS, INTENTS, NEXT_TO_M,
                                      explicit_target_text, intent_category, intent_request,
                                      noun_of, resolve_explicit, resolve_intent)

CATS = ("chair", "table", "sofa", "bed", "cabinet", "shelf", "desk", "plant", "box", "lamp", "bin", "tv_stand")
COLOURS = ("red", "blue", "white", "black", "light grey")


def obj(i, cat, colour="red", size="", dist=2.0, xy=(0.0, 0.0)):
    return {"object_id": i, "name": f"{cat}_{i}", "category": cat, "color": colour, "size_word": size,
            "room": "living room", "distance_m": dist, "bbox_px": [0, 0, 80, 80], "centre_xy": list(xy)}


def random_objects(rng, n_max=7):
    n = int(rng.integers(1, n_max + 1))
    cats = rng.choice(CATS[:5], size=n)          # few categories -> many same-category clashes
    return [obj(i + 1, str(c), str(rng.choice(COLOURS)), str(rng.choice(["", "small", "large"])),
                float(np.round(rng.uniform(0.8, 6.0), 2)),
                tuple(np.round(rng.uniform(-4, 4, size=2), 2))) for i, c in enumerate(cats)]


# -- independent oracles (direct counting, no parser) ------------------------------------------
def n_matching(objs, t, colour=False, size=False):
    return sum(1 for o in objs if o["category"] == t["category"]
               and (not colour or o["color"] == t["color"]) and (not size or o["size_word"] == t["size_word"]))


def attribute_unique(objs, t):
    """Some combination of colour / size names the target alone."""
    combos = [(False, False), (True, False)]
    if t["size_word"]:
        combos += [(False, True), (True, True)]
    return any(n_matching(objs, t, c, s) == 1 for c, s in combos)


def distance_unique(objs, t):
    """Nearest or farthest of some colour/size group of its category, by the margin."""
    combos = [(False, False), (True, False)] + ([(False, True), (True, True)] if t["size_word"] else [])
    for c, s in combos:
        group = [o for o in objs if o["category"] == t["category"] and (not c or o["color"] == t["color"])
                 and (not s or o["size_word"] == t["size_word"])]
        others = [o["distance_m"] for o in group if o is not t]
        if not others or min(others) >= t["distance_m"] + DISTANCE_MARGIN_M \
                or max(others) <= t["distance_m"] - DISTANCE_MARGIN_M:
            return True
    return False


# -- hand-built cases ----------------------------------------------------------------------------
def test_simplest_phrase_first():
    objs = [obj(1, "chair", "red"), obj(2, "chair", "blue"), obj(3, "bed", "white")]
    assert explicit_target_text(1, objs) == "red chair"
    assert explicit_target_text(3, objs) == "bed"
    objs = [obj(1, "chair", "red", "small"), obj(2, "chair", "red", "large"), obj(3, "chair", "blue", "small")]
    assert explicit_target_text(1, objs) == "small red chair"
    assert explicit_target_text(2, objs) == "large chair"
    assert resolve_explicit("small chair", objs) == [1, 3]


def test_distance_and_relation_cues():
    objs = [obj(1, "chair", dist=1.5, xy=(0, 0)), obj(2, "chair", dist=3.5, xy=(3, 0)),
            obj(3, "bed", "white", dist=3.0, xy=(3.5, 0.5))]
    assert explicit_target_text(1, objs) == "chair nearest to you"
    assert explicit_target_text(2, objs) == "chair farthest from you"
    assert resolve_explicit("chair next to the bed", objs) == [2]
    # distances within the margin: "nearest" is not a supported cue; the relation still is
    objs = [obj(1, "chair", dist=2.0, xy=(0, 0)), obj(2, "chair", dist=2.0 + DISTANCE_MARGIN_M / 2, xy=(3, 0)),
            obj(3, "bed", "white", dist=3.0, xy=(3, NEXT_TO_M / 2))]
    assert resolve_explicit("chair nearest to you", objs) == [1, 2]
    assert explicit_target_text(2, objs) == "chair next to the bed"
    assert explicit_target_text(1, objs) is None


def test_indistinguishable_twins_have_no_phrase():
    objs = [obj(1, "bin", "grey", dist=2.0, xy=(0, 0)), obj(2, "bin", "grey", dist=2.1, xy=(0.5, 0))]
    assert explicit_target_text(1, objs) is None
    assert intent_request(1, objs, np.random.default_rng(0)) is None


def test_resolver_rejects_unsupported_cues():
    objs = [obj(1, "chair", "red"), obj(2, "chair", "blue")]
    assert resolve_explicit("purple chair", objs) == []
    assert resolve_explicit("red chair in the kitchen", objs) == []
    assert resolve_explicit("red lamp", objs) == []
    assert resolve_explicit("red chair next to the sofa", objs) == []   # no sofa in view
    assert resolve_explicit("The red chair.", objs) == [1]
    assert resolve_intent("I need a seat for one person; take me to the red one", objs) == [1]
    assert resolve_intent("I need a seat for one person", objs) == []    # no cue clause
    assert resolve_intent("Please help; take me to the red one", objs) == []  # no category implied


def test_bad_input():
    with pytest.raises(ValueError):
        explicit_target_text(9, [obj(1, "chair")])
    with pytest.raises(TypeError):
        intent_request(1, [obj(1, "chair")], 0)


def test_intent_lexicon_implies_exactly_its_category():
    assert set(CATS) <= set(INTENTS)
    for cat, requests in INTENTS.items():
        assert len(requests) >= 2
        for r in requests:
            assert intent_category(r) == cat, r
            assert noun_of(cat).lower() not in r.lower().split(), f"{r!r} names its object"
    assert set(INTENT_KEYWORDS.values()) <= set(INTENTS)


def test_every_furniture_category_has_a_noun_and_intents():
    """The scene catalogue and the lexicon agree: every category a scene can draw gets a
    display noun and >= 2 requests that imply it alone and name no catalogue object."""
    import re

    from blender_envs.indoor.furniture import CATEGORIES

    nouns = {c: noun_of(c).lower() for c in CATEGORIES}
    assert noun_of("tv_stand") == "TV stand" and noun_of("coffee_table") == "coffee table"
    for cat in CATEGORIES:
        assert nouns[cat] and "_" not in nouns[cat], cat
        assert len(INTENTS.get(cat, ())) >= 2, cat
        for r in INTENTS[cat]:
            assert intent_category(r) == cat, r
            for other, noun in nouns.items():
                assert not re.search(r"\b" + re.escape(noun) + r"\b", r.lower()), (r, other)
    assert len(set(nouns.values())) == len(nouns)


def test_tv_stand_phrases_round_trip():
    objs = [obj(1, "tv_stand", "black"), obj(2, "sofa", "gray"), obj(3, "tv_stand", "white", dist=4.0)]
    assert explicit_target_text(1, objs) == "black TV stand"
    assert resolve_explicit("the black TV stand", objs) == [1]
    assert resolve_explicit("TV stand", objs) == [1, 3]
    req = intent_request(3, objs, np.random.default_rng(0))
    assert req is not None and resolve_intent(req[0], objs) == [3]
    assert intent_category(req[0].split(";")[0]) == "tv_stand"


# -- random object sets --------------------------------------------------------------------------
def test_explicit_random_sets_agree_with_oracles():
    rng = np.random.default_rng(1234)
    n_text = n_none = n_suffix = 0
    for _ in range(300):
        objs = random_objects(rng)
        for t in objs:
            text = explicit_target_text(t["object_id"], objs)
            if text is None:
                n_none += 1
                assert not attribute_unique(objs, t) and not distance_unique(objs, t)
                continue
            n_text += 1
            assert resolve_explicit(text, objs) == [t["object_id"]]
            assert text.endswith(noun_of(t["category"])) or " to" in text or " from " in text
            if n_matching(objs, t) == 1:
                assert text == noun_of(t["category"])
            if " to" not in text and " from " not in text:
                assert attribute_unique(objs, t)
            else:
                n_suffix += 1
                assert not attribute_unique(objs, t)       # a suffix only when attributes fail
    assert n_text > 500 and n_none > 5 and n_suffix > 20


def test_intent_random_sets():
    rng = np.random.default_rng(99)
    n_ok = 0
    kinds = set()
    for k in range(200):
        objs = random_objects(rng)
        for t in objs:
            got = intent_request(t["object_id"], objs, np.random.default_rng([k, t["object_id"]]))
            again = intent_request(t["object_id"], objs, np.random.default_rng([k, t["object_id"]]))
            assert got == again
            if got is None:
                assert not attribute_unique(objs, t) and not distance_unique(objs, t)
                continue
            text, cues = got
            n_ok += 1
            assert resolve_intent(text, objs) == [t["object_id"]]
            request = text.split("; take me to the ")[0]
            assert request in INTENTS[t["category"]]
            assert intent_category(request) == t["category"]
            assert cues and all(c.split(":")[0] in ("colour", "size", "distance", "relation") for c in cues)
            for c in cues:
                kind, word = c.split(":", 1)
                kinds.add(kind)
                if kind in ("colour", "size"):
                    assert f" {word} " in f" {text} "
            assert noun_of(t["category"]).lower() not in request.lower().split()
    assert n_ok > 300
    assert {"colour", "size", "distance"} <= kinds
