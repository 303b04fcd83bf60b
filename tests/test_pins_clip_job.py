"""The clip job's decisions without Blender (render_farm/clip_job.py): the fault plan inside a
clip, the clip's camera pipeline, the seeds of each frame, the retry of a frame that raises,
stopping between frames and the record of each frame. Real environment (calib_clip's sampler
and timeline), real ISP and real files; only Blender's build and render are replaced by a
scene saved with a hand-made mesh and synthetic passes."""
from __future__ import annotations

import dataclasses
import hashlib
import io
import types

import numpy as np
import pytest
from PIL import Image

from blender_envs.registry import get_environment
from conftest import preview_quality
from formats.records import TermResult
from geometry.clip import BUILD_T
from geometry.scene import BuildInfo, SceneObject
from render_farm import clip_job as cj
from render_farm.cctv_isp import frame_params, sample_cctv_isp
from render_farm.isp import process_frame, sample_isp_params
from render_farm.job import InjectedFault, JobStopped, sample_spec, save_scene
from render_farm.plan import FaultPlan, plan_jobs
from render_farm.store import RunStore

JOB = {"root_seed": 7, "quality": {"long_side_px": 32, "samples": 1}, "device": "cpu"}
PARTS = ("scenebench", 7, "calib_clip", "random", 3)
# calib_clip samples 8 frames at stride 15 of a 30 fps stream: frame numbers 0, 15, ..., 105
TIMES = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5]


def _blake(key: str) -> int:
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little") >> 1


@pytest.fixture(autouse=True)
def _exit_raises(monkeypatch):
    """os._exit raises SystemExit(("exit", status)) here: a worker kill fails a test instead of pytest."""
    def fake_exit(status):
        raise SystemExit(("exit", status))

    monkeypatch.setattr(cj.os, "_exit", fake_exit)


def _job(tmp_path=None, scene=3, **kw):
    run_dir = str(tmp_path / "calib_clip") if tmp_path is not None else "/x"
    return plan_jobs("calib_clip", (scene + 1) * 8, 8, "random", set(), **{**JOB, "run_dir": run_dir, **kw})[-1]


def _env():
    return get_environment("calib_clip")


def _term(name, passed, side="scene", gray=False):
    return TermResult(name=name, side=side, value=1.0, threshold=">= 1", passed=passed, gray=gray)


class _Scorer:
    """Scripted terms; the ground truth says which view and frame it was given."""

    def __init__(self, scene_terms=(), frame_terms=()):
        self.scene_terms, self.frame_terms, self.calls = list(scene_terms), list(frame_terms), []

    def score_scene(self, geo, view):
        self.calls.append(("scene", view.view_index))
        return list(self.scene_terms)

    def score_frame(self, geo, view, frame):
        self.calls.append(("frame", view.view_index, frame.image.shape, float(frame.depth[0, 0]),
                           int(frame.object_index.sum())))
        return list(self.frame_terms)

    def ground_truth(self, geo, view, frame=None):
        return {"view": view.view_index, "scene": geo.state.scene_id, "index_sum": int(frame.object_index.sum()),
                "mean": round(float(frame.image.mean()), 3)}


def _passes(h, w, level=0.3):
    rgb = np.full((h, w, 3), level, np.float32)
    rgb[:, : w // 2] *= 0.4
    return types.SimpleNamespace(linear_rgb=rgb, depth=np.full((h, w), 4.5, np.float32),
                                 object_index=(np.arange(h * w, dtype=np.int32).reshape(h, w) % 4),
                                 render_s=1.25, pass_render_s=0.5)


AGENTS = ("line", "circle", "stop_go")
INFO = BuildInfo(objects=[SceneObject(id=1, name="ground", category="ground", pass_index=1)]
                 + [SceneObject(id=2 + k, name=n, category="agent", pass_index=2 + k) for k, n in enumerate(AGENTS)])
_TRIS = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]], np.int32)


def _mesh(spec):
    """A ground triangle far below, and each agent as the box the builder makes, at its build pose."""
    V = [np.array([[-1e3, -1e3, -50], [1e3, -1e3, -50], [0, 1e3, -50]], float)]
    F, ids = [np.array([[0, 1, 2]], np.int32)], [np.ones(1, np.int32)]
    for k, a in enumerate(spec.timeline.agents):
        corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * np.asarray(a.size) / 2
        M = np.asarray(a.pose(BUILD_T), float)
        V.append(corners @ M[:3, :3].T + M[:3, 3])
        F.append(_TRIS + 3 + 8 * k)
        ids.append(np.full(12, 2 + k, np.int32))
    return {"vertices": np.vstack(V).astype(np.float32), "triangles": np.vstack(F), "tri_object_id": np.concatenate(ids),
            "object_ids": np.arange(1, 5, dtype=np.int32), "object_names": np.array(["ground", *AGENTS])}


def _geo(job):
    store = RunStore(job.run_dir)
    store.create()
    spec = sample_spec(job)
    return store, save_scene(job, store, spec, INFO, _mesh(spec))


# -- the fault plan inside a clip -------------------------------------------------------------

def test_constants():
    assert cj.FRAME_ATTEMPTS == 2
    assert TIMES == _env().timeline(sample_spec(_job())).clip.timestamps()


def test_frame_fault_due():
    plan = FaultPlan(exit_in=["random-00003"], exit_times=2, raise_in=["random-00003"], raise_times=1, at_frame=2)
    j = _job(faults=plan)
    assert [cj.frame_fault_due(j, n, 0) for n in range(4)] == [None, None, "exit", None]
    later = j.model_copy(update={"attempt": 2})            # the farm's third attempt at the job: no exit
    assert [cj.frame_fault_due(later, 2, a) for a in range(3)] == ["raise", None, None]
    assert cj.frame_fault_due(j.model_copy(update={"attempt": 1}), 2, 0) == "exit"
    raises = _job(faults=FaultPlan(raise_in=["random-00003"], raise_times=2, at_frame=1))
    assert [cj.frame_fault_due(raises, 1, a) for a in range(3)] == ["raise", "raise", None]
    other = _job(scene=2, faults=plan)                     # another scene's job
    assert [cj.frame_fault_due(other, 2, a) for a in range(2)] == [None, None]
    # at_frame 0: the clip's faults are off (run_scene_job's own fault plan strikes at the job's start)
    off = _job(faults=FaultPlan(exit_in=["random-00003"], raise_in=["random-00003"], at_frame=0))
    assert [cj.frame_fault_due(off, n, 0) for n in range(3)] == [None, None, None]


def test_inject_frame_faults():
    plan = FaultPlan(exit_in=["random-00003"], exit_times=1, raise_in=["random-00003"], raise_times=1, at_frame=2)
    j = _job(faults=plan)
    with pytest.raises(SystemExit) as exc:
        cj._inject_frame_faults(j, 2, 0)
    assert exc.value.code == ("exit", 17)
    again = j.model_copy(update={"attempt": 1})
    with pytest.raises(InjectedFault, match=r"^injected failure in random-00003 frame 2 \(attempt 0\)$"):
        cj._inject_frame_faults(again, 2, 0)
    assert cj._inject_frame_faults(again, 2, 1) is None
    assert cj._inject_frame_faults(j, 1, 0) is None


# -- the clip's camera pipeline ---------------------------------------------------------------

def test_cctv_isp_is_drawn_once_per_clip_and_drifts_with_the_frames_time():
    spec = sample_spec(_job())
    isp_of = cj.clip_isp(_env(), spec, PARTS)
    cctv = sample_cctv_isp(np.random.default_rng(_blake("scenebench/7/calib_clip/random/3/clip_isp")))
    assert [isp_of(v) for v in range(8)] == [frame_params(cctv, t) for t in TIMES]
    assert isp_of(0) == cctv.base
    # frame 6 is at t = 3 s: its bias is the clip's bias plus three seconds of drift
    assert isp_of(6).exposure_bias_ev == pytest.approx(cctv.base.exposure_bias_ev + 3.0 * cctv.drift_ev_per_s)
    assert isp_of(6).exposure_bias_ev != isp_of(0).exposure_bias_ev
    other = cj.clip_isp(_env(), spec, ("scenebench", 7, "calib_clip", "random", 4))
    assert other(0) != isp_of(0)


def test_phone_isp_clip_keeps_one_pipeline():
    phone_env = dataclasses.replace(_env(), isp="phone")
    isp_of = cj.clip_isp(phone_env, sample_spec(_job()), PARTS)
    want = sample_isp_params(np.random.default_rng(_blake("scenebench/7/calib_clip/random/3/clip_isp")))
    assert [isp_of(v) for v in (0, 3, 7)] == [want] * 3


# -- one frame ----------------------------------------------------------------------------------

def _frame(tmp_path, scorer, view_index=2, level=0.3, renders=1, timings=None):
    job = _job(tmp_path)
    store, geo = _geo(job)
    isp = cj.clip_isp(_env(), geo.spec, PARTS)(view_index)
    shots = []

    def shoot(pose, t, seed):
        shots.append((pose, t, seed))
        return _passes(pose.height, pose.width, level)

    ticks = iter(range(100, 1000, 2))                # every timed step takes 2 s (from t = 100 s)
    rec = cj.clip_frame(job, _env(), scorer, store, geo, PARTS, isp, view_index, 32,
                        timings or {"build_s": 3.0, "export_s": 0.5}, renders, shoot, clock=lambda: float(next(ticks)))
    return job, store, geo, isp, shots, rec


def test_clip_frame_renders_the_view_at_its_time_with_the_frames_seeds(tmp_path):
    scorer = _Scorer([_term("a", True)], [_term("b", True, "frame")])
    job, store, geo, isp, shots, rec = _frame(tmp_path, scorer)
    view = _env().sample_view(geo.spec, np.random.default_rng(_blake("scenebench/7/calib_clip/random/3/2/view/0")),
                              2, 32)
    ((pose, t, seed),) = shots
    assert pose == view.pose and max(pose.width, pose.height) == 32
    assert t == 1.0                                                    # frame 30 of the 30 fps stream
    assert seed == _blake("scenebench/7/calib_clip/random/3/2/cycles") % (2**31 - 1)
    passes = _passes(pose.height, pose.width)
    jpeg = process_frame(passes.linear_rgb, isp,
                         np.random.default_rng(_blake("scenebench/7/calib_clip/random/3/2/isp_noise")))[1]
    assert (store.dir / "frames" / "calib_clip-random-00003-02.jpg").read_bytes() == jpeg
    with np.load(store.dir / "passes" / "calib_clip-random-00003-02.npz") as z:
        assert sorted(z.files) == ["depth", "object_index"]
        assert np.array_equal(z["depth"], passes.depth) and np.array_equal(z["object_index"], passes.object_index)
    image = np.asarray(Image.open(io.BytesIO(jpeg)).convert("RGB"))
    h, w = pose.height, pose.width
    index_sum = int(passes.object_index.sum())
    assert scorer.calls == [("scene", 2), ("frame", 2, (h, w, 3), 4.5, index_sum)]

    assert rec.frame_id == "calib_clip-random-00003-02" and rec.env == "calib_clip"
    assert rec.scene_id == "random-00003" and rec.view_index == 2 and rec.stratum == "random"
    assert rec.seed == _blake("scenebench/7/calib_clip/random/3/2/frame")
    assert rec.target == "clip" and rec.camera == view.pose.model_dump(mode="json")
    assert [x.name for x in rec.terms] == ["a", "b"] and rec.verdict == "accept" and rec.failing_term is None
    assert rec.sanity == {"ok": True, "reasons": []}
    assert rec.ground_truth == {"view": 2, "scene": "random-00003", "index_sum": index_sum,
                                "mean": round(float(image.mean()), 3)}
    assert rec.image == "frames/calib_clip-random-00003-02.jpg" and rec.passes == "passes/calib_clip-random-00003-02.npz"
    assert rec.isp == isp.model_dump(mode="json") and rec.pose_attempts == 1 and rec.renders == 1
    assert rec.timings == {"build_s": 3.0, "export_s": 0.5, "render_s": 1.25, "pass_render_s": 0.5,
                           "isp_s": 2.0, "score_s": 2.0}


def test_clip_frame_verdicts(tmp_path):
    gray = _term("g", False, gray=True)
    _, _, _, _, _, rec = _frame(tmp_path / "r", _Scorer([gray], [_term("b", False, "frame")]), renders=2)
    assert rec.verdict == "reject" and rec.failing_term == "b" and rec.renders == 2     # the hard failure first
    _, _, _, _, _, rec = _frame(tmp_path / "u", _Scorer([gray], [_term("b", True, "frame")]))
    assert rec.verdict == "unscored" and rec.failing_term == "g"
    # a black frame fails the sanity check: excluded whatever its terms say
    _, _, _, _, _, rec = _frame(tmp_path / "x", _Scorer([_term("a", True)]), level=0.0)
    assert rec.verdict == "excluded" and rec.failing_term is None
    assert rec.sanity == {"ok": False, "reasons": ["black frame"]}
    _, _, _, _, _, rec = _frame(tmp_path / "y", _Scorer([_term("a", False)]), level=0.0)
    assert rec.verdict == "excluded" and rec.failing_term == "a"


def test_clip_frame_with_the_real_scorer_carries_the_frames_time(tmp_path):
    _, _, _, _, _, rec = _frame(tmp_path, _env().scorer_module(), view_index=5)
    assert rec.ground_truth["t"] == 2.5 and rec.ground_truth["frame_number"] == 75
    assert [o["track_id"] for o in rec.ground_truth["objects"]] == ["line", "circle", "stop_go"]
    assert [x.name for x in rec.terms] == ["agents_in_frame", "agents_visible"]


# -- the clip's loop ----------------------------------------------------------------------------

def _render_clip(tmp_path, views=None, fail=None, stop_after=None, faults=None):
    job = _job(tmp_path, **({"faults": faults} if faults else {}))
    if views is not None:
        job = job.model_copy(update={"views": views})
    store, geo = _geo(job)
    shots, records = [], []

    def shoot(pose, t, seed):
        shots.append(t)
        if fail and fail.get(t, 0) > 0:
            fail[t] -= 1
            raise RuntimeError(f"render failed at {t}")
        return _passes(pose.height, pose.width)

    def should_stop():
        return stop_after is not None and len(records) >= stop_after

    cj.render_clip(job, _env(), _Scorer([_term("a", True)]), store, geo, 32, {"build_s": 3.0, "export_s": 0.5},
                   records.append, should_stop, shoot)
    return job, shots, records


def test_render_clip_emits_the_jobs_frames_in_order_with_the_build_time_once(tmp_path):
    job, shots, records = _render_clip(tmp_path, views=[1, 4, 6])
    assert shots == [0.5, 2.0, 3.0]
    assert [r.frame_id for r in records] == ["calib_clip-random-00003-01", "calib_clip-random-00003-04",
                                             "calib_clip-random-00003-06"]
    assert [(r.timings["build_s"], r.timings["export_s"]) for r in records] == [(3.0, 0.5), (0.0, 0.0), (0.0, 0.0)]
    assert [r.renders for r in records] == [1, 1, 1]
    isp_of = cj.clip_isp(_env(), sample_spec(job), PARTS)
    assert [r.isp for r in records] == [isp_of(v).model_dump(mode="json") for v in (1, 4, 6)]
    assert len({r.isp["exposure_bias_ev"] for r in records}) == 3          # the CCTV exposure drifts


def test_a_frame_that_raises_once_is_rendered_again(tmp_path):
    _, shots, records = _render_clip(tmp_path, views=[0, 1, 2], fail={0.5: 1})
    assert shots == [0.0, 0.5, 0.5, 1.0]
    assert [r.renders for r in records] == [1, 2, 1]


def test_a_frame_that_raises_twice_fails_the_job(tmp_path):
    records = []
    with pytest.raises(RuntimeError, match=r"^render failed at 0.5$"):
        job = _job(tmp_path)
        store, geo = _geo(job)

        def shoot(pose, t, seed):
            if t == 0.5:
                raise RuntimeError(f"render failed at {t}")
            return _passes(pose.height, pose.width)

        cj.render_clip(job, _env(), _Scorer(), store, geo, 32, {}, records.append, lambda: False, shoot)
    assert [r.view_index for r in records] == [0]


def test_injected_frame_fault_is_retried_inside_the_job(tmp_path):
    _, shots, records = _render_clip(tmp_path, views=[0, 1, 2],
                                     faults=FaultPlan(raise_in=["random-00003"], raise_times=1, at_frame=1))
    assert shots == [0.0, 0.5, 1.0] and [r.renders for r in records] == [1, 2, 1]
    with pytest.raises(InjectedFault, match=r"frame 2 \(attempt 1\)"):
        _render_clip(tmp_path / "b", views=[0, 1, 2],
                     faults=FaultPlan(raise_in=["random-00003"], raise_times=2, at_frame=2))
    with pytest.raises(SystemExit):
        _render_clip(tmp_path / "c", faults=FaultPlan(exit_in=["random-00003"], at_frame=1))


def test_stop_is_checked_before_each_frame(tmp_path):
    with pytest.raises(JobStopped, match="^random-00003$"):
        _render_clip(tmp_path, views=[0, 1, 2], stop_after=2)
    assert len(list((tmp_path / "calib_clip" / "frames").iterdir())) == 2
    with pytest.raises(JobStopped):
        _render_clip(tmp_path / "b", stop_after=0)
    assert list((tmp_path / "b" / "calib_clip" / "frames").iterdir()) == []


def test_run_clip_job_builds_once_then_stops_before_rendering(tmp_path):
    job = _job(tmp_path)
    builds = []

    def build(j):
        builds.append(j)
        store, geo = _geo(j)
        return "scene", geo, {"build_s": 1.0, "export_s": 0.0}

    job = job.model_copy(update={"quality": preview_quality(long_side_px=32)})
    with pytest.raises(JobStopped, match="^random-00003$"):
        cj.run_clip_job(job, lambda rec: None, lambda: True, build=build)
    assert builds == [job]
    with pytest.raises(ValueError):                       # the quality is validated before anything is built
        cj.run_clip_job(job.model_copy(update={"quality": {"bogus": 1}}), lambda rec: None, lambda: True, build=build)
    assert builds == [job]


# -- Blender's two steps: posing a built clip scene at t, and the job's render step ---------------
# A real calib_clip scene built in Blender (no render): what Cycles would see at shutter open
# and close is read back from the scene's animation.

def _built_scene(job):
    from blender_envs.core.scene_reset import reset_scene

    scene = reset_scene()
    _env().build_function()(scene, sample_spec(job))
    return scene


def _world_at(scene, name, frame):
    import bpy

    scene.frame_set(frame)
    return np.array(bpy.data.objects[name].matrix_world)


def test_pose_scene_at_moves_every_agent_over_the_shutter(tmp_path):
    job = _job(tmp_path)
    spec = sample_spec(job)
    scene = _built_scene(job)
    timeline = _env().timeline(spec)
    view = _env().sample_view(spec, None, 5, 32)
    t = TIMES[5]
    cj.pose_scene_at(scene, timeline, view.pose, t)
    assert scene.render.use_motion_blur is True                  # also for a fixed camera (no shake)
    assert scene.frame_current == 1
    assert scene.camera is not None and (scene.render.resolution_x, scene.render.resolution_y) == (32, 24)
    for agent in timeline.agents:
        assert np.allclose(_world_at(scene, agent.track_id, 1), agent.pose(t), atol=1e-5), agent.track_id
        assert np.allclose(_world_at(scene, agent.track_id, 2), agent.pose(t + view.pose.shutter_s), atol=1e-5)
    moved = [a.track_id for a in timeline.agents if not np.allclose(a.pose(t), a.pose(t + view.pose.shutter_s))]
    assert moved                                                 # some agent moves during the shutter


def test_run_clip_job_renders_each_frame_posed_at_its_time(tmp_path, monkeypatch):
    from blender_envs.core import render_passes
    from blender_envs.core.settings import RenderSettings

    job = _job(tmp_path, quality=preview_quality(long_side_px=32))
    job = job.model_copy(update={"views": [2, 3]})
    scene = _built_scene(job)
    line = _env().timeline(sample_spec(job)).agent("line")
    renders = []

    def fake_render(sc, quality, seed=None):
        renders.append((sc, quality, seed, np.array(sc.objects["line"].matrix_world)))
        return _passes(sc.render.resolution_y, sc.render.resolution_x)

    def build(j):
        _, geo = _geo(j)
        return scene, geo, {"build_s": 1.0, "export_s": 0.0}

    monkeypatch.setattr(render_passes, "render_frame", fake_render)
    records = []
    cj.run_clip_job(job, records.append, build=build)
    assert [r.frame_id for r in records] == ["calib_clip-random-00003-02", "calib_clip-random-00003-03"]
    assert [r.timings["build_s"] for r in records] == [1.0, 0.0]
    assert [sc for sc, *_ in renders] == [scene, scene]
    assert [q for _, q, *_ in renders] == [RenderSettings.model_validate(job.quality)] * 2
    assert [s for _, _, s, _ in renders] == [_blake(f"scenebench/7/calib_clip/random/3/{v}/cycles") % (2**31 - 1)
                                             for v in (2, 3)]
    for (_, _, _, M), t in zip(renders, (1.0, 1.5)):
        assert np.allclose(M, line.pose(t), atol=1e-5)           # posed at the frame's time when rendered
    assert max(records[0].camera["width"], records[0].camera["height"]) == 32


def test_clip_frame_draws_the_view_from_the_frames_view_seed(tmp_path):
    """calib_clip's views draw nothing (the camera at t); an environment whose views do draw gets the
    generator of the frame's coordinates, pose attempt 0."""
    draws = []
    real = _env().sample_view

    def sample_view(spec, rng, view_index, long_side_px, attempt=0):
        draws.append((int(rng.integers(0, 2**62)), view_index, attempt))
        return real(spec, rng, view_index, long_side_px, attempt)

    env = dataclasses.replace(_env(), sample_view=sample_view)
    job = _job(tmp_path)
    store, geo = _geo(job)
    isp = cj.clip_isp(env, geo.spec, PARTS)(4)
    cj.clip_frame(job, env, _Scorer(), store, geo, PARTS, isp, 4, 32, {}, 1,
                  lambda pose, t, seed: _passes(pose.height, pose.width))
    want = np.random.default_rng(_blake("scenebench/7/calib_clip/random/3/4/view/0")).integers(0, 2**62)
    assert draws == [(int(want), 4, 0)]
