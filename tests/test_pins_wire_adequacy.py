"""scorers.wire_adequacy: the pure core (terms from plain numbers and a hand-placed camera,
frame values from constructed masks), worked by hand."""
from __future__ import annotations

import numpy as np
import pytest

import scorers.wire_adequacy as wa
from geometry.camera import look_at, pose_for_phone, sample_phone
from scorers.terms import Verdict, first_failure, verdict_of

PHONE = sample_phone(np.random.default_rng(0))


def pose_at(eye, target, mode="pinhole", focus=None):
    return pose_for_phone(PHONE, "main", 1.0, "landscape", 640, look_at(eye, target), mode, focus, 1 / 250)


def by_name(terms):
    return {t.name: t for t in terms}


def test_scene_terms_worked_example():
    pose = pose_at([0.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    terms = wa.scene_terms(pose, [0.6, 0.8, 0.0], 0.5, 0.5, 0.3)          # low point 1.0 m away (3-4-5)
    assert [t.name for t in terms] == ["wire_in_frame", "low_point_visible", "wire_unoccluded",
                                       "low_point_distance", "sharp_at_target"]
    t = by_name(terms)
    assert t["low_point_distance"].value == pytest.approx(1.0) and t["low_point_distance"].threshold == "<= 2.5 m"
    assert t["sharp_at_target"].value == 0.0 and t["sharp_at_target"].unit == "px"
    assert verdict_of(terms) == Verdict.ACCEPT
    for d, ok in ((2.5, True), (2.5001, False)):
        t = by_name(wa.scene_terms(pose, [0.0, d, 0.0], 1, 1, 1))["low_point_distance"]
        assert t.passed is ok
    far = wa.scene_terms(pose, [0.0, 3.0, 0.0], 0.49, 1, 1)
    assert first_failure(far) == "wire_in_frame"


def test_scene_terms_blur_fails_with_focus_locked_far():
    pose = pose_at([0.0, 0.0, 0.0], [0.0, 1.0, 0.0], mode="locked_elsewhere", focus=20.0)
    t = by_name(wa.scene_terms(pose, [0.0, 0.15, 0.0], 1, 1, 1))["sharp_at_target"]
    f, N = pose.lens.focal_mm, pose.fnumber
    c_px = (f / N) * abs(150.0 - 20000.0) / 150.0 * f / (20000.0 - f) / pose.sensor_width_mm * 640
    assert t.value == pytest.approx(c_px, rel=1e-5) and c_px > 5 and not t.passed


def test_frame_values_are_the_mask_share_and_its_edge_contrast():
    img = np.full((40, 50, 3), 100, np.uint8)
    idx = np.zeros((40, 50), np.int32)
    idx[10:30, 10:20] = 4
    img[10:30, 10:20] = 160
    frac, ec = wa.frame_values(img, idx, 4)
    assert frac == 200 / 2000 and ec == pytest.approx(60 / 255, abs=1e-4)
    assert wa.frame_values(img, idx, 5) == (0.0, None)


def test_frame_terms_at_the_pixel_share_threshold():
    """0.05% of a 200x100 frame is 10 px: 10 px pass, 9 fail."""
    img = np.full((100, 200, 3), 90, np.uint8)
    for n, ok in ((10, True), (9, False)):
        idx = np.zeros((100, 200), np.int32)
        idx.reshape(-1)[:n] = 2
        t = by_name(wa.frame_terms(img, idx, 2))
        assert t["wire_pixels"].value == pytest.approx(n / 20000) and t["wire_pixels"].passed is ok
    t = by_name(wa.frame_terms(img, np.zeros((100, 200), np.int32), 2))
    assert t["edge_contrast"].value is None and not t["edge_contrast"].passed
    assert t["wire_pixels"].value == 0.0 and t["wire_pixels"].side == "frame"


def test_r():
    assert wa._r(0.1234567) == 0.123457 and wa._r(1.25, 1) == 1.2 and wa._r(float("inf")) is None


# ------------------------------------------- adapters on a hand-made wire mesh (no Blender)

import trimesh  # noqa: E402

from blender_envs.solar import roof_spec as rs  # noqa: E402
from blender_envs.solar.wire_adequacy import low_point, sample_scene, wire_clearances  # noqa: E402
from geometry.raycast import Raycaster, SceneMesh  # noqa: E402
from geometry.scene import SceneObject, SceneState, View  # noqa: E402
from render_farm.seeds import rng_for  # noqa: E402
from scorers.context import RenderedFrame, SceneGeometry  # noqa: E402

WIRE_ID, MODULE_ID = 11, 12


def _spec():
    """Scene 3 with every lead sagging 1 cm except the last (0.5 m: it lies on the roof) and
    the target the first lead of the top row."""
    s = sample_scene(rng_for("wa", 3), "s", 3)
    a = s.roof.array
    sags = [0.01] * len(a.lead_sags_m)
    sags[-1] = 0.5
    roof = s.roof.model_copy(update={"array": a.model_copy(update={"lead_sags_m": sags, "trunk_sag_m": 0.01})})
    return s.model_copy(update={"roof": roof, "target_wire": f"lead_r{a.rows - 1}_c0"})


SPEC = _spec()


def _tube(pts, r, n_ring=12):
    """An open tube of radius r around the polyline pts (rings of n_ring, quads between)."""
    n = rs.roof_frame(SPEC.roof)[:3, 2]
    rings = []
    for k in range(len(pts)):
        t = pts[min(k + 1, len(pts) - 1)] - pts[max(k - 1, 0)]
        t = t / np.linalg.norm(t)
        a = n - (n @ t) * t
        a /= np.linalg.norm(a)
        b = np.cross(t, a)
        ang = np.linspace(0, 2 * np.pi, n_ring, endpoint=False)
        rings.append(pts[k] + r * (np.cos(ang)[:, None] * a + np.sin(ang)[:, None] * b))
    V = np.concatenate(rings)
    F = []
    for k in range(len(pts) - 1):
        for j in range(n_ring):
            p, q = k * n_ring + j, k * n_ring + (j + 1) % n_ring
            F += [[p, q, q + n_ring], [p, q + n_ring, p + n_ring]]
    return trimesh.Trimesh(V, F, process=False)


def geo_of(occluder_at=None):
    """The target lead as a tube; optionally a 0.4 m plate (a module) centred at occluder_at,
    square to the roof normal."""
    name = SPEC.target_wire
    parts = [(WIRE_ID, name, _tube(rs.wire_paths(SPEC.roof)[name], SPEC.roof.array.wire_radius_m))]
    if occluder_at is not None:
        M = rs.roof_frame(SPEC.roof)
        T = np.eye(4)
        T[:3, :3] = M[:3, :3]
        T[:3, 3] = occluder_at
        parts.append((MODULE_ID, "module_glass_r0_c0", trimesh.creation.box(extents=[0.4, 0.4, 0.005], transform=T)))
    mesh = SceneMesh.from_trimesh_parts(parts)
    objs = [SceneObject(id=i, name=n, category="wire", pass_index=i) for i, n, _ in parts]
    state = SceneState(env="wire_adequacy", scene_id="s", spec={}, objects=objs, meshes="scenes/s.npz")
    return SceneGeometry(spec=SPEC, state=state, mesh=mesh, raycaster=Raycaster(mesh))


GEO = geo_of()
ROOF_M = rs.roof_frame(SPEC.roof)
X_LOW = low_point(SPEC.roof, SPEC.target_wire)


def _above(dist, aim=None, **kw):
    """A camera `dist` m above the low point along the roof normal, looking down at it."""
    eye = X_LOW + dist * ROOF_M[:3, 2]
    return View(view_index=0, pose=pose_at(eye, X_LOW if aim is None else aim, **kw), target=SPEC.target_wire)


def test_visibility_of_a_lone_wire_from_above():
    """From 1 m above, looking at the low point: the whole ~0.3 m lead is in frame, nothing
    else in the scene, so every in-frame sample and every low-point sample (the tube's far
    side hides behind the tube itself, which counts as the wire) is seen."""
    vis = wa.visibility(GEO, _above(1.0).pose)
    assert vis == {"in_frame": 1.0, "low_visible": 1.0, "unoccluded": 1.0}
    terms = wa.score_scene(GEO, _above(1.0))
    t = by_name(terms)
    assert t["low_point_distance"].value == pytest.approx(1.0) and verdict_of(terms) == Verdict.ACCEPT
    far = by_name(wa.score_scene(GEO, _above(2.6)))
    assert far["low_point_distance"].value == pytest.approx(2.6) and not far["low_point_distance"].passed


def test_visibility_with_a_module_between_camera_and_wire():
    """A 0.4 m plate 0.5 m above the low point, seen from 1 m above: it covers +-0.2 m at half
    the distance, so +-0.4 m along the wire, whose axis runs +-0.48 m either side of the low
    point: the low point is hidden and only the ends beyond 0.4 m, 0.16 / 0.96 = 17% of the
    wire, stay visible (< 30%: wire_unoccluded fails)."""
    geo = geo_of(occluder_at=X_LOW + 0.5 * ROOF_M[:3, 2])
    vis = wa.visibility(geo, _above(1.0).pose)
    assert vis["in_frame"] == 1.0 and vis["low_visible"] == 0.0
    assert vis["unoccluded"] == pytest.approx(0.16 / 0.96, abs=0.03)
    assert vis["unoccluded"] == 144 / 804        # of the 804 samples (see the test below)
    t = by_name(wa.score_scene(geo, _above(1.0)))
    assert not t["low_point_visible"].passed and not t["wire_unoccluded"].passed and t["wire_in_frame"].passed
    assert t["wire_unoccluded"].value == pytest.approx(vis["unoccluded"], abs=1e-6)


def test_visibility_when_the_camera_looks_away():
    """Aimed along the roof normal away from the roof: nothing in frame, fractions all 0."""
    eye = X_LOW + 1.0 * ROOF_M[:3, 2]
    pose = pose_at(eye, eye + ROOF_M[:3, 2] + 0.01 * ROOF_M[:3, 0])
    assert wa.visibility(GEO, pose) == {"in_frame": 0.0, "low_visible": 0.0, "unoccluded": 0.0}


def _beside(s):
    """0.3 m above the roof, s m along the eave from the low point, looking straight down the
    roof normal: the frame's long side runs along the eave (the wire) and covers
    0.3 * 320 / f = +-0.207 m about s (f = 463.68 px)."""
    u = ROOF_M[:3, 0]
    return pose_at(X_LOW + 0.3 * ROOF_M[:3, 2] + s * u, X_LOW + s * u)


def test_visibility_with_part_of_the_wire_out_of_frame():
    """The lead's axis spans +-0.48 m along the eave. Framed at s = 0.15 m the frame holds
    u in [-0.057, 0.357]: 0.414 / 0.96 = 43% of the wire (< 50%) but all three rings of the
    low point's samples (u = -0.02, 0, 0.02). At s = 0.217 the frame starts at u = 0.01: one
    ring of three in (1/3 < 50%); at s = 0.197 it starts at -0.01: two of three (passes)."""
    half = 0.3 * 320 / PHONE.lens("main").focal_mm * PHONE.lens("main").sensor_width_mm / 640
    assert half == pytest.approx(0.20704, abs=1e-4)
    vis = wa.visibility(GEO, _beside(0.15))
    assert vis["in_frame"] == pytest.approx(0.414 / 0.96, abs=0.03) and vis["low_visible"] == 1.0
    # the samples: the tube's 17 rings x 12 vertices and N_INTERIOR = 600 face points; 330 in frame
    assert wa.N_INTERIOR == 600 and vis["in_frame"] == 330 / (17 * 12 + 600)
    assert vis["unoccluded"] == 1.0
    assert wa.visibility(GEO, _beside(0.217))["low_visible"] == pytest.approx(1 / 3)
    assert wa.visibility(GEO, _beside(0.197))["low_visible"] == pytest.approx(2 / 3)
    vis = wa.visibility(GEO, _beside(0.8))               # frame from u = 0.593: none of it
    assert vis == {"in_frame": 0.0, "low_visible": 0.0, "unoccluded": 0.0}


def _frame(idx, img=None):
    H, W = idx.shape
    img = np.full((H, W, 3), 100, np.uint8) if img is None else img
    return RenderedFrame(image=img, depth=np.full((H, W), np.inf, np.float32), object_index=idx)


def test_score_frame_reads_the_target_wires_mask():
    """The target's id (11) counts, the plate's (12) does not: 10 px of 20000 is 0.05%."""
    idx = np.full((100, 200), MODULE_ID, np.int32)
    idx.reshape(-1)[:10] = WIRE_ID
    t = by_name(wa.score_frame(GEO, _above(1.0), _frame(idx)))
    assert t["wire_pixels"].value == pytest.approx(0.0005) and t["wire_pixels"].passed
    idx[idx == WIRE_ID] = MODULE_ID
    t = by_name(wa.score_frame(GEO, _above(1.0), _frame(idx)))
    assert t["wire_pixels"].value == 0.0 and t["edge_contrast"].value is None


def _zb(roof):
    """Height of a lead's ends above the roof plane (tests/test_wire_adequacy.py::_zb)."""
    a = roof.array
    return a.standoff_m + a.frame_depth_m - 0.008 - 0.025 + 0.005


def test_ground_truth_touching_wires_and_the_target():
    """Every lead sags 1 cm (its vertex 1 cm under its ends: clearance zb - 0.01 - r) except the
    last, which lies on the roof (clearance 0: touching); the target, the top row's first lead,
    is clear of it."""
    roof, r = SPEC.roof, SPEC.roof.array.wire_radius_m
    clear = wire_clearances(roof)
    last = f"lead_r{roof.array.rows - 1}_c{roof.array.cols - 2}"
    view = _above(1.0)
    gt = wa.ground_truth(GEO, view)
    c_target = _zb(roof) - 0.01 - r
    assert gt["touching"] is True and gt["touching_wires"] == [last] and gt["target_touching"] is False
    assert gt["target_wire"] == SPEC.target_wire
    assert gt["target_clearance_m"] == round(c_target, 6) and gt["target_clearance_m"] != c_target
    assert gt["min_clearance_m"] == round(min(clear.values()), 6) and abs(gt["min_clearance_m"]) < 1e-6
    assert list(gt["wire_clearance_m"]) == sorted(clear) and gt["wire_clearance_m"][last] == round(clear[last], 6)
    assert gt["wire_radius_m"] == round(r, 6)
    assert gt["low_point"] == [round(float(x), 6) for x in X_LOW] and gt["low_point"] != list(X_LOW)
    assert gt["low_point_px"] == [319.5, 239.5]
    assert gt["low_point_distance_m"] == 1.0 and gt["blur_at_target_px"] == 0.0
    assert "wire_mask_px" not in gt


def test_ground_truth_with_the_target_touching_and_a_frame():
    roof = SPEC.roof
    last = f"lead_r{roof.array.rows - 1}_c{roof.array.cols - 2}"
    spec = SPEC.model_copy(update={"target_wire": last})
    geo = SceneGeometry(spec=spec, state=SceneState(env="wire_adequacy", scene_id="s", spec={}, objects=[
        SceneObject(id=WIRE_ID, name=last, category="wire", pass_index=WIRE_ID)], meshes="m.npz"),
        mesh=GEO.mesh, raycaster=GEO.raycaster)
    view = View(view_index=0, pose=pose_at(low_point(roof, last) + ROOF_M[:3, 2], low_point(roof, last),
                                           mode="locked_elsewhere", focus=0.5), target=last)
    idx = np.zeros((480, 640), np.int32)
    img = np.full((480, 640, 3), 128, np.uint8)
    idx[200:202, 100:300] = WIRE_ID
    img[200:202, 100:300] = 30
    gt = wa.ground_truth(geo, view, _frame(idx, img))
    assert gt["target_touching"] is True and gt["target_clearance_m"] == 0.0 and gt["touching"] is True
    assert gt["wire_mask_px"] == 400 and gt["wire_edge_contrast"] == pytest.approx((128 - 30) / 255, abs=1e-5)
    assert gt["wire_edge_contrast"] == round(gt["wire_edge_contrast"], 6)
    # focus 0.5 m, target at 1 m planar depth: c = f/N * |1000 - 500| / 1000 * f / (500 - f) * 640 / sw
    f, N, sw = PHONE.lens("main").focal_mm, PHONE.lens("main").fnumber, PHONE.lens("main").sensor_width_mm
    c = f / N * 0.5 * f / (500 - f) * 640 / sw
    assert gt["blur_at_target_px"] == round(c, 6)
    gt0 = wa.ground_truth(geo, view, _frame(np.zeros((480, 640), np.int32), img))
    assert gt0["wire_mask_px"] == 0 and gt0["wire_edge_contrast"] is None


def test_ground_truth_low_point_behind_the_camera():
    """Looking away from the roof, the low point is behind: no pixel position."""
    eye = X_LOW + 1.0 * ROOF_M[:3, 2]
    view = View(view_index=0, pose=pose_at(eye, eye + ROOF_M[:3, 2] + 0.01 * ROOF_M[:3, 0]), target="x")
    gt = wa.ground_truth(GEO, view)
    assert gt["low_point_px"] is None and gt["low_point_distance_m"] == 1.0


def test_low_point_in_the_cameras_own_plane_has_no_pixel():
    """1 m above the low point along the roof normal, looking along the eave (world +x, which
    the normal has no part of): the low point lies exactly in the camera's principal plane
    (depth 0) and has no pixel; from 0.5 m above, looking at it, it is the image centre."""
    eye = X_LOW + 1.0 * ROOF_M[:3, 2]
    assert ROOF_M[0, 2] == 0.0 and eye[0] == X_LOW[0]
    side = View(view_index=0, pose=pose_at(eye, eye + np.array([1.0, 0.0, 0.0])), target="x")
    assert wa.ground_truth(GEO, side)["low_point_px"] is None
    assert wa.ground_truth(GEO, _above(0.5))["low_point_px"] == [319.5, 239.5]


def test_sharp_at_target_has_no_value_with_the_low_point_behind_a_focused_camera():
    """Focus locked at 0.5 m and the low point behind the camera: the thin-lens blur there is
    infinite, so the term has no value (and fails), as does the answer key's blur."""
    eye = X_LOW + 1.0 * ROOF_M[:3, 2]
    pose = pose_at(eye, eye + ROOF_M[:3, 2] + 0.01 * ROOF_M[:3, 0], mode="locked_elsewhere", focus=0.5)
    t = by_name(wa.scene_terms(pose, X_LOW, 1, 1, 1))["sharp_at_target"]
    assert t.value is None and not t.passed
    assert wa.ground_truth(GEO, View(view_index=0, pose=pose, target="x"))["blur_at_target_px"] is None
