"""Pins of geometry/events.py against independent computations: matplotlib's point-in-polygon and
polygon-intersection tests, hand-placed agents, and boundary cases exactly on a threshold."""
from __future__ import annotations

import numpy as np
import pytest
from matplotlib.path import Path as MplPath

from geometry.events import (_inside, _separated, footprints_overlap, ground_distance, intervals_where,
                             near_misses)
from geometry.timeline import Agent, Stationary


def still(track_id, xy, size=(1.0, 1.0, 1.0)):
    return Agent(track_id=track_id, category="box", mesh="box", size=list(size),
                 trajectory=Stationary(position=[*xy, size[2] / 2]))


def star(rng, n=7):
    angles = np.sort(rng.uniform(0, 2 * np.pi, n))
    radii = rng.uniform(0.3, 2.0, n)
    return np.stack([radii * np.cos(angles), radii * np.sin(angles)], axis=1)


def test_point_in_polygon_agrees_with_matplotlib():
    rng = np.random.default_rng(11)
    checked = inside_count = 0
    for _ in range(40):
        poly = star(rng) + rng.uniform(-3, 3, 2)
        path = MplPath(poly)
        points = rng.uniform(poly.min(0) - 0.2, poly.max(0) + 0.2, size=(60, 2))
        expected = path.contains_points(points)
        for p, e in zip(points, expected):
            got = _inside(poly, p)
            assert isinstance(got, bool) and got == bool(e), (poly.tolist(), p.tolist())
            checked, inside_count = checked + 1, inside_count + bool(e)
    assert checked == 2400 and 300 < inside_count < 2100   # both answers well represented


def test_point_level_with_a_vertex_counts_once():
    # even-odd rule: a horizontal ray through the apex vertex (1, 1) of this triangle crosses its
    # boundary once for a point left of the apex inside, zero times for a point outside
    tri = np.array([[0.0, 0.0], [2.0, 0.0], [1.0, 1.0]])
    assert _inside(tri, np.array([1.0, 0.5])) is True
    assert _inside(tri, np.array([0.2, 0.5])) is False
    square = np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]])
    # level with the bottom edge's vertices: half-open rule, the bottom edge is inside, the top is not
    assert _inside(square, np.array([1.0, 0.0])) is True
    assert _inside(square, np.array([1.0, 2.0])) is False
    assert _inside(square, np.array([1.0, 1.0])) is True and _inside(square, np.array([3.0, 1.0])) is False


def rect(center, size, yaw_deg):
    c, s = np.cos(np.radians(yaw_deg)), np.sin(np.radians(yaw_deg))
    half = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * np.asarray(size) / 2
    return half @ np.array([[c, s], [-s, c]]) + center


def closed(poly):
    return MplPath(np.vstack([poly, poly[:1]]), closed=True)


def test_separating_axes_agree_with_matplotlib_on_rotated_rectangles():
    rng = np.random.default_rng(5)
    overlapping = 0
    for _ in range(400):
        p = rect(rng.uniform(-1, 1, 2), rng.uniform(0.2, 1.5, 2), rng.uniform(0, 180))
        q = rect(rng.uniform(-1, 1, 2), rng.uniform(0.2, 1.5, 2), rng.uniform(0, 180))
        expected = closed(p).intersects_path(closed(q), filled=True)
        assert _separated(p, q) is (not expected)
        overlapping += expected
    assert 100 < overlapping < 350


def test_touching_footprints_collide():
    # unit boxes side by side share an edge exactly; corner to corner they share one point
    assert footprints_overlap(still("a", (0, 0)), still("b", (1, 0)), 0.0)
    assert footprints_overlap(still("a", (0, 0)), still("b", (1, 1)), 0.0)   # distance = half-diagonals
    assert not footprints_overlap(still("a", (0, 0)), still("b", (1.001, 1)), 0.0)
    assert not footprints_overlap(still("a", (0, 0)), still("b", (0, 1.5), size=(1, 0.999, 1)), 0.0)


def test_ground_distance_ignores_height():
    a, b = still("a", (1, 0)), still("b", (3, 0), size=(1, 1, 4))
    assert ground_distance(a, b, 0.0) == pytest.approx(2.0)
    assert ground_distance(still("a", (-1, 2)), still("b", (2, -2)), 5.0) == pytest.approx(5.0)


def test_near_miss_threshold_is_exclusive():
    a, b = still("a", (0, 0)), still("b", (2, 0))
    assert near_misses(a, b, 2.0, 0.0, 1.0) == []
    events = near_misses(a, b, 2.0001, 0.0, 1.0)
    assert [(e.t_start, e.t_end) for e in events] == [(0.0, 1.0)]


def test_intervals_start_and_end_at_the_clip_ends():
    # true only in the first grid step: the interval starts at t0
    spans = intervals_where(lambda t: t < 0.001, 0.0, 1.0)
    assert len(spans) == 1 and spans[0][0] == 0.0 and spans[0][1] == pytest.approx(0.001, abs=2e-6)
    # true from a change inside the first grid step to the end
    spans = intervals_where(lambda t: t > 0.002, 0.0, 1.0)
    assert len(spans) == 1 and spans[0][0] == pytest.approx(0.002, abs=2e-6) and spans[0][1] == 1.0
    # a clip shorter than one grid step
    assert intervals_where(lambda t: True, 0.0, 0.001) == [(0.0, 0.001)]
    assert intervals_where(lambda t: False, 0.0, 0.001) == []
    # two separate stays
    spans = intervals_where(lambda t: 0.2 < t < 0.3 or 0.6 < t < 0.7, 0.0, 1.0)
    assert [(round(a, 4), round(b, 4)) for a, b in spans] == [(0.2, 0.3), (0.6, 0.7)]


def _fallen_person():
    """A 0.4 x 0.5 x 1.8 m person at the origin facing +x who falls at 1 s for 1 s: lying, its
    footprint spans x 0.2..2.0 and its position (the box centre) is at x 1.1."""
    from geometry.timeline import Fall, FallingAgent, Line, Path, PathTrajectory, profile_from_phases

    traj = PathTrajectory(path=Path(start=[0.0, 0.0], heading_deg=0.0, segments=[Line(length=1.0)]),
                          speed=profile_from_phases(0.0, [("stop", 1.0)]), z=0.9)
    return FallingAgent(track_id="p", category="person", mesh="person", size=[0.4, 0.5, 1.8], trajectory=traj,
                        fall=Fall(t_start=1.0, duration_s=1.0))


def test_a_fallen_body_collides_beyond_its_upright_reach():
    """Lying, the body reaches 0.9 m from its centre, far past its upright half-diagonal (0.32 m):
    a 1 m box whose near edge is at x 1.8 overlaps its footprint although the centres are 1.2 m
    apart, more than the two upright half-diagonals (1.03 m)."""
    from geometry.events import collisions

    person, box = _fallen_person(), still("b", (2.3, 0.0))
    assert ground_distance(person, box, 3.0) == pytest.approx(1.2)
    assert not _separated(person.footprint(3.0), box.footprint(3.0))            # the outlines overlap
    assert footprints_overlap(person, box, 3.0) and not footprints_overlap(person, box, 0.5)
    assert not footprints_overlap(person, still("far", (3.1, 0.0)), 3.0)      # near edge at 2.6: clear
    (span,) = [(e.t_start, e.t_end) for e in collisions(person, box, 0.0, 4.0)]
    assert 1.0 < span[0] < 2.0 and span[1] == 4.0


def test_ground_reach_bounds_every_footprint_corner():
    person, box = _fallen_person(), still("b", (0.0, 0.0), size=(4.0, 2.0, 1.5))
    assert box.ground_reach() == pytest.approx(np.hypot(4.0, 2.0) / 2)
    assert person.ground_reach() == pytest.approx(np.linalg.norm([0.4, 0.5, 1.8]) / 2)
    for t in np.linspace(0.0, 3.0, 31):
        corners = person.footprint(float(t)) - person.position(float(t))[:2]
        assert np.hypot(*corners.T).max() <= person.ground_reach() + 1e-12
    lying = person.footprint(3.0) - person.position(3.0)[:2]
    assert np.hypot(*lying.T).max() == pytest.approx(np.hypot(0.9, 0.25))     # > the upright 0.32 m


def test_grid_windows_widen_each_hit_to_its_neighbours_and_merge():
    from geometry.events import grid_windows

    ts = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
    assert grid_windows(ts, np.zeros(7, bool)) == []
    assert grid_windows(ts, np.array([0, 0, 0, 1, 0, 0, 0], bool)) == [(1.0, 2.0)]
    assert grid_windows(ts, np.array([1, 0, 0, 0, 0, 0, 1], bool)) == [(0.0, 0.5), (2.5, 3.0)]   # clipped at the ends
    assert grid_windows(ts, np.array([0, 1, 0, 1, 0, 0, 0], bool)) == [(0.0, 2.0)]   # touching windows merge
    assert grid_windows(ts, np.array([0, 1, 0, 0, 1, 0, 0], bool)) == [(0.0, 1.0), (1.5, 2.5)]
