"""Hostile replies and prediction files: scored as wrong, never a crash, a hang or a half-written report."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

import scorers.egopath as ep
from geometry.egopath_schema import Question
from scorers.answer_keys import KeySpec
from scorers.answers import MAX_REPLY_CHARS
from scorers.realitybench_grading import GradingItem
from scorers.report import load_predictions, score, summary_table, write_report


# ---------------------------------------------------------------- EgoPath ids

def route_q() -> Question:
    return Question(question_id="pp-1", task="point_path", split="benchmark", scene_id="s0", scene_group="g0",
                    frame_id="f0", route_id="u0", system_prompt="sys", user_prompt="go",
                    answer="[1, 2]", display_ids=[1, 2, 3], start_id=1, goal_ids=[2],
                    legal_edges=[[1, 2], [2, 3]], waypoint_world={"1": [0, 0, 0], "2": [1, 0, 0], "3": [2, 0, 0]},
                    reference_route=[1, 2], shortest_m=1.0)


def test_huge_ids_are_format_failures():
    assert ep.parse_id_list('["' + "1" * 5000 + '"]') is None        # int() would raise past 4,300 digits
    assert ep.parse_id_list("[1, " + "1" * 5000 + "]") is None        # a 5,000-digit JSON integer
    assert ep.parse_id_list("[1, 2] then [" + "9" * 5000 + "]") is None  # the last array counts, not [1, 2]
    assert ep.parse_id_list("[123456789]") == [123456789]             # MAX_ID_DIGITS = 9 digits: an id
    assert ep.parse_id_list('["123456789"]') == [123456789]
    assert ep.parse_id_list("[1234567890]") is None                   # 10 digits: absurd
    assert ep.parse_id_list('["1234567890"]') is None
    o = ep.evaluate_route(route_q(), '["' + "2" * 5000 + '"]')
    assert o.stage == "format" and not o.success


def test_reply_cap_and_bracket_floods_are_fast():
    ok = "[1, 2]"
    assert ep.parse_id_list(ok.rjust(MAX_REPLY_CHARS)) == [1, 2]      # exactly at the cap: read
    assert ep.parse_id_list(ok.rjust(MAX_REPLY_CHARS + 1)) is None    # one over: a format failure
    t = time.perf_counter()
    for text in ("[" * 10_000_000, "[" * (MAX_REPLY_CHARS - 1), ('["' + "x" * 60) * 1000, "[1," * 20_000):
        assert ep.parse_id_list(text) is None
    assert time.perf_counter() - t < 2.0                              # was minutes for 10 MB of '['
    assert ep.parse_id_list("[" * ep.MAX_DEPTH + "1" + "]" * ep.MAX_DEPTH) is None       # nested: not ids
    assert ep.parse_id_list("[[1]] " * 5 + "[3]") == [3]              # shallow nesting elsewhere is fine


def test_egopath_scoring_survives_hostile_replies():
    q = route_q()
    replies = {"pp-1": '["' + "1" * 5000 + '"]'}
    r = ep.evaluate_model([q], replies, n_resamples=0)
    assert r["tasks"]["point_path"]["stages"]["format"] == 1 and r["tasks"]["point_path"]["sr"]["estimate"] == 0


# ---------------------------------------------------------------- RealityBench

TAPE = [KeySpec(name="reading_in", type="number", grammar="number", tolerance=0.125),
        KeySpec(name="tilted", type="bool", grammar="bool", scored_on="all")]


def items() -> list[GradingItem]:
    return [GradingItem(id=f"tape_gap-{i}", env="tape_gap", stratum="random",
                        scorer_verdict="accept" if i % 2 else "reject",
                        ground_truth={"reading_in": 3.5, "tilted": not i % 2}, keys=TAPE) for i in range(4)]


def reply(i: int) -> str:
    return json.dumps({"adequate": bool(i % 2), "reading_in": 3.5, "tilted": not i % 2})


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_absurd_token_counts_are_bad_usage(tmp_path):
    rows = [{"id": f"tape_gap-{i}", "model": "m", "response": reply(i),
             "usage": {"prompt_tokens": 10 ** 308 if i == 0 else 100, "completion_tokens": 10}} for i in range(4)]
    rows[1]["usage"] = {"prompt_tokens": 100, "completion_tokens": 10 ** 13}     # over MAX_TOKENS = 10**12
    pred = load_predictions(_write(tmp_path / "m.jsonl", rows))
    assert pred.bad_usage == 2 and sorted(pred.usage) == ["tape_gap-2", "tape_gap-3"]
    metrics, _ = score(items(), [pred], {}, n_ci=20, n_paired=20)   # math.isfinite(10**308) used to raise
    assert metrics["models"]["m"]["predictions"]["bad_usage_lines"] == 2
    assert metrics["models"]["m"]["metrics"]["f1"]["estimate"] == 1.0


def test_lone_surrogate_model_name_writes_a_full_report(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text("".join('{"id": "tape_gap-%d", "model": "bad\\ud800name", "response": %s}\n'
                            % (i, json.dumps(reply(i))) for i in range(4)))
    pred = load_predictions(path)
    assert pred.model == "bad\ufffdname"
    metrics, _ = score(items(), [pred], {}, n_ci=20, n_paired=20)
    out = write_report(metrics, tmp_path / "rep")
    md = (tmp_path / "rep/report.md").read_text(encoding="utf-8")
    assert "bad\ufffdname" in md and md.startswith("# RealityBench report")
    summary_table(metrics).encode("utf-8")                         # printable on a UTF-8 stdout
    assert all(p.stat().st_size > 0 for p in out)
    assert (tmp_path / "rep/metrics.json").stat().st_mode & 0o777 == 0o644 & ~_umask()


def _umask() -> int:
    import os

    m = os.umask(0)
    os.umask(m)
    return m


def test_failed_report_write_leaves_the_previous_report(tmp_path):
    pred = load_predictions(_write(tmp_path / "m.jsonl", [{"id": f"tape_gap-{i}", "response": reply(i)}
                                                          for i in range(4)]))
    metrics, _ = score(items(), [pred], {}, n_ci=20, n_paired=20)
    rep = tmp_path / "rep"
    write_report(metrics, rep)
    before = {p.name: p.read_bytes() for p in rep.iterdir()}
    bad = json.loads(json.dumps(metrics))
    bad["settings"]["seed"] = float("nan")                         # metrics.json refuses NaN
    with pytest.raises(ValueError):
        write_report(bad, rep)
    assert {p.name: p.read_bytes() for p in rep.iterdir()} == before   # report.md was rewritten first before


def test_egopath_report_renders_before_it_writes(tmp_path):
    from PIL import Image

    from scorers.egopath_report import write_report as ego_write

    with pytest.raises(KeyError):                                  # no "dataset": the markdown cannot be made
        ego_write({"models": {}}, tmp_path / "r", overlays={"q1": Image.new("RGB", (4, 4))})
    assert list((tmp_path / "r").rglob("*")) == []                 # metrics.json and overlays were written first


def test_score_result_is_typed_and_is_metrics_json(tmp_path):
    from scorers.realitybench_results import Interval, RealityBenchScore
    from scorers.report import score_result

    pred = load_predictions(_write(tmp_path / "m.jsonl", [{"id": f"tape_gap-{i}", "model": "m", "response": reply(i)}
                                                          for i in range(4)]))
    r = score_result(items(), [pred], {}, n_ci=20, n_paired=20)
    assert isinstance(r.metrics, RealityBenchScore)
    f1 = r.metrics.models["m"].metrics["f1"]
    assert isinstance(f1, Interval) and f1.estimate == 1.0 and f1.low == f1.high == 1.0
    assert r.metrics.models["m"].counts["n_doc_frames"] == 2          # the 2 scorer-accepted frames
    assert r.metrics.models["m"].field_n == {"tape_gap/reading_in": 2, "tape_gap/tilted": 4}
    metrics, warnings = score(items(), [pred], {}, n_ci=20, n_paired=20)
    assert metrics == r.metrics.model_dump() and warnings == r.warnings
    with pytest.raises(ValueError):                                   # metrics.json's schema is closed
        RealityBenchScore.model_validate(dict(metrics, extra_key=1))


def test_invalid_utf8_is_read_and_reported(tmp_path):
    from scorers.egopath_report import file_warnings, load_prediction_file

    path = tmp_path / "m.jsonl"
    path.write_bytes(b"".join(b'{"id": "tape_gap-%d", "response": %s, "note": "\xff"}\n'
                              % (i, json.dumps(reply(i)).encode()) for i in range(4)))
    pred = load_predictions(path)
    assert pred.invalid_utf8_lines == [1, 2, 3, 4] and len(pred.replies) == 4
    _, warnings = score(items(), [pred], {}, n_ci=20, n_paired=20)
    assert any("4 line(s) with invalid UTF-8" in w for w in warnings)
    assert any("invalid UTF-8" in w for w in file_warnings(load_prediction_file(path)))


def test_replies_cut_by_the_output_cap_are_counted_as_table_5_does(tmp_path):
    from scorers.realitybench_markdown import report_markdown

    rows = [{"id": f"tape_gap-{i}", "model": "m", "response": reply(i), "finish_reason": "stop"} for i in range(4)]
    rows[1]["finish_reason"] = rows[2]["finish_reason"] = "length"
    rows.append({"id": "not-in-the-set", "model": "m", "response": "x", "finish_reason": "length"})
    pred = load_predictions(_write(tmp_path / "m.jsonl", rows))
    assert pred.cut_by_cap == {"tape_gap-1", "tape_gap-2", "not-in-the-set"}
    metrics, warnings = score(items(), [pred], {}, n_ci=20, n_paired=20)
    assert metrics["models"]["m"]["predictions"]["replies_cut_by_cap"] == 2        # in-set frames only
    assert any(w.endswith(": 2 reply(ies) cut by the output cap (finish_reason \"length\"; scored as given: "
                          "raise --max-tokens to avoid it)") for w in warnings)
    assert "\nReplies cut by the output cap: m 2.\n" in report_markdown(metrics)
    rows = [dict(r, finish_reason="stop") for r in rows[:4]]
    metrics, warnings = score(items(), [load_predictions(_write(tmp_path / "n.jsonl", rows))], {}, n_ci=20, n_paired=20)
    assert metrics["models"]["m"]["predictions"]["replies_cut_by_cap"] == 0
    assert "output cap" not in report_markdown(metrics) and not any("output cap" in w for w in warnings)
