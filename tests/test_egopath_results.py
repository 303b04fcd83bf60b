"""EgoPathBench scoring has a typed result: metrics.json validates as `EgoPathScore`, and
content outside the schema is refused before a report is written."""
from __future__ import annotations

import pytest
from pydantic import ValidationError

from scorers.egopath_metrics import score_predictions, score_result
from scorers.egopath_results import EgoPathScore
from scorers.egopath_baselines import reference_answers
from test_egopath_eval import small_benchmark


def _questions_and_answers():
    qs = small_benchmark()
    return qs, reference_answers(qs)


def test_reference_answers_score_100_as_a_typed_result():
    qs, answers = _questions_and_answers()
    res = score_result(qs, {"ref": answers}, n_resamples=20, seed=1)
    assert isinstance(res, EgoPathScore)
    assert res.models["ref"].score.estimate == pytest.approx(100.0)
    assert res.model_order == ["ref"] and res.settings.units == "percent"
    assert res.baselines["baseline:random"].score.estimate < 100.0
    assert res.models["ref"].tasks["point_path"].model_extra["sr"]["estimate"] == 100.0
    assert set(res.dataset.per_task) == {"point_traversability", "embodied_traversability", "point_path",
                                         "embodied_path", "intent_path"}


def test_content_outside_the_schema_is_refused():
    qs, answers = _questions_and_answers()
    metrics = score_predictions(qs, {"ref": answers}, n_resamples=0, seed=1)
    EgoPathScore.model_validate(metrics)
    with pytest.raises(ValidationError):
        EgoPathScore.model_validate({**metrics, "surprise": 1})
    bad = {**metrics, "models": {"ref": {**metrics["models"]["ref"], "score": {"estimate": "high"}}}}
    with pytest.raises(ValidationError):
        EgoPathScore.model_validate(bad)
