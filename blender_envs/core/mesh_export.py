"""Export world-space triangles with object ids (= pass_index) to an .npz.

The same id is written to the object-index pass, which ties every rendered mask pixel
to exported geometry; scorers ray-cast this file and never ask Blender.
"""
from __future__ import annotations

import numpy as np

from blender_envs.core.bpy_env import bpy


def export_world_triangles(scene) -> dict[str, np.ndarray]:
    depsgraph = bpy.context.evaluated_depsgraph_get()
    V, F, OID, ids, names, off = [], [], [], [], [], 0
    for ob in sorted(scene.objects, key=lambda o: o.pass_index):
        if ob.type != "MESH" or ob.pass_index <= 0 or ob.hide_render:
            continue
        ob_eval = ob.evaluated_get(depsgraph)
        me = ob_eval.to_mesh()
        try:
            me.calc_loop_triangles()
            co = np.empty(len(me.vertices) * 3, np.float32)
            me.vertices.foreach_get("co", co)
            tri = np.empty(len(me.loop_triangles) * 3, np.int32)
            me.loop_triangles.foreach_get("vertices", tri)
            M = np.array(ob_eval.matrix_world, dtype=np.float64)
            co64 = co.reshape(-1, 3).astype(np.float64) @ M[:3, :3].T + M[:3, 3]
            if np.linalg.det(M[:3, :3]) < 0:  # a mirroring transform flips the winding
                tri = tri.reshape(-1, 3)[:, ::-1].ravel()
        finally:
            ob_eval.to_mesh_clear()
        V.append(co64.astype(np.float32))
        F.append(tri.reshape(-1, 3) + off)
        OID.append(np.full(len(tri) // 3, ob.pass_index, np.int32))
        if ob.pass_index not in ids:
            ids.append(ob.pass_index)
            names.append(ob.name)
        off += len(co64)
    if not V:
        raise RuntimeError("scene has no mesh objects with a pass_index to export")
    return {
        "vertices": np.concatenate(V),
        "triangles": np.concatenate(F).astype(np.int32),
        "tri_object_id": np.concatenate(OID),
        "object_ids": np.array(ids, np.int32),
        "object_names": np.array(names),
    }
