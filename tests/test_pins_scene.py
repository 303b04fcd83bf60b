"""geometry.scene: a missing object is reported by name and scene (scorers surface this text)."""
from __future__ import annotations

import pytest

from geometry.scene import SceneObject, SceneState


def test_object_by_name_finds_the_first_and_names_what_is_missing():
    objs = [SceneObject(id=1, name="gauge", category="gauge", pass_index=1),
            SceneObject(id=2, name="roof", category="roof", pass_index=2)]
    state = SceneState(env="slope_gauge", scene_id="s07", spec={}, objects=objs, meshes="scenes/s07.npz")
    assert state.object_by_name("roof").id == 2
    with pytest.raises(KeyError) as err:
        state.object_by_name("rail")
    assert err.value.args[0] == "no object named 'rail' in scene s07"
