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
from scorers.context import SceneGeometry

SPEC = sample_scene(rng_for("test_pins_warehouse_scorer", 0, "scene"), "s0", 0)
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
    """With the object-index pass, the first agent's pixels (a 3 x 2 block at u 5..7, v 4..5) are
    its modal box and pixel count; the other agents show none; without the pass both are None."""
    from scorers.context import RenderedFrame

    view = sample_view(SPEC, None, 0, WIDTH)
    h, w = view.pose.height, view.pose.width
    idx = np.zeros((h, w), np.int32)
    first = SPEC.timeline.agents[0].track_id
    idx[4:6, 5:8] = GEO.object_id(first)
    frame = RenderedFrame(image=np.zeros((h, w, 3), np.uint8), depth=np.full((h, w), np.inf, np.float32),
                          object_index=idx)
    gt = warehouse.ground_truth(GEO, view, frame)
    by_id = {o["track_id"]: o for o in gt["objects"]}
    assert by_id[first]["box_xyxy"] == [5.0, 4.0, 7.0, 5.0] and by_id[first]["visible_px"] == 6
    assert all(o["box_xyxy"] is None and o["visible_px"] == 0 for t, o in by_id.items() if t != first)
    blind = {o["track_id"]: o for o in warehouse.ground_truth(GEO, view)["objects"]}
    assert blind[first]["box_xyxy"] is None and blind[first]["visible_px"] is None
    assert by_id[first]["body_box_xyxy"] == blind[first]["body_box_xyxy"]
