"""Build a `WireAdequacySpec`: the shared roof as it is; its wires already hang with
their drawn sag and rest on the roof where the sag reaches it (`roof_spec.wire_paths`)."""
from __future__ import annotations

from blender_envs.solar.roof_build import build_roof
from blender_envs.solar.wire_adequacy import WireAdequacySpec
from geometry.scene import BuildInfo


def build(scene, spec: WireAdequacySpec) -> BuildInfo:
    return build_roof(scene, spec.roof)
