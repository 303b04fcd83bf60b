"""geometry.mesh_parts: every part's vertices written out by hand, and each face's normal
(Newell's method) pointing out of the solid, computed inside the tests."""
from __future__ import annotations

import math

import numpy as np
import pytest

from geometry.mesh_parts import (BOX_FACES, BOX_TRIANGLES, box_part, box_triangles, cylinder_part, merge_parts,
                                 oriented_box_part, prism_part, ring_part, transform_part)


def newell(V, f) -> np.ndarray:
    """Area-weighted normal of a planar polygon face (right-hand rule over its vertex order)."""
    P = np.asarray(V, float)[list(f)]
    return 0.5 * np.cross(P, np.roll(P, -1, axis=0)).sum(axis=0)


def centroid(V, f) -> np.ndarray:
    return np.asarray(V, float)[list(f)].mean(axis=0)


def test_box_faces_and_triangles_constants():
    assert BOX_FACES == ((0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7))
    assert BOX_TRIANGLES.tolist()[:6] == [[0, 3, 2], [4, 5, 6], [0, 1, 5], [1, 2, 6], [2, 3, 7], [3, 0, 4]]
    assert BOX_TRIANGLES.tolist()[6:] == [[0, 2, 1], [4, 6, 7], [0, 5, 4], [1, 6, 5], [2, 7, 6], [3, 4, 7]]


def test_box_part_vertices_and_outward_faces():
    V, F = box_part((0, -1, 2), (3, 1, 4))  # integer corners still give float vertices
    assert V.dtype == np.float64
    assert V.tolist() == [[0, -1, 2], [3, -1, 2], [3, 1, 2], [0, 1, 2], [0, -1, 4], [3, -1, 4], [3, 1, 4], [0, 1, 4]]
    normals = [newell(V, f) for f in F]
    # bottom, top, y0 side, x1 side, y1 side, x0 side, each with its face area
    assert np.allclose(normals, [[0, 0, -6], [0, 0, 6], [0, -6, 0], [4, 0, 0], [0, 6, 0], [-4, 0, 0]])


def test_box_triangles_one_flat_row_ints_and_matrix():
    V, F = box_triangles([0, 0, 0, 2, 1, 3])  # one box as a flat row of ints
    assert V.dtype == np.float64 and V.shape == (8, 3) and F.shape == (12, 3)
    assert V.tolist() == box_part((0, 0, 0), (2, 1, 3))[0].tolist()
    assert np.array_equal(F, BOX_TRIANGLES)
    total = sum(newell(V, t) for t in F)
    assert np.allclose(total, 0.0)  # closed surface
    area = sum(np.linalg.norm(newell(V, t)) for t in F)
    assert area == pytest.approx(2 * (2 * 1 + 2 * 3 + 1 * 3))
    # three boxes: faces offset by 8 per box; the matrix rotates 90 deg about z and moves by (5, 0, 1)
    M = np.array([[0, -1, 0, 5], [1, 0, 0, 0], [0, 0, 1, 1], [0, 0, 0, 1]], float)
    rows = [[0, 0, 0, 2, 1, 3], [1, 1, 1, 2, 2, 2], [-1, -1, 0, 0, 0, 1]]
    V3, F3 = box_triangles(rows, M)
    assert V3.shape == (24, 3) and F3.shape == (36, 3)
    assert np.array_equal(F3[24:], BOX_TRIANGLES + 16) and np.array_equal(F3[12:24], BOX_TRIANGLES + 8)
    assert V3[8].tolist() == [5 - 1, 1, 2] and V3[6].tolist() == [5 - 1, 2, 4]  # (x,y,z) -> (5-y, x, z+1)
    assert V3[15].tolist() == [5 - 2, 1, 3]


def test_oriented_box_part_along_z_and_a_slanted_axis():
    V, F = oriented_box_part((0, 0, 0), (0, 0, 2), (1, 0, 0.5), 0.4, 0.2)  # side is made orthogonal to the axis
    assert np.allclose(V, box_part((-0.2, -0.1, 0.0), (0.2, 0.1, 2.0))[0])
    assert F == list(BOX_FACES)
    # axis from (1, 1, 0) to (1, 1, 0) + 3 * (1, 0, 0); side (0, 0, 2) -> s = z; n = x cross z = -y
    V, F = oriented_box_part((1, 1, 0), (4, 1, 0), (0, 0, 2), 0.6, 0.2)
    ring0 = [[1, 1 + 0.1, -0.3], [1, 1 + 0.1, 0.3], [1, 1 - 0.1, 0.3], [1, 1 - 0.1, -0.3]]
    assert np.allclose(V[:4], ring0) and np.allclose(V[4:], np.array(ring0) + [3, 0, 0])
    # faces still point out of the solid
    c = V.mean(axis=0)
    for f in F:
        assert newell(V, f) @ (centroid(V, f) - c) > 0


def test_cylinder_part_vertices_faces_and_default_segments():
    V, F = cylinder_part((1.0, -1.0), 0.5, 0.25, 2.0, segments=4)
    assert np.allclose(V, [[1.5, -1, 0.25], [1, -0.5, 0.25], [0.5, -1, 0.25], [1, -1.5, 0.25],
                           [1.5, -1, 2.0], [1, -0.5, 2.0], [0.5, -1, 2.0], [1, -1.5, 2.0]])
    assert F == [(3, 2, 1, 0), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
    V12, F12 = cylinder_part((0.0, 0.0), 1.0, 0.0, 1.0)
    assert V12.shape == (24, 3) and len(F12) == 14
    assert np.allclose(V12[1], [math.cos(math.pi / 6), 0.5, 0.0]) and np.allclose(V12[12 + 3], [0, 1, 1])
    c = V12.mean(axis=0)
    for f in F12:
        assert newell(V12, f) @ (centroid(V12, f) - c) > 0
    # the side of a 12-gon: 12 * 2 sin(15 deg) * height
    side = sum(np.linalg.norm(newell(V12, f)) for f in F12[2:])
    assert side == pytest.approx(12 * 2 * math.sin(math.pi / 12))


def test_prism_part_vertices_and_faces():
    V, F = prism_part([(0, 0), (2, 0), (0, 1)], -1.0, 3.0)
    assert V.tolist() == [[-1, 0, 0], [-1, 2, 0], [-1, 0, 1], [3, 0, 0], [3, 2, 0], [3, 0, 1]]
    assert F == [(2, 1, 0), (3, 4, 5), (0, 1, 4, 3), (1, 2, 5, 4), (2, 0, 3, 5)]
    # end caps: area 1 each, facing -x then +x; sides face out of the prism
    assert np.allclose(newell(V, F[0]), [-1, 0, 0]) and np.allclose(newell(V, F[1]), [1, 0, 0])
    assert np.allclose(newell(V, F[2]), [0, 0, -8]) and np.allclose(newell(V, F[4]), [0, -4, 0])
    assert np.allclose(newell(V, F[3]), [0, 4, 8])


def test_ring_part_every_face_points_out_of_the_frame():
    V, F = ring_part((0, 0), (4, 3), (1, 1), (3, 2), 0.0, 0.5)
    assert V[:8].tolist() == [[0, 0, 0], [4, 0, 0], [4, 3, 0], [0, 3, 0], [1, 1, 0], [3, 1, 0], [3, 2, 0], [1, 2, 0]]
    assert np.allclose(V[8:], V[:8] + [0, 0, 0.5])
    assert F[:4] == [(0, 1, 9, 8), (5, 4, 12, 13), (8, 9, 13, 12), (1, 0, 4, 5)]
    outer = [newell(V, f) for f in F[0::4]]
    inner = [newell(V, f) for f in F[1::4]]
    top = [newell(V, f) for f in F[2::4]]
    bottom = [newell(V, f) for f in F[3::4]]
    assert np.allclose(outer, [[0, -2, 0], [1.5, 0, 0], [0, 2, 0], [-1.5, 0, 0]])
    assert np.allclose(inner, [[0, 1, 0], [-0.5, 0, 0], [0, -1, 0], [0.5, 0, 0]])  # into the hole
    assert all(n[2] > 0 for n in top) and all(n[2] < 0 for n in bottom)
    assert sum(n[2] for n in top) == pytest.approx(12 - 2) and sum(n[2] for n in bottom) == pytest.approx(-10)


def test_transform_and_merge():
    M = [[0, -1, 0, 1], [1, 0, 0, 2], [0, 0, 2, 3], [0, 0, 0, 1]]  # a list, not an array
    V, F = transform_part(box_part((0, 0, 0), (1, 2, 1)), M)
    assert F == list(BOX_FACES)
    assert V[6].tolist() == [1 - 2, 2 + 1, 3 + 2] and V[0].tolist() == [1, 2, 3]
    a = ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [(0, 1, 2)])
    b = (np.array([[5, 5, 5], [6, 5, 5], [6, 6, 5], [5, 6, 5]]), [(0, 1, 2, 3), (3, 2, 1)])
    Vm, Fm = merge_parts([a, b, a])
    assert Vm.dtype == np.float64 and Vm.shape == (10, 3)
    assert Fm == [(0, 1, 2), (3, 4, 5, 6), (6, 5, 4), (7, 8, 9)]
    assert all(type(i) is int for f in Fm for i in f)
    assert Vm[3:7].tolist() == b[0].tolist()


def test_prism_from_integer_profile_and_ends_is_float():
    V, _ = prism_part([(0, 0), (2, 0), (0, 1)], 0, 3)
    assert V.dtype == np.float64 and V[4].tolist() == [3.0, 2.0, 0.0]


def test_transform_of_integer_vertices_by_a_half_scale_is_float():
    V = np.array([[2, 4, 6], [1, 1, 1]])
    M = [[0.5, 0, 0, 0], [0, 0.5, 0, 0], [0, 0, 0.5, 0], [0, 0, 0, 1]]
    Vt, F = transform_part((V, [(0, 1)]), M)
    assert Vt.tolist() == [[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]] and F == [(0, 1)]
    Vi, _ = transform_part((V, []), np.eye(4, dtype=int).tolist())
    assert Vi.dtype == np.float64
