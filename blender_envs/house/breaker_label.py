"""`breaker_label` (RealityBench §3.1, Tables 1–3): the circuit directory card of a
load centre, photographed by an electrician standing at the panel.

Spec side only (no bpy): the wall, the panel (enclosure, dead front, two columns of
breakers), the open door with the directory card on its inner face, the card's text and
the phone are drawn here; `breaker_label_build.build` renders them; `scorers.breaker_label`
scores. Both sides place the card and its text rows with the helpers below.

World: z up, metres. The wall is the plane y = 0 and the room is at y < 0. Panel frame
(`panel_frame`): origin at the centre of the dead front's face, x right, y up, z out of
the wall (world -y).
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from blender_envs.registry import Environment
from geometry.camera import Phone, look_at, sample_phone, sample_phone_pose
from geometry.scene import SceneSpec, View

GENERATOR_VERSION = "breaker_label-1"
TARGET = "directory_card"
CARD_OBJECT = "directory_card"

# object pass indices (not a roof scene: the whole range is ours)
PASS = {"wall": 1, "floor": 2, "enclosure": 3, "dead_front": 4, "breakers": 5, "handles": 6,
        "door": 7, "directory_card": 8, "conduit": 9, "main_breaker": 10, "ceiling_light": 11}

# (name, amperages it is commonly on) -- realistic residential circuits
CIRCUITS: list[tuple[str, tuple[int, ...]]] = [
    ("KITCHEN", (20,)), ("KITCHEN GFCI", (20,)), ("BATH GFCI", (20,)), ("DRYER", (30,)), ("AC", (30, 40)),
    ("RANGE", (40, 50)), ("WATER HEATER", (30,)), ("FURNACE", (15, 20)), ("DISHWASHER", (20,)),
    ("DISPOSAL", (15, 20)), ("MICROWAVE", (20,)), ("LAUNDRY", (20,)), ("REFRIGERATOR", (20,)),
    ("GARAGE", (20,)), ("BEDROOM 1", (15, 20)), ("BEDROOM 2", (15, 20)), ("MASTER BED", (15, 20)),
    ("LIVING ROOM", (15,)), ("DINING ROOM", (15, 20)), ("HALL LIGHTS", (15,)), ("SMOKE DET", (15,)),
    ("OUTDOOR GFCI", (20,)), ("EV CHARGER", (40, 50)), ("SOLAR PV", (30, 40)), ("SUMP PUMP", (20,)),
    ("WELL PUMP", (20, 30)), ("BASEMENT", (15, 20)), ("OFFICE", (20,)), ("HEAT PUMP", (30, 40)),
    ("POOL PUMP", (20, 30)),
]
MAIN_AMPS = (100, 125, 150, 200)
BREAKER_PITCH_M = 0.0254  # one breaker space per inch


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Entry(_M):
    name: str
    amps: int


class CardSpec(_M):
    width_m: float
    height_m: float
    offset_m: list[float]          # card centre on the door's inner face (along door from hinge, up)
    style: Literal["printed", "handwritten"]
    columns: int
    paper_color: list[float]
    ink_color: list[float]
    jitter_seed: int               # per-glyph jitter of handwriting


class PanelSpec(_M):
    center: list[float]            # world centre of the dead-front face
    width_m: float
    height_m: float
    depth_m: float                 # enclosure depth out of the wall
    door_angle_deg: float          # 0 closed, 180 flat against the wall (left of the panel)
    steel_color: list[float]


class RoomSpec(_M):
    wall: Literal["drywall", "block", "plywood"]
    wall_color: list[float]
    floor_color: list[float]
    light_w: float                 # ceiling light power
    light_xy: list[float]          # its offset from the panel (x world, y world)
    ambient: float


class BreakerLabelSpec(SceneSpec):
    panel: PanelSpec
    card: CardSpec
    room: RoomSpec
    main_amps: int
    entries: list[Entry]
    phone: Phone


def sample_scene(rng: np.random.Generator, scene_id: str, seed: int) -> BreakerLabelSpec:
    """A panel on a wall, a door opened 100–178°, a directory card with 6–16 circuits."""
    n = int(rng.integers(6, 17))
    pick = rng.choice(len(CIRCUITS), size=n, replace=False)
    entries = [Entry(name=CIRCUITS[k][0], amps=int(rng.choice(CIRCUITS[k][1]))) for k in pick]
    rows = math.ceil(n / 2)
    height = round(max(0.55, rows * BREAKER_PITCH_M + 0.34) + float(rng.uniform(0.0, 0.15)), 4)
    width = round(float(rng.uniform(0.36, 0.43)), 4)
    panel = PanelSpec(center=[round(float(rng.uniform(-0.6, 0.6)), 4), -0.1, round(float(rng.uniform(1.35, 1.6)), 4)],
                      width_m=width, height_m=height, depth_m=0.1, door_angle_deg=round(float(rng.uniform(100, 178)), 3),
                      steel_color=[round(float(c), 4) for c in rng.uniform(0.45, 0.62) * np.array([1.0, 1.0, 1.02])])
    columns = 2 if n > 8 else 1
    cw = round(width * float(rng.uniform(0.6, 0.8)), 4)
    ch = round(min(height * 0.5, max(0.14, 0.018 * (math.ceil(n / columns) + 3))) * float(rng.uniform(1.0, 1.2)), 4)
    ch = min(ch, height * 0.8)
    handwritten = rng.random() < 0.4
    card = CardSpec(
        width_m=cw, height_m=round(ch, 4),
        offset_m=[round(width / 2 + float(rng.uniform(-0.02, 0.02)), 4),
                  round(float(rng.uniform(-0.08, 0.12)) * height, 4)],
        style="handwritten" if handwritten else "printed", columns=columns,
        paper_color=[round(float(c), 4) for c in (rng.uniform(0.85, 0.95, 3) * ([1.0, 0.97, 0.85] if rng.random() < 0.4 else 1.0))],
        ink_color=([0.02, 0.03, 0.2] if handwritten and rng.random() < 0.5 else [0.03, 0.03, 0.03]),
        jitter_seed=int(rng.integers(0, 2**31 - 1)),
    )
    wall = str(rng.choice(["drywall", "block", "plywood"]))
    wall_color = {"drywall": rng.uniform([0.7, 0.7, 0.66], [0.9, 0.9, 0.86]),
                  "block": rng.uniform([0.45, 0.45, 0.43], [0.65, 0.64, 0.6]),
                  "plywood": rng.uniform([0.55, 0.4, 0.24], [0.7, 0.55, 0.35])}[wall]
    room = RoomSpec(wall=wall, wall_color=[round(float(c), 4) for c in wall_color],
                    floor_color=[round(float(c), 4) for c in rng.uniform(0.25, 0.45) * np.ones(3)],
                    light_w=round(float(np.exp(rng.uniform(np.log(150), np.log(900)))), 2),
                    light_xy=[round(float(rng.uniform(-1.5, 1.5)), 3), round(float(rng.uniform(-2.5, -0.6)), 3)],
                    ambient=round(float(rng.uniform(0.05, 0.4)), 3))
    return BreakerLabelSpec(env="breaker_label", scene_id=scene_id, seed=seed, panel=panel, card=card, room=room,
                            main_amps=int(rng.choice(MAIN_AMPS)), entries=entries, phone=sample_phone(rng))


# ---- exact geometry --------------------------------------------------------------

def panel_frame(spec: BreakerLabelSpec) -> np.ndarray:
    M = np.eye(4)
    M[:3, 0], M[:3, 1], M[:3, 2] = [1, 0, 0], [0, 0, 1], [0, -1, 0]
    M[:3, 3] = spec.panel.center
    return M


DOOR_THICK_M = 0.002
DOOR_GAP_M = 0.004   # hinge line this far in front of the dead front


def door_frame(spec: BreakerLabelSpec) -> np.ndarray:
    """World frame of the door's inner face: origin at the hinge (mid-height), x along the
    door away from the hinge, y up, z the inner face's normal. Opening angle a turns the
    door about the hinge: 0 lies over the dead front, 180 flat to the left."""
    P = panel_frame(spec)
    a = math.radians(spec.panel.door_angle_deg)
    along = np.array([math.cos(a), 0.0, math.sin(a)])          # panel frame
    normal = np.array([math.sin(a), 0.0, -math.cos(a)])        # inner face
    hinge = np.array([-spec.panel.width_m / 2, 0.0, DOOR_GAP_M])
    M = np.eye(4)
    M[:3, 0] = P[:3, :3] @ along
    M[:3, 1] = P[:3, 1]
    M[:3, 2] = P[:3, :3] @ normal
    M[:3, 3] = P[:3, :3] @ hinge + P[:3, 3]
    return M


CARD_LIFT_M = 0.0008


def card_frame(spec: BreakerLabelSpec) -> np.ndarray:
    """World frame of the card: origin at its centre, x = reading direction, y up, z its
    normal (towards the reader). The door's x runs away from the hinge; seen from the
    inner side, reading runs towards the hinge when the door is open past 90 degrees...
    so the card's x is y cross z (right as the reader sees it)."""
    D = door_frame(spec)
    c = spec.card
    M = np.eye(4)
    z, y = D[:3, 2], D[:3, 1]
    M[:3, 0], M[:3, 1], M[:3, 2] = np.cross(y, z), y, z
    M[:3, 3] = D[:3, 3] + c.offset_m[0] * D[:3, 0] + c.offset_m[1] * y + (DOOR_THICK_M / 2 + CARD_LIFT_M) * z
    return M


def card_points(spec: BreakerLabelSpec, nu: int = 9, nv: int = 13, inset: float = 0.0) -> np.ndarray:
    """(nu*nv, 3) world points on the card face (grid over the whole card)."""
    M = card_frame(spec)
    c = spec.card
    u = np.linspace(-0.5 + inset, 0.5 - inset, nu) * c.width_m
    v = np.linspace(-0.5 + inset, 0.5 - inset, nv) * c.height_m
    U, V = np.meshgrid(u, v)
    return M[:3, 3] + U.reshape(-1, 1) * M[:3, 0] + V.reshape(-1, 1) * M[:3, 1]


def card_lines(spec: BreakerLabelSpec) -> list[str]:
    """The card's text as printed, line by line (header first, then the rows of column 1
    followed by the rows of column 2)."""
    return [f"MAIN {spec.main_amps}A"] + [f"{k + 1} {e.name} {e.amps}" for k, e in enumerate(spec.entries)]


def card_layout(spec: BreakerLabelSpec) -> dict:
    """Text rows in card metres (v from the card's top edge, downwards): a title row, the
    MAIN row, then the circuit rows in `columns` columns. The row pitch is what the
    legibility term measures."""
    c = spec.card
    rows = math.ceil(len(spec.entries) / c.columns)
    n_rows = rows + 2
    margin = 0.06 * c.height_m
    pitch = (c.height_m - 2 * margin) / n_rows
    return {"rows": rows, "n_rows": n_rows, "pitch_m": pitch, "margin_m": margin}


def row_centres_m(spec: BreakerLabelSpec) -> np.ndarray:
    """Card-frame v (metres, up from the centre) of every text row's centre."""
    lay = card_layout(spec)
    top = spec.card.height_m / 2 - lay["margin_m"]
    return top - (np.arange(lay["n_rows"]) + 0.5) * lay["pitch_m"]


def breaker_slots(spec: BreakerLabelSpec) -> list[tuple[int, float, float]]:
    """(entry index, x, y) of every branch breaker's centre in the panel frame: odd
    circuits in the left column, even in the right, top down below the main."""
    top = spec.panel.height_m / 2 - 0.17
    out = []
    for k in range(len(spec.entries)):
        col, row = k % 2, k // 2
        out.append((k, -0.045 if col == 0 else 0.045, top - (row + 0.5) * BREAKER_PITCH_M))
    return out


# ---- the field pose --------------------------------------------------------------

def sample_view(spec: BreakerLabelSpec, rng: np.random.Generator, view_index: int, long_side_px: int,
                attempt: int = 0) -> View:
    """The electrician at the panel: 12% close-ups 0.3–0.9 m (log-uniform), else
    panel shots 0.9–3 m out, roughly in
    front of the card or the panel (azimuth sigma 35 deg), eye height 1.45–1.75 m or
    crouched, aiming by hand at the card (65%) or the breakers (35%)."""
    C = card_frame(spec)
    P = panel_frame(spec)
    card_c = C[:3, 3]
    if rng.random() < 0.12:   # a deliberate close-up of the card
        dist = float(np.exp(rng.uniform(np.log(0.3), np.log(0.9))))
    else:                     # the panel as a whole, from where one stands at it
        dist = float(rng.uniform(0.9, 3.0))
    # look from in front of the card's own face half the time (electrician turns to it)
    base = C[:3, 2] if rng.random() < 0.4 else P[:3, 2]
    base = base - base[2] * np.array([0, 0, 1.0])
    base = base / max(np.linalg.norm(base), 1e-9)
    az = math.radians(float(rng.normal(0.0, 35.0)))
    ca, sa = math.cos(az), math.sin(az)
    d = np.array([ca * base[0] - sa * base[1], sa * base[0] + ca * base[1], 0.0])
    height = float(rng.uniform(1.45, 1.75)) if rng.random() < 0.8 else float(rng.uniform(0.9, 1.3))
    eye = card_c + dist * d
    eye[2] = height if dist > 0.5 else card_c[2] + float(rng.uniform(-0.2, 0.35)) * dist
    eye[1] = min(eye[1], -0.12)  # stay in the room
    aim_at = card_c if rng.random() < 0.65 else P[:3, 3]
    aim = aim_at + rng.normal(0.0, 0.05 * dist + 0.01, size=3)
    T = look_at(eye, aim, roll_rad=math.radians(float(rng.normal(0.0, 4.0))))
    pose = sample_phone_pose(rng, spec.phone, T, card_c if (card_c - eye) @ T[:3, 2] > 0.05 else aim, long_side_px)
    return View(view_index=view_index, pose=pose, target=TARGET, attempt=attempt)


ENV = Environment(
    name="breaker_label",
    family="house",
    version=GENERATOR_VERSION,
    views_per_scene=2,
    sample_scene=sample_scene,
    sample_view=sample_view,
    builder="blender_envs.house.breaker_label_build:build",
    scorer="scorers.breaker_label",
    spec_model=BreakerLabelSpec,
    prompts="realitybench",
)
