"""The job function: one scene, built once, photographed from its views.

It runs inside a worker process (local) or a Ray task; both call `run_scene_job`.
Every random draw comes from a generator seeded by hashing the frame's coordinates
and the stage name (render_farm.seeds), so retries and reruns draw the same scene.
"""
from __future__ import annotations

import io
import json
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


INJECTED_EXIT_STATUS = 17   # the status of a worker the fault plan kills


def fault_due(job: SceneJob) -> str | None:
    """'exit' or 'raise' when the fault plan fails this attempt of the job, else None."""
    f = job.faults
    if f.at_frame:  # a clip's faults strike inside it (render_farm.clip_job)
        return
    if job.scene_id in f.exit_in and job.attempt < f.exit_times:
        return "exit"
    if job.scene_id in f.raise_in and job.attempt < f.raise_times:
        return "raise"
    return None


def _inject_faults(job: SceneJob) -> None:
    due = fault_due(job)
    if due == "exit":
        os._exit(INJECTED_EXIT_STATUS)  # a worker that dies mid-job, as a segfaulting Blender would
    if due == "raise":
        raise InjectedFault(f"injected failure in {job.scene_id} (attempt {job.attempt})")


def build_scene(job: SceneJob, redraw: int = 0):
    """Sample the spec, build it in Blender, export and save its geometry.

    Returns (bpy scene, SceneGeometry for the scorers, timings)."""
    from blender_envs.core.cycles_setup import configure_cycles, configure_device
    from blender_envs.core.mesh_export import export_world_triangles
    from blender_envs.core.scene_reset import reset_scene
    from blender_envs.core.settings import RenderSettings

    t0 = time.perf_counter()
    spec = sample_spec(job, redraw)
    scene = reset_scene()
    configure_cycles(scene, RenderSettings.model_validate(job.quality), scene_cycles_seed(job, redraw))
    configure_device(scene, job.device)
    info = get_environment(job.env).build_function()(scene, spec)
    t_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    geo = save_scene(job, RunStore(job.run_dir), spec, info, export_world_triangles(scene), redraw)
    return scene, geo, build_timings(t_build, time.perf_counter() - t0)


def scene_cycles_seed(job: SceneJob, redraw: int = 0) -> int:
    """The seed the scene's Cycles settings start from (each frame's render then reseeds)."""
    return cycles_seed(derive_seed(*_seed_parts(job, redraw), "cycles"))


def build_timings(build_s: float, export_s: float) -> dict[str, float]:
    return {"build_s": build_s, "export_s": export_s}


def save_scene(job: SceneJob, store: RunStore, spec, info, arrays: dict, redraw: int = 0) -> SceneGeometry:
    """Write the built scene's triangles and state file (scenes/<id>.npz, .json); the geometry
    the scorers read, with the mesh as it was written."""
    scene_id = scene_id_of(job, redraw)
    mesh_path = store.scene_mesh_path(scene_id)
    atomic.save_npz(mesh_path, **arrays)
    state = SceneState(env=job.env, scene_id=scene_id, spec=spec.model_dump(mode="json"),
                       objects=info.objects, key_points=info.key_points, meshes=store.rel(mesh_path))
    atomic.write_text(store.scene_json_path(scene_id), state.model_dump_json(indent=2) + "\n")
    mesh = SceneMesh(**arrays)
    return SceneGeometry(spec=spec, state=state, mesh=mesh, raycaster=Raycaster(mesh))


def run_views(job: SceneJob, env, scorer, long_side: int, emit: Callable[[FrameRecord], None],
              should_stop: Callable[[], bool], build: Callable, shoot: Callable) -> None:
    """The job's frames, one record emitted per frame taken: `build(redraw)` builds a scene draw,
    `shoot(scene, camera pose, seed parts, attempt)` takes a picture in it (Blender in a run)."""
    store = RunStore(job.run_dir)

    def render(scene, geo, view_index, scene_timings, redraw):
        def shoot_here(camera, parts, attempt):
            return shoot(scene, camera, parts, attempt)

        emit(take_frame(job, env, scorer, store, geo, view_index, long_side, scene_timings, shoot_here, redraw))

    render_views(job.scene_id, job.views, build, render, should_stop)


NO_BUILD_TIMINGS = build_timings(0.0, 0.0)


def render_views(scene_id: str, views, build: Callable, render: Callable,
                 should_stop: Callable[[], bool]) -> None:
    """The job's loop: `render(scene, geo, view, timings, redraw)` for each view, on the scene
    draw `build(redraw)` -> (scene, geo, timings) that view needs. Every view starts on the
    scene's first draw and moves to the next one when that draw has no acceptable pose for it
    (NoAcceptablePose: rejection sampling over (scene, pose), as the paper's positive stratum),
    whatever the job's other views did. A frame is so a function of its own coordinates: the
    same bytes alone, in any job, on any worker, after a resume or a retry. A draw is built
    again only when the view needs another one; its timings go to the first frame taken on it."""
    built: tuple | None = None      # (redraw, scene, geo) now in Blender
    for view_index in views:
        redraw = 0
        while True:
            if should_stop():
                raise JobStopped(scene_id)
            if built is None or built[0] != redraw:
                scene, geo, timings = build(redraw)
                built = (redraw, scene, geo)
            try:
                render(built[1], built[2], view_index, timings, redraw)
            except NoAcceptablePose:
                redraw = next_redraw(scene_id, redraw)
                continue
            timings = dict(NO_BUILD_TIMINGS)  # counted once per build
            break


def next_redraw(scene_id: str, redraw: int) -> int:
    """The scene draw after `redraw` failed, or the job's failure once MAX_SCENE_REDRAWS are spent."""
    redraw += 1
    if redraw >= MAX_SCENE_REDRAWS:
        raise RuntimeError(f"{scene_id}: no acceptable frame in {MAX_SCENE_REDRAWS} scene draws "
                           f"x {POSES_PER_SCENE_DRAW} poses") from None
    return redraw


def scene_side_acceptance(job: SceneJob, poses_per_scene: int, build: Callable = build_scene) -> list[list]:
    """Scene-side terms of `poses_per_scene` random field poses of the job's scene, no
    rendering: what the positive stratum culls on, and how its acceptance is measured
    (`build` is Blender's build_scene; tests pass their own)."""
    env = get_environment(job.env)
    _, geo, _ = build(job)
    return scene_side_terms(job, env, env.scorer_module(), geo, poses_per_scene)


def scene_side_terms(job: SceneJob, env, scorer, geo: SceneGeometry, poses_per_scene: int) -> list[list]:
    """The scene-side terms of views 0..poses_per_scene-1, each its first pose (attempt 0)."""
    long_side = int(job.quality["long_side_px"])
    return [_draw_view(job, env, scorer, geo, view_index, 0, long_side)[1]
            for view_index in range(poses_per_scene)]


def view_seed(job: SceneJob, view_index: int, attempt: int, redraw: int = 0) -> int:
    """The seed of the `attempt`-th pose of a view: a redrawn scene draws other poses."""
    return derive_seed(*_seed_parts(job, redraw), view_index, "view", attempt)


def _draw_view(job: SceneJob, env, scorer, geo: SceneGeometry, view_index: int, attempt: int,
               long_side: int, redraw: int = 0) -> tuple[View, list]:
    rng = np.random.default_rng(view_seed(job, view_index, attempt, redraw))
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


def photo_seeds(parts: tuple, attempt: int) -> dict[str, int]:
    """The seeds of one picture: Cycles' sampling, the ISP's parameters and its sensor noise;
    every attempt at a frame is another picture."""
    return {"cycles": cycles_seed(derive_seed(*parts, "cycles", attempt)),
            "isp": derive_seed(*parts, "isp", attempt),
            "isp_noise": derive_seed(*parts, "isp_noise", attempt)}


def develop(passes, seeds: dict[str, int], clock: Callable[[], float] = time.perf_counter) -> Photo:
    """Develop rendered passes through the phone ISP with the picture's seeds (no bpy)."""
    t0 = clock()
    isp_params = sample_isp_params(np.random.default_rng(seeds["isp"]))
    _, jpeg = process_frame(passes.linear_rgb, isp_params, np.random.default_rng(seeds["isp_noise"]))
    image = np.asarray(Image.open(io.BytesIO(jpeg)).convert("RGB"))
    return Photo(passes, isp_params, jpeg, image, clock() - t0)


def photograph(scene, pose, quality, parts: tuple, attempt: int) -> Photo:
    """Render `pose` and develop it, seeded from the frame's coordinates `parts` and the
    attempt: the farm's one way to take a picture (benchmarks and doc tools reuse it)."""
    return take_picture(lambda seed: _render(scene, pose, quality, seed), parts, attempt)


def _render(scene, pose, quality, seed: int):
    from blender_envs.core.camera_rig import apply_camera_pose
    from blender_envs.core.render_passes import render_frame

    apply_camera_pose(scene, pose)
    return render_frame(scene, quality, seed=seed)


def take_picture(render: Callable[[int], object], parts: tuple, attempt: int,
                 clock: Callable[[], float] = time.perf_counter) -> Photo:
    """`render(cycles seed)` -> passes, developed with the same attempt's ISP seeds."""
    seeds = photo_seeds(parts, attempt)
    return develop(render(seeds["cycles"]), seeds, clock)


@dataclass
class Pose:
    """A drawn pose with its scene-side terms and whether the camera is inside a solid."""

    view: View
    scene_terms: list
    inside: bool


@dataclass
class Shot:
    """A rendered pose: its picture, every term, the sanity check and the frame's verdict."""

    photo: Photo
    frame: RenderedFrame
    terms: list
    sanity: object          # scorers.sanity.SanityResult
    verdict: Verdict


def pose_budget(max_pose_attempts: int) -> int:
    """Poses a positive frame may draw on one scene draw before the scene is redrawn."""
    return min(max_pose_attempts, POSES_PER_SCENE_DRAW)


def culls_pose(stratum: str, pose: Pose) -> bool:
    """The positive stratum renders only poses whose scene-side terms accept, camera outside."""
    return stratum == "positive" and (pose.inside or verdict_of(pose.scene_terms) != Verdict.ACCEPT)


def frame_verdict(terms: list, sanity_ok: bool) -> Verdict:
    """A frame that fails the render sanity check is excluded whatever its terms say."""
    return verdict_of(terms) if sanity_ok else Verdict.EXCLUDED


def search_frame(stratum: str, max_pose_attempts: int, max_renders: int, frame_id: str,
                 draw: Callable[[int], Pose], shoot: Callable[[Pose, int], Shot]) -> tuple[Pose, Shot, int, int]:
    """Draw poses (`draw(attempt)`) and render them (`shoot(pose, attempts so far)`) until the
    frame is taken: (pose, shot, poses drawn, renders). Any stratum but the positive one keeps
    its first pose; the positive one culls on the scene-side terms, renders again while a
    render is not accepted, and raises NoAcceptablePose once either budget is spent."""
    attempt, renders = 0, 0
    while True:
        pose = draw(attempt)
        attempt += 1
        if culls_pose(stratum, pose):
            if attempt >= pose_budget(max_pose_attempts):
                raise NoAcceptablePose(frame_id)
            continue
        shot = shoot(pose, attempt)
        renders += 1
        if stratum != "positive" or shot.verdict == Verdict.ACCEPT:
            return pose, shot, attempt, renders
        if renders >= max_renders:
            raise NoAcceptablePose(frame_id)


def frame_record(job: SceneJob, frame_id: str, scene_id: str, view_index: int, parts: tuple, pose: Pose,
                 shot: Shot, ground_truth: dict, image: str, passes: str, attempts: int, renders: int,
                 timings: dict[str, float]) -> FrameRecord:
    """The frame's record from its parts; its seed is derived from the frame's coordinates."""
    return FrameRecord(
        frame_id=frame_id, env=job.env, scene_id=scene_id, view_index=view_index,
        seed=derive_seed(*parts, "frame"), stratum=job.stratum, target=pose.view.target,
        camera=pose.view.pose.model_dump(mode="json"), terms=shot.terms, verdict=shot.verdict.value,
        failing_term=first_failure(shot.terms) if shot.verdict != Verdict.ACCEPT else None,
        sanity=shot.sanity.model_dump(mode="json"), ground_truth=ground_truth, image=image, passes=passes,
        isp=shot.photo.isp.model_dump(mode="json"), pose_attempts=attempts, renders=renders,
        timings=timings,
    )


def frame_timings(scene_timings: dict[str, float], passes, isp_s: float, score_s: float) -> dict[str, float]:
    return {**scene_timings, "render_s": passes.render_s, "pass_render_s": passes.pass_render_s,
            "isp_s": isp_s, "score_s": score_s}


def save_frame_files(store: RunStore, frame_id: str, photo: Photo) -> tuple[str, str]:
    """Write the frame's JPEG and its depth and object-index passes; their run-relative paths."""
    image_path, passes_path = store.frame_path(frame_id), store.passes_path(frame_id)
    atomic.write_bytes(image_path, photo.jpeg)
    atomic.save_npz(passes_path, depth=photo.passes.depth, object_index=photo.passes.object_index)
    return store.rel(image_path), store.rel(passes_path)


def take_frame(job: SceneJob, env, scorer, store: RunStore, geo: SceneGeometry, view_index: int, long_side: int,
               scene_timings: dict[str, float], shoot: Callable[[object, tuple, int], Photo],
               redraw: int = 0, clock: Callable[[], float] = time.perf_counter) -> FrameRecord:
    """One frame of the job's scene: search its pose (`shoot(camera pose, seed parts, attempt)`
    takes a picture), write its files and return its record."""
    frame_id = frame_id_for(job.env, job.stratum, job.scene_index, view_index)
    parts = (*_seed_parts(job, redraw), view_index)
    spent = {"score_s": 0.0}

    def draw(attempt: int) -> Pose:
        t0 = clock()
        view, scene_terms = _draw_view(job, env, scorer, geo, view_index, attempt, long_side, redraw)
        pose = Pose(view, scene_terms, camera_inside_mesh(geo.raycaster, geo.mesh, view.pose.center))
        spent["score_s"] += clock() - t0
        return pose

    def render(pose: Pose, attempt: int) -> Shot:
        photo = shoot(pose.view.pose, parts, attempt)
        t0 = clock()
        shot = judge(geo, scorer, pose, photo)
        spent["score_s"] += clock() - t0
        return shot

    pose, shot, attempts, renders = search_frame(job.stratum, job.max_pose_attempts, job.max_renders_per_frame,
                                                 frame_id, draw, render)
    image, passes = save_frame_files(store, frame_id, shot.photo)
    return frame_record(job, frame_id, geo.state.scene_id, view_index, parts, pose, shot,
                        scorer.ground_truth(geo, pose.view, shot.frame), image, passes, attempts, renders,
                        frame_timings(scene_timings, shot.photo.passes, shot.photo.isp_s, spent["score_s"]))


def judge(geo: SceneGeometry, scorer, pose: Pose, photo: Photo) -> Shot:
    """Score a developed picture: the scene-side terms, then the frame-side ones and the sanity check."""
    frame = RenderedFrame(image=photo.image, depth=photo.passes.depth, object_index=photo.passes.object_index)
    terms = pose.scene_terms + scorer.score_frame(geo, pose.view, frame)
    sanity = check_frame(photo.image, pose.inside)
    return Shot(photo, frame, terms, sanity, frame_verdict(terms, sanity.ok))


def run_scene_job(job: SceneJob, emit: Callable[[FrameRecord], None],
                  should_stop: Callable[[], bool] = lambda: False,
                  build: Callable = build_scene, camera: Callable = photograph) -> None:
    """Build the scene, render the job's views, emit one record per finished frame;
    raise JobStopped before the next build or frame once `should_stop()` is true.
    `build` and `camera` are Blender's (build_scene, photograph); tests pass their own."""
    from blender_envs.core.settings import RenderSettings

    _inject_faults(job)
    env, quality = get_environment(job.env), RenderSettings.model_validate(job.quality)
    if env.is_clip:  # one clip: one build, its sampled timestamps as the views
        from render_farm.clip_job import run_clip_job

        return run_clip_job(job, emit, should_stop, build=build)
    try:
        run_views(job, env, env.scorer_module(), quality.long_side_px, emit, should_stop,
                  build=lambda redraw: LAST_BUILD.build(build, job, redraw),
                  shoot=lambda scene, pose, parts, attempt: camera(scene, pose, quality, parts, attempt))
    except BaseException:
        LAST_BUILD.forget()  # a job that failed may have left its scene half-changed
        raise


class LastBuild:
    """The scene draw now in this process's Blender. A scene split into several jobs
    (plan.split_tail) sends its views to whichever worker is free; a job of the draw a worker
    holds renders on it instead of building it again (views do not depend on the views rendered
    before them: render_views), and the build is charged to the frame that built it."""

    def __init__(self):
        self.key: tuple | None = None
        self.value: tuple | None = None
        self.builds = self.reuses = 0   # over the process's life: a worker is recycled by scenes built

    def build(self, build: Callable, job: SceneJob, redraw: int) -> tuple:
        key = (build, job.run_dir, job.env, job.root_seed, job.stratum, job.scene_index, redraw,
               json.dumps(job.quality, sort_keys=True), job.device)
        if key == self.key:
            self.reuses += 1
            scene, geo, _ = self.value
            return scene, geo, dict(NO_BUILD_TIMINGS)
        self.forget()
        self.value = build(job, redraw)
        self.key = key
        self.builds += 1
        return self.value

    def scenes_built_by(self, before: tuple[int, int]) -> int:
        """Scenes a job built, given (builds, reuses) before it: one for a job that built outside
        this cache (a clip), none for one that only rendered on the held draw."""
        builds, reuses = self.builds - before[0], self.reuses - before[1]
        return builds if builds or reuses else 1

    def forget(self) -> None:
        self.key = self.value = None


LAST_BUILD = LastBuild()
