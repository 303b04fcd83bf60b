"""car_view's face histograms on the farm's random field poses (scene side, no render):
the requested face of every pose the sampler returns, of the accepted ones, and the face
shown; acceptance and unscored. `--policy whole` redraws a blocked pose face and all (h12's
first vehicle-8 sampler) for a before/after comparison on the same lots.

    .venv/bin/python bench/car_view_faces.py --scenes 50 --poses 8 [--root 0] [--policy whole]
"""
from __future__ import annotations

import argparse
import collections
import json
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=50)
    ap.add_argument("--poses", type=int, default=8)
    ap.add_argument("--root", type=int, default=0)
    ap.add_argument("--px", type=int, default=640)
    ap.add_argument("--policy", choices=["env", "whole"], default="env")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()

    import scorers.car_view as cv
    from blender_envs.registry import get_environment
    from blender_envs.vehicle import car_view as cvm
    from blender_envs.vehicle.body import hull_points, to_world
    from blender_envs.vehicle.sightline import MAX_POSE_DRAWS, occluders, pose_problem
    from render_farm.job import sample_spec, view_seed
    from render_farm.plan import plan_jobs
    from scorers.terms import Verdict, verdict_of

    env = get_environment("car_view")

    def whole(spec, rng, v):
        boxes = occluders(spec.lot)
        t = to_world(spec.lot.subject.placement, hull_points(spec.lot.subject.body))
        for _ in range(MAX_POSE_DRAWS):
            view = cvm.draw_view(spec, rng, v, a.px)
            if pose_problem(boxes, view.pose.center, t) is None:
                return view
        raise RuntimeError("no clear pose")

    t0 = time.perf_counter()
    drawn, acc, shown, shown_acc = (collections.Counter() for _ in range(4))
    verdicts = []
    for job in plan_jobs("car_view", a.scenes, 1, "random", set(), root_seed=a.root, run_dir="unused",
                         quality={"long_side_px": a.px}, device="cpu"):
        spec = sample_spec(job)
        for v in range(a.poses):
            rng = np.random.default_rng(view_seed(job, v, 0))
            view = env.sample_view(spec, rng, v, a.px) if a.policy == "env" else whole(spec, rng, v)
            face = view.target.split(":")[1]
            vd = verdict_of(cv.scene_terms_of(spec, view.pose))
            gt = cv.ground_truth(type("G", (), {"spec": spec, "state": None})(), view)
            drawn[face] += 1
            shown[gt["side"]] += 1
            acc[face] += vd == Verdict.ACCEPT
            shown_acc[gt["side"]] += vd == Verdict.ACCEPT
            verdicts.append(vd)
    faces = ("front", "rear", "driver", "passenger")
    n = len(verdicts)
    out = {"policy": a.policy, "root": a.root, "poses": n,
           "requested": [drawn[f] for f in faces], "accepted_by_requested": [acc[f] for f in faces],
           "shown": [shown[f] for f in faces], "shown_accepted": [shown_acc[f] for f in faces],
           "accepted": sum(v == Verdict.ACCEPT for v in verdicts),
           "unscored": sum(v == Verdict.UNSCORED for v in verdicts),
           "chi2_requested": sum((drawn[f] - n / 4) ** 2 / (n / 4) for f in faces),
           "seconds": round(time.perf_counter() - t0, 1)}
    print(json.dumps(out))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh)


if __name__ == "__main__":
    main()
