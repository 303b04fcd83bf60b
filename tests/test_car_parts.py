"""Car trim as data (blender_envs.vehicle.car_parts, body.face_trim): every lamp, the
grille and every door handle sits on one panel rectangle with a keep-out disc round it,
clear of the plate and of each other, where a reviewer expects them, mirrors on both doors behind the A-pillar base, tyres with a
rounded sidewall that touch the ground and stand WHEEL_PROUD_M proud, and the hull's trim
points are vertices of the built parts (so the projected hull is the drawn car's)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from blender_envs.vehicle import body as B
from blender_envs.vehicle import car_parts as C


def bodies(n_per_style: int = 30):
    rng = np.random.default_rng(7)
    return [B.sample_body(rng, s) for s in B.BODY_STYLES for _ in range(n_per_style)]


def test_face_trim_lies_on_its_panel_clear_of_the_plate_and_of_each_other():
    for b in bodies():
        P = B.panels(b)
        T = B.face_trim(b)
        doors = 2 * (2 if b.ranges.doors == 4 else 1)
        want = sorted([(k, f, s) for s in ("driver", "passenger")
                       for k, f in (("headlamp", "front"), ("indicator", "front"), ("tail_lamp", "rear"),
                                    ("indicator", "rear"))] + [("grille", "front", "centre")])
        assert sorted((t.kind, t.face, t.side) for t in T if t.kind != "handle") == want
        assert sum(t.kind == "handle" for t in T) == doors
        for t in T:
            [r] = [r for r in P[t.panel] if r.face == t.face]           # a trunk: its rear face
            assert r.face == t.face
            d = np.asarray(t.center) - np.asarray(r.center)
            grow = 0.0 if t.kind == "handle" else C.BEZEL_M
            assert abs(d @ r.normal()) < 1e-9                                   # in the panel's plane
            assert abs(d @ np.asarray(r.u)) + t.half_u + grow <= r.half_u + 1e-9
            assert abs(d @ np.asarray(r.v)) + t.half_v + grow <= r.half_v + 1e-9
            if t.side != "centre":
                assert (t.center[1] > 0) == (t.side == "driver")
            # its keep-out disc is on the panel: half-diagonal + 2 cm
            assert any(k.what == "trim" and np.allclose(r.point(k.u, k.v), t.center)
                       and k.radius == pytest.approx(math.hypot(t.half_u, t.half_v) + 0.02) for k in r.keep_out)
        for face in ("front", "rear"):
            pc = B.plate_centers(b)[face]
            def box(x, grow):
                return (x.center[1] - x.half_u - grow, x.center[1] + x.half_u + grow,
                        x.center[2] - x.half_v - grow, x.center[2] + x.half_v + grow)

            def apart(a, c):
                return a[1] <= c[0] or c[1] <= a[0] or a[3] <= c[2] or c[3] <= a[2]

            mine = [x for x in T if x.face == face]
            pw, ph = B.PLATE_SIZE_M[0] / 2, B.PLATE_SIZE_M[1] / 2
            plate = (pc[1] - pw, pc[1] + pw, pc[2] - ph, pc[2] + ph)
            for i, x in enumerate(mine):
                assert apart(box(x, C.BEZEL_M), plate)                          # bezels clear the plate
                for y in mine[i + 1:]:
                    assert apart(box(x, 0.0), box(y, 0.0))                       # lenses never overlap


def test_face_trim_layout_worked_on_a_sedan_and_an_suv():
    sedan = B.sample_body(np.random.default_rng(0), "sedan")
    T = B.face_trim(sedan)
    head = [x for x in T if x.kind == "headlamp" and x.side == "driver"][0]
    # 3 cm under the beltline, 21% of the width wide, its outer edge 5 cm in from the side
    assert head.center[2] + head.half_v == pytest.approx(sedan.beltline_m - 0.03)
    assert 2 * head.half_u == pytest.approx(0.21 * sedan.width_m)
    assert head.center[1] + head.half_u == pytest.approx(sedan.width_m / 2 - 0.05)
    grille = [x for x in T if x.kind == "grille"][0]
    assert grille.half_u == pytest.approx(head.center[1] - head.half_u - 0.04)     # 4 cm from each headlamp
    tail = [x for x in T if x.kind == "tail_lamp" and x.side == "passenger"][0]
    assert tail.half_u > tail.half_v                                             # a horizontal bar on a trunk
    handle = [x for x in T if x.kind == "handle" and x.panel == "rear_door_driver"][0]
    assert handle.center == pytest.approx([sedan.x_quarter_start() + 0.17, sedan.width_m / 2,
                                           sedan.beltline_m - 0.09])
    suv = B.sample_body(np.random.default_rng(0), "SUV")
    tail = [x for x in B.face_trim(suv) if x.kind == "tail_lamp"][0]
    assert tail.half_v > 1.5 * tail.half_u                                       # a tall cluster on a tailgate
    assert 2 * tail.half_v == pytest.approx(min(0.40, max(0.16, 0.55 * (suv.beltline_m - suv.z_bumper_top()))))


def test_mirrors_on_both_doors_behind_the_a_pillar_base():
    for b in bodies(5):
        M = C.mirror_boxes(b)
        assert set(M) == {"driver", "passenger"}
        for side, P in M.items():
            sy = B.SIDES[side]
            assert (sy * P[:, 1]).max() == pytest.approx(b.width_m / 2 + C.MIRROR_REACH_M)
            assert (sy * P[:, 1]).min() == pytest.approx(b.width_m / 2 - 0.04)
            assert P[:, 0].max() == pytest.approx(b.x_windshield_base() - 0.05)
            assert P[:, 0].min() > b.x_fender_end() - 0.5 and P[:, 0].max() < b.x_fender_end() + 0.5 + b.hood_m
            assert P[:, 2].min() == pytest.approx(b.beltline_m + 0.03)              # above the door's top
        V, F = C.mirror_parts(b)["mirror_glass"]
        assert len(F) == 2 and np.all(V[:, 0] < b.x_windshield_base() - 0.05 - 0.10)   # facing rearwards


def test_tyre_has_a_rounded_sidewall_touches_the_ground_and_stands_proud():
    b = B.sample_body(np.random.default_rng(3), "crossover")
    R, yf = b.wheel_radius_m, b.width_m / 2 + B.WHEEL_PROUD_M
    prof = C.tyre_profile()
    radii = sorted({round(f, 3) for f, _ in prof})
    assert len(radii) >= 4 and radii[0] == C.RIM_FRAC and radii[-1] == 1.0         # not a flat disc
    V, F = C.tyre_part(b, "front_driver")
    assert V[:, 2].min() == pytest.approx(0.0, abs=1e-12)
    assert V[:, 1].max() == pytest.approx(yf) and V[:, 1].min() == pytest.approx(yf - B.WHEEL_WIDTH_M)
    widest = V[np.isclose(V[:, 1], yf)]
    r = np.hypot(widest[:, 0] - b.x_front_axle(), widest[:, 2] - R)
    assert r == pytest.approx(0.80 * R)                                            # the bulge is below the tread
    Vp, _ = C.tyre_part(b, "rear_passenger")
    assert Vp[:, 1].min() == pytest.approx(-yf)
    rim, _ = C.rim_part(b, "front_driver")
    assert rim[:, 1].max() == pytest.approx(yf - 0.005) and rim[:, 1].min() > b.width_m / 2   # recessed, proud of the side
    assert C.SPOKES[b.style] == 5


def test_hull_trim_points_are_vertices_of_the_parts():
    b = B.sample_body(np.random.default_rng(4), "van")
    H = C.hull_trim_points(b)
    assert len(H) == 2 * 8 + 4 * 16
    verts = np.concatenate([p[0] for _, p in C.trim_parts(b).values()])
    d = np.min(np.linalg.norm(H[:, None, :] - verts[None, :, :], axis=2), axis=1)
    assert d.max() < 1e-9
    P = B.hull_points(b)
    assert P[:, 1].max() == pytest.approx(b.width_m / 2 + C.MIRROR_REACH_M)
    assert P[:, 2].min() == pytest.approx(0.0, abs=1e-12)


def test_wheel_wells_line_the_arch_cut_outs():
    """Every well vertex lies on the cut-out's edge (the arch circle over the top, its vertical
    sides down to the sill, body.arch_top_z), between just inside the shaped side surface and
    WELL_DEPTH_M in; the fenders' and quarter panels' meshes have nothing inside the cut-out."""
    from blender_envs.vehicle import panel_mesh as PM

    for b in bodies(5):
        V, F = C.wheel_well_part(b)
        r, R, zc, W2 = b.arch_radius_m(), b.wheel_radius_m, b.clearance_m, b.width_m / 2
        for x, sy in C.wheel_centres(b).values():
            mine = V[(np.abs(V[:, 0] - x) <= r + 1e-9) & (np.sign(V[:, 1]) == sy)]
            dx, dz = mine[:, 0] - x, mine[:, 2] - R
            on_arc = np.isclose(np.hypot(dx, dz), r) & (dz >= -1e-9)
            on_side = np.isclose(np.abs(dx), r) & (mine[:, 2] >= zc - 1e-9) & (dz <= 1e-9)
            assert np.all(on_arc | on_side)
            assert mine[:, 2].min() == pytest.approx(zc)
            assert np.abs(mine[:, 1]).max() < W2 and np.abs(mine[:, 1]).min() == pytest.approx(W2 - C.WELL_DEPTH_M)
        for name, rects in B.panels(b).items():
            for xa in B.arch_axles(b, name):
                Vp, Fp = PM.panel_part(b, rects)
                cen = np.array([Vp[list(f)].mean(axis=0) for f in Fp])
                arc = C.arch_outline(b, xa)[1:-1]            # the cut's top, its polygon (x increasing)
                over = np.abs(cen[:, 0] - xa) < r
                assert np.all(cen[over, 2] >= np.interp(cen[over, 0], arc[:, 0], arc[:, 1]) - 1e-9), name