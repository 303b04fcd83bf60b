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


# ---- the ray-cast adapters on a hand-built attachment (no Blender) -------------------------
#
# In the roof frame (u across, v upslope, w out of the roof) around the bolt's seat (u0, vb):
# the foot a 60 mm square at w = FOOT_TOP_Z, the bolt a 30 mm square at w = HEX_TOP_Z, the
# flashing a strip 4 m wide (so part of it leaves the frame) flush on the roof (w = 0) from vb - 0.09 to
# vb + 0.05, and a tucked strip under the shingles at w = -3 mm (the scorer drops it). A wall
# (not a part) at w = 0.3 m covers u > u0 + 5 mm. The camera sits 0.6 m above the seat on the
# roof normal, looking down it: the ray to a point at (u0 + a, ., w) crosses w = 0.3 at
# u0 + a (0.6 - 0.3) / (0.6 - w), so the point is hidden iff that offset exceeds 5 mm.

from blender_envs.solar.rail_attachment import FOOT_TOP_Z, HEX_TOP_Z, bolt_point, bolt_spot_points, bolt_uv, sample_scene
from blender_envs.solar.roof_spec import roof_frame, roof_to_world
from geometry.camera import project
from render_farm.seeds import rng_for

CAM_H, WALL_W, WALL_EDGE = 0.6, 0.3, 0.005
IDS = {"foot": 1, "bolt": 2, "flashing": 3, "wall": 9}


def _roof_quad(roof, u0, u1, v0, v1, w):
    V = roof_to_world(roof, np.array([[u0, v0, w], [u1, v0, w], [u1, v1, w], [u0, v1, w]], float))
    return trimesh.Trimesh(vertices=V, faces=[[0, 1, 2], [0, 2, 3]], process=False)


def _geo(k):
    """Spec k of rng_for('ra', k) (0: no_flashing, 1: complete, 3: no_lag) and its hand scene."""
    spec = sample_scene(rng_for("ra", k), "s", k)
    roof, i = spec.roof, spec.attachment
    u, vb = bolt_uv(spec)
    parts = [(IDS["foot"], f"l_foot_{i}", _roof_quad(roof, u - 0.03, u + 0.03, vb - 0.03, vb + 0.03, FOOT_TOP_Z)),
             (IDS["wall"], "wall", _roof_quad(roof, u + WALL_EDGE, u + 5.0, vb - 5.0, vb + 5.0, WALL_W))]
    if spec.lag_present:
        parts.append((IDS["bolt"], f"lag_bolt_{i}", _roof_quad(roof, u - 0.015, u + 0.015, vb - 0.015, vb + 0.015,
                                                                HEX_TOP_Z)))
    if spec.flashing_present:
        parts.append((IDS["flashing"], f"flashing_{i}", _roof_quad(roof, u - 2.0, u + 2.0, vb - 0.09, vb + 0.05, 0.0)))
        parts.append((IDS["flashing"], f"flashing_{i}", _roof_quad(roof, u - 2.0, u + 2.0, vb + 0.05, vb + 0.2, -3e-3)))
    mesh = SceneMesh.from_trimesh_parts(parts)
    names = {n: int(o) for o, n in zip(mesh.object_ids, mesh.object_names)}
    geo = SimpleNamespace(spec=spec, mesh=mesh, raycaster=Raycaster(mesh), object_id=lambda n: names[n])
    M = roof_frame(roof)
    eye = roof_to_world(roof, [u, vb, CAM_H])
    up = M[:3, 1]                                   # image up = upslope
    pose = pose_for_phone(spec.phone, "main", 1.0, "landscape", 320, look_at(eye, bolt_point(spec), up=up),
                          "pinhole", None, 1 / 250)
    return geo, pose, (u, vb), M


def _roof_coords(P, M):
    return (np.asarray(P) - M[:3, 3]) @ M[:3, :3]


def _hidden_by_wall(P, M, u0):
    p = _roof_coords(P, M)
    return (p[:, 0] - u0) * (CAM_H - WALL_W) / (CAM_H - p[:, 2]) > WALL_EDGE


def _in_frame(P, pose):
    uv, z = project(P, pose.K_array(), pose.cam_to_world_array())
    return (z > 0) & (uv[:, 0] >= -0.5) & (uv[:, 0] < pose.width - 0.5) & (uv[:, 1] >= -0.5) & (uv[:, 1] < pose.height - 0.5)


@pytest.mark.parametrize("k, parts", [(1, ("foot", "bolt", "flashing")), (3, ("foot", "flashing")),
                                      (0, ("foot", "bolt"))])
def test_attachment_samples_are_300_per_part_plus_corners_exposed_flashing_only(k, parts):
    geo, _, _, M = _geo(k)
    P, ids = ra.attachment_samples(geo)
    assert ids == {IDS[p] for p in parts}
    w = _roof_coords(P, M)[:, 2]
    # foot and bolt: 4 corners + 300 interior each; flashing: of its 8 corners and 300 interior
    # samples over two strips, only those on the exposed strip (w = 0, kept: the cut is 0.1 mm below the roof), none tucked (w = -3 mm)
    assert np.sum(np.isclose(w, FOOT_TOP_Z, atol=1e-6)) == 304
    assert np.sum(np.isclose(w, HEX_TOP_Z, atol=1e-6)) == (304 if "bolt" in parts else 0)
    n_flash = int(np.sum(np.isclose(w, 0.0, atol=1e-6)))
    assert not np.any(w < -1e-4)
    if "flashing" in parts:
        # the exposed strip holds 4 of the 8 corners and about 4*0.14/(4*0.14 + 4*0.15) of 300 samples
        assert 4 + 130 <= n_flash <= 4 + 160
    else:
        assert n_flash == 0
    assert len(P) == 304 * (1 + ("bolt" in parts)) + n_flash


@pytest.mark.parametrize("k", [1, 3, 0])
def test_visibility_against_the_wall_and_the_frame_worked_out(k):
    geo, pose, (u0, vb), M = _geo(k)
    P, _ = ra.attachment_samples(geo)
    inside = _in_frame(P, pose)
    vis = ra.visibility(geo, pose)
    assert 0.0 < inside.mean() < 1.0 or k == 0            # the 4 m flashing leaves the frame
    assert vis["in_frame"] == pytest.approx(float(inside.mean()), abs=1e-12)
    want_unocc = float((~_hidden_by_wall(P[inside], M, u0)).mean())
    assert 0.2 < want_unocc < 0.8
    assert vis["unoccluded"] == pytest.approx(want_unocc, abs=1e-12)
    S = bolt_spot_points(geo.spec)
    assert _in_frame(S, pose).all()
    want_spot = float((~_hidden_by_wall(S, M, u0)).mean())
    assert vis["bolt_spot"] == pytest.approx(want_spot, abs=1e-12) and 0.5 < want_spot < 1.0
    assert vis["bbox"] == pytest.approx(ra.bbox_fraction(P, pose), abs=1e-12)
    terms = by_name(ra.score_scene(geo, SimpleNamespace(pose=pose)))
    assert [terms["attachment_in_frame"].value, terms["attachment_unoccluded"].value,
            terms["bolt_location_unoccluded"].value, terms["fills_frame"].value] == pytest.approx(
        [vis["in_frame"], vis["unoccluded"], vis["bolt_spot"], vis["bbox"]], abs=1e-6)     # terms keep 6 digits
    assert terms["not_wide_shot"].value == pytest.approx(CAM_H - FOOT_TOP_Z, abs=1e-9)


def test_visibility_when_nothing_is_in_frame():
    geo, pose, _, _ = _geo(1)
    away = pose_for_phone(geo.spec.phone, "main", 1.0, "landscape", 320,
                          look_at(pose.center, pose.center + (pose.center - bolt_point(geo.spec))), "pinhole", None,
                          1 / 250)
    vis = ra.visibility(geo, away)
    assert vis == {"in_frame": 0.0, "unoccluded": 0.0, "bolt_spot": 0.0, "bbox": 0.0}


def test_the_spot_is_the_foot_plate_when_the_bolt_is_missing():
    """Without a bolt the seat on the foot is the spot: with the wall moved away it is all seen;
    were the bolt's id asked for, none of it would be."""
    geo, pose, (u0, vb), M = _geo(3)
    keep = geo.mesh.tri_object_id != IDS["wall"]
    mesh = SceneMesh(geo.mesh.vertices, geo.mesh.triangles[keep], geo.mesh.tri_object_id[keep],
                     geo.mesh.object_ids, geo.mesh.object_names)
    geo2 = SimpleNamespace(spec=geo.spec, mesh=mesh, raycaster=Raycaster(mesh), object_id=geo.object_id)
    vis = ra.visibility(geo2, pose)
    assert vis["bolt_spot"] == 1.0 and vis["unoccluded"] == 1.0
    geo, pose, _, _ = _geo(1)
    mesh = SceneMesh(geo.mesh.vertices, geo.mesh.triangles[geo.mesh.tri_object_id != IDS["wall"]],
                     geo.mesh.tri_object_id[geo.mesh.tri_object_id != IDS["wall"]], geo.mesh.object_ids,
                     geo.mesh.object_names)
    assert ra.visibility(SimpleNamespace(spec=geo.spec, mesh=mesh, raycaster=Raycaster(mesh),
                                         object_id=geo.object_id), pose)["bolt_spot"] == 1.0


@pytest.mark.parametrize("k, variant, lag, flashing", [(1, "complete", True, True), (3, "no_lag", False, True),
                                                        (0, "no_flashing", True, False)])
def test_ground_truth_of_the_hand_scene(k, variant, lag, flashing):
    geo, pose, _, _ = _geo(k)
    view = SimpleNamespace(pose=pose)
    gt = ra.ground_truth(geo, view)
    X = bolt_point(geo.spec)
    assert (gt["lag_present"], gt["flashing_present"], gt["acceptability_scored"], gt["variant"]) == (
        lag, flashing, lag and flashing, variant)
    assert gt["attachment"] == geo.spec.attachment
    assert gt["bolt_point"] == [round(float(x), 6) for x in X]
    # the camera looks straight at the seat: it projects to the principal point
    K = pose.K_array()
    assert gt["bolt_px"] == pytest.approx([K[0, 2], K[1, 2]], abs=1e-6)
    assert gt["distance_m"] == pytest.approx(CAM_H - FOOT_TOP_Z, abs=1e-6)
    assert gt["blur_at_target_px"] == 0.0
    assert "attachment_mask_px" not in gt
    idx = np.zeros((pose.height, pose.width), np.int32)
    idx[:10, :10] = IDS["foot"]
    idx[20, :7] = IDS["bolt"]
    idx[30, :5] = IDS["flashing"]
    frame = SimpleNamespace(image=np.full((pose.height, pose.width, 3), 90, np.uint8), object_index=idx)
    gt = ra.ground_truth(geo, view, frame)
    assert gt["attachment_mask_px"] == 100 + 7 * lag + 5 * flashing
    assert (gt["bolt_mask_px"], gt["flashing_mask_px"]) == (7 * lag, 5 * flashing)
    assert gt["attachment_laplacian_var"] == 0.0
    behind = pose_for_phone(geo.spec.phone, "main", 1.0, "landscape", 320,
                            look_at(pose.center, pose.center + (pose.center - X)), "pinhole", None, 1 / 250)
    assert ra.ground_truth(geo, SimpleNamespace(pose=behind))["bolt_px"] is None


def test_a_target_in_the_camera_plane():
    """The seat 0.5 m beside the camera, in its image plane (depth 0): with focus locked at 2 m
    the circle of confusion is infinite, recorded as no value (a failed term, not inf); the
    answer key has no pixel for it."""
    X = np.array([0.3, 1.7, 0.2])
    C = X - np.array([0.5, 0.0, 0.0])
    locked = pose_at(C, C + np.array([0.0, 1.0, 0.0]), mode="locked_elsewhere", focus=2.0)
    t = by_name(ra.scene_terms(locked, X, 1, 1, 1, 1))["sharp_at_target"]
    assert t.value is None and not t.passed
    assert by_name(ra.scene_terms(locked, X, 1, 1, 1, 1))["not_wide_shot"].value == pytest.approx(0.5)
    geo, _, _, _ = _geo(1)
    spec = geo.spec
    Xs = bolt_point(spec)
    side = Xs - np.array([0.5, 0.0, 0.0])
    beside = pose_for_phone(spec.phone, "main", 1.0, "landscape", 320, look_at(side, side + np.array([0.0, 1.0, 0.0])),
                            "pinhole", None, 1 / 250)
    assert project(Xs[None], beside.K_array(), beside.cam_to_world_array())[1][0] == 0.0
    assert ra.ground_truth(geo, SimpleNamespace(pose=beside))["bolt_px"] is None


def test_first_hit_is_clear_only_past_the_absolute_tolerance():
    """A point 'with nothing before it' needs the next surface more than 0.1% of the distance
    + 10 um beyond it. A wall at y = 1 m, points on the axis whose 0.1% margin ends 5 um short of
    the wall (within the 10 um: not clear) and 15 um short (clear)."""
    wall = _quad(-0.5, 0.5, -0.5, 0.5, 1.0)
    rc = Raycaster(SceneMesh.from_trimesh_parts([(2, "wall", wall)]))
    y_in, y_out = (1.0 - 5e-6) / 1.001, (1.0 - 15e-6) / 1.001
    P = np.array([[0.0, y_in, 0.0], [0.0, y_out, 0.0]])
    assert ra.first_hit_is(rc, np.zeros(3), P, {1}).tolist() == [False, True]
    # a point within 10 um of the centre has no ray: not seen; 20 um out, in free air: seen
    assert ra.first_hit_is(rc, np.zeros(3), np.array([[0.0, 1e-5, 0.0], [0.0, 2e-5, 0.0]]), {1}).tolist() == [
        False, True]


def test_frame_checks_record_the_laplacian_to_6_decimals():
    """The Laplacian variance of the attachment crop, against scipy's convolution with OpenCV's
    ksize-3 aperture inside the 3x3-eroded mask, kept to 6 decimals."""
    from scipy import ndimage

    rng = np.random.default_rng(5)
    img = rng.integers(0, 256, size=(16, 16, 3), dtype=np.uint8)
    idx = np.zeros((16, 16), np.int32)
    idx[2:12, 3:14] = 4
    x = img.astype(float) / 255.0
    y = x[..., 0] * 0.2126 + x[..., 1] * 0.7152 + x[..., 2] * 0.0722
    lap = ndimage.convolve(y, np.array([[2, 0, 2], [0, -8, 0], [2, 0, 2]], float), mode="mirror")
    inner = ndimage.binary_erosion(idx == 4, np.ones((3, 3)))
    want = float(lap[inner].var())
    v = ra.frame_checks(img, idx, {"foot": 4})["attachment_laplacian_var"]
    assert v == pytest.approx(want, rel=1e-4) and 0.5 < v < 50
    assert v == round(v, 6) and v != round(v, 5)
