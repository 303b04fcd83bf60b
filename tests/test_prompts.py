"""The RealityBench prompts must be the paper's text (App. C, Table 3), not a paraphrase."""
from __future__ import annotations

import re

import pytest

from packagers.prompts import (BOOL_GRAMMAR, NUMBER_GRAMMAR, MissingPromptError, check_registry, get_prompt,
                               load_prompts, registered_envs, render_prompt, require_prompts)

# Table 3's eleven environments (the four vehicle ones are prompts only, not yet rendered).
PAPER_ENVIRONMENTS = ("rail_attachment", "tape_gap", "wire_adequacy", "slope_gauge", "equipment_label",
                      "horizon_peak", "breaker_label", "damage_view", "car_view", "car_plate", "ro_board")
# Every entry: the paper's, plus any registered environment that declares this prompt set.
ENVIRONMENTS = tuple(sorted(set(PAPER_ENVIRONMENTS) | set(registered_envs())))

# App. C, "The full prompt for tape_gap", copied from the paper; only the PDF's line
# breaks are joined back with single spaces.
PAPER_TAPE_GAP = (
    "You are reviewing a photo taken by a solar installer to document their work; the photo criteria will be "
    "used to prove the work was carried out correctly. The photo we need: Tape measure hooked at the roof surface "
    "and standing up to the module frame; the number where the frame crosses the tape must be legible, and the tape "
    "should be seated flush (perpendicular to the roof). First: is this photo adequate -- does it satisfy the "
    "requirement as a reviewer would judge it? Then answer the documentation question. What number (inches) is on "
    "the tape where the module frame crosses it, what is your estimate of the true perpendicular module-to-roof gap "
    "in inches, and is the tape leaning rather than standing flush? Answer with exactly one JSON object and nothing "
    "else -- no prose, no code fence -- with exactly these keys: \"adequate\": true or false (a JSON boolean): "
    "whether the photo is adequate; \"reading_in\": a number (JSON number, no units, no quotes); \"gap_in\": a "
    "number (JSON number, no units, no quotes); \"tilted\": true or false (a JSON boolean). Use these values exactly "
    "as written; a value in any other form is scored as wrong. Answer every key even if you judge the photo "
    "inadequate: give your best reading of what is visible."
)

TECHNICIANS = {"breaker_label": "an electrician", "damage_view": "a vehicle-intake technician",
               "car_view": "a vehicle-intake technician", "car_plate": "a vehicle-intake technician",
               "ro_board": "a vehicle-intake technician"}


def test_tape_gap_prompt_is_the_papers_word_for_word():
    assert render_prompt("tape_gap") == PAPER_TAPE_GAP


def test_prompt_file_matches_the_registry():
    """The seven rendered RealityBench environments come from the registry, not a list."""
    assert {"rail_attachment", "tape_gap", "wire_adequacy", "slope_gauge", "equipment_label", "horizon_peak",
            "breaker_label"} <= set(registered_envs())
    assert not {"calib", "egopath"} & set(registered_envs())
    check_registry()


def test_all_eleven_environments_render():
    prompts = load_prompts()
    assert set(prompts) == set(ENVIRONMENTS)
    for env in ENVIRONMENTS:
        text = render_prompt(env)
        assert "<" not in text and ">" not in text, env              # every placeholder filled
        assert "  " not in text and "\n" not in text, env            # one paragraph, single spaces
        ep = prompts[env]
        assert text.startswith(f"You are reviewing a photo taken by {ep.technician} to document their work;")
        if env in PAPER_ENVIRONMENTS:
            assert ep.technician == TECHNICIANS.get(env, "a solar installer")
        assert ep.requirement in text and ep.question in text
        assert text.endswith("give your best reading of what is visible.")


def test_keys_grammar_sentence_format():
    for env in ENVIRONMENTS:
        ep = get_prompt(env)
        text = render_prompt(env)
        m = re.search(r'with exactly these keys: (.*)\. Use these values exactly as written;', text)
        assert m, env
        parts = m.group(1).split('; "')
        assert parts[0].startswith('"adequate": true or false (a JSON boolean): ')
        assert len(parts) == 1 + len(ep.keys), env
        for part, key in zip(parts[1:], ep.keys):
            assert part == f'{key.name}": {key.grammar}', env
            if key.type == "bool":
                assert key.grammar == BOOL_GRAMMAR
            if key.type == "number":
                assert key.grammar == NUMBER_GRAMMAR
            for opt in key.options:
                assert f'"{opt}"' in key.grammar


def test_key_specs_from_table_3():
    keys = {env: {k.name: k for k in get_prompt(env).keys} for env in ENVIRONMENTS}
    assert list(keys["tape_gap"]) == ["reading_in", "gap_in", "tilted"]
    assert keys["tape_gap"]["reading_in"].tolerance == 0.125
    assert keys["tape_gap"]["gap_in"].tolerance == 0.25
    assert keys["tape_gap"]["tilted"].scored_on == "all"
    assert keys["slope_gauge"]["reading_deg"].tolerance == 0.2
    assert keys["equipment_label"]["on"].options == ["module", "microinverter", "inverter"]
    assert keys["damage_view"]["damage_types"].type == "enum_list"
    assert keys["car_view"]["side"].options == ["front", "rear", "driver", "passenger"]
    assert len(keys["car_view"]["body_style"].options) == 10
    assert keys["car_view"]["body_style"].options == keys["ro_board"]["body_style"].options
    assert keys["breaker_label"]["entries"].type == "entries"
    assert keys["breaker_label"]["main_amps"].tolerance is None
    others = [k for env in ENVIRONMENTS for k in keys[env].values() if (env, k.name) != ("tape_gap", "tilted")]
    assert all(k.scored_on == "acceptable" for k in others)


def test_horizon_peak_asks_set_membership():
    text = render_prompt("horizon_peak")
    assert get_prompt("horizon_peak").set_level
    assert "does this one photo belong in such a set" in text
    assert "whether this one photo belongs in such a set;" in text
    assert "is this photo adequate --" not in text
    assert all(not get_prompt(e).set_level for e in ENVIRONMENTS if e != "horizon_peak")


def test_no_extraction_artefacts():
    for env in ENVIRONMENTS:
        text = render_prompt(env)
        assert "cm2" not in text and "∘" not in text and "18 in" not in text


def test_missing_prompt_is_named():
    with pytest.raises(MissingPromptError, match="calib"):
        require_prompts(["tape_gap", "calib"])
    with pytest.raises(MissingPromptError, match="nope"):
        render_prompt("nope")
