"""Apply a `CameraPose` (OpenCV data) to a Blender camera: intrinsics, DOF, shake.

Every view gets a freshly created camera and sets every scene-level knob it uses
(motion blur, shutter, frame) on both branches, so a view renders the same whether it
is the first view of a fresh worker (a resume or retry) or follows other views; a
camera reused across views kept e.g. the quaternion rotation mode of an earlier shake
view and changed the depth of the views after it.
"""
from __future__ import annotations

import numpy as np

from blender_envs.core.bpy_env import bpy  # first: it makes mathutils/bmesh importable
from mathutils import Matrix  # noqa: E402
from blender_envs.core.motion import set_shutter_motion  # noqa: E402
from geometry.camera import CameraPose, blender_camera_from_pose, cv_to_blender_matrix

CAMERA_NAME = "scenebench_camera"


def _fresh_camera(scene):
    """Remove the previous view's camera (object, data, keyframes) and make a new one."""
    old = bpy.data.objects.get(CAMERA_NAME)
    if old is not None:
        data = old.data
        action = old.animation_data.action if old.animation_data is not None else None
        bpy.data.objects.remove(old, do_unlink=True)
        if data is not None and data.users == 0:
            bpy.data.cameras.remove(data)
        if action is not None and action.users == 0:
            bpy.data.actions.remove(action)
    cam = bpy.data.objects.new(CAMERA_NAME, bpy.data.cameras.new(CAMERA_NAME))
    scene.collection.objects.link(cam)
    return cam


def apply_camera_pose(scene, pose: CameraPose):
    """Create the scene camera so Blender renders exactly `pose`, and nothing of earlier views.

    Hand shake is camera motion over the shutter: keyframes at frame 1 (shutter open)
    and frame 2 (close), with a one-frame shutter starting at frame 1.
    """
    scene.frame_set(1)
    cam = _fresh_camera(scene)
    scene.camera = cam
    data = cam.data
    bc = blender_camera_from_pose(pose)
    data.type = "PERSP"
    data.sensor_fit = bc.sensor_fit
    data.sensor_width = bc.sensor_width_mm
    data.sensor_height = bc.sensor_height_mm
    data.lens = bc.lens_mm
    data.shift_x = bc.shift_x
    data.shift_y = bc.shift_y
    data.clip_start = 0.005
    data.clip_end = 2000.0
    scene.render.resolution_x = pose.width
    scene.render.resolution_y = pose.height
    scene.render.pixel_aspect_x = scene.render.pixel_aspect_y = 1.0

    if pose.focus_distance_m is not None:
        data.dof.use_dof = True
        data.dof.focus_distance = float(pose.focus_distance_m)
        data.dof.aperture_fstop = float(pose.lens.fnumber)
        data.dof.aperture_blades = 0
    else:
        data.dof.use_dof = False

    start = Matrix(cv_to_blender_matrix(np.asarray(pose.cam_to_world)).tolist())
    cam.matrix_world = start
    scene.render.motion_blur_position = "START"
    scene.render.motion_blur_shutter = 1.0
    if pose.shake_end_cam_to_world is not None:
        set_shutter_motion(scene, cam.name, cv_to_blender_matrix(np.asarray(pose.cam_to_world)),
                           cv_to_blender_matrix(np.asarray(pose.shake_end_cam_to_world)))
        scene.render.use_motion_blur = True
    else:
        scene.render.use_motion_blur = False
    scene.frame_set(1)
    return cam
