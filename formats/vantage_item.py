"""One VANTAGE-Bench item: the envelope every task generator writes and every grader reads.

The eight task generators (packagers/vantage_tasks/) turn rendered clips into items; the
graders (scorers/vantage_grading.py) turn an item and a model's reply into a graded record;
the export writes items as rows. Keeping the envelope here, below both, lets each side be
written and tested without the other. The task-specific ground truth lives in `answer`, one
pydantic model per task, so a generator cannot write a field a grader does not read.

Coordinate conventions are the official harness's (vantage_metrics.md): a model answers boxes
and points in 0–1000 normalised xyxy / xy; ground-truth boxes of the image tasks (Referring
Expressions, Object Localization) are in pixels of `media.width` × `media.height`, SOT
ground truth is in 0–1000 like its replies; times are seconds from the clip's first frame.
"""
from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, model_validator

SCHEMA_VERSION = 1

TASKS = ("event_verification", "video_qa", "temporal_localization", "dense_captioning",
         "referring_expressions", "spatial_pointing", "object_localization", "single_object_tracking")
Task = Literal["event_verification", "video_qa", "temporal_localization", "dense_captioning",
               "referring_expressions", "spatial_pointing", "object_localization", "single_object_tracking"]
Domain = Literal["W", "T", "S"]          # warehouse (logistics), transportation, smart spaces (§3)
LETTERS = "ABCD"

Box = tuple[float, float, float, float]  # x1, y1, x2, y2
Point = tuple[float, float]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Media(_Strict):
    """What the model is shown: a clip (mp4 + sampled frames), one image, or SOT's frame list."""
    kind: Literal["video", "image", "frames"]
    clip_id: str
    frame_numbers: list[int]             # indices into the clip's 30 fps stream, increasing
    times_s: list[float]                 # frame_numbers / fps
    fps: float = 30.0
    duration_s: float                    # the clip's length (Temporal Localization's whole-clip answer)
    width: int
    height: int

    @model_validator(mode="after")
    def _frames_match(self):
        if len(self.frame_numbers) != len(self.times_s) or not self.frame_numbers:
            raise ValueError("media needs one time per frame number, and at least one frame")
        if any(b <= a for a, b in zip(self.frame_numbers, self.frame_numbers[1:])):
            raise ValueError("frame numbers must increase")
        if self.kind == "image" and len(self.frame_numbers) != 1:
            raise ValueError("an image item shows exactly one frame")
        return self


class YesNoAnswer(_Strict):
    task: Literal["event_verification"] = "event_verification"
    label: Literal["yes", "no"]


class ChoiceAnswer(_Strict):
    """Video QA: four option texts; Spatial Pointing: four 0–1000 points (as text and values)."""
    task: Literal["video_qa", "spatial_pointing"]
    letter: Literal["A", "B", "C", "D"]
    options: tuple[str, str, str, str]
    points: tuple[Point, Point, Point, Point] | None = None   # Spatial Pointing only


class SegmentsAnswer(_Strict):
    """Temporal Localization: one or more windows; a reply scores against the best one."""
    task: Literal["temporal_localization"] = "temporal_localization"
    windows: list[tuple[float, float]] = Field(min_length=1)


class CaptionedEvent(_Strict):
    start: float
    end: float
    caption: str


class CaptionsAnswer(_Strict):
    task: Literal["dense_captioning"] = "dense_captioning"
    events: list[CaptionedEvent] = Field(min_length=1)


class BoxesAnswer(_Strict):
    """Referring Expressions (the one confirmed target) and Object Localization (every
    instance of `category`): pixel xyxy boxes."""
    task: Literal["referring_expressions", "object_localization"]
    boxes: list[Box]
    category: str | None = None          # Object Localization: the named category


class TrackAnswer(_Strict):
    """SOT: the first-frame box (drawn on frame 0) and one box or None per shown frame, 0–1000."""
    task: Literal["single_object_tracking"] = "single_object_tracking"
    init_box: Box
    boxes: list[Box | None]
    object_type: str


Answer = Annotated[Union[YesNoAnswer, ChoiceAnswer, SegmentsAnswer, CaptionsAnswer, BoxesAnswer, TrackAnswer],
                   Field(discriminator="task")]


class VantageItem(_Strict):
    schema_version: Literal[1] = SCHEMA_VERSION
    id: str                              # "<task>/<clip_id>/<k>": unique across the benchmark
    task: Task
    domain: Domain
    env: str                             # the generating environment (warehouse, intersection, entrance)
    media: Media
    prompt: str
    answer: Answer
    tags: dict[str, str | float | int | bool] = {}   # hard-case controls (margin, night, size...)

    @model_validator(mode="after")
    def _consistent(self):
        if self.answer.task != self.task:
            raise ValueError(f"item {self.id}: a {self.answer.task} answer on a {self.task} item")
        if not self.id.startswith(self.task + "/"):
            raise ValueError(f"item id {self.id!r} must start with its task {self.task!r}")
        if self.task == "single_object_tracking" and len(self.answer.boxes) != len(self.media.frame_numbers):
            raise ValueError(f"item {self.id}: one SOT box (or None) per shown frame")
        if self.task == "spatial_pointing" and self.answer.points is None:
            raise ValueError(f"item {self.id}: spatial pointing needs its four points")
        return self
