"""Pinned behaviour of scorers/egopath_inputs.py beyond tests/test_pins_scoring_inputs.py: oversize
lines count as unreadable (merged in line order), warnings list at most five line numbers, and an
unreadable file is the scorer's own error type."""
from __future__ import annotations

import pytest

from formats.predictions import MAX_LINE_BYTES
from scorers import egopath_inputs as ei
from scorers.egopath_dataset import EgoPathDataError


def test_oversize_and_unreadable_lines_merge_sorted(tmp_path):
    p = tmp_path / "big.jsonl"
    good = b'{"id": "q1", "model": "m", "response": "[1]"}\n'
    huge = b'{"id": "q2", "response": "' + b"x" * MAX_LINE_BYTES + b'"}\n'
    p.write_bytes(good + huge + b"oops\n" + good)
    f = ei.load_prediction_file(p)
    assert f.unreadable_lines == [2, 3] and f.replies == {"q1": "[1]"} and f.n_lines == 4
    assert f.duplicate_ids == ["q1"] and f.model == "m"
    assert ei.file_warnings(f) == [f"{p}: 2 unreadable line(s) skipped (line 2, 3)",
                                   f"{p}: 1 repeated id(s); the last line of each counts"]


def test_invalid_utf8_warning_lists_five_lines(tmp_path):
    p = tmp_path / "latin.jsonl"
    p.write_bytes(b"".join(b'{"id": "q%d", "model": "m", "response": "caf\xe9"}\n' % i for i in range(7)))
    f = ei.load_prediction_file(p)
    assert f.invalid_utf8_lines == [1, 2, 3, 4, 5, 6, 7]
    assert ei.file_warnings(f) == [f"{p}: 7 line(s) with invalid UTF-8, read with U+FFFD (line 1, 2, 3, 4, 5)"]


def test_single_model_name_gives_no_warning(tmp_path):
    p = tmp_path / "one.jsonl"
    p.write_text('{"id": "a", "model": "m", "response": "[1]"}\n{"id": "b", "model": "m", "response": "[2]"}\n')
    f = ei.load_prediction_file(p)
    assert f.model_names == ["m"] and ei.file_warnings(f) == []


def test_directory_is_a_data_error(tmp_path):
    with pytest.raises(EgoPathDataError) as e:
        ei.load_prediction_file(tmp_path)
    assert e.value.__cause__ is None and str(tmp_path) in str(e.value)


def test_reserved_baseline_names_and_message():
    pf = ei.PredictionFile(path=ei.Path("a/f.jsonl"), model="baseline:straight-to-nearest-goal")
    with pytest.raises(EgoPathDataError) as e:
        ei.models_from_files([pf, ei.PredictionFile(path=ei.Path("b/g.jsonl"), model="baseline:all-candidates")])
    assert str(e.value) == "model name 'baseline:all-candidates' is reserved for a baseline"
    with pytest.raises(EgoPathDataError) as e:
        ei.models_from_files([ei.PredictionFile(path=ei.Path("a/s.jsonl"), model="m"),
                              ei.PredictionFile(path=ei.Path("b/s.jsonl"), model="m")])
    assert str(e.value) == "two prediction files for model 's'; rename one file or fix its `model` field"
