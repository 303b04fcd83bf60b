"""2-D convex polygon helpers on the floor plane (no bpy): rectangles, rotations, the
separating-axis intersection test and point / polygon distances.

Floor-plan generators place furniture with them and scorers measure clearances with the
same code, so a label and the layout that produced it never disagree. Polygons are
(n, 2) float arrays, counter-clockwise.
"""
from __future__ import annotations

import math

import numpy as np


def rect_poly(r) -> np.ndarray:
    """The (4, 2) corners of an axis-aligned rectangle [x0, y0, x1, y1], counter-clockwise."""
    x0, y0, x1, y1 = r
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)


def rot2(yaw_deg: float) -> np.ndarray:
    """The 2x2 rotation by yaw_deg degrees counter-clockwise."""
    c, s = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    return np.array([[c, -s], [s, c]])


def oriented_rect(center, width: float, depth: float, yaw_deg: float) -> np.ndarray:
    """(4, 2) corners of a width x depth rectangle rotated by yaw_deg about its centre,
    counter-clockwise."""
    w, d = width, depth
    local = np.array([[-w / 2, -d / 2], [w / 2, -d / 2], [w / 2, d / 2], [-w / 2, d / 2]])
    return local @ rot2(yaw_deg).T + np.asarray(center, float)


def _axes(P: np.ndarray) -> np.ndarray:
    e = np.roll(P, -1, axis=0) - P
    n = np.stack([-e[:, 1], e[:, 0]], 1)
    return n / np.linalg.norm(n, axis=1, keepdims=True)


def polys_intersect(A: np.ndarray, B: np.ndarray, min_overlap: float = -1e-12) -> bool:
    """Separating-axis test of two convex polygons: they intersect unless, along some edge normal,
    one ends less than `min_overlap` metres into the other (by default touching counts as
    intersecting; a positive `min_overlap` asks for that much overlap, e.g. faces lying on each other)."""
    for ax in np.vstack([_axes(A), _axes(B)]):
        a, b = A @ ax, B @ ax
        if a.max() < b.min() + min_overlap or b.max() < a.min() + min_overlap:
            return False
    return True


def point_segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance of points p (N, 2) to segment ab."""
    ab = b - a
    t = np.clip(((p - a) @ ab) / max(float(ab @ ab), 1e-18), 0.0, 1.0)
    return np.linalg.norm(p - (a + t[:, None] * ab), axis=1)


def point_poly_distance(p, P: np.ndarray) -> np.ndarray:
    """Distance of points (N, 2) to a convex polygon; 0 inside."""
    p = np.atleast_2d(np.asarray(p, float))
    d = np.min([point_segment_distance(p, P[i], P[(i + 1) % len(P)]) for i in range(len(P))], axis=0)
    inside = np.ones(len(p), bool)
    for i in range(len(P)):
        e = P[(i + 1) % len(P)] - P[i]
        inside &= (e[0] * (p[:, 1] - P[i, 1]) - e[1] * (p[:, 0] - P[i, 0])) >= 0
    return np.where(inside, 0.0, d)


def poly_distance(A: np.ndarray, B: np.ndarray) -> float:
    """Smallest distance between two convex polygons (0 when they intersect)."""
    if polys_intersect(A, B):
        return 0.0
    return float(min(point_poly_distance(A, B).min(), point_poly_distance(B, A).min()))


def nearest_poly_distance(xy, polys) -> np.ndarray:
    """Distance from points (N, 2) to the nearest of several convex polygons."""
    p = np.atleast_2d(np.asarray(xy, float))
    return np.min([point_poly_distance(p, P) for P in polys], axis=0)
