"""ro_board's two board styles at final's 1600 px, on a CPU (docs/envs/ro_board.md).

    .venv/bin/python bench/ro_board_styles_1600.py 6 60 /tmp/ro1600   # 6 boards per style, first 60 scenes

For the farm's first random field poses whose scene-side terms accept at 1600 px: render
the whole frame at 25% (400 px, for the exposure) and the board's box at the full 1600 px
(Cycles border crop), paste the crop into the upsampled frame, develop it through the
farm's ISP with the frame's own seeds, then score the frame terms and OCR the rectified
board (O, Q, I read as 0, 0, 1 for the VIN). Prints one JSON line per frame and the rates.
"""
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from blender_envs.registry import get_environment
from blender_envs.core.settings import RenderSettings
from blender_envs.core.camera_rig import apply_camera_pose
from blender_envs.core.render_passes import render_frame, FramePasses
from render_farm.job import _seed_parts, build_scene, develop, photo_seeds, sample_spec, view_seed
from render_farm.plan import plan_jobs
from geometry.camera import project
from formats import atomic
from scorers.terms import Verdict, verdict_of
import scorers.ro_board as rb
from blender_envs.vehicle.ro_board import BOARD_OBJECT, board_corners

per_style, max_scenes, out = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
out.mkdir(parents=True, exist_ok=True)
PX = 1600
qd = {"name": "m1600", "long_side_px": PX, "samples": 16, "adaptive_threshold": 0.02, "denoise": True,
      "max_bounces": 4, "pass_samples": 1}
q = RenderSettings.model_validate(qd)
env = get_environment("ro_board")


def ocr(gray):
    p = Path(tempfile.mkdtemp()) / "c.png"
    cv2.imwrite(str(p), gray)
    o = subprocess.run(["tesseract", str(p), "-", "--psm", "6"], capture_output=True, text=True, timeout=60)
    return "".join(c for c in o.stdout.upper() if c.isalnum())


def rectify(image, pose, board, ppm=1500):
    uv, _ = project(board_corners(board), pose.K_array(), pose.cam_to_world_array())
    w, h = int(board.size_m[0] * ppm), int(board.size_m[1] * ppm)
    H = cv2.getPerspectiveTransform(uv.astype(np.float32), np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32))
    return cv2.warpPerspective(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY), H, (w, h), flags=cv2.INTER_CUBIC)


def vin_reading(t):
    return t.replace("O", "0").replace("Q", "0").replace("I", "1")


jobs = plan_jobs("ro_board", 4 * max_scenes, 4, "random", set(), root_seed=0, run_dir=str(out / "run"), quality=qd, device="cpu")
want = {"printed": per_style, "handwritten": per_style}
rows = []
for job in jobs:
    if not any(want.values()):
        break
    spec = sample_spec(job)
    if want[spec.board.style] == 0:
        continue
    picks = []
    for v in range(4):
        view = env.sample_view(spec, np.random.default_rng(view_seed(job, v, 0)), v, PX)
        if verdict_of(rb.pure_scene_terms(spec, view)) == Verdict.ACCEPT:
            picks.append((v, view))
    if not picks:
        continue
    t0 = time.time()
    scene, geo, _ = build_scene(job)
    for v, view in picks:
        if want[spec.board.style] == 0:
            break
        want[spec.board.style] -= 1
        pose = view.pose
        sterms = {t.name: t.value for t in rb.score_scene(geo, view)}
        seeds = photo_seeds((*_seed_parts(job, 0), v), 0)
        apply_camera_pose(scene, pose)
        W, H = pose.width, pose.height
        scene.render.resolution_percentage = 25
        lo = render_frame(scene, q, seed=seeds["cycles"])
        scene.render.resolution_percentage = 100
        uv, _ = project(board_corners(spec.board), pose.K_array(), pose.cam_to_world_array())
        x0, y0 = max(0, int(uv[:, 0].min()) - 12), max(0, int(uv[:, 1].min()) - 12)
        x1, y1 = min(W, int(uv[:, 0].max()) + 13), min(H, int(uv[:, 1].max()) + 13)
        r = scene.render
        r.use_border, r.use_crop_to_border = True, True
        r.border_min_x, r.border_max_x = (x0 + 0.5) / W, (x1 + 0.5) / W
        r.border_min_y, r.border_max_y = (H - y1 + 0.5) / H, (H - y0 + 0.5) / H
        try:
            hi = render_frame(scene, q, seed=seeds["cycles"])
        finally:
            r.use_border = False
        assert hi.linear_rgb.shape[:2] == (y1 - y0, x1 - x0), (hi.linear_rgb.shape, (y1 - y0, x1 - x0))
        lin = cv2.resize(lo.linear_rgb, (W, H), interpolation=cv2.INTER_LINEAR)
        lin[y0:y1, x0:x1] = hi.linear_rgb
        index = np.zeros((H, W), np.int32)
        index[y0:y1, x0:x1] = hi.object_index
        photo = develop(FramePasses(lin, np.zeros((H, W), np.float32), index, 0.0, 0.0), seeds)
        mask = index == geo.object_id(BOARD_OBJECT)
        ft = {t.name: t.value for t in rb.frame_terms_of(photo.image, mask)}
        b = spec.board
        crop = rectify(photo.image, pose, b)
        read = ocr(crop)
        row = {"scene": job.scene_index, "view": v, "style": b.style, "text_row_px": sterms["text_row_px"],
               "view_angle": sterms["view_angle"], **ft, "vin_read": b.ids.vin in vin_reading(read),
               "ro_read": b.ids.ro in read, "ocr": read, "vin": b.ids.vin, "ro": b.ids.ro,
               "crop_px": [x1 - x0, y1 - y0], "gain_bias": photo.isp.exposure_bias_ev}
        rows.append(row)
        print(json.dumps(row), flush=True)
        cv2.imwrite(str(out / f"f{job.scene_index}_{v}_{b.style[0]}.jpg"), cv2.cvtColor(photo.image[y0:y1, x0:x1], cv2.COLOR_RGB2BGR))
        cv2.imwrite(str(out / f"r{job.scene_index}_{v}_{b.style[0]}.png"), crop)
    print("scene", job.scene_index, round(time.time() - t0, 1), "s", flush=True)
atomic.write_json(out / "rows.json", rows)
for st in ("printed", "handwritten"):
    s = [r for r in rows if r["style"] == st]
    print(st, len(s), "vin", sum(r["vin_read"] for r in s), "ro", sum(r["ro_read"] for r in s),
          "sat>0.3", sum((r["board_saturated"] or 0) > 0.3 for r in s), "contrast<0.3", sum((r["board_contrast"] or 0) < 0.3 for r in s))
