"""EgoPathBench: first-person navigation questions per task config, train / validation /
benchmark splits by scene group, SFT export and App. B audits, EgoPathScore grading."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from formats.benchmark_config import EgoPathBenchConfig, as_benchmark_dict
from scenebench.benchmarks.base import Benchmark, Log, RequestDefaults, ScoreOptions, ScoreResult
from scenebench.errors import CliError


class EgoPathBench(Benchmark):
    name = "egopathbench"
    config_model = EgoPathBenchConfig
    default_split = "benchmark"
    # App. A: "an 8,192-token completion budget. Temperature is 0 and top-p is 1".
    request_defaults = RequestDefaults(max_tokens=8192, temperature=0.0, top_p=1.0)

    def export(self, runs: Sequence[Path], out, config, source: Path, fmt: str = "hf", log: Log = print) -> Path:
        """The dataset, then the SFT export and the audits as the file's `export:` options say."""
        from packagers.egopath import EgoPathExportError
        from packagers.egopath_release import export_release

        try:
            return export_release(list(runs), Path(out), as_benchmark_dict(config, self.config_model), log=log).root
        except EgoPathExportError as exc:
            raise CliError(str(exc)) from None

    def find_dataset(self, path) -> Path | None:
        from scorers.egopath_report import find_egopath_root

        return find_egopath_root(path)

    def load_items(self, dataset, split: str | None = None) -> list:
        from scorers.egopath_report import EgoPathDataError, load_questions

        try:
            return load_questions(dataset, split=split or self.default_split)
        except EgoPathDataError as exc:
            raise CliError(str(exc)) from None

    def score(self, dataset, predictions: Sequence[str], report_dir, options: ScoreOptions) -> ScoreResult:
        """Grading and report are one library call (scorers.egopath_report.run_score): App. A's
        scene-cluster bootstrap (10,000 resamples, seed 20260717) unless the options say otherwise."""
        from scorers import egopath
        from scorers.egopath_report import EgoPathDataError, run_score, summary_table

        seed = egopath.SEED if options.seed is None else options.seed
        n_res = egopath.N_RESAMPLES if options.n_resamples is None else options.n_resamples
        try:
            metrics, warnings, md = run_score(dataset, predictions, report_dir, seed=seed, n_resamples=n_res)
        except (EgoPathDataError, ValueError) as exc:
            raise CliError(str(exc)) from None
        return ScoreResult(metrics=metrics, warnings=list(warnings), table=summary_table(metrics), report=Path(md))

    def audit(self, runs, dataset, out, predictions, splits) -> list[Path]:
        from packagers.egopath_audits import run_audits

        return list(run_audits([Path(r) for r in runs], dataset, out, predictions, tuple(splits)))


BENCHMARK = EgoPathBench()
