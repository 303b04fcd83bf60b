"""The mutation-testing driver (scripts/mutants_run.py) and its report (scripts/mutants_report.py)."""
from __future__ import annotations

import json
import os
import sys
import tomllib

import pytest
import yaml

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import mutants_report as report  # noqa: E402
import mutants_run as run  # noqa: E402
import mutants_seed as seed  # noqa: E402


@pytest.fixture(scope="module")
def settings():
    return run.load_settings(ROOT)


def test_imports_are_read_from_the_syntax_tree():
    source = "import a.b\nfrom c.d import e, f as g\nfrom . import local\nx = 'import h.i'\n"
    assert run.imported_modules(source) == {"a.b", "c.d", "c.d.e", "c.d.f"}


def test_configured_modules_follow_the_issue_list(settings):
    base, mutants = settings
    modules = run.configured_modules(mutants, ROOT)
    assert "formats/predictions.py" in modules and "formats/atomic.py" not in modules
    assert {"render_farm/store.py", "render_farm/job.py", "render_farm/isp.py"} <= set(modules)
    assert "render_farm/runner.py" not in modules and "render_farm/contact_sheet.py" not in modules
    assert not [m for m in modules if m.endswith(("__init__.py", "_figures.py", "_markdown.py"))]
    assert "scorers/egopath_overlay.py" not in modules
    assert {"geometry/camera.py", "packagers/hf_export.py", "scorers/terms.py"} <= set(modules)


def test_a_modules_tests_are_the_files_importing_it_minus_subprocess_ones(settings):
    _, mutants = settings
    tests = run.test_files_for("scorers/terms.py", mutants, ROOT)
    assert "tests/test_paper_thresholds.py" in tests and "tests/test_seeds_store_terms.py" in tests
    assert not set(tests) & set(mutants["skip_tests"])
    assert "tests/test_score_cli.py" in mutants["skip_tests"]
    extra = {**mutants, "extra_tests": {"scorers/terms.py": ["tests/test_stats.py"]}}
    assert "tests/test_stats.py" in run.test_files_for("scorers/terms.py", extra, ROOT)
    chosen = {**mutants, "tests": {"scorers/terms.py": ["tests/test_pins_terms.py", "tests/test_camera.py"]}}
    assert run.test_files_for("scorers/terms.py", chosen, ROOT) == ("tests/test_camera.py", "tests/test_pins_terms.py")


def test_unknown_module_is_refused(settings):
    with pytest.raises(SystemExit, match="not a configured module or folder: scorers/nope.py"):
        run.plans(["scorers/nope.py"], settings[1], ROOT)
    assert [p.module for p in run.plans(["scorers/terms.py"], settings[1], ROOT)] == ["scorers/terms.py"]
    assert all(p.module.startswith("geometry/") for p in run.plans(["geometry/"], settings[1], ROOT))


def test_work_folder_config_mutates_one_module_against_its_tests(settings):
    base, mutants = settings
    plan = run.Plan("scorers/terms.py", ("tests/test_a.py", "tests/test_b.py"))
    text = run.work_pyproject((ROOT / "pyproject.toml").read_text(), run.mutmut_table(base, plan, mutants))
    data = tomllib.loads(text)
    table = data["tool"]["mutmut"]
    assert table["only_mutate"] == ["scorers/terms.py"]
    selection = table["pytest_add_cli_args_test_selection"]
    assert selection[:4] == ["tests/test_a.py", "tests/test_b.py", "-m", "not render and not ray"]
    assert f"--deselect={mutants['deselect'][0]}" in selection
    assert table["source_paths"] == base["source_paths"]
    assert table["timeout_multiplier"] == 4.0      # a mutant that loops forever ends in seconds of CPU
    # everything else of the project's pyproject is kept
    assert data["project"]["name"] == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"]
    assert data["tool"]["scenebench"]["mutants"] == mutants
    assert text.count("[tool.mutmut]") == 1


def test_fingerprint_changes_with_the_tests_and_the_config(tmp_path, settings):
    import subprocess

    base, mutants = settings
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)

    def fp():   # the work folder copies tracked files, so the fingerprint reads tracked helpers only
        subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
        return run.fingerprint(plan, "table", tmp_path)

    (tmp_path / "tests").mkdir()
    (tmp_path / "m.py").write_text("x = 1\n")
    (tmp_path / "tests" / "test_m.py").write_text("def test(): pass\n")
    plan = run.Plan("m.py", ("tests/test_m.py",))
    first = fp()
    assert fp() == first
    assert run.fingerprint(plan, "other table", tmp_path) != first
    (tmp_path / "tests" / "test_m.py").write_text("def test(): assert 1\n")
    second = fp()
    assert second != first
    (tmp_path / "tests" / "conftest.py").write_text("# helper\n")
    third = fp()
    assert third != second
    # a helper module counts only for the selections whose test files import it
    (tmp_path / "tests" / "fixtures_of_other.py").write_text("X = 1\n")
    assert fp() == third
    (tmp_path / "tests" / "test_m.py").write_text("from fixtures_of_other import X\ndef test(): assert X\n")
    fourth = fp()
    (tmp_path / "tests" / "fixtures_of_other.py").write_text("X = 2\n")
    assert fp() != fourth
    assert [p.name for p in run.helpers_of(plan, tmp_path)] == ["conftest.py", "fixtures_of_other.py"]
    # a plugin module conftest.py loads counts for every selection, as conftest.py does
    (tmp_path / "tests" / "ordering.py").write_text("A = 1\n")
    unnamed = fp()
    (tmp_path / "tests" / "conftest.py").write_text('# helper\npytest_plugins = ["ordering"]\n')
    named = fp()
    assert named != unnamed
    (tmp_path / "tests" / "ordering.py").write_text("A = 2\n")
    assert fp() != named
    assert [p.name for p in run.helpers_of(plan, tmp_path)] == ["conftest.py", "fixtures_of_other.py", "ordering.py"]
    assert run.conftest_plugins(ROOT / "tests" / "conftest.py") == ["mutants_order"]
    # the module's entries in the equivalents list (a new folder records them untested), not others'
    fifth = fp()
    (tmp_path / "docs").mkdir()
    entry = {"module": "m.py", "removed": "x = 1", "added": "x = 2", "reason": "r"}
    (tmp_path / "docs" / "mutants-equivalent.yaml").write_text(yaml.safe_dump([{**entry, "module": "n.py"}]))
    assert fp() == fifth
    (tmp_path / "docs" / "mutants-equivalent.yaml").write_text(yaml.safe_dump([{**entry, "module": "n.py"}, entry]))
    assert fp() != fifth
    assert run.listed_equivalents("m.py", tmp_path) == [entry]


DIFF = """--- m.py
+++ m.py
@@ -1,3 +1,3 @@
 def f(a, b):
-    return a < b
+    return a <= b"""


def test_seeding_records_only_unset_matching_mutants_as_survived():
    """scripts/mutants_seed.py: a mutant whose diff a listed entry of its module matches is recorded as
    survived (mutmut then leaves it untested); a recorded verdict, another module's entry or another
    diff is left alone."""
    entry = {"module": "m.py", "removed": "return a < b", "added": "return a <= b", "reason": "never equal"}
    other = DIFF.replace("a <= b", "a > b")
    codes = {"m.x_f__mutmut_1": None, "m.x_f__mutmut_2": None, "m.x_f__mutmut_3": 1, "m.x_f__mutmut_4": None}
    diffs = {"m.x_f__mutmut_1": DIFF, "m.x_f__mutmut_2": other, "m.x_f__mutmut_3": DIFF, "m.x_f__mutmut_4": DIFF}
    assert seed.seed(codes, diffs, "m.py", [entry, {**entry, "module": "n.py"}]) == ["m.x_f__mutmut_1",
                                                                                      "m.x_f__mutmut_4"]
    assert codes == {"m.x_f__mutmut_1": 0, "m.x_f__mutmut_2": None, "m.x_f__mutmut_3": 1, "m.x_f__mutmut_4": 0}
    assert report.status_of(seed.SURVIVED) == "survived"
    assert seed.seed(dict.fromkeys(codes), diffs, "m.py", [{**entry, "module": "n.py"}]) == []
    assert seed.equivalents_of("m.py", [entry, {**entry, "module": "n.py"}]) == [entry]


def test_seeding_diffs_only_the_mutants_of_functions_holding_a_listed_line():
    """A diff costs ~15 ms (all of a large module's: a minute), so only mutants of a function whose source
    holds an entry's first removed line are diffed; a function the source lacks, or an entry that removes
    no line, keeps every unset mutant in."""
    source = "def f(a, b):\n    return a < b\n\n\nclass C:\n    def h(self):\n        return 2\n\n\ndef g():\n    return 1\n"
    entry = {"module": "m.py", "removed": "return a < b", "added": "return a <= b", "reason": "never equal"}
    codes = {"m.x_f__mutmut_1": None, "m.x_f__mutmut_2": 1, "m.x_g__mutmut_1": None, "m.xǁCǁh__mutmut_1": None,
             "m.x_gone__mutmut_1": None}
    assert seed.candidates(codes, source, [entry]) == ["m.x_f__mutmut_1", "m.x_gone__mutmut_1"]
    assert seed.candidates(codes, source, [{**entry, "removed": "return 2"}]) == ["m.xǁCǁh__mutmut_1",
                                                                                   "m.x_gone__mutmut_1"]
    assert seed.candidates(codes, source, [entry, {**entry, "removed": " "}]) == [
        "m.x_f__mutmut_1", "m.x_g__mutmut_1", "m.xǁCǁh__mutmut_1", "m.x_gone__mutmut_1"]


def test_report_statuses_and_rate():
    assert [report.status_of(c) for c in (1, 3, 37)] == ["killed"] * 3
    assert [report.status_of(c) for c in (0, 5, 33)] == ["survived", "no tests", "no tests"]
    assert report.status_of(36) == "timeout" and report.status_of(None) == "not checked"
    assert report.status_of(-11) == "suspicious"
    stats = report.ModuleStats("m.py", [report.Mutant("a", "m.py", "killed"), report.Mutant("b", "m.py", "timeout"),
                                        report.Mutant("c", "m.py", "survived"),
                                        report.Mutant("d", "m.py", "survived", equivalent="why"),
                                        report.Mutant("e", "m.py", "no tests"),
                                        report.Mutant("f", "m.py", "not checked")])
    # detected 2 of (5 checked - 1 equivalent)
    assert stats.detected == 2 and stats.checked == 5 and stats.equivalent == 1
    assert stats.rate == pytest.approx(50.0)
    assert report.ModuleStats("m.py", missing=True).rate is None


def test_report_fails_a_module_not_run_partly_run_or_below_the_rate():
    def module(*statuses):
        return report.ModuleStats("m.py", [report.Mutant(str(i), "m.py", s) for i, s in enumerate(statuses)])
    assert report.ModuleStats("m.py", missing=True).shortfall(90) == "has no results"
    assert module("killed", "not checked").shortfall(90) == "was checked on 1 of 2 mutants only"
    nine_of_ten = module(*["killed"] * 9, "survived")
    assert nine_of_ten.shortfall(90) == "" and nine_of_ten.shortfall(90.1) == "kills 90.0% < 90.1%"
    assert module().shortfall(90) == ""            # nothing to mutate: pydantic models only
    assert report.table([module()])[-1].endswith("| no mutants |")


def test_a_module_without_mutants_is_a_result_and_a_damaged_one_is_not(tmp_path):
    meta = tmp_path / "m.py.meta"
    meta.write_text(json.dumps({"exit_code_by_key": {}}))
    assert run.has_no_mutants(meta)
    meta.write_text(json.dumps({"exit_code_by_key": {"m.x__mutmut_1": None}}))
    assert not run.has_no_mutants(meta)
    meta.write_text("{")
    assert not run.has_no_mutants(meta) and not run.has_no_mutants(tmp_path / "absent.meta")


def test_equivalent_entries_match_by_module_and_diff_text():
    mutant = report.Mutant("x", "scorers/terms.py", "survived", removed=["  a < b"], added=["  a <= b"])
    entry = {"module": "scorers/terms.py", "removed": "a < b", "added": "a <= b", "reason": "never equal"}
    assert report.matches(entry, mutant)
    assert not report.matches({**entry, "added": "a > b"}, mutant)
    assert not report.matches({**entry, "module": "scorers/tape_gap.py"}, mutant)


def test_every_equivalent_entry_is_well_formed():
    entries = report.load_equivalents(ROOT / "docs" / "mutants-equivalent.yaml")
    assert entries and all(e["reason"].strip() for e in entries)


def test_mutation_runs_load_the_derandomized_profile():
    """Under SCENEBENCH_MUTANTS=1 (set by mutants_run.py for mutmut) conftest loads a profile whose
    examples are fixed, which keeps no example database and stops at the first failing example
    (no shrinking, no second bug); a test's own @settings inherit all of it."""
    import subprocess
    import sys

    code = ("import runpy; runpy.run_path('tests/conftest.py'); from hypothesis import settings; "
            "s = settings(max_examples=7); print(settings.default.derandomize, s.derandomize, s.database, s.max_examples, "
            "'shrink' in [p.name for p in s.phases], s.report_multiple_bugs)")
    from hypothesis._settings import _CI_VARS

    # Hypothesis itself loads a derandomized, database-free "ci" profile when it sees a CI variable
    # (CI, GITHUB_ACTIONS, ...); both runs drop those so that only SCENEBENCH_MUTANTS differs.
    plain = {k: v for k, v in os.environ.items() if k not in _CI_VARS and k != "SCENEBENCH_MUTANTS"}
    env_on = {**plain, "SCENEBENCH_MUTANTS": "1"}
    env_off = plain
    on = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env_on, capture_output=True, text=True, check=True)
    off = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env_off, capture_output=True, text=True, check=True)
    assert on.stdout.split() == ["True", "True", "None", "7", "False", "False"]     # no shrinking, first bug only
    assert off.stdout.split()[:2] == ["False", "False"] and off.stdout.split()[2] != "None"
    assert off.stdout.split()[4:] == ["True", "True"]
    assert '"SCENEBENCH_MUTANTS": "1"' in (ROOT / "scripts/mutants_run.py").read_text()


def test_an_interrupted_module_resumes_in_its_folder_and_changed_inputs_start_over(tmp_path, monkeypatch, settings):
    """mutmut saves each mutant's verdict in the work folder as it goes; a rerun of the same inputs keeps
    the folder (and so those verdicts), a change to the module or its tests rebuilds it."""
    import subprocess

    base, mutants = settings
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "m.py").write_text("x = 1\n")
    (repo / "tests" / "test_m.py").write_text("import m\ndef test(): assert m.x == 1\n")
    (repo / "pyproject.toml").write_text("[project]\nname = 'r'\n")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    monkeypatch.setattr(run, "WORK", tmp_path / "work")
    monkeypatch.setattr(run, "RESULTS", tmp_path / "results")
    plan = run.Plan("m.py", ("tests/test_m.py",))

    work, key, state = run.prepare(plan, base, mutants, fresh=False, root=repo)
    assert state == "new" and (work / run.PENDING).read_text() == key
    assert (work / "m.py").read_text() == "x = 1\n" and "only_mutate" in (work / "pyproject.toml").read_text()
    (work / "mutants").mkdir()
    (work / "mutants" / "m.py.meta").write_text('{"exit_code_by_key": {"m.x_f__mutmut_1": 1}}')  # a saved verdict

    again = run.prepare(plan, base, mutants, fresh=False, root=repo)
    assert again == (work, key, "resume") and (work / "mutants" / "m.py.meta").is_file()
    assert run.prepare(plan, base, mutants, fresh=True, root=repo)[2] == "new"       # --fresh starts over
    assert not (work / "mutants").exists()

    (work / "mutants").mkdir()
    (repo / "tests" / "test_m.py").write_text("import m\ndef test(): assert m.x == 1 and m.x > 0\n")
    work2, key2, state2 = run.prepare(plan, base, mutants, fresh=False, root=repo)
    assert state2 == "new" and key2 != key and not (work2 / "mutants").exists()      # new tests: verdicts void

    (work2 / run.PENDING).unlink()             # torn while being copied: the marker is written last
    assert run.prepare(plan, base, mutants, fresh=False, root=repo)[2] == "new"

    # a helper its test imports counts once git tracks it (the work folder copies tracked files only)
    (repo / "tests" / "helper_m.py").write_text("ONE = 1\n")
    (repo / "tests" / "test_m.py").write_text("import m\nfrom helper_m import ONE\ndef test(): assert m.x == ONE\n")
    subprocess.run(["git", "add", "tests/test_m.py"], cwd=repo, check=True)
    work3, key3, state3 = run.prepare(plan, base, mutants, fresh=False, root=repo)
    assert state3 == "new" and not (work3 / "tests" / "helper_m.py").exists()
    assert run.prepare(plan, base, mutants, fresh=False, root=repo)[1:] == (key3, "resume")
    subprocess.run(["git", "add", "tests/helper_m.py"], cwd=repo, check=True)
    work4, key4, state4 = run.prepare(plan, base, mutants, fresh=False, root=repo)
    assert state4 == "new" and key4 != key3 and (work4 / "tests" / "helper_m.py").read_text() == "ONE = 1\n"
    work2, key2 = work4, key4

    # a finished module is cached once its results are where the report reads them
    (work2 / "fingerprint").write_text(key2)
    for suffix in run.RESULT_SUFFIXES:
        dest = tmp_path / "results" / ("m.py" + suffix)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text("{}")
    assert run.prepare(plan, base, mutants, fresh=False, root=repo)[2] == "cached"


@pytest.mark.parametrize("workers, modules, children", [
    (2, 1, 2), (2, 2, 1), (2, 106, 1), (4, 1, 4), (4, 2, 2), (4, 3, 1), (1, 1, 1), (3, 0, 3)])
def test_fewer_modules_than_workers_share_the_workers_as_children(workers, modules, children):
    assert run.children_per_module(workers, modules) == children


class _Item:
    def __init__(self, nodeid):
        self.nodeid = nodeid


def test_a_mutants_tests_run_fastest_first_with_a_file_and_a_class_kept_together():
    from mutants_order import fastest_first

    seconds = {"tests/a.py::slow": 9.0, "tests/a.py::quick": 0.5, "tests/a.py::K::k1": 0.2, "tests/a.py::K::k2": 4.0,
               "tests/b.py::t[1]": 0.3, "tests/b.py::t[2]": 0.1, "tests/c.py::only": 2.0}
    items = [_Item(n) for n in ["tests/a.py::slow", "tests/a.py::quick", "tests/a.py::K::k2", "tests/a.py::K::k1",
                                "tests/c.py::only", "tests/d.py::untimed", "tests/b.py::t[1]", "tests/b.py::t[2]"]]
    order = [i.nodeid for i in fastest_first(items, seconds)]
    assert order == ["tests/b.py::t[2]", "tests/b.py::t[1]",           # b's fastest 0.1 s
                     "tests/a.py::K::k1", "tests/a.py::K::k2",          # a's fastest 0.2 s: its class first,
                     "tests/a.py::quick", "tests/a.py::slow",           # then its functions, never interleaved
                     "tests/c.py::only", "tests/d.py::untimed"]         # never timed: last


def _collect(tmp_path, tests, mutant, *args):
    import subprocess

    env = dict(os.environ, SCENEBENCH_MUTANTS="1", MUTANT_UNDER_TEST=mutant)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--rootdir={ROOT}", *args,
                        *[str(ROOT / t) for t in tests]], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return [line for line in r.stdout.splitlines() if line.startswith("tests/")]


PLAN_TESTS = ["tests/test_pins_plan.py::test_constants", "tests/test_pins_plan.py::test_seed_helpers",
              "tests/test_pins_plan.py::test_extra_fields_are_refused"]


@pytest.mark.parametrize("mutant, ordered", [("scorers.x.x_f__mutmut_3", True), ("stats", False), ("", False)])
def test_only_a_mutants_run_reorders_its_tests_by_the_stats_runs_seconds(tmp_path, mutant, ordered):
    """pytest itself, with the repository's conftest, from a folder holding the stats run's seconds."""
    from mutants_order import TEST_SECONDS

    seconds = {PLAN_TESTS[0]: 3.0, PLAN_TESTS[1]: 1.0, PLAN_TESTS[2]: 2.0}
    (tmp_path / TEST_SECONDS).write_text(json.dumps(seconds))
    collected = _collect(tmp_path, PLAN_TESTS, mutant, "--collect-only")
    assert collected == ([PLAN_TESTS[1], PLAN_TESTS[2], PLAN_TESTS[0]] if ordered else PLAN_TESTS)


@pytest.mark.parametrize("mutant, written", [("stats", True), ("scorers.x.x_f__mutmut_3", False), ("", False)])
def test_mutmuts_stats_run_records_each_tests_whole_time(tmp_path, mutant, written):
    from mutants_order import TEST_SECONDS

    _collect(tmp_path, PLAN_TESTS, mutant)
    path = tmp_path / TEST_SECONDS
    assert path.is_file() is written
    if written:
        seconds = json.loads(path.read_text())
        assert sorted(seconds) == sorted(PLAN_TESTS)
        assert all(0.0 < s < 30.0 for s in seconds.values())     # setup + call + teardown, each > 0


# --- scripts/mutants_mutmut.py: one pytest session a module ----------------------------------------

TINY_MODULE = '''\
def add(a, b):
    return a + b


def sub(a, b):
    return a - b


def label(x):
    return "big" if x > 10 else "small"


def base():
    return 3


def closing():
    return "closed"


def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def shout(text):
    print(text.upper())
'''

TINY_TESTS = '''\
import os
import time

import pytest

from pkg.m import add, base, clamp, closing, label, shout, sub


@pytest.fixture(scope="session")
def three():
    value = base()
    assert value == 3, "a mutant of base() fails this fixture's setup"
    return value


@pytest.fixture
def shut():
    state = closing()     # called in setup: mutmut's stats give a test the calls made before its teardown
    time.sleep(0.4)       # a slow setup, as a scene fixture's: mutmut's own timing leaves it out
    yield
    assert state == "closed", "a mutant of closing() fails this fixture's teardown"


def test_add():
    with open(os.environ["TINY_RUNS_LOG"], "a") as log:     # which runs reach a test: stats, clean, mutants
        log.write(repr(os.environ.get("MUTANT_UNDER_TEST", "")[:5]) + "\\n")
    assert add(2, 3) == 5


def test_label_edges():
    assert label(11) == "big"
    assert label(10) == "small"


def test_uses_the_session_fixture(three):
    assert three + 1 == 4


def test_closes(shut):
    pass


def test_clamp_weakly():
    assert clamp(5, 0, 10) == 5


def test_shout(capsys):
    shout("hi")
    assert capsys.readouterr().out == "HI\\n"


@pytest.mark.xfail(strict=True)
def test_known_wrong():
    assert sub(1, 1) == 2      # passes only under sub's a + b mutant: a strict xpass fails the run
'''

# pkg.m's mutants and their verdicts (1 killed, 0 survived): clamp's two survive (one weak test), every
# other is killed in a test's call, in the session fixture's setup, in a fixture's teardown, through
# capsys, or by a strict xfail that passes.
TINY_VERDICTS = {"add": [1], "sub": [1], "label": [1] * 8, "base": [1], "closing": [1, 1],
                 "clamp": [0, 0], "shout": [1, 1]}


def _tiny_project(folder):
    (folder / "pkg").mkdir(parents=True)
    (folder / "tests").mkdir()
    (folder / "pyproject.toml").write_text(
        '[tool.mutmut]\nsource_paths = ["pkg"]\npytest_add_cli_args_test_selection = ["tests"]\n'
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-q"]\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    (folder / "pkg" / "__init__.py").write_text("")
    (folder / "pkg" / "m.py").write_text(TINY_MODULE)
    (folder / "tests" / "__init__.py").write_text("")
    (folder / "tests" / "test_m.py").write_text(TINY_TESTS)
    (folder / "tests" / "mutants_order.py").write_text((ROOT / "tests" / "mutants_order.py").read_text())
    (folder / "tests" / "conftest.py").write_text('pytest_plugins = ["tests.mutants_order"]\n')


def _verdicts(folder, command):
    import subprocess

    env = {k: v for k, v in os.environ.items() if k not in ("MUTANT_UNDER_TEST", "PYTEST_CURRENT_TEST")}
    env |= {"PYTHONPATH": "", "TINY_RUNS_LOG": str(folder / "runs.log"), "SCENEBENCH_MUTANTS": "1"}
    r = subprocess.run([*command, "run", "--max-children", "2"], cwd=folder, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    codes = json.loads((folder / "mutants" / "pkg" / "m.py.meta").read_text())["exit_code_by_key"]
    by_function: dict[str, list[int]] = {}
    for name in sorted(codes, key=lambda n: (n.split("__mutmut_")[0], int(n.split("__mutmut_")[1]))):
        by_function.setdefault(name.split(".x_")[1].split("__mutmut_")[0], []).append(codes[name])
    return by_function


def test_the_session_runner_gives_plain_mutmuts_verdicts(tmp_path):
    """The launcher changes how a mutant's tests are started, never what they decide: on a project whose
    mutants die in every way a pytest run can fail (call, session-fixture setup, teardown, capsys, a
    strict xfail passing) or survive, it records exactly plain mutmut's exit codes, without mutmut's
    clean run when its stats run has just passed the same tests."""
    _tiny_project(tmp_path / "session")
    _tiny_project(tmp_path / "plain")
    session = _verdicts(tmp_path / "session", [sys.executable, str(ROOT / "scripts" / "mutants_mutmut.py")])
    plain = _verdicts(tmp_path / "plain", [sys.executable, "-c", "from mutmut.__main__ import cli; cli()"])
    assert plain == TINY_VERDICTS
    assert session == TINY_VERDICTS
    # test_add ran in mutmut's stats run, its forced-fail run and under add's mutant in both; plain mutmut
    # ran it once more in its clean run, which the launcher leaves out after a passing stats run of the
    # whole selection
    runs = {name: sorted((tmp_path / name / "runs.log").read_text().split()) for name in ("plain", "session")}
    assert runs["plain"] == ["''", "'fail'", "'pkg.m'", "'stats'"]
    assert runs["session"] == ["'fail'", "'pkg.m'", "'stats'"]
    # run again in the same folder: mutmut loads its stats instead of running them, so nothing has just
    # passed and the clean run runs (every verdict is kept, no mutant runs again)
    assert _verdicts(tmp_path / "session", [sys.executable, str(ROOT / "scripts" / "mutants_mutmut.py")]) == session
    assert sorted((tmp_path / "session" / "runs.log").read_text().split()) == ["''", "'fail'", *runs["session"]]
    # mutmut's time limit for a mutant comes from its tests' estimates: plain mutmut times the call
    # only, the launcher raises the estimate to the whole test, the fixture's 0.4 s setup included
    slow = "tests/test_m.py::test_closes"
    estimate = {name: json.loads((tmp_path / name / "mutants" / "mutmut-stats.json").read_text())
                ["duration_by_test"][slow] for name in ("plain", "session")}
    assert estimate["plain"] < 0.1 and 0.4 <= estimate["session"] < 2.0


@pytest.mark.parametrize("choice, launcher", [(None, True), ("session", True), ("pytest-main", False)])
def test_the_runner_is_the_launcher_unless_plain_mutmut_is_asked_for(choice, launcher):
    env = {} if choice is None else {"SCENEBENCH_MUTANTS_RUNNER": choice}
    command = run.mutmut_command(env)
    assert (command[-1] == str(ROOT / "scripts" / "mutants_mutmut.py")) is launcher
    assert (command == [str(run.MUTMUT)]) is (not launcher)


def test_an_unknown_runner_is_refused():
    with pytest.raises(SystemExit, match="SCENEBENCH_MUTANTS_RUNNER='fork'"):
        run.mutmut_command({"SCENEBENCH_MUTANTS_RUNNER": "fork"})


def test_the_fingerprint_follows_the_runner(tmp_path, monkeypatch):
    import subprocess

    (tmp_path / "m.py").write_text("x = 1\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
    plan = run.Plan("m.py", ())
    monkeypatch.delenv("SCENEBENCH_MUTANTS_RUNNER", raising=False)
    session = run.fingerprint(plan, "table", tmp_path)
    monkeypatch.setenv("SCENEBENCH_MUTANTS_RUNNER", "pytest-main")
    assert run.fingerprint(plan, "table", tmp_path) != session


def test_a_selection_file_git_does_not_track_is_refused(tmp_path, monkeypatch, settings):
    """The work folder copies tracked files only, so an untracked test file of the selection would make
    mutmut fail, or a resumed folder run without it: refused in one line, naming the file."""
    import subprocess

    base, mutants = settings
    (tmp_path / "tests").mkdir()
    (tmp_path / "m.py").write_text("x = 1\n")
    (tmp_path / "tests" / "test_m.py").write_text("import m\ndef test(): assert m.x == 1\n")
    (tmp_path / "tests" / "test_new.py").write_text("import m\ndef test(): assert m.x\n")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'r'\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "m.py", "tests/test_m.py", "pyproject.toml"], cwd=tmp_path, check=True)
    monkeypatch.setattr(run, "WORK", tmp_path / "work")
    plan = run.Plan("m.py", ("tests/test_m.py", "tests/test_new.py"))
    with pytest.raises(SystemExit, match=r"^mutants_run: m.py: tests/test_new.py not tracked by git"):
        run.prepare(plan, base, mutants, fresh=False, root=tmp_path)
    assert not (tmp_path / "work").exists()
    subprocess.run(["git", "add", "tests/test_new.py"], cwd=tmp_path, check=True)
    assert run.prepare(plan, base, mutants, fresh=False, root=tmp_path)[2] == "new"


def test_estimates_rise_to_whole_test_times_and_a_missing_file_is_said(tmp_path, monkeypatch, capfd):
    """A test's estimate becomes the larger of mutmut's call time and the stats run's whole time; with
    no whole-time file (the ordering plugin did not run) the estimates stay and stderr says so."""
    import mutants_mutmut as launcher
    from mutmut.state import state

    from tests.mutants_order import TEST_SECONDS

    monkeypatch.chdir(tmp_path)
    durations = state().duration_by_test
    monkeypatch.setattr(launcher, "_ORDER", (TEST_SECONDS, None))
    saved = dict(durations)
    try:
        durations.clear()
        durations.update({"tests/t.py::slow_setup": 0.01, "tests/t.py::slow_call": 2.0})
        launcher.estimate_with_fixtures()
        assert "mutants_mutmut: no mutants/scenebench-test-seconds.json" in capfd.readouterr().err
        assert durations == {"tests/t.py::slow_setup": 0.01, "tests/t.py::slow_call": 2.0}
        (tmp_path / "mutants").mkdir()
        (tmp_path / "mutants" / TEST_SECONDS).write_text(json.dumps(
            {"tests/t.py::slow_setup": 0.5, "tests/t.py::slow_call": 1.5, "tests/t.py::not_timed": 9.0}))
        launcher.estimate_with_fixtures()
        assert durations == {"tests/t.py::slow_setup": 0.5, "tests/t.py::slow_call": 2.0}
    finally:
        durations.clear()
        durations.update(saved)
