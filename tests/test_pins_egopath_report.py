"""Pinned behaviour of scorers/egopath_report.py: what `write_report` writes (names, bytes, nothing on
a bad metrics dict) and what `run_score` puts in metrics (warnings order, prediction-file summary,
controls only for the benchmark split, the default report folder). Real Parquet, real files."""
from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from geometry.egopath_schema import Question
from scorers import egopath_report as er
from scorers.egopath import N_RESAMPLES, SEED


def q(qid: str, task: str = "point_path", split: str = "benchmark") -> Question:
    return Question(question_id=qid, task=task, split=split, scene_id="s", scene_group="g", frame_id="f",
                    system_prompt="s", user_prompt="u", display_ids=[1, 2],
                    waypoint_world={"1": [0.0, 0.0, 0.0], "2": [1.0, 0.0, 0.0]}, start_id=1,
                    legal_edges=[[1, 2]], goal_ids=[2], reference_route=[1, 2], shortest_m=1.0, answer="[1, 2]")


def shard(root, config, split, questions):
    (root / config).mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"id": [x.question_id for x in questions],
                             "question": [x.model_dump_json() for x in questions]}),
                   root / config / f"{split}-00000.parquet")


@pytest.fixture
def root(tmp_path):
    r = tmp_path / "ds" / "egopathbench"
    r.mkdir(parents=True)
    (r / "benchmark.json").write_text('{"benchmark": "egopathbench"}')
    shard(r, "point_path", "benchmark", [q("a"), q("b")])
    shard(r, "point_path", "train", [q("t", split="train")])
    shard(r, "point_path_text_only", "benchmark", [q("a@text_only"), q("b@text_only")])
    shard(r, "point_path_text_only", "train", [q("t@text_only", split="train")])
    return r


def preds(tmp_path, name, lines):
    p = tmp_path / name
    p.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return p


def test_defaults_are_the_papers():
    import inspect
    sig = inspect.signature(er.run_score)
    assert sig.parameters["seed"].default == SEED == 20260717
    assert sig.parameters["n_resamples"].default == N_RESAMPLES == 10_000
    assert sig.parameters["split"].default == "benchmark" and sig.parameters["overlays"].default is True


def test_write_report_files_and_safe_overlay_names(tmp_path):
    metrics = json.loads(json.dumps(_metrics(tmp_path)))
    img = Image.new("RGB", (3, 2), (10, 20, 30))
    md = er.write_report(metrics, tmp_path / "out" / "deep", overlays={"a b/c:d-e_f.g": img})
    out = tmp_path / "out" / "deep"
    assert md == out / "report.md"
    assert sorted(p.name for p in (out / "overlays").iterdir()) == ["a_b_c_d-e_f.g.png"]
    back = Image.open(out / "overlays" / "a_b_c_d-e_f.g.png")
    assert back.size == (3, 2) and back.getpixel((2, 1)) == (10, 20, 30)
    text = (out / "metrics.json").read_text()
    assert text == json.dumps(metrics, indent=2, sort_keys=True) + "\n"
    assert "a_b_c_d-e_f.g" in md.read_text(encoding="utf-8")
    assert md.read_text(encoding="utf-8").startswith("# EgoPathBench report\n")


def test_write_report_without_overlays_and_nan_writes_nothing(tmp_path):
    metrics = _metrics(tmp_path)
    er.write_report(metrics, tmp_path / "plain")
    assert sorted(p.name for p in (tmp_path / "plain").iterdir()) == ["metrics.json", "report.md"]
    bad = dict(metrics, oops=float("nan"))
    with pytest.raises(ValueError):
        er.write_report(bad, tmp_path / "bad", overlays={"x": Image.new("RGB", (1, 1))})
    assert list((tmp_path / "bad").iterdir()) == []


def _metrics(tmp_path):
    r = tmp_path / "m" / "egopathbench"
    if not r.exists():
        r.mkdir(parents=True)
        (r / "benchmark.json").write_text('{"benchmark": "egopathbench"}')
        shard(r, "point_path", "benchmark", [q("a")])
    p = preds(tmp_path, "m.jsonl", [{"id": "a", "model": "m", "response": "[1, 2]"}])
    metrics, _, _ = er.run_score(r, [p], report_dir=tmp_path / "m_report", n_resamples=0, overlays=False)
    return metrics


def test_run_score_metrics_warnings_and_prediction_files(root, tmp_path):
    p = preds(tmp_path, "m.jsonl", [{"id": "a", "model": "m", "response": "[1, 2]"},
                                    {"id": "a@text_only", "model": "m", "response": "[1]"},
                                    {"id": "zz", "model": "m", "response": "[1]"}])
    p.write_text(p.read_text().replace("\n", "\noops\n", 1))     # line 2 is not JSON
    metrics, warnings, md = er.run_score(root, [p], report_dir=tmp_path / "rep", n_resamples=0, overlays=False)
    assert md == tmp_path / "rep" / "report.md" and md.is_file()
    assert not (tmp_path / "rep" / "overlays").exists()
    assert warnings is metrics["warnings"]
    assert warnings == [f"{p}: 1 unreadable line(s) skipped (line 2)",
                        "m: 1 id(s) not in the dataset ignored (e.g. zz)",
                        "m: 1 of 2 question(s) have no prediction (scored wrong)"]
    assert metrics["prediction_files"] == {"m": {"file": str(p), "lines": 4, "torn_last_line": False,
                                                 "unreadable_lines": [2], "lines_without_id": 0,
                                                 "n_duplicates": 0}}
    m = metrics["models"]["m"]
    assert m["tasks"]["point_path"]["sr"]["estimate"] == 50.0
    # Table S5: the control answered wrongly (SR 0) against full SR 50 over the two paired questions
    assert m["controls"] == {"point_path": {"text_only": 0.0, "n_text_only": 2, "mismatched_overlay": None,
                                                "full": 50.0, "n_full": 2}}
    assert metrics["dataset"]["path"] == str(root) and metrics["dataset"]["split"] == "benchmark"
    assert metrics["settings"]["seed"] == SEED and metrics["settings"]["n_resamples"] == 0
    assert json.loads((tmp_path / "rep" / "metrics.json").read_text()) == metrics


def test_run_score_other_split_has_no_controls(root, tmp_path):
    p = preds(tmp_path, "m.jsonl", [{"id": "t", "model": "m", "response": "[1, 2]"},
                                    {"id": "t@text_only", "model": "m", "response": "[1, 2]"}])
    metrics, _, _ = er.run_score(root, [p], report_dir=tmp_path / "rep", n_resamples=0, split="train",
                                 overlays=False, seed=7)
    assert "controls" not in metrics["models"]["m"]
    assert metrics["dataset"]["n_questions"] == 1 and metrics["settings"]["seed"] == 7
    assert metrics["dataset"]["split"] == "train"
    assert metrics["warnings"] == ["m: 1 id(s) not in the dataset ignored (e.g. t@text_only)"]


def test_run_score_default_report_folder(root, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    p = preds(tmp_path, "m.jsonl", [{"id": "a", "model": "m", "response": "[1, 2]"}])
    _, _, md = er.run_score(root.parent, [p], n_resamples=0, overlays=False)
    assert md == er.Path("reports") / "egopathbench" / "report.md"
    assert (tmp_path / "reports" / "egopathbench" / "metrics.json").is_file()


def test_write_report_into_an_existing_folder_replaces_the_files(tmp_path):
    metrics = _metrics(tmp_path)
    er.write_report(metrics, tmp_path / "again")
    changed = dict(metrics, warnings=["second run"])
    er.write_report(changed, tmp_path / "again")
    assert json.loads((tmp_path / "again" / "metrics.json").read_text())["warnings"] == ["second run"]


def test_report_md_of_an_undecodable_path_still_writes(tmp_path):
    """A dataset path with a byte that is not UTF-8 reaches Python as a lone surrogate
    (os.fsdecode); report.md names the dataset, so that character is written as '?'."""
    metrics = json.loads(json.dumps(_metrics(tmp_path)))
    metrics["dataset"]["path"] = "/data/caf\udce9/egopathbench"
    md = er.write_report(metrics, tmp_path / "odd")
    text = md.read_bytes().decode("utf-8")
    assert "/data/caf?/egopathbench" in text


def _png(color):
    import io
    buf = io.BytesIO()
    Image.new("RGB", (32, 24), color).save(buf, format="PNG")
    return buf.getvalue()


def image_shard(root, config, split, questions):
    (root / config).mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"id": [x.question_id for x in questions],
                             "question": [x.model_dump_json() for x in questions],
                             "image": [{"bytes": _png((40, 80, 120)), "path": None} for _ in questions]}),
                   root / config / f"{split}-00000.parquet")


def test_overlays_only_when_asked_and_from_the_scored_split(tmp_path):
    """Only the train shard has an image: overlays of a train run come from it; overlays=False
    writes none even where images exist."""
    r = tmp_path / "img" / "egopathbench"
    r.mkdir(parents=True)
    (r / "benchmark.json").write_text('{"benchmark": "egopathbench"}')
    px = {"1": [4.0, 20.0], "2": [28.0, 6.0]}
    shard(r, "point_path", "benchmark", [q("b").model_copy(update={"waypoint_pixels": px})])
    image_shard(r, "point_path", "train", [q("t", split="train").model_copy(update={"waypoint_pixels": px})])
    p = preds(tmp_path, "m.jsonl", [{"id": "t", "model": "m", "response": "[1, 2]"}])
    er.run_score(r, [p], report_dir=tmp_path / "on", n_resamples=0, split="train")
    assert sorted(x.name for x in (tmp_path / "on" / "overlays").iterdir()) == ["point_path__t.png"]
    er.run_score(r, [p], report_dir=tmp_path / "off", n_resamples=0, split="train", overlays=False)
    assert not (tmp_path / "off" / "overlays").exists()


def test_prediction_file_summary_keeps_the_first_20_unreadable_lines(tmp_path, root):
    lines = [json.dumps({"id": "a", "model": "m", "response": "[1, 2]"})] + [f"oops {k}" for k in range(25)]
    p = tmp_path / "many.jsonl"
    p.write_text("\n".join(lines) + "\n")
    metrics, _, _ = er.run_score(root, [p], report_dir=tmp_path / "rep", n_resamples=0, overlays=False)
    assert metrics["prediction_files"]["m"]["unreadable_lines"] == list(range(2, 22))
