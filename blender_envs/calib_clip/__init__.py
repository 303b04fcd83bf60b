"""`calib_clip`: the clip convention-test environment (exactly known motion)."""
from blender_envs.calib_clip.spec import (FRAMES_PER_CLIP, GENERATOR_VERSION, CalibClipSpec, events, sample_scene,
                                          sample_view, timeline)
from blender_envs.registry import Environment

ENV = Environment(
    name="calib_clip",
    family="calib",
    version=GENERATOR_VERSION,
    views_per_scene=FRAMES_PER_CLIP,
    sample_scene=sample_scene,
    sample_view=sample_view,
    builder="blender_envs.calib_clip.build:build",
    scorer="scorers.calib_clip",
    spec_model=CalibClipSpec,
    timeline=timeline,
    events=events,
    isp="cctv",
)
