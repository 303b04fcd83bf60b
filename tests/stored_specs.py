"""Specs stored as drawn by one generator version, for the task generators' pins.

The pins of the VANTAGE task generators on the crossroads (test_pins_vantage_box_domains.py,
test_pins_vantage_items_domains.py, test_pins_vantage_timeline_domains.py) work their expected
values out from one spec's looks, trajectories and events. Drawn afresh, every change of the
intersection generator redrew those specs and churned pins about the task rules; stored, they
stay the scenes the pins name, and the generator's own tests (test_intersection.py,
test_vantage_timeline_domains.py) check the current draw. The files in tests/data/specs/ are
`IntersectionSpec.model_dump_json()` of intersection-3's draws (stop 32):
  intersection_pins_s1   sample_scene(rng_for("pins", 1), "s1", 1)
  intersection_test_s1   sample_scene(rng_for("test_intersection", 1, "scene"), "s1", 1)
  intersection_test_s2   sample_scene(rng_for("test_intersection", 2, "scene"), "s2", 2)
They load through the current schema, so a schema change still fails here first.
"""
from __future__ import annotations

from pathlib import Path

from blender_envs.infra.intersection import IntersectionSpec

SPECS = Path(__file__).parent / "data" / "specs"


def stored_intersection(name: str) -> IntersectionSpec:
    return IntersectionSpec.model_validate_json((SPECS / f"{name}.json").read_text())
