"""The job function: one scene, built once, photographed from its views.

It runs inside a worker process (local) or a Ray task; both call `run_scene_job`.
Every random draw comes from a generator seeded by hashing the frame's coordinates
and the stage name (render_farm.seeds), so retries and reruns draw the same scene.
"""
from __future__ import annotations

import io
import os
import time
from typing import Callable

import numpy as np
from PIL import Image

from blender_envs.registry import get_environment
from geometry.raycast import Raycaster, SceneMesh, camera_inside_mesh
from geometry.scene import SceneState, View
from render_farm import atomic
from render_farm.isp import process_frame, sample_isp_params
from render_farm.plan import SceneJob, frame_id_for
from render_farm.records import FrameRecord
from render_farm.seeds import cycles_seed, derive_seed, rng_for
from render_farm.store import RunStore
from scorers.context import RenderedFrame, SceneGeometry
from scorers.sanity import check_frame
from scorers.terms import Verdict, first_failure, verdict_of


class InjectedFault(RuntimeError):
    """Raised on purpose by the fault plan (tests of retry and recovery)."""


def _seed_parts(job: SceneJob) -> tuple:
    return ("scenebench", job.root_seed, job.env, job.stratum, job.scene_index)


def sample_spec(job: SceneJob):
    """The scene's spec: a pure function of the job's coordinates (no bpy)."""
    env = get_environment(job.env)
    parts = _seed_parts(job)
    return env.sample_scene(rng_for(*parts, "scene"), job.scene_id, derive_seed(*parts, "scene"))


def _inject_faults(job: SceneJob) -> None:
    f = job.faults
    if job.scene_id in f.exit_in and job.attempt < f.exit_times:
        os._exit(17)  # a worker that dies mid-job, as a segfaulting Blender would
    if job.scene_id in f.raise_in and job.attempt < f.raise_times:
        raise InjectedFault(f"injected failure in {job.scene_id} (attempt {job.attempt})")


def run_scene_job(job: SceneJob, emit: Callable[[FrameRecord], None]) -> None:
    """Build the scene, render the job's views, emit one record per finished frame."""
    from blender_envs.core.camera_rig import apply_camera_pose
    from blender_envs.core.cycles_setup import configure_cycles, configure_device
    from blender_envs.core.mesh_export import export_world_triangles
    from blender_envs.core.render_passes import render_frame
    from blender_envs.core.scene_reset import reset_scene
    from blender_envs.core.settings import RenderSettings

    _inject_faults(job)
    env = get_environment(job.env)
    scorer = env.scorer_module()
    quality = RenderSettings.model_validate(job.quality)
    store = RunStore(job.run_dir)
    parts = _seed_parts(job)

    t0 = time.perf_counter()
    spec = sample_spec(job)
    scene = reset_scene()
    configure_cycles(scene, quality, cycles_seed(derive_seed(*parts, "cycles")))
    configure_device(scene, job.device)
    info = env.build_function()(scene, spec)
    t_build = time.perf_counter() - t0

    t0 = time.perf_counter()
    arrays = export_world_triangles(scene)
    mesh_path = store.scene_mesh_path(job.scene_id)
    atomic.save_npz(mesh_path, **arrays)
    state = SceneState(env=job.env, scene_id=job.scene_id, spec=spec.model_dump(mode="json"),
                       objects=info.objects, key_points=info.key_points, meshes=store.rel(mesh_path))
    atomic.write_text(store.scene_json_path(job.scene_id), state.model_dump_json(indent=2) + "\n")
    mesh = SceneMesh(**arrays)
    geo = SceneGeometry(spec=spec, state=state, mesh=mesh, raycaster=Raycaster(mesh))
    t_export = time.perf_counter() - t0

    scene_timings = {"build_s": t_build, "export_s": t_export}
    for view_index in job.views:
        _render_view(job, env, scorer, quality, store, geo, scene, view_index,
                     apply_camera_pose, render_frame, emit, scene_timings)
        scene_timings = {"build_s": 0.0, "export_s": 0.0}  # counted once, on the scene's first frame


def _draw_view(job: SceneJob, env, scorer, geo: SceneGeometry, view_index: int, attempt: int,
               long_side: int) -> tuple[View, list]:
    rng = rng_for(*_seed_parts(job), view_index, "view", attempt)
    view = env.sample_view(geo.spec, rng, view_index, long_side, attempt=attempt)
    return view, scorer.score_scene(geo, view)


def _render_view(job, env, scorer, quality, store, geo, scene, view_index, apply_camera_pose,
                 render_frame, emit, scene_timings) -> None:
    frame_id = frame_id_for(job.env, job.stratum, job.scene_index, view_index)
    parts = (*_seed_parts(job), view_index)
    t_score = 0.0
    attempt, renders = 0, 0
    while True:
        # -- choose a pose; the positive stratum culls on the scene-side terms first
        t0 = time.perf_counter()
        view, scene_terms = _draw_view(job, env, scorer, geo, view_index, attempt, quality.long_side_px)
        attempt += 1
        inside = camera_inside_mesh(geo.raycaster, geo.mesh, view.pose.center)
        t_score += time.perf_counter() - t0
        if job.stratum == "positive" and (inside or verdict_of(scene_terms) != Verdict.ACCEPT):
            if attempt >= job.max_pose_attempts:
                raise RuntimeError(f"{frame_id}: no pose passed the scene-side terms in "
                                   f"{job.max_pose_attempts} draws")
            continue
        # -- render, phone ISP, frame-side terms
        apply_camera_pose(scene, view.pose)
        passes = render_frame(scene, quality, seed=cycles_seed(derive_seed(*parts, "cycles", attempt)))
        renders += 1
        t0 = time.perf_counter()
        isp_params = sample_isp_params(rng_for(*parts, "isp", attempt))
        _, jpeg = process_frame(passes.linear_rgb, isp_params, rng_for(*parts, "isp_noise", attempt))
        image = np.asarray(Image.open(io.BytesIO(jpeg)).convert("RGB"))  # what a model will see
        t_isp = time.perf_counter() - t0
        t0 = time.perf_counter()
        frame = RenderedFrame(image=image, depth=passes.depth, object_index=passes.object_index)
        terms = scene_terms + scorer.score_frame(geo, view, frame)
        sanity = check_frame(image, inside)
        verdict = verdict_of(terms) if sanity.ok else Verdict.EXCLUDED
        t_score += time.perf_counter() - t0
        if job.stratum == "positive" and verdict != Verdict.ACCEPT and renders < job.max_renders_per_frame:
            continue
        if job.stratum == "positive" and verdict != Verdict.ACCEPT:
            raise RuntimeError(f"{frame_id}: no acceptable frame in {renders} renders")
        break

    image_path, passes_path = store.frame_path(frame_id), store.passes_path(frame_id)
    atomic.write_bytes(image_path, jpeg)
    atomic.save_npz(passes_path, depth=passes.depth, object_index=passes.object_index)
    pose = view.pose
    record = FrameRecord(
        frame_id=frame_id, env=job.env, scene_id=job.scene_id, view_index=view_index,
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
