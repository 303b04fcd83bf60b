"""`mutmut` (3.8.1) with one pytest session per module instead of one per mutant.

mutmut forks its main process once per mutant and calls `pytest.main` in the child on the tests
that reached the mutated function. Most of a cheap mutant's time went there, before any test ran:
reading the configuration and plugins (~0.08 s here) and collecting every test of the files named,
parametrised or not, to pick out the few asked for (~0.09 s), against ~0.05 s for the test itself
(a profile of one child, docs/testing.md "Eleventh session"). Over ~38,000 mutants that fixed cost
was most of a whole run.

This launcher runs mutmut's own `run` command unchanged except for two methods,
`PytestRunner.run_tests` and (to know whether its stats run passed) `run_stats`. After mutmut's
clean run (in the parent, before any fork) it configures one pytest session on the module's test
selection and collects it once; each forked child then runs its mutant's tests from that collection
through pytest's own `pytest_runtest_protocol` hook (fixtures, marks, xfail, warnings and every
plugin's per-test hooks as in `pytest.main`), fastest first (`tests/mutants_order.py`), and stops at
the first failing report, as `pytest.main -x` does. Exit code 1 when a test failed or errored
(killed), 0 when all passed (survived), as pytest's. Session-scoped fixtures are still set up in
each child: the parent only collects, so no fixture value computed under one mutant reaches another.
A mutant asking for a test the collection lacks runs through mutmut's `pytest.main` path as before.

mutmut's clean run (every test that reaches a mutant, before any mutant, to prove they pass
unmutated) repeats what its stats run has just done in the same process: run every test of the
selection with no mutant active (the trampolines call the original code and only note the
callers) and stop at a failure. When that stats run ran here and passed, the clean run is not run
again (one whole pass over the selection per module saved); when mutmut loaded its stats from an
earlier run instead, or the stats run failed, the clean run runs as before.

    python scripts/mutants_mutmut.py run --max-children 2     # in a module's work folder

Invoked by scripts/mutants_run.py; `SCENEBENCH_MUTANTS_RUNNER=pytest-main` there uses plain mutmut.
"""
from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path

SUSPICIOUS = 35   # mutmut's exit code for "suspicious" (mutmut.stats.status_by_exit_code)

# `tests/` of the work folder's copy (made by mutants_run.py) holds the ordering; import it from there.
_ORDER = None


def _fastest_first():
    global _ORDER
    if _ORDER is None:
        sys.path.insert(0, str(Path.cwd()))
        from tests.mutants_order import TEST_SECONDS, fastest_first
        _ORDER = (TEST_SECONDS, fastest_first)
    return _ORDER


class CollectedSession:
    """One configured pytest session with its items collected, kept in mutmut's parent process."""

    def __init__(self, args: list[str]):
        from _pytest.config import _prepareconfig
        from _pytest.main import Session

        self.failed = False
        self.config = _prepareconfig(args, plugins=[self])
        self.config._do_configure()
        self.session = Session.from_config(self.config)
        self.config.hook.pytest_sessionstart(session=self.session)
        self.config.hook.pytest_collection(session=self.session)
        self.items = {item.nodeid: item for item in self.session.items}

    def pytest_runtest_logreport(self, report) -> None:
        if report.failed:
            self.failed = True

    def run(self, nodeids: list[str]) -> int | None:
        """Run these tests fastest first, stopping at the first failure: pytest's exit code (0 or 1),
        or None when one of them is not in the collection (the caller runs pytest.main instead)."""
        if any(n not in self.items for n in nodeids):
            return None
        seconds_file, fastest_first = _fastest_first()
        seconds = json.loads(Path(seconds_file).read_text()) if Path(seconds_file).is_file() else {}
        items = fastest_first([self.items[n] for n in dict.fromkeys(nodeids)], seconds)
        hook = self.config.hook
        for i, item in enumerate(items):
            nextitem = items[i + 1] if i + 1 < len(items) else None
            hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
            if self.failed:
                self.session._setupstate.teardown_exact(None)   # as -x: finalisers still run
                return 1
        return 0


def estimate_with_fixtures() -> None:
    """mutmut times a test by its call alone and sets a mutant's time limit from the sum over its tests
    (wall 4 x (sum + 1) s with timeout_multiplier 4). Here most of a test's time is often its fixtures'
    setup (a crowd scan, a render), so a mutant whose tests merely ran as long as they always do could
    pass that limit and be filed as a timeout, that is detected. Each test's estimate is raised to its
    whole time (setup, call, teardown) as the stats run just measured it (tests/mutants_order.py)."""
    from mutmut.state import state

    seconds_file, _ = _fastest_first()
    whole_file = Path("mutants") / seconds_file
    if not whole_file.is_file():       # tests/mutants_order.py did not run (SCENEBENCH_MUTANTS unset)
        print(f"mutants_mutmut: no {whole_file}: time limits from mutmut's call-only estimates",
              file=sys.__stderr__)
        return
    whole = json.loads(whole_file.read_text())
    durations = state().duration_by_test
    for nodeid, seconds in whole.items():
        if nodeid in durations:
            durations[nodeid] = max(durations[nodeid], seconds)


def install() -> None:
    """Patch mutmut's PytestRunner.run_tests and run_stats (the two methods changed; pinned mutmut==3.8.1)."""
    from mutmut.runners import harness
    from mutmut.utils.file_utils import change_cwd

    original = harness.PytestRunner.run_tests
    original_stats = harness.PytestRunner.run_stats
    collected: list[CollectedSession] = []
    stats_passed: list[bool] = []

    def run_stats(self, *, tests) -> int:
        tests = list(tests)
        code = original_stats(self, tests=tests)
        stats_passed.append(code == 0 and not tests)     # no tests named: mutmut ran the whole selection
        if code == 0:
            estimate_with_fixtures()
        return code

    def run_tests(self, *, mutant_name: str | None, tests) -> int:
        tests = list(tests)
        if mutant_name is None:            # mutmut's clean and forced-fail runs, in the parent
            clean = os.environ.get("MUTANT_UNDER_TEST") == ""
            if clean and stats_passed == [True]:
                code = 0                   # the stats run just passed every test of the selection, unmutated
            else:
                code = original(self, mutant_name=mutant_name, tests=tests)
            if not collected and code == 0:
                with change_cwd("mutants"):
                    args = ["--rootdir=.", "--tb=native", "-q", "-s", "-p", "no:randomly", "-p", "no:random-order",
                            *self._pytest_add_cli_args_test_selection, *self._pytest_add_cli_args]
                    collected.append(CollectedSession(args))
            return code
        if collected and tests:            # a mutant, in mutmut's forked child
            try:
                with change_cwd("mutants"):
                    code = collected[0].run(tests)
            except Exception:              # this runner's failure is no kill: mutmut files 35 as suspicious
                traceback.print_exc(file=sys.__stderr__)
                return SUSPICIOUS
            if code is not None:
                return code
        return original(self, mutant_name=mutant_name, tests=tests)

    harness.PytestRunner.run_tests = run_tests
    harness.PytestRunner.run_stats = run_stats


def main() -> None:
    install()
    from mutmut.__main__ import cli
    cli()


if __name__ == "__main__":
    main()
