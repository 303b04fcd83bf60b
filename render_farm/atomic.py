"""Atomic file writes: a reader (or a rerun after a crash) never sees half a file."""
from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
import zipfile
from pathlib import Path

import numpy as np


def write_bytes(path: str | Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_text(path: str | Path, text: str) -> None:
    write_bytes(path, text.encode())


def write_json(path: str | Path, obj) -> None:
    write_text(path, json.dumps(obj, indent=2, sort_keys=True) + "\n")


def npz_bytes(compressed: bool = True, **arrays: np.ndarray) -> bytes:
    """An .npz (loadable by np.load) with fixed zip timestamps, so equal arrays give
    equal bytes (np.savez stamps the current time into every member)."""
    buf = io.BytesIO()
    method = zipfile.ZIP_DEFLATED if compressed else zipfile.ZIP_STORED
    with zipfile.ZipFile(buf, "w", compression=method) as zf:
        for name in sorted(arrays):
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = method
            member = io.BytesIO()
            np.lib.format.write_array(member, np.asanyarray(arrays[name]), allow_pickle=False)
            zf.writestr(info, member.getvalue())
    return buf.getvalue()


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
