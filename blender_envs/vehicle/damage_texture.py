"""Scratch and rust textures of a damage site, as arrays (no bpy).

The texture covers the site's ellipse in its own axes: pixel (i, j) has centre
x = (j + 0.5) / W * 2a - a along the a axis and y = b - (i + 0.5) / H * 2b along b (row 0 at
+b, as images run), so the builder's UV ((x / a + 1) / 2, (y / b + 1) / 2) maps it on the
patch. Everything outside the ellipse is paint (alpha 0), so a texture never paints
beyond the damaged area the ground truth names.

* scratch (after Infinigen's wear_tear/scratches.py: stretched strokes through the paint):
  a fan of thin, gently curved strokes roughly along the a axis, each a primer-grey band
  1.5-4 mm wide with, on most, a bare-metal core 0.5-1.5 mm wide (metallic, grooved);
* rust: a blotchy core from thresholded fractal noise (orange to dark brown, rough, pitted)
  filling most of the ellipse, its edge frayed by the noise between rho 0.55 and 1, and
  bubbled paint (height bumps, paint colour) in the ring round it.

Channels: `color` (H, W, 3) linear RGB where alpha > 0, `alpha` (coverage of non-paint),
`metal`, `rough` (the final roughness; paint's where alpha is 0), `height` (0 = paint
surface, negative = grooves and pits, positive = bubbles).
"""
from __future__ import annotations

import math

import numpy as np
from PIL import Image, ImageDraw
from scipy.ndimage import gaussian_filter

from blender_envs.vehicle.damage import DamageSite

PX_PER_M = (2500.0, 600.0)        # texture resolution: 2.5 px/mm, fewer on big sites (long side <= MAX_PX)
MAX_PX = 1400
MIN_PX = 48
HEIGHT_BLUR_M = 0.0006            # the height map is smoothed this much (sigma): no bump cliffs at a blotch's edge
PAINT_ROUGH = 0.35                # car_build's paint roughness (under damage_view_build's clear coat)
PRIMER = (0.42, 0.42, 0.40)       # light grey primer, linear
METAL = (0.62, 0.62, 0.64)        # bare steel
RUST_LIGHT = (0.38, 0.12, 0.03)   # orange-brown, linear
RUST_DARK = (0.09, 0.035, 0.015)  # dark brown


def texture_shape(site: DamageSite) -> tuple[int, int]:
    """(H, W) pixels over the ellipse's 2b x 2a bounding box."""
    a, b = (x / 100.0 for x in site.semi_axes_cm)
    ppm = max(min(PX_PER_M[0], MAX_PX / (2 * a)), PX_PER_M[1])
    return max(int(round(2 * b * ppm)), MIN_PX), max(int(round(2 * a * ppm)), MIN_PX)


def ellipse_coords(site: DamageSite, shape) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, y, rho) at every pixel centre: metres along the a and b axes, normalised radius."""
    H, W = shape
    a, b = (v / 100.0 for v in site.semi_axes_cm)
    x = ((np.arange(W) + 0.5) / W * 2 - 1) * a
    y = (1 - (np.arange(H) + 0.5) / H * 2) * b
    X, Y = np.meshgrid(x, y)
    return X, Y, np.sqrt((X / a) ** 2 + (Y / b) ** 2)


def fractal_noise(rng: np.random.Generator, shape, cell_px: float, octaves: int = 4) -> np.ndarray:
    """Smooth value noise in [0, 1]: bicubic-upsampled random grids, halving the cell each octave."""
    H, W = shape
    out = np.zeros(shape)
    amp, total = 1.0, 0.0
    for k in range(octaves):
        c = max(cell_px / 2**k, 1.0)
        gh, gw = int(math.ceil(H / c)) + 2, int(math.ceil(W / c)) + 2
        g = Image.fromarray(rng.random((gh, gw)).astype(np.float32), mode="F")
        up = np.asarray(g.resize((int(gw * c), int(gh * c)), Image.BICUBIC))[:H, :W]
        out += amp * up
        total += amp
        amp *= 0.5
    out /= total
    lo, hi = np.percentile(out, [1, 99])
    return np.clip((out - lo) / max(hi - lo, 1e-9), 0.0, 1.0)


def _strokes(rng: np.random.Generator, site: DamageSite, shape, ppm: float):
    """(primer mask, metal mask) of the scratch strokes, each a float image in [0, 1]."""
    H, W = shape
    a, b = (v / 100.0 for v in site.semi_axes_cm)
    n = int(np.clip(round(a * 100 / 2.5), 4, 28)) + int(rng.integers(0, 4))
    ss = 4                                   # supersampled, then box-filtered: anti-aliased strokes
    primer = Image.new("L", (W * ss, H * ss), 0)
    metal = Image.new("L", (W * ss, H * ss), 0)
    dp, dm = ImageDraw.Draw(primer), ImageDraw.Draw(metal)
    base = float(rng.normal(0.0, 6.0))
    for _ in range(n):
        ang = math.radians(base + float(rng.normal(0.0, 9.0)) + (float(rng.choice([0.0, 25.0, -25.0]))
                                                                  if rng.random() < 0.2 else 0.0))
        y0 = float(rng.uniform(-0.85, 0.85)) * b
        length = float(rng.uniform(0.5, 1.9)) * a
        x0 = float(rng.uniform(-a, a - length * 0.5))
        bow = float(rng.normal(0.0, 0.04)) * length
        t = np.linspace(0.0, 1.0, 24)
        xs = x0 + t * length * math.cos(ang) - bow * np.sin(math.pi * t) * math.sin(ang)
        ys = y0 + t * length * math.sin(ang) + bow * np.sin(math.pi * t) * math.cos(ang)
        keep = (xs / a) ** 2 + (ys / b) ** 2 < 0.93 ** 2
        if keep.sum() < 2:
            continue
        pts = [((x + a) * ppm * ss, (b - y) * ppm * ss) for x, y in zip(xs[keep], ys[keep])]
        w_primer = float(rng.uniform(1.5, 4.0)) / 1000 * ppm * ss
        dp.line(pts, fill=255, width=max(int(round(w_primer)), 1), joint="curve")
        if rng.random() < 0.75:
            w_metal = float(rng.uniform(0.5, 1.5)) / 1000 * ppm * ss
            dm.line(pts, fill=255, width=max(int(round(w_metal)), 1), joint="curve")
    down = lambda im: np.asarray(im.resize((W, H), Image.BOX), np.float32) / 255.0   # noqa: E731
    return down(primer), down(metal)


def damage_texture(site: DamageSite, paint_rgb) -> dict[str, np.ndarray]:
    """The site's texture channels (see the module docstring); seeded by `site.texture_seed`."""
    rng = np.random.default_rng(site.texture_seed)
    shape = texture_shape(site)
    H, W = shape
    a = site.semi_axes_cm[0] / 100.0
    ppm = W / (2 * a)
    _, _, rho = ellipse_coords(site, shape)
    inside = rho < 1.0
    paint = np.asarray(paint_rgb, float)[:3]
    color = np.broadcast_to(paint, (H, W, 3)).copy()
    alpha = np.zeros(shape)
    metal = np.zeros(shape)
    rough = np.full(shape, PAINT_ROUGH)
    height = np.zeros(shape)
    if "rust" in site.kinds:
        blot = fractal_noise(rng, shape, cell_px=0.035 * ppm)
        shade = fractal_noise(rng, shape, cell_px=0.012 * ppm)
        pits = fractal_noise(rng, shape, cell_px=0.003 * ppm, octaves=2)
        edge = np.clip((1.0 - rho) / 0.45, 0.0, 1.0)               # 1 inside rho 0.55, 0 at the rim
        core = inside & (0.75 * blot + 0.55 * edge > 0.62)           # frayed, with paint islands
        cov = np.where(core, 1.0, 0.0)
        mix = np.clip(shade * 1.3 - 0.15 + 0.5 * (pits - 0.5), 0.0, 1.0)[..., None]
        rust = (1 - mix) * np.asarray(RUST_LIGHT) + mix * np.asarray(RUST_DARK)
        color = np.where(core[..., None], rust, color)
        alpha = np.maximum(alpha, cov)
        rough = np.where(core, 0.85 + 0.1 * shade, rough)
        height = np.where(core, -0.3 * pits, height)
        ring = inside & ~core
        bubbles = np.clip((fractal_noise(rng, shape, cell_px=0.004 * ppm, octaves=2) - 0.55) / 0.45, 0.0, 1.0)
        height = np.where(ring, 0.5 * bubbles * (1.0 - 0.6 * rho), height)
        color = np.where(ring[..., None], color * (1.0 - 0.25 * bubbles[..., None]), color)
    if "scratch" in site.kinds:
        pm, mm = _strokes(rng, site, shape, ppm)
        pm, mm = pm * inside, mm * inside
        color = color * (1 - pm[..., None]) + pm[..., None] * np.asarray(PRIMER)
        color = color * (1 - mm[..., None]) + mm[..., None] * np.asarray(METAL)
        alpha = np.maximum(alpha, pm)
        metal = np.maximum(metal, mm)
        rough = rough * (1 - pm) + pm * 0.6
        rough = rough * (1 - mm) + mm * 0.3
        height = np.minimum(height, -0.5 * pm - 0.5 * mm)
    height = np.where(inside, gaussian_filter(height, HEIGHT_BLUR_M * ppm), 0.0)
    return {"color": color, "alpha": alpha, "metal": metal, "rough": rough, "height": height}
