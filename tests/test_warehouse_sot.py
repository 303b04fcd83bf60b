"""warehouse_sot without Blender: the tracking movers it adds (`warehouse._roamers`) make no
event and move from the clip's start, and the SOT target rule (`single_object_tracking.
pick_targets`) on a seeded spec's projected boxes picks pinned targets. The projected box of
an unoccluded body stands in for the rendered modal box (racks hide nothing here)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from blender_envs.infra import warehouse, warehouse_sot
from blender_envs.infra.warehouse import projected_box
from geometry.clip import camera_pose
from packagers.vantage_tasks import box_scene as B
from packagers.vantage_tasks import single_object_tracking as S
from render_farm.seeds import rng_for

FPS = 30


def _draw(seed: int, roamers: int):
    return warehouse.sample_scene(rng_for("test_warehouse_sot", seed, "scene"), f"s{seed}", seed, roamers=roamers)


@pytest.fixture(scope="module")
def pair():
    """(without, with roamers) from the same stream, seed 0."""
    return _draw(0, 0), _draw(0, warehouse_sot.ROAMERS)


def test_roamers_come_last_move_at_once_and_make_no_event(pair):
    base, more = pair
    n = len(base.timeline.agents)
    assert [a.model_dump() for a in more.timeline.agents[:n]] == [a.model_dump() for a in base.timeline.agents]
    assert more.scripts == base.scripts and more.lighting == base.lighting
    roam = more.timeline.agents[n:]
    assert [a.track_id for a in roam] == ROAMER_IDS
    for a in roam:
        assert np.linalg.norm(a.velocity(1.2)[:2]) > 0.5                        # moving by 1.1 s (<= 0.5 s wait + 0.6 s ramp)
        turn = a.trajectory.path.segments[1]
        assert abs(turn.angle_deg) == 90.0
    evs = warehouse.events(more)
    assert sorted((e.type, tuple(sorted(e.actors))) for e in evs) == sorted(
        (s.type, tuple(sorted(s.actors))) for s in more.scripts if s.positive)
    assert all(not set(e.actors) & {a.track_id for a in roam} for e in evs)
    # the clutter a roamer would run into is gone, nothing else
    kept = {tuple(c.position) for c in more.clutter}
    assert kept <= {tuple(c.position) for c in base.clutter}


ROAMER_IDS = ["person_6"]       # 1 of 4 tried roamers fits among seed 0's 10 agents


def _projected_clip(spec, long_side: int = 160) -> B.Clip:
    """A clip file written from the projected body boxes (every body wholly visible)."""
    frames = []
    for i, n in enumerate(warehouse_sot.SOT_FRAMES):
        t = n / FPS
        pose = camera_pose(spec.timeline.camera, t, long_side)
        K, T = pose.K_array(), pose.cam_to_world_array()
        objs = []
        for a in spec.timeline.agents:
            box = projected_box(spec, a.track_id, t, K, T, pose.width, pose.height)
            px = 0 if box is None else int((box[2] - box[0] + 1) * (box[3] - box[1] + 1))
            objs.append({"track_id": a.track_id, "category": a.category, "box_xyxy": box, "visible_px": px,
                         "visible_fraction": 1.0, "center_world": [float(v) for v in a.position(t)]})
        frames.append({"index": i, "t": t, "frame_number": n, "image": f"frames/x-{i:02d}.jpg", "objects": objs,
                       "camera": {"K": K.tolist(), "cam_to_world": T.tolist(), "width": pose.width,
                                  "height": pose.height}})
    doc = {"clip_id": "warehouse_sot-test-0", "env": "warehouse_sot", "scene_id": spec.scene_id, "fps": FPS,
           "duration_s": spec.timeline.clip.duration_s, "frames": frames}
    return B.Clip(run_dir=Path("/nonexistent"), doc=doc, spec=spec)


def test_sot_targets_of_a_seeded_spec():
    spec = warehouse_sot.sample_scene(rng_for("test_warehouse_sot", 1, "scene"), "s1", 1)
    assert spec.timeline.clip.sampling.frames == warehouse_sot.SOT_FRAMES
    clip = _projected_clip(spec)
    items = S.items_for_clip(clip, [(8, 15)])
    got = [(it.tags["target"], it.tags["motion"], it.tags["motion_range"]) for it in items]
    assert got == SEEDED_TARGETS
    # every clear mover of frame 0 that stands still over the 8 frames is left out
    first = clip.frame_by_number(0)
    clear = [t.track_id for t in B.frame_things(clip, first) if t.category in S.OBJECT_TYPES
             and t.clear(B.min_visible_px(160, 120))]
    assert [c for c in clear if c not in {g[0] for g in got}] == SEEDED_STILL


# seed 1 (16 agents, no roamer fits): the two forklifts driving in the first 1.5 s; forklift_1 and forklift_4
# only set off in it (0.29 m and 0.15 m by 1.5 s: their passes are timed onto shown frames), the workers and
# the AMR wait
SEEDED_TARGETS = [("forklift_2", "fast_motion", 127.34), ("forklift_5", "fast_motion", 89.945)]
SEEDED_STILL = ["person_1", "forklift_1", "person_2", "person_4", "person_5", "person_6", "amr_1", "forklift_4",
                "person_7"]
