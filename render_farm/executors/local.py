"""Local executor: persistent Blender worker processes, recycled after a bounded number
of scenes (Blender grows across many scene rebuilds), replaced when they die.

Each worker imports bpy once and then takes jobs over a pipe; it sends every finished
frame's record as soon as it exists, so a crash loses at most the frame in progress.

Ctrl-C reaches every process of the terminal's process group. Workers ignore SIGINT:
the coordinator decides. On its first Ctrl-C it stops handing out jobs and sends busy
workers SIGTERM, which a worker takes as "stop after the frame in progress": that
frame's files and record arrive, nothing is half-done. A second Ctrl-C kills them.
"""
from __future__ import annotations

import itertools
import multiprocessing as mp
import os
import signal
import sys
import time
import traceback
from collections import deque
from multiprocessing.connection import wait

from blender_envs.core.device_choice import is_gpu_request
from render_farm.executors import JobOutcome
from render_farm.plan import SceneJob

POLL_S = 0.25  # how often the coordinator looks at its stop flag while waiting on workers

_stop_requested = False


def _request_stop(signum, frame) -> None:
    global _stop_requested
    _stop_requested = True


def worker_env(slot: int, device: str, workers_per_gpu: int = 1, kernel_cache: str | None = None) -> dict[str, str]:
    """Environment variables of worker `slot`. On GPU, workers share GPUs `workers_per_gpu` at a time
    (slots 0..k-1 on GPU 0, k..2k-1 on GPU 1, ...), so while one builds its scene on the CPU
    another keeps the GPU busy; the OptiX and CUDA kernel caches go to `kernel_cache`, a folder
    that outlives the run, so only the first render on a machine compiles kernels."""
    env = {"PYTHONHASHSEED": "0"}
    if is_gpu_request(device):
        env["CUDA_VISIBLE_DEVICES"] = str(slot // max(1, workers_per_gpu))
        if kernel_cache:
            env["OPTIX_CACHE_PATH"] = os.path.join(kernel_cache, "optix")
            env["CUDA_CACHE_PATH"] = os.path.join(kernel_cache, "cuda")
    return env


def worker_main(conn, max_scenes: int, env_vars: dict[str, str], log_path: str | None) -> None:
    """Worker process: import bpy once, then run jobs until told to stop or retired."""
    from render_farm.job import JobStopped

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _request_stop)
    os.environ.update(env_vars)
    # spawn copies the parent's sys.path; if the parent imported bpy, that holds bpy's
    # own scripts/modules folder, whose `bpy` package would shadow the real module
    sys.path[:] = [p for p in sys.path if f"{os.sep}bpy{os.sep}" not in p]
    if log_path:  # Cycles prints per-tile progress on fd 1; keep it out of the user's terminal
        os.makedirs(os.path.dirname(log_path), exist_ok=True)
        fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(fd, 1)
        os.close(fd)
    t0 = time.perf_counter()
    from render_farm.job import LAST_BUILD, run_scene_job  # imports bpy via the env's builder lazily
    import blender_envs.core.bpy_env  # noqa: F401  (pay the bpy import now, not in the first job)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # again, in case importing Blender set a handler
    conn.send(("ready", time.perf_counter() - t0))
    done = 0
    while done < max_scenes and not _stop_requested:
        try:
            msg = conn.recv()
        except EOFError:  # the coordinator is gone
            return
        if msg is None or _stop_requested:
            return
        job = SceneJob.model_validate(msg)
        before = (LAST_BUILD.builds, LAST_BUILD.reuses)
        try:
            run_scene_job(job, emit=lambda rec: conn.send(("record", job.key, rec.model_dump(mode="json"))),
                          should_stop=lambda: _stop_requested)
            conn.send(("done", job.key, None))
        except JobStopped:
            conn.send(("stopped", job.key, None))
            return
        except Exception:  # noqa: BLE001 - any scene failure is recorded, never fatal
            conn.send(("error", job.key, traceback.format_exc()))
        done += LAST_BUILD.scenes_built_by(before)  # Blender grows with scenes built, not views rendered
    if not _stop_requested:
        conn.send(("retire", None, None))


def take_next(queue: deque, held_scene: str | None, workers: int) -> SceneJob:
    """The next job for a worker whose Blender holds `held_scene`: another view of that scene
    if one waits near the head of the queue (a split scene's views are consecutive), so the
    worker renders on the scene it has instead of building another; else the head."""
    if held_scene is not None:
        for i, job in enumerate(itertools.islice(queue, 4 * workers)):
            if job.scene_id == held_scene:
                del queue[i]
                return job
    return queue.popleft()


class _Worker:
    def __init__(self, ctx, max_scenes: int, env_vars: dict[str, str], log_path: str | None):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=worker_main, args=(child, max_scenes, env_vars, log_path), daemon=True)
        self.proc.start()
        child.close()
        self.job: SceneJob | None = None
        self.eof = False
        self.ready = False
        self.startup_s: float | None = None
        self.scene_id: str | None = None    # the scene of its last job: the one its Blender holds


class LocalExecutor:
    def __init__(self, workers: int, max_scenes_per_worker: int, device: str, workers_per_gpu: int = 1,
                 kernel_cache: str | None = None):
        self.workers = max(1, workers)
        self.max_scenes = max(1, max_scenes_per_worker)
        self.device = device
        self.workers_per_gpu = max(1, workers_per_gpu)
        self.kernel_cache = kernel_cache
        self.startup_times: list[float] = []
        self.worker_deaths = 0

    def run(self, jobs, on_record, on_outcome, stop=lambda: 0) -> bool:
        """Run `jobs`; True if `stop()` (the count of Ctrl-Cs) ended the run early."""
        from formats.records import FrameRecord

        ctx = mp.get_context("spawn")
        queue: deque[SceneJob] = deque(jobs)
        log_dir = os.path.join(jobs[0].run_dir, "logs") if jobs else None

        def log_path(slot: int) -> str | None:
            return os.path.join(log_dir, f"worker-{slot}.log") if log_dir else None

        slots: dict[int, _Worker] = {}
        startup_failures = 0
        stopping = False
        try:
            while slots if stopping else (queue or any(w.job is not None for w in slots.values())):
                if stop() and not stopping:
                    stopping = True
                    queue.clear()
                    self._ask_to_stop(slots.values())
                if stop() >= 2:
                    for w in slots.values():
                        w.proc.kill()
                    break
                if not stopping:
                    busy = sum(w.job is not None for w in slots.values())
                    for slot in range(min(self.workers, max(1, len(queue) + busy))):
                        if slot not in slots:
                            env = worker_env(slot, self.device, self.workers_per_gpu, self.kernel_cache)
                            slots[slot] = _Worker(ctx, self.max_scenes, env, log_path(slot))
                    for w in slots.values():
                        if w.ready and w.job is None and queue:
                            w.job = take_next(queue, w.scene_id, self.workers)
                            w.scene_id = w.job.scene_id
                            w.conn.send(w.job.model_dump(mode="json"))
                ready = wait([w.conn for w in slots.values() if not w.eof] +
                             [w.proc.sentinel for w in slots.values()], timeout=POLL_S)
                for slot, w in list(slots.items()):
                    if not w.eof and (w.conn in ready or w.proc.sentinel in ready):
                        try:
                            while w.conn.poll():
                                self._handle(w, w.conn.recv(), on_record, on_outcome, queue, FrameRecord, stopping)
                        except (EOFError, OSError):
                            w.eof = True  # the worker closed its end: it has exited or is exiting
                    if not w.proc.is_alive():
                        w.proc.join()
                        if not w.ready and w.startup_s is None and not stopping:
                            startup_failures += 1
                            if startup_failures >= 3:
                                raise RuntimeError(
                                    f"Blender worker processes exit before becoming ready (exit code "
                                    f"{w.proc.exitcode}); run `python -c 'import bpy'` in the venv to see why")
                        if w.job is not None and not stopping:  # died mid-job: record it and requeue
                            self.worker_deaths += 1
                            job, w.job = w.job, None
                            err = f"worker process died with exit code {w.proc.exitcode} while rendering {job.scene_id}"
                            queue.extend(on_outcome(JobOutcome(job, False, err)))
                        del slots[slot]
        finally:
            for w in slots.values():
                try:
                    w.conn.send(None)
                except (OSError, BrokenPipeError):
                    pass
            for w in slots.values():
                w.proc.join(timeout=10)
                if w.proc.is_alive():
                    w.proc.kill()
                    w.proc.join()
        return stopping

    @staticmethod
    def _ask_to_stop(workers) -> None:
        """Idle workers get the end-of-jobs message; busy ones SIGTERM (stop after this frame)."""
        for w in workers:
            if w.job is not None and w.proc.pid is not None:
                try:
                    os.kill(w.proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            try:
                w.conn.send(None)
            except (OSError, BrokenPipeError):
                pass

    def _handle(self, w: _Worker, msg, on_record, on_outcome, queue, FrameRecord, stopping: bool) -> None:
        kind, _key, payload = msg if len(msg) == 3 else (msg[0], None, msg[1])
        if kind == "ready":
            w.ready, w.startup_s = True, payload
            self.startup_times.append(payload)
        elif kind == "record":
            on_record(FrameRecord.model_validate(payload))
        elif stopping and kind in ("stopped", "done", "error"):
            w.job = None  # an interrupted job is neither a failure nor retried: a rerun resumes it
        elif kind == "stopped":  # SIGTERM from someone else: the rest of the job is retried
            job, w.job = w.job, None
            queue.extend(on_outcome(JobOutcome(job, False, f"worker stopped by SIGTERM during {job.scene_id}")))
        elif kind in ("done", "error"):
            job, w.job = w.job, None
            queue.extend(on_outcome(JobOutcome(job, kind == "done", payload)))
        elif kind == "retire":
            w.ready = False  # the process exits; the loop replaces it
