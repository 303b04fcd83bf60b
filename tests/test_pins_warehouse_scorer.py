"""scorers.warehouse without Blender: the shared clip ground truth plus, per object, the agent's
category and its spec-only body box (the box of the projected body vertices), on a drawn clip whose
agents stand as box meshes where they are at t = 0 (as the farm builds the scene)."""
from __future__ import annotations

import numpy as np
import pytest

import scorers.warehouse as warehouse
from blender_envs.infra.warehouse import agent_vertices, sample_scene, sample_view
from geometry.camera import project
from geometry.raycast import Raycaster, SceneMesh
from geometry.scene import SceneObject, SceneState
from render_farm.seeds import rng_for
from scorers import clip_frames
from clip_scorer_checks import check_modal_box_from_the_index_pass
from scorers.context import SceneGeometry

SPEC = sample_scene(rng_for("test_pins_warehouse_scorer", 0, "scene"), "s0", 0, further=False)
WIDTH = 96


def _geo():
    agents = SPEC.timeline.agents
    ids = {a.track_id: 10 + i for i, a in enumerate(agents)}
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)
    faces = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                      [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    V, F, O = [], [], []
    for k, a in enumerate(agents):
        V.append(signs * np.asarray(a.size, float) / 2 + a.position(0.0))
        F.append(faces + 8 * k)
        O.append(np.full(len(faces), ids[a.track_id]))
    mesh = SceneMesh(np.vstack(V), np.vstack(F), np.concatenate(O), np.array(list(ids.values())),
                     np.array(list(ids)))
    objs = [SceneObject(id=i, name=t, category="agent", pass_index=i) for t, i in ids.items()]
    state = SceneState(env="warehouse", scene_id="s0", spec=SPEC.model_dump(), objects=objs, meshes="scenes/s0.npz")
    return SceneGeometry(spec=SPEC, state=state, mesh=mesh, raycaster=Raycaster(mesh))


GEO = _geo()


@pytest.mark.parametrize("index", [0, 3, 7])
def test_each_object_gets_its_category_and_the_box_of_its_projected_body(index):
    view = sample_view(SPEC, None, index, WIDTH)
    pose = view.pose
    assert pose.width == WIDTH and pose.height != pose.width     # a swapped width/height would show
    gt = warehouse.ground_truth(GEO, view)
    shared = clip_frames.ground_truth(GEO, view)
    assert (gt["t"], gt["frame_number"]) == (shared["t"], shared["frame_number"])
    assert gt["t"] == SPEC.timeline.clip.timestamps()[index]
    categories = {a.track_id: a.category for a in SPEC.timeline.agents}
    assert [o["track_id"] for o in gt["objects"]] == [o["track_id"] for o in shared["objects"]]
    seen = 0
    for o, s in zip(gt["objects"], shared["objects"]):
        assert o["category"] == categories[o["track_id"]]
        assert {k: v for k, v in o.items() if k not in ("category", "body_box_xyxy")} == s
        # independently: the body's vertices at the view's time, projected and clipped to pixel centres
        uv, z = project(agent_vertices(SPEC, o["track_id"], gt["t"]), pose.K_array(), pose.cam_to_world_array())
        uv = uv[z > 1e-3]
        box = o["body_box_xyxy"]
        if box is None:
            assert not len(uv) or uv[:, 0].max() < 0 or uv[:, 1].max() < 0 or \
                uv[:, 0].min() > pose.width - 1 or uv[:, 1].min() > pose.height - 1
            continue
        seen += 1
        lo = np.clip(uv.min(axis=0), 0, [pose.width - 1, pose.height - 1])
        hi = np.clip(uv.max(axis=0), 0, [pose.width - 1, pose.height - 1])
        assert box == pytest.approx([lo[0], lo[1], hi[0], hi[1]], abs=1e-3)
    assert seen >= 1


def test_a_rendered_frame_gives_each_object_its_modal_box_and_pixel_count():
    check_modal_box_from_the_index_pass(warehouse, SPEC, GEO, sample_view, WIDTH)
