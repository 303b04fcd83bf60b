"""Export defects of issue #10 §4, each on hand-built run stores (real FrameRecords, real JPEGs,
real Parquet read back): reads outside the run directory, an empty records.jsonl, the gray
rule, and the one-line exit-2 errors of `scenebench export`."""
from __future__ import annotations

import os

os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"

import json  # noqa: E402
from pathlib import Path  # noqa: E402

import pyarrow.parquet as pq  # noqa: E402
import pytest  # noqa: E402
import yaml  # noqa: E402

from formats.records import FrameRecord, TermResult  # noqa: E402
from packagers.hf_export import ExportError, export_realitybench  # noqa: E402
from scorers.dataset_items import load_items  # noqa: E402
from scorers.realitybench_grading import grade_item  # noqa: E402
from test_hf_export import BENCHMARK, make_run  # noqa: E402

SECRET = "root:x:0:0:secret line\n"


def _records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]


def _write_records(run: Path, recs: list[dict]) -> None:
    (run / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))


def _nothing_written(out: Path) -> None:
    """No dataset, no staging tree, not even the output directory."""
    assert not out.exists(), sorted(p.name for p in out.rglob("*"))


@pytest.fixture()
def run(tmp_path):
    return make_run(tmp_path / "runs" / "tape_gap", "tape_gap", "random", ["accept", "reject"])


@pytest.fixture()
def secret(tmp_path):
    path = tmp_path / "outside" / "passwd"
    path.parent.mkdir()
    path.write_text(SECRET)
    return path


# -- reads outside the run directory ------------------------------------------------------------
@pytest.mark.parametrize("how", ["absolute", "dotdot", "symlink"])
def test_image_outside_the_run_is_refused(run, secret, tmp_path, how):
    recs = _records(run)
    if how == "absolute":
        recs[0]["image"] = str(secret)
    elif how == "dotdot":
        recs[0]["image"] = os.path.relpath(secret, run)
    else:  # a frame file that is a symlink out of the run
        link = run / "frames" / "link.jpg"
        link.symlink_to(secret)
        recs[0]["image"] = "frames/link.jpg"
    _write_records(run, recs)
    out = tmp_path / "hf"
    with pytest.raises(ExportError, match="outside") as exc:
        export_realitybench([run], out, BENCHMARK)
    assert "\n" not in str(exc.value)
    _nothing_written(out)


def test_scene_state_outside_the_run_is_refused(run, secret, tmp_path):
    (secret.parent / "evil.json").write_text(json.dumps({"spec": {"leak": SECRET}}))
    recs = _records(run)
    recs[0]["scene_id"] = os.path.relpath(secret.parent / "evil", run / "scenes")
    _write_records(run, recs)
    with pytest.raises(ExportError, match="outside"):
        export_realitybench([run], tmp_path / "hf", BENCHMARK)
    _nothing_written(tmp_path / "hf")


def test_earlier_export_survives_a_refused_one(run, secret, tmp_path):
    out = tmp_path / "hf"
    first = export_realitybench([run], out, BENCHMARK)
    before = {rel: (first.root / rel).read_bytes() for rel in first.files}
    recs = _records(run)
    recs[1]["image"] = str(secret)
    _write_records(run, recs)
    with pytest.raises(ExportError, match="outside"):
        export_realitybench([run], out, BENCHMARK)
    assert sorted(p.name for p in out.iterdir()) == ["realitybench"]          # no staging left
    assert {rel: (first.root / rel).read_bytes() for rel in first.files} == before


def test_cli_refuses_outside_path_with_one_line(run, secret, tmp_path, capsys):
    from scenebench.cli import main

    recs = _records(run)
    recs[0]["image"] = str(secret)
    _write_records(run, recs)
    out = tmp_path / "ds"
    assert main(["export", "--benchmark", "realitybench", "--runs", str(run), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "outside" in err and "secret" not in err
    _nothing_written(out)


# -- empty records.jsonl ------------------------------------------------------------------------
def test_empty_records_is_one_line_and_writes_nothing(run, tmp_path, capsys):
    from scenebench.cli import main

    empty = make_run(tmp_path / "runs" / "slope_gauge", "slope_gauge", "random", ["accept"])
    (empty / "records.jsonl").write_text("")
    out = tmp_path / "hf"
    with pytest.raises(ExportError, match="holds no frames"):
        export_realitybench([run, empty], out, BENCHMARK)
    _nothing_written(out)
    assert main(["export", "--benchmark", "realitybench", "--runs", str(empty), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "slope_gauge" in err and "no frames" in err
    _nothing_written(out)


def test_records_not_utf8_is_one_line(run, tmp_path):
    (run / "records.jsonl").write_bytes((run / "records.jsonl").read_bytes() + b"\xff\xfe\n")
    with pytest.raises(ExportError, match="not UTF-8"):
        export_realitybench([run], tmp_path / "hf", BENCHMARK)
    _nothing_written(tmp_path / "hf")


# -- the gray rule (RealityBench §4) ------------------------------------------------------------
HARD_FAIL = TermResult(name="distance", side="scene", value=0.9, threshold="<= 0.65 m", unit="m", passed=False)
GRAY_FAIL = TermResult(name="yaw", side="scene", value=20.0, threshold="<= 15 deg", unit="deg", passed=False,
                       gray=True)
PASS = TermResult(name="in_frame", side="scene", value=1.0, threshold=">= 0.9", passed=True)
GRAY_PASS = TermResult(name="yaw", side="scene", value=3.0, threshold="<= 15 deg", unit="deg", passed=True,
                       gray=True)


def test_gray_means_the_verdict_depends_only_on_gray_terms(tmp_path):
    """Four hand-built frames: reject on a hard term that also fails a gray term (kept, a
    reject), gray failure only (unscored, dropped), hard failure only, and a pass on a term
    that has a gray zone (accept). The scorer verdicts are the records' own."""
    run = make_run(tmp_path / "runs" / "tape_gap", "tape_gap", "random", ["accept"] * 4)
    cases = {"tape_gap-random-00000-00": ([PASS, HARD_FAIL, GRAY_FAIL], "reject"),
             "tape_gap-random-00000-01": ([PASS, GRAY_FAIL], "unscored"),
             "tape_gap-random-00001-00": ([PASS, HARD_FAIL], "reject"),
             "tape_gap-random-00001-01": ([PASS, GRAY_PASS], "accept")}
    recs = _records(run)
    for r in recs:
        terms, verdict = cases[r["frame_id"]]
        r["terms"], r["verdict"] = [t.model_dump() for t in terms], verdict
        FrameRecord.model_validate(r)
    _write_records(run, recs)
    s = export_realitybench([run], tmp_path / "hf", BENCHMARK)
    rows = {r["id"]: r for r in pq.read_table(s.root / s.shards["tape_gap"][0],
                                               columns=["id", "scorer_verdict", "gray", "terms"]).to_pylist()}
    assert {i: (r["scorer_verdict"], r["gray"]) for i, r in rows.items()} == {
        "tape_gap-random-00000-00": ("reject", False),
        "tape_gap-random-00000-01": ("unscored", True),
        "tape_gap-random-00001-00": ("reject", False),
        "tape_gap-random-00001-01": ("accept", False)}
    assert [t["gray"] for t in rows["tape_gap-random-00000-00"]["terms"]] == [False, False, True]  # still shown

    # the grader: the hard-term reject with a gray failure is in the acceptability set, the
    # gray-only frame is not (an always-accept reply is a false accept on the former)
    items = {it.id: it for it in load_items(s.root)}
    reply = json.dumps({"adequate": True, "reading_in": 0, "gap_in": 0, "tilted": False})
    assert grade_item(items["tape_gap-random-00000-00"], reply).in_set is True
    assert grade_item(items["tape_gap-random-00000-01"], reply).in_set is False
    card = (s.root / "README.md").read_text()
    assert "Benchmark file: `realitybench` version `1.9.0`" in card
    # one of the benchmark file's 11 environments was exported: the card names the other ten
    planned = sorted(yaml.safe_load(BENCHMARK.read_text())["environments"])
    assert len(planned) == 11
    missing = ", ".join(e for e in planned if e != "tape_gap")
    assert f"Environments in this export: 1 of the benchmark's 11 (missing: {missing})." in card
