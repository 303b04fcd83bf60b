"""Regenerate a whole benchmark from its versioned benchmark file, then export it.

`configs/benchmark/<name>.yaml` fixes the version, root seed, quality preset, generator
versions and per-environment counts; `scale` grows or shrinks the counts. Runs go to
`OUT/<name>-<version>-scale<scale>/<env>/`, so runs at different scales never mix, and
rerunning resumes. `quality` names another configs/render/ preset than the file's (a quick
look or a timing at `standard`); such runs go to `...-scale<scale>-<preset>/`, so they never
mix with the file's own, and each run's manifest (and so the dataset card) records it.
Environments that do not exist yet are reported as skipped. It sits
above the farm and the packagers: it renders with one and exports through the
benchmark's own `export` (the registry), so it holds nothing benchmark-specific.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from blender_envs.registry import get_environment, known_environments
from render_farm.runner import ConfigError, RunConfig, render
from scenebench import CONFIG_DIR
from scenebench.benchmarks import resolve_benchmark

STRATA = ("random", "positive")


@dataclass
class BenchmarkSummary:
    run_root: Path
    rendered: dict[str, dict[str, int]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    failed_scenes: dict[str, list[str]] = field(default_factory=dict)
    dataset_dir: Path | None = None


def scaled(count: int, scale: float) -> int:
    """0 stays 0; anything else keeps at least one frame."""
    return 0 if count <= 0 else max(1, math.ceil(count * scale - 1e-9))


def _quality(name: str | None, where: str) -> dict:
    """The configs/render/ preset `name`; only a listed preset's file is read."""
    if name is None:
        raise ConfigError(f"{where}: missing field (a configs/render/ preset); regeneration needs it")
    known = sorted(p.stem for p in (CONFIG_DIR / "render").glob("*.yaml"))
    if name not in known:
        raise ConfigError(f"{where}: unknown preset {name!r}; choose one of {', '.join(known)}")
    return yaml.safe_load((CONFIG_DIR / "render" / f"{name}.yaml").read_text(encoding="utf-8"))


def run_root_for(out: str | Path, cfg, scale: float, preset: str) -> Path:
    """Where a regeneration's runs go: one folder per benchmark version and scale, and one more
    per preset other than the file's, so a look at `standard` never resumes into `final`."""
    return Path(out) / f"{cfg.benchmark}-{cfg.version}-scale{scale:g}{'' if preset == cfg.quality else '-' + preset}"


def run_benchmark(name: str, scale: float = 1.0, out: str = "out", datasets_out: str = "datasets",
                  executor: str = "local", workers: int | str = "auto", device: str = "auto",
                  progress: bool = True, quality_override: dict | None = None, quality: str | None = None,
                  log=print) -> BenchmarkSummary:
    if scale <= 0:
        raise ConfigError(f"SCALE must be positive, got {scale}")
    bench, cfg, path = resolve_benchmark(name)
    if cfg.root_seed is None:
        raise ConfigError(f"{path}: root_seed: missing field; regeneration needs it")
    preset = cfg.quality if quality is None else quality
    settings = quality_override or _quality(preset, f"{path}: quality" if quality is None else "--quality")
    run_root = run_root_for(out, cfg, scale, preset)
    summary = BenchmarkSummary(run_root=run_root)
    run_dirs = []
    for env_name, counts in cfg.environments.items():
        if env_name not in known_environments():
            summary.skipped.append(env_name)
            continue
        env = get_environment(env_name)
        want = cfg.generator_versions.get(env_name)
        if want is not None and want != env.version:
            raise ConfigError(f"{path.name} pins {env_name} at generator {want!r} but this checkout has "
                              f"{env.version!r}; bump the benchmark version and its generator_versions")
        for stratum in STRATA:
            n = scaled(getattr(counts, stratum), scale)
            if n == 0:
                continue
            s = render(RunConfig(env=env_name, n=n, seed=cfg.root_seed, out=str(run_root),
                                 quality=settings, executor=executor, workers=workers, device=device,
                                 stratum=stratum, progress=progress))
            summary.rendered.setdefault(env_name, {})[stratum] = n
            if s.failed_scenes:
                summary.failed_scenes.setdefault(env_name, []).extend(s.failed_scenes)
            log(f"scenebench: {env_name}/{stratum}: {s.line()}")
        run_dirs.append(run_root / env_name)
    if summary.skipped:
        log(f"scenebench: skipped (not implemented yet): {', '.join(summary.skipped)}")
    if run_dirs:
        summary.dataset_dir = bench.release(run_dirs, Path(datasets_out), cfg, path, log=log)
        log(f"scenebench: dataset -> {summary.dataset_dir} (SHA256SUMS inside)")
    return summary
