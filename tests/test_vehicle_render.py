"""The parametric car as rendered: panel masks project where body.py's geometry says.

One tiny Cycles render (240 px, 1 sample) of a pinned sedan, square-on to its driver
side from two car lengths: each driver door's object-index mask has the centroid and
the size of its projected rectangle (square-on, so the projection is exact up to pixel
sampling), the passenger doors are hidden, and the driver side is the +y side of the
car frame turned by the placement's yaw.
"""
from __future__ import annotations

import numpy as np
import pytest

from blender_envs.vehicle.body import Body, Placement, panels, to_world
from geometry.camera import look_at, pose_for_phone, project, sample_phone

BODY = Body(style="sedan", length_m=4.8185, width_m=1.807, height_m=1.4041, wheelbase_m=2.7497,
            front_overhang_m=0.9849, hood_m=1.4287, windshield_m=0.7141, roof_m=1.297, rear_glass_m=0.5604,
            deck_m=0.8183, beltline_m=0.9493, clearance_m=0.1545, wheel_radius_m=0.3101)
CAR = Placement(x=1.0, y=2.0, yaw_deg=30.0)


@pytest.mark.render
def test_rendered_panel_masks_match_the_spec_geometry():
    from blender_envs.core import materials, primitives
    from blender_envs.core.camera_rig import apply_camera_pose
    from blender_envs.core.cycles_setup import configure_cycles, configure_device
    from blender_envs.core.render_passes import render_frame
    from blender_envs.core.scene_reset import reset_scene
    from blender_envs.core.settings import RenderSettings
    from blender_envs.vehicle.car_build import build_car
    from scorers.image_stats import mask_centroid

    q = RenderSettings(name="t", long_side_px=240, samples=1, pass_samples=1, denoise=False)
    scene = reset_scene()
    configure_cycles(scene, q, 0)
    configure_device(scene, "cpu")
    primitives.plane(scene, "ground", 40.0, 40.0, np.eye(4), materials.principled("ground", [0.2, 0.2, 0.2]), 1)
    objs = build_car(scene, BODY, CAR, "silver", 2)
    ids = {o.name: o.id for o in objs}
    assert len(ids) == len(objs) and sorted(ids.values()) == list(range(2, 2 + len(objs)))
    assert {"front_door_driver", "rear_door_driver", "glass", "plate_front", "wheel_rear_passenger"} <= set(ids)
    materials.sun_and_sky(scene, 50.0, 120.0)

    centre = to_world(CAR, BODY.center())
    eye = to_world(CAR, BODY.center() + [0.0, 2.0 * BODY.length_m, 0.0])     # driver side = car +y
    pose = pose_for_phone(sample_phone(np.random.default_rng(0)), "main", 1.0, "landscape", 240,
                          look_at(eye, centre), "pinhole", None, 1 / 250)
    apply_camera_pose(scene, pose)
    out = render_frame(scene, q, seed=0)
    P = panels(BODY)
    for name in ("front_door_driver", "rear_door_driver"):
        r = P[name][0]
        g = np.linspace(-1.0, 1.0, 41)
        pts = to_world(CAR, r.point(*(a.ravel() for a in np.meshgrid(g * r.half_u, g * r.half_v))))
        uv, _ = project(pts, pose.K_array(), pose.cam_to_world_array())
        cu, cv = mask_centroid(out.object_index, ids[name])
        assert abs(cu - uv[:, 0].mean()) < 0.75 and abs(cv - uv[:, 1].mean()) < 0.75, name
        vs, us = np.nonzero(out.object_index == ids[name])
        assert abs((us.max() - us.min() + 1) - np.ptp(uv[:, 0])) <= 1.5, name
        assert abs((vs.max() - vs.min() + 1) - np.ptp(uv[:, 1])) <= 1.5, name
    # the driver side is the car's left: facing it, the front is on the viewer's left (panel u = -x points right)
    assert mask_centroid(out.object_index, ids["front_door_driver"])[0] < \
        mask_centroid(out.object_index, ids["rear_door_driver"])[0]
    assert P["front_door_driver"][0].u == [-1.0, 0.0, 0.0]
    for hidden in ("front_door_passenger", "rear_door_passenger", "roof"):
        assert not np.any(out.object_index == ids[hidden]), hidden


@pytest.mark.render
def test_kerbs_are_chamfered_prisms_facing_out_and_the_wear_is_the_specs():
    """vehicle-4 kerbs: the cross-section worked (30 cm wide, 15 cm above the asphalt from 2 cm
    under it, 3.5 cm chamfer on the lot side, 1.2 cm on the verge side; area 0.3 x 0.17 -
    0.035^2 / 2 - 0.012^2 / 2), every face of the four prisms facing away from its prism's
    centre, the lot side's top edge 3.5 cm under the kerb top; the asphalt's wear pattern
    placed by the spec's `wear_offset` (drawn, three values in 0-1000)."""
    from blender_envs.registry import get_environment
    from blender_envs.vehicle.lot import KERB_HEIGHT_M
    from blender_envs.vehicle.lot_build import asphalt_material, kerb_part, kerb_profile
    from render_farm.seeds import rng_for

    P = kerb_profile(-5.0, -1.0)
    assert np.asarray(P) == pytest.approx(np.array([(-5.0, -0.02), (-5.3, -0.02), (-5.3, 0.138), (-5.288, 0.15),
                                                    (-5.035, 0.15), (-5.0, 0.115)][::-1]))
    Q = np.array(P)
    area = 0.5 * (np.dot(Q[:, 0], np.roll(Q[:, 1], -1)) - np.dot(np.roll(Q[:, 0], -1), Q[:, 1]))
    assert area == pytest.approx(0.3 * 0.17 - 0.035**2 / 2 - 0.012**2 / 2)     # counter-clockwise, positive
    lot = get_environment("car_view").sample_scene(rng_for("test_vehicle_render", 0, "scene"), "k0", 0).lot
    V, F = kerb_part(lot)
    V = np.asarray(V)
    assert len(F) == 4 * 8
    for k in range(4):
        faces = F[8 * k: 8 * (k + 1)]
        c = V[sorted({i for f in faces for i in f})].mean(axis=0)
        for f in faces:
            p = V[list(f)]
            assert np.cross(p[1] - p[0], p[2] - p[0]) @ (p.mean(axis=0) - c) > 0
    long_sides = V[:24]                       # the two kerbs along x (six profile points at both ends)
    edge = long_sides[np.isclose(np.abs(long_sides[:, 1]), lot.half_y_m)]
    assert edge[:, 2].max() == pytest.approx(KERB_HEIGHT_M - 0.035)
    assert len(lot.wear_offset) == 3 and all(0.0 <= w < 1000.0 for w in lot.wear_offset)
    mat = asphalt_material(lot)
    [mp] = [n for n in mat.node_tree.nodes if n.bl_idname == "ShaderNodeMapping"]
    assert tuple(mp.inputs["Location"].default_value) == pytest.approx(lot.wear_offset)
