"""Ray casting against the world-space scene mesh the Blender side exports.

Scorers and sanity checks need to know what the camera actually sees (which
object is in front, how much of it is in frame, how big it is on screen) without
re-running Blender. Everything here works on the exported triangle soup
(`SceneMesh`) with open3d's Embree-backed `RaycastingScene`.

Camera convention (OpenCV): +x right, +y down, +z forward; `K` is 3x3 with
integer pixel coordinates at pixel centres; `cam_to_world` is 4x4 and
x_cam = R^T (X - C). The tiny projection needed here is private on purpose so
this module does not depend on `geometry.camera`.
"""
from __future__ import annotations

from dataclasses import dataclass, asdict
from pathlib import Path
from typing import Iterable

import numpy as np

__all__ = [
    "SceneMesh",
    "Raycaster",
    "VisibilityStats",
    "sample_surface",
    "visible_mask",
    "in_frame_mask",
    "visibility_stats",
    "view_angle_deg",
    "px_per_unit",
    "camera_inside_mesh",
    "fibonacci_sphere",
]

_NEAR = 1e-6  # metres; points closer than this to the image plane are "behind"


# --------------------------------------------------------------------------- mesh


@dataclass
class SceneMesh:
    """World-space triangle soup with a per-triangle object id (= Blender pass_index)."""

    vertices: np.ndarray  # (V,3) float32, world space
    triangles: np.ndarray  # (F,3) int32, CCW seen from outside
    tri_object_id: np.ndarray  # (F,) int32, >= 1
    object_ids: np.ndarray  # (M,) int32
    object_names: np.ndarray  # (M,) unicode

    def __post_init__(self) -> None:
        # Normalise dtypes/shapes once so every consumer can rely on them.
        self.vertices = np.ascontiguousarray(self.vertices, dtype=np.float32).reshape(-1, 3)
        self.triangles = np.ascontiguousarray(self.triangles, dtype=np.int32).reshape(-1, 3)
        self.tri_object_id = np.ascontiguousarray(self.tri_object_id, dtype=np.int32).reshape(-1)
        self.object_ids = np.ascontiguousarray(self.object_ids, dtype=np.int32).reshape(-1)
        self.object_names = np.asarray(self.object_names, dtype=np.str_).reshape(-1)
        if len(self.tri_object_id) != len(self.triangles):
            raise ValueError("tri_object_id must have one entry per triangle")
        if len(self.object_ids) != len(self.object_names):
            raise ValueError("object_ids and object_names must have equal length")
        if len(self.triangles) and (
            self.triangles.min() < 0 or self.triangles.max() >= len(self.vertices)
        ):
            raise ValueError("triangle index out of range")
        if np.any(self.tri_object_id < 1):
            raise ValueError("object ids must be >= 1 (0 means 'no hit')")

    # ---- io

    @classmethod
    def load(cls, path: str | Path) -> "SceneMesh":
        """Read the `.npz` written by the Blender side (no pickle)."""
        with np.load(Path(path), allow_pickle=False) as z:
            return cls(
                vertices=z["vertices"],
                triangles=z["triangles"],
                tri_object_id=z["tri_object_id"],
                object_ids=z["object_ids"],
                object_names=z["object_names"],
            )

    def save(self, path: str | Path) -> None:
        """Write the `.npz` at exactly `path` (a file handle stops numpy appending '.npz')."""
        with open(Path(path), "wb") as fh:
            np.savez(
                fh,
                vertices=self.vertices,
                triangles=self.triangles,
                tri_object_id=self.tri_object_id,
                object_ids=self.object_ids,
                object_names=self.object_names,
            )

    @classmethod
    def from_trimesh_parts(cls, parts: Iterable[tuple[int, str, "object"]]) -> "SceneMesh":
        """Concatenate `(object_id, name, trimesh.Trimesh)` parts; one id may span several parts."""
        verts, tris, tri_ids = [], [], []
        names: dict[int, str] = {}
        offset = 0
        for oid, name, tm in parts:
            oid = int(oid)
            if oid < 1:
                raise ValueError("object ids must be >= 1")
            if names.setdefault(oid, str(name)) != str(name):
                raise ValueError(f"object id {oid} used with two names")
            v = np.asarray(tm.vertices, dtype=np.float64).reshape(-1, 3)
            f = np.asarray(tm.faces, dtype=np.int64).reshape(-1, 3)
            verts.append(v)
            tris.append(f + offset)
            tri_ids.append(np.full(len(f), oid, dtype=np.int32))
            offset += len(v)
        ids = np.array(sorted(names), dtype=np.int32)
        return cls(
            vertices=np.concatenate(verts) if verts else np.zeros((0, 3)),
            triangles=np.concatenate(tris) if tris else np.zeros((0, 3)),
            tri_object_id=np.concatenate(tri_ids) if tri_ids else np.zeros(0),
            object_ids=ids,
            object_names=np.array([names[i] for i in ids], dtype=np.str_),
        )

    # ---- queries

    def object_face_indices(self, oid: int) -> np.ndarray:
        """Indices into `triangles` of the faces belonging to object `oid`."""
        return np.flatnonzero(self.tri_object_id == int(oid))

    def object_triangles(self, oid: int) -> np.ndarray:
        """(k,3) vertex-index rows of object `oid`'s triangles."""
        return self.triangles[self.object_face_indices(oid)]

    def object_name(self, oid: int) -> str:
        hit = np.flatnonzero(self.object_ids == int(oid))
        if not len(hit):
            raise KeyError(f"no object with id {oid}")
        return str(self.object_names[hit[0]])

    def _corners(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        v = self.vertices.astype(np.float64)
        t = self.triangles
        return v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]

    def _cross(self) -> np.ndarray:
        a, b, c = self._corners()
        return np.cross(b - a, c - a)

    def face_normals(self) -> np.ndarray:
        """(F,3) unit normals from the winding (outward for closed meshes); zero if degenerate."""
        n = self._cross()
        ln = np.linalg.norm(n, axis=1, keepdims=True)
        return np.divide(n, ln, out=np.zeros_like(n), where=ln > 0)

    def face_areas(self) -> np.ndarray:
        """(F,) triangle areas in square metres."""
        return 0.5 * np.linalg.norm(self._cross(), axis=1)


# ------------------------------------------------------------------- raycaster


class Raycaster:
    """First-hit queries over a `SceneMesh`, built once (BVH build is the costly part)."""

    def __init__(self, mesh: SceneMesh, nthreads: int = 0):
        self.mesh = mesh
        self.nthreads = int(nthreads)
        self._build()

    def _build(self) -> None:
        import open3d as o3d

        mesh = self.mesh
        # float64 copies used to refine open3d's float32 hit distances.
        a, b, c = mesh._corners()
        self._v0 = a
        self._n_raw = np.cross(b - a, c - a)
        self._n_unit = mesh.face_normals()
        self._scene = None
        if len(mesh.triangles):
            scene = o3d.t.geometry.RaycastingScene()
            scene.add_triangles(
                o3d.core.Tensor(np.ascontiguousarray(mesh.vertices, dtype=np.float32)),
                o3d.core.Tensor(np.ascontiguousarray(mesh.triangles, dtype=np.uint32)),
            )
            self._scene = scene

    # open3d scenes do not pickle; rebuild on the other side (e.g. a worker process).
    def __getstate__(self):
        return {"mesh": self.mesh, "nthreads": self.nthreads}

    def __setstate__(self, state):
        self.mesh = state["mesh"]
        self.nthreads = state["nthreads"]
        self._build()

    def cast(
        self, origins: np.ndarray, dirs: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """First hit per ray: (t_hit metres, inf on miss; object_id, 0; tri_index, -1; normal, 0).

        `dirs` need not be unit: they are normalised, so `t_hit` is a distance in metres.
        Zero-length directions miss. The returned normal is the face's winding normal
        (not flipped toward the ray) so callers can tell front from back faces.
        """
        origins = np.asarray(origins, dtype=np.float64)
        dirs = np.asarray(dirs, dtype=np.float64)
        origins, dirs = np.broadcast_arrays(origins.reshape(-1, 3), dirs.reshape(-1, 3))
        n = len(dirs)
        t_hit = np.full(n, np.inf)
        oid = np.zeros(n, dtype=np.int32)
        tri = np.full(n, -1, dtype=np.int64)
        normal = np.zeros((n, 3))
        if n == 0 or self._scene is None:
            return t_hit, oid, tri, normal

        import open3d as o3d

        length = np.linalg.norm(dirs, axis=1)
        ok = length > 0
        d = np.zeros_like(dirs)
        d[ok] = dirs[ok] / length[ok, None]
        rays = np.concatenate([origins, d], axis=1).astype(np.float32)
        out = self._scene.cast_rays(o3d.core.Tensor(rays), nthreads=self.nthreads)
        t32 = out["t_hit"].numpy().astype(np.float64)
        prim = out["primitive_ids"].numpy().astype(np.int64)
        hit = ok & np.isfinite(t32) & (prim != o3d.t.geometry.RaycastingScene.INVALID_ID)
        idx = np.flatnonzero(hit)
        p = prim[idx]
        t = t32[idx]
        # Refine t in float64 against the hit triangle's plane (open3d works in float32).
        denom = np.einsum("ij,ij->i", self._n_raw[p], d[idx])
        numer = np.einsum("ij,ij->i", self._n_raw[p], self._v0[p] - origins[idx])
        cosang = np.abs(np.einsum("ij,ij->i", self._n_unit[p], d[idx]))
        good = cosang > 1e-6
        t_ref = np.divide(numer, denom, out=t.copy(), where=good & (denom != 0))
        # Keep the refinement only where it agrees with the coarse hit (guards grazing rays).
        agree = np.abs(t_ref - t) <= 1e-3 * np.maximum(t, 1.0)
        t = np.where(good & agree & (t_ref >= 0), t_ref, t)
        t_hit[idx] = t
        tri[idx] = p
        oid[idx] = self.mesh.tri_object_id[p]
        normal[idx] = self._n_unit[p]
        return t_hit, oid, tri, normal

    def first_hit_ids_for_pixels(
        self, K: np.ndarray, cam_to_world: np.ndarray, width: int, height: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Ray-cast 'render' through pixel centres: (id image int32, planar depth float32, inf on miss).

        Planar depth is the camera-z distance (what a Z pass stores), not the ray length.
        """
        width, height = int(width), int(height)
        u, v = np.meshgrid(np.arange(width, dtype=np.float64), np.arange(height, dtype=np.float64))
        pix = np.stack([u.ravel(), v.ravel(), np.ones(u.size)], axis=0)
        d_cam = np.linalg.solve(np.asarray(K, dtype=np.float64), pix).T  # z == 1
        d_cam = d_cam / d_cam[:, 2:3]
        R, C = _split_pose(cam_to_world)
        d_world = d_cam @ R.T
        t, oid, _, _ = self.cast(C[None, :], d_world)
        depth = t / np.linalg.norm(d_cam, axis=1)  # t * cos(angle to optical axis)
        return (
            oid.reshape(height, width).astype(np.int32),
            depth.reshape(height, width).astype(np.float32),
        )


# ----------------------------------------------------------------- camera bits


def _split_pose(cam_to_world: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m = np.asarray(cam_to_world, dtype=np.float64)
    return m[:3, :3], m[:3, 3]


def _project(points: np.ndarray, K: np.ndarray, cam_to_world: np.ndarray):
    """(u, v, z_cam) for world points; u, v are nan where z <= 0."""
    R, C = _split_pose(cam_to_world)
    x = (np.asarray(points, dtype=np.float64).reshape(-1, 3) - C) @ R  # = R^T (X - C)
    z = x[:, 2]
    K = np.asarray(K, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        pix = x @ K.T
        zz = np.where(z > 0, pix[:, 2], np.nan)
        u = pix[:, 0] / zz
        v = pix[:, 1] / zz
    return u, v, z


def in_frame_mask(
    points: np.ndarray,
    K: np.ndarray,
    cam_to_world: np.ndarray,
    width: int,
    height: int,
    near: float = _NEAR,
) -> np.ndarray:
    """True where a point is in front of the camera and inside the image rectangle.

    Pixel i covers [i-0.5, i+0.5), so the frame is -0.5 <= u < W-0.5, -0.5 <= v < H-0.5.
    """
    u, v, z = _project(points, K, cam_to_world)
    with np.errstate(invalid="ignore"):
        return (
            (z > near)
            & (u >= -0.5)
            & (u < width - 0.5)
            & (v >= -0.5)
            & (v < height - 0.5)
        )


# ------------------------------------------------------------------- sampling


def sample_surface(
    mesh: SceneMesh, object_id: int, n_interior: int = 2000, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Deterministic surface samples of one object: (points, normals, area weights).

    Rows are every vertex used by the object's triangles (extremal points, so a
    protruding corner is never missed) followed by `n_interior` area-weighted
    face-interior points (so thin/long parts are covered along their length, which
    corner-only sampling misses). Interior triangles are chosen by systematic
    sampling over the cumulative area (each face gets its area share to within one
    sample), positions by uniform barycentrics; the Generator is seeded from
    (seed, object_id), so equal inputs give identical output.

    Vertex normals are the area-weighted mean of incident face normals; weights are
    0 for vertices and area/n_interior for interior points (sum = object area).
    """
    faces = mesh.object_face_indices(object_id)
    if not len(faces):
        return np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0)
    tris = mesh.triangles[faces]
    verts = mesh.vertices.astype(np.float64)
    fn = mesh.face_normals()[faces]
    area = mesh.face_areas()[faces]

    # Vertices with area-weighted normals.
    vid, inv = np.unique(tris.ravel(), return_inverse=True)
    vn = np.zeros((len(vid), 3))
    np.add.at(vn, inv, np.repeat(fn * area[:, None], 3, axis=0))
    ln = np.linalg.norm(vn, axis=1, keepdims=True)
    vn = np.divide(vn, ln, out=np.zeros_like(vn), where=ln > 0)
    v_pts = verts[vid]

    total = float(area.sum())
    n_interior = int(n_interior) if total > 0 else 0
    if n_interior <= 0:
        return v_pts, vn, np.zeros(len(v_pts))

    ss = np.random.SeedSequence([int(seed) % (1 << 63), int(object_id) % (1 << 63)])
    rng = np.random.default_rng(ss)
    cum = np.cumsum(area)
    targets = (np.arange(n_interior) + rng.random()) * (total / n_interior)
    pick = np.minimum(np.searchsorted(cum, targets, side="right"), len(area) - 1)
    r1 = np.sqrt(rng.random(n_interior))
    r2 = rng.random(n_interior)
    a = verts[tris[pick, 0]]
    b = verts[tris[pick, 1]]
    c = verts[tris[pick, 2]]
    i_pts = (1 - r1)[:, None] * a + (r1 * (1 - r2))[:, None] * b + (r1 * r2)[:, None] * c
    i_nrm = fn[pick]

    points = np.concatenate([v_pts, i_pts])
    normals = np.concatenate([vn, i_nrm])
    weights = np.concatenate([np.zeros(len(v_pts)), np.full(n_interior, total / n_interior)])
    return points, normals, weights


# ----------------------------------------------------------------- visibility


def visible_mask(
    raycaster: Raycaster,
    cam_center: np.ndarray,
    points: np.ndarray,
    object_id: int,
    eps: float = 1e-3,
    abs_tol: float = 1e-5,
    self_occludes: bool = True,
) -> np.ndarray:
    """True where nothing lies between the camera centre and a surface point of `object_id`.

    With `self_occludes=False` the object's own near side does not hide its far side:
    a point counts as visible when the first hit is the object at all. That is
    RealityBench Table 2's "unoccluded" (the point is visible if the first hit is the
    target), i.e. not hidden by *another* object.

    A ray is cast toward each point. It is visible when the first hit is no nearer
    than dist*(1-eps) - abs_tol (so not the object's own near side, nor anything in
    front) and that hit is `object_id` itself. A miss, or a hit clearly beyond the
    point, also counts as visible: float32 rays can slip past a triangle edge at the
    target, and nothing was in between. A different object coincident with the point
    (contact surfaces) wins, as it would in the render's z-test tie.
    """
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    c = np.asarray(cam_center, dtype=np.float64).reshape(3)
    diff = points - c
    dist = np.linalg.norm(diff, axis=1)
    t, oid, _, _ = raycaster.cast(np.broadcast_to(c, points.shape), diff)
    not_in_front = t >= dist * (1.0 - eps) - abs_tol
    beyond = t > dist * (1.0 + eps) + abs_tol  # includes misses (inf)
    # A point at the camera centre has no ray direction: undefined, call it not visible.
    strict = not_in_front & ((oid == int(object_id)) | beyond)
    if not self_occludes:
        strict = strict | (oid == int(object_id))
    return strict & (dist > abs_tol)


@dataclass
class VisibilityStats:
    """How much of one object a camera sees; all fractions are over sample-point counts."""

    in_frame_fraction: float  # points in frame / all points
    unoccluded_fraction: float  # visible / in-frame points (0 if none in frame)
    visible_fraction: float  # in frame and visible / all points
    bbox_fraction: float  # clipped projected bbox of in-front points / frame area
    n_points: int

    def to_dict(self) -> dict:
        return asdict(self)


def visibility_stats(
    raycaster: Raycaster,
    mesh: SceneMesh,
    object_id: int,
    K: np.ndarray,
    cam_to_world: np.ndarray,
    width: int,
    height: int,
    n_interior: int = 2000,
    seed: int = 0,
    eps: float = 1e-3,
    self_occludes: bool = False,
) -> VisibilityStats:
    """Frame/occlusion/size summary of one object from `sample_surface` points."""
    pts, _, _ = sample_surface(mesh, object_id, n_interior=n_interior, seed=seed)
    n = len(pts)
    if n == 0:
        return VisibilityStats(0.0, 0.0, 0.0, 0.0, 0)
    _, C = _split_pose(cam_to_world)
    inf = in_frame_mask(pts, K, cam_to_world, width, height)
    vis = np.zeros(n, dtype=bool)
    if inf.any():
        vis[inf] = visible_mask(raycaster, C, pts[inf], object_id, eps=eps, self_occludes=self_occludes)
    n_in = int(inf.sum())

    u, v, z = _project(pts, K, cam_to_world)
    front = z > _NEAR
    bbox = 0.0
    if front.any():
        u0 = np.clip(u[front].min(), -0.5, width - 0.5)
        u1 = np.clip(u[front].max(), -0.5, width - 0.5)
        v0 = np.clip(v[front].min(), -0.5, height - 0.5)
        v1 = np.clip(v[front].max(), -0.5, height - 0.5)
        bbox = float((u1 - u0) * (v1 - v0) / (width * height))
    return VisibilityStats(
        in_frame_fraction=n_in / n,
        unoccluded_fraction=float(vis.sum() / n_in) if n_in else 0.0,
        visible_fraction=float(vis.sum() / n),
        bbox_fraction=bbox,
        n_points=n,
    )


# ------------------------------------------------------------ view geometry


def view_angle_deg(cam_center: np.ndarray, point: np.ndarray, normal: np.ndarray):
    """Angle (deg) between the point->camera ray and the normal; 0 = square-on.

    Two-sided (uses |cos|), so the result is in [0, 90] whatever the winding.
    Broadcasts over leading dimensions; returns a float for single inputs.
    """
    c = np.asarray(cam_center, dtype=np.float64)
    p = np.asarray(point, dtype=np.float64)
    nrm = np.asarray(normal, dtype=np.float64)
    to_cam = c - p
    denom = np.linalg.norm(to_cam, axis=-1) * np.linalg.norm(nrm, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        cosang = np.abs(np.sum(to_cam * nrm, axis=-1)) / denom
    ang = np.degrees(np.arccos(np.clip(cosang, 0.0, 1.0)))
    return float(ang) if np.ndim(ang) == 0 else ang


def px_per_unit(
    K: np.ndarray,
    cam_to_world: np.ndarray,
    point: np.ndarray,
    direction: np.ndarray,
    length: float = 1.0,
) -> float:
    """Pixel length of a `length`-metre segment centred at `point` along `direction`.

    A symmetric finite segment rather than a derivative, so foreshortening and
    perspective are both included. nan if either end is behind the camera.
    """
    p = np.asarray(point, dtype=np.float64).reshape(3)
    d = np.asarray(direction, dtype=np.float64).reshape(3)
    nd = np.linalg.norm(d)
    if nd == 0:
        raise ValueError("direction must be non-zero")
    half = 0.5 * float(length) * d / nd
    u, v, z = _project(np.stack([p - half, p + half]), K, cam_to_world)
    if np.any(z <= _NEAR):
        return float("nan")
    return float(np.hypot(u[1] - u[0], v[1] - v[0]))


def fibonacci_sphere(n: int) -> np.ndarray:
    """(n,3) near-uniform unit directions; fixed, so checks are reproducible without an RNG."""
    n = int(n)
    i = np.arange(n, dtype=np.float64) + 0.5
    z = 1.0 - 2.0 * i / n
    r = np.sqrt(np.maximum(0.0, 1.0 - z * z))
    phi = i * np.pi * (3.0 - np.sqrt(5.0))
    return np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=1)


def camera_inside_mesh(
    raycaster: Raycaster, mesh: SceneMesh, cam_center: np.ndarray, n_dirs: int = 64
) -> bool:
    """True if the camera appears to sit inside a closed mesh (render sanity check).

    From inside, most rays first hit a back face (normal along the ray); from
    outside, most hit front faces. Votes over a fixed Fibonacci sphere of rays; a
    majority of the rays that hit anything must be back-face hits.
    """
    dirs = fibonacci_sphere(n_dirs)
    c = np.asarray(cam_center, dtype=np.float64).reshape(1, 3)
    t, _, tri, _ = raycaster.cast(np.broadcast_to(c, dirs.shape), dirs)
    hit = tri >= 0
    if not hit.any():
        return False
    fn = mesh.face_normals()[tri[hit]]
    back = np.einsum("ij,ij->i", fn, dirs[hit]) > 0
    return bool(back.sum() > 0.5 * hit.sum())


def frame_and_occlusion_fractions(
    raycaster: Raycaster,
    points: np.ndarray,
    object_id: int,
    K: np.ndarray,
    cam_to_world: np.ndarray,
    width: int,
    height: int,
) -> tuple[float, float]:
    """(in-frame fraction, Table 2 unoccluded fraction of the in-frame ones) of given
    target points, e.g. a tape crossing or a label's grid; 0 when none is in frame."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    if len(points) == 0:
        return 0.0, 0.0
    inside = in_frame_mask(points, K, cam_to_world, width, height)
    if not inside.any():
        return 0.0, 0.0
    _, C = _split_pose(np.asarray(cam_to_world, dtype=np.float64))
    seen = visible_mask(raycaster, C, points[inside], object_id, self_occludes=False)
    return float(inside.mean()), float(seen.mean())
