"""What one mutant costs mutmut before its tests run: fork + starting pytest on one trivial test.

mutmut 3 forks its main process (pytest and every test module already imported) once per mutant
and calls `pytest.main` on the tests that reach the mutated function. This bench does the same on
one fast test three ways, alternating: `pytest.main` with the `pytest_add_cli_args` of
`[tool.mutmut]` in pyproject.toml, the same minus `-p no:unraisableexception`, and the way
`scripts/mutants_mutmut.py` runs a mutant (the test taken from one session collected before the
fork). It prints the medians and their ratios. Not a test: the figures move with the machine's
load, the ratios much less.

    .venv/bin/python bench/mutants_floor.py [--repeats 15] [--test tests/test_pins_plan.py::test_constants]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tomllib
from pathlib import Path
from typing import Callable

import pytest

ROOT = Path(__file__).resolve().parents[1]


def fork_and_time(run: Callable[[], int], what: str) -> float:
    """Seconds for one forked child, output discarded, to call `run` and exit with its code."""
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os._exit(int(run()))
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"mutants_floor: the test failed in the child ({what})")
    return time.perf_counter() - t0


def fork_and_run(args: list[str]) -> float:
    """Seconds for one forked child to run pytest.main(args): mutmut's way."""
    return fork_and_time(lambda: pytest.main(args), f"pytest {' '.join(args)}")


def fork_and_run_collected(collected, nodeid: str) -> float:
    """Seconds for one forked child to run one test from a session collected before the fork."""
    return fork_and_time(lambda: collected.run([nodeid]), f"collected session, {nodeid}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--test", default="tests/test_pins_plan.py::test_constants")
    a = ap.parse_args()
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    configured = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]["pytest_add_cli_args"]
    if "no:unraisableexception" not in configured:
        raise SystemExit("mutants_floor: pyproject's pytest_add_cli_args no longer disables unraisableexception")
    at = configured.index("no:unraisableexception")
    without = configured[:at - 1] + configured[at + 1:]      # drop the "-p", "no:unraisableexception" pair
    base = ["--rootdir=.", "--tb=native", "-x", "-q", a.test]
    pytest.main(base + configured)                       # import everything once, as mutmut's stats run does
    sys.path.insert(0, str(ROOT / "scripts"))
    from mutants_mutmut import CollectedSession
    collected = CollectedSession(["--rootdir=.", "--tb=native", "-q", "-s", a.test.split("::")[0], *configured])
    times = {"pytest.main, configured": [], "pytest.main, with the plugin": [], "one collected session": []}
    for _ in range(a.repeats):
        times["pytest.main, configured"].append(fork_and_run(base + configured))
        times["pytest.main, with the plugin"].append(fork_and_run(base + without))
        times["one collected session"].append(fork_and_run_collected(collected, a.test))
    med = {k: statistics.median(v) for k, v in times.items()}
    for k, v in med.items():
        print(f"fork + {k:<30} median {v:.3f} s over {a.repeats}")
    print(f"ratio with the plugin / configured = "
          f"{med['pytest.main, with the plugin'] / med['pytest.main, configured']:.2f}")
    print(f"ratio pytest.main configured / one collected session = "
          f"{med['pytest.main, configured'] / med['one collected session']:.2f}")


if __name__ == "__main__":
    main()
