"""formats.predictions: one schema and reader for scoring, audits and `predict` resume."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from formats import predictions as fp


def _w(path: Path, text: str | bytes) -> Path:
    (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)
    return path


def test_aliases_one_list(tmp_path):
    lines = [{"id": "a", "response": "r1"}, {"question_id": "b", "prediction": "r2"},   # VLMEvalKit's column
             {"frame_id": "c", "reply": "r3"}, {"id": "d", "answer": "r4"}, {"id": "e", "output": "r5"},
             {"id": "f", "text": "r6"}, {"id": "g", "response": None, "reply": "r7"},   # first NON-NULL key
             {"id": "h", "response": "x", "prediction": "y"}]                          # response first
    pf = fp.read_predictions_file(_w(tmp_path / "p.jsonl", "".join(json.dumps(x) + "\n" for x in lines)))
    assert pf.replies == {"a": "r1", "b": "r2", "c": "r3", "d": "r4", "e": "r5", "f": "r6", "g": "r7", "h": "x"}
    assert fp.ID_KEYS == ("id", "question_id", "frame_id")
    assert fp.REPLY_KEYS == ("response", "reply", "prediction", "answer", "output", "text")


def test_duplicate_rule(tmp_path):
    rows = [{"id": "a", "response": "first"}, {"id": "a", "response": "second"},       # later answer wins
            {"id": "b", "response": "ok"}, {"id": "b", "response": None, "error": "HTTP 500"},  # failed retry: no
            {"id": "c", "response": None, "error": "e1"}, {"id": "c", "response": None, "error": "e2"},  # later
            {"id": "d", "response": None, "error": "e"}, {"id": "d", "response": "late"},    # answer beats error
            {"id": "e", "response": "ans"}, {"id": "e", "response": "x", "error": "timeout"}]  # error line: no
    pf = fp.read_predictions_file(_w(tmp_path / "p.jsonl", "".join(json.dumps(r) + "\n" for r in rows)))
    assert pf.replies == {"a": "second", "b": "ok", "c": None, "d": "late", "e": "ans"}
    assert pf.records["c"]["error"] == "e2"
    assert pf.duplicate_ids == ["a", "b", "c", "d", "e"]
    assert pf.line_of == {"a": 2, "b": 3, "c": 6, "d": 8, "e": 9}


def test_torn_and_unreadable_lines(tmp_path):
    good = json.dumps({"id": "a", "model": "m", "response": "x"})
    pf = fp.read_predictions_file(_w(tmp_path / "p.jsonl", good + "\n{broken\n[1, 2]\n\n" + good + '\n{"id": "b", "re'))
    assert pf.torn_last_line and pf.torn_offset == 2 * (len(good) + 1) + len("{broken\n[1, 2]\n\n")
    assert pf.unreadable_lines == [2, 3] and pf.n_lines == 5 and set(pf.records) == {"a"}
    # a complete but garbled last line is torn too; a good last line without newline is a good line
    pf = fp.read_predictions_file(_w(tmp_path / "q.jsonl", good + "\n{garbled\n\n"))
    assert pf.torn_last_line and pf.unreadable_lines == [] and pf.torn_offset == len(good) + 1
    pf = fp.read_predictions_file(_w(tmp_path / "r.jsonl", good))
    assert not pf.torn_last_line and pf.missing_newline and pf.replies == {"a": "x"}
    pf = fp.read_predictions_file(_w(tmp_path / "s.jsonl", good + '\n{"response": "no id"}\n{"id": 5}\n' + good))
    assert pf.no_id_lines == [2, 3] and pf.duplicate_ids == ["a"]


def test_cut_torn_tail_makes_appends_safe(tmp_path):
    good = json.dumps({"id": "a", "response": "x"})
    p = _w(tmp_path / "p.jsonl", good + "\n" + '{"id": "b", "resp')
    fp.cut_torn_tail(fp.read_predictions_file(p))
    assert p.read_text() == good + "\n"
    p = _w(tmp_path / "q.jsonl", good)                                  # a good line without its newline
    fp.cut_torn_tail(fp.read_predictions_file(p))
    assert p.read_text() == good + "\n"
    p = _w(tmp_path / "r.jsonl", good + "\n" + good + "x")               # torn after a good line
    fp.cut_torn_tail(fp.read_predictions_file(p))
    assert p.read_text() == good + "\n"


def test_size_caps_and_bad_files(tmp_path, monkeypatch):
    monkeypatch.setattr(fp, "MAX_LINE_BYTES", 100)
    big = json.dumps({"id": "big", "response": "x" * 500})
    small = json.dumps({"id": "a", "response": "x" * 50})
    pf = fp.read_predictions_file(_w(tmp_path / "p.jsonl", small + "\n" + big + "\n" + small + "\n"))
    assert pf.oversize_lines == [2] and set(pf.records) == {"a"} and pf.n_lines == 3
    edge = json.dumps({"id": "e", "response": ""}).ljust(99)           # 99 bytes + newline = the cap: read
    pf = fp.read_predictions_file(_w(tmp_path / "q.jsonl", edge + "\n"))
    assert set(pf.records) == {"e"} and pf.oversize_lines == []
    monkeypatch.setattr(fp, "MAX_FILE_BYTES", 1000)
    with pytest.raises(fp.PredictionsError, match="larger than"):
        fp.read_predictions_file(_w(tmp_path / "huge.jsonl", (small + "\n") * 20))
    with pytest.raises(fp.PredictionsError, match="does not exist"):
        fp.read_predictions_file(tmp_path / "nope.jsonl")
    with pytest.raises(fp.PredictionsError, match="not a file"):
        fp.read_predictions_file(tmp_path)


def test_encoding_is_never_fatal(tmp_path):
    raw = b'{"id": "a", "model": "m\\ud800", "response": "caf\xe9 \\udc00"}\n{"id": "b\\ud83d", "response": "ok"}\n'
    pf = fp.read_predictions_file(_w(tmp_path / "p.jsonl", raw))
    assert pf.invalid_utf8_lines == [1] and pf.model == "m\ufffd"
    assert pf.replies == {"a": "caf\ufffd \ufffd", "b\ufffd": "ok"}
    json.dumps(pf.records, ensure_ascii=False).encode("utf-8")          # everything read can be written


def test_model_name(tmp_path):
    rows = [{"id": "a", "model": "y"}, {"id": "b", "model": "x"}, {"id": "c", "model": " x "}, {"id": "d"}]
    pf = fp.read_predictions_file(_w(tmp_path / "stem.jsonl", "".join(json.dumps(r) + "\n" for r in rows)))
    assert pf.model == "x" and pf.model_names == ["x", "y"]
    rows = [{"id": "a", "model": "y"}, {"id": "b", "model": "x"}]        # a tie: the first in sorted order
    assert fp.read_predictions_file(_w(tmp_path / "t.jsonl", "".join(json.dumps(r) + "\n" for r in rows))).model == "x"
    assert fp.read_predictions_file(_w(tmp_path / "u.jsonl", '{"id": "a"}\n')).model == "u"


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_LINE = st.one_of(
    st.binary(max_size=60),
    st.builds(lambda i, r: json.dumps({"id": i, "response": r}).encode(), st.text(max_size=5), st.text(max_size=10)),
    st.builds(lambda i: json.dumps({"id": i, "response": None, "error": "x"}).encode(), st.text(max_size=3)),
    st.sampled_from([b"", b"{", b"[]", b'{"id": 5}', b'"\\ud800"', b'{"id": "\\udc00", "reply": 1}']))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_LINE, max_size=8), st.booleans())
def test_any_bytes_read_or_refused_in_one_line(tmp_path, lines, final_newline):
    from model_runs.predict import PredictError, read_predictions

    p = tmp_path / "p.jsonl"
    p.write_bytes(b"\n".join(lines) + (b"\n" if final_newline else b""))
    pf = fp.read_predictions_file(p)
    assert all(isinstance(k, str) for k in pf.records)
    json.dumps(pf.records, ensure_ascii=False).encode("utf-8")          # no lone surrogate survives
    bad = set(pf.unreadable_lines) | set(pf.no_id_lines) | set(pf.oversize_lines)
    assert bad.isdisjoint(pf.line_of.values())
    for i, rec in pf.records.items():                                  # the duplicate rule held
        assert fp.answered(rec) or not any(fp.answered(r) for r in _all_with_id(p, i))
    try:
        read_predictions(p)
    except PredictError as exc:
        assert "\n" not in str(exc)


def _all_with_id(p: Path, i: str) -> list[dict]:
    out = []
    for raw in p.read_bytes().split(b"\n"):
        try:
            rec = fp._clean(json.loads(raw.decode("utf-8", "replace")))
        except ValueError:
            continue
        if isinstance(rec, dict) and fp.id_of(rec) == i:
            out.append(rec)
    return out
