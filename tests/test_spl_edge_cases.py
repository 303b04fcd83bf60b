"""EgoPath SPL on its edge cases, against metrics.md §6's definition computed here by hand.

SPL_i = S_i * l_i / max(p_i, l_i) (Anderson et al. 2018); when l_i = p_i = 0 the term is S_i.
So when the start is already an acceptable goal (l_i = 0), the one-ID answer [start]
scores 1, but a route that wanders off and comes back to the start (p_i > 0) scores 0:
it succeeds (S_i = 1) with none of the efficiency.

Malformed answers are wrong: they fail at `format` or `invalid_id`, never succeed and
score SPL 0.
"""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorers.egopath as ep
from geometry.egopath_schema import Question

# a 3 x 2 grid of waypoints, 1 m apart, with grid edges
WORLD = {1: (0.0, 0.0), 2: (1.0, 0.0), 3: (2.0, 0.0), 4: (0.0, 1.0), 5: (1.0, 1.0), 6: (2.0, 1.0)}
EDGES = [(1, 2), (2, 3), (4, 5), (5, 6), (1, 4), (2, 5), (3, 6)]
NEIGHBOURS = {i: sorted({b for a, b in EDGES if a == i} | {a for a, b in EDGES if b == i}) for i in WORLD}


def question(start=1, goals=(6,), shortest=3.0, reference=(1, 2, 3, 6), edges=EDGES) -> Question:
    ids = sorted(WORLD)
    return Question(question_id="q", task="point_path", split="benchmark", scene_id="s", scene_group="g",
                    frame_id="f", route_id="u", system_prompt="sys", user_prompt="go", display_ids=ids,
                    waypoint_world={str(i): [x, y, 0.0] for i, (x, y) in WORLD.items()},
                    waypoint_pixels={str(i): [10.0 * i, 20.0] for i in ids},
                    start_id=start, legal_edges=[list(e) for e in edges], goal_ids=list(goals),
                    reference_route=list(reference), shortest_m=shortest, target_text="the chair",
                    strict_visible=True, answer=json.dumps(list(reference)))


def hand_length(route) -> float:
    return sum(math.dist(WORLD[a], WORLD[b]) for a, b in zip(route, route[1:]))


def hand_spl(success: bool, ell: float, p: float) -> float:
    """metrics.md §6, with the l = p = 0 case defined as S_i."""
    if not success:
        return 0.0
    if ell == 0 and p == 0:
        return 1.0
    return ell / max(p, ell)


# ---------------------------------------------------------------- start already a goal

def test_start_is_a_goal_and_the_answer_stays_there():
    o = ep.evaluate_route(question(start=1, goals=(1, 6), shortest=0.0, reference=(1,)), "[1]")
    assert o.success and o.stage is None and o.path_m == 0.0 and o.shortest_m == 0.0
    assert o.spl == 1.0


@pytest.mark.parametrize("route", [[1, 2, 1], [1, 4, 5, 2, 1], [1, 2, 3, 6, 5, 4, 1]])
def test_wandering_back_to_the_start_is_a_success_without_efficiency(route):
    o = ep.evaluate_route(question(start=1, goals=(1, 6), shortest=0.0, reference=(1,)), json.dumps(route))
    assert o.success and o.stage is None and o.valid
    assert o.path_m == pytest.approx(hand_length(route)) and o.path_m > 0
    assert o.spl == 0.0  # 0 / max(p, 0) with p > 0
    m = ep.route_metrics([o])
    assert m["sr"] == 1.0 and m["spl"] == 0.0


def test_worked_example_from_metrics_md():
    """S=[1,1,0,1], l=[5,4,3,6], p=[5,8,2,3] -> terms 1, 0.5, 0, 1; SPL 0.625 (metrics.md §6)."""
    terms = [hand_spl(s, ell, p) for s, ell, p in zip([1, 1, 0, 1], [5, 4, 3, 6], [5, 8, 2, 3])]
    assert terms == [1.0, 0.5, 0.0, 1.0] and sum(terms) / 4 == 0.625
    # the same shape on the grid: the shortest (3 m), a detour (5 m) and a failure
    q = question()
    outs = [ep.evaluate_route(q, "[1, 2, 3, 6]"), ep.evaluate_route(q, "[1, 4, 5, 2, 3, 6]"),
            ep.evaluate_route(q, "[1, 2, 5]")]
    assert [o.spl for o in outs] == [1.0, pytest.approx(3 / 5), 0.0]
    m = ep.route_metrics(outs)
    assert m["sr"] == pytest.approx(2 / 3) and m["spl"] == pytest.approx((1 + 0.6) / 3)


def test_route_length_is_euclidean_on_the_floor_plane():
    """A diagonal edge 1 -> 5 is sqrt(2) m long (not 2 m): the detour 1-5-6 is 1 + sqrt(2)."""
    q = question(edges=EDGES + [(1, 5)], shortest=2.0)
    o = ep.evaluate_route(q, "[1, 5, 6]")
    assert o.success and o.path_m == pytest.approx(1 + math.sqrt(2))
    assert o.spl == pytest.approx(2.0 / (1 + math.sqrt(2)))


def test_spl_is_capped_at_one_when_the_route_beats_the_stored_shortest():
    """metrics.md §6: p < l can happen with waypoint-graph lengths; the max caps the term at 1."""
    o = ep.evaluate_route(question(shortest=3.5), "[1, 2, 3, 6]")
    assert o.success and o.path_m == pytest.approx(3.0) and o.spl == 1.0


def _walks(start: int):
    """Random walks on the grid from `start` (legal edges only, revisits allowed)."""
    return st.lists(st.integers(0, 9), max_size=8).map(lambda steps: _walk(start, steps))


def _walk(start: int, steps) -> list[int]:
    route = [start]
    for s in steps:
        nb = NEIGHBOURS[route[-1]]
        route.append(nb[s % len(nb)])
    return route


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(WORLD)), st.data(), st.sets(st.sampled_from(sorted(WORLD)), min_size=1))
def test_spl_matches_the_definition_on_random_legal_walks(start, data, goals):
    route = data.draw(_walks(start))
    # l = shortest grid distance from the start to a goal (Manhattan on this grid)
    ell = min(abs(WORLD[start][0] - WORLD[g][0]) + abs(WORLD[start][1] - WORLD[g][1]) for g in goals)
    q = question(start=start, goals=tuple(sorted(goals)), shortest=ell, reference=(start,))
    o = ep.evaluate_route(q, json.dumps(route))
    success = route[-1] in goals
    assert o.success == success and o.valid
    assert o.spl == pytest.approx(hand_spl(success, ell, hand_length(route)), abs=1e-12)
    assert 0.0 <= o.spl <= float(o.success)


# ---------------------------------------------------------------- malformed answers

UNPARSEABLE = st.one_of(
    st.text(alphabet="abc ,.:\n{}()", max_size=60),                        # no array at all
    st.just("[]"), st.just("[1.0, 2, 3, 6]"), st.just("[true, 2, 3, 6]"), st.just("[[1, 2, 3, 6]]"),
    st.just('[{"id": 1}]'), st.just("[1, 2, 3, 6"), st.just("1, 2, 3, 6"), st.just("[null]"),
    st.just('["1", "two", "3"]'), st.just("[1, 2, 3, 6]".replace(",", ";")),
    st.sampled_from([None, 17, 3.5, ["1", "2"], {"route": [1, 2, 3, 6]}]),      # not text
)
MALFORMED = st.one_of(
    UNPARSEABLE,
    st.integers(min_value=7, max_value=10**12).map(lambda n: f"[1, 2, {n}, 6]"),  # an id not shown
    st.integers(min_value=2, max_value=600).map(lambda n: "[1, " + "9" * n + "]"),  # a huge id
)


@settings(max_examples=300, deadline=None)
@given(MALFORMED)
def test_malformed_route_answers_score_as_wrong(text):
    o = ep.evaluate_route(question(), text)
    assert o.stage in ("format", "invalid_id")
    assert not o.success and not o.valid and o.spl == 0.0
    m = ep.route_metrics([o, ep.evaluate_route(question(), "[1, 2, 3, 6]")])
    assert m["sr"] == 0.5 and m["spl"] == 0.5 and m["vpr"] == 0.5


@settings(max_examples=200, deadline=None)
@given(UNPARSEABLE)
def test_unparseable_traversability_answers_predict_nothing(text):
    q = Question(question_id="t", task="point_traversability", split="benchmark", scene_id="s", scene_group="g",
                 frame_id="f", system_prompt="sys", user_prompt="walkable?", display_ids=list(range(1, 7)),
                 waypoint_world={str(i): [float(i), 0.0, 0.0] for i in range(1, 7)},
                 waypoint_pixels={str(i): [10.0 * i, 20.0] for i in range(1, 7)},
                 positives=[1, 2, 3], answer="[1, 2, 3]")
    o = ep.evaluate_traversability(q, text)
    # an unparseable answer is the empty set: every positive missed, nothing right
    assert (o.tp, o.fp, o.fn, o.tn, o.predicted) == (0, 0, 3, 3, [])
