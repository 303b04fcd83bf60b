"""RealityBench HF export: loads offline with images, documents itself, and is byte-reproducible."""
from __future__ import annotations

from synthetic_runs import ground_truth, jpeg_bytes

import os

os.environ["HF_DATASETS_OFFLINE"] = "1"  # before `datasets` is imported: its config reads these once
os.environ["HF_HUB_OFFLINE"] = "1"

import base64  # noqa: E402
import hashlib  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
from pathlib import Path  # noqa: E402

import pandas as pd  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
import pytest  # noqa: E402
import yaml  # noqa: E402
from PIL import Image as PILImage  # noqa: E402

from packagers.hf_export import FEATURES, ExportError, export_realitybench  # noqa: E402
from packagers.prompts import MissingPromptError, render_prompt  # noqa: E402
from formats.records import FrameRecord  # noqa: E402
from scorers.terms import TermResult  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BENCHMARK = ROOT / "configs/benchmark/realitybench.yaml"


def _jpeg(seed: int, size=(64, 48)) -> bytes:
    return jpeg_bytes(seed, size)


_ground_truth = ground_truth


def _terms(verdict: str) -> list[TermResult]:
    ok = TermResult(name="in_frame", side="scene", value=1.0, threshold=">= 0.9", passed=True)
    flag = TermResult(name="from_front", side="scene", value=True, threshold="true", passed=True)
    if verdict == "accept":
        return [ok, flag]
    if verdict == "unscored":
        return [ok, TermResult(name="yaw", side="scene", value=20.0, threshold="<= 15 deg", unit="deg",
                               passed=False, gray=True)]
    return [ok, TermResult(name="distance", side="scene", value=None, threshold="<= 0.65 m", unit="m",
                           passed=False)]


def make_run(run_dir: Path, env: str, stratum: str, verdicts: list[str]) -> Path:
    """A run store as the farm writes it, with the real FrameRecord model and real JPEGs."""
    for sub in ("frames", "passes", "scenes"):
        (run_dir / sub).mkdir(parents=True, exist_ok=True)
    lines = []
    for i, verdict in enumerate(verdicts):
        scene_id = f"{stratum}-{i // 2:05d}"
        fid = f"{env}-{scene_id}-{i % 2:02d}"
        pixel_seed = len(env) * 1000 + i + (500 if stratum == "positive" else 0)
        (run_dir / "frames" / f"{fid}.jpg").write_bytes(_jpeg(pixel_seed))
        (run_dir / "passes" / f"{fid}.npz").write_bytes(b"")
        (run_dir / "scenes" / f"{scene_id}.json").write_text(json.dumps(
            {"env": env, "scene_id": scene_id, "spec": {"pitch_deg": 20 + i // 2, "seed": 7 + i // 2,
                                                          "nested": {"b": [1, 2.5], "a": None}}}))
        rec = FrameRecord(
            frame_id=fid, env=env, scene_id=scene_id, view_index=i % 2, seed=(2**62 + 12345 * i),
            stratum=stratum, target="crossing", camera={"width": 64, "height": 48}, terms=_terms(verdict),
            verdict=verdict, failing_term=None if verdict == "accept" else "x",
            sanity={"ok": verdict != "excluded", "reasons": [] if verdict != "excluded" else ["black frame"]},
            ground_truth=_ground_truth(env, i), image=f"frames/{fid}.jpg", passes=f"passes/{fid}.npz",
            isp={}, pose_attempts=1, renders=1, timings={"render_s": 0.1 * i})
        lines.append(rec.model_dump_json())
    # written out of order: the export must sort
    (run_dir / "records.jsonl").write_text("".join(line + "\n" for line in reversed(lines)))
    (run_dir / "manifest.json").write_text(json.dumps({
        "fingerprint": {"env": env, "generator_version": f"{env}-1", "seed": 0, "quality": {"name": "preview"}},
        "config": {"env": env, "stratum": stratum},
        "seeds": {"root_seed": 0, "scheme": "blake2b('scenebench/<seed>/<env>/<stratum>/<scene>[/<view>]/<stage>')"},
        "versions": {"python": "3.11"}, "git_commit": "0123abc"}))
    return run_dir


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    """Offline even if another test imported `datasets` before this module set the variables."""
    import datasets.config
    import huggingface_hub.constants

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True, raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)


@pytest.fixture()
def runs(tmp_path):
    base = tmp_path / "runs"
    return [
        make_run(base / "random" / "tape_gap", "tape_gap", "random", ["accept", "reject", "excluded", "unscored"]),
        make_run(base / "positive" / "tape_gap", "tape_gap", "positive", ["accept", "accept"]),
        make_run(base / "random" / "slope_gauge", "slope_gauge", "random", ["reject", "accept", "reject"]),
        make_run(base / "positive" / "slope_gauge", "slope_gauge", "positive", ["accept"]),
    ]


def _load(root: Path, config: str, cache: Path):
    from datasets import load_dataset

    return load_dataset(str(root), config, split="test", cache_dir=str(cache))


def test_export_loads_offline_with_images(runs, tmp_path):
    s = export_realitybench(runs, tmp_path / "hf", BENCHMARK)
    root = tmp_path / "hf" / "realitybench"
    assert s.root == root
    assert s.rows == {"slope_gauge": 4, "tape_gap": 5} and s.excluded == {"slope_gauge": 0, "tape_gap": 1}
    assert s.shards["tape_gap"] == ["tape_gap/test-00000-of-00001.parquet"]
    assert (root / "tape_gap/test-00000-of-00001.parquet").exists()

    ds = _load(root, "tape_gap", tmp_path / "cache")
    assert ds.num_rows == 5
    assert ds.features == FEATURES
    assert list(ds.column_names) == list(FEATURES)
    ids = ds["id"]
    assert ids == sorted(ids) and not any(i.endswith("random-00001-00") for i in ids)  # the excluded frame
    row = ds[0]
    assert isinstance(row["image"], PILImage.Image) and row["image"].size == (64, 48)
    assert row["env"] == "tape_gap" and row["stratum"] in ("random", "positive")
    assert row["prompt"] == render_prompt("tape_gap")
    assert [k["name"] for k in row["keys"]] == ["reading_in", "gap_in", "tilted"]
    assert row["keys"][0]["tolerance"] == 0.125 and row["keys"][2]["scored_on"] == "all"
    gt = json.loads(row["ground_truth"])
    assert set(gt) == {"reading_in", "gap_in", "tilted", "geometric_reading_in"}
    assert json.loads(row["scene"])["nested"] == {"a": None, "b": [1, 2.5]}
    assert isinstance(row["seed"], int) and row["seed"] >= 2**62
    assert set(ds["stratum"]) == {"random", "positive"}
    assert set(ds["scorer_verdict"]) == {"accept", "reject", "unscored"}
    by_id = {r["id"]: r for r in ds}
    unscored = by_id["tape_gap-random-00001-01"]
    assert unscored["scorer_verdict"] == "unscored" and unscored["gray"] is True
    assert by_id["tape_gap-random-00000-01"]["gray"] is False
    terms = by_id["tape_gap-random-00000-00"]["terms"]
    assert terms[1]["value"] == 1.0 and terms[1]["threshold"] == "true"           # a yes/no term
    assert by_id["tape_gap-random-00000-01"]["terms"][1]["value"] is None        # not computable

    gauge = _load(root, "slope_gauge", tmp_path / "cache")
    assert gauge.num_rows == 4 and isinstance(gauge[0]["image"], PILImage.Image)
    assert json.loads(gauge[0]["ground_truth"]).keys() >= {"reading_deg", "on_module"}


def test_card_yaml_and_body(runs, tmp_path):
    export_realitybench(runs, tmp_path / "hf", BENCHMARK)
    text = (tmp_path / "hf/realitybench/README.md").read_text()
    assert text.startswith("---\n")
    front = yaml.safe_load(text.split("---\n")[1])
    assert [c["config_name"] for c in front["configs"]] == ["slope_gauge", "tape_gap"]
    assert front["configs"][1]["data_files"] == [{"split": "test", "path": "tape_gap/test-*"}]
    assert front["configs"][1].get("default") is True
    infos = {i["config_name"]: i for i in front["dataset_info"]}
    split = infos["tape_gap"]["splits"]
    assert [(s["name"], s["num_examples"]) for s in split] == [("test", 5)]
    # sizes checked against the files themselves: download_size is the shard's size on disk;
    # num_bytes (= dataset_size) is the Arrow size of the rows, which holds the five JPEGs
    # whole and is within a validity bitmap of the table read back from the shard
    shard = tmp_path / "hf/realitybench/tape_gap/test-00000-of-00001.parquet"
    assert infos["tape_gap"]["download_size"] == shard.stat().st_size
    assert infos["tape_gap"]["dataset_size"] == split[0]["num_bytes"]
    jpegs = sum(p.stat().st_size for r in runs[:2] for p in (r / "frames").glob("*.jpg")
                if "random-00001-00" not in p.name)                    # the excluded frame is not exported
    assert jpegs < split[0]["num_bytes"] < shard.stat().st_size
    assert abs(split[0]["num_bytes"] - pq.read_table(shard).nbytes) <= 8
    assert {"name": "image", "dtype": "image"} in infos["tape_gap"]["features"]
    body = text.split("---\n", 2)[2]
    for name in FEATURES:
        assert f"| `{name}` |" in body                 # every field documented
    for word in ("Split rule", "Strata", "positive", "excluded", "tape_gap-1", "root seed", "0123abc",
                 "ground_truth", "JSON"):
        assert word in body
    assert "| tape_gap | 5 | 3 | 2 | 1 |" in body
    attribution = (tmp_path / "hf/realitybench/ATTRIBUTION.md").read_text()
    assert "tape_measure_blade" in attribution and "Apache-2.0" in attribution


def test_sha256sums_verify(runs, tmp_path):
    export_realitybench(runs, tmp_path / "hf", None)
    root = tmp_path / "hf/realitybench"
    listed = {}
    for line in (root / "SHA256SUMS").read_text().splitlines():
        digest, rel = line.split("  ", 1)
        listed[rel] = digest
    files = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} - {"SHA256SUMS"}
    assert set(listed) == files
    for rel, digest in listed.items():
        assert hashlib.sha256((root / rel).read_bytes()).hexdigest() == digest
    if shutil.which("sha256sum"):
        subprocess.run(["sha256sum", "--quiet", "-c", "SHA256SUMS"], cwd=root, check=True)


def test_export_twice_is_byte_identical(runs, tmp_path):
    export_realitybench(runs, tmp_path / "a", BENCHMARK)
    export_realitybench(list(reversed(runs)), tmp_path / "b", BENCHMARK)   # run order must not matter
    a, b = tmp_path / "a/realitybench", tmp_path / "b/realitybench"
    fa = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert fa == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for rel in fa:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    # re-export in place replaces the tree (no staging or stale files left behind)
    export_realitybench(runs, tmp_path / "a", BENCHMARK)
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["realitybench"]
    assert (a / "SHA256SUMS").read_bytes() == (b / "SHA256SUMS").read_bytes()


def test_parquet_writer_metadata_is_fixed(runs, tmp_path):
    export_realitybench(runs, tmp_path / "hf", None)
    pf = pq.ParquetFile(tmp_path / "hf/realitybench/tape_gap/test-00000-of-00001.parquet")
    md = pf.metadata
    assert md.created_by == f"parquet-cpp-arrow version {pa.__version__}"   # fixed per pyarrow version
    assert set(md.metadata) == {b"ARROW:schema", b"huggingface"}           # no timestamps, no pandas index
    assert json.loads(md.metadata[b"huggingface"])["info"]["features"]["image"] == {"_type": "Image"}
    cols = {md.row_group(0).column(i).path_in_schema: md.row_group(0).column(i) for i in range(md.num_columns)}
    assert cols["image.bytes"].compression == "UNCOMPRESSED" and cols["id"].compression == "ZSTD"
    assert cols["id"].statistics is not None


def test_shards_by_size(runs, tmp_path):
    s = export_realitybench(runs, tmp_path / "hf", None, max_shard_rows=2)
    assert s.shards["tape_gap"] == [f"tape_gap/test-0000{i}-of-00003.parquet" for i in range(3)]
    ds = _load(s.root, "tape_gap", tmp_path / "cache")
    assert ds.num_rows == 5 and ds["id"] == sorted(ds["id"])
    s2 = export_realitybench(runs, tmp_path / "hf2", None, max_shard_bytes=1)   # one row per shard
    assert len(s2.shards["slope_gauge"]) == 4


def test_missing_prompt_env_is_named(runs, tmp_path):
    bad = make_run(tmp_path / "runs/random/calib", "calib", "random", ["accept"])
    with pytest.raises(MissingPromptError, match="calib"):
        export_realitybench([*runs, bad], tmp_path / "hf", None)
    assert not (tmp_path / "hf").exists()        # nothing written


def test_env_outside_benchmark_file_and_incomplete_ground_truth(runs, tmp_path):
    bench = tmp_path / "bench.yaml"
    bench.write_text(yaml.safe_dump({"version": "x", "environments": {"tape_gap": {"random": 1}}}))
    with pytest.raises(ExportError, match="slope_gauge"):
        export_realitybench(runs, tmp_path / "hf", bench)
    rec_path = runs[3] / "records.jsonl"
    rec = json.loads(rec_path.read_text())
    rec["ground_truth"] = {"reading_deg": 1.0}
    rec_path.write_text(json.dumps(rec) + "\n")
    with pytest.raises(ExportError, match="on_module"):
        export_realitybench(runs, tmp_path / "hf", None)


def test_vlmevalkit_tsv(runs, tmp_path):
    """The VLMEvalKit TSV of a real export (tests/test_vlmevalkit_export.py has the rest)."""
    from scenebench.benchmarks import get_benchmark

    s = export_realitybench(runs, tmp_path / "hf", None)
    folder = get_benchmark("realitybench").write_vlmevalkit(s.root, tmp_path / "vk", "1.2.0", log=lambda m: None)
    df = pd.read_csv(folder / "RealityBench_v1.2.0.tsv", sep="\t")
    assert len(df) == 9 and list(df.columns) == ["index", "image", "question", "answer", "category", "id"]
    assert df["index"].is_unique and "A" not in df.columns
    assert set(df["category"]) == {"tape_gap", "slope_gauge"}
    row = df[df["id"] == "tape_gap-positive-00000-00"].iloc[0]
    assert row["question"] == render_prompt("tape_gap")
    assert json.loads(row["answer"])["tilted"] is False
    img = PILImage.open(io.BytesIO(base64.b64decode(row["image"])))
    assert img.format == "JPEG" and img.size == (64, 48)
    src = tmp_path / "runs/positive/tape_gap/frames/tape_gap-positive-00000-00.jpg"
    assert base64.b64decode(row["image"]) == src.read_bytes()
