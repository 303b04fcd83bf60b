"""Plain-data scene model shared by generators, the Blender builder and scorers.

A `SceneSpec` holds every random draw of one scene; a `SceneState` adds what the
build derived from it (objects with their pass indices, key points, the mesh file).
Both are pydantic models so they serialise to byte-stable JSON.
"""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1


class SceneSpec(BaseModel):
    """Base class of every environment's scene draw (no bpy, no derived data)."""

    model_config = ConfigDict(extra="forbid")
    schema_version: int = SCHEMA_VERSION
    env: str
    scene_id: str
    seed: int


class SceneObject(BaseModel):
    """One rendered object: its id equals its Blender `pass_index` and its mesh id."""

    model_config = ConfigDict(extra="forbid")
    id: int = Field(ge=1)
    name: str
    category: str
    pass_index: int = Field(ge=1)
    matrix_world: list[list[float]] | None = None


class SceneState(BaseModel):
    """Spec plus the geometry the build derived: objects, key points, mesh file."""

    model_config = ConfigDict(extra="forbid")
    schema_version: int = SCHEMA_VERSION
    env: str
    scene_id: str
    spec: dict[str, Any]
    objects: list[SceneObject]
    key_points: dict[str, list[float]] = Field(default_factory=dict)
    meshes: str  # path of the world-space triangle .npz, relative to the run directory

    def object_by_name(self, name: str) -> SceneObject:
        for obj in self.objects:
            if obj.name == name:
                return obj
        raise KeyError(f"no object named {name!r} in scene {self.scene_id}")


class View(BaseModel):
    """One photo to take of a scene: the camera pose and what it is aimed at."""

    model_config = ConfigDict(extra="forbid")
    view_index: int
    pose: "CameraPose"
    target: str                    # object name the photographer aims at
    attempt: int = 0               # rejection-sampling attempt that produced it


class BuildInfo(BaseModel):
    """What the Blender builder reports back: objects (ids = pass indices) and key points."""

    model_config = ConfigDict(extra="forbid")
    objects: list[SceneObject]
    key_points: dict[str, list[float]] = Field(default_factory=dict)


from geometry.camera import CameraPose  # noqa: E402  (after the models that reference it)

View.model_rebuild()
