"""blender_envs.vehicle spec modules: body styles, car frame, panels, plates, VIN/RO/date, damage.

Worked values are literal (the VINs of notes/vehicles.md and notes/checks/vin.py, the
remainder ranges computed by hand from the style table), so a changed range, a flipped
axis or a wrong check-digit weight fails here.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

from blender_envs.vehicle import body as B
from blender_envs.vehicle import damage as D
from blender_envs.vehicle import ids as I
from blender_envs.vehicle import plates as P
from packagers.prompts import get_prompt
from render_farm.seeds import rng_for

# ---------------------------------------------------------------- body styles


def test_the_ten_styles_are_the_prompts_options_in_order():
    for env in ("car_view", "ro_board"):
        opts = {k.name: k for k in get_prompt(env).keys}["body_style"].options
        assert list(B.BODY_STYLES) == opts
    assert set(B.STYLES) == set(B.BODY_STYLES) and len(B.BODY_STYLES) == 10


@pytest.mark.parametrize("style, lo, hi", [
    ("sedan", 0.13, 0.27), ("hatchback", 0.14, 0.27), ("coupe", 0.10, 0.25), ("convertible", 0.17, 0.31),
    ("wagon", 0.02, 0.15), ("SUV", 0.01, 0.14), ("crossover", 0.07, 0.20), ("minivan", 0.01, 0.14),
    ("pickup", 0.34, 0.49), ("van", 0.01, 0.14),
])
def test_remainder_ranges_close_every_profile(style, lo, hi):
    # deck (trunk styles, pickup bed) or rear-glass run (tailgate styles), as fractions of the length
    assert B.remainder_range(style) == pytest.approx((lo, hi), abs=1e-9)


@pytest.mark.parametrize("style", B.BODY_STYLES)
def test_draws_stay_in_their_ranges_and_close_the_profile(style):
    rng = np.random.default_rng(7)
    s = B.STYLES[style]
    for _ in range(200):
        b = B.sample_body(rng, style)
        L = b.length_m
        assert s.length_m[0] - 1e-4 <= L <= s.length_m[1] + 1e-4
        assert s.width_m[0] - 1e-4 <= b.width_m <= s.width_m[1] + 1e-4
        assert s.height_m[0] - 1e-4 <= b.height_m <= s.height_m[1] + 1e-4
        assert s.wheelbase_frac[0] - 1e-4 <= b.wheelbase_m / L <= s.wheelbase_frac[1] + 1e-4
        assert s.beltline_frac[0] - 1e-4 <= b.beltline_m / b.height_m <= s.beltline_frac[1] + 1e-4
        assert s.wheel_radius_m[0] - 1e-4 <= b.wheel_radius_m <= s.wheel_radius_m[1] + 1e-4
        total = b.hood_m + b.windshield_m + b.roof_m + b.rear_glass_m + b.deck_m
        assert total == pytest.approx(L, abs=2e-4)
        rem = (b.rear_glass_m if s.rear_glass_frac is None else b.deck_m) / L
        lo, hi = B.remainder_range(style)
        assert lo - 1e-3 <= rem <= hi + 1e-3
        if s.rear_glass_frac is None:
            assert b.deck_m == 0.0
        assert b.rear_overhang_m > 0.1
        # doors have room between the arches (>= 0.7 m each)
        span = b.x_fender_end() - b.x_quarter_start()
        assert span >= (1.4 if s.doors == 4 else 0.9)


def test_style_is_uniform_when_not_given_and_the_draw_is_seeded_by_stage_name():
    a = B.sample_body(rng_for("realitybench-1", "car_view", "random", 0, "vehicle_body"))
    b = B.sample_body(rng_for("realitybench-1", "car_view", "random", 0, "vehicle_body"))
    c = B.sample_body(rng_for("realitybench-1", "car_view", "random", 1, "vehicle_body"))
    assert a.model_dump_json() == b.model_dump_json() != c.model_dump_json()
    assert a.style == "SUV" and a.length_m == 4.6518 and a.height_m == 1.784  # pinned draw
    rng = np.random.default_rng(0)
    counts = {s: 0 for s in B.BODY_STYLES}
    for _ in range(2000):
        counts[B.sample_body(rng).style] += 1
    assert all(150 <= n <= 250 for n in counts.values()), counts


def test_sedan_draw_is_pinned():
    b = B.sample_body(np.random.default_rng(0), "sedan")
    assert b.model_dump() == {
        "style": "sedan", "length_m": 4.8185, "width_m": 1.807, "height_m": 1.4041, "wheelbase_m": 2.7497,
        "front_overhang_m": 0.9849, "hood_m": 1.4287, "windshield_m": 0.7141, "roof_m": 1.297,
        "rear_glass_m": 0.5604, "deck_m": 0.8183, "beltline_m": 0.9493, "clearance_m": 0.1545,
        "wheel_radius_m": 0.3101}


# ---------------------------------------------------------------- car frame, faces


def test_driver_side_is_plus_y_and_faces_point_out():
    assert B.FACE_NORMALS == {"front": (1.0, 0.0, 0.0), "rear": (-1.0, 0.0, 0.0), "driver": (0.0, 1.0, 0.0),
                              "passenger": (0.0, -1.0, 0.0)}
    b = B.sample_body(np.random.default_rng(1), "sedan")
    assert B.steering_wheel_center(b)[1] > 0.3          # left-hand drive: the wheel is on the driver's side
    assert B.steering_wheel_center(b)[0] < b.x_windshield_base()
    for f, n in B.FACE_NORMALS.items():
        fc = b.face_center(f)
        assert np.dot(fc - b.center(), n) > 0.8
    assert b.face_center("front") == pytest.approx([b.length_m / 2, 0.0, b.height_m / 2])
    assert b.face_center("passenger") == pytest.approx([0.0, -b.width_m / 2, b.height_m / 2])


def test_placement_rotates_car_x_to_the_heading():
    p = B.Placement(x=10.0, y=-2.0, yaw_deg=90.0)
    assert B.to_world(p, [1.0, 0.0, 0.5]) == pytest.approx([10.0, -1.0, 0.5])     # forward = world +y
    assert B.to_world(p, [0.0, 1.0, 0.0]) == pytest.approx([9.0, -2.0, 0.0])      # driver side = world -x
    pts = np.random.default_rng(0).normal(size=(5, 3))
    assert B.to_car(p, B.to_world(p, pts)) == pytest.approx(pts)


@pytest.mark.parametrize("style", B.BODY_STYLES)
def test_panel_rects_face_out_and_lie_on_the_body_box(style):
    b = B.sample_body(np.random.default_rng(3), style)
    for name, rects in B.panels(b).items():
        for r in rects:
            n = r.normal()
            assert np.linalg.norm(n) == pytest.approx(1.0)
            corners = r.point([-r.half_u, r.half_u, r.half_u, -r.half_u], [-r.half_v, -r.half_v, r.half_v, r.half_v])
            c = np.asarray(r.center)
            if r.face == "top":
                assert n == pytest.approx([0, 0, 1])
            else:
                assert n == pytest.approx(B.FACE_NORMALS[r.face])
                assert np.dot(c[:2], n[:2]) == pytest.approx(
                    b.length_m / 2 if r.face in ("front", "rear") else b.width_m / 2)
            assert np.all(np.abs(corners[:, 0]) <= b.length_m / 2 + 1e-9)
            assert np.all(np.abs(corners[:, 1]) <= b.width_m / 2 + 1e-9)
            assert np.all((corners[:, 2] >= b.clearance_m - 1e-9) & (corners[:, 2] <= b.height_m + 1e-9))
            assert r.half_u > 0.1 and r.half_v > 0.1, (name, r.half_u, r.half_v)
            # the keep-outs are where they say: plates at the plate centres, arches at the axles
            for k in r.keep_out:
                p = r.point(k.u, k.v)
                if k.what == "plate":
                    assert any(np.allclose(p, q) for q in B.plate_centers(b).values())
                elif k.what == "trim":              # a lamp, grille or handle of this panel, half-diagonal + 2 cm
                    lp = [x for x in B.face_trim(b) if x.panel == name and np.allclose(p, x.center)]
                    assert len(lp) == 1 and k.radius == pytest.approx(math.hypot(lp[0].half_u, lp[0].half_v) + 0.02)
                else:
                    assert min(abs(p[0] - b.x_front_axle()), abs(p[0] - b.x_rear_axle())) < 1e-9
                    assert p[2] == pytest.approx(b.wheel_radius_m) and k.radius == pytest.approx(b.wheel_radius_m + 0.05)


def test_u_is_the_viewers_right_on_each_face():
    b = B.sample_body(np.random.default_rng(3), "sedan")
    P_ = B.panels(b)
    # standing at the driver side looking at the car, the front is to the left: u = -x
    assert P_["front_door_driver"][0].u == [-1.0, 0.0, 0.0]
    assert P_["front_door_passenger"][0].u == [1.0, 0.0, 0.0]
    assert P_["front_bumper"][0].u == [0.0, 1.0, 0.0]
    assert P_["rear_bumper"][0].u == [0.0, -1.0, 0.0]


def test_panel_sets_per_style():
    def names(style):
        return set(B.panels(B.sample_body(np.random.default_rng(0), style)))
    sides = lambda *ps: {f"{p}_{s}" for p in ps for s in ("driver", "passenger")}  # noqa: E731
    four = sides("front_fender", "front_door", "rear_door", "quarter_panel")
    assert names("sedan") == {"front_bumper", "hood", "rear_bumper", "trunk", "roof"} | four
    assert names("coupe") == {"front_bumper", "hood", "rear_bumper", "trunk", "roof"} | sides(
        "front_fender", "front_door", "quarter_panel")
    assert names("convertible") == names("coupe") - {"roof"}
    for s in ("hatchback", "wagon", "SUV", "crossover", "minivan", "van", "pickup"):
        assert names(s) == {"front_bumper", "hood", "rear_bumper", "tailgate", "roof"} | four


def test_sedan_layout_worked_example():
    b = B.sample_body(np.random.default_rng(0), "sedan")   # L 4.8185, front overhang 0.9849, wheelbase 2.7497
    assert b.x_front_axle() == pytest.approx(2.40925 - 0.9849)
    assert b.x_rear_axle() == pytest.approx(2.40925 - 0.9849 - 2.7497)
    assert b.x_fender_end() == pytest.approx(1.42435 - 0.3601)
    assert b.x_quarter_start() == pytest.approx(-1.32535 + 0.3601)
    span = 1.06425 - (-0.96525)
    assert b.x_door_split() == pytest.approx(1.06425 - 0.53 * span)
    P_ = B.panels(b)
    assert P_["hood"][0].half_v * 2 == pytest.approx(1.4287)
    trunk_top, trunk_back = P_["trunk"]
    assert trunk_top.half_v * 2 == pytest.approx(0.8183) and trunk_top.face == "top"
    assert trunk_back.face == "rear" and trunk_back.half_v * 2 == pytest.approx(0.9493 - 0.1545 - 0.30)
    assert P_["roof"][0].half_u == pytest.approx(1.807 / 2 - 0.10)
    assert P_["roof"][0].center[2] == pytest.approx(1.4041)


def test_pickup_bed_side_starts_at_the_cab():
    b = B.sample_body(np.random.default_rng(0), "pickup")
    assert b.x_quarter_start() == pytest.approx(b.x_rear_glass_base())
    assert b.deck_m / b.length_m >= 0.34


def test_adjacency_is_symmetric_and_worked_for_a_sedan_and_a_coupe():
    for style in B.BODY_STYLES:
        adj = B.adjacency(B.sample_body(np.random.default_rng(0), style))
        for a, ns in adj.items():
            assert ns, a
            for n in ns:
                assert a in adj[n]
                assert a != n
    sedan = B.adjacency(B.sample_body(np.random.default_rng(0), "sedan"))
    assert sedan["front_door_driver"] == ["front_fender_driver", "rear_door_driver", "roof"]
    assert sedan["quarter_panel_passenger"] == ["rear_bumper", "rear_door_passenger", "roof", "trunk"]
    assert sedan["hood"] == ["front_bumper", "front_fender_driver", "front_fender_passenger"]
    assert sedan["trunk"] == ["quarter_panel_driver", "quarter_panel_passenger", "rear_bumper"]
    coupe = B.adjacency(B.sample_body(np.random.default_rng(0), "coupe"))
    assert coupe["front_door_driver"] == ["front_fender_driver", "quarter_panel_driver", "roof"]
    conv = B.adjacency(B.sample_body(np.random.default_rng(0), "convertible"))
    assert conv["front_door_driver"] == ["front_fender_driver", "quarter_panel_driver"]
    suv = B.adjacency(B.sample_body(np.random.default_rng(0), "SUV"))
    assert "roof" in suv["tailgate"] and "roof" in suv["quarter_panel_driver"]
    pickup = B.adjacency(B.sample_body(np.random.default_rng(0), "pickup"))
    assert pickup["tailgate"] == ["quarter_panel_driver", "quarter_panel_passenger", "rear_bumper"]
    assert "roof" not in pickup["quarter_panel_driver"]


def test_plates_sit_on_the_front_bumper_and_the_rear_face():
    b = B.sample_body(np.random.default_rng(0), "sedan")
    pc = B.plate_centers(b)
    assert pc["front"] == pytest.approx([b.length_m / 2, 0.0, 0.1545 + 0.30])  # capped 0.30 above the clearance
    room = 0.9493 - 0.4545
    assert pc["rear"] == pytest.approx([-b.length_m / 2, 0.0, 0.4545 + room / 2])
    # the rear plate is on the trunk's rear face, so its keep-out is there, not on the bumper
    P_ = B.panels(b)
    assert [k.what for k in P_["trunk"][1].keep_out] == ["plate"] + ["trim"] * 4 and P_["rear_bumper"][0].keep_out == []


def test_colours():
    assert sum(w for _, w in B.COLORS.values()) == pytest.approx(1.0)
    assert len(B.COLORS) == 10 and "silver" in B.COLORS
    assert B.linear_rgb("silver") == [0.391572, 0.40724, 0.423268]
    assert B.linear_rgb("black") == [0.003035, 0.003035, 0.003677]   # 10/255 < 0.04045: linear segment
    rng = np.random.default_rng(0)
    n = [B.sample_color(rng) for _ in range(4000)]
    assert 0.20 <= n.count("white") / 4000 <= 0.28 and n.count("yellow") < 100


# ---------------------------------------------------------------- plates


def test_plate_states_formats_and_names():
    assert set(P.STATES) == {"CA", "TX", "NY", "FL", "AZ", "OH", "PA", "IL"}
    assert P.STATES["CA"].formats == ("#???###",) and P.STATES["TX"].formats == ("???-####",)
    assert P.STATES["FL"].formats == ("??? ?##", "### ???")
    for code, s in P.STATES.items():
        assert s.code == code
        assert s.name_on_plate.upper() == s.state.upper()    # the full name, never the code
        assert len(s.state) > 2
    assert P.PLATE_LETTERS == "ABCDEFGHJKLMNPRSTUVWXYZ"


def test_serials_follow_their_format():
    rng = np.random.default_rng(5)
    for _ in range(500):
        p = P.sample_plate(rng)
        assert len(p.text) == len(p.format) and p.format in p.style.formats
        for ch, f in zip(p.text, p.format):
            if f == "?":
                assert ch in P.PLATE_LETTERS
            elif f == "#":
                assert ch.isdigit()
            else:
                assert ch == f
        assert p.characters() == re.sub(r"[^A-Z0-9]", "", p.text)
    ca = P.sample_plate(np.random.default_rng(0), "CA")
    assert re.fullmatch(r"[0-9][A-HJ-NPR-Z]{3}[0-9]{3}", ca.text)
    assert P.sample_plate(np.random.default_rng(9), "TX").model_dump_json() == \
        P.sample_plate(np.random.default_rng(9), "TX").model_dump_json()
    assert P.Plate(state_code="TX", format="???-####", text="BXR-4012").characters() == "BXR4012"


def test_plate_states_are_drawn_uniformly():
    rng = np.random.default_rng(1)
    codes = [P.sample_plate(rng).state_code for _ in range(1600)]
    assert all(140 <= codes.count(c) <= 260 for c in P.STATES)


# ---------------------------------------------------------------- VIN, RO, date

WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2]
TRANSLIT = {**{str(i): i for i in range(10)}, **dict(zip("ABCDEFGH", range(1, 9))),
            **dict(zip("JKLMN", range(1, 6))), "P": 7, "R": 9, **dict(zip("STUVWXYZ", range(2, 10)))}


def independent_check(vin: str) -> str:
    r = sum(TRANSLIT[c] * w for c, w in zip(vin, WEIGHTS)) % 11
    return "X" if r == 10 else str(r)


@pytest.mark.parametrize("vin, total, digit", [
    ("1M8GDM9AXKP042788", 351, "X"), ("11111111111111111", 89, "1"), ("1HGCM82633A004352", 311, "3"),
    ("JHMCM56557C404453", 368, "5"), ("5GZCZ43D13S812715", 408, "1"),
])
def test_worked_vins(vin, total, digit):
    assert sum(TRANSLIT[c] * w for c, w in zip(vin, WEIGHTS)) == total
    assert I.vin_check_digit(vin) == digit == vin[8]
    assert I.vin_is_valid(vin)


def test_tables_are_the_standards():
    assert I.VIN_WEIGHTS == tuple(WEIGHTS)
    assert I.VIN_VALUES == TRANSLIT
    assert I.VIN_ALPHABET == "0123456789ABCDEFGHJKLMNPRSTUVWXYZ"
    assert I.YEAR_CODES == "ABCDEFGHJKLMNPRSTVWXY123456789"


@pytest.mark.parametrize("vin", [
    "1M8GDM9A0KP042788",   # wrong check digit (X expected)
    "1M8GDM9AXKP04278",    # 16 characters
    "1M8GDM9AXKP0427888",  # 18
    "1M8GDM9AXKP04278O",   # letter O
    "IM8GDM9AXKP042788",   # letter I
    "1M8GDM9AXKQ042788",   # letter Q
    "1m8gdm9axkp042788",   # lower case is not a VIN as written
    "1M8GDM9AXUP042788",   # U is never a model-year code
    "1M8GDM9AXZP042788",   # nor Z
    "1M8GDM9AX0P042788",   # nor 0
])
def test_invalid_vins(vin):
    assert not I.vin_is_valid(vin)


def test_invalid_vins_not_a_string():
    assert not I.vin_is_valid(None) and not I.vin_is_valid(17)
    with pytest.raises(ValueError):
        I.vin_check_digit("1M8GDM9AXKP04278")
    with pytest.raises(ValueError):
        I.vin_check_digit("1M8GDM9AXKP04278O")


def test_year_codes():
    assert [I.model_year_code(y) for y in (2010, 2017, 2018, 2019, 2023, 2024, 2026, 2027, 2030, 2031, 2039, 2040)] \
        == ["A", "H", "J", "K", "P", "R", "T", "V", "Y", "1", "9", "A"]
    assert I.model_year_code(2009) == "9" and I.model_year_code(1980) == "A"


def test_sampled_vins_are_valid_and_recomputed_independently():
    rng = np.random.default_rng(11)
    for _ in range(500):
        ids = I.sample_board_ids(rng)
        v = ids.vin
        assert I.vin_is_valid(v) and independent_check(v) == v[8]
        assert not set(v) & set("IOQ")
        assert v[:3] in I.WMIS and v[11:].isdigit()
        assert v[9] == I.model_year_code(ids.model_year)
        y = int(ids.date[-4:])
        assert y - 12 <= ids.model_year <= y
        assert re.fullmatch(r"[1-9][0-9]{5}", ids.ro)
        m, d, yy = map(int, ids.date.split("/"))
        assert re.fullmatch(r"\d\d/\d\d/\d{4}", ids.date) and 2024 <= yy <= 2026 and 1 <= m <= 12 and 1 <= d <= 31
    assert I.sample_board_ids(np.random.default_rng(0)).model_dump() == {
        "ro": "865230", "vin": "1FATMXGL4RZ765592", "date": "03/23/2024", "model_year": 2024}


def test_dates_cover_the_window_ends():
    rng = np.random.default_rng(2)
    ds = {I.sample_date(rng) for _ in range(20000)}
    assert "01/01/2024" in ds and "12/31/2026" in ds and "02/29/2024" in ds
    assert not any(d.endswith("2023") or d.endswith("2027") for d in ds)


# ---------------------------------------------------------------- damage


def test_ellipse_half_extents():
    assert D.ellipse_half_extents(2.0, 1.0, 0.0) == pytest.approx((2.0, 1.0))
    assert D.ellipse_half_extents(2.0, 1.0, 90.0) == pytest.approx((1.0, 2.0))
    assert D.ellipse_half_extents(2.0, 1.0, 45.0) == pytest.approx((math.sqrt(2.5), math.sqrt(2.5)))


def test_site_fits_worked_examples():
    r = B.PanelRect(panel="p", face="driver", center=[0, 0, 0], u=[-1, 0, 0], v=[0, 0, 1], half_u=0.5, half_v=0.3,
                    keep_out=[B.KeepOut(u=0.3, v=0.0, radius=0.1, what="wheel_arch")])
    # an ellipse 0.1 x 0.05 at the centre: 0.1 + 0.03 margin <= 0.5; clearance to the arch 0.3-0.1 = 0.2 >= 0.13
    assert D.site_fits(r, [0.0, 0.0], 0.1, 0.05, 0.0)
    assert not D.site_fits(r, [0.0, 0.23], 0.1, 0.05, 0.0)      # 0.23 + 0.05 > 0.27
    assert D.site_fits(r, [0.0, 0.21], 0.1, 0.05, 0.0)
    assert not D.site_fits(r, [-0.38, 0.0], 0.1, 0.05, 0.0)     # 0.38 + 0.1 > 0.47
    assert D.site_fits(r, [-0.36, 0.0], 0.1, 0.05, 0.0)
    # the arch: clearance = 0.3 - 0.07 - 0.1 = 0.13 needed >= 0.1 + 0.03
    assert D.site_fits(r, [0.069, 0.0], 0.1, 0.05, 0.0)
    assert not D.site_fits(r, [0.075, 0.0], 0.1, 0.05, 0.0)
    # turned 90 deg the same ellipse reaches only 0.05 along u: it can come closer
    assert D.site_fits(r, [0.115, 0.0], 0.1, 0.05, 90.0)
    assert not D.site_fits(r, [0.115, 0.0], 0.1, 0.05, 0.0)


def test_clearance_to_an_ellipse():
    assert D._clearance(0.0, 0.0, 2.0, 1.0, 0.0, 5.0, 0.0) == pytest.approx(3.0, abs=1e-4)
    assert D._clearance(0.0, 0.0, 2.0, 1.0, 0.0, 0.0, 4.0) == pytest.approx(3.0, abs=1e-4)
    assert D._clearance(0.0, 0.0, 2.0, 1.0, 90.0, 0.0, 4.0) == pytest.approx(2.0, abs=1e-4)
    assert D._clearance(1.0, 1.0, 2.0, 1.0, 0.0, 1.5, 1.2) == 0.0          # inside
    assert D._clearance(0.0, 0.0, 2.0, 1.0, 0.0, 5.0, 0.0) <= 3.0          # never overstated


def test_sampled_sites_lie_inside_their_panel_with_their_band():
    rng = np.random.default_rng(4)
    bands, kinds = {"minor": 0, "moderate": 0, "severe": 0}, {1: 0, 2: 0}
    for _ in range(300):
        b = B.sample_body(rng)
        s = D.sample_damage(rng, b)
        lo, hi = D.AREA_BANDS_CM2[s.band]
        assert lo * 0.99 <= s.area_cm2 <= hi * 1.01
        assert s.area_cm2 == pytest.approx(math.pi * s.semi_axes_cm[0] * s.semi_axes_cm[1])
        assert s.semi_axes_cm[0] >= s.semi_axes_cm[1] > 0
        bands[s.band] += 1
        kinds[len(s.kinds)] += 1
        assert s.kinds == sorted(set(s.kinds)) and set(s.kinds) <= set(D.KINDS)
        assert (s.depth_mm is not None) == ("dent" in s.kinds)
        if s.depth_mm is not None:
            assert 2.0 <= s.depth_mm <= 25.0
        rect = D.site_rect(b, s)
        assert rect.face != "top"
        # every outline point inside the rectangle by the margin, and outside every keep-out disc
        out = D.site_outline(b, s, 256) - np.asarray(rect.center)
        u, v = out @ np.asarray(rect.u, float), out @ np.asarray(rect.v, float)
        assert np.all(np.abs(u) <= rect.half_u - 0.03 + 1e-9) and np.all(np.abs(v) <= rect.half_v - 0.03 + 1e-9)
        assert np.allclose(out @ rect.normal(), 0.0)
        for k in rect.keep_out:
            assert np.min(np.hypot(u - k.u, v - k.v)) >= k.radius + 0.03 - 1e-6
        assert D.site_center(b, s) == pytest.approx(rect.point(*s.center_uv_m))
    assert all(70 <= n <= 130 for n in bands.values()), bands
    assert 40 <= kinds[2] <= 110, kinds


def test_a_forced_band_and_a_pinned_site():
    b = B.sample_body(np.random.default_rng(0), "sedan")
    s = D.sample_damage(np.random.default_rng(0), b, band="severe")
    assert s.band == "severe" and s.area_cm2 > 600.0 * 0.99
    again = D.sample_damage(np.random.default_rng(0), b, band="severe")
    assert s.model_dump_json() == again.model_dump_json()


def test_a_site_too_big_for_the_body_raises():
    b = B.sample_body(np.random.default_rng(0), "hatchback")
    old = D.AREA_BANDS_CM2["severe"]
    try:
        D.AREA_BANDS_CM2["severe"] = (60000.0, 60001.0)
        with pytest.raises(ValueError, match="no severe"):
            D.sample_damage(np.random.default_rng(0), b, band="severe")
    finally:
        D.AREA_BANDS_CM2["severe"] = old
