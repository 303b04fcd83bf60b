"""Build a `RoofSpec` in Blender: house, shingled roof with real relief, array hardware,
wires, ground, sun lamp and a Nishita sky whose sun matches the lamp.

Everything is placed from the exact helpers of `roof_spec`, so scorers that read the spec
and the exported meshes see what was rendered. Pass indices come from `ROOF_PASS_INDEX`.

Sky/lamp convention (verified by rendering, see docs in `add_sky`): with our azimuth
(0 = +y, 90 = +x, clockwise from above) the Nishita node's sun sits at
`sun_rotation = radians(azimuth)`, `sun_elevation = radians(elevation)`, i.e. its sun
direction is (sin r cos e, cos r cos e, sin e) - the same vector the sun lamp of
`materials.sun_and_sky` shines from.
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.core.bpy_env import bpy  # noqa: F401  (first: asserts Blender 4.5)
from blender_envs.core import materials, shapes  # noqa: E402
from blender_envs.solar import roof_spec as rs  # noqa: E402
from blender_envs.solar.roof_spec import RoofSpec  # noqa: E402
from geometry import mesh_parts  # noqa: E402
from geometry.scene import BuildInfo, SceneObject  # noqa: E402

DECK_GAP_M = 0.002  # deck top below the lowest shingle point: what shows through the slots


# ---- materials ------------------------------------------------------------------------

def _nodes(mat):
    nt = mat.node_tree
    return nt, nt.nodes["Principled BSDF"]


def _wave_scale(period_m: float) -> float:
    """Wave texture Scale for a band period (Blender: phase = 20 * scale * coordinate)."""
    return 2 * math.pi / (20.0 * period_m)


_noise_mix = materials.noise_tint  # kept under the old name for the roof-family builders


def _factor(nt, tex_type: str, scale: float, amount: float, **inputs):
    """A texture's Fac (Voronoi: Distance) remapped to 1 +- amount, on object coordinates."""
    tc = nt.nodes.new("ShaderNodeTexCoord")
    tex = nt.nodes.new(tex_type)
    tex.inputs["Scale"].default_value = scale
    for k, v in inputs.items():
        tex.inputs[k].default_value = v
    nt.links.new(tc.outputs["Object"], tex.inputs["Vector"])
    rng = nt.nodes.new("ShaderNodeMapRange")
    rng.inputs["To Min"].default_value = 1.0 - amount
    rng.inputs["To Max"].default_value = 1.0 + amount
    nt.links.new(tex.outputs["Distance" if tex_type == "ShaderNodeTexVoronoi" else "Fac"], rng.inputs["Value"])
    return rng.outputs["Result"], tex


def _multiply(nt, a, b):
    m = nt.nodes.new("ShaderNodeMix")
    m.data_type = "RGBA"
    m.blend_type = "MULTIPLY"
    m.inputs["Factor"].default_value = 1.0
    for sock, val in ((m.inputs["A"], a), (m.inputs["B"], b)):
        if isinstance(val, tuple):
            sock.default_value = val
        else:
            nt.links.new(val, sock)
    return m.outputs["Result"]


def shingle_material(spec: RoofSpec):
    """Granular asphalt: coarse mineral granules (Voronoi) with bump, a weathering
    mottle, times a per-tab shade attribute (no two tabs quite alike)."""
    sh = spec.shingles
    mat = materials.principled("shingles", sh.color, 0.92)
    nt, bsdf = _nodes(mat)
    gran, gtex = _factor(nt, "ShaderNodeTexVoronoi", 1400.0, 0.55)
    mottle, _ = _factor(nt, "ShaderNodeTexNoise", 6.0, 0.18, Detail=4.0)
    speck, _ = _factor(nt, "ShaderNodeTexNoise", 300.0, 0.3, Detail=2.0)
    attr = nt.nodes.new("ShaderNodeAttribute")
    attr.attribute_type = "GEOMETRY"
    attr.attribute_name = "tab_shade"
    col = _multiply(nt, (*sh.color[:3], 1.0), gran)
    col = _multiply(nt, col, mottle)
    col = _multiply(nt, col, speck)
    col = _multiply(nt, col, attr.outputs["Fac"])
    nt.links.new(col, bsdf.inputs["Base Color"])
    bump = nt.nodes.new("ShaderNodeBump")
    bump.inputs["Strength"].default_value = 0.5
    bump.inputs["Distance"].default_value = 0.0008
    nt.links.new(gtex.outputs["Distance"], bump.inputs["Height"])
    nt.links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    return mat


def siding_material(spec: RoofSpec):
    """Lap siding: horizontal boards (bands in z with a bump at each lap); or brick."""
    h = spec.house
    mat = materials.principled("house_body", h.wall_color, 0.75)
    nt, bsdf = _nodes(mat)
    tc = nt.nodes.new("ShaderNodeTexCoord")
    sep = nt.nodes.new("ShaderNodeSeparateXYZ")
    nt.links.new(tc.outputs["Object"], sep.inputs["Vector"])
    comb = nt.nodes.new("ShaderNodeCombineXYZ")
    add = nt.nodes.new("ShaderNodeMath")
    add.operation = "ADD"
    nt.links.new(sep.outputs["X"], add.inputs[0])
    nt.links.new(sep.outputs["Y"], add.inputs[1])
    nt.links.new(add.outputs[0], comb.inputs["X"])
    nt.links.new(sep.outputs["Z"], comb.inputs["Y"])
    bump = nt.nodes.new("ShaderNodeBump")
    bump.inputs["Strength"].default_value = 0.6
    if h.body == "brick":
        br = nt.nodes.new("ShaderNodeTexBrick")
        br.offset = 0.5
        br.inputs["Scale"].default_value = 1.0
        br.inputs["Brick Width"].default_value = 0.215
        br.inputs["Row Height"].default_value = 0.075
        br.inputs["Mortar Size"].default_value = 0.01
        c = h.wall_color
        br.inputs["Color1"].default_value = (*c, 1)
        br.inputs["Color2"].default_value = (c[0] * 0.8, c[1] * 0.8, c[2] * 0.85, 1)
        br.inputs["Mortar"].default_value = (0.6, 0.58, 0.55, 1)
        nt.links.new(comb.outputs["Vector"], br.inputs["Vector"])
        nt.links.new(br.outputs["Color"], bsdf.inputs["Base Color"])
        nt.links.new(br.outputs["Fac"], bump.inputs["Height"])
    else:
        wave = nt.nodes.new("ShaderNodeTexWave")
        wave.wave_type = "BANDS"
        wave.bands_direction = "Y"
        wave.wave_profile = "SAW"
        wave.inputs["Scale"].default_value = _wave_scale(0.16)  # board exposure
        wave.inputs["Distortion"].default_value = 0.0
        nt.links.new(comb.outputs["Vector"], wave.inputs["Vector"])
        nt.links.new(wave.outputs["Fac"], bump.inputs["Height"])
        ramp = nt.nodes.new("ShaderNodeMapRange")
        ramp.inputs["To Min"].default_value = 0.8
        ramp.inputs["To Max"].default_value = 1.0
        nt.links.new(wave.outputs["Fac"], ramp.inputs["Value"])
        mix = nt.nodes.new("ShaderNodeMix")
        mix.data_type = "RGBA"
        mix.blend_type = "MULTIPLY"
        mix.inputs["Factor"].default_value = 1.0
        mix.inputs["A"].default_value = (*h.wall_color, 1)
        nt.links.new(ramp.outputs["Result"], mix.inputs["B"])
        nt.links.new(mix.outputs["Result"], bsdf.inputs["Base Color"])
    nt.links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    return mat


def module_material(spec: RoofSpec, dx: float, dy: float):
    """Glass over a cell grid (object coordinates = module-local metres, origin at the
    module's lower-left corner) with the backsheet showing between cells."""
    a = spec.array
    mat = materials.principled("module_glass", a.cell_color, 0.04)
    nt, bsdf = _nodes(mat)
    bsdf.inputs["IOR"].default_value = 1.52
    bsdf.inputs["Coat Weight"].default_value = 0.3
    nx, ny = (a.cells_short, a.cells_long) if a.orientation == "portrait" else (a.cells_long, a.cells_short)
    margin = a.frame_width_m + 0.008
    px, py = (dx - 2 * margin) / nx, (dy - 2 * margin) / ny
    tc = nt.nodes.new("ShaderNodeTexCoord")
    mp = nt.nodes.new("ShaderNodeMapping")
    mp.inputs["Location"].default_value = (-margin, -margin, 0.0)
    nt.links.new(tc.outputs["Object"], mp.inputs["Vector"])
    br = nt.nodes.new("ShaderNodeTexBrick")
    br.offset = 0.0
    br.inputs["Scale"].default_value = 1.0
    br.inputs["Brick Width"].default_value = px
    br.inputs["Row Height"].default_value = py
    br.inputs["Mortar Size"].default_value = 0.003
    br.inputs["Mortar Smooth"].default_value = 0.0
    br.inputs["Bias"].default_value = 0.0
    cc = a.cell_color
    br.inputs["Color1"].default_value = (*cc, 1)
    br.inputs["Color2"].default_value = (cc[0] * 0.9, cc[1] * 0.9, cc[2] * 0.95, 1)
    br.inputs["Mortar"].default_value = (*a.backsheet_color, 1)
    nt.links.new(mp.outputs["Vector"], br.inputs["Vector"])
    # thin busbars across each cell (along the long axis of the cell grid)
    wave = nt.nodes.new("ShaderNodeTexWave")
    wave.wave_type = "BANDS"
    wave.bands_direction = "X"
    wave.inputs["Scale"].default_value = _wave_scale(px / 4.0)
    nt.links.new(mp.outputs["Vector"], wave.inputs["Vector"])
    thr = nt.nodes.new("ShaderNodeMath")
    thr.operation = "GREATER_THAN"
    thr.inputs[1].default_value = 0.97
    nt.links.new(wave.outputs["Fac"], thr.inputs[0])
    mix = nt.nodes.new("ShaderNodeMix")
    mix.data_type = "RGBA"
    mix.inputs["B"].default_value = (0.55, 0.55, 0.58, 1)
    nt.links.new(thr.outputs[0], mix.inputs["Factor"])
    nt.links.new(br.outputs["Color"], mix.inputs["A"])
    nt.links.new(mix.outputs["Result"], bsdf.inputs["Base Color"])
    return mat


def add_sky(scene, spec: RoofSpec, sun_strength: float = 4.0, sky_strength: float = 0.25):
    """Sun lamp + Nishita sky with the roof's sun (`materials.nishita_sun_and_sky` has the
    convention check)."""
    return materials.nishita_sun_and_sky(scene, spec.sun.elevation_deg, spec.sun.azimuth_deg, sun_strength,
                                         sky_strength)


# ---- geometry -------------------------------------------------------------------------

def shingle_part(spec: RoofSpec) -> tuple[mesh_parts.Part, np.ndarray]:
    """Stepped 3-tab courses in the roof frame: each tab a wedge whose top runs from the
    roof surface (z = 0) at its butt down to -course_step at the next butt, separated from
    its neighbours by slots down to the deck. Returns the part and a per-face shade."""
    sh = spec.shingles
    L, R, e, s = spec.eave_length_m, spec.rafter_length_m, sh.exposure_m, sh.course_step_m
    zd = -s - DECK_GAP_M
    n = int(math.ceil(R / e - 1e-9))
    boxes = []
    for k in range(n):
        y0, y1 = k * e, min((k + 1) * e, R)
        zt1 = -s * (y1 - y0) / e
        off = (k * sh.stagger_m) % sh.tab_width_m
        edges = np.arange(off - sh.tab_width_m, L + sh.tab_width_m, sh.tab_width_m)
        a = np.clip(edges[:-1] + sh.slot_width_m / 2, 0, L)
        b = np.clip(edges[1:] - sh.slot_width_m / 2, 0, L)
        a[edges[:-1] <= 0] = 0.0
        b[edges[1:] >= L] = L
        ok = b - a > 0.01
        for x0, x1 in zip(a[ok], b[ok]):
            boxes.append((x0, x1, y0, y1, zt1))
    B = np.array(boxes)
    m = len(B)
    x0, x1, y0, y1, zt1 = B.T
    V = np.empty((m, 8, 3))
    V[:, 0] = np.c_[x0, y0, np.full(m, zd)]
    V[:, 1] = np.c_[x1, y0, np.full(m, zd)]
    V[:, 2] = np.c_[x1, y1, np.full(m, zd)]
    V[:, 3] = np.c_[x0, y1, np.full(m, zd)]
    V[:, 4] = np.c_[x0, y0, np.zeros(m)]
    V[:, 5] = np.c_[x1, y0, np.zeros(m)]
    V[:, 6] = np.c_[x1, y1, zt1]
    V[:, 7] = np.c_[x0, y1, zt1]
    base = (np.arange(m) * 8)[:, None]
    quads = np.array([(4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (3, 0, 4, 7)])  # top, butt, sides
    F = (base[:, None, :] + quads[None]).reshape(-1, 4)
    shade_rng = np.random.default_rng(sh.shade_seed)
    shade = 1.0 + sh.color_jitter * shade_rng.uniform(-1, 1, m)
    return (V.reshape(-1, 3), F.tolist()), np.repeat(shade, 4)


def _roof_planes(spec: RoofSpec) -> list[str]:
    return ["front", "back"] if spec.roof_type == "gable" else ["front"]


def _world(spec, part, plane="front"):
    return mesh_parts.transform_part(part, rs.roof_frame(spec, plane))


def build_roof(scene, spec: RoofSpec) -> BuildInfo:
    """Build the whole roof scene into `scene`; returns objects with their pass indices."""
    objects: list[SceneObject] = []
    P = rs.pass_index

    def add(ob, category):
        objects.append(SceneObject(id=ob.pass_index, name=ob.name, category=category, pass_index=ob.pass_index))
        return ob

    def obj(name, part, mat, category, pidx, **kw):
        return add(shapes.mesh_object(scene, name, part, mat, pidx, **kw), category)

    L, R = spec.eave_length_m, spec.rafter_length_m
    p = math.radians(spec.pitch_deg)
    h = spec.house
    a = spec.array
    eave_z = rs.eave_height(spec)
    run = rs.roof_run(spec)
    s = spec.shingles.course_step_m
    zd = -s - DECK_GAP_M
    trim = materials.principled("trim", h.trim_color, 0.5)
    alu = materials.principled("aluminium", a.frame_color, 0.3, 0.9)
    steel = materials.principled("steel", [0.62, 0.62, 0.6], 0.35, 1.0)
    flash_mat = materials.principled("flashing", [0.55, 0.56, 0.57], 0.45, 0.8)

    # ground
    obj("ground", mesh_parts.box_part((-500, -500, -0.05), (500, 500, 0.0)),
        _ground_material(spec), "ground", P("ground"))

    # house body under the roof
    yf = h.eave_overhang_m
    x0, x1 = -L / 2 + h.rake_overhang_m, L / 2 - h.rake_overhang_m
    if spec.roof_type == "gable":
        yb = 2 * run - yf
        prof = [(yf, 0.0), (yb, 0.0), (yb, h.wall_height_m), (run, h.wall_height_m + (run - yf) * math.tan(p)),
                (yf, h.wall_height_m)]
    else:
        yb = run - yf
        prof = [(yf, 0.0), (yb, 0.0), (yb, h.wall_height_m + (yb - yf) * math.tan(p)), (yf, h.wall_height_m)]
    body = mesh_parts.prism_part(prof, x0, x1)
    obj("house_body", body, siding_material(spec), "house_body", P("house_body"))

    # roof deck, shingles, trims
    deck_mat = materials.principled("deck", [c * 0.55 for c in spec.shingles.color], 0.95)
    sh_part, shade = shingle_part(spec)
    sh_mat = shingle_material(spec)
    for k, plane in enumerate(_roof_planes(spec)):
        deck = mesh_parts.box_part((0, 0, zd - h.deck_thickness_m), (L, R, zd))
        obj(f"roof_deck_{plane}", _world(spec, deck, plane), deck_mat, "roof_deck", P("roof_deck", k))
        obj(f"shingles_{plane}", _world(spec, sh_part, plane), sh_mat, "shingles", P("shingles", k),
            face_attrs={"tab_shade": shade})
    fascia_parts, rake_l, rake_r = [], [], []
    for plane in _roof_planes(spec):
        fascia_parts.append(_world(spec, mesh_parts.box_part((-0.02, -0.025, zd - h.deck_thickness_m - 0.04),
                                                         (L + 0.02, 0.0, 0.004)), plane))
        left = _world(spec, mesh_parts.box_part((-0.025, 0, zd - h.deck_thickness_m), (0.0, R, 0.02)), plane)
        right = _world(spec, mesh_parts.box_part((L, 0, zd - h.deck_thickness_m), (L + 0.025, R, 0.02)), plane)
        (rake_l if plane == "front" else rake_r).append(left)
        (rake_r if plane == "front" else rake_l).append(right)
    obj("fascia", mesh_parts.merge_parts(fascia_parts), trim, "fascia", P("fascia", 0))
    obj("rake_trim_left", mesh_parts.merge_parts(rake_l), trim, "rake_trim", P("rake_trim", 0))
    obj("rake_trim_right", mesh_parts.merge_parts(rake_r), trim, "rake_trim", P("rake_trim", 1))
    if spec.roof_type == "gable":
        cap = [_world(spec, mesh_parts.box_part((0, R - 0.16, -0.002), (L, R + 0.002, 0.014)), pl)
               for pl in ("front", "back")]
        obj("ridge_cap", mesh_parts.merge_parts(cap), sh_mat, "ridge_cap", P("ridge_cap"),
            face_attrs={"tab_shade": np.ones(12)})
    else:
        top = _world(spec, mesh_parts.box_part((-0.02, R, zd - h.deck_thickness_m - 0.04), (L + 0.02, R + 0.025, 0.004)))
        obj("fascia_top", top, trim, "fascia", P("fascia", 1))
    gutter = mesh_parts.box_part((-L / 2, -0.15, eave_z - 0.19), (L / 2, -0.03, eave_z - 0.07))
    obj("gutter", gutter, trim, "gutter", P("gutter"))

    if spec.chimney is not None:
        c = spec.chimney
        cx, cy = c.center_xy
        parts = [mesh_parts.box_part((cx - c.width_m / 2, cy - c.depth_m / 2, h.wall_height_m * 0.5),
                                 (cx + c.width_m / 2, cy + c.depth_m / 2, c.top_z)),
                 mesh_parts.box_part((cx - c.width_m / 2 - 0.03, cy - c.depth_m / 2 - 0.03, c.top_z),
                                 (cx + c.width_m / 2 + 0.03, cy + c.depth_m / 2 + 0.03, c.top_z + 0.05))]
        cm = materials.principled("chimney", c.color, 0.85)
        _noise_mix(cm.node_tree, cm.node_tree.nodes["Principled BSDF"], c.color, 12.0, 0.25, bump=0.3)
        obj("chimney", mesh_parts.merge_parts(parts), cm, "chimney", P("chimney"))

    obj("ladder", ladder_part(spec), materials.principled("ladder", spec.ladder.color, 0.45, 0.6),
        "ladder", P("ladder"))

    # ---- array --------------------------------------------------------------------
    dx, dy = rs._module_dxdy(a)
    gap, top = rs.module_gap_m(spec), rs.module_top_z(spec)
    fw = a.frame_width_m
    lam_bot = rs.laminate_bottom_z(spec)
    glass = module_material(spec, dx, dy)
    frame_mat = materials.principled("module_frame", a.frame_color, 0.3, 0.9)
    jb_mat = materials.principled("jbox", [0.05, 0.05, 0.05], 0.6)
    Mf = rs.roof_frame(spec)
    for r in range(a.rows):
        for c in range(a.cols):
            k = r * a.cols + c
            u0, v0, u1, v1 = rs.module_rect_uv(spec, r, c)
            M = Mf.copy()
            M[:3, 3] = Mf[:3, 3] + Mf[:3, :3] @ np.array([u0, v0, 0.0])
            lam = mesh_parts.box_part((fw - 0.004, fw - 0.004, lam_bot), (dx - fw + 0.004, dy - fw + 0.004, top - 0.002))
            obj(f"module_r{r}_c{c}", lam, glass, "module_glass", P("module_glass", k), matrix=M)
            ring = mesh_parts.ring_part((0, 0), (dx, dy), (fw, fw), (dx - fw, dy - fw), gap, top)
            obj(f"module_frame_r{r}_c{c}", ring, frame_mat, "module_frame", P("module_frame", k), matrix=M)
            ju, jv = rs.jbox_center_uv(spec, r, c)
            jx, jy, jz = rs.JBOX_SIZE
            jb = mesh_parts.box_part((ju - jx / 2, jv - jy / 2, lam_bot - jz), (ju + jx / 2, jv + jy / 2, lam_bot))
            obj(f"module_jbox_r{r}_c{c}", _world(spec, jb), jb_mat, "module_jbox", P("module_jbox", k))

    for r, k, v, u_lo, u_hi in rs.rail_positions(spec):
        rail = mesh_parts.box_part((u_lo, v - 0.02, gap - a.rail_height_m), (u_hi, v + 0.02, gap))
        obj(f"rail_r{r}_{k}", _world(spec, rail), alu, "rail", P("rail", r * 2 + k))

    ft = rs.FLASHING_THICKNESS_M
    for i, (r, k, u, v) in enumerate(rs.l_foot_positions(spec)):
        vl = v - rs.L_FOOT_LEG_OFFSET_M
        vb = v - rs.LAG_BOLT_OFFSET_M
        foot = mesh_parts.merge_parts([
            mesh_parts.box_part((u - 0.025, vb - 0.03, ft), (u + 0.025, vl + 0.003, ft + 0.006)),
            mesh_parts.box_part((u - 0.025, vl - 0.003, ft + 0.006), (u + 0.025, vl + 0.003, gap - 0.008)),
        ])
        obj(f"l_foot_{i}", _world(spec, foot), alu, "l_foot", P("l_foot", i))
        fl = mesh_parts.box_part((u - a.flashing_w_m / 2, vb - 0.09, 0.0), (u + a.flashing_w_m / 2, vb - 0.09 + a.flashing_l_m, ft))
        obj(f"flashing_{i}", _world(spec, fl), flash_mat, "flashing", P("flashing", i))
        bolt = mesh_parts.merge_parts([
            mesh_parts.cylinder_part((u, vb), 0.013, ft + 0.006, ft + 0.009, 16),
            mesh_parts.cylinder_part((u, vb), 0.0095, ft + 0.009, ft + 0.017, 6),
        ])
        obj(f"lag_bolt_{i}", _world(spec, bolt), steel, "lag_bolt", P("lag_bolt", i))

    for i, (kind, r, k, u, v) in enumerate(rs.clamp_positions(spec)):
        half = 0.02 if kind == "end" else a.module_spacing_m / 2 + 0.012
        cl = mesh_parts.merge_parts([
            mesh_parts.box_part((u - half, v - 0.025, top), (u + half, v + 0.025, top + 0.008)),
            mesh_parts.cylinder_part((u, v), 0.008, top + 0.008, top + 0.014, 6),
        ])
        obj(f"clamp_{kind}_{i}", _world(spec, cl), alu, "clamp", P("clamp", i))

    wire_mat = materials.principled("wire", [0.015, 0.015, 0.015], 0.45)
    n_lead = n_trunk = 0
    for name, pts in rs.wire_paths(spec).items():
        if name.startswith("lead"):
            ob = shapes.tube_from_curve(scene, name, pts, a.wire_radius_m, wire_mat, P("lead_wire", n_lead))
            add(ob, "lead_wire")
            n_lead += 1
        else:
            ob = shapes.tube_from_curve(scene, name, pts, a.wire_radius_m * 1.6, wire_mat, P("trunk_cable", n_trunk))
            add(ob, "trunk_cable")
            n_trunk += 1
    ju, jv = rs.roof_junction_box_uv(spec)
    jb = mesh_parts.box_part((ju - 0.1, jv - 0.09, 0.0), (ju + 0.1, jv + 0.09, 0.09))
    obj("roof_junction_box", _world(spec, jb), materials.principled("roof_jbox", [0.55, 0.56, 0.55], 0.5),
        "roof_junction_box", P("roof_junction_box"))

    add_sky(scene, spec)
    return BuildInfo(objects=objects, key_points={"eave_left": rs.roof_frame(spec)[:3, 3].tolist()})


def _ground_material(spec: RoofSpec):
    mat = materials.principled("ground", spec.ground_color, 0.95)
    nt, bsdf = _nodes(mat)
    _noise_mix(nt, bsdf, spec.ground_color, 3.0, 0.35, bump=0.2)
    return mat


def ladder_part(spec: RoofSpec) -> mesh_parts.Part:
    """Two rails resting on the gutter front and reaching `extension_m` past it, rungs
    every 0.3 m, feet on the ground."""
    ld = spec.ladder
    eave_z = rs.eave_height(spec)
    contact = np.array([ld.x, -0.15 - 0.035, eave_z - 0.08])
    d = np.array([0.0, ld.lean_ratio, 1.0])
    d /= np.linalg.norm(d)
    foot = contact - d * (contact[2] / d[2])
    tip = contact + d * ld.extension_m
    parts = []
    for sgn in (-1, 1):
        off = np.array([sgn * ld.width_m / 2, 0, 0])
        parts.append(mesh_parts.oriented_box_part(foot + off, tip + off, (1, 0, 0), 0.028, 0.07))
    length = float(np.linalg.norm(tip - foot))
    for t in np.arange(0.3, length - 0.1, 0.3):
        c = foot + d * t
        parts.append(mesh_parts.oriented_box_part(c - np.array([ld.width_m / 2, 0, 0]), c + np.array([ld.width_m / 2, 0, 0]),
                                              (0, 0, 1), 0.035, 0.03))
    return mesh_parts.merge_parts(parts)
