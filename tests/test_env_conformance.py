"""Every registered environment keeps the one Environment contract.

Parametrised over `known_environments()` (discovered, not listed), so a new
environment is checked the moment its module declares `ENV`: its pure half imports
without bpy, its spec round-trips and is seeded, its scorer is the Protocol and scores
a sampled view of the built scene (Blender build, no render), its prompt and answer
keys exist, and its manifest entry, docs page, Hydra env config and benchmark pins
agree with the registry.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
import yaml

from blender_envs.registry import (Environment, RegistryError, discover, environment_module, get_environment,
                                   known_environments)
from conftest import ROOT, preview_quality
from formats.canonical import canonical_json
from formats.records import TermResult
from render_farm.seeds import rng_for
from scorers.protocol import Scorer, check_scorer

ENVS = known_environments()
LONG_SIDE = 320


def _py(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=300)


def _spec(env: Environment, seed: int):
    return env.sample_scene(rng_for("conformance", env.name, seed, "scene"), f"{env.name}-s{seed}", seed)


def _view(env: Environment, spec, seed: int, attempt: int = 0):
    return env.sample_view(spec, rng_for("conformance", env.name, seed, "view"), 0, LONG_SIDE, attempt=attempt)


# ------------------------------------------------------------------ the registry

def test_discovery_finds_every_shipped_environment_in_sorted_order():
    assert ENVS == sorted(ENVS)
    assert {"calib", "egopath", "tape_gap", "rail_attachment", "wire_adequacy", "slope_gauge", "equipment_label",
            "horizon_peak", "breaker_label"} <= set(ENVS)
    assert environment_module("tape_gap") == "blender_envs.solar.tape_gap"
    assert environment_module("calib") == "blender_envs.calib"


def test_known_environments_imports_nothing():
    """Cheap enough for the CLI's argument check: no numpy samplers, no bpy."""
    r = _py("""
        import sys
        from blender_envs.registry import known_environments
        names = known_environments()
        assert "tape_gap" in names, names
        heavy = [m for m in ("bpy", "numpy", "pydantic", "blender_envs.solar.tape_gap") if m in sys.modules]
        assert not heavy, heavy
    """)
    assert r.returncode == 0, r.stderr


def test_discovery_reads_sources_and_refuses_clashes(tmp_path):
    pkg = tmp_path / "fake_envs"
    (pkg / "one").mkdir(parents=True)
    (pkg / "core").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "one" / "__init__.py").write_text("")
    # never imported: importing it would raise
    (pkg / "one" / "alpha.py").write_text('raise ImportError("imported")\nENV = Environment(\n    name="alpha")\n')
    (pkg / "one" / "alpha_build.py").write_text("import bpy\n")
    (pkg / "core" / "__init__.py").write_text("")
    (pkg / "core" / "skipped.py").write_text('ENV = Environment(name="core_env")\n')
    (pkg / "beta.py").write_text('x = 1\nENV = Environment(name="beta", family="f")\n')
    assert discover(pkg, "fake_envs") == {"alpha": "fake_envs.one.alpha", "beta": "fake_envs.beta"}
    (pkg / "gamma.py").write_text('ENV = Environment(name="alpha")\n')
    with pytest.raises(RegistryError, match="'alpha' is declared twice: fake_envs.gamma and fake_envs.one.alpha"):
        discover(pkg, "fake_envs")
    (pkg / "gamma.py").write_text('NAME = "g"\nENV = Environment(name=NAME)\n')
    with pytest.raises(RegistryError, match="needs a literal name"):
        discover(pkg, "fake_envs")


def test_unknown_environment_is_one_line():
    from blender_envs.registry import UnknownEnvironmentError

    with pytest.raises(UnknownEnvironmentError) as e:
        get_environment("nope")
    assert str(e.value) == f"unknown environment 'nope'; known environments: {', '.join(ENVS)}"


def test_env_rules_live_on_the_environment():
    """What generic code used to special-case by name (report skills, acceptability, card default)."""
    from blender_envs.registry import measurement_fields

    assert measurement_fields() == {"tape_gap/reading_in", "tape_gap/gap_in"}
    assert [e for e in ENVS if get_environment(e).card_default] == ["tape_gap"]
    ra = get_environment("rail_attachment")
    assert ra.scores_acceptability({"acceptability_scored": True})
    assert not ra.scores_acceptability({"acceptability_scored": False})   # a missing part
    assert ra.scores_acceptability({})
    assert [e for e in ENVS if not get_environment(e).acceptability_scored] == ["car_plate"]   # Table 1 "–"
    from blender_envs.registry import scores_acceptability

    assert not scores_acceptability("rail_attachment", {"acceptability_scored": False})
    assert scores_acceptability("tape_gap", {"reading_in": 4.0})
    assert not scores_acceptability("not_built_yet", {"acceptability_scored": False})
    assert scores_acceptability("not_built_yet", {})


# ------------------------------------------------------------------ per environment

@pytest.mark.parametrize("name", ENVS)
def test_pure_half_and_scorer_import_without_bpy(name):
    """The module declaring ENV (spec, samplers, exact geometry) and the scorer are bpy-free;
    the builder is the bpy module."""
    env = get_environment(name)
    r = _py(f"""
        import importlib, sys
        importlib.import_module({environment_module(name)!r})
        importlib.import_module({env.scorer!r})
        assert "bpy" not in sys.modules, "bpy imported"
        assert not [m for m in sys.modules if m.startswith("blender_envs.core.") and m not in
                    ("blender_envs.core.settings", "blender_envs.core.device_choice")], "a bpy-side core module"
    """)
    assert r.returncode == 0, r.stderr
    assert env.builder.split(":")[0] != environment_module(name)


@pytest.mark.parametrize("name", ENVS)
def test_spec_round_trips_through_json(name):
    env = get_environment(name)
    spec = _spec(env, 1)
    assert type(spec) is env.spec_model and spec.env == name
    text = spec.model_dump_json()
    back = env.spec_model.model_validate_json(text)
    assert back == spec and back.model_dump_json() == text


@pytest.mark.parametrize("name", ENVS)
def test_same_seed_same_scene_and_view_other_seed_differs(name):
    env = get_environment(name)
    a, b, c = _spec(env, 1), _spec(env, 1), _spec(env, 2)
    assert a.model_dump_json() == b.model_dump_json()
    assert a.model_dump_json(exclude={"scene_id", "seed"}) != c.model_dump_json(exclude={"scene_id", "seed"})
    # a clip's frames follow its timeline, not a draw: another scene has another camera
    va, vb, vc = _view(env, a, 1), _view(env, a, 1), _view(env, c if env.is_clip else a, 2)
    assert va.model_dump_json() == vb.model_dump_json()
    assert va.pose.model_dump_json() != vc.pose.model_dump_json()
    assert va.pose.width == LONG_SIDE or va.pose.height == LONG_SIDE


@pytest.mark.parametrize("name", ENVS)
def test_scorer_is_the_protocol(name):
    scorer = get_environment(name).scorer_module()
    assert check_scorer(scorer) == []
    assert isinstance(scorer, Scorer)


def test_protocol_check_names_what_is_wrong():
    import types

    bad = types.ModuleType("bad")
    bad.score_scene = lambda geo, view: []
    bad.score_frame = lambda geo, frame, view: []
    bad.ground_truth = lambda geo, view, frame: {}
    errs = check_scorer(bad)
    assert errs == ["bad.score_frame('geo', 'frame', 'view'): parameters must start ('geo', 'view', 'frame')",
                    "bad.ground_truth: parameter frame needs default None"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Each environment's scene built once in Blender (no render) and its SceneGeometry."""
    from render_farm.job import build_scene
    from render_farm.plan import plan_jobs

    cache = {}

    def get(name):
        if name not in cache:
            run = tmp_path_factory.mktemp(name)
            job = plan_jobs(name, 1, 1, "random", set(), root_seed=0, run_dir=str(run),
                            quality=preview_quality(long_side_px=LONG_SIDE), device="cpu")[0]
            _, geo, _ = build_scene(job)
            cache[name] = geo
        return cache[name]
    return get


@pytest.mark.render  # builds each scene in Blender: left out of the mutation runs
@pytest.mark.parametrize("name", ENVS)
def test_scene_terms_and_answer_keys_of_a_sampled_view(name, built):
    env = get_environment(name)
    geo = built(name)
    assert type(geo.spec) is env.spec_model                # validated once, by the farm
    scorer = env.scorer_module()
    view = _view(env, geo.spec, 3)
    terms = scorer.score_scene(geo, view)
    assert terms and all(isinstance(t, TermResult) and t.side == "scene" for t in terms)
    assert len({t.name for t in terms}) == len(terms)
    gt = scorer.ground_truth(geo, view)
    canonical_json(gt)                                     # the export stores it as canonical JSON
    if env.prompts == "realitybench":
        from packagers.prompts import get_prompt

        keys = [k.name for k in get_prompt(name).keys]
        assert keys and set(keys) <= set(gt), sorted(set(keys) - set(gt))
        assert env.measurement_keys <= set(keys)


@pytest.mark.parametrize("name", ENVS)
def test_prompt_present(name):
    env = get_environment(name)
    if env.prompts is None:                                 # calib: a convention test, in no benchmark
        if env.is_clip:    # a clip feeds a benchmark's task generators, whose items carry their prompts
            return
        assert not _benchmarks_listing(name), name
        return
    path = ROOT / "packagers" / "prompts" / f"{env.prompts}.yaml"
    assert path.is_file(), path
    if env.prompts == "realitybench":
        from packagers.prompts import render_prompt

        assert render_prompt(name).startswith("You are reviewing a photo")
    else:
        tasks = yaml.safe_load(path.read_text())["tasks"]
        assert tasks and all(t["system"] and t["user"] for t in tasks.values())


@pytest.mark.parametrize("name", ENVS)
def test_builder_is_in_the_assets_manifest(name):
    from assets_manifest import load_manifest

    env = get_environment(name)
    generators = {a["generator"].split(":")[0] for a in load_manifest()["assets"].values()}
    builder_file = env.builder.split(":")[0].replace(".", "/") + ".py"
    assert builder_file in generators, f"{builder_file} has no assets_manifest entry"
    assert (ROOT / builder_file).is_file()


@pytest.mark.parametrize("name", ENVS)
def test_docs_page(name):
    page = ROOT / "docs" / "envs" / f"{name}.md"
    assert page.is_file(), page
    assert page.read_text(encoding="utf-8").startswith(f"# {name}\n")


@pytest.mark.parametrize("name", ENVS)
def test_hydra_env_config_names_it(name):
    """`scenebench render env=<name>` composes configs/env/<name>.yaml (Hydra's group file)."""
    cfg = yaml.safe_load((ROOT / "configs" / "env" / f"{name}.yaml").read_text())
    assert cfg == {"name": name}


def test_no_env_config_without_an_environment():
    assert sorted(p.stem for p in (ROOT / "configs" / "env").glob("*.yaml")) == ENVS


def _benchmarks_listing(name: str) -> list[str]:
    out = []
    for path in sorted((ROOT / "configs" / "benchmark").glob("*.yaml")):
        bench = yaml.safe_load(path.read_text())
        if name in (bench.get("environments") or {}) or name in (bench.get("generator_versions") or {}):
            out.append(path.stem)
    return out


@pytest.mark.parametrize("name", ENVS)
def test_benchmark_files_pin_its_generator(name):
    env = get_environment(name)
    for path in sorted((ROOT / "configs" / "benchmark").glob("*.yaml")):
        bench = yaml.safe_load(path.read_text())
        pins = bench.get("generator_versions") or {}
        if name in (bench.get("environments") or {}) or name in pins:
            assert pins.get(name) == env.version, f"{path.name} pins {name} at {pins.get(name)!r}, not {env.version!r}"
