"""EgoPathBench geometry core checked against hand-built scenes and independent computations.

Occupancy is compared with analytic box footprints and with open3d inside/outside queries;
grid paths with a plain networkx Dijkstra built cell by cell; goal rings and narrow
fractions with brute-force distance loops; the corridor audit with depth/index renders
ray-cast from real meshes.
"""
from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
import trimesh

from geometry.camera import look_at
from geometry.corridor import audit_edge, audit_summary, corridor_samples
from geometry.egopath_schema import GeometryParams
from geometry.feasibility import (
    agent_radius,
    feasibility_graph,
    feasible_at,
    feasible_mask,
    goal_mask,
    grid_path,
    narrow_fraction,
    route_length,
    segment_legal,
    sheet_edges,
    shortest_route,
    sparsify,
    waypoint_labels,
)
from geometry.occupancy import OccupancyGrid, footprint_mask, occupancy_from_mesh
from geometry.raycast import Raycaster, SceneMesh

P = GeometryParams()
R = P.body_radius_m
STEP = P.corridor_step_m


# ------------------------------------------------------------------ helpers


def box(lo, hi, rot_deg: float = 0.0) -> trimesh.Trimesh:
    """Axis-aligned box [lo, hi], optionally rotated about its vertical axis."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    T = trimesh.transformations.translation_matrix((lo + hi) / 2)
    if rot_deg:
        T = T @ trimesh.transformations.rotation_matrix(math.radians(rot_deg), [0, 0, 1])
    return trimesh.creation.box(extents=hi - lo, transform=T)


def floor_quad(x0, y0, x1, y1, z=0.0) -> trimesh.Trimesh:
    v = [[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]]
    return trimesh.Trimesh(v, [[0, 1, 2], [0, 2, 3]], process=False)


def plane_x(x, y0, y1, z0, z1) -> trimesh.Trimesh:
    """Zero-thickness vertical quad in the plane x = const."""
    v = [[x, y0, z0], [x, y1, z0], [x, y1, z1], [x, y0, z1]]
    return trimesh.Trimesh(v, [[0, 1, 2], [0, 2, 3]], process=False)


def mesh_of(parts) -> SceneMesh:
    return SceneMesh.from_trimesh_parts(parts)


def hand_grid(free: np.ndarray, cell=0.05, object_cells=None) -> OccupancyGrid:
    free = np.asarray(free, bool)
    return OccupancyGrid(np.zeros(2), cell, np.ones_like(free), ~free,
                         np.zeros(free.shape, np.int32) if object_cells is None else object_cells)


def expected_box_cells(grid: OccupancyGrid, lo, hi) -> np.ndarray:
    """Analytic: cells whose closed square meets the closed xy rectangle [lo, hi]."""
    H, W = grid.shape
    ix = np.arange(W)
    iy = np.arange(H)
    cx = grid.origin_xy[0] + grid.cell_m * ix
    cy = grid.origin_xy[1] + grid.cell_m * iy
    h = grid.cell_m / 2
    okx = (cx + h >= lo[0]) & (cx - h <= hi[0])
    oky = (cy + h >= lo[1]) & (cy - h <= hi[1])
    return oky[:, None] & okx[None, :]


# ------------------------------------------------------------------ occupancy


@pytest.mark.parametrize("grid_m", [0.05, 0.04, 0.06])  # nominal and Table S8's grid variants
def test_axis_aligned_boxes_match_analytic_footprints(grid_m):
    boxes = {2: ([0.513, 0.311, 0.0], [0.777, 0.502, 0.5]),
             3: ([1.337, 0.123, 0.2], [1.611, 0.877, 1.1]),  # floating box, still inside the slab
             4: ([0.211, 0.611, 1.9], [0.489, 0.888, 2.4])}  # entirely above max_z: not an obstacle
    parts = [(1, "floor", floor_quad(0, 0, 2, 1))] + [(k, f"b{k}", box(lo, hi)) for k, (lo, hi) in boxes.items()]
    mesh = mesh_of(parts)
    g = occupancy_from_mesh(mesh, {1}, GeometryParams(grid_m=grid_m))
    H, W = g.shape
    c = g.cell_to_world(*np.meshgrid(np.arange(W), np.arange(H)))
    assert np.array_equal(g.floor, (c[..., 0] <= 2.0) & (c[..., 1] <= 1.0))  # centre-covered cells only
    exp2 = expected_box_cells(g, boxes[2][0], boxes[2][1])
    exp3 = expected_box_cells(g, boxes[3][0], boxes[3][1])
    if grid_m == 0.05:
        assert g.shape == (20, 40) and np.allclose(g.origin_xy, [0.025, 0.025])
        assert exp2.sum() == 6 * 5 and exp3.sum() == 7 * 16  # counted by hand
    assert np.array_equal(g.occupied, exp2 | exp3)
    assert np.array_equal(g.object_cells == 2, exp2) and np.array_equal(g.object_cells == 3, exp3)
    # Footprints are the floor-plane projection at any height, so the high box has one too.
    assert np.array_equal(footprint_mask(g, 4), expected_box_cells(g, boxes[4][0], boxes[4][1]))
    assert not g.occupied[footprint_mask(g, 4)].any()
    # Footprints for chosen ids only; without one, footprint_mask falls back to object_cells.
    g4 = occupancy_from_mesh(mesh, {1}, GeometryParams(grid_m=grid_m), footprints=[4])
    assert set(g4.footprints) == {4} and np.array_equal(g4.occupied, g.occupied)
    assert np.array_equal(footprint_mask(g4, 2), exp2)
    # Deterministic: a rebuild is identical cell for cell.
    g2 = occupancy_from_mesh(mesh, {1}, GeometryParams(grid_m=grid_m))
    assert np.array_equal(g.occupied, g2.occupied) and np.array_equal(g.object_cells, g2.object_cells)


def test_slab_limits_low_and_high_geometry():
    parts = [(1, "floor", floor_quad(0, 0, 1, 1)),
             (2, "rug", box([0.1, 0.1, 0.0], [0.4, 0.4, 0.03])),      # below min_z 0.05
             (3, "shelf", box([0.6, 0.6, 1.85], [0.9, 0.9, 1.9])),    # above max_z 1.80
             (4, "step", box([0.6, 0.1, 0.0], [0.9, 0.4, 0.06]))]     # reaches into the slab
    g = occupancy_from_mesh(mesh_of(parts), {1}, P)
    assert set(np.unique(g.object_cells)) == {0, 4}


def test_thin_leg_and_zero_thickness_wall_never_missed():
    parts = [(1, "floor", floor_quad(0, 0, 1, 1)),
             (2, "leg_inside", box([0.312, 0.412, 0.0], [0.327, 0.427, 0.7])),  # 1.5 cm, inside one cell
             (3, "leg_straddle", box([0.594, 0.794, 0.0], [0.609, 0.809, 0.7])),  # straddles 4 cells
             (4, "wall_plane", plane_x(0.8, 0.0, 0.5, 0.0, 2.5))]  # on a cell boundary
    g = occupancy_from_mesh(mesh_of(parts), {1}, P)
    ys, xs = np.nonzero(g.object_cells == 2)
    assert list(zip(xs, ys)) == [(6, 8)]
    assert g.occupied[15:17, 11:13].all() and (g.object_cells == 3).sum() == 4
    # A plane exactly on the boundary x = 0.8 marks both neighbouring columns.
    col = g.occupied[:, 15] & g.occupied[:, 16]
    assert col[:10].all() and not g.occupied[11:, 15:17].any()


def test_rotated_boxes_against_open3d_inside_queries():
    """Independent check: sub-cell points (cell edges included) at several slab heights that
    open3d finds inside a closed obstacle must lie in occupied cells; occupied cells without
    such a point may only be corner clips, i.e. next to a confirmed cell."""
    import open3d as o3d
    from scipy import ndimage

    obstacles = [box([0.4, 0.4, 0.0], [0.9, 0.7, 0.8], rot_deg=23.0),
                 box([1.2, 0.3, 0.3], [1.5, 1.4, 1.2], rot_deg=-41.0),
                 trimesh.creation.icosphere(subdivisions=2, radius=0.27).apply_translation([0.6, 1.3, 0.6])]
    parts = [(1, "floor", floor_quad(0, 0, 2, 2))] + [(k + 2, f"o{k}", m) for k, m in enumerate(obstacles)]
    g = occupancy_from_mesh(mesh_of(parts), {1}, P)
    scene = o3d.t.geometry.RaycastingScene()
    for m in obstacles:
        scene.add_triangles(o3d.core.Tensor(np.asarray(m.vertices, np.float32)),
                            o3d.core.Tensor(np.asarray(m.faces, np.uint32)))
    H, W = g.shape
    iy, ix = np.mgrid[0:H, 0:W]
    centres = g.cell_to_world(ix.ravel(), iy.ravel())
    offs = np.linspace(-0.5, 0.5, 5) * g.cell_m
    heights = np.linspace(P.obstacle_min_z, P.obstacle_max_z, 12)
    ref = np.zeros(H * W, bool)
    for dx in offs:
        for dy in offs:
            for z in heights:
                q = np.column_stack([centres + [dx, dy], np.full(len(centres), z)]).astype(np.float32)
                ref |= scene.compute_occupancy(o3d.core.Tensor(q)).numpy().astype(bool)
    ref = ref.reshape(H, W)
    assert ref.sum() > 100
    assert not (ref & ~g.occupied).any(), "a cell with geometry inside it was left free"
    extra = g.occupied & ~ref
    assert not (extra & ~ndimage.binary_dilation(ref, np.ones((3, 3), bool))).any()
    assert extra.sum() <= 0.02 * ref.sum()  # measured: 0 of 362 cells differ


def test_floorless_cells_are_not_free_and_grid_queries():
    parts = [(1, "floor_a", floor_quad(0, 0, 1, 1)), (2, "floor_b", floor_quad(1.3, 0, 2, 1))]
    g = occupancy_from_mesh(mesh_of(parts), {1, 2}, P)
    gap = (g.cell_to_world(np.arange(g.shape[1]), 0)[:, 0] > 1.0) & (g.cell_to_world(np.arange(g.shape[1]), 0)[:, 0] < 1.3)
    assert gap.sum() == 6
    assert not g.floor[:, gap].any() and not g.free[:, gap].any() and g.free[:, ~gap].all()
    assert not segment_legal(g, (0.5, 0.5), (1.6, 0.5), 0.0, STEP)
    assert segment_legal(g, (0.1, 0.1), (0.9, 0.9), 0.0, STEP)
    assert g.world_to_cell((0.51, 0.49)) == (10, 9)
    assert np.allclose(g.cell_to_world(10, 9), (0.525, 0.475))
    assert not feasible_at(g, (-0.2, 0.5), 0.0) and not feasible_at(g, (5.0, 0.5), 0.0)
    # Clearance is centre-to-centre to the nearest non-free cell; outside the grid is non-free.
    assert g.clearance_m[0, 0] == pytest.approx(0.05)
    assert g.clearance_m[10, 5] == pytest.approx(0.3)  # 6 cells from the left border pad
    assert (g.clearance_m[:, gap] == 0).all()
    with pytest.raises(ValueError):
        occupancy_from_mesh(mesh_of(parts), {99}, P)


def test_fifty_thousand_triangles():
    """Correct on a 51k-triangle scene (its speed, ~0.3 s idle, is bench/egopath_graph.py's to measure:
    a timed assertion fails on a loaded machine, e.g. under mutation testing)."""
    spheres = [trimesh.creation.icosphere(subdivisions=4, radius=0.2).apply_translation([0.5 + 0.9 * (k % 5), 0.6 + 1.1 * (k // 5), 0.5])
               for k in range(10)]
    parts = [(1, "floor", floor_quad(0, 0, 5, 2.8))] + [(k + 2, f"s{k}", s) for k, s in enumerate(spheres)]
    mesh = mesh_of(parts)
    assert len(mesh.triangles) > 50_000
    g = occupancy_from_mesh(mesh, {1}, P)
    assert (np.unique(g.object_cells) > 0).sum() == 10


# ------------------------------------------------------------------ feasibility


def corridor_scene(gap: float) -> OccupancyGrid:
    """3 x 2 m floor; two 1 m long walls leave a corridor of `gap` metres along x."""
    y0 = 0.737
    parts = [(1, "floor", floor_quad(0, 0, 3, 2)),
             (2, "wall_s", box([1.0, 0.2, 0.0], [2.0, y0, 1.0])),
             (3, "wall_n", box([1.0, y0 + gap, 0.0], [2.0, 1.8, 1.0]))]
    return occupancy_from_mesh(mesh_of(parts), {1}, P)


def test_agent_radius():
    assert agent_radius("point", P) == 0.0 and agent_radius("embodied", P) == 0.30
    with pytest.raises(ValueError):
        agent_radius("robot", P)


def test_half_metre_corridor_point_legal_embodied_illegal():
    g = corridor_scene(0.5)
    a, b = (0.5, 0.987), (2.5, 0.987)
    assert feasible_at(g, a, R) and feasible_at(g, b, R)
    assert segment_legal(g, a, b, 0.0, STEP)
    assert not segment_legal(g, a, b, R, STEP)
    # 9 fully free rows between the walls: the best centre is 5 cells (0.25 m) from a wall.
    assert g.clearance_m[:, 25:35].max() == pytest.approx(0.25)
    pts = {1: a, 2: b, 3: (1.5, 0.5, 0.0)}  # 3 is inside the south wall
    Gp, Ge = feasibility_graph(g, pts, 0.0, STEP), feasibility_graph(g, pts, R, STEP)
    assert Gp.has_edge(1, 2) and not Ge.has_edge(1, 2)
    assert Gp.nodes[3]["feasible"] is False and set(Gp.nodes) == {1, 2, 3}
    assert Gp.edges[1, 2]["weight"] == pytest.approx(2.0)
    assert sheet_edges(Gp) == [[1, 2]] and sheet_edges(Ge) == []
    pf, ef, cl = waypoint_labels(g, [a, (1.5, 0.987), (1.5, 0.5), (9.0, 9.0)], P)
    assert pf.tolist() == [True, True, False, False] and ef.tolist() == [True, False, False, False]
    assert cl[1] == pytest.approx(0.25) and cl[2] == 0.0 and cl[3] == 0.0 and cl[0] >= R


def test_eighty_cm_gap_both_legal():
    g = corridor_scene(0.8)
    a, b = (0.5, 1.137), (2.5, 1.137)
    assert segment_legal(g, a, b, 0.0, STEP) and segment_legal(g, a, b, R, STEP)
    assert feasibility_graph(g, {1: a, 2: b}, R, STEP).has_edge(1, 2)


def test_segment_sampling_hits_a_single_blocked_cell():
    free = np.ones((40, 40), bool)
    free[10, 20] = False
    g = hand_grid(free)
    y = g.cell_to_world(0, 10)[1]
    assert not segment_legal(g, (0.1, y), (1.8, y), 0.0, STEP)
    assert segment_legal(g, (0.1, y + 0.05), (1.8, y + 0.05), 0.0, STEP)
    # Embodied: the swept disk must also stay 0.3 m from it.
    assert not segment_legal(g, (0.1, y + 0.25), (1.8, y + 0.25), R, STEP)
    assert segment_legal(g, (0.3, y + 0.35), (1.6, y + 0.35), R, STEP)


def test_goal_ring_hand_counts_and_bruteforce():
    free = np.ones((41, 41), bool)
    free[20, 20] = False
    oc = np.zeros((41, 41), np.int32)
    oc[20, 20] = 7
    g = hand_grid(free, object_cells=oc)
    # Lattice points within 1, 2, 3 cells of the footprint cell, minus the cell itself.
    for ring, n in ((0.05, 4), (0.10, 12), (0.15, 28)):
        assert goal_mask(g, 7, 0.0, ring).sum() == n
    with pytest.raises(ValueError):
        goal_mask(g, 99, 0.0, 0.1)
    # Bigger footprint, embodied and point, against a brute-force distance loop.
    free = np.ones((40, 60), bool)
    oc = np.zeros((40, 60), np.int32)
    free[15:22, 25:31] = False
    oc[15:22, 25:31] = 7
    free[0:6, 0:60] = False  # a wall band that limits embodied feasibility
    g = hand_grid(free, object_cells=oc)
    fp = np.argwhere(oc == 7)
    for radius in (0.0, R):
        feas = feasible_mask(g, radius)
        for ring in (0.05, 0.10, 0.15):
            exp = np.zeros_like(free)
            for iy, ix in np.argwhere(feas):
                d = np.sqrt(((fp - [iy, ix]) ** 2).sum(axis=1)).min() * g.cell_m
                exp[iy, ix] = d <= radius + ring + 1e-9
            got = goal_mask(g, 7, radius, ring)
            assert np.array_equal(got, exp) and got.sum() > 0
    # Embodied goal cells keep the body off the target: distance >= radius.
    emb = goal_mask(g, 7, R, 0.10)
    assert (g.clearance_m[emb] >= R - 1e-9).all()


def _reference_grid_cost(feas: np.ndarray, s, goal: np.ndarray) -> float:
    """Plain networkx Dijkstra over an explicitly built 8-connected, no-corner-cutting grid graph."""
    H, W = feas.shape
    G = nx.Graph()
    for y in range(H):
        for x in range(W):
            if not feas[y, x]:
                continue
            G.add_node((y, x))
            for dy, dx in ((0, 1), (1, 0), (1, 1), (1, -1)):
                yy, xx = y + dy, x + dx
                if not (0 <= yy < H and 0 <= xx < W) or not feas[yy, xx]:
                    continue
                if dy and dx and not (feas[y, xx] and feas[yy, x]):
                    continue
                G.add_edge((y, x), (yy, xx), weight=math.sqrt(2) if (dy and dx) else 1.0)
    dist = nx.single_source_dijkstra_path_length(G, s)
    ds = [dist[(y, x)] for y, x in np.argwhere(goal) if (y, x) in dist]
    return min(ds) if ds else math.inf


def test_grid_path_no_corner_cutting():
    free = np.ones((3, 3), bool)
    free[0, 1] = free[1, 0] = False
    g = hand_grid(free)
    goal = np.zeros((3, 3), bool)
    goal[1, 1] = True
    assert grid_path(g, g.cell_to_world(0, 0), goal, 0.0) is None  # the only move cuts two corners
    free = np.ones((3, 3), bool)
    free[0, 1] = False
    g = hand_grid(free)
    path = grid_path(g, g.cell_to_world(0, 0), goal, 0.0)
    assert len(path) == 3  # around the blocked cell: 2 orthogonal steps, not one diagonal
    steps = np.hypot(*np.diff(np.array(path), axis=0).T)
    assert np.allclose(steps, 0.05)


def test_grid_path_matches_reference_dijkstra():
    rng = np.random.default_rng(7)
    free = rng.random((30, 40)) > 0.3
    free[2, 2] = True
    g = hand_grid(free)
    goal = np.zeros_like(free)
    goal[25:28, 33:37] = True
    goal &= free
    path = grid_path(g, g.cell_to_world(2, 2), goal, 0.0)
    ref = _reference_grid_cost(free, (2, 2), goal)
    if math.isinf(ref):
        assert path is None
    else:
        assert path is not None
        cost = np.hypot(*np.diff(np.array(path), axis=0).T).sum() / g.cell_m
        assert cost == pytest.approx(ref)
        cells = [g.world_to_cell(p) for p in path]
        assert all(free[iy, ix] for ix, iy in cells) and goal[cells[-1][1], cells[-1][0]]
    # Infeasible start -> None; start already in the goal -> just the start.
    assert grid_path(g, (-1.0, -1.0), goal, 0.0) is None
    s = g.cell_to_world(*np.argwhere(goal)[0][::-1])
    assert len(grid_path(g, s, goal, 0.0)) == 1


def test_sparsify_keeps_every_segment_legal():
    rng = np.random.default_rng(3)
    free = np.ones((60, 80), bool)
    for _ in range(25):
        y, x = rng.integers(0, 55), rng.integers(0, 75)
        free[y:y + rng.integers(2, 6), x:x + rng.integers(2, 6)] = False
    free[:, :2] = free[:, -2:] = False
    g = hand_grid(free)
    for radius in (0.0, 0.12):
        feas = feasible_mask(g, radius)
        starts = np.argwhere(feas)
        s = g.cell_to_world(*starts[0][::-1])
        goal = np.zeros_like(free)
        goal[np.argwhere(feas)[-1][0], np.argwhere(feas)[-1][1]] = True
        path = grid_path(g, s, goal, radius)
        assert path is not None and len(path) > 20
        sp = sparsify(g, path, radius, STEP)
        assert np.allclose(sp[0], path[0]) and np.allclose(sp[-1], path[-1])
        assert 2 <= len(sp) < len(path) // 3
        for p, q in zip(sp[:-1], sp[1:]):
            assert segment_legal(g, p, q, radius, STEP)
        L = lambda pts: np.hypot(*np.diff(np.array(pts), axis=0).T).sum()
        assert L(sp) <= L(path) + 1e-9


def test_shortest_route_and_route_length():
    G = nx.Graph()
    pts = {1: (0, 0, 0), 2: (3, 0, 0), 3: (3, 4, 0), 4: (0, 4, 0), 5: (10, 10, 0)}
    for i in pts:
        G.add_node(i, feasible=True)
    for a, b in ((1, 2), (2, 3), (1, 4), (4, 3), (1, 3)):
        G.add_edge(a, b, weight=route_length(pts, [a, b]))
    assert route_length(pts, [1, 2, 3]) == pytest.approx(7.0)
    assert route_length({"1": [0, 0, 5], "2": [3, 4, 9]}, [1, 2]) == pytest.approx(5.0)  # xy only, str keys
    assert route_length(pts, [1]) == 0.0
    with pytest.raises(KeyError):
        route_length(pts, [1, 9])
    assert shortest_route(G, 1, [3]) == (pytest.approx(5.0), [1, 3])
    G.remove_edge(1, 3)
    assert shortest_route(G, 1, [3, 4]) == (pytest.approx(4.0), [1, 4])
    assert shortest_route(G, 1, [3]) == (pytest.approx(7.0), [1, 2, 3])
    assert shortest_route(G, 2, [2]) == (0.0, [2])
    assert shortest_route(G, 1, [5]) is None


def test_narrow_fraction_against_bruteforce():
    free = np.ones((40, 100), bool)
    free[15, 40:60] = False
    free[25, 40:60] = False
    g = hand_grid(free)
    blocked = np.argwhere(~free)
    y = 20
    a, b = g.cell_to_world(10, y), g.cell_to_world(90, y)
    narrow_len = 0.0
    for x in range(10, 91):
        d = np.sqrt(((blocked - [y, x]) ** 2).sum(axis=1)).min() * g.cell_m
        share = 0.5 if x in (10, 90) else 1.0
        if d < R + 0.15 - 1e-9:
            narrow_len += share
    exp = narrow_len / 80
    assert 0.25 < exp < 0.6
    assert narrow_fraction(g, [a, b], R, 0.15) == pytest.approx(exp, abs=1e-9)
    assert narrow_fraction(g, [a, (a + b) / 2, b], R, 0.15) == pytest.approx(exp, abs=1e-9)
    assert narrow_fraction(g, [a, b], 0.0, 0.15) == 0.0  # clearance 0.25 >= 0 + 0.15 everywhere
    assert narrow_fraction(g, [a], R) == 0.0


# ------------------------------------------------------------------ corridor audit


W_PX, H_PX = 160, 120
K = np.array([[120.0, 0, (W_PX - 1) / 2], [0, 120.0, (H_PX - 1) / 2], [0, 0, 1]])
CAM = look_at((0.0, 0.0, 1.5), (0.0, 4.0, 0.0))
A, B = (-0.5, 3.0, 0.0), (0.5, 3.0, 0.0)


def render(extra_parts):
    mesh = mesh_of([(1, "floor", floor_quad(-6, -6, 6, 8))] + extra_parts)
    ids, depth = Raycaster(mesh).first_hit_ids_for_pixels(K, CAM, W_PX, H_PX)
    return depth, ids


def test_corridor_samples_geometry():
    S = corridor_samples(A, B, R, 0.05, [0.05, 1.0, 1.8])
    assert len(S) == 21 * 3 * (1 + 3 * 12)
    dist = np.abs(S[:, 1] - 3.0)  # the segment lies along y = 3
    assert dist.max() == pytest.approx(R) and S[:, 0].min() == pytest.approx(-0.5 - R)
    assert set(np.round(S[:, 2], 6)) == {0.05, 1.0, 1.8}


def test_audit_depth_index_inconclusive():
    # Depth: an obstacle stands in the swept corridor.
    depth, ids = render([(5, "box", box([-0.1, 2.9, 0.0], [0.1, 3.1, 0.6]))])
    assert (ids == 5).sum() > 20
    assert audit_edge(A, B, P, K, CAM, depth, ids, {1}) == "depth"
    # Just inside (0.25 m from the segment) vs just outside (0.35 m, between camera and corridor).
    depth, ids = render([(5, "box", box([-0.1, 2.55, 0.0], [0.1, 2.75, 1.0]))])
    assert audit_edge(A, B, P, K, CAM, depth, ids, {1}) == "depth"
    depth, ids = render([(5, "box", box([-0.1, 2.45, 0.0], [0.1, 2.65, 1.0]))])
    assert audit_edge(A, B, P, K, CAM, depth, ids, {1}) == "index"
    # Index: a screen well in front of the corridor hides it, nothing visible inside the corridor.
    screen = [(6, "screen", box([-1.5, 1.4, 0.0], [1.5, 1.6, 1.7]))]
    depth, ids = render(screen)
    assert audit_edge(A, B, P, K, CAM, depth, ids, {1}) == "index"
    # The same occluder declared a wall only says "out of sight": inconclusive.
    assert audit_edge(A, B, P, K, CAM, depth, ids, {1}, wall_ids={6}) == "inconclusive"
    # Clear and visible corridor: no evidence either way.
    depth, ids = render([])
    assert audit_edge(A, B, P, K, CAM, depth, ids, {1}) == "inconclusive"
    # An edge that starts behind the camera plane still finds the obstacle ahead.
    depth, ids = render([(5, "box", box([-0.1, 2.4, 0.0], [0.1, 2.6, 0.6]))])
    assert audit_edge((0.0, -1.0, 0.0), (0.0, 3.0, 0.0), P, K, CAM, depth, ids, {1}) == "depth"
    assert audit_edge((1.0, -1.0, 0.0), (1.0, 3.0, 0.0), P, K, CAM, depth, ids, {1}) == "inconclusive"
    # Out of frame (behind the camera).
    depth, ids = render([(5, "box", box([-0.1, -3.1, 0.0], [0.1, -2.9, 0.6]))])
    assert audit_edge((-0.5, -3.0, 0.0), (0.5, -3.0, 0.0), P, K, CAM, depth, ids, {1}) == "inconclusive"
    with pytest.raises(ValueError):
        audit_edge(A, B, P, K, CAM, depth, ids[:10], {1})


def test_audit_summary():
    s = audit_summary(["depth"] * 6 + ["index"] * 1 + ["inconclusive"] * 3)
    assert (s["n"], s["depth"], s["index"], s["inconclusive"], s["explained"]) == (10, 6, 1, 3, 7)
    assert s["depth_share"] == pytest.approx(0.6) and s["explained_share"] == pytest.approx(0.7)
    assert s["inconclusive_share"] == pytest.approx(0.3)
    assert audit_summary([])["explained_share"] is None
    with pytest.raises(ValueError):
        audit_summary(["depth", "maybe"])
