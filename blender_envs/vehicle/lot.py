"""The shared parking lot of the vehicle environments, as data (no bpy).

World frame: z up, metres. The subject car stands in a painted bay at the origin, its
bay row along world x, nose to +y or -y (`Placement.yaw_deg` 90 or -90, at most +-4 deg of
sloppy parking). Bay rows come in head-to-head pairs (two 6 m bays, then a 7 m aisle),
bays 2.7 m wide. Kerbs run round the lot; a building (facade with windows and a door)
stands behind one long side and a chain-link style fence behind the other; lamp posts
stand at the row ends and trees line the other three sides. The sun and a Nishita sky
are drawn per scene as on the roofs
(`blender_envs.solar.roof_spec.SunSpec`: elevation 20-70 deg, azimuth uniform).

The clear disc
--------------
Every bay that reaches into the disc of radius `clear_radius_m` about the subject is
left empty by `sample_lot` (vehicle-8's neighbours, below, may fill it), and every
distractor car's footprint and every lamp post lies outside it.
The photographer stands inside the disc (the field pose keeps within it), so nothing
can stand between the phone and the subject: the line from any point of the disc to
the subject lies in the disc (it is convex). "Whole car in frame" is then exact from
geometry without a ray cast; tests check the layout and a rendered mask.

Distractors
-----------
10-18 parked cars fill bays nearest the disc first (distance-weighted draw). Every lot has
at least one distractor of the subject's body style and one of its colour (so "the
silver sedan" is the subject, not just a silver car or a sedan), the rest are drawn as the
subject is (style uniform, colour by US shares).

Far cars (vehicle-6)
--------------------
A share `FAR_FILL` of the free bays the distractors left takes a parked "far car": a copy of
one distractor's body and paint (`FarCar.template`), built once as a merged, decimated mesh
and instanced (lot_build), so the rows beyond the disc read as a busy lot at little cost. They
stand outside the clear disc like the distractors, so no label changes; they are drawn after
every earlier draw, so the subject, distractors, lamps, sun and wear are those of vehicle-5.

Neighbours (vehicle-8)
----------------------
car_view and damage_view park cars inside the disc too (`sample_neighbours`, drawn from a
stage generator of their own after every earlier draw): a share `NEIGHBOUR_FILL` of the bays
in the disc, full cars (`LotSpec.neighbours`) in the subject's row and the facing row within
`NEAR_BAYS` bays of it, far-car copies elsewhere (`LotSpec.inner_far_cars`), so the subject
stands in a full lot. The disc then no longer proves a clear view; the field pose samplers
check each pose instead
(`sightline.pose_problem`: the camera stands clear of every car and lamp, and no car's box
meets a sight line to the subject). car_view keeps the face a pose requests, so its lot leaves
empty runs (`sample_empty_runs`: 2-4 bays either side of the subject in its row, and the bay
facing it) from which every face can be photographed; a neighbour that would be the subject's
twin (style and colour) is repainted. car_plate and ro_board keep the clear disc.
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from blender_envs.solar.roof_spec import SunSpec
from blender_envs.vehicle.body import Body, Placement, sample_body, sample_color, to_world
from blender_envs.vehicle.plates import Plate, sample_plate

BAY_WIDTH_M = 2.7
BAY_LENGTH_M = 6.0
AISLE_M = 7.0
ROW_PAIR_M = 2 * BAY_LENGTH_M + AISLE_M     # 19 m from one head-to-head pair to the next
LINE_WIDTH_M = 0.10
KERB_HEIGHT_M = 0.15
KERB_WIDTH_M = 0.30
FAR_TREE_BELT_M = (25.0, 70.0)   # beyond the lot's edge
SKYLINE_M = (90.0, 220.0)         # distance of the distant buildings from the lot centre
SKYLINE_BLOCKS = (14, 26)
LOT_MARGIN_M = 14.0          # lot half-size = clear radius + this
DISTRACTORS = (10, 18)        # inclusive range of parked distractor cars
SAME_STYLE_SHARE = 0.25      # each further distractor: subject's style with this chance
SAME_COLOR_SHARE = 0.25      # ... and the subject's colour with this chance
PARK_JITTER_M = 0.15         # lateral / longitudinal slop of a parked car in its bay
PARK_YAW_SD_DEG = 1.5
PARK_YAW_MAX_DEG = 4.0       # the slop is clipped here, so a parked car never leaves its bay by more than
BAY_CLEAR_MARGIN_M = 0.6     # ... this margin: bays this far outside the clear disc take distractors
FAR_FILL = (0.55, 0.85)      # share of the bays left free that far cars take (uniform per lot)
REVERSE_SHARE = 0.15         # parked nose-out (reversed in)
NEIGHBOUR_FILL = (0.6, 0.9)  # vehicle-8: share of the disc's bays that neighbours take (uniform per lot)
NEAR_BAYS = 3                # ... full cars within this many bays of the subject in its row and the facing row
EMPTY_RUN_BAYS = (2, 3, 4)    # car_view: empty bays either side of the subject in its row, each side ...
EMPTY_RUN_P = (0.35, 0.4, 0.25)   # ... drawn independently with these chances ("clear_bays" stage)
NEIGHBOUR_PREFIX = "nb{i}_"  # object names of neighbour i (0-based, LotSpec.neighbours; lot_build)


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LotCar(_M):
    """One parked car: body, paint, where it stands and its plate."""

    body: Body
    color: str
    placement: Placement
    plate: Plate


class FarCar(_M):
    """A parked car beyond the distractors: `template`'s body and paint (a lot.cars index >= 1)
    in another free bay. Its plates are plain (merged before plate_build prints the
    template's): at that distance no serial reads."""

    template: int
    placement: Placement


class Bay(_M):
    """One painted bay: centre, the direction its cars face (+1: nose to +y, -1: to -y)."""

    center: list[float]
    facing: Literal[1, -1]


class Backdrop(_M):
    """Behind one long side of the lot (world y = +-half_y beyond the kerb)."""

    kind: Literal["building", "fence"]
    side: Literal[1, -1]         # +1: behind y = +half_y
    setback_m: float             # from the kerb line
    height_m: float
    color: list[float]
    window_rows: int             # building only (0 for a fence)


class LampPost(_M):
    xy: list[float]
    height_m: float


class Tree(_M):
    """A tree on the verge beyond the kerbs (cone or round crown on a trunk)."""

    xy: list[float]
    trunk_height_m: float
    crown: Literal["cone", "sphere"]
    crown_radius_m: float
    crown_height_m: float        # cone only (0 for a sphere)
    lobes: list[list[float]] = []   # vehicle-6, round crowns: clumps (dx, dy, dz, radius) about the crown centre


class SkylineBlock(_M):
    """A distant building beyond the trees (vehicle-6): an axis-aligned block on the ground,
    so the horizon is not a bare line of grass against the sky."""

    xy: list[float]
    size_m: list[float]          # x, y extent and height
    color: list[float]


class LotSpec(_M):
    """The whole lot: layout, materials, lights, and the cars (cars[0] is the subject)."""

    clear_radius_m: float
    half_x_m: float
    half_y_m: float
    row_ys: list[float]          # centre line of every bay row
    bays: list[Bay]
    asphalt_color: list[float]
    line_color: list[float]
    kerb_color: list[float]
    verge_color: list[float]     # beyond the kerbs
    backdrops: list[Backdrop]
    lamps: list[LampPost]
    trees: list[Tree]
    sun: SunSpec
    cars: list[LotCar]
    wear_offset: list[float] = [0.0, 0.0, 0.0]   # where this lot's asphalt wear pattern starts (lot_build)
    far_cars: list[FarCar] = []                   # vehicle-6: the other free bays' parked cars
    far_trees: list[Tree] = []                    # vehicle-6: a denser belt of trees 25-70 m beyond the lot
    skyline: list[SkylineBlock] = []              # vehicle-6: distant buildings
    neighbours: list[LotCar] = []                 # vehicle-8: full cars parked in the disc (car_view, damage_view)
    inner_far_cars: list[FarCar] = []             # vehicle-8: far-car copies parked in the disc's other bays

    @property
    def subject(self) -> LotCar:
        return self.cars[0]


def _r(x, nd: int = 4) -> float:
    return round(float(x), nd) + 0.0


def _color(rng, lo, hi) -> list[float]:
    return [_r(v) for v in rng.uniform(lo, hi)]


def footprint_corners(car: LotCar) -> np.ndarray:
    """(4, 3) world corners of the car's length x width footprint on the ground."""
    L2, W2 = car.body.length_m / 2, car.body.width_m / 2
    return to_world(car.placement, [[L2, W2, 0.0], [L2, -W2, 0.0], [-L2, -W2, 0.0], [-L2, W2, 0.0]])


def bay_corners(bay: Bay) -> np.ndarray:
    x, y = bay.center
    w, h = BAY_WIDTH_M / 2, BAY_LENGTH_M / 2
    return np.array([[x - w, y - h], [x + w, y - h], [x + w, y + h], [x - w, y + h]])


def rect_disc_distance(corners_xy: np.ndarray, radius_center=(0.0, 0.0)) -> float:
    """Distance from a point to an axis-aligned rectangle given by its corners (0 inside)."""
    c = np.asarray(corners_xy, float)[:, :2]
    lo, hi = c.min(axis=0), c.max(axis=0)
    p = np.asarray(radius_center, float)
    d = np.maximum(np.maximum(lo - p, p - hi), 0.0)
    return float(np.hypot(*d))


def _slop(rng: np.random.Generator) -> float:
    return float(np.clip(rng.normal(0.0, PARK_YAW_SD_DEG), -PARK_YAW_MAX_DEG, PARK_YAW_MAX_DEG))


def row_layout(half_y: float) -> list[float]:
    """Bay-row centre lines: the subject's row at y = 0 paired head-to-head with y = +6,
    then pairs every 19 m both ways, all within the lot."""
    ys = []
    for k in range(-10, 11):
        for off in (0.0, BAY_LENGTH_M):
            y = k * ROW_PAIR_M + off
            if abs(y) + BAY_LENGTH_M / 2 <= half_y:
                ys.append(y)
    return sorted(ys)


def sample_trees(rng: np.random.Generator, half_x: float, half_y: float, building_side: int) -> list[Tree]:
    """A broken line of trees 4-12 m beyond the kerbs on the three sides without the
    building (behind the fence and along both short ends), one every 5-11 m."""
    out = []
    edges = [(-building_side, "y"), (1, "x"), (-1, "x")]
    for sgn, axis in edges:
        span = half_x if axis == "y" else half_y
        t = -span - 10.0 + float(rng.uniform(0.0, 5.0))
        while t < span + 10.0:
            off = (half_y if axis == "y" else half_x) + float(rng.uniform(4.0, 12.0))
            xy = [t, sgn * off] if axis == "y" else [sgn * off, t]
            cone = rng.random() < 0.35
            out.append(Tree(xy=[_r(xy[0], 3), _r(xy[1], 3)], trunk_height_m=_r(rng.uniform(1.5, 3.5), 3),
                            crown="cone" if cone else "sphere",
                            crown_radius_m=_r(rng.uniform(1.5, 2.8) if cone else rng.uniform(2.0, 4.0), 3),
                            crown_height_m=_r(rng.uniform(5.0, 10.0) if cone else 0.0, 3)))
            t += float(rng.uniform(5.0, 11.0))
    return out


def sample_far_cars(rng: np.random.Generator, bays: list[Bay], n_templates: int) -> list[FarCar]:
    """Fill a `FAR_FILL` share of `bays` (the free bays the distractors left, all outside the
    clear disc by BAY_CLEAR_MARGIN_M) with copies of the distractors 1..n_templates, parked
    with the distractors' slop; in bay order."""
    if not bays or n_templates < 1:
        return []
    share = float(rng.uniform(*FAR_FILL))
    m = int(round(share * len(bays)))
    out = []
    for j in sorted(int(i) for i in rng.choice(len(bays), size=m, replace=False)):
        bay = bays[j]
        nose = bay.facing * (1 if rng.random() < 1.0 - REVERSE_SHARE else -1)
        p = Placement(x=_r(bay.center[0] + rng.uniform(-PARK_JITTER_M, PARK_JITTER_M), 3),
                      y=_r(bay.center[1] + rng.uniform(-PARK_JITTER_M, PARK_JITTER_M), 3),
                      yaw_deg=_r(90.0 * nose + _slop(rng), 3))
        out.append(FarCar(template=int(rng.integers(1, n_templates + 1)), placement=p))
    return out


def crown_lobes(rng: np.random.Generator, radius: float) -> list[list[float]]:
    """5-8 clumps that make a round crown lumpy: one central, the rest round it, each inside
    the crown's sphere (clump centre + clump radius <= 1.05 crown radius)."""
    n = int(rng.integers(5, 9))
    out = [[0.0, 0.0, 0.0, _r(0.72 * radius, 3)]]
    for _ in range(n - 1):
        rr = float(rng.uniform(0.38, 0.6)) * radius
        d = rng.normal(size=3)
        d = d / np.linalg.norm(d) * np.array([1.0, 1.0, 0.7])
        c = d * (1.05 * radius - rr) * float(rng.uniform(0.7, 1.0))
        out.append([_r(c[0], 3), _r(c[1], 3), _r(c[2], 3), _r(rr, 3)])
    return out


def sample_surroundings(rng: np.random.Generator, lot_half_x: float, lot_half_y: float, trees: list[Tree],
                        building_side: int) -> tuple[list[Tree], list[Tree], list[SkylineBlock]]:
    """vehicle-6 draws, after every vehicle-5 draw: lobes for the round crowns, a belt of far
    trees round the lot (not in front of the building), distant blocks on the horizon."""
    trees = [t.model_copy(update={"lobes": crown_lobes(rng, t.crown_radius_m)}) if t.crown == "sphere" else t
             for t in trees]
    far = []
    for _ in range(int(rng.integers(50, 80))):
        a = float(rng.uniform(0.0, 2.0 * math.pi))
        dx, dy = math.cos(a), math.sin(a)
        edge = min(lot_half_x / max(abs(dx), 1e-9), lot_half_y / max(abs(dy), 1e-9))
        r = edge + float(rng.uniform(*FAR_TREE_BELT_M))
        xy = [r * dx, r * dy]
        if building_side * xy[1] > lot_half_y and abs(xy[0]) < lot_half_x + 14.0 and \
                building_side * xy[1] < lot_half_y + 30.0:
            continue                                    # the building stands there
        cone = rng.random() < 0.3
        rad = float(rng.uniform(1.8, 3.0) if cone else rng.uniform(3.0, 5.5))
        t = Tree(xy=[_r(xy[0], 3), _r(xy[1], 3)], trunk_height_m=_r(rng.uniform(2.0, 4.0), 3),
                 crown="cone" if cone else "sphere", crown_radius_m=_r(rad, 3),
                 crown_height_m=_r(rng.uniform(8.0, 14.0) if cone else 0.0, 3))
        far.append(t if cone else t.model_copy(update={"lobes": crown_lobes(rng, rad)}))
    blocks = []
    for _ in range(int(rng.integers(SKYLINE_BLOCKS[0], SKYLINE_BLOCKS[1] + 1))):
        a = float(rng.uniform(0.0, 2.0 * math.pi))
        r = float(rng.uniform(*SKYLINE_M))
        g = float(rng.uniform(0.35, 0.75))
        tint = rng.uniform([0.95, 0.93, 0.9], [1.05, 1.03, 1.05])
        blocks.append(SkylineBlock(xy=[_r(r * math.cos(a), 3), _r(r * math.sin(a), 3)],
                                   size_m=[_r(v, 3) for v in rng.uniform([12.0, 10.0, 6.0], [45.0, 30.0, 22.0])],
                                   color=[_r(g * t) for t in tint]))
    return trees, far, blocks


def sample_lot(rng: np.random.Generator, clear_radius_m: float, subject_body: Body | None = None,
               subject_color: str | None = None) -> LotSpec:
    """Draw the lot around a subject car (drawn here when not given) and its distractors.

    Draw order is fixed: subject, layout and materials, distractors, lamps, backdrops, trees, sun, wear,
    then (vehicle-6) the far cars, crown lobes, far trees and skyline.
    """
    body = subject_body if subject_body is not None else sample_body(rng)
    color = subject_color if subject_color is not None else sample_color(rng)
    facing = 1 if rng.random() < 0.5 else -1
    subject = LotCar(body=body, color=color, plate=sample_plate(rng),
                     placement=Placement(x=0.0, y=0.0, yaw_deg=_r(90.0 * facing + _slop(rng), 3)))
    half_x = _r(clear_radius_m + LOT_MARGIN_M + rng.uniform(0.0, 8.0), 3)
    half_y = _r(clear_radius_m + LOT_MARGIN_M + rng.uniform(0.0, 6.0), 3)
    rows = row_layout(half_y)
    n_bays = int(half_x // BAY_WIDTH_M)
    bays = []
    for y in rows:
        face = 1 if round(y / ROW_PAIR_M * 2) % 2 == 0 else -1   # the pair's first row faces +y, its partner -y
        for i in range(-n_bays, n_bays + 1):
            x = i * BAY_WIDTH_M
            if abs(x) + BAY_WIDTH_M / 2 <= half_x - 1.0:
                bays.append(Bay(center=[_r(x, 3), _r(y, 3)], facing=face))
    g = float(rng.uniform(0.03, 0.065))
    asphalt = [_r(g * f) for f in rng.uniform([0.97, 0.97, 0.97], [1.03, 1.03, 1.06])]
    line = [_r(v) for v in (rng.uniform(0.62, 0.8) * np.ones(3) if rng.random() < 0.8
                            else rng.uniform([0.7, 0.55, 0.05], [0.8, 0.65, 0.12]))]
    kerb = _color(rng, [0.38, 0.37, 0.35], [0.55, 0.54, 0.52])
    verge = _color(rng, [0.06, 0.1, 0.03], [0.14, 0.2, 0.07])

    free = [b for b in bays if rect_disc_distance(bay_corners(b)) > clear_radius_m + BAY_CLEAR_MARGIN_M]
    n = int(rng.integers(DISTRACTORS[0], DISTRACTORS[1] + 1))
    d = np.array([math.hypot(*b.center) for b in free])
    w = 1.0 / np.maximum(d - clear_radius_m + 4.0, 1.0) ** 2
    picks = rng.choice(len(free), size=min(n, len(free)), replace=False, p=w / w.sum())
    cars = [subject]
    for k, j in enumerate(picks):
        bay = free[int(j)]
        style = body.style if k == 0 or rng.random() < SAME_STYLE_SHARE else None
        col = color if k == 1 or rng.random() < SAME_COLOR_SHARE else sample_color(rng)
        b = sample_body(rng, style)
        nose = bay.facing * (1 if rng.random() < 1.0 - REVERSE_SHARE else -1)       # a few reverse in
        p = Placement(x=_r(bay.center[0] + rng.uniform(-PARK_JITTER_M, PARK_JITTER_M), 3),
                      y=_r(bay.center[1] + rng.uniform(-PARK_JITTER_M, PARK_JITTER_M), 3),
                      yaw_deg=_r(90.0 * nose + _slop(rng), 3))
        car = LotCar(body=b, color=col, placement=p, plate=sample_plate(rng))
        if rect_disc_distance(footprint_corners(car)) <= clear_radius_m:   # the margin rules it out
            raise RuntimeError(f"distractor {k + 1} reaches into the clear disc")
        cars.append(car)

    lamps = []
    for y in rows[::2]:       # one lamp at each end of every row pair, on the kerb island
        for sx in (-1, 1):
            xy = [_r(sx * (half_x - 0.6), 3), _r(y + BAY_LENGTH_M / 2, 3)]
            if math.hypot(*xy) > clear_radius_m + 0.5:
                lamps.append(LampPost(xy=xy, height_m=_r(rng.uniform(7.0, 9.0), 3)))
    back_side = 1 if rng.random() < 0.5 else -1
    backdrops = [
        Backdrop(kind="building", side=back_side, setback_m=_r(rng.uniform(2.0, 6.0), 3),
                 height_m=_r(rng.uniform(4.5, 9.0), 3),
                 color=_color(rng, [0.45, 0.42, 0.38], [0.8, 0.76, 0.7]) if rng.random() < 0.7
                 else _color(rng, [0.35, 0.15, 0.1], [0.5, 0.25, 0.17]),
                 window_rows=int(rng.integers(1, 3))),
        Backdrop(kind="fence", side=-back_side, setback_m=_r(rng.uniform(1.0, 3.0), 3),
                 height_m=_r(rng.uniform(1.6, 2.4), 3), color=_color(rng, [0.3, 0.3, 0.3], [0.5, 0.5, 0.5]),
                 window_rows=0),
    ]
    trees = sample_trees(rng, half_x, half_y, back_side)
    sun = SunSpec(elevation_deg=_r(rng.uniform(20.0, 70.0), 3), azimuth_deg=_r(rng.uniform(0.0, 360.0), 3))
    wear = [_r(v, 3) for v in rng.uniform(0.0, 1000.0, 3)]      # drawn last: every earlier draw as before
    taken = {int(j) for j in picks}
    far = sample_far_cars(rng, [b for i, b in enumerate(free) if i not in taken], len(cars) - 1)
    trees, far_trees, skyline = sample_surroundings(rng, half_x, half_y, trees, back_side)
    return LotSpec(clear_radius_m=_r(clear_radius_m, 4), half_x_m=half_x, half_y_m=half_y,
                   row_ys=[_r(y, 3) for y in rows],
                   bays=bays, asphalt_color=asphalt, line_color=line, kerb_color=kerb, verge_color=verge,
                   backdrops=backdrops, lamps=lamps, trees=trees, sun=sun, cars=cars, wear_offset=wear,
                   far_cars=far, far_trees=far_trees, skyline=skyline)


def _park(rng: np.random.Generator, bay: Bay) -> Placement:
    """A car in `bay`: nose-in (or reversed in), with the distractors' slop."""
    nose = bay.facing * (1 if rng.random() < 1.0 - REVERSE_SHARE else -1)
    return Placement(x=_r(bay.center[0] + rng.uniform(-PARK_JITTER_M, PARK_JITTER_M), 3),
                     y=_r(bay.center[1] + rng.uniform(-PARK_JITTER_M, PARK_JITTER_M), 3),
                     yaw_deg=_r(90.0 * nose + _slop(rng), 3))


def disc_bays(lot: LotSpec) -> list[Bay]:
    """The bays the distractors and far cars left empty round the subject (those reaching
    into the disc plus its margin), without the subject's own bay; in bay order."""
    R = lot.clear_radius_m + BAY_CLEAR_MARGIN_M
    return [b for b in lot.bays if rect_disc_distance(bay_corners(b)) <= R and (b.center[0], b.center[1]) != (0.0, 0.0)]


def is_near_bay(bay: Bay) -> bool:
    """In the subject's row (y = 0) or the facing row (y = BAY_LENGTH_M), within NEAR_BAYS bays."""
    return bay.center[1] in (0.0, BAY_LENGTH_M) and abs(bay.center[0]) <= NEAR_BAYS * BAY_WIDTH_M + 1e-6


def sample_empty_runs(rng: np.random.Generator) -> tuple[int, int]:
    """car_view (stage "clear_bays"): how many bays the subject's row leaves empty on its -x and
    its +x side (each `EMPTY_RUN_BAYS` with chances `EMPTY_RUN_P`): a car photographed for
    intake stands next to free bays, so each flank can be photographed from 1.5-3 lengths."""
    return tuple(int(rng.choice(EMPTY_RUN_BAYS, p=EMPTY_RUN_P)) for _ in range(2))


def empty_run_bays(runs: tuple[int, int]):
    """A predicate on bays: the `runs` (-x side, +x side) bays next to the subject in its row,
    and the bay facing it head to head (its face toward that row needs it free)."""
    def empty(bay: Bay) -> bool:
        x, y = bay.center
        k = round(x / BAY_WIDTH_M)
        if y == 0.0 and k != 0:
            return -runs[0] <= k <= runs[1]
        return y == BAY_LENGTH_M and k == 0
    return empty


def sample_neighbours(rng: np.random.Generator, lot: LotSpec, keep_clear=None, leave_empty=None) -> LotSpec:
    """vehicle-8: park cars in a `NEIGHBOUR_FILL` share of the disc's bays (`disc_bays`), bays
    for which `keep_clear(bay)` is true left empty (no draw: damage_view). Near bays
    (`is_near_bay`) take full cars drawn as the distractors are, the others far-car copies of a
    distractor (`inner_far_cars`; built after `far_cars`, so those keep their pass index).
    A bay for which `leave_empty(bay)` is true (car_view's empty runs) has its car drawn and
    then not parked, so every other bay's car is the one drawn without it. Last, a full car of
    the subject's style and colour (a twin beside it) has its colour drawn again until it
    differs. `rng` is a stage of its own: every earlier draw of the lot is unchanged."""
    if len(lot.cars) < 2:
        raise ValueError("sample_neighbours needs a lot with distractors (the far copies' templates)")
    share = float(rng.uniform(*NEIGHBOUR_FILL))
    neighbours, far = [], []
    for bay in disc_bays(lot):
        if keep_clear is not None and keep_clear(bay):
            continue
        if rng.random() >= share:
            continue
        parked = leave_empty is None or not leave_empty(bay)
        if is_near_bay(bay):
            style = lot.subject.body.style if rng.random() < SAME_STYLE_SHARE else None
            col = lot.subject.color if rng.random() < SAME_COLOR_SHARE else sample_color(rng)
            body = sample_body(rng, style)
            car = LotCar(body=body, color=col, placement=_park(rng, bay), plate=sample_plate(rng))
            if parked:
                neighbours.append(car)
        else:
            car = FarCar(template=int(rng.integers(1, len(lot.cars))), placement=_park(rng, bay))
            if parked:
                far.append(car)
    subj = lot.subject
    for i, car in enumerate(neighbours):                # after every earlier draw: no twin beside the subject
        while car.body.style == subj.body.style and car.color == subj.color:
            car = car.model_copy(update={"color": sample_color(rng)})
        neighbours[i] = car
    return lot.model_copy(update={"neighbours": neighbours, "inner_far_cars": far})
