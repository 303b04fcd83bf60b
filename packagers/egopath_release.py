"""One EgoPathBench release from run stores: the dataset, then (as the benchmark file's
`export:` options say) the SFT export and the App. B audits. `scenebench export` and
`scenebench benchmark` both call this, so the two never drift apart.

All three trees are built in staging directories and swapped in only when every part has
succeeded: a failing SFT export or audit leaves the earlier release as it was, and every
failure is one `EgoPathExportError` line. A run too small to have a benchmark split still
exports (the card says the split is empty); the audits, which need benchmark route
questions, are then skipped with a line saying so."""
from __future__ import annotations

import shutil
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Callable

from formats import dataset_layout as layout
from geometry.egopath_schema import ROUTE_TASKS
from packagers.egopath import DATASET_NAME, EgoPathExportError, EgoPathExportSummary, write_egopathbench

SFT_DIR = "egopathbench_sft"
AUDITS_DIR = "egopathbench_audits"
AUDIT_SPLITS = ("benchmark",)


def _has_route_questions(summary: EgoPathExportSummary, splits=AUDIT_SPLITS) -> bool:
    return any(summary.counts.get(t, {}).get(s) for t in ROUTE_TASKS for s in splits)


def export_release(runs: list[Path], out: str | Path, bench: dict,
                   log: Callable[[str], None] = print) -> EgoPathExportSummary:
    from packagers.egopath_audits import AuditError, run_audits
    from packagers.egopath_sft import SFTExportError, export_sft

    out = Path(out)
    opts = bench.get("export") or {}
    root = out / DATASET_NAME
    lines: list[str] = []
    stale: list[Path] = []  # a skipped part's tree from an earlier release would contradict this one
    try:
        with ExitStack() as stack:  # on exit the trees swap in innermost first; on failure all staging goes
            staging = stack.enter_context(layout.staged_tree(root))
            summary = write_egopathbench(runs, staging, bench, root)
            lines.append(f"scenebench: {summary.total_questions} questions from {len(runs)} run(s) -> {root}")
            for config in sorted(summary.counts):
                lines.append(f"scenebench:   {config}: "
                             + ", ".join(f"{s} {n}" for s, n in summary.counts[config].items()))
            if not any("benchmark" in c for c in summary.counts.values()):
                lines.append("scenebench: the benchmark split is empty (too few scene groups); "
                             "nothing here can be scored")
            if opts.get("sft", False) and not any("train" in c for c in summary.counts.values()):
                lines.append("scenebench: SFT skipped: the train split is empty")
                stale.append(out / SFT_DIR)
            elif opts.get("sft", False):
                sft = stack.enter_context(layout.staged_tree(out / SFT_DIR, sums=False))
                audit = export_sft(staging, sft)
                lines.append(f"scenebench: SFT {audit['complete_training_rows']}/{audit['training_rows']} rows, "
                             f"audit {audit['format_and_answer_audit']} -> {out / SFT_DIR}")
            if opts.get("audits", False):
                if _has_route_questions(summary):
                    audits = stack.enter_context(layout.staged_tree(out / AUDITS_DIR, sums=False))
                    written = run_audits(runs, staging, audits, splits=AUDIT_SPLITS)
                    lines.append(f"scenebench: audits -> "
                                 + ", ".join(str(out / AUDITS_DIR / p.name) for p in written))
                else:
                    lines.append("scenebench: audits skipped: no route questions in the benchmark split")
                    stale.append(out / AUDITS_DIR)
    except (AuditError, SFTExportError) as exc:
        raise EgoPathExportError(str(exc)) from None
    for path in stale:
        if path.is_dir():
            shutil.rmtree(path)
            lines.append(f"scenebench: removed {path} (from an earlier release)")
    for line in lines:
        log(line)
    return replace(summary, files=layout.list_files(root))
