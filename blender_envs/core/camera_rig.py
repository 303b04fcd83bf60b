"""Apply a `CameraPose` (OpenCV data) to a Blender camera: intrinsics, DOF, shake."""
from __future__ import annotations

import numpy as np

from blender_envs.core.bpy_env import bpy  # first: it makes mathutils/bmesh importable
from mathutils import Matrix  # noqa: E402
from geometry.camera import CameraPose, blender_camera_from_pose, cv_to_blender_matrix


def apply_camera_pose(scene, pose: CameraPose):
    """Create/refresh the scene camera so Blender renders exactly `pose`.

    Hand shake is camera motion over the shutter: keyframes at frame 1 (shutter open)
    and frame 2 (close), with a one-frame shutter starting at frame 1.
    """
    cam = scene.objects.get("scenebench_camera")
    if cam is None:
        cam = bpy.data.objects.new("scenebench_camera", bpy.data.cameras.new("scenebench_camera"))
        scene.collection.objects.link(cam)
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

    if cam.animation_data is not None:
        cam.animation_data_clear()
    start = Matrix(cv_to_blender_matrix(np.asarray(pose.cam_to_world)).tolist())
    scene.frame_set(1)
    cam.matrix_world = start
    if pose.shake_end_cam_to_world is not None:
        end = Matrix(cv_to_blender_matrix(np.asarray(pose.shake_end_cam_to_world)).tolist())
        cam.rotation_mode = "QUATERNION"
        for frame, mat in ((1, start), (2, end)):
            loc, rot, _ = mat.decompose()
            cam.location, cam.rotation_quaternion = loc, rot
            cam.keyframe_insert("location", frame=frame)
            cam.keyframe_insert("rotation_quaternion", frame=frame)
        for fc in cam.animation_data.action.fcurves:
            for kp in fc.keyframe_points:
                kp.interpolation = "LINEAR"
        scene.render.use_motion_blur = True
        scene.render.motion_blur_position = "START"
        scene.render.motion_blur_shutter = 1.0
    else:
        scene.render.use_motion_blur = False
    scene.frame_set(1)
    return cam
