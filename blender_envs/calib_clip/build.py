"""Build a `CalibClipSpec` in Blender: agents stand at their pose at `BUILD_T`; the farm
moves them per sampled timestamp (blender_envs.core.motion)."""
from __future__ import annotations

import numpy as np

from blender_envs.calib_clip.spec import CalibClipSpec
from blender_envs.core import materials, primitives
from geometry.clip import BUILD_T
from geometry.scene import BuildInfo, SceneObject


def build(scene, spec: CalibClipSpec) -> BuildInfo:
    objects: list[SceneObject] = []

    def add(ob, category):
        objects.append(SceneObject(id=ob.pass_index, name=ob.name, category=category, pass_index=ob.pass_index))

    add(primitives.plane(scene, "ground", spec.ground_size, spec.ground_size, np.eye(4),
                         materials.principled("ground", spec.ground_color, 0.9), 1), "ground")
    for k, b in enumerate(spec.boxes):
        M = np.eye(4)
        M[:3, 3] = b.center
        add(primitives.box(scene, b.name, b.size, M, materials.principled(b.name, b.color, 0.5), 2 + k), "box")
    first = 2 + len(spec.boxes)
    for k, agent in enumerate(spec.timeline.agents):
        mat = materials.principled(agent.track_id, spec.agent_colors[agent.track_id], 0.4)
        add(primitives.box(scene, agent.track_id, agent.size, agent.pose(BUILD_T), mat, first + k), agent.category)
    materials.sun_and_sky(scene, spec.sun_elevation_deg, spec.sun_azimuth_deg)
    return BuildInfo(objects=objects)
