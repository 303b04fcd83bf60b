"""The four VANTAGE timeline task generators over drawn intersection (T) and entrance (S) clips
(no Blender: spec and events are pure, the shown frames are the env's own sampling). Labels
are checked against independent readings:

  * the hypothesis text read back by this file's own phrase tables (which agents does "the
    pedestrian in the beige shirt" fit?) and matched against the derived events by hand: a
    'yes' is exactly an event of that type whose actors the phrases fit (the tailgater second);
  * near misses from an own footprint-gap scan (points along the box edges, finite-difference
    speeds), loitering from an own stay-in-rectangle scan, tailgating from own door-line
    crossings within one granted door opening;
  * temporal windows and captions against the events; balanced answer letters over the set.
"""
from __future__ import annotations

import re
from collections import Counter
from itertools import permutations

import numpy as np
import pytest

from blender_envs.infra import entrance, intersection
from formats.canonical import canonical_json
from formats.vantage_item import LETTERS, VantageItem
from geometry.clip import camera_pose
from packagers.vantage_tasks import dense_captioning as dc
from packagers.vantage_tasks import event_verification as ev
from packagers.vantage_tasks import temporal_localization as tl
from packagers.vantage_tasks import video_qa as vq
from packagers.vantage_tasks.timeline_clip import TimelineClip
from render_farm.seeds import rng_for

SEEDS = range(6)
MODULES = {"intersection": intersection, "entrance": entrance}
SCAN_S = 1.0 / 60

# this file's own reading of descriptions: (pattern, category, colour keys, garment param)
PHRASES = {
    "intersection": [(r"the pedestrian in the (.+) shirt", "person", ("shirt",)),
                     (r"the pedestrian in (.+) trousers", "person", ("trousers",)),
                     (r"the pedestrian with (.+) hair", "person", ("hair",)),
                     (r"the cyclist on the (.+) bicycle", "bicycle", ("frame",)),
                     (r"the cyclist in the (.+) shirt", "bicycle", ("shirt",)),
                     (r"the cyclist in the (.+) helmet", "bicycle", ("helmet",)),
                     (r"the motorcyclist in the (.+) jacket", "motorcycle", ("jacket",)),
                     (r"the motorcyclist in the (.+) helmet", "motorcycle", ("helmet",)),
                     (r"the (.+) motorcycle", "motorcycle", ("paint",)),
                     (r"the (\S+) car", "car", ("paint",)),
                     (r"the (\S+) (\S+)", "car", ("paint", "style"))],
    "entrance": [(r"the person in the (.+) (coat|shirt)", "person", ("top", "param:top")),
                 (r"the person in (.+) trousers", "person", ("trousers",)),
                 (r"the person with the (.+) backpack", "person", ("backpack",)),
                 (r"the person with the (.+) briefcase", "person", ("briefcase",)),
                 (r"the person with (.+) hair", "person", ("hair",))],
}
GENERIC = {"a pedestrian": "person", "a car": "car", "a motorcycle": "motorcycle", "a cyclist": "bicycle",
           "a person": "person"}
# hypothesis -> the event's actors in order of the groups (None: any order)
HYPOTHESES = {
    "collision": (r"Did (.+) collide with (.+)\?", None),
    "near_miss": (r"Did (.+) have a near miss with (.+)\?", None),
    "stop_line_violation": (r"Did (.+) cross the stop line while its signal was red\?", None),
    "wrong_way": (r"Did (.+) go the wrong way in a lane\?", None),
    "jaywalking": (r"Did (.+) cross the road outside the zebra crossings\?", None),
    "badge_use": (r"Did (.+) use an access badge to open the door\?", None),
    "tailgating": (r"Did (.+) tailgate (.+) through the door\?", (1, 0)),    # [first crosser, tailgater]
    "unauthorized_entry": (r"Did (.+) enter the building without authorization\?", None),
    "loitering": (r"Did (.+) loiter beside the door\?", None),
}


def _clip(env: str, seed: int) -> TimelineClip:
    spec = MODULES[env].sample_scene(rng_for(f"test_{env}", seed, "scene"), f"s{seed}", seed)
    return TimelineClip.from_spec(spec, 320)


@pytest.fixture(scope="module")
def clips():
    return {env: [_clip(env, s) for s in SEEDS] for env in MODULES}


def fits(clip: TimelineClip, phrase: str) -> set[str]:
    """The agents a description fits, by this file's phrase tables and the looks."""
    if phrase in GENERIC:
        return {a.track_id for a in clip.spec.timeline.agents if a.category == GENERIC[phrase]}
    env = clip.spec.env
    for pattern, cat, keys in PHRASES[env]:
        m = re.fullmatch(pattern, phrase)
        if not m:
            continue
        want = m.groups()
        out = set()
        for a in clip.spec.timeline.agents:
            if a.category != cat:
                continue
            look = clip.spec.looks[a.track_id]
            have = tuple(look.params.get(k[6:]) if k.startswith("param:") else look.color_names.get(k) for k in keys)
            if have == want:
                out.add(a.track_id)
        return out
    raise AssertionError(f"unreadable description {phrase!r}")


def read_hypothesis(clip: TimelineClip, kind: str, text: str) -> tuple[list[set[str]], list[str]]:
    pattern, order = HYPOTHESES[kind]
    m = re.fullmatch(pattern, text)
    assert m, (kind, text)
    phrases = list(m.groups())
    if order is not None:
        phrases = [phrases[i] for i in order]
    return [fits(clip, p) for p in phrases], phrases


def own_share(clip: TimelineClip, track_id: str, t: float) -> float:
    """The share of the agent's 3-D box inside the image at t, by hand: x_cam = R^T (X - C),
    pixel = K x_cam / z, the box of the 8 corners clipped to [0, w - 1] x [0, h - 1]."""
    pose = camera_pose(clip.spec.timeline.camera, t, max(clip.width, clip.height))
    K, M = pose.K_array(), pose.cam_to_world_array()
    X = (clip.spec.timeline.agent(track_id).box_corners(t) - M[:3, 3]) @ M[:3, :3]
    if np.any(X[:, 2] <= 0):
        return 0.0
    u = K[0, 0] * X[:, 0] / X[:, 2] + K[0, 2]
    v = K[1, 1] * X[:, 1] / X[:, 2] + K[1, 2]
    w, h = pose.width - 1, pose.height - 1
    inside = max(0.0, min(u.max(), w) - max(u.min(), 0.0)) * max(0.0, min(v.max(), h) - max(v.min(), 0.0))
    return inside / ((u.max() - u.min()) * (v.max() - v.min()))


def shown_by_frames(clip: TimelineClip, e) -> bool:
    """A shown frame's time lies in the event's window (neither environment has a lasting type)
    and at least half of every actor's box is in the image there."""
    return any(e.t_start <= t <= e.t_end and all(own_share(clip, a, t) >= 0.5 for a in e.actors)
               for t in (f / clip.media().fps for f in clip.media().frame_numbers))


def happened(clip: TimelineClip, kind: str, sets: list[set[str]], ordered: bool, events=None) -> bool:
    for e in clip.events if events is None else events:
        if e.type != kind:
            continue
        movers = [a for a in e.actors if clip.category(a) != "door"]
        assigns = [tuple(movers)] if ordered else permutations(movers, len(sets))
        if any(all(a in s for a, s in zip(p, sets)) for p in assigns):
            return True
    return False


def _question(it: VantageItem) -> str:
    return it.prompt.split("\n\nQuestion: ", 1)[1]


def test_items_validate_and_carry_their_domain(clips):
    for env, domain in (("intersection", "T"), ("entrance", "S")):
        cs = clips[env]
        items = vq.generate(cs) + [it for c in cs for m in (ev, tl, dc) for it in m.items(c)]
        assert {(it.domain, it.env) for it in items} == {(domain, env)}
        assert len({it.id for it in items}) == len(items)
        for it in items:
            VantageItem.model_validate(it.model_dump())
        assert {it.task for it in items} == {"video_qa", "event_verification", "temporal_localization",
                                            "dense_captioning"}, env


def _bytes(cs) -> list[str]:
    return [canonical_json(it.model_dump(mode="json")) for it in
            vq.generate(cs) + [it for c in cs for m in (ev, tl, dc) for it in m.items(c)]]


def test_same_seed_same_bytes(clips):
    assert _bytes([_clip("entrance", 1)]) == _bytes([clips["entrance"][1]])      # a fresh draw
    assert _bytes(clips["intersection"][:2]) == _bytes(clips["intersection"][:2])
    assert _bytes([clips["entrance"][1]]) != _bytes([clips["entrance"][2]])


def test_ev_labels_agree_with_the_text_read_back(clips):
    labels = Counter()
    for env in MODULES:
        for c in clips[env]:
            for it in ev.items(c):
                kind = it.tags["event_type"]
                sets, phrases = read_hypothesis(c, kind, _question(it))
                for s, p in zip(sets, phrases):
                    assert s, (c.clip_id, p)                               # it names someone in the clip
                    if p.startswith("the "):
                        assert len(s) == 1, (c.clip_id, p, s)               # a definite description is unique
                ordered = HYPOTHESES[kind][1] is not None
                shown = [e for e in c.events if shown_by_frames(c, e)]
                want = "yes" if happened(c, kind, sets, ordered, shown) else "no"
                assert it.answer.label == want, (c.clip_id, _question(it))
                if want == "no":            # never a 'no' about an event that happened between the frames
                    assert not happened(c, kind, sets, ordered), (c.clip_id, _question(it))
                if it.tags["source"] == "absent_type":
                    assert want == "no" and not any(e.type == kind for e in c.events)
                labels[(env, it.answer.label)] += 1
    # both labels in both domains (the paper: 104 yes / 59 no over its three domains); intersection 4 / 9
    # with its scripts on arms the camera sees (intersection-4: every scripted positive asked), 4 / 7 when
    # events with actors out of view stopped being asked, 8 / 10 before (6 / 10 while the scripts left
    # near misses between the frames), entrance 3 / 4 while they left tailgatings there
    assert all(labels[(env, lab)] > 0 for env in MODULES for lab in ("yes", "no")), labels
    assert labels == {("intersection", "yes"): 4, ("intersection", "no"): 9, ("entrance", "yes"): 8,
                      ("entrance", "no"): 6}


# ------------------------------------------------------------------ independent physics

def _edge_points(poly: np.ndarray, n: int = 40) -> np.ndarray:
    s = np.linspace(0.0, 1.0, n, endpoint=False)[:, None]
    return np.vstack([poly[i] + s * (poly[(i + 1) % len(poly)] - poly[i]) for i in range(len(poly))])


def _inside(poly: np.ndarray, p) -> bool:
    x, y, inside = float(p[0]), float(p[1]), False
    for (x0, y0), (x1, y1) in zip(poly, np.roll(poly, -1, axis=0)):
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


def own_near_miss(clip: TimelineClip, vru: str, vehicle: str) -> bool:
    """The footprints closer than 1.0 m while the vehicle moves faster than 1 m/s, never touching."""
    a, b = clip.spec.timeline.agent(vru), clip.spec.timeline.agent(vehicle)
    near, touch = False, False
    for t in np.arange(SCAN_S, clip.duration_s - SCAN_S, SCAN_S):
        P, Q = np.asarray(a.footprint(t))[:, :2], np.asarray(b.footprint(t))[:, :2]
        reach = max(np.linalg.norm(P - P.mean(axis=0), axis=1)) + max(np.linalg.norm(Q - Q.mean(axis=0), axis=1))
        if np.linalg.norm(P.mean(axis=0) - Q.mean(axis=0)) > reach + 1.5:
            continue                                     # the footprints are more than 1.5 m apart
        if any(_inside(Q, p) for p in P) or any(_inside(P, q) for q in Q):
            touch = True
            continue
        gap = float(np.min(np.linalg.norm(_edge_points(P)[:, None] - _edge_points(Q)[None], axis=2)))
        v = np.linalg.norm((b.position(t + SCAN_S) - b.position(t - SCAN_S))[:2]) / (2 * SCAN_S)
        near |= gap < 1.0 and v > 1.0
    return near and not touch


def own_loiter(clip: TimelineClip, person: str) -> bool:
    poly = np.asarray(clip.spec.loiter_region.polygon, float)
    lo, hi = poly.min(axis=0), poly.max(axis=0)
    a = clip.spec.timeline.agent(person)
    ts = np.arange(0.0, clip.duration_s + 1e-9, SCAN_S)
    inside = [bool(np.all((a.position(t)[:2] >= lo) & (a.position(t)[:2] <= hi))) for t in ts]
    best = run = 0
    for x in inside:
        run = run + 1 if x else 0
        best = max(best, run)
    return (best - 1) * SCAN_S > 10.0


def own_tailgate(clip: TimelineClip, first: str, second: str) -> bool:
    """Both cross the door line inwards inside one door opening that a grant started, first first."""
    spec = clip.spec
    door = next(a for a in spec.timeline.agents if a.category == "door")
    ts = np.arange(0.0, clip.duration_s, SCAN_S / 2)

    def crossing(pid: str) -> float | None:
        a = spec.timeline.agent(pid)
        for t0, t1 in zip(ts, ts[1:]):
            p0, p1 = a.position(t0), a.position(t1)
            if p0[1] < spec.door.line_y <= p1[1] and spec.door.x0 <= p1[0] <= spec.door.x1:
                return float(t1)
        return None

    def opening_start(t: float) -> float | None:
        if door.opening_deg(t) <= 0.0:
            return None
        while t > 0 and door.opening_deg(t) > 0.0:
            t -= SCAN_S / 4
        return t

    c1, c2 = crossing(first), crossing(second)
    if c1 is None or c2 is None or not c1 < c2:
        return False
    s1, s2 = opening_start(c1), opening_start(c2)
    if s1 is None or s2 is None or abs(s1 - s2) > SCAN_S:
        return False
    return any(s1 - 1.0 - SCAN_S <= g <= s1 + SCAN_S for g in spec.grants)


def test_scripted_labels_agree_with_own_scans(clips):
    """Every near-miss, loitering and tailgating script: its hypothesis is asked with the own scan's
    answer, or, when the scan finds the event but no shown frame shows it (between them, or out of view), not
    asked."""
    checked = Counter()
    for env in MODULES:
        for c in clips[env]:
            asked = {(it.tags["event_type"], it.tags["actors"]): it for it in ev.items(c) if it.tags["actors"]}
            for script in c.spec.scripts:
                kind, actors = script.type, script.actors
                if kind == "near_miss":
                    got = own_near_miss(c, *actors)
                elif kind == "loitering":
                    got = own_loiter(c, actors[0])
                elif kind == "tailgating":
                    got = own_tailgate(c, *actors)
                else:
                    continue
                it = asked.get((kind, ",".join(actors)))
                if it is None:
                    assert got and not any(shown_by_frames(c, e) for e in c.events if e.type == kind
                                           and set(e.actors) == set(actors)), (c.clip_id, kind, actors)
                    checked[(kind, "not asked")] += 1
                    continue
                sets, _ = read_hypothesis(c, kind, _question(it))
                if any(len(s) != 1 for s in sets):
                    checked[(kind, "not read back")] += 1
                    continue
                assert (it.answer.label == "yes") == got, (c.clip_id, _question(it))
                checked[(kind, it.answer.label)] += 1
    # every scripted event holds a shown frame with its actors in view (the scripts put them there, on
    # arms the camera sees: intersection-4), so each is asked; two near-miss hypotheses name a person by
    # a description more than one person fits, so they are not read back here
    assert checked == {("near_miss", "yes"): 1, ("near_miss", "not read back"): 2, ("tailgating", "yes"): 1,
                       ("loitering", "no"): 2, ("loitering", "yes"): 1}


# ------------------------------------------------------------------ the other tasks

def test_temporal_windows_and_captions_are_the_events(clips):
    for env in MODULES:
        for c in clips[env]:
            shown = [e for e in c.events if shown_by_frames(c, e)]
            for it in tl.items(c):
                kind = it.tags["event_type"]
                want = sorted((round(e.t_start, 2), round(e.t_end, 2)) for e in shown if e.type == kind)
                assert it.answer.windows == want and all(0 <= a < b <= c.duration_s for a, b in want)
            assert len(tl.items(c)) == len({e.type for e in shown})
            got = dc.items(c)
            assert len(got) == (1 if shown else 0)
            if got:
                starts = [e.start for e in got[0].answer.events]
                assert starts == sorted(starts) and len(starts) == len(shown)


def test_vqa_answers_recomputed(clips):
    for env in MODULES:
        cs = clips[env]
        items = vq.generate(cs)
        counts = Counter(it.answer.letter for it in items)
        assert max(counts.values()) - min(counts[L] for L in LETTERS) <= 1, counts
        by_clip = {c.clip_id: c for c in cs}
        for it in items:
            c = by_clip[it.media.clip_id]
            prog, answer = it.tags["program"], it.answer.options[LETTERS.index(it.answer.letter)]
            assert len(set(it.answer.options)) == 4
            if prog.startswith("count_"):
                cat = prog[len("count_"):]
                assert answer == str(sum(a.category == cat for a in c.spec.timeline.agents))
            elif prog in ("jaywalk_count", "badge_count"):
                kind = {"jaywalk_count": "jaywalking", "badge_count": "badge_use"}[prog]
                assert answer == str(len({e.actors[0] for e in c.events if e.type == kind}))
            elif "actor" in it.tags:
                (e,) = [e for e in c.events if e.type == it.tags["event_type"]]
                assert it.tags["actor"] in e.actors
                look = c.spec.looks[it.tags["actor"]].color_names
                assert answer in look.values()
                if env == "entrance" and it.tags["event_type"] == "tailgating":
                    assert it.tags["actor"] == e.actors[1]              # the follower, not the badge holder
            else:
                evs = sorted(c.events, key=lambda e: e.t_start)
                lead = evs[0] if prog == "first_event" else evs[-1]
                assert it.tags["event_type"] == lead.type


def test_the_shown_events_table_counts_each_type(capsys):
    """scripts/vantage_shown_events.py, the source of the deviations table's counts, on one warehouse
    draw (stream 'warehouse', seed 0): its drop and fall hold no shown frame but last, so are shown."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "scripts" / "vantage_shown_events.py"
    spec = importlib.util.spec_from_file_location("vantage_shown_events", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.main(["1", "--env", "warehouse"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "warehouse: shown frames at 0.00, 2.27, 4.57, 6.83, 9.13, 11.40, 13.70, 15.97 s"
    assert [line.split()[0] for line in lines[1:]] == ["collision", "drop", "fall", "near_miss", "zone_entry"]
    assert "1 events, a frame inside    0, shown    1 (100%); length 1.00-1.00 s" in lines[2]
    assert "1 events, a frame inside    0, shown    1 (100%); length 0.89-0.89 s" in lines[3]
    assert "1 events, a frame inside    1, shown    1 (100%); length 0.80-0.80 s" in lines[4]
    assert script.main(["0"]) == 2 and "between 1 and 10000" in capsys.readouterr().err
