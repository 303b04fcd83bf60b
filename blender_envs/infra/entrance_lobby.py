"""The lobby stage of the entrance draw (no bpy): what makes the box a furnished lobby. A
reception desk, seating groups (a sofa, armchairs, a low table on a rug), planters of three
sizes, a water dispenser, bins; window bays with mullions in one side wall; posters and a
directory board; skirting; the floor's tile size and the upholstery and wood colours.

It draws from its own generator (`stage_rng(seed, "lobby")`), after everything else is
fixed, so the people, the door, the events and the first furniture draw are the same bytes
as without it. Every item stands where no scripted person's ground point comes within
`PERSON_R + CLEAR_M` of its footprint at any time (a SCAN_S scan), out of the door zone, the
loiter region and the side opening, and apart from every other item.
"""
from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel, ConfigDict

from blender_envs.infra import entrance_furnishings as fu
from blender_envs.infra import people
from blender_envs.infra.entrance_layout import Furniture, furniture_footprint
from blender_envs.stages import stage_rng
from geometry.polygons import oriented_rect, point_poly_distance, poly_distance, polys_intersect, rect_poly, rot2
from geometry.timeline import Agent

SCAN_S = 0.1               # a walker covers < 0.15 m between scans; CLEAR_M leaves room for it
CLEAR_M = 0.4              # people's ground discs keep this far from every new footprint
PERSON_R = 0.5 * math.hypot(*people.CIVILIAN_SIZE_XY)
ITEM_GAP_M = 0.35          # between new and existing footprints (a planter may stand closer)
PLANTER_GAP_M = 0.12
WALL_GAP_M = 0.03          # an item's back from the wall face (posters stand 26 mm proud)
NEAR_Y = 1.2               # nothing nearer the camera's wall plane than this (it would fill the frame)
DOOR_ZONE = (2.0, 2.0)     # |x - door| < 2 m and within 2 m of the door wall stays free
REGION_KEEP_M = 0.3
GAP_KEEP = (2.2, 0.6)      # the side opening: 2.2 m into the lobby, 0.6 m either side, stays free
TILES_M = (0.5, 0.6, 0.8)
ATTEMPTS = 14
R = 6

FABRIC = {"charcoal": (0.07, 0.07, 0.08), "navy": (0.04, 0.07, 0.18), "teal": (0.04, 0.2, 0.22),
          "rust": (0.4, 0.12, 0.05), "oatmeal": (0.5, 0.44, 0.36), "mustard": (0.55, 0.38, 0.06),
          "grey": (0.28, 0.28, 0.3)}
WOOD = {"oak": (0.5, 0.34, 0.18), "walnut": (0.2, 0.11, 0.06), "white": (0.78, 0.78, 0.76),
        "black": (0.04, 0.04, 0.045)}
PRINTS = ((0.7, 0.12, 0.08), (0.08, 0.25, 0.55), (0.9, 0.75, 0.2), (0.1, 0.45, 0.3), (0.85, 0.85, 0.82),
          (0.15, 0.15, 0.17), (0.55, 0.3, 0.6), (0.9, 0.45, 0.15))
RUGS = {"grey": (0.2, 0.2, 0.22), "blue": (0.1, 0.14, 0.3), "red": (0.35, 0.08, 0.06), "beige": (0.5, 0.43, 0.32)}


def _r(x) -> float:
    return round(float(x), R)


class WallItem(BaseModel):
    """A poster or a directory board on a wall's lobby face, centred `u` along it, `z` up."""

    model_config = ConfigDict(extra="forbid")
    kind: str                  # "poster" | "directory"
    wall: str                  # "left" | "right" | "door"
    u: float
    z: float
    width: float
    height: float
    colors: list[list[float]]  # [print, band]


class Rug(BaseModel):
    model_config = ConfigDict(extra="forbid")
    center: list[float]
    size: list[float]          # [length, depth]
    yaw_deg: float
    color: list[float]

    def polygon(self) -> np.ndarray:
        return oriented_rect(self.center, self.size[0], self.size[1], self.yaw_deg)


class Windows(BaseModel):
    model_config = ConfigDict(extra="forbid")
    wall: str                  # "left" | "right"
    bays: list[list[float]]    # [y0, y1] of each open bay
    sill: float
    head: float


class LobbyDecor(BaseModel):
    """The lobby stage's draw, apart from the furniture it adds to `EntranceSpec.furniture`."""

    model_config = ConfigDict(extra="forbid")
    tile_m: float
    fabric: str
    fabric_color: list[float]
    wood: str
    wood_color: list[float]
    windows: Windows | None
    wall_items: list[WallItem]
    rugs: list[Rug]
    skirting: dict[str, list[list[float]]]   # wall -> [u0, u1] spans


def _pick(rng, palette: dict) -> tuple[str, list[float]]:
    names = sorted(palette)
    name = names[int(rng.integers(len(names)))]
    return name, [float(c) for c in palette[name]]


class _Floor:
    """Where a new item may stand: inside the lobby, out of the keep-out zones, apart from the
    items so far and clear of every scripted person's ground point at every scan time."""

    def __init__(self, lobby, door_x: float, k: int, side_gap, region, agents: list[Agent], items):
        x0, _, x1, yw = lobby
        self.yf = yw - 0.1
        self.inner = (x0 + 0.01, NEAR_Y, x1 - 0.01, self.yf - 0.01)
        self.keep = [rect_poly([door_x - DOOR_ZONE[0], self.yf - DOOR_ZONE[1], door_x + DOOR_ZONE[0], self.yf])]
        P = np.asarray(region, float)
        self.keep.append(rect_poly([*(P.min(axis=0) - REGION_KEEP_M), *(P.max(axis=0) + REGION_KEEP_M)]))
        if side_gap[1] > side_gap[0]:
            g0, g1 = side_gap
            xa, xb = (x1 - GAP_KEEP[0], x1) if k > 0 else (x0, x0 + GAP_KEEP[0])
            self.keep.append(rect_poly([xa, g0 - GAP_KEEP[1], xb, g1 + GAP_KEEP[1]]))
        ts = np.arange(0.0, 30.0 + 1e-9, SCAN_S)
        pts = [np.array([a.position(float(t))[:2] for t in ts]) for a in agents if a.category == "person"]
        self.people = np.vstack(pts) if pts else np.zeros((0, 2))
        self.items = [furniture_footprint(f) for f in items]

    def free(self, P: np.ndarray, gap: float = ITEM_GAP_M) -> bool:
        x0, y0, x1, y1 = self.inner
        if P[:, 0].min() < x0 or P[:, 0].max() > x1 or P[:, 1].min() < y0 or P[:, 1].max() > y1:
            return False
        if any(polys_intersect(P, K) for K in self.keep):
            return False
        if any(poly_distance(P, Q) < gap for Q in self.items):
            return False
        return not len(self.people) or float(point_poly_distance(self.people, P).min()) > PERSON_R + CLEAR_M


def _against(wall: str, u: float, bounds: np.ndarray, lobby) -> tuple[list[float], float]:
    """The pose (position, yaw) that puts a local frame's back (largest local y) WALL_GAP_M off
    the wall's face, its local x centre at u along the wall, its front facing the lobby."""
    o, ud, n = fu.wall_frame(wall, lobby)
    yaw = {"left": 90.0, "right": -90.0, "door": 0.0}[wall]
    xc = 0.5 * (bounds[0] + bounds[2])
    pos = o + ud * u + n * (WALL_GAP_M + bounds[3]) - rot2(yaw) @ np.array([xc, 0.0])
    return [_r(pos[0]), _r(pos[1])], yaw


def _wall_range(wall: str, lobby, yf: float) -> tuple[float, float]:
    x0, _, x1, _ = lobby
    return (x0, x1) if wall == "door" else (NEAR_Y, yf)


def _group(sofa_len: float, table_len: float, chairs: int) -> list[tuple[str, list[float], float, list[float]]]:
    """A seating group in its own frame (the sofa's back at local y = 0.42): (kind, local
    position, local yaw, size) of the sofa, the low table in front and the armchairs beside it,
    turned to face the table."""
    out = [("sofa", [0.0, 0.0], 0.0, [sofa_len]), ("low_table", [0.0, -1.17], 0.0, [table_len])]
    x = table_len / 2 + 0.35 + 0.425
    for s in ((-1, 1) if chairs == 2 else (1,)):
        out.append(("armchair", [s * x, -1.17], -90.0 * s, [0.85]))
    return out


def _group_furniture(members, pos, yaw: float) -> list[Furniture]:
    M = rot2(yaw)
    out = []
    for kind, p, a, size in members:
        q = np.asarray(pos) + M @ np.asarray(p)
        out.append(Furniture(kind=kind, position=[_r(q[0]), _r(q[1])], yaw_deg=_r(yaw + a), size=[_r(s) for s in size]))
    return out


def _hull(items: list[Furniture]) -> np.ndarray:
    """The axis-aligned rectangle round several footprints (a group's extent)."""
    P = np.vstack([furniture_footprint(f) for f in items])
    return rect_poly([*P.min(axis=0), *P.max(axis=0)])


class LobbyStage:
    """The lobby stage in two steps round the entrance's first furniture draw: `anchors` places
    the reception desk and the seating groups (the first draw then skips slots next to them),
    `finish` the planters, dispenser, bins, wall items and skirting round everything."""

    def __init__(self, rng: np.random.Generator, lobby: list[float], wall_height: float, door_x: float, k: int,
                 side_gap: list[float], region, agents: list[Agent]):
        self.rng, self.lobby, self.door_x, self.k, self.side_gap = rng, lobby, door_x, k, side_gap
        self.wall_height = wall_height
        self.yf = lobby[3] - 0.1
        self.floor = _Floor(lobby, door_x, k, side_gap, region, agents, [])
        self.big = (lobby[2] - lobby[0]) > 18.0              # entrance_crowd's concourse
        self.new: list[Furniture] = []
        self.rugs: list[Rug] = []

    def _put(self, items: list[Furniture], gap: float = ITEM_GAP_M, hull: np.ndarray | None = None) -> bool:
        P = hull if hull is not None else furniture_footprint(items[0])
        if not self.floor.free(P, gap):
            return False
        self.new.extend(items)
        self.floor.items += [furniture_footprint(f) for f in items]
        return True

    def _wall_pose(self, bounds, pad: float):
        rng = self.rng
        wall = ("door", "door", "left", "right")[int(rng.integers(4))]
        lo, hi = _wall_range(wall, self.lobby, self.yf)
        half = 0.5 * (bounds[2] - bounds[0]) + pad
        if hi - lo < 2 * half:
            return None
        return _against(wall, rng.uniform(lo + half, hi - half), bounds, self.lobby)

    def anchors(self) -> list[Furniture]:
        """The reception desk (most lobbies) and one or two seating groups; returns them."""
        rng, lobby, door_x, k, side_gap, yf = self.rng, self.lobby, self.door_x, self.k, self.side_gap, self.yf
        x0, y_back, x1, yw = lobby
        big, put, wall_pose = self.big, self._put, self._wall_pose
        rugs = self.rugs
        self.tile = float(TILES_M[int(rng.integers(len(TILES_M)))])
        self.fabric, self.fabric_rgb = _pick(rng, FABRIC)
        self.wood, self.wood_rgb = _pick(rng, WOOD)
        self.has_gap = has_gap = side_gap[1] > side_gap[0]
        self.solid = {"left", "right"}
        self.windows = None
        if rng.random() < 0.8:                                  # window bays in one side wall
            side = -k if has_gap else (1 if rng.random() < 0.5 else -1)
            wall = "right" if side > 0 else "left"
            sill = _r(rng.uniform(0.35, 0.9))
            head = _r(min(self.wall_height - 0.35, rng.uniform(2.5, 3.0)))
            bays, y = [], rng.uniform(0.2, 1.0)
            while True:
                w = rng.uniform(1.4, 2.2)
                if y + w > yf - 0.6:
                    break
                bays.append([_r(y), _r(y + w)])
                y += w + rng.uniform(0.3, 0.6)
            if bays:
                self.windows = Windows(wall=wall, bays=bays, sill=sill, head=head)
                self.solid.discard(wall)
        if rng.random() < 0.85:                                 # the reception desk
            length = _r(rng.uniform(2.2, 3.0))
            b = fu.local_bounds(fu.reception_parts(length))
            for _ in range(ATTEMPTS):
                pose = wall_pose(b, 0.1)
                if pose and put([Furniture(kind="reception", position=pose[0], yaw_deg=pose[1], size=[length])]):
                    break

        for _ in range(2 if big else 1 + int(rng.random() < 0.35)):   # seating groups
            members = _group(rng.uniform(1.6, 2.2), rng.uniform(0.9, 1.2), 1 + int(rng.random() < 0.7))
            rug_rgb = _pick(rng, RUGS)[1] if rng.random() < 0.75 else None
            local = [Furniture(kind=m[0], position=m[1], yaw_deg=m[2], size=m[3]) for m in members]
            b = _bounds_of(local)
            for _ in range(ATTEMPTS):
                pose = wall_pose(b, 0.2)
                if pose is None:
                    continue
                items = _group_furniture(members, *pose)
                if put(items, hull=_hull(items)):
                    if rug_rgb is not None:
                        c = np.asarray(pose[0]) + rot2(pose[1]) @ np.array([0.5 * (b[0] + b[2]), -0.95])
                        rugs.append(Rug(center=[_r(c[0]), _r(c[1])], size=[_r(b[2] - b[0] - 0.3), 1.9],
                                        yaw_deg=pose[1], color=rug_rgb))
                    break
        return list(self.new)

    def finish(self, furniture: list[Furniture]) -> tuple[list[Furniture], LobbyDecor]:
        """(the new furniture, the decor), placed round `furniture` (the first draw's)."""
        rng, lobby, door_x, k, side_gap, yf = self.rng, self.lobby, self.door_x, self.k, self.side_gap, self.yf
        x0, y_back, x1, yw = lobby
        big, put, wall_pose = self.big, self._put, self._wall_pose
        rugs, windows, solid, has_gap = self.rugs, self.windows, self.solid, self.has_gap
        tile, fabric, fabric_rgb, wood, wood_rgb = self.tile, self.fabric, self.fabric_rgb, self.wood, self.wood_rgb
        self.floor.items += [furniture_footprint(f) for f in furniture]
        singles = [("planter_tall", []), ("planter_small", []), ("planter", [])]
        n_plants = int(rng.integers(2, 6)) + (3 if big else 0)
        wanted = [singles[int(rng.integers(3))] for _ in range(n_plants)]
        if rng.random() < 0.6:
            wanted.append(("water_dispenser", []))
        wanted += [("bin", [])] * int(rng.integers(1, 3))
        for kind, size in wanted:
            probe = Furniture(kind=kind, position=[0.0, 0.0], yaw_deg=0.0, size=size)
            b = _bounds_of([probe])
            for _ in range(ATTEMPTS):
                pose = wall_pose(b, 0.05)
                if pose and put([Furniture(kind=kind, position=pose[0], yaw_deg=pose[1], size=size)],
                                gap=PLANTER_GAP_M):
                    break

        wall_items: list[WallItem] = []

        def wall_free(wall: str, u0: float, u1: float) -> bool:
            lo, hi = _wall_range(wall, lobby, yf)
            if u0 < lo + 0.3 or u1 > hi - 0.3:
                return False
            if wall == "door" and u1 > door_x - 0.95 and u0 < door_x + 0.95:
                return False                                    # the door, its frame and its sign
            if has_gap and wall == ("right" if k > 0 else "left") and u1 > side_gap[0] - 0.3 and u0 < side_gap[1] + 0.3:
                return False
            return all(w.wall != wall or u1 + 0.25 < w.u - w.width / 2 or u0 - 0.25 > w.u + w.width / 2
                       for w in wall_items)

        if rng.random() < 0.7:                                  # the directory board beside the door
            for _ in range(ATTEMPTS):
                u = door_x + (1 if rng.random() < 0.5 else -1) * rng.uniform(1.4, 2.4)
                if wall_free("door", u - 0.45, u + 0.45):
                    wall_items.append(WallItem(kind="directory", wall="door", u=_r(u), z=1.5, width=0.9, height=0.65,
                                               colors=[[0.03, 0.03, 0.04], [0.85, 0.85, 0.82]]))
                    break
        walls = ["door"] + sorted(solid)
        for _ in range(int(rng.integers(2, 6)) + (3 if big else 0)):
            w, h = rng.uniform(0.5, 0.9), rng.uniform(0.6, 1.0)
            wall = walls[int(rng.integers(len(walls)))]
            lo, hi = _wall_range(wall, lobby, yf)
            for _ in range(ATTEMPTS):
                u = rng.uniform(lo, hi)
                if wall_free(wall, u - w / 2, u + w / 2):
                    cols = [list(PRINTS[int(i)]) for i in rng.choice(len(PRINTS), 2, replace=False)]
                    wall_items.append(WallItem(kind="poster", wall=wall, u=_r(u), z=_r(rng.uniform(1.45, 1.75)),
                                               width=_r(w), height=_r(h), colors=cols))
                    break

        skirting = {}
        for wall in ("left", "right"):
            spans = [[_r(y_back), _r(yf - 0.012)]]
            if has_gap and wall == ("right" if k > 0 else "left"):
                spans = [[_r(y_back), side_gap[0]], [side_gap[1], _r(yf - 0.012)]]
            skirting[wall] = spans
        decor = LobbyDecor(tile_m=tile, fabric=fabric, fabric_color=fabric_rgb, wood=wood, wood_color=wood_rgb,
                           windows=windows, wall_items=wall_items, rugs=rugs, skirting=skirting)
        return self.new, decor


def _bounds_of(items: list[Furniture]) -> np.ndarray:
    """[x0, y0, x1, y1] of items' footprints (in the frame their positions are given in)."""
    P = np.vstack([furniture_footprint(f) for f in items])
    return np.array([*P.min(axis=0), *P.max(axis=0)])
