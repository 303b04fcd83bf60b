"""Executors run scene jobs and stream records back to the coordinator.

Both take the same `SceneJob`s and call the same job function; the coordinator
(render_farm.runner) owns retries, the run store and the progress bar.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

from render_farm.plan import SceneJob
from formats.records import FrameRecord


@dataclass
class JobOutcome:
    job: SceneJob
    ok: bool
    error: str | None = None        # traceback or "worker died ..." text


class Executor(Protocol):
    def run(self, jobs: list[SceneJob], on_record: Callable[[FrameRecord], None],
            on_outcome: Callable[[JobOutcome], list[SceneJob]], stop: Callable[[], int] = lambda: 0) -> bool:
        """Run jobs; `on_outcome` returns jobs to (re)queue, e.g. a retry. `stop()` counts
        the user's Ctrl-Cs; returns True if the run was stopped before all jobs ended."""


def make_executor(name: str, workers: int, max_scenes_per_worker: int, device: str, address: str | None = None,
                  resources: dict[str, float] | None = None, shared_storage: bool = False,
                  workers_per_gpu: int = 1, kernel_cache: str | None = None):
    if name == "local":
        from render_farm.executors.local import LocalExecutor
        return LocalExecutor(workers, max_scenes_per_worker, device, workers_per_gpu, kernel_cache)
    if name == "ray":
        from render_farm.executors.ray_executor import RayExecutor
        return RayExecutor(workers, max_scenes_per_worker, device, address, resources, shared_storage)
    raise ValueError(f"unknown executor {name!r}; choose local or ray")
