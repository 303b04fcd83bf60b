"""Scorer of the `warehouse` clip environment: is a frame of the clip usable, and what is in it?

Scene-side term (before rendering): at least one agent's centre at t projects into the
frame. Frame-side term: at least one agent has object-index pixels. The ground truth
of a frame is its time and, per agent, the track entry of `geometry.tracks` (modal box
from the object-index pass, amodal box of its 3-D box, visible fraction by ray casting)
plus `body_box_xyxy`: the box of its projected body vertices, computed from the spec
alone (no render), which the tests hold against the modal box of unoccluded bodies.
"""
from __future__ import annotations

import numpy as np

from blender_envs.infra.warehouse import WarehouseSpec, projected_box
from geometry.camera import project
from geometry.scene import View
from geometry.tracks import frame_objects
from scorers.context import RenderedFrame, SceneGeometry
from scorers.terms import TermResult, term


def _t(geo: SceneGeometry, view: View) -> float:
    spec: WarehouseSpec = geo.spec  # type: ignore[assignment]
    return spec.timeline.clip.timestamps()[view.view_index]


def _ids(geo: SceneGeometry) -> dict[str, int]:
    spec: WarehouseSpec = geo.spec  # type: ignore[assignment]
    return {a.track_id: geo.object_id(a.track_id) for a in spec.timeline.agents}


def score_scene(geo: SceneGeometry, view: View) -> list[TermResult]:
    spec: WarehouseSpec = geo.spec  # type: ignore[assignment]
    pose, t = view.pose, _t(geo, view)
    centres = np.array([a.position(t) for a in spec.timeline.agents])
    uv, z = project(centres, pose.K_array(), pose.cam_to_world_array())
    inside = (z > 0) & (uv[:, 0] >= -0.5) & (uv[:, 0] < pose.width - 0.5) & (uv[:, 1] >= -0.5) & \
        (uv[:, 1] < pose.height - 0.5)
    return [term("agents_in_frame", "scene", int(inside.sum()), ">=", 1)]


def score_frame(geo: SceneGeometry, view: View, frame: RenderedFrame) -> list[TermResult]:
    seen = sum(int((frame.object_index == oid).any()) for oid in _ids(geo).values())
    return [term("agents_visible", "frame", seen, ">=", 1)]


def ground_truth(geo: SceneGeometry, view: View, frame: RenderedFrame | None = None) -> dict:
    spec: WarehouseSpec = geo.spec  # type: ignore[assignment]
    pose, t = view.pose, _t(geo, view)
    K, T = pose.K_array(), pose.cam_to_world_array()
    objects = frame_objects(spec.timeline.agents, _ids(geo), geo.mesh, t, K, T, pose.width, pose.height,
                            None if frame is None else frame.object_index)
    for o in objects:
        o["category"] = spec.timeline.agent(o["track_id"]).category
        o["body_box_xyxy"] = projected_box(spec, o["track_id"], t, K, T, pose.width, pose.height)
    return {"t": t, "frame_number": spec.timeline.clip.frame_numbers()[view.view_index], "objects": objects}
