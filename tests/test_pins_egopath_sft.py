"""EgoPathBench SFT rows (packagers/egopath_sft.py): the template rationale written out by hand
for tests/test_egopath_export.py's annotation(0) (distances from its waypoint coordinates),
the answer audit, and the export/audit files from small hand-written Parquet shards."""
from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from packagers import egopath_sft as sft
from packagers.egopath_sft import SFTExportError, _answer_verifies, conversation, export_sft, rationale
from tests.test_egopath_export import annotation
from tests.test_egopath_selection import _pool

QS = {q.question_id: q for q in _pool([("f-0", "g-0", annotation(0))], split="train")[0]}
POINT = "a point agent"
BODY = "my 0.6 m-diameter body"


def _route_text(body, goals, steps, end):
    # 2 -> 4 and 4 -> 5 (and 2 -> 3, 3 -> 5 / 3 -> 6) are sqrt(1 + 0.5^2) = 1.118 m; 1 -> 2 is 1 m
    legs = "; ".join(f"{a} -> {b} ({d} m, a legal direct edge for {body})" for a, b, d in steps)
    return legs + f". It ends at goal {end} after 3.24 m."


def test_constants():
    assert (sft.SFT_FILE, sft.AUDIT_FILE, sft.SPLIT) == ("egopathbench_sft.json", "sft_audit.json", "train")
    assert sft._ids([]) == "none" and sft._ids([3, 1]) == "3, 1" and sft._ids(iter([7])) == "7"


def test_traversability_rationales_by_hand():
    assert rationale(QS["f-0/point_traversability"]) == (
        "The image shows candidates 1, 2, 3, 4, 5, 6. I judge each for a point agent: a candidate is walkable "
        "when it lies on free floor. Walkable: 1, 2, 3, 4. Not walkable (on an object or structure surface, "
        "blocked, or too close to an obstacle): 5, 6.")
    assert rationale(QS["f-0/embodied_traversability"]) == (
        "The image shows candidates 1, 2, 3, 4, 5, 6. I judge each for the 0.6 m robot: a candidate is walkable "
        "only when free floor extends at least 0.3 m around it. Walkable: 1, 2. Not walkable (on an object or "
        "structure surface, blocked, or too close to an obstacle): 3, 4, 5, 6.")
    everything = QS["f-0/point_traversability"].model_copy(update={"positives": [6, 5, 4, 3, 2, 1]})
    assert rationale(everything).endswith("Walkable: 1, 2, 3, 4, 5, 6. Not walkable (on an object or structure "
                                          "surface, blocked, or too close to an obstacle): none.")


def test_route_rationales_by_hand():
    assert rationale(QS["f-0/point_path/0"]) == (
        "Target: the red chair. Start: display ID 1. Candidates shown: 1, 2, 3, 4, 5, 6; reachable by a point "
        "agent through some legal edge: 1, 2, 3, 4, 5, 6. Acceptable goal IDs next to the red chair: 5, 6. "
        "Route: " + _route_text(POINT, [5, 6], [(1, 2, "1.00"), (2, 3, "1.12"), (3, 5, "1.12")], 5))
    emb = ("Target: the red chair. Start: display ID 1. Candidates shown: 1, 2, 3, 4, 5, 6; reachable by my 0.6 "
           "m-diameter body through some legal edge: 1, 2, 4, 5. Acceptable goal IDs next to the red chair: 5. "
           "Route: " + _route_text(BODY, [5], [(1, 2, "1.00"), (2, 4, "1.12"), (4, 5, "1.12")], 5))
    assert rationale(QS["f-0/embodied_path/0"]) == emb
    assert rationale(QS["f-0/intent_path/0"]) == (
        'The request "I need a seat for one person while I tie my shoes; take me to the red one" points to the '
        "red chair. " + emb)
    assert sft._xy_dist(QS["f-0/point_path/0"], 2, 3) == pytest.approx(5 ** 0.5 / 2)
    # the z coordinate is ignored: only the floor-plane distance counts
    q = QS["f-0/point_path/0"]
    lifted = q.model_copy(update={"waypoint_world": {**q.waypoint_world, "2": [1.0, 0.0, 5.0]}})
    assert sft._xy_dist(lifted, 1, 2) == 1.0


def test_start_already_a_goal():
    q = QS["f-0/point_path/0"].model_copy(update={"reference_route": [5], "start_id": 5, "legal_edges": []})
    assert rationale(q).endswith("reachable by a point agent through some legal edge: 5, 6. Acceptable goal IDs "
                                 "next to the red chair: 5, 6. The start 5 is already an acceptable goal.")


def test_conversation_row():
    q = QS["f-0/embodied_path/0"]
    row = conversation(q, "images/f-0.jpg")
    assert list(row) == ["id", "image", "system", "conversations"]
    assert row["id"] == "f-0/embodied_path/0" and row["image"] == "images/f-0.jpg" and row["system"] == q.system_prompt
    assert row["conversations"][0] == {"from": "human", "value": "<image>\n" + q.user_prompt}
    assert row["conversations"][1] == {"from": "gpt", "value": rationale(q) + "\n" + q.answer}
    assert q.answer == "[1, 2, 4, 5]"


def test_answer_audit():
    for q in QS.values():
        assert _answer_verifies(q, "some reasoning\n" + q.answer), q.question_id
    tp = QS["f-0/point_traversability"]
    assert not _answer_verifies(tp, "x\n[1, 2, 3]")            # a missed positive
    assert not _answer_verifies(tp, "x\n[1, 2, 3, 4, 5]")      # a false positive
    assert not _answer_verifies(tp, "x\n1, 2, 3, 4")           # not a JSON list
    assert not _answer_verifies(tp, "[1, 2, 3, 4]\nno list on the last line")
    pp = QS["f-0/point_path/0"]
    assert _answer_verifies(pp, "[1, 2, 4, 5]")                 # another legal route to a goal
    assert not _answer_verifies(pp, "r\n[1, 3, 5]")            # 1 -> 3 is no legal edge
    assert not _answer_verifies(pp, "r\n[1, 2, 4]")            # does not end at a goal
    assert not _answer_verifies(pp, "r\n")


def _shard(root, task, rows):
    (root / task).mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), root / task / "train-00000-of-00001.parquet")


def _row(q, image=b"JPEG", path="f-0.jpg"):
    return {"question": q.model_dump_json(), "image": None if image is None else {"bytes": image, "path": path}}


def test_export_and_audit(tmp_path):
    root, out = tmp_path / "ds", tmp_path / "sft"
    _shard(root, "point_path", [_row(QS["f-0/point_path/1"]), _row(QS["f-0/point_path/0"])])
    _shard(root, "point_traversability", [_row(QS["f-0/point_traversability"], b"OTHER", "sub/f-1.jpg")])
    audit = export_sft(root, out)
    assert audit == {"complete_training_rows": 3, "training_rows": 3, "missing_image": 0, "missing_rationale": 0,
                     "rationale_source": "template over the geometric annotation (paper: GPT-written, non-template)",
                     "answer_failures": [], "format_and_answer_audit": "pass", "images": 2}
    assert json.loads((out / "sft_audit.json").read_text()) == audit
    items = json.loads((out / "egopathbench_sft.json").read_text())
    assert [c["id"] for c in items] == ["f-0/point_path/0", "f-0/point_path/1", "f-0/point_traversability"]
    assert [c["image"] for c in items] == ["images/f-0.jpg", "images/f-0.jpg", "images/f-1.jpg"]
    assert (out / "images" / "f-0.jpg").read_bytes() == b"JPEG" and (out / "images" / "f-1.jpg").read_bytes() == b"OTHER"
    text = (out / "egopathbench_sft.json").read_text()
    assert text.endswith("]\n") and text.startswith('[\n {\n  "id": "f-0/point_path/0"')


def test_export_audit_fails_on_missing_images_and_wrong_answers(tmp_path):
    root, out = tmp_path / "ds", tmp_path / "sft"
    wrong = QS["f-0/point_path/0"].model_copy(update={"answer": "[1, 3, 5]"})
    _shard(root, "point_path", [_row(wrong), _row(QS["f-0/point_path/1"], image=b"")])
    _shard(root, "embodied_path", [_row(QS["f-0/embodied_path/0"], image=None)])
    audit = export_sft(root, out)
    assert audit["training_rows"] == 3 and audit["missing_image"] == 2 and audit["complete_training_rows"] == 1
    assert audit["answer_failures"] == ["f-0/point_path/0"] and audit["format_and_answer_audit"] == "fail"
    assert audit["images"] == 1
    # complete rows but a wrong answer still fail the audit
    _shard(root / "b", "point_path", [_row(wrong)])
    a2 = export_sft(root / "b", tmp_path / "o2")
    assert a2["complete_training_rows"] == 1 == a2["training_rows"] and a2["format_and_answer_audit"] == "fail"
    with pytest.raises(SFTExportError, match="no train split to export"):
        export_sft(tmp_path / "empty", tmp_path / "o3")


def test_answer_is_the_last_line_only():
    tp = QS["f-0/point_traversability"]
    assert _answer_verifies(tp, "first line\nsecond line\n" + tp.answer)
    assert not _answer_verifies(tp, tp.answer + "\nsecond line\n[1, 2]")
    # only the last line counts, even when an earlier one (not the first) holds the right list
    assert not _answer_verifies(tp, "reasoning\n" + tp.answer + "\nno list on the last line")


def test_xy_dist_by_hand():
    q = QS["f-0/point_path/0"]
    q = q.model_copy(update={"waypoint_world": {**q.waypoint_world, "1": [0.0, 1.0, 0.0], "2": [3.0, 5.0, 9.0]}})
    assert sft._xy_dist(q, 1, 2) == 5.0 == sft._xy_dist(q, 2, 1)         # a 3-4-5 triangle in the floor plane


def test_a_missing_image_skips_only_its_row(tmp_path):
    root, out = tmp_path / "ds", tmp_path / "sft"
    _shard(root, "point_path", [_row(QS["f-0/point_path/0"], image=None), _row(QS["f-0/point_path/1"])])
    audit = export_sft(root, out)
    assert (audit["training_rows"], audit["missing_image"], audit["complete_training_rows"]) == (2, 1, 1)
    assert [c["id"] for c in json.loads((out / "egopathbench_sft.json").read_text())] == ["f-0/point_path/1"]


def test_the_json_keeps_non_ascii_text(tmp_path):
    """The intent prompt quotes the request in curly quotes (Table S2): written as UTF-8, not escaped."""
    root, out = tmp_path / "ds", tmp_path / "sft"
    q = QS["f-0/intent_path/0"]
    assert "\u201c" in q.user_prompt
    _shard(root, "intent_path", [_row(q)])
    export_sft(root, out)
    text = (out / "egopathbench_sft.json").read_text(encoding="utf-8")
    assert "\u201cI need a seat" in text and "\\u201c" not in text
