"""Damage sites (dent / scratch / rust) on a chosen panel, with their exact area.

A car has one damage site: an ellipse on one planar panel rectangle (body.panels) with
one or more kinds in it (a dent with scratches across it is one damaged area, so the
severity of the frame is that ellipse's area, never a sum to argue about). Drawn sites
lie wholly inside their rectangle and clear of wheel arches and plates, so their area,
pi * a * b with the semi-axes in cm, is the exact damaged surface in cm^2. A site given
by hand (a spec read back, a test) may reach into a fender's or quarter panel's wheel-arch
cut-out: `site_area_cm2` is then the ellipse minus the cut-out, the surface the builder
meshes (damage_view.patch_mesh drops the same part).

Areas are drawn away from the severity thresholds (100 and 500 cm^2, App. D / Table 3):
minor 20-80, moderate 120-450, severe 600-2,000 cm^2, a third each (vehicles.md: raters
split most on this environment, alpha 0.19; a frame 5 cm^2 from a threshold would test
the model's ruler, not its judgement). The severity label itself is decided by
scorers.damage_view.severity_of; tests check both agree on every draw.

Sites are placed on the four vertical faces only (bumpers, fenders, doors, quarter
panels, the trunk's or tailgate's rear face): a standing photographer can be square-on
to them from an arm's length, not to a roof.
"""
from __future__ import annotations

import math
from itertools import combinations
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from blender_envs.vehicle.body import Body, KeepOut, PanelRect, arch_axles, arch_top_z, panels

DamageKind = Literal["dent", "scratch", "rust"]
KINDS: tuple[str, ...] = ("dent", "scratch", "rust")
AREA_BANDS_CM2: dict[str, tuple[float, float]] = {"minor": (20.0, 80.0), "moderate": (120.0, 450.0),
                                                  "severe": (600.0, 2000.0)}
TWO_KIND_SHARE = 0.25             # sites with two kinds
DENT_DEPTH_MM = (2.0, 25.0)
EDGE_MARGIN_M = 0.03              # the ellipse stays this far inside its rectangle and from keep-outs
ASPECT = {"blotch": (0.5, 1.0), "scratch": (0.15, 0.4)}   # b / a
SHAPE_TRIES = 20
PLACE_TRIES = 50


class DamageSite(BaseModel):
    """An elliptical damaged area on one panel rectangle; (u, v) in that rectangle's axes."""

    model_config = ConfigDict(extra="forbid")
    panel: str
    rect_index: int               # which of the panel's rectangles
    kinds: list[DamageKind]       # sorted, unique
    center_uv_m: list[float]      # from the rectangle's centre
    semi_axes_cm: list[float]     # a >= b
    angle_deg: float              # of the a axis from the rectangle's u axis
    depth_mm: float | None        # dents only
    band: Literal["minor", "moderate", "severe"]   # the area band it was drawn from
    texture_seed: int             # noise seed for the builder's scratch / rust pattern

    @property
    def area_cm2(self) -> float:
        a, b = self.semi_axes_cm
        return math.pi * a * b


def ellipse_half_extents(a: float, b: float, angle_deg: float) -> tuple[float, float]:
    """Half-width along u and half-height along v of an ellipse rotated by angle_deg."""
    t = math.radians(angle_deg)
    c, s = math.cos(t), math.sin(t)
    return math.sqrt((a * c) ** 2 + (b * s) ** 2), math.sqrt((a * s) ** 2 + (b * c) ** 2)


def site_fits(rect: PanelRect, center_uv, a_m: float, b_m: float, angle_deg: float,
              margin: float = EDGE_MARGIN_M) -> bool:
    """The ellipse lies inside the rectangle (by `margin`) and clears every keep-out disc."""
    hu, hv = ellipse_half_extents(a_m, b_m, angle_deg)
    u, v = float(center_uv[0]), float(center_uv[1])
    if abs(u) + hu > rect.half_u - margin or abs(v) + hv > rect.half_v - margin:
        return False
    if not all(_clearance(u, v, a_m, b_m, angle_deg, k.u, k.v) >= k.radius + margin for k in rect.keep_out):
        return False
    return not any(_enters_arch_strip(u, v, a_m, b_m, angle_deg, k) for k in rect.keep_out if k.what == "wheel_arch")


def _enters_arch_strip(u: float, v: float, a: float, b: float, angle_deg: float, k: KeepOut, n: int = 720) -> bool:
    """Whether the ellipse's boundary enters the strip under an arch's keep-out disc (|du| < radius,
    below its centre): the cut-out is the disc and that strip (body.arch_top_z), and the strip's
    lower corners lie outside the disc. The ellipse is convex and the strip runs off the
    rectangle's bottom edge, so the boundary enters it whenever the ellipse does."""
    t = math.radians(angle_deg)
    th = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    eu, ev = a * np.cos(th), b * np.sin(th)
    pu = u + eu * math.cos(t) - ev * math.sin(t)
    pv = v + eu * math.sin(t) + ev * math.cos(t)
    return bool(np.any((np.abs(pu - k.u) < k.radius) & (pv < k.v)))


def _clearance(u: float, v: float, a: float, b: float, angle_deg: float, pu: float, pv: float,
               n: int = 720) -> float:
    """Distance from point (pu, pv) to the filled ellipse (0 inside), to within the polygon's sagitta.

    The boundary is sampled at n points; the returned distance is reduced by the largest
    gap between the curve and its inscribed polygon, a*(1 - cos(pi/n)), so it never
    overstates the clearance.
    """
    t = math.radians(angle_deg)
    c, s = math.cos(t), math.sin(t)
    du, dv = pu - u, pv - v
    x, y = du * c + dv * s, -du * s + dv * c          # the point in the ellipse's own axes
    if (x / a) ** 2 + (y / b) ** 2 <= 1.0:
        return 0.0
    th = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    d = float(np.min(np.hypot(a * np.cos(th) - x, b * np.sin(th) - y)))
    return max(d - a * (1.0 - math.cos(math.pi / n)), 0.0)


def damage_rects(body: Body) -> list[tuple[str, int, PanelRect]]:
    """(panel, index, rect) of every rectangle on the four vertical faces, in panel order."""
    return [(name, i, r) for name, rects in panels(body).items() for i, r in enumerate(rects) if r.face != "top"]


def _kinds(rng: np.random.Generator) -> list[str]:
    if rng.random() < TWO_KIND_SHARE:
        pairs = list(combinations(KINDS, 2))
        return list(pairs[int(rng.integers(len(pairs)))])
    return [KINDS[int(rng.integers(len(KINDS)))]]


def sample_damage(rng: np.random.Generator, body: Body, band: str | None = None) -> DamageSite:
    """Draw kinds and band, then a shape (area, aspect, angle) and a place where it fits.

    The band is kept; a shape with no place on this body (a long scratch band on a
    hatchback) is redrawn, up to SHAPE_TRIES shapes of PLACE_TRIES places each. The area
    is drawn before the place so the band is exact; raises when nothing fits.
    """
    band = list(AREA_BANDS_CM2)[int(rng.integers(3))] if band is None else band
    kinds = _kinds(rng)
    depth = round(float(rng.uniform(*DENT_DEPTH_MM)), 3) if "dent" in kinds else None
    seed = int(rng.integers(2**31 - 1))
    lo, hi = AREA_BANDS_CM2[band]
    for _ in range(SHAPE_TRIES):
        area = float(rng.uniform(lo, hi))
        ratio = float(rng.uniform(*ASPECT["scratch" if kinds == ["scratch"] else "blotch"]))
        a_cm = round(math.sqrt(area / (math.pi * ratio)), 2)
        b_cm = round(a_cm * ratio, 2)
        angle = round(float(rng.uniform(-30.0, 30.0)), 3)
        a_m, b_m = a_cm / 100.0, b_cm / 100.0
        hu, hv = ellipse_half_extents(a_m, b_m, angle)
        rects = [(n, i, r) for n, i, r in damage_rects(body)
                 if r.half_u - EDGE_MARGIN_M > hu and r.half_v - EDGE_MARGIN_M > hv]
        for _ in range(PLACE_TRIES if rects else 0):
            name, idx, rect = rects[int(rng.integers(len(rects)))]
            su, sv = rect.half_u - EDGE_MARGIN_M - hu, rect.half_v - EDGE_MARGIN_M - hv
            uv = [round(float(rng.uniform(-su, su)), 4) + 0.0, round(float(rng.uniform(-sv, sv)), 4) + 0.0]
            if site_fits(rect, uv, a_m, b_m, angle):
                return DamageSite(panel=name, rect_index=idx, kinds=sorted(kinds), center_uv_m=uv,
                                  semi_axes_cm=[a_cm, b_cm], angle_deg=angle, depth_mm=depth, band=band,
                                  texture_seed=seed)
    raise ValueError(f"no {band} {'+'.join(kinds)} site fits this {body.style}")


def site_rect(body: Body, site: DamageSite) -> PanelRect:
    return panels(body)[site.panel][site.rect_index]


def site_center(body: Body, site: DamageSite) -> np.ndarray:
    """Car-frame centre of the site."""
    return site_rect(body, site).point(*site.center_uv_m)


def site_outline(body: Body, site: DamageSite, n: int = 64) -> np.ndarray:
    """Car-frame points on the ellipse boundary (n, 3)."""
    rect = site_rect(body, site)
    a, b = (x / 100.0 for x in site.semi_axes_cm)
    t = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    ang = math.radians(site.angle_deg)
    eu, ev = a * np.cos(t), b * np.sin(t)
    u = site.center_uv_m[0] + eu * math.cos(ang) - ev * math.sin(ang)
    v = site.center_uv_m[1] + eu * math.sin(ang) + ev * math.cos(ang)
    return rect.point(u, v)


def site_samples(body: Body, site: DamageSite, rings: int = 4, n: int = 32) -> np.ndarray:
    """Car-frame samples of the damaged ellipse: its centre and `rings` concentric rings of n
    points out to the boundary (the outermost ring is the outline)."""
    rect = site_rect(body, site)
    a, b = (x / 100.0 for x in site.semi_axes_cm)
    ang = math.radians(site.angle_deg)
    t = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    us, vs = [0.0], [0.0]
    for k in range(1, rings + 1):
        f = k / rings
        eu, ev = f * a * np.cos(t), f * b * np.sin(t)
        us += list(eu * math.cos(ang) - ev * math.sin(ang))
        vs += list(eu * math.sin(ang) + ev * math.cos(ang))
    return rect.point(site.center_uv_m[0] + np.array(us), site.center_uv_m[1] + np.array(vs))


# ------------------------------------------------------------------ the damaged area with a wheel arch

ELLIPSE_POLYGON_N = 1024          # the ellipse as an inscribed polygon (area short by 6e-6 relative)
ARCH_POLYGON_N = 512              # the arch circle's upper half


def polygon_area(P: np.ndarray) -> float:
    """Signed shoelace area of a closed polygon (n, 2); positive counter-clockwise."""
    x, y = P[:, 0], P[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


def halfplane(P: np.ndarray, p0: np.ndarray, p1: np.ndarray, keep_left: bool = True) -> np.ndarray:
    """One Sutherland-Hodgman pass, vectorised: the part of polygon P (n, 2) left (or right) of
    the line p0 -> p1, in P's winding."""
    e = p1 - p0
    side = e[0] * (P[:, 1] - p0[1]) - e[1] * (P[:, 0] - p0[0])
    side = side if keep_left else -side
    nxt, s_nxt = np.roll(P, -1, axis=0), np.roll(side, -1)
    inside, inside_nxt = side >= 0, s_nxt >= 0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = side / (side - s_nxt)                        # used only where the two sides differ
        cross = P + t[:, None] * (nxt - P)
    keep = np.c_[inside, inside != inside_nxt]           # per vertex: itself, then the crossing
    return np.stack([P, cross], axis=1)[keep]


def clip_convex(subject: np.ndarray, clip: np.ndarray) -> np.ndarray:
    """Sutherland-Hodgman: the part of polygon `subject` (n, 2) inside the convex polygon `clip`
    (m, 2, counter-clockwise), one clip edge at a time."""
    out = np.asarray(subject, float)
    for p0, p1 in zip(clip, np.roll(clip, -1, axis=0)):
        if len(out) == 0:
            break
        out = halfplane(out, p0, p1)
    return out


def site_polygon_uv(site: DamageSite, n: int = ELLIPSE_POLYGON_N) -> np.ndarray:
    """The site's ellipse as an inscribed polygon in its rectangle's (u, v), counter-clockwise."""
    a, b = (x / 100.0 for x in site.semi_axes_cm)
    t = math.radians(site.angle_deg)
    th = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    eu, ev = a * np.cos(th), b * np.sin(th)
    return np.c_[site.center_uv_m[0] + eu * math.cos(t) - ev * math.sin(t),
                 site.center_uv_m[1] + eu * math.sin(t) + ev * math.cos(t)]


def arch_cutouts_uv(body: Body, site: DamageSite, n: int = ARCH_POLYGON_N) -> list[np.ndarray]:
    """Each wheel-arch cut-out of the site's rectangle (body.arch_top_z: the circle of radius
    `arch_radius_m` about the axle at wheel-radius height, and the strip under it down past the
    rectangle's bottom) as a convex polygon in the rectangle's (u, v), counter-clockwise."""
    rect = site_rect(body, site)
    c, u, v = (np.asarray(x, float) for x in (rect.center, rect.u, rect.v))
    r, R, below = body.arch_radius_m(), body.wheel_radius_m, body.clearance_m - 0.1
    th = np.linspace(0.0, math.pi, n + 1)
    out = []
    for xa in arch_axles(body, site.panel):
        xz = np.r_[np.c_[xa + r * np.cos(th), R + r * np.sin(th)], [[xa - r, below], [xa + r, below]]]
        P = np.c_[xz[:, 0], np.full(len(xz), c[1]), xz[:, 1]] - c
        poly = np.c_[P @ u, P @ v]
        out.append(poly if polygon_area(poly) > 0 else poly[::-1])
    return out


def site_area_cm2(body: Body, site: DamageSite) -> float:
    """The damaged area (cm^2) seen square-on: the ellipse minus any wheel-arch cut-out it reaches
    into (pi a b exactly when it reaches none, as every drawn site). Refuses a site that leaves
    its rectangle or lies wholly in the cut-out: there is no surface for it."""
    rect = site_rect(body, site)
    a, b = (x / 100.0 for x in site.semi_axes_cm)
    hu, hv = ellipse_half_extents(a, b, site.angle_deg)
    u, v = site.center_uv_m
    if abs(u) + hu > rect.half_u + 1e-9 or abs(v) + hv > rect.half_v + 1e-9:
        raise ValueError(f"damage site leaves its panel rectangle ({site.panel} #{site.rect_index})")
    ellipse = site_polygon_uv(site)
    lo, hi = ellipse.min(axis=0), ellipse.max(axis=0)
    cut = sum(polygon_area(clip_convex(ellipse, arch)) for arch in arch_cutouts_uv(body, site)
              if np.all(arch.min(axis=0) < hi) and np.all(arch.max(axis=0) > lo))    # boxes overlap
    if cut == 0.0:
        return site.area_cm2
    left = site.area_cm2 * (1.0 - cut / polygon_area(ellipse))    # the share kept, of the exact pi a b
    if left <= 1e-9 * site.area_cm2:
        raise ValueError(f"damage site lies wholly in the wheel-arch cut-out of {site.panel}")
    return left


def in_arch_cutout(body: Body, panel: str, points) -> np.ndarray:
    """Whether car-frame point(s) on a side panel's plane lie in its wheel-arch cut-out."""
    P = np.asarray(points, float)
    axles = arch_axles(body, panel)
    if not axles:
        return np.zeros(P.shape[:-1], bool)
    return P[..., 2] < np.max([arch_top_z(body, xa, P[..., 0]) for xa in axles], axis=0)
