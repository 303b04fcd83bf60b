"""Frame ids, seed parts, scene-id parsing and the N limit of job planning (render_farm/plan.py)
and the seed helpers (render_farm/seeds.py), against literals and an independent blake2b."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from render_farm import plan
from render_farm.plan import (
    MAX_SCENES,
    STRATA,
    FaultPlan,
    SceneJob,
    frame_id_for,
    frame_seed,
    max_frames,
    parse_scene_id,
    plan_jobs,
    scene_id_for,
    seed_parts,
)
from render_farm.seeds import cycles_seed, derive_seed, rng_for

JOB = {"root_seed": 0, "run_dir": "/run", "quality": {"samples": 4}, "device": "cpu"}


def _blake(key: str) -> int:
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little") >> 1


def test_constants():
    assert STRATA == ("random", "positive")
    assert MAX_SCENES == 100_000
    assert max_frames(4) == 400_000 and max_frames(1) == 100_000


def test_ids_are_zero_padded_so_they_sort_in_frame_order():
    assert scene_id_for("random", 7) == "random-00007"
    assert scene_id_for("positive", 99_999) == "positive-99999"
    assert frame_id_for("calib", "positive", 12, 3) == "calib-positive-00012-03"
    assert frame_id_for("tape_gap", "random", 0, 11) == "tape_gap-random-00000-11"
    ids = [frame_id_for("e", "random", s, v) for s in (0, 1, 9, 10, 100) for v in (0, 1, 9, 10)]
    assert ids == sorted(ids)


def test_seed_parts_and_frame_seed():
    assert seed_parts(5, "calib", "random", 3) == ("scenebench", 5, "calib", "random", 3)
    assert seed_parts(5, "calib", "positive", 3, redraw=2) == ("scenebench", 5, "calib", "positive", 3, "redraw", 2)
    assert frame_seed(5, "calib", "random", 3, 1) == _blake("scenebench/5/calib/random/3/1/frame")
    assert frame_seed(5, "calib", "positive", 3, 1, redraw=2) == _blake("scenebench/5/calib/positive/3/redraw/2/1/frame")
    assert frame_seed(0, "calib", "random", 0, 0) == 4376206273021398454  # tests/data/record.json's seed


@pytest.mark.parametrize("text, parsed", [
    ("random-00012", ("random", 12, 0)),
    ("positive-00003-r2", ("positive", 3, 2)),
    ("positive-00003-r10", ("positive", 3, 10)),
    ("random-123456", ("random", 123456, 0)),
    ("random-0012", None),
    ("Random-00012", None),
    ("random-00012-r0", None),
    ("random-00012-r01", None),
    ("random-00012-r", None),
    ("random-00012-x1", None),
    ("-00012", None),
    ("random-00012 ", None),
    (" random-00012", None),
    ("random_00012", None),
    ("random-00012-r2-r3", None),
])
def test_parse_scene_id(text, parsed):
    assert parse_scene_id(text) == parsed


def test_parse_inverts_scene_id_for():
    for stratum in STRATA:
        for i in (0, 5, 99_999):
            assert parse_scene_id(scene_id_for(stratum, i)) == (stratum, i, 0)


def test_plan_jobs_fields_and_defaults():
    jobs = plan_jobs("calib", 5, 2, "positive", set(), **JOB)
    assert [(j.scene_index, j.scene_id, j.views) for j in jobs] == [
        (0, "positive-00000", [0, 1]), (1, "positive-00001", [0, 1]), (2, "positive-00002", [0])]
    j = jobs[2]
    assert (j.env, j.stratum, j.root_seed, j.run_dir, j.quality, j.device) == ("calib", "positive", 0, "/run",
                                                                              {"samples": 4}, "cpu")
    assert (j.max_pose_attempts, j.max_renders_per_frame, j.attempt) == (400, 6, 0)
    assert j.faults == FaultPlan() and j.key == "positive-00002/0" and jobs[0].key == "positive-00000/0.1"
    assert FaultPlan().model_dump() == {"raise_in": [], "raise_times": 1, "exit_in": [], "exit_times": 1,
                                        "at_frame": 0}
    assert plan_jobs("calib", 1, 3, "random", set(), **JOB)[0].views == [0]
    assert [len(j.views) for j in plan_jobs("calib", 8, 4, "random", set(), **JOB)] == [4, 4]
    assert [len(j.views) for j in plan_jobs("calib", 9, 4, "random", set(), **JOB)] == [4, 4, 1]


def test_plan_skips_done_frames_and_whole_scenes():
    done = {frame_id_for("calib", "random", 1, v) for v in range(3)} | {frame_id_for("calib", "random", 0, 2)}
    done |= {frame_id_for("calib", "positive", 2, 0), frame_id_for("other", "random", 2, 0)}
    jobs = plan_jobs("calib", 7, 3, "random", done, **JOB)
    assert [(j.scene_index, j.views) for j in jobs] == [(0, [0, 1]), (2, [0])]
    everything = {frame_id_for("calib", "random", s, v) for s in range(3) for v in range(3)}
    assert plan_jobs("calib", 7, 3, "random", everything, **JOB) == []


def test_extra_fields_are_refused():
    with pytest.raises(ValueError):
        FaultPlan(bogus=1)
    with pytest.raises(ValueError):
        plan_jobs("calib", 1, 1, "random", set(), bogus=1, **JOB)
    with pytest.raises(ValueError):
        SceneJob(env="e", root_seed=0, stratum="random", scene_index=0, scene_id="random-00000", views=[0],
                 run_dir="/r", quality={}, device="cpu", colour="red")


def test_bad_n_and_stratum_are_refused():
    for n in (0, -1):
        with pytest.raises(ValueError, match=rf"N must be a positive number of frames, got {n}"):
            plan_jobs("calib", n, 4, "random", set(), **JOB)
    with pytest.raises(ValueError, match=r"unknown stratum 'shake'; choose one of random, positive"):
        plan_jobs("calib", 1, 4, "shake", set(), **JOB)


def test_n_limit_just_inside_and_just_outside(monkeypatch):
    monkeypatch.setattr(plan, "MAX_SCENES", 3)
    assert len(plan_jobs("calib", 12, 4, "random", set(), **JOB)) == 3  # exactly 3 scenes
    with pytest.raises(ValueError, match=r"N=13 needs 4 scenes; a run holds at most 3 scenes "
                                         r"\(N <= 12 for 4 views per scene\)"):
        plan_jobs("calib", 13, 4, "random", set(), **JOB)


def test_real_n_limit_is_refused_before_planning():
    with pytest.raises(ValueError, match=r"N=400001 needs 100001 scenes"):
        plan_jobs("calib", 400_001, 4, "random", set(), **JOB)


def test_seed_helpers():
    assert derive_seed() == _blake("")
    assert derive_seed(1.5, None, "x") == _blake("1.5/None/x")
    s = rng_for("scenebench", 1)
    assert isinstance(s, np.random.Generator)
    assert s.integers(0, 1000) == np.random.default_rng(_blake("scenebench/1")).integers(0, 1000)
    assert cycles_seed(0) == 0
    assert cycles_seed(2**31 - 2) == 2**31 - 2
    assert cycles_seed(2**31 - 1) == 0
    assert cycles_seed(2**63 - 1) == (2**63 - 1) % (2**31 - 1) == 1
    assert type(cycles_seed(np.int64(7))) is int


def test_split_tail_gives_the_last_scenes_one_job_per_view():
    from render_farm.plan import split_tail

    jobs = plan_jobs("calib", 32, 4, "random", set(), **JOB)
    out = split_tail(jobs, 2)
    assert [(j.scene_index, j.views) for j in out] == [(s, [0, 1, 2, 3]) for s in range(6)] + [
        (s, [v]) for s in (6, 7) for v in range(4)]
    assert len({j.key for j in out}) == len(out) == 14
    assert all(j.model_dump(exclude={"views"}) == jobs[j.scene_index].model_dump(exclude={"views"}) for j in out)
    assert split_tail(jobs, 1) == jobs and split_tail(jobs, 1) is not jobs
    # fewer scenes than workers: every scene split; views already done stay out
    few = plan_jobs("calib", 7, 4, "random", {"calib-random-00000-01"}, **JOB)
    assert [(j.scene_index, j.views) for j in split_tail(few, 3)] == [
        (0, [0]), (0, [2]), (0, [3]), (1, [0]), (1, [1]), (1, [2])]
    assert split_tail([], 2) == []
