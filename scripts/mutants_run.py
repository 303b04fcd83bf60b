"""Mutation testing one module at a time, each against the tests that pin it (mutmut 3.8.1).

Why not one plain `mutmut run`: mutmut maps every test to every function it reaches, so a mutant of
a low-level function (a projection, a ray cast) runs hundreds of tests, trampolines and all, and a
run over the whole configured code takes about seven hours here. A module's tests are instead the
test files that import it (found by parsing `tests/*.py`) plus any that `[tool.scenebench.mutants]`
adds; each module runs mutmut in its own work folder with that selection, which makes a module's
kill rate a statement about its own tests (a whole run's time here: docs/testing.md).

    python scripts/mutants_run.py [MODULE ...] [--workers 2] [--fresh] [--list]

MODULE is a file or folder (scorers/terms.py, geometry/); without one, every configured module.
A module whose source, tests and configuration are unchanged since its last run is not rerun, and an
interrupted run (Ctrl-C, a session's end) resumes where it stopped: mutmut keeps each mutant's
verdict in the module's work folder as it goes, so only the mutants left unchecked are tested again.
Results land where `scripts/mutants_report.py` reads them: `mutants/<module>.py{,.meta,.spans}`.
"""
from __future__ import annotations

import argparse
import ast
import fnmatch
import functools
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

import yaml
from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "mutants-work"
RESULTS = ROOT / "mutants"
MUTMUT = Path(sys.executable).with_name("mutmut")
RESULT_SUFFIXES = ("", ".meta", ".spans")
PENDING = "fingerprint.pending"   # the inputs of a module's run that has not finished (yet)
SECONDS = "seconds"               # mutmut's time in a module's folder, summed over resumed runs


@dataclass(frozen=True)
class Plan:
    module: str              # repo-relative path, e.g. scorers/terms.py
    tests: tuple[str, ...]   # repo-relative test files

    @property
    def slug(self) -> str:
        return self.module.removesuffix(".py").replace("/", ".")


def load_settings(root: Path = ROOT) -> tuple[dict, dict]:
    data = tomllib.loads((root / "pyproject.toml").read_text())
    return data["tool"]["mutmut"], data["tool"]["scenebench"]["mutants"]


def configured_modules(settings: dict, root: Path = ROOT) -> list[str]:
    """Every file the `modules` globs name, minus `exclude`, sorted."""
    tracked = tracked_files(root)
    chosen = {f for f in tracked if f.endswith(".py") and any(fnmatch.fnmatch(f, g) for g in settings["modules"])}
    chosen -= {f for f in chosen if any(fnmatch.fnmatch(f, g) for g in settings.get("exclude", []))}
    return sorted(chosen)


def tracked_files(root: Path) -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout
    return [p for p in out.decode().split("\0") if p]


def imported_modules(source: str) -> set[str]:
    """Dotted names a test file imports, including `from a.b import c` as `a.b.c` (c may be a module)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@functools.lru_cache(maxsize=None)
def _imports_cached(path: Path, mtime_ns: int, size: int) -> frozenset[str]:
    return frozenset(imported_modules(path.read_text()))


def imports_of(test: Path) -> frozenset[str]:
    """A test file's imports, parsed once per file version (not once per module: ~50 modules scan
    ~200 test files)."""
    st = test.stat()
    return _imports_cached(test, st.st_mtime_ns, st.st_size)


def test_files_for(module: str, settings: dict, root: Path = ROOT) -> tuple[str, ...]:
    """The files importing the module, plus `extra_tests`; `tests` replaces the scan for a module whose
    importers are mostly environment tests about other code (camera, ray casts)."""
    if module in settings.get("tests", {}):
        return tuple(sorted(settings["tests"][module]))
    dotted = module.removesuffix(".py").replace("/", ".")
    skipped = set(settings.get("skip_tests", []))
    found = set()
    for test in sorted((root / "tests").glob("test_*.py")):
        rel = test.relative_to(root).as_posix()
        if rel not in skipped and dotted in imports_of(test):
            found.add(rel)
    found.update(settings.get("extra_tests", {}).get(module, []))
    return tuple(sorted(found))


def plans(selection: list[str], settings: dict, root: Path = ROOT) -> list[Plan]:
    modules = configured_modules(settings, root)
    if selection:
        wanted = [s.rstrip("/") for s in selection]
        unknown = [s for s in wanted if not any(m == s or m.startswith(s + "/") for m in modules)]
        if unknown:
            raise SystemExit(f"mutants_run: not a configured module or folder: {' '.join(unknown)}")
        modules = [m for m in modules if any(m == s or m.startswith(s + "/") for s in wanted)]
    return [Plan(m, test_files_for(m, settings, root)) for m in modules]


def mutmut_table(base: dict, plan: Plan, settings: dict) -> str:
    """The [tool.mutmut] table of one module's work folder."""
    selection = [*plan.tests, "-m", "not render and not ray",
                 *(f"--deselect={d}" for d in settings.get("deselect", []))]
    lines = ["[tool.mutmut]",
             f"source_paths = {json.dumps(base['source_paths'])}",
             f"only_mutate = {json.dumps([plan.module])}",
             f"also_copy = {json.dumps(base.get('also_copy', []))}",
             f"pytest_add_cli_args_test_selection = {json.dumps(selection)}",
             f"pytest_add_cli_args = {json.dumps(base.get('pytest_add_cli_args', []))}"]
    if "timeout_multiplier" in base:
        lines.append(f"timeout_multiplier = {float(base['timeout_multiplier'])!r}")
    return "\n".join(lines) + "\n"


def work_pyproject(root_text: str, table: str) -> str:
    without = re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", "", root_text)
    return without.rstrip("\n") + "\n\n" + table


def fingerprint(plan: Plan, table: str, root: Path = ROOT) -> str:
    """What a module's result depends on that this script can see: its source, its test files, the
    tests' shared helpers, the work folder's configuration and the tool's version."""
    h = hashlib.sha256()
    for path in [root / plan.module, *(root / t for t in plan.tests), *helpers_of(plan, root)]:
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    h.update(table.encode())
    h.update(tool_version().encode())
    h.update(runner_identity().encode())
    h.update(json.dumps(listed_equivalents(plan.module, root), sort_keys=True).encode())
    return h.hexdigest()


def listed_equivalents(module: str, root: Path = ROOT) -> list[dict]:
    """The module's entries in docs/mutants-equivalent.yaml: a new work folder records them as
    survived without testing them (scripts/mutants_seed.py), so a changed list reruns the module."""
    path = root / "docs" / "mutants-equivalent.yaml"
    entries = (yaml.safe_load(path.read_text()) or []) if path.is_file() else []
    return [e for e in entries if e.get("module") == module]


def helpers_of(plan: Plan, root: Path = ROOT) -> list[Path]:
    """The tests/ helper files a module's selection depends on: conftest.py (pytest loads it for every
    test) and the helper modules its test files import. A new helper for one module's tests then
    reruns that module only, not all of them. Tracked files only, as the work folder copies: an
    untracked helper is not in the key, so adding it to git changes the key and rebuilds the folder
    (a key that counted it would resume a folder built without it, failing the same way forever)."""
    imported: set[str] = set()
    for t in plan.tests:
        imported |= imports_of(root / t)
    tracked = set(tracked_files(root))
    helpers = sorted(p for p in (root / "tests").glob("*.py")
                     if not p.name.startswith("test_") and f"tests/{p.name}" in tracked)
    everywhere = {"conftest.py"} | {f"{name}.py" for name in conftest_plugins(root / "tests" / "conftest.py")}
    return [p for p in helpers if p.name in everywhere or p.stem in imported or f"tests.{p.stem}" in imported]


def conftest_plugins(conftest: Path) -> list[str]:
    """The plugin modules conftest.py names in `pytest_plugins` (loaded for every test, as it is)."""
    if not conftest.is_file():
        return []
    for node in ast.parse(conftest.read_text()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytest_plugins"
                                                for t in node.targets):
            value = ast.literal_eval(node.value)
            return [value] if isinstance(value, str) else list(value)
    return []


def tool_version() -> str:
    """mutmut's version (`make mutants` installs it; `make test` need not have it)."""
    try:
        return importlib.metadata.version("mutmut")
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def prepare(plan: Plan, base: dict, settings: dict, fresh: bool, root: Path = ROOT) -> tuple[Path, str, str]:
    """The module's work folder, its fingerprint, and what to do there: "cached" (the last result still
    stands), "resume" (a run of these same inputs was interrupted: mutmut keeps the verdicts it saved
    and tests only the rest) or "new"."""
    work = WORK / plan.slug
    tracked = tracked_files(root)
    untracked = [t for t in plan.tests if t not in tracked]
    if untracked:   # the folder copies tracked files only: mutmut would fail to find it, or resume without it
        raise SystemExit(f"mutants_run: {plan.module}: {', '.join(untracked)} not tracked by git "
                         f"(work folders copy tracked files): git add it")
    table = mutmut_table(base, plan, settings)
    key = fingerprint(plan, table, root)
    stamp, pending = work / "fingerprint", work / PENDING
    if not fresh and stamp.is_file() and stamp.read_text() == key and all(
            (RESULTS / (plan.module + s)).is_file() for s in RESULT_SUFFIXES):
        return work, key, "cached"
    if not fresh and pending.is_file() and pending.read_text() == key and (work / "pyproject.toml").is_file():
        return work, key, "resume"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for rel in tracked:
        if rel.startswith(("mutants", ".ci/")):
            continue
        target = work / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, target)
    (work / "pyproject.toml").write_text(work_pyproject((root / "pyproject.toml").read_text(), table))
    pending.write_text(key)   # last: a folder without it is torn and is rebuilt
    return work, key, "new"


def children_per_module(workers: int, modules: int) -> int:
    """mutmut children for each module: one each when there are at least as many modules as
    workers (the modules run side by side), else the workers shared among the few modules, so a
    run of one module (`make mutants MODULES=geometry/occupancy.py`) uses every worker."""
    return max(1, workers // max(1, min(workers, modules)))


def mutmut_command(env: dict | None = None) -> list[str]:
    """mutmut through scripts/mutants_mutmut.py (one pytest session a module, not one a mutant), or
    plain mutmut when SCENEBENCH_MUTANTS_RUNNER=pytest-main (to compare the two)."""
    runner = (os.environ if env is None else env).get("SCENEBENCH_MUTANTS_RUNNER", "session")
    if runner == "pytest-main":
        return [str(MUTMUT)]
    if runner != "session":
        raise SystemExit(f"mutants_run: SCENEBENCH_MUTANTS_RUNNER={runner!r}: use session or pytest-main")
    return [sys.executable, str(ROOT / "scripts" / "mutants_mutmut.py")]


def runner_identity() -> str:
    """What runs each mutant's tests, for the fingerprint: plain mutmut, or the launcher's source."""
    command = mutmut_command()
    if command == [str(MUTMUT)]:
        return "pytest-main"
    return hashlib.sha256(Path(command[1]).read_bytes()).hexdigest()


def run_one(plan: Plan, base: dict, settings: dict, fresh: bool, children: int = 1) -> tuple[Plan, str, float]:
    work, key, state = prepare(plan, base, settings, fresh)
    if state == "cached":
        return plan, "cached", 0.0
    if not plan.tests:
        return plan, "no test file imports it", 0.0
    earlier = float((work / SECONDS).read_text()) if state == "resume" and (work / SECONDS).is_file() else 0.0
    t0 = time.perf_counter()
    # SCENEBENCH_MUTANTS: tests/conftest.py loads the derandomized hypothesis profile (see there)
    env = {**os.environ, "PYTHONPATH": "", "SCENEBENCH_MUTANTS": "1"}
    with open(work / "mutmut.log", "ab" if state == "resume" else "wb") as log:
        if state == "new":    # the listed equivalents recorded as survived, untested (mutants_seed.py)
            seeding = subprocess.run([sys.executable, str(ROOT / "scripts" / "mutants_seed.py"), plan.module],
                                     cwd=work, stdout=log, stderr=subprocess.STDOUT, env=env)
            if seeding.returncode != 0:
                (work / PENDING).unlink()    # a half-seeded folder is rebuilt, not resumed
                return plan, f"mutmut failed (seeding, exit {seeding.returncode}); see " \
                             f"{(work / 'mutmut.log').relative_to(ROOT)}", 0.0
        proc = subprocess.run([*mutmut_command(), "run", "--max-children", str(children)], cwd=work, stdout=log,
                              stderr=subprocess.STDOUT, env=env)
    seconds = earlier + time.perf_counter() - t0
    (work / SECONDS).write_text(f"{seconds:.1f}\n")
    resumed = f" (resumed after {earlier:.0f} s)" if state == "resume" else ""
    produced = [work / "mutants" / (plan.module + s) for s in RESULT_SUFFIXES]
    if proc.returncode != 0 and not has_no_mutants(produced[1]) or not all(p.is_file() for p in produced):
        return plan, f"mutmut failed (exit {proc.returncode}); see {(work / 'mutmut.log').relative_to(ROOT)}", seconds
    for src in produced:
        dest = RESULTS / src.relative_to(work / "mutants")
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(dest.name + ".tmp")
        shutil.copy2(src, tmp)
        os.replace(tmp, dest)
    (work / "fingerprint").write_text(key)
    (work / PENDING).unlink()
    return plan, "ran" + resumed, seconds


def has_no_mutants(meta: Path) -> bool:
    """mutmut exits 1 ("could not find any test case for any mutant") on a module it found nothing to
    mutate in (pydantic models only); its result file then lists no mutants, which is a result."""
    try:
        return json.loads(meta.read_text())["exit_code_by_key"] == {}
    except (OSError, ValueError, KeyError):
        return False


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("modules", nargs="*", help="files or folders (default: every configured module)")
    p.add_argument("--workers", type=int, default=2,
                   help="modules run at once (default 2); fewer modules than workers share them as mutmut children")
    p.add_argument("--fresh", action="store_true", help="rerun even modules whose inputs are unchanged")
    p.add_argument("--list", action="store_true", help="print each module and its test files, run nothing")
    args = p.parse_args(argv)
    if args.workers < 1:
        print("mutants_run: --workers must be at least 1", file=sys.stderr)
        return 2
    base, settings = load_settings()
    todo = plans(args.modules, settings)
    if args.list:
        for plan in todo:
            print(f"{plan.module}: {' '.join(plan.tests) or '(no test file imports it)'}")
        return 0
    t0, failed = time.perf_counter(), []
    # biggest modules first, so that the last worker is not left with the longest one
    todo.sort(key=lambda plan: -(ROOT / plan.module).stat().st_size)
    with ThreadPoolExecutor(args.workers) as pool, tqdm(total=len(todo), unit="module") as bar:
        children = children_per_module(args.workers, len(todo))
        futures = [pool.submit(run_one, plan, base, settings, args.fresh, children) for plan in todo]
        for future in as_completed(futures):
            plan, outcome, seconds = future.result()
            bar.write(f"{plan.module}: {outcome}" + (f" in {seconds:.0f} s" if seconds else ""))
            if outcome.startswith("mutmut failed"):
                failed.append(plan.module)
            bar.update()
    print(f"mutants_run: {len(todo)} modules in {time.perf_counter() - t0:.0f} s"
          + (f"; failed: {' '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
