"""`FrameRecord`: one JSON line per frame in records.jsonl (the output contract), and the
term and verdict types it carries (scorers decide them; every layer reads them)."""
from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

RECORD_SCHEMA_VERSION = 1


class Verdict(str, Enum):
    ACCEPT = "accept"
    REJECT = "reject"
    UNSCORED = "unscored"  # the verdict hinges on a gray term only
    EXCLUDED = "excluded"  # the frame failed the render sanity check


class TermResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    side: Literal["scene", "frame"]
    value: float | bool | None
    threshold: str  # human-readable comparison, e.g. "<= 0.65 m"
    unit: str = ""
    passed: bool
    gray: bool = False


class FrameRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: int = RECORD_SCHEMA_VERSION
    frame_id: str
    env: str
    scene_id: str
    view_index: int
    seed: int
    stratum: str
    target: str
    camera: dict[str, Any]
    terms: list[TermResult]
    verdict: str                 # accept | reject | unscored | excluded
    failing_term: str | None
    sanity: dict[str, Any]       # {"ok": bool, "reasons": [...]}
    ground_truth: dict[str, Any]
    image: str                   # relative to the run directory
    passes: str                  # relative .npz with depth (planar, m) and object_index
    isp: dict[str, Any]
    pose_attempts: int           # poses drawn for this frame (positive stratum culls)
    renders: int                 # Cycles renders spent on this frame
    timings: dict[str, float]

    def stable_json(self) -> str:
        """The line without timings: what must be byte-identical across reruns."""
        return self.model_dump_json(exclude={"timings"})
