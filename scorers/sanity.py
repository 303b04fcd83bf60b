"""Render sanity checks that exclude broken frames before scoring.

RealityBench App. D: "Frames that fail the render sanity check (camera inside
a mesh, black or blown frame ...) are excluded". A VLM cannot be graded on a
frame it cannot see, so these frames are excluded, not scored as rejects.

Luma is measured on the final sRGB-encoded frame (Rec.709 weights on gamma
encoded values, i.e. Y' not linear Y): that is what the model is shown, and
the thresholds below are read in display terms.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict

from scorers.image_stats import luma

__all__ = [
    "BLACK_MEAN_LUMA",
    "BLACK_P99_LUMA",
    "BLOWN_LUMA",
    "BLOWN_FRACTION",
    "REASON_BLACK",
    "REASON_BLOWN",
    "REASON_CAMERA_INSIDE",
    "frame_luma",
    "frame_exposure_problem",
    "SanityResult",
    "check_frame",
]

# Black: mean Y' < 0.03 (~8/255: the whole frame is near-black), or the 99th
# percentile < 0.06 (~15/255: not even 1 % of the frame shows anything, so a
# few lit pixels cannot rescue it; nor can a hot pixel).
BLACK_MEAN_LUMA = 0.03
BLACK_P99_LUMA = 0.06
# Blown: at least 90 % of pixels at Y' >= 0.98 (~250/255), i.e. clipped white.
BLOWN_LUMA = 0.98
BLOWN_FRACTION = 0.90

REASON_BLACK = "black frame"
REASON_BLOWN = "blown frame"
REASON_CAMERA_INSIDE = "camera inside a mesh"


def frame_luma(img_uint8: np.ndarray) -> np.ndarray:
    """(H, W) luma in [0, 1] from uint8 grey (H, W), RGB or RGBA (alpha ignored)."""
    img = np.asarray(img_uint8)
    if img.dtype != np.uint8:
        raise ValueError(f"expected a uint8 frame, got {img.dtype}")
    if img.ndim == 2:
        return img.astype(np.float32) / 255.0
    if img.ndim == 3 and img.shape[2] in (3, 4):
        return luma(img[:, :, :3])
    raise ValueError(f"expected (H, W), (H, W, 3) or (H, W, 4), got {img.shape}")


def frame_exposure_problem(img_uint8: np.ndarray) -> str | None:
    """Return "black frame", "blown frame" or None (thresholds above)."""
    y = frame_luma(img_uint8)
    if y.size == 0:
        return REASON_BLACK  # nothing to look at
    if float(y.mean()) < BLACK_MEAN_LUMA or float(np.percentile(y, 99)) < BLACK_P99_LUMA:
        return REASON_BLACK
    if float(np.mean(y >= BLOWN_LUMA)) >= BLOWN_FRACTION:
        return REASON_BLOWN
    return None


class SanityResult(BaseModel):
    """Outcome of the render sanity check; ``reasons`` empty iff ``ok``."""

    model_config = ConfigDict(extra="forbid")

    ok: bool
    reasons: list[str]


def check_frame(img_uint8: np.ndarray, camera_inside: bool) -> SanityResult:
    """Combine the exposure check with ``camera_inside`` (ray-cast elsewhere)."""
    reasons: list[str] = []
    if camera_inside:
        reasons.append(REASON_CAMERA_INSIDE)
    problem = frame_exposure_problem(img_uint8)
    if problem is not None:
        reasons.append(problem)
    return SanityResult(ok=not reasons, reasons=reasons)
