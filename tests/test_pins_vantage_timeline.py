"""Pins of the four VANTAGE timeline task generators and their shared clip reader on
hand-made event lists (no Blender, no scans: each expected value below is worked out from
the drawn specs' looks and scripts, listed in the comments).

The specs (and the events derived from them) are drawn once, when this file is imported:
they come from blender_envs.infra.warehouse, which these tests are not about, and a mutation
run's forked test processes then share them instead of drawing them per mutant.

Drawn specs (stream "test_warehouse", as tests/test_vantage_timeline_tasks.py):
  s2 (day): person_1 lime vest / yellow hat (falls), forklift_1 red (operator orange),
     pallet_1 carried by forklift_1 (picked at 10.31 s), amr_1 orange, forklift_2 yellow (operator yellow);
     scripts fall, pickup, collision (all positive)
  s3 (night): person_1 orange vest, amr_1 orange, forklift_1 green (operator orange), forklift_2 orange
     (operator yellow), person_2 lime vest; scripts zone_entry +, collision +, near_miss + (1.373963 of 1.5 m)
  s5 (day): person_1 orange vest / yellow hat, person_2 orange vest / white hat (falls), amr_1 black,
     forklift_1 and forklift_2 yellow (operators orange / yellow), pallet_1; scripts zone_entry - (walk_y
     1.270435, zone from y 1.9), fall +, collision +, drop +
  s6 (night): person_1 orange vest, person_2 and person_3 lime vests, all three blue hats, shirts red /
     black / grey; forklift_1 and forklift_2 red with orange operators; amr_1 grey; no pallet
"""
from __future__ import annotations

from collections import Counter

import pytest
from prompt_file_checks import assert_each_broken_prompt_file_fails

from blender_envs.infra.warehouse import events as warehouse_events
from blender_envs.infra.warehouse import sample_scene
from formats.vantage_item import LETTERS, Media
from geometry import camera as gcam
from geometry.events import Event
from packagers.vantage_tasks import dense_captioning as dc
from packagers.vantage_tasks import event_verification as ev
from packagers.vantage_tasks import temporal_localization as tl
from packagers.vantage_tasks import timeline_clip as tc
from packagers.vantage_tasks import video_qa as vq
from packagers.vantage_tasks.timeline_clip import Description, TimelineClip
from render_farm.seeds import rng_for


def _draw(seed: int):
    spec = sample_scene(rng_for("test_warehouse", seed, "scene"), f"s{seed}", seed, further=False)
    return spec, tuple(warehouse_events(spec))


DRAWN = {s: _draw(s) for s in (0, 2, 3, 5, 6)}


def shown_copy(seed: int) -> tuple[Event, ...]:
    """The drawn events with each window's end moved on to the next shown frame when none lies in it,
    so that every one holds a shown frame: most of these draws' falls, pickups and drops lie between
    two of the 8 frames (shown only by their lasting outcome), and the pins below are about the
    generators' other rules (the shown rule is in test_drawn_events_between_shown_frames_are_never_asked)."""
    times = DRAWN[seed][0].timeline.clip.timestamps()
    return tuple(e.model_copy(update={"t_end": max(e.t_end, min(t for t in times if t >= e.t_start))})
                 for e in DRAWN[seed][1])


def clip(seed: int, events=None, spec=None) -> TimelineClip:
    """A drawn spec with the given events, else its drawn events all made shown (shown_copy)."""
    drawn = DRAWN[seed][0]
    return TimelineClip(spec or drawn, shown_copy(seed) if events is None else tuple(events), 320, 240)


def E(kind: str, actors, a: float, b: float, zone: str | None = None) -> Event:
    return Event(type=kind, actors=list(actors), t_start=a, t_end=b, zone=zone)


def with_looks(seed: int, **names) -> object:
    spec = DRAWN[seed][0]
    looks = dict(spec.looks)
    for tid, upd in names.items():
        looks[tid] = looks[tid].model_copy(update={"color_names": {**looks[tid].color_names, **upd}})
    return spec.model_copy(update={"looks": looks})


# ------------------------------------------------------------------ timeline_clip

def test_small_helpers():
    assert tc.sentence("the red forklift") == "The red forklift" and tc.sentence("") == "" and tc.sentence("a") == "A"
    assert tc.round_time(1.234) == 1.23 and tc.round_time(1.236) == 1.24 and tc.round_time(7) == 7.0
    assert isinstance(tc.round_time(7), float)
    a, b = tc.task_rng("video_qa", "warehouse-s2", "x"), rng_for("vantage", "video_qa", "warehouse-s2", "x")
    assert a.integers(0, 10**9, 4).tolist() == b.integers(0, 10**9, 4).tolist()


def test_clip_reader_basics():
    c = clip(2)
    assert c.clip_id == "warehouse-s2" and c.duration_s == 16.0 and isinstance(c.duration_s, float)
    assert c.agents("forklift") == ["forklift_1", "forklift_2"] and c.agents("person") == ["person_1"]
    assert c.agents("dog") == []
    assert c.category("amr_1") == "amr" and c.color("forklift_2", "paint") == "yellow"
    assert c.color("amr_1", "tote") is None
    m = c.media()
    assert m == Media(kind="video", clip_id="warehouse-s2", frame_numbers=[0, 68, 137, 205, 274, 342, 411, 479],
                      times_s=[n / 30 for n in [0, 68, 137, 205, 274, 342, 411, 479]], fps=30.0, duration_s=16.0,
                      width=320, height=240)
    other = TimelineClip(c.spec, (), 64, 48).media()
    assert (other.width, other.height) == (64, 48)


def test_an_event_is_shown_when_a_shown_frame_lies_in_its_window():
    """Frames 0, 68, 137, ..., 479 of 30 fps are shown: an event counts when one of their times lies
    in [t_start, t_end], both ends included."""
    c = clip(2, [])
    t68, t479 = 68 / 30, 479 / 30
    nm = ["person_1", "forklift_1"]
    shown = [E("near_miss", nm, 1.0, t68), E("near_miss", nm, t68, 3.0), E("near_miss", nm, 0.0, 0.5),
             E("near_miss", nm, 15.96, 16.0), E("collision", ["amr_1", "forklift_2"], 1.0, 15.0)]
    hidden = [E("near_miss", nm, 1.0, t68 - 1e-6), E("near_miss", nm, t68 + 1e-6, 4.5),
              E("near_miss", nm, t479 + 1e-6, 16.0), E("zone_entry", ["person_1"], 0.001, 2.0, "restricted_1")]
    assert [c.shown(e) for e in shown] == [True] * 5
    assert [c.shown(e) for e in hidden] == [False] * 4
    assert clip(2, hidden[:2] + shown[:1]).shown_events == (shown[0],)


def test_a_lasting_event_is_shown_by_a_frame_before_and_one_after_it():
    """A fall, a pickup or a drop between two shown frames (6.83 and 9.13 s) is shown: the worker
    stands on one and lies on the next, the pallet is on the floor and then on the forks. After
    the last frame (15.97 s) nothing shows it; a drop of the picked pallet before the next frame
    undoes the pickup, a later one does not."""
    t479 = 479 / 30
    fall = E("fall", ["person_1"], 7.0, 8.0)
    late = E("fall", ["person_1"], t479 + 1e-6, 16.0)
    pick, drop = E("pickup", ["forklift_1", "pallet_1"], 7.0, 8.0), E("drop", ["forklift_1", "pallet_1"], 8.5, 9.0)
    c = clip(2, [fall, late, pick, drop])
    assert [c.shown(e) for e in (fall, late, pick, drop)] == [True, False, False, True]
    dropped_later = E("drop", ["forklift_1", "pallet_1"], 9.2, 9.5)
    assert clip(2, [pick, dropped_later]).shown(pick)
    at_the_frame = E("drop", ["forklift_1", "pallet_1"], 274 / 30, 12.0)    # from the next frame on: undone there
    assert clip(2, [pick, at_the_frame]).shown(pick) is False
    at_its_end = E("drop", ["forklift_1", "pallet_1"], 8.0, 8.5)             # the undo starts as the pickup ends
    assert clip(2, [pick, at_its_end]).shown(pick) is False
    # another forklift's drop of another pallet undoes nothing (pallet_2: a copy of pallet_1 under a new id)
    spec = DRAWN[2][0]
    pallet = spec.timeline.agent("pallet_1").model_copy(update={"track_id": "pallet_2"})
    spec = spec.model_copy(update={"looks": {**spec.looks, "pallet_2": spec.looks["pallet_1"]},
                                   "timeline": spec.timeline.model_copy(
                                       update={"agents": [*spec.timeline.agents, pallet]})})
    other = E("drop", ["forklift_2", "pallet_2"], 8.5, 9.0)
    assert clip(2, [pick, other], spec=spec).shown(pick)
    assert clip(2, [pick, other.model_copy(update={"actors": ["forklift_2", "pallet_1"]})], spec=spec).shown(pick) is False
    # a near miss has no lasting outcome: between the same frames it is not shown
    assert not c.shown(E("near_miss", ["person_1", "forklift_1"], 7.0, 8.0))


def moved_near_miss(seed: int, a: float, b: float) -> TimelineClip:
    """The drawn clip with its near miss's window moved to [a, b] (the scripts put it on a frame)."""
    spec, evs = DRAWN[seed]
    return TimelineClip(spec, tuple(e.model_copy(update={"t_start": a, "t_end": b}) if e.type == "near_miss"
                                    else e for e in evs), 320, 240)


def test_drawn_events_between_shown_frames_are_never_asked():
    """s3's and s6's near misses moved to 5.36-5.86 s and 5.94-6.73 s (where warehouse-2 drew them),
    between the shown frames 4.57 and 6.83 s; s2's fall (7.88-8.59 s) and pickup (10.31-11.31 s)
    lie between frames too, but they last (the worker lies, the pallet rides the forks), so the
    frames after them show them."""
    s2 = TimelineClip(DRAWN[2][0], DRAWN[2][1], 320, 240)
    s3, s6 = moved_near_miss(3, 5.36, 5.86), moved_near_miss(6, 5.94, 6.73)
    assert s2.shown_events == DRAWN[2][1]
    assert all(TimelineClip(DRAWN[k][0], DRAWN[k][1], 320, 240).shown_events == DRAWN[k][1] for k in (3, 6))
    assert [e.type for e in s3.shown_events] == ["zone_entry", "collision"]
    assert [e.type for e in s6.shown_events] == ["fall", "collision"]
    # EV: s3's near-miss hypothesis is not asked; 2 yes -> round(1.13) = 1 absent type (fall)
    assert [(x["event_type"], x["label"], x["source"]) for x in ev.candidates(s3)] == [
        ("zone_entry", "yes", "scripted"), ("collision", "yes", "scripted"), ("fall", "no", "absent_type")]
    assert [(it.tags["event_type"], it.answer.windows) for it in tl.items(s3)] == [
        ("collision", [(6.64, 10.35)]), ("zone_entry", [(5.73, 7.94)])]
    assert [(e.start, e.end) for e in dc.captioned_events(s6)] == [(7.23, 8.24), (8.72, 11.65)]
    # VQA: no near_miss_paint and no event order, which the near miss could upset
    assert [q.program for q in vq.questions(s6)] == ["count_person", "count_forklift", "count_amr", "zone_count",
                                                    "fall_hat", "collision_amr_paint"]
    assert [q.program for q in vq.questions(clip(6))] == ["count_person", "count_forklift", "count_amr", "zone_count",
                                                         "fall_hat", "near_miss_paint", "collision_amr_paint",
                                                         "first_event", "last_event"]
    assert [q.program for q in vq.questions(s2)] == [q.program for q in vq.questions(clip(2))]


def test_from_spec_derives_the_events_unless_given():
    spec, evs = DRAWN[2]
    got = TimelineClip.from_spec(spec, 320)
    assert got.events == evs and (got.width, got.height) == (320, 240)
    assert TimelineClip.from_spec(spec, 160).width == 160
    given = [E("fall", ["person_1"], 1.0, 2.0)]
    assert TimelineClip.from_spec(spec, 320, events=given).events == tuple(given)
    assert TimelineClip.from_spec(spec, 320, events=[]).events == ()


def test_event_categories_are_checked_in_any_actor_order():
    spec = DRAWN[2][0]
    ok = TimelineClip(spec, (E("collision", ["forklift_2", "amr_1"], 1, 2), E("pickup", ["pallet_1", "forklift_1"], 3, 4)),
                      320, 240)
    assert len(ok.events) == 2
    with pytest.raises(ValueError, match=r"warehouse-s2: a near_miss event of \('amr', 'forklift'\) has no template "
                                         r"\(templates assume \('person', 'forklift'\)\)"):
        TimelineClip(spec, (E("near_miss", ["amr_1", "forklift_1"], 1, 2),), 320, 240)
    with pytest.raises(ValueError, match=r"a fall event of \('forklift',\)"):
        TimelineClip(spec, (E("fall", ["forklift_1"], 1, 2),), 320, 240)
    with pytest.raises(ValueError, match=r"templates assume None"):
        TimelineClip(spec, (E("tailgating", ["person_1"], 1, 2),), 320, 240)


def test_describe_tries_each_attribute_in_order():
    c = clip(6)
    assert c.describe("person_1") == Description("the worker in the orange vest", frozenset({"person_1"}))
    # person_2 and person_3 share the lime vest and all three the blue hat: their shirts tell them apart
    assert c.describe("person_2") == Description("the worker in the black shirt", frozenset({"person_2"}))
    assert c.describe("person_3") == Description("the worker in the grey shirt", frozenset({"person_3"}))
    assert c.describe("amr_1") == Description("the grey AMR", frozenset({"amr_1"}))
    assert c.describe("forklift_2") == Description("a forklift", frozenset({"forklift_1", "forklift_2"}))
    # the hat comes before the shirt
    c = clip(6, spec=with_looks(6, person_2={"hat": "white"}))
    assert c.describe("person_2").text == "the worker in the white hard hat"
    # same vest, hat and shirt: the trousers
    c = clip(6, spec=with_looks(6, person_2={"shirt": "grey"}, person_3={"trousers": "khaki", "shirt": "grey"},
                                   person_1={"vest": "lime"}))
    assert c.describe("person_1").text == "the worker in the red shirt"
    assert c.describe("person_2") == Description("a worker", frozenset({"person_1", "person_2", "person_3"}))
    c = clip(6, spec=with_looks(6, person_2={"shirt": "grey", "trousers": "black"}, person_1={"vest": "lime"}))
    assert c.describe("person_2").text == "the worker in black trousers"
    # the operator's vest when the paint is shared; a colour the look lacks is skipped
    c = clip(6, spec=with_looks(6, forklift_1={"operator_vest": "lime"}))
    assert c.describe("forklift_1").text == "the forklift with the driver in the lime vest"
    assert c.describe("forklift_2").text == "the forklift with the driver in the orange vest"
    spec = with_looks(6)
    looks = dict(spec.looks)
    looks["forklift_1"] = looks["forklift_1"].model_copy(update={"color_names": {"operator_vest": "lime"}})
    c = clip(6, spec=spec.model_copy(update={"looks": looks}))
    assert c.describe("forklift_1").text == "the forklift with the driver in the lime vest"
    assert c.describe("forklift_2").text == "the red forklift"       # forklift_1 has no paint name now
    assert clip(2).describe("pallet_1") == Description("a pallet", frozenset({"pallet_1"}))
    assert clip(2).generic("amr") == Description("an AMR", frozenset({"amr_1"}))
    assert clip(2).generic("forklift") == Description("a forklift", frozenset({"forklift_1", "forklift_2"}))


def test_matches_assigns_distinct_actors_in_any_order():
    e = E("collision", ["amr_1", "forklift_2"], 1, 2)
    f, a = frozenset({"forklift_2"}), frozenset({"amr_1"})
    assert tc.matches(e, "collision", [f, a]) and tc.matches(e, "collision", [a, f])
    assert tc.matches(e, "collision", [frozenset({"forklift_1", "forklift_2"}), a])
    assert not tc.matches(e, "collision", [frozenset({"forklift_1"}), a])
    assert not tc.matches(e, "near_miss", [f, a])
    assert not tc.matches(e, "collision", [f | a, f | a, f | a])       # more referents than actors
    assert tc.matches(e, "collision", [f | a])                           # one referent: any one actor
    assert not tc.matches(e, "collision", [a, a])                        # one actor cannot fill two slots
    assert tc.matches(e, "collision", [])


def test_ordered_actors_and_slots():
    c = clip(2)
    assert tc.ordered_actors(c, ["pallet_1", "amr_1", "forklift_2", "person_1"]) == \
        ["person_1", "forklift_2", "amr_1", "pallet_1"]
    assert tc.ordered_actors(c, ["forklift_2", "forklift_1"]) == ["forklift_1", "forklift_2"]
    assert tc.slots("collision", c, ["amr_1", "forklift_2"]) == (
        {"first": "the yellow forklift", "second": "the orange AMR"}, [frozenset({"forklift_2"}), frozenset({"amr_1"})])
    assert tc.slots("collision", c, ["amr_1", "forklift_2"], generic=True) == (
        {"first": "a forklift", "second": "an AMR"}, [frozenset({"forklift_1", "forklift_2"}), frozenset({"amr_1"})])
    assert tc.slots("pickup", c, ["pallet_1", "forklift_1"]) == ({"forklift": "the red forklift"},
                                                                 [frozenset({"forklift_1"})])
    assert tc.slots("drop", c, ["forklift_2", "pallet_1"])[0] == {"forklift": "the yellow forklift"}
    assert tc.slots("fall", c, ["person_1"]) == ({"person": "the worker in the lime vest"}, [frozenset({"person_1"})])
    assert tc.slots("zone_entry", c, ["person_1"], generic=True) == ({"person": "a worker"}, [frozenset({"person_1"})])
    c3 = clip(3)
    assert tc.slots("near_miss", c3, ["forklift_2", "person_2"])[0] == {"person": "the worker in the lime vest",
                                                                       "forklift": "the orange forklift"}
    with pytest.raises(ValueError, match=r"a pickup event needs 1 mover\(s\), got \['forklift_1', 'forklift_2'\]"):
        tc.slots("pickup", c, ["forklift_1", "forklift_2"])
    with pytest.raises(ValueError, match="a collision event needs 2 mover"):
        tc.slots("collision", c, ["forklift_1", "pallet_1"])


def test_prompt_sections_and_keys_are_checked(tmp_path, monkeypatch):
    import json

    data = tc.prompts()
    path = tmp_path / "p.yaml"
    monkeypatch.setattr(tc, "PROMPTS_FILE", path)
    cases = [({**data, "video_qa": {k: v for k, v in data["video_qa"].items() if k != "preamble"}},
              "video_qa.preamble is missing"),
             ({**data, "dense_captioning": "text"}, "dense_captioning.template is missing"),
             ({**data, "video_qa": {**data["video_qa"], "event_options": {
                 k: v for k, v in data["video_qa"]["event_options"].items() if k not in ("near_miss", "drop")}}},
              r"video_qa.event_options lacks \['near_miss', 'drop'\]"),
             ({**data, "event_verification": {**data["event_verification"], "hypotheses": {
                 k: v for k, v in data["event_verification"]["hypotheses"].items() if k != "fall"}}},
              r"event_verification.hypotheses lacks \['fall'\]")]
    assert_each_broken_prompt_file_fails(path, cases)
    path.write_text(json.dumps(data))
    try:
        assert tc.prompts() == data                     # the intact copy loads as it was
    finally:
        tc.prompts.cache_clear()


# ------------------------------------------------------------------ Temporal Localization

def test_temporal_windows_items_and_tags():
    # shown frames at 0, 68, 137, 205, 274, ... / 30 s: 2.27, 4.57, 6.83, 9.13, ...
    evs = [E("collision", ["amr_1", "forklift_2"], 4.004, 5.5), E("fall", ["person_1"], 6.826, 7.2),
           E("collision", ["amr_1", "forklift_1"], 2.0, 2.996),
           E("collision", ["amr_1", "forklift_1"], 3.0, 4.5),        # between 2.27 and 4.57: no window
           E("near_miss", ["person_1", "forklift_1"], 7.0, 8.0)]     # between 6.83 and 9.13: no item
    c = clip(2, evs)
    assert tl.windows(c, "collision") == [(2.0, 3.0), (4.0, 5.5)]
    assert tl.windows(c, "pickup") == [] and tl.windows(c, "near_miss") == []
    got = tl.items(c)
    assert [it.id for it in got] == ["temporal_localization/warehouse-s2/0", "temporal_localization/warehouse-s2/1"]
    assert [it.answer.windows for it in got] == [[(2.0, 3.0), (4.0, 5.5)], [(6.83, 7.2)]]
    assert got[0].tags == {"event_type": "collision", "n_windows": 2, "shortest_s": 1.0, "lighting": "day"}
    assert got[1].tags == {"event_type": "fall", "n_windows": 1, "shortest_s": 0.37, "lighting": "day"}
    assert got[0].prompt.endswith("in the json output. The event: a forklift and an autonomous mobile robot (AMR) "
                                  "are in contact in a collision")
    assert got[0].prompt.startswith("Localize a series of activity events in the video")
    assert got[1].prompt.endswith("The event: a worker falls to the floor")
    assert {(it.task, it.domain, it.env) for it in got} == {("temporal_localization", "W", "warehouse")}
    assert got[0].media == c.media()
    assert tl.items(clip(2, [])) == []


# ------------------------------------------------------------------ Dense Video Captioning

def test_dense_captions_order_words_and_times():
    evs = [E("pickup", ["forklift_1", "pallet_1"], 2.0, 3.006), E("fall", ["person_1"], 2.0, 2.5),
           E("collision", ["amr_1", "forklift_2"], 2.0, 2.5),
           E("near_miss", ["person_1", "forklift_1"], 3.0, 4.0)]      # between shown frames: no caption
    c = clip(2, evs)
    assert [(e.start, e.end, e.caption) for e in dc.captioned_events(c)] == [
        (2.0, 2.5, "The yellow forklift collides with the orange AMR"),       # same times: by type
        (2.0, 2.5, "The worker in the lime vest falls to the floor"),
        (2.0, 3.01, "The red forklift picks up a pallet")]                      # same start: the shorter first
    (it,) = dc.items(c)
    assert it.id == "dense_captioning/warehouse-s2/0" and it.tags == {"n_events": 3, "lighting": "day"}
    assert it.prompt == tc.prompts()["dense_captioning"]["template"] and it.prompt.endswith("describing the event).")
    assert (it.task, it.domain, it.env, it.media) == ("dense_captioning", "W", "warehouse", c.media())
    late = dc.captioned_events(clip(2, [E("fall", ["person_1"], 5.0, 7.0),
                                        E("drop", ["forklift_1", "pallet_1"], 1.0, 9.0)]))
    assert [e.caption for e in late] == ["The red forklift sets down a pallet", "The worker in the lime vest falls to the floor"]
    assert dc.items(clip(2, [])) == [] and dc.captioned_events(clip(2, [])) == []
    assert dc.items(clip(2, evs[3:])) == []                      # only a hidden event: no item


# ------------------------------------------------------------------ Event Verification

def _ev(c):
    return [(x["question"], x["label"], x["source"]) for x in ev.candidates(c)]


def test_ev_scripted_hypotheses_tags_and_absent_types():
    # s5: 3 yes + 1 no -> round(3 * 59 / 104) - 1 = 1 absent type; near_miss and pickup are absent
    # (drop, fall, collision happened; zone_entry was asked); the seeded order puts pickup first
    got = ev.candidates(clip(5))
    assert [(x["question"], x["label"], x["source"]) for x in got] == [
        ("Did the worker in the yellow hard hat enter the restricted zone?", "no", "near_negative"),
        ("Did the worker in the white hard hat fall to the floor?", "yes", "scripted"),
        ("Did the forklift with the driver in the orange vest collide with the black AMR?", "yes", "scripted"),
        ("Did the forklift with the driver in the yellow vest set down the pallet it was carrying?", "yes", "scripted"),
        ("Did a forklift pick up a pallet?", "no", "absent_type")]
    assert got[0] == {"question": got[0]["question"], "label": "no", "event_type": "zone_entry", "actors": "person_1",
                      "source": "near_negative", "outside_m": 0.629565}          # 1.9 - 1.270435
    assert got[1] == {"question": got[1]["question"], "label": "yes", "event_type": "fall", "actors": "person_2",
                      "source": "scripted"}
    assert got[2]["actors"] == "amr_1,forklift_1" and "outside_m" not in got[2]
    assert got[4] == {"question": "Did a forklift pick up a pallet?", "label": "no", "event_type": "pickup",
                      "actors": "", "source": "absent_type"}
    # s3's near miss: 1.373963 m of a 1.5 m threshold
    nm = [x for x in ev.candidates(clip(3)) if x["event_type"] == "near_miss"][0]
    assert (nm["min_distance_m"], nm["threshold_ratio"], nm["label"]) == (1.373963, 0.915975, "yes")
    assert "outside_m" not in [x for x in ev.candidates(clip(3)) if x["event_type"] == "zone_entry"][0]


def test_ev_absent_type_count_follows_the_papers_split():
    # s2 with its events: 3 yes, 0 no -> round(1.70) = 2 of the 3 absent types (near_miss, drop, zone_entry)
    got = ev.candidates(clip(2))
    absent = [x for x in got if x["source"] == "absent_type"]
    assert [x["label"] for x in got[:3]] == ["yes"] * 3 and len(absent) == 2
    assert {x["event_type"] for x in absent} < {"near_miss", "drop", "zone_entry"}
    assert all(x["label"] == "no" and x["actors"] == "" for x in absent)
    # a drop that happened is no longer absent, even one between shown frames: both others are asked
    extra = shown_copy(2) + (E("drop", ["forklift_2", "pallet_1"], 12.0, 13.0),)
    got = ev.candidates(clip(2, extra))
    assert sorted(x["event_type"] for x in got if x["source"] == "absent_type") == ["near_miss", "zone_entry"]
    # s2 with one event: 1 yes, 2 no -> round(0.57) - 2 < 0: none; no event at all: none
    assert [x["source"] for x in ev.candidates(clip(2, shown_copy(2)[:1]))] == ["scripted"] * 3
    assert [x["label"] for x in ev.candidates(clip(2, []))] == ["no"] * 3
    # s2 with two events: 2 yes, 1 no -> round(1.13) - 1 = 0
    assert len(ev.candidates(clip(2, shown_copy(2)[:2]))) == 3
    # s6 (no pallet): 3 yes, 1 no -> 1 wanted, but pickup and drop need a pallet: none is asked
    assert [x["source"] for x in ev.candidates(clip(6))] == ["near_negative", "scripted", "scripted", "scripted"]
    # s0: two near negatives, nothing happened -> none wanted although pickup, drop and fall could be asked
    assert [x["label"] for x in ev.candidates(clip(0))] == ["no", "no"]


def test_ev_absent_type_hypotheses_name_categories_only():
    got = ev.candidates(clip(2))
    texts = {x["event_type"]: x["question"] for x in got if x["source"] == "absent_type"}
    want = {"near_miss": "Did a worker have a near miss with a forklift while it was moving?",
            "drop": "Did a forklift set down the pallet it was carrying?",
            "zone_entry": "Did a worker enter the restricted zone?"}
    assert texts == {k: want[k] for k in texts}
    # a generic hypothesis is 'yes' when any actor of the category did it (here: a near miss that is
    # in the events but not the scripts is not 'absent', so it is not asked at all)
    evs = DRAWN[2][1] + (E("near_miss", ["person_1", "forklift_1"], 12.0, 12.5),)
    assert "near_miss" not in {x["event_type"] for x in ev.candidates(clip(2, evs)) if x["source"] == "absent_type"}


def test_ev_label_is_the_events_not_the_script():
    # s3's collision script names amr_1 and forklift_1; the event list has forklift_2 instead
    evs = [E("collision", ["amr_1", "forklift_2"], 6.6, 10.3)]
    got = {x["event_type"]: x["label"] for x in ev.candidates(clip(3, evs))}
    assert got["collision"] == "no" and got["zone_entry"] == "no" and got["near_miss"] == "no"


def test_ev_items():
    c = clip(5)
    got = ev.items(c)
    assert [it.id for it in got] == [f"event_verification/warehouse-s5/{k}" for k in range(5)]
    assert [it.answer.label for it in got] == ["no", "yes", "yes", "yes", "no"]
    assert got[0].tags == {"event_type": "zone_entry", "actors": "person_1", "source": "near_negative",
                           "outside_m": 0.629565, "lighting": "day"}
    p = tc.prompts()["event_verification"]
    assert got[1].prompt == p["system"] + "\n\nQuestion: Did the worker in the white hard hat fall to the floor?"
    assert {(it.task, it.domain, it.env) for it in got} == {("event_verification", "W", "warehouse")}
    assert got[0].media == c.media()


# ------------------------------------------------------------------ Video QA

def test_count_options_are_the_nearest_other_counts():
    c = clip(2)
    assert vq._count_options(c, "p", 0) == ("1", "2", "3")                 # only three counts near 0
    for n in range(0, 13):
        opts = vq._count_options(c, f"count/{n}", n)
        vals = [int(v) for v in opts]
        assert len(set(vals)) == 3 and n not in vals and min(vals) >= 0, n
        assert vals == sorted(vals), n
        nearest = sorted((v for v in range(max(0, n - 3), n + 4) if v != n), key=lambda v: (abs(v - n), v))[:5]
        assert set(vals) <= set(nearest), n
        assert all(abs(v - n) <= 3 for v in vals)
    # n = 5: 4, 6, 3, 7, 2 are the five nearest (ties to the smaller), 8 never comes
    seen = set()
    for k in range(40):
        seen |= set(vq._count_options(c, f"x{k}", 5))
    assert seen == {"2", "3", "4", "6", "7"}
    seen = set()
    for k in range(40):
        seen |= set(vq._count_options(c, f"x{k}", 1))
    assert seen == {"0", "2", "3", "4"}


def test_pick_is_seeded_per_clip_and_program_and_keeps_pool_order():
    c = clip(2)
    pool = ["a", "b", "c", "d", "e", "f"]
    got = vq._pick(c, "prog", pool)
    assert len(got) == 3 and len(set(got)) == 3 and list(got) == sorted(got)
    assert vq._pick(c, "prog", pool) == got
    assert {vq._pick(c, f"prog{k}", pool) for k in range(20)} != {got}
    assert vq._pick(c, "prog", pool, 2) != got and len(vq._pick(c, "prog", pool, 2)) == 2
    assert vq._pick(c, "prog", ["x", "y", "z"]) == ("x", "y", "z")
    assert {vq._pick(clip(3), "prog", pool), vq._pick(clip(5), "prog", pool), vq._pick(clip(6), "prog", pool)} != {got}


def test_counts_questions():
    c = clip(3)
    qs = vq.counts(c)
    by = {q.program: q for q in qs}
    # s3 has a zone_entry script; its one zone event's actor is person_1
    assert by["zone_count"].correct == "1" and by["zone_count"].text == tc.prompts()["video_qa"]["questions"]["zone_count"]
    assert by["zone_count"].distractors == vq._count_options(c, "zone_count", 1)
    entries = [E("zone_entry", ["person_1"], 2, 3, "restricted_1"), E("zone_entry", ["person_1"], 4, 5, "restricted_1"),
               E("zone_entry", ["person_2"], 6.5, 7, "restricted_1")]
    assert {q.program: q.correct for q in vq.counts(clip(3, entries))}["zone_count"] == "2"      # distinct workers
    # one entry between shown frames (7.5-8.5 s): how many entered cannot be told, so it is not asked
    hidden = entries + [E("zone_entry", ["person_2"], 7.5, 8.5, "restricted_1")]
    assert "zone_count" not in {q.program for q in vq.counts(clip(3, hidden))}
    none = clip(3, [])
    assert {q.program: q.correct for q in vq.counts(none)}["zone_count"] == "0"
    assert "zone_count" not in {q.program for q in vq.counts(clip(2))}               # s2 has no zone script
    for q in qs:
        if q.program.startswith("count_"):
            cat = q.program[len("count_"):]
            assert q.correct == str(len(c.agents(cat))) and q.distractors == vq._count_options(c, q.program, int(q.correct))
            assert q.text == tc.prompts()["video_qa"]["questions"][q.program]
    assert [q.program for q in qs if q.program.startswith("count_")] == \
        [f"count_{cat}" for cat in vq.COUNTED if all(c.in_view(t) for t in c.agents(cat))]


def test_counts_skip_a_category_with_an_agent_out_of_view(monkeypatch):
    c = clip(2)
    monkeypatch.setattr(TimelineClip, "in_view", lambda self, t: t != "forklift_2")
    assert [q.program for q in vq.counts(c)] == ["count_person", "count_amr"]
    monkeypatch.setattr(TimelineClip, "in_view", lambda self, t: True)
    assert [(q.program, q.correct) for q in vq.counts(c)] == [("count_person", "1"), ("count_forklift", "2"),
                                                              ("count_amr", "1")]


def test_actor_colour_questions():
    c = clip(2)
    qs = {q.program: q for q in vq.actor_colours(c)}
    assert set(qs) == {"fall_hat", "pickup_paint", "collision_amr_paint"}
    assert (qs["fall_hat"].correct, qs["fall_hat"].distractors) == ("yellow", ("blue", "orange", "white"))
    assert qs["fall_hat"].tags == {"event_type": "fall", "actor": "person_1"}
    assert (qs["collision_amr_paint"].correct, qs["collision_amr_paint"].distractors) == ("orange", ("black", "grey", "white"))
    assert qs["collision_amr_paint"].tags == {"event_type": "collision", "actor": "amr_1"}
    assert qs["pickup_paint"].correct == "red" and set(qs["pickup_paint"].distractors) < {"blue", "green", "orange", "yellow"}
    assert qs["pickup_paint"].text == "What colour is the forklift that picks up a pallet?"
    # two falls: which worker's hat is asked is ambiguous, so no question
    two = clip(2, DRAWN[2][1] + (E("fall", ["person_1"], 13, 14),))
    assert "fall_hat" not in {q.program for q in vq.actor_colours(two)}
    # a colour the look lacks gives no question
    spec = with_looks(2)
    looks = dict(spec.looks)
    looks["amr_1"] = looks["amr_1"].model_copy(update={"color_names": {}})
    c = clip(2, spec=spec.model_copy(update={"looks": looks}))
    assert "collision_amr_paint" not in {q.program for q in vq.actor_colours(c)}
    assert [q.program for q in vq.actor_colours(clip(3))] == ["zone_shirt", "near_miss_paint", "collision_amr_paint"]
    q = vq.actor_colours(clip(3))[1]
    assert (q.correct, q.tags) == ("orange", {"event_type": "near_miss", "actor": "forklift_2"})


def _carried(c, **update):
    agents = []
    for a in c.spec.timeline.agents:
        if a.category == "pallet":
            a = a.model_copy(update={"trajectory": a.trajectory.model_copy(update=update)})
        agents.append(a)
    tl_ = c.spec.timeline.model_copy(update={"agents": agents})
    return TimelineClip(c.spec.model_copy(update={"timeline": tl_}), (), 320, 240)


def test_carriers_hold_a_pallet_inside_the_clip():
    c = clip(2)
    assert vq.carriers(c) == ["forklift_1"]
    assert vq.carriers(_carried(c, t_pick=15.99)) == ["forklift_1"]
    assert vq.carriers(_carried(c, t_pick=16.0)) == []                     # picked as the clip ends
    assert vq.carriers(_carried(c, t_pick=-5.0, t_drop=0.0)) == []          # set down before it starts
    assert vq.carriers(_carried(c, t_pick=-5.0, t_drop=0.01)) == ["forklift_1"]
    assert vq.carriers(clip(6)) == []
    (q,) = vq.carrier_colour(c)
    assert (q.program, q.correct, q.tags) == ("carrier_paint", "red", {"actor": "forklift_1"})
    assert set(q.distractors) < {"blue", "green", "orange", "yellow"} and len(set(q.distractors)) == 3
    assert q.text == "What colour is the forklift that carries a pallet?"
    assert vq.carrier_colour(clip(6)) == [] and vq.carrier_colour(_carried(c, t_pick=16.0)) == []


def test_carriers_two_forklifts():
    c = clip(5)
    spec = c.spec
    f2 = spec.timeline.agent("forklift_2")
    f1 = spec.timeline.agent("forklift_1")
    agents = [a.model_copy(update={"trajectory": a.trajectory.model_copy(update={"carrier": f1.trajectory})})
              if a.category == "pallet" else a for a in spec.timeline.agents]
    # a second pallet on forklift_2
    p = next(a for a in spec.timeline.agents if a.category == "pallet")
    agents.append(p.model_copy(update={"track_id": "pallet_9",
                                       "trajectory": p.trajectory.model_copy(update={"carrier": f2.trajectory})}))
    tl_ = spec.timeline.model_copy(update={"agents": agents})
    looks = {**spec.looks, "pallet_9": spec.looks[p.track_id]}
    two = TimelineClip(spec.model_copy(update={"timeline": tl_, "looks": looks}), (), 320, 240)
    assert vq.carriers(two) == ["forklift_1", "forklift_2"] and vq.carrier_colour(two) == []


def test_event_order_gap_is_half_a_second_at_both_ends():
    def order(evs):
        return {q.program: q for q in vq.event_order(clip(2, evs))}

    fall, coll = ["person_1"], ["amr_1", "forklift_2"]
    # every event holds a shown frame (4.57 s, 6.83 s, 9.13 s, 11.4 s)
    qs = order([E("fall", fall, 4.0, 5.0), E("collision", coll, 4.5, 5.5)])
    assert set(qs) == {"first_event", "last_event"}
    texts = tc.prompts()["video_qa"]["event_options"]
    assert qs["first_event"].correct == texts["fall"] and qs["last_event"].correct == texts["collision"]
    assert qs["first_event"].tags == {"event_type": "fall"} and qs["last_event"].tags == {"event_type": "collision"}
    assert qs["first_event"].text == "Which of these events happens first in the video?"
    assert qs["last_event"].text == "Which of these events happens last in the video?"
    assert order([E("fall", fall, 4.0, 5.0), E("collision", coll, 4.49, 5.5)]) == {}        # starts too close
    assert order([E("fall", fall, 4.0, 5.0), E("collision", coll, 4.5, 5.49)]) == {}        # ends too close
    assert set(order([E("fall", fall, 4.0, 5.0), E("collision", coll, 4.5, 4.9)])) == set()  # ends before
    assert order([E("fall", fall, 4.0, 5.0)]) == {} and order([]) == {}
    # the lead's type happening again later: "which happens first" has no single answer
    assert order([E("fall", fall, 4.0, 5.0), E("collision", coll, 6, 7), E("fall", fall, 9, 10)]) == {}
    assert set(order([E("fall", fall, 4.0, 5.0), E("fall", fall, 6.5, 7), E("collision", coll, 9, 10)])) \
        == {"last_event"}
    # only the last is clear
    pick = ["forklift_1", "pallet_1"]
    assert set(order([E("fall", fall, 4.0, 5.0), E("collision", coll, 4.2, 5.2), E("pickup", pick, 6.5, 7)])) \
        == {"last_event"}
    # an event between shown frames (a near miss at 7-8 s) could come anywhere in the order the model sees
    near = E("near_miss", ["person_1", "forklift_1"], 7, 8)
    assert order([E("fall", fall, 4.0, 5.0), E("collision", coll, 4.5, 5.5), near]) == {}


def test_event_order_options():
    texts = tc.prompts()["video_qa"]["event_options"]
    fall, coll, pick = ["person_1"], ["amr_1", "forklift_2"], ["forklift_1", "pallet_1"]
    q = vq._order_question(clip(2, [E("fall", fall, 2.0, 3.0), E("collision", coll, 4.5, 5)]), "first_event", True)
    # one other type present (collision): it, then two of the absent near_miss, pickup, drop, zone_entry
    assert q.distractors[0] == texts["collision"]
    assert set(q.distractors[1:]) < {texts[k] for k in ("near_miss", "pickup", "drop", "zone_entry")}
    assert len(set(q.distractors)) == 3 and texts["fall"] not in q.distractors
    evs = [E("fall", fall, 2.0, 3.0), E("collision", coll, 4.5, 5), E("pickup", pick, 6.5, 7)]
    q = vq._order_question(clip(2, evs), "first_event", True)
    assert q.distractors[:2] == (texts["collision"], texts["pickup"])
    assert q.distractors[2] in {texts[k] for k in ("near_miss", "drop", "zone_entry")}
    evs = [E("fall", fall, 2.0, 3.0), E("collision", coll, 4.5, 5), E("pickup", pick, 6.5, 7),
           E("drop", ["forklift_2", "pallet_1"], 9, 10)]
    q = vq._order_question(clip(2, evs), "first_event", True)
    assert q.distractors == (texts["collision"], texts["drop"], texts["pickup"])
    evs.append(E("zone_entry", fall, 11, 12))
    q = vq._order_question(clip(2, evs), "first_event", True)
    assert set(q.distractors) < {texts[k] for k in ("collision", "drop", "pickup", "zone_entry")}
    assert len(set(q.distractors)) == 3
    q = vq._order_question(clip(2, evs), "last_event", False)
    assert q.correct == texts["zone_entry"] and set(q.distractors) < {texts[k] for k in ("collision", "drop", "pickup", "fall")}


def test_questions_in_program_order():
    c = clip(2)
    assert [q.program for q in vq.questions(c)] == (
        [q.program for q in vq.counts(c)] + ["fall_hat", "pickup_paint", "collision_amr_paint", "carrier_paint"]
        + [q.program for q in vq.event_order(c)])


def test_balanced_letters():
    for n in range(0, 23):
        s = vq.balanced_letters(n, "k", str(n))
        assert len(s) == n and set(s) <= set(LETTERS)
        counts = Counter(s)
        assert all(n // 4 <= counts[L] <= n // 4 + 1 for L in LETTERS), (n, s)
        for b in range(0, n - n % 4, 4):
            assert sorted(s[b:b + 4]) == list(LETTERS), s
    assert vq.balanced_letters(9, "a") == vq.balanced_letters(9, "a")
    assert vq.balanced_letters(12, "a") != vq.balanced_letters(12, "b")
    assert vq.balanced_letters(8, "a", "b")[:4] == vq.balanced_letters(5, "a", "b")[:4]
    rng = rng_for("vantage", "video_qa", "a/b", "letters")
    assert vq.balanced_letters(4, "a", "b") == "".join(LETTERS[i] for i in rng.permutation(4))


def test_items_place_the_answer_at_its_letter():
    c = clip(2)
    qs = vq.questions(c)
    letters = "DCBA" * 3
    got = vq.items(c, letters[:len(qs)])
    assert len(got) == len(qs) >= 4
    p = tc.prompts()["video_qa"]
    for k, (it, q) in enumerate(zip(got, qs)):
        L = letters[k]
        assert it.id == f"video_qa/warehouse-s2/{k}" and it.answer.letter == L
        assert it.answer.options[LETTERS.index(L)] == q.correct
        assert sorted(o for o in it.answer.options if o != q.correct) == sorted(q.distractors)
        assert it.tags == {"program": q.program, "lighting": "day", **q.tags}
        assert it.prompt == p["template"].format(question=f"{p['preamble']} {q.text}", **dict(zip(LETTERS, it.answer.options)))
        assert (it.task, it.domain, it.env, it.media) == ("video_qa", "W", "warehouse", c.media())
    # the distractors' order is seeded per item
    rng = rng_for("vantage", "video_qa", "warehouse-s2", "options/0")
    others = [qs[0].distractors[i] for i in rng.permutation(3)]
    assert [o for o in got[0].answer.options if o != qs[0].correct] == others
    assert [it.answer.letter for it in vq.items(c)] == list(vq.balanced_letters(len(qs), "warehouse-s2"))
    with pytest.raises(ValueError, match=rf"warehouse-s2: {len(qs)} questions but {len(qs) + 1} letters"):
        vq.items(c, "A" * (len(qs) + 1))
    with pytest.raises(ValueError, match="questions but 0 letters"):
        vq.items(c, "")


def test_generate_splits_one_balanced_sequence():
    clips = [clip(2), clip(3), clip(5)]
    per = [len(vq.questions(c)) for c in clips]
    letters = vq.balanced_letters(sum(per), *(c.clip_id for c in clips))
    got = vq.generate(clips)
    assert "".join(it.answer.letter for it in got) == letters
    assert [it.id for it in got] == [f"video_qa/{c.clip_id}/{k}" for c, n in zip(clips, per) for k in range(n)]
    assert vq.generate([]) == []


class _Pose:
    def __init__(self, w, h):
        self.width, self.height = w, h

    def K_array(self):
        return "K"

    def cam_to_world_array(self):
        return "c2w"


def _in_view(monkeypatch, views, w=320, h=240):
    """in_view with the projection replaced by `views`: one (uv, z) per shown time, in order.
    Returns the answer, the camera poses asked for (time, long side: every shown frame's, once)
    and the shown times projected at (it stops at the first time in view)."""
    import numpy as np

    calls, projected = [], []

    def pose(camera, t, long_side):
        calls.append((t, long_side))
        return _Pose(w, h)

    seq = iter(views)

    def project(corners, K, c2w):
        assert (K, c2w) == ("K", "c2w") and np.asarray(corners).shape == (8, 3)
        uv, z = next(seq)
        projected.append(len(projected))
        return np.asarray(uv, float), np.asarray(z, float)

    monkeypatch.setattr(tc, "camera_pose", pose)
    monkeypatch.setattr(gcam, "project", project)
    got = TimelineClip(DRAWN[2][0], (), w, h).in_view("person_1")
    return got, calls, len(projected)


TIMES = [n / 30 for n in (0, 68, 137, 205, 274, 342, 411, 479)]


def test_share_in_view_is_the_box_area_inside_the_image(monkeypatch):
    import numpy as np

    boxes = iter([([[-50.0, 0.0]] * 4 + [[50.0, 100.0]] * 4, [1.0] * 8),      # half of it left of the image
                  ([[-50.0, -10.0]] * 4 + [[50.0, 90.0]] * 4, [1.0] * 8),     # and 10 % above: 0.5 * 0.9
                  ([[300.0, 200.0]] * 4 + [[340.0, 280.0]] * 4, [1.0] * 8),   # past the last pixel (319, 239)
                  ([[5.0, 5.0]] * 8, [1.0] * 8),                               # no area
                  ([[5.0, 5.0]] * 4 + [[9.0, 9.0]] * 4, [1.0] * 7 + [0.0]),    # a corner on the camera plane
                  ([[-50.0, 0.0]] * 4 + [[-10.0, 100.0]] * 4, [1.0] * 8),     # wholly left of the image
                  ([[10.0, 250.0]] * 4 + [[50.0, 300.0]] * 4, [1.0] * 8),     # wholly below it
                  ([[10.0, 10.0]] * 4 + [[10.5, 11.0]] * 4, [1.0] * 8)])      # a sliver of 0.5 px2, inside
    monkeypatch.setattr(tc, "camera_pose", lambda camera, t, long_side: _Pose(320, 240))
    monkeypatch.setattr(gcam, "project", lambda corners, K, c2w: tuple(np.asarray(x, float) for x in next(boxes)))
    c = TimelineClip(DRAWN[2][0], (), 320, 240)
    got = [c.share_in_view("person_1", 0.0) for _ in range(8)]
    assert got == [0.5, pytest.approx(0.45), pytest.approx(19 * 39 / (40 * 80)), 0.0, 0.0, 0.0, 0.0, 1.0]


def _shares(monkeypatch, table: dict):
    """share_in_view read from {(track, frame index): share}, 1.0 where not listed."""
    monkeypatch.setattr(TimelineClip, "share_in_view",
                        lambda self, tid, t: table.get((tid, TIMES.index(t)), 1.0))


def test_an_event_is_shown_only_with_its_actors_in_view(monkeypatch):
    """At the shown frame in its window (or the frames before and after a lasting event) every
    actor has at least half its projected box in the image."""
    t68 = 68 / 30
    nm = E("near_miss", ["person_1", "forklift_1"], 2.0, 2.5)                 # holds frame 1 (2.27 s) only
    fall = E("fall", ["person_1"], 7.0, 8.0)                                  # between frames 3 and 4
    c = clip(2, [nm, fall])
    _shares(monkeypatch, {("person_1", 1): 0.5})
    assert c.shown(nm) and c.appears("person_1")
    _shares(monkeypatch, {("person_1", 1): 0.499})
    assert not c.shown(nm) and c.appears("person_1")
    _shares(monkeypatch, {("forklift_1", 1): 0.0})
    assert not c.shown(nm) and c.shows_actors(nm, 0.0) and not c.shows_actors(nm, t68)
    # the fall: a frame before it and one after it, each with the worker in view
    _shares(monkeypatch, {("person_1", k): 0.0 for k in (0, 1, 2, 3)})
    assert not c.shown(fall)
    _shares(monkeypatch, {("person_1", k): 0.0 for k in (0, 1, 2)})
    assert c.shown(fall)
    _shares(monkeypatch, {("person_1", k): 0.0 for k in range(4, 8)})
    assert not c.shown(fall)
    _shares(monkeypatch, {("person_1", k): 0.0 for k in range(8)})
    assert not c.appears("person_1")


def test_a_hypothesis_naming_an_actor_never_in_view_is_not_asked(monkeypatch):
    """s5's near-negative zone walker (person_1): asked while half its box is in one shown frame,
    not once it is under half in every one (a 'no' about someone the frames never show)."""
    c = clip(5)
    asked = lambda: [(x["event_type"], x["source"]) for x in ev.candidates(c)][:2]   # noqa: E731
    _shares(monkeypatch, {("person_1", k): 0.49 for k in range(7)} | {("person_1", 7): 0.5})
    assert asked() == [("zone_entry", "near_negative"), ("fall", "scripted")]
    _shares(monkeypatch, {("person_1", k): 0.49 for k in range(8)})
    assert asked() == [("fall", "scripted"), ("collision", "scripted")]


def test_in_view_needs_every_corner_inside_at_one_shown_time(monkeypatch):
    inside = ([[0.0, 0.0]] * 4 + [[319.0, 239.0]] * 4, [0.1] * 8)       # the frame's corner pixels: inside
    got, calls, n = _in_view(monkeypatch, [inside])
    assert got is True and n == 1 and calls == [(t, 320) for t in TIMES]  # every shown time's pose at the long side
    for uv, z in (([[-0.01, 0.0]] + [[5.0, 5.0]] * 7, [1.0] * 8), ([[5.0, -0.01]] + [[5.0, 5.0]] * 7, [1.0] * 8),
                  ([[319.01, 5.0]] + [[5.0, 5.0]] * 7, [1.0] * 8), ([[5.0, 239.01]] + [[5.0, 5.0]] * 7, [1.0] * 8),
                  ([[5.0, 5.0]] * 8, [1.0] * 7 + [0.0]), ([[5.0, 5.0]] * 8, [1.0] * 7 + [-1.0])):
        got, _, n = _in_view(monkeypatch, [(uv, z)] * 8)
        assert got is False and n == 8, (uv, z)
    out = ([[-1.0, 5.0]] * 8, [1.0] * 8)
    got, _, n = _in_view(monkeypatch, [out] * 7 + [inside])                # in view at the last shown time only
    assert got is True and n == 8
    got, calls, _ = _in_view(monkeypatch, [([[0.0, 0.0]] * 4 + [[99.0, 199.0]] * 4, [0.1] * 8)], w=100, h=200)
    assert got is True and calls[0] == (0.0, 200)                          # a portrait frame: its height is the long side
    got, _, _ = _in_view(monkeypatch, [([[0.0, 0.0]] * 4 + [[100.0, 199.0]] * 4, [0.1] * 8)] * 8, w=100, h=200)
    assert got is False
