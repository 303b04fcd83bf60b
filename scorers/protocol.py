"""The scorer contract every environment's `scorers/<env>.py` module satisfies.

A scorer receives a `SceneGeometry` whose `spec` is already the environment's own
validated spec model (the farm builds it from the sampled spec), so scorers read typed
fields directly and never re-validate. `check_scorer` is what the registry's
conformance test runs: the module has the three functions with these parameters.
"""
from __future__ import annotations

import inspect
from typing import Protocol, runtime_checkable

from geometry.scene import View
from scorers.context import RenderedFrame, SceneGeometry
from formats.records import TermResult


@runtime_checkable
class Scorer(Protocol):
    def score_scene(self, geo: SceneGeometry, view: View) -> list[TermResult]:
        """Terms decided before rendering (ray casts, distances, px per unit, blur)."""

    def score_frame(self, geo: SceneGeometry, view: View, frame: RenderedFrame) -> list[TermResult]:
        """Terms read off the rendered, post-ISP frame and its passes."""

    def ground_truth(self, geo: SceneGeometry, view: View, frame: RenderedFrame | None = None) -> dict:
        """The answer key (every prompt key) plus diagnostics; `frame` None = before rendering."""


# function -> (required parameters, optional parameters with their defaults)
SIGNATURES = {
    "score_scene": (("geo", "view"), {}),
    "score_frame": (("geo", "view", "frame"), {}),
    "ground_truth": (("geo", "view"), {"frame": None}),
}


def check_scorer(module) -> list[str]:
    """Why `module` is not a Scorer (empty when it is): each function with these
    parameter names first, in order, `ground_truth`'s `frame=None`, and any further
    parameters optional (egopath's `timings=`)."""
    errs = []
    for name, (required, optional) in SIGNATURES.items():
        fn = getattr(module, name, None)
        if not callable(fn):
            errs.append(f"{module.__name__}: no function {name}")
            continue
        params = list(inspect.signature(fn).parameters.values())
        want = (*required, *optional)
        names = tuple(p.name for p in params)
        if names[:len(want)] != want:
            errs.append(f"{module.__name__}.{name}{names}: parameters must start {want}")
            continue
        for p in params:
            if p.name in required:
                ok, need = p.default is inspect.Parameter.empty, "no default"
            elif p.name in optional:
                ok, need = p.default is optional[p.name], f"default {optional[p.name]!r}"
            else:
                ok, need = p.default is not inspect.Parameter.empty, "a default (extras are optional)"
            if p.name in want and p.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD:
                ok, need = False, "positional"
            if not ok:
                errs.append(f"{module.__name__}.{name}: parameter {p.name} needs {need}")
    return errs
