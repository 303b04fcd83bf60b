"""scorers.horizon_peak: the geometry of the horizon line, the ray-cast id grid and the
skyline rule, worked by hand with level and rolled pinhole cameras and a trimesh quad."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
import trimesh

import scorers.horizon_peak as hp
from blender_envs.solar.horizon_peak import ridge_z, sample_scene
from geometry.camera import look_at, pose_for_phone, sample_phone
from geometry.raycast import Raycaster, SceneMesh

PHONE = sample_phone(np.random.default_rng(0))


def pose_at(eye, target, roll_deg=0.0, long_side=640, mode="pinhole", focus=None):
    T = look_at(eye, target, roll_rad=math.radians(roll_deg))
    return pose_for_phone(PHONE, "main", 1.0, "landscape", long_side, T, mode, focus, 1 / 250)


LEVEL = pose_at([0.0, 0.0, 10.0], [0.0, 1.0, 10.0])


@pytest.fixture(scope="module")
def spec():
    return sample_scene(np.random.default_rng(7), "s0", 7)


def test_constants():
    assert (hp.HORIZON_COLUMNS, hp.BLOCK_COLUMNS, hp.GRID_STEP_PX, hp.GRID_MAX_PX) == (33, 64, 4, 160)
    assert hp.BLUR_COLUMNS == (0.1, 0.5, 0.9)


def test_level_camera_horizon_is_the_centre_row():
    cy = LEVEL.K_array()[1, 2]
    assert hp.horizon_rows(LEVEL, [0.0, 100.0, 639.0]) == pytest.approx([cy] * 3, abs=1e-9)
    assert hp.horizon_fraction(LEVEL) == 1.0


def test_rolled_camera_horizon_is_a_slanted_line():
    pose = pose_at([0.0, 0.0, 0.0], [0.0, 1.0, 0.0], roll_deg=10.0)
    K = pose.K_array()
    cx, cy = K[0, 2], K[1, 2]
    v = hp.horizon_rows(pose, [cx - 100.0, cx, cx + 100.0])
    assert v[1] == pytest.approx(cy, abs=1e-9)
    assert abs(v[2] - v[1]) == pytest.approx(100.0 * math.tan(math.radians(10.0)), rel=1e-9)
    assert v[2] - v[1] == pytest.approx(v[1] - v[0], rel=1e-9)
    assert abs(hp.roll_deg(pose)) == pytest.approx(10.0, abs=1e-9)
    assert hp.roll_deg(pose_at([0.0, 0.0, 0.0], [0.0, 1.0, 0.0], roll_deg=-10.0)) == pytest.approx(
        -hp.roll_deg(pose), abs=1e-9)
    assert hp.roll_deg(LEVEL) == pytest.approx(0.0, abs=1e-9)
    # a 90-deg roll puts the horizon along a column: no row
    side = pose_at([0.0, 0.0, 0.0], [0.0, 1.0, 0.0], roll_deg=90.0)
    assert np.isnan(hp.horizon_rows(side, [0.0, 10.0])).all()
    assert abs(hp.roll_deg(side)) == pytest.approx(90.0, abs=1e-9)


def test_horizon_fraction_counts_columns_in_the_middle_80_percent():
    """Rolled so the horizon leaves the band at both ends: the fraction is the share of the 33
    columns whose row lies in [48, 432] on a 480-row frame."""
    pose = pose_at([0.0, 0.0, 0.0], [0.0, 1.0, 0.0], roll_deg=40.0)
    us = np.linspace(0, 639, 33)
    v = hp.horizon_rows(pose, us)
    want = np.mean((v >= 48.0) & (v <= 432.0))
    assert 0.0 < want < 1.0
    assert hp.horizon_fraction(pose) == pytest.approx(want)


def test_horizon_dirs_are_horizontal_unit_rays_through_the_columns():
    d = hp.horizon_dirs(LEVEL, 5)
    K = LEVEL.K_array()
    us = np.linspace(0, 639, 5)
    az = np.degrees(np.arctan2(d[:, 0], d[:, 1]))
    assert np.allclose(az, np.degrees(np.arctan((us - K[0, 2]) / K[0, 0])), atol=1e-9)
    assert np.allclose(d[:, 2], 0.0) and np.allclose(np.linalg.norm(d, axis=1), 1.0)
    assert hp.horizon_dirs(LEVEL).shape == (64, 3)
    # pitched 30 deg down, the horizon row is cy - f tan 30: its rays' azimuth is
    # atan((u - cx) cos 30 / f) (the forward component of (u - cx, -f tan p, f) is f / cos p)
    down = pose_at([0.0, 0.0, 10.0], [0.0, 1.0, 10.0 - math.tan(math.radians(30.0))])
    dd = hp.horizon_dirs(down, 5)
    az_down = np.degrees(np.arctan2(dd[:, 0], dd[:, 1]))
    assert np.allclose(az_down, np.degrees(np.arctan((us - K[0, 2]) * math.cos(math.radians(30.0)) / K[0, 0])),
                       atol=1e-9)
    assert np.allclose(dd[:, 2], 0.0) and np.allclose(np.linalg.norm(dd, axis=1), 1.0)


def test_horizon_target_points_on_the_hill_ring(spec):
    P = hp.horizon_target_points(spec, LEVEL)
    R = spec.hills.inner_radius_m
    C = LEVEL.center
    assert P.shape == (3, 3)
    assert np.allclose(P[:, 2], C[2]) and np.allclose(np.linalg.norm(P[:, :2] - C[:2], axis=1), R)
    assert P[1] == pytest.approx(C + [0.0, R, 0.0], abs=1e-6)
    K = LEVEL.K_array()
    for p, frac in zip(P, (0.1, 0.5, 0.9)):
        u = frac * 639
        assert math.atan2(p[0] - C[0], p[1] - C[1]) == pytest.approx(math.atan((u - K[0, 2]) / K[0, 0]), abs=1e-9)
    # rolled 90 deg: the centre row is used instead
    side = pose_at([0.0, 0.0, 10.0], [0.0, 1.0, 10.0], roll_deg=90.0)
    Ps = hp.horizon_target_points(spec, side)
    assert np.isfinite(Ps).all() and np.allclose(Ps[:, 2], 10.0)
    # looking straight down: no horizontal direction at the centre
    down = pose_at([0.0, 0.0, 10.0], [0.0, 0.0, 0.0])
    assert not np.isfinite(hp.horizon_target_points(spec, down)).all()
    assert hp.blur_at_horizon_px(spec, down) is None


def test_blur_at_horizon(spec):
    assert hp.blur_at_horizon_px(spec, LEVEL) == 0.0
    near = pose_at([0.0, 0.0, 10.0], [0.0, 1.0, 10.0], mode="locked_elsewhere", focus=0.3)
    b = hp.blur_at_horizon_px(spec, near)
    assert b is not None and b > 1.0
    P = hp.horizon_target_points(spec, near)
    from geometry.camera import blur_at_target_px
    assert b == pytest.approx(max(blur_at_target_px(near, p) for p in P))


def test_grid_step():
    assert hp.grid_step(LEVEL) == 4
    assert hp.grid_step(pose_at([0, 0, 0], [0, 1, 0], long_side=1280)) == 8
    assert hp.grid_step(pose_at([0, 0, 0], [0, 1, 0], long_side=1000)) == 7
    assert hp.grid_step(pose_at([0, 0, 0], [0, 1, 0], long_side=320)) == 4


def test_id_grid_block_centres():
    right = trimesh.Trimesh(vertices=[[0.0, 2.0, -50.0], [50.0, 2.0, -50.0], [50.0, 2.0, 50.0], [0.0, 2.0, 50.0]],
                            faces=[[0, 1, 2], [0, 2, 3]])
    rc = Raycaster(SceneMesh.from_trimesh_parts([(5, "right", right)]))
    pose = pose_at([0.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    cx = pose.K_array()[0, 2]
    for step in (4, 5):
        ids = hp.id_grid(rc, pose, step)
        assert ids.shape == (480 // step, 640 // step)
        centres = np.arange(640 // step) * step + (step - 1) / 2.0
        assert np.array_equal(ids[0], np.where(centres > cx, 5, 0)), step
        assert (ids == ids[0]).all()


def test_skyline_rows_rule():
    ids = np.array([[0, 0, 0, 3, 0],
                    [5, 0, 0, 3, 0],
                    [5, 5, 0, 3, 6]])
    top, ok = hp.skyline_rows(ids)
    assert top.tolist() == [1, 2, -1, 0, 2]
    # sky above and a hit in the bottom row: col 0 and 1; col 3 has no sky above; col 2 no hit
    assert ok.tolist() == [True, True, False, False, True]
    gap = np.array([[0], [4], [0]])               # hit but nothing in the bottom row
    assert hp.skyline_rows(gap)[1].tolist() == [False]


def test_camera_height_over_the_ridge(spec):
    z = ridge_z(spec.roof)
    pose = pose_at([0.0, 0.0, z + 0.4], [0.0, 1.0, z + 0.4])
    assert hp.camera_height_m(spec, pose) == pytest.approx(0.4)


def test_own_ids_leave_out_the_ground_and_the_environment_range():
    objs = [SimpleNamespace(id=i) for i in (1, 2, 7, 99, 100, 150, 199, 200, 230)]
    geo = SimpleNamespace(state=SimpleNamespace(objects=objs))
    assert hp.own_ids(geo).tolist() == [2, 7, 99, 200, 230]


# ---------------------------------------- score_scene and ground_truth on a hand-made ridge view

def _quad(v):
    return trimesh.Trimesh(vertices=np.array(v, float), faces=[[0, 1, 2], [0, 2, 3]], process=False)


def _ridge_geo(spec, wall_u=None, z_c=None):
    """Ground (id 1) at z = 0 out to 1 km; this house's shingles (id 5) as a plate 1 m under the
    camera out to y = 2.5 m; optionally this house's module (id 200) as a wall at y = 5 m covering
    pixels u < wall_u up to 0.1 m over the camera."""
    from geometry.scene import SceneObject, SceneState

    parts = [(1, "ground", _quad([[-1000, -1000, 0], [1000, -1000, 0], [1000, 1000, 0], [-1000, 1000, 0]])),
             (5, "shingles_front", _quad([[-10, 0, z_c - 1], [10, 0, z_c - 1], [10, 2.5, z_c - 1], [-10, 2.5, z_c - 1]]))]
    if wall_u is not None:
        f, cx = LEVEL.K_array()[0, 0], LEVEL.K_array()[0, 2]
        x_w = (wall_u - cx) / f * 5.0
        parts.append((200, "module_glass_r0_c0", _quad([[-100, 5, 0], [x_w, 5, 0], [x_w, 5, z_c + 0.1],
                                                         [-100, 5, z_c + 0.1]])))
    mesh = SceneMesh.from_trimesh_parts(parts)
    objs = [SceneObject(id=i, name=n, category=n, pass_index=i) for i, n, _ in parts]
    state = SceneState(env="horizon_peak", scene_id="s0", spec={}, objects=objs, meshes="m.npz")
    return SimpleNamespace(spec=spec, state=state, mesh=mesh, raycaster=Raycaster(mesh))


def _view(pose):
    from geometry.scene import View
    return View(view_index=0, pose=pose, target="horizon")


def test_score_scene_level_over_the_ridge(spec):
    """Level, 0.5 m over the ridge: the horizon is the centre row (in the band on every column),
    no horizontal ray meets the house, every column has sky over the ground. In the 30 bottom
    rows of the 120 x 160 grid (block centres v = 4 r + 1.5, r = 90 ... 119) the plate 1 m down
    is hit where the ray's slope (v - cy) / f >= 1 / 2.5 (it ends 2.5 m out): 14 of 30 rows."""
    z_c = ridge_z(spec.roof) + 0.5
    pose = pose_at([0.0, 0.0, z_c], [0.0, 1.0, z_c])
    geo = _ridge_geo(spec, z_c=z_c)
    terms = hp.score_scene(geo, _view(pose))
    assert [t.name for t in terms] == ["horizon_in_frame", "own_roof_horizon", "skyline_in_frame",
                                       "own_roof_bottom", "camera_above_ridge", "sharp_at_target"]
    t = {x.name: x for x in terms}
    K = pose.K_array()
    rows = np.arange(90, 120)
    want_bottom = np.mean(4 * rows + 1.5 - K[1, 2] >= K[1, 1] / 2.5)
    assert want_bottom == 14 / 30
    assert t["horizon_in_frame"].value == 1.0 and t["own_roof_horizon"].value == 0.0
    assert t["skyline_in_frame"].value == 1.0
    assert t["own_roof_bottom"].value == pytest.approx(want_bottom, abs=1e-6)
    assert t["camera_above_ridge"].value == pytest.approx(0.5) and t["camera_above_ridge"].unit == "m"
    assert t["sharp_at_target"].value == 0.0 and all(x.passed for x in terms)
    gt = hp.ground_truth(geo, _view(pose))
    assert gt == {"horizon_visible": True, "level": True, "own_roof_blocks": False, "roll_deg": 0.0,
                  "camera_height_m": 0.5, "own_block_fraction": 0.0, "skyline_fraction": 1.0,
                  "bottom_own_fraction": 0.4667, "blur_at_horizon_px": 0.0}
    assert hp.score_frame(geo, _view(pose), None) == []


def test_own_roof_on_the_horizon_just_inside_and_outside_10_percent(spec):
    """The 64 horizon columns sit at u = 639 k / 63 = 10.14 k: a wall over u < 55 blocks k = 0..5,
    6 / 64 = 9.4% (passes, does not block), over u < 65 seven, 10.9% (fails, blocks)."""
    z_c = ridge_z(spec.roof) + 0.5
    pose = pose_at([0.0, 0.0, z_c], [0.0, 1.0, z_c])
    for wall_u, n, ok in ((55.0, 6, True), (65.0, 7, False)):
        geo = _ridge_geo(spec, wall_u=wall_u, z_c=z_c)
        t = {x.name: x for x in hp.score_scene(geo, _view(pose))}["own_roof_horizon"]
        assert t.value == pytest.approx(n / 64) and t.passed is ok
        gt = hp.ground_truth(geo, _view(pose))
        assert gt["own_roof_blocks"] is (not ok) and gt["own_block_fraction"] == round(n / 64, 4)


def test_ground_truth_rolled_below_the_ridge_and_out_of_band(spec):
    z_r = ridge_z(spec.roof)
    geo = _ridge_geo(spec, z_c=z_r - 0.212345)
    for roll, level in ((9.51234, True), (10.51234, False)):
        gt = hp.ground_truth(geo, _view(pose_at([0.0, 0.0, z_r - 0.212345], [0.0, 1.0, z_r - 0.212345],
                                               roll_deg=roll)))
        assert gt["level"] is level and abs(gt["roll_deg"]) == round(roll, 4)
        assert gt["camera_height_m"] == -0.2123
    t = {x.name: x for x in hp.score_scene(geo, _view(pose_at([0.0, 0.0, z_r - 0.2], [0.0, 1.0, z_r - 0.2])))}
    assert t["camera_above_ridge"].value == pytest.approx(-0.2) and not t["camera_above_ridge"].passed
    # pitched up 40 deg: the horizon row cy + f tan 40 > 480 lies below the frame
    up = pose_at([0.0, 0.0, z_r - 0.2], [0.0, 1.0, z_r - 0.2 + math.tan(math.radians(40.0))])
    gt = hp.ground_truth(geo, _view(up))
    assert gt["horizon_visible"] is False and gt["skyline_fraction"] == 0.0
    # focus locked at 0.3 m: the far skyline is blurred (4 decimals)
    near = pose_at([0.0, 0.0, z_r - 0.2], [0.0, 1.0, z_r - 0.2], mode="locked_elsewhere", focus=0.3)
    b = hp.blur_at_horizon_px(spec, near)
    assert hp.ground_truth(geo, _view(near))["blur_at_horizon_px"] == round(b, 4) != b


def test_horizon_dirs_of_a_camera_rolled_90_deg_use_the_centre_row():
    """Rolled 90 deg the horizon runs along a column; the block rays then go through the centre
    row: horizontal unit rays fanning over the frame's (now vertical) long side."""
    side = pose_at([0.0, 0.0, 10.0], [0.0, 1.0, 10.0], roll_deg=90.0)
    d = hp.horizon_dirs(side, 5)
    assert np.isfinite(d).all() and np.allclose(d[:, 2], 0.0) and np.allclose(np.linalg.norm(d, axis=1), 1.0)
    assert np.allclose(d[2], [0.0, 1.0, 0.0], atol=1e-3)


def test_roll_sign_follows_look_at_roll():
    # look_at's positive roll is a positive roll_deg (the sign the ground truth records)
    assert hp.roll_deg(pose_at([0.0, 0.0, 0.0], [0.0, 1.0, 0.0], roll_deg=10.0)) == pytest.approx(10.0, abs=1e-9)
    assert hp.roll_deg(pose_at([0.0, 0.0, 0.0], [0.0, 1.0, 0.0], roll_deg=-25.0)) == pytest.approx(-25.0, abs=1e-9)


def test_sharp_at_target_is_in_pixels():
    t = {x.name: x for x in hp.scene_terms_of(1.0, 0.0, 1.0, 0.5, 0.3, 6.0)}
    assert t["sharp_at_target"].unit == "px" and t["sharp_at_target"].threshold == "<= 5 px"
    assert not t["sharp_at_target"].passed



def _wall_from(x0):
    """A wall 2 m ahead covering x > x0."""
    wall = trimesh.Trimesh(vertices=[[x0, 2.0, -50.0], [50.0, 2.0, -50.0], [50.0, 2.0, 50.0], [x0, 2.0, 50.0]],
                           faces=[[0, 1, 2], [0, 2, 3]])
    return Raycaster(SceneMesh.from_trimesh_parts([(5, "wall", wall)]))


def test_id_grid_block_centres_off_the_optical_axis():
    """A wall whose edge is x0 right of the axis 2 m ahead: a block is hit iff its centre column
    u = step j + (step - 1) / 2 has (u - cx) / f > x0 / 2. The edge is put a quarter pixel left,
    then right, of block 30's centre, so a centre off by half a pixel either way changes block 30;
    a 7-px step keeps 640 // 7 = 91 columns and 480 // 7 = 68 rows."""
    pose = pose_at([0.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    f, cx = pose.K_array()[0, 0], pose.K_array()[0, 2]
    for step in (4, 7):
        centres = np.arange(640 // step) * step + (step - 1) / 2.0
        for shift, hit30 in ((-0.25, True), (0.25, False)):
            x0 = 2.0 * (centres[30] + shift - cx) / f
            ids = hp.id_grid(_wall_from(x0), pose, step)
            assert ids.shape == (480 // step, 640 // step)
            assert np.array_equal(ids[0], np.where(np.arange(len(centres)) >= (30 if hit30 else 31), 5, 0)), step
