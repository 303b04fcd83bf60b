"""Scorer of the `warehouse` clip environment: is a frame of the clip usable, and what is in it?

Scene-side term (before rendering): at least one agent's centre at t projects into the
frame. Frame-side term: at least one agent has object-index pixels. The ground truth
of a frame is its time and, per agent, the track entry of `geometry.tracks` (modal box
from the object-index pass, amodal box of its 3-D box, visible fraction by ray casting)
plus `body_box_xyxy`: the box of its projected body vertices, computed from the spec
alone (no render), which the tests hold against the modal box of unoccluded bodies.
"""
from __future__ import annotations

from blender_envs.infra.warehouse import projected_box
from geometry.scene import View
from scorers import clip_frames
from scorers.clip_frames import score_frame, score_scene
from scorers.context import RenderedFrame, SceneGeometry

__all__ = ["score_scene", "score_frame", "ground_truth"]


def ground_truth(geo: SceneGeometry, view: View, frame: RenderedFrame | None = None) -> dict:
    """The shared clip ground truth, each object with its category and spec-only body box."""
    return clip_frames.ground_truth_with_bodies(geo, view, frame, projected_box)
