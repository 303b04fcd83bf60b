"""Pinned values for geometry/corridor.py: corridor sample counts and positions by hand, and audit
outcomes on depth/index images ray-cast (geometry.raycast, open3d) from small analytic scenes."""
from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh

from geometry.camera import look_at
from geometry.corridor import AUDIT_OUTCOMES, _xyz, audit_edge, audit_summary, corridor_samples
from geometry.egopath_schema import GeometryParams
from geometry.raycast import Raycaster, SceneMesh

PARAMS = GeometryParams()  # r 0.30, step 0.05, slab 0.05 .. 1.80
W, H = 80, 60
K = np.array([[60.0, 0, (W - 1) / 2], [0, 60.0, (H - 1) / 2], [0, 0, 1]])
CAM = look_at([0.0, -3.0, 1.6], [0.0, 1.0, 0.4])
A, B = (-1.0, 1.0, 0.0), (1.0, 1.0, 0.0)  # the audited edge, 4 m in front of the camera


def floor():
    v = np.array([[-5, -5, 0], [5, -5, 0], [5, 6, 0], [-5, 6, 0]], float)
    return 1, "floor", trimesh.Trimesh(v, [[0, 1, 2], [0, 2, 3]], process=False)


def box(lo, hi, oid):
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return oid, f"box{oid}", trimesh.creation.box(extents=hi - lo,
                                                  transform=trimesh.transformations.translation_matrix((lo + hi) / 2))


def renders(*parts, cam=CAM):
    rc = Raycaster(SceneMesh.from_trimesh_parts([floor(), *parts]))
    ids, depth = rc.first_hit_ids_for_pixels(K, cam, W, H)
    return depth, ids


# ------------------------------------------------------------------ samples


def test_xyz():
    assert _xyz([1, 2]).tolist() == [1.0, 2.0, 0.0]
    assert _xyz([[1, 2, 3]]).tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="xyz"):
        _xyz([1, 2, 3, 4])


def test_corridor_samples_counts_and_positions():
    S = corridor_samples([0, 0, 0], [0.1, 0, 0.2], 0.3, 0.05, [0.5, 1.0])
    assert S.shape == (3 * 2 * 37, 3)  # 3 stations x 2 heights x (centre + 3 rings of 12)
    np.testing.assert_allclose(S[0], [0, 0, 0.5])
    np.testing.assert_allclose(S[1], [0.1, 0, 0.5])  # first ring, angle 0 along +x, radius r/3
    np.testing.assert_allclose(S[4], [0.1 * math.cos(math.pi / 2), 0.1, 0.5], atol=1e-12)
    np.testing.assert_allclose(S[25], [0.3, 0, 0.5])  # third ring, radius r
    np.testing.assert_allclose(S[13], [0.2, 0, 0.5])
    np.testing.assert_allclose(S[37], [0, 0, 1.0])  # second height
    np.testing.assert_allclose(S[74], [0.05, 0, 0.6])  # second station, local floor z = 0.1
    np.testing.assert_allclose(S[-37], [0.1, 0, 1.2])  # last station is the far end
    r = np.hypot(S[:, 0] - np.repeat([0, 0.05, 0.1], 74), S[:, 1])
    assert r.max() == pytest.approx(0.3) and np.unique(np.round(r, 9)).tolist() == [0.0, 0.1, 0.2, 0.3]


def test_corridor_samples_station_count_and_degenerate_cases():
    assert len(corridor_samples([0, 0], [0.12, 0], 0.0, 0.05, [0.1])) == 4  # 0, .05, .10, .12
    assert len(corridor_samples([0, 0], [0.1 + 1e-12, 0], 0.0, 0.05, [0.1])) == 3
    S = corridor_samples([0, 0], [0.12, 0], 0.0, 0.05, [0.1])
    np.testing.assert_allclose(S[:, 0], [0, 0.05, 0.1, 0.12])
    one = corridor_samples([1, 2, 0.5], [1, 2, 0.5], 0.2, 0.05, [0.1], n_rings=2, n_angles=4)
    assert one.shape == (9, 3)
    np.testing.assert_allclose(one[0], [1, 2, 0.6])
    assert len(corridor_samples([0, 0], [1, 0], 0.3, 0.5, [0.1], n_rings=0)) == 3
    assert len(corridor_samples([0, 0], [1, 0], 0.3, 0.5, [0.1], n_angles=0)) == 3
    for kw in (dict(radius=-0.1), dict(step_m=0.0)):
        args = dict(radius=0.3, step_m=0.05)
        args.update(kw)
        with pytest.raises(ValueError, match="radius"):
            corridor_samples([0, 0], [1, 0], args["radius"], args["step_m"], [0.1])
    with pytest.raises(ValueError, match="heights"):
        corridor_samples([0, 0], [1, 0], 0.3, 0.05, [])


# ------------------------------------------------------------------ audits


def audit(depth, ids, **kw):
    return audit_edge(A, B, PARAMS, K, CAM, depth, ids, floor_ids={1}, **kw)


def test_box_on_the_edge_is_depth_evidence():
    depth, ids = renders(box((-0.2, 0.8, 0.0), (0.2, 1.2, 0.8), 5))
    assert audit(depth, ids) == "depth"
    # a box beside the corridor (0.5 m behind the edge, beyond the 0.30 m radius) is no depth evidence
    d2, i2 = renders(box((-0.2, 1.45, 0.0), (0.2, 1.8, 0.8), 5))
    assert audit(d2, i2) == "inconclusive"
    # ... but a wider corridor reaches it
    assert audit(d2, i2, radius=0.5) == "depth"
    # a box within the corridor's xy but entirely below the obstacle slab (a 3 cm mat) does not count
    d3, i3 = renders(box((-0.2, 0.8, 0.0), (0.2, 1.2, 0.03), 5))
    assert audit(d3, i3) == "inconclusive"


def test_occluder_in_front_is_index_evidence_unless_it_is_a_wall():
    occ = box((-0.6, -1.2, 0.0), (0.6, -1.0, 2.0), 6)  # 2 m in front of the edge: hides its middle
    depth, ids = renders(occ)
    assert audit(depth, ids) == "index"
    assert audit(depth, ids, wall_ids={6}) == "inconclusive"
    assert audit_edge(A, B, PARAMS, K, CAM, depth, ids, floor_ids={1, 6}) == "inconclusive"
    assert audit(depth, ids, min_samples=10**6) == "inconclusive"
    # the occluder's own pixels are no depth evidence (far from the corridor)
    assert audit(depth, ids, min_samples=10**6, min_pixels=1) == "inconclusive"


def test_min_pixels_and_floor_ids():
    depth, ids = renders(box((-0.2, 0.8, 0.0), (0.2, 1.2, 0.8), 5))
    n_box = int((ids == 5).sum())
    assert n_box > 10
    # too few depth pixels: the box still hides the corridor samples behind it
    assert audit(depth, ids, min_pixels=n_box + 1) == "index"
    assert audit(depth, ids, min_pixels=n_box + 1, min_samples=10**6) == "inconclusive"
    assert audit_edge(A, B, PARAMS, K, CAM, depth, ids, floor_ids={1, 5}) == "inconclusive"
    # background stored as a huge finite number instead of inf is still background
    big = np.where(np.isinf(depth), 1e9, depth)
    assert audit(big, ids) == "depth"


def test_clear_corridor_and_out_of_frame_are_inconclusive():
    depth, ids = renders()
    assert audit(depth, ids) == "inconclusive"
    away = look_at([0.0, -3.0, 1.6], [0.0, -8.0, 1.0])
    d2, i2 = renders(box((-0.2, 0.8, 0.0), (0.2, 1.2, 0.8), 5), cam=away)
    assert audit_edge(A, B, PARAMS, K, away, d2, i2, floor_ids={1}) == "inconclusive"
    with pytest.raises(ValueError, match="same shape"):
        audit(depth, ids[:-1])
    with pytest.raises(ValueError, match="same shape"):
        audit(depth[0], ids[0])


def test_corridor_through_the_camera_plane():
    # The edge runs from behind the camera to in front of it: the projection is unbounded, the
    # whole image is searched, and a box on the visible part is still found.
    a, b = (0.0, -4.0, 0.0), (0.0, 1.0, 0.0)
    depth, ids = renders(box((-0.2, 0.3, 0.0), (0.2, 0.7, 0.8), 5))
    assert audit_edge(a, b, PARAMS, K, CAM, depth, ids, floor_ids={1}) == "depth"
    d0, i0 = renders()
    assert audit_edge(a, b, PARAMS, K, CAM, d0, i0, floor_ids={1}) == "inconclusive"


def test_audit_summary():
    s = audit_summary(["depth", "index", "index", "inconclusive"])
    assert s == {"n": 4, "depth": 1, "index": 2, "inconclusive": 1, "explained": 3, "depth_share": 0.25,
                 "index_share": 0.5, "explained_share": 0.75, "inconclusive_share": 0.25}
    e = audit_summary([])
    assert e["n"] == 0 and e["explained"] == 0 and e["depth_share"] is None and e["inconclusive_share"] is None
    assert e["index_share"] is None and e["explained_share"] is None
    with pytest.raises(ValueError, match=r"\['blocked'\]"):
        audit_summary(["depth", "blocked"])
    assert AUDIT_OUTCOMES == ("depth", "index", "inconclusive")
