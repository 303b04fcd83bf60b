"""The Benchmark contract: every benchmark file validates into its model, bad fields are one
line naming the field, the subcommands dispatch through the registry (a new benchmark is a
new module), RUNS may be an output root, and generic code never tests a benchmark's name."""
from __future__ import annotations

import ast
import json
import re
import textwrap
from pathlib import Path

import pytest
import yaml

from conftest import ROOT
from formats.benchmark_config import (BenchmarkConfigError, EgoPathBenchConfig, RealityBenchConfig,
                                      as_benchmark_dict, load_config)
from scenebench import benchmarks
from scenebench.benchmarks import benchmark_for_dataset, get_benchmark, known_benchmarks, resolve_benchmark
from scenebench.cli import main
from scenebench.errors import CliError
from scenebench.runs import expand_runs

BENCH_FILES = sorted((ROOT / "configs/benchmark").glob("*.yaml"))


def _one_line_error(capsys, argv, *needles) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("scenebench: error: "), err
    for n in needles:
        assert n in err[0], err[0]
    return err[0]


# ---------------------------------------------------------------------------------- registry
def test_registry_holds_the_two_benchmarks_and_every_file_has_one():
    assert known_benchmarks() == ["egopathbench", "realitybench", "vantage"]
    assert benchmarks.default_benchmark().name == "realitybench"
    assert sorted(p.stem for p in BENCH_FILES) == known_benchmarks()
    assert get_benchmark("egopathbench").default_split == "benchmark"
    assert get_benchmark("realitybench").default_split == "test"
    assert get_benchmark("realitybench").export_formats == ("hf", "vlmevalkit")
    assert get_benchmark("egopathbench").export_formats == ("hf", "vlmevalkit")


@pytest.mark.parametrize("path", BENCH_FILES, ids=lambda p: p.stem)
def test_every_benchmark_file_validates_into_its_model(path):
    bench, cfg, source = resolve_benchmark(path.stem)
    assert source == path and type(cfg) is bench.config_model and cfg.benchmark == path.stem
    assert resolve_benchmark(str(path))[1] == cfg                  # the path form gives the same config
    raw = yaml.safe_load(path.read_text())
    assert cfg.version == raw["version"] and cfg.root_seed == raw["root_seed"] == 0
    assert list(cfg.environments) == list(raw["environments"])
    # a packager sees the file's keys as written (only the per-stratum counts are filled in)
    dumped = as_benchmark_dict(cfg, bench.config_model)
    envs = {e: {"random": c.get("random", 0), "positive": c.get("positive", 0)} for e, c in raw["environments"].items()}
    assert dumped == {**raw, "environments": envs}


def test_shipped_values_are_pinned():
    rb = load_config(ROOT / "configs/benchmark/realitybench.yaml", RealityBenchConfig)
    assert (rb.quality, rb.split, len(rb.environments)) == ("final", "test", 11)
    assert sum(c.random for c in rb.environments.values()) == 1100
    assert sum(c.positive for c in rb.environments.values()) == 350     # 11 x 100 + 7 x 50 = 1,450 (§4)
    ep = load_config(ROOT / "configs/benchmark/egopathbench.yaml", EgoPathBenchConfig)
    assert ep.splits == {"train": 0.7, "validation": 0.1, "benchmark": 0.2}
    assert ep.benchmark_selection.route_bundles == 309 and ep.export.audits is True


def test_unset_knobs_stay_unset_for_the_packager():
    d = as_benchmark_dict({"benchmark": "egopathbench", "version": "t", "environments": {"egopath": {}}},
                          EgoPathBenchConfig)
    assert d == {"benchmark": "egopathbench", "version": "t", "environments": {"egopath": {"random": 0, "positive": 0}},
                 "generator_versions": {}}


def _bad(tmp_path, **change) -> Path:
    data = yaml.safe_load((ROOT / "configs/benchmark/realitybench.yaml").read_text())
    for k, v in change.items():
        data[k] = v
    p = tmp_path / "bad.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


@pytest.mark.parametrize("change, needle", [
    ({"enviroments": {}}, "enviroments: unknown field"),
    ({"environments": {"tape_gap": {"random": 1, "postive": 2}}}, "environments.tape_gap.postive: unknown field"),
    ({"environments": {"tape_gap": {"random": -1}}}, "environments.tape_gap.random: Input should be greater than"),
    ({"version": 1.1}, "version: Input should be a valid string (got 1.1)"),
    ({"split": "train"}, "split: Input should be 'test'"),
    ({"benchmark": "vista"}, "benchmark: unknown benchmark 'vista'; known benchmarks: egopathbench, realitybench, vantage"),
    ({"benchmark": None}, "benchmark: missing field"),
])
def test_bad_fields_are_one_line_errors_naming_the_field(tmp_path, capsys, change, needle):
    path = _bad(tmp_path, **change)
    line = _one_line_error(capsys, ["export", "--benchmark", str(path), "--out", str(tmp_path / "ds")], needle)
    assert str(path) in line
    assert not (tmp_path / "ds").exists()


def test_unreadable_files_are_one_line_errors(tmp_path, capsys):
    (tmp_path / "list.yaml").write_text("- a\n- b\n")
    _one_line_error(capsys, ["export", "--benchmark", str(tmp_path / "list.yaml")], "expected a mapping")
    (tmp_path / "broken.yaml").write_text("benchmark: [unclosed\n")
    _one_line_error(capsys, ["export", "--benchmark", str(tmp_path / "broken.yaml")], "not valid YAML")
    _one_line_error(capsys, ["export", "--benchmark", str(tmp_path / "absent.yaml")], "does not exist")
    with pytest.raises(BenchmarkConfigError, match=r"environments\.egopath\.random"):
        as_benchmark_dict({"benchmark": "egopathbench", "version": "t", "environments": {"egopath": {"random": "x"}}},
                          EgoPathBenchConfig)


@pytest.mark.parametrize("cmd", ["export", "benchmark"])
def test_unknown_benchmark_name_lists_known_ones(tmp_path, capsys, cmd):
    _one_line_error(capsys, [cmd, "--benchmark", "vista", "--out", str(tmp_path / "x")],
                    "unknown benchmark 'vista'; known benchmarks: egopathbench, realitybench, vantage "
                    "(or the path of a benchmark YAML file)")
    assert not (tmp_path / "x").exists()


# ---------------------------------------------------------------------------------- dispatch
def _parquet(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"PAR1")


def test_dataset_dispatch(tmp_path):
    rb = tmp_path / "datasets/realitybench"
    _parquet(rb / "tape_gap/test-00000-of-00001.parquet")
    assert benchmark_for_dataset(rb) == (get_benchmark("realitybench"), rb)
    assert benchmark_for_dataset(rb.parent) == (get_benchmark("realitybench"), rb)   # the export's parent
    ep = tmp_path / "only/egopathbench"
    _parquet(ep / "point_path/benchmark-00000-of-00001.parquet")
    (ep / "benchmark.json").write_text(json.dumps({"benchmark": "egopathbench"}))
    assert benchmark_for_dataset(ep) == (get_benchmark("egopathbench"), ep)
    assert benchmark_for_dataset(ep.parent) == (get_benchmark("egopathbench"), ep)
    # nothing claims it: the default benchmark, whose loader names the problem
    assert benchmark_for_dataset(tmp_path / "nope") == (get_benchmark("realitybench"), tmp_path / "nope")
    (tmp_path / "datasets/egopathbench").symlink_to(ep, target_is_directory=True)
    with pytest.raises(CliError, match="several benchmarks"):
        benchmark_for_dataset(tmp_path / "datasets")


def test_model_runs_finds_the_one_export_below_a_parent(tmp_path):
    from model_runs.dataset_items import resolve_root

    _parquet(tmp_path / "datasets/realitybench/tape_gap/test-00000-of-00001.parquet")
    _parquet(tmp_path / "datasets/.realitybench.staging/tape_gap/test-00000-of-00001.parquet")   # ignored
    _parquet(tmp_path / "datasets/egopathbench/point_path/benchmark-00000-of-00001.parquet")
    assert resolve_root(tmp_path / "datasets") == tmp_path / "datasets/realitybench"
    assert resolve_root(tmp_path / "datasets", "benchmark") == tmp_path / "datasets/egopathbench"
    _parquet(tmp_path / "datasets/other/tape_gap/test-00000-of-00001.parquet")
    assert resolve_root(tmp_path / "datasets") == tmp_path / "datasets"      # two candidates: not guessed


def test_audit_dispatches_by_dataset(tmp_path, capsys):
    rb = tmp_path / "realitybench"
    _parquet(rb / "tape_gap/test-00000-of-00001.parquet")
    assert main(["audit", "--runs", str(tmp_path), "--dataset", str(rb), "--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["scenebench audit: error: realitybench has no audits (scenebench audit runs only for "
                   "benchmarks that define them)"]
    assert not (tmp_path / "a").exists()


def test_predict_takes_split_and_request_defaults_from_the_benchmark():
    from scenebench.predict_cli import _with_defaults, build_parser

    base = ["--dataset", "d", "--endpoint", "http://x/v1", "--model", "m"]
    a = build_parser().parse_args(base)
    _with_defaults(a, get_benchmark("egopathbench"))
    # EgoPathBench App. A: 8,192 completion tokens, temperature 0, top-p 1
    assert (a.split, a.max_tokens, a.concurrency, a.timeout, a.max_retries, a.temperature, a.top_p) == \
        ("benchmark", 8192, 4, 120.0, 4, 0.0, 1.0)
    a = build_parser().parse_args(base)
    _with_defaults(a, get_benchmark("realitybench"))
    assert (a.split, a.max_tokens, a.temperature, a.top_p) == ("test", 16384, None, None)
    a = build_parser().parse_args([*base, "--split", "train", "--max-tokens", "7", "--temperature", "0.5"])
    _with_defaults(a, get_benchmark("egopathbench"))
    assert (a.split, a.max_tokens, a.temperature, a.top_p) == ("train", 7, 0.5, 1.0)


VISTA = '''
"""A test-only benchmark module: proves a new family plugs in as one module."""
from pathlib import Path
from typing import Literal

from formats import atomic
from formats.benchmark_config import BenchmarkFile
from scenebench.benchmarks.base import Benchmark, ScoreResult


class VistaConfig(BenchmarkFile):
    benchmark: Literal["vista"] = "vista"


class Vista(Benchmark):
    name = "vista"
    export_formats = ("hf",)      # no Parquet rows here, so no VLMEvalKit folder either
    config_model = VistaConfig
    default_split = "test"

    def export(self, runs, out, config, source, fmt="hf", log=print):
        root = self.dataset_dir(out)
        atomic.write_json(root / "vista.json", {"runs": [Path(r).name for r in runs],
                                                  "version": config.version, "source": Path(source).name})
        log(f"vista: {len(runs)} run(s) -> {root}")
        return root

    def find_dataset(self, path):
        p = Path(path)
        return p if (p / "vista.json").is_file() else None

    def score(self, dataset, predictions, report_dir, options):
        md = Path(report_dir) / "report.md"
        atomic.write_text(md, "vista\\n")
        return ScoreResult(metrics={}, warnings=["w"], table=f"vista table seed={options.seed}", report=md)


BENCHMARK = Vista()
'''


def test_a_new_benchmark_is_one_module(tmp_path, monkeypatch, capsys):
    pkg = tmp_path / "plugins"
    pkg.mkdir()
    (pkg / "vista.py").write_text(textwrap.dedent(VISTA))
    monkeypatch.setattr(benchmarks, "__path__", [*benchmarks.__path__, str(pkg)])
    benchmarks.registry.cache_clear()
    try:
        assert known_benchmarks() == ["egopathbench", "realitybench", "vantage", "vista"]
        for env in ("tape_gap", "calib"):
            (tmp_path / "out" / env).mkdir(parents=True)
            (tmp_path / "out" / env / "records.jsonl").write_text("")
        cfg = tmp_path / "vista.yaml"
        cfg.write_text(yaml.safe_dump({"benchmark": "vista", "version": "0.1", "environments": {"tape_gap": {}}}))
        assert main(["export", "--benchmark", str(cfg), "--runs", str(tmp_path / "out"),
                     "--out", str(tmp_path / "ds")]) == 0
        meta = json.loads((tmp_path / "ds/vista/vista.json").read_text())
        assert meta == {"runs": ["tape_gap"], "version": "0.1", "source": "vista.yaml"}   # calib not listed
        _one_line_error(capsys, ["export", "--benchmark", str(cfg), "--format", "vlmevalkit"],
                        "vista exports only --format hf")
        assert main(["score", "--dataset", str(tmp_path / "ds/vista"), "--predictions", "p.jsonl",
                     "--report-dir", str(tmp_path / "rep"), "--seed", "3"]) == 0
        out = capsys.readouterr()
        assert "vista table seed=3" in out.out and "scenebench: warning: w" in out.err
        assert (tmp_path / "rep/report.md").read_text() == "vista\n"
    finally:
        benchmarks.registry.cache_clear()


# ---------------------------------------------------------------------------------- RUNS root
def _run(d: Path) -> Path:
    d.mkdir(parents=True)
    (d / "records.jsonl").write_text("")
    return d


def test_runs_accepts_runs_and_output_roots(tmp_path):
    envs = ["tape_gap", "slope_gauge", "breaker_label"]
    root = tmp_path / "out/realitybench-1.1.0-scale0.1"
    tg, sg = _run(root / "tape_gap"), _run(root / "slope_gauge")
    _run(root / "calib")                                    # not in the benchmark: left out
    (root / "breaker_label").mkdir()                        # no records yet: left out
    assert expand_runs([root], envs, "realitybench") == [tg, sg]           # benchmark order
    assert expand_runs([sg, root], envs, "realitybench") == [sg, tg]       # a run as given, no duplicates
    lone = _run(tmp_path / "lone")
    assert expand_runs([lone], envs, "realitybench") == [lone]
    with pytest.raises(CliError, match=r"^run directory .*nope does not exist$"):
        expand_runs([tmp_path / "nope"], envs, "realitybench")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CliError, match=r"empty is neither a run directory \(no records.jsonl\) nor an output "
                                       r"root holding <env>/records.jsonl for an environment of realitybench$"):
        expand_runs([tmp_path / "empty"], envs, "realitybench")


def test_make_export_with_an_output_root_equals_the_runs_listed(tmp_path):
    from test_score_cli import _cli, make_run

    root = tmp_path / "out"
    a = make_run(root / "tape_gap", "tape_gap", "random", ["accept", "reject"])
    b = make_run(root / "slope_gauge", "slope_gauge", "random", ["accept"])
    r = _cli("export", "--runs", str(root), "--out", str(tmp_path / "d1"))
    assert r.returncode == 0, r.stderr
    assert "3 frames from 2 run(s)" in r.stdout
    r = _cli("export", "--runs", str(a), str(b), "--out", str(tmp_path / "d2"))
    assert r.returncode == 0, r.stderr
    sums = [(tmp_path / d / "realitybench/SHA256SUMS").read_bytes() for d in ("d1", "d2")]
    assert sums[0] == sums[1]
    r = _cli("export", "--runs", str(tmp_path / "d1"), "--out", str(tmp_path / "d3"))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "is neither a run" in r.stderr
    assert not (tmp_path / "d3").exists()


def test_packager_accepts_the_validated_model(tmp_path):
    from packagers.hf_export import export_realitybench
    from test_score_cli import make_run

    runs = [make_run(tmp_path / "runs/tape_gap", "tape_gap", "random", ["accept", "reject"])]
    path = ROOT / "configs/benchmark/realitybench.yaml"
    a = export_realitybench(runs, tmp_path / "a", path)
    b = export_realitybench(runs, tmp_path / "b", load_config(path, RealityBenchConfig))
    assert (a.root / "README.md").read_bytes() == (b.root / "README.md").read_bytes()
    version = yaml.safe_load(path.read_text())["version"]
    assert f"version `{version}`, root seed 0, quality preset `final`" in (a.root / "README.md").read_text()


# ------------------------------------------------------------------ no name tests in generic code
GENERIC = ("scenebench", "render_farm", "model_runs")


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def _name_literals(path: Path, names: list[str]) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    pat = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b", re.IGNORECASE)
    return [f"{path}:{n.lineno}: {n.value!r}" for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in skip and pat.search(n.value)]


def _name_tests(path: Path, names: list[str]) -> list[str]:
    """Names used as a test: compared (==, !=, in), matched, or as keys of a lookup table."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names_set = set(names)

    def lits(node) -> list[str]:
        if isinstance(node, ast.Constant) and node.value in names_set:
            return [node.value]
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return [v for e in node.elts for v in lits(e)]
        return []

    hits = []
    for n in ast.walk(tree):
        found = []
        if isinstance(n, ast.Compare):
            found = [v for side in (n.left, *n.comparators) for v in lits(side)]
        elif isinstance(n, ast.Dict):
            found = [v for k in n.keys if k is not None for v in lits(k)]
        elif isinstance(n, ast.MatchValue):
            found = lits(n.value)
        hits += [f"{path}:{n.lineno}: {v!r}" for v in found]
    return hits


def _generic_files() -> list[Path]:
    own = {ROOT / "scenebench/benchmarks" / f"{n}.py" for n in known_benchmarks()}
    files = [p for d in GENERIC for p in sorted((ROOT / d).rglob("*.py")) if p not in own]
    assert len(files) > 20
    return files


NAMES = ["realitybench", "egopathbench", "vantage", "vista"]
# Code generators: their strings are templates of an environment's own modules, not generic code.
TEMPLATES = {ROOT / "scenebench/scaffold.py"}


def test_generic_code_never_tests_for_a_benchmark_name():
    """No `if name == ...`, `in (...)`, `match` or name-keyed table outside a benchmark's own module."""
    hits = [h for p in _generic_files() for h in _name_tests(p, NAMES)]
    assert hits == [], "\n".join(hits)


def test_generic_code_never_names_a_benchmark():
    """Stricter: not even a message or a default spells a name; everything asks the registry."""
    hits = [h for p in _generic_files() if p not in TEMPLATES for h in _name_literals(p, NAMES)]
    assert hits == [], "\n".join(hits)


def test_the_name_checks_catch_a_branch(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text('"""doc mentions egopathbench: allowed."""\nif x == "egopathbench":\n    pass\n'
                     'y = f"{1}-RealityBench.tsv"\nSPLITS = {"vista": "test"}\nok = b in ("a", "vantage")\n'
                     'prompts = "realitybench"\n')
    def lines(hits):
        return sorted((int(h.split(":")[1]), h.split(": ", 1)[1]) for h in hits)

    assert lines(_name_literals(probe, NAMES)) == [(2, "'egopathbench'"), (4, "'-RealityBench.tsv'"), (5, "'vista'"),
                                                  (6, "'vantage'"), (7, "'realitybench'")]
    assert lines(_name_tests(probe, NAMES)) == [(2, "'egopathbench'"), (5, "'vista'"), (6, "'vantage'")]


def _imports(path: Path) -> set[str]:
    out = set()
    for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(n, ast.Import):
            out |= {a.name.split(".")[0] for a in n.names}
        elif isinstance(n, ast.ImportFrom) and n.module and not n.level:
            out.add(n.module.split(".")[0])
    return out


def test_regeneration_lives_above_the_farm_and_the_packagers():
    assert not (ROOT / "render_farm/benchmark.py").exists()
    for p in sorted((ROOT / "render_farm").rglob("*.py")):
        assert not _imports(p) & {"scenebench", "packagers", "model_runs"}, p
    for p in [*sorted((ROOT / "packagers").rglob("*.py")), *sorted((ROOT / "model_runs").rglob("*.py"))]:
        assert "scenebench" not in _imports(p), p
    for mod in ("packagers/egopath_audits.py", "model_runs/predict.py"):
        src = (ROOT / mod).read_text()
        assert "argparse" not in src and "def main" not in src and "def predict_main" not in src, mod


@pytest.mark.parametrize("change, needle", [
    ({"root_seed": None}, "root_seed: missing field; regeneration needs it"),
    ({"quality": "ultra"}, "quality: unknown preset 'ultra'; choose one of"),
    ({"quality": None}, "quality: missing field"),
])
def test_regeneration_refuses_an_incomplete_file_before_rendering(tmp_path, capsys, change, needle):
    path = _bad(tmp_path, **change)
    _one_line_error(capsys, ["benchmark", "--benchmark", str(path), "--out", str(tmp_path / "out"),
                             "--datasets", str(tmp_path / "ds")], needle)
    assert not (tmp_path / "out").exists() and not (tmp_path / "ds").exists()


@pytest.mark.parametrize("preset", ["ultra", "../render/final", "standard/../final", "/etc/passwd", ""])
def test_an_unknown_quality_on_the_command_line_is_refused_before_rendering(tmp_path, capsys, preset):
    """`--quality` (make benchmark QUALITY=) names a listed configs/render/ preset; anything
    else, a path in particular, is one line and nothing written."""
    _one_line_error(capsys, ["benchmark", "--quality", preset, "--out", str(tmp_path / "out"),
                             "--datasets", str(tmp_path / "ds")],
                    f"--quality: unknown preset {preset!r}; choose one of final, preview, standard")
    assert not (tmp_path / "out").exists() and not (tmp_path / "ds").exists()
