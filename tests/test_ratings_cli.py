"""`scenebench ratings`: Table 13 numbers on a CSV small enough to check by hand."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scorers.agreement import heldout_split
from test_score_cli import S_R1, T_A, T_R1, T_R2, T_UNS, build_dataset

ROOT = Path(__file__).resolve().parents[1]

# raters A, B, C.  F1..F3, F5 are held-out tape_gap frames; F4 (slope_gauge) has two ratings.
#   F1 = T_A   (scorer accept):    T T T  -> majority accept, scorer agrees
#   F2 = T_R1  (scorer reject):    T T F  -> majority accept, scorer disagrees (too strict)
#   F3 = T_R2  (scorer reject):    F F F  -> majority reject, scorer agrees
#   F4 = S_R1  (scorer reject):    F T -  -> 2 ratings: not in the scorer column
#   F5 = T_UNS (scorer unscored):  T F T  -> majority accept, scorer leaves it unscored
# the CSV is counted by hand in tests/test_pins_realitybench_ratings.py (same ids as test_score_cli)
from test_pins_realitybench_ratings import CSV  # noqa: E402


def _cli(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "scenebench", "ratings", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return build_dataset(tmp_path_factory.mktemp("ratings"))


def test_split_assumption():
    """The hand numbers below assume these frames are held out (fixed by a hash of the id)."""
    assert {heldout_split(f) for f in (T_A, T_R1, T_R2, T_UNS)} == {"heldout"}


def test_table13_by_hand(dataset, tmp_path):
    csv = tmp_path / "ratings.csv"
    csv.write_text(CSV)
    r = _cli("--dataset", str(dataset), "--ratings", str(csv))
    assert r.returncode == 0, r.stderr
    rep = json.loads((tmp_path / "ratings.agreement.json").read_text())
    a = rep["all"]
    # pairs: F1 3/3, F2 1/3, F3 3/3, F4 0/1, F5 1/3 -> 8/13
    assert a["agree"] == pytest.approx(8 / 13)
    # coincidences o_TT=5, o_FF=3, o_TF=o_FT=3; n_T=8, n_F=6, n=14: alpha = 1 - 13*6/(196-64-36)
    assert a["alpha"] == pytest.approx(1 - 13 * 6 / 96)
    assert a["frames"] == 5 and a["raters"] == 3 and a["ratings_per_frame"] == pytest.approx(14 / 5)
    s = a["scorer"]
    assert s["agreement"] == pytest.approx(2 / 3) and s["n"] == 3 and s["n_unscored"] == 1 and s["n_ties"] == 0
    assert (s["rejects_of_majority_accepts"], s["n_majority_accepts"]) == (1, 2)
    assert (s["accepts_of_majority_rejects"], s["n_majority_rejects"]) == (0, 1)
    assert s["ci"]["n_resamples"] == 1000
    # each rater vs the majority of the two others (ties skipped)
    rv = rep["rater_vs_majority"]
    assert rv["A"] == {"agreement": 1.0, "n": 2}
    assert rv["B"]["agreement"] == pytest.approx(2 / 3) and rv["B"]["n"] == 3
    assert rv["C"]["agreement"] == pytest.approx(2 / 3) and rv["C"]["n"] == 3
    tape, slope = rep["environments"]["tape_gap"], rep["environments"]["slope_gauge"]
    assert tape["agree"] == pytest.approx(8 / 12)
    assert tape["alpha"] == pytest.approx(1 - 11 * 4 / (144 - 49 - 25))
    assert slope["agree"] == 0.0 and slope["alpha"] == pytest.approx(0.0) and slope["frames"] == 1
    assert rep["n_ratings"] == 14 and rep["unknown_frames"] == []
    out = r.stdout
    assert "tape_gap" in out and "alpha" in out and "0.67 (3)" in out and "A: 1.00 (2 frames)" in out


def test_without_dataset_and_unknown_frames(tmp_path, dataset):
    csv = tmp_path / "r.csv"
    csv.write_text(CSV + "tape_gap-random-77777-00,A,yes\ntape_gap-random-77777-00,B,yes\n")
    r = _cli("--ratings", str(csv))
    assert r.returncode == 0, r.stderr
    rep = json.loads((tmp_path / "r.agreement.json").read_text())
    assert rep["all"]["scorer"]["agreement"] is None and rep["scorer_available"] is False
    r = _cli("--dataset", str(dataset), "--ratings", str(csv))
    assert r.returncode == 0, r.stderr
    rep = json.loads((tmp_path / "r.agreement.json").read_text())
    assert rep["unknown_frames"] == ["tape_gap-random-77777-00"]


@pytest.mark.parametrize("text, needle", [
    ("frame_id,rater,acceptable\nf1,A,maybe\n", "acceptable must be true/false/1/0/yes/no, got 'maybe'"),
    ("frame_id,who,acceptable\nf1,A,yes\n", "missing column(s) rater"),
    ("frame_id,rater,acceptable\nf1,A,yes\nf1,A,no\n", "labels frame 'f1' both ways"),
])
def test_bad_csv_is_one_line_exit_2(tmp_path, text, needle):
    csv = tmp_path / "bad.csv"
    csv.write_text(text)
    r = _cli("--ratings", str(csv))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("scenebench: error:") and needle in lines[0], r.stderr
    assert not (tmp_path / "bad.agreement.json").exists()


def test_missing_csv(tmp_path):
    r = _cli("--ratings", str(tmp_path / "none.csv"))
    assert r.returncode == 2 and "does not exist" in r.stderr
