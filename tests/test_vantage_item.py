"""The VANTAGE item envelope refuses items a grader could misread."""
import pytest
from pydantic import ValidationError

from formats.vantage_item import VantageItem

MEDIA = {"kind": "video", "clip_id": "c0", "frame_numbers": [0, 68], "times_s": [0.0, 68 / 30],
         "duration_s": 16.0, "width": 640, "height": 480}


def item(**kw):
    base = {"id": "event_verification/c0/0", "task": "event_verification", "domain": "W", "env": "warehouse",
            "media": MEDIA, "prompt": "Did a near miss occur?", "answer": {"task": "event_verification", "label": "yes"}}
    base.update(kw)
    return VantageItem.model_validate(base)


def test_a_valid_item_round_trips_through_json():
    it = item()
    assert VantageItem.model_validate_json(it.model_dump_json()) == it
    assert it.answer.label == "yes"


def test_the_answer_kind_must_match_the_task():
    with pytest.raises(ValidationError, match="a video_qa answer on a event_verification item"):
        item(answer={"task": "video_qa", "letter": "A", "options": ["a", "b", "c", "d"]})


def test_the_id_names_its_task():
    with pytest.raises(ValidationError, match="must start with its task"):
        item(id="video_qa/c0/0")


def test_frames_must_increase_and_an_image_is_one_frame():
    with pytest.raises(ValidationError, match="increase"):
        item(media={**MEDIA, "frame_numbers": [68, 0]})
    with pytest.raises(ValidationError, match="exactly one frame"):
        item(media={**MEDIA, "kind": "image"})


def test_sot_needs_one_box_per_frame_and_pointing_its_points():
    sot = {"task": "single_object_tracking", "init_box": [1, 2, 3, 4], "boxes": [[1, 2, 3, 4]], "object_type": "person"}
    with pytest.raises(ValidationError, match="one SOT box"):
        item(id="single_object_tracking/c0/0", task="single_object_tracking", answer=sot)
    ok = item(id="single_object_tracking/c0/0", task="single_object_tracking",
              answer={**sot, "boxes": [[1, 2, 3, 4], None]})
    assert ok.answer.boxes[1] is None
    with pytest.raises(ValidationError, match="four points"):
        item(id="spatial_pointing/c0/0", task="spatial_pointing",
             answer={"task": "spatial_pointing", "letter": "B", "options": ["a", "b", "c", "d"]})


def test_unknown_fields_are_refused():
    with pytest.raises(ValidationError):
        item(answer={"task": "event_verification", "label": "yes", "score": 1})
    with pytest.raises(ValidationError):
        item(answer={"task": "event_verification", "label": "maybe"})
