"""Scorer core of `ro_board`: the repair-order board readable with the car in the frame.

Table 1 terms, constants here (the Protocol adapters come with the builder, issue 12):
board fully in frame (100%), board unoccluded (no number: project 95%), legible: >= 9 px
per text row, square-on (view angle <= 40 deg), vehicle in the same frame (>= 50% of the
car's samples in frame), board not blown out (<= 30% saturated), text stands out (Weber
contrast >= 0.3), sharp at target (<= 6 px).

Ground truth: `ro` = the six RO digits (the printed label "RO#" is not part of it, as
"VIN:" is not part of the VIN), `vin` = the 17 characters, `body_style` = the subject's.
"""
from __future__ import annotations

from blender_envs.vehicle.ids import BoardIds, vin_is_valid

BOARD_IN_FRAME_MIN = 1.0
UNOCCLUDED_MIN = 0.95
ROW_PX_MIN = 9.0
VIEW_ANGLE_MAX = 40.0
CAR_IN_FRAME_MIN = 0.50
SATURATED_MAX = 0.30
WEBER_MIN = 0.3
BLUR_MAX_PX = 6.0


def board_ground_truth(ids: BoardIds, body_style: str) -> dict:
    """Answer keys `ro`, `vin`, `body_style`; refuses a VIN whose check digit is wrong."""
    if not vin_is_valid(ids.vin):
        raise ValueError(f"invalid VIN on the board: {ids.vin!r}")
    return {"ro": ids.ro, "vin": ids.vin, "body_style": body_style, "date": ids.date}
