"""`tape_gap` (RealityBench §3.1, Tables 1–3): a tape measure hooked on the roof and
standing up to a module's front-bottom edge, photographed by an installer.

Spec side only (no bpy): the roof, the tape, the module edge it reaches and the
phone are drawn here; `tape_build.build` renders them; `scorers.tape_gap` scores.
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.registry import Environment
from blender_envs.solar.roof_spec import (RoofSpec, l_foot_positions, module_front_bottom_edge, module_gap_m,
                                          module_rect_uv, roof_frame, roof_to_world, sample_roof)
from blender_envs.solar.tape_spec import TapeSpec, blade_point, geometric_crossing_reading_in, sample_tape
from geometry.camera import Phone, look_at, sample_phone, sample_phone_pose
from geometry.scene import SceneSpec, View

GENERATOR_VERSION = "tape_gap-1"
TARGET = "tape_blade"


class TapeGapSpec(SceneSpec):
    roof: RoofSpec
    module_row: int
    module_col: int
    edge: list[list[float]]          # the module frame's front-bottom edge, two world points
    module_gap_m: float              # true perpendicular module-to-roof gap
    tape: TapeSpec
    phone: Phone


def sample_scene(rng: np.random.Generator, scene_id: str, seed: int) -> TapeGapSpec:
    """A roof, then a tape hooked just in front of a bottom-row module's lower edge,
    clear of the L-feet (an installer measures between attachments)."""
    roof = sample_roof(rng)
    col = int(rng.integers(roof.array.cols))
    u0, v0, u1, _ = module_rect_uv(roof, 0, col)
    feet_u = [u for (_r, _k, u, _v) in l_foot_positions(roof)]
    u = float(rng.uniform(u0 + 0.12, u1 - 0.12))
    for _ in range(20):  # bounded: keep 8 cm from any L-foot
        if all(abs(u - fu) > 0.08 for fu in feet_u):
            break
        u = float(rng.uniform(u0 + 0.12, u1 - 0.12))
    standoff = float(rng.uniform(0.004, 0.02))  # blade face this far in front of the frame face
    hook = roof_to_world(roof, [u, v0 - standoff, 0.0])
    M = roof_frame(roof)
    edge = module_front_bottom_edge(roof, 0, col)
    gap = module_gap_m(roof)
    frame_top = gap + roof.array.frame_depth_m
    for _ in range(50):  # bounded: a blade leaning back into the module would pass through its frame
        tape = sample_tape(rng, hook, M[:3, 2], M[:3, 0], gap_m=gap)
        if _clear_of_frame(tape, M, v0, frame_top):
            break
    return TapeGapSpec(env="tape_gap", scene_id=scene_id, seed=seed, roof=roof, module_row=0, module_col=col,
                       edge=np.round(edge, 6).tolist(), module_gap_m=gap, tape=tape, phone=sample_phone(rng))


def _clear_of_frame(tape: TapeSpec, roof_M: np.ndarray, frame_v: float, frame_top_m: float) -> bool:
    """The blade stays in front of the frame's front face up to the frame's top."""
    up, n, ey = tape.up_array(), roof_M[:3, 2], roof_M[:3, 1]
    rise = float(up @ n)
    if rise <= 0:
        return False
    top = np.asarray(tape.hook_point, float) + up * (frame_top_m / rise)
    return float((top - roof_M[:3, 3]) @ ey) < frame_v - 0.002


def crossing_point(spec: TapeGapSpec) -> np.ndarray:
    """Where the blade passes the module edge (the geometric crossing)."""
    p0, p1 = np.asarray(spec.edge, float)
    return blade_point(spec.tape, geometric_crossing_reading_in(spec.tape, p0, p1))


def sample_view(spec: TapeGapSpec, rng: np.random.Generator, view_index: int, long_side_px: int,
                attempt: int = 0) -> View:
    """The installer's field pose: kneeling close or standing over the tape, somewhere in
    front of the array (downslope, within +-80 deg of straight on), aiming at the
    crossing by hand (a few cm off), phone roll a few degrees."""
    M = roof_frame(spec.roof)
    ex, ey, n = M[:3, 0], M[:3, 1], M[:3, 2]
    X = crossing_point(spec)
    if rng.random() < 0.65:  # kneeling / crouching close to the tape
        height = float(rng.uniform(0.25, 0.85))
        reach = float(np.exp(rng.uniform(np.log(0.15), np.log(1.2))))
    else:                    # standing on the roof
        height = float(rng.uniform(1.15, 1.65))
        reach = float(rng.uniform(0.2, 1.6))
    az = math.radians(float(rng.uniform(-70.0, 70.0)))
    in_plane = -math.cos(az) * ey + math.sin(az) * ex          # downslope, turned by az
    hook = np.asarray(spec.tape.hook_point, float)
    eye = hook + reach * in_plane + height * n + (X - hook) @ ex * ex
    dist = float(np.linalg.norm(X - eye))
    aim = X + rng.normal(0.0, 0.06 * dist, size=3)
    cam_to_world = look_at(eye, aim, roll_rad=math.radians(float(rng.normal(0.0, 5.0))))  # phone held level
    pose = sample_phone_pose(rng, spec.phone, cam_to_world, X, long_side_px)
    return View(view_index=view_index, pose=pose, target=TARGET, attempt=attempt)


ENV = Environment(
    name="tape_gap",
    family="solar",
    version=GENERATOR_VERSION,
    views_per_scene=2,
    sample_scene=sample_scene,
    sample_view=sample_view,
    builder="blender_envs.solar.tape_build:build",
    scorer="scorers.tape_gap",
    spec_model=TapeGapSpec,
    prompts="realitybench",
    measurement_keys=frozenset({"reading_in", "gap_in"}),  # reading tape measures (Fig. 3)
    card_default=True,   # the paper's worked example opens the dataset card
)
