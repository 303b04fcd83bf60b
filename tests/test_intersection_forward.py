"""intersection_forward without Blender: the forward camera rides its ego car's lane path just
ahead of the front bumper (checked against the ego's own pose), never sees the ego, and the
draw is the intersection's (same events)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from blender_envs.infra import intersection
from blender_envs.infra.intersection_forward import AHEAD_M, ego_car, sample_scene
from geometry.clip import camera_pose
from render_farm.seeds import rng_for


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_camera_rides_ahead_of_the_ego_and_never_sees_it(seed):
    spec = sample_scene(rng_for("test_intersection_forward", seed, "scene"), f"s{seed}", seed)
    cam = spec.timeline.camera
    assert cam.kind == "carried" and spec.env == "intersection_forward" and 90.0 <= cam.hfov_deg <= 110.0
    ego = ego_car(spec)
    d0 = float(np.linalg.norm(np.asarray(spec.centre) - ego.position(0.0)[:2]))
    assert 12.0 <= d0 <= 80.0
    seen = 0
    for t in spec.timeline.clip.timestamps():
        M = ego.pose(t)
        front = M[:3, 3] + M[:3, 0] * (ego.size[0] / 2 + AHEAD_M)
        pose = camera_pose(cam, t, 160)
        T = pose.cam_to_world_array()
        assert np.allclose(T[:2, 3], front[:2], atol=1e-5) and 1.2 <= T[2, 3] <= 1.5
        assert intersection.projected_box(spec, ego.track_id, t, pose.K_array(), T, pose.width, pose.height) is None
        others = [a for a in spec.timeline.agents if a.track_id != ego.track_id]
        seen += sum(intersection.projected_box(spec, a.track_id, t, pose.K_array(), T, pose.width, pose.height)
                    is not None for a in others)
        assert math.degrees(math.atan2(-T[2, 2], math.hypot(T[0, 2], T[1, 2]))) == pytest.approx(cam.depression_deg,
                                                                                                   abs=1e-6)
    assert seen >= 1


def test_same_scene_as_the_cctv_draw_but_the_camera():
    rng = rng_for("test_intersection_forward", 0, "scene")
    fwd = sample_scene(rng, "s0", 0)
    cctv = intersection.sample_scene(rng_for("test_intersection_forward", 0, "scene"), "s0", 0)
    assert ego_car(cctv) is not None       # the first draw has an ego: identical but for env and camera
    assert fwd.model_dump(exclude={"env", "timeline"}) == cctv.model_dump(exclude={"env", "timeline"})
    assert fwd.timeline.agents == cctv.timeline.agents and fwd.timeline.clip == cctv.timeline.clip
    assert fwd.timeline.camera != cctv.timeline.camera
