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
    display_name = "EgoPathBench"
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

    # -- lmms-eval: task metrics per config, the EgoPath Score over the five tasks (the group);
    # Table S5 controls are their own tasks, outside the group, with their route SR.
    lmms_eval_group_metrics = ("egopath_score",)

    def lmms_eval_metrics(self, config: str) -> tuple[str, ...]:
        from geometry.egopath_schema import TASKS, TRAVERSABILITY_TASKS

        if config not in TASKS:
            return ("sr",)
        return ("egopath_score", *(("ba", "f1") if config in TRAVERSABILITY_TASKS else ("vpr", "sr", "spl")))

    def lmms_eval_in_group(self, config: str) -> bool:
        from geometry.egopath_schema import TASKS

        return config in TASKS

    def vlmevalkit_answer(self, row: dict) -> str:
        """The reference answer (a route, or the selected ids) exactly as exported."""
        return row["answer"]

    def row_config(self, row: dict) -> str:
        """The task, or `<route task>_<control>` for a control row (id `<question id>@<control>`)."""
        control = row["id"].partition("@")[2]
        return f"{row['task']}_{control}" if control else row["task"]

    def grade_row(self, row: dict, reply) -> dict:
        """The question (as exported) and the raw reply: EgoPath metrics are ratios over a set, so
        `set_metrics` grades them together (scorers.egopath)."""
        return {"id": row["id"], "question": row["question"], "reply": reply}

    def set_metrics(self, graded) -> dict:
        """metrics.json's estimates: `score` and, for one task, its task metrics; for one control
        config, its route SR (`controls.<task>.<control>`). The main questions go through
        `evaluate_model` with resamples on, so every estimate comes from the code path `score` uses."""
        from geometry.egopath_schema import TASKS, Question
        from scorers.egopath import evaluate_model
        from scorers.egopath_metrics import control_metrics

        configs = {g["config"] for g in graded}
        replies = {g["id"]: g["reply"] for g in graded}
        main = [Question.model_validate_json(g["question"]) for g in graded if g["config"] in TASKS]
        out: dict = {}
        if main:
            res = evaluate_model(main, replies, n_resamples=1)
            out["egopath_score"] = res["score"]["estimate"]
            if len(configs) == 1:
                (task,) = configs
                out.update({m: res["tasks"][task][m]["estimate"] for m in self.lmms_eval_metrics(task)[1:]})
        elif len(configs) == 1:
            (config,) = configs
            task, control = next((t, config[len(t) + 1:]) for t in TASKS if config.startswith(t + "_"))
            qs = [Question.model_validate_json(g["question"]) for g in graded]
            out["sr"] = control_metrics([], {config: qs}, replies)[task][control]
        return out

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

        if options.reply_tokenizer:
            raise CliError("egopathbench reports no token usage, so --reply-tokenizer has nothing to split")
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
