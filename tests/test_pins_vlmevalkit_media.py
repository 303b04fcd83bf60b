"""Pins of packagers.vlmevalkit beside test_pins_vlmevalkit.py (TSV bytes, index, refusals), in
process: which media column a config has and which bytes a row's images are (VANTAGE rows carry a
list of frames), the image cell, the column projection of rows_of, the manifest's and README's
text, the system-prompt cell, and the generated class file and README against their snapshots in
tests/data/vlmevalkit/ (the file VLMEvalKit runs: test_vlmevalkit_export.py runs the real thing
through it; a change here must be re-checked there and the snapshot rewritten on purpose:
SCENEBENCH_WRITE_SNAPSHOTS=1)."""
from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from packagers import vlmevalkit as V

SNAPSHOTS = Path(__file__).resolve().parent / "data" / "vlmevalkit"
SUITE = V.VlmSuite(benchmark="vantage", display="VANTAGE-Bench", version="0.2.0", split="test", identity="ab" * 32,
                   datasets=(V.VlmDataset("VANTAGE-Bench_v0.2.0", ("event_verification", "video_qa"), True),
                             V.VlmDataset("VANTAGE-Bench_v0.2.0_extra", ("extra",), False)),
                   system_prompt=True)


def _shard(root: Path, config: str, rows: list[dict]) -> None:
    (root / config).mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), root / config / "test-00000-of-00001.parquet")


def test_row_images_read_a_frame_list_or_one_image():
    frames = {"images": [{"bytes": b"f0", "path": None}, None, {"bytes": None}, {"path": "x.jpg"}, {"bytes": b"f1"}]}
    assert V._row_images(frames) == [b"f0", b"f1"]
    assert V._row_images({"images": None}) == [] and V._row_images({"images": []}) == []
    assert V._row_images({"image": {"bytes": b"one"}}) == [b"one"]
    assert V._row_images({"image": None}) == [] and V._row_images({"image": {"bytes": b""}}) == []
    assert V._row_images({"images": [{"bytes": b"f"}], "image": {"bytes": b"ignored"}}) == [b"f"]


def test_media_column_and_column_projection(tmp_path):
    _shard(tmp_path, "clip", [{"id": "c/1", "prompt": "p", "images": [{"bytes": b"a", "path": None}]}])
    _shard(tmp_path, "img", [{"id": "i/1", "prompt": "p", "image": {"bytes": b"b", "path": None}}])
    _shard(tmp_path, "text", [{"id": "t/1", "prompt": "p"}])
    assert [V._media_column(tmp_path, c, "test") for c in ("clip", "img", "text")] == ["images", "image", None]
    assert list(V.rows_of(tmp_path, "clip", "test", ["id"])) == [{"id": "c/1"}]
    assert list(V.rows_of(tmp_path, "clip", "test")) == [
        {"id": "c/1", "prompt": "p", "images": [{"bytes": b"a", "path": None}]}]
    has = {c: V._has_images(V.VlmSuite("b", "B", "1", "test", "0", (), False), V.VlmDataset(c, (c,), False), tmp_path)
           for c in ("clip", "img", "text")}
    assert has == {"clip": True, "img": True, "text": False}


def test_image_cell_one_image_or_a_list_of_frames():
    assert V.image_cell([]) == ""
    assert V.image_cell([b"\x00\x01"]) == "AAE="
    assert V.image_cell([b"a", b"bc"]) == "['" + base64.b64encode(b"a").decode() + "', 'YmM=']"


def test_tsv_system_prompt_cell_and_written_texts(tmp_path):
    root = tmp_path / "export"
    _shard(root, "video_qa", [{"id": "q/1", "prompt": "Which?", "system_prompt": None,
                               "images": [{"bytes": b"x", "path": None}]},
                              {"id": "q/2", "prompt": "Why?", "system_prompt": "Be brief."}])
    suite = V.VlmSuite("vantage", "VB", "1", "test", "cd" * 32, (V.VlmDataset("VB_v1", ("video_qa",), True),), True)
    tsv = V.tsv_bytes(suite, suite.datasets[0], root, lambda r: "A", lambda r: "qa").decode()
    lines = [ln.split("\t") for ln in tsv.splitlines()]
    assert lines[0] == [*V.COLUMNS, "system_prompt"]
    assert lines[1][1:] == ["eA==", "Which?", "A", "qa", "q/1", ""] and lines[2][1:] == ["", "Why?", "A", "qa", "q/2",
                                                                                          "Be brief."]
    dest = tmp_path / "out" / "vlm"
    (root / "SHA256SUMS").write_text("")
    files = V.write_folder(suite, root, dest, lambda r: "A", lambda r: "qa")
    assert sorted(files) == ["README.md", "VB_v1.tsv", "scenebench_vantage.py", "scenebench_vlmevalkit.json"]
    text = (dest / V.MANIFEST).read_text()
    assert text == json.dumps(V.manifest(suite, "../../export"), indent=2, sort_keys=True) + "\n"
    assert '"dataset": "../../export"' in text and text.index('"benchmark"') < text.index('"dataset"')
    assert "from `../../export` (split `test`)" in (dest / "README.md").read_text()
    assert (dest / "VB_v1.tsv").read_text() == tsv


@pytest.mark.parametrize("name, make", [("class_file.py.txt", lambda: V.class_file(SUITE)),
                                        ("README.md.txt", lambda: V.readme(SUITE, "../datasets/vantage"))])
def test_generated_files_match_their_snapshots(name, make):
    text = make()
    if os.environ.get("SCENEBENCH_WRITE_SNAPSHOTS") == "1":
        (SNAPSHOTS / name).write_text(text)
    assert text == (SNAPSHOTS / name).read_text()
    if name.startswith("class_file"):
        compile(text, "scenebench_vantage.py", "exec")     # it is Python
