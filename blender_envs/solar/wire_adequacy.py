"""`wire_adequacy` (RealityBench §3.1, Tables 1-3): the lead wires and trunk cable under
the array, hanging with sag; some touch the shingles. The photo must show a lead wire's
lowest point; the question is whether any wire touches the roof.

Spec side only (no bpy). The scene is the shared roof unchanged (its `wire_paths`
already lays a sagging wire on the roof where the sag reaches it), so the builder is the
roof builder. The target is the top row's lead wire that hangs lowest: the top row's
junction boxes sit 12 cm below the array's upper edge, where an installer standing
upslope of the array can see under it.
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.registry import Environment
from blender_envs.solar.roof_spec import (RoofSpec, module_rect_uv, module_top_z, roof_frame, roof_junction_box_uv,
                                          roof_to_world, sample_roof, wire_paths)
from geometry.camera import Phone, look_at, sample_phone, sample_phone_pose
from geometry.scene import SceneSpec, View

GENERATOR_VERSION = "wire_adequacy-1"
TRUNK_RADIUS_FACTOR = 1.6     # roof_build: the trunk cable is 1.6x the lead wire's radius
TOUCH_TOL_M = 1e-6            # clearance <= this counts as <= 0 (float round-off of the frame change)
JBOX_KEEP_OUT_M = 0.03        # a cable's termination at the roof junction box is not contact
RING_N = 12


class WireAdequacySpec(SceneSpec):
    roof: RoofSpec
    target_wire: str              # the photographed lead wire, `lead_r{row}_c{col}`
    phone: Phone


def wire_radius(roof: RoofSpec, name: str) -> float:
    r = roof.array.wire_radius_m
    return r * TRUNK_RADIUS_FACTOR if name.startswith("trunk") else r


def _roof_coords(roof: RoofSpec, P: np.ndarray) -> np.ndarray:
    M = roof_frame(roof)
    return (np.asarray(P, float) - M[:3, 3]) @ M[:3, :3]


def near_roof_jbox(roof: RoofSpec, uv: np.ndarray) -> np.ndarray:
    """True where roof-frame (u, v) lies within JBOX_KEEP_OUT_M of the roof junction box."""
    ju, jv = roof_junction_box_uv(roof)
    return (np.abs(uv[:, 0] - ju) <= 0.1 + JBOX_KEEP_OUT_M) & (np.abs(uv[:, 1] - jv) <= 0.09 + JBOX_KEEP_OUT_M)


def wire_clearances(roof: RoofSpec) -> dict[str, float]:
    """Table 2 clearance per wire: the lowest height of the beveled tube above the roof
    plane (axis height minus radius, at the polyline's vertices, where a piecewise-linear
    axis has its minima); <= 0 is contact. Trunk vertices at its junction-box entry are
    left out (the cable is meant to meet the box there)."""
    out = {}
    for name, pts in wire_paths(roof).items():
        p = _roof_coords(roof, pts)
        keep = ~near_roof_jbox(roof, p[:, :2]) if name.startswith("trunk") else np.ones(len(p), bool)
        out[name] = float(p[keep, 2].min() - wire_radius(roof, name))
    return out


def is_touching(clearance_m: float) -> bool:
    return bool(clearance_m <= TOUCH_TOL_M)


def any_touching(roof: RoofSpec) -> bool:
    return any(is_touching(c) for c in wire_clearances(roof).values())


def low_point_axis(roof: RoofSpec, name: str) -> np.ndarray:
    """World point of the wire's axis at its lowest point: the middle of the lowest
    vertices (a wire lying on the roof is flat there, so the middle is on the axis)."""
    pts = wire_paths(roof)[name]
    z = _roof_coords(roof, pts)[:, 2]
    low = np.nonzero(z <= z.min() + 1e-9)[0]
    return 0.5 * (pts[low[0]] + pts[low[-1]])


def low_point(roof: RoofSpec, name: str) -> np.ndarray:
    """World point at the bottom of the tube under the lowest axis point (the target)."""
    return low_point_axis(roof, name) - wire_radius(roof, name) * roof_frame(roof)[:3, 2]


def low_point_samples(roof: RoofSpec, name: str, n_ring: int = RING_N, along_m=(-0.02, 0.0, 0.02)) -> np.ndarray:
    """Points on the tube surface around its lowest point: rings of `n_ring` around the
    axis, at the low point and 2 cm either side along the wire, lifted 0.2 mm outward."""
    pts = wire_paths(roof)[name]
    c = low_point_axis(roof, name)
    k = int(np.argmin(np.linalg.norm(pts - c, axis=1)))
    t = pts[min(k + 1, len(pts) - 1)] - pts[max(k - 1, 0)]
    t /= np.linalg.norm(t)
    n = roof_frame(roof)[:3, 2]
    a = n - (n @ t) * t
    a /= np.linalg.norm(a)
    b = np.cross(t, a)
    r = wire_radius(roof, name) + 2e-4
    ang = np.linspace(0, 2 * np.pi, n_ring, endpoint=False)
    ring = r * (np.cos(ang)[:, None] * a + np.sin(ang)[:, None] * b)
    return np.concatenate([c + s * t + ring for s in along_m])


def sample_scene(rng: np.random.Generator, scene_id: str, seed: int) -> WireAdequacySpec:
    """A roof; the target is the top row's lowest-hanging lead wire (ties at random)."""
    roof = sample_roof(rng)
    top = roof.array.rows - 1
    clear = wire_clearances(roof)
    leads = [f"lead_r{top}_c{c}" for c in range(roof.array.cols - 1)]
    lo = min(clear[n] for n in leads)
    cands = [n for n in leads if clear[n] <= lo + 1e-4]
    return WireAdequacySpec(env="wire_adequacy", scene_id=scene_id, seed=seed, roof=roof,
                            target_wire=cands[int(rng.integers(len(cands)))], phone=sample_phone(rng))


def keep_on_roof(roof: RoofSpec, eye: np.ndarray, margin: float = 0.06) -> np.ndarray:
    """An eye low over the array moves out above its top edge; an eye past the roof's top
    edge comes back onto the roof (the photographer stands on it)."""
    p = _roof_coords(roof, eye)
    a = roof.array
    u0, v0, _, _ = module_rect_uv(roof, 0, 0)
    _, _, u1, v1 = module_rect_uv(roof, a.rows - 1, a.cols - 1)
    if u0 - margin < p[0] < u1 + margin and v0 - margin < p[1] < v1 + margin and p[2] < module_top_z(roof) + 0.15:
        p[1] = v1 + margin if p[1] > (v0 + v1) / 2 else v0 - margin
    p[0] = min(max(p[0], 0.1), roof.eave_length_m - 0.1)
    p[1] = min(p[1], roof.rafter_length_m - 0.05)
    return roof_to_world(roof, p)


def sample_view(spec: WireAdequacySpec, rng: np.random.Generator, view_index: int, long_side_px: int,
                attempt: int = 0) -> View:
    """The installer's field pose: mostly from upslope of the array (85%), looking down
    under its top edge, kneeling low (85%) or standing; otherwise from the eave side. Aims at
    the wire's low point by hand."""
    roof = spec.roof
    M = roof_frame(roof)
    ex, ey, n = M[:3, 0], M[:3, 1], M[:3, 2]
    X = low_point(roof, spec.target_wire)
    upslope = rng.random() < 0.85
    if rng.random() < 0.85:
        height = float(rng.uniform(0.08, 0.4))
        reach = float(np.exp(rng.uniform(np.log(0.4), np.log(2.0))))
    else:
        height = float(rng.uniform(1.1, 1.7))
        reach = float(rng.uniform(0.3, 2.2))
    az = math.radians(float(rng.uniform(-75.0, 75.0)))
    ahead = (math.cos(az) * ey + math.sin(az) * ex) * (1.0 if upslope else -1.0)
    if not upslope:  # from the eave side: start in front of the array
        u0, v0, _, _ = module_rect_uv(roof, 0, 0)
        X0 = X - ((X - M[:3, 3]) @ ey - v0) * ey
        eye = X0 + reach * ahead + height * n
    else:
        eye = X + reach * ahead + height * n
    eye = keep_on_roof(roof, eye)
    dist = float(np.linalg.norm(X - eye))
    aim = X + rng.normal(0.0, 0.06 * dist, size=3)
    cam_to_world = look_at(eye, aim, roll_rad=math.radians(float(rng.normal(0.0, 5.0))))
    pose = sample_phone_pose(rng, spec.phone, cam_to_world, X, long_side_px)
    return View(view_index=view_index, pose=pose, target=spec.target_wire, attempt=attempt)


ENV = Environment(
    name="wire_adequacy",
    family="solar",
    version=GENERATOR_VERSION,
    views_per_scene=2,
    sample_scene=sample_scene,
    sample_view=sample_view,
    builder="blender_envs.solar.wire_adequacy_build:build",
    scorer="scorers.wire_adequacy",
    spec_model=WireAdequacySpec,
    prompts="realitybench",
)
