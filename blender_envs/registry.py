"""ENV name -> Environment. The registry finds environments by name, lazily.

An environment is a spec sampler and a view sampler (plain data, no bpy), a builder
(bpy) and a scorer module in `scorers/`. Adding one is a line here plus its modules
(docs/adding-an-environment.md).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

# name -> module that defines `ENV`
_MODULES: dict[str, str] = {
    "calib": "blender_envs.calib",
    "tape_gap": "blender_envs.solar.tape_gap",
    "breaker_label": "blender_envs.house.breaker_label",
    "rail_attachment": "blender_envs.solar.rail_attachment",
    "wire_adequacy": "blender_envs.solar.wire_adequacy",
    "slope_gauge": "blender_envs.solar.slope_gauge",
    "equipment_label": "blender_envs.solar.equipment_label",
    "horizon_peak": "blender_envs.solar.horizon_peak",
    "egopath": "blender_envs.indoor.egopath",
}


class UnknownEnvironmentError(KeyError):
    def __str__(self) -> str:  # KeyError quotes its message; we want a plain line
        return self.args[0]


@dataclass(frozen=True)
class Environment:
    name: str
    family: str
    version: str                      # bump when the generator's distributions change
    views_per_scene: int
    sample_scene: Callable            # (rng, scene_id, seed) -> SceneSpec
    sample_view: Callable             # (spec, rng, view_index, long_side_px) -> View
    builder: str                      # "module:function", function(scene, spec) -> BuildInfo (bpy)
    scorer: str                       # module in scorers/ with score_scene/score_frame/ground_truth
    spec_model: type

    def build_function(self) -> Callable:
        module, func = self.builder.split(":")
        return getattr(importlib.import_module(module), func)

    def scorer_module(self):
        return importlib.import_module(self.scorer)


def known_environments() -> list[str]:
    return sorted(_MODULES)


def get_environment(name: str) -> Environment:
    if name not in _MODULES:
        raise UnknownEnvironmentError(
            f"unknown environment {name!r}; known environments: {', '.join(known_environments())}")
    return importlib.import_module(_MODULES[name]).ENV
