"""The EgoPathBench per-view annotation (egopathbench.txt §3.3, App. A): both numbered
sheets of one rendered view and every route unit, fixed by geometry before language.

Order of construction (each step only reads what the previous ones fixed):

1. start (display id 1): visible floor near the bottom centre, embodied-feasible;
2. ground candidates from visible floor, a share of them drawn from clearance-sensitive
   cells (point-feasible, not embodied-feasible) so the traversability labels differ
   between the agents, then visible surface negatives on furniture and walls;
3. per target and agent: grid search to the goal ring, string-pulled to sparse
   vertices, each vertex snapped to or inserted as a displayed route waypoint (all or
   nothing per route);
4. only after every insertion: route-sheet numbering, the two feasibility graphs, goal
   ids, and verification of each planned route on its graph (fallback: the graph's
   shortest legal route); units with no verified route for either agent are dropped.

Route-sheet ids after 1 are shuffled over the ground and inserted waypoints together,
so the inserted (route-required) waypoints carry no id pattern a model could exploit.
"""
from __future__ import annotations

from typing import Iterable, Sequence

import networkx as nx
import numpy as np

from geometry.camera import CameraPose
from geometry.egopath_schema import (
    GeometryParams,
    RouteUnit,
    Sheet,
    TargetInfo,
    ViewAnnotation,
    Waypoint,
)
from geometry.feasibility import (
    CLEARANCE_CAP_M,
    agent_radius,
    feasibility_graph,
    feasible_mask,
    goal_mask,
    grid_path,
    narrow_fraction,
    segments_legal,
    shortest_route,
    sparsify,
)
from geometry.occupancy import OccupancyGrid
from geometry.raycast import Raycaster, SceneMesh
from geometry.waypoints import (
    Marker,
    insert_required,
    sample_ground_candidates,
    sample_surface_negatives,
    start_candidate,
    visible_floor_pool,
    default_step_px,
)

__all__ = ["NoStartError", "build_view_annotation", "verify_route", "AGENTS"]

AGENTS = ("point", "embodied")


class NoStartError(ValueError):
    """The view shows no embodied-feasible floor near the bottom: it cannot hold routes."""


def verify_route(graph: nx.Graph, route: Sequence[int], start_id: int, goal_ids: Iterable[int]) -> bool:
    """A route is verified when it starts at `start_id`, every id is a feasible node, every
    consecutive pair is a graph edge, and the last id is an acceptable goal."""
    route = [int(r) for r in route]
    goals = {int(g) for g in goal_ids}
    if not route or route[0] != int(start_id) or route[-1] not in goals:
        return False
    for r in route:
        if r not in graph or not graph.nodes[r].get("feasible", False):
            return False
    return all(graph.has_edge(a, b) for a, b in zip(route[:-1], route[1:]))


def _simplify(route: list[int]) -> list[int]:
    """Drop consecutive repeats and cut loops (a later revisit of an id removes the cycle)."""
    out: list[int] = []
    for r in route:
        if r in out:
            out = out[: out.index(r) + 1]
        else:
            out.append(r)
    return out


def _vertex_predicate(grid, feas_cells, goal_cells, prev_xy, next_xy, radius, step_m):
    """Where a displayed route vertex may stand: feasible for the agent, reachable by a
    legal straight move from the previous displayed vertex, able to continue legally to the
    next planned vertex (or, for the last one, inside the goal region)."""
    prev_xy = np.asarray(prev_xy, dtype=np.float64)[:2]

    def accept(xy):
        xy = np.atleast_2d(np.asarray(xy, dtype=np.float64))[:, :2]
        ok = grid.lookup(feas_cells, xy, outside=False)
        if goal_cells is not None:
            ok &= grid.lookup(goal_cells, xy, outside=False)
        ok &= segments_legal(grid, np.repeat(prev_xy[None, :], len(xy), axis=0), xy, radius, step_m)
        if next_xy is not None:
            nxt = np.asarray(next_xy, dtype=np.float64)[:2]
            ok &= segments_legal(grid, xy, np.repeat(nxt[None, :], len(xy), axis=0), radius, step_m)
        return ok

    return accept


def _nearby_cells(grid: OccupancyGrid, cells: np.ndarray, xy, within_m: float) -> np.ndarray:
    """Centres of the allowed cells within `within_m` of a planned vertex, nearest first
    (ties by cell order): stand-ins when the planned point is hidden or crowded."""
    iy, ix = np.nonzero(cells)
    if not len(ix):
        return np.zeros((0, 2))
    c = grid.cell_to_world(ix, iy)
    d = np.hypot(c[:, 0] - xy[0], c[:, 1] - xy[1])
    keep = np.flatnonzero(d <= within_m)
    order = keep[np.argsort(d[keep], kind="stable")]
    return c[order]


def _edges(graph: nx.Graph) -> list[list[int]]:
    return sorted([min(a, b), max(a, b)] for a, b in graph.edges())


def build_view_annotation(
    *,
    mesh: SceneMesh,
    raycaster: Raycaster,
    grid: OccupancyGrid,
    pose: CameraPose,
    targets: list[TargetInfo],
    floor_ids: Iterable[int],
    obstacle_ids: Iterable[int],
    rng: np.random.Generator,
    params: GeometryParams = GeometryParams(),
    target_texts: dict[int, str],
    n_ground: int = 12,
    n_surface: int = 4,
    visible_objects: Sequence[dict] = (),
    sensitive_fraction: float = 0.25,
    min_spacing_px: float | None = None,
    margin_px: float | None = None,
    max_distance_m: float = 8.0,
    snap_m: float = 0.25,
    nudge_m: float = 0.10,
    search_m: float = 0.5,
    clear_px: float = 3.0,
) -> ViewAnnotation:
    """Both sheets and the verified route units of one view.

    n_ground counts ground candidates besides the start; `sensitive_fraction` of them are
    drawn first from clearance-sensitive cells (when the view shows any). min_spacing_px /
    margin_px default to 6% / 3% of the image's long side; `clear_px` is the marker-disc
    occlusion check. A route vertex that cannot be shown at its planned point may move to
    a displayable point within `search_m` (the goal vertex: anywhere in the goal region)
    that keeps both adjacent moves legal. Floors are assumed at z = 0.

    Raises NoStartError when no start exists, ValueError on inconsistent inputs (a target
    without a text, a floor target, or one without a footprint on the grid)."""
    rm = raycaster.mesh
    if mesh is not rm and not (np.array_equal(mesh.vertices, rm.vertices)
                               and np.array_equal(mesh.triangles, rm.triangles)
                               and np.array_equal(mesh.tri_object_id, rm.tri_object_id)):
        raise ValueError("raycaster was built over a different mesh")
    if n_ground < 0 or n_surface < 0:
        raise ValueError("n_ground and n_surface must be >= 0")
    if not 0.0 <= sensitive_fraction <= 1.0:
        raise ValueError("sensitive_fraction must be in [0, 1]")
    floor_ids = sorted({int(i) for i in floor_ids})
    obstacle_ids = sorted({int(i) for i in obstacle_ids})
    if not floor_ids:
        raise ValueError("floor_ids is empty")
    if set(floor_ids) & set(obstacle_ids):
        raise ValueError("an id cannot be both floor and obstacle")
    for t in targets:
        if t.object_id not in target_texts:
            raise ValueError(f"no target text for object {t.object_id} ({t.name})")
        if t.object_id in floor_ids:
            raise ValueError(f"target {t.object_id} is a floor object")
    long_side = max(pose.width, pose.height)
    spacing = float(min_spacing_px) if min_spacing_px is not None else max(12.0, round(0.06 * long_side))
    margin = float(margin_px) if margin_px is not None else max(4.0, round(0.03 * long_side))

    radius = {a: agent_radius(a, params) for a in AGENTS}
    feas_grid = {a: feasible_mask(grid, radius[a]) for a in AGENTS}

    def feas(agent: str):
        return lambda xy: grid.lookup(feas_grid[agent], np.atleast_2d(xy), outside=False)

    # 1. start
    start = start_candidate(raycaster, pose, floor_ids, feasible=feas("embodied"),
                            margin_px=margin, max_distance_m=max_distance_m, clear_px=clear_px)
    if start is None:
        raise NoStartError("no visible embodied-feasible floor near the bottom of the image")

    # 2. ground candidates (clearance-sensitive share first) and surface negatives
    pool = visible_floor_pool(raycaster, pose, floor_ids, rng, step_px=default_step_px(spacing),
                              max_distance_m=max_distance_m, margin_px=margin, clear_px=clear_px)
    n_sens = int(np.ceil(n_ground * sensitive_fraction))
    sensitive = sample_ground_candidates(
        raycaster, pose, floor_ids, rng, n_max=n_sens, min_spacing_px=spacing,
        max_distance_m=max_distance_m, margin_px=margin, placed=[start], pool=pool,
        accept=lambda xy: feas("point")(xy) & ~feas("embodied")(xy))
    rest = sample_ground_candidates(
        raycaster, pose, floor_ids, rng, n_max=n_ground - len(sensitive), min_spacing_px=spacing,
        max_distance_m=max_distance_m, margin_px=margin, placed=[start, *sensitive], pool=pool)
    ground = sensitive + rest
    surface = sample_surface_negatives(
        raycaster, pose, rng, obstacle_ids=obstacle_ids, n=n_surface, placed=[start, *ground],
        min_spacing_px=spacing, max_distance_m=max_distance_m, margin_px=margin,
        min_height_m=max(params.obstacle_min_z, 0.10), clear_px=clear_px)

    others = ground + surface
    trav_markers = [start] + [others[k] for k in rng.permutation(len(others))]

    # 3. plan every target's routes and insert the required waypoints
    route_markers: list[Marker] = [start, *ground]
    goal_masks: dict[tuple[int, str], np.ndarray] = {}
    planned: dict[tuple[int, str], list[int] | None] = {}
    for t in targets:
        for agent in AGENTS:
            gm = goal_mask(grid, t.object_id, radius[agent], params.goal_ring_m)
            goal_masks[t.object_id, agent] = gm
            planned[t.object_id, agent] = None
            path = grid_path(grid, start.xy, gm, radius[agent])
            if path is None:
                continue
            sparse = sparsify(grid, path, radius[agent], params.corridor_step_m)
            trial = list(route_markers)
            idx = [0]
            ok = True
            for k, v in enumerate(sparse[1:], start=1):
                last = k == len(sparse) - 1
                accept = _vertex_predicate(grid, feas_grid[agent], gm if last else None,
                                           trial[idx[-1]].xy, None if last else sparse[k + 1],
                                           radius[agent], params.corridor_step_m)
                alternatives = _nearby_cells(grid, gm if last else feas_grid[agent], v,
                                             np.inf if last else search_m)
                i = insert_required(raycaster, pose, floor_ids, (v[0], v[1], 0.0), trial,
                                    snap_m=snap_m, min_spacing_px=spacing, margin_px=margin,
                                    accept=accept, nudge_m=nudge_m, alternatives_xy=alternatives,
                                    fallback_snap_m=np.inf if last else search_m, clear_px=clear_px,
                                    disc_extra_ids=(t.object_id,) if last else ())
                if i is None:
                    ok = False
                    break
                idx.append(i)
            if ok:
                route_markers = trial
                planned[t.object_id, agent] = _simplify(idx)

    # 4. number the route sheet, build graphs, verify
    perm = rng.permutation(len(route_markers) - 1) + 1
    route_order = [0] + [int(k) for k in perm]
    display = {m_idx: d + 1 for d, m_idx in enumerate(route_order)}  # marker index -> display id
    points = {display[i]: np.asarray(route_markers[i].xy) for i in range(len(route_markers))}
    graphs = {a: feasibility_graph(grid, points, radius[a], params.corridor_step_m) for a in AGENTS}

    units: list[RouteUnit] = []
    for t in targets:
        fields: dict[str, object] = {}
        any_route = False
        for agent in AGENTS:
            gm = goal_masks[t.object_id, agent]
            G = graphs[agent]
            goal_ids = sorted(
                d for d, xy in points.items()
                if G.nodes[d]["feasible"] and bool(grid.lookup(gm, xy[None, :], outside=False)[0]))
            fields[f"{agent}_goal_ids"] = goal_ids
            best = shortest_route(G, 1, goal_ids)
            ref = None
            if planned[t.object_id, agent] is not None:
                cand = [display[i] for i in planned[t.object_id, agent]]
                if verify_route(G, cand, 1, goal_ids):
                    ref = cand
            if ref is None and best is not None:
                ref = best[1]
            fields[f"{agent}_reference"] = ref
            fields[f"{agent}_shortest_m"] = None if best is None else float(best[0])
            any_route |= ref is not None
            if agent == "embodied" and ref is not None:
                fields["embodied_narrow_fraction"] = narrow_fraction(
                    grid, np.array([points[d] for d in ref]), radius["embodied"])
        if not any_route:
            continue
        units.append(RouteUnit(route_id=str(len(units)), target_object_id=t.object_id,
                               target_text=target_texts[t.object_id], start_id=1, **fields))

    clearance = grid.clearance_m

    def waypoint(d: int, m: Marker) -> Waypoint:
        xy = m.xy[None, :]
        c = float(min(grid.lookup(clearance, xy, outside=0.0)[0], CLEARANCE_CAP_M))
        ground_kind = m.kind == "ground"
        return Waypoint(
            display_id=d, kind=m.kind, pixel=list(m.pixel), world=list(m.world),
            object_id=m.object_id,
            point_feasible=ground_kind and bool(feas("point")(xy)[0]),
            embodied_feasible=ground_kind and bool(feas("embodied")(xy)[0]),
            clearance_m=c)

    trav = Sheet(kind="traversability",
                 waypoints=[waypoint(d + 1, m) for d, m in enumerate(trav_markers)])
    route = Sheet(kind="route",
                  waypoints=[waypoint(display[i], route_markers[i]) for i in route_order],
                  point_edges=_edges(graphs["point"]), embodied_edges=_edges(graphs["embodied"]))
    return ViewAnnotation(
        params=params,
        image_size=[int(pose.width), int(pose.height)],
        camera_xy=[float(pose.center[0]), float(pose.center[1])],
        traversability=trav,
        route=route,
        targets=list(targets),
        routes=units,
        visible_objects=[dict(o) for o in visible_objects],
    )
