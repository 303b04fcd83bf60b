"""damage_view end to end: stage seeds, the site's geometry (holed panel + patch = the
rectangle, the patch's footprint = pi a b, the dent's falloff), textures that stay inside
the ellipse, constructed poses just inside and outside the Table 1 thresholds, the
scene-side acceptance of the farm's random field poses against Table 1's 0.38 (ray cast
against the subject as triangles), the built scene's exported damage mesh against the
ground-truth area (2%), and a tiny Cycles render whose damage mask agrees with the
projected ellipse and whose rust counts as contrasting pixels."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

import scorers.damage_view as sv
from blender_envs.registry import get_environment
from blender_envs.vehicle import damage_view as dmod
from blender_envs.vehicle import car_parts
from blender_envs.vehicle.body import (PLATE_SIZE_M, on_surface, panels, plate_centers, to_car,
                                       to_world)
from blender_envs.vehicle import damage as D
from blender_envs.vehicle.damage import DamageSite, site_rect
from blender_envs.vehicle.panel_mesh import rect_part
from blender_envs.vehicle import body as B
from vehicle_shape import top_band_loss_m2
from blender_envs.vehicle.damage_texture import damage_texture, ellipse_coords
from geometry.camera import look_at, pose_for_phone
from geometry.raycast import Raycaster, SceneMesh
from render_farm.job import sample_spec, view_seed
from render_farm.plan import plan_jobs
from render_farm.seeds import rng_for
from scorers.terms import Verdict, verdict_of

ENV = get_environment("damage_view")
TABLE1 = 0.38


def spec_of(seed: int):
    return ENV.sample_scene(rng_for("test_damage_view", seed, "scene"), f"t{seed}", seed)


def with_site(spec, **update):
    return spec.model_copy(update={"damage": spec.damage.model_copy(update=update)})


# ------------------------------------------------------------------ seeds and the scene

def test_stages_draw_independently_and_reproducibly():
    from blender_envs.vehicle.body import sample_body, sample_color
    from blender_envs.vehicle.car_view import stage_rng
    from blender_envs.vehicle.damage import sample_damage

    root = int(rng_for("test_damage_view", 3, "scene").integers(0, 2**63 - 1))
    spec = spec_of(3)
    srng = stage_rng(root, "subject")
    body = sample_body(srng)
    assert spec.lot.subject.body == body and spec.lot.subject.color == sample_color(srng)
    assert spec.damage == sample_damage(stage_rng(root, "damage"), body)
    assert spec.model_dump_json() == spec_of(3).model_dump_json()
    assert spec.lot.clear_radius_m == pytest.approx(dmod.clear_radius(body), abs=1e-4)
    assert ENV.name == "damage_view" and ENV.scorer == "scorers.damage_view"


@pytest.mark.parametrize("seed", range(6))
def test_site_is_on_a_vertical_panel_of_the_subject_with_neighbours(seed):
    spec = spec_of(seed)
    body, site = spec.lot.subject.body, spec.damage
    rect = site_rect(body, site)
    assert rect.face != "top"
    nb = dmod.neighbours(body, site)
    assert nb and site.panel not in nb and all(n in panels(body) for n in nb)
    gt = sv.damage_ground_truth(site.kinds, site.area_cm2)
    assert gt["severity"] == site.band


# ------------------------------------------------------------------ the site's geometry

@pytest.mark.parametrize("seed", range(8))
def test_patch_and_holed_panel_tile_the_rectangle_and_the_patch_is_the_ellipse(seed):
    spec = spec_of(seed)
    body, site = spec.lot.subject.body, spec.damage
    c, ea, eb, n = dmod.ellipse_axes(body, site)
    V, F, _ = dmod.patch_mesh(body, site)
    Vh, Fh = dmod.holed_rect_mesh(body, site)
    patch = dmod.polygon_area_on_plane(V, F, n)
    hole = dmod.polygon_area_on_plane(Vh, Fh, n)
    assert patch + hole == pytest.approx(site_rect(body, site).area_m2(), rel=1e-9)
    # the inscribed 164-gon loses less than 0.1% of pi a b
    assert 0.999 * site.area_cm2 <= patch * 1e4 <= site.area_cm2
    # every face of both meshes faces out (along the panel normal)
    for W, FF in ((V, F), (Vh, Fh)):
        for f in FF[:: max(len(FF) // 50, 1)]:
            p = W[f]
            assert np.cross(p[1] - p[0], p[2] - p[0]) @ n > 0
    # the holed mesh's outer loop lies on the rectangle's boundary
    rect = site_rect(body, site)
    m = len(Fh)
    d = Vh[m:] - np.asarray(rect.center)
    uu, vv = np.abs(d @ np.asarray(rect.u)), np.abs(d @ np.asarray(rect.v))
    assert np.all(np.isclose(uu, rect.half_u, atol=1e-9) | np.isclose(vv, rect.half_v, atol=1e-9))


def test_dent_profile_worked():
    site = spec_of(0).damage.model_copy(update={"kinds": ["dent"], "depth_mm": 12.0})
    assert dmod.dent_depth_m(site, [0.0, 0.5, 1.0, 1.2]) == pytest.approx([0.012, 0.012 * 0.5625, 0.0, 0.0])
    eps = 1e-4   # zero slope at the rim: the change over the last 1e-4 of rho is second order
    assert dmod.dent_depth_m(site, [1.0 - eps])[0] < 0.012 * 4 * eps**2 * 1.01
    assert np.all(dmod.dent_depth_m(site.model_copy(update={"depth_mm": None, "kinds": ["rust"]}), [0.0, 0.5]) == 0)


def test_dented_patch_sinks_by_the_depth_and_its_footprint_keeps_the_area():
    spec = spec_of(0)
    spec = with_site(spec, kinds=["dent"], depth_mm=20.0)
    body, site = spec.lot.subject.body, spec.damage
    c, ea, eb, n = dmod.ellipse_axes(body, site)
    V, F, xy = dmod.patch_mesh(body, site)
    # depth below the shaped (vehicle-3) panel surface at the same in-plane point
    face = site_rect(body, site).face
    surface = on_surface(body, face, c + xy[:, :1] * ea + xy[:, 1:] * eb)
    depth = -(V - surface) @ n
    assert depth.max() == pytest.approx(0.020) and depth[0] == pytest.approx(0.020)
    assert depth[-len(dmod.rim_angles(body, site)):] == pytest.approx(0.0, abs=1e-12)   # the rim meets the panel
    assert 0.999 * site.area_cm2 <= dmod.polygon_area_on_plane(V, F, n) * 1e4 <= site.area_cm2
    S = dmod.surface_samples(body, site)
    assert (-(S - on_surface(body, face, c)) @ n)[0] == pytest.approx(0.020)


@pytest.mark.parametrize("kinds", [["rust"], ["scratch"], ["dent", "scratch"], ["rust", "scratch"]])
def test_textures_paint_only_inside_the_ellipse(kinds):
    site = DamageSite(panel="front_door_driver", rect_index=0, kinds=kinds, center_uv_m=[0.0, 0.0],
                      semi_axes_cm=[14.0, 8.0], angle_deg=0.0, depth_mm=5.0 if "dent" in kinds else None,
                      band="moderate", texture_seed=11)
    t = damage_texture(site, [0.2, 0.2, 0.2])
    _, _, rho = ellipse_coords(site, t["alpha"].shape)
    out = rho >= 1.0
    assert t["alpha"][out].max() == 0.0 and np.abs(t["height"][out]).max() == 0.0
    assert np.allclose(t["color"][out], [0.2, 0.2, 0.2])
    inside = t["alpha"][~out]
    if "rust" in kinds:
        assert 0.4 < (inside > 0.5).mean() < 0.95          # a blotch, frayed, not a disc
    else:
        assert 0.02 < (inside > 0.5).mean() < 0.4          # thin strokes
        assert t["metal"].max() > 0.5                       # down to bare metal on some
    again = damage_texture(site, [0.2, 0.2, 0.2])
    assert all(np.array_equal(t[k], again[k]) for k in t)  # seeded: same bytes


# ------------------------------------------------------------------ a site reaching into a wheel arch

def arch_site(spec, panel, dx, dz, a_cm, b_cm, kinds=("rust",), angle=0.0):
    """A site on an arch panel, its centre dx m forward and dz m up from the arch's top point
    (the keep-out disc's top)."""
    body = spec.lot.subject.body
    rect = panels(body)[panel][0]
    [k] = [k for k in rect.keep_out if k.what == "wheel_arch"]
    return spec.damage.model_copy(update={
        "panel": panel, "rect_index": 0, "kinds": sorted(kinds),
        "center_uv_m": [k.u + dx * rect.u[0], k.v + k.radius + dz],
        "semi_axes_cm": [a_cm, b_cm], "angle_deg": angle, "depth_mm": 12.0 if "dent" in kinds else None})


def grid_area_cm2(body, site, h=2e-4) -> float:
    """Independent: pixel count (h = 0.2 mm) of the ellipse, in its own axes, minus the points of
    the arch cut-out (the disc of radius wheel + 5 cm about the axle at wheel-radius height, and
    the strip under it), tested in the car frame's (x, z)."""
    rect = site_rect(body, site)
    a, b = (x / 100.0 for x in site.semi_axes_cm)
    ex, ey = np.meshgrid(np.arange(-a, a, h) + h / 2, np.arange(-b, b, h) + h / 2)
    inside = (ex / a) ** 2 + (ey / b) ** 2 < 1.0
    t = math.radians(site.angle_deg)
    pu = site.center_uv_m[0] + ex * math.cos(t) - ey * math.sin(t)
    pv = site.center_uv_m[1] + ex * math.sin(t) + ey * math.cos(t)
    P = rect.point(pu[inside], pv[inside])
    xa = body.x_front_axle() if site.panel.startswith("front_fender") else body.x_rear_axle()
    r, R = body.wheel_radius_m + 0.05, body.wheel_radius_m
    dx, dz = P[:, 0] - xa, P[:, 2] - R
    cut = (dx**2 + dz**2 < r * r) | ((np.abs(dx) < r) & (dz < 0))
    return float((~cut).sum()) * h * h * 1e4


ARCH_CASES = [   # (panel, dx, dz, a, b, angle): over the lip, across the free side, down the strip
    ("front_fender_driver", 0.0, 0.02, 12.0, 8.0, 0.0),
    ("front_fender_passenger", 0.40, -0.33, 10.0, 9.0, 20.0),
    ("quarter_panel_driver", -0.40, -0.50, 9.0, 7.0, -15.0),
    ("quarter_panel_passenger", -0.25, -0.05, 16.0, 10.0, 10.0),
]


@pytest.mark.parametrize("panel, dx, dz, a, b, angle", ARCH_CASES)
def test_site_area_leaves_out_the_arch_cut_out(panel, dx, dz, a, b, angle):
    """The spec-side area equals an independent pixel count of ellipse minus cut-out (0.1%),
    and pi a b, the area with the arch ignored, is more than 2% off it (at least 10%)."""
    spec = spec_of(5)
    body = spec.lot.subject.body
    site = arch_site(spec, panel, dx, dz, a, b, angle=angle)
    want = grid_area_cm2(body, site)
    got = D.site_area_cm2(body, site)
    assert got == pytest.approx(want, rel=1e-3)
    assert abs(site.area_cm2 - want) > 0.10 * want


def test_site_area_worked_for_a_circle_on_the_arch_top():
    """A circle of radius p centred on the arch's top point: the cut-out takes the lens of two
    circles (radii p and r, centres r apart; both in the disc's upper half), so the area is
    pi p^2 - lens, written out: p^2 acos(p / 2r) + r^2 acos(1 - p^2 / 2r^2) - p/2 sqrt(4r^2 - p^2)."""
    spec = spec_of(5)
    body = spec.lot.subject.body
    r, p = body.arch_radius_m(), 0.08
    lens = (p * p * math.acos(p / (2 * r)) + r * r * math.acos(1 - p * p / (2 * r * r))
            - p / 2 * math.sqrt(4 * r * r - p * p))
    want = (math.pi * p * p - lens) * 1e4
    site = arch_site(spec, "front_fender_driver", 0.0, 0.0, 8.0, 8.0)
    # the inscribed 512-gon arch leaves it about 1e-5 high
    assert D.site_area_cm2(body, site) == pytest.approx(want, rel=1e-4)
    assert 0.45 < want / site.area_cm2 < 0.55            # about half the circle lies over the opening
    assert grid_area_cm2(body, site) == pytest.approx(want, rel=2e-3)


def test_drawn_arch_panel_sites_keep_pi_a_b():
    """Every drawn site on a fender or quarter panel is clear of the cut-out: its area is pi a b
    exactly, its surface samples all kept (1 + 4 x 32), its patch mesh as before the cut."""
    n = 0
    for seed in range(40):
        spec = spec_of(seed)
        body, site = spec.lot.subject.body, spec.damage
        if not B.arch_axles(body, site.panel):
            continue
        n += 1
        assert D.site_area_cm2(body, site) == site.area_cm2
        assert len(dmod.surface_samples(body, site)) == 129
        V, F, _ = dmod.patch_mesh(body, site)
        assert len(F) == len(dmod.rim_angles(body, site)) * dmod.PATCH_RINGS
    assert n >= 5


@pytest.mark.parametrize("panel, dx, dz, a, b, angle", ARCH_CASES)
def test_arch_patch_and_holed_panel_follow_the_cut_out(panel, dx, dz, a, b, angle):
    """The patch's mesh area is the site's area within 2% (the issue's tolerance; measured
    within 0.7%: the mesh cuts the well's 32-gon, inside the circle); the patch and the holed panel tile the
    rectangle minus the well's 32-gon (shoelace, 1e-9); no surface sample lies in the opening."""
    spec = spec_of(5)
    body = spec.lot.subject.body
    site = arch_site(spec, panel, dx, dz, a, b, kinds=("dent", "rust"), angle=angle)
    c, ea, eb, n = dmod.ellipse_axes(body, site)
    V, F, xy = dmod.patch_mesh(body, site)
    patch = dmod.polygon_area_on_plane(V, F, n) * 1e4
    area = D.site_area_cm2(body, site)
    assert patch == pytest.approx(area, rel=0.02)
    assert patch == pytest.approx(area, rel=1e-2)
    assert abs(patch - site.area_cm2) > 0.02 * site.area_cm2
    Vh, Fh = dmod.holed_panel_mesh(body, site)
    o = car_parts.arch_outline(body, B.arch_axles(body, panel)[0])
    well = 0.5 * abs(np.dot(o[:, 0], np.roll(o[:, 1], -1)) - np.dot(np.roll(o[:, 0], -1), o[:, 1]))
    assert well == pytest.approx(B.arch_cut_area_m2(body), rel=2e-3)
    rect = site_rect(body, site)
    # vehicle-5: the top band comes down to the crowned hood's edge (body.top_band): the mesh loses
    # exactly the trapezoids under its shaped top edge's vertices, about vehicle_shape.top_band_loss_m2
    at_top = np.isclose(Vh[:, 2], body.beltline_m - B.outline_drop(body, Vh[:, 0]), rtol=0, atol=1e-12)
    xs = np.unique(Vh[at_top, 0])
    drop = B.outline_drop(body, xs)
    loss = float(np.sum((drop[1:] + drop[:-1]) / 2 * np.diff(xs)))
    assert xs[0] == pytest.approx(rect.center[0] - rect.half_u) and xs[-1] == pytest.approx(rect.center[0] + rect.half_u)
    assert loss == pytest.approx(top_band_loss_m2(body, rect), rel=1e-3)
    assert (loss > 0) == (panel.startswith("front_fender") or body.ranges.rear == "trunk")   # beside hood or deck
    assert patch / 1e4 + dmod.polygon_area_on_plane(Vh, Fh, n) == pytest.approx(rect.area_m2() - well - loss,
                                                                                   rel=1e-9)
    assert len(xy) == len(V) and np.all(np.hypot(xy[:, 0] / (a / 100), xy[:, 1] / (b / 100)) <= 1 + 1e-9)
    S = dmod.surface_samples(body, site)
    assert 0 < len(S) < 129
    plane = S + ((c - S) @ n)[:, None] * n                  # back onto the panel plane (dent, shape)
    assert not D.in_arch_cutout(body, panel, plane).any()


def test_the_arch_decides_severity_through_the_ground_truth():
    """pi a b = 130 cm2 (moderate) on the lip, of which the opening takes over a quarter: the
    ground truth says minor, from the cut area."""
    spec = spec_of(5)
    site = arch_site(spec, "front_fender_driver", 0.0, 0.0, 13.0, 130.0 / (math.pi * 13.0))
    spec = spec.model_copy(update={"damage": site})
    g = sv.ground_truth(SimpleNamespace(spec=spec), SimpleNamespace(pose=_site_pose(spec, 0.0, 1.0)))
    area = D.site_area_cm2(spec.lot.subject.body, site)
    assert site.area_cm2 == pytest.approx(130.0) and area < 100.0
    assert g["severity"] == "minor" and g["damage_area_cm2"] == round(area, 4)


def test_a_site_with_no_surface_is_refused_in_one_line():
    spec = spec_of(5)
    body = spec.lot.subject.body
    inside = arch_site(spec, "front_fender_driver", 0.0, -0.25, 5.0, 4.0)
    with pytest.raises(ValueError, match=r"^damage site lies wholly in the wheel-arch cut-out of front_fender_driver$"):
        D.site_area_cm2(body, inside)
    off = spec.damage.model_copy(update={"center_uv_m": [site_rect(body, spec.damage).half_u, 0.0]})
    with pytest.raises(ValueError, match=r"^damage site leaves its panel rectangle \("):
        D.site_area_cm2(body, off)


def test_polygon_helpers_worked():
    """A 4 x 2 rectangle minus the unit square at its centre: 8 - 1; clipped to it: 1; a
    polygon clear of it comes back as the same array."""
    Rr = np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 2.0], [0.0, 2.0]])
    Sq = np.array([[1.5, 0.5], [2.5, 0.5], [2.5, 1.5], [1.5, 1.5]])
    pieces = dmod.minus_convex(Rr, Sq)
    assert sum(abs(D.polygon_area(p)) for p in pieces) == pytest.approx(7.0)
    assert all(D.polygon_area(p) > 0 for p in pieces)                 # the winding kept
    assert abs(D.polygon_area(D.clip_convex(Rr, Sq))) == pytest.approx(1.0)
    assert D.polygon_area(D.clip_convex(Sq, Rr)) == pytest.approx(1.0)
    far = Rr + 10.0
    assert dmod.minus_convex(far, Sq)[0] is far and dmod.minus_convex(Sq, Rr) == []


# ------------------------------------------------------------------ constructed poses at the thresholds

def _site_pose(spec, az_deg, dist_m, long_side=640, lens="main"):
    """Pinhole, level with the site centre, `az_deg` off the panel normal, aimed at the centre."""
    car = spec.lot.subject
    c = dmod.ellipse_axes(car.body, spec.damage)[0]
    eye = dmod.field_eye(spec, az_deg, dist_m, float(c[2]))
    return pose_for_phone(spec.phone, lens, 1.0, "landscape", long_side,
                          look_at(eye, to_world(car.placement, c)), "pinhole", None, 1 / 250)


def _terms(spec, pose):
    return {t.name: t for t in sv.scene_terms_of(spec, pose, 1.0)}


@pytest.mark.parametrize("az, ok", [(44.9, True), (45.1, False), (-44.9, True), (-45.1, False)])
def test_view_angle_just_inside_and_outside(az, ok):
    spec = spec_of(1)
    t = _terms(spec, _site_pose(spec, az, 0.8))
    assert t["view_angle"].value == pytest.approx(abs(az), abs=1e-6)
    assert t["view_angle"].passed == ok and t["distance"].value == pytest.approx(0.8)


@pytest.mark.parametrize("dist, want", [(1.49, Verdict.ACCEPT), (1.51, Verdict.UNSCORED), (2.99, Verdict.UNSCORED),
                                        (3.01, Verdict.REJECT), (0.31, None), (0.29, Verdict.REJECT)])
def test_distance_and_its_gray_zone_on_a_real_site(dist, want):
    """4000 px keeps px/cm passing out to 3 m; square-on, level: only the distance decides
    (at 0.31 m a big site may leave the frame, so only the distance term is checked there)."""
    spec = with_site(spec_of(1), semi_axes_cm=[4.0, 3.0])        # a small site stays in frame close up
    pose = _site_pose(spec, 0.0, dist, long_side=4000)
    t = _terms(spec, pose)
    assert t["distance"].value == pytest.approx(dist) and t["px_per_cm"].passed
    assert t["distance_min"].passed == (dist >= 0.3)
    if want is not None:
        others = [x for k, x in t.items() if k not in ("distance", "distance_min", "neighbour_panel")]
        assert all(x.passed for x in others), [x for x in others if not x.passed]
        if t["neighbour_panel"].passed:
            assert verdict_of(list(t.values())) == want


def test_px_per_cm_flips_at_the_resolution_limit():
    """Square-on at distance D: px/cm = f / (100 D) along both panel axes, so 3 px/cm flips at
    D* = f / 300; 1% either side."""
    spec = spec_of(1)
    f = _site_pose(spec, 0.0, 1.0).K_array()[0, 0]
    d_star = f / 300.0
    assert _terms(spec, _site_pose(spec, 0.0, d_star * 0.99))["px_per_cm"].passed
    assert not _terms(spec, _site_pose(spec, 0.0, d_star * 1.01))["px_per_cm"].passed
    assert _terms(spec, _site_pose(spec, 0.0, 1.0))["px_per_cm"].value == pytest.approx(f / 100.0, rel=1e-4)


def test_damage_in_frame_and_neighbour_context_by_hand():
    """Close up the big ellipse overflows the frame (in-frame < 1); from 1.2 m the whole site
    is in and some neighbour shows; looking away nothing is in frame."""
    spec = with_site(spec_of(2), semi_axes_cm=[30.0, 20.0])
    assert _terms(spec, _site_pose(spec, 0.0, 0.3))["damage_in_frame"].value < 1.0
    far = _terms(spec, _site_pose(spec, 0.0, 1.2))
    assert far["damage_in_frame"].value == 1.0 and far["neighbour_panel"].value > 0.0
    car = spec.lot.subject
    c = to_world(car.placement, dmod.ellipse_axes(car.body, spec.damage)[0])
    eye = _site_pose(spec, 0.0, 1.2).center
    away = pose_for_phone(spec.phone, "main", 1.0, "landscape", 640, look_at(eye, 2 * eye - c), "pinhole", None,
                          1 / 250)
    t = _terms(spec, away)
    assert t["damage_in_frame"].value == 0.0 and t["neighbour_panel"].value == 0.0 and not t["px_per_cm"].passed


def test_severity_just_inside_and_outside_the_thresholds_through_the_ground_truth():
    """Centred on the door, so even the 32 cm long ellipse stays on its rectangle (the ground
    truth refuses a site that leaves it)."""
    spec = spec_of(4)
    geo = SimpleNamespace(spec=spec)
    for area, sev in ((99.9, "minor"), (100.1, "moderate"), (499.9, "moderate"), (500.1, "severe")):
        b = 5.0
        a = area / (math.pi * b)
        g = sv.ground_truth(SimpleNamespace(spec=with_site(spec, semi_axes_cm=[a, b], center_uv_m=[0.0, 0.0])),
                            SimpleNamespace(pose=_site_pose(spec, 0.0, 1.0)))
        assert g["severity"] == sev and g["damage_area_cm2"] == pytest.approx(area, abs=1e-3)
    g = sv.ground_truth(geo, SimpleNamespace(pose=_site_pose(spec, 10.0, 1.0)))
    assert g["damage_types"] == spec.damage.kinds and g["panel"] == spec.damage.panel
    assert g["view_angle_deg"] == pytest.approx(10.0, abs=1e-5) and g["distance_m"] == pytest.approx(1.0)


# ------------------------------------------------------------------ acceptance of random field poses

def subject_mesh(spec) -> SceneMesh:
    """The subject as triangles (world), the parts that can stand between a phone in the
    clear disc and a site: every panel (the damaged one holed), the patch, the trim
    (car_parts: lamps, mirrors, lathe tyres, rims, wheel wells, shut lines) and the plates
    (5 mm proud); panel ids as the builder's."""
    car = spec.lot.subject
    body, site = car.body, spec.damage
    V, T, O = [], [], []

    def add(verts, faces, oid):
        k = sum(len(v) for v in V)
        V.append(np.asarray(verts, float))
        for f in faces:
            for i in range(1, len(f) - 1):
                T.append([k + f[0], k + f[i], k + f[i + 1]])
                O.append(oid)

    for i, (name, rects) in enumerate(panels(body).items()):
        for j, r in enumerate(rects):
            if name == site.panel and j == site.rect_index:     # the meshes damage_view_build links
                add(*dmod.holed_panel_mesh(body, site), 2 + i)
            else:
                add(*rect_part(body, r), 2 + i)
    P, F, _ = dmod.patch_mesh(body, site)
    add(P, F, dmod.DAMAGE_PASS)
    for k, (category, (Vt, Ft)) in enumerate(car_parts.trim_parts(body).values()):   # lamps, mirrors, tyres...
        add(Vt, Ft, 62 + k)
    for end, c in plate_centers(body).items():
        sx = 1.0 if end == "front" else -1.0
        w, h = PLATE_SIZE_M[0] / 2, PLATE_SIZE_M[1] / 2
        x = c[0] + sx * 0.005
        add([[x, -w, c[2] - h], [x, w, c[2] - h], [x, w, c[2] + h], [x, -w, c[2] + h]], [[0, 1, 2, 3]], 61)
    ids = sorted(set(O))
    return SceneMesh(vertices=to_world(car.placement, np.concatenate(V)), triangles=np.array(T),
                     tri_object_id=np.array(O), object_ids=np.array(ids), object_names=[f"o{i}" for i in ids])


def field_verdicts(scenes: int, poses: int, root_seed: int = 0, long_side: int = 640):
    out = []
    for job in plan_jobs("damage_view", scenes, 1, "random", set(), root_seed=root_seed, run_dir="unused",
                         quality={"long_side_px": long_side}, device="cpu"):
        spec = sample_spec(job)
        rc = Raycaster(subject_mesh(spec))
        for v in range(poses):
            view = ENV.sample_view(spec, np.random.default_rng(view_seed(job, v, 0)), v, long_side)
            _, unocc = sv.visibility(rc, dmod.DAMAGE_PASS, spec, view.pose)
            out.append((spec, view, sv.scene_terms_of(spec, view.pose, unocc)))
    return out


@pytest.fixture(scope="module")
def field():
    return field_verdicts(50, 8)


def test_scene_side_acceptance_is_within_half_of_table_1(field):
    """Issue 12: within +-50% of Table 1's 0.38 on >= 400 random field poses (the farm's own
    seeds, root seed 0, 640 px). Measured 132 / 400 = 0.330 with 11 unscored (gray only);
    docs/envs/damage_view.md has more seeds. vehicle-1 gave 141: vehicle-2's lamps, grille
    and door handles are keep-out discs, so 10 of the 50 scenes draw their site on another
    panel, and the mirrors can hide a site. A change of the pose distribution moves the count and must
    bump GENERATOR_VERSION."""
    verdicts = [verdict_of(t) for _, _, t in field]
    assert len(verdicts) == 400
    accepted = sum(v == Verdict.ACCEPT for v in verdicts)
    assert 0.5 * TABLE1 <= accepted / 400 <= 1.5 * TABLE1
    assert accepted == 132
    assert sum(v == Verdict.UNSCORED for v in verdicts) == 11


def test_field_poses_stand_in_the_clear_disc_in_front_of_the_panel(field):
    for spec, view, terms in field:
        car = spec.lot.subject
        c = view.pose.center
        assert math.hypot(c[0], c[1]) < spec.lot.clear_radius_m
        centre, n = dmod.ellipse_axes(car.body, spec.damage)[0], dmod.ellipse_axes(car.body, spec.damage)[3]
        local = to_car(car.placement, c)
        assert (local - centre) @ n > 0                                   # on the panel's outer side
        d = float(np.linalg.norm(local - centre))
        assert dmod.DISTANCE_M[0] - 1e-9 <= d <= dmod.DISTANCE_M[1] + 1e-9
        assert view.target == f"damage:{spec.damage.panel}"


# ------------------------------------------------------------------ the built scene and a real render

def build_scene(spec):
    """`spec` built in a fresh Blender scene (200 px, 4 samples, CPU) with its exported mesh."""
    from blender_envs.core.cycles_setup import configure_cycles, configure_device
    from blender_envs.core.mesh_export import export_world_triangles
    from blender_envs.core.scene_reset import reset_scene
    from blender_envs.core.settings import RenderSettings
    from blender_envs.vehicle.damage_view_build import build

    q = RenderSettings(name="t", long_side_px=200, samples=4, pass_samples=1, denoise=False)
    scene = reset_scene()
    configure_cycles(scene, q, 0)
    configure_device(scene, "cpu")
    info = build(scene, spec)
    mesh = SceneMesh(**export_world_triangles(scene))
    return SimpleNamespace(spec=spec, scene=scene, info=info, mesh=mesh, q=q)


@pytest.fixture(scope="module")
def built():
    return build_scene(with_site(spec_of(5), kinds=["dent", "rust"], depth_mm=15.0))


@pytest.mark.render
def test_exported_damage_mesh_has_the_ground_truth_area(built):
    """The area measured on the exported mesh (the damage object's triangles projected on the
    panel's plane) equals the ground truth's pi a b within 2% (measured: within 0.1%), the
    holed panel and the patch tile the panel's rectangle, and the dent's floor is its depth."""
    spec, mesh = built.spec, built.mesh
    car = spec.lot.subject
    c, _, _, n = dmod.ellipse_axes(car.body, spec.damage)
    n_w = to_world(car.placement, n) - to_world(car.placement, np.zeros(3))
    ids = {o.name: o.id for o in built.info.objects}
    assert ids[dmod.DAMAGE_OBJECT] == dmod.DAMAGE_PASS

    def area(oid, normal):
        tri = mesh.vertices.astype(float)[mesh.triangles[mesh.tri_object_id == oid]]
        return float(np.sum(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]) @ normal) / 2)

    gt = sv.ground_truth(SimpleNamespace(spec=spec), SimpleNamespace(pose=_site_pose(spec, 0.0, 1.0)))
    measured = area(dmod.DAMAGE_PASS, n_w) * 1e4
    assert measured == pytest.approx(gt["damage_area_cm2"], rel=0.02)
    assert measured == pytest.approx(gt["damage_area_cm2"], rel=1e-3)
    panel_id = ids[f"subject_{spec.damage.panel}"]
    rects = panels(car.body)[spec.damage.panel]
    other = sum(r.area_m2() for j, r in enumerate(rects) if j != spec.damage.rect_index
                if np.allclose(r.normal(), n))
    # vehicle-3: a fender or quarter panel has its wheel arch cut out (body.arch_cut_area_m2,
    # analytic; the holed panel's polar quads approximate the arch, so 0.5% there); vehicle-5:
    # beside the crowned hood or deck the top band comes down (vehicle_shape.top_band_loss_m2)
    cut = B.arch_cut_area_m2(car.body) * len(B.arch_axles(car.body, spec.damage.panel))
    band = top_band_loss_m2(car.body, site_rect(car.body, spec.damage))
    assert area(panel_id, n_w) + measured / 1e4 == pytest.approx(
        site_rect(car.body, spec.damage).area_m2() + other - cut - band, rel=5e-3 if cut else 1e-5)
    pts = mesh.vertices.astype(float)[np.unique(mesh.triangles[mesh.tri_object_id == dmod.DAMAGE_PASS])]
    # the dent's floor below the shaped surface (body.on_surface of the point's foot on the plane)
    P = to_car(car.placement, pts)
    foot = P + ((c - P) @ n)[:, None] * n
    depth = -(P - on_surface(car.body, site_rect(car.body, spec.damage).face, foot)) @ n
    assert depth.max() == pytest.approx(0.015, abs=2e-6)


@pytest.mark.render
def test_built_damage_images_hold_the_texture(built):
    """The patch's two images carry the texture's arrays as built (a colour-space change after
    the pixels were set once regenerated the data image blank: roughness and metal 0, no bump,
    and the whole ellipse rendered as a mirror-smooth patch)."""
    from blender_envs.core.bpy_env import bpy
    from blender_envs.vehicle.body import linear_rgb, paint_finish
    from blender_envs.vehicle.damage_texture import PAINT_ROUGH

    spec = built.spec
    tex = damage_texture(spec.damage, linear_rgb(spec.lot.subject.color))
    H, W = tex["alpha"].shape

    def pixels(name):
        img = bpy.data.images[name]
        assert tuple(img.size) == (W, H) and img.packed_file is not None
        buf = np.empty(W * H * 4, np.float32)
        img.pixels.foreach_get(buf)                     # img.pixels[:] builds a Python list
        return buf.reshape(H, W, 4)[::-1]

    def close(got, want):                               # pytest.approx compares arrays element by element in Python
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)

    data, col = pixels("subject_damage_data"), pixels("subject_damage_color")
    assert bpy.data.images["subject_damage_data"].colorspace_settings.name == "Non-Color"
    # vehicle-3: outside the damage (1 - alpha) the panels' paint finish (body.paint_finish)
    metallic, rough, _ = paint_finish(spec.lot.subject.color)
    keep = 1.0 - tex["alpha"]
    close(data[..., 0], np.clip(tex["metal"] + metallic * keep, 0, 1))
    close(data[..., 1], tex["rough"] + (rough - PAINT_ROUGH) * keep)
    close(data[..., 2], tex["height"] * 0.5 + 0.5)
    close(col[..., 3], tex["alpha"])
    close(col[..., :3], tex["color"])
    assert 0.3 < (data[..., 1] > 0.8).mean() < 0.9          # the rust's roughness, not the paint's


def inside_polygon(poly, x, y):
    """Even-odd rule: points (x, y) inside the closed polygon (n, 2)."""
    inside = np.zeros(x.shape, bool)
    for (x0, y0), (x1, y1) in zip(poly, np.roll(poly, -1, axis=0)):
        crosses = (y0 > y) != (y1 > y)
        with np.errstate(divide="ignore", invalid="ignore"):
            xc = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
        inside ^= crosses & (x < xc)
    return inside


def test_inside_polygon_worked():
    sq = np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 2.0], [0.0, 2.0]])
    x, y = np.array([1.0, 5.0, 3.9, -0.1]), np.array([1.0, 1.0, 1.9, 1.0])
    assert inside_polygon(sq, x, y).tolist() == [True, False, True, False]


@pytest.mark.render
def test_rendered_damage_mask_agrees_with_the_spec(built):
    """Tiny Cycles render (200 x 150, 4 spp) square-on from 0.7 m: the damage patch's
    object-index mask matches the projected ellipse (pixel-centre test) to IoU >= 0.9,
    the scorer's ground truth counts the same mask, and the rust counts as >= 60
    contrasting pixels (the frame-side term passes) while the plain panel has none."""
    from blender_envs.core.camera_rig import apply_camera_pose
    from blender_envs.core.render_passes import render_frame
    from geometry.camera import project

    spec = built.spec
    car = spec.lot.subject
    pose = _site_pose(spec, 0.0, 0.7, long_side=200)
    apply_camera_pose(built.scene, pose)
    fr = render_frame(built.scene, built.q, seed=0)
    mask = fr.object_index == dmod.DAMAGE_PASS
    # the spec's ellipse, projected: pixel centres inside the projected outline polygon
    outline = to_world(car.placement, dmod.surface_samples(car.body, spec.damage, rings=1, n=256)[1:])
    uv, _ = project(outline, pose.K_array(), pose.cam_to_world_array())
    H, W = mask.shape
    gu, gv = np.meshgrid(np.arange(W), np.arange(H))
    want = inside_polygon(uv, gu.astype(float), gv.astype(float))
    iou = (mask & want).sum() / (mask | want).sum()
    assert want.sum() > 200 and iou >= 0.9, (iou, mask.sum(), want.sum())
    ids = {o.name: o.id for o in built.info.objects}
    state = SimpleNamespace(object_by_name=lambda name: SimpleNamespace(id=ids[name]))
    geo = SimpleNamespace(spec=spec, state=state, object_id=lambda name: ids[name])
    image = (np.clip(fr.linear_rgb, 0, 1) ** (1 / 2.2) * 255).astype(np.uint8)
    frame = SimpleNamespace(image=image, object_index=fr.object_index)
    gt = sv.ground_truth(geo, SimpleNamespace(pose=pose), frame)
    assert gt["damage_mask_px"] == int(mask.sum())
    [term] = sv.score_frame(geo, SimpleNamespace(pose=pose), frame)
    assert term.name == "damage_contrast_px" and term.passed and term.value == gt["damage_contrasting_px"]
    paint = fr.object_index == ids[f"subject_{spec.damage.panel}"]
    assert sv.contrasting_pixels(image, paint & ~mask, paint) < 0.05 * (paint & ~mask).sum()


# ------------------------------------------------------------------ a built and rendered site over a wheel arch

@pytest.fixture(scope="module")
def built_arch():
    """spec_of(5)'s lot with a dented, rusted site over the driver-side front arch's lip
    (12 x 8 cm, pi a b = 301.6 cm2, of which the opening takes about 30%)."""
    spec = spec_of(5)
    return build_scene(spec.model_copy(update={"damage": arch_site(spec, "front_fender_driver", 0.0, 0.02, 12.0, 8.0,
                                                                    kinds=("dent", "rust"))}))


@pytest.mark.render
def test_exported_arch_damage_mesh_has_the_cut_area(built_arch):
    """Issue 12: the ground-truth area (cm2) equals the area measured on the exported mesh within
    2% (measured: 0.3%, the mesh cuts the wheel well's 32-gon) for a site over a wheel arch, and
    pi a b, the arch ignored, is more than 2% off (43%); the holed fender and the patch tile the
    fender's rectangle minus the well's 32-gon (float32 vertices: 1e-4)."""
    spec, mesh = built_arch.spec, built_arch.mesh
    car = spec.lot.subject
    _, _, _, n = dmod.ellipse_axes(car.body, spec.damage)
    n_w = to_world(car.placement, n) - to_world(car.placement, np.zeros(3))
    ids = {o.name: o.id for o in built_arch.info.objects}

    def area(oid):
        tri = mesh.vertices.astype(float)[mesh.triangles[mesh.tri_object_id == oid]]
        return float(np.sum(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]) @ n_w) / 2)

    gt = sv.ground_truth(SimpleNamespace(spec=spec), SimpleNamespace(pose=_site_pose(spec, 0.0, 1.0)))
    measured = area(ids[dmod.DAMAGE_OBJECT]) * 1e4
    assert measured == pytest.approx(gt["damage_area_cm2"], rel=0.02)
    assert abs(measured - spec.damage.area_cm2) > 0.02 * measured
    assert 0.25 < 1 - gt["damage_area_cm2"] / spec.damage.area_cm2 < 0.35
    assert gt["severity"] == "moderate"
    o = car_parts.arch_outline(car.body, car.body.x_front_axle())
    well = 0.5 * abs(np.dot(o[:, 0], np.roll(o[:, 1], -1)) - np.dot(np.roll(o[:, 0], -1), o[:, 1]))
    rect = site_rect(car.body, spec.damage)
    band = top_band_loss_m2(car.body, rect)             # vehicle-5: the top band down to the crowned hood
    assert area(ids["subject_front_fender_driver"]) + measured / 1e4 == pytest.approx(rect.area_m2() - well - band,
                                                                                      rel=1e-4)


@pytest.mark.render
def test_rendered_arch_damage_mask_leaves_out_the_opening(built_arch):
    """Tiny Cycles render (200 x 150, 4 spp) square-on from 0.7 m: the damage mask matches the
    projected ellipse minus the projected cut-out (IoU >= 0.9) and not the whole ellipse (IoU
    < 0.8: the arch ignored); inside the opening the well and the tyre show, not the damage."""
    from blender_envs.core.camera_rig import apply_camera_pose
    from blender_envs.core.render_passes import render_frame
    from geometry.camera import project

    spec = built_arch.spec
    car = spec.lot.subject
    body, site = car.body, spec.damage
    pose = _site_pose(spec, 0.0, 0.7, long_side=200)
    apply_camera_pose(built_arch.scene, pose)
    fr = render_frame(built_arch.scene, built_arch.q, seed=0)
    mask = fr.object_index == dmod.DAMAGE_PASS
    H, W = mask.shape
    gu, gv = np.meshgrid(np.arange(W), np.arange(H))

    def projected(points_car):
        uv, _ = project(to_world(car.placement, on_surface(body, "driver", points_car)), pose.K_array(),
                        pose.cam_to_world_array())
        return inside_polygon(uv, gu.astype(float), gv.astype(float))

    rect = site_rect(body, site)
    ellipse = projected(rect.point(*D.site_polygon_uv(site, 256).T))
    o = dmod.arch_cutout_xz(body, body.x_front_axle())
    opening = projected(np.c_[o[:, 0], np.full(len(o), rect.center[1]), o[:, 1]])
    want = ellipse & ~opening
    iou = (mask & want).sum() / (mask | want).sum()
    iou_ignored = (mask & ellipse).sum() / (mask | ellipse).sum()
    assert want.sum() > 200 and iou >= 0.9 and iou_ignored < 0.8, (iou, iou_ignored, mask.sum(), want.sum())
    assert (mask & opening & ellipse).sum() <= 0.02 * (opening & ellipse).sum()


# ------------------------------------------------------------------ the ground truth's and frame terms' wiring

def test_ground_truth_carries_each_term_geometry_rounded():
    """Every key from its own function of the spec and pose (six decimals), the mask counts on the
    damage object's and the damaged panel's pass indices, contrasting pixels against that panel's
    paint only; without a frame no pixel keys."""
    from blender_envs.vehicle.damage_view import neighbours

    spec = spec_of(7)
    pose = _site_pose(spec, 20.0, 0.8)
    body, site = spec.lot.subject.body, spec.damage
    ids = {dmod.DAMAGE_OBJECT: 61, sv.panel_object(spec): 62, "subject_other": 63}
    geo = SimpleNamespace(spec=spec, object_id=ids.__getitem__)
    index = np.zeros((pose.height, pose.width), np.int32)
    index[100:110, 200:210] = 61                     # 100 damage px
    index[100:110, 210:230] = 62                     # 200 paint px of the damaged panel
    index[0:50, 0:50] = 63                           # another panel, ignored
    image = np.full((pose.height, pose.width, 3), 128, np.uint8)
    image[100:105, 200:210] = 30                     # 50 damage px far from the paint's median luma
    image[0:50, 0:50] = 30                           # dark elsewhere: no effect on the reference
    frame = SimpleNamespace(image=image, object_index=index)
    gt = sv.ground_truth(geo, SimpleNamespace(pose=pose), frame)
    centre, normal, u, v = sv.site_frame(spec)
    nb_name, nb = sv.neighbour_in_frame(pose, sv.neighbour_world_samples(spec), neighbours(body, site))
    want = {"panel": site.panel, "neighbour_panels": neighbours(body, site), "best_neighbour": nb_name,
            "neighbour_in_frame": round(nb, 6), "semi_axes_cm": list(site.semi_axes_cm), "depth_mm": site.depth_mm,
            "site_center_world": [round(float(x), 6) for x in centre], "body_style": body.style,
            "color": spec.lot.subject.color, "distance_m": round(float(np.linalg.norm(pose.center - centre)), 6),
            "view_angle_deg": round(sv.view_angle_deg(pose.center, centre, normal), 6),
            "px_per_cm": round(sv.px_per_cm(pose, centre, u, v), 6),
            "damage_in_frame_fraction": round(sv.in_frame_fraction(pose, sv.site_world_samples(spec)), 6),
            "damage_mask_px": 100, "damage_contrasting_px": 50}
    assert {k: gt[k] for k in want} == want
    assert math.isclose(gt["distance_m"], 0.8, abs_tol=1e-3) and math.isclose(gt["view_angle_deg"], 20.0, abs_tol=0.05)
    assert not {"damage_mask_px", "damage_contrasting_px"} & set(sv.ground_truth(geo, SimpleNamespace(pose=pose)))
    dmg, paint = sv.frame_masks(geo, index)
    assert (int(dmg.sum()), int(paint.sum())) == (100, 200)
    (t,) = sv.score_frame(geo, SimpleNamespace(pose=pose), frame)
    assert t.value == 50
    # the reference is the panel's own paint: other pixels' luma never moves it
    assert sv.contrasting_pixels(image, dmg, np.zeros_like(paint)) == 0
    assert sv.contrasting_pixels(image, dmg, paint | dmg) == 50          # damage pixels are not paint


def test_score_scene_is_the_spec_terms_with_the_ray_cast_unoccluded_share():
    """score_scene casts the site's samples against the scene mesh on the damage object's pass
    index: a pose seeing the site gives the terms of the spec with that share (here 1: nothing in
    front); the same mesh with the damage under another index sees it wholly occluded."""
    spec = spec_of(7)
    rc = Raycaster(subject_mesh(spec))
    view = SimpleNamespace(pose=_site_pose(spec, 20.0, 0.8))
    for index, share in ((dmod.DAMAGE_PASS, 1.0), (dmod.DAMAGE_PASS + 1000, 0.0)):
        geo = SimpleNamespace(spec=spec, raycaster=rc, object_id={dmod.DAMAGE_OBJECT: index}.__getitem__)
        got = sv.score_scene(geo, view)
        assert got == sv.scene_terms_of(spec, view.pose, share)
        assert {t.name: t.value for t in got}["damage_unoccluded"] == share
