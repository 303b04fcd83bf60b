"""RealityBench prompts: App. C's template filled with Table 3's per-environment parts.

The text lives in `prompts/realitybench.yaml` (data, reviewable against the paper);
this module only loads it into the shared `EnvPrompt`/`KeySpec` contract and renders
it, so the exported prompt and the grader read the very same key specs.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml

from scorers.answer_keys import EnvPrompt, KeySpec

PROMPTS_FILE = Path(__file__).with_name("prompts") / "realitybench.yaml"

# The paper's placeholders, exactly as App. C prints them.
PLACEHOLDERS = ("<technician>", "<requirement>", "<question>", "<keys, each with its grammar in words>")
# The two grammars the paper quotes (tape_gap's full prompt); the others must at least
# name their JSON type so a model knows the form that is scored.
BOOL_GRAMMAR = "true or false (a JSON boolean)"
NUMBER_GRAMMAR = "a number (JSON number, no units, no quotes)"

PROMPT_SET = "realitybench"  # registered environments with `Environment.prompts == PROMPT_SET` need an entry


class PromptError(ValueError):
    """The prompt file is malformed (a typo here would silently change the benchmark)."""


class MissingPromptError(KeyError):
    """Environments that have frames but no prompt entry."""

    def __init__(self, envs):
        self.envs = sorted(envs)
        super().__init__(f"no RealityBench prompt for environment(s): {', '.join(self.envs)} "
                         f"(add them to {PROMPTS_FILE})")

    def __str__(self) -> str:
        return self.args[0]


def _check_key(env: str, k: KeySpec) -> list[str]:
    where = f"{env}.{k.name}"
    errs = []
    if k.type == "bool" and k.grammar != BOOL_GRAMMAR:
        errs.append(f"{where}: a bool's grammar must be {BOOL_GRAMMAR!r}")
    if k.type == "number" and k.grammar != NUMBER_GRAMMAR:
        errs.append(f"{where}: a number's grammar must be {NUMBER_GRAMMAR!r}")
    if k.tolerance is not None and k.type != "number":
        errs.append(f"{where}: only numbers have a tolerance")
    if k.type in ("enum", "enum_list"):
        if not k.options:
            errs.append(f"{where}: {k.type} needs options")
        errs += [f"{where}: option {o!r} is not written in the grammar" for o in k.options
                 if f'"{o}"' not in k.grammar]
    elif k.options:
        errs.append(f"{where}: only enum/enum_list keys have options")
    if k.type == "string" and "JSON string" not in k.grammar:
        errs.append(f"{where}: a string's grammar must say JSON string")
    return errs


@lru_cache(maxsize=4)
def _load(path: str) -> tuple[dict, dict[str, EnvPrompt]]:
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    template = data.get("template")
    if not isinstance(template, str):
        raise PromptError(f"{path}: no template")
    errs = [f"template lacks placeholder {p}" for p in PLACEHOLDERS if template.count(p) != 1]
    for rep in data.get("set_level_variant") or []:
        if template.count(rep["old"]) != 1:
            errs.append(f"set_level_variant: {rep['old']!r} must occur exactly once in the template")
    envs: dict[str, EnvPrompt] = {}
    for name, entry in (data.get("environments") or {}).items():
        try:
            ep = EnvPrompt(env=name, **entry)
        except Exception as exc:  # pydantic's message names the bad field
            errs.append(f"{name}: {exc}")
            continue
        names = [k.name for k in ep.keys]
        if len(set(names)) != len(names) or "adequate" in names:
            errs.append(f"{name}: key names must be unique and not 'adequate'")
        for k in ep.keys:
            errs += _check_key(name, k)
        envs[name] = ep
    if errs:
        raise PromptError(f"{path} invalid: " + "; ".join(errs))
    return data, envs


def load_prompts(path: Path = PROMPTS_FILE) -> dict[str, EnvPrompt]:
    """All environments' prompt parts, validated."""
    return dict(_load(str(path))[1])


def get_prompt(env: str, path: Path = PROMPTS_FILE) -> EnvPrompt:
    prompts = _load(str(path))[1]
    if env not in prompts:
        raise MissingPromptError([env])
    return prompts[env]


def require_prompts(envs, path: Path = PROMPTS_FILE) -> None:
    """Raise one error naming every environment without a prompt (before any work)."""
    missing = set(envs) - set(_load(str(path))[1])
    if missing:
        raise MissingPromptError(missing)


def registered_envs() -> list[str]:
    """The registered environments whose prompt lives in this file (from the registry,
    not a list kept here): the file must hold an entry for each."""
    from blender_envs.registry import all_environments

    return [e.name for e in all_environments() if e.prompts == PROMPT_SET]


def check_registry(path: Path = PROMPTS_FILE) -> None:
    """Raise MissingPromptError naming every registered RealityBench environment the file lacks."""
    require_prompts(registered_envs(), path)


def prompts_version(path: Path = PROMPTS_FILE) -> str:
    return str(_load(str(path))[0].get("version"))


def render_keys(keys: list[KeySpec], path: Path = PROMPTS_FILE) -> str:
    """'"name": grammar' per key, '; '-joined, as in the paper's tape_gap prompt."""
    data = _load(str(path))[0]
    fmt, sep = data.get("key_format", '"{name}": {grammar}'), data.get("key_separator", "; ")
    return sep.join(fmt.format(name=k.name, grammar=k.grammar) for k in keys)


def render_prompt(env: str, path: Path = PROMPTS_FILE) -> str:
    """The exact App. C text for one environment (set-level wording for horizon_peak)."""
    data, _ = _load(str(path))
    ep = get_prompt(env, path)
    text = data["template"]
    if ep.set_level:
        for rep in data.get("set_level_variant") or []:
            text = text.replace(rep["old"], rep["new"])
    parts = dict(zip(PLACEHOLDERS, (ep.technician, ep.requirement, ep.question, render_keys(ep.keys, path))))
    for placeholder, value in parts.items():
        text = text.replace(placeholder, value)
    return text
