"""car_plate end to end: the printed plate (font, glyph height, the state name in full)
read back by tesseract from the texture, the "CA" vs "California" grading decision, every
scene term just inside and just outside its threshold on constructed poses, the pure
acceptance of the farm's random field poses (Table 9's scorer-acceptable 21%), and tiny
Cycles renders: the exported-mesh terms equal the pure ones, the plate mask sits on the
projected plate, and OCR reads the accepted frames' plates and mostly fails on the same
poses rejected only for legibility."""
from __future__ import annotations

import math
import shutil
import tempfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import yaml

import scorers.car_plate as cp
from blender_envs.registry import get_environment
from blender_envs.vehicle import car_plate as env_mod
from blender_envs.vehicle import plate_texture as ptex
from blender_envs.vehicle.body import PLATE_SIZE_M
from blender_envs.vehicle.plates import CHAR_HEIGHT_M, STATES, Plate
from conftest import ROOT
import vehicle_frames
from vehicle_frames import ocr, polygon_centroid, render_view
from geometry.camera import look_at, pose_for_phone
from render_farm.job import view_seed
from render_farm.plan import plan_jobs
from render_farm.seeds import rng_for
from scorers.terms import Verdict, verdict_of

ENV = get_environment("car_plate")
HAVE_TESSERACT = shutil.which("tesseract") is not None
NO_TESS = "tesseract not on PATH: OCR legibility cross-check skipped (apt-get install tesseract-ocr)"


def spec_of(seed: int):
    return ENV.sample_scene(rng_for("test_car_plate", seed, "scene"), f"t{seed}", seed)


def field_views(scenes: int, long_side: int, root_seed: int = 0):
    return vehicle_frames.field_views("car_plate", scenes, long_side, root_seed)




# ------------------------------------------------------------------ the environment and the plate print

def test_registered_documentation_only():
    assert ENV.scorer == "scorers.car_plate" and ENV.acceptability_scored is False
    assert ENV.scores_acceptability({}) is False
    assert yaml.safe_load((ROOT / "configs/env/car_plate.yaml").read_text())["name"] == "car_plate"


def test_the_font_is_debians_condensed_bold_and_its_absence_stops_the_build(monkeypatch):
    assert ptex.FONT_PATH.name == "DejaVuSansCondensed-Bold.ttf" and ptex.FONT_PACKAGE == "fonts-dejavu-extra"
    assert ptex.font(40).getname() == ("DejaVu Sans", "Condensed Bold")
    ptex.font.cache_clear()
    monkeypatch.setattr(ptex, "FONT_PATH", Path("/nonexistent/font.ttf"))
    with pytest.raises(ptex.FontMissing, match="apt-get install fonts-dejavu-extra"):
        ptex.plate_texture(Plate(state_code="CA", format="#???###", text="7BCD123"))
    ptex.font.cache_clear()


@pytest.mark.parametrize("code", sorted(STATES))
def test_plate_texture_layout(code):
    """1219 x 610 px for 12 x 6 in; the serial's glyphs are 70 mm (280 px, to 1.5 px) tall,
    inside the plate, narrowed to at most 86% of its width; the name is 18 mm tall."""
    st = STATES[code]
    plate = Plate(state_code=code, format=st.formats[0], text=st.formats[0].replace("?", "W").replace("#", "8"))
    img, height, lay = ptex.plate_texture(plate)
    assert img.size == height.size == (1219, 610)
    assert lay["char_height_m"] == pytest.approx(CHAR_HEIGHT_M, abs=1.5 / ptex.PLATE_PX_PER_M)
    x0, y0, x1, y1 = lay["serial_box_m"]
    assert 0 < x0 < x1 <= PLATE_SIZE_M[0] and 0 < y0 < y1 < PLATE_SIZE_M[1]
    assert x1 - x0 <= ptex.SERIAL_WIDTH_FRAC * PLATE_SIZE_M[0] + 1e-3
    assert lay["name_height_m"] == pytest.approx(0.018, abs=1.5 / ptex.PLATE_PX_PER_M)
    n0, n1 = lay["name_box_m"][1], lay["name_box_m"][3]
    assert (n1 < y0) if st.name_position == "top" else (n0 > y1)       # the name clears the serial
    h = np.asarray(height)
    assert (h.max() == 255) and lay["embossed"] == st.embossed


@pytest.mark.skipif(not HAVE_TESSERACT, reason=NO_TESS)
@pytest.mark.parametrize("code, text", [("CA", "7BCD123"), ("PA", "KXR-4012"), ("FL", "BXR K12"), ("TX", "HKT-2087")])
def test_tesseract_reads_the_serial_and_the_full_state_name_off_the_texture(code, text):
    import cv2

    img, _, lay = ptex.plate_texture(Plate(state_code=code, format="", text=text))
    gray = cv2.cvtColor(np.asarray(img), cv2.COLOR_RGB2GRAY)
    assert ocr(cv2.resize(gray, (610, 305), interpolation=cv2.INTER_AREA)) == "".join(c for c in text if c.isalnum())
    m = ptex.PLATE_PX_PER_M                                  # the name line on its own (tesseract skips
    x0, y0, x1, y1 = (int(round(v * m)) for v in lay["name_box_m"])   # small print beside big)
    assert ocr(gray[max(0, y0 - 20):y1 + 20, max(0, x0 - 20):x1 + 20]) == STATES[code].state.upper().replace(" ", "")


# ------------------------------------------------------------------ ground truth and the state decision

def test_ground_truth_and_ca_vs_california_is_graded_on_the_full_name():
    """Decision (docs/envs/vehicles.md, no alias table): the key is the full name the plate
    prints; App. D's normalisation makes case and spacing free, the USPS code wrong."""
    from packagers.prompts import get_prompt
    from scorers.realitybench_grading import score_field

    keys = {k.name: k for k in get_prompt("car_plate").keys}
    spec = spec_of(0).model_copy(deep=True)
    spec.lot.cars[0].plate = Plate(state_code="CA", format="#???###", text="7BCD123")
    view = ENV.sample_view(spec, np.random.default_rng(0), 0, 320)
    gt = cp.ground_truth(SimpleNamespace(spec=spec), view)
    assert (gt["plate"], gt["state"], gt["state_code"]) == ("7BCD123", "California", "CA")
    assert gt["acceptability_scored"] is False and gt["plate_end"] in ("front", "rear")
    for answer, score in (("California", 1.0), ("CALIFORNIA", 1.0), ("california ", 1.0), ("CA", 0.0),
                          ("Calif.", 0.0), ("State of California", 0.0)):
        assert score_field(keys["state"], answer, gt["state"]) == score, answer
    for answer, score in (("7BCD123", 1.0), ("7bcd 123", 1.0), ("7BCD-123", 1.0), ("7BCD12", 0.0)):
        assert score_field(keys["plate"], answer, gt["plate"]) == score, answer
    spec.lot.cars[0].plate = Plate(state_code="NY", format="???-####", text="KXR-4012")
    gt = cp.ground_truth(SimpleNamespace(spec=spec), view)
    assert (gt["plate"], gt["state"]) == ("KXR4012", "New York")
    assert score_field(keys["state"], "NEW YORK", gt["state"]) == 1.0
    assert score_field(keys["state"], "NY", gt["state"]) == 0.0


# ------------------------------------------------------------------ terms on constructed poses

def _square_pose(spec, end, dist, long_side=640, off_deg=0.0, aim_offset=None):
    """Pinhole, level with the plate centre, `off_deg` round it horizontally, aimed at it."""
    car = spec.lot.subject
    T = env_mod.plate_frame(car, end)
    X, n, r = T[:3, 3], T[:3, 2], T[:3, 0]
    a = math.radians(off_deg)
    eye = X + dist * (math.cos(a) * n + math.sin(a) * r)
    target = X if aim_offset is None else X + aim_offset
    return pose_for_phone(spec.phone, "main", 1.0, "landscape", long_side, look_at(eye, target), "pinhole", None,
                          1 / 250)


def _terms(spec, pose, end):
    return {t.name: t for t in cp.scene_terms_of(spec, pose, end)}


@pytest.mark.parametrize("end", ["front", "rear"])
def test_char_px_and_bbox_flip_at_their_worked_distances(end):
    """Square on, the 70 mm glyph spans f h / d px, so char_px = 12 at d = f 0.07 / 12; the
    bbox is (f W / d)(f H / d) / frame, = 2% at d = f sqrt(W H / (0.02 frame)). 1% nearer
    passes, 1% further fails; every other term passes on these poses."""
    spec = spec_of(3)
    f = _square_pose(spec, end, 1.0, long_side=160).K_array()[0, 0]
    pose = _square_pose(spec, end, 1.0, long_side=160)
    d_char = f * CHAR_HEIGHT_M / cp.CHAR_PX_MIN
    d_bbox = f * math.sqrt(PLATE_SIZE_M[0] * PLATE_SIZE_M[1] / (cp.BBOX_MIN * pose.width * pose.height))
    assert d_char < d_bbox                            # at 160 px legibility binds first
    near, far = _terms(spec, _square_pose(spec, end, 0.99 * d_char, 160), end), \
        _terms(spec, _square_pose(spec, end, 1.01 * d_char, 160), end)
    assert near["char_px"].value == pytest.approx(12.0 / 0.99, rel=1e-4) and near["char_px"].passed
    assert not far["char_px"].passed and all(t.passed for k, t in far.items() if k != "char_px")
    assert all(t.passed for t in near.values())
    f640 = _square_pose(spec, end, 1.0).K_array()[0, 0]
    p640 = _square_pose(spec, end, 1.0)
    d_bbox = f640 * math.sqrt(PLATE_SIZE_M[0] * PLATE_SIZE_M[1] / (cp.BBOX_MIN * p640.width * p640.height))
    inside, outside = _terms(spec, _square_pose(spec, end, 0.99 * d_bbox), end), \
        _terms(spec, _square_pose(spec, end, 1.01 * d_bbox), end)
    assert inside["plate_bbox"].value == pytest.approx(0.02 / 0.99**2, rel=1e-3) and inside["plate_bbox"].passed
    assert not outside["plate_bbox"].passed and outside["char_px"].passed


def test_view_angle_in_frame_unoccluded_and_blur_edges():
    spec = spec_of(4)
    for deg, ok in ((44.9, True), (45.1, False)):
        t = _terms(spec, _square_pose(spec, "rear", 0.8, off_deg=deg), "rear")
        assert t["view_angle"].value == pytest.approx(deg, abs=1e-6) and t["view_angle"].passed == ok
    # aimed 0.35 m to the plate's side from 0.6 m: the plate leaves the frame's edge
    T = env_mod.plate_frame(spec.lot.subject, "front")
    t = _terms(spec, _square_pose(spec, "front", 0.6, aim_offset=0.35 * T[:3, 0]), "front")
    assert 0.0 < t["plate_in_frame"].value < 1.0 and not t["plate_in_frame"].passed
    # from behind the plate's plane (inside the bumper) it is its back: occluded
    t = _terms(spec, _square_pose(spec, "front", 0.6, off_deg=100.0), "front")
    assert t["plate_unoccluded"].value == 0.0 and not t["view_angle"].passed
    # focus locked at 3 m from 0.35 m (1600 px): blur over 6 px fails sharp_at_target alone
    car = spec.lot.subject
    X = env_mod.plate_frame(car, "front")[:3, 3]
    eye = X + 0.35 * env_mod.plate_frame(car, "front")[:3, 2]
    soft = pose_for_phone(spec.phone, "main", 1.0, "landscape", 1600, look_at(eye, X), "locked_elsewhere", 3.0,
                          1 / 250)
    t = _terms(spec, soft, "front")
    assert t["sharp_at_target"].value > 6 and not t["sharp_at_target"].passed
    assert all(x.passed for k, x in t.items() if k != "sharp_at_target")


def test_frame_terms_on_synthetic_masks():
    img = np.full((20, 20, 3), 200, np.uint8)
    img[6:12, 4:16] = 30
    mask = np.zeros((20, 20), bool)
    mask[3:15, 2:18] = True
    t = {x.name: x for x in cp.frame_terms_of(img, mask)}
    assert t["plate_contrast"].passed and t["plate_saturated"].value == 0.0
    t = {x.name: x for x in cp.frame_terms_of(np.full_like(img, 255), mask)}
    assert not t["plate_saturated"].passed and not t["plate_contrast"].passed


# ------------------------------------------------------------------ the field pose and acceptance

def test_field_poses_stay_in_front_of_the_plate_inside_the_clear_disc():
    for spec, view in field_views(30, 640):
        end = cp.target_end(view)
        T = env_mod.plate_frame(spec.lot.subject, end)
        c = view.pose.center
        assert (c - T[:3, 3]) @ T[:3, 2] > 0.15                 # in front of the plate
        assert math.hypot(c[0], c[1]) < spec.lot.clear_radius_m
        assert np.linalg.norm(c - T[:3, 3]) <= math.hypot(env_mod.DISTANCE_M[1], 1.5)


@pytest.mark.parametrize("long_side, accepted", [(640, 91), (1600, 86)])
def test_scene_side_acceptance_of_400_field_poses(long_side, accepted):
    """Acceptability is not scored (Table 1 "–"); Table 9 prints 21% scorer-acceptable plate
    frames. Measured on the farm's first 400 random poses (root seed 0): 91 at 640 px
    (0.228), 86 at final's 1600 px (0.215; blur in px grows with the resolution)."""
    verdicts = [verdict_of(cp.pure_scene_terms(spec, view)) for spec, view in field_views(100, long_side)]
    assert len(verdicts) == 400
    n = sum(v == Verdict.ACCEPT for v in verdicts)
    assert n == accepted and 0.5 * 0.21 <= n / 400 <= 1.5 * 0.21


# ------------------------------------------------------------------ real renders

def _built(seed: int = 0):
    from render_farm.job import build_scene

    q = yaml.safe_load((ROOT / "configs/render/preview.yaml").read_text())
    tmp = tempfile.mkdtemp()
    (Path(tmp) / "scenes").mkdir()
    job = plan_jobs("car_plate", 1, 1, "random", set(), root_seed=seed, run_dir=tmp, quality=q, device="cpu")[0]
    scene, geo, _ = build_scene(job)
    return job, scene, geo




def rectified_plate(image, pose, car, end, px_per_m=2000):
    import cv2

    from geometry.camera import project

    uv, _ = project(env_mod.plate_corners(car, end), pose.K_array(), pose.cam_to_world_array())
    w, h = int(PLATE_SIZE_M[0] * px_per_m), int(PLATE_SIZE_M[1] * px_per_m)
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    H = cv2.getPerspectiveTransform(uv.astype(np.float32), dst)
    return cv2.warpPerspective(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY), H, (w, h), flags=cv2.INTER_CUBIC)


@pytest.mark.render
def test_rendered_plates_mesh_terms_mask_and_ocr():
    """One built lot (the farm's first car_plate scene): on its field poses the exported-mesh
    in-frame / unoccluded fractions equal the pure ones; three straight-ish poses accepted
    at 320 px (glyphs 15, 19, 23 px) and the same poses at 160 and 120 px, rejected only on
    char_px (bbox share and angle do not depend on the resolution). The plate's object-index mask
    centroid is the projected plate's area centroid (<= 1.5 px). OCR of the rectified plate reads the
    serial on >= 2 of the 3 accepted frames and on at most half of the 6 legibility
    rejects (measured 3 / 3 and 2 / 6: tesseract reads these bold glyphs down to about
    9.5 px, below the paper's 12; docs/envs/car_plate.md)."""
    from geometry.camera import project
    from geometry.scene import View
    from scorers.image_stats import mask_centroid

    job, scene, geo = _built()
    spec = geo.spec
    car = spec.lot.subject
    for v in range(8):
        view = ENV.sample_view(spec, np.random.default_rng(view_seed(job, v, 0)), v, 320)
        farm = {t.name: t.value for t in cp.score_scene(geo, view)}
        pure = {t.name: t.value for t in cp.pure_scene_terms(spec, view)}
        assert farm == pytest.approx(pure, abs=1e-9), (v, farm, pure)
    poses = []
    f320 = _square_pose(spec, "rear", 1.0, long_side=320).K_array()[0, 0]
    for end, off, glyph_px in (("rear", 8.0, 15.0), ("front", -15.0, 19.0), ("rear", 25.0, 23.0)):
        dist = f320 * CHAR_HEIGHT_M / glyph_px              # square-on glyph height at 320 px
        p320 = _square_pose(spec, end, dist, long_side=320, off_deg=off)
        t = _terms(spec, p320, end)
        assert all(x.passed for x in t.values()) and 14 <= t["char_px"].value <= 24, (end, t)
        small = []
        for ls in (160, 120):                                  # glyphs 7.5-11.5 and 5.6-8.6 px
            p = _square_pose(spec, end, dist, long_side=ls, off_deg=off)
            t = _terms(spec, p, end)
            assert [k for k, x in t.items() if not x.passed] == ["char_px"], t
            small.append(p)
        poses.append((end, p320, small))
    reads = {"accepted": 0, "legibility_rejected": 0}
    want = car.plate.characters()
    for end, p320, small in poses:
        image, index = render_view(scene, p320)
        u, v = polygon_centroid(project(env_mod.plate_corners(car, end), p320.K_array(), p320.cam_to_world_array())[0])
        cu, cv = mask_centroid(index, geo.object_id(env_mod.plate_object(end)))
        assert math.hypot(cu - u, cv - v) <= 1.5
        ft = {t.name: t for t in cp.score_frame(geo, View(view_index=0, pose=p320, target=f"subject_plate:{end}"),
                                                SimpleNamespace(image=image, object_index=index))}
        assert ft["plate_contrast"].passed, ft
        if HAVE_TESSERACT:
            reads["accepted"] += want in ocr(rectified_plate(image, p320, car, end))
            for p in small:
                img, _ = render_view(scene, p)
                reads["legibility_rejected"] += want in ocr(rectified_plate(img, p, car, end))
    if not HAVE_TESSERACT:
        pytest.skip(NO_TESS)
    print("car_plate OCR reads", reads)
    assert reads["accepted"] >= 2 and reads["legibility_rejected"] <= 3, reads      # of 3 and of 6


# ------------------------------------------------------------------ the ground truth's and frame terms' wiring

@pytest.mark.parametrize("end", ["front", "rear"])
def test_ground_truth_carries_each_term_geometry_rounded(end):
    """Every key of the ground truth from its own function of the spec and pose: four decimals for
    the term values, three for the corners, six for the character height; the plate's mask pixels
    counted on the plate object's pass index; corners None once a corner is behind the camera."""
    from geometry.camera import project

    spec = spec_of(3)
    car = spec.lot.subject
    pose = _square_pose(spec, end, 2.345, off_deg=17.0)
    view = SimpleNamespace(pose=pose, target=f"subject_plate:{end}")
    ids = {env_mod.plate_object(end): 41}
    mask_index = np.zeros((pose.height, pose.width), np.int32)
    mask_index[10:20, 30:37] = 41
    mask_index[0, 0] = 42
    frame = SimpleNamespace(object_index=mask_index, image=np.zeros((pose.height, pose.width, 3), np.uint8))
    geo = SimpleNamespace(spec=spec, object_id=ids.__getitem__)
    gt = cp.ground_truth(geo, view, frame)
    uv, _ = project(env_mod.plate_corners(car, end), pose.K_array(), pose.cam_to_world_array())
    _, _, lay = ptex.plate_texture(car.plate)
    want = {"plate_end": end, "embossed": car.plate.style.embossed, "body_style": car.body.style,
            "color": car.color, "char_height_m": round(lay["char_height_m"], 6),
            "char_px": round(cp.char_px(car, end, pose), 4),
            "view_angle_deg": round(cp.plate_view_angle(car, end, pose), 4),
            "plate_bbox_fraction": round(cp.plate_bbox_fraction(car, end, pose), 4),
            "plate_corners_px": np.round(uv, 3).tolist(),
            "blur_at_plate_px": round(cp.blur_at_plate_px(car, end, pose), 4),
            "distractors": len(spec.lot.cars) - 1, "plate_mask_px": 70, "acceptability_scored": False}
    assert {k: gt[k] for k in want} == want
    assert math.isclose(gt["view_angle_deg"], 17.0, abs_tol=1e-3)
    assert "plate_mask_px" not in cp.ground_truth(geo, view)
    behind = _square_pose(spec, end, 0.4, aim_offset=3.0 * env_mod.plate_frame(car, end)[:3, 2])   # faces away
    assert cp.ground_truth(geo, SimpleNamespace(pose=behind, target=view.target))["plate_corners_px"] is None
    # the frame terms read the target plate's pixels only
    img = np.full((pose.height, pose.width, 3), 255, np.uint8)
    img[10:20, 30:37] = 20
    t = {x.name: x for x in cp.score_frame(geo, view, SimpleNamespace(image=img, object_index=mask_index))}
    assert t["plate_saturated"].value == 0.0 and t["plate_contrast"].value is not None
    for bad in (end, f"subject_plate:{end}s", "subject_plate"):
        with pytest.raises(ValueError, match="names no plate end"):
            cp.target_end(SimpleNamespace(target=bad))


def test_score_scene_ray_casts_the_plate_points_against_the_mesh():
    """A mesh of the plate (pass index 41) and, 0.2 m in front of it, a board over the columns of
    plate points left of u = -0.06 W (4 of the 9): in frame 1, unoccluded 5/9, and every other
    term as the spec alone gives it. Without the board: unoccluded 1."""
    from geometry.raycast import Raycaster, SceneMesh

    spec = spec_of(3)
    car, end = spec.lot.subject, "rear"
    pose = _square_pose(spec, end, 2.345)
    T = env_mod.plate_frame(car, end)
    X, r, up, n = T[:3, 3], T[:3, 0], T[:3, 1], T[:3, 2]
    W = PLATE_SIZE_M[0]
    corners = env_mod.plate_corners(car, end)
    board = np.array([X + 0.2 * n + a * r + b * up for a, b in ((-W, -0.5), (-0.06 * W, -0.5), (-0.06 * W, 0.5),
                                                                    (-W, 0.5))])

    def geo_with(parts):
        V = np.concatenate([p for p, _ in parts])
        tris = [[4 * k, 4 * k + 1, 4 * k + 2] for k in range(len(parts))] + \
               [[4 * k, 4 * k + 2, 4 * k + 3] for k in range(len(parts))]
        ids = [i for _, i in parts] * 2
        mesh = SceneMesh(vertices=V, triangles=np.array(tris), tri_object_id=np.array(ids),
                         object_ids=np.array(sorted(set(ids))), object_names=[f"o{i}" for i in sorted(set(ids))])
        return SimpleNamespace(spec=spec, raycaster=Raycaster(mesh), object_id={env_mod.plate_object(end): 41}.get)

    view = SimpleNamespace(pose=pose, target=f"subject_plate:{end}")
    for parts, unoccluded in (([(corners, 41), (board, 99)], 5 / 9), ([(corners, 41)], 1.0)):
        got = cp.score_scene(geo_with(parts), view)
        want = cp.scene_terms_of(spec, pose, end, 1.0, unoccluded)
        assert [(t.name, t.value) for t in got][:1] == [("plate_in_frame", 1.0)]
        assert math.isclose(got[1].value, unoccluded, abs_tol=1e-6) and got[1].name == "plate_unoccluded"
        assert [(t.name, t.value) for t in got[2:]] == [(t.name, t.value) for t in want[2:]]
