"""Pinned values for geometry/occupancy.py: analytic boxes and planes on a 0.1 m grid, and the
separating-axis overlap tests checked against an exact linear-programming feasibility test
(scipy.optimize.linprog: is there a convex combination of the corners inside the box?)."""
from __future__ import annotations

import numpy as np
import pytest
import trimesh
from scipy.optimize import linprog

from geometry.egopath_schema import GeometryParams
from geometry.occupancy import (
    OccupancyGrid,
    _rasterise_floor,
    _tri_box_overlap,
    _tri_square_overlap_2d,
    footprint_mask,
    grid_spec_for_bounds,
    occupancy_from_mesh,
)
from geometry.raycast import SceneMesh

P = GeometryParams(grid_m=0.1)  # slab 0.05 .. 1.80 m


def floor_part(x0=0.0, y0=0.0, x1=1.0, y1=1.0, oid=1):
    v = np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], float)
    return oid, "floor", trimesh.Trimesh(v, [[0, 1, 2], [0, 2, 3]], process=False)


def box_part(lo, hi, oid, name="box"):
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    tm = trimesh.creation.box(extents=hi - lo, transform=trimesh.transformations.translation_matrix((lo + hi) / 2))
    return oid, name, tm


def grid_of(*parts, **kw):
    return occupancy_from_mesh(SceneMesh.from_trimesh_parts([floor_part(), *parts]), {1}, P, **kw)


def cells(mask):
    iy, ix = np.nonzero(mask)
    return sorted(zip(ix.tolist(), iy.tolist()))


# ------------------------------------------------------------------ grid object


def test_grid_validation():
    f = np.ones((2, 3), bool)
    with pytest.raises(ValueError, match="positive"):
        OccupancyGrid((0, 0), 0.0, f, f, None)
    with pytest.raises(ValueError, match="equal shape"):
        OccupancyGrid((0, 0), 0.1, f, np.ones((3, 2), bool), None)
    with pytest.raises(ValueError, match="equal shape"):
        OccupancyGrid((0, 0), 0.1, np.ones(3, bool), np.ones(3, bool), None)
    with pytest.raises(ValueError, match="object_cells"):
        OccupancyGrid((0, 0), 0.1, f, f, np.zeros((3, 2)))
    g = OccupancyGrid((0, 0), 0.1, f, ~f, None)
    assert g.object_cells.shape == (2, 3) and g.object_cells.dtype == np.int32 and not g.object_cells.any()
    assert g.shape == (2, 3)


def test_clearance_is_distance_to_nearest_non_free_cell_or_the_grid_edge():
    free = np.ones((5, 7), bool)
    free[1, 5] = False
    g = OccupancyGrid((0, 0), 0.1, free, np.zeros_like(free), None)
    c = g.clearance_m
    # brute force: centre distance to every non-free cell, including a ring of cells around the grid
    H, W = free.shape
    blocked = [(x, y) for y in range(-1, H + 1) for x in range(-1, W + 1)
               if not (0 <= x < W and 0 <= y < H) or not free[y, x]]
    b = np.array(blocked, float)
    for y in range(H):
        for x in range(W):
            want = 0.0 if not free[y, x] else 0.1 * np.min(np.hypot(b[:, 0] - x, b[:, 1] - y))
            assert c[y, x] == pytest.approx(want)
    assert c[2, 2] == pytest.approx(0.3) and c[0, 0] == pytest.approx(0.1) and c[1, 5] == 0.0
    assert c.dtype == np.float64 and g.clearance_m is c


def test_floor_but_occupied_is_not_free():
    floor = np.array([[True, True], [False, True]])
    occ = np.array([[False, True], [False, False]])
    g = OccupancyGrid((0, 0), 0.1, floor, occ, None)
    assert g.free.tolist() == [[True, False], [False, True]]


def test_world_to_cell_rounds_at_cell_edges():
    # cell 0.5 m, origin (0.25, -0.75): cell edges at exact binary fractions (0, 0.5, -0.5, ...)
    g = OccupancyGrid((0.25, -0.75), 0.5, np.ones((4, 4), bool), np.zeros((4, 4), bool), None)
    assert g.world_to_cell([0.25, -0.75]) == (0, 0)
    assert g.world_to_cell([0.5, -0.5]) == (1, 1)  # edges belong to the upper cell
    assert g.world_to_cell([0.4999, -0.5001]) == (0, 0)
    assert g.world_to_cell([-0.0001, -1.0001]) == (-1, -1)
    assert g.world_to_cell([1.8, 1.3, 5.0]) == (3, 4)  # z ignored
    ix, iy = g.world_to_cell(np.array([[0.25, -0.75], [1.3, 0.2]]))
    assert ix.tolist() == [0, 2] and iy.tolist() == [0, 2]
    np.testing.assert_allclose(g.cell_to_world(2, 3), [1.25, 0.75])
    np.testing.assert_allclose(g.cell_to_world([0, 1], [1, 0]), [[0.25, -0.25], [0.75, -0.75]])
    assert g.in_grid([-1, 0, 3, 4, 0, 0], [0, 0, 3, 0, -1, 4]).tolist() == [False, True, True, False, False, False]


def test_lookup_inside_and_outside():
    arr = np.arange(6).reshape(2, 3)
    g = OccupancyGrid((0, 0), 1.0, np.ones((2, 3), bool), np.zeros((2, 3), bool), None)
    assert g.lookup(arr, [[2, 1], [0, 0], [3, 0], [0, -1]], outside=-7).tolist() == [5, 0, -7, -7]
    assert g.lookup(arr, [1.2, 0.9]).tolist() == [4]
    assert g.lookup(g.free, [[9, 9]]).tolist() == [False]


def test_grid_spec_for_bounds_worked_examples():
    o, W, H = grid_spec_for_bounds((0, 0, 1, 0.5), 0.1)
    np.testing.assert_allclose(o, [0.05, 0.05]) and (W, H) == (10, 5)
    assert (W, H) == (10, 5)
    o, W, H = grid_spec_for_bounds((0.03, -0.12, 0.31, 0.2), 0.1)
    np.testing.assert_allclose(o, [0.05, -0.15])
    assert (W, H) == (4, 4)
    o, W, H = grid_spec_for_bounds((0.30000000001, 0.1, 0.6000000001, 0.3), 0.1)  # within 1e-9 of the lattice
    np.testing.assert_allclose(o, [0.35, 0.15])
    assert (W, H) == (3, 2)
    _, W, H = grid_spec_for_bounds((0.3, 0.3, 0.3 + 1e-12, 0.3 + 1e-12), 0.1)
    assert (W, H) == (1, 1)
    for b in [(0, 0, 0, 1), (0, 1, 1, 1), (1, 0, 0, 1)]:
        with pytest.raises(ValueError, match="empty bounds"):
            grid_spec_for_bounds(b, 0.1)


# ------------------------------------------------------------------ rasterisation


def test_box_obstacle_marks_exactly_the_cells_it_enters():
    g = grid_of(box_part((0.22, 0.42, 0.0), (0.38, 0.58, 0.5), 5))
    assert g.shape == (10, 10)
    np.testing.assert_allclose(g.origin_xy, [0.05, 0.05])
    assert g.floor.all()
    want = [(ix, iy) for ix in (2, 3) for iy in (4, 5)]
    assert cells(g.occupied) == want
    assert cells(g.object_cells == 5) == want
    assert not g.free[4, 2] and g.free[4, 1]


def test_face_on_a_cell_boundary_marks_both_neighbours():
    g = grid_of(box_part((0.2, 0.42, 0.0), (0.38, 0.48, 0.5), 5))
    assert cells(g.occupied) == [(1, 4), (2, 4), (3, 4)]


def test_obstacle_slab_limits():
    shelf = box_part((0.42, 0.42, 1.81), (0.48, 0.48, 2.0), 2)  # above 1.80
    rug = box_part((0.62, 0.62, 0.0), (0.68, 0.68, 0.049), 3)  # below 0.05
    touch_low = box_part((0.12, 0.12, 0.0), (0.18, 0.18, 0.05), 4)  # top exactly at 0.05
    touch_high = box_part((0.82, 0.82, 1.8), (0.88, 0.88, 2.5), 6)  # bottom exactly at 1.80
    g = grid_of(shelf, rug, touch_low, touch_high)
    assert cells(g.occupied) == [(1, 1), (8, 8)]
    # with the floor 1 m higher everything moves up by 1 m: the shelf's bottom 1.81 is below 2.05
    g2 = occupancy_from_mesh(SceneMesh.from_trimesh_parts([floor_part(), shelf, rug]), {1}, P, floor_z=1.0)
    assert cells(g2.occupied) == [(4, 4)]


def test_zero_thickness_wall_and_sloped_triangle():
    wall = trimesh.Trimesh([[0.33, 0.0, 0.0], [0.33, 1.0, 0.0], [0.33, 1.0, 1.0], [0.33, 0.0, 1.0]],
                           [[0, 1, 2], [0, 2, 3]], process=False)
    g = grid_of((7, "wall", wall))
    assert cells(g.occupied) == [(3, iy) for iy in range(10)]
    # A triangle whose bbox covers many cells but which itself only crosses a diagonal band.
    tri = trimesh.Trimesh([[0.0, 0.0, 1.0], [0.95, 0.0, 1.0], [0.95, 0.95, 1.0]], [[0, 1, 2]], process=False)
    g = grid_of((8, "tri", tri))
    ref = {(ix, iy) for iy in range(10) for ix in range(10) if iy <= ix + 1}  # y <= x touches iy <= ix + 1
    assert set(cells(g.occupied)) == ref


def test_largest_id_wins_a_shared_cell_and_footprints_are_exact():
    a = box_part((0.12, 0.12, 0.0), (0.27, 0.18, 0.5), 3)  # cells x 1..2, y 1
    b = box_part((0.22, 0.12, 0.0), (0.38, 0.18, 0.5), 9)  # cells x 2..3, y 1
    high = box_part((0.52, 0.52, 1.9), (0.58, 0.58, 2.2), 4)  # above the slab: footprint only
    g = grid_of(a, b, high)
    assert g.object_cells[1].tolist()[:5] == [0, 3, 9, 9, 0]
    assert g.footprints[3].tolist() == [11, 12] and g.footprints[9].tolist() == [12, 13]
    assert g.footprints[4].tolist() == [55] and not g.occupied[5, 5]
    assert 1 not in g.footprints
    assert cells(footprint_mask(g, 3)) == [(1, 1), (2, 1)]
    only = grid_of(a, b, high, footprints=[9])
    assert sorted(only.footprints) == [9]
    assert cells(footprint_mask(only, 3)) == [(1, 1)]  # fallback: where 3 is the recorded obstacle
    none = grid_of(a, b, footprints=False)
    assert none.footprints == {}
    assert cells(footprint_mask(none, 9)) == [(2, 1), (3, 1)]


def test_floor_rasterises_cell_centres_inside_triangles():
    tri = trimesh.Trimesh([[0, 0, 0], [0.5, 0, 0], [0, 0.5, 0]], [[0, 1, 2]], process=False)
    m = SceneMesh.from_trimesh_parts([(1, "floor", tri)])
    g = occupancy_from_mesh(m, {1}, P, bounds=(0, 0, 0.5, 0.5))
    # centre (0.05 + 0.1 ix, 0.05 + 0.1 iy) inside x + y <= 0.5: ix + iy <= 4 (ix + iy = 4 is on the edge)
    assert cells(g.floor) == sorted((ix, iy) for ix in range(5) for iy in range(5) if ix + iy <= 4)
    # default bounds are the floor's xy bbox; a degenerate floor triangle adds nothing
    deg = trimesh.Trimesh([[0, 0, 0], [1, 1, 0], [2, 2, 0]], [[0, 1, 2]], process=False)
    m2 = SceneMesh.from_trimesh_parts([(1, "floor", tri), (2, "sliver", deg)])
    g2 = occupancy_from_mesh(m2, {1, 2}, P, bounds=(0, 0, 0.5, 0.5))
    assert cells(g2.floor) == cells(g.floor)


def test_floor_clipped_to_bounds_and_offset_bounds():
    g = occupancy_from_mesh(SceneMesh.from_trimesh_parts([floor_part(0, 0, 0.3, 0.2)]), {1}, P,
                            bounds=(-0.2, -0.1, 0.5, 0.3))
    assert g.shape == (4, 7)
    np.testing.assert_allclose(g.origin_xy, [-0.15, -0.05])
    assert cells(g.floor) == [(ix, iy) for ix in (2, 3, 4) for iy in (1, 2)]


def test_occupancy_from_mesh_rejects():
    m = SceneMesh.from_trimesh_parts([floor_part()])
    with pytest.raises(ValueError, match="floor_ids is empty"):
        occupancy_from_mesh(m, set(), P)
    with pytest.raises(ValueError, match="no triangles"):
        occupancy_from_mesh(m, {2}, P)
    with pytest.raises(ValueError, match="obstacle_max_z"):
        occupancy_from_mesh(m, {1}, GeometryParams(grid_m=0.1, obstacle_min_z=1.0, obstacle_max_z=1.0))
    g = occupancy_from_mesh(m, {2}, P, bounds=(0, 0, 1, 1))  # bounds given: fine, no floor
    assert not g.floor.any()


# ------------------------------------------------------------------ SAT vs linear programming


def lp_overlap(tri, lo, hi) -> bool:
    """Exact: some convex combination of the corners lies in the box [lo, hi]."""
    d = tri.shape[1]
    A_ub = np.vstack([tri.T, -tri.T])
    b_ub = np.concatenate([hi, -lo])
    res = linprog(np.zeros(3), A_ub=A_ub, b_ub=b_ub, A_eq=np.ones((1, 3)), b_eq=[1.0], bounds=[(0, None)] * 3,
                  method="highs")
    assert res.status in (0, 2), res.message
    del d
    return res.status == 0


@pytest.mark.parametrize("dim", [3, 2])
def test_sat_overlap_agrees_with_linear_programming(dim):
    rng = np.random.default_rng(16 + dim)
    n = 400
    tris = rng.uniform(-1.5, 1.5, (n, 3, dim))
    centre = rng.uniform(-0.5, 0.5, (n, dim))
    h = 0.4
    margin = 1e-3
    decided = 0
    for i in range(n):
        inner = lp_overlap(tris[i], centre[i] - h + margin, centre[i] + h - margin)
        outer = lp_overlap(tris[i], centre[i] - h - margin, centre[i] + h + margin)
        if inner != outer:
            continue  # within the margin of touching: either answer is allowed
        decided += 1
        if dim == 3:
            half = np.full((1, 3), h)
            got = _tri_box_overlap(tris[i, 0][None], tris[i, 1][None], tris[i, 2][None], centre[i][None], half, 1e-6)
        else:
            got = _tri_square_overlap_2d(tris[i, 0][None], tris[i, 1][None], tris[i, 2][None], centre[i][None], h,
                                         1e-6)
        assert bool(got[0]) == inner, (i, tris[i], centre[i])
    assert decided > 0.9 * n
    # one batched call answers each triangle as the one-at-a-time calls do (a sum or a norm taken
    # over the whole batch instead of per triangle would mix the triangles' sizes)
    v = [tris[:, k] for k in range(3)]
    batched = (_tri_box_overlap(*v, centre, np.full((n, 3), h), 1e-6) if dim == 3
               else _tri_square_overlap_2d(*v, centre, h, 1e-6))
    single = [bool((_tri_box_overlap(*[x[i][None] for x in v], centre[i][None], np.full((1, 3), h), 1e-6)
                    if dim == 3 else _tri_square_overlap_2d(*[x[i][None] for x in v], centre[i][None], h, 1e-6))[0])
              for i in range(n)]
    assert batched.tolist() == single
    # both answers occur often enough to matter
    frac = np.mean([lp_overlap(tris[i], centre[i] - h, centre[i] + h) for i in range(n)])
    assert 0.2 < frac < 0.8


# ------------------------------------------------------------ properties (hypothesis)

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _sat_gap(centres, half, corners, axes):
    """Per cell square (centre, half side): the largest separating gap over `axes` against the
    polygon `corners` (> 0: apart by at least that much; < 0: overlapping by at least -gap)."""
    gaps = []
    for a in axes:
        c = centres @ a
        hw = half * (abs(a[0]) + abs(a[1]))
        r = corners @ a
        gaps.append(np.maximum(r.min() - (c + hw), (c - hw) - r.max()))
    return np.max(gaps, axis=0)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(cx=st.floats(0.8, 2.2), cy=st.floats(0.8, 2.2), w=st.floats(0.05, 1.2), d=st.floats(0.05, 1.2),
       yaw=st.floats(0.0, 180.0), z0=st.floats(0.0, 2.0), h=st.floats(0.02, 1.0))
def test_rotated_box_occupies_the_cells_its_footprint_overlaps(cx, cy, w, d, yaw, z0, h):
    """Oracle: a 2-D separating-axis test of every 0.1 m cell square against the box's rotated
    rectangle, written out here. A box in the 0.05-1.80 m slab occupies exactly the cells it
    overlaps (cells within 10 um of touching are skipped); its footprint is those cells at any height."""
    a = np.radians(yaw)
    ax1, ax2 = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    corners = np.array([(cx, cy) + sx * w / 2 * ax1 + sy * d / 2 * ax2 for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    T = np.eye(4)
    T[:3, :3] = trimesh.transformations.rotation_matrix(a, [0, 0, 1])[:3, :3]
    T[:3, 3] = (cx, cy, z0 + h / 2)
    floor = trimesh.Trimesh(np.array([[0, 0, 0], [3, 0, 0], [3, 3, 0], [0, 3, 0]], float), [[0, 1, 2], [0, 2, 3]],
                            process=False)
    mesh = SceneMesh.from_trimesh_parts([(1, "floor", floor), (4, "box", trimesh.creation.box(extents=(w, d, h),
                                                                                            transform=T))])
    g = occupancy_from_mesh(mesh, {1}, P)
    H, W = g.shape
    iy, ix = np.mgrid[0:H, 0:W]
    centres = g.cell_to_world(ix.ravel(), iy.ravel())
    gap = _sat_gap(centres, 0.05, corners, [np.array([1.0, 0.0]), np.array([0.0, 1.0]), ax1, ax2]).reshape(H, W)
    sure = np.abs(gap) > 1e-5
    overlap = gap < 0
    assert sure.sum() > 0.9 * H * W
    assert np.array_equal(footprint_mask(g, 4)[sure], overlap[sure])
    if z0 + h >= P.obstacle_min_z + 1e-5 and z0 <= P.obstacle_max_z - 1e-5:
        assert np.array_equal(g.occupied[sure], overlap[sure])
        assert np.array_equal(g.object_cells[sure], np.where(overlap, 4, 0)[sure])
    elif z0 + h < P.obstacle_min_z - 1e-5 or z0 > P.obstacle_max_z + 1e-5:
        assert not g.occupied.any()
    assert g.floor.all()


# ------------------------------------------------------------ chunking


@pytest.mark.parametrize("chunk", [1, 7, 50])
def test_chunked_pair_enumeration_gives_the_same_grid(monkeypatch, chunk):
    """(triangle, cell) pairs are tested in chunks of at most _MAX_PAIRS; the chunk size is a memory
    bound only. Oracle: the same scene with one chunk holding every pair, and the pair list itself."""
    import geometry.occupancy as occ

    parts = [box_part((0.22, 0.42, 0.0), (0.38, 0.58, 0.5), 5), box_part((0.52, 0.12, 0.0), (0.88, 0.28, 1.0), 6),
             box_part((0.12, 0.72, 1.9), (0.18, 0.78, 2.2), 7)]
    whole = grid_of(*parts)
    tri = np.arange(3)
    i0 = np.array([[1, 2], [0, 0], [5, 5]])
    nx_, ny_ = np.array([2, 0, 3]), np.array([3, 4, 1])  # 6, 0 and 3 cells
    want = [(0, 1, 2), (0, 2, 2), (0, 1, 3), (0, 2, 3), (0, 1, 4), (0, 2, 4), (2, 5, 5), (2, 6, 5), (2, 7, 5)]
    monkeypatch.setattr(occ, "_MAX_PAIRS", chunk)
    chunks = list(occ._expand(tri, i0, nx_, ny_))
    got = [(int(t), int(x), int(y)) for c in chunks for t, x, y in zip(*c)]
    assert got == want
    assert all(len(c[0]) <= max(chunk, 6) for c in chunks)  # a triangle's cells are never split
    assert len(chunks) == {1: 2, 7: 2, 50: 1}[chunk]
    g = grid_of(*parts)
    assert np.array_equal(g.occupied, whole.occupied) and np.array_equal(g.object_cells, whole.object_cells)
    assert g.footprints.keys() == whole.footprints.keys()
    assert all(np.array_equal(g.footprints[k], whole.footprints[k]) for k in g.footprints)
    tri_floor = trimesh.Trimesh([[0, 0, 0], [0.5, 0, 0], [0, 0.5, 0]], [[0, 1, 2]], process=False)
    m = SceneMesh.from_trimesh_parts([(1, "floor", tri_floor)])
    assert cells(occupancy_from_mesh(m, {1}, P, bounds=(0, 0, 0.5, 0.5)).floor) == sorted(
        (ix, iy) for ix in range(5) for iy in range(5) if ix + iy <= 4)
    assert list(occ._expand(tri, i0, np.zeros(3, np.int64), ny_)) == []


# ------------------------------------------------------------ geometry beyond the grid


def test_geometry_beyond_the_bounds_marks_only_cells_inside():
    """Obstacles straddling or just outside each edge of the 10 x 10 grid over (0, 0)-(1, 1): only
    their cells inside the grid are marked, never a cell a row or column away (flat-index wrap)."""
    big_floor = trimesh.Trimesh(np.array([[-0.5, -0.5, 0], [1.54, -0.5, 0], [-0.5, 1.54, 0]], float), [[0, 1, 2]],
                                process=False)  # covers the cell centres with x + y <= 1.04: ix + iy <= 9
    parts = [(1, "floor", big_floor),
             box_part((-0.2, 0.42, 0.0), (0.15, 0.48, 0.5), 3),   # straddles x = 0: cells (0, 4), (1, 4)
             box_part((0.93, 0.62, 0.0), (1.3, 0.68, 0.5), 4),    # straddles x = 1: (9, 6)
             box_part((1.02, 0.22, 0.0), (1.2, 0.28, 0.5), 5),    # just right of the grid: none
             box_part((0.52, -0.3, 0.0), (0.58, 0.04, 0.5), 6),   # straddles y = 0: (5, 0)
             box_part((0.72, 0.97, 0.0), (0.78, 1.4, 0.5), 7),    # straddles y = 1: (7, 9)
             box_part((0.32, 1.02, 0.0), (0.38, 1.3, 0.5), 8),    # just above: none
             box_part((-0.3, 0.12, 0.0), (-0.02, 0.18, 0.5), 9),  # just left: none
             box_part((0.12, -0.3, 0.0), (0.18, -0.02, 0.5), 10)]  # just below: none
    g = occupancy_from_mesh(SceneMesh.from_trimesh_parts(parts), {1}, P, bounds=(0, 0, 1, 1))
    assert g.shape == (10, 10)
    assert cells(g.floor) == sorted((ix, iy) for ix in range(10) for iy in range(10) if ix + iy <= 9)
    want = {3: [(0, 4), (1, 4)], 4: [(9, 6)], 6: [(5, 0)], 7: [(7, 9)]}
    assert cells(g.occupied) == sorted(c for v in want.values() for c in v)
    for oid, cs in want.items():
        assert cells(g.object_cells == oid) == cs
        assert cells(footprint_mask(g, oid)) == cs
    assert sorted(g.footprints) == [3, 4, 6, 7]


def test_grid_with_a_negative_origin_marks_obstacles_where_they_stand():
    # bounds from (-0.3, -0.2): origin (-0.25, -0.15), a 13 x 12 grid; the box's cells are
    # x 0.22..0.38 -> ix 5, 6 (centres 0.25, 0.35) and y 0.42..0.58 -> iy 6, 7 (0.45, 0.55)
    g = occupancy_from_mesh(SceneMesh.from_trimesh_parts([floor_part(), box_part((0.22, 0.42, 0.0),
                                                                                 (0.38, 0.58, 0.5), 5)]),
                            {1}, P, bounds=(-0.3, -0.2, 1.0, 1.0))
    np.testing.assert_allclose(g.origin_xy, [-0.25, -0.15])
    assert g.shape == (12, 13)
    want = [(ix, iy) for ix in (5, 6) for iy in (6, 7)]
    assert cells(g.occupied) == want and cells(footprint_mask(g, 5)) == want


@pytest.mark.parametrize("x_hi, n", [(0.3 - 5e-7, 2), (0.3 - 2e-6, 1)])
def test_touching_a_cell_from_below_within_the_tolerance(x_hi, n):
    # a face 0.5 um short of the cell boundary x = 0.3 still touches cell 3 (contact within 1e-6 m);
    # 2 um short it does not
    g = grid_of(box_part((0.22, 0.42, 0.0), (x_hi, 0.48, 0.5), 5))
    assert cells(g.occupied) == [(2, 4), (3, 4)][:n]
    assert cells(footprint_mask(g, 5)) == [(2, 4), (3, 4)][:n]


@pytest.mark.parametrize("counts, chunk, sizes", [
    ([2, 2, 2, 2], 4, [4, 4]),   # chunks fill up to _MAX_PAIRS pairs, whole triangles only
    ([2, 2], 4, [4]),            # exactly _MAX_PAIRS pairs fit one chunk
    ([2, 3], 4, [2, 3]),         # 5 pairs would exceed the bound
    ([5, 1], 4, [5, 1]),         # a triangle with more cells than the bound is a chunk on its own
])
def test_chunks_are_as_full_as_the_bound_allows(monkeypatch, counts, chunk, sizes):
    import geometry.occupancy as occ

    monkeypatch.setattr(occ, "_MAX_PAIRS", chunk)
    n = len(counts)
    out = list(occ._expand(np.arange(n), np.zeros((n, 2), np.int64), np.array(counts), np.ones(n, np.int64)))
    assert [len(t) for t, _, _ in out] == sizes
    assert np.concatenate([t for t, _, _ in out]).tolist() == np.repeat(np.arange(n), counts).tolist()


# ------------------------------------------------------- touching within the tolerance, exactly


def _with_far_company(tri: np.ndarray, n: int = 50) -> np.ndarray:
    """The triangle first, then `n` large triangles far from the origin: a batch in which a
    tolerance scaled by the whole batch's lengths instead of the triangle's own would be large."""
    rng = np.random.default_rng(7)
    far = rng.uniform(-500.0, 500.0, (n, 3, tri.shape[1]))
    far[..., 0] += 5000.0
    return np.concatenate([tri[None], far])


def _symmetries(tri: np.ndarray):
    """The triangle under every sign flip of the axes, in both windings (the square or box at the
    origin is symmetric under them, so each must give the same answer)."""
    dim = tri.shape[1]
    for signs in np.ndindex(*(2,) * dim):
        flipped = tri * np.where(np.array(signs) == 1, -1.0, 1.0)
        yield flipped
        yield flipped[::-1]


@pytest.mark.parametrize("gap, touching", [(0.0, True), (1e-7, True), (5e-7, True), (1e-5, False), (1e-3, False)])
def test_2d_contact_within_a_micrometre_counts_on_every_axis(gap, touching):
    """Square of half side 0.5 at the origin; contact within eps = 1e-6 m counts as overlap.
    Three triangles `gap` metres away: one across a square axis (a vertex before the face
    x = 0.5), and two across an edge normal (a long edge on the line x + y = 1 + gap*sqrt(2),
    which passes the corner (0.5, 0.5) at distance gap), tested under all 8 symmetries, each in a
    batch with far triangles, so that every tolerance must be the triangle's own."""
    across_face = np.array([[0.5 + gap, 0.0], [3.0, -1.0], [3.0, 1.0]])
    c = 1.0 + gap * np.sqrt(2.0)
    across_edge_long = np.array([[c + 20.0, -20.0], [-20.0, c + 20.0], [30.0, 30.0]])
    across_edge_short = np.array([[c + 0.3, -0.3], [-0.3, c + 0.3], [2.0, 2.0]])
    for tri in (across_face, across_edge_long, across_edge_short):
        for t in _symmetries(tri):
            b = _with_far_company(t)
            got = _tri_square_overlap_2d(b[:, 0], b[:, 1], b[:, 2], np.zeros((len(b), 2)), 0.5, 1e-6)
            assert bool(got[0]) is touching and not got[1:].any(), (gap, t)


@pytest.mark.parametrize("gap, touching", [(0.0, True), (1e-7, True), (5e-7, True), (1e-5, False), (1e-3, False)])
def test_3d_contact_within_a_micrometre_counts_on_every_axis(gap, touching):
    """Cube of half side 0.5 at the origin, eps = 1e-6 m. Triangles `gap` metres away across each
    kind of separating axis: a face normal (a vertex before x = 0.5), the triangle's own normal (a
    large triangle in the plane z = 0.5 + gap, whose normal is long), and an edge x axis cross
    product (a long edge along the line through (.., 0.5 + gap/sqrt2, 0.5 + gap/sqrt2) parallel to x,
    passing the cube's x edge at distance gap), under all 16 symmetries; each in a batch with far
    triangles, so that every tolerance must be the triangle's own."""
    across_face = np.array([[0.5 + gap, 0.0, 0.0], [3.0, -1.0, 0.2], [3.0, 1.0, -0.2]])
    z = 0.5 + gap
    big_plane = np.array([[-30.0, -30.0, z], [30.0, -30.0, z], [0.0, 30.0, z]])
    d = 0.5 + gap / np.sqrt(2.0)
    # the edge runs along x at (y, z) = (d, d); the third corner leans away from the cube along (1, 1)
    across_edge = np.array([[-25.0, d, d], [25.0, d, d], [0.0, d + 2.0, d + 2.0]])
    # a large triangle in the plane x + y + z = 1.5 + gap*sqrt3, which passes the corner
    # (0.5, 0.5, 0.5) at distance gap: only the triangle's own normal separates it
    k = 1.5 + gap * np.sqrt(3.0)
    corner_plane = np.array([[k + 40.0, -20.0, -20.0], [-20.0, k + 40.0, -20.0], [-20.0, -20.0, k + 40.0]])
    for tri in (across_face, big_plane, across_edge, corner_plane):
        for t in _symmetries(tri):
            b = _with_far_company(t)
            got = _tri_box_overlap(b[:, 0], b[:, 1], b[:, 2], np.zeros((len(b), 3)), np.full((len(b), 3), 0.5), 1e-6)
            assert bool(got[0]) is touching and not got[1:].any(), (gap, t)


def _centres_inside(tri2: np.ndarray, xs: np.ndarray, ys: np.ndarray, tol: float) -> np.ndarray:
    """Oracle: barycentric coordinates of every cell centre, all >= -tol (on the edge counts)."""
    (x0, y0), (x1, y1), (x2, y2) = tri2
    det = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
    X, Y = np.meshgrid(xs, ys)
    l1 = ((X - x0) * (y2 - y0) - (x2 - x0) * (Y - y0)) / det
    l2 = ((x1 - x0) * (Y - y0) - (X - x0) * (y1 - y0)) / det
    return (l1 >= -tol) & (l2 >= -tol) & (1 - l1 - l2 >= -tol)


def test_floor_cells_are_the_centres_inside_any_triangle_in_either_winding():
    """Random floor triangles away from the origin, wound either way, on a 0.125 m grid:
    the rasterised cells equal the barycentric test of every centre (cells whose centre lies
    within 1e-6 of an edge are not compared)."""
    rng = np.random.default_rng(1612)
    cell, W, H = 0.125, 40, 32
    origin = np.array([3.0 + cell / 2, -2.0 + cell / 2])
    xs, ys = origin[0] + cell * np.arange(W), origin[1] + cell * np.arange(H)
    for _ in range(30):
        tri2 = rng.uniform([2.5, -2.5], [8.5, 2.5], (3, 2))
        tris = np.concatenate([tri2, np.zeros((3, 1))], axis=1)[None]
        strict, loose = _centres_inside(tri2, xs, ys, -1e-6), _centres_inside(tri2, xs, ys, 1e-6)
        for t in (tris, tris[:, ::-1]):
            got = _rasterise_floor(t, origin, cell, W, H)
            decided = strict == loose
            assert np.array_equal(got[decided], strict[decided])
            assert strict.any() or not got.any()


def test_floor_centres_on_a_triangles_corners_and_edges_count():
    """A right triangle whose corners are cell centres (exact in binary: 0.125 m cells): the
    centres on its corners and edges are floor, including the lowest and highest ones, which
    sit exactly on its bounding box."""
    cell, W, H = 0.125, 8, 8
    origin = np.array([cell / 2, cell / 2])
    c = lambda i: cell / 2 + cell * i  # noqa: E731
    tri = np.array([[[c(1), c(1), 0.0], [c(5), c(1), 0.0], [c(1), c(5), 0.0]]])
    want = sorted((ix, iy) for ix in range(1, 6) for iy in range(1, 6) if ix + iy <= 6)
    for t in (tri, tri[:, ::-1]):
        assert cells(_rasterise_floor(t, origin, cell, W, H)) == want
