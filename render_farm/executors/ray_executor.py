"""Ray executor: the same job function as Ray tasks (one GPU per task on a GPU cluster).

Ray's `max_calls` recycles a worker process after a bounded number of scenes, as the
local executor does; a task that raises or whose worker dies comes back as an outcome
and the coordinator decides on the retry.
"""
from __future__ import annotations

import traceback

from render_farm.executors import JobOutcome
from render_farm.plan import SceneJob


def _run_collect(job_dict: dict) -> tuple[list[dict], str | None]:
    from render_farm.job import run_scene_job

    job = SceneJob.model_validate(job_dict)
    records: list[dict] = []
    try:
        run_scene_job(job, emit=lambda rec: records.append(rec.model_dump(mode="json")))
        return records, None
    except Exception:  # noqa: BLE001
        return records, traceback.format_exc()


class RayExecutor:
    def __init__(self, workers: int, max_scenes_per_worker: int, device: str, address: str | None = None):
        self.workers = max(1, workers)
        self.max_scenes = max(1, max_scenes_per_worker)
        self.device = device
        self.address = address
        self.startup_times: list[float] = []
        self.worker_deaths = 0

    def run(self, jobs, on_record, on_outcome, stop=lambda: 0) -> bool:
        """Run `jobs`; True if `stop()` (the count of Ctrl-Cs) ended the run early: pending
        tasks are cancelled, records of tasks already finished are kept."""
        import ray

        from formats.records import FrameRecord

        started_here = False
        if not ray.is_initialized():
            if self.address:
                ray.init(address=self.address, log_to_driver=False)
            else:
                ray.init(num_cpus=self.workers, include_dashboard=False, log_to_driver=False,
                         runtime_env={"env_vars": {"PYTHONHASHSEED": "0"}})
            started_here = True
        try:
            task = ray.remote(num_cpus=1, num_gpus=1 if self.device == "gpu" else 0,
                              max_calls=self.max_scenes, max_retries=0)(_run_collect)
            pending = {task.remote(j.model_dump(mode="json")): j for j in jobs}
            while pending:
                if stop():
                    for ref in pending:
                        ray.cancel(ref, force=True)
                    return True
                done, _ = ray.wait(list(pending), num_returns=1, timeout=0.25)
                if not done:
                    continue
                ref = done[0]
                job = pending.pop(ref)
                try:
                    records, error = ray.get(ref)
                except Exception as exc:  # noqa: BLE001 - worker crash, OOM kill, ...
                    self.worker_deaths += 1
                    records, error = [], f"ray task failed: {type(exc).__name__}: {exc}"
                for rec in records:
                    on_record(FrameRecord.model_validate(rec))
                for retry in on_outcome(JobOutcome(job, error is None, error)):
                    pending[task.remote(retry.model_dump(mode="json"))] = retry
            return False
        finally:
            if started_here:
                ray.shutdown()
