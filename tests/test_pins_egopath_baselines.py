"""Pinned behaviour of scorers/egopath_baselines.py: the documented answer of each baseline, the
per-question generator rule, and the predictions file it writes."""
from __future__ import annotations

import hashlib
import json

import numpy as np

from geometry.egopath_schema import Question
from scorers import egopath_baselines as eb

WORLD = {1: (0, 0), 2: (3, 0), 3: (3, 4), 4: (0, 4), 5: (-1, 0)}


def q(qid, task="point_path", start=1, goals=(3, 4), ids=(5, 3, 1, 2, 4), answer="[1, 4]", world=WORLD):
    return Question(question_id=qid, task=task, split="benchmark", scene_id="s", scene_group="g", frame_id="f",
                    system_prompt="s", user_prompt="u", display_ids=list(ids),
                    waypoint_world={str(i): [float(x), float(y), 0.0] for i, (x, y) in world.items()},
                    start_id=start if "path" in task else None, goal_ids=list(goals) if "path" in task else [],
                    positives=[1] if "path" not in task else [], answer=answer)


def test_reference_and_all_candidates():
    qs = [q("a"), q("b", task="point_traversability", answer="[1]")]
    assert eb.reference_answers(qs) == {"a": "[1, 4]", "b": "[1]"}
    assert eb.all_candidates(qs) == {"a": "[1, 2, 3, 4, 5]", "b": "[1, 2, 3, 4, 5]"}
    assert set(eb.BASELINES) == {"reference", "random", "all-candidates", "straight-to-nearest-goal"}
    assert eb.BASELINES["reference"](qs, 0) == eb.reference_answers(qs)
    assert eb.BASELINES["all-candidates"](qs, 0)["a"] == "[1, 2, 3, 4, 5]"
    assert eb.BASELINES["straight-to-nearest-goal"](qs, 0)["a"] == "[1, 4]"
    assert eb.BASELINES["random"] is eb.random_ids


def test_straight_to_nearest_goal():
    # goals 3 (5 m) and 4 (4 m) from start 1: nearest is 4
    assert eb.straight_to_nearest_goal([q("a")])["a"] == "[1, 4]"
    # equal distances (2 at 3 m, 4 at 4 m -> use goals 2 and 5 from start 1: 3 m and 1 m)
    assert eb.straight_to_nearest_goal([q("b", goals=(2, 5))])["b"] == "[1, 5]"
    tie = {1: (0, 0), 2: (2, 0), 3: (0, 2), 4: (5, 5), 5: (9, 9)}
    assert eb.straight_to_nearest_goal([q("t", goals=(3, 2), world=tie)])["t"] == "[1, 2]"   # tie -> smaller id
    assert eb.straight_to_nearest_goal([q("s", start=3)])["s"] == "[3]"                      # start is a goal
    nowhere = {1: (0, 0), 2: (1, 0), 3: (0, 9)}
    assert eb.straight_to_nearest_goal([q("n", goals=(4, 3), world=nowhere)])["n"] == "[1, 3]"  # 4 has no point
    assert eb.straight_to_nearest_goal([q("z", start=2, goals=(4, 3), world={2: (3, 0), 3: (3, 9), 4: (3, 1)})])["z"] \
        == "[2, 4]"
    assert eb.straight_to_nearest_goal([q("v", task="embodied_traversability")])["v"] == "[1, 2, 3, 4, 5]"
    assert eb.straight_to_nearest_goal([q("g", goals=())])["g"] == "[1, 2, 3, 4, 5]"


def _expected_rng(seed, qid):
    h = int.from_bytes(hashlib.blake2b(qid.encode(), digest_size=8).digest(), "big")
    return np.random.default_rng([seed, h])


def test_random_ids_documented_draws():
    tq = q("t1", task="point_traversability")
    rq = q("r1")
    out = eb.random_ids([rq, tq], seed=4)
    rng = _expected_rng(4, "t1")
    ids = np.array([1, 2, 3, 4, 5])
    assert out["t1"] == json.dumps(ids[rng.random(5) < 0.5].tolist())
    rng = _expected_rng(4, "r1")
    n = int(rng.integers(1, 6))
    assert out["r1"] == json.dumps(rng.permutation(ids)[:n].tolist())
    # independent of the other questions and their order
    assert eb.random_ids([tq], seed=4)["t1"] == out["t1"] and eb.random_ids([tq, rq], seed=4) == out
    assert eb.random_ids([q("e", ids=())], seed=1) == {"e": "[]"}


def test_random_ids_distribution():
    qs = [q(f"r{i}") for i in range(400)] + [q(f"t{i}", task="point_traversability") for i in range(400)]
    out = eb.random_ids(qs, seed=0)
    lens = [len(json.loads(out[f"r{i}"])) for i in range(400)]
    assert min(lens) == 1 and max(lens) == 5 and all(len(set(json.loads(out[f"r{i}"]))) == lens[i] for i in range(400))
    assert 2.6 < np.mean(lens) < 3.4                   # uniform on 1..5: mean 3
    tl = [len(json.loads(out[f"t{i}"])) for i in range(400)]
    assert 2.2 < np.mean(tl) < 2.8 and min(tl) == 0 and max(tl) == 5    # Binomial(5, 1/2): mean 2.5
    assert any(json.loads(out[f"r{i}"])[0] != 1 for i in range(400))  # may start anywhere
    assert eb.random_ids(qs[:3], seed=1) != eb.random_ids(qs[:3], seed=2)


def test_write_predictions(tmp_path):
    p = eb.write_predictions(tmp_path / "sub" / "b.jsonl", {"z": "[2]", "a": "[1]"}, "baseline:x")
    assert p == tmp_path / "sub" / "b.jsonl"
    assert p.read_text() == ('{"id": "a", "model": "baseline:x", "response": "[1]"}\n'
                             '{"id": "z", "model": "baseline:x", "response": "[2]"}\n')
    assert sorted(x.name for x in p.parent.iterdir()) == ["b.jsonl"]


def test_straight_to_nearest_goal_answers_every_question_in_a_list():
    qs = [q("t", task="point_traversability"), q("s", start=3), q("a"), q("nostart", start=None)]
    out = eb.straight_to_nearest_goal(qs)
    assert out == {"t": "[1, 2, 3, 4, 5]", "s": "[3]", "a": "[1, 4]", "nostart": "[1, 2, 3, 4, 5]"}


def test_nearest_goal_is_measured_from_the_start():
    """Start 2 at (3, 0): goal 1 at (0, 0) is 3 m away, goal 5 at (5, 1) sqrt(5) = 2.24 m, so 5
    (measured from the origin instead, 1 would be nearer)."""
    world = {1: (0, 0), 2: (3, 0), 5: (5, 1)}
    assert eb.straight_to_nearest_goal([q("o", start=2, goals=(1, 5), ids=(1, 2, 5), world=world)])["o"] == "[2, 5]"


def test_write_predictions_makes_missing_parent_folders(tmp_path):
    p = eb.write_predictions(tmp_path / "a" / "b" / "c.jsonl", {"q": "[1]"}, "m")
    assert p.read_text() == '{"id": "q", "model": "m", "response": "[1]"}\n'
