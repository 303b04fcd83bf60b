"""More pins for geometry/raycast.py: surface sampling of degenerate and unequal-area objects, the
systematic sample's offset, seeds taken modulo 2^63, the near plane as a strict bound, and the
projected box of an object wholly off one side of the frame. Unit-level (open3d only), no Blender."""
from __future__ import annotations

import numpy as np
import pytest
import trimesh

from geometry.raycast import Raycaster, SceneMesh, in_frame_mask, sample_surface, visibility_stats

W, H = 40, 30
F = 20.0
K = np.array([[F, 0, (W - 1) / 2], [0, F, (H - 1) / 2], [0, 0, 1]], dtype=np.float64)
EYE = np.eye(4)


def card(x0, x1, y0, y1, z, oid=1, name="card"):
    v = np.array([[x0, y0, z], [x0, y1, z], [x1, y1, z], [x1, y0, z]], float)
    return oid, name, trimesh.Trimesh(v, [[0, 1, 2], [0, 2, 3]], process=False)


def degenerate(oid=1):
    """Three collinear vertices: one triangle of zero area."""
    v = np.array([[0.0, 0.0, 2.0], [1.0, 0.0, 2.0], [2.0, 0.0, 2.0]])
    return oid, "stick", trimesh.Trimesh(v, [[0, 1, 2]], process=False)


# ------------------------------------------------------------------ sample_surface

def test_zero_area_object_gives_its_vertices_only_with_zero_normals():
    m = SceneMesh.from_trimesh_parts([degenerate()])
    for n in (0, 1, 100):
        pts, nrm, w = sample_surface(m, 1, n_interior=n)
        assert len(pts) == 3 and len(nrm) == 3 and w.tolist() == [0.0, 0.0, 0.0]
        assert np.array_equal(nrm, np.zeros((3, 3)))                  # no direction, not nan
    # a vertex whose faces' normals cancel (a two-sided card) has a zero normal too
    v = np.array([[0, 0, 2], [1, 0, 2], [0, 1, 2]], float)
    two = SceneMesh.from_trimesh_parts([(1, "two_sided", trimesh.Trimesh(v, [[0, 1, 2], [0, 2, 1]], process=False))])
    _, nrm, _ = sample_surface(two, 1, n_interior=0)
    assert np.array_equal(nrm, np.zeros((3, 3)))


def test_one_interior_sample_carries_the_whole_area():
    m = SceneMesh.from_trimesh_parts([card(0, 2, 0, 3, 2.0)])
    pts, _, w = sample_surface(m, 1, n_interior=1, seed=5)
    assert len(pts) == 4 + 1 and w.tolist() == [0.0] * 4 + [6.0]
    assert 0 <= pts[4, 0] <= 2 and 0 <= pts[4, 1] <= 3


def test_default_interior_count_is_2000():
    m = SceneMesh.from_trimesh_parts([card(0, 1, 0, 1, 2.0)])
    pts, _, w = sample_surface(m, 1)
    assert len(pts) == 4 + 2000 and w[4:] == pytest.approx(np.full(2000, 1.0 / 2000))


def test_vertex_normals_are_weighted_by_face_area_on_an_unequal_box():
    # a 1 x 2 x 4 box: a corner's faces have areas 2, 4 and 8 m^2, so the weights matter (a cube's do not)
    m = SceneMesh.from_trimesh_parts([(1, "box", trimesh.creation.box(extents=(1.0, 2.0, 4.0)))])
    pts, nrm, _ = sample_surface(m, 1, n_interior=0)
    v, t = m.vertices.astype(float), m.triangles
    for i in range(len(pts)):
        acc = sum(np.cross(v[b] - v[a], v[c] - v[a]) for a, b, c in t if i in (a, b, c))  # 2 * area * normal
        np.testing.assert_allclose(nrm[i], acc / np.linalg.norm(acc), atol=1e-9)


def test_a_face_with_a_thousandth_of_the_area_is_rarely_sampled():
    # systematic sampling: targets (k + r) * total / n with r in [0, 1); a face holding 0.1 % of the
    # area at the start of the cumulative sum gets one of 10 samples with probability 1 %
    tiny = (1, "tiny", trimesh.Trimesh(np.array([[0, 0, 2], [0.01, 0, 2], [0, 0.04, 2]], float), [[0, 1, 2]],
                                       process=False))
    big = card(5, 6, 0, 0.2, 2.0, name="tiny")                         # 0.2 m^2 vs 0.0002 m^2
    m = SceneMesh.from_trimesh_parts([tiny, big])
    hits = 0
    for seed in range(30):
        pts, _, _ = sample_surface(m, 1, n_interior=10, seed=seed)
        hits += int((pts[7:, 0] < 1).sum())                            # interior samples on the tiny face
    assert hits <= 2


def test_seed_is_taken_modulo_2_to_the_63():
    m = SceneMesh.from_trimesh_parts([card(0, 1, 0, 1, 2.0, oid=3)])
    a, _, _ = sample_surface(m, 3, n_interior=20, seed=-1)              # a negative seed is allowed
    b, _, _ = sample_surface(m, 3, n_interior=20, seed=(1 << 63) - 1)
    c, _, _ = sample_surface(m, 3, n_interior=20, seed=1 << 63)
    d, _, _ = sample_surface(m, 3, n_interior=20, seed=0)
    assert np.array_equal(a, b) and np.array_equal(c, d) and not np.array_equal(a, d)
    big = SceneMesh.from_trimesh_parts([card(0, 1, 0, 1, 2.0, oid=(1 << 31) - 1)])
    e, _, _ = sample_surface(big, (1 << 31) - 1, n_interior=20, seed=0)
    assert e.shape == (24, 3)


# ------------------------------------------------------------------ the near plane

def test_in_frame_near_bound_is_strict():
    pts = np.array([[0.0, 0.0, 2.0], [0.0, 0.0, 2.0 + 1e-9], [0.0, 0.0, 1e-6], [0.0, 0.0, 2e-6]])
    assert in_frame_mask(pts[:2], K, EYE, W, H, near=2.0).tolist() == [False, True]
    assert in_frame_mask(pts[2:], K, EYE, W, H).tolist() == [False, True]


def test_bbox_leaves_out_a_vertex_exactly_on_the_near_plane():
    # camera 1e-6 m behind z = 0: the card's vertex at z = 0 is exactly on the near plane, so the box
    # spans the three vertices at z = 2 only (the one at z = 0 would project 20 000 px to the right)
    v = np.array([[0.001, 0.0, 0.0], [0.0, 0.5, 2.0], [-0.5, 0.5, 2.0], [-0.5, 0.0, 2.0]], float)
    m = SceneMesh.from_trimesh_parts([(1, "card", trimesh.Trimesh(v, [[0, 1, 2], [0, 2, 3]], process=False))])
    pose = np.eye(4)
    pose[2, 3] = -1e-6
    s = visibility_stats(Raycaster(m), m, 1, K, pose, W, H, n_interior=0)
    z = 2.0 + 1e-6
    u = (W - 1) / 2 + F * np.array([0.0, -0.5, -0.5]) / z
    vv = (H - 1) / 2 + F * np.array([0.5, 0.5, 0.0]) / z
    assert s.bbox_fraction == pytest.approx((u.max() - u.min()) * (vv.max() - vv.min()) / (W * H))


# ------------------------------------------------------------------ off one side of the frame

@pytest.mark.parametrize("rect", [(-11, -10, -0.5, 0.5), (-0.5, 0.5, -11, -10), (-11, -10, -11, -10)])
def test_object_left_of_or_above_the_frame_has_no_box(rect):
    # in front of the camera but wholly left of u = -0.5 or above v = -0.5: the clipped box is empty
    m = SceneMesh.from_trimesh_parts([card(*rect, 1.0)])
    s = visibility_stats(Raycaster(m), m, 1, K, EYE, W, H, n_interior=50)
    assert s.bbox_fraction == 0.0 and s.in_frame_fraction == 0.0


# ------------------------------------------------------------------ cast: inputs and outputs

def card_raycaster(z=2.5, half=1.0, oid=7):
    return Raycaster(SceneMesh.from_trimesh_parts([card(-half, half, -half, half, z, oid=oid)]))


def test_cast_takes_integer_directions_that_are_not_unit():
    # an int direction (1, 0, 1) is normalised in float: the 6 x 6 m card at z = 2 is hit 2 sqrt(2) m away
    rc = card_raycaster(z=2.0, half=3.0)
    t, oid, tri, _ = rc.cast([0, 0, 0], [[1, 0, 1], [0, 1, 2], [0, 0, 3]])
    assert t == pytest.approx([2.0 * np.sqrt(2.0), np.sqrt(5.0), 2.0], abs=1e-9)
    assert oid.tolist() == [7, 7, 7]


def test_cast_ids_are_integers():
    rc = card_raycaster(z=2.0)
    t, oid, tri, nrm = rc.cast(np.zeros(3), [[0, 0, 1.0], [0, 0, -1.0]])
    assert oid.dtype == np.int32 and tri.dtype == np.int64
    assert t.dtype == np.float64 and nrm.dtype == np.float64 and nrm.shape == (2, 3)


def test_zero_length_directions_miss_without_dividing_by_zero():
    import warnings

    rc = card_raycaster(z=2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                                 # no 0/0 RuntimeWarning
        t, oid, tri, _ = rc.cast(np.zeros(3), [[0, 0, 0.0], [0, 0, 1.0]])
    assert t[0] == np.inf and oid[0] == 0 and tri[0] == -1 and t[1] == pytest.approx(2.0)


def test_pixel_render_normalises_a_scaled_intrinsic_matrix():
    # K and 2 K are the same pinhole (homogeneous): the id image and the planar depth do not change
    rc = card_raycaster(z=2.0, half=0.5)
    ids, depth = rc.first_hit_ids_for_pixels(K, EYE, W, H)
    ids2, depth2 = rc.first_hit_ids_for_pixels(2.0 * K, EYE, W, H)
    assert np.array_equal(ids, ids2) and (ids == 7).sum() == 100
    assert np.allclose(depth2[ids2 == 7], 2.0, atol=1e-6) and np.isinf(depth2[ids2 == 0]).all()


# ------------------------------------------------------------------ cast: the float64 refinement

def test_cast_refines_near_far_and_unit_denominator_hits_in_float64():
    # the mesh is float32; the refined distance is exact in float64 against the float32 plane, where
    # open3d's own float32 t is off by ~1e-8 relative
    near = card_raycaster(z=0.7, half=5.0)                             # closer than 1 m
    t, *_ = near.cast([0.0, 0.0, 0.1], [0.0, 0.0, 1.0])
    assert t[0] == pytest.approx(float(np.float32(0.7)) - 0.1, abs=1e-12)
    far = card_raycaster(z=1000.3, half=50.0)                         # 1 km: float32 error ~6e-5 m
    t, *_ = far.cast([0.0, 0.0, 0.1], [0.0, 0.0, 1.0])
    assert t[0] == pytest.approx(float(np.float32(1000.3)) - 0.1, abs=1e-9)
    # a 1 x 1 card (triangles of area 0.5, |n_raw| = 1) seen from its back, square-on: n_raw . d = 1
    unit = card_raycaster(z=2.5, half=0.5)
    t, oid, _, nrm = unit.cast([0.1, 0.2, 5.1], [0.0, 0.0, -1.0])
    assert oid[0] == 7 and nrm[0].tolist() == [0.0, 0.0, -1.0]
    assert t[0] == pytest.approx(5.1 - 2.5, abs=1e-12)


# ------------------------------------------------------------------ degenerate faces in bulk

def _sticks_and_cards(n=40):
    """n zero-area triangles (collinear, non-zero edges) interleaved with n unit-normal ones."""
    verts, tris = [], []
    for k in range(n):
        x = 3.0 * k
        base = len(verts)
        verts += [[x, 0, 2], [x + 1, 0, 2], [x + 2, 0, 2], [x, 1, 2], [x + 1, 1, 2], [x, 2, 2]]
        tris += [[base, base + 1, base + 2], [base + 3, base + 4, base + 5 - 0]]
    v = np.array(verts, float)
    v[4::6, 1] = 2.0                                                  # the second triangle is a real one
    return v, np.array(tris)


def test_face_normals_are_zero_exactly_for_every_degenerate_face():
    v, t = _sticks_and_cards()
    m = SceneMesh(vertices=v, triangles=t, tri_object_id=np.ones(len(t)), object_ids=[1], object_names=["x"])
    junk = [np.full((len(t), 3), 7.0) for _ in range(4)]             # leave non-zero memory behind
    del junk
    nrm = m.face_normals()
    assert np.array_equal(nrm[0::2], np.zeros((len(t) // 2, 3)))
    assert np.allclose(np.linalg.norm(nrm[1::2], axis=1), 1.0)


def test_vertex_normals_are_zero_exactly_on_a_zero_area_object():
    verts = np.array([[0.1 * k, 0.0, 2.0] for k in range(120)])       # 120 collinear vertices
    tris = np.array([[k, k + 1, k + 2] for k in range(118)])
    m = SceneMesh(vertices=verts, triangles=tris, tri_object_id=np.ones(118), object_ids=[1], object_names=["x"])
    junk = [np.full((120, 3), 7.0) for _ in range(4)]
    del junk
    pts, nrm, w = sample_surface(m, 1, n_interior=50)
    assert len(pts) == 120 and np.array_equal(nrm, np.zeros((120, 3))) and not w.any()


def test_from_trimesh_parts_error_texts():
    with pytest.raises(ValueError, match=r"^object ids must be >= 1$"):
        SceneMesh.from_trimesh_parts([card(0, 1, 0, 1, 1.0, oid=0)])
    with pytest.raises(ValueError, match=r"^object id 3 used with two names$"):
        SceneMesh.from_trimesh_parts([card(0, 1, 0, 1, 1.0, oid=3, name="a"), card(0, 1, 0, 1, 2.0, oid=3, name="b")])


# ------------------------------------------------------------------ SceneMesh normalisation

def _tri(**over):
    kw = dict(vertices=[[0, 0, 0], [1, 0, 0], [0, 1, 0]], triangles=[[0, 1, 2]], tri_object_id=[1],
              object_ids=[1], object_names=["a"])
    kw.update(over)
    return SceneMesh(**kw)


@pytest.mark.parametrize("over, text", [
    (dict(tri_object_id=[1, 1]), "tri_object_id must have one entry per triangle"),
    (dict(object_names=["a", "b"]), "object_ids and object_names must have equal length"),
    (dict(triangles=[[0, 1, 3]]), "triangle index out of range"),
    (dict(tri_object_id=[0]), "object ids must be >= 1 (0 means 'no hit')"),
])
def test_scene_mesh_error_texts(over, text):
    with pytest.raises(ValueError) as err:
        _tri(**over)
    assert str(err.value) == text


def test_scene_mesh_flattens_column_shaped_ids_and_names_to_1d():
    # a loader may hand (F, 1) / (M, 1) arrays and object-dtype names: they are normalised once
    m = _tri(tri_object_id=np.array([[1]]), object_ids=np.array([[1], [2]]),
             object_names=np.array([["a"], ["b"]], dtype=object))
    assert m.tri_object_id.shape == (1,) and m.object_ids.shape == (2,) and m.object_names.shape == (2,)
    assert m.object_names.dtype.kind == "U" and m.object_name(2) == "b"
