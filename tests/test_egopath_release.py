"""EgoPathBench release defects of issue #10 §4: a real 3-view run exports (empty benchmark
split on the card, audits skipped with a line, exit 0); a failing audit is one line, exit 2,
and leaves the earlier release as it was with no staging tree; frames outside the run are
refused."""
from __future__ import annotations

import json
import os

os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, preview_quality, run_config
from formats import dataset_layout as layout
from test_egopath_export import BENCH, _audit_run, make_run


def _tree(root: Path) -> dict[str, bytes]:
    return {rel: (root / rel).read_bytes() for rel in layout.list_files(root)}


def _cli(*args):
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(ROOT), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    return subprocess.run([sys.executable, "-m", "scenebench", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.render
def test_three_view_run_exports_with_the_shipped_benchmark_file(tmp_path):
    """`make render ENV=egopath N=3` then `make export BENCHMARK=egopathbench`: three views
    from too few scene groups for a benchmark split. Used to end in an AuditError traceback
    after the dataset was written."""
    from render_farm.runner import render
    from packagers.egopath import split_of_group

    run = render(run_config(tmp_path / "out", env="egopath", n=3,
                            quality=preview_quality(long_side_px=256, samples=4))).run_dir
    shipped = yaml.safe_load((ROOT / "configs/benchmark/egopathbench.yaml").read_text())
    groups = {json.loads(line)["ground_truth"].get("scene_group")
              for line in (run / "records.jsonl").read_text().splitlines()}
    assert "benchmark" not in {split_of_group(g, shipped["splits"], shipped["split_salt"]) for g in groups}

    out = tmp_path / "ds"
    (out / "egopathbench_audits").mkdir(parents=True)
    (out / "egopathbench_audits" / "sensitivity.json").write_text("{}")   # from an earlier, larger release
    r = _cli("export", "--benchmark", "egopathbench", "--runs", str(run), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    assert "scenebench: audits skipped: no route questions in the benchmark split" in r.stdout
    assert "the benchmark split is empty" in r.stdout
    assert sorted(p.name for p in out.iterdir()) == ["egopathbench", "egopathbench_sft"]   # stale audits gone
    root = out / "egopathbench"
    layout.verify_sha256sums(root)
    card = (root / "README.md").read_text()
    assert "**The benchmark split is empty.**" in card
    front = layout.read_card_header(root)
    assert all(f["split"] != "benchmark" for c in front["configs"] for f in c["data_files"])
    meta = json.loads((root / "benchmark.json").read_text())
    assert sum(meta["counts"].get(t, {}).get("benchmark", 0) for t in meta["tasks"]) == 0
    assert sum(n for t in meta["tasks"] for n in meta["counts"].get(t, {}).values()) > 0
    sft = json.loads((out / "egopathbench_sft" / "sft_audit.json").read_text())
    assert sft["format_and_answer_audit"] == "pass" and sft["training_rows"] > 0

    from datasets import load_dataset

    config = front["configs"][0]
    split = config["data_files"][0]["split"]
    ds = load_dataset(str(root), config["config_name"], split=split, cache_dir=str(tmp_path / "cache"))
    assert ds.num_rows == meta["counts"][config["config_name"]][split]


def test_failing_audit_is_one_line_and_keeps_the_earlier_release(tmp_path, capsys):
    from packagers.egopath import EgoPathExportError
    from packagers.egopath_release import export_release
    from scenebench.cli import main

    run = _audit_run(tmp_path)
    bench = dict(BENCH, splits={"benchmark": 1.0}, export={"controls": True, "sft": True, "audits": True})
    out = tmp_path / "ds"
    lines = []
    export_release([run], out, bench, log=lines.append)
    assert lines[-2:] == ["scenebench: SFT skipped: the train split is empty",
                          f"scenebench: audits -> {out}/egopathbench_audits/obstruction.json, "
                          f"{out}/egopathbench_audits/sensitivity.json"]
    before = {d: _tree(out / d) for d in ("egopathbench", "egopathbench_audits")}
    assert sorted(before["egopathbench_audits"]) == ["obstruction.json", "sensitivity.json"]

    secret = tmp_path / "secret.npz"
    secret.write_bytes((run / "passes" / "f-0.npz").read_bytes())
    rec = json.loads((run / "records.jsonl").read_text())
    rec["passes"] = str(secret)                                  # the audit would read outside the run
    (run / "records.jsonl").write_text(json.dumps(rec) + "\n")
    with pytest.raises(EgoPathExportError, match="outside") as exc:
        export_release([run], out, bench, log=lambda _: None)
    assert "\n" not in str(exc.value)
    assert sorted(p.name for p in out.iterdir()) == ["egopathbench", "egopathbench_audits"]   # no staging
    assert {d: _tree(out / d) for d in before} == before

    bench_file = tmp_path / "bench.yaml"
    bench_file.write_text(yaml.safe_dump(bench))
    capsys.readouterr()
    assert main(["export", "--benchmark", str(bench_file), "--runs", str(run), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "outside" in err
    assert {d: _tree(out / d) for d in before} == before


def test_frame_outside_the_run_is_refused(tmp_path):
    from packagers.egopath import EgoPathExportError, export_egopathbench

    run = make_run(tmp_path / "runs", n_groups=2)
    recs = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
    link = run / "frames" / "link.jpg"
    link.symlink_to(Path("/etc/passwd"))
    recs[0]["image"] = "frames/link.jpg"
    (run / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    with pytest.raises(EgoPathExportError, match="outside"):
        export_egopathbench([run], tmp_path / "ds", BENCH)
    assert not (tmp_path / "ds").exists()


def test_undecodable_frame_is_one_line(tmp_path):
    from packagers.egopath import EgoPathExportError, export_egopathbench

    run = make_run(tmp_path / "runs", n_groups=2)
    first = json.loads((run / "records.jsonl").read_text().splitlines()[0])
    (run / first["image"]).write_bytes(b"\xff\xd8 not a jpeg")
    with pytest.raises(EgoPathExportError, match="cannot be decoded"):
        export_egopathbench([run], tmp_path / "ds", BENCH)
    assert not (tmp_path / "ds").exists()


def test_empty_or_garbled_records_are_one_line(tmp_path):
    from packagers.egopath import EgoPathExportError, export_egopathbench

    run = make_run(tmp_path / "runs", n_groups=2)
    good = (run / "records.jsonl").read_bytes()
    (run / "records.jsonl").write_bytes(good + b"\xff\n")
    with pytest.raises(EgoPathExportError, match="not UTF-8"):
        export_egopathbench([run], tmp_path / "ds", BENCH)
    (run / "records.jsonl").write_text("")
    with pytest.raises(EgoPathExportError, match="holds no frames"):
        export_egopathbench([run], tmp_path / "ds", BENCH)
    assert not (tmp_path / "ds").exists()
