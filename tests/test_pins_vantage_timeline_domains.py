"""Pins of the four VANTAGE timeline task generators on the intersection (domain T) and the
entrance (domain S), and of the per-environment vocabulary (packagers/vantage_tasks/
timeline_vocab.py) that feeds them. No Blender: the specs are intersection-3's and
entrance-3's draws stored in tests/data/specs (stored_specs.py: the generators' later versions
redraw them), and their events come from `events(spec)`, worked out once at import (a mutation
run's forked test processes share them). Each expected value is worked out from the looks,
scripts and events listed here.

Drawn specs (streams "test_intersection" / "test_entrance", as the env tests):
  intersection s1 (dusk, fog): car_1 silver minivan (runs the red: crosses 11.176739 s, red from
     10.269107 s), car_2 gray crossover, car_3 gray wagon, car_4 white van, car_5 white sedan (car_4 and
     car_5 rear-end, 9.525346-16 s), bicycle_1 green frame, person_1 black shirt (jaywalks 5.702257-
     13.146176 s), person_2 blue shirt / blue trousers / black hair, person_3 white shirt / blue
     trousers, person_4 blue shirt / khaki trousers; no motorcycle
  intersection s2 (night, fog): car_1 gray hatchback + car_2 red pickup (rear-end 6.288305-16 s), car_3
     white SUV (near miss with person_1 beige shirt, 6.472891-7.193776 s, planned gap 0.582476 m),
     car_4 blue SUV, motorcycle_1 / motorcycle_2 white (red / yellow jackets), bicycle_1 green frame
     (near-negative wrong way on the sidewalk, lateral -5.963001 m), bicycle_2 blue, persons 2-6
  entrance s1 (day): person_1 beige coat (badges, 8.501573-12.227444 s), person_2 grey coat (tailgates
     person_1, 12.420883-13.245784 s), person_3 white shirt (near-negative loiterer, stay 7.521967 s)
  entrance s3 (dusk): three olive coats; person_1 blue trousers (leaves through the door), person_2 navy
     trousers (slips in behind the leaver, 12.387826-13.278842 s), person_3 black trousers (loiters
     10.070654-21.774304 s)
"""
from __future__ import annotations

import json

import pytest
from prompt_file_checks import assert_each_broken_prompt_file_fails

from blender_envs.infra import entrance, intersection
from formats.vantage_item import LETTERS
from geometry.events import Event
from packagers.vantage_tasks import dense_captioning as dc
from packagers.vantage_tasks import event_verification as ev
from packagers.vantage_tasks import temporal_localization as tl
from packagers.vantage_tasks import timeline_clip as tc
from packagers.vantage_tasks import timeline_vocab as tv
from packagers.vantage_tasks import video_qa as vq
from packagers.vantage_tasks.timeline_clip import Description, TimelineClip
from stored_specs import stored_entrance, stored_intersection

MODULES = {"intersection": intersection, "entrance": entrance}


def _draw(env: str, seed: int):
    spec = (stored_intersection if env == "intersection" else stored_entrance)(f"{env}_test_s{seed}")
    return spec, tuple(MODULES[env].events(spec))


DRAWN = {("intersection", 1): _draw("intersection", 1), ("intersection", 2): _draw("intersection", 2),
         ("entrance", 1): _draw("entrance", 1), ("entrance", 3): _draw("entrance", 3)}


class InView(TimelineClip):
    """A clip whose event actors count as in view at every shown frame: intersection s1's rear-end
    crash and red-light run and s2's near-miss car lie (mostly) outside the frame, and the pins
    below are about the generators' other rules (the drawn views:
    test_events_out_of_view_are_never_asked). Counting questions keep their own whole-box rule."""

    def shows_actors(self, event, t):
        return True

    def appears(self, track_id):
        return True


def clip(env: str, seed: int, events=None, spec=None) -> TimelineClip:
    """A drawn spec with the given events, else its drawn events (every one holds a shown frame),
    its actors taken as in view (InView)."""
    drawn, evs = DRAWN[(env, seed)]
    return InView(spec or drawn, evs if events is None else tuple(events), 320, 240)


def moved(env: str, seed: int, **windows) -> TimelineClip:
    """The drawn clip with the windows of the named event types moved (type=(t_start, t_end))."""
    spec, evs = DRAWN[(env, seed)]
    return InView(spec, tuple(e.model_copy(update=dict(zip(("t_start", "t_end"), windows[e.type])))
                              if e.type in windows else e for e in evs), 320, 240)


def E(kind: str, actors, a: float, b: float) -> Event:
    return Event(type=kind, actors=list(actors), t_start=a, t_end=b)


def with_looks(env: str, seed: int, **names):
    spec = DRAWN[(env, seed)][0]
    looks = dict(spec.looks)
    for tid, upd in names.items():
        looks[tid] = looks[tid].model_copy(update={"color_names": {**looks[tid].color_names, **upd}})
    return spec.model_copy(update={"looks": looks})


def only_agents(env: str, seed: int, keep: set[str]):
    spec = DRAWN[(env, seed)][0]
    agents = [a for a in spec.timeline.agents if a.track_id in keep]
    return spec.model_copy(update={"timeline": spec.timeline.model_copy(update={"agents": agents})})


# ------------------------------------------------------------------ vocabularies

def test_vocabularies_and_unknown_environments():
    assert list(tv.VOCABULARIES) == ["warehouse", "intersection", "entrance"]
    assert [v.domain for v in tv.VOCABULARIES.values()] == ["W", "T", "S"]
    assert tv.vocabulary("entrance") is tv.ENTRANCE and tv.vocabulary("intersection").spec_class is \
        intersection.IntersectionSpec
    msg = r"^no timeline-task vocabulary for environment 'garage' \(known: warehouse, intersection, entrance\)$"
    with pytest.raises(ValueError, match=msg):
        tv.vocabulary("garage")
    with pytest.raises(ValueError, match="environment None"):
        tv.vocabulary(None)
    with pytest.raises(ValueError, match=r"environment \['x'\]"):
        tv.vocabulary(["x"])                                             # unhashable: still one line
    spec = DRAWN[("entrance", 1)][0]
    with pytest.raises(ValueError, match=msg):
        TimelineClip(spec.model_copy(update={"env": "garage"}), (), 320, 240)
    with pytest.raises(ValueError, match=msg):
        TimelineClip.from_spec(spec.model_copy(update={"env": "garage"}), 320)
    with pytest.raises(ValueError, match=msg):
        TimelineClip.from_run("/nonexistent", "s1", "garage")
    with pytest.raises(ValueError, match=msg):
        tc.section("video_qa", "garage")
    # the intersection's collision shapes: every pair of road users with a vehicle in it, two cars first
    shapes = tv.INTERSECTION.signatures["collision"]
    assert shapes[0] == ("car", "car") and len(shapes) == 9 and ("person", "person") not in shapes
    assert set(shapes) == {("car", "car"), ("motorcycle", "car"), ("motorcycle", "motorcycle"), ("bicycle", "car"),
                           ("bicycle", "motorcycle"), ("bicycle", "bicycle"), ("person", "car"),
                           ("person", "motorcycle"), ("person", "bicycle")}
    assert tv.INTERSECTION.signatures["near_miss"] == (("person", "car"), ("person", "motorcycle"),
                                                      ("bicycle", "car"), ("bicycle", "motorcycle"))
    assert tv.ENTRANCE.palettes["top"] == ("beige", "black", "green", "grey", "light blue", "navy", "olive", "red",
                                          "white")
    assert tv.INTERSECTION.palettes["car"][:3] == ("beige", "black", "blue") and len(tv.INTERSECTION.palettes["car"]) == 10
    # the palette union itself (the vocabularies call it while the module loads, before a test runs)
    assert tv._names({"shirt": ("red", "navy"), "coat": ("navy", "beige"), "hat": ("pink",)}, "shirt", "coat") == \
        ("beige", "navy", "red")
    assert tv._names(entrance.PALETTES, "shirt", "coat") == tv.ENTRANCE.palettes["top"]


def test_event_shapes_are_checked_per_environment():
    spec = DRAWN[("intersection", 1)][0]
    ok = TimelineClip(spec, (E("near_miss", ["car_2", "person_3"], 1, 2), E("collision", ["car_1", "bicycle_1"], 2, 3),
                             E("wrong_way", ["car_2"], 3, 4)), 320, 240)
    assert len(ok.events) == 3 and ok.domain == "T"
    with pytest.raises(ValueError, match=r"intersection-s1: a collision event of \('person', 'person'\) has no "
                                         r"template \(templates assume \[\('car', 'car'\), "):
        TimelineClip(spec, (E("collision", ["person_1", "person_2"], 1, 2),), 320, 240)
    with pytest.raises(ValueError, match=r"a near_miss event of \('car', 'car'\) has no template"):
        TimelineClip(spec, (E("near_miss", ["car_1", "car_2"], 1, 2),), 320, 240)
    with pytest.raises(ValueError, match=r"a jaywalking event of \('car',\) has no template \(templates assume "
                                         r"\('person',\)\)"):
        TimelineClip(spec, (E("jaywalking", ["car_1"], 1, 2),), 320, 240)
    with pytest.raises(ValueError, match=r"a fall event of \('person',\) has no template \(templates assume None\)"):
        TimelineClip(spec, (E("fall", ["person_1"], 1, 2),), 320, 240)     # a warehouse type
    espec = DRAWN[("entrance", 1)][0]
    assert clip("entrance", 1).domain == "S"
    with pytest.raises(ValueError, match=r"a tailgating event of \('person',\) has no template"):
        TimelineClip(espec, (E("tailgating", ["person_2"], 1, 2),), 320, 240)
    with pytest.raises(ValueError, match=r"a near_miss event of .* \(templates assume None\)"):
        TimelineClip(espec, (E("near_miss", ["person_2"], 1, 2),), 320, 240)


# ------------------------------------------------------------------ descriptions

def test_intersection_descriptions():
    c = clip("intersection", 1)
    got = {t: c.describe(t) for t in ("car_1", "car_2", "car_4", "bicycle_1", "person_1", "person_2", "person_4")}
    assert got["car_1"] == Description("the silver car", frozenset({"car_1"}))
    # two gray cars and two white ones: paint and body style together
    assert got["car_2"] == Description("the gray crossover", frozenset({"car_2"}))
    assert got["car_4"].text == "the white van"
    assert got["bicycle_1"].text == "the cyclist on the green bicycle"
    assert got["person_1"].text == "the pedestrian in the black shirt"
    assert got["person_4"].text == "the pedestrian in khaki trousers"
    # person_2: blue shirt (person_4 too), blue trousers (person_3 too), black hair (persons 1, 3 too)
    assert got["person_2"] == Description("a pedestrian", frozenset({"person_1", "person_2", "person_3", "person_4"}))
    c = clip("intersection", 1, spec=with_looks("intersection", 1, person_2={"hair": "grey"}))
    assert c.describe("person_2").text == "the pedestrian with grey hair"
    c = clip("intersection", 1, spec=with_looks("intersection", 1, car_2={"style": "wagon"}))
    assert c.describe("car_2") == Description("a car", frozenset({f"car_{k}" for k in range(1, 6)}))
    assert c.describe("car_3") == c.describe("car_2")
    c2 = clip("intersection", 2)
    assert c2.describe("car_3").text == "the white car" and c2.describe("car_1").text == "the gray car"
    assert c2.describe("motorcycle_1").text == "the motorcyclist in the red jacket"        # both are white
    c = clip("intersection", 2, spec=with_looks("intersection", 2, motorcycle_2={"paint": "black"}))
    assert c.describe("motorcycle_2").text == "the black motorcycle"
    c = clip("intersection", 2, spec=with_looks("intersection", 2, motorcycle_2={"jacket": "red"}))
    assert c.describe("motorcycle_2") == Description("a motorcycle", frozenset({"motorcycle_1", "motorcycle_2"}))
    c = clip("intersection", 2, spec=with_looks("intersection", 2, bicycle_2={"frame": "green"}))
    assert c.describe("bicycle_2").text == "the cyclist in the blue shirt"
    c = clip("intersection", 2, spec=with_looks("intersection", 2, bicycle_2={"frame": "green", "shirt": "grey",
                                                                               "helmet": "white"}))
    assert c.describe("bicycle_2").text == "the cyclist in the white helmet"
    assert c2.generic("bicycle") == Description("a cyclist", frozenset({"bicycle_1", "bicycle_2"}))


def test_entrance_descriptions_read_the_garment_from_the_params():
    c = clip("entrance", 1)
    assert c.color("person_1", "param:top") == "coat" and c.color("person_3", "param:top") == "shirt"
    assert c.color("person_1", "param:none") is None and c.color("person_1", "top") == "beige"
    assert c.describe("person_1") == Description("the person in the beige coat", frozenset({"person_1"}))
    assert c.describe("person_3").text == "the person in the white shirt"
    # a grey shirt is not a grey coat
    c = clip("entrance", 1, spec=with_looks("entrance", 1, person_3={"top": "grey"}))
    assert c.describe("person_3").text == "the person in the grey shirt"
    assert c.describe("person_2").text == "the person in the grey coat"
    c3 = clip("entrance", 3)                                    # three olive coats: the trousers
    assert [c3.describe(f"person_{k}").text for k in (1, 2, 3)] == [
        "the person in blue trousers", "the person in navy trousers", "the person in black trousers"]
    c = clip("entrance", 3, spec=with_looks("entrance", 3, person_3={"trousers": "navy"}))
    assert c.describe("person_3").text == "the person with the red backpack"
    assert c.describe("person_2").text == "the person with brown hair"
    c = clip("entrance", 3, spec=with_looks("entrance", 3, person_3={"trousers": "navy", "backpack": "black",
                                                                     "hair": "brown"}))
    assert c.describe("person_2") == Description("a person", frozenset({"person_1", "person_2", "person_3"}))
    assert c.describe("person_1").text == "the person in blue trousers"


# ------------------------------------------------------------------ slots and matching

def test_slots_keep_a_positional_events_order():
    c = clip("entrance", 1)
    beige, grey = frozenset({"person_1"}), frozenset({"person_2"})
    assert tc.slots("tailgating", c, ["person_1", "person_2"]) == (
        {"first": "the person in the beige coat", "tailgater": "the person in the grey coat"}, [beige, grey])
    assert tc.slots("tailgating", c, ["person_2", "person_1"])[1] == [grey, beige]
    everyone = frozenset({"person_1", "person_2", "person_3"})
    assert tc.slots("tailgating", c, ["person_1", "person_2"], generic=True) == (
        {"first": "a person", "tailgater": "a person"}, [everyone, everyone])
    e = E("tailgating", ["person_1", "person_2"], 1, 2)
    assert tc.event_matches(c, e, "tailgating", [beige, grey])
    assert not tc.event_matches(c, e, "tailgating", [grey, beige])        # person_2 did not go first
    assert tc.matches(e, "tailgating", [grey, beige])                      # (any order: the warehouse's rule)
    assert not tc.matches(e, "tailgating", [grey, beige], positional=True)
    assert tc.matches(e, "tailgating", [everyone, everyone], positional=True)
    assert not tc.event_matches(c, e, "badge_use", [beige])
    assert not tc.matches(E("tailgating", ["person_1"], 1, 2), "tailgating", [beige, grey], positional=True)
    with pytest.raises(ValueError, match=r"a tailgating event needs 2 mover\(s\), got \['person_1'\]"):
        tc.slots("tailgating", c, ["person_1"])
    with pytest.raises(ValueError, match=r"a fall event needs 0 mover\(s\)"):
        tc.slots("fall", c, ["person_1"])


def test_slots_put_road_users_in_category_order():
    c1, c2 = clip("intersection", 1), clip("intersection", 2)
    assert tc.ordered_actors(c2, ["car_3", "motorcycle_1", "bicycle_2", "person_1"]) == \
        ["person_1", "bicycle_2", "motorcycle_1", "car_3"]
    assert tc.slots("near_miss", c2, ["car_3", "person_1"]) == (
        {"road_user": "the pedestrian in the beige shirt", "vehicle": "the white car"},
        [frozenset({"person_1"}), frozenset({"car_3"})])
    assert tc.slots("collision", c1, ["car_5", "car_4"])[0] == {"first": "the white van", "second": "the white sedan"}
    assert tc.slots("collision", c1, ["car_1", "bicycle_1"])[0] == {"first": "the cyclist on the green bicycle",
                                                                    "second": "the silver car"}
    assert tc.slots("stop_line_violation", c1, ["car_1"], generic=True) == (
        {"vehicle": "a car"}, [frozenset({f"car_{k}" for k in range(1, 6)})])
    assert tc.slots("wrong_way", c2, ["bicycle_1"])[0] == {"vehicle": "the cyclist on the green bicycle"}
    assert tc.slots("jaywalking", c1, ["person_1"])[0] == {"person": "the pedestrian in the black shirt"}


# ------------------------------------------------------------------ prompts

def test_prompts_need_every_environments_texts(tmp_path, monkeypatch):
    data = tc.prompts()
    path = tmp_path / "p.yaml"
    monkeypatch.setattr(tc, "PROMPTS_FILE", path)

    def without(section, env, key, drop):
        own = data[section][env]
        return {**data, section: {**data[section], env: {**own, key: {k: v for k, v in own[key].items()
                                                                      if k not in drop}}}}

    cases = [(without("event_verification", "intersection", "hypotheses", {"jaywalking", "collision"}),
              r"event_verification.intersection.hypotheses lacks \['collision', 'jaywalking'\]"),
             (without("video_qa", "entrance", "event_options", {"loitering"}),
              r"video_qa.entrance.event_options lacks \['loitering'\]"),
             (without("temporal_localization", "entrance", "queries", {"badge_use"}),
              r"temporal_localization.entrance.queries lacks \['badge_use'\]"),
             (without("dense_captioning", "intersection", "captions", {"wrong_way"}),
              r"dense_captioning.intersection.captions lacks \['wrong_way'\]"),
             (without("video_qa", "entrance", "questions", {"tailgater_top", "last_event"}),
              r"video_qa.entrance.questions lacks \['tailgater_top', 'last_event'\]"),
             ({**data, "video_qa": {**data["video_qa"], "questions": {
                 k: v for k, v in data["video_qa"]["questions"].items() if k != "carrier_paint"}}},
              r"video_qa.questions lacks \['carrier_paint'\]"),
             ({**data, "dense_captioning": {k: v for k, v in data["dense_captioning"].items() if k != "entrance"}},
              r"dense_captioning.entrance is missing"),
             ({**data, "video_qa": {**data["video_qa"], "entrance": {
                 k: v for k, v in data["video_qa"]["entrance"].items() if k != "preamble"}}},
              r"video_qa.entrance lacks \['preamble'\]"),
             ({**data, "event_verification": {**data["event_verification"], "intersection": {
                 **data["event_verification"]["intersection"], "hypotheses": "text"}}},
              r"event_verification.intersection.hypotheses lacks \['collision', 'near_miss', "
              r"'stop_line_violation', 'wrong_way', 'jaywalking'\]")]
    assert_each_broken_prompt_file_fails(path, cases)
    monkeypatch.undo()
    tc.prompts.cache_clear()
    assert tc.program_ids(tv.ENTRANCE) == ["count_person", "badge_count", "tailgater_top", "unauthorized_top",
                                           "loiterer_top", "badge_trousers", "first_event", "last_event"]
    assert tc.program_ids(tv.WAREHOUSE)[-3:] == ["carrier_paint", "first_event", "last_event"]
    assert "carrier_paint" not in tc.program_ids(tv.INTERSECTION)
    # an environment's section: its own texts over the section's shared ones
    s = tc.section("event_verification", "intersection")
    assert s["template"] == data["event_verification"]["template"]
    assert s["system"].startswith("You are monitoring a signalised road intersection")
    assert tc.section("event_verification", "warehouse")["system"].startswith("You are monitoring a warehouse")


# ------------------------------------------------------------------ Event Verification

def test_ev_intersection_candidates():
    assert ev.candidates(clip("intersection", 1)) == [
        {"question": "Did the silver car cross the stop line while its signal was red?", "label": "yes",
         "event_type": "stop_line_violation", "actors": "car_1", "source": "scripted", "after_red_s": 0.907632},
        {"question": "Did the white van collide with the white sedan?", "label": "yes", "event_type": "collision",
         "actors": "car_4,car_5", "source": "scripted", "penetration_m": 0.056138},
        {"question": "Did the pedestrian in the black shirt cross the road outside the zebra crossings?",
         "label": "yes", "event_type": "jaywalking", "actors": "person_1", "source": "scripted"},
        # 3 yes -> round(3 * 59 / 104) = 2 absent types of near_miss and wrong_way (no motorcycle: the first
        # shape a clip can fill; the wrong-way shape's first is the bicycle)
        {"question": "Did a pedestrian have a near miss with a car?", "label": "no", "event_type": "near_miss",
         "actors": "", "source": "absent_type"},
        {"question": "Did a cyclist go the wrong way in a lane?", "label": "no", "event_type": "wrong_way",
         "actors": "", "source": "absent_type"}]
    assert ev.candidates(clip("intersection", 2)) == [
        {"question": "Did the gray car collide with the red car?", "label": "yes", "event_type": "collision",
         "actors": "car_1,car_2", "source": "scripted", "penetration_m": 0.108015},
        {"question": "Did the cyclist on the green bicycle go the wrong way in a lane?", "label": "no",
         "event_type": "wrong_way", "actors": "bicycle_1", "source": "near_negative", "lateral_m": -5.963001},
        {"question": "Did the pedestrian in the beige shirt have a near miss with the white car?", "label": "yes",
         "event_type": "near_miss", "actors": "person_1,car_3", "source": "scripted", "min_gap_m": 0.582476,
         "threshold_ratio": 0.582476}]


def test_ev_entrance_candidates():
    assert ev.candidates(clip("entrance", 1)) == [
        {"question": "Did the person in the beige coat use an access badge to open the door?", "label": "yes",
         "event_type": "badge_use", "actors": "person_1", "source": "scripted"},
        {"question": "Did the person in the grey coat tailgate the person in the beige coat through the door?",
         "label": "yes", "event_type": "tailgating", "actors": "person_1,person_2", "source": "scripted"},
        {"question": "Did the person in the white shirt loiter beside the door?", "label": "no",
         "event_type": "loitering", "actors": "person_3", "source": "near_negative", "stay_s": 7.521967,
         "threshold_ratio": 0.752197}]                                        # 7.521967 of LOITER_S = 10 s
    assert ev.candidates(clip("entrance", 3)) == [
        {"question": "Did the person in navy trousers enter the building without authorization?", "label": "yes",
         "event_type": "unauthorized_entry", "actors": "person_2", "source": "scripted"},
        {"question": "Did the person in black trousers loiter beside the door?", "label": "yes",
         "event_type": "loitering", "actors": "person_3", "source": "scripted", "stay_s": 11.703651,
         "threshold_ratio": 1.170365},
        # 2 yes -> round(1.13) = 1 absent type; badge_use or tailgating, the seeded order puts tailgating first
        {"question": "Did a person tailgate a person through the door?", "label": "no", "event_type": "tailgating",
         "actors": "", "source": "absent_type"}]


def test_drawn_events_between_shown_frames_are_never_asked():
    """Every drawn event holds a shown frame (the scripts put them there). Moved to where entrance-2
    drew them: entrance s1's badge use (9.10-12.822 s) ends 0.011 s before the 12.83 s frame and its
    tailgating (13.02-13.84 s) lies between 12.83 and 17.13 s; s3's unauthorized entry (11.43-12.32 s)
    between 8.57 and 12.83 s."""
    assert all(InView(*DRAWN[k], 320, 240).shown_events == DRAWN[k][1] for k in DRAWN)
    s1 = moved("entrance", 1, badge_use=(9.096316, 12.822187), tailgating=(13.015626, 13.840527))
    s3 = moved("entrance", 3, unauthorized_entry=(11.425956, 12.316973))
    assert s1.shown_events == () and [e.type for e in s3.shown_events] == ["loitering"]
    # s1: only the near-negative loiterer; badge_use and tailgating happened, so neither is asked as absent
    assert [(x["event_type"], x["label"], x["source"]) for x in ev.candidates(s1)] == [
        ("loitering", "no", "near_negative")]
    assert tl.items(s1) == [] and dc.items(s1) == []
    assert [q.program for q in vq.questions(s1)] == ["count_person"]
    # s3: the loiterer's questions stay, the unauthorized entrant's coat is not asked
    assert [(x["event_type"], x["label"]) for x in ev.candidates(s3)] == [("loitering", "yes"), ("tailgating", "no")]
    assert [q.program for q in vq.questions(s3)] == ["count_person", "loiterer_top"]
    assert [e.start for e in dc.captioned_events(s3)] == [10.07]


def test_events_out_of_view_are_never_asked():
    """Intersection s1's rear-end crash (car_4 and car_5: 2.5 % and 0 % of their boxes in the image at
    its frames) and red-light run (car_1: 36.6 % at 11.4 s), and s2's near miss (car_3: 34 % at 6.83 s)
    hold shown frames but their actors are out of view there: not shown, so not asked."""
    s1, s2 = (TimelineClip(*DRAWN[("intersection", k)], 320, 240) for k in (1, 2))
    assert [e.type for e in s1.shown_events] == ["jaywalking"] and [e.type for e in s2.shown_events] == ["collision"]
    assert s1.share_in_view("car_1", 342 / 30) == pytest.approx(0.366, abs=1e-3)
    assert s2.share_in_view("car_3", 205 / 30) == pytest.approx(0.34, abs=1e-3)
    assert not s1.appears("car_4") and s1.appears("car_1") and s1.appears("person_1")
    # s1: only the jaywalk is asked; its one yes wants round(59 / 104) = 1 absent type
    assert [(x["event_type"], x["label"], x["source"]) for x in ev.candidates(s1)] == [
        ("jaywalking", "yes", "scripted"), ("near_miss", "no", "absent_type")]
    assert [(it.tags["event_type"], it.answer.windows) for it in tl.items(s1)] == [("jaywalking", [(5.7, 13.15)])]
    assert [q.program for q in vq.questions(s1)] == ["count_motorcycle", "count_bicycle", "jaywalk_count",
                                                    "jaywalk_shirt"]
    # s2: the near-negative cyclist appears, so its hypothesis stays; the near miss's does not
    assert [(x["event_type"], x["label"], x["source"]) for x in ev.candidates(s2)] == [
        ("collision", "yes", "scripted"), ("wrong_way", "no", "near_negative")]
    assert [q.program for q in vq.questions(s2)] == ["count_car", "count_motorcycle", "count_bicycle"]


def test_ev_labels_follow_the_events_and_roles():
    # the tailgating event with its roles swapped: the hypothesis names person_1 as the one who went first
    swapped = (DRAWN[("entrance", 1)][1][0], E("tailgating", ["person_2", "person_1"], 12.5, 13.8))
    got = {x["event_type"]: x["label"] for x in ev.candidates(clip("entrance", 1, swapped))}
    assert got == {"badge_use": "yes", "tailgating": "no", "loitering": "no"}
    # the near miss with another pedestrian: the hypothesis about person_1 is 'no'
    evs = [e for e in DRAWN[("intersection", 2)][1] if e.type != "near_miss"] + [E("near_miss", ["person_2", "car_3"], 4, 5)]
    got = {x["event_type"]: x["label"] for x in ev.candidates(clip("intersection", 2, evs))}
    assert got["near_miss"] == "no" and got["collision"] == "yes"
    # ... unless the pedestrians cannot be told apart: 'a pedestrian' fits person_2 as well
    spec = with_looks("intersection", 2, person_1={"shirt": "black", "trousers": "grey", "hair": "blond"})
    c = clip("intersection", 2, evs, spec=spec)
    nm = [x for x in ev.candidates(c) if x["event_type"] == "near_miss"][0]
    assert nm["question"] == "Did a pedestrian have a near miss with the white car?" and nm["label"] == "yes"


def test_ev_absent_types_need_their_actors():
    c = clip("entrance", 1)
    assert ev._cast(c, "tailgating") == ["person_1", "person_2"] and ev._cast(c, "loitering") == ["person_1"]
    alone = clip("entrance", 1, [], spec=only_agents("entrance", 1, {"door_1", "person_1"}))
    assert ev._cast(alone, "tailgating") == [] and ev._cast(alone, "badge_use") == ["person_1"]
    c1 = clip("intersection", 1)
    assert ev._cast(c1, "near_miss") == ["person_1", "car_1"] and ev._cast(c1, "wrong_way") == ["bicycle_1"]
    assert ev._cast(c1, "collision") == ["car_1", "car_2"]
    no_cars = clip("intersection", 1, [], spec=only_agents("intersection", 1, {"person_1", "bicycle_1"}))
    assert ev._cast(no_cars, "near_miss") == [] and ev._cast(no_cars, "collision") == ["person_1", "bicycle_1"]
    assert ev._cast(no_cars, "stop_line_violation") == ["bicycle_1"]
    # nothing happened, nothing scripted that succeeded: no absent type is wanted (0 yes)
    assert [x["label"] for x in ev.candidates(clip("entrance", 1, []))] == ["no", "no", "no"]


def test_ev_items_carry_the_domain_and_the_weather():
    c = clip("intersection", 2)
    got = ev.items(c)
    assert [it.id for it in got] == [f"event_verification/intersection-s2/{k}" for k in range(3)]
    assert {(it.task, it.domain, it.env) for it in got} == {("event_verification", "T", "intersection")}
    assert got[1].tags == {"event_type": "wrong_way", "actors": "bicycle_1", "source": "near_negative",
                           "lateral_m": -5.963001, "lighting": "night", "weather": "fog"}
    p = tc.section("event_verification", "intersection")
    assert got[0].prompt == p["system"] + "\n\nQuestion: Did the gray car collide with the red car?"
    assert "Jaywalking means a pedestrian on the roadway outside the zebra crossings." in got[0].prompt
    e = ev.items(clip("entrance", 3))
    assert {(it.domain, it.env) for it in e} == {("S", "entrance")} and e[0].tags["lighting"] == "dusk"
    assert "weather" not in e[0].tags
    assert e[0].prompt.startswith("You are monitoring the access-controlled entrance door of a building")
    assert [it.answer.label for it in e] == ["yes", "yes", "no"] and e[0].media == clip("entrance", 3).media()


# ------------------------------------------------------------------ Temporal Localization and DVC

def test_temporal_items():
    got = tl.items(clip("intersection", 1))
    assert [(it.tags["event_type"], it.answer.windows) for it in got] == [
        ("collision", [(9.53, 16.0)]), ("stop_line_violation", [(11.18, 11.62)]), ("jaywalking", [(5.7, 13.15)])]
    assert got[1].tags == {"event_type": "stop_line_violation", "n_windows": 1, "shortest_s": 0.44,
                           "lighting": "dusk", "weather": "fog"}
    assert got[1].prompt.endswith("The event: a vehicle crosses its stop line while the signal is red")
    assert {(it.domain, it.env) for it in got} == {("T", "intersection")}
    got = tl.items(clip("entrance", 1))
    assert [(it.id, it.answer.windows) for it in got] == [("temporal_localization/entrance-s1/0", [(8.5, 12.23)]),
                                                          ("temporal_localization/entrance-s1/1", [(12.42, 13.25)])]
    assert got[1].tags == {"event_type": "tailgating", "n_windows": 1, "shortest_s": 0.83, "lighting": "day"}
    assert got[1].prompt.endswith("The event: a person tailgates another through the door")
    # two jaywalkers: two windows of one query
    two = clip("intersection", 1, [E("jaywalking", ["person_1"], 5.702, 7.0),
                                   E("jaywalking", ["person_3"], 2.0, 2.304)])
    (it,) = tl.items(two)
    assert it.answer.windows == [(2.0, 2.3), (5.7, 7.0)] and it.tags["n_windows"] == 2 and it.tags["shortest_s"] == 0.3


def test_dense_captions():
    (it,) = dc.items(clip("intersection", 1))
    assert [(e.start, e.end, e.caption) for e in it.answer.events] == [
        (5.7, 13.15, "The pedestrian in the black shirt crosses the road outside the crossing"),
        (9.53, 16.0, "The white van collides with the white sedan"),
        (11.18, 11.62, "The silver car crosses the stop line on red")]
    assert it.tags == {"n_events": 3, "lighting": "dusk", "weather": "fog"} and it.domain == "T"
    (it,) = dc.items(clip("intersection", 2))
    assert [e.caption for e in it.answer.events] == ["The gray car collides with the red car",
                                                    "The white car nearly hits the pedestrian in the beige shirt"]
    (it,) = dc.items(clip("entrance", 1))
    assert [(e.start, e.end, e.caption) for e in it.answer.events] == [
        (8.5, 12.23, "The person in the beige coat badges in at the reader"),
        (12.42, 13.25, "The person in the grey coat tailgates the person in the beige coat through the door")]
    assert (it.id, it.domain, it.env, it.tags) == ("dense_captioning/entrance-s1/0", "S", "entrance",
                                                   {"n_events": 2, "lighting": "day"})
    assert it.prompt == tc.prompts()["dense_captioning"]["template"]
    assert dc.items(clip("entrance", 1, [])) == []


# ------------------------------------------------------------------ Video QA

def _q(c):
    return [(q.program, q.correct, q.distractors, q.tags) for q in vq.questions(c)]


def test_vqa_intersection_questions():
    # s1: only the cyclist is wholly in view of its category... and no motorcycle at all (0 is a count);
    # cars 2-5 and person_4 never are, so those counts are not asked
    assert _q(clip("intersection", 1)) == [
        ("count_motorcycle", "0", ("1", "2", "3"), {}),
        ("count_bicycle", "1", ("0", "2", "4"), {}),
        ("jaywalk_count", "1", ("0", "2", "3"), {}),
        ("jaywalk_shirt", "black", ("beige", "white", "yellow"), {"event_type": "jaywalking", "actor": "person_1"}),
        ("stop_line_car_paint", "silver", ("black", "brown", "white"),
         {"event_type": "stop_line_violation", "actor": "car_1"})]
    near, coll = "A vehicle nearly hits a pedestrian or cyclist", "A vehicle collides with another road user"
    red, jay = "A vehicle crosses the stop line on a red signal", "A pedestrian crosses the road outside the zebra crossings"
    # the drawn near miss (6.47-7.19 s) starts 0.18 s after the collision (6.29-16 s): no event order asked
    assert [q[0] for q in _q(clip("intersection", 2))] == ["count_car", "count_motorcycle", "count_bicycle",
                                                         "near_miss_shirt", "near_miss_car_paint"]
    assert _q(moved("intersection", 2, near_miss=(4.49997, 5.220854))) == [
        ("count_car", "4", ("2", "3", "6"), {}),
        ("count_motorcycle", "2", ("1", "3", "4"), {}),
        ("count_bicycle", "2", ("0", "1", "5"), {}),
        ("near_miss_shirt", "beige", ("green", "grey", "red"), {"event_type": "near_miss", "actor": "person_1"}),
        ("near_miss_car_paint", "white", ("black", "gray", "green"), {"event_type": "near_miss", "actor": "car_3"}),
        # the near miss moved to 4.50-5.22 s (where intersection-2 drew it) leads the collision 6.29-16 s
        # by > 0.5 s at both ends
        ("first_event", near, (coll, red, jay), {"event_type": "near_miss"}),
        ("last_event", coll, (near, red, jay), {"event_type": "collision"})]


def test_vqa_entrance_questions():
    badge, tail = "A person uses a badge at the reader", "A person tailgates another through the door"
    unauth, loiter = "A person enters without authorization", "A person loiters beside the door"
    assert _q(clip("entrance", 1)) == [
        ("count_person", "3", ("0", "1", "5"), {}),
        ("badge_count", "1", ("2", "3", "4"), {}),
        # the tailgater is the event's second actor (person_2's grey coat, not person_1's beige one)
        ("tailgater_top", "grey", ("green", "navy", "olive"), {"event_type": "tailgating", "actor": "person_2"}),
        ("badge_trousers", "khaki", ("black", "blue", "navy"), {"event_type": "badge_use", "actor": "person_1"}),
        ("first_event", badge, (tail, unauth, loiter), {"event_type": "badge_use"}),
        ("last_event", tail, (badge, unauth, loiter), {"event_type": "tailgating"})]
    assert _q(clip("entrance", 3)) == [
        ("count_person", "3", ("1", "2", "5"), {}),
        ("unauthorized_top", "olive", ("green", "light blue", "navy"),
         {"event_type": "unauthorized_entry", "actor": "person_2"}),
        ("loiterer_top", "olive", ("black", "green", "grey"), {"event_type": "loitering", "actor": "person_3"})]
    # badge_count counts distinct people; no badge script, no question
    two = clip("entrance", 1, [E("badge_use", ["person_1"], 0, 2), E("badge_use", ["person_1"], 4, 5),
                               E("badge_use", ["person_3"], 8, 9)])
    assert {q.program: q.correct for q in vq.counts(two)}["badge_count"] == "2"
    assert "badge_count" not in {q.program for q in vq.counts(clip("entrance", 3))}


def test_vqa_items_letters_prompt_and_tags():
    c = clip("entrance", 1)
    got = vq.items(c)
    assert [it.answer.letter for it in got] == ["D", "C", "A", "B", "D", "B"]
    assert [it.answer.letter for it in got] == list(vq.balanced_letters(6, "entrance-s1"))
    assert got[2].answer.options == ("grey", "olive", "navy", "green")
    p = tc.section("video_qa", "entrance")
    assert got[0].prompt == p["template"].format(
        question="You are shown frames sampled in time order from a fixed CCTV camera facing a building's "
                 "access-controlled entrance. How many people appear in the video?",
        **dict(zip(LETTERS, got[0].answer.options)))
    assert got[2].tags == {"program": "tailgater_top", "lighting": "day", "event_type": "tailgating", "actor": "person_2"}
    assert {(it.domain, it.env) for it in got} == {("S", "entrance")}
    t = vq.items(clip("intersection", 1))
    assert [it.answer.letter for it in t] == ["B", "D", "A", "C", "B"]
    assert t[4].answer.options == ("white", "silver", "brown", "black")
    assert t[0].tags == {"program": "count_motorcycle", "lighting": "dusk", "weather": "fog"} and t[0].domain == "T"
    assert "How many motorcycles appear in the video?" in t[0].prompt
    mixed = vq.generate([moved("intersection", 2, near_miss=(4.49997, 5.220854)), clip("entrance", 3)])
    assert "".join(it.answer.letter for it in mixed) == vq.balanced_letters(10, "intersection-s2", "entrance-s3")
    assert [it.domain for it in mixed] == ["T"] * 7 + ["S"] * 3
