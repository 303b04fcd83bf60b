"""Synthetic `egopath` run stores built once per process, for tests that only read them.

mutmut runs a module's tests once per mutant in a process forked from the one that collected its
statistics, so a pytest fixture (even module-scoped) is rebuilt for every mutant; a run cached here
is built once per mutation run instead. Only for tests of packagers/ code: the store is written by
tests/test_egopath_export.make_run (scorers.egopath_language, formats.atomic), never by a packager, so a
packager mutant cannot change it. A test that needs to change a store copies it first.
"""
from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from pathlib import Path


@functools.cache
def cached_run(n_groups: int, views_per_group: int = 2) -> Path:
    """make_run(n_groups, views_per_group) in a temporary directory removed when the creating process exits."""
    from test_egopath_export import make_run

    tmp = Path(tempfile.mkdtemp(prefix="scenebench-egopath-run-"))
    owner = os.getpid()
    # forked children (mutmut's mutants) inherit the handler; only the creating process removes the store
    atexit.register(lambda: os.getpid() == owner and shutil.rmtree(tmp, ignore_errors=True))
    return make_run(tmp, n_groups=n_groups, views_per_group=views_per_group)
