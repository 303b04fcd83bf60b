"""Regenerate a whole benchmark from its versioned benchmark file, then export it.

`configs/benchmark/<name>.yaml` fixes the version, root seed, quality preset, generator
versions and per-environment counts; `scale` grows or shrinks the counts. Runs go to
`OUT/<name>-<version>-scale<scale>/<env>/`, so runs at different scales never mix, and
rerunning resumes. Environments that do not exist yet are reported as skipped.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from blender_envs.registry import get_environment, known_environments
from render_farm.runner import ConfigError, RunConfig, render
from scenebench import CONFIG_DIR


@dataclass
class BenchmarkSummary:
    run_root: Path
    rendered: dict[str, dict[str, int]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    failed_scenes: dict[str, list[str]] = field(default_factory=dict)
    dataset_dir: Path | None = None


def load_benchmark(name_or_path: str) -> tuple[Path, dict]:
    path = Path(name_or_path)
    if not path.suffix:
        path = CONFIG_DIR / "benchmark" / f"{name_or_path}.yaml"
    if not path.exists():
        known = sorted(p.stem for p in (CONFIG_DIR / "benchmark").glob("*.yaml"))
        raise ConfigError(f"unknown benchmark {name_or_path!r}; known benchmarks: {', '.join(known)}")
    return path, yaml.safe_load(path.read_text())


def scaled(count: int, scale: float) -> int:
    """0 stays 0; anything else keeps at least one frame."""
    return 0 if count <= 0 else max(1, math.ceil(count * scale - 1e-9))


def run_benchmark(name: str, scale: float = 1.0, out: str = "out", datasets_out: str = "datasets",
                  executor: str = "local", workers: int | str = "auto", device: str = "auto",
                  progress: bool = True, quality_override: dict | None = None, log=print) -> BenchmarkSummary:
    if scale <= 0:
        raise ConfigError(f"SCALE must be positive, got {scale}")
    path, bench = load_benchmark(name)
    quality = quality_override or yaml.safe_load((CONFIG_DIR / "render" / f"{bench['quality']}.yaml").read_text())
    run_root = Path(out) / f"{bench['benchmark']}-{bench['version']}-scale{scale:g}"
    summary = BenchmarkSummary(run_root=run_root)
    run_dirs = []
    for env_name, counts in bench["environments"].items():
        if env_name not in known_environments():
            summary.skipped.append(env_name)
            continue
        env = get_environment(env_name)
        want = bench.get("generator_versions", {}).get(env_name)
        if want is not None and want != env.version:
            raise ConfigError(f"{path.name} pins {env_name} at generator {want!r} but this checkout has "
                              f"{env.version!r}; bump the benchmark version and its generator_versions")
        for stratum in ("random", "positive"):
            n = scaled(int(counts.get(stratum, 0)), scale)
            if n == 0:
                continue
            s = render(RunConfig(env=env_name, n=n, seed=int(bench["root_seed"]), out=str(run_root),
                                 quality=quality, executor=executor, workers=workers, device=device,
                                 stratum=stratum, progress=progress))
            summary.rendered.setdefault(env_name, {})[stratum] = n
            if s.failed_scenes:
                summary.failed_scenes.setdefault(env_name, []).extend(s.failed_scenes)
            log(f"scenebench: {env_name}/{stratum}: {s.line()}")
        run_dirs.append(run_root / env_name)
    if summary.skipped:
        log(f"scenebench: skipped (not implemented yet): {', '.join(summary.skipped)}")
    if run_dirs and bench["benchmark"] == "egopathbench":
        from packagers.egopath_release import export_release

        export_release(run_dirs, Path(datasets_out), bench, log=log)
        summary.dataset_dir = Path(datasets_out) / bench["benchmark"]
    elif run_dirs:
        from packagers.hf_export import export_realitybench

        export_realitybench(run_dirs, Path(datasets_out), benchmark_file=path)
        summary.dataset_dir = Path(datasets_out) / bench["benchmark"]
        log(f"scenebench: dataset -> {summary.dataset_dir} (SHA256SUMS inside)")
    return summary
