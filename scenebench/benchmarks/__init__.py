"""The benchmark registry: every module of this package that defines `BENCHMARK` is one.

Adding a benchmark family (VANTAGE-Bench, VISTA, ...) is a new module here with its
`Benchmark` subclass, plus its config model in `formats.benchmark_config` and its
`configs/benchmark/<name>.yaml`; nothing generic changes.
"""
from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from pathlib import Path

from formats.benchmark_config import BenchmarkFile, read_yaml, validate_config
from scenebench.benchmarks.base import Benchmark, RequestDefaults, ScoreOptions, ScoreResult
from scenebench.errors import CliError

__all__ = ["Benchmark", "RequestDefaults", "ScoreOptions", "ScoreResult", "registry", "known_benchmarks",
           "get_benchmark", "default_benchmark", "resolve_benchmark", "benchmark_for_dataset"]

_NOT_BENCHMARKS = {"base"}


@lru_cache(maxsize=1)
def registry() -> dict[str, Benchmark]:
    """{name: Benchmark}, discovered from this package's modules."""
    found: dict[str, Benchmark] = {}
    for mod in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if mod.name in _NOT_BENCHMARKS or mod.name.startswith("_"):
            continue
        b = getattr(importlib.import_module(f"{__name__}.{mod.name}"), "BENCHMARK", None)
        if isinstance(b, Benchmark):
            if b.name in found:
                raise RuntimeError(f"benchmark {b.name!r} is defined twice")
            found[b.name] = b
    defaults = [n for n, b in found.items() if b.is_default]
    if len(defaults) != 1:
        raise RuntimeError(f"exactly one benchmark must be the default, found {defaults}")
    return found


def known_benchmarks() -> list[str]:
    return sorted(registry())


def default_benchmark() -> Benchmark:
    return next(b for b in registry().values() if b.is_default)


def _unknown(name: str, where: str = "") -> CliError:
    return CliError(f"{where}unknown benchmark {name!r}; known benchmarks: {', '.join(known_benchmarks())} "
                    f"(or the path of a benchmark YAML file)")


def get_benchmark(name: str) -> Benchmark:
    try:
        return registry()[name]
    except KeyError:
        raise _unknown(name) from None


def _is_path(name: str) -> bool:
    p = Path(name)
    return p.suffix in (".yaml", ".yml") or p.exists()


def resolve_benchmark(name_or_path: str) -> tuple[Benchmark, BenchmarkFile, Path]:
    """A registry name (its configs/benchmark/<name>.yaml) or a benchmark YAML path -> the
    benchmark, its validated config and the file it came from. Bad input raises CliError."""
    from formats.benchmark_config import BenchmarkConfigError

    if not _is_path(name_or_path):
        bench = get_benchmark(name_or_path)
        path = bench.config_file
        if not path.is_file():
            raise CliError(f"benchmark {bench.name} has no file {path}")
    else:
        path = Path(name_or_path)
        if not path.is_file():
            raise CliError(f"benchmark file {path} does not exist")
    try:
        data = read_yaml(path)
        name = data.get("benchmark")
        if not isinstance(name, str):
            raise CliError(f"{path}: benchmark: missing field (one of {', '.join(known_benchmarks())})")
        if name not in registry():
            raise _unknown(name, f"{path}: benchmark: ")
        bench = registry()[name]
        return bench, validate_config(bench.config_model, data, path), path
    except BenchmarkConfigError as exc:
        raise CliError(str(exc)) from None


def benchmark_for_dataset(path: str | Path) -> tuple[Benchmark, Path]:
    """Which benchmark an exported dataset belongs to, and its root. A path no benchmark
    claims goes to the default one, whose loader then says precisely what is wrong with it."""
    claimed = [(b, root) for b in registry().values() if (root := b.find_dataset(path)) is not None]
    if len(claimed) > 1:
        raise CliError(f"{path} holds exports of several benchmarks "
                       f"({', '.join(str(r) for _, r in claimed)}); pass the one you mean")
    if claimed:
        return claimed[0]
    return default_benchmark(), Path(path)
