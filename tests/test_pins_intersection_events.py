"""Pins of blender_envs/infra/intersection_events.py on hand-placed road users (no scene draw, no
Blender): the footprint gap against hand distances, each rule just inside and just outside its
threshold (MOVING_MPS for near misses and wrong-way riders, the stop line's red phase and its inbound
half, a spell already under way at 0 s), and which categories each rule takes."""
from __future__ import annotations

import math

import numpy as np
import pytest

from blender_envs.infra import road_bodies
from blender_envs.infra.intersection_events import (COARSE_S, MOVING_MPS, NEAR_MISS_GAP_M, _Coarse,
                                                    _points_to_polygon, derive_events, footprint_gap, speed)
from blender_envs.infra.intersection_layout import (BIKE_LAT, CAR_LAT, CROSS_A, ROAD_HALF, STOP_A, SignalPlan, crossings,
                                                    lanes, stop_lines)
from geometry.timeline import Agent, Carried, Line, Path, PathTrajectory, SpeedProfile, Stationary

C = [40.0, -30.0]
PLAN = SignalPlan(first="EW", t_amber=5.0)   # EW: green < 5, amber < 8, red; NS: red < 10, green
CAR = (4.5, 1.9, 1.5)
PERSON = [0.4, 0.56, 1.75]


def _derive(agents, t1=16.0):
    return derive_events(agents, C, lanes(C), crossings(C), stop_lines(), PLAN, t1)


def _line(x, y, heading, speed, length=400.0, z=0.75) -> PathTrajectory:
    sp = speed if isinstance(speed, SpeedProfile) else SpeedProfile(times=[0.0], speeds=[speed])
    return PathTrajectory(path=Path(start=[x, y], heading_deg=heading, segments=[Line(length=length)]), speed=sp, z=z)


def _agent(tid, cat, traj, size) -> Agent:
    return Agent(track_id=tid, category=cat, mesh=cat, size=list(size), trajectory=traj)


def _box(tid, xy, size, yaw=0.0, cat="car") -> Agent:
    return _agent(tid, cat, Stationary(position=[*xy, size[2] / 2], yaw_deg=yaw), size)


def _person_at(tid, xy, yaw=90.0) -> Agent:
    return _agent(tid, "person", Stationary(position=[*xy, 0.875], yaw_deg=yaw), PERSON)


def _kinds(evs):
    return [(e.type, e.actors) for e in evs]


# ------------------------------------------------------------------ the footprint gap

def test_points_to_polygon_is_the_distance_to_the_nearest_edge():
    Q = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    assert _points_to_polygon(np.array([[0.5, 3.0]]), Q) == pytest.approx(2.0)
    assert _points_to_polygon(np.array([[3.0, 0.25]]), Q) == pytest.approx(2.0)
    assert _points_to_polygon(np.array([[2.0, 2.0]]), Q) == pytest.approx(math.sqrt(2.0))    # past a corner
    assert _points_to_polygon(np.array([[-1.0, -2.0]]), Q) == pytest.approx(math.sqrt(5.0))
    assert _points_to_polygon(np.array([[0.5, 0.4]]), Q) == pytest.approx(0.4)               # inside: to the edge
    assert _points_to_polygon(np.array([[5.0, 5.0], [0.5, -0.3]]), Q) == pytest.approx(0.3)  # the nearest point
    Qd = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [1.0, 1.0]])                          # a repeated vertex
    assert _points_to_polygon(np.array([[-0.3, -0.4]]), Qd) == pytest.approx(0.5)


def test_footprint_gap_edge_to_edge_corner_to_corner_and_overlapping():
    a = _box("car_1", (0.0, 0.0), CAR)
    assert footprint_gap(a, _box("car_2", (4.5 + 1.3, 0.0), CAR), 0.0) == pytest.approx(1.3)    # nose to tail
    assert footprint_gap(a, _box("car_2", (0.0, 1.9 + 0.7), CAR), 0.0) == pytest.approx(0.7)    # side by side
    assert footprint_gap(a, _box("car_2", (4.5 + 0.3, 1.9 + 0.4), CAR), 0.0) == pytest.approx(0.5)
    assert footprint_gap(a, _box("car_2", (4.0, 1.0), CAR), 0.0) == 0.0
    # a person's box rotated 45 degrees, its corner towards the car's flank
    d = 0.5 * math.hypot(0.4, 0.56) * math.cos(math.atan2(0.56, 0.4) - math.pi / 4)
    p = _person_at("person_1", (0.0, -(0.95 + 0.6 + d)), yaw=45.0)
    assert footprint_gap(a, p, 0.0) == pytest.approx(0.6, abs=1e-9)
    assert footprint_gap(p, a, 0.0) == pytest.approx(0.6, abs=1e-9)


# ------------------------------------------------------------------ near misses

def _passing_car(v, t_pass=6.0, tid="car_1", cat="car", size=CAR) -> Agent:
    """Along +x on the S side of the E-W road's centre: its centre at x = C + 0 at t_pass."""
    return _agent(tid, cat, _line(C[0] - v * t_pass - 30.0, C[1] - CAR_LAT, 0.0, v), size)


@pytest.mark.parametrize("v, expected", [(MOVING_MPS + 0.01, True), (MOVING_MPS - 0.01, False)])
def test_near_miss_needs_a_motor_vehicle_faster_than_moving_mps(v, expected):
    gap = 0.5
    car = _agent("car_1", "car", _line(-v * 6.0, 0.0, 0.0, v, length=30.0), CAR)
    p = _person_at("person_1", (0.0, -(0.95 + gap + 0.2)))
    evs = _derive([car, p], t1=12.0)
    assert _kinds(evs) == ([("near_miss", ["person_1", "car_1"])] if expected else [])
    if expected:
        half = (2.25 + 0.28 + math.sqrt(NEAR_MISS_GAP_M ** 2 - gap * gap)) / v
        assert evs[0].t_start == pytest.approx(6.0 - half, abs=2e-6)
        assert evs[0].t_end == pytest.approx(6.0 + half, abs=2e-6)


def test_near_miss_pairs_a_motor_vehicle_with_a_person_or_a_cyclist_only():
    moto = _agent("motorcycle_1", "motorcycle", _line(-60.0, 0.0, 0.0, 10.0), road_bodies.MOTORCYCLE_SIZE)
    bike = _box("bicycle_1", (0.0, -(0.4 + 0.5 + 0.3)), road_bodies.BICYCLE_SIZE, cat="bicycle")
    evs = _derive([moto, bike], t1=12.0)
    assert _kinds(evs) == [("near_miss", ["bicycle_1", "motorcycle_1"])]
    half = (1.05 + 0.9 + math.sqrt(1.0 - 0.25)) / 10.0
    assert evs[0].t_start == pytest.approx(6.0 - half, abs=2e-6) and evs[0].t_end == pytest.approx(6.0 + half, abs=2e-6)
    # a bicycle passing a person, a car passing a parked car: no near miss
    ride = _agent("bicycle_2", "bicycle", _line(-30.0, 100.0, 0.0, 5.0), road_bodies.BICYCLE_SIZE)
    p = _person_at("person_1", (0.0, 100.0 - (0.3 + 0.5 + 0.2)))
    car = _agent("car_1", "car", _line(-60.0, 200.0, 0.0, 10.0), CAR)
    parked = _box("car_2", (0.0, 200.0 - (1.9 + 0.5)), CAR)
    assert _derive([ride, p, car, parked], t1=12.0) == []


def test_speed_is_the_ground_speed():
    assert speed(_agent("car_1", "car", _line(0.0, 0.0, 30.0, 7.0), CAR), 1.0) == pytest.approx(7.0)
    assert speed(_box("car_2", (0.0, 0.0), CAR), 1.0) == 0.0


# ------------------------------------------------------------------ collisions

def test_a_cyclist_hitting_a_person_and_two_cars_touching_are_collisions():
    bike = _agent("bicycle_1", "bicycle", _line(-10.0, 0.0, 0.0, 4.0), road_bodies.BICYCLE_SIZE)
    p = _person_at("person_1", (0.0, 0.0), yaw=0.0)
    car = _agent("car_1", "car", _line(-10.0, 50.0, 0.0, 5.0), CAR)
    parked = _box("car_2", (0.0, 50.0 + 1.9 - 0.1), CAR)
    evs = _derive([bike, p, car, parked], t1=6.0)
    assert _kinds(evs) == [("collision", ["car_1", "car_2"]), ("collision", ["bicycle_1", "person_1"])]
    # car_1's nose (x = 5 t - 10 + 2.25) reaches car_2's tail (x = -2.25) at 1.1 s and leaves at 2.9 s
    assert (evs[0].t_start, evs[0].t_end) == (pytest.approx(1.1, abs=2e-6), pytest.approx(2.9, abs=2e-6))
    # the bicycle's front (x = 4 t - 10 + 0.9) reaches the person's back (x = -0.2) at 2.225 s, its rear
    # leaves the person's front at 2.775 s
    assert evs[1].t_start == pytest.approx(2.225, abs=2e-6) and evs[1].t_end == pytest.approx(2.775, abs=2e-6)


# ------------------------------------------------------------------ wrong way

def _rider(tid, cat, size, x0, lat, heading, v):
    return _agent(tid, cat, _line(C[0] + x0, C[1] + lat, heading, v), size)


@pytest.mark.parametrize("v, expected", [(MOVING_MPS + 0.01, True), (MOVING_MPS - 0.01, False)])
def test_wrong_way_needs_more_than_moving_mps(v, expected):
    # a car in the E arm's inbound car lane (traffic: -x) driving +x from 20 m out
    car = _rider("car_1", "car", CAR, 20.0, CAR_LAT, 0.0, v)
    evs = _derive([car], t1=4.0)
    assert _kinds(evs) == ([("wrong_way", ["car_1"])] if expected else [])
    if expected:
        assert (evs[0].t_start, evs[0].t_end) == (0.0, 4.0)


def test_crossing_a_lane_square_on_is_not_wrong_way_nor_is_a_person_against_it():
    # a car driving -y across the E arm's lanes 30 m out: 90 degrees from either lane's direction
    # (cos(-pi/2) = 6e-17, not below 0: square, not against)
    car = _agent("car_1", "car", _line(C[0] + 30.0, C[1] + 8.0, -90.0, 5.0), CAR)
    walker = _agent("person_1", "person", _line(C[0] + 60.0, C[1] + CAR_LAT, 0.0, 1.5, z=0.875), PERSON)
    assert _kinds(_derive([car, walker], t1=3.0)) == [("jaywalking", ["person_1"])]   # on the road, not wrong way
    # 0.01 degree further round it is more than 90 degrees from the outbound lanes' +x: wrong way there
    skew = _agent("car_1", "car", _line(C[0] + 30.0, C[1] + 8.0, -90.01, 5.0), CAR)
    (ev,) = _derive([skew], t1=3.0)
    assert ev.type == "wrong_way"
    # in the outbound lanes (C - ROAD_HALF < y < C), at 5 m/s from y = C + 8
    vy = 5.0 * math.cos(math.radians(0.01))
    assert ev.t_start == pytest.approx(8.0 / vy, abs=2e-6)
    assert ev.t_end == pytest.approx((8.0 + ROAD_HALF) / vy, abs=2e-6)


def test_wrong_way_on_each_arm_and_in_the_bike_lane():
    riders = [_rider("car_1", "car", CAR, 40.0, -CAR_LAT, 180.0, 8.0),          # E arm, outbound lane, heading in
              _agent("car_2", "car", _line(C[0] + CAR_LAT, C[1] + 40.0, -90.0, 8.0), CAR),   # N arm, outbound lane
              _agent("motorcycle_1", "motorcycle", _line(C[0] + 40.0, C[1] + BIKE_LAT, 0.0, 5.0),
                     road_bodies.MOTORCYCLE_SIZE)]                                # E arm, inbound bike lane, out
    evs = _derive(riders, t1=2.0)
    assert sorted(_kinds(evs)) == [("wrong_way", ["car_1"]), ("wrong_way", ["car_2"]), ("wrong_way", ["motorcycle_1"])]
    right = [_rider("car_3", "car", CAR, 40.0, CAR_LAT, 180.0, 8.0),
             _agent("car_4", "car", _line(C[0] - CAR_LAT, C[1] + 40.0, -90.0, 8.0), CAR)]
    assert _derive(right, t1=2.0) == []


# ------------------------------------------------------------------ stop line

def _inbound_n(tid, lat, t_front, v=12.0, heading=-90.0, cat="car", size=CAR):
    """Inbound on the N arm (driving -y), `lat` right of the centre line (x = C - lat), its front
    on the stop line at t_front."""
    return _agent(tid, cat, _line(C[0] - lat, C[1] + STOP_A + size[0] / 2 + v * t_front, heading, v), size)


def test_stop_line_violation_of_a_cyclist_in_the_inbound_bike_lane():
    bike = _inbound_n("bicycle_1", BIKE_LAT, 3.0, v=6.0, cat="bicycle", size=road_bodies.BICYCLE_SIZE)
    evs = _derive([bike], t1=5.0)
    assert _kinds(evs) == [("stop_line_violation", ["bicycle_1"])]
    assert evs[0].t_start == pytest.approx(3.0, abs=2e-6)
    assert evs[0].t_end == pytest.approx(3.0 + 1.8 / 6.0, abs=2e-6)


@pytest.mark.parametrize("lat, expected", [(ROAD_HALF - 0.01, True), (ROAD_HALF + 0.01, False),
                                           (0.01, True), (-0.01, False)])
def test_stop_line_spans_the_inbound_half_of_the_road(lat, expected):
    car = _inbound_n("car_1", lat, 3.0)
    evs = [e for e in _derive([car], t1=5.0) if e.type == "stop_line_violation"]
    assert len(evs) == (1 if expected else 0)


def test_a_car_already_on_the_line_at_the_clips_start_is_no_violation():
    car = _inbound_n("car_1", CAR_LAT, -0.1)     # its front crossed 0.1 s before the clip, under red
    assert _derive([car], t1=3.0) == []
    car = _inbound_n("car_1", CAR_LAT, 0.05)
    (ev,) = _derive([car], t1=3.0)
    assert ev.type == "stop_line_violation" and ev.t_start == pytest.approx(0.05, abs=2e-6)


def test_a_car_driving_out_over_the_inbound_half_is_wrong_way_not_a_violation():
    # on the N arm's inbound lane, driving +y (outwards) over the stop line under red
    car = _agent("car_1", "car", _line(C[0] - CAR_LAT, C[1] + STOP_A - 10.0, 90.0, 8.0), CAR)
    evs = _derive([car], t1=3.0)
    assert {e.type for e in evs} == {"wrong_way"}


def test_an_angled_approach_straddles_the_line_from_front_to_rear():
    # inbound on the E arm at 20 degrees off the axis (heading 200): the front's along offset is cos20 x L/2
    v, h = 10.0, math.radians(200.0)
    head = math.cos(math.radians(20.0)) * CAR[0] / 2
    a0 = STOP_A + head + v * math.cos(math.radians(20.0)) * 9.0        # the front reaches the line at 9 s
    car = _agent("car_1", "car", _line(C[0] + a0, C[1] + 3.0 + v * math.sin(math.radians(20.0)) * 9.0,
                                       math.degrees(h), v), CAR)
    evs = [e for e in _derive([car], t1=12.0) if e.type == "stop_line_violation"]
    along_rate = v * math.cos(math.radians(20.0))
    assert [(e.t_start, e.t_end) for e in evs] == [(pytest.approx(9.0, abs=2e-6),
                                                    pytest.approx(9.0 + 2 * head / along_rate, abs=2e-6))]


# ------------------------------------------------------------------ who the rules take

def test_people_are_not_stop_line_violators_and_vehicles_are_not_jaywalkers():
    walker = _inbound_n("person_1", CAR_LAT, 3.0, v=1.5, cat="person", size=PERSON)
    car = _agent("car_1", "car", _line(C[0] + 20.0, C[1] - 30.0, 90.0, 0.5), CAR)     # crossing the E arm off any zebra
    evs = _derive([walker, car], t1=6.0)
    assert {e.type for e in evs} <= {"jaywalking"} and all(e.actors == ["person_1"] for e in evs)
    assert any(e.type == "jaywalking" for e in evs)


def test_events_are_sorted_by_start_time_then_type():
    late = _inbound_n("car_1", CAR_LAT, 9.5)                                          # N arm, red until 10 s
    early = _rider("car_2", "car", CAR, 20.0, CAR_LAT, 0.0, 3.0)                       # wrong way from 0 s
    parked = _box("car_3", (C[0] + 20.0 + 3.0 * 4.0 + 4.5, C[1] + CAR_LAT), CAR)      # car_2 runs into it at 4 s
    evs = _derive([late, early, parked], t1=12.0)
    assert [e.type for e in evs] == ["wrong_way", "collision", "stop_line_violation"]
    assert [e.t_start for e in evs] == [0.0, pytest.approx(4.0, abs=2e-6), pytest.approx(9.5, abs=2e-6)]


def test_coarse_grid_spans_the_clip_at_coarse_s():
    c = _Coarse([_box("car_1", (0.0, 0.0), CAR)], 1.0)
    assert len(c.ts) == round(1.0 / COARSE_S) + 1 and c.ts[-1] == 1.0
    assert _Coarse([_box("car_1", (0.0, 0.0), CAR)], 0.01).ts.tolist() == [0.0, 0.01]
    car = _agent("car_1", "car", _line(0.0, 0.0, 0.0, SpeedProfile(times=[0.0, 1.0], speeds=[2.0, 6.0])), CAR)
    assert _Coarse([car], 2.0).vmax["car_1"] == pytest.approx(6.0)


# ------------------------------------------------------------------ thresholds on other arms and road users

@pytest.mark.parametrize("gap, expected", [(NEAR_MISS_GAP_M - 0.01, True), (NEAR_MISS_GAP_M + 0.01, False)])
def test_near_miss_gap_just_inside_and_outside_for_a_motorcycle_and_a_cyclist(gap, expected):
    """A motorcycle along -y at 8 m/s through y = 0 at 3 s; a cyclist standing beside its path, its box
    side `gap` from the motorcycle's: footprints closer than 1 m while |y| < 1.05 + 0.9 + sqrt(1 - gap^2)."""
    moto = _agent("motorcycle_1", "motorcycle", _line(0.0, 24.0, -90.0, 8.0), road_bodies.MOTORCYCLE_SIZE)
    bike = _box("bicycle_1", (0.4 + gap + 0.3, 0.0), road_bodies.BICYCLE_SIZE, yaw=90.0, cat="bicycle")
    evs = _derive([moto, bike], t1=6.0)
    assert _kinds(evs) == ([("near_miss", ["bicycle_1", "motorcycle_1"])] if expected else [])
    if expected:
        half = (1.05 + 0.9 + math.sqrt(NEAR_MISS_GAP_M ** 2 - gap * gap)) / 8.0
        assert evs[0].t_start == pytest.approx(3.0 - half, abs=2e-6)
        assert evs[0].t_end == pytest.approx(3.0 + half, abs=2e-6)


@pytest.mark.parametrize("dt, expected", [(0.01, True), (-0.01, False)])
def test_stop_line_violation_on_the_w_arm_just_after_and_before_red(dt, expected):
    """A W-arm car (inbound: +x, CAR_LAT right of the centre line, y = C - CAR_LAT) at 10 m/s whose
    front reaches the stop line at t_red + dt (EW red from 8 s)."""
    v, L = 10.0, CAR[0]
    t_x = PLAN.t_red + dt
    car = _agent("car_1", "car", _line(C[0] - STOP_A - L / 2 - v * t_x, C[1] - CAR_LAT, 0.0, v), CAR)
    evs = _derive([car], t1=10.0)
    assert _kinds(evs) == ([("stop_line_violation", ["car_1"])] if expected else [])
    if expected:
        assert evs[0].t_start == pytest.approx(t_x, abs=2e-6)
        assert evs[0].t_end == pytest.approx(t_x + L / v, abs=2e-6)


@pytest.mark.parametrize("along, expected", [(CROSS_A[0] + 0.01, False), (CROSS_A[0] - 0.01, True)])
def test_jaywalking_beside_the_s_arms_zebra(along, expected):
    """A person crossing the S arm (x from C - 6.3 to C + 6.3) at `along` m south of the centre, at
    1.5 m/s: on the carriageway while |x - C| < ROAD_HALF, from 1/1.5 s to 11.6/1.5 s."""
    p = _agent("person_1", "person", _line(C[0] - 6.3, C[1] - along, 0.0, 1.5, length=12.6, z=0.875), PERSON)
    evs = _derive([p], t1=9.0)
    assert _kinds(evs) == ([("jaywalking", ["person_1"])] if expected else [])
    if expected:
        assert evs[0].t_start == pytest.approx(1.0 / 1.5, abs=2e-6)
        assert evs[0].t_end == pytest.approx((6.3 + ROAD_HALF) / 1.5, abs=2e-6)


def test_a_car_at_exactly_moving_mps_makes_no_near_miss():
    car = _agent("car_1", "car", _line(-3.0, 0.0, 0.0, MOVING_MPS, length=30.0), CAR)
    assert speed(car, 1.0) == MOVING_MPS
    assert _derive([car, _person_at("person_1", (0.0, -(0.95 + 0.5 + 0.2)))], t1=3.0) == []


def test_a_near_miss_with_a_person_walking_beside_the_road():
    # the person walks -x at 1.5 m/s, 0.6 m beside the car's side; the car +x at 10 m/s: they meet at x = 0, t = 2
    car = _agent("car_1", "car", _line(-20.0, 0.0, 0.0, 10.0), CAR)
    p = _agent("person_1", "person", _line(3.0, -(0.95 + 0.6 + 0.28), 180.0, 1.5, z=0.875), PERSON)
    (ev,) = _derive([car, p], t1=4.0)
    assert (ev.type, ev.actors) == ("near_miss", ["person_1", "car_1"])
    half = (2.25 + 0.2 + 0.8) / 11.5              # closing at 11.5 m/s; the ends' gap < 1 m while |dx| < 2.45 + 0.8
    assert ev.t_start == pytest.approx(2.0 - half, abs=2e-6) and ev.t_end == pytest.approx(2.0 + half, abs=2e-6)


def test_a_person_brushed_by_a_passing_car_is_a_collision_not_a_near_miss():
    # the person's box side 0.05 m inside the car's path: contact in the middle of the near interval, not at its ends
    car = _agent("car_1", "car", _line(-20.0, 0.0, 0.0, 10.0), CAR)
    p = _person_at("person_1", (0.0, -(0.95 - 0.05 + 0.2)))
    evs = _derive([car, p], t1=4.0)
    assert _kinds(evs) == [("collision", ["car_1", "person_1"])]
    assert evs[0].t_start == pytest.approx(2.0 - (2.25 + 0.28) / 10.0, abs=2e-6)


def test_speed_leaves_out_vertical_motion():
    carrier = _line(0.0, 0.0, 0.0, 0.0)
    load = _agent("box_1", "box", Carried(carrier=carrier, offset=[1.0, 0.0], z=0.5, t_pick=1.0, lift_m=0.5, lift_s=1.0),
                  (1.0, 1.0, 1.0))
    assert float(load.velocity(1.5)[2]) == 0.5 and speed(load, 1.5) == 0.0


def test_every_pairs_events_are_kept():
    # a near miss (car_1, person_1), a rear-end collision (car_2 into car_3); person_2 far from everyone
    car1 = _agent("car_1", "car", _line(-20.0, 0.0, 0.0, 10.0), CAR)
    p1 = _person_at("person_1", (0.0, -(0.95 + 0.5 + 0.2)))
    car2 = _agent("car_2", "car", _line(-10.0, 50.0, 0.0, 5.0), CAR)
    car3 = _box("car_3", (0.0, 50.0), CAR)
    p2 = _person_at("person_2", (0.0, 100.0))
    evs = _derive([car1, car2, car3, p1, p2], t1=4.0)
    assert sorted(_kinds(evs)) == [("collision", ["car_2", "car_3"]), ("near_miss", ["person_1", "car_1"])]


def test_running_alongside_a_car_exactly_near_miss_gap_m_away_is_no_near_miss():
    car = _agent("car_1", "car", _line(0.0, 0.0, 0.0, 5.0), CAR)
    beside = _agent("person_1", "person", _line(0.0, -2.23, 0.0, 5.0, z=0.875), PERSON)   # its side at y = -1.95
    assert all(footprint_gap(car, beside, t) == NEAR_MISS_GAP_M for t in (0.0, 0.5, 1.0))
    assert _derive([car, beside], t1=1.0) == []
    closer = _agent("person_1", "person", _line(0.0, -2.2, 0.0, 5.0, z=0.875), PERSON)
    assert [(e.type, e.t_start, e.t_end) for e in _derive([car, closer], t1=1.0)] == [("near_miss", 0.0, 1.0)]
