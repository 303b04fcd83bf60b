"""Frame files carried from a worker to the coordinator, for clusters without shared storage.

A scene job writes its files (frames/, passes/, scenes/) under its `run_dir`. On a node that cannot
see the coordinator's run store, the job runs against a private scratch folder instead; the files
it wrote travel back as bytes with its records (Ray's object store), and the coordinator, the only
writer of the run store, writes them atomically before it appends the records that name them.
"""
from __future__ import annotations

from pathlib import Path, PurePosixPath

from formats import atomic

SHIPPED_DIRS = ("frames", "passes", "scenes")
MAX_SHIPPED_BYTES = 4 << 30     # one scene's files; a job past this is a bug, not a frame

__all__ = ["ShippingError", "collect_files", "write_files", "SHIPPED_DIRS"]


class ShippingError(ValueError):
    """A shipped file the coordinator refuses to write (outside the store, too big)."""


def collect_files(scratch: str | Path) -> dict[str, bytes]:
    """Every file a job wrote under `scratch`, by run-store-relative POSIX path, in path order;
    temporary files of an interrupted atomic write (".*.tmp") are left behind."""
    root = Path(scratch)
    files: dict[str, bytes] = {}
    total = 0
    for sub in SHIPPED_DIRS:
        for path in sorted((root / sub).rglob("*")):
            if not path.is_file() or path.name.startswith("."):
                continue
            data = path.read_bytes()
            total += len(data)
            if total > MAX_SHIPPED_BYTES:
                raise ShippingError(f"a scene job wrote more than {MAX_SHIPPED_BYTES} bytes under {root}")
            files[path.relative_to(root).as_posix()] = data
    return files


def safe_target(run_dir: Path, rel: str) -> Path:
    """The run-store path of a shipped file; refuses absolute paths, `..` and other folders."""
    p = PurePosixPath(rel)
    if p.is_absolute() or ".." in p.parts or len(p.parts) < 2 or p.parts[0] not in SHIPPED_DIRS or "\\" in rel:
        raise ShippingError(f"refusing to write shipped file {rel!r} outside {', '.join(SHIPPED_DIRS)}/")
    return run_dir.joinpath(*p.parts)


def write_files(run_dir: str | Path, files: dict[str, bytes]) -> int:
    """Write shipped files into the run store atomically (all paths checked first); returns bytes written."""
    run_dir = Path(run_dir)
    targets = [(safe_target(run_dir, rel), data) for rel, data in sorted(files.items())]
    for target, data in targets:
        atomic.write_bytes(target, data)
    return sum(len(d) for _, d in targets)
