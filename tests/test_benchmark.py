"""`make benchmark`: the versioned file drives the renders, missing environments are
listed as skipped, and regenerating yields the same SHA256SUMS."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, preview_quality
from scenebench.regenerate import run_benchmark, run_root_for, scaled
from render_farm.runner import ConfigError

pytestmark = pytest.mark.render


def test_scaling_keeps_zero_and_at_least_one():
    assert scaled(100, 1.0) == 100 and scaled(50, 0.02) == 1 and scaled(0, 5.0) == 0 and scaled(100, 0.15) == 15


def test_benchmark_renders_exports_and_regenerates_byte_identically(tmp_path):
    bench = yaml.safe_load((ROOT / "configs/benchmark/realitybench.yaml").read_text())
    # a name no module declares stands for an environment not built yet (all eleven exist now)
    bench["environments"] = {"tape_gap": {"random": 100, "positive": 50}, "not_built_yet": {"random": 100}}
    path = tmp_path / "mini.yaml"
    path.write_text(yaml.safe_dump(bench))
    lines: list[str] = []
    kw = dict(scale=0.02, datasets_out=str(tmp_path / "ds"), workers=2, progress=False,
              quality="preview", log=lines.append)     # `make benchmark QUALITY=preview`: a preset by name
    s = run_benchmark(str(path), out=str(tmp_path / "out"), **kw)
    assert s.rendered == {"tape_gap": {"random": 2, "positive": 1}}
    assert s.run_root == tmp_path / "out" / f"realitybench-{bench['version']}-scale0.02-preview"   # not the file's
    manifest = json.loads((s.run_root / "tape_gap" / "manifest.json").read_text())
    assert manifest["fingerprint"]["quality"] == preview_quality()
    assert s.skipped == ["not_built_yet"] and any("skipped" in line and "not_built_yet" in line for line in lines)
    sums = (s.dataset_dir / "SHA256SUMS").read_bytes()
    shutil.rmtree(tmp_path / "ds")
    again = run_benchmark(str(path), out=str(tmp_path / "out2"), **kw)  # a fresh render, not a resume
    assert (again.dataset_dir / "SHA256SUMS").read_bytes() == sums


def test_run_folders_split_by_version_scale_and_a_preset_other_than_the_files():
    from scenebench.benchmarks import resolve_benchmark

    _, cfg, _ = resolve_benchmark("realitybench")
    assert cfg.quality == "final"
    v = cfg.version
    assert run_root_for("out", cfg, 0.02, "final") == Path(f"out/realitybench-{v}-scale0.02")   # the file's own
    assert run_root_for("out", cfg, 1.0, "standard") == Path(f"out/realitybench-{v}-scale1-standard")
    assert run_root_for("o", cfg, 0.5, "preview") == Path(f"o/realitybench-{v}-scale0.5-preview")


def test_stale_generator_version_is_refused(tmp_path):
    bench = yaml.safe_load((ROOT / "configs/benchmark/realitybench.yaml").read_text())
    bench["environments"] = {"tape_gap": {"random": 1}}
    bench["generator_versions"]["tape_gap"] = "tape_gap-0"
    path = tmp_path / "old.yaml"
    path.write_text(yaml.safe_dump(bench))
    with pytest.raises(ConfigError, match="pins tape_gap at generator 'tape_gap-0'"):
        run_benchmark(str(path), out=str(tmp_path / "o"), quality_override=preview_quality(), log=lambda *_: None)


def test_benchmark_file_pins_the_registered_generators():
    from blender_envs.registry import get_environment, known_environments

    bench = yaml.safe_load((ROOT / "configs/benchmark/realitybench.yaml").read_text())
    for env in known_environments():
        if env in bench["environments"]:
            assert bench["generator_versions"][env] == get_environment(env).version, env


def test_egopathbench_renders_and_releases_byte_identically(tmp_path):
    """`make benchmark BENCHMARK=egopathbench`: the egopath renders become the EgoPathBench
    release (dataset + SFT + audits), and a fresh regeneration gives the same SHA256SUMS."""
    bench = yaml.safe_load((ROOT / "configs/benchmark/egopathbench.yaml").read_text())
    bench["environments"] = {"egopath": {"random": 4}}
    bench["splits"] = {"train": 0.0, "validation": 0.0, "benchmark": 1.0}
    path = tmp_path / "mini.yaml"
    path.write_text(yaml.safe_dump(bench))
    lines: list[str] = []
    kw = dict(scale=1.0, datasets_out=str(tmp_path / "ds"), workers=2, progress=False,
              quality_override=preview_quality(long_side_px=256), log=lines.append)
    s = run_benchmark(str(path), out=str(tmp_path / "out"), **kw)
    assert s.rendered == {"egopath": {"random": 4}}
    assert (s.dataset_dir / "benchmark.json").is_file()
    assert any("questions from 1 run(s)" in line for line in lines)
    assert (tmp_path / "ds" / "egopathbench_audits" / "sensitivity.json").is_file()
    sums = (s.dataset_dir / "SHA256SUMS").read_bytes()
    shutil.rmtree(tmp_path / "ds")
    again = run_benchmark(str(path), out=str(tmp_path / "out2"), **kw)
    assert (again.dataset_dir / "SHA256SUMS").read_bytes() == sums
