"""A pytest plugin for mutation runs (scripts/mutants_run.py): a mutant's tests fastest first.

mutmut 3.8.1 hands `pytest.main` a mutant's tests as a set, in no useful order, and stops at the
first failure, so a killed mutant paid for whichever slow tests came before the killing one. Its
own durations count a test's call but not its fixtures' setup (most of many tests' time here), so
in mutmut's stats run this plugin records each test's whole time (setup, call, teardown) beside
mutmut's stats, and in a mutant's run it orders the tests by it. Outside mutation runs it does
nothing (docs/testing.md, "One module at a time").
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

TEST_SECONDS = "scenebench-test-seconds.json"   # in the folder mutmut runs a module's tests from
_test_seconds: dict[str, float] = {}


def fastest_first(items: list, duration_by_test: dict[str, float]) -> list:
    """Tests in the order a mutant is killed soonest with `-x`: fastest first. Tests of one class
    or file stay together (their fixtures are set up once), so groups go by their fastest test and
    one file's groups stay next to each other; a test the stats run never timed goes last."""
    def seconds(item) -> float:
        return duration_by_test.get(item.nodeid, float("inf"))

    groups: dict[str, list] = {}
    for item in items:
        groups.setdefault(item.nodeid.rsplit("::", 1)[0], []).append(item)
    file_fastest: dict[str, float] = {}
    for key, members in groups.items():
        f = key.split("::")[0]
        file_fastest[f] = min(file_fastest.get(f, float("inf")), *map(seconds, members))
    order = sorted(groups, key=lambda k: (file_fastest[k.split("::")[0]], k.split("::")[0],
                                          min(map(seconds, groups[k]))))
    return [item for key in order for item in sorted(groups[key], key=seconds)]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Under mutation testing, a mutant's tests run fastest first by their whole time in the stats run
    (mutmut passes them as a set, so in no useful order, and stops at the first failure): a killed
    mutant ends after its cheapest killing test, not after whichever slow test came first."""
    if os.environ.get("SCENEBENCH_MUTANTS") != "1" or "__mutmut_" not in os.environ.get("MUTANT_UNDER_TEST", ""):
        return
    seconds = Path(TEST_SECONDS)
    if seconds.is_file():
        items[:] = fastest_first(items, json.loads(seconds.read_text()))


def _mutmut_stats_run() -> bool:
    return os.environ.get("SCENEBENCH_MUTANTS") == "1" and os.environ.get("MUTANT_UNDER_TEST") == "stats"


def pytest_runtest_logreport(report):
    if _mutmut_stats_run():
        _test_seconds[report.nodeid] = _test_seconds.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session):
    if _mutmut_stats_run() and _test_seconds:
        from formats.atomic import write_text
        write_text(Path(TEST_SECONDS), json.dumps(_test_seconds, sort_keys=True))
