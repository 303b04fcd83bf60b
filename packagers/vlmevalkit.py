"""VLMEvalKit TSV adapter, generated from the exported Parquet (not from the run stores).

VLMEvalKit reads one `$LMUData/<Name>.tsv` per benchmark: `index` (unique int), `image`
(base64 of the image file's bytes), `question`, `answer`, `category`; a TSV without `A`/`B`
option columns is loaded as a custom VQA dataset. Here `question` is the full RealityBench
prompt, `answer` the ground truth as canonical JSON and `category` the environment; the
extra columns `frame_id`, `stratum` and `scorer_verdict` let a grader join the replies back
to the Parquet rows and score `adequate`. The bytes are deterministic: rows in (env, id)
order, fixed quoting and line ends. The dataset is checked against its SHA256SUMS first, so a
TSV is never made from a damaged or hand-edited export.
"""
from __future__ import annotations

import base64
import csv
import io
from pathlib import Path

import pyarrow.parquet as pq

from formats import atomic
from formats import dataset_layout as layout
from packagers.hf_export import ExportError

COLUMNS = ("index", "image", "question", "answer", "category", "frame_id", "stratum", "scorer_verdict")


def _shards(dataset_dir: Path, configs: list[str] | None, split: str) -> list[Path]:
    if not dataset_dir.is_dir():
        raise ExportError(f"{dataset_dir}: no exported dataset there")
    try:
        layout.verify_sha256sums(dataset_dir)
    except layout.LayoutError as exc:
        raise ExportError(str(exc)) from None
    out = []
    for name in configs or layout.list_configs(dataset_dir):
        found = layout.find_shards(dataset_dir, name, split)
        if not found:
            raise ExportError(f"{dataset_dir / name}: no {split}-*.parquet shards")
        out += found
    return out


def tsv_bytes(dataset_dir: Path, configs: list[str] | None = None, split: str = "test") -> bytes:
    """The TSV of the exported dataset at `dataset_dir` (e.g. out/hf/realitybench)."""
    buf = io.StringIO()
    w = csv.writer(buf, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    w.writerow(COLUMNS)
    index = 0
    for shard in _shards(Path(dataset_dir), configs, split):
        table = pq.read_table(shard, columns=["id", "env", "stratum", "image", "prompt", "ground_truth",
                                               "scorer_verdict"])
        for row in table.to_pylist():
            w.writerow((index, base64.b64encode(row["image"]["bytes"]).decode("ascii"), row["prompt"],
                        row["ground_truth"], row["env"], row["id"], row["stratum"], row["scorer_verdict"]))
            index += 1
    return buf.getvalue().encode("utf-8")


def export_vlmevalkit(dataset_dir: Path, out_path: Path, configs: list[str] | None = None,
                      split: str = "test") -> int:
    """Write the TSV (e.g. `$LMUData/RealityBench.tsv`); returns the number of rows."""
    data = tsv_bytes(dataset_dir, configs, split)
    atomic.write_bytes(out_path, data)
    return _count_rows(data)


def _count_rows(data: bytes) -> int:
    """Rows of a TSV whose quoted fields could in principle hold newlines."""
    return sum(1 for _ in csv.reader(io.StringIO(data.decode("utf-8")), delimiter="\t")) - 1
