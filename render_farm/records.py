"""`FrameRecord`: one JSON line per frame in records.jsonl (the output contract)."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from scorers.terms import TermResult

RECORD_SCHEMA_VERSION = 1


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
