"""Pinned bytes for formats/canonical.py and behaviour of formats/atomic.py (real files in tmp)."""
from __future__ import annotations

import io
import os
import stat
import zipfile

import numpy as np
import pytest

from formats import atomic, canonical


def test_canonical_json_literal_bytes():
    assert canonical.canonical_json({"b": [1, 2.5], "a": "é"}) == '{"a":"é","b":[1,2.5]}'
    with pytest.raises(ValueError):
        canonical.canonical_json({"x": float("nan")})


def test_pretty_json_literal_text():
    assert canonical.pretty_json({"b": 1, "a": [True]}) == '{\n  "a": [\n    true\n  ],\n  "b": 1\n}\n'
    assert canonical.pretty_json({"x": float("nan")}) == '{\n  "x": NaN\n}\n'
    with pytest.raises(ValueError):
        canonical.pretty_json({"x": float("inf")}, allow_nan=False)
    assert canonical.pretty_json("é") == '"\\u00e9"\n'


def _members(data: bytes):
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return [(i.filename, i.date_time, i.compress_type) for i in zf.infolist()]


def test_npz_bytes_sorted_fixed_time_and_method():
    a = np.arange(6, dtype=np.int16).reshape(2, 3)
    data = canonical.npz_bytes(z=a, b=np.array([1.5]))
    assert _members(data) == [("b.npy", (1980, 1, 1, 0, 0, 0), zipfile.ZIP_DEFLATED),
                              ("z.npy", (1980, 1, 1, 0, 0, 0), zipfile.ZIP_DEFLATED)]
    raw = canonical.npz_bytes(False, z=a)
    assert _members(raw) == [("z.npy", (1980, 1, 1, 0, 0, 0), zipfile.ZIP_STORED)]
    with np.load(io.BytesIO(data)) as f:
        assert f["z"].dtype == np.int16 and f["z"].tolist() == [[0, 1, 2], [3, 4, 5]]
        assert f["b"].tolist() == [1.5]
    with pytest.raises(ValueError):
        canonical.npz_bytes(o=np.array([{"a": 1}], dtype=object))   # never pickles
    # stored members hold the .npy bytes verbatim
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        assert zf.read("z.npy")[:6] == b"\x93NUMPY"
    assert len(raw) > len(canonical.npz_bytes(True, z=np.zeros(4096)))


def test_write_bytes_mode_parents_and_no_temp_left(tmp_path):
    old = os.umask(0o022)
    try:
        p = tmp_path / "a" / "b" / "x.bin"
        atomic.write_bytes(p, b"one")
        assert p.read_bytes() == b"one"
        assert stat.S_IMODE(p.stat().st_mode) == 0o644
        atomic.write_bytes(p, b"two")
        assert p.read_bytes() == b"two"
        assert sorted(os.listdir(p.parent)) == ["x.bin"]
        os.umask(0o077)
        q = tmp_path / "y.bin"
        atomic.write_bytes(q, b"")
        assert stat.S_IMODE(q.stat().st_mode) == 0o600
    finally:
        os.umask(old)
    assert atomic.FILE_MODE == 0o644
    assert atomic._umask() == old and os.umask(old) == old


def test_write_bytes_failure_removes_temp_and_keeps_old(tmp_path):
    p = tmp_path / "x.txt"
    p.write_text("old")
    with pytest.raises(TypeError):
        atomic.write_bytes(p, "not bytes")
    assert p.read_text() == "old" and sorted(os.listdir(tmp_path)) == ["x.txt"]


def test_write_text_json_npz(tmp_path):
    atomic.write_text(tmp_path / "t.txt", "é\n")
    assert (tmp_path / "t.txt").read_bytes() == "é\n".encode("utf-8")
    atomic.write_json(tmp_path / "j.json", {"b": 1, "a": 2})
    assert (tmp_path / "j.json").read_text() == '{\n  "a": 2,\n  "b": 1\n}\n'
    atomic.save_npz(tmp_path / "n.npz", False, v=np.array([3, 4]))
    assert (tmp_path / "n.npz").read_bytes() == canonical.npz_bytes(False, v=np.array([3, 4]))
    atomic.save_npz(tmp_path / "m.npz", v=np.array([3, 4]))
    assert (tmp_path / "m.npz").read_bytes() == canonical.npz_bytes(True, v=np.array([3, 4]))


def test_replace_tree(tmp_path):
    root = tmp_path / "out"
    s1 = tmp_path / "s1"
    s1.mkdir()
    (s1 / "a.txt").write_text("1")
    atomic.replace_tree(s1, root)
    assert (root / "a.txt").read_text() == "1" and not s1.exists()
    s2 = tmp_path / "s2"
    s2.mkdir()
    (s2 / "b.txt").write_text("2")
    stale = tmp_path / ".out.old"
    stale.mkdir()
    (stale / "junk").write_text("x")
    atomic.replace_tree(str(s2), str(root))
    assert sorted(os.listdir(root)) == ["b.txt"]            # no stale a.txt
    assert sorted(os.listdir(tmp_path)) == ["out"]           # old tree and leftovers removed
