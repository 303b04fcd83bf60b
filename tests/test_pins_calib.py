"""scorers.calib on a hand-made scene: the calib spec's own boxes, pole and card as trimesh
parts (no Blender), a camera placed by hand, and every term and answer-key entry worked
out from the pinhole and thin-lens formulas in the comments."""
from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh

import scorers.calib as calib
from blender_envs.calib.spec import CARD_FRONT_OFFSET, box_matrix, card_inner_corners, sample_scene
from geometry.camera import look_at, pose_for_phone
from geometry.raycast import Raycaster, SceneMesh
from geometry.scene import SceneObject, SceneState, View
from scorers.context import RenderedFrame, SceneGeometry
from scorers.terms import Verdict, first_failure, verdict_of

SPEC = sample_scene(np.random.default_rng(0), "s0", 0)
PHONE = SPEC.phone
IDS = {"box_a": 1, "box_b": 2, "box_c": 3, "pole": 4, "card": 5, "wall": 6}
BOX_A = np.array([-1.2, 0.8, 0.25])          # 0.5 m cube, yaw 0 (calib.spec.sample_scene)


def _parts(wall_x_max=None):
    parts = [(IDS[b.name], b.name, trimesh.creation.box(extents=b.size, transform=box_matrix(b))) for b in SPEC.boxes]
    pole = trimesh.creation.cylinder(radius=SPEC.pole.radius, height=SPEC.pole.height, sections=16)
    pole.apply_translation([*SPEC.pole.base, SPEC.pole.height / 2])
    parts.append((IDS["pole"], "pole", pole))
    card = trimesh.creation.box(extents=[SPEC.card.width, 0.008, SPEC.card.height])
    card.apply_translation(SPEC.card.center)
    parts.append((IDS["card"], "card", card))
    if wall_x_max is not None:
        # a wall in the plane y = -1.0 between the camera (y = -2.2) and box_a, for x < wall_x_max
        wall = trimesh.creation.box(extents=[4.0, 0.01, 3.0])
        wall.apply_translation([wall_x_max - 2.0, -1.0, 0.5])
        parts.append((IDS["wall"], "wall", wall))
    return parts


def geo_of(wall_x_max=None) -> SceneGeometry:
    parts = _parts(wall_x_max)
    mesh = SceneMesh.from_trimesh_parts(parts)
    objs = [SceneObject(id=i, name=n, category=n, pass_index=i) for i, n, _ in parts]
    state = SceneState(env="calib", scene_id="s0", spec=SPEC.model_dump(), objects=objs, meshes="scenes/s0.npz")
    return SceneGeometry(spec=SPEC, state=state, mesh=mesh, raycaster=Raycaster(mesh))


GEO = geo_of()


def view_of(eye, target="box_a", aim=None, mode="pinhole", focus=None, long_px=640):
    center = calib.object_centers(SPEC)[target]
    T = look_at(eye, center if aim is None else aim)
    pose = pose_for_phone(PHONE, "main", 1.0, "landscape", long_px, T, mode, focus, 1 / 250)
    return View(view_index=0, pose=pose, target=target)


def by_name(terms):
    return {t.name: t for t in terms}


F_PX = PHONE.lens("main").focal_mm / PHONE.lens("main").sensor_width_mm * 640     # 507.13 px


def test_score_scene_worked_example_box_a_from_3_m():
    """Camera 3 m in front of box_a (-y side), at its centre height, aimed at its centre: the
    whole cube is in frame and nothing is in between; the projected bbox is the front face
    (0.5 m at depth 2.75 m): (f * 0.5 / 2.75)^2 / (640 * 480) = 0.027676 with f = 507.13 px."""
    terms = calib.score_scene(GEO, view_of(BOX_A + [0, -3.0, 0]))
    assert [t.name for t in terms] == ["target_in_frame", "target_unoccluded", "target_size",
                                       "target_distance", "sharp_at_target"]
    t = by_name(terms)
    assert {n: x.threshold for n, x in t.items()} == {
        "target_in_frame": ">= 0.9", "target_unoccluded": ">= 0.6", "target_size": ">= 0.02",
        "target_distance": "<= 4.5 m", "sharp_at_target": "<= 5 px"}
    assert all(x.side == "scene" for x in terms)
    assert t["target_in_frame"].value == 1.0 and t["target_unoccluded"].value == 1.0
    assert t["target_size"].value == pytest.approx((F_PX * 0.5 / 2.75) ** 2 / (640 * 480), rel=1e-5)
    assert t["target_size"].value == pytest.approx(0.027676, abs=2e-6)
    assert t["target_distance"].value == pytest.approx(3.0) and t["target_distance"].unit == "m"
    assert t["sharp_at_target"].value == 0.0 and t["sharp_at_target"].unit == "px"
    assert verdict_of(terms) == Verdict.ACCEPT


def test_target_size_just_inside_and_outside_2_percent():
    """bbox = 2% when the front face is at f * 0.5 / sqrt(0.02 * 640 * 480) = 3.2349 m, i.e. the
    camera 3.4849 m from the centre: 3.47 m passes, 3.50 m fails."""
    d_star = F_PX * 0.5 / math.sqrt(0.02 * 640 * 480) + 0.25
    assert d_star == pytest.approx(3.4849, abs=1e-3)
    for d, ok in ((3.47, True), (3.50, False)):
        t = by_name(calib.score_scene(GEO, view_of(BOX_A + [0, -d, 0])))["target_size"]
        assert t.passed is ok, (d, t.value)
        assert t.value == pytest.approx((F_PX * 0.5 / (d - 0.25)) ** 2 / (640 * 480), rel=1e-5)


def test_target_distance_just_inside_and_outside_4_5_m():
    for d, ok in ((4.49, True), (4.51, False)):
        terms = calib.score_scene(GEO, view_of(BOX_A + [0, -d, 0]))
        t = by_name(terms)["target_distance"]
        assert t.value == pytest.approx(d) and t.passed is ok
    assert first_failure(calib.score_scene(GEO, view_of(BOX_A + [0, -4.51, 0]))) == "target_size"


def _focus_for_blur(c_px, depth_m):
    """Focus distance (m) nearer than the target that gives a blur circle of c_px at planar depth
    depth_m: c = A |S2 - S1| / S2 * f / (S1 - f) * k, A = f/N, k = px per sensor mm, solved for S1."""
    lens = PHONE.lens("main")
    f, A, k = lens.focal_mm, lens.focal_mm / lens.fnumber, 640 / lens.sensor_width_mm
    S2 = depth_m * 1000.0
    return S2 * f * (A * k + c_px) / (c_px * S2 + A * f * k) / 1000.0


def test_sharp_at_target_just_inside_and_outside_5_px():
    for c, ok in ((4.9, True), (5.1, False)):
        focus = _focus_for_blur(c, 3.0)
        t = by_name(calib.score_scene(GEO, view_of(BOX_A + [0, -3.0, 0], mode="locked_elsewhere",
                                                   focus=focus)))["sharp_at_target"]
        assert t.value == pytest.approx(c, rel=1e-5) and t.passed is ok


def test_occluding_wall_halves_the_unoccluded_fraction():
    """A wall at y = -1 covering x < -1.2 (the camera's own x): the ray to a sample crosses the
    wall exactly when the sample lies at x < -1.2, half the cube: 50% < 60%, rejected on
    target_unoccluded. With the wall ending at x = -1.25 a ray to (x, y) crosses it at
    -1.2 + (x + 1.2) * 1.2 / (y + 2.2), hidden for x < -1.315 on the front face (y = 0.55) and
    x < -1.335 on the back (y = 1.05): the left face and about a quarter of four others, some
    35% hidden, about 65% >= 60% visible."""
    terms = calib.score_scene(geo_of(wall_x_max=-1.2), view_of(BOX_A + [0, -3.0, 0]))
    t = by_name(terms)
    assert t["target_in_frame"].value == 1.0
    assert 0.45 <= t["target_unoccluded"].value <= 0.55 and not t["target_unoccluded"].passed
    assert first_failure(terms) == "target_unoccluded" and verdict_of(terms) == Verdict.REJECT
    t2 = by_name(calib.score_scene(geo_of(wall_x_max=-1.25), view_of(BOX_A + [0, -3.0, 0])))
    assert 0.62 <= t2["target_unoccluded"].value <= 0.69 and t2["target_unoccluded"].passed


def test_target_out_of_frame():
    """Aimed 90 degrees away (along +x) from 3 m: no sample of box_a is in frame or in front."""
    eye = BOX_A + [0, -3.0, 0]
    terms = calib.score_scene(GEO, view_of(eye, aim=eye + [1.0, 0, 0]))
    t = by_name(terms)
    assert t["target_in_frame"].value == 0.0 and t["target_unoccluded"].value == 0.0
    assert t["target_size"].value == 0.0 and t["target_distance"].value == pytest.approx(3.0)
    assert first_failure(terms) == "target_in_frame"


def _frame(idx, image=None):
    H, W = idx.shape
    img = np.zeros((H, W, 3), np.uint8) if image is None else image
    return RenderedFrame(image=img, depth=np.full((H, W), np.inf, np.float32), object_index=idx)


def test_score_frame_target_pixels_at_0_1_percent():
    """0.1% of a 100 x 200 frame is 20 pixels: 20 of box_a's id pass, 19 fail; the other
    objects' pixels do not count."""
    view = view_of(BOX_A + [0, -3.0, 0])
    for n, ok in ((20, True), (19, False)):
        idx = np.full((100, 200), IDS["box_b"], np.int32)
        idx.reshape(-1)[:n] = IDS["box_a"]
        [t] = calib.score_frame(GEO, view, _frame(idx))
        assert t.name == "target_pixels" and t.side == "frame" and t.threshold == ">= 0.001"
        assert t.value == pytest.approx(n / 20000) and t.passed is ok


def test_ground_truth_box_from_3_m():
    """Aimed at the centre: it projects to the principal point ((W-1)/2, (H-1)/2) = (319.5, 239.5)
    at depth 3 m; pinhole, so no blur; a box has no card corners."""
    gt = calib.ground_truth(GEO, view_of(BOX_A + [0, -3.0, 0]))
    assert gt == {"target": "box_a", "target_id": 1, "target_center_px": [319.5, 239.5],
                  "target_depth_m": 3.0, "target_distance_m": 3.0, "blur_at_target_px": 0.0}


def test_ground_truth_rounds_off_centre_values():
    """Aimed 0.1 m right of and 0.05 m above the centre from (-1.2, -2.2, 0.25): the centre lies
    left of and below the image centre; depth, distance and pixel position in closed form,
    rounded to 6, 6 and 4 decimals."""
    eye = BOX_A + [0, -3.0, 0]
    aim = BOX_A + [0.1, 0.0, 0.05]
    view = view_of(eye, aim=aim, mode="locked_elsewhere", focus=1.7)
    gt = calib.ground_truth(GEO, view)
    T = view.pose.cam_to_world_array()
    x = T[:3, :3].T @ (BOX_A - eye)
    u, v = F_PX * x[0] / x[2] + 319.5, F_PX * x[1] / x[2] + 239.5
    assert u < 319.5 and v > 239.5
    assert gt["target_center_px"] == [round(u, 4), round(v, 4)]
    assert gt["target_depth_m"] == round(float(x[2]), 6) and gt["target_depth_m"] != x[2]
    assert gt["target_distance_m"] == 3.0
    lens = PHONE.lens("main")
    f, S1, S2 = lens.focal_mm, 1700.0, x[2] * 1000
    c = f / lens.fnumber * abs(S2 - S1) / S2 * f / (S1 - f) / lens.sensor_width_mm * 640
    assert gt["blur_at_target_px"] == round(c, 4) and gt["blur_at_target_px"] != c


def test_ground_truth_card_corners_and_frame_values():
    """The card target: its centre is the printed face (4 mm toward -y of the card's plane) and
    its 6 x 4 inner corners project through the same pinhole."""
    center = np.array(SPEC.card.center) + [0, -CARD_FRONT_OFFSET, 0]
    eye = center + [0.3, -2.0, 0.1]
    view = view_of(eye, target="card")
    H, W = view.pose.height, view.pose.width
    idx = np.zeros((H, W), np.int32)
    idx[100:110, 200:230] = IDS["card"]          # 300 px, centroid (214.5, 104.5) ...
    idx[99, 200] = IDS["card"]                   # ... and one more: (64550 / 301, 31449 / 301)
    img = np.full((H, W, 3), 60, np.uint8)
    img[100:110, 200:230:2] = 200                # stripes inside the mask: a Laplacian to measure
    gt = calib.ground_truth(GEO, view, _frame(idx, img))
    assert gt["target"] == "card" and gt["target_id"] == 5
    assert gt["target_center_px"] == [319.5, 239.5]
    assert gt["target_distance_m"] == round(math.sqrt(0.09 + 4.0 + 0.01), 6) == 2.024846
    corners = card_inner_corners(SPEC.card)
    assert len(gt["card_corners_px"]) == 24 and corners[0][1] == pytest.approx(0.3 - CARD_FRONT_OFFSET)
    T = view.pose.cam_to_world_array()
    for k in (0, 23):
        x = T[:3, :3].T @ (corners[k] - eye)
        assert gt["card_corners_px"][k] == [round(F_PX * x[0] / x[2] + 319.5, 4), round(F_PX * x[1] / x[2] + 239.5, 4)]
    assert gt["target_mask_px"] == 301 and gt["target_mask_centroid_px"] == [214.4518, 104.4817]
    # Laplacian (OpenCV ksize 3: corners 2, centre -8) of columns alternating 200 / 60 (grey:
    # luma = code / 255) inside the eroded mask (rows 101-108, columns 201-228, 14 of each):
    # +-8 * 140 / 255 in equal numbers, variance (1120 / 255)^2 = 19.291042
    lv = gt["target_laplacian_var"]
    assert lv == pytest.approx((1120 / 255) ** 2, abs=1e-4) and lv == round(lv, 6)


def test_ground_truth_without_the_target_in_the_frame():
    view = view_of(BOX_A + [0, -3.0, 0])
    H, W = view.pose.height, view.pose.width
    idx = np.full((H, W), IDS["box_b"], np.int32)
    gt = calib.ground_truth(GEO, view, _frame(idx))
    assert gt["target_mask_px"] == 0 and gt["target_mask_centroid_px"] is None
    assert gt["target_laplacian_var"] is None and "card_corners_px" not in gt
