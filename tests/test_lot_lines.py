"""The lot's paint lines (lot_build.line_part): every bay's two side lines and its piece of the
row's head line, as boxes whose top faces never overlap (and the fence's wires, whose faces never
lie in one another's). Two coincident top faces shadow each other in Cycles (each shadow ray
leaving one hits the other), so until vehicle-7 the head line two rows share, drawn once per row,
rendered pitch black (a bar across the lot), and each crossing of a side line with a head line
was a black square. Checked on the mesh (no overlap, the expected paint area, one head line per
shared head) and on a render (no black paint)."""
from __future__ import annotations

import itertools
import sys

import numpy as np
import pytest

from blender_envs.registry import get_environment
from blender_envs.vehicle.lot import BAY_LENGTH_M, BAY_WIDTH_M, LINE_WIDTH_M
from blender_envs.vehicle.lot_build import LINE_THICK_M, fence_part, line_part
from conftest import ROOT
from render_farm.seeds import rng_for

sys.path.insert(0, str(ROOT / "scripts"))
import coplanar_faces as coplanar  # noqa: E402


def lot_of(env: str, seed: int):
    return get_environment(env).sample_scene(rng_for("lot lines", env, seed), f"{env}-{seed}", seed).lot


def top_rects(part) -> list[tuple[float, float, float, float]]:
    """(x0, y0, x1, y1) of every face lying in the paint's top plane."""
    V, F = part
    V = np.asarray(V, float)
    out = []
    for f in F:
        P = V[list(f)]
        if np.allclose(P[:, 2], LINE_THICK_M):
            out.append((P[:, 0].min(), P[:, 1].min(), P[:, 0].max(), P[:, 1].max()))
    return out


def overlap_area(a, b) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def same_facing_overlaps(part) -> int:
    return len(coplanar.same_facing_overlaps(coplanar.part_triangles(*part)))


CASES = [("car_view", 0), ("car_view", 3), ("damage_view", 1), ("car_plate", 2), ("ro_board", 4)]


@pytest.mark.parametrize("env, seed", CASES)
def test_no_two_paint_tops_overlap(env, seed):
    rects = top_rects(line_part(lot_of(env, seed)))
    worst = max(overlap_area(a, b) for a, b in itertools.combinations(rects, 2))
    assert worst < 1e-9


@pytest.mark.parametrize("env, seed", CASES)
def test_neither_the_paint_nor_the_fence_has_faces_lying_on_each_other(env, seed):
    lot = lot_of(env, seed)
    assert same_facing_overlaps(line_part(lot)) == 0
    fences = [bd for bd in lot.backdrops if bd.kind == "fence"]
    assert fences
    for bd in fences:
        assert same_facing_overlaps(fence_part(lot, bd)) == 0


def test_the_overlap_finder_on_two_boxes():
    from geometry.mesh_parts import box_part, merge_parts

    one = box_part((0.0, 0.0, 0.0), (1.0, 0.1, 0.003))
    assert same_facing_overlaps(merge_parts([one, box_part((2.0, 0.0, 0.0), (3.0, 0.1, 0.003))])) == 0  # apart
    assert same_facing_overlaps(merge_parts([one, box_part((1.0, 0.0, 0.0), (2.0, 0.1, 0.003))])) == 0  # touching
    # half over the other: in each of the 4 shared planes (top, bottom, two sides) 3 of the 4 pairs
    # of triangles overlap (the fourth pair lies on opposite sides of the two diagonals)
    assert same_facing_overlaps(merge_parts([one, box_part((0.5, 0.0, 0.0), (1.5, 0.1, 0.003))])) == 12
    # a top 0.05 mm higher still lies in the plane; raised by 0.2 mm, only the two sides do
    assert same_facing_overlaps(merge_parts([one, box_part((0.5, 0.0, 0.0), (1.5, 0.1, 0.00305))])) == 12
    assert same_facing_overlaps(merge_parts([one, box_part((0.5, 0.0, 0.0002), (1.5, 0.1, 0.0032))])) == 6


@pytest.mark.parametrize("env, seed", CASES)
def test_every_bay_has_its_lines_and_each_shared_head_line_is_drawn_once(env, seed):
    lot = lot_of(env, seed)
    rows: dict[float, list] = {}
    for b in lot.bays:
        rows.setdefault(b.center[1], []).append(b)
    heads = {(round(y + bays[0].facing * BAY_LENGTH_M / 2, 6), round(b.center[0], 6))
             for y, bays in rows.items() for b in bays}
    shared = sum(len(bays) for bays in rows.values()) - len(heads)
    assert shared > 0                                    # rows parked head to head share head lines
    rects = top_rects(line_part(lot))
    side = [r for r in rects if r[3] - r[1] > 1.0]
    head = [r for r in rects if r[3] - r[1] < 1.0]
    assert len(side) == sum(len(bays) + 1 for bays in rows.values())
    assert len(head) == len(heads)
    assert all(r[2] - r[0] == pytest.approx(BAY_WIDTH_M) for r in head)
    assert all(r[3] - r[1] == pytest.approx(LINE_WIDTH_M) for r in head)
    # a side line runs from the aisle to the head line's near edge
    assert all(r[3] - r[1] == pytest.approx(BAY_LENGTH_M - LINE_WIDTH_M / 2) for r in side)
    total = sum((r[2] - r[0]) * (r[3] - r[1]) for r in rects)
    expected = (len(side) * LINE_WIDTH_M * (BAY_LENGTH_M - LINE_WIDTH_M / 2)
                + len(heads) * BAY_WIDTH_M * LINE_WIDTH_M)
    assert total == pytest.approx(expected)


@pytest.mark.render
def test_a_shared_head_line_and_its_crossings_render_lit(tmp_path):
    """Scene 0 of seed 0 (car_view): rows at y -32 and -38 share the head line at y = -35. A
    camera 1.6 m over the lot looks at a stretch of it with two crossings; no paint pixel is black
    (before vehicle-7: 121 of 160 x 120 were, the whole head line and the crossings)."""
    from mathutils import Vector

    from blender_envs.core.bpy_env import bpy
    from blender_envs.core.render_passes import render_frame
    from blender_envs.core.settings import RenderSettings
    from blender_envs.vehicle.lot_build import LOT_PASS
    from render_farm.job import build_scene, sample_spec
    from render_farm.plan import SceneJob

    quality = RenderSettings(name="t", long_side_px=160, samples=16, pass_samples=1)
    job = SceneJob(env="car_view", root_seed=0, stratum="random", scene_index=0, scene_id="random-00000",
                   views=[0], run_dir=str(tmp_path), quality=quality.model_dump(), device="cpu")
    rows = {b.center[1] for b in sample_spec(job).lot.bays}
    assert {-32.0, -38.0} <= rows
    scene, _, _ = build_scene(job)
    cam = bpy.data.objects.new("look", bpy.data.cameras.new("look"))
    scene.collection.objects.link(cam)
    scene.camera = cam
    scene.render.resolution_x, scene.render.resolution_y = 160, 120
    eye, target = Vector((1.0, -38.0, 1.6)), Vector((1.0, -35.0, 0.0))
    cam.location = eye
    cam.rotation_euler = (target - eye).to_track_quat("-Z", "Y").to_euler()
    out = render_frame(scene, quality, seed=1)
    paint = out.object_index == LOT_PASS["bay_lines"]
    assert paint.sum() > 500
    assert (out.linear_rgb[paint].max(axis=1) > 0.02).all()
