"""The pass render shades every surface with one unlit material (issue 15: a fifth of its
cost) and hides volume-only objects (fog) from camera rays. These renders check that the
first changes no depth or index value (against the same pass render with the scene's own
materials, on a calib scene); that a cube inside a fog box is whole in the index pass with
its exact depth (a ray that scattered in the fog left its pixel at 0 before); and that the
scene gets its materials and visibility back after the pass render, even one that raises."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import cycles_scene
from geometry.camera import look_at, pose_for_phone
from geometry.mesh_parts import box_part
from render_farm.seeds import rng_for

pytestmark = pytest.mark.render

QUALITY = dict(name="t", long_side_px=96, samples=2, pass_samples=1)


def _calib_scene():
    from blender_envs.calib.build import build
    from blender_envs.calib.spec import object_centers, sample_scene
    from blender_envs.core.camera_rig import apply_camera_pose
    from blender_envs.core.settings import RenderSettings

    spec = sample_scene(rng_for("test", "pass material"), "pm", 0)
    quality = RenderSettings(**QUALITY)
    scene = cycles_scene(quality)
    build(scene, spec)
    card = object_centers(spec)["card"]
    T = look_at(card + np.array([0.4, -1.2, 0.3]), card)
    apply_camera_pose(scene, pose_for_phone(spec.phone, "main", 1.0, "landscape", 96, T, "pinhole", None, 0.01))
    return scene, quality


def _box_scene(fog: bool, milk: bool = False):
    """A unit cube (pass index 1) 4 m in front of a camera, inside a fog box (index 0) if `fog`;
    `milk`: a second box, beside the first, with a surface and a volume (pass index 2)."""
    from blender_envs.core import shapes
    from blender_envs.core.bpy_env import bpy
    from blender_envs.calib.spec import sample_scene
    from blender_envs.core.camera_rig import apply_camera_pose
    from blender_envs.core.settings import RenderSettings

    quality = RenderSettings(**QUALITY)
    scene = cycles_scene(quality)
    solid = bpy.data.materials.new("solid")
    solid.use_nodes = True
    shapes.mesh_object(scene, "cube", box_part((-0.5, 3.5, -0.5), (0.5, 4.5, 0.5)), solid, 1)
    if fog:
        mat = bpy.data.materials.new("fog")
        mat.use_nodes = True
        nt = mat.node_tree
        nt.nodes.remove(nt.nodes["Principled BSDF"])
        vol = nt.nodes.new("ShaderNodeVolumeScatter")
        vol.inputs["Density"].default_value = 0.05
        nt.links.new(vol.outputs["Volume"], nt.nodes["Material Output"].inputs["Volume"])
        shapes.mesh_object(scene, "fog", box_part((-3, 1, -3), (3, 8, 3)), mat, 0)
        if milk:
            both = bpy.data.materials.new("milk")
            both.use_nodes = True
            nt = both.node_tree
            vol = nt.nodes.new("ShaderNodeVolumeScatter")
            nt.links.new(vol.outputs["Volume"], nt.nodes["Material Output"].inputs["Volume"])
            shapes.mesh_object(scene, "milk", box_part((1.0, 3.5, -0.5), (2.0, 4.5, 0.5)), both, 2)
    phone = sample_scene(rng_for("test", "pass material"), "pm", 0).phone
    T = look_at(np.array([0.0, 0.0, 0.0]), np.array([0.0, 4.0, 0.0]))
    apply_camera_pose(scene, pose_for_phone(phone, "main", 1.0, "landscape", 96, T, "pinhole", None, 0.01))
    return scene, quality


def test_unlit_pass_render_gives_the_same_depth_and_index_as_the_scenes_own_materials(monkeypatch):
    from blender_envs.core import render_passes

    scene, quality = _calib_scene()
    assert render_passes.volume_only_objects(scene) == []
    unlit = render_passes.render_frame(scene, quality, seed=3)
    monkeypatch.setattr(render_passes, "pass_material", lambda: None)   # the scene's own materials
    shaded = render_passes.render_frame(scene, quality, seed=3)
    assert np.isfinite(unlit.depth).mean() > 0.5 and len(np.unique(unlit.object_index)) >= 3
    np.testing.assert_array_equal(unlit.object_index, shaded.object_index)
    np.testing.assert_array_equal(unlit.depth, shaded.depth)
    np.testing.assert_array_equal(unlit.linear_rgb, shaded.linear_rgb)   # the beauty render is untouched
    assert scene.view_layers[0].material_override is None


def test_the_pass_material_is_unlit_and_black():
    from blender_envs.core.render_passes import PASS_MATERIAL, pass_material

    mat = pass_material()
    assert mat.name == PASS_MATERIAL and pass_material() is mat      # made once per Blender session
    kinds = sorted(n.type for n in mat.node_tree.nodes)
    assert kinds == ["EMISSION", "OUTPUT_MATERIAL"]
    emission = next(n for n in mat.node_tree.nodes if n.type == "EMISSION")
    assert emission.inputs["Strength"].default_value == 0.0
    out = next(n for n in mat.node_tree.nodes if n.type == "OUTPUT_MATERIAL")
    assert out.inputs["Surface"].is_linked and not out.inputs["Volume"].is_linked
    assert not out.inputs["Displacement"].is_linked


@pytest.mark.parametrize("fog", [False, True])
def test_a_cube_in_fog_is_whole_in_the_index_pass_at_its_own_depth(fog):
    from blender_envs.core.bpy_env import bpy
    from blender_envs.core.render_passes import render_frame, volume_only_objects

    scene, quality = _box_scene(fog)
    assert [ob.name for ob in volume_only_objects(scene)] == (["fog"] if fog else [])
    out = render_frame(scene, quality, seed=1)
    h, w = out.object_index.shape
    cube = out.object_index == 1
    assert cube[h // 2 - 8:h // 2 + 9, w // 2 - 8:w // 2 + 9].all()     # no pixel lost to the fog
    assert out.depth[cube] == pytest.approx(3.5, abs=1e-4)              # its near face, not the fog's wall at 1 m
    assert set(np.unique(out.object_index)) == {0, 1}
    assert np.isinf(out.depth[~cube]).all()
    if fog:
        assert bpy.data.objects["fog"].visible_camera                     # visible again for the beauty render


def test_an_object_with_a_surface_and_a_volume_stays_in_the_pass_render():
    from blender_envs.core.render_passes import render_frame, volume_only_objects

    scene, quality = _box_scene(fog=True, milk=True)
    assert [ob.name for ob in volume_only_objects(scene)] == ["fog"]
    out = render_frame(scene, quality, seed=1)
    assert set(np.unique(out.object_index)) == {0, 1, 2}


def test_a_pass_render_that_raises_gives_the_scene_its_materials_back(monkeypatch):
    from blender_envs.core import render_passes
    from blender_envs.core.bpy_env import bpy

    scene, quality = _box_scene(fog=True)
    real = render_passes._render_to
    seen = []

    def failing_pass_render(scene_, path):
        if path.endswith("passes.exr"):
            seen.append(scene_.view_layers[0].material_override)
            assert not bpy.data.objects["fog"].visible_camera
            raise RuntimeError("pass render failed")
        return real(scene_, path)

    monkeypatch.setattr(render_passes, "_render_to", failing_pass_render)
    with pytest.raises(RuntimeError, match="pass render failed"):
        render_passes.render_frame(scene, quality, seed=1)
    assert seen == [render_passes.pass_material()]                # the override was on for the pass render
    assert scene.view_layers[0].material_override is None
    assert bpy.data.objects["fog"].visible_camera


def test_the_crossroads_fog_is_the_one_object_the_pass_render_hides(tmp_path):
    """Scene 8 of seed 0 is a fog draw (0.020 /m): its fog box, and nothing else, is volume-only."""
    from blender_envs.core.render_passes import volume_only_objects
    from render_farm.job import build_scene, sample_spec
    from render_farm.plan import SceneJob

    job = SceneJob(env="intersection", root_seed=0, stratum="random", scene_index=8, scene_id="random-00008",
                   views=[0], run_dir=str(tmp_path), quality=QUALITY, device="cpu")
    assert sample_spec(job).lighting.fog_density == pytest.approx(0.020117)
    scene, _, _ = build_scene(job)
    assert [ob.name for ob in volume_only_objects(scene)] == ["fog"]
    assert len(scene.objects) == 50          # the crossroads, its road users and lamps: all but one stay
