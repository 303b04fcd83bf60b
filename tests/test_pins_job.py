"""Everything render_farm/job.py decides, without Blender: seed parts and scene ids of redrawn
scenes, the spec's seeding, the fault plan, the positive stratum's pose/render retry policy, the
redraw loop, the scene's files and a whole frame's record (the picture developed by the real ISP
from synthetic passes). Only build_scene, photograph and run_scene_job's wiring need Blender:
tests/test_farm.py and the env render tests cover them."""
from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT
from render_farm import job as jobmod
from render_farm.job import InjectedFault, _inject_faults, _seed_parts, sample_spec, scene_id_of
from render_farm.plan import FaultPlan, plan_jobs

JOB = {"root_seed": 7, "run_dir": "/x", "quality": {}, "device": "cpu"}


def _blake(key: str) -> int:
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little") >> 1


def _job(scene=3, stratum="random", **kw):
    n = (scene + 1) * 2
    return plan_jobs("calib", n, 2, stratum, set(), **{**JOB, **kw})[-1]


@pytest.fixture(autouse=True)
def _exit_raises(monkeypatch):
    """In this process os._exit raises SystemExit(("exit", status)): code that would kill the
    worker fails a test instead of ending pytest (the subprocess test sees the real exit)."""
    def fake_exit(status):
        raise SystemExit(("exit", status))

    monkeypatch.setattr(jobmod.os, "_exit", fake_exit)


def test_constants():
    assert jobmod.MAX_SCENE_REDRAWS == 12 and jobmod.POSES_PER_SCENE_DRAW == 150


def test_seed_parts_and_scene_ids_of_redraws():
    j = _job(3, "positive")
    assert _seed_parts(j) == ("scenebench", 7, "calib", "positive", 3)
    assert _seed_parts(j, 2) == ("scenebench", 7, "calib", "positive", 3, "redraw", 2)
    assert scene_id_of(j) == "positive-00003"
    assert scene_id_of(j, 1) == "positive-00003-r1" and scene_id_of(j, 12) == "positive-00003-r12"


def test_spec_is_seeded_from_the_frame_coordinates():
    j = _job(3)
    spec = sample_spec(j)
    assert spec.env == "calib" and spec.scene_id == "random-00003"
    assert spec.seed == _blake("scenebench/7/calib/random/3/scene")
    again = sample_spec(_job(3))
    assert again.model_dump_json() == spec.model_dump_json()
    redrawn = sample_spec(j, 2)
    assert redrawn.scene_id == "random-00003-r2"
    assert redrawn.seed == _blake("scenebench/7/calib/random/3/redraw/2/scene")
    assert redrawn.boxes[0].color != spec.boxes[0].color            # another scene
    other = sample_spec(_job(4))
    assert other.seed == _blake("scenebench/7/calib/random/4/scene") and other.scene_id == "random-00004"
    # the scene's draws come from rng_for(parts, "scene"), i.e. the generator seeded with that same seed
    from blender_envs.registry import get_environment
    import numpy as np
    env = get_environment("calib")
    manual = env.sample_scene(np.random.default_rng(_blake("scenebench/7/calib/random/3/scene")), "random-00003",
                              _blake("scenebench/7/calib/random/3/scene"))
    assert manual.model_dump_json() == spec.model_dump_json()


def test_injected_raise_on_the_first_attempts_only():
    j = _job(0, faults=FaultPlan(raise_in=["random-00000"], raise_times=2))
    for attempt in (0, 1):
        with pytest.raises(InjectedFault, match=rf"injected failure in random-00000 \(attempt {attempt}\)"):
            _inject_faults(j.model_copy(update={"attempt": attempt}))
    _inject_faults(j.model_copy(update={"attempt": 2}))
    _inject_faults(_job(1, faults=FaultPlan(raise_in=["random-00000"])))  # another scene
    _inject_faults(_job(0))


def test_injected_exit_kills_the_process_with_status_17():
    code = ("import sys; sys.path.insert(0, {root!r}); from render_farm.plan import FaultPlan, plan_jobs; "
            "from render_farm.job import _inject_faults; "
            "j = plan_jobs('calib', 1, 1, 'random', set(), root_seed=0, run_dir='/x', quality={{}}, device='cpu', "
            "faults=FaultPlan(exit_in=['random-00000'], exit_times=2, raise_in=['random-00000'], raise_times=3))[0]; "
            "_inject_faults(j.model_copy(update={{'attempt': {attempt}}})); print('survived')")
    for attempt, rc in ((0, 17), (1, 17), (2, 1)):   # attempt 2: no exit, but the raise (3 times) still fires
        p = subprocess.run([sys.executable, "-c", code.format(root=str(ROOT), attempt=attempt)], capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == rc, p.stderr
        assert "survived" not in p.stdout
        if rc == 1:
            assert "InjectedFault" in p.stderr


# ---------------------------------------------------------------------------------------------
# The job's decisions, pulled out of its Blender glue: seeds, the positive stratum's pose and
# render retry policy, the redraw loop and the record assembly. Real views (the calib env's
# sampler), real ISP and real files; only Blender is replaced by scripted draw/shoot/build steps.

import types

import numpy as np

from formats.records import FrameRecord, TermResult, Verdict
from render_farm.isp import process_frame, sample_isp_params
from render_farm.job import (NO_BUILD_TIMINGS, JobStopped, NoAcceptablePose, Photo, Pose, Shot, _draw_view,
                             culls_pose, develop, frame_record, frame_timings, frame_verdict, judge, next_redraw,
                             photo_seeds, pose_budget, render_views, save_frame_files, scene_side_terms,
                             search_frame, view_seed)
from render_farm.store import RunStore
from scorers.sanity import check_frame


def _term(name, passed, side="scene", gray=False):
    return TermResult(name=name, side=side, value=1.0, threshold="<= 1", passed=passed, gray=gray)


OK, BAD, GRAY = _term("a", True), _term("b", False), _term("g", False, gray=True)


class _Scorer:
    """A scorer that records what it is asked and answers scripted terms (the real ones need a mesh)."""

    def __init__(self, scene_terms=(), frame_terms=()):
        self.calls, self.scene_terms, self.frame_terms = [], list(scene_terms), list(frame_terms)

    def score_scene(self, geo, view):
        self.calls.append(("scene", view.view_index, view.attempt))
        self.long_sides = getattr(self, "long_sides", []) + [max(view.pose.width, view.pose.height)]
        return list(self.scene_terms)

    def score_frame(self, geo, view, frame):
        self.calls.append(("frame", view.view_index, frame.image.shape))
        return list(self.frame_terms)


def _calib():
    from blender_envs.registry import get_environment
    return get_environment("calib")


def test_view_seed_is_the_frame_coordinates_view_and_attempt():
    j = _job(3)
    assert view_seed(j, 1, 2) == _blake("scenebench/7/calib/random/3/1/view/2")
    assert view_seed(j, 0, 0) == _blake("scenebench/7/calib/random/3/0/view/0")
    assert view_seed(j, 1, 0, redraw=4) == _blake("scenebench/7/calib/random/3/redraw/4/1/view/0")


def test_draw_view_samples_from_the_view_seed_and_scores_the_scene_side():
    j, env = _job(3), _calib()
    geo = types.SimpleNamespace(spec=sample_spec(j))
    scorer = _Scorer([OK, BAD])
    view, terms = _draw_view(j, env, scorer, geo, 1, 2, 64, redraw=1)
    want = env.sample_view(geo.spec, np.random.default_rng(_blake("scenebench/7/calib/random/3/redraw/1/1/view/2")),
                           1, 64, attempt=2)
    assert view == want and view.view_index == 1 and view.attempt == 2
    assert max(view.pose.width, view.pose.height) == 64
    assert terms == [OK, BAD] and scorer.calls == [("scene", 1, 2)]


def test_scene_side_terms_are_the_first_pose_of_each_view():
    j, env = _job(3, quality={"long_side_px": 48}), _calib()
    geo = types.SimpleNamespace(spec=sample_spec(j))
    scorer = _Scorer([GRAY])
    assert scene_side_terms(j, env, scorer, geo, 3) == [[GRAY], [GRAY], [GRAY]]
    assert scorer.calls == [("scene", 0, 0), ("scene", 1, 0), ("scene", 2, 0)]
    assert scorer.long_sides == [48, 48, 48]                       # the job's quality sets the image size
    assert scene_side_terms(j, env, scorer, geo, 0) == []


def test_photo_seeds_per_attempt():
    parts = ("scenebench", 7, "calib", "random", 3, 1)
    s = photo_seeds(parts, 2)
    assert s == {"cycles": _blake("scenebench/7/calib/random/3/1/cycles/2") % (2**31 - 1),
                 "isp": _blake("scenebench/7/calib/random/3/1/isp/2"),
                 "isp_noise": _blake("scenebench/7/calib/random/3/1/isp_noise/2")}
    assert 0 <= s["cycles"] < 2**31 - 1


def _passes(h=6, w=8):
    ramp = np.linspace(0.05, 0.6, w * h * 3, dtype=np.float32).reshape(h, w, 3)
    return types.SimpleNamespace(linear_rgb=ramp, depth=np.full((h, w), 2.5, np.float32),
                                 object_index=np.arange(h * w, dtype=np.int32).reshape(h, w) % 3,
                                 render_s=1.25, pass_render_s=0.5)


def test_develop_uses_the_isp_seed_for_parameters_and_the_noise_seed_for_noise():
    passes = _passes()
    photo = develop(passes, {"cycles": 1, "isp": 11, "isp_noise": 12})
    params = sample_isp_params(np.random.default_rng(11))
    assert photo.isp == params and photo.passes is passes
    assert photo.jpeg == process_frame(passes.linear_rgb, params, np.random.default_rng(12))[1]
    assert photo.jpeg[:2] == b"\xff\xd8" and photo.image.shape == (6, 8, 3) and photo.image.dtype == np.uint8
    assert photo.isp_s >= 0
    ticks = iter([10.0, 10.75])
    assert develop(passes, {"cycles": 1, "isp": 11, "isp_noise": 12}, clock=lambda: next(ticks)).isp_s == 0.75
    other = develop(passes, {"cycles": 1, "isp": 11, "isp_noise": 13})
    assert other.isp == params and other.jpeg != photo.jpeg          # only the noise differs


def test_pose_budget_is_capped_by_poses_per_scene_draw():
    assert [pose_budget(n) for n in (1, 10, 149, 150, 151, 1000)] == [1, 10, 149, 150, 150, 150]


def test_only_the_positive_stratum_culls_inside_or_unaccepted_poses():
    view = None
    assert culls_pose("positive", Pose(view, [OK], False)) is False
    assert culls_pose("positive", Pose(view, [], False)) is False             # no scene-side term: accept
    assert culls_pose("positive", Pose(view, [OK], True)) is True             # camera inside a solid
    assert culls_pose("positive", Pose(view, [OK, BAD], False)) is True
    assert culls_pose("positive", Pose(view, [GRAY], False)) is True          # unscored is not accepted
    for stratum in ("random", "negative"):
        assert culls_pose(stratum, Pose(view, [BAD], True)) is False


def test_frame_verdict_excludes_frames_that_fail_the_sanity_check():
    assert frame_verdict([OK], True) == Verdict.ACCEPT
    assert frame_verdict([OK, BAD], True) == Verdict.REJECT
    assert frame_verdict([GRAY], True) == Verdict.UNSCORED
    assert frame_verdict([OK], False) == Verdict.EXCLUDED and frame_verdict([BAD], False) == Verdict.EXCLUDED


class _Script:
    """Scripted poses (scene-side ok?, inside?) and render verdicts, with the calls recorded."""

    def __init__(self, poses, verdicts=()):
        self.poses, self.verdicts, self.draws, self.shots = list(poses), list(verdicts), [], []

    def draw(self, attempt):
        self.draws.append(attempt)
        ok, inside = self.poses[min(attempt, len(self.poses) - 1)]
        return Pose(f"view-{attempt}", [OK if ok else BAD], inside)

    def shoot(self, pose, attempt):
        verdict = self.verdicts[min(len(self.shots), len(self.verdicts) - 1)]
        self.shots.append((pose.view, attempt))
        return Shot(None, None, pose.scene_terms, None, verdict)


def _search(stratum, script, max_poses=10, max_renders=3):
    return search_frame(stratum, max_poses, max_renders, "f-1", script.draw, script.shoot)


def test_random_stratum_keeps_its_first_pose_whatever_it_scores():
    s = _Script([(False, True)], [Verdict.REJECT])
    pose, shot, attempts, renders = _search("random", s)
    assert pose.view == "view-0" and shot.verdict == Verdict.REJECT and (attempts, renders) == (1, 1)
    assert s.draws == [0] and s.shots == [("view-0", 1)]      # the render is seeded with attempts so far


def test_positive_stratum_culls_until_a_pose_passes_then_renders_it():
    s = _Script([(False, False), (True, True), (True, False)], [Verdict.ACCEPT])
    pose, shot, attempts, renders = _search("positive", s)
    assert pose.view == "view-2" and (attempts, renders) == (3, 1)
    assert s.draws == [0, 1, 2] and s.shots == [("view-2", 3)]


def test_positive_pose_budget_just_inside_and_spent():
    # budget 4: the 4th pose may still be rendered ...
    s = _Script([(False, False)] * 3 + [(True, False)], [Verdict.ACCEPT])
    assert _search("positive", s, max_poses=4)[2:] == (4, 1)
    # ... but four culled poses end the search
    s = _Script([(False, False)], [Verdict.ACCEPT])
    with pytest.raises(NoAcceptablePose, match="^f-1$"):
        _search("positive", s, max_poses=4)
    assert s.draws == [0, 1, 2, 3] and s.shots == []
    s = _Script([(True, True)], [Verdict.ACCEPT])             # inside every time
    with pytest.raises(NoAcceptablePose):
        _search("positive", s, max_poses=1000)
    assert len(s.draws) == 150


def test_positive_render_budget_just_inside_and_spent():
    s = _Script([(True, False)], [Verdict.REJECT, Verdict.UNSCORED, Verdict.ACCEPT])
    pose, shot, attempts, renders = _search("positive", s, max_renders=3)
    assert shot.verdict == Verdict.ACCEPT and (attempts, renders) == (3, 3)
    assert s.shots == [("view-0", 1), ("view-1", 2), ("view-2", 3)]
    s = _Script([(True, False)], [Verdict.REJECT, Verdict.EXCLUDED, Verdict.UNSCORED, Verdict.ACCEPT])
    with pytest.raises(NoAcceptablePose, match="^f-1$"):
        _search("positive", s, max_renders=3)
    assert len(s.shots) == 3 and s.draws == [0, 1, 2]
    s = _Script([(True, False)], [Verdict.REJECT])
    with pytest.raises(NoAcceptablePose):
        _search("positive", s, max_renders=1)
    assert len(s.shots) == 1


def test_poses_drawn_after_a_rejected_render_count_against_the_pose_budget():
    s = _Script([(True, False), (False, False), (False, False)], [Verdict.REJECT])
    with pytest.raises(NoAcceptablePose):
        _search("positive", s, max_poses=3, max_renders=5)
    assert s.draws == [0, 1, 2] and len(s.shots) == 1


def test_next_redraw_gives_up_after_twelve_scene_draws():
    assert next_redraw("random-00002", 0) == 1 and next_redraw("random-00002", 10) == 11
    with pytest.raises(RuntimeError) as exc:
        next_redraw("random-00002", 11)
    assert str(exc.value) == "random-00002: no acceptable frame in 12 scene draws x 150 poses"


class _Farm:
    """Scripted builds and renders: `fail` holds the (redraw, view) pairs whose render finds no pose."""

    def __init__(self, fail=(), stop_after=None):
        self.fail, self.stop_after, self.log, self.renders = set(fail), stop_after, [], 0

    def build(self, redraw):
        self.log.append(("build", redraw))
        return f"scene-{redraw}", f"geo-{redraw}", {"build_s": 3.0 + redraw, "export_s": 1.0}

    def render(self, scene, geo, view, timings, redraw):
        self.log.append(("render", scene, geo, view, timings, redraw))
        self.renders += 1
        if (redraw, view) in self.fail:
            raise NoAcceptablePose(f"view {view}")

    def should_stop(self):
        return self.stop_after is not None and self.renders >= self.stop_after


def test_render_views_charges_the_build_to_the_first_frame_only():
    f = _Farm()
    render_views("s", [0, 1], f.build, f.render, f.should_stop)
    assert f.log == [("build", 0), ("render", "scene-0", "geo-0", 0, {"build_s": 3.0, "export_s": 1.0}, 0),
                     ("render", "scene-0", "geo-0", 1, {"build_s": 0.0, "export_s": 0.0}, 0)]
    assert NO_BUILD_TIMINGS == {"build_s": 0.0, "export_s": 0.0}
    f = _Farm()
    render_views("s", [], f.build, f.render, f.should_stop)
    assert f.log == []


def test_each_view_starts_on_the_first_draw_whatever_the_other_views_did():
    f = _Farm(fail={(0, 1), (1, 2)})
    render_views("s", [0, 1, 2], f.build, f.render, f.should_stop)
    # view 1 finds no pose on draw 0 and takes draw 1; view 2 starts again on draw 0 (where it has a pose)
    assert [e[3] if e[0] == "render" else e for e in f.log] == [
        ("build", 0), 0, 1, ("build", 1), 1, ("build", 0), 2]
    assert f.log[4] == ("render", "scene-1", "geo-1", 1, {"build_s": 4.0, "export_s": 1.0}, 1)
    assert f.log[-1] == ("render", "scene-0", "geo-0", 2, {"build_s": 3.0, "export_s": 1.0}, 0)


def test_a_draw_is_built_again_only_when_a_view_needs_another_draw():
    f = _Farm(fail={(0, 0)})
    render_views("s", [0, 1, 2], f.build, f.render, f.should_stop)
    assert [(e[0], e[-1]) if e[0] == "build" else (e[3], e[-1]) for e in f.log] == [
        ("build", 0), (0, 0), ("build", 1), (0, 1), ("build", 0), (1, 0), (2, 0)]
    # the failed render on draw 0 carried draw 0's timings; draw 1's go to view 0's frame
    assert [e[4]["build_s"] for e in f.log if e[0] == "render"] == [3.0, 4.0, 3.0, 0.0]


def _final_draws(fail, views):
    f = _Farm(fail=fail)
    render_views("s", views, f.build, f.render, f.should_stop)
    return {e[3]: e[5] for e in f.log if e[0] == "render" and (e[5], e[3]) not in fail}


@settings(max_examples=60, deadline=None)
@given(st.sets(st.tuples(st.integers(0, 3), st.integers(0, 4)), max_size=10), st.permutations(range(5)))
def test_a_views_draw_is_the_same_alone_and_in_any_job(fail, order):
    together = _final_draws(fail, list(order))
    assert sorted(together) == list(range(5))
    for v in order:
        assert _final_draws(fail, [v]) == {v: together[v]}
        assert together[v] == min(r for r in range(12) if (r, v) not in fail)


def test_render_views_fails_after_max_scene_redraws():
    f = _Farm(fail={(r, 0) for r in range(20)})
    with pytest.raises(RuntimeError, match=r"^s: no acceptable frame in 12 scene draws x 150 poses$") as exc:
        render_views("s", [0], f.build, f.render, f.should_stop)
    assert [e for e in f.log if e[0] == "build"] == [("build", r) for r in range(12)]
    assert exc.value.__suppress_context__ is True


def test_render_views_stops_between_frames_and_before_builds():
    f = _Farm(stop_after=1)
    with pytest.raises(JobStopped, match="^s$"):
        render_views("s", [0, 1], f.build, f.render, f.should_stop)
    assert [e[0] for e in f.log] == ["build", "render"]
    f = _Farm(stop_after=0)
    with pytest.raises(JobStopped, match="^s$"):
        render_views("s", [0], f.build, f.render, f.should_stop)
    assert f.log == []


def _photo():
    return develop(_passes(), {"cycles": 1, "isp": 21, "isp_noise": 22})


def test_judge_scores_scene_then_frame_terms_and_the_sanity_check():
    photo = _photo()
    frame_term = _term("f", True, side="frame")
    scorer = _Scorer(frame_terms=[frame_term])
    view = _calib().sample_view(sample_spec(_job(3)), np.random.default_rng(0), 0, 8)
    shot = judge("geo", scorer, Pose(view, [OK], False), photo)
    assert shot.photo is photo and shot.terms == [OK, frame_term]
    assert shot.sanity == check_frame(photo.image, False) and shot.sanity.ok
    assert shot.verdict == Verdict.ACCEPT
    assert shot.frame.image is photo.image and shot.frame.depth is photo.passes.depth
    assert shot.frame.object_index is photo.passes.object_index
    assert scorer.calls == [("frame", 0, (6, 8, 3))]
    inside = judge("geo", scorer, Pose(view, [OK], True), photo)
    assert inside.verdict == Verdict.EXCLUDED and not inside.sanity.ok and inside.terms == [OK, frame_term]
    bad = judge("geo", _Scorer(frame_terms=[_term("f", False, side="frame")]), Pose(view, [OK], False), photo)
    assert bad.verdict == Verdict.REJECT


def test_frame_timings():
    t = frame_timings({"build_s": 2.0, "export_s": 0.5}, _passes(), 0.25, 0.125)
    assert list(t.items()) == [("build_s", 2.0), ("export_s", 0.5), ("render_s", 1.25), ("pass_render_s", 0.5),
                               ("isp_s", 0.25), ("score_s", 0.125)]


def test_save_frame_files_writes_the_jpeg_and_both_passes(tmp_path):
    store = RunStore(tmp_path / "calib")
    store.create()
    photo = _photo()
    assert save_frame_files(store, "calib-random-00003-01", photo) == (
        "frames/calib-random-00003-01.jpg", "passes/calib-random-00003-01.npz")
    assert (store.dir / "frames" / "calib-random-00003-01.jpg").read_bytes() == photo.jpeg
    with np.load(store.dir / "passes" / "calib-random-00003-01.npz") as z:
        assert sorted(z.files) == ["depth", "object_index"]
        assert np.array_equal(z["depth"], photo.passes.depth)
        assert np.array_equal(z["object_index"], photo.passes.object_index)


def test_frame_record_from_its_parts():
    j = _job(3, "positive")
    view = _calib().sample_view(sample_spec(j), np.random.default_rng(0), 1, 8)
    photo = _photo()
    sanity = check_frame(photo.image, False)
    parts = ("scenebench", 7, "calib", "positive", 3, "redraw", 2, 1)
    reject = _term("r", False, side="frame")
    timings = {"build_s": 0.0, "score_s": 0.5}
    for terms, verdict, failing in (([OK], Verdict.ACCEPT, None), ([OK, GRAY, reject], Verdict.REJECT, "r"),
                                    ([OK, GRAY], Verdict.UNSCORED, "g"), ([OK], Verdict.EXCLUDED, None)):
        rec = frame_record(j, "calib-positive-00003-01", "positive-00003-r2", 1, parts, Pose(view, [OK], False),
                           Shot(photo, None, terms, sanity, verdict), {"k": 1}, "frames/x.jpg", "passes/x.npz",
                           7, 2, timings)
        assert isinstance(rec, FrameRecord)
        assert type(rec.camera["orientation"]) is str and type(rec.camera["focus_mode"]) is str  # JSON values
        assert rec.model_dump() == {
            "schema_version": 1, "frame_id": "calib-positive-00003-01", "env": "calib",
            "scene_id": "positive-00003-r2", "view_index": 1,
            "seed": _blake("scenebench/7/calib/positive/3/redraw/2/1/frame"), "stratum": "positive",
            "target": view.target, "camera": view.pose.model_dump(mode="json"),
            "terms": [t.model_dump() for t in terms], "verdict": verdict.value, "failing_term": failing,
            "sanity": {"ok": True, "reasons": []}, "ground_truth": {"k": 1}, "image": "frames/x.jpg",
            "passes": "passes/x.npz", "isp": photo.isp.model_dump(mode="json"), "pose_attempts": 7, "renders": 2,
            "timings": timings}


# -- the scene's files and a whole frame, with the picture developed from synthetic passes -------

from geometry.raycast import SceneMesh
from geometry.scene import BuildInfo, SceneObject, SceneState
from render_farm.job import build_timings, save_scene, scene_cycles_seed, take_frame


def _cube(center, half=50.0):
    """A closed cube (12 triangles, outward winding) of the given half size around `center`."""
    c = np.asarray(center, float)
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * half + c
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    tris = []
    for a, b, q, d in quads:
        for t in ((a, b, q), (a, q, d)):
            n = np.cross(corners[t[1]] - corners[t[0]], corners[t[2]] - corners[t[0]])
            outward = np.dot(n, corners[list(t)].mean(0) - c) > 0
            tris.append(t if outward else (t[0], t[2], t[1]))
    return {"vertices": corners.astype(np.float32), "triangles": np.array(tris, np.int32),
            "tri_object_id": np.ones(12, np.int32), "object_ids": np.array([1], np.int32),
            "object_names": np.array(["box"])}


def _far_floor():
    """A single triangle far below every calib camera: the camera is never inside anything."""
    return {"vertices": np.array([[-1e3, -1e3, -50], [1e3, -1e3, -50], [0, 1e3, -50]], np.float32),
            "triangles": np.array([[0, 1, 2]], np.int32), "tri_object_id": np.ones(1, np.int32),
            "object_ids": np.array([1], np.int32), "object_names": np.array(["floor"])}


INFO = BuildInfo(objects=[SceneObject(id=1, name="floor", category="floor", pass_index=1)],
                 key_points={"p": [0.0, 1.0, 2.0]})


def test_scene_cycles_seed_and_build_timings():
    assert scene_cycles_seed(_job(3)) == _blake("scenebench/7/calib/random/3/cycles") % (2**31 - 1)
    assert scene_cycles_seed(_job(3), 2) == _blake("scenebench/7/calib/random/3/redraw/2/cycles") % (2**31 - 1)
    assert build_timings(1.5, 0.25) == {"build_s": 1.5, "export_s": 0.25}


def test_save_scene_writes_the_mesh_and_state_the_scorers_read(tmp_path):
    j = _job(3)
    store = RunStore(tmp_path / "calib")
    store.create()
    spec = sample_spec(j, 1)
    geo = save_scene(j, store, spec, INFO, _far_floor(), redraw=1)
    state_path = store.dir / "scenes" / "random-00003-r1.json"
    text = state_path.read_text()
    assert text.endswith("}\n") and text.startswith('{\n  "schema_version"')     # indent=2 and a newline
    state = SceneState.model_validate_json(text)
    assert state == geo.state
    assert state.env == "calib" and state.scene_id == "random-00003-r1" and state.meshes == "scenes/random-00003-r1.npz"
    assert state.spec == spec.model_dump(mode="json") and state.objects == INFO.objects
    assert state.key_points == {"p": [0.0, 1.0, 2.0]}
    with np.load(store.dir / "scenes" / "random-00003-r1.npz") as z:
        assert sorted(z.files) == sorted(_far_floor()) and np.array_equal(z["triangles"], [[0, 1, 2]])
    assert geo.spec is spec and isinstance(geo.mesh, SceneMesh) and geo.mesh.triangles.shape == (1, 3)
    t, _, tri, _ = geo.raycaster.cast(np.array([[0.0, 0.0, 0.0]]), np.array([[0.0, 0.0, -1.0]]))
    assert tri[0] == 0 and abs(t[0] - 50.0) < 1e-4                                 # a raycaster over that mesh


class _FrameScorer(_Scorer):
    """Scene-side verdicts scripted per pose attempt, one frame-side term, a ground truth."""

    def __init__(self, scene_ok_from=0, frame_ok=True):
        super().__init__()
        self.scene_ok_from, self.frame_ok = scene_ok_from, frame_ok

    def score_scene(self, geo, view):
        self.calls.append(("scene", view.view_index, view.attempt))
        return [_term("s", view.attempt >= self.scene_ok_from)]

    def score_frame(self, geo, view, frame):
        self.calls.append(("frame", view.view_index, view.attempt))
        return [_term("f", self.frame_ok, side="frame")]

    def ground_truth(self, geo, view, frame=None):
        return {"target": view.target, "pixels": int(frame.image.shape[0] * frame.image.shape[1])}


def _take(tmp_path, job, scorer, mesh, view_index=1, redraw=0):
    store = RunStore(tmp_path / "calib")
    store.create()
    geo = save_scene(job, store, sample_spec(job, redraw), INFO, mesh, redraw)
    shots = []

    def shoot(camera, parts, attempt):
        shots.append((parts, attempt))
        return develop(_passes(camera.height, camera.width), photo_seeds(parts, attempt))

    ticks = iter(range(0, 10_000, 2))                # every timed step takes 2 s
    rec = take_frame(job, _calib(), scorer, store, geo, view_index, 40, {"build_s": 2.0, "export_s": 1.0}, shoot,
                     redraw, clock=lambda: float(next(ticks)))
    return store, rec, shots


def test_take_frame_random_stratum(tmp_path):
    j = _job(3)
    store, rec, shots = _take(tmp_path, j, _FrameScorer(scene_ok_from=5), _far_floor())
    parts = ("scenebench", 7, "calib", "random", 3, 1)
    view = _calib().sample_view(sample_spec(j), np.random.default_rng(_blake("scenebench/7/calib/random/3/1/view/0")),
                                1, 40, attempt=0)
    assert shots == [(parts, 1)]
    assert rec.frame_id == "calib-random-00003-01" and rec.scene_id == "random-00003" and rec.view_index == 1
    assert rec.seed == _blake("scenebench/7/calib/random/3/1/frame") and rec.stratum == "random"
    assert rec.camera == view.pose.model_dump(mode="json") and rec.target == view.target
    assert [t.name for t in rec.terms] == ["s", "f"] and rec.verdict == "reject" and rec.failing_term == "s"
    assert rec.sanity == {"ok": True, "reasons": []}
    assert rec.ground_truth == {"target": view.target, "pixels": view.pose.width * view.pose.height}
    assert (rec.pose_attempts, rec.renders) == (1, 1)
    assert rec.image == "frames/calib-random-00003-01.jpg" and rec.passes == "passes/calib-random-00003-01.npz"
    photo = develop(_passes(view.pose.height, view.pose.width), photo_seeds(parts, 1))
    assert (store.dir / rec.image).read_bytes() == photo.jpeg and rec.isp == photo.isp.model_dump(mode="json")
    assert list(rec.timings)[:4] == ["build_s", "export_s", "render_s", "pass_render_s"]
    assert rec.timings["build_s"] == 2.0 and rec.timings["render_s"] == 1.25
    assert rec.timings["score_s"] == 4.0             # one pose drawn and one picture scored, 2 s each


def test_take_frame_positive_stratum_culls_then_keeps_an_accepted_frame(tmp_path):
    j = _job(3, "positive")
    store, rec, shots = _take(tmp_path, j, _FrameScorer(scene_ok_from=2), _far_floor(), redraw=1)
    parts = ("scenebench", 7, "calib", "positive", 3, "redraw", 1, 1)
    assert shots == [(parts, 3)]                     # poses 0 and 1 culled on the scene side
    assert rec.scene_id == "positive-00003-r1" and rec.frame_id == "calib-positive-00003-01"
    assert rec.seed == _blake("scenebench/7/calib/positive/3/redraw/1/1/frame")
    assert rec.verdict == "accept" and rec.failing_term is None and (rec.pose_attempts, rec.renders) == (3, 1)
    assert rec.timings["score_s"] == 8.0             # three poses drawn, one picture scored
    view = _calib().sample_view(sample_spec(j, 1), np.random.default_rng(
        _blake("scenebench/7/calib/positive/3/redraw/1/1/view/2")), 1, 40, attempt=2)
    assert rec.camera == view.pose.model_dump(mode="json")


def test_take_frame_camera_inside_a_solid(tmp_path):
    j = _job(3)
    view = _calib().sample_view(sample_spec(j), np.random.default_rng(_blake("scenebench/7/calib/random/3/1/view/0")),
                                1, 40, attempt=0)
    store, rec, _ = _take(tmp_path, j, _FrameScorer(), _cube(view.pose.center))
    assert rec.verdict == "excluded" and rec.sanity["ok"] is False and "camera" in " ".join(rec.sanity["reasons"])
    assert rec.failing_term is None                  # every term passed; only the sanity check failed
    # the positive stratum never renders a pose whose camera sits inside a solid
    with pytest.raises(NoAcceptablePose, match="^calib-positive-00003-01$"):
        _take(tmp_path / "p", _job(3, "positive", max_pose_attempts=3), _FrameScorer(), _cube([0, 0, 0], 1e3))


def test_take_frame_positive_gives_up_after_max_renders(tmp_path):
    j = _job(3, "positive", max_renders_per_frame=2)
    store = RunStore(tmp_path / "calib")
    with pytest.raises(NoAcceptablePose):
        _take(tmp_path, j, _FrameScorer(frame_ok=False), _far_floor())
    assert not list((tmp_path / "calib" / "frames").iterdir())      # nothing written for a frame not taken


def _fake_build(job, tmp_path, mesh):
    """A scene draw without Blender: the spec sampled as the job does, saved with a hand-made mesh."""
    store = RunStore(job.run_dir)
    store.create()
    builds = []

    def build(redraw):
        builds.append(redraw)
        return f"scene-{redraw}", save_scene(job, store, sample_spec(job, redraw), INFO, mesh, redraw), \
            {"build_s": 5.0, "export_s": 0.5}
    return build, builds


def test_run_views_emits_one_record_per_view_with_pictures_from_the_drawn_scene(tmp_path):
    from render_farm.job import run_views
    j = _job(3, run_dir=str(tmp_path / "calib"))
    build, builds = _fake_build(j, tmp_path, _far_floor())
    shots, records = [], []

    def shoot(scene, camera, parts, attempt):
        shots.append((scene, parts[-1], attempt))
        return develop(_passes(camera.height, camera.width), photo_seeds(parts, attempt))

    run_views(j, _calib(), _FrameScorer(), 40, records.append, lambda: False, build, shoot)
    assert builds == [0] and shots == [("scene-0", 0, 1), ("scene-0", 1, 1)]
    assert [r.frame_id for r in records] == ["calib-random-00003-00", "calib-random-00003-01"]
    assert [r.timings["build_s"] for r in records] == [5.0, 0.0]
    assert all((tmp_path / "calib" / r.image).is_file() for r in records)
    assert max(records[0].camera["width"], records[0].camera["height"]) == 40


def test_run_views_redraws_a_positive_scene_without_an_acceptable_pose(tmp_path):
    from render_farm.job import run_views
    j = _job(3, "positive", run_dir=str(tmp_path / "calib"), max_pose_attempts=2)
    build, builds = _fake_build(j, tmp_path, _far_floor())
    records = []

    class Scorer(_FrameScorer):
        def score_scene(self, geo, view):       # the first scene draw never accepts a pose
            return [_term("s", geo.state.scene_id.endswith("-r1"))]

    run_views(j, _calib(), Scorer(), 40, records.append, lambda: False, build,
              lambda scene, camera, parts, attempt: develop(_passes(camera.height, camera.width),
                                                            photo_seeds(parts, attempt)))
    assert builds == [0, 1, 0, 1]   # each view starts on the first draw, then takes the redrawn one
    assert [(r.frame_id, r.scene_id, r.pose_attempts) for r in records] == [
        ("calib-positive-00003-00", "positive-00003-r1", 1), ("calib-positive-00003-01", "positive-00003-r1", 1)]
    assert records[0].seed == _blake("scenebench/7/calib/positive/3/redraw/1/0/frame")


# -- the job's entry points with Blender's two steps (build, camera) replaced ---------------------

from conftest import preview_quality
from render_farm.job import INJECTED_EXIT_STATUS, fault_due, run_scene_job, scene_side_acceptance, take_picture

CALIB_TARGETS = ("box_a", "box_b", "box_c", "pole", "card")
CALIB_INFO = BuildInfo(objects=[SceneObject(id=i, name=n, category="target", pass_index=i)
                                for i, n in enumerate(CALIB_TARGETS, start=1)])
CALIB_TERMS = ["target_in_frame", "target_unoccluded", "target_size", "target_distance", "sharp_at_target"]


def test_fault_due():
    plan = FaultPlan(exit_in=["random-00000"], exit_times=2, raise_in=["random-00000", "random-00001"], raise_times=3)
    j0, j1 = _job(0, faults=plan), _job(1, faults=plan)
    assert [fault_due(j0.model_copy(update={"attempt": a})) for a in range(5)] == ["exit", "exit", "raise", None,
                                                                                    None]
    assert [fault_due(j1.model_copy(update={"attempt": a})) for a in range(4)] == ["raise"] * 3 + [None]
    assert fault_due(_job(2, faults=plan)) is None and fault_due(_job(0)) is None
    assert INJECTED_EXIT_STATUS == 17


def test_take_picture_renders_with_the_attempts_cycles_seed():
    parts = ("scenebench", 7, "calib", "random", 3, 1)
    seeds = []

    def render(seed):
        seeds.append(seed)
        return _passes()

    photo = take_picture(render, parts, 2)
    assert seeds == [_blake("scenebench/7/calib/random/3/1/cycles/2") % (2**31 - 1)]
    assert photo.isp == sample_isp_params(np.random.default_rng(_blake("scenebench/7/calib/random/3/1/isp/2")))
    assert photo.jpeg == develop(_passes(), photo_seeds(parts, 2)).jpeg
    ticks = iter([1.0, 1.5])
    assert take_picture(render, parts, 2, clock=lambda: next(ticks)).isp_s == 0.5


def _calib_build(store_dir):
    builds = []

    def build(job, redraw=0):
        builds.append(redraw)
        store = RunStore(store_dir)
        store.create()
        return f"scene-{redraw}", save_scene(job, store, sample_spec(job, redraw), CALIB_INFO, _far_floor(), redraw), \
            {"build_s": 1.0, "export_s": 0.0}
    return build, builds


def test_run_scene_job_with_the_real_calib_scorer(tmp_path):
    from blender_envs.core.settings import RenderSettings
    j = _job(3, run_dir=str(tmp_path / "calib"), quality=preview_quality(long_side_px=40))
    build, builds = _calib_build(tmp_path / "calib")
    pictures, records = [], []

    def camera(scene, pose, quality, parts, attempt):
        assert isinstance(quality, RenderSettings) and quality.long_side_px == 40
        pictures.append((scene, parts, attempt))
        return develop(_passes(pose.height, pose.width), photo_seeds(parts, attempt))

    run_scene_job(j, records.append, build=build, camera=camera)
    assert builds == [0]
    assert pictures == [("scene-0", ("scenebench", 7, "calib", "random", 3, v), 1) for v in (0, 1)]
    assert [r.frame_id for r in records] == ["calib-random-00003-00", "calib-random-00003-01"]
    for r in records:
        assert [t.name for t in r.terms] == CALIB_TERMS + ["target_pixels"]
        assert r.verdict == "reject" and r.ground_truth["target_id"] == CALIB_TARGETS.index(r.target) + 1
        assert max(r.camera["width"], r.camera["height"]) == 40
        assert (tmp_path / "calib" / r.image).read_bytes()[:2] == b"\xff\xd8"


def test_run_scene_job_faults_and_stop_come_before_any_build(tmp_path):
    build, builds = _calib_build(tmp_path / "calib")
    j = _job(0, run_dir=str(tmp_path / "calib"), quality=preview_quality(long_side_px=40),
             faults=FaultPlan(raise_in=["random-00000"]))
    with pytest.raises(InjectedFault):
        run_scene_job(j, [].append, build=build, camera=None)
    with pytest.raises(JobStopped, match="^random-00001$"):
        run_scene_job(_job(1, run_dir=str(tmp_path / "calib"), quality=preview_quality(long_side_px=40)), [].append,
                      should_stop=lambda: True, build=build, camera=None)
    assert builds == []


def test_scene_side_acceptance_scores_the_first_pose_of_each_view(tmp_path):
    j = _job(3, run_dir=str(tmp_path / "calib"), quality=preview_quality(long_side_px=40))
    build, builds = _calib_build(tmp_path / "calib")
    out = scene_side_acceptance(j, 3, build=build)
    assert builds == [0] and len(out) == 3
    assert all([t.name for t in terms] == CALIB_TERMS and all(t.side == "scene" for t in terms) for terms in out)
    assert out != scene_side_acceptance(_job(4, run_dir=str(tmp_path / "calib"), quality=j.quality), 3, build=build)


def test_run_views_stop_names_the_scene(tmp_path):
    from render_farm.job import run_views
    j = _job(3, run_dir=str(tmp_path / "calib"))
    build, builds = _fake_build(j, tmp_path, _far_floor())
    with pytest.raises(JobStopped, match="^random-00003$"):
        run_views(j, _calib(), _FrameScorer(), 40, [].append, lambda: True, build, None)
    assert builds == []


def test_injected_exit_in_process():
    """The exit path without losing the test process (os._exit raises SystemExit here, see above)."""
    plan = FaultPlan(exit_in=["random-00000"], exit_times=1, raise_in=["random-00000"], raise_times=2)
    with pytest.raises(SystemExit) as exc:
        _inject_faults(_job(0, faults=plan))
    assert exc.value.code == ("exit", 17)
    with pytest.raises(InjectedFault, match=r"random-00000 \(attempt 1\)"):   # past the exits: the raise
        _inject_faults(_job(0, faults=plan).model_copy(update={"attempt": 1}))
    _inject_faults(_job(0, faults=plan).model_copy(update={"attempt": 2}))


def test_run_scene_job_redraws_a_positive_scene_until_it_gives_up(tmp_path):
    # the far-floor mesh hides every calib target, so the real scorer never accepts a pose
    j = _job(3, "positive", run_dir=str(tmp_path / "calib"), quality=preview_quality(long_side_px=40),
             max_pose_attempts=1)
    build, builds = _calib_build(tmp_path / "calib")
    with pytest.raises(RuntimeError, match=r"^positive-00003: no acceptable frame in 12 scene draws x 150 poses$"):
        run_scene_job(j, [].append, build=build, camera=None)
    assert builds == list(range(12))
    assert sorted(p.name for p in (tmp_path / "calib" / "scenes").glob("*.json"))[:3] == [
        "positive-00003-r1.json", "positive-00003-r10.json", "positive-00003-r11.json"]


def test_run_scene_job_hands_a_clip_environment_to_the_clip_job(tmp_path):
    """A clip is one job: its scene is built once with the job's build step, then its frames
    are rendered by render_farm.clip_job (stopped here before the first frame)."""
    q = preview_quality(long_side_px=32)
    j = plan_jobs("calib_clip", 8, 8, "random", set(), root_seed=7, run_dir=str(tmp_path / "calib_clip"),
                  quality=q, device="cpu")[0]
    builds = []

    def build(job, redraw=0):
        builds.append((job.scene_id, redraw))
        store = RunStore(job.run_dir)
        store.create()
        return "scene", save_scene(job, store, sample_spec(job), CALIB_INFO, _far_floor()), NO_BUILD_TIMINGS

    with pytest.raises(JobStopped, match="^random-00000$"):
        run_scene_job(j, [].append, should_stop=lambda: True, build=build, camera=None)
    assert builds == [("random-00000", 0)]
    assert (tmp_path / "calib_clip" / "scenes" / "random-00000.json").is_file()
    # the clip's faults strike inside it (at a frame), not at the job's start
    late = j.model_copy(update={"faults": FaultPlan(raise_in=["random-00000"], at_frame=3)})
    with pytest.raises(JobStopped):
        run_scene_job(late, [].append, should_stop=lambda: True, build=build, camera=None)


# -- Blender's two steps themselves: a real calib scene built (no render), and the camera step with
# Cycles' render call recorded. They need bpy (imported once); the render itself is covered by the
# render-marked farm tests.

def test_build_scene_builds_the_jobs_spec_in_blender_and_saves_its_geometry(tmp_path):
    from render_farm.job import build_scene
    from geometry.raycast import SceneMesh

    j = _job(3, run_dir=str(tmp_path / "calib"), quality=preview_quality(long_side_px=40, samples=3))
    RunStore(j.run_dir).create()
    scene, geo, timings = build_scene(j, 2)
    assert scene.render.engine == "CYCLES" and scene.cycles.samples == 3 and scene.cycles.device == "CPU"
    assert scene.cycles.seed == scene_cycles_seed(j, 2) == _blake("scenebench/7/calib/random/3/redraw/2/cycles") % (
        2**31 - 1)
    assert geo.spec == sample_spec(j, 2) and geo.state.scene_id == "random-00003-r2"
    assert set(CALIB_TARGETS) <= {o.name for o in geo.state.objects}
    assert set(CALIB_TARGETS) <= {o.name for o in scene.objects}     # the calib builder ran on this scene
    with np.load(tmp_path / "calib" / "scenes" / "random-00003-r2.npz") as z:
        saved = SceneMesh(**{k: z[k] for k in z.files})
    assert np.array_equal(saved.triangles, geo.mesh.triangles) and len(geo.mesh.triangles) > 12
    assert list(timings) == ["build_s", "export_s"] and timings["build_s"] > 0 and timings["export_s"] > 0
    assert SceneState.model_validate_json((tmp_path / "calib" / "scenes" / "random-00003-r2.json").read_text()) == \
        geo.state


def test_photograph_renders_the_pose_with_the_attempts_seed(tmp_path, monkeypatch):
    from blender_envs.core import render_passes
    from blender_envs.core.scene_reset import reset_scene
    from blender_envs.core.settings import RenderSettings
    from render_farm.job import photograph

    j = _job(3, quality=preview_quality(long_side_px=40))
    spec = sample_spec(j)
    scene = reset_scene()
    _calib().build_function()(scene, spec)
    view = _calib().sample_view(spec, np.random.default_rng(0), 1, 40)
    quality = RenderSettings.model_validate(j.quality)
    calls = []

    def fake_render(sc, q, seed=None):
        calls.append((sc, q, seed, sc.render.resolution_x, sc.render.resolution_y, sc.camera is not None))
        return _passes(sc.render.resolution_y, sc.render.resolution_x)

    monkeypatch.setattr(render_passes, "render_frame", fake_render)
    parts = ("scenebench", 7, "calib", "random", 3, 1)
    photo = photograph(scene, view.pose, quality, parts, 2)
    assert calls == [(scene, quality, _blake("scenebench/7/calib/random/3/1/cycles/2") % (2**31 - 1),
                      view.pose.width, view.pose.height, True)]
    assert photo.isp == sample_isp_params(np.random.default_rng(_blake("scenebench/7/calib/random/3/1/isp/2")))
    assert photo.jpeg == develop(_passes(view.pose.height, view.pose.width), photo_seeds(parts, 2)).jpeg


def test_last_build_reuses_the_draw_it_holds_for_another_job_of_that_draw():
    from render_farm.job import LastBuild

    calls = []

    def build(job, redraw):
        calls.append((job.scene_index, tuple(job.views), redraw))
        return f"scene-{job.scene_index}-{redraw}", f"geo-{job.scene_index}", {"build_s": 2.0, "export_s": 1.0}

    held, job = LastBuild(), _job(scene=3)
    view0, view1 = job.model_copy(update={"views": [0]}), job.model_copy(update={"views": [1]})
    assert held.build(build, view0, 0) == ("scene-3-0", "geo-3", {"build_s": 2.0, "export_s": 1.0})
    assert held.build(build, view1, 0) == ("scene-3-0", "geo-3", {"build_s": 0.0, "export_s": 0.0})
    assert calls == [(3, (0,), 0)]
    held.build(build, view1, 1)                        # another draw of the scene: built
    held.build(build, view0, 0)                        # ... and the first one again: it was replaced
    assert calls == [(3, (0,), 0), (3, (1,), 1), (3, (0,), 0)]
    for other in (_job(scene=4), job.model_copy(update={"root_seed": 8}), job.model_copy(update={"run_dir": "/y"}),
                  job.model_copy(update={"quality": {"samples": 2}}), job.model_copy(update={"device": "gpu"}),
                  _job(scene=3, stratum="positive")):
        n = len(calls)
        held.build(build, other, 0)
        held.build(build, job, 0)
        assert len(calls) == n + 2, other
    assert (held.builds, held.reuses) == (len(calls), 1)
    before = (held.builds, held.reuses)
    assert held.scenes_built_by(before) == 1                      # built outside the cache (a clip job)
    held.build(build, job, 0)
    assert held.scenes_built_by(before) == 0                      # only rendered on the held draw
    held.build(build, job, 1), held.build(build, job, 2)
    assert held.scenes_built_by(before) == 2
    n = len(calls)
    held.build(build, job.model_copy(update={"quality": {"samples": 4, "long_side_px": 40}}), 0)
    held.build(build, job.model_copy(update={"quality": {"long_side_px": 40, "samples": 4}}), 0)
    assert len(calls) == n + 1                                   # the same quality, written in another order
    held.build(lambda j, r: ("x", "y", {}), job, 0)    # another build function: built
    assert held.value == ("x", "y", {})
    held.forget()
    assert (held.key, held.value) == (None, None)
    held.build(build, job, 0)
    assert calls[-1] == (3, (0, 1), 0)


def test_a_failed_job_leaves_no_draw_to_reuse(tmp_path):
    from render_farm.job import LAST_BUILD, run_scene_job

    build, builds = _calib_build(tmp_path / "calib")

    def camera(*args):
        raise ValueError("render failed")

    job = _job(scene=2, run_dir=str(tmp_path / "calib"), quality=preview_quality(long_side_px=40))
    with pytest.raises(ValueError, match="render failed"):
        run_scene_job(job, emit=lambda rec: None, build=build, camera=camera)
    assert builds == [0] and (LAST_BUILD.key, LAST_BUILD.value) == (None, None)


def test_a_scene_split_into_jobs_builds_once_and_renders_the_same_frames(tmp_path):
    from render_farm.job import run_scene_job
    from render_farm.plan import split_tail

    def camera(scene, pose, quality, parts, attempt):
        return develop(_passes(pose.height, pose.width), photo_seeds(parts, attempt))

    whole = _job(3, run_dir=str(tmp_path / "a" / "calib"), quality=preview_quality(long_side_px=40))
    build, builds = _calib_build(tmp_path / "a" / "calib")
    together = []
    run_scene_job(whole, together.append, build=build, camera=camera)
    split = [j.model_copy(update={"run_dir": str(tmp_path / "b" / "calib")}) for j in split_tail([whole], 2)]
    build, builds = _calib_build(tmp_path / "b" / "calib")
    apart = []
    for j in split:
        run_scene_job(j, apart.append, build=build, camera=camera)
    assert [j.views for j in split] == [[0], [1]] and builds == [0]
    assert [r.timings["build_s"] for r in apart] == [1.0, 0.0]
    assert [r.stable_json() for r in apart] == [r.stable_json() for r in together]
    for r in together:
        assert (tmp_path / "a" / "calib" / r.image).read_bytes() == (tmp_path / "b" / "calib" / r.image).read_bytes()
