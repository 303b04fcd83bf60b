"""`slope_gauge` (RealityBench §3.1, Tables 1–3): a digital angle gauge lying on a
module (glass or frame) or on bare roof, photographed by the installer to record the
module's slope.

Spec side only (no bpy). The gauge reads the angle of its long axis to horizontal, so a
gauge turned by yaw psi against the slope on a plane of pitch p reads
asin(cos psi * sin p): it under-reads when it is not aligned with the slope.
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from blender_envs.registry import Environment
from blender_envs.solar.roof_spec import (RoofSpec, _module_dxdy, module_rect_uv, module_top_z, rail_positions,
                                          roof_frame, sample_roof)
from blender_envs.solar.slope_gauge_texture import display_text
from geometry.camera import Phone, look_at, sample_phone, sample_phone_pose
from geometry.scene import SceneSpec, View

GENERATOR_VERSION = "slope_gauge-1"
TARGET = "gauge_display"
GAUGE_BODY_OBJECT = "gauge_body"
GAUGE_DISPLAY_OBJECT = "gauge_display"
GAUGE_SIZE_M = (0.15, 0.064, 0.030)      # length (measuring axis), width, height
DISPLAY_SIZE_M = (0.054, 0.025)          # window: across the gauge, along the axis
DIGIT_HEIGHT_M = 0.66 * DISPLAY_SIZE_M[1]  # = DIGIT_H_FRAC x window height (slope_gauge_texture)
DISPLAY_LIFT_M = 0.0004                  # window above the body's top face
GLASS_BELOW_FRAME_M = 0.002              # the laminate top sits this far below the frame top


class GaugeSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    placement: Literal["glass", "frame", "roof"]
    module_row: int                      # the module it is on (or beside, on the roof)
    module_col: int
    center_uv: list[float]               # roof-frame (u, v) of the footprint centre
    base_z_m: float                      # roof-frame z of the gauge's bottom face
    yaw_deg: float                       # long axis vs the upslope direction, about the normal


class SlopeGaugeSpec(SceneSpec):
    roof: RoofSpec
    gauge: GaugeSpec
    phone: Phone


# ---------------------------------------------------------------- exact geometry

def gauge_axes(roof: RoofSpec, gauge: GaugeSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """World unit vectors: long axis a (pointing upslope-ish), across r, normal n (r x a = n)."""
    M = roof_frame(roof)
    ex, ey, n = M[:3, 0], M[:3, 1], M[:3, 2]
    y = math.radians(gauge.yaw_deg)
    a = math.cos(y) * ey + math.sin(y) * ex
    r = np.cross(a, n)
    return a, r, n


def gauge_matrix(roof: RoofSpec, gauge: GaugeSpec) -> np.ndarray:
    """4x4 world matrix of the gauge body centre; columns across, axis, normal."""
    a, r, n = gauge_axes(roof, gauge)
    M = roof_frame(roof)
    c = M[:3, 3] + M[:3, :3] @ np.array([gauge.center_uv[0], gauge.center_uv[1],
                                          gauge.base_z_m + GAUGE_SIZE_M[2] / 2])
    T = np.eye(4)
    T[:3, 0], T[:3, 1], T[:3, 2], T[:3, 3] = r, a, n, c
    return T


def display_matrix(roof: RoofSpec, gauge: GaugeSpec) -> np.ndarray:
    """4x4 world matrix of the display window (plane facing the normal, image up = axis)."""
    T = gauge_matrix(roof, gauge)
    T[:3, 3] = T[:3, 3] + T[:3, 2] * (GAUGE_SIZE_M[2] / 2 + DISPLAY_LIFT_M)
    return T


def display_points(roof: RoofSpec, gauge: GaugeSpec, nu: int = 9, nv: int = 5) -> np.ndarray:
    """Grid of points on the display window (nu x nv, out to 3% inside its corners)."""
    T = display_matrix(roof, gauge)
    su = np.linspace(-0.47, 0.47, nu) * DISPLAY_SIZE_M[0]  # just inside the window's edge
    sv = np.linspace(-0.47, 0.47, nv) * DISPLAY_SIZE_M[1]
    U, V = np.meshgrid(su, sv)
    return T[:3, 3] + U.reshape(-1, 1) * T[:3, 0] + V.reshape(-1, 1) * T[:3, 1] + 1e-4 * T[:3, 2]


def true_reading_deg(roof: RoofSpec, gauge: GaugeSpec) -> float:
    """Angle of the gauge's long axis to horizontal (unrounded)."""
    a, _, _ = gauge_axes(roof, gauge)
    return math.degrees(math.asin(min(1.0, abs(float(a[2])))))


def reading_text(roof: RoofSpec, gauge: GaugeSpec) -> str:
    return display_text(true_reading_deg(roof, gauge))


def on_module(gauge: GaugeSpec) -> bool:
    return gauge.placement in ("glass", "frame")


def _half_extent(yaw_deg: float) -> tuple[float, float]:
    """Half extents of the gauge footprint along the eave (u) and up the slope (v)."""
    y = math.radians(yaw_deg)
    L, W = GAUGE_SIZE_M[0] / 2, GAUGE_SIZE_M[1] / 2
    return abs(math.sin(y)) * L + abs(math.cos(y)) * W, abs(math.cos(y)) * L + abs(math.sin(y)) * W


# ---------------------------------------------------------------- sampling

def _sample_yaw(rng: np.random.Generator) -> float:
    """Mostly aligned (|yaw| <= 15), some visibly turned (gray 15-45), a few across."""
    u = rng.random()
    mag = rng.uniform(0.0, 15.0) if u < 0.85 else (rng.uniform(15.0, 45.0) if u < 0.95 else rng.uniform(45.0, 85.0))
    return round(float(mag * (1 if rng.random() < 0.5 else -1)), 3)


def sample_gauge(roof: RoofSpec, rng: np.random.Generator) -> GaugeSpec:
    a = roof.array
    yaw = _sample_yaw(rng)
    hu, hv = _half_extent(yaw)
    row, col = int(rng.integers(a.rows)), int(rng.integers(a.cols))
    u0, v0, u1, v1 = module_rect_uv(roof, row, col)
    fw = a.frame_width_m
    _, dy = _module_dxdy(a)
    top = module_top_z(roof)
    p = rng.random()
    if p < 0.15:  # bare roof, left of the array, level with the bottom row
        u_hi = a.origin_u_m - a.rail_overhang_m - 0.12 - hu
        u = float(rng.uniform(max(0.1 + hu, u_hi - 0.4), max(0.1 + hu, u_hi)))
        v = float(rng.uniform(a.origin_v_m + hv, a.origin_v_m + 0.6 * dy))
        g = GaugeSpec(placement="roof", module_row=0, module_col=0, center_uv=[round(u, 5), round(v, 5)],
                      base_z_m=0.0, yaw_deg=yaw)
        if not _hits_chimney(roof, g, hu, hv):
            return g
    if p < 0.4:  # on a side frame member, between the module's rails
        rails = sorted(v for (r, _k, v, _lo, _hi) in rail_positions(roof) if r == row)
        side = 1 if rng.random() < 0.5 else 0
        u = u1 - fw / 2 if side else u0 + fw / 2
        lo, hi = rails[0] + 0.04 + hv, rails[1] - 0.04 - hv
        v = float(rng.uniform(lo, max(lo, hi)))
        return GaugeSpec(placement="frame", module_row=row, module_col=col, center_uv=[round(u, 5), round(v, 5)],
                         base_z_m=round(top, 6), yaw_deg=yaw)
    # on the glass near the module's lower edge (within the installer's reach)
    lo_u, hi_u = u0 + fw + hu + 0.01, u1 - fw - hu - 0.01
    lo_v, hi_v = v0 + fw + hv + 0.01, min(v1 - fw - hv - 0.01, v0 + 0.35 * dy)
    u = float(rng.uniform(lo_u, max(lo_u, hi_u)))
    v = float(rng.uniform(lo_v, max(lo_v, hi_v)))
    return GaugeSpec(placement="glass", module_row=row, module_col=col, center_uv=[round(u, 5), round(v, 5)],
                     base_z_m=round(top - GLASS_BELOW_FRAME_M, 6), yaw_deg=yaw)


def _hits_chimney(roof: RoofSpec, g: GaugeSpec, hu: float, hv: float) -> bool:
    c = roof.chimney
    if c is None:
        return False
    cp = math.cos(math.radians(roof.pitch_deg))
    cu, cv = c.center_xy[0] + roof.eave_length_m / 2, c.center_xy[1] / cp
    return (abs(cu - g.center_uv[0]) < c.width_m / 2 + hu + 0.05
            and abs(cv - g.center_uv[1]) < c.depth_m / cp / 2 + hv + 0.05)


def sample_scene(rng: np.random.Generator, scene_id: str, seed: int) -> SlopeGaugeSpec:
    roof = sample_roof(rng)
    return SlopeGaugeSpec(env="slope_gauge", scene_id=scene_id, seed=seed, roof=roof,
                          gauge=sample_gauge(roof, rng), phone=sample_phone(rng))


def sample_view(spec: SlopeGaugeSpec, rng: np.random.Generator, view_index: int, long_side_px: int,
                attempt: int = 0) -> View:
    """The installer crouches (85%) or stands on the roof downslope of the gauge, within
    +-80 deg of straight up the slope, and aims by hand at the display."""
    M = roof_frame(spec.roof)
    ex, ey, n = M[:3, 0], M[:3, 1], M[:3, 2]
    X = display_matrix(spec.roof, spec.gauge)[:3, 3]
    if rng.random() < 0.85:  # crouched over it, phone held out towards the display
        height = float(rng.uniform(0.12, 0.55))
        reach = float(np.exp(rng.uniform(np.log(0.05), np.log(0.65))))
    else:                    # standing
        height = float(rng.uniform(1.1, 1.65))
        reach = float(rng.uniform(0.1, 1.4))
    az = math.radians(float(rng.uniform(-80.0, 80.0)))
    eye = X + reach * (-math.cos(az) * ey + math.sin(az) * ex) + height * n
    dist = float(np.linalg.norm(X - eye))
    aim = X + rng.normal(0.0, 0.08 * dist, size=3)
    cam_to_world = look_at(eye, aim, roll_rad=math.radians(float(rng.normal(0.0, 6.0))))
    pose = sample_phone_pose(rng, spec.phone, cam_to_world, X, long_side_px)
    return View(view_index=view_index, pose=pose, target=TARGET, attempt=attempt)


ENV = Environment(
    name="slope_gauge",
    family="solar",
    version=GENERATOR_VERSION,
    views_per_scene=2,
    sample_scene=sample_scene,
    sample_view=sample_view,
    builder="blender_envs.solar.slope_gauge_build:build",
    scorer="scorers.slope_gauge",
    spec_model=SlopeGaugeSpec,
    prompts="realitybench",
)
