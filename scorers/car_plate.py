"""Scorer core of `car_plate`: the subject's mounted plate, close up and legible.

Acceptability is not scored (Table 1 "–", §4: raters disagreed on small but legible
plates); the terms still select the documentation frames. Table 1 terms, constants here
(the Protocol adapters come with the builder, issue 12): plate in frame (project: all of
it), plate unoccluded (project: 95%), legible: >= 12 px per character (the serial glyph
height, plates.CHAR_HEIGHT_M), straight-on (view angle <= 45 deg), fills most of the
frame (bbox >= 2%), text stands out (Weber contrast >= 0.1), plate not blown out
(<= 30% saturated), sharp at target (<= 6 px).

Ground truth (App. D normalisation, decided in docs/envs/vehicles.md): `plate` = the
serial's letters and digits, upper case; `state` = the state's full name, which the plate
prints. The grader (scorers.realitybench_grading.score_text) normalises both sides, so
"california" matches "California"; the USPS code "CA" does not (no alias table).
"""
from __future__ import annotations

from blender_envs.vehicle.plates import Plate
from scorers.realitybench_grading import normalize_text

PLATE_IN_FRAME_MIN = 1.0
UNOCCLUDED_MIN = 0.95
CHAR_PX_MIN = 12.0
VIEW_ANGLE_MAX = 45.0
BBOX_MIN = 0.02
WEBER_MIN = 0.1
SATURATED_MAX = 0.30
BLUR_MAX_PX = 6.0


def plate_ground_truth(plate: Plate) -> dict:
    """Answer keys `plate` and `state`, with the printed serial and the state code recorded."""
    return {"plate": normalize_text(plate.text), "state": plate.style.state,
            "plate_text": plate.text, "plate_format": plate.format, "state_code": plate.state_code}
