"""What the four box/point tasks read from a rendered clip: its frames, and per frame the
visible objects with the facts a description may use.

Input is a clip in a run store (render_farm.clips: `clips/<clip_id>.json` with per-frame
`objects`, and `scenes/<scene_id>.json` with the spec: every agent's look and trajectory).
Everything here comes from that ground truth, never from pixels.

Box conventions. The clip file stores modal boxes as extreme pixel *centres* (a one-pixel
object is [u, v, u, v]); VANTAGE boxes are continuous xyxy (IoU on areas), so a pixel box
here covers whole pixels: pixel (u, v) is the square [u, u+1) x [v, v+1) and the modal box
[u0, v0, u1, v1] of centres becomes [u0, v0, u1 + 1, v1 + 1]. A 0–1000 box or point is
that continuous box scaled by 1000 / width and 1000 / height (the harness's convention).

Visibility. A model cannot be asked about what it cannot see, and must not be punished for
what it can: `min_visible_px` is the harness's Object Localization noise floor (400 px² on
its 1080p frames) scaled to the render's frame area, but never below 12 px (a smaller blob is
a few pixels of colour, not a localisable object; the warehouse render test uses the same
floor). An object is *clear* at or above it with at least half its surface unhidden, and
*absent* with no pixel at all; in between it is ambiguous, and the tasks avoid asking about
it (see each task).

Domains. The warehouse (W) names workers by vest and forklifts / mobile robots by paint; the
crossroads views (T: `intersection`, `intersection_forward`, `intersection_aerial`) name cars
by paint and body style, motorcycles by paint and the rider's helmet, cyclists by the bicycle's
frame and their helmet, pedestrians by shirt and trousers; the entrance (S) names people by
the colour and kind of their top (shirt or coat), their trousers and what they carry. A
backpack is a fact only while the person's back is towards the camera (else it is hidden
behind the body and `item` is None: unknown, like a forklift's load being lifted).
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import yaml

from blender_envs.registry import get_environment
from formats.vantage_item import Media

HARNESS_MIN_AREA_PX = 400            # astro_2d_dataset's min_bbox_area for its noisy 10 ft sequence
HARNESS_FRAME_PX = 1920 * 1080
MIN_PX_FLOOR = 12
CLEAR_FRACTION = 0.5                 # at least half the surface unhidden and in frame
PROMPTS_FILE = Path(__file__).resolve().parent.parent / "prompts" / "vantage_boxes.yaml"
DOMAIN = {"warehouse": "W", "warehouse_sot": "W", "intersection": "T", "intersection_forward": "T",
          "intersection_aerial": "T", "entrance": "S", "entrance_crowd": "S"}

# How each tracked category is named in a prompt (pallets are not asked about: the racks and
# floor stacks hold pallets that are not agents, so "every pallet" has no ground truth).
NOUNS = {"person": "worker", "forklift": "forklift", "amr": "mobile robot"}
# The crossroads: a bicycle's object is the bicycle with its rider, hence "cyclist"; a person
# is on foot (riders are part of their vehicle's object). The entrance's door is no agent asked about.
NOUNS_BY_DOMAIN = {"W": NOUNS, "T": {"car": "car", "motorcycle": "motorcycle", "bicycle": "cyclist",
                                     "person": "pedestrian"},
                   "S": {"person": "person"}}
# A car's body style as a word, and the styles a viewer cannot tell from it (the resolver
# treats a style word as any style of its group: a low car, a tall one, a van, a pickup).
STYLE_WORDS = {"sedan": "sedan", "hatchback": "hatchback", "coupe": "coupe", "wagon": "station wagon",
               "convertible": "convertible", "SUV": "SUV", "crossover": "crossover", "minivan": "minivan",
               "pickup": "pickup truck", "van": "van"}
STYLE_GROUPS = ({"sedan", "hatchback", "coupe", "wagon"}, {"convertible"}, {"SUV", "crossover", "minivan"},
                {"pickup"}, {"van"})

_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$")


class ClipInputError(ValueError):
    """A clip id or file that is not a readable clip of this run store."""


@dataclass(frozen=True)
class Clip:
    """One rendered clip: its clip file, its scene spec and the run directory holding both."""

    run_dir: Path
    doc: dict
    spec: object

    @property
    def clip_id(self) -> str:
        return self.doc["clip_id"]

    @property
    def env(self) -> str:
        return self.doc["env"]

    @property
    def frames(self) -> list[dict]:
        return self.doc["frames"]

    def frame_by_number(self, number: int) -> dict:
        for f in self.frames:
            if f["frame_number"] == number:
                return f
        raise ClipInputError(f"clip {self.clip_id} has no rendered frame {number}")

    def image_path(self, frame: dict) -> Path:
        return inside(self.run_dir, frame["image"])


def inside(run_dir: Path, rel: str) -> Path:
    """`rel` resolved inside `run_dir`, or ClipInputError (nothing is read from outside)."""
    root = Path(run_dir).resolve()
    path = (root / rel).resolve()
    if root != path and root not in path.parents:
        raise ClipInputError(f"{rel!r} leaves the run directory")
    return path


def load_clip(run_dir: str | Path, clip_id: str) -> Clip:
    """The clip `clip_id` of the run store at `run_dir` (its clip file and validated spec)."""
    if not isinstance(clip_id, str) or not _ID_RE.match(clip_id):
        raise ClipInputError(f"not a clip id: {clip_id!r}")
    run = Path(run_dir)
    try:
        doc = json.loads(inside(run, f"clips/{clip_id}.json").read_text(encoding="utf-8"))
        if not _ID_RE.match(str(doc.get("scene_id", ""))):
            raise ClipInputError(f"clip {clip_id}: bad scene id")
        state = json.loads(inside(run, f"scenes/{doc['scene_id']}.json").read_text(encoding="utf-8"))
        spec = get_environment(doc["env"]).spec_model.model_validate(state["spec"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        if isinstance(e, ClipInputError):
            raise
        raise ClipInputError(f"clip {clip_id} in {run}: {e}") from None
    return Clip(run_dir=run, doc=doc, spec=spec)


def clip_ids(run_dir: str | Path) -> list[str]:
    """Every finished clip of the run store (clips.jsonl), sorted."""
    path = inside(Path(run_dir), "clips.jsonl")
    return sorted(json.loads(line)["clip_id"] for line in path.read_text(encoding="utf-8").splitlines() if line)


# ------------------------------------------------------------------ boxes and points

def pixel_box(centres) -> tuple[float, float, float, float]:
    """A modal box of pixel centres as the continuous box of the whole pixels."""
    u0, v0, u1, v1 = (float(x) for x in centres)
    return (u0, v0, u1 + 1.0, v1 + 1.0)


def box_1000(box, width: int, height: int) -> tuple[float, float, float, float]:
    """A continuous pixel box in 0–1000 normalised coordinates (rounded to 0.01)."""
    sx, sy = 1000.0 / width, 1000.0 / height
    return (round(box[0] * sx, 2), round(box[1] * sy, 2), round(box[2] * sx, 2), round(box[3] * sy, 2))


def centre(box) -> tuple[float, float]:
    return ((box[0] + box[2]) / 2.0, (box[1] + box[3]) / 2.0)


def min_visible_px(width: int, height: int) -> int:
    """The fewest pixels of a clear object at this frame size (module docstring)."""
    return max(MIN_PX_FLOOR, math.ceil(HARNESS_MIN_AREA_PX * width * height / HARNESS_FRAME_PX))


# ------------------------------------------------------------------ objects and their facts

@dataclass(frozen=True)
class Thing:
    """One agent in one frame: its pixel box (None without pixels) and describable facts."""

    track_id: str
    category: str
    box: tuple[float, float, float, float] | None
    visible_px: int
    visible_fraction: float
    center_world: tuple[float, float, float]
    color: str | None                   # vest (person) or paint (forklift, AMR)
    load: bool | None = None            # forklift: carrying a pallet; None when in between
    operator_vest: str | None = None    # forklift: its seated operator's vest
    tote: str | None = None             # AMR: the tote's colour, None without one
    domain: str = "W"
    style: str | None = None            # car: body style (BODY_STYLES); entrance person: "shirt" or "coat"
    helmet: str | None = None           # motorcycle rider's / cyclist's helmet colour (cyclist: None without)
    trousers: str | None = None         # pedestrian / entrance person
    item: str | None = None             # entrance person: "backpack", "briefcase", "none"; None: hidden
    item_color: str | None = None

    def clear(self, min_px: int) -> bool:
        return self.box is not None and self.visible_px >= min_px and self.visible_fraction >= CLEAR_FRACTION

    @property
    def seen(self) -> bool:
        return self.box is not None and self.visible_px > 0


def _forklift_load(spec, forklift, t: float) -> bool | None:
    """True while a pallet rides on the forks (lifted), False when the forklift never holds
    one in the clip, None in between (a pallet at its forks, being lifted or set down)."""
    loads = [a.trajectory for a in spec.timeline.agents
             if getattr(a.trajectory, "kind", None) == "carried" and a.trajectory.carrier == forklift.trajectory]
    if not loads:
        return False
    for c in loads:
        end = math.inf if c.t_drop is None else c.t_drop - c.lift_s
        if c.t_pick + c.lift_s <= t <= end:
            return True
    return None


def _road_facts(look) -> dict:
    """The crossroads' facts of one road user (intersection.Look)."""
    names = look.color_names
    if look.kind == "car":
        return {"color": names["paint"], "style": names["style"]}
    if look.kind == "motorcycle":
        return {"color": names["paint"], "helmet": names["helmet"]}
    if look.kind == "bicycle":
        return {"color": names["frame"], "helmet": names.get("helmet")}
    if look.kind == "person":
        return {"color": names["shirt"], "trousers": names["trousers"]}
    return {"color": None}


def _entrance_facts(look, agent, t: float, camera_xyz) -> dict:
    """The entrance's facts of one person (entrance._person_look); a backpack only when the
    camera is behind the person's back (the x axis of its pose is its facing)."""
    if look.kind != "person":
        return {"color": None}
    names, item = look.color_names, str(look.params["item"])
    if item == "backpack":
        M = agent.pose(t)
        if float(np.dot(M[:2, 0], np.asarray(camera_xyz[:2], float) - M[:2, 3])) >= 0.0:
            item = None
    return {"color": names["top"], "style": str(look.params["top"]), "trousers": names["trousers"], "item": item,
            "item_color": names.get(item) if item not in (None, "none") else None}


def _warehouse_facts(spec, look, agent, t: float) -> dict:
    """The warehouse's facts of one agent (warehouse.Look)."""
    names = look.color_names
    if look.kind == "person":
        return {"color": names["vest"]}
    if look.kind == "forklift":
        return {"color": names["paint"], "load": _forklift_load(spec, agent, t), "operator_vest": names["operator_vest"]}
    if look.kind == "amr":
        return {"color": names["paint"], "tote": names.get("tote")}
    return {"color": None}


def frame_things(clip: Clip, frame: dict) -> list[Thing]:
    """The frame's agents with their facts at the frame's time, in the clip file's order."""
    spec, t = clip.spec, float(frame["t"])
    dom = domain(clip)
    out = []
    for o in frame["objects"]:
        try:
            agent = spec.timeline.agent(o["track_id"])
            look = spec.looks[o["track_id"]]
            if dom == "W":
                facts = _warehouse_facts(spec, look, agent, t)
            elif dom == "T":
                facts = {"domain": dom, **_road_facts(look)}
            else:
                cam = [row[3] for row in frame["camera"]["cam_to_world"][:3]]
                facts = {"domain": dom, **_entrance_facts(look, agent, t, cam)}
            out.append(_thing(o, facts.pop("color"), facts))
        except (KeyError, TypeError, IndexError, ValueError, AttributeError) as e:
            raise ClipInputError(f"clip {clip.clip_id}: frame {frame.get('frame_number')}: object "
                                 f"{o.get('track_id') if isinstance(o, dict) else o!r} does not match its scene "
                                 f"({type(e).__name__}: {e})") from None
    return out


def _thing(o: dict, color: str | None, facts: dict) -> Thing:
    box = None if o["box_xyxy"] is None else pixel_box(o["box_xyxy"])
    return Thing(track_id=o["track_id"], category=o["category"], box=box, visible_px=int(o["visible_px"] or 0),
                 visible_fraction=float(o["visible_fraction"]), center_world=tuple(o["center_world"]),
                 color=color, **facts)


# ------------------------------------------------------------------ media and prompts

def image_media(clip: Clip, frame: dict) -> Media:
    cam = frame["camera"]
    fps = float(clip.doc["fps"])
    return Media(kind="image", clip_id=clip.clip_id, frame_numbers=[frame["frame_number"]],
                 times_s=[frame["frame_number"] / fps], fps=fps, duration_s=float(clip.doc["duration_s"]),
                 width=int(cam["width"]), height=int(cam["height"]))


def domain(clip: Clip) -> str:
    if clip.env not in DOMAIN:
        raise ClipInputError(f"clip {clip.clip_id}: environment {clip.env!r} feeds no box task "
                             f"(known: {', '.join(sorted(DOMAIN))})")
    return DOMAIN[clip.env]


def nouns(dom: str) -> dict[str, str]:
    """category -> the noun a prompt names it by, in the domain `dom`."""
    return NOUNS_BY_DOMAIN[dom]


def head(t: Thing) -> str:
    """The object's category and main colour as a noun phrase ("The worker in the orange vest",
    "The red car", "The cyclist on the blue bicycle", "The person in the black coat")."""
    if t.domain == "W":
        return f"The worker in the {t.color} vest" if t.category == "person" else f"The {t.color} {NOUNS[t.category]}"
    if t.domain == "S":
        return f"The person in the {t.color} {t.style}"
    if t.category == "bicycle":
        return f"The cyclist on the {t.color} bicycle"
    if t.category == "person":
        return f"The pedestrian in the {t.color} shirt"
    return f"The {t.color} {NOUNS_BY_DOMAIN['T'][t.category]}"


@lru_cache(maxsize=1)
def _prompts() -> dict:
    data = yaml.safe_load(PROMPTS_FILE.read_text(encoding="utf-8"))
    return data["tasks"]


def prompt_template(task: str) -> str:
    """The task's prompt template (packagers/prompts/vantage_boxes.yaml)."""
    return _prompts()[task]["user"]
