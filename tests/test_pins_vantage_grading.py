"""Pins of scorers.vantage_grading on hand-made items (no clip sampling, fast): each grader's whole
record for a right, a wrong and an unreadable reply, and the set metrics of the worked examples of
shared/notes/vantage_metrics.md (§1 EV macro-F1 with a "maybe", §5 Temporal video-macro mIoU,
§6 DVC with token-F1 captions) in both rule sets."""
from __future__ import annotations

import json

import pytest

from formats.vantage_item import (BoxesAnswer, CaptionedEvent, CaptionsAnswer, ChoiceAnswer, Media, SegmentsAnswer,
                                  VantageItem, YesNoAnswer)
from scorers import vantage_grading as G


def media(clip="c", dur=20.0):
    return Media(kind="video", clip_id=clip, frame_numbers=[0, 15], times_s=[0.0, 0.5], duration_s=dur,
                 width=320, height=240)


def item(task, k, answer, m=None):
    return VantageItem(id=f"{task}/c/{k}", task=task, domain="W", env="warehouse", media=m or media(), prompt="p",
                       answer=answer)


def ev(k, label):
    return item("event_verification", k, YesNoAnswer(label=label), media(f"e{k}"))


def vqa(k=0, letter="B"):
    return item("video_qa", k, ChoiceAnswer(task="video_qa", letter=letter, options=("a", "b", "c", "d")))


def tl(k, windows, clip="v1", dur=20.0):
    return item("temporal_localization", k, SegmentsAnswer(windows=windows), media(clip, dur))


DVC_GOLD = [CaptionedEvent(start=0, end=10, caption="a worker walks"),
            CaptionedEvent(start=10, end=20, caption="a forklift turns left")]


def dvc(k=0):
    return item("dense_captioning", k, CaptionsAnswer(events=DVC_GOLD), media(f"d{k}"))


def test_event_verification_records():
    it = ev(0, "yes")
    assert G.grade(it, "Yes, it did.") == {"id": "event_verification/c/0", "task": "event_verification",
                                           "clip_id": "e0", "parsed": "yes", "truth": "yes", "correct": True,
                                           "score": 1.0, "extra": {}}
    no = G.grade(it, "No. They stayed apart.")
    assert (no["parsed"], no["correct"], no["score"]) == ("no", False, 0.0)
    maybe = G.grade(it, "maybe")
    assert (maybe["parsed"], maybe["correct"], maybe["score"]) == (None, False, 0.0)
    assert type(G.grade(it, "yes")["score"]) is float


def test_video_qa_records():
    assert G.grade(vqa(), "Answer: B") == {"id": "video_qa/c/0", "task": "video_qa", "clip_id": "c", "parsed": "B",
                                           "truth": "B", "correct": True, "score": 1.0, "extra": {}}
    assert G.grade(vqa(), "C")["correct"] is False and G.grade(vqa(), "C")["parsed"] == "C"
    assert G.grade(vqa(), "no idea")["parsed"] is None


def test_temporal_records_score_the_best_window_and_keep_the_vantage_iou():
    it = tl(0, [(2, 8), (12, 16)])
    rec = G.grade(it, '{"start": "00:12.00", "end": "00:18.00"}')            # the second window: 4 / 6
    assert rec == {"id": "temporal_localization/c/0", "task": "temporal_localization", "clip_id": "v1",
                   "parsed": [12.0, 18.0], "truth": [[2.0, 8.0], [12.0, 16.0]], "correct": None,
                   "score": pytest.approx(2 / 3), "extra": {"duration_s": 20.0, "iou_vantage": pytest.approx(2 / 3)}}
    bad = G.grade(it, "garbage")                                              # vantage reads it as [0, 20]: 6 / 20
    assert (bad["parsed"], bad["score"], bad["extra"]) == (None, 0.0, {"duration_s": 20.0, "iou_vantage": 0.3})
    past = G.grade(tl(1, [(10, 20)]), "[15, 30]")                              # both clip to the clip: 5 / 10
    assert past["score"] == pytest.approx(0.5) and past["extra"]["iou_vantage"] == pytest.approx(0.5)


def test_dense_captioning_record_is_soda_c_with_token_f1_captions():
    # §6's segments; captions: the first exact (1), the second 2*3/(4+3) = 6/7 by token F1
    reply = json.dumps([{"start": "00:00.00", "end": "00:08.00", "caption": "a worker walks"},
                        {"start": "00:09.00", "end": "00:21.00", "caption": "a forklift turns"},
                        {"start": "00:30.00", "end": "00:40.00", "caption": "nobody"}])
    rec = G.grade(dvc(), reply)
    assert rec["parsed"] == [[0.0, 8.0, "a worker walks"], [9.0, 21.0, "a forklift turns"], [30.0, 40.0, "nobody"]]
    assert rec["truth"] == [[0.0, 10.0, "a worker walks"], [10.0, 20.0, "a forklift turns left"]]
    assert (rec["correct"], rec["extra"], rec["clip_id"]) == (None, {}, "d0")
    assert rec["score"] == pytest.approx(2 * (0.8 + 5 / 6 * 6 / 7) / 5)      # 0.605714
    none = G.grade(dvc(), "no events")
    assert (none["parsed"], none["score"]) == (None, 0.0)


def test_grade_dispatches_and_refuses_what_it_does_not_grade():
    assert G.grade(vqa(), "B")["task"] == "video_qa" and G.grade(ev(0, "no"), "no")["correct"] is True
    assert G.grade(tl(0, [(2, 8)]), "[2, 8]")["score"] == 1.0
    box = VantageItem(id="referring_expressions/c/0", task="referring_expressions", domain="W", env="warehouse",
                      media=media(), prompt="p", answer=BoxesAnswer(task="referring_expressions", boxes=[(1, 2, 3, 4)]))
    with pytest.raises(ValueError, match=r"^referring_expressions/c/0: no timeline grader for task 'referring_expressions'$"):
        G.grade(box, "[1, 2, 3, 4]")
    with pytest.raises(ValueError, match=r"^video_qa/c/0: a video_qa item given to the event_verification grader$"):
        G.grade_event_verification(vqa(), "yes")
    for f, it in ((G.grade_video_qa, ev(0, "yes")), (G.grade_temporal_localization, vqa()),
                  (G.grade_dense_captioning, vqa())):
        with pytest.raises(ValueError, match="given to the"):
            f(it, "x")


def test_event_verification_metrics_are_section_1s_worked_example():
    y = ["yes", "yes", "yes", "no", "no", "no", "no", "yes"]
    p = ["yes", "no", "yes", "no", "no", "yes", "no", "maybe"]               # item 7 unreadable
    recs = [G.grade(ev(k, a), b) for k, (a, b) in enumerate(zip(y, p))]
    strict = G.set_metrics("event_verification", recs, "strict")
    vantage = G.set_metrics("event_verification", recs, "vantage")
    assert strict["macro_f1"] == pytest.approx(0.660714, abs=1e-6) and strict["n_scored"] == 8
    assert vantage["macro_f1"] == pytest.approx(0.708333, abs=1e-6) and vantage["n_scored"] == 7
    assert (vantage["sensitivity"], vantage["specificity"]) == (pytest.approx(2 / 3), 0.75)
    assert G.set_metrics("event_verification", recs) == strict
    assert G.event_verification_metrics(recs, "vantage") == vantage


def test_video_qa_metrics_are_accuracy_in_both_rule_sets():
    recs = [G.grade(vqa(0), "B"), G.grade(vqa(1), "C"), G.grade(vqa(2), "x")]
    for c in ("strict", "vantage"):
        assert G.set_metrics("video_qa", recs, c) == {"accuracy": pytest.approx(1 / 3), "n_items": 3, "n_invalid": 1}
    with pytest.raises(ValueError, match="loose"):
        G.video_qa_metrics(recs, "loose")


def test_temporal_metrics_are_section_5s_worked_example():
    rows = [tl(0, [(2, 8)]), tl(1, [(10, 20)]), tl(2, [(4, 6)]), tl(3, [(0, 5)], "v2", 30.0)]
    recs = [G.grade(it, r) for it, r in zip(rows, ["[3, 9]", "[12, 17]", "garbage", "[5, 10]"])]
    strict = G.set_metrics("temporal_localization", recs, "strict")
    vantage = G.set_metrics("temporal_localization", recs, "vantage")
    assert vantage["miou"] == pytest.approx(0.219048, abs=1e-6) and vantage["r@0.5"] == pytest.approx(1 / 3)
    assert strict["miou"] == pytest.approx((0.714286 + 0.5) / 4, abs=1e-6) and strict["r@0.5"] == 0.5
    assert (strict["n_queries"], strict["n_videos"], strict["n_unparsed"]) == (4, 2, 1)
    assert G.set_metrics("temporal_localization", recs) == strict
    assert G.temporal_localization_metrics(recs) == strict                 # strict is every grader's default
    assert G.video_qa_metrics(recs[:0]) == G.video_qa_metrics(recs[:0], "vantage")


def test_dense_captioning_metrics_drop_silent_videos_in_vantage_rules_only():
    reply = json.dumps([{"start": "00:00.00", "end": "00:08.00", "caption": "a worker walks"},
                        {"start": "00:09.00", "end": "00:21.00", "caption": "a forklift turns"},
                        {"start": "00:30.00", "end": "00:40.00", "caption": "nobody"}])
    recs = [G.grade(dvc(0), reply), G.grade(dvc(1), "none")]
    one = 2 * (0.8 + 5 / 6 * 6 / 7) / 5
    strict = G.set_metrics("dense_captioning", recs, "strict")
    vantage = G.set_metrics("dense_captioning", recs, "vantage")
    assert strict == {"soda_c": pytest.approx(one / 2), "iou_f1": pytest.approx(2 * (0.8 + 5 / 6) / 5 / 2),
                      "sim_f1": pytest.approx(2 * (1 + 6 / 7) / 5 / 2), "miou_matched": pytest.approx((0.8 + 5 / 6) / 2),
                      "n_videos": 2, "n_scored": 2, "n_dropped": 0}
    assert vantage["soda_c"] == pytest.approx(one) and (vantage["n_scored"], vantage["n_dropped"]) == (1, 1)
    json.dumps(strict, allow_nan=False)                                       # no numpy units left in
    assert G.dense_captioning_metrics(recs) == strict


def test_captions_are_compared_by_token_f1_unless_told_otherwise():
    it = item("dense_captioning", 5, CaptionsAnswer(events=[CaptionedEvent(start=0, end=10, caption="a forklift turns left")]))
    rec = G.grade(it, json.dumps([{"start": "00:00.00", "end": "00:10.00", "caption": "left turns forklift a"}]))
    assert rec["score"] == pytest.approx(1.0)                                 # the same words: token F1 = 1
    assert G.set_metrics("dense_captioning", [rec], "vantage")["soda_c"] == pytest.approx(1.0)
    rouge = G.dense_captioning_metrics([rec], "vantage", similarity="rouge_l")
    assert rouge["soda_c"] == pytest.approx(0.25)                            # reversed: LCS 1 of 4 words


def test_set_metrics_refuse_foreign_records_and_unknown_tasks():
    recs = [G.grade(vqa(), "A"), G.grade(ev(0, "yes"), "yes"), G.grade(tl(0, [(1, 2)]), "[1, 2]")]
    with pytest.raises(ValueError, match=r"^event_verification metrics given records of \['temporal_localization', 'video_qa'\]$"):
        G.set_metrics("event_verification", recs)
    with pytest.raises(ValueError, match=r"^no timeline metrics for task 'spatial_pointing'$"):
        G.set_metrics("spatial_pointing", recs)
