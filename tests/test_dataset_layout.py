"""formats.dataset_layout: shard names pinned, SHA256SUMS catches every kind of damage, the
staged swap leaves nothing behind on failure, containment follows symlinks."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from formats import dataset_layout as layout


def test_shard_names_and_patterns_are_pinned():
    assert layout.shard_path("tape_gap", "test", 1, 3) == "tape_gap/test-00001-of-00003.parquet"
    assert layout.shard_path("point_path", "benchmark") == "point_path/benchmark-00000-of-00001.parquet"
    assert layout.split_pattern("tape_gap", "test") == "tape_gap/test-*"
    assert layout.config_entry("a", ["train", "benchmark"], default=True) == {
        "config_name": "a", "data_files": [{"split": "train", "path": "a/train-*"},
                                           {"split": "benchmark", "path": "a/benchmark-*"}], "default": True}
    assert "default" not in layout.config_entry("b", ["test"])
    assert [layout.size_category(n) for n in (0, 999, 1000, 9_999, 10_000, 999_999, 1_000_000)] == [
        "n<1K", "n<1K", "1K<n<10K", "1K<n<10K", "10K<n<100K", "100K<n<1M", "n>1M"]


def test_find_shards_and_configs(tmp_path):
    for rel in ("b/test-00001-of-00002.parquet", "b/test-00000-of-00002.parquet", "b/train-00000-of-00001.parquet",
                "a/test-00000-of-00001.parquet", ".a.staging/x", "README.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"x")
    assert layout.list_configs(tmp_path) == ["a", "b"]
    assert [p.name for p in layout.find_shards(tmp_path, "b", "test")] == ["test-00000-of-00002.parquet",
                                                                          "test-00001-of-00002.parquet"]
    assert layout.find_shards(tmp_path, "a", "benchmark") == []


def _tree(root: Path) -> None:
    (root / "c").mkdir(parents=True)
    (root / "c" / "test-00000-of-00001.parquet").write_bytes(b"parquet")
    (root / "README.md").write_text("card\n")


def test_sha256sums_format_and_verification(tmp_path):
    _tree(tmp_path)
    text = layout.sha256sums(tmp_path)
    assert text == (f"{hashlib.sha256(b'card' + bytes([10])).hexdigest()}  README.md\n"
                    f"{hashlib.sha256(b'parquet').hexdigest()}  c/test-00000-of-00001.parquet\n")
    (tmp_path / "SHA256SUMS").write_text(text)
    layout.verify_sha256sums(tmp_path)
    (tmp_path / "README.md").write_text("edited\n")
    with pytest.raises(layout.LayoutError, match="README.md: sha256 differs"):
        layout.verify_sha256sums(tmp_path)
    (tmp_path / "README.md").write_text("card\n")
    (tmp_path / "c" / "extra.parquet").write_bytes(b"")
    with pytest.raises(layout.LayoutError, match="unlisted: \\['c/extra.parquet'\\]"):
        layout.verify_sha256sums(tmp_path)
    (tmp_path / "c" / "extra.parquet").unlink()
    (tmp_path / "README.md").unlink()
    with pytest.raises(layout.LayoutError, match="missing: \\['README.md'\\]"):
        layout.verify_sha256sums(tmp_path)
    (tmp_path / "SHA256SUMS").write_text("garbage\n")
    with pytest.raises(layout.LayoutError, match="SHA256SUMS:1: not a sha256sum line"):
        layout.verify_sha256sums(tmp_path)


def test_staged_tree_swaps_in_and_writes_sums(tmp_path):
    root = tmp_path / "out" / "ds"
    with layout.staged_tree(root) as staging:
        assert staging == tmp_path / "out" / ".ds.staging" and not any(staging.iterdir())
        _tree(staging)
    assert layout.list_files(root) == ["README.md", "SHA256SUMS", "c/test-00000-of-00001.parquet"]
    layout.verify_sha256sums(root)
    with layout.staged_tree(root) as staging:          # a re-export replaces the tree: no stale files
        (staging / "only.txt").write_text("x")
    assert layout.list_files(root) == ["SHA256SUMS", "only.txt"]
    assert sorted(p.name for p in root.parent.iterdir()) == ["ds"]
    with layout.staged_tree(tmp_path / "plain", sums=False) as staging:
        (staging / "a.json").write_text("{}")
    assert layout.list_files(tmp_path / "plain") == ["a.json"]


def test_staged_tree_failure_leaves_everything_as_it_was(tmp_path):
    out = tmp_path / "out"
    root = out / "ds"
    with layout.staged_tree(root) as staging:
        _tree(staging)
    before = {rel: (root / rel).read_bytes() for rel in layout.list_files(root)}
    with pytest.raises(RuntimeError, match="boom"):
        with layout.staged_tree(root) as staging:
            (staging / "half.parquet").write_bytes(b"half")
            raise RuntimeError("boom")
    assert sorted(p.name for p in out.iterdir()) == ["ds"]
    assert {rel: (root / rel).read_bytes() for rel in layout.list_files(root)} == before
    # a failure on a fresh output directory removes the directories it created
    fresh = tmp_path / "new" / "deeper" / "ds"
    with pytest.raises(KeyboardInterrupt):
        with layout.staged_tree(fresh):
            raise KeyboardInterrupt
    assert not (tmp_path / "new").exists()
    # a leftover staging tree from a killed export is cleared before the next one
    (out / ".ds.staging").mkdir()
    (out / ".ds.staging" / "junk").write_text("x")
    with layout.staged_tree(root) as staging:
        assert not any(staging.iterdir())


def test_resolve_inside(tmp_path):
    base = tmp_path / "run"
    (base / "frames").mkdir(parents=True)
    (base / "frames" / "a.jpg").write_bytes(b"x")
    (tmp_path / "secret").write_text("s")
    assert layout.resolve_inside(base, "frames/a.jpg") == base / "frames" / "a.jpg"
    assert layout.resolve_inside(base, "frames/../frames/a.jpg").resolve() == (base / "frames/a.jpg").resolve()
    for bad in ("../secret", str(tmp_path / "secret"), "frames/../../secret"):
        with pytest.raises(layout.LayoutError, match="outside"):
            layout.resolve_inside(base, bad, "image")
    os.symlink(tmp_path / "secret", base / "frames" / "link.jpg")
    with pytest.raises(layout.LayoutError, match="outside"):
        layout.resolve_inside(base, "frames/link.jpg")
    os.symlink(base / "frames" / "a.jpg", base / "frames" / "inner.jpg")   # a link inside the run is fine
    assert layout.resolve_inside(base, "frames/inner.jpg").read_bytes() == b"x"
    linked_run = tmp_path / "linked_run"
    os.symlink(base, linked_run)                                              # the run dir itself a link
    assert layout.resolve_inside(linked_run, "frames/a.jpg").read_bytes() == b"x"
