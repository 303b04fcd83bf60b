"""Rendered clip run stores -> every VANTAGE-Bench item of the chosen tasks.

Which environment feeds which task is decided here, once: the 8-frame clips of the warehouse,
the intersection and the entrance feed the timeline tasks (packagers/vantage_tasks: EV, Video
QA, Temporal Localization, DVC; domains W, T, S) and the image tasks (Referring Expressions,
Spatial Pointing, Object Localization), for which the crossroads also has the paper's
viewpoints: its aerial view `intersection_aerial` for Referring Expressions and its
vehicle-mounted view `intersection_forward` for Spatial Pointing. `warehouse_sot` renders the
frames at SOT's strides and feeds Single Object Tracking; `entrance_crowd` (the entrance with
20-120 passers-by) feeds Object Localization only, the task whose images hold crowds. A task
whose sources are all missing from the runs is an error naming the environment to render,
never an empty config.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from formats.vantage_item import TASKS, VantageItem

TIMELINE_TASKS = ("event_verification", "video_qa", "temporal_localization", "dense_captioning")
TIMELINE_ENVS = ("warehouse", "intersection", "entrance")     # domains W, T, S (timeline_vocab)
SOURCES = {**{t: TIMELINE_ENVS for t in TIMELINE_TASKS},
           # the image tasks: the warehouse (its items keep their order), then the paper's viewpoints
           "referring_expressions": ("warehouse", "intersection_aerial", "intersection", "entrance"),
           "spatial_pointing": ("warehouse", "intersection_forward", "intersection", "entrance"),
           "object_localization": ("warehouse", "intersection", "entrance", "entrance_crowd"),
           "single_object_tracking": ("warehouse_sot",)}


class VantageItemsError(ValueError):
    """A run cannot feed the tasks asked for (one line, says which and why)."""


def run_env(run_dir: Path) -> str:
    """The environment a run store rendered (its manifest's fingerprint)."""
    path = run_dir / "manifest.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))["fingerprint"]["env"]
    except (OSError, ValueError, KeyError, TypeError):
        raise VantageItemsError(f"{run_dir}: no readable manifest.json naming its environment (not a run store?)") from None


def _timeline_items(task: str, run_dir: Path, clip_ids: list[str]) -> list[VantageItem]:
    from packagers.vantage_tasks import dense_captioning, event_verification, temporal_localization, video_qa
    from packagers.vantage_tasks.box_scene import load_clip
    from packagers.vantage_tasks.timeline_clip import TimelineClip

    env = run_env(run_dir)
    clips = [TimelineClip.from_run(run_dir, load_clip(run_dir, c).doc["scene_id"], env) for c in clip_ids]
    if task == "video_qa":
        return video_qa.generate(clips)     # answer letters balanced over the run's whole set
    module = {"event_verification": event_verification, "temporal_localization": temporal_localization,
              "dense_captioning": dense_captioning}[task]
    return [it for c in clips for it in module.items(c)]


def _box_items(task: str, run_dir: Path, clip_ids: list[str]) -> list[VantageItem]:
    from packagers.vantage_tasks import object_localization, referring_expressions, single_object_tracking
    from packagers.vantage_tasks import spatial_pointing
    from packagers.vantage_tasks.box_scene import load_clip

    module = {"referring_expressions": referring_expressions, "spatial_pointing": spatial_pointing,
              "object_localization": object_localization, "single_object_tracking": single_object_tracking}[task]
    return module.items([load_clip(run_dir, c) for c in clip_ids])


def build_items(run_dirs: Sequence[Path], tasks: Sequence[str] = TASKS) -> list[tuple[VantageItem, Path]]:
    """(item, run directory) for every item the runs give for `tasks`."""
    from packagers.vantage_tasks.box_scene import ClipInputError, clip_ids

    runs: dict[str, list[Path]] = {}
    for d in map(Path, run_dirs):
        runs.setdefault(run_env(d), []).append(d)
    out: list[tuple[VantageItem, Path]] = []
    for task in tasks:
        sources = [d for env in SOURCES[task] for d in runs.get(env, [])]
        if not sources:
            raise VantageItemsError(f"task {task} needs a run of {' or '.join(SOURCES[task])}; none was given "
                                    f"(runs: {', '.join(sorted(runs)) or 'none'})")
        for d in sources:
            try:
                ids = clip_ids(d)
                made = (_timeline_items if task in TIMELINE_TASKS else _box_items)(task, d, ids)
            except (ClipInputError, OSError, ValueError) as exc:
                raise VantageItemsError(f"{d}: {task}: {str(exc).splitlines()[0][:300]}") from None
            out += [(it, d) for it in made]
    return out
