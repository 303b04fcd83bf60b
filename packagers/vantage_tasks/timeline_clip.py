"""What the four timeline tasks (EV, Video QA, Temporal Localization, DVC) read from one
clip (warehouse, intersection or entrance: the words come from its environment's
`timeline_vocab.Vocabulary`), and the parts they share: the prompts file, actor
descriptions that say which agents they pick out, event matching, the shown media and the seeds.

Only events the model is shown count. The clip shows 8 uniform frames, 2.28 s apart (4.28 s at
the entrance), and many events are shorter than that. An event is *shown* when one of the shown
frames lies in its window [t_start, t_end], so that its defining condition (the gap under the
threshold, the second person in the doorway) holds on a frame the model sees; or, for a type
whose outcome lasts (the vocabulary's `lasting`: a fallen worker lies there, a picked pallet
rides the forks), when a shown frame comes before the event and another after it, before
anything undoes the outcome, so the frames show the change. An event that is not shown is never
the subject of an item (no hypothesis, question, window or caption relies on it), although it
still keeps its type from being asked as an absent one (docs/vantage-deviations.md, "events
between shown frames").

A description is text plus its referents (the track ids it fits): "the orange forklift"
when no other forklift is orange, else a generic "a forklift" that fits every forklift.
Labels are then decided by the referents, never by the script's intent, so a hypothesis
and its label cannot disagree even when two workers wear the same vest.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import permutations
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from formats.vantage_item import Media
from geometry.camera import share_in_image
from geometry.clip import camera_pose
from geometry.events import Event
from packagers.vantage_tasks.timeline_vocab import VOCABULARIES, WAREHOUSE, Vocabulary, vocabulary
from render_farm.clips import clip_id_for
from render_farm.seeds import rng_for

PROMPTS_FILE = Path(__file__).resolve().parent.parent / "prompts" / "vantage_timeline.yaml"
TASK_SECTIONS = ("event_verification", "video_qa", "temporal_localization", "dense_captioning")
TIME_DECIMALS = 2              # answer times in hundredths of a second: the 'mm:ss.ss' the prompts ask for
# the warehouse's words under their old names (its vocabulary is timeline_vocab.WAREHOUSE)
EVENT_TYPES = WAREHOUSE.event_types
DOMAIN = WAREHOUSE.domain
NOUN, GENERIC, ATTRIBUTES = WAREHOUSE.nouns, WAREHOUSE.generic, WAREHOUSE.attributes
CATEGORY_ORDER = WAREHOUSE.category_order
EVENT_CATEGORIES = {k: v[0] for k, v in WAREHOUSE.signatures.items()}
# per task: the keys an environment's entry may override, and the map that needs every event type
ENV_KEYS = {"event_verification": ("system", "hypotheses"), "video_qa": ("preamble", "questions", "event_options"),
            "temporal_localization": ("queries",), "dense_captioning": ("captions",)}
EVENT_MAPS = {"event_verification": "hypotheses", "video_qa": "event_options",
              "temporal_localization": "queries", "dense_captioning": "captions"}


class PromptError(ValueError):
    """The prompt file lacks a section or an event template (a typo would change the benchmark)."""


@lru_cache(maxsize=1)
def prompts() -> dict:
    """The prompts file, checked: every section and key, and for every environment with a
    vocabulary a template per event type in each of the four event maps (an environment
    other than the warehouse takes its texts from `<section>.<env>`, the rest from the section)."""
    data = yaml.safe_load(PROMPTS_FILE.read_text(encoding="utf-8"))
    need = {"event_verification": ("template", "system", "hypotheses"),
            "video_qa": ("template", "preamble", "questions", "event_options"),
            "temporal_localization": ("template", "queries"),
            "dense_captioning": ("template", "captions")}
    for section, keys in need.items():
        for k in keys:
            if not isinstance(data.get(section), dict) or k not in data[section]:
                raise PromptError(f"{PROMPTS_FILE}: {section}.{k} is missing")
    for env, vocab in VOCABULARIES.items():
        for section, key in EVENT_MAPS.items():
            where = section if env == WAREHOUSE.env else f"{section}.{env}"
            own = data[section] if env == WAREHOUSE.env else data[section].get(env)
            if not isinstance(own, dict):
                raise PromptError(f"{PROMPTS_FILE}: {where} is missing")
            if env != WAREHOUSE.env:
                absent = [k for k in ENV_KEYS[section] if k not in own]
                if absent:
                    raise PromptError(f"{PROMPTS_FILE}: {where} lacks {absent}")
            missing = [t for t in vocab.event_types if not isinstance(own[key], dict) or t not in own[key]]
            if missing:
                raise PromptError(f"{PROMPTS_FILE}: {where}.{key} lacks {missing}")
        where = "video_qa" if env == WAREHOUSE.env else f"video_qa.{env}"
        questions = (data["video_qa"] if env == WAREHOUSE.env else data["video_qa"][env])["questions"]
        missing = [q for q in program_ids(vocab) if not isinstance(questions, dict) or q not in questions]
        if missing:
            raise PromptError(f"{PROMPTS_FILE}: {where}.questions lacks {missing}")
    return data


def program_ids(vocab: Vocabulary) -> list[str]:
    """The Video QA programs an environment's clips can ask (each needs a question text)."""
    extra = ["carrier_paint"] if "pallet" in vocab.category_order else []
    return ([f"count_{c}" for c in vocab.counted] + list(vocab.event_counts) + list(vocab.actor_colour) + extra
            + ["first_event", "last_event"])


def section(task: str, env: str) -> dict:
    """One task's prompt texts for an environment: the section, with the environment's own
    entry over it (the warehouse's texts are the section's own)."""
    data = prompts()[task]
    vocabulary(env)
    return data if env == WAREHOUSE.env else {**data, **data[env]}


def derive_events(spec) -> list[Event]:
    """The spec's events by its environment's rules (`<env>.events`)."""
    return vocabulary(spec.env).events(spec)


def task_rng(task: str, clip_id: str, stage: str) -> np.random.Generator:
    return rng_for("vantage", task, clip_id, stage)


def sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


ACTOR_IN_VIEW = 0.5   # an event's actor is in view at a frame when this share of its projected box is in the image


@dataclass(frozen=True)
class Description:
    text: str
    referents: frozenset[str]


@dataclass(frozen=True)
class TimelineClip:
    """One clip as the generators see it: the spec (of any environment with a vocabulary),
    its derived events, and the shown frames' size (the rendered clip's, or the camera's at
    a long side)."""
    spec: Any
    events: tuple[Event, ...]
    width: int
    height: int

    def __post_init__(self):
        vocab = vocabulary(self.spec.env)
        for e in self.events:
            cats = tuple(sorted(self.category(a) for a in e.actors))
            shapes = vocab.signatures.get(e.type)
            if shapes is None or all(cats != tuple(sorted(s)) for s in shapes):
                assumed = None if shapes is None else shapes[0] if len(shapes) == 1 else list(shapes)
                raise ValueError(f"{self.clip_id}: a {e.type} event of {cats} has no template "
                                 f"(templates assume {assumed})")

    @classmethod
    def from_spec(cls, spec, long_side_px: int, events: list[Event] | None = None) -> "TimelineClip":
        vocabulary(getattr(spec, "env", None))
        pose = camera_pose(spec.timeline.camera, 0.0, long_side_px)
        evs = derive_events(spec) if events is None else events
        return cls(spec, tuple(evs), pose.width, pose.height)

    @classmethod
    def from_run(cls, env_dir: str | Path, scene_id: str, env: str = WAREHOUSE.env) -> "TimelineClip":
        """From a run of `env`: `scenes/<scene_id>.json` (the spec) and `clips/<clip_id>.json`
        (the shown size, and its events, which must equal those derived from the spec)."""
        vocab = vocabulary(env)
        if not re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*", scene_id):
            raise ValueError(f"not a scene id: {scene_id!r}")       # never read outside the run
        env_dir = Path(env_dir)
        state = json.loads((env_dir / "scenes" / f"{scene_id}.json").read_text(encoding="utf-8"))
        spec = vocab.spec_class.model_validate(state["spec"])
        doc = json.loads((env_dir / "clips" / f"{clip_id_for(env, scene_id)}.json").read_text(encoding="utf-8"))
        cam = doc["frames"][0]["camera"]
        evs = derive_events(spec)
        if [e.model_dump(exclude_none=True) for e in evs] != doc["events"]:
            raise ValueError(f"{env_dir}: the clip file's events of {scene_id} differ from the spec's (stale clip?)")
        return cls(spec, tuple(evs), int(cam["width"]), int(cam["height"]))

    @property
    def vocab(self) -> Vocabulary:
        return vocabulary(self.spec.env)

    @property
    def domain(self) -> str:
        return self.vocab.domain

    @property
    def clip_id(self) -> str:
        return clip_id_for(self.spec.env, self.spec.scene_id)

    @property
    def duration_s(self) -> float:
        return float(self.spec.timeline.clip.duration_s)

    def prompts(self, task: str) -> dict:
        return section(task, self.spec.env)

    def condition_tags(self) -> dict:
        """The lighting, and the weather where the environment draws one (the intersection)."""
        light = self.spec.lighting
        weather = getattr(light, "weather", None)
        return {"lighting": light.condition, **({"weather": weather} if weather is not None else {})}

    def media(self) -> Media:
        clip = self.spec.timeline.clip
        frames = clip.frame_numbers()
        return Media(kind="video", clip_id=self.clip_id, frame_numbers=frames,
                     times_s=[f / clip.fps for f in frames], fps=float(clip.fps), duration_s=self.duration_s,
                     width=self.width, height=self.height)

    def shown(self, event: Event) -> bool:
        """A shown frame lies in the event's window (both ends included), or, for a lasting type,
        one comes before its start and one at or after its end while the outcome holds (until the
        start of the next event of the undoing type that shares an actor with it); and at that
        frame (at both, for a lasting type) the actors are in view (`shows_actors`)."""
        frames = self.spec.timeline.clip.timestamps()
        if any(event.t_start <= t <= event.t_end and self.shows_actors(event, t) for t in frames):
            return True
        if event.type not in self.vocab.lasting:
            return False
        times = [t for t in frames if self.shows_actors(event, t)]
        undo = self.vocab.lasting[event.type]
        until = min((e.t_start for e in self.events if e.type == undo and e.t_start >= event.t_end
                     and set(e.actors) & set(event.actors)), default=math.inf)
        return any(t < event.t_start for t in times) and any(event.t_end <= t < until for t in times)

    @cached_property
    def shown_events(self) -> tuple[Event, ...]:
        """The clip's shown events, worked out once (the generators ask per event type)."""
        return tuple(e for e in self.events if self.shown(e))

    def agents(self, category: str) -> list[str]:
        return [a.track_id for a in self.spec.timeline.agents if a.category == category]

    def category(self, track_id: str) -> str:
        return self.spec.timeline.agent(track_id).category

    def color(self, track_id: str, key: str) -> str | None:
        """A colour name of the agent's look ('param:<name>': one of its params, a garment)."""
        look = self.spec.looks[track_id]
        if key.startswith("param:"):
            value = look.params.get(key[len("param:"):])
            return None if value is None else str(value)
        return look.color_names.get(key)

    def _values(self, track_id: str, keys) -> tuple | None:
        values = tuple(self.color(track_id, k) for k in ((keys,) if isinstance(keys, str) else keys))
        return None if None in values else values

    def describe(self, track_id: str) -> Description:
        """The first attribute description that fits this agent alone, else the generic one."""
        cat = self.category(track_id)
        for keys, text in self.vocab.attributes[cat]:
            values = self._values(track_id, keys)
            if values is None:
                continue
            fits = frozenset(t for t in self.agents(cat) if self._values(t, keys) == values)
            if fits == {track_id}:
                return Description(text.format(*values), fits)
        return self.generic(cat)

    def generic(self, category: str) -> Description:
        return Description(self.vocab.generic[category], frozenset(self.agents(category)))

    @cached_property
    def _frame_cameras(self) -> dict[float, tuple]:
        """(K, cam_to_world, width, height) of each shown frame, worked out once."""
        out = {}
        for t in self.media().times_s:
            pose = camera_pose(self.spec.timeline.camera, t, max(self.width, self.height))
            out[t] = pose.K_array(), pose.cam_to_world_array(), pose.width, pose.height
        return out

    def share_in_view(self, track_id: str, t: float) -> float:
        """The share of the agent's projected 3-D box that lies inside the image at the shown
        time t (0 when a corner is behind the camera)."""
        K, T, w, h = self._frame_cameras[t]
        return share_in_image(self.spec.timeline.agent(track_id).box_corners(t), K, T, w, h)

    def in_view(self, track_id: str) -> bool:
        """The agent's whole box projects inside the image, in front of the camera, at one
        shown frame at least (so it 'appears in the video' for a counting question)."""
        return any(self.share_in_view(track_id, t) == 1.0 for t in self.media().times_s)

    def appears(self, track_id: str) -> bool:
        """At one shown frame at least ACTOR_IN_VIEW of the agent's projected box is in the image."""
        return any(self.share_in_view(track_id, t) >= ACTOR_IN_VIEW for t in self.media().times_s)

    def shows_actors(self, event: Event, t: float) -> bool:
        """At shown time t at least ACTOR_IN_VIEW of every actor's projected box is in the image."""
        return all(self.share_in_view(a, t) >= ACTOR_IN_VIEW for a in event.actors)


def matches(event: Event, kind: str, referents: list[frozenset[str]], positional: bool = False) -> bool:
    """The event has this type and its actors can be assigned one to each referent set
    (distinct actors); `positional`: the event's actors in their own order (roles that
    one category plays twice: the tailgater is the second)."""
    if event.type != kind or len(event.actors) < len(referents):
        return False
    if positional:
        return all(a in r for a, r in zip(event.actors, referents))
    return any(all(a in r for a, r in zip(perm, referents)) for perm in permutations(event.actors, len(referents)))


def event_matches(clip: TimelineClip, event: Event, kind: str, referents: list[frozenset[str]]) -> bool:
    return matches(event, kind, referents, positional=kind in clip.vocab.positional)


def ordered_actors(clip: TimelineClip, actors: list[str]) -> list[str]:
    """Actors in the templates' order (the vocabulary's category order: the warehouse's
    person, forklift, AMR, pallet)."""
    order = clip.vocab.category_order
    return sorted(actors, key=lambda t: (order.index(clip.category(t)), t))


def slots(kind: str, clip: TimelineClip, actors: list[str], generic: bool = False) -> tuple[dict, list[frozenset]]:
    """Template fields and referent sets for an event of `kind` with these actors, in the
    vocabulary's slot names (the warehouse's near_miss {person, forklift}, collision {first,
    second}, pickup/drop {forklift} (the pallet is 'a pallet'), zone_entry/fall {person});
    a positional type keeps the actors' own order. `generic`: category words only ('a forklift')."""
    vocab = clip.vocab
    kept = actors if kind in vocab.positional else ordered_actors(clip, actors)
    movers = [t for t in kept if clip.category(t) not in vocab.silent]
    descs = [clip.generic(clip.category(t)) if generic else clip.describe(t) for t in movers]
    names = vocab.slot_names.get(kind, ())
    if len(descs) != len(names):
        raise ValueError(f"a {kind} event needs {len(names)} mover(s), got {movers}")
    return {n: d.text for n, d in zip(names, descs)}, [d.referents for d in descs]


def round_time(t: float) -> float:
    return round(float(t), TIME_DECIMALS)
