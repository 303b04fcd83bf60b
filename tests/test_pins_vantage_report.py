"""Pins of scorers.vantage_report (`scenebench score` for VANTAGE) in process, on a four-item
export written here with pyarrow (no render): the baselines' scores worked by hand, the
reference at full marks, the warnings a messy predictions file gets, the report files, the
summary table, and the one-line refusals. (The CLI tests run it in a subprocess, which the
mutation target cannot see.)"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from formats.vantage_item import BoxesAnswer, Media, SegmentsAnswer, VantageItem, YesNoAnswer
from scorers.vantage_baselines import reference_reply
from scorers.vantage_report import PAPER_BASELINES, VantageScoreError, plain, run_score, safe_name, summary_table


def _item(task, key, answer, kind="video", n=2):
    nums = [15 * k for k in range(n)]
    media = Media(kind=kind, clip_id=f"clip-{key}", frame_numbers=nums, times_s=[k / 25 for k in nums], fps=25.0,
                  duration_s=12.5, width=320, height=240)
    return VantageItem(id=f"{task}/clip-{key}/0", task=task, domain="T", env="intersection", media=media,
                       prompt=f"prompt {key}", answer=answer, tags={})


ITEMS = [_item("event_verification", "a", YesNoAnswer(label="yes")),
         _item("event_verification", "b", YesNoAnswer(label="no")),
         _item("temporal_localization", "c", SegmentsAnswer(windows=[(1.5, 4.0)])),
         _item("referring_expressions", "d", BoxesAnswer(task="referring_expressions", boxes=[(10, 20, 110, 220)]),
               "image", 1)]


@pytest.fixture()
def dataset(tmp_path) -> Path:
    root = tmp_path / "vantage"
    for it in ITEMS:
        m = it.media
        row = {"id": it.id, "task": it.task, "domain": it.domain, "env": it.env, "clip_id": m.clip_id,
               "prompt": it.prompt, "media_kind": m.kind, "frame_numbers": m.frame_numbers, "times_s": m.times_s,
               "fps": m.fps, "duration_s": m.duration_s, "width": m.width, "height": m.height,
               "answer": json.dumps(it.answer.model_dump(mode="json")), "tags": json.dumps(it.tags)}
        (root / it.task).mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist([row]), root / it.task / f"test-{m.clip_id}-00000-of-00001.parquet")
    return root


def _predictions(path: Path, model: str, replies: dict, extra: list[str] = ()) -> Path:
    lines = [json.dumps({"id": i, "model": model, "response": r}) for i, r in replies.items()]
    path.write_text("\n".join([*lines[:1], *extra, *lines[1:]]) + "\n")
    return path


def test_baselines_and_a_partial_model_score_what_their_definitions_give(dataset, tmp_path):
    replies = {it.id: reference_reply(it) for it in ITEMS[:3]}            # no reply for the RefEx item
    replies["not/an/item"] = "yes"
    pred = _predictions(tmp_path / "p.jsonl", "org/model 1", replies, extra=["{not json", "[1, 2]"])
    metrics, warnings, md = run_score(dataset, [pred], tmp_path / "report", n_resamples=200)
    assert warnings == [f"{pred}: 1 id(s) not in the dataset ignored (first: not/an/item)",
                        f"{pred}: 2 unreadable line(s) skipped",
                        f"{pred}: 1 of 4 items have no reply (scored as wrong)"]
    assert metrics["n_items"] == 4 and metrics["n_resamples"] == 200
    model = metrics["models"]["org/model 1"]
    assert model["n_answered"] == 3
    score = {t: (r["strict"]["score"], r["vantage"]["score"]) for t, r in model["tasks"].items()}
    assert score == {"event_verification": (100.0, 100.0), "temporal_localization": (100.0, 100.0),
                     "referring_expressions": (0.0, 0.0)}
    b = metrics["baselines"]
    assert {t: (r["strict"]["score"], r["vantage"]["score"]) for t, r in b["reference"]["tasks"].items()} == {
        "event_verification": (100.0, 100.0), "temporal_localization": (100.0, 100.0),
        "referring_expressions": (100.0, 100.0)}
    # always yes on one yes and one no: F1(yes) = 2/3, F1(no) = 0, macro 1/3
    assert b["always_yes"]["task"] == "event_verification"
    assert math.isclose(b["always_yes"]["strict"]["score"], 100 / 3) and math.isclose(
        b["always_yes"]["vantage"]["score"], 100 / 3)
    # the whole 12.5 s clip against [1.5, 4.0]: IoU 2.5 / 12.5
    assert math.isclose(b["whole_clip"]["vantage"]["score"], 20.0) and b["whole_clip"]["task"] == "temporal_localization"
    assert not {"static_box", "random_box", "opencv_csrt"} & set(b)     # no tracking items, no tracker baselines
    # pillars need every task: none here, written as null (strict JSON), not NaN
    assert set(model["pillars"]["strict"].values()) == {None}
    report = tmp_path / "report"
    assert sorted(p.name for p in report.iterdir()) == ["graded_org_model_1.jsonl", "metrics.json",
                                                         "primary_scores.png", "report.md"]
    assert json.loads((report / "metrics.json").read_text()) == metrics
    graded = [json.loads(x) for x in (report / "graded_org_model_1.jsonl").read_text().splitlines()]
    assert [(g["id"], g["score"]) for g in graded if g["task"] == "event_verification"] == [
        (ITEMS[0].id, 1.0), (ITEMS[1].id, 1.0)]
    text = md.read_text()
    assert "| always_yes | event_verification | 33.33 " in text and "| 38.95 |" in text
    assert "Answered 3 of 4 items." in text


def test_summary_table_one_line_per_model_and_rule_set(dataset, tmp_path):
    pred = _predictions(tmp_path / "p.jsonl", "m", {it.id: reference_reply(it) for it in ITEMS[:3]})
    metrics, _, md = run_score(dataset, [pred], None, n_resamples=50)
    assert md is None and not (tmp_path / "report").exists()
    lines = summary_table(metrics).splitlines()
    assert lines[0].split()[:3] == ["model", "rules", "event_verifi"] and lines[0].split()[-1] == "overall"
    assert [ln.split() for ln in lines[1:]] == [
        ["m", c, "100.00", "–", "100.00", "–", "0.00", "–", "–", "–", *["–"] * 5] for c in ("strict", "vantage")]


def test_refusals_are_one_line_errors(dataset, tmp_path):
    good = _predictions(tmp_path / "a.jsonl", "same", {ITEMS[0].id: "yes"})
    twin = _predictions(tmp_path / "b.jsonl", "same", {ITEMS[1].id: "no"})
    cases = [([good, twin], dataset, "two predictions files name the same model"),
             ([], dataset, "no predictions file given"),
             ([good], tmp_path / "nowhere", "not a vantage export"),
             ([tmp_path], dataset, str(tmp_path))]                           # a directory, not a file
    for preds, ds, message in cases:
        with pytest.raises(VantageScoreError, match=message) as caught:
            run_score(ds, preds, tmp_path / "report", n_resamples=20)
        assert "\n" not in str(caught.value)
    assert not (tmp_path / "report").exists()                               # nothing written


def test_safe_name_keeps_reports_inside_their_directory():
    assert safe_name("../../etc/passwd") == "_.._etc_passwd"
    assert safe_name("org/model 1") == "org_model_1"
    assert safe_name("...") == "model" and safe_name("") == "model"
    assert safe_name("a" * 300) == "a" * 100
    assert safe_name("Qwen2.5-VL_7b") == "Qwen2.5-VL_7b"


def test_plain_gives_strict_json_values():
    got = plain({1: np.float64("nan"), "x": (np.int64(3), [float("inf"), -math.inf]), "y": np.array([1.5, 2.0]),
                 "z": np.float32(0.5), "s": "txt", "n": None})
    assert got == {"1": None, "x": [3, [None, None]], "y": [1.5, 2.0], "z": 0.5, "s": "txt", "n": None}
    assert type(got["x"][0]) is int and type(got["y"][0]) is float
    assert PAPER_BASELINES[("single_object_tracking", "static_box")] == 24.64
    assert PAPER_BASELINES[("event_verification", "always_yes")] == 38.95
