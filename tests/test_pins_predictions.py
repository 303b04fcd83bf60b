"""Pinned behaviour of formats/predictions.py on real files: key precedence, the replacement
rule, torn and oversize lines at their exact byte limits, UTF-8 repair and the model name."""
from __future__ import annotations

import json
import os

import pytest

from formats import predictions as pr


def write(tmp_path, text: bytes | str, name="run.jsonl"):
    p = tmp_path / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


def line(**kw) -> str:
    return json.dumps(kw) + "\n"


def test_constants():
    assert pr.ID_KEYS == ("id", "question_id", "frame_id")
    assert pr.REPLY_KEYS == ("response", "reply", "prediction", "answer", "output", "text")
    assert pr.MAX_FILE_BYTES == 2 ** 30 and pr.MAX_LINE_BYTES == 4 * 2 ** 20


def test_id_and_reply_precedence():
    assert pr.id_of({"id": "a", "question_id": "b"}) == "a"
    assert pr.id_of({"id": None, "question_id": "b", "frame_id": "c"}) == "b"
    assert pr.id_of({"frame_id": "c"}) == "c"
    assert pr.id_of({"id": 3}) is None and pr.id_of({}) is None
    assert pr.reply_of({"response": None, "reply": "r", "text": "t"}) == "r"
    for k in pr.REPLY_KEYS:
        assert pr.reply_of({k: [1]}) == [1]
    assert pr.reply_of({"response": "", "text": "t"}) == ""
    assert pr.answered({"response": "x"}) and pr.answered({"text": ""})
    assert not pr.answered({"response": "x", "error": "boom"})
    assert not pr.answered({"response": None}) and not pr.answered(None)
    assert pr.answered({"response": "x", "error": None})


def test_replacement_rule(tmp_path):
    p = write(tmp_path, line(id="a", error="timeout") + line(id="a", response="R1") + line(id="a", error="again")
              + line(id="b", response="B1") + line(id="b", response="B2")
              + line(id="c", error="e1") + line(id="c", error="e2"))
    f = pr.read_predictions_file(p)
    assert f.replies == {"a": "R1", "b": "B2", "c": None}
    assert f.line_of == {"a": 2, "b": 5, "c": 7}
    assert f.duplicate_ids == ["a", "a", "b", "c"]
    assert f.records["c"]["error"] == "e2"
    assert f.n_lines == 7 and not f.torn_last_line and not f.missing_newline


def test_bad_lines_reported(tmp_path):
    p = write(tmp_path, line(id="a", response="x") + "\n   \n" + "[1, 2]\n" + "{bad\n" + line(question_id=5, reply="y")
              + line(frame_id="z", answer="q") + '"str"\n' + line(id="d", response="d"))
    f = pr.read_predictions_file(p)
    assert f.unreadable_lines == [4, 5, 8] and f.no_id_lines == [6]
    assert set(f.records) == {"a", "z", "d"} and f.n_lines == 7
    assert not f.torn_last_line and f.torn_offset is None


def test_torn_last_line_offset_and_cut(tmp_path):
    good = line(id="a", response="x")
    p = write(tmp_path, good + '{"id": "b", "resp')
    f = pr.read_predictions_file(p)
    assert f.torn_last_line and f.torn_offset == len(good.encode())
    assert f.unreadable_lines == [] and set(f.records) == {"a"}
    pr.cut_torn_tail(f)
    assert p.read_bytes() == good.encode() and f.torn_offset is None and not f.torn_last_line
    assert not f.missing_newline


def test_torn_line_then_blank_lines_still_torn(tmp_path):
    good = line(id="a", response="x")
    p = write(tmp_path, good + "{torn\n\n  \n")
    f = pr.read_predictions_file(p)
    assert f.torn_last_line and f.torn_offset == len(good) and f.unreadable_lines == []


def test_torn_cut_leaving_a_line_without_newline(tmp_path):
    # a bad middle line is unreadable, not torn; a torn last line after a line lacking "\n" cannot happen,
    # but cutting a torn tail at offset 0 leaves an empty file and no newline is added
    p = write(tmp_path, "{torn")
    f = pr.read_predictions_file(p)
    assert f.torn_offset == 0
    pr.cut_torn_tail(f)
    assert p.read_bytes() == b"" and not f.missing_newline


def test_missing_newline_is_a_good_line_and_fixed(tmp_path):
    p = write(tmp_path, line(id="a", response="x") + json.dumps({"id": "b", "response": "y"}))
    f = pr.read_predictions_file(p)
    assert f.missing_newline and not f.torn_last_line and f.replies == {"a": "x", "b": "y"}
    pr.cut_torn_tail(f)
    assert p.read_bytes().endswith(b'"y"}\n') and f.missing_newline is False
    before = p.read_bytes()
    pr.cut_torn_tail(pr.read_predictions_file(p))
    assert p.read_bytes() == before


def test_line_byte_limit_is_exact(tmp_path):
    def rec(total: int, rid: str) -> bytes:
        head = b'{"id": "' + rid.encode() + b'", "response": "'
        body = b"x" * (total - len(head) - 2)
        out = head + body + b'"}'
        assert len(out) == total
        return out
    limit = pr.MAX_LINE_BYTES
    p = write(tmp_path, rec(limit, "ok") + b"\n" + rec(limit + 1, "big") + b"\n" + line(id="c", response="c").encode())
    f = pr.read_predictions_file(p)
    assert set(f.records) == {"ok", "c"} and f.oversize_lines == [2] and f.n_lines == 3
    assert len(f.records["ok"]["response"]) == limit - len('{"id": "ok", "response": ""}')
    assert f.line_of["c"] == 3
    # an oversize LAST line is reported, not torn
    q = write(tmp_path, line(id="a", response="x").encode() + rec(3 * limit, "huge"), name="q.jsonl")
    g = pr.read_predictions_file(q)
    assert g.oversize_lines == [2] and not g.torn_last_line and g.missing_newline


def test_invalid_utf8_and_surrogates(tmp_path):
    raw = b'{"id": "a", "response": "caf\xe9"}\n' + b'{"id": "b", "response": "\\ud800x", "k": {"\\udfff": ["\\ud83d"]}}\n'
    f = pr.read_predictions_file(write(tmp_path, raw))
    assert f.invalid_utf8_lines == [1]
    assert f.replies["a"] == "caf\ufffd"
    assert f.replies["b"] == "\ufffdx"
    assert f.records["b"]["k"] == {"\ufffd": ["\ufffd"]}
    ok = pr.read_predictions_file(write(tmp_path, '{"id": "e", "response": "\\ud83d\\ude00"}\n', name="e.jsonl"))
    assert ok.replies["e"] == "\U0001F600"          # a valid escaped pair is kept


def test_model_name_majority_tie_and_stem(tmp_path):
    p = write(tmp_path, line(id="a", model="zeta", response="1") + line(id="b", model=" alpha ", response="1")
              + line(id="c", model="zeta", response="1") + line(id="d", model="  ", response="1")
              + line(id="e", model=3, response="1"), name="stem-name.jsonl")
    f = pr.read_predictions_file(p)
    assert f.model == "zeta" and f.model_names == ["alpha", "zeta"]
    t = pr.read_predictions_file(write(tmp_path, line(id="a", model="m2") + line(id="b", model="m1"), name="t.jsonl"))
    assert t.model == "m1"
    s = pr.read_predictions_file(write(tmp_path, line(id="a", response="x"), name="my-model.jsonl"))
    assert s.model == "my-model" and s.model_names == []
    n = pr.read_predictions_file(write(tmp_path, line(model="only", response="x"), name="n.jsonl"))
    assert n.model == "only" and n.no_id_lines == [1]


def test_file_errors(tmp_path):
    with pytest.raises(pr.PredictionsError, match="does not exist"):
        pr.read_predictions_file(tmp_path / "none.jsonl")
    with pytest.raises(pr.PredictionsError, match="is not a file"):
        pr.read_predictions_file(tmp_path)
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as f:
        f.truncate(pr.MAX_FILE_BYTES + 1)           # sparse: no disk used
    with pytest.raises(pr.PredictionsError, match="larger than 1024 MiB"):
        pr.read_predictions_file(big)
    empty = write(tmp_path, "", name="empty.jsonl")
    e = pr.read_predictions_file(empty)
    assert e.n_lines == 0 and e.records == {} and not e.missing_newline and e.model == "empty"
    if os.geteuid() != 0:
        locked = write(tmp_path, line(id="a"), name="locked.jsonl")
        locked.chmod(0)
        with pytest.raises(pr.PredictionsError):
            pr.read_predictions_file(locked)


def _named(tmp_path, sub: str, stem: str, model: str):
    d = tmp_path / sub
    d.mkdir(exist_ok=True)
    f = pr.read_predictions_file(write(d, line(id="q1", model=model, response="A"), name=f"{stem}.jsonl"))
    assert f.model == model
    return f


def test_settle_model_names_falls_back_to_stems_only_for_shared_names(tmp_path):
    a, b, c = _named(tmp_path, "x", "run-a", "m"), _named(tmp_path, "y", "run-b", "m"), _named(tmp_path, "z", "run-c", "n")
    assert pr.settle_model_names([a, b, c]) is None
    assert (a.model, b.model, c.model) == ("run-a", "run-b", "n")      # a name used once is kept
    solo = _named(tmp_path, "w", "solo", "k")
    assert pr.settle_model_names([solo]) is None and solo.model == "k"
    assert pr.settle_model_names([]) is None


def test_settle_model_names_reports_the_first_name_still_shared(tmp_path):
    files = [_named(tmp_path, "d1", "r", "m"), _named(tmp_path, "d2", "r", "m"),
             _named(tmp_path, "d3", "q", "k"), _named(tmp_path, "d4", "q", "k"), _named(tmp_path, "d5", "p", "j")]
    assert pr.settle_model_names(files) == "q"                          # sorted: "q" before "r"
    assert [f.model for f in files] == ["r", "r", "q", "q", "j"]
    three = [_named(tmp_path, f"e{i}", "s", "m") for i in range(3)]
    assert pr.settle_model_names(three) == "s" and {f.model for f in three} == {"s"}


def test_file_size_cap_is_exact(tmp_path, monkeypatch):
    monkeypatch.setattr(pr, "MAX_FILE_BYTES", 60)
    body = line(id="a", response="x" * 30)                              # 44 bytes
    exact = write(tmp_path, body + " " * (60 - len(body) - 1) + "\n", name="exact.jsonl")
    assert exact.stat().st_size == 60
    assert set(pr.read_predictions_file(exact).records) == {"a"}        # at the cap: read
    over = write(tmp_path, body + " " * (61 - len(body) - 1) + "\n", name="over.jsonl")
    with pytest.raises(pr.PredictionsError, match=r"^predictions file .*over\.jsonl is larger than 0 MiB$"):
        pr.read_predictions_file(over)


def test_unreadable_file_is_refused_in_one_line(tmp_path, monkeypatch):
    p = write(tmp_path, line(id="a", response="x"))

    def denied(self, *a, **kw):
        raise PermissionError(13, "Permission denied")                 # what a non-root reader gets for mode 000

    monkeypatch.setattr(pr.Path, "open", denied)
    with pytest.raises(pr.PredictionsError) as exc:
        pr.read_predictions_file(p)
    assert str(exc.value) == f"predictions file {p}: Permission denied"

    def odd(self, *a, **kw):
        raise OSError("device went away")                               # no strerror: the error's own text

    monkeypatch.setattr(pr.Path, "open", odd)
    with pytest.raises(pr.PredictionsError) as exc:
        pr.read_predictions_file(p)
    assert str(exc.value) == f"predictions file {p}: device went away"


def test_lines_reads_only_the_size_it_was_given():
    """A writer appending while the file is read: lines past the size stat() gave are left for next time."""
    import io
    data = b'{"id": "a"}\n{"id": "b"}\n'
    assert [(n, off, raw, nl) for n, off, raw, nl in pr._lines(io.BytesIO(data), 12)] == [(1, 0, b'{"id": "a"}\n', True)]
    assert [n for n, *_ in pr._lines(io.BytesIO(data), len(data))] == [1, 2]
    assert list(pr._lines(io.BytesIO(data), 0)) == []


def test_oversize_lines_keep_the_offsets_and_newline_flags_exact(tmp_path, monkeypatch):
    monkeypatch.setattr(pr, "MAX_LINE_BYTES", 40)
    good = line(id="a", response="x")                                   # 31 bytes
    big = json.dumps({"id": "big", "response": "y" * 200}) + "\n"       # skipped in 40-byte reads
    p = write(tmp_path, good + big + '{"id": "b", "resp')
    f = pr.read_predictions_file(p)
    assert f.oversize_lines == [2] and f.torn_last_line and f.torn_offset == len(good) + len(big)
    pr.cut_torn_tail(f)
    assert p.read_text() == good + big and f.missing_newline is False
    # an oversize last line with its newline is complete; without one it lacks the newline
    q = write(tmp_path, good + big, name="q.jsonl")
    g = pr.read_predictions_file(q)
    assert g.oversize_lines == [2] and g.missing_newline is False and not g.torn_last_line
    r = write(tmp_path, good + big[:-1], name="r.jsonl")
    assert pr.read_predictions_file(r).missing_newline is True


def test_last_line_of_exactly_the_line_cap_without_newline_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(pr, "MAX_LINE_BYTES", 40)
    rec = json.dumps({"id": "e", "response": ""}).ljust(40)             # 40 bytes, the cap, then EOF
    assert len(rec) == 40
    f = pr.read_predictions_file(write(tmp_path, line(id="a", response="x") + rec))
    assert set(f.records) == {"a", "e"} and f.oversize_lines == [] and f.missing_newline is True
    g = pr.read_predictions_file(write(tmp_path, rec + " ", name="g.jsonl"))   # 41 bytes: over the cap
    assert g.oversize_lines == [1] and g.records == {}
