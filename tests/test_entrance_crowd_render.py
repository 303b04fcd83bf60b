"""entrance_crowd rendered for real (one clip, 8 frames at 320x240, preview samples): the
entrance render test's box check (object-index pass against the boxes computed without
Blender), every passer clear or absent in every frame as the draw promised, Object
Localization keeping every frame with a crowd of boxes, and the clip's events the base
script's."""
from __future__ import annotations

import pytest

from blender_envs.registry import get_environment
from conftest import only_clip, render_one_clip
from packagers.vantage_tasks import object_localization
from packagers.vantage_tasks.box_scene import load_clip, min_visible_px, pixel_box
from test_entrance_render import check_body_boxes

pytestmark = pytest.mark.render

SEED = 1             # root seed 1, clip 0: 45 passers placed (target 62), a day lobby (entrance_crowd-5; seed 7 before)
LONG_SIDE = 320      # the smallest passer (30 px tall at 640) keeps >= min_visible_px here
# Object Localization boxes per frame (all 8 frames kept; entrance_crowd-5)
N_BOXES = [45, 45, 46, 46, 46, 44, 41, 41]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return render_one_clip(tmp_path_factory, "entrance_crowd", SEED, LONG_SIDE)


def _clip(run):
    return only_clip(run, "entrance_crowd")[:2]


def test_body_boxes_match_the_object_index_pass(run):
    clip, spec = _clip(run)
    errors, categories = check_body_boxes(run, clip, LONG_SIDE)
    # 1,128 box sides: most of the 45 passers in every frame
    assert categories >= {"person"} and len(errors) >= 4 * 8 * 34


def test_every_passer_is_clear_or_absent(run):
    """What the draw arranged analytically holds in the render: a passer whose body box lies in
    the frame has at least min_visible_px pixels and at least half its surface unhidden; one
    outside has no pixel."""
    clip, spec = _clip(run)
    min_px = min_visible_px(LONG_SIDE, LONG_SIDE * 3 // 4)
    passers = set(spec.crowd.passers)
    seen = 0
    for f in clip["frames"]:
        for o in f["objects"]:
            if o["track_id"] not in passers:
                continue
            if o["body_box_xyxy"] is None:
                assert not o["visible_px"], (f["index"], o["track_id"])
                continue
            seen += 1
            assert o["visible_px"] >= min_px and o["visible_fraction"] >= 0.5, (f["index"], o)
    assert seen >= 8 * 42                                         # 343 at entrance_crowd-5


def test_object_localization_keeps_every_frame_with_a_crowd(run):
    clip, spec = _clip(run)
    items = object_localization.items_for_clip(load_clip(run, clip["clip_id"]))
    assert [it.tags["n_boxes"] for it in items] == N_BOXES
    for it, f in zip(items, clip["frames"]):
        want = sorted(pixel_box(o["box_xyxy"]) for o in f["objects"] if o["category"] == "person" and o["visible_px"])
        assert sorted(map(tuple, it.answer.boxes)) == want and it.answer.category == "person"
        assert it.domain == "S" and it.env == "entrance_crowd"


def test_clip_events_are_the_base_scripts(run):
    clip, spec = _clip(run)
    env = get_environment("entrance_crowd")
    assert clip["events"] == [e.model_dump(exclude_none=True) for e in env.events(spec)]
    assert sorted((e["type"], sorted(e["actors"])) for e in clip["events"]) == \
        sorted((s.type, sorted(s.actors)) for s in spec.scripts if s.positive)
