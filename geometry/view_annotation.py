"""The EgoPathBench per-view annotation (egopathbench.txt §3.3, App. A): both numbered
sheets of one rendered view and every route unit, fixed by geometry before language.

Four stages, each only reading what the previous ones fixed (`build_view_annotation`
runs them; `AnnotationParams` holds every setting):

1. `place_markers`: the start (display id 1; visible floor near the bottom centre,
   embodied-feasible), ground candidates from visible floor, a share of them drawn from
   clearance-sensitive cells (point-feasible, not embodied-feasible) so the traversability
   labels differ between the agents, then visible surface negatives on furniture and walls;
2. `plan_routes`: per target at least `min_target_start_m` from the start, and agent whose
   start is not already in its goal region: the goal region, a grid search to it,
   string-pulled to sparse vertices, each vertex snapped to or inserted as a displayed
   route waypoint (all or nothing per route); optionally (`display_search`), if a vertex
   cannot be shown, a second search over displayable floor points (`_shown_route`);
3. `connect_route_sheet`: only after every insertion, route-sheet numbering and the two
   feasibility graphs;
4. `verify_units` and `assemble`: goal ids and verification of each planned route on its
   graph (fallback: the graph's shortest legal route); units with no verified route for
   either agent are dropped; both sheets labelled.

Route-sheet ids after 1 are shuffled over the ground and inserted waypoints together,
so the inserted (route-required) waypoints carry no id pattern a model could exploit.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterable, Sequence

import networkx as nx
import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from scipy import ndimage

from geometry.camera import CameraPose, project
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
from geometry.occupancy import OccupancyGrid, footprint_mask
from geometry.raycast import Raycaster, SceneMesh
from geometry.waypoints import (
    Marker,
    insert_required,
    sample_ground_candidates,
    sample_surface_negatives,
    start_candidate,
    visible_floor_pool,
    default_step_px,
    floor_visibility,
    in_frame,
)

__all__ = ["AGENTS", "AnnotationParams", "NoStartError", "build_view_annotation", "verify_route"]

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


class StageClock:
    """Adds stage durations into an optional dict (no-op when it is None)."""

    def __init__(self, into: dict | None):
        self.into = into

    def add(self, key: str, seconds: float) -> None:
        if self.into is not None:
            self.into[key] = self.into.get(key, 0.0) + float(seconds)

    @contextmanager
    def __call__(self, key: str):
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.add(key, time.perf_counter() - t0)


def _displayable_cells(grid: OccupancyGrid, raycaster: Raycaster, pose: CameraPose, floor_ids, margin_px: float,
                       clear_px: float, max_distance_m: float) -> np.ndarray:
    """bool[H, W]: free cells whose centre (on the floor) is visible floor in the image, inside
    the margin, within `max_distance_m`, with a clear marker disc: where a waypoint can be shown."""
    iy, ix = np.nonzero(grid.free)
    out = np.zeros(grid.shape, dtype=bool)
    if not len(ix):
        return out
    xy = grid.cell_to_world(ix, iy)
    C = np.asarray(pose.center, dtype=np.float64)
    near = np.hypot(xy[:, 0] - C[0], xy[:, 1] - C[1]) <= max_distance_m
    xyz = np.column_stack([xy[near], np.zeros(int(near.sum()))])
    uv, z = project(xyz, pose.K_array(), pose.cam_to_world_array())
    inside = (z > 0) & in_frame(pose, uv, margin_px)
    sel = np.flatnonzero(near)[inside]
    if len(sel):
        vis, _ = floor_visibility(raycaster, pose, floor_ids, xyz[inside], margin_px=margin_px, clear_px=clear_px)
        out[iy[sel[vis]], ix[sel[vis]]] = True
    return out


def _footprint_distance(grid: OccupancyGrid, object_id: int, xy) -> float:
    """Floor-plane distance from xy to the nearest cell centre of the object's footprint."""
    iy, ix = np.nonzero(footprint_mask(grid, object_id))
    if not len(ix):
        raise ValueError(f"object {object_id} has no footprint on this grid")
    c = grid.cell_to_world(ix, iy)
    return float(np.min(np.hypot(c[:, 0] - xy[0], c[:, 1] - xy[1])))


def _inner_goal(grid: OccupancyGrid, goal: np.ndarray, feasible: np.ndarray, object_id: int, start_xy) -> np.ndarray:
    """The goal cells nearest the target's footprint among those reachable from the start.

    A reference that ends deep in the goal region stays a goal when the ring shrinks or
    the body radius changes (Table S8 keeps 99.8-100% of solutions there); planning to the
    nearest goal cell would end every route on the ring's outer edge instead."""
    labels, _ = ndimage.label(feasible, structure=np.ones((3, 3), bool))
    ix, iy = grid.world_to_cell(np.asarray(start_xy, float)[:2])
    if not grid.in_grid(ix, iy) or labels[iy, ix] == 0:
        return goal
    reach = goal & (labels == labels[iy, ix])
    if not reach.any():
        return goal
    dist = ndimage.distance_transform_edt(~footprint_mask(grid, object_id)) * grid.cell_m
    return reach & (dist <= dist[reach].min() + 1e-6)


def _thin(uv: np.ndarray, bucket_px: float) -> np.ndarray:
    """Indices of the first point in each bucket_px x bucket_px pixel bucket (input order kept)."""
    if not len(uv):
        return np.zeros(0, dtype=np.int64)
    keys = np.floor(uv / bucket_px).astype(np.int64)
    _, first = np.unique(keys, axis=0, return_index=True)
    return np.sort(first)


def _near_shown(shown: np.ndarray) -> np.ndarray:
    """Shown cells grown by two cells: goal cells hugging the target may be hidden by the
    disc test against the target alone, which the goal marker is allowed to touch."""
    from scipy import ndimage

    return ndimage.binary_dilation(shown, iterations=2)


def _shown_route(grid: OccupancyGrid, raycaster: Raycaster, pose: CameraPose, floor_ids, trial: list[Marker],
                 shown: np.ndarray, feas_cells: np.ndarray, goal_cells: np.ndarray, target_id: int,
                 radius: float, step_m: float, spacing_px: float, margin_px: float,
                 clear_px: float) -> list[int] | None:
    """A route whose every vertex can be displayed: the shortest legal route over the
    markers already on the sheet plus displayable floor points (shown, agent-feasible cells
    picked row by row at marker spacing; goal-region cells first, where the target may share
    the marker disc). Segments may cross hidden floor; only the vertices must be shown.
    Appends the new points it uses to `trial` (the caller's scratch copy of the sheet) and
    returns the route as marker indices, or None."""
    goal_shown = goal_cells & feas_cells & _near_shown(shown)
    giy, gix = np.nonzero(goal_shown)
    if not len(gix):
        return None
    gxy = grid.cell_to_world(gix, giy)
    guv, _ = project(np.column_stack([gxy, np.zeros(len(gxy))]), pose.K_array(), pose.cam_to_world_array())
    keep = _thin(guv, spacing_px / 2)
    gxy, guv = gxy[keep], guv[keep]
    gvis, _ = floor_visibility(raycaster, pose, floor_ids, np.column_stack([gxy, np.zeros(len(gxy))]),
                               margin_px=margin_px, clear_px=clear_px, disc_extra_ids=(target_id,))
    if not gvis.any():
        return None
    iy, ix = np.nonzero(shown & feas_cells & ~goal_cells)
    pxy = grid.cell_to_world(ix, iy)
    puv, _ = project(np.column_stack([pxy, np.zeros(len(pxy))]), pose.K_array(), pose.cam_to_world_array())
    keep = _thin(puv, spacing_px / 2)
    pool_xy = np.vstack([gxy[gvis], pxy[keep]])
    pool_uv = np.vstack([guv[gvis], puv[keep]])
    taken = [np.asarray(m.pixel, dtype=np.float64) for m in trial]
    picked: list[int] = []
    for j in range(len(pool_xy)):  # greedy spacing against the sheet and the picked points
        if not taken or np.min(np.sum((np.asarray(taken) - pool_uv[j]) ** 2, axis=1)) >= spacing_px ** 2:
            picked.append(j)
            taken.append(pool_uv[j])
    n = len(trial)
    points: dict[int, np.ndarray] = {i: trial[i].xy for i in range(n) if trial[i].kind == "ground"}
    points.update({n + k: pool_xy[j] for k, j in enumerate(picked)})
    G = feasibility_graph(grid, points, radius, step_m)
    goals = [i for i, xy in points.items()
             if G.nodes[i]["feasible"] and bool(grid.lookup(goal_cells, xy[None, :], outside=False)[0])]
    best = shortest_route(G, 0, goals)
    if best is None or len(best[1]) < 2:
        return None
    route = [0]
    for k, node in enumerate(best[1][1:], start=1):
        if node < n:
            route.append(node)
            continue
        last = k == len(best[1]) - 1
        xy = points[node]
        i = insert_required(raycaster, pose, floor_ids, (xy[0], xy[1], 0.0), trial, snap_m=0.0,
                            min_spacing_px=spacing_px, margin_px=margin_px, clear_px=clear_px,
                            disc_extra_ids=(target_id,) if last else ())
        if i is None:
            return None
        route.append(i)
    return route


def _route_m(points: dict[int, np.ndarray], route: list[int]) -> float:
    return float(sum(np.hypot(*(points[b][:2] - points[a][:2])) for a, b in zip(route[:-1], route[1:])))


def _edges(graph: nx.Graph) -> list[list[int]]:
    return sorted([min(a, b), max(a, b)] for a, b in graph.edges())


class AnnotationParams(BaseModel):
    """Every setting of `build_view_annotation` (the view's data is passed beside it).

    n_ground counts ground candidates besides the start; `sensitive_fraction` of them are
    drawn first from clearance-sensitive cells (when the view shows any). Waypoints inserted
    for a route keep `route_spacing_px` (default 4% of the long side, still more than two
    overlay marker radii) from every marker; sampled markers keep `min_spacing_px`.
    `min_spacing_px` / `margin_px` default to 6% / 3% of the image's long side; `clear_px` is
    the marker-disc occlusion check. A route vertex that cannot be shown at its planned
    point may move to a displayable point within `search_m` (the goal vertex: anywhere in
    the goal region) that keeps both adjacent moves legal; `snap_m` / `nudge_m` are how far
    it snaps to an existing marker / is nudged. Targets whose floor footprint comes within
    `min_target_start_m` of the start get no route unit. `display_search` turns on the second
    search over displayable floor points (`_shown_route`) when a vertex cannot be shown."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    geometry: GeometryParams = GeometryParams()
    n_ground: int = Field(12, ge=0)
    n_surface: int = Field(4, ge=0)
    sensitive_fraction: float = Field(0.25, ge=0.0, le=1.0)
    min_spacing_px: float | None = None
    route_spacing_px: float | None = None
    margin_px: float | None = None
    max_distance_m: float = 8.0
    snap_m: float = 0.25
    nudge_m: float = 0.10
    search_m: float = 0.5
    clear_px: float = 3.0
    display_search: bool = False
    min_target_start_m: float = 0.0


@dataclass(frozen=True)
class ViewContext:
    """What every stage reads: the validated inputs, the resolved pixel settings, and each
    agent's radius and feasible cells."""

    raycaster: Raycaster
    grid: OccupancyGrid
    pose: CameraPose
    floor_ids: list[int]
    obstacle_ids: list[int]
    p: AnnotationParams
    spacing: float
    rspacing: float
    margin: float
    radius: dict[str, float]
    feas_grid: dict[str, np.ndarray]

    def feas(self, agent: str):
        return lambda xy: self.grid.lookup(self.feas_grid[agent], np.atleast_2d(xy), outside=False)


def view_context(mesh, raycaster, grid, pose, targets, floor_ids, obstacle_ids, target_texts,
                 p: AnnotationParams) -> ViewContext:
    """Check the inputs against each other and resolve the image-relative defaults."""
    rm = raycaster.mesh
    if mesh is not rm and not (np.array_equal(mesh.vertices, rm.vertices)
                               and np.array_equal(mesh.triangles, rm.triangles)
                               and np.array_equal(mesh.tri_object_id, rm.tri_object_id)):
        raise ValueError("raycaster was built over a different mesh")
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
    spacing = float(p.min_spacing_px) if p.min_spacing_px is not None else max(12.0, round(0.06 * long_side))
    rspacing = (float(p.route_spacing_px) if p.route_spacing_px is not None
                else min(spacing, max(8.0, round(0.04 * long_side))))
    margin = float(p.margin_px) if p.margin_px is not None else max(4.0, round(0.03 * long_side))
    radius = {a: agent_radius(a, p.geometry) for a in AGENTS}
    return ViewContext(raycaster=raycaster, grid=grid, pose=pose, floor_ids=floor_ids, obstacle_ids=obstacle_ids, p=p,
                 spacing=spacing, rspacing=rspacing, margin=margin, radius=radius,
                 feas_grid={a: feasible_mask(grid, radius[a]) for a in AGENTS})


# ------------------------------------------------------------------ stage 1: markers

@dataclass
class Markers:
    start: Marker
    ground: list[Marker]
    traversability: list[Marker]   # the traversability sheet in display order (start first)


def place_markers(v: ViewContext, rng: np.random.Generator) -> Markers:
    """The start (display id 1), ground candidates (the clearance-sensitive share first) and
    surface negatives, and the traversability sheet's shuffled order."""
    p = v.p
    start = start_candidate(v.raycaster, v.pose, v.floor_ids, feasible=v.feas("embodied"),
                            margin_px=v.margin, max_distance_m=p.max_distance_m, clear_px=p.clear_px)
    if start is None:
        raise NoStartError("no visible embodied-feasible floor near the bottom of the image")
    pool = visible_floor_pool(v.raycaster, v.pose, v.floor_ids, rng, step_px=default_step_px(v.spacing),
                              max_distance_m=p.max_distance_m, margin_px=v.margin, clear_px=p.clear_px)
    n_sens = int(np.ceil(p.n_ground * p.sensitive_fraction))
    sensitive = sample_ground_candidates(
        v.raycaster, v.pose, v.floor_ids, rng, n_max=n_sens, min_spacing_px=v.spacing,
        max_distance_m=p.max_distance_m, margin_px=v.margin, placed=[start], pool=pool,
        accept=lambda xy: v.feas("point")(xy) & ~v.feas("embodied")(xy))
    rest = sample_ground_candidates(
        v.raycaster, v.pose, v.floor_ids, rng, n_max=p.n_ground - len(sensitive), min_spacing_px=v.spacing,
        max_distance_m=p.max_distance_m, margin_px=v.margin, placed=[start, *sensitive], pool=pool)
    ground = sensitive + rest
    surface = sample_surface_negatives(
        v.raycaster, v.pose, rng, obstacle_ids=v.obstacle_ids, n=p.n_surface, placed=[start, *ground],
        min_spacing_px=v.spacing, max_distance_m=p.max_distance_m, margin_px=v.margin,
        min_height_m=max(p.geometry.obstacle_min_z, 0.10), clear_px=p.clear_px)
    others = ground + surface
    return Markers(start=start, ground=ground,
                    traversability=[start] + [others[k] for k in rng.permutation(len(others))])


# ------------------------------------------------------------------ stage 2: goal regions and planned routes

@dataclass
class RoutePlans:
    route_targets: list[TargetInfo]                        # targets far enough from the start
    route_markers: list[Marker]                            # start, ground, then inserted waypoints
    goal_masks: dict[tuple[int, str], np.ndarray]          # (target id, agent) -> goal cells
    start_in_goal: dict[tuple[int, str], bool]
    planned: dict[tuple[int, str], list[int] | None]       # marker indices of the displayed route


def _display_route(v: ViewContext, trial: list[Marker], sparse, agent: str, inner, gm,
                   target_id: int) -> list[int] | None:
    """Snap or insert each vertex of the string-pulled route as a displayed waypoint (into
    `trial`); the marker indices of the route, or None when a vertex cannot be shown."""
    p = v.p
    idx = [0]
    for k, vert in enumerate(sparse[1:], start=1):
        last = k == len(sparse) - 1
        # the last vertex: on the goal region's innermost cells first, anywhere in it
        # only if nothing there can be shown
        for goal_cells in ((inner, gm) if last else (None,)):
            accept = _vertex_predicate(v.grid, v.feas_grid[agent], goal_cells,
                                       trial[idx[-1]].xy, None if last else sparse[k + 1],
                                       v.radius[agent], p.geometry.corridor_step_m)
            alternatives = _nearby_cells(v.grid, goal_cells if last else v.feas_grid[agent], vert,
                                         np.inf if last else p.search_m)
            i = insert_required(v.raycaster, v.pose, v.floor_ids, (vert[0], vert[1], 0.0), trial,
                                snap_m=p.snap_m, min_spacing_px=v.rspacing, margin_px=v.margin,
                                accept=accept, nudge_m=p.nudge_m, alternatives_xy=alternatives,
                                fallback_snap_m=np.inf if last else p.search_m, clear_px=p.clear_px,
                                disc_extra_ids=(target_id,) if last else ())
            if i is not None:
                break
        if i is None:
            return None
        idx.append(i)
    return idx


def plan_routes(v: ViewContext, markers: Markers, targets: list[TargetInfo], clock: StageClock) -> RoutePlans:
    """Per target (far enough from the start) and agent whose start is not already in its
    goal region: grid search to the goal, string-pulled, each vertex displayed (all or
    nothing per route; optionally a second search over displayable floor)."""
    p, grid, start = v.p, v.grid, markers.start
    plans = RoutePlans(route_targets=[t for t in targets
                                  if _footprint_distance(grid, t.object_id, start.xy) >= p.min_target_start_m],
                   route_markers=[start, *markers.ground], goal_masks={}, start_in_goal={}, planned={})
    shown: dict[str, np.ndarray] = {}  # displayable free cells of the view, computed on demand

    def shown_cells() -> np.ndarray:
        if "cells" not in shown:
            with clock("route_search_s"):
                shown["cells"] = _displayable_cells(grid, v.raycaster, v.pose, v.floor_ids, v.margin, p.clear_px,
                                                    p.max_distance_m)
        return shown["cells"]

    for t in plans.route_targets:
        for agent in AGENTS:
            key = (t.object_id, agent)
            gm = goal_mask(grid, t.object_id, v.radius[agent], p.geometry.goal_ring_m)
            plans.goal_masks[key] = gm
            plans.planned[key] = None
            plans.start_in_goal[key] = bool(grid.lookup(gm, start.xy[None, :2], outside=False)[0])
            if plans.start_in_goal[key]:
                continue  # already there: no route question for this agent
            with clock("route_search_s"):
                inner = _inner_goal(grid, gm, v.feas_grid[agent], t.object_id, start.xy)
                path = grid_path(grid, start.xy, inner, v.radius[agent])
                if path is None:
                    path = grid_path(grid, start.xy, gm, v.radius[agent])
                if path is None:
                    continue
                sparse = sparsify(grid, path, v.radius[agent], p.geometry.corridor_step_m)
            t_ins = time.perf_counter()
            trial = list(plans.route_markers)
            idx = _display_route(v, trial, sparse, agent, inner, gm, t.object_id)
            clock.add("insert_s", time.perf_counter() - t_ins)
            if idx is None and p.display_search:  # the free-space route hides a vertex: route over shown floor
                trial = list(plans.route_markers)
                cells = shown_cells()  # timed once, inside shown_cells
                t0 = time.perf_counter()
                idx = _shown_route(grid, v.raycaster, v.pose, v.floor_ids, trial, cells, v.feas_grid[agent],
                                   gm, t.object_id, v.radius[agent], p.geometry.corridor_step_m, v.rspacing,
                                   v.margin, p.clear_px)
                clock.add("route_search_s", time.perf_counter() - t0)
            if idx is not None:
                plans.route_markers = trial
                plans.planned[key] = _simplify(idx)
    return plans


# ------------------------------------------------------------------ stage 3: route sheet and feasibility graphs

@dataclass
class RouteSheet:
    order: list[int]                   # marker indices in display order (the start first)
    display: dict[int, int]            # marker index -> display id
    points: dict[int, np.ndarray]      # display id -> floor xy
    graphs: dict[str, nx.Graph]        # agent -> feasibility graph over display ids


def connect_route_sheet(v: ViewContext, plans: RoutePlans, rng: np.random.Generator,
                        clock: StageClock) -> RouteSheet:
    """Number the route sheet (ids after 1 shuffled over ground and inserted waypoints
    together) and build both agents' feasibility graphs over it."""
    perm = rng.permutation(len(plans.route_markers) - 1) + 1
    order = [0] + [int(k) for k in perm]
    display = {m_idx: d + 1 for d, m_idx in enumerate(order)}
    points = {display[i]: np.asarray(plans.route_markers[i].xy) for i in range(len(plans.route_markers))}
    with clock("graphs_s"):
        graphs = {a: feasibility_graph(v.grid, points, v.radius[a], v.p.geometry.corridor_step_m) for a in AGENTS}
    return RouteSheet(order=order, display=display, points=points, graphs=graphs)


# ------------------------------------------------------------------ stage 4: verified units and the annotation

def verify_units(v: ViewContext, plans: RoutePlans, sheet: RouteSheet,
                 target_texts: dict[int, str]) -> list[RouteUnit]:
    """Goal ids, the reference route (the planned one when verified on its graph, else or
    when shorter the graph's shortest legal route) and shortest length per agent; units
    with no reference for either agent are dropped."""
    grid, points = v.grid, sheet.points
    units: list[RouteUnit] = []
    for t in plans.route_targets:
        fields: dict[str, object] = {}
        any_route = False
        for agent in AGENTS:
            key = (t.object_id, agent)
            gm = plans.goal_masks[key]
            G = sheet.graphs[agent]
            goal_ids = sorted(
                d for d, xy in points.items()
                if G.nodes[d]["feasible"] and bool(grid.lookup(gm, xy[None, :], outside=False)[0]))
            fields[f"{agent}_goal_ids"] = goal_ids
            ref, best = None, None
            if not plans.start_in_goal[key]:
                best = shortest_route(G, 1, goal_ids)
                if plans.planned[key] is not None:
                    cand = [sheet.display[i] for i in plans.planned[key]]
                    if verify_route(G, cand, 1, goal_ids):
                        ref = cand
                if best is not None and (ref is None or best[0] < _route_m(points, ref) - 1e-9):
                    ref = best[1]  # the exported answer is a shortest legal route (SPL's l_i)
                if ref is not None and len(ref) < 2:  # the start is a goal id: nothing to route
                    ref, best = None, None
            fields[f"{agent}_reference"] = ref
            fields[f"{agent}_shortest_m"] = None if best is None else float(best[0])
            any_route |= ref is not None
            if agent == "embodied" and ref is not None:
                fields["embodied_narrow_fraction"] = narrow_fraction(
                    grid, np.array([points[d] for d in ref]), v.radius["embodied"])
        if not any_route:
            continue
        units.append(RouteUnit(route_id=str(len(units)), target_object_id=t.object_id,
                               target_text=target_texts[t.object_id], start_id=1, **fields))
    return units


def _waypoint(v: ViewContext, d: int, m: Marker) -> Waypoint:
    xy = m.xy[None, :]
    c = float(min(v.grid.lookup(v.grid.clearance_m, xy, outside=0.0)[0], CLEARANCE_CAP_M))
    ground_kind = m.kind == "ground"
    return Waypoint(
        display_id=d, kind=m.kind, pixel=list(m.pixel), world=list(m.world),
        object_id=m.object_id,
        point_feasible=ground_kind and bool(v.feas("point")(xy)[0]),
        embodied_feasible=ground_kind and bool(v.feas("embodied")(xy)[0]),
        clearance_m=c)


def assemble(v: ViewContext, markers: Markers, plans: RoutePlans, sheet: RouteSheet, units: list[RouteUnit],
             targets: list[TargetInfo], visible_objects: Sequence[dict]) -> ViewAnnotation:
    """Both labelled sheets and the units as one `ViewAnnotation`."""
    trav = Sheet(kind="traversability",
                 waypoints=[_waypoint(v, d + 1, m) for d, m in enumerate(markers.traversability)])
    route = Sheet(kind="route",
                  waypoints=[_waypoint(v, sheet.display[i], plans.route_markers[i]) for i in sheet.order],
                  point_edges=_edges(sheet.graphs["point"]), embodied_edges=_edges(sheet.graphs["embodied"]))
    return ViewAnnotation(
        params=v.p.geometry,
        image_size=[int(v.pose.width), int(v.pose.height)],
        camera_xy=[float(v.pose.center[0]), float(v.pose.center[1])],
        traversability=trav,
        route=route,
        targets=list(targets),
        routes=units,
        visible_objects=[dict(o) for o in visible_objects],
    )


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
    target_texts: dict[int, str],
    visible_objects: Sequence[dict] = (),
    params: AnnotationParams = AnnotationParams(),
    timings: dict | None = None,
) -> ViewAnnotation:
    """Both sheets and the verified route units of one view, in four stages:
    `place_markers`, `plan_routes`, `connect_route_sheet`, then `verify_units` and
    `assemble` (see `AnnotationParams` for the settings). Floors are assumed at z = 0.

    An agent's route whose start already lies in that agent's goal region is not a route
    question: its reference is None (a unit with neither reference is dropped).
    `timings`, when given, accumulates seconds per stage (`route_search_s`: grid search
    and string pulling; `insert_s`: displaying route vertices; `graphs_s`: both
    feasibility graphs; `verify_s`: goals, shortest routes, verification).

    Raises NoStartError when no start exists, ValueError on inconsistent inputs (a target
    without a text, a floor target, or one without a footprint on the grid)."""
    if not isinstance(params, AnnotationParams):
        raise TypeError(f"params must be AnnotationParams, not {type(params).__name__}")
    v = view_context(mesh, raycaster, grid, pose, targets, floor_ids, obstacle_ids, target_texts, params)
    clock = StageClock(timings)
    markers = place_markers(v, rng)
    plans = plan_routes(v, markers, targets, clock)
    sheet = connect_route_sheet(v, plans, rng, clock)
    t_ver = time.perf_counter()
    units = verify_units(v, plans, sheet, target_texts)
    clock.add("verify_s", time.perf_counter() - t_ver)
    return assemble(v, markers, plans, sheet, units, targets, visible_objects)
