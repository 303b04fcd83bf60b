"""Ray executor: the same job function as Ray tasks (one GPU per task on a GPU cluster).

The coordinator is the only writer of the run store. By default (`shared_storage: false`) a task
runs its scene against a scratch folder on its own node and returns the files it wrote as bytes
with its records (render_farm.shipping); the driver writes them atomically, then appends the
records. Memory stays bounded: at most `2 x workers` tasks are in flight, and each result is
fetched and written as soon as `ray.wait` returns it. With `shared_storage: true` tasks write
into the run directory themselves, which every node must then see at the same path.

Ray's `max_calls` recycles a worker process after a bounded number of scenes, as the local
executor does. Ray's own task retries are off (`max_retries=0`): a task that raises or whose
worker or node dies comes back as an outcome and the coordinator decides on the retry (up to
the run's `max_attempts`), exactly as on the local executor.
"""
from __future__ import annotations

import tempfile
import traceback
from collections import deque

from render_farm.executors import JobOutcome
from render_farm.plan import SceneJob


def run_job_collect(job_dict: dict, ship_files: bool) -> tuple[list[dict], dict[str, bytes], str | None]:
    """Run one scene job; (records, shipped files, traceback or None). Records and files of the
    frames finished before an exception come back too, so a retry redoes only the rest."""
    from render_farm.job import run_scene_job
    from render_farm.shipping import collect_files

    job = SceneJob.model_validate(job_dict)
    records: list[dict] = []

    def run(j: SceneJob) -> str | None:
        try:
            run_scene_job(j, emit=lambda rec: records.append(rec.model_dump(mode="json")))
            return None
        except Exception:  # noqa: BLE001
            return traceback.format_exc()

    if not ship_files:
        return records, {}, run(job)
    with tempfile.TemporaryDirectory(prefix="scenebench-job-") as scratch:
        error = run(job.model_copy(update={"run_dir": scratch}))
        return records, collect_files(scratch), error


class RayExecutor:
    def __init__(self, workers: int, max_scenes_per_worker: int, device: str, address: str | None = None,
                 resources: dict[str, float] | None = None, shared_storage: bool = False):
        self.workers = max(1, workers)
        self.max_scenes = max(1, max_scenes_per_worker)
        self.device = device
        self.address = address
        self.resources = dict(resources or {})
        self.shared_storage = shared_storage
        self.max_in_flight = 2 * self.workers
        self.startup_times: list[float] = []
        self.worker_deaths = 0
        self.shipped_bytes = 0

    def run(self, jobs, on_record, on_outcome, stop=lambda: 0) -> bool:
        """Run `jobs`; True if `stop()` (the count of Ctrl-Cs) ended the run early: pending
        tasks are cancelled, records of tasks already finished are kept."""
        import ray

        from blender_envs.core.device_choice import is_gpu_request
        from formats.records import FrameRecord
        from render_farm.shipping import write_files

        started_here = False
        if not ray.is_initialized():
            if self.address:
                ray.init(address=self.address, log_to_driver=False)
            else:
                ray.init(num_cpus=self.workers, include_dashboard=False, log_to_driver=False,
                         runtime_env={"env_vars": {"PYTHONHASHSEED": "0"}})
            started_here = True
        try:
            task = ray.remote(num_cpus=1, num_gpus=1 if is_gpu_request(self.device) else 0, resources=self.resources or None,
                              max_calls=self.max_scenes, max_retries=0)(run_job_collect)
            queue, pending = deque(jobs), {}
            while queue or pending:
                if stop():
                    for ref in pending:
                        ray.cancel(ref, force=True)
                    return True
                while queue and len(pending) < self.max_in_flight:
                    job = queue.popleft()
                    pending[task.remote(job.model_dump(mode="json"), not self.shared_storage)] = job
                done, _ = ray.wait(list(pending), num_returns=1, timeout=0.25)
                if not done:
                    continue
                ref = done[0]
                job = pending.pop(ref)
                try:
                    records, files, error = ray.get(ref)
                except Exception as exc:  # noqa: BLE001 - worker crash, OOM kill, node lost ...
                    self.worker_deaths += 1
                    records, files, error = [], {}, f"ray task failed: {type(exc).__name__}: {exc}"
                del ref                                   # let the object store free the result
                self.shipped_bytes += write_files(job.run_dir, files)   # before the records naming them
                for rec in records:
                    on_record(FrameRecord.model_validate(rec))
                queue.extendleft(reversed(on_outcome(JobOutcome(job, error is None, error))))
            return False
        finally:
            if started_here:
                ray.shutdown()
