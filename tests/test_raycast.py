"""Ray casting and visibility checked against hand computations on synthetic scenes."""
from __future__ import annotations

import pickle

import numpy as np
import pytest
import trimesh

from geometry.raycast import (
    Raycaster,
    SceneMesh,
    VisibilityStats,
    camera_inside_mesh,
    fibonacci_sphere,
    in_frame_mask,
    px_per_unit,
    sample_surface,
    view_angle_deg,
    visibility_stats,
    visible_mask,
)

W, H = 640, 480
FX, FY = 500.0, 450.0
CX, CY = (W - 1) / 2, (H - 1) / 2  # optical axis through the image centre
K = np.array([[FX, 0, CX], [0, FY, CY], [0, 0, 1]], dtype=np.float64)
EYE = np.eye(4)  # camera at the origin looking down +z (OpenCV)


def look_at(eye, target, up=(0.0, 0.0, 1.0)) -> np.ndarray:
    """OpenCV cam_to_world: columns are the camera x (right), y (down), z (forward) axes."""
    eye = np.asarray(eye, float)
    z = np.asarray(target, float) - eye
    z /= np.linalg.norm(z)
    x = np.cross(z, np.asarray(up, float))
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = x, y, z, eye
    return m


def quad(center, ax_u, ax_v, half_u, half_v) -> trimesh.Trimesh:
    """Two-triangle rectangle; normal = ax_u x ax_v (CCW seen from that side)."""
    c, u, v = (np.asarray(a, float) for a in (center, ax_u, ax_v))
    verts = np.array(
        [c - half_u * u - half_v * v, c + half_u * u - half_v * v,
         c + half_u * u + half_v * v, c - half_u * u + half_v * v]
    )
    return trimesh.Trimesh(verts, [[0, 1, 2], [0, 2, 3]], process=False)


def card(z, half=1.0, cx=0.0, cy=0.0) -> trimesh.Trimesh:
    """Square card in the plane z = const, facing a camera at the origin (normal -z)."""
    return quad((cx, cy, z), (0, 1, 0), (1, 0, 0), half, half)  # y x x = -z


def box(center, extents) -> trimesh.Trimesh:
    return trimesh.creation.box(extents=extents, transform=trimesh.transformations.translation_matrix(center))


# ----------------------------------------------------------------- SceneMesh


def test_scene_mesh_roundtrip(tmp_path):
    mesh = SceneMesh.from_trimesh_parts(
        [(3, "crate", box((0, 0, 5), (1, 1, 1))), (1, "card_ü", card(8)), (3, "crate", card(9))]
    )
    path = tmp_path / "scene_mesh"  # no suffix: save must not rename the file
    mesh.save(path)
    assert path.exists()
    back = SceneMesh.load(path)
    for name in ("vertices", "triangles", "tri_object_id", "object_ids", "object_names"):
        a, b = getattr(mesh, name), getattr(back, name)
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert back.vertices.dtype == np.float32 and back.triangles.dtype == np.int32
    assert list(back.object_ids) == [1, 3]
    assert list(back.object_names) == ["card_ü", "crate"]
    assert back.object_name(3) == "crate"
    assert len(back.object_triangles(3)) == 12 + 2
    assert back.object_triangles(1).shape == (2, 3)


def test_face_normals_and_areas():
    mesh = SceneMesh.from_trimesh_parts([(1, "b", box((0, 0, 0), (1, 2, 3)))])
    n = mesh.face_normals()
    np.testing.assert_allclose(np.linalg.norm(n, axis=1), 1.0, atol=1e-12)
    assert mesh.face_areas().sum() == pytest.approx(2 * (1 * 2 + 2 * 3 + 1 * 3))
    # Outward winding: normals point away from the centre of each face.
    a, b, c = mesh._corners()
    centroids = (a + b + c) / 3
    assert np.all(np.einsum("ij,ij->i", n, centroids) > 0)


# ---------------------------------------------------------------- raycaster


def test_cast_hits_and_misses():
    mesh = SceneMesh.from_trimesh_parts([(7, "card", card(4.0))])
    rc = Raycaster(mesh)
    origins = np.zeros((3, 3))
    dirs = np.array([[0, 0, 1.0], [0.1, 0.2, 2.0], [0, 0, -1.0]])  # unnormalised on purpose
    t, oid, tri, nrm = rc.cast(origins, dirs)
    assert t[0] == pytest.approx(4.0, rel=1e-9)
    assert t[1] == pytest.approx(np.linalg.norm([0.2, 0.4, 4.0]), rel=1e-9)
    assert list(oid) == [7, 7, 0]
    assert tri[0] in (0, 1) and tri[2] == -1
    assert np.isinf(t[2])
    np.testing.assert_allclose(nrm[0], [0, 0, -1], atol=1e-12)
    np.testing.assert_array_equal(nrm[2], 0)
    # Picklable (worker processes): rebuilds its scene.
    rc2 = pickle.loads(pickle.dumps(rc))
    np.testing.assert_array_equal(rc2.cast(origins, dirs)[1], oid)


def test_planar_depth_of_fronto_parallel_plane():
    d = 3.7
    cam = look_at((1.0, -2.0, 1.5), (4.0, 3.0, 0.5))
    c, x, y, z = cam[:3, 3], cam[:3, 0], cam[:3, 1], cam[:3, 2]
    plane = quad(c + d * z, x, y, 50.0, 50.0)  # far larger than the view
    rc = Raycaster(SceneMesh.from_trimesh_parts([(2, "wall", plane)]))
    ids, depth = rc.first_hit_ids_for_pixels(K, cam, W, H)
    assert ids.shape == (H, W) and depth.shape == (H, W)
    assert ids.dtype == np.int32 and depth.dtype == np.float32
    assert np.all(ids == 2)
    np.testing.assert_allclose(depth, d, rtol=1e-5)


def test_id_image_of_square_card_matches_analytic_square():
    d, half = 5.0, 0.5  # projects to half-widths FX*0.5/5 = 50 px, FY*0.5/5 = 45 px
    mesh = SceneMesh.from_trimesh_parts([(4, "card", card(d, half=half))])
    ids, depth = Raycaster(mesh).first_hit_ids_for_pixels(K, EYE, W, H)
    u, v = np.meshgrid(np.arange(W), np.arange(H))
    hu, hv = FX * half / d, FY * half / d
    expected = (np.abs(u - CX) < hu) & (np.abs(v - CY) < hv)
    assert expected.sum() == 100 * 90  # pixel centres sit at half-integer offsets
    got = ids == 4
    border = (np.abs(np.abs(u - CX) - hu) <= 1) | (np.abs(np.abs(v - CY) - hv) <= 1)
    assert not np.any((got != expected) & ~border)
    assert abs(int(got.sum()) - int(expected.sum())) <= 100
    assert np.all(np.isinf(depth[~got])) and np.all(ids[~got] == 0)
    np.testing.assert_allclose(depth[got], d, rtol=1e-5)


# ------------------------------------------------------------------ sampling


def test_sample_surface_deterministic_and_includes_vertices():
    mesh = SceneMesh.from_trimesh_parts([(1, "a", box((0, 0, 5), (1, 1, 1))), (2, "b", box((0, 0, 5), (1, 1, 1)))])
    p1, n1, w1 = sample_surface(mesh, 1, n_interior=500, seed=3)
    p2, n2, w2 = sample_surface(mesh, 1, n_interior=500, seed=3)
    np.testing.assert_array_equal(p1, p2)
    np.testing.assert_array_equal(n1, n2)
    np.testing.assert_array_equal(w1, w2)
    assert len(p1) == 8 + 500
    assert not np.array_equal(sample_surface(mesh, 1, 500, seed=4)[0], p1)
    # Same geometry under another id draws a different stream.
    assert not np.array_equal(sample_surface(mesh, 2, 500, seed=3)[0], p1)
    # Every vertex of the object is present.
    verts = np.unique(mesh.vertices[mesh.object_triangles(1).ravel()], axis=0)
    for v in verts:
        assert np.min(np.linalg.norm(p1 - v, axis=1)) < 1e-6
    # Interior points lie on the surface of the unit box centred at (0,0,5).
    q = np.abs(p1 - [0, 0, 5])
    np.testing.assert_allclose(q.max(axis=1), 0.5, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(n1, axis=1), 1.0, atol=1e-9)
    assert w1.sum() == pytest.approx(6.0)
    assert sample_surface(mesh, 99)[0].shape == (0, 3)


def test_thin_cylinder_sampled_along_its_length():
    cyl = trimesh.creation.cylinder(radius=0.01, height=2.0, sections=16)
    mesh = SceneMesh.from_trimesh_parts([(1, "pole", cyl)])
    pts, _, _ = sample_surface(mesh, 1, n_interior=2000, seed=0)
    z = pts[:, 2]
    # Side area 2*pi*r*h dominates the caps 2*pi*r^2 (~1%), so nearly all interior
    # points are on the side, spread uniformly over z in [-1, 1].
    assert np.mean(np.abs(z) < 0.99) > 0.95
    hist, _ = np.histogram(z, bins=20, range=(-1, 1))
    assert hist.min() >= 0.5 * 2000 / 20
    np.testing.assert_allclose(np.hypot(pts[:, 0], pts[:, 1]).max(), 0.01, rtol=1e-6)


# ---------------------------------------------------------------- visibility


def test_in_frame_mask_edges():
    z = 4.0
    # Points projecting exactly onto u = -0.5 (in) and u = W - 0.5 (out).
    x_left = (-0.5 - CX) * z / FX
    x_right = (W - 0.5 - CX) * z / FX
    pts = np.array([[x_left, 0, z], [x_right, 0, z], [0, 0, z], [0, 0, -z], [0, 0, 0]])
    assert list(in_frame_mask(pts, K, EYE, W, H)) == [True, False, True, False, False]


def test_thin_card_fully_visible():
    mesh = SceneMesh.from_trimesh_parts([(1, "card", card(5.0))])
    rc = Raycaster(mesh)
    s = visibility_stats(rc, mesh, 1, K, EYE, W, H, n_interior=2000)
    assert s.n_points == 4 + 2000
    d = s.to_dict()
    assert set(d) == {"in_frame_fraction", "unoccluded_fraction", "visible_fraction", "bbox_fraction", "n_points"}
    assert VisibilityStats(**d) == s and d["n_points"] == 2004
    assert s.in_frame_fraction == 1.0
    assert s.unoccluded_fraction == 1.0
    assert s.visible_fraction == 1.0
    # Card spans u in CX +- 100, v in CY +- 90 (corners are samples).
    assert s.bbox_fraction == pytest.approx(200 * 180 / (W * H), rel=1e-9)


def test_cube_square_on_sees_front_face_only():
    mesh = SceneMesh.from_trimesh_parts([(1, "cube", box((0, 0, 5), (1, 1, 1)))])
    rc = Raycaster(mesh)
    n = 2000
    pts, _, _ = sample_surface(mesh, 1, n_interior=n)
    vis = visible_mask(rc, np.zeros(3), pts, 1)
    # Hand count: only the front face z = 4.5 faces the camera; the other faces
    # are behind it. Side-face points within ~eps*dist of the front edge pass the
    # 1e-3 relative tolerance: strip depth 0.005 m on 4 of 6 faces -> ~0.3% of n.
    front = np.abs(pts[:, 2] - 4.5) < 1e-9
    n_front_interior = int(front[8:].sum())
    assert abs(n_front_interior - n / 6) <= 1  # systematic area sampling
    expected = n_front_interior + 4  # + the 4 front corners
    assert np.all(vis[front])
    assert abs(int(vis.sum()) - expected) <= 0.01 * n
    # The 4 back corners are hidden by the front face.
    back_corners = np.abs(pts[:8, 2] - 5.5) < 1e-9
    assert not np.any(vis[:8][back_corners])
    s = visibility_stats(rc, mesh, 1, K, EYE, W, H, n_interior=n, self_occludes=True)
    assert s.in_frame_fraction == 1.0
    assert s.unoccluded_fraction == pytest.approx(expected / (n + 8), abs=0.01)
    # Table 2's "unoccluded" (first hit is the target): a lone cube hides nothing of itself
    assert visibility_stats(rc, mesh, 1, K, EYE, W, H, n_interior=n).unoccluded_fraction == 1.0
    assert s.visible_fraction == s.unoccluded_fraction


def test_occluder_covering_left_half_of_card():
    # Card at z = 5, x in [-1, 1]. A thin box at z = 3 whose right edge is at x = 0
    # hides exactly the card points with x < 0 (rays through x = 0 stay at x = 0).
    occluder = box((-0.4, 0, 3.0), (0.8, 1.6, 0.01))  # x in [-0.8, 0], y in [-0.8, 0.8]
    mesh = SceneMesh.from_trimesh_parts([(1, "card", card(5.0)), (2, "blocker", occluder)])
    rc = Raycaster(mesh)
    pts, _, _ = sample_surface(mesh, 1, n_interior=2000)
    vis = visible_mask(rc, np.zeros(3), pts, 1)
    clear = np.abs(pts[:, 0]) > 1e-3
    np.testing.assert_array_equal(vis[clear], pts[clear, 0] > 0)
    s = visibility_stats(rc, mesh, 1, K, EYE, W, H, n_interior=2000)
    assert s.in_frame_fraction == 1.0
    assert s.unoccluded_fraction == pytest.approx(0.5, abs=0.03)
    assert s.unoccluded_fraction == pytest.approx(np.mean(pts[:, 0] > 0), abs=2e-3)
    # The blocker itself is not occluded.
    assert visibility_stats(rc, mesh, 2, K, EYE, W, H).unoccluded_fraction > 0.15


def test_card_half_outside_frame():
    z = 5.0
    x_border = (W - 0.5 - CX) * z / FX  # right image border at depth z
    mesh = SceneMesh.from_trimesh_parts([(1, "card", card(z, half=1.0, cx=x_border))])
    rc = Raycaster(mesh)
    s = visibility_stats(rc, mesh, 1, K, EYE, W, H, n_interior=2000)
    pts, _, _ = sample_surface(mesh, 1, n_interior=2000)
    assert s.in_frame_fraction == pytest.approx(0.5, abs=0.03)
    assert s.in_frame_fraction == pytest.approx(np.mean(pts[:, 0] < x_border), abs=1e-9)
    assert s.unoccluded_fraction == 1.0
    assert s.visible_fraction == pytest.approx(s.in_frame_fraction)
    # bbox: u from CX + FX*(x_border-1)/z to the border, v over CY +- FY*1/z.
    u0 = CX + FX * (x_border - 1.0) / z
    expected_bbox = ((W - 0.5) - u0) * (2 * FY / z) / (W * H)
    assert s.bbox_fraction == pytest.approx(expected_bbox, rel=1e-6)  # float32 vertices


def test_object_behind_camera_has_nothing_in_frame():
    mesh = SceneMesh.from_trimesh_parts([(1, "card", card(-5.0))])
    s = visibility_stats(Raycaster(mesh), mesh, 1, K, EYE, W, H)
    assert (s.in_frame_fraction, s.unoccluded_fraction, s.visible_fraction, s.bbox_fraction) == (0, 0, 0, 0)


# ------------------------------------------------------------ view geometry


def test_view_angle():
    c = np.zeros(3)
    assert view_angle_deg(c, [0, 0, 5], [0, 0, -1]) == pytest.approx(0.0, abs=1e-9)
    assert view_angle_deg(c, [0, 0, 5], [0, 0, 1]) == pytest.approx(0.0, abs=1e-9)  # two-sided
    # A plane tilted 60 degrees about the y axis, normal from the mesh and from a ray hit.
    tilt = np.radians(60)
    plane = quad((0, 0, 5), (0, 1, 0), (np.cos(tilt), 0, np.sin(tilt)), 1.0, 1.0)
    mesh = SceneMesh.from_trimesh_parts([(1, "tilted", plane)])
    t, _, _, nrm = Raycaster(mesh).cast(c, [[0, 0, 1.0]])
    assert t[0] == pytest.approx(5.0)
    # Mesh vertices are stored as float32, hence the 1e-5 degree tolerance.
    assert view_angle_deg(c, [0, 0, 5], nrm[0]) == pytest.approx(60.0, abs=1e-5)
    assert view_angle_deg(c, [0, 0, 5], mesh.face_normals()[0]) == pytest.approx(60.0, abs=1e-5)
    angles = view_angle_deg(c, np.array([[0, 0, 5], [0, 0, 2]]), np.array([[1, 0, 0], [0, 0, 1]]))
    np.testing.assert_allclose(angles, [90.0, 0.0], atol=1e-9)


def test_px_per_unit():
    p = np.array([0.3, -0.2, 4.0])
    assert px_per_unit(K, EYE, p, [1, 0, 0]) == pytest.approx(FX * 1.0 / 4.0, rel=1e-12)
    assert px_per_unit(K, EYE, p, [0, 2, 0], length=0.5) == pytest.approx(FY * 0.5 / 4.0, rel=1e-12)
    # Along the optical axis, the centred segment foreshortens to almost nothing.
    along = px_per_unit(K, EYE, [0.0, 0.0, 4.0], [0, 0, 1])
    assert along == pytest.approx(0.0, abs=1e-9)
    # Same answer from a rotated camera for the equivalent camera-space segment.
    cam = look_at((1, 2, 3), (5, 2, 3))
    q = cam[:3, :3] @ p + cam[:3, 3]
    assert px_per_unit(K, cam, q, cam[:3, 0]) == pytest.approx(FX / 4.0, rel=1e-9)
    assert np.isnan(px_per_unit(K, EYE, [0, 0, 0.2], [0, 0, 1]))


def test_camera_inside_mesh():
    room = box((0, 0, 0), (4, 4, 3))
    ground = quad((0, 0, -2), (1, 0, 0), (0, 1, 0), 20, 20)  # normal +z
    mesh = SceneMesh.from_trimesh_parts([(1, "room", room), (2, "ground", ground)])
    rc = Raycaster(mesh)
    assert camera_inside_mesh(rc, mesh, [0, 0, 0])
    assert camera_inside_mesh(rc, mesh, [1.9, -1.5, 1.2])
    assert not camera_inside_mesh(rc, mesh, [0, -8, 1])
    assert not camera_inside_mesh(rc, mesh, [0, 0, 10])
    empty = SceneMesh.from_trimesh_parts([])
    assert not camera_inside_mesh(Raycaster(empty), empty, [0, 0, 0])


def test_fibonacci_sphere_unit_and_balanced():
    d = fibonacci_sphere(64)
    np.testing.assert_allclose(np.linalg.norm(d, axis=1), 1.0, atol=1e-12)
    assert np.linalg.norm(d.mean(axis=0)) < 0.05


def test_frame_and_occlusion_fractions_of_given_points():
    """Half of a card's points are outside the frame; of the rest, a blocker hides half."""
    from geometry.raycast import frame_and_occlusion_fractions

    card = trimesh.creation.box(extents=(2.0, 1.0, 0.01))
    card.apply_translation((0.0, 0.0, 5.0))
    blocker = trimesh.creation.box(extents=(0.5, 2.0, 0.01))
    blocker.apply_translation((0.25, 0.0, 3.0))
    mesh = SceneMesh.from_trimesh_parts([(1, "card", card), (2, "blocker", blocker)])
    K = np.array([[100.0, 0, 99.5], [0, 100.0, 99.5], [0, 0, 1]])
    T = np.eye(4)
    pts = np.array([[x, 0.0, 4.99] for x in (-0.9, -0.45, 0.1, 0.4)] + [[x, 0.0, 4.99] for x in (6.0, 7.0, 8.0, 9.0)])
    f_in, f_unocc = frame_and_occlusion_fractions(Raycaster(mesh), pts, 1, K, T, 200, 200)
    assert f_in == 0.5
    assert f_unocc == 0.5
    assert frame_and_occlusion_fractions(Raycaster(mesh), pts[4:], 1, K, T, 200, 200) == (0.0, 0.0)
