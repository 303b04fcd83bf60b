"""scorers.rail_attachment: the pure core against hand geometry, without Blender.

A pinhole camera 1 m in front of the origin looking along +y; world x maps to +u and world
z to -v, so a point (x, 1, z) lands at (cx + f x, cy - f z). Ray casts run on two small
trimesh quads (a target and an occluder) through the project's own Raycaster.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
import trimesh

import scorers.rail_attachment as ra
from geometry.camera import look_at, pose_for_phone, sample_phone
from geometry.raycast import Raycaster, SceneMesh
from scorers.terms import Verdict, first_failure, verdict_of

PHONE = sample_phone(np.random.default_rng(0))


def pose_at(eye, target, long_side=640, mode="pinhole", focus=None, shutter=1 / 250):
    return pose_for_phone(PHONE, "main", 1.0, "landscape", long_side, look_at(eye, target), mode, focus, shutter)


POSE = pose_at([0.0, 0.0, 0.0], [0.0, 1.0, 0.0])


def by_name(terms):
    return {t.name: t for t in terms}


def test_part_names_follow_the_variant():
    full = SimpleNamespace(attachment=3, lag_present=True, flashing_present=True)
    assert ra.part_names(full) == {"foot": "l_foot_3", "bolt": "lag_bolt_3", "flashing": "flashing_3"}
    no_lag = SimpleNamespace(attachment=0, lag_present=False, flashing_present=True)
    assert ra.part_names(no_lag) == {"foot": "l_foot_0", "flashing": "flashing_0"}
    no_flash = SimpleNamespace(attachment=1, lag_present=True, flashing_present=False)
    assert ra.part_names(no_flash) == {"foot": "l_foot_1", "bolt": "lag_bolt_1"}


def _px(x, z, y=1.0):
    K = POSE.K_array()
    return K[0, 2] + K[0, 0] * x / y, K[1, 2] - K[1, 1] * z / y


def test_bbox_fraction_of_a_square_in_front():
    P = np.array([[-0.1, 1.0, -0.05], [0.1, 1.0, 0.05], [0.0, 1.0, 0.0]])
    (u0, v1), (u1, v0) = _px(-0.1, -0.05), _px(0.1, 0.05)
    want = (u1 - u0) * (v1 - v0) / (POSE.width * POSE.height)
    assert ra.bbox_fraction(P, POSE) == pytest.approx(want, rel=1e-9)
    f = POSE.K_array()[0, 0]
    assert want == pytest.approx(0.2 * 0.1 * f * f / (640 * 480), rel=1e-9)


def test_bbox_fraction_clips_to_the_frame_edges_half_a_pixel_out():
    W, H = POSE.width, POSE.height
    # a box far wider and taller than the frame covers it exactly
    big = np.array([[-10.0, 1.0, -10.0], [10.0, 1.0, 10.0]])
    assert ra.bbox_fraction(big, POSE) == pytest.approx(1.0)
    # crossing the bottom edge only: its height is cut at v = H - 0.5
    (ua, va), (ub, vb) = _px(-0.1, 0.0), _px(0.1, -10.0)
    crossing = np.array([[-0.1, 1.0, 0.0], [0.1, 1.0, -10.0]])
    assert ra.bbox_fraction(crossing, POSE) == pytest.approx((ub - ua) * (H - 0.5 - va) / (W * H), rel=1e-9)
    # crossing the right edge only: its width is cut at u = W - 0.5
    right = np.array([[0.0, 1.0, -0.1], [10.0, 1.0, 0.1]])
    (u0, v1), (_, v0) = _px(0.0, -0.1), _px(0.0, 0.1)
    assert ra.bbox_fraction(right, POSE) == pytest.approx((W - 0.5 - u0) * (v1 - v0) / (W * H), rel=1e-9)
    # crossing the top-left corner
    tl = np.array([[-10.0, 1.0, 10.0], [0.0, 1.0, 0.0]])
    cu, cv = _px(0.0, 0.0)
    assert ra.bbox_fraction(tl, POSE) == pytest.approx((cu + 0.5) * (cv + 0.5) / (W * H), rel=1e-9)


def test_bbox_fraction_ignores_points_behind_the_camera():
    P = np.array([[-0.1, 1.0, -0.05], [0.1, 1.0, 0.05], [5.0, -1.0, 5.0]])
    assert ra.bbox_fraction(P, POSE) == pytest.approx(ra.bbox_fraction(P[:2], POSE))
    assert ra.bbox_fraction(np.array([[0.0, -1.0, 0.0], [0.1, -2.0, 0.0]]), POSE) == 0.0
    assert ra.bbox_fraction(np.array([[0.0, 0.0, 0.0]]), POSE) == 0.0      # at the centre: z = 0


def _quad(x0, x1, z0, z1, y):
    return trimesh.Trimesh(vertices=[[x0, y, z0], [x1, y, z0], [x1, y, z1], [x0, y, z1]], faces=[[0, 1, 2], [0, 2, 3]])


def test_first_hit_is_own_part_occluder_or_nothing():
    target = _quad(-0.5, 0.5, -0.5, 0.5, 2.0)
    occluder = _quad(0.0, 0.5, -0.5, 0.5, 1.0)              # hides the target's x > 0 half
    rc = Raycaster(SceneMesh.from_trimesh_parts([(1, "l_foot_0", target), (2, "wall", occluder)]))
    C = np.zeros(3)
    P = np.array([[-0.25, 2.0, 0.0], [0.25, 2.0, 0.0], [-0.25, 1.5, 0.0], [0.25, 1.5, 0.0],
                  [-0.25, 3.0, 0.0], [0.0, 0.0, 0.0]])
    # on the target, left: visible; right: behind the wall; in free air on the left: nothing
    # before it; in air behind the wall: hidden; behind the target: seen, since the target's
    # own parts do not occlude each other (first hit is one of ids); the centre itself: no
    assert ra.first_hit_is(rc, C, P, {1}).tolist() == [True, False, True, False, True, False]
    assert ra.first_hit_is(rc, C, P[4:5], {2}).tolist() == [False]
    # the occluder counted as a part of the target: the right point is then seen
    assert ra.first_hit_is(rc, C, P[:2], {1, 2}).tolist() == [True, True]
    # in air in front of the wall: "nothing before it" needs the wall to lie more than 0.1% of
    # the distance beyond the point (5 mm at ~1 m is clear; 0.5 mm is not)
    near = np.array([[0.25, 1.0 - 5e-3, 0.0], [0.25, 1.0 - 0.5e-3, 0.0]])
    assert ra.first_hit_is(rc, C, near, {1}).tolist() == [True, False]


def test_scene_terms_worked_example():
    target = np.array([0.0, 1.5, 0.0])
    terms = ra.scene_terms(POSE, target, 0.95, 0.7, 0.6, 0.05)
    t = by_name(terms)
    assert [x.name for x in terms] == ["attachment_in_frame", "attachment_unoccluded", "bolt_location_unoccluded",
                                       "fills_frame", "not_wide_shot", "sharp_at_target"]
    assert (t["attachment_in_frame"].value, t["attachment_unoccluded"].value, t["bolt_location_unoccluded"].value,
            t["fills_frame"].value) == (0.95, 0.7, 0.6, 0.05)
    assert t["not_wide_shot"].value == 1.5 and t["not_wide_shot"].threshold == "<= 1.8 m"
    assert t["sharp_at_target"].value == 0.0 and t["sharp_at_target"].threshold == "<= 5 px"
    assert verdict_of(terms) == Verdict.ACCEPT
    # 1.8 m is the last distance that passes (Table 1 "not a wide shot (≤ 1.8 m)")
    for d, ok in ((1.8, True), (1.8001, False), (2.1, False)):
        t = by_name(ra.scene_terms(POSE, [0.0, d, 0.0], 1, 1, 1, 1))["not_wide_shot"]
        assert t.passed is ok and t.value == pytest.approx(d)
    # a target 3-4-5 off the camera centre
    t = by_name(ra.scene_terms(pose_at([1.0, 1.0, 1.0], [1.0, 2.0, 1.0]), [1.3, 1.0 + 0.4, 1.0], 1, 1, 1, 1))
    assert t["not_wide_shot"].value == pytest.approx(0.5)


def test_scene_terms_blur_of_a_focus_locked_far_away():
    pose = pose_at([0.0, 0.0, 0.0], [0.0, 1.0, 0.0], mode="locked_elsewhere", focus=10.0)
    t = by_name(ra.scene_terms(pose, [0.0, 0.2, 0.0], 1, 1, 1, 1))
    f, N = pose.lens.focal_mm, pose.fnumber
    S2, S1 = 200.0, 10000.0
    c_px = (f / N) * abs(S2 - S1) / S2 * f / (S1 - f) / pose.sensor_width_mm * pose.width
    assert t["sharp_at_target"].value == pytest.approx(c_px, rel=1e-5) and c_px > 5
    assert not t["sharp_at_target"].passed and first_failure(list(t.values())) == "sharp_at_target"


def test_frame_checks_count_each_part():
    idx = np.zeros((8, 8), np.int32)
    idx[1:3, 1:3] = 4          # foot: 4 px
    idx[5, 5:8] = 5            # bolt: 3 px
    idx[7, 0] = 6              # flashing: 1 px
    img = np.full((8, 8, 3), 100, np.uint8)
    checks = ra.frame_checks(img, idx, {"foot": 4, "bolt": 5, "flashing": 6})
    assert checks == {"attachment_mask_px": 8, "bolt_mask_px": 3, "flashing_mask_px": 1,
                      "attachment_laplacian_var": None}
    checks = ra.frame_checks(img, idx, {"foot": 4})
    assert (checks["attachment_mask_px"], checks["bolt_mask_px"], checks["flashing_mask_px"]) == (4, 0, 0)
    # a part large enough to erode to >= 9 px on a flat image: a Laplacian of 0
    idx[:] = 4
    checks = ra.frame_checks(img, idx, {"foot": 4, "bolt": 5})
    assert checks["attachment_mask_px"] == 64 and checks["bolt_mask_px"] == 0
    assert checks["attachment_laplacian_var"] == 0.0
    assert ra.frame_checks(img, np.zeros((8, 8), np.int32), {"foot": 4})["attachment_laplacian_var"] is None


def test_r():
    assert ra._r(0.1234567) == 0.123457 and ra._r(2.0, 1) == 2.0
    assert ra._r(math.inf) is None and ra._r(float("nan")) is None


def test_score_frame_has_no_terms():
    assert ra.score_frame(None, None, None) == []
