"""Pinned behaviour of the scoring inputs: scorers/dataset_items.py (real Parquet shards),
scorers/realitybench_inputs.py and scorers/egopath_inputs.py (real predictions files)."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from scorers import dataset_items as di
from scorers import egopath_inputs as ei
from scorers import realitybench_inputs as ri
from scorers.egopath_dataset import EgoPathDataError

KEY = {"name": "reading", "type": "number", "grammar": "a number", "tolerance": 0.125, "options": None,
       "scored_on": None}
KEY_ALL = {"name": "tilted", "type": "bool", "grammar": "bool", "tolerance": None, "options": ["x"],
           "scored_on": "all"}


def row(id_, env="tape_gap", gt=None, keys=(KEY,), stratum="random", verdict="accept", gray=False):
    return {"id": id_, "env": env, "stratum": stratum, "scorer_verdict": verdict, "gray": gray,
            "ground_truth": json.dumps(gt if gt is not None else {"reading": 1.0}), "keys": list(keys),
            "image": b"\x89PNG"}


def shard(path: Path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)


# ---------------------------------------------------------------- dataset_items

def test_acceptability_scored_rules():
    """The environment's declaration and the frame's own flag decide (Environment contract);
    the rail_attachment scorer writes the flag from lag_present and flashing_present."""
    assert di.acceptability_scored("rail_attachment", {"acceptability_scored": False}) is False
    assert di.acceptability_scored("rail_attachment", {"acceptability_scored": True}) is True
    assert di.acceptability_scored("rail_attachment", {"lag_present": False}) is True  # the flag, not the part
    assert di.acceptability_scored("rail_attachment", {}) is True
    assert di.acceptability_scored("tape_gap", {"acceptability_scored": False}) is False
    assert di.acceptability_scored("car_plate", {"acceptability_scored": True}) is False  # documentation only
    assert di.acceptability_scored("car_plate", {}) is False
    assert di.COLUMNS == ("id", "env", "stratum", "scorer_verdict", "gray", "ground_truth", "keys")


def test_load_items_sorted_typed_and_flags(tmp_path):
    root = tmp_path / "ds"
    shard(root / "tape_gap" / "test-00000.parquet",
          [row("t2", gt={"reading": 2.5, "tilted": False}, keys=(KEY, KEY_ALL), gray=True), row("t1")])
    shard(root / "rail_attachment" / "test-00000.parquet",
          [row("r1", env="rail_attachment", gt={"lag_present": False, "acceptability_scored": False}, stratum="positive", verdict="reject")])
    shard(root / "car_plate" / "test-00000.parquet", [row("c1", env="car_plate", gt={"acceptability_scored": False})])
    shard(root / "car_plate" / "train-00000.parquet", [row("x9", env="car_plate")])
    shard(root / ".hidden" / "test-00000.parquet", [row("h1")])
    items = di.load_items(root)
    assert [i.id for i in items] == ["c1", "r1", "t1", "t2"]
    t2 = items[3]
    assert t2.gray is True and t2.ground_truth == {"reading": 2.5, "tilted": False}
    assert [k.name for k in t2.keys] == ["reading", "tilted"]
    assert t2.keys[0].tolerance == 0.125 and t2.keys[0].options == [] and t2.keys[0].scored_on == "acceptable"
    assert t2.keys[1].scored_on == "all" and t2.keys[1].options == ["x"]
    assert [i.acceptability_scored for i in items] == [False, False, True, True]
    assert items[1].stratum == "positive" and items[1].scorer_verdict == "reject"
    assert [i.id for i in di.load_items(root, split="train")] == ["x9"]
    # the parent folder finds datasets/realitybench
    up = tmp_path / "datasets"
    shard(up / "realitybench" / "tape_gap" / "test-00000.parquet", [row("u1")])
    assert di.dataset_root(up) == up / "realitybench"
    assert [i.id for i in di.load_items(up)] == ["u1"]
    assert di.dataset_root(root) == root


def test_load_items_null_ground_truth_and_keys(tmp_path):
    r = row("n1")
    r["ground_truth"] = None
    r2 = row("n2")
    r2["keys"] = []
    shard(tmp_path / "e" / "test-0.parquet", [r, r2])
    a, b = di.load_items(tmp_path)
    assert a.ground_truth == {} and a.keys[0].name == "reading"
    assert b.keys == []


def test_load_items_errors(tmp_path):
    with pytest.raises(di.DatasetError, match="does not exist"):
        di.load_items(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(di.DatasetError, match="no <env>/test-"):
        di.load_items(tmp_path / "empty")
    dup = tmp_path / "dup"
    shard(dup / "a" / "test-0.parquet", [row("same")])
    shard(dup / "b" / "test-0.parquet", [row("same")])
    with pytest.raises(di.DatasetError, match="duplicate frame id same"):
        di.load_items(dup)
    bad = tmp_path / "bad"
    shard(bad / "a" / "test-0.parquet", [row("x", stratum="sideways")])
    with pytest.raises(di.DatasetError, match="row 'x' is malformed"):
        di.load_items(bad)
    badjson = tmp_path / "badjson"
    r = row("j")
    r["ground_truth"] = "{not json"
    shard(badjson / "a" / "test-0.parquet", [r])
    with pytest.raises(di.DatasetError, match="malformed"):
        di.load_items(badjson)
    junk = tmp_path / "junk"
    (junk / "a").mkdir(parents=True)
    (junk / "a" / "test-0.parquet").write_bytes(b"not parquet")
    with pytest.raises(di.DatasetError, match="unreadable"):
        di.load_items(junk)
    nocol = tmp_path / "nocol"
    shard(nocol / "a" / "test-0.parquet", [{"id": "x"}])
    with pytest.raises(di.DatasetError, match="unreadable"):
        di.load_items(nocol)


def test_load_items_error_messages_are_exact(tmp_path):
    with pytest.raises(di.DatasetError) as e:
        di.load_items(tmp_path / "nope")
    assert str(e.value) == f"dataset directory {tmp_path / 'nope'} does not exist"
    (tmp_path / "empty").mkdir()
    with pytest.raises(di.DatasetError) as e:
        di.load_items(tmp_path / "empty")
    assert str(e.value) == f"{tmp_path / 'empty'}: no <env>/test-*.parquet shards (is this an exported dataset?)"
    dup = tmp_path / "dup"
    shard(dup / "a" / "test-0.parquet", [row("same")])
    shard(dup / "b" / "test-0.parquet", [row("same")])
    with pytest.raises(di.DatasetError) as e:
        di.load_items(dup)
    assert str(e.value) == f"{dup / 'b' / 'test-0.parquet'}: duplicate frame id same"
    bad = tmp_path / "bad"
    shard(bad / "a" / "test-0.parquet", [row("x", stratum="sideways")])
    with pytest.raises(di.DatasetError) as e:
        di.load_items(bad)
    assert str(e.value) == f"{bad / 'a' / 'test-0.parquet'}: row 'x' is malformed: 1 validation error for GradingItem"
    junk = tmp_path / "junk"
    (junk / "a").mkdir(parents=True)
    (junk / "a" / "test-0.parquet").write_bytes(b"not parquet")
    with pytest.raises(di.DatasetError) as e:
        di.load_items(junk)
    assert str(e.value).startswith(f"{junk / 'a' / 'test-0.parquet'}: unreadable (ArrowInvalid: ")


def test_load_items_empty_ground_truth_null_gray_and_root_with_shards(tmp_path):
    r = row("e1")
    r["ground_truth"] = ""
    r2 = row("e2", gray=None)
    shard(tmp_path / "ds" / "tape_gap" / "test-0.parquet", [r, r2])
    # shards directly below: a realitybench/ folder beside them is not taken instead
    shard(tmp_path / "ds" / "realitybench" / "tape_gap" / "test-0.parquet", [row("other")])
    assert di.dataset_root(tmp_path / "ds") == tmp_path / "ds"
    a, b = di.load_items(tmp_path / "ds")
    assert a.id == "e1" and a.ground_truth == {} and b.gray is False


def test_an_environment_that_declares_documentation_only_is_never_graded(tmp_path, monkeypatch):
    """The environment's own `acceptability_scored=False` (car_plate declares it) decides even
    when the frame says nothing; here a registered copy of tape_gap declares it."""
    import dataclasses

    import blender_envs.registry as registry

    docs = dataclasses.replace(registry.get_environment("tape_gap"), name="docs_only", acceptability_scored=False)
    real_modules, real_get = registry._modules(), registry.get_environment
    monkeypatch.setattr(registry, "_modules", lambda: {**real_modules, "docs_only": "x"})
    monkeypatch.setattr(registry, "get_environment", lambda n: docs if n == "docs_only" else real_get(n))
    assert di.acceptability_scored("docs_only", {}) is False
    assert di.acceptability_scored("docs_only", {"acceptability_scored": True}) is False
    assert di.acceptability_scored("tape_gap", {}) is True
    shard(tmp_path / "docs_only" / "test-0.parquet", [row("d1", env="docs_only", gt={})])
    shard(tmp_path / "tape_gap" / "test-0.parquet", [row("t1", gt={})])
    d1, t1 = di.load_items(tmp_path)
    assert (d1.id, d1.acceptability_scored) == ("d1", False) and (t1.id, t1.acceptability_scored) == ("t1", True)


def test_shard_paths_default_to_the_test_split(tmp_path):
    shard(tmp_path / "tape_gap" / "test-00000.parquet", [row("t1")])
    shard(tmp_path / "tape_gap" / "train-00000.parquet", [row("t2")])
    assert di.shard_paths(tmp_path) == [tmp_path / "tape_gap" / "test-00000.parquet"]
    assert di.shard_paths(tmp_path, "train") == [tmp_path / "tape_gap" / "train-00000.parquet"]


def test_keys_without_a_scored_on_field_take_the_default(tmp_path):
    """An export whose key structs have no `scored_on` column: the KeySpec default applies."""
    from scorers.answer_keys import KeySpec

    key = {k: v for k, v in KEY.items() if k != "scored_on"}
    shard(tmp_path / "tape_gap" / "test-0.parquet", [row("k1", keys=(key,))])
    (item,) = di.load_items(tmp_path)
    assert item.keys[0].scored_on == KeySpec.model_fields["scored_on"].default
    assert item.keys[0].name == "reading" and item.keys[0].tolerance == 0.125


# ---------------------------------------------------------------- realitybench_inputs

def _jsonl(path: Path, lines) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + '{"torn')
    return path


def test_load_predictions_fields(tmp_path):
    p = _jsonl(tmp_path / "m.jsonl", [
        {"id": "a", "model": "mx", "response": "{}", "usage": {"prompt_tokens": 10, "completion_tokens": 4,
                                                              "reasoning_tokens": 1}},
        {"id": "b", "model": "mx", "response": "r", "usage": {"prompt_tokens": -1}},
        {"id": "c", "model": "my", "response": "r"},
        {"id": "a", "model": "mx", "error": "late failure", "usage": {"prompt_tokens": 99}},
        {"question_id": 4}, "not an object"])
    pr = ri.load_predictions(p)
    assert pr.model == "mx" and pr.model_names == ["mx", "my"]
    assert pr.replies == {"a": "{}", "b": "r", "c": "r"}
    assert pr.usage["a"].prompt_tokens == 10 and pr.usage["a"].output_tokens == 3
    assert set(pr.usage) == {"a"} and pr.bad_usage == 1
    assert pr.n_lines == 7 and pr.torn_last_line
    assert pr.unreadable_lines == [6] and pr.no_id_lines == 1 and pr.duplicate_ids == ["a"]
    assert pr.invalid_utf8_lines == []
    with pytest.raises(ri.ReportError, match="does not exist"):
        ri.load_predictions(tmp_path / "none.jsonl")


def test_load_predictions_counts_every_bad_usage_line_and_keeps_the_path(tmp_path):
    """Two malformed usage records count 2; line 3 is invalid UTF-8 (read with U+FFFD, still a reply)."""
    p = tmp_path / "m.jsonl"
    p.write_bytes(b'{"id": "a", "response": "r", "usage": {"prompt_tokens": -1}}\n'
                  b'{"id": "b", "response": "r", "usage": {"completion_tokens": "5"}}\n'
                  b'{"id": "c", "response": "caf\xe9", "usage": {"prompt_tokens": 3}}\n')
    pr = ri.load_predictions(p)
    assert pr.path == p and pr.model == "m"
    assert pr.bad_usage == 2 and set(pr.usage) == {"c"} and pr.usage["c"].prompt_tokens == 3
    assert pr.invalid_utf8_lines == [3] and pr.replies["c"] == "caf\ufffd"
    assert pr.unreadable_lines == [] and not pr.torn_last_line


def test_load_price_table(tmp_path):
    assert "example-small-model" in ri.load_price_table(None)
    f = tmp_path / "p.yaml"
    f.write_text("models:\n  m: {input: 1, output: 2}\n")
    assert ri.load_price_table(f)["m"].output == 2.0
    with pytest.raises(ri.ReportError, match="does not exist"):
        ri.load_price_table(tmp_path / "x.yaml")
    f.write_text("models:\n  m: {input: -1, output: 2}\n")
    with pytest.raises(ri.ReportError, match="is malformed"):
        ri.load_price_table(f)
    f.write_text("models: [1, 2]\n")
    with pytest.raises(ri.ReportError, match="is malformed"):
        ri.load_price_table(f)


@pytest.mark.parametrize("text, why", [
    ("models:\n  m: {input: -1, output: 2}\n", "1 validation error for Price"),     # pydantic: first line only
    ("models: [1, 2]\n", "'list' object has no attribute 'items'"),
    ("models:\n  m: 5\n", "'int' object is not iterable"),
    ("per_tokens: abc\n", "invalid literal for int() with base 10: 'abc'"),
    ("models: [\n", "while parsing a flow node"),                                  # not YAML: was a traceback
])
def test_load_price_table_malformed_is_one_line(tmp_path, text, why):
    f = tmp_path / "p.yaml"
    f.write_text(text)
    with pytest.raises(ri.ReportError) as e:
        ri.load_price_table(f)
    assert str(e.value) == f"price table {f} is malformed: {why}"


def test_load_price_table_missing_names_the_path(tmp_path):
    with pytest.raises(ri.ReportError) as e:
        ri.load_price_table(tmp_path / "x.yaml")
    assert str(e.value) == f"price table {tmp_path / 'x.yaml'} does not exist"
    (tmp_path / "d.yaml").mkdir()
    with pytest.raises(ri.ReportError, match="does not exist"):
        ri.load_price_table(tmp_path / "d.yaml")
    assert "example-small-model" in ri.load_price_table("")           # empty = the default table


# ---------------------------------------------------------------- egopath_inputs

def test_load_prediction_file_and_warnings(tmp_path):
    p = tmp_path / "ego.jsonl"
    p.write_bytes(b'{"id": "q1", "model": "a", "response": "[1]"}\n{"id": "q1", "model": "b", "response": "[2]"}\n'
                  b'oops\n{"frame_id": 3}\n{"id": "q2", "response": "caf\xe9"}\n' + b"x\n" * 6
                  + b'{"id": "q3", "resp')
    f = ei.load_prediction_file(p)
    assert f.replies == {"q1": "[2]", "q2": "caf\ufffd"} and f.model == "a" and f.model_names == ["a", "b"]
    assert f.unreadable_lines == [3, 6, 7, 8, 9, 10, 11] and f.no_id_lines == 1 and f.torn_last_line
    assert f.n_lines == 12 and f.duplicate_ids == ["q1"] and f.invalid_utf8_lines == [5]
    w = ei.file_warnings(f)
    assert w == [f"{p}: torn last line ignored",
                 f"{p}: 7 unreadable line(s) skipped (line 3, 6, 7, 8, 9)",
                 f"{p}: 1 line(s) without a string `id` skipped",
                 f"{p}: 1 repeated id(s); the last line of each counts",
                 f"{p}: several `model` values ['a', 'b']; using 'a'",
                 f"{p}: 1 line(s) with invalid UTF-8, read with U+FFFD (line 5)"]
    clean = tmp_path / "clean.jsonl"
    clean.write_text('{"id": "q1", "model": "a", "response": "[1]"}\n')
    assert ei.file_warnings(ei.load_prediction_file(clean)) == []
    with pytest.raises(EgoPathDataError, match="does not exist"):
        ei.load_prediction_file(tmp_path / "none.jsonl")


def _pf(path, model):
    return ei.PredictionFile(path=Path(path), model=model, replies={"q": model})


def test_models_from_files_names():
    out = ei.models_from_files([_pf("x/one.jsonl", "m"), _pf("y/two.jsonl", "m"), _pf("z/three.jsonl", "k")])
    assert out == {"one": {"q": "m"}, "two": {"q": "m"}, "k": {"q": "k"}}
    assert list(out) == ["one", "two", "k"] and out["one"] == {"q": "m"}
    with pytest.raises(EgoPathDataError, match="two prediction files for model 'same'"):
        ei.models_from_files([_pf("a/same.jsonl", "m"), _pf("b/same.jsonl", "m")])
    with pytest.raises(EgoPathDataError, match="reserved for a baseline"):
        ei.models_from_files([_pf("a/f.jsonl", "baseline:random")])
    assert ei.models_from_files([_pf("a/f.jsonl", "baseline:nobody")]) == {"baseline:nobody": {"q": "baseline:nobody"}}
    assert ei.models_from_files([]) == {}
