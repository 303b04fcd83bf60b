"""Per-frame track annotations of a clip: what each agent looks like in one frame.

Box convention (README, pixel centres at integer coordinates): a box is
[u_min, v_min, u_max, v_max] of pixel *centres*, so a one-pixel object is [u, v, u, v].
  * modal: the extreme pixel centres of the object's pixels in the object-index pass
    (null when it has none);
  * amodal: the projected box of the agent's whole 3-D box at t (its 8 corners in front
    of the camera), clipped to the image's centres [0, W-1] x [0, H-1] (null when it
    lies outside). Every modal pixel centre lies inside the projection, so amodal
    contains modal.
`visible_fraction` is the fraction of the agent's surface samples that are in frame
and not hidden by another object, by ray casting the scene as it stands at t.
"""
from __future__ import annotations

import numpy as np

from geometry.camera import project
from geometry.clip import agent_moves, mesh_at
from geometry.raycast import Raycaster, SceneMesh, visibility_stats
from geometry.timeline import Agent

NEAR_M = 1e-3


def modal_box(object_index: np.ndarray, oid: int) -> list[float] | None:
    vs, us = np.nonzero(object_index == oid)
    if not len(us):
        return None
    return [float(us.min()), float(vs.min()), float(us.max()), float(vs.max())]


def amodal_box(agent: Agent, t: float, K, cam_to_world, width: int, height: int) -> list[float] | None:
    uv, z = project(agent.box_corners(t), K, cam_to_world)
    uv = uv[z > NEAR_M]
    if not len(uv):
        return None
    u0, v0 = uv.min(axis=0)
    u1, v1 = uv.max(axis=0)
    if u1 < 0 or v1 < 0 or u0 > width - 1 or v0 > height - 1:
        return None
    # rounded outwards (beyond float noise), so the stored box still contains the modal one
    lo = np.floor(np.clip([u0, v0], 0, [width - 1, height - 1]) * 1e4 + 1e-6) / 1e4
    hi = np.ceil(np.clip([u1, v1], 0, [width - 1, height - 1]) * 1e4 - 1e-6) / 1e4
    return [float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])]


def frame_objects(agents: list[Agent], object_ids: dict[str, int], mesh: SceneMesh, t: float, K, cam_to_world,
                  width: int, height: int, object_index: np.ndarray | None) -> list[dict]:
    """One entry per agent for the frame at t (modal fields None before rendering)."""
    posed = mesh_at(mesh, agent_moves(agents, object_ids, t))
    rc = Raycaster(posed)
    out = []
    for a in agents:
        oid = object_ids[a.track_id]
        vis = visibility_stats(rc, posed, oid, K, cam_to_world, width, height)
        out.append({
            "track_id": a.track_id,
            "object_id": oid,
            "box_xyxy": None if object_index is None else modal_box(object_index, oid),
            "amodal_box_xyxy": amodal_box(a, t, K, cam_to_world, width, height),
            "visible_px": None if object_index is None else int((object_index == oid).sum()),
            "visible_fraction": round(float(vis.visible_fraction), 6),
            "center_world": [round(float(x), 6) for x in a.position(t)],
        })
    return out
