"""Pins of scorers.vantage_scoring (one model's VANTAGE results) on hand-made items of all eight
tasks whose replies are the worked examples of shared/notes/vantage_metrics.md: each task's score
is its primary metric x100 in both rule sets, the interval is the bootstrap over the task's own
unit seeded per model, task and rule set, and the pillars and Overall follow App. D.5. No Blender."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from formats.vantage_item import (BoxesAnswer, CaptionedEvent, CaptionsAnswer, ChoiceAnswer, Media, SegmentsAnswer,
                                  TASKS, TrackAnswer, VantageItem, YesNoAnswer)
from scorers import vantage_scoring as S
from scorers import vantage_uncertainty as vu
from scorers.vantage_pillars import PRIMARY, pillar_scores

N = 200          # resamples: enough for an interval, fast


def media(kind="video", n=1, clip="c", dur=20.0, w=2000, h=1000):
    nums = [15 * k for k in range(n)]
    return Media(kind=kind, clip_id=clip, frame_numbers=nums, times_s=[k / 30 for k in nums], duration_s=dur,
                 width=w, height=h)


def item(task, k, answer, m):
    return VantageItem(id=f"{task}/c/{k}", task=task, domain="W", env="warehouse", media=m, prompt="p", answer=answer)


def benchmark():
    """(items, replies): every task, each with a worked example of vantage_metrics.md as its replies."""
    items, replies = [], {}

    def add(it, reply):
        items.append(it)
        if reply is not None:
            replies[it.id] = reply

    opts = ("a", "b", "c", "d")
    # SOT first and VQA last: the result lists tasks in TASKS order whatever the items' order
    gt = [(10 + 2 * k, 10, 30 + 2 * k, 30) for k in range(7)]            # §7: w = h = 20, x = 10, 12, ... 22
    pred = [None, (12, 10), (12, 10), None, (40, 40), (20, 11), (20, 11)]
    add(item("single_object_tracking", 0, TrackAnswer(init_box=gt[0], boxes=gt, object_type="person"),
             media("frames", 7)),
        json.dumps({f"frame_{k}": None if p is None else [p[0], p[1], p[0] + 20, p[1] + 20]
                    for k, p in enumerate(pred) if k}))
    ev = [("yes", "yes"), ("yes", "no"), ("yes", "yes"), ("no", "no"), ("no", "no"), ("no", "yes"), ("no", "no"),
          ("yes", "maybe")]                                                  # §1, item 7 answered "maybe"
    for k, (a, b) in enumerate(ev):
        add(item("event_verification", k, YesNoAnswer(label=a), media()), b)
    tl = [("v1", 20.0, (2, 8), "[3, 9]"), ("v1", 20.0, (10, 20), "[12, 17]"), ("v1", 20.0, (4, 6), "garbage"),
          ("v2", 30.0, (0, 5), "[5, 10]")]                                   # §5
    for k, (clip, d, w, r) in enumerate(tl):
        add(item("temporal_localization", k, SegmentsAnswer(windows=[w]), media(clip=clip, dur=d)), r)
    cap = [CaptionedEvent(start=1, end=4, caption="a worker walks")]
    for k, r in enumerate([json.dumps([{"start": "00:01.00", "end": "00:04.00", "caption": "a worker walks"}]),
                           None]):                                           # the second video gets no reply
        add(item("dense_captioning", k, CaptionsAnswer(events=cap), media(clip=f"d{k}")), r)
    img = media("image")                                                     # §3: image 2000 x 1000
    rx = [([(200, 100, 400, 300)], "[[100,100,200,300]]"),
          ([(1000, 500, 1200, 600)], "[[100,100,200,300],[500,500,600,600]]"),
          ([(200, 100, 400, 300)], "[[150,100,250,300]]"), ([(200, 100, 400, 300)], "no box")]
    for k, (g, r) in enumerate(rx):
        add(item("referring_expressions", k, BoxesAnswer(task="referring_expressions", boxes=g), img), r)
    pts = ((100, 100), (200, 200), (300, 300), (400, 400))
    for k, r in enumerate(["A", "A", "C", "B"]):                             # truth A, A, A, B: 3 of 4 right
        add(item("spatial_pointing", k, ChoiceAnswer(task="spatial_pointing", letter="A" if k < 3 else "B",
                                                     options=("1", "2", "3", "4"), points=pts), img), r)
    # §4's order dependence on a 1000 x 1000 image (0-1000 = pixels): greedy p1 -> A leaves p2 at 0.417 with B
    add(item("object_localization", 0, BoxesAnswer(task="object_localization", boxes=[(0, 0, 100, 100), (20, 0, 120, 100)],
                                                    category="person"), media("image", w=1000, h=1000)),
        json.dumps([{"bbox_2d": [5, 0, 105, 100], "label": "person"}, {"bbox_2d": [0, 0, 70, 100], "label": "person"}]))
    for k, r in enumerate(["Answer: B", "Answer: C"]):
        add(item("video_qa", k, ChoiceAnswer(task="video_qa", letter="B", options=opts), media()), r)
    return items, replies


ITEMS, REPLIES = benchmark()


@pytest.fixture()
def result():
    """Computed per test, not at import or once per module: mutmut runs a mutant's tests after the
    import and counts a module fixture's calls for the first test that uses it only."""
    return S.model_result(ITEMS, REPLIES, "model-a", n_resamples=N)

# task -> (strict, vantage) primary score x100, from the notes' worked examples
EXPECTED = {
    "event_verification": (66.0714, 70.8333),       # §1: strict keeps "maybe" as an error, vantage drops it
    "video_qa": (50.0, 50.0),
    "temporal_localization": (30.3571, 21.9048),    # strict: query mean, unparsed = 0; vantage: video macro
    "dense_captioning": (50.0, 100.0),              # vantage drops the video without a prediction
    "referring_expressions": (33.3333, 58.3333),    # strict scores the first box only
    "spatial_pointing": (75.0, 75.0),
    "object_localization": (100.0, 50.0),           # strict: Hungarian; vantage: greedy in output order
    "single_object_tracking": (56.3492, 58.7302),   # §7: AUC with > and with >=
}
N_UNITS = {"event_verification": (8, 8), "video_qa": (2, 2), "temporal_localization": (2, 2),
           "dense_captioning": (2, 1), "referring_expressions": (4, 4), "spatial_pointing": (4, 4),
           "object_localization": (1, 1), "single_object_tracking": (1, 1)}


def test_each_task_scores_its_worked_example_x100_in_both_rule_sets(result):
    assert list(result["tasks"]) == list(TASKS)
    for task, (strict, vantage) in EXPECTED.items():
        res = result["tasks"][task]
        assert res["n_items"] == sum(it.task == task for it in ITEMS)
        for c, want, n in zip(("strict", "vantage"), (strict, vantage), N_UNITS[task]):
            cell = res[c]
            assert cell["score"] == pytest.approx(want, abs=1e-4), (task, c)
            assert cell["primary"] == PRIMARY[task]
            assert cell["score"] == pytest.approx(100 * cell["metrics"][PRIMARY[task]], abs=1e-9), (task, c)
            assert cell["unit"] == vu.RESAMPLING_UNIT[task] and cell["n_units"] == n, (task, c)
            assert cell["low"] <= cell["score"] + 1e-9 and cell["score"] <= cell["high"] + 1e-9, (task, c)


def test_the_metrics_are_the_graders_and_a_single_unit_has_no_spread(result):
    sot = result["tasks"]["single_object_tracking"]["vantage"]
    assert sot["metrics"]["mean_iou"] == pytest.approx(0.578278, abs=1e-6)
    assert sot["metrics"]["freeze_rate"] == pytest.approx(0.5)
    assert sot["low"] == sot["score"] == sot["high"]                          # one tracklet: every resample the same
    tl = result["tasks"]["temporal_localization"]
    assert tl["vantage"]["metrics"]["r@0.5"] == pytest.approx(1 / 3) and tl["strict"]["metrics"]["n_unparsed"] == 1
    ev = result["tasks"]["event_verification"]
    assert ev["vantage"]["metrics"]["n_scored"] == 7 and ev["strict"]["metrics"]["n_scored"] == 8
    assert result["tasks"]["object_localization"]["strict"]["metrics"]["f1@0.5"] == 1.0


def test_intervals_resample_the_tasks_unit_with_the_models_seed(result):
    for task in ("video_qa", "referring_expressions", "spatial_pointing"):
        for c in ("strict", "vantage"):
            cell = result["tasks"][task][c]
            recs = [r for r in result["records"] if r["task"] == task]
            values = [float(v) for v in (
                [r["correct"] for r in recs] if task == "video_qa" else
                [r["score"][c]["correct"] for r in recs] if task == "spatial_pointing" else
                [r["score"][c]["iou"] for r in recs])]
            ci = vu.bootstrap_ci(vu.mean_statistic(values), len(values), N, seed=vu.cell_seed("model-a", task, c))
            assert (cell["low"], cell["high"]) == (pytest.approx(100 * ci.low), pytest.approx(100 * ci.high))
    ev = result["tasks"]["event_verification"]["strict"]
    codes = [[r[k] for r in result["records"] if r["task"] == "event_verification"] for k in ("truth", "parsed")]
    from scorers.vantage_metrics import ev_codes
    ci = vu.bootstrap_ci(vu.ev_statistic(ev_codes(codes[0]), ev_codes(codes[1]), "strict"), 8, N,
                         seed=vu.cell_seed("model-a", "event_verification", "strict"))
    assert (ev["low"], ev["high"]) == (pytest.approx(100 * ci.low), pytest.approx(100 * ci.high))


def test_another_model_name_draws_other_resamples_and_the_same_name_the_same(result):
    moved = []
    for task in ("referring_expressions", "event_verification"):
        its = [it for it in ITEMS if it.task == task]
        recs = [r for r in result["records"] if r["task"] == task]
        again, other = (S.task_result(task, its, recs, m, n_resamples=N) for m in ("model-a", "model-b"))
        for c in ("strict", "vantage"):
            cell = result["tasks"][task][c]
            assert (again[c]["low"], again[c]["high"]) == (cell["low"], cell["high"])
            assert other[c]["score"] == cell["score"]
            moved.append((other[c]["low"], other[c]["high"]) != (cell["low"], cell["high"]))
    assert any(moved)


def test_pillars_and_overall_are_app_d5s_means_of_the_scores(result):
    for c, k in (("strict", 0), ("vantage", 1)):
        e = {t: v[k] for t, v in EXPECTED.items()}
        sem = (e["video_qa"] + e["event_verification"]) / 2
        spa = (e["spatial_pointing"] + e["referring_expressions"] + e["object_localization"]) / 3
        tem = (e["temporal_localization"] + e["dense_captioning"]) / 2
        sot = e["single_object_tracking"]
        p = result["pillars"][c]
        assert (p["semantic"], p["spatial"], p["temporal"], p["spatio_temporal"]) == pytest.approx(
            (sem, spa, tem, sot), abs=1e-3)
        assert p["overall"] == pytest.approx((sem + spa + tem + sot) / 4, abs=1e-3)
    assert result["pillars"]["vantage"]["overall"] == pytest.approx(60.3026, abs=1e-4)   # (60.4167 + 61.1111 + 60.9524 + 58.7302) / 4


def test_records_follow_the_items_and_a_missing_reply_is_graded_as_empty(result):
    assert [r["id"] for r in result["records"]] == [it.id for it in ITEMS]
    assert result["model"] == "model-a" and result["n_answered"] == len(ITEMS) - 1 == 25
    missing = next(r for r in result["records"] if r["id"] == "dense_captioning/c/1")
    assert missing["parsed"] is None and missing["score"] == 0.0
    box = next(r for r in result["records"] if r["task"] == "referring_expressions")
    assert box["parsed_ok"] and box["parsed"] == {"boxes": [[100.0, 100.0, 200.0, 300.0]]}
    assert "correct" in next(r for r in result["records"] if r["task"] == "video_qa")
    assert S.grade(ITEMS[0], REPLIES[ITEMS[0].id])["parsed_ok"] is True
    assert S.grade_all(ITEMS[:2], {}) == [S.grade(ITEMS[0], None), S.grade(ITEMS[1], None)]


def test_primary_table_is_tasks_by_rule_sets(result):
    table = S.primary_table(result)
    assert table.shape == (8, 2)
    want = np.array([EXPECTED[t] for t in TASKS])
    assert np.allclose(table, want, atol=1e-4)


def test_an_absent_or_unscorable_task_is_none_and_so_are_its_pillars():
    evs = [it for it in ITEMS if it.task == "event_verification"]
    res = S.model_result(evs, {it.id: "maybe" for it in evs}, "m", n_resamples=N)
    assert list(res["tasks"]) == ["event_verification"] and res["n_answered"] == 8
    ev = res["tasks"]["event_verification"]
    assert ev["strict"]["score"] == 0.0 and ev["vantage"]["score"] is None          # every reply dropped
    assert ev["vantage"]["low"] is None and ev["vantage"]["high"] is None
    assert res["pillars"]["strict"] == {"semantic": None, "spatial": None, "temporal": None,
                                        "spatio_temporal": None, "overall": None}
    table = S.primary_table(res)
    assert table[0, 0] == 0.0 and math.isnan(table[0, 1]) and np.isnan(table[1:]).all()
    full = S.model_result(ITEMS, {}, "m", n_resamples=20)
    assert full["n_answered"] == 0
    assert full["pillars"]["strict"] == pillar_scores({t: full["tasks"][t]["strict"]["score"] for t in TASKS})
    assert full["tasks"]["single_object_tracking"]["vantage"]["score"] == pytest.approx(100 / 21)  # IoU >= 0


def test_records_without_a_parsed_answer_score_as_no_answer():
    for task, strict, vantage in (("single_object_tracking", 0.0, 100 / 21), ("referring_expressions", 0.0, 0.0),
                                  ("object_localization", 0.0, 0.0)):
        its = [it for it in ITEMS if it.task == task]
        res = S.task_result(task, its, [{"id": it.id, "task": task} for it in its], "m", n_resamples=N)
        assert (res["strict"]["score"], res["vantage"]["score"]) == (pytest.approx(strict), pytest.approx(vantage))
        assert res["n_items"] == len(its)


def test_an_image_with_nothing_to_find_and_nothing_found_splits_the_rule_sets():
    """micro F1 with no prediction and no GT box: strict 1 (nothing missed), vantage 0 (the harness's 2PR/(P+R))."""
    empty = item("object_localization", 9, BoxesAnswer(task="object_localization", boxes=[], category="amr"),
                 media("image", w=1000, h=1000))
    res = S.task_result("object_localization", [empty], [S.grade(empty, "[]")], "m", n_resamples=N)
    assert (res["strict"]["score"], res["vantage"]["score"]) == (100.0, 0.0)
    assert (res["strict"]["low"], res["strict"]["high"], res["vantage"]["high"]) == (100.0, 100.0, 0.0)


def test_sot_headline_is_the_8_frame_horizon_and_every_horizon_is_reported():
    """Table 1's SOT column (so the Spatio-Temporal pillar and Overall) is the 8-frame Success AUC;
    a target's 16- and 32-frame tracklets are reported beside it, never pooled into it. Here the
    8-frame tracklet is tracked perfectly (AUC 20/21 under IoU > t, 21/21 under >=) and the
    16-frame one is never answered (0 under >, 1/21 under >=): pooled, strict would be 47.6."""
    gt8 = [(100 + 10 * k, 100, 200 + 10 * k, 200) for k in range(8)]
    gt16 = [(100 + 10 * k, 100, 200 + 10 * k, 200) for k in range(16)]
    its = [item("single_object_tracking", 0, TrackAnswer(init_box=gt8[0], boxes=gt8, object_type="person"),
                media("frames", 8)),
           item("single_object_tracking", 1, TrackAnswer(init_box=gt16[0], boxes=gt16, object_type="person"),
                media("frames", 16))]
    replies = {its[0].id: json.dumps({f"frame_{k}": list(b) for k, b in enumerate(gt8) if k})}
    res = S.model_result(its, replies, "m", n_resamples=N)
    for c, head, off in (("strict", 20 / 21, 0.0), ("vantage", 1.0, 1 / 21)):
        cell = res["tasks"]["single_object_tracking"][c]
        assert cell["score"] == pytest.approx(100 * head) and cell["n_units"] == 1, c
        assert res["pillars"][c]["spatio_temporal"] == pytest.approx(100 * head)
        m = cell["metrics"]
        assert m["horizon_frames"] == 8 and m["auc"] == pytest.approx(head) and m["n_tracklets"] == 1
        assert list(m["by_horizon"]) == ["8", "16"]
        assert m["by_horizon"]["8"]["auc"] == pytest.approx(head)
        assert m["by_horizon"]["16"]["auc"] == pytest.approx(off) and m["by_horizon"]["16"]["n_tracklets"] == 1
