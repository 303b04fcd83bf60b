"""scorers.equipment_label: px per text row and per barcode module, view angle, context
ids and the answer key, for a camera placed on the label's normal (pinhole: u = cx + f x / z)."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

import scorers.equipment_label as el
from blender_envs.solar.equipment_label import LABEL_OBJECT, label_corners, label_frame, sample_scene
from geometry.camera import look_at, pose_for_phone, project


@pytest.fixture(scope="module")
def spec():
    return sample_scene(np.random.default_rng(4), "s0", 4)


def _pose(spec, d=0.3, angle=0.0, mode="pinhole", focus=None):
    T = label_frame(spec.label)
    X, n, up = T[:3, 3], T[:3, 2], T[:3, 1]
    a = math.radians(angle)
    eye = X + d * (math.cos(a) * n + math.sin(a) * up)
    return pose_for_phone(spec.phone, "main", 1.0, "landscape", 640, look_at(eye, X), mode, focus, 1 / 250)


def by_name(terms):
    return {t.name: t for t in terms}


def test_resolution_square_on_is_f_times_size_over_distance(spec):
    pose = _pose(spec, 0.3)
    f = pose.K_array()[0, 0]
    row_px, mod_px = el.resolution_px(spec, pose)
    assert row_px == pytest.approx(f * spec.label.row_m / 0.3, rel=2e-3)
    assert mod_px == pytest.approx(f * el.barcode_module_m(spec) / 0.3, rel=2e-3)
    assert 0 < el.barcode_module_m(spec) < spec.label.row_m


def test_view_angle_and_blur(spec):
    for a in (0.0, 25.0, 59.0):
        assert el.label_view_angle(spec, _pose(spec, 0.3, a)) == pytest.approx(a, abs=1e-6)
    assert el.blur_at_label_px(spec, _pose(spec)) == 0.0
    locked = _pose(spec, 0.3, mode="locked_elsewhere", focus=3.0)
    f, N = locked.lens.focal_mm, locked.fnumber
    c_px = (f / N) * abs(300.0 - 3000.0) / 300.0 * f / (3000.0 - f) / locked.sensor_width_mm * 640
    assert el.blur_at_label_px(spec, locked) == pytest.approx(c_px, rel=1e-5)


@pytest.mark.parametrize("on, ids", [("module", [2, 3, 4, 5, 6, 7, 8]), ("microinverter", [2, 3, 4, 6, 7, 9]),
                                     ("inverter", [10, 11])])
def test_context_ids_per_mounting(spec, on, ids):
    cats = ["module_backsheet", "module_glass", "module_frame", "module_jbox", "rail", "l_foot", "clamp",
            "microinverter", "inverter", "conduit", "shingles"]
    objs = [SimpleNamespace(id=i + 2, category=c) for i, c in enumerate(cats)]
    s = spec.model_copy(update={"label": spec.label.model_copy(update={"on": on})})
    assert el.context_ids(SimpleNamespace(state=SimpleNamespace(objects=objs)), s) == ids


def test_scene_terms_of_a_good_view(spec):
    terms = el.scene_terms_of(spec, _pose(spec, 0.2), 1.0, 0.96, 0.2)
    assert [t.name for t in terms] == ["label_in_frame", "label_unoccluded", "text_row_px", "barcode_module_px",
                                       "label_view_angle", "equipment_in_view", "sharp_at_target"]
    t = by_name(terms)
    assert (t["label_in_frame"].value, t["label_unoccluded"].value, t["equipment_in_view"].value) == (1.0, 0.96, 0.2)
    assert t["text_row_px"].unit == "px" and t["label_view_angle"].unit == "deg"


def test_ground_truth(spec):
    pose = _pose(spec, 0.3)
    idx = np.zeros((pose.height, pose.width), np.int32)
    idx[10:20, 10:40] = 8
    geo = SimpleNamespace(spec=spec, object_id=lambda name: {LABEL_OBJECT: 8}[name])
    frame = SimpleNamespace(image=np.zeros((pose.height, pose.width, 3), np.uint8), object_index=idx)
    gt = el.ground_truth(geo, SimpleNamespace(pose=pose), frame)
    lab = spec.label
    assert (gt["brand"], gt["model"], gt["serial"], gt["on"]) == (lab.brand, lab.model, lab.serial, lab.on)
    row_px, mod_px = el.resolution_px(spec, pose)
    assert gt["text_row_px"] == round(row_px, 4) and gt["barcode_module_px"] == round(mod_px, 4)
    uv, _ = project(label_corners(lab), pose.K_array(), pose.cam_to_world_array())
    assert gt["label_corners_px"] == np.round(uv, 3).tolist()
    # square-on, the corners are symmetric about the principal point
    K = pose.K_array()
    c = np.asarray(gt["label_corners_px"])
    assert c.mean(axis=0) == pytest.approx([K[0, 2], K[1, 2]], abs=1e-2)
    assert gt["blur_at_label_px"] == 0.0 and gt["label_mask_px"] == 300
    assert "label_mask_px" not in el.ground_truth(geo, SimpleNamespace(pose=pose))
    T = label_frame(lab)
    behind = pose_for_phone(spec.phone, "main", 1.0, "landscape", 640,
                            look_at(pose.center, pose.center + (pose.center - T[:3, 3])), "pinhole", None, 1 / 250)
    assert el.ground_truth(geo, SimpleNamespace(pose=behind))["label_corners_px"] is None


def test_score_frame_reads_the_label_mask(spec):
    img = np.full((20, 20, 3), 200, np.uint8)
    idx = np.zeros((20, 20), np.int32)
    idx[2:12, 2:18] = 8
    img[5:8, 5:15] = 20
    img[15:, :] = 255
    geo = SimpleNamespace(object_id=lambda name: {LABEL_OBJECT: 8}[name])
    t = by_name(el.score_frame(geo, None, SimpleNamespace(image=img, object_index=idx)))
    assert t["label_saturated"].value == 0.0 and t["paper_luminance"].passed and t["label_contrast"].passed


def test_r():
    assert el._r(1.234567) == 1.2346 and el._r(None) is None and el._r(float("nan")) is None
