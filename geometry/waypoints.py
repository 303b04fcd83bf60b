"""EgoPathBench marker placement for one view (egopathbench.txt §3.3, "Waypoints and
geometric labels").

Every displayed id must stand for one distinct, visible scene location: a ground
marker is drawn only where the camera ray through its pixel first hits floor at that
very point (depth check), and a surface negative only where the ray first hits the
furniture/wall point it names. Markers keep a minimum pixel spacing and a border
margin so overlays stay readable. All randomness comes from the caller's Generator
and every loop runs in a fixed order, so equal inputs give equal markers.

Pure numpy + the open3d `Raycaster`; feasibility enters only as predicates so this
module needs no occupancy grid.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np

from geometry.camera import CameraPose
from geometry.raycast import Raycaster

__all__ = [
    "Marker",
    "HitPool",
    "pixel_dirs",
    "cast_pixels",
    "floor_visibility",
    "in_frame",
    "visible_floor_pool",
    "visible_surface_pool",
    "sample_ground_candidates",
    "sample_surface_negatives",
    "start_candidate",
    "insert_required",
    "default_step_px",
]

XYPredicate = Callable[[np.ndarray], np.ndarray]  # (N,2) world xy -> (N,) bool


@dataclass(frozen=True)
class Marker:
    """One displayed marker before numbering: pixel centre, scene point, object hit."""

    pixel: tuple[float, float]
    world: tuple[float, float, float]
    object_id: int
    kind: str  # "ground" | "surface"

    @property
    def uv(self) -> np.ndarray:
        return np.asarray(self.pixel, dtype=np.float64)

    @property
    def xyz(self) -> np.ndarray:
        return np.asarray(self.world, dtype=np.float64)

    @property
    def xy(self) -> np.ndarray:
        return np.asarray(self.world[:2], dtype=np.float64)


@dataclass
class HitPool:
    """Pixels whose camera ray first hits an accepted object: (N,2) uv, (N,3) xyz, (N,) ids."""

    uv: np.ndarray
    xyz: np.ndarray
    object_id: np.ndarray

    def __len__(self) -> int:
        return len(self.uv)

    def subset(self, mask: np.ndarray) -> "HitPool":
        return HitPool(self.uv[mask], self.xyz[mask], self.object_id[mask])


# ------------------------------------------------------------------ camera rays


def _pose_arrays(pose: CameraPose) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    K = pose.K_array()
    T = pose.cam_to_world_array()
    return K, T[:3, :3], T[:3, 3].copy()


def pixel_dirs(pose: CameraPose, uv: np.ndarray) -> np.ndarray:
    """Unit world directions of the rays through (possibly fractional) pixels uv (N,2)."""
    K, R, _ = _pose_arrays(pose)
    uv = np.asarray(uv, dtype=np.float64).reshape(-1, 2)
    hom = np.column_stack([uv, np.ones(len(uv))])
    d_cam = np.linalg.solve(K, hom.T).T
    d = d_cam @ R.T
    return d / np.linalg.norm(d, axis=1, keepdims=True)


def cast_pixels(raycaster: Raycaster, pose: CameraPose, uv: np.ndarray):
    """First hit through each pixel: (t metres, object id (0 = miss), hit xyz, hit normal)."""
    _, _, C = _pose_arrays(pose)
    d = pixel_dirs(pose, uv)
    t, oid, _, normal = raycaster.cast(np.broadcast_to(C, d.shape), d)
    xyz = C + np.where(np.isfinite(t), t, 0.0)[:, None] * d
    return t, oid, xyz, normal


def _project(pose: CameraPose, xyz: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    K, R, C = _pose_arrays(pose)
    xc = (np.asarray(xyz, dtype=np.float64).reshape(-1, 3) - C) @ R
    z = xc[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        h = xc @ K.T
        uv = h[:, :2] / h[:, 2:3]
    uv[z <= 1e-9] = np.nan
    return uv, z


def in_frame(pose: CameraPose, uv: np.ndarray, margin_px: float) -> np.ndarray:
    """Marker centre at least `margin_px` from the image border (pixel centres at integers);
    the one frame test of every marker stage."""
    u, v = uv[:, 0], uv[:, 1]
    with np.errstate(invalid="ignore"):
        return (
            np.isfinite(u) & np.isfinite(v)
            & (u >= margin_px - 0.5) & (u <= pose.width - 0.5 - margin_px)
            & (v >= margin_px - 0.5) & (v <= pose.height - 0.5 - margin_px)
        )


_DISC_DIRS = np.array([[np.cos(a), np.sin(a)] for a in np.arange(8) * np.pi / 4])


def disc_clear(raycaster: Raycaster, pose: CameraPose, uv: np.ndarray, allowed: np.ndarray,
               clear_px: float, centre_allowed: np.ndarray | None = None) -> np.ndarray:
    """True where the marker disc sees only allowed ids: the rays through the rounded pixel
    centre (what the id pass shows there) and 8 points at `clear_px` around uv all hit an id
    in that marker's allowed row. Keeps markers off occluding edges (a disc half on a crate
    would stand for two things). `allowed` is (N, k) ids per marker (pad with -1);
    `centre_allowed` (default `allowed`) restricts the centre pixel alone."""
    uv = np.asarray(uv, dtype=np.float64).reshape(-1, 2)
    if clear_px <= 0 or not len(uv):
        return np.ones(len(uv), dtype=bool)
    offs = np.vstack([np.zeros((1, 2)), clear_px * _DISC_DIRS])
    pts = (uv[:, None, :] + offs[None, :, :])
    pts[:, 0, :] = np.round(uv)
    pts[..., 0] = np.clip(pts[..., 0], -0.5, pose.width - 0.5)
    pts[..., 1] = np.clip(pts[..., 1], -0.5, pose.height - 0.5)
    _, oid, _, _ = cast_pixels(raycaster, pose, pts.reshape(-1, 2))
    oid = oid.reshape(len(uv), len(offs))
    allowed = np.asarray(allowed).reshape(len(uv), -1)
    hit_ok = (oid[:, :, None] == allowed[:, None, :]).any(axis=2)
    if centre_allowed is not None:
        centre = np.asarray(centre_allowed).reshape(len(uv), -1)
        hit_ok[:, 0] = (oid[:, 0, None] == centre).any(axis=1)
    return hit_ok.all(axis=1)


def _floor_rows(floor_ids: Sequence[int], n: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(list(floor_ids), dtype=np.int64)[None, :], (n, len(floor_ids)))


def floor_visibility(
    raycaster: Raycaster,
    pose: CameraPose,
    floor_ids: Iterable[int],
    xyz: np.ndarray,
    *,
    margin_px: float = 0.0,
    depth_tol_m: float = 0.01,
    clear_px: float = 0.0,
    disc_extra_ids: Sequence[int] = (),
) -> tuple[np.ndarray, np.ndarray]:
    """(visible mask, uv) for world points: in frame (with margin), the ray's first hit is a
    floor triangle at the point itself (|t_hit - distance| <= depth_tol_m), and (clear_px
    > 0) the marker disc sees only floor or `disc_extra_ids` (`disc_clear`; the rounded
    centre pixel still has to be floor)."""
    xyz = np.asarray(xyz, dtype=np.float64).reshape(-1, 3)
    uv, _ = _project(pose, xyz)
    ok = in_frame(pose, uv, margin_px)
    if not ok.any():
        return ok, uv
    _, _, C = _pose_arrays(pose)
    diff = xyz - C
    dist = np.linalg.norm(diff, axis=1)
    t, oid, _, _ = raycaster.cast(np.broadcast_to(C, diff.shape), diff)
    floor_ids = [int(i) for i in floor_ids]
    ok = ok & np.isin(oid, floor_ids) & (np.abs(t - dist) <= depth_tol_m)
    if clear_px > 0 and ok.any():
        idx = np.flatnonzero(ok)
        disc_ids = floor_ids + [int(i) for i in disc_extra_ids]
        ok[idx] = disc_clear(raycaster, pose, uv[idx], _floor_rows(disc_ids, len(idx)), clear_px,
                             centre_allowed=_floor_rows(floor_ids, len(idx)))
    return ok, uv


# ------------------------------------------------------------------ hit pools


def _stratified_pixels(rng: np.random.Generator, width: int, height: int, step_px: float,
                       margin_px: float) -> np.ndarray:
    """One jittered pixel per step x step cell inside the margin, row-major order."""
    lo_u, hi_u = margin_px - 0.5, width - 0.5 - margin_px
    lo_v, hi_v = margin_px - 0.5, height - 0.5 - margin_px
    if hi_u <= lo_u or hi_v <= lo_v:
        raise ValueError(f"margin {margin_px}px leaves no image area ({width}x{height})")
    us = np.arange(lo_u, hi_u, step_px)
    vs = np.arange(lo_v, hi_v, step_px)
    gu, gv = np.meshgrid(us, vs)
    base = np.column_stack([gu.ravel(), gv.ravel()])
    jit = rng.random(base.shape) * step_px
    uv = base + jit
    uv[:, 0] = np.minimum(uv[:, 0], hi_u)
    uv[:, 1] = np.minimum(uv[:, 1], hi_v)
    return uv


def default_step_px(min_spacing_px: float) -> float:
    """Pool pixel step: four samples per marker spacing, so spacing, not the grid, limits density."""
    return float(max(2.0, min_spacing_px / 4.0))


def visible_floor_pool(
    raycaster: Raycaster,
    pose: CameraPose,
    floor_ids: Iterable[int],
    rng: np.random.Generator,
    *,
    step_px: float = 8.0,
    max_distance_m: float = 8.0,
    margin_px: float = 16.0,
    clear_px: float = 3.0,
) -> HitPool:
    """Jittered-grid pixels whose first hit is floor within `max_distance_m` (floor-plane
    distance from the camera) and whose marker disc sees only floor. The hit point *is*
    the ray's first hit, so it is visible."""
    if step_px <= 0:
        raise ValueError("step_px must be positive")
    floor_ids = [int(i) for i in floor_ids]
    uv = _stratified_pixels(rng, pose.width, pose.height, float(step_px), float(margin_px))
    t, oid, xyz, _ = cast_pixels(raycaster, pose, uv)
    floor = np.isin(oid, floor_ids)
    _, _, C = _pose_arrays(pose)
    near = np.hypot(xyz[:, 0] - C[0], xyz[:, 1] - C[1]) <= max_distance_m
    keep = np.isfinite(t) & floor & near
    idx = np.flatnonzero(keep)
    keep[idx] = disc_clear(raycaster, pose, uv[idx], _floor_rows(floor_ids, len(idx)), clear_px)
    return HitPool(uv[keep], xyz[keep], oid[keep].astype(np.int64))


def visible_surface_pool(
    raycaster: Raycaster,
    pose: CameraPose,
    object_ids: Iterable[int],
    rng: np.random.Generator,
    *,
    step_px: float = 8.0,
    max_distance_m: float = 8.0,
    margin_px: float = 16.0,
    min_height_m: float = 0.10,
    clear_px: float = 3.0,
) -> HitPool:
    """Jittered-grid pixels whose first hit is one of `object_ids` at least `min_height_m`
    above the floor (clearly not walkable) and within `max_distance_m`."""
    if step_px <= 0:
        raise ValueError("step_px must be positive")
    uv = _stratified_pixels(rng, pose.width, pose.height, float(step_px), float(margin_px))
    t, oid, xyz, _ = cast_pixels(raycaster, pose, uv)
    ids = np.fromiter((int(i) for i in object_ids), dtype=np.int64)
    _, _, C = _pose_arrays(pose)
    near = np.hypot(xyz[:, 0] - C[0], xyz[:, 1] - C[1]) <= max_distance_m
    keep = np.isfinite(t) & np.isin(oid, ids) & near & (xyz[:, 2] >= min_height_m)
    idx = np.flatnonzero(keep)
    keep[idx] = disc_clear(raycaster, pose, uv[idx], oid[idx][:, None], clear_px)
    return HitPool(uv[keep], xyz[keep], oid[keep].astype(np.int64))


# ------------------------------------------------------------------ spacing


def _spaced(uv: np.ndarray, placed_uv: np.ndarray, min_spacing_px: float) -> bool:
    if len(placed_uv) == 0:
        return True
    d2 = np.sum((placed_uv - uv[None, :]) ** 2, axis=1)
    return bool(np.all(d2 >= min_spacing_px ** 2))


def _placed_uv(placed: Sequence[Marker]) -> np.ndarray:
    if not placed:
        return np.zeros((0, 2))
    return np.array([m.pixel for m in placed], dtype=np.float64)


def _marker(uv: np.ndarray, xyz: np.ndarray, oid: int, kind: str) -> Marker:
    return Marker(pixel=(float(uv[0]), float(uv[1])),
                  world=(float(xyz[0]), float(xyz[1]), float(xyz[2])),
                  object_id=int(oid), kind=kind)


def _greedy(pool: HitPool, order: np.ndarray, placed: Sequence[Marker], n_max: int,
            min_spacing_px: float, kind: str) -> list[Marker]:
    out: list[Marker] = []
    taken = _placed_uv(placed)
    for i in order:
        if len(out) >= n_max:
            break
        if _spaced(pool.uv[i], taken, min_spacing_px):
            out.append(_marker(pool.uv[i], pool.xyz[i], pool.object_id[i], kind))
            taken = np.vstack([taken, pool.uv[i][None, :]])
    return out


# ------------------------------------------------------------------ public samplers


def sample_ground_candidates(
    raycaster: Raycaster,
    pose: CameraPose,
    floor_ids: Iterable[int],
    rng: np.random.Generator,
    *,
    n_max: int,
    min_spacing_px: float = 40.0,
    max_distance_m: float = 8.0,
    margin_px: float = 16.0,
    placed: Sequence[Marker] = (),
    accept: XYPredicate | None = None,
    pool: HitPool | None = None,
    step_px: float | None = None,
    clear_px: float = 3.0,
) -> list[Marker]:
    """Visible floor markers, spaced >= min_spacing_px from each other and from `placed`.

    Candidates come from a jittered pixel grid (floor is only ever hit in the lower part of
    the image, so the draw is stratified over it); `accept` restricts them by world xy
    (e.g. to clearance-sensitive cells). Pass `pool` to reuse one cast across calls."""
    if n_max < 0:
        raise ValueError("n_max must be >= 0")
    floor_ids = list(floor_ids)
    if pool is None:
        pool = visible_floor_pool(raycaster, pose, floor_ids, rng,
                                  step_px=step_px or default_step_px(min_spacing_px),
                                  max_distance_m=max_distance_m, margin_px=margin_px,
                                  clear_px=clear_px)
    else:
        _, _, C = _pose_arrays(pose)
        keep = in_frame(pose, pool.uv, margin_px) & (
            np.hypot(pool.xyz[:, 0] - C[0], pool.xyz[:, 1] - C[1]) <= max_distance_m)
        pool = pool.subset(keep)
    if accept is not None and len(pool):
        pool = pool.subset(np.asarray(accept(pool.xyz[:, :2]), dtype=bool).reshape(-1))
    if n_max == 0 or len(pool) == 0:
        return []
    order = rng.permutation(len(pool))
    return _greedy(pool, order, placed, n_max, min_spacing_px, "ground")


def sample_surface_negatives(
    raycaster: Raycaster,
    pose: CameraPose,
    rng: np.random.Generator,
    *,
    obstacle_ids: Iterable[int],
    n: int,
    placed: Sequence[Marker] = (),
    min_spacing_px: float = 40.0,
    max_distance_m: float = 8.0,
    margin_px: float = 16.0,
    min_height_m: float = 0.10,
    pool: HitPool | None = None,
    step_px: float | None = None,
    clear_px: float = 3.0,
) -> list[Marker]:
    """Visible points on furniture/walls used as non-traversable negatives.

    Objects are visited round-robin in an rng-shuffled order so a large wall does not take
    every slot; each pick keeps the pixel spacing against `placed` and earlier picks."""
    if n < 0:
        raise ValueError("n must be >= 0")
    obstacle_ids = sorted({int(i) for i in obstacle_ids})
    if n == 0 or not obstacle_ids:
        return []
    if pool is None:
        pool = visible_surface_pool(raycaster, pose, obstacle_ids, rng,
                                    step_px=step_px or default_step_px(min_spacing_px),
                                    max_distance_m=max_distance_m, margin_px=margin_px,
                                    min_height_m=min_height_m, clear_px=clear_px)
    if len(pool) == 0:
        return []
    present = [i for i in obstacle_ids if np.any(pool.object_id == i)]
    obj_order = [present[k] for k in rng.permutation(len(present))]
    queues = {}
    for oid in obj_order:
        idx = np.flatnonzero(pool.object_id == oid)
        queues[oid] = list(idx[rng.permutation(len(idx))])
    out: list[Marker] = []
    taken = _placed_uv(placed)
    while len(out) < n and any(queues.values()):
        for oid in obj_order:
            q = queues[oid]
            while q:  # next spaced point of this object, if any
                i = q.pop(0)
                if _spaced(pool.uv[i], taken, min_spacing_px):
                    out.append(_marker(pool.uv[i], pool.xyz[i], pool.object_id[i], "surface"))
                    taken = np.vstack([taken, pool.uv[i][None, :]])
                    break
            if len(out) >= n:
                break
    return out


def start_candidate(
    raycaster: Raycaster,
    pose: CameraPose,
    floor_ids: Iterable[int],
    *,
    feasible: XYPredicate,
    margin_px: float = 16.0,
    max_distance_m: float = 8.0,
    step_px: float = 4.0,
    bottom_fraction: float = 0.5,
    clear_px: float = 3.0,
) -> Marker | None:
    """The route start (display id 1): the visible floor pixel nearest the bottom centre of
    the image whose point passes `feasible` (the embodied agent's predicate, so routes of
    both agents start there). Deterministic scan, no randomness; None if there is none."""
    if not 0 < bottom_fraction <= 1:
        raise ValueError("bottom_fraction must be in (0, 1]")
    W, H = pose.width, pose.height
    hi_u, hi_v = W - 0.5 - margin_px, H - 0.5 - margin_px
    lo_u, lo_v = margin_px - 0.5, max(margin_px - 0.5, H * (1.0 - bottom_fraction) - 0.5)
    if hi_u <= lo_u or hi_v <= lo_v:
        raise ValueError("margin leaves no image area")
    us = np.arange(lo_u, hi_u + 1e-9, step_px)
    vs = np.arange(hi_v, lo_v - 1e-9, -step_px)
    gu, gv = np.meshgrid(us, vs)
    uv = np.column_stack([gu.ravel(), gv.ravel()])
    anchor = np.array([(W - 1) / 2.0, hi_v])
    d = np.hypot(uv[:, 0] - anchor[0], uv[:, 1] - anchor[1])
    order = np.lexsort((uv[:, 0], -uv[:, 1], d))  # nearest first; ties: lower, then left
    uv = uv[order]
    floor_ids = [int(i) for i in floor_ids]
    t, oid, xyz, _ = cast_pixels(raycaster, pose, uv)
    floor = np.isin(oid, floor_ids)
    _, _, C = _pose_arrays(pose)
    near = np.hypot(xyz[:, 0] - C[0], xyz[:, 1] - C[1]) <= max_distance_m
    cand = np.flatnonzero(np.isfinite(t) & floor & near)
    if not len(cand):
        return None
    cand = cand[np.asarray(feasible(xyz[cand, :2]), dtype=bool).reshape(-1)]
    if not len(cand):
        return None
    cand = cand[disc_clear(raycaster, pose, uv[cand], _floor_rows(floor_ids, len(cand)), clear_px)]
    if not len(cand):
        return None
    i = cand[0]
    return _marker(uv[i], xyz[i], oid[i], "ground")


def _nudges(nudge_m: float) -> np.ndarray:
    """Fixed offsets tried after the exact point: the centre, then two rings of 8."""
    offs = [np.zeros(2)]
    for r in (0.5 * nudge_m, nudge_m):
        for k in range(8):
            a = k * np.pi / 4
            offs.append(r * np.array([np.cos(a), np.sin(a)]))
    return np.array(offs)


def insert_required(
    raycaster: Raycaster,
    pose: CameraPose,
    floor_ids: Iterable[int],
    xyz: Sequence[float],
    markers: list[Marker],
    *,
    snap_m: float = 0.25,
    min_spacing_px: float = 40.0,
    margin_px: float = 16.0,
    depth_tol_m: float = 0.01,
    accept: XYPredicate | None = None,
    nudge_m: float = 0.0,
    alternatives_xy: np.ndarray | None = None,
    fallback_snap_m: float = 0.0,
    clear_px: float = 3.0,
    disc_extra_ids: Sequence[int] = (),
) -> int | None:
    """Index in `markers` of the displayed ground marker standing for a route's sparse vertex.

    A ground marker within `snap_m` (floor plane) that passes `accept` is reused (nearest
    first). Otherwise the first of these that passes `accept`, is visible floor in frame
    (ray + depth check) and is spaced from every marker is inserted (appended to
    `markers`): the point itself, then (`nudge_m` > 0) two fixed rings of 8 offsets at
    nudge_m/2 and nudge_m, then `alternatives_xy` in the given order. Failing all of
    those, an accepted ground marker within `fallback_snap_m` is reused (nearest first).
    `disc_extra_ids` may share the marker disc with the floor (a goal marker against the
    target's base); the centre pixel must still be floor.
    None = the vertex cannot be displayed (the caller discards the route)."""
    p = np.asarray(xyz, dtype=np.float64).reshape(3)
    floor_ids = list(floor_ids)
    snapped = _snap(markers, p, snap_m, accept)
    if snapped is not None:
        return snapped
    cands = _nudges(nudge_m) if nudge_m > 0 else np.zeros((1, 2))
    xy = p[:2] + cands
    if alternatives_xy is not None and len(alternatives_xy):
        xy = np.vstack([xy, np.asarray(alternatives_xy, dtype=np.float64).reshape(-1, 2)])
    pts = np.column_stack([xy, np.full(len(xy), p[2])])
    if accept is not None:
        pts = pts[np.asarray(accept(pts[:, :2]), dtype=bool).reshape(-1)]
    if not len(pts):
        return None
    vis, uv = floor_visibility(raycaster, pose, floor_ids, pts, margin_px=margin_px,
                               depth_tol_m=depth_tol_m, clear_px=clear_px,
                               disc_extra_ids=disc_extra_ids)
    taken = _placed_uv(markers)
    for i in np.flatnonzero(vis):
        if _spaced(uv[i], taken, min_spacing_px):
            # The floor id is whatever the ray hit at that point.
            _, oid, _, _ = raycaster.cast(pose.center[None, :], (pts[i] - pose.center)[None, :])
            markers.append(_marker(uv[i], pts[i], int(oid[0]), "ground"))
            return len(markers) - 1
    return _snap(markers, p, fallback_snap_m, accept)


def _snap(markers: Sequence[Marker], p: np.ndarray, within_m: float, accept: XYPredicate | None) -> int | None:
    """Nearest ground marker within `within_m` (floor plane) passing `accept`; ties by index."""
    ground = [i for i, m in enumerate(markers) if m.kind == "ground"]
    if not ground or within_m <= 0:
        return None
    gxy = np.array([markers[i].world[:2] for i in ground])
    d = np.hypot(gxy[:, 0] - p[0], gxy[:, 1] - p[1])
    near = [int(k) for k in np.argsort(d, kind="stable") if d[k] <= within_m]
    if not near:
        return None
    ok = np.ones(len(near), bool) if accept is None else np.asarray(accept(gxy[near]), bool).reshape(-1)
    for k, good in zip(near, ok):
        if good:
            return ground[k]
    return None
