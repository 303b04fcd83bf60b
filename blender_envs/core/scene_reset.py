"""Start every scene build from an empty factory state (33-39 ms, frees the last scene)."""
from __future__ import annotations

from blender_envs.core.bpy_env import bpy


def reset_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 2
    scene.frame_set(1)
    return scene
