"""The four VANTAGE timeline task generators over ten warehouse clips (no Blender: the spec
and its events are pure; the shown frames come from the env's own sampling). Labels and
answers are checked against independent computations: fine numpy scans of the agents'
positions (near-miss distances, zone stays, which forklift holds a pallet), counts straight
from spec.timeline, the fallen worker found by its FallingAgent type."""
from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from blender_envs.infra import bodies
from blender_envs.infra.warehouse import sample_scene
from formats.canonical import canonical_json
from formats.vantage_item import LETTERS, VantageItem
from geometry.timeline import FallingAgent
from packagers.vantage_tasks import dense_captioning as dc
from packagers.vantage_tasks import event_verification as ev
from packagers.vantage_tasks import temporal_localization as tl
from packagers.vantage_tasks import timeline_clip as tc
from packagers.vantage_tasks import video_qa as vq
from packagers.vantage_tasks.timeline_clip import TimelineClip
from render_farm.seeds import rng_for

SEEDS = range(10)
SCAN_S = 1.0 / 480


def _clip(seed: int) -> TimelineClip:
    return TimelineClip.from_spec(sample_scene(rng_for("test_warehouse", seed, "scene"), f"s{seed}", seed, further=False), 320)


@pytest.fixture(scope="module")
def clips():
    return [_clip(s) for s in SEEDS]


def _track(clip, tid, ts):
    a = clip.spec.timeline.agent(tid)
    return np.array([a.position(float(t)) for t in ts])


def _scan_times(clip):
    return np.arange(0.0, clip.duration_s + 1e-12, SCAN_S)


def _own_min_moving_distance(clip, person, forklift):
    """Minimum centre distance on the ground while the forklift moves faster than 0.1 m/s
    (speed by finite differences of the scanned positions)."""
    ts = _scan_times(clip)
    p, f = _track(clip, person, ts)[:, :2], _track(clip, forklift, ts)[:, :2]
    speed = np.linalg.norm(np.gradient(f, SCAN_S, axis=0), axis=1)
    d = np.linalg.norm(p - f, axis=1)
    return float(d[speed > 0.1].min()) if np.any(speed > 0.1) else np.inf


def _own_zone_stays(clip, person):
    """Scan times when the person's ground point is inside the (axis-aligned) zone."""
    poly = np.array(clip.spec.zones[0].polygon)
    (x0, y0), (x1, y1) = poly.min(axis=0), poly.max(axis=0)
    ts = _scan_times(clip)
    xy = _track(clip, person, ts)[:, :2]
    inside = (xy[:, 0] > x0) & (xy[:, 0] < x1) & (xy[:, 1] > y0) & (xy[:, 1] < y1)
    return ts[inside], float(y0)


# ------------------------------------------------------------------ envelope, media, determinism

def test_items_validate_with_the_envs_sampled_frames_and_unique_ids(clips):
    items = [it for c in clips for m in (ev, tl, dc) for it in m.items(c)] + vq.generate(clips)
    assert len({it.id for it in items}) == len(items)
    for it in items:
        assert VantageItem.model_validate_json(it.model_dump_json()) == it
        m = it.media
        assert (m.kind, m.width, m.height, m.fps, m.duration_s, it.domain, it.env) == \
               ("video", 320, 240, 30.0, 16.0, "W", "warehouse")
        assert m.frame_numbers == [0, 68, 137, 205, 274, 342, 411, 479]
        assert m.times_s == [f / 30 for f in m.frame_numbers]
        assert it.id.startswith(f"{it.task}/warehouse-s")
    assert Counter(it.task for it in items) == {"event_verification": 38, "video_qa": 78,
                                                "temporal_localization": 22, "dense_captioning": 9}


def test_same_seed_same_bytes_other_seed_differs():
    def dump(clip):
        its = [it for m in (ev, tl, dc) for it in m.items(clip)] + vq.items(clip)
        return canonical_json([it.model_dump(mode="json") for it in its])
    assert dump(_clip(3)) == dump(_clip(3))
    assert dump(_clip(3)) != dump(_clip(4))


def test_from_run_reads_the_spec_and_the_clip_files_size(tmp_path, clips):
    clip = clips[2]
    (tmp_path / "scenes").mkdir()
    (tmp_path / "clips").mkdir()
    (tmp_path / "scenes" / "s2.json").write_text(json.dumps({"spec": clip.spec.model_dump(mode="json")}))
    doc = {"events": [e.model_dump(exclude_none=True) for e in clip.events],
           "frames": [{"camera": {"width": 640, "height": 480}}]}
    (tmp_path / "clips" / "warehouse-s2.json").write_text(json.dumps(doc))
    run = TimelineClip.from_run(tmp_path, "s2")
    assert (run.width, run.height, run.events) == (640, 480, clip.events)
    assert [i.answer for i in ev.items(run)] == [i.answer for i in ev.items(clip)]
    doc["events"][0]["t_end"] += 0.5
    (tmp_path / "clips" / "warehouse-s2.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="differ"):
        TimelineClip.from_run(tmp_path, "s2")
    for bad in ("../s2", "s2/../../x", ".hidden", ""):
        with pytest.raises(ValueError, match="not a scene id"):
            TimelineClip.from_run(tmp_path, bad)


def test_prompt_file_is_checked(tmp_path, monkeypatch):
    data = tc.prompts()
    assert data["event_verification"]["template"] == "{system}\n\nQuestion: {question}"
    broken = {k: v for k, v in data.items() if k != "dense_captioning"}
    path = tmp_path / "p.yaml"
    path.write_text(json.dumps(broken))                    # JSON is YAML
    monkeypatch.setattr(tc, "PROMPTS_FILE", path)
    tc.prompts.cache_clear()
    try:
        with pytest.raises(tc.PromptError, match="dense_captioning"):
            tc.prompts()
        del broken["temporal_localization"]["queries"]["fall"]
        broken["dense_captioning"] = data["dense_captioning"]
        path.write_text(json.dumps(broken))
        tc.prompts.cache_clear()
        with pytest.raises(tc.PromptError, match="fall"):
            tc.prompts()
    finally:
        tc.prompts.cache_clear()


# ------------------------------------------------------------------ Event Verification

def test_ev_split_is_near_the_papers(clips):
    labels = [it.answer.label for c in clips for it in ev.items(c)]
    assert Counter(labels) == {"yes": 22, "no": 16}
    assert 0.55 <= labels.count("yes") / len(labels) <= 104 / 163 + 0.02


def test_ev_prompts_pinned(clips):
    qs = [it.prompt.split("\n\nQuestion: ")[1] for it in ev.items(clips[5])]
    assert qs == ["Did the worker in the yellow hard hat enter the restricted zone?",
                  "Did the worker in the white hard hat fall to the floor?",
                  "Did the forklift with the driver in the orange vest collide with the black AMR?",
                  "Did the forklift with the driver in the yellow vest set down the pallet it was carrying?",
                  "Did a forklift pick up a pallet?"]
    assert [it.answer.label for it in ev.items(clips[5])] == ["no", "yes", "yes", "yes", "no"]
    assert ev.items(clips[5])[0].prompt.startswith("You are monitoring a warehouse through a fixed CCTV camera.")


def test_ev_near_miss_labels_from_an_own_distance_scan(clips):
    seen = Counter()
    for c in clips:
        for it in ev.items(c):
            if it.tags["event_type"] != "near_miss" or not it.tags["actors"]:
                continue
            person, forklift = it.tags["actors"].split(",")
            d = _own_min_moving_distance(c, person, forklift)
            assert it.answer.label == ("yes" if d < 1.5 else "no"), (it.id, d)
            assert d == pytest.approx(it.tags["min_distance_m"], abs=2e-3)
            if it.tags["source"] == "near_negative":
                assert 1.8 - 2e-3 <= d <= 3.0 + 2e-3 and 1.2 <= it.tags["threshold_ratio"] <= 2.0
            seen[it.answer.label] += 1
    assert seen == {"yes": 2, "no": 4}


def test_ev_zone_labels_from_an_own_point_in_rectangle_scan(clips):
    seen = Counter()
    for c in clips:
        for it in ev.items(c):
            if it.tags["event_type"] != "zone_entry" or not it.tags["actors"]:
                continue
            inside, y0 = _own_zone_stays(c, it.tags["actors"])
            assert it.answer.label == ("yes" if len(inside) and inside[0] > 0 else "no"), it.id
            if it.tags["source"] == "near_negative":
                walk_y = _track(c, it.tags["actors"], [0.0])[0, 1]
                assert it.tags["outside_m"] == pytest.approx(y0 - walk_y, abs=1e-6)
                assert 0.25 - 1e-6 <= it.tags["outside_m"] <= 0.8 + 1e-6
            seen[it.answer.label] += 1
    assert seen == {"yes": 5, "no": 4}


def test_ev_absent_type_negatives_name_events_that_did_not_happen(clips):
    n = 0
    for c in clips:
        for it in ev.items(c):
            if it.tags["source"] == "absent_type":
                kind = it.tags["event_type"]
                assert it.answer.label == "no" and kind not in {e.type for e in c.events}
                assert kind not in {s.type for s in c.spec.scripts}
                n += 1
    assert n == 8


def test_ev_label_follows_the_description_not_the_script():
    """Two forklifts in the same paint: a hypothesis names 'a forklift' and is true when either did it."""
    clip = _clip(6)
    assert clip.color("forklift_1", "paint") == clip.color("forklift_2", "paint") == "red"
    assert clip.describe("forklift_1") == tc.Description("a forklift", frozenset({"forklift_1", "forklift_2"}))
    near = [e for e in clip.events if e.type == "near_miss"][0]
    assert tc.matches(near, "near_miss", [frozenset({"person_3"}), frozenset({"forklift_2", "forklift_1"})])
    assert not tc.matches(near, "near_miss", [frozenset({"person_3"}), frozenset({"forklift_2"})])
    assert not tc.matches(near, "collision", [frozenset({"person_3"}), frozenset({"forklift_1"})])
    assert not tc.matches(near, "near_miss", [frozenset({"person_3"}), frozenset({"person_3"})])


# ------------------------------------------------------------------ Video QA

def _answer(it):
    return it.answer.options[LETTERS.index(it.answer.letter)]


def test_vqa_counts_recomputed_from_the_timeline(clips):
    seen = 0
    for c in clips:
        cats = Counter(a.category for a in c.spec.timeline.agents)
        for it in vq.items(c):
            prog = it.tags["program"]
            if prog.startswith("count_"):
                assert _answer(it) == str(cats[prog[len("count_"):]]), it.id
                seen += 1
            if prog == "zone_count":
                people = [a.track_id for a in c.spec.timeline.agents if a.category == "person"]
                stays = [_own_zone_stays(c, p)[0] for p in people]
                entered = [s for s in stays if len(s) and s[0] > 0]
                assert _answer(it) == str(len(entered)), it.id
    assert seen == 30


def test_vqa_colours_recomputed_independently(clips):
    seen = Counter()
    ts = np.arange(0.0, 16.0, 0.25)
    for c in clips:
        for it in vq.items(c):
            prog = it.tags["program"]
            if prog == "fall_hat":
                fallen = [a.track_id for a in c.spec.timeline.agents if isinstance(a, FallingAgent)]
                assert len(fallen) == 1 and _answer(it) == c.spec.looks[fallen[0]].color_names["hat"]
            elif prog == "carrier_paint":
                held = set()
                for p in (a for a in c.spec.timeline.agents if a.category == "pallet"):
                    for f in (a for a in c.spec.timeline.agents if a.category == "forklift"):
                        for t in ts:
                            fa = c.spec.timeline.agent(f.track_id)
                            ahead = fa.position(t)[:2] + bodies.CARRY_OFFSET_X * np.array([np.cos(fa.yaw(t)),
                                                                                          np.sin(fa.yaw(t))])
                            if np.linalg.norm(p.position(t)[:2] - ahead) < 1e-6 and \
                                    np.linalg.norm(fa.velocity(t)[:2]) > 0.1:
                                held.add(f.track_id)
                assert held == {it.tags["actor"]}, it.id
                assert _answer(it) == c.spec.looks[it.tags["actor"]].color_names["paint"]
            elif prog == "pickup_paint":
                pallets = [a for a in c.spec.timeline.agents if a.category == "pallet"]
                rising = [p for p in pallets if any(p.velocity(t)[2] > 0 for t in np.arange(0, 16, 0.05))]
                assert len(rising) == 1
                t = next(t for t in np.arange(0, 16, 0.05) if rising[0].velocity(t)[2] > 0)
                under = [f for f in c.spec.timeline.agents if f.category == "forklift"
                         and np.linalg.norm(f.position(t)[:2] - rising[0].position(t)[:2]) < 1.2]
                assert _answer(it) == c.spec.looks[under[0].track_id].color_names["paint"]
            else:
                continue
            seen[prog] += 1
    assert seen == {"fall_hat": 6, "carrier_paint": 7, "pickup_paint": 3}


def test_vqa_event_order_and_options(clips):
    texts = tc.prompts()["video_qa"]["event_options"]
    n = 0
    for c in clips:
        for it in vq.items(c):
            assert len(set(it.answer.options)) == 4, it.id
            if it.tags["program"] in ("first_event", "last_event"):
                evs = sorted(c.events, key=lambda e: e.t_start)
                lead = evs[0] if it.tags["program"] == "first_event" else evs[-1]
                assert _answer(it) == texts[lead.type]
                assert all(abs(e.t_start - lead.t_start) >= 0.5 for e in evs if e is not lead)
                n += 1
    assert n == 10


def test_vqa_answer_letters_balanced_over_the_set_and_each_clip(clips):
    items = vq.generate(clips)
    counts = Counter(it.answer.letter for it in items)
    assert counts == {"A": 19, "B": 19, "C": 20, "D": 20}
    assert max(counts.values()) - min(counts.values()) <= 1
    for c in clips:
        per = Counter(it.answer.letter for it in vq.items(c))
        assert max(per.values()) - min(per.values() if len(per) == 4 else [0]) <= 1, c.clip_id
    # the set's items are the clips' questions, in order, only the letters moved
    assert [_answer(it) for it in items] == [_answer(it) for c in clips for it in vq.items(c)]
    assert Counter(vq.balanced_letters(10, "k")) in ({"A": 3, "B": 3, "C": 2, "D": 2}, {"A": 3, "B": 2, "C": 3, "D": 2},
                                                      {"A": 3, "B": 2, "C": 2, "D": 3}, {"A": 2, "B": 3, "C": 3, "D": 2},
                                                      {"A": 2, "B": 3, "C": 2, "D": 3}, {"A": 2, "B": 2, "C": 3, "D": 3})


def test_vqa_prompt_lists_the_options_in_letter_order(clips):
    it = vq.items(clips[2])[0]
    body = it.prompt.split("\n\n")
    assert body[0] == ("You are shown frames sampled in time order from a fixed CCTV camera in a warehouse. "
                       "How many workers on foot (not counting forklift drivers) appear in the video?")
    assert body[1] == "\n".join(f"{L}. {o}" for L, o in zip(LETTERS, it.answer.options))
    assert body[2] == "Respond with ONLY the letter of the correct option (A, B, C, or D)."


# ------------------------------------------------------------------ Temporal Localization, DVC

def test_temporal_windows_are_the_events_of_the_queried_type(clips):
    for c in clips:
        its = tl.items(c)
        assert [it.tags["event_type"] for it in its] == [k for k in tc.EVENT_TYPES if k in {e.type for e in c.events}]
        for it in its:
            want = sorted((round(e.t_start, 2), round(e.t_end, 2)) for e in c.events if e.type == it.tags["event_type"])
            assert it.answer.windows == want and all(0 <= a < b <= 16.0 for a, b in want)
    near = tl.items(clips[3])[0]
    assert (near.tags["event_type"], near.answer.windows) == ("near_miss", [(5.36, 5.86)])
    assert near.prompt.endswith("The event: a worker has a near miss with a moving forklift")


def test_temporal_near_miss_window_from_an_own_scan(clips):
    c = clips[3]
    ts = _scan_times(c)
    d = np.linalg.norm(_track(c, "person_2", ts)[:, :2] - _track(c, "forklift_2", ts)[:, :2], axis=1)
    close = ts[d < 1.5]
    (a, b), = tl.items(c)[0].answer.windows
    assert abs(close[0] - a) <= 0.005 + SCAN_S and abs(close[-1] - b) <= 0.005 + SCAN_S


def test_dense_captions_ordered_and_pinned(clips):
    (it,) = dc.items(clips[2])
    assert [(e.start, e.end, e.caption) for e in it.answer.events] == [
        (7.88, 8.59, "The worker in the lime vest falls to the floor"),
        (7.93, 11.19, "The yellow forklift collides with the orange AMR"),
        (10.31, 11.31, "The red forklift picks up a pallet")]
    for c in clips:
        got = dc.items(c)
        assert len(got) == (1 if c.events else 0)
        if got:
            starts = [e.start for e in got[0].answer.events]
            assert starts == sorted(starts) and len(starts) == len(c.events)


def test_an_event_the_templates_cannot_describe_is_refused(clips):
    """A person-forklift collision would be captioned 'A forklift collides with an AMR': refuse it."""
    clip = clips[2]
    odd = clip.events[0].model_copy(update={"type": "collision", "actors": ["person_1", "forklift_1"]})
    with pytest.raises(ValueError, match="no template"):
        TimelineClip(clip.spec, clip.events + (odd,), 320, 240)
    with pytest.raises(ValueError, match="no template"):
        TimelineClip(clip.spec, (clip.events[0].model_copy(update={"type": "tailgating"}),), 320, 240)


def test_ev_label_needs_the_hypothesis_actors_not_just_the_type(clips):
    """A near-miss hypothesis about a pair that never met is 'no' although the clip has a near
    miss (of another pair): clip 3's zone walker and its collision forklift, checked by scan."""
    from blender_envs.infra.warehouse import ScriptedEvent
    c = clips[3]
    extra = ScriptedEvent(type="near_miss", actors=["person_1", "forklift_1"], positive=False, band="V1",
                          planned={"min_distance_m": 9.0, "threshold_m": 1.5})
    spec = c.spec.model_copy(update={"scripts": c.spec.scripts + [extra]})
    got = ev.items(TimelineClip(spec, c.events, c.width, c.height))
    (it,) = [i for i in got if i.tags["actors"] == "person_1,forklift_1"]
    assert it.prompt.endswith("Did the worker in the orange vest have a near miss with the green forklift while it was moving?")
    assert it.answer.label == "no" and _own_min_moving_distance(c, "person_1", "forklift_1") > 1.5
    assert any(e.type == "near_miss" for e in c.events)


def test_in_view_needs_the_whole_box_inside_the_frame(clips):
    """A standing worker cut by the frame's left edge does not 'appear' for counting; moved
    inwards it does."""
    from geometry.camera import project
    from geometry.clip import camera_pose
    from geometry.timeline import Agent, Stationary
    c = clips[2]
    pose = camera_pose(c.spec.timeline.camera, 0.0, 320)
    y = c.spec.bands["P"][1]

    def worker(x):
        return Agent(track_id="person_9", category="person", mesh="person", size=[0.4, 0.56, 1.7],
                     trajectory=Stationary(position=[x, y, 0.85]))

    def corners_in(x):
        uv, z = project(worker(x).box_corners(0.0), pose.K_array(), pose.cam_to_world_array())
        return int(np.sum((z > 0) & np.all((uv >= 0) & (uv <= [319, 239]), axis=1)))

    xs = np.arange(-30.0, 30.0, 0.05)
    cut = next(x for x in xs if 0 < corners_in(x) < 8)
    inner = next(x for x in xs if corners_in(x) == 8)
    for x, want in ((cut, False), (inner + 0.5, True)):
        tl_ = c.spec.timeline.model_copy(update={"agents": c.spec.timeline.agents + [worker(x)]})
        clip = TimelineClip(c.spec.model_copy(update={"timeline": tl_}), (), 320, 240)
        assert clip.in_view("person_9") is want, x
