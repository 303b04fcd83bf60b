"""lmms-eval task folders of real exports (RealityBench, EgoPathBench), run the way lmms-eval 0.7
runs a task (the YAML loaded with its `!function` tag, the shards loaded with `datasets` from the
YAML's folder, process_results per row, the aggregations, the group), against `scenebench score`
on the same answers; and `import-predictions --from lmms-eval` on samples logs, hostile ones too."""
from __future__ import annotations

import os

os.environ["HF_DATASETS_OFFLINE"] = "1"  # before `datasets` is imported
os.environ["HF_HUB_OFFLINE"] = "1"

import json  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from test_pins_lmms_eval_tasks import load_task_yaml  # noqa: E402
from test_score_cli import make_run as make_rb_run  # noqa: E402

from model_runs.harness_import import convert_lmms_eval  # noqa: E402
from model_runs.predict import PredictError  # noqa: E402
from scenebench.benchmarks import ScoreOptions, get_benchmark  # noqa: E402
from scenebench.cli import main  # noqa: E402

RB = get_benchmark("realitybench")
EP = get_benchmark("egopathbench")


# ---------------------------------------------------------------- running a task as lmms-eval does
def load_docs(cfg: dict, yaml_dir: Path) -> list[dict]:
    """`datasets.load_dataset("parquet", data_files=...)` with the paths resolved from the YAML's folder."""
    import datasets

    split = cfg["test_split"]
    files = [str(yaml_dir / f) for f in cfg["dataset_kwargs"]["data_files"][split]]
    return list(datasets.load_dataset(cfg["dataset_path"], data_files={split: files}, split=split))


def run_task(path: Path, reply_of) -> tuple[dict, list[dict], int]:
    """(metric -> aggregate, the docs, n): process_results on image-less docs, as lmms-eval does."""
    cfg = load_task_yaml(path)
    docs = load_docs(cfg, path.parent)
    per_metric: dict[str, list] = {m["metric"]: [] for m in cfg["metric_list"]}
    for doc in docs:
        assert doc[cfg["doc_to_target"]] == doc["id"]
        cfg["doc_to_messages"](doc)             # every row builds its messages
        plain = {k: v for k, v in doc.items() if k != "image"}
        for m, v in cfg["process_results"](plain, [reply_of(doc)]).items():
            per_metric[m].append(v)
    agg = {m["metric"]: m["aggregation"](per_metric[m["metric"]]) for m in cfg["metric_list"]}
    return agg, docs, len(docs)


def run_group(folder: Path, group: str, reply_of) -> tuple[dict, dict]:
    """(task -> its aggregates, group aggregates), every subtask before the group (lmms-eval's order)."""
    g = load_task_yaml(folder / f"{group}.yaml")
    tasks, sizes = {}, []
    for t in g["task"]:
        tasks[t], _, n = run_task(folder / f"{t}.yaml", reply_of)
        sizes.append(n)
    out = {m["metric"]: m["aggregation"]([tasks[t][m["metric"]] for t in g["task"]], sizes, m["weight_by_size"])
           for m in g["aggregate_metric_list"]}
    return tasks, out


# ---------------------------------------------------------------- RealityBench
RB_KINDS = {"tape_gap": ["accept", "reject", "accept", "reject"], "slope_gauge": ["accept", "reject", "accept",
                                                                                  "gray_two"]}
# adequate per frame: tape_gap TP, FA, miss, correct reject; slope_gauge TP, correct reject, garbage (a miss), gray
RB_ADEQUATE = {"tape_gap": [True, True, False, False], "slope_gauge": [True, False, None, True]}


@pytest.fixture(scope="module")
def rb(tmp_path_factory) -> tuple[Path, Path]:
    from packagers.hf_export import export_realitybench

    base = tmp_path_factory.mktemp("lmms_rb")
    runs = [make_rb_run(base / "runs" / env, env, "random", kinds) for env, kinds in RB_KINDS.items()]
    root = export_realitybench(runs, base / "datasets", None, max_shard_rows=2).root
    folder = RB.write_lmms_eval_tasks(root, base / "datasets" / "realitybench_lmms_eval", log=lambda s: None)
    return root, folder


def rb_reply(doc: dict) -> str:
    env, i = doc["env"], int(doc["id"].split("-")[-1]) + 2 * int(doc["id"].split("-")[-2])
    adequate = RB_ADEQUATE[env][i]
    if adequate is None:
        return "I cannot tell."
    gt = json.loads(doc["ground_truth"])
    fields = {k["name"]: gt[k["name"]] for k in doc["keys"]}
    if doc["id"] == "tape_gap-random-00000-00":
        fields["gap_in"] += 1.0            # outside the 0.25 in tolerance: this frame's doc score is 2/3
    return json.dumps({"adequate": adequate, **fields})


def test_realitybench_folder_files_and_generation(rb):
    root, folder = rb
    assert folder == root.parent / "realitybench_lmms_eval"
    assert sorted(p.name for p in folder.iterdir()) == ["README.md", "realitybench.yaml", "realitybench_slope_gauge.yaml",
                                                       "realitybench_tape_gap.yaml", "utils.py"]
    cfg = load_task_yaml(folder / "realitybench_tape_gap.yaml")
    assert cfg["generation_kwargs"] == {"max_new_tokens": 16384, "until": []}
    assert cfg["dataset_kwargs"]["data_files"] == {"test": ["../realitybench/tape_gap/test-00000-of-00002.parquet",
                                                            "../realitybench/tape_gap/test-00001-of-00002.parquet"]}
    assert [m["higher_is_better"] for m in cfg["metric_list"]] == [True, False, False, True, True]


def test_realitybench_messages_are_predicts_prompt(rb):
    from model_runs.dataset_items import iter_items

    _, folder = rb
    cfg = load_task_yaml(folder / "realitybench_tape_gap.yaml")
    docs = load_docs(cfg, folder)
    items = {it.id: it for it in iter_items(rb[0], ["tape_gap"])}
    assert [d["id"] for d in docs] == sorted(items)              # doc_id order = the export's row order
    msgs = cfg["doc_to_messages"](docs[0])
    assert [m["role"] for m in msgs] == ["user"]
    text, image = msgs[0]["content"]
    assert text == {"type": "text", "text": items[docs[0]["id"]].prompt}
    assert image["type"] == "image" and image["url"].size == (64, 48)
    assert cfg["doc_to_visual"](docs[0]) == [docs[0]["image"]]
    assert cfg["doc_to_text"](docs[0]) == items[docs[0]["id"]].prompt


def _score(bench, dataset: Path, replies: dict[str, str | None], tmp_path: Path) -> dict:
    pred = tmp_path / "m.jsonl"
    pred.write_text("".join(json.dumps({"id": i, "model": "m", "response": r}) + "\n" for i, r in replies.items()))
    return bench.score(dataset, [str(pred)], str(tmp_path / "report"), ScoreOptions(n_resamples=20, n_paired=20)).metrics


def test_realitybench_metrics_are_scenebench_scores(rb, tmp_path):
    root, folder = rb
    tasks, group = run_group(folder, "realitybench", rb_reply)
    # hand count (frames in the set: 7; the gray one is out): FA 1/3, miss 2/4, precision 2/3 -> F1 4/7;
    # doc (2/3 + 1 + 1 + 0) / 4; in grammar 6/7
    assert group == pytest.approx({"f1": 4 / 7, "false_accept_rate": 1 / 3, "miss_rate": 0.5, "doc_score": 2 / 3,
                                   "in_grammar": 6 / 7}, abs=1e-12)
    assert tasks["realitybench_tape_gap"] == pytest.approx(
        {"f1": 0.5, "false_accept_rate": 0.5, "miss_rate": 0.5, "doc_score": 5 / 6, "in_grammar": 1.0}, abs=1e-12)
    assert tasks["realitybench_slope_gauge"] == pytest.approx(
        {"f1": 2 / 3, "false_accept_rate": 0.0, "miss_rate": 0.5, "doc_score": 0.5, "in_grammar": 2 / 3}, abs=1e-12)
    # exactly what `scenebench score` reports on the same answers
    import pyarrow.parquet as pq

    docs = [r for p in sorted(root.glob("*/test-*.parquet")) for r in pq.read_table(p).to_pylist()]
    m = _score(RB, root, {d["id"]: rb_reply(d) for d in docs}, tmp_path)["models"]["m"]
    assert group == {k: m["metrics"][k]["estimate"] for k in group}
    for env in RB_KINDS:
        assert tasks[f"realitybench_{env}"] == {k: m["per_env"][env][k] for k in group}


def test_group_refuses_an_incomplete_pool(rb):
    _, folder = rb
    g = load_task_yaml(folder / "realitybench.yaml")
    run_task(folder / "realitybench_tape_gap.yaml", rb_reply)
    run_task(folder / "realitybench_slope_gauge.yaml", rb_reply)
    with pytest.raises(RuntimeError, match=r"^realitybench: the group metric f1 needs the graded samples of its "
                                           r"subtasks; found 8 of 9$"):
        g["aggregate_metric_list"][0]["aggregation"]([0.5, 0.6], [4, 5], False)


def test_export_cli_writes_the_folder_beside_the_dataset(tmp_path, capsys):
    base = tmp_path
    runs = [make_rb_run(base / "runs" / env, env, "random", kinds) for env, kinds in RB_KINDS.items()]
    assert main(["export", "--runs", *map(str, runs), "--out", str(base / "ds")]) == 0
    out = capsys.readouterr().out
    assert f"scenebench: lmms-eval tasks (2 configs, group realitybench) -> {base / 'ds' / 'realitybench_lmms_eval'}" in out
    assert (base / "ds" / "realitybench_lmms_eval" / "realitybench_tape_gap.yaml").is_file()
    assert "lmms_eval" not in (base / "ds" / "realitybench" / "SHA256SUMS").read_text()   # the dataset is unchanged


# ---------------------------------------------------------------- EgoPathBench
@pytest.fixture(scope="module")
def ep(tmp_path_factory) -> tuple[Path, Path]:
    from test_egopath_export import BENCH, make_run

    from packagers.egopath_release import export_release

    base = tmp_path_factory.mktemp("lmms_ep")
    root = export_release([make_run(base / "runs")], base / "datasets", BENCH, log=lambda s: None).root
    folder = EP.write_lmms_eval_tasks(root, base / "datasets" / "egopathbench_lmms_eval", log=lambda s: None)
    return root, folder


def ep_reply(doc: dict) -> str:
    """The reference answer for every other row (by id hash), else an empty list."""
    return doc["answer"] if sum(map(ord, doc["id"])) % 2 else "[]"


def test_egopath_tasks_messages_and_generation(ep):
    root, folder = ep
    names = sorted(p.stem for p in folder.glob("*.yaml"))
    assert names == ["egopathbench", *sorted(f"egopathbench_{c}" for c in (
        "point_traversability", "embodied_traversability", "point_path", "embodied_path", "intent_path",
        "point_path_text_only", "embodied_path_text_only", "intent_path_text_only", "point_path_mismatched_overlay",
        "embodied_path_mismatched_overlay", "intent_path_mismatched_overlay"))]
    cfg = load_task_yaml(folder / "egopathbench_point_path.yaml")
    assert cfg["test_split"] == "benchmark"
    assert cfg["generation_kwargs"] == {"max_new_tokens": 8192, "temperature": 0.0, "top_p": 1.0, "until": []}
    assert [m["metric"] for m in cfg["metric_list"]] == ["egopath_score", "vpr", "sr", "spl"]
    doc = load_docs(cfg, folder)[0]
    system, user = cfg["doc_to_messages"](doc)
    assert system == {"role": "system", "content": [{"type": "text", "text": doc["system_prompt"]}]}
    assert user["content"][0] == {"type": "text", "text": doc["user_prompt"]} and user["content"][1]["type"] == "image"
    text_only = load_task_yaml(folder / "egopathbench_point_path_text_only.yaml")
    assert "doc_to_visual" not in text_only and [m["metric"] for m in text_only["metric_list"]] == ["sr"]
    tdoc = load_docs(text_only, folder)[0]
    assert tdoc["image"] is None
    assert [c["type"] for c in text_only["doc_to_messages"](tdoc)[1]["content"]] == ["text"]
    assert load_task_yaml(folder / "egopathbench.yaml")["task"] == [
        f"egopathbench_{t}" for t in sorted(("point_traversability", "embodied_traversability", "point_path",
                                             "embodied_path", "intent_path"))]


def test_egopath_score_all_reference_answers_is_100(ep):
    _, folder = ep
    _, group = run_group(folder, "egopathbench", lambda doc: doc["answer"])
    assert group == {"egopath_score": 100.0}


def test_egopath_metrics_are_scenebench_scores(ep, tmp_path):
    import pyarrow.parquet as pq

    root, folder = ep
    tasks, group = run_group(folder, "egopathbench", ep_reply)
    controls = {t: run_task(folder / f"egopathbench_{t}_{c}.yaml", ep_reply)[0]
                for t in ("point_path",) for c in ("text_only",)}
    rows = [r for p in sorted(root.glob("*/benchmark-*.parquet")) for r in pq.read_table(p, columns=[
        "id", "answer"]).to_pylist()]
    m = _score(EP, root, {r["id"]: ep_reply(r) for r in rows}, tmp_path)["models"]["m"]
    assert group == {"egopath_score": m["score"]["estimate"]}
    assert -40.0 < group["egopath_score"] < 100.0
    for task, res in m["tasks"].items():
        want = {k: res[k]["estimate"] for k in (("ba", "f1") if "traversability" in task else ("vpr", "sr", "spl"))}
        assert tasks[f"egopathbench_{task}"] == {"egopath_score": None, **want}
    assert controls["point_path"] == {"sr": m["controls"]["point_path"]["text_only"]}


# ---------------------------------------------------------------- import-predictions --from lmms-eval
def write_samples(path: Path, docs: list[dict], reply_of, override: dict | None = None) -> Path:
    """A samples file as lmms-eval 0.7.3 logs it (after save_results_samples)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for k, doc in enumerate(docs):
        rec = {"doc_id": k, "target": doc["id"], "filtered_resps": [reply_of(doc)],
               "token_counts": [{"input_tokens": 100 + k, "output_tokens": 20, "reasoning_tokens": 5}],
               "doc_hash": "x", "input": "ctx"}
        rec.update((override or {}).get(k, {}))
        lines.append(json.dumps(rec))
    path.write_text("".join(line + "\n" for line in lines))
    return path


@pytest.fixture(scope="module")
def rb_docs(rb) -> dict[str, list[dict]]:
    import pyarrow.parquet as pq

    root, _ = rb
    return {env: [r for p in sorted((root / env).glob("test-*.parquet")) for r in pq.read_table(p, columns=[
        "id", "env", "keys", "ground_truth"]).to_pylist()] for env in RB_KINDS}


def test_import_round_trips_to_the_same_metrics(rb, rb_docs, tmp_path):
    root, folder = rb
    files = [write_samples(tmp_path / "logs" / "vlm-1" / f"20260101_samples_realitybench_{env}.jsonl", docs, rb_reply)
             for env, docs in rb_docs.items()]
    fail = {1: {"filtered_resps": ["[LMMS_EVAL_REQUEST_FAILED after 5 retries] Connection error."]}}
    files[1] = write_samples(files[1], rb_docs["slope_gauge"], rb_reply, fail)
    n, out = convert_lmms_eval(files, root, "realitybench", "test", tmp_path / "preds.jsonl")
    assert (n, out) == (8, tmp_path / "preds.jsonl")
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["id"] for r in lines] == sorted(d["id"] for docs in rb_docs.values() for d in docs)
    first = lines[0]
    assert first == {"id": "slope_gauge-random-00000-00", "model": "vlm-1", "response": rb_reply(rb_docs["slope_gauge"][0]),
                     "error": None, "usage": {"prompt_tokens": 100, "completion_tokens": 20, "reasoning_tokens": 5},
                     "latency_s": None, "attempts": None, "finish_reason": None, "source": "lmms-eval"}
    assert lines[1]["response"] is None
    assert lines[1]["error"] == "[LMMS_EVAL_REQUEST_FAILED after 5 retries] Connection error."
    # the failed request is wrong either way: lmms-eval grades its text, score a null reply
    def logged(doc):
        return fail[1]["filtered_resps"][0] if doc["id"] == lines[1]["id"] else rb_reply(doc)
    _, group = run_group(folder, "realitybench", logged)
    m = RB.score(root, [str(out)], str(tmp_path / "r"), ScoreOptions(n_resamples=20, n_paired=20)).metrics
    assert group == {k: m["models"]["vlm-1"]["metrics"][k]["estimate"] for k in group}
    # the failed row is a reject frame, and no reply is not a "no": a false accept in both (1/3 -> 2/3)
    assert group["false_accept_rate"] == pytest.approx(2 / 3, abs=1e-12)


def test_import_cli_and_hostile_samples(rb, rb_docs, tmp_path, capsys):
    root, _ = rb
    docs = rb_docs["tape_gap"]
    name = "20260101_samples_realitybench_tape_gap.jsonl"
    out = tmp_path / "p.jsonl"
    good = write_samples(tmp_path / "ok" / name, docs, rb_reply)
    assert main(["import-predictions", "--from", "lmms-eval", str(good), "--dataset", str(root), "--out", str(out),
                 "--model", "named"]) == 0
    assert capsys.readouterr().out == f"scenebench: 4 predictions from lmms-eval -> {out}\n"
    assert {json.loads(x)["model"] for x in out.read_text().splitlines()} == {"named"}
    out.unlink()
    cases = {
        "short": (write_samples(tmp_path / "a" / name, docs[:3], rb_reply),
                  "3 samples for the 4 rows of realitybench_tape_gap (a run with --limit cannot be imported)"),
        "unknown": (write_samples(tmp_path / "b" / "20260101_samples_realitybench_nope.jsonl", docs, rb_reply),
                    "unknown task 'realitybench_nope'; "),
        "range": (write_samples(tmp_path / "c" / name, docs, rb_reply, {3: {"doc_id": 4, "target": docs[3]["id"]}}),
                  ":4: doc_id 4 is not a row of realitybench_tape_gap (4 rows)"),
        "negative": (write_samples(tmp_path / "c2" / name, docs, rb_reply, {0: {"doc_id": -1}}),
                     ":1: doc_id -1 is not a row"),
        "duplicate": (write_samples(tmp_path / "d" / name, docs, rb_reply, {2: {"doc_id": 1, "target": docs[1]["id"]}}),
                      ":3: doc_id 1 answered twice"),
        "bool": (write_samples(tmp_path / "e" / name, docs, rb_reply, {0: {"doc_id": True}}),
                 ":1: doc_id is not an integer"),
        "target": (write_samples(tmp_path / "f" / name, docs, rb_reply, {0: {"target": docs[1]["id"]}}),
                   ":1: doc_id 0 is row 'tape_gap-random-00000-00' but the sample's target is "
                   "'tape_gap-random-00000-01' (samples of another export?)"),
        "several": (write_samples(tmp_path / "g" / name, docs, rb_reply, {0: {"filtered_resps": [["a", "b"]]}}),
                    ":1: 2 responses where one belongs"),
        "none": (write_samples(tmp_path / "g2" / name, docs, rb_reply, {2: {"filtered_resps": []}}),
                 ":3: 0 responses where one belongs"),
        "name": (write_samples(tmp_path / "h" / "tape_gap.jsonl", docs, rb_reply),
                 "not an lmms-eval samples file (expected <date>_samples_<task>.jsonl)"),
    }
    for why, (path, msg) in cases.items():
        assert main(["import-predictions", "--from", "lmms-eval", str(path), "--dataset", str(root),
                     "--out", str(out)]) == 2, why
        err = capsys.readouterr().err
        assert msg in err and err.count("\n") == 1 and err.startswith("scenebench: error: "), (why, err)
        assert not out.exists(), why
    torn = tmp_path / "i" / name
    torn.parent.mkdir()
    torn.write_text('{"doc_id": 0, "filtered_resps": ["x"]}\n{"doc_id": 1, "filt\n')
    with pytest.raises(PredictError, match=r"i/20260101_samples_realitybench_tape_gap.jsonl:2: not a JSON line$"):
        convert_lmms_eval([torn], root, "realitybench", "test", out)
    torn.write_text('[1]\n')
    with pytest.raises(PredictError, match=r":1: not a JSON object$"):
        convert_lmms_eval([torn], root, "realitybench", "test", out)
    with pytest.raises(PredictError, match=r"task realitybench_tape_gap is also in"):
        convert_lmms_eval([good, tmp_path / "a" / name], root, "realitybench", "test", out)
    with pytest.raises(PredictError, match=r"does not exist$"):
        convert_lmms_eval([tmp_path / "none" / name], root, "realitybench", "test", out)
    assert not out.exists()


def test_import_reads_resps_and_usage_as_logged(rb, rb_docs, tmp_path):
    """`filtered_resps` flattened to a string, `resps` when that is all there is, usage junk dropped."""
    from model_runs.harness_import import reply_of, usage_of

    assert reply_of({"filtered_resps": "a", "resps": ["b"]}) == "a"
    assert reply_of({"resps": [["b"]]}) == "b"
    assert reply_of({"filtered_resps": [{"x": 1}]}) == {"x": 1}
    assert reply_of({}) is None
    assert usage_of({"token_counts": [None]}) is None
    assert usage_of({"token_counts": {"input_tokens": "12", "output_tokens": float("nan"),
                                      "reasoning_tokens": -1}}) == {"prompt_tokens": 12}
    assert usage_of({"token_counts": [{"output_tokens": 7.0}]}) == {"completion_tokens": 7}
    assert usage_of({"token_counts": [{}]}) is None


def test_every_benchmark_gives_lmms_eval_its_grader():
    """The contract: a benchmark without grade_row / set_metrics would ship tasks that cannot score."""
    from scenebench.benchmarks import registry
    from scenebench.benchmarks.base import Benchmark

    for name, b in registry().items():
        assert type(b).grade_row is not Benchmark.grade_row, name
        assert type(b).set_metrics is not Benchmark.set_metrics, name
        assert type(b).row_config is not Benchmark.row_config, name
        assert b.lmms_eval_group_metrics, name


def test_egopath_import_round_trips_to_the_same_score(ep, tmp_path):
    import pyarrow.parquet as pq

    root, folder = ep
    files = []
    for cfg in sorted(d.name for d in root.iterdir() if any(d.glob("benchmark-*.parquet"))):
        docs = [r for p in sorted((root / cfg).glob("benchmark-*.parquet"))
                for r in pq.read_table(p, columns=["id", "answer"]).to_pylist()]
        files.append(write_samples(tmp_path / "logs" / "m" / f"20260101_samples_egopathbench_{cfg}.jsonl", docs,
                                   ep_reply))
    n, out = convert_lmms_eval(files, root, "egopathbench", "benchmark", tmp_path / "m.jsonl")
    assert n == sum(len(f.read_text().splitlines()) for f in files)
    m = EP.score(root, [str(out)], str(tmp_path / "r"), ScoreOptions(n_resamples=20)).metrics["models"]["m"]
    _, group = run_group(folder, "egopathbench", ep_reply)
    assert group == {"egopath_score": m["score"]["estimate"]}
