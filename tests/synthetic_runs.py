"""Small real pieces for synthetic run stores in export/predict/score tests."""
from __future__ import annotations

import io

import numpy as np
from PIL import Image as PILImage


def jpeg_bytes(seed: int, size=(64, 48)) -> bytes:
    """A real (noise) JPEG, different per seed."""
    rng = np.random.default_rng(seed)
    arr = (rng.random((size[1], size[0], 3)) * 255).astype(np.uint8)
    buf = io.BytesIO()
    PILImage.fromarray(arr).save(buf, format="JPEG", quality=85)
    return buf.getvalue()


def flat_jpeg(value: int, size=(64, 48)) -> bytes:
    """A real JPEG of one grey level (a frame whose pixels a test can predict)."""
    buf = io.BytesIO()
    PILImage.fromarray(np.full((size[1], size[0], 3), value, np.uint8)).save(buf, format="JPEG", quality=90)
    return buf.getvalue()


def ground_truth(env: str, i: int) -> dict:
    """Ground truth with every answer key of tape_gap or slope_gauge."""
    if env == "tape_gap":
        return {"reading_in": 3.25 + i / 16, "gap_in": 3.0 + i / 8, "tilted": i % 2 == 1,
                "geometric_reading_in": 3.2 + i / 16}
    return {"reading_deg": 18.4 + i, "on_module": i % 3 != 0}


def clip_manifest(env: str, quality: str = "preview", generator: str = "g-1", commit: str = "abc123") -> dict:
    """The manifest.json fields an export card reads (render_farm writes many more)."""
    return {"fingerprint": {"env": env, "generator_version": generator, "quality": {"name": quality}, "seed": 7},
            "config": {"env": env, "stratum": "random"}, "seeds": {"root_seed": 7}, "git_commit": commit}
