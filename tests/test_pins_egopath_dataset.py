"""Pinned behaviour of scorers/egopath_dataset.py: which folder is an exported EgoPathBench, which
shards a split reads, the errors a broken export gives, controls and images (real Parquet files)."""
from __future__ import annotations

import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from geometry.egopath_schema import Question
from scorers import egopath_dataset as ed
from scorers.egopath_dataset import EgoPathDataError


def q(qid: str, task: str = "point_path") -> Question:
    return Question(question_id=qid, task=task, split="benchmark", scene_id="s", scene_group="g", frame_id="f",
                    system_prompt="s", user_prompt="u", display_ids=[1, 2],
                    waypoint_world={"1": [0.0, 0.0, 0.0], "2": [1.0, 0.0, 0.0]}, start_id=1,
                    legal_edges=[[1, 2]], goal_ids=[2], reference_route=[1, 2], shortest_m=1.0, answer="[1, 2]")


def png(colour) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (2, 2), colour).save(buf, format="PNG")
    return buf.getvalue()


def shard(root, config, name, questions, images=None):
    (root / config).mkdir(parents=True, exist_ok=True)
    cols = {"id": [x.question_id for x in questions], "question": [x.model_dump_json() for x in questions]}
    if images is not None:
        cols["image"] = images
    pq.write_table(pa.table(cols), root / config / name)


def dataset(tmp_path, meta=None):
    root = tmp_path / "egopathbench"
    root.mkdir()
    (root / "benchmark.json").write_text(json.dumps(meta if meta is not None else {"benchmark": "egopathbench"}))
    return root


def test_constants():
    assert ed.BENCHMARK == "egopathbench"
    assert ed.SPLITS == ("train", "validation", "benchmark")
    assert ed.CONTROLS == ("text_only", "mismatched_overlay")
    assert issubclass(EgoPathDataError, ValueError)


def test_find_root_at_path_or_one_level_below(tmp_path):
    root = dataset(tmp_path)
    assert ed.find_egopath_root(root) == root
    assert ed.find_egopath_root(tmp_path) == root          # <path>/egopathbench
    assert ed.require_root(tmp_path) == root


@pytest.mark.parametrize("meta", [{"benchmark": "realitybench"}, ["egopathbench"], {}, "egopathbench"])
def test_find_root_rejects_other_benchmarks(tmp_path, meta):
    dataset(tmp_path, meta)
    assert ed.find_egopath_root(tmp_path) is None
    with pytest.raises(EgoPathDataError, match=r"is not an exported EgoPathBench dataset \(no benchmark.json "
                                               r"with \"benchmark\": \"egopathbench\"\)"):
        ed.require_root(tmp_path)


def test_find_root_skips_unreadable_json_and_tries_the_subfolder(tmp_path):
    (tmp_path / "benchmark.json").write_text("{not json")
    root = dataset(tmp_path)
    assert ed.find_egopath_root(tmp_path) == root
    (root / "benchmark.json").write_text("{not json")
    assert ed.find_egopath_root(tmp_path) is None
    (root / "benchmark.json").unlink()
    (root / "benchmark.json").mkdir()                        # not a file
    assert ed.find_egopath_root(root) is None


def test_require_root_missing_directory(tmp_path):
    with pytest.raises(EgoPathDataError, match=r"dataset directory .*nope does not exist"):
        ed.require_root(tmp_path / "nope")


def test_load_questions_reads_the_split_in_task_then_shard_order(tmp_path):
    root = dataset(tmp_path)
    shard(root, "point_path", "benchmark-00001.parquet", [q("p2")])
    shard(root, "point_path", "benchmark-00000.parquet", [q("p0"), q("p1")])
    shard(root, "point_traversability", "benchmark-00000.parquet", [q("t0", "point_path")])
    shard(root, "point_path", "train-00000.parquet", [q("x")])
    shard(root, "point_path_text_only", "benchmark-00000.parquet", [q("p0@text_only")])
    got = [x.question_id for x in ed.load_questions(root)]
    assert got == ["t0", "p0", "p1", "p2"]                    # TASKS order, then shard name order
    assert [x.question_id for x in ed.load_questions(root, split="train")] == ["x"]
    assert [x.question_id for x in ed.load_questions(root, configs=["point_path_text_only"])] == ["p0@text_only"]
    assert ed.load_questions(root)[1] == q("p0")


def test_load_questions_no_split_names_the_splits_present(tmp_path):
    root = dataset(tmp_path)
    shard(root, "point_path", "train-00000.parquet", [q("x")])
    shard(root, "embodied_path", "validation-00000.parquet", [q("y")])
    with pytest.raises(EgoPathDataError) as e:
        ed.load_questions(root)
    assert str(e.value) == (f"{root}: no 'benchmark' split in configs ['point_traversability', "
                            "'embodied_traversability', 'point_path', 'embodied_path', 'intent_path'] "
                            "(splits present: train, validation)")
    with pytest.raises(EgoPathDataError, match=r"\(splits present: none\)$"):
        ed.load_questions(root, configs=["intent_path"])


def test_load_questions_bad_rows_and_duplicates(tmp_path):
    root = dataset(tmp_path)
    (root / "point_path").mkdir()
    pq.write_table(pa.table({"id": ["a"]}), root / "point_path" / "benchmark-00000.parquet")
    with pytest.raises(EgoPathDataError, match=r"benchmark-00000.parquet: cannot read the `question` column"):
        ed.load_questions(root)
    pq.write_table(pa.table({"question": [q("a").model_dump_json(), '{"question_id": "b"}']}),
                   root / "point_path" / "benchmark-00000.parquet")
    with pytest.raises(EgoPathDataError, match=r"benchmark-00000.parquet row 1: not a Question \(\d+ validation"):
        ed.load_questions(root)
    pq.write_table(pa.table({"question": [q("a").model_dump_json(), "not json"]}),
                   root / "point_path" / "benchmark-00000.parquet")
    with pytest.raises(EgoPathDataError, match=r"row 1: not a Question"):
        ed.load_questions(root)
    shard(root, "point_path", "benchmark-00000.parquet", [q("a"), q("b")])
    shard(root, "embodied_path", "benchmark-00000.parquet", [q("b", "embodied_path"), q("b", "embodied_path")])
    with pytest.raises(EgoPathDataError) as e:
        ed.load_questions(root)
    assert str(e.value) == f"{root}: question id 'b' appears 3 times"


def test_load_controls_only_the_configs_that_exist(tmp_path):
    root = dataset(tmp_path)
    shard(root, "point_path", "benchmark-00000.parquet", [q("p")])
    shard(root, "point_path_text_only", "benchmark-00000.parquet", [q("p@text_only")])
    shard(root, "intent_path_mismatched_overlay", "benchmark-00000.parquet",
          [q("i@mismatched_overlay", "intent_path")])
    shard(root, "embodied_path_text_only", "train-00000.parquet", [q("e@text_only", "embodied_path")])
    got = ed.load_controls(root)
    assert {k: [x.question_id for x in v] for k, v in got.items()} == {
        "point_path_text_only": ["p@text_only"], "intent_path_mismatched_overlay": ["i@mismatched_overlay"]}
    assert list(ed.load_controls(root, split="train")) == ["embodied_path_text_only"]


def test_load_images_only_wanted_ids_with_decodable_bytes(tmp_path):
    root = dataset(tmp_path)
    shard(root, "point_path", "benchmark-00000.parquet", [q("a"), q("b"), q("c"), q("d")],
          images=[{"bytes": png((255, 0, 0)), "path": None}, {"bytes": b"", "path": None},
                  {"bytes": b"not a png", "path": None}, {"bytes": png((0, 0, 255)), "path": None}])
    shard(root, "point_traversability", "benchmark-00000.parquet", [q("t")])     # no image column: skipped
    shard(root, "intent_path", "benchmark-00000.parquet", [q("i", "intent_path")],
          images=[{"bytes": png((0, 255, 0)), "path": None}])
    got = ed.load_images(root, ["a", "b", "c", "t", "i"])
    assert sorted(got) == ["a", "i"]
    assert got["a"].mode == "RGB" and got["a"].getpixel((0, 0)) == (255, 0, 0)
    assert got["i"].getpixel((1, 1)) == (0, 255, 0)
    assert sorted(ed.load_images(root, ["a", "d", "i"], configs=["point_path"])) == ["a", "d"]
    assert ed.load_images(root, ["a"], split="train") == {}


def test_a_question_id_twice_is_already_a_duplicate(tmp_path):
    root = dataset(tmp_path)
    shard(root, "point_path", "benchmark-00000.parquet", [q("a"), q("b")])
    shard(root, "intent_path", "benchmark-00000.parquet", [q("a", "intent_path")])
    with pytest.raises(EgoPathDataError) as e:
        ed.load_questions(root)
    assert str(e.value) == f"{root}: question id 'a' appears 2 times"


def test_load_images_goes_on_past_a_bad_shard_and_a_bad_image(tmp_path):
    root = dataset(tmp_path)
    shard(root, "point_path", "benchmark-00000.parquet", [q("x")])               # no image column
    shard(root, "point_path", "benchmark-00001.parquet", [q("c"), q("d"), q("g")],
          images=[{"bytes": b"not a png", "path": None}, {"bytes": png((0, 0, 255)), "path": None},
                  {"bytes": _gray_png(), "path": None}])
    got = ed.load_images(root, ["x", "c", "d", "g"])
    assert sorted(got) == ["d", "g"]
    assert got["g"].mode == "RGB" and got["g"].getpixel((0, 0)) == (77, 77, 77)   # grey L image as RGB


def _gray_png() -> bytes:
    buf = io.BytesIO()
    Image.new("L", (2, 2), 77).save(buf, format="PNG")
    return buf.getvalue()
