"""Cross-checks of VANTAGE metrics against the reference libraries (the `test` extra):
scikit-learn for EV macro-F1 / recall in both compat modes, pycocotools for COCO AP.

Random cases come from seeded Generators; the reference is the library, never our own code."""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval
from sklearn.metrics import classification_report, f1_score, recall_score

from scorers.vantage_boxes import coco_ap
from scorers.vantage_metrics import event_verification


@pytest.mark.parametrize("seed", range(25))
def test_ev_macro_f1_matches_sklearn(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    truth = list(rng.choice(["yes", "no"], n))
    answers = [str(a) if a != "x" else None for a in rng.choice(["yes", "no", "x"], n, p=[0.45, 0.35, 0.2])]
    strict = event_verification(truth, answers, "strict")
    coded = [a if a is not None else "invalid" for a in answers]
    assert strict["macro_f1"] == pytest.approx(
        f1_score(truth, coded, labels=["yes", "no"], average="macro", zero_division=0), abs=1e-12)
    keep = [i for i, a in enumerate(answers) if a is not None]
    van = event_verification(truth, answers, "vantage")
    if not keep:
        assert van["macro_f1"] is None
        return
    t, p = [truth[i] for i in keep], [answers[i] for i in keep]
    rep = classification_report(t, p, output_dict=True, zero_division=0)
    assert van["macro_f1"] == pytest.approx(rep["macro avg"]["f1-score"], abs=1e-12)
    if "yes" in t:
        assert van["sensitivity"] == pytest.approx(recall_score(t, p, pos_label="yes", average="binary",
                                                                labels=["yes", "no"], zero_division=0))
    if "no" in t:
        assert van["specificity"] == pytest.approx(recall_score(t, p, pos_label="no", average="binary",
                                                                labels=["yes", "no"], zero_division=0))


def _pycoco(images, max_dets):
    gt = {"images": [], "annotations": [], "categories": [{"id": 1, "name": "person"}]}
    dets = []
    aid = 1
    for i, (preds, gts) in enumerate(images, start=1):
        gt["images"].append({"id": i, "width": 1000, "height": 1000})
        for g in gts:
            w, h = g[2] - g[0], g[3] - g[1]
            gt["annotations"].append({"id": aid, "image_id": i, "category_id": 1, "bbox": [g[0], g[1], w, h],
                                      "area": w * h, "iscrowd": 0})
            aid += 1
        for p in preds:
            dets.append({"image_id": i, "category_id": 1, "bbox": [p[0], p[1], p[2] - p[0], p[3] - p[1]],
                         "score": 1.0})
    with contextlib.redirect_stdout(io.StringIO()):
        c = COCO()
        c.dataset = gt
        c.createIndex()
        d = c.loadRes(dets)
        e = COCOeval(c, d, "bbox")
        e.params.maxDets = [1, 10, max_dets]
        e.evaluate()
        e.accumulate()
    prec = e.eval["precision"][:, :, 0, 0, -1]     # T x R, category 0, area all, the largest maxDets
    rec = e.eval["recall"][:, 0, 0, -1]
    return {"ap": float(prec.mean()), "ap50": float(prec[0].mean()), "ap75": float(prec[5].mean()),
            "ar": float(rec.mean())}


def _random_images(rng, n_images, max_boxes):
    images = []
    for _ in range(n_images):
        gts = []
        for _ in range(int(rng.integers(0, max_boxes))):
            x, y = rng.uniform(0, 900, 2)
            w, h = rng.uniform(5, 100, 2)
            gts.append([float(x), float(y), float(x + w), float(y + h)])
        preds = []
        for g in gts:
            if rng.random() < 0.7:  # a noisy hit
                j = rng.normal(0, 6, 4)
                preds.append([g[0] + j[0], g[1] + j[1], max(g[0] + j[0] + 1, g[2] + j[2]),
                              max(g[1] + j[1] + 1, g[3] + j[3])])
        for _ in range(int(rng.integers(0, 4))):  # false positives
            x, y = rng.uniform(0, 900, 2)
            preds.append([float(x), float(y), float(x + 40), float(y + 60)])
        order = rng.permutation(len(preds))
        images.append(([preds[k] for k in order], gts))
    return images


@pytest.mark.parametrize("seed", range(12))
def test_coco_ap_matches_pycocotools(seed):
    rng = np.random.default_rng(1000 + seed)
    # one fixed image first: pycocotools cannot load an empty result list
    images = [([[0.0, 0.0, 30.0, 30.0]], [[0.0, 0.0, 30.0, 31.0]])] + _random_images(rng, int(rng.integers(1, 6)), 12)
    ours, ref = coco_ap(images, max_dets=100), _pycoco(images, 100)
    for k in ("ap", "ap50", "ap75", "ar"):
        assert ours[k] == pytest.approx(ref[k], abs=1e-9), k


def test_coco_ap_crowd_needs_max_dets_above_100_like_pycocotools():
    gts = [[float(i % 20) * 45, float(i // 20) * 45, float(i % 20) * 45 + 40, float(i // 20) * 45 + 40]
           for i in range(150)]
    images = [(list(gts), gts)]
    for md in (100, 300):
        ours, ref = coco_ap(images, max_dets=md), _pycoco(images, md)
        assert ours["ap"] == pytest.approx(ref["ap"], abs=1e-9)
    assert coco_ap(images, max_dets=100)["ar"] == pytest.approx(100 / 150)
    assert coco_ap(images, max_dets=300)["ap"] == pytest.approx(1.0)


def test_coco_ap_exact_ties_match_pycocotools():
    a = [0.0, 0.0, 10.0, 10.0]
    images = [([a, a, [0.0, 0.0, 10.0, 20.0]], [a, a, [0.0, 0.0, 10.0, 20.0]]), ([[0.0, 0.0, 5.0, 10.0]], [a])]
    ours, ref = coco_ap(images), _pycoco(images, 100)
    for k in ("ap", "ap50", "ap75", "ar"):
        assert ours[k] == pytest.approx(ref[k], abs=1e-9), k
