"""EgoPathBench challenge-subset selection: whole bundles (traversability pair; route bundle
with its intent), hand-computed difficulty components, greedy preference for harder bundles,
per-group caps, small pools untouched, determinism, and the export wiring (benchmark.json
report, byte-identical re-export)."""
from __future__ import annotations

import json
import os

os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"

import numpy as np
import pytest

from geometry.egopath_schema import TASKS, TRAVERSABILITY_TASKS, ViewAnnotation
from packagers.egopath import BuildStats, View, questions_for_view
from packagers.egopath_selection import (EgoPathSelectionError, make_bundles, resolve_config, route_components,
                                         select_benchmark, traversability_components)
from formats.records import FrameRecord
from tests.test_egopath_export import BENCH, VISIBLE, annotation, make_run, record

NORMS = resolve_config(None)["norms"]


def _extra_visible(n: int) -> list[dict]:
    """Distractor objects of other categories: raise clutter without touching target uniqueness."""
    return [{"object_id": 100 + i, "name": f"lamp_{i}", "category": "lamp", "color": "white", "size_word": "",
             "room": "living room", "distance_m": 4.0, "bbox_px": [0, 0, 5, 5], "centre_xy": [5.0, i]}
            for i in range(n)]


def _view(frame_id: str, group: str, ann: ViewAnnotation) -> View:
    rec = FrameRecord.model_validate(record(frame_id, f"scene-{group}", group, ann))
    return View(run_dir=None, record=rec, annotation=ann, scene_group=group)


def _pool(specs, split="benchmark"):
    """specs: [(frame_id, group, annotation)] -> (questions sorted by id, {frame_id: annotation})."""
    qs, anns, stats = [], {}, BuildStats()
    for fid, group, ann in specs:
        qs += questions_for_view(_view(fid, group, ann), split, stats)
        anns[fid] = ann
    return sorted(qs, key=lambda q: q.question_id), anns


def _bundle_tasks(qs) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for q in qs:
        key = f"{q.frame_id}/traversability" if q.task in TRAVERSABILITY_TASKS else f"{q.frame_id}/route/{q.route_id}"
        out.setdefault(key, set()).add(q.task)
    return out


def _mixed_specs(n_groups=6, per_group=4, seed=0):
    rng = np.random.default_rng(seed)
    specs = []
    for g in range(n_groups):
        for v in range(per_group):
            ann = annotation(g * 10 + v, extra_route_wp=int(rng.integers(0, 3)), intent=bool(rng.integers(0, 2)))
            ann = ann.model_copy(update={"visible_objects": VISIBLE + _extra_visible(int(rng.integers(0, 8)))})
            specs.append((f"f-{g:02d}-{v:02d}", f"group-{g:02d}", ann))
    return specs


# -------------------------------------------------------------------------------- components
def test_components_by_hand():
    ann = annotation(0)  # 6 traversability candidates, 6 route waypoints, 3 visible objects
    t = traversability_components(ann, NORMS)
    assert t["clutter"] == pytest.approx(0.5 * 3 / 12 + 0.5 * 6 / 16)
    assert t["boundary"] == pytest.approx(2 / 6)          # ids 3, 4 are point-only
    assert t["difference"] == pytest.approx(2 / 4)        # point {1,2,3,4} vs embodied {1,2}
    r0 = route_components(ann, "0", NORMS)
    assert r0["boundary"] == pytest.approx(2 / 6)         # route ids 3, 6 are point-only
    assert r0["difference"] == 1.0                        # point ref uses 2-3, not an embodied edge
    assert r0["competing"] == pytest.approx(1 / 3)        # two chairs in view
    assert r0["composition"] == pytest.approx(3 / 6)      # 3 reference edges
    assert route_components(ann, "1", NORMS)["difference"] == 1.0   # embodied route absent
    # legal for the embodied graph, embodied 25 % longer -> 0.25 / 0.5
    u = ann.routes[0].model_copy(update={"point_reference": [1, 2, 4, 5], "point_shortest_m": 2.0,
                                         "embodied_shortest_m": 2.5, "embodied_narrow_fraction": 0.4})
    legal = ann.model_copy(update={"routes": [u]})
    r = route_components(legal, "0", NORMS)
    assert r["difference"] == pytest.approx(0.5)
    assert r["boundary"] == pytest.approx(0.5 * 2 / 6 + 0.5 * 0.4)
    u2 = u.model_copy(update={"embodied_shortest_m": 2.0})
    assert route_components(ann.model_copy(update={"routes": [u2]}), "0", NORMS)["difference"] == 0.0
    # the score is the weighted mean of the applicable components
    qs, anns = _pool([("f-0", "g-0", ann)])
    b = {x.bundle_id: x for x in make_bundles(qs, anns, resolve_config(None))}
    assert b["f-0/traversability"].score == pytest.approx(np.mean(list(t.values())))
    assert b["f-0/route/0"].score == pytest.approx(np.mean(list(r0.values())))
    w = resolve_config({"weights": {"clutter": 0.0, "boundary": 0.0, "difference": 1.0, "competing": 0.0,
                                    "composition": 0.0}})
    assert {x.bundle_id: x.score for x in make_bundles(qs, anns, w)}["f-0/traversability"] == pytest.approx(0.5)


# ------------------------------------------------------------------------------------ bundles
def test_pairs_and_intent_stay_together():
    qs, anns = _pool(_mixed_specs())
    pool = _bundle_tasks(qs)
    assert any("intent_path" in t for t in pool.values()) and any(t == {"point_path"} for t in pool.values())
    kept, rep = select_benchmark(qs, anns, {"traversability_bundles": 7, "route_bundles": 11,
                                            "max_group_share": 0.5})
    assert rep["selected_bundles"] == {"traversability": 7, "route": 11}
    kb = _bundle_tasks(kept)
    assert len(kb) == 18
    for key, tasks in kb.items():
        assert tasks == pool[key], key                    # never one side only
        if "intent_path" in tasks:
            assert "embodied_path" in tasks
    assert rep["questions"]["kept"] == {t: sum(q.task == t for q in kept) for t in TASKS if any(q.task == t for q in kept)}
    dropped = sum(rep["questions"]["dropped"].values())
    assert dropped == len(qs) - len(kept) > 0
    assert rep["questions"]["kept"]["point_traversability"] == rep["questions"]["kept"]["embodied_traversability"] == 7


def test_higher_scores_preferred():
    """One group per view (cap never binds), views differ only in clutter: the most cluttered win."""
    n_extra = [0, 7, 2, 5, 1, 6, 3, 4]
    specs = [(f"f-{i}", f"g-{i}", annotation(0).model_copy(update={"visible_objects": VISIBLE + _extra_visible(k)}))
             for i, k in enumerate(n_extra)]
    qs, anns = _pool(specs)
    kept, rep = select_benchmark(qs, anns, {"traversability_bundles": 3, "route_bundles": 4, "max_group_share": 1.0})
    top3 = {f"f-{i}" for i in np.argsort(n_extra)[::-1][:3]}
    assert {q.frame_id for q in kept if q.task in TRAVERSABILITY_TASKS} == top3
    # route: units 0 and 1 of a view tie on every component (both: point ref not embodied-legal or no
    # embodied route, 3 edges, one competing chair), so the top-2 views' four route bundles win
    top2 = {f"f-{i}" for i in np.argsort(n_extra)[::-1][:2]}
    assert {q.frame_id for q in kept if q.route_id is not None} == top2
    q = rep["score_quantiles"]["traversability"]
    assert q["kept"]["q0"] > q["dropped"]["q100"]


def test_group_cap_holds_and_never_below_one():
    qs, anns = _pool(_mixed_specs(n_groups=5, per_group=6))
    kept, rep = select_benchmark(qs, anns, {"traversability_bundles": 10, "route_bundles": 10,
                                            "max_group_share": 0.2})
    assert rep["group_cap"] == {"traversability": 2, "route": 2}
    for kind in ("traversability", "route"):
        assert rep["selected_bundles"][kind] == 10 and rep["shortfall"][kind] == 0
        assert all(g["kept"] <= 2 for g in rep["groups"][kind].values())
    per_group: dict[str, set] = {}
    for q in kept:
        if q.route_id is not None:
            per_group.setdefault(q.scene_group, set()).add((q.frame_id, q.route_id))
    assert max(len(s) for s in per_group.values()) == 2
    # a tiny share still allows one bundle per group; the cap is hard, so the rest is a shortfall
    kept, rep = select_benchmark(qs, anns, {"traversability_bundles": 10, "route_bundles": 10,
                                            "max_group_share": 0.01})
    assert rep["group_cap"]["route"] == 1
    assert rep["selected_bundles"] == {"traversability": 5, "route": 5}
    assert rep["shortfall"] == {"traversability": 5, "route": 5}


def test_small_pool_untouched_and_other_splits_pass():
    bench_qs, anns = _pool(_mixed_specs(n_groups=2, per_group=2))
    train_qs, anns2 = _pool([("t-0", "g-t", annotation(5))], split="train")
    qs = sorted(bench_qs + train_qs, key=lambda q: q.question_id)
    kept, rep = select_benchmark(qs, anns | anns2, {})      # paper sizes 146 / 309 >> pool
    assert kept == qs
    assert rep["group_cap"] == {"traversability": None, "route": None}
    assert not rep["questions"]["dropped"]
    # a pool that is dropped to nothing on the benchmark split still leaves train untouched
    kept, rep = select_benchmark(qs, anns | anns2, {"traversability_bundles": 0, "route_bundles": 0})
    assert kept == train_qs and rep["selected_bundles"] == {"traversability": 0, "route": 0}
    kept, rep = select_benchmark(qs, anns | anns2, {"enabled": False, "route_bundles": 0})
    assert kept == qs and rep == {"enabled": False}


def test_paired_routes_only():
    qs, anns = _pool(_mixed_specs(n_groups=3, per_group=2))
    kept, rep = select_benchmark(qs, anns, {"paired_routes_only": True})
    kb = _bundle_tasks(kept)
    routes = [t for k, t in kb.items() if "/route/" in k]
    assert routes and all({"point_path", "embodied_path"} <= t for t in routes)
    n_point_only = sum(t == {"point_path"} for t in _bundle_tasks(qs).values())
    assert rep["ineligible_bundles"]["route"] == n_point_only == 6
    assert rep["selected_bundles"]["route"] == rep["pool_bundles"]["route"] - 6
    assert sum(1 for k in kb if k.endswith("/traversability")) == rep["pool_bundles"]["traversability"]


def test_deterministic_and_order_independent():
    qs, anns = _pool(_mixed_specs())
    cfg = {"traversability_bundles": 5, "route_bundles": 9, "max_group_share": 0.3}
    a = select_benchmark(qs, anns, cfg)
    b = select_benchmark(qs, anns, cfg)
    assert a[0] == b[0] and json.dumps(a[1], sort_keys=True) == json.dumps(b[1], sort_keys=True)
    perm = np.random.default_rng(3).permutation(len(qs))
    c = select_benchmark([qs[i] for i in perm], dict(reversed(list(anns.items()))), cfg)
    assert sorted(q.question_id for q in c[0]) == sorted(q.question_id for q in a[0])
    assert json.dumps(c[1], sort_keys=True) == json.dumps(a[1], sort_keys=True)


def test_bad_input():
    qs, anns = _pool([("f-0", "g-0", annotation(0))])
    with pytest.raises(EgoPathSelectionError, match="incomplete"):
        select_benchmark([q for q in qs if q.task != "embodied_traversability"], anns, {})
    with pytest.raises(EgoPathSelectionError, match="intent_path without"):
        select_benchmark([q for q in qs if q.task != "embodied_path"], anns, {})
    with pytest.raises(EgoPathSelectionError, match="no annotation"):
        select_benchmark(qs, {}, {})
    with pytest.raises(EgoPathSelectionError, match="unknown key"):
        select_benchmark(qs, anns, {"route_bundle": 3})
    with pytest.raises(EgoPathSelectionError, match="max_group_share"):
        select_benchmark(qs, anns, {"max_group_share": 0})
    with pytest.raises(EgoPathSelectionError, match="non-negative integer"):
        select_benchmark(qs, anns, {"route_bundles": 2.5})
    with pytest.raises(EgoPathSelectionError, match="true/false"):
        select_benchmark(qs, anns, {"paired_routes_only": "yes"})
    with pytest.raises(EgoPathSelectionError, match="weigh 0"):
        select_benchmark(qs, anns, {"weights": {"clutter": 0, "boundary": 0, "difference": 0}})


# ------------------------------------------------------------------------------------- export
SEL = {"enabled": True, "traversability_bundles": 2, "route_bundles": 3, "max_group_share": 0.4}


@pytest.fixture(scope="module")
def sel_run(tmp_path_factory):
    return make_run(tmp_path_factory.mktemp("selruns"), n_groups=12)


def test_export_applies_selection(sel_run, tmp_path):
    from packagers.egopath import export_egopathbench, load_questions, questions_from_run, make_split_of

    bench = BENCH | {"benchmark_selection": SEL}
    full = questions_from_run(sel_run, make_split_of(bench))
    s = export_egopathbench([sel_run], tmp_path / "a", bench)
    meta = json.loads((s.root / "benchmark.json").read_text())
    rep = meta["benchmark_selection"]
    assert rep == json.loads(json.dumps(s.selection))
    assert rep["pool_bundles"]["route"] > 3 and rep["pool_bundles"]["traversability"] > 2  # something is dropped
    assert rep["selected_bundles"] == {"traversability": 2, "route": 3}
    got = [q for t in TASKS for q in (load_questions(s.root, t, "benchmark")
                                      if (s.root / t / "benchmark-00000-of-00001.parquet").exists() else [])]
    assert {t: n for t, n in rep["questions"]["kept"].items()} == {t: s.counts[t]["benchmark"] for t in rep["questions"]["kept"]}
    pool = _bundle_tasks([q for q in full if q.split == "benchmark"])
    kb = _bundle_tasks(got)
    assert len(kb) == 5 and all(kb[k] == pool[k] for k in kb)
    # train / validation are the full pool; controls only pair the kept benchmark questions
    for split in ("train", "validation"):
        assert s.counts["point_path"].get(split, 0) == sum(q.task == "point_path" and q.split == split for q in full)
    kept_ids = {q.question_id for q in got}
    ctrl = load_questions(s.root, "point_path_text_only", "benchmark")
    assert {q.question_id.split("@")[0] for q in ctrl} == {i for i in kept_ids if "/point_path/" in i}
    # byte-identical re-export
    again = export_egopathbench([sel_run], tmp_path / "b", bench)
    assert s.files == again.files
    for rel in s.files:
        assert (s.root / rel).read_bytes() == (again.root / rel).read_bytes(), rel
    # without the block nothing is selected and the report says so
    plain = export_egopathbench([sel_run], tmp_path / "c", BENCH)
    assert json.loads((plain.root / "benchmark.json").read_text())["benchmark_selection"] == {"enabled": False}
    assert plain.counts["point_path"]["benchmark"] == sum(q.task == "point_path" and q.split == "benchmark"
                                                          for q in full)


def test_export_loads_with_datasets(sel_run, tmp_path):
    from datasets import load_dataset

    from packagers.egopath import export_egopathbench

    s = export_egopathbench([sel_run], tmp_path / "a", BENCH | {"benchmark_selection": SEL})
    ds = load_dataset(str(s.root), "embodied_path", split="benchmark", cache_dir=str(tmp_path / "cache"))
    assert len(ds) == s.counts["embodied_path"]["benchmark"] == s.selection["questions"]["kept"]["embodied_path"]
