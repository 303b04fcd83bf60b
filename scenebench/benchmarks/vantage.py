"""VANTAGE-Bench: fixed-camera clips, eight tasks (one config each), four pillars; every metric
in the strict rule set and in the paper's evaluation code's (scorers.vantage_report)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from formats.benchmark_config import VantageConfig
from scenebench.benchmarks.base import Benchmark, Log, RequestDefaults, ScoreOptions, ScoreResult
from scenebench.errors import CliError


def nothing_from(runs: Sequence[Path], items, tasks: Sequence[str]) -> list[str]:
    """Export log lines for the tasks asked that got no item and the runs that gave none (a
    `QUALITY=preview` look at 96 px has targets too small for SOT and Spatial Pointing): said,
    not left for the user to notice in the counts."""
    used = {Path(d) for _, d in items}
    empty_tasks = [t for t in tasks if not any(it.task == t for it, _ in items)]
    empty_runs = sorted(str(Path(r)) for r in runs if Path(r) not in used)
    out = [f"scenebench:   {t}: 0 items" for t in empty_tasks]
    if empty_runs:
        out.append(f"scenebench: no item from {', '.join(empty_runs)} (their clips gave none for the tasks asked)")
    return out


class Vantage(Benchmark):
    name = "vantage"
    display_name = "VANTAGE-Bench"
    config_model = VantageConfig
    default_split = "test"
    # Table 12: greedy decoding, temperature 0, thinking disabled. The paper gives no output cap;
    # a 32-frame track or a crowd of 100 boxes needs a few thousand tokens.
    request_defaults = RequestDefaults(max_tokens=4096, temperature=0.0)

    def export(self, runs: Sequence[Path], out, config, source: Path, fmt: str = "hf", log: Log = print) -> Path:
        from packagers.vantage_export import VantageExportError, export_vantage
        from packagers.vantage_items import VantageItemsError, build_items

        try:
            items = build_items(list(runs), config.tasks)
            summary = export_vantage(items, Path(out), config.model_dump())
        except (VantageExportError, VantageItemsError) as exc:
            raise CliError(str(exc)) from None
        log(f"scenebench: {sum(summary.rows.values())} items from {len(runs)} run(s) -> {summary.root}")
        for task, n in summary.rows.items():
            log(f"scenebench:   {task}: {n} items")
        for line in nothing_from(runs, items, config.tasks):
            log(line)
        return summary.root

    # -- lmms-eval and VLMEvalKit: one task per config, the pillars' primary metrics per task
    lmms_eval_group_metrics = ("score",)

    def row_config(self, row: dict) -> str:
        return row["task"]

    def vlmevalkit_answer(self, row: dict) -> str:
        return row["answer"]

    def grade_row(self, row: dict, reply) -> dict:
        from scorers.vantage_dataset import item_of_row
        from scorers.vantage_report import plain
        from scorers.vantage_scoring import grade

        return {"item": json.loads(item_of_row(row).model_dump_json()), "record": plain(grade(item_of_row(row), reply))}

    def set_metrics(self, graded) -> dict:
        """`score`: the mean of the primary metrics (×100, strict rules) of the tasks present, the
        pillar arithmetic when all eight are there (App. D.5)."""
        from formats.vantage_item import VantageItem
        from scorers.vantage_scoring import task_result

        from formats.vantage_item import TASKS
        from scorers.vantage_pillars import pillar_scores

        by_task: dict[str, list] = {}
        for g in graded:
            by_task.setdefault(g["item"]["task"], []).append(g)
        scores = {}
        for task, gs in by_task.items():
            r = task_result(task, [VantageItem.model_validate(g["item"]) for g in gs], [g["record"] for g in gs],
                            "lmms-eval", n_resamples=1)
            scores[task] = r["strict"]["score"]
        if set(scores) == set(TASKS):
            return {"score": pillar_scores(scores)["overall"]}
        vals = list(scores.values())
        return {"score": sum(vals) / len(vals) if vals and None not in vals else None}

    def find_dataset(self, path) -> Path | None:
        from scorers.vantage_dataset import find_root

        return find_root(path)

    def load_items(self, dataset, split: str | None = None) -> list:
        from scorers.vantage_dataset import VantageDataError, load_items

        try:
            return load_items(dataset, split or self.default_split)
        except VantageDataError as exc:
            raise CliError(str(exc)) from None

    def score(self, dataset, predictions: Sequence[str], report_dir, options: ScoreOptions) -> ScoreResult:
        from scorers import vantage_uncertainty as vu
        from scorers.vantage_report import VantageScoreError, run_score, summary_table

        if options.reply_tokenizer or options.prices:
            raise CliError("vantage reports no token usage or cost, so --reply-tokenizer and --prices do not apply")
        if options.seed is not None:
            raise CliError("vantage's bootstrap seeds are fixed per model, task and rule set (SHA-256 of the names); "
                           "--seed does not apply")
        out = Path(report_dir) if report_dir else Path("reports") / Path(dataset).name
        try:
            metrics, warnings, md = run_score(dataset, predictions, out, options.n_resamples or vu.N_RESAMPLES)
        except VantageScoreError as exc:
            raise CliError(str(exc)) from None
        return ScoreResult(metrics=metrics, warnings=list(warnings), table=summary_table(metrics), report=md)


BENCHMARK = Vantage()
