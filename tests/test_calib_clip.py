"""calib_clip without Blender: the drawn clips keep VANTAGE's camera ranges, the near
miss is there exactly when it was planned (at hand-computed times), the per-frame
track helpers follow the box convention, and the mp4 writer is deterministic."""
from __future__ import annotations

import math

import numpy as np
import pytest

from blender_envs.calib_clip.spec import NEAR_MISS_M, STOP_XY, events, sample_scene, sample_view
from geometry.clip import MountedCamera, camera_pose
from geometry.raycast import SceneMesh
from geometry.timeline import Agent, Stationary
from geometry.tracks import amodal_box, frame_objects, modal_box
from render_farm.runner import RunSummary
from render_farm.seeds import rng_for
from render_farm.video import decode_mp4, encode_mp4, rgb_to_yuv420p

SEEDS = range(24)


def _spec(seed):
    return sample_scene(rng_for("test_calib_clip", seed, "scene"), f"s{seed}", seed)


def test_cameras_are_vantage_mounts():
    kinds = []
    for seed in SEEDS:
        spec = _spec(seed)
        cam = spec.timeline.camera
        kinds.append(cam.kind)
        for i in (0, 7):
            pose = sample_view(spec, None, i, 64).pose
            T = pose.cam_to_world_array()
            from_vertical = math.degrees(math.acos(-T[2, 2]))       # optical axis vs straight down
            assert 30.0 - 1e-6 <= from_vertical <= 60.0 + 1e-6
            assert 2.4 <= T[2, 3] <= 6.1
            assert abs(T[2, 0]) < 1e-9                               # no roll
            assert (pose.width, pose.height) == (64, 48)
            assert (pose.shake_end_cam_to_world is not None) == (cam.kind == "carried")
    assert 3 <= kinds.count("carried") <= 14                         # 30% of 24 clips, give or take


def test_near_miss_exactly_when_planned():
    planned = []
    for seed in SEEDS:
        spec = _spec(seed)
        evs = events(spec)
        planned.append(spec.near_miss_planned)
        assert not [e for e in evs if e.type == "collision"], seed
        near = [e for e in evs if e.type == "near_miss"]
        if spec.near_miss_planned:
            assert [e.actors for e in near] == [["line", "stop_go"]], seed
        else:
            assert near == [], seed
    assert 6 <= sum(planned) <= 18


def test_near_miss_times_hand_computed():
    """While stop_go stands at STOP_XY (1.75-3.0 s), line passes it at t_pass with lateral
    offset o at speed v: the centre distance is under 1.5 m for |t - t_pass| < sqrt(1.5^2 - o^2) / v."""
    checked = 0
    for seed in SEEDS:
        spec = _spec(seed)
        if not spec.near_miss_planned:
            continue
        line = spec.timeline.agent("line")
        v = line.trajectory.speed.speeds[0]
        start = line.trajectory.path.start
        t_pass, offset = (STOP_XY[0] - start[0]) / v, start[1] - STOP_XY[1]
        half = math.sqrt(NEAR_MISS_M ** 2 - offset ** 2) / v
        if not (1.75 <= t_pass - half and t_pass + half <= 3.0):
            continue                                             # stop_go moves during the approach
        (ev,) = [e for e in events(spec) if e.type == "near_miss"]
        assert abs(ev.t_start - (t_pass - half)) < 1 / 30 and abs(ev.t_end - (t_pass + half)) < 1 / 30
        assert ev.t_start == pytest.approx(t_pass - half, abs=1e-5)
        assert ev.t_end == pytest.approx(t_pass + half, abs=1e-5)
        checked += 1
    assert checked >= 3


def test_same_seed_same_clip():
    assert _spec(3).model_dump_json() == _spec(3).model_dump_json()
    assert _spec(3).timeline != _spec(4).timeline


# ------------------------------------------------------------------ per-frame track helpers

def test_modal_box_is_pixel_centres():
    idx = np.zeros((6, 8), np.int32)
    idx[2:4, 3:7] = 5
    idx[5, 0] = 9
    assert modal_box(idx, 5) == [3.0, 2.0, 6.0, 3.0]
    assert modal_box(idx, 9) == [0.0, 5.0, 0.0, 5.0]
    assert modal_box(idx, 4) is None


def _cam():
    return MountedCamera(position=[-4.0, 0.0], height_m=4.0, depression_deg=45.0, yaw_deg=0.0, hfov_deg=90.0,
                         shutter_s=0.01)


def test_amodal_box_hand_computed():
    pose = camera_pose(_cam(), 0.0, 64)                  # looks at (0, 0, 0) from 4 m up, 4 m back
    K, T = pose.K_array(), pose.cam_to_world_array()
    a = Agent(track_id="a", category="box", mesh="box", size=[0.0, 0.0, 0.0],
              trajectory=Stationary(position=[0.0, 0.0, 0.0]))
    assert amodal_box(a, 0.0, K, T, 64, 48) == [31.5, 23.5, 31.5, 23.5]   # a point at the image centre
    wide = Agent.model_validate({**a.model_dump(), "size": [0.0, 100.0, 0.0]})
    assert amodal_box(wide, 0.0, K, T, 64, 48) == [0.0, 23.5, 63.0, 23.5]  # clipped to the pixel centres
    behind = Agent.model_validate({**a.model_dump(), "trajectory": {"kind": "stationary", "position": [-10.0, 0.0, 0.0]}})
    assert amodal_box(behind, 0.0, K, T, 64, 48) is None


def _box_mesh(center, size, oid):
    c, h = np.asarray(center, float), np.asarray(size, float) / 2
    V = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * h + c
    F = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    return V, F, np.full(len(F), oid)


def test_frame_objects_moves_agents_and_ray_casts_visibility():
    agent = Agent(track_id="a", category="box", mesh="box", size=[0.5, 0.5, 0.5],
                  trajectory=Stationary(position=[0.0, 0.0, 0.25]))
    wall_V, wall_F, wall_o = _box_mesh([-1.0, 0.0, 1.0], [0.2, 4.0, 2.0], 2)   # between camera and agent
    a_V, a_F, a_o = _box_mesh([0.0, 0.0, 0.25], [0.5, 0.5, 0.5], 5)
    mesh = SceneMesh(np.vstack([wall_V, a_V]), np.vstack([wall_F, a_F + 8]), np.concatenate([wall_o, a_o]),
                     np.array([2, 5]), np.array(["wall", "a"]))
    pose = camera_pose(_cam(), 0.0, 64)
    K, T = pose.K_array(), pose.cam_to_world_array()
    (hidden,) = frame_objects([agent], {"a": 5}, mesh, 0.0, K, T, 64, 48, None)
    assert hidden["visible_fraction"] == 0.0 and hidden["box_xyxy"] is None and hidden["visible_px"] is None
    assert hidden["center_world"] == [0.0, 0.0, 0.25] and hidden["amodal_box_xyxy"] is not None
    # the same agent, moved 3 m to the side at t = 1 (built at t = 0), is out of the wall's shadow
    moving = Agent.model_validate({**agent.model_dump(), "trajectory": {"kind": "path", "path": {
        "start": [0.0, 0.0], "heading_deg": 90.0, "segments": [{"kind": "line", "length": 10.0}]},
        "speed": {"times": [0.0], "speeds": [3.0]}, "z": 0.25}})
    (seen,) = frame_objects([moving], {"a": 5}, mesh, 1.0, K, T, 64, 48, np.zeros((48, 64), np.int32))
    assert seen["center_world"] == [0.0, 3.0, 0.25]
    assert seen["visible_fraction"] > 0.3 and seen["visible_px"] == 0 and seen["box_xyxy"] is None


# ------------------------------------------------------------------ video and summary

def test_mp4_is_deterministic_and_keeps_frame_times():
    rng = np.random.default_rng(0)
    frames = [(rng.random((47, 63, 3)) * 255).astype(np.uint8) for _ in range(5)]
    numbers = [0, 15, 30, 45, 60]
    a, b = encode_mp4(frames, numbers, 30), encode_mp4(frames, numbers, 30)
    assert a == b and a[4:8] == b"ftyp"
    decoded = decode_mp4(a)
    assert [t for t, _ in decoded] == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert decoded[0][1].shape == (48, 64, 3)             # padded to even sizes
    assert encode_mp4(frames[::-1], numbers, 30) != a
    with pytest.raises(ValueError, match="one frame number per frame"):
        encode_mp4(frames, numbers[:2], 30)


@pytest.mark.parametrize("rgb, yuv", [((0, 0, 0), (16, 128, 128)), ((255, 255, 255), (235, 128, 128)),
                                      ((255, 0, 0), (82, 90, 240)), ((0, 0, 255), (41, 240, 110))])
def test_yuv420p_of_flat_colours_is_bt601_limited_range(rgb, yuv):
    planes = rgb_to_yuv420p(np.full((4, 6, 3), rgb, np.uint8))
    assert planes.shape == (6, 6)
    assert (planes[:4] == yuv[0]).all()                       # Y, 4 x 6
    assert (planes[4:5] == yuv[1]).all() and (planes[5:6] == yuv[2]).all()   # U then V, 2 x 3 each


def test_yuv420p_chroma_is_the_rounded_mean_of_each_two_by_two_block():
    img = np.zeros((2, 2, 3), np.uint8)
    img[0, :] = (255, 0, 0)                                   # red above, blue below
    img[1, :] = (0, 0, 255)
    y, u, v = rgb_to_yuv420p(img).reshape(-1)[[0, 4, 5]]
    assert (y, u, v) == (82, (90 * 2 + 240 * 2 + 2) // 4, (240 * 2 + 110 * 2 + 2) // 4)


def test_yuv420p_agrees_with_the_bt601_formula_and_with_swscale_on_smooth_images():
    """Within one level of the real-valued BT.601 formula, and of swscale (PyAV's own conversion,
    which the encoder no longer uses) where the chroma is smooth enough for filters not to matter."""
    import av

    yy, xx = np.mgrid[0:48, 0:64]
    img = np.stack([xx * 4, yy * 5, 255 - xx * 2], axis=-1).astype(np.uint8)
    ours = rgb_to_yuv420p(img).astype(int)
    r, g, b = (img[..., k].astype(float) for k in range(3))
    luma = 16 + 219 * (0.299 * r + 0.587 * g + 0.114 * b) / 255
    assert np.abs(ours[:48] - luma).max() <= 1.0
    swscale = av.VideoFrame.from_ndarray(img, format="rgb24").reformat(format="yuv420p").to_ndarray()
    assert np.abs(ours - swscale.astype(int)).max() <= 1
    with pytest.raises(ValueError, match="even H, even W"):
        rgb_to_yuv420p(img[:47])


def test_summary_line_counts_clips():
    s = RunSummary(run_dir=".", frames=16, planned=16, verdicts={"accept": 16}, failed_scenes=[], wall_s=8.0,
                   rendered_now=16, render_s=4.0, clips=2)
    assert s.line().startswith("2 clips, 16 frames (16 accepted, 0 rejected")
    single = RunSummary(run_dir=".", frames=1, planned=1, verdicts={}, failed_scenes=[], wall_s=1.0,
                        rendered_now=1, render_s=1.0)
    assert single.line().startswith("1 frames (0 accepted")


# ------------------------------------------------------------------ the CCTV pipeline

def test_cctv_isp_drifts_at_a_fixed_rate_and_compresses_harder():
    from render_farm.cctv_isp import frame_params, sample_cctv_isp
    from render_farm.isp import process_frame

    draws = [sample_cctv_isp(rng_for("cctv", k)) for k in range(40)]
    assert all(55 <= c.base.jpeg_quality <= 80 and c.base.ca_k == 0.0 for c in draws)
    assert all(abs(c.drift_ev_per_s) <= 0.02 for c in draws)
    assert draws[0] == sample_cctv_isp(rng_for("cctv", 0))
    c = max(draws, key=lambda d: d.drift_ev_per_s)
    assert c.drift_ev_per_s > 0.015
    p0, p3 = frame_params(c, 0.0), frame_params(c, 30.0)                  # over a 30 s entrance clip
    assert p0 == c.base
    assert p3.exposure_bias_ev - p0.exposure_bias_ev == pytest.approx(30.0 * c.drift_ev_per_s)
    assert 0.45 < p3.exposure_bias_ev - p0.exposure_bias_ev <= 0.6
    assert p3.model_dump(exclude={"exposure_bias_ev"}) == p0.model_dump(exclude={"exposure_bias_ev"})
    # a brightening drift brightens the same scene (auto-exposure alone would keep it level)
    scene = np.full((24, 32, 3), 0.2, np.float32)
    scene[:, 16:] = 0.05
    img0, _ = process_frame(scene, p0, np.random.default_rng(1))
    img3, _ = process_frame(scene, p3, np.random.default_rng(1))
    assert img3.mean() > img0.mean() + 3
    capped = c.model_copy(update={"drift_ev_per_s": 1.0})
    assert frame_params(capped, 30.0).exposure_bias_ev == 4.0
