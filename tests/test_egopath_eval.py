"""EgoPathBench evaluator: Table S4 stages on a hand-drawn graph, App. A metrics, metrics.md §6
worked examples, parse robustness, baselines, scene-cluster bootstrap, overlays and an
end-to-end `scenebench score` on a tiny parquet export written here."""
from __future__ import annotations

import io
import json
import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from geometry.egopath_schema import ROUTE_TASKS, TASKS, TRAVERSABILITY_TASKS, Question, Waypoint
from scorers import egopath as ep
from scorers.egopath_baselines import (all_candidates, random_ids, reference_answers, straight_to_nearest_goal,
                                       write_predictions)
from scorers.egopath_overlay import contact_sheet, draw_candidates, draw_prediction, marker_radius
from scorers.egopath_report import (EgoPathDataError, load_prediction_file, load_questions, score_predictions,
                                    write_report)

# ---------------------------------------------------------------- a hand-drawn graph
#
#   4 ---- 5 ---- 6        y = 1        goal: 6
#   |      |      |
#   1 ---- 2 ---- 3        y = 0        start: 1
#   x=0    x=1    x=2
#
# Legal (undirected) edges: 1-2, 2-3, 1-4, 4-5, 5-6, 2-5, 3-6. Shortest legal route 1 -> 6 = 3 m.
WORLD = {1: (0, 0), 2: (1, 0), 3: (2, 0), 4: (0, 1), 5: (1, 1), 6: (2, 1)}
EDGES = [[1, 2], [2, 3], [1, 4], [4, 5], [5, 6], [2, 5], [3, 6]]
PIX = {i: [16.0 + 30 * x, 56.0 - 30 * y] for i, (x, y) in WORLD.items()}


def route_q(qid="r0", task="point_path", group="g0", goals=(6,), edges=EDGES, shortest=3.0, reference=(1, 2, 3, 6),
            strict=True, world=WORLD, start=1) -> Question:
    ids = sorted(world)
    return Question(question_id=qid, task=task, split="benchmark", scene_id=f"s-{group}", scene_group=group,
                    frame_id=f"f-{qid}", route_id=f"u-{qid}", system_prompt="sys", user_prompt="go",
                    display_ids=ids, waypoint_world={str(i): [float(x), float(y), 0.0] for i, (x, y) in world.items()},
                    waypoint_pixels={str(i): PIX.get(i, [5.0, 5.0]) for i in ids},
                    start_id=start, legal_edges=[list(e) for e in edges], goal_ids=list(goals),
                    reference_route=list(reference), shortest_m=shortest, target_text="the chair",
                    strict_visible=strict, answer=json.dumps(list(reference)))


def trav_q(qid="t0", task="point_traversability", group="g0", positives=(1, 2, 3), ids=range(1, 7)) -> Question:
    ids = list(ids)
    return Question(question_id=qid, task=task, split="benchmark", scene_id=f"s-{group}", scene_group=group,
                    frame_id=f"f-{qid}", system_prompt="sys", user_prompt="walkable?", display_ids=ids,
                    waypoint_world={str(i): [float(i), 0.0, 0.0] for i in ids},
                    waypoint_pixels={str(i): PIX.get(i, [5.0, 5.0]) for i in ids},
                    positives=list(positives), answer=json.dumps(sorted(positives)))


# ---------------------------------------------------------------- Table S4 stages

@pytest.mark.parametrize("text", [None, "no list here", "[1, 'a']", "[]", "[1.0, 2]", "[[1, 2]]", 17, ["1"]])
def test_format_stage(text):
    o = ep.evaluate_route(route_q(), text)
    assert o.stage == "format" and not o.valid and not o.success and o.spl == 0
    assert not o.endpoint_hit and not o.first_edge_legal and not o.evaluable


def test_invalid_id_stage_comes_before_start():
    for text in ("[1, 7, 6]", "[7, 1, 2, 3, 6]", "[0]"):
        o = ep.evaluate_route(route_q(), text)
        assert o.stage == "invalid_id" and not o.valid and not o.evaluable


def test_wrong_start_stage():
    o = ep.evaluate_route(route_q(), "[2, 3, 6]")
    assert o.stage == "wrong_start" and not o.valid and not o.success
    assert o.endpoint_hit and not o.first_edge_legal and o.evaluable


def test_illegal_edge_stage_and_diagnostics():
    o = ep.evaluate_route(route_q(), "[1, 3, 6]")          # 1-3 is not an edge
    assert o.stage == "illegal_edge" and o.illegal_edges == [(1, 3)] and not o.first_edge_legal
    assert o.endpoint_hit and not o.valid
    o = ep.evaluate_route(route_q(), "[1, 2, 6]")          # legal first edge, illegal later edge, right goal
    assert o.stage == "illegal_edge" and o.illegal_edges == [(2, 6)]
    assert o.first_edge_legal and o.endpoint_hit and o.has_illegal_edge


def test_repeated_consecutive_id_is_an_illegal_self_loop():
    o = ep.evaluate_route(route_q(), "[1, 2, 2, 3, 6]")
    assert o.stage == "illegal_edge" and o.illegal_edges == [(2, 2)]


def test_wrong_goal_stage_is_valid_but_not_success():
    o = ep.evaluate_route(route_q(), "Route: [1, 2, 3]")
    assert o.stage == "wrong_goal" and o.valid and not o.success and o.spl == 0 and not o.endpoint_hit


def test_single_id_route():
    o = ep.evaluate_route(route_q(), "[1]")
    assert o.stage == "wrong_goal" and o.valid and not o.first_edge_legal
    o = ep.evaluate_route(route_q(goals=(1,), shortest=0.0, reference=(1,)), "[1]")
    assert o.success and o.spl == 1.0                        # l = p = 0 -> S_i


def test_success_and_spl_detour_with_reverse_edges():
    o = ep.evaluate_route(route_q(), "```json\n[1, 2, 3, 6]\n```")
    assert o.stage is None and o.success and o.valid and o.spl == pytest.approx(1.0)
    o = ep.evaluate_route(route_q(), "[1, 4, 5, 2, 3, 6]")   # 5 -> 2 uses edge [2, 5] backwards
    assert o.success and o.path_m == pytest.approx(5.0)
    assert o.spl == pytest.approx(3.0 / 5.0)
    o = ep.evaluate_route(route_q(), "[1, 2, 1, 2, 3, 6]")   # a legal revisit only costs length
    assert o.success and o.spl == pytest.approx(3 / 5)


def test_spl_uses_reference_length_when_shortest_missing_and_caps_at_one():
    o = ep.evaluate_route(route_q(shortest=None), "[1, 2, 5, 6]")
    assert o.shortest_m == pytest.approx(3.0) and o.spl == pytest.approx(1.0)
    o = ep.evaluate_route(route_q(shortest=4.0), "[1, 2, 3, 6]")   # p < l: capped at 1
    assert o.spl == 1.0


def test_bad_questions_raise():
    with pytest.raises(ValueError, match="start_id"):
        ep.evaluate_route(route_q(start=None), "[1]")
    with pytest.raises(ValueError, match="not a route task"):
        ep.evaluate_route(trav_q(), "[1]")
    with pytest.raises(ValueError, match="not displayed"):
        ep.evaluate_traversability(trav_q(positives=(9,)), "[1]")


# ---------------------------------------------------------------- traversability + worked examples

def test_traversability_worked_example_against_hand_counts():
    o = ep.evaluate_traversability(trav_q(), "Walkable: [1, 2, 4]")
    assert (o.tp, o.fp, o.fn, o.tn, o.n_invalid) == (2, 1, 1, 2, 0)
    m = ep.traversability_metrics(o.tp, o.fp, o.fn, o.tn)
    assert m["ba"] == pytest.approx(0.666667, abs=1e-6) and m["f1"] == pytest.approx(0.666667, abs=1e-6)
    # independently: per-candidate labels
    y = np.array([1, 1, 1, 0, 0, 0]); p = np.array([1, 1, 0, 1, 0, 0])
    ba = (np.mean(p[y == 1] == 1) + np.mean(p[y == 0] == 0)) / 2
    assert m["ba"] == pytest.approx(ba)


def test_traversability_invalid_duplicates_and_unparseable():
    o = ep.evaluate_traversability(trav_q(), '[1, 1, "2", 9, 10]')   # dedup; 9, 10 not displayed
    assert (o.tp, o.fp, o.fn, o.tn, o.n_invalid) == (2, 2, 1, 3, 2)
    o = ep.evaluate_traversability(trav_q(), "I cannot tell")
    assert not o.parsed and (o.tp, o.fp, o.fn, o.tn) == (0, 0, 3, 3)


def test_spl_worked_example():
    S, ell, p = [1, 1, 0, 1], [5, 4, 3, 6], [5, 8, 2, 3]
    outs = []
    for k, (s, l_, p_) in enumerate(zip(S, ell, p)):
        q = route_q(qid=f"w{k}", world={1: (0, 0), 2: (p_, 0)}, edges=[[1, 2]], goals=(2,), shortest=float(l_),
                    reference=(1, 2))
        outs.append(ep.evaluate_route(q, "[1, 2]" if s else "[1]"))
    m = ep.route_metrics(outs)
    assert m["spl"] == pytest.approx(0.625) and m["sr"] == pytest.approx(0.75)
    assert m["vpr"] == 1.0                                    # "[1]" is a valid (edge-free) route


def test_egopath_score_worked_examples():
    assert ep.egopath_score(0.75, 0.60, 0.40, 0.10, 0.05) == pytest.approx(25.0)
    assert ep.egopath_score(0.5, 0.5, 0, 0, 0) == pytest.approx(0.0)
    assert ep.egopath_score(0, 0, 0, 0, 0) == pytest.approx(-40.0)
    assert ep.egopath_score(1, 1, 1, 1, 1) == pytest.approx(100.0)


def test_route_diagnostics_table_s11():
    q = route_q()
    outs = [ep.evaluate_route(q, t) for t in ("[1, 2, 3, 6]", "[1, 2, 6]", "[1, 3, 6]", "[1, 2, 3]", "x")]
    m = ep.route_metrics(outs)
    assert m["evaluable"] == pytest.approx(4 / 5) and m["endpoint_hit"] == pytest.approx(3 / 5)
    assert m["first_edge_legal"] == pytest.approx(3 / 5)
    assert m["full_route_legal"] == pytest.approx(2 / 5) and m["has_illegal_edge"] == pytest.approx(2 / 5)
    assert m["illegal_later_given_first_legal"] == pytest.approx(1 / 3)
    assert m["illegal_later_given_first_and_end"] == pytest.approx(1 / 2)


# ---------------------------------------------------------------- parsing

@pytest.mark.parametrize("text,ids", [
    ("Answer: [1, 4, 7]", [1, 4, 7]),
    ("I think [2] is blocked.\nFinal answer:\n```json\n[1, 3, 6]\n```", [1, 3, 6]),
    ('{"path": [1, 2, 3]}', [1, 2, 3]),
    ('["1", "12"]', [1, 12]),
    ("[1,2] or maybe [3]", [3]),
    ("[ ]", []),
    ("path [sic] is [1,2]", [1, 2]),
    ("[1, true]", None), ("[1.5]", None), ("[[1], [2]]", None), ("[1, null]", None), ("", None), ("]][[", None),
])
def test_parse_id_list_cases(text, ids):
    assert ep.parse_id_list(text) == ids


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), st.text(alphabet='[]{}",: 0123456789-.aeJNn\n`'), st.none(), st.integers(),
                 st.lists(st.integers())))
def test_parse_never_crashes(text):
    r = ep.parse_id_list(text)
    assert r is None or (isinstance(r, list) and all(type(i) is int for i in r))
    o = ep.evaluate_route(route_q(), text)                  # nor does grading
    assert o.stage in (*ep.STAGES, None)
    if not isinstance(text, str) or "[" not in text:       # no list at all: a format failure, scored wrong
        assert r is None and o.stage == "format" and not o.success and o.spl == 0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10**6), max_size=12), st.text(max_size=40))
def test_parse_roundtrip_in_prose(ids, prose):
    prose = prose.replace("[", "(").replace("]", ")")
    assert ep.parse_id_list(f"{prose}\nAnswer: {json.dumps(ids)}") == ids


# ---------------------------------------------------------------- a small benchmark

def small_benchmark(n_groups=4) -> list[Question]:
    """Every scene group holds one question of each task (route tasks on the hand graph)."""
    qs = []
    for g in range(n_groups):
        grp = f"g{g}"
        for t in TRAVERSABILITY_TASKS:
            qs.append(trav_q(qid=f"{t}-{g}", task=t, group=grp, positives=(1, 2, 3) if t[0] == "p" else (1, 2)))
        for t in ROUTE_TASKS:
            qs.append(route_q(qid=f"{t}-{g}", task=t, group=grp, strict=g % 2 == 0))
    return qs


def test_baselines():
    qs = small_benchmark()
    ref = ep.evaluate_model(qs, reference_answers(qs), n_resamples=0)
    for t in ROUTE_TASKS:
        assert ref["tasks"][t]["sr"]["estimate"] == 100.0 and ref["tasks"][t]["vpr"]["estimate"] == 100.0
    for t in TRAVERSABILITY_TASKS:
        assert ref["tasks"][t]["ba"]["estimate"] == 100.0 and ref["tasks"][t]["f1"]["estimate"] == 100.0
    assert ref["score"]["estimate"] == pytest.approx(100.0)
    allc = ep.evaluate_model(qs, all_candidates(qs), n_resamples=0)
    for t in TRAVERSABILITY_TASKS:
        e = allc["tasks"][t]
        assert e["pooled"]["tpr"] == 100.0 and e["pooled"]["tnr"] == 0.0 and e["ba"]["estimate"] == 50.0
    assert allc["tasks"]["point_path"]["stages"]["illegal_edge"] == 4      # 1,2,...,6: 3-4 is not an edge
    # straight to the nearest goal: legal only if that edge exists
    assert ep.evaluate_route(route_q(), straight_to_nearest_goal([route_q()])["r0"]).stage == "illegal_edge"
    q2 = route_q(goals=(3, 5))                                             # 5 at 1.41 m, 3 at 2 m -> 5
    a = straight_to_nearest_goal([q2])["r0"]
    assert json.loads(a) == [1, 5] and ep.evaluate_route(q2, a).stage == "illegal_edge"
    q3 = route_q(goals=(2, 6), shortest=1.0, reference=(1, 2))
    assert ep.evaluate_route(q3, straight_to_nearest_goal([q3])["r0"]).success


def test_random_baseline_deterministic_and_order_free():
    qs = small_benchmark()
    a = random_ids(qs, seed=3)
    assert a == random_ids(list(reversed(qs)), seed=3) and a != random_ids(qs, seed=4)
    for q in qs:
        ids = json.loads(a[q.question_id])
        assert set(ids) <= set(q.display_ids) and len(ids) == len(set(ids))


def test_write_predictions_roundtrip(tmp_path):
    qs = small_benchmark(2)
    p = write_predictions(tmp_path / "p.jsonl", reference_answers(qs), "ref")
    pf = load_prediction_file(p)
    assert pf.model == "ref" and pf.replies == reference_answers(qs)


# ---------------------------------------------------------------- bootstrap

def _wrong_groups_answers(qs, wrong=("g1",)):
    """Reference answers, except every question of the `wrong` groups answered badly."""
    ans = reference_answers(qs)
    for q in qs:
        if q.scene_group in wrong:
            ans[q.question_id] = "[4, 5, 6]" if q.task in TRAVERSABILITY_TASKS else "[1, 2, 3]"
    return ans


def test_bootstrap_deterministic_and_seeded():
    qs = small_benchmark(12)                                 # few resamples: quantiles move with the seed
    ans = _wrong_groups_answers(qs, wrong=("g1", "g3", "g4", "g8"))
    a = ep.evaluate_model(qs, ans, n_resamples=41, seed=7)
    b = ep.evaluate_model(qs, ans, n_resamples=41, seed=7)
    c = ep.evaluate_model(qs, ans, n_resamples=41, seed=8)
    a.pop("outcomes"), b.pop("outcomes"), c.pop("outcomes")
    assert a == b and a != c


def test_cluster_bootstrap_resamples_whole_scene_groups():
    # All questions of one task in one scene group: every resample draws that group, so the
    # interval is a point even though answers differ; an item bootstrap would not collapse.
    qs = [route_q(qid=f"r{i}", group="only") for i in range(6)]
    ans = {f"r{i}": "[1, 2, 3, 6]" if i < 3 else "[1, 2, 3]" for i in range(6)}
    r = ep.evaluate_model(qs, ans, n_resamples=200, seed=1)["tasks"]["point_path"]["sr"]
    assert r["estimate"] == 50.0 and r["low"] == 50.0 and r["high"] == 50.0


def test_cluster_bootstrap_matches_hand_resampling_per_task_and_joint():
    qs = small_benchmark(5)
    ans = _wrong_groups_answers(qs, wrong=("g1", "g3"))
    n, seed = 400, 11
    res = ep.evaluate_model(qs, ans, n_resamples=n, seed=seed)
    groups = [f"g{g}" for g in range(5)]
    good = {g: g not in ("g1", "g3") for g in groups}

    # per task (point_path): the task's groups, in order of first appearance
    rng = np.random.default_rng(seed)
    reps = [100 * np.mean([good[groups[j]] for j in rng.integers(0, 5, 5)]) for _ in range(n)]
    lo, hi = np.quantile(reps, [0.025, 0.975])
    sr = res["tasks"]["point_path"]["sr"]
    assert sr["estimate"] == pytest.approx(60.0) and (sr["low"], sr["high"]) == pytest.approx((lo, hi))

    # joint: one draw of groups scores all five tasks. Good group: PT, ET perfect, routes succeed.
    # Wrong group: PT picks {4,5,6} of positives {1,2,3} (TP 0, FP 3, FN 3, TN 0); ET positives {1,2}
    # (TP 0, FP 3, FN 2, TN 1); routes fail.
    def score_of(pick):
        tp_pt = sum(3 for g in pick if good[g]); fn_pt = sum(3 for g in pick if not good[g])
        tn_pt = sum(3 for g in pick if good[g]); fp_pt = sum(3 for g in pick if not good[g])
        tp_et = sum(2 for g in pick if good[g]); fn_et = sum(2 for g in pick if not good[g])
        tn_et = sum(4 if good[g] else 1 for g in pick); fp_et = sum(3 for g in pick if not good[g])
        ba_pt = (tp_pt / (tp_pt + fn_pt) + tn_pt / (tn_pt + fp_pt)) / 2
        ba_et = (tp_et / (tp_et + fn_et) + tn_et / (tn_et + fp_et)) / 2
        sr_ = np.mean([good[g] for g in pick])
        return 20 * ((2 * ba_pt - 1) + (2 * ba_et - 1) + 3 * sr_)

    rng = np.random.default_rng(seed)
    reps = [score_of([groups[j] for j in rng.integers(0, 5, 5)]) for _ in range(n)]
    lo, hi = np.quantile(reps, [0.025, 0.975])
    s = res["score"]
    assert s["estimate"] == pytest.approx(score_of(groups))
    assert (s["low"], s["high"]) == pytest.approx((lo, hi))


def test_missing_predictions_are_format_failures():
    qs = small_benchmark(2)
    r = ep.evaluate_model(qs, {}, n_resamples=50)
    assert r["n_missing"] == len(qs)
    assert r["tasks"]["point_path"]["stages"]["format"] == 2 and r["tasks"]["point_path"]["sr"]["estimate"] == 0
    assert r["tasks"]["point_traversability"]["ba"]["estimate"] == 50.0   # empty set: TPR 0, TNR 1
    assert r["score"]["estimate"] == pytest.approx(0.0)


def test_strict_subset():
    qs = small_benchmark(4)                                  # strict in g0, g2
    ans = _wrong_groups_answers(qs, wrong=("g0",))
    s = ep.evaluate_model(qs, ans, n_resamples=0)["strict"]["point_path"]
    assert s["all"]["n"] == 4 and s["strict"]["n"] == 2
    assert s["all"]["full"] == 75.0 and s["strict"]["full"] == 50.0 and s["strict"]["end"] == 50.0


# ---------------------------------------------------------------- overlays

def _blank(w=96, h=72, colour=(90, 110, 90)):
    return Image.new("RGB", (w, h), colour)


def _wps(feasible: bool):
    return [Waypoint(display_id=i, kind="ground", pixel=PIX[i], world=[x, y, 0.0], point_feasible=feasible,
                     embodied_feasible=feasible, clearance_m=0.5) for i, (x, y) in WORLD.items()]


def test_draw_candidates_deterministic_and_label_free():
    img = _blank()
    a = draw_candidates(img, _wps(True))
    b = draw_candidates(img, _wps(False))                    # labels must not change the picture
    assert a.tobytes() == b.tobytes() and a.size == img.size
    assert img.getpixel((16, 56)) == (90, 110, 90)           # input untouched
    r = marker_radius(a.size)
    u, v = PIX[4]
    assert a.getpixel((int(u) + r - 1, int(v))) == (0, 0, 0)  # black ring
    assert a.getpixel((int(u) + r + 1, int(v))) == (255, 255, 255)  # white halo outside it
    assert marker_radius((640, 480)) == 11
    with pytest.raises(ValueError):
        draw_candidates(img, _wps(True) + _wps(True))


def test_draw_prediction_traversability_colours():
    q = trav_q()
    big = _blank(200, 150)
    px = {i: (30.0 * i, 75.0) for i in range(1, 7)}
    out = draw_prediction(big, q, "[1, 4]", px)              # 1 TP (green), 4 FP (red cross), 2, 3 FN (orange)
    r = marker_radius(out.size) + 4
    assert out.getpixel((30 + r, 75)) == (20, 200, 60)
    assert out.getpixel((120, 75)) == (230, 30, 30)          # cross centre
    ring = [out.getpixel((int(60 + r * math.cos(a)), int(75 + r * math.sin(a)))) for a in np.linspace(0, 6.28, 60)]
    assert (255, 150, 0) in ring


def test_draw_prediction_route_colours():
    q = route_q()
    img = _blank(96, 72)
    ok = draw_prediction(img, q, "[1, 2, 3, 6]")
    bad = draw_prediction(img, q, "[1, 2, 6]")
    mid12 = (int((PIX[1][0] + PIX[2][0]) / 2), int(PIX[1][1]))
    assert ok.getpixel(mid12) == (20, 200, 60)               # all legal: green polyline
    assert bad.getpixel(mid12) == (230, 30, 30)              # a route with an illegal edge is red
    r = marker_radius(ok.size) + 4
    assert ok.getpixel((int(PIX[1][0]), int(PIX[1][1]) - r)) == (40, 110, 255)   # start ring blue
    assert draw_prediction(img, q, None).size == img.size    # no list still draws


def test_contact_sheet():
    panels = [_blank(), _blank(colour=(0, 0, 0)), _blank(colour=(255, 0, 0))]
    s = contact_sheet(panels, ["a", "b", "c"], cols=2)
    assert s.size[0] > 2 * 96 and s.size[1] > 2 * 72
    with pytest.raises(ValueError):
        contact_sheet(panels, ["a"])


# ---------------------------------------------------------------- end to end

def _png(img: Image.Image) -> bytes:
    b = io.BytesIO()
    img.save(b, format="PNG")
    return b.getvalue()


def write_dataset(root: Path, qs: list[Question], text_only: bool = False) -> Path:
    """The packager's contract: benchmark.json, README, <config>/benchmark-00000-of-00001.parquet
    (+ a `point_path_text_only` control config, image null, ids `<qid>@text_only`)."""
    root.mkdir(parents=True)
    (root / "benchmark.json").write_text(json.dumps({"benchmark": "egopathbench", "version": "test"}))
    (root / "README.md").write_text("---\nconfigs:\n" + "".join(
        f"- config_name: {t}\n  data_files:\n  - {{split: benchmark, path: {t}/benchmark-*}}\n" for t in TASKS)
        + "---\n")
    img = draw_candidates(_blank(), _wps(True))
    schema = pa.schema([("id", pa.string()), ("task", pa.string()), ("split", pa.string()),
                        ("scene_group", pa.string()),
                        ("image", pa.struct([("bytes", pa.binary()), ("path", pa.string())])),
                        ("system_prompt", pa.string()), ("user_prompt", pa.string()), ("answer", pa.string()),
                        ("question", pa.string())])
    configs = {t: sorted((q for q in qs if q.task == t), key=lambda q: q.question_id) for t in TASKS}
    if text_only:
        configs["point_path_text_only"] = [q.model_copy(update={"question_id": f"{q.question_id}@text_only"})
                                           for q in configs["point_path"]]
    for cfg, rows in configs.items():
        (root / cfg).mkdir()
        tab = pa.Table.from_pylist([
            {"id": q.question_id, "task": q.task, "split": q.split, "scene_group": q.scene_group,
             "image": None if cfg.endswith("_text_only") else {"bytes": _png(img), "path": f"{q.question_id}.png"},
             "system_prompt": q.system_prompt, "user_prompt": q.user_prompt, "answer": q.answer,
             "question": json.dumps(q.model_dump(mode="json"))}
            for q in rows], schema=schema)
        pq.write_table(tab, root / cfg / "benchmark-00000-of-00001.parquet")
    return root


def test_load_questions_errors(tmp_path):
    with pytest.raises(EgoPathDataError, match="does not exist"):
        load_questions(tmp_path / "nope")
    (tmp_path / "x").mkdir()
    with pytest.raises(EgoPathDataError, match="not an exported EgoPathBench"):
        load_questions(tmp_path / "x")
    root = write_dataset(tmp_path / "ds", small_benchmark(2))
    with pytest.raises(EgoPathDataError, match="no 'train' split"):
        load_questions(root, split="train")
    qs = load_questions(root)
    assert len(qs) == 10 and {q.task for q in qs} == set(TASKS)


def test_scenebench_score_end_to_end(tmp_path, capsys):
    from scenebench.cli import main

    qs = small_benchmark(4)
    root = write_dataset(tmp_path / "egopathbench", qs, text_only=True)
    ref = write_predictions(tmp_path / "ref.jsonl", reference_answers(qs), "oracle")
    ans = _wrong_groups_answers(qs, wrong=("g1",))
    lines = [json.dumps({"id": k, "model": "messy", "prediction": v}) for k, v in sorted(ans.items())
             if k != "intent_path-0"]                               # one missing
    lines.insert(3, "not json")                                      # unreadable
    lines += [json.dumps({"id": f"point_path-{g}@text_only", "response": "[1, 2, 3, 6]" if g < 2 else "[1]"})
              for g in range(4)]                                     # Table S5 control answers
    lines.append(json.dumps({"id": "nope", "response": "[1]"}))     # unknown id
    lines.append('{"id": "point_path-0", "resp')                    # torn last line
    (tmp_path / "messy.jsonl").write_text("\n".join(lines) + "\n")
    rc = main(["score", "--dataset", str(tmp_path), "--predictions", str(ref), str(tmp_path / "messy.jsonl"),
               "--report-dir", str(tmp_path / "rep"), "--n-resamples", "200", "--seed", "5"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert "torn last line" in out.err and "unreadable" in out.err and "no prediction" in out.err
    m = json.loads((tmp_path / "rep" / "metrics.json").read_text())
    assert m["settings"]["seed"] == 5 and m["settings"]["n_resamples"] == 200
    o = m["models"]["oracle"]
    assert o["score"]["estimate"] == pytest.approx(100.0)
    assert all(o["tasks"][t]["sr"]["estimate"] == 100.0 for t in ROUTE_TASKS)
    z = m["models"]["messy"]
    assert z["tasks"]["point_path"]["sr"]["estimate"] == 75.0
    assert z["tasks"]["intent_path"]["sr"]["estimate"] == 50.0           # g1 wrong + g0 missing
    assert z["tasks"]["intent_path"]["stages"]["format"] == 1
    assert z["controls"]["point_path"]["text_only"] == 50.0 and z["controls"]["point_path"]["full"] == 75.0
    assert "controls" not in o or o["controls"] == {}                     # the oracle did not answer controls
    assert "not in the dataset" in out.err and z["predictions"]["unknown"] == 1   # only "nope"
    assert m["baselines"]["baseline:all-candidates"]["tasks"]["point_traversability"]["ba"]["estimate"] == 50.0
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "| oracle | 100.0 [100.0, 100.0]" in md and "Figure 3" in md and "Table S5" in md
    pngs = sorted((tmp_path / "rep" / "overlays").glob("*.png"))
    assert len(pngs) == 5 and Image.open(pngs[0]).size[0] > 96


def test_score_predictions_unknown_model_name_clash_and_write(tmp_path):
    qs = small_benchmark(2)
    m = score_predictions(qs, {"a": reference_answers(qs)}, n_resamples=20, baselines=False)
    assert m["baselines"] == {} and m["models"]["a"]["score"]["estimate"] == pytest.approx(100)
    md = write_report(m, tmp_path / "r")
    assert md.is_file() and json.loads((tmp_path / "r" / "metrics.json").read_text())["model_order"] == ["a"]


def test_fast_bootstrap_equals_generic_cluster_bootstrap():
    """ClusterDraws (counts @ cluster sums) reproduces scorers.stats.cluster_bootstrap exactly."""
    qs = []
    for g in range(7):                                       # uneven groups, odd K (draw-stream check)
        for t in TASKS:
            for r in range(1 + (g * 3 + len(t)) % 3):
                qs.append(trav_q(qid=f"{t}-{g}-{r}", task=t, group=f"g{g}") if t in TRAVERSABILITY_TASKS
                          else route_q(qid=f"{t}-{g}-{r}", task=t, group=f"g{g}"))
    ans = random_ids(qs, seed=2)
    ans.update({q.question_id: "[1, 4, 5, 2, 3, 6]" for q in qs[::4] if q.task in ROUTE_TASKS})   # SPL < 1
    fast = ep.evaluate_model(qs, ans, n_resamples=150, seed=9)
    slow = ep.evaluate_model(qs, ans, n_resamples=150, seed=9, engine="cluster_bootstrap")
    for a, b in [(fast["score"], slow["score"])] + [
            (fast["tasks"][t][m], slow["tasks"][t][m]) for t in TASKS
            for m in (("ba", "f1") if t in TRAVERSABILITY_TASKS else ("vpr", "sr", "spl"))]:
        assert a["estimate"] == pytest.approx(b["estimate"], abs=1e-9)
        assert (a["low"], a["high"]) == pytest.approx((b["low"], b["high"]), abs=1e-9)
        assert a["n_undefined"] == b["n_undefined"]


def test_by_reference_edges_table_s12():
    qs = [route_q(qid="a", reference=(1, 2, 3, 6)), route_q(qid="b", goals=(2,), shortest=1.0, reference=(1, 2)),
          route_q(qid="c", goals=(3,), shortest=2.0, reference=(1, 2, 3))]
    r = ep.evaluate_model(qs, {"a": "[1, 2, 6]", "b": "[1, 2]", "c": "[1, 4]"}, n_resamples=0)
    rows = r["tasks"]["point_path"]["by_reference_edges"]
    assert rows == {"1": {"n": 1, "endpoint_hit": 1, "success": 1, "illegal_edge": 0},
                    "2": {"n": 1, "endpoint_hit": 0, "success": 0, "illegal_edge": 0},
                    ">=3": {"n": 1, "endpoint_hit": 1, "success": 0, "illegal_edge": 1}}
