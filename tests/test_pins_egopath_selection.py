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
