"""What a scorer may look at: the scene's data, its exported mesh, a ray caster."""
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

    def object_id(self, name: str) -> int:
        return self.state.object_by_name(name).id


@dataclass
class RenderedFrame:
    """The frame as the model will see it, and the passes from the same camera."""

    image: np.ndarray          # (H, W, 3) uint8 after the phone ISP
    depth: np.ndarray          # (H, W) float32 planar depth, inf = background
    object_index: np.ndarray   # (H, W) int32
