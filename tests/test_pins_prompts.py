"""The prompt file's validation rules (packagers/prompts.py) on small hand-written YAML files:
each malformed file names exactly what is wrong, and a well-formed one renders as written."""
from __future__ import annotations

import pytest
import yaml

from packagers import prompts
from packagers.prompts import (BOOL_GRAMMAR, NUMBER_GRAMMAR, PLACEHOLDERS, PROMPT_SET, MissingPromptError,
                               PromptError, get_prompt, load_prompts, prompts_version, render_keys, render_prompt,
                               require_prompts)

TEMPLATE = "Hi <technician>. Need: <requirement>. Is it adequate? <question> Keys: <keys, each with its grammar in words>."


def _env(**over):
    entry = {"technician": "a roofer", "requirement": "a roof", "question": "How steep?",
             "keys": [{"name": "deg", "type": "number", "grammar": NUMBER_GRAMMAR, "tolerance": 0.5}]}
    entry.update(over)
    return entry


def _file(tmp_path, name="p.yaml", **data):
    doc = {"version": "v-test", "template": TEMPLATE, "environments": {"roof": _env()}}
    doc.update(data)
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def _errors(path) -> str:
    with pytest.raises(PromptError) as exc:
        load_prompts(path)
    return str(exc.value)


def test_constants():
    assert PLACEHOLDERS == ("<technician>", "<requirement>", "<question>", "<keys, each with its grammar in words>")
    assert BOOL_GRAMMAR == "true or false (a JSON boolean)"
    assert NUMBER_GRAMMAR == "a number (JSON number, no units, no quotes)"
    assert PROMPT_SET == "realitybench"
    assert prompts.PROMPTS_FILE.name == "realitybench.yaml" and prompts.PROMPTS_FILE.parent.name == "prompts"


def test_a_small_file_renders_exactly(tmp_path):
    path = _file(tmp_path, environments={
        "roof": _env(keys=[{"name": "deg", "type": "number", "grammar": NUMBER_GRAMMAR},
                           {"name": "wet", "type": "bool", "grammar": BOOL_GRAMMAR}])})
    assert render_prompt("roof", path) == (
        f'Hi a roofer. Need: a roof. Is it adequate? How steep? Keys: "deg": {NUMBER_GRAMMAR}; '
        f'"wet": {BOOL_GRAMMAR}.')
    assert prompts_version(path) == "v-test"
    assert list(load_prompts(path)) == ["roof"] and get_prompt("roof", path).technician == "a roofer"
    require_prompts(["roof"], path)
    with pytest.raises(MissingPromptError) as exc:
        require_prompts(["roof", "zz", "aa"], path)
    assert exc.value.envs == ["aa", "zz"]
    assert str(exc.value).startswith("no RealityBench prompt for environment(s): aa, zz (add them to ")
    with pytest.raises(MissingPromptError):
        get_prompt("aa", path)


def test_key_format_and_separator_come_from_the_file(tmp_path):
    path = _file(tmp_path, key_format="[{name}={grammar}]", key_separator=" | ", environments={
        "roof": _env(keys=[{"name": "a", "type": "bool", "grammar": BOOL_GRAMMAR},
                           {"name": "b", "type": "bool", "grammar": BOOL_GRAMMAR}])})
    assert render_keys(get_prompt("roof", path).keys, path) == f"[a={BOOL_GRAMMAR}] | [b={BOOL_GRAMMAR}]"
    # the whole prompt renders its keys with this file's format too, not the shipped file's
    assert render_prompt("roof", path).endswith(f"Keys: [a={BOOL_GRAMMAR}] | [b={BOOL_GRAMMAR}].")
    # defaults when the file does not say
    plain = _file(tmp_path, "plain.yaml", environments={
        "roof": _env(keys=[{"name": "a", "type": "bool", "grammar": BOOL_GRAMMAR},
                           {"name": "b", "type": "bool", "grammar": BOOL_GRAMMAR}])})
    assert render_keys(get_prompt("roof", plain).keys, plain) == f'"a": {BOOL_GRAMMAR}; "b": {BOOL_GRAMMAR}'
    assert prompts_version(_file(tmp_path, "nov.yaml", version=None)) == "None"


def test_set_level_variant_replaces_only_for_set_level_envs(tmp_path):
    variant = [{"old": "Is it adequate?", "new": "Does it belong?"}, {"old": "Need:", "new": "Set needs:"}]
    path = _file(tmp_path, set_level_variant=variant,
                 environments={"roof": _env(), "peak": _env(set_level=True)})
    assert render_prompt("peak", path).startswith("Hi a roofer. Set needs: a roof. Does it belong? How steep?")
    assert "Is it adequate?" in render_prompt("roof", path)
    assert render_prompt("roof", _file(tmp_path, "nv.yaml", environments={"roof": _env(set_level=True)})) \
        .startswith("Hi a roofer. Need: a roof. Is it adequate?")


def test_template_problems(tmp_path):
    assert "no template" in _errors(_file(tmp_path, "a.yaml", template=None))
    assert "no template" in _errors(_file(tmp_path, "b.yaml", template=["x"]))
    msg = _errors(_file(tmp_path, "c.yaml", template=TEMPLATE.replace("<question>", "")))
    assert "template lacks placeholder <question>" in msg and "<technician>" not in msg
    msg = _errors(_file(tmp_path, "d.yaml", template=TEMPLATE + " <requirement>"))
    assert "template lacks placeholder <requirement>" in msg
    msg = _errors(_file(tmp_path, "e.yaml", set_level_variant=[{"old": "nowhere", "new": "x"}]))
    assert "set_level_variant: 'nowhere' must occur exactly once in the template" in msg
    msg = _errors(_file(tmp_path, "f.yaml", template=TEMPLATE + " adequate?",
                        set_level_variant=[{"old": "adequate?", "new": "x"}]))
    assert "'adequate?' must occur exactly once" in msg
    assert load_prompts(_file(tmp_path, "g.yaml", environments=None)) == {}


@pytest.mark.parametrize("key, message", [
    ({"name": "k", "type": "bool", "grammar": "yes or no"}, f"roof.k: a bool's grammar must be {BOOL_GRAMMAR!r}"),
    ({"name": "k", "type": "number", "grammar": "a number"}, f"roof.k: a number's grammar must be {NUMBER_GRAMMAR!r}"),
    ({"name": "k", "type": "bool", "grammar": BOOL_GRAMMAR, "tolerance": 0.1}, "roof.k: only numbers have a tolerance"),
    ({"name": "k", "type": "enum", "grammar": "one of"}, "roof.k: enum needs options"),
    ({"name": "k", "type": "enum_list", "grammar": "some of"}, "roof.k: enum_list needs options"),
    ({"name": "k", "type": "enum", "grammar": 'one of "a"', "options": ["a", "b"]},
     "roof.k: option 'b' is not written in the grammar"),
    ({"name": "k", "type": "enum", "grammar": "one of a, b", "options": ["a"]},
     "roof.k: option 'a' is not written in the grammar"),
    ({"name": "k", "type": "bool", "grammar": BOOL_GRAMMAR, "options": ["x"]},
     "roof.k: only enum/enum_list keys have options"),
    ({"name": "k", "type": "string", "grammar": "some text"}, "roof.k: a string's grammar must say JSON string"),
])
def test_bad_keys_are_named(tmp_path, key, message):
    assert message in _errors(_file(tmp_path, environments={"roof": _env(keys=[key])}))


@pytest.mark.parametrize("key", [
    {"name": "k", "type": "enum", "grammar": 'one of "a", "b"', "options": ["a", "b"]},
    {"name": "k", "type": "enum_list", "grammar": 'any of "a"', "options": ["a"]},
    {"name": "k", "type": "string", "grammar": "a JSON string"},
    {"name": "k", "type": "number", "grammar": NUMBER_GRAMMAR, "tolerance": 0.0},
    {"name": "k", "type": "bool", "grammar": BOOL_GRAMMAR},
])
def test_good_keys_pass(tmp_path, key):
    assert [k.name for k in load_prompts(_file(tmp_path, environments={"roof": _env(keys=[key])}))["roof"].keys] \
        == ["k"]


def test_bad_entries_are_named_together(tmp_path):
    k = {"name": "k", "type": "bool", "grammar": BOOL_GRAMMAR}
    msg = _errors(_file(tmp_path, environments={
        "dup": _env(keys=[k, k]), "adq": _env(keys=[{**k, "name": "adequate"}]),
        "bad": _env(colour="red"), "ok": _env(),
        "two": _env(keys=[{**k, "grammar": "x"}, {"name": "n", "type": "number", "grammar": "y"}])}))
    assert msg.startswith(f"{tmp_path / 'p.yaml'} invalid: ")
    assert "dup: key names must be unique and not 'adequate'" in msg
    assert "adq: key names must be unique and not 'adequate'" in msg
    assert "bad: " in msg and "colour" in msg
    assert "two.k: a bool's grammar" in msg and "two.n: a number's grammar" in msg
    assert "ok:" not in msg and "ok." not in msg


def test_check_registry_reads_the_file_it_is_given(tmp_path):
    """A prompt file holding only `roof` lacks every registered RealityBench environment."""
    with pytest.raises(MissingPromptError) as exc:
        prompts.check_registry(_file(tmp_path))
    assert {"tape_gap", "slope_gauge", "breaker_label"} <= set(exc.value.envs)
    assert "roof" not in exc.value.envs and "egopath" not in exc.value.envs
