"""Swept-corridor obstruction audit of an illegal route edge (EgoPathBench App. B).

The paper audits one geometry-illegal edge per failed route prediction: it samples the
swept corridor of the formal 0.30 m body along the edge at 0.05 m and looks for
registered obstruction evidence in the aligned depth and object-index renders of the
same view. The outcome is

* "depth": a rendered pixel back-projects (depth -> 3D) into the corridor volume
  (within the radius of the segment in xy, between obstacle_min_z and obstacle_max_z
  above the floor) and is not floor: something visible stands in the body's way;
* "index": no such pixel, but corridor samples project onto pixels of non-floor,
  non-wall objects rendered in front of them: an obstacle hides the corridor in the
  index render (walls only say the corridor is out of sight, so they do not count here;
  a wall inside the corridor volume is still caught by the depth test);
* "inconclusive": neither (e.g. the corridor is out of frame, or visible and clear).

Everything is vectorised: all corridor samples are projected at once, and only pixels
inside the corridor's projected bounding box are back-projected.
"""
from __future__ import annotations

from typing import Iterable, Literal

import numpy as np

from geometry.camera import backproject, project
from geometry.egopath_schema import GeometryParams

__all__ = ["corridor_samples", "audit_edge", "audit_summary", "AUDIT_OUTCOMES"]

AUDIT_OUTCOMES = ("depth", "index", "inconclusive")
AuditOutcome = Literal["depth", "index", "inconclusive"]

_NEAR = 1e-6  # metres: samples closer to the image plane are treated as behind the camera
_BACKGROUND_DEPTH = 1e9  # renderers store "no hit" as inf or a huge finite value
_OCCLUDER_TOL_M = 0.02  # an occluder must be this much nearer than the sample it hides


def _xyz(p) -> np.ndarray:
    a = np.asarray(p, dtype=np.float64).reshape(-1)
    if a.size == 2:
        a = np.array([a[0], a[1], 0.0])
    if a.size != 3:
        raise ValueError(f"expected an xyz point, got {p!r}")
    return a


def corridor_samples(
    a_xyz, b_xyz, radius: float, step_m: float, heights: Iterable[float], n_rings: int = 3, n_angles: int = 12
) -> np.ndarray:
    """(N,3) points on and in the swept cylinder of `radius` along a -> b.

    Centre-line stations every `step_m` in xy (both ends included); at each station and
    each height above the local floor (interpolated from a_z to b_z) a disc: its centre
    plus `n_rings` concentric rings (radii r/n_rings ... r) of `n_angles` points.
    """
    a, b = _xyz(a_xyz), _xyz(b_xyz)
    if radius < 0 or not step_m > 0:
        raise ValueError("radius must be >= 0 and step_m > 0")
    heights = np.asarray(list(heights), dtype=np.float64).reshape(-1)
    if not len(heights):
        raise ValueError("heights is empty")
    length = float(np.hypot(*(b - a)[:2]))
    n = max(int(np.ceil(length / step_m - 1e-9)) + 1, 1)
    t = np.minimum(np.arange(n) * step_m / length, 1.0) if length > 0 else np.zeros(1)
    t[-1] = 1.0 if length > 0 else 0.0
    centres = a[None, :] + t[:, None] * (b - a)[None, :]  # (n,3), z = local floor
    offs = [np.zeros((1, 2))]
    if radius > 0 and n_rings > 0 and n_angles > 0:
        ang = np.arange(n_angles) * (2 * np.pi / n_angles)
        for k in range(1, n_rings + 1):
            rr = radius * k / n_rings
            offs.append(np.stack([rr * np.cos(ang), rr * np.sin(ang)], axis=1))
    disc = np.concatenate(offs)  # (m,2)
    pts = (
        centres[:, None, None, :]
        + np.concatenate([disc, np.zeros((len(disc), 1))], axis=1)[None, None, :, :]
        + np.array([0.0, 0.0, 1.0])[None, None, None, :] * heights[None, :, None, None]
    )
    return pts.reshape(-1, 3)


def audit_edge(
    a_xyz,
    b_xyz,
    params: GeometryParams,
    K,
    cam_to_world,
    depth: np.ndarray,
    object_index: np.ndarray,
    floor_ids,
    wall_ids=(),
    radius: float | None = None,
    n_heights: int = 5,
    min_pixels: int = 1,
    min_samples: int = 1,
) -> AuditOutcome:
    """Classify the obstruction evidence for the edge a -> b in one view's aligned renders.

    depth: planar (camera-z) depth per pixel, inf (or >= 1e9) for background;
    object_index: int object id per pixel (0 = background); radius defaults to the formal
    body radius (the paper audits point and embodied edges with the 0.30 m corridor).
    """
    depth = np.asarray(depth, dtype=np.float64)
    object_index = np.asarray(object_index)
    if depth.ndim != 2 or depth.shape != object_index.shape:
        raise ValueError("depth and object_index must be 2D arrays of the same shape")
    r = float(params.body_radius_m if radius is None else radius)
    a, b = _xyz(a_xyz), _xyz(b_xyz)
    H, W = depth.shape
    floor_arr = np.asarray(sorted(int(i) for i in floor_ids), dtype=np.int64)
    wall_arr = np.asarray(sorted(int(i) for i in wall_ids), dtype=np.int64)
    heights = np.linspace(params.obstacle_min_z, params.obstacle_max_z, max(int(n_heights), 2))

    n_angles = 12
    S = corridor_samples(a, b, r, params.corridor_step_m, heights, n_rings=3, n_angles=n_angles)
    uv, z = project(S, K, cam_to_world)
    front = z > _NEAR
    with np.errstate(invalid="ignore"):
        inframe = front & (uv[:, 0] >= -0.5) & (uv[:, 0] < W - 0.5) & (uv[:, 1] >= -0.5) & (uv[:, 1] < H - 0.5)
    if not inframe.any():
        return "inconclusive"
    uv_in, z_in = uv[inframe], z[inframe]

    # ---- depth: back-project the pixels of the corridor's projected bbox whose depth lies in
    # the corridor's depth range. The ring polygon under-covers the circle by
    # e = r (1 - cos(pi / n_angles)) in xy; both the bbox and the depth range are padded for it.
    K = np.asarray(K, dtype=np.float64)
    e = r * (1.0 - np.cos(np.pi / n_angles)) + 1e-3
    if (~front).any():  # the corridor crosses the camera plane: its projection is unbounded
        u0, u1, v0, v1 = 0, W - 1, 0, H - 1
    else:
        pad = int(np.ceil(max(K[0, 0], K[1, 1]) * e / z.min())) + 1
        u0 = max(int(np.floor(uv[:, 0].min())) - pad, 0)
        u1 = min(int(np.ceil(uv[:, 0].max())) + pad, W - 1)
        v0 = max(int(np.floor(uv[:, 1].min())) - pad, 0)
        v1 = min(int(np.ceil(uv[:, 1].max())) + pad, H - 1)
    d_lo = max(float(z[front].min()) - e, 0.0) if front.all() else 0.0
    d_hi = float(z[front].max()) + e
    d_sub = depth[v0:v1 + 1, u0:u1 + 1]
    with np.errstate(invalid="ignore"):
        valid = (d_sub > 0) & (d_sub >= d_lo) & (d_sub <= d_hi)
    vv, uu = np.nonzero(valid)
    if len(vv):
        dz = d_sub[vv, uu]
        ids = object_index[v0:v1 + 1, u0:u1 + 1][vv, uu]
        keep = ~np.isin(ids, floor_arr)
        pix = np.stack([uu[keep] + u0, vv[keep] + v0], axis=1).astype(np.float64)
        X = backproject(pix, dz[keep], K, cam_to_world)
        d2 = (b - a)[:2]
        L2 = float(d2 @ d2)
        rel = X[:, :2] - a[:2]
        t = np.clip(rel @ d2 / L2, 0.0, 1.0) if L2 > 0 else np.zeros(len(X))
        closest = a[:2] + t[:, None] * d2
        dist = np.hypot(*(X[:, :2] - closest).T)
        base = a[2] + t * (b[2] - a[2])
        inside = (
            (dist <= r)
            & (X[:, 2] >= base + params.obstacle_min_z)
            & (X[:, 2] <= base + params.obstacle_max_z)
        )
        if int(inside.sum()) >= min_pixels:
            return "depth"

    # ---- index: obstacles rendered in front of corridor samples.
    pu = np.clip(np.rint(uv_in[:, 0]).astype(np.int64), 0, W - 1)
    pv = np.clip(np.rint(uv_in[:, 1]).astype(np.int64), 0, H - 1)
    rd = depth[pv, pu]
    rid = object_index[pv, pu].astype(np.int64)
    occluded = (
        np.isfinite(rd)
        & (rd < _BACKGROUND_DEPTH)
        & (rd < z_in - _OCCLUDER_TOL_M)
        & (rid != 0)
        & ~np.isin(rid, floor_arr)
        & ~np.isin(rid, wall_arr)
    )
    if int(occluded.sum()) >= min_samples:
        return "index"
    return "inconclusive"


def audit_summary(outcomes) -> dict:
    """Counts and shares of audit outcomes (App. B: explained by depth, by index only, inconclusive).

    Shares are None when there are no outcomes.
    """
    outs = list(outcomes)
    bad = sorted({o for o in outs if o not in AUDIT_OUTCOMES})
    if bad:
        raise ValueError(f"unknown audit outcomes {bad}; expected {AUDIT_OUTCOMES}")
    n = len(outs)
    counts = {k: sum(1 for o in outs if o == k) for k in AUDIT_OUTCOMES}

    def share(x: int):
        return x / n if n else None

    return {
        "n": n,
        "depth": counts["depth"],
        "index": counts["index"],
        "inconclusive": counts["inconclusive"],
        "explained": counts["depth"] + counts["index"],
        "depth_share": share(counts["depth"]),
        "index_share": share(counts["index"]),
        "explained_share": share(counts["depth"] + counts["index"]),
        "inconclusive_share": share(counts["inconclusive"]),
    }
