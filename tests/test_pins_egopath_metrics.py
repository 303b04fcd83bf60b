"""Pinned values for scorers/egopath_metrics.py: Table S5 controls by hand, prediction bookkeeping
and warnings, the dataset summary and the baselines block."""
from __future__ import annotations

import pytest

from scorers import egopath_metrics as em
from tests.test_pins_egopath import rq, tq


def _qs():
    return [tq("pt", "point_traversability", "A"), tq("et", "embodied_traversability", "B"),
            rq("pp1", "point_path", "A"), rq("pp2", "point_path", "B", strict=False),
            rq("ep", "embodied_path", "A"), rq("ip", "intent_path", "B", strict=False)]


def test_control_metrics_by_hand():
    qs = _qs()
    controls = {"point_path_text_only": [rq("pp1@t"), rq("pp2@t")],
                "point_path_mismatched_overlay": [rq("pp1@m")],
                "embodied_path_text_only": [rq("ep@t")],
                "intent_path_text_only": [rq("ip@t")]}
    replies = {"pp1": "[1, 2, 3]", "pp2": "[1, 3]", "pp1@t": "[1, 2, 3]", "pp2@t": "[1, 2, 3]",
               "pp1@m": "[1, 2]", "ep": "[1, 4, 3]", "ip": "[1, 2, 3]"}
    out = em.control_metrics(qs, controls, replies)
    pp = out["point_path"]
    assert pp == {"text_only": 100.0, "n_text_only": 2, "mismatched_overlay": 0.0, "n_mismatched_overlay": 1,
                  "full": 50.0, "n_full": 2}
    # embodied text_only never answered: not scored, no row
    assert "embodied_path" not in out and "intent_path" not in out
    replies["ep@t"] = None                       # answered key present (null) -> scored, wrong
    out = em.control_metrics(qs, controls, replies)
    assert out["embodied_path"] == {"text_only": 0.0, "n_text_only": 1, "mismatched_overlay": None,
                                    "full": 100.0, "n_full": 1}
    orphan = em.control_metrics(qs, {"intent_path_text_only": [rq("zz@t")]}, {"zz@t": "[1, 2, 3]"})
    assert orphan["intent_path"]["full"] is None and orphan["intent_path"]["n_full"] == 0
    assert em.control_metrics(qs, {}, replies) == {}


def test_score_predictions_bookkeeping_and_warnings():
    qs = _qs()
    replies = {"pt": "[1, 2, 3]", "pp1": "[1, 2, 3]", "pp2": None, "ep": 7, "extra1": "[1]", "extra2": "[1]",
               "extra3": "[1]", "extra4": "[1]"}
    r = em.score_predictions(qs, {"m1": replies, "m0": {q.question_id: q.answer for q in qs}}, n_resamples=0,
                             seed=9, dataset="dsdir", split="benchmark")
    assert r["benchmark"] == "egopathbench" and r["model_order"] == ["m1", "m0"]
    assert r["dataset"] == {"path": "dsdir", "split": "benchmark", "n_questions": 6,
                            "per_task": {"point_traversability": 1, "embodied_traversability": 1, "point_path": 2,
                                         "embodied_path": 1, "intent_path": 1},
                            "n_scene_groups": 2,
                            "strict_route_questions": {"point_path": 1, "embodied_path": 1, "intent_path": 0}}
    p = r["models"]["m1"]["predictions"]
    assert p == {"matched": 4, "missing": 2, "missing_ids": ["et", "ip"], "unknown": 4,
                 "unknown_ids": ["extra1", "extra2", "extra3", "extra4"], "null_replies": 1, "non_text_replies": 1}
    assert r["warnings"] == ["m1: 4 id(s) not in the dataset ignored (e.g. extra1, extra2, extra3)",
                             "m1: 2 of 6 question(s) have no prediction (scored wrong)",
                             "m1: 1 null repl(ies) (scored wrong)",
                             "m1: 1 reply value(s) are not text (scored as format failures)"]
    assert "outcomes" not in r["models"]["m1"] and "controls" not in r["models"]["m1"]
    assert r["models"]["m0"]["score"]["estimate"] == pytest.approx(100.0)
    assert r["settings"]["seed"] == 9 and r["settings"]["n_resamples"] == 0 and r["settings"]["confidence"] == 0.95
    assert r["settings"]["units"] == "percent"
    assert set(r["baselines"]) == {"baseline:reference", "baseline:random", "baseline:all-candidates",
                                   "baseline:straight-to-nearest-goal"}
    assert r["baselines"]["baseline:reference"]["score"]["estimate"] == pytest.approx(100.0)
    ac = r["baselines"]["baseline:all-candidates"]["tasks"]["point_traversability"]["ba"]["estimate"]
    assert ac == pytest.approx(50.0)
    assert "outcomes" not in r["baselines"]["baseline:random"]
    assert r["baselines"]["baseline:reference"]["score"]["low"] is None


def test_score_predictions_controls_and_options():
    qs = _qs()
    controls = {"point_path_text_only": [rq("pp1@t")]}
    r = em.score_predictions(qs, {"m": {"pp1": "[1, 2, 3]", "pp1@t": "[1, 2]"}}, n_resamples=0, baselines=False,
                             controls=controls)
    assert r["baselines"] == {} and r["models"]["m"]["controls"]["point_path"]["text_only"] == 0.0
    assert r["models"]["m"]["predictions"]["unknown"] == 0            # control ids are not unknown
    assert r["warnings"] == ["m: 5 of 6 question(s) have no prediction (scored wrong)"]
    with pytest.raises(ValueError, match="no questions"):
        em.score_predictions([], {})


def test_settings_block_is_the_documented_contract():
    # metrics.json "settings": the rules a reader needs to reproduce the numbers, word for word
    r = em.score_predictions(_qs(), {}, n_resamples=0, baselines=False)
    assert r["settings"] == {
        "seed": 20260717, "n_resamples": 0, "confidence": 0.95,
        "bootstrap": "scene-cluster percentile bootstrap over scene_group; per-task metrics resample that "
                     "task's groups; the EgoPath Score resamples groups jointly over all five tasks",
        "traversability": "confusion matrix pooled over all candidates of a task (micro BA/F1); "
                          "undisplayed predicted ids are false positives; unparseable = empty set",
        "route": "Table S4 order format > invalid_id > wrong_start > illegal_edge > wrong_goal; undirected "
                 "edges; repeated consecutive id = illegal self-loop; single-id route = no edge (valid; "
                 "success iff start is a goal); SPL = S*l/max(l,p) on the floor plane, l=p=0 -> S",
        "missing": "a missing, null or non-text prediction is a format failure",
        "units": "percent"}
    assert r["model_order"] == [] and r["models"] == {} and r["warnings"] == []
    assert r["dataset"]["path"] == "" and r["dataset"]["split"] == "benchmark"


def test_score_predictions_defaults_are_the_papers():
    import inspect
    sig = inspect.signature(em.score_predictions)
    assert sig.parameters["n_resamples"].default == 10_000 and sig.parameters["seed"].default == 20260717
    assert sig.parameters["baselines"].default is True


def test_score_result_is_the_typed_dict():
    qs = _qs()
    typed = em.score_result(qs, {"m0": {q.question_id: q.answer for q in qs}}, n_resamples=0, baselines=False)
    assert typed.models["m0"].score.estimate == pytest.approx(100.0)
    assert typed.benchmark == "egopathbench"


def test_id_lists_are_capped_at_twenty():
    qs = [rq(f"q{i:02d}") for i in range(22)]
    replies = {f"x{i:02d}": "[1]" for i in range(21)}
    p = em.score_predictions(qs, {"m": replies}, n_resamples=0, baselines=False)["models"]["m"]["predictions"]
    assert p["missing"] == 22 and p["missing_ids"] == [f"q{i:02d}" for i in range(20)]
    assert p["unknown"] == 21 and p["unknown_ids"] == [f"x{i:02d}" for i in range(20)]
    assert p["matched"] == 0


def test_per_task_counts_zero_missing_tasks_and_messages():
    r = em.score_predictions([rq("only")], {}, n_resamples=0, baselines=False)
    assert r["dataset"]["per_task"] == {"point_traversability": 0, "embodied_traversability": 0, "point_path": 1,
                                        "embodied_path": 0, "intent_path": 0}
    with pytest.raises(em.EgoPathDataError) as e:
        em.score_predictions([], {})
    assert str(e.value) == "no questions to score"
    typed = em.score_result([rq("only")], {"m": {"only": "[1, 2, 3]"}}, n_resamples=0, baselines=False, seed=5)
    assert typed.settings.n_resamples == 0 and typed.settings.seed == 5
