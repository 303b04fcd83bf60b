"""scorers.context.SceneGeometry: only a validated spec model is accepted (a raw dict would
fail deep inside a scorer), and object ids come from the scene state by name."""
from __future__ import annotations

import pytest

from geometry.scene import SceneObject, SceneSpec, SceneState
from scorers.context import SceneGeometry


def _state():
    objs = [SceneObject(id=3, name="tape_blade", category="tape", pass_index=3),
            SceneObject(id=7, name="module_glass_r0_c0", category="module_glass", pass_index=7)]
    return SceneState(env="calib", scene_id="s0", spec={}, objects=objs, meshes="scenes/s0.npz")


def test_object_id_by_name():
    geo = SceneGeometry(spec=SceneSpec(env="calib", scene_id="s0", seed=1), state=_state(), mesh=None,
                        raycaster=None)
    assert geo.object_id("tape_blade") == 3 and geo.object_id("module_glass_r0_c0") == 7
    with pytest.raises(KeyError):
        geo.object_id("nothing")


def test_a_raw_dict_spec_is_refused():
    with pytest.raises(TypeError, match="SceneGeometry.spec must be a validated SceneSpec model, got dict"):
        SceneGeometry(spec={"env": "calib"}, state=_state(), mesh=None, raycaster=None)
