"""scorers.protocol.check_scorer: each way a module can break the scorer contract gets its
own message, and a module that keeps it (extras optional, as egopath's `timings=`) none."""
from __future__ import annotations

import types

from scorers.protocol import SIGNATURES, check_scorer


def _module(**fns):
    m = types.ModuleType("m")
    for k, v in fns.items():
        setattr(m, k, v)
    return m


def good_scene(geo, view):
    return []


def good_frame(geo, view, frame):
    return []


def good_gt(geo, view, frame=None):
    return {}


def test_signatures_table():
    assert SIGNATURES == {"score_scene": (("geo", "view"), {}),
                          "score_frame": (("geo", "view", "frame"), {}),
                          "ground_truth": (("geo", "view"), {"frame": None})}


def test_a_conforming_module_has_no_errors():
    assert check_scorer(_module(score_scene=good_scene, score_frame=good_frame, ground_truth=good_gt)) == []

    def gt_extra(geo, view, frame=None, timings=None):
        return {}

    def scene_extra(geo, view, *, timings=None):
        return []
    assert check_scorer(_module(score_scene=scene_extra, score_frame=good_frame, ground_truth=gt_extra)) == []


def test_missing_and_non_callable_functions():
    assert check_scorer(_module()) == ["m: no function score_scene", "m: no function score_frame",
                                       "m: no function ground_truth"]
    assert check_scorer(_module(score_scene=3, score_frame=good_frame, ground_truth=good_gt)) == [
        "m: no function score_scene"]


def test_wrong_names_or_order():
    def short(geo):
        return []
    errs = check_scorer(_module(score_scene=short, score_frame=good_frame, ground_truth=good_gt))
    assert errs == ["m.score_scene('geo',): parameters must start ('geo', 'view')"]

    def gt_no_frame(geo, view):
        return {}
    errs = check_scorer(_module(score_scene=good_scene, score_frame=good_frame, ground_truth=gt_no_frame))
    assert errs == ["m.ground_truth('geo', 'view'): parameters must start ('geo', 'view', 'frame')"]


def test_defaults_required_optional_and_extra():
    def scene_default(geo, view=None):
        return []

    def gt_frame_0(geo, view, frame=0):
        return {}

    def frame_extra(geo, view, frame, cache):
        return []
    errs = check_scorer(_module(score_scene=scene_default, score_frame=frame_extra, ground_truth=gt_frame_0))
    assert errs == ["m.score_scene: parameter view needs no default",
                    "m.score_frame: parameter cache needs a default (extras are optional)",
                    "m.ground_truth: parameter frame needs default None"]


def test_contract_parameters_must_be_positional():
    def kw_only(geo, *, view):
        return []

    def pos_only(geo, view, frame, /):
        return []
    errs = check_scorer(_module(score_scene=kw_only, score_frame=pos_only, ground_truth=good_gt))
    assert errs == ["m.score_scene: parameter view needs positional",
                    "m.score_frame: parameter geo needs positional",
                    "m.score_frame: parameter view needs positional",
                    "m.score_frame: parameter frame needs positional"]


def test_every_function_is_checked_after_a_bad_one():
    def short(geo):
        return []
    errs = check_scorer(_module(score_scene=short, score_frame=short, ground_truth=short))
    assert errs == ["m.score_scene('geo',): parameters must start ('geo', 'view')",
                    "m.score_frame('geo',): parameters must start ('geo', 'view', 'frame')",
                    "m.ground_truth('geo',): parameters must start ('geo', 'view', 'frame')"]
