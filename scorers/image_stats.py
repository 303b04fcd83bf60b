"""Frame-side measurements read off the rendered image inside an object-index mask."""
from __future__ import annotations

import cv2
import numpy as np


def luma(image_uint8: np.ndarray) -> np.ndarray:
    """Rec.709 luma of the sRGB-encoded frame, 0..1."""
    x = image_uint8.astype(np.float32) / 255.0
    return x[..., 0] * 0.2126 + x[..., 1] * 0.7152 + x[..., 2] * 0.0722


def mask_pixels(object_index: np.ndarray, object_id: int) -> int:
    return int((object_index == object_id).sum())


def mask_centroid(object_index: np.ndarray, object_id: int) -> tuple[float, float] | None:
    """(u, v) centroid of the mask in pixel-centre coordinates."""
    vs, us = np.nonzero(object_index == object_id)
    if len(us) == 0:
        return None
    return float(us.mean()), float(vs.mean())


def laplacian_variance(image_uint8: np.ndarray, mask: np.ndarray) -> float | None:
    """Variance of the Laplacian of the luma inside `mask` (eroded so edges of the mask
    itself do not count): the classic no-reference sharpness measure."""
    inner = cv2.erode(mask.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    if inner.sum() < 9:
        return None
    lap = cv2.Laplacian(luma(image_uint8), cv2.CV_32F, ksize=3)
    return float(lap[inner].var())


# ---- Table 2 frame-side primitives, read inside an object-index mask ----------------

PAPER_PERCENTILE = 90   # the paper (background) level of a label: its bright majority
INK_PERCENTILE = 10     # the ink level: its dark minority
SATURATED_CODE = 250    # an 8-bit channel at or above this is clipped


def linear_luminance(image_uint8: np.ndarray) -> np.ndarray:
    """Rec.709 luminance of the decoded (linear) sRGB frame, 0..1."""
    x = image_uint8.astype(np.float32) / 255.0
    lin = np.where(x <= 0.04045, x / 12.92, ((x + 0.055) / 1.055) ** 2.4)
    return lin[..., 0] * 0.2126 + lin[..., 1] * 0.7152 + lin[..., 2] * 0.0722


def paper_and_ink(image_uint8: np.ndarray, mask: np.ndarray) -> tuple[float, float] | None:
    """(paper, ink) levels in linear luminance: the 90th and 10th percentiles in the mask."""
    if mask.sum() < 4:
        return None
    y = linear_luminance(image_uint8)[mask]
    return float(np.percentile(y, PAPER_PERCENTILE)), float(np.percentile(y, INK_PERCENTILE))


def weber_contrast(image_uint8: np.ndarray, mask: np.ndarray) -> float | None:
    """(paper - ink) / paper: text that does not stand out from its paper is unreadable."""
    levels = paper_and_ink(image_uint8, mask)
    if levels is None or levels[0] <= 0:
        return None
    return (levels[0] - levels[1]) / levels[0]


def paper_luminance(image_uint8: np.ndarray, mask: np.ndarray) -> float | None:
    """The paper level in linear luminance: a dark label is unreadable whatever its contrast."""
    levels = paper_and_ink(image_uint8, mask)
    return None if levels is None else levels[0]


def saturated_fraction(image_uint8: np.ndarray, mask: np.ndarray) -> float | None:
    """Share of mask pixels with any channel clipped (glare washing a label out)."""
    if mask.sum() == 0:
        return None
    return float((image_uint8[mask] >= SATURATED_CODE).any(axis=-1).mean())


def edge_contrast(image_uint8: np.ndarray, mask: np.ndarray) -> float | None:
    """Mean luma step across the mask's boundary: the 1-px ring just inside against the
    1-px ring just outside (display luma, as a viewer sees the wire against the roof)."""
    m = mask.astype(np.uint8)
    k = np.ones((3, 3), np.uint8)
    inner = m.astype(bool) & ~cv2.erode(m, k).astype(bool)
    outer = cv2.dilate(m, k).astype(bool) & ~m.astype(bool)
    if inner.sum() == 0 or outer.sum() == 0:
        return None
    y = luma(image_uint8)
    return float(abs(y[inner].mean() - y[outer].mean()))
