"""End-to-end acceptance of wire_adequacy's random field poses (Table 1: 0.39), rendered.

    .venv/bin/python bench/wire_adequacy_frames.py --scenes 12 --poses 2 --px 480 --spp 16

Draws random field poses exactly as the run does (same seeds as `plan_jobs`' random
stratum), scores the scene side, renders only the scene-accepted ones (the frame side
cannot pass where the scene side fails), runs the phone ISP and scores the frame side.
End-to-end acceptance = scene-accepted and frame-accepted / all poses. Renders are the
expensive part, so keep `--px`/`--spp` small on a shared CPU; `--save DIR` writes the
rendered JPEGs and a wire-mask overlay for inspection.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def measure(scenes: int, poses: int, seed: int = 0, px: int = 480, spp: int = 16,
            save: str | None = None, denoise: bool = True) -> dict:
    from blender_envs.core.settings import RenderSettings
    from blender_envs.registry import get_environment
    from render_farm.job import _draw_view, _seed_parts, build_scene, photograph
    from render_farm.plan import plan_jobs
    from scorers.context import RenderedFrame
    from scorers.terms import Verdict, verdict_of

    q = {"name": "bench", "long_side_px": px, "samples": spp, "adaptive_threshold": 0.02, "denoise": denoise,
         "max_bounces": 4, "pass_samples": 1}
    env = get_environment("wire_adequacy")
    scorer = env.scorer_module()
    rows = []
    out = Path(save) if save else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "scenes").mkdir()
        jobs = plan_jobs("wire_adequacy", scenes, 1, "random", set(), root_seed=seed, run_dir=tmp, quality=q,
                         device="cpu")
        for job in jobs:
            scene, geo, _ = build_scene(job)
            oid = geo.object_id(geo.spec.target_wire)
            for v in range(poses):
                view, sterms = _draw_view(job, env, scorer, geo, v, 0, px)
                row = {"scene": job.scene_id, "view": v, "scene_accept": verdict_of(sterms) == Verdict.ACCEPT}
                if row["scene_accept"]:
                    parts = (*_seed_parts(job), v)
                    photo = photograph(scene, view.pose, RenderSettings.model_validate(q), parts, 0)
                    passes, jpeg, image = photo.passes, photo.jpeg, photo.image
                    fterms = scorer.score_frame(geo, view, RenderedFrame(image, passes.depth, passes.object_index))
                    row.update({t.name: t.value for t in fterms})
                    row["frame_accept"] = verdict_of(fterms) == Verdict.ACCEPT
                    if out:
                        stem = f"{job.scene_id}_v{v}"
                        (out / f"{stem}.jpg").write_bytes(jpeg)
                        ov = image.copy()
                        ov[passes.object_index == oid] = (255, 0, 0)
                        Image.fromarray(ov).save(out / f"{stem}_mask.png")
                rows.append(row)
                print(row, flush=True)
    n = len(rows)
    sa = [r for r in rows if r["scene_accept"]]
    fa = [r for r in sa if r["frame_accept"]]
    return {"poses": n, "scene_accept": len(sa) / n, "frame_pass_of_scene_accepted": len(fa) / max(1, len(sa)),
            "end_to_end": len(fa) / n, "rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenes", type=int, default=12)
    ap.add_argument("--poses", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--px", type=int, default=480)
    ap.add_argument("--spp", type=int, default=16)
    ap.add_argument("--save", default=None)
    a = ap.parse_args()
    r = measure(a.scenes, a.poses, a.seed, a.px, a.spp, a.save)
    print(f"wire_adequacy: {r['poses']} random field poses at {a.px} px / {a.spp} spp: scene-side "
          f"{r['scene_accept']:.3f}, frame side passes {r['frame_pass_of_scene_accepted']:.2f} of those, "
          f"end-to-end {r['end_to_end']:.3f} (Table 1: 0.39)")


if __name__ == "__main__":
    main()
