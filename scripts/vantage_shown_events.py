"""How many events of each type the timeline clips' shown frames show (VANTAGE timeline tasks).

The timeline tasks ask only about shown events (`TimelineClip.shown`); this prints, per
environment and event type over N drawn scenes, how many events there are, how many hold a
shown frame in their window and how many are shown (at such a frame every actor has at least
half its projected box in the image; lasting types count a frame before and one after), with
their lengths. The figures in docs/vantage-deviations.md ("events between
shown frames") came from `python scripts/vantage_shown_events.py 100` (and 30 before the scripts
timed their events onto the frames). Specs only, no Blender.
"""
from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from blender_envs.infra import entrance, intersection, warehouse  # noqa: E402
from packagers.vantage_tasks.timeline_clip import TimelineClip  # noqa: E402
from render_farm.seeds import rng_for  # noqa: E402

ENVS = {"warehouse": warehouse, "intersection": intersection, "entrance": entrance}


def table(env: str, n: int) -> list[str]:
    rows: dict[str, list] = defaultdict(lambda: [0, 0, 0, []])
    times: list[float] = []
    for seed in range(n):
        spec = ENVS[env].sample_scene(rng_for(env, seed, "scene"), f"s{seed}", seed)
        clip = TimelineClip.from_spec(spec, 160)
        times = spec.timeline.clip.timestamps()
        for e in clip.events:
            row = rows[e.type]
            row[0] += 1
            row[1] += any(e.t_start <= t <= e.t_end for t in times)
            row[2] += clip.shown(e)
            row[3].append(e.t_end - e.t_start)
    out = [f"{env}: shown frames at {', '.join(f'{t:.2f}' for t in times)} s"]
    for kind, (total, inside, shown, lengths) in sorted(rows.items()):
        out.append(f"  {kind:20s} {total:4d} events, a frame inside {inside:4d}, shown {shown:4d} ({shown / total:4.0%}); "
                   f"length {min(lengths):.2f}-{max(lengths):.2f} s, median {np.median(lengths):.2f} s")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("n", type=int, nargs="?", default=30, help="scenes per environment (default 30)")
    p.add_argument("--env", choices=sorted(ENVS), action="append", help="only these environments")
    args = p.parse_args(argv)
    if not 1 <= args.n <= 10_000:
        print("vantage_shown_events: n must be between 1 and 10000", file=sys.stderr)
        return 2
    for env in args.env or ENVS:
        print("\n".join(table(env, args.n)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
