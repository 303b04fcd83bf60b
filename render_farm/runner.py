"""The coordinator of a render run: validate, plan, execute, record, summarise.

It alone writes records.jsonl, failures.jsonl and manifest.json; workers write the
per-frame files (atomically) and stream records back.
"""
from __future__ import annotations

import os
import platform
import signal
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field
from tqdm import tqdm

from blender_envs.core.device_choice import (DEVICE_REQUESTS, DeviceProbeError, NoGpuError, choose_device,
                                             is_gpu_request, probe_devices)
from blender_envs.core.settings import RenderSettings
from blender_envs.registry import get_environment
from formats import atomic
from render_farm.clips import write_clips
from render_farm.contact_sheet import write_contact_sheet
from render_farm.executors import JobOutcome, make_executor
from render_farm.plan import (MAX_SCENES, STRATA, FaultPlan, SceneJob, frame_id_for, frame_seed, max_frames,
                              parse_scene_id, plan_jobs, split_tail)
from formats.records import FrameRecord
from render_farm.store import RunStore

EXECUTORS = ("local", "ray")


class ConfigError(ValueError):
    """A bad knob: reported as one line, before anything is written."""


class RunConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    env: str
    n: int
    seed: int = 0
    out: str = "out"
    quality: RenderSettings
    executor: str = "local"
    workers: int | str = "auto"
    workers_per_gpu: int = Field(default=1, ge=1, le=16)   # Blender processes sharing one GPU (device=gpu)
    kernel_cache: str | None = None     # OptiX/CUDA kernel cache; default OUT/.kernel-cache
    device: str = "auto"
    stratum: str = "random"
    new_run: bool = False
    max_scenes_per_worker: int = 8
    max_attempts: int = Field(default=3, ge=1)
    progress: bool = True
    ray_address: str | None = None
    ray_resources: dict[str, float] = Field(default_factory=dict)   # custom resources each scene task asks for
    ray_shared_storage: bool = False    # tasks write the run store themselves (every node sees it)
    faults: FaultPlan = Field(default_factory=FaultPlan)


@dataclass
class RunSummary:
    run_dir: Path
    frames: int
    planned: int
    verdicts: dict[str, int]
    failed_scenes: list[str]
    wall_s: float
    rendered_now: int
    render_s: float
    worker_startup_s: list[float] = field(default_factory=list)
    interrupted: bool = False
    clips: int | None = None          # clip environments: finished clips (clips/*.json)

    @property
    def frames_per_s(self) -> float:
        return self.rendered_now / self.wall_s if self.wall_s > 0 else 0.0

    def line(self) -> str:
        v = self.verdicts
        clips = "" if self.clips is None else f"{self.clips} clips, "
        return (f"{clips}{self.frames} frames ({v.get('accept', 0)} accepted, {v.get('reject', 0)} rejected, "
                f"{v.get('unscored', 0)} unscored, {v.get('excluded', 0)} excluded), "
                f"{len(self.failed_scenes)} failed scenes, {self.frames_per_s:.2f} frames/s "
                f"({self.rendered_now} rendered in {self.wall_s:.1f} s)")


def validate(cfg: RunConfig):
    try:
        env = get_environment(cfg.env)
    except KeyError as exc:
        raise ConfigError(str(exc)) from None
    if cfg.n <= 0:
        raise ConfigError(f"N must be a positive number of {'clips' if env.is_clip else 'frames'}, got {cfg.n}")
    if env.is_clip and cfg.n > MAX_SCENES:
        raise ConfigError(f"N={cfg.n} is too many clips for one run: a run holds at most {MAX_SCENES} clips")
    if not env.is_clip and cfg.n > max_frames(env.views_per_scene):
        raise ConfigError(f"N={cfg.n} is too many frames for one run: a run holds at most {MAX_SCENES} scenes, "
                          f"i.e. N <= {max_frames(env.views_per_scene)} for {cfg.env} "
                          f"({env.views_per_scene} views per scene); split it over several OUT or seeds")
    if cfg.device not in DEVICE_REQUESTS:
        raise ConfigError(f"unknown device {cfg.device!r}; choose one of {', '.join(DEVICE_REQUESTS)}")
    if cfg.executor not in EXECUTORS:
        raise ConfigError(f"unknown executor {cfg.executor!r}; choose one of {', '.join(EXECUTORS)}")
    if cfg.stratum not in STRATA:
        raise ConfigError(f"unknown stratum {cfg.stratum!r}; choose one of {', '.join(STRATA)}")
    if not (cfg.workers == "auto" or (isinstance(cfg.workers, int) and cfg.workers >= 1)):
        raise ConfigError(f"WORKERS must be a positive integer or auto, got {cfg.workers!r}")
    _check_writable(Path(cfg.out))
    return env


def _check_device(cfg: RunConfig) -> int:
    """device=gpu: ask Cycles, in a subprocess that sees every GPU this process sees, before
    anything is written; returns how many GPUs it lists (0 when not probed: CPU, or a Ray
    cluster at an address, which has its own devices)."""
    if not is_gpu_request(cfg.device) or (cfg.executor == "ray" and cfg.ray_address):
        return 0
    try:
        return len(choose_device(cfg.device, probe_devices({"PYTHONHASHSEED": "0"})).device_names)
    except (NoGpuError, DeviceProbeError) as exc:
        raise ConfigError(str(exc)) from None


def kernel_cache_dir(cfg: RunConfig) -> str:
    """Where OptiX/CUDA keep compiled kernels: beside the runs, so a rerun on the machine skips the
    first-render compile (delete it after a driver update)."""
    return str(Path(cfg.kernel_cache) if cfg.kernel_cache else Path(cfg.out) / ".kernel-cache")


def _check_writable(out: Path) -> None:
    probe = out
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        raise ConfigError(f"OUT={out} is not writable (checked {probe})")
    if out.exists():
        try:
            tempfile.TemporaryFile(dir=out).close()
        except OSError as exc:
            raise ConfigError(f"OUT={out} is not writable: {exc.strerror}") from None


# Cycles threads per worker, as a multiple of the worker's share of the cores. Two: while one
# worker builds a scene, exports it, renders its passes or waits on the coordinator, the
# others' renders take its cores, and Cycles with one thread left its core idle about 15%
# of a render. Measured on calib x8 at standard, 2 workers on 2 cores, tail split: 60.8 s wall
# (109 s user, 1.9 s sys) with 2 threads each, 71.1 s (111 s user, 19.6 s sys) with 1. Frames
# are the same bytes with any thread count (Cycles' samples are seeded per pixel; test_farm.py).
THREADS_PER_CORE_SHARE = 2


def resolve_workers(cfg: RunConfig, gpus: int = 1) -> tuple[int, int]:
    """(workers, threads per worker). CPU: one worker per core (at most 8), which beats one
    multi-threaded worker on small frames where scene building is serial, each with
    THREADS_PER_CORE_SHARE times its share of the cores (never more than the cores).
    GPU: `workers_per_gpu` workers on each of the `gpus` GPUs, never more than the cores."""
    cores = os.cpu_count() or 1
    if cfg.workers != "auto":
        workers = int(cfg.workers)
    elif is_gpu_request(cfg.device):
        workers = max(1, min(max(1, gpus) * cfg.workers_per_gpu, cores))
    else:
        workers = max(1, min(cores, 8))
    threads = cfg.quality.threads or min(cores, THREADS_PER_CORE_SHARE * max(1, cores // workers))
    return workers, threads


# The shared render path (camera rig, render passes) for a given scene and pose; bumped
# when it renders differently. 2: a fresh camera per view (views after a shake view
# rendered with the shake view's quaternion camera before). 3: every view starts on the
# scene's first draw (positive stratum: a view after one that redrew the scene rendered on
# the redrawn scene before, so a resumed or retried job could render other bytes). 4: the
# pass render hides fog from camera rays (a ray that scattered in it left its pixel without
# depth or index) and shades with one unlit material.
RENDERER_VERSION = 4


def fingerprint(cfg: RunConfig, env) -> dict:
    """What must match for a rerun to resume instead of mixing two configs."""
    q = cfg.quality.model_dump(exclude={"threads"})
    return {"env": cfg.env, "generator_version": env.version, "renderer_version": RENDERER_VERSION,
            "seed": cfg.seed, "quality": q}


def foreign_reason(cfg: RunConfig):
    """A check of whether a record can be a frame of this config: its env, its seed
    (re-derived from the frame's coordinates and the root seed) and its image size."""
    def reason(rec: FrameRecord) -> str | None:
        if rec.env != cfg.env:
            return f"env {rec.env!r}, not {cfg.env!r}"
        coords = parse_scene_id(rec.scene_id)
        if coords is None or coords[0] != rec.stratum:
            return f"scene id {rec.scene_id!r} is not one this farm writes"
        stratum, scene_index, redraw = coords
        if rec.frame_id != frame_id_for(cfg.env, stratum, scene_index, rec.view_index):
            return f"frame id does not match scene {rec.scene_id!r} view {rec.view_index}"
        if rec.seed != frame_seed(cfg.seed, cfg.env, stratum, scene_index, rec.view_index, redraw):
            return f"its seed is not one of seed={cfg.seed}"
        long_side = max(int(rec.camera.get("width", 0)), int(rec.camera.get("height", 0)))
        if long_side != cfg.quality.long_side_px:
            return f"long side {long_side} px, not {cfg.quality.long_side_px}"
        return None
    return reason


class _Interrupts:
    """Ctrl-C during a run: the first asks the executor to stop after the frames in
    progress (their records are kept), the second to kill the workers at once."""

    def __init__(self):
        self.count = 0

    def __call__(self) -> int:
        return self.count

    def handle(self, signum, frame) -> None:
        self.count += 1
        if self.count == 1:
            print("scenebench: stopping after the frames in progress (Ctrl-C again to stop at once)",
                  file=sys.stderr, flush=True)


@contextmanager
def _catch_interrupts():
    stop = _Interrupts()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = signal.signal(signal.SIGINT, stop.handle)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parents[1])
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def _versions() -> dict:
    out = {"python": platform.python_version()}
    for dist in ("scenebench", "bpy", "numpy", "open3d-cpu", "ray"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def render(cfg: RunConfig) -> RunSummary:
    env = validate(cfg)
    gpus = _check_device(cfg)
    t_start = time.perf_counter()
    store = RunStore(Path(cfg.out) / cfg.env)
    fp = fingerprint(cfg, env)
    state, done = store.open_run(fp, cfg.new_run, foreign_reason(cfg))
    store.create()
    with _catch_interrupts() as stop:
        return _render(cfg, env, store, fp, state, done, t_start, stop, gpus)


def _render(cfg, env, store, fp, state, done, t_start, stop, gpus: int = 0) -> RunSummary:
    workers, threads = resolve_workers(cfg, gpus)
    quality = cfg.quality.model_copy(update={"threads": threads})
    n_frames = cfg.n * env.views_per_scene if env.is_clip else cfg.n  # a clip env's N counts clips
    jobs = plan_jobs(cfg.env, n_frames, env.views_per_scene, cfg.stratum, set(done), root_seed=cfg.seed,
                     run_dir=str(store.dir), quality=quality.model_dump(), device=cfg.device,
                     faults=cfg.faults)
    if not env.is_clip:  # a clip is one job: its frames follow one timeline
        jobs = split_tail(jobs, workers)
    planned = sum(len(j.views) for j in jobs)
    manifest = {
        "fingerprint": fp,
        "config": cfg.model_dump(mode="json"),
        "seeds": {"root_seed": cfg.seed, "scheme": "blake2b('scenebench/<seed>/<env>/<stratum>/<scene>[/<view>]/<stage>')"},
        "versions": _versions(),
        "git_commit": _git_commit(),
        "machine": {"platform": platform.platform(), "cpu_count": os.cpu_count(), "argv": sys.argv[1:]},
        "status": "running",
        "state": state,
        "workers": workers,
        "gpus": gpus,
        "threads_per_worker": threads,
    }
    atomic.write_json(store.manifest_path, manifest)

    failed: list[str] = []
    rendered: list[FrameRecord] = []
    bar = tqdm(total=planned, unit="frame", desc=cfg.env, disable=not cfg.progress or planned == 0,
               dynamic_ncols=True, file=sys.stderr)

    def on_record(rec: FrameRecord) -> None:
        store.append_record(rec)
        rendered.append(rec)
        bar.update(1)
        bar.set_postfix(accepted=sum(r.verdict == "accept" for r in rendered), refresh=False)

    def on_outcome(outcome: JobOutcome) -> list[SceneJob]:
        if outcome.ok:
            return []
        job = outcome.job
        finished = {r.frame_id for r in rendered}
        remaining = [v for v in job.views
                     if frame_id_for(job.env, job.stratum, job.scene_index, v) not in finished]
        final = job.attempt + 1 >= cfg.max_attempts or not remaining
        store.append_failure({"scene_id": job.scene_id, "env": job.env, "attempt": job.attempt,
                              "views": remaining, "final": final, "error": outcome.error})
        if final:
            if remaining:
                failed.append(job.scene_id)
                bar.update(len(remaining))
            return []
        return [job.model_copy(update={"attempt": job.attempt + 1, "views": remaining})]

    executor = make_executor(cfg.executor, workers, cfg.max_scenes_per_worker, cfg.device, cfg.ray_address,
                             cfg.ray_resources, cfg.ray_shared_storage, cfg.workers_per_gpu, kernel_cache_dir(cfg))
    interrupted = bool(jobs) and executor.run(jobs, on_record, on_outcome, stop)
    bar.close()

    records = store.canonicalise_records()
    clips = write_clips(env, store, records) if env.is_clip else None
    if not interrupted:
        write_contact_sheet(store.dir / "contact_sheet.jpg", [_sheet_item(store, r) for r in records],
                            title=f"{cfg.env}: {len(records)} frames")
    wall = time.perf_counter() - t_start
    verdicts: dict[str, int] = {}
    for r in records:
        verdicts[r.verdict] = verdicts.get(r.verdict, 0) + 1
    stage_totals: dict[str, float] = {}
    for r in rendered:
        for k, v in r.timings.items():
            stage_totals[k] = stage_totals.get(k, 0.0) + v
    summary = RunSummary(run_dir=store.dir, frames=len(records), planned=planned, verdicts=verdicts,
                         failed_scenes=sorted(set(failed)), wall_s=wall, rendered_now=len(rendered),
                         render_s=stage_totals.get("render_s", 0.0),
                         worker_startup_s=list(executor.startup_times), interrupted=interrupted,
                         clips=None if clips is None else len(clips))
    manifest.update({
        "status": "interrupted" if interrupted else "complete" if not failed else "complete_with_failures",
        "summary": summary.line(),
        "verdicts": verdicts,
        "failed_scenes": summary.failed_scenes,
        "timings": {"wall_s": wall, "stage_totals_s": stage_totals,
                    "worker_startup_s": summary.worker_startup_s, "worker_deaths": executor.worker_deaths},
    })
    atomic.write_json(store.manifest_path, manifest)
    return summary


def _sheet_item(store: RunStore, r: FrameRecord) -> dict:
    lines = [r.frame_id, f"{r.verdict} · target {r.target}"]
    if r.failing_term:
        lines.append(f"fails: {r.failing_term}")
    if not r.sanity.get("ok", True):
        lines.append("; ".join(r.sanity.get("reasons", [])))
    return {"image_path": store.dir / r.image, "label_lines": lines, "status": r.verdict}
