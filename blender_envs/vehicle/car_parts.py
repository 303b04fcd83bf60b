"""Car trim as numpy mesh parts (no bpy): lamps, grille, door handles, side mirrors, tyres,
spoked rims, wheel wells, shut lines.

car_build links exactly these parts; `body.hull_points` takes its mirror and tyre points
from here, and the tests' ray-cast meshes triangulate the same parts, so a term measured
on the spec sees the geometry the pixels show. All coordinates are in the car frame
(body.py). Lamp, grille and handle rectangles are `body.face_trim` (the damage keep-outs
use them too).
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.vehicle.body import (_AXES, SIDES, WHEEL_PROUD_M, WHEEL_WIDTH_M, Body, FaceTrim, corner_radius_m,
                                       end_corner_depth, face_trim, on_surface, side_inset)
from blender_envs.vehicle.panel_mesh import end_row_y
from geometry.mesh_parts import BOX_FACES, Part, merge_parts

LAMP_PROUD_M = 0.004        # lamp lenses and the grille stand this far in front of their face (plates: 5 mm)
HANDLE_PROUD_M = 0.012      # door handles stand this far out from the door
BEZEL_M = 0.012             # the dark housing shows this far round a lamp's lens
WHEEL_SEGMENTS = 32         # tyre and rim lathe segments (the hull takes every other one)
RIM_FRAC = 0.64             # rim (bead seat) radius / tyre radius
RIM_RECESS_M = 0.012        # the rim's face sits this far inside the tyre's outer face (still 8 mm proud
                            # of the side plane: the wheel well disc covers the flat fender behind it)
SHUT_LINE_M = (0.004, 0.0005)   # shut lines: width, and how far they stand proud of their panels
MIRROR_REACH_M = 0.20       # mirror housings reach this far out from the side plane
ARCH_GAP_IN_M = 0.004       # the wheel well's dark ring starts this far outside the tread
SPOKES = {"sedan": 5, "hatchback": 6, "coupe": 10, "convertible": 5, "wagon": 6, "SUV": 6, "crossover": 5,
          "minivan": 10, "pickup": 6, "van": 8}

# Tyre cross-section, outer face to inner face: (radius / R, distance inside the outer face in m);
# the sidewall bulges out to the outer face at 0.80 R, the tread is flat at R.
_TYRE_OUTER = ((RIM_FRAC, 0.012), (0.80, 0.0), (0.93, 0.008), (0.985, 0.025), (1.0, 0.05))


LAMP_COLUMNS = 8            # a lamp's quad in this many columns along u, so it wraps round a rounded corner
LENS_ROWS = 4               # a lens's rows along v (its bulge needs more than the flat quad's one)
LENS_BULGE_M = {"headlamp": 0.012, "tail_lamp": 0.008, "indicator": 0.004}   # vehicle-6: the lens's dome at
                            # its centre, out from LAMP_PROUD_M (a pillow: (1 - a^2)(1 - b^2), 0 at the rim)


def _quad_on_face(t: FaceTrim, grow: float, proud: float, body: Body | None = None) -> Part:
    """A trim item's rectangle grown by `grow` each way, `proud` in front of its face. Given the
    body, a front or rear item is a strip of LAMP_COLUMNS quads laid on the shaped face
    (`body.on_surface`: round the corner's arc, down with the top band) and `proud` out along
    the arc's normal there."""
    u, v = (np.asarray(a, float) for a in _AXES[t.face])
    n = np.cross(u, v)
    c = np.asarray(t.center, float)
    hu, hv = t.half_u + grow, t.half_v + grow
    if body is None or t.face in SIDES:
        c = c + proud * n
        return (np.array([c + su * hu * u + sv * hv * v for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))]),
                [(0, 1, 2, 3)])
    su = np.linspace(-1.0, 1.0, LAMP_COLUMNS + 1)
    flat = np.array([c + a * hu * u + b * hv * v for b in (-1.0, 1.0) for a in su])
    P = on_surface(body, t.face, flat)
    k = LAMP_COLUMNS + 1
    P += proud * _end_normals(body, t.face, flat)
    return P, [(i, i + 1, k + i + 1, k + i) for i in range(LAMP_COLUMNS)]


def lens_on_face(t: FaceTrim, proud: float, bulge: float, body: Body) -> Part:
    """A lamp lens (vehicle-6): `_quad_on_face`'s strip on the shaped end face, in LENS_ROWS rows,
    each point out along the face's normal by `proud` plus a pillow dome, `bulge` at the centre
    and nothing at the rim, so the lens meets its bezel and bulges like a moulded lens over
    the flat reflector behind it. Side-face items stay flat quads."""
    if t.face in SIDES:
        return _quad_on_face(t, 0.0, proud, body)
    u, v = (np.asarray(a, float) for a in _AXES[t.face])
    c = np.asarray(t.center, float)
    su = np.linspace(-1.0, 1.0, LAMP_COLUMNS + 1)
    sv = np.linspace(-1.0, 1.0, LENS_ROWS + 1)
    A, Bv = (g.ravel() for g in np.meshgrid(su, sv))           # row by row along v
    flat = c + A[:, None] * t.half_u * u + Bv[:, None] * t.half_v * v
    dome = proud + bulge * (1.0 - A * A) * (1.0 - Bv * Bv)
    P = on_surface(body, t.face, flat) + dome[:, None] * _end_normals(body, t.face, flat)
    k = LAMP_COLUMNS + 1
    return P, [(r * k + i, r * k + i + 1, (r + 1) * k + i + 1, (r + 1) * k + i)
               for r in range(LENS_ROWS) for i in range(LAMP_COLUMNS)]


def _end_normals(body: Body, face: str, flat: np.ndarray) -> np.ndarray:
    """Outward plan-view normals of a front or rear face at in-plane points (the corner arc's
    radial direction where the face is set back, the face normal elsewhere)."""
    phi = np.arcsin(end_corner_depth(body, flat[:, 1], flat[:, 2]) / corner_radius_m(body))
    sx = 1.0 if face == "front" else -1.0
    return np.c_[sx * np.cos(phi), np.sign(flat[:, 1]) * np.sin(phi), np.zeros(len(flat))]


def _handle_box(t: FaceTrim, body: Body | None = None) -> Part:
    """A door handle: a slab HANDLE_PROUD_M proud of the door, its outer face a little smaller."""
    u, v = (np.asarray(a, float) for a in _AXES[t.face])
    n = np.cross(u, v)
    c = np.asarray(t.center, float)
    if body is not None and t.face in SIDES:     # on the shaped door surface, not its plane
        c = on_surface(body, t.face, c)
    ring = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
    base = [c + su * t.half_u * u + sv * t.half_v * v for su, sv in ring]
    face = [c + HANDLE_PROUD_M * n + su * (t.half_u - 0.01) * u + sv * (t.half_v - 0.006) * v for su, sv in ring]
    return _hexahedron(base + face)


def lamp_parts(body: Body) -> dict[str, Part]:
    """Merged parts by material: dark bezels (round every lamp and the grille), chrome
    headlamp reflectors, clear headlamp lenses, red tail-lamp lenses, amber indicator
    lenses, the grille, the door handles. Layered a millimetre apart in front of the
    face: bezel 1 mm, reflector 2 mm, lenses and grille LAMP_PROUD_M; the lenses domed out
    from there (vehicle-6, `lens_on_face`)."""
    groups: dict[str, list[Part]] = {"lamp_bezels": [], "headlamp_reflectors": [], "headlamp_lenses": [],
                                     "tail_lamps": [], "indicators": [], "grille": [], "door_handles": []}
    for t in face_trim(body):
        if t.kind == "handle":
            groups["door_handles"].append(_handle_box(t, body))
            continue
        groups["lamp_bezels"].append(_quad_on_face(t, BEZEL_M, 0.001, body))
        lens = (lens_on_face(t, LAMP_PROUD_M, LENS_BULGE_M[t.kind], body) if t.kind in LENS_BULGE_M
                else _quad_on_face(t, 0.0, LAMP_PROUD_M, body))
        if t.kind == "headlamp":
            groups["headlamp_reflectors"].append(_quad_on_face(t, 0.0, 0.002, body))
            groups["headlamp_lenses"].append(lens)
        elif t.kind == "tail_lamp":
            groups["tail_lamps"].append(lens)
        elif t.kind == "grille":
            groups["grille"].append(lens)
        else:
            groups["indicators"].append(lens)
    return {k: merge_parts(v) for k, v in groups.items()}


def _hexahedron(P) -> Part:
    """Eight corners in box_part's order (0-3 one end ring, 4-7 the other) as six quads."""
    return np.asarray(P, float), list(BOX_FACES)


def mirror_boxes(body: Body) -> dict[str, np.ndarray]:
    """Per side the mirror's corners (8, 3): a stalk-mounted housing on the door's top
    front corner, just behind the A-pillar base (the windshield's base corner), reaching
    MIRROR_REACH_M out from the side, tapering outwards."""
    x0 = body.x_windshield_base() - 0.05           # housing front edge
    zb, W2 = body.beltline_m, body.width_m / 2
    out = {}
    for side, sy in SIDES.items():
        y_in, y_out = sy * (W2 - 0.04), sy * (W2 + MIRROR_REACH_M)
        inner = [(x0 - 0.13, y_in, zb + 0.03), (x0, y_in, zb + 0.03), (x0, y_in, zb + 0.16), (x0 - 0.13, y_in, zb + 0.16)]
        outer = [(x0 - 0.125, y_out, zb + 0.045), (x0 - 0.02, y_out, zb + 0.05), (x0 - 0.02, y_out, zb + 0.15),
                 (x0 - 0.125, y_out, zb + 0.155)]
        # box_part's order: ring 0-3 at one end counter-clockwise, 4-7 above it; here the two
        # "ends" are the inner and outer y planes, so order them as the box's z-rings
        ring = [inner[0], inner[1], outer[1], outer[0], inner[3], inner[2], outer[2], outer[3]]
        if sy < 0:                                 # keep the rings counter-clockwise seen from +z
            ring = [outer[0], outer[1], inner[1], inner[0], outer[3], outer[2], inner[2], inner[3]]
        out[side] = np.array(ring, float)
    return out


def mirror_parts(body: Body) -> dict[str, Part]:
    """Housings (paint) and glass (a mirror on the housing's rear face, 2 mm behind it)."""
    housings, glass = [], []
    for side, C in mirror_boxes(body).items():
        housings.append(_hexahedron(C))
        back = C[[0, 3, 7, 4]]                     # the rear (-x) face: bottom pair, then the top pair
        centre = back.mean(axis=0)
        g = centre + 0.82 * (back - centre) + np.array([-0.002, 0.0, 0.0])
        glass.append((g, [(0, 1, 2, 3)]))
    return {"mirror_housings": merge_parts(housings), "mirror_glass": merge_parts(glass)}


def _lathe(profile_ra, x_axle: float, sy: float, y_face: float, R: float, segments: int, closed: bool) -> Part:
    """Revolve a (radius m, distance inside the outer face m) polyline about the wheel axis."""
    prof = np.asarray(profile_ra, float)
    n = len(prof)
    t = np.arange(segments) * 2 * math.pi / segments
    V = np.array([[x_axle + r * math.cos(a), sy * (y_face - d), R + r * math.sin(a)] for a in t for r, d in prof])
    F = []
    last = n if closed else n - 1
    for i in range(segments):
        j = (i + 1) % segments
        for k in range(last):
            m = (k + 1) % n
            f = (i * n + k, j * n + k, j * n + m, i * n + m)
            F.append(f if sy > 0 else f[::-1])
    return V, F


def wheel_centres(body: Body) -> dict[str, tuple[float, float]]:
    """'front_driver' ... -> (axle x, side sign)."""
    return {f"{axle}_{side}": (x, sy) for axle, x in (("front", body.x_front_axle()), ("rear", body.x_rear_axle()))
            for side, sy in SIDES.items()}


def tyre_profile() -> list[tuple[float, float]]:
    """The closed cross-section as (radius / R, distance inside the outer face): outer
    sidewall, tread, inner sidewall (the mirror image across the width)."""
    w = WHEEL_WIDTH_M
    return list(_TYRE_OUTER) + [(r, w - d) for r, d in reversed(_TYRE_OUTER)]


def tyre_part(body: Body, key: str, segments: int = WHEEL_SEGMENTS) -> Part:
    x, sy = wheel_centres(body)[key]
    R = body.wheel_radius_m
    prof = [(f * R, d) for f, d in tyre_profile()]
    return _lathe(prof, x, sy, body.width_m / 2 + WHEEL_PROUD_M, R, segments, closed=True)


def rim_part(body: Body, key: str) -> Part:
    """The alloy: a lip from the bead seat into the recessed face, a hub, and spokes."""
    x, sy = wheel_centres(body)[key]
    R = body.wheel_radius_m
    Rr = RIM_FRAC * R
    yf = body.width_m / 2 + WHEEL_PROUD_M
    parts = [_lathe([(Rr, 0.010), (0.96 * Rr, 0.008), (0.88 * Rr, RIM_RECESS_M)], x, sy, yf, R,
                    WHEEL_SEGMENTS, closed=False),
             _lathe([(0.24 * Rr, RIM_RECESS_M + 0.004), (0.20 * Rr, RIM_RECESS_M - 0.006),
                     (0.0, RIM_RECESS_M - 0.007)], x, sy, yf, R, 16, closed=False)]
    n = SPOKES[body.style]
    for k in range(n):
        a = math.pi / 2 + k * 2 * math.pi / n
        ca, sa = math.cos(a), math.sin(a)
        tx, tz = -sa, ca                              # tangential direction
        P = []
        for d in (RIM_RECESS_M + 0.006, RIM_RECESS_M - 0.002):          # back, face (box ring order)
            for r, hw in ((0.22 * Rr, 0.09 * Rr), (0.92 * Rr, 0.05 * Rr)):
                for s in ((-1, 1) if r < 0.5 * Rr else (1, -1)):
                    P.append([x + r * ca + s * hw * tx, sy * (yf - d), R + r * sa + s * hw * tz])
        parts.append(_hexahedron(P))
    return merge_parts(parts)


WELL_DEPTH_M = 0.30          # the wheel well's liner reaches this far inside the side plane


def arch_outline(body: Body, axle_x: float, n: int = 33) -> np.ndarray:
    """(x, z) of an arch cut-out's edge, rear sill corner over the top to the front one: up the
    vertical side to the wheel centre's height, the semicircle, down the other side."""
    R, zc, r = body.wheel_radius_m, body.clearance_m, body.arch_radius_m()
    ang = np.linspace(math.pi, 0.0, n)
    arc = np.c_[axle_x + r * np.cos(ang), R + r * np.sin(ang)]
    return np.vstack([[axle_x - r, zc], arc, [axle_x + r, zc]])


def wheel_well_part(body: Body) -> Part:
    """Per wheel the dark wheel well behind the arch cut-out (car_parts' fenders and quarter
    panels, panel_mesh): a liner following the cut's edge from just inside the shaped side
    surface WELL_DEPTH_M into the body, and its back wall (the cut's outline, convex)."""
    W2 = body.width_m / 2
    parts = []
    for x, sy in wheel_centres(body).values():
        o = arch_outline(body, x)
        y_out = sy * (W2 - side_inset(body, o[:, 1]) - 0.002)
        outer = np.c_[o[:, 0], y_out, o[:, 1]]
        inner = np.c_[o[:, 0], np.full(len(o), sy * (W2 - WELL_DEPTH_M)), o[:, 1]]
        n = len(o)
        V = np.vstack([outer, inner])
        F = [(k, k + 1, n + k + 1, n + k) if sy > 0 else (n + k, n + k + 1, k + 1, k) for k in range(n - 1)]
        back = tuple(range(n, 2 * n))
        F.append(back[::-1] if sy > 0 else back)
        parts.append((V, F))
    return merge_parts(parts)


def shut_lines_part(body: Body) -> Part:
    """Dark panel gaps: vertical lines on the sides at the fender / door / quarter-panel
    edges, and one across the rear face at the bumper line (clear of the rear plate)."""
    w, proud = SHUT_LINE_M
    W2, zc, zb = body.width_m / 2, body.clearance_m, body.beltline_m
    parts = []
    xs = [body.x_fender_end(), body.x_quarter_start()] + ([body.x_door_split()] if body.x_door_split() else [])
    zs = np.linspace(zc, zb, 25)
    for side, sy in SIDES.items():
        for x in xs:
            V = np.array([[x + s * w / 2, sy * (W2 + proud), z] for z in zs for s in (-1.0, 1.0)])
            V = on_surface(body, side, V)
            parts.append((V, [(2 * k, 2 * k + 1, 2 * k + 3, 2 * k + 2) for k in range(len(zs) - 1)]))
    zt = body.z_bumper_top()
    for sgn in (-1.0, 1.0):                             # across the rear face, round to the corner split
        ys = [y for y in _rear_line_y(body, zt) if sgn * y >= 0.17]
        ys = sorted(ys + [sgn * 0.17])
        flat = np.array([[body.x_rear(), y, zt + s * w / 2] for s in (-1.0, 1.0) for y in ys])
        V = on_surface(body, "rear", flat) + proud * _end_normals(body, "rear", flat)
        k = len(ys)
        parts.append((V, [(i + 1, i, k + i, k + i + 1) for i in range(k - 1)]))
    return merge_parts(parts)


def _rear_line_y(body: Body, z: float) -> list[float]:
    return [float(y) for y in end_row_y(body, z)]


def trim_parts(body: Body) -> dict[str, tuple[str, Part]]:
    """Every trim object of a car: name -> (category, part), in car_build's order."""
    out: dict[str, tuple[str, Part]] = {}
    for name, part in lamp_parts(body).items():
        out[name] = ("lamp", part)
    for name, part in mirror_parts(body).items():
        out[name] = ("mirror", part)
    out["wheel_wells"] = ("wheel_well", wheel_well_part(body))
    out["shut_lines"] = ("trim", shut_lines_part(body))
    for key in wheel_centres(body):
        out[f"wheel_{key}"] = ("wheel", tyre_part(body, key))
        out[f"rim_{key}"] = ("rim", rim_part(body, key))
    return out


def hull_trim_points(body: Body) -> np.ndarray:
    """The trim's share of `body.hull_points`: every mirror corner, and per tyre 16 points
    round it (every other lathe segment, so the ground contact at 270 deg is one): even
    ones on the tread's outer edge (radius R), odd ones on the sidewall's bulge (on the
    outer face, the tyre's widest point)."""
    pts = [C for C in mirror_boxes(body).values()]
    R = body.wheel_radius_m
    yf = body.width_m / 2 + WHEEL_PROUD_M
    bulge_r, bulge_d = _TYRE_OUTER[1]
    tread_r, tread_d = _TYRE_OUTER[-1]
    for x, sy in wheel_centres(body).values():
        for k in range(16):
            a = k * 2 * math.pi / 16
            f, d = (tread_r, tread_d) if k % 2 == 0 else (bulge_r, bulge_d)
            pts.append(np.array([[x + f * R * math.cos(a), sy * (yf - d), R + f * R * math.sin(a)]]))
    return np.concatenate(pts)
