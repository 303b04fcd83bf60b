"""Indoor (EgoPathBench) floor plans and first-person poses: determinism, no overlaps,
clear doorways, real narrow passages, same-category clutter and wall rows, poses in free
space; and (one Blender build, no render) the pure-data scene mesh against the export.

Overlap, doorway and passage checks rasterise footprints on a fine grid with their own
inside test (local coordinates), independent of the layout's separating-axis code."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from scipy.ndimage import distance_transform_edt

from blender_envs.indoor.egopath import (CAMERA_CLEARANCE_M, EYE_HEIGHT_RANGE, HFOV_DEG, PITCH_DOWN_DEG,
                                         sample_scene, sample_view)
from blender_envs.indoor.furniture import category_boxes
from blender_envs.indoor.layout import NARROW_RANGE, IndoorSpec

N_SCENES = 16


@pytest.fixture(scope="module")
def specs() -> list[IndoorSpec]:
    return [sample_scene(np.random.default_rng([11, k]), f"scene-{k}", k) for k in range(N_SCENES)]


def _inside_piece(f, xy: np.ndarray, pad: float = 0.0) -> np.ndarray:
    """Points inside a piece's footprint, by its own local frame (not the layout's polygon code)."""
    a = math.radians(f.yaw_deg)
    d = xy - np.asarray(f.position)
    u = d[:, 0] * math.cos(a) + d[:, 1] * math.sin(a)
    v = -d[:, 0] * math.sin(a) + d[:, 1] * math.cos(a)
    return (np.abs(u) <= f.size[0] / 2 + pad) & (np.abs(v) <= f.size[1] / 2 + pad)


def _inside_rect(r, xy: np.ndarray, pad: float = 0.0) -> np.ndarray:
    return (xy[:, 0] >= r[0] - pad) & (xy[:, 0] <= r[2] + pad) & (xy[:, 1] >= r[1] - pad) & (xy[:, 1] <= r[3] + pad)


def _piece_points(f, step: float = 0.03, edge_only: bool = False) -> np.ndarray:
    """World points covering a piece's footprint (or only its outline), from its local frame."""
    w, d = f.size[0], f.size[1]
    u = np.linspace(-w / 2, w / 2, max(2, int(w / step) + 1))
    v = np.linspace(-d / 2, d / 2, max(2, int(d / step) + 1))
    gu, gv = np.meshgrid(u, v)
    keep = np.ones(gu.shape, bool)
    if edge_only:
        keep[1:-1, 1:-1] = False
    a = math.radians(f.yaw_deg)
    lu, lv = gu[keep], gv[keep]
    return np.stack([lu * math.cos(a) - lv * math.sin(a), lu * math.sin(a) + lv * math.cos(a)], 1) + f.position


def _rect_points(r, step: float = 0.03) -> np.ndarray:
    gx, gy = np.meshgrid(np.linspace(r[0], r[2], max(2, int((r[2] - r[0]) / step) + 1)),
                         np.linspace(r[1], r[3], max(2, int((r[3] - r[1]) / step) + 1)))
    return np.stack([gx.ravel(), gy.ravel()], 1)


def _obstacle_outline(spec: IndoorSpec) -> np.ndarray:
    """Points on every wall segment and furniture footprint (the nearest obstacle point to
    any free point lies on an outline, so distances to these bound clearance)."""
    pts = [_piece_points(f, 0.02, edge_only=True) for f in spec.furniture]
    pts += [_rect_points(r, 0.02) for w in spec.walls for r in w.segments]
    return np.concatenate(pts)


def _occupied(spec: IndoorSpec, xy: np.ndarray) -> np.ndarray:
    occ = np.zeros(len(xy), bool)
    for w in spec.walls:
        for r in w.segments:
            occ |= _inside_rect(r, xy)
    for f in spec.furniture:
        occ |= _inside_piece(f, xy)
    W, D = spec.plan_size
    occ |= (xy[:, 0] < 0) | (xy[:, 1] < 0) | (xy[:, 0] > W) | (xy[:, 1] > D)
    return occ


def test_spec_is_seeded_and_uses_no_global_rng():
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    a = sample_scene(np.random.default_rng(5), "s", 5)
    assert np.array_equal(before, np.random.get_state()[1])
    assert a.model_dump_json() == sample_scene(np.random.default_rng(5), "s", 5).model_dump_json()
    assert a.model_dump_json() != sample_scene(np.random.default_rng(6), "s", 5).model_dump_json()
    assert a.scene_group == "s"
    v1 = sample_view(a, np.random.default_rng(1), 0, 640)
    assert v1.model_dump_json() == sample_view(a, np.random.default_rng(1), 0, 640).model_dump_json()
    assert IndoorSpec.model_validate_json(a.model_dump_json()) == a


def test_plan_rooms_walls_and_doorways(specs):
    kinds = Counter()
    for s in specs:
        assert 1 <= len(s.rooms) <= 4
        assert 2.5 <= s.wall_height_m <= 2.8
        names = [r.name for r in s.rooms]
        assert len(set(names)) == len(names)
        kinds.update(names)
        doors = s.doorways()
        assert len(doors) == len(s.rooms) - 1
        # every doorway joins two rooms, its opening is 0.8-1.0 m and no wall segment covers it
        for d in doors:
            assert 0.8 - 1e-9 <= d.hi - d.lo <= 1.0 + 1e-9
            assert len(set(d.rooms)) == 2
            mid = (d.lo + d.hi) / 2
            probe = np.array([[d.at, mid]]) if d.axis == "x" else np.array([[mid, d.at]])
            for w in s.walls:
                for r in w.segments:
                    assert not _inside_rect(r, probe).any(), f"{s.scene_id}: wall {w.name} closes a doorway"
        # walls are 0.1 m thick
        for w in s.walls:
            for r in w.segments:
                assert min(r[2] - r[0], r[3] - r[1]) == pytest.approx(0.1, abs=1e-6)
        # rooms connect through doorways
        if len(s.rooms) > 1:
            seen, todo = {names[0]}, [names[0]]
            while todo:
                cur = todo.pop()
                for d in doors:
                    if cur in d.rooms:
                        for other in d.rooms:
                            if other not in seen:
                                seen.add(other)
                                todo.append(other)
            assert seen == set(names)
    assert len(kinds) >= 4  # room kinds vary


def test_furniture_never_overlaps_and_stays_in_its_room(specs):
    for s in specs:
        for k, f in enumerate(s.furniture):
            pts = _piece_points(f)
            room = next(r for r in s.rooms if r.name == f.room)
            assert _inside_rect(room.interior, pts, pad=1e-6).all(), f"{s.scene_id}: {f.name} leaves {f.room}"
            for w in s.walls:
                for r in w.segments:
                    assert not _inside_rect(r, pts).any(), f"{s.scene_id}: {f.name} in wall {w.name}"
            for g in s.furniture[k + 1:]:
                if np.hypot(*np.subtract(f.position, g.position)) > (max(f.size[:2]) + max(g.size[:2])):
                    continue
                assert not _inside_piece(g, pts).any(), f"{s.scene_id}: {f.name} overlaps {g.name}"
                assert not _inside_piece(f, _piece_points(g)).any(), f"{s.scene_id}: {g.name} overlaps {f.name}"


def test_doorways_are_clear(specs):
    for s in specs:
        for d in s.doorways():
            if d.axis == "x":
                zone = [d.at - 0.6, d.lo, d.at + 0.6, d.hi]
            else:
                zone = [d.lo, d.at - 0.6, d.hi, d.at + 0.6]
            xs = np.linspace(zone[0], zone[2], 25)
            ys = np.linspace(zone[1], zone[3], 25)
            gx, gy = np.meshgrid(xs, ys)
            pts = np.stack([gx.ravel(), gy.ravel()], 1)
            for f in s.furniture:
                assert not _inside_piece(f, pts).any(), f"{s.scene_id}: {f.name} blocks a doorway"


def test_narrow_passages_pass_a_point_but_not_a_body(specs):
    """Measured on a 2 cm raster: along each recorded passage the free-space clearance
    (distance to the nearest obstacle) peaks at half the gap: > 0 (a point passes) and
    < 0.30 m (a 0.6 m body does not); and the gap is open at both ends."""
    with_passage = 0
    widths = []
    for s in specs:
        if s.narrow_passages:
            with_passage += 1
        for p in s.narrow_passages:
            assert NARROW_RANGE[0] <= p.width_m <= NARROW_RANGE[1]
            x0, y0, x1, y1 = p.rect
            xs = np.arange(x0 - 0.8, x1 + 0.8, 0.02) + 0.01
            ys = np.arange(y0 - 0.8, y1 + 0.8, 0.02) + 0.01
            gx, gy = np.meshgrid(xs, ys)
            free = ~_occupied(s, np.stack([gx.ravel(), gy.ravel()], 1)).reshape(gx.shape)
            clear = distance_transform_edt(free) * 0.02
            along_x = (x1 - x0) > (y1 - y0)
            inner = (xs > x0 + 0.05) & (xs < x1 - 0.05), (ys > y0 + 0.05) & (ys < y1 - 0.05)
            sub = clear[np.ix_(inner[1], inner[0])]
            ridge = sub.max(axis=0 if along_x else 1)  # best clearance across the gap, per step along it
            assert ridge.min() > 0.1, f"{s.scene_id}: passage blocked"
            assert ridge.max() < 0.30, f"{s.scene_id}: passage wide enough for the body"
            widths.append(2 * float(np.median(ridge)))
            # both ends open: the free cells just beyond the ends
            for end in ((x0 - 0.15, (y0 + y1) / 2), (x1 + 0.15, (y0 + y1) / 2)) if along_x else \
                    (((x0 + x1) / 2, y0 - 0.15), ((x0 + x1) / 2, y1 + 0.15)):
                i = int(np.argmin(np.abs(ys - end[1])))
                j = int(np.argmin(np.abs(xs - end[0])))
                assert free[i, j], f"{s.scene_id}: passage {p.between} closed at an end"
    share = with_passage / len(specs)
    assert share >= 0.5, share
    assert np.median(widths) == pytest.approx(0.45, abs=0.08)


def test_several_same_category_instances(specs):
    best = []
    for s in specs:
        c = Counter((f.room, f.category) for f in s.furniture)
        best.append(max(c.values()))
        assert len({f.name for f in s.furniture}) == len(s.furniture)
        assert len({f.category for f in s.furniture}) >= 5
    assert np.median(best) >= 3
    assert np.mean([b >= 3 for b in best]) >= 0.8


def test_wall_rows_are_rows(specs):
    """Pieces of one row: one category, size and facing, backs 2-5 cm off one wall, side by
    side along it with 5-30 cm gaps (checked on their centres, not with layout code)."""
    n_rows = 0
    for s in specs:
        rooms = {r.name: r for r in s.rooms}
        rows: dict = {}
        for f in s.furniture:
            if f.group.startswith("row_"):
                rows.setdefault((f.room, f.group), []).append(f)
        for (room, group), ps in rows.items():
            n_rows += 1
            assert len({(p.category, tuple(p.size), round(p.yaw_deg, 3)) for p in ps}) == 1, group
            assert group == f"row_{ps[0].category}"
            w, d = ps[0].size[:2]
            a = math.radians(ps[0].yaw_deg)
            along = np.array([math.cos(a), math.sin(a)])        # the piece's width axis
            back = -np.array([-math.sin(a), math.cos(a)])       # towards the wall behind it
            x0, y0, x1, y1 = rooms[room].interior
            for p in ps:
                c = np.asarray(p.position)
                b = c + back * d / 2
                wall_gap = min(abs(b[0] - x0), abs(b[0] - x1)) if abs(back[0]) > 0.5 else \
                    min(abs(b[1] - y0), abs(b[1] - y1))
                assert 0.02 - 1e-3 <= wall_gap <= 0.05 + 1e-3, (group, wall_gap)
            t = np.sort([float(np.asarray(p.position) @ along) for p in ps])
            if len(t) < 2:
                continue  # the other pieces of this row did not fit
            pitch = np.diff(t)  # a piece that did not fit leaves a whole pitch empty
            assert pitch.min() - w >= 0.05 - 1e-3 and pitch.min() - w <= 0.30 + 1e-3, (group, pitch)
            k = pitch / pitch.min()
            assert np.allclose(k, np.round(k), atol=1e-3), (group, pitch)
    assert n_rows >= len(specs)  # rows are common: at least one per scene on average


def test_chairs_and_tables_have_legs():
    """The floor-level boxes of a chair or table cover a small part of its footprint."""
    for cat, size in (("chair", (0.46, 0.48, 0.9)), ("table", (1.4, 0.85, 0.75)), ("desk", (1.3, 0.65, 0.75))):
        boxes = category_boxes(cat, *size)
        ground = [b for b in boxes if b.lo[2] <= 1e-9]
        area = sum((b.hi[0] - b.lo[0]) * (b.hi[1] - b.lo[1]) for b in ground)
        assert len(ground) >= 4 and area < 0.3 * size[0] * size[1], cat
        top = max(b.hi[2] for b in boxes)
        assert top == pytest.approx(size[2])
    with pytest.raises(ValueError, match="unknown furniture category"):
        category_boxes("spaceship", 1, 1, 1)


def test_camera_poses_stand_in_free_space_and_face_furniture(specs):
    facing, n = 0, 0
    for s in specs:
        outline = _obstacle_outline(s)
        for i in range(4):
            v = sample_view(s, np.random.default_rng([3, i, s.seed]), i, 640)
            p = v.pose
            assert (p.width, p.height, p.orientation, p.focus_mode) == (640, 480, "landscape", "pinhole")
            C = p.center
            T = p.cam_to_world_array()
            assert EYE_HEIGHT_RANGE[0] <= C[2] <= EYE_HEIGHT_RANGE[1]
            pitch = math.degrees(math.asin(-T[2, 2]))
            assert PITCH_DOWN_DEG[0] - 5 <= pitch <= PITCH_DOWN_DEG[1] + 5  # roll tilts the axis a little
            hfov = 2 * math.degrees(math.atan((p.width / 2) / p.K[0][0]))
            assert HFOV_DEG[0] - 1e-6 <= hfov <= HFOV_DEG[1] + 1e-6
            # clearance: no wall or footprint outline point within 0.45 m
            d = np.hypot(outline[:, 0] - C[0], outline[:, 1] - C[1]).min()
            assert d >= CAMERA_CLEARANCE_M - 0.01, f"{s.scene_id} view {i}: camera {d:.2f} m from an obstacle"
            assert not _occupied(s, C[None, :2])[0]
            f = s.piece(v.target)
            rel = np.array([f.position[0], f.position[1], f.size[2] / 2]) - C
            z = rel @ T[:3, 2]
            u = (rel @ T[:3, 0]) / z * p.K[0][0] + p.K[0][2] if z > 0 else -1
            facing += bool(0 <= u < p.width)
            n += 1
    assert facing / n >= 0.9, facing / n


def test_sample_view_rejects_empty_scene():
    s = sample_scene(np.random.default_rng(1), "s", 1)
    empty = s.model_copy(update={"furniture": []})
    with pytest.raises(ValueError, match="no furniture"):
        sample_view(empty, np.random.default_rng(0), 0, 640)


def test_spec_mesh_equals_the_blender_export():
    """`mesh.spec_mesh` (no bpy) against one Blender build of the same spec (no render): the
    same ids and names, the same surface per object, and the same occupancy grid."""
    from blender_envs.core.mesh_export import export_world_triangles
    from blender_envs.core.scene_reset import reset_scene
    from blender_envs.indoor.build import build
    from blender_envs.indoor.mesh import spec_mesh, spec_objects
    from geometry.occupancy import occupancy_from_mesh
    from geometry.raycast import SceneMesh

    spec = sample_scene(np.random.default_rng([5, 1]), "mesh-check", 1)
    scene = reset_scene()
    info = build(scene, spec)
    exported = SceneMesh(**export_world_triangles(scene))
    ours = spec_mesh(spec)
    assert [(o.id, o.name, o.category) for o in spec_objects(spec)] == \
        [(o.id, o.name, o.category) for o in info.objects]
    assert exported.object_ids.tolist() == ours.object_ids.tolist()
    assert exported.object_names.tolist() == ours.object_names.tolist()
    for oid in ours.object_ids:
        a = exported.face_areas()[exported.tri_object_id == oid].sum()
        b = ours.face_areas()[ours.tri_object_id == oid].sum()
        assert abs(a - b) <= 1e-4 * max(a, 1.0), (ours.object_name(oid), a, b)
    floor = {o.id for o in info.objects if o.category == "floor"}
    ga, gb = occupancy_from_mesh(exported, floor), occupancy_from_mesh(ours, floor)
    assert ga.shape == gb.shape and np.allclose(ga.origin_xy, gb.origin_xy)
    assert (ga.floor == gb.floor).all()
    assert (ga.occupied == gb.occupied).mean() >= 0.995
    assert ga.occupied.sum() > 0.1 * ga.occupied.size  # a furnished plan, not an empty grid
