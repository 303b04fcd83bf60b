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
    # the pallet (no category word) and the 3-pixel forklift (not clear) come first: the worker is still a target
    clip = _sot_clip(extra=[obj("person_2", [150, 0, 150, 0], px=1), obj("amr_1", [100, 100, 109, 109], px=50)])
    got = S.items_for_clip(clip, [(8, 15)])
    assert [it.tags["target"] for it in got] == ["person_1", "amr_1"]
    p = got[0]                              # x from 10 to 20 px of 160 over frames 0..105: 62.5 in 0-1000 units
    assert p.id == "single_object_tracking/warehouse_sot-pins-0/person_1-8f"
    assert p.tags == {"target": "person_1", "frames": 8, "stride": 15, "size": "medium", "init_area": 0.015625,
                      "motion": "moderate_motion", "motion_range": 62.5, "occluded": False, "object_class": "person",
                      "crowded": False, "other_tracks": 4, "lighting": "dusk"}       # pallet, forklift, 1-px worker, AMR
    assert got[1].tags["other_tracks"] == 4 and got[1].tags["object_class"] == "robot"
    assert (p.domain, p.env, p.task, p.answer.object_type) == ("W", "warehouse_sot", "single_object_tracking", "person")
    # a 3-pixel sliver of the target on a later frame is absent there; visible_px None counts as no pixel
    clip = _sot_clip()
    clip.frame_by_number(15)["objects"][2]["visible_px"] = 3
    clip.frame_by_number(30)["objects"][2]["visible_px"] = None
    (p,) = S.items_for_clip(clip, [(8, 15)])
    assert p.answer.boxes[1] is None and p.answer.boxes[2] is None and p.answer.boxes[3] is not None
    assert p.tags["occluded"] is True and p.tags["other_tracks"] == 2


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
