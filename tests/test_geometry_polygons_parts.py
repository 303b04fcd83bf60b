"""geometry.polygons and geometry.mesh_parts: worked values and the properties builders
and bpy-free meshes rely on (outward faces, one triangulation for both)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from geometry.mesh_parts import (BOX_FACES, box_part, box_triangles, cylinder_part, merge_parts, prism_part,
                                 ring_part, transform_part)
from geometry.polygons import (nearest_poly_distance, oriented_rect, point_poly_distance, point_segment_distance,
                               poly_distance, polys_intersect, rect_poly, rot2)

UNIT = rect_poly([0.0, 0.0, 1.0, 1.0])


def test_rect_and_rotation_worked_values():
    assert UNIT.tolist() == [[0, 0], [1, 0], [1, 1], [0, 1]]
    assert np.allclose(rot2(90.0) @ [1.0, 0.0], [0.0, 1.0])
    assert np.allclose(rot2(-30.0) @ [0.0, 2.0], [1.0, math.sqrt(3.0)])
    # a 2 x 1 piece at (3, 4) turned 90 deg: 1 m along x, 2 m along y, corners counter-clockwise
    P = oriented_rect((3.0, 4.0), 2.0, 1.0, 90.0)
    assert np.allclose(P, [[3.5, 3.0], [3.5, 5.0], [2.5, 5.0], [2.5, 3.0]])
    signed_area = 0.5 * np.sum(P[:, 0] * np.roll(P[:, 1], -1) - np.roll(P[:, 0], -1) * P[:, 1])
    assert signed_area == pytest.approx(2.0)


def test_point_distances():
    p = np.array([[2.0, 0.5], [0.5, 0.5], [2.0, 2.0], [0.5, -0.25], [1.0, 1.0]])
    assert np.allclose(point_poly_distance(p, UNIT), [1.0, 0.0, math.sqrt(2.0), 0.25, 0.0])
    assert np.allclose(point_segment_distance(p, np.array([0.0, 0.0]), np.array([1.0, 0.0])),
                       [math.hypot(1.0, 0.5), 0.5, math.hypot(1.0, 2.0), 0.25, 1.0])
    far = rect_poly([3.0, 0.0, 4.0, 1.0])
    assert np.allclose(nearest_poly_distance([[2.0, 0.5], [2.75, 0.5]], [UNIT, far]), [1.0, 0.25])


@pytest.mark.parametrize("gap,touching", [(0.0, True), (-0.1, True), (1e-9, False), (0.5, False)])
def test_separating_axis_edges(gap, touching):
    B = rect_poly([1.0 + gap, 0.2, 2.0 + gap, 0.8])
    assert polys_intersect(UNIT, B) is touching
    assert poly_distance(UNIT, B) == pytest.approx(max(gap, 0.0), abs=1e-12)


def test_rotated_polygons():
    diamond = oriented_rect((2.0, 0.5), math.sqrt(0.5), math.sqrt(0.5), 45.0)  # its left tip at x = 1.5
    assert poly_distance(UNIT, diamond) == pytest.approx(0.5)
    assert polys_intersect(UNIT, oriented_rect((1.45, 0.5), math.sqrt(0.5), math.sqrt(0.5), 45.0))


def _outward(V: np.ndarray, tris: np.ndarray) -> np.ndarray:
    """Per triangle: its normal points away from the part's centroid (convex parts)."""
    a, b, c = V[tris[:, 0]], V[tris[:, 1]], V[tris[:, 2]]
    n = np.cross(b - a, c - a)
    return np.einsum("ij,ij->i", n, (a + b + c) / 3 - V.mean(axis=0)) > 0


def _tris(F) -> np.ndarray:
    return np.array([(f[0], f[k], f[k + 1]) for f in F for k in range(1, len(f) - 1)])


def test_box_part_and_box_triangles_are_one_box():
    lo, hi = (0.0, -1.0, 2.0), (3.0, 1.0, 2.5)
    V, F = box_part(lo, hi)
    assert F == list(BOX_FACES)
    Vt, Ft = box_triangles([(*lo, *hi)])
    assert np.array_equal(V, Vt)
    assert sorted(map(tuple, _tris(F).tolist())) == sorted(map(tuple, Ft.tolist()))
    assert _outward(Vt, Ft).all() and Ft.shape == (12, 3)
    # two boxes moved by a matrix: indices offset by 8, vertices transformed
    M = np.eye(4)
    M[:3, 3] = (10.0, 0.0, 0.0)
    V2, F2 = box_triangles([(*lo, *hi), (0, 0, 0, 1, 1, 1)], M)
    assert V2.shape == (16, 3) and F2.max() == 15 and np.array_equal(F2[12:], Ft + 8)
    assert np.allclose(V2[:8], V + (10.0, 0.0, 0.0))


@pytest.mark.parametrize("part", [
    cylinder_part((0.5, -0.5), 0.2, 0.0, 1.0, 6),
    prism_part([(0.0, 0.0), (1.0, 0.0), (0.5, 0.7)], -1.0, 2.0),
])
def test_convex_parts_face_outward(part):
    V, F = part
    assert _outward(np.asarray(V), _tris(F)).all()


def test_ring_merge_transform():
    V, F = ring_part((0, 0), (4, 3), (1, 1), (3, 2), 0.0, 0.5)
    assert V.shape == (16, 3) and len(F) == 16
    area = 0.0  # top faces: outer minus inner rectangle, 12 - 2 = 10 m2
    for f in F:
        P = V[list(f)]
        if np.allclose(P[:, 2], 0.5):
            area += 0.5 * abs(np.cross(P[2] - P[0], P[1] - P[0])[2] + np.cross(P[3] - P[0], P[2] - P[0])[2])
    assert area == pytest.approx(10.0)
    M = np.eye(4)
    M[:3, :3] = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]
    Vm, Fm = merge_parts([box_part((0, 0, 0), (1, 1, 1)), transform_part(box_part((0, 0, 0), (1, 2, 1)), M)])
    assert len(Vm) == 16 and Fm[6] == (8, 11, 10, 9)
    assert np.allclose(Vm[8:].min(axis=0), [-2, 0, 0]) and np.allclose(Vm[8:].max(axis=0), [0, 1, 1])
