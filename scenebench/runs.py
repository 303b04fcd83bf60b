"""Which run directories an export reads: `--runs` as given, where each entry is a run
(`records.jsonl` inside) or an output root holding several (`out/`,
`out/realitybench-1.1.0-scale0.1/`: its `<env>/` children with records, for the
environments the benchmark lists), else every `<runs_root>/<env>/` of the benchmark."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from scenebench.errors import CliError

RECORDS = "records.jsonl"


def _children(root: Path, envs: Sequence[str]) -> list[Path]:
    return [root / e for e in envs if (root / e / RECORDS).is_file()]


def expand_runs(runs: Sequence[str | Path], envs: Sequence[str], benchmark: str) -> list[Path]:
    """Each entry -> itself if it is a run, else its run children; order kept, no duplicates."""
    out: list[Path] = []
    for r in map(Path, runs):
        if not r.is_dir():
            raise CliError(f"run directory {r} does not exist")
        found = [r] if (r / RECORDS).is_file() else _children(r, envs)
        if not found:
            raise CliError(f"{r} is neither a run directory (no {RECORDS}) nor an output root holding "
                           f"<env>/{RECORDS} for an environment of {benchmark}")
        out += [f for f in found if f not in out]
    return out


def default_runs(runs_root: str | Path, envs: Sequence[str], benchmark: str) -> list[Path]:
    root = Path(runs_root)
    runs = _children(root, envs)
    if not runs:
        raise CliError(f"no run directories under {root}/ for benchmark {benchmark} "
                       f"(looked for {root}/<env>/{RECORDS}; render first or pass --runs)")
    return runs
