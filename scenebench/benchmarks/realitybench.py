"""RealityBench: 11 field-documentation environments, one `test` split, acceptability +
documentation grading (scorers.report)."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

from formats.benchmark_config import RealityBenchConfig
from scenebench.benchmarks.base import Benchmark, Log, RequestDefaults, ScoreOptions, ScoreResult
from scenebench.errors import CliError

DEFAULT_SEED = 0
DEFAULT_RESAMPLES = 1000


class RealityBench(Benchmark):
    name = "realitybench"
    display_name = "RealityBench"
    config_model = RealityBenchConfig
    default_split = "test"
    is_default = True
    # The paper gives no number; its thinking models used up to ~3,000 thinking tokens an item
    # (§4) and some replies were still cut by the cap (Table 5), so 16,384 (docs/deviations.md).
    request_defaults = RequestDefaults(max_tokens=16384)

    def export(self, runs: Sequence[Path], out, config, source: Path, fmt: str = "hf", log: Log = print) -> Path:
        from packagers.hf_export import ExportError, export_realitybench
        from packagers.prompts import MissingPromptError

        try:
            summary = export_realitybench(list(runs), Path(out), source)
        except (ExportError, MissingPromptError) as exc:
            raise CliError(str(exc)) from None
        skipped = [e for e in config.environments if e not in summary.rows]
        if skipped:
            print(f"scenebench: skipped (no run exported): {', '.join(skipped)}", file=sys.stderr)
        log(f"scenebench: {summary.total_rows} frames from {len(runs)} run(s) -> {summary.root}")
        for env in sorted(summary.rows):
            log(f"scenebench:   {env}: {summary.rows[env]} frames ({summary.excluded[env]} excluded by the sanity check)")
        return summary.root

    # -- lmms-eval: per-environment numbers per task, the whole set in the group --------------
    lmms_eval_group_metrics = ("f1", "false_accept_rate", "miss_rate", "doc_score", "in_grammar")
    lmms_eval_lower_is_better = ("false_accept_rate", "miss_rate")

    def row_config(self, row: dict) -> str:
        return row["env"]

    def vlmevalkit_answer(self, row: dict) -> str:
        """App. C's answer object as the grader scores it: `adequate` from the scorer's verdict (null
        for a gray frame, which is not scored) and the documentation keys of the frame, no others."""
        import json

        gt = json.loads(row["ground_truth"])
        verdict = {"accept": True, "reject": False}.get(row["scorer_verdict"]) if not row.get("gray") else None
        return json.dumps({"adequate": verdict, **{k["name"]: gt.get(k["name"]) for k in row["keys"]}},
                          sort_keys=False, separators=(",", ":"))

    def grade_row(self, row: dict, reply) -> dict:
        """`scenebench score`'s grading of one frame (strict parse, App. C), as a dict."""
        from scorers.dataset_items import item_from_row
        from scorers.realitybench_grading import grade_item

        return grade_item(item_from_row(row), reply).model_dump(mode="json")

    def set_metrics(self, graded) -> dict:
        """The estimates of metrics.json (`models.<m>.metrics`, `per_env.<env>` for one environment):
        frames outside the set (gray, unscored) count in none of them, as there."""
        from scorers.realitybench_grading import ItemGrade, set_metrics

        m = set_metrics([ItemGrade.model_validate(g) for g in graded])
        a = m.acceptability
        return {"f1": a.f1, "false_accept_rate": a.false_accept_rate, "miss_rate": a.miss_rate,
                "doc_score": m.doc_score, "in_grammar": m.in_grammar}

    def find_dataset(self, path) -> Path | None:
        """An export has `<env>/test-*.parquet` shards, every config an environment's name (a
        VANTAGE export's configs are tasks), and no benchmark.json (that names other benchmarks)."""
        from blender_envs.registry import known_environments

        p = Path(path)
        for cand in (p, p / self.name):
            configs = {q.parent.name for q in cand.glob(f"*/{self.default_split}-*.parquet")}
            if not (cand / "benchmark.json").exists() and configs and configs <= set(known_environments()):
                return cand
        return None

    def load_items(self, dataset, split: str | None = None) -> list:
        from scorers.dataset_items import DatasetError, load_items

        try:
            return load_items(dataset, split or self.default_split)
        except DatasetError as exc:
            raise CliError(str(exc)) from None

    def grade(self, dataset, predictions: Sequence[str], options: ScoreOptions) -> tuple[dict, list[str]]:
        """Items x prediction files -> (metrics, warnings); writes nothing."""
        from scorers.dataset_items import DatasetError, dataset_root
        from scorers.report import ReportError, load_predictions, load_price_table, score

        from scorers.reply_tokens import TokenizerError, load_reply_tokenizer

        items = self.load_items(dataset)
        try:
            count = load_reply_tokenizer(options.reply_tokenizer) if options.reply_tokenizer else None
        except TokenizerError as exc:
            raise CliError(str(exc)) from None
        try:
            preds = [load_predictions(p, reply_tokens=count) for p in predictions]
            prices = load_price_table(options.prices)
            return score(items, preds, prices,
                         seed=DEFAULT_SEED if options.seed is None else options.seed,
                         n_ci=options.n_resamples or DEFAULT_RESAMPLES, n_paired=options.n_paired,
                         dataset=str(dataset_root(dataset)),
                         prices_path=str(options.prices) if options.prices else "configs/prices.yaml")
        except (DatasetError, ReportError) as exc:
            raise CliError(str(exc)) from None

    def report(self, metrics: dict, report_dir: str | None) -> Path:
        """report.md, metrics.json and figures under `report_dir` (default reports/<dataset name>)."""
        from scorers.report import write_report

        out = Path(report_dir) if report_dir else Path("reports") / Path(metrics["dataset"]["path"]).name
        write_report(metrics, out)
        return out / "report.md"

    def score(self, dataset, predictions: Sequence[str], report_dir, options: ScoreOptions) -> ScoreResult:
        from scorers.report import summary_table

        metrics, warnings = self.grade(dataset, predictions, options)
        md = self.report(metrics, report_dir)
        return ScoreResult(metrics=metrics, warnings=list(warnings), table=summary_table(metrics), report=md)


BENCHMARK = RealityBench()
