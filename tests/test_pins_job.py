"""The parts of render_farm/job.py that run without Blender: seed parts, scene ids of redrawn
scenes, the scene spec's seeding and the fault plan (the rest is covered by render tests)."""
from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

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
