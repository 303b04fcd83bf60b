"""Pins of packagers/vantage_items.py for the crossroads (T) and entrance (S) runs feeding the
image tasks, on hand-made run stores as in tests/test_pins_vantage_items.py (no Blender): the
sources of each task, the items equal to what the generator makes of the same clips, and the
one-line error naming every environment that could feed a task."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from formats.vantage_item import TASKS
from packagers import vantage_items as VI
from packagers.vantage_tasks import box_scene, object_localization, referring_expressions, spatial_pointing
from stored_specs import stored_entrance, stored_intersection

W, H = 160, 120
CAM = {"K": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "cam_to_world": [[1, 0, 0, 0.0], [0, 1, 0, 0.0], [0, 0, 1, 5.0],
                                                                [0, 0, 0, 1]], "width": W, "height": H}
TSPEC = stored_intersection("intersection_pins_s1")      # car_1 black, car_5 red, car_2 blue, person_1
SSPEC = stored_entrance("entrance_pins_s2")          # three people, a door


def obj(tid, box, xyz=(0.0, 0.0, 0.0)):
    return {"track_id": tid, "category": tid.rsplit("_", 1)[0], "box_xyxy": list(map(float, box)), "visible_px": 100,
            "visible_fraction": 1.0, "center_world": list(xyz)}


T_OBJECTS = [obj("car_1", [10, 60, 29, 79], (0, 30, 0)), obj("car_5", [60, 60, 79, 79], (3, 20, 0)),
             obj("car_2", [120, 60, 139, 79], (6, 40, 0)), obj("person_1", [100, 20, 103, 39], (5, 21, 0))]
S_OBJECTS = [obj("person_1", [10, 40, 19, 79], (-2, 12, 0)), obj("person_2", [70, 40, 79, 79], (0, 6, 0)),
             obj("person_3", [130, 40, 139, 79], (3, 9, 0)), obj("door_1", [60, 0, 99, 30], (0, 15, 0))]


def _run(d: Path, env: str, spec, objects) -> Path:
    (d / "clips").mkdir(parents=True)
    (d / "scenes").mkdir()
    (d / "manifest.json").write_text(json.dumps({"fingerprint": {"env": env, "seed": 0}}))
    frames = [{"index": i, "frame_number": n, "t": 2.0, "image": f"frames/f{i}.jpg", "camera": CAM,
               "objects": objects if i == 0 else []} for i, n in enumerate([0, 60])]
    doc = {"clip_id": f"{env}-{spec.scene_id}", "env": env, "scene_id": spec.scene_id, "fps": 30, "duration_s": 16.0,
           "frames": frames}
    (d / "clips" / f"{doc['clip_id']}.json").write_text(json.dumps(doc))
    (d / "scenes" / f"{spec.scene_id}.json").write_text(json.dumps({"spec": spec.model_dump(mode="json")}))
    (d / "clips.jsonl").write_text(json.dumps({"clip_id": doc["clip_id"]}) + "\n")
    return d


def test_sources_of_the_image_tasks():
    assert VI.SOURCES["referring_expressions"] == ("warehouse", "intersection_aerial", "intersection", "entrance")
    assert VI.SOURCES["spatial_pointing"] == ("warehouse", "intersection_forward", "intersection", "entrance")
    assert VI.SOURCES["object_localization"] == ("warehouse", "intersection", "entrance", "entrance_crowd")
    assert VI.SOURCES["single_object_tracking"] == ("warehouse_sot",)
    assert set(VI.SOURCES) == set(TASKS)


def test_each_view_feeds_its_tasks(tmp_path):
    aerial = _run(tmp_path / "a", "intersection_aerial", TSPEC.model_copy(update={"env": "intersection_aerial"}),
                  T_OBJECTS)
    forward = _run(tmp_path / "f", "intersection_forward", TSPEC.model_copy(update={"env": "intersection_forward"}),
                   T_OBJECTS)
    cctv = _run(tmp_path / "c", "intersection", TSPEC, T_OBJECTS)
    door = _run(tmp_path / "e", "entrance", SSPEC, S_OBJECTS)
    runs = [aerial, forward, cctv, door]
    got = VI.build_items(runs, ["referring_expressions"])
    assert [(d.name, it.env, it.domain) for it, d in got][:1] == [("a", "intersection_aerial", "T")]
    assert [d.name for _, d in got] == ["a"] * 4 + ["c"] * 4 + ["e"] * 3           # the forward view: no RefEx
    assert [it for it, d in got if d == aerial] == referring_expressions.items(
        [box_scene.load_clip(aerial, "intersection_aerial-s1")])
    assert [it.tags["expression"] for it, d in got if d == aerial] == [
        "The black car.", "The red car.", "The blue car.", "The pedestrian in the black shirt."]
    assert [it.tags["expression"] for it, d in got if d == door] == [
        "The person in the black coat.", "The person in the beige coat.", "The person in the green shirt."]
    got = VI.build_items(runs, ["spatial_pointing"])
    assert sorted({d.name for _, d in got}) == ["c", "e", "f"]                      # the aerial view: no Pointing
    assert [it for it, d in got if d == forward] == spatial_pointing.items(
        [box_scene.load_clip(forward, "intersection_forward-s1")])
    assert {it.tags["question"] for it, d in got if d == forward} == {
        "Where is the leftmost car in this image?", "Where is the rightmost car in this image?",
        "Where is the car nearest to the camera?", "Where is the car closest to the pedestrian in the black shirt?"}
    got = VI.build_items(runs, ["object_localization"])
    assert [(d.name, it.answer.category, len(it.answer.boxes)) for it, d in got] == [
        ("c", "person", 1), ("c", "car", 3), ("e", "person", 3)]
    assert [it for it, d in got if d == door] == object_localization.items(
        [box_scene.load_clip(door, "entrance-s2")])


def test_a_task_without_any_of_its_environments_is_one_line(tmp_path):
    aerial = _run(tmp_path / "a", "intersection_aerial", TSPEC.model_copy(update={"env": "intersection_aerial"}),
                  T_OBJECTS)
    with pytest.raises(VI.VantageItemsError, match=r"^task object_localization needs a run of warehouse or intersection "
                                                   r"or entrance or entrance_crowd; none was given \(runs: intersection_aerial\)$"):
        VI.build_items([aerial], ["referring_expressions", "object_localization"])
    with pytest.raises(VI.VantageItemsError, match=r"^task spatial_pointing needs a run of warehouse or "
                                                   r"intersection_forward or intersection or entrance; none was given"):
        VI.build_items([aerial], ["spatial_pointing"])
