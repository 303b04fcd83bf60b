"""The intersection's static geometry as data and numpy parts (no bpy): two crossing
roads with one lane and one bike lane each way, stop lines, zebra crossings, sidewalks,
traffic signals with their phase plan, street lamps and corner buildings.

Everything is placed in an arm frame: arm k in ("E", "N", "W", "S") points outward along
`OUT[k]`; its inbound traffic drives along -OUT[k] on the right-hand side (right-hand
traffic), so a point at `along` metres from the centre and `lateral` metres to the right
of inbound traffic is `C + along * OUT[k] + lateral * right(-OUT[k])`. The events
(`intersection_events`) read the same lanes, crossings, stop lines and the phase plan.
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from blender_envs.infra.warehouse_layout import Stripe
from geometry.mesh_parts import Part, box_part, cylinder_part

ARMS = ("E", "N", "W", "S")
OUT = {"E": (1.0, 0.0), "N": (0.0, 1.0), "W": (-1.0, 0.0), "S": (0.0, -1.0)}
OPPOSITE = {"E": "W", "W": "E", "N": "S", "S": "N"}
AXIS = {"E": "EW", "W": "EW", "N": "NS", "S": "NS"}
LANE_W = 3.5             # one car lane each way
BIKE_W = 1.8             # a bike lane outside each car lane
ROAD_HALF = LANE_W + BIKE_W          # curb: 5.3 m from the centre line
CAR_LAT = LANE_W / 2                 # lane centre, right of the centre line
BIKE_LAT = LANE_W + BIKE_W / 2
CROSS_A = (ROAD_HALF + 0.5, ROAD_HALF + 3.5)   # zebra crossing: along-distance band from the centre
STOP_A = ROAD_HALF + 4.5             # stop line (its centre) from the centre
STOP_W = 0.4
SIDEWALK_W = 3.5
ARM_LEN = 90.0                        # the drawn road reaches this far from the centre
GROUND_HALF_M = ARM_LEN + 10.0        # the ground box's half-size round the centre (intersection_build)
MARK_Z = 0.003
AMBER_S = 3.0
ALL_RED_S = 2.0


def inbound(arm: str) -> np.ndarray:
    o = OUT[arm]
    return np.array([-o[0], -o[1]])


def right_of(d) -> np.ndarray:
    """The right-hand normal of a ground direction (rotated -90 degrees)."""
    return np.array([d[1], -d[0]], float)


def arm_point(centre, arm: str, along: float, lateral: float) -> np.ndarray:
    """The ground point `along` m out on arm `arm`, `lateral` m right of its inbound traffic."""
    return np.asarray(centre, float) + along * np.array(OUT[arm]) + lateral * right_of(inbound(arm))


def arm_coords(centre, arm: str, p) -> tuple[float, float]:
    """(along, lateral) of ground point p in arm `arm`'s frame (the inverse of arm_point)."""
    q = np.asarray(p, float)[:2] - np.asarray(centre, float)
    return float(q @ np.array(OUT[arm])), float(q @ right_of(inbound(arm)))


def _rect(centre, arm: str, a0: float, a1: float, l0: float, l1: float) -> list[list[float]]:
    """Counter-clockwise corners of the arm-frame rectangle [a0, a1] x [l0, l1]."""
    pts = [arm_point(centre, arm, a, l) for a, l in ((a0, l0), (a1, l0), (a1, l1), (a0, l1))]
    P = np.array(pts)
    area = 0.5 * np.sum(P[:, 0] * np.roll(P[:, 1], -1) - np.roll(P[:, 0], -1) * P[:, 1])
    if area < 0:
        pts = pts[::-1]
    return [[round(float(x), 6), round(float(y), 6)] for x, y in pts]


class Lane(BaseModel):
    """A directed lane on one arm (a ground rectangle) for the wrong-way rule."""

    model_config = ConfigDict(extra="forbid")
    name: str               # e.g. "E_in_car"
    arm: str
    kind: Literal["car", "bike"]
    polygon: list[list[float]]
    direction: list[float]  # unit ground vector traffic moves along


class Crossing(BaseModel):
    model_config = ConfigDict(extra="forbid")
    arm: str
    polygon: list[list[float]]


class StopLine(BaseModel):
    """The stop line of an approach: inbound traffic of `arm` must not cross `along` (from
    the centre) on red; it spans the inbound half of the road."""

    model_config = ConfigDict(extra="forbid")
    arm: str
    along: float


class SignalPlan(BaseModel):
    """Two phases: `first` (EW or NS) green until `t_amber`, amber for AMBER_S, then all
    red for ALL_RED_S, then the other axis green to the clip's end; before t = 0 as at 0."""

    model_config = ConfigDict(extra="forbid")
    first: Literal["EW", "NS"]
    t_amber: float
    amber_s: float = AMBER_S
    all_red_s: float = ALL_RED_S

    @property
    def t_red(self) -> float:
        return self.t_amber + self.amber_s

    @property
    def t_second_green(self) -> float:
        return self.t_red + self.all_red_s

    def state(self, arm: str, t: float) -> str:
        """'green' | 'amber' | 'red' shown to the inbound traffic of `arm` at t."""
        if AXIS[arm] == self.first:
            return "green" if t < self.t_amber else ("amber" if t < self.t_red else "red")
        return "red" if t < self.t_second_green else "green"


def lanes(centre) -> list[Lane]:
    out = []
    for arm in ARMS:
        d_in = inbound(arm)
        for kind, (l0, l1) in (("car", (0.0, LANE_W)), ("bike", (LANE_W, ROAD_HALF))):
            out.append(Lane(name=f"{arm}_in_{kind}", arm=arm, kind=kind,
                            polygon=_rect(centre, arm, ROAD_HALF, ARM_LEN, l0, l1), direction=list(map(float, d_in))))
            out.append(Lane(name=f"{arm}_out_{kind}", arm=arm, kind=kind,
                            polygon=_rect(centre, arm, ROAD_HALF, ARM_LEN, -l1, -l0),
                            direction=list(map(float, -d_in))))
    return out


def crossings(centre) -> list[Crossing]:
    return [Crossing(arm=a, polygon=_rect(centre, a, *CROSS_A, -ROAD_HALF, ROAD_HALF)) for a in ARMS]


def stop_lines() -> list[StopLine]:
    return [StopLine(arm=a, along=STOP_A) for a in ARMS]


def on_carriageway(centre, p) -> bool:
    """A ground point on the road surface: inside either road's strip (curb to curb)."""
    dx, dy = float(p[0]) - centre[0], float(p[1]) - centre[1]
    return (abs(dy) < ROAD_HALF and abs(dx) < ARM_LEN) or (abs(dx) < ROAD_HALF and abs(dy) < ARM_LEN)


# ------------------------------------------------------------------ markings

def _stripe(centre, arm, a0, a1, lat, width, paint) -> Stripe:
    p0, p1 = arm_point(centre, arm, a0, lat), arm_point(centre, arm, a1, lat)
    return Stripe(p0=[round(float(v), 6) for v in p0], p1=[round(float(v), 6) for v in p1], width=width, paint=paint)


def markings(centre) -> list[Stripe]:
    """Double yellow centre line, solid white lane / bike-lane lines, green bike lanes,
    stop lines and zebra crossings (bars along the traffic, 0.5 m wide, 1 m pitch)."""
    out = []
    a_end = CROSS_A[1] + 0.3
    for arm in ARMS:
        for lat in (-0.12, 0.12):
            out.append(_stripe(centre, arm, a_end, ARM_LEN, lat, 0.1, "yellow"))
        for lat in (-LANE_W, LANE_W):
            out.append(_stripe(centre, arm, a_end, ARM_LEN, lat, 0.12, "white"))
        for lat in (-BIKE_LAT, BIKE_LAT):
            out.append(_stripe(centre, arm, STOP_A + STOP_W, ARM_LEN, lat, BIKE_W - 0.3, "green"))
        out.append(_stripe(centre, arm, STOP_A - STOP_W / 2, STOP_A + STOP_W / 2, ROAD_HALF / 2, ROAD_HALF, "white"))
        lat = -ROAD_HALF + 0.5
        while lat < ROAD_HALF - 0.2:
            out.append(_stripe(centre, arm, CROSS_A[0], CROSS_A[1], lat, 0.5, "white"))
            lat += 1.0
    return out


# ------------------------------------------------------------------ signals, lamps, buildings

def signal_parts(centre, arm: str) -> list[tuple[Part, str]]:
    """The signal of `arm`'s approach: a pole on the right-hand sidewalk before the stop
    line, a mast arm over the lane and a three-lens head facing the inbound traffic.
    Lens keys are `lens_<arm>_<red|amber|green>` (the builder lights them per frame)."""
    o = np.array(OUT[arm])
    base = arm_point(centre, arm, STOP_A + 0.6, ROAD_HALF + 0.6)
    head = arm_point(centre, arm, STOP_A + 0.6, CAR_LAT)
    out = [(cylinder_part(tuple(base), 0.09, 0.0, 6.0, 10), "pole")]
    mid = 0.5 * (base + head)
    ext = np.abs(base - head) / 2 + 0.05
    out.append((box_part((mid[0] - ext[0], mid[1] - ext[1], 5.75), (mid[0] + ext[0], mid[1] + ext[1], 5.85)), "pole"))
    h = 0.18
    out.append((box_part((head[0] - h, head[1] - h, 4.6), (head[0] + h, head[1] + h, 5.75)), "housing"))
    face = head + o * (h + 0.005)
    for colour, z in (("red", 5.45), ("amber", 5.17), ("green", 4.89)):
        # a thin square lens on the face towards the approaching traffic
        t = np.array([-o[1], o[0]]) * 0.11
        lo = np.minimum(face - t, face + t + o * 0.02)
        hi = np.maximum(face - t, face + t + o * 0.02)
        out.append((box_part((lo[0], lo[1], z - 0.11), (hi[0], hi[1], z + 0.11)), f"lens_{arm}_{colour}"))
    return out


def lamp_positions(centre) -> list[list[float]]:
    """Street lamps (the lamp head's [x, y, z]) at the four corners and along each arm."""
    out = []
    for arm in ARMS:
        for along in (STOP_A + 2.0, STOP_A + 22.0):
            p = arm_point(centre, arm, along, -(ROAD_HALF + 0.8))
            q = arm_point(centre, arm, along, -(ROAD_HALF - 1.2))
            out.append([round(float(q[0]), 6), round(float(q[1]), 6), 7.5, round(float(p[0]), 6),
                        round(float(p[1]), 6)])
    return out


def lamp_parts(lamp: list[float]) -> list[tuple[Part, str]]:
    qx, qy, z, px, py = lamp
    out = [(cylinder_part((px, py), 0.1, 0.0, z + 0.3, 10), "pole")]
    lo, hi = np.minimum([px, py], [qx, qy]) - 0.06, np.maximum([px, py], [qx, qy]) + 0.06
    out.append((box_part((lo[0], lo[1], z + 0.2), (hi[0], hi[1], z + 0.3)), "pole"))
    out.append((box_part((qx - 0.3, qy - 0.18, z), (qx + 0.3, qy + 0.18, z + 0.2)), "lamp_housing"))
    out.append((box_part((qx - 0.26, qy - 0.14, z - 0.01), (qx + 0.26, qy + 0.14, z)), "lamp_lens"))
    return out


class Building(BaseModel):
    model_config = ConfigDict(extra="forbid")
    lo: list[float]          # [x, y] corner
    hi: list[float]
    height: float
    floor_h: float
    facade: str              # facade palette name


def building_parts(b: Building, centre) -> list[tuple[Part, str]]:
    """A block with rows of windows on the two faces towards the roads (dark glass panes a
    few centimetres proud of the facade) and a shop-front band at street level."""
    (x0, y0), (x1, y1) = b.lo, b.hi
    out = [(box_part((x0, y0, 0.0), (x1, y1, b.height)), "facade")]
    cx, cy = centre
    fx = x0 if abs(x0 - cx) < abs(x1 - cx) else x1          # the face towards the NS road
    fy = y0 if abs(y0 - cy) < abs(y1 - cy) else y1          # ... towards the EW road
    sx, sy = (-1.0 if fx == x0 else 1.0), (-1.0 if fy == y0 else 1.0)
    out.append((box_part((min(fx, fx + sx * 0.06), y0, 0.0), (max(fx, fx + sx * 0.06), y1, 0.5)), "base"))
    out.append((box_part((x0, min(fy, fy + sy * 0.06), 0.0), (x1, max(fy, fy + sy * 0.06), 0.5)), "base"))
    z = b.floor_h
    while z + b.floor_h * 0.7 < b.height:
        for y in np.arange(y0 + 1.0, y1 - 1.6, 2.6):
            out.append((box_part((min(fx, fx + sx * 0.05), y, z + 0.9), (max(fx, fx + sx * 0.05), y + 1.5, z + 2.3)),
                        "window"))
        for x in np.arange(x0 + 1.0, x1 - 1.6, 2.6):
            out.append((box_part((x, min(fy, fy + sy * 0.05), z + 0.9), (x + 1.5, max(fy, fy + sy * 0.05), z + 2.3)),
                        "window"))
        z += b.floor_h
    return out


def corner_buildings(rng, centre) -> list[Building]:
    out = []
    back = ROAD_HALF + SIDEWALK_W + 0.5
    cx, cy = centre
    for sx in (-1, 1):
        for sy in (-1, 1):
            depth_x, depth_y = rng.uniform(25.0, 45.0), rng.uniform(25.0, 45.0)
            xs = sorted((cx + sx * back, cx + sx * (back + depth_x)))
            ys = sorted((cy + sy * back, cy + sy * (back + depth_y)))
            out.append(Building(lo=[round(xs[0], 6), round(ys[0], 6)], hi=[round(xs[1], 6), round(ys[1], 6)],
                                height=round(float(rng.uniform(9.0, 24.0)), 6),
                                floor_h=round(float(rng.uniform(3.0, 3.6)), 6),
                                facade=("brick", "concrete", "sand", "grey")[int(rng.integers(4))]))
    return out


def heading_deg(d) -> float:
    return math.degrees(math.atan2(d[1], d[0]))
