"""`scenebench score` end to end: a real export, messy prediction files, hand-computed metrics."""
from __future__ import annotations

from synthetic_runs import ground_truth, jpeg_bytes

import os

os.environ["HF_DATASETS_OFFLINE"] = "1"  # before `datasets` is imported (the export imports it)
os.environ["HF_HUB_OFFLINE"] = "1"

import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from PIL import Image as PILImage  # noqa: E402

from formats.records import FrameRecord  # noqa: E402
from scorers.terms import TermResult  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BENCHMARK = ROOT / "configs/benchmark/realitybench.yaml"
TAPE_KEYS = ("reading_in", "gap_in", "tilted")
SLOPE_KEYS = ("reading_deg", "on_module")


# ---------------------------------------------------------------- a small exported dataset

def _jpeg(seed: int, size=(64, 48)) -> bytes:
    return jpeg_bytes(seed, size)


_ground_truth = ground_truth


def _terms(kind: str) -> tuple[str, list[TermResult]]:
    """(verdict, terms); `gray_two` fails two gray terms and nothing else: left out like `unscored`
    (a frame that also fails a hard term is a plain reject: tests/test_export_defects.py)."""
    ok = TermResult(name="in_frame", side="scene", value=1.0, threshold=">= 0.9", passed=True)
    gray = TermResult(name="yaw", side="scene", value=20.0, threshold="<= 15 deg", unit="deg", passed=False, gray=True)
    hard = TermResult(name="distance", side="scene", value=None, threshold="<= 0.65 m", unit="m", passed=False)
    return {"accept": ("accept", [ok]), "reject": ("reject", [ok, hard]), "unscored": ("unscored", [ok, gray]),
            "gray_two": ("unscored", [ok, gray, gray.model_copy(update={"name": "lean"})])}[kind]


def make_run(run_dir: Path, env: str, stratum: str, kinds: list[str]) -> Path:
    """A run store as the farm writes it (real FrameRecords, real JPEGs), as in test_hf_export."""
    for sub in ("frames", "passes", "scenes"):
        (run_dir / sub).mkdir(parents=True, exist_ok=True)
    lines = []
    for i, kind in enumerate(kinds):
        verdict, terms = _terms(kind)
        scene_id = f"{stratum}-{i // 2:05d}"
        fid = f"{env}-{scene_id}-{i % 2:02d}"
        (run_dir / "frames" / f"{fid}.jpg").write_bytes(_jpeg(len(env) * 1000 + i + (500 if stratum == "positive" else 0)))
        (run_dir / "passes" / f"{fid}.npz").write_bytes(b"")
        (run_dir / "scenes" / f"{scene_id}.json").write_text(json.dumps(
            {"env": env, "scene_id": scene_id, "spec": {"pitch_deg": 20 + i // 2}}))
        rec = FrameRecord(
            frame_id=fid, env=env, scene_id=scene_id, view_index=i % 2, seed=2**62 + 12345 * i, stratum=stratum,
            target="crossing", camera={"width": 64, "height": 48}, terms=terms, verdict=verdict,
            failing_term=None if verdict == "accept" else "x", sanity={"ok": True, "reasons": []},
            ground_truth=_ground_truth(env, i), image=f"frames/{fid}.jpg", passes=f"passes/{fid}.npz",
            isp={}, pose_attempts=1, renders=1, timings={"render_s": 0.1})
        lines.append(rec.model_dump_json())
    (run_dir / "records.jsonl").write_text("".join(x + "\n" for x in lines))
    (run_dir / "manifest.json").write_text(json.dumps({
        "fingerprint": {"env": env, "generator_version": f"{env}-1", "seed": 0, "quality": {"name": "preview"}},
        "config": {"env": env, "stratum": stratum}, "seeds": {"root_seed": 0, "scheme": "test"},
        "versions": {"python": "3.11"}, "git_commit": "0123abc"}))
    return run_dir


def build_dataset(base: Path) -> Path:
    """9 frames in the set (6 random: 2 accepts, 4 rejects; 3 positive) + 2 gray frames left out."""
    from packagers.hf_export import export_realitybench

    runs = [
        make_run(base / "runs/random/tape_gap", "tape_gap", "random",
                 ["accept", "reject", "reject", "unscored", "gray_two"]),
        make_run(base / "runs/positive/tape_gap", "tape_gap", "positive", ["accept", "accept"]),
        make_run(base / "runs/random/slope_gauge", "slope_gauge", "random", ["reject", "accept", "reject"]),
        make_run(base / "runs/positive/slope_gauge", "slope_gauge", "positive", ["accept"]),
    ]
    return export_realitybench(runs, base / "datasets", BENCHMARK).root


# frame ids (see make_run's naming)
T_A, T_R1, T_R2, T_UNS, T_GRAY = (f"tape_gap-random-{s}" for s in
                                  ("00000-00", "00000-01", "00001-00", "00001-01", "00002-00"))
TP_A1, TP_A2 = "tape_gap-positive-00000-00", "tape_gap-positive-00000-01"
S_R1, S_A, S_R2 = "slope_gauge-random-00000-00", "slope_gauge-random-00000-01", "slope_gauge-random-00001-00"
SP_A = "slope_gauge-positive-00000-00"
ALL_IDS = [T_A, T_R1, T_R2, T_UNS, T_GRAY, TP_A1, TP_A2, S_R1, S_A, S_R2, SP_A]


def _truth(fid: str) -> tuple[bool, dict]:
    """(scorer accepts, answer-key fields) of a frame, from the same generator as the export."""
    env, stratum, scene, view = fid.split("-")
    i = int(scene) * 2 + int(view)
    gt = _ground_truth(env, i)
    keys = TAPE_KEYS if env == "tape_gap" else SLOPE_KEYS
    accepted = fid in (T_A, TP_A1, TP_A2, S_A, SP_A)
    return accepted, {k: gt[k] for k in keys}


def perfect_reply(fid: str, **override) -> str:
    acc, fields = _truth(fid)
    return json.dumps({"adequate": acc, **fields, **override})


def _write_jsonl(path: Path, rows: list, torn: str | None = None) -> Path:
    text = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows)
    path.write_text(text + (torn or ""))
    return path


USAGE = {"prompt_tokens": 1000, "output_tokens": 50, "thinking_tokens": 100}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    base = tmp_path_factory.mktemp("score")
    ds = build_dataset(base)
    preds = base / "preds"
    preds.mkdir()
    perfect = _write_jsonl(preds / "perfect.jsonl", [
        {"id": fid, "model": "example-large-model", "reply": perfect_reply(fid), "usage": USAGE} for fid in ALL_IDS])
    acc, fields = _truth(T_A)
    messy_rows = [
        {"id": T_A, "model": "example-self-served-model",
         "reply": "```json\n" + perfect_reply(T_A) + "\n```"},                      # code fence: out of grammar
        {"id": T_R1, "model": "example-self-served-model", "reply": "The photo looks fine to me."},  # prose
        {"id": T_R2, "model": "example-self-served-model", "reply": perfect_reply(T_R2)},           # right
        # TP_A1: no line at all (missing -> wrong)
        {"id": TP_A2, "model": "example-self-served-model", "reply": perfect_reply(TP_A2)},         # right
        {"id": S_R1, "model": "example-self-served-model", "reply": perfect_reply(S_R1, adequate="no")},  # not a bool
        {"id": S_A, "model": "example-self-served-model",
         "reply": perfect_reply(S_A, reading_deg=_truth(S_A)[1]["reading_deg"] + 1.0)},  # gauge off by 1 deg
        {"id": S_R2, "model": "example-self-served-model", "reply": perfect_reply(S_R2, adequate=True)},  # replaced:
        {"id": S_R2, "model": "example-self-served-model", "reply": perfect_reply(S_R2)},           # last line wins
        {"id": SP_A, "model": "example-self-served-model", "response": None, "error": "timeout"},    # no reply
        {"id": "tape_gap-random-99999-00", "model": "example-self-served-model", "reply": "{}"},    # unknown id
        "{this line is broken",                                                                     # unreadable
        {"id": T_GRAY, "model": "example-self-served-model", "reply": {"adequate": True}},          # gray: not graded
    ]
    messy = _write_jsonl(preds / "messy.jsonl", messy_rows, torn='{"id": "' + T_UNS + '", "repl')
    # a cheap model that accepts everything and documents perfectly; OpenAI-style usage
    cheap = _write_jsonl(preds / "cheap.jsonl", [
        {"frame_id": fid, "model": "example-small-model", "response": perfect_reply(fid, adequate=True),
         "usage": {"prompt_tokens": 800, "completion_tokens": 30, "reasoning_tokens": 10}} for fid in ALL_IDS])
    return {"base": base, "dataset": ds, "perfect": perfect, "messy": messy, "cheap": cheap}


def _cli(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "scenebench", *args], cwd=cwd or ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def _score(setup, report: Path, *files):
    files = files or (setup["perfect"], setup["messy"], setup["cheap"])
    return _cli("score", "--dataset", str(setup["dataset"]), "--predictions", *map(str, files),
                "--report-dir", str(report), "--seed", "0")


@pytest.fixture(scope="module")
def scored(setup):
    report = setup["base"] / "reports/run1"
    r = _score(setup, report)
    assert r.returncode == 0, r.stderr
    return r, report, json.loads((report / "metrics.json").read_text())


def _est(m, model, metric):
    return m["models"][model]["metrics"][metric]["estimate"]


def test_perfect_model_and_dataset_counts(scored):
    _, _, m = scored
    ds = m["dataset"]
    assert ds["frames"] == 11 and ds["in_set"] == 9 and ds["excluded_gray"] == 2 and ds["excluded_unscored"] == 0
    assert m["model_order"] == ["example-large-model", "example-self-served-model", "example-small-model"]
    p = "example-large-model"
    for metric, v in (("f1", 1.0), ("false_accept_rate", 0.0), ("miss_rate", 0.0), ("precision", 1.0),
                      ("recall", 1.0), ("doc_score", 1.0), ("in_grammar", 1.0)):
        assert _est(m, p, metric) == pytest.approx(v, abs=1e-12), metric
    assert m["models"][p]["counts"] == {"n_rejected_random": 4, "n_acceptable": 5, "n_accepted_random": 2,
                                        "n_doc_frames": 5, "n_acceptability": 9, "n_in_set": 9}
    # App. D: documentation over the 5 scorer-accepted frames only (the rejected tape frames' tilted
    # answers count in the per-field score below, not in the documentation score)
    ci = m["models"][p]["metrics"]["f1"]
    assert ci["low"] == ci["high"] == 1.0
    assert set(m["models"][p]["field_scores"].values()) == {1.0}
    # tape leaning scored on all 5 tape frames in the set, the other tape fields on the 3 accepted ones
    assert m["models"][p]["field_n"] == {"slope_gauge/on_module": 2, "slope_gauge/reading_deg": 2,
                                         "tape_gap/gap_in": 3, "tape_gap/reading_in": 3, "tape_gap/tilted": 5}
    assert m["models"][p]["predictions"]["unknown"] == 0 and m["models"][p]["predictions"]["missing"] == 0


def test_always_accept_baseline_by_hand(scored):
    _, _, m = scored
    b = m["baseline"]["always-accept"]["metrics"]
    # random: 2 scorer accepts, 4 rejects; positive: 3 accepts.  Always accept:
    assert b["false_accept_rate"]["estimate"] == 1.0      # 4/4
    assert b["miss_rate"]["estimate"] == 0.0              # 0/5
    assert b["precision"]["estimate"] == pytest.approx(1 / 3)  # 2 of 6 random accepts are right
    assert b["recall"]["estimate"] == 1.0
    assert b["f1"]["estimate"] == pytest.approx(0.5)      # 2 * 1/3 * 1 / (4/3)
    assert b["doc_score"]["estimate"] == 0.0 and b["in_grammar"]["estimate"] == 0.0


def test_messy_model_scored_wrong_never_crashes(scored):
    _, _, m = scored
    x = "example-self-served-model"
    # FA: T_R1 (prose) and S_R1 (adequate "no") of 4 random rejects; miss: T_A (fence), TP_A1 (missing), SP_A (null)
    assert _est(m, x, "false_accept_rate") == pytest.approx(0.5)
    assert _est(m, x, "miss_rate") == pytest.approx(0.6)
    assert _est(m, x, "precision") == pytest.approx(1.0)        # its only random accept (S_A) is right
    assert _est(m, x, "recall") == pytest.approx(0.4)
    assert _est(m, x, "f1") == pytest.approx(2 * 0.4 / 1.4)
    # doc frames (App. D: scorer-accepted only): T_A 0, TP_A1 0, TP_A2 1, S_A 0.5 (gauge off), SP_A 0;
    # the rejected T_R1 (tilted 0) and T_R2 (tilted 1) count only in the tape_gap/tilted field score
    assert _est(m, x, "doc_score") == pytest.approx(1.5 / 5)
    assert m["models"][x]["counts"]["n_doc_frames"] == 5
    assert m["models"][x]["field_scores"]["tape_gap/tilted"] == pytest.approx(2 / 5)   # TP_A2, T_R2 of 5 tape frames
    assert _est(m, x, "in_grammar") == pytest.approx(4 / 9)     # T_R2, TP_A2, S_A, S_R2 (last line)
    assert m["models"][x]["lenient_in_grammar"] == pytest.approx(5 / 9)  # + the fenced reply
    info = m["models"][x]["predictions"]
    assert info["torn_last_line"] is True and info["n_unreadable_lines"] == 1
    assert info["unknown_ids"] == ["tape_gap-random-99999-00"]
    assert info["missing"] == 1 and info["missing_ids"] == [TP_A1]  # SP_A has a (null) line
    assert info["duplicate_ids"] == [S_R2] and info["null_replies"] == 1 and info["non_text_replies"] == 0
    c = m["models"][x]["cost"]
    assert c["cost"] is None and c["n_with_usage"] == 0


def test_cost_from_usage_and_price_table(scored):
    _, _, m = scored
    c = m["models"]["example-large-model"]["cost"]
    # 9 frames in the set x (1000 * $2 + (50 + 100) * $8) / 1M
    assert c["cost"] == pytest.approx(9 * (1000 * 2.0 + 150 * 8.0) / 1e6)
    assert c["prompt_tokens"] == 9000 and c["output_tokens"] == 450 and c["thinking_tokens"] == 900
    assert c["mean_thinking_tokens"] == pytest.approx(100)
    s = m["models"]["example-small-model"]["cost"]
    assert s["cost"] == pytest.approx(9 * (800 * 0.10 + 30 * 0.40) / 1e6)
    # scenebench predict's usage: completion tokens include reasoning, so the reply is the difference
    assert (s["output_tokens"], s["thinking_tokens"]) == (9 * 20, 9 * 10)
    assert m["models"]["example-small-model"]["metrics"]["f1"]["estimate"] == pytest.approx(0.5)


def test_paired_differences_and_top_group(scored):
    _, _, m = scored
    d = m["paired_differences"]["f1"]["example-large-model - example-small-model"]
    assert d["estimate"] == pytest.approx(0.5) and d["low"] is not None and d["low"] <= d["high"]
    assert set(m["paired_differences"]["doc_score"]) == {
        "example-large-model - example-self-served-model", "example-large-model - example-small-model",
        "example-self-served-model - example-small-model"}
    assert m["top_group"]["f1"]["leader"] == "example-large-model"
    zero = m["paired_differences"]["doc_score"]["example-large-model - example-small-model"]
    assert zero["estimate"] == 0 and zero["low"] == zero["high"] == 0 and not zero["excludes_zero"]
    assert set(m["top_group"]["doc_score"]["members"]) >= {"example-large-model", "example-small-model"}


def test_report_files_and_stdout(scored):
    r, report, _ = scored
    for name in ("report.md", "metrics.json", "fig2_f1_doc_vs_cost.png", "fig3_field_heatmap.png"):
        assert (report / name).is_file(), name
    for png in ("fig2_f1_doc_vs_cost.png", "fig3_field_heatmap.png"):
        with PILImage.open(report / png) as im:
            im.verify()
        with PILImage.open(report / png) as im:
            assert im.format == "PNG" and im.size[0] > 600 and im.size[1] > 300
    md = (report / "report.md").read_text()
    for needle in ("Acceptability and documentation", "Documentation by field", "Paired differences", "## Cost",
                   "always-accept", "tape_gap/tilted", "example-self-served-model"):
        assert needle in md, needle
    out = r.stdout
    assert "F1 [95% CI]" in out and "example-large-model" in out and "always-accept" in out
    assert "1.00 [1.00, 1.00]" in out
    err = r.stderr
    assert "torn last line" in err and "not in the dataset" in err and "have no line" in err
    assert "1 frame(s) have a null reply" in err
    assert "Traceback" not in err


def test_deterministic_metrics(setup, scored):
    _, report, _ = scored
    report2 = setup["base"] / "reports/run2"
    r = _score(setup, report2)
    assert r.returncode == 0, r.stderr
    assert (report2 / "metrics.json").read_bytes() == (report / "metrics.json").read_bytes()
    assert (report2 / "report.md").read_bytes() == (report / "report.md").read_bytes()


@pytest.mark.parametrize("what", ["predictions", "dataset"])
def test_missing_input_is_one_line_exit_2(setup, what, tmp_path):
    dataset = str(setup["dataset"]) if what != "dataset" else str(tmp_path / "nope")
    pred = str(setup["perfect"]) if what != "predictions" else str(tmp_path / "nope.jsonl")
    r = _cli("score", "--dataset", dataset, "--predictions", pred, "--report-dir", str(tmp_path / "rep"))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("scenebench: error:") and "does not exist" in lines[0], r.stderr
    assert not (tmp_path / "rep").exists()


def test_fast_bootstrap_matches_scorers_stats(setup):
    """The shared resample stream gives what stratified_bootstrap / paired_bootstrap give."""
    from scorers.dataset_items import load_items
    from scorers.realitybench_grading import always_accept_grades, bootstrap_strata, grade_item, statistic
    from scorers.report import load_predictions, score
    from scorers.stats import paired_bootstrap, stratified_bootstrap

    items = load_items(setup["dataset"])
    preds = [load_predictions(setup["messy"]), load_predictions(setup["cheap"])]
    m, _ = score(items, preds, {}, seed=3, n_ci=200, n_paired=300)
    in_set = [it for it in items if not it.gray and it.scorer_verdict != "unscored"]
    g1 = [grade_item(it, preds[0].replies.get(it.id)) for it in in_set]
    g2 = [grade_item(it, preds[1].replies.get(it.id)) for it in in_set]
    strata = bootstrap_strata(always_accept_grades(in_set))
    ref = stratified_bootstrap(statistic(g1, "doc_score"), strata, n_resamples=200, seed=3)
    got = m["models"]["example-self-served-model"]["metrics"]["doc_score"]
    assert (got["low"], got["high"]) == (ref.low, ref.high)
    pref = paired_bootstrap(statistic(g1, "f1"), statistic(g2, "f1"), strata, n_resamples=300, seed=3)
    pg = m["paired_differences"]["f1"]["example-self-served-model - example-small-model"]
    assert (pg["low"], pg["high"], pg["n_undefined"]) == (pref.low, pref.high, pref.n_undefined)


def test_export_subcommand_lists_skipped_environments(tmp_path):
    out_root = tmp_path / "out"
    make_run(out_root / "tape_gap", "tape_gap", "random", ["accept", "reject"])
    make_run(out_root / "slope_gauge", "slope_gauge", "random", ["accept"])
    r = _cli("export", "--benchmark", "realitybench", "--runs-root", str(out_root), "--out",
             str(tmp_path / "datasets"), "--format", "vlmevalkit")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "datasets/realitybench/tape_gap/test-00000-of-00001.parquet").is_file()
    from scenebench.benchmarks import get_benchmark

    version = get_benchmark("realitybench").load_config().version      # the file's version names the dataset
    assert [p.name for p in (tmp_path / "datasets/realitybench_vlmevalkit").glob("*.tsv")] == [
        f"RealityBench_v{version}.tsv"]
    skipped = [ln for ln in r.stderr.splitlines() if "skipped" in ln]
    assert len(skipped) == 1 and "rail_attachment" in skipped[0] and "tape_gap" not in skipped[0]
    r = _cli("export", "--runs-root", str(tmp_path / "empty"), "--out", str(tmp_path / "d2"))
    assert r.returncode == 2 and r.stderr.startswith("scenebench: error: no run directories")
    r = _cli("export", "--benchmark", "nope", "--out", str(tmp_path / "d3"))
    assert r.returncode == 2 and "unknown benchmark 'nope'" in r.stderr


def test_predict_forwards_its_argv(monkeypatch):
    """`scenebench predict ...` hands every remaining argument, --help included, to scenebench.predict_cli."""
    import types

    from scenebench import cli

    seen = []
    fake = types.ModuleType("scenebench.predict_cli")
    fake.predict_main = lambda argv: seen.append(argv) or 7
    monkeypatch.setitem(sys.modules, "scenebench.predict_cli", fake)
    assert cli.main(["predict", "--dataset", "d", "--help"]) == 7
    assert seen == [["--dataset", "d", "--help"]]
