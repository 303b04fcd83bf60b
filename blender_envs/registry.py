"""ENV name -> Environment, discovered rather than listed.

An environment is a pure module (spec model, samplers, exact geometry; no bpy) that
declares `ENV = Environment(...)`, a bpy builder named in it and a scorer module in
`scorers/` (the `scorers.protocol.Scorer` Protocol). Adding one adds no line here: the
registry walks `blender_envs` for modules that assign `ENV = Environment(...)` at top
level, reading their source (no import, so `known_environments()` never loads numpy
samplers, let alone bpy); `get_environment` imports only the one module asked for.
`scenebench new-env NAME=...` scaffolds one (docs/adding-an-environment.md).
"""
from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

PACKAGE = "blender_envs"
SKIP_PACKAGES = ("core",)   # the shared bpy side (blender_envs.core) declares no environment


class UnknownEnvironmentError(KeyError):
    def __str__(self) -> str:  # KeyError quotes its message; we want a plain line
        return self.args[0]


class RegistryError(RuntimeError):
    """Two modules declare one environment name, or a declared ENV does not match its name."""


@dataclass(frozen=True)
class Environment:
    """Everything environment-specific that generic code may ask about.

    The last fields are the rules that used to live as `if env == ...` sets in generic
    code (report skills, acceptability scoring, the dataset card's default config)."""

    name: str
    family: str
    version: str                      # bump when the generator's distributions change
    views_per_scene: int
    sample_scene: Callable            # (rng, scene_id, seed) -> SceneSpec
    sample_view: Callable             # (spec, rng, view_index, long_side_px, attempt=0) -> View
    builder: str                      # "module:function", function(scene, spec) -> BuildInfo (bpy)
    scorer: str                       # module in scorers/ satisfying scorers.protocol.Scorer
    spec_model: type
    prompts: str | None = None        # prompt set in packagers/prompts/<prompts>.yaml (None: no benchmark prompt)
    measurement_keys: frozenset[str] = frozenset()  # answer keys reported as Fig. 3 "measurement"
    acceptability_scored: bool = True  # False: documentation only, never graded on acceptability (car_plate)
    card_default: bool = False        # the config a dataset card opens by default (RealityBench: tape_gap)
    # Clip environments (video): a scene is one clip and its views are the clip's sampled
    # frames (views_per_scene of them); N counts clips. None for single-frame environments.
    timeline: Callable | None = None  # (spec) -> geometry.clip.Timeline (agents, camera, timestamps)
    events: Callable | None = None    # (spec) -> list[geometry.events.Event], from the trajectories
    isp: str = "phone"                # clips: "phone" (render_farm.isp) or "cctv" (render_farm.cctv_isp)
    # Clips whose look changes with t beyond the agents' poses (traffic signal lamps): "module:function",
    # function(scene, spec, t) (bpy), called before each frame is rendered. None: nothing to change.
    frame_hook: str | None = None

    @property
    def is_clip(self) -> bool:
        return self.timeline is not None

    def build_function(self) -> Callable:
        module, func = self.builder.split(":")
        return getattr(importlib.import_module(module), func)

    def frame_hook_function(self) -> Callable | None:
        if self.frame_hook is None:
            return None
        module, func = self.frame_hook.split(":")
        return getattr(importlib.import_module(module), func)

    def scorer_module(self) -> ModuleType:
        """The scorer, a module satisfying `scorers.protocol.Scorer` (the conformance test checks it)."""
        return importlib.import_module(self.scorer)

    def scores_acceptability(self, ground_truth: dict[str, Any]) -> bool:
        """Whether a frame's acceptability is graded: the environment's rule, then the
        frame's own answer key (`acceptability_scored: false`, e.g. rail_attachment with a
        missing part, RealityBench §4 "due to task ambiguity")."""
        return self.acceptability_scored and ground_truth.get("acceptability_scored") is not False

    def measurement_fields(self) -> frozenset[str]:
        """`env/key` names of this environment's measurement answers (scorers/report.py)."""
        return frozenset(f"{self.name}/{k}" for k in self.measurement_keys)


_ENV_RE = re.compile(r"^ENV = Environment\(", re.M)
MAX_ENV_LINES = 200


def _env_call(path: Path, text: str, start: int) -> ast.Call:
    """The `Environment(...)` call of the statement at `start`: the shortest run of lines
    from there that parses (only that statement is parsed, not the whole module)."""
    lines = text[start:].splitlines()
    for n in range(1, min(len(lines), MAX_ENV_LINES) + 1):
        try:
            return ast.parse("\n".join(lines[:n]), str(path)).body[0].value
        except SyntaxError:
            continue
    raise RegistryError(f"{path}: cannot read its ENV = Environment(...) statement")


def _declared_name(path: Path) -> str | None:
    """The literal `name=` of a top-level `ENV = Environment(...)` in `path`, if any."""
    text = path.read_text(encoding="utf-8")
    m = _ENV_RE.search(text)
    if m is None:
        return None
    for kw in _env_call(path, text, m.start()).keywords:
        if kw.arg == "name" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
            return kw.value.value
    raise RegistryError(f"{path}: ENV = Environment(...) needs a literal name=\"...\"")


def _walk(package: str, path: list[str], skip: frozenset[str] = frozenset()):
    """(module name, source file) of every module below `package`, sorted by name."""
    for info in sorted(pkgutil.iter_modules(path, package + "."), key=lambda m: m.name):
        if info.name in skip:
            continue
        origin = Path(info.module_finder.path) / (info.name.rsplit(".", 1)[1])
        if info.ispkg:
            yield info.name, origin / "__init__.py"
            yield from _walk(info.name, [str(origin)], skip)
        else:
            yield info.name, origin.with_suffix(".py")


def discover(root: Path, package: str = PACKAGE) -> dict[str, str]:
    """name -> module declaring its ENV, found by reading the sources below `root`
    (the directory of `package`), in sorted module order; nothing is imported."""
    found: dict[str, str] = {}
    for module, source in _walk(package, [str(root)], frozenset(f"{package}.{p}" for p in SKIP_PACKAGES)):
        if not source.is_file():
            continue
        name = _declared_name(source)
        if name is None:
            continue
        if name in found:
            raise RegistryError(f"environment {name!r} is declared twice: {found[name]} and {module}")
        found[name] = module
    return dict(sorted(found.items()))


@lru_cache(maxsize=1)
def _modules() -> dict[str, str]:
    return discover(Path(__file__).resolve().parent)


def known_environments() -> list[str]:
    """Every registered environment name, sorted; imports nothing."""
    return list(_modules())


def environment_module(name: str) -> str:
    """The pure module that declares `name`'s ENV (spec, samplers, exact geometry)."""
    modules = _modules()
    if name not in modules:
        raise UnknownEnvironmentError(
            f"unknown environment {name!r}; known environments: {', '.join(modules)}")
    return modules[name]


def get_environment(name: str) -> Environment:
    env = importlib.import_module(environment_module(name)).ENV
    if not isinstance(env, Environment) or env.name != name:
        raise RegistryError(f"{environment_module(name)}.ENV is not the Environment {name!r}")
    return env


def all_environments() -> list[Environment]:
    """Every environment, imported (pure modules only: no bpy)."""
    return [get_environment(n) for n in known_environments()]


@lru_cache(maxsize=1)
def measurement_fields() -> frozenset[str]:
    """Every registered environment's `env/key` measurement fields (Fig. 3's third skill)."""
    return frozenset().union(*(e.measurement_fields() for e in all_environments()))


def scores_acceptability(env: str, ground_truth: dict[str, Any]) -> bool:
    """Whether a dataset row's acceptability is graded: its environment's rule
    (`Environment.scores_acceptability`), or for a name with no environment here (a
    hand-made dataset) only the frame's own `acceptability_scored: false`."""
    if env in _modules():
        return get_environment(env).scores_acceptability(ground_truth)
    return ground_truth.get("acceptability_scored") is not False
