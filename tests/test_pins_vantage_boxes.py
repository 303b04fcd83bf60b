"""Pins for scorers/vantage_boxes.py: IoU conventions, 0–1000 scaling, the two matchings and
COCO AP (metrics.md §0 and §4, vantage_metrics.md §4, values written out)."""
from __future__ import annotations

import numpy as np
import pytest

from scorers.vantage_boxes import (COCO_IOU_THRESHOLDS, COCO_RECALL_THRESHOLDS, box_iou, coco_ap,
                                   greedy_matches, hungarian_matches, iou_matrix, scale_box, segment_iou,
                                   valid_box)

A, B = [0, 0, 10, 10], [2, 0, 12, 10]
P1, P2 = [0.5, 0, 10.5, 10], [-3, 0, 7, 10]


def test_box_iou_worked_values():
    assert box_iou(P1, A) == pytest.approx(0.904762, abs=1e-6)
    assert box_iou(P1, B) == pytest.approx(0.739130, abs=1e-6)
    assert box_iou(P2, A) == pytest.approx(0.538462, abs=1e-6)
    assert box_iou(P2, B) == pytest.approx(0.333333, abs=1e-6)
    assert box_iou([0, 0, 10, 10], [5, 0, 15, 10]) == pytest.approx(1 / 3)
    assert box_iou([0, 0, 10, 10], [0, 0, 10, 20]) == 0.5
    assert box_iou([0, 0, 10, 10], [0, 5, 10, 15]) == pytest.approx(1 / 3)   # y overlap counts too
    assert box_iou(A, A) == 1.0


def test_box_iou_touching_disjoint_and_degenerate():
    assert box_iou([0, 0, 10, 10], [10, 0, 20, 10]) == 0.0
    assert box_iou([0, 0, 10, 10], [0, 10, 10, 20]) == 0.0
    assert box_iou([0, 0, 10, 10], [20, 20, 30, 30]) == 0.0
    assert box_iou([0, 0, 0, 0], [0, 0, 0, 0]) == 0.0           # union 0 -> 0, no division
    assert box_iou([5, 5, 5, 5], [0, 0, 10, 10]) == 0.0


def test_iou_matrix_shape_and_entries():
    m = iou_matrix([P1, P2], [A, B])
    assert m.shape == (2, 2)
    assert m[0, 1] == pytest.approx(0.739130, abs=1e-6) and m[1, 0] == pytest.approx(0.538462, abs=1e-6)
    assert iou_matrix([], [A]).shape == (0, 1)
    assert iou_matrix([A], []).shape == (1, 0)


@pytest.mark.parametrize("a,b,v", [
    ([2, 8], [3, 9], 0.714286), ([0, 5], [5, 10], 0.0), ([10, 20], [12, 17], 0.5), ([4, 6], [0, 20], 0.1),
    ([5, 5], [5, 5], 0.0), ([5, 5], [0, 10], 0.0), ([0, 10], [20, 30], 0.0), ([3, 9], [2, 8], 0.714286),
])
def test_segment_iou(a, b, v):
    assert segment_iou(a, b) == pytest.approx(v, abs=1e-6)


def test_scale_box_to_pixels_clipped_and_truncated():
    assert scale_box([100, 100, 200, 300], 2000, 1000) == (200.0, 100.0, 400.0, 300.0)
    assert scale_box([-50, -10, 1200, 1100], 2000, 1000) == (0.0, 0.0, 2000.0, 1000.0)
    assert scale_box([1, 1, 999, 999], 640, 480) == pytest.approx((0.64, 0.48, 639.36, 479.52))
    assert scale_box([1, 1, 999, 999], 640, 480, truncate=True) == (0.0, 0.0, 639.0, 479.0)
    assert scale_box([100.5, 0, 200, 300], 1000, 1000) == (100.5, 0.0, 200.0, 300.0)
    assert scale_box([100.5, 0, 200.9, 300], 1000, 1000, truncate=True) == (100.0, 0.0, 200.0, 300.0)
    assert scale_box([2000, 0, 3000, 5], 1000, 1000) == (1000.0, 0.0, 1000.0, 5.0)
    assert scale_box([1e308, -1e308, 1e308, 1e308], 2000, 1000, truncate=True) == (2000.0, 0.0, 2000.0, 1000.0)
    assert scale_box([-0.7, 0, 10, 10], 1000, 1000, truncate=True) == (0.0, 0.0, 10.0, 10.0)


def test_valid_box_edges():
    assert valid_box([0, 0, 1, 1])
    assert not valid_box([0, 0, 0, 1]) and not valid_box([0, 0, 1, 0])
    assert not valid_box([2, 0, 1, 1]) and not valid_box([0, 2, 1, 1])
    assert valid_box([0, 0, 20, 20], min_area=400)          # exactly the minimum area is kept
    assert not valid_box([0, 0, 20, 19.9], min_area=400)


def test_greedy_in_output_order_and_first_gt_wins_ties():
    m = iou_matrix([P1, P2], [A, B])
    assert greedy_matches(m, 0.5) == [0, -1]                   # p1 -> A, p2 finds only B (< 0.5)
    assert greedy_matches(m[::-1], 0.5) == [0, 1]              # [p2, p1]: p2 -> A, p1 -> B
    tie = np.array([[0.6, 0.6]])
    assert greedy_matches(tie, 0.5) == [0]                     # first GT wins (strict > update)
    assert greedy_matches(np.array([[0.5]]), 0.5) == [0]        # IoU exactly t is a TP
    assert greedy_matches(np.array([[0.4999]]), 0.5) == [-1]
    assert greedy_matches(np.array([[0.3, 0.7]]), 0.5) == [1]   # the best GT, not the first
    # a below-threshold best GT is not consumed: the next prediction may still take it
    assert greedy_matches(np.array([[0.4, 0.0], [0.9, 0.0]]), 0.5) == [-1, 0]
    assert greedy_matches(np.zeros((2, 0)), 0.5) == [-1, -1]
    assert greedy_matches(np.zeros((1, 1)), 0.0) == [-1]        # IoU 0 is never a match


def test_hungarian_is_order_free_and_counts_first():
    m = iou_matrix([P1, P2], [A, B])
    assert hungarian_matches(m, 0.5) == [1, 0]
    assert hungarian_matches(m[::-1], 0.5) == [0, 1]
    # summed IoU alone would take the 0.95 pair and leave one TP; the count comes first
    m2 = np.array([[0.95, 0.55], [0.55, 0.0]])
    assert hungarian_matches(m2, 0.5) == [1, 0]
    assert hungarian_matches(np.array([[0.5]]), 0.5) == [0]
    assert hungarian_matches(np.array([[0.4999]]), 0.5) == [-1]
    assert hungarian_matches(np.zeros((0, 3)), 0.5) == []
    assert hungarian_matches(np.zeros((2, 0)), 0.5) == [-1, -1]
    assert hungarian_matches(np.array([[0.9, 0.8]]), 0.5) == [0]      # IoU breaks ties in count


def test_coco_constants():
    assert len(COCO_IOU_THRESHOLDS) == 10 and COCO_IOU_THRESHOLDS[0] == 0.5 and COCO_IOU_THRESHOLDS[-1] == 0.95
    assert len(COCO_RECALL_THRESHOLDS) == 101 and COCO_RECALL_THRESHOLDS[-1] == 1.0


def test_coco_ap_worked_example():
    ap = coco_ap([([P1, P2], [A, B])])
    assert ap["ap"] == pytest.approx(0.454455, abs=1e-6)
    assert ap["ap50"] == pytest.approx(51 / 101, abs=1e-9)
    assert ap["ap75"] == pytest.approx(51 / 101, abs=1e-9)
    assert ap["ar"] == pytest.approx(0.45, abs=1e-9)


def test_coco_ap_edges():
    # two GT in two images, one perfect detection: recall 0.5 -> 51/101
    assert coco_ap([([A], [A]), ([], [B])])["ap"] == pytest.approx(51 / 101, abs=1e-9)
    assert coco_ap([([A], [A])])["ap"] == pytest.approx(1.0)
    assert coco_ap([([], [A])]) == {"ap": 0.0, "ap50": 0.0, "ap75": 0.0, "ar": 0.0}
    assert coco_ap([([A], [])]) == {"ap": -1.0, "ap50": -1.0, "ap75": -1.0, "ar": -1.0}
    assert coco_ap([]) == {"ap": -1.0, "ap50": -1.0, "ap75": -1.0, "ar": -1.0}
    # a false positive ranked first halves precision at every recall level
    assert coco_ap([([[50, 50, 60, 60], A], [A])])["ap"] == pytest.approx(0.5, abs=1e-9)
    # the FP ranked last costs nothing (precision envelope)
    assert coco_ap([([A, [50, 50, 60, 60]], [A])])["ap"] == pytest.approx(1.0, abs=1e-9)


def test_coco_ap_max_dets_truncates_per_image():
    gts = [[i * 20, 0, i * 20 + 10, 10] for i in range(5)]
    assert coco_ap([(gts, gts)], max_dets=5)["ap"] == pytest.approx(1.0)
    three = coco_ap([(gts, gts)], max_dets=3)
    assert three["ar"] == pytest.approx(0.6)
    assert three["ap"] == pytest.approx(61 / 101, abs=1e-9)   # recall levels 0..0.6 at precision 1


def test_coco_ap_later_gt_wins_ties():
    # two identical GTs, one detection: pycocotools takes the later GT; the result (1 TP) is the same
    # but a second detection equal to both then matches the remaining (first) GT
    g = [A, A]
    assert coco_ap([([A, A], g)])["ap"] == pytest.approx(1.0)
    assert coco_ap([([A], g)])["ar"] == pytest.approx(0.5)


def test_coco_ap_iou_exactly_at_threshold_matches():
    gt = [0, 0, 10, 10]
    half = [0, 0, 10, 20]              # IoU exactly 0.5: a TP at 0.5 only
    ap = coco_ap([([half], [gt])])
    assert ap["ap50"] == pytest.approx(1.0) and ap["ap75"] == 0.0
    assert ap["ap"] == pytest.approx(0.1)


def test_iou_matrix_equals_box_iou_exactly_including_degenerate_boxes():
    rng = np.random.default_rng(11)
    p = rng.uniform(0, 50, (30, 4))
    g = rng.uniform(0, 50, (20, 4))
    p[:5, 2:] = p[:5, :2]             # zero-area predictions
    g[:, 2:] = g[:, :2] + rng.uniform(0, 30, (20, 2))
    m = iou_matrix(p, g)
    assert np.array_equal(m, np.array([[box_iou(a, b) for b in g] for a in p]))
    with np.errstate(all="raise"):
        assert iou_matrix([[0, 0, 0, 0]], [[0, 0, 0, 0]]).tolist() == [[0.0]]
    assert iou_matrix([[0, 0, 10, 10]], [[0, 0, 10, 10], [10, 0, 20, 10]]).tolist() == [[1.0, 0.0]]


def test_greedy_skips_used_and_zero_iou_gts():
    m = np.array([[0.9, 0.0], [0.9, 0.0], [0.8, 0.6]])
    assert greedy_matches(m, 0.5) == [0, -1, 1]       # row 2: GT 0 used, GT 1 next best
    assert greedy_matches(np.array([[0.0, 0.0]]), 0.0) == [-1]
    assert greedy_matches(np.array([[0.2, 0.1]]), 0.0) == [0]


def test_tiny_boxes_and_the_exact_threshold_in_hungarian():
    assert box_iou([0, 0, 0.5, 0.5], [0, 0, 0.5, 0.5]) == 1.0          # a union below 1 px² is still a union
    assert iou_matrix([[0, 0, 0.5, 0.5]], [[0, 0, 0.5, 0.5]]).tolist() == [[1.0]]
    # a pair exactly at the threshold must weigh as a match, or the solver trades it away
    assert hungarian_matches(np.array([[0.5, 0.95], [0.0, 0.9]]), 0.5) == [0, 1]


def test_coco_default_max_dets_is_100():
    gts = [[float(i % 20) * 45, float(i // 20) * 45, float(i % 20) * 45 + 40, float(i // 20) * 45 + 40]
           for i in range(101)]
    assert coco_ap([(gts, gts)])["ar"] == pytest.approx(100 / 101)


def test_boxes_entirely_off_the_image_clip_to_zero_size():
    assert scale_box([-100, -100, -50, -50], 1000, 1000) == (0.0, 0.0, 0.0, 0.0)
    assert not valid_box(scale_box([-100, -100, -50, -50], 1000, 1000))
