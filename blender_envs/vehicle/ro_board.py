"""`ro_board` (RealityBench §3.2, Tables 1-3): a vehicle-intake technician photographs the
repair-order board (RO number, VIN, date) held up in front of the subject car, so that
the board reads and the car is in the same frame.

Spec side only (no bpy). The scene is car_view's lot (subject, 10-18 distractors, the
clear disc) plus the board: a 40 x 27 cm whiteboard-style card held up by a hand (palm
and fingers behind its bottom edge, the thumb in front, the forearm leaving down and
back, as tape_gap's hand holds its case) 0.6-1.6 m out from one face of the subject,
0.9-1.5 m up, facing away from the car, turned by N(0, BOARD_YAW_SD_DEG) and tipped back
by N(BOARD_TIP_DEG) towards a standing reader. What it says is `ids.sample_board_ids`
(six-digit RO number, a VIN with its ISO 3779 check digit, a date), on a pre-printed form
(`plate_texture.board_texture`): per board either printed (DejaVu Sans Condensed Bold, each
value's capitals `BOARD_ROW_M` tall) or, with probability HANDWRITTEN_SHARE, written by
hand in marker (`handwriting`, Humor Sans, median glyph HAND_ROW_M tall, every character
jittered by `sample_hand_jitter` from the board's own stage, drawn after everything else so
that the printed boards of a seed are those of vehicle-1).

The field pose (`sample_view`) stands in front of the board, off its normal by
N(0, AZIMUTH_SD_DEG), at a distance log-uniform in DISTANCE_M, and aims by hand at a
point between the board and the car's centre, so both can be in frame. Every pose is
inside the clear disc, so only the hand, the board's own edge or the subject can hide
the board's writing.
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np

from pydantic import BaseModel, ConfigDict

from blender_envs.registry import Environment
from blender_envs.vehicle.body import FACES, Body, sample_body, sample_color, to_world
from blender_envs.stages import stage_rng
from blender_envs.vehicle.car_view import FACE_AZIMUTH
from blender_envs.vehicle.ids import BoardIds, sample_board_ids
from blender_envs.vehicle.lot import LotSpec, sample_lot
from blender_envs.vehicle.plate_texture import board_rows
from geometry import mesh_parts
from geometry.camera import Phone, look_at, sample_phone, sample_phone_pose
from geometry.scene import SceneSpec, View

TARGET = "ro_board"
BOARD_OBJECT = "ro_board"            # the printed face
BOARD_BACK_OBJECT = "ro_board_back"  # the hardboard behind it
HAND_OBJECT = "ro_board_hand"
BOARD_PASS, BOARD_BACK_PASS, HAND_PASS = 85, 86, 87   # free in the lot's numbering (subject 2.., lot 90-99)
BOARD_SIZE_M = (0.40, 0.27)
BOARD_ROW_M = 0.018                  # cap height of the printed values (the "text row")
GENERATOR_VERSION = "vehicle-8"      # -8: the lot spec gains car_view's (here empty) neighbour fields
                                     # -7: car_view's paint lines that never overlap (no black bars)
                                     # -6: car_view's busier lot (far cars, tree crowns, skyline, clearer sky)
                                     # -5: car_view's rounded, crowned bodies
                                     # -4: car_view's worn lot (asphalt wear, chamfered kerbs)
                                     # -3: shaped panels (arch cut-outs, shoulder, tumblehome), coated paint
                                     # -2: handwritten boards
# handwritten boards (docs/envs/ro_board.md): the share, the nominal (median glyph) height
# and the per-character jitter [dx, dy, scale, slant, rotation] drawn after everything else
HANDWRITTEN_SHARE = 0.5
HAND_ROW_M = 0.022                   # written a little larger than the print; the term uses the real heights
HAND_DX_SD, HAND_DY_SD = 0.04, 0.05  # x nominal row height
HAND_SCALE_SD, HAND_SCALE_RANGE = 0.06, (0.85, 1.15)
HAND_SLANT_DEG = (6.0, 5.0)          # the writer's lean: mean, sd per board
HAND_SLANT_CHAR_SD_DEG = 3.0         # ... and per character about it
HAND_ROT_SD_DEG = 3.0
BOARD_THICK_M = 0.006

# the board's placement (per scene)
OUT_FROM_FACE_M = (0.6, 1.6)
BOARD_HEIGHT_M = (0.9, 1.5)
BOARD_YAW_SD_DEG = 20.0
BOARD_TIP_DEG = (8.0, 8.0)           # mean, sd: tipped back (face up) towards the reader
# field-pose distribution (docs/envs/ro_board.md)
DISTANCE_M = (0.5, 9.0)              # log-uniform, camera to board centre
AZIMUTH_SD_DEG = 32.0
EYE_HEIGHT_M = (1.35, 1.75)
CROUCH_HEIGHT_M = (0.8, 1.15)
CROUCH_SHARE = 0.15
AIM_TOWARDS_CAR = (0.2, 1.0)        # aim = board + t (car centre - board), t uniform
AIM_SD_FRAC = 0.06
ROLL_SD_DEG = 4.0
CLEAR_MARGIN_M = 1.0                 # clear disc radius: the farthest pose (clear_radius) + this (vehicle-6)


class BoardSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ids: BoardIds
    face: str                        # the subject's face it stands in front of
    size_m: list[float]
    row_m: float
    center: list[float]              # world centre of the printed face
    right: list[float]               # world unit vectors: text right, text up, out of the face
    up: list[float]
    normal: list[float]
    grip_x_m: float                  # the hand's centre along the bottom edge, from the centre
    style: Literal["printed", "handwritten"] = "printed"
    hand: list[list[list[float]]] | None = None   # handwritten: per row, per character [dx dy scale slant rot]


class RoBoardSpec(SceneSpec):
    lot: LotSpec
    board: BoardSpec
    phone: Phone


def board_frame(board: BoardSpec) -> np.ndarray:
    T = np.eye(4)
    T[:3, 0], T[:3, 1], T[:3, 2], T[:3, 3] = board.right, board.up, board.normal, board.center
    return T


def board_grid(board: BoardSpec, box_m=None, nu: int = 9, nv: int = 7, inset: float = 0.01) -> np.ndarray:
    """World points on the printed face over `box_m` = (x0, y0, x1, y1) in face metres from
    the top-left corner (y down; default the whole face), `inset` (fraction) inside."""
    W, H = board.size_m
    x0, y0, x1, y1 = box_m if box_m is not None else (0.0, 0.0, W, H)
    dx, dy = inset * (x1 - x0), inset * (y1 - y0)
    xs = np.linspace(x0 + dx, x1 - dx, nu) - W / 2
    ys = H / 2 - np.linspace(y0 + dy, y1 - dy, nv)
    U, V = np.meshgrid(xs, ys)
    T = board_frame(board)
    return T[:3, 3] + U.reshape(-1, 1) * T[:3, 0] + V.reshape(-1, 1) * T[:3, 1] + 1e-4 * T[:3, 2]


def board_corners(board: BoardSpec) -> np.ndarray:
    """(4, 3): top-left, top-right, bottom-right, bottom-left of the printed face."""
    T = board_frame(board)
    w, h = board.size_m[0] / 2, board.size_m[1] / 2
    return np.array([T[:3, 3] + sx * w * T[:3, 0] + sy * h * T[:3, 1] for sx, sy in
                     ((-1, 1), (1, 1), (1, -1), (-1, -1))])


def hand_boxes(board: BoardSpec) -> np.ndarray:
    """(n, 6) boxes [x0 y0 z0 x1 y1 z1] of the hand in the board's frame (x right, y up,
    z out of the face): palm and four fingers behind the bottom edge, the fingertips
    curled under it, the thumb on the face, the forearm leaving down and back."""
    g, h2, t = board.grip_x_m, board.size_m[1] / 2, BOARD_THICK_M
    b = [[g - 0.045, -h2 - 0.035, -t - 0.030, g + 0.045, -h2 + 0.045, -t - 0.002]]          # palm
    for k in range(4):
        x0 = g - 0.044 + k * 0.022
        b.append([x0, -h2 - 0.020, -t - 0.004, x0 + 0.019, -h2 - 0.001, 0.004])             # under the edge
        b.append([x0, -h2 + 0.010, -t - 0.020, x0 + 0.019, -h2 + 0.060, -t - 0.001])        # up the back
    b.append([g + 0.030, -h2 - 0.012, 0.001, g + 0.052, -h2 + 0.040, 0.019])               # thumb, on the face
    b.append([g - 0.036, -h2 - 0.300, -t - 0.090, g + 0.036, -h2 - 0.030, -t - 0.020])      # forearm
    return np.array(b, float)


def hand_part(board: BoardSpec) -> mesh_parts.Part:
    """The hand as one mesh part in the board's frame (the builder moves it by board_frame)."""
    return mesh_parts.merge_parts([mesh_parts.box_part(r[:3], r[3:]) for r in hand_boxes(board)])


def _unit(v) -> np.ndarray:
    v = np.asarray(v, float)
    return v / np.linalg.norm(v)


def sample_board(lot: LotSpec, rng: np.random.Generator) -> BoardSpec:
    """Ids first, then the face, the spot in front of it, then the board's turn and tip."""
    ids = sample_board_ids(rng)
    car = lot.subject
    face = FACES[int(rng.integers(len(FACES)))]
    body = car.body
    half = {"front": body.width_m, "rear": body.width_m, "driver": body.length_m, "passenger": body.length_m}[face] / 2
    a = math.radians(FACE_AZIMUTH[face])
    n_car = np.array([math.cos(a), math.sin(a), 0.0])
    t_car = np.array([-math.sin(a), math.cos(a), 0.0])
    reach = body.length_m / 2 if face in ("front", "rear") else body.width_m / 2
    out = float(rng.uniform(*OUT_FROM_FACE_M))
    along = float(rng.uniform(-0.5, 0.5)) * half
    c_car = body.center()[:2] + (reach + out) * n_car[:2] + along * t_car[:2]
    centre = to_world(car.placement, [c_car[0], c_car[1], float(rng.uniform(*BOARD_HEIGHT_M))])
    n_world = to_world(car.placement, n_car) - to_world(car.placement, [0.0, 0.0, 0.0])
    yaw = math.radians(float(rng.normal(0.0, BOARD_YAW_SD_DEG)))
    tip = math.radians(float(rng.normal(*BOARD_TIP_DEG)))
    nh = np.array([n_world[0] * math.cos(yaw) - n_world[1] * math.sin(yaw),
                   n_world[0] * math.sin(yaw) + n_world[1] * math.cos(yaw), 0.0])
    normal = _unit(nh * math.cos(tip) + np.array([0.0, 0.0, math.sin(tip)]))
    right = _unit(np.cross([0.0, 0.0, 1.0], normal))
    up = np.cross(normal, right)
    grip = float(rng.uniform(-0.08, 0.08))
    handwritten = bool(rng.random() < HANDWRITTEN_SHARE)
    hand = sample_hand_jitter(rng, [len(v) for _, v in board_rows(ids.ro, ids.vin, ids.date)]) if handwritten else None
    return BoardSpec(ids=ids, face=face, size_m=list(BOARD_SIZE_M), row_m=HAND_ROW_M if handwritten else BOARD_ROW_M,
                     center=np.round(centre, 6).tolist(), right=np.round(right, 9).tolist(),
                     up=np.round(up, 9).tolist(), normal=np.round(normal, 9).tolist(), grip_x_m=round(grip, 4),
                     style="handwritten" if handwritten else "printed", hand=hand)


def sample_hand_jitter(rng: np.random.Generator, row_lengths: list[int]) -> list[list[list[float]]]:
    """Per row, per character [dx, dy, scale, slant_deg, rot_deg]: one writer's lean for the
    board, each character off it, off the baseline, bigger or smaller, a little turned."""
    lean = float(rng.normal(*HAND_SLANT_DEG))
    rows = []
    for n in row_lengths:
        j = np.column_stack([rng.normal(0.0, HAND_DX_SD, n), rng.normal(0.0, HAND_DY_SD, n),
                             np.clip(rng.normal(1.0, HAND_SCALE_SD, n), *HAND_SCALE_RANGE),
                             lean + rng.normal(0.0, HAND_SLANT_CHAR_SD_DEG, n), rng.normal(0.0, HAND_ROT_SD_DEG, n)])
        rows.append(np.round(j, 4).tolist())
    return rows


def clear_radius(body: Body) -> float:
    """The lot's clear disc (lot.py) for this environment's poses: the board's centre lies at
    most L/2 + W/4 + OUT_FROM_FACE_M[1] from the car's centre (in front of an end, up to W/4
    along it; beside a side, up to L/4 along, W/2 out, which is no farther) and a pose stands
    at most DISTANCE_M[1] from the board, so this disc holds every pose and every line from it
    to the board and the car. vehicle-6: car_view's 4.5 lengths before (about 21 m)."""
    return body.length_m / 2 + body.width_m / 4 + OUT_FROM_FACE_M[1] + DISTANCE_M[1] + CLEAR_MARGIN_M


def sample_scene(rng: np.random.Generator, scene_id: str, seed: int) -> RoBoardSpec:
    """car_view's subject, lot (this environment's clear disc) and phone stages, then the board."""
    root = int(rng.integers(0, 2**63 - 1))
    srng = stage_rng(root, "subject")
    body, color = sample_body(srng), sample_color(srng)
    lot = sample_lot(stage_rng(root, "lot"), clear_radius(body), body, color)
    phone = sample_phone(stage_rng(root, "phone"))
    board = sample_board(lot, stage_rng(root, "board"))
    return RoBoardSpec(env="ro_board", scene_id=scene_id, seed=seed, lot=lot, board=board, phone=phone)


def sample_view(spec: RoBoardSpec, rng: np.random.Generator, view_index: int, long_side_px: int,
                attempt: int = 0) -> View:
    """Stand in front of the board, aim between it and the car by hand."""
    b = spec.board
    X = np.asarray(b.center, float)
    n = np.asarray(b.normal, float)
    nh = _unit([n[0], n[1], 0.0])
    d = float(math.exp(rng.uniform(math.log(DISTANCE_M[0]), math.log(DISTANCE_M[1]))))
    az = math.radians(float(rng.normal(0.0, AZIMUTH_SD_DEG)))
    height = float(rng.uniform(*CROUCH_HEIGHT_M)) if rng.random() < CROUCH_SHARE else float(rng.uniform(*EYE_HEIGHT_M))
    dz = height - X[2]
    h = math.sqrt(max(d * d - dz * dz, 0.09))
    side = np.cross([0.0, 0.0, 1.0], nh)
    eye = X + h * (math.cos(az) * nh + math.sin(az) * side)
    eye[2] = height
    car = spec.lot.subject
    centre = to_world(car.placement, car.body.center())
    aim = X + float(rng.uniform(*AIM_TOWARDS_CAR)) * (centre - X)
    aim = aim + rng.normal(0.0, AIM_SD_FRAC * float(np.linalg.norm(aim - eye)), size=3)
    cam = look_at(eye, aim, roll_rad=math.radians(float(rng.normal(0.0, ROLL_SD_DEG))))
    pose = sample_phone_pose(rng, spec.phone, cam, X if (X - eye) @ cam[:3, 2] > 0.05 else aim, long_side_px)
    return View(view_index=view_index, pose=pose, target=TARGET, attempt=attempt)


ENV = Environment(
    name="ro_board",
    family="vehicle",
    version=GENERATOR_VERSION,
    views_per_scene=4,
    sample_scene=sample_scene,
    sample_view=sample_view,
    builder="blender_envs.vehicle.ro_board_build:build",
    scorer="scorers.ro_board",
    spec_model=RoBoardSpec,
    prompts="realitybench",
)
