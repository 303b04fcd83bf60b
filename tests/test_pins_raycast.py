"""Pinned values for geometry/raycast.py: hand arithmetic, analytic cards/boxes, and ray casts
checked against the closed-form pinhole projection (issue #16, mutation strength)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh

from geometry.raycast import (
    Raycaster,
    SceneMesh,
    camera_inside_mesh,
    fibonacci_sphere,
    frame_and_occlusion_fractions,
    in_frame_mask,
    px_per_unit,
    sample_surface,
    view_angle_deg,
    visibility_stats,
    visible_mask,
)

W, H = 40, 30  # landscape, W != H so a swapped axis shows
F = 20.0
K = np.array([[F, 0, (W - 1) / 2], [0, F, (H - 1) / 2], [0, 0, 1]], dtype=np.float64)
EYE = np.eye(4)


def rect_mesh(x0, x1, y0, y1, z, oid=1, name="card"):
    """Axis-aligned rectangle in the plane z (normal -z, toward a camera at the origin)."""
    v = np.array([[x0, y0, z], [x0, y1, z], [x1, y1, z], [x1, y0, z]], float)
    return oid, name, trimesh.Trimesh(v, [[0, 1, 2], [0, 2, 3]], process=False)


def box_part(center, extents, oid, name):
    tm = trimesh.creation.box(extents=extents, transform=trimesh.transformations.translation_matrix(center))
    return oid, name, tm


# ------------------------------------------------------------------ SceneMesh


def tri_mesh(**over):
    kw = dict(vertices=[[0, 0, 0], [1, 0, 0], [0, 1, 0]], triangles=[[0, 1, 2]], tri_object_id=[1],
              object_ids=[1], object_names=["a"])
    kw.update(over)
    return SceneMesh(**kw)


def test_scene_mesh_normalises_dtypes():
    m = tri_mesh()
    assert m.vertices.dtype == np.float32 and m.vertices.shape == (3, 3)
    assert m.triangles.dtype == np.int32 and m.triangles.shape == (1, 3)
    assert m.tri_object_id.dtype == np.int32 and m.object_ids.dtype == np.int32
    assert m.object_names.dtype.kind == "U"


@pytest.mark.parametrize("over, msg", [
    (dict(tri_object_id=[1, 1]), "one entry per triangle"),
    (dict(object_names=["a", "b"]), "equal length"),
    (dict(triangles=[[0, 1, 3]]), "out of range"),
    (dict(triangles=[[-1, 1, 2]]), "out of range"),
    (dict(tri_object_id=[0]), ">= 1"),
])
def test_scene_mesh_rejects_inconsistent_input(over, msg):
    with pytest.raises(ValueError, match=msg):
        tri_mesh(**over)


def test_scene_mesh_accepts_last_vertex_index():
    assert tri_mesh(triangles=[[2, 1, 0]]).triangles.max() == 2


def test_from_trimesh_parts_offsets_ids_and_names():
    a = rect_mesh(0, 1, 0, 1, 2.0, oid=5, name="five")
    b = rect_mesh(0, 1, 0, 1, 3.0, oid=2, name="two")
    c = rect_mesh(2, 3, 0, 1, 2.0, oid=5, name="five")  # one id spanning two parts
    m = SceneMesh.from_trimesh_parts([a, b, c])
    assert m.object_ids.tolist() == [2, 5]
    assert m.object_names.tolist() == ["two", "five"]
    assert m.tri_object_id.tolist() == [5, 5, 2, 2, 5, 5]
    assert m.triangles.tolist() == [[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7], [8, 9, 10], [8, 10, 11]]
    assert len(m.vertices) == 12
    assert m.object_name(2) == "two" and m.object_name(5) == "five"
    assert m.object_face_indices(5).tolist() == [0, 1, 4, 5]
    assert m.object_triangles(2).tolist() == [[4, 5, 6], [4, 6, 7]]
    with pytest.raises(KeyError):
        m.object_name(3)


def test_from_trimesh_parts_rejects_bad_ids():
    with pytest.raises(ValueError, match=">= 1"):
        SceneMesh.from_trimesh_parts([rect_mesh(0, 1, 0, 1, 1.0, oid=0)])
    with pytest.raises(ValueError, match="two names"):
        SceneMesh.from_trimesh_parts([rect_mesh(0, 1, 0, 1, 1.0, oid=1, name="a"),
                                      rect_mesh(0, 1, 0, 1, 2.0, oid=1, name="b")])


def test_from_trimesh_parts_empty():
    m = SceneMesh.from_trimesh_parts([])
    assert m.vertices.shape == (0, 3) and m.triangles.shape == (0, 3) and len(m.object_ids) == 0
    rc = Raycaster(m)
    t, oid, tri, nrm = rc.cast(np.zeros(3), [0, 0, 1.0])
    assert t.tolist() == [math.inf] and oid.tolist() == [0] and tri.tolist() == [-1]
    assert nrm.tolist() == [[0, 0, 0]]


def test_face_normals_areas_and_degenerate():
    m = SceneMesh(vertices=[[0, 0, 0], [2, 0, 0], [0, 3, 0], [4, 0, 0]], triangles=[[0, 1, 2], [0, 1, 3]],
                  tri_object_id=[1, 1], object_ids=[1], object_names=["a"])
    np.testing.assert_allclose(m.face_normals(), [[0, 0, 1], [0, 0, 0]])
    np.testing.assert_allclose(m.face_areas(), [3.0, 0.0])
    m2 = SceneMesh(vertices=[[0, 0, 0], [0, 3, 0], [2, 0, 0]], triangles=[[0, 1, 2]], tri_object_id=[1],
                   object_ids=[1], object_names=["a"])
    np.testing.assert_allclose(m2.face_normals(), [[0, 0, -1]])


# ------------------------------------------------------------------ cast


def card_raycaster(z=2.5, half=1.0):
    return Raycaster(SceneMesh.from_trimesh_parts([rect_mesh(-half, half, -half, half, z, oid=7)]))


def test_cast_distance_is_metres_and_refined_in_float64():
    rc = card_raycaster(z=2.5)
    d = np.array([[0.0, 0.0, 4.0], [0.3, -0.2, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, -1.0], [3.0, 0.0, 1.0]])
    t, oid, tri, nrm = rc.cast(np.zeros(3), d)
    expect = 2.5 * np.linalg.norm(d[1]) / d[1, 2]
    assert t[0] == pytest.approx(2.5, abs=1e-12)
    assert t[1] == pytest.approx(expect, abs=1e-12)
    assert np.isinf(t[2:]).all()
    assert oid.tolist() == [7, 7, 0, 0, 0]
    assert (tri[:2] >= 0).all() and tri[2:].tolist() == [-1, -1, -1]
    np.testing.assert_allclose(nrm, [[0, 0, -1], [0, 0, -1], [0, 0, 0], [0, 0, 0], [0, 0, 0]])


def test_cast_normal_not_flipped_for_back_faces_and_origins_broadcast():
    rc = card_raycaster(z=2.0)
    origins = np.array([[0.0, 0.0, 4.0], [0.5, 0.5, 0.0]])
    dirs = np.array([[0.0, 0.0, -1.0], [0.0, 0.0, 1.0]])
    t, oid, _, nrm = rc.cast(origins, dirs)
    assert t.tolist() == pytest.approx([2.0, 2.0], abs=1e-12)
    np.testing.assert_allclose(nrm, [[0, 0, -1], [0, 0, -1]])  # winding normal both times
    t0, *_ = rc.cast(np.zeros((0, 3)), np.zeros((0, 3)))
    assert t0.shape == (0,)


def test_cast_oblique_many_rays_match_plane_intersection():
    rc = card_raycaster(z=3.1, half=10.0)
    rng = np.random.default_rng(0)
    d = np.column_stack([rng.uniform(-1, 1, 200), rng.uniform(-1, 1, 200), np.ones(200)])
    t, *_ = rc.cast(np.array([0.1, -0.2, 0.0]), d)
    z32 = float(np.float32(3.1))  # the mesh is stored in float32
    np.testing.assert_allclose(t, z32 * np.linalg.norm(d, axis=1), rtol=0, atol=1e-9)


def test_first_hit_ids_for_pixels_planar_depth_and_shape():
    rc = card_raycaster(z=2.0, half=0.5)  # card spans u in cx +- 5 px
    ids, depth = rc.first_hit_ids_for_pixels(K, EYE, W, H)
    assert ids.shape == (H, W) and depth.shape == (H, W)
    assert ids.dtype == np.int32 and depth.dtype == np.float32
    u = np.arange(W) - (W - 1) / 2
    v = np.arange(H) - (H - 1) / 2
    inside = (np.abs(v)[:, None] * 2.0 / F < 0.5) & (np.abs(u)[None, :] * 2.0 / F < 0.5)
    assert (ids == 7).tolist() == inside.tolist()
    assert int(inside.sum()) == 100
    np.testing.assert_allclose(depth[inside], 2.0, atol=1e-6)  # planar, not ray length
    assert np.isinf(depth[~inside]).all()


# ------------------------------------------------------------------ projection / frame


def test_in_frame_mask_edges_on_both_axes():
    # Points at z=1 whose projection lands exactly on the frame edges.
    def at(u, v, z=1.0):
        return [(u - K[0, 2]) * z / F, (v - K[1, 2]) * z / F, z]

    pts = np.array([at(-0.5, 5), at(-0.5001, 5), at(W - 0.5, 5), at(W - 0.5001, 5),
                    at(5, -0.5), at(5, -0.5001), at(5, H - 0.5), at(5, H - 0.5001),
                    at(W - 0.6, 5), [0, 0, -1.0], [0, 0, 0.0]])
    got = in_frame_mask(pts, K, EYE, W, H)
    assert got.tolist() == [True, False, False, True, True, False, False, True, True, False, False]
    near = in_frame_mask(np.array([[0, 0, 0.5], [0, 0, 0.7]]), K, EYE, W, H, near=0.6)
    assert near.tolist() == [False, True]


def test_in_frame_mask_uses_the_pose():
    # Camera at (0,0,-5) looking down +z: a point at the world origin is 5 m straight ahead.
    pose = np.eye(4)
    pose[:3, 3] = [0.0, 0.0, -5.0]
    assert in_frame_mask(np.array([[0.0, 0.0, 0.0], [0, 0, -6.0]]), K, pose, W, H).tolist() == [True, False]
    # Rotated 90 deg about y: camera z axis points along world +x.
    rot = np.eye(4)
    rot[:3, :3] = [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]
    assert in_frame_mask(np.array([[3.0, 0, 0], [0, 0, 3.0]]), K, rot, W, H).tolist() == [True, False]


def test_px_per_unit_worked_examples():
    assert px_per_unit(K, EYE, [0, 0, 4.0], [1, 0, 0]) == pytest.approx(F / 4.0)
    assert px_per_unit(K, EYE, [0, 0, 4.0], [0, 3.0, 0], length=2.0) == pytest.approx(2 * F / 4.0)
    # Segment along the optical axis, off-centre: ends at z=3 and z=5 (x = 1) -> |F/3 - F/5|.
    assert px_per_unit(K, EYE, [1.0, 0, 4.0], [0, 0, 1], length=2.0) == pytest.approx(F / 3 - F / 5)
    # Diagonal: hypot of both image components.
    assert px_per_unit(K, EYE, [0, 0, 2.0], [1, 1, 0], length=math.sqrt(2)) == pytest.approx(F / 2 * math.sqrt(2))
    assert math.isnan(px_per_unit(K, EYE, [0, 0, 0.5], [0, 0, 1], length=2.0))
    with pytest.raises(ValueError):
        px_per_unit(K, EYE, [0, 0, 1.0], [0, 0, 0])


def test_view_angle_worked_examples():
    assert view_angle_deg([0, 0, 0], [0, 0, 2.0], [0, 0, 1.0]) == pytest.approx(0.0, abs=1e-6)
    assert view_angle_deg([0, 0, 0], [0, 0, 2.0], [0, 0, -5.0]) == pytest.approx(0.0, abs=1e-6)
    # camera at (1, 0, 0) + sqrt(3) along z from a point with normal +z: 30 deg off the normal
    assert view_angle_deg([1.0, 0, math.sqrt(3)], [0, 0, 0], [0, 0, 1]) == pytest.approx(30.0)
    assert view_angle_deg([1.0, 0, 0], [0, 0, 0], [0, 0, 1]) == pytest.approx(90.0)
    out = view_angle_deg(np.zeros((2, 3)), np.array([[0, 0, 1.0], [1.0, 0, 1.0]]), np.array([[0, 0, 1.0]] * 2))
    assert isinstance(out, np.ndarray) and out.tolist() == pytest.approx([0.0, 45.0])
    assert isinstance(view_angle_deg([0, 0, 0], [0, 0, 1.0], [0, 0, 1]), float)


def test_fibonacci_sphere_formula():
    p = fibonacci_sphere(4)
    golden = math.pi * (3 - math.sqrt(5))
    expect = []
    for i in range(4):
        z = 1 - 2 * (i + 0.5) / 4
        r = math.sqrt(1 - z * z)
        expect.append([r * math.cos((i + 0.5) * golden), r * math.sin((i + 0.5) * golden), z])
    np.testing.assert_allclose(p, expect, atol=1e-12)
    assert fibonacci_sphere(1).tolist() == [[pytest.approx(math.cos(golden / 2)),
                                             pytest.approx(math.sin(golden / 2)), 0.0]]


# ------------------------------------------------------------------ sampling


def test_sample_surface_weights_counts_and_face_shares():
    # Two faces: 1x1 quad split into triangles of area 0.5 each, plus a 3x1 card (area 3).
    parts = [rect_mesh(0, 1, 0, 1, 2.0, oid=1), rect_mesh(5, 8, 0, 1, 2.0, oid=1)]
    m = SceneMesh.from_trimesh_parts(parts)
    pts, nrm, w = sample_surface(m, 1, n_interior=400, seed=3)
    assert len(pts) == 8 + 400
    np.testing.assert_allclose(w[:8], 0.0)
    np.testing.assert_allclose(w[8:], 4.0 / 400)
    assert w.sum() == pytest.approx(4.0)
    np.testing.assert_allclose(nrm, np.tile([0, 0, -1.0], (408, 1)), atol=1e-12)
    interior = pts[8:]
    n_big = int((interior[:, 0] >= 5).sum())
    assert abs(n_big - 300) <= 1  # systematic sampling: area share to within one sample
    assert ((interior[:, 0] >= 0) & (interior[:, 0] <= 8)).all()
    np.testing.assert_allclose(interior[:, 2], 2.0, atol=1e-6)
    # vertex rows are exactly the object's vertices, sorted by vertex id
    np.testing.assert_allclose(pts[:8], m.vertices[:8].astype(np.float64))
    # determinism and dependence on seed and object id
    again, _, _ = sample_surface(m, 1, n_interior=400, seed=3)
    other, _, _ = sample_surface(m, 1, n_interior=400, seed=4)
    assert np.array_equal(again, pts) and not np.allclose(other[8:], pts[8:])


def test_sample_surface_seed_depends_on_object_id():
    m = SceneMesh.from_trimesh_parts([rect_mesh(0, 1, 0, 1, 2.0, oid=1), rect_mesh(0, 1, 0, 1, 2.0, oid=2)])
    a, _, _ = sample_surface(m, 1, n_interior=50, seed=0)
    b, _, _ = sample_surface(m, 2, n_interior=50, seed=0)
    assert not np.allclose(a[4:], b[4:])


def test_sample_surface_vertex_normals_are_area_weighted():
    # A box corner vertex touches three faces: its normal is the mean of three axes.
    m = SceneMesh.from_trimesh_parts([box_part((0, 0, 0), (2, 2, 2), 1, "box")])
    pts, nrm, w = sample_surface(m, 1, n_interior=0)
    assert len(pts) == 8 and w.tolist() == [0.0] * 8
    # independent: per vertex, sum the cross products (= 2 * area * normal) of its triangles
    v, t = m.vertices.astype(float), m.triangles
    for i in range(8):
        acc = sum(np.cross(v[b] - v[a], v[c] - v[a]) for a, b, c in t if i in (a, b, c))
        np.testing.assert_allclose(nrm[i], acc / np.linalg.norm(acc), atol=1e-9)
    np.testing.assert_allclose(np.sign(nrm), np.sign(pts))  # outward
    np.testing.assert_allclose(np.linalg.norm(nrm, axis=1), 1.0)
    empty = sample_surface(m, 9)
    assert [a.shape for a in empty] == [(0, 3), (0, 3), (0,)]


# ------------------------------------------------------------------ visibility


def two_cards():
    """Target card (id 1) at z=4, occluder (id 2) covering x < 0 at z=2."""
    return SceneMesh.from_trimesh_parts([rect_mesh(-1, 1, -1, 1, 4.0, oid=1, name="target"),
                                         rect_mesh(-5, 0, -5, 5, 2.0, oid=2, name="occ")])


def test_visible_mask_occluder_and_tolerances():
    m = two_cards()
    rc = Raycaster(m)
    o = np.zeros(3)
    # Along a ray from the origin the target plane z=4 is hit at t = dist * 4/z.
    # z=4.01: t/dist = 0.9975 < 1 - eps (own near side in front) -> hidden; z=4.002: 0.9995 -> visible.
    pts = np.array([[-0.5, 0, 4.0], [0.5, 0, 4.0], [0.5, 0, 4.01], [0.5, 0, 4.002], [0.5, 0, 3.0], [0, 0, 0]])
    assert visible_mask(rc, o, pts, 1).tolist() == [False, True, False, True, True, False]
    # not self-occluding: the first hit being the target itself is enough
    assert visible_mask(rc, o, pts, 1, self_occludes=False).tolist() == [False, True, True, True, True, False]
    # tolerances: relative eps, then absolute abs_tol (t - 0.999 dist = -0.0060 m here)
    assert visible_mask(rc, o, pts[2:3], 1, eps=3e-3).tolist() == [True]
    assert visible_mask(rc, o, pts[2:3], 1, eps=2e-3).tolist() == [False]
    assert visible_mask(rc, o, pts[2:3], 1, abs_tol=0.007).tolist() == [True]
    assert visible_mask(rc, o, pts[2:3], 1, abs_tol=0.005).tolist() == [False]
    # a hit on another object clearly beyond the point (nothing in between) counts as visible...
    assert visible_mask(rc, o, np.array([[0.5, 0, 1.0]]), 2).tolist() == [True]
    # ...but one within eps of it is a coincident surface of another object: hidden.
    assert visible_mask(rc, o, np.array([[0.5, 0, 3.999]]), 2).tolist() == [False]
    assert visible_mask(rc, o, np.array([[0.5, 0, 3.99]]), 2).tolist() == [True]
    # a miss also counts as visible
    assert visible_mask(rc, o, np.array([[50.0, 0, 4.0]]), 3).tolist() == [True]
    # the occluder itself is visible where it is hit first
    assert visible_mask(rc, o, np.array([[-1.0, 0, 2.0]]), 2).tolist() == [True]
    # a point at the camera centre is never visible
    assert visible_mask(rc, [0.5, 0, 4.0], np.array([[0.5, 0, 4.0]]), 1).tolist() == [False]


def test_visible_mask_coincident_other_object_wins():
    m = SceneMesh.from_trimesh_parts([rect_mesh(-1, 1, -1, 1, 4.0, oid=1), rect_mesh(-1, 1, -1, 1, 4.0, oid=2)])
    rc = Raycaster(m)
    p = np.array([[0.3, 0.2, 4.0]])
    hit_id = rc.cast(np.zeros(3), p)[1][0]
    other = 3 - hit_id
    assert visible_mask(rc, np.zeros(3), p, hit_id).tolist() == [True]
    assert visible_mask(rc, np.zeros(3), p, other).tolist() == [False]


def test_visibility_stats_worked_example():
    m = two_cards()
    rc = Raycaster(m)
    s = visibility_stats(rc, m, 1, K, EYE, W, H, n_interior=1000)
    # Target projects to u in cx +- 5, v in cy +- 5: fully in frame, bbox = 10*10/(40*30).
    assert s.n_points == 4 + 1000
    assert s.in_frame_fraction == 1.0
    assert s.bbox_fraction == pytest.approx(100 / 1200)
    # x < 0 half hidden by the occluder (vertices at x=+-1 split 2/2; interior ~ half)
    assert s.unoccluded_fraction == pytest.approx(0.5, abs=0.01)
    assert s.visible_fraction == pytest.approx(s.unoccluded_fraction)
    assert s.to_dict()["n_points"] == 1004
    assert visibility_stats(rc, m, 9, K, EYE, W, H).to_dict() == dict(
        in_frame_fraction=0.0, unoccluded_fraction=0.0, visible_fraction=0.0, bbox_fraction=0.0, n_points=0)


def test_visibility_stats_clipped_on_every_edge():
    # Card at z=2 spanning x in [-4, 0.5] (u from cx-40 to cx+5) and y in [-0.5, 3] (v from cy-5 to cy+30).
    m = SceneMesh.from_trimesh_parts([rect_mesh(-4, 0.5, -0.5, 3.0, 2.0)])
    rc = Raycaster(m)
    s = visibility_stats(rc, m, 1, K, EYE, W, H, n_interior=2000)
    cx, cy = K[0, 2], K[1, 2]
    u0, u1 = -0.5, cx + 5
    v0, v1 = cy - 5, H - 0.5
    assert s.bbox_fraction == pytest.approx((u1 - u0) * (v1 - v0) / (W * H))
    # interior samples in frame: area share of the in-frame part (x>-1.995, y<1.5) of the 4.5 x 3.5 card
    frac = ((0.5 + (0.5 + cx) * 2 / F) * (0.5 + (H - 0.5 - cy) * 2 / F)) / (4.5 * 3.5)
    assert s.in_frame_fraction == pytest.approx(frac, abs=0.02)
    assert s.unoccluded_fraction == 1.0
    assert s.visible_fraction == pytest.approx(s.in_frame_fraction)


def test_visibility_stats_fully_off_frame_but_in_front():
    m = SceneMesh.from_trimesh_parts([rect_mesh(10, 11, 10, 11, 2.0)])
    rc = Raycaster(m)
    s = visibility_stats(rc, m, 1, K, EYE, W, H, n_interior=10)
    assert (s.in_frame_fraction, s.unoccluded_fraction, s.visible_fraction, s.bbox_fraction) == (0, 0, 0, 0)


def test_camera_inside_mesh():
    m = SceneMesh.from_trimesh_parts([box_part((0, 0, 0), (4, 4, 4), 1, "room")])
    rc = Raycaster(m)
    assert camera_inside_mesh(rc, m, [0.5, 0.3, -0.2]) is True
    assert camera_inside_mesh(rc, m, [0, 0, 10.0]) is False
    assert camera_inside_mesh(rc, m, [0, 0, 10.0], n_dirs=8) is False
    empty_hits = SceneMesh.from_trimesh_parts([rect_mesh(0, 1, 0, 1, 100.0)])
    assert camera_inside_mesh(Raycaster(empty_hits), empty_hits, [50.0, 50.0, -100.0], n_dirs=4) is False


def test_camera_inside_open_box_majority_vote():
    # A box missing its +z face, camera inside: back faces hit by most rays, misses do not vote.
    tm = trimesh.creation.box(extents=(2, 2, 2))
    keep = tm.face_normals[:, 2] < 0.5
    part = trimesh.Trimesh(tm.vertices, tm.faces[keep], process=False)
    m = SceneMesh.from_trimesh_parts([(1, "open", part)])
    assert camera_inside_mesh(Raycaster(m), m, [0, 0, 0]) is True


def test_frame_and_occlusion_fractions_worked_example():
    m = two_cards()
    rc = Raycaster(m)
    pts = np.array([[-0.5, 0, 4.0], [0.5, 0, 4.0], [0.6, 0.1, 4.0], [100, 0, 4.0]])
    f, u = frame_and_occlusion_fractions(rc, pts, 1, K, EYE, W, H)
    assert f == pytest.approx(0.75) and u == pytest.approx(2 / 3)
    assert frame_and_occlusion_fractions(rc, np.zeros((0, 3)), 1, K, EYE, W, H) == (0.0, 0.0)
    assert frame_and_occlusion_fractions(rc, pts[3:], 1, K, EYE, W, H) == (0.0, 0.0)


# ------------------------------------------------------------------ survivors of the first mutation run


def test_visible_mask_from_an_offset_camera_and_tolerance_edges():
    rc = Raycaster(two_cards())
    cam = np.array([0.3, 0.1, 1.0])  # not at the origin: the ray is point - camera
    assert visible_mask(rc, cam, np.array([[0.5, 0, 4.0], [-0.9, 0, 4.0]]), 1).tolist() == [True, False]
    # hit of another object 0.001 m beyond the point: beyond needs > dist*(1+eps) + abs_tol
    o = np.zeros(3)
    assert visible_mask(rc, o, np.array([[0.5, 0, 3.999]]), 2, abs_tol=0.005).tolist() == [False]
    # a point exactly abs_tol from the camera is not visible
    assert visible_mask(rc, [0.5, 0, 3.5], np.array([[0.5, 0, 4.0]]), 1, abs_tol=0.5).tolist() == [False]
    assert visible_mask(rc, [0.5, 0, 3.4], np.array([[0.5, 0, 4.0]]), 1, abs_tol=0.5).tolist() == [True]


def test_view_angle_offset_point_non_unit_normal_and_rounding():
    assert view_angle_deg([1.0, 2.0, 3.0 + 2 * math.sqrt(3)], [-1.0, 2.0, 3.0], [0, 0, 4.0]) == pytest.approx(30.0)
    # parallel vectors whose |cos| rounds to 1.0000000000000002: still 0 degrees, not nan
    v = np.array([0.8217701239287258, -1.3812797174167781, -2.7541588563828316])
    assert view_angle_deg(v, [0, 0, 0], v * 0.18098541408979257) == 0.0


def test_px_per_unit_error_message():
    with pytest.raises(ValueError, match="direction must be non-zero"):
        px_per_unit(K, EYE, [0, 0, 1.0], [0, 0, 0])
    with pytest.raises(KeyError, match="no object with id 3"):
        tri_mesh().object_name(3)


def single_triangle(z, normal_up=True):
    tri = [[0, 1, 2]] if normal_up else [[0, 2, 1]]
    v = [[-1e4, -1e4, z], [1e4, -1e4, z], [0, 1e4, z]]
    return SceneMesh(vertices=v, triangles=tri, tri_object_id=[1], object_ids=[1], object_names=["t"])


def test_camera_inside_counts_hits_on_triangle_zero_and_a_tie_is_outside():
    m = single_triangle(1.0)  # camera below, face normal +z: the upward rays see its back
    assert camera_inside_mesh(Raycaster(m), m, [0, 0, 0]) is True
    # back faces above, front faces below: exactly half of the 64 hits are back-face hits -> outside
    two = SceneMesh(vertices=[[-1e4, -1e4, 1], [1e4, -1e4, 1], [0, 1e4, 1], [-1e4, -1e4, -1], [1e4, -1e4, -1],
                              [0, 1e4, -1]], triangles=[[0, 1, 2], [3, 4, 5]], tri_object_id=[1, 1],
                    object_ids=[1], object_names=["t"])
    t, _, tri, _ = Raycaster(two).cast(np.zeros((64, 3)), fibonacci_sphere(64))
    assert (tri >= 0).sum() == 64
    assert camera_inside_mesh(Raycaster(two), two, [0, 0, 0]) is False


def test_visibility_stats_uses_seed_default_count_and_eps():
    m = two_cards()
    rc = Raycaster(m)
    s = visibility_stats(rc, m, 1, K, EYE, W, H)
    assert s.n_points == 4 + 2000
    for seed in (0, 7):
        pts, _, _ = sample_surface(m, 1, n_interior=300, seed=seed)
        seen = visible_mask(rc, np.zeros(3), pts, 1, self_occludes=False)
        got = visibility_stats(rc, m, 1, K, EYE, W, H, n_interior=300, seed=seed)
        assert got.visible_fraction == pytest.approx(seen.mean(), abs=1e-12)
    # a closed box seen square-on: self-occluded back faces become visible only with a huge eps
    box_mesh = SceneMesh.from_trimesh_parts([box_part((0, 0, 4.5), (1, 1, 1), 1, "box")])
    rb = Raycaster(box_mesh)
    strict = visibility_stats(rb, box_mesh, 1, K, EYE, W, H, n_interior=600, self_occludes=True)
    loose = visibility_stats(rb, box_mesh, 1, K, EYE, W, H, n_interior=600, self_occludes=True, eps=0.5)
    assert strict.unoccluded_fraction < 0.5 < loose.unoccluded_fraction


def test_frame_and_occlusion_fractions_single_point_and_self_occlusion():
    rc = Raycaster(two_cards())
    assert frame_and_occlusion_fractions(rc, np.array([[0.5, 0, 4.0]]), 1, K, EYE, W, H) == (1.0, 1.0)
    # a point on the back face of a closed box: hidden by the box's own front, yet Table 2 counts it
    box_mesh = SceneMesh.from_trimesh_parts([box_part((0, 0, 4.5), (1, 1, 1), 1, "box")])
    back = np.array([[0.1, 0.1, 5.0]])
    assert frame_and_occlusion_fractions(Raycaster(box_mesh), back, 1, K, EYE, W, H) == (1.0, 1.0)
    assert visible_mask(Raycaster(box_mesh), np.zeros(3), back, 1).tolist() == [False]


def test_float32_inputs_are_computed_in_float64():
    # SceneMesh vertices are float32; results must not lose precision when callers pass them on.
    c32 = np.array([0.1, 0.2, 0.3], np.float32)
    p32 = np.array([1.7, -2.9, 4.1], np.float32)
    n32 = np.array([0.3, 0.7, -0.2], np.float32)
    c64, p64, n64 = (a.astype(np.float64) for a in (c32, p32, n32))
    to_cam = c64 - p64
    want = math.degrees(math.acos(abs(to_cam @ n64) / (np.linalg.norm(to_cam) * np.linalg.norm(n64))))
    assert view_angle_deg(c32, p32, n32) == pytest.approx(want, rel=0, abs=1e-12)
    half = 0.5 * n64 / np.linalg.norm(n64)
    ends = np.stack([p64 - half, p64 + half])
    uv = ends @ K.T
    want_px = float(np.hypot(*(uv[1, :2] / uv[1, 2] - uv[0, :2] / uv[0, 2])))
    assert px_per_unit(K, EYE, p32, n32) == pytest.approx(want_px, rel=1e-13)


# ------------------------------------------------------------ properties (hypothesis)

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_coord = st.floats(-3.0, 3.0, allow_nan=False)
_size = st.floats(0.2, 2.0, allow_nan=False)


def _slab(o, d, lo, hi):
    """Analytic first entry of the ray o + t d (d unit) into the box [lo, hi]: (t, axis, sign) or None."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t1, t2 = (lo - o) / d, (hi - o) / d
    tmin, tmax = np.minimum(t1, t2), np.maximum(t1, t2)
    axis = int(np.argmax(tmin))
    t_in, t_out = tmin[axis], tmax.min()
    if t_in > t_out or t_out < 0 or t_in < 0:
        return None
    return float(t_in), axis, -float(np.sign(d[axis]))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(c=st.tuples(_coord, _coord, _coord), e=st.tuples(_size, _size, _size),
       u=st.tuples(st.floats(-0.45, 0.45), st.floats(-0.45, 0.45), st.floats(-0.45, 0.45)),
       dirn=st.tuples(_coord, _coord, _coord).filter(lambda v: np.linalg.norm(v) > 0.5),
       back=st.floats(4.0, 9.0))
def test_cast_matches_the_slab_intersection_of_a_box(c, e, u, dirn, back):
    """A ray aimed at a point inside a box enters it where the slab method says, through the face
    whose outward normal faces the ray; the reported distance is in metres along any scaled dir."""
    c, e = np.array(c), np.array(e)
    lo, hi = c - e / 2, c + e / 2
    aim = c + np.array(u) * e
    d = np.array(dirn) / np.linalg.norm(dirn)
    o = aim - back * d  # at least 4 m back: outside any box of side <= 2 m centred within 0.45 e of aim
    rc = Raycaster(SceneMesh.from_trimesh_parts(
        [(3, "box", trimesh.creation.box(extents=e, transform=trimesh.transformations.translation_matrix(c)))]))
    t, oid, tri, nrm = rc.cast(o, 2.5 * d)
    want = _slab(o, d, lo, hi)
    assert want is not None
    assert t[0] == pytest.approx(want[0], abs=1e-6)
    assert oid.tolist() == [3] and tri[0] >= 0
    n_want = np.zeros(3)
    n_want[want[1]] = want[2]
    if sorted(np.abs((o + want[0] * d - c) / (e / 2)))[-2] < 0.999:  # not within 0.1% of an edge
        assert np.allclose(nrm[0], n_want, atol=1e-9)
    # the reverse ray from the same origin misses
    t2, oid2, tri2, _ = rc.cast(o, -d)
    assert np.isinf(t2[0]) and oid2.tolist() == [0] and tri2.tolist() == [-1]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(x=st.floats(-1.2, 1.2), y=st.floats(-1.2, 1.2), z=st.floats(0.5, 6.0))
def test_in_frame_mask_matches_the_pinhole_rectangle(x, y, z):
    """With K above and the identity pose, (x, y, z) lands at u = 20 x / z + 19.5, v = 20 y / z + 14.5;
    it is in frame exactly when -0.5 <= u < 39.5 and -0.5 <= v < 29.5."""
    u, v = F * x / z + (W - 1) / 2, F * y / z + (H - 1) / 2
    want = (-0.5 <= u < W - 0.5) and (-0.5 <= v < H - 0.5)
    got = in_frame_mask(np.array([[x, y, z]]), K, EYE, W, H)
    if min(abs(u + 0.5), abs(u - W + 0.5), abs(v + 0.5), abs(v - H + 0.5)) > 1e-9:
        assert got.tolist() == [want]
    assert in_frame_mask(np.array([[x, y, -z]]), K, EYE, W, H).tolist() == [False]


def test_px_per_unit_near_plane_is_behind_inclusive():
    # both ends of a sideways segment at the point's depth: z = 1e-6 is "behind" (<= _NEAR), 2e-6 is not
    assert math.isnan(px_per_unit(K, EYE, [0, 0, 1e-6], [1, 0, 0]))
    assert math.isnan(px_per_unit(K, EYE, [0, 0, 5e-7], [1, 0, 0]))
    assert px_per_unit(K, EYE, [0, 0, 2e-6], [1, 0, 0]) == pytest.approx(F / 2e-6)
    with pytest.raises(ValueError, match="^direction must be non-zero$"):
        px_per_unit(K, EYE, [0, 0, 1.0], [0, 0, 0])


def test_view_angle_single_input_is_a_python_float():
    got = view_angle_deg([0, 0, 0], [0, 0, 2.0], [0, 1.0, 1.0])
    assert type(got) is float and got == pytest.approx(45.0)
    many = view_angle_deg([0, 0, 0], [[0, 0, 2.0], [0, 0, 3.0]], [0, 0, 1.0])
    assert isinstance(many, np.ndarray) and many.shape == (2,)


def test_scene_mesh_load_refuses_pickled_arrays(tmp_path):
    """A mesh file is untrusted input: an object array (which needs pickle) must not load."""
    from geometry.raycast import SceneMesh

    path = tmp_path / "mesh.npz"
    with open(path, "wb") as fh:
        np.savez(fh, vertices=np.zeros((3, 3)), triangles=np.array([[0, 1, 2]]), tri_object_id=np.array([1]),
                 object_ids=np.array([1]), object_names=np.array([{"evil": 1}], dtype=object))
    with pytest.raises(ValueError, match="allow_pickle"):
        SceneMesh.load(path)


def test_camera_inside_mesh_needs_a_strict_majority_of_its_64_rays():
    """Between two large parallel planes whose normals both point along n, a ray sees a back face
    exactly when it runs along n. For this n, 32 of the 64 Fibonacci rays do: half is no majority, so
    the camera is not inside (65 rays would give 33 of 65, a majority)."""
    from geometry.raycast import Raycaster, SceneMesh, camera_inside_mesh, fibonacci_sphere

    n = np.array([-0.777, 0.431, -0.459])
    n /= np.linalg.norm(n)
    assert int((fibonacci_sphere(64) @ n > 0).sum()) == 32 and int((fibonacci_sphere(65) @ n > 0).sum()) == 33
    assert np.abs(fibonacci_sphere(64) @ n).min() > 0.05  # every ray meets a plane within 20 m
    u = np.cross(n, [0.0, 0.0, 1.0])
    u /= np.linalg.norm(u)
    w = np.cross(n, u)  # u x w = n: counter-clockwise (u, w) quads face along n
    parts = []
    for k, off in enumerate((1.0, -1.0)):
        c = off * n
        v = np.array([c - 100 * u - 100 * w, c + 100 * u - 100 * w, c + 100 * u + 100 * w, c - 100 * u + 100 * w])
        parts.append((k + 1, f"plane{k}", trimesh.Trimesh(v, [[0, 1, 2], [0, 2, 3]], process=False)))
    mesh = SceneMesh.from_trimesh_parts(parts)
    assert np.allclose(mesh.face_normals(), n)
    assert camera_inside_mesh(Raycaster(mesh), mesh, np.zeros(3)) is False
    assert camera_inside_mesh(Raycaster(mesh), mesh, np.zeros(3), n_dirs=65) is True


def test_visible_mask_tolerance_edges_exactly():
    """The first hit counts as not in front when t >= dist (1 - eps) - abs_tol (inclusive) and as clearly
    beyond when t > dist (1 + eps) + abs_tol (strict). eps = 2^-10, abs_tol = 2^-19 and dist = 16 make both
    edges exact in float32 (16 - 2^-6 - 2^-19 and 16 + 2^-6 + 2^-19), where the ray hits a plate at that z."""
    eps, tol = 2.0 ** -10, 2.0 ** -19
    near, far = 16 - 2 ** -6 - tol, 16 + 2 ** -6 + tol

    def seen(z, oid):
        plate = trimesh.Trimesh(np.array([[-1, -1, z], [1, -1, z], [1, 1, z], [-1, 1, z]], float), [[0, 1, 2], [0, 2, 3]],
                                process=False)
        rc = Raycaster(SceneMesh.from_trimesh_parts([(oid, "plate", plate)]))
        assert rc.cast(np.zeros((1, 3)), np.array([[0.0, 0.0, 1.0]]))[0][0] == z   # the hit is the plate, exactly
        return bool(visible_mask(rc, np.zeros(3), np.array([[0.0, 0.0, 16.0]]), 1, eps=eps, abs_tol=tol)[0])

    # the target's own surface exactly at the near edge is the point itself; one float32 step nearer is in front
    assert seen(near, 1) is True
    assert seen(near - 2.0 ** -20, 1) is False
    # another object exactly at the far edge is a coincident surface (hidden); one float32 step beyond is clear
    assert seen(far, 2) is False
    assert seen(far + 2.0 ** -19, 2) is True
