"""Tests for the phone ISP: each stage matches its model, and output is reproducible."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from render_farm.isp import (
    AE_GAIN_MAX,
    IspParams,
    add_sensor_noise,
    apply_chromatic_aberration,
    apply_isp,
    apply_vignette,
    auto_exposure_gain,
    encode_jpeg,
    linear_stage,
    luminance,
    process_frame,
    sample_isp_params,
    vignette_gain,
    write_jpeg_atomic,
)


def _scene(h: int = 240, w: int = 320) -> np.ndarray:
    """Smooth synthetic linear render: gradients, a bright patch and a dark patch."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    img = np.stack([xx / w, yy / h, 0.5 * (1 - xx / w) + 0.2], axis=-1) * 0.6
    img[40:90, 50:120] = (2.5, 2.2, 1.8)  # a window, above display white
    img[150:200, 200:280] = (0.01, 0.012, 0.015)
    return img.astype(np.float32)


def _clean(**kw) -> IspParams:
    """Params with every stage neutral unless overridden."""
    return IspParams(**kw)


def test_sample_params_ranges_and_json_stable():
    rng = np.random.default_rng(0)
    for _ in range(200):
        p = sample_isp_params(rng)
        assert -0.5 <= p.exposure_bias_ev <= 0.5
        assert p.wb_g == 1.0 and 0.8 <= p.wb_r <= 1.2 and 0.8 <= p.wb_b <= 1.2
        assert 1e-4 <= p.shot_gain <= 4e-3 + 1e-12
        assert 5e-4 <= p.read_sigma <= 4e-3
        assert 0.0 <= p.ca_k <= 0.0015
        assert 0.1 <= p.vignette_strength <= 0.4
        assert 80 <= p.jpeg_quality <= 95 and isinstance(p.jpeg_quality, int)
        js = p.model_dump_json()
        assert IspParams.model_validate_json(js) == p
        assert IspParams.model_validate_json(js).model_dump_json() == js
    a = sample_isp_params(np.random.default_rng(7)).model_dump_json()
    b = sample_isp_params(np.random.default_rng(7)).model_dump_json()
    assert a == b


def test_params_forbid_extra():
    with pytest.raises(ValueError):
        IspParams.model_validate({"bogus": 1})


def test_luminance_rec709():
    assert luminance(np.array([1.0, 1.0, 1.0])) == pytest.approx(1.0, abs=1e-6)
    assert luminance(np.array([0.0, 1.0, 0.0])) == pytest.approx(0.7152, abs=1e-6)
    assert luminance(np.zeros((4, 5, 3))).shape == (4, 5)


@pytest.mark.parametrize("level", [0.05, 0.18, 0.6])
def test_noise_std_matches_model(level):
    p = _clean(shot_gain=2e-3, read_sigma=3e-3)
    x = np.full((256, 256, 3), level, dtype=np.float32)
    y = add_sensor_noise(x, p, np.random.default_rng(1))
    expected = np.sqrt(p.shot_gain * level + p.read_sigma**2)
    assert np.std(y - x) == pytest.approx(expected, rel=0.05)
    assert abs(np.mean(y - x)) < 0.05 * expected  # unbiased away from zero
    assert y.min() >= 0.0


def test_noise_is_clipped_at_zero_and_deterministic():
    p = _clean(shot_gain=1e-3, read_sigma=4e-3)
    x = np.zeros((64, 64, 3), np.float32)
    a = add_sensor_noise(x, p, np.random.default_rng(3))
    b = add_sensor_noise(x, p, np.random.default_rng(3))
    assert a.min() >= 0.0
    assert np.array_equal(a, b)


@pytest.mark.parametrize("strength", [0.1, 0.25, 0.4])
def test_vignetting_centre_corner_ratio(strength):
    h, w = 241, 321  # odd: a pixel sits exactly at the optical centre
    x = np.full((h, w, 3), 0.5, np.float32)
    y = apply_vignette(x, strength)
    ratio = y[h // 2, w // 2, 1] / y[0, 0, 1]
    assert ratio == pytest.approx(1.0 / (1.0 - strength), rel=0.02)
    for corner in [(0, 0), (0, w - 1), (h - 1, 0), (h - 1, w - 1)]:
        assert vignette_gain(h, w, strength)[corner] == pytest.approx(1.0 - strength, abs=1e-6)


def test_white_balance_applied_exactly_without_noise():
    x = np.full((32, 48, 3), 0.18, np.float32)  # log-average already at the key
    p = _clean(wb_r=1.07, wb_b=0.94)
    lin = linear_stage(x, p, np.random.default_rng(0))
    gain = auto_exposure_gain(x, p)
    assert gain == pytest.approx(0.18 / (1e-4 + 0.18), rel=1e-6)
    np.testing.assert_allclose(lin[..., 0], 0.18 * gain * 1.07, rtol=1e-6)
    np.testing.assert_allclose(lin[..., 1], 0.18 * gain * 1.0, rtol=1e-6)
    np.testing.assert_allclose(lin[..., 2], 0.18 * gain * 0.94, rtol=1e-6)
    # End to end the WB shows up as a colour cast of a grey card.
    out = apply_isp(x, p, np.random.default_rng(0)).astype(int)
    assert out[..., 0].min() > out[..., 1].max() > out[..., 2].max()


def _centroid(ch: np.ndarray) -> tuple[float, float]:
    ys, xs = np.mgrid[0 : ch.shape[0], 0 : ch.shape[1]]
    m = ch.sum()
    return float((xs * ch).sum() / m), float((ys * ch).sum() / m)


def test_chromatic_aberration_dot_displacement():
    h, w = 480, 640
    k = 0.0015
    cx, cy = (w - 1) / 2, (h - 1) / 2
    px, py = cx + 250.0, cy - 160.0  # radius ~297 px -> ~0.45 px shift
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    dot = np.exp(-((xs - px) ** 2 + (ys - py) ** 2) / (2 * 2.0**2)).astype(np.float32)
    x = np.repeat(dot[:, :, None], 3, axis=2)
    y = apply_chromatic_aberration(x, k)
    g = _centroid(y[..., 1])
    assert g == pytest.approx((px, py), abs=1e-3)
    for ch, s in ((0, 1 + k), (2, 1 - k)):
        ex, ey = cx + s * (px - cx), cy + s * (py - cy)
        mx, my = _centroid(y[..., ch])
        assert abs(mx - ex) < 0.1 and abs(my - ey) < 0.1
    # The R-B split is the expected ~2 k r and points radially.
    r = np.hypot(px - cx, py - cy)
    split = np.hypot(*np.subtract(_centroid(y[..., 0]), _centroid(y[..., 2])))
    assert split == pytest.approx(2 * k * r, abs=0.1)


def _psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float(10 * np.log10(255.0**2 / mse))


def test_jpeg_psnr_and_reproducibility(tmp_path):
    x = _scene()
    params = sample_isp_params(np.random.default_rng(11))
    img1, jpg1 = process_frame(x, params, np.random.default_rng(123))
    img2, jpg2 = process_frame(x, params, np.random.default_rng(123))
    assert img1.dtype == np.uint8 and img1.shape == x.shape
    assert np.array_equal(img1, img2)
    assert jpg1 == jpg2
    q90 = encode_jpeg(img1, 90)
    assert q90 == encode_jpeg(img1, 90)
    dec = np.asarray(Image.open(io.BytesIO(q90)).convert("RGB"))
    assert _psnr(img1, dec) > 30.0
    # Even the noisiest camera in the sampled range survives q=90.
    noisy = apply_isp(x, IspParams(shot_gain=4e-3, read_sigma=4e-3), np.random.default_rng(5))
    dec = np.asarray(Image.open(io.BytesIO(encode_jpeg(noisy, 90))).convert("RGB"))
    assert _psnr(noisy, dec) > 30.0
    _, jpg3 = process_frame(x, params, np.random.default_rng(124))
    assert jpg3 != jpg1
    # A freshly drawn camera from a different params seed differs too.
    other = sample_isp_params(np.random.default_rng(12))
    assert process_frame(x, other, np.random.default_rng(123))[1] != jpg1
    out = tmp_path / "sub" / "frame.jpg"
    write_jpeg_atomic(out, jpg1)
    assert out.read_bytes() == jpg1
    assert [p.name for p in out.parent.iterdir()] == ["frame.jpg"]  # no temp left behind


def test_black_frame_stays_black():
    x = np.zeros((120, 160, 3), np.float32)
    worst = IspParams(exposure_bias_ev=0.5, shot_gain=4e-3, read_sigma=4e-3, vignette_strength=0.1)
    assert auto_exposure_gain(x, worst) == AE_GAIN_MAX
    for seed in range(3):
        params = sample_isp_params(np.random.default_rng(seed))
        for p in (params, worst):
            out = apply_isp(x, p, np.random.default_rng(seed)) / 255.0
            assert luminance(out).mean() < 0.03


def test_auto_exposure_normalises_brightness():
    x = _scene()
    p = _clean()
    a = linear_stage(x, p, np.random.default_rng(0))
    b = linear_stage(x * 8.0, p, np.random.default_rng(0))
    np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-5)
    la = np.exp(np.mean(np.log(1e-4 + luminance(a))))
    assert la == pytest.approx(0.18, rel=0.02)


def test_tone_curve_monotonic_and_bounded():
    ramp = np.geomspace(1e-4, 100.0, 2000, dtype=np.float32)
    x = np.repeat(ramp[None, :, None], 3, axis=2)
    x = np.concatenate([x, x], axis=0)  # (2, N, 3)
    p = _clean(tone_contrast=1.15, tone_white=4.0)
    out = apply_isp(x, p, np.random.default_rng(0))
    assert np.all(np.diff(out[0, :, 1].astype(int)) >= 0)
    assert out[0, 0, 1] <= 2 and out[0, -1, 1] == 255


def test_non_finite_and_bad_shapes():
    x = _scene(40, 60)
    x[0, 0] = np.nan
    x[1, 1] = np.inf
    x[2, 2] = -np.inf
    x[3, 3, 1] = np.nan
    # NaN and -inf are black, +inf is the half-float maximum (a firefly): the output must
    # be exactly that of the sanitised render, with neutral and with sampled parameters.
    y = _scene(40, 60)
    y[0, 0] = 0.0
    y[1, 1] = 65504.0
    y[2, 2] = 0.0
    y[3, 3, 1] = 0.0
    for p in (_clean(), sample_isp_params(np.random.default_rng(0))):
        out = apply_isp(x, p, np.random.default_rng(0))
        assert out.dtype == np.uint8 and out.shape == (40, 60, 3)
        assert np.array_equal(out, apply_isp(y, p, np.random.default_rng(0)))
    out = apply_isp(x, _clean(), np.random.default_rng(0))
    assert out[0, 0].tolist() == [0, 0, 0]          # NaN -> black
    assert out[1, 1].tolist() == [255, 255, 255]    # +inf -> white, not black or wrapped
    assert out[2, 2].tolist() == [0, 0, 0]          # -inf -> black
    assert out[3, 3, 1] == 0 and out[3, 3].tolist() == [39, 0, 130]  # only the NaN channel is zeroed
    with pytest.raises(ValueError):
        apply_isp(np.zeros((4, 4)), _clean(), np.random.default_rng(0))
    with pytest.raises(ValueError):
        encode_jpeg(np.zeros((4, 4, 3), np.float32), 90)
