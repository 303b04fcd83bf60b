"""Render quality presets as validated data (the YAML in configs/render/ fills these)."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class RenderSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    long_side_px: int = Field(ge=16, le=8192)
    samples: int = Field(ge=1, le=4096)
    adaptive_threshold: float = Field(default=0.02, gt=0, le=1)
    denoise: bool = False
    max_bounces: int = Field(default=4, ge=0, le=64)
    pass_samples: int = Field(default=1, ge=1, le=64)  # object index / depth render
    threads: int = Field(default=0, ge=0)               # 0 = let Blender decide
