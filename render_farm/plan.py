"""Job planning: N frames of an environment -> scene jobs with their view indices.

A frame is (stratum, scene index, view index); its id and every seed follow from
those numbers alone, so a rerun (or another machine) plans the same frames and skips
the ones already in the run store.
"""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

STRATA = ("random", "positive")


class FaultPlan(BaseModel):
    """Deliberate failures for testing the farm's recovery (empty in normal runs)."""

    model_config = ConfigDict(extra="forbid")
    raise_in: list[str] = Field(default_factory=list)   # scene ids whose job raises
    raise_times: int = 1                                # ... on this many attempts
    exit_in: list[str] = Field(default_factory=list)    # scene ids whose worker dies (os._exit)
    exit_times: int = 1


class SceneJob(BaseModel):
    model_config = ConfigDict(extra="forbid")
    env: str
    root_seed: int
    stratum: str
    scene_index: int
    scene_id: str
    views: list[int]
    run_dir: str
    quality: dict
    device: str
    max_pose_attempts: int = 400
    max_renders_per_frame: int = 6
    attempt: int = 0
    faults: FaultPlan = Field(default_factory=FaultPlan)

    @property
    def key(self) -> str:
        return self.scene_id


def scene_id_for(stratum: str, scene_index: int) -> str:
    return f"{stratum}-{scene_index:05d}"


def frame_id_for(env: str, stratum: str, scene_index: int, view_index: int) -> str:
    return f"{env}-{scene_id_for(stratum, scene_index)}-{view_index:02d}"


def plan_jobs(env: str, n: int, views_per_scene: int, stratum: str, done: set[str], **job_fields) -> list[SceneJob]:
    """Scene jobs covering frames 0..n-1 of `stratum`, minus the frames in `done`."""
    if n <= 0:
        raise ValueError(f"N must be a positive number of frames, got {n}")
    if stratum not in STRATA:
        raise ValueError(f"unknown stratum {stratum!r}; choose one of {', '.join(STRATA)}")
    jobs = []
    n_scenes = -(-n // views_per_scene)
    for s in range(n_scenes):
        views = [v for v in range(views_per_scene) if s * views_per_scene + v < n
                 and frame_id_for(env, stratum, s, v) not in done]
        if views:
            jobs.append(SceneJob(env=env, stratum=stratum, scene_index=s, scene_id=scene_id_for(stratum, s),
                                 views=views, **job_fields))
    return jobs
