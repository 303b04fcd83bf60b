"""`calib`: the convention-test environment (known geometry)."""
from blender_envs.calib.spec import GENERATOR_VERSION, CalibSpec, sample_scene, sample_view
from blender_envs.registry import Environment

ENV = Environment(
    name="calib",
    family="calib",
    version=GENERATOR_VERSION,
    views_per_scene=4,
    sample_scene=sample_scene,
    sample_view=sample_view,
    builder="blender_envs.calib.build:build",
    scorer="scorers.calib",
    spec_model=CalibSpec,
)
