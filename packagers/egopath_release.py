"""One EgoPathBench release from run stores: the dataset, then (as the benchmark file's
`export:` options say) the SFT export and the App. B audits. `scenebench export` and
`scenebench benchmark` both call this, so the two never drift apart."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from packagers.egopath import EgoPathExportSummary, export_egopathbench


def export_release(runs: list[Path], out: str | Path, bench: dict,
                   log: Callable[[str], None] = print) -> EgoPathExportSummary:
    out = Path(out)
    opts = bench.get("export") or {}
    summary = export_egopathbench(runs, out, bench)
    log(f"scenebench: {summary.total_questions} questions from {len(runs)} run(s) -> {summary.root}")
    for config in sorted(summary.counts):
        log(f"scenebench:   {config}: " + ", ".join(f"{s} {n}" for s, n in summary.counts[config].items()))
    if opts.get("sft", False) and any("train" in c for c in summary.counts.values()):
        from packagers.egopath_sft import export_sft

        audit = export_sft(summary.root, out / "egopathbench_sft")
        log(f"scenebench: SFT {audit['complete_training_rows']}/{audit['training_rows']} rows, audit "
            f"{audit['format_and_answer_audit']} -> {out / 'egopathbench_sft'}")
    if opts.get("audits", False):
        from packagers.egopath_audits import run_audits

        written = run_audits(runs, summary.root, out / "egopathbench_audits")
        log(f"scenebench: audits -> {', '.join(str(p) for p in written)}")
    return summary
