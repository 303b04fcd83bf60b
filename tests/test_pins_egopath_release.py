"""The release sequence of packagers/egopath_release.py on a small synthetic run (two scene groups,
four views): which parts run for which `export:` options and splits, the exact lines it logs,
stale trees of skipped parts removed, and the route-question test that gates the audits."""
from __future__ import annotations

import os

os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"
from pathlib import Path
from types import SimpleNamespace

import pytest

from formats import dataset_layout as layout
from packagers.egopath_release import AUDIT_SPLITS, AUDITS_DIR, SFT_DIR, _has_route_questions, export_release
from test_egopath_export import BENCH, make_run


def test_constants():
    assert (SFT_DIR, AUDITS_DIR, AUDIT_SPLITS) == ("egopathbench_sft", "egopathbench_audits", ("benchmark",))


def test_has_route_questions():
    def s(counts):
        return SimpleNamespace(counts=counts)
    assert _has_route_questions(s({"point_path": {"benchmark": 1}}))
    assert _has_route_questions(s({"intent_path": {"train": 3, "benchmark": 2}}))
    assert not _has_route_questions(s({"point_path": {"benchmark": 0}}))            # a zero count is none
    assert not _has_route_questions(s({"point_path": {"train": 5, "validation": 2}}))
    assert not _has_route_questions(s({"point_traversability": {"benchmark": 4}}))  # not a route task
    assert not _has_route_questions(s({"point_path_text_only": {"benchmark": 4}}))  # a control, not a task
    assert not _has_route_questions(s({}))
    assert _has_route_questions(s({"embodied_path": {"train": 1}}), splits=("train",))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return make_run(tmp_path_factory.mktemp("runs"), n_groups=2)


def _release(run, out: Path, **bench):
    lines: list[str] = []
    summary = export_release([run], out, dict(BENCH, **bench), log=lines.append)
    return summary, [line.replace(str(out), "OUT") for line in lines]


def test_train_only_release_runs_sft_and_skips_the_audits(run, tmp_path):
    """Every group in train: the card's benchmark split is empty, the SFT export runs on the 21 train
    questions, the audits (which need benchmark route questions) are skipped and an earlier
    release's audits removed."""
    out = tmp_path / "ds"
    (out / AUDITS_DIR).mkdir(parents=True)
    (out / AUDITS_DIR / "sensitivity.json").write_text("{}")
    summary, lines = _release(run, out, splits={"train": 1.0}, export={"sft": True, "audits": True})
    assert lines == [
        "scenebench: 21 questions from 1 run(s) -> OUT/egopathbench",
        "scenebench:   embodied_path: train 4",
        "scenebench:   embodied_traversability: train 3",
        "scenebench:   intent_path: train 3",
        "scenebench:   point_path: train 8",
        "scenebench:   point_traversability: train 3",
        "scenebench: the benchmark split is empty (too few scene groups); nothing here can be scored",
        "scenebench: SFT 21/21 rows, audit pass -> OUT/egopathbench_sft",
        "scenebench: audits skipped: no route questions in the benchmark split",
        "scenebench: removed OUT/egopathbench_audits (from an earlier release)"]
    assert sorted(p.name for p in out.iterdir()) == ["egopathbench", "egopathbench_sft"]
    assert (out / SFT_DIR / "sft_audit.json").is_file() and not (out / SFT_DIR / "SHA256SUMS").exists()
    assert summary.root == out / "egopathbench"            # the swapped-in tree, not the staging one
    assert summary.files == layout.list_files(out / "egopathbench") and "SHA256SUMS" in summary.files
    assert summary.files[:3] == ["README.md", "SHA256SUMS", "benchmark.json"]
    layout.verify_sha256sums(out / "egopathbench")


def test_benchmark_only_release_skips_sft(run, tmp_path):
    """Every group in benchmark: no train split, so the SFT export is skipped and an earlier one
    removed; audits not asked for, so an earlier audits tree is left alone."""
    out = tmp_path / "ds"
    for d in (SFT_DIR, AUDITS_DIR):
        (out / d).mkdir(parents=True)
        (out / d / "old.json").write_text("{}")
    summary, lines = _release(run, out, splits={"benchmark": 1.0}, export={"sft": True})
    assert lines[0] == "scenebench: 21 questions from 1 run(s) -> OUT/egopathbench"
    assert lines[1:3] == ["scenebench:   embodied_path: benchmark 4",
                          "scenebench:   embodied_path_mismatched_overlay: benchmark 4"]
    assert lines[-3:] == ["scenebench:   point_traversability: benchmark 3",
                          "scenebench: SFT skipped: the train split is empty",
                          "scenebench: removed OUT/egopathbench_sft (from an earlier release)"]
    assert len(lines) == 14 and not any("benchmark split is empty" in line for line in lines)
    assert sorted(p.name for p in out.iterdir()) == ["egopathbench", "egopathbench_audits"]
    assert (out / AUDITS_DIR / "old.json").read_text() == "{}"
    assert summary.counts["point_path"] == {"benchmark": 8}


def test_plain_release_writes_the_dataset_only(run, tmp_path):
    """No `export:` options: neither SFT nor audits run, and nothing else is logged or removed.
    BENCH's own splits put a group in train and one in benchmark: a config's line lists its
    splits in the order the export counted them."""
    out = tmp_path / "ds"
    (out / SFT_DIR).mkdir(parents=True)
    summary, lines = _release(run, out, export=None)
    assert lines == [
        "scenebench: 21 questions from 1 run(s) -> OUT/egopathbench",
        "scenebench:   embodied_path: train 2, benchmark 2",
        "scenebench:   embodied_path_text_only: benchmark 2",
        "scenebench:   embodied_traversability: train 2, benchmark 1",
        "scenebench:   intent_path: train 1, benchmark 2",
        "scenebench:   intent_path_text_only: benchmark 2",
        "scenebench:   point_path: train 4, benchmark 4",
        "scenebench:   point_path_text_only: benchmark 4",
        "scenebench:   point_traversability: train 2, benchmark 1"]
    assert sorted(p.name for p in out.iterdir()) == ["egopathbench", "egopathbench_sft"]
    assert list((out / SFT_DIR).iterdir()) == []
    assert summary.total_questions == 21 and summary.root == out / "egopathbench"
