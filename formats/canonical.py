"""Canonical encodings: equal data gives equal bytes, on every machine and every run."""
from __future__ import annotations

import io
import json
import zipfile

import numpy as np


def canonical_json(obj) -> str:
    """One line, sorted keys, no spaces, UTF-8 kept, NaN refused: dataset cells and hashes."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def pretty_json(obj, allow_nan: bool = True) -> str:
    """Indented, sorted keys, newline-terminated: files a person reads (manifests, metrics)."""
    return json.dumps(obj, indent=2, sort_keys=True, allow_nan=allow_nan) + "\n"


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
