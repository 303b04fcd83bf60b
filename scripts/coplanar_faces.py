"""Find faces that lie on each other in a built scene: the surfaces Cycles shades black.

Two triangles that face the same way in one plane and overlap shade each other black in Cycles
(every shadow and bounce ray leaving one hits the other) and make the object-index pass noise
where they meet (docs/design-notes.md, "No two surfaces lie on each other"). This builds scene
`SCENE` of `ENV` (seed 0) in Blender, exports its triangles as the farm does, and prints the
object pairs with such overlaps, most first; faces pointing down are left out (they lie on the
ground, where no camera sees them).

    .venv/bin/python scripts/coplanar_faces.py ENV [SCENE] [--top 12]
"""
from __future__ import annotations

import argparse
import collections
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from geometry.polygons import polys_intersect  # noqa: E402

PLANE_M = 1e-4      # faces within 0.1 mm of one plane count as lying in it
OVERLAP_M = 1e-4    # and overlap when no separating axis leaves them apart by more than this


def same_facing_overlaps(tris: np.ndarray, eps: float = OVERLAP_M) -> list[tuple[int, int]]:
    """Index pairs of triangles ((n, 3, 3) corners) facing the same way in one plane (to
    PLANE_M) that overlap by more than `eps` (a separating-axis test with that margin). Triangles
    are grouped by plane, then swept in x."""
    n = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    length = np.linalg.norm(n, axis=1)
    keep = np.nonzero(length > 2e-6)[0]            # degenerate slivers have no plane
    n = n[keep] / length[keep, None]
    key = np.round(np.c_[n * 1e3, np.einsum("ij,ij->i", n, tris[keep, 0]) / PLANE_M]).astype(np.int64)
    groups: dict[tuple, list[int]] = collections.defaultdict(list)
    for i, k in enumerate(map(tuple, key)):
        groups[k].append(i)
    pairs = []
    for members in groups.values():
        if len(members) < 2:
            continue
        normal = n[members[0]]
        u = np.cross(normal, [0.0, 0.0, 1.0] if abs(normal[2]) < 0.9 else [1.0, 0.0, 0.0])
        u /= np.linalg.norm(u)
        v = np.cross(normal, u)
        Q = np.stack([tris[keep[members]] @ u, tris[keep[members]] @ v], -1)
        lo, hi = Q.min(1), Q.max(1)
        order = np.argsort(lo[:, 0], kind="stable")
        for i, a in enumerate(order):
            for b in order[i + 1:]:
                if lo[b, 0] >= hi[a, 0] - eps:
                    break
                if lo[b, 1] < hi[a, 1] - eps and lo[a, 1] < hi[b, 1] - eps and polys_intersect(Q[a], Q[b], eps):
                    pairs.append((int(keep[members[a]]), int(keep[members[b]])))
    return pairs


def part_triangles(V, F) -> np.ndarray:
    """Fan triangles of a mesh part's polygons, as (n, 3, 3) corners."""
    V = np.asarray(V, float)
    return np.array([[V[f[0]], V[f[k]], V[f[k + 1]]] for f in F for k in range(1, len(f) - 1)])


def scene_report(env: str, scene_index: int) -> collections.Counter:
    """(object name, object name) -> overlapping pairs of upward- or sideways-facing triangles."""
    from blender_envs.core.mesh_export import export_world_triangles
    from render_farm.job import build_scene
    from render_farm.plan import SceneJob

    job = SceneJob(env=env, root_seed=0, stratum="random", scene_index=scene_index,
                   scene_id=f"random-{scene_index:05d}", views=[0], run_dir=tempfile.mkdtemp(),
                   quality=dict(name="scan", long_side_px=64, samples=1, pass_samples=1), device="cpu")
    scene, _, _ = build_scene(job)
    ex = export_world_triangles(scene)
    tris = ex["vertices"].astype(np.float64)[ex["triangles"]]
    up = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])[:, 2] >= 0.0
    names = dict(zip(ex["object_ids"].tolist(), ex["object_names"].tolist()))
    oid = ex["tri_object_id"]
    found: collections.Counter = collections.Counter()
    for a, b in same_facing_overlaps(tris[up]):
        ia, ib = np.nonzero(up)[0][[a, b]]
        found[tuple(sorted((names[int(oid[ia])], names[int(oid[ib])])))] += 1
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("env")
    ap.add_argument("scene", nargs="?", type=int, default=0)
    ap.add_argument("--top", type=int, default=12)
    a = ap.parse_args()
    from blender_envs.registry import known_environments

    if a.env not in known_environments():
        sys.stderr.write(f"coplanar_faces: unknown environment {a.env!r}\n")
        raise SystemExit(2)
    found = scene_report(a.env, a.scene)
    print(f"{a.env} scene {a.scene}: {sum(found.values())} overlapping pairs of faces lying on each other")
    for (x, y), count in found.most_common(a.top):
        print(f"  {count:6d}  {x} / {y}")


if __name__ == "__main__":
    main()
