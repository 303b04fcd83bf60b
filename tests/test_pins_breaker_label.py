"""scorers.breaker_label: view angle, text row pitch, bbox, blur points and answer key for
a camera placed on the card's normal (pinhole), worked by hand."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

import scorers.breaker_label as bl
from blender_envs.house.breaker_label import CARD_OBJECT, card_frame, card_layout, sample_scene
from geometry.camera import look_at, pose_for_phone


@pytest.fixture(scope="module")
def spec():
    return sample_scene(np.random.default_rng(5), "s0", 5)


def _pose(spec, d=0.5, angle=0.0, mode="pinhole", focus=None, target=None):
    M = card_frame(spec)
    X, n, up = M[:3, 3], M[:3, 2], M[:3, 1]
    a = math.radians(angle)
    eye = X + d * (math.cos(a) * n + math.sin(a) * up)
    return pose_for_phone(spec.phone, "main", 1.0, "landscape", 640, look_at(eye, X if target is None else target),
                          mode, focus, 1 / 250)


def test_view_angle_is_one_sided(spec):
    M = card_frame(spec)
    X, n, up = M[:3, 3], M[:3, 2], M[:3, 1]
    for a in (0.0, 30.0, 44.9, 90.0, 120.0):
        C = X + 0.5 * (math.cos(math.radians(a)) * n + math.sin(math.radians(a)) * up)
        assert bl.view_angle(spec, C) == pytest.approx(a, abs=1e-6)
    assert bl.view_angle(spec, X - 0.5 * n) == pytest.approx(180.0)
    assert bl.view_angle(spec, X) == pytest.approx(90.0)      # at the centre: no direction


def test_text_row_px_is_the_smallest_of_three_rows(spec):
    pose = _pose(spec, 0.5)
    f = pose.K_array()[1, 1]
    pitch = card_layout(spec)["pitch_m"]
    h = spec.card.height_m
    # square-on, the rows at +-0.4 h are farther than the centre: depth stays 0.5 (planar),
    # so all three read f * pitch / 0.5 to first order; the smallest is taken
    assert bl.text_row_px(spec, pose) == pytest.approx(f * pitch / 0.5, rel=5e-3)
    # tilted up 40 deg: the bottom row is farther than the top one; the value is the bottom's
    tilted = _pose(spec, 0.5, 40.0)
    from geometry.raycast import px_per_unit
    M = card_frame(spec)
    rows = [px_per_unit(tilted.K_array(), tilted.cam_to_world_array(), M[:3, 3] + fy * h * M[:3, 1], M[:3, 1], pitch)
            for fy in (-0.4, 0.0, 0.4)]
    assert bl.text_row_px(spec, tilted) == pytest.approx(min(rows)) and min(rows) < max(rows)
    # one row behind the camera: nan, and the term fails
    behind = _pose(spec, 0.5, target=M[:3, 3] + 2.0 * M[:3, 2])
    assert math.isnan(bl.text_row_px(spec, behind))


def test_card_bbox_fraction_square_on(spec):
    pose = _pose(spec, 0.5)
    f = pose.K_array()[0, 0]
    c = spec.card
    want = (f * c.width_m / 0.5) * (f * c.height_m / 0.5) / (640 * 480)
    assert bl.card_bbox_fraction(spec, pose) == pytest.approx(want, rel=0.03)
    assert bl.card_bbox_fraction(spec, _pose(spec, 0.01)) == pytest.approx(1.0)
    M = card_frame(spec)
    assert bl.card_bbox_fraction(spec, _pose(spec, 0.5, target=M[:3, 3] + 2.0 * M[:3, 2])) == 0.0


def test_blur_points_grid(spec):
    P = bl.blur_points(spec)
    M = card_frame(spec)
    c = spec.card
    assert P.shape == (9, 3)
    local = (P - M[:3, 3]) @ M[:3, :3]
    assert np.allclose(local[:, 2], 0.0)
    assert sorted(set(np.round(local[:, 0] / c.width_m, 9))) == [-0.4, 0.0, 0.4]
    assert sorted(set(np.round(local[:, 1] / c.height_m, 9))) == [-0.4, 0.0, 0.4]
    assert bl.blur_at_card_px(spec, _pose(spec)) == 0.0
    locked = _pose(spec, 0.5, mode="locked_elsewhere", focus=5.0)
    from geometry.camera import blur_at_target_px
    assert bl.blur_at_card_px(spec, locked) == pytest.approx(max(blur_at_target_px(locked, p) for p in P))
    assert bl.blur_at_card_px(spec, locked) > blur_at_target_px(locked, M[:3, 3]) - 1e-9


def test_frame_terms_and_checks():
    img = np.full((20, 20, 3), 200, np.uint8)
    idx = np.zeros((20, 20), np.int32)
    idx[2:12, 2:18] = 3
    img[5:8, 5:15] = 20
    terms, checks = bl.frame_terms(img, idx, 3)
    assert [t.name for t in terms] == ["text_contrast", "card_saturated"] and checks == {"card_mask_px": 160}
    assert terms[0].passed and terms[1].passed and terms[1].value == 0.0


def test_ground_truth(spec):
    pose = _pose(spec, 0.5)
    idx = np.zeros((pose.height, pose.width), np.int32)
    idx[:5, :4] = 9
    geo = SimpleNamespace(spec=spec, object_id=lambda name: {CARD_OBJECT: 9}[name])
    frame = SimpleNamespace(image=np.zeros((pose.height, pose.width, 3), np.uint8), object_index=idx)
    gt = bl.ground_truth(geo, SimpleNamespace(pose=pose), frame)
    assert gt["main_amps"] == spec.main_amps and gt["card_style"] == spec.card.style
    assert gt["entries"] == [{"name": e.name, "amps": e.amps} for e in spec.entries]
    assert gt["view_angle_deg"] == pytest.approx(0.0, abs=1e-5) and gt["card_distance_m"] == pytest.approx(0.5)
    K = pose.K_array()
    assert gt["target_center_px"] == pytest.approx([K[0, 2], K[1, 2]], abs=1e-5)
    assert gt["text_row_px"] == round(bl.text_row_px(spec, pose), 6) and gt["blur_at_card_px"] == 0.0
    assert gt["card_mask_px"] == 20
    assert "card_mask_px" not in bl.ground_truth(geo, SimpleNamespace(pose=pose))
    M = card_frame(spec)
    far = bl.ground_truth(geo, SimpleNamespace(pose=_pose(spec, 0.5, target=M[:3, 3] + 2.0 * M[:3, 2])))
    assert far["target_center_px"] is None and far["text_row_px"] is None


def test_r():
    assert bl._r(None) is None and bl._r(float("nan")) is None and bl._r(0.1234567) == 0.123457
    assert bl._r(2.25, 1) == 2.2


def test_text_row_px_takes_the_top_row_when_it_is_the_farthest(spec):
    """Camera 40 deg below the card's normal, looking up at it: the top row (+0.4 h) is now the
    farthest, so its pitch in pixels is the value (the mirror of the 40-deg-above case)."""
    from geometry.raycast import px_per_unit

    below = _pose(spec, 0.5, -40.0)
    M, h = card_frame(spec), spec.card.height_m
    pitch = card_layout(spec)["pitch_m"]
    rows = [px_per_unit(below.K_array(), below.cam_to_world_array(), M[:3, 3] + fy * h * M[:3, 1], M[:3, 1], pitch)
            for fy in (-0.4, 0.0, 0.4)]
    assert rows[2] < rows[1] < rows[0]
    assert bl.text_row_px(spec, below) == pytest.approx(rows[2])


@pytest.mark.parametrize("axis, up", [(0, 1), (1, 0)])
def test_card_bbox_with_half_the_card_behind_the_camera(spec, axis, up):
    """5 cm in front of the card's centre, looking along the card's reading direction (+x) or
    up it (+y): the points of the 5 x 5 grid with local coordinate <= 0 along that axis are
    behind (or on) the image plane and are dropped; the bbox is that of the other half's
    projections, clipped to the frame."""
    from blender_envs.house.breaker_label import card_points
    from geometry.camera import project

    M = card_frame(spec)
    eye = M[:3, 3] + 0.05 * M[:3, 2]
    pose = pose_for_phone(spec.phone, "main", 1.0, "landscape", 640,
                          look_at(eye, eye + M[:3, axis], up=M[:3, up]), "pinhole", None, 1 / 250)
    P = card_points(spec, 5, 5)
    uv, z = project(P, pose.K_array(), pose.cam_to_world_array())
    local = (P - M[:3, 3]) @ M[:3, axis]
    assert np.array_equal(z > 1e-6, local > 1e-9)
    front = uv[local > 1e-9]
    u0, u1 = np.clip([front[:, 0].min(), front[:, 0].max()], -0.5, 639.5)
    v0, v1 = np.clip([front[:, 1].min(), front[:, 1].max()], -0.5, 479.5)
    want = (u1 - u0) * (v1 - v0) / (640 * 480)
    assert 0.0 < want < 1.0 and bl.card_bbox_fraction(spec, pose) == pytest.approx(want, rel=1e-9)


def test_blur_is_none_with_the_card_behind_a_focused_camera(spec):
    """Focus locked at 5 m and the card behind the camera: the thin-lens blur there is
    undefined (inf), so the term has no value and fails."""
    M = card_frame(spec)
    behind = _pose(spec, 0.5, mode="locked_elsewhere", focus=5.0, target=M[:3, 3] + 2.0 * M[:3, 2])
    assert bl.blur_at_card_px(spec, behind) is None
    t = {x.name: x for x in bl.scene_terms(spec, behind, (1.0, 1.0))}["sharp_at_target"]
    assert t.value is None and not t.passed
    geo = SimpleNamespace(spec=spec, object_id=lambda name: {CARD_OBJECT: 9}[name])
    assert bl.ground_truth(geo, SimpleNamespace(pose=behind))["blur_at_card_px"] is None


def test_text_row_px_is_nan_when_only_the_top_row_is_behind(spec):
    """5 cm off the card, 0.2 h above its centre, looking straight down along it: the top row
    (+0.4 h) is behind the camera, the others in front; one undefined row makes it nan."""
    M, h = card_frame(spec), spec.card.height_m
    eye = M[:3, 3] + 0.2 * h * M[:3, 1] + 0.05 * M[:3, 2]
    pose = pose_for_phone(spec.phone, "main", 1.0, "landscape", 640, look_at(eye, eye - M[:3, 1], up=M[:3, 2]),
                          "pinhole", None, 1 / 250)
    assert math.isnan(bl.text_row_px(spec, pose))
    t = {x.name: x for x in bl.scene_terms(spec, pose, (1.0, 1.0))}["text_row_px"]
    assert t.value is None and not t.passed


def test_scene_terms_units_and_thresholds(spec):
    t = {x.name: x for x in bl.scene_terms(spec, _pose(spec, 0.3), (1.0, 1.0))}
    assert {n: (x.threshold, x.unit) for n, x in t.items()} == {
        "card_in_frame": (">= 0.98", ""), "card_unoccluded": (">= 0.95", ""), "text_row_px": (">= 11 px", "px"),
        "view_angle": ("<= 45 deg", "deg"), "card_bbox": (">= 0.04", ""), "sharp_at_target": ("<= 5 px", "px")}


def test_ground_truth_view_angle_oblique(spec):
    geo = SimpleNamespace(spec=spec, object_id=lambda name: {CARD_OBJECT: 9}[name])
    gt = bl.ground_truth(geo, SimpleNamespace(pose=_pose(spec, 0.5, 30.0)))
    assert gt["view_angle_deg"] == pytest.approx(30.0, abs=1e-5)


def _geo_with(spec, extra=()):
    """The card (id 8) as its own quad, plus extra parts; ids looked up by name."""
    import trimesh

    from blender_envs.house.breaker_label import card_points
    from geometry.raycast import Raycaster, SceneMesh

    card = trimesh.Trimesh(vertices=card_points(spec, 2, 2), faces=[[0, 1, 3], [0, 3, 2]], process=False)
    parts = [(8, CARD_OBJECT, card), *extra]
    mesh = SceneMesh.from_trimesh_parts(parts)
    ids = {n: i for i, n, _ in parts}
    return SimpleNamespace(spec=spec, mesh=mesh, raycaster=Raycaster(mesh), object_id=lambda name: ids[name])


def test_card_visibility_with_a_board_over_one_corner(spec):
    """The 9 x 13 sample grid runs from -0.49 to 0.49 of the card's width and height. A board
    halfway between the camera (0.3 m, square-on) and the card, over x > 0.03 w and y > 0.03 h,
    shadows x > 0.06 w and y > 0.06 h of the card: columns 5-8 (x = 0.1225 w ...) and rows
    7-12 (y = 0.0817 h ...), 24 of 117 samples: 93 / 117 unoccluded (< 95%, fails)."""
    import trimesh

    M, c = card_frame(spec), spec.card
    x, y, n = M[:3, 0], M[:3, 1], M[:3, 2]
    o = M[:3, 3] + 0.15 * n
    x0, y0 = 0.03 * c.width_m, 0.03 * c.height_m
    board = trimesh.Trimesh(vertices=[o + x0 * x + y0 * y, o + c.width_m * x + y0 * y,
                                      o + c.width_m * x + c.height_m * y, o + x0 * x + c.height_m * y],
                            faces=[[0, 1, 2], [0, 2, 3]], process=False)
    geo = _geo_with(spec, [(9, "board", board)])
    pose = _pose(spec, 0.3)
    assert bl.card_visibility(geo, spec, pose) == (pytest.approx(117 / 117), pytest.approx(93 / 117))
    t = {x.name: x for x in bl.score_scene(geo, SimpleNamespace(pose=pose))}
    assert t["card_unoccluded"].value == pytest.approx(93 / 117, abs=1e-6) and not t["card_unoccluded"].passed
    # without the board, from 0.12 m: the card overfills the frame, every in-frame sample is seen
    in_frame, unocc = bl.card_visibility(_geo_with(spec), spec, _pose(spec, 0.12))
    assert 0.0 < in_frame < 1.0 and unocc == 1.0


def test_score_frame_reads_the_card_mask():
    """The card's id (8) counts, another object's (9) does not."""
    img = np.full((20, 20, 3), 200, np.uint8)
    img[5:8, 5:15] = 20
    idx = np.full((20, 20), 9, np.int32)
    idx[2:12, 2:18] = 8
    spec = sample_scene(np.random.default_rng(5), "s0", 5)
    terms = bl.score_frame(_geo_with(spec), None, SimpleNamespace(image=img, object_index=idx))
    assert [t.name for t in terms] == ["text_contrast", "card_saturated"] and all(t.passed for t in terms)
    none = bl.score_frame(_geo_with(spec), None, SimpleNamespace(image=img, object_index=np.full((20, 20), 9)))
    assert none[0].value is None and none[1].value is None
