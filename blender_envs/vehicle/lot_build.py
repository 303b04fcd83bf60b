"""Build a `LotSpec` in Blender: asphalt with painted bays, kerbs, a building and a fence
behind the long sides, lamp posts, the Nishita sun and sky, and every parked car.

Merged meshes keep the object count (and the build) small: all bay lines are one object,
all kerbs one, all lamp posts one. Pass indices (`LOT_PASS`): the lot's pieces below 100
except the subject car, which takes 2..89 in car_build's order under the `subject_`
prefix; distractor k (1-based) takes 100 + 40 (k - 1) onwards under `car{k}_`; far car j
(0-based, vehicle-6) takes 1000 + j under `far{j}` (far_cars_build); neighbour i (0-based,
vehicle-8) takes 2000 + 40 i onwards under `nb{i}_`.
"""
from __future__ import annotations

import numpy as np

from blender_envs.core import materials, shapes
from blender_envs.vehicle.car_build import build_car
from blender_envs.vehicle.far_cars_build import build_far_cars
from blender_envs.vehicle.lot import (BAY_LENGTH_M, BAY_WIDTH_M, KERB_HEIGHT_M, KERB_WIDTH_M, LINE_WIDTH_M,
                                      NEIGHBOUR_PREFIX, LotSpec)
from geometry import mesh_parts
from geometry.scene import SceneObject

LOT_PASS = {"verge": 1, "asphalt": 90, "bay_lines": 91, "kerbs": 92, "building": 93, "windows": 94, "fence": 95,
            "lamps": 96, "tree_trunks": 97, "tree_crowns": 98, "skyline": 99}
SUBJECT_FIRST_PASS = 2
DISTRACTOR_FIRST_PASS = 100
DISTRACTOR_PASS_STRIDE = 40
NEIGHBOUR_FIRST_PASS = 2000      # vehicle-8: neighbour i (0-based, lot.neighbours) from 2000 + 40 i, under `nb{i}_`
SUN_STRENGTH = 4.0
SKY_STRENGTH = 0.5           # twice the roofs' fill: open asphalt shadows are not black
SKY_DUST = 0.3               # vehicle-6: a clear day (Blender's 1.0 left the sky milky white over the lot)
LINE_THICK_M = 0.003          # paint stands this far above the asphalt


def _noisy(name, color, scale, amount, bump=0.0, roughness=0.9):
    mat = materials.principled(name, color, roughness)
    nt = mat.node_tree
    materials.noise_tint(nt, nt.nodes["Principled BSDF"], color, scale, amount, coord="Object", bump=bump)
    return mat


def line_part(lot: LotSpec) -> mesh_parts.Part:
    """Side lines of every bay and the head line of every row, as thin boxes that never overlap.
    Two rows parked head to head share their head line, so it is drawn once, and side lines stop
    at its edge: two coincident top faces shadow each other (every shadow and bounce ray leaving
    one hits the other), and the shared head lines, drawn twice, rendered pitch black, bars across
    the lot that passed for lamp posts' shadows (the crossings too, as black squares)."""
    parts = []
    t, z = LINE_WIDTH_M / 2, LINE_THICK_M
    rows: dict[float, list] = {}
    for b in lot.bays:
        rows.setdefault(b.center[1], []).append(b)
    heads: set[tuple[float, float]] = set()     # (head line's y, bay centre x): one box per bay
    for y, bays in rows.items():
        xs = sorted(b.center[0] for b in bays)
        f = bays[0].facing
        head = round(y + f * BAY_LENGTH_M / 2, 6)
        y0, y1 = sorted((y - f * BAY_LENGTH_M / 2, head - f * t))   # side lines stop at the head line
        for x in [x - BAY_WIDTH_M / 2 for x in xs] + [xs[-1] + BAY_WIDTH_M / 2]:
            parts.append(mesh_parts.box_part((x - t, y0, 0.0), (x + t, y1, z)))
        heads |= {(head, round(x, 6)) for x in xs}
    for head, x in sorted(heads):
        parts.append(mesh_parts.box_part((x - BAY_WIDTH_M / 2, head - t, 0.0), (x + BAY_WIDTH_M / 2, head + t, z)))
    return mesh_parts.merge_parts(parts)


KERB_BEVEL_M = (0.035, 0.012)   # chamfer of the kerb's top edge on the lot side, and on the verge side


def kerb_profile(inner: float, outward: float) -> list[tuple[float, float]]:
    """A kerb's cross-section (s, z), counter-clockwise: its lot-side face at s = inner, the
    verge side KERB_WIDTH_M further in the `outward` direction (+1 / -1), both top edges
    chamfered (KERB_BEVEL_M), from 2 cm under the asphalt's top."""
    w, h, (bi, bo) = KERB_WIDTH_M, KERB_HEIGHT_M, KERB_BEVEL_M
    o = inner + outward * w
    P = [(inner, -0.02), (o, -0.02), (o, h - bo), (o - outward * bo, h), (inner + outward * bi, h), (inner, h - bi)]
    area = sum(p[0] * q[1] - q[0] * p[1] for p, q in zip(P, P[1:] + P[:1]))
    return P if area > 0 else P[::-1]


def kerb_part(lot: LotSpec) -> mesh_parts.Part:
    """The four kerbs round the lot as chamfered prisms (overlapping at the corners)."""
    X, Y, w = lot.half_x_m, lot.half_y_m, KERB_WIDTH_M
    swap = np.array([[0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
    parts = [mesh_parts.prism_part(kerb_profile(sy * Y, sy), -X - w, X + w) for sy in (-1.0, 1.0)]
    for sx in (-1.0, 1.0):           # along y: built along x, then x and y swapped (a mirror: faces re-wound)
        V, F = mesh_parts.transform_part(mesh_parts.prism_part(kerb_profile(sx * X, sx), -Y, Y), swap)
        parts.append((V, [tuple(f[::-1]) for f in F]))
    return mesh_parts.merge_parts(parts)


def asphalt_material(lot: LotSpec):
    """Worn asphalt (procedural, placed by the spec's `wear_offset`): the noise-tinted, bumpy
    base; repaired patches (large square-ish Voronoi cells, a few a little lighter or darker);
    oil stains (small round cells, about one in five, dark and glossier); cracks (the edges of
    noise-distorted Voronoi cells, dark, in a few regions). Colour only: no geometry moves."""
    mat = _noisy("asphalt", lot.asphalt_color, 9.0, 0.35, bump=0.25)
    nt = mat.node_tree
    bsdf = nt.nodes["Principled BSDF"]
    tint = bsdf.inputs["Base Color"].links[0].from_socket       # noise_tint's output
    tc = nt.nodes.new("ShaderNodeTexCoord")
    mp = nt.nodes.new("ShaderNodeMapping")
    mp.inputs["Location"].default_value = tuple(lot.wear_offset)
    nt.links.new(tc.outputs["Object"], mp.inputs["Vector"])
    co = mp.outputs["Vector"]

    def node(kind, **inputs):
        n = nt.nodes.new(kind)
        for k, v in inputs.items():
            if hasattr(v, "links"):              # a socket
                nt.links.new(v, n.inputs[k])
            else:
                n.inputs[k].default_value = v
        return n

    def math_(op, a, b=None, clamp=False):
        n = nt.nodes.new("ShaderNodeMath")
        n.operation = op
        n.use_clamp = clamp
        for i, v in enumerate((a, b)):
            if v is None:
                continue
            if hasattr(v, "links"):
                nt.links.new(v, n.inputs[i])
            else:
                n.inputs[i].default_value = v
        return n.outputs[0]

    # patches: Chebyshev cells about 4 m; the cell's random value picks lighter / darker / none
    pv = node("ShaderNodeTexVoronoi", Vector=co, Scale=0.25, Randomness=0.8)
    pv.distance = "CHEBYCHEV"
    cell = nt.nodes.new("ShaderNodeSeparateColor")
    nt.links.new(pv.outputs["Color"], cell.inputs["Color"])
    lighter = math_("GREATER_THAN", cell.outputs["Red"], 0.82)
    darker = math_("LESS_THAN", cell.outputs["Red"], 0.10)
    patch = math_("ADD", math_("MULTIPLY", lighter, 0.30), math_("MULTIPLY", darker, -0.35))
    patch_gain = math_("ADD", patch, 1.0)
    # oil stains: round cells about 1.6 m apart, one in five, a soft dark blotch of radius ~0.35 m
    ov = node("ShaderNodeTexVoronoi", Vector=co, Scale=0.6, Randomness=1.0)
    ocell = nt.nodes.new("ShaderNodeSeparateColor")
    nt.links.new(ov.outputs["Color"], ocell.inputs["Color"])
    onoise = node("ShaderNodeTexNoise", Vector=co, Scale=4.0, Detail=4.0)
    radius = math_("ADD", math_("MULTIPLY", onoise.outputs["Fac"], 0.25), 0.08)
    blot = math_("LESS_THAN", ov.outputs["Distance"], radius)
    stain = math_("MULTIPLY", blot, math_("LESS_THAN", ocell.outputs["Green"], 0.2))
    # cracks: edges of distorted ~1.5 m cells, only where a broad noise is high
    dn = node("ShaderNodeTexNoise", Vector=co, Scale=1.5, Detail=3.0)
    warp = nt.nodes.new("ShaderNodeVectorMath")
    warp.operation = "MULTIPLY_ADD"
    nt.links.new(dn.outputs["Color"], warp.inputs[0])
    warp.inputs[1].default_value = (0.35, 0.35, 0.35)
    nt.links.new(co, warp.inputs[2])
    cv = node("ShaderNodeTexVoronoi", Vector=warp.outputs["Vector"], Scale=0.7)
    cv.feature = "DISTANCE_TO_EDGE"
    region = node("ShaderNodeTexNoise", Vector=co, Scale=0.12, Detail=2.0)
    crack = math_("MULTIPLY", math_("LESS_THAN", cv.outputs["Distance"], 0.012),
                  math_("GREATER_THAN", region.outputs["Fac"], 0.55))
    # colour: base x patch gain, darkened by the stains (to 25%) and cracks (to 30%)
    keep = math_("MULTIPLY", math_("SUBTRACT", 1.0, math_("MULTIPLY", stain, 0.75)),
                 math_("SUBTRACT", 1.0, math_("MULTIPLY", crack, 0.7)))
    gain = math_("MULTIPLY", patch_gain, keep)
    col = nt.nodes.new("ShaderNodeMix")
    col.data_type = "RGBA"
    col.blend_type = "MULTIPLY"
    col.inputs["Factor"].default_value = 1.0
    nt.links.new(tint, col.inputs["A"])
    comb = nt.nodes.new("ShaderNodeCombineColor")
    for ch in ("Red", "Green", "Blue"):
        nt.links.new(gain, comb.inputs[ch])
    nt.links.new(comb.outputs["Color"], col.inputs["B"])
    nt.links.new(col.outputs["Result"], bsdf.inputs["Base Color"])
    rough = math_("SUBTRACT", 0.9, math_("MULTIPLY", stain, 0.25))       # oil is glossier (0.65: at 0.4 a stain mirrored the sky as a white puddle at grazing views)
    nt.links.new(rough, bsdf.inputs["Roughness"])
    return mat


def building_parts(lot: LotSpec, b) -> tuple[mesh_parts.Part, mesh_parts.Part]:
    """The building's block and its windows/door (dark glass, 2 cm proud of the facade)."""
    X = lot.half_x_m + 12.0
    y0 = b.side * (lot.half_y_m + KERB_WIDTH_M + b.setback_m)
    y1 = y0 + b.side * 14.0
    block = mesh_parts.box_part((-X, min(y0, y1), 0.0), (X, max(y0, y1), b.height_m))
    out = y0 - b.side * 0.02
    glass = []
    storey = b.height_m / max(b.window_rows, 1)
    for r in range(b.window_rows):
        z0 = r * storey + (1.0 if r == 0 else 0.9)
        z1 = min(z0 + 1.4, (r + 1) * storey - 0.4)
        for x in np.arange(-X + 2.0, X - 2.0, 3.6):
            if r == 0 and abs(x) < 2.5:
                continue
            glass.append(mesh_parts.box_part((x, min(out, y0), z0), (x + 2.2, max(out, y0), z1)))
    glass.append(mesh_parts.box_part((-1.0, min(out, y0), 0.0), (1.0, max(out, y0), 2.3)))   # the door
    return block, mesh_parts.merge_parts(glass)


def fence_part(lot: LotSpec, f) -> mesh_parts.Part:
    """Posts every 2.5 m, top and bottom rails and a see-through-looking mesh of thin wires."""
    X = lot.half_x_m + 2.0
    y = f.side * (lot.half_y_m + KERB_WIDTH_M + f.setback_m)
    parts = []
    for x in np.arange(-X, X + 0.01, 2.5):
        parts.append(mesh_parts.cylinder_part((x, y), 0.03, 0.0, f.height_m, 6))
    for z in (0.1, f.height_m - 0.03):
        parts.append(mesh_parts.box_part((-X, y - 0.02, z - 0.02), (X, y + 0.02, z + 0.02)))
    for x in np.arange(-X, X, 0.12):           # vertical wires
        parts.append(mesh_parts.box_part((x - 0.004, y - 0.004, 0.1), (x + 0.004, y + 0.004, f.height_m - 0.03)))
    for z in np.arange(0.25, f.height_m - 0.1, 0.15):   # horizontal wires, a little thinner: their faces
        # never lie in a vertical wire's face, where the two would shadow each other (line_part)
        parts.append(mesh_parts.box_part((-X, y - 0.003, z - 0.004), (X, y + 0.003, z + 0.004)))
    return mesh_parts.merge_parts(parts)


def lamp_part(lot: LotSpec) -> mesh_parts.Part:
    parts = []
    for lamp in lot.lamps:
        x, y = lamp.xy
        h = lamp.height_m
        parts.append(mesh_parts.cylinder_part((x, y), 0.25, 0.0, 0.5, 10))          # concrete footing
        parts.append(mesh_parts.cylinder_part((x, y), 0.08, 0.5, h, 10))
        d = -np.sign(x) * 1.4                                                      # arm reaches over the lot
        parts.append(mesh_parts.box_part((min(x, x + d), y - 0.05, h - 0.12), (max(x, x + d), y + 0.05, h - 0.04)))
        parts.append(mesh_parts.box_part((x + d - 0.35, y - 0.2, h - 0.25), (x + d + 0.35, y + 0.2, h - 0.05)))
    return mesh_parts.merge_parts(parts)


CONE_TIERS = 4                # a conifer: this many stacked cones, each narrower and higher


def crown_part(t) -> mesh_parts.Part:
    """A tree's crown: a round crown as its lobes (vehicle-6; one squashed sphere without),
    a conifer as CONE_TIERS stacked cones whose skirts overlap."""
    x, y = t.xy
    if t.crown == "cone":
        tiers = []
        for i in range(CONE_TIERS):
            f = i / CONE_TIERS
            tiers.append(shapes.cone_part(x, y, t.trunk_height_m + f * 0.62 * t.crown_height_m,
                                          t.crown_radius_m * (1.0 - 0.7 * f), t.crown_height_m * (1.0 - 0.62 * f),
                                          seg=14))
        return mesh_parts.merge_parts(tiers)
    cz = t.trunk_height_m + 0.8 * t.crown_radius_m
    if not t.lobes:
        return shapes.sphere_part(x, y, cz, t.crown_radius_m)
    return mesh_parts.merge_parts([shapes.sphere_part(x + dx, y + dy, cz + dz, r, nu=14, nv=9)
                                   for dx, dy, dz, r in t.lobes])


def foliage_material():
    """Leaves: a dark green, lighter and darker in clumps, with a strong fine bump, so a
    crown reads as foliage, not as a smooth ball."""
    mat = _noisy("tree_crowns", (0.045, 0.11, 0.035), 2.5, 0.6, roughness=0.85)
    nt = mat.node_tree
    bsdf = nt.nodes["Principled BSDF"]
    tex = nt.nodes.new("ShaderNodeTexNoise")
    tex.inputs["Scale"].default_value = 9.0
    tex.inputs["Detail"].default_value = 8.0
    bump = nt.nodes.new("ShaderNodeBump")
    bump.inputs["Strength"].default_value = 0.9
    bump.inputs["Distance"].default_value = 0.05
    nt.links.new(tex.outputs["Fac"], bump.inputs["Height"])
    nt.links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    return mat


SKYLINE_WINDOW_M = (3.0, 3.4, 0.9)   # window pitch along a facade, storey height, wall between windows


SKYLINE_RGB = ("skyline_r", "skyline_g", "skyline_b")   # per-face float attributes: the block's colour


def skyline_part(lot: LotSpec) -> tuple[mesh_parts.Part, dict[str, np.ndarray]]:
    """The distant blocks as one mesh, and each face's block colour (SKYLINE_RGB attributes)."""
    parts, rgb = [], []
    for b in lot.skyline:
        (x, y), (sx, sy, h) = b.xy, b.size_m
        V, F = mesh_parts.box_part((x - sx / 2, y - sy / 2, 0.0), (x + sx / 2, y + sy / 2, h))
        parts.append((V, F))
        rgb += [b.color] * len(F)
    rgb = np.asarray(rgb, float)
    return mesh_parts.merge_parts(parts), {k: rgb[:, i] for i, k in enumerate(SKYLINE_RGB)}


def skyline_material():
    """Distant buildings: each block's own colour (SKYLINE_RGB) with a grid of dark windows, a
    Brick texture on (x + y, z) so every vertical face gets rows of windows one storey apart
    (a plain grey block read as a featureless monolith)."""
    mat = materials.principled("skyline", [0.5, 0.5, 0.5], 0.8)
    nt = mat.node_tree
    bsdf = nt.nodes["Principled BSDF"]
    comb = nt.nodes.new("ShaderNodeCombineColor")
    for key, ch in zip(SKYLINE_RGB, ("Red", "Green", "Blue")):
        at = nt.nodes.new("ShaderNodeAttribute")
        at.attribute_type = "GEOMETRY"
        at.attribute_name = key
        nt.links.new(at.outputs["Fac"], comb.inputs[ch])
    wall = comb.outputs["Color"]
    tc = nt.nodes.new("ShaderNodeTexCoord")
    sep = nt.nodes.new("ShaderNodeSeparateXYZ")
    nt.links.new(tc.outputs["Object"], sep.inputs["Vector"])
    add = nt.nodes.new("ShaderNodeMath")
    add.operation = "ADD"
    nt.links.new(sep.outputs["X"], add.inputs[0])
    nt.links.new(sep.outputs["Y"], add.inputs[1])
    vec = nt.nodes.new("ShaderNodeCombineXYZ")
    nt.links.new(add.outputs[0], vec.inputs["X"])
    nt.links.new(sep.outputs["Z"], vec.inputs["Y"])
    brick = nt.nodes.new("ShaderNodeTexBrick")
    brick.offset = 0.0
    pitch, storey, wall_m = SKYLINE_WINDOW_M
    for k, v in (("Scale", 1.0), ("Mortar Size", wall_m), ("Mortar Smooth", 0.0), ("Brick Width", pitch),
                 ("Row Height", storey), ("Bias", 0.0)):
        brick.inputs[k].default_value = v
    brick.inputs["Color1"].default_value = (0.025, 0.03, 0.04, 1.0)      # glass
    brick.inputs["Color2"].default_value = (0.035, 0.04, 0.05, 1.0)
    nt.links.new(vec.outputs["Vector"], brick.inputs["Vector"])
    nt.links.new(wall, brick.inputs["Mortar"])
    nt.links.new(brick.outputs["Color"], bsdf.inputs["Base Color"])
    return mat


def build_lot(scene, lot: LotSpec) -> list[SceneObject]:
    """The lot, its lights and every car; returns the objects in pass-index order."""
    objects: list[SceneObject] = []

    def add(name, part, mat, category):
        ob = shapes.mesh_object(scene, name, part, mat, LOT_PASS[name])
        objects.append(SceneObject(id=ob.pass_index, name=name, category=category, pass_index=ob.pass_index))

    X, Y = lot.half_x_m, lot.half_y_m
    add("verge", mesh_parts.box_part((-400.0, -400.0, -0.03), (400.0, 400.0, -0.02)),
        _noisy("verge", lot.verge_color, 0.6, 0.45, bump=0.2), "ground")
    add("asphalt", mesh_parts.box_part((-X, -Y, -0.02), (X, Y, 0.0)), asphalt_material(lot), "ground")
    add("bay_lines", line_part(lot), _noisy("bay_lines", lot.line_color, 14.0, 0.25, roughness=0.7), "paint")
    add("kerbs", kerb_part(lot), _noisy("kerbs", lot.kerb_color, 5.0, 0.2, bump=0.1), "kerb")
    for bd in lot.backdrops:
        if bd.kind == "building":
            block, glass = building_parts(lot, bd)
            add("building", block, _noisy("building", bd.color, 3.0, 0.12, bump=0.05), "building")
            add("windows", glass, materials.principled("windows", [0.03, 0.04, 0.05], 0.08, 0.0), "windows")
        else:
            add("fence", fence_part(lot, bd), materials.principled("fence", bd.color, 0.4, 0.8), "fence")
    add("lamps", lamp_part(lot), materials.principled("lamps", [0.35, 0.36, 0.37], 0.5, 0.6), "lamp_post")
    trunks, crowns = [], []
    for t in lot.trees + lot.far_trees:
        x, y = t.xy
        trunks.append(mesh_parts.cylinder_part((x, y), 0.18, -0.05, t.trunk_height_m + 0.6, 6))
        crowns.append(crown_part(t))
    if trunks:
        add("tree_trunks", mesh_parts.merge_parts(trunks), materials.principled("tree_trunks", (0.12, 0.08, 0.05), 0.9),
            "tree_trunk")
        add("tree_crowns", mesh_parts.merge_parts(crowns), foliage_material(), "tree_crown")
    if lot.skyline:
        part, rgb = skyline_part(lot)
        ob = shapes.mesh_object(scene, "skyline", part, skyline_material(), LOT_PASS["skyline"], face_attrs=rgb)
        objects.append(SceneObject(id=ob.pass_index, name="skyline", category="building", pass_index=ob.pass_index))
    materials.nishita_sun_and_sky(scene, lot.sun.elevation_deg, lot.sun.azimuth_deg, sun_strength=SUN_STRENGTH,
                                  sky_strength=SKY_STRENGTH, dust_density=SKY_DUST)

    for k, car in enumerate(lot.cars):
        first = SUBJECT_FIRST_PASS if k == 0 else DISTRACTOR_FIRST_PASS + DISTRACTOR_PASS_STRIDE * (k - 1)
        prefix = "subject_" if k == 0 else f"car{k}_"
        objects += build_car(scene, car.body, car.placement, car.color, first, prefix)
    for i, car in enumerate(lot.neighbours):
        first = NEIGHBOUR_FIRST_PASS + DISTRACTOR_PASS_STRIDE * i
        objects += build_car(scene, car.body, car.placement, car.color, first, NEIGHBOUR_PREFIX.format(i=i))
    objects += build_far_cars(scene, lot)
    return sorted(objects, key=lambda o: o.id)
