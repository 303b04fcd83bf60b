"""Pins for scorers/vantage_metrics.py: every worked example of vantage_metrics.md §1–5, 7 and
metrics.md §2, 3, 5, 7 relevant to these tasks, thresholds just inside and outside, and each of
the harness rules shown by a case where `strict` and `vantage` differ."""
from __future__ import annotations

import numpy as np
import pytest

from scorers.vantage_metrics import (SOT_THRESHOLDS, check_compat, choice_accuracy, ev_codes,
                                     event_verification, micro_f1, object_localization, objloc_image,
                                     referring_expressions, referring_iou, single_object_tracking,
                                     temporal_from_ious, temporal_ious, temporal_localization,
                                     track_frames, track_scores)

X = pytest.approx


def test_compat_is_checked():
    assert check_compat("strict") == "strict" and check_compat("vantage") == "vantage"
    with pytest.raises(ValueError) as e:
        check_compat("official")
    assert str(e.value) == "compat must be one of ('strict', 'vantage'), not 'official'"
    for fn in (lambda: event_verification(["yes"], ["yes"], "x"), lambda: referring_iou([], [], 1, 1, "x"),
               lambda: temporal_ious([], "x"), lambda: track_scores([], [], "x"),
               lambda: objloc_image([], [], 1, 1, "x"), lambda: temporal_from_ious([], [], "x")):
        with pytest.raises(ValueError):
            fn()


# ---------------------------------------------------------------- Event Verification (§1, metrics.md §7)

Y = ["yes", "yes", "yes", "no", "no", "no", "no", "yes"]
P = ["yes", "no", "yes", "no", "no", "yes", "no", "yes"]
P_INVALID = ["yes", "no", "yes", "no", "no", "yes", None, "yes"]


@pytest.mark.parametrize("compat", ["strict", "vantage"])
def test_ev_worked_example(compat):
    r = event_verification(Y, P, compat)
    assert (r["macro_f1"], r["sensitivity"], r["specificity"]) == (0.75, 0.75, 0.75)
    assert r["balanced_accuracy"] == 0.75 and r["accuracy"] == 0.75
    assert (r["n_items"], r["n_scored"], r["n_invalid"], r["n_positive"], r["n_negative"]) == (8, 8, 0, 4, 4)


def test_ev_invalid_answer_dropped_in_vantage_kept_as_error_in_strict():
    v = event_verification(Y, P_INVALID, "vantage")
    assert v["macro_f1"] == X(0.708333, abs=1e-6)
    assert v["sensitivity"] == 0.75 and v["specificity"] == X(2 / 3)
    assert (v["n_scored"], v["n_invalid"], v["n_negative"]) == (7, 1, 3)
    assert v["accuracy"] == X(5 / 7)
    s = event_verification(Y, P_INVALID, "strict")
    assert s["macro_f1"] == X(0.660714, abs=1e-6)
    assert s["sensitivity"] == 0.75 and s["specificity"] == 0.5
    assert (s["n_scored"], s["n_invalid"], s["n_negative"]) == (8, 1, 4)
    assert s["balanced_accuracy"] == 0.625 and s["accuracy"] == 0.625


def test_ev_constant_predictors_on_the_papers_split():
    truth = ["yes"] * 104 + ["no"] * 59
    for compat in ("strict", "vantage"):
        no = event_verification(truth, ["no"] * 163, compat)
        assert no["macro_f1"] == X(0.265766, abs=1e-6) and no["specificity"] == 1.0 and no["sensitivity"] == 0.0
        yes = event_verification(truth, ["yes"] * 163, compat)
        assert yes["macro_f1"] == X(0.389513, abs=1e-6) and yes["sensitivity"] == 1.0 and yes["specificity"] == 0.0
    assert event_verification(truth, ["yes"] * 91 + ["no"] * 13 + ["no"] * 45 + ["yes"] * 14,
                              "vantage")["sensitivity"] == X(0.8750)


def test_ev_labels_present_vs_pinned():
    # one class only, all right: vantage averages over the one label present (1.0); strict pins
    # yes and no, and the empty class scores 0 (0.5)
    assert event_verification(["no"] * 3, ["no"] * 3, "vantage")["macro_f1"] == 1.0
    assert event_verification(["no"] * 3, ["no"] * 3, "strict")["macro_f1"] == 0.5
    r = event_verification(["no"] * 3, ["no"] * 3, "strict")
    assert r["sensitivity"] is None and r["specificity"] == 1.0 and r["balanced_accuracy"] is None
    # every answer invalid: vantage has nothing to score; strict scores 0
    v = event_verification(["yes", "no"], [None, None], "vantage")
    assert v["macro_f1"] is None and v["accuracy"] is None and v["n_scored"] == 0
    assert event_verification(["yes", "no"], [None, None], "strict")["macro_f1"] == 0.0
    assert event_verification(["yes", "no"], ["no", "no"], "vantage")["macro_f1"] == X((0 + 2 / 3) / 2)


def test_ev_inputs_checked():
    assert ev_codes(["yes", "no", None, "Yes", "maybe"]).tolist() == [1, 0, -1, -1, -1]
    with pytest.raises(ValueError) as e:
        event_verification(["yes", "maybe"], ["yes", "no"])
    assert str(e.value) == "Event Verification truth must be 'yes' or 'no'"
    with pytest.raises(ValueError) as e:
        event_verification(["yes"], ["yes", "no"])
    assert str(e.value) == "truth and answers differ in length"
    assert ev_codes([]).tolist() == []
    assert event_verification(["yes"], ["yes"])["macro_f1"] == 0.5   # default is strict


# ---------------------------------------------------------------- accuracy (§2)

def test_choice_accuracy_counts_unparsed_as_wrong():
    r = choice_accuracy(["A", "B", "C", "D"], ["A", None, "C", "A"])
    assert r == {"accuracy": 0.5, "n_items": 4, "n_invalid": 1}
    assert choice_accuracy([], [])["accuracy"] is None
    assert choice_accuracy(["A"], [None])["accuracy"] == 0.0
    with pytest.raises(ValueError) as e:
        choice_accuracy(["A"], [])
    assert str(e.value) == "truth and answers differ in length"


# ---------------------------------------------------------------- Referring Expressions (§3, metrics.md §5)

W, H = 2000, 1000
REFEX = [([[100, 100, 200, 300]], [[200, 100, 400, 300]]),
         ([[100, 100, 200, 300], [500, 500, 600, 600]], [[1000, 500, 1200, 600]]),
         ([[150, 100, 250, 300]], [[200, 100, 400, 300]]),
         ([], [[0, 0, 10, 10]])]


def test_refex_vantage_worked_example():
    ious = [referring_iou(p, g, W, H, "vantage") for p, g in REFEX]
    assert ious == X([1.0, 1.0, 0.333333, 0.0], abs=1e-6)
    r = referring_expressions(ious)
    assert r["miou"] == X(0.583333, abs=1e-6) and r["acc@0.5"] == 0.5
    assert r["acc@0.25"] == 0.75 and r["acc@0.75"] == 0.5 and r["n_items"] == 4


def test_refex_strict_scores_the_first_box_only():
    ious = [referring_iou(p, g, W, H, "strict") for p, g in REFEX]
    assert ious == X([1.0, 0.0, 0.333333, 0.0], abs=1e-6)     # 2nd: the hit is the second box
    assert referring_expressions(ious)["miou"] == X(1 / 3)


def test_refex_metrics_md_example_and_the_half_tie():
    gt = [[0, 0, 10, 10]]
    preds = [[[0, 0, 10, 10]], [[5, 0, 15, 10]], [[0, 0, 10, 20]], []]
    for compat in ("strict", "vantage"):
        ious = [referring_iou(p, gt, 1000, 1000, compat) for p in preds]
        assert ious == X([1, 0.333333, 0.5, 0], abs=1e-6)
        r = referring_expressions(ious)
        assert r["miou"] == X(0.458333, abs=1e-6) and r["acc@0.5"] == 0.5   # '>' would give 0.25
    assert referring_expressions([0.4999])["acc@0.5"] == 0.0
    assert referring_expressions([0.25, 0.75])["acc@0.25"] == 1.0 and referring_expressions([0.75])["acc@0.75"] == 1.0
    assert referring_expressions([]) == {"miou": None, "n_items": 0, "acc@0.25": None, "acc@0.5": None,
                                         "acc@0.75": None}


def test_refex_empty_gt_and_degenerate_boxes():
    assert referring_iou([], [], W, H, "vantage") == 0.0          # harness: never correct
    assert referring_iou([], [], W, H, "strict") == 1.0           # a correct abstention
    assert referring_iou([[1, 1, 5, 5]], [], W, H, "strict") == 0.0
    assert referring_iou([[1, 1, 5, 5]], [], W, H, "vantage") == 0.0
    gt = [[200, 100, 400, 300]]
    bad_first = [[300, 300, 100, 100], [100, 100, 200, 300]]       # reversed box, then the hit
    assert referring_iou(bad_first, gt, W, H, "vantage") == 1.0    # degenerate dropped, 2nd box hits
    assert referring_iou(bad_first, gt, W, H, "strict") == 0.0     # the first box is degenerate
    assert referring_iou([[-100, -100, 1500, 1500]], [[0, 0, 2000, 1000]], W, H, "strict") == 1.0  # clipped
    assert referring_iou([[-100, -100, 1500, 1500]], [[0, 0, 2000, 1000]], W, H, "vantage") == 1.0
    # vantage takes the best GT of several; strict the best GT for its first box
    two = [[0, 0, 100, 100], [200, 100, 400, 300]]
    assert referring_iou([[100, 100, 200, 300]], two, W, H, "strict") == 1.0
    assert referring_iou([[100, 100, 200, 300]], two, W, H, "vantage") == 1.0


# ---------------------------------------------------------------- Object Localization (§4, metrics.md §4)

# the worked example scaled x10 and shifted by 50 so that int truncation keeps every IoU
OA, OB = [50, 0, 150, 100], [70, 0, 170, 100]
O1, O2 = [55, 0, 155, 100], [20, 0, 120, 100]


def test_objloc_greedy_order_dependence_in_vantage_mode():
    r = object_localization([([O1, O2], [OA, OB], 1000, 1000)], "vantage")
    assert r["f1@0.5"] == 0.5 and r["precision@0.5"] == 0.5 and r["recall@0.5"] == 0.5
    assert r["f1_by_threshold"][0.95] == 0.0 and r["f1_by_threshold"][0.9] == 0.5
    assert r["f1_mean"] == X(0.45)
    assert list(r["f1_by_threshold"]) == X([0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95])
    assert object_localization([([O2, O1], [OA, OB], 1000, 1000)], "vantage")["f1@0.5"] == 1.0


def test_objloc_hungarian_in_strict_mode_is_order_free():
    for order in ([O1, O2], [O2, O1]):
        r = object_localization([(order, [OA, OB], 1000, 1000)], "strict")
        assert r["f1@0.5"] == 1.0 and r["f1_by_threshold"][0.55] == 0.5 and r["f1_mean"] == X(0.5)


def test_objloc_coco_ap_on_the_worked_example_and_order():
    r = object_localization([([O1, O2], [OA, OB], 1000, 1000)], "strict")
    assert r["coco_ap"] == X(0.454455, abs=1e-6) and r["coco_ap50"] == X(51 / 101) and r["coco_ar"] == X(0.45)
    assert r["coco_ap75"] == X(51 / 101)
    r2 = object_localization([([O2, O1], [OA, OB], 1000, 1000)], "strict")
    assert r2["coco_ap50"] == X(1.0)


def test_objloc_int_truncation_only_in_vantage_mode():
    # 0-1000 box [0.5, 0, 10.5, 10] on a 1000-px image: vantage truncates to [0, 0, 10, 10]
    gt = [[0, 0, 10, 10]]
    v = objloc_image([[0.5, 0, 10.5, 10]], gt, 1000, 1000, "vantage")
    s = objloc_image([[0.5, 0, 10.5, 10]], gt, 1000, 1000, "strict")
    assert v["preds"] == [(0.0, 0.0, 10.0, 10.0)] and v["tp"][0.95] == 1
    assert s["preds"] == [(0.5, 0.0, 10.5, 10.0)] and s["tp"][0.95] == 0 and s["tp"][0.9] == 1


def test_objloc_micro_counts_and_min_area():
    imgs = [([[0, 0, 100, 100], [500, 500, 600, 600]], [[0, 0, 100, 100]], 1000, 1000),
            ([], [[0, 0, 50, 50], [100, 100, 110, 110]], 1000, 1000)]
    r = object_localization(imgs, "strict")
    assert (r["n_pred"], r["n_gt"], r["n_images"]) == (2, 3, 2)
    assert r["f1@0.5"] == X(2 * 1 / 5) and r["precision@0.5"] == 0.5 and r["recall@0.5"] == X(1 / 3)
    assert r["units"].tolist() == [[1, 2, 1], [0, 0, 2]]
    # min_area 400 px² drops the 10x10 GT and keeps the 20x20-or-larger boxes on both sides
    r2 = object_localization(imgs, "strict", min_area=400)
    assert (r2["n_pred"], r2["n_gt"]) == (2, 2)
    r3 = object_localization([([[0, 0, 20, 20]], [[0, 0, 20, 20]], 1000, 1000)], "vantage", min_area=400)
    assert r3["n_pred"] == 1 and r3["f1@0.5"] == 1.0
    r4 = object_localization([([[0, 0, 20, 19]], [[0, 0, 20, 19]], 1000, 1000)], "vantage", min_area=400)
    assert (r4["n_pred"], r4["n_gt"], r4["f1@0.5"]) == (0, 0, 0.0)


def test_objloc_duplicates_and_empties():
    a = [[0, 0, 100, 100]]
    for compat in ("strict", "vantage"):
        assert object_localization([(a + a, a, 1000, 1000)], compat)["f1@0.5"] == X(0.666667, abs=1e-6)
        assert object_localization([([], a, 1000, 1000)], compat)["f1@0.5"] == 0.0
        assert object_localization([(a, [], 1000, 1000)], compat)["f1@0.5"] == 0.0
    # nothing predicted and nothing there: strict 1, vantage 0 (P = R = 0 by the harness's rule)
    assert object_localization([([], [], 1000, 1000)], "strict")["f1@0.5"] == 1.0
    assert object_localization([([], [], 1000, 1000)], "vantage")["f1@0.5"] == 0.0
    assert object_localization([([], [], 1000, 1000)], "vantage")["precision@0.5"] is None


def test_objloc_empty_set():
    for compat in ("strict", "vantage"):
        r = object_localization([], compat)
        assert r["units"].shape == (0, 3) and (r["n_images"], r["n_pred"], r["n_gt"]) == (0, 0, 0)
        assert r["coco_ap"] == -1.0 and r["precision@0.5"] is None and r["recall@0.5"] is None
    assert object_localization([], "strict")["f1@0.5"] == 1.0 and object_localization([], "vantage")["f1@0.5"] == 0.0


def test_micro_f1_rules():
    assert micro_f1(1, 2, 2, "strict") == 0.5 and micro_f1(1, 2, 2, "vantage") == 0.5
    assert micro_f1(2, 2, 4, "vantage") == X(2 * 1 * 0.5 / 1.5) and micro_f1(2, 2, 4, "strict") == X(4 / 6)
    assert micro_f1(0, 0, 0, "strict") == 1.0 and micro_f1(0, 0, 0, "vantage") == 0.0
    assert micro_f1(0, 3, 0, "vantage") == 0.0 and micro_f1(0, 0, 3, "vantage") == 0.0
    assert micro_f1(0, 3, 0, "strict") == 0.0


def test_objloc_huge_coordinates_do_not_overflow_the_int_truncation():
    whole = [[-1e308, -1e308, 1e308, 1e308]]
    for compat in ("strict", "vantage"):
        r = object_localization([(whole, [[0, 0, 2000, 1000]], 2000, 1000)], compat)
        assert r["f1@0.5"] == 1.0


def test_objloc_iou_exactly_half_is_a_tp():
    gt = [[0, 0, 100, 100]]
    for compat in ("strict", "vantage"):
        assert objloc_image([[0, 0, 100, 200]], gt, 1000, 1000, compat)["tp"][0.5] == 1
        assert objloc_image([[0, 0, 100, 201]], gt, 1000, 1000, compat)["tp"][0.5] == 0


# ---------------------------------------------------------------- Temporal Localization (§5, metrics.md §3)

TL = [("v1", [(2, 8)], (3, 9), 20), ("v1", [(10, 20)], (12, 17), 20), ("v1", [(4, 6)], None, 20),
      ("v2", [(0, 5)], (5, 10), 30)]


def test_temporal_vantage_worked_example():
    assert temporal_ious(TL, "vantage") == X([0.714286, 0.5, 0.1, 0.0], abs=1e-6)
    r = temporal_localization(TL, "vantage")
    assert r["miou"] == X(0.219048, abs=1e-6) and r["r@0.5"] == X(0.333333, abs=1e-6)
    assert r["r@0.3"] == X(1 / 3) and r["r@0.7"] == X(1 / 6)
    assert (r["n_queries"], r["n_videos"], r["n_unparsed"]) == (4, 2, 1)


def test_temporal_strict_unparsed_is_zero_and_queries_pooled():
    assert temporal_ious(TL, "strict") == X([0.714286, 0.5, 0.0, 0.0], abs=1e-6)
    r = temporal_localization(TL, "strict")
    assert r["miou"] == X(0.303571, abs=1e-6)
    assert (r["r@0.3"], r["r@0.5"], r["r@0.7"]) == (0.5, 0.5, 0.25)
    # the two vantage rules apart: whole-clip fallback with query pooling, zero with video means
    assert temporal_from_ious(["v1"] * 3 + ["v2"], temporal_ious(TL, "vantage"), "strict")["miou"] == X(0.328571, abs=1e-6)
    assert np.mean(temporal_ious(TL, "strict")[:3]) == X(0.404762, abs=1e-6)


def test_temporal_clip_swap_and_multi_gt():
    rows = [("a", [(2, 8)], (9, 3), 20),             # reversed -> [3, 9]
            ("a", [(15, 20)], (15, 40), 20),         # clipped to the 20 s clip -> [15, 20]
            ("a", [(0, 2), (10, 14)], (10, 14), 20),  # best of two GT windows
            ("a", [(0, 4)], (-5, 2), 20),            # clipped at 0 -> [0, 2]
            ("a", [], (1, 2), 20)]                   # no GT window scores 0
    for compat in ("strict", "vantage"):
        assert temporal_ious(rows, compat) == X([0.714286, 1.0, 1.0, 0.5, 0.0], abs=1e-6)


def test_temporal_recall_threshold_is_inclusive_and_empty_is_none():
    r = temporal_from_ious(["a", "a"], [0.5, 0.4999], "strict")
    assert r["r@0.5"] == 0.5 and r["r@0.3"] == 1.0 and r["r@0.7"] == 0.0
    r = temporal_from_ious(["a", "b"], [0.7, 0.3], "vantage")
    assert r["r@0.7"] == 0.5 and r["r@0.3"] == 1.0
    e = temporal_from_ious([], [], "vantage")
    assert e == {"n_queries": 0, "n_videos": 0, "miou": None, "r@0.3": None, "r@0.5": None, "r@0.7": None}


# ---------------------------------------------------------------- Single Object Tracking (§7, metrics.md §2)

def box(x, y, w=20, h=20):
    return (x, y, x + w, y + h)


GT = [box(10, 10), box(12, 10), box(14, 10), box(16, 10), box(18, 10), box(20, 10), box(22, 10)]
PRED = [None, box(12, 10), box(12, 10), None, box(40, 40), box(20, 11), box(20, 11)]


def test_sot_vantage_worked_example():
    assert [r[1] for r in track_frames(GT, PRED)] == X([1, 0.818182, 0, 0, 0.904762, 0.746725], abs=1e-6)
    r = track_scores(GT, PRED, "vantage")
    assert r["auc"] == X(0.587302, abs=1e-6) and r["mean_iou"] == X(0.578278, abs=1e-6)
    assert r["p@0.5"] == X(2 / 3) and r["freeze_rate"] == 0.5 and (r["n_eval"], r["n_null"]) == (6, 1)


def test_sot_strict_success_is_strictly_greater():
    r = track_scores(GT, PRED, "strict")
    assert r["auc"] == X(0.563492, abs=1e-6) and r["mean_iou"] == X(0.578278, abs=1e-6)
    assert r["freeze_rate"] == X(2 / 3)   # pairs (1,2) and (5,6) of (1,2), (4,5), (5,6); the null breaks (2,3),(3,4)


def test_sot_static_box_and_floors():
    static = [None] + [box(10, 10)] * 6
    r = track_scores(GT, static, "vantage")
    assert r["auc"] == X(0.507937, abs=1e-6) and r["freeze_rate"] == 1.0
    assert track_scores(GT, static, "strict")["freeze_rate"] == 1.0
    wrong = [None] + [box(900, 900)] * 6
    assert track_scores(GT, wrong, "vantage")["auc"] == X(1 / 21)       # the 4.76 floor
    assert track_scores(GT, wrong, "strict")["auc"] == 0.0
    assert track_scores(GT, GT, "vantage")["auc"] == 1.0                # GT replay
    assert track_scores(GT, GT, "strict")["auc"] == X(20 / 21)           # 95.24 under '>'
    assert track_scores(GT, [None] * 7, "vantage")["auc"] == X(1 / 21)   # all null: IoU 0 everywhere
    assert track_scores(GT, [None] * 7, "vantage")["freeze_rate"] == 0.0
    assert track_scores(GT, [None] * 7, "strict")["freeze_rate"] is None


def test_sot_metrics_md_example_with_an_init_frame_in_front():
    gt = [None] + [box(10, 10), box(12, 10), box(14, 10), box(16, 10), box(18, 10), box(20, 10)]
    pred = [None] + [box(10, 10), box(12, 10), box(12, 10), None, box(40, 40), box(20, 11)]
    r = track_scores(gt, pred, "strict")
    assert r["auc"] == X(0.603175, abs=1e-6) and r["mean_iou"] == X(0.620491, abs=1e-6)
    assert r["p@0.5"] == X(0.666667, abs=1e-6) and r["freeze_rate"] == X(1 / 3)


def test_sot_tau_edges():
    assert SOT_THRESHOLDS[0] == 0.0 and SOT_THRESHOLDS[10] == 0.5 and SOT_THRESHOLDS[-1] == 1.0 and len(SOT_THRESHOLDS) == 21
    gt = [box(0, 0), box(0, 0, 20, 20)]
    half = [None, (0, 0, 20, 40)]              # IoU exactly 0.5: >= passes 0.0..0.5 (11), > passes 0.0..0.45 (10)
    assert track_scores(gt, half, "vantage")["auc"] == X(11 / 21)
    assert track_scores(gt, half, "strict")["auc"] == X(10 / 21)
    assert track_scores(gt, half, "vantage")["p@0.5"] == 1.0
    assert track_scores(gt, [None, (0, 0, 20, 40.01)], "strict")["p@0.5"] == 0.0


def test_sot_absent_target_and_prediction_cleaning():
    gt = [box(0, 0), None, None, box(0, 0), box(0, 0)]
    pred = [None, None, box(0, 0), (0, 0, 0, 20), (-50, -50, 20, 20)]
    rows = track_frames(gt, pred)
    # frame 1 skipped (absent, null); 2 false detection; 3 degenerate -> null; 4 clipped to [0,0,20,20]
    assert [(r[0], r[1], r[3]) for r in rows] == [(2, 0.0, False), (3, 0.0, True), (4, 1.0, True)]
    assert rows[2][2] == (0.0, 0.0, 20.0, 20.0) and rows[1][2] is None
    r = track_scores(gt, pred, "vantage")
    assert (r["n_eval"], r["n_null"]) == (3, 1) and r["mean_iou"] == X(1 / 3)
    assert r["freeze_rate"] == 0.0          # n_predicted 2 (the false detection counts) -> 0 / 1
    assert track_scores([box(0, 0), None], [None, None], "vantage")["auc"] is None
    short = track_scores(GT, PRED[:3], "vantage")                  # missing tail = nulls
    assert short["n_eval"] == 6 and short["n_null"] == 4
    big = [None, (0, 0, 2000, 2000)]
    assert track_frames([box(0, 0), (0, 0, 1000, 1000)], big)[0][1] == 1.0   # clipped to 1000


def test_sot_vantage_freeze_keeps_the_last_non_null_and_ignores_false_detections():
    gt = [box(0, 0), box(0, 0), box(2, 0), None, box(4, 0), box(6, 0)]
    pred = [None, box(0, 0), None, box(0, 0), box(0, 0), box(50, 50)]
    # f2 null (prev stays f1), f3 false detection (no check, no prev update), f4 == f1 -> frozen,
    # f5 moved; n_predicted = 4 (f1, f3, f4, f5) -> 1 / 3
    assert track_scores(gt, pred, "vantage")["freeze_rate"] == X(1 / 3)
    # strict: consecutive predicted frames (3,4) frozen, (4,5) not; (1,2),(2,3) broken by the null
    assert track_scores(gt, pred, "strict")["freeze_rate"] == X(1 / 2)
    # a 0.95 IoU with the previous box is frozen, just under is not
    g2 = [box(0, 0, 100, 100)] * 3
    p95 = [None, box(0, 0, 100, 100), (0, 0, 100, 95)]
    p94 = [None, box(0, 0, 100, 100), (0, 0, 100, 94.9)]
    for compat in ("strict", "vantage"):
        assert track_scores(g2, p95, compat)["freeze_rate"] == 1.0
        assert track_scores(g2, p94, compat)["freeze_rate"] == 0.0


def test_sot_overall_is_the_mean_over_tracklets():
    tracks = [(GT, PRED), (GT, [None] + [box(10, 10)] * 6), ([box(0, 0), None], [None, None])]
    r = single_object_tracking(tracks, "vantage")
    assert r["auc"] == X((0.587302 + 0.507937) / 2, abs=1e-6)
    assert r["freeze_rate"] == X(0.75) and (r["n_tracklets"], r["n_scored"]) == (3, 2)
    assert r["mean_iou"] == X((0.578278 + 0.505869) / 2, abs=1e-6)
    assert r["p@0.5"] == X((2 / 3 + 0.5) / 2)
    assert np.isnan(r["units"][2]) and r["units"][:2] == X([0.587302, 0.507937], abs=1e-6)
    e = single_object_tracking([], "strict")
    assert e["auc"] is None and e["n_tracklets"] == 0
    s = single_object_tracking([(GT, [None] * 7)], "strict")
    assert s["freeze_rate"] is None and s["auc"] == 0.0


# ---------------------------------------------------------------- hostile replies, parse + score

GARBAGE = [None, 7, "", "x" * 70_000, "[" * 3000 + "]" * 3000, '{"a": NaN}', "[NaN, 0, 10, 10]",
           "[1e308, 1e308, -1e308, 1e308]", '{"frame_1": [1e308, -1e308, 1e308, 1e308]}',
           '{"start": -1e308, "end": "x"}', "\x00" * 1000, '[{"bbox_2d": [5, 5, 5, 5]}]']


@pytest.mark.parametrize("reply", GARBAGE)
@pytest.mark.parametrize("compat", ["strict", "vantage"])
def test_garbage_replies_score_as_wrong_end_to_end(reply, compat):
    from scorers.vantage_parse import parse_boxes, parse_choice, parse_segment, parse_track, parse_yes_no

    assert referring_iou(parse_boxes(reply), [[0, 0, 10, 10]], 100, 100, compat) == 0.0
    assert object_localization([(parse_boxes(reply), [[0, 0, 50, 50]], 100, 100)], compat)["f1@0.5"] == 0.0
    assert choice_accuracy(["A"], [parse_choice(reply)])["accuracy"] == 0.0
    ev = event_verification(["yes", "no"], [parse_yes_no(reply), "no"], compat)
    assert ev["sensitivity"] in (0.0, None)
    gt = [box(0, 0), box(0, 0)]
    assert track_scores(gt, parse_track(reply, 2), compat)["mean_iou"] == 0.0
    seg = parse_segment(reply)
    iou = temporal_ious([("v", [(0, 1)], seg, 100)], compat)[0]
    if seg is None:
        assert iou == (0.01 if compat == "vantage" else 0.0)     # unparsed: whole clip vs nothing
    else:                                                       # two numbers read by the fallback
        assert 0.0 <= iou <= 1.0


def test_defaults_are_strict_and_keep_every_box():
    gt = [[200, 100, 400, 300]]
    two = [[100, 100, 200, 300], [500, 500, 600, 600]]
    assert referring_iou(two[::-1], gt, 2000, 1000) == 0.0                   # strict: first box only
    assert referring_iou([], [], 2000, 1000) == 1.0
    a = [[50, 0, 150, 100], [70, 0, 170, 100]]
    p = [[55, 0, 155, 100], [20, 0, 120, 100]]
    assert objloc_image(p, a, 1000, 1000)["tp"][0.5] == 2                     # Hungarian
    assert object_localization([(p, a, 1000, 1000)])["f1@0.5"] == 1.0
    tiny = [[0, 0, 0.5, 0.5]]                                               # 0.25 px²: kept by default
    assert objloc_image(tiny, tiny, 1000, 1000)["n_pred"] == 1
    assert object_localization([(tiny, tiny, 1000, 1000)])["n_gt"] == 1
    assert temporal_ious(TL) == X([0.714286, 0.5, 0.0, 0.0], abs=1e-6)
    assert temporal_localization(TL)["miou"] == X(0.303571, abs=1e-6)
    assert temporal_from_ious(["v1", "v1", "v1", "v2"], [0.714286, 0.5, 0.0, 0.0])["miou"] == X(0.303571, abs=1e-6)
    assert track_scores(GT, PRED)["auc"] == X(0.563492, abs=1e-6)
    assert single_object_tracking([(GT, PRED)])["auc"] == X(0.563492, abs=1e-6)


def test_coco_max_dets_default_100_and_passed_through():
    gts = [[float(i % 20) * 45, float(i // 20) * 45, float(i % 20) * 45 + 40, float(i // 20) * 45 + 40]
           for i in range(101)]
    assert object_localization([(gts, gts, 1000, 1000)])["coco_ar"] == X(100 / 101)
    assert object_localization([(gts, gts, 1000, 1000)], max_dets=300)["coco_ar"] == X(1.0)
    assert object_localization([(gts, gts, 1000, 1000)], max_dets=300)["f1@0.5"] == 1.0


def test_empty_tracklet_result_and_unit_types():
    assert track_scores([box(0, 0), None], [None, None]) == {"auc": None, "mean_iou": None, "p@0.5": None,
                                                              "freeze_rate": None, "n_eval": 0, "n_null": 0}
    r = single_object_tracking([(GT, PRED), ([box(0, 0), None], [None, None])], "vantage")
    assert r["units"].dtype == float


def test_codes_default_is_strict():
    from scorers.vantage_metrics import event_verification_from_codes
    t, p = ev_codes(Y), ev_codes(P_INVALID)
    assert event_verification_from_codes(t, p)["macro_f1"] == X(0.660714, abs=1e-6)
