"""vehicle-6's busier lot (lot.py): far cars in the bays the distractors left, lumpy tree
crowns, a belt of far trees and a distant skyline, all drawn after every vehicle-5 draw and
all outside the clear disc, so no label can change."""
from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest

from blender_envs.registry import get_environment
from blender_envs.vehicle import lot as lot_mod
from blender_envs.vehicle.lot import (BAY_CLEAR_MARGIN_M, BAY_LENGTH_M, BAY_WIDTH_M, FAR_FILL, LotCar, bay_corners,
                                      footprint_corners, rect_disc_distance)
from render_farm.seeds import rng_for

ENV = get_environment("car_view")


def spec_of(seed: int):
    return ENV.sample_scene(rng_for("test_car_view", seed, "scene"), f"t{seed}", seed)


# blake2b-64 of the lot's JSON without vehicle-6's fields, from the vehicle-5 code (commit 8836a0b)
VEHICLE5_LOTS = {0: "8b86add78c94b672", 1: "873268c5a7a427bc", 2: "c4a61a596332096b"}


@pytest.mark.parametrize("seed", sorted(VEHICLE5_LOTS))
def test_every_vehicle5_draw_is_unchanged(seed):
    lot = spec_of(seed).lot
    j = lot.model_dump_json(exclude={"far_cars": True, "far_trees": True, "skyline": True,
                                     "trees": {"__all__": {"lobes"}},
                                     "neighbours": True, "inner_far_cars": True})   # vehicle-8's own stage
    assert hashlib.blake2b(j.encode(), digest_size=8).hexdigest() == VEHICLE5_LOTS[seed]


def _bay_of(lot, x, y):
    return min(lot.bays, key=lambda b: math.hypot(b.center[0] - x, b.center[1] - y))


@pytest.mark.parametrize("seed", range(8))
def test_far_cars_fill_the_free_bays_outside_the_disc(seed):
    lot = spec_of(seed).lot
    R = lot.clear_radius_m
    used = {id(_bay_of(lot, c.placement.x, c.placement.y)) for c in lot.cars[1:]}
    free = [b for b in lot.bays if rect_disc_distance(bay_corners(b)) > R + BAY_CLEAR_MARGIN_M and id(b) not in used]
    n = len(lot.far_cars)
    assert FAR_FILL[0] * len(free) - 0.5 <= n <= FAR_FILL[1] * len(free) + 0.5
    assert n >= 30                                                  # the rows beyond the disc read as busy
    bays = set()
    feet = [footprint_corners(c)[:, :2] for c in lot.cars[1:]]
    for f in lot.far_cars:
        assert 1 <= f.template < len(lot.cars)
        bay = _bay_of(lot, f.placement.x, f.placement.y)
        assert abs(bay.center[0] - f.placement.x) <= 0.15 + 1e-9 and abs(bay.center[1] - f.placement.y) <= 0.15 + 1e-9
        assert id(bay) not in used and id(bay) not in bays             # its own bay, not a distractor's
        bays.add(id(bay))
        assert rect_disc_distance(bay_corners(bay)) > R + BAY_CLEAR_MARGIN_M
        t = lot.cars[f.template]
        car = LotCar(body=t.body, color=t.color, plate=t.plate, placement=f.placement)
        assert rect_disc_distance(footprint_corners(car)) > R                # never in the clear disc
        fp = footprint_corners(car)[:, :2]
        assert np.all(np.abs(fp - bay.center) <= [BAY_WIDTH_M / 2 + 0.1, BAY_LENGTH_M / 2 + 0.1])   # in its bay
        feet.append(fp)
        assert abs(abs(f.placement.yaw_deg) - 90.0) <= lot_mod.PARK_YAW_MAX_DEG + 1e-9
    assert len({f.template for f in lot.far_cars}) >= min(5, len(lot.cars) - 1)
    for i in range(len(feet)):                                        # no two parked cars overlap
        for j in range(i + 1, len(feet)):
            if np.linalg.norm(feet[i].mean(0) - feet[j].mean(0)) < 7.0:
                assert not _overlap(feet[i], feet[j])


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Separating-axis test of two convex quadrilaterals (corners in order)."""
    for poly in (a, b):
        for k in range(4):
            e = poly[(k + 1) % 4] - poly[k]
            n = np.array([-e[1], e[0]])
            pa, pb = a @ n, b @ n
            if pa.max() <= pb.min() or pb.max() <= pa.min():
                return False
    return True


def test_far_cars_honour_the_fill_share_and_an_empty_input():
    rng = np.random.default_rng(0)
    bays = [lot_mod.Bay(center=[100.0 + 2.7 * i, 0.0], facing=1) for i in range(200)]
    far = lot_mod.sample_far_cars(rng, bays, 3)
    assert 0.55 * 200 <= len(far) <= 0.85 * 200
    assert {f.template for f in far} == {1, 2, 3}
    assert lot_mod.sample_far_cars(rng, [], 3) == [] and lot_mod.sample_far_cars(rng, bays, 0) == []


@pytest.mark.parametrize("seed", range(6))
def test_crowns_far_trees_and_skyline_stay_out_of_the_lot(seed):
    lot = spec_of(seed).lot
    for t in lot.trees + lot.far_trees:
        if t.crown == "sphere":
            assert 5 <= len(t.lobes) <= 8 and t.lobes[0][:3] == [0.0, 0.0, 0.0]
            for dx, dy, dz, r in t.lobes:
                assert math.sqrt(dx * dx + dy * dy + dz * dz) + r <= 1.05 * t.crown_radius_m + 2e-3
        else:
            assert t.lobes == []
    assert 40 <= len(lot.far_trees) <= 80
    X, Y = lot.half_x_m, lot.half_y_m
    side = next(b.side for b in lot.backdrops if b.kind == "building")
    for t in lot.far_trees:
        x, y = t.xy
        r = math.hypot(x, y)
        edge = min(X * r / max(abs(x), 1e-9), Y * r / max(abs(y), 1e-9))      # where its ray leaves the lot
        assert 25.0 - 0.01 <= r - edge <= 70.0 + 0.01
        assert not (abs(x) < X + 14.0 and Y < side * y < Y + 30.0)         # not inside the building
    assert lot_mod.SKYLINE_BLOCKS[0] <= len(lot.skyline) <= lot_mod.SKYLINE_BLOCKS[1]
    for b in lot.skyline:
        assert 90.0 - 1e-3 <= math.hypot(*b.xy) <= 220.0 + 1e-3
        assert 6.0 <= b.size_m[2] <= 22.0


def test_a_lobe_worked_example():
    lobes = lot_mod.crown_lobes(np.random.default_rng(5), 3.0)
    assert lobes[0] == [0.0, 0.0, 0.0, 2.16]                          # the central clump: 0.72 x radius
    assert all(0.38 * 3.0 - 1e-3 <= r <= 0.6 * 3.0 + 1e-3 for *_, r in lobes[1:])


def test_car_plate_and_ro_board_discs_are_sized_to_their_own_poses():
    """vehicle-6: car_plate and ro_board clear only the disc their field poses can reach
    (car_view's 4.5 lengths before), so distractors park in the nearer bays; worked for a
    4.6 x 1.8 m body: 2.3 + 5 + 1 = 8.3 m and 2.3 + 0.45 + 1.6 + 9 + 1 = 14.35 m."""
    from blender_envs.vehicle import car_plate, ro_board
    from blender_envs.vehicle.body import sample_body

    body = sample_body(np.random.default_rng(0), "sedan").model_copy(update={"length_m": 4.6, "width_m": 1.8})
    assert car_plate.clear_radius(4.6) == pytest.approx(8.3)
    assert ro_board.clear_radius(body) == pytest.approx(14.35)
    for name, radius in (("car_plate", lambda b: car_plate.clear_radius(b.length_m)), ("ro_board", ro_board.clear_radius)):
        env = get_environment(name)
        for seed in range(4):
            spec = env.sample_scene(rng_for("test_lot", seed, "scene"), f"t{seed}", seed)
            lot = spec.lot
            assert lot.clear_radius_m == pytest.approx(radius(lot.subject.body), abs=1e-4)
            near = min(rect_disc_distance(footprint_corners(c)) for c in lot.cars[1:])
            assert lot.clear_radius_m < near < 14.0 + 6.0 * (name == "ro_board")   # parked cars close by


def test_skyline_faces_carry_their_blocks_colour():
    from blender_envs.vehicle.lot_build import SKYLINE_RGB, skyline_part

    lot = spec_of(1).lot
    (V, F), rgb = skyline_part(lot)
    assert len(F) == 6 * len(lot.skyline) and len(V) == 8 * len(lot.skyline)
    for k, b in enumerate(lot.skyline):
        got = [rgb[key][6 * k:6 * k + 6] for key in SKYLINE_RGB]
        assert np.allclose(got, np.repeat(np.asarray(b.color)[:, None], 6, axis=1))
        box = V[8 * k:8 * k + 8]
        assert box[:, 2].max() == pytest.approx(b.size_m[2]) and box[:, 2].min() == 0.0
        assert box[:, :2].mean(axis=0) == pytest.approx(b.xy)
