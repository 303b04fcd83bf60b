"""scorers.egopath_view on hand-made indoor scenes (no Blender): box furniture on a floor, the
mesh from `blender_envs.indoor.mesh.spec_mesh`, and cameras whose K is set by hand so that a
point projects exactly: f = W / 2 (a 90 degree horizontal FOV), cx = (W - 1) / 2, cy = (H - 1) / 2.

A camera at (1, 4, eye_z) with yaw 0 looks along +x with its right along -y and its down
along -z, so a point (x, y, z) lands at
    u = cx + f * (4 - y) / (x - 1),   v = cy + f * (eye_z - z) / (x - 1).
The target filters (distance, size, centre in frame, visible surface) are checked with
object-index images drawn by hand (`view_objects` takes one), so pixel counts and boxes are
exact; the visible surface and the floor-plane distance come from the real geometry.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import scorers.egopath_view as epv
from blender_envs.indoor.egopath import first_person_pose
from blender_envs.indoor.furniture import FBox
from blender_envs.indoor.layout import Furniture, IndoorSpec, Room, WallLine, Window
from blender_envs.indoor.mesh import spec_mesh, spec_objects
from geometry.egopath_schema import GeometryParams
from geometry.raycast import Raycaster, SceneMesh
from geometry.scene import SceneObject, SceneState, View
from scorers.context import SceneGeometry


def piece(name, category, xy, size, color="red", size_word="", boxes=None):
    w, d, h = size
    boxes = boxes or [FBox(lo=[-w / 2, -d / 2, 0.0], hi=[w / 2, d / 2, h])]
    return Furniture(name=name, category=category, room="room_0", color=color, rgb=[0.5, 0.1, 0.1],
                     size_word=size_word, size=list(size), position=list(xy), yaw_deg=0.0, boxes=boxes)


def walls_of(W, D, t=0.05):
    return [WallLine(name="wall_s", exterior=True, segments=[[-t, -t, W + t, t]]),
            WallLine(name="wall_n", exterior=True, segments=[[-t, D - t, W + t, D + t]]),
            WallLine(name="wall_w", exterior=True, segments=[[-t, -t, t, D + t]]),
            WallLine(name="wall_e", exterior=True, segments=[[W - t, -t, W + t, D + t]])]


def spec_of(furniture, W=12.0, D=8.0, walls=False, height=30.0, windows=(), seed=5):
    """One room W x D (floor at z = 0); no walls and a ceiling 30 m up unless asked."""
    room = Room(name="room_0", kind="living room", cell=[0.0, 0.0, W, D], interior=[0.05, 0.05, W - 0.05, D - 0.05],
                floor_style="wood", floor_rgb=[0.3, 0.2, 0.1], wall_rgb=[0.8, 0.8, 0.8])
    return IndoorSpec(env="egopath", scene_id=f"hand-{seed}", seed=seed, scene_group="g-hand", plan_size=[W, D],
                      wall_height_m=height, rooms=[room], walls=walls_of(W, D) if walls else [],
                      windows=list(windows), furniture=list(furniture))


def geo_of(spec, drop=()):
    mesh = spec_mesh(spec)
    objs = [o for o in spec_objects(spec) if o.name not in drop]
    state = SceneState(env="egopath", scene_id=spec.scene_id, spec=spec.model_dump(), objects=objs,
                       meshes="scenes/x.npz")
    return SceneGeometry(spec=spec, state=state, mesh=mesh, raycaster=Raycaster(mesh))


def pose_at(eye=(1.0, 4.0, 1.5), yaw=0.0, width=640, pitch=0.0):
    p = first_person_pose(list(eye), yaw, pitch, 90.0, width)
    return p.model_copy(update={"K": [[width / 2, 0.0, (width - 1) / 2], [0.0, width / 2, (p.height - 1) / 2],
                                      [0.0, 0.0, 1.0]]})


def ids_with(blocks, width=640, height=480):
    """An object-index image with each (id, u0, v0, w, h) block drawn (columns u0.., rows v0..)."""
    ids = np.zeros((height, width), np.int32)
    for oid, u0, v0, w, h in blocks:
        ids[v0:v0 + h, u0:u0 + w] = oid
    return ids


def obj_id(geo, name):
    return geo.object_id(name)


# --------------------------------------------------------------------------- object tables

def test_object_id_lists():
    """object_table order: floors, walls, ceiling, windows, furniture (id = position + 1)."""
    win = Window(centre=[4.0, 0.05], normal=[0.0, 1.0], width=1.0, z0=1.0, z1=2.0, room="room_0")
    spec = spec_of([piece("table_0", "table", (4.0, 4.0), (1.0, 1.0, 0.8)),
                    piece("chair_0", "chair", (6.0, 4.0), (0.5, 0.5, 0.9))], walls=True, height=2.5, windows=[win])
    geo = geo_of(spec)
    # 1 floor, 4 walls (2-5), ceiling 6, window 7, table 8, chair 9
    assert epv.floor_ids(geo) == [1]
    assert epv.ids_of(geo, ("wall",)) == [2, 3, 4, 5]
    assert epv.ids_of(geo, ("chair", "table")) == [8, 9]
    assert epv.obstacle_ids(geo) == [2, 3, 4, 5, 8, 9]
    assert epv.scale_of(pose_at(width=640)) == 1.0 and epv.scale_of(pose_at(width=1280)) == 2.0
    assert epv.scale_of(pose_at(width=160)) == 0.25


# --------------------------------------------------------------------------- the target filters

TABLE = piece("table_0", "table", (4.0, 4.0), (1.0, 1.0, 0.8))      # footprint x 3.5-4.5: 2.5 m from the camera
TABLE_GEO = geo_of(spec_of([TABLE]))
# visible_surface of two hand scenes below, from its 800 area-weighted samples drawn with seed 0
# (each within 0.05 of the area ratio worked out in its test)
VS_DESK, VS_TABLE_UNDER_BOARD = 0.7015, 0.4444


def test_view_objects_worked_example_from_a_ray_cast():
    """160 x 120 (f = 80, scale 0.25), eye 1.5 m. The table's near face (x = 3.5, depth 2.5)
    spans u = 79.5 -/+ 80 * 0.5 / 2.5 = 63.5..95.5 (columns 64-95), from v = 59.5 + 80 * 0.7 / 2.5
    = 81.9 to 59.5 + 80 * 1.5 / 2.5 = 107.5 (rows 82-107); the top (z = 0.8) from its far edge
    (depth 3.5): v = 59.5 + 80 * 0.7 / 3.5 = 75.5 (rows from 76) down to the near face."""
    pose = pose_at(width=160)
    targets, visible = epv.view_objects(TABLE_GEO, pose)
    oid = obj_id(TABLE_GEO, "table_0")
    # each row of the top: the depth of the ray at z = 0.8 is 56 / (v - 59.5); it covers |u - 79.5| <= 40 / depth
    top = 0
    for v in range(76, 82):
        half = 40.0 / (56.0 / (v - 59.5))
        top += sum(1 for u in range(160) if abs(u - 79.5) <= half)
    front = 32 * 26
    assert [v["name"] for v in visible] == ["table_0"]
    (vis,) = visible
    assert vis == {"object_id": oid, "name": "table_0", "category": "table", "color": "red", "size_word": "",
                   "room": "room_0", "distance_m": 2.5, "bbox_px": [63.5, 75.5, 95.5, 107.5], "centre_xy": [4.0, 4.0],
                   "pixels": front + top}
    (t,) = targets
    assert (t.object_id, t.name, t.category, t.color, t.size_word, t.room) == (oid, "table_0", "table", "red", "",
                                                                                "room_0")
    assert t.bbox_px == [63.5, 75.5, 95.5, 107.5] and t.distance_m == 2.5
    assert t.visible_surface > 0.99                       # the near face and the top, nothing in front
    assert t.strict_visible is True                       # short side 32 px >= 64 * 0.25, surface >= 0.5
    assert t.same_category_in_view == 1
    assert t.footprint_xy == [[3.5, 3.5], [4.5, 3.5], [4.5, 4.5], [3.5, 4.5]]


def _targets(geo, blocks, pose=None):
    pose = pose or pose_at()
    targets, visible = epv.view_objects(geo, pose, ids_with(blocks, pose.width, pose.height))
    return {t.name: t for t in targets}, {v["name"]: v for v in visible}


@pytest.mark.parametrize("near_x, kept", [(2.4, False), (2.5, True), (3.0, True), (9.0, True), (9.5, False),
                                          (9.1, False)])
def test_target_distance_band(near_x, kept):
    """Floor-plane distance from the camera (x = 1) to the footprint's near edge: 1.5-8 m, both ends in."""
    geo = geo_of(spec_of([piece("box_0", "box", (near_x + 0.25, 4.0), (0.5, 0.5, 1.0))]))
    targets, visible = _targets(geo, [(obj_id(geo, "box_0"), 300, 200, 40, 40)])
    assert visible["box_0"]["distance_m"] == pytest.approx(near_x - 1.0, abs=1e-12)
    assert ("box_0" in targets) is kept


@pytest.mark.parametrize("w, h, kept, strict", [
    (24, 30, True, False), (23, 30, False, False), (30, 24, True, False), (30, 23, False, False),
    (64, 70, True, True), (63, 70, True, False), (70, 63, True, False)])
def test_bbox_short_side_and_strict_at_640(w, h, kept, strict):
    """At 640 x 480 the short side of the visible box must be >= 24 px, >= 64 px for strict."""
    targets, visible = _targets(TABLE_GEO, [(obj_id(TABLE_GEO, "table_0"), 200, 150, w, h)])
    assert visible["table_0"]["bbox_px"] == [199.5, 149.5, 199.5 + w, 149.5 + h]
    assert visible["table_0"]["pixels"] == w * h
    assert ("table_0" in targets) is kept
    if kept:
        assert targets["table_0"].strict_visible is strict
        assert targets["table_0"].bbox_px == [199.5, 149.5, 199.5 + w, 149.5 + h]


def test_thresholds_scale_with_the_long_side():
    """At 1280 x 960 (scale 2): a visible object needs 30 * 4 = 120 px, a target a 48 px short
    side, strict 128 px."""
    pose = pose_at(width=1280)
    oid = obj_id(TABLE_GEO, "table_0")
    for blocks, seen, kept, strict in [([(oid, 10, 10, 12, 10)], True, False, False),
                                       ([(oid, 10, 10, 119, 1)], False, False, False),
                                       ([(oid, 10, 10, 48, 60)], True, True, False),
                                       ([(oid, 10, 10, 47, 60)], True, False, False),
                                       ([(oid, 10, 10, 128, 130)], True, True, True),
                                       ([(oid, 10, 10, 127, 130)], True, True, False)]:
        targets, visible = _targets(TABLE_GEO, blocks, pose)
        assert ("table_0" in visible, "table_0" in targets) == (seen, kept), blocks
        if kept:
            assert targets["table_0"].strict_visible is strict, blocks


def test_visible_objects_need_30_pixels_at_640():
    oid = obj_id(TABLE_GEO, "table_0")
    assert "table_0" in _targets(TABLE_GEO, [(oid, 0, 0, 5, 6)])[1]
    assert "table_0" not in _targets(TABLE_GEO, [(oid, 0, 0, 29, 1)])[1]
    assert _targets(TABLE_GEO, [])[1] == {}
    small = _targets(TABLE_GEO, [(oid, 0, 0, 6, 5)])
    assert small[0] == {} and small[1]["table_0"]["pixels"] == 30          # seen, too small a target


# centre (x, y, z) of a 0.2 x 0.2 piece of height 2z, and whether it projects inside (u, v noted)
CENTRES = [
    ((3.0, 6.0, 0.5), 1.5, True),        # u = 319.5 - 320 = -0.5: the left edge is in
    ((3.0, 6.003125, 0.5), 1.5, False),  # u = -1.0
    ((3.0, 2.0, 0.5), 1.5, False),       # u = 639.5: the right edge is out
    ((3.0, 2.003125, 0.5), 1.5, True),   # u = 639.0
    ((3.0, 4.0, 3.0), 1.5, True),        # v = 239.5 - 240 = -0.5: the top edge is in
    ((3.0, 4.0, 3.003125), 1.5, False),  # v = -1.0
    ((3.0, 4.0, 2.0), 3.5, False),       # eye 3.5 m: v = 239.5 + 240 = 479.5, the bottom edge is out
    ((3.0, 4.0, 2.003125), 3.5, True),   # v = 479.0
]


@pytest.mark.parametrize("centre, eye_z, kept", CENTRES)
def test_target_centre_must_project_inside_the_image(centre, eye_z, kept):
    x, y, z = centre
    geo = geo_of(spec_of([piece("lamp_0", "lamp", (x, y), (0.2, 0.2, 2 * z))]))
    targets, visible = _targets(geo, [(obj_id(geo, "lamp_0"), 100, 100, 40, 40)], pose_at(eye=(1.0, 4.0, eye_z)))
    assert "lamp_0" in visible and visible["lamp_0"]["distance_m"] >= 1.5
    assert ("lamp_0" in targets) is kept
    if kept:
        assert 0.3 < targets["lamp_0"].visible_surface < 0.7          # about half of it is in frame


def test_target_centre_behind_the_camera_is_refused():
    """A 14 m long bench along y = 5.6 (x -8..6, footprint 1.5 m from the camera): its centre
    (-1, 5.6, 0.5) is 2 m behind the camera and projects to u = 319.5 + 320 * 1.6 / 2 = 575.5,
    v = 239.5 - 160 = 79.5 through the image plane; its far part (x > 2.5) is in view, a quarter
    of its camera-facing surface, so only the centre test keeps it out."""
    geo = geo_of(spec_of([piece("bench_0", "bench", (-1.0, 5.6), (14.0, 0.2, 1.0))]))
    oid = obj_id(geo, "bench_0")
    assert epv.visible_surface(geo, pose_at(), oid) > 0.15
    targets, visible = _targets(geo, [(oid, 100, 100, 40, 40)])
    assert visible["bench_0"]["distance_m"] == pytest.approx(1.5) and targets == {}


def test_visible_surface_threshold_and_strict_surface():
    """A board (its own piece) lying on the table, flush with its near face, hides the top: the camera-facing
    surface left is the near face, 1.0 x 0.8 m of 1.0 x 0.8 + 1.0 x 1.0 m (area-weighted
    samples): about 0.8 / 1.8 = 0.44, a target but not strict (< 0.5). A wall of boards in front
    hiding all but 10 cm of the near face leaves under 0.15: no target."""
    board = piece("board_0", "shelf", (4.0, 4.0), (1.0, 1.2, 0.85),
                  boxes=[FBox(lo=[-0.5, -0.6, 0.8], hi=[0.7, 0.6, 0.85])])
    geo = geo_of(spec_of([TABLE, board]))
    oid = obj_id(geo, "table_0")
    vs = epv.visible_surface(geo, pose_at(), oid)
    assert vs == pytest.approx(0.8 / 1.8, abs=0.04)
    targets, _ = _targets(geo, [(oid, 200, 150, 100, 100)])
    assert targets["table_0"].visible_surface == round(vs, 4) and targets["table_0"].strict_visible is False
    # a screen at x = 3.0 from z = 0.1 up to the eye hides the near face above z = 0.1 + 0.2 / 3 ... and the top
    screen = piece("screen_0", "shelf", (3.0, 4.0), (0.02, 3.0, 1.6),
                   boxes=[FBox(lo=[-0.01, -1.5, 0.1], hi=[0.01, 1.5, 1.6])])
    hidden = geo_of(spec_of([TABLE, screen]))
    vs_hidden = epv.visible_surface(hidden, pose_at(), obj_id(hidden, "table_0"))
    assert vs_hidden < 0.15
    assert _targets(hidden, [(obj_id(hidden, "table_0"), 200, 150, 100, 100)])[0] == {}


def test_visible_surface_edge_cases():
    pose = pose_at()
    assert epv.visible_surface(TABLE_GEO, pose, 999) == 0.0                 # no such object: no samples
    inside = pose_at(eye=(4.0, 4.0, 0.4))                                   # the camera inside the table
    assert epv.visible_surface(TABLE_GEO, inside, obj_id(TABLE_GEO, "table_0")) == 0.0
    away = pose_at(yaw=180.0)                                               # facing away: nothing in frame
    assert epv.visible_surface(TABLE_GEO, away, obj_id(TABLE_GEO, "table_0")) == 0.0
    # the table centred on the left image edge (its centre at u = -0.5): half of each facing face in frame
    left = geo_of(spec_of([piece("table_0", "table", (4.0, 7.0), (1.0, 1.0, 0.8))]))
    assert epv.visible_surface(left, pose, obj_id(left, "table_0")) == pytest.approx(0.5, abs=0.08)


def test_same_category_count_and_pieces_without_an_object():
    """Two chairs and a table seen; a third chair that the scene state does not list is skipped."""
    chairs = [piece(f"chair_{k}", "chair", (5.0, 2.0 + 2.0 * k), (0.5, 0.5, 0.9), color=c)
              for k, c in enumerate(("red", "blue", "green"))]
    spec = spec_of([TABLE, *chairs])
    geo = geo_of(spec, drop=("chair_2",))
    ids = {o.name: o.id for o in spec_objects(spec)}
    blocks = [(ids["table_0"], 0, 0, 40, 40), (ids["chair_0"], 100, 0, 40, 40), (ids["chair_1"], 200, 0, 40, 40),
              (ids["chair_2"], 300, 0, 40, 40)]
    targets, visible = _targets(geo, blocks)
    assert sorted(visible) == ["chair_0", "chair_1", "table_0"]
    assert [targets[n].same_category_in_view for n in ("chair_0", "chair_1", "table_0")] == [2, 2, 1]
    assert visible["chair_1"]["color"] == "blue" and visible["chair_1"]["centre_xy"] == [5.0, 4.0]


def test_highest_id_object_out_of_view():
    """The pixel counts cover every object id even when the highest id is not in the image."""
    chairs = [piece("chair_0", "chair", (5.0, 2.0), (0.5, 0.5, 0.9)), piece("chair_1", "chair", (5.0, 6.0),
                                                                             (0.5, 0.5, 0.9))]
    geo = geo_of(spec_of(chairs))
    targets, visible = _targets(geo, [(obj_id(geo, "chair_0"), 0, 0, 40, 40)])
    assert sorted(visible) == ["chair_0"]


# --------------------------------------------------------------------------- near view

def _floor_distance(width, height, eye_z):
    """Nearest floor hit of the fan: the bottom row (98 % of H - 1) through the centre column
    (50 % of W - 1 = cx); with f = W / 2 its slope below the horizon is s = (0.98 (H - 1) - cy) / f,
    the depth eye_z / s, the distance depth * sqrt(1 + s^2)."""
    f, cy = width / 2, (height - 1) / 2
    s = (0.98 * (height - 1) - cy) / f
    return eye_z / s * math.sqrt(1 + s * s)


def test_near_view_worked_example_on_an_empty_floor():
    geo = geo_of(spec_of([]))
    assert epv.near_view_m(geo, pose_at(width=160)) == pytest.approx(_floor_distance(160, 120, 1.5), rel=1e-6)
    assert epv.near_view_m(geo, pose_at(width=160)) == pytest.approx(2.5814, abs=1e-4)
    assert epv.near_view_m(geo, pose_at(eye=(1.0, 4.0, 0.5), width=64)) == \
        pytest.approx(_floor_distance(64, 48, 0.5), rel=1e-6)
    # looking away from the floor (a camera 10 m off the plan, facing out): nothing is hit
    assert epv.near_view_m(geo, pose_at(eye=(-10.0, 4.0, 1.5), yaw=180.0, width=64)) == math.inf


def test_near_view_fan_rows_are_70_77_84_91_98_percent():
    """A thin rail 1 m ahead (x 1.95-2.05, z 1.09-1.11) at the height where the 77 % row passes:
    at 160 x 120 that row is v = 91.63, s = 0.4016 below the horizon, so it comes down to the
    rail's top (z = 1.11) at depth 0.39 / s = 0.971; the 70 % row (s = 0.2976) passes above the
    rail and the 84 % row (s = 0.5053) under it. The nearest hit is the rail's top along the
    77 % row's centre ray, 0.971 * sqrt(1 + s^2) = 1.0464 m (a 6-row fan would miss the rail)."""
    rail = piece("rail_0", "shelf", (2.0, 4.0), (0.1, 4.0, 1.11), boxes=[FBox(lo=[-0.05, -2.0, 1.09],
                                                                              hi=[0.05, 2.0, 1.11])])
    geo = geo_of(spec_of([rail]))
    s = (0.77 * 119 - 59.5) / 80
    got = epv.near_view_m(geo, pose_at(width=160))
    assert got == pytest.approx((1.5 - 1.11) / s * math.sqrt(1 + s * s), rel=1e-6)
    assert got == pytest.approx(1.0464, abs=1e-4)


def test_near_view_nearest_over_the_columns():
    """A post right of the axis (x 1.9-2.0, y 3.59-3.65, 3 m tall). The fan's columns are
    u = (0.30 .. 0.70 in 7 steps) * 159; a column's ray moves a = (u - 79.5) / 80 m to the right
    (-y) per metre ahead. The 63 % column (a = 0.265) passes it at y = 3.76 (x = 1.9); the 70 %
    column (a = 0.3975) enters its near face at y = 3.642, depth 0.9. The nearest hit is there
    along the top (70 %) row: 0.9 * sqrt(1 + a^2 + s^2), s = (0.70 * 119 - 59.5) / 80."""
    post = piece("post_0", "shelf", (1.95, 3.62), (0.1, 0.06, 3.0))
    geo = geo_of(spec_of([post]))
    a, s = (0.7 * 159 - 79.5) / 80, (0.7 * 119 - 59.5) / 80
    got = epv.near_view_m(geo, pose_at(width=160))
    assert got == pytest.approx(0.9 * math.sqrt(1 + a * a + s * s), rel=1e-6)
    assert got == pytest.approx(1.0048, abs=1e-4)


# --------------------------------------------------------------------------- the occupancy cache

def _small_geo(scene_id, furniture=()):
    spec = spec_of(list(furniture), W=2.0, D=2.0).model_copy(update={"scene_id": scene_id})
    return geo_of(spec)


def test_occupancy_grid_cache_keeps_the_last_four():
    epv._grid_cache.clear()
    geos = [_small_geo(f"c{k}") for k in range(5)]
    first = [epv.occupancy_grid(g) for g in geos[:4]]
    assert all(epv.occupancy_grid(g) is x for g, x in zip(geos[:4], first))      # served from the cache
    assert epv.occupancy_grid(geos[0]) is first[0]                               # c0 now the most recent
    epv.occupancy_grid(geos[4])                                                  # evicts c1, the oldest
    assert epv.occupancy_grid(geos[0]) is first[0]
    assert all(epv.occupancy_grid(g) is x for g, x in zip(geos[2:4], first[2:4]))
    assert epv.occupancy_grid(geos[1]) is not first[1]
    assert len(epv._grid_cache) == 4


def test_occupancy_grid_cache_key_is_the_mesh_and_params():
    epv._grid_cache.clear()
    empty, furnished = _small_geo("same"), _small_geo("same", [piece("box_0", "box", (1.0, 1.0), (0.5, 0.5, 0.5))])
    a, b = epv.occupancy_grid(empty), epv.occupancy_grid(furnished)
    assert a.occupied.sum() == 0 and b.occupied.sum() > 0
    coarse = epv.occupancy_grid(empty, GeometryParams(grid_m=0.1))
    assert coarse.shape != a.shape and epv.occupancy_grid(empty) is a
    # the same vertices and face ids, the faces moved from one box's corners to another's: another grid
    box = np.array([[x, y, z] for x in (0.0, 1.0) for y in (0.0, 1.0) for z in (0.0, 0.5)])
    F = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    floor_V = np.array([[0, 0, -0.05], [2, 0, -0.05], [2, 2, -0.05], [0, 2, -0.05],
                        [0, 0, 0.0], [2, 0, 0.0], [2, 2, 0.0], [0, 2, 0.0]], float)
    floor_F = np.array([[4, 5, 6], [4, 6, 7]])
    V = np.vstack([floor_V, box, box + [1.0, 1.0, 0.0]])
    objs = [SceneObject(id=1, name="floor_0", category="floor", pass_index=1),
            SceneObject(id=2, name="box_0", category="box", pass_index=2)]

    def geo_with(box_faces):
        mesh = SceneMesh(V, np.vstack([floor_F, box_faces]), np.array([1, 1] + [2] * 12), np.array([1, 2]),
                         np.array(["floor_0", "box_0"]))
        state = SceneState(env="egopath", scene_id="tri", spec={}, objects=objs, meshes="x.npz")
        return SceneGeometry(spec=empty.spec, state=state, mesh=mesh, raycaster=Raycaster(mesh))

    low, high = epv.occupancy_grid(geo_with(F + 8)), epv.occupancy_grid(geo_with(F + 16))
    lo_xy = low.lookup(low.occupied, [[0.5, 0.5], [1.5, 1.5]])
    hi_xy = high.lookup(high.occupied, [[0.5, 0.5], [1.5, 1.5]])
    assert lo_xy.tolist() == [True, False] and hi_xy.tolist() == [False, True]


# --------------------------------------------------------------------------- scene terms

ROOM = spec_of([piece("table_0", "table", (5.0, 2.5), (1.0, 1.0, 0.8))], W=8.0, D=5.0, walls=True, height=2.5)
ROOM_GEO = geo_of(ROOM)


def _terms(eye, yaw=0.0, width=160):
    terms = epv.score_scene(ROOM_GEO, View(view_index=0, pose=pose_at(eye=eye, yaw=yaw, width=width),
                                           target="table_0"))
    return {t.name: t for t in terms}, [t.name for t in terms]


def test_score_scene_in_the_room():
    """Camera 0.5 m from the west wall's centre line (0.45 m from its face) looking at the table
    3.5 m ahead: clearance about 0.45 m on the 5 cm grid, the near view the empty floor's bottom
    ray (2.5814 m at 160 x 120), one target, and a start on the floor ahead."""
    t, names = _terms((0.5, 2.5, 1.5))
    assert names == ["camera_clearance", "near_view", "targets_in_view", "start_exists"]
    assert [(x.side, x.threshold) for x in t.values()] == [("scene", ">= 0.35 m"), ("scene", ">= 0.8 m"),
                                                          ("scene", ">= 1"), ("scene", "true")]
    assert t["camera_clearance"].value == pytest.approx(0.45, abs=0.051) and t["camera_clearance"].passed
    assert t["near_view"].value == pytest.approx(_floor_distance(160, 120, 1.5), abs=1e-6)
    assert t["targets_in_view"].value == 1 and t["start_exists"].value is True
    assert all(x.passed for x in t.values())


def test_score_scene_thresholds():
    near_wall, _ = _terms((0.3, 2.5, 1.5))              # 0.25 m from the wall's face
    assert near_wall["camera_clearance"].value == pytest.approx(0.25, abs=0.051)
    assert not near_wall["camera_clearance"].passed
    mid, _ = _terms((0.45, 2.5, 1.5))                    # 0.40 m
    assert mid["camera_clearance"].value == pytest.approx(0.40, abs=0.051) and mid["camera_clearance"].passed
    # facing the west wall from 0.45 m: the fan hits the wall (about 0.5 m), no floor, no start
    wall, _ = _terms((0.5, 2.5, 1.5), yaw=180.0)
    assert wall["near_view"].value < 0.8 and not wall["near_view"].passed
    assert wall["start_exists"].value is False and wall["targets_in_view"].value == 0
    # off the plan, looking away: clearance 0 outside the grid, nothing hit (capped at 1e6 m)
    out, _ = _terms((-20.0, 2.5, 1.5), yaw=180.0)
    assert out["camera_clearance"].value == 0.0
    assert out["near_view"].value == 1e6 and out["near_view"].passed
    assert out["start_exists"].value is False


def test_start_margin_is_3_percent_of_the_long_side():
    """The start is the floor pixel nearest the bottom centre, scanned from v = H - 0.5 - margin,
    margin = max(4, round(0.03 * long side)): 19 px at 640 (v = 460.5), 4 px at 64 (v = 43.5)."""
    grid = epv.occupancy_grid(ROOM_GEO)
    big = epv._start(ROOM_GEO, pose_at(eye=(0.5, 2.5, 1.5), width=640), grid)
    assert big.pixel[1] == 460.5 and big.object_id == 1
    small = epv._start(ROOM_GEO, pose_at(eye=(0.5, 2.5, 1.5), width=64), grid)
    assert small.pixel[1] == 43.5


# --------------------------------------------------------------------------- the answer key

def test_ground_truth_worked_example():
    """The table 4 m ahead (footprint x 4.5-5.5) from a camera at (0.5, 2.5): one target named
    "table" (the only one), its route unit with an intent request for a table, the scene group.
    The start is the floor under the bottom-centre scan (v = 120 - 0.5 - 5 = 114.5: depth
    1.5 / 0.6875 = 2.18 m), 1.8 m from the table's footprint: a route unit."""
    view = View(view_index=0, pose=pose_at(eye=(0.5, 2.5, 1.5), width=160), target="table_0")
    timings: dict = {}
    gt = epv.ground_truth(ROOM_GEO, view, timings=timings)
    assert gt["scene_group"] == "g-hand"
    assert gt["image_size"] == [160, 120] and gt["camera_xy"] == [0.5, 2.5]
    assert [t["name"] for t in gt["targets"]] == ["table_0"]
    assert [v["name"] for v in gt["visible_objects"]] == ["table_0"]
    (unit,) = gt["routes"]
    assert unit["target_object_id"] == obj_id(ROOM_GEO, "table_0") and unit["target_text"] == "table"
    assert unit["start_id"] == 1 and unit["point_reference"][0] == 1
    request, cue = unit["intent"].split("; take me to the ")
    assert request in ("I need to set down this dinner tray",                  # egopath_language.INTENTS["table"]
                       "Let's serve the dinner plates somewhere we can all eat together")
    assert len(unit["intent_cues"]) == 1 and cue in ("red one", "one nearest to me", "one farthest from me")
    assert timings and all(v >= 0 for v in timings.values())
    assert epv.ground_truth(ROOM_GEO, view) == gt                        # deterministic
    # the draws of this view: waypoints from default_rng([5, 0, 7]), the request from default_rng([5, 0, 11])
    (start, second) = gt["traversability"]["waypoints"][:2]
    assert start["pixel"] == [80.5, 114.5]
    assert second["pixel"] == pytest.approx([52.08388, 83.97181], abs=1e-4)
    assert len(gt["traversability"]["waypoints"]) == 17
    assert unit["intent"] == "I need to set down this dinner tray; take me to the one farthest from me"
    assert unit["intent_cues"] == ["distance:farthest"]
    other = epv.ground_truth(ROOM_GEO, view.model_copy(update={"view_index": 1}))
    assert other["traversability"]["waypoints"][1]["pixel"] == pytest.approx([20.42728, 103.77230], abs=1e-4)
    assert other["routes"][0]["intent"] == "I need to set down this dinner tray; take me to the one nearest to me"


def test_ground_truth_start_distance_texts_and_intents():
    """A table 1.1 m from the start (footprint x 3.7-4.7, y 1-2; the start near (2.68, 2.5)) is a
    target without a route unit (< 1.5 m); a piano 2.8 m away gets one, with no intent request
    (no request implies a piano)."""
    spec = spec_of([piece("table_0", "table", (4.2, 1.5), (1.0, 1.0, 0.8)),
                    piece("piano_0", "piano", (6.0, 3.5), (1.0, 1.0, 1.0), color="black")],
                   W=8.0, D=5.0, walls=True, height=2.5)
    geo = geo_of(spec)
    view = View(view_index=0, pose=pose_at(eye=(0.5, 2.5, 1.5), width=160), target="table_0")
    gt = epv.ground_truth(geo, view)
    assert sorted(t["name"] for t in gt["targets"]) == ["piano_0", "table_0"]
    (unit,) = gt["routes"]
    assert unit["target_object_id"] == obj_id(geo, "piano_0") and unit["target_text"] == "piano"
    assert unit["intent"] is None and unit["intent_cues"] == []


def test_ground_truth_leaves_out_targets_without_a_unique_phrase():
    """Two identical red chairs 0.4 m apart in depth (inside the 0.5 m nearest/farthest margin),
    nothing else in view: no phrase picks one out, so neither is a target of the annotation."""
    chairs = [piece("chair_0", "chair", (4.5, 2.0), (0.5, 0.5, 0.9)), piece("chair_1", "chair", (4.9, 3.0),
                                                                             (0.5, 0.5, 0.9))]
    geo = geo_of(spec_of(chairs, W=8.0, D=5.0, walls=True, height=2.5))
    pose = pose_at(eye=(0.5, 2.5, 1.5), width=160)
    targets, _ = epv.view_objects(geo, pose)
    assert sorted(t.name for t in targets) == ["chair_0", "chair_1"]
    gt = epv.ground_truth(geo, View(view_index=0, pose=pose, target="chair_0"))
    assert gt["targets"] == [] and gt["routes"] == []
    assert sorted(v["name"] for v in gt["visible_objects"]) == ["chair_0", "chair_1"]


def test_ground_truth_without_a_start():
    view = View(view_index=0, pose=pose_at(eye=(0.5, 2.5, 1.5), yaw=180.0, width=160), target="table_0")
    gt = epv.ground_truth(ROOM_GEO, view)
    assert set(gt) == {"scene_group", "annotation_error"} and gt["scene_group"] == "g-hand"
    assert gt["annotation_error"].startswith("no_start: ")


# --------------------------------------------------------------------------- more filter cases

def test_each_filter_skips_only_its_piece():
    """Pieces in furniture order: one with no pixels, one 0.9 m away, one whose centre projects
    off the right edge, the table hidden behind that piece's screen, and a lamp on the left edge
    that passes every filter: the lamp alone is a target (a filter that stopped at its first
    failure would give none)."""
    screen = piece("screen_0", "shelf", (3.0, 4.0), (0.02, 3.0, 1.6),
                   boxes=[FBox(lo=[-0.01, -1.5, 0.1], hi=[0.01, 1.5, 1.6])])
    near = piece("stool_0", "stool", (0.0, 4.0), (0.2, 0.2, 0.5))               # footprint 0.9 m behind
    off = piece("bin_0", "bin", (3.0, 2.0), (0.2, 0.2, 1.0))                    # centre at u = 639.5
    lamp = piece("lamp_0", "lamp", (3.0, 6.0), (0.2, 0.2, 1.0))                 # centre at u = -0.5
    geo = geo_of(spec_of([screen, near, off, TABLE, lamp]))
    blocks = [(obj_id(geo, n), 40 * k, 0, 40, 40) for k, n in enumerate(("stool_0", "bin_0", "table_0", "lamp_0"))]
    targets, visible = _targets(geo, blocks)
    assert sorted(visible) == ["bin_0", "lamp_0", "stool_0", "table_0"]
    assert visible["stool_0"]["distance_m"] == pytest.approx(0.9)
    assert epv.visible_surface(geo, pose_at(), obj_id(geo, "table_0")) < 0.15
    assert sorted(targets) == ["lamp_0"]


def test_rounding_of_the_stored_numbers():
    """distance, centre and footprint to 4 decimals (0.1 mm), boxes to 2 (they are half pixels)."""
    big = piece("sofa_0", "sofa", (4.123456, 4.0), (1.0, 1.0, 0.8), size_word="large")
    geo = geo_of(spec_of([big]))
    targets, visible = _targets(geo, [(obj_id(geo, "sofa_0"), 200, 150, 100, 100)])
    v, t = visible["sofa_0"], targets["sofa_0"]
    assert v["distance_m"] == 2.6235 and t.distance_m == 2.6235                 # 3.623456 - 1
    assert v["centre_xy"] == [4.1235, 4.0] and v["size_word"] == "large" and t.size_word == "large"
    assert t.footprint_xy == [[3.6235, 3.5], [4.6235, 3.5], [4.6235, 4.5], [3.6235, 4.5]]
    odd = piece("sofa_0", "sofa", (4.0, 4.123456), (1.0, 1.0, 0.8))
    t2 = _targets(geo_of(spec_of([odd])), [(obj_id(geo, "sofa_0"), 200, 150, 100, 100)])[0]["sofa_0"]
    assert t2.footprint_xy == [[3.5, 3.6235], [4.5, 3.6235], [4.5, 4.6235], [3.5, 4.6235]]


def test_visible_surface_counts_self_occlusion():
    """The board of the earlier test made part of the table itself: its own board now hides the
    table top. Facing surface: the table's near face 0.8 m^2 and top 1.0 m^2, the board's front
    0.06 m^2 and top 1.44 m^2; all but the table top is seen: 2.3 / 3.3 = 0.70."""
    desk = piece("desk_0", "desk", (4.0, 4.0), (1.2, 1.2, 0.85),
                 boxes=[FBox(lo=[-0.5, -0.5, 0.0], hi=[0.5, 0.5, 0.8]), FBox(lo=[-0.5, -0.6, 0.8], hi=[0.7, 0.6, 0.85])])
    geo = geo_of(spec_of([desk]))
    vs = epv.visible_surface(geo, pose_at(), obj_id(geo, "desk_0"))
    assert vs == pytest.approx(2.3 / 3.3, abs=0.05)
    # the 800 area-weighted samples drawn with seed 0, and those of the board-on-the-table scene
    assert round(vs, 4) == VS_DESK
    board = piece("board_0", "shelf", (4.0, 4.0), (1.0, 1.2, 0.85),
                  boxes=[FBox(lo=[-0.5, -0.6, 0.8], hi=[0.7, 0.6, 0.85])])
    two = geo_of(spec_of([TABLE, board]))
    assert round(epv.visible_surface(two, pose_at(), obj_id(two, "table_0")), 4) == VS_TABLE_UNDER_BOARD


def test_view_objects_of_a_state_without_objects():
    geo = TABLE_GEO
    bare = SceneGeometry(spec=geo.spec, state=geo.state.model_copy(update={"objects": []}), mesh=geo.mesh,
                         raycaster=geo.raycaster)
    assert epv.view_objects(bare, pose_at(), ids_with([(7, 0, 0, 40, 40)])) == ([], [])


def test_a_target_centre_less_than_a_metre_deep():
    """Looking up by atan(0.75) = 36.87 degrees, the bottom image edge is level: the ray through
    the bottom-left corner, (-1, 0.75, 1) in camera coordinates (length 1.6), is horizontal and
    51.3 degrees off the axis. A post's centre on it (pixel (2, 477)), 1.55 m away on the floor
    plane (footprint 1.52 m: in the band), is only about 1.55 / 1.6 = 0.97 m deep along the axis.
    It is in front, in frame, and a target."""
    pose = pose_at(pitch=-math.degrees(math.atan(0.75)))
    K, M = pose.K_array(), pose.cam_to_world_array()
    d = M[:3, :3] @ (np.linalg.inv(K) @ [2.0, 477.0, 1.0])          # the ray of pixel (2, 477)
    P = pose.center + 1.55 / math.hypot(d[0], d[1]) * d
    post = piece("post_0", "lamp", (float(P[0]), float(P[1])), (0.04, 0.04, 2 * float(P[2])))
    geo = geo_of(spec_of([post]))
    depth = float((P - pose.center) @ M[:3, 2])
    assert 0.9 < depth < 1.0
    targets, _ = _targets(geo, [(obj_id(geo, "post_0"), 100, 100, 40, 40)], pose)
    assert targets["post_0"].distance_m == pytest.approx(1.5219, abs=1e-4)
