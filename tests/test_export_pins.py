"""Pinned values of the export rules (issue #16: tests that fail when a rule moves): the shard
cut at its byte and row limits, the gray rule on every term mix, the Parquet writer settings."""
from __future__ import annotations

import pytest

from formats import dataset_layout as layout
from formats.records import TermResult
from packagers.hf_export import FEATURES, MAX_SHARD_BYTES, MAX_SHARD_ROWS, ROW_GROUP_SIZE, gray_only, plan_shards


def test_shard_limits_are_the_documented_ones():
    assert (MAX_SHARD_BYTES, MAX_SHARD_ROWS, ROW_GROUP_SIZE) == (200 * 1024 * 1024, 2000, 128)


@pytest.mark.parametrize("sizes, max_bytes, max_rows, plan", [
    ([], 10, 5, []),
    ([5, 5], 10, 5, [(0, 2)]),                 # exactly at the byte limit: one shard
    ([5, 6], 10, 5, [(0, 1), (1, 2)]),         # one byte over: cut
    ([20], 10, 5, [(0, 1)]),                   # an image larger than the limit still gets a shard
    ([20, 1], 10, 5, [(0, 1), (1, 2)]),
    ([1, 1, 1], 100, 2, [(0, 2), (2, 3)]),     # the row limit: exactly 2 rows per shard
    ([1, 1], 100, 2, [(0, 2)]),
    ([4, 4, 4, 4, 4], 8, 100, [(0, 2), (2, 4), (4, 5)]),
])
def test_plan_shards_at_its_limits(sizes, max_bytes, max_rows, plan):
    assert plan_shards(sizes, max_bytes, max_rows) == plan


def _t(passed: bool, gray: bool, name: str = "t") -> TermResult:
    return TermResult(name=name, side="scene", value=1.0, threshold="x", passed=passed, gray=gray)


@pytest.mark.parametrize("terms, expected", [
    ([], False),
    ([_t(True, False)], False),
    ([_t(True, True)], False),                          # a gray-zone term that passes
    ([_t(False, True)], True),
    ([_t(False, True), _t(False, True, "u")], True),
    ([_t(False, True), _t(False, False, "u")], False),  # a hard failure decides the verdict: a reject
    ([_t(False, False), _t(True, True, "u")], False),
])
def test_gray_only(terms, expected):
    assert gray_only(terms) is expected


def test_writer_settings_are_pinned():
    ws = layout.writer_settings(FEATURES.arrow_schema)
    assert ws["compression"]["image.bytes"] == "NONE"
    assert {c for c, v in ws["compression"].items() if v != "ZSTD"} == {"image.bytes"}
    assert "image.bytes" not in ws["use_dictionary"] and "image.bytes" not in ws["write_statistics"]
    assert set(ws["compression_level"].values()) == {3}
    assert "id" in ws["use_dictionary"] and "image.path" in ws["write_statistics"]
    assert {k: ws[k] for k in ("version", "data_page_version", "data_page_size", "write_page_index",
                               "write_page_checksum", "store_schema", "use_content_defined_chunking")} == {
        "version": "2.6", "data_page_version": "1.0", "data_page_size": 1048576, "write_page_index": True,
        "write_page_checksum": False, "store_schema": True, "use_content_defined_chunking": False}
