"""The CCTV camera pipeline of clips (render_farm/cctv_isp.py): its documented ranges, the
relation between its noise terms, and the exposure drift over a clip, against literals and
hand-computed values."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from render_farm.cctv_isp import MAX_BIAS_EV, CctvIsp, frame_params, sample_cctv_isp
from render_farm.isp import IspParams


def test_constants_and_model():
    assert MAX_BIAS_EV == 4.0
    assert IspParams.model_fields["exposure_bias_ev"].metadata[0].ge == -MAX_BIAS_EV   # IspParams' own bound
    with pytest.raises(ValueError):
        CctvIsp(base=IspParams(), drift_ev_per_s=0.0, colour="red")
    c = CctvIsp(base=IspParams(), drift_ev_per_s=0.1)
    with pytest.raises(ValueError):
        c.drift_ev_per_s = 0.2                                           # frozen: a clip's draw is fixed


def test_one_draw_pinned():
    # the bytes a clip's records carry for seed 2026 (draw order: iso, bias, wb_r, wb_b, contrast, white,
    # vignette, quality, drift)
    c = sample_cctv_isp(np.random.default_rng(2026))
    assert json.loads(c.model_dump_json()) == {
        "base": {"exposure_bias_ev": 0.1119305325721236, "wb_r": 0.8862204190240561, "wb_g": 1.0,
                 "wb_b": 1.0837463026065217, "shot_gain": 0.0016256508986559508, "read_sigma": 0.0031262718478640263,
                 "tone_contrast": 0.9709834668619303, "tone_white": 3.2570716625610907, "ca_k": 0.0,
                 "vignette_strength": 0.1357715755015761, "jpeg_quality": 73},
        "drift_ev_per_s": 0.006111392107405279}


def _draws(n=2000, seed=7):
    rng = np.random.default_rng(seed)
    return [sample_cctv_isp(rng) for _ in range(n)]


def test_draws_follow_the_documented_ranges():
    cs = _draws()
    arr = {k: np.array([getattr(c.base, k) for c in cs]) for k in IspParams.model_fields}
    drift = np.array([c.drift_ev_per_s for c in cs])
    for x, lo, hi in ((arr["exposure_bias_ev"], -0.4, 0.4), (arr["tone_contrast"], 0.9, 1.1),
                      (arr["vignette_strength"], 0.0, 0.15), (drift, -0.02, 0.02)):
        span = hi - lo
        assert lo <= x.min() < lo + 0.01 * span and hi - 0.01 * span < x.max() < hi
        assert x.mean() == pytest.approx((lo + hi) / 2, abs=0.03 * span)
    assert sorted(set(arr["jpeg_quality"].tolist())) == list(range(55, 81))       # 55..80, both ends
    assert set(arr["ca_k"].tolist()) == {0.0} and set(arr["wb_g"].tolist()) == {1.0}
    # tone white log-uniform on [1.5, 4]: median at the geometric mean sqrt(6) = 2.449
    assert 1.5 <= arr["tone_white"].min() < 1.52 and 3.95 < arr["tone_white"].max() < 4.0
    assert np.median(arr["tone_white"]) == pytest.approx(math.sqrt(6.0), rel=0.04)
    # white balance: N(1, 0.06) on R and B, clipped to [0.8, 1.2] (3.3 sigma: almost never reached)
    for k in ("wb_r", "wb_b"):
        assert 0.8 <= arr[k].min() < 0.86 and 1.14 < arr[k].max() <= 1.2
        assert arr[k].mean() == pytest.approx(1.0, abs=0.006) and arr[k].std() == pytest.approx(0.06, rel=0.08)
    assert abs(np.corrcoef(arr["wb_r"], arr["wb_b"])[0, 1]) < 0.08             # two independent draws


def test_noise_terms_follow_one_iso_level():
    """iso ~ U(0.3, 1): read sigma = 1e-3 + 5e-3 iso and shot gain = 5e-4 * 16**iso (log-linear
    from 5e-4 at iso 0 to 8e-3 at iso 1), so one gives the other exactly."""
    cs = _draws()
    read = np.array([c.base.read_sigma for c in cs])
    shot = np.array([c.base.shot_gain for c in cs])
    iso = (read - 1e-3) / 5e-3
    assert 0.3 <= iso.min() < 0.302 and 0.998 < iso.max() < 1.0
    assert iso.mean() == pytest.approx(0.65, abs=0.01)
    np.testing.assert_allclose(shot, 5e-4 * 16.0 ** iso, rtol=1e-9)
    # the ends by hand: iso 0.3 -> 5e-4 * 16**0.3 = 1.149e-3, iso 1 -> 8e-3
    assert 1.149e-3 <= shot.min() < 1.17e-3 and 7.9e-3 < shot.max() < 8e-3


def test_frame_params_drift_linearly_and_stop_at_the_bias_bound():
    base = IspParams(exposure_bias_ev=0.25, wb_r=1.1, shot_gain=2e-3, read_sigma=3e-3, jpeg_quality=60)
    c = CctvIsp(base=base, drift_ev_per_s=0.125)
    assert frame_params(c, 0.0) == base
    p = frame_params(c, 2.0)
    assert p.exposure_bias_ev == 0.5                                          # 0.25 + 0.125 * 2 s
    assert p.model_dump(exclude={"exposure_bias_ev"}) == base.model_dump(exclude={"exposure_bias_ev"})
    assert frame_params(c, 3.5).exposure_bias_ev == 0.6875
    assert type(frame_params(c, 1).exposure_bias_ev) is float
    down = CctvIsp(base=base, drift_ev_per_s=-0.5)
    assert frame_params(down, 1.5).exposure_bias_ev == -0.5                   # 0.25 - 0.75
    # clipped to IspParams' bound of +-4 EV (just inside stays as it is)
    assert frame_params(CctvIsp(base=base, drift_ev_per_s=1.25), 3.0).exposure_bias_ev == 4.0    # 4.0 exactly
    assert frame_params(CctvIsp(base=base, drift_ev_per_s=1.25), 2.9).exposure_bias_ev == pytest.approx(3.875)
    assert frame_params(CctvIsp(base=base, drift_ev_per_s=2.0), 3.0).exposure_bias_ev == 4.0
    assert frame_params(CctvIsp(base=base, drift_ev_per_s=-2.0), 3.0).exposure_bias_ev == -4.0
    assert frame_params(CctvIsp(base=base, drift_ev_per_s=-1.4), 3.0).exposure_bias_ev == pytest.approx(-3.95)


def test_white_balance_is_clipped_at_both_ends():
    """Seed 1312's blue gain draws N(1, 0.06) = 1.2490 and seed 1259's 0.7921 (the fourth draw of the
    generator: iso, bias, red, blue): both are clipped to the [0.8, 1.2] band."""
    for seed, raw, clipped in ((1312, 1.2489696054455812, 1.2), (1259, 0.792138311673901, 0.8)):
        rng = np.random.default_rng(seed)
        rng.uniform(0.3, 1.0), rng.uniform(-0.4, 0.4), rng.normal(1.0, 0.06)
        assert rng.normal(1.0, 0.06) == pytest.approx(raw, abs=1e-12)
        assert sample_cctv_isp(np.random.default_rng(seed)).base.wb_b == clipped
