"""Pinned thresholds and grammar of scorers/egopath_language.py with literal distances (0.5 m
nearest/farthest margin, 1.2 m next-to radius), not the module's own constants."""
from __future__ import annotations

import numpy as np
import pytest

from scorers import egopath_language as el


def obj(i, cat, colour="red", size="", dist=2.0, xy=(0.0, 0.0)):
    return {"object_id": i, "name": f"{cat}_{i}", "category": cat, "color": colour, "size_word": size,
            "distance_m": dist, "bbox_px": [0, 0, 9, 9], "centre_xy": list(xy)}


def test_constants():
    assert el.DISTANCE_MARGIN_M == 0.5 and el.NEXT_TO_M == 1.2 and el.SIZE_WORDS == ("small", "large")
    assert el.CUE_SEP == "; take me to the "


@pytest.mark.parametrize("other,unique", [(2.51, True), (2.49, False), (3.0, True)])
def test_nearest_margin_literal(other, unique):
    objs = [obj(1, "chair", dist=2.0), obj(2, "chair", dist=other)]
    got = el.resolve_explicit("the chair nearest to you", objs)
    assert got == ([1] if unique else [1, 2])
    assert el.resolve_explicit("chair closest to you", objs) == got


@pytest.mark.parametrize("other,unique", [(3.49, True), (3.51, False)])
def test_farthest_margin_literal(other, unique):
    objs = [obj(1, "chair", dist=4.0), obj(2, "chair", dist=other)]
    assert el.resolve_explicit("chair farthest from you", objs) == ([1] if unique else [1, 2])


def test_distance_cue_needs_every_distance():
    objs = [obj(1, "chair", dist=2.0), obj(2, "chair", dist=None)]
    assert el.resolve_explicit("chair nearest to you", objs) == []
    assert el.resolve_explicit("sofa nearest to you", objs) == []


@pytest.mark.parametrize("dx,near", [(1.2, True), (1.19, True), (1.21, False)])
def test_next_to_radius_literal(dx, near):
    objs = [obj(1, "chair", xy=(0.0, 0.0)), obj(2, "chair", xy=(0.0, 5.0)), obj(3, "bed", xy=(dx, 0.0))]
    assert el.resolve_explicit("chair next to the bed", objs) == ([1] if near else [])


def test_next_to_uses_floor_plane_distance_and_unique_anchor():
    objs = [obj(1, "chair", xy=(0.0, 0.0)), obj(2, "bed", "blue", xy=(0.72, 0.96)), obj(3, "bed", "white", xy=(9, 9))]
    assert el.resolve_explicit("chair next to the blue bed", objs) == [1]     # hypot(.72, .96) = 1.2
    assert el.resolve_explicit("chair next to the bed", objs) == []            # two beds: anchor ambiguous
    assert el.resolve_explicit("chair next to the green bed", objs) == []
    no_xy = [obj(1, "chair"), {**obj(2, "bed"), "centre_xy": None}]
    assert el.resolve_explicit("chair next to the bed", no_xy) == []


def test_modifiers_size_first_and_colours():
    objs = [obj(1, "chair", "light grey", "small"), obj(2, "chair", "light grey", "large"), obj(3, "chair", "red")]
    assert el.resolve_explicit("the small light grey chair", objs) == [1]
    assert el.resolve_explicit("light grey small chair", objs) == []          # size must come first
    assert el.resolve_explicit("light grey chair", objs) == [1, 2]
    assert el.resolve_explicit("large chair", objs) == [2]
    assert el.resolve_explicit("The Red Chair.", objs) == [3]
    assert el.resolve_explicit('"red chair!"', objs) == [3]
    assert el.resolve_explicit("red   chair", objs) == [3]
    assert el.resolve_explicit("red", objs) == []
    assert el.resolve_explicit("chair", objs) == [1, 2, 3]


def test_nouns():
    assert el.noun_of("tv_stand") == "TV stand" and el.noun_of("tv") == "TV"
    assert el.noun_of("coffee_table") == "coffee table" and el.noun_of("chair") == "chair"
    objs = [obj(1, "coffee_table"), obj(2, "table")]
    assert el.resolve_explicit("coffee table", objs) == [1]
    assert el.resolve_explicit("table", objs) == [2]
    assert el.resolve_explicit("the TV stand", [obj(4, "tv_stand")]) == [4]


def test_intent_category_and_resolution():
    assert el.intent_category("I need to throw this wrapper away") == "bin"
    assert el.intent_category("I want to nap and watch TV") is None            # two categories
    assert el.intent_category("books") == "shelf"
    assert el.intent_category("bookshelf") is None                              # word boundaries
    assert el.intent_category("nothing here") is None
    objs = [obj(1, "bed", "blue", dist=2.0), obj(2, "bed", "white", dist=2.6, xy=(5.0, 5.0)), obj(3, "lamp", xy=(0.5, 0.0))]
    req = "I'm exhausted and want to take a nap"
    assert el.resolve_intent(req + "; take me to the one", objs) == [1, 2]
    assert el.resolve_intent(req + "; take me to the blue one", objs) == [1]
    assert el.resolve_intent(req + "; take me to the one nearest to me", objs) == [1]
    assert el.resolve_intent(req + "; take me to the one farthest from me", objs) == [2]
    assert el.resolve_intent(req + "; take me to the one next to the lamp", objs) == [1]
    assert el.resolve_intent(req + "; take me to the one nearest to you", objs) == []
    assert el.resolve_intent(req + "; take me to the one behind the lamp", objs) == []
    assert el.resolve_intent(req + "; take me to the thing", objs) == []
    assert el.resolve_intent(req + "; take me to the blue small one", objs) == []
    assert el.resolve_intent(req, objs) == []
    assert el.resolve_intent("Hello; take me to the one", objs) == []


def test_generators_pick_simplest_unique_phrase():
    objs = [obj(1, "chair", "red", "small", 2.0, (0, 0)), obj(2, "chair", "red", "large", 2.2, (5, 5)),
            obj(3, "bed", "blue", "", 3.0, (1.0, 0.0))]
    assert el.explicit_target_text(3, objs) == "bed"
    assert el.explicit_target_text(1, objs) == "small chair"
    cands = el.explicit_candidates(1, objs)
    assert cands[:4] == ["chair", "red chair", "small chair", "small red chair"]
    assert "chair next to the bed" in cands and cands.index("chair nearest to you") < cands.index(
        "chair next to the bed")
    twins = [obj(1, "chair"), obj(2, "chair")]
    assert el.explicit_target_text(1, twins) is None
    with pytest.raises(ValueError):
        el.explicit_target_text(9, twins)


def test_intent_request_choices():
    objs = [obj(1, "bed", "blue", dist=2.0), obj(2, "bed", "white", dist=4.0)]
    text, cues = el.intent_request(1, objs, np.random.default_rng(0))
    assert cues == ["colour:blue"] or cues == ["distance:nearest"]
    assert text.split("; take me to the ")[0] in el.INTENTS["bed"]
    assert el.resolve_intent(text, objs) == [1]
    alone = [obj(1, "bed")]
    t2, c2 = el.intent_request(1, alone, np.random.default_rng(0))
    assert len(c2) == 1 and el.resolve_intent(t2, alone) == [1]
    assert el.intent_request(1, [obj(1, "tv")], np.random.default_rng(0)) is None
    assert el.intent_request(1, [obj(1, "bed"), obj(2, "bed", dist=2.2)], np.random.default_rng(0)) is None
    with pytest.raises(TypeError):
        el.intent_request(1, objs, 0)


def test_every_request_implies_exactly_its_category():
    # the generator's wording and the resolver's lexicon must agree for every template, and the
    # lexicon must not name a category that has no request
    for category, templates in el.INTENTS.items():
        assert len(templates) == 2
        for t in templates:
            assert el.intent_category(t) == category, t
            assert el.intent_category(t + "; take me to the one") == category
    assert set(el.INTENT_KEYWORDS.values()) == set(el.INTENTS)
    assert len(el.INTENTS) == 19


def test_lexicon_is_frozen():
    # intent questions quote INTENTS word for word and are accepted through INTENT_KEYWORDS: any edit
    # changes released question text (a new dataset version), so it must be a deliberate change here
    import hashlib
    import json
    blob = json.dumps([el.INTENTS, el.INTENT_KEYWORDS, el.NOUNS]).encode()
    assert hashlib.sha256(blob).hexdigest() == "3adc64f16cecf17b07750eafe68cb679b6bbe71fdeaea726c189f2b45d32f0fd"


@pytest.mark.parametrize("text,want", [
    ("  The   red chair?  ", [3]), ("“red chair”", [3]), ("'red chair'", [3]), ("red chair,", [3]),
    ("red chair. extra", []), ("blue chair red", []),
])
def test_normalisation_strips_quotes_case_and_trailing_punctuation(text, want):
    objs = [obj(1, "chair", "blue"), obj(3, "chair", "red")]
    assert el.resolve_explicit(text, objs) == want


def test_explicit_candidates_in_full_order():
    """Tiers: no clause first (by modifier count), then clauses by modifier count; within a tier
    distance clauses (kind 1) before relation clauses (kind 2), then shorter text first:
    ' nearest to you' (15 chars) before ' farthest from you' (18) before any ' next to ...'."""
    objs = [obj(1, "chair", "red", "small", 2.0, (0, 0)), obj(2, "chair", "red", "large", 2.2, (5, 5)),
            obj(3, "bed", "blue", "", 3.0, (1.0, 0.0))]
    assert el.explicit_candidates(1, objs) == [
        "chair", "red chair", "small chair", "small red chair",
        "chair nearest to you", "chair farthest from you", "chair next to the bed",
        "red chair nearest to you", "small chair nearest to you", "red chair farthest from you",
        "small chair farthest from you", "red chair next to the bed", "small chair next to the bed",
        "small red chair nearest to you", "small red chair farthest from you", "small red chair next to the bed"]


def test_whitespace_inside_a_clause_is_collapsed():
    objs = [obj(1, "chair", dist=2.0), obj(2, "chair", dist=3.0)]
    assert el.resolve_explicit("chair nearest  to you", objs) == [1]
    assert el.resolve_explicit("chair\tfarthest from\nyou", objs) == [2]


def test_a_leading_article_is_dropped_before_and_after_the_clause_split():
    objs = [obj(1, "chair", "blue"), obj(3, "chair", "red")]
    assert el.resolve_explicit("The the red chair", objs) == [3]
    assert el.resolve_explicit("THE red chair", objs) == [3]


def test_nouns_come_from_the_lexicon_and_from_the_view():
    """A lexicon noun is read as its category even when none is visible: 'coffee table' is never a
    coffee-coloured table. A category outside the lexicon is a noun when an object of it is in view."""
    assert el.resolve_explicit("coffee table", [obj(1, "table", "coffee")]) == []
    assert el.resolve_explicit("coffee table", [obj(1, "table", "coffee"), obj(2, "coffee_table")]) == [2]
    assert "painting" not in el.INTENTS and "tv" not in el.INTENTS
    assert el.resolve_explicit("red painting", [obj(1, "painting"), obj(2, "chair")]) == [1]
    assert el.resolve_explicit("the TV", [obj(4, "tv")]) == [4]
    assert el.resolve_explicit("the painting", [obj(2, "chair")]) == []


def test_next_to_measures_between_the_two_centres():
    """Centres (1.0, 4.0) and (1.6, 4.8): hypot(0.6, 0.8) = 1.0 m, inside 1.2 m; neither centre at the origin."""
    objs = [obj(1, "chair", xy=(1.0, 4.0)), obj(2, "chair", xy=(-3.0, -3.0)), obj(3, "bed", xy=(1.6, 4.8))]
    assert el.resolve_explicit("chair next to the bed", objs) == [1]
    assert el.resolve_explicit("bed next to the chair", [objs[0], objs[2]]) == [3]


@pytest.mark.parametrize("suffix,target,other", [("nearest to you", 2.0, 2.5), ("farthest from you", 4.0, 3.5)])
def test_distance_margin_is_inclusive_at_exactly_half_a_metre(suffix, target, other):
    """'nearest' / 'farthest' need the runner-up at least 0.5 m farther / nearer: exactly 0.5 m is enough."""
    objs = [obj(1, "chair", dist=target), obj(2, "chair", dist=other)]
    assert el.resolve_explicit(f"chair {suffix}", objs) == [1]


def test_two_cue_clauses_are_unparseable_not_an_error():
    objs = [obj(1, "chair", "red"), obj(2, "chair", "blue")]
    req = "I need a seat for one person"
    assert el.resolve_intent(f"{req}; take me to the red one", objs) == [1]
    assert el.resolve_intent(f"{req}; take me to the red one; take me to the blue one", objs) == []
    assert el.resolve_intent(f"{req}; take me to the one; take me to the one; take me to the one", objs) == []


def test_an_unknown_target_is_named_in_the_error():
    with pytest.raises(ValueError, match=r"^target 9 is not among the 2 visible objects$"):
        el.explicit_candidates(9, [obj(1, "chair"), obj(2, "bed")])
    with pytest.raises(ValueError, match=r"^target 9 is not among the 1 visible objects$"):
        el.intent_request(9, [obj(1, "chair")], np.random.default_rng(0))


def test_anchor_named_by_its_colour_when_its_noun_is_ambiguous():
    """Two beds within 1.2 m of chair 1 (1.0 m and 1.1 m): 'the bed' names neither, so each anchor
    is named with its colour; chair 2 is far from both, so the relation names chair 1 alone."""
    objs = [obj(1, "chair", xy=(0.0, 0.0)), obj(2, "chair", xy=(5.0, 5.0)),
            obj(3, "bed", "blue", xy=(1.0, 0.0)), obj(4, "bed", "white", xy=(0.0, 1.1))]
    cands = el.explicit_candidates(1, objs)
    assert [c for c in cands if " next to " in c] == ["chair next to the blue bed", "chair next to the white bed",
                                                       "red chair next to the blue bed",
                                                       "red chair next to the white bed"]
    assert el.explicit_target_text(1, objs) == "chair next to the blue bed"


def test_anchor_at_exactly_the_next_to_radius_counts():
    objs = [obj(1, "chair", xy=(0.0, 0.0)), obj(2, "chair", xy=(5.0, 5.0)), obj(3, "bed", xy=(1.2, 0.0))]
    assert el.explicit_target_text(1, objs) == "chair next to the bed"
    objs[2] = obj(3, "bed", xy=(1.21, 0.0))
    assert el.explicit_target_text(1, objs) is None


def test_a_colourless_target_gets_no_colour_phrases():
    objs = [{**obj(1, "chair", dist=2.0), "color": None}, obj(2, "chair", "red", dist=3.0)]
    assert el.explicit_candidates(1, objs) == ["chair", "chair nearest to you", "chair farthest from you"]
    assert el.explicit_target_text(1, objs) == "chair nearest to you"
    assert el.explicit_target_text(2, objs) == "red chair"


BED_REQUEST = "I need to lie down and sleep for the night"     # INTENTS["bed"][1]: default_rng(0).integers(2) == 1


@pytest.mark.parametrize("objs,target,cue,cues", [
    # only the colour tells the beds apart (same distance, 7 m apart)
    ([obj(1, "bed", "blue", xy=(0, 0)), obj(2, "bed", "white", xy=(5, 5))], 1, "blue one", ["colour:blue"]),
    # only the size word does
    ([obj(1, "bed", "blue", "small", xy=(0, 0)), obj(2, "bed", "blue", "large", xy=(5, 5))], 1, "small one",
     ["size:small"]),
    # only the distance does (2 m and 4 m from the camera)
    ([obj(1, "bed", "blue", dist=2.0), obj(2, "bed", "blue", dist=4.0, xy=(5, 5))], 1, "one nearest to me",
     ["distance:nearest"]),
    ([obj(1, "bed", "blue", dist=2.0), obj(2, "bed", "blue", dist=4.0, xy=(5, 5))], 2, "one farthest from me",
     ["distance:farthest"]),
    # only the lamp 0.5 m away does
    ([obj(1, "bed", "blue"), obj(2, "bed", "blue", xy=(5, 5)), obj(3, "lamp", xy=(0.5, 0))], 1,
     "one next to the lamp", ["relation:next to lamp"]),
])
def test_intent_request_text_and_cues_in_full(objs, target, cue, cues):
    text, got = el.intent_request(target, objs, np.random.default_rng(0))
    assert (text, got) == (f"{BED_REQUEST}; take me to the {cue}", cues)


def test_intent_request_wants_a_generator_in_words():
    with pytest.raises(TypeError, match=r"^intent_request needs an explicit numpy Generator$"):
        el.intent_request(1, [obj(1, "bed")], 0)
