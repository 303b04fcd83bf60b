"""scorers.terms: worked examples of term / flag / verdict_of / first_failure with literal values.

What a record shows is the term's value (rounded to 6 places), its human-readable threshold
("<= 0.65 m"), and the pass/gray flags; a frame is accepted iff every term passes and
unscored iff every failing term is gray (RealityBench §4, App. D "gray"). Each case below is
worked by hand.
"""
from __future__ import annotations

import math

import pytest

from scorers.terms import TermResult, Verdict, first_failure, flag, term, verdict_of


@pytest.mark.parametrize("op, value, threshold, passed", [
    ("<=", 0.65, 0.65, True), ("<=", 0.6500001, 0.65, False), ("<=", 0.6499999, 0.65, True),
    ("<", 0.65, 0.65, False), ("<", 0.6499999, 0.65, True), ("<", 0.6500001, 0.65, False),
    (">=", 0.9, 0.9, True), (">=", 0.8999999, 0.9, False), (">=", 0.9000001, 0.9, True),
    (">", 0.9, 0.9, False), (">", 0.9000001, 0.9, True), (">", 0.8999999, 0.9, False),
    (">=", 25, 25, True), (">=", 24, 25, False),        # integer pixel counts
])
def test_each_comparison_on_and_either_side_of_its_threshold(op, value, threshold, passed):
    t = term("x", "scene", value, op, threshold)
    assert t.passed is passed and t.gray is False


@pytest.mark.parametrize("op, threshold, unit, text", [
    ("<=", 0.65, "m", "<= 0.65 m"),
    (">=", 0.0005, "", ">= 0.0005"),
    ("<", 75.0, "deg", "< 75 deg"),
    (">=", 25, "px", ">= 25 px"),
    (">", 1e-7, "", "> 1e-07"),
])
def test_threshold_text(op, threshold, unit, text):
    assert term("x", "frame", 1.0, op, threshold, unit).threshold == text
    # a missing value shows the same threshold text
    assert term("x", "frame", None, op, threshold, unit).threshold == text


def test_fields_of_a_term_are_what_the_record_shows():
    t = term("crossing_distance", "scene", 0.123456789, "<=", 0.65, "m")
    assert t == TermResult(name="crossing_distance", side="scene", value=0.123457, threshold="<= 0.65 m",
                           unit="m", passed=True, gray=False)
    f = term("crossing_pixels", "frame", 24, ">=", 25, "px")
    assert f.model_dump() == {"name": "crossing_pixels", "side": "frame", "value": 24.0, "threshold": ">= 25 px",
                              "unit": "px", "passed": False, "gray": False}
    assert isinstance(f.value, float)
    # the value is rounded to 6 decimals, half to even on the binary value
    assert term("x", "scene", 1.2345675e-3, ">=", 0.0).value == 0.001235
    assert term("x", "scene", -2.0000004, ">=", 0.0).value == -2.0


def test_missing_values_fail_hard_and_are_never_gray():
    for v in (None, float("nan"), math.nan):
        t = term("x", "scene", v, "<=", 0.65, "m", gray_band=(-1e9, 1e9))
        assert (t.value, t.passed, t.gray, t.unit) == (None, False, False, "m")
    # +-inf is a number: it compares
    assert term("x", "scene", math.inf, ">=", 1.0).passed is True
    assert term("x", "scene", -math.inf, ">=", 1.0).passed is False


def test_gray_band_worked_example_slope_gauge_yaw():
    """slope_gauge: |yaw| <= 15 passes; 15 < |yaw| <= 45 is gray; beyond 45 fails hard."""
    band = (15.0, 45.0)
    cases = [(0.0, True, False), (15.0, True, False), (15.5, False, True), (45.0, False, True),
             (45.5, False, False), (90.0, False, False)]
    for yaw, passed, gray in cases:
        t = term("gauge_yaw", "scene", yaw, "<=", 15.0, "deg", gray_band=band)
        assert (t.passed, t.gray) == (passed, gray), yaw
    # gray needs a band: the same failing value without one is a hard fail
    assert term("gauge_yaw", "scene", 30.0, "<=", 15.0, "deg").gray is False
    # a value below the band's lower end is not gray either (a '>=' term failing below lo)
    t = term("x", "scene", 0.1, ">=", 0.5, gray_band=(0.2, 0.5))
    assert (t.passed, t.gray) == (False, False)
    t = term("x", "scene", 0.2, ">=", 0.5, gray_band=(0.2, 0.5))
    assert (t.passed, t.gray) == (False, True)


def test_a_passing_term_is_never_gray():
    t = term("x", "scene", 20.0, "<=", 30.0, gray_band=(10.0, 40.0))
    assert (t.passed, t.gray) == (True, False)


def test_flag():
    yes, no = flag("front", "scene", 1), flag("on_module", "scene", 0)
    assert yes == TermResult(name="front", side="scene", value=True, threshold="true", passed=True, gray=False)
    assert no.model_dump() == {"name": "on_module", "side": "scene", "value": False, "threshold": "true", "unit": "",
                               "passed": False, "gray": False}
    assert yes.value is True and no.value is False
    g = flag("g", "frame", False, gray=1)
    assert (g.passed, g.gray, g.side) == (False, True, "frame") and g.gray is True


def _t(name, passed, gray=False):
    return TermResult(name=name, side="scene", value=None, threshold="", passed=passed, gray=gray)


@pytest.mark.parametrize("terms, verdict, first", [
    ([], Verdict.ACCEPT, None),
    ([_t("a", True), _t("b", True)], Verdict.ACCEPT, None),
    ([_t("a", True), _t("b", False)], Verdict.REJECT, "b"),
    ([_t("a", False, True)], Verdict.UNSCORED, "a"),
    ([_t("a", False, True), _t("b", False, True)], Verdict.UNSCORED, "a"),
    # one hard failure among gray ones rejects, and is the one shown, wherever it sits
    ([_t("g", False, True), _t("h", False)], Verdict.REJECT, "h"),
    ([_t("h", False), _t("g", False, True)], Verdict.REJECT, "h"),
    ([_t("g1", False, True), _t("ok", True), _t("h1", False), _t("h2", False)], Verdict.REJECT, "h1"),
    # a passing term marked gray does not count as failing
    ([_t("p", True, True), _t("q", True)], Verdict.ACCEPT, None),
    ([_t("p", True, True), _t("g", False, True)], Verdict.UNSCORED, "g"),
])
def test_verdict_and_first_failure(terms, verdict, first):
    assert verdict_of(terms) == verdict
    assert first_failure(terms) == first


def test_a_boolean_value_stays_a_boolean():
    t = term("x", "scene", True, ">=", 1)
    assert t.value is True and t.passed is True
    t = term("x", "scene", False, ">=", 1)
    assert t.value is False and t.passed is False


def test_no_unit_by_default():
    t = term("crossing_in_frame", "scene", 0.95, ">=", 0.9)
    assert t.unit == "" and t.threshold == ">= 0.9"
