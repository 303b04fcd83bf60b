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
