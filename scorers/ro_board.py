"""Scorer of `ro_board`: the repair-order board readable with the car in the frame.

Table 1 terms (RealityBench), constants below:
scene side  board_in_frame     every sample of a 9 x 7 grid over the printed face (1%
                               inside its edges) in frame ("board fully in frame")
            board_unoccluded   >= 95% (no number in the paper: project) of a 9 x 5 grid over
                               the written rows visible, the first hit being the board: on
                               the farm's exported mesh (`score_scene`); the pure estimate
                               (`local_raycaster`) casts against the board, its backing, the
                               hand and the subject's panels, which are all that can stand
                               in the way (every pose is inside the lot's clear disc)
            text_row_px        the written text row's height in px at the board centre along
                               its up direction, >= 9 ("legible"): printed, the capitals
                               (BOARD_ROW_M); handwritten, the smallest drawn character's
                               ink height (`row_height_m`)
            view_angle         ray to the camera vs the board normal, <= 40 deg ("square-on")
            car_in_frame       >= 50% of the subject's hull points (car_view's) in frame
            sharp_at_target    defocus + motion blur at the board centre <= 6 px
frame side  board_saturated    <= 30% of the board's pixels clipped
            board_contrast     Weber contrast inside the board's mask >= 0.3

Ground truth: `ro` = the six RO digits (the printed label "RO#" is not part of it, as
"VIN:" is not part of the VIN), `vin` = the 17 characters, `body_style` = the subject's.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from blender_envs.vehicle.body import panels, to_world
from blender_envs.vehicle.ids import BoardIds, vin_is_valid
from blender_envs.vehicle.plate_texture import board_texture
from blender_envs.vehicle.ro_board import (BOARD_BACK_PASS, BOARD_OBJECT, BOARD_PASS, BOARD_THICK_M, HAND_PASS,
                                           RoBoardSpec, board_corners, board_frame, board_grid, hand_boxes)
from geometry.camera import CameraPose, blur_at_target_px, project, view_angle_deg
from geometry.mesh_parts import box_triangles
from geometry.raycast import Raycaster, SceneMesh, frame_and_occlusion_fractions, in_frame_mask, px_per_unit
from scorers.car_view import in_frame_and_fill
from scorers.image_stats import saturated_fraction, weber_contrast
from scorers.terms import TermResult, term

BOARD_IN_FRAME_MIN = 1.0
UNOCCLUDED_MIN = 0.95
ROW_PX_MIN = 9.0
VIEW_ANGLE_MAX = 40.0
CAR_IN_FRAME_MIN = 0.50
SATURATED_MAX = 0.30
WEBER_MIN = 0.3
BLUR_MAX_PX = 6.0
SUBJECT_LOCAL_ID = 2


def board_ground_truth(ids: BoardIds, body_style: str) -> dict:
    """Answer keys `ro`, `vin`, `body_style`; refuses a VIN whose check digit is wrong."""
    if not vin_is_valid(ids.vin):
        raise ValueError(f"invalid VIN on the board: {ids.vin!r}")
    return {"ro": ids.ro, "vin": ids.vin, "body_style": body_style, "date": ids.date}


@lru_cache(maxsize=256)
def _layout(ro: str, vin: str, date: str, w: float, h: float, row: float, style: str, hand) -> dict:
    hand = None if hand is None else [[list(c) for c in r] for r in hand]
    return board_texture(ro, vin, date, (w, h), row, style=style, hand=hand)[1]


def board_layout(board) -> dict:
    """The board texture's layout (row boxes, the text-row height) for this board."""
    hand = None if board.hand is None else tuple(tuple(tuple(c) for c in r) for r in board.hand)
    return _layout(board.ids.ro, board.ids.vin, board.ids.date, *board.size_m, board.row_m, board.style, hand)


def row_height_m(board) -> float:
    """The text row of Table 1's ">= 9 px per text row": printed, the capitals' height
    (`row_m`); handwritten, the smallest letter or digit as drawn (its ink height)."""
    return float(board_layout(board)["row_height_m"])


def text_box_m(board) -> list[float]:
    """(x0, y0, x1, y1) of the written rows on the face, metres from its top-left corner."""
    lay = board_layout(board)
    b = np.array(lay["row_boxes_m"])
    return [float(b[:, 0].min()), float(b[:, 1].min()), float(b[:, 2].max()), float(b[:, 3].max())]


def text_points(board) -> np.ndarray:
    return board_grid(board, text_box_m(board), nu=9, nv=5, inset=0.0)


def local_mesh(spec: RoBoardSpec) -> SceneMesh:
    """The board's face, its backing, the hand and the subject's panels, in world space,
    with the builder's pass indices (subject: one id for all its panels)."""
    b = spec.board
    T = board_frame(b)
    W, H = b.size_m
    face = np.array([[-W / 2, -H / 2, 0], [W / 2, -H / 2, 0], [W / 2, H / 2, 0], [-W / 2, H / 2, 0]], float)
    parts = [(BOARD_PASS, face @ T[:3, :3].T + T[:3, 3], np.array([[0, 1, 2], [0, 2, 3]]))]
    back = np.array([[-W / 2 - 0.002, -H / 2 - 0.002, -BOARD_THICK_M - 1e-4, W / 2 + 0.002, H / 2 + 0.002, -1e-4]])
    parts.append((BOARD_BACK_PASS, *box_triangles(back, T)))
    parts.append((HAND_PASS, *box_triangles(hand_boxes(b), T)))
    car = spec.lot.subject
    V, F = [], []
    for rects in panels(car.body).values():
        for r in rects:
            k = len(V)
            V += [r.point(su * r.half_u, sv * r.half_v) for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
            F += [[k, k + 1, k + 2], [k, k + 2, k + 3]]
    parts.append((SUBJECT_LOCAL_ID, to_world(car.placement, np.array(V)), np.array(F)))
    verts, tris, ids, off = [], [], [], 0
    for oid, v, f in parts:
        verts.append(v)
        tris.append(np.asarray(f) + off)
        ids.append(np.full(len(f), oid))
        off += len(v)
    names = {BOARD_PASS: "ro_board", BOARD_BACK_PASS: "ro_board_back", HAND_PASS: "ro_board_hand",
             SUBJECT_LOCAL_ID: "subject"}
    oids = sorted(names)
    return SceneMesh(vertices=np.concatenate(verts), triangles=np.concatenate(tris), tri_object_id=np.concatenate(ids),
                     object_ids=np.array(oids), object_names=np.array([names[i] for i in oids]))


def local_raycaster(spec: RoBoardSpec) -> Raycaster:
    return Raycaster(local_mesh(spec))


def text_row_px(board, pose: CameraPose) -> float:
    T = board_frame(board)
    return px_per_unit(pose.K_array(), pose.cam_to_world_array(), T[:3, 3], T[:3, 1], row_height_m(board))


def board_view_angle(board, pose: CameraPose) -> float:
    T = board_frame(board)
    return float(view_angle_deg(pose.center, T[:3, 3], T[:3, 2]))


def board_in_frame(board, pose: CameraPose) -> float:
    P = board_grid(board)
    return float(in_frame_mask(P, pose.K_array(), pose.cam_to_world_array(), pose.width, pose.height).mean())


def blur_at_board_px(board, pose: CameraPose) -> float | None:
    b = blur_at_target_px(pose, np.asarray(board.center, float))
    return b if math.isfinite(b) else None


def unoccluded_of(raycaster, board, board_id: int, pose: CameraPose) -> float:
    """Share of the written rows' samples visible (of those in frame; 0 when none is)."""
    return frame_and_occlusion_fractions(raycaster, text_points(board), board_id, pose.K_array(),
                                         pose.cam_to_world_array(), pose.width, pose.height)[1]


def scene_terms_of(spec: RoBoardSpec, pose: CameraPose, unoccluded: float) -> list[TermResult]:
    b, car = spec.board, spec.lot.subject
    row = text_row_px(b, pose)
    car_in, _ = in_frame_and_fill(pose, car.placement, car.body)
    return [
        term("board_in_frame", "scene", board_in_frame(b, pose), ">=", BOARD_IN_FRAME_MIN),
        term("board_unoccluded", "scene", float(unoccluded), ">=", UNOCCLUDED_MIN),
        term("text_row_px", "scene", row if math.isfinite(row) else None, ">=", ROW_PX_MIN, "px"),
        term("view_angle", "scene", board_view_angle(b, pose), "<=", VIEW_ANGLE_MAX, "deg"),
        term("car_in_frame", "scene", float(car_in), ">=", CAR_IN_FRAME_MIN),
        term("sharp_at_target", "scene", blur_at_board_px(b, pose), "<=", BLUR_MAX_PX, "px"),
    ]


def pure_scene_terms(spec: RoBoardSpec, view, raycaster: Raycaster | None = None) -> list[TermResult]:
    """The scene-side terms from the spec alone (no exported mesh)."""
    rc = raycaster if raycaster is not None else local_raycaster(spec)
    return scene_terms_of(spec, view.pose, unoccluded_of(rc, spec.board, BOARD_PASS, view.pose))


def score_scene(geo, view) -> list[TermResult]:
    spec = geo.spec
    return scene_terms_of(spec, view.pose, unoccluded_of(geo.raycaster, spec.board, geo.object_id(BOARD_OBJECT),
                                                         view.pose))


def frame_terms_of(image: np.ndarray, mask: np.ndarray) -> list[TermResult]:
    return [
        term("board_saturated", "frame", saturated_fraction(image, mask), "<=", SATURATED_MAX),
        term("board_contrast", "frame", weber_contrast(image, mask), ">=", WEBER_MIN),
    ]


def score_frame(geo, view, frame) -> list[TermResult]:
    return frame_terms_of(frame.image, frame.object_index == geo.object_id(BOARD_OBJECT))


def _r(x, nd: int = 4):
    return round(float(x), nd) if x is not None and math.isfinite(float(x)) else None


def ground_truth(geo, view, frame=None) -> dict:
    """Answer keys `ro`, `vin`, `body_style`, the date, and the geometry behind the terms
    (text-row px and board yaw are the paper's §7 drivers of VIN and RO accuracy)."""
    spec, pose = geo.spec, view.pose
    b, car = spec.board, spec.lot.subject
    gt = board_ground_truth(b.ids, car.body.style)
    uv, z = project(board_corners(b), pose.K_array(), pose.cam_to_world_array())
    car_in, car_fill = in_frame_and_fill(pose, car.placement, car.body)
    gt.update({
        "color": car.color,
        "board_face": b.face,
        "board_style": b.style,
        "text_row_m": _r(row_height_m(b), 5),
        "text_row_px": _r(text_row_px(b, pose)),
        "view_angle_deg": _r(board_view_angle(b, pose)),
        "board_corners_px": np.round(uv, 3).tolist() if bool(np.all(z > 0)) else None,
        "car_in_frame_fraction": _r(car_in),
        "car_bbox_fraction": _r(car_fill),
        "blur_at_board_px": _r(blur_at_board_px(b, pose)),
        "distractors": len(spec.lot.cars) - 1,
    })
    if frame is not None:
        gt["board_mask_px"] = int((frame.object_index == geo.object_id(BOARD_OBJECT)).sum())
    return gt
