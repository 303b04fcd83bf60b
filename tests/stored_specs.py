"""Specs stored as drawn by one generator version, for the task generators' pins.

The pins of the VANTAGE task generators on the crossroads and the entrance
(test_pins_vantage_box_domains.py, test_pins_vantage_items_domains.py,
test_pins_vantage_timeline_domains.py) work their expected values out from one spec's looks,
trajectories and events. Drawn afresh, every change of a generator redrew those specs and
churned pins about the task rules; stored, they stay the scenes the pins name, and the
generators' own tests (test_intersection.py, test_entrance.py, test_vantage_timeline_domains.py)
check the current draws. The files in tests/data/specs/ are `model_dump_json()` of these draws
(stop 32), by intersection-3 and entrance-3:
  intersection_pins_s1   intersection.sample_scene(rng_for("pins", 1), "s1", 1)
  intersection_test_s1   intersection.sample_scene(rng_for("test_intersection", 1, "scene"), "s1", 1)
  intersection_test_s2   intersection.sample_scene(rng_for("test_intersection", 2, "scene"), "s2", 2)
  entrance_pins_s2       entrance.sample_scene(rng_for("pins", 2), "s2", 2)
  entrance_test_s1       entrance.sample_scene(rng_for("test_entrance", 1, "scene"), "s1", 1)
  entrance_test_s3       entrance.sample_scene(rng_for("test_entrance", 3, "scene"), "s3", 3)
They load through the current schemas, so a schema change still fails here first.
"""
from __future__ import annotations

from pathlib import Path

from blender_envs.infra.entrance import EntranceSpec
from blender_envs.infra.intersection import IntersectionSpec

SPECS = Path(__file__).parent / "data" / "specs"


def stored_intersection(name: str) -> IntersectionSpec:
    return IntersectionSpec.model_validate_json((SPECS / f"{name}.json").read_text())


def stored_entrance(name: str) -> EntranceSpec:
    return EntranceSpec.model_validate_json((SPECS / f"{name}.json").read_text())
