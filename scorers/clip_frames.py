"""The frame terms and per-frame ground truth shared by the clip environments (calib_clip,
warehouse): whatever the scene, a frame of a clip is usable when an agent is in it, and what it
shows is each agent's track entry at the frame's time.

Scene-side term (before rendering): at least one agent's centre at t projects into the frame.
Frame-side term: at least one agent has object-index pixels. The ground truth of a frame is its
time and the per-agent track entries (geometry.tracks), which the farm gathers into the clip's JSON.
The spec of a clip environment has a `timeline` (geometry.timeline.Timeline).
"""
from __future__ import annotations

import numpy as np

from geometry.camera import project
from geometry.scene import View
from geometry.tracks import frame_objects
from scorers.context import RenderedFrame, SceneGeometry
from scorers.terms import TermResult, term


def clip_time(geo: SceneGeometry, view: View) -> float:
    """The time (s) of the clip frame a view renders."""
    return geo.spec.timeline.clip.timestamps()[view.view_index]  # type: ignore[attr-defined]


def track_object_ids(geo: SceneGeometry) -> dict[str, int]:
    """Track id -> the agent's object index in the exported scene."""
    return {a.track_id: geo.object_id(a.track_id) for a in geo.spec.timeline.agents}  # type: ignore[attr-defined]


def score_scene(geo: SceneGeometry, view: View) -> list[TermResult]:
    pose, t = view.pose, clip_time(geo, view)
    centres = np.array([a.position(t) for a in geo.spec.timeline.agents])  # type: ignore[attr-defined]
    uv, z = project(centres, pose.K_array(), pose.cam_to_world_array())
    inside = (z > 0) & (uv[:, 0] >= -0.5) & (uv[:, 0] < pose.width - 0.5) & (uv[:, 1] >= -0.5) & \
        (uv[:, 1] < pose.height - 0.5)
    return [term("agents_in_frame", "scene", int(inside.sum()), ">=", 1)]


def score_frame(geo: SceneGeometry, view: View, frame: RenderedFrame) -> list[TermResult]:
    seen = sum(int((frame.object_index == oid).any()) for oid in track_object_ids(geo).values())
    return [term("agents_visible", "frame", seen, ">=", 1)]


def ground_truth(geo: SceneGeometry, view: View, frame: RenderedFrame | None = None) -> dict:
    timeline = geo.spec.timeline  # type: ignore[attr-defined]
    pose, t = view.pose, clip_time(geo, view)
    objects = frame_objects(timeline.agents, track_object_ids(geo), geo.mesh, t, pose.K_array(),
                            pose.cam_to_world_array(), pose.width, pose.height,
                            None if frame is None else frame.object_index)
    return {"t": t, "frame_number": timeline.clip.frame_numbers()[view.view_index], "objects": objects}


def ground_truth_with_bodies(geo: SceneGeometry, view: View, frame: RenderedFrame | None,
                             projected_box) -> dict:
    """`ground_truth`, each object with its agent's category and `body_box_xyxy`: the box of
    its projected body vertices at t from the spec alone (`projected_box(spec, track_id, t, K,
    cam_to_world, width, height)`, the scene's own), which render tests hold against the
    modal box of unoccluded bodies. What the VANTAGE scenes' scorers share."""
    spec = geo.spec
    gt = ground_truth(geo, view, frame)
    pose = view.pose
    K, T = pose.K_array(), pose.cam_to_world_array()
    for o in gt["objects"]:
        o["category"] = spec.timeline.agent(o["track_id"]).category
        o["body_box_xyxy"] = projected_box(spec, o["track_id"], gt["t"], K, T, pose.width, pose.height)
    return gt
