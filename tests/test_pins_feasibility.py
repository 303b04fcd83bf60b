"""Pinned values for geometry/feasibility.py: hand-built grids, shortest paths checked against an
independently built networkx grid graph, clearance/goal rings against brute-force distances."""
from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from geometry.egopath_schema import GeometryParams
from geometry.feasibility import (
    CLEARANCE_CAP_M,
    _segment_samples,
    agent_radius,
    feasibility_graph,
    feasible_at,
    feasible_mask,
    goal_mask,
    grid_path,
    narrow_fraction,
    route_length,
    segment_legal,
    segments_legal,
    shortest_route,
    sheet_edges,
    sparsify,
    waypoint_labels,
)
from geometry.occupancy import OccupancyGrid

C = 0.05


def grid(free, cell=C, origin=(0.0, 0.0), object_cells=None, footprints=None):
    free = np.asarray(free, bool)
    g = OccupancyGrid(origin, cell, np.ones_like(free), ~free, object_cells)
    if footprints:
        g.footprints = footprints
    return g


def xy(ix, iy, cell=C):
    return np.array([ix * cell, iy * cell])


# ------------------------------------------------------------------ radii and masks


def test_agent_radius():
    assert agent_radius("point") == 0.0
    assert agent_radius("embodied") == 0.30
    assert agent_radius("embodied", GeometryParams(body_radius_m=0.25)) == 0.25
    with pytest.raises(ValueError, match="unknown agent"):
        agent_radius("robot")


def test_feasible_mask_threshold_just_inside_and_outside():
    free = np.ones((13, 13), bool)
    g = grid(free)
    # centre cell (6, 6): nearest non-free cell is the padding 7 cells away -> 0.35 m
    assert g.clearance_m[6, 6] == pytest.approx(0.35)
    assert feasible_mask(g, 0.35)[6, 6] and not feasible_mask(g, 0.35 + 1e-6)[6, 6]
    # 0.30 = 6 cells: cells with clearance exactly 6 * 0.05 count (float noise forgiven)
    m = feasible_mask(g, 0.30)
    assert m[6].tolist() == [False] * 5 + [True] * 3 + [False] * 5
    assert feasible_mask(g, 0.0).tolist() == g.free.tolist()
    free[0, 0] = False
    assert not feasible_mask(grid(free), 0.0)[0, 0] and feasible_mask(grid(free), 0.0)[0, 1]
    with pytest.raises(ValueError, match="radius"):
        feasible_mask(g, -0.01)


def test_feasible_at():
    free = np.ones((3, 4), bool)
    free[1, 2] = False
    g = grid(free)
    assert feasible_at(g, xy(1, 1), 0.0) is True
    assert feasible_at(g, xy(2, 1), 0.0) is False
    assert feasible_at(g, [xy(3, 2)[0], xy(3, 2)[1], 7.0], 0.0) is True  # z ignored
    assert feasible_at(g, xy(4, 1), 0.0) is False  # outside
    assert feasible_at(g, xy(-1, 1), 0.0) is False
    assert feasible_at(g, xy(1, 1), 0.05) is True and feasible_at(g, xy(1, 1), 0.051) is False
    with pytest.raises(ValueError, match="at least x and y"):
        feasible_at(g, [0.1], 0.0)


# ------------------------------------------------------------------ segments


def test_segment_samples_counts_and_ends():
    a = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    b = np.array([[0.1, 0.0], [0.12, 0.0], [1.0, 1.0], [0.0, 0.1 + 1e-12]])
    pts, owner = _segment_samples(a, b, 0.05)
    assert owner.tolist() == [0, 0, 0, 1, 1, 1, 1, 2, 3, 3, 3]
    np.testing.assert_allclose(pts[:7, 0], [0, 0.05, 0.1, 0, 0.05, 0.1, 0.12])
    np.testing.assert_allclose(pts[7], [1.0, 1.0])
    assert pts[10, 1] == 0.1 + 1e-12  # far end exact
    with pytest.raises(ValueError, match="step_m"):
        _segment_samples(a, b, 0.0)


def test_segment_legality_blocked_cell_ends_and_swept_disk():
    free = np.ones((5, 10), bool)
    free[2, 5] = False
    g = grid(free)
    assert segment_legal(g, xy(0, 2), xy(9, 2), 0.0, C) is False  # crosses the blocked cell
    assert segment_legal(g, xy(0, 1), xy(9, 1), 0.0, C) is True
    assert segment_legal(g, xy(0, 2), xy(5, 2), 0.0, 1.0) is False  # far end sampled even with a huge step
    assert segment_legal(g, xy(5, 2), xy(0, 2), 0.0, 1.0) is False  # near end too
    assert segment_legal(g, xy(0, 2), xy(9, 2), 0.0, 1.0) is True  # a huge step skips the cell (documented)
    assert segment_legal(g, xy(0, 0), xy(10, 0), 0.0, C) is False  # leaves the grid
    # swept disk of 0.05 m: row 1 passes next to the blocked cell (clearance 0.05 there) -> legal at 0.05
    assert segment_legal(g, xy(1, 1), xy(8, 1), 0.05, C) is True
    assert segment_legal(g, xy(1, 1), xy(8, 1), 0.06, C) is False
    got = segments_legal(g, [xy(0, 2), xy(0, 1)], [xy(9, 2), xy(9, 1)], 0.0, C)
    assert got.tolist() == [False, True]
    assert segments_legal(g, np.zeros((0, 2)), np.zeros((0, 2)), 0.0, C).shape == (0,)
    with pytest.raises(ValueError, match="same shape"):
        segments_legal(g, [xy(0, 2), xy(0, 1)], [xy(9, 2)], 0.0, C)


def test_feasibility_graph_nodes_edges_weights():
    free = np.ones((5, 10), bool)
    free[1:4, 5] = False
    g = grid(free)
    pts = {3: xy(1, 2), 1: xy(8, 2), 7: xy(1, 0), 2: xy(5, 2)}  # 2 sits on an obstacle
    G = feasibility_graph(g, pts, 0.0, C)
    assert sorted(G.nodes) == [1, 2, 3, 7]
    assert G.nodes[2]["feasible"] is False and G.nodes[3]["feasible"] is True
    assert G.nodes[3]["xy"] == (0.05, 0.1)
    assert sheet_edges(G) == [[3, 7]]  # 3 -> 1 and 7 -> 1 cross the wall
    assert G.edges[3, 7]["weight"] == pytest.approx(0.1)
    G2 = feasibility_graph(g, {1: xy(1, 2), 2: xy(1, 4)}, 0.0, C)
    assert sheet_edges(G2) == [[1, 2]]
    G1 = feasibility_graph(g, {1: xy(1, 2), 2: xy(5, 2)}, 0.0, C)
    assert list(G1.edges) == [] and len(G1) == 2
    assert len(feasibility_graph(g, {}, 0.0, C)) == 0


def test_goal_mask_ring_against_brute_force():
    free = np.ones((12, 12), bool)
    oc = np.zeros((12, 12), np.int32)
    free[5:7, 5:7] = False
    oc[5:7, 5:7] = 4
    g = grid(free, object_cells=oc)
    m = goal_mask(g, 4, 0.0, 0.10)
    fp = [(x, y) for y in (5, 6) for x in (5, 6)]
    for y in range(12):
        for x in range(12):
            d = min(math.hypot(x - fx, y - fy) for fx, fy in fp) * C
            assert m[y, x] == (free[y, x] and d <= 0.10 + 1e-12), (x, y)
    assert m[5, 3] and not m[5, 2] and m[4, 4] and not m[3, 3]
    emb = goal_mask(g, 4, 0.05, 0.05)
    feas = feasible_mask(g, 0.05)
    for y in range(12):
        for x in range(12):
            d = min(math.hypot(x - fx, y - fy) for fx, fy in fp) * C
            assert emb[y, x] == (feas[y, x] and d <= 0.10 + 1e-12)
    with pytest.raises(ValueError, match="ring_m"):
        goal_mask(g, 4, 0.0, -0.01)
    with pytest.raises(ValueError, match="no footprint"):
        goal_mask(g, 5, 0.0, 0.1)
    assert goal_mask(g, 4, 0.0, 0.0).sum() == 0  # footprint cells are obstacles, not feasible


# ------------------------------------------------------------------ grid paths


def nx_cell_graph(feas):
    """8-connected, no corner cutting: built independently of the module."""
    G = nx.Graph()
    H, W = feas.shape
    for y in range(H):
        for x in range(W):
            if not feas[y, x]:
                continue
            for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                x2, y2 = x + dx, y + dy
                if not (0 <= x2 < W and 0 <= y2 < H) or not feas[y2, x2]:
                    continue
                if dx and dy and not (feas[y, x2] and feas[y2, x]):
                    continue
                G.add_edge((x, y), (x2, y2), weight=math.sqrt(dx * dx + dy * dy))
    return G


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_grid_path_length_matches_networkx(seed):
    rng = np.random.default_rng(seed)
    free = rng.random((14, 18)) > 0.3
    free[1, 1] = True
    g = grid(free)
    goal = np.zeros_like(free)
    goal[12, 15:17] = True
    G = nx_cell_graph(free)
    path = grid_path(g, xy(1, 1), goal, 0.0)
    targets = [(x, y) for y, x in zip(*np.nonzero(goal & free))]
    try:
        want = min(nx.dijkstra_path_length(G, (1, 1), t) for t in targets if t in G and (1, 1) in G
                   and nx.has_path(G, (1, 1), t))
    except ValueError:
        want = None
    if want is None:
        assert path is None
        return
    P = np.array(path)
    steps = np.hypot(*np.diff(P, axis=0).T) / C
    assert steps.sum() == pytest.approx(want)
    assert np.all((np.abs(steps - 1) < 1e-9) | (np.abs(steps - math.sqrt(2)) < 1e-9))
    ix, iy = g.world_to_cell(P)
    assert free[iy, ix].all() and goal[iy[-1], ix[-1]]
    np.testing.assert_allclose(P[0], xy(1, 1))


def test_grid_path_corner_cutting_and_special_cases():
    free = np.ones((3, 3), bool)
    free[0, 1] = False  # blocks the diagonal (0,0) -> (1,1)'s corner
    g = grid(free)
    goal = np.zeros((3, 3), bool)
    goal[1, 1] = True
    p = grid_path(g, xy(0, 0) + 0.01, goal, 0.0)
    np.testing.assert_allclose(p[0], xy(0, 0) + 0.01)  # the start itself, not its centre
    np.testing.assert_allclose(p[1:], [xy(0, 1), xy(1, 1)])
    assert len(grid_path(g, xy(1, 1), goal, 0.0)) == 1  # start in the goal
    assert grid_path(g, xy(1, 0), goal, 0.0) is None  # start infeasible
    assert grid_path(g, xy(-1, 0), goal, 0.0) is None and grid_path(g, xy(3, 0), goal, 0.0) is None
    assert grid_path(g, xy(0, -1), goal, 0.0) is None and grid_path(g, xy(0, 3), goal, 0.0) is None
    assert grid_path(g, xy(0, 0), np.zeros((3, 3), bool), 0.0) is None
    blocked_goal = np.zeros((3, 3), bool)
    blocked_goal[0, 1] = True
    assert grid_path(g, xy(0, 0), blocked_goal, 0.0) is None  # goal only on infeasible cells
    wall = np.ones((3, 3), bool)
    wall[:, 1] = False
    goal2 = np.zeros((3, 3), bool)
    goal2[:, 2] = True
    assert grid_path(grid(wall), xy(0, 0), goal2, 0.0) is None  # unreachable
    with pytest.raises(ValueError, match="goal mask shape"):
        grid_path(g, xy(0, 0), np.zeros((2, 2), bool), 0.0)


def test_grid_path_tie_breaks_to_first_goal_in_flat_order():
    g = grid(np.ones((3, 5), bool))
    goal = np.zeros((3, 5), bool)
    goal[0, 4] = goal[2, 0] = True  # (4,0) and (0,2) both 2 steps from (2,1)... flat 4 < 10
    p = grid_path(g, xy(2, 1), goal, 0.0)
    np.testing.assert_allclose(p[-1], xy(4, 0))


def test_sparsify_keeps_corners_around_an_obstacle():
    free = np.ones((6, 6), bool)
    free[0:4, 2] = False
    g = grid(free)
    path = [xy(0, 0), xy(0, 1), xy(0, 2), xy(0, 3), xy(0, 4), xy(1, 4), xy(2, 4), xy(3, 4), xy(3, 3), xy(3, 0)]
    out = sparsify(g, path, 0.0, C / 2)
    for p, q in zip(out[:-1], out[1:]):
        assert segment_legal(g, p, q, 0.0, C / 2)
    assert 3 <= len(out) < len(path)
    np.testing.assert_allclose(out, [xy(0, 0), xy(1, 4), xy(3, 4), xy(3, 0)])  # (0,0)->(2,4) clips cell (2,3)
    # an illegal consecutive pair is kept as is
    bad = sparsify(g, [xy(1, 0), xy(3, 0), xy(4, 0)], 0.0, C / 2)
    np.testing.assert_allclose(bad, [xy(1, 0), xy(3, 0), xy(4, 0)])
    assert [p.tolist() for p in sparsify(g, [xy(0, 0), xy(5, 5)], 0.0, C)] == [xy(0, 0).tolist(), xy(5, 5).tolist()]
    assert sparsify(g, [], 0.0, C) == []


# ------------------------------------------------------------------ routes over waypoints


def test_shortest_route():
    G = nx.Graph()
    G.add_edge(1, 2, weight=1.0)
    G.add_edge(2, 3, weight=1.0)
    G.add_edge(1, 4, weight=2.0)
    G.add_node(9)
    assert shortest_route(G, 1, [4, 3]) == (2.0, [1, 2, 3])  # tie at 2.0: the smaller goal id
    assert shortest_route(G, 1, [3]) == (2.0, [1, 2, 3])
    assert shortest_route(G, 1, [1, 3]) == (0.0, [1])
    assert shortest_route(G, 5, [5]) == (0.0, [5])  # start is a goal even if not in the graph
    assert shortest_route(G, 5, [1]) is None
    assert shortest_route(G, 1, []) is None
    assert shortest_route(G, 1, [9]) is None
    G.add_edge(2, 5, weight=0.5)
    assert shortest_route(G, 1, [5, 4]) == (1.5, [1, 2, 5])


def test_route_length():
    pts = {1: [0, 0, 5], "2": [3, 4, 0], 3: [3, 0]}
    assert route_length(pts, [1, 2, 3]) == pytest.approx(9.0)
    assert route_length(pts, [1]) == 0.0 and route_length(pts, []) == 0.0
    with pytest.raises(KeyError, match=r"\[7\]"):
        route_length(pts, [1, 7])


def test_narrow_fraction_worked_example():
    g = grid(np.ones((5, 40), bool))
    # 5 rows: clearance 0.05 on rows 0/4, 0.10 on 1/3, 0.15 on row 2 (away from the ends)
    assert narrow_fraction(g, [xy(10, 2), xy(20, 2)], 0.0, margin_m=0.15) == 0.0
    assert narrow_fraction(g, [xy(10, 2), xy(20, 2)], 0.01, margin_m=0.15) == 1.0
    assert narrow_fraction(g, [xy(10, 1), xy(20, 1)], 0.0, margin_m=0.10) == 0.0
    assert narrow_fraction(g, [xy(10, 1), xy(20, 1)], 0.0, margin_m=0.1001) == 1.0
    # 0.5 m on row 2 (not narrow), 0.1 m down to row 0 (0.025 m of it still in row 2), 0.1 m on row 0
    f = narrow_fraction(g, [xy(10, 2), xy(20, 2), xy(20, 0), xy(20, 0) + [0.1, 0]], 0.0, margin_m=0.15)
    assert f == pytest.approx(0.175 / 0.7)
    # beyond the grid the clearance is 0: 0.275 of the 0.35 m (22 of 28 quarter-cell pieces) lies outside
    out = narrow_fraction(g, [xy(38, 2), xy(45, 2)], 0.0, margin_m=0.0001)
    assert out == pytest.approx(22 / 28)
    assert narrow_fraction(g, [xy(1, 1)], 0.3) == 0.0
    assert narrow_fraction(g, [xy(1, 1), xy(1, 1)], 0.3) == 0.0
    assert narrow_fraction(g, [], 0.3) == 0.0


def test_waypoint_labels_and_cap():
    free = np.ones((30, 30), bool)
    g = grid(free, cell=0.5)
    pf, ef, cl = waypoint_labels(g, [xy(15, 15, 0.5), xy(0, 0, 0.5), xy(40, 0, 0.5)])
    assert pf.tolist() == [True, True, False]
    assert ef.tolist() == [True, True, False]
    assert cl.tolist() == [CLEARANCE_CAP_M, 0.5, 0.0] and CLEARANCE_CAP_M == 5.0
    small = grid(np.ones((11, 11), bool))
    pf, ef, cl = waypoint_labels(small, [xy(5, 5), xy(1, 5)])
    assert pf.tolist() == [True, True] and ef.tolist() == [True, False]
    assert cl.tolist() == pytest.approx([0.30, 0.10])
    bigger = grid(np.ones((13, 13), bool))
    assert waypoint_labels(bigger, [xy(6, 6)])[1].tolist() == [True]
    assert waypoint_labels(bigger, [xy(6, 6)], GeometryParams(body_radius_m=0.36))[1].tolist() == [False]


# ---------------------------------------------------------------- session 4 pins (h16a)

def test_clearance_tolerance_is_exactly_1e9_on_every_threshold():
    # one row of 0.25 m cells: every clearance is one cell (the world beyond the grid is not free)
    g = grid(np.ones((1, 4), bool), cell=0.25)
    assert np.allclose(g.clearance_m, 0.25)
    # feasible: clearance >= radius - 1e-9; (0.25 + 1e-9) - 1e-9 == 0.25 exactly in floats
    assert feasible_mask(g, 0.25 + 1e-9).all()
    assert not feasible_mask(g, 0.25 + 3e-9).any()
    # radius 1 is no special case: a 0.25 m clearance cannot hold a 1 m body
    assert not feasible_mask(g, 1.0).any() and feasible_mask(g, 0.0).all()
    # goal: within radius + ring + 1e-9 of the footprint; with 1 m cells the neighbour is at exactly 1 m
    oc = np.zeros((1, 3), np.int32)
    oc[0, 0] = 4
    free = np.array([[False, True, True]])
    gg = grid(free, cell=1.0, object_cells=oc)
    assert goal_mask(gg, 4, 0.0, 1.0 - 1e-9).tolist() == [[False, True, False]]
    assert goal_mask(gg, 4, 0.0, 1.0 - 3e-9).tolist() == [[False, False, False]]
    # narrow: clearance < radius + margin - 1e-9; a clearance of exactly (r + m) - 1e-9 is not narrow
    g1 = grid(np.ones((1, 6), bool), cell=1.0)
    path = [xy(1, 0, 1.0), xy(4, 0, 1.0)]
    assert narrow_fraction(g1, path, 0.0, margin_m=1.0 + 1e-9) == 0.0
    assert narrow_fraction(g1, path, 0.0, margin_m=1.0 + 3e-9) == 1.0


def test_narrow_fraction_default_margin_is_15_cm():
    g = grid(np.ones((5, 40), bool))  # clearance 0.15 m on the middle row, 0.10 m on rows 1 and 3
    assert narrow_fraction(g, [xy(10, 2), xy(20, 2)], 0.0) == 0.0      # 0.15 is not < 0 + 0.15
    assert narrow_fraction(g, [xy(10, 1), xy(20, 1)], 0.0) == 1.0      # 0.10 < 0.15
    assert narrow_fraction(g, [xy(10, 2), xy(20, 2)], 0.001) == 1.0    # 0.15 < 0.151


def test_narrow_fraction_short_segment_counts_for_its_midpoint_cell():
    # 1 m cells (quarter-cell pieces of 0.25 m); cell 0 spans x < 0.5. Row 1 of a 3 x 6 grid with the
    # cells above and below cell 0 occupied: cell (0, 1) has clearance 1, cell (1, 1) sqrt 2.
    g = OccupancyGrid((0.0, 0.0), 1.0, np.ones((3, 6), bool), np.zeros((3, 6), bool), None)
    g.occupied[0, 0] = g.occupied[2, 0] = True
    assert g.clearance_m[1, 0] == 1.0 and g.clearance_m[1, 1] == pytest.approx(math.sqrt(2))
    # a 0.1875 m segment from 0.375 to 0.5625 is one piece; its midpoint 0.46875 lies in cell 0 (narrow
    # under a 1.2 m margin), so all of it is narrow (quarter and three-quarter points would split it)
    seg = [[0.375, 1.0], [0.5625, 1.0]]
    assert narrow_fraction(g, seg, 0.0, margin_m=1.2) == 1.0   # midpoint in cell 0: narrow
    seg = [[0.4375, 1.0], [0.625, 1.0]]                        # midpoint 0.53125: cell 1, wide
    assert narrow_fraction(g, seg, 0.0, margin_m=1.2) == 0.0


def test_cell_graph_paths_along_the_last_row_and_column():
    # a one-row and a one-column corridor: every move lies in the grid's last row / column
    g = grid(np.ones((1, 5), bool), cell=1.0)
    goal = np.zeros((1, 5), bool)
    goal[0, 4] = True
    path = grid_path(g, (0.0, 0.0), goal, 0.0)
    assert [p.tolist() for p in path] == [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [3.0, 0.0], [4.0, 0.0]]
    back = np.zeros((1, 5), bool)
    back[0, 0] = True
    assert len(grid_path(g, (4.0, 0.0), back, 0.0)) == 5
    g = grid(np.ones((5, 1), bool), cell=1.0)
    assert [p.tolist() for p in grid_path(g, (0.0, 4.0), goal.T, 0.0)] == [[0.0, 4.0]]
    top = np.zeros((5, 1), bool)
    top[0, 0] = True
    assert [p.tolist() for p in grid_path(g, (0.0, 4.0), top, 0.0)] == [[0.0, 4.0], [0.0, 3.0], [0.0, 2.0],
                                                                         [0.0, 1.0], [0.0, 0.0]]


def test_grid_path_diagonal_steps_cost_sqrt2():
    # goals (2, 2) at 2 sqrt 2 = 2.83 cells and (3, 0) at 3 cells: the diagonal goal is nearer
    g = grid(np.ones((6, 6), bool), cell=1.0)
    goal = np.zeros((6, 6), bool)
    goal[2, 2] = goal[0, 3] = True
    path = grid_path(g, (0.0, 0.0), goal, 0.0)
    assert [p.tolist() for p in path] == [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]
    # against a goal 2 cells straight ahead, the diagonal goal (2.83) loses
    goal[0, 3] = False
    goal[0, 2] = True
    assert [p.tolist() for p in grid_path(g, (0.0, 0.0), goal, 0.0)][-1] == [2.0, 0.0]


def test_grid_path_unreachable_goal_in_the_last_cells():
    # the last two cells are a feasible island: the goal there is unreachable (no edges reach the
    # end of the cell index range)
    free = np.array([[True, True, False, True, True]])
    g = grid(free, cell=1.0)
    goal = np.zeros((1, 5), bool)
    goal[0, 4] = True
    assert grid_path(g, (0.0, 0.0), goal, 0.0) is None
    free = np.array([[True, True, False, False, True]])
    assert grid_path(grid(free, cell=1.0), (0.0, 0.0), goal, 0.0) is None


def test_grid_path_reads_any_truthy_goal_mask():
    g = grid(np.ones((1, 4), bool), cell=1.0)
    goal = np.array([[0.0, 0.0, 0.0, 0.5]])  # e.g. a resampled mask: non-zero means goal
    path = grid_path(g, (0.0, 0.0), goal, 0.0)
    assert [p.tolist() for p in path] == [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [3.0, 0.0]]


def test_points_are_float_whatever_the_input():
    g = grid(np.ones((1, 5), bool), cell=1.0)
    goal = np.zeros((1, 5), bool)
    goal[0, 4] = True
    path = grid_path(g, [0, 0], goal, 0.0)  # integer coordinates in
    assert all(p.dtype == np.float64 for p in path)
    out = sparsify(g, [[0, 0], [1, 0], [2, 0]], 0.0, 0.05)
    assert [p.tolist() for p in out] == [[0.0, 0.0], [2.0, 0.0]] and all(p.dtype == np.float64 for p in out)
    assert segments_legal(g, np.zeros((0, 2)), np.zeros((0, 2)), 0.0, 0.05).dtype == bool
    with pytest.raises(ValueError, match="^points need at least x and y$"):
        feasible_at(g, [1.0], 0.0)
    with pytest.raises(ValueError, match="^a_xy and b_xy must have the same shape$"):
        segments_legal(g, [[0, 0], [1, 0]], [[1, 0]], 0.0, 0.05)
    with pytest.raises(ValueError, match="^ring_m must be >= 0$"):
        goal_mask(g, 4, 0.0, -0.1)


def test_sparsify_three_points_pulled_straight():
    g = grid(np.ones((3, 5), bool), cell=1.0)
    out = sparsify(g, [[0.0, 1.0], [1.0, 1.0], [2.0, 1.0]], 0.0, 0.05)
    assert [p.tolist() for p in out] == [[0.0, 1.0], [2.0, 1.0]]


def test_feasibility_graph_points_beyond_the_grid_are_infeasible():
    g = grid(np.ones((3, 3), bool), cell=1.0)
    G = feasibility_graph(g, {1: (0.0, 0.0), 2: (2.0, 2.0), 3: (9.0, 9.0)}, 0.0, 0.05)
    assert [G.nodes[i]["feasible"] for i in (1, 2, 3)] == [True, True, False]
    assert sorted(G.edges()) == [(1, 2)]
