"""The pure helpers of the RealityBench Parquet export (packagers/hf_export.py): shard planning at
its byte and row limits, the fixed writer settings (read back from a real file's metadata),
the size category's edges, licence, attribution and checksum files."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from packagers import hf_export as hf
from packagers.hf_export import plan_shards, writer_settings


def test_limits():
    assert hf.MAX_SHARD_BYTES == 200 * 1024 * 1024 and hf.MAX_SHARD_ROWS == 2000
    assert hf.ROW_GROUP_SIZE == 128 and hf.MEDIA_COLUMN == "image.bytes"
    assert (hf.DATASET_NAME, hf.SPLIT) == ("realitybench", "test")


def test_plan_shards_byte_limit_just_inside_and_outside():
    assert plan_shards([], 10, 5) == []
    assert plan_shards([4, 6], 10, 5) == [(0, 2)]                    # exactly 10: one shard
    assert plan_shards([4, 7], 10, 5) == [(0, 1), (1, 2)]            # 11: split
    assert plan_shards([4, 6, 1], 10, 5) == [(0, 2), (2, 3)]
    assert plan_shards([25], 10, 5) == [(0, 1)]                      # an oversized row still gets a shard
    assert plan_shards([25, 1, 25], 10, 5) == [(0, 1), (1, 2), (2, 3)]
    assert plan_shards([3, 3, 3, 3], 6, 5) == [(0, 2), (2, 4)]


def test_plan_shards_row_limit_just_inside_and_outside():
    assert plan_shards([1] * 3, 100, 3) == [(0, 3)]
    assert plan_shards([1] * 4, 100, 3) == [(0, 3), (3, 4)]
    assert plan_shards([1] * 7, 100, 3) == [(0, 3), (3, 6), (6, 7)]
    assert plan_shards([1] * 2, 100, 1) == [(0, 1), (1, 2)]
    assert plan_shards([1] * 4001) == [(0, 2000), (2000, 4000), (4000, 4001)]
    mb = 1024 * 1024
    assert plan_shards([100 * mb, 100 * mb, 1]) == [(0, 2), (2, 3)]


def _schema():
    return pa.schema([("id", pa.string()), ("image", pa.struct([("bytes", pa.binary()), ("path", pa.string())])),
                      ("n", pa.int64())])


def test_writer_settings_literal():
    s = writer_settings(_schema())
    assert s == {
        "compression": {"id": "ZSTD", "image.bytes": "NONE", "image.path": "ZSTD", "n": "ZSTD"},
        "compression_level": {"id": 3, "image.path": 3, "n": 3},
        "use_dictionary": ["id", "image.path", "n"],
        "write_statistics": ["id", "image.path", "n"],
        "version": "2.6", "data_page_version": "1.0", "data_page_size": 1048576, "write_page_index": True,
        "write_page_checksum": False, "store_schema": True, "use_content_defined_chunking": False}


def test_writer_settings_shape_the_file(tmp_path):
    schema = _schema()
    table = pa.Table.from_pylist([{"id": f"f{i % 2}", "image": {"bytes": bytes([i]) * 50, "path": "p.jpg"}, "n": i}
                                  for i in range(10)], schema=schema)
    path = tmp_path / "x.parquet"
    with pq.ParquetWriter(path, schema, **writer_settings(schema)) as w:
        w.write_table(table)
    md = pq.ParquetFile(path).metadata
    assert md.format_version == "2.6"
    cols = {md.row_group(0).column(i).path_in_schema: md.row_group(0).column(i) for i in range(md.num_columns)}
    assert cols["image.bytes"].compression == "UNCOMPRESSED" and cols["image.bytes"].statistics is None
    assert not cols["image.bytes"].has_dictionary_page
    for c in ("id", "image.path", "n"):
        assert cols[c].compression == "ZSTD" and cols[c].statistics is not None and cols[c].has_dictionary_page


def test_size_category_edges():
    cases = {0: "n<1K", 999: "n<1K", 1000: "1K<n<10K", 9999: "1K<n<10K", 10_000: "10K<n<100K",
             99_999: "10K<n<100K", 100_000: "100K<n<1M", 999_999: "100K<n<1M", 1_000_000: "n>1M"}
    assert {n: hf._size_category(n) for n in cases} == cases


def test_license_and_attribution():
    assets = {"b": {"kind": "texture", "source_url": "https://x/b", "license": "CC0", "attribution": "B. Person",
                    "sha256": "ab12"},
              "a": {"kind": "procedural", "generator": "blender_envs/a.py", "license": "cc0", "attribution": "us"}}
    assert hf._license({"assets": assets}) == "cc0"
    assert hf._license({"assets": {**assets, "c": {"license": "MIT"}}}) == "other"
    assert hf._license({}) == "other" and hf._license({"assets": None}) == "other"
    assert hf._attribution({"assets": assets}) == (
        "# Attribution\n\nEvery asset a frame may contain (from scenebench's `assets_manifest/manifest.yaml`).\n\n"
        "| asset | kind | source | license | attribution | sha256 |\n|---|---|---|---|---|---|\n"
        "| a | procedural | `blender_envs/a.py` | cc0 | us |  |\n"
        "| b | texture | `https://x/b` | CC0 | B. Person | ab12 |\n")
    assert hf._attribution({}).endswith("|---|---|---|---|---|---|\n")


def test_sha256sums(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "b.txt").write_bytes(b"bee")
    (tmp_path / "a.txt").write_bytes(b"")
    (tmp_path / "SHA256SUMS").write_text("old")
    assert hf._sha256sums(tmp_path) == (
        f"{hashlib.sha256(b'').hexdigest()}  a.txt\n{hashlib.sha256(b'bee').hexdigest()}  d/b.txt\n")


def test_run_order():
    class R:
        def __init__(self, env, stratum, name):
            self.manifest = {"fingerprint": {"env": env}, "config": {"stratum": stratum}}
            self.dir = Path("/o") / name
    runs = [R("tape_gap", "random", "z"), R("calib", "positive", "b"), R("calib", "positive", "a"),
            R("calib", "random", "c")]
    assert [(r.manifest["fingerprint"]["env"], r.dir.name) for r in sorted(runs, key=hf._run_order)] == [
        ("calib", "a"), ("calib", "b"), ("calib", "c"), ("tape_gap", "z")]
    bare = R("x", "y", "n")
    bare.manifest = {}
    assert hf._run_order(bare) == ("None", "None", "n")
