"""Accepted / rejected example frames of one environment for its docs page.

    .venv/bin/python bench/doc_examples.py --env rail_attachment --accept 2 --reject 2

Walks the random field poses in seed order (the run's own seeds), renders a pose only
when it is still needed (accepted on the scene side while accepted examples are wanted,
rejected otherwise), runs the phone ISP and the frame-side terms, and writes
`docs/img/<env>_{accept,reject}_<k>.jpg`. Prints each example's failing term.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    from blender_envs.core.settings import RenderSettings
    from blender_envs.registry import get_environment
    from render_farm.job import _draw_view, _seed_parts, build_scene, photograph
    from render_farm.plan import plan_jobs
    from scorers.context import RenderedFrame
    from scorers.terms import Verdict, first_failure, verdict_of

    ap = argparse.ArgumentParser()
    ap.add_argument("--env", required=True)
    ap.add_argument("--accept", type=int, default=2)
    ap.add_argument("--reject", type=int, default=2)
    ap.add_argument("--px", type=int, default=640)
    ap.add_argument("--spp", type=int, default=32)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scenes", type=int, default=40)
    ap.add_argument("--poses", type=int, default=6)
    ap.add_argument("--first-index", type=int, default=0, help="k of the first file written")
    ap.add_argument("--reject-term", default=None, help="only rejections whose first failing term is this")
    a = ap.parse_args()
    q = {"name": "doc", "long_side_px": a.px, "samples": a.spp, "adaptive_threshold": 0.02, "denoise": True,
         "max_bounces": 4, "pass_samples": 1}
    env = get_environment(a.env)
    scorer = env.scorer_module()
    want = {"accept": a.accept, "reject": a.reject}
    out = ROOT / "docs" / "img"
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "scenes").mkdir()
        for job in plan_jobs(a.env, a.scenes, 1, "random", set(), root_seed=a.seed, run_dir=tmp, quality=q,
                             device="cpu"):
            if not any(want.values()):
                break
            scene, geo = None, None
            for v in range(a.poses):
                if scene is None:
                    scene, geo, _ = build_scene(job)
                view, sterms = _draw_view(job, env, scorer, geo, v, 0, a.px)
                scene_ok = verdict_of(sterms) == Verdict.ACCEPT
                if not scene_ok and a.reject_term and first_failure(sterms) != a.reject_term:
                    continue
                if (scene_ok and not want["accept"]) or (not scene_ok and not want["reject"]):
                    continue
                parts = (*_seed_parts(job), v)
                photo = photograph(scene, view.pose, RenderSettings.model_validate(q), parts, 0)
                passes, jpeg, image = photo.passes, photo.jpeg, photo.image
                terms = sterms + scorer.score_frame(geo, view, RenderedFrame(image, passes.depth, passes.object_index))
                kind = "accept" if verdict_of(terms) == Verdict.ACCEPT else "reject"
                if kind == "reject" and verdict_of(terms) != Verdict.REJECT:
                    continue  # gray: neither example
                if not want[kind] or (kind == "reject" and a.reject_term and first_failure(terms) != a.reject_term):
                    continue
                k = a.first_index + (a.accept if kind == "accept" else a.reject) - want[kind]
                path = out / f"{a.env}_{kind}_{k}.jpg"
                path.write_bytes(jpeg)
                want[kind] -= 1
                print(path.name, job.scene_id, v, "failing:", first_failure(terms),
                      {t.name: t.value for t in terms}, flush=True)
    if any(want.values()):
        print("not enough examples found:", want)


if __name__ == "__main__":
    main()
