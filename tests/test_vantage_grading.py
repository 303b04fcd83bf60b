"""Graders and baselines of the four VANTAGE timeline tasks on items of ten warehouse clips:
replies written as a model would write them (per each prompt's format) score perfectly in both
rule sets, wrong ones score 0, hostile ones (huge, NaN, deeply nested, not text) read as
nothing and score as wrong, and the baselines score what their definitions imply."""
from __future__ import annotations

import json

import numpy as np
import pytest

from blender_envs.infra.warehouse import sample_scene
from formats.vantage_item import LETTERS, YesNoAnswer
from packagers.vantage_tasks import dense_captioning as dc
from packagers.vantage_tasks import event_verification as ev
from packagers.vantage_tasks import temporal_localization as tl
from packagers.vantage_tasks import video_qa as vq
from packagers.vantage_tasks.timeline_clip import TimelineClip
from render_farm.seeds import rng_for
from scorers.answers import MAX_REPLY_CHARS
from scorers.vantage_baselines import always_yes, mmss, score_baseline, whole_clip
from scorers.vantage_grading import grade, set_metrics

COMPATS = ("strict", "vantage")
RECORD_KEYS = {"id", "task", "clip_id", "parsed", "truth", "correct", "score", "extra"}


@pytest.fixture(scope="module")
def items():
    clips = [TimelineClip.from_spec(sample_scene(rng_for("test_warehouse", s, "scene"), f"s{s}", s, further=False), 320)
             for s in range(10)]
    return {"event_verification": [i for c in clips for i in ev.items(c)], "video_qa": vq.generate(clips),
            "temporal_localization": [i for c in clips for i in tl.items(c)],
            "dense_captioning": [i for c in clips for i in dc.items(c)]}


def _right(it) -> str:
    """What a model that knows the answer writes, in the format its prompt asks for."""
    a = it.answer
    if it.task == "event_verification":
        return "Yes, it did." if a.label == "yes" else "No. They stayed apart."
    if it.task == "video_qa":
        return f"Answer: {a.letter}"
    if it.task == "temporal_localization":
        s, e = a.windows[-1]
        return "```json\n" + json.dumps({"start": mmss(s), "end": mmss(e)}) + "\n```"
    return "Here are the events:\n" + json.dumps([{"start": mmss(e.start), "end": mmss(e.end), "caption": e.caption}
                                                  for e in a.events])


def _gap(it) -> tuple[float, float]:
    """A 0.5 s segment overlapping none of the item's windows/events."""
    spans = [tuple(w) for w in it.answer.windows] if it.task == "temporal_localization" else \
        [(e.start, e.end) for e in it.answer.events]
    for s in np.arange(0.0, it.media.duration_s - 0.5, 0.05):
        if all(s + 0.5 <= a or s >= b for a, b in spans):
            return round(float(s), 2), round(float(s) + 0.5, 2)
    raise AssertionError(f"no free gap in {it.id}")


def _wrong(it) -> str:
    a = it.answer
    if it.task == "event_verification":
        return "no" if a.label == "yes" else "yes"
    if it.task == "video_qa":
        return LETTERS[(LETTERS.index(a.letter) + 1) % 4]
    s, e = _gap(it)
    if it.task == "temporal_localization":
        return json.dumps({"start": mmss(s), "end": mmss(e)})
    return json.dumps([{"start": mmss(s), "end": mmss(e), "caption": "zebra xylophone quartet"}])


PRIMARY = {"event_verification": "macro_f1", "video_qa": "accuracy", "temporal_localization": "miou",
           "dense_captioning": "soda_c"}


@pytest.mark.parametrize("task", list(PRIMARY))
def test_right_replies_score_perfectly_in_both_modes(items, task):
    recs = [grade(it, _right(it)) for it in items[task]]
    assert all(set(r) == RECORD_KEYS and r["score"] == pytest.approx(1.0, abs=1e-12) for r in recs)
    json.dumps(recs, allow_nan=False)
    for compat in COMPATS:
        m = set_metrics(task, recs, compat)
        assert m[PRIMARY[task]] == pytest.approx(1.0, abs=1e-12), (task, compat)
        if task == "event_verification":
            assert (m["sensitivity"], m["specificity"]) == (1.0, 1.0)
        if task == "temporal_localization":
            assert m["r@0.5"] == 1.0 and m["n_queries"] == 22 and m["n_videos"] == 9
        if task == "dense_captioning":
            assert (m["iou_f1"], m["sim_f1"], m["n_scored"]) == (pytest.approx(1.0), pytest.approx(1.0), 9)


@pytest.mark.parametrize("task", list(PRIMARY))
def test_wrong_replies_score_zero_in_both_modes(items, task):
    recs = [grade(it, _wrong(it)) for it in items[task]]
    assert all(r["score"] == 0.0 and r["parsed"] is not None for r in recs)
    assert all(r["correct"] is False for r in recs) or task in ("temporal_localization", "dense_captioning")
    for compat in COMPATS:
        assert set_metrics(task, recs, compat)[PRIMARY[task]] == 0.0, (task, compat)


def _hostile(it) -> list:
    right = _right(it)
    deep = "[" * 5000 + "]" * 5000
    return [right + " " * (MAX_REPLY_CHARS + 1 - len(right)),       # over the cap (holds the right answer)
            '{"start": NaN, "end": NaN, "answer": NaN}',
            '{"start": "nan", "end": "inf"}',
            deep, '{"a":' * 3000 + "1" + "}" * 3000,
            None, 42, {"answer": right}, ["yes"], b"yes", ""]


@pytest.mark.parametrize("task", list(PRIMARY))
def test_hostile_replies_read_as_nothing_and_score_as_wrong(items, task):
    for it in items[task][:3]:
        for reply in _hostile(it):
            r = grade(it, reply)
            assert r["parsed"] is None and r["score"] == 0.0, (it.id, repr(reply)[:40])
            assert r["correct"] in (False, None)
            json.dumps(r, allow_nan=False)


def test_hostile_sets_in_each_rule_set(items):
    evs = [grade(it, "NaN") for it in items["event_verification"]]
    assert set_metrics("event_verification", evs, "strict")["macro_f1"] == 0.0
    assert set_metrics("event_verification", evs, "vantage")["macro_f1"] is None        # all dropped
    assert set_metrics("event_verification", evs, "vantage")["n_invalid"] == 38
    tls = [grade(it, "[" * 5000) for it in items["temporal_localization"]]
    assert set_metrics("temporal_localization", tls, "strict")["miou"] == 0.0
    # the harness reads an unparseable reply as the whole clip
    assert set_metrics("temporal_localization", tls, "vantage")["miou"] == pytest.approx(
        score_baseline("whole_clip", items["temporal_localization"], "vantage")["miou"], abs=1e-12)
    dvc = [grade(it, "no events") for it in items["dense_captioning"]]
    assert set_metrics("dense_captioning", dvc, "strict")["soda_c"] == 0.0
    assert set_metrics("dense_captioning", dvc, "vantage")["n_scored"] == 0


def test_grader_refuses_another_tasks_item(items):
    from scorers.vantage_grading import grade_video_qa
    with pytest.raises(ValueError, match="event_verification item"):
        grade_video_qa(items["event_verification"][0], "A")
    recs = [grade(items["video_qa"][0], "A")]
    with pytest.raises(ValueError, match="records of"):
        set_metrics("event_verification", recs)


def test_temporal_record_scores_the_best_window_and_clips_to_the_clip(items):
    it = items["temporal_localization"][0]
    (a, b), = it.answer.windows
    r = grade(it, json.dumps({"start": mmss(a), "end": mmss(b + (b - a))}))       # twice as long
    assert r["score"] == pytest.approx(0.5, abs=1e-9)
    r = grade(it, f"The collision happens from {b} to {a} seconds.")              # reversed, plain numbers
    assert r["parsed"] == [b, a] and r["score"] == pytest.approx(1.0)
    r = grade(it, "garbage")
    assert (r["score"], r["extra"]["iou_vantage"]) == (0.0, pytest.approx((b - a) / 16.0))


# ------------------------------------------------------------------ baselines

def test_always_yes_scores_what_its_definition_implies(items):
    P, N = 22, 16          # the set's split
    for compat in COMPATS:
        m = score_baseline("always_yes", items["event_verification"], compat)
        assert (m["sensitivity"], m["specificity"], m["n_positive"], m["n_negative"]) == (1.0, 0.0, P, N)
        assert m["macro_f1"] == pytest.approx(P / (2 * P + N), abs=1e-12) == pytest.approx(0.366667, abs=1e-6)
    # on the paper's split (104 / 59) the same baseline gives vantage_metrics.md's 0.389513
    base = items["event_verification"][0]
    paper = [base.model_copy(update={"answer": YesNoAnswer(label="yes" if k < 104 else "no")}) for k in range(163)]
    assert score_baseline("always_yes", paper)["macro_f1"] == pytest.approx(0.389513, abs=1e-6)
    assert always_yes(base) == "yes"


def test_whole_clip_scores_what_its_definition_implies(items):
    tls = items["temporal_localization"]
    per = [max(b - a for a, b in it.answer.windows) / it.media.duration_s for it in tls]
    by_video: dict = {}
    for it, x in zip(tls, per):
        by_video.setdefault(it.media.clip_id, []).append(x)
    strict = score_baseline("whole_clip", tls, "strict")
    vantage = score_baseline("whole_clip", tls, "vantage")
    assert strict["miou"] == pytest.approx(np.mean(per), abs=1e-12) == pytest.approx(0.108182, abs=1e-6)
    assert vantage["miou"] == pytest.approx(np.mean([np.mean(v) for v in by_video.values()]), abs=1e-12)
    assert vantage["miou"] == pytest.approx(0.105428, abs=1e-6)
    assert strict["r@0.5"] == vantage["r@0.5"] == 0.0                      # no event lasts 8 s of the 16
    assert json.loads(whole_clip(tls[0])) == {"start": "00:00.00", "end": "00:16.00"}
    with pytest.raises(ValueError, match="answers temporal_localization"):
        score_baseline("whole_clip", items["event_verification"])


def test_mmss_writes_hundredths():
    assert [mmss(t) for t in (0, 5.36, 59.999, 65.07, 16)] == ["00:00.00", "00:05.36", "01:00.00", "01:05.07",
                                                               "00:16.00"]
