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


def _edge_contrast_by_scipy(img, mask, window):
    """Table 2 edge contrast rebuilt with scipy.ndimage (odd windows): inner ring = the mask
    minus its 3x3 erosion (outside the frame counts as mask, as OpenCV's erosion border
    does), outer ring = 5x5 dilation minus 3x3 dilation, window sums zero-padded at the
    frame edge; returns the mean local step and the outer-ring counts at the inner ring."""
    m = np.asarray(mask, bool)
    inner = m & ~ndimage.binary_erosion(m, np.ones((3, 3)), border_value=1)
    outer = ndimage.binary_dilation(m, np.ones((5, 5))) & ~ndimage.binary_dilation(m, np.ones((3, 3)))
    x = img.astype(float) / 255.0
    y = x[..., 0] * 0.2126 + x[..., 1] * 0.7152 + x[..., 2] * 0.0722
    box = lambda a: ndimage.correlate(a.astype(float), np.ones((window, window)), mode="constant", cval=0.0)
    n_in, n_out = box(inner), box(outer)
    at = inner & (n_out > 0)
    if not at.any():
        return None, n_out[inner]
    step = np.abs(box(y * inner)[at] / n_in[at] - box(y * outer)[at] / n_out[at])
    return float(step.mean()), n_out[inner]


def _blob_masks(rng, shape, n):
    """Smoothed-noise blobs, some cut by the frame edge, plus rectangles on the frame edges."""
    out = []
    for _ in range(n):
        f = ndimage.gaussian_filter(rng.random(shape), 2.0)
        out.append(f > np.quantile(f, rng.uniform(0.5, 0.8)))
    H, W = shape
    for (r0, r1, c0, c1) in ((0, 8, 0, W), (H - 5, H, 3, 20), (4, 20, 0, 3), (2, H - 2, W - 6, W)):
        m = np.zeros(shape, bool)
        m[r0:r1, c0:c1] = True
        out.append(m)
    return out


@pytest.mark.parametrize("window", [5, 7])
def test_edge_contrast_matches_an_independent_scipy_build(window):
    rng = np.random.default_rng(11)
    sparse_outer = False
    for mask in _blob_masks(rng, (32, 36), 12):
        img = rng.integers(0, 256, size=(32, 36, 3), dtype=np.uint8)
        want, n_out = _edge_contrast_by_scipy(img, mask, window)
        sparse_outer |= bool(np.any(n_out == 1))
        got = st.edge_contrast(img, mask, window=window)
        assert (got is None) == (want is None)
        if want is not None:
            assert got == pytest.approx(want, rel=1e-5, abs=1e-7)
        # a 0/1 integer mask reads as the boolean one
        got8 = st.edge_contrast(img, mask.astype(np.uint8), window=window)
        assert got8 == got
    assert sparse_outer      # some boundary pixel sees a single outer-ring pixel: it still counts


def test_edge_contrast_at_the_frame_edge_pads_with_nothing():
    """A bar on rows 0-3 along the top edge, at code 100: its inner ring is row 3 (rows 0-2
    keep all 3x3 neighbours, the frame's outside counting as mask), its outer ring row 5
    (3x3 dilation reaches row 4, 5x5 row 5), here a ramp 40 + 10 c across the columns c.
    An inner pixel at column j compares with the outer pixels of columns j-3..j+3 that exist:
    beyond the frame's left and right edges there are none (not mirrored ones)."""
    H, W = 12, 20
    img = np.full((H, W, 3), 0, np.uint8)
    img[:4] = 100
    img[5] = (40 + 10 * np.arange(W))[:, None]
    mask = np.zeros((H, W), bool)
    mask[:4] = True
    steps = []
    for j in range(W):
        cols = range(max(j - 3, 0), min(j + 3, W - 1) + 1)
        outer = sum(40 + 10 * c for c in cols) / len(cols)
        steps.append(abs(100 - outer) / 255)
    want = sum(steps) / W
    assert st.edge_contrast(img, mask) == pytest.approx(want, rel=1e-5)
    assert _edge_contrast_by_scipy(img, mask, 7)[0] == pytest.approx(want, rel=1e-9)


def test_weber_contrast_of_black_ink_is_one():
    """Ink at code 0 has linear luminance 0: the contrast is (paper - 0) / paper = 1."""
    img = np.full((1, 10, 3), 230, np.uint8)
    img[0, :3] = 0
    assert st.paper_and_ink(img, np.ones((1, 10), bool))[1] == 0.0
    assert st.weber_contrast(img, np.ones((1, 10), bool)) == 1.0


def test_luma_and_linear_luminance_are_float32_like_the_frames_they_read():
    img = np.array([[[10, 128, 255]]], np.uint8)
    assert st.luma(img).dtype == np.float32 and st.linear_luminance(img).dtype == np.float32
