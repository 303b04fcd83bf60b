"""egopath end to end on tiny Cycles renders: the object-index pass against ray casts,
target boxes against the pieces' projected geometry, the ground truth as a valid
`ViewAnnotation` whose ground markers sit on floor pixels, and the farm's records."""
from __future__ import annotations

import numpy as np
import pytest

from blender_envs.indoor.egopath import first_person_pose
from blender_envs.indoor.layout import world_boxes
from conftest import preview_quality, run_config
from geometry.camera import project
from geometry.egopath_schema import ViewAnnotation
from geometry.scene import View
from render_farm.plan import plan_jobs
from formats.records import FrameRecord
from scorers.terms import Verdict, verdict_of

pytestmark = pytest.mark.render


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One egopath scene built in Blender, an accepted view, its 96x72 4-spp render."""
    from blender_envs.core.camera_rig import apply_camera_pose
    from blender_envs.core.render_passes import render_frame
    from blender_envs.core.settings import RenderSettings
    from blender_envs.registry import get_environment
    from render_farm.job import _draw_view, build_scene

    tmp = tmp_path_factory.mktemp("egopath")
    quality = RenderSettings.model_validate(preview_quality())
    env = get_environment("egopath")
    scorer = env.scorer_module()
    job = plan_jobs("egopath", 1, 1, "random", set(), root_seed=3, run_dir=str(tmp),
                    quality=quality.model_dump(), device="cpu")[0]
    scene, geo, _ = build_scene(job)
    for attempt in range(40):
        view, terms = _draw_view(job, env, scorer, geo, 0, attempt, quality.long_side_px)
        if verdict_of(terms) == Verdict.ACCEPT:
            break
    else:
        pytest.fail("no acceptable egopath pose in 40 draws")
    apply_camera_pose(scene, view.pose)
    out = render_frame(scene, quality, seed=0)
    return scene, geo, view, out, scorer


def test_index_pass_equals_raycast_ids(built):
    _, geo, view, out, _ = built
    p = view.pose
    ids, depth = geo.raycaster.first_hit_ids_for_pixels(p.K_array(), p.cam_to_world_array(), p.width, p.height)
    agree = float((ids == out.object_index).mean())
    assert agree >= 0.99, agree
    fin = np.isfinite(depth) & np.isfinite(out.depth)
    assert np.median(np.abs(depth[fin] - out.depth[fin])) < 1e-3
    assert (out.object_index > 0).mean() > 0.99  # a closed room: every pixel hits something


def test_target_boxes_match_the_index_pass_and_the_projected_pieces(built):
    """Each target's bbox (ray-cast) equals its index-pass bbox, and lies inside the
    projection of the piece's own boxes from the spec (so ids name the right pieces)."""
    from scorers.egopath_view import view_objects

    _, geo, view, out, _ = built
    p = view.pose
    targets, visible = view_objects(geo, p)
    assert targets, "an accepted view has a target"
    for t in targets:
        ys, xs = np.nonzero(out.object_index == t.object_id)
        assert len(xs)
        mask_box = [xs.min() - 0.5, ys.min() - 0.5, xs.max() + 0.5, ys.max() + 0.5]
        assert np.allclose(mask_box, t.bbox_px, atol=1.01), (t.name, mask_box, t.bbox_px)
        corners = np.concatenate(world_boxes(geo.spec.piece(t.name)))
        uv, z = project(corners, p.K_array(), p.cam_to_world_array())
        if (z > 0).all():
            assert uv[:, 0].min() - 1 <= mask_box[0] and mask_box[2] <= uv[:, 0].max() + 1, t.name
            assert uv[:, 1].min() - 1 <= mask_box[1] and mask_box[3] <= uv[:, 1].max() + 1, t.name
        # the mask centroid lies inside the piece's projected hull box as well
        cx, cy = xs.mean(), ys.mean()
        assert mask_box[0] <= cx <= mask_box[2] and mask_box[1] <= cy <= mask_box[3]
        assert 0.15 <= t.visible_surface <= 1.0 and 0.6 <= t.distance_m <= 7.0
        assert t.same_category_in_view == sum(v["category"] == t.category for v in visible)


def test_ground_truth_is_a_valid_annotation_with_markers_on_floor_pixels(built):
    _, geo, view, out, scorer = built
    gt = scorer.ground_truth(geo, view, None)
    assert gt["scene_group"] == geo.spec.scene_group
    assert gt == scorer.ground_truth(geo, view, None)  # deterministic
    ann = ViewAnnotation.model_validate({k: v for k, v in gt.items() if k != "scene_group"})
    assert ann.image_size == [view.pose.width, view.pose.height]
    floor = {o.id for o in geo.state.objects if o.category == "floor"}
    n_ground, on_floor = 0, 0
    for sheet in (ann.traversability, ann.route):
        for w in sheet.waypoints:
            u, v = (int(round(c)) for c in w.pixel)
            hit = int(out.object_index[v, u])
            if w.kind == "ground":
                n_ground += 1
                on_floor += hit in floor
            else:
                assert w.object_id is not None and w.object_id not in floor
    assert n_ground >= 1 and on_floor == n_ground, (on_floor, n_ground)
    names = {o.id: o.name for o in geo.state.objects}
    for t in ann.targets:
        assert names[t.object_id] == t.name
    for r in ann.routes:
        assert r.target_text
        assert (r.intent is None) == (not r.intent_cues)


def test_scene_terms_reject_a_camera_against_a_wall(built):
    """Hand-built poses: inside the room but 0.2 m from a wall looking at it."""
    _, geo, view, _, scorer = built
    room = geo.spec.rooms[0]
    x0, y0, x1, y1 = room.interior
    eye = [x0 + 0.2, (y0 + y1) / 2, 1.6]
    bad = View(view_index=0, target=view.target, pose=first_person_pose(eye, 180.0, 20.0, 80.0, 96))
    terms = {t.name: t for t in scorer.score_scene(geo, bad)}
    assert not terms["camera_clearance"].passed and terms["camera_clearance"].value < 0.35
    assert not terms["near_view"].passed and terms["near_view"].value < 0.8
    assert verdict_of(list(terms.values())) == Verdict.REJECT


def test_farm_records_carry_the_annotation(tmp_path):
    from render_farm.runner import render

    run = render(run_config(tmp_path / "r", env="egopath", n=2, workers=1)).run_dir
    recs = [FrameRecord.model_validate_json(l) for l in (run / "records.jsonl").read_text().splitlines()]
    assert len(recs) == 2
    for r in recs:
        assert {t.name for t in r.terms} >= {"camera_clearance", "near_view", "targets_in_view", "start_exists"}
        gt = r.ground_truth
        assert "scene_group" in gt
        if "annotation_error" not in gt:
            ViewAnnotation.model_validate({k: v for k, v in gt.items() if k != "scene_group"})
