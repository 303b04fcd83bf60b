"""The App. B audits (packagers/egopath_audits.py) on tests/test_egopath_export.py's audit run
(4 x 3 m floor, a wall across x = 2 with a 0.9 m gap, a box at the far end; waypoints 1..6 on
y = 0 except 5 at (1.5, 1)): the illegal edge each question is audited on, worked out from the
waypoint coordinates; the obstruction outcome for a camera that looks down the room; the
sensitivity rows counted by hand; the inputs refused."""
from __future__ import annotations

import json
import os

os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"
from pathlib import Path

import numpy as np
import pytest

from formats import atomic
from packagers import egopath_audits as A
from packagers.egopath_audits import AuditError
from test_egopath_export import BENCH, H, W, _audit_run

LOOK_ALONG_X = [[0, 0, 1, 0], [-1, 0, 0, 0], [0, -1, 0, 1.2], [0, 0, 0, 1]]   # OpenCV axes, camera at (0, 0, 1.2)


@pytest.fixture(scope="module")
def audit(tmp_path_factory):
    from packagers.egopath import export_egopathbench

    tmp = tmp_path_factory.mktemp("audit")
    run = _audit_run(tmp)
    root = export_egopathbench([run], tmp / "ds", dict(BENCH, splits={"benchmark": 1.0})).root
    return run, root


def _copy_run(run: Path, dest: Path, camera=None, fill=None) -> Path:
    """The audit run with its record's camera and its passes replaced."""
    import shutil

    new = dest / "egopath"
    shutil.copytree(run, new)
    rec = json.loads((new / "records.jsonl").read_text())
    if camera is not None:
        rec["camera"]["cam_to_world"] = camera
    (new / "records.jsonl").write_text(json.dumps(rec) + "\n")
    if fill is not None:
        idx, depth = fill
        atomic.save_npz(new / "passes" / "f-0.npz", depth=np.full((H, W), depth, np.float32),
                        object_index=np.full((H, W), idx, np.int32))
    return new


def test_variants_are_table_s8s():
    assert A.SENSITIVITY_VARIANTS == {
        "nominal": {}, "radius_0.25": {"body_radius_m": 0.25}, "radius_0.35": {"body_radius_m": 0.35},
        "grid_0.04": {"grid_m": 0.04}, "grid_0.06": {"grid_m": 0.06}, "ring_0.05": {"goal_ring_m": 0.05},
        "ring_0.15": {"goal_ring_m": 0.15}}


def test_route_questions_and_their_labels(audit):
    _, root = audit
    qs = A.route_questions(root)
    assert [q.question_id for q in qs] == ["f-0/embodied_path/0", "f-0/point_path/0"]   # sorted by id
    emb, pt = qs
    assert emb.legal_edges == [[1, 2], [1, 3], [1, 4], [1, 5], [2, 3], [2, 4], [2, 5], [3, 4]]
    assert (emb.goal_ids, emb.reference_route) == ([4], [1, 4])
    assert (pt.goal_ids, pt.reference_route) == ([6], [1, 6])
    assert A.route_questions(root, splits=("train",)) == []
    assert [q.question_id for q in A.route_questions(root, splits=("train", "benchmark"))] == [
        "f-0/embodied_path/0", "f-0/point_path/0"]


def test_nominal_illegal_edge_is_the_shortest_non_edge(audit):
    """Embodied: the non-edges are 1-6 (3.03 m), 2-6 (2.03), 3-5 (1.41), 3-6 (1.03), 4-5 (2.02),
    4-6 (0.28), 5-6 (2.26): 4-6. Point: 1-6, 2-6, 3-6 and 4-6 are legal, so 3-5 (1.41) beats 4-5
    (2.02) and 5-6 (2.26)."""
    emb, pt = A.route_questions(audit[1])
    assert A.nominal_illegal_edge(emb) == (4, 6)
    assert A.nominal_illegal_edge(pt) == (3, 5)
    # edges are unordered: [6, 4] is the same edge, so the next shortest (3-6, 1.03 m) is taken
    assert A.nominal_illegal_edge(emb.model_copy(update={"legal_edges": emb.legal_edges + [[6, 4]]})) == (3, 6)
    # a tie in length goes to the smaller ids: 1-2 and 2-3 are both 1 m
    line = {"1": [0.0, 0.0, 0.0], "2": [1.0, 0.0, 0.0], "3": [2.0, 0.0, 0.0]}
    tie = emb.model_copy(update={"waypoint_world": line, "legal_edges": [[1, 3]]})
    assert A.nominal_illegal_edge(tie) == (1, 2)
    assert A.nominal_illegal_edge(tie.model_copy(update={"legal_edges": [[2, 1], [3, 1]]})) == (2, 3)
    complete = tie.model_copy(update={"legal_edges": [[1, 2], [1, 3], [2, 3]]})
    assert A.nominal_illegal_edge(complete) is None


def test_obstruction_without_predictions(audit, tmp_path):
    """The shipped camera looks along +y and sees neither edge: inconclusive. Looking down the
    room (+x) with the box's id (13) at 2 m in every pixel, the 4-6 corridor (x 3.25-3.53) is
    explained by the index pass and the 3-5 corridor (x 1.5-2.5) by depth; the wall's id (11)
    is not an obstacle for 4-6, the floor's id (1) explains neither."""
    run, root = audit
    o = A.obstruction_audit([run], root)
    assert o["source"] == "route sheet non-edges (shortest per question)"
    assert (o["radius_m"], o["step_m"], o["splits"]) == (0.3, 0.05, ["benchmark"])
    assert o["cases"] == [{"id": "f-0/embodied_path/0", "edge": [4, 6], "outcome": "inconclusive"},
                          {"id": "f-0/point_path/0", "edge": [3, 5], "outcome": "inconclusive"}]
    assert o["total"]["n"] == 2 and o["total"]["inconclusive"] == 2 and o["total"]["inconclusive_share"] == 1.0
    assert sorted(o["per_task"]) == ["embodied_path", "point_path"]
    assert o["per_task"]["point_path"]["n"] == 1

    outcomes = {}
    for i, fill in enumerate([(13, 2.0), (11, 2.0), (1, 2.0)]):
        r = _copy_run(run, tmp_path / str(i), LOOK_ALONG_X, fill)
        outcomes[fill[0]] = [c["outcome"] for c in A.obstruction_audit([r], root)["cases"]]
    assert outcomes == {13: ["index", "depth"], 11: ["inconclusive", "depth"], 1: ["inconclusive", "inconclusive"]}
    r = _copy_run(run, tmp_path / "box", LOOK_ALONG_X, (13, 2.0))
    o = A.obstruction_audit([r], root)
    assert (o["total"]["depth"], o["total"]["index"], o["total"]["explained"]) == (1, 1, 2)
    assert o["per_task"]["embodied_path"]["index"] == 1 and o["per_task"]["point_path"]["depth"] == 1


def _preds(path: Path, *lines) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_obstruction_of_predictions(audit, tmp_path):
    """[1, 5, 3, 4]: 1-5 is legal, 5-3 is its first illegal edge; [1, 2, 3, 4] for the point
    agent has only legal edges (it misses the goal): nothing to audit; an id the dataset does
    not hold is ignored."""
    run, root = audit
    preds = _preds(tmp_path / "p.jsonl", {"id": "f-0/embodied_path/0", "response": "[1, 5, 3, 4]", "model": "m1"},
                   {"id": "f-0/point_path/0", "answer": "[1, 2, 3, 4]"}, {"id": "zz", "answer": "[1, 9]"})
    assert A.load_predictions(preds) == [("f-0/embodied_path/0", "[1, 5, 3, 4]", "m1"),
                                         ("f-0/point_path/0", "[1, 2, 3, 4]", None), ("zz", "[1, 9]", None)]
    o = A.obstruction_audit([run], root, preds)
    assert o["source"] == str(preds)
    assert o["cases"] == [{"id": "f-0/embodied_path/0", "edge": [5, 3], "outcome": "inconclusive", "model": "m1"}]
    assert list(o["per_task"]) == ["embodied_path"] and o["total"]["n"] == 1
    # a repeated id (1, 1) and an id not on the sheet (9) are not audited edges: 5-3 still is
    preds2 = _preds(tmp_path / "p2.jsonl", {"id": "f-0/embodied_path/0", "response": "[1, 1, 9, 5, 3]"})
    cases = A.obstruction_audit([run], root, preds2)["cases"]
    assert [c["edge"] for c in cases] == [[5, 3]] and "model" not in cases[0]


def test_load_predictions_order_and_errors(tmp_path):
    p = _preds(tmp_path / "a.jsonl", {"id": "b", "response": "[2]"}, {"id": "a", "response": "[1]"})
    assert [x[0] for x in A.load_predictions(p)] == ["b", "a"]                     # file order, not id order
    ok = json.dumps({"id": "a", "response": "[1]"})
    # an undecodable line (not the last one, which would be a torn write) and an id-less line:
    # the first bad line is named
    for lines, n in (([ok, "not json", ok], 2), ([ok, json.dumps({"response": "[1]"}), "[]", ok], 2),
                     ([json.dumps({"id": 3}), ok], 1)):
        (tmp_path / "bad.jsonl").write_text("\n".join(lines) + "\n")
        with pytest.raises(AuditError, match=rf"bad\.jsonl:{n}: not a prediction line \(JSON object with a string `id`\)"):
            A.load_predictions(tmp_path / "bad.jsonl")
    with pytest.raises(AuditError, match="does not exist"):
        A.load_predictions(tmp_path / "none.jsonl")


def test_sensitivity_of_the_reference_answers(audit):
    """Two questions, each with a one-edge reference route (1-4 embodied, 1-6 point). At 0.35 m
    the body no longer fits the 0.9 m gap after the grid's margin: the embodied question loses
    its solution (Ref. 1/2), its edge 1-4 flips (1 of 2 edges) and its reference answer no longer
    succeeds (1 of 2); the point agent is unchanged by the body radius."""
    run, root = audit
    s = A.sensitivity_audit([run], root)
    assert s["predictions"] == "reference answers" and s["splits"] == ["benchmark"]
    assert list(s["variants"]) == list(A.SENSITIVITY_VARIANTS)
    base = {"edge_flip": 0.0, "success_flip": 0.0, "ref": 1.0, "n_questions": 2, "n_edges": 2, "n_predictions": 2}
    for name, row in s["variants"].items():
        assert row["params"] == A.SENSITIVITY_VARIANTS[name]
        expected = dict(base, ref=0.5, edge_flip=0.5, success_flip=0.5) if name == "radius_0.35" else base
        assert {k: v for k, v in row.items() if k != "params"} == expected, name


def test_sensitivity_of_predictions(audit, tmp_path):
    """Edges: embodied {1-4} + [1, 5, 3, 4]'s {1-5, 3-5, 3-4}; point {1-6} + [1, 2, 3, 4]'s
    {1-2, 2-3, 3-4}: 8. At 0.35 m the embodied 1-4 and 3-4 cross the gap and flip (2/8); 3-5 was
    illegal already and 1-5 stays on the near side. Neither prediction succeeds under either
    contract (an illegal edge; no goal reached), so no success flips."""
    run, root = audit
    preds = _preds(tmp_path / "p.jsonl", {"id": "f-0/embodied_path/0", "response": "[1, 5, 3, 4]"},
                   {"id": "f-0/point_path/0", "answer": "[1, 2, 3, 4]"}, {"id": "zz", "answer": "[1]"})
    s = A.sensitivity_audit([run], root, preds, variants={"nominal": {}, "r": {"body_radius_m": 0.35}})
    assert s["predictions"] == str(preds) and list(s["variants"]) == ["nominal", "r"]
    assert s["variants"]["r"] == {"params": {"body_radius_m": 0.35}, "ref": 0.5, "edge_flip": 0.25,
                                  "success_flip": 0.0, "n_questions": 2, "n_edges": 8, "n_predictions": 2}
    assert s["variants"]["nominal"]["edge_flip"] == 0.0 and s["variants"]["nominal"]["n_edges"] == 8
    # the reference answers replayed as predictions: success flips where the contract moved
    ref = _preds(tmp_path / "r.jsonl", {"id": "f-0/embodied_path/0", "response": "[1, 4]"},
                 {"id": "f-0/point_path/0", "response": "[1, 6]"}, {"id": "f-0/point_path/0", "response": "[1, 6]"})
    r = A.sensitivity_audit([run], root, ref, variants={"r": {"body_radius_m": 0.35}})["variants"]["r"]
    assert (r["success_flip"], r["n_predictions"], r["n_edges"]) == (0.5, 2, 2)
    # no route question in the asked splits is an error, not an empty table
    with pytest.raises(AuditError, match=r"no route questions in splits \['train'\]"):
        A.sensitivity_audit([run], root, splits=("train",))


def test_run_audits_writes_both_files(audit, tmp_path):
    run, root = audit
    written = A.run_audits([run], root, tmp_path / "a", splits=("benchmark",))
    assert written == [tmp_path / "a" / "obstruction.json", tmp_path / "a" / "sensitivity.json"]
    assert json.loads(written[0].read_text()) == A.obstruction_audit([run], root)
    sens = json.loads(written[1].read_text())
    assert sens["variants"]["radius_0.35"]["ref"] == 0.5 and sens["predictions"] == "reference answers"
    preds = _preds(tmp_path / "p.jsonl", {"id": "f-0/embodied_path/0", "response": "[1, 5, 3, 4]"})
    written = A.run_audits([run], root, tmp_path / "b", preds)
    assert json.loads(written[0].read_text())["cases"][0]["edge"] == [5, 3]
    assert json.loads(written[1].read_text())["predictions"] == str(preds)


def test_run_index(audit, tmp_path):
    run, _ = audit
    idx = A.RunIndex([run])
    assert list(idx.frames) == ["f-0"]
    d, rec, ann = idx.view("f-0")
    assert d == run and rec.scene_id == "scene-000" and ann.routes[0].target_object_id == 13
    assert idx.floor_wall_ids(run, "scene-000") == ({1}, {11, 12})
    assert sorted(idx.mesh(run, "scene-000").object_ids) == [1, 11, 12, 13]
    with pytest.raises(AuditError, match="frame f-9 is not an accepted view of the given runs"):
        idx.view("f-9")
    with pytest.raises(AuditError, match="scene-001.json: scene state missing"):
        idx.floor_wall_ids(run, "scene-001")
    with pytest.raises(AuditError, match="scene-001.npz: scene mesh missing"):
        idx.mesh(run, "scene-001")
    # a rejected view is not an audited frame
    rej = _copy_run(run, tmp_path / "rej")
    rec = json.loads((rej / "records.jsonl").read_text())
    (rej / "records.jsonl").write_text(json.dumps(dict(rec, verdict="reject")) + "\n")
    assert A.RunIndex([rej]).frames == {}
    # a scene state without a floor
    atomic.write_json(rej / "scenes" / "scene-000.json", {"objects": [{"id": 11, "category": "wall"}]})
    with pytest.raises(AuditError, match="no object of category 'floor'"):
        A.RunIndex([rej]).floor_wall_ids(rej, "scene-000")


def test_unreadable_passes_and_unknown_route(audit, tmp_path):
    run, root = audit
    bad = _copy_run(run, tmp_path / "bad")
    (bad / "passes" / "f-0.npz").write_bytes(b"not an npz")
    with pytest.raises(AuditError, match="passes unreadable"):
        A.obstruction_audit([bad], root)
    atomic.save_npz(bad / "passes" / "f-0.npz", depth=np.zeros((H, W), np.float32))   # no object_index
    with pytest.raises(AuditError, match="passes unreadable"):
        A.obstruction_audit([bad], root)
    q = A.route_questions(root)[0]
    _, rec, ann = A.RunIndex([run]).view("f-0")
    with pytest.raises(AuditError, match="f-0/embodied_path/0: route 7 not in the view's annotation"):
        A._variant_question(q.model_copy(update={"route_id": "7"}), ann, None, ann.params)


def test_nominal_illegal_edge_uses_floor_plane_distance(audit):
    """1-2 is 1 m apart in y (the z of 1 is ignored); 1-3 and 2-3 are 10.2 and 11.2 m."""
    q = A.route_questions(audit[1])[0]
    pts = {"1": [0.0, 5.0, 0.0], "2": [0.0, 6.0, 0.0], "3": [2.0, -5.0, 0.0]}
    assert A.nominal_illegal_edge(q.model_copy(update={"waypoint_world": pts, "legal_edges": []})) == (1, 2)


def test_audits_read_only_the_asked_splits(audit, tmp_path):
    run, root = audit
    o = A.obstruction_audit([run], root, splits=("train",))
    assert o["cases"] == [] and o["total"]["n"] == 0 and o["splits"] == ["train"]
    with pytest.raises(AuditError, match=r"no route questions in splits \['train'\]"):
        A.run_audits([run], root, tmp_path / "a", splits=("train",))


def test_sensitivity_grid_goals_and_no_predictions(audit, tmp_path):
    """A 0.20 m grid (each variant gets its own occupancy grid): the 0.10 m goal ring is half a
    cell, so neither question keeps a goal; both reference edges flip and both reference answers
    fail. A 0.30 m ring puts 4 (3.25, 0) among the point goals (nominal: 6 only), so the point
    prediction [1, 4] fails on the nominal contract and succeeds on that variant. Predictions for
    no dataset question: no success share (None), edges from the reference routes only."""
    run, root = audit
    s = A.sensitivity_audit([run], root, variants={"nominal": {}, "g": {"grid_m": 0.2}})["variants"]
    assert {k: s["g"][k] for k in ("ref", "edge_flip", "success_flip")} == {"ref": 0.0, "edge_flip": 1.0,
                                                                            "success_flip": 1.0}
    assert s["nominal"]["ref"] == 1.0
    preds = _preds(tmp_path / "p.jsonl", {"id": "f-0/point_path/0", "response": "[1, 4]"})
    r = A.sensitivity_audit([run], root, preds, variants={"ring": {"goal_ring_m": 0.3}})["variants"]["ring"]
    assert (r["success_flip"], r["n_predictions"], r["ref"]) == (1.0, 1, 1.0)
    none = _preds(tmp_path / "n.jsonl", {"id": "other", "response": "[1, 4]"})
    r = A.sensitivity_audit([run], root, none, variants={"n": {}})["variants"]["n"]
    assert (r["success_flip"], r["n_predictions"], r["n_edges"], r["edge_flip"]) == (None, 0, 2, 0.0)


def test_variant_without_a_target_footprint(audit):
    """A target with no footprint on the grid has no goal mask: no goals, no solution."""
    from geometry.occupancy import occupancy_from_mesh

    run, root = audit
    idx = A.RunIndex([run])
    _, rec, ann = idx.view("f-0")
    floor, _ = idx.floor_wall_ids(run, rec.scene_id)
    grid = occupancy_from_mesh(idx.mesh(run, rec.scene_id), floor, ann.params)
    q = A.route_questions(root)[1]
    unit = ann.routes[0].model_copy(update={"target_object_id": 99})
    vq, ok = A._variant_question(q, ann.model_copy(update={"routes": [unit]}), grid, ann.params)
    assert (vq.goal_ids, ok) == ([], False) and vq.legal_edges == sorted(q.legal_edges)


def test_paths_outside_the_run_are_named(audit, tmp_path):
    run, root = audit
    secret = tmp_path / "secret.npz"
    secret.write_bytes((run / "passes" / "f-0.npz").read_bytes())
    bad = _copy_run(run, tmp_path / "bad")
    rec = json.loads((bad / "records.jsonl").read_text())
    (bad / "records.jsonl").write_text(json.dumps(dict(rec, passes=str(secret))) + "\n")
    with pytest.raises(AuditError, match=rf"^f-0: passes '{secret}' resolves to .*, outside .*; refusing to read it$"):
        A.obstruction_audit([bad], root)
    idx = A.RunIndex([bad])
    (bad / "scenes" / "scene-000.json").unlink()
    (bad / "scenes" / "scene-000.json").symlink_to(tmp_path / "elsewhere.json")
    (tmp_path / "elsewhere.json").write_text("{}")
    with pytest.raises(AuditError, match=r"^scene 'scene-000': state 'scenes/scene-000\.json' resolves to .*outside"):
        idx.floor_wall_ids(bad, "scene-000")
    (bad / "scenes" / "scene-000.npz").unlink()
    (bad / "scenes" / "scene-000.npz").symlink_to(secret)
    with pytest.raises(AuditError, match=r"^scene 'scene-000': mesh 'scenes/scene-000\.npz' resolves to .*outside"):
        idx.mesh(bad, "scene-000")
