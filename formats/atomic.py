"""Atomic file writes: a reader (or a rerun after a crash) never sees half a file.

One implementation: a temp file in the target's directory, fsync, `os.replace`; the temp
file is removed if anything fails; the result is mode 0644 (less the umask), like a file
written with `open()`, not mkstemp's private 0600.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from formats.canonical import npz_bytes, pretty_json

FILE_MODE = 0o644


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_bytes(path: str | Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), FILE_MODE & ~_umask())
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_text(path: str | Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def write_json(path: str | Path, obj) -> None:
    write_text(path, pretty_json(obj))


def save_npz(path: str | Path, compressed: bool = True, **arrays: np.ndarray) -> None:
    write_bytes(path, npz_bytes(compressed, **arrays))


def replace_tree(staging: str | Path, root: str | Path) -> None:
    """Swap a finished directory tree in for `root`: a reader never sees a half-written
    tree or stale files (the old tree is moved aside, then removed)."""
    staging, root = Path(staging), Path(root)
    old = root.parent / f".{root.name}.old"
    if old.exists():
        shutil.rmtree(old)
    if root.exists():
        root.replace(old)
    staging.replace(root)
    if old.exists():
        shutil.rmtree(old)
