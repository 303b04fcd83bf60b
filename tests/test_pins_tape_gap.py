"""scorers.tape_gap: the crossing samples, its pixel crop and the answer key, worked by hand.

Set-up (as tests/test_tape_gap_math.py): a flat roof (normal +z), the blade hooked at the
origin with its numbered face towards -y, the module's front-bottom edge 4 in up and 1 cm
behind the face. A pinhole camera at the edge's height looks square-on at the blade, so
the apparent reading is the geometric one (4 in) and the crossing projects by plain
similar triangles: u = cx + f x / z, v = cy - f (height - 4 in) / z.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

import scorers.tape_gap as tg
from blender_envs.solar.tape_spec import BLADE_WIDTH_M, INCH_M, TapeSpec, leaned_frame
from geometry.camera import look_at, pose_for_phone, sample_phone
from scorers.terms import Verdict, verdict_of

N = np.array([0.0, 0.0, 1.0])
F0 = np.array([0.0, -1.0, 0.0])
H = 4 * INCH_M
E = 0.01
EDGE = (np.array([-0.5, E, H]), np.array([0.5, E, H]))
PHONE = sample_phone(np.random.default_rng(0))


def make_tape(lean_in=0.0, lean_across=0.0, length=0.3, first=0.0) -> TapeSpec:
    up, facing = leaned_frame(N, F0, lean_in, lean_across)
    return TapeSpec(hook_point=[0.0, 0.0, 0.0], roof_normal=list(N), lean_in_plane_deg=lean_in,
                    lean_across_deg=lean_across, up=list(up), facing=list(facing), blade_length_m=length,
                    first_reading_in=first, case_placement="hand", case_center=list(up * (length + 0.04)),
                    case_up=list(up), case_forward=list(facing))


def pose_at(eye, target, long_side=640):
    return pose_for_phone(PHONE, "main", 1.0, "landscape", long_side, look_at(eye, target), "pinhole", None,
                          1 / 250)


def by_name(terms):
    return {t.name: t for t in terms}


def test_crossing_points_span_half_an_inch_and_90_percent_of_the_width():
    tape = make_tape()
    P = tg.crossing_points(tape, 4.0)
    assert P.shape == (105, 3)
    # all on the face, lifted 0.2 mm towards the camera side (-y)
    assert np.allclose(P[:, 1], -2e-4, atol=1e-12)
    # heights: 21 steps from 3.5 in to 4.5 in; across: 5 steps over +-0.45 blade width
    assert np.allclose(sorted(set(np.round(P[:, 2], 9))), np.round(np.linspace(3.5, 4.5, 21) * INCH_M, 9))
    xs = sorted(set(np.round(P[:, 0], 9)))
    assert np.allclose(xs, np.round(np.linspace(-0.45, 0.45, 5) * BLADE_WIDTH_M, 9))
    assert P[:, 2].min() == pytest.approx(3.5 * INCH_M) and P[:, 2].max() == pytest.approx(4.5 * INCH_M)
    # row-major: along the blade first, across it second
    assert np.allclose(P[:5, 2], 3.5 * INCH_M) and np.allclose(P[:5, 0], np.linspace(-0.45, 0.45, 5) * BLADE_WIDTH_M)
    assert tg.crossing_points(tape, 4.0, n_along=3, n_across=3).shape == (9, 3)


def test_crossing_on_blade_counts_from_the_first_printed_reading():
    tape = make_tape(length=0.3, first=1.0)          # readings 1 .. 1 + 11.811 in
    top = 1.0 + 0.3 / INCH_M
    assert tape.top_reading_in == pytest.approx(top)
    for r, ok in ((1.5, True), (1.49, False), (top - 0.5, True), (top - 0.49, False), (0.9, False),
                  (float("inf"), False), (float("-inf"), False)):
        assert tg.crossing_on_blade(tape, r) is ok, r


def _hand_box(pose, depth, pad=2):
    K = pose.K_array()
    f, cx, cy = K[0, 0], K[0, 2], K[1, 2]
    half_w, half_h = 0.45 * BLADE_WIDTH_M, 0.5 * INCH_M
    u0 = math.floor(cx - f * half_w / depth) - pad
    u1 = math.ceil(cx + f * half_w / depth) + pad
    v0 = math.floor(cy - f * half_h / depth) - pad
    v1 = math.ceil(cy + f * half_h / depth) + pad
    return max(u0, 0), max(v0, 0), min(u1, pose.width - 1), min(v1, pose.height - 1)


@pytest.mark.parametrize("dist", [0.3, 0.4, 0.6])
def test_crossing_crop_is_the_projected_half_inch_padded_by_2_px(dist):
    tape = make_tape()
    pose = pose_at([0.0, -dist, H], [0.0, 0.0, H])
    box = tg.crossing_crop(tape, 4.0, pose)
    assert box == _hand_box(pose, dist - 2e-4)
    assert tg.crossing_crop(tape, 4.0, pose, pad_px=0) == _hand_box(pose, dist - 2e-4, pad=0)
    u0, v0, u1, v1 = box
    assert (u0 + u1) / 2 == pytest.approx((pose.width - 1) / 2, abs=1) and v1 > v0 and u1 > u0


def test_crossing_crop_clips_to_the_frame_and_refuses_what_is_not_seen():
    tape = make_tape()
    # very close: the crop covers more than the frame and is clipped to it
    close = pose_at([0.0, -0.004, H], [0.0, 0.0, H])
    assert tg.crossing_crop(tape, 4.0, close) == (0, 0, close.width - 1, close.height - 1)
    # crossing below the frame (camera 0.1 m away looks 72 deg up): outside, no crop
    up = pose_at([0.0, -0.1, H], [0.0, 0.0, H + 0.3])
    assert tg.crossing_crop(tape, 4.0, up) is None
    # crossing to the left of the frame
    aside = pose_at([0.3, -0.1, H], [0.6, 0.0, H])
    assert tg.crossing_crop(tape, 4.0, aside) is None
    # behind the camera, or no reading at all
    behind = pose_at([0.0, -0.4, H], [0.0, -1.0, H])
    assert tg.crossing_crop(tape, 4.0, behind) is None
    assert tg.crossing_crop(tape, float("nan"), pose_at([0.0, -0.4, H], [0.0, 0.0, H])) is None


def test_crossing_mask_is_the_object_inside_the_box_only():
    idx = np.zeros((10, 12), np.int32)
    idx[2:6, 3:9] = 5
    idx[0, 0] = 5
    m = tg.crossing_mask(idx, 5, (4, 3, 7, 8))          # u 4..7, v 3..8 inclusive
    expect = np.zeros_like(m)
    expect[3:6, 4:8] = True
    assert np.array_equal(m, expect) and m.sum() == 12
    assert not tg.crossing_mask(idx, 5, None).any()
    assert not tg.crossing_mask(idx, 4, (0, 0, 11, 9)).any()
    assert tg.crossing_mask(idx, 5, (0, 0, 0, 0)).sum() == 1   # a 1-px box holds its pixel


def test_frame_terms_record_the_crop_and_no_laplacian_without_pixels():
    tape = make_tape()
    pose = pose_at([0.0, -0.4, H], [0.0, 0.0, H])
    box = _hand_box(pose, 0.4 - 2e-4)
    img = np.full((pose.height, pose.width, 3), 128, np.uint8)
    terms, checks = tg.frame_terms(img, np.zeros((pose.height, pose.width), np.int32), 7, pose, tape, *EDGE)
    assert checks == {"crossing_crop_px": list(box), "crossing_mask_px": 0, "crossing_laplacian_var": None}
    t = terms[0]
    assert (t.name, t.side, t.value, t.threshold, t.passed) == ("crossing_pixels", "frame", 0.0, ">= 25 px", False)
    # the whole crop is blade: its area is the pixel count
    idx = np.full((pose.height, pose.width), 7, np.int32)
    terms, checks = tg.frame_terms(img, idx, 7, pose, tape, *EDGE)
    u0, v0, u1, v1 = box
    assert checks["crossing_mask_px"] == (u1 - u0 + 1) * (v1 - v0 + 1) and terms[0].passed
    assert checks["crossing_laplacian_var"] == 0.0
    # a camera that sees no crossing has no crop
    _, checks = tg.frame_terms(img, idx, 7, pose_at([0.0, -0.4, H], [0.0, -1.0, H]), tape, *EDGE)
    assert checks["crossing_crop_px"] is None and checks["crossing_mask_px"] == 0


def test_ground_truth_worked_example_with_parallax():
    """Camera 5 cm above the edge, 0.4 m in front: apparent crossing h + 0.05 * 0.01 / 0.41."""
    tape = make_tape()
    pose = pose_at([0.0, -0.4, H + 0.05], [0.0, 0.0, H])
    gt = tg.tape_ground_truth(tape, EDGE, 0.1016, pose)
    z = H + 0.05 * E / (0.4 + E)
    r_app = z / INCH_M
    assert gt["reading_in"] == pytest.approx(r_app, abs=1e-6)          # 4.04801
    assert gt["geometric_reading_in"] == pytest.approx(4.0, abs=1e-6)
    assert gt["parallax_in"] == pytest.approx(r_app - 4.0, abs=1e-6)   # 0.04801
    assert gt["parallax_in"] == pytest.approx(0.048012, abs=1e-6)
    assert gt["gap_in"] == pytest.approx(4.0, abs=1e-6)
    assert gt["tilted"] is False
    assert (gt["lean_deg"], gt["lean_in_plane_deg"], gt["lean_across_deg"]) == (0.0, 0.0, 0.0)
    assert gt["image_lean_deg"] == pytest.approx(0.0, abs=1e-6)
    assert gt["crossing_point"] == pytest.approx([0.0, 0.0, z], abs=1e-6)
    assert gt["crossing_distance_m"] == pytest.approx(math.hypot(0.4, H + 0.05 - z), abs=1e-6)
    assert gt["front_angle_deg"] == pytest.approx(math.degrees(math.atan((H + 0.05 - z) / 0.4)), abs=1e-5)
    assert gt["blur_at_crossing_px"] == 0.0
    # the camera sees the crossing exactly where it sees the module edge (the definition of
    # the apparent reading): its pixel is the projection of the edge point in front of it
    from geometry.camera import project
    uv, _ = project(np.array([[0.0, E, H]]), pose.K_array(), pose.cam_to_world_array())
    assert gt["crossing_px"] == pytest.approx(uv[0], abs=1e-5)
    assert gt["crossing_px"][0] == pytest.approx((pose.width - 1) / 2, abs=1e-6)
    assert all(round(x, 6) == x for x in gt["crossing_point"])


def test_ground_truth_crossing_px_square_on():
    tape = make_tape()
    pose = pose_at([0.0, -0.4, H], [0.0, 0.0, H])
    gt = tg.tape_ground_truth(tape, EDGE, 2 * INCH_M, pose)
    K = pose.K_array()
    assert gt["crossing_px"] == pytest.approx([K[0, 2], K[1, 2]], abs=1e-6)
    assert gt["gap_in"] == pytest.approx(2.0) and gt["reading_in"] == pytest.approx(4.0)
    assert gt["crossing_distance_m"] == pytest.approx(0.4, abs=1e-6)
    assert gt["front_angle_deg"] == pytest.approx(0.0, abs=1e-4)


@pytest.mark.parametrize("lean, tilted", [(4.99, False), (5.0, False), (5.01, True), (12.0, True)])
def test_ground_truth_tilted_is_a_lean_over_5_deg(lean, tilted):
    tape = make_tape(lean_in=lean)
    gt = tg.tape_ground_truth(tape, EDGE, 0.1, pose_at([0.0, -0.4, H], [0.0, 0.0, H]))
    assert gt["tilted"] is tilted
    assert gt["lean_deg"] == pytest.approx(lean, abs=1e-6) and gt["lean_in_plane_deg"] == lean
    assert gt["image_lean_deg"] == pytest.approx(lean, abs=0.05)     # a sideways lean shows in the image


def test_no_crossing_when_the_camera_is_on_the_edge_line():
    """A camera on the module edge's own line sees the edge as a point: no apparent reading,
    so no crossing keys, no distance or blur, and no crop."""
    tape = make_tape()
    pose = pose_at([0.3, E, H], [0.0, 0.0, H])
    gt = tg.tape_ground_truth(tape, EDGE, 0.1, pose)
    assert gt["reading_in"] is None and gt["parallax_in"] is None
    assert gt["geometric_reading_in"] == pytest.approx(4.0)
    for k in ("crossing_point", "crossing_px", "crossing_distance_m", "front_angle_deg", "blur_at_crossing_px"):
        assert k not in gt
    t = by_name(tg.scene_terms(tape, *EDGE, pose, (1.0, 1.0)))
    assert t["crossing_on_blade"].passed is False
    assert t["crossing_distance"].value is None and t["crossing_distance"].passed is False
    assert t["sharp_at_crossing"].value is None and t["sharp_at_crossing"].passed is False
    assert t["crossing_in_frame"].value == 0.0
    _, checks = tg.frame_terms(np.zeros((pose.height, pose.width, 3), np.uint8),
                               np.full((pose.height, pose.width), 7, np.int32), 7, pose, tape, *EDGE)
    assert checks == {"crossing_crop_px": None, "crossing_mask_px": 0, "crossing_laplacian_var": None}


def test_crossing_behind_the_camera_has_no_pixel():
    """Camera in front of the blade but facing away: the key keeps the crossing point and
    distance but has no pixel."""
    tape = make_tape()
    pose = pose_at([0.0, -0.4, H], [0.0, -1.0, H])
    gt = tg.tape_ground_truth(tape, EDGE, 0.1, pose)
    assert gt["crossing_px"] is None
    assert gt["crossing_distance_m"] == pytest.approx(0.4)


def test_r_rounds_and_maps_non_finite_to_none():
    assert tg._r(1.23456789) == 1.234568
    assert tg._r(1.23456789, 2) == 1.23
    assert tg._r(float("nan")) is None and tg._r(float("inf")) is None and tg._r(-math.inf) is None
    assert tg._r(np.float32(2.5)) == 2.5


def test_scene_terms_without_a_crossing():
    """A blade too short to reach the edge: the crossing is off the blade, so its visibility is
    zero whatever the ray cast found and the frame is rejected on crossing_on_blade."""
    tape = make_tape(length=0.05)
    pose = pose_at([0.0, -0.4, H], [0.0, 0.0, H])
    t = by_name(tg.scene_terms(tape, *EDGE, pose, (1.0, 1.0)))
    assert t["crossing_on_blade"].passed is False
    assert t["crossing_in_frame"].value == 0.0 and t["crossing_unoccluded"].value == 0.0
    assert verdict_of(tg.scene_terms(tape, *EDGE, pose, (1.0, 1.0))) == Verdict.REJECT
    assert t["front_of_blade"].passed                          # the angle is taken at the hook
    assert [x.name for x in tg.scene_terms(tape, *EDGE, pose, (1.0, 1.0))] == [
        "crossing_on_blade", "crossing_in_frame", "crossing_unoccluded", "crossing_distance", "tape_flush",
        "front_of_blade", "sharp_at_crossing"]
    assert {x.side for x in tg.scene_terms(tape, *EDGE, pose, (1.0, 1.0))} == {"scene"}


def test_scene_terms_units_and_values_square_on():
    tape = make_tape()
    pose = pose_at([0.0, -0.5, H], [0.0, 0.0, H])
    terms = tg.scene_terms(tape, *EDGE, pose, (0.95, 0.7))
    t = by_name(terms)
    assert (t["crossing_in_frame"].value, t["crossing_unoccluded"].value) == (0.95, 0.7)
    assert t["crossing_distance"].threshold == "<= 0.65 m" and t["crossing_distance"].value == pytest.approx(0.5)
    assert t["front_of_blade"].threshold == "< 75 deg" and t["tape_flush"].threshold == "<= 5 deg"
    assert t["sharp_at_crossing"].threshold == "<= 5 px"
    assert verdict_of(terms) == Verdict.ACCEPT


def test_tilt_term_gray_band_reaches_180_deg_when_the_lean_is_hidden():
    """A lean straight towards the camera projects onto the roof normal: gray for any lean."""
    pose = pose_at([0.0, -0.4, H], [0.0, 0.0, H])
    for a in (5.01, 30.0, 80.0):
        t = tg.tilt_term(make_tape(lean_across=-a), pose)
        assert (t.passed, t.gray) == (False, True), a
        assert t.value == pytest.approx(a, abs=1e-6) and t.unit == "deg"
    # no image lean (hook behind the camera): a lean is a hard fail
    t = tg.tilt_term(make_tape(lean_across=-10.0), pose_at([0.0, -0.4, H], [0.0, -1.0, H]))
    assert (t.passed, t.gray) == (False, False)


def _geo(blade_id=7):
    spec = SimpleNamespace(tape=make_tape(), edge=[list(EDGE[0]), list(EDGE[1])], module_gap_m=2 * INCH_M)
    return SimpleNamespace(spec=spec, object_id=lambda name: {"tape_blade": blade_id}[name])


def test_adapters_read_the_spec_and_the_blade_id():
    """score_frame / ground_truth(frame) on a frame whose crossing crop is all blade pixels:
    the count is the crop's area, and another object's id counts nothing."""
    pose = pose_at([0.0, -0.4, H], [0.0, 0.0, H])
    u0, v0, u1, v1 = _hand_box(pose, 0.4 - 2e-4)
    img = np.full((pose.height, pose.width, 3), 128, np.uint8)
    frame = SimpleNamespace(image=img, object_index=np.full((pose.height, pose.width), 7, np.int32))
    view = SimpleNamespace(pose=pose)
    area = (u1 - u0 + 1) * (v1 - v0 + 1)
    t = tg.score_frame(_geo(7), view, frame)
    assert len(t) == 1 and t[0].value == area and t[0].passed
    assert tg.score_frame(_geo(8), view, frame)[0].value == 0.0
    gt = tg.ground_truth(_geo(7), view, frame)
    assert gt["crossing_mask_px"] == area and gt["crossing_crop_px"] == [u0, v0, u1, v1]
    assert gt["crossing_laplacian_var"] == 0.0
    assert gt["gap_in"] == pytest.approx(2.0) and gt["reading_in"] == pytest.approx(4.0)
    no_frame = tg.ground_truth(_geo(7), view)
    assert "crossing_mask_px" not in no_frame and no_frame["gap_in"] == pytest.approx(2.0)
