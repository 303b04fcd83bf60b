"""scorers.equipment_label: px per text row and per barcode module, view angle, context
ids and the answer key, for a camera placed on the label's normal (pinhole: u = cx + f x / z)."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

import scorers.equipment_label as el
from blender_envs.solar.equipment_label import LABEL_OBJECT, label_corners, label_frame, sample_scene
from geometry.camera import look_at, pose_for_phone, project


@pytest.fixture(scope="module")
def spec():
    return sample_scene(np.random.default_rng(4), "s0", 4)


def _pose(spec, d=0.3, angle=0.0, mode="pinhole", focus=None):
    T = label_frame(spec.label)
    X, n, up = T[:3, 3], T[:3, 2], T[:3, 1]
    a = math.radians(angle)
    eye = X + d * (math.cos(a) * n + math.sin(a) * up)
    return pose_for_phone(spec.phone, "main", 1.0, "landscape", 640, look_at(eye, X), mode, focus, 1 / 250)


def by_name(terms):
    return {t.name: t for t in terms}


def test_resolution_square_on_is_f_times_size_over_distance(spec):
    pose = _pose(spec, 0.3)
    f = pose.K_array()[0, 0]
    row_px, mod_px = el.resolution_px(spec, pose)
    assert row_px == pytest.approx(f * spec.label.row_m / 0.3, rel=2e-3)
    assert mod_px == pytest.approx(f * el.barcode_module_m(spec) / 0.3, rel=2e-3)
    assert 0 < el.barcode_module_m(spec) < spec.label.row_m


def test_view_angle_and_blur(spec):
    for a in (0.0, 25.0, 59.0):
        assert el.label_view_angle(spec, _pose(spec, 0.3, a)) == pytest.approx(a, abs=1e-6)
    assert el.blur_at_label_px(spec, _pose(spec)) == 0.0
    locked = _pose(spec, 0.3, mode="locked_elsewhere", focus=3.0)
    f, N = locked.lens.focal_mm, locked.fnumber
    c_px = (f / N) * abs(300.0 - 3000.0) / 300.0 * f / (3000.0 - f) / locked.sensor_width_mm * 640
    assert el.blur_at_label_px(spec, locked) == pytest.approx(c_px, rel=1e-5)


@pytest.mark.parametrize("on, ids", [("module", [2, 3, 4, 5, 6, 7, 8]), ("microinverter", [2, 3, 4, 6, 7, 9]),
                                     ("inverter", [10, 11])])
def test_context_ids_per_mounting(spec, on, ids):
    cats = ["module_backsheet", "module_glass", "module_frame", "module_jbox", "rail", "l_foot", "clamp",
            "microinverter", "inverter", "conduit", "shingles"]
    objs = [SimpleNamespace(id=i + 2, category=c) for i, c in enumerate(cats)]
    s = spec.model_copy(update={"label": spec.label.model_copy(update={"on": on})})
    assert el.context_ids(SimpleNamespace(state=SimpleNamespace(objects=objs)), s) == ids


def test_scene_terms_of_a_good_view(spec):
    terms = el.scene_terms_of(spec, _pose(spec, 0.2), 1.0, 0.96, 0.2)
    assert [t.name for t in terms] == ["label_in_frame", "label_unoccluded", "text_row_px", "barcode_module_px",
                                       "label_view_angle", "equipment_in_view", "sharp_at_target"]
    t = by_name(terms)
    assert (t["label_in_frame"].value, t["label_unoccluded"].value, t["equipment_in_view"].value) == (1.0, 0.96, 0.2)
    assert t["text_row_px"].unit == "px" and t["label_view_angle"].unit == "deg"


def test_ground_truth(spec):
    pose = _pose(spec, 0.3)
    idx = np.zeros((pose.height, pose.width), np.int32)
    idx[10:20, 10:40] = 8
    geo = SimpleNamespace(spec=spec, object_id=lambda name: {LABEL_OBJECT: 8}[name])
    frame = SimpleNamespace(image=np.zeros((pose.height, pose.width, 3), np.uint8), object_index=idx)
    gt = el.ground_truth(geo, SimpleNamespace(pose=pose), frame)
    lab = spec.label
    assert (gt["brand"], gt["model"], gt["serial"], gt["on"]) == (lab.brand, lab.model, lab.serial, lab.on)
    row_px, mod_px = el.resolution_px(spec, pose)
    assert gt["text_row_px"] == round(row_px, 4) and gt["barcode_module_px"] == round(mod_px, 4)
    uv, _ = project(label_corners(lab), pose.K_array(), pose.cam_to_world_array())
    assert gt["label_corners_px"] == np.round(uv, 3).tolist()
    # square-on, the corners are symmetric about the principal point
    K = pose.K_array()
    c = np.asarray(gt["label_corners_px"])
    assert c.mean(axis=0) == pytest.approx([K[0, 2], K[1, 2]], abs=1e-2)
    assert gt["blur_at_label_px"] == 0.0 and gt["label_mask_px"] == 300
    assert "label_mask_px" not in el.ground_truth(geo, SimpleNamespace(pose=pose))
    T = label_frame(lab)
    behind = pose_for_phone(spec.phone, "main", 1.0, "landscape", 640,
                            look_at(pose.center, pose.center + (pose.center - T[:3, 3])), "pinhole", None, 1 / 250)
    assert el.ground_truth(geo, SimpleNamespace(pose=behind))["label_corners_px"] is None


def test_score_frame_reads_the_label_mask(spec):
    img = np.full((20, 20, 3), 200, np.uint8)
    idx = np.zeros((20, 20), np.int32)
    idx[2:12, 2:18] = 8
    img[5:8, 5:15] = 20
    img[15:, :] = 255
    geo = SimpleNamespace(object_id=lambda name: {LABEL_OBJECT: 8}[name])
    t = by_name(el.score_frame(geo, None, SimpleNamespace(image=img, object_index=idx)))
    assert t["label_saturated"].value == 0.0 and t["paper_luminance"].passed and t["label_contrast"].passed


def test_r():
    assert el._r(1.234567) == 1.2346 and el._r(None) is None and el._r(float("nan")) is None


# ------------------------------------------------ ray casts on a hand-made label (no Blender)

def _rect(T, w, h, lift=0.0):
    """A w x h rectangle in the plane of frame T (x right, y up), lifted `lift` along its z."""
    x, y, c = T[:3, 0], T[:3, 1], T[:3, 3] + lift * T[:3, 2]
    v = [c - w / 2 * x - h / 2 * y, c + w / 2 * x - h / 2 * y, c + w / 2 * x + h / 2 * y, c - w / 2 * x + h / 2 * y]
    import trimesh
    return trimesh.Trimesh(np.array(v), [[0, 1, 2], [0, 2, 3]], process=False)


def _geo(spec, parts):
    from geometry.raycast import Raycaster, SceneMesh
    from geometry.scene import SceneObject, SceneState

    mesh = SceneMesh.from_trimesh_parts([(i, n, m) for i, n, _, m in parts])
    objs = [SceneObject(id=i, name=n, category=c, pass_index=i) for i, n, c, _ in parts]
    state = SceneState(env="equipment_label", scene_id="s0", spec={}, objects=objs, meshes="m.npz")
    return SimpleNamespace(spec=spec, state=state, mesh=mesh, raycaster=Raycaster(mesh),
                           object_id=lambda name: state.object_by_name(name).id)


def test_pixel_grid_ids_through_every_8th_pixel_centre(spec):
    """Camera at the origin looking along +y (x right, z up); a plate at y = 1 covering the
    pixels u < 99, v < 99: the grid's pixel centres are u = 4, 12, ..., 636 and v = 4, ..., 476,
    so its first 12 columns and rows (centres 4 ... 92) see the plate."""
    from geometry.raycast import Raycaster, SceneMesh

    pose = pose_for_phone(spec.phone, "main", 1.0, "landscape", 640, look_at([0, 0, 0], [0, 1, 0]), "pinhole",
                          None, 1 / 250)
    f = pose.K_array()[0, 0]
    x0, z0 = (99 - 319.5) / f, (239.5 - 99) / f
    import trimesh
    plate = trimesh.Trimesh(np.array([[-5, 1, z0], [x0, 1, z0], [x0, 1, 5], [-5, 1, 5]], float),
                            [[0, 1, 2], [0, 2, 3]], process=False)
    ids = el.pixel_grid_ids(Raycaster(SceneMesh.from_trimesh_parts([(7, "plate", plate)])), pose)
    want = np.zeros((60, 80), int)
    want[:12, :12] = 7
    assert ids.shape == (60, 80) and np.array_equal(ids, want)


CONTEXT_CATEGORY = {"module": "module_backsheet", "microinverter": "microinverter", "inverter": "inverter"}


def test_score_scene_on_a_label_over_its_equipment(spec):
    """The label and, 2 mm behind it, a 1 m plate of the equipment it is on, seen square-on from
    0.2 m: every label sample in frame and visible; the equipment fills every grid pixel but the
    label's own (projected size f w / 0.2 x f h / 0.2 about the principal point)."""
    T = label_frame(spec.label)
    w, h = spec.label.size_m
    parts = [(8, LABEL_OBJECT, "equipment_label", _rect(T, w, h)),
             (10, "equipment_body", CONTEXT_CATEGORY[spec.label.on], _rect(T, 1.0, 1.0, lift=-0.002))]
    geo = _geo(spec, parts)
    pose = _pose(spec, 0.2)
    from geometry.scene import View
    terms = el.score_scene(geo, View(view_index=0, pose=pose, target=LABEL_OBJECT))
    t = by_name(terms)
    K = pose.K_array()
    f = K[0, 0]
    us, vs = np.arange(4, 640, 8), np.arange(4, 480, 8)
    # the camera's x is the label's right, y its down: label pixels |u - cx| < f w / 0.4, likewise v
    in_u = np.abs(us - K[0, 2]) < f * w / 0.4
    in_v = np.abs(vs - K[1, 2]) < f * h / 0.4
    share_label = in_u.sum() * in_v.sum() / 4800
    assert t["equipment_in_view"].value == pytest.approx(1 - share_label, abs=2 / 4800)
    assert t["label_in_frame"].value == 1.0 and t["label_unoccluded"].value == 1.0
    assert all(x.passed for x in terms), terms
    # the plate as another category (shingles): no context
    parts[1] = (10, "roof", "shingles", parts[1][3])
    t2 = by_name(el.score_scene(_geo(spec, parts), View(view_index=0, pose=pose, target=LABEL_OBJECT)))
    assert t2["equipment_in_view"].value == 0.0 and not t2["equipment_in_view"].passed
    # a card 1 cm in front of the label's left third: samples hidden, label_unoccluded fails
    Tl = T.copy()
    Tl[:3, 3] = T[:3, 3] - w / 3 * T[:3, 0]
    parts.append((11, "card", "shingles", _rect(Tl, w / 3, h * 1.2, lift=0.01)))
    t3 = by_name(el.score_scene(_geo(spec, parts), View(view_index=0, pose=pose, target=LABEL_OBJECT)))
    assert t3["label_in_frame"].value == 1.0 and t3["label_unoccluded"].value < 0.95


def test_barcode_module_is_the_printed_modules_width(spec):
    """The texture is printed at 10 000 px/m with a margin of int(0.06 H) px each side; the code
    (its modules plus the quiet zones) fills the rest in whole pixels per module."""
    from blender_envs.solar.equipment_label_texture import QUIET_MODULES, code128b_modules

    W, H = (int(round(x * 10000)) for x in spec.label.size_m)
    n = len(code128b_modules(spec.label.serial)) + 2 * QUIET_MODULES
    assert el.barcode_module_m(spec) == int((W - 2 * int(0.06 * H)) / n) / 10000


def test_resolution_tilted_toward_the_label_top(spec):
    """Seen 50 deg off the normal toward the label's up axis: the rows (along up) shrink by about
    cos 50, the barcode modules (along right) keep f * size / distance."""
    pose = _pose(spec, 0.3, 50.0)
    f = pose.K_array()[0, 0]
    row_px, mod_px = el.resolution_px(spec, pose)
    assert row_px == pytest.approx(f * spec.label.row_m * math.cos(math.radians(50.0)) / 0.3, rel=0.02)
    assert mod_px == pytest.approx(f * el.barcode_module_m(spec) / 0.3, rel=0.02)


def test_thresholds_and_units(spec):
    t = by_name(el.scene_terms_of(spec, _pose(spec, 0.2), 1.0, 0.96, 0.2))
    assert {n: (x.threshold, x.unit) for n, x in t.items()} == {
        "label_in_frame": (">= 1", ""), "label_unoccluded": (">= 0.95", ""), "text_row_px": (">= 10 px", "px"),
        "barcode_module_px": (">= 1 px", "px"), "label_view_angle": ("<= 60 deg", "deg"),
        "equipment_in_view": (">= 0.05", ""), "sharp_at_target": ("<= 5 px", "px")}
    img = np.full((20, 20, 3), 200, np.uint8)
    img[4:8, 3:17] = 15
    mask = np.zeros((20, 20), bool)
    mask[2:14, 2:18] = True
    f = by_name(el.frame_terms_of(img, mask))
    assert {n: (x.threshold, x.side) for n, x in f.items()} == {
        "label_saturated": ("<= 0.3", "frame"), "paper_luminance": (">= 0.05", "frame"),
        "label_contrast": (">= 0.3", "frame")}


def test_label_behind_a_focused_camera_and_half_behind(spec):
    """Focus locked at 3 m with the label behind the camera: no blur value. 2 cm in front of the
    label looking along its right axis: its left corners are behind, so no corner pixels."""
    T = label_frame(spec.label)
    X, n = T[:3, 3], T[:3, 2]
    eye = X + 0.3 * n
    away = pose_for_phone(spec.phone, "main", 1.0, "landscape", 640, look_at(eye, eye + n), "locked_elsewhere",
                          3.0, 1 / 250)
    assert el.blur_at_label_px(spec, away) is None
    assert by_name(el.scene_terms_of(spec, away, 1.0, 1.0, 1.0))["sharp_at_target"].value is None
    geo = SimpleNamespace(spec=spec, object_id=lambda name: {LABEL_OBJECT: 8}[name])
    assert el.ground_truth(geo, SimpleNamespace(pose=away))["blur_at_label_px"] is None
    eye = X + 0.02 * n
    side = pose_for_phone(spec.phone, "main", 1.0, "landscape", 640, look_at(eye, eye + T[:3, 0], up=T[:3, 1]),
                          "pinhole", None, 1 / 250)
    _, z = project(label_corners(spec.label), side.K_array(), side.cam_to_world_array())
    assert (z > 0).tolist() == [False, True, True, False]
    assert el.ground_truth(geo, SimpleNamespace(pose=side))["label_corners_px"] is None
