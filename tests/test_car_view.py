"""car_view end to end: the parking lot's layout rules, the field pose and its scene-side
acceptance against Table 1, the named face against the camera's direction in the car
frame, the in-frame / fill terms worked by hand, and a tiny Cycles render whose subject
mask agrees with the projected hull (bbox, in frame, the 3% fill term)."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

import scorers.car_view as cv
from blender_envs.registry import get_environment
from blender_envs.vehicle import car_view as env_mod
from blender_envs.vehicle.body import ROOF_INSET_M, WHEEL_PROUD_M, hull_points, to_car, to_world
from blender_envs.vehicle.car_parts import MIRROR_REACH_M
from blender_envs.vehicle.lot import (BAY_CLEAR_MARGIN_M, DISTRACTORS, bay_corners, footprint_corners,
                                      rect_disc_distance)
from geometry.camera import look_at, pose_for_phone
from render_farm.job import sample_spec, view_seed
from render_farm.plan import plan_jobs
from render_farm.seeds import derive_seed, rng_for
from scorers.terms import Verdict, verdict_of

ENV = get_environment("car_view")
TABLE1 = 0.23


def spec_of(seed: int):
    return ENV.sample_scene(rng_for("test_car_view", seed, "scene"), f"t{seed}", seed)


def field_views(scenes: int, poses: int, root_seed: int = 0, long_side: int = 640):
    """(spec, view) of the farm's own random field poses: plan_jobs' scenes, view_seed's poses."""
    out = []
    for job in plan_jobs("car_view", scenes, 1, "random", set(), root_seed=root_seed, run_dir="unused",
                         quality={"long_side_px": long_side}, device="cpu"):
        spec = sample_spec(job)
        for v in range(poses):
            out.append((spec, ENV.sample_view(spec, np.random.default_rng(view_seed(job, v, 0)), v, long_side)))
    return out


@pytest.fixture(scope="module")
def field():
    return field_views(50, 8)


# ------------------------------------------------------------------ seeds and the lot

def test_stage_generators_use_the_farms_hash():
    """One rule for hashed stage seeds: the spec module's copy equals render_farm.seeds."""
    a = env_mod.stage_rng(12345, "lot").integers(0, 2**62, size=4)
    b = np.random.default_rng(derive_seed(12345, "lot")).integers(0, 2**62, size=4)
    assert a.tolist() == b.tolist()
    assert env_mod.stage_rng(12345, "lot").random() != env_mod.stage_rng(12345, "phone").random()


def test_subject_and_phone_do_not_depend_on_the_lots_draws():
    """Each stage draws from its own generator: the subject is sample_body/sample_color of
    the 'subject' stage alone, the phone the 'phone' stage's."""
    from blender_envs.vehicle.body import sample_body, sample_color
    from geometry.camera import sample_phone

    rng = rng_for("test_car_view", 3, "scene")
    root = int(rng_for("test_car_view", 3, "scene").integers(0, 2**63 - 1))   # sample_scene's first draw
    spec = ENV.sample_scene(rng, "t3", 3)
    srng = env_mod.stage_rng(root, "subject")
    assert spec.lot.subject.body == sample_body(srng) and spec.lot.subject.color == sample_color(srng)
    assert spec.phone == sample_phone(env_mod.stage_rng(root, "phone"))
    assert spec.model_dump_json() == spec_of(3).model_dump_json()                  # same seed, same bytes
    assert spec.model_dump_json() != spec_of(4).model_dump_json().replace('"t4"', '"t3"')


@pytest.mark.parametrize("seed", range(12))
def test_the_clear_disc_is_empty_and_the_distractors_matter(seed):
    spec = spec_of(seed)
    lot = spec.lot
    R = lot.clear_radius_m
    assert R == pytest.approx(env_mod.DISTANCE_LENGTHS[1] * lot.subject.body.length_m + env_mod.CLEAR_MARGIN_M,
                              abs=1e-4)
    assert lot.subject.placement.x == 0.0 and lot.subject.placement.y == 0.0
    assert abs(abs(lot.subject.placement.yaw_deg) - 90.0) <= 4.0
    d = lot.cars[1:]
    assert DISTRACTORS[0] <= len(d) <= DISTRACTORS[1]
    for car in d:
        assert rect_disc_distance(footprint_corners(car)) > R
        bay = min(lot.bays, key=lambda b: math.hypot(b.center[0] - car.placement.x, b.center[1] - car.placement.y))
        assert rect_disc_distance(bay_corners(bay)) > R + BAY_CLEAR_MARGIN_M          # parked in a free bay
        assert abs(bay.center[0] - car.placement.x) <= 0.15 and abs(bay.center[1] - car.placement.y) <= 0.15
    centres = {(round(c.placement.x / 2.7), round(c.placement.y, 0)) for c in d}
    assert len(centres) == len(d)                                                     # one car per bay
    assert any(c.body.style == lot.subject.body.style for c in d)                     # "the silver sedan" matters
    assert any(c.color == lot.subject.color for c in d)
    for xy in [lamp.xy for lamp in lot.lamps] + [t.xy for t in lot.trees]:
        assert math.hypot(*xy) > R
    assert {b.kind for b in lot.backdrops} == {"building", "fence"}
    assert 20.0 <= lot.sun.elevation_deg <= 70.0


def test_rect_disc_distance_worked():
    sq = np.array([[3.0, -1.0], [5.0, -1.0], [5.0, 1.0], [3.0, 1.0]])
    assert rect_disc_distance(sq) == 3.0
    assert rect_disc_distance(sq + [0.0, 5.0]) == pytest.approx(5.0)            # nearest corner (3, 4)
    assert rect_disc_distance(sq - [4.0, 0.0]) == 0.0                            # contains the origin


# ------------------------------------------------------------------ the field pose

def test_field_poses_stay_in_the_clear_disc_outside_the_car(field):
    for spec, view in field:
        car = spec.lot.subject
        c = view.pose.center
        assert math.hypot(c[0], c[1]) < spec.lot.clear_radius_m
        assert env_mod.CROUCH_HEIGHT_M[0] <= c[2] <= env_mod.EYE_HEIGHT_M[1]
        local = to_car(car.placement, c)
        assert abs(local[0]) > car.body.length_m / 2 or abs(local[1]) > car.body.width_m / 2
        lengths = cv.distance_in_lengths(c, car.placement, car.body)
        assert env_mod.DISTANCE_LENGTHS[0] - 1e-9 <= lengths <= env_mod.DISTANCE_LENGTHS[1] + 1e-9


def test_scene_side_acceptance_is_within_half_of_table_1(field):
    """Issue 12: within +-50% of Table 1's 0.23 on >= 400 random field poses (the farm's
    own seeds, root seed 0). Measured 0.270 (108 / 400, 6 unscored) on vehicle-8, whose
    neighbours make the sampler redraw blocked poses for the same requested face and whose lot
    leaves 2-4 bays free either side of the subject (h12's first vehicle-8 sampler, which drew
    the face again: 128, 0 unscored; vehicle-7: 0.243, 97 / 400, 13 unscored; docs/envs/car_view.md);
    vehicle-1's bodies gave 96: the hull now holds the side mirrors (20 cm out from the sides)
    and the tyres' tread and sidewall points, which moves the fill and in-frame terms of a few
    poses. A change of the distribution
    moves the count and must bump GENERATOR_VERSION."""
    verdicts = [verdict_of(cv.scene_terms_of(spec, view.pose)) for spec, view in field]
    assert len(verdicts) == 400
    accepted = sum(v == Verdict.ACCEPT for v in verdicts)
    assert 0.5 * TABLE1 <= accepted / 400 <= 1.5 * TABLE1
    assert accepted == 108
    assert sum(v == Verdict.UNSCORED for v in verdicts) == 6


def test_the_named_face_has_the_sign_of_the_camera_direction_on_the_field_poses(field):
    """The ground truth's side is the face whose outward normal the camera's direction (car
    centre to camera, in the car frame) leans along most, and the answer key is that face."""
    normals = {"front": (0, 1), "rear": (0, -1), "driver": (1, 1), "passenger": (1, -1)}
    seen = set()
    for spec, view in field:
        gt = cv.ground_truth(SimpleNamespace(spec=spec), view)
        d = to_car(spec.lot.subject.placement, view.pose.center)
        axis, sign = normals[gt["side"]]
        assert abs(d[axis]) >= abs(d[1 - axis]) and np.sign(d[axis]) == sign
        assert gt["body_style"] == spec.lot.subject.body.style and gt["color"] == spec.lot.subject.color
        seen.add(gt["side"])
    assert seen == {"front", "rear", "driver", "passenger"}


def test_requested_faces_stay_uniform_over_the_field_poses(field):
    """The question asks which of four faces the photo shows, so the requested faces of the
    400 field poses stay uniform: a chi-square over the four counts below 11.34 (p = 0.01,
    3 degrees of freedom). h12's first vehicle-8 sampler, which drew a blocked pose's face
    again, gave 183 / 159 / 29 / 29 (chi-square 204.5); the same-face redraw and the lot's
    empty runs beside the subject give 100 / 102 / 95 / 103 (chi-square 0.38;
    docs/envs/car_view.md). Each face is also
    shown on at least 15% of the poses."""
    faces = ("front", "rear", "driver", "passenger")
    req = [sum(view.target == f"subject:{f}" for _, view in field) for f in faces]
    n = sum(req)
    assert n == 400
    chi2 = sum((c - n / 4) ** 2 / (n / 4) for c in req)
    assert chi2 < 11.34, (req, chi2)
    shown = [sum(cv.ground_truth(SimpleNamespace(spec=spec), view)["side"] == f for spec, view in field)
             for f in faces]
    assert min(shown) >= 0.15 * n, shown


@pytest.mark.parametrize("az, face", [(0.0, "front"), (180.0, "rear"), (90.0, "driver"), (-90.0, "passenger"),
                                      (44.0, "front"), (46.0, "driver"), (134.0, "driver"), (136.0, "rear"),
                                      (-44.0, "front"), (-46.0, "passenger"), (-136.0, "rear")])
def test_constructed_poses_name_the_face_they_face(az, face):
    """A camera placed by hand at a car-frame azimuth round a parked subject (yaw about
    +-90 in the world) names that face; the driver is the car's +y (left) side."""
    spec = spec_of(1)
    car = spec.lot.subject
    eye = env_mod.field_eye(spec, az, 2.0, 1.5)
    pose = pose_for_phone(spec.phone, "main", 1.0, "landscape", 320, look_at(eye, to_world(car.placement,
                                                                                          car.body.center())),
                          "pinhole", None, 1 / 250)
    gt = cv.ground_truth(SimpleNamespace(spec=spec), SimpleNamespace(pose=pose, target="subject:front"))
    assert gt["side"] == face and gt["requested_face"] == "front"
    assert gt["distance_lengths"] == pytest.approx(2.0, abs=1e-6)
    assert gt["view_azimuth_deg"] == pytest.approx(az, abs=1e-6)


# ------------------------------------------------------------------ in frame and fill, by hand

def _share_fill(points, z, W=10, H=8):
    return cv.frame_share_and_fill(np.asarray(points, float), np.asarray(z, float), W, H)


def test_frame_share_and_fill_worked_on_a_10_by_8_frame():
    """Pixel centres are integers: the frame spans -0.5 .. 9.5 by -0.5 .. 7.5, edges in; the bbox of
    the points in front is clipped to it; a point counts in front from z > 1e-6."""
    edges = [(-0.5, 3), (9.5, 3), (4, -0.5), (4, 7.5)]                       # on each edge: inside
    assert _share_fill(edges, [1] * 4) == (1.0, 1.0)
    beyond = [(-0.75, 3), (9.75, 3), (4, -0.75), (4, 7.75), (4, 3)]          # 0.25 px past each edge
    assert _share_fill(beyond, [1] * 5) == (0.2, 1.0)                         # bbox 10.5 x 8.5 clipped to 10 x 8
    far = [(-1.25, 3), (10.25, 3), (4, -1.25), (4, 8.25), (4, 3)]
    assert _share_fill(far, [1] * 5) == (0.2, 1.0)
    assert _share_fill([(2, 1), (6, 5)], [1, 1]) == (1.0, 0.2)                # a 4 x 4 bbox of 80 px
    assert _share_fill([(2, 1), (6, 5), (100, 100)], [1, 1, -1]) == (2 / 3, 0.2)   # behind: out, not in the bbox
    assert _share_fill([(2, 1), (6, 5)], [1e-6, 2e-6]) == (0.5, 0.0)          # z = 1e-6 is not in front
    assert _share_fill([(2, 1), (6, 5)], [0.5, 0.5]) == (1.0, 0.2)
    assert _share_fill([(2, 1), (6, 5)], [-1, 0]) == (0.0, 0.0)               # nothing in front
    assert _share_fill([(1, 2), (3, 7)], [1, 1], W=4, H=8) == (1.0, 2 * 5 / 32)
    assert _share_fill([(-3, 2), (3, 9)], [1, 1], W=4, H=8) == (0.0, 3.5 * 5.5 / 32)   # clipped at u -0.5, v 7.5


def _side_pose(spec, dist_m, long_side=320):
    """Pinhole, level at the body's mid-height, square-on to the driver side at dist_m from the centre."""
    car = spec.lot.subject
    c = car.body.center()
    eye = to_world(car.placement, c + [0.0, dist_m, 0.0])
    return pose_for_phone(spec.phone, "main", 1.0, "landscape", long_side,
                          look_at(eye, to_world(car.placement, c)), "pinhole", None, 1 / 250)


def test_fill_is_the_hull_bbox_worked_by_hand():
    """Square-on to the driver side, level with the centre: the bbox spans the front and
    rear faces' near corners (depth D - W/2) across, the roof edge (height H/2 above the
    eye, depth D - W/2 + roof inset) up and the near tyres' ground contact (H/2 below, on
    the tread 5 cm inside the tyre's outer face: depth D - W/2 - tyre proud + 0.05) down;
    the mirrors, nearer, stay inside that box."""
    spec = spec_of(2)
    b = spec.lot.subject.body
    D = 2.0 * b.length_m
    pose = _side_pose(spec, D)
    f = pose.K_array()[0, 0]
    half_u = f * (b.length_m / 2) / (D - b.width_m / 2)
    up = f * (b.height_m / 2) / (D - b.width_m / 2 + ROOF_INSET_M)
    down = f * (b.height_m / 2) / (D - b.width_m / 2 - WHEEL_PROUD_M + 0.05)
    in_frame, fill = cv.in_frame_and_fill(pose, spec.lot.subject.placement, b)
    assert in_frame == 1.0
    assert fill == pytest.approx(2 * half_u * (up + down) / (pose.width * pose.height), rel=1e-9)


def test_in_frame_flips_where_the_car_fills_the_width():
    """The near corners reach the frame's edge (u = -0.5, W - 0.5) at D* = W/2 + f L / W_px:
    1% further every hull point is in, 1% nearer some are out."""
    spec = spec_of(2)
    b, p = spec.lot.subject.body, spec.lot.subject.placement
    f, W = _side_pose(spec, 10.0).K_array()[0, 0], _side_pose(spec, 10.0).width
    d_star = b.width_m / 2 + f * b.length_m / W
    assert cv.in_frame_and_fill(_side_pose(spec, d_star * 1.01), p, b)[0] == 1.0
    assert cv.in_frame_and_fill(_side_pose(spec, d_star * 0.99), p, b)[0] < 1.0
    # looking straight away from the car: nothing in front of the camera
    car_c = to_world(p, b.center())
    eye = to_world(p, b.center() + [0.0, 10.0, 0.0])
    away = pose_for_phone(spec.phone, "main", 1.0, "landscape", 320, look_at(eye, 2 * eye - car_c), "pinhole", None,
                          1 / 250)
    assert cv.in_frame_and_fill(away, p, b) == (0.0, 0.0)
    t = {x.name: x for x in cv.scene_terms_of(spec, away)}
    assert not t["car_in_frame"].passed and not t["car_fill"].passed


def test_hull_points_cover_the_body_and_wheels():
    b = spec_of(2).lot.subject.body
    P = hull_points(b)
    assert P[:, 0].min() == pytest.approx(-b.length_m / 2) and P[:, 0].max() == pytest.approx(b.length_m / 2)
    assert P[:, 1].max() == pytest.approx(b.width_m / 2 + MIRROR_REACH_M)       # the mirrors reach furthest
    tyres = P[np.abs(P[:, 1]) <= b.width_m / 2 + WHEEL_PROUD_M + 1e-12]
    assert np.abs(P[:, 1][np.abs(P[:, 1]) > b.width_m / 2 + 1e-9]).max() == pytest.approx(b.width_m / 2 + MIRROR_REACH_M)
    assert len(P) - len(tyres) == 8                                              # four outer corners a mirror
    assert P[:, 2].min() == pytest.approx(0.0, abs=1e-12) and P[:, 2].max() == pytest.approx(b.height_m)


def test_score_frame_reads_nothing_and_mask_stats_worked():
    assert cv.score_frame(None, None, None) == []
    oi = np.zeros((10, 20), np.int32)
    oi[2:4, 5:10] = 3          # 10 px
    oi[6, 12] = 7              # 1 px, bbox rows 2..6, cols 5..12: 5 x 8
    oi[0, 0] = 200             # a distractor
    assert cv.mask_stats(oi, [3, 7]) == {"subject_mask_fraction": 11 / 200, "subject_mask_bbox_fraction": 40 / 200}
    assert cv.mask_stats(oi, [9]) == {"subject_mask_fraction": 0.0, "subject_mask_bbox_fraction": 0.0}


# ------------------------------------------------------------------ a real render

def _check_far_cars(scene, spec, info):
    """vehicle-6's far cars: far car j is one object `far{j}` with pass index 1000 + j, at its
    placement, sharing one mesh per template; that mesh keeps FAR_DECIMATE of the template's
    triangles (within 10%) and every material the template's parts use, the plate's as it was
    before print_plates (far cars' plates are plain: at 10 m and more no serial reads)."""
    from blender_envs.core.bpy_env import bpy
    from blender_envs.vehicle.body import car_to_world
    from blender_envs.vehicle.far_cars_build import FAR_CAR_FIRST_PASS, FAR_DECIMATE

    far = spec.lot.far_cars
    assert len(far) >= 30
    got = {o.name: o.id for o in info.objects if o.category == "far_car"}
    assert got == {f"far{j}": FAR_CAR_FIRST_PASS + j for j in range(len(far))}
    meshes = {}
    for j, f in enumerate(far):
        ob = bpy.data.objects[f"far{j}"]
        assert np.allclose(np.array(ob.matrix_world), car_to_world(f.placement), atol=1e-5)
        assert meshes.setdefault(f.template, ob.data) is ob.data               # one mesh per template
    for k, me in meshes.items():
        parts = [o for o in scene.objects if o.name.startswith(f"car{k}_") and o.type == "MESH"]
        tris = 0
        for o in parts:
            o.data.calc_loop_triangles()
            tris += len(o.data.loop_triangles)
        me.calc_loop_triangles()
        assert abs(len(me.loop_triangles) - FAR_DECIMATE * tris) <= 0.1 * FAR_DECIMATE * tris
        printed = {o.data.materials[0].name for o in parts}          # the distractor's plates are printed since,
        assert f"car{k}_plate_print" in printed                        # the far copy keeps the plain plate
        assert {m.name for m in me.materials} == printed - {f"car{k}_plate_print"} | {f"car{k}_plate"}


@pytest.mark.render
def test_rendered_subject_mask_agrees_with_the_projected_hull():
    """Tiny Cycles render (160 x 120, 1 sample) of a whole lot: on a framed pose the subject's
    object-index mask bbox matches the projected hull bbox to 1.5 px per edge (so the fill
    term and the mask's bbox share agree within the area those 1.5 px allow) and touches no
    frame edge; on a cropping pose (in_frame < 1) the mask runs to the frame's edge; the
    3% fill term gives the same answer as the mask's bbox share on a near and a far pose."""
    from blender_envs.core.camera_rig import apply_camera_pose
    from blender_envs.core.cycles_setup import configure_cycles, configure_device
    from blender_envs.core.render_passes import render_frame
    from blender_envs.core.scene_reset import reset_scene
    from blender_envs.core.settings import RenderSettings
    from blender_envs.vehicle.car_view_build import build

    spec = spec_of(2)
    spec = spec.model_copy(update={"lot": spec.lot.model_copy(update={"neighbours": [], "inner_far_cars": []})})
    # ^ vehicle-8's neighbours would hide the flank these side poses look at (tests/test_neighbours.py)
    q = RenderSettings(name="t", long_side_px=160, samples=1, pass_samples=1, denoise=False)
    scene = reset_scene()
    configure_cycles(scene, q, 0)
    configure_device(scene, "cpu")
    info = build(scene, spec)
    ids = cv.subject_ids(SimpleNamespace(state=SimpleNamespace(objects=info.objects)))
    assert len(ids) >= 20 and all(2 <= i < 90 for i in ids)
    all_ids = [o.id for o in info.objects]
    assert len(set(all_ids)) == len(all_ids)                       # no two objects share a pass index
    for k in range(1, len(spec.lot.cars)):                          # distractor k keeps to its 40-id block
        block = [o.id for o in info.objects if o.name.startswith(f"car{k}_")]
        assert block and min(block) == 100 + 40 * (k - 1) and max(block) < 100 + 40 * k
    _check_far_cars(scene, spec, info)
    car = spec.lot.subject
    b, p = car.body, car.placement
    results = {}
    for name, dist in (("framed", 2.0 * b.length_m), ("crop", 0.8 * b.length_m), ("far", 4.4 * b.length_m)):
        pose = _side_pose(spec, dist, long_side=160)
        apply_camera_pose(scene, pose)
        oi = render_frame(scene, q, seed=0).object_index
        mask = np.isin(oi, ids)
        in_frame, fill = cv.in_frame_and_fill(pose, p, b)
        results[name] = (pose, mask, in_frame, fill)
    pose, mask, in_frame, fill = results["framed"]
    uv, _ = cv.projected_hull(pose, p, b)
    vs, us = np.nonzero(mask)
    assert in_frame == 1.0
    for got, want in ((us.min(), uv[:, 0].min()), (us.max(), uv[:, 0].max()), (vs.min(), uv[:, 1].min()),
                      (vs.max(), uv[:, 1].max())):
        assert abs(got - want) <= 1.5
    mask_bbox = (us.ptp() + 1) * (vs.ptp() + 1) / mask.size
    assert abs(mask_bbox - fill) <= 1.5 * 2 * ((us.ptp() + 1) + (vs.ptp() + 1)) / mask.size
    assert not (mask[0].any() or mask[-1].any() or mask[:, 0].any() or mask[:, -1].any())
    _, mask, in_frame, _ = results["crop"]
    assert in_frame < 1.0 and (mask[:, 0].any() or mask[:, -1].any())
    for name in ("framed", "far"):
        pose, mask, _, fill = results[name]
        vs, us = np.nonzero(mask)
        share = (us.ptp() + 1) * (vs.ptp() + 1) / mask.size
        assert (fill >= cv.CAR_FILL_MIN) == (share >= cv.CAR_FILL_MIN) == (name == "framed"), (name, fill, share)


# ------------------------------------------------------------------ the ground truth's wiring

def test_ground_truth_and_mask_stats_wiring():
    """The view's face keys, the requested face from the target, the fractions rounded, the
    distractor count; with a frame, the subject's mask share and its bbox's share of the frame
    over every subject object id (others ignored)."""
    spec = spec_of(4)
    car = spec.lot.subject
    pose = _side_pose(spec, 9.0)
    objects = [SimpleNamespace(id=3, name="subject_body"), SimpleNamespace(id=4, name="subject_wheel_fl"),
               SimpleNamespace(id=5, name="car1_body")]
    geo = SimpleNamespace(spec=spec, state=SimpleNamespace(objects=objects))
    assert cv.subject_ids(geo) == [3, 4]
    index = np.zeros((pose.height, pose.width), np.int32)
    index[10:20, 10:30] = 3                          # 200 px
    index[30:40, 50:60] = 4                          # 100 px: bbox rows 10-39, cols 10-59 -> 30 x 50
    index[100:200, 100:200] = 5                      # a distractor
    gt = cv.ground_truth(geo, SimpleNamespace(pose=pose, target="subject:driver_side"),
                         SimpleNamespace(object_index=index))
    in_frame, fill = cv.in_frame_and_fill(pose, car.placement, car.body)
    assert gt["requested_face"] == "driver_side" and gt["color"] == car.color
    assert gt["distractors"] == len(spec.lot.cars) - 1
    assert (gt["car_in_frame_fraction"], gt["car_bbox_fraction"]) == (cv._r(in_frame), cv._r(fill))
    assert gt["subject_mask_fraction"] == round(300 / (pose.width * pose.height), 6)
    assert gt["subject_mask_bbox_fraction"] == round(30 * 50 / (pose.width * pose.height), 6)
    bare = cv.ground_truth(geo, SimpleNamespace(pose=pose, target="subject"))
    assert bare["requested_face"] is None and "subject_mask_fraction" not in bare
    assert cv.mask_stats(np.zeros((4, 4), np.int32), [3]) == {"subject_mask_fraction": 0.0,
                                                             "subject_mask_bbox_fraction": 0.0}
    assert cv.score_frame(geo, None, None) == [] and cv.score_scene(geo, SimpleNamespace(pose=pose)) == \
        cv.scene_terms_of(spec, pose)
