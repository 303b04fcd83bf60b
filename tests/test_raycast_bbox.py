"""visibility_stats' bbox fraction on objects that cross the frame's edges (non-square frame).

The clipped bbox is checked against two independent computations: the hand projection of
the card's corners, and the ray-cast id render's pixel bbox (pixel i covers [i-0.5, i+0.5)).
"""
from __future__ import annotations

import numpy as np
import pytest
import trimesh

from geometry.raycast import Raycaster, SceneMesh, visibility_stats

W, H = 640, 480            # wider than tall: a clip against the wrong side shows
FX = FY = 400.0
CX, CY = (W - 1) / 2, (H - 1) / 2
K = np.array([[FX, 0, CX], [0, FY, CY], [0, 0, 1]], dtype=np.float64)
EYE = np.eye(4)            # OpenCV camera at the origin looking down +z; +v is down (+y)
Z = 4.0


def rect(u0, u1, v0, v1, z=Z) -> trimesh.Trimesh:
    """A card at depth z whose corners project to pixel coordinates u0..u1, v0..v1."""
    x0, x1 = (u0 - CX) * z / FX, (u1 - CX) * z / FX
    y0, y1 = (v0 - CY) * z / FY, (v1 - CY) * z / FY
    verts = np.array([[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]])
    # normal -z (towards the camera)
    return trimesh.Trimesh(verts, [[0, 2, 1], [0, 3, 2]], process=False)


def stats(card):
    mesh = SceneMesh.from_trimesh_parts([(1, "card", card)])
    rc = Raycaster(mesh)
    return rc, visibility_stats(rc, mesh, 1, K, EYE, W, H, n_interior=3000)


def render_bbox_fraction(rc) -> float:
    """bbox of the id render's pixels of object 1, in continuous coordinates."""
    ids, _ = rc.first_hit_ids_for_pixels(K, EYE, W, H)
    vv, uu = np.nonzero(ids == 1)
    if not len(vv):
        return 0.0
    return float((uu.max() - uu.min() + 1) * (vv.max() - vv.min() + 1) / (W * H))


@pytest.mark.parametrize("box, clipped", [
    # crosses the bottom edge (v beyond H): clipped at v = H - 0.5, not at W - 0.5
    ((200.0, 400.0, 380.0, 700.0), (200.0, 400.0, 380.0, H - 0.5)),
    # crosses the top and the bottom edge
    ((100.0, 300.0, -150.0, 650.0), (100.0, 300.0, -0.5, H - 0.5)),
    # crosses the right edge
    ((500.0, 800.0, 100.0, 200.0), (500.0, W - 0.5, 100.0, 200.0)),
    # crosses the left edge and the bottom edge
    ((-100.0, 50.0, 300.0, 900.0), (-0.5, 50.0, 300.0, H - 0.5)),
    # entirely below / right of the frame (but in front of the camera): an empty box
    ((100.0, 200.0, 500.0, 700.0), (100.0, 200.0, H - 0.5, H - 0.5)),
    ((660.0, 700.0, 100.0, 200.0), (W - 0.5, W - 0.5, 100.0, 200.0)),
    # inside the frame: no clip
    ((100.0, 200.0, 100.0, 300.0), (100.0, 200.0, 100.0, 300.0)),
])
def test_bbox_fraction_is_clipped_to_the_frame(box, clipped):
    rc, s = stats(rect(*box))
    u0, u1, v0, v1 = clipped
    assert s.bbox_fraction == pytest.approx((u1 - u0) * (v1 - v0) / (W * H), rel=1e-6)  # mesh vertices are float32
    # the id render sees the same box to within a pixel on each side
    assert s.bbox_fraction == pytest.approx(render_bbox_fraction(rc), abs=2.5 * (W + H) / (W * H))
    assert 0.0 <= s.bbox_fraction <= 1.0


def test_object_over_the_bottom_edge_of_a_portrait_and_a_landscape_frame():
    """The same card, cut by the bottom edge, fills (u1-u0)*(H-0.5-v0) of the frame."""
    rc, s = stats(rect(0.0, 100.0, 430.0, 1200.0))
    assert s.bbox_fraction == pytest.approx(100.0 * (H - 0.5 - 430.0) / (W * H), rel=1e-6)  # mesh vertices are float32
    assert s.in_frame_fraction < 0.1
    # a portrait frame (W < H): the same clip is at H - 0.5 there too
    Kp = np.array([[FX, 0, (H - 1) / 2], [0, FY, (W - 1) / 2], [0, 0, 1]])
    xs = np.array([0.0, 100.0]) - (H - 1) / 2
    ys = np.array([590.0, 900.0]) - (W - 1) / 2
    x0, x1 = xs * Z / FX
    y0, y1 = ys * Z / FY
    verts = np.array([[x0, y0, Z], [x1, y0, Z], [x1, y1, Z], [x0, y1, Z]])
    mesh = SceneMesh.from_trimesh_parts([(1, "card", trimesh.Trimesh(verts, [[0, 2, 1], [0, 3, 2]], process=False))])
    sp = visibility_stats(Raycaster(mesh), mesh, 1, Kp, EYE, H, W, n_interior=3000)  # width 480, height 640
    assert sp.bbox_fraction == pytest.approx(100.0 * (W - 0.5 - 590.0) / (W * H), rel=1e-6)  # mesh vertices are float32
