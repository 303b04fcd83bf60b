"""EgoPath geometry cost per view on a realistic synthetic indoor scene, no Blender.

    .venv/bin/python bench/egopath_graph.py [--views 8] [--seed 0] [--waypoints 25]

The paper builds both feasibility graphs and searches routes for every view; the budget
we hold it to is "graph building and route search under a second per view on this CPU".
The scene is two 5 x 4 m rooms joined by a 0.9 m doorway, 13 furniture pieces with thin
legs, and tessellated decor that brings the mesh to ~50k triangles. Per view (a camera
in one of the rooms, ~25 ground waypoints in its field of view, one target) it times:
occupancy build, clearance, goal masks, grid path + sparsify (point and embodied), both
feasibility graphs over the displayed + inserted waypoints, and shortest_route; then
prints the per-stage means and the ratio of the per-view total to 1 s. Numbers vary by
about +-30% on a shared machine.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import trimesh

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from geometry.egopath_schema import GeometryParams  # noqa: E402
from geometry.feasibility import (  # noqa: E402
    agent_radius,
    feasibility_graph,
    goal_mask,
    grid_path,
    narrow_fraction,
    shortest_route,
    sparsify,
)
from geometry.occupancy import occupancy_from_mesh  # noqa: E402
from geometry.raycast import SceneMesh  # noqa: E402

FLOOR_ID = 1
BUDGET_S = 1.0


# ------------------------------------------------------------------ mesh helpers


def box(lo, hi, rot_deg: float = 0.0) -> trimesh.Trimesh:
    """Box spanning [lo, hi] (world metres), optionally turned about its vertical axis."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    T = trimesh.transformations.translation_matrix((lo + hi) / 2)
    if rot_deg:
        T = T @ trimesh.transformations.rotation_matrix(math.radians(rot_deg), [0, 0, 1])
    return trimesh.creation.box(extents=hi - lo, transform=T)


def quad_xy(x0, y0, x1, y1, z=0.0) -> trimesh.Trimesh:
    v = [[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]]
    return trimesh.Trimesh(v, [[0, 1, 2], [0, 2, 3]], process=False)


def table(cx, cy, w, d, h, leg=0.04, rot=0.0) -> trimesh.Trimesh:
    """Top plus four square legs (rotated as a whole about the table centre)."""
    parts = [box([-w / 2, -d / 2, h - 0.04], [w / 2, d / 2, h])]
    for sx in (-1, 1):
        for sy in (-1, 1):
            x, y = sx * (w / 2 - leg), sy * (d / 2 - leg)
            parts.append(box([x - leg / 2, y - leg / 2, 0.0], [x + leg / 2, y + leg / 2, h - 0.04]))
    m = trimesh.util.concatenate(parts)
    m.apply_transform(trimesh.transformations.rotation_matrix(math.radians(rot), [0, 0, 1]))
    return m.apply_translation([cx, cy, 0.0])


def chair(cx, cy, rot=0.0) -> trimesh.Trimesh:
    """Seat, back and 1.5 cm legs: the legs are what a coarse rasteriser misses."""
    s, leg = 0.44, 0.015
    parts = [box([-s / 2, -s / 2, 0.43], [s / 2, s / 2, 0.46]), box([-s / 2, s / 2 - 0.03, 0.46], [s / 2, s / 2, 0.9])]
    for sx in (-1, 1):
        for sy in (-1, 1):
            x, y = sx * (s / 2 - 0.02), sy * (s / 2 - 0.02)
            parts.append(box([x - leg / 2, y - leg / 2, 0.0], [x + leg / 2, y + leg / 2, 0.43]))
    m = trimesh.util.concatenate(parts)
    m.apply_transform(trimesh.transformations.rotation_matrix(math.radians(rot), [0, 0, 1]))
    return m.apply_translation([cx, cy, 0.0])


def build_scene(rng: np.random.Generator) -> tuple[SceneMesh, dict[int, str]]:
    """Two rooms [0,5]x[0,4] and [5.1,10.1]x[0,4], partition with a doorway at y in [1.55, 2.45]."""
    t, h = 0.1, 2.5
    parts = [(FLOOR_ID, "floor", quad_xy(0.0, 0.0, 10.1, 4.0)),
             (2, "ceiling", quad_xy(0.0, 0.0, 10.1, 4.0, z=h)),
             (3, "wall_s", box([-t, -t, 0], [10.1 + t, 0.0, h])),
             (4, "wall_n", box([-t, 4.0, 0], [10.1 + t, 4.0 + t, h])),
             (5, "wall_w", box([-t, 0.0, 0], [0.0, 4.0, h])),
             (6, "wall_e", box([10.1, 0.0, 0], [10.1 + t, 4.0, h])),
             (7, "wall_mid_a", box([5.0, 0.0, 0], [5.1, 1.55, h])),
             (8, "wall_mid_b", box([5.0, 2.45, 0], [5.1, 4.0, h]))]
    j = lambda s=0.1: float(rng.uniform(-s, s))  # noqa: E731
    furniture = [
        ("dining_table", table(1.6 + j(), 2.6 + j(), 1.4, 0.8, 0.75, rot=5 * j(1))),
        ("chair_1", chair(1.2 + j(), 1.9 + j(), rot=20 * j(1))),
        ("chair_2", chair(2.0 + j(), 1.9 + j(), rot=20 * j(1))),
        ("chair_3", chair(1.6 + j(), 3.4 + j(), rot=180 + 20 * j(1))),
        ("sofa", box([3.3, 3.05, 0.0], [4.9, 3.95, 0.85], rot_deg=3 * j(1))),
        ("coffee_table", table(4.1 + j(), 2.3 + j(), 0.9, 0.5, 0.45)),
        ("shelf", box([0.05, 0.2, 0.0], [0.45, 1.3, 2.0])),
        ("bed", box([7.6, 2.0, 0.0], [10.0, 3.9, 0.55])),
        ("desk", table(6.2 + j(), 0.45, 1.2, 0.6, 0.74)),
        ("desk_chair", chair(6.2 + j(), 1.05 + j(), rot=180 + 30 * j(1))),
        ("wardrobe", box([9.4, 0.1, 0.0], [10.0, 1.3, 2.1])),
        ("nightstand", box([7.0, 3.4, 0.0], [7.45, 3.9, 0.55])),
        ("plant_pot", trimesh.creation.cylinder(radius=0.18, height=0.5, sections=256).apply_translation([5.5, 3.6, 0.25])),
    ]
    oid = 10
    names = {}
    for name, m in furniture:
        parts.append((oid, name, m))
        names[oid] = name
        oid += 1
    # Tessellated decor (vases, lamps, cushions) to reach a realistic triangle count.
    spots = [(2.4, 2.5, 0.85), (1.0, 2.7, 0.85), (4.2, 2.3, 0.55), (0.25, 0.6, 1.2), (0.25, 1.0, 1.5),
             (6.5, 0.4, 0.85), (7.2, 3.65, 0.7), (8.2, 3.0, 0.65), (3.8, 3.5, 0.95)]
    for k, (x, y, z) in enumerate(spots):
        s = trimesh.creation.icosphere(subdivisions=4, radius=0.09 + 0.03 * (k % 3)).apply_translation([x, y, z])
        parts.append((oid, f"decor_{k}", s))
        names[oid] = f"decor_{k}"
        oid += 1
    return SceneMesh.from_trimesh_parts(parts), names


def view_waypoints(rng: np.random.Generator, cam_xy, yaw, n: int, on_floor) -> dict[int, np.ndarray]:
    """n floor points in a 70 deg wedge 0.6-5 m ahead of the camera (id 1 = the start, 0.5 m ahead).

    Candidates off the floor (beyond the walls) are redrawn, as a renderer would only
    show visible floor; occluded floor is not modelled here.
    """
    pts = {1: np.array([cam_xy[0] + 0.5 * math.cos(yaw), cam_xy[1] + 0.5 * math.sin(yaw), 0.0])}
    i = 2
    while i <= n:
        d = rng.uniform(0.6, 5.0)
        a = yaw + rng.uniform(-0.61, 0.61)
        p = np.array([cam_xy[0] + d * math.cos(a), cam_xy[1] + d * math.sin(a), 0.0])
        if on_floor(p):
            pts[i] = p
            i += 1
    return pts


VIEWS = [((0.9, 0.6), math.radians(50)), ((4.3, 0.6), math.radians(120)), ((2.5, 1.2), math.radians(20)),
         ((5.8, 2.0), math.radians(10)), ((9.0, 1.2), math.radians(170)), ((3.0, 1.5), math.radians(0)),
         ((6.8, 1.6), math.radians(60)), ((4.4, 2.0), math.radians(0))]
TARGETS = ["sofa", "dining_table", "coffee_table", "bed", "desk", "desk_chair", "nightstand", "bed"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--views", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--waypoints", type=int, default=25)
    args = ap.parse_args()
    params = GeometryParams()
    rng = np.random.default_rng(args.seed)
    mesh, names = build_scene(rng)
    by_name = {v: k for k, v in names.items()}
    print(f"scene: {len(mesh.triangles)} triangles, {len(mesh.object_ids)} objects")

    times = defaultdict(list)
    stats = defaultdict(list)
    for v in range(args.views):
        cam_xy, yaw = VIEWS[v % len(VIEWS)]
        target = by_name[TARGETS[v % len(TARGETS)]]
        t0 = time.perf_counter()
        grid = occupancy_from_mesh(mesh, {FLOOR_ID}, params)
        t1 = time.perf_counter()
        _ = grid.clearance_m
        t2 = time.perf_counter()
        times["occupancy"].append(t1 - t0)
        times["clearance"].append(t2 - t1)
        pts = view_waypoints(rng, cam_xy, yaw, args.waypoints, lambda p: bool(grid.lookup(grid.floor, p[None, :2])[0]))
        route_pts = dict(pts)
        nxt = max(pts) + 1
        for agent in ("point", "embodied"):
            r = agent_radius(agent, params)
            ta = time.perf_counter()
            gm = goal_mask(grid, target, r, params.goal_ring_m)
            tb = time.perf_counter()
            path = grid_path(grid, pts[1][:2], gm, r)
            sp = sparsify(grid, path, r, params.corridor_step_m) if path is not None else None
            tc = time.perf_counter()
            times[f"goal_mask_{agent}"].append(tb - ta)
            times[f"grid_path+sparsify_{agent}"].append(tc - tb)
            stats[f"path_found_{agent}"].append(path is not None)
            if sp is not None:
                stats[f"sparse_segments_{agent}"].append(len(sp) - 1)
                if agent == "embodied":
                    stats["narrow_fraction"].append(narrow_fraction(grid, sp, r))
                for p in sp[1:]:  # inserted required waypoints join the route sheet
                    route_pts[nxt] = np.array([p[0], p[1], 0.0])
                    nxt += 1
        for agent in ("point", "embodied"):
            r = agent_radius(agent, params)
            ta = time.perf_counter()
            G = feasibility_graph(grid, route_pts, r, params.corridor_step_m)
            tb = time.perf_counter()
            gm = goal_mask(grid, target, r, params.goal_ring_m)
            goals = [i for i, p in route_pts.items() if grid.lookup(gm, p[None, :2])[0]]
            res = shortest_route(G, 1, goals)
            tc = time.perf_counter()
            times[f"graph_{agent}"].append(tb - ta)
            times[f"shortest_route_{agent}"].append(tc - tb)
            stats[f"nodes_{agent}"].append(G.number_of_nodes())
            stats[f"feasible_{agent}"].append(sum(1 for _, d in G.nodes(data=True) if d["feasible"]))
            stats[f"edges_{agent}"].append(G.number_of_edges())
            stats[f"route_found_{agent}"].append(res is not None)

    H, W = grid.shape
    print(f"grid: {W} x {H} cells of {params.grid_m} m, {args.views} views, "
          f"{int(np.mean(stats['nodes_point']))} waypoints per route sheet on average")
    total = 0.0
    for k, v in times.items():
        ms = 1000 * float(np.mean(v))
        total += ms
        print(f"  {k:<28s} {ms:8.1f} ms")
    print(f"  {'total per view':<28s} {total:8.1f} ms   ratio to the {BUDGET_S:.0f} s budget: {total / 1000 / BUDGET_S:.3f}")
    excl = total - 1000 * (np.mean(times["occupancy"]) + np.mean(times["clearance"]))
    print(f"  {'per view, grid reused':<28s} {excl:8.1f} ms   ratio: {excl / 1000 / BUDGET_S:.3f}")
    for k, v in stats.items():
        print(f"  {k:<28s} {float(np.mean(v)):8.2f}" + ("" if "found" not in k else f"   ({sum(v)}/{len(v)})"))


if __name__ == "__main__":
    main()
