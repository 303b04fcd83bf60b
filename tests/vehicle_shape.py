"""Vehicle-5 body test helper: the area a vertical panel loses to its crowned top band
(an integral along the rectangle's top edge, which the shaped meshes' areas are checked
against; kept out of blender_envs.vehicle.body, which no production code needs it in)."""
from __future__ import annotations

import numpy as np

from blender_envs.vehicle import body as B


def top_band_loss_m2(body: B.Body, rect: B.PanelRect, n: int = 4001) -> float:
    """Area (m^2) a vertical rectangle loses seen square-on because its top band comes down to
    the crowned edge: the integral of the edge's drop along its top (0 below the beltline).
    Trapezoids on n points along the rectangle's top edge, not on the mesh: the shaped meshes'
    area check of test_panel_shape and test_damage_view."""
    c = np.asarray(rect.center, float)
    if abs(c[2] + rect.half_v - body.beltline_m) > 1e-9:
        return 0.0
    if rect.face in B.SIDES:
        s = np.linspace(c[0] - rect.half_u, c[0] + rect.half_u, n)
        d = B.outline_drop(body, s)
    else:
        s = np.linspace(-rect.half_u, rect.half_u, n)
        d = B.end_edge_drop(body, rect.face, s, body.beltline_m)
    return float(np.sum((d[1:] + d[:-1]) / 2 * np.diff(s)))
