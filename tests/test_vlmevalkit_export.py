"""VLMEvalKit folders of real exports (RealityBench, EgoPathBench): TSV bytes, names and indexes,
the dataset class file run against VLMEvalKit's dataset base class as VLMEvalKit runs it, and
`import-predictions --from vlmevalkit` on result sheets (xlsx written by openpyxl, as VLMEvalKit's
pandas writer does; tsv; csv), hostile ones too, against `scenebench score` on the same answers."""
from __future__ import annotations

import base64
import csv
import io
import json
import sys
import types
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from PIL import Image

from test_lmms_eval_export import RB_KINDS, ep_reply, rb_reply
from test_score_cli import make_run as make_rb_run

from model_runs.harness_import import convert_vlmevalkit, model_of_sheet, read_sheet
from model_runs.predict import PredictError
from packagers import vlmevalkit as vk
from scenebench.benchmarks import ScoreOptions, get_benchmark
from scenebench.cli import main
from scenebench.vlmevalkit_hooks import Hooks

RB = get_benchmark("realitybench")
EP = get_benchmark("egopathbench")
QUIET = dict(log=lambda s: None)


def _rows(root: Path, split: str, configs=None) -> list[dict]:
    return [r for c in sorted(d.name for d in root.iterdir() if d.is_dir()) if configs is None or c in configs
            for p in sorted((root / c).glob(f"{split}-*.parquet")) for r in pq.read_table(p).to_pylist()]


def rb_sheet_reply(root: Path):
    """rb_reply (test_lmms_eval_export's hand-counted answers) for a TSV row, found by its id."""
    by_id = {r["id"]: r for r in _rows(root, "test")}
    return lambda row: rb_reply(by_id[row["id"]])


def read_tsv(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def write_sheet(path: Path, tsv: Path, reply_of, override: dict | None = None, drop: int | None = None) -> Path:
    """VLMEvalKit's result sheet: the TSV's columns but `image`, plus `prediction` (inference.py)."""
    import openpyxl

    rows = read_tsv(tsv)
    header = [c for c in rows[0] if c != "image"] + ["prediction"]      # inference.py drops the image
    lines = []
    for k, r in enumerate(rows):
        if k == drop:
            continue
        cells = {**{c: r[c] for c in header if c != "prediction"}, "index": int(r["index"]),
                 "prediction": reply_of(r)}
        cells.update((override or {}).get(k, {}))
        lines.append([cells[c] for c in header])
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".xlsx":
        wb = openpyxl.Workbook()
        ws = wb.active
        for line in [header, *lines]:
            ws.append(line)
        wb.save(path)
    else:
        with path.open("w", newline="", encoding="utf-8") as f:
            csv.writer(f, delimiter="\t" if path.suffix == ".tsv" else ",").writerows([header, *lines])
    return path


# ---------------------------------------------------------------- pins
def test_index_is_a_52_bit_hash_of_identity_and_row():
    assert vk.row_index("a" * 64, "tape_gap-random-00000-00") == 703039087668171   # int(sha256(identity + "\n" + id).hexdigest()[:13], 16)
    assert vk.row_index("a" * 64, "tape_gap-random-00000-01") == 210095422037159
    assert vk.row_index("b" + "a" * 63, "tape_gap-random-00000-00") == 377827222791760
    assert all(0 <= vk.row_index(str(i), "x") < 2 ** 52 for i in range(200))
    assert float(2 ** 52 - 1) == 2 ** 52 - 1           # an xlsx number cell holds every index exactly


def test_dataset_names_follow_the_set():
    names = vk.dataset_names("EgoPathBench", "0.1.0", ["a", "a_text_only", "b"], lambda c: "_" not in c)
    assert names == [vk.VlmDataset("EgoPathBench_v0.1.0", ("a", "b"), True),
                     vk.VlmDataset("EgoPathBench_v0.1.0_a_text_only", ("a_text_only",), False)]
    assert vk.dataset_names("X", "1", ["c"], lambda c: False) == [vk.VlmDataset("X_v1_c", ("c",), False)]
    with pytest.raises(vk.VlmError, match=r"^benchmark version '1/2' cannot be part of a VLMEvalKit dataset name"):
        vk.dataset_names("X", "1/2", ["c"], lambda c: True)


# ---------------------------------------------------------------- RealityBench
def _rb_export(base: Path, kinds: dict) -> Path:
    from packagers.hf_export import export_realitybench

    runs = [make_rb_run(base / "runs" / env, env, "random", k) for env, k in kinds.items()]
    return export_realitybench(runs, base / "datasets", None, max_shard_rows=2).root


@pytest.fixture(scope="module")
def rb(tmp_path_factory) -> tuple[Path, Path]:
    root = _rb_export(tmp_path_factory.mktemp("vk_rb"), RB_KINDS)
    return root, RB.write_vlmevalkit(root, root.with_name("realitybench_vlmevalkit"), "1.2.0", **QUIET)


def test_realitybench_folder_and_tsv(rb):
    root, folder = rb
    assert sorted(p.name for p in folder.iterdir()) == ["README.md", "RealityBench_v1.2.0.tsv",
                                                       "scenebench_realitybench.py", "scenebench_vlmevalkit.json"]
    rows = read_tsv(folder / "RealityBench_v1.2.0.tsv")
    assert list(rows[0]) == ["index", "image", "question", "answer", "category", "id"]    # no A/B: not MCQ
    src = {r["id"]: r for r in _rows(root, "test")}
    assert [r["id"] for r in rows] == sorted(src)                     # configs in name order, rows in id order
    identity = vk.export_identity(root)
    assert [int(r["index"]) for r in rows] == [vk.row_index(identity, r["id"]) for r in rows]
    tg = next(r for r in rows if r["id"] == "tape_gap-random-00000-01")
    assert tg["answer"] == '{"adequate":false,"reading_in":3.3125,"gap_in":3.125,"tilted":true}'
    assert json.loads(src[tg["id"]]["ground_truth"]).keys() > json.loads(tg["answer"]).keys() - {"adequate"}
    assert "geometric_reading_in" not in tg["answer"]                # not a scored key
    gray = next(r for r in rows if r["id"] == "slope_gauge-random-00001-01")
    assert gray["answer"] == '{"adequate":null,"reading_deg":21.4,"on_module":false}'
    assert tg["category"] == "tape_gap" and tg["question"] == src[tg["id"]]["prompt"]
    assert base64.b64decode(tg["image"]) == src[tg["id"]]["image"]["bytes"]
    assert Image.open(io.BytesIO(base64.b64decode(tg["image"]))).size == (64, 48)
    again = RB.write_vlmevalkit(root, root.parent / "again", "1.2.0", **QUIET)
    assert (again / "RealityBench_v1.2.0.tsv").read_bytes() == (folder / "RealityBench_v1.2.0.tsv").read_bytes()
    meta = json.loads((folder / "scenebench_vlmevalkit.json").read_text())
    assert meta == {"benchmark": "realitybench", "dataset": "../realitybench", "split": "test", "identity": identity,
                    "datasets": {"RealityBench_v1.2.0": {"configs": ["slope_gauge", "tape_gap"], "set": True}}}


def test_two_exports_never_share_a_name_and_index(rb, tmp_path):
    """VLMEvalKit caches images as images/<name>/<index>.png: another export's content, same version,
    must get other indexes; the same content the same ones (its cache stays valid)."""
    root, folder = rb
    other = _rb_export(tmp_path / "o", {"tape_gap": ["accept", "accept", "accept", "reject"],
                                        "slope_gauge": ["accept", "reject", "accept", "gray_two"]})
    other_folder = RB.write_vlmevalkit(other, tmp_path / "o" / "vk", "1.2.0", **QUIET)
    a = {(f"RealityBench_v1.2.0", r["index"]): r["id"] for r in read_tsv(folder / "RealityBench_v1.2.0.tsv")}
    b = {(f"RealityBench_v1.2.0", r["index"]): r["id"] for r in read_tsv(other_folder / "RealityBench_v1.2.0.tsv")}
    assert len(a) == len(b) == 8 and set(a.values()) == set(b.values())     # the same row ids ...
    assert not set(a) & set(b)                                                 # ... never the same pair
    same = _rb_export(tmp_path / "s", RB_KINDS)
    same_folder = RB.write_vlmevalkit(same, tmp_path / "s" / "vk", "1.2.0", **QUIET)
    assert {(r["index"], r["id"]) for r in read_tsv(same_folder / "RealityBench_v1.2.0.tsv")} == \
        {(k[1], v) for k, v in a.items()}


def test_a_damaged_export_gets_no_folder(rb, tmp_path):
    import shutil

    root, _ = rb
    copy = tmp_path / "realitybench"
    shutil.copytree(root, copy)
    shard = copy / "tape_gap" / "test-00000-of-00002.parquet"
    shard.write_bytes(shard.read_bytes()[:-1] + b"\0")
    with pytest.raises(Exception, match="sha256 differs"):
        RB.write_vlmevalkit(copy, tmp_path / "vk", "1.2.0", **QUIET)
    assert not (tmp_path / "vk").exists()


def _score(bench, root: Path, preds: Path, tmp_path: Path) -> dict:
    return bench.score(root, [str(preds)], str(tmp_path / "report"), ScoreOptions(n_resamples=20, n_paired=20)).metrics


def test_realitybench_round_trip_to_score(rb, tmp_path, capsys):
    root, folder = rb
    sheet = write_sheet(tmp_path / "work" / "vlm-1" / "T0" / "vlm-1_RealityBench_v1.2.0.xlsx",
                        folder / "RealityBench_v1.2.0.tsv", rb_sheet_reply(root))
    out = tmp_path / "preds.jsonl"
    assert main(["import-predictions", "--from", "vlmevalkit", str(sheet), "--dataset", str(root),
                 "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"scenebench: 8 predictions from vlmevalkit -> {out}\n"
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines[0] == {"id": "slope_gauge-random-00000-00", "model": "vlm-1", "response": json.dumps(
        {"adequate": True, "reading_deg": 18.4, "on_module": False}), "error": None, "usage": None, "latency_s": None,
        "attempts": None, "finish_reason": None, "source": "vlmevalkit"}
    m = _score(RB, root, out, tmp_path)["models"]["vlm-1"]
    # the hand counts of test_lmms_eval_export: F1 4/7, FA 1/3, miss 1/2, doc 2/3, in grammar 6/7
    got = {k: m["metrics"][k]["estimate"] for k in ("f1", "false_accept_rate", "miss_rate", "doc_score", "in_grammar")}
    assert got == pytest.approx({"f1": 4 / 7, "false_accept_rate": 1 / 3, "miss_rate": 0.5, "doc_score": 2 / 3,
                                 "in_grammar": 6 / 7}, abs=1e-12)
    # the same answers as a plain predictions file score the same
    plain = tmp_path / "plain.jsonl"
    plain.write_text("".join(json.dumps({"id": r["id"], "model": "vlm-1", "response": rb_reply(r)}) + "\n"
                             for r in _rows(root, "test")))
    assert _score(RB, root, plain, tmp_path / "p")["models"]["vlm-1"]["metrics"] == m["metrics"]
    # and `score` takes VLMEvalKit's `prediction` key as the reply
    pk = tmp_path / "pk.jsonl"
    pk.write_text("".join(json.dumps({"index": 0, "id": r["id"], "model": "vlm-1", "prediction": rb_reply(r)}) + "\n"
                          for r in _rows(root, "test")))
    assert _score(RB, root, pk, tmp_path / "k")["models"]["vlm-1"]["metrics"] == m["metrics"]
    # the dataset class's evaluate prints the same numbers
    ev = Hooks(folder / "scenebench_vlmevalkit.json").evaluate("RealityBench_v1.2.0", sheet)
    assert {k: ev[k] for k in got} == got
    per_env = {e: {k: m["per_env"][e][k] for k in got} for e in RB_KINDS}
    assert {k: ev[f"tape_gap/{k}"] for k in got} == per_env["tape_gap"] == pytest.approx(
        {"f1": 0.5, "false_accept_rate": 0.5, "miss_rate": 0.5, "doc_score": 5 / 6, "in_grammar": 1.0}, abs=1e-12)
    assert {k: ev[f"slope_gauge/{k}"] for k in got} == per_env["slope_gauge"]
    assert len(ev) == 15


def test_tsv_and_csv_sheets_and_failed_requests(rb, tmp_path):
    root, folder = rb
    tsv = folder / "RealityBench_v1.2.0.tsv"
    fail = {2: {"prediction": "Failed to obtain answer via API. "}}
    a = convert_vlmevalkit([write_sheet(tmp_path / "m_RealityBench_v1.2.0.tsv", tsv, rb_sheet_reply(root), fail)], root,
                           "realitybench", "test", tmp_path / "a.jsonl", bench=RB)
    b = convert_vlmevalkit([write_sheet(tmp_path / "m_RealityBench_v1.2.0.csv", tsv, rb_sheet_reply(root), fail)], root,
                           "realitybench", "test", tmp_path / "b.jsonl", bench=RB)
    c = convert_vlmevalkit([write_sheet(tmp_path / "m_RealityBench_v1.2.0.xlsx", tsv, rb_sheet_reply(root), fail)], root,
                           "realitybench", "test", tmp_path / "c.jsonl", bench=RB, model="named")
    assert a[1].read_text() == b[1].read_text()
    assert c[1].read_text() == a[1].read_text().replace('"model": "m"', '"model": "named"')
    failed = json.loads(a[1].read_text().splitlines()[2])
    assert (failed["response"], failed["error"]) == (None, "Failed to obtain answer via API. ")


def test_hostile_sheets(rb, tmp_path, capsys):
    root, folder = rb
    tsv = folder / "RealityBench_v1.2.0.tsv"
    name = "vlm_RealityBench_v1.2.0.xlsx"
    out = tmp_path / "p.jsonl"
    rows = read_tsv(tsv)
    bad_zip = tmp_path / "z" / name
    bad_zip.parent.mkdir()
    bad_zip.write_bytes(b"PK\x03\x04 not really a zip")
    empty = tmp_path / "e" / "vlm_RealityBench_v1.2.0.csv"
    empty.parent.mkdir()
    empty.write_text("")
    latin = tmp_path / "l" / "vlm_RealityBench_v1.2.0.tsv"
    latin.parent.mkdir()
    latin.write_bytes(b"index\tprediction\n1\t\xe9\n")
    import zipfile

    torn = tmp_path / "t" / name                     # a zip whose sheet XML is cut off
    torn.parent.mkdir()
    whole = write_sheet(tmp_path / "w" / name, tsv, rb_sheet_reply(root))
    with zipfile.ZipFile(whole) as src, zipfile.ZipFile(torn, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            dst.writestr(info, data[: len(data) // 2] if info.filename.endswith("sheet1.xml") else data)
    nocol = tmp_path / "n" / "vlm_RealityBench_v1.2.0.csv"
    nocol.parent.mkdir()
    nocol.write_text("index,answer\n1,x\n")
    cases = {
        "unknown": (write_sheet(tmp_path / "a" / name, tsv, rb_sheet_reply(root), {0: {"index": 12345}}),
                    f":2: index 12345 is not a row of {root} (a sheet of another export?)"),
        "duplicate": (write_sheet(tmp_path / "b" / name, tsv, rb_sheet_reply(root), {3: {"index": int(rows[1]["index"]),
                                                                            "id": rows[1]["id"]}}),
                      f":5: index {rows[1]['index']} answered twice"),
        "missing": (write_sheet(tmp_path / "c" / name, tsv, rb_sheet_reply(root), drop=5),
                    ": 7 rows answered of the 8 of its dataset (slope_gauge, tape_gap); every row must be answered"),
        "id": (write_sheet(tmp_path / "d" / name, tsv, rb_sheet_reply(root), {0: {"id": rows[1]["id"]}}),
               f":2: index {rows[0]['index']} is row '{rows[0]['id']}' but the sheet's id is '{rows[1]['id']}'"),
        "not int": (write_sheet(tmp_path / "f" / name, tsv, rb_sheet_reply(root), {0: {"index": "1.5e3"}}),
                    ":2: index '1.5e3' is not an integer"),
        "bool": (write_sheet(tmp_path / "g" / name, tsv, rb_sheet_reply(root), {0: {"index": True}}),
                 ":2: index 'True' is not an integer"),
        "suffix": (tmp_path / "vlm_RealityBench_v1.2.0.json",
                   "not a VLMEvalKit result sheet (expected <model>_<dataset>.xlsx/.tsv/.csv)"),
        "absent": (tmp_path / "nowhere" / name, "does not exist"),
        "zip": (bad_zip, "not a readable .xlsx workbook (BadZipFile)"),
        "empty": (empty, ": empty sheet"),
        "utf-8": (latin, "not a readable tsv sheet ("),
        "torn xml": (torn, "not a readable .xlsx workbook ("),
        "columns": (nocol, ": no prediction column (columns: index, answer)"),
    }
    for why, (path, msg) in cases.items():
        assert main(["import-predictions", "--from", "vlmevalkit", str(path), "--dataset", str(root),
                     "--out", str(out)]) == 2, why
        err = capsys.readouterr().err
        assert msg in err and err.count("\n") == 1 and err.startswith("scenebench: error: "), (why, err)
        assert not out.exists(), why
    good = write_sheet(tmp_path / "h" / name, tsv, rb_sheet_reply(root))
    with pytest.raises(PredictError, match=r"answers the same rows as"):
        convert_vlmevalkit([good, good], root, "realitybench", "test", out, bench=RB)
    assert not out.exists()


def test_model_name_from_the_sheet_name():
    assert model_of_sheet(Path("GPT4o_mini_RealityBench_v1.2.0.xlsx"), "RealityBench") == "GPT4o_mini"
    assert model_of_sheet(Path("m_EgoPathBench_v0.1.0_point_path_text_only.xlsx"), "EgoPathBench") == "m"
    assert model_of_sheet(Path("results.xlsx"), "RealityBench") == "results"
    assert read_sheet.__module__ == "model_runs.harness_import"


# ---------------------------------------------------------------- the dataset class inside VLMEvalKit
# VLMEvalKit needs torch to import (vlmeval/__init__ imports every model); `make harness-check` runs the
# file in a real VLMEvalKit. Here the class runs on the parts of VLMEvalKit it uses, transcribed from
# vlmeval/dataset/image_base.py (ImageBaseDataset.__init__, dump_image) and vlmeval/smp (load).
def _vlmeval_modules(lmu: Path) -> dict[str, types.ModuleType]:
    import pandas as pd

    smp = types.ModuleType("vlmeval.smp")
    smp.load = lambda p: pd.read_csv(p, sep="\t")
    base = types.ModuleType("vlmeval.dataset.image_base")

    class ImageBaseDataset:
        def __init__(self, dataset="MMBench", skip_noimg=True):
            self.dataset_name = dataset
            self.img_root = str(lmu / "images" / dataset)
            data = self.load_data(dataset)
            if skip_noimg and "image" in data:
                data = data[~pd.isna(data["image"])]
            data["index"] = [str(x) for x in data["index"]]
            if "image" in data:
                data["image"] = [str(x) if not pd.isna(x) else "" for x in data["image"]]
            data["index"] = [int(x) for x in data["index"]]
            self.data = data

        @classmethod
        def supported_datasets(cls):
            return list(cls.DATASET_URL)

        def dump_image(self, line):
            Path(self.img_root).mkdir(parents=True, exist_ok=True)
            tgt = Path(self.img_root) / f"{line['index']}.png"
            if not tgt.exists():
                Image.open(io.BytesIO(base64.b64decode(line["image"]))).save(tgt)
            return [str(tgt)]

    base.ImageBaseDataset = ImageBaseDataset
    ds = types.ModuleType("vlmeval.dataset")
    ds.DATASET_CLASSES, ds.SUPPORTED_DATASETS = [], []
    return {"vlmeval": types.ModuleType("vlmeval"), "vlmeval.smp": smp, "vlmeval.dataset": ds,
            "vlmeval.dataset.image_base": base}


def _load_class_file(path: Path, lmu: Path, monkeypatch):
    import importlib.util

    mods = _vlmeval_modules(lmu)
    for k, v in mods.items():
        monkeypatch.setitem(sys.modules, k, v)
    spec = importlib.util.spec_from_file_location(f"sb_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, mods["vlmeval.dataset"]


def test_realitybench_class_file(rb, tmp_path, monkeypatch):
    root, folder = rb
    mod, registry = _load_class_file(folder / "scenebench_realitybench.py", tmp_path / "LMUData", monkeypatch)
    cls = mod.SceneBenchRealityBench
    assert registry.DATASET_CLASSES == [cls] and registry.SUPPORTED_DATASETS == ["RealityBench_v1.2.0"]
    assert registry.SceneBenchRealityBench is cls and cls.TYPE == "VQA"
    d = cls("RealityBench_v1.2.0")
    assert len(d.data) == 8
    line = d.data.iloc[0]
    msgs = d.build_prompt(line)
    src = {r["id"]: r for r in _rows(root, "test")}[line["id"]]
    assert [m["type"] for m in msgs] == ["image", "text"] and msgs[1] == {"type": "text", "value": src["prompt"]}
    assert Path(msgs[0]["value"]) == tmp_path / "LMUData" / "images" / "RealityBench_v1.2.0" / f"{line['index']}.png"
    assert Image.open(msgs[0]["value"]).size == (64, 48)
    sheet = write_sheet(tmp_path / "m_RealityBench_v1.2.0.xlsx", folder / "RealityBench_v1.2.0.tsv", rb_sheet_reply(root))
    ev = d.evaluate(str(sheet))
    assert ev["f1"] == pytest.approx(4 / 7, abs=1e-12) and ev["tape_gap/doc_score"] == pytest.approx(5 / 6, abs=1e-12)
    with pytest.raises(ValueError, match="^nope is not one of this export's VLMEvalKit datasets"):
        Hooks(folder / "scenebench_vlmevalkit.json").evaluate("nope", sheet)


# ---------------------------------------------------------------- EgoPathBench
@pytest.fixture(scope="module")
def ep(tmp_path_factory) -> tuple[Path, Path]:
    from test_egopath_export import BENCH, make_run

    from packagers.egopath_release import export_release

    base = tmp_path_factory.mktemp("vk_ep")
    root = export_release([make_run(base / "runs")], base / "datasets", BENCH, **QUIET).root
    return root, EP.write_vlmevalkit(root, root.with_name("egopathbench_vlmevalkit"), "0.1.0", **QUIET)


CONTROLS = [f"{t}_{c}" for t in ("embodied_path", "intent_path", "point_path") for c in ("mismatched_overlay", "text_only")]


def test_egopath_tsvs(ep):
    root, folder = ep
    assert sorted(p.name for p in folder.glob("*.tsv")) == ["EgoPathBench_v0.1.0.tsv", *(
        f"EgoPathBench_v0.1.0_{c}.tsv" for c in CONTROLS)]
    main_rows = read_tsv(folder / "EgoPathBench_v0.1.0.tsv")
    assert list(main_rows[0]) == ["index", "image", "question", "answer", "category", "id", "system_prompt"]
    assert {r["category"] for r in main_rows} == {"embodied_path", "embodied_traversability", "intent_path",
                                                  "point_path", "point_traversability"}
    src = {r["id"]: r for r in _rows(root, "benchmark")}
    assert len(main_rows) == sum(1 for r in src.values() if "@" not in r["id"])
    r = next(r for r in main_rows if r["id"] == "egopath-random-00001-00/point_path/0")
    assert (r["answer"], r["system_prompt"]) == ("[1, 2, 3, 5]", "You are a navigation planning assistant.")
    assert r["question"] == src[r["id"]]["user_prompt"]
    text_only = read_tsv(folder / "EgoPathBench_v0.1.0_point_path_text_only.tsv")
    assert list(text_only[0]) == ["index", "question", "answer", "category", "id", "system_prompt"]   # no image column
    assert all(t["id"].endswith("@text_only") for t in text_only)
    overlay = read_tsv(folder / "EgoPathBench_v0.1.0_point_path_mismatched_overlay.tsv")
    assert all(len(t["image"]) > 64 for t in overlay)
    indexes = [t["index"] for t in main_rows] + [t["index"] for c in CONTROLS
                                                 for t in read_tsv(folder / f"EgoPathBench_v0.1.0_{c}.tsv")]
    assert len(set(indexes)) == len(indexes) == len(src)


def test_egopath_round_trip_to_score(ep, tmp_path, monkeypatch):
    root, folder = ep
    sheets = [write_sheet(tmp_path / f"vlm_EgoPathBench_v0.1.0{s}.xlsx", folder / f"EgoPathBench_v0.1.0{s}.tsv",
                          ep_reply) for s in ["", *(f"_{c}" for c in CONTROLS)]]
    n, out = convert_vlmevalkit(sheets, root, "egopathbench", "benchmark", tmp_path / "p.jsonl", bench=EP)
    assert n == len(_rows(root, "benchmark"))
    m = _score(EP, root, out, tmp_path)["models"]["vlm"]
    plain = tmp_path / "plain.jsonl"
    plain.write_text("".join(json.dumps({"id": r["id"], "model": "vlm", "response": ep_reply(r)}) + "\n"
                             for r in _rows(root, "benchmark")))
    assert _score(EP, root, plain, tmp_path / "q")["models"]["vlm"]["score"] == m["score"]
    hooks = Hooks(folder / "scenebench_vlmevalkit.json")
    ev = hooks.evaluate("EgoPathBench_v0.1.0", sheets[0])
    assert ev["egopath_score"] == m["score"]["estimate"] == pytest.approx(340 / 7, abs=1e-12)
    for task, res in m["tasks"].items():
        for k in (("ba", "f1") if "traversability" in task else ("vpr", "sr", "spl")):
            assert ev[f"{task}/{k}"] == res[k]["estimate"], (task, k)
    ctl = hooks.evaluate("EgoPathBench_v0.1.0_point_path_text_only", sheets[-1])
    assert ctl == {"sr": m["controls"]["point_path"]["text_only"]}
    with pytest.raises(ValueError, match="answers point_path_text_only, not the configs of EgoPathBench_v0.1.0$"):
        hooks.evaluate("EgoPathBench_v0.1.0", sheets[-1])
    # the class file: the system prompt as VLMEvalKit's role-system item, a text-only row without image
    mod, _ = _load_class_file(folder / "scenebench_egopathbench.py", tmp_path / "LMU", monkeypatch)
    d = mod.SceneBenchEgoPathBench("EgoPathBench_v0.1.0_point_path_text_only")
    assert d.build_prompt(0) == [
        {"type": "text", "value": "You are a navigation planning assistant.", "role": "system"},
        {"type": "text", "value": d.data.iloc[0]["question"]}]
    full = mod.SceneBenchEgoPathBench("EgoPathBench_v0.1.0").build_prompt(0)
    assert [x["type"] for x in full] == ["text", "image", "text"]


def test_export_cli_writes_the_folder_for_every_benchmark(tmp_path, capsys):
    runs = [make_rb_run(tmp_path / "runs" / env, env, "random", kinds) for env, kinds in RB_KINDS.items()]
    assert main(["export", "--runs", *map(str, runs), "--out", str(tmp_path / "ds"), "--format", "vlmevalkit"]) == 0
    version = RB.load_config().version
    out = capsys.readouterr().out
    assert f"scenebench: VLMEvalKit datasets (RealityBench_v{version}) -> {tmp_path / 'ds' / 'realitybench_vlmevalkit'}" in out
    assert (tmp_path / "ds" / "realitybench_vlmevalkit" / f"RealityBench_v{version}.tsv").is_file()
    assert "vlmevalkit" not in (tmp_path / "ds" / "realitybench" / "SHA256SUMS").read_text()
    from scenebench.benchmarks import registry

    for b in registry().values():            # the contract: every benchmark says what its answer cell is
        assert "vlmevalkit" in b.export_formats and b.display_name, b.name
        assert type(b).vlmevalkit_answer is not type(b).__mro__[-2].vlmevalkit_answer, b.name


def test_a_workbook_that_unpacks_too_far_is_refused(rb, tmp_path, monkeypatch):
    import model_runs.harness_import as hi

    root, folder = rb
    sheet = write_sheet(tmp_path / "m_RealityBench_v1.2.0.xlsx", folder / "RealityBench_v1.2.0.tsv",
                        rb_sheet_reply(root))
    monkeypatch.setattr(hi, "MAX_XLSX_UNPACKED", 1000)
    with pytest.raises(PredictError, match=r"m_RealityBench_v1.2.0.xlsx: unpacks to 0 MiB, more than 0 MiB$"):
        read_sheet(sheet)
    monkeypatch.setattr(hi, "MAX_XLSX_UNPACKED", 10**9)
    assert len(read_sheet(sheet)) == 8


def test_class_file_runs_vlmevalkits_run_py(rb, tmp_path, monkeypatch):
    """`python scenebench_<benchmark>.py <VLMEvalKit>/run.py ...`: registered first, then run.py as __main__
    with the rest of the command line."""
    import runpy

    _, folder = rb
    for k, v in _vlmeval_modules(tmp_path / "LMU").items():
        monkeypatch.setitem(sys.modules, k, v)
    run_py = tmp_path / "run.py"
    run_py.write_text("import sys, json, vlmeval.dataset as d\n"
                      "if __name__ == '__main__':\n"
                      "    json.dump({'argv': sys.argv, 'classes': [c.__name__ for c in d.DATASET_CLASSES],\n"
                      "               'names': d.SUPPORTED_DATASETS}, open(sys.argv[-1], 'w'))\n")
    out = tmp_path / "seen.json"
    monkeypatch.setattr(sys, "argv", [str(folder / "scenebench_realitybench.py"), str(run_py), "--data",
                                      "RealityBench_v1.2.0", str(out)])
    runpy.run_path(str(folder / "scenebench_realitybench.py"), run_name="__main__")
    assert json.loads(out.read_text()) == {"argv": [str(run_py), "--data", "RealityBench_v1.2.0", str(out)],
                                           "classes": ["SceneBenchRealityBench"], "names": ["RealityBench_v1.2.0"]}
    monkeypatch.setattr(sys, "argv", [str(folder / "scenebench_realitybench.py")])
    with pytest.raises(SystemExit, match=r"usage: python .*scenebench_realitybench.py <VLMEvalKit>/run.py"):
        runpy.run_path(str(folder / "scenebench_realitybench.py"), run_name="__main__")
