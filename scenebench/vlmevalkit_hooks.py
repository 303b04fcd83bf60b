"""What an exported VLMEvalKit folder's dataset class runs inside VLMEvalKit (packagers.vlmevalkit).

`messages` is the prompt `scenebench predict` sends, in VLMEvalKit's message shape: the system
prompt as a `role: system` text item (VLMEvalKit's API models send it as the system message), the
image, then the prompt text; no multiple-choice suffix. `evaluate` reads VLMEvalKit's result sheet
with the same join and checks as `import-predictions --from vlmevalkit`, grades every row with the
benchmark's own grader (`Benchmark.grade_row`) and returns the point estimates `scenebench score`
reports (`Benchmark.set_metrics`): for the set dataset its set-level metrics, then each config's
as `<config>/<metric>`; for a config outside the set, that config's.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from model_runs.harness_import import vlmevalkit_replies
from packagers.vlmevalkit import SYSTEM_COLUMN, rows_of


def _text(v: Any) -> str | None:
    """A TSV cell as pandas gives it: NaN (an empty cell) is no text."""
    if v is None or (isinstance(v, float) and math.isnan(v)) or v == "":
        return None
    return str(v)


def _finite(v: Any) -> float | None:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return float(v)


class Hooks:
    """One export's VLMEvalKit datasets, from the folder's manifest."""

    def __init__(self, manifest: str | Path):
        manifest = Path(manifest)
        self.meta = json.loads(manifest.read_text(encoding="utf-8"))
        self.root = (manifest.parent / self.meta["dataset"]).resolve()
        self.split = self.meta["split"]

    @property
    def bench(self):
        from scenebench.benchmarks import get_benchmark

        return get_benchmark(self.meta["benchmark"])

    def has_image(self, line) -> bool:
        return _text(line.get("image") if hasattr(line, "get") else None) is not None

    def messages(self, line, images: list[str]) -> list[dict]:
        out = []
        system = _text(line.get(SYSTEM_COLUMN)) if SYSTEM_COLUMN in line else None
        if system:
            out.append({"type": "text", "value": system, "role": "system"})
        out += [{"type": "image", "value": p} for p in images]
        out.append({"type": "text", "value": str(line["question"])})
        return out

    def evaluate(self, dataset: str, eval_file: str | Path) -> dict[str, float | None]:
        """The result sheet of `dataset` graded as `scenebench score` grades it."""
        info = self.meta["datasets"].get(dataset)
        if info is None:
            raise ValueError(f"{dataset} is not one of this export's VLMEvalKit datasets "
                             f"({', '.join(self.meta['datasets'])})")
        bench = self.bench
        configs, replies = vlmevalkit_replies(eval_file, self.root, self.split, bench.lmms_eval_in_group)
        if list(configs) != info["configs"]:
            raise ValueError(f"{eval_file} answers {', '.join(configs)}, not the configs of {dataset}")
        graded: dict[str, list[dict]] = {}
        for config in configs:
            graded[config] = [{"config": config, **bench.grade_row(r, replies[r["id"]])}
                              for r in rows_of(self.root, config, self.split)]
        out: dict[str, float | None] = {}
        if info["set"]:
            pooled = [g for c in configs for g in graded[c]]
            m = bench.set_metrics(pooled)
            out.update({k: _finite(m.get(k)) for k in bench.lmms_eval_group_metrics})
        for config in configs:
            m = bench.set_metrics(graded[config])
            prefix = f"{config}/" if info["set"] else ""
            out.update({f"{prefix}{k}": _finite(m[k]) for k in bench.lmms_eval_metrics(config)
                        if m.get(k) is not None})
        return out
