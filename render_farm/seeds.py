"""Hierarchical, order-independent seeds.

seed(stage) = blake2b("benchmark_version/env/split/index/stage"): adding a stage or a
scene never perturbs the draws of another (Infinigen's lesson), and no global RNG or
wall clock is involved.
"""
from __future__ import annotations

import hashlib

import numpy as np


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from the '/'-joined parts."""
    key = "/".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little") >> 1


def rng_for(*parts: object) -> np.random.Generator:
    return np.random.default_rng(derive_seed(*parts))


def cycles_seed(frame_seed: int) -> int:
    """Cycles takes a 31-bit signed int seed."""
    return int(frame_seed % (2**31 - 1))
