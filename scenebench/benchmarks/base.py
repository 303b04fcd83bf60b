"""`Benchmark`: everything one benchmark owns, behind one interface.

Generic code (the CLI, the whole-benchmark regeneration) asks the registry for a
`Benchmark` and calls only what is defined here, so a new benchmark family is a new module
in this package (and its config model in `formats.benchmark_config`), never a new
`if name == ...` branch. Heavy packages (packagers, scorers, pyarrow) are imported inside
the methods so listing the registry stays cheap.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, ClassVar, Sequence

from formats.benchmark_config import BenchmarkFile, load_config
from scenebench import CONFIG_DIR
from scenebench.errors import CliError

Log = Callable[[str], None]


@dataclass(frozen=True)
class RequestDefaults:
    """`scenebench predict` settings a benchmark chooses (the command line overrides each)."""
    max_tokens: int = 1024
    temperature: float | None = None
    top_p: float | None = None
    timeout_s: float = 120.0
    max_retries: int = 4
    concurrency: int = 4


@dataclass(frozen=True)
class ScoreOptions:
    """`scenebench score` knobs; `None` means the benchmark's own default (its paper's)."""
    seed: int | None = None
    n_resamples: int | None = None
    n_paired: int = 2000
    prices: str | None = None
    reply_tokenizer: str | None = None  # tokenizer.json: split single output counts (thinking tokens)


@dataclass
class ScoreResult:
    metrics: dict
    warnings: list[str]
    table: str                          # the stdout summary
    report: Path                        # report.md
    extra: dict = field(default_factory=dict)


class Benchmark:
    """One benchmark family. Subclasses set the class attributes and implement the methods."""

    name: ClassVar[str]
    display_name: ClassVar[str]                 # as a paper writes it (VLMEvalKit dataset names)
    config_model: ClassVar[type[BenchmarkFile]]
    default_split: ClassVar[str]
    export_formats: ClassVar[tuple[str, ...]] = ("hf", "vlmevalkit")   # vlmevalkit: also the TSV folder
    is_default: ClassVar[bool] = False          # the one `--benchmark` falls back to
    request_defaults: ClassVar[RequestDefaults] = RequestDefaults()

    @property
    def config_file(self) -> Path:
        return CONFIG_DIR / "benchmark" / f"{self.name}.yaml"

    def load_config(self, path: str | Path | None = None) -> BenchmarkFile:
        return load_config(path or self.config_file, self.config_model)

    def dataset_dir(self, out: str | Path) -> Path:
        """Where `export(..., out)` puts the dataset."""
        return Path(out) / self.name

    # -- export ------------------------------------------------------------------------------
    def export(self, runs: Sequence[Path], out: str | Path, config: BenchmarkFile, source: Path,
               fmt: str = "hf", log: Log = print) -> Path:
        """Run stores -> the released dataset under `out`; returns its root. Raises CliError."""
        raise NotImplementedError

    # -- grading -----------------------------------------------------------------------------
    def find_dataset(self, path: str | Path) -> Path | None:
        """The export root if `path` (or `path/<name>`) is an export of this benchmark, else None."""
        raise NotImplementedError

    def load_items(self, dataset: str | Path, split: str | None = None) -> list:
        """The gradable items of an export (no images)."""
        raise NotImplementedError

    def score(self, dataset: str | Path, predictions: Sequence[str], report_dir: str | None,
              options: ScoreOptions) -> ScoreResult:
        """Grade prediction files and write the report directory. Raises CliError."""
        raise NotImplementedError

    # -- supporting audits -------------------------------------------------------------------
    def audit(self, runs: Sequence[Path], dataset: Path, out: str | Path, predictions: str | None,
              splits: Sequence[str]) -> list[Path]:
        raise CliError(f"{self.name} has no audits (scenebench audit runs only for benchmarks that define them)")

    # -- the whole release: the export, then the harness task folders every benchmark gets ----
    def release(self, runs: Sequence[Path], out: str | Path, config: BenchmarkFile, source: Path,
                fmt: str = "hf", log: Log = print) -> Path:
        """`export`, then the lmms-eval task folder beside it (`scenebench export` and
        `scenebench benchmark` call this, so no benchmark can ship without its tasks), and with
        `fmt="vlmevalkit"` the VLMEvalKit folder too (its TSVs copy every image, so on request)."""
        root = self.export(runs, out, config, source, fmt=fmt, log=log)
        self.write_lmms_eval_tasks(root, root.with_name(root.name + LMMS_EVAL_SUFFIX), log=log)
        if fmt == "vlmevalkit":
            self.write_vlmevalkit(root, root.with_name(root.name + VLMEVALKIT_SUFFIX), config.version, log=log)
        return root

    # -- lmms-eval (scenebench.lmms_eval_hooks runs these inside lmms-eval) ----------------
    # A benchmark says which metrics each config's task prints and how one row is graded; the
    # task folder, the generated hooks and the pooled group metrics are generic.
    lmms_eval_group_metrics: ClassVar[tuple[str, ...]] = ()
    lmms_eval_lower_is_better: ClassVar[tuple[str, ...]] = ()

    def lmms_eval_metrics(self, config: str) -> tuple[str, ...]:
        """The metrics the task of `config` prints (each includes every group metric)."""
        return self.lmms_eval_group_metrics

    def lmms_eval_in_group(self, config: str) -> bool:
        """Whether the group task (the benchmark's set-level numbers) includes this config."""
        return True

    def row_config(self, row: dict) -> str:
        """The config an exported row belongs to."""
        raise NotImplementedError

    def grade_row(self, row: dict, reply) -> dict:
        """One row and a model's raw reply -> a JSON-ready record that `set_metrics` reads."""
        raise NotImplementedError

    def set_metrics(self, graded: Sequence[dict]) -> dict[str, float | None]:
        """`grade_row` records of any rows -> the point estimates `scenebench score` reports for
        them (None where a metric is undefined on those rows)."""
        raise NotImplementedError

    def write_lmms_eval_tasks(self, root: Path, dest: Path, log: Log = print) -> Path | None:
        """The lmms-eval task folder for the export at `root` (packagers.lmms_eval_tasks)."""
        from packagers.lmms_eval_tasks import build_suite, write_tasks

        suite = build_suite(self.name, root, self.default_split, metrics=self.lmms_eval_metrics,
                            in_group=self.lmms_eval_in_group, group_metrics=self.lmms_eval_group_metrics,
                            generation=generation_kwargs(self.request_defaults),
                            lower_is_better=self.lmms_eval_lower_is_better)
        if not suite.configs:
            log(f"scenebench: no lmms-eval tasks: no config has a {self.default_split!r} split")
            if dest.is_dir():   # an earlier release's tasks would name shards this one does not have
                shutil.rmtree(dest)
                log(f"scenebench: removed {dest} (from an earlier release)")
            return None
        write_tasks(suite, root, dest)
        log(f"scenebench: lmms-eval tasks ({len(suite.configs)} configs, group {self.name}) -> {dest}")
        return dest


    # -- VLMEvalKit (scenebench.vlmevalkit_hooks runs the grading inside VLMEvalKit) ----------
    # The datasets follow the lmms-eval group (`lmms_eval_in_group`): the set in one TSV, each
    # config outside it in its own; a benchmark says only what a row's `answer` cell shows.
    def vlmevalkit_answer(self, row: dict) -> str:
        """The `answer` cell: what the grader scores of this row, as text."""
        raise NotImplementedError

    def write_vlmevalkit(self, root: Path, dest: Path, version: str, log: Log = print) -> Path:
        """The VLMEvalKit folder (TSVs, dataset class file) for the export at `root`."""
        from packagers.vlmevalkit import VlmError, build_suite, write_folder

        try:
            suite = build_suite(self.name, self.display_name, version, root, self.default_split,
                                in_set=self.lmms_eval_in_group)
            write_folder(suite, root, dest, answer=self.vlmevalkit_answer, category=self.row_config)
        except VlmError as exc:
            raise CliError(str(exc)) from None
        log(f"scenebench: VLMEvalKit datasets ({', '.join(d.name for d in suite.datasets)}) -> {dest}")
        return dest


LMMS_EVAL_SUFFIX = "_lmms_eval"
VLMEVALKIT_SUFFIX = "_vlmevalkit"


def generation_kwargs(d: RequestDefaults) -> dict:
    """lmms-eval `generation_kwargs` from the benchmark's request defaults; `until: []` so that no
    model stops at lmms-eval's default "\\n\\n" (an answer may hold blank lines)."""
    out: dict = {"max_new_tokens": d.max_tokens}
    if d.temperature is not None:
        out["temperature"] = d.temperature
    if d.top_p is not None:
        out["top_p"] = d.top_p
    out["until"] = []
    return out
