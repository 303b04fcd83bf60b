"""The VLMEvalKit TSV (packagers/vlmevalkit.py) from small hand-written Parquet shards: exact bytes
(quoting, row order, shard discovery, no-image rows, the system-prompt column), the index scheme
and the refusals."""
from __future__ import annotations

import hashlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from formats import dataset_layout as layout
from packagers import vlmevalkit as vk

HEADER = "index\timage\tquestion\tanswer\tcategory\tid\n"


def _shard(path, rows, system=False):
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist([{
        "id": r[0], "env": r[1], "image": {"bytes": r[2], "path": f"{r[0]}.jpg"} if r[2] is not None else None,
        "prompt": r[3], "ground_truth": r[4], **({"system_prompt": "SYS"} if system else {})} for r in rows])
    pq.write_table(table, path)


@pytest.fixture
def dataset(tmp_path):
    root = tmp_path / "rb"
    _shard(root / "tape_gap" / "test-00000-of-00002.parquet", [("tg-1", "tape_gap", b"\x00\x01", "Q1", "{}")])
    _shard(root / "tape_gap" / "test-00001-of-00002.parquet", [("tg-2", "tape_gap", b"AB", 'say "hi"', '{"a":1}')])
    _shard(root / "slope_gauge" / "test-00000-of-00001.parquet", [("sg-1", "slope_gauge", None, "line1\nline2", "{}")])
    _shard(root / "slope_gauge" / "train-00000-of-00001.parquet", [("sg-t", "slope_gauge", b"T", "Qt", "{}")])
    _shard(root / ".cache" / "test-00000-of-00001.parquet", [("hidden", "x", b"", "Q", "{}")])
    (root / "README.md").write_text("not a config")
    (root / "SHA256SUMS").write_text(layout.sha256sums(root))
    return root


def _suite(root, split="test", in_set=lambda c: True):
    return vk.build_suite("rb", "RB", "1.0", root, split, in_set)


def test_suite_identity_and_datasets(dataset):
    s = _suite(dataset)
    assert s.identity == hashlib.sha256((dataset / "SHA256SUMS").read_bytes()).hexdigest()
    assert s.datasets == (vk.VlmDataset("RB_v1.0", ("slope_gauge", "tape_gap"), True),)
    assert s.system_prompt is False and s.class_name == "SceneBenchRB"
    split = _suite(dataset, in_set=lambda c: c == "tape_gap").datasets
    assert split == (vk.VlmDataset("RB_v1.0", ("tape_gap",), True), vk.VlmDataset("RB_v1.0_slope_gauge",
                                                                                      ("slope_gauge",), False))
    assert _suite(dataset, "train").datasets == (vk.VlmDataset("RB_v1.0", ("slope_gauge",), True),)


def test_tsv_bytes_exactly(dataset):
    s = _suite(dataset)
    i = {r: vk.row_index(s.identity, r) for r in ("sg-1", "tg-1", "tg-2")}
    data = vk.tsv_bytes(s, s.datasets[0], dataset, answer=lambda r: r["ground_truth"], category=lambda r: r["env"])
    assert data.decode("utf-8") == (
        HEADER
        + f'{i["sg-1"]}\t\t"line1\nline2"\t{{}}\tslope_gauge\tsg-1\n'
        + f'{i["tg-1"]}\tAAE=\tQ1\t{{}}\ttape_gap\ttg-1\n'
        + f'{i["tg-2"]}\tQUI=\t"say ""hi"""\t"{{""a"":1}}"\ttape_gap\ttg-2\n')
    assert vk.count_rows(data) == 3 and data.count(b"\n") == 5
    assert vk.index_map(s, dataset) == {i["sg-1"]: ("RB_v1.0", "sg-1"), i["tg-1"]: ("RB_v1.0", "tg-1"),
                                        i["tg-2"]: ("RB_v1.0", "tg-2")}


def test_system_prompt_column(tmp_path):
    root = tmp_path / "ep"
    _shard(root / "a" / "benchmark-00000-of-00001.parquet", [("a-1", "a", b"X", "P", "[1]")], system=True)
    (root / "SHA256SUMS").write_text(layout.sha256sums(root))
    s = vk.build_suite("ep", "EP", "0.1", root, "benchmark", lambda c: True)
    assert s.system_prompt is True
    data = vk.tsv_bytes(s, s.datasets[0], root, answer=lambda r: "ANS", category=lambda r: "cat").decode()
    assert data == f"index\timage\tquestion\tanswer\tcategory\tid\tsystem_prompt\n{vk.row_index(s.identity, 'a-1')}\tWA==\tP\tANS\tcat\ta-1\tSYS\n"


def test_write_folder_and_refusals(dataset, tmp_path):
    s = _suite(dataset)
    files = vk.write_folder(s, dataset, tmp_path / "rb_vk", answer=lambda r: "A", category=lambda r: "c")
    assert files == ["RB_v1.0.tsv", "README.md", "scenebench_rb.py", "scenebench_vlmevalkit.json"]
    compile((tmp_path / "rb_vk" / "scenebench_rb.py").read_text(), "scenebench_rb.py", "exec")
    shard = dataset / "tape_gap" / "test-00000-of-00002.parquet"
    shard.write_bytes(shard.read_bytes() + b"x")
    with pytest.raises(vk.VlmError, match="sha256 differs"):
        _suite(dataset)
    with pytest.raises(vk.VlmError, match="no exported dataset there"):
        _suite(tmp_path / "absent")
    empty = vk.VlmSuite("rb", "RB", "1.0", "test", "x", (), False)
    with pytest.raises(vk.VlmError, match="no config has a 'test' split"):
        vk.write_folder(empty, dataset, tmp_path / "none", answer=str, category=str)
    assert not (tmp_path / "none").exists()


def test_index_collision_is_refused(dataset, monkeypatch):
    s = _suite(dataset)
    monkeypatch.setattr(vk, "row_index", lambda identity, rid: 7)
    with pytest.raises(vk.VlmError, match=r"^rows 'sg-1' and 'tg-1' hash to the same index 7$"):
        vk.index_map(s, dataset)
