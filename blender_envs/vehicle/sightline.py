"""Whether a field pose is one a photographer could take in a full lot (vehicle-8; no bpy).

Once neighbours park next to the subject (`lot.sample_neighbours`), the clear disc no
longer proves that the phone stands in free space with a clear view. The pose samplers
of car_view and damage_view therefore ask `pose_problem` and redraw a pose that fails:

* the camera stands at least `CLEARANCE_M` (horizontally) from every other car's box and
  every lamp post: nobody photographs from inside a car or pressed against one;
* no segment from the camera to a target point (car_view: every hull point of the subject;
  damage_view: the site and its neighbouring panels) meets another car's box or a lamp post.

Every other car is stood in for by the box round its `body.hull_points` (everything its
builder draws, mirrors and tyres included) grown by `BOX_PAD_M`, so "no box met" proves "no
car in the way" for the rendered meshes; the rule is conservative (a box is larger than its
car's rounded shape). This is not a Table 1 term: the redraw is a documented deviation of the
field-pose distribution (docs/deviations.md).
"""
from __future__ import annotations

import numpy as np

from blender_envs.vehicle.body import Body, Placement, hull_points
from blender_envs.vehicle.lot import LotSpec
from geometry.boxes import UprightBoxes, boxes_within, point_box_distance_xy, segments_hit_boxes, upright_boxes

CLEARANCE_M = 0.5            # the camera keeps this far (horizontally) from every other car and lamp post
BOX_PAD_M = 0.02             # an occluder box is its car's hull box grown by this
LAMP_POST_RADIUS_M = 0.25    # the lamp's footing (lot_build.lamp_part); the pole is 0.08 m
MAX_POSE_DRAWS = 400         # a sampler that finds no clear pose in this many draws raises


def _body_box(body: Body) -> tuple[float, float, float, float, float, float]:
    """(x centre, y centre, half x, half y, z_lo, z_hi) of the body's hull, car frame."""
    h = hull_points(body)
    lo, hi = h.min(axis=0) - BOX_PAD_M, h.max(axis=0) + BOX_PAD_M
    c = (lo + hi) / 2
    return float(c[0]), float(c[1]), float(hi[0] - c[0]), float(hi[1] - c[1]), float(min(lo[2], 0.0)), float(hi[2])


def _row(body_box, p: Placement) -> tuple:
    cx, cy, hx, hy, z0, z1 = body_box
    a = np.radians(p.yaw_deg)
    x = p.x + np.cos(a) * cx - np.sin(a) * cy
    y = p.y + np.sin(a) * cx + np.cos(a) * cy
    return (float(x), float(y), p.yaw_deg, hx, hy, z0, z1)


def other_cars(lot: LotSpec) -> list[tuple[Body, Placement]]:
    """Every parked car but the subject: distractors, neighbours and far cars (their template's body)."""
    out = [(c.body, c.placement) for c in lot.cars[1:]] + [(c.body, c.placement) for c in lot.neighbours]
    return out + [(lot.cars[f.template].body, f.placement) for f in lot.far_cars + lot.inner_far_cars]


def occluders(lot: LotSpec) -> UprightBoxes:
    """Boxes of every other car, then every lamp post (its footing's square, full height)."""
    cache: dict[int, tuple] = {}
    rows = []
    for body, p in other_cars(lot):
        key = id(body)
        if key not in cache:
            cache[key] = _body_box(body)
        rows.append(_row(cache[key], p))
    r = LAMP_POST_RADIUS_M
    rows += [(lamp.xy[0], lamp.xy[1], 0.0, r, r, 0.0, lamp.height_m) for lamp in lot.lamps]
    return upright_boxes(rows)


def pose_problem(boxes: UprightBoxes, eye, targets) -> str | None:
    """Why a camera at `eye` (world) cannot take the picture of the world points `targets`,
    or None: 'camera within CLEARANCE_M of a car or lamp', or 'k of n sight lines blocked'."""
    eye = np.asarray(eye, float)
    pts = np.vstack([eye[None, :2], np.asarray(targets, float).reshape(-1, 3)[:, :2]])
    boxes = boxes_within(boxes, pts.min(axis=0) - CLEARANCE_M, pts.max(axis=0) + CLEARANCE_M)
    # ^ exact cull: every segment lies in these points' bounds, every box within CLEARANCE_M of the eye meets them
    if len(boxes) and float(point_box_distance_xy(eye[:2], boxes).min()) < CLEARANCE_M:
        return f"camera within {CLEARANCE_M} m of a car or lamp"
    hit = segments_hit_boxes(eye, targets, boxes)
    if hit.any():
        return f"{int(hit.sum())} of {len(hit)} sight lines blocked"
    return None
