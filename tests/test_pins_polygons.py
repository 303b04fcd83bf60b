"""geometry.polygons: separating-axis cases that only a slanted edge separates (each polygon's
own outward normals, in both call orders), the tolerance in metres whatever the polygon size,
segment distances on segments that are not unit length, and points off the diagonals."""
from __future__ import annotations

import math

import numpy as np
import pytest

from geometry.polygons import (nearest_poly_distance, oriented_rect, point_poly_distance, point_segment_distance,
                               poly_distance, polys_intersect, rect_poly)

TRI = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])  # hypotenuse x + y = 1


def square(lo, hi):
    return rect_poly([lo, lo, hi, hi])


def test_rect_poly_is_float_even_from_ints():
    P = rect_poly([0, 0, 2, 1])
    assert P.dtype == np.float64 and P.tolist() == [[0, 0], [2, 0], [2, 1], [0, 1]]


@pytest.mark.parametrize("lo, touching", [
    # square [lo, lo + 0.2]^2 beyond the hypotenuse: only the (1, 1) axis separates it;
    # its nearest corner (lo, lo) is (2 lo - 1) / sqrt(2) from the hypotenuse
    (0.5, True), (0.45, True), (0.55, False), (0.7, False),
])
def test_only_a_slanted_edge_separates(lo, touching):
    S = square(lo, lo + 0.2)
    assert polys_intersect(TRI, S) is touching
    assert polys_intersect(S, TRI) is touching
    gap = max(0.0, (2 * lo - 1) / math.sqrt(2))
    assert poly_distance(TRI, S) == pytest.approx(gap, abs=1e-12)
    assert poly_distance(S, TRI) == pytest.approx(gap, abs=1e-12)


def test_rotated_rectangles_separated_along_their_own_axes():
    A = oriented_rect((0.0, 0.0), 2.0, 0.2, 30.0)
    # B sits along A's short axis (the normal of A's long side) at distance 0.1 + 0.1 + gap
    nrm = np.array([-math.sin(math.radians(30)), math.cos(math.radians(30))])
    for gap, hit in ((0.05, False), (-0.05, True)):
        B = oriented_rect(nrm * (0.2 + gap), 2.0, 0.2, 30.0)
        assert polys_intersect(A, B) is hit and polys_intersect(B, A) is hit
        assert poly_distance(A, B) == pytest.approx(max(gap, 0.0), abs=1e-9)


@pytest.mark.parametrize("size, gap, touching", [
    # the tolerance is 1e-12 metres along a unit axis, whatever the size of the polygons
    (2.0, 0.5e-12, True), (2.0, 3e-12, False), (1.0, 1.5e-12, False), (10.0, 0.5e-12, True),
])
def test_touching_tolerance_is_in_metres(size, gap, touching):
    A = rect_poly([0.0, 0.0, size, size])
    B = rect_poly([size + gap, 0.0, 2 * size + gap, size])
    assert polys_intersect(A, B) is touching
    assert polys_intersect(B, A) is touching


def test_gap_of_exactly_the_tolerance_counts_as_touching():
    b0 = 1.0 + 1e-12
    assert b0 - 1e-12 == 1.0  # the case is exact in floating point
    A = rect_poly([0.0, 0.0, 1.0, 1.0])
    B = rect_poly([b0, 0.0, 2.0, 1.0])
    assert polys_intersect(A, B) and polys_intersect(B, A)
    # the same along the slanted axis, both call orders
    C = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]])
    assert polys_intersect(C, square(1.0, 1.5)) and polys_intersect(square(1.0, 1.5), C)


def test_point_segment_distance_on_long_and_short_segments():
    a, b = np.array([1.0, 1.0]), np.array([5.0, 1.0])  # 4 m long
    p = np.array([[3.0, 2.0], [0.0, 1.0], [6.0, 4.0], [4.5, 0.5]])
    assert np.allclose(point_segment_distance(p, a, b), [1.0, 1.0, math.hypot(1, 3), 0.5])
    a, b = np.array([0.0, 0.0]), np.array([0.0, 0.5])  # 0.5 m long
    p = np.array([[0.3, 0.25], [0.0, 1.0], [0.4, -0.3]])
    assert np.allclose(point_segment_distance(p, a, b), [0.3, 0.5, 0.5])
    # a degenerate segment is a point
    assert np.allclose(point_segment_distance(np.array([[3.0, 4.0]]), a, a), [5.0])


def test_point_poly_distance_off_the_diagonals():
    P = rect_poly([0.0, 0.0, 2.0, 1.0])
    p = np.array([[0.25, 0.5], [1.9, 0.1], [0.5, 0.9], [1.0, 0.2], [2.5, 0.5], [1.0, 1.5], [-1.0, -1.0]])
    assert np.allclose(point_poly_distance(p, P), [0, 0, 0, 0, 0.5, 0.5, math.sqrt(2)])
    # a triangle: inside points near each edge, and outside across the hypotenuse
    q = np.array([[0.1, 0.8], [0.8, 0.1], [0.05, 0.05], [1.0, 1.0]])
    assert np.allclose(point_poly_distance(q, TRI), [0, 0, 0, 1 / math.sqrt(2)])
    assert np.allclose(point_poly_distance([0.6, 0.6], TRI), [0.2 / math.sqrt(2)])  # one point, not (N, 2)


def test_nearest_poly_distance_one_value_per_point():
    polys = [rect_poly([0.0, 0.0, 1.0, 1.0]), rect_poly([3.0, 0.0, 4.0, 1.0])]
    xy = [[2.0, 0.5], [2.75, 0.5], [-0.5, 0.5]]
    d = nearest_poly_distance(xy, polys)
    assert d.shape == (3,) and np.allclose(d, [1.0, 0.25, 0.5])
    assert np.allclose(nearest_poly_distance([2.0, 0.5], polys), [1.0])


@pytest.mark.parametrize("shift, hit", [(0.93, False), (0.85, True), (1.0, False)])
def test_a_positive_min_overlap_asks_for_that_much_overlap(shift, hit):
    """Unit squares shifted along x: 0.07 m of overlap is under 0.1, 0.15 m over it, touching none;
    by default all three intersect (touching counts)."""
    A = rect_poly([0.0, 0.0, 1.0, 1.0])
    B = rect_poly([shift, 0.0, shift + 1.0, 1.0])
    assert polys_intersect(A, B, min_overlap=0.1) is hit and polys_intersect(B, A, min_overlap=0.1) is hit
    assert polys_intersect(A, B) and polys_intersect(B, A)
