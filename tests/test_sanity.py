"""Tests for the render sanity check on constructed frames."""

from __future__ import annotations

import numpy as np
import pytest

from scorers.sanity import (
    REASON_BLACK,
    REASON_BLOWN,
    REASON_CAMERA_INSIDE,
    SanityResult,
    check_frame,
    frame_exposure_problem,
)


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


def _flat(v: int, h: int = 60, w: int = 80) -> np.ndarray:
    return np.full((h, w, 3), v, np.uint8)


def _normal_frame() -> np.ndarray:
    rng = _rng()
    return rng.integers(20, 230, size=(60, 80, 3), dtype=np.uint8)


def test_normal_frame_ok():
    assert frame_exposure_problem(_normal_frame()) is None
    r = check_frame(_normal_frame(), camera_inside=False)
    assert r == SanityResult(ok=True, reasons=[])


@pytest.mark.parametrize("v", [0, 3, 7])
def test_black_frames(v):
    assert frame_exposure_problem(_flat(v)) == REASON_BLACK


def test_black_with_sensor_noise_is_black():
    img = _rng().integers(0, 12, size=(60, 80, 3), dtype=np.uint8)
    assert frame_exposure_problem(img) == REASON_BLACK


def test_dark_frame_with_tiny_lamp_is_black():
    img = _flat(2)
    img[:3, :3] = 255  # 9 of 4800 pixels: below the 99th percentile
    assert frame_exposure_problem(img) == REASON_BLACK


def test_dim_but_visible_frame_passes():
    img = _flat(5)
    img[:, :20] = 120  # a quarter of the frame is lit
    assert frame_exposure_problem(img) is None


def test_blown_frames():
    assert frame_exposure_problem(_flat(255)) == REASON_BLOWN
    img = _flat(252)
    img[:5, :] = 40  # ~8 % not clipped: still blown
    assert frame_exposure_problem(img) == REASON_BLOWN


def test_bright_but_not_blown_passes():
    img = _flat(255)
    img[:, :12] = 90  # 15 % of the frame has detail
    assert frame_exposure_problem(img) is None
    assert frame_exposure_problem(_flat(235)) is None


def test_colour_weights_are_rec709_luma():
    blue = np.zeros((10, 10, 3), np.uint8)
    blue[..., 2] = 255  # Y' = 0.0722: visible, not black
    assert frame_exposure_problem(blue) is None
    deep_blue = np.zeros((10, 10, 3), np.uint8)
    deep_blue[..., 2] = 90  # Y' ~ 0.025: black
    assert frame_exposure_problem(deep_blue) == REASON_BLACK


def test_grey_and_rgba_inputs():
    assert frame_exposure_problem(np.zeros((10, 10), np.uint8)) == REASON_BLACK
    rgba = np.dstack([_normal_frame(), np.zeros((60, 80), np.uint8)])
    assert frame_exposure_problem(rgba) is None
    with pytest.raises(ValueError):
        frame_exposure_problem(np.zeros((10, 10, 3), np.float32))
    with pytest.raises(ValueError):
        frame_exposure_problem(np.zeros((10, 10, 2), np.uint8))


def test_check_frame_combines_reasons():
    r = check_frame(_normal_frame(), camera_inside=True)
    assert not r.ok and r.reasons == [REASON_CAMERA_INSIDE]
    r = check_frame(_flat(0), camera_inside=True)
    assert not r.ok and r.reasons == [REASON_CAMERA_INSIDE, REASON_BLACK]
    r = check_frame(_flat(255), camera_inside=False)
    assert not r.ok and r.reasons == [REASON_BLOWN]
    assert SanityResult.model_validate_json(r.model_dump_json()) == r
