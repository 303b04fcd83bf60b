"""scorers.sanity at its thresholds (RealityBench App. D: black or blown frames are excluded).

Flat grey frames have Y' = code / 255 (Rec.709 weights sum to 1), so the thresholds fall
between neighbouring codes: black below Y' 0.06 at the 99th percentile (code 15 = 0.0588 is
black, 16 = 0.0627 is not), or a mean below 0.03; blown when >= 90% of pixels reach
Y' 0.98 (code 250 = 0.9804 does, 249 = 0.9765 does not)."""
from __future__ import annotations

import numpy as np
import pytest

from scorers.sanity import (BLACK_MEAN_LUMA, BLACK_P99_LUMA, BLOWN_FRACTION, BLOWN_LUMA, REASON_BLACK, REASON_BLOWN,
                            check_frame, frame_exposure_problem, frame_luma)


def test_thresholds():
    assert (BLACK_MEAN_LUMA, BLACK_P99_LUMA, BLOWN_LUMA, BLOWN_FRACTION) == (0.03, 0.06, 0.98, 0.90)
    assert (REASON_BLACK, REASON_BLOWN) == ("black frame", "blown frame")


@pytest.mark.parametrize("code, problem", [(15, REASON_BLACK), (16, None), (249, None), (250, REASON_BLOWN)])
def test_flat_frames_between_neighbouring_codes(code, problem):
    assert frame_exposure_problem(np.full((10, 10, 3), code, np.uint8)) == problem


@pytest.mark.parametrize("lit, problem", [(290, REASON_BLACK), (310, None)])
def test_black_by_the_mean_with_a_bright_99th_percentile(lit, problem):
    """`lit` of 10000 pixels white, the rest black: p99 is white, the mean is lit / 10000."""
    img = np.zeros((100, 100, 3), np.uint8)
    img.reshape(-1, 3)[:lit] = 255
    assert float(np.percentile(frame_luma(img), 99)) == pytest.approx(1.0)
    assert frame_exposure_problem(img) == problem


@pytest.mark.parametrize("clipped, code, problem", [
    (9000, 255, REASON_BLOWN), (8999, 255, None),      # exactly 90% clipped is blown
    (9500, 250, REASON_BLOWN), (9500, 249, None),      # Y' 0.98 reached at code 250
])
def test_blown_at_90_percent_of_pixels_at_098(clipped, code, problem):
    img = np.full((100, 100, 3), 120, np.uint8)
    img.reshape(-1, 3)[:clipped] = code
    assert frame_exposure_problem(img) == problem


def test_empty_frame_is_black():
    assert frame_exposure_problem(np.zeros((0, 0, 3), np.uint8)) == REASON_BLACK
    assert check_frame(np.zeros((0, 5), np.uint8), camera_inside=False).reasons == [REASON_BLACK]


def test_frame_luma_of_grey_rgb_and_rgba():
    grey = np.array([[0, 51], [255, 102]], np.uint8)
    assert np.allclose(frame_luma(grey), [[0.0, 0.2], [1.0, 0.4]], atol=1e-7)
    assert frame_luma(grey).dtype == np.float32
    rgb = np.zeros((1, 3, 3), np.uint8)
    rgb[0, 0, 0] = rgb[0, 1, 1] = rgb[0, 2, 2] = 255
    assert np.allclose(frame_luma(rgb), [[0.2126, 0.7152, 0.0722]], atol=1e-6)
    rgba = np.concatenate([rgb, np.full((1, 3, 1), 255, np.uint8)], axis=2)
    assert np.allclose(frame_luma(rgba), [[0.2126, 0.7152, 0.0722]], atol=1e-6)   # alpha ignored


def test_bad_frames_are_refused_with_their_dtype_or_shape():
    with pytest.raises(ValueError, match="expected a uint8 frame, got float64"):
        frame_luma(np.zeros((2, 2, 3)))
    with pytest.raises(ValueError, match=r"expected \(H, W\), \(H, W, 3\) or \(H, W, 4\), got \(2, 2, 5\)"):
        frame_luma(np.zeros((2, 2, 5), np.uint8))
    with pytest.raises(ValueError, match=r"got \(2,\)"):
        frame_luma(np.zeros(2, np.uint8))


def test_check_frame_ok_iff_no_reason():
    good = np.full((10, 10, 3), 120, np.uint8)
    assert check_frame(good, camera_inside=False).model_dump() == {"ok": True, "reasons": []}
    r = check_frame(np.full((10, 10, 3), 255, np.uint8), camera_inside=True)
    assert r.model_dump() == {"ok": False, "reasons": ["camera inside a mesh", "blown frame"]}


def test_black_by_the_99th_percentile_despite_a_few_bright_pixels():
    """Flat code 12 (mean 0.047 >= 0.03) with 0.5% of pixels white: the 99th percentile is
    still 0.047 < 0.06, so the frame is black (the maximum would say otherwise)."""
    img = np.full((100, 100, 3), 12, np.uint8)
    img.reshape(-1, 3)[:50] = 255
    assert float(frame_luma(img).mean()) > 0.03
    assert frame_exposure_problem(img) == REASON_BLACK


def test_a_99th_percentile_of_exactly_006_is_not_black():
    """Black needs p99 strictly below 0.06. Five pixels, four at RGB (16, 2, 44) and one at
    (4, 7, 135): the 99th percentile interpolates 96% of the way from the fourth to the fifth
    (index 0.99 * 4 = 3.96) and lands on 0.06 exactly in float64 (found by searching the
    Rec.709 lumas of all 2^24 codes); the mean is 0.0374 >= 0.03. Not black, not blown."""
    img = np.array([[[16, 2, 44]] * 4 + [[4, 7, 135]]], np.uint8)
    y = frame_luma(img)
    assert float(np.percentile(y, 99)) == 0.06 and float(y.mean()) > 0.03
    assert frame_exposure_problem(img) is None
    # one code darker on the bright pixel's blue: p99 drops below 0.06 and the frame is black
    darker = img.copy()
    darker[0, 4, 2] = 134
    assert float(np.percentile(frame_luma(darker), 99)) < 0.06
    assert frame_exposure_problem(darker) == REASON_BLACK
