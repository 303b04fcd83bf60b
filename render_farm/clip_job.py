"""The job function of a clip environment: one scene build, then each sampled timestamp.

A clip is one job. Its views are the clip's sampled frames: for each, the agents and the
camera are moved to their analytic poses at t (keyframes at shutter open and close, so
Cycles blurs the beauty render over [t, t + shutter]), the beauty and the static pass
render are taken, and the frame's record is emitted at once, so a killed clip resumes
from its next unfinished frame. A frame that raises is retried inside the job (same
seeds: a retried frame is byte-identical). The camera pipeline is drawn once per clip:
the phone ISP, or the CCTV one (render_farm.cctv_isp) whose exposure drifts with t;
sensor noise is drawn per frame.
"""
from __future__ import annotations

import io
import os
import time
from typing import Callable

import numpy as np
from PIL import Image

from blender_envs.registry import get_environment
from formats import atomic
from formats.records import FrameRecord
from render_farm.cctv_isp import frame_params, sample_cctv_isp
from render_farm.isp import IspParams, process_frame, sample_isp_params
from render_farm.job import INJECTED_EXIT_STATUS, InjectedFault, JobStopped, build_scene
from render_farm.plan import SceneJob, frame_id_for, seed_parts
from render_farm.seeds import cycles_seed, derive_seed, rng_for
from render_farm.store import RunStore
from scorers.context import RenderedFrame
from scorers.sanity import check_frame
from scorers.terms import Verdict, first_failure, verdict_of

FRAME_ATTEMPTS = 2  # a frame that raises is rendered once more before the job fails


def frame_fault_due(job: SceneJob, n: int, frame_attempt: int) -> str | None:
    """'exit' or 'raise' when the fault plan (tests) fails the job's `n`-th frame on this
    attempt at it: the worker dies before rendering it, or its first `raise_times` attempts
    raise (retried inside the job); None otherwise, and always when `at_frame` is 0."""
    f = job.faults
    if not f.at_frame or n != f.at_frame:
        return None
    if job.scene_id in f.exit_in and job.attempt < f.exit_times:
        return "exit"
    if job.scene_id in f.raise_in and frame_attempt < f.raise_times:
        return "raise"
    return None


def _inject_frame_faults(job: SceneJob, n: int, frame_attempt: int) -> None:
    due = frame_fault_due(job, n, frame_attempt)
    if due == "exit":
        os._exit(INJECTED_EXIT_STATUS)
    if due == "raise":
        raise InjectedFault(f"injected failure in {job.scene_id} frame {n} (attempt {frame_attempt})")


def run_clip_job(job: SceneJob, emit: Callable[[FrameRecord], None],
                 should_stop: Callable[[], bool] = lambda: False, build: Callable = build_scene) -> None:
    """Build the clip's scene once (`build` is Blender's build_scene; tests pass their own),
    then render its frames in Blender (`render_clip` does the rest)."""
    from blender_envs.core.settings import RenderSettings

    env = get_environment(job.env)
    quality = RenderSettings.model_validate(job.quality)
    scene, geo, timings = build(job)
    timeline = env.timeline(geo.spec)
    hook = env.frame_hook_function()

    def shoot(pose, t: float, seed: int):
        from blender_envs.core.render_passes import render_frame

        pose_scene_at(scene, timeline, pose, t)
        if hook is not None:           # time-dependent looks (signal lamps) at t
            hook(scene, geo.spec, t)
        return render_frame(scene, quality, seed=seed)

    render_clip(job, env, env.scorer_module(), RunStore(job.run_dir), geo, quality.long_side_px, timings, emit,
                should_stop, shoot)


def clip_isp(env, spec, parts: tuple) -> Callable[[int], IspParams]:
    """The clip's camera pipeline, drawn once per clip: view index -> that frame's ISP parameters
    (the CCTV pipeline's exposure drifts with the frame's time; the phone one is the same throughout)."""
    if env.isp == "cctv":
        cctv = sample_cctv_isp(rng_for(*parts, "clip_isp"))
        timestamps = env.timeline(spec).clip.timestamps()
        return lambda view_index: frame_params(cctv, timestamps[view_index])
    phone = sample_isp_params(rng_for(*parts, "clip_isp"))
    return lambda view_index: phone


def render_clip(job: SceneJob, env, scorer, store: RunStore, geo, long_side: int, timings: dict[str, float],
                emit: Callable[[FrameRecord], None], should_stop: Callable[[], bool], shoot: Callable) -> None:
    """The clip's frames in order, one record emitted per frame (`shoot(camera pose, t, cycles seed)`
    renders the passes); a frame that raises is tried FRAME_ATTEMPTS times, then the job fails;
    JobStopped is raised before a frame once `should_stop()` is true."""
    parts = seed_parts(job.root_seed, job.env, job.stratum, job.scene_index)
    isp_of = clip_isp(env, geo.spec, parts)
    for n, view_index in enumerate(job.views):
        if should_stop():
            raise JobStopped(job.scene_id)
        for attempt in range(FRAME_ATTEMPTS):
            try:
                _inject_frame_faults(job, n, attempt)
                rec = clip_frame(job, env, scorer, store, geo, parts, isp_of(view_index), view_index, long_side,
                                 timings, attempt + 1, shoot)
                break
            except Exception:  # noqa: BLE001 - retried once, then the job fails and the farm retries it
                if attempt + 1 == FRAME_ATTEMPTS:
                    raise
        emit(rec)
        timings = {"build_s": 0.0, "export_s": 0.0}  # counted once per build


def pose_scene_at(scene, timeline, pose, t: float) -> None:
    """Put every agent and the camera where they are at t, moving over [t, t + shutter]
    (the beauty render blurs over it; the pass render sees the scene at t)."""
    from blender_envs.core.camera_rig import apply_camera_pose
    from blender_envs.core.motion import set_shutter_motion

    for agent in timeline.agents:
        set_shutter_motion(scene, agent.track_id, agent.pose(t), agent.pose(t + pose.shutter_s))
    apply_camera_pose(scene, pose)
    scene.render.use_motion_blur = True  # agents (and a carried camera) move over the shutter
    scene.frame_set(1)


def clip_frame(job: SceneJob, env, scorer, store: RunStore, geo, parts: tuple, isp, view_index: int, long_side: int,
               timings: dict[str, float], renders: int, shoot: Callable,
               clock: Callable[[], float] = time.perf_counter) -> FrameRecord:
    """One frame of the clip: the camera at the frame's time, its passes (`shoot`), developed
    with the clip's ISP and this frame's noise, scored, written; its record."""
    timeline = env.timeline(geo.spec)
    view = env.sample_view(geo.spec, rng_for(*parts, view_index, "view", 0), view_index, long_side)
    passes = shoot(view.pose, timeline.clip.timestamps()[view_index],
                   cycles_seed(derive_seed(*parts, view_index, "cycles")))
    t0 = clock()
    _, jpeg = process_frame(passes.linear_rgb, isp, rng_for(*parts, view_index, "isp_noise"))
    image = np.asarray(Image.open(io.BytesIO(jpeg)).convert("RGB"))
    t_isp = clock() - t0

    t0 = clock()
    frame = RenderedFrame(image=image, depth=passes.depth, object_index=passes.object_index)
    terms = scorer.score_scene(geo, view) + scorer.score_frame(geo, view, frame)
    sanity = check_frame(image, False)
    verdict = verdict_of(terms) if sanity.ok else Verdict.EXCLUDED
    gt = scorer.ground_truth(geo, view, frame)
    t_score = clock() - t0

    frame_id = frame_id_for(job.env, job.stratum, job.scene_index, view_index)
    image_path, passes_path = store.frame_path(frame_id), store.passes_path(frame_id)
    atomic.write_bytes(image_path, jpeg)
    atomic.save_npz(passes_path, depth=passes.depth, object_index=passes.object_index)
    return FrameRecord(
        frame_id=frame_id, env=job.env, scene_id=geo.state.scene_id, view_index=view_index,
        seed=derive_seed(*parts, view_index, "frame"), stratum=job.stratum, target=view.target,
        camera=view.pose.model_dump(mode="json"), terms=terms, verdict=verdict.value,
        failing_term=first_failure(terms) if verdict != Verdict.ACCEPT else None,
        sanity=sanity.model_dump(mode="json"), ground_truth=gt,
        image=store.rel(image_path), passes=store.rel(passes_path),
        isp=isp.model_dump(mode="json"), pose_attempts=1, renders=renders,
        timings={**timings, "render_s": passes.render_s, "pass_render_s": passes.pass_render_s,
                 "isp_s": t_isp, "score_s": t_score},
    )
