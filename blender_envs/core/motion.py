"""Rigid motion over the shutter for one object: keyframes at frame 1 (shutter open) and
frame 2 (close), linear (agents in a clip, and `camera_rig`'s camera shake), so a
one-frame Cycles shutter starting at frame 1 blurs exactly over [t, t + shutter]."""
from __future__ import annotations

import numpy as np

from blender_envs.core.bpy_env import bpy  # first: it makes mathutils importable
from mathutils import Matrix  # noqa: E402


def set_shutter_motion(scene, name: str, open_matrix: np.ndarray, close_matrix: np.ndarray) -> None:
    """Replace `name`'s animation by a linear move from `open_matrix` to `close_matrix`."""
    ob = bpy.data.objects[name]
    if ob.animation_data is not None and ob.animation_data.action is not None:
        action = ob.animation_data.action
        ob.animation_data_clear()
        if action.users == 0:
            bpy.data.actions.remove(action)
    ob.rotation_mode = "QUATERNION"
    poses = [Matrix(np.asarray(M, float).tolist()).decompose()[:2] for M in (open_matrix, close_matrix)]
    if poses[0][1].dot(poses[1][1]) < 0:  # the same rotation, the short way round (q and -q)
        poses[1] = (poses[1][0], -poses[1][1])
    for frame, (loc, rot) in zip((1, 2), poses):
        ob.location, ob.rotation_quaternion = loc, rot
        ob.keyframe_insert("location", frame=frame)
        ob.keyframe_insert("rotation_quaternion", frame=frame)
    for fc in ob.animation_data.action.fcurves:
        for kp in fc.keyframe_points:
            kp.interpolation = "LINEAR"
