"""The triangle mesh of an `IndoorSpec` as plain data (no bpy): exactly the boxes and
quads `build.build` hands to Blender, with the same object ids and names.

Scorers and benchmarks that only need geometry (occupancy, ray casts, view annotations)
can then run on thousands of scenes without a Blender build; `tests/test_indoor_layout.py`
checks that its occupancy grid equals the grid of the Blender-exported mesh. Every built
object is included (floors, wall lines with their lintels, the ceiling, window panes with
their frame bars, each furniture piece); nothing is skipped. Only the split of each quad
into two triangles may differ from Blender's, which changes no surface.
"""
from __future__ import annotations

import numpy as np

from blender_envs.indoor.layout import DOOR_HEIGHT, WALL_T, IndoorSpec, piece_matrix
from geometry.mesh_parts import box_triangles
from geometry.raycast import SceneMesh

FLOOR_THICKNESS = 0.05      # as build.FLOOR_THICKNESS (build.py imports bpy, so it is not imported)
CEILING_THICKNESS = 0.05
WINDOW_BAR_M, WINDOW_MULLION_M, WINDOW_DEPTH_M = 0.05, 0.02, 0.015


def object_table(spec: IndoorSpec) -> list[tuple[str, str]]:
    """(name, category) of every built object in pass-index order (id = position + 1); `build` uses it too."""
    out = [(f"floor_{k}", "floor") for k in range(len(spec.rooms))]
    out += [(w.name, "wall") for w in spec.walls]
    out += [("ceiling", "ceiling")]
    out += [(f"window_{k}", "window") for k in range(len(spec.windows))]
    out += [(f.name, f.category) for f in spec.furniture]
    return out


def _window_part(win) -> tuple[np.ndarray, np.ndarray]:
    """The pane quad and the six frame bars of one window, in world coordinates."""
    n = np.array([*win.normal, 0.0])
    t = np.array([-n[1], n[0], 0.0])
    M = np.eye(4)
    M[:3, 0], M[:3, 1], M[:3, 2], M[:3, 3] = t, (0, 0, 1), n, (*win.centre, (win.z0 + win.z1) / 2)
    hw, hh = win.width / 2, (win.z1 - win.z0) / 2
    b, m, dz = WINDOW_BAR_M, WINDOW_MULLION_M, WINDOW_DEPTH_M
    bars = [(-hw, -hh, hw, -hh + b), (-hw, hh - b, hw, hh), (-hw, -hh, -hw + b, hh), (hw - b, -hh, hw, hh),
            (-m, -hh, m, hh), (-hw, 0.15 * hh - m, hw, 0.15 * hh + m)]
    quad = np.array([[-hw, -hh, 0], [hw, -hh, 0], [hw, hh, 0], [-hw, hh, 0]], float) @ M[:3, :3].T + M[:3, 3]
    Vb, Fb = box_triangles([(x0, y0, 0.0, x1, y1, dz) for x0, y0, x1, y1 in bars], M)
    return np.vstack([quad, Vb]), np.vstack([[[0, 1, 2], [0, 2, 3]], Fb + 4])


def object_parts(spec: IndoorSpec) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """name -> (world vertices, triangles) of every built object."""
    H = spec.wall_height_m
    W, D = spec.plan_size
    parts: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for k, room in enumerate(spec.rooms):
        x0, y0, x1, y1 = room.cell
        parts[f"floor_{k}"] = box_triangles([(x0, y0, -FLOOR_THICKNESS, x1, y1, 0.0)])
    for w in spec.walls:
        rects = [(r[0], r[1], 0.0, r[2], r[3], H) for r in w.segments]
        for d in w.doorways:  # the lintel over the opening
            if d.axis == "x":
                rects.append((d.at - WALL_T / 2, d.lo, DOOR_HEIGHT, d.at + WALL_T / 2, d.hi, H))
            else:
                rects.append((d.lo, d.at - WALL_T / 2, DOOR_HEIGHT, d.hi, d.at + WALL_T / 2, H))
        parts[w.name] = box_triangles(rects)
    parts["ceiling"] = box_triangles([(-WALL_T, -WALL_T, H, W + WALL_T, D + WALL_T, H + CEILING_THICKNESS)])
    for k, win in enumerate(spec.windows):
        parts[f"window_{k}"] = _window_part(win)
    for f in spec.furniture:
        parts[f.name] = box_triangles([(*b.lo, *b.hi) for b in f.boxes], piece_matrix(f))
    return parts


def spec_mesh(spec: IndoorSpec) -> SceneMesh:
    """The scene mesh with object id = pass index = position in `object_table` + 1."""
    parts = object_parts(spec)
    V, F, OID, off = [], [], [], 0
    table = object_table(spec)
    for k, (name, _) in enumerate(table):
        v, f = parts[name]
        V.append(v)
        F.append(f + off)
        OID.append(np.full(len(f), k + 1, np.int32))
        off += len(v)
    return SceneMesh(vertices=np.concatenate(V), triangles=np.concatenate(F), tri_object_id=np.concatenate(OID),
                     object_ids=np.arange(1, len(table) + 1, dtype=np.int32),
                     object_names=np.array([n for n, _ in table]))


def spec_objects(spec: IndoorSpec):
    """The `SceneObject` list `build.build` returns (id = pass index), for a SceneState."""
    from geometry.scene import SceneObject

    return [SceneObject(id=k + 1, name=n, category=c, pass_index=k + 1) for k, (n, c) in enumerate(object_table(spec))]
