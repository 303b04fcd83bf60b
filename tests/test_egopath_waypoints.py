"""EgoPathBench marker placement and per-view annotation on a hand-built room.

The room (x in [-3, 3], y in [-1, 7], floor id 1, walls id 2) holds a table (3), two
low crates (4, 5) leaving a 0.45 m gap between them (narrower than the 0.6 m body) and
a cabinet (6) behind the crates. A camera at eye height looks forward-down. Every
label is re-derived here independently: visibility by casting the marker's own pixel
ray, feasibility by a brute-force clearance over the grid's free cells, edges by
re-sampling segments, goals by distance to the box footprint rectangle.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import trimesh

from geometry.camera import CameraPose, PhoneLens, look_at, project
from geometry.egopath_schema import GeometryParams, TargetInfo, ViewAnnotation
from geometry.occupancy import occupancy_from_mesh
from geometry.raycast import Raycaster, SceneMesh
from geometry.view_annotation import AnnotationParams, NoStartError, build_view_annotation, verify_route
from geometry.waypoints import (
    Marker,
    floor_visibility,
    insert_required,
    sample_ground_candidates,
    sample_surface_negatives,
    start_candidate,
    visible_floor_pool,
)

W, H = 480, 360
SPACING = 29.0  # the default for a 480 px long side (6%)
MARGIN = 14.0   # 3%
ROUTE_SPACING = 19.0  # inserted route waypoints: 4% (> two 8 px overlay marker radii at 480 x 360)
PARAMS = GeometryParams()
R_EMB = PARAMS.body_radius_m

TABLE = ((-1.6, 2.6, 0.0), (-0.8, 3.4, 0.75))
CRATE_A = ((0.2, 2.0, 0.0), (1.4, 2.4, 0.4))
CRATE_B = ((1.85, 2.0, 0.0), (3.0, 2.4, 0.4))
CABINET = ((1.2, 4.4, 0.0), (2.0, 4.8, 1.0))
GAP_X = (1.4, 1.85)  # 0.45 m between the crates
OBSTACLES = [2, 3, 4, 5, 6]


# ---------------------------------------------------------------- scene helpers


def box(lo, hi) -> trimesh.Trimesh:
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return trimesh.creation.box(extents=hi - lo, transform=trimesh.transformations.translation_matrix((lo + hi) / 2))


def floor_quad(x0, x1, y0, y1) -> trimesh.Trimesh:
    v = np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], float)
    return trimesh.Trimesh(v, [[0, 1, 2], [0, 2, 3]], process=False)


def walls():
    return [
        (2, "walls", box((-3.1, -1.1, 0), (-3.0, 7.1, 2.5))),
        (2, "walls", box((3.0, -1.1, 0), (3.1, 7.1, 2.5))),
        (2, "walls", box((-3.1, 7.0, 0), (3.1, 7.1, 2.5))),
        (2, "walls", box((-3.1, -1.1, 0), (3.1, -1.0, 2.5))),
    ]


def room(crate_a=CRATE_A, with_table=True) -> SceneMesh:
    parts = [(1, "floor", floor_quad(-3, 3, -1, 7)), *walls()]
    if with_table:
        parts.append((3, "table", box(*TABLE)))
    parts += [(4, "crate_a", box(*crate_a)), (5, "crate_b", box(*CRATE_B)), (6, "cabinet", box(*CABINET))]
    return SceneMesh.from_trimesh_parts(parts)


def make_pose(eye=(0.3, -0.6, 1.5), target=(0.5, 3.5, 0.0), width=W, height=H) -> CameraPose:
    f = 0.75 * width
    K = [[f, 0.0, (width - 1) / 2], [0.0, f, (height - 1) / 2], [0.0, 0.0, 1.0]]
    lens = PhoneLens(name="main", focal_mm=6.0, sensor_width_mm=8.0, sensor_height_mm=6.0,
                     fnumber=1.8, equiv_focal_mm=26.0)
    return CameraPose(width=width, height=height, K=K, cam_to_world=look_at(eye, target).tolist(),
                      orientation="landscape", lens=lens, sensor_width_mm=8.0, focus_mode="pinhole",
                      focus_distance_m=None, shutter_s=0.01)


def target_info(oid, name, lo, hi) -> TargetInfo:
    return TargetInfo(object_id=oid, name=name, category=name, color="red", bbox_px=[0, 0, 80, 80],
                      visible_surface=0.8, distance_m=3.0, strict_visible=True, same_category_in_view=1,
                      footprint_xy=[[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])


TARGETS = [target_info(3, "table", *TABLE), target_info(6, "cabinet", *CABINET)]
TEXTS = {3: "the table", 6: "the cabinet"}


@pytest.fixture(scope="module")
def scene():
    mesh = room()
    rc = Raycaster(mesh)
    grid = occupancy_from_mesh(mesh, {1}, PARAMS)
    return mesh, rc, grid, make_pose()


def build(scene, seed=0, **kw) -> ViewAnnotation:
    mesh, rc, grid, pose = scene
    args = dict(mesh=mesh, raycaster=rc, grid=grid, pose=pose, targets=TARGETS, floor_ids=[1],
                obstacle_ids=OBSTACLES, rng=np.random.default_rng(seed),
                params=AnnotationParams(geometry=PARAMS, n_ground=12, n_surface=4), target_texts=TEXTS)
    args.update(kw)
    return build_view_annotation(**args)


@pytest.fixture(scope="module")
def ann(scene):
    return build(scene)


# ------------------------------------------------------------ independent oracles


def brute_clearance(grid, xy) -> np.ndarray:
    """Distance from each point's cell centre to the nearest non-free cell centre, the
    ring of cells just outside the grid counting as non-free (brute force, no EDT)."""
    Hh, Ww = grid.shape
    free = np.zeros((Hh + 2, Ww + 2), bool)
    free[1:-1, 1:-1] = grid.free
    iy, ix = np.nonzero(~free)
    blocked = grid.cell_to_world(ix - 1, iy - 1)
    xy = np.atleast_2d(xy)
    ix0, iy0 = grid.world_to_cell(xy)
    centres = grid.cell_to_world(ix0, iy0)
    out = np.empty(len(xy))
    for k, c in enumerate(centres):
        out[k] = np.sqrt(np.min(np.sum((blocked - c) ** 2, axis=1)))
    return out


def brute_free(grid, xy) -> np.ndarray:
    ix, iy = grid.world_to_cell(np.atleast_2d(xy))
    ok = (ix >= 0) & (ix < grid.shape[1]) & (iy >= 0) & (iy < grid.shape[0])
    out = np.zeros(len(ix), bool)
    out[ok] = grid.free[iy[ok], ix[ok]]
    return out


def brute_feasible(grid, xy, radius) -> np.ndarray:
    f = brute_free(grid, xy)
    if radius == 0:
        return f
    return f & (brute_clearance(grid, xy) >= radius - 1e-9)


def brute_segment_ok(grid, a, b, radius, step=0.05) -> bool:
    """The documented edge contract: samples at a, every `step` metres from a, and at b."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    length = float(np.hypot(*(b - a)))
    s = np.append(np.arange(0.0, length - 1e-9, step), length)
    pts = a[None, :] + (s / max(length, 1e-12))[:, None] * (b - a)[None, :]
    return bool(np.all(brute_feasible(grid, pts, radius)))


def dist_to_rect(xy, lo, hi) -> float:
    dx = max(lo[0] - xy[0], 0.0, xy[0] - hi[0])
    dy = max(lo[1] - xy[1], 0.0, xy[1] - hi[1])
    return float(np.hypot(dx, dy))


def exact_pixel_hit(rc, pose, uv):
    """Ray through the exact (fractional) pixel, built here from K and the pose."""
    K = pose.K_array()
    T = pose.cam_to_world_array()
    d = T[:3, :3] @ np.linalg.solve(K, np.array([uv[0], uv[1], 1.0]))
    t, oid, _, _ = rc.cast(T[:3, 3][None, :], d[None, :])
    return float(t[0]), int(oid[0])


# ---------------------------------------------------------------- waypoints.py


def test_ground_candidates_are_visible_floor_and_spaced(scene):
    mesh, rc, grid, pose = scene
    ms = sample_ground_candidates(rc, pose, [1], np.random.default_rng(3), n_max=15,
                                  min_spacing_px=SPACING, margin_px=MARGIN, max_distance_m=6.0)
    assert len(ms) == 15
    C = pose.center
    ids, depth = rc.first_hit_ids_for_pixels(pose.K_array(), pose.cam_to_world_array(), W, H)
    for m in ms:
        uv, z = project(np.array([m.world]), pose.K_array(), pose.cam_to_world_array())
        assert np.allclose(uv[0], m.pixel, atol=1e-6)
        t, oid = exact_pixel_hit(rc, pose, m.pixel)
        assert oid == 1 and abs(t - np.linalg.norm(m.xyz - C)) < 0.01
        u, v = int(round(m.pixel[0])), int(round(m.pixel[1]))
        assert ids[v, u] == 1 and abs(depth[v, u] - z[0]) < 0.05 * z[0]
        assert MARGIN - 0.5 <= m.pixel[0] <= W - 0.5 - MARGIN and MARGIN - 0.5 <= m.pixel[1] <= H - 0.5 - MARGIN
        assert np.hypot(m.world[0] - C[0], m.world[1] - C[1]) <= 6.0
    for a, b in itertools.combinations(ms, 2):
        assert np.hypot(*(a.uv - b.uv)) >= SPACING


def test_floor_pool_disc_keeps_markers_off_occluding_edges(scene):
    mesh, rc, grid, pose = scene
    loose = visible_floor_pool(rc, pose, [1], np.random.default_rng(7), step_px=4.0, margin_px=MARGIN, clear_px=0.0)
    tight = visible_floor_pool(rc, pose, [1], np.random.default_rng(7), step_px=4.0, margin_px=MARGIN, clear_px=3.0)
    ids, _ = rc.first_hit_ids_for_pixels(pose.K_array(), pose.cam_to_world_array(), W, H)
    kept = {tuple(p) for p in tight.uv}
    assert kept <= {tuple(p) for p in loose.uv} and len(tight) < len(loose)
    removed = [p for p in loose.uv if tuple(p) not in kept]
    for u, v in removed:  # each dropped pixel has something other than floor within ~3 px
        win = ids[max(0, int(v) - 4):int(v) + 5, max(0, int(u) - 4):int(u) + 5]
        assert np.any(win != 1)
    for u, v in tight.uv:  # every kept pixel shows floor at its rounded centre
        assert ids[int(round(v)), int(round(u))] == 1


def test_ground_sampling_respects_placed_and_accept(scene):
    mesh, rc, grid, pose = scene
    placed = [Marker((240.0, 300.0), (0.3, 1.2, 0.0), 1, "ground")]
    in_left = lambda xy: xy[:, 0] < 0.0  # noqa: E731
    ms = sample_ground_candidates(rc, pose, [1], np.random.default_rng(4), n_max=50,
                                  min_spacing_px=60.0, margin_px=MARGIN, placed=placed, accept=in_left)
    assert 0 < len(ms) < 50  # the spacing, not n_max, limits the count
    assert all(m.world[0] < 0.0 for m in ms)
    assert all(np.hypot(*(m.uv - placed[0].uv)) >= 60.0 for m in ms)


def test_surface_negatives_not_floor_and_mixed_objects(scene):
    mesh, rc, grid, pose = scene
    ms = sample_surface_negatives(rc, pose, np.random.default_rng(5), obstacle_ids=OBSTACLES, n=5,
                                  min_spacing_px=SPACING, margin_px=MARGIN)
    assert len(ms) == 5
    assert len({m.object_id for m in ms}) == 5  # round robin: one per visible object first
    C = pose.center
    for m in ms:
        t, oid = exact_pixel_hit(rc, pose, m.pixel)
        assert oid == m.object_id != 1
        assert abs(t - np.linalg.norm(m.xyz - C)) < 0.01
        assert m.world[2] >= 0.1 and m.kind == "surface"


def test_start_candidate_bottom_centre_and_embodied_feasible(scene):
    mesh, rc, grid, pose = scene
    feas = lambda xy: brute_feasible(grid, xy, R_EMB)  # noqa: E731
    s = start_candidate(rc, pose, [1], feasible=feas, margin_px=MARGIN)
    assert s is not None and s.kind == "ground" and s.object_id == 1
    assert s.pixel[1] >= H - 0.5 - MARGIN - 4.0 and abs(s.pixel[0] - (W - 1) / 2) <= 4.0
    assert feas(s.xy[None, :])[0]
    assert start_candidate(rc, pose, [1], feasible=lambda xy: np.zeros(len(xy), bool)) is None


def test_insert_required_snaps_inserts_and_refuses(scene):
    mesh, rc, grid, pose = scene
    markers = [Marker((240.0, 340.0), (0.37, 0.92, 0.0), 1, "ground")]
    # Within 0.25 m of a ground marker: reuse it.
    assert insert_required(rc, pose, [1], (0.5, 1.0, 0.0), markers, min_spacing_px=SPACING) == 0
    assert len(markers) == 1
    # Visible, far enough: inserted with its own pixel.
    i = insert_required(rc, pose, [1], (-0.4, 3.0, 0.0), markers, min_spacing_px=SPACING, margin_px=MARGIN)
    assert i == 1 and markers[1].world == (-0.4, 3.0, 0.0)
    uv, _ = project(np.array([[-0.4, 3.0, 0.0]]), pose.K_array(), pose.cam_to_world_array())
    assert np.allclose(markers[1].pixel, uv[0])
    # Floor right behind the low crate is hidden from the camera: refused.
    hidden = (0.8, 2.6, 0.0)
    vis, _ = floor_visibility(rc, pose, [1], np.array([hidden]))
    assert not vis[0]
    assert insert_required(rc, pose, [1], hidden, markers, min_spacing_px=SPACING) is None
    # Visible but crowding an existing marker (a few pixels away, > 0.25 m): refused.
    near = (-0.4, 3.3, 0.0)
    assert insert_required(rc, pose, [1], near, markers, min_spacing_px=200.0) is None
    assert len(markers) == 2


# ------------------------------------------------------------ view_annotation.py


def _ground_and_surface(sheet):
    return [w for w in sheet.waypoints if w.kind == "ground"], [w for w in sheet.waypoints if w.kind == "surface"]


def test_sheets_markers_visible_spaced_and_labelled(scene, ann):
    mesh, rc, grid, pose = scene
    C = pose.center
    for sheet, spacing in ((ann.traversability, SPACING), (ann.route, ROUTE_SPACING)):
        assert [w.display_id for w in sheet.waypoints] == list(range(1, len(sheet.waypoints) + 1))
        for a, b in itertools.combinations(sheet.waypoints, 2):
            assert np.hypot(a.pixel[0] - b.pixel[0], a.pixel[1] - b.pixel[1]) >= spacing - 1e-9
        for w in sheet.waypoints:
            uv, _ = project(np.array([w.world]), pose.K_array(), pose.cam_to_world_array())
            assert np.allclose(uv[0], w.pixel, atol=1e-6)
            t, oid = exact_pixel_hit(rc, pose, w.pixel)
            assert abs(t - np.linalg.norm(np.subtract(w.world, C))) < 0.01
            assert (oid == 1) == (w.kind == "ground") and oid == w.object_id
            xy = np.array([w.world[:2]])
            if w.kind == "ground":
                assert w.point_feasible == bool(brute_free(grid, xy)[0])
                assert w.embodied_feasible == bool(brute_feasible(grid, xy, R_EMB)[0])
                assert w.clearance_m == pytest.approx(min(brute_clearance(grid, xy)[0], 5.0) if brute_free(grid, xy)[0] else 0.0)
            else:
                assert not w.point_feasible and not w.embodied_feasible
    g, s = _ground_and_surface(ann.traversability)
    assert len(g) == 13 and len(s) == 4  # start + 12 ground, 4 surface negatives
    assert len(_ground_and_surface(ann.route)[1]) == 0
    start = ann.traversability.waypoints[0]
    assert start.pixel[1] > 0.8 * H and start.embodied_feasible
    assert ann.route.waypoints[0] == start
    # the paper's mix: feasible ground, clearance-sensitive ground, surface negatives
    assert any(w.embodied_feasible for w in g[1:])
    assert any(w.point_feasible and not w.embodied_feasible for w in g)
    # the route sheet holds the traversability ground candidates (ids reshuffled)
    route_worlds = {tuple(w.world) for w in ann.route.waypoints}
    assert {tuple(w.world) for w in g} <= route_worlds


def test_edges_agree_with_independent_segment_checks(scene, ann):
    mesh, rc, grid, pose = scene
    wps = {w.display_id: w for w in ann.route.waypoints}
    for edges, radius, flag in ((ann.route.point_edges, 0.0, "point_feasible"),
                                (ann.route.embodied_edges, R_EMB, "embodied_feasible")):
        assert edges == sorted(edges) and all(a < b for a, b in edges)
        es = {tuple(e) for e in edges}
        for a, b in itertools.combinations(sorted(wps), 2):
            legal = (getattr(wps[a], flag) and getattr(wps[b], flag)
                     and brute_segment_ok(grid, wps[a].world[:2], wps[b].world[:2], radius))
            assert ((a, b) in es) == legal, (a, b, radius)
    assert set(map(tuple, ann.route.embodied_edges)) <= set(map(tuple, ann.route.point_edges))


def test_route_units_verify(scene, ann):
    mesh, rc, grid, pose = scene
    wps = {w.display_id: w for w in ann.route.waypoints}
    boxes = {3: TABLE, 6: CABINET}
    assert [u.target_object_id for u in ann.routes] == [3, 6]
    assert [u.route_id for u in ann.routes] == ["0", "1"]
    for u in ann.routes:
        lo, hi = boxes[u.target_object_id]
        for agent, radius, edges in (("point", 0.0, ann.route.point_edges),
                                     ("embodied", R_EMB, ann.route.embodied_edges)):
            goals = getattr(u, f"{agent}_goal_ids")
            ref = getattr(u, f"{agent}_reference")
            for g in goals:
                assert getattr(wps[g], f"{agent}_feasible")
                # goal ring: cell centre within radius + ring of the footprint (+ one cell of rasterisation)
                c = grid.cell_to_world(*grid.world_to_cell(np.array(wps[g].world[:2])))
                assert dist_to_rect(c, lo, hi) <= radius + PARAMS.goal_ring_m + PARAMS.grid_m * 1.5
            assert ref is not None, (u.route_id, agent)
            assert ref[0] == 1 and ref[-1] in goals
            es = {tuple(e) for e in edges}
            for a, b in zip(ref[:-1], ref[1:]):
                assert (min(a, b), max(a, b)) in es
                assert brute_segment_ok(grid, wps[a].world[:2], wps[b].world[:2], radius)
            length = sum(np.hypot(wps[b].world[0] - wps[a].world[0], wps[b].world[1] - wps[a].world[1])
                         for a, b in zip(ref[:-1], ref[1:]))
            shortest = getattr(u, f"{agent}_shortest_m")
            assert shortest is not None and shortest <= length + 1e-9
        assert 0.0 <= u.embodied_narrow_fraction <= 1.0
        assert u.target_text == TEXTS[u.target_object_id]


def _crossing_x(ann, route, y=2.2):
    """x where a route's polyline crosses the crate line y (None if it never does)."""
    wps = {w.display_id: w for w in ann.route.waypoints}
    for a, b in zip(route[:-1], route[1:]):
        (x0, y0), (x1, y1) = wps[a].world[:2], wps[b].world[:2]
        if (y0 - y) * (y1 - y) <= 0 and y0 != y1:
            return x0 + (y - y0) / (y1 - y0) * (x1 - x0)
    return None


def test_narrow_gap_point_through_embodied_detours(ann):
    cab = next(u for u in ann.routes if u.target_object_id == 6)
    xp = _crossing_x(ann, cab.point_reference)
    xe = _crossing_x(ann, cab.embodied_reference)
    assert xp is not None and GAP_X[0] < xp < GAP_X[1]  # the point agent slips through the gap
    assert xe is not None and xe < CRATE_A[0][0] - R_EMB + 1e-6  # the body goes round crate_a
    assert cab.embodied_shortest_m > 0


def test_narrow_gap_only_way_embodied_route_absent():
    # crate_a now reaches the left wall: the 0.45 m gap is the only way to the cabinet.
    mesh = room(crate_a=((-3.0, 2.0, 0.0), (1.4, 2.4, 0.4)), with_table=False)
    rc = Raycaster(mesh)
    grid = occupancy_from_mesh(mesh, {1}, PARAMS)
    pose = make_pose()
    a = build_view_annotation(mesh=mesh, raycaster=rc, grid=grid, pose=pose, targets=[TARGETS[1]],
                              floor_ids=[1], obstacle_ids=[2, 4, 5, 6], rng=np.random.default_rng(1),
                              target_texts=TEXTS, params=AnnotationParams(n_ground=12, n_surface=3))
    assert len(a.routes) == 1
    u = a.routes[0]
    assert u.point_reference is not None and u.point_shortest_m > 0
    assert u.embodied_reference is None and u.embodied_shortest_m is None
    assert u.embodied_narrow_fraction is None
    xp = _crossing_x(a, u.point_reference)
    assert GAP_X[0] < xp < GAP_X[1]
    # A point in the gap is point-feasible but not embodied-feasible.
    gap = np.array([[sum(GAP_X) / 2, 2.2]])
    assert brute_free(grid, gap)[0] and not brute_feasible(grid, gap, R_EMB)[0]


def test_determinism_and_seed_dependence(scene, ann):
    assert build(scene).model_dump_json() == ann.model_dump_json()
    assert build(scene, seed=1).model_dump_json() != ann.model_dump_json()
    assert ViewAnnotation.model_validate_json(ann.model_dump_json()) == ann


def test_bad_inputs(scene):
    mesh, rc, grid, pose = scene
    with pytest.raises(ValueError, match="target text"):
        build(scene, target_texts={3: "the table"})
    with pytest.raises(ValueError, match="both floor and obstacle"):
        build(scene, obstacle_ids=[1, 2])
    wall_pose = make_pose(eye=(0.0, 6.5, 1.5), target=(0.0, 7.5, 1.5))  # staring at the far wall
    with pytest.raises(NoStartError):
        build(scene, pose=wall_pose)


def test_verify_route_rejects_broken_routes():
    import networkx as nx

    G = nx.Graph()
    for i in (1, 2, 3, 4):
        G.add_node(i, feasible=i != 4)
    G.add_edge(1, 2, weight=1.0)
    G.add_edge(2, 3, weight=1.0)
    G.add_edge(3, 4, weight=1.0)
    assert verify_route(G, [1, 2, 3], 1, [3])
    assert not verify_route(G, [2, 3], 1, [3])        # wrong start
    assert not verify_route(G, [1, 3], 1, [3])        # no such edge
    assert not verify_route(G, [1, 2], 1, [3])        # ends off the goal set
    assert not verify_route(G, [1, 2, 3, 4], 1, [4])  # infeasible node


# ------------------------------------------------ route-question rules (egopath-2)

STOOL = ((0.72, 0.7, 0.0), (1.02, 1.1, 0.45))  # 0.36 m beside the start: the body is already there


def _with_stool():
    parts = [(1, "floor", floor_quad(-3, 3, -1, 7)), *walls(), (3, "table", box(*TABLE)),
             (4, "crate_a", box(*CRATE_A)), (5, "crate_b", box(*CRATE_B)), (6, "cabinet", box(*CABINET)),
             (9, "stool", box(*STOOL))]
    mesh = SceneMesh.from_trimesh_parts(parts)
    return mesh, Raycaster(mesh), occupancy_from_mesh(mesh, {1}, PARAMS), make_pose()


def _build_stool(min_target_start_m=0.0):
    mesh, rc, grid, pose = _with_stool()
    return build_view_annotation(
        mesh=mesh, raycaster=rc, grid=grid, pose=pose, targets=TARGETS + [target_info(9, "stool", *STOOL)],
        floor_ids=[1], obstacle_ids=[2, 3, 4, 5, 6, 9], rng=np.random.default_rng(0),
        target_texts={**TEXTS, 9: "the stool"},
        params=AnnotationParams(n_ground=12, n_surface=3, min_target_start_m=min_target_start_m))


def test_start_inside_the_goal_ring_is_no_route_question():
    """The start stands 0.36 m from the stool: inside the body's goal region (0.30 + 0.10 m)
    but outside the point agent's (0.10 m). The embodied reference is None, never [1]."""
    a = _build_stool()
    start = next(w for w in a.route.waypoints if w.display_id == 1)
    d = dist_to_rect(start.world[:2], *STOOL)
    assert PARAMS.goal_ring_m + PARAMS.grid_m < d < R_EMB + PARAMS.goal_ring_m
    stool = next(u for u in a.routes if u.target_object_id == 9)
    assert stool.embodied_reference is None and stool.embodied_shortest_m is None
    assert stool.embodied_narrow_fraction is None
    assert stool.point_reference is not None and len(stool.point_reference) >= 2
    for u in a.routes:
        for ref in (u.point_reference, u.embodied_reference):
            assert ref is None or len(ref) >= 2


def test_targets_near_the_start_get_no_route_unit():
    a = _build_stool(min_target_start_m=2.5)
    start = next(w for w in a.route.waypoints if w.display_id == 1).world[:2]
    far = sorted(i for i, r in ((3, TABLE), (6, CABINET), (9, STOOL)) if dist_to_rect(start, *r) >= 2.5)
    assert far == [6]  # table 2.05 m, stool 0.36 m, cabinet 3.59 m from the start
    assert [u.target_object_id for u in a.routes] == far
    assert {t.object_id for t in a.targets} == {3, 6, 9}  # filtered targets stay listed


BARRIER = ((-2.0, 2.0, 0.0), (1.6, 2.4, 0.4))  # gaps: x -3..-2 (off-frame) and 1.6..3 (in frame)
SHELF = ((-2.0, 4.4, 0.0), (-1.2, 4.8, 1.0))


def test_display_search_routes_through_the_shown_gap():
    """The shortest way to the shelf passes the barrier's left gap, outside the image, so the
    free-space route cannot be displayed; the display search finds the longer route through
    the right gap, every vertex a shown marker and every move legal."""
    parts = [(1, "floor", floor_quad(-3, 3, -1, 7)), *walls(), (7, "barrier", box(*BARRIER)),
             (8, "shelf", box(*SHELF))]
    mesh = SceneMesh.from_trimesh_parts(parts)
    rc, grid, pose = Raycaster(mesh), occupancy_from_mesh(mesh, {1}, PARAMS), make_pose()
    left_gap = np.array([[-2.5, 2.2, 0.0]])
    uv, z = project(left_gap, pose.K_array(), pose.cam_to_world_array())
    assert z[0] > 0 and uv[0, 0] < 0  # the left gap is out of frame

    def ann_(display_search):
        return build_view_annotation(mesh=mesh, raycaster=rc, grid=grid, pose=pose,
                                     targets=[target_info(8, "shelf", *SHELF)], floor_ids=[1], obstacle_ids=[2, 7, 8],
                                     rng=np.random.default_rng(0), target_texts={8: "the shelf"},
                                     params=AnnotationParams(n_ground=12, n_surface=3, display_search=display_search))

    assert ann_(False).routes == []
    a = ann_(True)
    assert len(a.routes) == 1
    u = a.routes[0]
    wps = {w.display_id: w for w in a.route.waypoints}
    for agent, radius in (("point", 0.0), ("embodied", R_EMB)):
        ref = getattr(u, f"{agent}_reference")
        assert ref is not None and ref[0] == 1
        for d in ref:
            px, py = wps[d].pixel
            assert MARGIN - 0.5 <= px <= W - 0.5 - MARGIN and MARGIN - 0.5 <= py <= H - 0.5 - MARGIN
            t, oid = exact_pixel_hit(rc, pose, wps[d].pixel)
            assert oid == 1 and abs(t - np.linalg.norm(np.subtract(wps[d].world, pose.center))) < 0.01
        for a_, b_ in zip(ref[:-1], ref[1:]):
            assert brute_segment_ok(grid, wps[a_].world[:2], wps[b_].world[:2], radius)
        assert dist_to_rect(wps[ref[-1]].world[:2], *SHELF) <= radius + PARAMS.goal_ring_m + 1.5 * PARAMS.grid_m
        x = _crossing_x(a, ref)
        assert x is not None and BARRIER[1][0] < x < 3.0  # through the right gap
