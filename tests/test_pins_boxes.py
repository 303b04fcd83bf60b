"""geometry/boxes.py: segments against upright yawed boxes, the footprint distance and the cull,
worked by hand and against independent computations (points sampled along each segment tested
inside each box's own frame; geometry.polygons on each footprint's corner polygon)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from geometry.boxes import boxes_within, point_box_distance_xy, segments_hit_boxes, upright_boxes
from geometry.polygons import oriented_rect, point_poly_distance, polys_intersect, rect_poly


def test_segments_against_an_upright_box_worked():
    box = upright_boxes([(0.0, 0.0, 0.0, 1.0, 0.5, 0.0, 1.5)])          # 2 x 1 x 1.5 m at the origin
    start = np.array([-3.0, 0.0, 1.0])
    ends = np.array([[3.0, 0.0, 1.0],        # straight through
                     [3.0, 0.0, 2.0],        # crosses x = +-1 at z = 1.33 and 1.67: enters, so a hit
                     [3.0, 0.0, 3.5],        # at x = -1, z = 1.83: passes over
                     [-1.01, 0.0, 1.0],      # stops 1 cm short of the face
                     [-1.0, 0.0, 1.0],       # touches the face: conservative hit
                     [3.0, 0.51, 1.0]])      # y = 0.51 * (x + 3) / 6 reaches 0.17 at x = -1: inside, hit
    assert segments_hit_boxes(start, ends, box).tolist() == [True, True, False, False, True, True]
    # parallel to a slab: inside it or never
    assert segments_hit_boxes([-3.0, 0.49, 1.0], [[3.0, 0.49, 1.0]], box).tolist() == [True]
    assert segments_hit_boxes([-3.0, 0.51, 1.0], [[3.0, 0.51, 1.0]], box).tolist() == [False]
    # a box yawed 90 deg: its 2 m run along y
    yawed = upright_boxes([(0.0, 0.0, 90.0, 1.0, 0.5, 0.0, 1.5)])
    assert segments_hit_boxes([0.6, -3.0, 1.0], [[0.6, 3.0, 1.0]], yawed).tolist() == [False]
    assert segments_hit_boxes([0.4, -3.0, 1.0], [[0.4, 3.0, 1.0]], yawed).tolist() == [True]
    assert segments_hit_boxes([0.0, 0.0, 1.0], [[1.0, 1.0, 1.0]], upright_boxes([])).tolist() == [False]
    with pytest.raises(ValueError, match="^a box has a negative half extent or z_hi < z_lo$"):
        upright_boxes([(0.0, 0.0, 0.0, -1.0, 0.5, 0.0, 1.5)])


def test_point_box_distance_worked():
    box = upright_boxes([(2.0, 1.0, 90.0, 1.0, 0.5, 0.0, 1.5), (0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0)])
    d = point_box_distance_xy([2.0, 4.0], box)      # the yawed box spans y 0..2 at x 1.5..2.5
    assert d[0] == pytest.approx(2.0)
    assert d[1] == pytest.approx(math.hypot(1.0, 3.0))
    assert point_box_distance_xy([2.2, 1.9], box)[0] == 0.0


def test_a_box_with_z_hi_under_z_lo_is_refused():
    with pytest.raises(ValueError, match="z_hi < z_lo"):
        upright_boxes([(0.0, 0.0, 0.0, 1.0, 0.5, 1.5, 1.4)])
    assert len(upright_boxes([(0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0)])) == 1      # flat and thin is allowed
    below = upright_boxes([(0.0, 0.0, 0.0, 1.0, 1.0, -0.5, 1.0)])              # reaching under the ground is
    assert below.z_lo.tolist() == [-0.5]                                        # no negative half extent


def test_each_segment_is_tested_against_every_box_and_answered_in_order():
    """Two boxes apart: each of three segments meets the first, the second or neither."""
    boxes = upright_boxes([(0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 1.0), (5.0, 0.0, 30.0, 0.5, 0.5, 0.0, 1.0)])
    start = [2.5, -5.0, 0.5]
    ends = [[0.0, 0.0, 0.5], [5.0, 0.0, 0.5], [2.5, 5.0, 0.5]]
    assert segments_hit_boxes(start, ends, boxes).tolist() == [True, True, False]
    assert segments_hit_boxes(start, ends[:1], boxes).shape == (1,)


def test_a_segment_ending_inside_a_box_or_starting_inside_hits_it():
    box = upright_boxes([(0.0, 0.0, 45.0, 1.0, 0.5, 0.2, 1.5)])
    assert segments_hit_boxes([0.0, 0.0, 1.0], [[4.0, 4.0, 1.0]], box).tolist() == [True]    # starts inside
    assert segments_hit_boxes([4.0, 4.0, 1.0], [[0.0, 0.0, 1.0]], box).tolist() == [True]    # ends inside
    assert segments_hit_boxes([0.0, 0.0, 0.1], [[0.0, 0.0, 0.15]], box).tolist() == [False]  # under z_lo
    assert segments_hit_boxes([0.0, 0.0, 0.1], [[0.0, 0.0, 0.25]], box).tolist() == [True]   # up into it


def _inside(points, row, shrink):
    """Points (K, 3) inside box `row` (x, y, yaw, hx, hy, z0, z1) grown by -shrink, in its own frame."""
    x, y, yaw, hx, hy, z0, z1 = row
    a = math.radians(yaw)
    dx, dy = points[:, 0] - x, points[:, 1] - y
    u = math.cos(a) * dx + math.sin(a) * dy
    v = -math.sin(a) * dx + math.cos(a) * dy
    return ((np.abs(u) <= hx - shrink) & (np.abs(v) <= hy - shrink) &
            (points[:, 2] >= z0 + shrink) & (points[:, 2] <= z1 - shrink))


def test_segment_hits_agree_with_points_sampled_along_them():
    """400 random segments against 6 random boxes: a sampled point 2 mm inside a box must mean a hit,
    no sampled point within 5 cm of any box (at 1 mm steps on segments under 20 m) a miss."""
    rng = np.random.default_rng(5)
    rows = [(*rng.uniform(-4, 4, 2), rng.uniform(-180, 180), *rng.uniform(0.2, 1.5, 2), *sorted(rng.uniform(0, 2, 2)))
            for _ in range(6)]
    boxes = upright_boxes(rows)
    decided = {True: 0, False: 0}
    for _ in range(400):
        start, end = rng.uniform(-6, 6, 3), rng.uniform(-6, 6, 3)
        start[2], end[2] = rng.uniform(-0.5, 2.5, 2)
        t = np.linspace(0.0, 1.0, 20_001)[:, None]
        pts = start + t * (end - start)
        deep = any(_inside(pts, r, 0.002).any() for r in rows)
        near = any(_inside(pts, r, -0.05).any() for r in rows)
        got = bool(segments_hit_boxes(start, end[None], boxes)[0])
        if deep:
            assert got, (start, end)
            decided[True] += 1
        elif not near:
            assert not got, (start, end)
            decided[False] += 1
    assert decided[True] >= 60 and decided[False] >= 60        # both kinds were really checked


def test_footprint_distance_agrees_with_the_corner_polygon():
    rng = np.random.default_rng(7)
    rows = [(*rng.uniform(-5, 5, 2), rng.uniform(-180, 180), *rng.uniform(0.1, 2.0, 2), 0.0, 1.0) for _ in range(8)]
    boxes = upright_boxes(rows)
    for p in rng.uniform(-8, 8, (60, 2)):
        got = point_box_distance_xy(p, boxes)
        want = [point_poly_distance(p, oriented_rect((x, y), 2 * hx, 2 * hy, yaw))[0]
                for x, y, yaw, hx, hy, _, _ in rows]
        np.testing.assert_allclose(got, want, atol=1e-9)


def test_the_cull_keeps_every_box_meeting_the_rectangle_and_only_those_its_bounds_meet():
    rng = np.random.default_rng(11)
    rows = [(*rng.uniform(-10, 10, 2), rng.uniform(-180, 180), *rng.uniform(0.1, 2.5, 2), 0.0, 1.5)
            for _ in range(80)]
    boxes = upright_boxes(rows)
    for _ in range(25):
        lo = rng.uniform(-8, 4, 2)
        hi = lo + rng.uniform(0.5, 6, 2)
        kept = boxes_within(boxes, lo, hi)
        kept_rows = {tuple(np.round(np.r_[c, y, h], 9)) for c, y, h in zip(kept.center_xy, kept.yaw_deg, kept.half_xy)}
        for x, y, yaw, hx, hy, _, _ in rows:
            corners = oriented_rect((x, y), 2 * hx, 2 * hy, yaw)
            key = tuple(np.round([x, y, yaw, hx, hy], 9))
            meets_bounds = (corners.max(axis=0) >= lo).all() and (corners.min(axis=0) <= hi).all()
            assert (key in kept_rows) == meets_bounds
            if polys_intersect(corners, rect_poly([*lo, *hi])):
                assert key in kept_rows
        np.testing.assert_array_equal(kept.z_hi, np.full(len(kept), 1.5))


@pytest.mark.parametrize("start, end", [
    ([-3.0, 0.5, 1.0], [3.0, 0.5, 1.0]),      # along the +y face's plane
    ([-3.0, -0.5, 1.0], [3.0, -0.5, 1.0]),    # along the -y face's plane
    ([-3.0, 0.0, 1.5], [3.0, 0.0, 1.5]),      # along the top's plane
    ([-3.0, 0.0, 0.0], [3.0, 0.0, 0.0]),      # along the bottom's plane
])
def test_a_segment_lying_in_a_face_plane_touches_and_counts_as_a_hit(start, end):
    """Parallel to a slab exactly on its boundary: 0/0 in the slab test, answered by the parallel rule."""
    box = upright_boxes([(0.0, 0.0, 0.0, 1.0, 0.5, 0.0, 1.5)])
    assert segments_hit_boxes(start, [end], box).tolist() == [True]


def test_parallel_segments_warn_nothing_and_every_answer_is_a_bool_mask():
    import warnings

    box = upright_boxes([(0.0, 0.0, 0.0, 1.0, 0.5, 0.0, 1.5)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # x / 0 and 0 / 0 of parallel segments stay silent
        hits = segments_hit_boxes([-3.0, 0.5, 1.0], [[3.0, 0.5, 1.0], [3.0, 0.7, 1.0]], box)
    assert hits.dtype == bool and hits.tolist() == [True, False]
    none = segments_hit_boxes([0.0, 0.0, 1.0], [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]], upright_boxes([]))
    assert none.dtype == bool and none.tolist() == [False, False]


def test_the_cull_keeps_a_box_whose_bounds_only_touch_the_rectangle():
    """A 2 x 2 box at the origin spans -1..1 exactly (yaw 0): a rectangle starting at x = 1 or ending at
    x = -1 touches it and keeps it; a micrometre further it is dropped. Heights are carried along."""
    boxes = upright_boxes([(0.0, 0.0, 0.0, 1.0, 1.0, 0.25, 1.75)])
    for lo, hi, kept in [((1.0, -5.0), (4.0, 5.0), 1), ((1.000001, -5.0), (4.0, 5.0), 0),
                         ((-4.0, -5.0), (-1.0, 5.0), 1), ((-4.0, -5.0), (-1.000001, 5.0), 0),
                         ((-5.0, 1.0), (5.0, 3.0), 1), ((-5.0, -3.0), (5.0, -1.000001), 0)]:
        got = boxes_within(boxes, lo, hi)
        assert len(got) == kept, (lo, hi)
        assert got.z_lo.tolist() == [0.25] * kept and got.z_hi.tolist() == [1.75] * kept
