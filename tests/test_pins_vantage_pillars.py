"""Pins for scorers/vantage_pillars.py: Table 11 of the paper recomputed from Table 1, all 17
rows (values copied from ../shared/notes/checks/pillars.py, the paper's App. D.5)."""
from __future__ import annotations

import pytest

from scorers.vantage_pillars import PILLARS, PRIMARY, TASKS, pillar_scores

# Table 1: VQA EV Point RefEx ObjLoc TempLoc DVC SOT Overall
T1 = {
    "Qwen3-VL-2B": [63.85, 44.73, 53.13, 65.12, 47.42, 35.21, 19.90, 30.38, 41.86],
    "Qwen3-VL-8B": [66.44, 59.39, 68.56, 73.29, 59.93, 44.32, 29.64, 33.12, 50.07],
    "Qwen3-VL-32B": [71.30, 60.04, 75.62, 72.39, 72.67, 46.80, 29.40, 44.19, 55.38],
    "Qwen3.5-9B": [71.63, 46.78, 71.74, 77.16, 76.87, 42.53, 27.88, 23.52, 48.30],
    "Qwen3.5-27B": [67.95, 55.34, 75.32, 76.35, 85.46, 36.88, 26.97, 24.40, 49.25],
    "Cosmos-Reason2-2B": [64.69, 55.27, 59.70, 56.33, 73.56, 38.95, 28.52, 26.85, 45.94],
    "Cosmos-Reason2-8B": [67.95, 64.09, 68.60, 70.26, 83.88, 47.30, 32.50, 37.69, 54.46],
    "Cosmos-Reason2-32B": [70.29, 73.58, 74.03, 50.04, 4.35, 50.47, 30.04, 33.12, 47.03],
    "Cosmos3-Edge": [62.68, 63.36, 67.76, 69.27, 79.02, 39.51, 16.64, 24.65, 46.94],
    "Cosmos3-Nano": [68.95, 68.88, 74.83, 75.57, 74.11, 48.04, 31.42, 59.21, 60.67],
    "Cosmos3-Super": [69.46, 71.28, 72.94, 76.23, 86.97, 51.90, 29.54, 64.66, 63.62],
    "Gemma-4-E2B": [46.19, 27.65, 31.74, 5.52, 45.40, 9.02, 9.14, 11.58, 21.28],
    "Gemini-3.1-Flash-Lite": [68.03, 63.78, 63.68, 52.70, 71.74, 37.72, 32.54, 46.68, 52.61],
    "Gemini-3.1-Pro": [71.46, 68.57, 72.04, 67.17, 77.21, 45.69, 35.55, 67.88, 62.66],
    "Gemini-3.5-Flash-Lite": [65.61, 70.41, 43.08, 74.46, 65.73, 24.00, 32.29, 55.77, 53.25],
    "Gemini-3.6-Flash": [76.82, 82.00, 79.20, 75.78, 81.57, 51.50, 36.15, 75.99, 69.52],
    "GPT-5.6-Sol": [78.08, 76.14, 81.90, 69.44, 69.30, 55.71, 37.28, 75.02, 68.04],
}
# Table 11: Semantic Spatial Temporal SpatioTemporal Overall
T11 = {
    "Qwen3-VL-2B": [54.29, 55.22, 27.55, 30.38, 41.86], "Qwen3-VL-8B": [62.91, 67.26, 36.98, 33.12, 50.07],
    "Qwen3-VL-32B": [65.67, 73.56, 38.10, 44.19, 55.38], "Qwen3.5-9B": [59.20, 75.26, 35.20, 23.52, 48.30],
    "Qwen3.5-27B": [61.65, 79.04, 31.93, 24.40, 49.25], "Cosmos-Reason2-2B": [59.98, 63.20, 33.73, 26.85, 45.94],
    "Cosmos-Reason2-8B": [66.02, 74.25, 39.90, 37.69, 54.46], "Cosmos-Reason2-32B": [71.94, 42.81, 40.25, 33.12, 47.03],
    "Cosmos3-Edge": [63.02, 72.02, 28.07, 24.65, 46.94], "Cosmos3-Nano": [68.91, 74.84, 39.73, 59.21, 60.67],
    "Cosmos3-Super": [70.37, 78.71, 40.72, 64.66, 63.62], "Gemma-4-E2B": [36.92, 27.55, 9.08, 11.58, 21.28],
    "Gemini-3.1-Flash-Lite": [65.91, 62.71, 35.13, 46.68, 52.61], "Gemini-3.1-Pro": [70.01, 72.14, 40.62, 67.88, 62.66],
    "Gemini-3.5-Flash-Lite": [68.01, 61.09, 28.14, 55.77, 53.25], "Gemini-3.6-Flash": [79.41, 78.85, 43.83, 75.99, 69.52],
    "GPT-5.6-Sol": [77.11, 73.55, 46.50, 75.02, 68.04],
}


def _scores(row):
    return dict(zip(TASKS, row[:8]))


@pytest.mark.parametrize("model", sorted(T1))
def test_table_11_recomputed_from_table_1(model):
    p = pillar_scores(_scores(T1[model]))
    got = [p["semantic"], p["spatial"], p["temporal"], p["spatio_temporal"], p["overall"]]
    assert got == pytest.approx(T11[model], abs=0.0051)        # the paper rounds to 2 decimals
    assert p["overall"] == pytest.approx(T1[model][8], abs=0.0051)


def test_gpt_row_unrounded():
    p = pillar_scores(_scores(T1["GPT-5.6-Sol"]))
    assert p["semantic"] == pytest.approx(77.11, abs=1e-9)
    assert p["spatial"] == pytest.approx(73.546667, abs=1e-6)
    assert p["temporal"] == pytest.approx(46.495, abs=1e-9)
    assert p["overall"] == pytest.approx(68.042917, abs=1e-6)


def test_overall_is_not_the_task_macro():
    row = T1["Qwen3-VL-2B"]
    assert sum(row[:8]) / 8 == pytest.approx(44.97, abs=0.005)
    assert pillar_scores(_scores(row))["overall"] == pytest.approx(41.86, abs=0.005)


def test_sot_carries_a_quarter_of_overall():
    base = dict.fromkeys(TASKS, 0.0)
    assert pillar_scores({**base, "single_object_tracking": 100.0})["overall"] == 25.0
    assert pillar_scores({**base, "object_localization": 100.0})["overall"] == pytest.approx(100 / 12)
    assert pillar_scores({**base, "video_qa": 100.0})["overall"] == 12.5
    assert pillar_scores({**base, "dense_captioning": 100.0})["overall"] == 12.5


def test_missing_task_leaves_its_pillar_and_overall_undefined():
    s = _scores(T1["Qwen3-VL-8B"])
    del s["dense_captioning"]
    p = pillar_scores(s)
    assert p["temporal"] is None and p["overall"] is None
    assert p["semantic"] == pytest.approx(62.915)
    s2 = {**_scores(T1["Qwen3-VL-8B"]), "video_qa": None}
    assert pillar_scores(s2)["semantic"] is None and pillar_scores(s2)["spatial"] == pytest.approx(67.26, abs=0.005)
    with pytest.raises(ValueError, match="unknown"):
        pillar_scores({"ocr": 1.0})


def test_tables():
    assert sum(len(v) for v in PILLARS.values()) == 8 and sorted(t for v in PILLARS.values() for t in v) == sorted(TASKS)
    assert PRIMARY["event_verification"] == "macro_f1" and PRIMARY["single_object_tracking"] == "auc"
    assert PRIMARY["object_localization"] == "f1@0.5" and PRIMARY["dense_captioning"] == "soda_c"
