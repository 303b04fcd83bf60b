"""`configs/benchmark/<name>.yaml`, the versioned benchmark file, as pydantic models.

The file is an on-disk input contract read by the CLI, the whole-benchmark regeneration
and the packagers, so its models live in the bottom layer. Every model forbids unknown
fields: a misspelt key is a one-line error naming it, never a silently ignored knob.

Knobs a packager defaults (an EgoPathBench split salt, the selection weights, ...) are
`None` here when the file leaves them out; `as_benchmark_dict` drops those `None`s, so a
packager sees exactly the keys the file set and applies its own defaults as before.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Mapping, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from formats.vantage_item import TASKS, Task

__all__ = ["BenchmarkConfigError", "EnvCounts", "BenchmarkFile", "RealityBenchConfig", "EgoPathBenchConfig",
           "VantageConfig",
           "read_yaml", "validate_config", "load_config", "as_benchmark_dict"]


class BenchmarkConfigError(ValueError):
    """The benchmark file cannot be read or does not validate (one line, names the field)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EnvCounts(_Strict):
    """Frames to render for one environment, per stratum (App. D)."""
    random: int = Field(0, ge=0)
    positive: int = Field(0, ge=0)


class BenchmarkFile(_Strict):
    """What every benchmark file holds: identity, seed, quality, generators, counts."""
    benchmark: str
    version: str
    root_seed: int | None = None        # `scenebench render seed=<root_seed>`; needed to regenerate
    quality: str | None = None          # configs/render/<quality>.yaml; needed to regenerate
    prompts: str | None = None          # the prompt file the release uses (documentation)
    environments: dict[str, EnvCounts]
    generator_versions: dict[str, str] = Field(default_factory=dict)


class RealityBenchConfig(BenchmarkFile):
    """configs/benchmark/realitybench.yaml: evaluation-only, every frame in `test`."""
    benchmark: Literal["realitybench"] = "realitybench"
    split: Literal["test"] = "test"


class EgoPathExportOptions(_Strict):
    controls: bool | None = None        # Table S5 controls on the benchmark split (packager default: on)
    sft: bool | None = None             # LLaVA-style SFT export of the train split (default: off)
    audits: bool | None = None          # App. B audits (default: off)


class EgoPathSelection(_Strict):
    """`benchmark_selection:`; unset keys take packagers.egopath_selection.DEFAULTS."""
    enabled: bool | None = None
    traversability_bundles: int | None = Field(None, ge=0)
    route_bundles: int | None = Field(None, ge=0)
    max_group_share: float | None = Field(None, gt=0, le=1)
    paired_routes_only: bool | None = None
    weights: dict[str, float] | None = None
    norms: dict[str, float] | None = None


class EgoPathBenchConfig(BenchmarkFile):
    """configs/benchmark/egopathbench.yaml: splits by salted scene group, export options, selection."""
    benchmark: Literal["egopathbench"] = "egopathbench"
    license: str | None = None
    split_salt: str | None = None
    splits: dict[Literal["train", "validation", "benchmark"], float] | None = None
    export: EgoPathExportOptions | None = None
    benchmark_selection: EgoPathSelection | None = None


class VantageConfig(BenchmarkFile):
    """configs/benchmark/vantage.yaml: clips per environment (`random` counts clips), the tasks
    exported (one config each), evaluation-only `test` split."""
    benchmark: Literal["vantage"] = "vantage"
    split: Literal["test"] = "test"
    tasks: list[Task] = Field(default_factory=lambda: list(TASKS), min_length=1)


M = TypeVar("M", bound=BenchmarkFile)


def read_yaml(path: str | Path) -> dict:
    """The file as a mapping (yaml.safe_load); unreadable or non-mapping files are one-line errors."""
    p = Path(path)
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BenchmarkConfigError(f"benchmark file {p}: cannot read ({exc.strerror or exc})") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BenchmarkConfigError(f"benchmark file {p}: not valid YAML ({first})") from None
    if not isinstance(data, dict):
        raise BenchmarkConfigError(f"benchmark file {p}: expected a mapping of fields, got {type(data).__name__}")
    return data


def validate_config(model: type[M], data: Mapping[str, Any], source: str | Path = "benchmark file") -> M:
    """`data` as `model`; the first bad field becomes one line: `<source>: <field.path>: <why>`."""
    try:
        return model.model_validate(dict(data))
    except ValidationError as exc:
        e = exc.errors()[0]
        loc = ".".join(str(x) for x in e["loc"]) or "(top level)"
        got = "" if e["type"] in ("missing", "extra_forbidden") else f" (got {e.get('input')!r:.80})"
        why = "unknown field" if e["type"] == "extra_forbidden" else e["msg"]
        raise BenchmarkConfigError(f"{source}: {loc}: {why}{got}") from None


def load_config(path: str | Path, model: type[M]) -> M:
    return validate_config(model, read_yaml(path), path)


def as_benchmark_dict(config: BenchmarkFile | Mapping | str | Path, model: type[M]) -> dict:
    """What a packager reads: a path, a mapping or a validated model -> the validated file as a
    dict, with the keys the file left unset (None) dropped so the packager's defaults apply."""
    if isinstance(config, (str, Path)):
        config = load_config(config, model)
    elif not isinstance(config, BaseModel):
        config = validate_config(model, config)
    return config.model_dump(exclude_none=True)
