"""What a scorer may look at: the scene's data, its exported mesh, a ray caster.

`spec` is the environment's own validated spec model (the farm passes the sampled
spec; a reader of a stored `SceneState` validates `state.spec` with
`Environment.spec_model` first), so scorers read typed fields and never re-validate.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geometry.raycast import Raycaster, SceneMesh
from geometry.scene import SceneSpec, SceneState


@dataclass
class SceneGeometry:
    spec: SceneSpec
    state: SceneState
    mesh: SceneMesh
    raycaster: Raycaster

    def __post_init__(self) -> None:
        if not isinstance(self.spec, SceneSpec):  # a raw dict would fail deep inside a scorer
            raise TypeError(f"SceneGeometry.spec must be a validated SceneSpec model, got {type(self.spec).__name__}")

    def object_id(self, name: str) -> int:
        return self.state.object_by_name(name).id


@dataclass
class RenderedFrame:
    """The frame as the model will see it, and the passes from the same camera."""

    image: np.ndarray          # (H, W, 3) uint8 after the phone ISP
    depth: np.ndarray          # (H, W) float32 planar depth, inf = background
    object_index: np.ndarray   # (H, W) int32
