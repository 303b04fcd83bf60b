"""The `calib` scene as data: a ground plane, three boxes, a thin pole and a printed
checkerboard card at known positions, photographed by a drawn phone from around them.

Geometry is fixed so every convention (axes, intrinsics, depth, masks) can be checked
against exact numbers; colours, the sun and the phone are drawn per scene.
"""
from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel, ConfigDict

from geometry.camera import Phone, look_at, sample_phone, sample_phone_pose
from geometry.scene import SceneSpec, View

GENERATOR_VERSION = "calib-1"


class BoxSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    center: list[float]          # world, metres (z = half the height: it sits on the ground)
    size: list[float]            # x, y, z extents before yaw
    yaw_deg: float
    color: list[float]


class PoleSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = "pole"
    base: list[float]
    radius: float
    height: float
    color: list[float]


class CardSpec(BaseModel):
    """A printed checkerboard (squares_u x squares_v) facing -y, on a stand."""

    model_config = ConfigDict(extra="forbid")
    name: str = "card"
    center: list[float]
    width: float
    height: float
    squares_u: int
    squares_v: int


class CalibSpec(SceneSpec):
    ground_size: float
    ground_color: list[float]
    boxes: list[BoxSpec]
    pole: PoleSpec
    card: CardSpec
    sun_elevation_deg: float
    sun_azimuth_deg: float
    phone: Phone


def sample_scene(rng: np.random.Generator, scene_id: str, seed: int) -> CalibSpec:
    def color():
        return [round(float(c), 4) for c in rng.uniform(0.15, 0.85, size=3)]

    boxes = [
        BoxSpec(name="box_a", center=[-1.2, 0.8, 0.25], size=[0.5, 0.5, 0.5], yaw_deg=0.0, color=color()),
        BoxSpec(name="box_b", center=[0.9, 1.4, 0.4], size=[0.6, 0.4, 0.8], yaw_deg=30.0, color=color()),
        BoxSpec(name="box_c", center=[0.2, -0.9, 0.15], size=[0.9, 0.3, 0.3], yaw_deg=-20.0, color=color()),
    ]
    return CalibSpec(
        env="calib", scene_id=scene_id, seed=seed,
        ground_size=14.0, ground_color=[0.35, 0.35, 0.33],
        boxes=boxes,
        pole=PoleSpec(base=[-0.3, 2.2], radius=0.015, height=1.6, color=[0.8, 0.1, 0.1]),
        card=CardSpec(center=[0.0, 0.3, 0.9], width=0.42, height=0.297, squares_u=7, squares_v=5),
        sun_elevation_deg=round(float(rng.uniform(25.0, 70.0)), 3),
        sun_azimuth_deg=round(float(rng.uniform(0.0, 360.0)), 3),
        phone=sample_phone(rng),
    )


# ---- exact geometry (shared by the builder and the scorer) --------------------------

def box_matrix(box: BoxSpec) -> np.ndarray:
    yaw = math.radians(box.yaw_deg)
    M = np.eye(4)
    M[:3, :3] = [[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]]
    M[:3, 3] = box.center
    return M


def card_matrix(card: CardSpec) -> np.ndarray:
    """Card plane local axes: x along the width (world +x), y up (world +z), normal -y."""
    M = np.eye(4)
    M[:3, 0] = [1, 0, 0]
    M[:3, 1] = [0, 0, 1]
    M[:3, 2] = [0, -1, 0]
    M[:3, 3] = card.center
    return M


CARD_FRONT_OFFSET = 0.004  # the printed face sits this far in front of the card's centre plane


def card_inner_corners(card: CardSpec) -> np.ndarray:
    """World positions of the (squares_u-1) x (squares_v-1) inner checker corners."""
    M = card_matrix(card)
    us = (np.arange(1, card.squares_u) / card.squares_u - 0.5) * card.width
    vs = (np.arange(1, card.squares_v) / card.squares_v - 0.5) * card.height
    pts = [M[:3, 3] + u * M[:3, 0] + v * M[:3, 1] + CARD_FRONT_OFFSET * M[:3, 2] for v in vs for u in us]
    return np.array(pts)


def object_centers(spec: CalibSpec) -> dict[str, np.ndarray]:
    out = {b.name: np.array(b.center, float) for b in spec.boxes}
    out["pole"] = np.array([*spec.pole.base, spec.pole.height / 2])
    out["card"] = np.array(spec.card.center, float) + CARD_FRONT_OFFSET * card_matrix(spec.card)[:3, 2]
    return out


TARGETS = ("box_a", "box_b", "box_c", "pole", "card")


def sample_view(spec: CalibSpec, rng: np.random.Generator, view_index: int, long_side_px: int,
                attempt: int = 0) -> View:
    """A person standing 1.5-6 m from a target, aiming roughly (not exactly) at it."""
    target = TARGETS[int(rng.integers(len(TARGETS)))]
    center = object_centers(spec)[target]
    if target == "card":  # photograph the printed side
        azimuth = math.radians(float(rng.uniform(-150.0, -30.0)))
    else:
        azimuth = float(rng.uniform(0.0, 2 * math.pi))
    dist = float(rng.uniform(1.5, 6.0))
    eye = center + np.array([math.cos(azimuth) * dist, math.sin(azimuth) * dist, 0.0])
    eye[2] = float(rng.uniform(0.4, 2.0))
    aim = center + rng.normal(0.0, 0.12 * dist, size=3) * np.array([1, 1, 0.5])
    cam_to_world = look_at(eye, aim, roll_rad=math.radians(float(rng.normal(0.0, 4.0))))
    pose = sample_phone_pose(rng, spec.phone, cam_to_world, center, long_side_px)
    return View(view_index=view_index, pose=pose, target=target, attempt=attempt)
