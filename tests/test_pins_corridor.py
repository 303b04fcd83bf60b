"""Pinned values for geometry/corridor.py: corridor sample counts and positions by hand, and audit
outcomes on depth/index images ray-cast (geometry.raycast, open3d) from small analytic scenes."""
from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh

from geometry.camera import look_at
from geometry.corridor import AUDIT_OUTCOMES, _xyz, audit_edge, audit_summary, corridor_samples
from geometry.egopath_schema import GeometryParams
from geometry.raycast import Raycaster, SceneMesh

PARAMS = GeometryParams()  # r 0.30, step 0.05, slab 0.05 .. 1.80
W, H = 80, 60
K = np.array([[60.0, 0, (W - 1) / 2], [0, 60.0, (H - 1) / 2], [0, 0, 1]])
CAM = look_at([0.0, -3.0, 1.6], [0.0, 1.0, 0.4])
A, B = (-1.0, 1.0, 0.0), (1.0, 1.0, 0.0)  # the audited edge, 4 m in front of the camera


def floor():
    v = np.array([[-5, -5, 0], [5, -5, 0], [5, 6, 0], [-5, 6, 0]], float)
    return 1, "floor", trimesh.Trimesh(v, [[0, 1, 2], [0, 2, 3]], process=False)


def box(lo, hi, oid):
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return oid, f"box{oid}", trimesh.creation.box(extents=hi - lo,
                                                  transform=trimesh.transformations.translation_matrix((lo + hi) / 2))


def renders(*parts, cam=CAM):
    rc = Raycaster(SceneMesh.from_trimesh_parts([floor(), *parts]))
    ids, depth = rc.first_hit_ids_for_pixels(K, cam, W, H)
    return depth, ids


# ------------------------------------------------------------------ samples


def test_xyz():
    assert _xyz([1, 2]).tolist() == [1.0, 2.0, 0.0]
    assert _xyz([[1, 2, 3]]).tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="xyz"):
        _xyz([1, 2, 3, 4])


def test_corridor_samples_counts_and_positions():
    S = corridor_samples([0, 0, 0], [0.1, 0, 0.2], 0.3, 0.05, [0.5, 1.0])
    assert S.shape == (3 * 2 * 37, 3)  # 3 stations x 2 heights x (centre + 3 rings of 12)
    np.testing.assert_allclose(S[0], [0, 0, 0.5])
    np.testing.assert_allclose(S[1], [0.1, 0, 0.5])  # first ring, angle 0 along +x, radius r/3
    np.testing.assert_allclose(S[4], [0.1 * math.cos(math.pi / 2), 0.1, 0.5], atol=1e-12)
    np.testing.assert_allclose(S[25], [0.3, 0, 0.5])  # third ring, radius r
    np.testing.assert_allclose(S[13], [0.2, 0, 0.5])
    np.testing.assert_allclose(S[37], [0, 0, 1.0])  # second height
    np.testing.assert_allclose(S[74], [0.05, 0, 0.6])  # second station, local floor z = 0.1
    np.testing.assert_allclose(S[-37], [0.1, 0, 1.2])  # last station is the far end
    r = np.hypot(S[:, 0] - np.repeat([0, 0.05, 0.1], 74), S[:, 1])
    assert r.max() == pytest.approx(0.3) and np.unique(np.round(r, 9)).tolist() == [0.0, 0.1, 0.2, 0.3]


def test_corridor_samples_station_count_and_degenerate_cases():
    assert len(corridor_samples([0, 0], [0.12, 0], 0.0, 0.05, [0.1])) == 4  # 0, .05, .10, .12
    assert len(corridor_samples([0, 0], [0.1 + 1e-12, 0], 0.0, 0.05, [0.1])) == 3
    S = corridor_samples([0, 0], [0.12, 0], 0.0, 0.05, [0.1])
    np.testing.assert_allclose(S[:, 0], [0, 0.05, 0.1, 0.12])
    one = corridor_samples([1, 2, 0.5], [1, 2, 0.5], 0.2, 0.05, [0.1], n_rings=2, n_angles=4)
    assert one.shape == (9, 3)
    np.testing.assert_allclose(one[0], [1, 2, 0.6])
    assert len(corridor_samples([0, 0], [1, 0], 0.3, 0.5, [0.1], n_rings=0)) == 3
    assert len(corridor_samples([0, 0], [1, 0], 0.3, 0.5, [0.1], n_angles=0)) == 3
    for kw in (dict(radius=-0.1), dict(step_m=0.0)):
        args = dict(radius=0.3, step_m=0.05)
        args.update(kw)
        with pytest.raises(ValueError, match="radius"):
            corridor_samples([0, 0], [1, 0], args["radius"], args["step_m"], [0.1])
    with pytest.raises(ValueError, match="heights"):
        corridor_samples([0, 0], [1, 0], 0.3, 0.05, [])


# ------------------------------------------------------------------ audits


def audit(depth, ids, **kw):
    return audit_edge(A, B, PARAMS, K, CAM, depth, ids, floor_ids={1}, **kw)


def test_box_on_the_edge_is_depth_evidence():
    depth, ids = renders(box((-0.2, 0.8, 0.0), (0.2, 1.2, 0.8), 5))
    assert audit(depth, ids) == "depth"
    # a box beside the corridor (0.5 m behind the edge, beyond the 0.30 m radius) is no depth evidence
    d2, i2 = renders(box((-0.2, 1.45, 0.0), (0.2, 1.8, 0.8), 5))
    assert audit(d2, i2) == "inconclusive"
    # ... but a wider corridor reaches it
    assert audit(d2, i2, radius=0.5) == "depth"
    # a box within the corridor's xy but entirely below the obstacle slab (a 3 cm mat) does not count
    d3, i3 = renders(box((-0.2, 0.8, 0.0), (0.2, 1.2, 0.03), 5))
    assert audit(d3, i3) == "inconclusive"


def test_occluder_in_front_is_index_evidence_unless_it_is_a_wall():
    occ = box((-0.6, -1.2, 0.0), (0.6, -1.0, 2.0), 6)  # 2 m in front of the edge: hides its middle
    depth, ids = renders(occ)
    assert audit(depth, ids) == "index"
    assert audit(depth, ids, wall_ids={6}) == "inconclusive"
    assert audit_edge(A, B, PARAMS, K, CAM, depth, ids, floor_ids={1, 6}) == "inconclusive"
    assert audit(depth, ids, min_samples=10**6) == "inconclusive"
    # the occluder's own pixels are no depth evidence (far from the corridor)
    assert audit(depth, ids, min_samples=10**6, min_pixels=1) == "inconclusive"


def test_min_pixels_and_floor_ids():
    depth, ids = renders(box((-0.2, 0.8, 0.0), (0.2, 1.2, 0.8), 5))
    n_box = int((ids == 5).sum())
    assert n_box > 10
    # too few depth pixels: the box still hides the corridor samples behind it
    assert audit(depth, ids, min_pixels=n_box + 1) == "index"
    assert audit(depth, ids, min_pixels=n_box + 1, min_samples=10**6) == "inconclusive"
    assert audit_edge(A, B, PARAMS, K, CAM, depth, ids, floor_ids={1, 5}) == "inconclusive"
    # background stored as a huge finite number instead of inf is still background
    big = np.where(np.isinf(depth), 1e9, depth)
    assert audit(big, ids) == "depth"


def test_clear_corridor_and_out_of_frame_are_inconclusive():
    depth, ids = renders()
    assert audit(depth, ids) == "inconclusive"
    away = look_at([0.0, -3.0, 1.6], [0.0, -8.0, 1.0])
    d2, i2 = renders(box((-0.2, 0.8, 0.0), (0.2, 1.2, 0.8), 5), cam=away)
    assert audit_edge(A, B, PARAMS, K, away, d2, i2, floor_ids={1}) == "inconclusive"
    with pytest.raises(ValueError, match="same shape"):
        audit(depth, ids[:-1])
    with pytest.raises(ValueError, match="same shape"):
        audit(depth[0], ids[0])


def test_corridor_through_the_camera_plane():
    # The edge runs from behind the camera to in front of it: the projection is unbounded, the
    # whole image is searched, and a box on the visible part is still found.
    a, b = (0.0, -4.0, 0.0), (0.0, 1.0, 0.0)
    depth, ids = renders(box((-0.2, 0.3, 0.0), (0.2, 0.7, 0.8), 5))
    assert audit_edge(a, b, PARAMS, K, CAM, depth, ids, floor_ids={1}) == "depth"
    d0, i0 = renders()
    assert audit_edge(a, b, PARAMS, K, CAM, d0, i0, floor_ids={1}) == "inconclusive"


def test_audit_summary():
    s = audit_summary(["depth", "index", "index", "inconclusive"])
    assert s == {"n": 4, "depth": 1, "index": 2, "inconclusive": 1, "explained": 3, "depth_share": 0.25,
                 "index_share": 0.5, "explained_share": 0.75, "inconclusive_share": 0.25}
    e = audit_summary([])
    assert e["n"] == 0 and e["explained"] == 0 and e["depth_share"] is None and e["inconclusive_share"] is None
    assert e["index_share"] is None and e["explained_share"] is None
    with pytest.raises(ValueError, match=r"\['blocked'\]"):
        audit_summary(["depth", "blocked"])
    assert AUDIT_OUTCOMES == ("depth", "index", "inconclusive")


# ------------------------------------------------------------ synthetic single-pixel renders
# A camera 5 m above the floor looking straight down (image x = world x, image y = world -y),
# f = 60, 80 x 60 px: pixel (u, v) at planar depth d back-projects to
# X = ((u - 39.5) d / 60, -(v - 29.5) d / 60, 5 - d). The edge runs (-1, 0, 0) -> (1, 0, 0), so
# the corridor is |y| <= 0.30, 0.05 <= z <= 1.80 (planar depth 3.20 .. 4.95).

DOWN = np.eye(4)
DOWN[:3, 0], DOWN[:3, 1], DOWN[:3, 2], DOWN[:3, 3] = (1, 0, 0), (0, -1, 0), (0, 0, -1), (0, 0, 5)
EA, EB = (-1.0, 0.0, 0.0), (1.0, 0.0, 0.0)


def one_pixel(u, v, d, oid, background=np.inf):
    depth = np.full((H, W), background)
    ids = np.zeros((H, W), np.int64)
    depth[v, u], ids[v, u] = d, oid
    return depth, ids


def down_audit(depth, ids, a=EA, b=EB, **kw):
    return audit_edge(a, b, PARAMS, K, DOWN, depth, ids, floor_ids={1}, **kw)


@pytest.mark.parametrize("d, want", [
    # pixel (40, 30): X = (d/120, -d/120, 5 - d), inside in xy; its height decides
    (4.0, "depth"), (3.21, "depth"), (4.94, "depth"),
    (3.19, "index"),   # z = 1.81: above the slab, but it hides the samples below it
    (4.96, "inconclusive"),  # z = 0.04: under the slab and behind every sample but the lowest by < 2 cm
])
def test_depth_evidence_height_limits(d, want):
    assert down_audit(*one_pixel(40, 30, d, 5)) == want
    assert down_audit(*one_pixel(40, 30, d, 1)) == "inconclusive"  # floor is never evidence


def test_depth_evidence_radius_is_inclusive_of_the_xy_distance():
    # pixel (40, 25) at depth 4: X = (0.0333, 0.3, 1.0), 0.3 m from the centre line
    depth, ids = one_pixel(40, 25, 4.0, 5)
    assert down_audit(depth, ids, radius=0.31) == "depth"
    assert down_audit(depth, ids, radius=0.29, min_samples=10**6) == "inconclusive"
    # beyond the end of the edge: pixel (64, 30) at depth 4 is X = (1.633, -0.033, 1): 0.633 m from B
    depth, ids = one_pixel(64, 30, 4.0, 5)
    assert down_audit(depth, ids, radius=0.64) == "depth"
    assert down_audit(depth, ids, radius=0.62, min_samples=10**6) == "inconclusive"


def test_depth_evidence_follows_a_sloped_floor():
    # edge rising from z 0 at x = -1 to z 1 at x = 1: at x = 0.5 the slab is 0.80 .. 2.55 m
    a, b = (-1.0, 0.0, 0.0), (1.0, 0.0, 1.0)
    # pixel (48, 30): X = (8.5 d / 60, -d / 120, 5 - d); d = 3.53 -> x = 0.5, z = 1.47: inside
    assert down_audit(*one_pixel(48, 30, 3.53, 5), a=a, b=b) == "depth"
    # d = 4.3 -> x = 0.609, z = 0.70: above a flat floor's slab but below this one
    assert down_audit(*one_pixel(48, 30, 4.3, 5), a=a, b=b, min_samples=10**6) == "inconclusive"
    assert down_audit(*one_pixel(48, 30, 4.3, 5), min_samples=10**6) == "depth"


def test_min_pixels_counts_pixels_inside_the_corridor():
    depth = np.full((H, W), np.inf)
    ids = np.zeros((H, W), np.int64)
    depth[30, 38:43], ids[30, 38:43] = 4.0, 5  # five pixels, all inside
    depth[10, 40], ids[10, 40] = 4.0, 5  # y = 1.27: outside
    assert down_audit(depth, ids, min_pixels=5) == "depth"
    assert down_audit(depth, ids, min_pixels=6, min_samples=10**6) == "inconclusive"


@pytest.mark.parametrize("rd, oid, walls, want", [
    (1.0, 7, (), "index"),            # X z = 4: far above the corridor, in front of its samples
    (1.0, 7, (7,), "inconclusive"),   # a wall only says the corridor is out of sight
    (1.0, 0, (), "inconclusive"),     # id 0 is background
    (1e9, 7, (), "inconclusive"),     # a huge finite depth is background
    (np.inf, 7, (), "inconclusive"),
    (3.0, 7, (), "index"),
])
def test_index_evidence(rd, oid, walls, want):
    depth, ids = one_pixel(40, 30, rd, oid)
    assert down_audit(depth, ids, wall_ids=walls) == want


def test_index_min_samples_and_out_of_frame():
    depth, ids = one_pixel(40, 30, 1.0, 7)
    assert down_audit(depth, ids, min_samples=1) == "index"
    # every corridor sample is behind an occluder covering the whole frame
    full_d, full_i = np.full((H, W), 1.0), np.full((H, W), 7)
    n_in = down_audit(full_d, full_i, min_samples=10**6)
    assert n_in == "inconclusive"
    # an edge far outside the frame (x = 30 m) has no evidence whatever the renders hold
    assert down_audit(full_d, full_i, a=(30.0, 0.0, 0.0), b=(32.0, 0.0, 0.0)) == "inconclusive"


@pytest.mark.parametrize("px, d", [
    # pixels inside the corridor volume at the four ends of its projected box (the box is
    # u 15.1 .. 63.9, v 23.9 .. 35.1 from the samples at 1.80 m, planar depth 3.2)
    ((16, 30), 3.3),   # X = (-1.2925, -0.0275, 1.70): 0.294 m from A
    ((63, 30), 3.3),   # X = (1.2925, -0.0275, 1.70): 0.294 m from B
    ((40, 24), 3.25),  # X = (0.027, 0.298, 1.75)
    ((40, 35), 3.25),  # X = (0.027, -0.298, 1.75)
])
def test_depth_evidence_at_the_edges_of_the_projected_box(px, d):
    assert down_audit(*one_pixel(*px, d, 5), min_samples=10**6) == "depth"


def test_degenerate_edge_is_a_disc_around_its_point():
    depth, ids = one_pixel(40, 30, 4.0, 5)  # X = (0.033, -0.033, 1.0): 0.047 m from the point
    assert down_audit(depth, ids, a=(0.0, 0.0, 0.0), b=(0.0, 0.0, 0.0)) == "depth"
    depth, ids = one_pixel(64, 30, 4.0, 5)  # X = (1.633, -0.033, 1.0)
    assert down_audit(depth, ids, a=(0.0, 0.0, 0.0), b=(0.0, 0.0, 0.0), min_samples=10**6) == "inconclusive"


def _column(u):
    depth = np.full((H, W), np.inf)
    ids = np.zeros((H, W), np.int64)
    depth[:, u], ids[:, u] = 1.0, 7
    return depth, ids


def _row(v):
    depth = np.full((H, W), np.inf)
    ids = np.zeros((H, W), np.int64)
    depth[v, :], ids[v, :] = 1.0, 7
    return depth, ids


@pytest.mark.parametrize("a_x, b_x, col, want", [
    # the frame is -0.5 <= u < 79.5; a sample at x, planar depth z is at u = 39.5 + 60 x / z and the
    # corridor's outermost ring point nearest the frame lies 0.30 m off the edge's end at z = 4.95
    (-4.5, -3.65, 0, "inconclusive"),  # nearest sample at u = -1.1: out of frame
    (-4.5, -3.55, 0, "index"),         # nearest sample at u = 0.11: pixel 0
    (-4.5, -3.55, 1, "inconclusive"),  # ... and only pixel 0
    (3.63, 4.5, 79, "inconclusive"),   # nearest sample at u = 79.86: out of frame
    (3.5, 4.5, 79, "index"),           # nearest sample at u = 78.3, pixel 78 or 79
])
def test_frame_edges_in_u(a_x, b_x, col, want):
    assert down_audit(*_column(col), a=(a_x, 0.0, 0.0), b=(b_x, 0.0, 0.0)) == want


@pytest.mark.parametrize("a_y, row, want", [
    # v = 29.5 - 60 y / z: the sample nearest the top edge is 0.30 m short of A at z = 4.95
    (2.72, 0, "index"),          # at v = 0.17: row 0
    (2.72, 1, "inconclusive"),
    (2.9, 0, "inconclusive"),    # at v = -2.0: out of frame
])
def test_frame_edges_in_v(a_y, row, want):
    assert down_audit(*_row(row), a=(0.0, a_y, 0.0), b=(0.0, 4.0, 0.0)) == want


def test_shape_error_message():
    with pytest.raises(ValueError, match=r"^depth and object_index must be 2D arrays of the same shape$"):
        down_audit(np.zeros((H, W)), np.zeros((H, W - 1), np.int64))


def test_corridor_samples_single_ring_single_angle_and_messages():
    # one ring of one point: the centre and (r, 0) per station and height
    S = corridor_samples((0, 0, 0), (0.1, 0, 0), 0.3, 0.05, [0.5], n_rings=1, n_angles=1)
    assert np.allclose(S, [[0, 0, 0.5], [0.3, 0, 0.5], [0.05, 0, 0.5], [0.35, 0, 0.5], [0.1, 0, 0.5], [0.4, 0, 0.5]])
    S = corridor_samples((0, 0, 0), (0, 0, 0), 0.2, 0.05, [0.1], n_rings=1, n_angles=4)
    assert np.allclose(S, [[0, 0, 0.1], [0.2, 0, 0.1], [0, 0.2, 0.1], [-0.2, 0, 0.1], [0, -0.2, 0.1]])
    with pytest.raises(ValueError, match=r"^radius must be >= 0 and step_m > 0$"):
        corridor_samples((0, 0), (1, 0), -0.1, 0.05, [0.5])
    with pytest.raises(ValueError, match=r"^heights is empty$"):
        corridor_samples((0, 0), (1, 0), 0.1, 0.05, [])


def test_zero_length_edge_stands_on_its_first_point():
    # a and b share xy but not z: the single station is a's, on a's floor
    assert np.allclose(corridor_samples((0, 0, 0), (0, 0, 0.5), 0.0, 0.05, [0.1]), [[0, 0, 0.1]])


# ------------------------------------------------------------ exact arithmetic
# f = 64 and the principal point on pixel (40, 30): with the straight-down camera every number below
# is a binary fraction, so projections and back-projections land exactly on the thresholds.
# Pixel (u, v) at planar depth d back-projects to X = ((u - 40) d / 64, -(v - 30) d / 64, 5 - d);
# a point at height h and xy (x, y) projects to u = 40 + 64 x / (5 - h), v = 30 - 64 y / (5 - h).

K64 = np.array([[64.0, 0, 40.0], [0, 64.0, 30.0], [0, 0, 1]])


def exact_audit(depth, ids, a=EA, b=EB, params=PARAMS, **kw):
    return audit_edge(a, b, params, K64, DOWN, depth, ids, floor_ids={1}, **kw)


def test_index_evidence_counts_every_hidden_sample():
    # A screen 1 m below the camera over the whole frame hides every corridor sample. The edge is
    # 2 m long: 41 stations x n heights x 37 disc points, all in frame (|u - 39.5| <= 60 * 1.3 / 3.2 < 40).
    full_d, full_i = np.full((H, W), 1.0), np.full((H, W), 7)
    for kw, n in [({}, 41 * 5 * 37), ({"n_heights": 2}, 41 * 2 * 37), ({"n_heights": 1}, 41 * 2 * 37),
                  ({"n_heights": 7}, 41 * 7 * 37)]:
        assert down_audit(full_d, full_i, min_samples=n, **kw) == "index"
        assert down_audit(full_d, full_i, min_samples=n + 1, **kw) == "inconclusive"
    # the default asks for a single hidden sample: one pixel hiding the samples behind it is enough
    assert down_audit(*one_pixel(40, 30, 1.0, 7)) == "index"


@pytest.mark.parametrize("px, d, radius, want", [
    # pixel (40, 25) at depth 4: X = (0, 0.3125, 1.0), exactly 0.3125 m from the edge
    ((40, 25), 4.0, 0.3125, "depth"),
    ((40, 25), 4.0, 0.3124999, "inconclusive"),
])
def test_radius_boundary_is_inside(px, d, radius, want):
    assert exact_audit(*one_pixel(*px, d, 5), radius=radius, min_samples=10**6) == want


@pytest.mark.parametrize("d, want", [
    # slab 0.5 .. 1.5 m: pixel (40, 30) at depth 4.5 is X = (0, 0, 0.5), at 3.5 X = (0, 0, 1.5)
    (4.5, "depth"), (4.5000001, "inconclusive"), (3.5, "depth"), (3.4999999, "inconclusive"),
])
def test_slab_boundaries_are_inside(d, want):
    params = GeometryParams(obstacle_min_z=0.5, obstacle_max_z=1.5)
    assert exact_audit(*one_pixel(40, 30, d, 5), params=params, min_samples=10**6) == want


# Frame edges, exactly: the corridor (radius 0.25, slab 0.5 .. 1.8) lies outside the frame but for
# one sample, the ring point of its first station at its lowest height (planar depth 4.5), placed
# exactly on the frame's edge. Pixel centres are integers, so the frame is -0.5 <= u < 79.5,
# -0.5 <= v < 59.5: a sample on the left/top edge is in frame, one on the right/bottom edge is not.
P_HIGH = GeometryParams(obstacle_min_z=0.5)


@pytest.mark.parametrize("a, b, img, want", [
    ((-3.09765625, 0, 0), (-4, 0, 0), "col0", "index"),        # x = -2.84765625: u = -0.5 exactly
    ((3.02734375, 0, 0), (4, 0, 0), "col79", "inconclusive"),   # x = 2.77734375: u = 79.5 exactly
    ((0, 2.39453125, 0), (0, 3.5, 0), "row0", "index"),         # y = 2.14453125: v = -0.5 exactly
    ((0, -2.32421875, 0), (0, -3.5, 0), "row59", "inconclusive"),  # y = -2.07421875: v = 59.5 exactly
    ((0, 2.4296875, 0), (0, 3.5, 0), "row0", "inconclusive"),   # v = -1.0: out of frame
    ((0, -2.359375, 0), (0, -3.5, 0), "row59", "inconclusive"),  # v = 60.0: out of frame
    ((0, -2.2890625, 0), (0, -3.5, 0), "row59", "index"),       # v = 59.0: pixel row 59
])
def test_frame_edges_exactly(a, b, img, want):
    kind, k = img[:3], int(img[3:])
    depth, ids = np.full((H, W), np.inf), np.zeros((H, W), np.int64)
    if kind == "col":
        depth[:, k], ids[:, k] = 1.0, 7
    else:
        depth[k, :], ids[k, :] = 1.0, 7
    assert exact_audit(depth, ids, a=a, b=b, params=P_HIGH, radius=0.25) == want


def test_depth_evidence_beyond_the_first_end_is_measured_from_it():
    # pixel (15, 30) at depth 4: X = (-1.633, -0.033, 1.0), 0.634 m from A = (-1, 0) (0.033 m from
    # the edge's line): the distance is to the segment, on this side as on the other
    depth, ids = one_pixel(15, 30, 4.0, 5)
    assert down_audit(depth, ids, radius=0.64) == "depth"
    assert down_audit(depth, ids, radius=0.62, min_samples=10**6) == "inconclusive"


def test_depth_evidence_on_a_raised_sloped_floor():
    # floor z 0.5 at x = -1 rising to 1.0 at x = 1; pixel (40, 30) at depth 3.9 is
    # X = (0.065, -0.065, 1.1), where the floor is at 0.766 and the slab 0.816 .. 2.566
    a, b = (-1.0, 0.0, 0.5), (1.0, 0.0, 1.0)
    assert down_audit(*one_pixel(40, 30, 3.9, 5), a=a, b=b, min_samples=10**6) == "depth"
    # 0.25 m lower (X z = 0.85 at x = 0.035, slab from 0.809) is still inside; 5 cm lower (X z = 0.80) not
    assert down_audit(*one_pixel(40, 30, 4.15, 5), a=a, b=b, min_samples=10**6) == "depth"
    assert down_audit(*one_pixel(40, 30, 4.2, 5), a=a, b=b, min_samples=10**6) == "inconclusive"


# A camera 1 m above the floor looking along +y (image x = world x, image y = world -z):
# pixel (u, v) at planar depth d back-projects to X = ((u - 39.5) d / 60, d, 1 - (v - 29.5) d / 60).
LEVEL = look_at([0.0, 0.0, 1.0], [0.0, 1.0, 1.0])


def level_audit(depth, ids, a, b, **kw):
    return audit_edge(a, b, PARAMS, K, LEVEL, depth, ids, floor_ids={1}, min_samples=10**6, **kw)


@pytest.mark.parametrize("px, d, want", [
    ((40, 30), 0.003, "depth"),     # 3 mm in front of the camera, inside the corridor around it
    ((40, 30), 0.0, "inconclusive"),  # depth 0 is no measurement
    ((0, 30), 0.3, "depth"),        # X = (-0.1975, 0.3, 0.9975): the whole image is searched
    ((79, 30), 0.3, "depth"),
    ((40, 0), 0.3, "depth"),        # X = (0.0025, 0.3, 1.1475)
    ((40, 59), 0.3, "depth"),
])
def test_corridor_around_the_camera(px, d, want):
    # the edge runs from behind the camera (y = -1) to in front of it (y = 3)
    assert level_audit(*one_pixel(*px, d, 5), (0.0, -1.0, 0.0), (0.0, 3.0, 0.0)) == want


def test_corridor_grazing_the_camera_plane_keeps_near_depths():
    # The edge runs along x 0.2999 m in front of the camera: its discs reach 0.1 mm behind the
    # camera plane, the nearest sample in front is 4 cm away (ring offset -0.2598), but the corridor
    # itself holds X = (0, 0.01, 1.0), 0.2899 m from the edge: a pixel 1 cm away is evidence.
    a, b = (-1.0, 0.2999, 0.0), (1.0, 0.2999, 0.0)
    assert level_audit(*one_pixel(40, 30, 0.01, 5), a, b) == "depth"


def test_near_corridor_in_front_of_the_camera():
    # all of the corridor is 0.4 .. 1.0 m in front: pixel (40, 30) at 0.7 m is X = (0.006, 0.5, 0.994)
    cam = look_at([0.0, -0.2, 1.0], [0.0, 1.0, 1.0])
    depth, ids = one_pixel(40, 30, 0.7, 5)
    assert audit_edge((-0.5, 0.5, 0.0), (0.5, 0.5, 0.0), PARAMS, K, cam, depth, ids, floor_ids={1},
                      min_samples=10**6) == "depth"


def test_depth_range_covers_the_disc_between_its_ring_points():
    # A point edge at the origin seen level from 2 m away along the 15 degree direction, half-way
    # between two of the 12 ring directions: the disc's nearest point (0.3 m towards the camera)
    # is at depth 1.70, the nearest ring points at 2 - 0.3 cos 15 = 1.7102. The principal point is
    # pixel (40, 30), whose ray passes through that nearest point.
    c, s = math.cos(math.radians(15)), math.sin(math.radians(15))
    cam = look_at([2 * c, 2 * s, 1.0], [0.0, 0.0, 1.0])

    def at(d):
        return audit_edge((0, 0, 0), (0, 0, 0), PARAMS, K64, cam, *one_pixel(40, 30, d, 5), floor_ids={1},
                          min_samples=10**6)

    assert at(1.7005) == "depth"  # X 0.2995 m from the point
    assert at(1.6995) == "inconclusive"  # 0.3005 m


@pytest.mark.parametrize("a, b, px", [
    # the corridor runs out of the frame; evidence on the image's outermost pixels (depth 4, X z = 1)
    ((-4.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0, 30)),    # X = (-2.633, -0.033, 1)
    ((0.0, 0.0, 0.0), (4.0, 0.0, 0.0), (79, 30)),    # X = (2.633, -0.033, 1)
    ((0.0, 0.0, 0.0), (0.0, 4.0, 0.0), (40, 0)),     # X = (0.033, 1.967, 1)
    ((0.0, 0.0, 0.0), (0.0, -4.0, 0.0), (40, 59)),   # X = (0.033, -1.967, 1)
])
def test_depth_evidence_on_the_image_border(a, b, px):
    assert down_audit(*one_pixel(*px, 4.0, 5), a=a, b=b, min_samples=10**6) == "depth"


def test_occluder_tolerance_and_background_depth_exactly():
    # Pixel (40, 30) shows samples of the lowest height (0.05 m: planar depth 4.95) and higher ones.
    # An occluder counts when it is more than 2 cm nearer: 4.93 is exactly 2 cm, not enough.
    lim = (5.0 - 0.05) - 0.02
    assert down_audit(*one_pixel(40, 30, lim, 7), min_pixels=10**6) == "inconclusive"
    assert down_audit(*one_pixel(40, 30, lim - 1e-3, 7), min_pixels=10**6) == "index"
    # A corridor 2e9 m below the camera: a depth of 1e9 is background, one just under it is not.
    far = DOWN.copy()
    far[2, 3] = 2e9
    for d, want in [(1e9, "inconclusive"), (0.999e9, "index")]:
        depth, ids = one_pixel(40, 30, d, 7)
        assert audit_edge(EA, EB, PARAMS, K, far, depth, ids, floor_ids={1}) == want


def test_zero_length_edge_has_one_station():
    S = corridor_samples((1, 2, 0.5), (1, 2, 0.5), 0.2, 0.05, [0.1, 0.2])
    assert S.shape == (2 * 37, 3)
    assert corridor_samples((0, 0, 0), (0, 0, 0.5), 0.0, 0.05, [0.1]).shape == (1, 3)
    # an edge far shorter than the step (1e-12 m) is one station too, at its far end
    assert np.allclose(corridor_samples((0, 0, 0), (1e-12, 0, 0), 0.0, 0.05, [0.1]), [[1e-12, 0, 0.1]])
    assert corridor_samples((0, 0, 0), (1e-12, 0, 0), 0.0, 0.05, [0.1]).shape == (1, 3)
