"""geometry.waypoints pinned on a camera looking straight down at a floor, where every pixel's
floor point is known by hand.

Camera: centre (0, 0, 2), optical axis -z, image x along world +x, image y along world -y;
W x H = 64 x 48, f = 32, principal point (31.5, 23.5). A floor point (X, Y, 0) is 2 m in front,
so u = 31.5 + 16 X and v = 23.5 - 16 Y (16 px per metre), and pixel (u, v) sees the floor at
X = (u - 31.5) / 16, Y = (23.5 - v) / 16. The image covers X in [-2, 2], Y in [-1.5, 1.5].
A post (id 2) stands on the floor (id 1) at x in [0.6, 0.9], y in [-0.15, 0.15], 0.5 m tall;
its top (1.5 m from the camera) projects at 21.33 px per metre.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh

from geometry.camera import CameraPose, PhoneLens
from geometry.raycast import Raycaster, SceneMesh
from geometry.waypoints import (HitPool, Marker, cast_pixels, default_step_px, disc_clear, floor_visibility,
                                insert_required, pixel_dirs, sample_ground_candidates, sample_surface_negatives,
                                start_candidate, visible_floor_pool, visible_surface_pool)

W, H, F = 64, 48, 32.0
CX, CY = 31.5, 23.5
POST = ((0.6, -0.15, 0.0), (0.9, 0.15, 0.5))


def floor_quad(x0, x1, y0, y1) -> trimesh.Trimesh:
    v = np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], float)
    return trimesh.Trimesh(v, [[0, 1, 2], [0, 2, 3]], process=False)


def box(lo, hi) -> trimesh.Trimesh:
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return trimesh.creation.box(extents=hi - lo, transform=trimesh.transformations.translation_matrix((lo + hi) / 2))


def down_pose(width=W, height=H) -> CameraPose:
    T = np.eye(4)
    T[:3, 0], T[:3, 1], T[:3, 2], T[:3, 3] = (1, 0, 0), (0, -1, 0), (0, 0, -1), (0, 0, 2)
    lens = PhoneLens(name="main", focal_mm=6.0, sensor_width_mm=8.0, sensor_height_mm=6.0,
                     fnumber=1.8, equiv_focal_mm=26.0)
    K = [[F, 0.0, (width - 1) / 2], [0.0, F, (height - 1) / 2], [0.0, 0.0, 1.0]]
    return CameraPose(width=width, height=height, K=K, cam_to_world=T.tolist(), orientation="landscape",
                      lens=lens, sensor_width_mm=8.0, focus_mode="pinhole", focus_distance_m=None,
                      shutter_s=0.01)


POSE = down_pose()
RC_FLOOR = Raycaster(SceneMesh.from_trimesh_parts([(1, "floor", floor_quad(-5, 5, -5, 5))]))
RC_POST = Raycaster(SceneMesh.from_trimesh_parts([(1, "floor", floor_quad(-5, 5, -5, 5)),
                                                  (2, "post", box(*POST))]))


def uv_of(x, y):
    return CX + 16.0 * x, CY - 16.0 * y


def xy_of(u, v):
    return (u - CX) / 16.0, (CY - v) / 16.0


# ------------------------------------------------------------------ rays


def test_pixel_dirs_are_unit_world_rays():
    d = pixel_dirs(POSE, [[CX, CY], [CX + F, CY], [CX, CY + F], [CX - F, CY - F]])
    s2, s3 = math.sqrt(0.5), 1 / math.sqrt(3)
    # camera (1,0,1) -> world (1,0,-1); camera (0,1,1) -> world (0,-1,-1); (-1,-1,1) -> (-1,1,-1)
    assert np.allclose(d, [[0, 0, -1], [s2, 0, -s2], [0, -s2, -s2], [-s3, s3, -s3]], atol=1e-12)


def test_cast_pixels_floor_points_distances_and_misses():
    uv = np.array([[CX, CY], [CX + 16.0, CY - 8.0], [CX + 32.0 * 10, CY]])  # last: x = 20 m, off the floor
    t, oid, xyz, normal = cast_pixels(RC_FLOOR, POSE, uv)
    assert oid.tolist() == [1, 1, 0]
    assert np.allclose(xyz[:2], [[0, 0, 0], [1.0, 0.5, 0]], atol=1e-6)
    assert t[:2] == pytest.approx([2.0, math.sqrt(1 + 0.25 + 4)], abs=1e-6)
    assert np.isinf(t[2]) and np.allclose(xyz[2], [0, 0, 2])  # a miss reports the camera centre
    assert np.allclose(normal[0], [0, 0, 1])


# ------------------------------------------------------------------ floor_visibility


def test_floor_visibility_uv_and_behind_camera():
    ok, uv = floor_visibility(RC_FLOOR, POSE, [1], [[1.0, 0.5, 0.0], [0.0, 0.0, 3.0], [-1.25, -1.0, 0.0]])
    assert ok.tolist() == [True, False, True]
    assert np.allclose(uv[0], [47.5, 15.5]) and np.allclose(uv[2], [11.5, 39.5])
    assert np.isnan(uv[1]).all()  # behind the camera: no pixel


@pytest.mark.parametrize("x, y, inside", [
    # margin 4 px: centres with 3.5 <= u <= 59.5 and 3.5 <= v <= 43.5, i.e. |X| <= 1.75, |Y| <= 1.25
    (-1.75, 0.0, True), (1.75, 0.0, True), (0.0, 1.25, True), (0.0, -1.25, True),
    (-1.76, 0.0, False), (1.76, 0.0, False), (0.0, 1.26, False), (0.0, -1.26, False),
])
def test_floor_visibility_margin_edges(x, y, inside):
    ok, _ = floor_visibility(RC_FLOOR, POSE, [1], [[x, y, 0.0]], margin_px=4.0)
    assert ok.tolist() == [inside]
    ok0, _ = floor_visibility(RC_FLOOR, POSE, [1], [[x, y, 0.0]], margin_px=0.0)
    assert ok0.tolist() == [True]  # without a margin all of them are in frame


@pytest.mark.parametrize("z, tol, seen", [
    # The ray toward (0, 0, z) hits the floor at 2 m; the point is 2 - z away: |t - dist| = |z|.
    (0.009, 0.01, True), (0.011, 0.01, False), (-0.009, 0.01, True), (-0.011, 0.01, False),
    (0.03, 0.05, True), (0.06, 0.05, False),
])
def test_floor_visibility_depth_tolerance(z, tol, seen):
    ok, _ = floor_visibility(RC_FLOOR, POSE, [1], [[0.0, 0.0, z]], depth_tol_m=tol)
    assert ok.tolist() == [seen]


def test_floor_visibility_needs_a_floor_id_and_a_clear_disc():
    top = [0.75, 0.0, 0.5]
    assert floor_visibility(RC_POST, POSE, [1], [top])[0].tolist() == [False]
    assert floor_visibility(RC_POST, POSE, [1, 2], [top])[0].tolist() == [True]
    # (0.55, 0, 0) is floor at u = 40.3; the post's near side spans u 41.1 (foot) .. 44.3 (top edge).
    p = [[0.55, 0.0, 0.0]]
    assert floor_visibility(RC_POST, POSE, [1], p, clear_px=0.0)[0].tolist() == [True]
    assert floor_visibility(RC_POST, POSE, [1], p, clear_px=0.5)[0].tolist() == [True]
    assert floor_visibility(RC_POST, POSE, [1], p, clear_px=1.5)[0].tolist() == [False]
    assert floor_visibility(RC_POST, POSE, [1], p, clear_px=1.5, disc_extra_ids=[2])[0].tolist() == [True]
    # the centre pixel must be floor even when the post may share the disc
    assert floor_visibility(RC_POST, POSE, [1, 2], [top], clear_px=2.0, disc_extra_ids=[2])[0].tolist() == [True]
    assert floor_visibility(RC_POST, POSE, [1], [top], clear_px=2.0, disc_extra_ids=[2])[0].tolist() == [False]


def test_disc_clear_rounded_centre_and_clipping():
    # marker at u = 40.4: the +u disc point at 1 px (41.4) is past the post's foot (41.1) -> blocked,
    # at 0.5 px (40.9) it is not; the rounded centre pixel (40) is floor
    uv = np.array([[40.4, CY]])
    assert disc_clear(RC_POST, POSE, uv, np.array([[1]]), 1.0).tolist() == [False]
    assert disc_clear(RC_POST, POSE, uv, np.array([[1]]), 0.5).tolist() == [True]
    assert disc_clear(RC_POST, POSE, uv, np.array([[1, 2]]), 1.0).tolist() == [True]
    assert disc_clear(RC_POST, POSE, uv, np.array([[1, 2]]), 1.0, centre_allowed=np.array([[2]])).tolist() == [False]
    # u = 40.6 rounds to 41, still floor (the foot is at 41.1); u = 41.6 rounds to 42: the post
    assert disc_clear(RC_POST, POSE, np.array([[40.6, CY]]), np.array([[1, 2]]), 0.3,
                      centre_allowed=np.array([[1]])).tolist() == [True]
    assert disc_clear(RC_POST, POSE, np.array([[41.4, CY]]), np.array([[1, 2]]), 0.05,
                      centre_allowed=np.array([[1]])).tolist() == [True]
    assert disc_clear(RC_POST, POSE, np.array([[41.6, CY]]), np.array([[1, 2]]), 0.05,
                      centre_allowed=np.array([[1]])).tolist() == [False]
    # no disc, or nothing asked: all clear
    assert disc_clear(RC_POST, POSE, np.array([[42.0, CY]]), np.array([[1]]), 0.0).tolist() == [True]
    assert disc_clear(RC_POST, POSE, np.zeros((0, 2)), np.zeros((0, 1)), 3.0).tolist() == []
    # a disc over the image edge is clipped to the frame: with a floor only 1.97 m wide the unclipped
    # disc point at u = -0.5 - 3 would miss (x = -2.19), the clipped one at u = -0.5 (x = -2.0) hits
    rc = Raycaster(SceneMesh.from_trimesh_parts([(1, "floor", floor_quad(-2.05, 2.05, -1.55, 1.55))]))
    assert disc_clear(rc, POSE, np.array([[0.0, CY], [W - 1.0, 0.0]]), np.array([[1], [1]]), 3.0).tolist() == [True,
                                                                                                             True]


# ------------------------------------------------------------------ pools


def test_default_step_px():
    assert default_step_px(40.0) == 10.0 and default_step_px(12.0) == 3.0
    assert default_step_px(8.0) == 2.0 and default_step_px(4.0) == 2.0 and default_step_px(9.0) == 2.25


def test_floor_pool_is_one_jittered_pixel_per_cell_in_row_major_order():
    pool = visible_floor_pool(RC_FLOOR, POSE, [1], np.random.default_rng(0), step_px=8.0, margin_px=4.0,
                              max_distance_m=10.0, clear_px=0.0)
    # cells start at 3.5 + 8k: u 3.5..51.5 (7 cells, < 59.5), v 3.5..35.5 (5 cells, < 43.5)
    us = 3.5 + 8.0 * np.arange(7)
    vs = 3.5 + 8.0 * np.arange(5)
    base = np.array([(u, v) for v in vs for u in us])
    assert len(pool) == 35
    off = pool.uv - base
    assert (off >= 0).all() and (off < 8.0).all()
    assert (pool.uv[:, 0] <= 59.5).all() and (pool.uv[:, 1] <= 43.5).all()
    x, y = xy_of(pool.uv[:, 0], pool.uv[:, 1])
    assert np.allclose(pool.xyz, np.column_stack([x, y, np.zeros(35)]), atol=1e-5)
    assert pool.object_id.dtype == np.int64 and set(pool.object_id.tolist()) == {1}
    again = visible_floor_pool(RC_FLOOR, POSE, [1], np.random.default_rng(0), step_px=8.0, margin_px=4.0,
                               max_distance_m=10.0, clear_px=0.0)
    assert np.array_equal(pool.uv, again.uv)


def test_floor_pool_last_cell_is_clamped_to_the_margin():
    # step 20 with margin 0: cells at -0.5, 19.5, 39.5, 59.5 in u; the last cell's jitter may reach
    # 79.5 but is clamped to 63.5 (and v to 47.5)
    pool = visible_floor_pool(RC_FLOOR, POSE, [1], np.random.default_rng(3), step_px=20.0, margin_px=0.0,
                              max_distance_m=10.0, clear_px=0.0)
    assert len(pool) == 4 * 3
    assert pool.uv[:, 0].max() <= 63.5 and pool.uv[:, 1].max() <= 47.5
    assert pool.uv[:, 0].min() >= -0.5 and pool.uv[:, 1].min() >= -0.5


def test_floor_pool_max_distance_is_on_the_floor_plane():
    full = visible_floor_pool(RC_FLOOR, POSE, [1], np.random.default_rng(1), step_px=4.0, margin_px=0.0,
                              max_distance_m=10.0, clear_px=0.0)
    near = visible_floor_pool(RC_FLOOR, POSE, [1], np.random.default_rng(1), step_px=4.0, margin_px=0.0,
                              max_distance_m=1.0, clear_px=0.0)
    r = np.hypot(full.xyz[:, 0], full.xyz[:, 1])  # the camera is over the origin; its 2 m height does not count
    assert len(near) == int((r <= 1.0).sum()) and 0 < len(near) < len(full)
    assert np.array_equal(near.uv, full.uv[r <= 1.0])


def test_floor_pool_excludes_other_objects_and_their_disc_edges():
    pool = visible_floor_pool(RC_POST, POSE, [1], np.random.default_rng(2), step_px=2.0, margin_px=0.0,
                              max_distance_m=10.0, clear_px=0.0)
    x, y = pool.xyz[:, 0], pool.xyz[:, 1]
    # a floor hit is never under the post's silhouette (top at 21.33 px/m, foot at 16 px/m)
    assert not ((x > 0.6) & (x < 0.9) & (np.abs(y) < 0.15)).any()
    assert (pool.object_id == 1).all() and np.allclose(pool.xyz[:, 2], 0.0, atol=1e-6)
    disc = visible_floor_pool(RC_POST, POSE, [1], np.random.default_rng(2), step_px=2.0, margin_px=0.0,
                              max_distance_m=10.0, clear_px=3.0)
    assert len(disc) < len(pool)
    u_post = disc.uv[(np.abs(disc.uv[:, 1] - CY) < 2.0), 0]
    assert not ((u_post > 41.1 - 3.0) & (u_post < 50.7 + 3.0)).any()


@pytest.mark.parametrize("kw, msg", [({"step_px": 0.0}, "step_px"), ({"margin_px": 32.0}, "margin 32.0px")])
def test_pool_bad_arguments(kw, msg):
    for fn in (visible_floor_pool, visible_surface_pool):
        ids = [1] if fn is visible_floor_pool else [2]
        with pytest.raises(ValueError, match=msg):
            fn(RC_FLOOR, POSE, ids, np.random.default_rng(0), **kw)


@pytest.mark.parametrize("min_h, n_top", [(0.5, True), (0.49, True), (0.51, False)])
def test_surface_pool_min_height(min_h, n_top):
    pool = visible_surface_pool(RC_POST, POSE, [2], np.random.default_rng(0), step_px=1.0, margin_px=0.0,
                                min_height_m=min_h, clear_px=0.0)
    assert (len(pool) > 0) is n_top
    if n_top:
        assert (pool.object_id == 2).all() and (pool.xyz[:, 2] >= min_h - 1e-9).all()
    low = visible_surface_pool(RC_POST, POSE, [2], np.random.default_rng(0), step_px=1.0, margin_px=0.0,
                               min_height_m=0.0, clear_px=0.0)
    # the near side face (z < 0.5) is seen too, at height 0
    assert (low.xyz[:, 2] < 0.45).any() and len(low) > len(pool) - 0


def test_surface_pool_distance_ids_and_own_disc():
    top = visible_surface_pool(RC_POST, POSE, [2], np.random.default_rng(0), step_px=1.0, margin_px=0.0,
                               min_height_m=0.4, clear_px=0.0, max_distance_m=10.0)
    assert len(top) > 0
    r = np.hypot(top.xyz[:, 0], top.xyz[:, 1])
    cut = visible_surface_pool(RC_POST, POSE, [2], np.random.default_rng(0), step_px=1.0, margin_px=0.0,
                               min_height_m=0.4, clear_px=0.0, max_distance_m=0.8)
    assert len(cut) == int((r <= 0.8).sum()) and 0 < len(cut) < len(top)
    assert len(visible_surface_pool(RC_POST, POSE, [1], np.random.default_rng(0), step_px=2.0, margin_px=0.0,
                                    min_height_m=0.1, clear_px=0.0)) == 0  # the floor is never a surface
    # the disc must see the same object: shrinks the top face by about clear_px on every side
    disc = visible_surface_pool(RC_POST, POSE, [2], np.random.default_rng(0), step_px=1.0, margin_px=0.0,
                                min_height_m=0.4, clear_px=1.5, max_distance_m=10.0)
    assert 0 < len(disc) < len(top)


# ------------------------------------------------------------------ spacing and samplers


def hand_pool(uv, ids=None):
    uv = np.asarray(uv, float)
    x, y = xy_of(uv[:, 0], uv[:, 1])
    ids = np.ones(len(uv), np.int64) if ids is None else np.asarray(ids, np.int64)
    return HitPool(uv, np.column_stack([x, y, np.zeros(len(uv))]), ids)


def test_marker_and_pool_accessors():
    m = Marker(pixel=(1.0, 2.0), world=(3.0, 4.0, 5.0), object_id=7, kind="ground")
    assert m.uv.tolist() == [1.0, 2.0] and m.xyz.tolist() == [3.0, 4.0, 5.0] and m.xy.tolist() == [3.0, 4.0]
    pool = hand_pool([[20.0, 20.0], [30.0, 20.0], [40.0, 20.0]])
    sub = pool.subset(np.array([True, False, True]))
    assert len(sub) == 2 and sub.uv[:, 0].tolist() == [20.0, 40.0]


@pytest.mark.parametrize("spacing, n", [(10.0, 2), (10.01, 1)])
def test_ground_candidates_spacing_is_inclusive(spacing, n):
    pool = hand_pool([[30.0, 20.0], [40.0, 20.0]])
    got = sample_ground_candidates(RC_FLOOR, POSE, [1], np.random.default_rng(0), n_max=5, pool=pool,
                                   min_spacing_px=spacing, margin_px=0.0)
    assert len(got) == n and all(m.kind == "ground" and m.object_id == 1 for m in got)


def test_ground_candidates_from_a_pool_margin_distance_accept_placed_and_n_max():
    pool = hand_pool([[2.0, 20.0], [20.0, 20.0], [40.0, 20.0], [60.0, 20.0], [31.5, 23.5]])
    kw = dict(n_max=10, pool=pool, min_spacing_px=5.0)
    # margin 4 px keeps 3.5 <= u <= 59.5: drops u = 2 and u = 60
    got = sample_ground_candidates(RC_FLOOR, POSE, [1], np.random.default_rng(0), margin_px=4.0, **kw)
    assert sorted(m.pixel[0] for m in got) == [20.0, 31.5, 40.0]
    # max distance 0.6 m on the floor plane: u = 40 is 0.54 m away, u = 20 is 0.72 m
    got = sample_ground_candidates(RC_FLOOR, POSE, [1], np.random.default_rng(0), margin_px=0.0,
                                   max_distance_m=0.6, **kw)
    assert sorted(m.pixel[0] for m in got) == [31.5, 40.0]
    got = sample_ground_candidates(RC_FLOOR, POSE, [1], np.random.default_rng(0), margin_px=0.0,
                                   accept=lambda xy: xy[:, 0] > 0.0, **kw)
    assert sorted(m.pixel[0] for m in got) == [40.0, 60.0]
    placed = [Marker(pixel=(38.0, 20.0), world=(0, 0, 0), object_id=1, kind="surface")]
    got = sample_ground_candidates(RC_FLOOR, POSE, [1], np.random.default_rng(0), margin_px=0.0, placed=placed,
                                   **kw)
    assert sorted(m.pixel[0] for m in got) == [2.0, 20.0, 31.5, 60.0]  # 40 is 2 px from the placed one
    got = sample_ground_candidates(RC_FLOOR, POSE, [1], np.random.default_rng(0), margin_px=0.0,
                                   **{**kw, "n_max": 2})
    assert len(got) == 2
    assert sample_ground_candidates(RC_FLOOR, POSE, [1], np.random.default_rng(0), margin_px=0.0,
                                    **{**kw, "n_max": 0}) == []
    with pytest.raises(ValueError, match="n_max must be >= 0"):
        sample_ground_candidates(RC_FLOOR, POSE, [1], np.random.default_rng(0), **{**kw, "n_max": -1})
    m = sample_ground_candidates(RC_FLOOR, POSE, [1], np.random.default_rng(0), margin_px=0.0,
                                 **{**kw, "pool": hand_pool([[47.5, 15.5]])})[0]
    assert m.pixel == (47.5, 15.5) and m.world == pytest.approx((1.0, 0.5, 0.0))


def test_ground_candidates_cast_their_own_pool():
    got = sample_ground_candidates(RC_FLOOR, POSE, [1], np.random.default_rng(0), n_max=100, min_spacing_px=12.0,
                                   margin_px=4.0, clear_px=0.0)
    uv = np.array([m.pixel for m in got])
    d = np.hypot(*(uv[:, None, :] - uv[None, :, :]).transpose(2, 0, 1))
    assert len(got) >= 6 and (d[np.triu_indices(len(got), 1)] >= 12.0).all()
    assert (uv >= 3.5).all() and (uv[:, 0] <= 59.5).all() and (uv[:, 1] <= 43.5).all()
    for m in got:
        assert m.world == pytest.approx((*xy_of(*m.pixel), 0.0), abs=1e-5)


def test_surface_negatives_round_robin_spacing_and_arguments():
    # object 2 has four spaced points, object 3 one: two picks take one of each
    pool = hand_pool([[10.0, 10.0], [20.0, 10.0], [30.0, 10.0], [40.0, 10.0], [50.0, 30.0]], ids=[2, 2, 2, 2, 3])
    kw = dict(obstacle_ids=[3, 2], pool=pool, min_spacing_px=5.0)
    for seed in range(4):
        got = sample_surface_negatives(RC_FLOOR, POSE, np.random.default_rng(seed), n=2, **kw)
        assert sorted(m.object_id for m in got) == [2, 3] and all(m.kind == "surface" for m in got)
    got = sample_surface_negatives(RC_FLOOR, POSE, np.random.default_rng(0), n=9, **kw)
    assert len(got) == 5 and sorted(m.pixel for m in got) == sorted(map(tuple, pool.uv.tolist()))
    got = sample_surface_negatives(RC_FLOOR, POSE, np.random.default_rng(0), n=3, **kw)
    assert len(got) == 3
    # spacing 10 exactly still fits; 10.5 leaves two of object 2's row (10 px apart)
    got = sample_surface_negatives(RC_FLOOR, POSE, np.random.default_rng(0), n=9, **{**kw, "min_spacing_px": 10.0})
    assert len(got) == 5
    got = sample_surface_negatives(RC_FLOOR, POSE, np.random.default_rng(0), n=9, **{**kw, "min_spacing_px": 10.5})
    assert sum(m.object_id == 2 for m in got) == 2 and len(got) == 3
    placed = [Marker(pixel=(50.0, 31.0), world=(0, 0, 0), object_id=9, kind="ground")]
    got = sample_surface_negatives(RC_FLOOR, POSE, np.random.default_rng(0), n=9, placed=placed, **kw)
    assert [m.object_id for m in got].count(3) == 0 and len(got) == 4
    assert sample_surface_negatives(RC_FLOOR, POSE, np.random.default_rng(0), n=0, **kw) == []
    assert sample_surface_negatives(RC_FLOOR, POSE, np.random.default_rng(0), n=2, pool=pool, obstacle_ids=[]) == []
    assert sample_surface_negatives(RC_FLOOR, POSE, np.random.default_rng(0), n=2, obstacle_ids=[7],
                                    pool=hand_pool(np.zeros((0, 2)))) == []
    got = sample_surface_negatives(RC_FLOOR, POSE, np.random.default_rng(0), n=9, obstacle_ids=[3], pool=pool,
                                   min_spacing_px=5.0)
    assert [m.object_id for m in got] == [3]
    with pytest.raises(ValueError, match="n must be >= 0"):
        sample_surface_negatives(RC_FLOOR, POSE, np.random.default_rng(0), n=-1, **kw)


def test_surface_negatives_cast_their_own_pool():
    got = sample_surface_negatives(RC_POST, POSE, np.random.default_rng(0), obstacle_ids=[2], n=3,
                                   min_spacing_px=2.0, margin_px=0.0, min_height_m=0.45, clear_px=0.0)
    assert len(got) == 3
    for m in got:
        assert m.object_id == 2 and m.world[2] >= 0.45


# ------------------------------------------------------------------ start


def test_start_is_the_floor_pixel_nearest_the_bottom_centre():
    # margin 16: u in 15.5..47.5 (step 4), v scanned up from 31.5; anchor (31.5, 31.5) is a grid point
    m = start_candidate(RC_FLOOR, POSE, [1], feasible=lambda xy: np.ones(len(xy), bool), clear_px=0.0)
    assert m.pixel == (31.5, 31.5) and m.world == pytest.approx((0.0, -0.5, 0.0), abs=1e-6)
    assert m.kind == "ground" and m.object_id == 1
    # centre column infeasible: the four pixels 4 px away tie; lower wins (v = 31.5), then left (u = 27.5)
    m = start_candidate(RC_FLOOR, POSE, [1], feasible=lambda xy: np.abs(xy[:, 0]) > 0.1, clear_px=0.0)
    assert m.pixel == (27.5, 31.5)
    m = start_candidate(RC_FLOOR, POSE, [1], feasible=lambda xy: xy[:, 0] > 0.1, clear_px=0.0)
    assert m.pixel == (35.5, 31.5)
    # only the row above is feasible: nearest there is straight up
    m = start_candidate(RC_FLOOR, POSE, [1], feasible=lambda xy: xy[:, 1] > -0.4, clear_px=0.0)
    assert m.pixel == (31.5, 27.5)
    assert start_candidate(RC_FLOOR, POSE, [1], feasible=lambda xy: np.zeros(len(xy), bool)) is None
    assert start_candidate(RC_FLOOR, POSE, [7], feasible=lambda xy: np.ones(len(xy), bool)) is None


def test_start_bottom_fraction_margin_distance_and_step():
    yes = lambda xy: np.ones(len(xy), bool)  # noqa: E731
    # bottom half, margin 4: v from 43.5 up to 23.5; the lowest row is the nearest to the anchor
    m = start_candidate(RC_FLOOR, POSE, [1], feasible=yes, margin_px=4.0, clear_px=0.0)
    assert m.pixel == (31.5, 43.5)
    # a top-only predicate: bottom half keeps v >= 23.5 (Y <= 0), so nothing feasible unless fraction 1
    top = lambda xy: xy[:, 1] > 0.3  # noqa: E731
    assert start_candidate(RC_FLOOR, POSE, [1], feasible=top, margin_px=4.0, clear_px=0.0) is None
    m = start_candidate(RC_FLOOR, POSE, [1], feasible=top, margin_px=4.0, clear_px=0.0, bottom_fraction=1.0)
    assert m.pixel == (31.5, 15.5)  # Y = 0.5, the lowest row above 0.3 m (v = 19.5 is Y = 0.25)
    # bottom_fraction 0.25: v >= 35.5 (Y <= -0.75)
    m = start_candidate(RC_FLOOR, POSE, [1], feasible=lambda xy: xy[:, 1] > -0.8, margin_px=4.0, clear_px=0.0,
                        bottom_fraction=0.25)
    assert m.pixel == (31.5, 35.5)
    assert start_candidate(RC_FLOOR, POSE, [1], feasible=lambda xy: xy[:, 1] > -0.7, margin_px=4.0, clear_px=0.0,
                           bottom_fraction=0.25) is None
    # max distance (inclusive): the rows at Y = -1.25, -1.0, -0.75 are that far away
    m = start_candidate(RC_FLOOR, POSE, [1], feasible=yes, margin_px=4.0, clear_px=0.0, max_distance_m=1.0)
    assert m.pixel == (31.5, 39.5)
    m = start_candidate(RC_FLOOR, POSE, [1], feasible=yes, margin_px=4.0, clear_px=0.0, max_distance_m=0.99)
    assert m.pixel == (31.5, 35.5)
    m = start_candidate(RC_FLOOR, POSE, [1], feasible=yes, margin_px=4.0, clear_px=0.0, max_distance_m=1.26)
    assert m.pixel == (31.5, 43.5)
    # step 2: the grid from 3.5 includes u = 31.5 and the feasible neighbour at 33.5
    m = start_candidate(RC_FLOOR, POSE, [1], feasible=lambda xy: xy[:, 0] > 0.1, margin_px=4.0, clear_px=0.0,
                        step_px=2.0)
    assert m.pixel == (33.5, 43.5)


def test_start_needs_a_clear_disc():
    # post in front of the anchor: with the disc, the start moves off the post's edge
    yes = lambda xy: np.ones(len(xy), bool)  # noqa: E731
    free = start_candidate(RC_FLOOR, POSE, [1], feasible=yes, margin_px=4.0, clear_px=3.0)
    assert free.pixel == (31.5, 43.5)
    rc = Raycaster(SceneMesh.from_trimesh_parts([(1, "floor", floor_quad(-5, 5, -5, 5)),
                                                 (2, "peg", box((-0.05, -1.45, 0.0), (0.05, -1.3, 0.01)))]))
    # the peg (u 30.7..32.3, v 44.3..46.7) sits below the anchor pixel: the disc point at v = 46.5 hits it
    m = start_candidate(rc, POSE, [1], feasible=yes, margin_px=4.0, clear_px=3.0)
    assert m.pixel != (31.5, 43.5)
    m0 = start_candidate(rc, POSE, [1], feasible=yes, margin_px=4.0, clear_px=0.0)
    assert m0.pixel == (31.5, 43.5)


@pytest.mark.parametrize("frac", [0.0, -0.1, 1.01])
def test_start_bad_fraction(frac):
    with pytest.raises(ValueError, match=r"bottom_fraction must be in \(0, 1\]"):
        start_candidate(RC_FLOOR, POSE, [1], feasible=lambda xy: xy[:, 0] > 0, bottom_fraction=frac)


def test_start_margin_leaves_no_area():
    with pytest.raises(ValueError, match="margin leaves no image area"):
        start_candidate(RC_FLOOR, POSE, [1], feasible=lambda xy: xy[:, 0] > 0, margin_px=24.0)
    with pytest.raises(ValueError, match="margin leaves no image area"):  # the bottom strip is 12 px high
        start_candidate(RC_FLOOR, POSE, [1], feasible=lambda xy: xy[:, 0] > 0, margin_px=4.0, bottom_fraction=0.01)


# ------------------------------------------------------------------ insert_required


def ground(x, y, kind="ground"):
    return Marker(pixel=uv_of(x, y), world=(x, y, 0.0), object_id=1, kind=kind)


def test_insert_appends_the_exact_point():
    markers: list[Marker] = []
    i = insert_required(RC_FLOOR, POSE, [1], (0.3, 0.2, 0.0), markers, margin_px=4.0, clear_px=0.0)
    assert i == 0 and len(markers) == 1
    assert markers[0].pixel == pytest.approx((36.3, 20.3)) and markers[0].world == (0.3, 0.2, 0.0)
    assert markers[0].object_id == 1 and markers[0].kind == "ground"


def test_insert_snaps_to_the_nearest_ground_marker():
    markers = [ground(0.0, 0.0), ground(0.5, 0.0, kind="surface"), ground(0.6, 0.0), ground(0.9, 0.0)]
    # (0.45, 0): 0.15 from marker 2 (0.6), 0.05 from the surface marker (never reused), 0.45 from 0
    assert insert_required(RC_FLOOR, POSE, [1], (0.45, 0.0, 0.0), markers, snap_m=0.25) == 2
    assert insert_required(RC_FLOOR, POSE, [1], (0.45, 0.0, 0.0), markers, snap_m=0.15) == 2  # inclusive
    # accept rejects marker 2: the next nearest within snap is none, so a new marker is tried
    n = len(markers)
    i = insert_required(RC_FLOOR, POSE, [1], (0.3, 0.5, 0.0), markers, snap_m=0.25, min_spacing_px=1.0,
                        clear_px=0.0, accept=lambda xy: xy[:, 0] < 0.55)
    assert i == n and markers[-1].world == (0.3, 0.5, 0.0)
    # both within snap: nearest wins even if later in the list; equal distances go to the first
    ms = [ground(0.0, 0.2), ground(0.0, 0.1), ground(0.0, -0.1)]
    assert insert_required(RC_FLOOR, POSE, [1], (0.0, 0.05, 0.0), ms, snap_m=0.3) == 1
    assert insert_required(RC_FLOOR, POSE, [1], (0.0, 0.0, 0.0), ms, snap_m=0.3) == 1
    # accept filters the snap candidates in distance order
    assert insert_required(RC_FLOOR, POSE, [1], (0.0, 0.05, 0.0), ms, snap_m=0.3,
                           accept=lambda xy: xy[:, 1] > 0.15) == 0
    # snap 0 never snaps
    ms = [ground(0.0, 0.0)]
    assert insert_required(RC_FLOOR, POSE, [1], (0.0, 0.0, 0.0), ms, snap_m=0.0, min_spacing_px=0.0,
                           clear_px=0.0) == 1


def test_insert_spacing_nudges_alternatives_and_fallback():
    yes_y = lambda xy: xy[:, 1] > 0.05  # noqa: E731
    # nudge 0.4: centre (0, 0) and the first ring point (0.2, 0) fail accept; the 45 deg one is taken
    ms: list[Marker] = []
    i = insert_required(RC_FLOOR, POSE, [1], (0.0, 0.0, 0.0), ms, snap_m=0.0, nudge_m=0.4, accept=yes_y,
                        clear_px=0.0)
    assert i == 0 and ms[0].world == pytest.approx((0.2 * math.sqrt(0.5), 0.2 * math.sqrt(0.5), 0.0))
    # the inner ring (r = 0.2) all fails y > 0.25: the outer ring's 45 deg point
    ms = []
    insert_required(RC_FLOOR, POSE, [1], (0.0, 0.0, 0.0), ms, snap_m=0.0, nudge_m=0.4, clear_px=0.0,
                    accept=lambda xy: xy[:, 1] > 0.25)
    assert ms[0].world == pytest.approx((0.4 * math.sqrt(0.5), 0.4 * math.sqrt(0.5), 0.0))
    # spacing: an existing marker 4 px away blocks the exact point (spacing 5) but not 4
    ms = [ground(0.25, 0.0)]
    assert insert_required(RC_FLOOR, POSE, [1], (0.0, 0.0, 0.0), ms, snap_m=0.1, min_spacing_px=5.0,
                           clear_px=0.0) is None
    assert insert_required(RC_FLOOR, POSE, [1], (0.0, 0.0, 0.0), ms, snap_m=0.1, min_spacing_px=4.0,
                           clear_px=0.0) == 1
    # alternatives in order, after the point itself fails (out of frame at x = 3)
    ms = []
    i = insert_required(RC_FLOOR, POSE, [1], (3.0, 0.0, 0.0), ms, snap_m=0.0, clear_px=0.0,
                        alternatives_xy=np.array([[3.5, 0.0], [1.0, 0.25], [0.5, 0.0]]))
    assert i == 0 and ms[0].world == (1.0, 0.25, 0.0)
    assert insert_required(RC_FLOOR, POSE, [1], (3.0, 0.0, 0.0), [], snap_m=0.0, clear_px=0.0,
                           alternatives_xy=np.zeros((0, 2))) is None
    # fallback snap: out of frame, the marker 0.5 m away is reused only within fallback_snap_m
    ms = [ground(1.5, 0.0)]
    assert insert_required(RC_FLOOR, POSE, [1], (2.0, 0.0, 0.0), ms, snap_m=0.25, fallback_snap_m=0.4) is None
    assert insert_required(RC_FLOOR, POSE, [1], (2.0, 0.0, 0.0), ms, snap_m=0.25, fallback_snap_m=0.5) == 0
    assert insert_required(RC_FLOOR, POSE, [1], (2.0, 0.0, 0.0), ms, snap_m=0.25, fallback_snap_m=0.5,
                           accept=lambda xy: xy[:, 0] > 1.6) is None
    # everything rejected by accept: None, nothing appended
    ms = []
    assert insert_required(RC_FLOOR, POSE, [1], (0.0, 0.0, 0.0), ms, accept=lambda xy: xy[:, 0] > 9) is None
    assert ms == []


def test_insert_checks_visibility_depth_and_disc():
    # under the post: hidden; beside the post: its disc touches the post unless the post may share it
    ms: list[Marker] = []
    assert insert_required(RC_POST, POSE, [1], (0.75, 0.0, 0.0), ms, snap_m=0.0, clear_px=0.0) is None
    assert insert_required(RC_POST, POSE, [1], (0.55, 0.0, 0.0), ms, snap_m=0.0, clear_px=1.5) is None
    assert insert_required(RC_POST, POSE, [1], (0.55, 0.0, 0.0), ms, snap_m=0.0, clear_px=1.5,
                           disc_extra_ids=[2]) == 0
    # a point 2 cm above the floor fails the 1 cm depth check, passes a 3 cm one
    assert insert_required(RC_FLOOR, POSE, [1], (0.0, 0.5, 0.02), [], snap_m=0.0, clear_px=0.0,
                           margin_px=4.0) is None
    assert insert_required(RC_FLOOR, POSE, [1], (0.0, 0.5, 0.02), [], snap_m=0.0, clear_px=0.0,
                           depth_tol_m=0.03, margin_px=4.0) == 0
    # margin: x = 1.8 is at u = 60.3, 3.2 px from the frame's edge at 63.5
    assert insert_required(RC_FLOOR, POSE, [1], (1.8, 0.0, 0.0), [], snap_m=0.0, clear_px=0.0,
                           margin_px=3.0) == 0
    assert insert_required(RC_FLOOR, POSE, [1], (1.8, 0.0, 0.0), [], snap_m=0.0, clear_px=0.0,
                           margin_px=3.5) is None


def test_insert_marker_takes_the_floor_id_the_ray_hits():
    rc = Raycaster(SceneMesh.from_trimesh_parts([(1, "floor", floor_quad(-5, 0, -5, 5)),
                                                 (4, "rug", floor_quad(0, 5, -5, 5))]))
    ms: list[Marker] = []
    insert_required(rc, POSE, [1, 4], (0.5, 0.0, 0.0), ms, snap_m=0.0, clear_px=0.0, min_spacing_px=1.0)
    insert_required(rc, POSE, [1, 4], (-0.5, 0.0, 0.0), ms, snap_m=0.0, clear_px=0.0, min_spacing_px=1.0)
    assert [m.object_id for m in ms] == [4, 1]


# ------------------------------------------------------------------ side camera, defaults and bounds
#
# A second camera off the origin, C = (1, 2, 2), looking along world +x: image x is world -y, image y is
# world -z; W x H = 160 x 120, f = 256, principal point (79.5, 59.5). A point at depth dx = x - 1 shows at
# u = 79.5 - 256 (y - 2) / dx, v = 59.5 - 256 (z - 2) / dx. With the default margin 16 px the pool grid's
# cells start at 15.5 + 8k: 16 columns (15.5 .. 135.5 < 143.5) by 11 rows (15.5 .. 95.5 < 103.5).

SW, SH, SF = 160, 120, 256.0
SC = np.array([1.0, 2.0, 2.0])


def side_pose() -> CameraPose:
    T = np.eye(4)
    T[:3, 0], T[:3, 1], T[:3, 2], T[:3, 3] = (0, -1, 0), (0, 0, -1), (1, 0, 0), SC
    lens = PhoneLens(name="main", focal_mm=6.0, sensor_width_mm=8.0, sensor_height_mm=6.0,
                     fnumber=1.8, equiv_focal_mm=26.0)
    K = [[SF, 0.0, (SW - 1) / 2], [0.0, SF, (SH - 1) / 2], [0.0, 0.0, 1.0]]
    return CameraPose(width=SW, height=SH, K=K, cam_to_world=T.tolist(), orientation="landscape",
                      lens=lens, sensor_width_mm=8.0, focus_mode="pinhole", focus_distance_m=None,
                      shutter_s=0.01)


def wall_x(x, y0, y1, z0=-5.0, z1=10.0) -> trimesh.Trimesh:
    v = np.array([[x, y0, z0], [x, y1, z0], [x, y1, z1], [x, y0, z1]], float)
    return trimesh.Trimesh(v, [[0, 1, 2], [0, 2, 3]], process=False)


SIDE = side_pose()
# a wall 6 m ahead fills the frame: y in 2 -+ 1.875, z in 2 -+ 1.41 (all >= 0.59 m), floor distance <= 6.3 m
RC_WALL = Raycaster(SceneMesh.from_trimesh_parts([(2, "wall", wall_x(7.0, -20.0, 20.0))]))
# a wall 7.8 m ahead: floor distance hypot(7.8, y - 2) runs from 7.8 (centre) to 8.17 (edges), 8 m at |y - 2| = 1.78
RC_FAR = Raycaster(SceneMesh.from_trimesh_parts([(2, "wall", wall_x(8.8, -20.0, 20.0))]))
# the 6 m wall behind a screen (id 5) 5 m ahead covering y < 2, i.e. the image right of u = 79.5
RC_EDGE = Raycaster(SceneMesh.from_trimesh_parts([(2, "wall", wall_x(7.0, -20.0, 20.0)),
                                                  (5, "screen", wall_x(6.0, -20.0, 2.0))]))


def floor_dist(xyz):
    return np.hypot(xyz[:, 0] - SC[0], xyz[:, 1] - SC[1])


def test_surface_pool_defaults_grid_margin_and_height():
    # defaults: step 8, margin 16, min height 0.10 (every wall point is >= 0.59 m up), one point per cell
    pool = visible_surface_pool(RC_WALL, SIDE, [2], np.random.default_rng(0))
    us, vs = 15.5 + 8.0 * np.arange(16), 15.5 + 8.0 * np.arange(11)
    base = np.array([(u, v) for v in vs for u in us])
    assert len(pool) == 176
    off = pool.uv - base
    assert (off >= 0).all() and (off < 8.0).all()
    assert pool.object_id.dtype == np.int64 and set(pool.object_id.tolist()) == {2}
    assert np.allclose(pool.xyz[:, 0], 7.0) and pool.xyz[:, 2].min() < 1.0
    # the hit point is where the pixel's ray meets the wall (u = 79.5 - 256 (y - 2) / 6)
    assert np.allclose(pool.uv[:, 0], 79.5 - SF * (pool.xyz[:, 1] - 2.0) / 6.0, atol=1e-6)
    assert np.allclose(pool.uv[:, 1], 59.5 - SF * (pool.xyz[:, 2] - 2.0) / 6.0, atol=1e-6)


def test_surface_pool_default_distance_is_8m_from_the_camera_on_the_floor_plane():
    full = visible_surface_pool(RC_FAR, SIDE, [2], np.random.default_rng(4), max_distance_m=100.0)
    r = floor_dist(full.xyz)
    assert (r > 8.0).any() and (r <= 8.0).any() and r.max() < 9.0
    near = visible_surface_pool(RC_FAR, SIDE, [2], np.random.default_rng(4))
    assert np.array_equal(near.uv, full.uv[r <= 8.0])
    cut = visible_surface_pool(RC_FAR, SIDE, [2], np.random.default_rng(4), max_distance_m=7.9)
    assert np.array_equal(cut.uv, full.uv[r <= 7.9])


def test_surface_pool_distance_and_height_bounds_are_inclusive():
    full = visible_surface_pool(RC_FAR, SIDE, [2], np.random.default_rng(5), max_distance_m=100.0,
                                min_height_m=-100.0)
    r, z = floor_dist(full.xyz), full.xyz[:, 2]
    k = int(np.argmax(r))
    assert len(visible_surface_pool(RC_FAR, SIDE, [2], np.random.default_rng(5), max_distance_m=float(r[k]),
                                    min_height_m=-100.0)) == len(full)
    assert len(visible_surface_pool(RC_FAR, SIDE, [2], np.random.default_rng(5),
                                    max_distance_m=float(np.nextafter(r[k], 0)), min_height_m=-100.0)) == len(full) - 1
    j = int(np.argmin(z))
    assert len(visible_surface_pool(RC_FAR, SIDE, [2], np.random.default_rng(5), max_distance_m=100.0,
                                    min_height_m=float(z[j]))) == len(full)
    assert len(visible_surface_pool(RC_FAR, SIDE, [2], np.random.default_rng(5), max_distance_m=100.0,
                                    min_height_m=float(np.nextafter(z[j], 10)))) < len(full)


def test_surface_pool_default_disc_is_3px():
    # the screen's edge is at u = 79.5; a wall point's disc (rounded centre, 8 points at 3 px) misses the
    # screen iff u + 3 <= 79.5. Over several seeds some kept points lie 3..4 px from the edge.
    band = 0
    for seed in range(6):
        bare = visible_surface_pool(RC_EDGE, SIDE, [2], np.random.default_rng(seed), clear_px=0.0)
        disc = visible_surface_pool(RC_EDGE, SIDE, [2], np.random.default_rng(seed))
        u = bare.uv[:, 0]
        assert (u < 79.5).all()  # the screen hides the wall right of its edge
        assert np.array_equal(disc.uv, bare.uv[u <= 76.5])
        band += int(((u > 75.5) & (u <= 76.5)).sum())
    assert band > 0


@pytest.mark.parametrize("fn, ids, msg", [(visible_floor_pool, [1], "step_px must be positive"),
                                          (visible_surface_pool, [2], "step_px must be positive")])
def test_pool_step_message_is_exact(fn, ids, msg):
    with pytest.raises(ValueError, match=f"^{msg}$"):
        fn(RC_FLOOR, POSE, ids, np.random.default_rng(0), step_px=0.0)


def test_surface_negatives_one_pick_one_point_pool_and_exact_message():
    pool = hand_pool([[10.0, 10.0], [50.0, 30.0]], ids=[2, 3])
    got = sample_surface_negatives(RC_FLOOR, POSE, np.random.default_rng(0), obstacle_ids=[2, 3], n=1, pool=pool)
    assert len(got) == 1 and got[0].kind == "surface"
    one = hand_pool([[20.0, 20.0]], ids=[2])
    got = sample_surface_negatives(RC_FLOOR, POSE, np.random.default_rng(0), obstacle_ids=[2], n=5, pool=one)
    assert [(m.pixel, m.object_id) for m in got] == [((20.0, 20.0), 2)]
    with pytest.raises(ValueError, match=r"^n must be >= 0$"):
        sample_surface_negatives(RC_FLOOR, POSE, np.random.default_rng(0), obstacle_ids=[2], n=-1, pool=one)


def test_surface_negatives_with_nothing_to_do_draw_nothing_from_the_rng():
    # n = 0 (or no obstacles) returns before any cast or shuffle, so later stages see the same stream
    for kw in (dict(obstacle_ids=[2], n=0), dict(obstacle_ids=[], n=3)):
        rng = np.random.default_rng(7)
        assert sample_surface_negatives(RC_POST, POSE, rng, **kw) == []
        assert rng.random() == np.random.default_rng(7).random()


def test_surface_negatives_default_spacing_is_40px():
    # two points of one object exactly 40 px apart both fit; 39 px apart only one does
    pool = hand_pool([[10.0, 10.0], [50.0, 10.0]], ids=[2, 2])
    assert len(sample_surface_negatives(RC_FLOOR, POSE, np.random.default_rng(0), obstacle_ids=[2], n=5,
                                        pool=pool)) == 2
    pool = hand_pool([[10.0, 10.0], [49.0, 10.0]], ids=[2, 2])
    assert len(sample_surface_negatives(RC_FLOOR, POSE, np.random.default_rng(0), obstacle_ids=[2], n=5,
                                        pool=pool)) == 1


def test_surface_negatives_cast_pool_with_default_distance_margin_and_disc():
    # spacing 1 px -> pool step 2: nearly every pool point becomes a marker
    kw = dict(obstacle_ids=[2], n=10_000, min_spacing_px=1.0)
    got = sample_surface_negatives(RC_FAR, SIDE, np.random.default_rng(0), **kw)
    uv, xyz = np.array([m.pixel for m in got]), np.array([m.world for m in got])
    r = floor_dist(xyz)
    assert len(got) > 500 and r.max() <= 8.0 and r.max() > 7.99  # default 8 m, reached at the sides
    got = sample_surface_negatives(RC_WALL, SIDE, np.random.default_rng(0), **kw)
    uv = np.array([m.pixel for m in got])
    assert uv.min() >= 15.5 and uv[:, 0].min() < 16.5 and uv[:, 1].min() < 16.5  # default margin 16 px
    assert uv[:, 0].max() <= 143.5 and uv[:, 1].max() <= 103.5
    got = sample_surface_negatives(RC_EDGE, SIDE, np.random.default_rng(0), **kw)
    u = np.array([m.pixel[0] for m in got])
    assert u.max() <= 76.5 and u.max() > 75.5  # default disc 3 px off the screen's edge at 79.5


def test_surface_negatives_pass_distance_margin_and_height_to_their_pool():
    kw = dict(obstacle_ids=[2], n=10_000, min_spacing_px=1.0)
    got = sample_surface_negatives(RC_FAR, SIDE, np.random.default_rng(0), max_distance_m=7.9, **kw)
    assert len(got) > 100 and floor_dist(np.array([m.world for m in got])).max() <= 7.9
    got = sample_surface_negatives(RC_WALL, SIDE, np.random.default_rng(0), margin_px=40.0, **kw)
    uv = np.array([m.pixel for m in got])
    assert uv.min() >= 39.5 and uv[:, 0].max() <= 119.5 and uv[:, 1].max() <= 79.5
    got = sample_surface_negatives(RC_WALL, SIDE, np.random.default_rng(0), min_height_m=1.5, **kw)
    z = np.array([m.world[2] for m in got])
    assert len(got) > 100 and z.min() >= 1.5


def test_insert_nudges_are_the_centre_and_two_rings_of_eight():
    # accept sees every candidate once, in order: the point, 8 at nudge/2 (0, 45, ... 315 deg), 8 at nudge
    seen = []

    def accept(xy):
        seen.append(np.array(xy))
        return np.zeros(len(xy), bool)

    assert insert_required(RC_FLOOR, POSE, [1], (0.5, 0.25, 0.0), [], snap_m=0.0, nudge_m=0.4, accept=accept) is None
    a = np.arange(8) * np.pi / 4
    ring = np.column_stack([np.cos(a), np.sin(a)])
    want = np.vstack([[0.0, 0.0], 0.2 * ring, 0.4 * ring]) + [0.5, 0.25]
    assert len(seen) == 1 and seen[0].shape == (17, 2)
    assert np.allclose(seen[0], want, atol=1e-12)


def test_floor_visibility_defaults_no_margin_1cm_depth_no_disc():
    # x = -1.99 is at u = -0.34 (in frame only without a margin); z = 0.011 is 1.1 cm off the floor hit;
    # (0.55, 0, 0) at u = 40.3 is 0.8 px from the post's foot (a 1 px disc would touch it)
    assert floor_visibility(RC_FLOOR, POSE, [1], [[-1.99, 0.0, 0.0]])[0].tolist() == [True]
    assert floor_visibility(RC_FLOOR, POSE, [1], [[0.0, 0.0, 0.011], [0.0, 0.0, 0.009]])[0].tolist() == [False, True]
    assert floor_visibility(RC_POST, POSE, [1], [[0.55, 0.0, 0.0]])[0].tolist() == [True]


def test_floor_visibility_depth_tolerance_is_inclusive():
    # (0, 0, 0.25): the ray hits the floor at t = 2, the point is 1.75 away, |t - dist| = 0.25 exactly
    assert floor_visibility(RC_FLOOR, POSE, [1], [[0.0, 0.0, 0.25]], depth_tol_m=0.25)[0].tolist() == [True]
    assert floor_visibility(RC_FLOOR, POSE, [1], [[0.0, 0.0, 0.25]], depth_tol_m=0.2499)[0].tolist() == [False]


def test_floor_visibility_centre_pixel_on_a_shared_disc_object_is_hidden():
    # a rug (id 2) 1 mm up covers x 0.3 .. 0.4875: its edge shows at u = 31.5 + 32 * 0.4875 / 1.999 = 39.30.
    # (0.49, 0, 0) is floor at u = 39.34, but its rounded centre pixel u = 39 shows the rug.
    rug = floor_quad(0.3, 0.4875, -0.5, 0.5)
    rug.vertices[:, 2] = 0.001
    rc = Raycaster(SceneMesh.from_trimesh_parts([(1, "floor", floor_quad(-5, 5, -5, 5)), (2, "rug", rug)]))
    p = [[0.49, 0.0, 0.0]]
    assert floor_visibility(rc, POSE, [1], p)[0].tolist() == [True]  # no disc: the point itself is floor
    assert floor_visibility(rc, POSE, [1], p, clear_px=0.01, disc_extra_ids=[2])[0].tolist() == [False]
    assert floor_visibility(rc, POSE, [1], [[0.52, 0.0, 0.0]], clear_px=0.01,
                            disc_extra_ids=[2])[0].tolist() == [True]  # u = 39.82 rounds to 40: floor


def test_project_quietly_gives_no_pixel_in_the_camera_plane():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ok, uv = floor_visibility(RC_FLOOR, POSE, [1], [[1.0, 0.0, 2.0], [0.0, 0.0, 2.0], [1.0, 0.5, 0.0]])
    assert ok.tolist() == [False, False, True] and np.isnan(uv[:2]).all()


def test_insert_defaults_spacing_40px_and_disc_3px():
    # an existing marker (24, 32) px away from the image centre is exactly 40 px away: the centre still fits
    far = Marker(pixel=(7.5, -8.5), world=(-1.5, 2.0, 0.0), object_id=1, kind="ground")
    ms = [far]
    assert insert_required(RC_FLOOR, POSE, [1], (0.0, 0.0, 0.0), ms) == 1
    ms = [Marker(pixel=(7.5, -7.5), world=(-1.5, 2.0, 0.0), object_id=1, kind="ground")]  # 39.4 px
    assert insert_required(RC_FLOOR, POSE, [1], (0.0, 0.0, 0.0), ms) is None
    # x = 0.38125 is at u = 37.6, 3.5 px from the post's foot at 41.1: a 3 px disc is clear, 4 px is not
    assert insert_required(RC_POST, POSE, [1], (0.38125, 0.0, 0.0), []) == 0
    assert insert_required(RC_POST, POSE, [1], (0.38125, 0.0, 0.0), [], clear_px=4.0) is None


@pytest.mark.parametrize("nudge", [0.0, -0.4])
def test_insert_without_a_positive_nudge_tries_the_point_alone(nudge):
    seen = []

    def accept(xy):
        seen.append(np.array(xy))
        return np.zeros(len(xy), bool)

    assert insert_required(RC_FLOOR, POSE, [1], (0.5, 0.25, 0.0), [], snap_m=0.0, nudge_m=nudge,
                           accept=accept) is None
    assert len(seen) == 1 and seen[0].tolist() == [[0.5, 0.25]]


def test_snap_passes_floor_plane_xy_and_breaks_ties_by_index():
    seen = []

    def accept(xy):
        seen.append(np.array(xy))
        return np.arange(len(xy)) > 0  # the nearest (first) candidate is rejected

    # 40 ground markers at one spot: all tie, so after rejecting the first the next by index is taken
    ms = [ground(0.5, 0.25) for _ in range(40)]
    assert insert_required(RC_FLOOR, POSE, [1], (0.5, 0.3, 0.0), ms, snap_m=0.1, accept=accept) == 1
    assert seen[0].shape == (40, 2) and np.allclose(seen[0], [0.5, 0.25])


def side_pool(uv, dxy):
    """Hand pool for the side camera: pixels uv with floor points at offsets dxy from the camera's foot."""
    uv, dxy = np.asarray(uv, float), np.asarray(dxy, float)
    xyz = np.column_stack([SC[0] + dxy[:, 0], SC[1] + dxy[:, 1], np.zeros(len(uv))])
    return HitPool(uv, xyz, np.ones(len(uv), np.int64))


def ground_uv(pool, **kw):
    got = sample_ground_candidates(RC_FLOOR, SIDE, [1], np.random.default_rng(0), n_max=99, pool=pool, **kw)
    return sorted(m.pixel for m in got)


def test_ground_candidates_pool_defaults_spacing_margin_and_distance():
    # default spacing 40 px: 40 apart both fit, 39 apart only one
    assert len(ground_uv(side_pool([[40.0, 60.0], [80.0, 60.0]], [[1, 0], [1, 0]]))) == 2
    assert len(ground_uv(side_pool([[40.0, 60.0], [79.0, 60.0]], [[1, 0], [1, 0]]))) == 1
    # default margin 16 px: u = 15.5 is in, 15.4 is out
    assert ground_uv(side_pool([[15.5, 20.0], [15.4, 80.0]], [[1, 0], [1, 0]])) == [(15.5, 20.0)]
    # default 8 m on the floor plane from the camera at (1, 2): exactly 8 is in, 8.5 is out
    assert ground_uv(side_pool([[60.0, 60.0], [120.0, 60.0]], [[8.0, 0.0], [8.5, 0.0]])) == [(60.0, 60.0)]
    assert ground_uv(side_pool([[60.0, 60.0], [120.0, 60.0]], [[0.0, -8.0], [0.0, 8.5]])) == [(60.0, 60.0)]
    assert ground_uv(side_pool([[60.0, 60.0]], [[4.8, 6.4]]), max_distance_m=8.0) == [(60.0, 60.0)]
    assert ground_uv(side_pool([[60.0, 60.0]], [[4.8, 6.4]]), max_distance_m=7.99) == []


def test_ground_candidates_one_pick_exact_message_and_rng_untouched_when_n_max_is_0():
    pool = side_pool([[40.0, 60.0], [80.0, 60.0]], [[1, 0], [1, 0]])
    assert len(sample_ground_candidates(RC_FLOOR, SIDE, [1], np.random.default_rng(0), n_max=1, pool=pool)) == 1
    rng = np.random.default_rng(7)
    assert sample_ground_candidates(RC_FLOOR, SIDE, [1], rng, n_max=0, pool=pool) == []
    assert rng.random() == np.random.default_rng(7).random()
    with pytest.raises(ValueError, match=r"^n_max must be >= 0$"):
        sample_ground_candidates(RC_FLOOR, SIDE, [1], np.random.default_rng(0), n_max=-1, pool=pool)


def test_ground_candidates_accept_sees_floor_plane_xy():
    seen = []

    def accept(xy):
        seen.append(np.array(xy))
        return np.ones(len(xy), bool)

    pool = side_pool([[40.0, 60.0], [80.0, 60.0]], [[1, 0], [1, 0.5]])
    assert len(ground_uv(pool, accept=accept)) == 2
    assert len(seen) == 1 and seen[0].tolist() == [[2.0, 2.0], [2.0, 2.5]]


def test_ground_candidates_cast_pool_step_follows_spacing_and_disc_is_passed():
    # spacing 2 px -> pool step 2 (not the pool's own 8): far more than the 35 cells of an 8 px grid
    got = sample_ground_candidates(RC_FLOOR, POSE, [1], np.random.default_rng(0), n_max=10_000, min_spacing_px=2.0,
                                   margin_px=4.0, clear_px=0.0)
    assert len(got) > 100
    # the post's foot is at u = 41.1 (rows v 21.1 .. 25.9): default disc 3 px keeps markers at u <= 38.1,
    # some of them past 37.1; with clear_px 0 some sit closer than 3 px
    kw = dict(n_max=10_000, min_spacing_px=1.0)
    band, close = 0, 0
    for seed in range(4):
        d = sample_ground_candidates(RC_POST, POSE, [1], np.random.default_rng(seed), **kw)
        u = np.array([m.pixel[0] for m in d if 21.5 < m.pixel[1] < 25.5])
        assert not ((u > 38.1) & (u < 50.7 + 3.0)).any()
        band += int(((u > 37.1) & (u <= 38.1)).sum())
        z = sample_ground_candidates(RC_POST, POSE, [1], np.random.default_rng(seed), clear_px=0.0, **kw)
        u0 = np.array([m.pixel[0] for m in z if 21.5 < m.pixel[1] < 25.5])
        close += int(((u0 > 38.2) & (u0 < 41.1)).sum())
    assert band > 0 and close > 0


def high_pose() -> CameraPose:
    # the down camera raised to 16 m: 2 px per metre, X = (u - 31.5) / 2, Y = (23.5 - v) / 2
    p = down_pose()
    T = np.array(p.cam_to_world)
    T[2, 3] = 16.0
    return p.model_copy(update={"cam_to_world": T.tolist()})


RC_BIG = Raycaster(SceneMesh.from_trimesh_parts([(1, "floor", floor_quad(-50, 50, -50, 50))]))


def test_start_default_distance_8m_and_disc_3px():
    # margin 4, step 4: rows v 43.5, 39.5, 35.5 are Y -10, -8, -6; columns 27.5 / 35.5 are X -+2.
    # |X| > 1 and Y < -7 leaves only points more than 8 m away ((-+2, -8) is 8.25 m): none by default
    far = lambda xy: (np.abs(xy[:, 0]) > 1) & (xy[:, 1] < -7)  # noqa: E731
    assert start_candidate(RC_BIG, high_pose(), [1], feasible=far, margin_px=4.0, clear_px=0.0) is None
    m = start_candidate(RC_BIG, high_pose(), [1], feasible=far, margin_px=4.0, clear_px=0.0, max_distance_m=8.25)
    assert m.pixel == (27.5, 39.5)
    # the peg below the anchor (v 44.3 .. 46.7) is hit by the default 3 px disc point (v 46.5), not by a 4 px one
    rc = Raycaster(SceneMesh.from_trimesh_parts([(1, "floor", floor_quad(-5, 5, -5, 5)),
                                                 (2, "peg", box((-0.05, -1.45, 0.0), (0.05, -1.3, 0.01)))]))
    yes = lambda xy: np.ones(len(xy), bool)  # noqa: E731
    assert start_candidate(rc, POSE, [1], feasible=yes, margin_px=4.0).pixel != (31.5, 43.5)
    assert start_candidate(rc, POSE, [1], feasible=yes, margin_px=4.0, clear_px=4.0).pixel == (31.5, 43.5)


def test_start_scan_edges_are_the_margin_and_the_bottom_fraction():
    kw = dict(margin_px=4.0, clear_px=0.0, step_px=1.0)
    # step 1 from u = 3.5: the last column is the margin's 59.5 (X = 1.75), never 60.5
    assert start_candidate(RC_FLOOR, POSE, [1], feasible=lambda xy: xy[:, 0] > 1.74, **kw).pixel == (59.5, 43.5)
    assert start_candidate(RC_FLOOR, POSE, [1], feasible=lambda xy: xy[:, 0] > 1.76, **kw) is None
    # bottom_fraction 1: the top row is the margin's v = 3.5 (Y = 1.25), never 2.5
    assert start_candidate(RC_FLOOR, POSE, [1], feasible=lambda xy: xy[:, 1] > 1.24, bottom_fraction=1.0,
                           **kw).pixel == (31.5, 3.5)
    assert start_candidate(RC_FLOOR, POSE, [1], feasible=lambda xy: xy[:, 1] > 1.26, bottom_fraction=1.0, **kw) is None
    # bottom_fraction 0.5: the top row is v = 23.5 (Y = 0), never 22.5
    assert start_candidate(RC_FLOOR, POSE, [1], feasible=lambda xy: xy[:, 1] > -0.01, **kw).pixel == (31.5, 23.5)
    assert start_candidate(RC_FLOOR, POSE, [1], feasible=lambda xy: xy[:, 1] > 0.03, **kw) is None


def test_start_errors_are_exact_and_a_zero_width_strip_is_no_area():
    with pytest.raises(ValueError, match=r"^bottom_fraction must be in \(0, 1\]$"):
        start_candidate(RC_FLOOR, POSE, [1], feasible=lambda xy: xy[:, 0] > 0, bottom_fraction=0.0)
    # 48 x 64 portrait, margin 24: hi_u = 47.5 - 24 = 23.5 = lo_u (no width) while rows remain (31.5 .. 39.5)
    with pytest.raises(ValueError, match=r"^margin leaves no image area$"):
        start_candidate(RC_FLOOR, down_pose(48, 64), [1], feasible=lambda xy: xy[:, 0] > 0, margin_px=24.0)


def test_start_anchor_ties_and_off_origin_distance():
    # step 1: the anchor column is u = 31.5 exactly ((W - 1) / 2), not its neighbour 30.5
    yes = lambda xy: np.ones(len(xy), bool)  # noqa: E731
    assert start_candidate(RC_FLOOR, POSE, [1], feasible=yes, margin_px=4.0, clear_px=0.0,
                           step_px=1.0).pixel == (31.5, 43.5)
    # anchor (31.5, 31.5) excluded: three pixels 4 px away tie; lower (v = 31.5) beats upper, then left
    not_anchor = lambda xy: np.hypot(xy[:, 0], xy[:, 1] + 0.5) > 0.01  # noqa: E731
    assert start_candidate(RC_FLOOR, POSE, [1], feasible=not_anchor, clear_px=0.0).pixel == (27.5, 31.5)
    # the camera moved to (1, 2, 2): distances are from its foot; rows Y - 2 = -1.25, -1.0 are that far
    p = down_pose()
    T = np.array(p.cam_to_world)
    T[0, 3], T[1, 3] = 1.0, 2.0
    moved = p.model_copy(update={"cam_to_world": T.tolist()})
    seen = []

    def feas(xy):
        seen.append(np.array(xy))
        return np.ones(len(xy), bool)

    m = start_candidate(RC_BIG, moved, [1], feasible=feas, margin_px=4.0, clear_px=0.0, max_distance_m=1.0)
    assert m.pixel == (31.5, 39.5) and m.world == pytest.approx((1.0, 1.0, 0.0), abs=1e-6)
    assert seen[0].shape[1] == 2


def test_project_depth_1e9_is_still_no_pixel():
    # camera at the origin looking down: (0.5, 0, -1e-9) is exactly 1e-9 m in front, the inclusive cut
    p = down_pose()
    T = np.array(p.cam_to_world)
    T[2, 3] = 0.0
    at0 = p.model_copy(update={"cam_to_world": T.tolist()})
    ok, uv = floor_visibility(RC_FLOOR, at0, [1], [[0.5, 0.0, -1e-9], [0.5, 0.0, -1e-3]])
    assert ok.tolist() == [False, False] and np.isnan(uv[0]).all()
    assert uv[1] == pytest.approx((31.5 + 32.0 * 500.0, 23.5))  # 1 mm in front: a (far off-image) pixel


def test_floor_pool_defaults_grid_distance_and_disc():
    # 160 x 120 down camera at 2 m (16 px per metre): default step 8 and margin 16 give 16 x 11 cells
    pool = visible_floor_pool(RC_BIG, down_pose(160, 120), [1], np.random.default_rng(0))
    us, vs = 15.5 + 8.0 * np.arange(16), 15.5 + 8.0 * np.arange(11)
    off = pool.uv - np.array([(u, v) for v in vs for u in us])
    assert len(pool) == 176 and (off >= 0).all() and (off < 8.0).all()
    # the 16 m high camera sees floor up to 16 m away: by default only <= 8 m is kept
    full = visible_floor_pool(RC_BIG, high_pose(), [1], np.random.default_rng(1), margin_px=0.0, max_distance_m=100.0)
    r = np.hypot(full.xyz[:, 0], full.xyz[:, 1])
    assert ((r > 8.0) & (r <= 9.0)).any()
    near = visible_floor_pool(RC_BIG, high_pose(), [1], np.random.default_rng(1), margin_px=0.0)
    assert np.array_equal(near.uv, full.uv[r <= 8.0])
    # default disc 3 px: beside the post's foot (u = 41.1) floor markers stop at u = 38.1
    band = 0
    for seed in range(4):
        d = visible_floor_pool(RC_POST, POSE, [1], np.random.default_rng(seed), step_px=1.0, margin_px=0.0)
        u = d.uv[(d.uv[:, 1] > 21.5) & (d.uv[:, 1] < 25.5), 0]
        assert not ((u > 38.1) & (u < 50.7 + 3.0)).any()
        band += int(((u > 37.1) & (u <= 38.1)).sum())
    assert band > 0
    # a 1 px step is valid (only steps <= 0 are refused)
    assert len(visible_floor_pool(RC_FLOOR, POSE, [1], np.random.default_rng(0), step_px=1.0, margin_px=16.0,
                                  clear_px=0.0)) == 32 * 16
