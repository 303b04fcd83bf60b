"""`Benchmark`: everything one benchmark owns, behind one interface.

Generic code (the CLI, the whole-benchmark regeneration) asks the registry for a
`Benchmark` and calls only what is defined here, so a new benchmark family is a new module
in this package (and its config model in `formats.benchmark_config`), never a new
`if name == ...` branch. Heavy packages (packagers, scorers, pyarrow) are imported inside
the methods so listing the registry stays cheap.
"""
from __future__ import annotations

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
    config_model: ClassVar[type[BenchmarkFile]]
    default_split: ClassVar[str]
    export_formats: ClassVar[tuple[str, ...]] = ("hf",)
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
