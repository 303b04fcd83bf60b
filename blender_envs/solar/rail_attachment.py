"""`rail_attachment` (RealityBench §3.1, Tables 1-3): a close-up of one roof attachment,
i.e. an L-foot lag-bolted through flashing that is slipped under the shingles.

Spec side only (no bpy). The scene is the shared roof; one attachment of the bottom
row's downslope rail is the target. Some scenes lack its lag bolt or its flashing
(`variant`): those frames are still scored term by term, but their ground truth says
`acceptability_scored: false` (the paper drops them from the acceptability task).
`rail_attachment_build.build` renders the scene, `scorers.rail_attachment` scores it.
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np

from blender_envs.registry import Environment
from blender_envs.solar.roof_spec import (FLASHING_THICKNESS_M, LAG_BOLT_OFFSET_M, L_FOOT_LEG_OFFSET_M, RoofSpec,
                                          l_foot_positions, module_rect_uv, module_top_z, roof_frame,
                                          roof_to_world, sample_roof)
from geometry.camera import Phone, look_at, sample_phone, sample_phone_pose
from geometry.scene import SceneSpec, View

GENERATOR_VERSION = "rail_attachment-2"   # -2: closer field poses (one attachment, not the array)
VARIANT_P = {"complete": 0.6, "no_lag": 0.2, "no_flashing": 0.2}
FLASHING_BELOW_BOLT_M = 0.09   # roof_build: the flashing starts this far downslope of the bolt
BUTT_CLEAR_M = 0.05            # the exposed flashing reaches at least this far above the bolt
# the roof builder's bolt: a washer (r 13 mm, ft+6..ft+9 mm) and a hex head (r 9.5 mm, ft+9..ft+17 mm)
WASHER_R_M, HEX_R_M = 0.013, 0.0095
FOOT_TOP_Z = FLASHING_THICKNESS_M + 0.006
WASHER_TOP_Z = FLASHING_THICKNESS_M + 0.009
HEX_TOP_Z = FLASHING_THICKNESS_M + 0.017
# field pose (an installer documenting one attachment): kneeling close, or standing over it
KNEEL_P = 0.55
KNEEL_REACH_M = (0.25, 1.0)       # out from the bolt's seat along the roof, log-uniform
KNEEL_ELEVATION_DEG = (3.0, 75.0)  # the phone's angle above the roof seen from the bolt
KNEEL_MIN_HEIGHT_M = 0.05         # a phone held on the shingles is still this far up
STAND_HEIGHT_M = (1.1, 1.7)
STAND_REACH_M = (0.2, 1.5)        # uniform
AZIMUTH_MAX_DEG = 80.0            # off straight downslope


class RailAttachmentSpec(SceneSpec):
    roof: RoofSpec
    attachment: int                 # index into roof_spec.l_foot_positions
    foot_uv: list[float]            # roof-frame (u, v) of its rail point
    variant: Literal["complete", "no_lag", "no_flashing"]
    lag_present: bool
    flashing_present: bool
    phone: Phone


def sample_scene(rng: np.random.Generator, scene_id: str, seed: int) -> RailAttachmentSpec:
    """A roof, one attachment of the bottom row's downslope rail (the one an installer can
    reach and see from the front), and whether its bolt or flashing is missing."""
    roof = sample_roof(rng)
    feet = [(i, u, v) for i, (r, k, u, v) in enumerate(l_foot_positions(roof)) if r == 0 and k == 0]
    i, u, v = feet[int(rng.integers(len(feet)))]
    names = list(VARIANT_P)
    variant = names[int(rng.choice(len(names), p=list(VARIANT_P.values())))]
    return RailAttachmentSpec(env="rail_attachment", scene_id=scene_id, seed=seed, roof=roof, attachment=i,
                              foot_uv=[u, v], variant=variant, lag_present=variant != "no_lag",
                              flashing_present=variant != "no_flashing", phone=sample_phone(rng))


# ---- exact geometry shared by builder and scorer -----------------------------------------

def bolt_uv(spec: RailAttachmentSpec) -> tuple[float, float]:
    u, v = spec.foot_uv
    return u, v - LAG_BOLT_OFFSET_M


def flashing_exposed_v(roof: RoofSpec, bolt_v: float) -> tuple[float, float]:
    """(v_lo, v_butt): the flashing's exposed part runs from its lower edge up to the butt
    of the first shingle course that covers it (courses butt at multiples of the exposure),
    clear of the L-foot base; above that butt it lies under the shingles."""
    e = roof.shingles.exposure_m
    v_lo = bolt_v - FLASHING_BELOW_BOLT_M
    v_butt = math.ceil((bolt_v + BUTT_CLEAR_M) / e) * e
    return v_lo, min(v_butt, v_lo + roof.array.flashing_l_m - 0.02)


def foot_base_v(spec: RailAttachmentSpec) -> tuple[float, float]:
    """Roof-frame v range of the L-foot's base plate (roof_build)."""
    _, v = spec.foot_uv
    return v - LAG_BOLT_OFFSET_M - 0.03, v - L_FOOT_LEG_OFFSET_M + 0.003


def bolt_point(spec: RailAttachmentSpec) -> np.ndarray:
    """World point at the centre of the bolt's seat on the foot (present or not): the target."""
    u, vb = bolt_uv(spec)
    return roof_to_world(spec.roof, [u, vb, FOOT_TOP_Z])


def bolt_spot_points(spec: RailAttachmentSpec, n_ring: int = 12, n_rad: int = 3) -> np.ndarray:
    """Points on the top faces of where the lag bolt sits, or would sit (N, 3) world:
    the hex top and the washer ring when present, the foot's base plate under it when
    absent. Lifted 0.2 mm so the face itself never hides them."""
    u, vb = bolt_uv(spec)
    ang = np.linspace(0, 2 * np.pi, n_ring, endpoint=False)
    pts = [[u, vb, 0.0]]
    if spec.lag_present:
        rings = [(r, HEX_TOP_Z) for r in np.linspace(0.0, 0.0075, n_rad + 1)[1:]]
        rings += [(r, WASHER_TOP_Z) for r in (0.0105, 0.012)]
        pts[0][2] = HEX_TOP_Z
    else:
        rings = [(r, FOOT_TOP_Z) for r in np.linspace(0.0, 0.012, n_rad + 1)[1:]]
        pts[0][2] = FOOT_TOP_Z
    for r, z in rings:
        pts += [[u + r * math.cos(a), vb + r * math.sin(a), z] for a in ang]
    P = np.asarray(pts, float)
    P[:, 2] += 2e-4
    return roof_to_world(spec.roof, P)


def array_footprint_uv(roof: RoofSpec) -> tuple[float, float, float, float]:
    a = roof.array
    u0, v0, _, _ = module_rect_uv(roof, 0, 0)
    _, _, u1, v1 = module_rect_uv(roof, a.rows - 1, a.cols - 1)
    return u0, v0, u1, v1


def clear_of_array(roof: RoofSpec, eye: np.ndarray, margin: float = 0.06) -> np.ndarray:
    """Move an eye that would sit under or inside the array out in front of it (the
    photographer kneels on the roof, not under the modules)."""
    M = roof_frame(roof)
    p = (eye - M[:3, 3]) @ M[:3, :3]
    u0, v0, u1, v1 = array_footprint_uv(roof)
    if u0 - margin < p[0] < u1 + margin and p[1] > v0 - margin and p[2] < module_top_z(roof) + 0.15:
        p[1] = v0 - margin
    return roof_to_world(roof, p)


def sample_view(spec: RailAttachmentSpec, rng: np.random.Generator, view_index: int, long_side_px: int,
                attempt: int = 0) -> View:
    """The installer's field pose documenting one attachment: kneeling close in front of
    the array (55%: 0.25-1.0 m out, the phone 3-75 deg above the roof as seen from the
    bolt, so a close phone is also a low one) or standing over it (45%), within +-80 deg
    of straight downslope, aiming at the bolt's seat by hand."""
    M = roof_frame(spec.roof)
    ex, ey, n = M[:3, 0], M[:3, 1], M[:3, 2]
    X = bolt_point(spec)
    if rng.random() < KNEEL_P:
        # close and low, phone angled down under the array edge at the one attachment
        reach = float(np.exp(rng.uniform(*np.log(KNEEL_REACH_M))))
        elev = math.radians(float(rng.uniform(*KNEEL_ELEVATION_DEG)))
        height = max(KNEEL_MIN_HEIGHT_M, reach * math.tan(elev))
    else:
        height = float(rng.uniform(*STAND_HEIGHT_M))
        reach = float(rng.uniform(*STAND_REACH_M))
    az = math.radians(float(rng.uniform(-AZIMUTH_MAX_DEG, AZIMUTH_MAX_DEG)))
    eye = X + reach * (-math.cos(az) * ey + math.sin(az) * ex) + height * n
    eye = clear_of_array(spec.roof, eye)
    dist = float(np.linalg.norm(X - eye))
    aim = X + rng.normal(0.0, 0.06 * dist, size=3)
    cam_to_world = look_at(eye, aim, roll_rad=math.radians(float(rng.normal(0.0, 5.0))))
    pose = sample_phone_pose(rng, spec.phone, cam_to_world, X, long_side_px)
    return View(view_index=view_index, pose=pose, target=f"l_foot_{spec.attachment}", attempt=attempt)


ENV = Environment(
    name="rail_attachment",
    family="solar",
    version=GENERATOR_VERSION,
    views_per_scene=2,
    sample_scene=sample_scene,
    sample_view=sample_view,
    builder="blender_envs.solar.rail_attachment_build:build",
    scorer="scorers.rail_attachment",
    spec_model=RailAttachmentSpec,
    prompts="realitybench",
)
