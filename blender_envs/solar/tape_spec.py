"""The tape measure of `tape_gap` as data, and the exact geometry its labels come from.

No bpy: the builder, the view sampler and the scorer all read the same numbers here, so
the reading a model is asked for is the reading the pixels show.

Conventions
-----------
* Lengths are metres in world space; readings are inches printed on the blade.
* The blade's numbered face centre line is the line ``hook_point + s * up``;
  ``blade_point(tape, r)`` is the point printed with reading ``r`` (inches),
  ``first_reading_in`` being the reading at the hook (0 for a standard tape; the hook's
  ~1/16 in thickness is modelled as 0).
* ``up`` is the roof normal tilted by two lean angles, ``lean_in_plane_deg`` (sideways,
  within the blade's own plane, i.e. towards its width direction) and
  ``lean_across_deg`` (towards/away from the numbered face). With ``w`` the width
  direction and ``f0`` the unleaned face normal, ``up ∝ n + tan(a)·w + tan(b)·f0``: the
  blade's silhouette seen square-on to its face leans by exactly ``a``, seen edge-on by
  exactly ``b``; the total lean is ``atan(sqrt(tan²a + tan²b))``.
* ``facing`` is the unit normal of the numbered face (perpendicular to ``up``).

The module front-bottom edge is passed in as two world points and the roof plane as a
point and unit normal, so this module does not depend on the roof scene.
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from geometry.camera import project

INCH_M = 0.0254
BLADE_WIDTH_M = 0.025
FLUSH_MAX_DEG = 5.0          # Table 1: "tape seated flush (tilt <= 5 deg)"
FRONT_MAX_DEG = 75.0         # "photographed from the front of the blade": view ray vs face normal
CASE_SIZE_M = (0.075, 0.075, 0.04)  # case box extents along local x (width), y (case_up), z (case_forward)
TAPE_BLADE_OBJECT = "tape_blade"    # object name the builder must give the blade (scorer looks it up)
TAPE_CASE_OBJECT = "tape_case"


def _unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=np.float64).reshape(3)
    n = float(np.linalg.norm(v))
    if n < 1e-12:
        raise ValueError("zero-length direction")
    return v / n


def _as_list(v) -> list[float]:
    return [float(x) for x in np.asarray(v, dtype=np.float64).reshape(-1)]


class TapeSpec(BaseModel):
    """Every draw of the tape: where it is hooked, how it leans, where its case is."""

    model_config = ConfigDict(extra="forbid")
    hook_point: list[float]          # world; on the roof surface, on the face centre line
    roof_normal: list[float]         # unit roof normal at the hook (lean is measured against it)
    lean_in_plane_deg: float         # signed; towards +width
    lean_across_deg: float           # signed; towards +facing0 (the numbered side)
    up: list[float]                  # unit blade axis, pointing away from the roof
    facing: list[float]              # unit normal of the numbered face, perpendicular to up
    blade_width_m: float = BLADE_WIDTH_M
    blade_length_m: float            # blade length above the hook
    first_reading_in: float = 0.0    # reading printed at the hook
    case_placement: Literal["roof", "hand"]
    case_center: list[float]         # world
    case_up: list[float]             # unit; the case's long side direction (blade exit side)
    case_forward: list[float]        # unit; perpendicular to case_up (the case's flat face normal)

    # --- array views
    def up_array(self) -> np.ndarray:
        return np.asarray(self.up, dtype=np.float64)

    def facing_array(self) -> np.ndarray:
        return np.asarray(self.facing, dtype=np.float64)

    def width_dir(self) -> np.ndarray:
        """Unit direction across the blade (right-handed: width = up x facing)."""
        return np.cross(self.up_array(), self.facing_array())

    @property
    def top_reading_in(self) -> float:
        return self.first_reading_in + self.blade_length_m / INCH_M


# ---------------------------------------------------------------------------- geometry

def leaned_frame(roof_normal, facing0, lean_in_plane_deg: float, lean_across_deg: float):
    """(up, facing) for a blade whose unleaned face normal is `facing0` (⊥ roof normal)."""
    n = _unit(roof_normal)
    f0 = _unit(np.asarray(facing0, float) - np.dot(facing0, n) * n)
    w = np.cross(n, f0)  # so that up x facing = w when unleaned
    up = _unit(n + math.tan(math.radians(lean_in_plane_deg)) * w + math.tan(math.radians(lean_across_deg)) * f0)
    facing = _unit(f0 - np.dot(f0, up) * up)
    return up, facing


def blade_point(tape: TapeSpec, reading_in) -> np.ndarray:
    """World point(s) on the numbered face centre line printed with `reading_in`."""
    r = np.asarray(reading_in, dtype=np.float64)
    s = (r - tape.first_reading_in) * INCH_M
    P = np.asarray(tape.hook_point, float) + s[..., None] * tape.up_array()
    return P


def lean_deg(tape: TapeSpec, roof_normal=None) -> float:
    """Angle between the blade axis and the roof normal (the tape's own normal by default)."""
    n = _unit(tape.roof_normal if roof_normal is None else roof_normal)
    return float(math.degrees(math.acos(float(np.clip(np.dot(tape.up_array(), n), -1.0, 1.0)))))


def is_tilted(tape: TapeSpec, roof_normal=None) -> bool:
    return lean_deg(tape, roof_normal) > FLUSH_MAX_DEG


def geometric_crossing_reading_in(tape: TapeSpec, edge_p0, edge_p1) -> float:
    """Reading where the blade centre line passes closest to the module edge line."""
    H, u = np.asarray(tape.hook_point, float), tape.up_array()
    P0 = np.asarray(edge_p0, float)
    d = _unit(np.asarray(edge_p1, float) - P0)
    b = float(np.dot(u, d))
    denom = 1.0 - b * b
    if denom < 1e-12:
        raise ValueError("blade is parallel to the edge: no crossing")
    w0 = H - P0
    s = (b * np.dot(d, w0) - np.dot(u, w0)) / denom
    return float(tape.first_reading_in + s / INCH_M)


def apparent_reading_in(tape: TapeSpec, edge_p0, edge_p1, camera_center) -> float:
    """Reading at the blade point the camera sees on the edge (Table 2 'apparent reading').

    The points that project onto the edge line form the plane through the camera centre
    and the edge; the apparent reading is where the blade centre line meets that plane.
    NaN when the blade lies in (or parallel to) that plane.
    """
    H, u = np.asarray(tape.hook_point, float), tape.up_array()
    P0, P1 = np.asarray(edge_p0, float), np.asarray(edge_p1, float)
    C = np.asarray(camera_center, float)
    m = np.cross(P1 - P0, P0 - C)
    nm = np.linalg.norm(m)
    if nm < 1e-15:
        return float("nan")  # camera on the edge line
    m = m / nm
    mu = float(np.dot(m, u))
    if abs(mu) < 1e-9:
        return float("nan")
    s = float(np.dot(m, P0 - H)) / mu
    return float(tape.first_reading_in + s / INCH_M)


def gap_in(module_gap_m: float) -> float:
    """The true perpendicular module-to-roof gap, in inches."""
    return float(module_gap_m) / INCH_M


def image_lean_deg(tape: TapeSpec, pose, length_m: float = 0.05) -> float:
    """Angle in the image between the projected blade axis and the projected roof normal.

    Both are taken at the hook over `length_m`, so perspective convergence cancels (a
    flush blade gives 0). A lean towards or away from the camera projects to ~0 here:
    that is the gray zone (leaning, but not visibly so). NaN if the normal projects to
    (almost) a point or the hook is behind the camera.
    """
    H = np.asarray(tape.hook_point, float)
    n = _unit(tape.roof_normal)
    pts = np.stack([H, H + length_m * tape.up_array(), H + length_m * n])
    uv, z = project(pts, pose.K_array(), pose.cam_to_world_array())
    if np.any(z <= 1e-6):
        return float("nan")
    a, b = uv[1] - uv[0], uv[2] - uv[0]
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na < 1e-6 or nb < 1e-6:
        return float("nan")
    cos = float(np.clip(np.dot(a, b) / (na * nb), -1.0, 1.0))
    return float(math.degrees(math.acos(cos)))


def front_of_blade(tape: TapeSpec, camera_center, point=None) -> tuple[bool, float]:
    """(camera on the numbered side within FRONT_MAX_DEG, angle view-ray vs face normal).

    The angle is 0 square-on, > 90 behind the blade. `point` defaults to the hook.
    """
    p = np.asarray(tape.hook_point if point is None else point, float)
    ray = _unit(np.asarray(camera_center, float) - p)
    ang = float(math.degrees(math.acos(float(np.clip(np.dot(ray, tape.facing_array()), -1.0, 1.0)))))
    return ang < FRONT_MAX_DEG, ang


def case_matrix(tape: TapeSpec) -> np.ndarray:
    """4x4 world transform of the case box: local x = width side, y = case_up, z = case_forward."""
    y = _unit(tape.case_up)
    z = _unit(np.asarray(tape.case_forward, float) - np.dot(tape.case_forward, y) * y)
    M = np.eye(4)
    M[:3, 0], M[:3, 1], M[:3, 2], M[:3, 3] = np.cross(y, z), y, z, tape.case_center
    return M


# ---------------------------------------------------------------------------- sampling

def downslope_facing(roof_normal, edge_dir) -> np.ndarray:
    """Unit roof-plane direction ⊥ the edge pointing down the slope (world -z side).

    On a flat roof the sign falls back to n x edge_dir, so the result is always defined.
    """
    n = _unit(roof_normal)
    e = np.asarray(edge_dir, float)
    e = _unit(e - np.dot(e, n) * n)
    f = np.cross(n, e)
    if f[2] > 1e-9:
        f = -f
    return f


def _rotate_about(v: np.ndarray, axis: np.ndarray, deg: float) -> np.ndarray:
    k = _unit(axis)
    t = math.radians(deg)
    return v * math.cos(t) + np.cross(k, v) * math.sin(t) + k * np.dot(k, v) * (1 - math.cos(t))


def sample_tape(rng: np.random.Generator, hook_point, roof_normal, edge_dir, gap_m: float = 0.15) -> TapeSpec:
    """Draw a tape hooked at `hook_point`: ~50% flush (lean <= 5 deg), ~50% leaning 5-20 deg.

    The lean direction is pure in-plane, pure across or mixed (a third each), so both the
    visible (sideways) and the hard-to-see (towards the camera) leans occur. The face
    looks downslope within +-60 deg yaw, where the photographer usually stands. The
    blade reaches past the module edge by 0.10-0.30 m (`gap_m` = module-to-roof gap).
    """
    n = _unit(roof_normal)
    f_down = downslope_facing(n, edge_dir)
    yaw = float(rng.uniform(-60.0, 60.0))
    f0 = _rotate_about(f_down, n, yaw)

    if rng.random() < 0.5:
        total = float(rng.uniform(0.0, FLUSH_MAX_DEG))
    else:
        total = float(rng.uniform(FLUSH_MAX_DEG, 20.0))
    kind = int(rng.integers(3))  # 0 in-plane, 1 across, 2 mixed
    sign = 1.0 if rng.random() < 0.5 else -1.0
    phi = {0: 0.0, 1: math.pi / 2, 2: float(rng.uniform(0.0, math.pi / 2))}[kind]
    if kind == 2 and rng.random() < 0.5:
        phi = math.pi - phi
    t = math.tan(math.radians(total))
    a = math.degrees(math.atan(sign * t * math.cos(phi)))
    b = math.degrees(math.atan(sign * t * math.sin(phi)))
    up, facing = leaned_frame(n, f0, a, b)

    length = float(gap_m) / math.cos(math.radians(total)) + float(rng.uniform(0.10, 0.30))
    H = np.asarray(hook_point, float)
    placement = "hand" if rng.random() < 0.5 else "roof"
    if placement == "hand":
        # held at the top: the case sits just above the blade end, turned like the blade
        center = H + (length + CASE_SIZE_M[1] / 2) * up
        c_up, c_fwd = up, facing
    else:
        # laid on the roof beside the hook, on its side
        w = np.cross(n, f0)
        side = 1.0 if rng.random() < 0.5 else -1.0
        off = side * float(rng.uniform(0.10, 0.25)) * w + float(rng.uniform(-0.05, 0.15)) * f0
        center = H + off + (CASE_SIZE_M[2] / 2) * n
        c_fwd = n
        c_up = _rotate_about(f0, n, float(rng.uniform(0.0, 360.0)))
    return TapeSpec(
        hook_point=_as_list(H), roof_normal=_as_list(n),
        lean_in_plane_deg=a + 0.0, lean_across_deg=b + 0.0,  # + 0.0: no '-0.0' in the JSON
        up=_as_list(up), facing=_as_list(facing),
        blade_length_m=round(length, 6), first_reading_in=0.0,
        case_placement=placement, case_center=_as_list(center),
        case_up=_as_list(c_up), case_forward=_as_list(c_fwd),
    )
