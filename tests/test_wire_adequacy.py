"""wire_adequacy: the clearance/touching label in closed form and against the exported
beveled meshes, every term on hand-made poses, the frame-side terms on synthetic frames,
and one render whose object-index pass is checked against the ray-cast labels."""
from __future__ import annotations


import numpy as np
import pytest

from blender_envs.solar import roof_spec as rs
from blender_envs.solar.wire_adequacy import (TRUNK_RADIUS_FACTOR, any_touching, low_point, low_point_axis,
                                              low_point_samples, near_roof_jbox, sample_scene, wire_clearances)
from geometry.camera import look_at, pose_for_phone, project
from render_farm.seeds import rng_for
from scorers.terms import Verdict, first_failure, verdict_of

MODULE = "blender_envs.solar.wire_adequacy"


@pytest.fixture(scope="module")
def registered():
    """Discovered by the registry (no list to add it to)."""
    import blender_envs.registry as reg

    assert reg.environment_module("wire_adequacy") == MODULE


def test_spec_is_seeded_and_targets_the_top_rows_lowest_lead():
    a = sample_scene(rng_for("wa", 1), "s", 1)
    assert a.model_dump_json() == sample_scene(rng_for("wa", 1), "s", 1).model_dump_json()
    assert a.model_dump_json() != sample_scene(rng_for("wa", 2), "s", 1).model_dump_json()
    specs = [sample_scene(rng_for("wa", k), "s", k) for k in range(300)]
    for s in specs:
        top = s.roof.array.rows - 1
        clear = wire_clearances(s.roof)
        leads = [c for n, c in clear.items() if n.startswith(f"lead_r{top}_")]
        assert s.target_wire.startswith(f"lead_r{top}_") and clear[s.target_wire] <= min(leads) + 1e-4
    share = np.mean([any_touching(s.roof) for s in specs])
    assert 0.15 <= share <= 0.5, share   # "some touching the shingles"


def _zb(roof):
    """Height of a lead's ends above the roof plane, from the array's own numbers: the
    junction box hangs 25 mm under the 8 mm-deep laminate; the wire leaves it 5 mm up."""
    a = roof.array
    return a.standoff_m + a.frame_depth_m - 0.008 - 0.025 + 0.005


def test_clearance_in_closed_form():
    s = sample_scene(rng_for("wa", 3), "s", 3).roof
    r = s.array.wire_radius_m
    sags = list(s.array.lead_sags_m)
    sags[0] = 0.02                       # parabola bottom (t = 1/2 is a vertex) 2 cm under the ends
    sags[-1] = 0.5                       # would go through the roof: lies on it
    s2 = s.model_copy(update={"array": s.array.model_copy(update={"lead_sags_m": sags, "trunk_sag_m": 0.01})})
    c = wire_clearances(s2)
    assert c["lead_r0_c0"] == pytest.approx(_zb(s2) - 0.02 - r, abs=1e-9)
    last = f"lead_r{s.array.rows - 1}_c{s.array.cols - 2}"
    assert abs(c[last]) < 1e-9 and c[last] <= 1e-6
    # the trunk runs straight down to the roof junction box (9 vertices) and ends 2 mm over
    # the roof with 1.6x the radius; that termination (the last vertex, inside the box's
    # keep-out) is not contact, so the lowest counted vertex is the one before it
    zb = _zb(s2)
    assert c["trunk_r0"] == pytest.approx(zb + 7 / 8 * (r + 0.002 - zb) - TRUNK_RADIUS_FACTOR * r, abs=1e-9)
    assert c["trunk_r0"] > 0
    # a trunk sagging onto the roof sits on its axis height r: 0.6 r into the roof plane
    s3 = s2.model_copy(update={"array": s2.array.model_copy(update={"trunk_sag_m": 0.5})})
    assert wire_clearances(s3)["trunk_r0"] == pytest.approx(-0.6 * r, abs=1e-9)
    assert any_touching(s3) and not any_touching(s2.model_copy(update={"array": s2.array.model_copy(
        update={"lead_sags_m": [0.01] * len(sags)})}))


def test_low_point_samples_sit_on_the_tube():
    s = sample_scene(rng_for("wa", 4), "s", 4)
    roof, name = s.roof, s.target_wire
    r = roof.array.wire_radius_m
    n = rs.roof_frame(roof)[:3, 2]
    A = low_point_axis(roof, name)
    assert np.allclose(low_point(roof, name), A - r * n)
    pts = rs.wire_paths(roof)[name]
    k = int(np.argmin(np.linalg.norm(pts - A, axis=1)))
    t = (pts[k + 1] - pts[k - 1]) / np.linalg.norm(pts[k + 1] - pts[k - 1])
    S = low_point_samples(roof, name)
    d = S - A
    radial = d - np.outer(d @ t, t)
    assert np.allclose(np.linalg.norm(radial, axis=1), r + 2e-4)
    assert np.allclose(sorted(set(np.round(d @ t, 9))), [-0.02, 0.0, 0.02])


# ---------------------------------------------------------------- built scenes (bpy)

@pytest.fixture(scope="module")
def built(registered, tmp_path_factory):
    """A scene with a touching wire (kept in Blender for the render) and one without."""
    from render_farm.job import build_scene, sample_spec
    from render_farm.plan import plan_jobs

    tmp = tmp_path_factory.mktemp("wa")
    (tmp / "scenes").mkdir()
    q = {"name": "t", "long_side_px": 320, "samples": 1, "pass_samples": 1}
    jobs = plan_jobs("wire_adequacy", 40, 1, "random", set(), root_seed=2, run_dir=str(tmp), quality=q, device="cpu")
    pick = {}
    for job in jobs:
        pick.setdefault(any_touching(sample_spec(job).roof), job)
        if len(pick) == 2:
            break
    return {k: build_scene(pick[k])[:2] for k in (False, True)}


def test_touching_label_matches_the_exported_beveled_meshes(built):
    """Lowest vertex of every exported wire mesh above the roof plane (outside the roof
    junction box's keep-out) against the analytic clearance: equal to within the bevel's
    polygon error, so the label `touching` is what Blender built."""
    for touching, (_, geo) in built.items():
        roof = geo.spec.roof
        M = rs.roof_frame(roof)
        clear = wire_clearances(roof)
        mesh_min = {}
        for name in clear:
            oid = geo.object_id(name)
            V = geo.mesh.vertices[np.unique(geo.mesh.object_triangles(oid))].astype(float)
            p = (V - M[:3, 3]) @ M[:3, :3]
            if name.startswith("trunk"):
                p = p[~near_roof_jbox(roof, p[:, :2])]
            mesh_min[name] = p[:, 2].min()
            r = roof.array.wire_radius_m * (TRUNK_RADIUS_FACTOR if name.startswith("trunk") else 1)
            assert mesh_min[name] == pytest.approx(clear[name], abs=0.2 * r + 2e-5), name
        assert any(v <= 0.2 * roof.array.wire_radius_m for v in mesh_min.values()) == touching
        assert any_touching(roof) == touching


def _pose(eye, target, mode="pinhole", focus=None, px=640):
    from geometry.camera import sample_phone

    phone = sample_phone(np.random.default_rng(0))
    return pose_for_phone(phone, "main", 1.0, "landscape", px, look_at(eye, target), mode, focus, 1 / 250)


def _view(pose):
    from types import SimpleNamespace

    return SimpleNamespace(pose=pose)


def _upslope_eye(geo, dist, height_frac=0.8):
    """`dist` m straight upslope of the low point, low enough to see under the top edge."""
    roof = geo.spec.roof
    M = rs.roof_frame(roof)
    X = low_point(roof, geo.spec.target_wire)
    return X + dist * M[:3, 1] + height_frac * rs.module_gap_m(roof) * M[:3, 2], X


def test_terms_on_hand_made_poses(built):
    from scorers.wire_adequacy import score_scene

    for _, geo in built.values():
        M = rs.roof_frame(geo.spec.roof)
        eye, X = _upslope_eye(geo, 1.0)
        by = {t.name: t for t in score_scene(geo, _view(_pose(eye, X)))}
        assert all(t.passed for t in by.values()), by
        assert by["low_point_distance"].value == pytest.approx(np.linalg.norm(eye - X), abs=1e-6)
        # 3 m away along the same line: too far to judge contact
        eye2 = X + 3.0 * (eye - X) / np.linalg.norm(eye - X)
        by2 = {t.name: t for t in score_scene(geo, _view(_pose(eye2, X)))}
        assert not by2["low_point_distance"].passed and by2["low_point_distance"].value == pytest.approx(3.0)
        # from above, beside the gap between the two modules the lead joins: the module hides it
        by3 = {t.name: t for t in score_scene(geo, _view(_pose(X + 1.2 * M[:3, 2] + 0.6 * M[:3, 0], X)))}
        assert by3["low_point_visible"].value == 0.0 and not by3["wire_unoccluded"].passed
        # aimed 1 m along the eave: most of the wire leaves the frame
        by4 = {t.name: t for t in score_scene(geo, _view(_pose(eye, X + 1.0 * M[:3, 0])))}
        assert not by4["wire_in_frame"].passed and not by4["low_point_visible"].passed
        # focus locked at 0.12 m: blurred
        by5 = {t.name: t for t in score_scene(geo, _view(_pose(eye, X, "locked_elsewhere", 0.12)))}
        assert first_failure(list(by5.values())) == "sharp_at_target" and by5["sharp_at_target"].value > 5


def test_frame_terms_on_synthetic_frames():
    from scorers.wire_adequacy import frame_terms

    idx = np.zeros((480, 640), np.int32)
    img = np.full((480, 640, 3), 128, np.uint8)
    idx[200:202, 100:300] = 7          # 400 px = 0.13% of the frame
    img[200:202, 100:300] = 30
    px, ec = frame_terms(img, idx, 7)
    assert px.value == pytest.approx(400 / (640 * 480), abs=1e-6) and px.passed
    assert ec.value == pytest.approx((128 - 30) / 255, abs=1e-5) and ec.passed   # grey: luma = code / 255
    idx2 = np.zeros_like(idx)
    idx2[200, 100:200] = 7             # 100 px = 0.033%: too few
    px, _ = frame_terms(img, idx2, 7)
    assert not px.passed
    _, ec = frame_terms(np.full_like(img, 60), idx, 7)   # wire as dark as its surroundings
    assert ec.value == 0.0 and not ec.passed
    px, ec = frame_terms(img, np.zeros_like(idx), 7)
    assert not px.passed and ec.value is None and not ec.passed


def test_edge_contrast_is_the_mean_of_local_steps_along_the_boundary():
    """Table 2: the mean luminance step across the boundary. A wire darker than sunlit
    shingles on the left and lighter than the shade on the right shows a full step
    everywhere; the step of the two rings' global means would cancel to 0."""
    from scorers.image_stats import edge_contrast, luma
    from scorers.wire_adequacy import frame_terms

    idx = np.zeros((120, 400), np.int32)
    idx[58:62, 20:380] = 7                       # a 4-px wire across the frame
    img = np.zeros((120, 400, 3), np.uint8)
    img[:, :200] = 160                           # sunlit shingles
    img[:, 200:] = 40                            # shade under the modules
    img[58:62, 20:200] = 120                     # the wire: 40 codes darker in the sun ...
    img[58:62, 200:380] = 80                     # ... and 40 codes lighter in the shade
    mask = idx == 7
    ring_in = mask & ~np.roll(mask, 1, 0) | mask & ~np.roll(mask, -1, 0)
    ring_out = ~mask & (np.roll(mask, 1, 0) | np.roll(mask, -1, 0))
    y_all = luma(img)
    assert abs(y_all[ring_in].mean() - y_all[ring_out].mean()) == pytest.approx(0.0, abs=1e-6)  # global means cancel
    # every boundary pixel's window sees a 40-code step, except the few whose 7-px window
    # straddles x = 200 (both halves mixed): counted by hand below
    y = img[..., 0].astype(float) / 255.0        # grey: luma = code / 255
    shifts = [np.pad(mask, 1)[1 + dv:121 + dv, 1 + du:401 + du] for dv in (-1, 0, 1) for du in (-1, 0, 1)]
    inner = mask & ~np.logical_and.reduce(shifts)     # mask pixels with a non-mask 8-neighbour
    near = np.logical_or.reduce(shifts)               # within 1 px (chessboard) of the mask
    within2 = np.logical_or.reduce([np.pad(mask, 2)[2 + dv:122 + dv, 2 + du:402 + du]
                                    for dv in range(-2, 3) for du in range(-2, 3)])
    outer = within2 & ~near                           # the ring 2 px out, clear of filter bleed
    steps = []
    for v, u in zip(*np.nonzero(inner)):
        win = (slice(max(v - 3, 0), v + 4), slice(max(u - 3, 0), u + 4))
        if outer[win].any():
            steps.append(abs(y[win][inner[win]].mean() - y[win][outer[win]].mean()))
    assert edge_contrast(img, mask) == pytest.approx(np.mean(steps), abs=1e-6)
    assert edge_contrast(img, mask) == pytest.approx(40 / 255, abs=0.01)
    assert frame_terms(img, idx, 7)[1].passed
    # no wire to see: a uniform frame with sensor-like noise (sigma 4 codes) stays far below 0.03
    rng = np.random.default_rng(0)
    noisy = np.clip(100 + rng.normal(0, 4, img.shape[:2]), 0, 255).astype(np.uint8)[..., None].repeat(3, -1)
    assert edge_contrast(noisy, mask) < 0.01 and not frame_terms(noisy, idx, 7)[1].passed
    assert edge_contrast(img, np.zeros_like(mask)) is None
    # the 1-px ring next to the mask carries the render's filter bleed and is skipped:
    # smear the wire into it and the step is unchanged
    bled = img.copy()
    bled[57, 20:200] = bled[62, 20:200] = 140
    bled[57, 200:380] = bled[62, 200:380] = 60
    assert edge_contrast(bled, mask) == pytest.approx(edge_contrast(img, mask), abs=1e-6)


@pytest.mark.render
def test_index_pass_agrees_with_the_raycast_labels(built):
    """Render the touching scene from upslope: the projected low point lands on wire pixels
    and the samples the ray cast calls visible land on the wire in the object-index pass."""
    from geometry.raycast import sample_surface, visible_mask

    from blender_envs.core.camera_rig import apply_camera_pose
    from blender_envs.core.render_passes import render_frame
    from blender_envs.core.settings import RenderSettings
    from scorers.context import RenderedFrame
    from scorers.wire_adequacy import ground_truth, score_scene

    scene, geo = built[True]
    eye, X = _upslope_eye(geo, 1.0)
    pose = _pose(eye, X, px=320)
    apply_camera_pose(scene, pose)
    out = render_frame(scene, RenderSettings(name="t", long_side_px=320, samples=1, pass_samples=1), seed=0)
    oid = geo.object_id(geo.spec.target_wire)
    wire = out.object_index == oid
    vs, us = np.nonzero(wire)
    gt = ground_truth(geo, _view(pose), RenderedFrame(np.zeros((240, 320, 3), np.uint8), out.depth, out.object_index))
    pu, pv = gt["low_point_px"]
    assert np.min(np.hypot(us - pu, vs - pv)) <= 1.5
    assert gt["touching"] and gt["target_touching"] and gt["wire_mask_px"] == len(us)
    P, _, _ = sample_surface(geo.mesh, oid, n_interior=600)
    seen = visible_mask(geo.raycaster, pose.center, P, oid, self_occludes=False)
    uv, z = project(P, pose.K_array(), pose.cam_to_world_array())
    iu, iv = np.rint(uv[:, 0]).astype(int), np.rint(uv[:, 1]).astype(int)
    ok = seen & (z > 0) & (iu >= 1) & (iu < 319) & (iv >= 1) & (iv < 239)
    lab = np.stack([wire[iv[ok] + dv, iu[ok] + du] for du in (-1, 0, 1) for dv in (-1, 0, 1)])
    assert ok.sum() > 100 and lab.any(axis=0).mean() > 0.95
    assert verdict_of(score_scene(geo, _view(pose))) == Verdict.ACCEPT
