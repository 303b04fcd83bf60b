"""scorers.image_stats: each primitive against an independent computation (scipy's
convolution for the Laplacian, the sRGB decode and percentiles by hand, plain numpy
for masks) on small constructed images."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage

from scorers import image_stats as st


def _lin(code):
    x = np.asarray(code, float) / 255.0
    return np.where(x <= 0.04045, x / 12.92, ((x + 0.055) / 1.055) ** 2.4)


def test_constants():
    assert (st.PAPER_PERCENTILE, st.INK_PERCENTILE, st.SATURATED_CODE, st.EDGE_STEP_WINDOW_PX) == (90, 10, 250, 7)


def test_luma_weights_rec709_on_encoded_values():
    img = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [51, 102, 204]]], np.uint8)
    want = [0.2126, 0.7152, 0.0722, (0.2126 * 51 + 0.7152 * 102 + 0.0722 * 204) / 255]
    assert np.allclose(st.luma(img)[0], want, atol=1e-6)


def test_linear_luminance_decodes_srgb_both_sides_of_the_toe():
    codes = np.array([0, 5, 10, 11, 40, 128, 255], np.uint8)      # 10/255 = 0.0392 < 0.04045 < 11/255
    img = np.stack([codes] * 3, axis=-1)[None]
    assert np.allclose(st.linear_luminance(img)[0], _lin(codes), atol=1e-6)
    assert st.linear_luminance(img)[0, 2] == pytest.approx(10 / 255 / 12.92, rel=1e-5)
    red = np.array([[[128, 0, 0]]], np.uint8)
    assert st.linear_luminance(red)[0, 0] == pytest.approx(0.2126 * _lin(128), rel=1e-5)
    blue = np.array([[[0, 0, 200]]], np.uint8)
    assert st.linear_luminance(blue)[0, 0] == pytest.approx(0.0722 * _lin(200), rel=1e-5)


def test_mask_pixels_and_centroid_in_pixel_centre_coordinates():
    idx = np.zeros((6, 8), np.int32)
    idx[1, 2] = idx[1, 6] = idx[4, 2] = 3          # u = 2, 6, 2; v = 1, 1, 4
    assert st.mask_pixels(idx, 3) == 3 and st.mask_pixels(idx, 4) == 0
    assert st.mask_centroid(idx, 3) == pytest.approx((10 / 3, 2.0))
    assert st.mask_centroid(idx, 9) is None


def _cv_laplacian_ksize3(y):
    """OpenCV's 3x3 Laplacian aperture (ksize=3) with its default reflect-101 border."""
    k = np.array([[2, 0, 2], [0, -8, 0], [2, 0, 2]], float)
    return ndimage.convolve(y.astype(float), k, mode="mirror")


def test_laplacian_variance_is_the_variance_inside_the_eroded_mask():
    rng = np.random.default_rng(4)
    img = rng.integers(0, 256, size=(20, 24, 3), dtype=np.uint8)
    mask = np.zeros((20, 24), bool)
    mask[3:15, 4:20] = True
    inner = ndimage.binary_erosion(mask, np.ones((3, 3)))
    lap = _cv_laplacian_ksize3(st.luma(img))
    assert st.laplacian_variance(img, mask) == pytest.approx(float(lap[inner].var()), rel=1e-4)
    # a flat image has no Laplacian; a mask whose erosion keeps < 9 px gives no value
    assert st.laplacian_variance(np.full_like(img, 90), mask) == pytest.approx(0.0, abs=1e-12)
    small = np.zeros((20, 24), bool)
    small[5:10, 5:10] = True                       # erodes to 3x3 = 9 px: a value
    assert st.laplacian_variance(img, small) is not None
    small[5:10, 9] = False                         # 5x4 erodes to 3x2 = 6 px: none
    assert st.laplacian_variance(img, small) is None


def test_paper_and_ink_are_the_90th_and_10th_percentiles():
    img = np.zeros((1, 10, 3), np.uint8)
    codes = np.array([10, 20, 30, 40, 50, 60, 70, 80, 90, 250], np.uint8)
    img[0, :, :] = codes[:, None]
    mask = np.ones((1, 10), bool)
    y = _lin(codes)
    paper, ink = st.paper_and_ink(img, mask)
    assert paper == pytest.approx(np.percentile(y, 90), rel=1e-5)
    assert ink == pytest.approx(np.percentile(y, 10), rel=1e-5)
    assert paper == pytest.approx(y[8] + 0.1 * (y[9] - y[8]), rel=1e-5)   # linear interpolation by hand
    assert st.paper_luminance(img, mask) == pytest.approx(paper)
    assert st.weber_contrast(img, mask) == pytest.approx((paper - ink) / paper, rel=1e-6)
    # fewer than 4 mask pixels: no levels
    m3 = np.zeros((1, 10), bool)
    m3[0, :3] = True
    assert st.paper_and_ink(img, m3) is None and st.paper_luminance(img, m3) is None
    m3[0, 3] = True
    assert st.paper_and_ink(img, m3) is not None


def test_weber_contrast_undefined_on_black_paper():
    black = np.zeros((4, 4, 3), np.uint8)
    assert st.weber_contrast(black, np.ones((4, 4), bool)) is None
    assert st.paper_luminance(black, np.ones((4, 4), bool)) == 0.0


def test_saturated_fraction_any_channel_at_or_above_250():
    img = np.zeros((1, 5, 3), np.uint8)
    img[0, 0] = [250, 0, 0]
    img[0, 1] = [0, 0, 249]
    img[0, 2] = [0, 255, 0]
    img[0, 3] = [249, 249, 249]
    mask = np.array([[True, True, True, True, False]])
    assert st.saturated_fraction(img, mask) == 0.5
    assert st.saturated_fraction(img, np.zeros((1, 5), bool)) is None


def test_edge_contrast_local_steps_do_not_cancel():
    """A wire mask darker than the sunlit roof on its left, lighter than the shade on its
    right: each local step is 60 codes, so the contrast is 60/255, not the ~0 of global means."""
    img = np.zeros((40, 40, 3), np.uint8)
    img[:, :20] = 200
    img[:, 20:] = 80
    mask = np.zeros((40, 40), bool)
    mask[5:35, 10:30] = True
    img[mask] = 140
    ec = st.edge_contrast(img, mask)
    assert ec == pytest.approx(60 / 255, abs=0.02)
    # the ring 1 px outside the mask is skipped (filter smear): setting it changes nothing
    smeared = img.copy()
    ring = ndimage.binary_dilation(mask, np.ones((3, 3))) & ~mask
    smeared[ring] = 140
    assert st.edge_contrast(smeared, mask) == pytest.approx(ec, abs=1e-6)
    # the ring 2 px out is what it compares with
    outer = ndimage.binary_dilation(mask, np.ones((5, 5))) & ~ndimage.binary_dilation(mask, np.ones((3, 3)))
    same = img.copy()
    same[outer] = 140
    assert st.edge_contrast(same, mask) == pytest.approx(0.0, abs=1e-6)


def test_edge_contrast_window_limits_the_comparison():
    """With a 1-px window no inner-ring pixel has an outer-ring pixel in it: no value."""
    img = np.full((30, 30, 3), 100, np.uint8)
    mask = np.zeros((30, 30), bool)
    mask[10:20, 10:20] = True
    img[mask] = 160
    assert st.edge_contrast(img, mask, window=1) is None
    assert st.edge_contrast(img, mask, window=5) == pytest.approx(60 / 255, abs=1e-4)
    # a mask that fills the frame has no outside ring
    assert st.edge_contrast(img, np.ones((30, 30), bool)) is None
