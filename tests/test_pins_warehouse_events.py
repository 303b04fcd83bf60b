"""Pins of blender_envs/infra/warehouse_events.py on hand-placed agents (no scene draw, no Blender):
each rule's threshold just inside and just outside (the forklift's MOVING_MPS, the fall's final
angle), the exact interval of every event kind, who is the actor, and which categories take part."""
from __future__ import annotations

import math

import numpy as np
import pytest

from blender_envs.infra import bodies
from blender_envs.infra.warehouse_events import (COARSE_S, MOVING_MPS, NEAR_MISS_M, _Coarse, _half_diag,
                                                 derive_events, falls, pallet_moves, speed, tilt)
from geometry.events import ground_distance
from geometry.timeline import (Agent, Carried, Fall, FallingAgent, Line, Path, PathTrajectory, SpeedProfile,
                               Stationary, profile_from_phases)

PERSON = [0.4, 0.56, 1.75]
ZONE = [[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]]


def _line(x, y, heading, speed, length=200.0, z=0.875) -> PathTrajectory:
    sp = speed if isinstance(speed, SpeedProfile) else SpeedProfile(times=[0.0], speeds=[speed])
    return PathTrajectory(path=Path(start=[x, y], heading_deg=heading, segments=[Line(length=length)]), speed=sp, z=z)


def _agent(tid, cat, traj, size) -> Agent:
    return Agent(track_id=tid, category=cat, mesh=cat, size=list(size), trajectory=traj)


def _person(tid, xy) -> Agent:
    return _agent(tid, "person", Stationary(position=[*xy, 0.875]), PERSON)


def _forklift_passing(v, t_pass, tid="forklift_1", y=0.0) -> Agent:
    """A forklift driving along +x on y, its centre at x = 0 at t_pass."""
    return _agent(tid, "forklift", _line(-v * t_pass, y, 0.0, v, z=1.125), bodies.FORKLIFT_SIZE)


def _types(evs):
    return [(e.type, e.actors) for e in evs]


# ------------------------------------------------------------------ near miss: the forklift must move

@pytest.mark.parametrize("v, expected", [(MOVING_MPS + 0.01, True), (MOVING_MPS - 0.01, False)])
def test_near_miss_needs_a_forklift_faster_than_moving_mps(v, expected):
    d = 1.45
    p, f = _person("person_1", (0.0, -d)), _forklift_passing(v, 5.0)
    evs = derive_events([p, f], [], 10.0)
    assert _types(evs) == ([("near_miss", ["person_1", "forklift_1"])] if expected else [])
    if expected:   # centre distance < 1.5 while |v (t - 5)| < sqrt(1.5^2 - d^2)
        half = math.sqrt(NEAR_MISS_M ** 2 - d * d) / v
        assert evs[0].t_start == pytest.approx(5.0 - half, abs=2e-6)
        assert evs[0].t_end == pytest.approx(5.0 + half, abs=2e-6)


def test_near_miss_ends_when_the_forklift_stops_beside_the_person():
    # 2 m/s, braking over 1 s to a stand at x = 0 (t = 5.5): the near miss lasts while the speed > 0.1 m/s
    sp = profile_from_phases(2.0, [("cruise", 4.5), ("decelerate", 0.0, 1.0), ("stop", 10.0)])
    f = _agent("forklift_1", "forklift", _line(-10.0, 0.0, 0.0, sp, z=1.125), bodies.FORKLIFT_SIZE)
    p = _person("person_1", (0.0, -1.0))
    (ev,) = derive_events([p, f], [], 12.0)
    assert ev.type == "near_miss"
    # enters 1.5 m at x = -sqrt(1.25) (t = (10 - 1.118) / 2), speed drops to 0.1 m/s at t = 4.5 + 0.95
    assert ev.t_start == pytest.approx((10.0 - math.sqrt(1.25)) / 2.0, abs=2e-6)
    assert ev.t_end == pytest.approx(4.5 + 0.95, abs=2e-6)


def test_only_a_person_and_a_forklift_make_a_near_miss():
    amr = _agent("amr_1", "amr", _line(-20.0, 0.0, 0.0, 2.0, z=0.21), bodies.AMR_SIZE)
    people = [_person("person_1", (0.0, -1.0)), _person("person_2", (0.0, 1.0))]
    fl = _agent("forklift_1", "forklift", _line(-20.0, 10.0, 0.0, 2.0, z=1.125), bodies.FORKLIFT_SIZE)
    box = _agent("box_1", "box", Stationary(position=[0.0, 9.0, 0.5]), [0.5, 0.5, 1.0])
    assert derive_events(people + [amr, fl, box], [], 20.0) == []


def test_near_misses_with_two_people_and_two_forklifts_sorted():
    f1, f2 = _forklift_passing(2.0, 5.0, "forklift_1"), _forklift_passing(2.0, 8.0, "forklift_2", y=20.0)
    p1, p2 = _person("person_1", (0.0, 21.0)), _person("person_2", (0.0, -1.0))
    evs = derive_events([p1, p2, f1, f2], [], 16.0)
    assert _types(evs) == [("near_miss", ["person_2", "forklift_1"]), ("near_miss", ["person_1", "forklift_2"])]
    half = math.sqrt(NEAR_MISS_M ** 2 - 1.0) / 2.0
    assert [(e.t_start, e.t_end) for e in evs] == [pytest.approx((5.0 - half, 5.0 + half), abs=2e-6),
                                                   pytest.approx((8.0 - half, 8.0 + half), abs=2e-6)]


def test_speed_is_the_ground_speed():
    f = _forklift_passing(3.0, 1.0)
    assert speed(f, 0.5) == pytest.approx(3.0)
    diag = _agent("forklift_2", "forklift", _line(0.0, 0.0, 45.0, 2.0), bodies.FORKLIFT_SIZE)
    assert speed(diag, 1.0) == pytest.approx(2.0)
    pal, _ = _pallet_and_forklift()
    assert float(pal.velocity(2.5)[2]) > 0.0 and speed(pal, 2.5) == 0.0     # rising in place: no ground speed


# ------------------------------------------------------------------ collisions between movers

def test_a_long_amr_touching_a_person_with_its_end_is_a_collision():
    # a 6 m cart along +x at 1 m/s; its front face (x + 3) reaches the person's back face (x = 9.8) at t = 6.8
    amr = _agent("amr_1", "amr", _line(0.0, 0.0, 0.0, 1.0, z=0.5), (6.0, 1.0, 1.0))
    p = _person("person_1", (10.0, 0.0))
    evs = derive_events([amr, p], [], 8.0)
    assert _types(evs) == [("collision", ["amr_1", "person_1"])]
    assert evs[0].t_start == pytest.approx(6.8, abs=2e-6) and evs[0].t_end == 8.0


def test_two_forklifts_touching_corner_to_corner():
    # forklift_2 stands diagonal to forklift_1's path; forklift_1's front-left corner reaches its rear-right corner
    fl1 = _agent("forklift_1", "forklift", _line(-10.0, 0.0, 0.0, 1.0, z=1.125), bodies.FORKLIFT_SIZE)
    L, W = bodies.FORKLIFT_SIZE[:2]
    x2, y2 = 5.0, W - 0.05                      # lateral overlap of 0.05 m: the corners meet
    fl2 = _agent("forklift_2", "forklift", Stationary(position=[x2, y2, 1.125]), bodies.FORKLIFT_SIZE)
    evs = derive_events([fl1, fl2], [], 20.0)
    assert _types(evs) == [("collision", ["forklift_1", "forklift_2"])]
    # fl1's front (x = -10 + t + L/2) meets fl2's back (x2 - L/2)
    assert evs[0].t_start == pytest.approx(x2 - L + 10.0, abs=2e-6)
    assert evs[0].t_end == pytest.approx(x2 + L + 10.0, abs=2e-6)


def test_people_and_amrs_collide_among_themselves_but_pallets_and_boxes_do_not():
    a = _agent("person_1", "person", _line(-5.0, 0.0, 0.0, 1.0), PERSON)
    b = _person("person_2", (0.0, 0.0))
    c = _agent("amr_1", "amr", _line(0.0, 5.0, -90.0, 1.0, z=0.21), bodies.AMR_SIZE)
    box = _agent("box_1", "box", Stationary(position=[0.0, 0.0, 0.5]), [0.5, 0.5, 1.0])
    pal = _agent("pallet_1", "pallet", Stationary(position=[-5.0, 0.0, 0.072]), [1.2, 1.0, 0.144])
    evs = derive_events([a, b, c, box, pal], [], 10.0)
    # the AMR's front (y = 5 - t - 0.475) reaches person_2's side (y = 0.28) at t = 4.245; person_1's
    # front (x = t - 5 + 0.2) reaches person_2's back (x = -0.2) at t = 4.6; pairs in the agents' order
    assert [(e.type, e.actors, e.t_start) for e in evs] == [
        ("collision", ["person_2", "amr_1"], pytest.approx(4.245, abs=2e-6)),
        ("collision", ["person_1", "amr_1"], pytest.approx(4.475, abs=2e-6)),
        ("collision", ["person_1", "person_2"], pytest.approx(4.6, abs=2e-6))]


def test_half_diagonal_is_the_boxes_3d_half_diagonal():
    a = _agent("x", "amr", Stationary(position=[0, 0, 0]), (6.0, 2.0, 3.0))
    assert _half_diag(a) == pytest.approx(3.5)


# ------------------------------------------------------------------ pickup and drop

def _pallet_and_forklift(t_drop=7.98):
    """A forklift braking to a stand at x = 0 (t = 2), lifting the pallet ahead of it over 2.02..3.02 s,
    driving 2 m on, standing from t = 6, setting it down over 6.98..7.98 s, then driving off to the path's
    end (the lifts start and end off the 0.05 s coarse grid)."""
    sp = profile_from_phases(3.0, [("decelerate", 0.0, 2.0), ("stop", 2.0), ("accelerate", 2.0, 1.0),
                                   ("decelerate", 0.0, 1.0), ("stop", 2.0), ("accelerate", 3.0, 1.0),
                                   ("cruise", 5.0)])
    carrier = _line(-3.0, 0.0, 0.0, sp, length=20.0, z=1.125)
    f = _agent("forklift_1", "forklift", carrier, bodies.FORKLIFT_SIZE)
    pal = _agent("pallet_1", "pallet", Carried(carrier=carrier, offset=[bodies.CARRY_OFFSET_X, 0.0], z=0.072,
                                               t_pick=2.02, t_drop=t_drop, lift_m=0.06, lift_s=1.0),
                 [1.2, 1.0, 0.144])
    return pal, f


def test_pickup_and_drop_intervals_and_the_forklift_holding_the_pallet():
    pal, f = _pallet_and_forklift()
    far = _agent("forklift_0", "forklift", Stationary(position=[0.0, 30.0, 1.125]), bodies.FORKLIFT_SIZE)
    evs = derive_events([far, f, pal], [], 25.0)
    assert _types(evs) == [("pickup", ["forklift_1", "pallet_1"]), ("drop", ["forklift_1", "pallet_1"])]
    assert [(e.t_start, e.t_end) for e in evs] == [pytest.approx((2.02, 3.02), abs=2e-6),
                                                   pytest.approx((6.98, 7.98), abs=2e-6)]


def test_a_pallet_moving_with_no_forklift_under_it_has_only_itself_as_actor():
    pal, _ = _pallet_and_forklift()
    evs = pallet_moves(pal, [], _Coarse([pal], 25.0))
    assert [(e.type, e.actors, e.t_start, e.t_end) for e in evs] == [("pickup", ["pallet_1"], 2.02, 3.02),
                                                                    ("drop", ["pallet_1"], 6.98, 7.98)]


def test_a_pallet_carried_away_and_never_dropped_is_one_pickup():
    pal, f = _pallet_and_forklift(t_drop=None)
    evs = derive_events([f, pal], [], 12.0)
    assert [(e.type, e.actors, e.t_start, e.t_end) for e in evs] == [
        ("pickup", ["forklift_1", "pallet_1"], 2.02, 3.02)]


# ------------------------------------------------------------------ falls

@pytest.mark.parametrize("angle", [90.0, 60.0])
def test_fall_runs_from_upright_until_the_body_lies_at_its_final_angle(angle):
    p = FallingAgent(track_id="person_1", category="person", mesh="person", size=PERSON,
                     trajectory=Stationary(position=[0.0, 0.0, 0.875]),
                     fall=Fall(t_start=3.0, duration_s=1.2, angle_deg=angle))
    other = _person("person_2", (10.0, 0.0))
    evs = derive_events([other, p], [], 8.0)
    assert [(e.type, e.actors) for e in evs] == [("fall", ["person_1"])]
    assert evs[0].t_start == pytest.approx(3.0, abs=2e-6) and evs[0].t_end == pytest.approx(4.2, abs=2e-6)
    assert falls(other, _Coarse([other], 8.0)) == []


def test_tilt_is_the_angle_from_upright():
    p = FallingAgent(track_id="person_1", category="person", mesh="person", size=PERSON,
                     trajectory=Stationary(position=[0.0, 0.0, 0.875], yaw_deg=30.0),
                     fall=Fall(t_start=1.0, duration_s=1.0, angle_deg=60.0))
    assert tilt(p, 0.5) == 0.0
    assert tilt(p, 1.5) == pytest.approx(math.radians(60.0) * (1 - math.cos(math.pi / 4)), abs=1e-12)
    assert tilt(p, 3.0) == pytest.approx(math.radians(60.0), abs=1e-12)


# ------------------------------------------------------------------ restricted zones

def test_zone_entry_from_the_crossing_in_to_the_crossing_out():
    walker = _agent("person_1", "person", _line(-3.0, 0.3, 0.0, 1.0), PERSON)
    (ev,) = derive_events([walker], [("restricted_1", ZONE)], 10.0)
    assert (ev.type, ev.actors, ev.zone) == ("zone_entry", ["person_1"], "restricted_1")
    assert ev.t_start == pytest.approx(3.0, abs=2e-6) and ev.t_end == pytest.approx(5.0, abs=2e-6)


def test_zone_entry_from_above_and_only_people_enter_zones():
    walker = _agent("person_1", "person", _line(1.7, 6.0, -90.0, 2.0), PERSON)       # down through y = 2 at t = 2
    # a forklift drives through the zone before the person reaches its path
    fl = _agent("forklift_1", "forklift", _line(-4.0, 1.0, 0.0, 4.0, z=1.125), bodies.FORKLIFT_SIZE)
    walker_far = _agent("person_2", "person", _line(-3.0, -5.0, 0.0, 1.0), PERSON)
    evs = derive_events([fl, walker_far, walker], [("a", [[5, 5], [6, 5], [6, 6]]), ("restricted_2", ZONE)], 5.0)
    assert [(e.type, e.actors, e.zone) for e in evs] == [("zone_entry", ["person_1"], "restricted_2")]
    assert evs[0].t_start == pytest.approx(2.0, abs=2e-6) and evs[0].t_end == pytest.approx(3.0, abs=2e-6)


def test_standing_in_the_zone_from_the_start_is_no_entry():
    assert derive_events([_person("person_1", (1.0, 1.0))], [("restricted_1", ZONE)], 5.0) == []


# ------------------------------------------------------------------ the coarse scan

def test_coarse_grid_spans_the_clip_at_coarse_s():
    a = _person("person_1", (0.0, 0.0))
    c = _Coarse([a], 1.0)
    assert len(c.ts) == round(1.0 / COARSE_S) + 1 and c.ts[0] == 0.0 and c.ts[-1] == 1.0
    assert np.allclose(np.diff(c.ts), COARSE_S)
    assert _Coarse([a], 0.01).ts.tolist() == [0.0, 0.01]


def test_events_in_mid_clip_and_at_its_end_are_found_by_the_coarse_scan():
    # a fast forklift (3.5 m/s) passing at 1.45 m, late in a long clip
    p, f = _person("person_1", (0.0, -1.45)), _forklift_passing(3.5, 29.8)
    (ev,) = derive_events([p, f], [], 30.0)
    half = math.sqrt(NEAR_MISS_M ** 2 - 1.45 ** 2) / 3.5
    assert ev.type == "near_miss" and ev.t_start == pytest.approx(29.8 - half, abs=2e-6)
    assert ev.t_end == pytest.approx(min(29.8 + half, 30.0), abs=2e-6)


@pytest.mark.parametrize("d, expected", [(NEAR_MISS_M - 0.01, True), (NEAR_MISS_M + 0.01, False)])
def test_near_miss_just_inside_and_outside_for_a_forklift_on_a_diagonal(d, expected):
    # a forklift heading 45 degrees at 2 m/s through the origin at 4 s, a person d off its path
    fl = _agent("forklift_1", "forklift", _line(-8.0 / math.sqrt(2), -8.0 / math.sqrt(2), 45.0, 2.0, length=20.0,
                                                z=1.125), bodies.FORKLIFT_SIZE)
    p = _person("person_1", (-d / math.sqrt(2), d / math.sqrt(2)))
    evs = derive_events([fl, p], [], 8.0)
    assert _types(evs) == ([("near_miss", ["person_1", "forklift_1"])] if expected else [])
    if expected:
        half = math.sqrt(NEAR_MISS_M ** 2 - d * d) / 2.0
        assert evs[0].t_start == pytest.approx(4.0 - half, abs=2e-6)
        assert evs[0].t_end == pytest.approx(4.0 + half, abs=2e-6)


# ------------------------------------------------------------------ exactly at the thresholds, contact, all kinds

def test_walking_alongside_a_forklift_exactly_near_miss_m_away_is_no_near_miss():
    fl = _agent("forklift_1", "forklift", _line(0.0, 0.0, 0.0, 2.0, z=1.125), bodies.FORKLIFT_SIZE)
    beside = _agent("person_1", "person", _line(0.0, -NEAR_MISS_M, 0.0, 2.0), PERSON)
    assert ground_distance(fl, beside, 1.3) == NEAR_MISS_M
    assert derive_events([beside, fl], [], 3.0) == []
    closer = _agent("person_1", "person", _line(0.0, -(NEAR_MISS_M - 0.01), 0.0, 2.0), PERSON)
    assert [(e.type, e.t_start, e.t_end) for e in derive_events([closer, fl], [], 3.0)] == [("near_miss", 0.0, 3.0)]


def test_a_forklift_creeping_at_exactly_moving_mps_is_standing():
    fl = _agent("forklift_1", "forklift", _line(-0.1, 0.0, 0.0, MOVING_MPS, z=1.125), bodies.FORKLIFT_SIZE)
    assert speed(fl, 1.0) == MOVING_MPS
    assert derive_events([_person("person_1", (0.0, -1.2)), fl], [], 2.0) == []


def test_a_person_brushed_by_a_moving_forklift_is_a_collision_not_a_near_miss():
    # 0.58 + 0.28 (the person's half-width) = 0.86 > 0.75: the forklift's side touches the person in the
    # middle of the centres' 1.5 m approach, not at its ends; its front reaches the person's back (x = -0.2)
    p, f = _person("person_1", (0.0, -0.75)), _forklift_passing(2.5, 4.0)
    evs = derive_events([p, f], [], 8.0)
    assert _types(evs) == [("collision", ["person_1", "forklift_1"])]
    assert evs[0].t_start == pytest.approx(4.0 - (1.6 + 0.2) / 2.5, abs=2e-6)


def test_a_person_with_a_near_miss_a_zone_entry_and_a_fall_keeps_all_three():
    p = FallingAgent(track_id="person_1", category="person", mesh="person", size=PERSON,
                     trajectory=_line(-3.0, 0.3, 0.0, SpeedProfile(times=[0.0, 4.0, 4.001], speeds=[1.0, 1.0, 0.0])),
                     fall=Fall(t_start=5.0, duration_s=1.0))
    f = _forklift_passing(2.5, 2.0, y=-1.0)            # passes 1.3 m from the walker at 2 s
    evs = derive_events([p, f], [("restricted_1", ZONE)], 8.0)
    assert [e.type for e in evs] == ["near_miss", "zone_entry", "fall"]
