"""A contact sheet of parametric car bodies in car_view's lot, for the docs (docs/img/vehicle<N>_bodies.jpg).

    nice -n 19 .venv/bin/python bench/vehicle_bodies_sheet.py --out docs/img/vehicle5_bodies.jpg

car_view scene 0 of root seed 0 (its lot, sun and sky) with its subject replaced by each
listed body (`--bodies style:colour:seed ...`, drawn by `body.sample_body` from that seed),
photographed from the front three-quarter, the side and the rear three-quarter through the
phone ISP; one row per body. Small renders (`--px` tiles, `--spp` samples, CPU).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

VIEWS = {"front3q": (35.0, 0.95, 1.55), "side": (90.0, 1.0, 1.35), "rear3q": (145.0, 0.95, 1.55),
         "low_front": (20.0, 0.8, 0.75)}
# azimuth from the car's +x (deg, towards the driver side +y), distance in car lengths, eye height (m)


def main() -> None:
    from PIL import Image

    from blender_envs.core.settings import RenderSettings
    from blender_envs.registry import get_environment
    from blender_envs.vehicle.body import sample_body, to_world
    from geometry.camera import look_at, pose_for_phone, sample_phone
    from render_farm.job import _seed_parts, photograph, sample_spec
    from render_farm.plan import plan_jobs

    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--bodies", nargs="+", default=["sedan:silver:3", "SUV:blue:5"])
    ap.add_argument("--views", nargs="+", default=list(VIEWS))
    ap.add_argument("--px", type=int, default=400)
    ap.add_argument("--spp", type=int, default=10)
    a = ap.parse_args()
    q = {"name": "doc", "long_side_px": a.px, "samples": a.spp, "adaptive_threshold": 0.02, "denoise": True,
         "max_bounces": 4, "pass_samples": 1}
    env = get_environment("car_view")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "scenes").mkdir()
        job = next(iter(plan_jobs("car_view", 1, 1, "random", set(), root_seed=0, run_dir=tmp, quality=q,
                                  device="cpu")))
        base = sample_spec(job)
        for item in a.bodies:
            style, color, seed = item.split(":")
            body = sample_body(np.random.default_rng(int(seed)), style)
            cars = list(base.lot.cars)
            cars[0] = cars[0].model_copy(update={"body": body, "color": color})
            spec = base.model_copy(update={"lot": base.lot.model_copy(update={"cars": cars})})
            from blender_envs.core.cycles_setup import configure_cycles, configure_device
            from blender_envs.core.scene_reset import reset_scene

            scene = reset_scene()
            configure_cycles(scene, RenderSettings.model_validate(q), 0)
            configure_device(scene, "cpu")
            env.build_function()(scene, spec)
            car = spec.lot.subject
            centre = to_world(car.placement, body.center())
            tiles = []
            for name in a.views:
                az, lengths, h = VIEWS[name]
                t = np.radians(az)
                eye = to_world(car.placement, [lengths * body.length_m * np.cos(t),
                                               lengths * body.length_m * np.sin(t), h])
                pose = pose_for_phone(sample_phone(np.random.default_rng(0)), "main", 1.0, "landscape", a.px,
                                      look_at(eye, centre), "pinhole", None, 1 / 250)
                photo = photograph(scene, pose, RenderSettings.model_validate(q), _seed_parts(job), 0)
                tiles.append(Image.fromarray(photo.image))
            rows.append(tiles)
    w, h = rows[0][0].size
    sheet = Image.new("RGB", (w * len(rows[0]), h * len(rows)))
    for i, tiles in enumerate(rows):
        for j, im in enumerate(tiles):
            sheet.paste(im, (j * w, i * h))
    sheet.save(a.out, quality=88)
    print(a.out, sheet.size)


if __name__ == "__main__":
    main()
