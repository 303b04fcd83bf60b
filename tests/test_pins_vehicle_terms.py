"""Pins of the vehicle scorer cores: car_view (face, angle, car lengths), damage_view
(severity edges, px per cm, neighbour panel, distance gray zone), car_plate / ro_board
ground truth and the documentation grading of the four environments' keys.

Cameras are pinhole poses placed at chosen distances and azimuths, so every value below
is worked by hand (docs/envs/vehicles.md has the decisions).
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import scorers.car_plate as cp
import scorers.car_view as cv
import scorers.damage_view as dv
import scorers.ro_board as rb
from blender_envs.vehicle.body import Body, Placement, to_car, to_world
from blender_envs.vehicle.ids import BoardIds
from blender_envs.vehicle.plates import Plate
from geometry.camera import look_at, pose_for_phone, sample_phone
from packagers.prompts import get_prompt
from scorers.realitybench_grading import GradingItem, grade_item, score_field
from scorers.terms import Verdict, verdict_of

PHONE = sample_phone(np.random.default_rng(0))
BODY = Body(style="sedan", length_m=4.0, width_m=1.8, height_m=1.4, wheelbase_m=2.4, front_overhang_m=0.8,
            hood_m=1.2, windshield_m=0.6, roof_m=1.2, rear_glass_m=0.4, deck_m=0.6, beltline_m=0.9,
            clearance_m=0.15, wheel_radius_m=0.32)
CAR = Placement(x=5.0, y=-3.0, yaw_deg=30.0)


def pose_at(eye, target, long_side=640):
    return pose_for_phone(PHONE, "main", 1.0, "landscape", long_side, look_at(eye, target), "pinhole", None, 1 / 250)


def eye_around(azimuth_deg, lengths, car=CAR, body=BODY):
    """A camera `lengths` car lengths from the car centre at a car-frame azimuth, at its height."""
    a = math.radians(azimuth_deg)
    c = body.center() + lengths * body.length_m * np.array([math.cos(a), math.sin(a), 0.0])
    return to_world(car, c)


def by_name(terms):
    return {t.name: t for t in terms}


# ---------------------------------------------------------------- car_view


@pytest.mark.parametrize("az, face, off", [
    (0.0, "front", 0.0), (29.99, "front", 29.99), (-30.01, "front", 30.01), (44.99, "front", 44.99),
    (45.0, "front", 45.0),                # tie front/driver: FACES order, front first
    (45.01, "driver", 44.99), (90.0, "driver", 0.0), (120.0, "driver", 30.0),
    (135.0, "rear", 45.0),                # tie rear/driver: rear comes before driver
    (179.0, "rear", 1.0), (180.0, "rear", 0.0), (-179.0, "rear", 1.0), (-135.0, "rear", 45.0),
    (-134.0, "passenger", 44.0), (-90.0, "passenger", 0.0), (-60.0, "passenger", 30.0),
    (-45.0, "front", 45.0), (350.0, "front", 10.0),
])
def test_nearest_face_worked(az, face, off):
    f, d = cv.nearest_face(az)
    assert f == face and d == pytest.approx(off, abs=1e-9)


def test_nearest_face_undefined():
    f, d = cv.nearest_face(float("nan"))
    assert f is None and math.isnan(d)
    assert math.isnan(cv.view_azimuth_deg(to_world(CAR, [0.0, 0.0, 9.0]), CAR))


def test_angle_between_wraps():
    assert cv.angle_between_deg(170.0, -170.0) == pytest.approx(20.0)
    assert cv.angle_between_deg(-170.0, 170.0) == pytest.approx(20.0)
    assert cv.angle_between_deg(10.0, 370.0) == pytest.approx(0.0)
    assert cv.angle_between_deg(0.0, 180.0) == 180.0
    assert cv.angle_between_deg(90.0, 0.0) == 90.0


def test_view_azimuth_in_the_car_frame():
    # car yaw 30: a camera straight ahead of the car (car +x) is at azimuth 0 whatever the world heading
    for az in (0.0, 37.0, 90.0, -90.0, 150.0, -150.0, 180.0):
        got = cv.view_azimuth_deg(eye_around(az, 2.0), CAR)
        assert cv.angle_between_deg(got, az) == pytest.approx(0.0, abs=1e-9)
    assert cv.view_azimuth_deg(eye_around(180.0, 2.0), CAR) == pytest.approx(180.0)
    # the world yaw matters: with yaw 0 the same world point is 30 deg round
    p0 = Placement(x=CAR.x, y=CAR.y, yaw_deg=0.0)
    assert cv.view_azimuth_deg(eye_around(0.0, 2.0), p0) == pytest.approx(30.0)
    # straight above the centre there is no azimuth; 1 nm off centre there is one
    origin = Placement(x=0.0, y=0.0, yaw_deg=0.0)
    assert math.isnan(cv.view_azimuth_deg([0.0, 0.0, 5.0], origin))
    assert cv.view_azimuth_deg([1e-9, 0.0, 5.0], origin) == 0.0
    assert cv.view_azimuth_deg([0.0, 2e-9, 5.0], origin) == 90.0
    assert cv.view_azimuth_deg([0, 3, 1], origin) == 90.0          # integer input


def test_the_named_face_has_the_sign_of_the_camera_direction():
    """Issue 12: the face agrees with the sign of the camera's direction in the car frame."""
    rng = np.random.default_rng(0)
    normals = {"front": (0, 1), "rear": (0, -1), "driver": (1, 1), "passenger": (1, -1)}
    for _ in range(400):
        car = Placement(x=float(rng.uniform(-20, 20)), y=float(rng.uniform(-20, 20)), yaw_deg=float(rng.uniform(-180, 180)))
        eye = np.array([car.x, car.y, 0.0]) + np.r_[rng.uniform(-15, 15, 2), rng.uniform(0.3, 2.0)]
        face, _ = cv.nearest_face(cv.view_azimuth_deg(eye, car))
        d = to_car(car, eye)
        axis, sign = normals[face]
        assert abs(d[axis]) >= abs(d[1 - axis]) and np.sign(d[axis]) == sign


def test_distance_in_lengths_worked():
    assert cv.distance_in_lengths(eye_around(90.0, 3.0), CAR, BODY) == pytest.approx(3.0)
    # 3-4-5: 2.4 m along x and 3.2 m up from the centre is 4 m = 1 length of 4 m
    eye = to_world(CAR, BODY.center() + [2.4, 0.0, 3.2])
    assert cv.distance_in_lengths(eye, CAR, BODY) == pytest.approx(1.0)


def car_terms(az=90.0, lengths=2.0, in_frame=1.0, fill=0.2):
    eye = eye_around(az, lengths)
    return cv.scene_terms(pose_at(eye, to_world(CAR, BODY.center())), CAR, BODY, in_frame, fill)


def test_car_view_terms_at_their_thresholds():
    t = by_name(car_terms())
    assert list(t) == ["car_in_frame", "face_angle", "distance_min_lengths", "distance_lengths", "car_fill",
                       "sharp_at_target"]
    assert verdict_of(list(t.values())) == Verdict.ACCEPT
    assert t["face_angle"].value == pytest.approx(0.0, abs=1e-6) and t["sharp_at_target"].value == 0.0
    assert by_name(car_terms(az=119.99))["face_angle"].passed
    assert not by_name(car_terms(az=120.01))["face_angle"].passed
    assert by_name(car_terms(az=-60.01))["face_angle"].passed
    assert by_name(car_terms(lengths=1.5001))["distance_min_lengths"].passed
    f = by_name(car_terms(lengths=1.499))["distance_min_lengths"]
    assert not f.passed and not f.gray
    assert by_name(car_terms(lengths=2.9999))["distance_lengths"].passed
    assert by_name(car_terms(in_frame=0.999))["car_in_frame"].passed is False
    assert by_name(car_terms(fill=0.03))["car_fill"].passed and not by_name(car_terms(fill=0.0299))["car_fill"].passed


@pytest.mark.parametrize("lengths, verdict", [(2.99, Verdict.ACCEPT), (3.01, Verdict.UNSCORED),
                                              (3.99, Verdict.UNSCORED), (4.01, Verdict.REJECT),
                                              (1.49, Verdict.REJECT)])
def test_car_lengths_gray_zone(lengths, verdict):
    terms = car_terms(lengths=lengths)
    assert verdict_of(terms) == verdict
    d = by_name(terms)["distance_lengths"]
    assert d.value == pytest.approx(lengths, abs=1e-6)
    assert d.gray == (3.0 < lengths <= 4.0)


def test_car_view_blur_is_at_the_named_face():
    # a defocused pose focused 1 m in front of the camera: the blur is measured on the driver face, not the centre
    eye = eye_around(90.0, 2.0)
    centre = to_world(CAR, BODY.center())
    pose = pose_for_phone(PHONE, "main", 1.0, "landscape", 640, look_at(eye, centre), "locked_elsewhere", 1.0, 1 / 250)
    from geometry.camera import blur_at_target_px
    want = blur_at_target_px(pose, to_world(CAR, BODY.face_center("driver")))
    assert by_name(cv.scene_terms(pose, CAR, BODY, 1.0, 0.2))["sharp_at_target"].value == pytest.approx(want, abs=1e-6)
    assert want != pytest.approx(blur_at_target_px(pose, centre), abs=1e-3)


def test_car_view_term_units_and_thresholds():
    got = [(t.name, t.unit, t.threshold) for t in car_terms()]
    assert got == [("car_in_frame", "", ">= 1"), ("face_angle", "deg", "<= 30 deg"),
                   ("distance_min_lengths", "lengths", ">= 1.5 lengths"),
                   ("distance_lengths", "lengths", "<= 3 lengths"), ("car_fill", "", ">= 0.03"),
                   ("sharp_at_target", "px", "<= 6 px")]


def test_car_view_undefined_geometry_fails_without_crashing():
    centre = to_world(CAR, BODY.center())
    above = centre + [0.0, 0.0, 8.0]
    t = by_name(cv.scene_terms(pose_at(above, centre + [0.3, 0.0, 0.0]), CAR, BODY, 1.0, 0.2))
    assert t["face_angle"].value is None and not t["face_angle"].passed
    assert t["sharp_at_target"].value is None and not t["sharp_at_target"].passed
    gt = cv.view_ground_truth(pose_at(above, centre + [0.3, 0.0, 0.0]), CAR, BODY)
    assert gt["side"] is None and gt["view_azimuth_deg"] is None and gt["face_angle_deg"] is None
    assert gt["distance_lengths"] == pytest.approx((8.0 - 0.0) / 4.0)
    # looking away from the car: the named face is behind the camera, its blur undefined
    eye = eye_around(90.0, 2.0)
    pose = pose_for_phone(PHONE, "main", 1.0, "landscape", 640, look_at(eye, 2 * eye - centre), "locked_elsewhere",
                          1.0, 1 / 250)
    away = by_name(cv.scene_terms(pose, CAR, BODY, 0.0, 0.0))
    assert away["sharp_at_target"].value is None and not away["sharp_at_target"].passed
    assert away["face_angle"].value == pytest.approx(0.0, abs=1e-6)


def test_ground_truth_numbers_are_rounded_to_six_places():
    assert cv._r(1 / 3) == 0.333333 and cv._r(float("inf")) is None and cv._r(2) == 2.0


def test_car_view_ground_truth():
    gt = cv.view_ground_truth(pose_at(eye_around(-100.0, 2.5), to_world(CAR, BODY.center())), CAR, BODY)
    assert gt == {"side": "passenger", "body_style": "sedan", "view_azimuth_deg": pytest.approx(-100.0),
                  "face_angle_deg": pytest.approx(10.0), "distance_lengths": pytest.approx(2.5)}


# ---------------------------------------------------------------- damage_view


@pytest.mark.parametrize("area, sev", [(0.0, "minor"), (99.999, "minor"), (100.0, "moderate"), (300.0, "moderate"),
                                       (500.0, "moderate"), (500.001, "severe"), (5000.0, "severe")])
def test_severity_edges(area, sev):
    assert dv.severity_of(area) == sev


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -1.0])
def test_severity_refuses_non_areas(bad):
    with pytest.raises(ValueError, match="not an area"):
        dv.severity_of(bad)


def test_sampled_bands_agree_with_the_severity_rule():
    from blender_envs.vehicle.body import sample_body
    from blender_envs.vehicle.damage import sample_damage
    rng = np.random.default_rng(8)
    for _ in range(150):
        s = sample_damage(rng, sample_body(rng))
        assert dv.severity_of(s.area_cm2) == s.band
        gt = dv.damage_ground_truth(s.kinds, s.area_cm2)
        assert gt["severity"] == s.band and gt["damage_types"] == s.kinds


def test_damage_ground_truth_sorts_and_dedupes():
    assert dv.damage_ground_truth(["scratch", "dent", "scratch"], 123.45678) == {
        "damage_types": ["dent", "scratch"], "severity": "moderate", "damage_area_cm2": 123.4568}


SITE = np.array([1.0, 2.0, 0.6])
NORMAL = np.array([0.0, -1.0, 0.0])
U, V = np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])


def site_pose(dist, angle_deg=0.0, long_side=640):
    a = math.radians(angle_deg)
    eye = SITE + dist * (math.cos(a) * NORMAL + math.sin(a) * U)
    return pose_at(eye, SITE, long_side)


def test_px_per_cm_square_on_and_oblique():
    p = site_pose(1.0)
    f = p.K_array()[0, 0]
    assert dv.px_per_cm(p, SITE, U, V) == pytest.approx(f * 0.01 / 1.0, rel=1e-6)
    # 60 deg towards u: the u step foreshortens to cos 60 (to first order), v does not: the worse counts
    q = site_pose(1.0, 60.0)
    assert dv.px_per_cm(q, SITE, U, V) == pytest.approx(f * 0.01 * 0.5, rel=1e-3)
    assert dv.px_per_cm(q, SITE, V, U) == pytest.approx(dv.px_per_cm(q, SITE, U, V))
    behind = pose_at(SITE + NORMAL, SITE + 2 * NORMAL)
    assert math.isnan(dv.px_per_cm(behind, SITE, U, V))


def damage_terms(dist=0.8, angle=0.0, in_frame=1.0, unocc=1.0, neighbour=0.5, long_side=640):
    return dv.scene_terms(site_pose(dist, angle, long_side), SITE, NORMAL, U, V, in_frame, unocc, neighbour)


def test_damage_terms_at_their_thresholds():
    t = by_name(damage_terms())
    assert list(t) == ["damage_in_frame", "damage_unoccluded", "view_angle", "distance_min", "distance",
                       "neighbour_panel", "px_per_cm", "sharp_at_target"]
    assert verdict_of(list(t.values())) == Verdict.ACCEPT
    assert t["distance"].value == pytest.approx(0.8) and t["view_angle"].value == pytest.approx(0.0, abs=1e-6)
    assert by_name(damage_terms(angle=44.99))["view_angle"].passed
    assert not by_name(damage_terms(angle=45.01))["view_angle"].passed
    assert by_name(damage_terms(dist=0.3))["distance_min"].passed
    assert not by_name(damage_terms(dist=0.2999))["distance_min"].passed
    assert by_name(damage_terms(neighbour=0.10))["neighbour_panel"].passed
    assert not by_name(damage_terms(neighbour=0.0999))["neighbour_panel"].passed
    assert by_name(damage_terms(unocc=0.9))["damage_unoccluded"].passed
    assert not by_name(damage_terms(unocc=0.8999))["damage_unoccluded"].passed
    assert not by_name(damage_terms(in_frame=0.999))["damage_in_frame"].passed
    # 3 px/cm: f * 0.01 / d = 3 at d = f / 300
    f = site_pose(1.0).K_array()[0, 0]
    d3 = f * 0.01 / 3.0
    assert by_name(damage_terms(dist=d3 * 0.999))["px_per_cm"].passed
    assert not by_name(damage_terms(dist=d3 * 1.001))["px_per_cm"].passed


def test_damage_term_units_and_values():
    t = damage_terms(dist=0.8, in_frame=1, unocc=1, neighbour=1)
    assert [(x.name, x.unit, x.threshold) for x in t] == [
        ("damage_in_frame", "", ">= 1"), ("damage_unoccluded", "", ">= 0.9"), ("view_angle", "deg", "<= 45 deg"),
        ("distance_min", "m", ">= 0.3 m"), ("distance", "m", "<= 1.5 m"), ("neighbour_panel", "", ">= 0.1"),
        ("px_per_cm", "px/cm", ">= 3 px/cm"), ("sharp_at_target", "px", "<= 6 px")]
    f = site_pose(1.0).K_array()[0, 0]
    v = by_name(t)
    assert v["px_per_cm"].value == pytest.approx(round(f * 0.01 / 0.8, 6), abs=1e-5)
    assert v["damage_in_frame"].value == 1.0 and isinstance(v["damage_in_frame"].value, float)
    assert v["sharp_at_target"].value == 0.0 and v["sharp_at_target"].passed
    c = dv.contrast_term(61)
    assert (c.value, c.unit, c.threshold) == (61, "px", ">= 60 px")


def test_damage_blur_undefined_behind_a_defocused_camera():
    pose = pose_for_phone(PHONE, "main", 1.0, "landscape", 640, look_at(SITE + NORMAL, SITE + 2 * NORMAL),
                          "locked_elsewhere", 0.5, 1 / 250)
    t = by_name(dv.scene_terms(pose, SITE, NORMAL, U, V, 1.0, 1.0, 0.5))
    assert t["sharp_at_target"].value is None and not t["sharp_at_target"].passed
    # in front and defocused: the thin-lens blur is reported, not zero
    pose = pose_for_phone(PHONE, "main", 1.0, "landscape", 640, look_at(SITE + NORMAL, SITE), "locked_elsewhere",
                          0.2, 1 / 250)
    from geometry.camera import blur_at_target_px
    b = by_name(dv.scene_terms(pose, SITE, NORMAL, U, V, 1.0, 1.0, 0.5))["sharp_at_target"].value
    assert b == pytest.approx(blur_at_target_px(pose, SITE), abs=1e-6) and b > 1.0


@pytest.mark.parametrize("dist, gray, passed", [(1.5, False, True), (1.5001, True, False), (3.0, True, False),
                                                (3.0001, False, False)])
def test_damage_distance_gray_zone(dist, gray, passed):
    t = by_name(damage_terms(dist=dist, long_side=4000))   # 4000 px: px/cm passes out to 3 m
    assert t["px_per_cm"].passed
    assert t["distance"].gray == gray and t["distance"].passed == passed
    want = Verdict.ACCEPT if passed else (Verdict.UNSCORED if gray else Verdict.REJECT)
    assert verdict_of(list(t.values())) == want


def test_damage_behind_the_camera_fails_px_per_cm():
    pose = pose_at(SITE + NORMAL, SITE + 2 * NORMAL)
    t = by_name(dv.scene_terms(pose, SITE, NORMAL, U, V, 1.0, 1.0, 0.5))
    assert t["px_per_cm"].value is None and not t["px_per_cm"].passed


def test_neighbour_fraction():
    assert dv.neighbour_fraction({"a": 0.2, "b": 0.5, "c": 0.9}, ["a", "b"]) == ("b", 0.5)
    assert dv.neighbour_fraction({"a": 0.2, "b": 0.2}, ["b", "a"]) == ("b", 0.2)     # ties to the first
    assert dv.neighbour_fraction({"a": 0.0}, ["a", "z"]) == ("a", 0.0)               # unmeasured = 0
    assert dv.neighbour_fraction({}, []) == (None, 0.0)


def test_contrast_term():
    assert dv.contrast_term(60).passed and not dv.contrast_term(59).passed
    assert dv.contrast_term(60).side == "frame"


# ---------------------------------------------------------------- ground truth and grading of the keys

KEYS = {env: {k.name: k for k in get_prompt(env).keys} for env in ("car_view", "damage_view", "car_plate", "ro_board")}


def test_plate_ground_truth():
    gt = cp.plate_ground_truth(Plate(state_code="TX", format="???-####", text="BXR-4012"))
    assert gt == {"plate": "BXR4012", "state": "Texas", "plate_text": "BXR-4012", "plate_format": "???-####",
                  "state_code": "TX"}


@pytest.mark.parametrize("answer, score", [
    ("California", 1.0), ("CALIFORNIA", 1.0), ("california ", 1.0), ("Cali-fornia", 1.0),
    ("CA", 0.0), ("Calif.", 0.0), ("State of California", 0.0), ("", 0.0),
])
def test_state_is_the_full_name_no_alias_table(answer, score):
    """Decision (docs/envs/vehicles.md): the state is graded as App. D says, against the full name printed
    on the plate; a USPS code is not accepted."""
    assert score_field(KEYS["car_plate"]["state"], answer, "California") == score


@pytest.mark.parametrize("answer, score", [("7ABC123", 1.0), ("7abc-123", 1.0), ("7ABC 123", 1.0),
                                           ("7ABC12", 0.0), ("7ABC1230", 0.0), ("7A8C123", 0.0)])
def test_plate_characters_normalised(answer, score):
    assert score_field(KEYS["car_plate"]["plate"], answer, "7ABC123") == score


def test_board_ground_truth_and_its_grading():
    ids = BoardIds(ro="482913", vin="1M8GDM9AXKP042788", date="11/24/2026", model_year=2019)
    gt = rb.board_ground_truth(ids, "SUV")
    assert gt == {"ro": "482913", "vin": "1M8GDM9AXKP042788", "body_style": "SUV", "date": "11/24/2026"}
    with pytest.raises(ValueError, match="invalid VIN"):
        rb.board_ground_truth(ids.model_copy(update={"vin": "1M8GDM9A0KP042788"}), "SUV")
    k = KEYS["ro_board"]
    assert score_field(k["ro"], "482 913", "482913") == 1.0
    assert score_field(k["ro"], "RO# 482913", "482913") == 0.0     # the label is not the number
    assert score_field(k["vin"], "1m8gdm9axkp042788", gt["vin"]) == 1.0
    assert score_field(k["vin"], "1M8G DM9A XKP0 42788", gt["vin"]) == 1.0
    assert score_field(k["vin"], "1M8GDM9AXKPO42788", gt["vin"]) == 0.0  # O for 0 is a misreading


def test_enum_keys_are_exact_and_damage_kinds_a_set():
    assert score_field(KEYS["car_view"]["side"], "driver", "driver") == 1.0
    assert score_field(KEYS["car_view"]["body_style"], "SUV", "SUV") == 1.0
    assert score_field(KEYS["damage_view"]["severity"], "moderate", "moderate") == 1.0
    assert score_field(KEYS["damage_view"]["damage_types"], ["scratch", "dent"], ["dent", "scratch"]) == 1.0
    assert score_field(KEYS["damage_view"]["damage_types"], ["dent"], ["dent", "scratch"]) == 0.0

    def grade(env, truth, reply):
        item = GradingItem(id="x", env=env, stratum="random", scorer_verdict="accept", ground_truth=truth,
                           keys=get_prompt(env).keys)
        return grade_item(item, json.dumps({"adequate": True} | reply))

    g = grade("car_view", {"side": "driver", "body_style": "SUV"}, {"side": "driver side", "body_style": "suv"})
    assert not g.in_grammar and g.field_scores == {"side": 0.0, "body_style": 0.0}   # values exactly as written
    g = grade("car_view", {"side": "driver", "body_style": "SUV"}, {"side": "driver", "body_style": "SUV"})
    assert g.in_grammar and g.doc_score == 1.0
    g = grade("ro_board", {"ro": "482913", "vin": "1M8GDM9AXKP042788", "body_style": "pickup"},
              {"ro": "482913", "vin": "1M8GDM9AXKP042788", "body_style": "van"})
    assert g.field_scores == {"ro": 1.0, "vin": 1.0, "body_style": 0.0} and g.doc_score == pytest.approx(2 / 3)


# ---------------------------------------------------------------- damage_view inputs: in-frame fractions, contrast


def test_in_frame_fraction_and_neighbour_context():
    pose = site_pose(1.0)                    # at SITE + NORMAL, looking back at SITE
    inside = [SITE, SITE + [0.05, 0.0, 0.0]]
    behind = [SITE + 3 * NORMAL]             # 2 m behind the camera, on its axis
    far_left = [SITE + [50.0, 0.0, 0.0]]     # in front, outside the image
    assert dv.in_frame_fraction(pose, inside) == 1.0
    assert dv.in_frame_fraction(pose, inside + far_left + behind) == 0.5
    assert dv.in_frame_fraction(pose, behind) == 0.0 and dv.in_frame_fraction(pose, far_left) == 0.0
    assert dv.in_frame_fraction(pose, np.zeros((0, 3))) == 0.0
    samples = {"a": np.array(inside + far_left * 3), "b": np.array(inside), "c": np.array(far_left)}
    assert dv.neighbour_in_frame(pose, samples, ["a", "c"]) == ("a", 0.4)
    assert dv.neighbour_in_frame(pose, samples, ["c", "b", "a"]) == ("b", 1.0)
    assert dv.neighbour_in_frame(pose, samples, ["x"]) == ("x", 0.0)       # no samples: not in frame


def test_contrasting_pixels_worked():
    img = np.full((10, 10, 3), 128, np.uint8)
    dmg = np.zeros((10, 10), bool)
    dmg[2:4, 2:7] = True                         # 10 damage px
    paint = np.ones((10, 10), bool)              # the whole panel; the damage is taken out of it
    assert dv.contrasting_pixels(img, dmg, paint) == 0
    img[2, 2:7] = 128 + 11                       # luma step 11/255 = 0.0431 >= 0.04
    img[3, 2:4] = 128 + 10                       # 10/255 = 0.0392 < 0.04
    img[3, 4] = 128 - 11                         # darker counts as well
    assert dv.contrasting_pixels(img, dmg, paint) == 6
    assert dv.contrasting_pixels(img, dmg, paint, step=0.039) == 8
    assert dv.contrasting_pixels(img, dmg, dmg) == 0                       # no paint outside the damage
    # 0/1 integer masks are masks, not pixel indices
    assert dv.contrasting_pixels(img, dmg.astype(np.uint8), paint.astype(np.uint8)) == 6
    assert dv.contrasting_pixels(img, dmg.astype(np.uint8), dmg.astype(np.int64)) == 0
    # a step exactly equal to a pixel's difference counts it (>=)
    from scorers.image_stats import luma
    exact = float(abs(luma(img)[2, 2] - luma(img)[0, 0]))
    assert dv.contrasting_pixels(img, dmg, paint, step=exact) == 6
    # the reference is the paint's median, not its mean: a few bright paint pixels do not move it
    img2 = np.full((10, 10, 3), 128, np.uint8)
    img2[8:, :] = 255
    img2[2, 2:7] = 140
    assert dv.contrasting_pixels(img2, dmg, paint) == 5


def test_site_frame_turns_the_sites_directions_without_moving_them():
    """The damage_view scene parks the subject at the origin, so a direction taken as a world point
    plus the car's offset would pass every drawn scene: moved to (3, -2), the centre moves by the
    offset and the normal and panel axes stay the same unit vectors."""
    from blender_envs.vehicle.damage_view import sample_scene
    from render_farm.seeds import rng_for

    spec = sample_scene(rng_for("damage_view", 7, "scene"), "s7", 7)

    def parked_at(x, y):
        car = spec.lot.subject.model_copy(update={"placement": Placement(x=x, y=y, yaw_deg=30.0)})
        return spec.model_copy(update={"lot": spec.lot.model_copy(update={"cars": [car, *spec.lot.cars[1:]]})})

    home, moved = dv.site_frame(parked_at(0.0, 0.0)), dv.site_frame(parked_at(3.0, -2.0))
    assert moved[0] - home[0] == pytest.approx([3.0, -2.0, 0.0], abs=1e-9)
    for a, b in zip(home[1:], moved[1:]):
        assert b == pytest.approx(a, abs=1e-9) and np.linalg.norm(b) == pytest.approx(1.0, abs=1e-6)


def test_samples_of_panels_and_sites():
    from blender_envs.vehicle.body import panel_samples, panels, sample_body
    from blender_envs.vehicle.damage import sample_damage, site_outline, site_rect, site_samples
    b = sample_body(np.random.default_rng(0), "sedan")
    s = panel_samples(b, "trunk", 5)
    assert s.shape == (50, 3)                    # two rectangles, 5 x 5 each
    r = panels(b)["hood"][0]
    h = panel_samples(b, "hood", 3)
    assert h.shape == (9, 3) and h[0] == pytest.approx(r.point(-r.half_u, -r.half_v))
    assert h[4] == pytest.approx(r.center) and h[8] == pytest.approx(r.point(r.half_u, r.half_v))
    site = sample_damage(np.random.default_rng(1), b)
    ss = site_samples(b, site, rings=2, n=8)
    assert ss.shape == (17, 3)
    assert ss[0] == pytest.approx(site_rect(b, site).point(*site.center_uv_m))
    assert ss[9:] == pytest.approx(site_outline(b, site, 8))          # the outer ring is the outline
    mid = ss[1:9] - ss[0]
    assert np.linalg.norm(mid, axis=1) == pytest.approx(np.linalg.norm(ss[9:] - ss[0], axis=1) / 2)
