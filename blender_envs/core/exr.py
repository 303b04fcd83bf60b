"""Read Cycles EXR output into numpy (top row first), with or without bpy."""
from __future__ import annotations

import numpy as np
import OpenEXR


def read_exr_channels(path: str) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    with OpenEXR.File(str(path), separate_channels=True) as f:
        for part in f.parts:
            for name, ch in part.channels.items():
                out[name] = np.asarray(ch.pixels)
    return out


def channel(channels: dict[str, np.ndarray], suffix: str) -> np.ndarray:
    """The one channel whose name is `suffix` or ends with '.' + suffix (layer names vary)."""
    hits = [k for k in channels if k == suffix or k.endswith("." + suffix)]
    if len(hits) != 1:
        raise KeyError(f"expected one EXR channel ending in {suffix!r}, found {sorted(channels)}")
    return channels[hits[0]]
