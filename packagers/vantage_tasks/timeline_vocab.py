"""What the timeline tasks need to know about one environment to talk about its clips: one
small `Vocabulary` per environment (domain letter, spec class, events function, the words for
its agents, the colour attributes that tell agents apart, the actor categories each event
type's templates assume, and the Video QA programs' data). The generators in this package
are environment-blind; everything environment-specific is here or in the prompts file.

Descriptions stay description-by-referents (timeline_clip): a vocabulary only lists the
attribute templates; which one fits a single agent is decided on the clip.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from blender_envs.infra import entrance, intersection, warehouse
from blender_envs.vehicle.body import COLORS as CAR_COLORS


@dataclass(frozen=True)
class Vocabulary:
    """One environment's words and event shapes.

    attributes: per category, (colour key(s), template) tried in order until one picks out
      one agent; a key 'param:<name>' reads the look's params (the entrance's 'coat'/'shirt').
    signatures: per event type, the actor categories its templates assume, in slot order
      (several for a type whose actors vary: an intersection collision of a car and a bicycle
      or of two cars); the first is the one an absent-type hypothesis names.
    slot_names: per event type, the template fields the non-silent actors fill, in order.
    positional: event types whose actors keep the event's order (both roles are people:
      the entrance's [first crosser, tailgater]); others are put in `category_order`.
    silent: categories an event involves but its templates do not name (the pallet).
    lasting: event types whose outcome stays in view after them (a fallen worker lies there, a
      picked pallet rides the forks): type -> the type that undoes it (None: nothing does), for
      `TimelineClip.shown`.
    """
    env: str
    domain: str
    spec_class: type
    events: Callable
    event_types: tuple[str, ...]
    nouns: dict[str, str]
    generic: dict[str, str]
    attributes: dict[str, tuple]
    category_order: tuple[str, ...]
    signatures: dict[str, tuple[tuple[str, ...], ...]]
    slot_names: dict[str, tuple[str, ...]]
    positional: frozenset[str] = frozenset()
    silent: frozenset[str] = frozenset()
    lasting: dict[str, str | None] = field(default_factory=dict)
    # Video QA: categories counted, (program -> event type) counts of distinct actors,
    # (program -> (event type, category or slot index, colour key, palette)), palettes' names
    counted: tuple[str, ...] = ()
    event_counts: dict[str, str] = field(default_factory=dict)
    actor_colour: dict[str, tuple] = field(default_factory=dict)
    palettes: dict[str, tuple[str, ...]] = field(default_factory=dict)


def _names(palettes: dict, *keys: str) -> tuple[str, ...]:
    return tuple(sorted({n for k in keys for n in palettes[k]}))


WAREHOUSE = Vocabulary(
    env="warehouse", domain="W", spec_class=warehouse.WarehouseSpec, events=warehouse.events,
    event_types=("near_miss", "collision", "pickup", "drop", "zone_entry", "fall"),
    nouns={"person": "worker", "forklift": "forklift", "amr": "AMR", "pallet": "pallet"},
    generic={"person": "a worker", "forklift": "a forklift", "amr": "an AMR", "pallet": "a pallet"},
    attributes={
        "person": (("vest", "the worker in the {} vest"), ("hat", "the worker in the {} hard hat"),
                   ("shirt", "the worker in the {} shirt"), ("trousers", "the worker in {} trousers")),
        "forklift": (("paint", "the {} forklift"), ("operator_vest", "the forklift with the driver in the {} vest")),
        "amr": (("paint", "the {} AMR"),),
        "pallet": (),
    },
    category_order=("person", "forklift", "amr", "pallet"),
    signatures={"near_miss": (("person", "forklift"),), "collision": (("forklift", "amr"),),
                "pickup": (("forklift", "pallet"),), "drop": (("forklift", "pallet"),),
                "zone_entry": (("person",),), "fall": (("person",),)},
    slot_names={"near_miss": ("person", "forklift"), "collision": ("first", "second"), "pickup": ("forklift",),
                "drop": ("forklift",), "zone_entry": ("person",), "fall": ("person",)},
    silent=frozenset({"pallet"}),
    lasting={"fall": None, "pickup": "drop", "drop": "pickup"},
    counted=("person", "forklift", "amr"),
    event_counts={"zone_count": "zone_entry"},
    actor_colour={"fall_hat": ("fall", "person", "hat", "hat"),
                  "zone_shirt": ("zone_entry", "person", "shirt", "shirt"),
                  "near_miss_paint": ("near_miss", "forklift", "paint", "forklift"),
                  "pickup_paint": ("pickup", "forklift", "paint", "forklift"),
                  "drop_paint": ("drop", "forklift", "paint", "forklift"),
                  "collision_amr_paint": ("collision", "amr", "paint", "amr")},
    palettes={k: tuple(sorted(v)) for k, v in warehouse.PALETTES.items()},
)

_ROAD_USERS = ("person", "bicycle", "motorcycle", "car")     # vulnerable first: a near miss's [road user, vehicle]

INTERSECTION = Vocabulary(
    env="intersection", domain="T", spec_class=intersection.IntersectionSpec, events=intersection.events,
    event_types=("collision", "near_miss", "stop_line_violation", "wrong_way", "jaywalking"),
    nouns={"person": "pedestrian", "car": "car", "motorcycle": "motorcycle", "bicycle": "cyclist"},
    generic={"person": "a pedestrian", "car": "a car", "motorcycle": "a motorcycle", "bicycle": "a cyclist"},
    attributes={
        "person": (("shirt", "the pedestrian in the {} shirt"), ("trousers", "the pedestrian in {} trousers"),
                   ("hair", "the pedestrian with {} hair")),
        "car": (("paint", "the {} car"), (("paint", "style"), "the {} {}")),
        "motorcycle": (("paint", "the {} motorcycle"), ("jacket", "the motorcyclist in the {} jacket"),
                       ("helmet", "the motorcyclist in the {} helmet")),
        "bicycle": (("frame", "the cyclist on the {} bicycle"), ("shirt", "the cyclist in the {} shirt"),
                    ("helmet", "the cyclist in the {} helmet")),
    },
    category_order=_ROAD_USERS,
    # intersection_events: a collision is any pair with a vehicle in it (two cars first: the rear-end
    # script's, the one an absent-type hypothesis names); a near miss is [vulnerable, motor vehicle]
    signatures={"collision": (("car", "car"), ("motorcycle", "car"), ("motorcycle", "motorcycle"), ("bicycle", "car"),
                              ("bicycle", "motorcycle"), ("bicycle", "bicycle"), ("person", "car"),
                              ("person", "motorcycle"), ("person", "bicycle")),
                "near_miss": tuple((v, m) for v in ("person", "bicycle") for m in ("car", "motorcycle")),
                "stop_line_violation": tuple((v,) for v in ("car", "motorcycle", "bicycle")),
                "wrong_way": tuple((v,) for v in ("bicycle", "car", "motorcycle")),
                "jaywalking": (("person",),)},
    slot_names={"collision": ("first", "second"), "near_miss": ("road_user", "vehicle"),
                "stop_line_violation": ("vehicle",), "wrong_way": ("vehicle",), "jaywalking": ("person",)},
    counted=("person", "car", "motorcycle", "bicycle"),
    event_counts={"jaywalk_count": "jaywalking"},
    actor_colour={"jaywalk_shirt": ("jaywalking", "person", "shirt", "shirt"),
                  "near_miss_shirt": ("near_miss", "person", "shirt", "shirt"),
                  "near_miss_car_paint": ("near_miss", "car", "paint", "car"),
                  "stop_line_car_paint": ("stop_line_violation", "car", "paint", "car"),
                  "wrong_way_frame": ("wrong_way", "bicycle", "frame", "frame")},
    palettes={**{k: tuple(sorted(v)) for k, v in intersection.PALETTES.items()}, "car": tuple(sorted(CAR_COLORS))},
)

ENTRANCE = Vocabulary(
    env="entrance", domain="S", spec_class=entrance.EntranceSpec, events=entrance.events,
    event_types=("badge_use", "tailgating", "unauthorized_entry", "loitering"),
    nouns={"person": "person"},
    generic={"person": "a person"},
    attributes={
        "person": ((("top", "param:top"), "the person in the {} {}"), ("trousers", "the person in {} trousers"),
                   ("backpack", "the person with the {} backpack"), ("briefcase", "the person with the {} briefcase"),
                   ("hair", "the person with {} hair")),
    },
    category_order=("person",),
    signatures={"badge_use": (("person",),), "tailgating": (("person", "person"),),
                "unauthorized_entry": (("person",),), "loitering": (("person",),)},
    slot_names={"badge_use": ("person",), "tailgating": ("first", "tailgater"),
                "unauthorized_entry": ("person",), "loitering": ("person",)},
    positional=frozenset({"tailgating"}),
    counted=("person",),
    event_counts={"badge_count": "badge_use"},
    actor_colour={"tailgater_top": ("tailgating", 1, "top", "top"),
                  "unauthorized_top": ("unauthorized_entry", "person", "top", "top"),
                  "loiterer_top": ("loitering", "person", "top", "top"),
                  "badge_trousers": ("badge_use", "person", "trousers", "trousers")},
    palettes={**{k: tuple(sorted(v)) for k, v in entrance.PALETTES.items()},
              "top": _names(entrance.PALETTES, "shirt", "coat")},
)

VOCABULARIES = {v.env: v for v in (WAREHOUSE, INTERSECTION, ENTRANCE)}


def vocabulary(env: str) -> Vocabulary:
    """The vocabulary of an environment; an unknown one is a one-line error."""
    try:
        return VOCABULARIES[env]
    except (KeyError, TypeError):
        raise ValueError(f"no timeline-task vocabulary for environment {env!r} "
                         f"(known: {', '.join(VOCABULARIES)})") from None
