"""The shared rooftop scene of RealityBench §3.1 as plain data (no bpy).

`sample_roof(rng)` draws every random choice of one roof scene into a `RoofSpec`;
the helpers below turn it into exact world geometry. The Blender builder
(`roof_build.py`) and the scorers both call these helpers, so a label and the pixels
come from the same numbers.

World: z up, metres. The eave runs along world +x, centred on x = 0; the array's roof
plane faces -y (it rises towards +y). Roof frame (`roof_frame`): origin at the eave's
left end on the roof surface, x along the eave, y up the slope, z the outward normal.
The *roof surface* is the plane through the tops of the shingle butts (the highest
points of the shingle relief); between butts the shingles dip up to `course_step_m`
below it.
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

INCH = 0.0254
GENERATOR_VERSION = "roof-1"

# ---- pass indices ---------------------------------------------------------------------
# Every object gets a unique, stable pass_index >= 1 (= its id in the exported mesh).
# 100-199 are reserved for environment-specific objects (tape, gauge, nameplates, ...).
ROOF_PASS_INDEX: dict[str, tuple[int, int]] = {
    "ground": (1, 1),
    "house_body": (2, 2),
    "roof_deck": (3, 4),          # front, back (gable only)
    "shingles": (5, 6),           # front, back (gable only)
    "ridge_cap": (7, 7),
    "fascia": (8, 9),             # eave, back/ridge-side trim
    "gutter": (10, 10),
    "chimney": (11, 11),
    "ladder": (12, 12),
    "roof_junction_box": (13, 13),
    "rake_trim": (14, 15),
    "env_reserved": (100, 199),
    "module_glass": (200, 299),   # 200 + module number (row * cols + col)
    "module_frame": (300, 399),
    "module_jbox": (400, 499),
    "rail": (500, 599),           # 500 + row * 2 + rail
    "lead_wire": (600, 699),
    "trunk_cable": (700, 799),
    "l_foot": (1000, 1999),       # one per attachment, same k for its flashing and bolt
    "flashing": (2000, 2999),
    "lag_bolt": (3000, 3999),
    "clamp": (4000, 4999),
}


def pass_index(category: str, k: int = 0) -> int:
    """The k-th pass index of a category; raises when the table's range is exhausted."""
    lo, hi = ROOF_PASS_INDEX[category]
    if not 0 <= k <= hi - lo:
        raise ValueError(f"{category}: index {k} outside its pass-index range {lo}-{hi}")
    return lo + k


# ---- the spec -------------------------------------------------------------------------

class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ShingleSpec(_M):
    exposure_m: float            # course exposure (5-5.75 in)
    tab_width_m: float           # 3-tab shingle tab (~12 in)
    slot_width_m: float          # cut-out between tabs
    course_step_m: float         # butt thickness: height of the step at each course
    stagger_m: float             # horizontal offset of successive courses
    color: list[float]
    color_jitter: float          # per-tab brightness spread
    shade_seed: int              # seeds the per-tab shade table in the builder


class HouseSpec(_M):
    body: Literal["lap_siding", "brick"]
    wall_color: list[float]
    trim_color: list[float]
    wall_height_m: float         # ground to the top of the eave-side wall
    eave_overhang_m: float       # horizontal overhang of the eave beyond the wall
    rake_overhang_m: float       # overhang of the roof past the side walls
    deck_thickness_m: float      # rafters + sheathing, measured perpendicular to the roof


class ChimneySpec(_M):
    center_xy: list[float]       # world
    width_m: float               # along x
    depth_m: float               # along y
    top_z: float                 # world
    color: list[float]


class LadderSpec(_M):
    x: float                     # world x of the ladder's centre line
    width_m: float
    extension_m: float           # how far the rails reach past the eave contact
    lean_ratio: float            # horizontal run per unit rise (the 4:1 rule ~ 0.25)
    color: list[float]


class ArraySpec(_M):
    rows: int
    cols: int
    orientation: Literal["portrait", "landscape"]
    module_short_m: float
    module_long_m: float
    module_spacing_m: float      # gap between neighbouring modules (mid-clamp width)
    origin_u_m: float            # roof-frame x of the array's lower-left module corner
    origin_v_m: float            # roof-frame y of the same corner
    standoff_m: float            # roof surface -> module underside, perpendicular (3-7 in)
    frame_depth_m: float         # 30-40 mm
    frame_width_m: float         # visible frame lip
    glass_color: list[float]
    cell_color: list[float]
    frame_color: list[float]
    backsheet_color: list[float]
    cells_short: int
    cells_long: int
    rail_height_m: float
    rail_inset_frac: float       # rails at this fraction and 1 - it of the module's slope length
    rail_overhang_m: float       # rail beyond the outer modules
    rafter_spacing_in: Literal[16, 24]
    rafter_offset_m: float       # roof-frame x of the first rafter
    foot_every: int              # an L-foot on every n-th rafter
    flashing_w_m: float
    flashing_l_m: float
    wire_radius_m: float
    lead_sags_m: list[float]     # one per series connection (row-major, cols - 1 per row)
    trunk_sag_m: float


class SunSpec(_M):
    elevation_deg: float
    azimuth_deg: float           # 0 = +y, 90 = +x (clockwise seen from above)


class RoofSpec(_M):
    generator_version: str = GENERATOR_VERSION
    eave_length_m: float
    rafter_length_m: float
    pitch_deg: float
    roof_type: Literal["gable", "shed"]
    shingles: ShingleSpec
    house: HouseSpec
    chimney: ChimneySpec | None
    ladder: LadderSpec
    array: ArraySpec
    sun: SunSpec
    ground_color: list[float]


# ---- sampling -------------------------------------------------------------------------

def _r(x: float, nd: int = 5) -> float:
    return round(float(x), nd)


def _color(rng, lo, hi) -> list[float]:
    return [_r(c, 4) for c in rng.uniform(lo, hi)]


EAVE_MARGIN_M = 0.30      # array lower edge above the eave
RIDGE_SETBACK_M = 0.45    # fire setback below the ridge / beside the rakes
CHIMNEY_CLEARANCE_M = 0.15


def _array_extent(rows, cols, dx, dy, g):
    return cols * dx + (cols - 1) * g, rows * dy + (rows - 1) * g


def sample_roof(rng: np.random.Generator) -> RoofSpec:
    """Draw one roof scene from `rng` only (no global RNG, no clock)."""
    L = _r(rng.uniform(6.0, 14.0), 4)
    R = _r(rng.uniform(4.0, 7.0), 4)
    pitch = _r(rng.uniform(15.0, 45.0), 3)
    roof_type = "gable" if rng.random() < 0.65 else "shed"
    shingle_base = np.array(
        [[0.09, 0.09, 0.09], [0.22, 0.2, 0.18], [0.16, 0.1, 0.08], [0.12, 0.14, 0.16], [0.2, 0.16, 0.12]]
    )[int(rng.integers(5))]
    shingles = ShingleSpec(
        exposure_m=_r(rng.uniform(5.0, 5.75) * INCH),
        tab_width_m=_r(rng.uniform(11.75, 12.25) * INCH),
        slot_width_m=_r(rng.uniform(0.2, 0.375) * INCH),
        course_step_m=_r(rng.uniform(0.004, 0.007)),
        stagger_m=_r(rng.choice([0.5, 1.0 / 3.0]) * 12.0 * INCH),
        color=[_r(c * f, 4) for c, f in zip(shingle_base, rng.uniform(0.85, 1.15, 3))],
        color_jitter=_r(rng.uniform(0.08, 0.25), 4),
        shade_seed=int(rng.integers(0, 2**31 - 1)),
    )
    body = "lap_siding" if rng.random() < 0.6 else "brick"
    wall_color = (_color(rng, [0.45, 0.45, 0.42], [0.85, 0.85, 0.8]) if body == "lap_siding"
                  else _color(rng, [0.35, 0.12, 0.08], [0.55, 0.25, 0.16]))
    house = HouseSpec(
        body=body, wall_color=wall_color, trim_color=_color(rng, [0.75, 0.75, 0.72], [0.95, 0.95, 0.93]),
        wall_height_m=_r(rng.uniform(2.6, 6.0), 4),
        eave_overhang_m=_r(rng.uniform(0.3, 0.6), 4),
        rake_overhang_m=_r(rng.uniform(0.15, 0.4), 4),
        deck_thickness_m=_r(rng.uniform(0.16, 0.22), 4),
    )

    # array: shrink until it fits inside the setbacks
    rows, cols = int(rng.integers(1, 4)), int(rng.integers(2, 7))
    orientation = "portrait" if rng.random() < 0.7 else "landscape"
    ms, ml = _r(rng.uniform(1.0, 1.13), 4), _r(rng.uniform(1.7, 2.3), 4)
    dx, dy = (ms, ml) if orientation == "portrait" else (ml, ms)
    g = _r(rng.uniform(0.018, 0.025), 4)
    while _array_extent(rows, cols, dx, dy, g)[0] > L - 2 * RIDGE_SETBACK_M and cols > 2:
        cols -= 1
    while _array_extent(rows, cols, dx, dy, g)[1] > R - EAVE_MARGIN_M - RIDGE_SETBACK_M and rows > 1:
        rows -= 1
    W, H = _array_extent(rows, cols, dx, dy, g)
    u0 = _r(rng.uniform(RIDGE_SETBACK_M, max(RIDGE_SETBACK_M, L - RIDGE_SETBACK_M - W)), 4)
    v0 = _r(rng.uniform(EAVE_MARGIN_M, max(EAVE_MARGIN_M, R - RIDGE_SETBACK_M - H)), 4)
    spacing_in = int(rng.choice([16, 24]))
    black = rng.random() < 0.4
    array = ArraySpec(
        rows=rows, cols=cols, orientation=orientation, module_short_m=ms, module_long_m=ml,
        module_spacing_m=g, origin_u_m=u0, origin_v_m=v0,
        standoff_m=_r(rng.uniform(3.0, 7.0) * INCH),
        frame_depth_m=_r(rng.uniform(0.030, 0.040)),
        frame_width_m=_r(rng.uniform(0.012, 0.022)),
        glass_color=_color(rng, [0.9, 0.93, 0.95], [0.97, 0.98, 1.0]),
        cell_color=(_color(rng, [0.01, 0.01, 0.015], [0.03, 0.03, 0.04]) if black
                    else _color(rng, [0.02, 0.04, 0.1], [0.05, 0.08, 0.2])),
        frame_color=(_color(rng, [0.03, 0.03, 0.03], [0.06, 0.06, 0.06]) if black or rng.random() < 0.3
                     else _color(rng, [0.6, 0.6, 0.62], [0.8, 0.8, 0.82])),
        backsheet_color=(_color(rng, [0.03, 0.03, 0.03], [0.05, 0.05, 0.05]) if black
                         else _color(rng, [0.85, 0.85, 0.85], [0.95, 0.95, 0.95])),
        cells_short=6, cells_long=int(rng.choice([10, 12])),
        rail_height_m=_r(rng.uniform(0.035, 0.045)),
        rail_inset_frac=_r(rng.uniform(0.2, 0.3), 4),
        rail_overhang_m=_r(rng.uniform(0.05, 0.15), 4),
        rafter_spacing_in=spacing_in,
        rafter_offset_m=_r(rng.uniform(0.0, spacing_in * INCH)),
        foot_every=int(rng.choice([1, 2])) if spacing_in == 16 else 1,
        flashing_w_m=_r(9 * INCH), flashing_l_m=_r(12 * INCH),
        wire_radius_m=_r(rng.uniform(0.003, 0.0045)),
        lead_sags_m=[_r(s) for s in rng.uniform(0.01, 0.14, rows * (cols - 1))],
        trunk_sag_m=_r(rng.uniform(0.01, 0.08)),
    )

    elev = _r(rng.uniform(20.0, 70.0), 3)
    azim = _r(rng.uniform(0.0, 360.0), 3)

    spec_wo = dict(eave_length_m=L, rafter_length_m=R, pitch_deg=pitch, roof_type=roof_type,
                   shingles=shingles, house=house, array=array)
    # chimney (~50%): a vertical box through the roof, clear of the array
    chimney = None
    want_chimney = rng.random() < 0.5
    cw, cd = _r(rng.uniform(0.45, 0.9), 4), _r(rng.uniform(0.45, 0.8), 4)
    c_height = float(rng.uniform(0.6, 1.2))
    cand = rng.uniform(0.0, 1.0, size=(80, 2))
    if want_chimney:
        chimney = _place_chimney(spec_wo, cw, cd, c_height, cand, _color(rng, [0.35, 0.12, 0.08], [0.6, 0.3, 0.2]))

    # ladder: at an eave position beside the array where possible
    ladder_w = _r(rng.uniform(0.4, 0.5), 4)
    lo, hi = 0.6, L - 0.6
    left = (lo, u0 - 0.3)
    right = (u0 + W + 0.3, hi)
    spans = [s for s in (left, right) if s[1] - s[0] > 0.1]
    pick = rng.uniform(0.0, 1.0)
    side = rng.integers(0, 2)
    if spans:
        a, b = spans[int(side) % len(spans)]
    else:
        a, b = lo, hi
    ladder_u = a + pick * (b - a)
    ladder = LadderSpec(
        x=_r(ladder_u - L / 2, 4), width_m=ladder_w,
        extension_m=_r(rng.uniform(0.8, 1.1), 4), lean_ratio=_r(rng.uniform(0.22, 0.3), 4),
        color=_color(rng, [0.5, 0.5, 0.5], [0.75, 0.75, 0.72]) if rng.random() < 0.5
        else _color(rng, [0.8, 0.6, 0.05], [0.95, 0.75, 0.15]),
    )
    return RoofSpec(
        eave_length_m=L, rafter_length_m=R, pitch_deg=pitch, roof_type=roof_type,
        shingles=shingles, house=house, chimney=chimney, ladder=ladder, array=array,
        sun=SunSpec(elevation_deg=elev, azimuth_deg=azim),
        ground_color=_color(rng, [0.12, 0.16, 0.06], [0.3, 0.32, 0.16]),
    )


def _place_chimney(s: dict, cw, cd, c_height, cand, color) -> ChimneySpec | None:
    """First candidate (fractions of the roof footprint) whose footprint misses the array."""
    L, R, p = s["eave_length_m"], s["rafter_length_m"], math.radians(s["pitch_deg"])
    run = R * math.cos(p)
    a = s["array"]
    dx, dy = _module_dxdy(a)
    W, H = _array_extent(a.rows, a.cols, dx, dy, a.module_spacing_m)
    depth = 2 * run if s["roof_type"] == "gable" else run
    for fx, fy in cand:
        # inside the walls, so the stack rises from the house and never hangs below the eaves
        ro, eo = s["house"].rake_overhang_m + 0.1, s["house"].eave_overhang_m + 0.1
        cx = -L / 2 + ro + fx * (L - 2 * ro - cw) + cw / 2
        cy = eo + fy * (depth - 2 * eo - cd) + cd / 2
        # footprint on the front plane in roof-frame (u, v)
        u_lo, u_hi = cx + L / 2 - cw / 2, cx + L / 2 + cw / 2
        v_lo, v_hi = (cy - cd / 2) / math.cos(p), (cy + cd / 2) / math.cos(p)
        c = CHIMNEY_CLEARANCE_M
        if (u_hi > a.origin_u_m - c and u_lo < a.origin_u_m + W + c
                and v_hi > a.origin_v_m - c and v_lo < a.origin_v_m + H + c):
            continue
        if abs(cy - run) < cd / 2 + 0.1 and s["roof_type"] == "gable":
            continue  # keep it off the ridge line
        top = _roof_z_at_y(s, cy + cd / 2) + c_height
        return ChimneySpec(center_xy=[_r(cx, 4), _r(cy, 4)], width_m=cw, depth_m=cd, top_z=_r(top, 4), color=color)
    return None


# ---- exact geometry -------------------------------------------------------------------

def _get(spec, key):
    return spec[key] if isinstance(spec, dict) else getattr(spec, key)


def _module_dxdy(a: ArraySpec) -> tuple[float, float]:
    """Module extent along the eave (x) and up the slope (y)."""
    return (a.module_short_m, a.module_long_m) if a.orientation == "portrait" else (a.module_long_m, a.module_short_m)


def eave_height(spec) -> float:
    """World z of the roof surface at the eave edge."""
    h = _get(spec, "house")
    p = math.radians(_get(spec, "pitch_deg"))
    return h.wall_height_m + h.deck_thickness_m / math.cos(p) - h.eave_overhang_m * math.tan(p)


def _roof_z_at_y(spec, y: float) -> float:
    """World z of the roof surface above world y (either plane of a gable)."""
    p = math.radians(_get(spec, "pitch_deg"))
    run = _get(spec, "rafter_length_m") * math.cos(p)
    if _get(spec, "roof_type") == "gable" and y > run:
        y = 2 * run - y
    return eave_height(spec) + min(max(y, 0.0), run) * math.tan(p)


def roof_run(spec: RoofSpec) -> float:
    return spec.rafter_length_m * math.cos(math.radians(spec.pitch_deg))


def roof_frame(spec: RoofSpec, plane: Literal["front", "back"] = "front") -> np.ndarray:
    """4x4 roof frame: origin at the eave's left end on the roof surface; columns x along
    the eave, y up the slope, z the outward normal. `back` is the gable's other plane
    (its x runs along world -x so the frame stays right-handed)."""
    p = math.radians(spec.pitch_deg)
    c, s = math.cos(p), math.sin(p)
    M = np.eye(4)
    L = spec.eave_length_m
    if plane == "front":
        M[:3, 0], M[:3, 1], M[:3, 2] = [1, 0, 0], [0, c, s], [0, -s, c]
        M[:3, 3] = [-L / 2, 0.0, eave_height(spec)]
    else:
        if spec.roof_type != "gable":
            raise ValueError("a shed roof has no back plane")
        M[:3, 0], M[:3, 1], M[:3, 2] = [-1, 0, 0], [0, -c, s], [0, s, c]
        M[:3, 3] = [L / 2, 2 * roof_run(spec), eave_height(spec)]
    return M


def roof_to_world(spec: RoofSpec, uvw, plane: str = "front") -> np.ndarray:
    """Roof-frame points (..., 3) -> world points."""
    M = roof_frame(spec, plane)
    uvw = np.asarray(uvw, float)
    return uvw @ M[:3, :3].T + M[:3, 3]


def module_gap_m(spec: RoofSpec) -> float:
    """Perpendicular distance from the roof surface to the module underside (frame bottom)."""
    return spec.array.standoff_m


def module_rect_uv(spec: RoofSpec, row: int, col: int) -> tuple[float, float, float, float]:
    """(u_lo, v_lo, u_hi, v_hi) of a module's outer frame in the roof frame."""
    a = spec.array
    if not (0 <= row < a.rows and 0 <= col < a.cols):
        raise IndexError(f"module ({row}, {col}) outside the {a.rows}x{a.cols} array")
    dx, dy = _module_dxdy(a)
    u = a.origin_u_m + col * (dx + a.module_spacing_m)
    v = a.origin_v_m + row * (dy + a.module_spacing_m)
    return u, v, u + dx, v + dy


def module_corners(spec: RoofSpec, row: int, col: int) -> np.ndarray:
    """(4, 3) world corners of the module underside: lower-left, lower-right, upper-right,
    upper-left (lower = downslope)."""
    u0, v0, u1, v1 = module_rect_uv(spec, row, col)
    z = module_gap_m(spec)
    return roof_to_world(spec, [[u0, v0, z], [u1, v0, z], [u1, v1, z], [u0, v1, z]])


def module_front_bottom_edge(spec: RoofSpec, row: int, col: int) -> np.ndarray:
    """(2, 3) world endpoints of the frame's downslope front-bottom edge: the edge a tape
    measure standing on the roof in front of the module reaches."""
    return module_corners(spec, row, col)[:2]


def module_top_z(spec: RoofSpec) -> float:
    """Roof-frame z of the frame's top (the glass is a hair below)."""
    return module_gap_m(spec) + spec.array.frame_depth_m


def rail_positions(spec: RoofSpec) -> list[tuple[int, int, float, float, float]]:
    """(row, rail, v, u_lo, u_hi) of every rail (roof frame; rails run along x)."""
    a = spec.array
    _, dy = _module_dxdy(a)
    u_lo = a.origin_u_m - a.rail_overhang_m
    u_hi = module_rect_uv(spec, 0, a.cols - 1)[2] + a.rail_overhang_m
    out = []
    for r in range(a.rows):
        v0 = module_rect_uv(spec, r, 0)[1]
        for k, f in enumerate((a.rail_inset_frac, 1.0 - a.rail_inset_frac)):
            out.append((r, k, v0 + f * dy, u_lo, u_hi))
    return out


def rafter_xs(spec: RoofSpec) -> np.ndarray:
    """Roof-frame x of every rafter under the front plane."""
    s = spec.array.rafter_spacing_in * INCH
    return spec.array.rafter_offset_m + s * np.arange(int((spec.eave_length_m - spec.array.rafter_offset_m) / s) + 1)


def l_foot_positions(spec: RoofSpec) -> list[tuple[int, int, float, float]]:
    """(row, rail, u, v) of every L-foot: on every `foot_every`-th rafter under each rail."""
    xs = rafter_xs(spec)
    out = []
    for r, k, v, u_lo, u_hi in rail_positions(spec):
        inside = xs[(xs >= u_lo + 0.04) & (xs <= u_hi - 0.04)]
        for u in inside[:: spec.array.foot_every]:
            out.append((r, k, float(u), float(v)))
    return out


L_FOOT_LEG_OFFSET_M = 0.023  # the L-foot leg sits this far downslope of the rail centre
LAG_BOLT_OFFSET_M = 0.066    # the lag bolt sits this far downslope of the rail centre
FLASHING_THICKNESS_M = 0.0012


def clamp_positions(spec: RoofSpec) -> list[tuple[str, int, int, float, float]]:
    """(kind, row, rail, u, v) of end and mid clamps on the frames above each rail."""
    a = spec.array
    out = []
    for r, k, v, _, _ in rail_positions(spec):
        u_first = module_rect_uv(spec, r, 0)[0]
        u_last = module_rect_uv(spec, r, a.cols - 1)[2]
        out.append(("end", r, k, u_first + 0.02, v))
        for c in range(a.cols - 1):
            out.append(("mid", r, k, module_rect_uv(spec, r, c)[2] + a.module_spacing_m / 2, v))
        out.append(("end", r, k, u_last - 0.02, v))
    return out


JBOX_SIZE = (0.12, 0.1, 0.025)   # x, y, height below the laminate


def jbox_center_uv(spec: RoofSpec, row: int, col: int) -> tuple[float, float]:
    u0, v0, u1, v1 = module_rect_uv(spec, row, col)
    return (u0 + u1) / 2, v1 - 0.12


def laminate_bottom_z(spec: RoofSpec) -> float:
    """Roof-frame z of the backsheet (underside of the laminate)."""
    return module_top_z(spec) - 0.008


def _sag_curve(p0: np.ndarray, p1: np.ndarray, sag: float, r: float, n: int = 17) -> np.ndarray:
    """Roof-frame polyline from p0 to p1 sagging `sag` below the chord (parabola), resting
    on the roof (axis at z = r) where it would go below."""
    t = np.linspace(0.0, 1.0, n)[:, None]
    pts = p0 + t * (p1 - p0)
    pts[:, 2] -= 4 * sag * (t[:, 0] * (1 - t[:, 0]))
    pts[:, 2] = np.maximum(pts[:, 2], r)
    return pts


def wire_paths(spec: RoofSpec) -> dict[str, np.ndarray]:
    """World polylines (N, 3) of the wire axes: `lead_r{row}_c{col}` joins module (row, col)
    to (row, col + 1); `trunk_r{row}` runs from the row's last module to the roof junction
    box. A wire touches the roof where its axis is at z = wire_radius_m."""
    a = spec.array
    r_w = a.wire_radius_m
    zb = laminate_bottom_z(spec) - JBOX_SIZE[2] + 0.005
    out: dict[str, np.ndarray] = {}
    k = 0
    for r in range(a.rows):
        for c in range(a.cols - 1):
            u0, v = jbox_center_uv(spec, r, c)
            u1, _ = jbox_center_uv(spec, r, c + 1)
            p0 = np.array([u0 + JBOX_SIZE[0] / 2, v, zb])
            p1 = np.array([u1 - JBOX_SIZE[0] / 2, v, zb])
            out[f"lead_r{r}_c{c}"] = roof_to_world(spec, _sag_curve(p0, p1, a.lead_sags_m[k], r_w))
            k += 1
    jb_u, jb_v = roof_junction_box_uv(spec)
    for r in range(a.rows):
        u0, v = jbox_center_uv(spec, r, a.cols - 1)
        p0 = np.array([u0 + JBOX_SIZE[0] / 2, v, zb])
        x_side = jb_u + 0.02 * r
        p1 = np.array([x_side, v, zb])
        run1 = _sag_curve(p0, p1, a.trunk_sag_m, r_w, 9)
        p2 = np.array([x_side, jb_v + 0.09, r_w + 0.002])
        run2 = _sag_curve(p1, p2, 0.0, r_w, 9)[1:]
        out[f"trunk_r{r}"] = roof_to_world(spec, np.vstack([run1, run2]))
    return out


def roof_junction_box_uv(spec: RoofSpec) -> tuple[float, float]:
    """Roof-frame (u, v) centre of the roof-mounted junction box right of the array
    (the rake setback leaves room for it)."""
    a = spec.array
    u_hi = module_rect_uv(spec, 0, a.cols - 1)[2]
    return min(u_hi + a.rail_overhang_m + 0.15, spec.eave_length_m - 0.12), a.origin_v_m + 0.15


def sun_direction(spec: RoofSpec) -> np.ndarray:
    """Unit world vector towards the sun (azimuth 0 = +y, 90 = +x)."""
    e, a = math.radians(spec.sun.elevation_deg), math.radians(spec.sun.azimuth_deg)
    return np.array([math.sin(a) * math.cos(e), math.cos(a) * math.cos(e), math.sin(e)])
