"""Every scorer threshold and gray band pinned to the papers, and each term driven just
inside and just outside its threshold.

Sources: RealityBench Table 1 ("Environment, task and scorer summaries", its caption for
"sharp at target"), EgoPathBench App. A / Table S7 / Table S8. Each entry quotes the row
text it comes from; where the paper names a term but gives no number, the entry says
"project default" and pins the value the project chose (docs/deviations.md).

Three layers, so a moved constant, a flipped comparison and a gray band made exclusive
each fail here:
1. the constant equals the paper's number (TABLE);
2. `scorers.terms.term` with that constant: exactly on the threshold, just inside and
   just outside, and gray bands inclusive at both ends;
3. the scorers' own term functions driven with plain numbers or exact geometry (a camera
   placed at a chosen distance or angle, images with a chosen pixel count or contrast),
   just inside and just outside, and the names of their terms matching the table.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import scorers.breaker_label as bl
import scorers.car_plate as cp
import scorers.car_view as cv
import scorers.damage_view as dv
import scorers.egopath_view as epv
import scorers.equipment_label as el
import scorers.horizon_peak as hp
import scorers.rail_attachment as ra
import scorers.ro_board as rb
import scorers.slope_gauge as sg
import scorers.tape_gap as tg
import scorers.wire_adequacy as wa
from blender_envs.house.breaker_label import card_frame, sample_scene as sample_breaker
from blender_envs.solar import tape_spec
from blender_envs.solar.equipment_label import label_frame, sample_scene as sample_label
from blender_envs.solar.slope_gauge import display_matrix, sample_scene as sample_gauge
from blender_envs.solar.tape_spec import INCH_M, TapeSpec, leaned_frame
from geometry.camera import look_at, pose_for_phone, sample_phone
from geometry.egopath_schema import GeometryParams
from scorers.terms import Verdict, term, verdict_of

PHONE = sample_phone(np.random.default_rng(0))

# (env, term name, module, constant, paper value, comparison, Table 1 text)
TABLE = [
    # rail_attachment: "attachment in frame (≥ 90% of it); attachment unoccluded; bolt location unoccluded
    # (≥ 50% of the spot where the lag bolt sits, or would sit, visible); fills the frame (bbox ≥ 2%);
    # not a wide shot (≤ 1.8 m); not scored when the lag bolt or flashing is missing"
    ("rail_attachment", "attachment_in_frame", ra, "IN_FRAME_MIN", 0.90, ">=", "attachment in frame (≥ 90% of it)"),
    ("rail_attachment", "attachment_unoccluded", ra, "UNOCCLUDED_MIN", 0.60, ">=",
     "attachment unoccluded (no number: project default 60%, as calib)"),
    ("rail_attachment", "bolt_location_unoccluded", ra, "BOLT_SPOT_MIN", 0.50, ">=",
     "bolt location unoccluded (≥ 50% of the spot where the lag bolt sits, or would sit, visible)"),
    ("rail_attachment", "fills_frame", ra, "BBOX_MIN", 0.02, ">=", "fills the frame (bbox ≥ 2%)"),
    ("rail_attachment", "not_wide_shot", ra, "DISTANCE_MAX_M", 1.8, "<=", "not a wide shot (≤ 1.8 m)"),
    ("rail_attachment", "sharp_at_target", ra, "BLUR_MAX_PX", 5.0, "<=",
     "caption: sharp at target (defocus and motion blur at the target ≤ 5 px)"),
    # wire_adequacy: "a lead wire in frame (≥ 50% of it); that wire's lowest point visible; that wire unoccluded
    # (≥ 30% of it); wire visible to the eye: wire pixels ≥ 0.05% of the frame; wire stands out: edge contrast
    # ≥ 0.03; close enough to judge contact (cam within 2.5 m of that wire's low point)"
    ("wire_adequacy", "wire_in_frame", wa, "IN_FRAME_MIN", 0.50, ">=", "a lead wire in frame (≥ 50% of it)"),
    ("wire_adequacy", "low_point_visible", wa, "LOW_POINT_MIN", 0.50, ">=",
     "that wire's lowest point visible (no number: project default, half of its low-point samples)"),
    ("wire_adequacy", "wire_unoccluded", wa, "UNOCCLUDED_MIN", 0.30, ">=", "that wire unoccluded (≥ 30% of it)"),
    ("wire_adequacy", "low_point_distance", wa, "DISTANCE_MAX_M", 2.5, "<=",
     "close enough to judge contact (cam within 2.5 m of that wire's low point)"),
    ("wire_adequacy", "sharp_at_target", wa, "BLUR_MAX_PX", 5.0, "<=", "caption: sharp at target (≤ 5 px)"),
    ("wire_adequacy", "wire_pixels", wa, "PIXELS_MIN_FRAC", 0.0005, ">=",
     "wire visible to the eye: wire pixels ≥ 0.05% of the frame"),
    ("wire_adequacy", "edge_contrast", wa, "EDGE_CONTRAST_MIN", 0.03, ">=", "wire stands out: edge contrast ≥ 0.03"),
    # tape_gap: "crossing in frame; crossing unoccluded; close enough to read 1/16in ticks (≤ 0.65 m); tape seated
    # flush (tilt ≤ 5∘); photographed from the front of the blade; gray: a lean over 5∘ that shows as at most 5∘
    # in the image"
    ("tape_gap", "crossing_in_frame", tg, "IN_FRAME_MIN", 0.90, ">=", "crossing in frame (no number: project 90%)"),
    ("tape_gap", "crossing_unoccluded", tg, "UNOCCLUDED_MIN", 0.60, ">=",
     "crossing unoccluded (no number: project 60%)"),
    ("tape_gap", "crossing_distance", tg, "DISTANCE_MAX_M", 0.65, "<=",
     "close enough to read 1/16in ticks (≤ 0.65 m)"),
    ("tape_gap", "tape_flush", tape_spec, "FLUSH_MAX_DEG", 5.0, "<=", "tape seated flush (tilt ≤ 5∘)"),
    ("tape_gap", "front_of_blade", tape_spec, "FRONT_MAX_DEG", 75.0, "<",
     "photographed from the front of the blade (no number: project < 75∘)"),
    ("tape_gap", "sharp_at_crossing", tg, "BLUR_MAX_PX", 5.0, "<=", "caption: sharp at target (≤ 5 px)"),
    ("tape_gap", "crossing_pixels", tg, "CROSSING_PIXELS_MIN", 25, ">=",
     "(frame side, no paper number: project 25 blade px in the crossing crop)"),
    # slope_gauge: "display in frame; display unoccluded; digits legible: ≥ 14 px digit height; display readable
    # angle (view angle ≤ 65∘); gauge on the module, not bare roof; display not blown out (≤ 30% saturated); gauge
    # aligned with the slope (|yaw| ≤ 15∘, else it under-reads); array context: module glass visible in frame;
    # module edge in view to judge alignment (≥ 300 px of frame edge visible); text stands out in the render
    # (Weber contrast ≥ 0.2); gray: |yaw| 15–45∘"
    ("slope_gauge", "display_in_frame", sg, "IN_FRAME_MIN", 1.0, ">=", "display in frame (project: all of it)"),
    ("slope_gauge", "display_unoccluded", sg, "UNOCCLUDED_MIN", 0.9, ">=", "display unoccluded (project 90%)"),
    ("slope_gauge", "digit_height", sg, "DIGIT_PX_MIN", 14.0, ">=", "digits legible: ≥ 14 px digit height"),
    ("slope_gauge", "display_view_angle", sg, "VIEW_ANGLE_MAX", 65.0, "<=",
     "display readable angle (view angle ≤ 65∘)"),
    ("slope_gauge", "gauge_yaw", sg, "YAW_MAX", 15.0, "<=",
     "gauge aligned with the slope (|yaw| ≤ 15∘, else it under-reads)"),
    ("slope_gauge", "module_glass_in_frame", sg, "GLASS_FRACTION_MIN", 0.02, ">=",
     "array context: module glass visible in frame (project: 2% of the frame)"),
    ("slope_gauge", "module_edge_visible", sg, "EDGE_PX_MIN", 300.0, ">=",
     "module edge in view to judge alignment (≥ 300 px of frame edge visible)"),
    ("slope_gauge", "sharp_at_target", sg, "BLUR_MAX_PX", 5.0, "<=", "caption: sharp at target (≤ 5 px)"),
    ("slope_gauge", "display_saturated", sg, "SATURATED_MAX", 0.30, "<=", "display not blown out (≤ 30% saturated)"),
    ("slope_gauge", "display_contrast", sg, "WEBER_MIN", 0.2, ">=", "text stands out in the render (Weber contrast ≥ 0.2)"),
    # equipment_label: "label fully in frame; label unoccluded (≥ 95% of it); legible: ≥ 10 px per text row; barcode
    # resolvable: ≥ 1 px per module; square-on enough to OCR (view angle ≤ 60∘); label not blown out (≤ 30%
    # saturated); site context: some of the equipment/mounting in view; label lit: paper luminance ≥ 0.05; text
    # stands out in the render (Weber contrast ≥ 0.3)"
    ("equipment_label", "label_in_frame", el, "IN_FRAME_MIN", 1.0, ">=", "label fully in frame"),
    ("equipment_label", "label_unoccluded", el, "UNOCCLUDED_MIN", 0.95, ">=", "label unoccluded (≥ 95% of it)"),
    ("equipment_label", "text_row_px", el, "ROW_PX_MIN", 10.0, ">=", "legible: ≥ 10 px per text row"),
    ("equipment_label", "barcode_module_px", el, "MODULE_PX_MIN", 1.0, ">=", "barcode resolvable: ≥ 1 px per module"),
    ("equipment_label", "label_view_angle", el, "VIEW_ANGLE_MAX", 60.0, "<=",
     "square-on enough to OCR (view angle ≤ 60∘)"),
    ("equipment_label", "equipment_in_view", el, "CONTEXT_MIN", 0.05, ">=",
     "site context: some of the equipment/mounting in view (project: 5% of the frame)"),
    ("equipment_label", "sharp_at_target", el, "BLUR_MAX_PX", 5.0, "<=", "caption: sharp at target (≤ 5 px)"),
    ("equipment_label", "label_saturated", el, "SATURATED_MAX", 0.30, "<=", "label not blown out (≤ 30% saturated)"),
    ("equipment_label", "paper_luminance", el, "PAPER_MIN", 0.05, ">=", "label lit: paper luminance ≥ 0.05"),
    ("equipment_label", "label_contrast", el, "WEBER_MIN", 0.3, ">=", "text stands out in the render (Weber contrast ≥ 0.3)"),
    # horizon_peak: "horizon in frame, in the middle 80% of the image; taken from the peak: the house's own roof
    # hides ≤ 10% of the horizon arc; skyline inside the frame: sky above it and the surroundings below it across
    # ≥ 65% of the width; level (roll ≤ 10∘); own roof visible along the bottom of the frame (≥ 4% of the bottom
    # quarter): proof it was taken from the peak; phone at or above the ridge line (camera height above the ridge
    # ≥ 0 m)"
    ("horizon_peak", "own_roof_horizon", hp, "OWN_BLOCK_MAX", 0.10, "<=",
     "the house's own roof hides ≤ 10% of the horizon arc"),
    ("horizon_peak", "skyline_in_frame", hp, "SKYLINE_MIN", 0.65, ">=",
     "sky above it and the surroundings below it across ≥ 65% of the width"),
    ("horizon_peak", "own_roof_bottom", hp, "BOTTOM_OWN_MIN", 0.04, ">=",
     "own roof visible along the bottom of the frame (≥ 4% of the bottom quarter)"),
    ("horizon_peak", "camera_above_ridge", hp, "HEIGHT_MIN_M", 0.0, ">=",
     "phone at or above the ridge line (camera height above the ridge ≥ 0 m)"),
    ("horizon_peak", "sharp_at_target", hp, "BLUR_MAX_PX", 5.0, "<=", "caption: sharp at target (≤ 5 px)"),
    # breaker_label: "card in frame; card unoccluded; legible: ≥ 11 px per text row; square-on (view angle ≤ 45∘);
    # tight: card bbox ≥ 4% of frame; text stands out in the render (Weber contrast ≥ 0.225); card not blown out
    # (≤ 30% saturated)"
    ("breaker_label", "card_in_frame", bl, "IN_FRAME_MIN", 0.98, ">=", "card in frame (project 98%)"),
    ("breaker_label", "card_unoccluded", bl, "UNOCCLUDED_MIN", 0.95, ">=", "card unoccluded (project 95%)"),
    ("breaker_label", "text_row_px", bl, "ROW_PX_MIN", 11.0, ">=", "legible: ≥ 11 px per text row"),
    ("breaker_label", "view_angle", bl, "VIEW_ANGLE_MAX", 45.0, "<=", "square-on (view angle ≤ 45∘)"),
    ("breaker_label", "card_bbox", bl, "BBOX_MIN", 0.04, ">=", "tight: card bbox ≥ 4% of frame"),
    ("breaker_label", "sharp_at_target", bl, "BLUR_MAX_PX", 5.0, "<=", "caption: sharp at target (≤ 5 px)"),
    ("breaker_label", "text_contrast", bl, "WEBER_MIN", 0.225, ">=",
     "text stands out in the render (Weber contrast ≥ 0.225)"),
    ("breaker_label", "card_saturated", bl, "SATURATED_MAX", 0.30, "<=", "card not blown out (≤ 30% saturated)"),
    # car_view: "whole car in frame; not three-quarter: |angle off the nearest face| ≤ 30∘; about two car lengths
    # (1.5–3 lengths); car fills ≥ 3% of frame; gray: 3–4 car lengths"; caption: sharp at target ≤ 6 px for these four
    ("car_view", "car_in_frame", cv, "CAR_IN_FRAME_MIN", 1.0, ">=", "whole car in frame (project: every sample)"),
    ("car_view", "face_angle", cv, "FACE_ANGLE_MAX_DEG", 30.0, "<=", "|angle off the nearest face| ≤ 30∘"),
    ("car_view", "distance_min_lengths", cv, "LENGTHS_MIN", 1.5, ">=", "about two car lengths (1.5–3 lengths)"),
    ("car_view", "distance_lengths", cv, "LENGTHS_MAX", 3.0, "<=", "about two car lengths (1.5–3 lengths)"),
    ("car_view", "car_fill", cv, "CAR_FILL_MIN", 0.03, ">=", "car fills ≥ 3% of frame (project: clipped bbox)"),
    ("car_view", "sharp_at_target", cv, "BLUR_MAX_PX", 6.0, "<=", "caption: sharp at target (≤ 6 px for these four)"),
    # damage_view: "damage in frame; damage unoccluded; square onto the panel (view angle ≤ 45∘); an arm away
    # (0.3–3.0 m); adjacent panel context (≥ 10% of a neighbouring panel in frame); resolved: ≥ 3 px per cm at the
    # damage; damage visible (≥ 60 contrasting px in frame); gray: distance 1.5–3 m"
    ("damage_view", "damage_in_frame", dv, "IN_FRAME_MIN", 1.0, ">=", "damage in frame (project: the whole ellipse)"),
    ("damage_view", "damage_unoccluded", dv, "UNOCCLUDED_MIN", 0.9, ">=", "damage unoccluded (no number: project 90%)"),
    ("damage_view", "view_angle", dv, "VIEW_ANGLE_MAX", 45.0, "<=", "square onto the panel (view angle ≤ 45∘)"),
    ("damage_view", "distance_min", dv, "DISTANCE_MIN_M", 0.3, ">=", "an arm away (0.3–3.0 m)"),
    ("damage_view", "distance", dv, "DISTANCE_MAX_M", 1.5, "<=", "an arm away (0.3–3.0 m), gray 1.5–3 m"),
    ("damage_view", "neighbour_panel", dv, "NEIGHBOUR_PANEL_MIN", 0.10, ">=",
     "adjacent panel context (≥ 10% of a neighbouring panel in frame)"),
    ("damage_view", "px_per_cm", dv, "PX_PER_CM_MIN", 3.0, ">=", "resolved: ≥ 3 px per cm at the damage"),
    ("damage_view", "damage_contrast_px", dv, "CONTRAST_PX_MIN", 60, ">=", "damage visible (≥ 60 contrasting px)"),
    ("damage_view", "sharp_at_target", dv, "BLUR_MAX_PX", 6.0, "<=", "caption: sharp at target (≤ 6 px)"),
    # car_plate (acceptability not scored; the terms select documentation frames): "plate in frame; plate
    # unoccluded; legible: ≥ 12 px per character; straight-on (view angle ≤ 45∘); fills most of the frame (bbox ≥
    # 2%); text stands out (Weber contrast ≥ 0.1); plate not blown out (≤ 30% saturated)"
    ("car_plate", "plate_in_frame", cp, "PLATE_IN_FRAME_MIN", 1.0, ">=", "plate in frame (project: all of it)"),
    ("car_plate", "plate_unoccluded", cp, "UNOCCLUDED_MIN", 0.95, ">=", "plate unoccluded (project 95%)"),
    ("car_plate", "char_px", cp, "CHAR_PX_MIN", 12.0, ">=", "legible: ≥ 12 px per character"),
    ("car_plate", "view_angle", cp, "VIEW_ANGLE_MAX", 45.0, "<=", "straight-on (view angle ≤ 45∘)"),
    ("car_plate", "plate_bbox", cp, "BBOX_MIN", 0.02, ">=", "fills most of the frame (bbox ≥ 2%)"),
    ("car_plate", "plate_contrast", cp, "WEBER_MIN", 0.1, ">=", "text stands out (Weber contrast ≥ 0.1)"),
    ("car_plate", "plate_saturated", cp, "SATURATED_MAX", 0.30, "<=", "plate not blown out (≤ 30% saturated)"),
    ("car_plate", "sharp_at_target", cp, "BLUR_MAX_PX", 6.0, "<=", "caption: sharp at target (≤ 6 px)"),
    # ro_board: "board fully in frame; board unoccluded; legible: ≥ 9 px per text row; square-on (view angle ≤ 40∘);
    # vehicle in the same frame (≥ 50% of the car in frame); board not blown out (≤ 30% saturated); text stands out
    # (Weber contrast ≥ 0.3)"
    ("ro_board", "board_in_frame", rb, "BOARD_IN_FRAME_MIN", 1.0, ">=", "board fully in frame"),
    ("ro_board", "board_unoccluded", rb, "UNOCCLUDED_MIN", 0.95, ">=", "board unoccluded (no number: project 95%)"),
    ("ro_board", "text_row_px", rb, "ROW_PX_MIN", 9.0, ">=", "legible: ≥ 9 px per text row"),
    ("ro_board", "view_angle", rb, "VIEW_ANGLE_MAX", 40.0, "<=", "square-on (view angle ≤ 40∘)"),
    ("ro_board", "car_in_frame", rb, "CAR_IN_FRAME_MIN", 0.50, ">=", "vehicle in the same frame (≥ 50% of the car)"),
    ("ro_board", "board_saturated", rb, "SATURATED_MAX", 0.30, "<=", "board not blown out (≤ 30% saturated)"),
    ("ro_board", "board_contrast", rb, "WEBER_MIN", 0.3, ">=", "text stands out (Weber contrast ≥ 0.3)"),
    ("ro_board", "sharp_at_target", rb, "BLUR_MAX_PX", 6.0, "<=", "caption: sharp at target (≤ 6 px)"),
    # egopath (EgoPathBench §3 "filtered by frustum projection, observation distance, projected size, and visible
    # surface evidence" gives no numbers for the main filters; App. A: "The strict visibility subset requires a
    # target bounding-box short side of at least 64 pixels and at least 50% visible surface")
    ("egopath", "strict_bbox_short", epv, "STRICT_BBOX_SHORT_PX", 64.0, ">=",
     "App. A: target bounding-box short side of at least 64 pixels"),
    ("egopath", "strict_visible_surface", epv, "STRICT_VISIBLE_SURFACE", 0.5, ">=",
     "App. A: at least 50% visible surface"),
    ("egopath", "bbox_short", epv, "BBOX_SHORT_MIN_PX", 24.0, ">=", "projected size (no number: project 24 px at 640)"),
    ("egopath", "visible_surface", epv, "VISIBLE_SURFACE_MIN", 0.15, ">=",
     "visible surface evidence (no number: project 15%)"),
    ("egopath", "camera_clearance", epv, "CAMERA_CLEARANCE_MIN_M", 0.35, ">=",
     "remove views whose immediate camera neighborhood is obstructed (no number: project 0.35 m)"),
    ("egopath", "near_view", epv, "NEAR_VIEW_MIN_M", 0.8, ">=", "(no number: project 0.8 m free in front)"),
]

IDS = [f"{env}/{name}" for env, name, *_ in TABLE]


def _eps(value: float) -> float:
    return max(abs(value) * 1e-3, 1e-4)


# ---------------------------------------------------------------- 1. constants = paper

@pytest.mark.parametrize("env, name, mod, const, paper, op, quote", TABLE, ids=IDS)
def test_constant_is_the_paper_value(env, name, mod, const, paper, op, quote):
    assert getattr(mod, const) == paper, f"{env} {name}: {quote}"


def test_gray_bands_and_ranges_are_the_paper_values():
    # slope_gauge "gray: |yaw| 15–45∘"
    assert sg.YAW_GRAY == (15.0, 45.0)
    # horizon_peak "horizon in frame, in the middle 80% of the image"
    assert hp.HORIZON_BAND == (0.10, 0.90)
    # horizon_peak "level (roll ≤ 10∘)" (ground truth `level`, not a scorer term)
    assert hp.LEVEL_MAX_DEG == 10.0
    # car_view "gray: 3–4 car lengths"; damage_view "gray: distance 1.5–3 m"
    assert cv.LENGTHS_GRAY == (3.0, 4.0) and dv.DISTANCE_GRAY == (1.5, 3.0)
    # damage_view severity (Table 3 question): minor < 100 cm², moderate 100–500 cm², severe > 500 cm²
    assert (dv.MINOR_BELOW_CM2, dv.SEVERE_ABOVE_CM2) == (100.0, 500.0)
    # egopath observation distance (no number: project 1.5-8 m from the footprint)
    assert epv.TARGET_DISTANCE_M == (1.5, 8.0) and epv.MIN_TARGET_START_M == 1.5
    # EgoPathBench App. A / Table S8: "the formal 0.30 m embodied radius", "0.05 m occupancy grid",
    # "0.10 m goal ring", "sample the swept corridor at 0.05 m intervals"
    g = GeometryParams()
    assert (g.body_radius_m, g.grid_m, g.goal_ring_m, g.corridor_step_m) == (0.30, 0.05, 0.10, 0.05)


# ---------------------------------------------------------------- 2. term() at the edges

@pytest.mark.parametrize("env, name, mod, const, paper, op, quote", TABLE, ids=IDS)
def test_term_just_inside_and_just_outside(env, name, mod, const, paper, op, quote):
    thr, e = getattr(mod, const), _eps(paper)
    inside, outside = {"<=": (paper - e, paper + e), "<": (paper - e, paper + e),
                       ">=": (paper + e, paper - e), ">": (paper + e, paper - e)}[op]
    assert term(name, "scene", inside, op, thr).passed
    assert not term(name, "scene", outside, op, thr).passed
    assert term(name, "scene", paper, op, thr).passed == (op in ("<=", ">="))


@pytest.mark.parametrize("band", [(15.0, 45.0), (5.0, 180.0), (0.1, 0.2)])
def test_gray_band_is_inclusive_at_both_ends(band):
    lo, hi = band
    thr = lo  # a '<=' term failing above lo, gray up to hi
    for v in (lo + 1e-6, (lo + hi) / 2, hi):
        t = term("x", "scene", v, "<=", thr, gray_band=band)
        assert not t.passed and t.gray, v
    t = term("x", "scene", hi + 1e-6, "<=", thr, gray_band=band)
    assert not t.passed and not t.gray
    t = term("x", "scene", lo, "<=", thr, gray_band=band)
    assert t.passed and not t.gray
    # a '>=' term failing below hi, gray down to lo
    for v in (lo, (lo + hi) / 2, hi - 1e-6):
        t = term("y", "scene", v, ">=", hi, gray_band=band)
        assert not t.passed and t.gray, v
    assert not term("y", "scene", lo - 1e-6, ">=", hi, gray_band=band).gray


def test_a_frame_failing_only_on_the_band_edge_is_unscored():
    ok = term("a", "scene", 1.0, ">=", 0.5)
    edge = term("gauge_yaw", "scene", 45.0, "<=", 15.0, "deg", gray_band=(15.0, 45.0))
    past = term("gauge_yaw", "scene", 45.001, "<=", 15.0, "deg", gray_band=(15.0, 45.0))
    assert verdict_of([ok, edge]) == Verdict.UNSCORED
    assert verdict_of([ok, past]) == Verdict.REJECT


# ---------------------------------------------------------------- 3. the scorers themselves

def pose_at(eye, target, long_side=640):
    """A pinhole (no defocus) pose with a fast shutter and no shake: blur 0 at the target."""
    return pose_for_phone(PHONE, "main", 1.0, "landscape", long_side, look_at(eye, target), "pinhole", None, 1 / 250)


def eye_at(target, normal, tangent, dist, angle_deg=0.0):
    """A camera `dist` from `target` at `angle_deg` from `normal` (towards `tangent`)."""
    n = np.asarray(normal, float) / np.linalg.norm(normal)
    t = np.asarray(tangent, float) - np.dot(tangent, n) * n
    t /= np.linalg.norm(t)
    a = math.radians(angle_deg)
    return np.asarray(target, float) + dist * (math.cos(a) * n + math.sin(a) * t)


def by_name(terms):
    return {t.name: t for t in terms}


def names_in_table(env):
    return {name for e, name, *_ in TABLE if e == env}


def check_edges(make_terms, name, inside, outside):
    """The named term passes at `inside` and fails (not gray) at `outside`."""
    t_in, t_out = by_name(make_terms(inside))[name], by_name(make_terms(outside))[name]
    assert t_in.passed, (name, inside, t_in)
    assert not t_out.passed and not t_out.gray, (name, outside, t_out)


def FRACTIONS(thr: float) -> tuple[float, float]:
    """(inside, outside) of a '>=' fraction threshold: exactly on it passes, just under fails."""
    return thr, thr - 1e-3


# -- rail_attachment: scene_terms(pose, target, in_frame, unocc, bolt_spot, bbox)

def test_rail_attachment_terms_at_their_thresholds():
    target = np.array([0.0, 0.0, 0.0])
    base = dict(in_frame=1.0, unocc=1.0, bolt_spot=1.0, bbox=0.5)

    def at(dist=1.0, **kw):
        return ra.scene_terms(pose_at([0.0, -dist, 0.0], target), target, **(base | kw))

    assert {t.name for t in at()} == names_in_table("rail_attachment")
    assert verdict_of(at()) == Verdict.ACCEPT
    check_edges(lambda d: at(dist=d), "not_wide_shot", 1.799, 1.801)
    assert by_name(at(dist=1.799))["not_wide_shot"].value == pytest.approx(1.799)
    for key, name, thr in (("in_frame", "attachment_in_frame", 0.9), ("unocc", "attachment_unoccluded", 0.6),
                           ("bolt_spot", "bolt_location_unoccluded", 0.5), ("bbox", "fills_frame", 0.02)):
        check_edges(lambda v, key=key: at(**{key: v}), name, *FRACTIONS(thr))
    assert by_name(at())["sharp_at_target"].value == 0.0


def test_rail_attachment_bbox_fraction_at_two_percent():
    """A 0.2 x 0.15 m square-on plate whose bbox is just over / under 2% of a 640 x 480 frame."""
    pose = pose_at([0.0, -1.0, 0.0], [0.0, 0.0, 0.0])
    f = pose.K_array()[0, 0]
    # bbox = (f*0.2/d)(f*0.15/d) / (640*480) = 0.02  ->  d = f*sqrt(0.03 / (0.02*640*480))
    d2 = f * math.sqrt(0.2 * 0.15 / (0.02 * 640 * 480))
    plate = np.array([[x, 0.0, z] for x in (-0.1, 0.1) for z in (-0.075, 0.075)])
    for d, ok in ((d2 * 0.999, True), (d2 * 1.001, False)):
        p = pose_at([0.0, -d, 0.0], [0.0, 0.0, 0.0])
        frac = ra.bbox_fraction(plate, p)
        assert frac == pytest.approx(0.02, rel=3e-3)
        assert by_name(ra.scene_terms(p, [0.0, 0.0, 0.0], 1.0, 1.0, 1.0, frac))["fills_frame"].passed == ok


# -- wire_adequacy: scene_terms(pose, target, in_frame, low_visible, unocc) + frame_terms(image, index, id)

def test_wire_adequacy_scene_terms_at_their_thresholds():
    target = np.array([1.0, 2.0, 3.0])

    def at(dist=1.0, in_frame=1.0, low=1.0, unocc=1.0):
        return wa.scene_terms(pose_at(target + [0.0, -dist, 0.3 * dist], target), target, in_frame, low, unocc)

    check_edges(lambda d: at(dist=d / math.hypot(1.0, 0.3)), "low_point_distance", 2.499, 2.501)
    check_edges(lambda v: at(in_frame=v), "wire_in_frame", *FRACTIONS(0.5))
    check_edges(lambda v: at(low=v), "low_point_visible", *FRACTIONS(0.5))
    check_edges(lambda v: at(unocc=v), "wire_unoccluded", *FRACTIONS(0.3))
    names = {t.name for t in at()} | {t.name for t in wa.frame_terms(*wire_frame(200, 40))}
    assert names == names_in_table("wire_adequacy")


def wire_frame(n_px: int, step: int, inside: int = 100):
    """640 x 480 frame: a wire of `n_px` pixels (a block 10 px tall) `step` codes lighter than its grey roof."""
    idx = np.zeros((480, 640), np.int32)
    rows, rem = divmod(n_px, 10)
    idx[200:210, 100:100 + rows] = 7
    idx[200:200 + rem, 100 + rows] = 7
    img = np.full((480, 640, 3), inside, np.uint8)
    img[idx == 7] = inside + step
    return img, idx, 7


def test_wire_pixels_at_five_hundredths_of_a_percent():
    # 0.05% of 640 x 480 = 153.6 px: 154 pass, 153 fail
    for n, ok in ((154, True), (153, False)):
        t = by_name(wa.frame_terms(*wire_frame(n, 60)))["wire_pixels"]
        assert t.value == pytest.approx(n / (640 * 480), abs=1e-6) and t.passed == ok


def test_wire_edge_contrast_at_three_hundredths():
    # a uniform grey step of k codes has edge contrast k/255: 8 codes = 0.0314 pass, 7 = 0.0275 fail
    for k, ok in ((8, True), (7, False)):
        t = by_name(wa.frame_terms(*wire_frame(2000, k)))["edge_contrast"]
        assert t.value == pytest.approx(k / 255, abs=1e-6) and t.passed == ok


# -- tape_gap: scene_terms on exact geometry (tests/test_tape_gap_math.py's flat-roof setup)

N = np.array([0.0, 0.0, 1.0])
F0 = np.array([0.0, -1.0, 0.0])
H = 4 * INCH_M
EDGE = (np.array([-0.5, 0.01, H]), np.array([0.5, 0.01, H]))


def make_tape(lean_in=0.0, lean_across=0.0, length=0.3) -> TapeSpec:
    up, facing = leaned_frame(N, F0, lean_in, lean_across)
    return TapeSpec(hook_point=[0.0, 0.0, 0.0], roof_normal=list(N), lean_in_plane_deg=lean_in,
                    lean_across_deg=lean_across, up=list(up), facing=list(facing), blade_length_m=length,
                    case_placement="hand", case_center=list(up * (length + 0.04)), case_up=list(up),
                    case_forward=list(facing))


def tape_terms(eye, tape=None, vis=(1.0, 1.0)):
    """A camera at the edge's height sees the edge cross the blade at [0, 0, H] (no parallax)."""
    return tg.scene_terms(tape or make_tape(), *EDGE, pose_at(eye, [0.0, 0.0, H]), vis)


def test_tape_gap_crossing_distance_at_065_m():
    # every scene term is in the table, plus the crossing_on_blade flag (no threshold); crossing_pixels is frame side
    assert {t.name for t in tape_terms([0.0, -0.4, H])} == names_in_table("tape_gap") - {"crossing_pixels"} | {
        "crossing_on_blade"}
    check_edges(lambda d: tape_terms([0.0, -d, H]), "crossing_distance", 0.649, 0.651)
    assert by_name(tape_terms([0.0, -0.649, H]))["crossing_distance"].value == pytest.approx(0.649, abs=1e-6)
    assert verdict_of(tape_terms([0.0, -0.649, H])) == Verdict.ACCEPT
    assert verdict_of(tape_terms([0.0, -0.651, H])) == Verdict.REJECT


def test_tape_gap_front_of_blade_below_75_deg():
    def at(angle):
        a = math.radians(angle)
        return tape_terms([0.3 * math.sin(a), -0.3 * math.cos(a), H])

    check_edges(at, "front_of_blade", 74.99, 75.01)
    assert by_name(at(74.99))["front_of_blade"].value == pytest.approx(74.99, abs=1e-4)
    assert not by_name(at(75.0 + 1e-7))["front_of_blade"].passed


def test_tape_gap_visibility_fractions():
    check_edges(lambda v: tape_terms([0.0, -0.4, H], vis=(v, 1.0)), "crossing_in_frame", *FRACTIONS(0.9))
    check_edges(lambda v: tape_terms([0.0, -0.4, H], vis=(1.0, v)), "crossing_unoccluded", *FRACTIONS(0.6))


def test_tape_gap_flush_at_5_deg_and_its_gray_band():
    eye = [0.0, -0.4, H]
    # a sideways (visible) lean: hard pass at 4.99 deg, hard fail at 5.01 deg
    check_edges(lambda a: tape_terms(eye, make_tape(lean_in=a)), "tape_flush", 4.99, 5.01)
    # a lean towards the camera that the image shows as ~0 deg: gray just over 5 deg and far over
    for a in (5.01, 12.0):
        t = by_name(tape_terms(eye, make_tape(lean_across=-a)))["tape_flush"]
        assert not t.passed and t.gray and t.value == pytest.approx(a, abs=1e-6)
    assert by_name(tape_terms(eye, make_tape(lean_across=-4.99)))["tape_flush"].passed


def test_tape_gap_crossing_on_blade_keeps_half_an_inch_from_both_ends():
    """The +-0.5 in crossing window must lie on the blade: readings 0.5 .. top - 0.5 (project)."""
    assert tg.CROSSING_HALF_IN == 0.5
    tape = make_tape(length=0.3)
    top = 0.3 / INCH_M
    for r, ok in ((0.5, True), (0.499, False), (top - 0.5, True), (top - 0.499, False), (float("nan"), False)):
        assert tg.crossing_on_blade(tape, r) == ok, r
    # a 4-in edge on a blade 4.4 in long is 0.4 in from its end: off the blade, and the in-frame and
    # unoccluded terms are then 0 whatever the ray cast found
    terms = by_name(tape_terms([0.0, -0.4, H], make_tape(length=4.4 * INCH_M)))
    assert not terms["crossing_on_blade"].passed
    assert terms["crossing_in_frame"].value == 0.0 and terms["crossing_unoccluded"].value == 0.0
    assert by_name(tape_terms([0.0, -0.4, H], make_tape(length=4.6 * INCH_M)))["crossing_on_blade"].passed


def test_tape_gap_crossing_pixels_at_25():
    tape, pose = make_tape(), pose_at([0.0, -0.4, H], [0.0, 0.0, H])
    box = tg.crossing_crop(tape, 4.0, pose)
    u0, v0, u1, v1 = box
    assert (u1 - u0 + 1) * (v1 - v0 + 1) > 30
    img = np.full((pose.height, pose.width, 3), 128, np.uint8)
    for n, ok in ((25, True), (24, False)):
        idx = np.zeros((pose.height, pose.width), np.int32)
        crop = np.zeros((v1 - v0 + 1, u1 - u0 + 1), np.int32)
        crop.reshape(-1)[:n] = 7
        idx[v0:v1 + 1, u0:u1 + 1] = crop
        idx[0, 0] = 7  # outside the crop: not counted
        terms, checks = tg.frame_terms(img, idx, 7, pose, tape, *EDGE)
        assert checks["crossing_mask_px"] == n and terms[0].passed == ok


# -- the label environments: view angle and px-per-unit from a camera placed by hand

def _square_on_scaling(fn, d0, target, normal, tangent, need):
    """Distance at which `fn(pose)` (px per unit, prop. to 1/d square-on) equals `need`."""
    p0 = fn(pose_at(eye_at(target, normal, tangent, d0), target))
    return d0 * p0 / need


def _check_px_term(terms_of, fn, name, need, target, normal, tangent):
    d = _square_on_scaling(fn, 0.5, target, normal, tangent, need)
    near = pose_at(eye_at(target, normal, tangent, d * 0.999), target)
    far = pose_at(eye_at(target, normal, tangent, d * 1.001), target)
    assert fn(near) == pytest.approx(need, rel=2e-3) and fn(far) == pytest.approx(need, rel=2e-3)
    assert by_name(terms_of(near))[name].passed
    t = by_name(terms_of(far))[name]
    assert not t.passed and not t.gray


def _check_angle_term(terms_of, name, limit, target, normal, tangent, dist):
    for a, ok in ((limit - 0.01, True), (limit + 0.01, False)):
        t = by_name(terms_of(pose_at(eye_at(target, normal, tangent, dist, a), target)))[name]
        assert t.value == pytest.approx(a, abs=1e-4) and t.passed == ok


@pytest.fixture(scope="module")
def gauge_spec():
    return sample_gauge(np.random.default_rng(3), "s0", 3)


def test_slope_gauge_terms_at_their_thresholds(gauge_spec):
    spec = gauge_spec
    T = display_matrix(spec.roof, spec.gauge)
    X, n, up = T[:3, 3], T[:3, 2], T[:3, 1]

    def terms_of(pose, spec=spec, in_frame=1.0, unocc=1.0, glass=0.5, edge=1000.0):
        return sg.scene_terms_of(spec, pose, in_frame, unocc, glass, edge)

    square = pose_at(eye_at(X, n, up, 0.3), X)
    names = {t.name for t in terms_of(square)} | {t.name for t in sg.frame_terms_of(*label_image(100, 200, 100)[:2])}
    assert names == names_in_table("slope_gauge") | {"gauge_on_module"}
    _check_angle_term(terms_of, "display_view_angle", 65.0, X, n, up, 0.3)
    _check_px_term(terms_of, lambda p: sg.digit_height_px(spec, p), "digit_height", 14.0, X, n, up)
    check_edges(lambda v: terms_of(square, in_frame=v), "display_in_frame", *FRACTIONS(1.0))
    check_edges(lambda v: terms_of(square, unocc=v), "display_unoccluded", *FRACTIONS(0.9))
    check_edges(lambda v: terms_of(square, glass=v), "module_glass_in_frame", *FRACTIONS(0.02))
    check_edges(lambda v: terms_of(square, edge=v), "module_edge_visible", 300.0, 299.9)


@pytest.mark.parametrize("yaw, passed, gray", [
    (15.0, True, False), (-15.0, True, False),      # "|yaw| ≤ 15∘"
    (15.001, False, True), (30.0, False, True),     # "gray: |yaw| 15–45∘"
    (45.0, False, True), (-45.0, False, True),      # the band's upper end is gray (inclusive)
    (45.001, False, False), (60.0, False, False),   # past the band: a hard fail
])
def test_slope_gauge_yaw_and_its_gray_band(gauge_spec, yaw, passed, gray):
    spec = gauge_spec.model_copy(update={"gauge": gauge_spec.gauge.model_copy(update={"yaw_deg": yaw})})
    T = display_matrix(spec.roof, spec.gauge)
    pose = pose_at(eye_at(T[:3, 3], T[:3, 2], T[:3, 1], 0.3), T[:3, 3])
    t = by_name(sg.scene_terms_of(spec, pose, 1.0, 1.0, 0.5, 1000.0))["gauge_yaw"]
    assert (t.passed, t.gray, t.value) == (passed, gray, abs(yaw))


def test_equipment_label_terms_at_their_thresholds():
    spec = sample_label(np.random.default_rng(4), "s0", 4)
    T = label_frame(spec.label)
    X, n, up = T[:3, 3], T[:3, 2], T[:3, 1]

    def terms_of(pose, in_frame=1.0, unocc=1.0, context=0.5):
        return el.scene_terms_of(spec, pose, in_frame, unocc, context)

    square = pose_at(eye_at(X, n, up, 0.3), X)
    names = {t.name for t in terms_of(square)} | {t.name for t in el.frame_terms_of(*label_image(100, 200, 100)[:2])}
    assert names == names_in_table("equipment_label")
    _check_angle_term(terms_of, "label_view_angle", 60.0, X, n, up, 0.3)
    _check_px_term(terms_of, lambda p: el.resolution_px(spec, p)[0], "text_row_px", 10.0, X, n, up)
    _check_px_term(terms_of, lambda p: el.resolution_px(spec, p)[1], "barcode_module_px", 1.0, X, n, T[:3, 0])
    check_edges(lambda v: terms_of(square, in_frame=v), "label_in_frame", *FRACTIONS(1.0))
    check_edges(lambda v: terms_of(square, unocc=v), "label_unoccluded", *FRACTIONS(0.95))
    check_edges(lambda v: terms_of(square, context=v), "equipment_in_view", *FRACTIONS(0.05))


def test_breaker_label_terms_at_their_thresholds():
    spec = sample_breaker(np.random.default_rng(5), "s0", 5)
    M = card_frame(spec)
    X, n, up = M[:3, 3], M[:3, 2], M[:3, 1]

    def terms_of(pose, vis=(1.0, 1.0)):
        return bl.scene_terms(spec, pose, vis)

    square = pose_at(eye_at(X, n, up, 0.5), X)
    img, idx, _ = label_image(100, 200, 100)
    names = {t.name for t in terms_of(square)} | {t.name for t in bl.frame_terms(img, idx.astype(np.int32), 1)[0]}
    assert names == names_in_table("breaker_label")
    _check_angle_term(terms_of, "view_angle", 45.0, X, n, up, 0.5)
    _check_px_term(terms_of, lambda p: bl.text_row_px(spec, p), "text_row_px", 11.0, X, n, up)
    check_edges(lambda v: terms_of(square, vis=(v, 1.0)), "card_in_frame", *FRACTIONS(0.98))
    check_edges(lambda v: terms_of(square, vis=(1.0, v)), "card_unoccluded", *FRACTIONS(0.95))
    # card bbox: proportional to 1/d^2 square-on
    d0 = 0.5
    b0 = bl.card_bbox_fraction(spec, square)
    d = d0 * math.sqrt(b0 / 0.04)
    for k, ok in ((0.999, True), (1.001, False)):
        p = pose_at(eye_at(X, n, up, d * k), X)
        assert bl.card_bbox_fraction(spec, p) == pytest.approx(0.04, rel=3e-3)
        assert by_name(terms_of(p))["card_bbox"].passed == ok


# -- frame-side label terms: images with a chosen saturated share, contrast and paper level

def _lin(code: int) -> float:
    """sRGB decode of an 8-bit grey code (IEC 61966-2-1), by hand."""
    x = code / 255.0
    return x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4


def label_image(n_sat: int, paper: int, ink: int, n: int = 1000):
    """A 1000-px label mask: half paper, half ink, the first `n_sat` pixels clipped (255)."""
    img = np.zeros((50, 50, 3), np.uint8)
    mask = np.zeros((50, 50), bool)
    mask.reshape(-1)[:n] = True
    flat = img.reshape(-1, 3)
    flat[:n // 2] = paper
    flat[n // 2:n] = ink
    flat[:n_sat, 0] = 255
    return img, mask, n_sat / n


def _ink_codes(paper: int, threshold: float) -> tuple[int, int]:
    """(ink code just inside, just outside) a Weber-contrast threshold on `paper`."""
    lp = _lin(paper)
    codes = [c for c in range(paper) if (lp - _lin(c)) / lp >= threshold]
    return max(codes), max(codes) + 1


@pytest.mark.parametrize("frame_terms, sat_name, weber_name, weber_min", [
    (sg.frame_terms_of, "display_saturated", "display_contrast", 0.2),
    (el.frame_terms_of, "label_saturated", "label_contrast", 0.3),
    (lambda img, mask: bl.frame_terms(img, mask.astype(np.int32), 1)[0], "card_saturated", "text_contrast", 0.225),
])
def test_label_frame_terms_at_their_thresholds(frame_terms, sat_name, weber_name, weber_min):
    # saturated share: 300 of 1000 px is exactly 30% (passes), 301 fails
    for n_sat, ok in ((300, True), (301, False)):
        img, mask, frac = label_image(n_sat, 200, 60)
        t = by_name(frame_terms(img, mask))[sat_name]
        assert t.value == pytest.approx(frac) and t.passed == ok
    # Weber contrast (paper - ink) / paper in linear luminance, on neighbouring ink codes
    ink_in, ink_out = _ink_codes(200, weber_min)
    t_in = by_name(frame_terms(*label_image(0, 200, ink_in)[:2]))[weber_name]
    t_out = by_name(frame_terms(*label_image(0, 200, ink_out)[:2]))[weber_name]
    lp = _lin(200)
    assert t_in.value == pytest.approx((lp - _lin(ink_in)) / lp, abs=1e-5) and t_in.passed
    assert t_out.value == pytest.approx((lp - _lin(ink_out)) / lp, abs=1e-5) and not t_out.passed
    assert t_in.value - weber_min < 0.02 and weber_min - t_out.value < 0.02


def test_equipment_label_paper_luminance_at_005():
    codes = [c for c in range(256) if _lin(c) >= 0.05]
    lit, dark = min(codes), min(codes) - 1         # 0.0513 and 0.0497
    for paper, ok in ((lit, True), (dark, False)):
        t = by_name(el.frame_terms_of(*label_image(0, paper, 5)[:2]))["paper_luminance"]
        assert t.value == pytest.approx(_lin(paper), abs=1e-6) and t.passed == ok


# -- horizon_peak: scene_terms_of with plain numbers, horizon_fraction on a pitched camera

def test_horizon_peak_terms_at_their_thresholds():
    base = dict(horizon=1.0, own_block=0.0, skyline=1.0, bottom_own=0.5, height_m=0.5, blur_px=0.0)

    def at(**kw):
        return hp.scene_terms_of(**(base | kw))

    assert {t.name for t in at()} == names_in_table("horizon_peak") | {"horizon_in_frame"}
    assert verdict_of(at()) == Verdict.ACCEPT
    check_edges(lambda v: at(own_block=v), "own_roof_horizon", 0.10, 0.101)
    check_edges(lambda v: at(skyline=v), "skyline_in_frame", *FRACTIONS(0.65))
    check_edges(lambda v: at(bottom_own=v), "own_roof_bottom", *FRACTIONS(0.04))
    check_edges(lambda v: at(height_m=v), "camera_above_ridge", 0.0, -0.001)
    check_edges(lambda v: at(blur_px=v), "sharp_at_target", 5.0, 5.001)
    check_edges(lambda v: at(horizon=v), "horizon_in_frame", 1.0, 32 / 33)


@pytest.mark.parametrize("row_fraction, inside", [
    (0.5, True), (0.1005, True), (0.0995, False), (0.8995, True), (0.9005, False),
])
def test_horizon_in_the_middle_80_percent(row_fraction, inside):
    """A level camera pitched so the horizon lies on one row: rows 10%-90% of the height."""
    pose = pose_at([0.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    f, cy, h = pose.K_array()[1, 1], pose.K_array()[1, 2], pose.height
    # the horizon of a camera pitched up by p lies at row cy + f tan(p)
    pitch = math.atan((row_fraction * h - cy) / f)
    pitched = pose_at([0.0, 0.0, 0.0], [0.0, math.cos(pitch), math.sin(pitch)])
    assert hp.horizon_rows(pitched, [0.0, pose.width - 1.0]) == pytest.approx([row_fraction * h] * 2, abs=1e-6)
    assert hp.horizon_fraction(pitched) == (1.0 if inside else 0.0)


# -- car_view, damage_view: the scorer cores' term names are the table's (the adapters come with the builder)

def test_vehicle_term_names_match_the_table():
    from tests.test_pins_vehicle_terms import car_terms, damage_terms

    assert {t.name for t in car_terms()} == names_in_table("car_view")
    assert {t.name for t in damage_terms()} | {dv.contrast_term(60).name} == names_in_table("damage_view")
