"""tape_gap geometry, terms and texture against hand-computed numbers (no bpy)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from blender_envs.solar.tape_spec import (
    INCH_M, TapeSpec, apparent_reading_in, blade_point, front_of_blade, gap_in,
    geometric_crossing_reading_in, image_lean_deg, is_tilted, lean_deg, leaned_frame, sample_tape,
)
from blender_envs.solar.tape_texture import BLACK, RED, TICK_FRACTION, tape_blade_texture, texel_v, uv_v
from geometry.camera import look_at, pose_for_phone, sample_phone
from scorers.tape_gap import crossing_points, frame_terms, scene_terms, tape_ground_truth
from scorers.terms import Verdict, first_failure, verdict_of

N = np.array([0.0, 0.0, 1.0])        # flat roof, normal +z
F0 = np.array([0.0, -1.0, 0.0])      # numbered face looks towards -y, where the cameras stand
H = 4 * INCH_M                       # module edge 4 in above the roof
E = 0.01                             # edge 1 cm behind the blade's face (+y)
EDGE = (np.array([-0.5, E, H]), np.array([0.5, E, H]))
PHONE = sample_phone(np.random.default_rng(0))


def make_tape(lean_in=0.0, lean_across=0.0, length=0.3) -> TapeSpec:
    up, facing = leaned_frame(N, F0, lean_in, lean_across)
    return TapeSpec(hook_point=[0.0, 0.0, 0.0], roof_normal=list(N), lean_in_plane_deg=lean_in,
                    lean_across_deg=lean_across, up=list(up), facing=list(facing), blade_length_m=length,
                    case_placement="hand", case_center=list(up * (length + 0.04)), case_up=list(up),
                    case_forward=list(facing))


def pose_at(eye, target):
    T = look_at(eye, target)
    return pose_for_phone(PHONE, "main", 1.0, "landscape", 640, T, "pinhole", None, 1 / 250)


# ---------------------------------------------------------------- readings

def test_geometric_reading_of_vertical_blade_is_edge_height():
    t = make_tape()
    assert geometric_crossing_reading_in(t, *EDGE) == pytest.approx(H / 0.0254, abs=1e-9)  # = 4.0
    assert np.allclose(blade_point(t, 4.0), [0, 0, H])


def test_apparent_reading_parallax_by_similar_triangles():
    t = make_tape()
    D = 0.4
    # camera at the edge height: the sight line to the edge is horizontal, no parallax
    assert apparent_reading_in(t, *EDGE, [0.0, -D, H]) == pytest.approx(4.0, abs=1e-9)
    # camera c above the roof, D in front of the blade, edge E behind it: the sight line from
    # (y=-D, z=c) to (y=E, z=h) meets the blade (y=0) at z = h + (c - h) * E / (D + E)
    for c in (H + 0.2, H - 0.05):
        z = H + (c - H) * E / (D + E)
        assert apparent_reading_in(t, *EDGE, [0.0, -D, c]) == pytest.approx(z / INCH_M, abs=1e-9)
    # hand numbers: c = h + 0.2 -> z = 0.1016 + 0.2*0.01/0.41 = 0.1064780 m = 4.19204 in (reads high)
    assert apparent_reading_in(t, *EDGE, [0.0, -D, H + 0.2]) == pytest.approx(4.192040, abs=1e-5)
    assert apparent_reading_in(t, *EDGE, [0.0, -D, H - 0.05]) < 4.0
    # edge in front of the blade: the camera above reads low
    front_edge = (EDGE[0] * [1, -1, 1], EDGE[1] * [1, -1, 1])
    assert apparent_reading_in(t, *front_edge, [0.0, -D, H + 0.2]) < 4.0
    # lateral camera offset along the edge changes nothing (the edge is a line)
    assert apparent_reading_in(t, *EDGE, [0.3, -D, H]) == pytest.approx(4.0, abs=1e-9)


def test_crossing_of_leaning_blades():
    # in-plane lean th, edge through the blade plane: crossing at s = h / cos th, any camera sees it
    th = 12.0
    t = make_tape(lean_in=th)
    edge0 = (np.array([-0.5, 0.0, H]), np.array([0.5, 0.0, H]))
    want = H / math.cos(math.radians(th)) / INCH_M
    assert geometric_crossing_reading_in(t, *edge0) == pytest.approx(want, abs=1e-9)
    assert apparent_reading_in(t, *edge0, [0.2, -0.4, 0.3]) == pytest.approx(want, abs=1e-9)
    # across lean b towards the camera: blade (0, -s sin b, s cos b), closest to the edge at s = h cos b
    t = make_tape(lean_across=th)
    assert np.allclose(t.up, [0, -math.sin(math.radians(th)), math.cos(math.radians(th))])
    assert geometric_crossing_reading_in(t, *edge0) == pytest.approx(H * math.cos(math.radians(th)) / INCH_M, abs=1e-9)


def test_gap_in():
    assert gap_in(0.127) == pytest.approx(5.0)


# ---------------------------------------------------------------- lean

def test_lean_angles():
    assert lean_deg(make_tape(lean_in=7.0), N) == pytest.approx(7.0, abs=1e-9)
    assert is_tilted(make_tape(lean_in=7.0))
    assert lean_deg(make_tape(lean_in=3.0)) == pytest.approx(3.0, abs=1e-9)
    assert not is_tilted(make_tape(lean_in=3.0))
    assert lean_deg(make_tape(lean_across=-7.0)) == pytest.approx(7.0, abs=1e-9)
    # combined: tan 3 = 0.0524078, tan 4 = 0.0699268, sqrt(sum of squares) = 0.0873862,
    # atan(x) ~ x - x^3/3 + x^5/5 = 0.0871648 rad = 4.99417 deg (not 3 + 4, and still flush)
    assert lean_deg(make_tape(3.0, 4.0)) == pytest.approx(4.99417, abs=1e-4)
    t = make_tape(10.0, -6.0)
    assert abs(np.dot(t.up, t.facing)) < 1e-12
    assert np.linalg.norm(t.facing) == pytest.approx(1.0)


def test_image_lean_visible_vs_hidden():
    eye_front, eye_side = [0.0, -0.5, 0.1], [0.5, 0.0, 0.1]
    front = pose_at(eye_front, [0.0, 0.0, 0.1])
    side = pose_at(eye_side, [0.0, 0.0, 0.1])
    # sideways lean seen square-on: the blade direction is parallel to the image plane -> 7 exactly
    assert image_lean_deg(make_tape(lean_in=7.0), front) == pytest.approx(7.0, abs=1e-6)
    # lean towards the camera: the blade stays in the plane x=0 through the camera -> 0 (gray)
    assert image_lean_deg(make_tape(lean_across=7.0), front) == pytest.approx(0.0, abs=1e-6)
    # ... and the same two leans seen from the side swap
    assert image_lean_deg(make_tape(lean_across=7.0), side) == pytest.approx(7.0, abs=1e-6)
    assert image_lean_deg(make_tape(lean_in=7.0), side) == pytest.approx(0.0, abs=1e-6)
    # a flush blade is 0 wherever it sits in the (perspective) frame
    off = pose_at([0.3, -0.5, 0.4], [0.2, 0.0, 0.0])
    assert image_lean_deg(make_tape(), off) == pytest.approx(0.0, abs=1e-6)


def test_front_of_blade():
    t = make_tape()
    ok, ang = front_of_blade(t, [0.0, -0.5, 0.1])
    assert ok and ang == pytest.approx(math.degrees(math.atan(0.1 / 0.5)))  # 11.31 deg
    ok, ang = front_of_blade(t, [0.0, 0.5, 0.1])
    assert not ok and ang == pytest.approx(180 - 11.309932, abs=1e-5)
    ok, ang = front_of_blade(t, [0.5 * math.sin(math.radians(80)), -0.5 * math.cos(math.radians(80)), 0.0])
    assert not ok and ang == pytest.approx(80.0)


# ---------------------------------------------------------------- terms

def _terms(tape, eye, vis=(1.0, 1.0)):
    pose = pose_at(eye, [0.0, 0.0, H])
    return scene_terms(tape, *EDGE, pose, vis), pose


def test_terms_accept_square_on_close():
    terms, pose = _terms(make_tape(), [0.0, -0.4, H + 0.05])
    by = {t.name: t for t in terms}
    # apparent point z = h + 0.05*0.01/0.41 = h + 0.0012195; distance sqrt(0.4^2 + 0.0487805^2)
    assert by["crossing_distance"].value == pytest.approx(math.hypot(0.4, 0.05 - 0.05 * E / (0.4 + E)), abs=1e-6)
    assert by["crossing_distance"].value == pytest.approx(0.402964, abs=1e-6)
    assert by["front_of_blade"].value == pytest.approx(math.degrees(math.atan(0.0487805 / 0.4)), abs=1e-4)  # 6.953
    assert by["sharp_at_crossing"].value == 0.0
    assert by["tape_flush"].value == pytest.approx(0.0, abs=1e-6)
    assert verdict_of(terms) == Verdict.ACCEPT
    gt = tape_ground_truth(make_tape(), EDGE, 0.1016, pose)
    assert gt["reading_in"] == pytest.approx((H + 0.05 * E / 0.41) / INCH_M, abs=1e-6)  # 4.04801
    assert gt["geometric_reading_in"] == pytest.approx(4.0)
    assert gt["gap_in"] == pytest.approx(4.0) and gt["tilted"] is False
    assert gt["crossing_px"][0] == pytest.approx((pose.width - 1) / 2, abs=1e-6)


def test_terms_reject_far_behind_occluded():
    terms, _ = _terms(make_tape(), [0.0, -0.8, H])
    assert verdict_of(terms) == Verdict.REJECT and first_failure(terms) == "crossing_distance"
    terms, _ = _terms(make_tape(), [0.0, 0.4, H])          # behind the blade
    assert first_failure(terms) == "front_of_blade"
    terms, _ = _terms(make_tape(), [0.0, -0.4, H], vis=(1.0, 0.3))
    assert first_failure(terms) == "crossing_unoccluded"
    terms, _ = _terms(make_tape(length=0.05), [0.0, -0.4, H])  # blade too short to reach the edge
    assert first_failure(terms) == "crossing_on_blade"


def test_tilt_gray_only_when_lean_hidden():
    # visible sideways lean: a hard reject
    terms, _ = _terms(make_tape(lean_in=7.0), [0.0, -0.4, H])
    tilt = {t.name: t for t in terms}["tape_flush"]
    assert not tilt.passed and not tilt.gray and verdict_of(terms) == Verdict.REJECT
    # lean towards the camera, shows as ~0 deg: gray -> unscored
    terms, pose = _terms(make_tape(lean_across=-7.0), [0.0, -0.4, H])
    tilt = {t.name: t for t in terms}["tape_flush"]
    assert tilt.value == pytest.approx(7.0, abs=1e-6)
    assert image_lean_deg(make_tape(lean_across=-7.0), pose) <= 5.0
    assert not tilt.passed and tilt.gray and verdict_of(terms) == Verdict.UNSCORED
    # a flush lean of 3 deg passes
    terms, _ = _terms(make_tape(lean_in=3.0), [0.0, -0.4, H])
    assert verdict_of(terms) == Verdict.ACCEPT


def test_frame_terms_and_laplacian_crosscheck():
    tape = make_tape()
    pose = pose_at([0.0, -0.4, H], [0.0, 0.0, H])
    oid = np.full((pose.height, pose.width), 7, dtype=np.int32)
    flat = np.full((pose.height, pose.width, 3), 128, dtype=np.uint8)
    noisy = np.random.default_rng(0).integers(0, 255, size=flat.shape, dtype=np.uint8)
    terms, checks = frame_terms(flat, oid, 7, pose, tape, *EDGE)
    assert terms[0].passed and checks["crossing_mask_px"] >= 25
    assert checks["crossing_laplacian_var"] == pytest.approx(0.0)
    _, checks_noisy = frame_terms(noisy, oid, 7, pose, tape, *EDGE)
    assert checks_noisy["crossing_laplacian_var"] > 0.01
    terms, _ = frame_terms(flat, np.zeros_like(oid), 7, pose, tape, *EDGE)
    assert not terms[0].passed
    assert crossing_points(tape, 4.0).shape == (105, 3)


# ---------------------------------------------------------------- sampling

def _roof():
    pitch = math.radians(25.0)
    return np.array([0.0, -math.sin(pitch), math.cos(pitch)]), np.array([1.0, 0.0, 0.0])


def test_sample_tape_frequencies_and_geometry():
    n, e = _roof()
    rng = np.random.default_rng(1)
    tapes = [sample_tape(rng, [0.0, 1.0, 2.0], n, e, gap_m=0.12) for _ in range(400)]
    leans = np.array([lean_deg(t, n) for t in tapes])
    assert abs(np.mean(leans <= 5.0) - 0.5) <= 0.07
    assert leans.max() <= 20.0 + 1e-9
    a = np.array([t.lean_in_plane_deg for t in tapes])
    b = np.array([t.lean_across_deg for t in tapes])
    tilted = leans > 5.0
    assert np.sum(tilted & (np.abs(b) < 1e-9)) > 20 and np.sum(tilted & (np.abs(a) < 1e-9)) > 20
    tan2 = np.tan(np.radians(a)) ** 2 + np.tan(np.radians(b)) ** 2
    assert np.allclose(np.degrees(np.arctan(np.sqrt(tan2))), leans, atol=1e-9)
    down = np.array([0.0, -math.cos(math.radians(25)), -math.sin(math.radians(25))])  # downslope in-plane
    for t in tapes:
        assert abs(np.dot(t.up, t.facing)) < 1e-9
        f = np.array(t.facing) - np.dot(t.facing, n) * n
        yaw = math.degrees(math.acos(np.dot(f / np.linalg.norm(f), down)))
        assert yaw <= 60.0 + 20.0  # +-60 deg yaw, loosened by what a lean adds
        assert t.blade_length_m >= 0.12 + 0.1
        # the crossing is where the blade line is closest to the edge line: an independent
        # least-squares solve of hook + s*up ~ p0 + w*d gives the same reading
        p0, d = np.array([-1.0, 1.0, 2.0]), np.array([1.0, 0.0, 0.0])
        (s_ls, _), *_ = np.linalg.lstsq(np.stack([t.up_array(), -d], axis=1), p0 - np.asarray(t.hook_point), rcond=None)
        want = t.first_reading_in + s_ls / INCH_M
        assert geometric_crossing_reading_in(t, p0, p0 + 2 * d) == pytest.approx(want, abs=1e-6)
    assert {t.case_placement for t in tapes} == {"roof", "hand"}


def test_sample_tape_deterministic():
    n, e = _roof()
    a = sample_tape(np.random.default_rng(5), [0, 0, 0], n, e).model_dump_json()
    b = sample_tape(np.random.default_rng(5), [0, 0, 0], n, e).model_dump_json()
    c = sample_tape(np.random.default_rng(6), [0, 0, 0], n, e).model_dump_json()
    assert a == b and a != c
    assert TapeSpec.model_validate_json(a).model_dump_json() == a


# ---------------------------------------------------------------- texture

def _dark_runs(col: np.ndarray) -> list[float]:
    dark = col < 100
    runs, start = [], None
    for i, d in enumerate(dark):
        if d and start is None:
            start = i
        if not d and start is not None:
            runs.append((start + i - 1) / 2)
            start = None
    if start is not None:
        runs.append((start + len(dark) - 1) / 2)
    return runs


def test_texture_ticks_and_mapping():
    L, ppi = 4.0, 256
    im = np.asarray(tape_blade_texture(L, ppi))
    assert im.shape[0] == L * ppi and im.shape[1] == round(0.025 / 0.0254 * ppi)
    W = im.shape[1]
    rows_for = lambda r0, r1: (texel_v(r1, L, ppi), texel_v(r0, L, ppi))  # noqa: E731
    lo, hi = rows_for(1.0, 2.0)
    col = im[:, 2, 0].astype(int)  # near the edge every 1/16 tick crosses the scan line
    runs = [c for c in _dark_runs(col) if lo + 0.5 < c <= hi + 1e-9]  # readings in [1, 2)
    assert len(runs) == 16
    want = sorted(texel_v(1 + k / 16, L, ppi) for k in range(16))
    assert np.allclose(sorted(runs), want, atol=0.01)
    # between the 1/4 and 1/2 tick lengths only whole and half inches reach the scan line
    x = int(0.5 * (TICK_FRACTION[2] + TICK_FRACTION[4]) * W)
    runs = [c for c in _dark_runs(im[:, x, 0].astype(int)) if lo + 0.5 < c <= hi + 1e-9]
    assert np.allclose(sorted(runs), sorted([texel_v(1.5, L, ppi), texel_v(1.0, L, ppi)]), atol=0.01)
    # the number sits in the middle of the blade, centred on its inch line
    # in the tick-free middle 40% of the width the only dark pixels are the numbers: each
    # one's centroid lies on its inch line and on the blade's centre line, and the half-inch
    # rows between numbers are clear
    c0, c1 = int(math.ceil(TICK_FRACTION[1] * W)) + 1, W - int(math.ceil(TICK_FRACTION[1] * W)) - 1
    rows, cols = np.nonzero(im[:, c0:c1].astype(int).sum(axis=2) < 300)
    cols = cols + c0
    for inch in (1, 2, 3):
        near = np.abs(rows - texel_v(inch, L, ppi)) < 0.5 * ppi
        assert near.sum() > 300
        assert abs(rows[near].mean() - texel_v(inch, L, ppi)) < 4.0
        assert abs(cols[near].mean() - (W - 1) / 2) < 6.0
    for half in (1.5, 2.5, 3.5):
        assert not np.any(np.abs(rows - texel_v(half, L, ppi)) < 0.15 * ppi)
    assert uv_v(0.0, L) == 0.0 and uv_v(L, L) == 1.0 and texel_v(0.0, L, ppi) == L * ppi - 0.5


def test_texture_foot_is_red():
    L, ppi = 13.0, 64
    im = np.asarray(tape_blade_texture(L, ppi))
    row = int(round(texel_v(12.0, L, ppi)))
    assert tuple(im[row, 1]) == RED and tuple(im[int(round(texel_v(11.0, L, ppi))), 1]) == BLACK


# ---------------------------------------------------------------- adapters (ray-cast path)

def test_score_scene_adapter_with_mesh():
    from types import SimpleNamespace

    import trimesh

    from geometry.raycast import Raycaster, SceneMesh
    from scorers.tape_gap import ground_truth, score_scene

    tape = make_tape()
    blade = trimesh.Trimesh(vertices=[[-0.0125, 0, 0], [0.0125, 0, 0], [0.0125, 0, 0.3], [-0.0125, 0, 0.3]],
                            faces=[[0, 1, 2], [0, 2, 3]])
    wall = trimesh.Trimesh(vertices=[[-0.1, -0.2, 0], [0.1, -0.2, 0], [0.1, -0.2, 0.3], [-0.1, -0.2, 0.3]],
                           faces=[[0, 1, 2], [0, 2, 3]])

    def geo_with(parts):
        mesh = SceneMesh.from_trimesh_parts(parts)
        state = SimpleNamespace(object_by_name=lambda name: SimpleNamespace(id={"tape_blade": 1}[name]))
        spec = SimpleNamespace(tape=tape, edge=[list(EDGE[0]), list(EDGE[1])], module_gap_m=H)
        return SimpleNamespace(spec=spec, mesh=mesh, raycaster=Raycaster(mesh), state=state,
                               object_id=lambda name: 1)

    view = SimpleNamespace(pose=pose_at([0.0, -0.4, H], [0.0, 0.0, H]))
    terms = score_scene(geo_with([(1, "tape_blade", blade)]), view)
    assert verdict_of(terms) == Verdict.ACCEPT
    terms = score_scene(geo_with([(1, "tape_blade", blade), (2, "wall", wall)]), view)
    assert {t.name: t for t in terms}["crossing_unoccluded"].value == 0.0
    gt = ground_truth(geo_with([(1, "tape_blade", blade)]), view)
    assert gt["reading_in"] == pytest.approx(4.0) and gt["gap_in"] == pytest.approx(4.0)


@pytest.mark.parametrize("ppi", [64, 128, 512])
def test_texture_tick_centres_at_other_resolutions(ppi):
    L = 2.0
    im = np.asarray(tape_blade_texture(L, ppi))
    runs = _dark_runs(im[:, 1, 0].astype(int))
    ticks = [texel_v(k / 16, L, ppi) for k in range(1, 32)]  # inner ticks (the end ones are clipped)
    assert np.allclose(sorted(r for r in runs if 0.5 < r < im.shape[0] - 1.5), sorted(ticks), atol=0.01)
