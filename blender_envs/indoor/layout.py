"""Procedural indoor floor plans for EgoPathBench: rooms, walls with doorways, windows
and furnished rooms, as plain data (no bpy).

The plan is a W x D rectangle (inner faces of the exterior walls) split guillotine-wise
by 0.1 m interior walls into 1-4 rooms; every split wall has one 0.8-1.0 m doorway, so
all rooms connect. Furniture is placed against walls, in table sets and as clutter,
never overlapping, never in a doorway's clear zone; some rooms get a deliberate narrow
passage (0.35-0.55 m: a point agent passes, a 0.6 m body does not). Every draw comes
from the `rng` argument.
"""
from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from blender_envs.indoor.furniture import (CATEGORIES, PALETTE, FBox, category_boxes, draw_color, draw_size)
from geometry.polygons import nearest_poly_distance, oriented_rect, poly_distance, polys_intersect, rect_poly, rot2
from geometry.scene import SceneSpec

WALL_T = 0.10
DOOR_WIDTH_RANGE = (0.80, 1.00)
DOOR_HEIGHT = 2.05
DOOR_CLEAR_M = 0.75        # furniture stays this far from a doorway, on both sides
NARROW_RANGE = (0.35, 0.55)
ROOM_AREA_M2 = (24.0, 40.0)  # per room
MIN_GAP_M = 0.04           # smallest gap between two pieces (unless deliberate)
FREE_GAP_M = 0.65          # free-standing pieces (not piles) keep a body's width from the others
ROOM_KINDS = ("living room", "kitchen", "bedroom", "office", "dining room")
FLOOR_STYLES = {"living room": ("wood",), "kitchen": ("tile",), "bedroom": ("wood", "carpet"),
                "office": ("carpet", "wood"), "dining room": ("wood", "tile")}
FLOOR_RGB = {"wood": [(0.30, 0.16, 0.07), (0.45, 0.27, 0.12), (0.20, 0.11, 0.05)],
             "tile": [(0.60, 0.60, 0.58), (0.45, 0.42, 0.38), (0.70, 0.68, 0.62)],
             "carpet": [(0.25, 0.25, 0.30), (0.35, 0.30, 0.25), (0.20, 0.28, 0.32)]}
WALL_RGB = [(0.80, 0.78, 0.72), (0.70, 0.72, 0.75), (0.78, 0.70, 0.60), (0.65, 0.72, 0.66), (0.82, 0.82, 0.82)]


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Room(_M):
    name: str
    kind: str
    cell: list[float]          # [x0, y0, x1, y1] floor rectangle (to interior wall centre lines)
    interior: list[float]      # [x0, y0, x1, y1] free rectangle between wall faces
    floor_style: str
    floor_rgb: list[float]
    wall_rgb: list[float]


class Doorway(_M):
    axis: str                  # "x": the wall runs along y at x = `at`; "y": along x at y = `at`
    at: float
    lo: float                  # opening span along the wall
    hi: float
    rooms: list[str] = Field(default_factory=list)

    def clear_zone(self, depth: float = DOOR_CLEAR_M) -> list[float]:
        """[x0, y0, x1, y1] kept free of furniture: the opening, `depth` deep on both sides."""
        if self.axis == "x":
            return [self.at - depth, self.lo - 0.05, self.at + depth, self.hi + 0.05]
        return [self.lo - 0.05, self.at - depth, self.hi + 0.05, self.at + depth]


class WallLine(_M):
    """One straight wall: its solid segments (footprint rects) and its doorways."""

    name: str
    exterior: bool
    segments: list[list[float]]          # [x0, y0, x1, y1] rects, floor to ceiling
    doorways: list[Doorway] = Field(default_factory=list)


class Window(_M):
    """A bright window pane on an exterior wall's inner face (it lights the room)."""

    centre: list[float]        # [x, y] on the wall face
    normal: list[float]        # [nx, ny] into the room
    width: float
    z0: float
    z1: float
    room: str


class Furniture(_M):
    name: str
    category: str
    room: str
    color: str
    rgb: list[float]
    size_word: str             # "small" / "" / "large" for its category
    size: list[float]          # [w, d, h]
    position: list[float]      # [x, y] of the footprint centre
    yaw_deg: float             # local +y (front) -> world (-sin, cos)
    boxes: list[FBox]
    group: str = ""            # e.g. "dining_set_0" for a table and its chairs


class NarrowPassage(_M):
    room: str
    between: list[str]         # [piece name, "wall"] or two piece names
    width_m: float
    rect: list[float]          # [x0, y0, x1, y1] the gap between them


class IndoorSpec(SceneSpec):
    scene_group: str
    plan_size: list[float]     # [W, D]
    wall_height_m: float
    rooms: list[Room]
    walls: list[WallLine]
    windows: list[Window]
    furniture: list[Furniture]
    narrow_passages: list[NarrowPassage] = Field(default_factory=list)

    def doorways(self) -> list[Doorway]:
        return [d for w in self.walls for d in w.doorways]

    def piece(self, name: str) -> Furniture:
        for f in self.furniture:
            if f.name == name:
                return f
        raise KeyError(f"no furniture named {name!r} in scene {self.scene_id}")


# ----------------------------------------------------------------------- pieces on the plan

def footprint(f: Furniture) -> np.ndarray:
    """(4, 2) world corners of a piece's footprint, counter-clockwise."""
    return oriented_rect(f.position, f.size[0], f.size[1], f.yaw_deg)


def piece_matrix(f: Furniture) -> np.ndarray:
    """4x4 object-to-world matrix of a piece (yaw about z, then its floor position)."""
    M = np.eye(4)
    M[:2, :2] = rot2(f.yaw_deg)
    M[0, 3], M[1, 3] = f.position
    return M


def world_boxes(f: Furniture) -> list[np.ndarray]:
    """Each box of a piece as its 8 world corners (8, 3)."""
    M = piece_matrix(f)
    out = []
    for b in f.boxes:
        (x0, y0, z0), (x1, y1, z1) = b.lo, b.hi
        C = np.array([[x, y, z, 1.0] for z in (z0, z1) for y in (y0, y1) for x in (x0, x1)])
        out.append((C @ M.T)[:, :3])
    return out


def obstacle_polygons(spec: IndoorSpec) -> list[tuple[str, np.ndarray]]:
    """(name, footprint polygon) of everything a walker bumps into: wall segments and furniture."""
    out = [(f"{w.name}:{k}", rect_poly(r)) for w in spec.walls for k, r in enumerate(w.segments)]
    out += [(f.name, footprint(f)) for f in spec.furniture]
    return out


def clearance(spec: IndoorSpec, xy, polys=None) -> np.ndarray:
    """Distance from floor points (N, 2) to the nearest wall or furniture footprint."""
    polys = obstacle_polygons(spec) if polys is None else polys
    return nearest_poly_distance(xy, [P for _, P in polys])


def room_at(spec: IndoorSpec, xy) -> str | None:
    x, y = float(xy[0]), float(xy[1])
    for r in spec.rooms:
        x0, y0, x1, y1 = r.interior
        if x0 <= x <= x1 and y0 <= y <= y1:
            return r.name
    return None


# ----------------------------------------------------------------------- floor plan

def _split_plan(rng: np.random.Generator, W: float, D: float, n_rooms: int):
    """Guillotine split into n cells; returns (cells, interior walls as (axis, at, lo, hi), doors)."""
    cells = [[0.0, 0.0, W, D]]
    walls, doors = [], []
    for _ in range(200):  # bounded: each try splits the largest splittable cell
        if len(cells) >= n_rooms:
            break
        cells.sort(key=lambda c: -(c[2] - c[0]) * (c[3] - c[1]))
        c = cells[0]
        w, d = c[2] - c[0], c[3] - c[1]
        axis = "x" if w >= d else "y"
        span = w if axis == "x" else d
        if span < 5.4:
            if max(w, d) < 5.4:
                break
            axis = "y" if axis == "x" else "x"
            span = w if axis == "x" else d
        base = c[0] if axis == "x" else c[1]
        s = base + span * float(rng.uniform(0.38, 0.62))
        lo, hi = (c[1], c[3]) if axis == "x" else (c[0], c[2])
        rect = [s - WALL_T / 2, lo, s + WALL_T / 2, hi] if axis == "x" else [lo, s - WALL_T / 2, hi, s + WALL_T / 2]
        if any(polys_intersect(rect_poly(rect), rect_poly(dd.clear_zone(0.9))) for dd in doors):
            continue  # a new wall would close an existing doorway
        dw = float(rng.uniform(*DOOR_WIDTH_RANGE))
        a = float(rng.uniform(lo + 0.35 + WALL_T, hi - 0.35 - WALL_T - dw))
        doors.append(Doorway(axis=axis, at=round(s, 4), lo=round(a, 4), hi=round(a + dw, 4)))
        walls.append((axis, s, lo, hi))
        if axis == "x":
            cells[0:1] = [[c[0], c[1], s, c[3]], [s, c[1], c[2], c[3]]]
        else:
            cells[0:1] = [[c[0], c[1], c[2], s], [c[0], s, c[2], c[3]]]
    return cells, walls, doors


def _wall_lines(W: float, D: float, walls, doors, H: float) -> list[WallLine]:
    t = WALL_T
    out = [WallLine(name="wall_south", exterior=True, segments=[[-t, -t, W + t, 0.0]]),
           WallLine(name="wall_north", exterior=True, segments=[[-t, D, W + t, D + t]]),
           WallLine(name="wall_west", exterior=True, segments=[[-t, 0.0, 0.0, D]]),
           WallLine(name="wall_east", exterior=True, segments=[[W, 0.0, W + t, D]])]
    for k, ((axis, s, lo, hi), door) in enumerate(zip(walls, doors)):
        spans = [(lo, door.lo), (door.hi, hi)]
        segs = []
        for a, b in spans:
            if b - a > 1e-6:
                segs.append([s - t / 2, a, s + t / 2, b] if axis == "x" else [a, s - t / 2, b, s + t / 2])
        out.append(WallLine(name=f"wall_int_{k}", exterior=False,
                            segments=[[round(v, 4) for v in r] for r in segs], doorways=[door]))
    return out


def _interior(cell, W: float, D: float) -> list[float]:
    x0, y0, x1, y1 = cell
    h = WALL_T / 2
    return [round(x0 + (h if x0 > 1e-6 else 0.0), 4), round(y0 + (h if y0 > 1e-6 else 0.0), 4),
            round(x1 - (h if x1 < W - 1e-6 else 0.0), 4), round(y1 - (h if y1 < D - 1e-6 else 0.0), 4)]


# ----------------------------------------------------------------------- furnishing

class _Room:
    """Placement state of one room: its free rectangle, the placed pieces, the keep-out zones."""

    def __init__(self, rng, room: Room, reserved: list[np.ndarray], counters: dict, pieces: list):
        self.rng, self.room, self.reserved, self.counters, self.all = rng, room, reserved, counters, pieces
        self.placed: list[Furniture] = []
        self.polys: list[np.ndarray] = []
        self.passages: list[NarrowPassage] = []

    def make(self, category: str, pos, yaw: float, size=None, color=None, group: str = "") -> Furniture:
        word, sz = draw_size(self.rng, category) if size is None else size
        color = draw_color(self.rng, category) if color is None else color
        k = self.counters.get(category, 0)
        return Furniture(name=f"{category}_{k:02d}", category=category, room=self.room.name, color=color,
                         rgb=list(PALETTE[color]), size_word=word, size=sz,
                         position=[round(float(pos[0]), 4), round(float(pos[1]), 4)],
                         yaw_deg=round(float(yaw) % 360.0, 3), boxes=category_boxes(category, *sz), group=group)

    def fits(self, f: Furniture, gap: float = MIN_GAP_M) -> bool:
        P = footprint(f)
        x0, y0, x1, y1 = self.room.interior
        if P[:, 0].min() < x0 + 0.005 or P[:, 0].max() > x1 - 0.005 or P[:, 1].min() < y0 + 0.005 \
                or P[:, 1].max() > y1 - 0.005:
            return False
        if any(polys_intersect(P, R) for R in self.reserved):
            return False
        return all(poly_distance(P, Q) >= gap for Q in self.polys)

    def commit(self, f: Furniture) -> Furniture:
        self.counters[f.category] = self.counters.get(f.category, 0) + 1
        self.placed.append(f)
        self.polys.append(footprint(f))
        self.all.append(f)
        return f

    def against_wall(self, category: str, tries: int = 40, **kw) -> Furniture | None:
        """A piece with its back to a random wall of the room, facing in."""
        x0, y0, x1, y1 = self.room.interior
        for _ in range(tries):
            word, sz = draw_size(self.rng, category)
            w, d = sz[0], sz[1]
            side = int(self.rng.integers(4))
            back = float(self.rng.uniform(0.02, 0.05))
            if side == 0:    # south wall, facing +y
                pos, yaw = (self.rng.uniform(x0 + w / 2, x1 - w / 2), y0 + back + d / 2), 0.0
            elif side == 1:  # north
                pos, yaw = (self.rng.uniform(x0 + w / 2, x1 - w / 2), y1 - back - d / 2), 180.0
            elif side == 2:  # west, facing +x
                pos, yaw = (x0 + back + d / 2, self.rng.uniform(y0 + w / 2, y1 - w / 2)), 270.0
            else:            # east
                pos, yaw = (x1 - back - d / 2, self.rng.uniform(y0 + w / 2, y1 - w / 2)), 90.0
            if (x1 - x0) < w or (y1 - y0) < w:
                continue
            f = self.make(category, pos, yaw, size=(word, sz), **kw)
            if self.fits(f):
                return self.commit(f)
        return None

    def wall_row(self, category: str, n: int, tries: int = 25, same_color_p: float = 0.5) -> list[Furniture]:
        """Up to n pieces side by side along one wall (a row of boxes, cabinets, bins), one
        size and often one colour: same-category instances seen together."""
        x0, y0, x1, y1 = self.room.interior
        for _ in range(tries):
            word, sz = draw_size(self.rng, category)
            w, d = sz[0], sz[1]
            side = int(self.rng.integers(4))
            gap = float(self.rng.uniform(0.05, 0.30))
            span = (x1 - x0) if side < 2 else (y1 - y0)
            k = min(n, int((span + gap) // (w + gap)))
            if k < 2:
                continue
            a = float(self.rng.uniform(0.0, span - k * w - (k - 1) * gap))
            back = float(self.rng.uniform(0.02, 0.05))
            color = draw_color(self.rng, category) if self.rng.random() < same_color_p else None
            out = []
            for j in range(k):
                u = a + w / 2 + j * (w + gap)
                pos, yaw = {0: ((x0 + u, y0 + back + d / 2), 0.0), 1: ((x0 + u, y1 - back - d / 2), 180.0),
                            2: ((x0 + back + d / 2, y0 + u), 270.0), 3: ((x1 - back - d / 2, y0 + u), 90.0)}[side]
                f = self.make(category, pos, yaw, size=(word, sz), color=color, group=f"row_{category}")
                if self.fits(f):
                    out.append(self.commit(f))
            if out:
                return out
        return []

    def free(self, category: str, tries: int = 40, yaw_any: bool = True, near=None, spread: float = 0.6,
             **kw) -> Furniture | None:
        """A free-standing piece anywhere in the room, at least FREE_GAP_M from other pieces
        so a 0.6 m body can pass round it (or, a pile, within `spread` of `near`)."""
        x0, y0, x1, y1 = self.room.interior
        for _ in range(tries):
            if near is None:
                pos = (self.rng.uniform(x0 + 0.2, x1 - 0.2), self.rng.uniform(y0 + 0.2, y1 - 0.2))
            else:
                pos = np.asarray(near, float) + self.rng.uniform(-spread, spread, 2)
            yaw = self.rng.uniform(0, 360) if yaw_any else 90.0 * int(self.rng.integers(4)) + self.rng.normal(0, 4)
            f = self.make(category, pos, yaw, **kw)
            if self.fits(f, gap=MIN_GAP_M if near is not None else FREE_GAP_M):
                return self.commit(f)
        return None

    def table_set(self, table: str, n_chairs: int, group: str, tries: int = 30) -> list[Furniture]:
        """A table with chairs around it, the chairs pulled out and facing it."""
        x0, y0, x1, y1 = self.room.interior
        for _ in range(tries):
            word, sz = draw_size(self.rng, table)
            yaw = 90.0 * int(self.rng.integers(2))
            m = 0.8
            if x1 - x0 < 2 * m + sz[0] or y1 - y0 < 2 * m + sz[0]:
                return []
            pos = (self.rng.uniform(x0 + m + sz[0] / 2, x1 - m - sz[0] / 2),
                   self.rng.uniform(y0 + m + sz[0] / 2, y1 - m - sz[0] / 2))
            t = self.make(table, pos, yaw, size=(word, sz), group=group)
            if not self.fits(t, gap=0.3):
                continue
            self.commit(t)
            out = [t]
            same_color = self.rng.random() < 0.6
            chair_color = draw_color(self.rng, "chair")
            chair_size = draw_size(self.rng, "chair")
            slots = []
            per_side = max(1, int(sz[0] // 0.6))
            for side in (1, -1):
                for k in range(per_side):
                    u = (k + 0.5) / per_side * sz[0] - sz[0] / 2
                    slots.append((u, side * (sz[1] / 2), 180.0 if side == 1 else 0.0))
            for side in (1, -1):  # table ends
                slots.append((side * sz[0] / 2, 0.0, 90.0 if side == 1 else 270.0))
            order = self.rng.permutation(len(slots))
            R = rot2(yaw)
            for j in order:
                if len(out) - 1 >= n_chairs:
                    break
                u, v, cyaw = slots[j]
                cs = chair_size if same_color else draw_size(self.rng, "chair")
                pull = float(self.rng.uniform(0.06, 0.22)) + cs[1][1] / 2
                local = np.array([u, v]) + (np.array([0.0, np.sign(v) * pull]) if v else
                                            np.array([np.sign(u) * pull, 0.0]))
                c = self.make("chair", np.asarray(pos) + R @ local, yaw + cyaw + self.rng.normal(0, 6),
                              size=cs, color=chair_color if same_color else None, group=group)
                if self.fits(c):
                    out.append(self.commit(c))
            return out
        return []

    def narrow_passage(self, category: str, tries: int = 30) -> Furniture | None:
        """A piece parallel to a wall with its back 0.35-0.55 m off it: a corridor a point
        agent can walk but a 0.6 m body cannot. The corridor and its two ends stay free."""
        x0, y0, x1, y1 = self.room.interior
        for _ in range(tries):
            word, sz = draw_size(self.rng, category)
            w, d = sz[0], sz[1]
            g = float(self.rng.uniform(*NARROW_RANGE))
            side = int(self.rng.integers(4))
            span = (x1 - x0) if side < 2 else (y1 - y0)
            if span < w + 1.6:
                continue
            a = float(self.rng.uniform(0.8 + w / 2, span - 0.8 - w / 2))
            if side == 0:
                pos, yaw = (x0 + a, y0 + g + d / 2), 0.0
                gap = [x0 + a - w / 2, y0, x0 + a + w / 2, y0 + g]
                ends = [x0 + a - w / 2 - 0.7, y0, x0 + a + w / 2 + 0.7, y0 + g]
            elif side == 1:
                pos, yaw = (x0 + a, y1 - g - d / 2), 180.0
                gap = [x0 + a - w / 2, y1 - g, x0 + a + w / 2, y1]
                ends = [x0 + a - w / 2 - 0.7, y1 - g, x0 + a + w / 2 + 0.7, y1]
            elif side == 2:
                pos, yaw = (x0 + g + d / 2, y0 + a), 270.0
                gap = [x0, y0 + a - w / 2, x0 + g, y0 + a + w / 2]
                ends = [x0, y0 + a - w / 2 - 0.7, x0 + g, y0 + a + w / 2 + 0.7]
            else:
                pos, yaw = (x1 - g - d / 2, y0 + a), 90.0
                gap = [x1 - g, y0 + a - w / 2, x1, y0 + a + w / 2]
                ends = [x1 - g, y0 + a - w / 2 - 0.7, x1, y0 + a + w / 2 + 0.7]
            f = self.make(category, pos, yaw, size=(word, sz))
            if not self.fits(f, gap=0.6):
                continue
            keep = rect_poly([ends[0] + 0.01, ends[1] + 0.01, ends[2] - 0.01, ends[3] - 0.01])
            if any(polys_intersect(keep, R) for R in self.reserved):
                continue  # the corridor would end in a doorway's clear zone or another corridor
            self.commit(f)
            self.reserved.append(keep)
            self.passages.append(NarrowPassage(room=self.room.name, between=[f.name, "wall"], width_m=round(g, 4),
                                               rect=[round(v, 4) for v in gap]))
            return f
        return None


def _n(rng, lo: int, hi: int) -> int:
    return int(rng.integers(lo, hi + 1))


def furnish(rng: np.random.Generator, room: Room, reserved: list[np.ndarray], counters: dict,
            pieces: list, narrow_prob: float = 0.75) -> tuple[list[Furniture], list[NarrowPassage]]:
    """Furnish one room by its kind: big pieces first, then sets, then clutter."""
    R = _Room(rng, room, reserved, counters, pieces)
    kind = room.kind
    if rng.random() < narrow_prob:
        options = {"living room": ("sofa", "shelf", "cabinet"), "kitchen": ("counter", "cabinet"),
                   "bedroom": ("wardrobe", "shelf", "cabinet"), "office": ("shelf", "cabinet", "desk"),
                   "dining room": ("cabinet", "shelf")}[kind]
        R.narrow_passage(options[int(rng.integers(len(options)))])
    if kind == "kitchen":
        for _ in range(_n(rng, 1, 2)):
            R.against_wall("counter")
        R.against_wall("fridge")
        if rng.random() < 0.85:
            R.table_set("table", _n(rng, 4, 6), "dining_set_0")
        rows = {"stool": (2, 4), "cabinet": (0, 3), "bin": (2, 3)}
        clutter = {"box": (2, 5), "plant": (1, 3)}
    elif kind == "living room":
        R.against_wall("sofa")
        R.against_wall("tv_stand")
        for _ in range(_n(rng, 1, 2)):
            R.against_wall("shelf")
        R.free("coffee_table", yaw_any=False)
        for _ in range(_n(rng, 1, 3)):
            R.free("armchair", yaw_any=False)
        rows = {"box": (0, 4), "plant": (0, 3)}
        clutter = {"plant": (2, 4), "lamp": (2, 3), "box": (1, 3), "bin": (0, 2)}
    elif kind == "bedroom":
        R.against_wall("bed")
        for _ in range(_n(rng, 1, 2)):
            R.against_wall("nightstand")
        if rng.random() < 0.6:
            R.against_wall("wardrobe")
        if rng.random() < 0.5:
            desk = R.against_wall("desk")
            if desk is not None:
                R.free("chair", near=np.asarray(desk.position) + rot2(desk.yaw_deg) @ [0, 0.6], spread=0.15)
        rows = {"box": (2, 5)}
        clutter = {"lamp": (1, 2), "box": (1, 3), "bin": (1, 2), "plant": (2, 3)}
    elif kind == "office":
        for _ in range(_n(rng, 2, 4)):
            desk = R.against_wall("desk")
            if desk is not None:
                R.free("chair", near=np.asarray(desk.position) + rot2(desk.yaw_deg) @ [0, 0.62], spread=0.12,
                       yaw_any=False)
        rows = {"cabinet": (2, 4), "shelf": (1, 3), "box": (0, 4), "bin": (0, 3)}
        clutter = {"bin": (1, 2), "box": (1, 3), "plant": (1, 3), "chair": (0, 2)}
    else:  # dining room
        R.table_set("table", _n(rng, 5, 8), "dining_set_0")
        if rng.random() < 0.5:
            R.table_set("table", _n(rng, 3, 6), "dining_set_1")
        if rng.random() < 0.5:
            R.against_wall("shelf")
        rows = {"cabinet": (2, 3), "plant": (0, 3)}
        clutter = {"plant": (2, 3), "box": (1, 3), "bin": (0, 2), "stool": (0, 2)}
    for cat, (lo, hi) in rows.items():
        n = _n(rng, lo, hi)
        if n >= 2:
            R.wall_row(cat, n)
        elif n == 1:
            R.against_wall(cat)
    for cat, (lo, hi) in clutter.items():
        n = _n(rng, lo, hi)
        anchor = None
        for _ in range(n):  # clusters: boxes pile up near each other, others scatter or hug walls
            if cat == "box" and anchor is not None:
                f = R.free(cat, near=anchor, spread=0.7)
            elif cat in ("plant", "bin", "lamp") and rng.random() < 0.8:
                f = R.against_wall(cat)
            else:
                f = R.free(cat)
            if f is not None and anchor is None:
                anchor = f.position
    return R.placed, R.passages


# ----------------------------------------------------------------------- the scene

def sample_indoor(rng: np.random.Generator, scene_id: str, seed: int, env: str = "egopath",
                  scene_group: str | None = None) -> IndoorSpec:
    """One furnished floor plan (1-4 rooms)."""
    n_rooms = int(rng.choice([1, 2, 3, 4], p=[0.2, 0.35, 0.3, 0.15]))
    area = n_rooms * float(rng.uniform(*ROOM_AREA_M2))
    aspect = float(rng.uniform(1.0, 1.6))
    W = math.sqrt(area * aspect)
    D = area / W
    if rng.random() < 0.5:
        W, D = D, W
    W, D = round(max(W, 3.2), 3), round(max(D, 3.2), 3)
    H = round(float(rng.uniform(2.5, 2.8)), 3)
    cells, split_walls, doors = _split_plan(rng, W, D, n_rooms)
    kinds = list(rng.choice(ROOM_KINDS, size=len(cells), replace=False))
    rooms = []
    for cell, kind in zip(cells, kinds):
        style = FLOOR_STYLES[kind][int(rng.integers(len(FLOOR_STYLES[kind])))]
        rooms.append(Room(name=str(kind), kind=str(kind), cell=[round(v, 4) for v in cell],
                          interior=_interior(cell, W, D), floor_style=style,
                          floor_rgb=list(FLOOR_RGB[style][int(rng.integers(3))]),
                          wall_rgb=list(WALL_RGB[int(rng.integers(len(WALL_RGB)))])))
    for d in doors:  # which rooms a doorway joins
        c = (d.at, (d.lo + d.hi) / 2) if d.axis == "x" else ((d.lo + d.hi) / 2, d.at)
        off = np.array([0.2, 0.0]) if d.axis == "x" else np.array([0.0, 0.2])
        d.rooms = [r.name for r in rooms for p in (np.asarray(c) - off, np.asarray(c) + off)
                   if r.cell[0] <= p[0] <= r.cell[2] and r.cell[1] <= p[1] <= r.cell[3]]
    walls = _wall_lines(W, D, split_walls, doors, H)
    windows = _windows(rng, rooms, W, D)
    reserved = [rect_poly(d.clear_zone()) for d in doors]
    counters: dict[str, int] = {}
    pieces: list[Furniture] = []
    passages: list[NarrowPassage] = []
    for room in rooms:
        _, ps = furnish(rng, room, reserved, counters, pieces)
        passages += ps
    return IndoorSpec(env=env, scene_id=scene_id, seed=seed, scene_group=scene_group or scene_id,
                      plan_size=[W, D], wall_height_m=H, rooms=rooms, walls=walls, windows=windows,
                      furniture=pieces, narrow_passages=passages)


def _windows(rng, rooms: list[Room], W: float, D: float) -> list[Window]:
    out = []
    for r in rooms:
        x0, y0, x1, y1 = r.interior
        sides = []
        if r.cell[1] < 1e-6:
            sides.append(((x0, x1), "y", y0, (0.0, 1.0)))
        if r.cell[3] > D - 1e-6:
            sides.append(((x0, x1), "y", y1, (0.0, -1.0)))
        if r.cell[0] < 1e-6:
            sides.append(((y0, y1), "x", x0, (1.0, 0.0)))
        if r.cell[2] > W - 1e-6:
            sides.append(((y0, y1), "x", x1, (-1.0, 0.0)))
        for k in rng.permutation(len(sides))[:_n(rng, 1, 2)]:
            (a, b), axis, at, nrm = sides[int(k)]
            w = float(rng.uniform(0.8, min(1.6, b - a - 0.8)))
            c = float(rng.uniform(a + 0.4 + w / 2, b - 0.4 - w / 2))
            at_f = at + 0.003 * (nrm[0] + nrm[1])
            centre = [c, at_f] if axis == "y" else [at_f, c]
            out.append(Window(centre=[round(v, 4) for v in centre], normal=list(nrm), width=round(w, 4),
                              z0=round(float(rng.uniform(0.85, 1.0)), 3), z1=round(float(rng.uniform(2.0, 2.2)), 3),
                              room=r.name))
    return out
