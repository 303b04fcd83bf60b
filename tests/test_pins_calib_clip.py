"""scorers.calib_clip on hand-made clips (no Blender): a camera at the world origin looking
along +z with axis-aligned axes, so every projection is exact in binary floating point.

K = [[32, 0, 31.5], [0, 32, 23.5], [0, 0, 1]] at 64 x 48: a point (x, y, z) in front of the
camera lands at u = 31.5 + 32 x / z, v = 23.5 + 32 y / z. The frame's pixel area is
-0.5 <= u < 63.5, -0.5 <= v < 47.5, so at depth z = 1:
  x = -1    -> u = -0.5  (on the left edge: inside)      x = 1    -> u = 63.5 (outside)
  y = -0.75 -> v = -0.5  (on the top edge: inside)       y = 0.75 -> v = 47.5 (outside)
The clip samples 8 frames every 15 frames at 30 fps: view 3 is frame 45, t = 1.5 s.
"""
from __future__ import annotations

import numpy as np
import pytest

import scorers.calib_clip as calib_clip
from blender_envs.calib_clip.spec import sample_scene
from geometry.clip import camera_pose
from geometry.raycast import Raycaster, SceneMesh
from geometry.scene import SceneObject, SceneState, View
from geometry.timeline import Agent
from scorers.context import RenderedFrame, SceneGeometry

BASE = sample_scene(np.random.default_rng(0), "s0", 0)
K = [[32.0, 0.0, 31.5], [0.0, 32.0, 23.5], [0.0, 0.0, 1.0]]
EYE = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]


def _agent(track_id, position=None, moving=None, size=(0.5, 0.5, 0.5)):
    """Stationary at `position`, or `moving` = (start_xy, z, speed) along +x."""
    if moving is None:
        traj = {"kind": "stationary", "position": list(position)}
    else:
        (x0, y0), z, v = moving
        traj = {"kind": "path", "path": {"start": [x0, y0], "heading_deg": 0.0,
                                         "segments": [{"kind": "line", "length": 50.0}]},
                "speed": {"times": [0.0], "speeds": [v]}, "z": z}
    return Agent.model_validate({"track_id": track_id, "category": "box", "mesh": "box", "size": list(size),
                                 "trajectory": traj})


def _box(center, size, oid):
    c, h = np.asarray(center, float), np.asarray(size, float) / 2
    V = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * h + c
    F = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    return V, F, np.full(len(F), oid)


def geo_of(agents, ids=None):
    """The spec with these agents; object ids 7, 8, ... in agent order unless given; each agent a
    box mesh where it stands at t = 0 (the build time, as the farm builds the scene)."""
    ids = ids or {a.track_id: 7 + i for i, a in enumerate(agents)}
    spec = BASE.model_copy(update={"timeline": BASE.timeline.model_copy(update={"agents": agents})})
    Vs, Fs, Os = [], [], []
    for a in agents:
        V, F, O = _box(a.position(0.0), a.size, ids[a.track_id])
        Fs.append(F + sum(len(v) for v in Vs))
        Vs.append(V)
        Os.append(O)
    mesh = SceneMesh(np.vstack(Vs), np.vstack(Fs), np.concatenate(Os), np.array([ids[a.track_id] for a in agents]),
                     np.array([a.track_id for a in agents]))
    objs = [SceneObject(id=ids[a.track_id], name=a.track_id, category="box", pass_index=ids[a.track_id])
            for a in agents]
    state = SceneState(env="calib_clip", scene_id="s0", spec=spec.model_dump(), objects=objs, meshes="scenes/s0.npz")
    return SceneGeometry(spec=spec, state=state, mesh=mesh, raycaster=Raycaster(mesh))


def view_at(index=0, width=64):
    pose = camera_pose(BASE.timeline.camera, 0.0, width).model_copy(
        update={"K": K, "cam_to_world": EYE, "shake_end_cam_to_world": None})
    assert (pose.width, pose.height) == (64, 48)
    return View(view_index=index, pose=pose, target="clip")


def frame_with(ids_at):
    """A 48 x 64 frame whose object-index pass has each id at one pixel."""
    idx = np.zeros((48, 64), np.int32)
    for oid, (row, col) in ids_at.items():
        idx[row, col] = oid
    return RenderedFrame(image=np.zeros((48, 64, 3), np.uint8), depth=np.full((48, 64), np.inf, np.float32),
                         object_index=idx)


def agents_in_frame(*positions):
    (t,) = calib_clip.score_scene(geo_of([_agent(f"a{i}", p) for i, p in enumerate(positions)]), view_at())
    assert (t.name, t.side, t.threshold) == ("agents_in_frame", "scene", ">= 1")
    return t


@pytest.mark.parametrize("position, inside", [
    ((0.0, 0.0, 1.0), True),            # image centre (31.5, 23.5)
    ((-1.0, 0.0, 1.0), True),           # u = -0.5: the left edge is in
    ((-1.015625, 0.0, 1.0), False),     # u = -1.0, half a pixel outside
    ((1.0, 0.0, 1.0), False),           # u = 63.5: the right edge is out
    ((0.984375, 0.0, 1.0), True),       # u = 63.0, half a pixel inside
    ((0.0, -0.75, 1.0), True),          # v = -0.5: the top edge is in
    ((0.0, -0.765625, 1.0), False),     # v = -1.0, half a pixel outside
    ((0.0, 0.75, 1.0), False),          # v = 47.5: the bottom edge is out
    ((0.0, 0.734375, 1.0), True),       # v = 47.0, half a pixel inside
    ((0.0, 0.0, 0.5), True),            # half a metre in front, still the centre
    ((1.0, 0.0, -1.0), False),          # behind the camera: projects to u = -0.5, but z < 0
    ((0.0, 0.0, -1.0), False),          # behind the camera at the centre pixel
    ((-1.5, 0.0, 2.0), True),           # u = 31.5 - 24 = 7.5
])
def test_agents_in_frame_edges(position, inside):
    t = agents_in_frame(position)
    assert t.value == int(inside)
    assert t.passed is inside


def test_agents_in_frame_counts_every_agent_inside():
    t = agents_in_frame((0.0, 0.0, 1.0), (-1.0, 0.0, 1.0), (1.0, 0.0, 1.0), (0.0, -0.75, 1.0), (0.0, 0.0, -2.0))
    assert t.value == 3 and t.passed


def test_agents_in_frame_at_the_view_time():
    """A mover from x = -4 at 2 m/s on the plane z = 1: at view 0 (t = 0) u = 31.5 - 128, out;
    at view 2 (frame 30, t = 1.0) x = -2, u = -32.5, out; at view 3 (t = 1.5) x = -1, u = -0.5, in."""
    geo = geo_of([_agent("m", moving=((-4.0, 0.0), 1.0, 2.0))])
    assert [calib_clip.score_scene(geo, view_at(i))[0].value for i in range(4)] == [0, 0, 0, 1]


def test_agents_visible_counts_agents_with_pixels():
    geo = geo_of([_agent("a", (0.0, 0.0, 3.0)), _agent("b", (1.0, 0.0, 3.0)), _agent("c", (-1.0, 0.0, 3.0))])
    view = view_at()

    def visible(ids_at):
        (t,) = calib_clip.score_frame(geo, view, frame_with(ids_at))
        assert (t.name, t.side, t.threshold) == ("agents_visible", "frame", ">= 1")
        return t.value, t.passed

    assert visible({}) == (0, False)
    assert visible({8: (0, 0)}) == (1, True)                   # b's one pixel at the corner
    assert visible({7: (47, 63), 9: (10, 10)}) == (2, True)
    assert visible({7: (1, 1), 8: (2, 2), 9: (3, 3), 4: (4, 4)}) == (3, True)   # id 4 is no agent
    assert visible({4: (5, 5)}) == (0, False)


def test_ground_truth_worked_example():
    """A 0.5 m cube from (-3, 0) at 2 m/s along +x, centre height z = 5 (5 m in front of the
    camera); at view 3 (t = 1.5 s) its centre is (0, 0, 5). Its near face (z = 4.75) spans
    x, y in [-0.25, 0.25]: u, v = 31.5, 23.5 -/+ 32 * 0.25 / 4.75 = 1.684211, rounded outwards at 1e-4."""
    geo = geo_of([_agent("m", moving=((-3.0, 0.0), 5.0, 2.0))])
    d = 32 * 0.25 / 4.75
    before = calib_clip.ground_truth(geo, view_at(3))
    assert (before["t"], before["frame_number"]) == (1.5, 45)
    (obj,) = before["objects"]
    assert obj["track_id"] == "m" and obj["object_id"] == 7
    assert obj["center_world"] == [0.0, 0.0, 5.0]
    assert obj["amodal_box_xyxy"] == pytest.approx([31.5 - d, 23.5 - d, 31.5 + d, 23.5 + d], abs=2e-4)
    assert obj["box_xyxy"] is None and obj["visible_px"] is None
    assert obj["visible_fraction"] > 0.15                       # the near face of six, nothing in between
    frame = frame_with({7: (23, 31)})
    (after,) = calib_clip.ground_truth(geo, view_at(3), frame)["objects"]
    assert after["box_xyxy"] == [31.0, 23.0, 31.0, 23.0] and after["visible_px"] == 1
    assert after["center_world"] == [0.0, 0.0, 5.0]
    # view 1 (frame 15, t = 0.5): centre x = -2, u = 31.5 - 12.8
    early = calib_clip.ground_truth(geo, view_at(1))
    assert (early["t"], early["frame_number"]) == (0.5, 15)
    assert early["objects"][0]["center_world"] == [-2.0, 0.0, 5.0]
