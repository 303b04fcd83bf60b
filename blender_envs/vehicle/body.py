"""Parametric car bodies as data: ten body styles, the car frame, faces, panels, colours.

No bpy: the builder, the view samplers and the scorers all read the numbers here, so a
panel the ground truth names is the panel the pixels show.

Car frame (metres, right-handed)
--------------------------------
* origin on the ground under the centre of the body's footprint (length x width box);
* +x forward (towards the front bumper), +y to the car's LEFT, +z up;
* the cars are US left-hand-drive: the DRIVER sits on the left, so the driver side is
  +y and the passenger side -y; the steering wheel (`steering_wheel_center`) has y > 0
  and the plates are US plates (blender_envs.vehicle.plates);
* the four faces and their outward normals: front +x, rear -x, driver +y, passenger -y;
* `Placement(x, y, yaw_deg)` puts the car on the world ground plane (world z = 0):
  car +x points along world (cos yaw, sin yaw, 0).

Side profile
------------
Along the length (front to rear) a body is: hood, windshield (horizontal run), roof,
rear glass (horizontal run), deck (trunk lid or pickup bed), each a fraction of the
length. Trunk styles and the pickup take the deck as the remainder (1 - the others);
tailgate styles have no deck and take the rear glass run as the remainder, so every
draw closes exactly and the remainder's range follows from the others' (tests pin it).
The beltline (top of doors and fenders, also the hood and deck height) is a fraction
of the height; wheels sit on the ground at the axles (front overhang and wheelbase as
fractions of the length).

Panels
------
Each panel is one or more planar rectangles (`PanelRect`) on the body's outer box:
sides in the planes y = +-width/2, front and rear faces in x = +-length/2, hood and deck
at the beltline, roof at the full height. A rectangle's axes are right-handed with
`normal = u x v` pointing out of the body (`u` is the viewer's right and `v` up on the
four faces). Wheel arches and plates are keep-out discs in a rectangle's (u, v)
coordinates, where damage is never placed. Adjacency (`adjacency`) is edge-sharing on
the body, glass not counted.
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

BodyStyle = Literal["sedan", "hatchback", "coupe", "convertible", "wagon", "SUV", "crossover", "minivan",
                    "pickup", "van"]
# The prompt's order (packagers/prompts/realitybench.yaml, car_view/ro_board body_style options).
BODY_STYLES: tuple[str, ...] = ("sedan", "hatchback", "coupe", "convertible", "wagon", "SUV", "crossover",
                                "minivan", "pickup", "van")

Face = Literal["front", "rear", "driver", "passenger"]
FACES: tuple[str, ...] = ("front", "rear", "driver", "passenger")
FACE_NORMALS: dict[str, tuple[float, float, float]] = {
    "front": (1.0, 0.0, 0.0), "rear": (-1.0, 0.0, 0.0), "driver": (0.0, 1.0, 0.0), "passenger": (0.0, -1.0, 0.0),
}
DRIVER_SIDE_Y = 1.0          # the driver side is +y (left-hand drive)

ARCH_GAP_M = 0.05            # wheel-arch cut-out radius = wheel radius + this
BUMPER_HEIGHT_M = 0.30       # rear bumper: clearance .. clearance + this
ROOF_INSET_M = 0.10          # roof half-width = width/2 - this (tumblehome)
FRONT_DOOR_SHARE = 0.53      # of the door span, on four-door bodies
PLATE_SIZE_M = (0.3048, 0.1524)   # US passenger plate, 12 x 6 in
PLATE_KEEP_OUT_M = 0.20      # keep-out disc radius around a plate centre (half-diagonal 0.170 + margin)

Range = tuple[float, float]


class StyleRanges(BaseModel):
    """Uniform ranges of one body style (lengths in m, fractions of length or height)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    length_m: Range
    width_m: Range
    height_m: Range
    wheelbase_frac: Range        # of length
    front_overhang_frac: Range   # of length; rear overhang = the rest
    hood_frac: Range             # of length
    windshield_frac: Range       # horizontal run, of length
    roof_frac: Range             # of length (convertible: the open cabin)
    rear_glass_frac: Range | None  # None: the remainder (tailgate styles)
    beltline_frac: Range         # of height
    clearance_m: Range
    wheel_radius_m: Range
    doors: Literal[2, 4]
    rear: Literal["trunk", "tailgate"]
    open_top: bool = False       # convertible: no roof panel
    bed: bool = False            # pickup: the deck is an open bed


def _s(L, W, H, wb, foh, hood, ws, roof, rg, belt, clear, wheel, doors, rear, **kw) -> StyleRanges:
    return StyleRanges(length_m=L, width_m=W, height_m=H, wheelbase_frac=wb, front_overhang_frac=foh,
                       hood_frac=hood, windshield_frac=ws, roof_frac=roof, rear_glass_frac=rg,
                       beltline_frac=belt, clearance_m=clear, wheel_radius_m=wheel, doors=doors, rear=rear, **kw)


# Ranges from typical current models of each class (ours; the paper's nine meshes are not published).
STYLES: dict[str, StyleRanges] = {
    "sedan": _s((4.50, 5.00), (1.78, 1.88), (1.40, 1.50), (0.57, 0.61), (0.18, 0.21), (0.26, 0.30),
                (0.13, 0.16), (0.24, 0.28), (0.10, 0.13), (0.62, 0.68), (0.13, 0.16), (0.31, 0.35), 4, "trunk"),
    "hatchback": _s((3.90, 4.40), (1.70, 1.80), (1.42, 1.52), (0.61, 0.65), (0.18, 0.21), (0.22, 0.26),
                    (0.15, 0.18), (0.36, 0.42), None, (0.60, 0.66), (0.13, 0.16), (0.29, 0.33), 4, "tailgate"),
    "coupe": _s((4.30, 4.80), (1.78, 1.90), (1.28, 1.38), (0.58, 0.62), (0.18, 0.21), (0.28, 0.32),
                (0.15, 0.18), (0.18, 0.22), (0.14, 0.18), (0.64, 0.70), (0.11, 0.14), (0.32, 0.36), 2, "trunk"),
    "convertible": _s((4.20, 4.70), (1.76, 1.88), (1.26, 1.36), (0.56, 0.60), (0.18, 0.21), (0.28, 0.32),
                      (0.13, 0.16), (0.22, 0.26), (0.06, 0.09), (0.68, 0.75), (0.11, 0.14), (0.31, 0.35), 2,
                      "trunk", open_top=True),
    "wagon": _s((4.60, 5.00), (1.78, 1.88), (1.45, 1.55), (0.58, 0.61), (0.18, 0.21), (0.24, 0.28),
                (0.13, 0.16), (0.48, 0.54), None, (0.62, 0.68), (0.13, 0.16), (0.31, 0.35), 4, "tailgate"),
    "SUV": _s((4.60, 5.10), (1.88, 2.00), (1.70, 1.85), (0.57, 0.61), (0.17, 0.20), (0.24, 0.28),
              (0.12, 0.15), (0.50, 0.56), None, (0.56, 0.62), (0.20, 0.25), (0.37, 0.42), 4, "tailgate"),
    "crossover": _s((4.30, 4.70), (1.80, 1.90), (1.58, 1.70), (0.58, 0.62), (0.18, 0.21), (0.24, 0.28),
                    (0.14, 0.17), (0.42, 0.48), None, (0.58, 0.64), (0.17, 0.21), (0.34, 0.38), 4, "tailgate"),
    "minivan": _s((5.00, 5.20), (1.95, 2.00), (1.72, 1.80), (0.58, 0.61), (0.18, 0.21), (0.14, 0.18),
                  (0.14, 0.17), (0.58, 0.64), None, (0.52, 0.58), (0.14, 0.17), (0.33, 0.37), 4, "tailgate"),
    "pickup": _s((5.30, 5.90), (1.95, 2.05), (1.80, 1.95), (0.60, 0.66), (0.15, 0.18), (0.24, 0.28),
                 (0.10, 0.13), (0.16, 0.22), (0.01, 0.03), (0.58, 0.64), (0.22, 0.28), (0.38, 0.43), 4,
                 "tailgate", bed=True),
    "van": _s((5.00, 6.00), (1.95, 2.05), (2.00, 2.60), (0.55, 0.62), (0.15, 0.19), (0.08, 0.12),
              (0.08, 0.11), (0.70, 0.76), None, (0.42, 0.50), (0.16, 0.20), (0.34, 0.38), 4, "tailgate"),
}


def remainder_range(style: str) -> Range:
    """(min, max) of the remainder fraction (deck, or rear glass on tailgate styles)."""
    s = STYLES[style]
    parts = [s.hood_frac, s.windshield_frac, s.roof_frac] + ([s.rear_glass_frac] if s.rear_glass_frac else [])
    return 1.0 - sum(p[1] for p in parts), 1.0 - sum(p[0] for p in parts)


class Body(BaseModel):
    """One drawn body: every dimension in metres (derived positions are methods)."""

    model_config = ConfigDict(extra="forbid")
    style: BodyStyle
    length_m: float
    width_m: float
    height_m: float
    wheelbase_m: float
    front_overhang_m: float
    hood_m: float
    windshield_m: float
    roof_m: float
    rear_glass_m: float
    deck_m: float
    beltline_m: float            # height above the ground
    clearance_m: float
    wheel_radius_m: float

    @property
    def ranges(self) -> StyleRanges:
        return STYLES[self.style]

    @property
    def rear_overhang_m(self) -> float:
        return self.length_m - self.wheelbase_m - self.front_overhang_m

    # --- stations along x (car frame), front to rear
    def x_front(self) -> float:
        return self.length_m / 2

    def x_rear(self) -> float:
        return -self.length_m / 2

    def x_front_axle(self) -> float:
        return self.x_front() - self.front_overhang_m

    def x_rear_axle(self) -> float:
        return self.x_front_axle() - self.wheelbase_m

    def x_windshield_base(self) -> float:
        return self.x_front() - self.hood_m

    def x_roof_front(self) -> float:
        return self.x_windshield_base() - self.windshield_m

    def x_roof_rear(self) -> float:
        return self.x_roof_front() - self.roof_m

    def x_rear_glass_base(self) -> float:
        """Where the rear glass meets the deck (the tail on tailgate styles)."""
        return self.x_roof_rear() - self.rear_glass_m

    def arch_radius_m(self) -> float:
        return self.wheel_radius_m + ARCH_GAP_M

    def x_fender_end(self) -> float:
        """Rear edge of the front fender = front edge of the front door."""
        return self.x_front_axle() - self.arch_radius_m()

    def x_quarter_start(self) -> float:
        """Front edge of the quarter panel (the bed side's: the cab's back on a pickup)."""
        if self.ranges.bed:
            return self.x_rear_glass_base()
        return self.x_rear_axle() + self.arch_radius_m()

    def x_door_split(self) -> float | None:
        """Front door / rear door boundary; None on two-door bodies."""
        if self.ranges.doors == 2:
            return None
        span = self.x_fender_end() - self.x_quarter_start()
        return self.x_fender_end() - FRONT_DOOR_SHARE * span

    def z_bumper_top(self) -> float:
        return self.clearance_m + BUMPER_HEIGHT_M

    def center(self) -> np.ndarray:
        """Centre of the body's bounding box in the car frame (the 'car centre' of distances)."""
        return np.array([0.0, 0.0, self.height_m / 2])

    def face_center(self, face: str) -> np.ndarray:
        """Car-frame centre of one of the four faces of the bounding box (mid-height)."""
        n = np.asarray(FACE_NORMALS[face])
        return self.center() + n * np.array([self.length_m / 2, self.width_m / 2, 0.0])


def _u(lo_hi: Range, rng: np.random.Generator) -> float:
    return float(rng.uniform(lo_hi[0], lo_hi[1]))


def _mm(x: float) -> float:
    return round(float(x), 4) + 0.0


def sample_body(rng: np.random.Generator, style: str | None = None) -> Body:
    """Draw a body of `style` (uniform over the ten when None) from its ranges.

    Draw order is fixed (style, then the fields in StyleRanges order), so a seed gives
    one body; lengths are rounded to 0.1 mm for byte-stable JSON, the remainder last so
    the profile still sums to the length exactly.
    """
    if style is None:
        style = BODY_STYLES[int(rng.integers(len(BODY_STYLES)))]
    s = STYLES[style]
    L, W, H = _mm(_u(s.length_m, rng)), _mm(_u(s.width_m, rng)), _mm(_u(s.height_m, rng))
    wb = _mm(_u(s.wheelbase_frac, rng) * L)
    foh = _mm(_u(s.front_overhang_frac, rng) * L)
    hood = _mm(_u(s.hood_frac, rng) * L)
    ws = _mm(_u(s.windshield_frac, rng) * L)
    roof = _mm(_u(s.roof_frac, rng) * L)
    if s.rear_glass_frac is None:
        rg, deck = _mm(L - hood - ws - roof), 0.0
    else:
        rg = _mm(_u(s.rear_glass_frac, rng) * L)
        deck = _mm(L - hood - ws - roof - rg)
    belt = _mm(_u(s.beltline_frac, rng) * H)
    clear = _mm(_u(s.clearance_m, rng))
    wheel = _mm(_u(s.wheel_radius_m, rng))
    return Body(style=style, length_m=L, width_m=W, height_m=H, wheelbase_m=wb, front_overhang_m=foh,
                hood_m=hood, windshield_m=ws, roof_m=roof, rear_glass_m=rg, deck_m=deck, beltline_m=belt,
                clearance_m=clear, wheel_radius_m=wheel)


# ----------------------------------------------------------------------------- panels

class KeepOut(BaseModel):
    """A disc in a rectangle's (u, v) coordinates (m from its centre) where damage never goes."""

    model_config = ConfigDict(extra="forbid")
    u: float
    v: float
    radius: float
    what: Literal["wheel_arch", "plate", "trim"]


class PanelRect(BaseModel):
    """A planar rectangle of a panel's outer surface, in the car frame."""

    model_config = ConfigDict(extra="forbid")
    panel: str
    face: Literal["front", "rear", "driver", "passenger", "top"]
    center: list[float]
    u: list[float]               # unit; viewer's right on the four faces
    v: list[float]               # unit; up on the four faces
    half_u: float
    half_v: float
    keep_out: list[KeepOut] = []

    def normal(self) -> np.ndarray:
        return np.cross(np.asarray(self.u, float), np.asarray(self.v, float))

    def point(self, su, sv) -> np.ndarray:
        """Car-frame point(s) at (u, v) metres from the centre."""
        su, sv = np.asarray(su, float), np.asarray(sv, float)
        return (np.asarray(self.center, float) + su[..., None] * np.asarray(self.u, float)
                + sv[..., None] * np.asarray(self.v, float))

    def area_m2(self) -> float:
        return 4.0 * self.half_u * self.half_v


# (u, v) axes of each face; normal = u x v points out of the body
_AXES: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    "front": ((0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
    "rear": ((0.0, -1.0, 0.0), (0.0, 0.0, 1.0)),
    "driver": ((-1.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
    "passenger": ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
    "top": ((0.0, -1.0, 0.0), (1.0, 0.0, 0.0)),
}


def _rect(panel: str, face: str, x: Range, y: Range, z: Range, keep_out=()) -> PanelRect:
    """Axis-aligned rectangle spanning the given car-frame ranges (one of them degenerate)."""
    u, v = _AXES[face]
    lo = np.array([x[0], y[0], z[0]])
    hi = np.array([x[1], y[1], z[1]])
    c = (lo + hi) / 2
    ext = (hi - lo) / 2
    hu = float(abs(np.dot(ext, u)))
    hv = float(abs(np.dot(ext, v)))
    ko = [KeepOut(u=float(np.dot(np.asarray(p) - c, u)), v=float(np.dot(np.asarray(p) - c, v)), radius=r, what=w)
          for p, r, w in keep_out]
    return PanelRect(panel=panel, face=face, center=[float(a) + 0.0 for a in c], u=list(u), v=list(v),
                     half_u=hu, half_v=hv, keep_out=ko)


SIDES: dict[str, float] = {"driver": DRIVER_SIDE_Y, "passenger": -DRIVER_SIDE_Y}


def rear_panel_name(body: Body) -> str:
    return "trunk" if body.ranges.rear == "trunk" else "tailgate"


def plate_centers(body: Body) -> dict[str, np.ndarray]:
    """Car-frame centres of the front and rear plates, on the front bumper and the rear face."""
    front_z = body.clearance_m + 0.5 * (body.beltline_m - body.clearance_m)
    front_z = min(front_z, body.clearance_m + 0.30)
    h = PLATE_SIZE_M[1]
    room = body.beltline_m - body.z_bumper_top()
    rear_z = body.z_bumper_top() + room / 2 if room >= h + 0.06 else body.clearance_m + BUMPER_HEIGHT_M / 2
    return {"front": np.array([body.x_front(), 0.0, front_z]), "rear": np.array([body.x_rear(), 0.0, rear_z])}


TRIM_KEEP_OUT_MARGIN_M = 0.02   # keep-out disc radius = a trim item's half-diagonal + this
HANDLE_SIZE_M = (0.14, 0.036)    # door handle, along the car x height


class FaceTrim(BaseModel):
    """A lamp, the grille or a door handle on one panel rectangle: a (half_u, half_v)
    rectangle about `center` (car frame, in the panel's plane) along that face's (u, v)
    axes. car_parts draws it; the panel gets a keep-out disc round it (no damage under it)."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["headlamp", "tail_lamp", "indicator", "grille", "handle"]
    face: Literal["front", "rear", "driver", "passenger"]
    panel: str
    side: Literal["driver", "passenger", "centre"]
    center: list[float]
    half_u: float
    half_v: float


def face_trim(body: Body) -> list[FaceTrim]:
    """Headlamps and front indicators high in the front face's outer corners with the grille
    between them, tail lamps and rear indicators in the rear face's (horizontal bars on trunk
    styles, tall clusters up the tailgate's edges on tailgate styles; slim on coupes and
    convertibles), and a handle near the rear edge of every door, 9 cm under the beltline.
    Sizes follow the body (face height between the bumper line and the beltline, width)."""
    W2, zb, zc, zt = body.width_m / 2, body.beltline_m, body.clearance_m, body.z_bumper_top()
    slim = body.style in ("coupe", "convertible")
    rear = rear_panel_name(body)
    out: list[FaceTrim] = []

    def add(kind, face, panel, side, center, hu, hv):
        out.append(FaceTrim(kind=kind, face=face, panel=panel, side=side, center=[float(c) for c in center],
                            half_u=float(hu), half_v=float(hv)))

    hh = float(np.clip(0.24 * (zb - zc), 0.10, 0.22)) * (0.7 if slim else 1.0)
    hw = 0.21 * body.width_m
    top = zb - 0.03
    for side, sy in SIDES.items():
        # front: headlamp from 3 cm under the beltline, an amber strip under its outer half
        add("headlamp", "front", "front_bumper", side, [body.x_front(), sy * (W2 - 0.05 - hw / 2), top - hh / 2],
            hw / 2, hh / 2)
        iw, ih = 0.45 * hw, 0.035
        add("indicator", "front", "front_bumper", side,
            [body.x_front(), sy * (W2 - 0.05 - iw / 2), top - hh - 0.015 - ih / 2], iw / 2, ih / 2)
        # rear: tail lamp from 2.5 cm under the beltline, the amber strip under its outer part
        if body.ranges.rear == "trunk":
            th, tw = float(np.clip(0.28 * (zb - zt), 0.08, 0.15)) * (0.8 if slim else 1.0), 0.22 * body.width_m
        else:
            th, tw = float(np.clip(0.55 * (zb - zt), 0.16, 0.40)), 0.08 * body.width_m
        ttop = zb - 0.025
        add("tail_lamp", "rear", rear, side, [body.x_rear(), sy * (W2 - 0.03 - tw / 2), ttop - th / 2], tw / 2, th / 2)
        iw2 = min(tw, 0.12)
        add("indicator", "rear", rear, side, [body.x_rear(), sy * (W2 - 0.03 - iw2 / 2), ttop - th - 0.012 - 0.0175],
            iw2 / 2, 0.0175)
        # door handles, near each door's rear edge
        doors = [("front_door", body.x_door_split() if body.x_door_split() is not None else body.x_quarter_start())]
        if body.x_door_split() is not None:
            doors.append(("rear_door", body.x_quarter_start()))
        for door, x_back in doors:
            add("handle", side, f"{door}_{side}", side,
                [x_back + 0.10 + HANDLE_SIZE_M[0] / 2, sy * W2, zb - 0.09], HANDLE_SIZE_M[0] / 2, HANDLE_SIZE_M[1] / 2)
    gw = W2 - 0.05 - hw - 0.04
    add("grille", "front", "front_bumper", "centre", [body.x_front(), 0.0, top - hh / 2], gw, hh / 2 - 0.005)
    return out


def _trim_keep_outs(body: Body, panel: str) -> list:
    """(centre, radius, "trim") keep-out discs of the trim items on one panel."""
    return [(np.asarray(t.center), math.hypot(t.half_u, t.half_v) + TRIM_KEEP_OUT_MARGIN_M, "trim")
            for t in face_trim(body) if t.panel == panel]


# ---------------------------------------------------------------- the shaped surface

SHOULDER_IN_M = 0.035        # the side surface rolls in this far at the beltline (the shoulder)
SHOULDER_FROM = 0.55         # ... starting at this fraction of the side's height above the sill
TUCK_IN_M = 0.030            # and tucks under this far at the sill
TUCK_TO = 0.30               # ... up to this fraction of the side's height


def side_inset(body: Body, z) -> np.ndarray:
    """How far (m) the side surface lies inside the side plane y = +-width/2 at height z: 0 on
    the flat middle band (where a PanelRect and the mesh agree), rolling in quadratically to
    SHOULDER_IN_M at the beltline and TUCK_IN_M at the sill. Only the depth changes: every
    side point keeps its (x, z), so projected areas, outlines seen square-on and the damage
    ellipse's area on the panel plane are the PanelRect's."""
    t = np.clip((np.asarray(z, float) - body.clearance_m) / (body.beltline_m - body.clearance_m), 0.0, 1.0)
    top = SHOULDER_IN_M * np.clip((t - SHOULDER_FROM) / (1.0 - SHOULDER_FROM), 0.0, 1.0) ** 2
    bottom = TUCK_IN_M * np.clip((TUCK_TO - t) / TUCK_TO, 0.0, 1.0) ** 2
    return top + bottom


# vehicle-5: rounded vertical corners and crowned top panels (docs/design-notes.md)
CORNER_RADIUS_FRAC = 0.07    # plan-view radius of the four vertical corners, of the body width ...
CORNER_RADIUS_M = (0.11, 0.15)   # ... clipped to this range
END_TUCK_M = 0.03            # the front and rear faces tuck back this far at the sill (bumpers rounding
                             # under), over the same bottom TUCK_TO of the height as the sides' tuck ...
END_ROLL_M = 0.03            # ... and roll back this far at the beltline (the hood's and deck's leading
END_ROLL_BAND_M = 0.06       # edge rounded), quadratically over this band under it; both <= corner_split_m
CORNER_SPLIT_DEG = 45.0      # the side's mesh takes the arc from its tangent to here, the end face the rest
TOP_BAND_M = 0.03            # the vertical panels' top edge follows the crowned edge over this band
                             # (= damage.EDGE_MARGIN_M: a drawn site never reaches into it)
# crown heights (m): how far the edges of a top panel lie below its rectangle's plane
HOOD_CROWN_M = (0.018, 0.008)    # (across, toward the front edge)
DECK_CROWN_M = (0.015, 0.008)    # (across, toward the rear edge)
ROOF_CROWN_M = (0.035, 0.020)    # (at the side edges, at the front and rear edges' middle)


def corner_radius_m(body: Body) -> float:
    return float(np.clip(CORNER_RADIUS_FRAC * body.width_m, *CORNER_RADIUS_M))


def corner_split_m(body: Body) -> float:
    """How far the side's mesh ends short of the end plane, and the end face's short of the
    side: e = r (1 - cos 45 deg), the split point of the arc."""
    return corner_radius_m(body) * (1.0 - math.cos(math.radians(CORNER_SPLIT_DEG)))


def end_tuck(body: Body, z) -> np.ndarray:
    """How far (m) the front and rear faces lie behind their planes at height z (before the
    corners): END_TUCK_M at the sill, quadratically to 0 at TUCK_TO of the side's height, and
    END_ROLL_M at the beltline, quadratically to 0 END_ROLL_BAND_M under it."""
    z = np.asarray(z, float)
    t = np.clip((z - body.clearance_m) / (body.beltline_m - body.clearance_m), 0.0, 1.0)
    roll = np.clip((z - (body.beltline_m - END_ROLL_BAND_M)) / END_ROLL_BAND_M, 0.0, 1.0)
    return END_TUCK_M * np.clip((TUCK_TO - t) / TUCK_TO, 0.0, 1.0) ** 2 + END_ROLL_M * roll ** 2


def corner_inset(body: Body, x, z) -> np.ndarray:
    """How far (m) the side surface lies inside its shaped width at station x (height z) because
    of a rounded corner: the arc r - sqrt(r^2 - d^2), d = how far x is into the last r before
    the end face (its plane less `end_tuck` at z); 0 elsewhere, r at the end face."""
    r = corner_radius_m(body)
    tuck = end_tuck(body, z)
    d = np.clip(np.abs(np.asarray(x, float)) - (body.length_m / 2 - tuck - r), 0.0, r)
    return r - np.sqrt(np.clip(r * r - d * d, 0.0, None))


def end_corner_depth(body: Body, y, z) -> np.ndarray:
    """How far (m, 0..r) in-plane point (y, z) of a front or rear face lies into the corner's
    arc: past the last r of the shaped half-width W/2 - side_inset(z)."""
    r = corner_radius_m(body)
    w = body.width_m / 2 - side_inset(body, z)
    return np.clip(np.abs(np.asarray(y, float)) - (w - r), 0.0, r)


def end_setback(body: Body, y, z) -> np.ndarray:
    """How far (m) the front or rear face lies behind its plane at (y, z): `end_tuck` at z plus
    the corner's arc over `end_corner_depth`; r beyond the shaped half-width."""
    r = corner_radius_m(body)
    d = end_corner_depth(body, y, z)
    return end_tuck(body, z) + r - np.sqrt(np.clip(r * r - d * d, 0.0, None))


def top_half_width(body: Body, x) -> np.ndarray:
    """Half-width of the hood and deck at station x: the shoulder's width at the beltline less
    the corner's arc (the body's outline in plan at the beltline, its ends END_ROLL_M in)."""
    return body.width_m / 2 - SHOULDER_IN_M - corner_inset(body, x, body.beltline_m)


def _crown(xi, eta, across: float, along: float) -> np.ndarray:
    """Hood / deck drop: across * g(xi) eta^2 + along * max(0, 2 xi - 1)^2, g(xi) = xi (2 - xi);
    xi = 0 at the edge by the glass (no drop: the glass meets it at the beltline), 1 at the
    car's end; eta = -1..1 across. 0 at the centre (xi = 1/2, eta = 0)."""
    xi = np.clip(xi, 0.0, 1.0)
    return across * xi * (2.0 - xi) * eta ** 2 + along * np.clip(2.0 * xi - 1.0, 0.0, None) ** 2


def top_drop(body: Body, panel: str, x, y) -> np.ndarray:
    """How far (m) a top panel's surface lies below its rectangle's plane at (x, y): hood and
    deck by `_crown` (eta across the outline `top_half_width`), the roof
    across * eta^2 + along * (2 xi - 1)^2 (1 - eta^2) (the same drop all along its side edges,
    so the side glass keeps a straight top). Never negative: nothing rises above the plane."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if panel == "roof":
        x0, x1, hw = body.x_roof_rear(), body.x_roof_front(), body.width_m / 2 - ROOF_INSET_M
        xi, eta = (x - x0) / (x1 - x0), np.clip(y / hw, -1.0, 1.0)
        a, b = ROOF_CROWN_M
        return a * eta ** 2 + b * (2.0 * np.clip(xi, 0.0, 1.0) - 1.0) ** 2 * (1.0 - eta ** 2)
    eta = np.clip(y / top_half_width(body, x), -1.0, 1.0)
    if panel == "hood":
        x0 = body.x_windshield_base()
        return _crown((x - x0) / (body.length_m / 2 - x0), eta, *HOOD_CROWN_M)
    if panel == "trunk":
        x0 = body.x_rear_glass_base()
        return _crown((x0 - x) / (x0 + body.length_m / 2), eta, *DECK_CROWN_M)
    raise ValueError(panel)


def outline_drop(body: Body, x) -> np.ndarray:
    """Drop of the beltline outline at station x: the hood's or deck's edge (eta = +-1) beside
    them, 0 beside the glass (and on bodies without a deck panel)."""
    x = np.asarray(x, float)
    hw = top_half_width(body, x)
    out = np.where(x > body.x_windshield_base(), top_drop(body, "hood", x, hw), 0.0)
    if body.ranges.rear == "trunk":
        out = np.where(x < body.x_rear_glass_base(), top_drop(body, "trunk", x, hw), out)
    return out


def end_edge_drop(body: Body, face: str, y, z) -> np.ndarray:
    """Drop of a front or rear face's top edge at in-plane (y, z): on the corner's arc the
    outline's drop at the station the point is set back to (so the side and the end face
    agree on their shared split line), on the flat part the hood's or deck's edge at y."""
    sx = 1.0 if face == "front" else -1.0
    x = sx * (body.length_m / 2 - end_setback(body, y, z))
    back = end_setback(body, y, z) - end_tuck(body, z)      # the corner's arc only
    flat = np.zeros_like(back)
    if face == "front":
        flat = top_drop(body, "hood", x, y)
    elif body.ranges.rear == "trunk":
        flat = top_drop(body, "trunk", x, y)
    return np.where(back > 0.0, outline_drop(body, x), flat)


def top_band(body: Body, z, drop) -> np.ndarray:
    """z in the top TOP_BAND_M of a vertical face moved down so the beltline lands `drop` lower
    (linear over the band; identity below it; drop < TOP_BAND_M keeps the order)."""
    z = np.asarray(z, float)
    lo = body.beltline_m - TOP_BAND_M
    return np.where(z > lo, z - np.asarray(drop, float) * (z - lo) / TOP_BAND_M, z)


def on_surface(body: Body, face: str, points) -> np.ndarray:
    """Car-frame point(s) on a face's plane moved onto the shaped body surface, only inwards:

    * sides: in by `side_inset` at their height and `corner_inset` at their station (x, z kept,
      but for the top TOP_BAND_M, lowered to the crowned hood's or deck's edge, `top_band`);
    * front and rear: back by `end_setback` (y, z kept; a point beyond the shaped half-width,
      where there is no surface, comes in to it), the top band lowered as on the sides;
    * top: down by `top_drop` (the hood, deck or roof by where the point lies).
    Damage sites stay TOP_BAND_M clear of every edge, so on them only the depth changes and
    every area seen square-on is the PanelRect's."""
    P = np.array(points, float)
    if face in SIDES:
        x, z = P[..., 0].copy(), P[..., 2].copy()
        P[..., 1] -= SIDES[face] * (side_inset(body, z) + corner_inset(body, x, z))
        P[..., 2] = top_band(body, z, outline_drop(body, x))
    elif face in ("front", "rear"):
        sx = 1.0 if face == "front" else -1.0
        z = P[..., 2].copy()
        w = body.width_m / 2 - side_inset(body, z)
        y = np.clip(P[..., 1], -w, w)
        P[..., 1] = y
        P[..., 0] -= sx * end_setback(body, y, z)
        P[..., 2] = top_band(body, z, end_edge_drop(body, face, y, z))
    elif face == "top":
        panel = np.where(np.abs(P[..., 2] - body.height_m) < 1e-9, 0, np.where(P[..., 0] > 0.0, 1, 2))
        for k, name in enumerate(("roof", "hood", "trunk")):
            m = panel == k
            if np.any(m) and (name != "trunk" or body.ranges.rear == "trunk"):
                P[..., 2] = np.where(m, P[..., 2] - top_drop(body, name, P[..., 0], P[..., 1]), P[..., 2])
    return P


def arch_top_z(body: Body, axle_x: float, x) -> np.ndarray:
    """Top of a wheel arch's cut-out at x: the arch circle (radius `arch_radius_m` about the
    axle at wheel-radius height) over |x - axle| < r, straight down to the ground below it;
    -inf (nothing cut) elsewhere. The cut-out is the keep-out disc and the strip under it."""
    r = body.arch_radius_m()
    dx = np.asarray(x, float) - axle_x
    inside = np.abs(dx) < r
    return np.where(inside, body.wheel_radius_m + np.sqrt(np.clip(r * r - dx * dx, 0.0, None)), -np.inf)


def arch_axles(body: Body, panel: str) -> list[float]:
    """Axle x of the arch cut into a panel (front fenders: the front axle, quarter panels: the rear)."""
    if panel.startswith("front_fender_"):
        return [body.x_front_axle()]
    if panel.startswith("quarter_panel_"):
        return [body.x_rear_axle()]
    return []


def arch_cut_area_m2(body: Body) -> float:
    """Area of one arch cut-out above the sill line, analytic: over |x| < r the strip from the
    clearance up to R + sqrt(r^2 - x^2), i.e. 2 r (R - clearance) + pi r^2 / 2 (the wheel
    radius R is above the clearance on every style). The independent check of the meshed
    fender and quarter-panel areas."""
    r, R, zc = body.arch_radius_m(), body.wheel_radius_m, body.clearance_m
    return 2.0 * r * (R - zc) + math.pi * r * r / 2.0


def steering_wheel_center(body: Body) -> np.ndarray:
    """Behind the windshield base, on the driver's (+y) side, a little above the beltline."""
    return np.array([body.x_windshield_base() - 0.45, DRIVER_SIDE_Y * 0.21 * body.width_m, body.beltline_m + 0.08])


def panels(body: Body) -> dict[str, list[PanelRect]]:
    """Every panel's rectangles, keyed by panel name (see the module docstring)."""
    L2, W2 = body.length_m / 2, body.width_m / 2
    zc, zb, zt, H = body.clearance_m, body.beltline_m, body.z_bumper_top(), body.height_m
    r_arch = body.arch_radius_m()
    plates = plate_centers(body)
    out: dict[str, list[PanelRect]] = {}

    out["front_bumper"] = [_rect("front_bumper", "front", (L2, L2), (-W2, W2), (zc, zb),
                                 [(plates["front"], PLATE_KEEP_OUT_M, "plate")] + _trim_keep_outs(body, "front_bumper"))]
    out["hood"] = [_rect("hood", "top", (body.x_windshield_base(), L2), (-W2, W2), (zb, zb))]
    rear_plate_on_bumper = plates["rear"][2] < zt
    out["rear_bumper"] = [_rect("rear_bumper", "rear", (-L2, -L2), (-W2, W2), (zc, zt),
                                [(plates["rear"], PLATE_KEEP_OUT_M, "plate")] if rear_plate_on_bumper else [])]
    rear_face = _rect(rear_panel_name(body), "rear", (-L2, -L2), (-W2, W2), (zt, zb),
                      ([] if rear_plate_on_bumper else [(plates["rear"], PLATE_KEEP_OUT_M, "plate")])
                      + _trim_keep_outs(body, rear_panel_name(body)))
    if body.ranges.rear == "trunk":
        out["trunk"] = [_rect("trunk", "top", (-L2, body.x_rear_glass_base()), (-W2, W2), (zb, zb)), rear_face]
    else:
        out["tailgate"] = [rear_face]
    if not body.ranges.open_top:
        out["roof"] = [_rect("roof", "top", (body.x_roof_rear(), body.x_roof_front()),
                             (-(W2 - ROOF_INSET_M), W2 - ROOF_INSET_M), (H, H))]

    x_ff, x_qs, x_split = body.x_fender_end(), body.x_quarter_start(), body.x_door_split()
    for side, sy in SIDES.items():
        y = (sy * W2, sy * W2)
        fa = np.array([body.x_front_axle(), sy * W2, body.wheel_radius_m])
        ra = np.array([body.x_rear_axle(), sy * W2, body.wheel_radius_m])
        out[f"front_fender_{side}"] = [_rect(f"front_fender_{side}", side, (x_ff, L2), y, (zc, zb),
                                             [(fa, r_arch, "wheel_arch")])]
        fd, rd = f"front_door_{side}", f"rear_door_{side}"
        if x_split is None:
            out[fd] = [_rect(fd, side, (x_qs, x_ff), y, (zc, zb), _trim_keep_outs(body, fd))]
        else:
            out[fd] = [_rect(fd, side, (x_split, x_ff), y, (zc, zb), _trim_keep_outs(body, fd))]
            out[rd] = [_rect(rd, side, (x_qs, x_split), y, (zc, zb), _trim_keep_outs(body, rd))]
        out[f"quarter_panel_{side}"] = [_rect(f"quarter_panel_{side}", side, (-L2, x_qs), y, (zc, zb),
                                              [(ra, r_arch, "wheel_arch")])]
    return out


def panel_samples(body: Body, name: str, n: int = 9) -> np.ndarray:
    """Car-frame sample points of a panel: an n x n grid over each rectangle, edges included."""
    g = np.linspace(-1.0, 1.0, n)
    pts = []
    for r in panels(body)[name]:
        su, sv = np.meshgrid(g * r.half_u, g * r.half_v)
        pts.append(r.point(su.ravel(), sv.ravel()))
    return np.concatenate(pts)


def adjacency(body: Body) -> dict[str, list[str]]:
    """Panels sharing an edge (glass not counted), symmetric, sorted lists."""
    rear = rear_panel_name(body)
    four = body.ranges.doors == 4
    roof = not body.ranges.open_top
    edges: list[tuple[str, str]] = [("front_bumper", "hood"), ("rear_bumper", rear)]
    for s in SIDES:
        ff, fd, rd, qp = f"front_fender_{s}", f"front_door_{s}", f"rear_door_{s}", f"quarter_panel_{s}"
        edges += [("front_bumper", ff), ("hood", ff), (ff, fd), ("rear_bumper", qp), (rear, qp)]
        edges += [(fd, rd), (rd, qp)] if four else [(fd, qp)]
        if roof:
            edges += [("roof", fd)] + ([("roof", rd)] if four else [])
            if not body.ranges.bed:  # the pickup's cab roof ends at the cab, not at the bed side
                edges += [("roof", qp)]
    if roof and rear == "tailgate" and not body.ranges.bed:
        edges.append(("roof", rear))
    adj: dict[str, set[str]] = {name: set() for name in panels(body)}
    for a, b in edges:
        adj[a].add(b)
        adj[b].add(a)
    return {k: sorted(v) for k, v in sorted(adj.items())}


# ---------------------------------------------------------------------------- placement

class Placement(BaseModel):
    """Where a car stands: footprint centre on the world ground plane and heading."""

    model_config = ConfigDict(extra="forbid")
    x: float
    y: float
    yaw_deg: float


def car_to_world(p: Placement) -> np.ndarray:
    """4x4 transform from the car frame to the world (rotation about world +z by yaw)."""
    a = math.radians(p.yaw_deg)
    M = np.eye(4)
    M[:3, :3] = [[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]]
    M[:3, 3] = [p.x, p.y, 0.0]
    return M


def to_world(p: Placement, points) -> np.ndarray:
    """Car-frame point(s) (..., 3) to world."""
    M = car_to_world(p)
    P = np.asarray(points, float)
    return P @ M[:3, :3].T + M[:3, 3]


def to_car(p: Placement, points) -> np.ndarray:
    """World point(s) (..., 3) to the car frame."""
    M = car_to_world(p)
    P = np.asarray(points, float)
    return (P - M[:3, 3]) @ M[:3, :3]


# ----------------------------------------------------------------------------- colours

# name -> (sRGB hex, share): shares close to recent US new-car colour surveys (rounded, ours).
COLORS: dict[str, tuple[str, float]] = {
    "white": ("#F2F2F0", 0.24), "black": ("#0A0A0C", 0.20), "gray": ("#5A5D60", 0.16),
    "silver": ("#A8ABAE", 0.12), "red": ("#9E1B1B", 0.10), "blue": ("#1F3F7A", 0.10),
    "green": ("#2E5A3A", 0.03), "beige": ("#C8B48F", 0.02), "brown": ("#5A3A24", 0.02),
    "yellow": ("#E0B000", 0.01),
}


# Paint finishes: metallic share of the colours sold as metallics (ours); every paint is
# clear-coated. (metallic, base roughness, coat roughness)
METALLIC: dict[str, float] = {"silver": 0.85, "gray": 0.6, "blue": 0.55, "green": 0.5, "brown": 0.5, "beige": 0.45,
                              "red": 0.3}
COAT_ROUGHNESS = 0.04


def paint_finish(name: str) -> tuple[float, float, float]:
    """(metallic, roughness, coat roughness) of a colour's paint: metallic flake paints are a
    little rougher under the coat than solid ones."""
    m = METALLIC.get(name, 0.0)
    return m, (0.32 if m > 0 else 0.4), COAT_ROUGHNESS


def sample_color(rng: np.random.Generator) -> str:
    names = list(COLORS)
    w = np.array([COLORS[n][1] for n in names])
    return names[int(rng.choice(len(names), p=w / w.sum()))]


def linear_rgb(name: str) -> list[float]:
    """The colour's base colour in linear RGB (the sRGB transfer function inverted)."""
    hx = COLORS[name][0].lstrip("#")
    out = []
    for i in (0, 2, 4):
        c = int(hx[i:i + 2], 16) / 255.0
        out.append(round(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4, 6))
    return out


WHEEL_WIDTH_M = 0.22         # tyre width (car_build)
WHEEL_PROUD_M = 0.02         # the tyre's outer face stands this far outside the side plane (car_build)


def hull_points(body: Body, n: int = 5) -> np.ndarray:
    """Car-frame points spanning everything the builder draws: an n x n grid over every
    panel rectangle (edges included), every side-mirror corner and 16 points round each
    tyre (car_parts.hull_trim_points: the tyres reach the ground and stand proud of the
    sides). Glass, lamps (4 mm proud of the end faces), door handles (12 mm proud of the
    sides) and plates (5 mm) lie within a few
    millimetres of their hull. What "whole car in frame" and the car's projected bbox are
    measured on."""
    from blender_envs.vehicle.car_parts import hull_trim_points   # car_parts builds on this module

    pts = [panel_samples(body, name, n) for name in panels(body)]
    return np.concatenate(pts + [hull_trim_points(body)])
