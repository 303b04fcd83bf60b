"""Pinned values for scorers/egopath.py: Table S4 edges, parse limits, SPL corner cases,
metrics.md §6 worked examples and the scene-cluster bootstrap (hand arithmetic throughout).

Graph (floor plane, metres):   1 (0,0) -- 2 (3,0) -- 3 (3,4),   1 -- 4 (0,4) -- 3
Shortest legal route 1 -> 3 = 7 m either way.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from geometry.egopath_schema import TASKS, Question
from scorers import egopath as ep

WORLD = {1: (0, 0), 2: (3, 0), 3: (3, 4), 4: (0, 4)}
EDGES = [[1, 2], [2, 3], [1, 4], [3, 4]]


def rq(qid="r", task="point_path", group="g", goals=(3,), start=1, shortest=7.0, reference=(1, 2, 3),
       world=WORLD, strict=True, display=None):
    ids = sorted(world) if display is None else list(display)
    return Question(question_id=qid, task=task, split="benchmark", scene_id="s" + group, scene_group=group,
                    frame_id="f" + qid, system_prompt="s", user_prompt="u", display_ids=ids,
                    waypoint_world={str(i): [float(x), float(y), 9.0] for i, (x, y) in world.items()},
                    start_id=start, legal_edges=EDGES, goal_ids=list(goals), reference_route=list(reference),
                    shortest_m=shortest, strict_visible=strict, answer="[1, 2, 3]")


def tq(qid="t", task="point_traversability", group="g", positives=(1, 2, 3), ids=range(1, 7)):
    ids = list(ids)
    return Question(question_id=qid, task=task, split="benchmark", scene_id="s" + group, scene_group=group,
                    frame_id="f" + qid, system_prompt="s", user_prompt="u", display_ids=ids,
                    waypoint_world={str(i): [float(i), 0.0, 0.0] for i in ids}, positives=list(positives),
                    answer=json.dumps(sorted(positives)))


# ---------------------------------------------------------------- constants

def test_constants_from_the_paper():
    assert ep.SEED == 20260717 and ep.N_RESAMPLES == 10_000 and ep.CONFIDENCE == 0.95
    assert ep.STAGES == ("format", "invalid_id", "wrong_start", "illegal_edge", "wrong_goal")
    assert (ep.MAX_ID_DIGITS, ep.MAX_DEPTH, ep.MAX_ARRAYS) == (9, 16, 1000)


# ---------------------------------------------------------------- parsing limits

def test_parse_last_top_level_array_counts():
    assert ep.parse_id_list("first [1, 2] then Answer: [3, 4]") == [3, 4]
    assert ep.parse_id_list("[1, [2]] and [5]") == [5]
    assert ep.parse_id_list("[[1, 2]]") is None            # inner array is not a separate answer
    assert ep.parse_id_list("[5] [[1, 2]]") is None
    assert ep.parse_id_list("see [x] then [4, 5]") == [4, 5]
    assert ep.parse_id_list('["3", " 4 ", "+5", 6]') == [3, 4, 5, 6]
    assert ep.parse_id_list('["-3"]') is None
    assert ep.parse_id_list('[true]') is None and ep.parse_id_list('[1, false]') is None
    assert ep.parse_id_list('[1.0]') is None and ep.parse_id_list('[{"a": 1}]') is None
    assert ep.parse_id_list('[null]') is None
    assert ep.parse_id_list("no list") is None and ep.parse_id_list("") is None
    assert ep.parse_id_list(b"[1]") is None and ep.parse_id_list(None) is None
    assert ep.parse_id_list("[]") == []


def test_parse_id_digit_limit_is_nine():
    assert ep.parse_id_list("[123456789]") == [123456789]
    assert ep.parse_id_list("[1234567890]") is None
    assert ep.parse_id_list("[-123456789]") == [-123456789]
    assert ep.parse_id_list("[-1234567890]") is None
    assert ep.parse_id_list('["123456789"]') == [123456789]
    assert ep.parse_id_list('["+123456789"]') == [123456789]
    assert ep.parse_id_list('[" 123456789 "]') == [123456789]
    assert ep.parse_id_list('["1234567890"]') is None
    assert ep.parse_id_list("[" + "9" * 5000 + "]") is None   # never int() on an absurd literal


def test_parse_length_cap_is_inclusive_at_64000():
    ok = "[1]" + " " * (64_000 - 3)
    assert len(ok) == 64_000 and ep.parse_id_list(ok) == [1]
    assert ep.parse_id_list(ok + " ") is None


def test_parse_array_count_cap_is_1000():
    assert ep.parse_id_list("[1] " * 1000) == [1]
    assert ep.parse_id_list("[1] " * 1001) is None


def test_parse_depth_cap_is_16_counting_any_bracket():
    assert ep.parse_id_list("{" * 16 + "}" * 16 + " [2]") == [2]
    assert ep.parse_id_list("{" * 17 + "}" * 17 + " [2]") is None
    assert ep.parse_id_list('"' + "[" * 17 + '" [2]') is None      # strings are not skipped
    # closers before any opener never lower the count below zero
    assert ep.parse_id_list("}" * 5 + "{" * 17 + "}" * 17 + " [2]") is None
    assert ep.parse_id_list("{" * 8 + "}" * 8 + "{" * 16 + "}" * 16 + "[2]") == [2]


# ---------------------------------------------------------------- route stages

def test_route_success_and_spl_with_revisits():
    o = ep.evaluate_route(rq(), "[1, 2, 3]")
    assert o.stage is None and o.valid and o.success and o.spl == 1.0
    assert o.path_m == 7.0 and o.shortest_m == 7.0 and o.evaluable and o.endpoint_hit and o.first_edge_legal
    o = ep.evaluate_route(rq(), "[1, 2, 1, 4, 3]")          # 3 + 3 + 4 + 3 = 13
    assert o.success and o.path_m == 13.0 and o.spl == pytest.approx(7 / 13)
    o = ep.evaluate_route(rq(shortest=8.0), "[1, 2, 3]")   # p < l is capped at 1
    assert o.spl == 1.0


def test_spl_when_start_is_goal():
    q = rq(goals=(1,), shortest=0.0, reference=(1,))
    o = ep.evaluate_route(q, "[1]")
    assert o.success and o.spl == 1.0 and o.path_m == 0.0 and not o.first_edge_legal
    o = ep.evaluate_route(q, "[1, 2, 1]")                   # wandering back: l / max(l, p) = 0 / 6
    assert o.success and o.path_m == 6.0 and o.spl == 0.0


def test_shortest_from_reference_route_and_bad_lengths():
    o = ep.evaluate_route(rq(shortest=None, reference=(1, 4, 3)), "[1, 2, 1, 2, 3]")  # p = 13, l = 7
    assert o.shortest_m == 7.0 and o.spl == pytest.approx(7 / 13)
    assert ep.evaluate_route(rq(shortest=0.0, goals=(3,)), "[1, 2, 3]").spl == 0.0
    for bad in (-0.5, float("inf"), float("nan")):
        with pytest.raises(ValueError):
            ep.evaluate_route(rq(shortest=bad), "[1, 2, 3]")
    with pytest.raises(ValueError):
        ep.evaluate_route(rq(shortest=None, reference=()), "[1, 2, 3]")
    # failures never need l_i
    assert ep.evaluate_route(rq(shortest=None, reference=()), "[1, 2]").stage == "wrong_goal"


def test_route_length_floor_plane_only():
    assert ep.route_length_m(rq(), [1, 3]) == 5.0           # z = 9 everywhere is ignored
    assert ep.route_length_m(rq(), [2]) == 0.0
    with pytest.raises(ValueError):
        ep.route_length_m(rq(), [1, 9])
    q = rq()
    q.waypoint_world["2"] = [3.0]
    with pytest.raises(ValueError):
        ep.route_length_m(q, [1, 2])


@pytest.mark.parametrize("text,stage,valid,end,first,evaluable,illegal", [
    ("[]", "format", False, False, False, False, []),
    ("[1, 9, 3]", "invalid_id", False, True, False, False, [(1, 9), (9, 3)]),
    ("[2, 3]", "wrong_start", False, True, False, True, []),
    ("[1, 3]", "illegal_edge", False, True, False, True, [(1, 3)]),
    ("[1, 1, 2, 3]", "illegal_edge", False, True, False, True, [(1, 1)]),   # self-loop
    ("[1, 2, 2, 3]", "illegal_edge", False, True, True, True, [(2, 2)]),
    ("[1, 2, 4, 3]", "illegal_edge", False, True, True, True, [(2, 4)]),
    ("[1, 2]", "wrong_goal", True, False, True, True, []),
    ("[1]", "wrong_goal", True, False, False, True, []),
    ("[2, 1]", "wrong_start", False, False, False, True, []),
    ("[3, 2, 1, 2, 3]", "wrong_start", False, True, False, True, []),
])
def test_route_stage_table(text, stage, valid, end, first, evaluable, illegal):
    o = ep.evaluate_route(rq(), text)
    assert o.stage == stage and o.valid is valid and o.success is False and o.spl == 0.0
    assert o.endpoint_hit is end and o.first_edge_legal is first and o.evaluable is evaluable
    assert o.illegal_edges == illegal and o.has_illegal_edge is bool(illegal)
    assert o.shortest_m is None


def test_path_length_only_when_every_id_has_a_point():
    assert ep.evaluate_route(rq(), "[1, 9, 3]").path_m is None
    assert ep.evaluate_route(rq(), "[1, 3]").path_m == 5.0
    q = rq(display=[1, 2, 3, 4, 5])                         # 5 displayed but has no world point
    o = ep.evaluate_route(q, "[1, 5]")
    assert o.stage == "illegal_edge" and o.path_m is None
    q2 = rq(display=[1, 2, 3, 4, 5], goals=(5,))
    with pytest.raises(ValueError):
        ep.evaluate_route(q2.model_copy(update={"legal_edges": EDGES + [[1, 5]]}), "[1, 5]")


def test_route_question_requirements():
    with pytest.raises(ValueError):
        ep.evaluate_route(tq(), "[1]")
    with pytest.raises(ValueError):
        ep.evaluate_route(rq(start=None), "[1]")
    with pytest.raises(ValueError):
        ep.evaluate_route(rq(goals=()), "[1]")
    assert ep.evaluate_route(rq(start=0, goals=(3,), display=[0, 1, 2, 3, 4]), "[1, 2, 3]").stage == "wrong_start"


# ---------------------------------------------------------------- traversability

def test_traversability_worked_example():
    """metrics.md §6: cands 1..6, positives {1,2,3}, predicted {1,2,4}."""
    o = ep.evaluate_traversability(tq(), "[4, 2, 1, 2]")
    assert (o.tp, o.fp, o.fn, o.tn, o.n_invalid) == (2, 1, 1, 2, 0)
    assert o.parsed and o.predicted == [1, 2, 4]
    m = ep.traversability_metrics(o.tp, o.fp, o.fn, o.tn)
    assert m["tpr"] == pytest.approx(2 / 3) and m["tnr"] == pytest.approx(2 / 3)
    assert m["ba"] == pytest.approx(2 / 3) and m["f1"] == pytest.approx(2 / 3)
    assert m["precision"] == pytest.approx(2 / 3)


def test_traversability_invalid_and_unparsed():
    o = ep.evaluate_traversability(tq(), "[1, 9, 10]")
    assert (o.tp, o.fp, o.fn, o.tn, o.n_invalid) == (1, 2, 2, 3, 2)
    o = ep.evaluate_traversability(tq(), "nothing")
    assert (o.tp, o.fp, o.fn, o.tn, o.n_invalid, o.parsed) == (0, 0, 3, 3, 0, False)
    with pytest.raises(ValueError):
        ep.evaluate_traversability(tq(positives=(1, 9)), "[1]")
    with pytest.raises(ValueError):
        ep.evaluate_traversability(rq(), "[1]")
    assert isinstance(ep.evaluate(tq(task="embodied_traversability"), "[1]"), ep.TravOutcome)
    assert isinstance(ep.evaluate(rq(task="intent_path"), "[1]"), ep.RouteOutcome)


def test_traversability_metrics_edges():
    m = ep.traversability_metrics(0, 0, 0, 4)
    assert math.isnan(m["tpr"]) and m["tnr"] == 1.0 and math.isnan(m["ba"]) and m["f1"] == 1.0
    assert math.isnan(m["precision"])
    m = ep.traversability_metrics(3, 1, 0, 0)
    assert m["tpr"] == 1.0 and m["tnr"] == 0.0 and m["ba"] == 0.5 and m["f1"] == pytest.approx(6 / 7)
    assert m["precision"] == 0.75
    m = ep.traversability_metrics(0, 2, 2, 0)
    assert m["ba"] == 0.0 and m["f1"] == 0.0 and m["precision"] == 0.0


# ---------------------------------------------------------------- aggregation

def test_route_metrics_worked_example():
    q = rq()
    texts = ["[1, 2, 3]", "[1, 2, 1, 4, 3]", "[1, 2]", "[1, 2, 4, 3]", "[2, 3]", "garbage"]
    m = ep.route_metrics([ep.evaluate_route(q, t) for t in texts])
    # valid: #0 #1 #2 ; success #0 #1 ; spl 1 + 7/13 ; evaluable #0..#4 ; endpoint #0 #1 #3 #4
    # first edge legal #0 #1 #2 #3 ; illegal #3 only ; of fe: 1/4 ; of fe & end (#0 #1 #3): 1/3
    assert m["vpr"] == pytest.approx(3 / 6) and m["full_route_legal"] == pytest.approx(3 / 6)
    assert m["sr"] == pytest.approx(2 / 6)
    assert m["spl"] == pytest.approx((1 + 7 / 13) / 6)
    assert m["evaluable"] == pytest.approx(5 / 6)
    assert m["endpoint_hit"] == pytest.approx(4 / 6)
    assert m["first_edge_legal"] == pytest.approx(4 / 6)
    assert m["has_illegal_edge"] == pytest.approx(1 / 6)
    assert m["illegal_later_given_first_legal"] == pytest.approx(1 / 4)
    assert m["illegal_later_given_first_and_end"] == pytest.approx(1 / 3)
    empty = ep.route_metrics([])
    assert len(empty) == 10 and all(math.isnan(v) for v in empty.values())
    m2 = ep.route_metrics([ep.evaluate_route(q, "[2, 3]")])
    assert math.isnan(m2["illegal_later_given_first_legal"])


def test_egopath_score_worked_examples():
    assert ep.egopath_score(.75, .60, .40, .10, .05) == pytest.approx(25.0)
    assert ep.egopath_score(.5, .5, 0, 0, 0) == 0.0
    assert ep.egopath_score(0, 0, 0, 0, 0) == -40.0
    assert ep.egopath_score(1, 1, 1, 1, 1) == 100.0


def _bench():
    """One question per task in two scene groups; hand results below."""
    qs = [tq("pt1", "point_traversability", "A"), tq("pt2", "point_traversability", "B"),
          tq("et1", "embodied_traversability", "A"),
          rq("pp1", "point_path", "A"), rq("pp2", "point_path", "B", strict=False),
          rq("ep1", "embodied_path", "A"), rq("ip1", "intent_path", "B")]
    ans = {"pt1": "[1, 2, 4]", "pt2": "[1, 2, 3]", "et1": "[1, 2, 3, 4, 5, 6]",
           "pp1": "[1, 2, 1, 4, 3]", "pp2": "[1, 3]", "ep1": "[1, 2]", "ip1": "[1, 4, 3]"}
    return qs, ans


def test_evaluate_model_point_estimates():
    qs, ans = _bench()
    r = ep.evaluate_model(qs, ans, n_resamples=0)
    t = r["tasks"]
    # point_traversability pooled: TP 2+3, FP 1+0, FN 1+0, TN 2+3 -> TPR 5/6, TNR 5/6
    assert t["point_traversability"]["counts"] == {"tp": 5, "fp": 1, "fn": 1, "tn": 5, "n_invalid": 0}
    assert t["point_traversability"]["ba"]["estimate"] == pytest.approx(100 * 5 / 6)
    assert t["point_traversability"]["f1"]["estimate"] == pytest.approx(100 * 10 / 12)
    assert t["point_traversability"]["ba"]["low"] is None
    # embodied: all six predicted -> TPR 1, TNR 0 -> BA 50
    assert t["embodied_traversability"]["ba"]["estimate"] == pytest.approx(50.0)
    assert t["embodied_traversability"]["pooled"]["tnr"] == 0.0
    assert t["embodied_traversability"]["parse_failures"] == 0
    pp = t["point_path"]
    assert pp["n"] == 2 and pp["n_scene_groups"] == 2
    assert pp["sr"]["estimate"] == 50.0 and pp["vpr"]["estimate"] == 50.0
    assert pp["spl"]["estimate"] == pytest.approx(100 * (7 / 13) / 2)
    assert pp["stages"] == {"format": 0, "invalid_id": 0, "wrong_start": 0, "illegal_edge": 1,
                            "wrong_goal": 0, "success": 1}
    assert pp["by_reference_edges"] == {"2": {"n": 2, "endpoint_hit": 2, "success": 1, "illegal_edge": 1}}
    assert pp["table_s11"] == {"first_edge_legal_and_endpoint": 1, "illegal_later_edge": 0,
                               "complete_route_legal": 1}
    assert t["embodied_path"]["sr"]["estimate"] == 0.0 and t["embodied_path"]["vpr"]["estimate"] == 100.0
    assert t["intent_path"]["sr"]["estimate"] == 100.0
    # score = 20 * [(2*5/6 - 1) + (2*.5 - 1) + .5 + 0 + 1]
    assert r["score"]["estimate"] == pytest.approx(20 * (2 / 3 + 0 + 1.5))
    assert r["score_missing_tasks"] == [] and r["n_missing"] == 0
    s = r["strict"]["point_path"]
    assert s["all"] == {"n": 2, "end": 100.0, "full": 50.0, "gap": 50.0, "illegal": 50.0}
    assert s["strict"] == {"n": 1, "end": 100.0, "full": 100.0, "gap": 0.0, "illegal": 0.0}
    assert r["strict"]["intent_path"]["strict"]["n"] == 1
    assert len(r["outcomes"]) == 7


def test_evaluate_model_missing_answers_and_tasks():
    qs, ans = _bench()
    del ans["ip1"]
    r = ep.evaluate_model(qs, ans, n_resamples=0)
    assert r["n_missing"] == 1 and r["tasks"]["intent_path"]["stages"]["format"] == 1
    assert r["tasks"]["intent_path"]["single_id"] == 0
    r2 = ep.evaluate_model(qs[:4], ans, n_resamples=0)
    assert r2["score_missing_tasks"] == ["embodied_path", "intent_path"]
    assert r2["score"] == {"estimate": None, "low": None, "high": None, "n_undefined": 0}
    assert r2["tasks"]["intent_path"]["n"] == 0
    with pytest.raises(ValueError):
        ep.evaluate_model([], ans)
    with pytest.raises(ValueError):
        ep.evaluate_model(qs + qs[:1], ans)
    with pytest.raises(ValueError):
        ep.evaluate_model(qs, ans, engine="slow")


def test_bootstrap_engines_agree_and_bracket_the_estimate():
    qs, ans = _bench()
    fast = ep.evaluate_model(qs, ans, n_resamples=200, seed=7)
    slow = ep.evaluate_model(qs, ans, n_resamples=200, seed=7, engine="cluster_bootstrap")
    for task in TASKS:
        for m in ("ba", "f1") if "traversability" in task else ("vpr", "sr", "spl"):
            a, b = fast["tasks"][task][m], slow["tasks"][task][m]
            assert a["estimate"] == pytest.approx(b["estimate"])
            for k in ("low", "high"):
                assert (a[k] is None) == (b[k] is None)
                if a[k] is not None:
                    assert a[k] == pytest.approx(b[k])
            assert a["n_undefined"] == b["n_undefined"]
    # embodied_traversability has one scene group: every resample is the sample itself
    e = fast["tasks"]["embodied_traversability"]["ba"]
    assert e["low"] == e["high"] == e["estimate"] == pytest.approx(50.0)
    # point_path groups A (SPL 7/13) and B (0): resamples give 0, 7/26 or 7/13 (x100)
    pp = fast["tasks"]["point_path"]["spl"]
    assert pp["low"] == pytest.approx(0.0) and pp["high"] == pytest.approx(100 * 7 / 13)
    sc = fast["score"]
    assert sc["low"] <= sc["estimate"] <= sc["high"]
    assert sc["estimate"] == pytest.approx(slow["score"]["estimate"])


def test_cluster_draws_match_generator_and_counts():
    d = ep.ClusterDraws(["b", "a", "b", "c"], n_resamples=5, seed=3)
    assert [list(g) for g in d.groups] == [[0, 2], [1], [3]]
    rng = np.random.default_rng(3)
    for b in range(5):
        assert list(d.counts[b]) == list(np.bincount(rng.integers(0, 3, 3), minlength=3))
    assert d.counts.sum(1).tolist() == [3.0] * 5 and d.n == 4


def test_item_table_sums_and_matrix():
    qs, ans = _bench()
    outs = [ep.evaluate(q, ans[q.question_id]) for q in qs]
    t = ep.ItemTable(qs, outs)
    s = t.sums(np.arange(7))
    assert s["n"].tolist() == [2, 1, 2, 1, 1]
    assert s["tp"].tolist() == [5, 3, 0, 0, 0] and s["success"].tolist() == [0, 0, 1, 0, 1]
    s2 = t.sums(np.array([0, 0]), ("tp",))
    assert set(s2) == {"tp", "n"} and s2["tp"][0] == 4
    X = t.matrix(np.array([3]))
    assert X.shape == (1, 40)
    assert X[0, 16:24].tolist() == [0, 0, 0, 0, 1, 1, pytest.approx(7 / 13), 1]
    assert X[0, :16].sum() == 0 and X[0, 24:].sum() == 0
    assert t.score(np.arange(7)) == pytest.approx(20 * (2 / 3 + 1.5))
    assert math.isnan(t.score(np.array([0, 1])))
    assert t.task_stat("point_path", "spl")(np.array([3, 4])) == pytest.approx(100 * 7 / 26)
    assert t.task_stat("point_traversability", "ba")(np.array([0])) == pytest.approx(100 * 2 / 3)
    with pytest.raises(ValueError):
        ep.ItemTable(qs, outs[:-1])


def test_iter_outcomes():
    qs, ans = _bench()
    pairs = list(ep.iter_outcomes(qs[:2], ans))
    assert [q.question_id for q, _ in pairs] == ["pt1", "pt2"] and pairs[1][1].tp == 3


# ---------------------------------------------------------------- point estimates that are undefined

def test_point_estimates_without_resamples_have_no_interval_and_nan_is_none():
    # every displayed id is a positive: TNR = 0/0 is undefined, so BA is undefined (None, not NaN);
    # F1 = 2*3 / (2*3 + 0 + 0) = 100 %
    qs = [tq("t1", positives=(1, 2, 3), ids=(1, 2, 3))]
    r = ep.evaluate_model(qs, {"t1": "[1, 2, 3]"}, n_resamples=0)
    e = r["tasks"]["point_traversability"]
    assert e["ba"] == {"estimate": None, "low": None, "high": None, "n_undefined": 0}
    assert e["f1"] == {"estimate": 100.0, "low": None, "high": None, "n_undefined": 0}
    assert e["pooled"]["tnr"] is None and e["pooled"]["tpr"] == 100.0
    # a task without questions: no interval either, n_undefined stays 0
    assert r["tasks"]["point_path"]["sr"] == {"estimate": None, "low": None, "high": None, "n_undefined": 0}


def test_item_table_sums_accept_n_among_the_columns():
    qs, ans = _bench()
    t = ep.ItemTable(qs, [ep.evaluate(q, ans[q.question_id]) for q in qs])
    s = t.sums(np.arange(7), ("n", "success"))
    assert set(s) == {"n", "success"}
    assert s["n"].tolist() == [2, 1, 2, 1, 1] and s["success"].tolist() == [0, 0, 1, 0, 1]


def test_vec_of_empty_classes_is_nan_without_numpy_warnings():
    import warnings

    # block 1 (embodied_traversability) holds tp fp fn tn = 2 0 0 0; block 2 (point_path) n = 0
    R = np.zeros((4, 40))
    R[0, 8:12] = [2, 0, 0, 0]
    R[1, 8:12] = [0, 1, 0, 3]          # no positives: TPR undefined
    R[2, 8:12] = [1, 0, 0, 1]          # one positive, one negative, both right: BA 100
    R[2, 16:24] = [0, 0, 0, 0, 1, 1, 0.5, 1]
    R[3, 8:12] = [0, 0, 0, 5]          # nothing positive, nothing predicted: F1 = 1 by definition
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # 0/0 must stay silent (errstate), not warn per resample
        ba = ep._vec("ba", R, 1)
        f1 = ep._vec("f1", R, 1)
        sr = ep._vec("sr", R, 2)
    assert math.isnan(ba[0]) and math.isnan(ba[1])   # TNR 0/0 in row 0, TPR 0/0 in row 1
    assert ba[2] == 100.0 and math.isnan(ba[3])
    assert f1.tolist() == [100.0, 0.0, 100.0, 100.0]  # 2*2/(4+0+0) ; 0/(0+1+0) ; 2/(2+0+0) ; 0/0 -> 1
    assert math.isnan(sr[0]) and math.isnan(sr[1]) and sr[2] == 100.0
    assert ep._vec("vpr", R, 2)[2] == 100.0 and ep._vec("spl", R, 2)[2] == 50.0


def test_cluster_draws_interval_by_hand_and_its_confidence():
    # two clusters with SR 1 and 0 (one route item each, point_path block 2): a resample holds
    # both (SR 0.5, probability 1/2), A twice (1) or B twice (0). Percentiles of those replicates:
    X = np.zeros((2, 40))
    X[0, 16:24] = [0, 0, 0, 0, 1, 1, 1, 1]
    X[1, 16:24] = [0, 0, 0, 0, 1, 0, 0, 1]
    d = ep.ClusterDraws(["A", "B"], n_resamples=400, seed=1)
    reps = 100 * (d.counts[:, 0]) / 2            # resample SR (%) = copies of A / 2
    wide = d.ci(X, lambda R: ep._vec("sr", R, 2))
    narrow = d.ci(X, lambda R: ep._vec("sr", R, 2), confidence=0.2)
    assert wide == {"estimate": 50.0, "low": 0.0, "high": 100.0, "n_undefined": 0}
    assert narrow["low"] == narrow["high"] == 50.0          # the middle 20 % are all SR 50
    assert narrow["low"] == float(np.quantile(reps, 0.4)) and wide["low"] == float(np.quantile(reps, 0.025))


def test_cluster_draws_of_no_items():
    d = ep.ClusterDraws([], n_resamples=3, seed=0)
    assert d.counts.shape == (3, 0) and d.n == 0
    out = d.ci(np.zeros((0, 40)), lambda R: ep._vec("sr", R, 2))
    assert out == {"estimate": None, "low": None, "high": None, "n_undefined": 3}


def test_self_loop_is_illegal_even_if_the_graph_lists_it():
    # the contract: a repeated consecutive id is never a legal direct edge, whatever legal_edges says
    q = rq().model_copy(update={"legal_edges": EDGES + [[2, 2]]})
    o = ep.evaluate_route(q, "[1, 2, 2, 3]")
    assert o.stage == "illegal_edge" and o.illegal_edges == [(2, 2)] and not o.valid and o.spl == 0.0
    assert ep.evaluate_route(q, "[1, 2, 3]").success


def test_route_metrics_of_no_outcomes_has_the_same_keys():
    full = ep.route_metrics([ep.evaluate_route(rq(), "[1, 2, 3]")])
    empty = ep.route_metrics([])
    assert list(empty) == list(full) == [
        "vpr", "sr", "spl", "evaluable", "endpoint_hit", "first_edge_legal", "full_route_legal",
        "has_illegal_edge", "illegal_later_given_first_legal", "illegal_later_given_first_and_end"]
    assert all(math.isnan(v) for v in empty.values())


def test_broken_question_messages_name_the_question_and_the_fault():
    # these reach `scenebench score`'s one-line error for a broken export: they must say which
    # question and what is wrong
    def msg(fn, *a, **k):
        with pytest.raises(ValueError) as e:
            fn(*a, **k)
        return str(e.value)

    assert msg(ep.evaluate_traversability, rq(qid="r7"), "[1]") == \
        "question r7: task 'point_path' is not a traversability task"
    assert msg(ep.evaluate_traversability, tq(qid="t7", positives=(1, 9, 8)), "[1]") == \
        "question t7: positives [8, 9] are not displayed"
    assert msg(ep.evaluate_route, tq(qid="t8"), "[1]") == \
        "question t8: task 'point_traversability' is not a route task"
    assert msg(ep.evaluate_route, rq(qid="r8", start=None), "[1]") == "route question r8 has no start_id"
    assert msg(ep.evaluate_route, rq(qid="r9", goals=()), "[1]") == "route question r9 has no goal_ids"
    assert msg(ep.route_length_m, rq(qid="r10"), [1, 9]) == "question r10: no world point for display id 9"
    assert msg(ep.evaluate_route, rq(qid="r11", shortest=-0.5), "[1, 2, 3]") == \
        "question r11: shortest_m -0.5 is not a length"
    assert msg(ep.evaluate_route, rq(qid="r12", shortest=None, reference=()), "[1, 2, 3]") == \
        "route question r12 has neither shortest_m nor reference_route (SPL needs l_i)"
    q = rq(qid="r13", display=[1, 2, 3, 4, 5], goals=(5,)).model_copy(update={"legal_edges": EDGES + [[1, 5]]})
    assert msg(ep.evaluate_route, q, "[1, 5]") == "question r13: a route id lacks a world point"
    assert msg(ep.ItemTable, [rq()], []) == "one outcome per question"
    assert msg(ep.evaluate_model, [], {}) == "no questions to score"
    assert msg(ep.evaluate_model, [rq(), rq()], {}) == "question ids must be unique"
    assert msg(ep.evaluate_model, [rq()], {}, engine="slow") == "unknown bootstrap engine 'slow'"


def test_format_failure_keeps_what_was_parsed():
    # an empty list was parsed (ids []), prose was not (ids None): per-question dumps tell them apart
    assert ep.evaluate_route(rq(), "Answer: []").ids == []
    assert ep.evaluate_route(rq(), "no idea").ids is None
    assert ep.evaluate_route(rq(), None).ids is None


# ---------------------------------------------------------------- Table S12 buckets and the bootstrap engines

def test_by_reference_edges_buckets_and_counts():
    # references of 0 stored ids, 1 id (no edge), 2 edges, 3 and 4 edges; answers: two illegal edges (1-3 is
    # not a legal edge) in the ">=3" bucket, one success with 2 edges
    qs = [rq("a", reference=()), rq("b", reference=(1,)), rq("c"), rq("d", reference=(1, 2, 1, 2)),
          rq("e", reference=(1, 2, 1, 2, 3))]
    outs = [ep.evaluate(q, a) for q, a in zip(qs, ["[1, 2, 3]", "[1, 3]", "[1, 2, 3]", "[1, 3]", "[1, 3]"])]
    assert [o.has_illegal_edge for o in outs] == [False, True, False, True, True]
    assert ep._by_reference_edges(qs, outs) == {
        "0": {"n": 2, "endpoint_hit": 2, "success": 1, "illegal_edge": 1},
        "2": {"n": 1, "endpoint_hit": 1, "success": 1, "illegal_edge": 0},
        ">=3": {"n": 2, "endpoint_hit": 2, "success": 0, "illegal_edge": 2}}


def test_no_resampling_at_n_resamples_0_and_each_engine_alone(monkeypatch):
    """n_resamples <= 0 gives point estimates without drawing; "fast" draws with ClusterDraws only,
    "cluster_bootstrap" with the generic helper only."""
    qs, ans = _bench()

    def forbidden(*a, **k):
        raise AssertionError("this engine must not run")

    with monkeypatch.context() as m:
        m.setattr(ep, "ClusterDraws", forbidden)
        m.setattr(ep, "cluster_bootstrap", forbidden)
        for n in (0, -1):
            r = ep.evaluate_model(qs, ans, n_resamples=n)
            assert r["tasks"]["point_path"]["spl"] == {"estimate": pytest.approx(100 * 7 / 26), "low": None,
                                                        "high": None, "n_undefined": 0}
    with monkeypatch.context() as m:
        m.setattr(ep, "cluster_bootstrap", forbidden)
        assert ep.evaluate_model(qs, ans, n_resamples=20)["tasks"]["point_path"]["spl"]["low"] is not None
    with monkeypatch.context() as m:
        m.setattr(ep, "ClusterDraws", forbidden)
        r = ep.evaluate_model(qs, ans, n_resamples=20, engine="cluster_bootstrap")
        assert r["tasks"]["point_path"]["spl"]["low"] is not None


def test_one_resample_and_the_confidence_level():
    qs, ans = _bench()
    # one resample is an interval already: embodied_traversability has one scene group, so it is the sample
    e = ep.evaluate_model(qs, ans, n_resamples=1)["tasks"]["embodied_traversability"]["ba"]
    assert e == {"estimate": 50.0, "low": 50.0, "high": 50.0, "n_undefined": 0}
    # point_path SPL over groups A (7/13) and B (0): a resample gives 0, 7/26 or 7/13 with odds 1/4, 1/2, 1/4,
    # so a 40 % interval (30th..70th percentile) is 7/26 at both ends, a 95 % one spans 0..7/13
    for engine in ("fast", "cluster_bootstrap"):
        narrow = ep.evaluate_model(qs, ans, n_resamples=400, seed=7, confidence=0.4, engine=engine)
        assert narrow["tasks"]["point_path"]["spl"]["low"] == pytest.approx(100 * 7 / 26)
        assert narrow["tasks"]["point_path"]["spl"]["high"] == pytest.approx(100 * 7 / 26)
        wide = ep.evaluate_model(qs, ans, n_resamples=400, seed=7, engine=engine)["tasks"]["point_path"]["spl"]
        assert (wide["low"], wide["high"]) == (pytest.approx(0.0), pytest.approx(100 * 7 / 13))


def test_route_diagnostics_and_single_id_answers():
    qs, ans = _bench()
    d = ep.evaluate_model(qs, ans, n_resamples=0)["tasks"]["point_path"]["diagnostics"]
    # pp1 [1, 2, 1, 4, 3]: legal, reaches 3 (13 m against 7); pp2 [1, 3]: 1-3 is no edge, ends on the goal
    assert d == {"vpr": 50.0, "sr": 50.0, "spl": pytest.approx(100 * 7 / 26), "evaluable": 100.0,
                 "endpoint_hit": 100.0, "first_edge_legal": 50.0, "full_route_legal": 50.0,
                 "has_illegal_edge": 50.0, "illegal_later_given_first_legal": 0.0,
                 "illegal_later_given_first_and_end": 0.0}
    # single_id counts answers naming exactly one id (Figure 3's "start only" failures); no ids is a format failure
    rs = [rq("s1"), rq("s2"), rq("s3"), rq("s4")]
    r = ep.evaluate_model(rs, {"s1": "[1]", "s2": "[3]", "s3": "[1, 3]", "s4": "[]"}, n_resamples=0)
    assert r["tasks"]["point_path"]["single_id"] == 2


def test_score_stays_undefined_with_a_task_missing_also_when_resampling():
    qs, ans = _bench()
    r = ep.evaluate_model(qs[:4], ans, n_resamples=20)
    assert r["score_missing_tasks"] == ["embodied_path", "intent_path"]
    assert r["score"] == {"estimate": None, "low": None, "high": None, "n_undefined": 0}


def test_empty_item_table_sums_to_zero_per_task():
    t = ep.ItemTable([], [])
    s = t.sums(np.zeros(0, dtype=np.intp))
    assert s["n"].tolist() == [0.0] * len(TASKS) and s["spl"].tolist() == [0.0] * len(TASKS)
    assert t.matrix(np.zeros(0, dtype=np.intp)).shape == (0, 8 * len(TASKS))


def test_route_length_is_on_the_floor_plane_from_xy_or_xyz_points():
    # 1 (0, 0) -> 2 (3, 0) -> 3 (3, 4): 7 m whatever the heights; x, y alone is enough; one coordinate is not
    q = rq(world={1: (0, 0), 2: (3, 0), 3: (3, 4), 4: (0, 4)})
    q3 = q.model_copy(update={"waypoint_world": {"1": [0.0, 0.0, 0.0], "2": [3.0, 0.0, 5.0], "3": [3.0, 4.0, -2.0]}})
    assert ep.route_length_m(q3, [1, 2, 3]) == 7.0
    q2 = q.model_copy(update={"waypoint_world": {"1": [0.0, 0.0], "2": [3.0, 0.0], "3": [3.0, 4.0]}})
    assert ep.route_length_m(q2, [1, 2, 3]) == 7.0
    q1 = q.model_copy(update={"waypoint_world": {"1": [0.0], "2": [3.0, 0.0]}})
    with pytest.raises(ValueError, match="no world point for display id 1"):
        ep.route_length_m(q1, [1, 2])


def test_letters_never_count_as_brackets():
    # the depth guard counts only '[' and '{': prose of any letters before the answer does not trip it
    assert ep.parse_id_list("X" * (ep.MAX_DEPTH + 5) + " so: [1, 2]") == [1, 2]


def test_bracket_depth_guard_at_its_limit():
    # greatest rise of opens minus closes, '[' and '{' up, ']' and '}' down (never below 0), letters ignored
    L = ep.MAX_DEPTH
    assert ep._shallow("[" * L) and not ep._shallow("[" * (L + 1))
    assert not ep._shallow("[X" * (L + 1))                       # letters do not close
    assert ep._shallow("[[]" + "[" * (L - 1)) and not ep._shallow("[[]" + "[" * L)   # one close undoes one open
    assert ep._shallow("]]]" + "[" * L) and ep._shallow("{" * L + "}" + "[")


def test_scan_resumes_one_character_after_a_failed_array():
    # a '[' that opens no JSON array is skipped by one character: the array right behind it still counts,
    # and the scan goes on at the next '[' (not the last), so a nested answer after it stays nested
    assert ep.parse_id_list("[[1, 2]") == [1, 2]
    assert ep._json_arrays("[x [1, [2]] [3]") == [[1, [2]], [3]]
    assert ep.parse_id_list("[x [1, [2]]") is None
