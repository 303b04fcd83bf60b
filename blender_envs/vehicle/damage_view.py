"""`damage_view` (RealityBench §3.2, Tables 1-3): a vehicle-intake technician photographs a
dent / scratch / rust site on the subject car "square onto the damaged area from about an
arm's length, with the whole damaged region and part of the adjacent undamaged panel in
frame", in the shared parking lot (`lot.py`).

Spec side only (no bpy). The scene is car_view's lot with one damage site on the subject
(`damage.sample_damage`: an ellipse on one vertical panel rectangle, one or two kinds, its
area drawn from a severity band), the phone drawn per scene. Stages draw from their own
generators ("subject", "damage", "lot", "phone").

Geometry shared by the builder and the scorer lives here, so the pixels are the numbers:

* the dent profile `dent_depth_m`: depth d (1 - rho^2)^2 inward along the panel normal,
  rho the ellipse-normalised radius; it and its slope are 0 on the ellipse, so the dent
  has a smooth falloff and its footprint is exactly the site's ellipse (area pi a b);
* `patch_mesh`: the damaged surface, a polar grid over the ellipse (displaced for dents),
  and `holed_rect_mesh`: the panel rectangle with the same ellipse polygon cut out, so the
  patch is its own object (pass index `DAMAGE_PASS`) and the object-index pass is the
  damage mask;
* `surface_samples`: world points on the (displaced) damaged surface, for in-frame and
  ray-cast terms.

Field pose (`sample_view`): the technician walks to the damaged panel and photographs
the site: distance to the site centre log-uniform in DISTANCE_M, horizontal azimuth off
the panel normal N(0, AZIMUTH_SD_DEG), eye height standing or crouched (bending to the
site when closer than the height gap), aimed by hand at the site centre. vehicle-8:
neighbours park round the subject (`lot.sample_neighbours`, stage "neighbours") except in
the bays in front of the damaged panel (`site_keeps_clear`: a bay within NEIGHBOUR_KEEP_M of
the site on its outer side), so the technician can stand back from it; a drawn pose is kept
only if the camera stands clear of every car and lamp and no other car meets a sight line to
the site or its neighbouring panels (`sightline.pose_problem`), else drawn again.
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.registry import Environment
from blender_envs.stages import stage_rng
from blender_envs.vehicle.body import (Body, adjacency, arch_axles, arch_top_z, on_surface, panel_samples, sample_body,
                                       sample_color, to_world)
from blender_envs.vehicle.car_parts import arch_outline
from blender_envs.vehicle.damage import (DamageSite, clip_convex, halfplane, in_arch_cutout, polygon_area, sample_damage,
                                         site_rect)
from blender_envs.vehicle.lot import (BAY_CLEAR_MARGIN_M, Bay, LotSpec, bay_corners, sample_lot,
                                      sample_neighbours)
from blender_envs.vehicle.sightline import CLEARANCE_M, MAX_POSE_DRAWS, occluders, pose_problem
from geometry.camera import Phone, look_at, sample_phone, sample_phone_pose
from geometry.scene import SceneSpec, View

GENERATOR_VERSION = "vehicle-8"   # 8: car_view's neighbours (not in front of the damage); blocked poses redrawn
                                  # 7: car_view's paint lines that never overlap (no black bars)
                                  # 6: car_view's busier lot (far cars, tree crowns, skyline, clearer sky)
                                  # 5: rounded corners, crowned tops (the damaged panel follows them)
                                  # 4: car_view's worn lot; the damaged panel's wheel arch cut exactly
                                  # 3: shaped panels (arch cut-outs, shoulder, tumblehome), coated paint
                                  # 2: lamps, mirrors, lathe tyres and spoked rims, printed plates
TARGET = "damage"
DAMAGE_OBJECT = "subject_damage"      # the damaged surface patch (its own object)
DAMAGE_PASS = 89                      # below the lot's 90-98, above the subject's 2..(2 + parts)

# field-pose distribution (tuned against Table 1's 0.38, docs/envs/damage_view.md)
DISTANCE_M = (0.3, 2.6)               # log-uniform, camera to the site centre (3-D)
AZIMUTH_SD_DEG = 20.0                 # horizontal angle off the panel normal
AZIMUTH_MAX_DEG = 80.0                # clipped: the photographer stays in front of the panel
EYE_HEIGHT_M = (1.25, 1.75)           # standing
CROUCH_HEIGHT_M = (0.55, 1.1)         # crouched
CROUCH_SHARE = 0.5                    # low damage is photographed crouching more often than a whole car
BEND_ELEVATION_DEG = 35.0             # closer than the height gap: the phone is lowered to this elevation
AIM_SD_FRAC = 0.10                    # aim error, m per m of distance (each axis)
ROLL_SD_DEG = 4.0
CLEAR_MARGIN_M = 1.0                  # clear disc radius = half-diagonal + DISTANCE_M[1] + this
NEIGHBOUR_KEEP_M = DISTANCE_M[1] + CLEARANCE_M + BAY_CLEAR_MARGIN_M   # vehicle-8: no neighbour this near the site

PATCH_RINGS = 24                      # polar grid of the damaged patch
PATCH_SEGMENTS = 160                  # ellipse polygon vertices (plus the rectangle's 4 corner rays)
RIM_SAMPLE_FRAC = 0.995               # the outer sample ring, just inside the rim the patch shares with the panel


class DamageViewSpec(SceneSpec):
    lot: LotSpec
    phone: Phone
    damage: DamageSite


def clear_radius(body: Body) -> float:
    return math.hypot(body.length_m / 2, body.width_m / 2) + DISTANCE_M[1] + CLEAR_MARGIN_M


def sample_scene(rng: np.random.Generator, scene_id: str, seed: int) -> DamageViewSpec:
    """Subject, its damage, the lot, the phone and (vehicle-8) the neighbours, each from its own
    stage generator."""
    root = int(rng.integers(0, 2**63 - 1))
    srng = stage_rng(root, "subject")
    body, color = sample_body(srng), sample_color(srng)
    damage = sample_damage(stage_rng(root, "damage"), body)
    lot = sample_lot(stage_rng(root, "lot"), clear_radius(body), body, color)
    lot = sample_neighbours(stage_rng(root, "neighbours"), lot, lambda bay: site_keeps_clear(lot, damage, bay))
    phone = sample_phone(stage_rng(root, "phone"))
    return DamageViewSpec(env="damage_view", scene_id=scene_id, seed=seed, lot=lot, phone=phone, damage=damage)


def site_keeps_clear(lot: LotSpec, site: DamageSite, bay: Bay) -> bool:
    """True for a bay no neighbour may take: on the damaged panel's outer side and within
    NEIGHBOUR_KEEP_M of the site centre (horizontally), where the technician stands."""
    car = lot.subject
    c, _, _, n = ellipse_axes(car.body, site)
    cw = to_world(car.placement, c)[:2]
    nw = (to_world(car.placement, n) - to_world(car.placement, np.zeros(3)))[:2]
    corners = bay_corners(bay)
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    gap = np.maximum(np.maximum(lo - cw, cw - hi), 0.0)
    return bool(float(np.hypot(*gap)) <= NEIGHBOUR_KEEP_M and (np.asarray(bay.center) - cw) @ nw > 0.0)


# ------------------------------------------------------------------ the site's geometry (car frame)

def ellipse_axes(body: Body, site: DamageSite) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(centre, a-axis unit, b-axis unit, outward normal) of the site, car frame."""
    rect = site_rect(body, site)
    u, v = np.asarray(rect.u, float), np.asarray(rect.v, float)
    t = math.radians(site.angle_deg)
    ea = math.cos(t) * u + math.sin(t) * v
    eb = -math.sin(t) * u + math.cos(t) * v
    return rect.point(*site.center_uv_m), ea, eb, rect.normal()


def dent_depth_m(site: DamageSite, rho) -> np.ndarray:
    """Inward displacement at ellipse-normalised radius rho: d (1 - rho^2)^2 inside, 0 outside
    (0 for a site without a dent)."""
    r = np.asarray(rho, float)
    if site.depth_mm is None:
        return np.zeros_like(r)
    return np.where(r < 1.0, site.depth_mm / 1000.0 * (1.0 - r * r) ** 2, 0.0)


def rim_angles(body: Body, site: DamageSite, segments: int = PATCH_SEGMENTS) -> np.ndarray:
    """Polar angles (in the ellipse's own axes) of the rim vertices: `segments` uniform
    parameter steps plus the directions of the rectangle's four corners, sorted."""
    rect = site_rect(body, site)
    t = np.linspace(0.0, 2 * math.pi, segments, endpoint=False)
    a, b = (x / 100.0 for x in site.semi_axes_cm)
    phis = list(np.arctan2(b * np.sin(t), a * np.cos(t)))
    ang = math.radians(site.angle_deg)
    cu, cv = site.center_uv_m
    for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        du, dv = su * rect.half_u - cu, sv * rect.half_v - cv
        phis.append(math.atan2(-du * math.sin(ang) + dv * math.cos(ang), du * math.cos(ang) + dv * math.sin(ang)))
    return np.sort(np.mod(np.asarray(phis), 2 * math.pi))


def _ellipse_radius(a: float, b: float, phi) -> np.ndarray:
    """Distance from the centre to the ellipse along polar angle phi (its own axes)."""
    phi = np.asarray(phi, float)
    return a * b / np.sqrt((b * np.cos(phi)) ** 2 + (a * np.sin(phi)) ** 2)


def patch_mesh(body: Body, site: DamageSite, rings: int = PATCH_RINGS,
               segments: int = PATCH_SEGMENTS) -> tuple[np.ndarray, list, np.ndarray]:
    """The damaged surface as (car-frame vertices, quad/tri faces, per-vertex ellipse-axis
    coordinates in metres): a centre vertex and `rings` rings on the rim angles, each
    vertex pushed in by the dent profile. Faces wind so their normal is the panel's."""
    c, ea, eb, n = ellipse_axes(body, site)
    a, b = (x / 100.0 for x in site.semi_axes_cm)
    phis = rim_angles(body, site, segments)
    R = _ellipse_radius(a, b, phis)
    xs, ys, rhos = [0.0], [0.0], [0.0]
    for k in range(1, rings + 1):
        f = k / rings
        xs += list(f * R * np.cos(phis))
        ys += list(f * R * np.sin(phis))
        rhos += [f] * len(phis)
    x, y, rho = np.array(xs), np.array(ys), np.array(rhos)
    V = c + x[:, None] * ea + y[:, None] * eb
    m = len(phis)
    faces = [[0, 1 + j, 1 + (j + 1) % m] for j in range(m)]
    for k in range(rings - 1):
        o0, o1 = 1 + k * m, 1 + (k + 1) * m
        faces += [[o0 + j, o1 + j, o1 + (j + 1) % m, o0 + (j + 1) % m] for j in range(m)]
    # ea x eb = the panel normal (rotation of u, v in their plane), so increasing phi winds outward
    cut, faces = cut_arch(body, site, V, faces)
    if cut is not V:                                    # cut at the arch: texture place and dent from position
        V = cut
        x, y = (V - c) @ ea, (V - c) @ eb
        rho = np.sqrt((x / a) ** 2 + (y / b) ** 2)
    V = on_surface(body, site_rect(body, site).face, V) - dent_depth_m(site, rho)[:, None] * n
    return V, faces, np.c_[x, y]


def cut_arch(body: Body, site: DamageSite, V: np.ndarray, faces: list) -> tuple[np.ndarray, list]:
    """Cut a side panel's wheel arch out of in-plane (unshaped) vertices and faces: every face
    the cut-out (the wheel well's outline, `car_parts.arch_outline`, run on down past the sill)
    overlaps is replaced by its exact pieces outside it (`minus_convex`, new vertices appended),
    a face wholly inside is dropped, unused vertices go. The patch and the holed panel both
    pass through here, so they meet along the cut edge as the well's liner does; a drawn site
    never reaches the cut-out (its keep-out), so its patch is unchanged."""
    axles = arch_axles(body, site.panel)
    if not axles:
        return V, faces
    y = float(V[0, 1]) if len(V) else 0.0
    cuts = [arch_cutout_xz(body, xa) for xa in axles]
    xz = V[:, [0, 2]]
    # per vertex and cut-out edge: which side (vectorised), so most faces are decided at once
    sides = [np.stack([(p1[0] - p0[0]) * (xz[:, 1] - p0[1]) - (p1[1] - p0[1]) * (xz[:, 0] - p0[0])
                       for p0, p1 in zip(C, np.roll(C, -1, axis=0))], axis=1) for C in cuts]
    pts, out = [list(p) for p in V], []
    for q in faces:
        qs = [S[q] for S in sides]
        if all(np.any(np.all(S <= 0, axis=0)) for S in qs):
            out.append(list(q))                          # an edge of every cut-out separates it: untouched
            continue
        if any(np.all(S >= 0) for S in qs):
            continue                                     # wholly in a cut-out: dropped
        pieces = [V[q][:, [0, 2]]]
        for C in cuts:
            pieces = [p for piece in pieces for p in minus_convex(piece, C)]
        if len(pieces) == 1 and np.array_equal(pieces[0], V[q][:, [0, 2]]):
            out.append(list(q))                          # untouched
            continue
        for p in pieces:
            out.append(list(range(len(pts), len(pts) + len(p))))
            pts += [[float(x), y, float(z)] for x, z in p]
    if len(pts) == len(V) and len(out) == len(faces):
        return V, faces                                  # nothing reached the cut-out
    used = sorted({k for f in out for k in f})
    index = {k: i for i, k in enumerate(used)}
    return np.array(pts, float)[used].reshape(-1, 3), [[index[k] for k in f] for f in out]


def arch_cutout_xz(body: Body, axle_x: float) -> np.ndarray:
    """The arch cut-out as a convex polygon in a side's (x, z), counter-clockwise: the wheel
    well's outline (car_parts.arch_outline) with its sill corners moved 10 cm below the sill."""
    o = arch_outline(body, axle_x)[::-1].copy()
    o[[0, -1], 1] = body.clearance_m - 0.1
    return o


def minus_convex(P: np.ndarray, C: np.ndarray, eps: float = 1e-9) -> list[np.ndarray]:
    """Convex polygon P (n, 2) minus convex polygon C (counter-clockwise) as convex pieces, in
    P's winding: the part right of C's first edge, then of the second left of the first, ...
    P itself (the same array) when they do not overlap (to eps of P's area), [] when C covers P."""
    lo, hi = C.min(axis=0), C.max(axis=0)
    if np.any(P.max(axis=0) <= lo) or np.any(P.min(axis=0) >= hi):
        return [P]
    whole, common = abs(polygon_area(P)), abs(polygon_area(clip_convex(P, C)))
    if common <= eps * whole:
        return [P]                                       # near the cut-out, not in it
    if common >= (1 - eps) * whole:
        return []
    pieces, rest = [], P
    for p0, p1 in zip(C, np.roll(C, -1, axis=0)):
        if len(rest) < 3:
            break
        out = halfplane(rest, p0, p1, keep_left=False)
        if len(out) >= 3 and abs(polygon_area(out)) > eps * whole:
            pieces.append(out)
        rest = halfplane(rest, p0, p1)
    return pieces


def holed_rect_mesh(body: Body, site: DamageSite, segments: int = PATCH_SEGMENTS) -> tuple[np.ndarray, list]:
    """The site's panel rectangle minus the patch's rim polygon: one quad per rim angle from
    the rim vertex out along the same polar ray to the rectangle's boundary. The corner
    rays make the outer loop the rectangle exactly."""
    rect = site_rect(body, site)
    c, ea, eb, _ = ellipse_axes(body, site)
    a, b = (x / 100.0 for x in site.semi_axes_cm)
    phis = rim_angles(body, site, segments)
    R = _ellipse_radius(a, b, phis)
    u, v = np.asarray(rect.u, float), np.asarray(rect.v, float)
    centre_uv = np.asarray(site.center_uv_m, float)
    inner = c + (R * np.cos(phis))[:, None] * ea + (R * np.sin(phis))[:, None] * eb
    dirs = np.cos(phis)[:, None] * ea + np.sin(phis)[:, None] * eb
    du, dv = dirs @ u, dirs @ v
    with np.errstate(divide="ignore"):
        tu = np.where(np.abs(du) > 1e-12, (np.sign(du) * rect.half_u - centre_uv[0]) / du, np.inf)
        tv = np.where(np.abs(dv) > 1e-12, (np.sign(dv) * rect.half_v - centre_uv[1]) / dv, np.inf)
    outer = c + np.minimum(tu, tv)[:, None] * dirs
    m = len(phis)
    V = np.concatenate([inner, outer])
    faces = [[j, m + j, m + (j + 1) % m, (j + 1) % m] for j in range(m)]
    return V, faces


HOLED_RINGS = 8                       # radial subdivisions of the holed panel's quads (to follow the shape)
HOLED_OUTER = (0.93, 0.96, 0.98, 0.99, 0.995)   # vehicle-5: and these fractions near the rectangle's edge,
                                      # where the rounded corners, the roll and the top band curve it


def holed_panel_mesh(body: Body, site: DamageSite, segments: int = PATCH_SEGMENTS) -> tuple[np.ndarray, list]:
    """What the builder links for the damaged rectangle: `holed_rect_mesh`'s quads cut into
    HOLED_RINGS along their polar rays (and at HOLED_OUTER, closer near the edge, so a rounded
    corner across the panel is not one chord), the wheel arch cut out as panel_mesh cuts it (a vertex
    under the arch's top moves up onto it; a quad whose centre is in the cut-out is dropped:
    `cut_arch`), then moved onto the shaped surface. Its inner loop is the patch's rim, vertex
    for vertex, the cut-out's part of it moved as the patch's is."""
    V0, F0 = holed_rect_mesh(body, site, segments)
    m = len(F0)
    inner, outer = V0[:m], V0[m:]
    f = np.unique(np.r_[np.linspace(0.0, 1.0, HOLED_RINGS + 1), HOLED_OUTER])
    V = (inner[None] + f[:, None, None] * (outer - inner)[None]).reshape(-1, 3)     # ring k: V[k m + j]
    faces = [[k * m + j, (k + 1) * m + j, (k + 1) * m + (j + 1) % m, k * m + (j + 1) % m]
             for k in range(len(f) - 1) for j in range(m)]
    V, faces = cut_arch(body, site, V, faces)
    return on_surface(body, site_rect(body, site).face, V), faces


def polygon_area_on_plane(V: np.ndarray, faces, normal) -> float:
    """Sum of the faces' areas projected onto the plane of `normal` (m^2; fan-triangulated)."""
    n = np.asarray(normal, float) / np.linalg.norm(normal)
    total = 0.0
    for f in faces:
        p = V[f]
        for i in range(1, len(f) - 1):
            total += float(np.cross(p[i] - p[0], p[i + 1] - p[0]) @ n) / 2.0
    return total


def surface_samples(body: Body, site: DamageSite, rings: int = 4, n: int = 32) -> np.ndarray:
    """Car-frame samples of the damaged surface (dent included): the centre and `rings`
    rings of n points, the outermost just inside the rim (the scorer's in-frame / unoccluded set);
    those in a wheel-arch cut-out, where there is no surface, left out."""
    c, ea, eb, nrm = ellipse_axes(body, site)
    a, b = (x / 100.0 for x in site.semi_axes_cm)
    t = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    fs = [k / rings for k in range(1, rings + 1)]
    fs[-1] = RIM_SAMPLE_FRAC
    x = np.concatenate([[0.0]] + [f * a * np.cos(t) for f in fs])
    y = np.concatenate([[0.0]] + [f * b * np.sin(t) for f in fs])
    rho = np.concatenate([[0.0]] + [np.full(n, f) for f in fs])
    P = c + x[:, None] * ea + y[:, None] * eb
    keep = ~in_arch_cutout(body, site.panel, P)         # none dropped on a drawn site (clear of the arch)
    P = on_surface(body, site_rect(body, site).face, P[keep])
    return P - dent_depth_m(site, rho[keep])[:, None] * nrm


def neighbours(body: Body, site: DamageSite) -> list[str]:
    """Panels sharing an edge with the damaged one (the 'adjacent panel' of the requirement)."""
    return adjacency(body)[site.panel]


def neighbour_samples(body: Body, site: DamageSite, n: int = 9) -> dict[str, np.ndarray]:
    return {name: panel_samples(body, name, n) for name in neighbours(body, site)}


# ------------------------------------------------------------------ the field pose

def field_eye(spec: DamageViewSpec, azimuth_deg: float, dist_m: float, height_m: float) -> np.ndarray:
    """World eye at `dist_m` (3-D) from the site centre, `azimuth_deg` off the panel normal
    about the vertical (positive moves the eye towards the panel's u, the right of someone
    facing the panel), at `height_m` above the ground. Closer than the height gap,
    the phone comes down to BEND_ELEVATION_DEG above (or below) the site."""
    car = spec.lot.subject
    c, _, _, n = ellipse_axes(car.body, spec.damage)
    u = np.asarray(site_rect(car.body, spec.damage).u, float)
    dz = height_m - c[2]
    if dist_m > abs(dz) + 0.05:
        h = math.sqrt(dist_m * dist_m - dz * dz)
    else:
        e = math.radians(BEND_ELEVATION_DEG)
        h, dz = dist_m * math.cos(e), math.copysign(dist_m * math.sin(e), dz)
    a = math.radians(azimuth_deg)
    horiz = math.cos(a) * n + math.sin(a) * u
    return to_world(car.placement, c + h * horiz + np.array([0.0, 0.0, dz]))


def sample_view(spec: DamageViewSpec, rng: np.random.Generator, view_index: int, long_side_px: int,
                attempt: int = 0) -> View:
    """A field pose the technician can take: `draw_view` again until `sightline.pose_problem`
    finds nothing in the way of the site and its neighbouring panels (a RuntimeError after
    MAX_POSE_DRAWS draws)."""
    boxes = occluders(spec.lot)
    car = spec.lot.subject
    local = [surface_samples(car.body, spec.damage)] + list(neighbour_samples(car.body, spec.damage).values())
    targets = to_world(car.placement, np.concatenate(local))
    problems = []
    for _ in range(MAX_POSE_DRAWS):
        view = draw_view(spec, rng, view_index, long_side_px, attempt)
        problem = pose_problem(boxes, view.pose.center, targets)
        if problem is None:
            return view
        problems.append(problem)
    raise RuntimeError(f"damage_view {spec.scene_id} view {view_index}: no clear pose in {MAX_POSE_DRAWS} draws "
                       f"(last: {problems[-1]})")


def draw_view(spec: DamageViewSpec, rng: np.random.Generator, view_index: int, long_side_px: int,
              attempt: int = 0) -> View:
    """Walk to the damaged panel, stand or crouch an arm's length or so away, aim at the site."""
    car = spec.lot.subject
    az = float(np.clip(rng.normal(0.0, AZIMUTH_SD_DEG), -AZIMUTH_MAX_DEG, AZIMUTH_MAX_DEG))
    dist = float(math.exp(rng.uniform(math.log(DISTANCE_M[0]), math.log(DISTANCE_M[1]))))
    height = float(rng.uniform(*CROUCH_HEIGHT_M)) if rng.random() < CROUCH_SHARE else float(rng.uniform(*EYE_HEIGHT_M))
    eye = field_eye(spec, az, dist, height)
    centre = to_world(car.placement, ellipse_axes(car.body, spec.damage)[0])
    aim = centre + rng.normal(0.0, AIM_SD_FRAC * dist, size=3)
    T = look_at(eye, aim, roll_rad=math.radians(float(rng.normal(0.0, ROLL_SD_DEG))))
    pose = sample_phone_pose(rng, spec.phone, T, centre, long_side_px)
    return View(view_index=view_index, pose=pose, target=f"{TARGET}:{spec.damage.panel}", attempt=attempt)


ENV = Environment(
    name="damage_view",
    family="vehicle",
    version=GENERATOR_VERSION,
    views_per_scene=4,
    sample_scene=sample_scene,
    sample_view=sample_view,
    builder="blender_envs.vehicle.damage_view_build:build",
    scorer="scorers.damage_view",
    spec_model=DamageViewSpec,
    prompts="realitybench",
)
