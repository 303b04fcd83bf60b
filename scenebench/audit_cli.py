"""`scenebench audit`: a benchmark's supporting audits over an export and its runs (EgoPathBench:
App. B swept-corridor obstruction and Table S8 geometry sensitivity). The dataset names the
benchmark (the registry); the audits themselves stay in its packager."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scenebench.benchmarks import benchmark_for_dataset
from scenebench.errors import CliError


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="scenebench audit",
                                description="The dataset's benchmark's supporting audits over the export and its "
                                            "runs (e.g. swept-corridor obstruction of illegal edges, geometry "
                                            "sensitivity)")
    p.add_argument("--runs", nargs="+", required=True)
    p.add_argument("--dataset", required=True, help="exported dataset root (datasets/<benchmark>)")
    p.add_argument("--predictions", default=None, help="JSONL predictions (default: route-sheet non-edges)")
    p.add_argument("--splits", nargs="+", default=["benchmark"])
    p.add_argument("--out", required=True)
    return p


def audit_main(argv: list[str] | None = None) -> int:
    a = build_parser().parse_args(argv)
    missing = [r for r in [*a.runs, a.dataset] if not Path(r).is_dir()]
    missing += [a.predictions] if a.predictions and not Path(a.predictions).is_file() else []
    if missing:
        print(f"scenebench audit: error: {', '.join(map(str, missing))} does not exist", file=sys.stderr)
        return 2
    try:
        bench, root = benchmark_for_dataset(a.dataset)
        written = bench.audit([Path(r) for r in a.runs], Path(a.dataset), a.out, a.predictions, a.splits)
    except CliError as exc:
        print(f"scenebench audit: error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0
