"""Helpers of the car_plate and ro_board tests: farm field views, tesseract, mask centroids and a
preview render through the phone's ISP (both environments read printed text off a real frame)."""
from __future__ import annotations

import io
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from blender_envs.registry import get_environment
from render_farm.job import sample_spec, view_seed
from render_farm.plan import plan_jobs


def field_views(env: str, scenes: int, long_side: int, root_seed: int = 0) -> list:
    """(spec, view) of every view the farm would draw for `scenes` random scenes of `env`."""
    out, environment = [], get_environment(env)
    for job in plan_jobs(env, scenes, 1, "random", set(), root_seed=root_seed, run_dir="unused",
                         quality={"long_side_px": long_side}, device="cpu"):
        spec = sample_spec(job)
        for v in range(environment.views_per_scene):
            out.append((spec, environment.sample_view(spec, np.random.default_rng(view_seed(job, v, 0)), v,
                                                      long_side)))
    return out


def ocr(gray: np.ndarray) -> str:
    """tesseract's reading of a grey image, upper case, letters and digits only."""
    import cv2

    path = Path(tempfile.mkdtemp()) / "crop.png"
    cv2.imwrite(str(path), gray)
    out = subprocess.run(["tesseract", str(path), "-", "--psm", "6"], capture_output=True, text=True, timeout=60)
    return "".join(c for c in out.stdout.upper() if c.isalnum())


def polygon_centroid(uv) -> tuple[float, float]:
    """Area centroid of a projected quadrilateral (what the mask's pixel centroid estimates)."""
    x, y = uv[:, 0], uv[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    c = x * yn - xn * y
    a = c.sum() / 2
    return float(((x + xn) * c).sum() / (6 * a)), float(((y + yn) * c).sum() / (6 * a))


def render_view(scene, pose, samples=8):
    """(RGB after the phone ISP, object-index pass) of one preview render of `pose`."""
    from PIL import Image

    from blender_envs.core.camera_rig import apply_camera_pose
    from blender_envs.core.render_passes import render_frame
    from blender_envs.core.settings import RenderSettings
    from render_farm.isp import process_frame, sample_isp_params

    apply_camera_pose(scene, pose)
    out = render_frame(scene, RenderSettings(name="t", long_side_px=pose.long_side_px, samples=samples,
                                             pass_samples=1, denoise=True), seed=0)
    _, jpeg = process_frame(out.linear_rgb, sample_isp_params(np.random.default_rng(0)), np.random.default_rng(1))
    return np.asarray(Image.open(io.BytesIO(jpeg)).convert("RGB")), out.object_index
