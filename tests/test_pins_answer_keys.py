"""scorers.answer_keys: the defaults a key spec carries when an environment leaves them out
(exact match, no options, scored on acceptable frames only, no set-level question), and
what it refuses."""
from __future__ import annotations

import pytest
from pydantic import ValidationError

from scorers.answer_keys import EnvPrompt, KeySpec


def test_key_defaults():
    k = KeySpec(name="gap_in", type="number", grammar="a number")
    assert k.model_dump() == {"name": "gap_in", "type": "number", "grammar": "a number", "tolerance": None,
                              "options": [], "scored_on": "acceptable"}
    assert KeySpec(name="a", type="enum", grammar="g").options is not KeySpec(name="b", type="enum",
                                                                               grammar="g").options


@pytest.mark.parametrize("bad", [{"type": "float"}, {"scored_on": "some"}, {"extra": 1}, {"tolerance": "x"}])
def test_key_refuses_unknown_types_and_fields(bad):
    with pytest.raises(ValidationError):
        KeySpec(**({"name": "a", "type": "bool", "grammar": "g"} | bad))


@pytest.mark.parametrize("t", ["bool", "number", "string", "enum", "enum_list", "entries"])
def test_every_key_type(t):
    assert KeySpec(name="a", type=t, grammar="g", scored_on="all").type == t


def test_env_prompt_defaults():
    p = EnvPrompt(env="tape_gap", technician="t", requirement="r", question="q",
                  keys=[KeySpec(name="tilted", type="bool", grammar="true or false", scored_on="all")])
    assert p.set_level is False and p.keys[0].scored_on == "all"
    with pytest.raises(ValidationError):
        EnvPrompt(env="x", technician="t", requirement="r", question="q", keys=[], other=1)
