"""Point and embodied feasibility on an occupancy grid: waypoints, edges, goals, routes.

EgoPathBench (§3, App. A) labels every displayed waypoint and every direct edge under
two agent models that share one grid:

* point agent (radius 0): a location is feasible when its cell is free; an edge is
  legal when every sample along the straight segment lies in a free cell;
* embodied agent (radius r = 0.30 m): a location is feasible when the cell's
  clearance (centre-to-centre distance to the nearest non-free cell) is >= r, i.e. the
  disk of radius r around the cell centre holds no non-free cell centre; an edge is
  legal when this holds at every sample of the segment (the swept disk).

Discretisation (documented because Table S8 varies it): a segment is sampled at both
ends and every `step_m` between them; each sample is judged by the cell containing it.
Both tests are therefore exact on the grid only up to `step_m`; with the nominal
0.05 m grid and 0.05 m step a sample falls in every cell a segment crosses except where
it clips a cell corner by less than `step_m / 2`.
"""
from __future__ import annotations

import math

import networkx as nx
import numpy as np
from scipy import ndimage
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from geometry.egopath_schema import GeometryParams
from geometry.occupancy import OccupancyGrid, footprint_mask

__all__ = [
    "agent_radius",
    "feasible_mask",
    "feasible_at",
    "segment_legal",
    "segments_legal",
    "feasibility_graph",
    "goal_mask",
    "grid_path",
    "sparsify",
    "shortest_route",
    "route_length",
    "narrow_fraction",
    "sheet_edges",
    "waypoint_labels",
    "CLEARANCE_CAP_M",
]

CLEARANCE_CAP_M = 5.0  # Waypoint.clearance_m is capped here (schema)

_TOL = 1e-9  # metres: clearance comparisons forgive float noise (0.3 vs 6 * 0.05)


def agent_radius(agent: str, params: GeometryParams = GeometryParams()) -> float:
    """Body radius of an agent model: "point" -> 0, "embodied" -> params.body_radius_m."""
    if agent == "point":
        return 0.0
    if agent == "embodied":
        return float(params.body_radius_m)
    raise ValueError(f"unknown agent {agent!r} (expected 'point' or 'embodied')")


def feasible_mask(grid: OccupancyGrid, radius: float) -> np.ndarray:
    """bool[H, W]: cells where an agent of `radius` may stand (free, and clearance >= radius)."""
    if radius < 0:
        raise ValueError(f"radius must be >= 0, got {radius}")
    if radius == 0:
        return grid.free
    return grid.free & (grid.clearance_m >= radius - _TOL)


def _xy(points) -> np.ndarray:
    a = np.asarray(points, dtype=np.float64)
    if a.ndim == 1:
        a = a[None, :]
    if a.shape[-1] < 2:
        raise ValueError("points need at least x and y")
    return a[:, :2]


def feasible_at(grid: OccupancyGrid, xy, radius: float) -> bool:
    """Can an agent of `radius` stand at xy? Outside the grid -> False."""
    return bool(grid.lookup(feasible_mask(grid, radius), _xy(xy), outside=False)[0])


def _segment_samples(a: np.ndarray, b: np.ndarray, step_m: float) -> tuple[np.ndarray, np.ndarray]:
    """Samples of many segments: (points (S,2), owner segment index (S,)); ends included."""
    if not step_m > 0:
        raise ValueError(f"step_m must be positive, got {step_m}")
    d = b - a
    length = np.hypot(d[:, 0], d[:, 1])
    n = np.ceil(length / step_m - 1e-9).astype(np.int64) + 1  # intervals + 1 samples
    n = np.maximum(n, 1)
    owner = np.repeat(np.arange(len(a)), n)
    first = np.repeat(np.cumsum(n) - n, n)
    k = np.arange(int(n.sum())) - first
    t = np.minimum(k * step_m / np.where(length > 0, length, 1.0)[owner], 1.0)
    t[k == n[owner] - 1] = 1.0  # exact far end
    pts = a[owner] + t[:, None] * d[owner]
    return pts, owner


def segments_legal(grid: OccupancyGrid, a_xy, b_xy, radius: float, step_m: float) -> np.ndarray:
    """Vectorised `segment_legal` for (N,2) segment ends -> bool[N]."""
    a = _xy(a_xy)
    b = _xy(b_xy)
    if a.shape != b.shape:
        raise ValueError("a_xy and b_xy must have the same shape")
    if not len(a):
        return np.zeros(0, dtype=bool)
    pts, owner = _segment_samples(a, b, step_m)
    ok = grid.lookup(feasible_mask(grid, radius), pts, outside=False)
    bad = np.zeros(len(a), dtype=bool)
    np.logical_or.at(bad, owner, ~ok)
    return ~bad


def segment_legal(grid: OccupancyGrid, a_xy, b_xy, radius: float, step_m: float) -> bool:
    """Is the straight move a -> b legal? Samples every `step_m` plus both ends; each sample's
    cell must be free (point) or have clearance >= radius (embodied: the swept disk is free)."""
    return bool(segments_legal(grid, _xy(a_xy), _xy(b_xy), radius, step_m)[0])


def feasibility_graph(grid: OccupancyGrid, points: dict[int, object], radius: float, step_m: float) -> nx.Graph:
    """Graph over waypoint ids: node attr `feasible`, `xy`; edges = legal direct moves, `weight` in metres."""
    G = nx.Graph()
    ids = sorted(int(i) for i in points)
    if not ids:
        return G
    xy = np.stack([_xy(points[i])[0] for i in ids])
    feas = grid.lookup(feasible_mask(grid, radius), xy, outside=False)
    for i, p, f in zip(ids, xy, feas):
        G.add_node(i, feasible=bool(f), xy=(float(p[0]), float(p[1])))
    fid = np.flatnonzero(feas)
    if len(fid) < 2:
        return G
    ii, jj = np.triu_indices(len(fid), k=1)
    a, b = xy[fid[ii]], xy[fid[jj]]
    legal = segments_legal(grid, a, b, radius, step_m)
    lengths = np.hypot(*(b - a).T)
    for k in np.flatnonzero(legal):
        G.add_edge(ids[fid[ii[k]]], ids[fid[jj[k]]], weight=float(lengths[k]))
    return G


def goal_mask(grid: OccupancyGrid, target_object_id: int, radius: float, ring_m: float) -> np.ndarray:
    """bool[H, W]: feasible cells whose centre lies within radius + ring_m of the target footprint.

    Point agent: within ring_m of the footprint; embodied: the body edge within ring_m.
    Distances are cell-centre to footprint-cell-centre (Euclidean distance transform).
    """
    if ring_m < 0:
        raise ValueError("ring_m must be >= 0")
    fp = footprint_mask(grid, target_object_id)
    if not fp.any():
        raise ValueError(f"object {target_object_id} has no footprint on this grid")
    dist = ndimage.distance_transform_edt(~fp) * grid.cell_m
    return feasible_mask(grid, radius) & (dist <= radius + ring_m + _TOL)


_NEIGHBOURS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def _cell_graph(feas: np.ndarray) -> csr_matrix:
    """Sparse 8-connected graph over all cells (edges only between feasible cells).

    A diagonal move is allowed only when both orthogonal cells it passes are feasible,
    so a path never cuts the corner of an infeasible cell. Costs in cells (1 or sqrt 2).
    """
    H, W = feas.shape
    idx = np.arange(H * W).reshape(H, W)
    rows, cols, wts = [], [], []
    for dy, dx in _NEIGHBOURS:
        ys0, ys1 = max(0, -dy), H - max(0, dy)
        xs0, xs1 = max(0, -dx), W - max(0, dx)
        src = feas[ys0:ys1, xs0:xs1]
        dst = feas[ys0 + dy:ys1 + dy, xs0 + dx:xs1 + dx]
        ok = src & dst
        if dx and dy:
            ok &= feas[ys0 + dy:ys1 + dy, xs0:xs1] & feas[ys0:ys1, xs0 + dx:xs1 + dx]
        rows.append(idx[ys0:ys1, xs0:xs1][ok])
        cols.append(idx[ys0 + dy:ys1 + dy, xs0 + dx:xs1 + dx][ok])
        wts.append(np.full(int(ok.sum()), math.sqrt(2.0) if (dx and dy) else 1.0))
    r, c, w = np.concatenate(rows), np.concatenate(cols), np.concatenate(wts)
    return csr_matrix((w, (r, c)), shape=(H * W, H * W))


def grid_path(grid: OccupancyGrid, start_xy, goal: np.ndarray, radius: float) -> list[np.ndarray] | None:
    """Shortest 8-connected path over feasible cells from start_xy to any goal cell.

    Diagonal steps cost sqrt 2 cells and may not cut the corner of an infeasible cell.
    Returns xy points: start_xy itself, then the centres of the following cells (the
    last lies in the goal); None when the start is infeasible or no goal is reachable.
    """
    goal = np.asarray(goal, dtype=bool)
    if goal.shape != grid.shape:
        raise ValueError(f"goal mask shape {goal.shape} != grid shape {grid.shape}")
    feas = feasible_mask(grid, radius)
    start = _xy(start_xy)[0]
    ix, iy = grid.world_to_cell(start)
    H, W = grid.shape
    if not (0 <= ix < W and 0 <= iy < H) or not feas[iy, ix]:
        return None
    goal = goal & feas
    if not goal.any():
        return None
    s = iy * W + ix
    if goal[iy, ix]:
        return [start.copy()]
    G = _cell_graph(feas)
    dist, pred = dijkstra(G, directed=True, indices=s, return_predecessors=True)
    gflat = np.flatnonzero(goal)  # flat (row-major) cell indices
    gd = dist[gflat]
    if not np.isfinite(gd).any():
        return None
    best = int(gflat[np.argmin(gd)])  # first minimum in flat order: deterministic tie-break
    chain = [best]
    while chain[-1] != s:
        chain.append(int(pred[chain[-1]]))
    chain.reverse()
    cells = np.array(chain)
    pts = grid.cell_to_world(cells % W, cells // W)
    out = [start.copy()] + [p for p in pts[1:]]
    return out


def sparsify(grid: OccupancyGrid, path_xy, radius: float, step_m: float) -> list[np.ndarray]:
    """Greedy string pulling: from each kept point jump to the farthest later point whose
    straight segment is legal. First and last points are kept; every kept segment is legal
    (a consecutive pair that is itself illegal is kept as is, so the input is never made worse)."""
    P = _xy(path_xy) if len(path_xy) else np.zeros((0, 2))
    if len(P) <= 2:
        return [p.copy() for p in P]
    out = [0]
    i = 0
    n = len(P)
    while i < n - 1:
        js = np.arange(i + 1, n)
        legal = segments_legal(grid, np.repeat(P[i:i + 1], len(js), axis=0), P[js], radius, step_m)
        ok = np.flatnonzero(legal)
        j = int(js[ok[-1]]) if len(ok) else i + 1
        out.append(j)
        i = j
    return [P[k].copy() for k in out]


def shortest_route(graph: nx.Graph, start_id: int, goal_ids) -> tuple[float, list[int]] | None:
    """Shortest legal route (Dijkstra on `weight`) from start to the nearest goal id.

    (0.0, [start]) when the start is itself a goal; None when no goal is reachable or the
    start is not in the graph. Ties go to the smaller goal id.
    """
    goals = {int(g) for g in goal_ids}
    if start_id in goals:
        return 0.0, [int(start_id)]
    if start_id not in graph or not goals:
        return None
    dist, paths = nx.single_source_dijkstra(graph, start_id, weight="weight")
    reach = [(dist[g], g) for g in sorted(goals) if g in dist]
    if not reach:
        return None
    d, g = min(reach)
    return float(d), [int(i) for i in paths[g]]


def route_length(points: dict[int, object], route) -> float:
    """Sum of floor-plane (xy) segment lengths along a route of ids."""
    route = [int(r) for r in route]
    missing = [r for r in route if r not in points and str(r) not in points]
    if missing:
        raise KeyError(f"route ids without coordinates: {missing}")
    if len(route) < 2:
        return 0.0
    xy = np.stack([_xy(points[r] if r in points else points[str(r)])[0] for r in route])
    return float(np.hypot(*np.diff(xy, axis=0).T).sum())


def narrow_fraction(grid: OccupancyGrid, path_xy, radius: float, margin_m: float = 0.15) -> float:
    """Share of a polyline's length in clearance-sensitive cells (clearance < radius + margin).

    Table S10's "embodied narrow-passage fraction". The polyline is cut into pieces of at
    most a quarter cell; each piece counts for the cell holding its midpoint. A
    zero-length path has fraction 0.
    """
    P = _xy(path_xy) if len(path_xy) else np.zeros((0, 2))
    if len(P) < 2:
        return 0.0
    step = grid.cell_m / 4
    a, b = P[:-1], P[1:]
    seg_len = np.hypot(*(b - a).T)
    total = float(seg_len.sum())
    if total <= 0:
        return 0.0
    n = np.maximum(np.ceil(seg_len / step).astype(np.int64), 1)
    owner = np.repeat(np.arange(len(a)), n)
    k = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
    t = (k + 0.5) / n[owner]
    mids = a[owner] + t[:, None] * (b - a)[owner]
    piece = seg_len[owner] / n[owner]
    clear = grid.lookup(grid.clearance_m, mids, outside=0.0)
    narrow = clear < radius + margin_m - _TOL
    return float(piece[narrow].sum() / total)


def sheet_edges(graph: nx.Graph) -> list[list[int]]:
    """Legal edges in the Sheet / Question format: sorted undirected pairs [a, b] with a < b."""
    return sorted([min(int(a), int(b)), max(int(a), int(b))] for a, b in graph.edges())


def waypoint_labels(grid: OccupancyGrid, points_xy, params: GeometryParams = GeometryParams()):
    """Per point (point_feasible, embodied_feasible, clearance_m capped at 5 m), as `Waypoint` stores them.

    Points outside the grid are infeasible with clearance 0.
    """
    xy = _xy(points_xy)
    pf = grid.lookup(feasible_mask(grid, 0.0), xy, outside=False)
    ef = grid.lookup(feasible_mask(grid, agent_radius("embodied", params)), xy, outside=False)
    cl = np.minimum(grid.lookup(grid.clearance_m, xy, outside=0.0), CLEARANCE_CAP_M)
    return pf, ef, cl
