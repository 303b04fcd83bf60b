"""Cycles configuration: device discovery and choice (logged), quality presets."""
from __future__ import annotations

import logging

from blender_envs.core.bpy_env import bpy
from blender_envs.core.device_choice import GPU_PREFERENCE, DeviceChoice, choose_device
from blender_envs.core.settings import RenderSettings

log = logging.getLogger(__name__)


def available_devices() -> dict[str, list[str]]:
    """Ask Cycles for every backend's devices (the call also makes Cycles discover them)."""
    prefs = bpy.context.preferences.addons["cycles"].preferences
    found: dict[str, list[str]] = {}
    for backend in ("CPU",) + GPU_PREFERENCE:
        try:
            devices = prefs.get_devices_for_type(backend)
        except (TypeError, ValueError, RuntimeError):  # backend not compiled into this build
            continue
        names = [d.name for d in devices if d.type == backend]
        if names:
            found[backend] = names
    return found


def configure_device(scene, request: str) -> DeviceChoice:
    """Enable exactly the chosen backend's devices and point the scene at them."""
    choice = choose_device(request, available_devices())
    prefs = bpy.context.preferences.addons["cycles"].preferences
    if choice.backend != "CPU":
        prefs.compute_device_type = choice.backend
        for dev in prefs.get_devices_for_type(choice.backend):
            dev.use = dev.type == choice.backend
    else:
        prefs.compute_device_type = "NONE"
    scene.cycles.device = choice.cycles_device
    log.info("Cycles device: %s", choice.describe())
    return choice


def configure_cycles(scene, quality: RenderSettings, seed: int) -> None:
    """Quality preset and determinism knobs; the camera sets resolution itself."""
    r = scene.render
    r.engine = "CYCLES"
    r.resolution_percentage = 100
    r.film_transparent = False
    r.use_persistent_data = True
    if quality.threads > 0:
        r.threads_mode = "FIXED"
        r.threads = quality.threads
    else:
        r.threads_mode = "AUTO"
    c = scene.cycles
    c.samples = quality.samples
    c.use_adaptive_sampling = True
    c.adaptive_threshold = quality.adaptive_threshold
    c.max_bounces = quality.max_bounces
    c.seed = seed
    c.use_animated_seed = False
    c.use_denoising = quality.denoise
    if quality.denoise:
        c.denoiser = "OPENIMAGEDENOISE"
        c.denoising_input_passes = "RGB_ALBEDO_NORMAL"
    scene.view_settings.view_transform = "Standard"  # the ISP does the tone mapping
    scene.view_settings.look = "None"
