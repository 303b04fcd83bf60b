"""Per-stage generators for spec modules, which may not import render_farm.seeds."""
from __future__ import annotations

import hashlib

import numpy as np


def stage_rng(root: int, stage: str) -> np.random.Generator:
    """A generator seeded by blake2b of "root/stage" (render_farm.seeds.derive_seed's rule): a
    scene's stages draw independently of each other and of its main generator."""
    key = f"{root}/{stage}".encode()
    return np.random.default_rng(int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little") >> 1)
