"""Build one parametric car in Blender from a `Body` (bpy side; the geometry is body.py's).

Every panel is its own object, made of exactly the planar rectangles of `body.panels`
(so the ground truth's panel, its area and its adjacency are what was rendered); glass,
underbody, pickup bed floor and plates are further objects, and the trim of
`car_parts.trim_parts` (lamps, grille, door handles, side mirrors, tyres with a rounded sidewall, spoked rims,
dark wheel wells behind the arch cut-outs) is linked part for part. A panel's mesh is
`panel_mesh.panel_part` of its rectangles: the sides rolled in at the shoulder and tucked
under at the sill, the wheel arches cut out of the fenders and quarter panels, the ends
and hood narrowed to match; vehicle-5: the vertical corners rounded in plan, the ends tucked
under at the bottom, hood, deck and roof crowned. The glasshouse tapers in from the shoulder
to the roof (tumblehome) with painted pillars, the glass meeting the crowned roof's edges and
(tailgate styles) the rounded rear corners; the underbody follows the rounded outline; paint is a clear-coated (metallic where the colour is)
finish, the glass tinted and glossy. There is no interior (issue 12).
"""
from __future__ import annotations

import numpy as np

from blender_envs.core import materials, primitives, shapes
from blender_envs.core.bpy_env import bpy
from blender_envs.vehicle.body import (
    PLATE_SIZE_M, ROOF_CROWN_M, ROOF_INSET_M, SHOULDER_IN_M, TUCK_IN_M, Body, Placement, car_to_world, corner_inset,
    corner_radius_m, corner_split_m, end_tuck, linear_rgb, paint_finish, panels, plate_centers, top_drop,
    top_half_width,
)
from blender_envs.vehicle.car_parts import trim_parts
from blender_envs.vehicle.panel_mesh import CORNER_SEGMENTS, corner_stations, panel_part
from geometry.mesh_parts import merge_parts
from geometry.scene import SceneObject

PLATE_OFFSET_M = 0.005      # plates sit this far in front of their face
GLASS_INSET_M = 0.05        # side glass plane, inside the side panels' plane


def _mesh(scene, name: str, verts, faces, matrix, material, pass_index: int):
    me = bpy.data.meshes.new(name)
    me.from_pydata([tuple(map(float, v)) for v in verts], [], [tuple(f) for f in faces])
    me.update()
    ob = bpy.data.objects.new(name, me)
    from mathutils import Matrix

    ob.matrix_world = Matrix(np.asarray(matrix, float).tolist())
    ob.pass_index = pass_index
    me.materials.append(material)
    scene.collection.objects.link(ob)
    return ob


# Trim materials, shared by every car of a scene: name -> (linear colour, roughness, metallic, extra inputs)
TRIM_MATERIALS = {
    "lamp_bezels": ((0.015, 0.015, 0.017), 0.35, 0.0, {}),
    "headlamp_reflectors": ((0.85, 0.85, 0.86), 0.12, 1.0, {}),
    "headlamp_lenses": ((0.9, 0.9, 0.9), 0.02, 0.0, {"Transmission Weight": 1.0, "IOR": 1.49}),
    "tail_lamps": ((0.42, 0.006, 0.008), 0.12, 0.0, {"Coat Weight": 1.0, "Coat Roughness": 0.03}),
    "indicators": ((0.85, 0.30, 0.01), 0.12, 0.0, {"Coat Weight": 1.0, "Coat Roughness": 0.03}),
    "grille": ((0.025, 0.026, 0.028), 0.45, 0.3, {}),
    "door_handles": ((0.55, 0.55, 0.57), 0.3, 0.9, {}),
    "mirror_glass": ((0.80, 0.80, 0.80), 0.02, 1.0, {}),
    "wheel_wells": ((0.012, 0.012, 0.012), 0.9, 0.0, {}),
    "shut_lines": ((0.01, 0.01, 0.01), 0.8, 0.0, {}),
    "tyre": ((0.022, 0.022, 0.022), 0.75, 0.0, {}),
    "rim": ((0.70, 0.70, 0.72), 0.40, 0.85, {}),
}


def _trim_material(key: str):
    """One shared material per trim kind (made on first use in the scene)."""
    name = f"trim_{key}"
    mat = bpy.data.materials.get(name)
    if mat is None:
        color, rough, metal, extra = TRIM_MATERIALS[key]
        mat = materials.principled(name, color, rough, metal)
        bsdf = mat.node_tree.nodes["Principled BSDF"]
        for socket, value in extra.items():
            bsdf.inputs[socket].default_value = value
    return mat


GLASS_COLUMNS = 12          # windshield and rear glass strips across, following the roof's crowned edge


def _glass_quads(body: Body) -> list[list[list[float]]]:
    """Corners of the windshield, rear glass and both side windows (front-bottom, rear-bottom,
    rear-top, front-top for the side windows; none where open): what the pillars follow. The
    side windows lean in from the shoulder (the side surface's width at the beltline, less
    GLASS_INSET_M / 5) to the roof's edge (the tumblehome), their top at the roof's crowned
    side edge; on tailgate styles the rear glass comes down to the rounded corners' split."""
    W2, zb, H = body.width_m / 2, body.beltline_m, body.height_m
    wi = W2 - ROOF_INSET_M
    wb = W2 - SHOULDER_IN_M - GLASS_INSET_M / 5
    zr = H - ROOF_CROWN_M[0]                            # the roof's side edges
    xs, xf, xr, xg = body.x_windshield_base(), body.x_roof_front(), body.x_roof_rear(), body.x_rear_glass_base()
    if body.ranges.open_top:  # a windshield frame only; the top of the cabin is open
        return [[[xs, -wb, zb], [xs, wb, zb], [xf, wi, H], [xf, -wi, H]]]
    xb, yb = _rear_glass_end(body)
    quads = [[[xs, -wb, zb], [xs, wb, zb], [xf, wi, zr], [xf, -wi, zr]],          # windshield
             [[xb, yb, zb], [xb, -yb, zb], [xr, -wi, zr], [xr, wi, zr]]]          # rear glass
    for sy in (1.0, -1.0):
        quads.append([[xs, sy * wb, zb], [xb, sy * yb, zb], [xr, sy * wi, zr], [xf, sy * wi, zr]])
    return quads


def _rear_glass_end(body: Body) -> tuple[float, float]:
    """(x, |y|) where the rear glass's bottom edge ends: its base's corner, or on tailgate styles
    (the glass runs to the tail) the rounded corner's split point, GLASS_INSET_M / 5 inside."""
    wb = body.width_m / 2 - SHOULDER_IN_M - GLASS_INSET_M / 5
    xg = body.x_rear_glass_base()
    if abs(xg - body.x_rear()) > 1e-9:
        return xg, wb
    x = xg + corner_split_m(body)                      # the side's last grid column
    return x, float(top_half_width(body, x)) - GLASS_INSET_M / 5


def _glass_part(body: Body):
    """The glass as strips: windshield and rear glass in GLASS_COLUMNS across, their top on the
    roof's crowned front and rear edges (`body.top_drop`), a tailgate style's rear glass bottom
    on the rounded outline; the side windows in columns along x, their bottom edge on the
    outline (the corner's arc on tailgate styles)."""
    q = _glass_quads(body)
    if body.ranges.open_top:
        return np.array(q[0], float), [(0, 1, 2, 3)]
    zb = body.beltline_m
    s = np.linspace(-1.0, 1.0, GLASS_COLUMNS + 1)
    parts = []
    for quad, top_x in ((q[0], body.x_roof_front()), (q[1], body.x_roof_rear())):
        b0, b1, t1, t0 = (np.asarray(p, float) for p in quad)
        wi = abs(t0[1])
        top = np.c_[np.full(len(s), top_x), s * wi * np.sign(t1[1] - t0[1]), np.zeros(len(s))]
        top[:, 2] = body.height_m - top_drop(body, "roof", top[:, 0], top[:, 1])
        bot = b0 + (s[:, None] + 1) / 2 * (b1 - b0)
        if quad is q[1] and abs(body.x_rear_glass_base() - body.x_rear()) < 1e-9:
            bot = _on_rear_outline(body, bot[:, 1])
        parts.append(_strip(bot, top))
    for quad in q[2:]:
        b0, b1, t1, t0 = (np.asarray(p, float) for p in quad)
        f = np.linspace(0.0, 1.0, GLASS_COLUMNS + 1)
        bot = b0 + f[:, None] * (b1 - b0)
        if abs(body.x_rear_glass_base() - body.x_rear()) < 1e-9:      # round the corner's side half
            sy = np.sign(b0[1])
            d = body.length_m / 2 - corner_radius_m(body)
            xs = np.unique(np.r_[np.linspace(b0[0], b1[0], GLASS_COLUMNS + 1),
                                 -(d + corner_stations(body)[:CORNER_SEGMENTS + 1])])
            xs = xs[(xs >= b1[0] - 1e-9) & (xs <= b0[0] + 1e-9)][::-1]
            f = (xs - b0[0]) / (b1[0] - b0[0])
            bot = np.c_[xs, sy * (top_half_width(body, xs) - GLASS_INSET_M / 5), np.full(len(xs), zb)]
        top = t0 + f[:, None] * (t1 - t0)
        parts.append(_strip(bot, top))
    return merge_parts(parts)


def _on_rear_outline(body: Body, y) -> np.ndarray:
    """Points on the rear face's top edge (the rounded outline) GLASS_INSET_M / 5 outside |y|: the glass
    stands that far inside the outline across."""
    y = np.asarray(y, float)
    e, r = GLASS_INSET_M / 5, corner_radius_m(body)
    w = body.width_m / 2 - SHOULDER_IN_M
    d = np.clip(np.abs(y) + e - (w - r), 0.0, r)
    x = body.x_rear() + float(end_tuck(body, body.beltline_m)) + (r - np.sqrt(r * r - d * d))
    return np.c_[x, y, np.full(len(y), body.beltline_m)]


def _strip(bot: np.ndarray, top: np.ndarray):
    n = len(bot)
    return np.vstack([bot, top]), [(i, i + 1, n + i + 1, n + i) for i in range(n - 1)]


PILLAR_M = 0.07             # pillar width along the glass
PILLAR_PROUD_M = 0.004      # pillars stand this far out of the glass


def pillar_quads(body: Body) -> list[list[list[float]]]:
    """Painted A, B (four-door bodies) and C/D pillars on each side window, a little proud of
    it: strips along the window's front and rear edges and up the door split."""
    if body.ranges.open_top:
        return []
    out = []
    for q in _glass_quads(body)[2:]:
        b0, b1, t1, t0 = (np.asarray(p, float) for p in q)     # front-bottom, rear-bottom, rear-top, front-top
        sy = 1.0 if b0[1] > 0 else -1.0
        off = np.array([0.0, sy * PILLAR_PROUD_M, 0.0])

        def strip(p0, p1, d):
            out.append([list(p0 + off), list(p1 + off), list(p1 + d + off), list(p0 + d + off)])

        strip(b0, t0, np.array([-PILLAR_M, 0.0, 0.0]))                       # A pillar
        strip(b1, t1, np.array([PILLAR_M, 0.0, 0.0]))                        # C / D pillar
        xs = body.x_door_split()
        if xs is not None:
            def at(x, lo, hi):
                f = (x - lo[0]) / (hi[0] - lo[0])
                return lo + f * (hi - lo)
            pb, pt = at(xs + PILLAR_M / 2, b0, b1), at(xs + PILLAR_M / 2, t0, t1)
            strip(pb, pt, np.array([-PILLAR_M, 0.0, 0.0]))                   # B pillar
        strip(t0, t1, np.array([0.0, 0.0, -0.035]))
    return out


def _floor(body: Body, x0: float, x1: float, z: float):
    """A flat floor from x0 down to x1 at height z, as wide as the tucked sill (W/2 - TUCK_IN_M)
    less the rounded corners' arc, facing down: the underbody, the pickup bed's floor."""
    d = body.length_m / 2 - float(end_tuck(body, z)) - corner_radius_m(body) + corner_stations(body)
    xs = np.unique(np.r_[x0, x1, d, -d])
    xs = xs[(xs <= x0 + 1e-9) & (xs >= x1 - 1e-9)][::-1]
    hw = body.width_m / 2 - TUCK_IN_M - corner_inset(body, xs, z)
    left = np.c_[xs, hw, np.full(len(xs), z)]
    right = np.c_[xs, -hw, np.full(len(xs), z)]
    n = len(xs)
    return np.vstack([left, right]), [(i, n + i, n + i + 1, i + 1) for i in range(n - 1)]


def build_car(scene, body: Body, placement: Placement, color: str, first_pass_index: int,
              prefix: str = "") -> list[SceneObject]:
    """Add the car's objects; pass indices run from `first_pass_index` in a fixed order."""
    M = car_to_world(placement)
    metallic, rough, coat_rough = paint_finish(color)
    paint = materials.principled(f"{prefix}paint", linear_rgb(color), rough, metallic)
    bsdf = paint.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Coat Weight"].default_value = 1.0
    bsdf.inputs["Coat Roughness"].default_value = coat_rough
    glass = materials.principled(f"{prefix}glass", [0.012, 0.018, 0.02], 0.02, 0.0)
    glass.node_tree.nodes["Principled BSDF"].inputs["IOR"].default_value = 1.52
    dark = materials.principled(f"{prefix}underbody", [0.04, 0.04, 0.04], 0.9, 0.0)
    plate_mat = materials.principled(f"{prefix}plate", [0.85, 0.85, 0.83], 0.5, 0.0)
    out: list[SceneObject] = []
    pid = first_pass_index

    def add(ob, category: str):
        nonlocal pid
        out.append(SceneObject(id=ob.pass_index, name=ob.name, category=category, pass_index=ob.pass_index))
        pid += 1

    for name, rects in panels(body).items():
        verts, faces = panel_part(body, rects)          # wound so u x v faces out
        ob = _mesh(scene, prefix + name, verts, faces, M, paint, pid)
        for poly in ob.data.polygons:
            poly.use_smooth = True
        add(ob, "panel")

    verts, faces = _glass_part(body)
    add(_mesh(scene, prefix + "glass", verts, faces, M, glass, pid), "glass")

    L2, zc = body.length_m / 2 - float(end_tuck(body, body.clearance_m)), body.clearance_m
    parts = [_floor(body, L2, -L2, zc)]
    if body.ranges.bed:
        zf = body.beltline_m - 0.45
        parts.append(_floor(body, body.x_rear_glass_base(), -(body.length_m / 2 - float(end_tuck(body, zf))), zf))
    verts, faces = merge_parts(parts)
    add(_mesh(scene, prefix + "underbody", verts, faces, M, dark, pid), "underbody")

    for name, (category, part) in trim_parts(body).items():
        if category == "mirror" and name == "mirror_housings":
            mat = paint
        else:
            mat = _trim_material({"wheel": "tyre", "rim": "rim"}.get(category, name))
        ob = shapes.mesh_object(scene, prefix + name, part, mat, pid, matrix=M)
        if category in ("wheel", "rim"):
            for poly in ob.data.polygons:
                poly.use_smooth = True
        add(ob, category)

    for end, c in plate_centers(body).items():
        n = np.array([1.0 if end == "front" else -1.0, 0.0, 0.0])
        T = np.eye(4)
        T[:3, 0] = [0.0, 1.0 if end == "front" else -1.0, 0.0]
        T[:3, 1] = [0.0, 0.0, 1.0]
        T[:3, 2] = n
        T[:3, 3] = c + PLATE_OFFSET_M * n
        add(primitives.plane(scene, f"{prefix}plate_{end}", PLATE_SIZE_M[0], PLATE_SIZE_M[1], M @ T, plate_mat,
                             pid), "plate")
    quads = pillar_quads(body)
    if quads:                                           # last, so every earlier pass index is unchanged
        verts = [v for q in quads for v in q]
        add(_mesh(scene, prefix + "pillars", verts, [tuple(range(4 * i, 4 * i + 4)) for i in range(len(quads))], M,
                  paint, pid), "trim")
    return out
