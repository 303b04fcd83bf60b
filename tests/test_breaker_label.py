"""breaker_label: every term on hand-made poses, the card's printed text read back
(texture rows, OCR), and the rendered card mask against the projected card geometry."""
from __future__ import annotations

import math
import shutil
from types import SimpleNamespace

import numpy as np
import pytest

from blender_envs import registry
from blender_envs.house.breaker_label import (CARD_OBJECT, CIRCUITS, card_frame, card_layout, card_lines,
                                              card_points, row_centres_m, sample_scene)
from blender_envs.house.breaker_label_texture import PX_PER_M, card_texture
from geometry.camera import look_at, pose_for_phone, project
from render_farm.seeds import rng_for
from scorers import breaker_label as sc
from scorers.terms import Verdict, first_failure, verdict_of

HAVE_TESSERACT = shutil.which("tesseract") is not None
NO_TESS = "Debian's tesseract-ocr (`tesseract`) is not on PATH: the OCR legibility cross-check needs it"


def test_is_discovered_by_the_registry():
    assert registry.environment_module("breaker_label") == "blender_envs.house.breaker_label"


def _spec(k=3, **card):
    s = sample_scene(rng_for("bl-test", k), "s", k)
    if card:
        s = s.model_copy(update={"card": s.card.model_copy(update=card)})
    return s


def _pose(spec, dist, angle_deg=0.0, long_side=320, aim_offset=(0.0, 0.0)):
    """Pinhole phone pose `dist` from the card centre, turned `angle_deg` about the card's
    vertical axis, aimed at the centre (+ an offset in card metres)."""
    M = card_frame(spec)
    a = math.radians(angle_deg)
    d = math.cos(a) * M[:3, 2] + math.sin(a) * M[:3, 0]
    eye = M[:3, 3] + dist * d
    aim = M[:3, 3] + aim_offset[0] * M[:3, 0] + aim_offset[1] * M[:3, 1]
    return pose_for_phone(spec.phone, "main", 1.0, "landscape", long_side, look_at(eye, aim), "pinhole", None, 1 / 250)


def _geo(spec, extra=()):
    import trimesh

    from geometry.raycast import Raycaster, SceneMesh

    P = card_points(spec, 2, 2)  # corners: (-,-), (+,-), (-,+), (+,+)
    card = trimesh.Trimesh(vertices=P, faces=[[0, 1, 3], [0, 3, 2]])
    mesh = SceneMesh.from_trimesh_parts([(8, CARD_OBJECT, card), *extra])
    return SimpleNamespace(spec=spec, mesh=mesh, raycaster=Raycaster(mesh), object_id=lambda name: 8)


def test_spec_is_seeded_and_realistic():
    a = _spec(1)
    assert a.model_dump_json() == _spec(1).model_dump_json() != _spec(2).model_dump_json()
    names = dict(CIRCUITS)
    specs = [_spec(k) for k in range(60)]
    for s in specs:
        assert 6 <= len(s.entries) <= 16 and len({e.name for e in s.entries}) == len(s.entries)
        assert all(e.amps in names[e.name] for e in s.entries) and s.main_amps in (100, 125, 150, 200)
        assert 100 <= s.panel.door_angle_deg <= 178
    assert {s.card.style for s in specs} == {"printed", "handwritten"}
    assert {s.card.columns for s in specs} == {1, 2}


def test_card_rows_have_ink_where_the_layout_says():
    """Each text row of the texture has ink inside its band and paper on the rule line's
    far side: the legibility term's row pitch is the printed one."""
    for k in (1, 2, 5):
        s = _spec(k)
        im = np.asarray(card_texture(s).convert("L")).astype(float)
        lay = card_layout(s)
        assert im.shape == (round(s.card.height_m * PX_PER_M), round(s.card.width_m * PX_PER_M))
        v = s.card.height_m / 2 - row_centres_m(s)  # metres down from the top edge
        for r, vc in enumerate(v[: 2 + lay["rows"]]):
            band = im[int((vc - 0.3 * lay["pitch_m"]) * PX_PER_M): int((vc + 0.3 * lay["pitch_m"]) * PX_PER_M)]
            assert (band < 100).sum() > 30, f"row {r} has no ink"
        gap = im[: int(lay["margin_m"] * PX_PER_M * 0.8)]
        assert (gap < 100).sum() == 0  # the top margin is blank


def _ocr(img) -> str:
    """Tesseract on a binarised (blur + Otsu) copy: render noise otherwise reads as glyphs."""
    import subprocess
    import tempfile

    import cv2
    from PIL import Image

    g = cv2.GaussianBlur(np.asarray(img.convert("L")), (5, 5), 0)
    img = Image.fromarray(cv2.threshold(g, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1])

    with tempfile.NamedTemporaryFile(suffix=".png") as f:
        img.save(f.name)
        out = subprocess.run(["tesseract", f.name, "-", "--psm", "6"], capture_output=True, text=True, timeout=60)
    return out.stdout.upper()


def _recovered(text: str, spec) -> float:
    """Share of entries whose name and amperage both appear on one OCR line."""
    lines = [" ".join(l.split()) for l in text.splitlines()]
    hit = 0
    for e in spec.entries:
        if any(e.name in l and str(e.amps) in l.split(e.name, 1)[1][:6] for l in lines):
            hit += 1
    return hit / len(spec.entries)


@pytest.mark.skipif(not HAVE_TESSERACT, reason=NO_TESS)
def test_ocr_of_the_flat_printed_texture_recovers_the_entries():
    s = _spec(1, style="printed", columns=1)
    assert _recovered(_ocr(card_texture(s)), s) >= 0.8
    assert f"MAIN {s.main_amps}A" in _ocr(card_texture(s)).replace("  ", " ")


def test_terms_on_hand_made_poses():
    s = _spec(1)
    pitch = card_layout(s)["pitch_m"]
    # square on, close: accepted; a fronto-parallel card magnifies by f / depth everywhere
    pose = _pose(s, 0.3)
    terms = sc.score_scene(_geo(s), SimpleNamespace(pose=pose))
    by = {t.name: t for t in terms}
    f = pose.K_array()[0, 0]
    assert by["text_row_px"].value == pytest.approx(f * pitch / 0.3, rel=1e-3)  # fronto-parallel: f/Z everywhere
    assert by["view_angle"].value == pytest.approx(0.0, abs=1e-6)
    assert verdict_of(terms) == Verdict.ACCEPT, terms
    # far: rows too small (and the card a speck)
    terms = sc.score_scene(_geo(s), SimpleNamespace(pose=_pose(s, 2.0)))
    assert first_failure(terms) == "text_row_px" and not {t.name: t for t in terms}["card_bbox"].passed
    # oblique 60 deg
    terms = sc.score_scene(_geo(s), SimpleNamespace(pose=_pose(s, 0.3, 60.0)))
    assert {t.name: t for t in terms}["view_angle"].value == pytest.approx(60.0, abs=1e-6)
    assert first_failure(terms) in ("view_angle", "text_row_px")
    # from behind the door: 180 deg
    assert sc.view_angle(s, card_frame(s)[:3, 3] - 0.5 * card_frame(s)[:3, 2]) == pytest.approx(180.0)
    # aimed off to the side: the card leaves the frame
    terms = sc.score_scene(_geo(s), SimpleNamespace(pose=_pose(s, 0.3, aim_offset=(0.2, 0.0))))
    assert first_failure(terms) == "card_in_frame"
    # a board between camera and half the card
    import trimesh

    M = card_frame(s)
    c = M[:3, 3] + 0.1 * M[:3, 2]
    board = trimesh.Trimesh(vertices=[c - 0.2 * M[:3, 1], c + 0.2 * M[:3, 1], c + 0.3 * M[:3, 0] + 0.2 * M[:3, 1],
                                      c + 0.3 * M[:3, 0] - 0.2 * M[:3, 1]], faces=[[0, 1, 2], [0, 2, 3]])
    terms = sc.score_scene(_geo(s, [(9, "board", board)]), SimpleNamespace(pose=_pose(s, 0.3)))
    assert first_failure(terms) == "card_unoccluded"


def test_frame_terms_contrast_and_blowout():
    oid = np.zeros((48, 64), np.int32)
    oid[10:40, 10:50] = 8
    img = np.full((48, 64, 3), 220, np.uint8)
    img[20:24, 12:48] = 20  # ink
    terms, extra = sc.frame_terms(img, oid, 8)
    assert terms[0].passed and terms[1].passed and extra["card_mask_px"] == 1200
    flat = np.full_like(img, 200)
    assert not sc.frame_terms(flat, oid, 8)[0][0].passed                # no ink: no contrast
    blown = np.full_like(img, 255)
    blown[20:24, 12:48] = 20
    assert sc.frame_terms(blown, oid, 8)[0][1].value > 0.3             # glare washes it out


def test_ground_truth_fields_match_the_prompt_keys():
    import yaml

    from conftest import ROOT

    keys = yaml.safe_load((ROOT / "packagers/prompts/realitybench.yaml").read_text())["environments"]["breaker_label"]["keys"]
    s = _spec(4)
    gt = sc.ground_truth(_geo(s), SimpleNamespace(pose=_pose(s, 0.4)))
    assert {k["name"] for k in keys} <= set(gt)
    assert gt["main_amps"] == s.main_amps and [e["name"] for e in gt["entries"]] == [e.name for e in s.entries]
    assert card_lines(s)[0] == f"MAIN {s.main_amps}A"


@pytest.mark.render
def test_rendered_card_mask_matches_the_projected_card(tmp_path):
    """Render a real scene square-on, close and far, at 320 px: the card's object-index
    mask has the projected card's centroid and height (the scorer's card geometry is
    what was rendered)."""
    from blender_envs.core.camera_rig import apply_camera_pose
    from blender_envs.core.cycles_setup import configure_cycles, configure_device
    from blender_envs.core.render_passes import render_frame
    from blender_envs.core.scene_reset import reset_scene
    from blender_envs.core.settings import RenderSettings
    from blender_envs.house.breaker_label_build import build
    from scorers.image_stats import mask_centroid

    s = _spec(1, style="printed", columns=1)
    q = RenderSettings(name="t", long_side_px=320, samples=1, pass_samples=1, denoise=False)
    scene = reset_scene()
    configure_cycles(scene, q, 0)
    configure_device(scene, "cpu")
    info = build(scene, s)
    cid = {o.name: o.id for o in info.objects}[CARD_OBJECT]
    for dist in (0.22, 1.6):
        pose = _pose(s, dist)
        apply_camera_pose(scene, pose)
        out = render_frame(scene, q, seed=0)
        uv, _ = project(card_points(s, 41, 41), pose.K_array(), pose.cam_to_world_array())
        cu, cv = mask_centroid(out.object_index, cid)
        assert abs(cu - uv[:, 0].mean()) < 1.0 and abs(cv - uv[:, 1].mean()) < 1.0
        vs, _ = np.nonzero(out.object_index == cid)
        assert abs((vs.max() - vs.min() + 1) - (uv[:, 1].max() - uv[:, 1].min())) <= 2.0
    assert sc.text_row_px(s, _pose(s, 0.22)) >= sc.ROW_PX_MIN > sc.text_row_px(s, _pose(s, 1.6))


# ---- sharp at target (Table 1's caption) ------------------------------------------

def _camera_pose(spec, dist, angle_deg, mode, focus_m, shutter_s=1 / 250, shake_rot=None, long_side=320):
    """`_pose`, with a focus mode and distance; `shake_rot` (3x3, camera axes) turns the
    camera by that much between shutter open and close."""
    M = card_frame(spec)
    a = math.radians(angle_deg)
    T = look_at(M[:3, 3] + dist * (math.cos(a) * M[:3, 2] + math.sin(a) * M[:3, 0]), M[:3, 3])
    end = None
    if shake_rot is not None:
        end = T.copy()
        end[:3, :3] = T[:3, :3] @ shake_rot
    return pose_for_phone(spec.phone, "main", 1.0, "landscape", long_side, T, mode, focus_m, shutter_s, end)


def _text_points(spec):
    """The 3x3 grid the term checks, from the card's size: rows at the top, centre and
    bottom (+-0.4 of the height), each at its left, centre and right (+-0.4 of the width)."""
    M = card_frame(spec)
    return [M[:3, 3] + fx * spec.card.width_m * M[:3, 0] + fy * spec.card.height_m * M[:3, 1]
            for fx in (-0.4, 0.0, 0.4) for fy in (-0.4, 0.0, 0.4)]


def _coc_px(pose, X):
    """Thin-lens blur-circle diameter, written out: A |S2 - S1| / S2 * f / (S1 - f)."""
    f, N = pose.lens.focal_mm, pose.fnumber
    S2 = float((np.asarray(X) - pose.center) @ pose.cam_to_world_array()[:3, 2]) * 1000
    S1 = pose.focus_distance_m * 1000
    return (f / N) * abs(S2 - S1) / S2 * f / (S1 - f) / pose.sensor_width_mm * pose.long_side_px


def _uv(K, T, X):
    x = T[:3, :3].T @ (np.asarray(X) - T[:3, 3])
    return (K @ (x / x[2]))[:2]


def _shift_px(pose, X):
    """How far X moves in the image between the start and end pose of the exposure."""
    K = pose.K_array()
    return float(np.linalg.norm(_uv(K, pose.shake_end_array(), X) - _uv(K, pose.cam_to_world_array(), X)))


def _by_name(spec, pose):
    return {t.name: t for t in sc.score_scene(_geo(spec), SimpleNamespace(pose=pose))}


def test_sharp_at_target_is_the_thin_lens_blur_at_the_worst_text_point():
    s = _spec(1)
    # focused on the card, steady: sharp (square on, every text point at the focus depth)
    t = _by_name(s, _camera_pose(s, 0.3, 0.0, "target", 0.3))
    assert t["sharp_at_target"].value == pytest.approx(0.0, abs=1e-9) and t["sharp_at_target"].passed
    assert verdict_of(list(t.values())) == Verdict.ACCEPT
    # autofocus locked at 0.1 m (the nearest the focus model draws) while the card is 0.3 m
    # away, at the standard 640 px: every other term passes. (A phone lens is so short that
    # focus locked at 1.5 m or even 30 m blurs the card by only 3-4 px at 640 px.)
    locked = _camera_pose(s, 0.3, 0.0, "locked_elsewhere", 0.1, long_side=640)
    t = _by_name(s, locked)
    want = _coc_px(locked, card_frame(s)[:3, 3])
    assert t["sharp_at_target"].value == pytest.approx(want, rel=1e-6) and want > sc.BLUR_MAX_PX
    assert first_failure(list(t.values())) == "sharp_at_target"
    assert all(x.passed for k, x in t.items() if k != "sharp_at_target")
    # turned 40 deg and focused on the centre: the centre is sharp, the worst text end is not
    # zero, and the term is the largest written-out blur of the nine points
    tilted = _camera_pose(s, 0.25, 40.0, "target", 0.25)
    vals = [_coc_px(tilted, X) for X in _text_points(s)]
    assert _coc_px(tilted, card_frame(s)[:3, 3]) == pytest.approx(0.0, abs=1e-9)
    assert sc.blur_at_card_px(s, tilted) == pytest.approx(max(vals), rel=1e-9) and max(vals) > 0.05
    # the ground truth records the term's value
    gt = sc.ground_truth(_geo(s), SimpleNamespace(pose=locked))
    assert gt["blur_at_card_px"] == pytest.approx(want, rel=1e-5)


def test_long_shutter_shake_fails_on_blur_alone():
    s = _spec(1)
    th = 0.3 * (1 / 8)   # 0.3 rad/s about the camera's vertical axis over a 1/8 s exposure
    rot = np.array([[math.cos(th), 0, math.sin(th)], [0, 1, 0], [-math.sin(th), 0, math.cos(th)]])
    shaken = _camera_pose(s, 0.3, 0.0, "shake", 0.3, 1 / 8, rot)
    t = _by_name(s, shaken)
    want = max(_shift_px(shaken, X) for X in _text_points(s))   # focused: no defocus part
    assert t["sharp_at_target"].value == pytest.approx(want, rel=1e-6) and want > sc.BLUR_MAX_PX
    assert first_failure(list(t.values())) == "sharp_at_target"
    assert all(x.passed for k, x in t.items() if k != "sharp_at_target")
    # the same hand at 1/500 s turns 16x less: sharp
    th = 0.3 / 500
    rot = np.array([[math.cos(th), 0, math.sin(th)], [0, 1, 0], [-math.sin(th), 0, math.cos(th)]])
    steady = _camera_pose(s, 0.3, 0.0, "shake", 0.3, 1 / 500, rot)
    t = _by_name(s, steady)
    assert t["sharp_at_target"].passed and t["sharp_at_target"].value < 1.0
    # defocus and motion add: focus locked at 0.4 m and the long-shutter turn
    both = _camera_pose(s, 0.3, 0.0, "locked_elsewhere", 0.4, 1 / 8, rot)
    assert sc.blur_at_card_px(s, both) == pytest.approx(
        max(_coc_px(both, X) + _shift_px(both, X) for X in _text_points(s)), rel=1e-9)
    # a text point behind the camera: no blur value, the term fails
    behind = _camera_pose(s, 0.3, 0.0, "target", 0.3)
    C = behind.cam_to_world_array()
    C[:3, :3] = C[:3, :3] @ np.diag([-1.0, 1.0, -1.0])   # turned around
    behind = behind.model_copy(update={"cam_to_world": C.tolist()})
    assert sc.blur_at_card_px(s, behind) is None
    assert not _by_name(s, behind)["sharp_at_target"].passed
