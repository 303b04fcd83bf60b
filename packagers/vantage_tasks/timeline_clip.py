"""What the four timeline tasks (EV, Video QA, Temporal Localization, DVC) read from one
warehouse clip, and the parts they share: the prompts file, actor descriptions that say
which agents they pick out, event matching, the shown media and the seeds.

A description is text plus its referents (the track ids it fits): "the orange forklift"
when no other forklift is orange, else a generic "a forklift" that fits every forklift.
Labels are then decided by the referents, never by the script's intent, so a hypothesis
and its label cannot disagree even when two workers wear the same vest.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations
from pathlib import Path

import numpy as np
import yaml

from blender_envs.infra.warehouse import WarehouseSpec, events as warehouse_events
from formats.vantage_item import Media
from geometry.camera import project
from geometry.clip import camera_pose
from geometry.events import Event
from render_farm.clips import clip_id_for
from render_farm.seeds import rng_for

PROMPTS_FILE = Path(__file__).resolve().parent.parent / "prompts" / "vantage_timeline.yaml"
EVENT_TYPES = ("near_miss", "collision", "pickup", "drop", "zone_entry", "fall")
TASK_SECTIONS = ("event_verification", "video_qa", "temporal_localization", "dense_captioning")
TIME_DECIMALS = 2              # answer times in hundredths of a second: the 'mm:ss.ss' the prompts ask for
DOMAIN = "W"
NOUN = {"person": "worker", "forklift": "forklift", "amr": "AMR", "pallet": "pallet"}
GENERIC = {"person": "a worker", "forklift": "a forklift", "amr": "an AMR", "pallet": "a pallet"}
# (colour key in Look.color_names, description template), tried in order until one picks out one agent
ATTRIBUTES = {
    "person": (("vest", "the worker in the {} vest"), ("hat", "the worker in the {} hard hat"),
               ("shirt", "the worker in the {} shirt"), ("trousers", "the worker in {} trousers")),
    "forklift": (("paint", "the {} forklift"), ("operator_vest", "the forklift with the driver in the {} vest")),
    "amr": (("paint", "the {} AMR"),),
    "pallet": (),
}
CATEGORY_ORDER = ("person", "forklift", "amr", "pallet")
# the actor categories every template of an event type assumes ("A forklift collides with an AMR")
EVENT_CATEGORIES = {"near_miss": ("person", "forklift"), "collision": ("forklift", "amr"),
                    "pickup": ("forklift", "pallet"), "drop": ("forklift", "pallet"),
                    "zone_entry": ("person",), "fall": ("person",)}


class PromptError(ValueError):
    """The prompt file lacks a section or an event template (a typo would change the benchmark)."""


@lru_cache(maxsize=1)
def prompts() -> dict:
    data = yaml.safe_load(PROMPTS_FILE.read_text(encoding="utf-8"))
    need = {"event_verification": ("template", "system", "hypotheses"),
            "video_qa": ("template", "preamble", "questions", "event_options"),
            "temporal_localization": ("template", "queries"),
            "dense_captioning": ("template", "captions")}
    for section, keys in need.items():
        for k in keys:
            if not isinstance(data.get(section), dict) or k not in data[section]:
                raise PromptError(f"{PROMPTS_FILE}: {section}.{k} is missing")
    for section, key in (("event_verification", "hypotheses"), ("video_qa", "event_options"),
                         ("temporal_localization", "queries"), ("dense_captioning", "captions")):
        missing = [t for t in EVENT_TYPES if t not in data[section][key]]
        if missing:
            raise PromptError(f"{PROMPTS_FILE}: {section}.{key} lacks {missing}")
    return data


def task_rng(task: str, clip_id: str, stage: str) -> np.random.Generator:
    return rng_for("vantage", task, clip_id, stage)


def sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class Description:
    text: str
    referents: frozenset[str]


@dataclass(frozen=True)
class TimelineClip:
    """One warehouse clip as the generators see it: the spec, its derived events, and the
    shown frames' size (the rendered clip's, or the camera's at a long side)."""
    spec: WarehouseSpec
    events: tuple[Event, ...]
    width: int
    height: int

    def __post_init__(self):
        for e in self.events:
            cats = tuple(sorted(self.category(a) for a in e.actors))
            if e.type not in EVENT_CATEGORIES or cats != tuple(sorted(EVENT_CATEGORIES[e.type])):
                raise ValueError(f"{self.clip_id}: a {e.type} event of {cats} has no template "
                                 f"(templates assume {EVENT_CATEGORIES.get(e.type)})")

    @classmethod
    def from_spec(cls, spec: WarehouseSpec, long_side_px: int, events: list[Event] | None = None) -> "TimelineClip":
        pose = camera_pose(spec.timeline.camera, 0.0, long_side_px)
        evs = warehouse_events(spec) if events is None else events
        return cls(spec, tuple(evs), pose.width, pose.height)

    @classmethod
    def from_run(cls, env_dir: str | Path, scene_id: str) -> "TimelineClip":
        """From a warehouse run: `scenes/<scene_id>.json` (the spec) and `clips/<clip_id>.json`
        (the shown size, and its events, which must equal those derived from the spec)."""
        if not re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*", scene_id):
            raise ValueError(f"not a scene id: {scene_id!r}")       # never read outside the run
        env_dir = Path(env_dir)
        state = json.loads((env_dir / "scenes" / f"{scene_id}.json").read_text(encoding="utf-8"))
        spec = WarehouseSpec.model_validate(state["spec"])
        doc = json.loads((env_dir / "clips" / f"{clip_id_for('warehouse', scene_id)}.json").read_text(encoding="utf-8"))
        cam = doc["frames"][0]["camera"]
        evs = warehouse_events(spec)
        if [e.model_dump(exclude_none=True) for e in evs] != doc["events"]:
            raise ValueError(f"{env_dir}: the clip file's events of {scene_id} differ from the spec's (stale clip?)")
        return cls(spec, tuple(evs), int(cam["width"]), int(cam["height"]))

    @property
    def clip_id(self) -> str:
        return clip_id_for(self.spec.env, self.spec.scene_id)

    @property
    def duration_s(self) -> float:
        return float(self.spec.timeline.clip.duration_s)

    def media(self) -> Media:
        clip = self.spec.timeline.clip
        frames = clip.frame_numbers()
        return Media(kind="video", clip_id=self.clip_id, frame_numbers=frames,
                     times_s=[f / clip.fps for f in frames], fps=float(clip.fps), duration_s=self.duration_s,
                     width=self.width, height=self.height)

    def agents(self, category: str) -> list[str]:
        return [a.track_id for a in self.spec.timeline.agents if a.category == category]

    def category(self, track_id: str) -> str:
        return self.spec.timeline.agent(track_id).category

    def color(self, track_id: str, key: str) -> str | None:
        return self.spec.looks[track_id].color_names.get(key)

    def describe(self, track_id: str) -> Description:
        """The first attribute description that fits this agent alone, else the generic one."""
        cat = self.category(track_id)
        for key, text in ATTRIBUTES[cat]:
            value = self.color(track_id, key)
            if value is None:
                continue
            fits = frozenset(t for t in self.agents(cat) if self.color(t, key) == value)
            if fits == {track_id}:
                return Description(text.format(value), fits)
        return self.generic(cat)

    def generic(self, category: str) -> Description:
        return Description(GENERIC[category], frozenset(self.agents(category)))

    def in_view(self, track_id: str) -> bool:
        """The agent's whole box projects inside the image, in front of the camera, at one
        shown frame at least (so it 'appears in the video' for a counting question)."""
        agent = self.spec.timeline.agent(track_id)
        for t in self.media().times_s:
            pose = camera_pose(self.spec.timeline.camera, t, max(self.width, self.height))
            uv, z = project(agent.box_corners(t), pose.K_array(), pose.cam_to_world_array())
            if np.all(z > 0) and np.all((uv >= 0) & (uv <= [pose.width - 1, pose.height - 1])):
                return True
        return False


def matches(event: Event, kind: str, referents: list[frozenset[str]]) -> bool:
    """The event has this type and its actors can be assigned one to each referent set
    (distinct actors)."""
    if event.type != kind or len(event.actors) < len(referents):
        return False
    return any(all(a in r for a, r in zip(perm, referents)) for perm in permutations(event.actors, len(referents)))


def ordered_actors(clip: TimelineClip, actors: list[str]) -> list[str]:
    """Actors in the templates' order: person, forklift, AMR, pallet."""
    return sorted(actors, key=lambda t: (CATEGORY_ORDER.index(clip.category(t)), t))


def slots(kind: str, clip: TimelineClip, actors: list[str], generic: bool = False) -> tuple[dict, list[frozenset]]:
    """Template fields and referent sets for an event of `kind` with these actors: near_miss
    {person, forklift}, collision {first, second}, pickup/drop {forklift} (the pallet is 'a
    pallet'), zone_entry/fall {person}. `generic`: category words only ('a forklift')."""
    movers = [t for t in ordered_actors(clip, actors) if clip.category(t) != "pallet"]
    descs = [clip.generic(clip.category(t)) if generic else clip.describe(t) for t in movers]
    if kind == "collision":
        names = ("first", "second")
    elif kind == "near_miss":
        names = ("person", "forklift")
    elif kind in ("pickup", "drop"):
        names = ("forklift",)
    else:
        names = ("person",)
    if len(descs) != len(names):
        raise ValueError(f"a {kind} event needs {len(names)} mover(s), got {movers}")
    return {n: d.text for n, d in zip(names, descs)}, [d.referents for d in descs]


def round_time(t: float) -> float:
    return round(float(t), TIME_DECIMALS)
