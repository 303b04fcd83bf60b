"""Pinned, hand-computed values for each stage of the phone ISP (render_farm/isp.py).

Every expected number below is worked out from the stage's formula on a tiny array
(sRGB IEC 61966-2-1, extended Reinhard, 1 - s r^2 vignetting, Poisson-Gaussian variance,
libjpeg's quality scaling), not by calling the code under test twice.
"""
from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest
from PIL import Image, JpegImagePlugin

from render_farm import isp
from render_farm.isp import (
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
    quantise,
    sample_isp_params,
    srgb_oetf,
    tone_map,
    vignette_gain,
    write_jpeg_atomic,
)


def _srgb(y: float) -> float:
    """IEC 61966-2-1, written out independently."""
    return 12.92 * y if y <= 0.0031308 else 1.055 * y ** (1 / 2.4) - 0.055


def _reinhard(x: float, white: float) -> float:
    return min(1.0, x * (1 + x / white**2) / (1 + x))


# -- constants and parameters -------------------------------------------------------------
def test_constants_are_the_documented_ones():
    assert isp.REC709_WEIGHTS == (0.2126, 0.7152, 0.0722)
    assert (isp.AE_KEY, isp.AE_LOG_EPS, isp.AE_GAIN_MIN, isp.AE_GAIN_MAX) == (0.18, 1e-4, 1 / 16, 16.0)
    assert isp._LINEAR_MAX == 65504.0  # float16 max


def test_param_defaults_are_neutral():
    assert IspParams().model_dump() == {
        "exposure_bias_ev": 0.0, "wb_r": 1.0, "wb_g": 1.0, "wb_b": 1.0, "shot_gain": 0.0, "read_sigma": 0.0,
        "tone_contrast": 1.0, "tone_white": 4.0, "ca_k": 0.0, "vignette_strength": 0.0, "jpeg_quality": 90}


@pytest.mark.parametrize("field, ok, bad", [
    ("exposure_bias_ev", [-4.0, 4.0], [-4.001, 4.001]),
    ("wb_r", [1e-9], [0.0]), ("wb_g", [1e-9], [0.0]), ("wb_b", [1e-9], [0.0]),
    ("shot_gain", [0.0], [-1e-9]), ("read_sigma", [0.0], [-1e-9]),
    ("tone_contrast", [1e-9], [0.0]), ("tone_white", [1e-9], [0.0]),
    ("ca_k", [0.0, 0.05], [-1e-9, 0.0501]),
    ("vignette_strength", [0.0, 0.999], [-1e-9, 1.0]),
    ("jpeg_quality", [1, 100], [0, 101]),
])
def test_param_bounds_just_inside_and_outside(field, ok, bad):
    for v in ok:
        assert getattr(IspParams(**{field: v}), field) == v
    for v in bad:
        with pytest.raises(ValueError):
            IspParams(**{field: v})


def test_params_are_frozen():
    p = IspParams()
    with pytest.raises(ValueError):
        p.wb_r = 2.0


def test_sampled_cameras_are_pinned():
    # Outputs must not change: these literals are the cameras of seeds 0 and 2.
    assert json.loads(sample_isp_params(np.random.default_rng(0)).model_dump_json()) == {
        "exposure_bias_ev": 0.1369616873214543, "wb_r": 0.9947158054683479, "wb_g": 1.0,
        "wb_b": 1.0256169060177314, "shot_gain": 0.00010628653857039946, "read_sigma": 0.0005,
        "tone_contrast": 1.1825511154555444, "tone_white": 4.637256573932222, "ca_k": 0.0010942448414759977,
        "vignette_strength": 0.2630874974396269, "jpeg_quality": 88}
    assert json.loads(sample_isp_params(np.random.default_rng(2)).model_dump_json()) == {
        "exposure_bias_ev": -0.2383878657506836, "wb_r": 0.9790900623407701, "wb_g": 1.0,
        "wb_b": 0.9834774582643243, "shot_gain": 0.00014036371477772316, "read_sigma": 0.0017665521734013128,
        "tone_contrast": 1.145712105362359, "tone_white": 2.5951216107738064, "ca_k": 0.00008271994099960229,
        "vignette_strength": 0.18249081037181145, "jpeg_quality": 83}


def test_sampled_cameras_follow_the_documented_distributions():
    rng = np.random.default_rng(2024)
    ps = [sample_isp_params(rng) for _ in range(3000)]
    arr = {k: np.array([getattr(p, k) for p in ps]) for k in IspParams.model_fields}
    # uniform ranges reach (nearly) both ends
    for k, lo, hi in (("exposure_bias_ev", -0.5, 0.5), ("tone_contrast", 1.0, 1.2), ("ca_k", 0.0, 0.0015),
                      ("vignette_strength", 0.1, 0.4)):
        span = hi - lo
        assert lo <= arr[k].min() < lo + 0.01 * span and hi - 0.01 * span < arr[k].max() <= hi
        assert np.mean(arr[k]) == pytest.approx((lo + hi) / 2, abs=0.03 * span)
    assert sorted(set(arr["jpeg_quality"].tolist())) == list(range(80, 96))
    # log-uniform: the median is the geometric mean of the ends
    assert np.median(arr["tone_white"]) == pytest.approx(4.0, rel=0.05)
    assert 2.0 <= arr["tone_white"].min() < 2.05 and 7.9 < arr["tone_white"].max() <= 8.0
    assert np.median(arr["shot_gain"]) == pytest.approx(math.sqrt(1e-4 * 4e-3), rel=0.08)
    assert 1e-4 <= arr["shot_gain"].min() < 1.05e-4 and 3.9e-3 < arr["shot_gain"].max() <= 4e-3
    # read noise follows the ISO level (correlated with shot gain), clipped to [5e-4, 4e-3]
    assert arr["read_sigma"].min() == 5e-4 and arr["read_sigma"].max() == 4e-3
    iso = np.log(arr["shot_gain"] / 1e-4) / math.log(40.0)
    assert np.corrcoef(iso, arr["read_sigma"])[0, 1] > 0.85
    mid = (iso > 0.45) & (iso < 0.55)
    assert np.median(arr["read_sigma"][mid]) == pytest.approx(5e-4 + 3.5e-3 * 0.5, rel=0.08)
    # white balance: N(1, 0.04), green fixed
    for k in ("wb_r", "wb_b"):
        assert np.mean(arr[k]) == pytest.approx(1.0, abs=0.004)
        assert np.std(arr[k]) == pytest.approx(0.04, rel=0.08)
    assert np.all(arr["wb_g"] == 1.0)
    # the draws are independent: R and B gains are not the same draw
    assert abs(np.corrcoef(arr["wb_r"], arr["wb_b"])[0, 1]) < 0.1


# -- stages -------------------------------------------------------------------------------
def test_luminance_weights_per_channel():
    assert luminance(np.array([1.0, 0.0, 0.0])) == pytest.approx(0.2126, abs=1e-7)
    assert luminance(np.array([0.0, 0.0, 1.0])) == pytest.approx(0.0722, abs=1e-7)
    assert luminance(np.array([[0.5, 0.25, 2.0]])).tolist() == pytest.approx([0.1063 + 0.1788 + 0.1444])
    assert luminance(np.ones((2, 3, 3))).dtype == np.float32
    with pytest.raises(ValueError, match="RGB"):
        luminance(np.ones((2, 4)))


def test_linear_input_validation():
    with pytest.raises(ValueError, match="shape"):
        isp._as_linear(np.ones((2, 2)))
    with pytest.raises(ValueError, match="shape"):
        isp._as_linear(np.ones((2, 2, 4)))
    with pytest.raises(ValueError, match="empty"):
        isp._as_linear(np.ones((0, 2, 3)))
    with pytest.raises(ValueError, match="empty"):
        isp._as_linear(np.ones((2, 0, 3)))
    x = isp._as_linear(np.array([[[np.nan, np.inf, -np.inf], [-2.0, 1e9, 0.5]]], dtype=np.float64))
    assert x.dtype == np.float32
    assert x.tolist() == [[[0.0, 65504.0, 0.0], [0.0, 65504.0, 0.5]]]


def test_auto_exposure_gain_worked_examples():
    grey = np.full((2, 2, 3), 0.18, np.float32)
    assert auto_exposure_gain(grey, IspParams()) == pytest.approx(0.18 / 0.1801, rel=1e-6)
    assert auto_exposure_gain(grey, IspParams(exposure_bias_ev=1.0)) == pytest.approx(2 * 0.18 / 0.1801, rel=1e-6)
    assert auto_exposure_gain(grey, IspParams(exposure_bias_ev=-2.0)) == pytest.approx(0.18 / 0.1801 / 4, rel=1e-6)
    # log average, not arithmetic mean: half the pixels at 0.01, half at 1.0
    x = np.zeros((1, 2, 3), np.float32)
    x[0, 0] = 0.01
    x[0, 1] = 1.0
    assert auto_exposure_gain(x, IspParams()) == pytest.approx(0.18 / math.sqrt(0.0101 * 1.0001), rel=1e-5)
    # clamps, just inside and just outside
    assert auto_exposure_gain(np.full((1, 1, 3), 100.0, np.float32), IspParams()) == 1 / 16
    assert auto_exposure_gain(np.zeros((1, 1, 3), np.float32), IspParams()) == 16.0
    inside_hi = 0.18 / 15.0 - 1e-4  # gain 15
    assert auto_exposure_gain(np.full((1, 1, 3), inside_hi, np.float32), IspParams()) == pytest.approx(15.0, rel=1e-5)
    inside_lo = 0.18 * 15.0 - 1e-4  # gain 1/15
    assert auto_exposure_gain(np.full((1, 1, 3), inside_lo, np.float32), IspParams()) == pytest.approx(1 / 15, rel=1e-5)
    # luminance-weighted: pure blue at 0.18 has luminance 0.18 * 0.0722
    blue = np.zeros((1, 1, 3), np.float32)
    blue[..., 2] = 0.18
    assert auto_exposure_gain(blue, IspParams()) == pytest.approx(0.18 / (1e-4 + 0.18 * 0.0722), rel=1e-5)


def test_vignette_gain_on_a_3x5_grid():
    # centre (2, 1); r^2 at the corner = 2^2 + 1^2 = 5
    g = vignette_gain(3, 5, 0.4)
    assert g.dtype == np.float32 and g.shape == (3, 5)
    expected = [[1 - 0.4 * (dx * dx + dy * dy) / 5 for dx in (-2, -1, 0, 1, 2)] for dy in (-1, 0, 1)]
    np.testing.assert_allclose(g, expected, atol=1e-7)
    assert g[1, 2] == 1.0 and g[0, 2] == pytest.approx(0.92) and g[1, 0] == pytest.approx(0.68)
    # a single pixel is its own centre: no fall-off (and no division by zero)
    assert vignette_gain(1, 1, 0.4).tolist() == [[1.0]]
    # a 2x4 image: centre between pixels (1.5, 0.5), corner r^2 = 2.5
    np.testing.assert_allclose(vignette_gain(2, 4, 0.5)[0], [0.5, 1 - 0.5 * 0.5 / 2.5, 1 - 0.5 * 0.5 / 2.5, 0.5],
                               atol=1e-7)


def test_apply_vignette_scales_every_channel():
    x = np.ones((3, 5, 3), np.float32) * np.array([0.2, 0.4, 0.8], np.float32)
    y = apply_vignette(x, 0.4)
    np.testing.assert_allclose(y[0, 0], [0.2 * 0.6, 0.4 * 0.6, 0.8 * 0.6], rtol=1e-6)
    np.testing.assert_allclose(y[1, 2], [0.2, 0.4, 0.8], rtol=1e-7)
    assert apply_vignette(x, 0.0) is x


def test_noise_variance_shot_and_read_terms_separately():
    x = np.full((400, 400, 3), 0.25, np.float32)
    shot = add_sensor_noise(x, IspParams(shot_gain=0.01), np.random.default_rng(5))
    assert np.var(shot - x, dtype=np.float64) == pytest.approx(0.01 * 0.25, rel=0.02)  # std 0.05
    read = add_sensor_noise(x, IspParams(read_sigma=0.02), np.random.default_rng(5))
    assert np.var(read - x, dtype=np.float64) == pytest.approx(0.02**2, rel=0.02)
    both = add_sensor_noise(x, IspParams(shot_gain=0.01, read_sigma=0.02), np.random.default_rng(5))
    assert np.var(both - x, dtype=np.float64) == pytest.approx(0.0025 + 0.0004, rel=0.02)
    assert both.dtype == np.float32
    # the draws are numpy's standard normals of that generator, scaled by the model's std
    n = np.random.default_rng(9).standard_normal(size=(1, 1, 3), dtype=np.float32)
    one = add_sensor_noise(np.full((1, 1, 3), 0.25, np.float32), IspParams(shot_gain=0.01, read_sigma=0.02),
                           np.random.default_rng(9))
    np.testing.assert_allclose(one, np.maximum(0.25 + n * math.sqrt(0.0029), 0.0), rtol=1e-6)


def test_noise_free_path_and_negative_input():
    x = np.array([[[-0.5, 0.0, 0.3]]], np.float32)
    assert add_sensor_noise(x, IspParams(), np.random.default_rng(0)).tolist() == [[[0.0, 0.0, pytest.approx(0.3)]]]
    # a negative input has no shot noise (variance read_sigma^2 only), and the result is clipped at 0
    neg = np.full((50, 50, 3), -0.5, np.float32)
    out = add_sensor_noise(neg, IspParams(shot_gain=0.01, read_sigma=0.01), np.random.default_rng(0))
    assert np.all(out == 0.0)
    # clipping at zero: at x = 0 with read noise only, about half the pixels are exactly 0
    z = add_sensor_noise(np.zeros((200, 200, 3), np.float32), IspParams(read_sigma=0.01), np.random.default_rng(1))
    assert np.mean(z == 0.0) == pytest.approx(0.5, abs=0.02) and z.min() == 0.0
    # the mean of the clipped half-normal is sigma / sqrt(2 pi)
    assert z.mean() == pytest.approx(0.01 / math.sqrt(2 * math.pi), rel=0.03)


def test_chromatic_aberration_on_ramps():
    w, h, k = 11, 7, 0.05
    cx, cy = 5.0, 3.0
    xs = np.arange(w, dtype=np.float32)
    ramp_x = np.repeat(np.broadcast_to(xs[None, :], (h, w))[:, :, None], 3, axis=2).copy()
    y = apply_chromatic_aberration(ramp_x, k)
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y[..., 1], ramp_x[..., 1])
    # R samples at (x - cx) / (1 + k) + cx, B at (x - cx) / (1 - k) + cx, edges replicated
    r_exp = (xs - cx) / (1 + k) + cx
    b_exp = np.clip((xs - cx) / (1 - k) + cx, 0, w - 1)
    for row in range(h):
        np.testing.assert_allclose(y[row, :, 0], r_exp, atol=0.04)
        np.testing.assert_allclose(y[row, :, 2], b_exp, atol=0.04)
    ys = np.arange(h, dtype=np.float32)
    ramp_y = np.repeat(np.broadcast_to(ys[:, None], (h, w))[:, :, None], 3, axis=2).copy()
    y = apply_chromatic_aberration(ramp_y, k)
    for col in range(w):
        np.testing.assert_allclose(y[:, col, 0], (ys - cy) / (1 + k) + cy, atol=0.04)
        np.testing.assert_allclose(y[:, col, 2], np.clip((ys - cy) / (1 - k) + cy, 0, h - 1), atol=0.04)
    assert apply_chromatic_aberration(ramp_y, 0.0) is ramp_y


def test_tone_map_worked_examples():
    p = IspParams(tone_white=4.0)
    x = np.array([0.0, 1.0, 4.0, 8.0, -1.0, 0.18], np.float32)
    y = tone_map(x, p)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, [0.0, 1.0625 / 2, 1.0, 1.0, 0.0, _reinhard(0.18, 4.0)], rtol=1e-6)
    # the white point maps exactly to 1 and just below it stays below 1
    assert tone_map(np.array([2.0], np.float32), IspParams(tone_white=2.0))[0] == pytest.approx(1.0, abs=1e-7)
    assert tone_map(np.array([1.9], np.float32), IspParams(tone_white=2.0))[0] < 0.995
    # contrast is a power about mid-grey: 0.18 is a fixed point, 0.36 goes to 0.18 * 2^c
    c = IspParams(tone_contrast=2.0, tone_white=4.0)
    np.testing.assert_allclose(tone_map(np.array([0.18, 0.36, 0.09], np.float32), c),
                               [_reinhard(0.18, 4), _reinhard(0.72, 4), _reinhard(0.045, 4)], rtol=1e-5)


def test_srgb_oetf_worked_examples():
    y = np.array([0.0, 0.0031308, 0.0031309, 0.18, 0.5, 1.0, -1.0, 2.0], np.float32)
    out = srgb_oetf(y)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [0.0, 0.040449936, _srgb(0.0031309 + 1e-9), 0.46135613, 0.73535698, 1.0, 0.0,
                                     1.0], atol=2e-7)
    # both branches meet at the threshold (the standard's continuity)
    assert 1.055 * 0.0031308 ** (1 / 2.4) - 0.055 == pytest.approx(0.0404499, abs=1e-6)
    # the linear toe: 0.001 -> 0.01292
    assert srgb_oetf(np.array([0.001]))[0] == pytest.approx(0.01292, rel=1e-6)


def test_quantise_rounds_to_nearest_and_clips():
    v = np.array([0.0, 0.4 / 255, 0.6 / 255, 1.5 / 255, 0.5, 1.0, 1.2, -0.1, 254.4 / 255, 254.6 / 255])
    out = quantise(v)
    assert out.dtype == np.uint8
    assert out.tolist() == [0, 0, 1, 2, 128, 255, 255, 0, 254, 255]


def test_linear_stage_order_noise_after_white_balance():
    # WB before noise: the red channel's shot-noise variance is shot_gain * (x * wb_r)
    x = np.full((300, 300, 3), 0.18, np.float32)
    p = IspParams(wb_r=1.2, wb_b=0.8, shot_gain=0.01)
    lin = linear_stage(x, p, np.random.default_rng(3))
    gain = 0.18 / 0.1801
    for ch, wb in ((0, 1.2), (1, 1.0), (2, 0.8)):
        level = 0.18 * gain * wb
        assert lin[..., ch].mean() == pytest.approx(level, rel=0.01)
        assert lin[..., ch].var(dtype=np.float64) == pytest.approx(0.01 * level, rel=0.03)
    # vignette after exposure and before WB multiplies the same way: corner = centre * (1 - s)
    v = linear_stage(np.full((3, 5, 3), 0.18, np.float32), IspParams(vignette_strength=0.5, wb_r=1.1),
                     np.random.default_rng(0))
    np.testing.assert_allclose(v[0, 0], [0.18 * gain * 0.5 * 1.1, 0.18 * gain * 0.5, 0.18 * gain * 0.5], rtol=1e-5)
    assert v.dtype == np.float32


def test_apply_isp_on_a_grey_card_by_hand():
    x = np.full((2, 3, 3), 0.18, np.float32)
    lin = 0.18 * (0.18 / 0.1801)
    expected = round(_srgb(_reinhard(lin, 4.0)) * 255)
    out = apply_isp(x, IspParams(), np.random.default_rng(0))
    assert out.dtype == np.uint8 and out.shape == (2, 3, 3)
    assert expected == 109 and np.all(out == expected)
    # with +1 EV and white point 2: everything computed by hand again
    lin2 = 2 * lin
    expected2 = round(_srgb(_reinhard(lin2, 2.0)) * 255)
    assert np.all(apply_isp(x, IspParams(exposure_bias_ev=1.0, tone_white=2.0), np.random.default_rng(0))
                  == expected2)


def _decode(data: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(data))
    im.load()
    return im


def test_jpeg_encoding_settings():
    img = (np.arange(16 * 16 * 3, dtype=np.int64).reshape(16, 16, 3) % 256).astype(np.uint8)
    for q, luma0, chroma0 in ((50, 16, 17), (90, 3, 3), (100, 1, 1)):
        im = _decode(encode_jpeg(img, q))
        # libjpeg's quality scaling of the standard tables (Annex K): q<50 -> 5000/q, else 200 - 2q percent
        assert im.quantization[0][0] == luma0 and im.quantization[1][0] == chroma0
        assert im.format == "JPEG" and im.mode == "RGB" and im.size == (16, 16)
        assert JpegImagePlugin.get_sampling(im) == 2  # 4:2:0
        assert "progressive" not in im.info and "progression" not in im.info and "exif" not in im.info
    assert _decode(encode_jpeg(img, 1)).quantization[0][0] == 255
    for bad in (0, 101):
        with pytest.raises(ValueError, match="quality"):
            encode_jpeg(img, bad)
    with pytest.raises(ValueError, match="uint8"):
        encode_jpeg(img.astype(np.float32), 90)
    with pytest.raises(ValueError, match="uint8"):
        encode_jpeg(img[..., 0], 90)
    with pytest.raises(ValueError, match="uint8"):
        encode_jpeg(np.zeros((4, 4, 4), np.uint8), 90)
    # not optimised: an optimised Huffman table would give a different (smaller) stream
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="JPEG", quality=90, subsampling=2, optimize=True)
    assert len(encode_jpeg(img, 90)) != len(buf.getvalue())


def test_process_frame_uses_the_params_quality(tmp_path):
    x = np.full((16, 16, 3), 0.18, np.float32)
    img, jpg = process_frame(x, IspParams(jpeg_quality=50), np.random.default_rng(0))
    assert np.all(img == 109)
    assert _decode(jpg).quantization[0][0] == 16
    path = tmp_path / "a" / "f.jpg"
    write_jpeg_atomic(path, jpg)
    assert path.read_bytes() == jpg and (path.stat().st_mode & 0o777) == 0o644


def test_empty_image_message_and_the_srgb_knee_itself():
    with pytest.raises(ValueError, match=r"^empty image$"):
        isp._as_linear(np.ones((0, 2, 3)))
    # at the knee y = 0.0031308 the linear segment applies: 12.92 y (the power curve gives 0.04044991)
    y = np.array([0.0031308], np.float32)
    assert srgb_oetf(y)[0] == np.float32(12.92) * y[0] == np.float32(0.040449936)


def test_vignette_of_a_two_pixel_row():
    # centre (0.5, 0): both pixel centres are corners, r = 1, gain 1 - strength
    assert vignette_gain(1, 2, 0.5).tolist() == [[0.5, 0.5]]
    assert vignette_gain(1, 1, 0.5).tolist() == [[1.0]]          # a single pixel has no corner distance


def test_noise_with_either_term_alone_is_drawn():
    x = np.full((8, 8, 3), 0.25, np.float32)
    shot_only = add_sensor_noise(x, IspParams(shot_gain=1.0, read_sigma=0.0), np.random.default_rng(0))
    read_only = add_sensor_noise(x, IspParams(shot_gain=0.0, read_sigma=1.0), np.random.default_rng(0))
    for out in (shot_only, read_only):                       # sigma 0.5 and 1.0 around 0.25
        assert not np.array_equal(out, x) and out.std() > 0.2


def test_chromatic_aberration_keeps_each_channel_its_own():
    x = np.empty((6, 8, 3), np.float32)
    x[:, :, 0], x[:, :, 1], x[:, :, 2] = 0.1, 0.5, 0.9            # flat channels: magnifying changes nothing
    out = apply_chromatic_aberration(x, 0.01)
    np.testing.assert_allclose(out, x, atol=1e-6)
