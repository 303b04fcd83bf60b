"""Pins of the four VANTAGE box/point task generators on hand-made clips (no Blender).

A real warehouse_sot spec (seed 4 of the "pins" stream: person_1 lime, person_2 yellow,
forklift_1 orange with a lime-vested operator, carrying pallet_1 until it is set down at
5.42 s, amr_1 grey with a red tote, forklift_2 yellow with an orange-vested operator) gives
the looks and trajectories; each test writes the frame objects (boxes, pixels) itself, so
every expected expression, box, point and letter below is worked out by hand.
"""
from __future__ import annotations

import math

import pytest

from blender_envs.infra import warehouse, warehouse_sot
from packagers.vantage_tasks import box_scene as B
from packagers.vantage_tasks import object_localization as O
from packagers.vantage_tasks import referring_expressions as R
from packagers.vantage_tasks import single_object_tracking as S
from packagers.vantage_tasks import spatial_pointing as P
from render_farm.seeds import rng_for

W, H = 160, 120
CAM = [[1, 0, 0, 0.0], [0, 1, 0, 0.0], [0, 0, 1, 5.0], [0, 0, 0, 1]]


@pytest.fixture(scope="module")
def spec():
    return warehouse_sot.sample_scene(rng_for("pins", 4), "s4", 4)


def obj(tid, box=None, px=100, vf=1.0, xyz=(0.0, 0.0, 0.0), cat=None):
    cat = cat or tid.rsplit("_", 1)[0]
    return {"track_id": tid, "category": cat, "box_xyxy": None if box is None else list(map(float, box)),
            "visible_px": px if box is not None else 0, "visible_fraction": vf, "center_world": list(xyz),
            "object_id": 100, "amodal_box_xyxy": None, "body_box_xyxy": None}


def clip_of(spec, frames_objects, numbers=None, looks=None, t=1.0):
    if looks:
        new = dict(spec.looks)
        for tid, names in looks.items():
            new[tid] = new[tid].model_copy(update={"color_names": {**new[tid].color_names, **names}})
        spec = spec.model_copy(update={"looks": new})
    numbers = numbers or list(range(len(frames_objects)))
    frames = [{"index": i, "t": t if numbers == list(range(len(frames_objects))) else n / 30, "frame_number": n,
               "image": f"frames/x-{i:02d}.jpg", "passes": "p", "objects": objs,
               "camera": {"K": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "cam_to_world": CAM, "width": W, "height": H}}
              for i, (n, objs) in enumerate(zip(numbers, frames_objects))]
    doc = {"clip_id": "warehouse_sot-pins-0", "env": "warehouse_sot", "scene_id": "s4", "fps": 30, "duration_s": 16.0,
           "frames": frames}
    return B.Clip(run_dir=__import__("pathlib").Path("/nonexistent"), doc=doc, spec=spec)


# ------------------------------------------------------------------ conventions

def test_box_conventions_and_visibility_floor():
    assert B.pixel_box([3, 4, 3, 4]) == (3.0, 4.0, 4.0, 5.0)              # one pixel covers [3, 4) x [4, 5)
    assert B.box_1000((16.0, 12.0, 32.0, 60.0), W, H) == (100.0, 100.0, 200.0, 500.0)
    assert B.box_1000((1.0, 1.0, 3.0, 3.0), 3, 3) == (333.33, 333.33, 1000.0, 1000.0)
    assert B.min_visible_px(160, 120) == 12                                  # the floor
    assert B.min_visible_px(640, 480) == 60                                  # ceil(400 * 307200 / 2073600)
    assert B.min_visible_px(1920, 1080) == 400                               # the harness's own frames
    t = B.Thing("p", "person", (0, 0, 4, 3), 12, 0.5, (0, 0, 0), "lime")
    assert t.clear(12) and not t.clear(13)
    assert not B.Thing("p", "person", (0, 0, 4, 3), 12, 0.49, (0, 0, 0), "lime").clear(12)
    assert not B.Thing("p", "person", None, 0, 0.0, (0, 0, 0), "lime").seen


def test_inside_refuses_paths_out_of_the_run(tmp_path):
    assert B.inside(tmp_path, "clips/a.json") == (tmp_path / "clips/a.json").resolve()
    with pytest.raises(B.ClipInputError, match="leaves the run directory"):
        B.inside(tmp_path, "../x.json")
    with pytest.raises(B.ClipInputError, match="not a clip id"):
        B.load_clip(tmp_path, "../etc/passwd")
    with pytest.raises(B.ClipInputError, match="clip c1 in"):
        B.load_clip(tmp_path, "c1")


def test_facts_follow_the_looks_and_the_carried_pallet(spec):
    objs = [obj("forklift_1", [0, 0, 9, 9]), obj("forklift_2", [20, 0, 29, 9]), obj("amr_1", [40, 0, 49, 9]),
            obj("person_1", [60, 0, 69, 9])]
    clip = clip_of(spec, [objs], t=4.4)
    f1, f2, amr, p1 = B.frame_things(clip, clip.frames[0])
    assert (f1.color, f1.load, f1.operator_vest) == ("orange", True, "lime")     # lifted until 5.42 - 1 s
    assert (f2.color, f2.load, f2.operator_vest) == ("yellow", False, "orange")  # never holds a pallet
    assert (amr.color, amr.tote) == ("grey", "red")
    assert p1.color == "lime" and p1.box == (60.0, 0.0, 70.0, 10.0)
    clip = clip_of(spec, [objs], t=4.5)
    assert B.frame_things(clip, clip.frames[0])[0].load is None                  # being set down: no load word


def test_warehouse_sot_is_the_warehouse_draw_at_the_sot_frames():
    a = warehouse_sot.sample_scene(rng_for("x", 1), "s", 1)
    b = warehouse.sample_scene(rng_for("x", 1), "s", 1, roamers=warehouse_sot.ROAMERS)
    assert a.env == "warehouse_sot" and b.env == "warehouse"
    assert a.model_dump(exclude={"env", "timeline"}) == b.model_dump(exclude={"env", "timeline"})
    assert a.timeline.agents == b.timeline.agents and a.timeline.camera == b.timeline.camera
    frames = a.timeline.clip.frame_numbers()
    assert len(frames) == 46 and frames[:6] == [0, 14, 15, 28, 30, 42] and frames[-1] == 434
    assert warehouse_sot.horizon_frames(8, 15) == [0, 15, 30, 45, 60, 75, 90, 105]
    assert warehouse_sot.horizon_frames(16, 15)[:8] == warehouse_sot.horizon_frames(8, 15)
    assert warehouse_sot.horizon_frames(16, 15)[-1] == 225 and warehouse_sot.horizon_frames(32, 14)[-1] == 434
    assert warehouse_sot.ENV.views_per_scene == 46


# ------------------------------------------------------------------ Referring Expressions

def _things(spec, objs, looks=None, t=1.0):
    clip = clip_of(spec, [objs], looks=looks, t=t)
    return clip, B.frame_things(clip, clip.frames[0])


def test_identical_vests_need_the_position_words(spec):
    # both workers orange: left one at centre x 10.5, right one at 140.5; the lime... none
    clip, things = _things(spec, [obj("person_1", [5, 50, 15, 80]), obj("person_2", [135, 50, 145, 80])],
                           looks={"person_1": {"vest": "orange"}, "person_2": {"vest": "orange"}})
    assert R.describe(things[0], things, W, H) == "The worker in the orange vest is located near the left of the image."
    assert R.describe(things[1], things, W, H) == \
        "The worker in the orange vest is located near the right of the image."
    assert R.resolve("The worker in the orange vest.", things, W, H) == ["person_1", "person_2"]
    items = R.items_for_clip(clip)
    assert [it.answer.boxes for it in items] == [[(5.0, 50.0, 16.0, 81.0)], [(135.0, 50.0, 146.0, 81.0)]]
    assert [it.tags["same_color_distractors"] for it in items] == [1, 1]
    assert items[0].prompt.count("Supplied Description: The worker in the orange vest is located near the left") == 1


def test_unique_colour_needs_no_more_words_and_the_operator_is_a_worker(spec):
    _, things = _things(spec, [obj("person_1", [70, 50, 80, 80]), obj("person_2", [100, 50, 110, 80])])
    assert R.describe(things[0], things, W, H) == "The worker in the lime vest."
    # forklift_1's operator wears lime: a seen forklift_1 makes the lime worker ambiguous
    _, things = _things(spec, [obj("person_1", [5, 50, 15, 80]), obj("forklift_1", [120, 10, 150, 40])])
    assert R.resolve("The worker in the lime vest.", things, W, H) == ["person_1", "forklift_1"]
    assert R.describe(things[0], things, W, H) == "The worker in the lime vest is located near the left of the image."


def test_position_margin_and_load_words(spec):
    # person_2 (also lime) centred at x = 60 (left third ends at 53.33; margin 6.4): no left word for it,
    # and person_1 at x = 10 may use "left" only if person_2 is outside left + margin: 60 > 59.73 -> yes
    _, things = _things(spec, [obj("person_1", [5, 50, 14, 80]), obj("person_2", [55, 50, 64, 80])],
                        looks={"person_2": {"vest": "lime"}})
    assert R.describe(things[0], things, W, H) == "The worker in the lime vest is located near the left of the image."
    assert R.describe(things[1], things, W, H) is None
    _, things = _things(spec, [obj("person_1", [5, 50, 14, 80]), obj("person_2", [52, 50, 61, 80])],
                        looks={"person_2": {"vest": "lime"}})                  # centre 57 < 59.73: too close
    assert R.describe(things[0], things, W, H) is None
    # two orange forklifts: only one carries the pallet (t = 1 s)
    _, things = _things(spec, [obj("forklift_1", [70, 10, 100, 40]), obj("forklift_2", [75, 50, 105, 80])],
                        looks={"forklift_2": {"paint": "orange"}})
    assert R.describe(things[0], things, W, H) == "The orange forklift carrying a pallet."
    assert R.describe(things[1], things, W, H) == "The orange forklift with empty forks."
    # in between (t = 4.5 s): forklift_1 has no load word and matches both
    _, things = _things(spec, [obj("forklift_1", [70, 10, 100, 40]), obj("forklift_2", [75, 85, 105, 114])],
                        looks={"forklift_2": {"paint": "orange"}}, t=4.5)
    assert R.resolve("The orange forklift with empty forks.", things, W, H) == ["forklift_1", "forklift_2"]
    assert R.describe(things[0], things, W, H) == "The orange forklift is located near the top of the image."
    assert R.describe(things[1], things, W, H) == "The orange forklift is located near the bottom of the image."


def test_resolver_reads_only_its_grammar(spec):
    _, things = _things(spec, [obj("amr_1", [70, 50, 90, 70])])
    assert R.resolve("The grey mobile robot carrying a red tote.", things, W, H) == ["amr_1"]
    assert R.resolve("The grey mobile robot without a tote.", things, W, H) == []
    assert R.resolve("The grey mobile robot carrying a pallet.", things, W, H) == []
    for bad in ("the grey mobile robot.", "The grey mobile robot", "The grey robot.", "", "x" * 10000):
        assert R.resolve(bad, things, W, H) is None
    # an object without pixels is never a match, a sliver is
    _, things = _things(spec, [obj("person_1", None), obj("person_2", [5, 5, 5, 5], px=1)],
                        looks={"person_2": {"vest": "lime"}})
    assert R.resolve("The worker in the lime vest.", things, W, H) == ["person_2"]


def test_unclear_targets_get_no_item_but_stay_distractors(spec):
    clip, _ = _things(spec, [obj("person_1", [5, 50, 15, 80], px=11), obj("person_2", [135, 50, 145, 80])],
                      looks={"person_2": {"vest": "lime"}})
    items = R.items_for_clip(clip)
    assert [it.tags["target"] for it in items] == ["person_2"]
    assert items[0].tags["expression"] == "The worker in the lime vest is located near the right of the image."


# ------------------------------------------------------------------ Spatial Pointing

def test_pointing_questions_and_points(spec):
    objs = [obj("person_1", [15, 50, 24, 79], xyz=(0, 8, 0)), obj("person_2", [95, 40, 104, 69], xyz=(2, 4, 0)),
            obj("forklift_1", [120, 10, 149, 39], xyz=(2.5, 4.5, 0)), obj("amr_1", [50, 90, 69, 109], xyz=(-3, 9, 0))]
    clip, things = _things(spec, objs)
    qs = P.questions(things, [0.0, 0.0, 5.0], W, H)
    assert [(k, w) for k, _, w in qs] == [("leftmost", "person_1"), ("rightmost", "person_2"),
                                          ("nearest_camera", "person_2"), ("closest_to_forklift_1", "person_2"),
                                          ("closest_to_amr_1", "person_1")]
    assert qs[3][1] == "Where is the worker closest to the orange forklift?"
    assert P.point_1000((15, 50, 25, 80), W, H) == (125, 542)
    items = P.items([clip])
    assert len(items) == 5
    left = next(it for it in items if it.tags["template"] == "leftmost")
    pts = left.answer.points
    assert pts["ABCD".index(left.answer.letter)] == (125.0, 542.0)
    assert sorted(pts) == sorted([(125.0, 542.0), (625.0, 458.0), (844.0, 208.0), (375.0, 833.0)])
    assert left.answer.options["ABCD".index(left.answer.letter)] == "125, 542"
    assert "A. " + left.answer.options[0] + "\nB. " in left.prompt
    assert left.prompt.startswith("Answer the following spatial grounding question based on the image.\n"
                                  "Question: Where is the leftmost worker in this image?\n")


def test_pointing_margins_and_option_gaps(spec):
    # centres 20 and 26 px apart by less than 0.04 * 160 = 6.4: no leftmost / rightmost question
    objs = [obj("person_1", [15, 50, 24, 79], xyz=(0, 8, 0)), obj("person_2", [21, 50, 30, 79], xyz=(0, 3, 0))]
    _, things = _things(spec, objs)
    assert [k for k, _, _ in P.questions(things, [0.0, 0.0, 5.0], W, H)] == ["nearest_camera"]
    # 0.9 m apart from the camera: below the 1 m margin
    objs[1] = obj("person_2", [95, 50, 104, 79], xyz=(0, 7.1, 0))
    _, things = _things(spec, objs)
    assert [k for k, _, _ in P.questions(things, [0.0, 0.0, 0.0], W, H)] == ["leftmost", "rightmost"]
    # only three clear objects in the frame: no item has four options
    clip, _ = _things(spec, objs + [obj("forklift_1", [120, 10, 149, 39])])
    assert P.items([clip]) == []


def test_a_worker_reference_must_be_unique_among_operators_too(spec):
    # forklift_1's operator wears lime like person_1: "the worker in the lime vest" is no reference;
    # person_2 (yellow) is one: forklift_2's operator wears orange
    objs = [obj("forklift_1", [10, 10, 39, 39], xyz=(0, 5, 0)), obj("forklift_2", [120, 10, 149, 39], xyz=(6, 5, 0)),
            obj("person_1", [20, 80, 29, 109], xyz=(0, 2, 0)), obj("person_2", [130, 80, 139, 109], xyz=(6, 2, 0))]
    _, things = _things(spec, objs)
    keys = [k for k, _, _ in P.questions(things, [0.0, -9.0, 5.0], W, H)]
    assert "closest_to_person_2" in keys and "closest_to_person_1" not in keys
    assert "closest_to_forklift_1" in keys and "closest_to_forklift_2" in keys


def test_letters_are_balanced_over_the_set(spec):
    objs = [obj("person_1", [15, 50, 24, 79], xyz=(0, 8, 0)), obj("person_2", [95, 40, 104, 69], xyz=(2, 4, 0)),
            obj("forklift_1", [120, 10, 149, 39], xyz=(2.5, 4.5, 0)), obj("amr_1", [50, 90, 69, 109], xyz=(-3, 9, 0))]
    clip = clip_of(spec, [objs] * 7, t=1.0)
    items = P.items([clip])
    assert len(items) == 35
    counts = P.letter_counts(items)
    assert max(counts.values()) - min(counts.values()) <= 1 and sum(counts.values()) == 35
    assert [it.id for it in P.items([clip])] == [it.id for it in items]
    assert [it.answer.letter for it in P.items([clip])] == [it.answer.letter for it in items]
    assert [it.answer.letter for it in P.items([clip], seed=1)] != [it.answer.letter for it in items]
    assert "".join(it.answer.letter for it in items) == "BCDABDCABADCACBDBCDABDCACABDDBACBDA"   # seeded blocks
    assert [(it.tags["template"], it.tags["same_class_distractors"]) for it in items[:5]] == [
        ("closest", 1), ("closest", 1), ("leftmost", 1), ("nearest_camera", 1), ("rightmost", 1)]
    assert items[0].answer.options == ("625, 458", "125, 542", "844, 208", "375, 833")


def test_options_take_clear_objects_same_class_first(spec):
    # a sliver forklift (5 px) is never an option; after the workers come forklift_1, then the AMR
    objs = [obj("person_1", [15, 50, 24, 79], xyz=(0, 8, 0)), obj("person_2", [95, 40, 104, 69], xyz=(2, 4, 0)),
            obj("forklift_2", [60, 10, 61, 12], px=5), obj("forklift_1", [120, 10, 149, 39], xyz=(2.5, 4.5, 0)),
            obj("amr_1", [50, 90, 69, 109], xyz=(-3, 9, 0))]
    clip, _ = _things(spec, objs)
    left = next(it for it in P.items([clip]) if it.tags["template"] == "leftmost")
    assert set(left.answer.points) == {(125.0, 542.0), (625.0, 458.0), (844.0, 208.0), (375.0, 833.0)}
    assert left.tags["same_class_distractors"] == 1 and left.tags["target"] == "person_1"


# ------------------------------------------------------------------ Object Localization

def test_objloc_boxes_and_ambiguous_frames(spec):
    objs = [obj("person_2", [95, 40, 104, 69]), obj("person_1", [15, 50, 24, 79]), obj("forklift_1", [120, 10, 149, 39]),
            obj("forklift_2", [0, 0, 3, 2], px=11), obj("amr_1", None)]
    clip, _ = _things(spec, objs)
    items = O.items_for_clip(clip)
    assert [it.answer.category for it in items] == ["person"]        # forklift_2 is a sliver: no forklift item
    assert items[0].answer.boxes == [(15.0, 50.0, 25.0, 80.0), (95.0, 40.0, 105.0, 70.0)]
    assert items[0].prompt == ("Locate every instance that belongs to the following categories: 'person on foot'. "
                               "For each instance of the class, report bbox coordinates in JSON format. Do not group "
                               "instances and report only individual instances. Avoid reporting duplicate instances.")
    objs[3] = obj("forklift_2", [0, 0, 3, 2], px=12)
    clip, _ = _things(spec, objs)
    assert [it.answer.category for it in O.items_for_clip(clip)] == ["person", "forklift"]
    assert O.items_for_clip(clip)[1].prompt.count("'forklift'") == 1


# ------------------------------------------------------------------ SOT

def _sot_clip(spec, px_at=lambda n: 100):
    numbers = warehouse_sot.SOT_FRAMES
    frames = []
    for n in numbers:
        x = 10 + n // 10                                        # 1 px per 10 frames to the right
        frames.append([obj("person_1", [x, 50, x + 9, 79], px=px_at(n)), obj("person_2", [150, 0, 159, 9], px=20),
                       obj("forklift_1", None)])
    return clip_of(spec, frames, numbers=numbers)


def test_sot_frames_boxes_and_absence(spec):
    clip = _sot_clip(spec, px_at=lambda n: 3 if n == 30 else 4 if n == 45 else 100)
    items = S.items_for_clip(clip)
    # person_2 stands still (centre range 0 < MOVING_RANGE over the 8 frames): no target, though clear
    assert [it.id.rsplit("/", 1)[1] for it in items] == ["person_1-8f", "person_1-16f", "person_1-32f"]
    p8, p16, p32 = items
    assert p8.media.frame_numbers == [0, 15, 30, 45, 60, 75, 90, 105] and p8.media.kind == "frames"
    assert p16.media.frame_numbers[:8] == p8.media.frame_numbers and p16.answer.boxes[:8] == p8.answer.boxes
    assert p32.media.frame_numbers == list(range(0, 435, 14))
    assert p8.answer.init_box == (62.5, 416.67, 125.0, 666.67) == p8.answer.boxes[0]
    assert p8.answer.boxes[1] == (68.75, 416.67, 131.25, 666.67)       # x = 11 at frame 15
    assert p8.answer.boxes[2] is None                                 # 3 px at frame 30: absent
    assert p8.answer.boxes[3] == (87.5, 416.67, 150.0, 666.67)        # 4 px at frame 45: there (x = 14)
    assert p8.tags["occluded"] is True and p32.tags["occluded"] is False
    assert (p8.tags["size"], p8.tags["object_class"], p8.tags["other_tracks"]) == ("medium", "person", 1)
    assert p8.prompt.startswith("You are a visual object tracker. Track a specific person across 8 video frames.")
    assert "Its initial bounding box is [62, 417, 125, 667]" in p8.prompt and "\"frame_7\"" in p8.prompt
    assert p8.media.times_s[1] == 0.5


def test_sot_needs_its_frames(spec):
    clip = clip_of(spec, [[obj("person_1", [10, 50, 19, 79])]], numbers=[0])
    with pytest.raises(B.ClipInputError, match=r"lacks SOT frames .*\(render it with env=warehouse_sot\)"):
        S.items_for_clip(clip)


def test_sot_tags_thresholds():
    def t(init, gt, n=0, cat="person"):
        return S.tags(init, gt, cat, n)

    small = (0, 0, 70, 99.9)       # 0.00699 of the frame
    assert t(small, [small])["size"] == "small" and t((0, 0, 70, 100), [None])["size"] == "medium"
    assert t((0, 0, 200, 100.1), [None])["size"] == "large" and t((0, 0, 200, 100), [None])["size"] == "medium"
    b = (0, 0, 10, 10)
    assert t(b, [b, (6, 8, 16, 18)])["motion"] == "moderate_motion"                # hypot(6, 8) = 10
    assert t(b, [b, (5.9, 8, 15.9, 18)])["motion"] == "stationary"
    assert t(b, [b, (48, 64, 58, 74)])["motion"] == "moderate_motion"              # 80: not above
    assert t(b, [b, (48, 64.1, 58, 74.1)])["motion"] == "fast_motion"
    assert t(b, [b, None])["motion"] == "stationary" and t(b, [b, None])["occluded"] is True
    assert t(b, [b], n=5, cat="amr")["crowded"] is True and t(b, [b], n=4)["crowded"] is False
    assert t(b, [b], cat="forklift")["object_class"] == "robot"


def test_init_frame_draws_the_harness_rectangle():
    import numpy as np

    img = np.full((120, 160, 3), 100, np.uint8)
    out = S.init_frame(img, (250.0, 500.0, 500.0, 750.0))                # px 40, 60 .. 80, 90
    assert tuple(out[75, 40]) == (0, 255, 0) and tuple(out[75, 80]) == (0, 255, 0)
    assert tuple(out[60, 60]) == (0, 255, 0) and tuple(out[90, 60]) == (0, 255, 0)
    assert tuple(out[75, 60]) == (100, 100, 100) and tuple(out[75, 37]) == (100, 100, 100)
    assert (out[40:55, 40:100] == (0, 255, 0)).all(axis=2).sum() > 40    # the TARGET label above the box
    green = (out == (0, 255, 0)).all(axis=2)
    assert np.nonzero(green[75])[0].tolist() == [39, 40, 41, 79, 80, 81]   # 2 px lines at x = 40 and 80
    assert np.nonzero(green[:, 60])[0].tolist()[-6:] == [59, 60, 61, 89, 90, 91]
    assert tuple(img[60, 60]) == (100, 100, 100)                          # the input is not drawn on
    crop = S.target_crop(img, (250.0, 500.0, 500.0, 750.0))
    assert crop.shape == (39, 52, 3)        # int(40 - 6) .. int(80 + 6), int(60 - 4.5) .. int(90 + 4.5)


def test_write_init_frame_png(tmp_path):
    import numpy as np
    from PIL import Image

    img = np.zeros((120, 160, 3), np.uint8)
    img[..., 0] = 200                                                   # red: a channel swap would show
    path = S.write_init_frame(img, (250.0, 500.0, 500.0, 750.0), tmp_path / "f00_ann.png")
    back = np.asarray(Image.open(path).convert("RGB"))
    assert back.shape == (120, 160, 3) and tuple(back[75, 40]) == (0, 255, 0)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert tuple(back[75, 60]) == (200, 0, 0) and math.isclose(float(back[100, 150, 1:].sum()), 0.0)
    crop = S.write_target_crop(img, (250.0, 500.0, 500.0, 750.0), tmp_path / "crop.png")
    assert np.asarray(Image.open(crop).convert("RGB")).shape == (39, 52, 3)
    assert S.write_target_crop(img, (500.0, 500.0, 500.0, 600.0), tmp_path / "none.png") is None
    assert not (tmp_path / "none.png").exists()


def test_run_store_round_trip(spec, tmp_path):
    import json

    clip = clip_of(spec, [[obj("person_1", [5, 50, 15, 80])], [obj("person_1", [6, 50, 16, 80])]], numbers=[0, 15])
    (tmp_path / "clips").mkdir()
    (tmp_path / "scenes").mkdir()
    (tmp_path / "clips" / "warehouse_sot-pins-0.json").write_text(json.dumps(clip.doc), encoding="utf-8")
    (tmp_path / "scenes" / "s4.json").write_text(json.dumps({"spec": spec.model_dump(mode="json")}), encoding="utf-8")
    (tmp_path / "clips.jsonl").write_text('{"clip_id": "warehouse_sot-pins-0"}\n{"clip_id": "a-0"}\n', encoding="utf-8")
    assert B.clip_ids(tmp_path) == ["a-0", "warehouse_sot-pins-0"]
    back = B.load_clip(tmp_path, "warehouse_sot-pins-0")
    assert back.doc == clip.doc and back.spec == spec and back.env == "warehouse_sot" and back.clip_id == clip.clip_id
    f = back.frame_by_number(15)
    assert f["index"] == 1 and back.image_path(f) == (tmp_path / "frames/x-01.jpg").resolve()
    with pytest.raises(B.ClipInputError, match="no rendered frame 30"):
        back.frame_by_number(30)
    m = B.image_media(back, f)
    assert (m.kind, m.frame_numbers, m.times_s, m.fps, m.width, m.height, m.duration_s) == \
        ("image", [15], [0.5], 30.0, 160, 120, 16.0)
    assert B.domain(back) == "W"
    bad = dict(clip.doc, scene_id="../x")
    (tmp_path / "clips" / "bad-0.json").write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(B.ClipInputError, match="bad scene id"):
        B.load_clip(tmp_path, "bad-0")


def test_load_state_boundaries(spec):
    objs = [obj("forklift_1", [0, 0, 9, 9])]
    drop = spec.timeline.agent("pallet_1").trajectory.t_drop
    for t, want in ((drop - 1.0, True), (drop - 1.0 + 1e-4, None), (drop + 5.0, None), (0.0, True)):
        clip = clip_of(spec, [objs], t=t)
        assert B.frame_things(clip, clip.frames[0])[0].load is want, t
    clip = clip_of(spec, [[obj("pallet_1", [0, 0, 9, 9])]])
    pallet = B.frame_things(clip, clip.frames[0])[0]
    assert pallet.color is None and pallet.load is None and pallet.visible_px == 100
    clip = clip_of(spec, [[dict(obj("person_1", [0, 0, 9, 9]), visible_px=None)]])
    assert B.frame_things(clip, clip.frames[0])[0].visible_px == 0


def _t(tid, cat, box, color, **kw):
    return B.Thing(tid, cat, tuple(map(float, box)), 100, 1.0, (0.0, 0.0, 0.0), color, **kw)


def test_margins_on_the_right_and_bottom_and_both_words():
    # right third starts at 106.67, less the 6.4 margin: 100.27; a twin centred at 100.5 is too close, 100 is not
    target = _t("a", "person", (145, 50, 155, 60), "lime")
    for twin_x, want in ((95.5, None), (95.0, "The worker in the lime vest is located near the right of the image.")):
        things = [target, _t("b", "person", (twin_x, 50, twin_x + 10, 60), "lime")]
        assert R.describe(target, things, W, H) == want, twin_x
    # bottom third starts at 80, less 4.8: 75.2
    target = _t("a", "person", (70, 105, 80, 115), "lime")
    for twin_y, want in ((70.5, None), (70.0, "The worker in the lime vest is located near the bottom of the image.")):
        things = [target, _t("b", "person", (20, twin_y, 30, twin_y + 10), "lime")]
        assert R.describe(target, things, W, H) == want, twin_y
    # top left: one twin shares the left third, the other the top third
    target = _t("a", "person", (5, 5, 15, 15), "lime")
    things = [target, _t("b", "person", (5, 105, 15, 115), "lime"), _t("c", "person", (145, 5, 155, 15), "lime")]
    assert R.describe(target, things, W, H) == "The worker in the lime vest is located near the top left of the image."
    assert R.resolve("The worker in the lime vest is located near the bottom right of the image.", things, W, H) == []


def test_thirds_are_strict_and_totes_are_words():
    things = [_t("a", "person", (45, 45, 55, 55), "lime"), _t("b", "person", (95, 95, 105, 105), "lime")]
    for pos in ("left", "top"):                                 # centre 50 of 150: on the boundary, not inside
        assert R.resolve(f"The worker in the lime vest is located near the {pos} of the image.", things, 150, 150) == []
    for pos in ("right", "bottom"):                             # centre 100 of 150: on the boundary
        assert R.resolve(f"The worker in the lime vest is located near the {pos} of the image.", things, 150, 150) == []
    red, bare = _t("r", "amr", (10, 10, 30, 30), "grey", tote="red"), _t("n", "amr", (12, 12, 32, 32), "grey")
    assert R.describe(red, [red, bare], W, H) == "The grey mobile robot carrying a red tote."
    assert R.describe(bare, [red, bare], W, H) == "The grey mobile robot without a tote."
    assert R.resolve("The grey mobile robot carrying a blue tote.", [red, bare], W, H) == []
    assert R._load_phrase(_t("p", "person", (0, 0, 1, 1), "lime")) is None
