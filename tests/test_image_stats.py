"""Table 2's frame-side primitives on constructed images with hand-computed values."""
import numpy as np
import pytest

from scorers.image_stats import (edge_contrast, linear_luminance, paper_luminance, saturated_fraction,
                                 weber_contrast)


def _label(paper: int, ink: int, ink_share: float = 0.2):
    img = np.zeros((40, 50, 3), np.uint8)
    mask = np.zeros((40, 50), bool)
    mask[5:35, 5:45] = True
    img[mask] = paper
    rows = int(30 * ink_share)
    img[5:5 + rows, 5:45] = ink
    return img, mask


def test_weber_contrast_and_paper_luminance_are_in_linear_light():
    img, mask = _label(200, 40)
    lin = lambda c: ((c / 255 + 0.055) / 1.055) ** 2.4  # noqa: E731  (both codes are above the linear toe)
    assert paper_luminance(img, mask) == pytest.approx(lin(200), rel=1e-5)
    assert weber_contrast(img, mask) == pytest.approx((lin(200) - lin(40)) / lin(200), rel=1e-5)
    flat, m = _label(180, 180)
    assert weber_contrast(flat, m) == pytest.approx(0.0, abs=1e-7)
    assert linear_luminance(np.full((1, 1, 3), 255, np.uint8))[0, 0] == pytest.approx(1.0)


def test_saturated_fraction_counts_clipped_pixels_in_the_mask_only():
    img, mask = _label(252, 40, ink_share=0.5)
    img[0:5] = 255  # outside the mask: ignored
    assert saturated_fraction(img, mask) == pytest.approx(0.5)


def test_edge_contrast_is_the_luma_step_across_the_boundary():
    img = np.full((30, 30, 3), 100, np.uint8)
    mask = np.zeros((30, 30), bool)
    mask[10:20, 10:20] = True
    img[mask] = 160
    assert edge_contrast(img, mask) == pytest.approx(60 / 255, abs=1e-4)
    assert edge_contrast(img, np.zeros_like(mask)) is None
