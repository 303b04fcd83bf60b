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


# ---- the ray-cast adapters on a hand-built array (no Blender) ---------------------------------
#
# Each module of the spec's array is a 30 mm frame strip ring at the frame top (w = module_top_z)
# around glass 2 mm lower; the display is its window rectangle; a wall (not a module) 3 m above
# the roof covers u < 1.0 (roof frame), hiding part of the first column. The camera is 6 m above
# the array's centre on the roof normal, looking down it, so the whole array is in frame. A ray
# is traced by hand through the planes in the order the camera meets them: wall, display,
# frame top, glass.

from blender_envs.solar.roof_spec import roof_to_world
from blender_envs.solar.slope_gauge import DISPLAY_SIZE_M, GLASS_BELOW_FRAME_M, display_points

STRIP, WALL_W, WALL_U, CAM_H = 0.03, 3.0, 2.1, 6.0


def _rquad(roof, u0, u1, v0, v1, w):
    V = roof_to_world(roof, np.array([[u0, v0, w], [u1, v0, w], [u1, v1, w], [u0, v1, w]], float))
    return trimesh.Trimesh(vertices=V, faces=[[0, 1, 2], [0, 2, 3]], process=False)


def _array_scene(spec, wall=True, cover=False, lip=False):
    roof, a = spec.roof, spec.roof.array
    z = module_top_z(roof)
    parts, objs, oid = [], [], 1
    all_rects = [module_rect_uv(roof, r, c) for r in range(a.rows) for c in range(a.cols)]
    cu = (min(q[0] for q in all_rects) + max(q[2] for q in all_rects)) / 2
    cv = (min(q[1] for q in all_rects) + max(q[3] for q in all_rects)) / 2
    T = display_matrix(roof, spec.gauge)
    hw, hh = DISPLAY_SIZE_M[0] / 2, DISPLAY_SIZE_M[1] / 2
    Vd = np.array([T[:3, 3] + sx * hw * T[:3, 0] + sy * hh * T[:3, 1] for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    parts.append((oid, GAUGE_DISPLAY_OBJECT, trimesh.Trimesh(vertices=Vd, faces=[[0, 1, 2], [0, 2, 3]], process=False)))
    objs.append(SimpleNamespace(id=oid, category="gauge"))
    for r in range(a.rows):
        for c in range(a.cols):
            u0, v0, u1, v1 = module_rect_uv(roof, r, c)
            oid += 1
            for q in ((u0, u1, v0, v0 + STRIP), (u0, u1, v1 - STRIP, v1), (u0, u0 + STRIP, v0, v1),
                      (u1 - STRIP, u1, v0, v1)):
                parts.append((oid, f"module_frame_r{r}_c{c}", _rquad(roof, *q, z)))
            if lip and (r, c) == (0, 2):
                # a part of this frame 0.5 m up, just wide enough to cover the rays to its own
                # edge (they cross w = 0.5 at centre + f (edge - centre)), not its neighbours'
                f, e = (CAM_H - 0.5) / (CAM_H - z), 0.001
                lu0, lu1 = (cu + (x - cu) * f for x in (u0 + e, u1 - e))
                lv0, lv1 = (cv + (x - cv) * f for x in (v0 + e, v1 - e))
                parts.append((oid, f"module_frame_r{r}_c{c}",
                              _rquad(roof, lu0 - 0.005, lu1 + 0.005, lv0 - 0.005, lv1 + 0.005, 0.5)))
            objs.append(SimpleNamespace(id=oid, category="module_frame"))
            oid += 1
            parts.append((oid, f"module_glass_r{r}_c{c}", _rquad(roof, u0, u1, v0, v1, z - GLASS_BELOW_FRAME_M)))
            objs.append(SimpleNamespace(id=oid, category="module_glass"))
    if cover:                                           # a 10 cm card 5 cm above the display
        oid += 1
        X = (T[:3, 3] - roof_frame(roof)[:3, 3]) @ roof_frame(roof)[:3, :3]
        parts.append((oid, "card", _rquad(roof, X[0] - 0.05, X[0] + 0.05, X[1] - 0.05, X[1] + 0.05, X[2] + 0.05)))
        objs.append(SimpleNamespace(id=oid, category="card"))
    if wall:
        oid += 1
        parts.append((oid, "wall", _rquad(roof, -10.0, WALL_U, -10.0, 10.0, WALL_W)))
        objs.append(SimpleNamespace(id=oid, category="wall"))
    mesh = SceneMesh.from_trimesh_parts(parts)
    names = {n: int(i) for i, n in zip(mesh.object_ids, mesh.object_names)}
    geo = SimpleNamespace(spec=spec, raycaster=Raycaster(mesh), object_id=lambda n: names[n],
                          state=SimpleNamespace(objects=objs))
    rects = [module_rect_uv(roof, r, c) for r in range(a.rows) for c in range(a.cols)]
    uc = (min(q[0] for q in rects) + max(q[2] for q in rects)) / 2
    vc = (min(q[1] for q in rects) + max(q[3] for q in rects)) / 2
    M = roof_frame(roof)
    eye = roof_to_world(roof, [uc, vc, CAM_H])
    pose = pose_for_phone(spec.phone, "main", 1.0, "landscape", 320,
                          look_at(eye, roof_to_world(roof, [uc, vc, 0.0]), up=M[:3, 1]), "pinhole", None, 1 / 250)
    return geo, pose, rects, M


def _cross(C, d, w):
    """Roof-frame point where the ray C + s d (roof frame) meets the plane at height w."""
    s = (w - C[2]) / d[:, 2]
    return C + s[:, None] * d


def _inside(p, rect):
    u0, v0, u1, v1 = rect
    return (p[:, 0] >= u0) & (p[:, 0] <= u1) & (p[:, 1] >= v0) & (p[:, 1] <= v1)


def _grid_glass_share(spec, pose, rects, M, wall=True):
    K, Tc = pose.K_array(), pose.cam_to_world_array()
    us, vs = np.arange(4, pose.width, 8, dtype=float), np.arange(4, pose.height, 8, dtype=float)
    U, V = np.meshgrid(us, vs)
    d = np.linalg.solve(K, np.stack([U.ravel(), V.ravel(), np.ones(U.size)])).T @ Tc[:3, :3].T
    d_r, C_r = d @ M[:3, :3], (Tc[:3, 3] - M[:3, 3]) @ M[:3, :3]
    taken = np.zeros(len(d), bool)
    if wall:
        taken |= _cross(C_r, d_r, WALL_W)[:, 0] < WALL_U
    T = display_matrix(spec.roof, spec.gauge)
    X = (T[:3, 3] - M[:3, 3]) @ M[:3, :3]
    p = _cross(C_r, d_r, X[2]) - X
    ax_r, ax_a = M[:3, :3].T @ T[:3, 0], M[:3, :3].T @ T[:3, 1]
    taken |= (np.abs(p @ ax_r) <= DISPLAY_SIZE_M[0] / 2) & (np.abs(p @ ax_a) <= DISPLAY_SIZE_M[1] / 2)
    z = module_top_z(spec.roof)
    top = _cross(C_r, d_r, z)
    for u0, v0, u1, v1 in rects:
        taken |= _inside(top, (u0, v0, u1, v1)) & ~_inside(top, (u0 + STRIP, v0 + STRIP, u1 - STRIP, v1 - STRIP))
    glass = _cross(C_r, d_r, z - GLASS_BELOW_FRAME_M)
    hit = np.zeros(len(d), bool)
    for rect in rects:
        hit |= _inside(glass, rect)
    return float((hit & ~taken).mean())


def _side_px(pose, rects, z, roof):
    """Projected perimeter of every frame's top edge 1 mm inside (straight sides project straight)."""
    e, total = 0.001, 0.0
    for u0, v0, u1, v1 in rects:
        c = [(u0 + e, v0 + e), (u1 - e, v0 + e), (u1 - e, v1 - e), (u0 + e, v1 - e), (u0 + e, v0 + e)]
        uv, _ = project(roof_to_world(roof, [[a, b, z] for a, b in c]), pose.K_array(), pose.cam_to_world_array())
        total += float(np.linalg.norm(np.diff(uv, axis=0), axis=1).sum())
    return total


def test_visible_edge_px_is_the_projected_frame_perimeter(spec):
    geo, pose, rects, M = _array_scene(spec, wall=False)
    want = _side_px(pose, rects, module_top_z(spec.roof), spec.roof)
    assert want > 1000.0
    assert sg.visible_edge_px(geo, spec, pose) == pytest.approx(want, rel=1e-9)


def test_a_frames_own_parts_do_not_hide_its_edge(spec):
    """Table 2 'unoccluded': the first hit being the frame itself counts as seen, even when it
    is the frame's own part 1 m up that the ray meets first; a card of another object would hide it."""
    geo, pose, rects, M = _array_scene(spec, wall=False, lip=True)
    want = _side_px(pose, rects, module_top_z(spec.roof), spec.roof)
    assert sg.visible_edge_px(geo, spec, pose) == pytest.approx(want, rel=1e-9)


def test_visible_edge_px_counts_segments_with_both_ends_seen(spec):
    geo, pose, rects, M = _array_scene(spec, wall=True)
    C = (pose.center - M[:3, 3]) @ M[:3, :3]
    total, hidden_any = 0.0, False
    for name, P in sg.module_edge_polylines(spec):
        p = (P - M[:3, 3]) @ M[:3, :3]
        hidden = C[0] + (p[:, 0] - C[0]) * (CAM_H - WALL_W) / (CAM_H - p[:, 2]) < WALL_U
        hidden_any |= bool(hidden.any() and not hidden.all())
        uv, _ = project(P, pose.K_array(), pose.cam_to_world_array())
        seg = ~hidden[:-1] & ~hidden[1:]
        total += float(np.linalg.norm(uv[1:] - uv[:-1], axis=1)[seg].sum())
    assert hidden_any                                   # the wall cuts across the first column
    full = _side_px(pose, rects, module_top_z(spec.roof), spec.roof)
    assert 0.5 * full < total < 0.95 * full
    assert sg.visible_edge_px(geo, spec, pose) == pytest.approx(total, rel=1e-9)


def test_visible_edge_px_of_a_view_away_from_the_array_is_zero(spec):
    geo, pose, _, _ = _array_scene(spec, wall=False)
    away = pose_for_phone(spec.phone, "main", 1.0, "landscape", 320,
                          look_at(pose.center, pose.center + (pose.center - display_matrix(spec.roof, spec.gauge)[:3, 3])),
                          "pinhole", None, 1 / 250)
    assert sg.visible_edge_px(geo, spec, away) == 0.0


@pytest.mark.parametrize("wall", [False, True])
def test_score_scene_on_the_hand_array(spec, wall):
    geo, pose, rects, M = _array_scene(spec, wall=wall)
    glass = _grid_glass_share(spec, pose, rects, M, wall=wall)
    assert 0.3 < glass < 0.9
    t = by_name(sg.score_scene(geo, SimpleNamespace(pose=pose)))
    # the display (on the glass, in the middle of the array) is all in frame and seen
    assert (t["display_in_frame"].value, t["display_unoccluded"].value) == (1.0, 1.0)
    assert t["module_glass_in_frame"].value == pytest.approx(glass, abs=1e-6)
    assert t["module_edge_visible"].value == pytest.approx(sg.visible_edge_px(geo, spec, pose), abs=1e-5)
    assert t["digit_height"].value == pytest.approx(sg.digit_height_px(spec, pose), abs=1e-5)
    assert not t["digit_height"].passed               # 6 m away the digits are a few px tall
    # a card over the display: in frame, seen by none of its 45 samples
    geo2, pose2, _, _ = _array_scene(spec, wall=wall, cover=True)
    t2 = by_name(sg.score_scene(geo2, SimpleNamespace(pose=pose2)))
    assert (t2["display_in_frame"].value, t2["display_unoccluded"].value) == (1.0, 0.0)
    assert len(display_points(spec.roof, spec.gauge)) == 45


def test_ground_truth_rounds_the_display_pixel_to_3_decimals_and_the_angle_to_6(spec):
    """An oblique view puts the display off the principal point at a pixel with many decimals:
    the answer key keeps 3 of them (u and v), the true axis angle 6."""
    from blender_envs.solar.slope_gauge import true_reading_deg

    pose, X = _square_on(spec, 0.3, 40.0)
    off = pose_at(spec, pose.center, X + np.array([0.0123, -0.0071, 0.0049]))
    uv, _ = project(X[None], off.K_array(), off.cam_to_world_array())
    gt = sg.ground_truth(_geo(spec), SimpleNamespace(pose=off))
    assert gt["display_px"] == [round(float(uv[0, 0]), 3), round(float(uv[0, 1]), 3)]
    assert all(abs(x * 1000 - round(x * 1000)) < 1e-6 for x in gt["display_px"])
    assert all(abs(float(a) - b) > 1e-5 for a, b in zip(uv[0], gt["display_px"]))   # rounding did something
    true = true_reading_deg(spec.roof, spec.gauge)
    assert gt["true_axis_angle_deg"] == round(true, 6) and gt["true_axis_angle_deg"] != true


def test_ground_truth_has_no_display_pixel_for_a_display_on_the_image_plane(spec):
    """The display centre exactly on the camera's image plane (depth 0) has no pixel, as one behind it."""
    X = display_matrix(spec.roof, spec.gauge)[:3, 3]
    eye = X + np.array([0.0, 1.0, 0.0])                      # beside the display, looking along +x
    pose = pose_at(spec, eye, eye + np.array([1.0, 0.0, 0.0]))
    _, z = project(X[None], pose.K_array(), pose.cam_to_world_array())
    assert z[0] == 0.0
    assert sg.ground_truth(_geo(spec), SimpleNamespace(pose=pose))["display_px"] is None


def test_pixel_grid_ids_odd_step_rows_sit_on_integer_pixel_centres(spec):
    """The rows as the columns: with step 5 the centres are rows 2, 7, 12, ...; an edge at v = 237.25
    falls between the centre at row 237 and where a half-pixel shift would put it (237.5)."""
    pose = pose_at(spec, [0.0, 0.0, 0.0], [0.0, 1.0, 0.0])             # looking along +y, v grows with -z
    K = pose.K_array()
    ze = (K[1, 2] - 237.25) / K[1, 1] * 2.0
    below = trimesh.Trimesh(vertices=[[-5.0, 2.0, -5.0], [5.0, 2.0, -5.0], [5.0, 2.0, ze], [-5.0, 2.0, ze]],
                            faces=[[0, 1, 2], [0, 2, 3]])
    ids5 = sg.pixel_grid_ids(Raycaster(SceneMesh.from_trimesh_parts([(5, "below", below)])), pose, step=5)
    assert np.array_equal(ids5[:, 0], np.where(np.arange(2, pose.height, 5) > 237.25, 5, 0))
