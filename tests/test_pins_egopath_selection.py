"""The pure parts of EgoPathBench's challenge-subset selection (packagers/egopath_selection.py):
config checks just inside / outside their bounds, the group cap, greedy order and ties,
saturation, weighted score and quantiles, on hand-built bundles."""
from __future__ import annotations

import hashlib
import math

import pytest

from packagers import egopath_selection as sel
from packagers.egopath_selection import (COMPONENTS, DEFAULTS, KINDS, QUANTILES, Bundle, EgoPathSelectionError,
                                         greedy_select, group_cap, resolve_config)


def _b(bid: str, score: float, group: str = "g") -> Bundle:
    return Bundle(bid, "route", bid, group, (bid + "-q",), ("point_path",), {}, score)


def test_defaults_are_table_1():
    assert KINDS == ("traversability", "route")
    assert COMPONENTS == {"traversability": ("clutter", "boundary", "difference"),
                          "route": ("clutter", "boundary", "difference", "competing", "composition")}
    cfg = resolve_config(None)
    assert cfg == {"enabled": True, "traversability_bundles": 146, "route_bundles": 309, "max_group_share": 0.1,
                   "paired_routes_only": False,
                   "weights": {"clutter": 1.0, "boundary": 1.0, "difference": 1.0, "competing": 1.0,
                               "composition": 1.0},
                   "norms": {"clutter_objects": 12, "clutter_ids": 16, "detour_ratio": 0.5, "competing_norm": 3,
                             "composition_edges": 6}}
    assert QUANTILES == (0.0, 0.25, 0.5, 0.75, 1.0)
    # the defaults are copied, never mutated by an override
    resolve_config({"weights": {"clutter": 2}})
    assert DEFAULTS["weights"]["clutter"] == 1.0


def test_overrides_are_applied_as_floats():
    cfg = resolve_config({"weights": {"clutter": 2}, "norms": {"clutter_ids": 8}, "route_bundles": 0,
                          "max_group_share": 1, "enabled": False, "paired_routes_only": True})
    assert cfg["weights"]["clutter"] == 2.0 and type(cfg["weights"]["clutter"]) is float
    assert cfg["weights"]["boundary"] == 1.0
    assert cfg["norms"]["clutter_ids"] == 8.0 and cfg["norms"]["clutter_objects"] == 12
    assert cfg["route_bundles"] == 0 and cfg["max_group_share"] == 1.0 and type(cfg["max_group_share"]) is float
    assert cfg["enabled"] is False and cfg["paired_routes_only"] is True


@pytest.mark.parametrize("config, message", [
    ({"bogus": 1}, "benchmark_selection: unknown key 'bogus'"),
    ({"weights": [1]}, "benchmark_selection.weights must be a mapping, got [1]"),
    ({"norms": {"x": 1}}, "benchmark_selection.norms: unknown key(s) ['x']"),
    ({"enabled": 1}, "benchmark_selection.enabled must be true/false, got 1"),
    ({"paired_routes_only": "no"}, "benchmark_selection.paired_routes_only must be true/false"),
    ({"route_bundles": -1}, "benchmark_selection.route_bundles must be a non-negative integer, got -1"),
    ({"traversability_bundles": True}, "benchmark_selection.traversability_bundles must be a non-negative integer"),
    ({"traversability_bundles": 1.0}, "traversability_bundles must be a non-negative integer"),
    ({"max_group_share": 0}, "benchmark_selection.max_group_share must be in (0, 1], got 0"),
    ({"max_group_share": 1.0001}, "max_group_share must be in (0, 1]"),
    ({"max_group_share": True}, "max_group_share must be in (0, 1]"),
    ({"max_group_share": "0.5"}, "max_group_share must be in (0, 1]"),
    ({"weights": {"clutter": -0.1}}, "benchmark_selection.weights must be finite and >= 0"),
    ({"weights": {"clutter": math.inf}}, "weights must be finite"),
    ({"weights": {"clutter": math.nan}}, "weights must be finite"),
    ({"weights": {"competing": 0, "composition": 0, "clutter": 0, "boundary": 0, "difference": 0}},
     "benchmark_selection.weights: all traversability components weigh 0"),
    ({"weights": {"competing": 0, "composition": 0, "clutter": 0, "boundary": 0}}, None),
    ({"norms": {"detour_ratio": 0}}, "benchmark_selection.norms must be finite and > 0"),
    ({"norms": {"detour_ratio": -1}}, "norms must be finite and > 0"),
    ({"norms": {"detour_ratio": math.inf}}, "norms must be finite and > 0"),
])
def test_bad_config_is_named(config, message):
    if message is None:
        assert resolve_config(config)["weights"]["difference"] == 1.0
        return
    with pytest.raises(EgoPathSelectionError) as exc:
        resolve_config(config)
    assert message in str(exc.value)


def test_only_route_components_weighted_zero_is_refused_for_routes_only():
    # traversability keeps weight on clutter; routes' five all 0 is impossible without touching those three,
    # so weigh the route-only components and clutter/boundary/difference 0: both kinds weigh 0 -> traversability named
    with pytest.raises(EgoPathSelectionError, match="all traversability components weigh 0"):
        resolve_config({"weights": {"clutter": 0, "boundary": 0, "difference": 0}})
    cfg = resolve_config({"weights": {"clutter": 0, "boundary": 0, "difference": 1e-9, "competing": 0,
                                      "composition": 0}})
    assert cfg["weights"]["difference"] == 1e-9


def test_group_cap():
    assert group_cap(309, 0.1) == 30
    assert group_cap(146, 0.1) == 14
    assert group_cap(10, 0.1) == 1      # floor(1.0) despite float error (0.1 * 10 = 1.0000000000000002 or 0.999..)
    assert group_cap(30, 0.1) == 3      # 0.1 * 30 = 3.0000000000000004
    assert group_cap(3, 0.7) == 2       # 2.1 -> 2
    assert group_cap(5, 0.1) == 1       # never below one
    assert group_cap(0, 0.5) == 1
    assert group_cap(7, 1.0) == 7
    assert group_cap(29, 0.1) == 2      # 2.9 -> 2


def test_greedy_keeps_everything_when_the_pool_fits():
    pool = [_b("a", 0.1), _b("b", 0.9)]
    assert greedy_select(pool, 2, 0.1) == (pool, None)
    assert greedy_select(pool, 5, 0.1) == (pool, None)
    assert greedy_select([], 0, 0.1) == ([], None)


def test_greedy_prefers_higher_scores_under_the_cap():
    pool = [_b("a1", 0.9, "A"), _b("a2", 0.8, "A"), _b("a3", 0.7, "A"), _b("b1", 0.5, "B"), _b("c1", 0.1, "C"),
            _b("b2", 0.4, "B")]
    kept, cap = greedy_select(pool, 4, 0.5)   # cap = floor(2.0) = 2 per group
    assert cap == 2
    assert [b.bundle_id for b in kept] == ["a1", "a2", "b1", "b2"]
    kept, cap = greedy_select(pool, 3, 0.34)  # cap 1: one per group, best of each
    assert cap == 1 and [b.bundle_id for b in kept] == ["a1", "b1", "c1"]
    # a hard cap: fewer than asked for rather than concentrating
    kept, cap = greedy_select(pool[:3] + [_b("b1", 0.5, "B")], 3, 0.34)
    assert cap == 1 and [b.bundle_id for b in kept] == ["a1", "b1"]
    kept, _ = greedy_select(pool, 1, 1.0)
    assert [b.bundle_id for b in kept] == ["a1"]


def test_ties_break_on_the_sha256_of_the_id():
    ids = [f"f-{i}/route/0" for i in range(6)]
    pool = [_b(i, 0.5, f"g{n}") for n, i in enumerate(ids)]
    kept, _ = greedy_select(pool, 3, 1.0)
    expected = sorted(ids, key=lambda i: hashlib.sha256(f"egopath-selection:{i}".encode()).hexdigest())[:3]
    assert [b.bundle_id for b in kept] == expected
    assert [b.bundle_id for b in greedy_select(list(reversed(pool)), 3, 1.0)[0]] == expected
    assert sel._tiebreak("x") == hashlib.sha256(b"egopath-selection:x").hexdigest()


def test_saturation_score_and_quantiles():
    assert sel._sat(3, 12) == 0.25 and sel._sat(24, 12) == 1.0 and sel._sat(-1, 3) == 0.0 and sel._sat(12, 12) == 1.0
    comps = {"clutter": 0.2, "boundary": 0.4, "difference": 0.9, "competing": 0.0, "composition": 0.5}
    w = {"clutter": 1.0, "boundary": 3.0, "difference": 0.0, "competing": 1.0, "composition": 1.0}
    assert sel._score(comps, "traversability", w) == pytest.approx((0.2 + 1.2) / 4.0)
    assert sel._score(comps, "route", w) == pytest.approx((0.2 + 1.2 + 0.0 + 0.5) / 6.0)
    assert sel._score({"clutter": 1 / 3, "boundary": 0, "difference": 0}, "traversability",
                      DEFAULTS["weights"]) == round(1 / 9, 12)
    assert sel._quantiles([]) is None
    assert sel._quantiles([0.0, 1.0, 2.0, 3.0, 4.0]) == {"q0": 0.0, "q25": 1.0, "q50": 2.0, "q75": 3.0, "q100": 4.0}
    assert sel._quantiles([1 / 3]) == {"q0": 0.333333, "q25": 0.333333, "q50": 0.333333, "q75": 0.333333,
                                       "q100": 0.333333}
    assert sel._quantiles([0.0, 1.0]) == {"q0": 0.0, "q25": 0.25, "q50": 0.5, "q75": 0.75, "q100": 1.0}


# ------------------------------------------------------------------ components on hand-made sheets
from geometry.egopath_schema import Question, RouteUnit, Sheet, TargetInfo, ViewAnnotation, Waypoint  # noqa: E402

NORMS = resolve_config(None)["norms"]


def _wp(i, x, y, z=0.0, pf=True, ef=True, kind="ground"):
    return Waypoint(display_id=i, kind=kind, pixel=[float(i), float(i)], world=[x, y, z], point_feasible=pf,
                    embodied_feasible=ef, clearance_m=0.5)


def _target(oid, same=1):
    return TargetInfo(object_id=oid, name=f"obj{oid}", category="chair", color="red", bbox_px=[0, 0, 10, 10],
                      visible_surface=0.7, distance_m=2.0, strict_visible=True, same_category_in_view=same)


# route sheet: 1 (0,0) -> 2 (3,0) -> 3 (3,4) is embodied-legal, 3 is the embodied goal; 4 (6,0) sits 1 m up
# (z = 1: a length on the floor plane must ignore it); 5 (0,4) is point-only.
ROUTE_WPS = [_wp(1, 0, 0), _wp(2, 3, 0), _wp(3, 3, 4), _wp(4, 6, 0, z=1.0), _wp(5, 0, 4, ef=False)]
ROUTE_EDGES = dict(point_edges=[[1, 2], [2, 3], [1, 4], [3, 4], [1, 5], [3, 5]],
                   embodied_edges=[[1, 2], [2, 3], [1, 4], [3, 4]])


def _ann(units, trav=None, route=None, targets=(), visible=()):
    return ViewAnnotation(image_size=[96, 72], camera_xy=[0.0, 0.0],
                          traversability=trav or Sheet(kind="traversability", waypoints=[_wp(1, 0, 0)]),
                          route=route or Sheet(kind="route", waypoints=ROUTE_WPS, **ROUTE_EDGES),
                          targets=list(targets), routes=list(units), visible_objects=list(visible))


def _unit(pref=None, eref=None, pgoals=(3,), egoals=(3,), target=11, **kw):
    return RouteUnit(route_id="0", target_object_id=target, target_text="the red chair", point_goal_ids=list(pgoals),
                     embodied_goal_ids=list(egoals), point_reference=pref, embodied_reference=eref, **kw)


def test_route_lengths_from_the_sheet_on_the_floor_plane():
    # no stored shortest lengths: both are summed over the sheet's [x, y]
    # point 1-2-3: 3 + 4 = 7 m; embodied 1-4-3: 6 + hypot(3, 4) = 11 m (4's z = 1 ignored)
    # difference = min(1, (11 / 7 - 1) / detour_ratio) with detour_ratio 1.0 -> 4/7
    ann = _ann([_unit(pref=[1, 2, 3], eref=[1, 4, 3])], targets=[_target(11)])
    r = sel.route_components(ann, "0", NORMS | {"detour_ratio": 1.0})
    assert r["difference"] == pytest.approx(4 / 7)
    assert sel._path_length([1, 4, 3], ann.route) == 11.0
    assert sel._path_length([1, 2, 3, 5], ann.route) == 10.0    # 3 + 4 + 3
    assert sel._path_length([2], ann.route) == 0.0
    # a stored length wins over the sheet: embodied 14 m against the sheet's 7 m point route
    r = sel.route_components(_ann([_unit(pref=[1, 2, 3], eref=[1, 4, 3], embodied_shortest_m=14.0)]), "0",
                             NORMS | {"detour_ratio": 2.0})
    assert r["difference"] == pytest.approx(0.5)
    r = sel.route_components(_ann([_unit(pref=[1, 2, 3], eref=[1, 4, 3], point_shortest_m=5.5)]), "0",
                             NORMS | {"detour_ratio": 2.0})
    assert r["difference"] == pytest.approx(0.5)                # (11 / 5.5 - 1) / 2


def test_route_naming_an_id_off_the_sheet_is_an_error():
    ann = _ann([_unit(pref=[1, 2, 3], eref=[1, 9, 3])])
    with pytest.raises(EgoPathSelectionError) as exc:
        sel.route_components(ann, "0", NORMS)
    assert str(exc.value) == "reference route [1, 9, 3] names id 9 not on the route sheet"
    with pytest.raises(EgoPathSelectionError) as exc:
        sel.route_components(ann, "7", NORMS)
    assert str(exc.value) == "route_id '7': 0 route units in the annotation (need 1)"


def test_route_difference_cases():
    d = lambda unit, **n: sel.route_components(_ann([unit]), "0", NORMS | n)["difference"]  # noqa: E731
    # embodied only: nothing to compare against
    assert d(_unit(eref=[1, 2, 3])) == 0.0
    # every point edge is embodied and every id embodied-feasible, but it ends at 4, not an embodied goal
    # (lengths equal, so a legal reading would give 0)
    assert d(_unit(pref=[1, 2, 3, 4], eref=[1, 4], pgoals=(4,), point_shortest_m=6.0, embodied_shortest_m=6.0)) == 1.0
    # an edge 1-5 that is only a point edge, and 5 not embodied-feasible
    assert d(_unit(pref=[1, 5, 3], eref=[1, 2, 3], point_shortest_m=7.0, embodied_shortest_m=7.0)) == 1.0
    # start already a goal: point length 0 -> no detour defined -> 0
    assert d(_unit(pref=[1], eref=[1], pgoals=(1,), egoals=(1,), point_shortest_m=0.0,
                   embodied_shortest_m=0.0)) == 0.0
    assert d(_unit(pref=[1], eref=[1, 2], pgoals=(1,), egoals=(1,), point_shortest_m=0.0,
                   embodied_shortest_m=3.0)) == 0.0
    # a point length below 1 m still gives a detour: (0.6 / 0.5 - 1) / 0.5 = 0.4
    assert d(_unit(pref=[1], eref=[1, 2], pgoals=(1,), egoals=(1,), point_shortest_m=0.5,
                   embodied_shortest_m=0.6)) == pytest.approx(0.4)


def test_route_competing_and_composition():
    c = lambda unit, targets=(): sel.route_components(_ann([unit], targets=targets), "0", NORMS)  # noqa: E731
    # target not among the annotated targets: counts as unique -> competing 0
    r = c(_unit(pref=[1, 2, 3], eref=[1, 2, 3], target=99), targets=[_target(11, same=4)])
    assert r["competing"] == 0.0
    assert c(_unit(pref=[1, 2, 3], eref=[1, 2, 3]), targets=[_target(11, same=4)])["competing"] == 1.0
    assert c(_unit(pref=[1, 2, 3], eref=[1, 2, 3]), targets=[_target(11, same=2)])["competing"] == pytest.approx(1 / 3)
    # composition = max reference edges over both sides / 6
    assert c(_unit(pref=[1, 2], eref=[1, 4, 3, 2, 1, 4], pgoals=(2,), egoals=(3,),
                   point_shortest_m=3.0, embodied_shortest_m=3.0))["composition"] == pytest.approx(5 / 6)
    assert c(_unit(pref=[1, 2, 3], eref=[1, 2]))["composition"] == pytest.approx(2 / 6)
    assert c(_unit(pref=[1], eref=[1], pgoals=(1,), egoals=(1,), point_shortest_m=0.0,
                   embodied_shortest_m=0.0))["composition"] == 0.0
    assert c(_unit(eref=[1, 2, 3, 4]))["composition"] == pytest.approx(3 / 6)


def test_empty_sheets_and_clutter_fallback():
    empty_t = Sheet(kind="traversability", waypoints=[])
    assert sel._clearance_sensitive_share(empty_t) == 0.0
    # no point-feasible ground candidate: difference 0 (nothing the embodied agent could lose)
    trav = Sheet(kind="traversability", waypoints=[_wp(1, 0, 0, pf=False, ef=False), _wp(2, 1, 0, pf=False, ef=False)])
    t = sel.traversability_components(_ann([], trav=trav), NORMS)
    assert t == {"clutter": pytest.approx(0.5 * 2 / 16), "boundary": 0.0, "difference": 0.0}
    # no visible-object list: the targets count as the visible objects (2 of 12)
    ann = _ann([], trav=trav, targets=[_target(11), _target(12)])
    assert sel._clutter(ann, trav, NORMS) == pytest.approx(0.5 * 2 / 12 + 0.5 * 2 / 16)
    vis = [{"object_id": i} for i in range(6)]
    assert sel._clutter(_ann([], trav=trav, targets=[_target(11)], visible=vis), trav, NORMS) == \
        pytest.approx(0.5 * 6 / 12 + 0.5 * 2 / 16)


# ------------------------------------------------------------------------ bundles and the report
def _q(qid, task, frame="f-0", group="g", route_id=None, split="benchmark"):
    return Question(question_id=qid, task=task, split=split, scene_id="s", scene_group=group, frame_id=frame,
                    route_id=route_id, system_prompt="", user_prompt="", display_ids=[], waypoint_world={},
                    answer="[]")


def _pair(frame, group="g"):
    return [_q(f"{frame}/pt", "point_traversability", frame, group),
            _q(f"{frame}/et", "embodied_traversability", frame, group)]


def test_bundle_errors_are_named():
    ann = _ann([_unit(pref=[1, 2, 3], eref=[1, 2, 3])])
    cfg = resolve_config(None)
    cases = [([_q("q1", "point_path")], "q1: route question without route_id"),
             ([_q("q1", "point_path", route_id="0"), _q("q2", "point_path", route_id="0")],
              "bundle f-0/route/0: a task occurs twice (['point_path', 'point_path'])"),
             ([_q("q1", "point_traversability", group="a"), _q("q2", "embodied_traversability", group="b")],
              "bundle f-0/traversability: questions from different scene groups")]
    for qs, message in cases:
        with pytest.raises(EgoPathSelectionError) as exc:
            sel.make_bundles(qs, {"f-0": ann}, cfg)
        assert str(exc.value) == message
    bogus = _q("q1", "point_path").model_construct(**(_q("q1", "point_path").__dict__ | {"task": "jump"}))
    with pytest.raises(EgoPathSelectionError) as exc:
        sel.make_bundles([bogus], {"f-0": ann}, cfg)
    assert str(exc.value) == "q1: unknown task 'jump'"


def test_bundle_fields_and_component_rounding():
    # traversability: 3 candidates, 1 clearance-sensitive -> boundary 1/3, stored to 12 decimals
    trav = Sheet(kind="traversability", waypoints=[_wp(1, 0, 0), _wp(2, 1, 0, ef=False), _wp(3, 2, 0, pf=False, ef=False)])
    ann = _ann([], trav=trav)
    (b,) = sel.make_bundles(_pair("f-0", "grp"), {"f-0": ann}, resolve_config(None))
    assert (b.bundle_id, b.kind, b.frame_id, b.scene_group, b.question_ids, b.tasks) == (
        "f-0/traversability", "traversability", "f-0", "grp", ("f-0/et", "f-0/pt"),
        ("embodied_traversability", "point_traversability"))
    # clutter 0.5 * 3/16 = 0.09375; boundary 1/3; difference |{1,2} \ {1}| / 2 = 0.5
    assert b.components == {"clutter": 0.09375, "boundary": 0.333333333333, "difference": 0.5}
    assert b.score == round((0.09375 + 0.333333333333 + 0.5) / 3, 12)


def _anns(frames):
    trav = Sheet(kind="traversability", waypoints=[_wp(1, 0, 0), _wp(2, 1, 0, ef=False)])
    return {f: _ann([], trav=trav) for f in frames}


def test_report_fields():
    frames = ["f-0", "f-1", "f-2"]
    qs = _pair("f-0", "A") + _pair("f-1", "A") + _pair("f-2", "B") + [_q("t/pt", "point_traversability", "t", "T",
                                                                         split="train")]
    kept, rep = sel.select_benchmark(qs, _anns(frames + ["t"]), {"traversability_bundles": 2, "max_group_share": 0.5,
                                                                 "route_bundles": 7})
    # equal scores: cap 1 per group, so one of A's two and B's one are kept
    assert rep["enabled"] is True
    assert rep["target_bundles"] == {"traversability": 2, "route": 7}
    assert rep["pool_bundles"] == {"traversability": 3, "route": 0}
    assert rep["selected_bundles"] == {"traversability": 2, "route": 0}
    assert rep["group_cap"] == {"traversability": 1, "route": None}
    assert rep["groups"]["traversability"] == {"A": {"pool": 2, "kept": 1}, "B": {"pool": 1, "kept": 1}}
    assert rep["groups"]["route"] == {}
    assert rep["questions"]["pool"] == {"point_traversability": 3, "embodied_traversability": 3}
    assert rep["questions"]["kept"] == {"point_traversability": 2, "embodied_traversability": 2}
    assert rep["questions"]["dropped"] == {"point_traversability": 1, "embodied_traversability": 1}
    assert rep["config"] == {"traversability_bundles": 2, "route_bundles": 7, "max_group_share": 0.5,
                             "paired_routes_only": False, "weights": DEFAULTS["weights"], "norms": DEFAULTS["norms"]}
    assert len(kept) == 5 and kept[-1].question_id == "t/pt"


def test_annotations_input_checks():
    ann = _ann([])
    assert sel._annotations({"f": ann}) == {"f": ann}

    class _Rec:
        frame_id = "f-9"

    class _View:
        record, annotation = _Rec(), ann

    assert sel._annotations([_View()]) == {"f-9": ann}
    with pytest.raises(EgoPathSelectionError) as exc:
        sel._annotations([object()])
    assert str(exc.value) == "views_or_annotations must be {frame_id: ViewAnnotation} or View objects"
    with pytest.raises(EgoPathSelectionError) as exc:
        sel._annotations({"f-1": {"route": 3}})
    assert str(exc.value) == "f-1: expected a ViewAnnotation, got dict"
