"""A clip as pure data: which timestamps to render, who moves, where the camera is.

A clip renders only the frames its tasks sample (VANTAGE's SOT: 8/16/32 frames at
strides 15/15/14 of a 30 fps stream; or k uniformly spaced frames; or an explicit
list), never every frame of the nominal stream unless asked. Timestamps are frame
numbers of the nominal stream divided by fps, so they are exact multiples of 1/fps.

Cameras are CCTV-style pinholes through the project's one camera model
(`geometry.camera.CameraPose`, OpenCV axes): a mounted camera (height, depression below
the horizon, yaw) or one carried along a trajectory (head-mounted, vehicle-mounted).
Motion over the shutter (the camera's own, for a carried camera) goes into the pose's
`shake_end_cam_to_world`, which the renderer already turns into Cycles motion blur.
"""
from __future__ import annotations

import math
from typing import Annotated, Literal, Union

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from geometry.camera import FULL_FRAME_DIAG_MM, CameraPose, PhoneLens, look_at
from geometry.raycast import SceneMesh
from geometry.timeline import Agent, FallingAgent, PathTrajectory

DEFAULT_FPS = 30
BUILD_T = 0.0  # the builder places agents at their pose at this time; exported meshes hold that pose


class ExplicitFrames(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["explicit"] = "explicit"
    frames: list[int]

    def frame_numbers(self, total: int) -> list[int]:
        return list(self.frames)


class UniformFrames(BaseModel):
    """k frames spread evenly from the first to the last frame of the stream."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["uniform"] = "uniform"
    k: int = Field(ge=1)

    def frame_numbers(self, total: int) -> list[int]:
        if self.k == 1:
            return [0]
        return [int(math.floor(i * (total - 1) / (self.k - 1) + 0.5)) for i in range(self.k)]


class StridedFrames(BaseModel):
    """n frames every `stride` frames from `start` (SOT: 8 x 15, 16 x 15, 32 x 14)."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["strided"] = "strided"
    n: int = Field(ge=1)
    stride: int = Field(ge=1)
    start: int = Field(default=0, ge=0)

    def frame_numbers(self, total: int) -> list[int]:
        return [self.start + i * self.stride for i in range(self.n)]


Sampling = Annotated[Union[ExplicitFrames, UniformFrames, StridedFrames], Field(discriminator="kind")]


class ClipSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    duration_s: float = Field(gt=0)
    fps: int = Field(default=DEFAULT_FPS, ge=1)
    sampling: Sampling

    @property
    def total_frames(self) -> int:
        """Frames of the nominal stream: 0 .. total-1 lie in [0, duration)."""
        return int(math.ceil(self.duration_s * self.fps - 1e-9))

    def frame_numbers(self) -> list[int]:
        return self.sampling.frame_numbers(self.total_frames)

    def timestamps(self) -> list[float]:
        return [f / self.fps for f in self.frame_numbers()]

    @model_validator(mode="after")
    def _check(self) -> "ClipSpec":
        frames = self.frame_numbers()
        if not frames or any(b <= a for a, b in zip(frames, frames[1:])):
            raise ValueError(f"sampled frames must be non-empty and increasing, got {frames}")
        if frames[0] < 0 or frames[-1] >= self.total_frames:
            raise ValueError(f"sampled frames {frames[0]}..{frames[-1]} leave the clip's "
                             f"{self.total_frames} frames ({self.duration_s} s at {self.fps} fps)")
        return self


def on_a_frame(t: float, offset: float, times: list[float], lo: float, hi: float) -> float:
    """The script time in [lo, hi] nearest to the drawn `t` that puts the event's middle
    (script time + `offset`) on one of the shown frame `times`; `t` itself when none fits.
    Scripts place their short events with it, so that the frames a model sees show them
    (VANTAGE's tasks ask only about shown events)."""
    fits = [f - offset for f in times if lo <= f - offset <= hi]
    return min(fits, key=lambda c: (abs(c - t), c)) if fits else t


# ------------------------------------------------------------------ cameras

CCTV_SENSOR_WIDTH_MM = 5.6   # a 1/2.8" sensor, as common CCTV modules
CCTV_FNUMBER = 1.6


def mounted_cam_to_world(eye, depression_deg: float, yaw_deg: float) -> np.ndarray:
    """OpenCV cam_to_world at `eye` looking along `yaw_deg` (0 = +x, counter-clockwise),
    tilted `depression_deg` below the horizon, no roll (image x stays horizontal)."""
    d, y = math.radians(depression_deg), math.radians(yaw_deg)
    eye = np.asarray(eye, float)
    fwd = np.array([math.cos(d) * math.cos(y), math.cos(d) * math.sin(y), -math.sin(d)])
    return look_at(eye, eye + fwd)


class MountedCamera(BaseModel):
    """A fixed camera on a pole or wall: `height_m` above the ground at `position`."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["mounted"] = "mounted"
    position: list[float]           # [x, y]
    height_m: float = Field(gt=0)
    depression_deg: float = Field(gt=0, lt=90)
    yaw_deg: float
    hfov_deg: float = Field(gt=1, lt=170)
    shutter_s: float = Field(gt=0)

    def cam_to_world(self, t: float) -> np.ndarray:
        return mounted_cam_to_world([*self.position, self.height_m], self.depression_deg, self.yaw_deg)

    @property
    def moving(self) -> bool:
        return False


class CarriedCamera(BaseModel):
    """A camera moving along its own trajectory (its z is the camera height), looking
    `yaw_offset_deg` off its heading and `depression_deg` down."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["carried"] = "carried"
    trajectory: PathTrajectory
    depression_deg: float = Field(gt=-90, lt=90)
    yaw_offset_deg: float = 0.0
    hfov_deg: float = Field(gt=1, lt=170)
    shutter_s: float = Field(gt=0)

    def cam_to_world(self, t: float) -> np.ndarray:
        p, yaw, _, _ = self.trajectory.state(t)
        return mounted_cam_to_world(p, self.depression_deg, math.degrees(yaw) + self.yaw_offset_deg)

    @property
    def moving(self) -> bool:
        return True


Camera = Annotated[Union[MountedCamera, CarriedCamera], Field(discriminator="kind")]


def cctv_intrinsics(hfov_deg: float, width: int, height: int) -> list[list[float]]:
    f = (width / 2.0) / math.tan(math.radians(hfov_deg) / 2.0)
    return [[f, 0.0, (width - 1) / 2.0], [0.0, f, (height - 1) / 2.0], [0.0, 0.0, 1.0]]


def camera_pose(camera, t: float, long_side_px: int) -> CameraPose:
    """The pinhole CameraPose of `camera` at t, 4:3 landscape; a moving camera's pose at
    shutter close goes into `shake_end_cam_to_world` (Cycles blurs between the two)."""
    width, height = int(long_side_px), int(round(long_side_px * 3 / 4))
    K = cctv_intrinsics(camera.hfov_deg, width, height)
    focal_mm = K[0][0] * CCTV_SENSOR_WIDTH_MM / width
    lens = PhoneLens(name="main", focal_mm=focal_mm, sensor_width_mm=CCTV_SENSOR_WIDTH_MM,
                     sensor_height_mm=0.75 * CCTV_SENSOR_WIDTH_MM, fnumber=CCTV_FNUMBER,
                     equiv_focal_mm=focal_mm * FULL_FRAME_DIAG_MM / (CCTV_SENSOR_WIDTH_MM * 1.25))  # 4:3 diagonal
    end = camera.cam_to_world(t + camera.shutter_s).tolist() if camera.moving else None
    return CameraPose(width=width, height=height, K=K, cam_to_world=camera.cam_to_world(t).tolist(),
                      orientation="landscape", lens=lens, sensor_width_mm=CCTV_SENSOR_WIDTH_MM,
                      focus_mode="pinhole", focus_distance_m=None, shutter_s=camera.shutter_s,
                      shake_end_cam_to_world=end)


# ------------------------------------------------------------------ the whole timeline

class Timeline(BaseModel):
    """Everything that moves in a clip, and the timestamps it is rendered at."""

    model_config = ConfigDict(extra="forbid")
    clip: ClipSpec
    agents: list[Union[FallingAgent, Agent]]   # an agent with a `fall` is a FallingAgent
    camera: Camera

    def agent(self, track_id: str) -> Agent:
        for a in self.agents:
            if a.track_id == track_id:
                return a
        raise KeyError(f"no agent {track_id!r}")


def mesh_at(mesh: SceneMesh, moves: dict[int, np.ndarray]) -> SceneMesh:
    """The exported scene mesh with object `oid`'s triangles moved rigidly by the 4x4
    `moves[oid]` (pose at t @ inverse pose at build): the scene as it stands at t."""
    V = mesh.vertices.astype(np.float64)
    for oid, M in moves.items():
        idx = np.unique(mesh.triangles[mesh.tri_object_id == oid])
        V[idx] = V[idx] @ M[:3, :3].T + M[:3, 3]
    return SceneMesh(V, mesh.triangles, mesh.tri_object_id, mesh.object_ids, mesh.object_names)


def agent_moves(agents: list[Agent], object_ids: dict[str, int], t: float) -> dict[int, np.ndarray]:
    """object id -> rigid motion from the build pose to the pose at t, per agent."""
    return {object_ids[a.track_id]: a.pose(t) @ np.linalg.inv(a.pose(BUILD_T)) for a in agents}
