"""What an exported task folder's `utils.py` runs inside lmms-eval (packagers.lmms_eval_tasks).

The prompt is the one `scenebench predict` sends (model_runs.predict.build_payload): the
system prompt when the row has one (EgoPathBench, Table S2), then one user turn with the
prompt text and the image (a clip's frames in order; none for a text-only control row). `process_results` grades the
reply with the benchmark's own grader (`Benchmark.grade_row`) and each aggregation turns the
graded rows into the point estimates `scenebench score` reports (`Benchmark.set_metrics`).

Set-level metrics over several configs (RealityBench's F1 over all environments, the EgoPath
Score over the five tasks) are not means of per-config numbers, and lmms-eval hands a group
aggregation only its subtasks' numbers. So every subtask aggregation also files its graded
rows here, under (benchmark, config), and the group aggregation grades the pool of its own
configs; it refuses to answer unless the pool holds exactly the group's samples. lmms-eval
aggregates every subtask before any group, in one process, so the pool is complete by then.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from model_runs.dataset_items import PROMPT_COLUMNS

_POOL: dict[tuple[str, str], list[dict]] = {}


def _benchmark(name: str):
    from scenebench.benchmarks import get_benchmark

    return get_benchmark(name)


def user_prompt(doc: dict) -> str:
    return next(doc[c] for c in PROMPT_COLUMNS if doc.get(c) is not None)


def visuals(doc: dict) -> list:
    """The decoded row image, or a multi-frame row's frames in order (VANTAGE clips), or none."""
    if doc.get("images") is not None:
        return list(doc["images"])
    return [] if doc.get("image") is None else [doc["image"]]


def messages(doc: dict) -> list[dict]:
    """lmms-eval chat messages (ChatMessages' shape); the images are the decoded row's."""
    text = [{"type": "text", "text": user_prompt(doc)}]
    images = [{"type": "image", "url": im} for im in visuals(doc)]
    content = images + text if doc.get("images") is not None else text + images   # as predict orders them
    out = []
    if doc.get("system_prompt"):
        out.append({"role": "system", "content": [{"type": "text", "text": doc["system_prompt"]}]})
    out.append({"role": "user", "content": content})
    return out


def _finite(v: Any) -> float | None:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return float(v)


class Hooks:
    """The functions one benchmark's task YAMLs name with `!function utils.<name>`."""

    def __init__(self, benchmark: str, group: Sequence[str] = ()):
        self.benchmark = benchmark
        self.group = tuple(group)

    @property
    def bench(self):
        return _benchmark(self.benchmark)

    def doc_to_visual(self, doc: dict) -> list:
        return visuals(doc)

    def doc_to_text(self, doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
        return user_prompt(doc)

    def doc_to_messages(self, doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> list[dict]:
        return messages(doc)

    def process_results(self, doc: dict, results: list) -> dict[str, dict]:
        """The same graded row under each metric of the row's config (lmms-eval keys by metric)."""
        bench = self.bench
        config = bench.row_config(doc)
        graded = {"config": config, **bench.grade_row(doc, results[0] if results else None)}
        return {m: graded for m in bench.lmms_eval_metrics(config)}

    def aggregate(self, metric: str) -> Callable[[list[dict]], float | None]:
        def agg(items: list[dict]) -> float | None:
            for config in sorted({it["config"] for it in items}):
                _POOL[(self.benchmark, config)] = [it for it in items if it["config"] == config]
            return _finite(self.bench.set_metrics(items).get(metric))
        agg.__name__ = f"aggregate_{metric}"
        return agg

    def group_aggregate(self, metric: str) -> Callable[..., float | None]:
        """lmms-eval calls it with the subtasks' (metrics, sizes, weight_by_size); only sizes are used,
        to check the pool."""
        def agg(metrics: list, sizes: list[int], weight_by_size: bool = False) -> float | None:
            pooled = [it for c in self.group for it in _POOL.get((self.benchmark, c), [])]
            if len(pooled) != sum(sizes):
                raise RuntimeError(f"{self.benchmark}: the group metric {metric} needs the graded samples of "
                                   f"its subtasks; found {len(pooled)} of {sum(sizes)}")
            return _finite(self.bench.set_metrics(pooled).get(metric))
        agg.__name__ = f"group_{metric}"
        return agg
