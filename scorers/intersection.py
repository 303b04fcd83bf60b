"""Scorer of the `intersection` clip environment: is a frame of the clip usable, and what is in it?

The shared clip terms (scorers.clip_frames): an agent's centre projects into the frame
(scene side), an agent has object-index pixels (frame side). The ground truth of a frame is
its time and, per road user, the `geometry.tracks` entry (modal box from the object-index
pass, amodal box, visible fraction) plus its `category` and `body_box_xyxy`, the box of its
projected body points computed from the spec alone, which the render test holds against the
modal box of unoccluded bodies.
"""
from __future__ import annotations

from blender_envs.infra.intersection import projected_box
from geometry.scene import View
from scorers import clip_frames
from scorers.clip_frames import score_frame, score_scene
from scorers.context import RenderedFrame, SceneGeometry

__all__ = ["score_scene", "score_frame", "ground_truth"]


def ground_truth(geo: SceneGeometry, view: View, frame: RenderedFrame | None = None) -> dict:
    """The shared clip ground truth, each object with its category and spec-only body box."""
    return clip_frames.ground_truth_with_bodies(geo, view, frame, projected_box)
