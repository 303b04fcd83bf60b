"""Pins of blender_envs/infra/entrance_events.py on hand-placed people and doors (no scene draw, no
Blender): the grant window at its two ends, the threshold box as a closed box, the crossing instant
of a person pausing on the door line, step-ins that are no passage, a door open from the clip's
start, runners found by the coarse scan, and the badge use of grants at the clip's ends."""
from __future__ import annotations

import pytest

from blender_envs.infra.entrance_door import DoorAgent, Swing, swing_knots
from blender_envs.infra.entrance_events import (COARSE_S, GRANT_LAG_S, LOITER_S, READER_REACH_M, THRESHOLD_M,
                                                DoorGeometry, _Coarse, derive_events, granted, passages)
from blender_envs.infra.entrance_layout import PANEL_SIZE
from blender_envs.infra.people import CIVILIAN_SIZE_XY
from geometry.timeline import Agent, Arc, Line, Path, PathTrajectory, Stationary, profile_from_phases

GEO = DoorGeometry(line_y=2.0, x0=-0.5, x1=0.5, reader_xy=[-0.65, 1.9])
REGION = ("loiter_1", [[20.0, -4.0], [25.0, -4.0], [25.0, -1.0], [20.0, -1.0]])
OPEN = (3.0, 1.0, 3.0, 1.0)          # open from 3 s, fully open 4-7 s, shut at 8 s
SIZE = [*CIVILIAN_SIZE_XY, 1.7]


def _door_from(times, angles) -> DoorAgent:
    return DoorAgent(track_id="door_1", category="door", mesh="door", size=list(PANEL_SIZE),
                     trajectory=Swing(hinge=[0.5, GEO.line_y + 0.125], radius=0.48, z=1.05, yaw0_deg=180.0,
                                      direction=-1, times=times, angles_deg=angles))


def _door(openings) -> DoorAgent:
    return _door_from(*swing_knots(openings))


def _person(tid, path: Path, prof) -> Agent:
    return Agent(track_id=tid, category="person", mesh="person", size=SIZE,
                 trajectory=PathTrajectory(path=path, speed=prof, z=0.85))


def _walker(tid: str, t_cross: float, v: float = 1.2, x: float = 0.0, length: float = 12.0) -> Agent:
    """Walking +y along x from the start, crossing the door line at t_cross."""
    return _person(tid, Path(start=[x, GEO.line_y - v * t_cross], heading_deg=90.0, segments=[Line(length=length)]),
                   profile_from_phases(v, [("cruise", 60.0)]))


def _stander(tid: str, xy) -> Agent:
    return Agent(track_id=tid, category="person", mesh="person", size=SIZE, trajectory=Stationary(position=[*xy, 0.85]))


def _events(people, door, grants, t1=10.0, geo=GEO):
    return derive_events([door] + people, grants, geo, REGION, t1)


def _kinds(evs):
    return [(e.type, e.actors) for e in evs]


# ------------------------------------------------------------------ the grant window

def test_a_grant_counts_from_grant_lag_before_the_opening_up_to_its_start():
    op = (3.0, 8.0)
    assert granted(op, [3.0 - GRANT_LAG_S]) and granted(op, [3.0]) and granted(op, [2.5])
    assert not granted(op, [3.0 - GRANT_LAG_S - 0.01]) and not granted(op, [3.01])
    assert not granted(op, [5.0])                 # a grant while the door is already open opens nothing
    assert not granted(op, []) and granted(op, [0.5, 2.2, 9.0])


def test_a_grant_issued_while_the_door_stands_open_does_not_authorise_the_entry():
    evs = _events([_walker("person_1", 6.0)], _door([OPEN]), [5.0])
    assert _kinds(evs) == [("unauthorized_entry", ["person_1"])]


def test_a_door_open_from_the_clips_start():
    door = _door_from([0.0, 2.0, 3.0], [90.0, 90.0, 0.0])
    lead, second = _walker("person_1", 0.5, x=0.4), _walker("person_2", 1.5, x=0.2)   # both clear of the reader
    evs = _events([lead, second], door, [0.0], t1=6.0)
    assert _kinds(evs) == [("tailgating", ["person_1", "person_2"])]
    evs = _events([lead], door, [], t1=6.0)
    assert _kinds(evs) == [("unauthorized_entry", ["person_1"])]


# ------------------------------------------------------------------ passages

def test_passages_are_inward_plus_one_and_outward_minus_one():
    door = _door([OPEN])
    inward = _walker("person_1", 5.0)
    out = _person("person_2", Path(start=[0.0, GEO.line_y + 1.2 * 6.0], heading_deg=-90.0, segments=[Line(length=12)]),
                  profile_from_phases(1.2, [("cruise", 60.0)]))
    c = _Coarse([inward, out], 10.0)
    h = THRESHOLD_M / 1.2
    assert passages(inward, GEO, c) == [(pytest.approx(5.0 - h, abs=2e-6), pytest.approx(5.0 + h, abs=2e-6),
                                         pytest.approx(5.0, abs=2e-6), 1)]
    assert passages(out, GEO, c) == [(pytest.approx(6.0 - h, abs=2e-6), pytest.approx(6.0 + h, abs=2e-6),
                                      pytest.approx(6.0, abs=2e-6), -1)]
    assert _events([inward, out], door, [2.5]) == []


WIDE = DoorGeometry(line_y=2.0, x0=3.0, x1=4.0, reader_xy=[-0.65, 1.9])   # x1 = 4: a +y walker's x stays 4.0


@pytest.mark.parametrize("x, inside", [(3.0, True), (3.5, True), (4.0, True), (4.01, False), (2.99, False)])
def test_the_threshold_box_is_closed_and_as_wide_as_the_doorway(x, inside):
    p = _walker("person_1", 2.0, x=x, length=4.0)
    assert {float(p.position(t)[0]) for t in (1.5, 2.0, 2.5)} == {x}
    evs = _events([p], _door([OPEN]), [], geo=WIDE)
    assert _kinds(evs) == ([("unauthorized_entry", ["person_1"])] if inside else [])


def test_a_passage_starts_on_the_box_edge_and_ends_on_the_far_edge():
    # waiting on the lobby edge of the box from the start, walking through at 2 s, stopping on the secure edge
    y0 = GEO.line_y - THRESHOLD_M
    prof = profile_from_phases(0.0, [("stop", 2.0), ("accelerate", 1.0, 1e-6), ("cruise", 60.0)])
    p = _person("person_1", Path(start=[0.0, y0], heading_deg=90.0, segments=[Line(length=2 * THRESHOLD_M)]), prof)
    assert p.position(10.0)[1] == GEO.line_y + THRESHOLD_M
    (ev,) = _events([p], _door([OPEN]), [], t1=10.0)
    assert ev.type == "unauthorized_entry" and ev.t_start == 0.0 and ev.t_end == 10.0


def test_stopping_on_the_door_line_is_no_passage():
    prof = profile_from_phases(1.2, [("cruise", 60.0)])
    p = _person("person_1", Path(start=[0.0, GEO.line_y - 3.0], heading_deg=90.0, segments=[Line(length=3.0)]), prof)
    geo = GEO.model_copy(update={"line_y": float(p.position(8.0)[1])})
    assert _events([p], _door([OPEN]), [], t1=8.0, geo=geo) == []


def test_a_person_pausing_on_the_door_line_crosses_it_when_stepping_over():
    # reaches the line at 7.0 s (the door, granted, is open until 8.0 s), stands there 2 s, goes on at 9.0 s
    prof = profile_from_phases(1.0, [("cruise", 7.0), ("decelerate", 0.0, 1e-6), ("stop", 2.0),
                                     ("accelerate", 1.0, 1e-6), ("cruise", 60.0)])
    p = _person("person_2", Path(start=[0.0, -5.0], heading_deg=90.0, segments=[Line(length=12.0)]), prof)
    geo = GEO.model_copy(update={"line_y": float(p.position(8.0)[1])})
    lead = _person("person_1", Path(start=[0.2, geo.line_y - 5.0], heading_deg=90.0, segments=[Line(length=12.0)]),
                   profile_from_phases(1.0, [("cruise", 60.0)]))
    evs = _events([lead, p], _door([OPEN]), [2.5], geo=geo)
    assert _kinds(evs) == [("unauthorized_entry", ["person_2"])]
    (cross,) = [c for _, _, c, _ in passages(p, geo, _Coarse([p], 10.0))]
    assert cross == pytest.approx(9.0, abs=2e-6)


def test_a_step_into_the_box_and_back_then_through_is_one_passage():
    # up to 0.1 m inside the lobby edge, a U-turn back out of the box, another U-turn, then through the door
    path = Path(start=[0.1, GEO.line_y - 1.2], heading_deg=90.0,
                segments=[Line(length=0.75), Arc(radius=0.05, angle_deg=180.0), Line(length=0.5),
                          Arc(radius=0.05, angle_deg=-180.0), Line(length=5.0)])
    p = _person("person_1", path, profile_from_phases(1.0, [("cruise", 60.0)]))
    ys = [p.position(t)[1] for t in (0.7, 0.8, 0.9)]
    assert GEO.line_y - THRESHOLD_M < max(ys) < GEO.line_y                              # stepped in, not over
    evs = _events([p], _door([OPEN]), [], t1=6.0)
    assert [e.type for e in evs] == ["unauthorized_entry"]
    assert evs[0].t_start > 1.5                                                         # the second entry into the box


def test_runners_through_the_door_are_all_found():
    # eight people running through at 8 m/s (under COARSE_MARGIN_M / COARSE_S = 10 m/s), at odd phases of the grid
    runners = [_walker(f"person_{k}", 1.0 + 0.5 * k + 0.013 * k, v=8.0, x=-0.4 + 0.1 * k, length=60.0)
               for k in range(8)]
    evs = _events(runners, _door([(9.0, 0.5, 0.2, 0.2)]), [], t1=6.0)
    assert sorted(e.actors[0] for e in evs if e.type == "unauthorized_entry") == [f"person_{k}" for k in range(8)]


def test_coarse_grid_spans_the_clip_at_coarse_s():
    c = _Coarse([_stander("person_1", (0.0, 0.0))], 1.0)
    assert len(c.ts) == round(1.0 / COARSE_S) + 1 and c.ts[-1] == 1.0
    assert _Coarse([_stander("person_1", (0.0, 0.0))], 0.04).ts.tolist() == [0.0, 0.04]


# ------------------------------------------------------------------ badge use

def test_badge_use_in_a_clip_shorter_than_the_coarse_step():
    p = _stander("person_1", GEO.reader_xy)
    (ev,) = _events([p], _door([OPEN]), [0.02], t1=0.04)
    assert (ev.type, ev.actors, ev.t_start, ev.t_end) == ("badge_use", ["person_1"], 0.0, 0.04)


def test_grants_at_the_clips_first_and_last_instant_are_badge_uses():
    p = _stander("person_1", (GEO.reader_xy[0], GEO.reader_xy[1] - 0.3))
    evs = _events([p], _door([OPEN]), [0.0, 2.0], t1=2.0)
    assert [(e.type, e.t_start, e.t_end) for e in evs] == [("badge_use", 0.0, 2.0), ("badge_use", 0.0, 2.0)]


def test_grants_outside_the_clip_are_no_badge_uses():
    """A grant just after the clip's end (a script's episode running past it) or before its start,
    with someone standing at the reader, gives no badge use (and no error: the person's stay is
    only scanned within the clip); the one at the last instant still counts."""
    p = _stander("person_1", (GEO.reader_xy[0], GEO.reader_xy[1] - 0.3))
    assert _events([p], _door([OPEN]), [2.0 + 1e-6, -1e-6], t1=2.0) == []
    assert [e.type for e in _events([p], _door([OPEN]), [2.0 + 1e-6, 2.0], t1=2.0)] == ["badge_use"]


def test_a_grant_with_nobody_at_the_reader_is_skipped_and_the_next_one_counted():
    p = _person("person_1", Path(start=[GEO.reader_xy[0], GEO.reader_xy[1] - 5.0], heading_deg=90.0,
                                 segments=[Line(length=4.8)]), profile_from_phases(1.2, [("cruise", 60.0)]))
    evs = _events([p], _door([OPEN]), [1.0, 4.7], t1=6.0)
    assert _kinds(evs) == [("badge_use", ["person_1"])]
    # within reach from 5 - 0.9 = 4.1 m along the path (3.417 s) to the end (standing 0.2 m short of the reader)
    assert evs[0].t_start == pytest.approx((5.0 - READER_REACH_M) / 1.2, abs=2e-6) and evs[0].t_end == 6.0


def test_stepping_back_to_exactly_the_reach_ends_the_badge_use():
    # at the reader until 2 s, then 0.4 m straight back: its centre stops exactly READER_REACH_M from the reader
    start = [GEO.reader_xy[0], GEO.reader_xy[1] - 0.5]
    prof = profile_from_phases(0.0, [("stop", 2.0), ("accelerate", 1.0, 1e-6), ("cruise", 60.0)])
    p = _person("person_1", Path(start=start, heading_deg=-90.0, segments=[Line(length=READER_REACH_M - 0.5)]), prof)
    assert abs(p.position(5.0)[1] - GEO.reader_xy[1]) == READER_REACH_M and p.position(5.0)[0] == GEO.reader_xy[0]
    (ev,) = _events([p], _door([OPEN]), [1.0], t1=5.0)
    assert ev.type == "badge_use" and ev.t_start == 0.0
    assert ev.t_end == pytest.approx(2.0 + (READER_REACH_M - 0.5), abs=2e-6)


# ------------------------------------------------------------------ loitering

@pytest.mark.parametrize("t1, expected", [(LOITER_S, False), (LOITER_S + 0.05, True)])
def test_loitering_is_a_stay_longer_than_loiter_s_not_one_as_long(t1, expected):
    # standing in the region for the whole clip: a stay of exactly t1 seconds
    p = _stander("person_1", (22.0, -2.0))
    evs = _events([p], _door([OPEN]), [], t1=t1)
    assert [(e.type, e.t_start, e.t_end, e.zone) for e in evs] == ([("loitering", 0.0, t1, "loiter_1")] if expected
                                                                  else [])
