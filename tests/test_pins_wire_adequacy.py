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
