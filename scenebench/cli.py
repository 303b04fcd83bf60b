"""The `scenebench` command: wires configs to the packages, holds no logic of its own."""
from __future__ import annotations

import argparse
import importlib.util
import logging
import sys

from blender_envs.core.device_choice import DEVICE_REQUESTS
from scenebench import CONFIG_DIR, __version__
from scenebench.errors import CliError


def _known(group: str) -> list[str]:
    return sorted(p.stem for p in (CONFIG_DIR / group).glob("*.yaml"))


def compose_render_config(overrides: list[str]):
    """Hydra overrides -> a validated RunConfig; bad knobs become one-line errors."""
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf import OmegaConf

    from blender_envs.registry import known_environments
    from render_farm.runner import ConfigError, RunConfig

    for ov in overrides:
        key, _, value = ov.partition("=")
        if not _:
            raise ConfigError(f"override {ov!r} is not key=value")
        if key == "env" and value not in known_environments():
            raise ConfigError(f"unknown environment {value!r}; known environments: {', '.join(known_environments())}")
        if key in ("render", "executor") and value not in _known(key):
            what = "quality" if key == "render" else key
            raise ConfigError(f"unknown {what} {value!r}; choose one of {', '.join(_known(key))}")
    try:
        with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base=None):
            cfg = compose(config_name="config", overrides=overrides)
    except HydraException as exc:
        raise ConfigError(str(exc).splitlines()[0]) from None
    c = OmegaConf.to_container(cfg, resolve=True)
    try:
        return RunConfig(
            env=c["env"]["name"], n=c["n"], seed=c["seed"], out=str(c["out"]),
            quality=c["render"], executor=c["executor"]["name"], ray_address=c["executor"].get("address"),
            ray_resources=c["executor"].get("resources") or {},
            ray_shared_storage=bool(c["executor"].get("shared_storage", False)),
            workers=c["workers"], workers_per_gpu=c["workers_per_gpu"], kernel_cache=c["kernel_cache"], device=str(c["device"]).lower(), stratum=c["stratum"], new_run=c["new_run"],
            max_scenes_per_worker=c["max_scenes_per_worker"], max_attempts=c["max_attempts"],
            progress=c["progress"], faults=c["faults"])
    except ValueError as exc:  # pydantic: name the first bad field in one line
        errs = getattr(exc, "errors", lambda: [])()
        if errs:
            e = errs[0]
            raise ConfigError(f"bad value for {'.'.join(map(str, e['loc']))}: {e['msg']} "
                              f"(got {e.get('input')!r})") from None
        raise ConfigError(str(exc)) from None


def cmd_render(args) -> int:
    from render_farm.runner import render

    cfg = compose_render_config(args.overrides)
    summary = render(cfg)
    print(f"scenebench: {cfg.env} -> {summary.run_dir}")
    print(f"scenebench: {summary.line()}")
    if summary.interrupted:
        print("scenebench: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
    if summary.failed_scenes:
        print(f"scenebench: failed scenes (see {summary.run_dir}/failures.jsonl): "
              f"{', '.join(summary.failed_scenes)}")
    return 0 if not summary.failed_scenes else 3


def _export_runs(args, bench, cfg) -> list:
    """--runs (each a run or an output root holding runs), else every <runs-root>/<env>/ with records."""
    from scenebench.runs import default_runs, expand_runs

    envs = list(cfg.environments)
    if args.runs:
        return expand_runs(args.runs, envs, bench.name)
    return default_runs(args.runs_root, envs, bench.name)


def cmd_export(args) -> int:
    """Run stores -> the benchmark's dataset, in one of the formats the benchmark exports."""
    from pathlib import Path

    from scenebench.benchmarks import resolve_benchmark

    bench, cfg, path = resolve_benchmark(args.benchmark)
    if args.format not in bench.export_formats:
        raise CliError(f"{bench.name} exports only --format {' or '.join(bench.export_formats)}")
    bench.release(_export_runs(args, bench, cfg), Path(args.out), cfg, path, fmt=args.format)
    return 0


def cmd_benchmark(args) -> int:
    """Render every implemented environment of a benchmark file, then export it."""
    from scenebench.regenerate import run_benchmark

    workers = args.workers if args.workers == "auto" else int(args.workers)
    s = run_benchmark(args.benchmark, scale=args.scale, out=args.out, datasets_out=args.datasets,
                      executor=args.executor, workers=workers, device=args.device, quality=args.quality)
    return 0 if not s.failed_scenes else 3


def cmd_score(args) -> int:
    """Grade prediction files against an exported dataset (its benchmark grades) and write the report."""
    from scenebench.benchmarks import ScoreOptions, benchmark_for_dataset

    bench, _ = benchmark_for_dataset(args.dataset)
    res = bench.score(args.dataset, args.predictions, args.report_dir,
                      ScoreOptions(seed=args.seed, n_resamples=args.n_resamples, n_paired=args.n_paired,
                                   prices=args.prices, reply_tokenizer=args.reply_tokenizer))
    for w in res.warnings:
        print(f"scenebench: warning: {w}", file=sys.stderr)
    print(res.table)
    print(f"scenebench: report -> {res.report}")
    return 0


def cmd_import_predictions(args) -> int:
    """Another harness's logged answers -> a predictions file (`scenebench score` reads it)."""
    from model_runs.harness_import import IMPORTERS
    from model_runs.predict import PredictError
    from scenebench.benchmarks import benchmark_for_dataset

    bench, root = benchmark_for_dataset(args.dataset)
    try:
        n, out = IMPORTERS[args.source](args.inputs, root, bench.name, bench.default_split, args.out, model=args.model,
                                        bench=bench)
    except PredictError as exc:
        raise CliError(str(exc)) from None
    print(f"scenebench: {n} predictions from {args.source} -> {out}")
    return 0


def cmd_ratings(args) -> int:
    """Human-rating agreement (Table 13) from a ratings CSV; JSON written next to the CSV."""
    import json
    from pathlib import Path

    from scorers.dataset_items import DatasetError, dataset_root, load_items
    from scorers.report import ReportError, ratings_report, ratings_table, read_ratings_csv

    try:
        ratings = read_ratings_csv(args.ratings)
        items = load_items(args.dataset) if args.dataset else None
        rep = ratings_report(ratings, items, seed=args.seed, csv_path=str(args.ratings),
                             dataset=str(dataset_root(args.dataset)) if args.dataset else "")
    except (DatasetError, ReportError) as exc:
        raise CliError(str(exc)) from None
    csv_path = Path(args.ratings)
    out = csv_path.with_name(f"{csv_path.stem}.agreement.json")
    out.write_text(json.dumps(rep, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    print(ratings_table(rep))
    print(f"scenebench: agreement -> {out}")
    return 0


def cmd_predict(argv: list[str]) -> int:
    """Forwarded whole to scenebench.predict_cli (its parser owns every option)."""
    from scenebench.predict_cli import predict_main

    rc = predict_main(argv)
    return 0 if rc is None else int(rc)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["predict"]:  # its own parser owns every option, --help included
        try:
            return cmd_predict(argv[1:])
        except CliError as exc:
            print(f"scenebench: error: {exc}", file=sys.stderr)
            return 2
    if argv[:1] == ["audit"]:  # a benchmark's supporting audits; their parser owns the options
        from scenebench.audit_cli import audit_main

        return audit_main(argv[1:])
    if argv[:1] == ["new-env"] and importlib.util.find_spec("scenebench.scaffold") is not None:
        from scenebench.scaffold import main as scaffold_main  # its parser owns the options

        return scaffold_main(argv[1:])
    from scenebench.benchmarks import default_benchmark, known_benchmarks, registry

    default, names = default_benchmark().name, ", ".join(known_benchmarks())
    formats = tuple(dict.fromkeys(f for b in registry().values() for f in b.export_formats))
    parser = argparse.ArgumentParser(prog="scenebench", description=__doc__)
    parser.add_argument("--version", action="version", version=f"scenebench {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("render", help="render N frames of an environment (Hydra overrides: env=calib n=8 ...)")
    p.add_argument("overrides", nargs="*", help="key=value overrides, e.g. env=calib n=8 render=preview")
    p.set_defaults(func=cmd_render)

    p = sub.add_parser("export", help="export run stores as the benchmark's dataset (HF Parquet or VLMEvalKit TSV)")
    p.add_argument("--benchmark", default=default, help=f"one of {names}, or a benchmark YAML path")
    p.add_argument("--runs", nargs="+", metavar="DIR",
                   help="run directories, or output roots holding <env>/ runs (default: every <runs-root>/<env>/)")
    p.add_argument("--runs-root", default="out", help="where the default run directories live (default: out)")
    p.add_argument("--out", default="datasets", help="output folder; the dataset goes to <out>/<benchmark>")
    p.add_argument("--format", choices=formats, default="hf",
                   help="hf: the Parquet dataset (and its lmms-eval tasks); vlmevalkit: also the VLMEvalKit "
                        "folder <out>/<benchmark>_vlmevalkit/ (TSVs and a dataset class) from the exported Parquet")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("benchmark", help="render a whole benchmark from configs/benchmark/<name>.yaml and export it")
    p.add_argument("--benchmark", default=default, help=f"one of {names}, or a benchmark YAML path")
    p.add_argument("--scale", type=float, default=1.0, help="multiply every frame count (0 stays 0, else >= 1)")
    p.add_argument("--quality", default=None, metavar="PRESET",
                   help="a configs/render/ preset instead of the benchmark file's (runs go to a folder of their own)")
    p.add_argument("--out", default="out", help="run root; runs go to <out>/<benchmark>-<version>-scale<S>/")
    p.add_argument("--datasets", default="datasets", help="dataset root; the dataset goes to <datasets>/<benchmark>")
    p.add_argument("--executor", default="local", choices=("local", "ray"))
    p.add_argument("--workers", default="auto")
    p.add_argument("--device", default="auto", choices=DEVICE_REQUESTS)
    p.set_defaults(func=cmd_benchmark)

    p = sub.add_parser("score", help="grade prediction files; write report.md, metrics.json and figures")
    p.add_argument("--dataset", required=True, help="exported dataset folder (e.g. datasets/<benchmark>)")
    p.add_argument("--predictions", required=True, nargs="+", metavar="JSONL", help="one JSONL per model")
    p.add_argument("--report-dir", default=None, help="default: reports/<dataset name>")
    p.add_argument("--prices", default=None, help="price table YAML (default: configs/prices.yaml)")
    p.add_argument("--reply-tokenizer", default=None, metavar="TOKENIZER_JSON",
                   help="the model's Hugging Face tokenizer.json: where a record has one output count and no "
                        "reasoning count, thinking = that count - the reply's tokens (the papers' rule); without "
                        "it such thinking is reported as not derivable")
    p.add_argument("--seed", type=int, default=None,
                   help="bootstrap seed (default: the benchmark's own, as its paper fixes it)")
    p.add_argument("--n-resamples", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--n-paired", type=int, default=2000, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("import-predictions", help="turn another harness's logged answers into a predictions file")
    p.add_argument("--from", dest="source", required=True, choices=("lmms-eval", "vlmevalkit"),
                   help="lmms-eval: its --log_samples files (<date>_samples_<task>.jsonl), one per task; "
                        "vlmevalkit: its result sheets (<model>_<dataset>.xlsx, .tsv or .csv), one per dataset")
    p.add_argument("inputs", nargs="+", metavar="FILE")
    p.add_argument("--dataset", required=True, help="the exported dataset the harness ran on")
    p.add_argument("--out", required=True, help="the predictions JSONL to write")
    p.add_argument("--model", default=None, help="model name in the file (default: the folder the logs lie in)")
    p.set_defaults(func=cmd_import_predictions)

    p = sub.add_parser("ratings", help="human-rating agreement (Table 13) from a CSV: frame_id,rater,acceptable")
    p.add_argument("--dataset", default=None, help="exported dataset folder (gives the scorer's verdicts)")
    p.add_argument("--ratings", required=True, help="CSV with columns frame_id, rater, acceptable")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed for the scorer interval")
    p.set_defaults(func=cmd_ratings)

    sub.add_parser("predict", add_help=False, help="run a model over the dataset (options: scenebench predict --help)")

    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    from render_farm.runner import ConfigError
    from render_farm.store import ConfigMismatchError

    try:
        return args.func(args)
    except (ConfigError, ConfigMismatchError, CliError) as exc:
        print(f"scenebench: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("scenebench: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
