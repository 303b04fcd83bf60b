"""A CCTV-style camera pipeline for clips, besides the phone one (render_farm.isp).

A fixed camera is not a phone: one pipeline per clip (white balance, noise level,
tone curve), stronger compression (JPEG quality 55-80, as CCTV streams are), more sensor
noise, no lateral CA, little vignetting, and an exposure that drifts at a fixed rate
over the clip (an auto-iris slowly hunting: the bias is bias0 + rate * t, the rate at most
DRIFT_EV_PER_S, so 0.6 EV over a 30 s entrance clip) on top of the per-frame auto-exposure.
Each frame's parameters are a function of the clip's draw and t alone, so a resumed clip
develops its frames exactly as an uninterrupted one.
"""
from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel, ConfigDict

from render_farm.isp import IspParams

MAX_BIAS_EV = 4.0  # IspParams' bound
# 0.15 until stop 31: up to 4.5 EV over a 30 s clip, a dusk lobby washed out to white by its end
DRIFT_EV_PER_S = 0.02


class CctvIsp(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    base: IspParams             # exposure_bias_ev is the bias at t = 0
    drift_ev_per_s: float


def sample_cctv_isp(rng: np.random.Generator) -> CctvIsp:
    iso = float(rng.uniform(0.3, 1.0))                           # small sensors, high gain
    shot = float(math.exp(math.log(5e-4) + iso * (math.log(8e-3) - math.log(5e-4))))
    base = IspParams(
        exposure_bias_ev=float(rng.uniform(-0.4, 0.4)),
        wb_r=float(np.clip(rng.normal(1.0, 0.06), 0.8, 1.2)), wb_g=1.0,
        wb_b=float(np.clip(rng.normal(1.0, 0.06), 0.8, 1.2)),
        shot_gain=shot, read_sigma=float(1e-3 + 5e-3 * iso),
        tone_contrast=float(rng.uniform(0.9, 1.1)),
        tone_white=float(math.exp(rng.uniform(math.log(1.5), math.log(4.0)))),
        ca_k=0.0, vignette_strength=float(rng.uniform(0.0, 0.15)),
        jpeg_quality=int(rng.integers(55, 81)),
    )
    return CctvIsp(base=base, drift_ev_per_s=float(rng.uniform(-DRIFT_EV_PER_S, DRIFT_EV_PER_S)))


def frame_params(cctv: CctvIsp, t: float) -> IspParams:
    """The pipeline of the frame at t seconds into the clip."""
    bias = cctv.base.exposure_bias_ev + cctv.drift_ev_per_s * float(t)
    return cctv.base.model_copy(update={"exposure_bias_ev": float(np.clip(bias, -MAX_BIAS_EV, MAX_BIAS_EV))})
