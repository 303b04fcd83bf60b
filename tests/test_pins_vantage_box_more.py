"""More pins of the VANTAGE box/point task generators on hand-made clips (no Blender): item
ids, tags, the frame choice, orders and the thresholds just inside and outside, beside
tests/test_pins_vantage_box_tasks.py (same spec: warehouse_sot seed 4 of the "pins" stream,
dusk lighting; person_1 lime, person_2 yellow, forklift_1 orange with a lime-vested operator
carrying pallet_1, amr_1 grey with a red tote, forklift_2 yellow with an orange-vested operator)."""
from __future__ import annotations

from pathlib import Path

import pytest

from blender_envs.infra import warehouse_sot
from formats.vantage_item import Media
from packagers.vantage_tasks import box_scene as B
from packagers.vantage_tasks import object_localization as O
from render_farm.seeds import rng_for

W, H = 160, 120
CAM = [[1, 0, 0, 0.0], [0, 1, 0, 0.0], [0, 0, 1, 5.0], [0, 0, 0, 1]]
SPEC = warehouse_sot.sample_scene(rng_for("pins", 4), "s4", 4)


def obj(tid, box=None, px=100, vf=1.0, xyz=(0.0, 0.0, 0.0), cat=None):
    cat = cat or tid.rsplit("_", 1)[0]
    return {"track_id": tid, "category": cat, "box_xyxy": None if box is None else list(map(float, box)),
            "visible_px": px if box is not None else 0, "visible_fraction": vf, "center_world": list(xyz)}


def clip_of(frames_objects, numbers=None, t=1.0, clip_id="warehouse_sot-pins-0", spec=SPEC):
    numbers = numbers or list(range(len(frames_objects)))
    frames = [{"index": i, "t": t, "frame_number": n, "image": f"frames/x-{i:02d}.jpg", "objects": objs,
               "camera": {"K": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "cam_to_world": CAM, "width": W, "height": H}}
              for i, (n, objs) in enumerate(zip(numbers, frames_objects))]
    doc = {"clip_id": clip_id, "env": "warehouse_sot", "scene_id": "s4", "fps": 30, "duration_s": 16.0, "frames": frames}
    return B.Clip(run_dir=Path("/nonexistent"), doc=doc, spec=spec)


def test_spec_lighting():
    assert SPEC.lighting.condition == "dusk"


# ------------------------------------------------------------------ Object Localization

def test_objloc_boxes_keep_the_clip_order_on_a_corner_tie():
    # two workers with the same top-left corner: the clip file's order stays (the sort is by x1, y1 only)
    objs = [obj("person_2", [15, 50, 34, 79]), obj("person_1", [15, 50, 24, 79]), obj("person_9", [15, 40, 44, 60],
                                                                                         cat="person")]
    things = B.frame_things(clip_of([objs[:2]]), clip_of([objs[:2]]).frames[0])
    assert O.frame_boxes(things, "person", 12) == [(15.0, 50.0, 35.0, 80.0), (15.0, 50.0, 25.0, 80.0)]
    a = B.Thing("a", "person", (15.0, 60.0, 20.0, 70.0), 100, 1.0, (0, 0, 0), "lime")
    b = B.Thing("b", "person", (15.0, 50.0, 30.0, 70.0), 100, 1.0, (0, 0, 0), "lime")
    assert O.frame_boxes([a, b], "person", 12) == [b.box, a.box]            # then by y1
    c = B.Thing("c", "person", (10.0, 90.0, 11.0, 95.0), 100, 1.0, (0, 0, 0), "lime")
    assert O.frame_boxes([a, b, c], "person", 12) == [c.box, b.box, a.box]   # x1 first
    assert O.frame_boxes([a, b], "forklift", 12) == []
    assert O.frame_boxes([a, B.Thing("d", "person", None, 0, 0.0, (0, 0, 0), "lime")], "person", 12) == [a.box]


def test_objloc_thresholds_of_a_clear_instance():
    def t(px, vf):
        return B.Thing("a", "person", (0.0, 0.0, 5.0, 5.0), px, vf, (0, 0, 0), "lime")
    assert O.frame_boxes([t(12, 0.5)], "person", 12) == [(0.0, 0.0, 5.0, 5.0)]
    assert O.frame_boxes([t(11, 0.5)], "person", 12) is None                 # seen but under the floor
    assert O.frame_boxes([t(12, 0.49)], "person", 12) is None                # more than half hidden
    assert O.frame_boxes([t(1, 0.9), t(0, 0.0)], "person", 12) is None


def test_objloc_items_ids_tags_and_frames():
    f0 = [obj("forklift_1", [120, 10, 149, 39])]                                 # no worker: the forklift is still asked
    f1 = [obj("person_1", [15, 50, 24, 79], px=5), obj("amr_1", [50, 90, 69, 109]), obj("forklift_2", [0, 0, 29, 29])]
    clip = clip_of([f0, f1], numbers=[0, 15])
    got = O.items_for_clip(clip)
    assert [it.id for it in got] == ["object_localization/warehouse_sot-pins-0/f0000-forklift",
                                     "object_localization/warehouse_sot-pins-0/f0015-forklift",
                                     "object_localization/warehouse_sot-pins-0/f0015-amr"]
    assert got[0].tags == {"category": "forklift", "n_boxes": 1, "min_visible_px": 12, "lighting": "dusk"}
    assert got[2].tags == {"category": "amr", "n_boxes": 1, "min_visible_px": 12, "lighting": "dusk"}
    assert got[2].prompt.endswith("categories: 'mobile robot'. For each instance of the class, report bbox coordinates "
                                  "in JSON format. Do not group instances and report only individual instances. Avoid "
                                  "reporting duplicate instances.")
    assert (got[1].task, got[1].domain, got[1].env, got[1].answer.category) == ("object_localization", "W",
                                                                               "warehouse_sot", "forklift")
    assert got[1].media == Media(kind="image", clip_id="warehouse_sot-pins-0", frame_numbers=[15], times_s=[0.5], fps=30.0,
                                 duration_s=16.0, width=W, height=H)
    assert [it.id for it in O.items_for_clip(clip, [1])] == [it.id for it in got[1:]]
    assert [it.id for it in O.items_for_clip(clip, [0])] == [got[0].id]
    assert O.items_for_clip(clip, []) == []
    other = clip_of([f0], clip_id="warehouse_sot-pins-1")
    assert [it.id for it in O.items([clip, other])] == [it.id for it in got] + \
        ["object_localization/warehouse_sot-pins-1/f0000-forklift"]
    assert O.items([]) == []


# ------------------------------------------------------------------ box_scene

def test_box_1000_rounds_every_corner_to_hundredths():
    assert B.box_1000((1.0, 1.0, 2.0, 2.0), 3, 3) == (333.33, 333.33, 666.67, 666.67)
    assert B.box_1000((0.0, 0.0, 160.0, 120.0), W, H) == (0.0, 0.0, 1000.0, 1000.0)
    assert B.box_1000((2.0, 1.0, 1.0, 2.0), 3, 6) == (666.67, 166.67, 333.33, 333.33)     # x by width, y by height


def test_a_clip_file_without_a_scene_id_is_refused(tmp_path):
    import json

    (tmp_path / "clips").mkdir()
    (tmp_path / "clips" / "c1.json").write_text(json.dumps({"clip_id": "c1", "env": "warehouse_sot"}))
    with pytest.raises(B.ClipInputError, match=r"^clip c1: bad scene id$"):
        B.load_clip(tmp_path, "c1")
    (tmp_path / "clips" / "c1.json").write_text(json.dumps({"clip_id": "c1", "env": "warehouse_sot", "scene_id": "s4"}))
    with pytest.raises(B.ClipInputError, match=r"^clip c1 in .*s4.json"):
        B.load_clip(tmp_path, "c1")                                  # no scene file


def test_image_media_takes_the_clips_frame_rate():
    clip = clip_of([[obj("person_1", [0, 0, 9, 9])]], numbers=[50])
    clip.doc["fps"] = 25
    m = B.image_media(clip, clip.frames[0])
    assert (m.fps, m.times_s, m.frame_numbers) == (25.0, [2.0], [50])


# ------------------------------------------------------------------ Single Object Tracking

from packagers.vantage_tasks import single_object_tracking as S  # noqa: E402


def test_sot_tags_worked_examples():
    b = (0.0, 0.0, 10.0, 10.0)
    got = S.tags((0.0, 0.0, 123.4567, 10.0), [b, (1.23456, 0.0, 11.23456, 10.0)], "person", 2)
    assert got == {"size": "small", "init_area": 0.001235, "motion": "stationary", "motion_range": 1.235,
                   "occluded": False, "object_class": "person", "crowded": False, "other_tracks": 2}
    # exactly at the size thresholds (0.007, 0.02 of the frame): medium, both
    assert S.tags((0, 0, 1000, 7), [None], "amr", 0)["size"] == "medium"
    assert S.tags((0, 0, 1000, 20), [None], "amr", 0)["size"] == "medium"
    # one centre, or none: no motion at all
    assert S.tags(b, [b], "person", 0)["motion_range"] == 0.0 and S.tags(b, [None, None], "person", 0)["motion_range"] == 0.0
    assert S.tags(b, [None, None], "person", 0)["motion"] == "stationary"
    # the x range and the y range: centres (5, 5), (65, 25), (35, 45) -> hypot(60, 40) = 72.111
    got = S.tags(b, [b, (60, 20, 70, 30), (30, 40, 40, 50)], "forklift", 7)
    assert (got["motion_range"], got["motion"], got["crowded"], got["object_class"]) == (72.111, "moderate_motion", True,
                                                                                        "robot")


def _sot_clip(extra=(), px=100, fps=30):
    numbers = warehouse_sot.SOT_FRAMES
    frames = []
    for n in numbers:
        x = 10 + n // 10
        frames.append([obj("pallet_1", [0, 0, 9, 9]), obj("forklift_2", [40, 0, 41, 1], px=3),
                       obj("person_1", [x, 50, x + 9, 79], px=px), *extra])
    clip = clip_of(frames, numbers=numbers)
    clip.doc["fps"] = fps
    return clip


def test_sot_items_tags_and_other_tracks():
    # the pallet (no category word) and the 3-pixel forklift (not clear) come first: the worker is still a target;
    # the AMR is clear but stands still over the 8 frames (centre range 0): no target
    clip = _sot_clip(extra=[obj("person_2", [150, 0, 150, 0], px=1), obj("amr_1", [100, 100, 109, 109], px=50)])
    got = S.items_for_clip(clip, [(8, 15)])
    assert [it.tags["target"] for it in got] == ["person_1"]
    p = got[0]                              # x from 10 to 20 px of 160 over frames 0..105: 62.5 in 0-1000 units
    assert p.id == "single_object_tracking/warehouse_sot-pins-0/person_1-8f"
    assert p.tags == {"target": "person_1", "frames": 8, "stride": 15, "size": "medium", "init_area": 0.015625,
                      "motion": "moderate_motion", "motion_range": 62.5, "occluded": False, "object_class": "person",
                      "crowded": False, "other_tracks": 4, "lighting": "dusk"}       # pallet, forklift, 1-px worker, AMR
    # a moving AMR (1 px per 10 frames up) is a target too, a robot; the targets keep the clip's order
    numbers = warehouse_sot.SOT_FRAMES
    moving = clip_of([[*f["objects"][:4], obj("amr_1", [100, 100 - n // 10, 109, 109 - n // 10], px=50)]
                      for n, f in zip(numbers, clip.frames)], numbers=numbers)
    got = S.items_for_clip(moving, [(8, 15)])
    assert [it.tags["target"] for it in got] == ["person_1", "amr_1"]
    assert got[1].tags["other_tracks"] == 4 and got[1].tags["object_class"] == "robot"
    assert (p.domain, p.env, p.task, p.answer.object_type) == ("W", "warehouse_sot", "single_object_tracking", "person")
    # a 3-pixel sliver of the target on a later frame is absent there; visible_px None counts as no pixel
    clip = _sot_clip()
    clip.frame_by_number(15)["objects"][2]["visible_px"] = 3
    clip.frame_by_number(30)["objects"][2]["visible_px"] = None
    (p,) = S.items_for_clip(clip, [(8, 15)])
    assert p.answer.boxes[1] is None and p.answer.boxes[2] is None and p.answer.boxes[3] is not None
    assert p.tags["occluded"] is True and p.tags["other_tracks"] == 2


def test_sot_pick_targets_moving_range_just_inside_and_outside():
    def gt(*centres):                          # 10 x 10 boxes (0-1000) at these centres
        return [None if c is None else (c[0] - 5, c[1] - 5, c[0] + 5, c[1] + 5) for c in centres]

    cands = [("a", True, gt((5, 5), (15, 5))),                 # range 10: moving (>= MOVING_RANGE)
             ("b", True, gt((5, 5), (14.99, 5))),              # 9.99: stationary
             ("c", True, gt((5, 5), None, (11, 13))),          # hypot(6, 8) = 10 across an absent frame
             ("d", False, gt((5, 5), (105, 5))),               # moving but not clear on frame 0
             ("e", True, gt((5, 5), None, None)),              # one box: no motion
             ("f", True, gt((5, 5), (5, 5.2), (5, 14.8)))]     # y range 9.8 only
    assert S.MOVING_RANGE == 10.0 and S.RULE_HORIZON == (4, 15)
    assert S.pick_targets(cands) == ["a", "c"]
    assert S.pick_targets(cands[::-1]) == ["c", "a"]
    assert S.motion_range(gt((5, 5), (11, 13))) == 10.0 and S.motion_range([]) == 0.0


def test_sot_media_and_horizons():
    clip = _sot_clip(fps=25)
    (p,) = S.items_for_clip(clip, [(8, 15)])
    assert p.media.fps == 25.0 and p.media.times_s == [k / 25 for k in range(0, 106, 15)]
    assert p.media.duration_s == 16.0 and (p.media.width, p.media.height) == (W, H)
    assert p.prompt.count("8 video frames") == 1 and '"frame_7"' in p.prompt
    two = S.items([clip, clip_of(clip.frames and [f["objects"] for f in clip.frames], numbers=warehouse_sot.SOT_FRAMES,
                                 clip_id="warehouse_sot-pins-1")], [(8, 15), (32, 14)])
    assert [it.id.split("/", 1)[1] for it in two] == ["warehouse_sot-pins-0/person_1-8f", "warehouse_sot-pins-0/person_1-32f",
                                                      "warehouse_sot-pins-1/person_1-8f", "warehouse_sot-pins-1/person_1-32f"]
    assert [it.id for it in S.items([clip])] == [it.id for it in S.items_for_clip(clip)]
    assert [it.tags["frames"] for it in S.items([clip])] == [8, 16, 32] and S.items([]) == []


def test_sot_names_the_first_four_missing_frames():
    clip = clip_of([[obj("person_1", [10, 50, 19, 79])]], numbers=[0])
    with pytest.raises(B.ClipInputError, match=r"^clip warehouse_sot-pins-0 lacks SOT frames \[15, 30, 45, 60\]\.\.\. "
                                               r"of 8 x 15 \(render it with env=warehouse_sot\)$"):
        S.items_for_clip(clip)


def test_init_frame_drops_alpha_casts_to_bytes_and_reads_y_from_the_box():
    import cv2
    import numpy as np

    rgba = np.full((120, 160, 4), 100, np.uint8)
    out = S.init_frame(rgba, (250.0, 400.0, 500.0, 750.0))             # px x 40..80, y 48..90
    assert out.shape == (120, 160, 3) and out.dtype == np.uint8
    green = (out == (0, 255, 0)).all(axis=2)
    assert np.nonzero(green[:, 60])[0].tolist()[-6:] == [47, 48, 49, 89, 90, 91]      # top edge at y = 48, not 60
    assert S.init_frame(np.full((120, 160, 3), 100.7), (250.0, 400.0, 500.0, 750.0)).dtype == np.uint8
    # the label: "TARGET" in Hershey simplex at scale 0.55, 2 px thick, its baseline 6 px above the box
    (w, h), _ = cv2.getTextSize("TARGET", cv2.FONT_HERSHEY_SIMPLEX, 0.55, 2)
    cols = np.nonzero(green[48 - 6 - h - 2:48 - 6 + 2].any(axis=0))[0]
    assert cols.min() >= 39 and abs(int(cols.max()) - (40 + w)) <= 2, (cols.min(), cols.max(), w)
    thin = np.full((120, 160, 3), 100, np.uint8)
    cv2.putText(thin, "TARGET", (40, 42), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 255, 0), 1)
    assert green[20:45].sum() > (thin[20:45] == (0, 255, 0)).all(axis=2).sum() * 1.3   # thicker than a 1-px label


# ------------------------------------------------------------------ Referring Expressions

from packagers.vantage_tasks import referring_expressions as R  # noqa: E402


def _th(tid, cat, box, color, **kw):
    return B.Thing(tid, cat, tuple(map(float, box)), 100, 1.0, (0.0, 0.0, 0.0), color, **kw)


def test_re_items_tags_answers_and_frames():
    f0 = [obj("pallet_1", [0, 0, 9, 9]), obj("person_1", [70, 5, 79, 34]), obj("forklift_1", [100, 80, 129, 109])]
    f1 = [obj("amr_1", [10, 80, 29, 99]), obj("person_2", [40, 50, 49, 79])]
    clip = clip_of([f0, f1], numbers=[0, 15])
    got = R.items_for_clip(clip)
    assert [it.id for it in got] == ["referring_expressions/warehouse_sot-pins-0/f0000-person_1",
                                     "referring_expressions/warehouse_sot-pins-0/f0000-forklift_1",
                                     "referring_expressions/warehouse_sot-pins-0/f0015-amr_1",
                                     "referring_expressions/warehouse_sot-pins-0/f0015-person_2"]
    # forklift_1's lime-vested operator makes "the worker in the lime vest" match two objects
    assert got[0].tags == {"expression": "The worker in the lime vest is located near the top of the image.",
                           "target": "person_1", "category": "person", "same_color_distractors": 0,
                           "uses_position": True, "uses_load": False, "lighting": "dusk"}
    assert got[1].tags == {"expression": "The orange forklift.", "target": "forklift_1", "category": "forklift",
                           "same_color_distractors": 0, "uses_position": False, "uses_load": False, "lighting": "dusk"}
    assert got[2].tags["expression"] == "The grey mobile robot." and got[2].answer.category == "amr"
    assert got[0].answer.category == "person" and got[0].answer.boxes == [(70.0, 5.0, 80.0, 35.0)]
    assert [it.id for it in R.items_for_clip(clip, [1])] == [it.id for it in got[2:]]
    assert [it.id for it in R.items([clip, clip])] == [it.id for it in got] * 2 and R.items([]) == []


def test_re_load_words_are_tagged():
    t1 = _th("forklift_1", "forklift", (10, 10, 30, 30), "orange", load=True)
    t2 = _th("forklift_2", "forklift", (14, 14, 34, 34), "orange", load=False)
    clip = clip_of([[obj("forklift_1", [10, 10, 29, 29]), obj("forklift_2", [14, 14, 33, 33])]],
                   spec=SPEC.model_copy(update={"looks": {**SPEC.looks, "forklift_2": SPEC.looks["forklift_2"].model_copy(
                       update={"color_names": {**SPEC.looks["forklift_2"].color_names, "paint": "orange"}})}}))
    got = R.items_for_clip(clip)
    assert [(it.tags["expression"], it.tags["uses_load"], it.tags["same_color_distractors"]) for it in got] == [
        ("The orange forklift carrying a pallet.", True, 1), ("The orange forklift with empty forks.", True, 1)]
    assert R.describe(t2, [t1, t2], W, H) == "The orange forklift with empty forks."
    bare = _th("amr_1", "amr", (10, 10, 30, 30), "grey")
    red = _th("amr_2", "amr", (12, 12, 32, 32), "grey", tote="red")
    assert R.describe(bare, [bare, red], W, H) == "The grey mobile robot without a tote."
    assert R._load_phrase(_th("f", "forklift", (0, 0, 1, 1), "orange", load=None)) is None


def test_re_load_and_position_together():
    # three orange forklifts: carrying (left, the target), carrying (right), empty (left)
    a = _th("a", "forklift", (5, 50, 15, 60), "orange", load=True)
    b = _th("b", "forklift", (145, 50, 155, 60), "orange", load=True)
    c = _th("c", "forklift", (5, 20, 15, 30), "orange", load=False)
    assert R.describe(a, [a, b, c], W, H) == "The orange forklift carrying a pallet is located near the left of the image."


def test_re_thirds_with_margins():
    assert R._third_word(88.0, 300.0, "l", "r", 12.0) is None and R._third_word(87.9, 300.0, "l", "r", 12.0) == "l"
    assert R._third_word(212.0, 300.0, "l", "r", 12.0) is None and R._third_word(212.1, 300.0, "l", "r", 12.0) == "r"
    assert R._third_word(150.0, 300.0, "l", "r", 12.0) is None
    assert R._positions(_th("p", "person", (90, 145, 100, 155), "lime"), 300, 300) == []          # centre x 95 < 100
    assert R._positions(_th("p", "person", (75, 145, 85, 155), "lime"), 300, 300) == ["left"]
    assert R._positions(_th("p", "person", (145, 250, 155, 260), "lime"), 300, 300) == ["bottom"]
    assert R._positions(_th("p", "person", (250, 20, 260, 30), "lime"), 300, 300) == ["right", "top", "top right"]
    # a third without margin: 45 of 150 is left (< 50), 101 is right (> 100)
    things = [_th("a", "person", (40, 40, 50, 50), "lime")]
    assert R.resolve("The worker in the lime vest is located near the left of the image.", things, 150, 150) == ["a"]
    assert R.resolve("The worker in the lime vest is located near the top of the image.", things, 150, 150) == ["a"]


def test_re_clearly_outside_boundaries():
    def out(cx, cy, pos):
        return R._clearly_outside(_th("t", "person", (cx - 5, cy - 5, cx + 5, cy + 5), "lime"), pos, 300, 300)
    assert out(112.5, 150, "left") and not out(112.0, 150, "left")
    assert out(187.5, 150, "right") and not out(188.0, 150, "right")
    assert out(150, 112.5, "top") and not out(150, 112.0, "top") and not out(150, 100.0, "top")
    assert out(150, 187.5, "bottom") and not out(150, 188.0, "bottom")
    assert not out(150, 80.0, "top") and out(150, 80.0, "bottom") and out(10, 150, "top right")


def test_re_resolver_filters_by_category_and_colour():
    f_orange_op = _th("f", "forklift", (0, 0, 9, 9), "yellow", load=False, operator_vest="orange")
    grey_forklift = _th("g", "forklift", (20, 0, 29, 9), "grey", load=False, operator_vest="yellow")
    orange_amr = _th("a", "amr", (40, 0, 49, 9), "orange")
    things = [f_orange_op, grey_forklift, orange_amr]
    assert R.resolve("The worker in the lime vest.", things, W, H) == []
    assert R.resolve("The worker in the orange vest.", things, W, H) == ["f"]
    assert R.resolve("The orange forklift.", things, W, H) == []
    assert R.resolve("The grey mobile robot.", things, W, H) == []
    assert R.resolve("The yellow forklift carrying a red tote.", things, W, H) == []
    assert R.resolve("The yellow forklift without a tote.", things, W, H) == []
    assert R.resolve("The orange mobile robot with empty forks.", things, W, H) == []
    assert R.resolve("The orange mobile robot without a tote.", things, W, H) == ["a"]
