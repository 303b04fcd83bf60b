"""Floor-plane occupancy grids from the exported scene mesh (EgoPathBench App. A).

Every EgoPath label (which waypoint a point or a 0.6 m body can stand on, which
straight edge is legal, where the goal ring lies) is read off one 2D grid over the
floor plane. A cell is *free* when a floor triangle covers its centre and no
obstacle geometry enters its column between `obstacle_min_z` and `obstacle_max_z`
above the floor (floors of indoor scenes are at z = 0, z up).

Obstacle rasterisation is exact and conservative: a non-floor triangle marks every
cell whose box `[cell square] x [min_z, max_z]` it touches, by the separating-axis
test of Akenine-Moeller (13 axes), vectorised over (triangle, candidate cell) pairs.
So a 1.5 cm table leg or a zero-thickness wall plane is never missed, whatever
their position against the grid. "Touching" includes contact within 1e-6 m, so a
face lying exactly on a cell boundary marks both neighbouring cells (the grid
errs towards occupied, never towards free).

Conventions: arrays are indexed `[iy, ix]`; cell `[iy, ix]` has its centre at
`origin_xy + cell_m * (ix, iy)` and covers +-cell_m/2 around it. Cells outside the
grid are treated as non-free.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import ndimage

from geometry.egopath_schema import GeometryParams
from geometry.raycast import SceneMesh

__all__ = ["OccupancyGrid", "occupancy_from_mesh", "footprint_mask", "grid_spec_for_bounds"]

_TOUCH_EPS = 1e-6  # metres: contact within this counts as touching (conservative)
_MAX_PAIRS = 2_000_000  # (triangle, cell) candidate pairs tested per chunk (memory bound)


@dataclass(eq=False)  # arrays: compare fields explicitly, not with ==
class OccupancyGrid:
    """A floor-plane grid: which cells have floor, which hold obstacles, and whose."""

    origin_xy: np.ndarray  # (2,) world xy of cell [0, 0]'s centre
    cell_m: float
    floor: np.ndarray  # bool[H, W]: a floor triangle covers the cell centre
    occupied: np.ndarray  # bool[H, W]: obstacle geometry in the column within the z slab
    object_cells: np.ndarray  # int32[H, W]: id of an obstacle in the cell (largest id), 0 = none
    # Per-object floor-plane footprints (flat cell indices of the xy projection of all its
    # triangles, any height): exact even where several objects share a cell.
    footprints: dict[int, np.ndarray] = field(default_factory=dict)
    _clearance: np.ndarray | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.origin_xy = np.asarray(self.origin_xy, dtype=np.float64).reshape(2)
        self.cell_m = float(self.cell_m)
        if not self.cell_m > 0:
            raise ValueError(f"cell_m must be positive, got {self.cell_m}")
        self.floor = np.asarray(self.floor, dtype=bool)
        self.occupied = np.asarray(self.occupied, dtype=bool)
        if self.floor.ndim != 2 or self.floor.shape != self.occupied.shape:
            raise ValueError("floor and occupied must be 2D arrays of equal shape")
        if self.object_cells is None:
            self.object_cells = np.zeros(self.floor.shape, dtype=np.int32)
        self.object_cells = np.asarray(self.object_cells, dtype=np.int32)
        if self.object_cells.shape != self.floor.shape:
            raise ValueError("object_cells must have the grid's shape")

    @property
    def shape(self) -> tuple[int, int]:
        return self.floor.shape

    @property
    def free(self) -> np.ndarray:
        """bool[H, W]: floor and no obstacle (where a point agent may stand)."""
        return self.floor & ~self.occupied

    @property
    def clearance_m(self) -> np.ndarray:
        """float[H, W]: centre-to-centre distance to the nearest non-free cell (0 on non-free).

        The grid is padded by one non-free cell so the world beyond the grid counts as an
        obstacle. Cached: the grid's arrays are not meant to change after construction.
        """
        if self._clearance is None:
            padded = np.pad(self.free, 1, constant_values=False)
            d = ndimage.distance_transform_edt(padded)[1:-1, 1:-1] * self.cell_m
            self._clearance = d.astype(np.float64)
        return self._clearance

    def world_to_cell(self, xy) -> tuple[np.ndarray, np.ndarray] | tuple[int, int]:
        """(ix, iy) of the cell containing xy (scalars for one point, arrays for (N,2)).

        Indices may fall outside the grid; use `in_grid` to check.
        """
        a = np.asarray(xy, dtype=np.float64)
        single = a.ndim == 1
        a = a.reshape(-1, a.shape[-1])[:, :2]
        idx = np.floor((a - self.origin_xy) / self.cell_m + 0.5).astype(np.int64)
        if single:
            return int(idx[0, 0]), int(idx[0, 1])
        return idx[:, 0], idx[:, 1]

    def cell_to_world(self, ix, iy) -> np.ndarray:
        """World xy of cell centres: (2,) for scalars, (N,2) for arrays."""
        ix_a, iy_a = np.broadcast_arrays(np.asarray(ix, dtype=np.float64), np.asarray(iy, dtype=np.float64))
        out = np.stack([self.origin_xy[0] + self.cell_m * ix_a, self.origin_xy[1] + self.cell_m * iy_a], axis=-1)
        return out

    def in_grid(self, ix, iy) -> np.ndarray:
        H, W = self.shape
        ix = np.asarray(ix)
        iy = np.asarray(iy)
        return (ix >= 0) & (ix < W) & (iy >= 0) & (iy < H)

    def lookup(self, arr: np.ndarray, xy, outside=False) -> np.ndarray:
        """Values of a [H, W] array at the cells containing points xy (N,2+); `outside` beyond the grid."""
        ix, iy = self.world_to_cell(np.atleast_2d(np.asarray(xy, dtype=np.float64)))
        ok = self.in_grid(ix, iy)
        out = np.full(len(ix), outside, dtype=arr.dtype)
        out[ok] = arr[iy[ok], ix[ok]]
        return out


# ------------------------------------------------------------------ construction


def _clamped_counts(i0: np.ndarray, i1: np.ndarray, W: int, H: int) -> tuple[np.ndarray, np.ndarray]:
    """Clip per-item [i0, i1] cell ranges (in place) to the grid; cell counts per axis (>= 0)."""
    i0[:, 0] = np.clip(i0[:, 0], 0, W)
    i1[:, 0] = np.clip(i1[:, 0], -1, W - 1)
    i0[:, 1] = np.clip(i0[:, 1], 0, H)
    i1[:, 1] = np.clip(i1[:, 1], -1, H - 1)
    return np.maximum(i1[:, 0] - i0[:, 0] + 1, 0), np.maximum(i1[:, 1] - i0[:, 1] + 1, 0)

def grid_spec_for_bounds(bounds, cell_m: float) -> tuple[np.ndarray, int, int]:
    """(origin_xy, W, H) of a grid aligned to the global lattice (centres at (k + 1/2) cell).

    Aligning every grid to the same lattice makes grids of one scene built with different
    bounds agree cell for cell.
    """
    xmin, ymin, xmax, ymax = (float(b) for b in bounds)
    if not (xmax > xmin and ymax > ymin):
        raise ValueError(f"empty bounds {bounds}")
    ix0 = math.floor(xmin / cell_m + 1e-9)
    iy0 = math.floor(ymin / cell_m + 1e-9)
    ix1 = math.ceil(xmax / cell_m - 1e-9)
    iy1 = math.ceil(ymax / cell_m - 1e-9)
    origin = np.array([(ix0 + 0.5) * cell_m, (iy0 + 0.5) * cell_m])
    return origin, max(ix1 - ix0, 1), max(iy1 - iy0, 1)


def _candidate_pairs(lo_xy: np.ndarray, hi_xy: np.ndarray, origin, cell_m, W, H, eps):
    """Per triangle the index ranges of cells its xy bbox touches (clipped to the grid)."""
    f_lo = (lo_xy - origin) / cell_m + 0.5
    f_hi = (hi_xy - origin) / cell_m + 0.5
    i0 = np.floor(f_lo - eps / cell_m).astype(np.int64)
    i1 = np.floor(f_hi + eps / cell_m).astype(np.int64)
    nx, ny = _clamped_counts(i0, i1, W, H)
    return i0, nx, ny


def _expand(tri_idx: np.ndarray, i0: np.ndarray, nx: np.ndarray, ny: np.ndarray):
    """Enumerate (triangle, ix, iy) for every cell in each triangle's index box, in chunks."""
    counts = nx * ny
    keep = counts > 0
    tri_idx, i0, nx, counts = tri_idx[keep], i0[keep], nx[keep], counts[keep]
    if not len(tri_idx):
        return
    csum = np.cumsum(counts)
    start = 0
    while start < len(tri_idx):
        base = csum[start - 1] if start else 0
        stop = int(np.searchsorted(csum, base + _MAX_PAIRS, side="right"))
        stop = max(stop, start + 1)
        c = counts[start:stop]
        rep = np.repeat(np.arange(start, stop), c)
        first = np.repeat(np.cumsum(c) - c, c)
        off = np.arange(int(c.sum())) - first
        ix = i0[rep, 0] + off % nx[rep]
        iy = i0[rep, 1] + off // nx[rep]
        yield tri_idx[rep], ix, iy
        start = stop


def _tri_box_overlap(v0, v1, v2, centre, half, eps) -> np.ndarray:
    """Vectorised triangle/axis-aligned-box overlap (SAT, 13 axes); touching within eps counts."""
    a = v0 - centre
    b = v1 - centre
    c = v2 - centre
    ok = np.ones(len(a), dtype=bool)
    # Box face normals: bbox overlap per axis.
    for k in range(3):
        lo = np.minimum(np.minimum(a[:, k], b[:, k]), c[:, k])
        hi = np.maximum(np.maximum(a[:, k], b[:, k]), c[:, k])
        ok &= (lo <= half[:, k] + eps) & (hi >= -half[:, k] - eps)
    # Triangle normal.
    e0, e1, e2 = b - a, c - b, a - c
    n = np.cross(e0, e1)
    r = (np.abs(n) * half).sum(axis=1)
    s = (n * a).sum(axis=1)
    nlen = np.linalg.norm(n, axis=1)
    ok &= np.abs(s) <= r + eps * nlen
    # Edge x box-axis cross products.
    for e in (e0, e1, e2):
        elen = np.linalg.norm(e, axis=1)
        for k in range(3):
            axis = np.zeros_like(e)
            # axis = unit_k x e
            if k == 0:
                axis[:, 1], axis[:, 2] = -e[:, 2], e[:, 1]
            elif k == 1:
                axis[:, 0], axis[:, 2] = e[:, 2], -e[:, 0]
            else:
                axis[:, 0], axis[:, 1] = -e[:, 1], e[:, 0]
            pa = (axis * a).sum(axis=1)
            pb = (axis * b).sum(axis=1)
            pc = (axis * c).sum(axis=1)
            lo = np.minimum(np.minimum(pa, pb), pc)
            hi = np.maximum(np.maximum(pa, pb), pc)
            rr = (np.abs(axis) * half).sum(axis=1)
            tol = eps * elen
            ok &= (lo <= rr + tol) & (hi >= -rr - tol)
    return ok


def _tri_square_overlap_2d(p0, p1, p2, centre, h, eps) -> np.ndarray:
    """Vectorised 2D triangle/square overlap (SAT: 2 square axes + 3 edge normals)."""
    a, b, c = p0 - centre, p1 - centre, p2 - centre
    ok = np.ones(len(a), dtype=bool)
    for k in range(2):
        lo = np.minimum(np.minimum(a[:, k], b[:, k]), c[:, k])
        hi = np.maximum(np.maximum(a[:, k], b[:, k]), c[:, k])
        ok &= (lo <= h + eps) & (hi >= -h - eps)
    for e in (b - a, c - b, a - c):
        nrm = np.stack([-e[:, 1], e[:, 0]], axis=1)
        pa = (nrm * a).sum(axis=1)
        pb = (nrm * b).sum(axis=1)
        pc = (nrm * c).sum(axis=1)
        lo = np.minimum(np.minimum(pa, pb), pc)
        hi = np.maximum(np.maximum(pa, pb), pc)
        rr = h * np.abs(nrm).sum(axis=1)
        tol = eps * np.linalg.norm(e, axis=1)
        ok &= (lo <= rr + tol) & (hi >= -rr - tol)
    return ok


def _rasterise_floor(tris: np.ndarray, origin, cell_m, W, H) -> np.ndarray:
    """bool[H, W]: cell centres inside (or on the edge of) any triangle's xy projection."""
    floor = np.zeros((H, W), dtype=bool)
    if not len(tris):
        return floor
    p = tris[:, :, :2]
    area2 = (p[:, 1, 0] - p[:, 0, 0]) * (p[:, 2, 1] - p[:, 0, 1]) - (p[:, 1, 1] - p[:, 0, 1]) * (p[:, 2, 0] - p[:, 0, 0])
    keep = np.abs(area2) > 1e-12
    p, area2 = p[keep], area2[keep]
    sign = np.sign(area2)
    lo, hi = p.min(axis=1), p.max(axis=1)
    # Cells whose centre can lie in the bbox.
    f_lo = (lo - origin) / cell_m
    f_hi = (hi - origin) / cell_m
    i0 = np.ceil(f_lo - 1e-9).astype(np.int64)
    i1 = np.floor(f_hi + 1e-9).astype(np.int64)
    nx, ny = _clamped_counts(i0, i1, W, H)
    for t, ix, iy in _expand(np.arange(len(p)), i0, nx, ny):
        q = np.stack([origin[0] + cell_m * ix, origin[1] + cell_m * iy], axis=1)
        inside = np.ones(len(t), dtype=bool)
        for j in range(3):
            A = p[t, j]
            B = p[t, (j + 1) % 3]
            cross = (B[:, 0] - A[:, 0]) * (q[:, 1] - A[:, 1]) - (B[:, 1] - A[:, 1]) * (q[:, 0] - A[:, 0])
            elen = np.hypot(B[:, 0] - A[:, 0], B[:, 1] - A[:, 1])
            inside &= cross * sign[t] >= -1e-9 * elen
        floor[iy[inside], ix[inside]] = True
    return floor


def occupancy_from_mesh(
    mesh: SceneMesh,
    floor_ids: set[int],
    params: GeometryParams = GeometryParams(),
    bounds=None,
    floor_z: float = 0.0,
    footprints=True,
) -> OccupancyGrid:
    """Rasterise a scene mesh into an `OccupancyGrid` with cells of `params.grid_m`.

    floor_ids: object ids whose triangles are walkable floor (never obstacles).
    bounds: (xmin, ymin, xmax, ymax) in world metres; default the floor triangles' xy bbox.
    floor_z: height of the floor; the obstacle slab is floor_z + [obstacle_min_z, obstacle_max_z].
    footprints: record non-floor objects' floor-plane projections (for goal rings): True for
        all, False for none, or an iterable of object ids (e.g. the view's targets; cheaper).
    """
    floor_ids = {int(i) for i in floor_ids}
    if not floor_ids:
        raise ValueError("floor_ids is empty: no cell could ever be free")
    cell = float(params.grid_m)
    V = mesh.vertices.astype(np.float64)
    T = V[mesh.triangles]  # (F, 3, 3)
    is_floor = np.isin(mesh.tri_object_id, np.fromiter(floor_ids, dtype=np.int64))
    if bounds is None:
        if not is_floor.any():
            raise ValueError(f"no triangles with floor ids {sorted(floor_ids)} and no bounds given")
        fv = T[is_floor].reshape(-1, 3)
        bounds = (fv[:, 0].min(), fv[:, 1].min(), fv[:, 0].max(), fv[:, 1].max())
    origin, W, H = grid_spec_for_bounds(bounds, cell)

    floor = _rasterise_floor(T[is_floor], origin, cell, W, H)

    occupied = np.zeros((H, W), dtype=bool)
    object_cells = np.zeros(H * W, dtype=np.int32)
    z0 = floor_z + float(params.obstacle_min_z)
    z1 = floor_z + float(params.obstacle_max_z)
    if z1 <= z0:
        raise ValueError("obstacle_max_z must exceed obstacle_min_z")
    obst = np.flatnonzero(~is_floor)
    zmin = T[obst, :, 2].min(axis=1)
    zmax = T[obst, :, 2].max(axis=1)
    in_slab = obst[(zmax >= z0 - _TOUCH_EPS) & (zmin <= z1 + _TOUCH_EPS)]
    half_z = 0.5 * (z1 - z0)
    zc = 0.5 * (z0 + z1)
    if len(in_slab):
        Ts = T[in_slab]
        i0, nx, ny = _candidate_pairs(Ts[:, :, :2].min(axis=1), Ts[:, :, :2].max(axis=1), origin, cell, W, H, _TOUCH_EPS)
        for t, ix, iy in _expand(np.arange(len(in_slab)), i0, nx, ny):
            centre = np.stack([origin[0] + cell * ix, origin[1] + cell * iy, np.full(len(ix), zc)], axis=1)
            half = np.broadcast_to(np.array([cell / 2, cell / 2, half_z]), centre.shape)
            hit = _tri_box_overlap(Ts[t, 0], Ts[t, 1], Ts[t, 2], centre, half, _TOUCH_EPS)
            flat = iy[hit] * W + ix[hit]
            occupied.reshape(-1)[flat] = True
            np.maximum.at(object_cells, flat, mesh.tri_object_id[in_slab[t[hit]]])

    fps: dict[int, np.ndarray] = {}
    if footprints is not True and footprints is not False:
        wanted = np.asarray(sorted(int(i) for i in footprints), dtype=np.int64)
        obst = obst[np.isin(mesh.tri_object_id[obst], wanted)]
    if footprints is not False and len(obst):
        P = T[obst][:, :, :2]
        i0, nx, ny = _candidate_pairs(P.min(axis=1), P.max(axis=1), origin, cell, W, H, _TOUCH_EPS)
        parts_flat, parts_id = [], []
        for t, ix, iy in _expand(np.arange(len(obst)), i0, nx, ny):
            centre = np.stack([origin[0] + cell * ix, origin[1] + cell * iy], axis=1)
            hit = _tri_square_overlap_2d(P[t, 0], P[t, 1], P[t, 2], centre, cell / 2, _TOUCH_EPS)
            parts_flat.append(iy[hit] * W + ix[hit])
            parts_id.append(mesh.tri_object_id[obst[t[hit]]])
        if parts_flat:
            flat = np.concatenate(parts_flat)
            ids = np.concatenate(parts_id)
            order = np.lexsort((flat, ids))
            flat, ids = flat[order], ids[order]
            uniq_ids, starts = np.unique(ids, return_index=True)
            for k, oid in enumerate(uniq_ids):
                stop = starts[k + 1] if k + 1 < len(starts) else len(ids)
                fps[int(oid)] = np.unique(flat[starts[k]:stop])
    return OccupancyGrid(origin, cell, floor, occupied, object_cells.reshape(H, W), footprints=fps)


def footprint_mask(grid: OccupancyGrid, object_id: int) -> np.ndarray:
    """bool[H, W]: cells covered by the object's floor-plane footprint.

    Uses the recorded xy projection when the grid has one (any height, exact where
    objects share cells), else the cells where the object is the recorded obstacle.
    """
    oid = int(object_id)
    mask = np.zeros(grid.shape, dtype=bool)
    if oid in grid.footprints:
        mask.reshape(-1)[grid.footprints[oid]] = True
    else:
        mask = grid.object_cells == oid
    return mask
