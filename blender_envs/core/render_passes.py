"""One helper that renders a frame and returns numpy arrays.

Two Cycles renders from the same camera:
  * the beauty render (DOF, motion blur, the preset's samples) -> scene-linear RGB;
  * the pass render (pinhole, no motion blur, a 0.01 px pixel filter, `pass_samples`)
    -> planar depth and object index, one value per pixel centre, so depth and index
    agree exactly with each other and with the geometry exported for the scorers.
    Cycles writes depth and index from the first hit whatever its shader, so the pass
    render swaps every material for one unlit one (no shading, no light sampling):
    the same passes at a fifth of the cost (docs/design-notes.md, issue 15). Volume-only
    objects (fog) are hidden from camera rays there: a ray that scatters in the fog
    would leave its pixel without depth or index.
Compositor access is avoided altogether (the multilayer EXR of the render output holds
every pass), which keeps this file stable across Blender's node-API changes.
"""
from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass

import numpy as np

from blender_envs.core.bpy_env import bpy
from blender_envs.core.exr import channel, read_exr_channels
from blender_envs.core.settings import RenderSettings

BACKGROUND_DEPTH = 1e9  # Cycles writes ~1e10 where nothing is hit; we store +inf
PASS_MATERIAL = "scenebench_pass_render"  # the unlit material the pass render puts on every object


@dataclass
class FramePasses:
    linear_rgb: np.ndarray      # (H, W, 3) float32, scene-linear
    depth: np.ndarray           # (H, W) float32, metres along the optical axis, inf = background
    object_index: np.ndarray    # (H, W) int32, Blender pass_index, 0 = background
    render_s: float             # wall time of the beauty render
    pass_render_s: float        # wall time of the pass render


def _render_to(scene, path: str) -> float:
    scene.render.filepath = path
    t0 = time.perf_counter()
    bpy.ops.render.render(write_still=True)
    return time.perf_counter() - t0


def volume_only_objects(scene) -> list:
    """Objects that shade a volume and no surface (the intersection's fog box). A camera ray
    that scatters in one never reaches the surface behind it, so with one sample the passes
    lost a random share of their pixels (18% in a 0.02/m fog at the crossroads): the pass
    render hides them from camera rays. They have no surface, so nothing else changes."""
    def shades_volume_only(mat) -> bool:
        outs = [n for n in mat.node_tree.nodes if n.type == "OUTPUT_MATERIAL"] if mat.node_tree else []
        return bool(outs) and all(o.inputs["Volume"].is_linked and not o.inputs["Surface"].is_linked
                                  for o in outs)

    volume_only = {m.name for m in bpy.data.materials if shades_volume_only(m)}
    if not volume_only:   # most scenes: one pass over a few dozen materials, none over the objects
        return []

    def is_volume_only(ob) -> bool:
        mats = [slot.material.name for slot in getattr(ob, "material_slots", ()) if slot.material]
        return bool(mats) and all(m in volume_only for m in mats)
    return [ob for ob in scene.objects if is_volume_only(ob)]


def pass_material():
    """An unlit, black material (an emission of strength 0): shading it costs next to nothing,
    and nothing in it moves or hides a surface (no displacement, no transparency)."""
    mat = bpy.data.materials.get(PASS_MATERIAL)
    if mat is None:
        mat = bpy.data.materials.new(PASS_MATERIAL)
        mat.use_nodes = True
        nt = mat.node_tree
        nt.nodes.clear()
        emission = nt.nodes.new("ShaderNodeEmission")
        emission.inputs["Strength"].default_value = 0.0
        out = nt.nodes.new("ShaderNodeOutputMaterial")
        nt.links.new(emission.outputs["Emission"], out.inputs["Surface"])
    return mat


def render_frame(scene, quality: RenderSettings, seed: int | None = None,
                 tmp_dir: str | None = None) -> FramePasses:
    """Render the scene camera's current pose; returns RGB, depth and index arrays.

    `seed` (Cycles' noise seed) comes from the frame's own seed, so two views of one
    scene do not share a noise pattern and a rerun reproduces each frame exactly."""
    cam = scene.camera.data
    vl = scene.view_layers[0]
    ims = scene.render.image_settings
    c = scene.cycles
    if seed is not None:
        c.seed = seed
    with tempfile.TemporaryDirectory(dir=tmp_dir) as tmp:
        # beauty
        vl.use_pass_z = False
        vl.use_pass_object_index = False
        c.samples = quality.samples
        c.use_adaptive_sampling = True
        c.use_denoising = quality.denoise
        c.filter_width = 1.5
        ims.file_format = "OPEN_EXR"
        ims.color_mode = "RGB"
        ims.color_depth = "32"  # set after file_format: switching formats resets depth
        ims.exr_codec = "ZIP"
        beauty_path = os.path.join(tmp, "beauty.exr")
        render_s = _render_to(scene, beauty_path)
        ch = read_exr_channels(beauty_path)
        rgb = np.stack([channel(ch, k) for k in ("R", "G", "B")], axis=-1).astype(np.float32)

        # passes: pinhole, static, pixel-centre samples
        use_dof, use_mb = cam.dof.use_dof, scene.render.use_motion_blur
        cam.dof.use_dof = False
        scene.render.use_motion_blur = False
        vl.use_pass_z = True
        vl.use_pass_object_index = True
        c.samples = quality.pass_samples
        c.use_adaptive_sampling = False
        c.use_denoising = False
        c.filter_width = 0.01
        ims.file_format = "OPEN_EXR_MULTILAYER"
        ims.color_depth = "32"
        ims.exr_codec = "ZIP"
        pass_path = os.path.join(tmp, "passes.exr")
        volumes = {ob: ob.visible_camera for ob in volume_only_objects(scene)}
        vl.material_override = pass_material()
        for ob in volumes:
            ob.visible_camera = False
        try:
            pass_s = _render_to(scene, pass_path)
        finally:  # the camera's own DOF, motion blur and materials, even if the render raised
            cam.dof.use_dof, scene.render.use_motion_blur = use_dof, use_mb
            vl.material_override = None
            for ob, visible in volumes.items():
                ob.visible_camera = visible
        ch = read_exr_channels(pass_path)
        depth = channel(ch, "Depth.Z").astype(np.float32)
        depth[depth >= BACKGROUND_DEPTH] = np.inf
        index = np.rint(channel(ch, "IndexOB.X")).astype(np.int32)
    return FramePasses(rgb, depth, index, render_s, pass_s)
