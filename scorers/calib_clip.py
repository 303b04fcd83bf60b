"""Scorer of the `calib_clip` environment: is a frame of the clip usable, and what is in it?

The shared clip terms and ground truth of `scorers.clip_frames`, unchanged: at least one agent's
centre projects into the frame (scene side), at least one agent has object-index pixels (frame
side), and per frame its time and the agents' track entries (geometry.tracks).
"""
from __future__ import annotations

from scorers.clip_frames import ground_truth, score_frame, score_scene

__all__ = ["score_scene", "score_frame", "ground_truth"]
