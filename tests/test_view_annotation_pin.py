"""Pins of `build_view_annotation`'s exact output, taken before it was split into stages.

Each case hashes the annotation's JSON on a fixed synthetic room (a table, two crates
with a 0.45 m gap, a cabinet, a stool next to the start, and a barrier that forces the
display search); the last hashes full egopath ground truths of two procedural scenes
(`bench/egopath_views.run`, no Blender). A refactor that changes any waypoint, id,
edge, route or float changes a hash. The hashes were recorded on the unsplit function
(commit fd37bde; rounded as below since) and must never be updated to match new output
unless a defect fix changes the annotation on purpose (then bump the egopath generator
version).

The hashes are taken over the JSON with every float rounded to 9 decimals (`_digest`):
OpenBLAS picks its matrix kernel by processor, and an AVX-512 kernel moves a projected pixel
coordinate by one unit in the last place (175.57435424366236 vs ...238, measured with
OPENBLAS_CORETYPE=Haswell against SkylakeX on one machine). Rounding keeps the pins the same on
every processor while any change a refactor could make (a waypoint, an id, a route, a float
beyond 1e-9) still changes a hash. The rounded hashes were checked equal under the Haswell,
Zen, SkylakeX and Sandybridge kernels (Sandybridge also gives -2.2e-16 for a 0.0); under
Haswell the unrounded fd37bde hashes still held. A mutant that moves a float by less than
1e-9 now passes these pins (it was caught only through the last digit before).
"""
from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
import trimesh

from geometry.camera import CameraPose, PhoneLens, look_at
from geometry.egopath_schema import GeometryParams, TargetInfo
from geometry.occupancy import occupancy_from_mesh
from geometry.raycast import Raycaster, SceneMesh
from geometry.view_annotation import AnnotationParams, build_view_annotation

TABLE = ((-1.6, 2.6, 0.0), (-0.8, 3.4, 0.75))
CRATE_A = ((0.2, 2.0, 0.0), (1.4, 2.4, 0.4))
CRATE_B = ((1.85, 2.0, 0.0), (3.0, 2.4, 0.4))
CABINET = ((1.2, 4.4, 0.0), (2.0, 4.8, 1.0))
STOOL = ((0.72, 0.7, 0.0), (1.02, 1.1, 0.45))
BARRIER = ((-2.0, 2.0, 0.0), (1.6, 2.4, 0.4))
SHELF = ((-2.0, 4.4, 0.0), (-1.2, 4.8, 1.0))


def _box(lo, hi):
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return trimesh.creation.box(extents=hi - lo, transform=trimesh.transformations.translation_matrix((lo + hi) / 2))


def _room(objects) -> SceneMesh:
    floor = trimesh.Trimesh(np.array([[-3, -1, 0], [3, -1, 0], [3, 7, 0], [-3, 7, 0]], float),
                            [[0, 1, 2], [0, 2, 3]], process=False)
    walls = [((-3.1, -1.1, 0), (-3.0, 7.1, 2.5)), ((3.0, -1.1, 0), (3.1, 7.1, 2.5)),
             ((-3.1, 7.0, 0), (3.1, 7.1, 2.5)), ((-3.1, -1.1, 0), (3.1, -1.0, 2.5))]
    parts = [(1, "floor", floor)] + [(2, "walls", _box(*w)) for w in walls]
    parts += [(oid, name, _box(*lohi)) for oid, name, lohi in objects]
    return SceneMesh.from_trimesh_parts(parts)


def _pose(width=480, height=360) -> CameraPose:
    f = 0.75 * width
    lens = PhoneLens(name="main", focal_mm=6.0, sensor_width_mm=8.0, sensor_height_mm=6.0, fnumber=1.8,
                     equiv_focal_mm=26.0)
    return CameraPose(width=width, height=height, K=[[f, 0.0, (width - 1) / 2], [0.0, f, (height - 1) / 2],
                                                      [0.0, 0.0, 1.0]],
                      cam_to_world=look_at((0.3, -0.6, 1.5), (0.5, 3.5, 0.0)).tolist(), orientation="landscape",
                      lens=lens, sensor_width_mm=8.0, focus_mode="pinhole", focus_distance_m=None, shutter_s=0.01)


def _target(oid, name, lo, hi) -> TargetInfo:
    return TargetInfo(object_id=oid, name=name, category=name, color="red", bbox_px=[0, 0, 80, 80],
                      visible_surface=0.8, distance_m=3.0, strict_visible=True, same_category_in_view=1,
                      footprint_xy=[[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])


FURNISHED = [(3, "table", TABLE), (4, "crate_a", CRATE_A), (5, "crate_b", CRATE_B), (6, "cabinet", CABINET),
             (9, "stool", STOOL)]
BARRED = [(7, "barrier", BARRIER), (8, "shelf", SHELF)]


def _annotate(objects, target_ids, seed, timings=None, params=None, **settings):
    mesh = _room(objects)
    grid = occupancy_from_mesh(mesh, {1}, GeometryParams())
    by_id = {oid: (name, lohi) for oid, name, lohi in objects}
    targets = [_target(oid, by_id[oid][0], *by_id[oid][1]) for oid in target_ids]
    return build_view_annotation(
        mesh=mesh, raycaster=Raycaster(mesh), grid=grid, pose=_pose(), targets=targets, floor_ids=[1],
        obstacle_ids=[2] + [oid for oid, _, _ in objects], rng=np.random.default_rng(seed),
        target_texts={oid: f"the {by_id[oid][0]}" for oid in target_ids},
        visible_objects=[{"object_id": oid, "name": by_id[oid][0]} for oid in target_ids],
        params=AnnotationParams(**settings) if params is None else params, timings=timings)


def _rounded(value):
    if isinstance(value, float):
        return round(value, 9) + 0.0  # + 0.0: a -2e-16 that rounds to -0.0 is written as 0.0
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


def _digest(ann) -> str:
    """sha256 of the annotation's JSON with floats rounded to 9 decimals (see the module docstring)."""
    text = json.dumps(_rounded(ann.model_dump(mode="json")), separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


CASES = {
    "defaults": (FURNISHED, [3, 6, 9], 0, {}),
    "other_seed_small_counts": (FURNISHED, [3, 6], 5, dict(n_ground=6, n_surface=2, sensitive_fraction=0.5)),
    "min_target_start": (FURNISHED, [3, 6, 9], 0, dict(min_target_start_m=2.5)),
    "explicit_spacing": (FURNISHED, [6, 9], 2, dict(min_spacing_px=22.0, route_spacing_px=15.0, margin_px=10.0,
                                                     snap_m=0.3, nudge_m=0.05, search_m=0.8, clear_px=2.0,
                                                     max_distance_m=6.0)),
    "geometry_params": (FURNISHED, [3, 6], 1, dict(geometry=GeometryParams(body_radius_m=0.25, goal_ring_m=0.15))),
    "no_display_search": (BARRED, [8], 0, dict(n_surface=3)),
    "display_search": (BARRED, [8], 0, dict(n_surface=3, display_search=True)),
}

PINNED = {
    "defaults": "58cc068620f505b4c6fbc0fa5e0238e85d7eb3e08926e063c97400dffc11dab9",  # 3 units
    "display_search": "4d327df08b137bde3f99be9987c7f81129c1e42f3164c8be26d4908f4488d32c",  # 1 units
    "explicit_spacing": "a26872fba7a12125561f7a25aa97175bd25856887039152d27b4a857c7d12625",  # 2 units
    "geometry_params": "1bfbe64df4cf2194373eb1bf7597c94d44e34998b3b3c7720f82cddc6199e07f",  # 2 units
    "min_target_start": "356a0b998718260118a872ce6944f7a5f34b4f45e7d6d06b0f7e4ac6181daee9",  # 1 units
    "no_display_search": "8011c9c954e5d48a33a5e0454c9dddf603b8d3f3a900baf4d0d36bc190112e74",  # 0 units
    "other_seed_small_counts": "fa488ba51124e3ad2dbb756453a0a38d55cfc7c96511a12c4935d11a4c06b4ce",  # 2 units
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_annotation_bytes_are_pinned(case):
    objects, target_ids, seed, settings = CASES[case]
    ann = _annotate(objects, target_ids, seed, **settings)
    assert _digest(ann) == PINNED[case]


def test_every_case_builds_routes_where_expected():
    """The pins cover routes, not just empty sheets: the route-free cases are the ones meant to be."""
    n = {case: len(_annotate(o, t, s, **kw).routes) for case, (o, t, s, kw) in CASES.items()}
    assert n["no_display_search"] == 0 and n["display_search"] == 1
    assert all(v >= 1 for k, v in n.items() if k != "no_display_search")


def test_timings_collect_every_stage():
    tim: dict = {}
    objects, target_ids, seed, settings = CASES["display_search"]
    _annotate(objects, target_ids, seed, timings=tim, **settings)
    assert set(tim) == {"route_search_s", "insert_s", "graphs_s", "verify_s"}
    assert all(v >= 0.0 for v in tim.values())


PINNED_SCENES = [
    "0ec280749991d4b67485cc8172c350a6c878388ca9595e22868d04e6e03b2bcc",
    "9509abb8dacceee042f6fc5e57640b676b077407b8394c81550cb696210adef1",
    "f26ad609e8602437d2353cb7eb8f018873a45842e85ac0570d3a86e5d2aa16c6",
    "7a3cc703def1a6f27a536dacc3a13861552df7f5aae2e613c95cdd31b8858270",
]


def test_procedural_scene_ground_truths_are_pinned():
    """Two egopath scenes x two views at 320 px through the scorer's ground truth (seed 0)."""
    from bench.egopath_views import run

    anns, _, counts = run(2, 2, 0, 320, 8, verbose=False)
    assert counts["views"] == 4
    assert [_digest(a) for a in anns] == PINNED_SCENES


def test_params_model_keeps_the_old_keyword_defaults():
    assert AnnotationParams().model_dump() == {
        "geometry": GeometryParams().model_dump(), "n_ground": 12, "n_surface": 4, "sensitive_fraction": 0.25,
        "min_spacing_px": None, "route_spacing_px": None, "margin_px": None, "max_distance_m": 8.0, "snap_m": 0.25,
        "nudge_m": 0.10, "search_m": 0.5, "clear_px": 3.0, "display_search": False, "min_target_start_m": 0.0}
    for bad in (dict(n_ground=-1), dict(n_surface=-1), dict(sensitive_fraction=1.01), dict(typo=1)):
        with pytest.raises(ValueError):
            AnnotationParams(**bad)
    with pytest.raises(TypeError, match="AnnotationParams"):  # the old `params=GeometryParams()` call
        _annotate(FURNISHED, [3], 0, params=GeometryParams())
