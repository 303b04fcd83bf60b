"""The shared rooftop scene (RealityBench §3.1): spec draws and exact geometry without
Blender, and one tiny render whose object-index pass must match ray casts of the
exported meshes."""
from __future__ import annotations

import math

import numpy as np
import pytest

from blender_envs.solar import roof_spec as rs
from blender_envs.solar.roof_spec import (INCH, ROOF_PASS_INDEX, l_foot_positions, module_corners,
                                          module_front_bottom_edge, module_gap_m, rafter_xs, roof_frame,
                                          sample_roof)


@pytest.fixture(scope="module")
def specs():
    return [sample_roof(np.random.default_rng([7, i])) for i in range(300)]


def test_same_seed_same_json():
    a = sample_roof(np.random.default_rng(123)).model_dump_json()
    b = sample_roof(np.random.default_rng(123)).model_dump_json()
    assert a == b
    assert a != sample_roof(np.random.default_rng(124)).model_dump_json()
    assert rs.RoofSpec.model_validate_json(a).model_dump_json() == a


def test_ranges(specs):
    for s in specs:
        assert 6.0 <= s.eave_length_m <= 14.0 and 4.0 <= s.rafter_length_m <= 7.0
        assert 15.0 <= s.pitch_deg <= 45.0
        assert 5.0 * INCH - 1e-6 <= s.shingles.exposure_m <= 5.75 * INCH + 1e-6
        assert abs(s.shingles.tab_width_m - 12 * INCH) < 0.5 * INCH
        assert 2.6 <= s.house.wall_height_m <= 6.0
        a = s.array
        assert 1 <= a.rows <= 3 and 2 <= a.cols <= 6
        assert 1.0 <= a.module_short_m <= 1.13 and 1.7 <= a.module_long_m <= 2.3
        assert 3 * INCH - 1e-6 <= module_gap_m(s) <= 7 * INCH + 1e-6
        assert 0.030 <= a.frame_depth_m <= 0.040
        assert a.rafter_spacing_in in (16, 24)
        assert len(a.lead_sags_m) == a.rows * (a.cols - 1)
        assert 20.0 <= s.sun.elevation_deg <= 70.0 and 0.0 <= s.sun.azimuth_deg <= 360.0
        # the array sits inside the roof plane
        for r in range(a.rows):
            for c in range(a.cols):
                u0, v0, u1, v1 = rs.module_rect_uv(s, r, c)
                assert 0 < u0 < u1 < s.eave_length_m and 0 < v0 < v1 < s.rafter_length_m
        # every pass index fits its table range
        assert len(l_foot_positions(s)) <= 1000 and a.rows * a.cols <= 100
    assert {s.roof_type for s in specs} == {"gable", "shed"}
    assert {s.house.body for s in specs} == {"lap_siding", "brick"}
    assert {s.array.orientation for s in specs} == {"portrait", "landscape"}


def test_chimney_about_half(specs):
    frac = np.mean([s.chimney is not None for s in specs])
    assert 0.4 <= frac <= 0.6, frac


def test_pass_index_table_disjoint():
    spans = sorted(ROOF_PASS_INDEX.values())
    assert spans[0][0] >= 1
    for (a0, a1), (b0, b1) in zip(spans, spans[1:]):
        assert a0 <= a1 < b0 <= b1
    assert ROOF_PASS_INDEX["env_reserved"] == (100, 199)
    with pytest.raises(ValueError):
        rs.pass_index("chimney", 1)


def test_roof_frame_axes(specs):
    for s in specs[:50]:
        M = roof_frame(s)
        R = M[:3, :3]
        assert np.allclose(R.T @ R, np.eye(3)) and np.isclose(np.linalg.det(R), 1.0)
        assert np.allclose(R[:, 0], [1, 0, 0])
        assert np.isclose(math.degrees(math.asin(R[2, 1])), s.pitch_deg)   # y rises at the pitch
        assert R[2, 2] > 0 and R[1, 2] < 0                                  # normal up, facing -y
        if s.roof_type == "gable":
            B = roof_frame(s, "back")
            ridge_f = M[:3, 3] + s.rafter_length_m * R[:, 1]
            ridge_b = B[:3, 3] + s.rafter_length_m * B[:3, 1] + s.eave_length_m * B[:3, 0]
            assert np.allclose(ridge_f, ridge_b)


def test_module_underside_at_gap_and_front_edge_downslope(specs):
    for s in specs[:100]:
        M = roof_frame(s)
        n, o = M[:3, 2], M[:3, 3]
        y = M[:3, 1]
        for r in range(s.array.rows):
            for c in range(s.array.cols):
                C = module_corners(s, r, c)
                assert np.allclose((C - o) @ n, module_gap_m(s), atol=1e-9)
                E = module_front_bottom_edge(s, r, c)
                assert np.allclose((E - o) @ n, module_gap_m(s), atol=1e-9)
                # the edge is the downslope one: lowest along the slope, lowest in world z
                assert np.allclose((E - o) @ y, ((C - o) @ y).min())
                assert E[:, 2].max() <= C[:, 2].min() + 1e-9
                assert np.isclose(np.linalg.norm(E[1] - E[0]), rs._module_dxdy(s.array)[0])


def test_l_feet_on_rafters(specs):
    for s in specs[:100]:
        sp = s.array.rafter_spacing_in * INCH
        feet = l_foot_positions(s)
        assert feet
        xs = np.array([f[2] for f in feet])
        k = (xs - s.array.rafter_offset_m) / sp
        assert np.allclose(k, np.round(k), atol=1e-9)
        assert np.all(np.isin(np.round(xs, 9), np.round(rafter_xs(s), 9)))
        for r, rail, v, u_lo, u_hi in rs.rail_positions(s):
            on = sorted(f[2] for f in feet if f[0] == r and f[1] == rail)
            assert on and u_lo < on[0] and on[-1] < u_hi
            assert np.all(np.diff(on) <= 48 * INCH + 1e-9)   # at most 4 ft between attachments


def test_wires_stay_above_roof(specs):
    for s in specs[:50]:
        M = roof_frame(s)
        for name, pts in rs.wire_paths(s).items():
            h = (pts - M[:3, 3]) @ M[:3, 2]
            assert h.min() >= s.array.wire_radius_m - 1e-9, name


@pytest.mark.render
def test_index_pass_matches_raycast():
    from blender_envs.core.camera_rig import apply_camera_pose
    from blender_envs.core.cycles_setup import configure_cycles, configure_device
    from blender_envs.core.mesh_export import export_world_triangles
    from blender_envs.core.render_passes import render_frame
    from blender_envs.core.scene_reset import reset_scene
    from blender_envs.core.settings import RenderSettings
    from blender_envs.solar.roof_build import build_roof
    from geometry.camera import look_at, pose_for_phone, sample_phone
    from geometry.raycast import Raycaster, SceneMesh

    spec = sample_roof(np.random.default_rng(3))
    quality = RenderSettings(name="t", long_side_px=128, samples=1, pass_samples=1)
    scene = reset_scene()
    configure_cycles(scene, quality, seed=1)
    configure_device(scene, "cpu")
    info = build_roof(scene, spec)
    ids_built = [o.id for o in info.objects]
    assert len(ids_built) == len(set(ids_built)) and min(ids_built) >= 1
    mesh = SceneMesh(**export_world_triangles(scene))
    assert len(mesh.triangles) < 300_000
    C = module_corners(spec, 0, 0)
    target = C.mean(axis=0)
    T = look_at(target + np.array([-2.5, -6.0, 3.5]), target)
    pose = pose_for_phone(sample_phone(np.random.default_rng(0)), "main", 1.0, "landscape", 128, T,
                          "pinhole", None, 0.01)
    apply_camera_pose(scene, pose)
    out = render_frame(scene, quality)
    ids, _ = Raycaster(mesh).first_hit_ids_for_pixels(pose.K_array(), pose.cam_to_world_array(),
                                                      pose.width, pose.height)
    agree = (ids == out.object_index).mean()
    assert agree >= 0.99, agree
    seen = set(np.unique(out.object_index)) - {0}
    assert rs.pass_index("module_glass", 0) in seen and rs.pass_index("shingles", 0) in seen


def test_sun_direction_matches_lamp_rotation(specs):
    """`materials.sun_and_sky` turns the lamp by Euler XYZ (90-elev, 0, 180-azim); its -Z
    must point away from `sun_direction` (the Nishita sun is the same vector, see roof_build)."""
    for s in specs[:20]:
        a, c = math.radians(90 - s.sun.elevation_deg), math.radians(180 - s.sun.azimuth_deg)
        Rx = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
        Rz = np.array([[math.cos(c), -math.sin(c), 0], [math.sin(c), math.cos(c), 0], [0, 0, 1]])
        shine = Rz @ Rx @ np.array([0, 0, -1.0])
        assert np.allclose(-shine, rs.sun_direction(s))
