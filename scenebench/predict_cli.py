"""`scenebench predict`: the command line of model_runs.predict (which stays a library).

The dataset says which benchmark it is (the registry); that benchmark gives the split to
predict and the request defaults, and every option on the command line overrides them.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from scenebench.benchmarks import benchmark_for_dataset
from scenebench.errors import CliError


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="scenebench predict",
                                description="Send each dataset item to an OpenAI-compatible chat-completions "
                                            "server and write the predictions JSONL (resumable).")
    p.add_argument("--dataset", required=True, help="exported dataset directory (datasets/<benchmark>)")
    p.add_argument("--endpoint", required=True, help="base URL (http://host:8000/v1) or full /chat/completions URL")
    p.add_argument("--model", required=True, help="model name as the server knows it")
    p.add_argument("--api-key-env", help="environment variable holding the API key (sent as a Bearer token)")
    p.add_argument("--concurrency", type=int, help="requests in flight (default 4)")
    p.add_argument("--out", help="predictions file (default preds/<model>.jsonl, '/' -> '__')")
    p.add_argument("--configs", nargs="+", help="configs (environments) to run; default all")
    p.add_argument("--timeout", type=float, help="deadline of each request, connect to last byte, s (default 120)")
    p.add_argument("--max-retries", type=int, help="retries on connection errors, timeouts, 429, 5xx (default 4)")
    p.add_argument("--max-tokens", type=int, help="max_tokens of each request (default: the benchmark's)")
    p.add_argument("--max-completion-tokens", type=int,
                   help="send max_completion_tokens instead of max_tokens (o-series models require it)")
    p.add_argument("--temperature", type=float, help="sampling temperature (default: the benchmark's, else the "
                                                     "provider's)")
    p.add_argument("--top-p", type=float, help="nucleus sampling top_p (default: the benchmark's, else the provider's)")
    p.add_argument("--seed", type=int, help="sampling seed sent with each request (servers that honour it)")
    p.add_argument("--limit", type=int, help="only the first N items in id order")
    p.add_argument("--split", help="split to predict (default: the benchmark's own, e.g. test)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def _with_defaults(args, bench) -> None:
    """Fill every request option left unset from the benchmark's RequestDefaults."""
    d = bench.request_defaults
    if args.max_tokens is not None and args.max_completion_tokens is not None:
        raise CliError("give --max-tokens or --max-completion-tokens, not both")
    for opt, value in (("concurrency", d.concurrency), ("timeout", d.timeout_s), ("max_retries", d.max_retries),
                       ("max_tokens", d.max_tokens), ("temperature", d.temperature), ("top_p", d.top_p),
                       ("split", bench.default_split)):
        if getattr(args, opt) is None:
            setattr(args, opt, value)


def config_from(args):
    from model_runs.predict import ClientConfig, PredictError

    if not args.endpoint.startswith(("http://", "https://")):
        raise PredictError(f"--endpoint must be an http(s) URL, got {args.endpoint!r}")
    for name in ("concurrency", "max_tokens", "max_completion_tokens"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise PredictError(f"--{name.replace('_', '-')} must be >= 1")
    if args.max_retries < 0 or args.timeout <= 0 or (args.limit is not None and args.limit < 0):
        raise PredictError("--max-retries and --limit must be >= 0, --timeout > 0")
    if args.temperature is not None and not 0 <= args.temperature <= 2:
        raise PredictError(f"--temperature must be in [0, 2], got {args.temperature:g}")
    if args.top_p is not None and not 0 < args.top_p <= 1:
        raise PredictError(f"--top-p must be in (0, 1], got {args.top_p:g}")
    key = None
    if args.api_key_env:
        key = os.environ.get(args.api_key_env)
        if not key:
            raise PredictError(f"environment variable {args.api_key_env} (--api-key-env) is not set")
    return ClientConfig(endpoint=args.endpoint, model=args.model, api_key=key, timeout_s=args.timeout,
                        max_retries=args.max_retries, max_tokens=args.max_tokens,
                        max_completion_tokens=args.max_completion_tokens, temperature=args.temperature,
                        top_p=args.top_p, seed=args.seed)


def predict_main(argv: list[str]) -> int:
    """CLI entry: 0 all predicted; 2 bad input; 3 items failed or endpoint unreachable; 130 interrupted."""
    args = build_parser().parse_args(argv)
    try:   # API clients are imported only here
        from model_runs.dataset_items import DatasetError
        from model_runs.predict import PredictError, default_out, run_predictions
    except ImportError as exc:
        print(f"scenebench predict: error: scenebench predict is unavailable: {exc}", file=sys.stderr)
        return 2
    try:
        bench, _ = benchmark_for_dataset(args.dataset)
        _with_defaults(args, bench)
        cfg = config_from(args)
        out = Path(args.out) if args.out else default_out(args.model)
        summary = run_predictions(args.dataset, cfg, out, configs=args.configs, concurrency=args.concurrency,
                                  limit=args.limit, progress=not args.no_progress, split=args.split)
    except (PredictError, DatasetError, CliError) as exc:
        print(f"scenebench predict: error: {exc}", file=sys.stderr)
        return getattr(exc, "code", 2)
    except KeyboardInterrupt:
        print("scenebench predict: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
    print(f"scenebench predict: {summary.line()}")
    if summary.aborted:
        print(f"scenebench predict: error: stopped: {summary.aborted}; {summary.failed} of {summary.selected} "
              f"items without a prediction", file=sys.stderr)
        return 3
    if summary.failed:
        print(f"scenebench predict: error: {summary.failed} of {summary.selected} items failed "
              f"(see `error` in {summary.out}; rerun to retry them)", file=sys.stderr)
        return 3
    return 0
