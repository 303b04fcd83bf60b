"""Segments against boxes that stand upright on the ground (yawed about +z): the exact
slab test, vectorised over segments x boxes. Pure numpy.

Used where a conservative stand-in for a mesh is enough: a box that bounds an object
blocks every segment the object blocks (and a few more), so "no box hit" proves "no
object hit" without a ray cast against the mesh.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class UprightBoxes:
    """N boxes: centre (x, y) on the ground, yaw about +z (deg), half extents along the
    box's own x and y, and z from z_lo to z_hi."""

    center_xy: np.ndarray      # (N, 2)
    yaw_deg: np.ndarray        # (N,)
    half_xy: np.ndarray        # (N, 2)
    z_lo: np.ndarray           # (N,)
    z_hi: np.ndarray           # (N,)

    def __len__(self) -> int:
        return len(self.yaw_deg)


def upright_boxes(rows: list[tuple[float, float, float, float, float, float, float]]) -> UprightBoxes:
    """Boxes from rows (x, y, yaw_deg, half_x, half_y, z_lo, z_hi)."""
    a = np.asarray(rows, float).reshape(-1, 7)
    if (a[:, 3:5] < 0).any() or (a[:, 6] < a[:, 5]).any():
        raise ValueError("a box has a negative half extent or z_hi < z_lo")
    return UprightBoxes(a[:, :2], a[:, 2], a[:, 3:5], a[:, 5], a[:, 6])


def boxes_within(boxes: UprightBoxes, lo_xy, hi_xy) -> UprightBoxes:
    """The boxes whose footprint's axis-aligned bounds meet the rectangle lo_xy..hi_xy (a
    conservative cull: a box left out meets nothing inside the rectangle)."""
    c, s = np.abs(np.cos(np.radians(boxes.yaw_deg))), np.abs(np.sin(np.radians(boxes.yaw_deg)))
    ext = np.stack([c * boxes.half_xy[:, 0] + s * boxes.half_xy[:, 1],
                    s * boxes.half_xy[:, 0] + c * boxes.half_xy[:, 1]], axis=-1)
    keep = ((boxes.center_xy + ext >= np.asarray(lo_xy, float)) &
            (boxes.center_xy - ext <= np.asarray(hi_xy, float))).all(axis=1)
    return UprightBoxes(boxes.center_xy[keep], boxes.yaw_deg[keep], boxes.half_xy[keep], boxes.z_lo[keep],
                        boxes.z_hi[keep])


def _to_box_frames(points: np.ndarray, boxes: UprightBoxes) -> np.ndarray:
    """(M, 3) world points -> (N, M, 3) in every box's frame (origin at its ground centre)."""
    c, s = np.cos(np.radians(boxes.yaw_deg)), np.sin(np.radians(boxes.yaw_deg))
    dx = points[None, :, 0] - boxes.center_xy[:, None, 0]
    dy = points[None, :, 1] - boxes.center_xy[:, None, 1]
    return np.stack([c[:, None] * dx + s[:, None] * dy, -s[:, None] * dx + c[:, None] * dy,
                     np.broadcast_to(points[None, :, 2], dx.shape)], axis=-1)


def segments_hit_boxes(start, ends, boxes: UprightBoxes) -> np.ndarray:
    """(M,) bool: does the closed segment from `start` (3,) to each of `ends` (M, 3) meet any box?

    The slab test on [0, 1] of the segment's parameter; a segment touching a face counts as a
    hit (conservative)."""
    ends = np.asarray(ends, float).reshape(-1, 3)
    if len(boxes) == 0:
        return np.zeros(len(ends), bool)
    p0 = _to_box_frames(np.asarray(start, float).reshape(1, 3), boxes)           # (N, 1, 3)
    p1 = _to_box_frames(ends, boxes)                                              # (N, M, 3)
    d = p1 - p0
    lo = np.stack([-boxes.half_xy[:, 0], -boxes.half_xy[:, 1], boxes.z_lo], axis=-1)[:, None, :]
    hi = np.stack([boxes.half_xy[:, 0], boxes.half_xy[:, 1], boxes.z_hi], axis=-1)[:, None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        t0 = (lo - p0) / d
        t1 = (hi - p0) / d
    flat = d == 0.0
    inside = (p0 >= lo) & (p0 <= hi)                                              # parallel: inside the slab or never
    tmin = np.where(flat, np.where(inside, -np.inf, np.inf), np.minimum(t0, t1))
    tmax = np.where(flat, np.where(inside, np.inf, -np.inf), np.maximum(t0, t1))
    enter = np.maximum(tmin.max(axis=-1), 0.0)
    leave = np.minimum(tmax.min(axis=-1), 1.0)
    return (enter <= leave).any(axis=0)


def point_box_distance_xy(xy, boxes: UprightBoxes) -> np.ndarray:
    """(N,) horizontal distance from a point (x, y) to each box's footprint (0 inside)."""
    p = _to_box_frames(np.array([[float(xy[0]), float(xy[1]), 0.0]]), boxes)[:, 0, :2]
    d = np.maximum(np.abs(p) - boxes.half_xy, 0.0)
    return np.hypot(d[:, 0], d[:, 1])

