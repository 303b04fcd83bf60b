"""VANTAGE-Bench end to end on real renders: one warehouse clip and one warehouse_sot clip ->
`scenebench export --benchmark vantage` -> eight configs loaded offline -> `scenebench score`.

The ground truth written as replies scores 100 on every task in the vantage rules (and in the
strict ones, but for SOT's 20/21: IoU > 1 never holds); replies that say nothing score the
floors the definitions give; the baselines score what their definitions imply, recomputed
here from the items by formulas of this file.
"""
from __future__ import annotations

import json

import pytest
import yaml

from conftest import preview_quality, run_config
from formats.vantage_item import TASKS
from scenebench.cli import main
from scorers.vantage_baselines import reference_reply

pytestmark = pytest.mark.render


@pytest.fixture(scope="module")
def export(tmp_path_factory, warehouse_sot_run):
    """A warehouse clip rendered here and conftest's shared warehouse_sot clip."""
    from render_farm.runner import render

    base = tmp_path_factory.mktemp("vantage")
    s = render(run_config(base / "out", env="warehouse", n=1, seed=3, workers=1,
                          quality=preview_quality(long_side_px=96)))
    assert s.clips == 1 and not s.failed_scenes
    runs = [str(s.run_dir), str(warehouse_sot_run)]
    cfg = yaml.safe_load(open("configs/benchmark/vantage.yaml"))
    cfg["environments"] = {"warehouse": {"random": 1}, "warehouse_sot": {"random": 1}}
    (base / "vantage.yaml").write_text(yaml.safe_dump(cfg))
    assert main(["export", "--benchmark", str(base / "vantage.yaml"), "--runs", *runs,
                 "--out", str(base / "ds")]) == 0
    return base, base / "ds" / "vantage"


@pytest.fixture(scope="module")
def items(export):
    from scorers.vantage_dataset import load_items

    return load_items(export[1])


def _score(base, root, name: str, reply) -> dict:
    from scorers.vantage_dataset import load_items

    preds = base / f"{name}.jsonl"
    preds.write_text("".join(json.dumps({"id": it.id, "model": name, "response": reply(it)}) + "\n"
                             for it in load_items(root)))
    rep = base / f"rep_{name}"
    assert main(["score", "--dataset", str(root), "--predictions", str(preds), "--report-dir", str(rep),
                 "--n-resamples", "200"]) == 0
    return json.loads((rep / "metrics.json").read_text())


def test_every_task_is_exported_and_loads_offline(export, items, monkeypatch):
    from datasets import load_dataset

    base, root = export
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    assert sorted({it.task for it in items}) == sorted(TASKS)
    for task in TASKS:
        ds = load_dataset(str(root), task, split="test", cache_dir=str(base / "cache"))
        assert len(ds) == sum(it.task == task for it in items)
        row = ds[0]
        n = len(row["frame_numbers"])
        assert len(row["images"]) == (n + 1 if task == "single_object_tracking" else n)   # SOT: crop first
        assert (row["video"] is not None) == (row["media_kind"] == "video")
    assert (root.parent / "vantage_lmms_eval").is_dir()
    card = (root / "README.md").read_text()
    assert "| single_object_tracking |" in card and "paper's items" in card


def test_the_ground_truth_scores_full_marks_and_silence_the_floors(export, items):
    base, root = export
    ref = _score(base, root, "oracle", reference_reply)["models"]["oracle"]
    for task in TASKS:
        assert ref["tasks"][task]["vantage"]["score"] == pytest.approx(100.0), task
        want = 100 * 20 / 21 if task == "single_object_tracking" else 100.0
        assert ref["tasks"][task]["strict"]["score"] == pytest.approx(want), task
    assert ref["pillars"]["vantage"]["overall"] == pytest.approx(100.0)

    mute = _score(base, root, "mute", lambda it: "")["models"]["mute"]
    for task in ("video_qa", "spatial_pointing", "referring_expressions", "object_localization",
                 "dense_captioning", "single_object_tracking"):
        assert mute["tasks"][task]["strict"]["score"] == 0.0, task
    # vantage rules: an unreadable temporal answer is the whole clip; an empty track is all null
    tl = [it for it in items if it.task == "temporal_localization"]
    whole = 100 * sum(max(e - s for s, e in it.answer.windows) / it.media.duration_s for it in tl) / len(tl)
    assert mute["tasks"]["temporal_localization"]["vantage"]["score"] == pytest.approx(whole, abs=1e-6)


def test_baselines_score_what_their_definitions_imply(export, items):
    base, root = export
    b = _score(base, root, "oracle2", reference_reply)["baselines"]
    ev = [it for it in items if it.task == "event_verification"]
    pos = sum(it.answer.label == "yes" for it in ev)
    # always yes: F1(yes) = 2P / (2P + N), F1(no) = 0, macro = P / (2P + N)
    assert b["always_yes"]["strict"]["score"] == pytest.approx(100 * pos / (2 * pos + (len(ev) - pos)))
    tl = [it for it in items if it.task == "temporal_localization"]
    by_clip: dict = {}
    for it in tl:
        by_clip.setdefault(it.media.clip_id, []).append(max(e - s for s, e in it.answer.windows) / it.media.duration_s)
    vant = 100 * sum(sum(v) / len(v) for v in by_clip.values()) / len(by_clip)
    assert b["whole_clip"]["vantage"]["score"] == pytest.approx(vant)
    sot = b["static_box"]["vantage"]["metrics"]
    assert sot["freeze_rate"] == pytest.approx(1.0)          # the init box repeated: every frame frozen
    assert b["random_box"]["vantage"]["score"] >= 100 / 21    # IoU >= 0 always counts: the floor
    assert b["opencv_csrt"]["vantage"]["score"] > b["random_box"]["vantage"]["score"]
    md = (base / "rep_oracle2" / "report.md").read_text()
    assert "## Baselines" in md and "| static_box | single_object_tracking |" in md and "24.64" in md


def test_score_refuses_a_foreign_directory_in_one_line(tmp_path, capsys):
    (tmp_path / "p.jsonl").write_text("")
    assert main(["score", "--dataset", str(tmp_path), "--predictions", str(tmp_path / "p.jsonl")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("scenebench: error:")
