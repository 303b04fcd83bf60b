"""The pure helpers of the RealityBench Parquet export (packagers/hf_export.py): shard planning at
its byte and row limits, licence, attribution and the card's run order."""
from __future__ import annotations

from pathlib import Path


from packagers import hf_export as hf
from packagers.hf_export import plan_shards


def test_limits():
    assert hf.MAX_SHARD_BYTES == 200 * 1024 * 1024 and hf.MAX_SHARD_ROWS == 2000
    assert hf.ROW_GROUP_SIZE == 128
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
