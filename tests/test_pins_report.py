"""Pinned behaviour of scorers/report.py's write_report: which files, in which order, in what form."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorers.answer_keys import KeySpec
from scorers.realitybench_grading import GradingItem
from scorers.realitybench_inputs import Predictions
from scorers.realitybench_markdown import report_markdown
from scorers.report import REPORT_FILES, score, write_report

KEYS = [KeySpec(name="reading_in", type="number", grammar="number", tolerance=0.125)]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _metrics(path="/x/m.jsonl"):
    items = [GradingItem(id=f"tape_gap-{i}", env="tape_gap", stratum="random",
                         scorer_verdict="accept" if i % 2 else "reject",
                         ground_truth={"reading_in": 3.5}, keys=KEYS) for i in range(4)]
    replies = {it.id: json.dumps({"adequate": bool(i % 2), "reading_in": 3.5}) for i, it in enumerate(items)}
    pred = Predictions(path=Path(path), model="m", replies=replies)
    metrics, _ = score(items, [pred], {}, n_ci=20, n_paired=20)
    return metrics


@pytest.fixture(scope="module")
def metrics():
    return _metrics()


def test_report_files_and_order(metrics, tmp_path):
    d = tmp_path / "a" / "b" / "rep"                 # parents are made
    out = write_report(metrics, d)
    assert REPORT_FILES == ("report.md", "metrics.json", "fig2_f1_doc_vs_cost.png", "fig3_field_heatmap.png")
    assert out == [d / "report.md", d / "metrics.json", d / "fig2_f1_doc_vs_cost.png", d / "fig3_field_heatmap.png"]
    assert sorted(p.name for p in d.iterdir()) == sorted(REPORT_FILES)
    md = (d / "report.md").read_bytes()
    assert md == (report_markdown(metrics) + "\n").encode("utf-8") and md.startswith(b"# RealityBench report")
    text = (d / "metrics.json").read_text(encoding="utf-8")
    assert json.loads(text) == metrics and text.endswith("}\n") and not text.endswith("\n\n")
    lines = text.split("\n")
    assert lines[0] == "{" and lines[1] == '  "baseline": {'     # sorted keys, indent 2
    top = [ln[3:].split('"')[0] for ln in lines if ln.startswith('  "')]
    assert top == sorted(metrics) and len(top) == len(metrics)
    fig2, fig3 = (d / "fig2_f1_doc_vs_cost.png").read_bytes(), (d / "fig3_field_heatmap.png").read_bytes()
    assert fig2.startswith(PNG_MAGIC) and fig3.startswith(PNG_MAGIC) and fig2 != fig3
    # writing again into the existing folder replaces the files with the same bytes
    before = {p.name: p.read_bytes() for p in d.iterdir()}
    assert write_report(metrics, d) == out
    assert {p.name: p.read_bytes() for p in d.iterdir()} == before


def test_nan_is_refused_before_anything_is_written(metrics, tmp_path):
    bad = json.loads(json.dumps(metrics))
    bad["settings"]["seed"] = float("nan")
    with pytest.raises(ValueError):
        write_report(bad, tmp_path / "rep")
    assert list((tmp_path / "rep").iterdir()) == []


def test_undecodable_path_is_written_replaced(tmp_path):
    """A file name with a byte that is not UTF-8 (b"\\xff", surrogate-escaped by the OS layer)."""
    metrics = _metrics("/x/m\udcff.jsonl")
    write_report(metrics, tmp_path / "rep")
    md = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "m?.jsonl" in md and "\udcff" not in md
    # json.dumps escapes it, so metrics.json keeps the name as it was
    assert "m\\udcff.jsonl" in (tmp_path / "rep" / "metrics.json").read_text(encoding="utf-8")
