"""Job planning: N frames of an environment -> scene jobs with their view indices.

A frame is (stratum, scene index, view index); its id and every seed follow from
those numbers alone, so a rerun (or another machine) plans the same frames and skips
the ones already in the run store.
"""
from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from render_farm.seeds import derive_seed

STRATA = ("random", "positive")
# Scene indices are written with 5 digits so that frame ids sort in frame order; a run
# holds at most this many scenes (N <= MAX_SCENES * views_per_scene), refused up front.
MAX_SCENES = 100_000


class FaultPlan(BaseModel):
    """Deliberate failures for testing the farm's recovery (empty in normal runs)."""

    model_config = ConfigDict(extra="forbid")
    raise_in: list[str] = Field(default_factory=list)   # scene ids whose job raises
    raise_times: int = 1                                # ... on this many attempts
    exit_in: list[str] = Field(default_factory=list)    # scene ids whose worker dies (os._exit)
    exit_times: int = 1
    at_frame: int = 0                                   # clips: raise/exit at this frame of the job, not at its start


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
        """Unique among a run's jobs in flight: a scene split by `split_tail` has one job per view."""
        return f"{self.scene_id}/{'.'.join(map(str, self.views))}"


def scene_id_for(stratum: str, scene_index: int) -> str:
    return f"{stratum}-{scene_index:05d}"


def frame_id_for(env: str, stratum: str, scene_index: int, view_index: int) -> str:
    return f"{env}-{scene_id_for(stratum, scene_index)}-{view_index:02d}"


def max_frames(views_per_scene: int) -> int:
    return MAX_SCENES * views_per_scene


def seed_parts(root_seed: int, env: str, stratum: str, scene_index: int, redraw: int = 0) -> tuple:
    """The prefix of every seed of a scene; a redrawn scene (positive stratum) is another scene."""
    base = ("scenebench", root_seed, env, stratum, scene_index)
    return base if redraw == 0 else (*base, "redraw", redraw)


def frame_seed(root_seed: int, env: str, stratum: str, scene_index: int, view_index: int, redraw: int = 0) -> int:
    """The `seed` a FrameRecord carries: a rerun re-derives it to tell whose frame a record is."""
    return derive_seed(*seed_parts(root_seed, env, stratum, scene_index, redraw), view_index, "frame")


_SCENE_ID = re.compile(r"(?P<stratum>[a-z]+)-(?P<index>\d{5,})(?:-r(?P<redraw>[1-9]\d*))?")


def parse_scene_id(scene_id: str) -> tuple[str, int, int] | None:
    """(stratum, scene index, redraw) of a scene id written by the job, or None."""
    m = _SCENE_ID.fullmatch(scene_id)
    if m is None:
        return None
    return m["stratum"], int(m["index"]), int(m["redraw"] or 0)


def plan_jobs(env: str, n: int, views_per_scene: int, stratum: str, done: set[str], **job_fields) -> list[SceneJob]:
    """Scene jobs covering frames 0..n-1 of `stratum`, minus the frames in `done`."""
    if n <= 0:
        raise ValueError(f"N must be a positive number of frames, got {n}")
    if stratum not in STRATA:
        raise ValueError(f"unknown stratum {stratum!r}; choose one of {', '.join(STRATA)}")
    n_scenes = -(-n // views_per_scene)
    if n_scenes > MAX_SCENES:
        raise ValueError(f"N={n} needs {n_scenes} scenes; a run holds at most {MAX_SCENES} scenes "
                         f"(N <= {max_frames(views_per_scene)} for {views_per_scene} views per scene)")
    # validated once; each scene's job is a copy (validating 100000 jobs took 14 s)
    template = SceneJob(env=env, stratum=stratum, scene_index=0, scene_id=scene_id_for(stratum, 0), views=[0],
                        **job_fields)
    jobs = []
    for s in range(n_scenes):
        views = [v for v in range(views_per_scene) if s * views_per_scene + v < n
                 and frame_id_for(env, stratum, s, v) not in done]
        if views:
            jobs.append(template.model_copy(update={"scene_index": s, "scene_id": scene_id_for(stratum, s),
                                                    "views": views}))
    return jobs


def split_tail(jobs: list[SceneJob], workers: int) -> list[SceneJob]:
    """The plan with its last `workers` scenes split into one job per view, so that the run's
    tail is a queue of single frames that every worker takes from, not a few whole scenes that
    leave the other workers idle (on 2 workers, calib x8 was two 4-frame scenes). A view renders
    the same bytes in any job (job.render_views), and a worker that gets another view of the
    scene it holds does not build it again (job.LastBuild). One worker: the plan unchanged."""
    if workers <= 1:
        return list(jobs)
    head, tail = jobs[:-workers], jobs[-workers:]
    return head + [j.model_copy(update={"views": [v]}) for j in tail for v in j.views]
