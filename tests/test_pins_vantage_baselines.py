"""Pins of scorers.vantage_baselines.reference_reply: the ground truth written as the reply each
task's prompt asks for reads back through the same parsers and graders as a model's reply and
scores perfectly in both rule sets (strict SOT excepted: IoU > 1 never holds, so 20/21), including
Object Localization boxes whose 0-1000 values would lose a pixel row to the vantage int truncation
if written a hair low. Hand-made items, no Blender."""
from __future__ import annotations

import json

import pytest

from formats.vantage_item import (BoxesAnswer, CaptionedEvent, CaptionsAnswer, ChoiceAnswer, Media, SegmentsAnswer,
                                  TrackAnswer, VantageItem, YesNoAnswer)
from scorers import vantage_grading, vantage_grading_boxes
from scorers.vantage_baselines import _box_1000_up, reference_reply


def media(kind="video", n=1, w=300, h=100, dur=16.0):
    nums = [15 * k for k in range(n)]
    return Media(kind=kind, clip_id="c", frame_numbers=nums, times_s=[k / 30 for k in nums], duration_s=dur,
                 width=w, height=h)


def item(task, answer, m):
    return VantageItem(id=f"{task}/c/0", task=task, domain="W", env="warehouse", media=m, prompt="p", answer=answer)


EV = item("event_verification", YesNoAnswer(label="no"), media())
VQA = item("video_qa", ChoiceAnswer(task="video_qa", letter="C", options=("a", "b", "c", "d")), media())
TL = item("temporal_localization", SegmentsAnswer(windows=[(2.5, 7.25), (9.0, 12.0)]), media())
DVC = item("dense_captioning", CaptionsAnswer(events=[CaptionedEvent(start=0.5, end=3.0, caption="a worker walks"),
                                                      CaptionedEvent(start=65.07, end=70.0, caption="a forklift turns")]),
           media(dur=80.0))
POINT = item("spatial_pointing", ChoiceAnswer(task="spatial_pointing", letter="D", options=("1", "2", "3", "4"),
                                              points=((1, 2), (3, 4), (5, 6), (7, 8))), media("image"))
# pixel boxes on a 300 x 100 image whose 0-1000 values are repeating decimals (7 px = 23.333...)
REFEX = item("referring_expressions", BoxesAnswer(task="referring_expressions", boxes=[(7, 7, 70, 35)]), media("image"))
OBJLOC = item("object_localization", BoxesAnswer(task="object_localization", category="person",
                                                 boxes=[(7, 7, 70, 35), (101, 13, 287, 97)]), media("image"))
TRACK = [(100.0, 400.0, 225.0, 650.0), (125.0, 400.0, 250.0, 650.0), None, (175.0, 410.0, 300.0, 660.0)]
SOT = item("single_object_tracking", TrackAnswer(init_box=TRACK[0], boxes=TRACK, object_type="person"),
           media("frames", 4))


def test_replies_are_written_in_each_prompts_format():
    assert reference_reply(EV) == "no"
    assert reference_reply(VQA) == "Answer: C" and reference_reply(POINT) == "Answer: D"
    assert json.loads(reference_reply(TL)) == {"start": "00:02.50", "end": "00:07.25"}      # the first window
    assert json.loads(reference_reply(DVC)) == [{"start": "00:00.50", "end": "00:03.00", "caption": "a worker walks"},
                                                {"start": "01:05.07", "end": "01:10.00", "caption": "a forklift turns"}]
    assert json.loads(reference_reply(SOT)) == {"frame_1": [125.0, 400.0, 250.0, 650.0], "frame_2": None,
                                                "frame_3": [175.0, 410.0, 300.0, 660.0]}
    (box,), = [json.loads(reference_reply(REFEX))]
    assert box == pytest.approx([7000 / 300, 70.0, 70000 / 300, 350.0], abs=1e-12)         # exact, not rounded
    assert json.loads(reference_reply(OBJLOC)) == [{"bbox_2d": [23.34, 70.0, 233.34, 350.0], "label": "person"},
                                                   {"bbox_2d": [336.67, 130.0, 956.67, 970.0], "label": "person"}]


def test_box_1000_up_rounds_each_coordinate_up_to_a_hundredth_of_its_own_axis():
    assert _box_1000_up((7, 7, 70, 35), 300, 100) == [23.34, 70.0, 233.34, 350.0]
    assert _box_1000_up((7, 7, 70, 35), 100, 300) == [70.0, 23.34, 700.0, 116.67]           # x by width, y by height
    assert _box_1000_up((0, 0, 300, 100), 300, 100) == [0.0, 0.0, 1000.0, 1000.0]


@pytest.mark.parametrize("it", [EV, VQA, TL, DVC], ids=lambda it: it.task)
def test_timeline_references_score_perfectly_in_both_rule_sets(it):
    rec = vantage_grading.grade(it, reference_reply(it))
    assert rec["score"] == pytest.approx(1.0, abs=1e-12) and rec["parsed"] is not None
    for c in ("strict", "vantage"):
        m = vantage_grading.set_metrics(it.task, [rec], c)
        key = {"event_verification": "accuracy", "video_qa": "accuracy", "temporal_localization": "miou",
               "dense_captioning": "soda_c"}[it.task]
        assert m[key] == pytest.approx(1.0, abs=1e-12), c


@pytest.mark.parametrize("it", [POINT, REFEX, OBJLOC, SOT], ids=lambda it: it.task)
def test_box_references_score_perfectly_in_both_rule_sets(it):
    rec = vantage_grading_boxes.grade(it, reference_reply(it))
    assert rec["parsed_ok"]
    m = vantage_grading_boxes.task_metrics([it], [rec])
    for c in ("strict", "vantage"):
        got = {"spatial_pointing": lambda: m[c]["accuracy"], "referring_expressions": lambda: m[c]["miou"],
               "object_localization": lambda: m[c]["f1@0.5"], "single_object_tracking": lambda: m[c]["auc"]}[it.task]()
        want = 20 / 21 if (it.task, c) == ("single_object_tracking", "strict") else 1.0
        assert got == pytest.approx(want, abs=1e-12), c
    if it.task == "object_localization":        # every box's vantage IoU is 1: the truncated pixels are the truth's
        assert rec["score"]["vantage"]["tp@0.5"] == 2 and rec["score"]["vantage"]["n_pred"] == 2


def test_an_unknown_baseline_is_a_one_line_error_naming_the_known_ones():
    from scorers.vantage_baselines import score_baseline
    with pytest.raises(ValueError, match=r"^unknown baseline 'sam3'; known: \['always_yes', 'whole_clip'\]$"):
        score_baseline("sam3", [EV])
