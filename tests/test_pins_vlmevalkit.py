"""The VLMEvalKit TSV (packagers/vlmevalkit.py) from small hand-written Parquet shards:
exact bytes, row order, shard discovery and the row count with quoted newlines."""
from __future__ import annotations

import base64
import csv
import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from formats import dataset_layout as layout
from packagers.hf_export import ExportError
from packagers.vlmevalkit import COLUMNS, _count_rows, export_vlmevalkit, tsv_bytes

HEADER = "index\timage\tquestion\tanswer\tcategory\tframe_id\tstratum\tscorer_verdict\n"


def _shard(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist([{
        "id": r[0], "env": r[1], "stratum": "random", "image": {"bytes": r[2], "path": f"{r[0]}.jpg"},
        "prompt": r[3], "ground_truth": r[4], "scorer_verdict": r[5], "extra": 1} for r in rows])
    pq.write_table(table, path)


@pytest.fixture
def dataset(tmp_path):
    root = tmp_path / "rb"
    _shard(root / "tape_gap" / "test-00000-of-00002.parquet", [("tg-1", "tape_gap", b"\x00\x01", "Q1", "{}", "accept")])
    _shard(root / "tape_gap" / "test-00001-of-00002.parquet", [("tg-2", "tape_gap", b"AB", 'say "hi"', '{"a":1}',
                                                                  "reject")])
    _shard(root / "slope_gauge" / "test-00000-of-00001.parquet", [("sg-1", "slope_gauge", b"", "line1\nline2",
                                                                     "{}", "accept")])
    _shard(root / "slope_gauge" / "train-00000-of-00001.parquet", [("sg-t", "slope_gauge", b"T", "Qt", "{}",
                                                                      "accept")])
    _shard(root / ".cache" / "test-00000-of-00001.parquet", [("hidden", "x", b"", "Q", "{}", "accept")])
    (root / "README.md").write_text("not a config")
    (root / "SHA256SUMS").write_text(layout.sha256sums(root))
    return root


def test_columns():
    assert COLUMNS == ("index", "image", "question", "answer", "category", "frame_id", "stratum", "scorer_verdict")


def test_tsv_bytes_exactly(dataset):
    data = tsv_bytes(dataset)
    b01 = base64.b64encode(b"\x00\x01").decode()
    assert b01 == "AAE="
    assert data.decode("utf-8") == (
        HEADER
        + '0\t\t"line1\nline2"\t{}\tslope_gauge\tsg-1\trandom\taccept\n'
        + f"1\t{b01}\tQ1\t{{}}\ttape_gap\ttg-1\trandom\taccept\n"
        + '2\tQUI=\t"say ""hi"""\t"{""a"":1}"\ttape_gap\ttg-2\trandom\treject\n')
    rows = list(csv.reader(io.StringIO(data.decode()), delimiter="\t"))
    assert rows[1][2] == "line1\nline2" and rows[3][2] == 'say "hi"' and base64.b64decode(rows[3][1]) == b"AB"


def test_configs_and_split(dataset):
    only = tsv_bytes(dataset, configs=["tape_gap"]).decode()
    assert only.count("\n") == 3 and "sg-1" not in only and only.startswith(HEADER + "0\tAAE=")
    ordered = tsv_bytes(dataset, configs=["tape_gap", "slope_gauge"]).decode().splitlines()
    assert [line.split("\t")[5] for line in ordered[1:3]] == ["tg-1", "tg-2"]
    train = tsv_bytes(dataset, configs=["slope_gauge"], split="train").decode()
    assert train == HEADER + "0\tVA==\tQt\t{}\tslope_gauge\tsg-t\trandom\taccept\n"
    with pytest.raises(ExportError, match=r"tape_gap: no train-\*\.parquet shards"):
        tsv_bytes(dataset, split="train")
    with pytest.raises(ExportError, match=r"nope: no test-\*\.parquet shards"):
        tsv_bytes(dataset, configs=["nope"])


def test_damaged_or_missing_dataset_is_refused(dataset, tmp_path):
    with pytest.raises(ExportError, match="no exported dataset there"):
        tsv_bytes(tmp_path / "absent")
    shard = dataset / "tape_gap" / "test-00000-of-00002.parquet"
    shard.write_bytes(shard.read_bytes() + b"x")
    with pytest.raises(ExportError, match="sha256 differs"):
        tsv_bytes(dataset)


def test_export_writes_the_bytes_and_counts_rows(dataset, tmp_path):
    out = tmp_path / "LMUData" / "RealityBench.tsv"
    assert export_vlmevalkit(dataset, out) == 3
    assert out.read_bytes() == tsv_bytes(dataset)
    assert out.read_bytes().count(b"\n") == 5  # 4 lines + the quoted newline
    assert export_vlmevalkit(dataset, out, configs=["tape_gap"]) == 2
    assert export_vlmevalkit(dataset, tmp_path / "t.tsv", configs=["slope_gauge"], split="train") == 1
    # the train shard's one row (b"T" is base64 "VA=="), not the test shard's sg-1
    assert (tmp_path / "t.tsv").read_text() == HEADER + "0\tVA==\tQt\t{}\tslope_gauge\tsg-t\trandom\taccept\n"


def test_count_rows():
    assert _count_rows(HEADER.encode()) == 0
    assert _count_rows((HEADER + '0\t\t"a\nb\nc"\t{}\te\tf\tr\tv\n1\t\tq\t{}\te\tg\tr\tv\n').encode()) == 2
