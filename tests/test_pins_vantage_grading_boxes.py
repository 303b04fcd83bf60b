"""Pins of the box/point grader (scorers/vantage_grading_boxes) and the SOT baselines
(scorers/vantage_trackers) on hand-made items: answers written from the ground truth score
perfectly in both rule sets, wrong and hostile replies score as wrong, and the baselines score
what their definitions imply (worked out by hand below)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from formats.vantage_item import BoxesAnswer, ChoiceAnswer, Media, TrackAnswer, VantageItem
from scorers import vantage_grading_boxes as G
from scorers import vantage_trackers as T

W, H = 160, 120
HOSTILE = [None, 123, b"[1, 2, 3, 4]", "x" * 70000, '{"bbox": [NaN, 1, 2, 3]}', "[" * 5000 + "]" * 5000,
           '{"a": 1, "a": 2}', "[1e400, 0, 10, 10]", '{"frame_1": "[0, 0, 10, 10]"}', "\u0000" * 100]


def media(kind="image", n=1):
    nums = [15 * k for k in range(n)]
    return Media(kind=kind, clip_id="c", frame_numbers=nums, times_s=[k / 30 for k in nums], duration_s=16.0,
                 width=W, height=H)


def refex(boxes=((40.0, 30.0, 80.0, 60.0),)):
    return VantageItem(id="referring_expressions/c/0", task="referring_expressions", domain="W", env="warehouse",
                       media=media(), prompt="p", answer=BoxesAnswer(task="referring_expressions", boxes=list(boxes)))


def objloc(boxes):
    return VantageItem(id=f"object_localization/c/{len(boxes)}", task="object_localization", domain="W",
                       env="warehouse", media=media(), prompt="p",
                       answer=BoxesAnswer(task="object_localization", boxes=list(boxes), category="person"))


def pointing(letter="C"):
    return VantageItem(id=f"spatial_pointing/c/{letter}", task="spatial_pointing", domain="W", env="warehouse",
                       media=media(), prompt="p",
                       answer=ChoiceAnswer(task="spatial_pointing", letter=letter, options=("1, 2", "3, 4", "5, 6", "7, 8"),
                                           points=((1, 2), (3, 4), (5, 6), (7, 8))))


def moving_track(n=8, step=25.0):
    """A 125 x 250 box (0-1000) moving right by `step` per frame."""
    return [(100 + k * step, 400.0, 225 + k * step, 650.0) for k in range(n)]


def sot(gt, item_id="single_object_tracking/c/t-8f"):
    return VantageItem(id=item_id, task="single_object_tracking", domain="W", env="warehouse_sot",
                       media=media("frames", len(gt)), prompt="p",
                       answer=TrackAnswer(init_box=gt[0], boxes=list(gt), object_type="person"))


# ------------------------------------------------------------------ Referring Expressions

def test_refex_truth_scores_one_and_rules_differ_on_two_boxes():
    it = refex()
    rec = G.grade(it, "The worker: [[250, 250, 500, 500]]")           # px 40, 30, 80, 60
    assert rec["score"] == {"strict": {"iou": 1.0}, "vantage": {"iou": 1.0}} and rec["parsed_ok"]
    rec = G.grade(it, "[[375, 250, 625, 500]]")                        # px 60..100: 20*30 / (2*1200 - 600)
    assert rec["score"]["strict"]["iou"] == pytest.approx(1 / 3) == rec["score"]["vantage"]["iou"]
    rec = G.grade(it, '[{"bbox_2d": [0, 0, 100, 100]}, {"bbox_2d": [250, 250, 500, 500]}]')
    assert rec["score"] == {"strict": {"iou": 0.0}, "vantage": {"iou": 1.0}}   # strict: the first box only
    assert rec["parsed"] == {"boxes": [[0.0, 0.0, 100.0, 100.0], [250.0, 250.0, 500.0, 500.0]]}
    m = G.task_metrics([it], [G.grade(it, "[250, 250, 500, 500]")])
    assert m["strict"]["miou"] == 1.0 == m["vantage"]["acc@0.5"] and m["n_parsed"] == 1


@pytest.mark.parametrize("reply", HOSTILE)
def test_hostile_replies_score_as_wrong(reply):
    for it in (refex(), objloc([(40.0, 30.0, 80.0, 60.0)]), pointing(), sot(moving_track())):
        rec = G.grade(it, reply)
        json.dumps(rec, allow_nan=False)
        for c in ("strict", "vantage"):
            s = rec["score"][c]
            if it.task == "referring_expressions":
                assert s["iou"] == 0.0
            elif it.task == "object_localization":
                assert s["tp@0.5"] == 0 and s["f1@0.5"] == 0.0
            elif it.task == "spatial_pointing":
                assert s["correct"] is False
            else:
                assert s["mean_iou"] == 0.0 and s["auc"] == (1 / 21 if c == "vantage" else 0.0)


# ------------------------------------------------------------------ Pointing

def test_pointing_letter():
    it = pointing("C")
    assert G.grade(it, "C")["score"] == {"strict": {"correct": True}, "vantage": {"correct": True}}
    assert G.grade(it, "Answer: B")["score"]["vantage"] == {"correct": False}
    assert G.grade(it, "I think (C).")["parsed"] == {"letter": "C"}
    recs = [G.grade(pointing(L), r) for L, r in (("A", "A"), ("B", "D"), ("C", "no idea"), ("D", "D"))]
    m = G.task_metrics([pointing(L) for L in "ABCD"], recs)
    assert m["strict"] == m["vantage"] == {"accuracy": 0.5, "n_items": 4, "n_invalid": 1}


# ------------------------------------------------------------------ Object Localization

def test_objloc_truth_order_and_a_miss():
    gt = [(16.0, 12.0, 32.0, 36.0), (80.0, 60.0, 96.0, 84.0)]        # 0-1000: 100,100,200,300 and 500,500,600,700
    it = objloc(gt)
    truth = json.dumps([{"bbox_2d": [500, 500, 600, 700], "label": "person"},
                        {"bbox_2d": [100, 100, 200, 300], "label": "person"}])
    rec = G.grade(it, truth)
    assert rec["score"]["strict"] == rec["score"]["vantage"] == {"tp@0.5": 2, "n_pred": 2, "n_gt": 2, "f1@0.5": 1.0}
    rec = G.grade(it, "[[100, 100, 200, 300], [700, 0, 800, 100]]")
    assert rec["score"]["strict"]["f1@0.5"] == 0.5 == rec["score"]["vantage"]["f1@0.5"]
    m = G.task_metrics([it, objloc(gt[:1])], [G.grade(it, truth), G.grade(objloc(gt[:1]), "[]")])
    assert m["strict"]["f1@0.5"] == pytest.approx(2 * 2 / (2 + 3)) and m["vantage"]["n_gt"] == 3
    assert m["vantage"]["coco_ap50"] == pytest.approx(67 / 101)       # recall reaches 2/3 at precision 1
    json.dumps(m, allow_nan=False)


# ------------------------------------------------------------------ SOT and its baselines

def _static_aucs(step=25.0, w=125.0, n=8):
    """By hand: the static box overlaps the GT of frame k by (w - k step) of w, IoU (w - d)/(w + d)."""
    ious = [max(0.0, (w - k * step) / (w + k * step)) for k in range(1, n)]
    taus = np.linspace(0, 1, 21)
    return (float(np.mean([[i >= t for i in ious] for t in taus])), float(np.mean([[i > t for i in ious] for t in taus])),
            float(np.mean(ious)))


def test_static_box_freezes_and_its_auc_follows_the_motion():
    gt = moving_track()
    it = sot(gt)
    rec = G.grade(it, T.track_reply(T.static_track(it)))
    van, strict, miou = _static_aucs()
    # IoUs 100/150, 75/175, 50/200, 25/225, 0, 0, 0 -> hand values:
    assert miou == pytest.approx((2 / 3 + 3 / 7 + 1 / 4 + 1 / 9) / 7)
    assert rec["score"]["vantage"]["auc"] == pytest.approx(van) == pytest.approx(35 / 147)
    assert rec["score"]["strict"]["auc"] == pytest.approx(strict) == pytest.approx(31 / 147)   # IoU 1/4 is not > 0.25
    assert rec["score"]["vantage"]["freeze_rate"] == 1.0 and rec["score"]["strict"]["freeze_rate"] == 1.0
    truth = G.grade(it, T.track_reply(gt))
    assert truth["score"]["vantage"]["auc"] == 1.0 and truth["score"]["strict"]["auc"] == pytest.approx(20 / 21)
    assert truth["score"]["vantage"]["freeze_rate"] == 0.0                    # 25 px steps: IoU 0.67 < 0.95


def test_random_box_is_seeded_inside_the_frame_and_near_the_floor():
    gt = moving_track()
    it = sot(gt)
    a, b, c = T.random_track(it), T.random_track(it), T.random_track(it, seed=1)
    assert a == b and a != c and a[0] == gt[0]
    for x1, y1, x2, y2 in a[1:]:
        assert 0 <= x1 and x2 <= 1000 and 0 <= y1 and y2 <= 1000
        assert x2 - x1 == pytest.approx(125.0) and y2 - y1 == pytest.approx(250.0)
    rec = G.grade(it, T.track_reply(a))
    assert 1 / 21 <= rec["score"]["vantage"]["auc"] < 0.2 and rec["score"]["vantage"]["freeze_rate"] == 0.0
    with pytest.raises(ValueError, match="trackers run on single_object_tracking items"):
        T.static_track(refex())


def _moving_patch_frames(n=8, dx=4, dy=1):
    rng = np.random.default_rng(7)
    bg = rng.integers(60, 120, (H, W, 3)).astype(np.uint8)
    yy, xx = np.mgrid[0:24, 0:20]
    patch = np.where(((yy // 4 + xx // 4) % 2 == 0)[..., None], [230, 40, 40], [30, 30, 220]).astype(np.uint8)
    frames, boxes = [], []
    for k in range(n):
        x, y = 20 + dx * k, 40 + dy * k
        f = bg.copy()
        f[y:y + 24, x:x + 20] = patch
        frames.append(f)
        boxes.append((x * 1000 / W, y * 1000 / H, (x + 20) * 1000 / W, (y + 24) * 1000 / H))
    return frames, boxes


@pytest.mark.parametrize("kind, auc, miou", [("CSRT", 137 / 147, 0.954272), ("KCF", 91 / 147, 0.621619)])
def test_opencv_tracker_follows_a_moving_patch(kind, auc, miou):
    """A 20 x 24 px checker patch moving (4, 1) px a frame over noise (opencv-contrib 4.11.0.86:
    CSRT keeps it within a pixel, KCF lags behind it but never loses it)."""
    frames, gt = _moving_patch_frames()
    it = sot(gt)
    track = T.opencv_track(it, frames, kind)
    assert track == T.opencv_track(it, frames, kind)                       # deterministic
    rec = G.grade(it, T.track_reply(track))
    assert rec["score"]["vantage"]["auc"] == pytest.approx(auc, abs=1e-6)
    assert rec["score"]["vantage"]["mean_iou"] == pytest.approx(miou, abs=1e-5)
    assert rec["score"]["vantage"]["p@0.5"] == 1.0 and rec["score"]["vantage"]["freeze_rate"] == 0.0
    rnd = G.grade(it, T.track_reply(T.random_track(it)))
    assert rnd["score"]["vantage"]["mean_iou"] == 0.0 and rnd["score"]["vantage"]["auc"] == pytest.approx(1 / 21)


def test_opencv_tracker_refuses_what_it_cannot_do():
    frames, gt = _moving_patch_frames()
    with pytest.raises(T.TrackerUnavailable, match="no TrackerMOSSE_create"):
        T.opencv_track(sot(gt), frames, "MOSSE")
    with pytest.raises(ValueError, match="7 frames for 8 shown"):
        T.opencv_track(sot(gt), frames[:7])
    assert T.opencv_track(sot(gt), frames) == T.opencv_track(sot(gt), frames, "CSRT")    # the default
    assert T.baseline_track("random", sot(gt)) == T.random_track(sot(gt), 0)
    assert T.baseline_track("static", sot(gt)) == T.static_track(sot(gt))
    assert T.baseline_track("random", sot(gt), seed=1) == T.random_track(sot(gt), 1)
    assert T.baseline_track("KCF", sot(gt), frames) == T.opencv_track(sot(gt), frames, "KCF")
    with pytest.raises(ValueError, match="pass them"):
        T.baseline_track("CSRT", sot(gt))
    with pytest.raises(ValueError, match="unknown SOT baseline 'sam3'; known: static, random, CSRT, KCF"):
        T.baseline_track("sam3", sot(gt), frames)
    reply = json.loads(T.track_reply([gt[0], None, gt[2]]))
    assert reply == {"frame_1": None, "frame_2": [float(x) for x in gt[2]]}


def test_sot_task_metrics_over_tracklets():
    a, b = sot(moving_track(), "single_object_tracking/c/a-8f"), sot(moving_track(step=0.0), "single_object_tracking/c/b-8f")
    recs = [G.grade(a, T.track_reply(T.static_track(a))), G.grade(b, T.track_reply(T.static_track(b)))]
    m = G.task_metrics([a, b], recs)
    assert m["vantage"]["auc"] == pytest.approx((35 / 147 + 1.0) / 2)        # a stationary target: static is exact
    assert m["vantage"]["freeze_rate"] == 1.0 and m["vantage"]["n_tracklets"] == 2
    assert m["strict"]["auc"] == pytest.approx((_static_aucs()[1] + 20 / 21) / 2)
    with pytest.raises(ValueError, match="one box/point task"):
        G.task_metrics([a, refex()], recs)


# ------------------------------------------------------------------ what the records and the task metrics keep

def test_sot_headline_picks_the_shortest_horizons_tracklets():
    """The headline items are the shortest horizon's, wherever they sit in the set (8 of 8/16/32)."""
    items = [sot(moving_track(16), "single_object_tracking/c/t-16f"), sot(moving_track(8)),
             sot(moving_track(32), "single_object_tracking/c/t-32f"),
             sot(moving_track(8), "single_object_tracking/d/t-8f")]
    assert G.sot_headline(items) == [1, 3]
    assert G.sot_headline(items[:1] + items[2:3]) == [0]          # 16 and 32: the 16-frame one
    assert G.sot_headline([]) == []


def test_records_say_what_was_read():
    rec = G.grade(pointing("C"), "B")
    assert (rec["id"], rec["task"], rec["parsed_ok"]) == ("spatial_pointing/c/C", "spatial_pointing", True)
    assert G.grade(pointing("C"), "no letter here")["parsed_ok"] is False
    assert G.grade(refex(), "[1, 2, 3, 4]")["parsed_ok"] is True and G.grade(refex(), "none")["parsed_ok"] is False
    assert G.grade(objloc([(0.0, 0.0, 8.0, 6.0)]), "[]")["parsed_ok"] is False
    gt = moving_track(3)
    assert G.grade(sot(gt), json.dumps({"frame_1": None, "frame_2": [0, 0, 10, 10]}))["parsed_ok"] is True
    assert G.grade(sot(gt), json.dumps({"frame_1": [0, 0, 10, 10], "frame_2": None}))["parsed_ok"] is True
    assert G.grade(sot(gt), json.dumps({"frame_1": None, "frame_2": None}))["parsed_ok"] is False
    other = VantageItem(id="video_qa/c/0", task="video_qa", domain="W", env="warehouse", media=media(), prompt="p",
                        answer=ChoiceAnswer(task="video_qa", letter="A", options=("a", "b", "c", "d")))
    with pytest.raises(ValueError, match=r"video_qa/c/0: not a box/point task \(video_qa\)"):
        G.grade(other, "A")


def test_objloc_rule_sets_differ_on_output_order_and_empty_frames():
    # vantage_metrics.md §4 (x 10 to stay above int truncation): A = [0,0,100,100], B = [20,0,120,100] px;
    # p1 = [5,0,105,100] takes A greedily, p2 = [-30,0,70,100] is left only B (IoU 1/3): greedy 1 TP, Hungarian 2
    wide = Media(kind="image", clip_id="c", frame_numbers=[0], times_s=[0.0], duration_s=16.0, width=1000, height=1000)
    it = VantageItem(id="object_localization/c/ab", task="object_localization", domain="W", env="warehouse",
                     media=wide, prompt="p", answer=BoxesAnswer(task="object_localization",
                                                                boxes=[(0.0, 0.0, 100.0, 100.0), (20.0, 0.0, 120.0, 100.0)],
                                                                category="person"))
    rec = G.grade(it, "[[5, 0, 105, 100], [-30, 0, 70, 100]]")
    assert rec["score"]["vantage"]["tp@0.5"] == 1 and rec["score"]["strict"]["tp@0.5"] == 2
    m = G.task_metrics([it], [rec])
    assert m["vantage"]["f1@0.5"] == 0.5 and m["strict"]["f1@0.5"] == 1.0
    empty = VantageItem(id="object_localization/c/none", task="object_localization", domain="W", env="warehouse",
                        media=media(), prompt="p", answer=BoxesAnswer(task="object_localization", boxes=[],
                                                                        category="amr"))
    rec = G.grade(empty, "[]")
    assert rec["score"]["strict"]["f1@0.5"] == 1.0 and rec["score"]["vantage"]["f1@0.5"] == 0.0


def test_objloc_crowds_are_not_cut_at_100_boxes():
    gt = [(8.0 * (k % 20), 6.0 * (k // 20), 8.0 * (k % 20) + 8, 6.0 * (k // 20) + 6) for k in range(150)]
    it = objloc(gt)
    reply = json.dumps([[b[0] * 1000 / W, b[1] * 1000 / H, b[2] * 1000 / W, b[3] * 1000 / H] for b in gt])
    m = G.task_metrics([it], [G.grade(it, reply)])
    assert m["strict"]["f1@0.5"] == 1.0 and m["strict"]["coco_ap"] == pytest.approx(1.0)   # max_dets 300
    assert m["vantage"]["coco_ar"] == pytest.approx(1.0)


def test_task_metrics_scores_missing_records_as_no_answer():
    gt = moving_track()
    items = [refex(), ]
    m = G.task_metrics(items, [])
    assert m["strict"]["miou"] == 0.0 == m["vantage"]["miou"] and m["n_parsed"] == 0
    m = G.task_metrics([objloc([(0.0, 0.0, 8.0, 6.0)])], [])
    assert m["strict"]["f1@0.5"] == 0.0 and m["vantage"]["n_pred"] == 0
    m = G.task_metrics([sot(gt)], [])
    assert m["vantage"]["auc"] == pytest.approx(1 / 21) and m["strict"]["auc"] == 0.0
    m = G.task_metrics([pointing("A")], [])
    assert m["strict"]["accuracy"] == 0.0 and m["strict"]["n_invalid"] == 1
    # RefEx: the first box wrong, the second right -> strict 0, vantage 1
    m = G.task_metrics([refex()], [G.grade(refex(), "[[0, 0, 100, 100], [250, 250, 500, 500]]")])
    assert m["strict"]["miou"] == 0.0 and m["vantage"]["miou"] == 1.0


def test_opencv_tracker_on_a_box_it_cannot_hold_and_its_thread_setting():
    import cv2

    frames, gt = _moving_patch_frames()
    tiny = sot([(500.0, 500.0, 500.5, 500.5)] + gt[1:])                   # under one pixel
    before = cv2.getNumThreads()
    cv2.setNumThreads(3)
    try:
        assert T.opencv_track(tiny, frames, "CSRT") == [(500.0, 500.0, 500.5, 500.5)] + [None] * 7
        assert cv2.getNumThreads() == 3                                     # restored after the run
    finally:
        cv2.setNumThreads(before)
    # a box on the frame's edge stays inside [0, 1000]
    edge = T.opencv_track(sot([(950.0, 0.0, 1000.0, 100.0)] + gt[1:]), frames, "CSRT")
    assert all(b is None or (0 <= b[0] < b[2] <= 1000 and 0 <= b[1] < b[3] <= 1000) for b in edge)


def test_objloc_records_read_boxes_and_crowds_are_cut_at_300_per_image():
    assert G.grade(objloc([(0.0, 0.0, 8.0, 6.0)]), "[[0, 0, 50, 50]]")["parsed_ok"] is True
    # 310 people (8 x 6 px each, 0-1000 values exact), every one answered: F1 counts all of them, COCO AP and
    # AR keep the first 300 detections of the image (maxDets 300, vantage_metrics.md §4)
    gt = [(8.0 * (k % 20), 6.0 * (k // 20), 8.0 * (k % 20) + 8, 6.0 * (k // 20) + 6) for k in range(310)]
    it = objloc(gt)
    reply = json.dumps([[b[0] * 1000 / W, b[1] * 1000 / H, b[2] * 1000 / W, b[3] * 1000 / H] for b in gt])
    m = G.task_metrics([it], [G.grade(it, reply)])
    for c in ("strict", "vantage"):
        assert m[c]["f1@0.5"] == 1.0 and m[c]["n_pred"] == 310
        assert m[c]["coco_ar"] == pytest.approx(300 / 310)
        assert m[c]["coco_ap"] == pytest.approx(np.mean(np.linspace(0, 1, 101) <= 300 / 310))


def test_metric_values_are_made_json_ready_at_any_depth():
    out = G._plain({"a": [np.float64(1.5), (np.int64(2), {"b": np.float32(0.25)})], 3: np.bool_(True),
                    "units": np.zeros(2)})
    assert out == {"a": [1.5, [2, {"b": 0.25}]], "3": True}
    assert type(out["a"][0]) is float and type(out["a"][1][0]) is int and type(out["3"]) is bool
    json.dumps(out, allow_nan=False)


class _ScriptedTracker:
    """Stands in for an OpenCV tracker: records what it is given, answers `script` per update
    ((ok, (x, y, w, h)) in frame pixels, or "raise" for a cv2.error)."""

    def __init__(self, script, log):
        self.script, self.log = list(script), log

    def init(self, frame, rect):
        import cv2
        self.log.append(("init", frame.shape, rect, frame[0, 0].tolist(), cv2.getNumThreads()))

    def update(self, frame):
        import cv2
        self.log.append(("update", frame[0, 0].tolist(), cv2.getNumThreads()))
        step = self.script.pop(0)
        if step == "raise":
            raise cv2.error("lost")
        return step


def _scripted(monkeypatch, script):
    import cv2
    log: list = []
    monkeypatch.setattr(cv2, "TrackerCSRT_create", lambda: _ScriptedTracker(script, log))
    return log


def test_opencv_track_scales_clips_and_drops_what_the_tracker_reports(monkeypatch):
    """Frames 200 x 100 px (0-1000 = px x 5 across, x 10 down), shown as RGB, given to OpenCV as BGR."""
    frames = [np.zeros((100, 200, 3), np.uint8) for _ in range(8)]
    for k, f in enumerate(frames):
        f[..., 0] = 10 * k                                                 # red channel = frame number x 10
    gt = [(100.0, 200.0, 300.0, 600.0)] + [None] * 7                       # px (20, 20) .. (60, 60)
    log = _scripted(monkeypatch, [
        (True, (30, 40, 10, 20)),        # inside: (150, 400, 200, 600)
        "raise",                          # lost on a cv2.error: None, tracking goes on
        (False, (0, 0, 5, 5)),           # reported lost: None
        (True, (-10, -5, 30, 20)),       # past the top-left corner: clipped to 0
        (True, (190, 90, 30, 30)),       # past the bottom-right corner: clipped to 1000
        (True, (50, 50, 0, 10)),         # zero width
        (True, (50, 50, 10, 0)),         # zero height
    ])
    track = T.opencv_track(sot(gt), frames)
    assert track == [gt[0], (150.0, 400.0, 200.0, 600.0), None, None, (0.0, 0.0, 100.0, 150.0),
                     (950.0, 900.0, 1000.0, 1000.0), None, None]
    kind, shape, rect, pixel, threads = log[0]
    assert kind == "init" and shape == (100, 200, 3) and rect == (20, 20, 40, 40)
    assert pixel == [0, 0, 0] and threads == 1                             # frame 0, one thread
    assert [e[1] for e in log[1:]] == [[0, 0, 10 * k] for k in range(1, 8)]   # BGR: red is last
    assert all(e[2] == 1 for e in log[1:])


def test_opencv_track_boxes_under_a_pixel_and_a_one_frame_item(monkeypatch):
    frames = [np.zeros((100, 200, 3), np.uint8) for _ in range(2)]
    log = _scripted(monkeypatch, [(True, (0.2, 0.2, 0.4, 0.4))])
    tiny = sot([(1.0, 1.0, 2.0, 2.0), None])                               # 0.2 x 0.1 px
    assert T.opencv_track(tiny, frames) == [(1.0, 1.0, 2.0, 2.0), (1.0, 2.0, 3.0, 6.0)]
    assert log[0][2] == (0, 0, 1, 1)                                      # at least one pixel each way
    one = sot([(100.0, 200.0, 300.0, 600.0)])
    _scripted(monkeypatch, [])
    assert T.opencv_track(one, frames[:1]) == [(100.0, 200.0, 300.0, 600.0)]


def test_only_the_named_trackers_are_created():
    import cv2
    assert hasattr(cv2, "TrackerMIL_create")                               # OpenCV has it, the baselines do not
    with pytest.raises(T.TrackerUnavailable, match="no TrackerMIL_create"):
        T._create("MIL")


def test_random_box_positions_cover_the_frame_and_are_per_item():
    n = 4000
    gt = [(100.0, 400.0, 225.0, 650.0)] + [None] * (n - 1)
    a = T.random_track(sot(gt, "single_object_tracking/c/a"))
    b = T.random_track(sot(gt, "single_object_tracking/c/b"))
    assert len(a) == n and a[0] == gt[0] and a[1:] != b[1:]                # one box per shown frame, seeded per item
    xs, ys = np.array([r[0] for r in a[1:]]), np.array([r[1] for r in a[1:]])
    x2, y2 = np.array([r[2] for r in a[1:]]), np.array([r[3] for r in a[1:]])
    assert xs.min() >= 0 and ys.min() >= 0 and x2.max() <= 1000 and y2.max() <= 1000
    assert xs.min() < 1 and ys.min() < 1 and x2.max() > 999 and y2.max() > 999   # uniform over every position
    # the published floor is reproducible: the first random box of this item and seed (cell_seed of
    # "vantage", "sot_random_box", the seed and the item id)
    assert a[1] == pytest.approx(RANDOM_BOX_1, abs=1e-9)


RANDOM_BOX_1 = (650.6451492234069, 230.5409319790881, 775.6451492234069, 480.5409319790881)
