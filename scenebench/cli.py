"""The `scenebench` command: wires configs to the packages, holds no logic of its own."""
from __future__ import annotations

import argparse
import logging
import sys

from scenebench import CONFIG_DIR, __version__


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
            workers=c["workers"], device=str(c["device"]).lower(), stratum=c["stratum"], new_run=c["new_run"],
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


class CliError(Exception):
    """Bad input to a non-render subcommand: one line on stderr, exit 2."""


def _benchmark_file(name: str):
    from pathlib import Path

    p = Path(name)
    if p.suffix in (".yaml", ".yml") or p.exists():
        if not p.is_file():
            raise CliError(f"benchmark file {p} does not exist")
        return p
    p = CONFIG_DIR / "benchmark" / f"{name}.yaml"
    if not p.is_file():
        raise CliError(f"unknown benchmark {name!r}; known benchmarks: {', '.join(_known('benchmark'))}")
    return p


def _run_dirs(args, envs: list[str], benchmark: str) -> list:
    """--runs as given (each must exist), else every `<runs_root>/<env>/` of the benchmark that has records."""
    from pathlib import Path

    if args.runs:
        runs = [Path(r) for r in args.runs]
        for r in runs:
            if not r.is_dir():
                raise CliError(f"run directory {r} does not exist")
        return runs
    root = Path(args.runs_root)
    runs = [root / e for e in envs if (root / e / "records.jsonl").is_file()]
    if not runs:
        raise CliError(f"no run directories under {root}/ for benchmark {benchmark} "
                       f"(looked for {root}/<env>/records.jsonl; render first or pass --runs)")
    return runs


def cmd_export(args) -> int:
    """Run stores -> HF dataset (and optionally the VLMEvalKit TSV made from it)."""
    from pathlib import Path

    import yaml

    from packagers.hf_export import ExportError, export_realitybench
    from packagers.prompts import MissingPromptError

    bench_path = _benchmark_file(args.benchmark)
    bench = yaml.safe_load(bench_path.read_text(encoding="utf-8")) or {}
    envs = list(bench.get("environments") or {})
    if bench.get("benchmark") == "egopathbench":  # EgoPathBench: questions per task config, SFT + audits
        from packagers.egopath import EgoPathExportError
        from packagers.egopath_release import export_release

        if args.format != "hf":
            raise CliError("egopathbench exports only --format hf")
        try:
            export_release(_run_dirs(args, envs, "egopathbench"), Path(args.out), bench)
        except EgoPathExportError as exc:
            raise CliError(str(exc)) from None
        return 0
    runs = _run_dirs(args, envs, bench.get("benchmark", args.benchmark))
    try:
        summary = export_realitybench(runs, Path(args.out), bench_path)
    except (ExportError, MissingPromptError) as exc:
        raise CliError(str(exc)) from None
    skipped = [e for e in envs if e not in summary.rows]
    if skipped:
        print(f"scenebench: skipped (no run exported): {', '.join(skipped)}", file=sys.stderr)
    print(f"scenebench: {summary.total_rows} frames from {len(runs)} run(s) -> {summary.root}")
    for env in sorted(summary.rows):
        print(f"scenebench:   {env}: {summary.rows[env]} frames ({summary.excluded[env]} excluded by the sanity check)")
    if args.format == "vlmevalkit":
        from packagers.vlmevalkit import export_vlmevalkit

        tsv = Path(args.out) / "RealityBench.tsv"
        n = export_vlmevalkit(summary.root, tsv)
        print(f"scenebench: VLMEvalKit TSV ({n} rows) -> {tsv}")
    return 0


def cmd_benchmark(args) -> int:
    """Render every implemented environment of a benchmark file, then export it."""
    from render_farm.benchmark import run_benchmark

    workers = args.workers if args.workers == "auto" else int(args.workers)
    s = run_benchmark(args.benchmark, scale=args.scale, out=args.out, datasets_out=args.datasets,
                      executor=args.executor, workers=workers, device=args.device)
    return 0 if not s.failed_scenes else 3


def cmd_score(args) -> int:
    """Grade prediction files against an exported dataset and write the report directory."""
    from pathlib import Path

    from scorers.egopath_report import find_egopath_root

    if find_egopath_root(args.dataset) is not None:  # benchmark.json says egopathbench
        from scorers import egopath
        from scorers.egopath_report import EgoPathDataError, run_score, summary_table as ego_table

        # Unset -> App. A's 10,000 scene-cluster resamples with seed 20260717.
        seed = egopath.SEED if args.seed is None else args.seed
        n_res = egopath.N_RESAMPLES if args.n_resamples is None else args.n_resamples
        try:
            metrics, warnings, md = run_score(args.dataset, args.predictions, args.report_dir, seed=seed,
                                              n_resamples=n_res)
        except (EgoPathDataError, ValueError) as exc:
            raise CliError(str(exc)) from None
        for w in warnings:
            print(f"scenebench: warning: {w}", file=sys.stderr)
        print(ego_table(metrics))
        print(f"scenebench: report -> {md}")
        return 0

    from scorers.dataset_items import DatasetError, dataset_root, load_items
    from scorers.report import ReportError, load_predictions, load_price_table, score, summary_table, write_report

    try:
        items = load_items(args.dataset)
        preds = [load_predictions(p) for p in args.predictions]
        prices = load_price_table(args.prices)
        metrics, warnings = score(items, preds, prices, seed=args.seed or 0, n_ci=args.n_resamples or 1000,
                                  n_paired=args.n_paired, dataset=str(dataset_root(args.dataset)),
                                  prices_path=str(args.prices) if args.prices else "configs/prices.yaml")
    except (DatasetError, ReportError) as exc:
        raise CliError(str(exc)) from None
    for w in warnings:
        print(f"scenebench: warning: {w}", file=sys.stderr)
    report_dir = Path(args.report_dir) if args.report_dir else Path("reports") / Path(metrics["dataset"]["path"]).name
    write_report(metrics, report_dir)
    print(summary_table(metrics))
    print(f"scenebench: report -> {report_dir}/report.md")
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
    """Forwarded whole to model_runs.predict (imported only here: it pulls in API clients)."""
    try:
        from model_runs.predict import predict_main
    except ImportError as exc:
        raise CliError(f"scenebench predict is unavailable: {exc}") from None
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
    if argv[:1] == ["audit"]:  # EgoPathBench App. B audits; their parser owns the options
        from packagers.egopath_audits import main as audit_main

        return audit_main(argv[1:])
    parser = argparse.ArgumentParser(prog="scenebench", description=__doc__)
    parser.add_argument("--version", action="version", version=f"scenebench {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("render", help="render N frames of an environment (Hydra overrides: env=calib n=8 ...)")
    p.add_argument("overrides", nargs="*", help="key=value overrides, e.g. env=calib n=8 render=preview")
    p.set_defaults(func=cmd_render)

    p = sub.add_parser("export", help="export run stores as the benchmark's dataset (HF Parquet or VLMEvalKit TSV)")
    p.add_argument("--benchmark", default="realitybench", help="a configs/benchmark/ name or a YAML path")
    p.add_argument("--runs", nargs="+", metavar="DIR", help="run directories (default: every <runs-root>/<env>/)")
    p.add_argument("--runs-root", default="out", help="where the default run directories live (default: out)")
    p.add_argument("--out", default="datasets", help="output folder; the dataset goes to <out>/realitybench")
    p.add_argument("--format", choices=("hf", "vlmevalkit"), default="hf",
                   help="vlmevalkit also writes <out>/RealityBench.tsv from the exported Parquet")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("benchmark", help="render a whole benchmark from configs/benchmark/<name>.yaml and export it")
    p.add_argument("--benchmark", default="realitybench", help="a configs/benchmark/ name or a YAML path")
    p.add_argument("--scale", type=float, default=1.0, help="multiply every frame count (0 stays 0, else >= 1)")
    p.add_argument("--out", default="out", help="run root; runs go to <out>/<benchmark>-<version>-scale<S>/")
    p.add_argument("--datasets", default="datasets", help="dataset root; the dataset goes to <datasets>/<benchmark>")
    p.add_argument("--executor", default="local", choices=("local", "ray"))
    p.add_argument("--workers", default="auto")
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "gpu"))
    p.set_defaults(func=cmd_benchmark)

    p = sub.add_parser("score", help="grade prediction files; write report.md, metrics.json and figures")
    p.add_argument("--dataset", required=True, help="exported dataset folder (e.g. datasets/realitybench)")
    p.add_argument("--predictions", required=True, nargs="+", metavar="JSONL", help="one JSONL per model")
    p.add_argument("--report-dir", default=None, help="default: reports/<dataset name>")
    p.add_argument("--prices", default=None, help="price table YAML (default: configs/prices.yaml)")
    p.add_argument("--seed", type=int, default=None,
                   help="bootstrap seed (default: 0; EgoPathBench: 20260717, as App. A)")
    p.add_argument("--n-resamples", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--n-paired", type=int, default=2000, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_score)

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
