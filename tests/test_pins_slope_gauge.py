"""scorers.slope_gauge: the pure parts worked by hand, without Blender: the module-edge
polylines from the roof spec, the ray-cast pixel grid on a small trimesh scene, the blur,
view angle and answer key of a camera placed on the display's normal."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
import trimesh

import scorers.slope_gauge as sg
from blender_envs.solar.roof_spec import module_rect_uv, module_top_z, roof_frame
from blender_envs.solar.slope_gauge import GAUGE_DISPLAY_OBJECT, display_matrix, reading_text, sample_scene
from geometry.camera import look_at, pose_for_phone, project
from geometry.raycast import Raycaster, SceneMesh
from scorers.terms import Verdict, verdict_of


@pytest.fixture(scope="module")
def spec():
    return sample_scene(np.random.default_rng(3), "s0", 3)


def pose_at(spec, eye, target, mode="pinhole", focus=None, long_side=640):
    return pose_for_phone(spec.phone, "main", 1.0, "landscape", long_side, look_at(eye, target), mode, focus, 1 / 250)


def _square_on(spec, d=0.3, angle=0.0):
    T = display_matrix(spec.roof, spec.gauge)
    X, n, up = T[:3, 3], T[:3, 2], T[:3, 1]
    a = math.radians(angle)
    return pose_at(spec, X + d * (math.cos(a) * n + math.sin(a) * up), X), X


def by_name(terms):
    return {t.name: t for t in terms}


def test_constants():
    assert (sg.GRID_STEP_PX, sg.EDGE_STEP_M, sg.YAW_GRAY) == (8, 0.01, (15.0, 45.0))


def test_module_edge_polylines_trace_each_frame_1_mm_inside(spec):
    roof = spec.roof
    lines = sg.module_edge_polylines(spec)
    a = roof.array
    assert [n for n, _ in lines] == [f"module_frame_r{r}_c{c}" for r in range(a.rows) for c in range(a.cols)]
    M = roof_frame(roof)
    z = module_top_z(roof)
    for (name, P), (r, c) in zip(lines, [(r, c) for r in range(a.rows) for c in range(a.cols)]):
        uvw = (P - M[:3, 3]) @ M[:3, :3]                          # back to the roof frame
        assert np.allclose(uvw[:, 2], z, atol=1e-9)
        u0, v0, u1, v1 = module_rect_uv(roof, r, c)
        assert np.allclose(uvw[0], [u0 + 0.001, v0 + 0.001, z]) and np.allclose(uvw[-1], uvw[0])  # closed
        assert uvw[:, 0].min() == pytest.approx(u0 + 0.001) and uvw[:, 0].max() == pytest.approx(u1 - 0.001)
        assert uvw[:, 1].min() == pytest.approx(v0 + 0.001) and uvw[:, 1].max() == pytest.approx(v1 - 0.001)
        step = np.linalg.norm(np.diff(uvw[:, :2], axis=0), axis=1)
        assert step.min() >= 0.01 - 1e-12 and step.max() < 0.02     # int(L / 10 mm) steps per side
        # the perimeter is walked once: the steps add up to it
        assert step.sum() == pytest.approx(2 * ((u1 - u0) + (v1 - v0)) - 8 * 0.001, rel=1e-9)
        # every side is sampled, each with at least its two corners
        n_side = [max(2, int(L / 0.01) + 1) - 1 for L in (u1 - u0 - 0.002, v1 - v0 - 0.002) * 2]
        assert len(P) == sum(n_side) + 1


def test_pixel_grid_ids_sample_every_8th_pixel_centre(spec):
    pose = pose_at(spec, [0.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    right = trimesh.Trimesh(vertices=[[0.0, 2.0, -5.0], [5.0, 2.0, -5.0], [5.0, 2.0, 5.0], [0.0, 2.0, 5.0]],
                            faces=[[0, 1, 2], [0, 2, 3]])
    rc = Raycaster(SceneMesh.from_trimesh_parts([(5, "right", right)]))
    ids = sg.pixel_grid_ids(rc, pose)
    us, vs = np.arange(4, pose.width, 8), np.arange(4, pose.height, 8)
    assert ids.shape == (len(vs), len(us)) == (60, 80)
    cx = pose.K_array()[0, 2]
    assert np.array_equal(ids, np.broadcast_to(np.where(us > cx, 5, 0), ids.shape))
    # odd step: centres at columns 2, 7, 12, ... (integers); an edge at u = 317.25 falls
    # between the centre at 317 and where a half-pixel shift would put it (317.5)
    f = pose.K_array()[0, 0]
    xe = (317.25 - cx) / f * 2.0
    edge = trimesh.Trimesh(vertices=[[xe, 2.0, -5.0], [5.0, 2.0, -5.0], [5.0, 2.0, 5.0], [xe, 2.0, 5.0]],
                           faces=[[0, 1, 2], [0, 2, 3]])
    ids5 = sg.pixel_grid_ids(Raycaster(SceneMesh.from_trimesh_parts([(5, "edge", edge)])), pose, step=5)
    assert ids5.shape == (96, 128)
    assert np.array_equal(ids5[0], np.where(np.arange(2, pose.width, 5) > 317.25, 5, 0))
    ids4 = sg.pixel_grid_ids(rc, pose, step=4)
    assert ids4.shape == (120, 160)
    assert np.array_equal(ids4[0], np.where(np.arange(2, pose.width, 4) > cx, 5, 0))


def test_glass_ids_are_the_module_glass_objects():
    objs = [SimpleNamespace(id=3, category="module_glass"), SimpleNamespace(id=4, category="module_frame"),
            SimpleNamespace(id=9, category="module_glass")]
    assert sg.glass_ids(SimpleNamespace(state=SimpleNamespace(objects=objs))) == {3, 9}


def test_view_angle_and_blur_at_the_display(spec):
    for angle in (0.0, 30.0, 64.0):
        pose, _ = _square_on(spec, 0.3, angle)
        assert sg.display_view_angle(spec, pose) == pytest.approx(angle, abs=1e-6)
        assert sg.blur_at_display_px(spec, pose) == 0.0
    pose, X = _square_on(spec, 0.3)
    locked = pose_at(spec, pose.center, X, mode="locked_elsewhere", focus=3.0)
    f, N = locked.lens.focal_mm, locked.fnumber
    c_px = (f / N) * abs(300.0 - 3000.0) / 300.0 * f / (3000.0 - f) / locked.sensor_width_mm * 640
    assert sg.blur_at_display_px(spec, locked) == pytest.approx(c_px, rel=1e-5)


def test_digit_height_is_inversely_proportional_to_distance(spec):
    p1, _ = _square_on(spec, 0.2)
    p2, _ = _square_on(spec, 0.4)
    h1, h2 = sg.digit_height_px(spec, p1), sg.digit_height_px(spec, p2)
    assert h1 == pytest.approx(2 * h2, rel=2e-3)
    from blender_envs.solar.slope_gauge import DIGIT_HEIGHT_M
    f = p1.K_array()[1, 1]
    assert h1 == pytest.approx(f * DIGIT_HEIGHT_M / 0.2, rel=2e-3)


def test_scene_terms_of_a_good_view(spec):
    pose, _ = _square_on(spec, 0.25)
    s = spec.model_copy(update={"gauge": spec.gauge.model_copy(update={"yaw_deg": -10.0, "placement": "glass"})})
    terms = sg.scene_terms_of(s, pose, 1.0, 0.95, 0.3, 800.0)
    assert [t.name for t in terms] == ["display_in_frame", "display_unoccluded", "digit_height", "display_view_angle",
                                       "gauge_on_module", "gauge_yaw", "module_glass_in_frame",
                                       "module_edge_visible", "sharp_at_target"]
    t = by_name(terms)
    assert t["gauge_yaw"].value == 10.0 and t["gauge_on_module"].value is True
    assert (t["display_in_frame"].value, t["display_unoccluded"].value, t["module_glass_in_frame"].value,
            t["module_edge_visible"].value) == (1.0, 0.95, 0.3, 800.0)
    assert {x.name: x.unit for x in terms} == {
        "display_in_frame": "", "display_unoccluded": "", "digit_height": "px", "display_view_angle": "deg",
        "gauge_on_module": "", "gauge_yaw": "deg", "module_glass_in_frame": "", "module_edge_visible": "px",
        "sharp_at_target": "px"}
    assert verdict_of(terms) == Verdict.ACCEPT
    s_roof = s.model_copy(update={"gauge": s.gauge.model_copy(update={"placement": "roof"})})
    assert verdict_of(sg.scene_terms_of(s_roof, pose, 1.0, 0.95, 0.3, 800.0)) == Verdict.REJECT
    s_frame = s.model_copy(update={"gauge": s.gauge.model_copy(update={"placement": "frame"})})
    assert by_name(sg.scene_terms_of(s_frame, pose, 1.0, 0.95, 0.3, 800.0))["gauge_on_module"].passed


def _geo(spec, display_id=11):
    return SimpleNamespace(spec=spec, object_id=lambda name: {GAUGE_DISPLAY_OBJECT: display_id}[name])


def test_score_frame_reads_the_display_mask(spec):
    img = np.full((20, 20, 3), 200, np.uint8)
    idx = np.zeros((20, 20), np.int32)
    idx[2:12, 2:18] = 11
    img[5:8, 5:15] = 20                      # dark digits on the display
    img[15:20, :] = 255                      # clipped, but off the display
    t = by_name(sg.score_frame(_geo(spec), None, SimpleNamespace(image=img, object_index=idx)))
    assert t["display_saturated"].value == 0.0 and t["display_saturated"].passed
    assert t["display_contrast"].passed and t["display_contrast"].side == "frame"


def test_ground_truth_of_a_square_on_view(spec):
    pose, X = _square_on(spec, 0.3)
    idx = np.zeros((pose.height, pose.width), np.int32)
    idx[100:110, 200:230] = 11
    frame = SimpleNamespace(image=np.zeros((pose.height, pose.width, 3), np.uint8), object_index=idx)
    gt = sg.ground_truth(_geo(spec), SimpleNamespace(pose=pose), frame)
    text = reading_text(spec.roof, spec.gauge)
    assert gt["displayed_text"] == text and gt["reading_deg"] == float(text)
    assert gt["on_module"] == (spec.gauge.placement in ("glass", "frame")) and gt["placement"] == spec.gauge.placement
    assert gt["roof_pitch_deg"] == spec.roof.pitch_deg and gt["yaw_deg"] == spec.gauge.yaw_deg
    K = pose.K_array()
    assert gt["display_px"] == pytest.approx([K[0, 2], K[1, 2]], abs=1e-3)
    assert gt["digit_height_px"] == round(sg.digit_height_px(spec, pose), 4)
    assert gt["blur_at_display_px"] == 0.0
    assert gt["display_mask_px"] == 300
    assert abs(gt["true_axis_angle_deg"] - gt["reading_deg"]) <= 0.05 + 1e-9
    no_frame = sg.ground_truth(_geo(spec), SimpleNamespace(pose=pose))
    assert "display_mask_px" not in no_frame
    behind = pose_at(spec, pose.center, pose.center + (pose.center - X))
    assert sg.ground_truth(_geo(spec), SimpleNamespace(pose=behind))["display_px"] is None


def test_r():
    assert sg._r(1.234567) == 1.2346 and sg._r(None) is None and sg._r(float("inf")) is None
    assert sg._r(1.23, 1) == 1.2
