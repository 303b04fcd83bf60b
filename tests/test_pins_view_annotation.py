"""geometry.view_annotation's decision helpers pinned by hand: route verification, loop
cutting, stand-in cells nearest first, pixel-bucket thinning, footprint distances, the inner
goal region and the stage clock."""
from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from geometry.occupancy import OccupancyGrid
from geometry.view_annotation import (StageClock, _edges, _footprint_distance, _inner_goal, _nearby_cells,
                                      _route_m, _simplify, _thin, verify_route)


def graph():
    G = nx.Graph()
    for i in range(5):
        G.add_node(i, feasible=i != 3)
    G.add_node(5)  # no "feasible" attribute: not feasible
    G.add_edges_from([(0, 1), (1, 2), (2, 4), (1, 3), (3, 4), (4, 5)])
    return G


@pytest.mark.parametrize("route, ok", [
    ([0, 1, 2, 4], True),
    ([0, 1, 2], True),          # 2 is also a goal
    ([1, 2, 4], False),         # does not start at the start
    ([0, 1, 2, 4, 2], True),    # a revisit is still a walk along edges
    ([0, 2, 4], False),         # 0-2 is no edge
    ([0, 1, 3, 4], False),      # 3 is not feasible
    ([0, 1, 2, 4, 5], False),   # 5 has no feasible flag (and is no goal)
    ([0, 1], False),            # 1 is no goal
    ([], False),
    ([0, 1, 2, 4, 9], False),   # 9 is not in the graph
])
def test_verify_route(route, ok):
    assert verify_route(graph(), route, 0, [4, 2]) is ok


def test_verify_route_unknown_goal_node_and_string_ids():
    G = graph()
    assert verify_route(G, ["0", "1", "2"], "0", ["2"]) is True
    G.add_edge(4, 9)
    assert verify_route(G, [0, 1, 2, 4, 9], 0, [9]) is False  # 9 has no attributes at all
    assert verify_route(G, [0], 0, [0]) is True  # already at a goal: a one-vertex route


def test_simplify_cuts_loops_and_repeats():
    assert _simplify([0, 1, 1, 2]) == [0, 1, 2]
    assert _simplify([0, 1, 2, 3, 1, 4]) == [0, 1, 4]
    assert _simplify([0, 1, 2, 0, 5]) == [0, 5]
    assert _simplify([3, 4, 5]) == [3, 4, 5] and _simplify([]) == []


def grid5(cell=0.5, origin=(1.0, -1.0)):
    H, W = 4, 5
    return OccupancyGrid(origin_xy=origin, cell_m=cell, floor=np.ones((H, W), bool),
                         occupied=np.zeros((H, W), bool), object_cells=np.zeros((H, W), np.int32))


def test_vertex_predicate_needs_a_feasible_cell_a_legal_move_and_the_goal():
    from geometry.view_annotation import _vertex_predicate

    grid = grid5(origin=(0.0, 0.0))          # cell centres x = 0, 0.5, .., 2 and y = 0, .., 1.5
    grid.occupied[2, 2] = True               # the cell at (1.0, 1.0)
    feas = grid.free.copy()
    feas[1, 3] = False                       # (1.5, 0.5): free floor, but not for this agent
    goal = np.zeros(grid.shape, bool)
    goal[1, 2:5] = True                      # (1.0, 0.5), (1.5, 0.5), (2.0, 0.5)
    pts = [(1.0, 0.5), (1.5, 0.5), (2.0, 0.5), (0.5, 0.5), (9.0, 9.0), (0.5, 1.5)]
    # the last vertex: feasible, in the goal region, reached by a legal move from (0, 0.5)
    accept = _vertex_predicate(grid, feas, goal, (0.0, 0.5), None, 0.0, 0.1)
    assert accept(pts).tolist() == [True, False, True, False, False, False]
    assert accept((2.0, 0.5)).tolist() == [True]
    # a middle vertex: anywhere feasible, and able to go on to (0.0, 1.5); (2.0, 0.5) -> (0.0, 1.5) runs
    # through the occupied (1.0, 1.0), (1.0, 0.5) -> (0.0, 1.5) passes it by; (1.5, 0.5) is infeasible itself
    accept = _vertex_predicate(grid, feas, None, (0.0, 0.5), (0.0, 1.5), 0.0, 0.1)
    assert accept(pts).tolist() == [True, False, False, True, False, True]
    # going on to (1.0, 1.5) from (1.0, 0.5) crosses the occupied (1.0, 1.0), from (0.0, 1.0) it passes above
    accept = _vertex_predicate(grid, feas, None, (0.0, 0.5), (1.0, 1.5), 0.0, 0.1)
    assert accept([(1.0, 0.5), (0.0, 1.0)]).tolist() == [False, True]


def test_nearby_cells_nearest_first_and_inclusive():
    g = grid5()
    cells = np.zeros(g.shape, bool)
    cells[0, 0] = cells[0, 2] = cells[1, 1] = cells[3, 4] = True
    # centres: (1,-1), (2,-1), (1.5,-0.5), (3,0.5); from (1.5,-1): 0.5, 0.5, 0.5, 2.1213
    got = _nearby_cells(g, cells, (1.5, -1.0), 0.5)
    assert got.tolist() == [[1.0, -1.0], [2.0, -1.0], [1.5, -0.5]]  # ties kept in cell (row-major) order
    # from (2, -0.9): 0.1, 0.640, 1.005
    got = _nearby_cells(g, cells, (2.0, -0.9), 1.01)
    assert got.tolist() == [[2.0, -1.0], [1.5, -0.5], [1.0, -1.0]]
    assert _nearby_cells(g, cells, (2.0, -0.9), 1.0).tolist() == [[2.0, -1.0], [1.5, -0.5]]
    assert _nearby_cells(g, cells, (2.0, -0.9), 0.09).shape == (0, 2)
    assert _nearby_cells(g, cells, (3.0, 0.5), 0.0).tolist() == [[3.0, 0.5]]
    assert _nearby_cells(g, np.zeros(g.shape, bool), (0, 0), 9.0).shape == (0, 2)


def test_nearby_cells_breaks_distance_ties_by_cell_order_on_a_large_grid():
    # 21 x 21 free cells 0.5 m apart around the planned point: rings of 4 and 8 cells at equal distances;
    # nearest first, equal distances in row-major cell order (np.nonzero's), whatever the array size
    H = W = 21
    grid = OccupancyGrid(origin_xy=(0.0, 0.0), cell_m=0.5, floor=np.ones((H, W), bool),
                         occupied=np.zeros((H, W), bool), object_cells=np.zeros((H, W), np.int32))
    got = _nearby_cells(grid, np.ones((H, W), bool), (5.0, 5.0), np.inf)
    cells = [(0.5 * ix, 0.5 * iy) for iy in range(H) for ix in range(W)]
    want = sorted(range(len(cells)), key=lambda i: (math.hypot(cells[i][0] - 5.0, cells[i][1] - 5.0), i))
    assert got.tolist() == [list(cells[i]) for i in want]


def test_thin_keeps_the_first_point_per_bucket_in_input_order():
    uv = np.array([[5.0, 5.0], [12.0, 3.0], [9.9, 9.9], [10.0, 0.0], [-0.1, 4.0], [25.0, 1.0]])
    # 10 px buckets: (0,0), (1,0), (0,0), (1,0), (-1,0), (2,0)
    assert _thin(uv, 10.0).tolist() == [0, 1, 4, 5]
    assert _thin(uv, 5.0).tolist() == [0, 1, 4, 5]
    assert _thin(uv, 3.0).tolist() == [0, 1, 2, 3, 4, 5]
    assert _thin(uv, 30.0).tolist() == [0, 4]
    assert _thin(np.zeros((0, 2)), 10.0).tolist() == []
    # the result indexes the caller's point arrays, also when it is empty
    assert np.ones((3, 2))[_thin(np.zeros((0, 2)), 10.0)].shape == (0, 2)


def test_route_length_and_sorted_edges():
    pts = {0: np.array([0.0, 0.0]), 1: np.array([3.0, 4.0]), 2: np.array([3.0, 0.0, 7.0])}
    assert _route_m(pts, [0, 1, 2]) == pytest.approx(9.0)  # z is ignored
    assert _route_m(pts, [0]) == 0.0
    G = nx.Graph([(3, 1), (0, 2), (2, 1)])
    assert _edges(G) == [[0, 2], [1, 2], [1, 3]]


def test_footprint_distance():
    g = grid5()
    g.footprints[7] = np.array([2 * 5 + 3])  # cell (ix 3, iy 2): centre (2.5, 0.0)
    assert _footprint_distance(g, 7, (2.5, -1.0)) == pytest.approx(1.0)
    assert _footprint_distance(g, 7, (5.5, 4.0)) == pytest.approx(5.0)
    with pytest.raises(ValueError, match="object 8 has no footprint on this grid"):
        _footprint_distance(g, 8, (0.0, 0.0))


def test_inner_goal_keeps_the_reachable_goal_cells_nearest_the_footprint():
    H, W = 3, 7
    g = OccupancyGrid(origin_xy=(0.0, 0.0), cell_m=1.0, floor=np.ones((H, W), bool),
                      occupied=np.zeros((H, W), bool), object_cells=np.zeros((H, W), np.int32))
    g.footprints[5] = np.array([1 * W + 6])  # cell (6, 1)
    goal = np.zeros((H, W), bool)
    goal[:, 3:6] = True  # a band 1-3 cells from the footprint
    feasible = np.ones((H, W), bool)
    inner = _inner_goal(g, goal, feasible, 5, (0.0, 1.0))
    want = np.zeros((H, W), bool)
    want[1, 5] = True  # distance 1; (0,5) and (2,5) are sqrt(2) away
    assert np.array_equal(inner, want)
    # column 5 cut off from the start by an infeasible column 4: the nearest reachable goal is (1, 3)
    feasible[:, 4] = False
    inner = _inner_goal(g, goal, feasible, 5, (0.0, 1.0))
    want = np.zeros((H, W), bool)
    want[1, 3] = True
    assert np.array_equal(inner, want)
    # a start outside the grid, on an infeasible cell, or with no goal reachable: the whole goal
    assert np.array_equal(_inner_goal(g, goal, feasible, 5, (-3.0, 1.0)), goal)
    assert np.array_equal(_inner_goal(g, goal, feasible, 5, (4.0, 1.0)), goal)
    only_far = np.zeros((H, W), bool)
    only_far[:, 5] = True
    assert np.array_equal(_inner_goal(g, only_far, feasible, 5, (0.0, 1.0)), only_far)


def test_inner_goal_counts_diagonal_neighbours_as_connected():
    H, W = 3, 3
    g = OccupancyGrid(origin_xy=(0.0, 0.0), cell_m=1.0, floor=np.ones((H, W), bool),
                      occupied=np.zeros((H, W), bool), object_cells=np.zeros((H, W), np.int32))
    g.footprints[2] = np.array([2 * W + 2])
    feasible = np.eye(3, dtype=bool)  # (0,0) - (1,1) - (2,2) touch only at corners
    goal = np.zeros((H, W), bool)
    goal[1, 1] = goal[0, 2] = True
    inner = _inner_goal(g, goal, feasible, 2, (0.0, 0.0))
    assert inner.tolist() == [[False, False, False], [False, True, False], [False, False, False]]


def test_stage_clock_adds_up_and_is_a_no_op_without_a_dict():
    into: dict = {}
    clock = StageClock(into)
    clock.add("cast", 1.5)
    clock.add("cast", 2)
    clock.add("plan", 0.25)
    assert into == {"cast": 3.5, "plan": 0.25} and isinstance(into["cast"], float)
    with clock("plan"):
        pass
    assert 0.25 <= into["plan"] < 5.0
    with pytest.raises(RuntimeError):
        with clock("fail"):
            raise RuntimeError("x")
    assert "fail" in into  # timed even when the stage raises
    off = StageClock(None)
    off.add("cast", 1.0)
    with off("cast"):
        pass
    assert off.into is None
    assert math.isfinite(into["fail"])


# ------------------------------------------------ displayable cells: a camera 1 m above the floor, looking down

def _down_pose(width=64, height=44, centre=(0.5, 0.25)):
    """Optical axis straight down from (x, y, 1): camera x = world x, camera y = world -y, so a
    floor point (x0 + dx, y0 + dy, 0) lands at u = cx + 80 dx, v = cy - 80 dy exactly."""
    from geometry.camera import CameraPose, PhoneLens

    lens = PhoneLens(name="main", focal_mm=6.0, sensor_width_mm=8.0, sensor_height_mm=6.0, fnumber=1.8,
                     equiv_focal_mm=26.0)
    x0, y0 = centre
    T = [[1.0, 0.0, 0.0, x0], [0.0, -1.0, 0.0, y0], [0.0, 0.0, -1.0, 1.0], [0.0, 0.0, 0.0, 1.0]]
    K = [[80.0, 0.0, (width - 1) / 2], [0.0, 80.0, (height - 1) / 2], [0.0, 0.0, 1.0]]
    return CameraPose(width=width, height=height, K=K, cam_to_world=T, orientation="landscape", lens=lens,
                      sensor_width_mm=8.0, focus_mode="pinhole", focus_distance_m=None, shutter_s=0.01)


def _floor_scene():
    import trimesh

    from geometry.raycast import Raycaster, SceneMesh

    floor = trimesh.Trimesh(np.array([[-5, -5, 0], [5, -5, 0], [5, 5, 0], [-5, 5, 0]], float),
                            [[0, 1, 2], [0, 2, 3]], process=False)
    rc = Raycaster(SceneMesh.from_trimesh_parts([(1, "floor", floor)]))
    # cell centres at -1 + k/8 in x and y: offsets from the camera (0.5, 0.25) are exact eighths
    H, W = 20, 24
    grid = OccupancyGrid(origin_xy=(-1.0, -1.0), cell_m=0.125, floor=np.ones((H, W), bool),
                         occupied=np.zeros((H, W), bool), object_cells=np.zeros((H, W), np.int32))
    return rc, grid


def _shown_offsets(grid, cells, centre=(0.5, 0.25)):
    """The displayable cells as (kx, ky) eighths of a metre from the camera's floor point."""
    iy, ix = np.nonzero(cells)
    c = grid.cell_to_world(ix, iy)
    return sorted((int(round((x - centre[0]) * 8)), int(round((y - centre[1]) * 8))) for x, y in c)


def test_displayable_cells_are_the_in_frame_cells_margins_inclusive():
    from geometry.view_annotation import _displayable_cells

    rc, grid = _floor_scene()
    # 64 x 44 px, cx 31.5, cy 21.5, margin 2: u in [1.5, 61.5] and v in [1.5, 41.5]. u = 31.5 + 10 kx and
    # v = 21.5 - 10 ky, so kx = -3..3 and ky = -2..2 are in frame, the outer ones exactly on the margin line.
    got = _shown_offsets(grid, _displayable_cells(grid, rc, _down_pose(), [1], 2.0, 0.0, 8.0))
    assert got == [(kx, ky) for kx in range(-3, 4) for ky in range(-2, 3)]
    # a 3 px margin moves every edge one pixel in: the outer ring (1 px short of it) is out
    got = _shown_offsets(grid, _displayable_cells(grid, rc, _down_pose(), [1], 3.0, 0.0, 8.0))
    assert got == [(kx, ky) for kx in range(-2, 3) for ky in range(-1, 2)]
    # portrait (44 x 64 px, cx 21.5, cy 31.5): kx = -2..2 and ky = -3..3
    got = _shown_offsets(grid, _displayable_cells(grid, rc, _down_pose(44, 64), [1], 2.0, 0.0, 8.0))
    assert got == [(kx, ky) for kx in range(-2, 3) for ky in range(-3, 4)]


def test_displayable_cells_keep_the_distance_limit_around_the_camera_inclusive():
    from geometry.view_annotation import _displayable_cells

    rc, grid = _floor_scene()
    # within 0.25 m = 2 eighths of the camera's floor point (0.5, 0.25): kx^2 + ky^2 <= 4, edge included
    got = _shown_offsets(grid, _displayable_cells(grid, rc, _down_pose(), [1], 2.0, 0.0, 0.25))
    assert got == [(kx, ky) for kx in range(-2, 3) for ky in range(-2, 3) if kx * kx + ky * ky <= 4]
    assert (2, 0) in got and (0, -2) in got and (-2, 0) in got and (2, 1) not in got
    # the distance is measured from the camera's own floor point, not from the world origin
    got = _shown_offsets(grid, _displayable_cells(grid, rc, _down_pose(centre=(0.0, 0.5)), [1], 2.0, 0.0, 0.125),
                         centre=(0.0, 0.5))
    assert got == [(-1, 0), (0, -1), (0, 0), (0, 1), (1, 0)]


def test_displayable_cells_need_free_visible_floor():
    from geometry.view_annotation import _displayable_cells

    rc, grid = _floor_scene()
    grid.occupied[10, 12] = True  # centre (0.5, 0.25): the cell under the camera
    got = _shown_offsets(grid, _displayable_cells(grid, rc, _down_pose(), [1], 2.0, 0.0, 8.0))
    assert (0, 0) not in got and len(got) == 34
    # floor id 2 is not this scene's floor: nothing is visible floor
    assert not _displayable_cells(grid, rc, _down_pose(), [2], 2.0, 0.0, 8.0).any()
    grid.occupied[:] = True
    assert _displayable_cells(grid, rc, _down_pose(), [1], 2.0, 0.0, 8.0).shape == (20, 24)
    assert not _displayable_cells(grid, rc, _down_pose(), [1], 2.0, 0.0, 8.0).any()


def test_near_shown_grows_by_two_cells_four_connected():
    from geometry.view_annotation import _near_shown

    shown = np.zeros((7, 7), bool)
    shown[3, 3] = True
    got = _near_shown(shown)
    # two 4-connected dilations: every cell with |dx| + |dy| <= 2
    want = [[abs(i - 3) + abs(j - 3) <= 2 for j in range(7)] for i in range(7)]
    assert got.tolist() == want


# ------------------------------------------------ the second route search over displayable floor (_shown_route)

def _k_xy(kx, ky):
    """Floor point of the cell kx, ky eighths of a metre from the camera's floor point (0.5, 0.25)."""
    return 0.5 + kx / 8, 0.25 + ky / 8


def _cells(grid, ks):
    out = np.zeros(grid.shape, bool)
    for kx, ky in ks:
        ix, iy = grid.world_to_cell(np.array(_k_xy(kx, ky)))
        out[iy, ix] = True
    return out


def _shown_route_case(goal_ks, *, start_k=(0, -2), margin=2.0, clear=1.0, spacing=10.0, blocked_ky=None,
                      box_at=None, box_px=(1.0, 4.0), box_id=7, gap_kx=None):
    """_shown_route on the look-down floor (cells 10 px apart) from a start marker to `goal_ks`;
    (route, trial). `blocked_ky`: an occupied row of cells; `box_at`: a 1 cm high box (id 7,
    not the target) just +x of that cell's centre, inside its marker disc but not under it: `box_px` is its
    extent in pixels right of the centre, `box_id` its id (9 is the target). `gap_kx`: one free cell in the
    blocked row."""
    import trimesh

    from geometry.raycast import Raycaster, SceneMesh
    from geometry.view_annotation import _displayable_cells, _shown_route
    from geometry.waypoints import Marker

    rc, grid = _floor_scene()
    if box_at is not None:
        x, y = _k_xy(*box_at)
        floor = trimesh.Trimesh(np.array([[-5, -5, 0], [5, -5, 0], [5, 5, 0], [-5, 5, 0]], float),
                                [[0, 1, 2], [0, 2, 3]], process=False)
        x0, x1 = box_px[0] / 80, box_px[1] / 80
        box = trimesh.creation.box(extents=(x1 - x0, 0.1, 0.01),
                                   transform=trimesh.transformations.translation_matrix((x + (x0 + x1) / 2, y, 0.005)))
        rc = Raycaster(SceneMesh.from_trimesh_parts([(1, "floor", floor), (box_id, "box", box)]))
    if blocked_ky is not None:
        ix, iy = grid.world_to_cell(np.array(_k_xy(0, blocked_ky)))
        grid.occupied[iy, :] = True
        if gap_kx is not None:
            grid.occupied[iy, grid.world_to_cell(np.array(_k_xy(gap_kx, blocked_ky)))[0]] = False
    pose = _down_pose()
    sx, sy = _k_xy(*start_k)
    trial = [Marker(pixel=(31.5 + 10 * start_k[0], 21.5 - 10 * start_k[1]), world=(sx, sy, 0.0), object_id=1,
                    kind="ground")]
    shown = _displayable_cells(grid, rc, pose, [1], margin, clear, 8.0)
    feas = grid.free.copy()
    route = _shown_route(grid, rc, pose, [1], trial, shown, feas, _cells(grid, goal_ks), 9, 0.05, 0.05, spacing,
                         margin, clear)
    return route, trial


def test_shown_route_goes_straight_to_the_nearest_shown_goal_point():
    # goal row ky = 2 (v = 1.5, on the 2 px margin line); the start (0, -2) sees every goal point on open floor,
    # so the route is the direct move to the nearest, (0, 2), inserted as marker 1
    route, trial = _shown_route_case([(kx, 2) for kx in range(-3, 4)])
    assert route == [0, 1] and len(trial) == 2
    assert trial[1].world == (0.5, 0.5, 0.0) and trial[1].pixel == (31.5, 1.5) and trial[1].kind == "ground"


def test_shown_route_spacing_is_inclusive():
    # goal points 10 px apart with a 10 px spacing are all kept; at 10.5 px only every other one,
    # so the nearest kept goal is one cell off the straight line
    route, trial = _shown_route_case([(kx, 2) for kx in range(-3, 4)], spacing=10.0)
    assert trial[route[-1]].world[:2] == (0.5, 0.5)
    route, trial = _shown_route_case([(kx, 2) for kx in range(-3, 4)], spacing=10.5)
    assert trial[route[-1]].world[:2] in {(0.375, 0.5), (0.625, 0.5)}


def test_shown_route_none_without_a_legal_route():
    # an occupied row between the start (ky -2) and the goals (ky 2) cuts every move
    route, trial = _shown_route_case([(kx, 2) for kx in range(-3, 4)], blocked_ky=0)
    assert route is None and len(trial) == 1
    # no shown goal cell at all
    assert _shown_route_case([(0, 9)])[0] is None


def test_shown_route_goal_points_keep_the_margin():
    # margin 5 px: rows ky = -1..1 are shown, ky = 2 (v = 1.5) is outside the margin but within two cells of
    # shown floor. The nearer goal (-2, 2) cannot be shown, so the route ends at the farther (2, 1).
    route, trial = _shown_route_case([(-2, 2), (2, 1)], start_k=(-2, -1), margin=5.0)
    assert route == [0, 1] and trial[1].world[:2] == _k_xy(2, 1)


def test_shown_route_goal_points_keep_a_clear_disc():
    # a low box (not the target) inside the marker disc of the nearer goal (-2, 2): the route ends at (2, 1)
    route, trial = _shown_route_case([(-2, 2), (2, 1)], start_k=(-2, -1), box_at=(-2, 2))
    assert route == [0, 1] and trial[1].world[:2] == _k_xy(2, 1)
    # without the box the nearer goal is the end
    route, trial = _shown_route_case([(-2, 2), (2, 1)], start_k=(-2, -1))
    assert route == [0, 1] and trial[1].world[:2] == _k_xy(-2, 2)


def test_shown_route_inserts_its_vertices_with_the_given_clear_disc():
    # a box 2..4 px right of the nearer goal (-2, 2): outside a 1 px disc, inside a 3 px one. With
    # clear_px 1 the goal is shown and inserted there; with 3 px it is not shown and the route ends at (2, 1).
    route, trial = _shown_route_case([(-2, 2), (2, 1)], start_k=(-2, -1), box_at=(-2, 2), box_px=(2.0, 4.0))
    assert route == [0, 1] and trial[1].world[:2] == _k_xy(-2, 2)
    route, trial = _shown_route_case([(-2, 2), (2, 1)], start_k=(-2, -1), box_at=(-2, 2), box_px=(2.0, 4.0),
                                     clear=3.0)
    assert route == [0, 1] and trial[1].world[:2] == _k_xy(2, 1)
    # the target itself (id 9) may share the goal marker's disc
    route, trial = _shown_route_case([(-2, 2), (2, 1)], start_k=(-2, -1), box_at=(-2, 2), box_id=9, clear=3.0)
    assert route == [0, 1] and trial[1].world[:2] == _k_xy(-2, 2)


def test_shown_route_goes_round_a_wall_through_shown_floor():
    # the row ky = 0 is occupied except the cell kx = 2: start (0, -2) -> (2, 0) -> goal (2, 2), the middle
    # vertex a new marker on shown floor
    route, trial = _shown_route_case([(kx, 2) for kx in range(-3, 4)], blocked_ky=0, gap_kx=2)
    assert route == [0, 1, 2] and [m.world[:2] for m in trial[1:]] == [_k_xy(2, 0), _k_xy(2, 2)]


# ------------------------------------------------ _display_route: the planned vertices snapped or inserted

def _display_case(goal_ks, marker_k=None, box_px=None, **params):
    """_display_route for the point agent on the look-down floor from a start marker at (0, -2) to one
    planned vertex, the first of `goal_ks` (the goal region's cells); `marker_k`: another ground marker
    already on the sheet; `box_px`: a 1 cm box (id 7, not the target 3) that many pixels right of the
    planned point. Returns (idx, trial)."""
    import trimesh

    from geometry.raycast import Raycaster, SceneMesh
    from geometry.view_annotation import AnnotationParams, _display_route
    from geometry.waypoints import Marker

    rc, grid = _floor_scene()
    if box_px is not None:
        x, y = _k_xy(*goal_ks[0])
        floor = trimesh.Trimesh(np.array([[-5, -5, 0], [5, -5, 0], [5, 5, 0], [-5, 5, 0]], float),
                                [[0, 1, 2], [0, 2, 3]], process=False)
        x0, x1 = box_px[0] / 80, box_px[1] / 80
        box = trimesh.creation.box(extents=(x1 - x0, 0.1, 0.01),
                                   transform=trimesh.transformations.translation_matrix((x + (x0 + x1) / 2, y, 0.005)))
        rc = Raycaster(SceneMesh.from_trimesh_parts([(1, "floor", floor), (7, "box", box)]))
    v = _ctx(params=AnnotationParams(nudge_m=0.0, **params), raycaster=rc, mesh=rc.mesh)
    mk = lambda k: Marker(pixel=(31.5 + 10 * k[0], 21.5 - 10 * k[1]), world=(*_k_xy(*k), 0.0), object_id=1,  # noqa: E731
                          kind="ground")
    trial = [mk((0, -2))] + ([mk(marker_k)] if marker_k is not None else [])
    gm = _cells(v.grid, goal_ks)
    sparse = [np.array(_k_xy(0, -2)), np.array(_k_xy(*goal_ks[0]))]
    return _display_route(v, trial, sparse, "point", gm, gm, 3), trial


def test_display_route_snaps_to_a_marker_within_snap_m():
    # the goal region holds the planned point (0, 1) and an existing marker 3 cells (0.375 m) away
    idx, trial = _display_case([(0, 1), (3, 1)], marker_k=(3, 1), snap_m=0.4)
    assert idx == [0, 1] and len(trial) == 2          # snapped onto the marker
    idx, trial = _display_case([(0, 1), (3, 1)], marker_k=(3, 1), snap_m=0.3)
    assert idx == [0, 2] and trial[2].world[:2] == _k_xy(0, 1)   # inserted at the planned point


def test_display_route_last_vertex_falls_back_to_any_goal_marker():
    # the planned goal point (-3, 1) is hidden by a box; the only other goal cell (3, 1) already holds a marker,
    # 0.75 m away (beyond snap_m and search_m): the goal vertex snaps to that marker rather than failing
    idx, trial = _display_case([(-3, 1), (3, 1)], marker_k=(3, 1), box_px=(1.0, 4.0))
    assert idx == [0, 1] and len(trial) == 2


def test_display_route_inserts_with_the_given_clear_disc():
    # a box 2..4 px right of the planned point: clear in a 1 px disc, not in a 3 px one (and no other
    # goal cell, no nudging, no marker to fall back on)
    idx, trial = _display_case([(0, 1)], box_px=(2.0, 4.0), clear_px=1.0)
    assert idx == [0, 1] and trial[1].world[:2] == _k_xy(0, 1)
    assert _display_case([(0, 1)], box_px=(2.0, 4.0), clear_px=3.0)[0] is None


# ------------------------------------------------ place_markers: the settings reach every sampler

def _pebble_floor():
    """The look-down floor strewn with 2.5 cm pebbles (id 7, 2 cm high) every 20 cm, and a 30 cm crate (id 8)."""
    import trimesh

    from geometry.raycast import Raycaster, SceneMesh

    floor = trimesh.Trimesh(np.array([[-5, -5, 0], [5, -5, 0], [5, 5, 0], [-5, 5, 0]], float),
                            [[0, 1, 2], [0, 2, 3]], process=False)
    pebbles = [trimesh.creation.box(extents=(0.025, 0.025, 0.02),
                                    transform=trimesh.transformations.translation_matrix((x, y, 0.01)))
               for x in np.arange(-0.3, 1.4, 0.2) for y in np.arange(-0.4, 0.9, 0.2)]
    crate = trimesh.creation.box(extents=(0.12, 0.12, 0.3),
                                 transform=trimesh.transformations.translation_matrix((0.2, 0.5, 0.15)))
    return Raycaster(SceneMesh.from_trimesh_parts([(1, "floor", floor), (7, "pebbles", trimesh.util.concatenate(pebbles)),
                                                   (8, "crate", crate)]))


def _markers(rc, grid=None, n_surface_override=3, **params):
    from geometry.view_annotation import AnnotationParams, place_markers

    extra = {} if grid is None else {"grid": grid}
    v = _ctx(96, 72, params=AnnotationParams(n_ground=12, n_surface=n_surface_override, **params), raycaster=rc,
             mesh=rc.mesh, obstacle_ids=[7, 8], **extra)
    return v, place_markers(v, np.random.default_rng(0))


def _discs_clear(rc, v, markers, clear_px):
    """Per marker: does its disc at clear_px see only floor (ground) or its own object (surface)?"""
    from geometry.waypoints import disc_clear

    ms = [markers.start] + markers.traversability[1:]
    allowed = np.array([[1] if m.kind == "ground" else [m.object_id] for m in ms])
    return disc_clear(rc, v.pose, np.array([m.pixel for m in ms]), allowed, clear_px)


def test_place_markers_keeps_every_marker_disc_clear_at_clear_px():
    rc = _pebble_floor()
    v, m = _markers(rc, clear_px=6.0)
    kinds = [x.kind for x in m.traversability]
    assert kinds.count("ground") == 13 and kinds.count("surface") >= 1     # start + 12, and the crate
    assert _discs_clear(rc, v, m, 6.0).all()
    # the pebbles are close enough that a 3 px disc lets markers (the start among them) near a pebble
    v, m = _markers(rc, clear_px=3.0)
    ok = _discs_clear(rc, v, m, 6.0)
    assert not ok[0] and not ok.all()


def _border_px(m) -> float:
    """Distance of a marker centre from the 96 x 72 image's border (pixel centres at integers)."""
    u, v = m.pixel
    return min(u + 0.5, 95.5 - u, v + 0.5, 71.5 - v)


def test_place_markers_keeps_the_margin_and_the_distance_limit():
    rc = _pebble_floor()
    v, m = _markers(rc)
    assert v.margin == 4.0                     # 3 % of 96 px -> 3, floored at 4
    border = [_border_px(x) for x in m.traversability]
    assert min(border) == 4.0
    # ground candidates besides the start reach the 4 px margin line itself (v = 67.5), never past it
    assert sum(_border_px(x) == 4.0 for x in m.ground) >= 1
    # within 0.3 m of the camera's floor point (0.5, 0.25) the crate (nearest top point 0.31 m away) is out
    _, m = _markers(rc, max_distance_m=0.3)
    assert [x.kind for x in m.traversability].count("surface") == 0 and len(m.ground) >= 5
    assert max(math.hypot(x.world[0] - 0.5, x.world[1] - 0.25) for x in m.traversability) <= 0.3


def test_clearance_sensitive_candidates_come_first_and_keep_their_spacing():
    # an occupied row at y = -0.25 makes the floor within 0.3 m of it point-only: ceil(12 * 0.25) = 3 ground
    # candidates are drawn there first, and every marker keeps min_spacing_px (12) from the start and each other
    H, W = 20, 24
    occ = np.zeros((H, W), bool)
    occ[6, :] = True
    grid = OccupancyGrid(origin_xy=(-1.0, -1.0), cell_m=0.125, floor=np.ones((H, W), bool), occupied=occ,
                         object_cells=np.zeros((H, W), np.int32))
    rc = _pebble_floor()
    v, m = _markers(rc, n_surface_override=0, grid=grid)
    sens = [bool(v.feas("point")(x.xy)[0] and not v.feas("embodied")(x.xy)[0]) for x in m.ground]
    assert len(m.ground) == 12 and sens[:3] == [True, True, True]
    px = np.array([m.start.pixel] + [x.pixel for x in m.ground])
    d = np.hypot(*(px[:, None, :] - px[None, :, :]).transpose(2, 0, 1))
    assert v.spacing == 12.0 and d[np.triu_indices(len(px), 1)].min() >= 12.0


def test_surface_negatives_stand_above_the_obstacle_band():
    # surface negatives sit at least max(obstacle_min_z, 0.10) m above the floor: the 30 cm crate's top
    # qualifies under the default 5 cm band floor, not when the band starts at 35 cm
    from geometry.egopath_schema import GeometryParams

    rc = _pebble_floor()
    _, m = _markers(rc)
    assert {x.object_id for x in m.traversability if x.kind == "surface"} == {8}
    _, m = _markers(rc, geometry=GeometryParams(obstacle_min_z=0.35))
    assert [x.kind for x in m.traversability].count("surface") == 0


# ------------------------------------------------ view_context: input checks and the image-relative defaults

def _ctx(width=64, height=44, params=None, **kw):
    from geometry.egopath_schema import TargetInfo
    from geometry.view_annotation import AnnotationParams, view_context

    rc, grid = _floor_scene()
    t = TargetInfo(object_id=3, name="table", category="table", color="red", bbox_px=[0, 0, 8, 8],
                   visible_surface=0.8, distance_m=1.0, strict_visible=True, same_category_in_view=1,
                   footprint_xy=[[0.0, 0.0], [0.1, 0.0], [0.1, 0.1], [0.0, 0.1]])
    args = dict(mesh=rc.mesh, raycaster=rc, grid=grid, pose=_down_pose(width, height), targets=[t],
                floor_ids=[1], obstacle_ids=[2, 3], target_texts={3: "the table"},
                p=params if params is not None else AnnotationParams())
    args.update(kw)
    return view_context(**args)


@pytest.mark.parametrize("size, spacing, rspacing, margin", [
    ((480, 360), 29.0, 19.0, 14.0),   # 6% of 480 = 28.8, 4% = 19.2, 3% = 14.4
    ((360, 480), 29.0, 19.0, 14.0),   # the long side, whichever it is
    ((250, 100), 15.0, 10.0, 8.0),    # 15, 10, 7.5 (rounds half to even: 8)
    ((100, 80), 12.0, 8.0, 4.0),      # the floors: 6 -> 12, 4 -> 8, 3 -> 4
    ((210, 60), 13.0, 8.0, 6.0),      # 12.6 -> 13 just above its floor; 8.4 -> 8; 6.3 -> 6
])
def test_view_context_resolves_the_image_relative_defaults(size, spacing, rspacing, margin):
    v = _ctx(*size)
    assert (v.spacing, v.rspacing, v.margin) == (spacing, rspacing, margin)


def test_view_context_explicit_settings_and_agents():
    from geometry.egopath_schema import GeometryParams
    from geometry.feasibility import feasible_mask
    from geometry.view_annotation import AnnotationParams

    v = _ctx(480, 360, AnnotationParams(min_spacing_px=22, route_spacing_px=15, margin_px=10))
    assert (v.spacing, v.rspacing, v.margin) == (22.0, 15.0, 10.0)
    # a route spacing left open never exceeds the marker spacing: min(10, max(8, 19))
    v = _ctx(480, 360, AnnotationParams(min_spacing_px=10))
    assert (v.spacing, v.rspacing) == (10.0, 10.0)
    v = _ctx(params=AnnotationParams(geometry=GeometryParams(body_radius_m=0.2)), floor_ids=[1, 1],
             obstacle_ids=[3, 2, 3])
    assert v.radius == {"point": 0.0, "embodied": 0.2}
    assert v.floor_ids == [1] and v.obstacle_ids == [2, 3]
    for agent in ("point", "embodied"):
        assert np.array_equal(v.feas_grid[agent], feasible_mask(v.grid, v.radius[agent]))
    # the feasibility lookup is False beyond the grid
    assert v.feas("point")(np.array([[0.5, 0.25], [50.0, 0.0]])).tolist() == [True, False]


def test_view_context_rejects_inconsistent_inputs():
    from geometry.raycast import SceneMesh

    rc, _ = _floor_scene()
    m = rc.mesh
    same = SceneMesh(vertices=m.vertices.copy(), triangles=m.triangles.copy(), tri_object_id=m.tri_object_id.copy(),
                     object_ids=m.object_ids, object_names=m.object_names)
    _ctx(mesh=same, raycaster=rc)  # an equal copy of the mesh is the same mesh
    moved = SceneMesh(vertices=m.vertices + 1.0, triangles=m.triangles, tri_object_id=m.tri_object_id,
                      object_ids=m.object_ids, object_names=m.object_names)
    flipped = SceneMesh(vertices=m.vertices, triangles=m.triangles[:, ::-1].copy(), tri_object_id=m.tri_object_id,
                        object_ids=m.object_ids, object_names=m.object_names)
    relabelled = SceneMesh(vertices=m.vertices, triangles=m.triangles, tri_object_id=m.tri_object_id + 1,
                           object_ids=m.object_ids + 1, object_names=m.object_names)
    for other in (moved, flipped, relabelled):
        with pytest.raises(ValueError, match="^raycaster was built over a different mesh$"):
            _ctx(mesh=other, raycaster=rc)
    with pytest.raises(ValueError, match="^floor_ids is empty$"):
        _ctx(floor_ids=[])
    with pytest.raises(ValueError, match="^an id cannot be both floor and obstacle$"):
        _ctx(floor_ids=[1, 3], obstacle_ids=[3])
    with pytest.raises(ValueError, match=r"^no target text for object 3 \(table\)$"):
        _ctx(target_texts={4: "x"})
    with pytest.raises(ValueError, match="^target 3 is a floor object$"):
        _ctx(floor_ids=[1, 3], obstacle_ids=[2])


# ------------------------------------------------ whole views: the stage clock and the start-distance cut

def _room_view(objects, target_ids, seed=0, timings=None, inputs_only=False, **settings):
    """build_view_annotation on a 6 x 8 m walled room with boxes (test_view_annotation_pin's room);
    `inputs_only`: its keyword arguments instead."""
    import trimesh

    from geometry.camera import CameraPose, PhoneLens, look_at
    from geometry.egopath_schema import GeometryParams, TargetInfo
    from geometry.occupancy import occupancy_from_mesh
    from geometry.raycast import Raycaster, SceneMesh
    from geometry.view_annotation import AnnotationParams, build_view_annotation

    def box(lo, hi):
        lo, hi = np.asarray(lo, float), np.asarray(hi, float)
        return trimesh.creation.box(extents=hi - lo, transform=trimesh.transformations.translation_matrix((lo + hi) / 2))

    floor = trimesh.Trimesh(np.array([[-3, -1, 0], [3, -1, 0], [3, 7, 0], [-3, 7, 0]], float),
                            [[0, 1, 2], [0, 2, 3]], process=False)
    walls = [((-3.1, -1.1, 0), (-3.0, 7.1, 2.5)), ((3.0, -1.1, 0), (3.1, 7.1, 2.5)),
             ((-3.1, 7.0, 0), (3.1, 7.1, 2.5)), ((-3.1, -1.1, 0), (3.1, -1.0, 2.5))]
    mesh = SceneMesh.from_trimesh_parts([(1, "floor", floor)] + [(2, "walls", box(*w)) for w in walls]
                                        + [(oid, name, box(*lohi)) for oid, name, lohi in objects])
    grid = occupancy_from_mesh(mesh, {1}, GeometryParams())
    lens = PhoneLens(name="main", focal_mm=6.0, sensor_width_mm=8.0, sensor_height_mm=6.0, fnumber=1.8,
                     equiv_focal_mm=26.0)
    pose = CameraPose(width=480, height=360, K=[[360.0, 0.0, 239.5], [0.0, 360.0, 179.5], [0.0, 0.0, 1.0]],
                      cam_to_world=look_at((0.3, -0.6, 1.5), (0.5, 3.5, 0.0)).tolist(), orientation="landscape",
                      lens=lens, sensor_width_mm=8.0, focus_mode="pinhole", focus_distance_m=None, shutter_s=0.01)
    by_id = {oid: (name, lohi) for oid, name, lohi in objects}
    targets = []
    for oid in target_ids:
        lo, hi = by_id[oid][1]
        targets.append(TargetInfo(object_id=oid, name=by_id[oid][0], category=by_id[oid][0], color="red",
                                  bbox_px=[0, 0, 80, 80], visible_surface=0.8, distance_m=3.0, strict_visible=True,
                                  same_category_in_view=1,
                                  footprint_xy=[[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]]))
    kw = dict(mesh=mesh, raycaster=Raycaster(mesh), grid=grid, pose=pose, targets=targets, floor_ids=[1],
              obstacle_ids=[2] + [oid for oid, _, _ in objects], rng=np.random.default_rng(seed),
              target_texts={oid: f"the {by_id[oid][0]}" for oid in target_ids}, params=AnnotationParams(**settings))
    if inputs_only:
        return kw
    return build_view_annotation(**kw, timings=timings), grid


BARRED = [(7, "barrier", ((-2.0, 2.0, 0.0), (1.6, 2.4, 0.4))), (8, "shelf", ((-2.0, 4.4, 0.0), (-1.2, 4.8, 1.0)))]
CABINET = [(6, "cabinet", ((1.2, 4.4, 0.0), (2.0, 4.8, 1.0)))]


def test_stage_timings_are_durations_within_the_call():
    import time

    tim: dict = {}
    t0 = time.perf_counter()
    ann, _ = _room_view(BARRED, [8], timings=tim, n_surface=3, display_search=True)
    elapsed = time.perf_counter() - t0
    assert len(ann.routes) == 1  # the display search found the shelf's route
    assert set(tim) == {"route_search_s", "insert_s", "graphs_s", "verify_s"}
    assert all(0.0 <= v <= elapsed for v in tim.values()), (tim, elapsed)
    assert sum(tim.values()) <= elapsed


def test_targets_at_exactly_the_minimum_start_distance_keep_their_route():
    from geometry.view_annotation import _footprint_distance

    ann, grid = _room_view(CABINET, [6])
    assert len(ann.routes) == 1
    start = ann.route.waypoints[0]
    assert start.display_id == 1
    d = _footprint_distance(grid, 6, start.world[:2])
    assert 3.0 < d < 4.5  # the cabinet stands about 3.6 m from the start
    # the same view: the start does not depend on the cut, only the targets kept do
    at, _ = _room_view(CABINET, [6], min_target_start_m=d)
    assert at.route.waypoints[0].world == start.world and len(at.routes) == 1
    beyond, _ = _room_view(CABINET, [6], min_target_start_m=d + 1e-9)
    assert beyond.routes == [] and len(beyond.route.waypoints) == 13  # the start and 12 ground candidates


def test_plan_routes_records_each_displayed_route_as_marker_indices():
    # stage 2 on the cabinet view: both agents get a planned route from the start (marker 0) to a marker in
    # their goal region, loop-free, over the markers it displays
    from geometry.view_annotation import StageClock, place_markers, plan_routes, view_context

    kw = _room_view(CABINET, [6], inputs_only=True)
    v = view_context(kw["mesh"], kw["raycaster"], kw["grid"], kw["pose"], kw["targets"], kw["floor_ids"],
                     kw["obstacle_ids"], kw["target_texts"], kw["params"])
    plans = plan_routes(v, place_markers(v, kw["rng"]), kw["targets"], StageClock(None))
    for agent in ("point", "embodied"):
        route = plans.planned[(6, agent)]
        assert route is not None and route[0] == 0 and len(route) >= 2 and len(set(route)) == len(route)
        end = plans.route_markers[route[-1]]
        assert bool(v.grid.lookup(plans.goal_masks[(6, agent)], end.xy[None, :], outside=False)[0])
        assert plans.start_in_goal[(6, agent)] is False


def test_an_unreachable_target_gets_no_unit_and_the_others_keep_theirs():
    # a crate (id 9) inside a closed pen of 1 m walls (id 10): no agent can reach its goal region, so it has
    # no route unit, for neither agent; the cabinet's route is unaffected
    pen = [(10, "pen", lohi) for lohi in (((-2.2, 3.8, 0.0), (-0.6, 3.9, 1.0)), ((-2.2, 5.3, 0.0), (-0.6, 5.4, 1.0)),
                                           ((-2.2, 3.8, 0.0), (-2.1, 5.4, 1.0)), ((-0.7, 3.8, 0.0), (-0.6, 5.4, 1.0)))]
    crate = [(9, "crate", ((-1.6, 4.4, 0.0), (-1.2, 4.8, 0.6)))]
    ann, _ = _room_view(CABINET + crate + pen, [6, 9])
    assert [u.target_object_id for u in ann.routes] == [6]
    assert ann.routes[0].point_reference is not None and ann.routes[0].embodied_reference is not None


def test_a_target_at_the_start_is_no_route_question_for_either_agent():
    # a 1 cm rug (id 9, below the obstacle band, so no obstacle) 5 cm beside the cabinet view's start at
    # (0.363, 0.908): the start already lies in both agents' goal regions, so the rug gets no unit
    from geometry.view_annotation import _footprint_distance

    x, y = 0.362801744731325, 0.9077520935300568
    rug = [(9, "rug", ((x + 0.05, y - 0.3, 0.0), (x + 0.6, y + 0.3, 0.01)))]
    ann, grid = _room_view(CABINET + rug, [6, 9])
    assert ann.route.waypoints[0].world[:2] == [x, y]
    assert _footprint_distance(grid, 9, (x, y)) < 0.10      # within the goal ring of the rug's footprint
    assert [u.target_object_id for u in ann.routes] == [6]


# ------------------------------------------------ verify_units on a hand-made route sheet

def _sheet_case(planned_display, blocked=True, goal_xy=(0.5, 0.0)):
    """Route sheet ids 1 = (0, 0) start, 2 = (0.25, 0.25), 3 = (0.5, 0), 4 = (0.25, -0.25) on the
    look-down floor; `blocked` occupies the cell at (0.25, 0) so 1 -> 3 is no straight move and the two
    ways round it (1-2-3, 1-4-3) have the same length 2 * hypot(0.25, 0.25)."""
    from geometry.feasibility import feasibility_graph
    from geometry.view_annotation import RoutePlans, RouteSheet, verify_units

    _, grid = _floor_scene()
    if blocked:
        ix, iy = grid.world_to_cell(np.array([0.25, 0.0]))
        grid.occupied[iy, ix] = True
    v = _ctx(grid=grid)
    pts = {1: np.array([0.0, 0.0]), 2: np.array([0.25, 0.25]), 3: np.array([0.5, 0.0]), 4: np.array([0.25, -0.25])}
    graphs = {a: feasibility_graph(grid, pts, v.radius[a], 0.05) for a in ("point", "embodied")}
    sheet = RouteSheet(order=[0, 1, 2, 3], display={0: 1, 1: 2, 2: 3, 3: 4}, points=pts, graphs=graphs)
    gm = np.zeros(grid.shape, bool)
    for gxy in np.atleast_2d(goal_xy):
        ix, iy = grid.world_to_cell(np.asarray(gxy, float))
        gm[iy, ix] = True
    from geometry.egopath_schema import TargetInfo

    target = TargetInfo(object_id=3, name="table", category="table", color="red", bbox_px=[0, 0, 8, 8],
                        visible_surface=0.8, distance_m=1.0, strict_visible=True, same_category_in_view=1,
                        footprint_xy=[[0.0, 0.0], [0.1, 0.0], [0.1, 0.1], [0.0, 0.1]])
    start_in = bool(grid.lookup(gm, pts[1][None, :], outside=False)[0])
    plans = RoutePlans(route_targets=[target], route_markers=[], goal_masks={(3, "point"): gm, (3, "embodied"): gm},
                       start_in_goal={(3, "point"): start_in, (3, "embodied"): start_in},
                       planned={(3, "point"): None if planned_display is None else [d - 1 for d in planned_display],
                                (3, "embodied"): None})
    return verify_units(v, plans, sheet, {3: "the table"}), graphs["point"]


def test_verify_units_keeps_a_verified_plan_as_long_as_the_shortest():
    from geometry.feasibility import shortest_route

    units, G = _sheet_case(None)
    assert not G.has_edge(1, 3) and G.has_edge(1, 2) and G.has_edge(2, 3) and G.has_edge(1, 4)
    found = units[0].point_reference
    assert found in ([1, 2, 3], [1, 4, 3]) and found == shortest_route(G, 1, [3])[1]
    assert units[0].point_shortest_m == pytest.approx(2 * math.hypot(0.25, 0.25))
    other = [1, 4, 3] if found == [1, 2, 3] else [1, 2, 3]
    units, _ = _sheet_case(other)  # a tie: the planned route stays the reference
    assert units[0].point_reference == other
    u = units[0]
    assert (u.route_id, u.target_object_id, u.target_text, u.start_id) == ("0", 3, "the table", 1)
    assert u.point_goal_ids == [3] and u.embodied_goal_ids == [] and u.embodied_reference is None
    assert u.embodied_shortest_m is None and u.embodied_narrow_fraction is None


def test_verify_units_replaces_a_longer_or_broken_plan_by_the_shortest():
    # open floor: 1 -> 3 is a straight move (0.5 m); the planned 1-2-3 (0.707 m) gives way to it
    units, G = _sheet_case([1, 2, 3], blocked=False)
    assert G.has_edge(1, 3)
    assert units[0].point_reference == [1, 3] and units[0].point_shortest_m == pytest.approx(0.5)
    # a plan along a non-edge is not verified: the graph's route replaces it
    units, _ = _sheet_case([1, 3], blocked=True)
    assert units[0].point_reference in ([1, 2, 3], [1, 4, 3])


def test_verify_units_drops_a_unit_whose_start_is_a_goal():
    # the goal region holds the start: no route question for either agent, so no unit
    units, _ = _sheet_case(None, goal_xy=[(0.0, 0.0), (0.5, 0.0)])
    assert units == []


# ------------------------------------------------ waypoint labels and the entry point's contract errors

def test_waypoint_labels_ground_and_surface_markers():
    from geometry.view_annotation import _waypoint
    from geometry.waypoints import Marker

    v = _ctx()  # look-down floor grid: x -1 .. 1.875, y -1 .. 1.375, all free
    mid = Marker(pixel=(31.5, 21.5), world=(0.5, 0.25, 0.0), object_id=1, kind="ground")
    w = _waypoint(v, 4, mid)
    assert (w.display_id, w.kind, w.pixel, w.world, w.object_id) == (4, "ground", [31.5, 21.5], [0.5, 0.25, 0.0], 1)
    assert w.point_feasible and w.embodied_feasible
    assert w.clearance_m == pytest.approx(float(v.grid.clearance_m[10, 12]))
    edge = Marker(pixel=(0.0, 0.0), world=(1.875, 1.375, 0.0), object_id=1, kind="ground")
    w = _waypoint(v, 2, edge)
    assert w.point_feasible and not w.embodied_feasible and w.clearance_m == pytest.approx(0.125)
    # a surface marker above free floor is never feasible, whatever the cell below it
    top = Marker(pixel=(31.5, 21.5), world=(0.5, 0.25, 0.8), object_id=3, kind="surface")
    w = _waypoint(v, 3, top)
    assert not w.point_feasible and not w.embodied_feasible and w.kind == "surface"
    # beyond the grid: infeasible, clearance 0
    away = Marker(pixel=(1.0, 1.0), world=(40.0, 0.0, 0.0), object_id=1, kind="ground")
    w = _waypoint(v, 5, away)
    assert not w.point_feasible and not w.embodied_feasible and w.clearance_m == 0.0


def test_waypoint_clearance_is_capped_at_5_m():
    from geometry.view_annotation import _waypoint
    from geometry.waypoints import Marker

    rc, _ = _floor_scene()
    big = OccupancyGrid(origin_xy=(-8.0, -8.0), cell_m=0.5, floor=np.ones((33, 33), bool),
                        occupied=np.zeros((33, 33), bool), object_cells=np.zeros((33, 33), np.int32))
    v = _ctx(grid=big, raycaster=rc, mesh=rc.mesh)
    assert big.clearance_m[16, 16] == 8.5
    w = _waypoint(v, 1, Marker(pixel=(31.5, 21.5), world=(0.0, 0.0, 0.0), object_id=1, kind="ground"))
    assert w.clearance_m == 5.0


def test_build_view_annotation_contract_errors():
    from geometry.egopath_schema import GeometryParams
    from geometry.view_annotation import NoStartError, build_view_annotation

    rc, grid = _floor_scene()
    kw = dict(mesh=rc.mesh, raycaster=rc, grid=grid, pose=_down_pose(), targets=[], floor_ids=[1], obstacle_ids=[],
              rng=np.random.default_rng(0), target_texts={})
    with pytest.raises(TypeError, match="^params must be AnnotationParams, not GeometryParams$"):
        build_view_annotation(**kw, params=GeometryParams())
    grid.occupied[:] = True  # no free floor: no start
    with pytest.raises(NoStartError, match="^no visible embodied-feasible floor near the bottom of the image$"):
        build_view_annotation(**kw)


def test_ground_candidates_reach_out_to_max_distance_m():
    """On an open 40 x 40 m floor the markers spread as far as `max_distance_m` allows, also beyond
    the 8 m default of the marker samplers (the distance limit is passed down, not defaulted)."""
    import trimesh

    from geometry.camera import CameraPose, PhoneLens, look_at
    from geometry.egopath_schema import GeometryParams
    from geometry.occupancy import occupancy_from_mesh
    from geometry.raycast import Raycaster, SceneMesh
    from geometry.view_annotation import AnnotationParams, build_view_annotation

    floor = trimesh.Trimesh(np.array([[-20, -5, 0], [20, -5, 0], [20, 35, 0], [-20, 35, 0]], float),
                            [[0, 1, 2], [0, 2, 3]], process=False)
    mesh = SceneMesh.from_trimesh_parts([(1, "floor", floor)])
    geo = GeometryParams(grid_m=0.2)
    grid = occupancy_from_mesh(mesh, {1}, geo)
    lens = PhoneLens(name="main", focal_mm=6.0, sensor_width_mm=8.0, sensor_height_mm=6.0, fnumber=1.8,
                     equiv_focal_mm=26.0)
    pose = CameraPose(width=320, height=240, K=[[240.0, 0.0, 159.5], [0.0, 240.0, 119.5], [0.0, 0.0, 1.0]],
                      cam_to_world=look_at((0.0, 0.0, 1.5), (0.0, 8.0, 0.0)).tolist(), orientation="landscape",
                      lens=lens, sensor_width_mm=8.0, focus_mode="pinhole", focus_distance_m=None, shutter_s=0.01)

    def far(max_d):
        ann = build_view_annotation(mesh=mesh, raycaster=Raycaster(mesh), grid=grid, pose=pose, targets=[],
                                    floor_ids=[1], obstacle_ids=[], rng=np.random.default_rng(0), target_texts={},
                                    params=AnnotationParams(geometry=geo, n_ground=24, n_surface=0,
                                                            max_distance_m=max_d))
        return max(math.hypot(w.world[0], w.world[1]) for w in ann.traversability.waypoints)

    assert 8.0 < far(12.0) <= 12.0
    assert far(8.0) <= 8.0
    # the image's bottom edge sees the floor about 2 m out: with a 1.5 m limit there is no start
    from geometry.view_annotation import NoStartError

    with pytest.raises(NoStartError):
        far(1.5)
