"""vehicle-5 body shape (no Blender): crowned hood, roof and deck, rounded vertical corners,
bumpers tucked under, and the rule that keeps every label: mesh points only move inwards
of their `PanelRect`s (into the body or down), never out of them.

The crown and the arcs are recomputed here from their definitions (docs/design-notes.md),
not read back from body.py's helpers."""
from __future__ import annotations

import math

import numpy as np
import pytest

from blender_envs.vehicle import body as B
from vehicle_shape import top_band_loss_m2
from blender_envs.vehicle import panel_mesh as PM
from blender_envs.vehicle.body import BODY_STYLES, panels, sample_body


def bodies():
    """One body of every style, and two more draws of the styles with a trunk."""
    out = [sample_body(np.random.default_rng(100 + i), s) for i, s in enumerate(BODY_STYLES)]
    return out + [sample_body(np.random.default_rng(7), "sedan"), sample_body(np.random.default_rng(8), "coupe")]


BODIES = bodies()


def shoulder(b, z):
    """The side's shaped half-width W/2 - side_inset(z), from the vehicle-3 definition."""
    t = np.clip((np.asarray(z, float) - b.clearance_m) / (b.beltline_m - b.clearance_m), 0.0, 1.0)
    top = 0.035 * np.clip((t - 0.55) / 0.45, 0.0, 1.0) ** 2
    bottom = 0.030 * np.clip((0.30 - t) / 0.30, 0.0, 1.0) ** 2
    return b.width_m / 2 - top - bottom


def tuck(b, z):
    """How far the end faces stand back of their planes at z: 3 cm tucked under at the sill over
    the bottom 30% of the side's height, 3 cm rolled back at the beltline over the top 6 cm."""
    z = np.asarray(z, float)
    t = np.clip((z - b.clearance_m) / (b.beltline_m - b.clearance_m), 0.0, 1.0)
    roll = np.clip((z - b.beltline_m + 0.06) / 0.06, 0.0, 1.0)
    return 0.03 * np.clip((0.30 - t) / 0.30, 0.0, 1.0) ** 2 + 0.03 * roll ** 2


def radius(b):
    return min(max(0.07 * b.width_m, 0.11), 0.15)


def mesh(b, name):
    return PM.panel_part(b, panels(b)[name])


# ------------------------------------------------------------------ the rule: only inwards

@pytest.mark.parametrize("b", BODIES, ids=lambda b: b.style)
def test_no_mesh_point_lies_outside_its_rectangle(b):
    """Seen along its normal every vertex lies inside its rectangle, and no vertex lies on the
    outer side of the rectangle's plane (tops: above it)."""
    for name, rects in panels(b).items():
        for r in rects:
            V, _ = PM.rect_part(b, r)
            d = V - np.asarray(r.center)
            u, v, n = np.asarray(r.u), np.asarray(r.v), r.normal()
            assert np.all(np.abs(d @ u) <= r.half_u + 1e-9), name
            assert np.all(np.abs(d @ v) <= r.half_v + 1e-9), name
            assert np.all(d @ n <= 1e-12), name
            if r.face == "top":
                assert (d @ n).max() == pytest.approx(0.0, abs=1e-12), name      # the crown's top is on the plane


# ------------------------------------------------------------------ the crown

def crown_hood(b, x, y, across=0.018, along=0.008, deck=False):
    """The hood's (or deck's) drop from its definition: across * xi (2 - xi) * eta^2 + along *
    max(0, 2 xi - 1)^2, xi from the glass edge (0) to the car's end (1), eta across the outline."""
    L2, r = b.length_m / 2, radius(b)
    x0 = b.x_rear_glass_base() if deck else b.x_windshield_base()
    xi = (x0 - x) / (x0 + L2) if deck else (x - x0) / (L2 - x0)
    d = np.clip(np.abs(x) - (L2 - 0.03 - r), 0.0, r)         # the outline's ends rolled back 3 cm
    hw = b.width_m / 2 - 0.035 - (r - np.sqrt(r * r - d * d))
    eta = y / hw
    return across * xi * (2 - xi) * eta ** 2 + along * np.clip(2 * xi - 1, 0, None) ** 2


@pytest.mark.parametrize("b", BODIES, ids=lambda b: b.style)
def test_hood_and_deck_crown_follows_the_formula(b):
    for name, deck, (a, c) in (("hood", False, B.HOOD_CROWN_M), ("trunk", True, B.DECK_CROWN_M)):
        if name not in panels(b):
            continue
        V, _ = PM.rect_part(b, panels(b)[name][0])
        want = crown_hood(b, V[:, 0], V[:, 1], a, c, deck)
        assert b.beltline_m - V[:, 2] == pytest.approx(want, abs=1e-12), name
        # worked values: 0 along the glass edge and at the centre, across + along at the end's corners
        x0 = b.x_rear_glass_base() if deck else b.x_windshield_base()
        xe = -(b.length_m / 2 - 0.03) if deck else b.length_m / 2 - 0.03
        at_glass = np.isclose(V[:, 0], x0, atol=1e-12)
        assert at_glass.sum() >= 2 and np.allclose(V[at_glass, 2], b.beltline_m, atol=1e-12)
        end = np.isclose(V[:, 0], xe, atol=1e-12)
        assert end.sum() >= 3 and np.abs(V[:, 0]).max() == pytest.approx(abs(xe), abs=1e-12)
        xi = 1 - 0.03 / (b.length_m / 2 + (x0 if deck else -x0))           # the leading edge's xi
        assert np.max(b.beltline_m - V[end, 2]) == pytest.approx(a * xi * (2 - xi) + c * (2 * xi - 1) ** 2, abs=1e-12)
        assert np.min(b.beltline_m - V[end, 2]) == pytest.approx(c * (2 * xi - 1) ** 2, abs=1e-12)
        assert B.top_drop(b, name, (x0 + xe) / 2, 0.0) == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize("b", [x for x in BODIES if not x.ranges.open_top], ids=lambda b: b.style)
def test_roof_crown_follows_the_formula(b):
    """across * eta^2 + along * (2 xi - 1)^2 (1 - eta^2): 0 at the centre, `across` all along the
    side edges (where the side glass meets it), `along` at the middle of the front and rear edges."""
    a, c = B.ROOF_CROWN_M
    r = panels(b)["roof"][0]
    V, _ = PM.rect_part(b, r)
    x0, x1, hw = b.x_roof_rear(), b.x_roof_front(), b.width_m / 2 - B.ROOF_INSET_M
    xi, eta = (V[:, 0] - x0) / (x1 - x0), V[:, 1] / hw
    assert b.height_m - V[:, 2] == pytest.approx(a * eta ** 2 + c * (2 * xi - 1) ** 2 * (1 - eta ** 2), abs=1e-12)
    side = np.isclose(np.abs(V[:, 1]), hw, atol=1e-12)
    assert np.allclose(b.height_m - V[side, 2], a, atol=1e-12)
    assert B.top_drop(b, "roof", (x0 + x1) / 2, 0.0) == 0.0
    assert B.top_drop(b, "roof", x1, 0.0) == pytest.approx(c)


def test_crown_stays_inside_the_top_band():
    """The vertical panels' top band takes the crown's largest edge drop (hood and deck corners)
    without folding, and a drawn damage site never reaches into that band."""
    from blender_envs.vehicle.damage import EDGE_MARGIN_M

    assert sum(B.HOOD_CROWN_M) < B.TOP_BAND_M and sum(B.DECK_CROWN_M) < B.TOP_BAND_M
    assert B.TOP_BAND_M <= EDGE_MARGIN_M


# ------------------------------------------------------------------ the rounded corners

@pytest.mark.parametrize("b", BODIES, ids=lambda b: b.style)
def test_corner_points_lie_on_the_arc(b):
    """Near each end, side and end-face vertices below the top band lie on one arc in plan:
    radius r about (+-(L/2 - tuck(z) - r), +-(w(z) - r)); the side's grid stops at the split
    (45 degrees: L/2 - r (1 - cos 45) from the end plane), the end face's takes the rest."""
    L2, r = b.length_m / 2, radius(b)
    e = r * (1 - math.cos(math.radians(45)))
    assert B.corner_radius_m(b) == pytest.approx(r) and B.corner_split_m(b) == pytest.approx(e)
    assert max(B.END_TUCK_M, B.END_ROLL_M) <= e            # the end face's outer arc point stays on the arc
    zb = b.beltline_m - B.TOP_BAND_M
    n_arc = 0
    for name, rects in panels(b).items():
        for rect in rects:
            if rect.face == "top":
                continue
            V, _ = PM.rect_part(b, rect)
            V = V[V[:, 2] <= zb + 1e-9]
            w, t = shoulder(b, V[:, 2]), tuck(b, V[:, 2])
            cx = L2 - t - r
            near = (np.abs(V[:, 0]) >= cx - 1e-9) & (np.abs(V[:, 1]) >= w - r - 1e-9)   # the corner quadrant
            P = V[near]
            dist = np.hypot(np.abs(P[:, 0]) - cx[near], np.abs(P[:, 1]) - (w[near] - r))
            assert dist == pytest.approx(r, abs=1e-9), name
            n_arc += len(P)
            if rect.face in B.SIDES:
                assert np.abs(V[:, 0]).max() <= L2 - e + 1e-9
            else:
                assert np.abs(np.abs(V[:, 0]) - L2).max() >= e - 1e-9
    assert n_arc > 100


@pytest.mark.parametrize("b", BODIES, ids=lambda b: b.style)
def test_side_and_end_faces_share_their_split_line(b):
    """Front fender and front bumper (same rows): the same vertices on the split line, row for
    row; at the rear, every end-face vertex on the split line lies on the quarter panel's seam
    polyline and vice versa (rows differ there, as before vehicle-5)."""
    L2, e = b.length_m / 2, B.corner_split_m(b)
    for sy, side in ((1.0, "driver"), (-1.0, "passenger")):
        F, _ = mesh(b, f"front_fender_{side}")
        E, _ = mesh(b, "front_bumper")
        fs = F[np.isclose(F[:, 0], L2 - e, atol=1e-12)]
        es = E[np.isclose(E[:, 0], L2 - e, atol=1e-9) & (np.sign(E[:, 1]) == sy)]
        assert len(fs) == len(es) > 10
        assert np.sort(fs, axis=0) == pytest.approx(np.sort(es, axis=0), abs=1e-12)
        Q, _ = mesh(b, f"quarter_panel_{side}")
        qs = Q[np.isclose(Q[:, 0], -(L2 - e), atol=1e-12)]
        qs = qs[np.argsort(qs[:, 2])]
        rear = np.concatenate([mesh(b, "rear_bumper")[0]] + [PM.rect_part(b, r)[0]
                                                             for r in panels(b)[B.rear_panel_name(b)]
                                                             if r.face == "rear"])
        rs = rear[np.isclose(rear[:, 0], -(L2 - e), atol=1e-9) & (np.sign(rear[:, 1]) == sy)]
        for z, y in rs[:, 1:][:, ::-1]:
            assert y == pytest.approx(np.interp(z, qs[:, 2], qs[:, 1]), abs=5e-4)    # the shoulder curve's chord
        assert rs[:, 2].min() == pytest.approx(qs[:, 2].min()) and rs[:, 2].max() == pytest.approx(qs[:, 2].max())


@pytest.mark.parametrize("b", BODIES, ids=lambda b: b.style)
def test_hood_and_deck_edges_are_the_side_and_end_top_rows(b):
    """Every vertex on the hood's (deck's) outline is a vertex of a side panel's top row or of the
    front (rear) face's top row, and those top rows' vertices beside it are the hood's: watertight."""
    for top, end in (("hood", "front_bumper"), ("trunk", "trunk")):
        if top not in panels(b):
            continue
        H, _ = PM.rect_part(b, panels(b)[top][0])
        lo, hi = H[:, 0].min(), H[:, 0].max()
        rows = []
        for name, rects in panels(b).items():
            for r in rects:
                if r.face == "top" or abs(r.center[2] + r.half_v - b.beltline_m) > 1e-9:
                    continue
                V, _ = PM.rect_part(b, r)
                top_row = V[np.isclose(V[:, 2], b.beltline_m - _edge_drop(b, r.face, V), atol=1e-12)]
                rows.append(top_row[(top_row[:, 0] >= lo - 1e-9) & (top_row[:, 0] <= hi + 1e-9)])
        R = np.concatenate(rows)
        hw = B.top_half_width(b, H[:, 0])
        outline = H[np.isclose(np.abs(H[:, 1]), hw, atol=1e-12) | np.isclose(np.abs(H[:, 0]), np.abs(H[:, 0]).max())]
        # 2e-8: the arc's end (corner_inset at the end plane is sqrt(r^2 - d^2) with d = r to rounding)
        d = np.min(np.linalg.norm(outline[:, None] - R[None], axis=2), axis=1)
        assert d.max() < 2e-8, top
        d = np.min(np.linalg.norm(R[:, None] - H[None], axis=2), axis=1)
        assert d.max() < 2e-8, top


def _edge_drop(b, face, V):
    if face in B.SIDES:
        return B.outline_drop(b, V[:, 0])
    return B.end_edge_drop(b, face, V[:, 1], b.beltline_m) if face != "top" else 0.0


# ------------------------------------------------------------------ labels stay the rectangles'

@pytest.mark.parametrize("b", BODIES, ids=lambda b: b.style)
def test_drawn_damage_sites_move_only_along_the_normal(b):
    """A drawn site keeps its area: on_surface moves its points along the panel normal only."""
    from blender_envs.vehicle.damage import sample_damage
    from blender_envs.vehicle.damage_view import surface_samples

    for k in range(6):
        site = sample_damage(np.random.default_rng(k), b)
        rect = panels(b)[site.panel][site.rect_index]
        S = surface_samples(b, site)
        d = S - np.asarray(rect.center)
        u, v = np.asarray(rect.u), np.asarray(rect.v)
        flat = np.asarray(rect.center) + (d @ u)[:, None] * u + (d @ v)[:, None] * v
        moved = B.on_surface(b, rect.face, flat) - flat
        assert np.abs(moved @ u).max() < 1e-12 and np.abs(moved @ v).max() < 1e-12


@pytest.mark.parametrize("b", BODIES, ids=lambda b: b.style)
def test_side_mesh_area_is_the_rectangle_less_cut_outs_and_band(b):
    """Seen square-on a side panel covers its rectangle less the corner strip (e at an end),
    the arch cut-out (0.5%: the 32-gon) and the top band's drop (vehicle_shape.top_band_loss_m2)."""
    e = B.corner_split_m(b)
    for name, rects in panels(b).items():
        r = rects[0]
        if r.face != "driver":
            continue
        V, F = PM.rect_part(b, r)
        area = sum(np.cross(V[f[i]] - V[f[0]], V[f[i + 1]] - V[f[0]]) @ r.normal() / 2
                   for f in F for i in range(1, len(f) - 1))
        x0, x1 = PM.side_range(b, r)
        strip = r.half_u * 2 - (x1 - x0)
        assert strip in (pytest.approx(0.0, abs=1e-12), pytest.approx(e))
        cut = B.arch_cut_area_m2(b) * len(B.arch_axles(b, name))
        band = top_band_loss_m2(b, r.model_copy(update={"center": [(x0 + x1) / 2] + r.center[1:],
                                                           "half_u": (x1 - x0) / 2}))
        want = r.area_m2() - strip * 2 * r.half_v - cut - band
        assert area == pytest.approx(want, rel=5e-3 if cut else 1e-6), name


# ------------------------------------------------------------------ trim and glass follow the shape

@pytest.mark.parametrize("b", BODIES, ids=lambda b: b.style)
def test_lamps_sit_on_the_rounded_face(b):
    """Lamp lenses LAMP_PROUD_M out of the shaped end face along its normal, wherever they wrap."""
    from blender_envs.vehicle import car_parts as C

    for t in B.face_trim(b):
        if t.kind == "handle":
            continue
        V, _ = C._quad_on_face(t, 0.0, C.LAMP_PROUD_M, b)
        u, v = (np.asarray(a) for a in B._AXES[t.face])
        c = np.asarray(t.center)
        su = np.linspace(-1.0, 1.0, C.LAMP_COLUMNS + 1)
        flat = np.array([c + a * t.half_u * u + s * t.half_v * v for s in (-1.0, 1.0) for a in su])
        off = V - B.on_surface(b, t.face, flat)
        assert np.linalg.norm(off, axis=1) == pytest.approx(C.LAMP_PROUD_M, abs=1e-9), t.kind
        # out along the arc's normal: perpendicular to the shaped row's direction there
        S = B.on_surface(b, t.face, flat)
        k = C.LAMP_COLUMNS + 1
        for row in (slice(0, k), slice(k, 2 * k)):
            tang = (S[row][2:] - S[row][:-2])                    # central chords, interior columns
            cos = np.abs(np.sum(off[row][1:-1] * tang, axis=1)) / np.linalg.norm(tang, axis=1) / C.LAMP_PROUD_M
            F = flat[row]                                        # where the chord's ends are on the face
            ok = np.abs(F[:, 1]) < shoulder(b, F[:, 2]) - 0.005   # (not brought in to the shaped width)
            assert cos[ok[2:] & ok[:-2]].max(initial=0.0) < 0.1, t.kind


@pytest.mark.parametrize("b", BODIES, ids=lambda b: b.style)
def test_lenses_dome_out_of_the_face_along_its_normal(b):
    """vehicle-6 lenses: LAMP_PROUD_M out at the rim, LAMP_PROUD_M + the kind's bulge at the
    centre, the pillow (1 - a^2)(1 - b^2) between, always along the flat lens's offset
    direction (the shaped face's normal), and wound as the flat lens was (faces point out)."""
    from blender_envs.vehicle import car_parts as C

    for t in B.face_trim(b):
        if t.kind not in C.LENS_BULGE_M:
            continue
        bulge = C.LENS_BULGE_M[t.kind]
        V, F = C.lens_on_face(t, C.LAMP_PROUD_M, bulge, b)
        u, v = (np.asarray(a) for a in B._AXES[t.face])
        c = np.asarray(t.center)
        A, Bv = (g.ravel() for g in np.meshgrid(np.linspace(-1, 1, C.LAMP_COLUMNS + 1),
                                                np.linspace(-1, 1, C.LENS_ROWS + 1)))
        flat = c + A[:, None] * t.half_u * u + Bv[:, None] * t.half_v * v
        off = V - B.on_surface(b, t.face, flat)
        d = np.linalg.norm(off, axis=1)
        assert d == pytest.approx(C.LAMP_PROUD_M + bulge * (1 - A * A) * (1 - Bv * Bv), abs=1e-9), t.kind
        assert d.max() == pytest.approx(C.LAMP_PROUD_M + bulge, abs=1e-9)          # the centre point
        rim = (np.abs(A) == 1.0) | (np.abs(Bv) == 1.0)
        assert d[rim] == pytest.approx(C.LAMP_PROUD_M, abs=1e-9)
        Vf, _ = C._quad_on_face(t, 0.0, C.LAMP_PROUD_M, b)                       # the flat lens's rows
        k = C.LAMP_COLUMNS + 1
        assert V[:k] == pytest.approx(Vf[:k], abs=1e-12) and V[-k:] == pytest.approx(Vf[k:], abs=1e-12)
        n = np.cross(u, v)
        P = V[list(F[len(F) // 2])]
        assert np.cross(P[1] - P[0], P[2] - P[0]) @ n > 0                          # wound to face out
    parts = C.lamp_parts(b)
    assert len(parts["headlamp_lenses"][1]) == 2 * C.LAMP_COLUMNS * C.LENS_ROWS


@pytest.mark.parametrize("b", BODIES, ids=lambda b: b.style)
def test_glass_stays_inside_the_body_outline(b):
    """No glass vertex stands outside the beltline's rounded outline or above the crowned roof."""
    from blender_envs.vehicle.car_build import _glass_part

    V, F = _glass_part(b)
    assert len(F) >= (1 if b.ranges.open_top else 4 * PM.CORNER_SEGMENTS)
    assert np.all(np.abs(V[:, 0]) <= b.length_m / 2 + 1e-9)
    low = np.isclose(V[:, 2], b.beltline_m)
    assert np.all(np.abs(V[low, 1]) <= B.top_half_width(b, V[low, 0]) + 1e-9)
    if not b.ranges.open_top:
        assert np.all(V[:, 2] <= b.height_m - B.top_drop(b, "roof", np.clip(V[:, 0], b.x_roof_rear(),
                                                                             b.x_roof_front()), V[:, 1]) + 1e-9)
