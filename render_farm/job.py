"""The job function: one scene, built once, photographed from its views.

It runs inside a worker process (local) or a Ray task; both call `run_scene_job`.
Every random draw comes from a generator seeded by hashing the frame's coordinates
and the stage name (render_farm.seeds), so retries and reruns draw the same scene.
"""
from __future__ import annotations

import io
import os
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np
from PIL import Image

from blender_envs.registry import get_environment
from geometry.raycast import Raycaster, SceneMesh, camera_inside_mesh
from geometry.scene import SceneState, View
from formats import atomic
from render_farm.isp import process_frame, sample_isp_params
from render_farm.plan import SceneJob, frame_id_for, seed_parts
from formats.records import FrameRecord
from render_farm.seeds import cycles_seed, derive_seed, rng_for
from render_farm.store import RunStore
from scorers.context import RenderedFrame, SceneGeometry
from scorers.sanity import check_frame
from scorers.terms import Verdict, first_failure, verdict_of


MAX_SCENE_REDRAWS = 12      # positive stratum: scenes drawn before a slot is given up
POSES_PER_SCENE_DRAW = 150   # ... and poses tried on each before the scene is redrawn


class InjectedFault(RuntimeError):
    """Raised on purpose by the fault plan (tests of retry and recovery)."""


class JobStopped(Exception):
    """The worker was asked to stop (Ctrl-C): raised between frames, never inside one."""


class NoAcceptablePose(RuntimeError):
    """The positive stratum found no acceptable pose of this scene (e.g. its tape leans)."""


def _seed_parts(job: SceneJob, redraw: int = 0) -> tuple:
    return seed_parts(job.root_seed, job.env, job.stratum, job.scene_index, redraw)


def scene_id_of(job: SceneJob, redraw: int = 0) -> str:
    """A redrawn scene is another scene: its own id, state file and mesh."""
    return job.scene_id if redraw == 0 else f"{job.scene_id}-r{redraw}"


def sample_spec(job: SceneJob, redraw: int = 0):
    """The scene's spec: a pure function of the job's coordinates (no bpy)."""
    env = get_environment(job.env)
    parts = _seed_parts(job, redraw)
    return env.sample_scene(rng_for(*parts, "scene"), scene_id_of(job, redraw), derive_seed(*parts, "scene"))


def _inject_faults(job: SceneJob) -> None:
    f = job.faults
    if f.at_frame:  # a clip's faults strike inside it (render_farm.clip_job)
        return
    if job.scene_id in f.exit_in and job.attempt < f.exit_times:
        os._exit(17)  # a worker that dies mid-job, as a segfaulting Blender would
    if job.scene_id in f.raise_in and job.attempt < f.raise_times:
        raise InjectedFault(f"injected failure in {job.scene_id} (attempt {job.attempt})")


def build_scene(job: SceneJob, redraw: int = 0):
    """Sample the spec, build it in Blender, export and save its geometry.

    Returns (bpy scene, SceneGeometry for the scorers, timings)."""
    from blender_envs.core.cycles_setup import configure_cycles, configure_device
    from blender_envs.core.mesh_export import export_world_triangles
    from blender_envs.core.scene_reset import reset_scene
    from blender_envs.core.settings import RenderSettings

    env = get_environment(job.env)
    store = RunStore(job.run_dir)
    t0 = time.perf_counter()
    spec = sample_spec(job, redraw)
    scene = reset_scene()
    configure_cycles(scene, RenderSettings.model_validate(job.quality),
                     cycles_seed(derive_seed(*_seed_parts(job, redraw), "cycles")))
    configure_device(scene, job.device)
    info = env.build_function()(scene, spec)
    t_build = time.perf_counter() - t0

    t0 = time.perf_counter()
    arrays = export_world_triangles(scene)
    scene_id = scene_id_of(job, redraw)
    mesh_path = store.scene_mesh_path(scene_id)
    atomic.save_npz(mesh_path, **arrays)
    state = SceneState(env=job.env, scene_id=scene_id, spec=spec.model_dump(mode="json"),
                       objects=info.objects, key_points=info.key_points, meshes=store.rel(mesh_path))
    atomic.write_text(store.scene_json_path(scene_id), state.model_dump_json(indent=2) + "\n")
    mesh = SceneMesh(**arrays)
    geo = SceneGeometry(spec=spec, state=state, mesh=mesh, raycaster=Raycaster(mesh))
    return scene, geo, {"build_s": t_build, "export_s": time.perf_counter() - t0}


def run_scene_job(job: SceneJob, emit: Callable[[FrameRecord], None],
                  should_stop: Callable[[], bool] = lambda: False) -> None:
    """Build the scene, render the job's views, emit one record per finished frame;
    raise JobStopped before the next build or frame once `should_stop()` is true."""
    from blender_envs.core.settings import RenderSettings

    _inject_faults(job)
    env = get_environment(job.env)
    if env.is_clip:  # one clip: one build, its sampled timestamps as the views
        from render_farm.clip_job import run_clip_job

        return run_clip_job(job, emit, should_stop)
    remaining, redraw = list(job.views), 0
    while remaining:
        if should_stop():
            raise JobStopped(job.scene_id)
        scene, geo, scene_timings = build_scene(job, redraw)
        try:
            for view_index in list(remaining):
                if should_stop():
                    raise JobStopped(job.scene_id)
                _render_view(job, env, env.scorer_module(), RenderSettings.model_validate(job.quality),
                             RunStore(job.run_dir), geo, scene, view_index, emit, scene_timings, redraw)
                scene_timings = {"build_s": 0.0, "export_s": 0.0}  # counted once per build
                remaining.remove(view_index)
        except NoAcceptablePose:
            redraw += 1  # rejection sampling over (scene, pose), as the paper's positive stratum
            if redraw >= MAX_SCENE_REDRAWS:
                raise RuntimeError(f"{job.scene_id}: no acceptable frame in {MAX_SCENE_REDRAWS} scene draws "
                                   f"x {POSES_PER_SCENE_DRAW} poses") from None


def scene_side_acceptance(job: SceneJob, poses_per_scene: int) -> list[list]:
    """Scene-side terms of `poses_per_scene` random field poses of the job's scene, no
    rendering: what the positive stratum culls on, and how its acceptance is measured."""
    env = get_environment(job.env)
    scorer = env.scorer_module()
    _, geo, _ = build_scene(job)
    long_side = int(job.quality["long_side_px"])
    return [_draw_view(job, env, scorer, geo, view_index, 0, long_side)[1]
            for view_index in range(poses_per_scene)]


def _draw_view(job: SceneJob, env, scorer, geo: SceneGeometry, view_index: int, attempt: int,
               long_side: int, redraw: int = 0) -> tuple[View, list]:
    rng = rng_for(*_seed_parts(job, redraw), view_index, "view", attempt)
    view = env.sample_view(geo.spec, rng, view_index, long_side, attempt=attempt)
    return view, scorer.score_scene(geo, view)


@dataclass
class Photo:
    """One rendered pose developed through the phone ISP, as a model will see it."""

    passes: object          # RenderPasses: linear RGB, depth, object index, render times
    isp: object             # IspParams of this frame
    jpeg: bytes
    image: np.ndarray       # the JPEG decoded, (H, W, 3) uint8
    isp_s: float


def photograph(scene, pose, quality, parts: tuple, attempt: int) -> Photo:
    """Render `pose` and develop it, seeded from the frame's coordinates `parts` and the
    attempt: the farm's one way to take a picture (benchmarks and doc tools reuse it)."""
    from blender_envs.core.camera_rig import apply_camera_pose
    from blender_envs.core.render_passes import render_frame

    apply_camera_pose(scene, pose)
    passes = render_frame(scene, quality, seed=cycles_seed(derive_seed(*parts, "cycles", attempt)))
    t0 = time.perf_counter()
    isp_params = sample_isp_params(rng_for(*parts, "isp", attempt))
    _, jpeg = process_frame(passes.linear_rgb, isp_params, rng_for(*parts, "isp_noise", attempt))
    image = np.asarray(Image.open(io.BytesIO(jpeg)).convert("RGB"))
    return Photo(passes, isp_params, jpeg, image, time.perf_counter() - t0)


def _render_view(job, env, scorer, quality, store, geo, scene, view_index, emit, scene_timings,
                 redraw: int = 0) -> None:
    frame_id = frame_id_for(job.env, job.stratum, job.scene_index, view_index)
    parts = (*_seed_parts(job, redraw), view_index)
    t_score = 0.0
    attempt, renders = 0, 0
    while True:
        # -- choose a pose; the positive stratum culls on the scene-side terms first
        t0 = time.perf_counter()
        view, scene_terms = _draw_view(job, env, scorer, geo, view_index, attempt, quality.long_side_px, redraw)
        attempt += 1
        inside = camera_inside_mesh(geo.raycaster, geo.mesh, view.pose.center)
        t_score += time.perf_counter() - t0
        if job.stratum == "positive" and (inside or verdict_of(scene_terms) != Verdict.ACCEPT):
            if attempt >= min(job.max_pose_attempts, POSES_PER_SCENE_DRAW):
                raise NoAcceptablePose(frame_id)
            continue
        # -- render, phone ISP, frame-side terms
        photo = photograph(scene, view.pose, quality, parts, attempt)
        renders += 1
        passes, isp_params, jpeg, image, t_isp = photo.passes, photo.isp, photo.jpeg, photo.image, photo.isp_s
        t0 = time.perf_counter()
        frame = RenderedFrame(image=image, depth=passes.depth, object_index=passes.object_index)
        terms = scene_terms + scorer.score_frame(geo, view, frame)
        sanity = check_frame(image, inside)
        verdict = verdict_of(terms) if sanity.ok else Verdict.EXCLUDED
        t_score += time.perf_counter() - t0
        if job.stratum == "positive" and verdict != Verdict.ACCEPT and renders < job.max_renders_per_frame:
            continue
        if job.stratum == "positive" and verdict != Verdict.ACCEPT:
            raise NoAcceptablePose(frame_id)
        break

    image_path, passes_path = store.frame_path(frame_id), store.passes_path(frame_id)
    atomic.write_bytes(image_path, jpeg)
    atomic.save_npz(passes_path, depth=passes.depth, object_index=passes.object_index)
    pose = view.pose
    record = FrameRecord(
        frame_id=frame_id, env=job.env, scene_id=geo.state.scene_id, view_index=view_index,
        seed=derive_seed(*parts, "frame"), stratum=job.stratum, target=view.target,
        camera=pose.model_dump(mode="json"), terms=terms, verdict=verdict.value,
        failing_term=first_failure(terms) if verdict != Verdict.ACCEPT else None,
        sanity=sanity.model_dump(mode="json"),
        ground_truth=scorer.ground_truth(geo, view, frame),
        image=store.rel(image_path), passes=store.rel(passes_path),
        isp=isp_params.model_dump(mode="json"), pose_attempts=attempt, renders=renders,
        timings={**scene_timings, "render_s": passes.render_s, "pass_render_s": passes.pass_render_s,
                 "isp_s": t_isp, "score_s": t_score},
    )
    emit(record)
