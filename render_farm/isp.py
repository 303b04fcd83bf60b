"""Phone-style image signal processor applied to Cycles renders.

RealityBench §3: "Sensor noise, white balance, tone mapping, chromatic
aberration, vignetting and a JPEG re-encode are applied after the render".
A clean path-traced frame is too easy to tell apart from a phone photo, so
every frame goes through a small, fully parameterised camera pipeline:

    exposure -> vignetting -> WB error -> noise (clip >= 0) -> CA
             -> tone map -> sRGB OETF -> quantise -> JPEG

All randomness comes from explicit ``numpy.random.Generator`` arguments
(parameters are drawn once per frame with :func:`sample_isp_params`, the
noise field with the rng passed to :func:`apply_isp`), so the same input,
parameters and rng state always give identical bytes.
"""

from __future__ import annotations

import io
import math
import os

import cv2
import numpy as np
from PIL import Image
from pydantic import BaseModel, ConfigDict, Field

from formats import atomic

__all__ = [
    "REC709_WEIGHTS",
    "IspParams",
    "sample_isp_params",
    "luminance",
    "auto_exposure_gain",
    "vignette_gain",
    "apply_vignette",
    "add_sensor_noise",
    "apply_chromatic_aberration",
    "tone_map",
    "srgb_oetf",
    "quantise",
    "linear_stage",
    "apply_isp",
    "encode_jpeg",
    "process_frame",
    "write_jpeg_atomic",
]

REC709_WEIGHTS = (0.2126, 0.7152, 0.0722)

# Auto-exposure: the log-average luminance is mapped to this mid-grey key.
AE_KEY = 0.18
# Floor inside the log so black pixels do not send the log-average to -inf.
AE_LOG_EPS = 1e-4
# Gain clamp: a black frame must stay black instead of being amplified noise.
AE_GAIN_MIN = 1.0 / 16.0
AE_GAIN_MAX = 16.0
# Cycles occasionally emits NaN/inf fireflies; inf is clipped to half-float max.
_LINEAR_MAX = 65504.0


class IspParams(BaseModel):
    """Per-frame camera pipeline parameters (plain floats/ints: byte-stable JSON).

    The exposure *gain* depends on the image (auto-exposure), so only the
    drawn bias is stored; :func:`auto_exposure_gain` derives the gain.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    exposure_bias_ev: float = Field(0.0, ge=-4.0, le=4.0)
    wb_r: float = Field(1.0, gt=0.0)
    wb_g: float = Field(1.0, gt=0.0)
    wb_b: float = Field(1.0, gt=0.0)
    shot_gain: float = Field(0.0, ge=0.0)
    read_sigma: float = Field(0.0, ge=0.0)
    # Global contrast: power about mid-grey in linear (filmic toe/shoulder with the curve below).
    tone_contrast: float = Field(1.0, gt=0.0)
    # Extended-Reinhard white point: linear value that maps to display white.
    tone_white: float = Field(4.0, gt=0.0)
    # Lateral CA: R is scaled by (1 + k), B by (1 - k) about the image centre.
    ca_k: float = Field(0.0, ge=0.0, le=0.05)
    vignette_strength: float = Field(0.0, ge=0.0, lt=1.0)
    jpeg_quality: int = Field(90, ge=1, le=100)


def sample_isp_params(rng: np.random.Generator) -> IspParams:
    """Draw one phone-like camera: the ranges are the RealityBench §3 ranges."""
    bias = float(rng.uniform(-0.5, 0.5))
    wb_r = float(np.clip(rng.normal(1.0, 0.04), 0.8, 1.2))
    wb_b = float(np.clip(rng.normal(1.0, 0.04), 0.8, 1.2))
    # ISO-like level: shot and read noise are drawn together so high-ISO frames
    # are noisy in both terms, as on a real sensor.
    iso = float(rng.uniform(0.0, 1.0))
    shot_gain = float(math.exp(math.log(1e-4) + iso * (math.log(4e-3) - math.log(1e-4))))
    read_sigma = float(5e-4 + (4e-3 - 5e-4) * float(np.clip(iso + rng.normal(0.0, 0.15), 0.0, 1.0)))
    contrast = float(rng.uniform(1.0, 1.2))
    white = float(math.exp(rng.uniform(math.log(2.0), math.log(8.0))))
    ca_k = float(rng.uniform(0.0, 0.0015))
    vignette = float(rng.uniform(0.1, 0.4))
    quality = int(rng.integers(80, 96))
    return IspParams(
        exposure_bias_ev=bias,
        wb_r=wb_r,
        wb_g=1.0,
        wb_b=wb_b,
        shot_gain=shot_gain,
        read_sigma=read_sigma,
        tone_contrast=contrast,
        tone_white=white,
        ca_k=ca_k,
        vignette_strength=vignette,
        jpeg_quality=quality,
    )


def luminance(rgb: np.ndarray) -> np.ndarray:
    """Rec.709 luminance of (..., 3) RGB; on sRGB-encoded input this is luma Y'."""
    rgb = np.asarray(rgb)
    if rgb.shape[-1] != 3:
        raise ValueError(f"expected (..., 3) RGB, got shape {rgb.shape}")
    w = np.asarray(REC709_WEIGHTS, dtype=np.float32)
    return rgb.astype(np.float32, copy=False) @ w


def _as_linear(linear_rgb: np.ndarray) -> np.ndarray:
    """Validate and sanitise a render: float32 (H,W,3), finite, >= 0."""
    x = np.asarray(linear_rgb)
    if x.ndim != 3 or x.shape[2] != 3:
        raise ValueError(f"expected (H, W, 3) linear RGB, got shape {x.shape}")
    if x.shape[0] == 0 or x.shape[1] == 0:
        raise ValueError("empty image")
    x = np.nan_to_num(x.astype(np.float32), nan=0.0, posinf=_LINEAR_MAX, neginf=0.0)
    return np.clip(x, 0.0, _LINEAR_MAX)


def auto_exposure_gain(linear_rgb: np.ndarray, params: IspParams) -> float:
    """Gain mapping the log-average luminance to 0.18, times 2**bias, clamped.

    The clamp to [1/16, 16] keeps a black frame black, so the sanity check
    downstream can still reject it.
    """
    lum = luminance(_as_linear(linear_rgb)).astype(np.float64)
    log_avg = float(np.exp(np.mean(np.log(AE_LOG_EPS + lum))))
    gain = AE_KEY / log_avg * 2.0 ** params.exposure_bias_ev
    return float(np.clip(gain, AE_GAIN_MIN, AE_GAIN_MAX))


def _centre(h: int, w: int) -> tuple[float, float]:
    """Optical centre in pixel-index coordinates (pixel centres at integers)."""
    return (w - 1) / 2.0, (h - 1) / 2.0


def vignette_gain(h: int, w: int, strength: float) -> np.ndarray:
    """(H, W) gain 1 - strength * r**2 with r = 1 at the corner pixel centres."""
    cx, cy = _centre(h, w)
    ys = (np.arange(h, dtype=np.float64) - cy)[:, None]
    xs = (np.arange(w, dtype=np.float64) - cx)[None, :]
    r2_corner = cx * cx + cy * cy
    r2 = (xs * xs + ys * ys) / r2_corner if r2_corner > 0 else np.zeros((h, w))
    return (1.0 - strength * r2).astype(np.float32)


def apply_vignette(x: np.ndarray, strength: float) -> np.ndarray:
    """Darken towards the corners (lens fall-off)."""
    if strength == 0.0:
        return x
    return x * vignette_gain(x.shape[0], x.shape[1], strength)[:, :, None]


def add_sensor_noise(x: np.ndarray, params: IspParams, rng: np.random.Generator) -> np.ndarray:
    """Gaussian approximation of Poisson-Gaussian noise, clipped at 0.

    variance = shot_gain * x + read_sigma**2 (linear units), independent per
    pixel and channel. Exposed so tests can measure the noise before tone map.
    """
    x = np.asarray(x, dtype=np.float32)
    if params.shot_gain == 0.0 and params.read_sigma == 0.0:
        return np.maximum(x, 0.0)
    var = np.float32(params.shot_gain) * np.maximum(x, 0.0) + np.float32(params.read_sigma) ** 2
    n = rng.standard_normal(size=x.shape, dtype=np.float32)
    return np.maximum(x + n * np.sqrt(var), 0.0).astype(np.float32)


def _radial_scale(channel: np.ndarray, scale: float) -> np.ndarray:
    """Magnify one channel by ``scale`` about the centre (bilinear, edge replicate)."""
    h, w = channel.shape
    cx, cy = _centre(h, w)
    xs = (np.arange(w, dtype=np.float64) - cx) / scale + cx
    ys = (np.arange(h, dtype=np.float64) - cy) / scale + cy
    map_x = np.broadcast_to(xs[None, :], (h, w)).astype(np.float32)
    map_y = np.broadcast_to(ys[:, None], (h, w)).astype(np.float32)
    return cv2.remap(
        np.ascontiguousarray(channel, dtype=np.float32),
        map_x,
        map_y,
        interpolation=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )


def apply_chromatic_aberration(x: np.ndarray, k: float) -> np.ndarray:
    """Lateral CA: R magnified by 1 + k, B by 1 - k, G untouched.

    A feature at radius r moves outward by k*r in R and inward in B
    (k = 0.0015 is ~0.5 px at the edge of a 640 px frame, ~1 px R-B split).
    """
    if k == 0.0:
        return x
    out = np.empty_like(x, dtype=np.float32)
    out[:, :, 0] = _radial_scale(x[:, :, 0], 1.0 + k)
    out[:, :, 1] = x[:, :, 1]
    out[:, :, 2] = _radial_scale(x[:, :, 2], 1.0 - k)
    return out


def tone_map(x: np.ndarray, params: IspParams) -> np.ndarray:
    """Filmic curve: contrast power about mid-grey, then extended Reinhard.

    Extended Reinhard y = x (1 + x / w**2) / (1 + x) maps ``tone_white`` to 1
    and rolls off highlights smoothly; per-channel, so bright colours
    desaturate towards white as on a phone. Output is display-linear [0, 1].
    """
    x = np.maximum(np.asarray(x, dtype=np.float32), 0.0)
    if params.tone_contrast != 1.0:
        x = np.float32(AE_KEY) * np.power(x / np.float32(AE_KEY), np.float32(params.tone_contrast))
    w2 = np.float32(params.tone_white) ** 2
    y = x * (1.0 + x / w2) / (1.0 + x)
    return np.clip(y, 0.0, 1.0).astype(np.float32)


def srgb_oetf(y: np.ndarray) -> np.ndarray:
    """IEC 61966-2-1 sRGB encoding of display-linear values in [0, 1]."""
    y = np.clip(np.asarray(y, dtype=np.float32), 0.0, 1.0)
    return np.where(
        y <= 0.0031308,
        12.92 * y,
        1.055 * np.power(y, np.float32(1.0 / 2.4)) - 0.055,
    ).astype(np.float32)


def quantise(v: np.ndarray) -> np.ndarray:
    """[0, 1] float to uint8 with round-to-nearest."""
    return np.rint(np.clip(v, 0.0, 1.0) * 255.0).astype(np.uint8)


def linear_stage(linear_rgb: np.ndarray, params: IspParams, rng: np.random.Generator) -> np.ndarray:
    """Everything before the tone curve: exposure -> vignette -> WB -> noise -> CA."""
    x = _as_linear(linear_rgb)
    x = x * np.float32(auto_exposure_gain(x, params))
    x = apply_vignette(x, params.vignette_strength)
    x = x * np.asarray([params.wb_r, params.wb_g, params.wb_b], dtype=np.float32)
    x = add_sensor_noise(x, params, rng)
    x = apply_chromatic_aberration(x, params.ca_k)
    return x.astype(np.float32, copy=False)


def apply_isp(linear_rgb: np.ndarray, params: IspParams, rng: np.random.Generator) -> np.ndarray:
    """Scene-linear render -> uint8 sRGB (H, W, 3); noise draws come from ``rng``."""
    x = linear_stage(linear_rgb, params, rng)
    return quantise(srgb_oetf(tone_map(x, params)))


def encode_jpeg(img_uint8: np.ndarray, quality: int) -> bytes:
    """Baseline JPEG, 4:2:0, no optimise/progressive/metadata: byte-reproducible."""
    img = np.asarray(img_uint8)
    if img.dtype != np.uint8 or img.ndim != 3 or img.shape[2] != 3:
        raise ValueError(f"expected uint8 (H, W, 3), got {img.dtype} {img.shape}")
    if not 1 <= int(quality) <= 100:
        raise ValueError(f"JPEG quality must be in 1..100, got {quality}")
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(img), mode="RGB").save(
        buf,
        format="JPEG",
        quality=int(quality),
        subsampling=2,  # 4:2:0
        optimize=False,
        progressive=False,
    )
    return buf.getvalue()


def process_frame(
    linear_rgb: np.ndarray, params: IspParams, rng: np.random.Generator
) -> tuple[np.ndarray, bytes]:
    """Full pipeline: (uint8 sRGB image, JPEG bytes at ``params.jpeg_quality``)."""
    img = apply_isp(linear_rgb, params, rng)
    return img, encode_jpeg(img, params.jpeg_quality)


def write_jpeg_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Readers (contact sheets, packagers, a resumed farm) never see a half-written frame."""
    atomic.write_bytes(path, data)
