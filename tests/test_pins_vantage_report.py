"""Pins of scorers.vantage_report (`scenebench score` for VANTAGE) in process, on a four-item
export written here with pyarrow (no render): the baselines' scores worked by hand, the
reference at full marks, the warnings a messy predictions file gets, the report files, the
summary table, and the one-line refusals. (The CLI tests run it in a subprocess, which the
mutation target cannot see.)"""
from __future__ import annotations

import io
import json
import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from formats.vantage_item import BoxesAnswer, Media, SegmentsAnswer, TrackAnswer, VantageItem, YesNoAnswer
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


# SOT on 100 x 100 px frames (0-1000 = 10 x pixels): a white 20 px square on black, still from frame 0
# to frame 1, then 10 px to the right: the init box repeated has IoU 1, then 200 / 600 = 1/3.
SQUARES_PX = [(20, 20, 40, 40), (20, 20, 40, 40), (30, 20, 50, 40)]
SOT = VantageItem(
    id="single_object_tracking/clip-e/0", task="single_object_tracking", domain="W", env="warehouse_sot",
    media=Media(kind="frames", clip_id="clip-e", frame_numbers=[0, 15, 30], times_s=[0.0, 0.5, 1.0], fps=30.0,
                duration_s=16.0, width=100, height=100),
    prompt="track", answer=TrackAnswer(init_box=(200, 200, 400, 400), object_type="person",
                                       boxes=[tuple(10 * v for v in b) for b in SQUARES_PX]), tags={})


def _png(square=None) -> dict:
    a = np.zeros((100, 100, 3), np.uint8)
    if square is not None:
        x0, y0, x1, y1 = square
        a[y0:y1, x0:x1] = 255
    buf = io.BytesIO()
    Image.fromarray(a).save(buf, format="PNG")
    return {"bytes": buf.getvalue(), "path": None}


def _write(root: Path, items) -> Path:
    for it in items:
        m = it.media
        row = {"id": it.id, "task": it.task, "domain": it.domain, "env": it.env, "clip_id": m.clip_id,
               "prompt": it.prompt, "media_kind": m.kind, "frame_numbers": m.frame_numbers, "times_s": m.times_s,
               "fps": m.fps, "duration_s": m.duration_s, "width": m.width, "height": m.height,
               "answer": json.dumps(it.answer.model_dump(mode="json")), "tags": json.dumps(it.tags)}
        if it.task == "single_object_tracking":   # images: marked frame 0, the target crop, frames 1, 2
            row |= {"frame0": _png(SQUARES_PX[0]),
                    "images": [_png(SQUARES_PX[0]), _png(), *(_png(sq) for sq in SQUARES_PX[1:len(m.frame_numbers)])]}
        (root / it.task).mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist([row]), root / it.task / f"test-{m.clip_id}-00000-of-00001.parquet")
    return root


@pytest.fixture()
def dataset(tmp_path) -> Path:
    return _write(tmp_path / "vantage", ITEMS)


def _predictions(path: Path, model: str, replies: dict, extra: list[str] = ()) -> Path:
    lines = [json.dumps({"id": i, "model": model, "response": r}) for i, r in replies.items()]
    path.write_text("\n".join([*lines[:1], *extra, *lines[1:]]) + "\n")
    return path


def test_baselines_and_a_partial_model_score_what_their_definitions_give(dataset, tmp_path):
    replies = {it.id: reference_reply(it) for it in ITEMS[:3]}            # no reply for the RefEx item
    replies["not/an/item"] = "yes"
    oversize = json.dumps({"id": ITEMS[3].id, "model": "org/model 1", "response": "x" * (4 << 20)})
    pred = _predictions(tmp_path / "p.jsonl", "org/model 1", replies,
                        extra=["{not json", "[1, 2]", json.dumps({"model": "org/model 1", "response": "no id"}),
                               oversize])
    report = tmp_path / "a" / "b" / "report"                             # parents created
    metrics, warnings, md = run_score(dataset, [pred], report, n_resamples=200)
    assert warnings == [f"{pred}: 1 id(s) not in the dataset ignored (first: not/an/item)",
                        f"{pred}: 4 unreadable line(s) skipped",         # 2 undecodable, 1 without id, 1 oversize
                        f"{pred}: 1 of 4 items have no reply (scored as wrong)"]
    assert metrics["n_items"] == 4 and metrics["n_resamples"] == 200 and metrics["dataset"] == str(dataset)
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
    assert math.isclose(b["whole_clip"]["strict"]["score"], 20.0) and b["whole_clip"]["task"] == "temporal_localization"
    assert math.isclose(b["whole_clip"]["vantage"]["score"], 20.0)
    assert not {"static_box", "random_box", "opencv_csrt"} & set(b)     # no tracking items, no tracker baselines
    # pillars need every task: none here, written as null (strict JSON), not NaN
    assert set(model["pillars"]["strict"].values()) == {None}
    assert sorted(p.name for p in report.iterdir()) == ["graded_org_model_1.jsonl", "metrics.json",
                                                         "primary_scores.png", "report.md"]
    assert json.loads((report / "metrics.json").read_text()) == metrics
    graded = [json.loads(x) for x in (report / "graded_org_model_1.jsonl").read_text().splitlines()]
    assert [(g["id"], g["score"]) for g in graded if g["task"] == "event_verification"] == [
        (ITEMS[0].id, 1.0), (ITEMS[1].id, 1.0)]
    text = md.read_text()
    assert "| always_yes | event_verification | 33.33 " in text and "| 38.95 |" in text
    assert "Answered 3 of 4 items." in text and "![primary scores](primary_scores.png)" in text
    again, _, _ = run_score(dataset, [pred], report, n_resamples=200)      # into the same directory again
    assert again == metrics


def test_tracker_baselines_see_the_frames_and_a_missing_task_skips_only_its_own(tmp_path):
    """No temporal localization item here: whole_clip is skipped, the three trackers still run."""
    root = _write(tmp_path / "vantage", [ITEMS[0], ITEMS[1], SOT])
    pred = _predictions(tmp_path / "p.jsonl", "m", {SOT.id: reference_reply(SOT)})
    metrics, _, _ = run_score(root, [pred], None, n_resamples=50)
    b = metrics["baselines"]
    assert list(b) == ["reference", "always_yes", "static_box", "random_box", "opencv_csrt"]
    assert set(b["reference"]) == {"tasks", "pillars"}
    assert all(b[n]["task"] == "single_object_tracking" for n in ("static_box", "random_box", "opencv_csrt"))
    # success AUC over 21 thresholds 0, 0.05, ..., 1 of frames 1 and 2 (IoU 1 and 1/3): both frames pass
    # the 7 thresholds below 1/3, one frame the 13 from 0.35 to 0.95; at 1.0 the strict rule (IoU > t)
    # passes none, the paper's code (IoU >= t) the exact frame
    assert math.isclose(b["static_box"]["strict"]["score"], 100 * (7 + 13 / 2) / 21)
    assert math.isclose(b["static_box"]["vantage"]["score"], 100 * (7 + 13 / 2 + 1 / 2) / 21)
    # CSRT follows the square (it sees the frames); a random box does worse than standing still
    assert b["opencv_csrt"]["vantage"]["score"] > 90 > b["static_box"]["vantage"]["score"]
    assert b["random_box"]["vantage"]["score"] < b["static_box"]["vantage"]["score"]
    model = metrics["models"]["m"]["tasks"]["single_object_tracking"]
    assert math.isclose(model["strict"]["score"], 100 * 20 / 21) and model["vantage"]["score"] == 100.0


def test_summary_table_one_line_per_model_and_rule_set(dataset, tmp_path):
    pred = _predictions(tmp_path / "p.jsonl", "m", {it.id: reference_reply(it) for it in ITEMS[:3]})
    metrics, _, md = run_score(dataset, [pred], None, n_resamples=50)
    assert md is None and not (tmp_path / "report").exists()
    lines = summary_table(metrics).splitlines()
    assert lines[0].split()[:3] == ["model", "rules", "event_verifi"] and lines[0].split()[-1] == "overall"
    assert [ln.split() for ln in lines[1:]] == [
        ["m", c, "100.00", "–", "100.00", "–", "0.00", "–", "–", "–", *["–"] * 5] for c in ("strict", "vantage")]


def test_summary_table_prints_pillars_and_overall():
    def result(score):
        return {c: {"score": score} for c in ("strict", "vantage")}

    pillars = {"strict": {"semantic": 11.0, "spatial": 22.0, "temporal": 33.0, "spatio_temporal": 44.0,
                          "overall": 27.5},
               "vantage": {"semantic": 12.0, "spatial": None, "temporal": 34.0, "spatio_temporal": 45.0,
                           "overall": None}}
    metrics = {"models": {"a": {"tasks": {"video_qa": result(50.0), "object_localization": result(None)},
                                "pillars": pillars}}}
    lines = [ln.split("  ") for ln in summary_table(metrics).splitlines()]
    assert lines[0][-6:] == ["single_objec", "semantic", "spatial", "temporal", "spatio_temporal", "overall"]
    assert lines[1] == ["a", "strict", "–", "50.00", "–", "–", "–", "–", "–", "–",
                        "11.00", "22.00", "33.00", "44.00", "27.50"]
    assert lines[2] == ["a", "vantage", "–", "50.00", "–", "–", "–", "–", "–", "–",
                        "12.00", "–", "34.00", "45.00", "–"]


def test_refusals_are_one_line_errors(dataset, tmp_path):
    good = _predictions(tmp_path / "a.jsonl", "same", {ITEMS[0].id: "yes"})
    twin = _predictions(tmp_path / "b.jsonl", "same", {ITEMS[1].id: "no"})
    cases = [([good, twin], dataset, "two predictions files name the same model (same, same)"),
             ([], dataset, "no predictions file given"),
             ([good], tmp_path / "nowhere", f"{tmp_path / 'nowhere'}: no <task>/test-*.parquet shards of a VANTAGE "
                                            "task (not a vantage export?)"),
             ([tmp_path], dataset, None)]                                    # a directory, not a file
    for preds, ds, message in cases:
        with pytest.raises(VantageScoreError) as caught:
            run_score(ds, preds, tmp_path / "report", n_resamples=20)
        assert str(caught.value) == message if message else str(tmp_path) in str(caught.value)
        assert "\n" not in str(caught.value)
    assert not (tmp_path / "report").exists()                               # nothing written


def test_safe_name_keeps_reports_inside_their_directory():
    assert safe_name("../../etc/passwd") == "_.._etc_passwd"
    assert safe_name("org/model 1") == "org_model_1"
    assert safe_name("...") == "model" and safe_name("") == "model"
    assert safe_name("a" * 300) == "a" * 100
    assert safe_name("Qwen2.5-VL_7b") == "Qwen2.5-VL_7b" and safe_name("X-ray") == "X-ray"


def test_plain_gives_strict_json_values():
    got = plain({1: np.float64("nan"), "x": (np.int64(3), [float("inf"), -math.inf]), "y": np.array([1.5, 2.0]),
                 "z": np.float32(0.5), "s": "txt", "n": None})
    assert got == {"1": None, "x": [3, [None, None]], "y": [1.5, 2.0], "z": 0.5, "s": "txt", "n": None}
    assert type(got["x"][0]) is int and type(got["y"][0]) is float
    assert PAPER_BASELINES[("single_object_tracking", "static_box")] == 24.64
    assert PAPER_BASELINES[("event_verification", "always_yes")] == 38.95


def test_the_resample_count_reaches_every_interval(tmp_path):
    """Nine yes/no items: bootstrap intervals that move with the resample count, so each interval
    in the metrics must be the one computed with the count given (not the 10,000 default)."""
    from scorers.vantage_scoring import grade, model_result, task_result

    ev = [_item("event_verification", f"k{k}", YesNoAnswer(label="yes" if k < 5 else "no")) for k in range(9)]
    root = _write(tmp_path / "vantage", ev)
    replies = {it.id: ("yes" if k % 3 else "no") for k, it in enumerate(ev)}
    pred = _predictions(tmp_path / "p.jsonl", "m", replies)
    metrics, _, _ = run_score(root, [pred], None, n_resamples=50)

    def interval(r):
        return r["strict"]["low"], r["strict"]["high"], r["vantage"]["low"], r["vantage"]["high"]

    yes = task_result("event_verification", ev, [grade(it, "yes") for it in ev], "always_yes", 50)
    model = model_result(ev, replies, "m", 50)["tasks"]["event_verification"]
    reference = model_result(ev, {it.id: reference_reply(it) for it in ev}, "reference", 50)
    assert interval(metrics["baselines"]["always_yes"]) == interval(yes)
    assert interval(metrics["models"]["m"]["tasks"]["event_verification"]) == interval(model)
    assert interval(metrics["baselines"]["reference"]["tasks"]["event_verification"]) == interval(
        reference["tasks"]["event_verification"])
    # the default count gives other intervals for these items: the test would see it used
    assert interval(task_result("event_verification", ev, [grade(it, "yes") for it in ev], "always_yes")) != \
        interval(yes)
    assert interval(model_result(ev, replies, "m")["tasks"]["event_verification"]) != interval(model)


def test_the_reference_interval_uses_its_own_name_and_the_resample_count(tmp_path):
    """A perfect reply on 3 yes / 5 no items: resamples holding one class score 50 (strict), so the
    interval depends on the bootstrap's seed (from the model name) and count: 61.25 at 50 resamples
    seeded by 'reference', 100 at 10,000, 100 and 50 under other names."""
    ev = [_item("event_verification", f"k{k}", YesNoAnswer(label="yes" if k < 3 else "no")) for k in range(8)]
    root = _write(tmp_path / "vantage", ev)
    pred = _predictions(tmp_path / "p.jsonl", "m", {ev[0].id: "yes"})
    metrics, _, _ = run_score(root, [pred], None, n_resamples=50)
    r = metrics["baselines"]["reference"]["tasks"]["event_verification"]
    assert (r["strict"]["score"], r["vantage"]["score"]) == (100.0, 100.0)
    assert math.isclose(r["strict"]["low"], 61.25) and r["strict"]["high"] == 100.0


def test_the_report_lists_sot_by_horizon_under_the_shortest_ones_primary(tmp_path):
    """The SOT primary is its shortest horizon's AUC (8 frames in an export); report.md lists every
    horizon's tracklets beside it. A second, 2-frame tracklet of the same target (never answered)
    becomes the primary horizon; the 3-frame one (answered exactly) moves to its own row."""
    short = SOT.model_copy(update={"id": "single_object_tracking/clip-f/0", "media": SOT.media.model_copy(
                                   update={"clip_id": "clip-f", "frame_numbers": [0, 15], "times_s": [0.0, 0.5]}),
                                   "answer": SOT.answer.model_copy(update={"boxes": SOT.answer.boxes[:2]})})
    root = _write(tmp_path / "vantage", [ITEMS[0], SOT, short])
    pred = _predictions(tmp_path / "p.jsonl", "m", {SOT.id: reference_reply(SOT)})
    metrics, _, report = run_score(root, [pred], tmp_path / "report", n_resamples=50)
    sot = metrics["models"]["m"]["tasks"]["single_object_tracking"]
    assert sot["strict"]["n_units"] == 1 and sot["strict"]["score"] == 0.0
    assert math.isclose(sot["vantage"]["score"], 100 / 21)
    text = report.read_text()
    assert "the primary score is the 2-frame one" in text
    assert "| 2 | 1 | 0.00 | 4.76 |" in text and "| 3 | 1 | 95.24 | 100.00 |" in text
