"""Pinned values for scorers/realitybench_ratings.py (App. E / Table 13), in process.

The CSV is the one of tests/test_ratings_cli.py, small enough to count by hand; every expected
number below is counted from it (metrics.md §8 formula for alpha), never computed by the code.
"""
from __future__ import annotations

import pytest

from scorers.agreement import heldout_split
from scorers.answer_keys import KeySpec
from scorers.realitybench_grading import GradingItem
from scorers.realitybench_inputs import ReportError
from scorers.realitybench_ratings import ratings_report, ratings_table, read_ratings_csv

T_A, T_R1, T_R2, T_UNS = (f"tape_gap-random-{s}" for s in ("00000-00", "00000-01", "00001-00", "00001-01"))
S_R1 = "slope_gauge-random-00000-00"
C_NOACC, C_GRAY = "car_plate-random-00000-00", "car_plate-random-00001-00"

# raters A, B, C.
#   T_A   (scorer accept):    T T T  -> majority accept, scorer agrees
#   T_R1  (scorer reject):    T T F  -> majority accept, scorer disagrees (too strict)
#   T_R2  (scorer reject):    F F F  -> majority reject, scorer agrees
#   S_R1  (scorer reject):    F T -  -> 2 ratings: not in the scorer column
#   T_UNS (scorer unscored):  T F T  -> majority accept, scorer leaves it unscored
CSV = f"""frame_id,rater,acceptable
{T_A},A,true
{T_A},B,1
{T_A},C,yes
{T_R1},A,True
{T_R1},B,yes
{T_R1},C,no
{T_R2},A,false
{T_R2},B,0
{T_R2},C,NO
{S_R1},A,false
{S_R1},B,true
{S_R1},C,
{T_UNS},A,1
{T_UNS},B,0
{T_UNS},C,1
"""

KEYS = [KeySpec(name="reading", type="number", grammar="x", tolerance=0.125)]


def item(fid, verdict, **kw):
    return GradingItem(id=fid, env=fid.split("-")[0], stratum="random", scorer_verdict=verdict, keys=KEYS, **kw)


ITEMS = [item(T_A, "accept"), item(T_R1, "reject"), item(T_R2, "reject"), item(S_R1, "reject"),
         item(T_UNS, "unscored")]


def write(tmp_path, text, name="r.csv"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_split_assumption():
    """The hand numbers assume these held-out/tune splits (fixed by a hash of the id)."""
    assert {heldout_split(f) for f in (T_A, T_R1, T_R2, T_UNS, C_NOACC, C_GRAY)} == {"heldout"}
    assert heldout_split(S_R1) == "tune"


# ---------------------------------------------------------------- read_ratings_csv

def test_read_csv_labels_and_skips(tmp_path):
    got = read_ratings_csv(write(tmp_path, CSV))
    assert got == {
        T_A: {"A": True, "B": True, "C": True},
        T_R1: {"A": True, "B": True, "C": False},
        T_R2: {"A": False, "B": False, "C": False},
        S_R1: {"A": False, "B": True},           # C's empty value is a skip, not a label
        T_UNS: {"A": True, "B": False, "C": True},
    }


@pytest.mark.parametrize("word", ["true", "1", "yes", "y", "accept", "accepted", "adequate",
                                  " YES ", "Accepted", "ADEQUATE"])
def test_read_csv_yes_words(tmp_path, word):
    assert read_ratings_csv(write(tmp_path, f"frame_id,rater,acceptable\nf1,A,{word}\n")) == {"f1": {"A": True}}


@pytest.mark.parametrize("word", ["false", "0", "no", "n", "reject", "rejected", "inadequate",
                                  " No ", "REJECTED", "Inadequate"])
def test_read_csv_no_words(tmp_path, word):
    assert read_ratings_csv(write(tmp_path, f"frame_id,rater,acceptable\nf1,A,{word}\n")) == {"f1": {"A": False}}


def test_read_csv_header_spaces_bom_extra_columns_and_short_rows(tmp_path):
    p = tmp_path / "bom.csv"
    # a BOM, spaces around names and values, an extra column, a row with a field too many
    # (DictReader files it under the key None), a short row (acceptable missing = skipped),
    # a blank line and a row of empty fields
    p.write_bytes("\ufeff frame_id , rater , acceptable ,note\n"
                  " f1 , A , yes ,x\n"
                  "f1,B,no,y,surplus\n"
                  "f2,A\n"
                  "\n"
                  ",,,\n"
                  "f3,C,0,\n".encode("utf-8"))
    assert read_ratings_csv(p) == {"f1": {"A": True, "B": False}, "f3": {"C": False}}


def test_read_csv_same_label_twice_is_fine(tmp_path):
    p = write(tmp_path, "frame_id,rater,acceptable\nf1,A,yes\nf1,A,true\nf1,B,no\nf1,B,0\n")
    assert read_ratings_csv(p) == {"f1": {"A": True, "B": False}}


def test_read_csv_missing_file(tmp_path):
    with pytest.raises(ReportError, match=r"ratings file .*none\.csv does not exist"):
        read_ratings_csv(tmp_path / "none.csv")
    (tmp_path / "dir.csv").mkdir()
    with pytest.raises(ReportError, match="does not exist"):
        read_ratings_csv(tmp_path / "dir.csv")


@pytest.mark.parametrize("header, missing", [
    ("frame_id,who,acceptable", "rater"),
    ("id,rater,ok", "frame_id, acceptable"),
    ("", "frame_id, rater, acceptable"),
])
def test_read_csv_missing_columns(tmp_path, header, missing):
    p = write(tmp_path, header + "\nf1,A,yes\n" if header else "")
    with pytest.raises(ReportError) as e:
        read_ratings_csv(p)
    assert str(e.value) == f"{p}: missing column(s) {missing} (need frame_id, rater, acceptable)"


@pytest.mark.parametrize("text, message", [
    ("frame_id,rater,acceptable\nf1,A,yes\nf1,A,maybe\n",
     ":3: acceptable must be true/false/1/0/yes/no, got 'maybe'"),
    ("frame_id,rater,acceptable\nf1,A,yes\nf2,A,yes\nf1,A,no\n",
     ":4: rater 'A' labels frame 'f1' both ways"),
    ("frame_id,rater,acceptable\nf1,A,no\nf1,A,yes\n", ":3: rater 'A' labels frame 'f1' both ways"),
    ("frame_id,rater,acceptable\n,A,yes\n", ":2: empty frame_id or rater"),
    ("frame_id,rater,acceptable\nf1,,yes\n", ":2: empty frame_id or rater"),
    ("frame_id,rater,acceptable\nf1,,\n", ":2: empty frame_id or rater"),    # not a blank row
    ("frame_id,rater,acceptable\n,,yes\n", ":2: empty frame_id or rater"),
])
def test_read_csv_errors_name_the_line(tmp_path, text, message):
    p = write(tmp_path, text)
    with pytest.raises(ReportError) as e:
        read_ratings_csv(p)
    assert str(e.value) == f"{p}{message}"


# ---------------------------------------------------------------- ratings_report

@pytest.fixture
def ratings(tmp_path):
    return read_ratings_csv(write(tmp_path, CSV))


def test_report_table13_by_hand(ratings):
    rep = ratings_report(ratings, ITEMS, csv_path="r.csv", dataset="ds")
    assert (rep["csv"], rep["dataset"], rep["seed"]) == ("r.csv", "ds", 0)
    assert rep["n_ratings"] == 14 and rep["n_frames"] == 5 and rep["raters"] == ["A", "B", "C"]
    assert rep["split"] == {"tune": 1, "heldout": 4}
    assert rep["unknown_frames"] == [] and rep["scorer_available"] is True
    a = rep["all"]
    assert a["frames"] == 5 and a["raters"] == 3 and a["ratings_per_frame"] == pytest.approx(14 / 5)
    # pairs: T_A 3/3, T_R1 1/3, T_R2 3/3, S_R1 0/1, T_UNS 1/3 -> 8/13
    assert a["agree"] == pytest.approx(8 / 13)
    # o_TT=5, o_FF=3, o_TF=o_FT=3; n_T=8, n_F=6, n=14: alpha = 1 - 13*6/(196-64-36)
    assert a["alpha"] == pytest.approx(1 - 13 * 6 / 96)
    s = a["scorer"]
    assert s["agreement"] == pytest.approx(2 / 3)
    assert (s["n"], s["n_ties"], s["n_unscored"]) == (3, 0, 1)
    assert (s["rejects_of_majority_accepts"], s["n_majority_accepts"]) == (1, 2)
    assert (s["accepts_of_majority_rejects"], s["n_majority_rejects"]) == (0, 1)
    # hits are [1, 0, 1]: a percentile CI of their mean lies on the grid {0, 1/3, 2/3, 1}
    ci = s["ci"]
    assert ci["n_resamples"] == 1000 and ci["estimate"] == pytest.approx(2 / 3)
    assert 0.0 <= ci["low"] <= 2 / 3 <= ci["high"] <= 1.0
    # environments, sorted; each gets its own Table 13 row and no CI
    assert list(rep["environments"]) == ["slope_gauge", "tape_gap"]
    tape, slope = rep["environments"]["tape_gap"], rep["environments"]["slope_gauge"]
    assert tape["frames"] == 4 and tape["raters"] == 3 and tape["ratings_per_frame"] == pytest.approx(3.0)
    assert tape["agree"] == pytest.approx(8 / 12)
    # o_TT=5, o_FF=3, o_TF=o_FT=2; n_T=7, n_F=5, n=12: 1 - 11*4/(144-49-25)
    assert tape["alpha"] == pytest.approx(1 - 11 * 4 / 70)
    assert tape["scorer"]["agreement"] == pytest.approx(2 / 3) and tape["scorer"]["ci"] is None
    # one frame, F vs T: one disagreeing pair; o_TF=o_FT=1, n=2: 1 - 1*2/(4-1-1) = 0
    assert slope["frames"] == 1 and slope["raters"] == 2 and slope["ratings_per_frame"] == 2.0
    assert slope["agree"] == 0.0 and slope["alpha"] == pytest.approx(0.0)
    assert slope["scorer"]["agreement"] is None and slope["scorer"]["n"] == 0
    # each rater vs the majority of the two others (ties skipped):
    #   A: T_A T=T, T_R1 T vs (T,F) tie, T_R2 F=F, T_UNS T vs (F,T) tie -> 2/2
    #   B: T_A hit, T_R1 others (A=T, C=F) tie, T_R2 hit, S_R1 one other only, T_UNS F vs (T,T) miss -> 2/3
    rv = rep["rater_vs_majority"]
    assert rv["A"] == {"agreement": 1.0, "n": 2}
    assert rv["B"]["agreement"] == pytest.approx(2 / 3) and rv["B"]["n"] == 3
    assert rv["C"]["agreement"] == pytest.approx(2 / 3) and rv["C"]["n"] == 3


def test_report_scorer_label_only_where_scored_for_acceptability(ratings):
    """A frame not scored for acceptability, a gray frame and an unscored one are all 'unscored'
    for the scorer column, whatever their verdict; all are held out with three ratings."""
    extra = {C_NOACC: {"A": True, "B": True, "C": True}, C_GRAY: {"A": False, "B": False, "C": False}}
    items = ITEMS + [item(C_NOACC, "accept", acceptability_scored=False), item(C_GRAY, "reject", gray=True)]
    rep = ratings_report({**ratings, **extra}, items)
    s = rep["all"]["scorer"]
    assert (s["n"], s["n_unscored"], s["agreement"]) == (3, 3, pytest.approx(2 / 3))
    assert rep["environments"]["car_plate"]["scorer"]["n_unscored"] == 2
    # with both frames scored they count, and agree with the raters
    items = ITEMS + [item(C_NOACC, "accept"), item(C_GRAY, "reject")]
    s = ratings_report({**ratings, **extra}, items)["all"]["scorer"]
    assert (s["n"], s["n_unscored"], s["agreement"]) == (5, 1, pytest.approx(4 / 5))
    assert (s["accepts_of_majority_rejects"], s["n_majority_rejects"]) == (0, 2)


def test_report_without_items_and_unknown_frames(ratings):
    extra = {"tape_gap-random-77777-00": {"A": True, "B": True}}
    rep = ratings_report({**ratings, **extra}, None, seed=5, n_resamples=50)
    assert rep["scorer_available"] is False and rep["unknown_frames"] == []
    assert rep["dataset"] is None and rep["csv"] == "" and rep["seed"] == 5
    assert rep["all"]["scorer"]["agreement"] is None and rep["all"]["scorer"]["ci"] is None
    # without items the environment is the id's prefix
    assert list(rep["environments"]) == ["slope_gauge", "tape_gap"]
    assert rep["environments"]["tape_gap"]["frames"] == 5
    rep = ratings_report({**ratings, **extra}, ITEMS, n_resamples=50)
    assert rep["unknown_frames"] == ["tape_gap-random-77777-00"]
    assert rep["all"]["scorer"]["ci"]["n_resamples"] == 50


def test_report_environment_comes_from_the_item_not_the_id(ratings):
    renamed = [it.model_copy(update={"env": "other"}) if it.id == S_R1 else it for it in ITEMS]
    rep = ratings_report(ratings, renamed)
    assert list(rep["environments"]) == ["other", "tape_gap"]


# ---------------------------------------------------------------- ratings_table

def _row(frames, raters, rpf, agree, alpha, scorer):
    return {"frames": frames, "raters": raters, "ratings_per_frame": rpf, "agree": agree, "alpha": alpha,
            "scorer": scorer}


def test_ratings_table_text_by_hand():
    none = {"agreement": None, "n": 0}
    s_all = {"agreement": 2 / 3, "n": 3, "ci": {"low": 0.0, "high": 1.0},
             "accepts_of_majority_rejects": 0, "n_majority_rejects": 1,
             "rejects_of_majority_accepts": 1, "n_majority_accepts": 2}
    rep = {
        "environments": {"slope_gauge": _row(1, 2, 2.0, 0.0, 0.0, none),
                         "tape_gap": _row(4, 3, 3.0, 8 / 12, 1 - 44 / 70, {"agreement": 2 / 3, "n": 3})},
        "all": _row(5, 3, 2.8, 8 / 13, 1 - 78 / 96, s_all),
        "rater_vs_majority": {"A": {"agreement": 1.0, "n": 2}, "B": {"agreement": 2 / 3, "n": 3},
                              "D": {"agreement": None, "n": 0}},
        "unknown_frames": [],
    }
    want = [
        "set          frames  raters  ratings/frame  agree  alpha  scorer (held-out)",
        "slope_gauge       1       2            2.0   0.00   0.00                  –",
        "tape_gap          4       3            3.0   0.67   0.37           0.67 (3)",
        "all               5       3            2.8   0.62   0.19           0.67 (3)",
        "scorer vs majority (held-out, >= 3 ratings, ties excluded): 0.67 [0.00, 1.00] on 3 frames; "
        "accepts 0 of 1 majority rejects, rejects 1 of 2 majority accepts",
        "each rater vs the majority of the others:",
        "  A: 1.00 (2 frames)",
        "  B: 0.67 (3 frames)",
        "  D: – (0 frames)",
    ]
    assert ratings_table(rep).split("\n") == want


def test_ratings_table_no_ci_line_and_unknown_frames():
    s = {"agreement": None, "n": 0, "ci": None}
    rep = {"environments": {}, "all": _row(0, 0, None, None, None, s), "rater_vs_majority": {},
           "unknown_frames": [f"f{i}" for i in range(7)]}
    assert ratings_table(rep).split("\n") == [
        "set  frames  raters  ratings/frame  agree  alpha  scorer (held-out)",
        "all       0       0              –      –      –                  –",
        "each rater vs the majority of the others:",
        "7 rated frame(s) not in the dataset (no scorer verdict): f0, f1, f2, f3, f4",
    ]
    # a CI whose low end is undefined prints no line either
    rep["all"]["scorer"] = {"agreement": 1.0, "n": 1, "ci": {"low": None, "high": None}}
    rep["unknown_frames"] = ["x"]
    lines = ratings_table(rep).split("\n")
    assert lines[2:] == ["each rater vs the majority of the others:",
                         "1 rated frame(s) not in the dataset (no scorer verdict): x"]


def test_read_csv_keeps_a_line_break_inside_a_quoted_field(tmp_path):
    """The csv module needs newline="" to read quoted fields with CRLF inside (Python's csv docs)."""
    p = tmp_path / "q.csv"
    p.write_bytes(b'frame_id,rater,acceptable\r\nf1,"Ann\r\nB",yes\r\nf2,C,no\r\n')
    assert read_ratings_csv(p) == {"f1": {"Ann\r\nB": True}, "f2": {"C": False}}


def test_report_split_counts_zero_sides(ratings):
    only_heldout = {T_A: ratings[T_A]}
    assert ratings_report(only_heldout, ITEMS)["split"] == {"tune": 0, "heldout": 1}
    only_tune = {S_R1: ratings[S_R1]}
    assert ratings_report(only_tune, ITEMS)["split"] == {"tune": 1, "heldout": 0}


def test_report_seed_reaches_the_scorer_interval():
    """40 held-out frames of three ratings, the scorer right on 28: the interval moves with the seed."""
    from scorers.agreement import scorer_vs_majority

    ids = [f"tape_gap-random-{i:05d}-00" for i in range(200) if heldout_split(f"tape_gap-random-{i:05d}-00") == "heldout"]
    ids = ids[:40]
    assert len(ids) == 40
    ratings = {f: {"A": True, "B": True, "C": False} for f in ids}          # majority accept everywhere
    items = [item(f, "accept" if k < 28 else "reject") for k, f in enumerate(ids)]
    s0 = ratings_report(ratings, items, n_resamples=200)["all"]["scorer"]
    s7 = ratings_report(ratings, items, seed=7, n_resamples=200)["all"]["scorer"]
    assert s0["agreement"] == s7["agreement"] == pytest.approx(28 / 40)
    assert (s0["rejects_of_majority_accepts"], s0["n_majority_accepts"]) == (12, 40)
    scorer = {f: it.scorer_verdict == "accept" for f, it in zip(ids, items)}
    want7 = scorer_vs_majority(ratings, scorer, n_resamples=200, seed=7).ci.model_dump()
    want0 = scorer_vs_majority(ratings, scorer, n_resamples=200, seed=0).ci.model_dump()
    assert want0 != want7                                   # so the comparison below can tell seeds apart
    assert s7["ci"] == want7 and s0["ci"] == want0
