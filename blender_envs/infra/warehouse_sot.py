"""`warehouse_sot`: the warehouse clip rendered at VANTAGE's SOT frames (App. D.3).

Single Object Tracking shows 8 or 16 frames at stride 15 (the 8-frame clip is the 16-frame
one's prefix) or 32 frames at stride 14 of the 30 fps stream, always from frame 0. The
`warehouse` environment renders 8 uniform frames; this variant draws the very same kind of
scene (`warehouse.sample_scene`, unchanged) and only replaces the clip's sampling with the
union of the three SOT frame lists (46 frames: 0, 14, 15, 28, 30, ..., 434), so one render
serves all three horizons. Everything else (builder, scorer, events, camera pipeline) is the
warehouse's. A clip of the same seed is not the same scene as the warehouse's: the farm seeds
draws by environment name.
"""
from __future__ import annotations

import numpy as np

from blender_envs.infra import warehouse
from blender_envs.infra.warehouse import WarehouseSpec
from blender_envs.registry import Environment
from geometry.clip import StridedFrames

# -3: the warehouse-3 draw (near misses and zone walks timed onto the 8 uniform frames)
GENERATOR_VERSION = "warehouse_sot-3"
ROAMERS = 4                                    # background movers tried for tracking (warehouse._roamers)
SOT_HORIZONS = ((8, 15), (16, 15), (32, 14))   # (frames, stride): VANTAGE_SOT, _16f, _32f (paper D.3)


def horizon_frames(n: int, stride: int) -> list[int]:
    """The frame numbers one SOT horizon shows (from frame 0)."""
    return StridedFrames(n=n, stride=stride).frame_numbers(0)


SOT_FRAMES = sorted(set().union(*(horizon_frames(n, s) for n, s in SOT_HORIZONS)))


def sample_scene(rng: np.random.Generator, scene_id: str, seed: int) -> WarehouseSpec:
    """A warehouse draw whose clip samples the SOT frames instead of 8 uniform ones."""
    data = warehouse.sample_scene(rng, scene_id, seed, roamers=ROAMERS).model_dump(mode="json")
    data["env"] = "warehouse_sot"
    data["timeline"]["clip"]["sampling"] = {"kind": "explicit", "frames": SOT_FRAMES}
    return WarehouseSpec.model_validate(data)


ENV = Environment(
    name="warehouse_sot",
    family="vantage",
    version=GENERATOR_VERSION,
    views_per_scene=len(SOT_FRAMES),
    sample_scene=sample_scene,
    sample_view=warehouse.sample_view,
    builder="blender_envs.infra.warehouse_build:build",
    scorer="scorers.warehouse",
    spec_model=WarehouseSpec,
    timeline=warehouse.timeline,
    events=warehouse.events,
    isp="cctv",
)
