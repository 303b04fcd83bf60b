"""Pins of packagers/vantage_items.py (run stores -> the items of the chosen tasks) on hand-made
run stores: a manifest naming the environment, clips.jsonl, the clip files and the drawn
specs (no Blender, no renders). Each task's items must be exactly what its generator makes
of the same clips, paired with the run they came from."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from blender_envs.infra import warehouse_sot
from blender_envs.infra.warehouse import events as warehouse_events
from blender_envs.infra.warehouse import sample_scene
from formats.vantage_item import TASKS
from packagers import vantage_items as VI
from packagers.vantage_tasks import box_scene, dense_captioning, event_verification, object_localization
from packagers.vantage_tasks import referring_expressions, single_object_tracking, spatial_pointing
from packagers.vantage_tasks import temporal_localization, video_qa
from packagers.vantage_tasks.timeline_clip import TimelineClip
from render_farm.seeds import rng_for

W, H = 160, 120
CAM = {"K": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "cam_to_world": [[1, 0, 0, 0.0], [0, 1, 0, 0.0], [0, 0, 1, 5.0],
                                                                [0, 0, 0, 1]], "width": W, "height": H}
SPECS = {s: sample_scene(rng_for("test_warehouse", s, "scene"), f"s{s}", s, further=False) for s in (2, 3)}
DERIVED = {spec.scene_id: warehouse_events(spec) for spec in SPECS.values()}
EVENTS = {s: [e.model_dump(exclude_none=True) for e in DERIVED[f"s{s}"]] for s in SPECS}


@pytest.fixture(autouse=True)
def derived_once(monkeypatch):
    """TimelineClip.from_run derives the spec's events again (0.5 s a clip): the ones derived at import."""
    from packagers.vantage_tasks import timeline_clip

    monkeypatch.setattr(timeline_clip, "derive_events", lambda spec: list(DERIVED[spec.scene_id]))
SOT_SPEC = warehouse_sot.sample_scene(rng_for("pins", 4), "s4", 4)


def obj(tid, box, xyz=(0.0, 0.0, 0.0), px=100):
    return {"track_id": tid, "category": tid.rsplit("_", 1)[0], "box_xyxy": list(map(float, box)), "visible_px": px,
            "visible_fraction": 1.0, "center_world": list(xyz)}


# one frame where the worker, both forklifts and the AMR of s2 / s3 are clear and far apart
OBJECTS = [obj("person_1", [10, 10, 19, 39], (0, 8, 0)), obj("forklift_1", [60, 10, 89, 39], (2, 4, 0)),
           obj("forklift_2", [120, 70, 149, 99], (5, 1, 0)), obj("amr_1", [20, 80, 39, 99], (-3, 9, 0))]


def _write_run(d: Path, env: str, clips: list[dict], specs: dict) -> Path:
    (d / "clips").mkdir(parents=True)
    (d / "scenes").mkdir()
    (d / "manifest.json").write_text(json.dumps({"fingerprint": {"env": env, "seed": 0}}))
    for doc in clips:
        (d / "clips" / f"{doc['clip_id']}.json").write_text(json.dumps(doc))
    for sid, spec in specs.items():
        (d / "scenes" / f"{sid}.json").write_text(json.dumps({"spec": spec.model_dump(mode="json")}))
    (d / "clips.jsonl").write_text("".join(json.dumps({"clip_id": c["clip_id"]}) + "\n" for c in clips))
    return d


def _warehouse_doc(seed: int) -> dict:
    frames = [{"index": i, "frame_number": n, "t": n / 30, "image": f"frames/s{seed}-{i}.jpg", "camera": CAM,
               "objects": OBJECTS if i == 0 else []} for i, n in enumerate([0, 68])]
    return {"clip_id": f"warehouse-s{seed}", "env": "warehouse", "scene_id": f"s{seed}", "fps": 30, "duration_s": 16.0,
            "frames": frames, "events": EVENTS[seed]}


@pytest.fixture()
def warehouse_run(tmp_path) -> Path:
    return _write_run(tmp_path / "wh", "warehouse", [_warehouse_doc(3), _warehouse_doc(2)],
                      {f"s{s}": spec for s, spec in SPECS.items()})


@pytest.fixture()
def sot_run(tmp_path) -> Path:
    frames = [{"index": i, "frame_number": n, "t": n / 30, "image": f"frames/f{i}.jpg", "camera": CAM,
               "objects": [obj("person_1", [10 + n // 20, 50, 19 + n // 20, 79]), obj("person_2", [150, 0, 159, 9])]}
              for i, n in enumerate(warehouse_sot.SOT_FRAMES)]
    doc = {"clip_id": "warehouse_sot-s4", "env": "warehouse_sot", "scene_id": "s4", "fps": 30, "duration_s": 16.0,
           "frames": frames}
    return _write_run(tmp_path / "sot", "warehouse_sot", [doc], {"s4": SOT_SPEC})


def test_run_env_reads_the_manifest(tmp_path):
    d = tmp_path / "r"
    d.mkdir()
    for text in (None, "not json", json.dumps({"fingerprint": {}}), json.dumps({"other": 1}),
                 json.dumps({"fingerprint": ["env"]}), json.dumps([1])):
        if text is not None:
            (d / "manifest.json").write_text(text)
        with pytest.raises(VI.VantageItemsError, match=r"r: no readable manifest.json naming its environment "
                                                       r"\(not a run store\?\)$"):
            VI.run_env(d)
    (d / "manifest.json").write_text(json.dumps({"fingerprint": {"env": "warehouse_sot"}}))
    assert VI.run_env(d) == "warehouse_sot"


def test_timeline_tasks_are_the_generators_items_of_every_clip(warehouse_run):
    clips = [TimelineClip.from_run(warehouse_run, s) for s in ("s2", "s3")]        # clips.jsonl order: sorted ids
    got = VI.build_items([warehouse_run], ["event_verification", "temporal_localization", "dense_captioning"])
    want = ([it for c in clips for it in event_verification.items(c)] + [it for c in clips for it in temporal_localization.items(c)]
            + [it for c in clips for it in dense_captioning.items(c)])
    assert [it for it, _ in got] == want and all(d == warehouse_run for _, d in got)
    assert {it.media.width for it, _ in got} == {W}                 # the size is the clip file's
    # Video QA: the letters are balanced over the run's whole set, not per clip
    got = VI.build_items([warehouse_run], ["video_qa"])
    assert [it for it, _ in got] == video_qa.generate(clips)
    assert [it.answer.letter for it, _ in got] != [it.answer.letter for c in clips for it in video_qa.items(c)]


def test_box_tasks_are_the_generators_items(warehouse_run):
    clips = [box_scene.load_clip(warehouse_run, c) for c in ("warehouse-s2", "warehouse-s3")]
    for task, module in (("referring_expressions", referring_expressions), ("spatial_pointing", spatial_pointing),
                         ("object_localization", object_localization)):
        got = VI.build_items([warehouse_run], [task])
        assert [it for it, _ in got] == module.items(clips) and got, task
        assert all(d == warehouse_run and it.task == task for it, d in got)


def test_sot_reads_the_warehouse_sot_run(sot_run, warehouse_run):
    got = VI.build_items([warehouse_run, sot_run], ["single_object_tracking"])
    want = single_object_tracking.items([box_scene.load_clip(sot_run, "warehouse_sot-s4")])
    # person_2 stands at [150, 0, 159, 9] on every frame: no SOT target (it must move), so 3 items, not 6
    assert [it for it, _ in got] == want and len(want) == 3 and {d for _, d in got} == {sot_run}
    assert [it.tags["target"] for it in want] == ["person_1"] * 3


def test_every_task_by_default_and_runs_of_one_env_together(warehouse_run, sot_run, tmp_path):
    got = VI.build_items([sot_run, warehouse_run])
    assert [t for t in TASKS if t in {it.task for it, _ in got}] == list(TASKS)
    tasks = [it.task for it, _ in got]
    assert tasks == sorted(tasks, key=TASKS.index)                  # task by task, in the order asked
    other = _write_run(tmp_path / "wh2", "warehouse", [_warehouse_doc(2)], {"s2": SPECS[2]})
    got = VI.build_items([warehouse_run, other], ["temporal_localization"])
    # s2: three, s3: near miss, collision and zone entry; then s2 again
    assert [d for _, d in got] == [warehouse_run] * 6 + [other] * 3
    assert [it.id for it, _ in got][-3:] == [it.id for it, _ in got][:3]      # s2 again, from the second run


def test_a_task_without_its_environment_is_one_line(warehouse_run, sot_run):
    with pytest.raises(VI.VantageItemsError, match=r"^task single_object_tracking needs a run of warehouse_sot; none "
                                                   r"was given \(runs: warehouse\)$"):
        VI.build_items([warehouse_run], ["event_verification", "single_object_tracking"])
    # the timeline tasks take any of the three domains' runs (issue 13: T and S)
    with pytest.raises(VI.VantageItemsError, match=r"^task video_qa needs a run of warehouse or intersection or "
                                                   r"entrance; none was given \(runs: warehouse_sot\)$"):
        VI.build_items([sot_run], ["video_qa"])
    calib = warehouse_run.parent / "calib"
    calib.mkdir()
    (calib / "manifest.json").write_text(json.dumps({"fingerprint": {"env": "calib"}}))
    with pytest.raises(VI.VantageItemsError, match=r"none was given \(runs: calib, warehouse\)$"):
        VI.build_items([warehouse_run, calib], ["single_object_tracking"])
    with pytest.raises(VI.VantageItemsError, match=r"\(runs: none\)$"):
        VI.build_items([], ["video_qa"])
    assert VI.build_items([warehouse_run], []) == []


def test_a_broken_clip_is_one_line_naming_the_run_and_task(warehouse_run, tmp_path):
    (warehouse_run / "clips.jsonl").write_text('{"clip_id": "warehouse-s9"}\n')
    with pytest.raises(VI.VantageItemsError, match=rf"^{warehouse_run}: object_localization: clip warehouse-s9 in "):
        VI.build_items([warehouse_run], ["object_localization"])
    with pytest.raises(VI.VantageItemsError, match=rf"^{warehouse_run}: dense_captioning: clip warehouse-s9 in "):
        VI.build_items([warehouse_run], ["dense_captioning"])
    # a stale clip file (its events differ from the spec's): a ValueError, first line only, at most 300 characters
    doc = _warehouse_doc(2)
    doc["events"] = doc["events"][:1]
    (warehouse_run / "clips" / "warehouse-s2.json").write_text(json.dumps(doc))
    (warehouse_run / "clips.jsonl").write_text('{"clip_id": "warehouse-s2"}\n')
    with pytest.raises(VI.VantageItemsError) as e:
        VI.build_items([warehouse_run], ["event_verification"])
    msg = str(e.value)
    assert msg.startswith(f"{warehouse_run}: event_verification: ") and "differ from the spec's" in msg
    assert len(msg) <= len(f"{warehouse_run}: event_verification: ") + 300
    (warehouse_run / "clips.jsonl").unlink()
    with pytest.raises(VI.VantageItemsError, match=rf"^{warehouse_run}: video_qa: .*clips.jsonl"):
        VI.build_items([warehouse_run], ["video_qa"])
    # a multi-line message: the first line, cut at 300 characters
    long = tmp_path / ("x" * 200) / ("y" * 200)
    (long / "clips").mkdir(parents=True)
    (long / "manifest.json").write_text(json.dumps({"fingerprint": {"env": "warehouse"}}))
    (long / "clips.jsonl").write_text('{"clip_id": "warehouse-s9"}\n')
    with pytest.raises(VI.VantageItemsError) as e:
        VI.build_items([long], ["object_localization"])
    assert len(str(e.value)) == len(f"{long}: object_localization: ") + 300 and "\n" not in str(e.value)
