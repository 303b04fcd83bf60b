"""The static-box SOT floor and the events per clip of the warehouse generator, without Blender.

SOT: N seeded `warehouse_sot` specs; per SOT frame (strides 15/15/14) every agent's box is the
projection of its body's vertices (`warehouse.projected_box`: the silhouette box of an
unoccluded body, so racks hide nothing here and the figures are an estimate of the rendered
set's); the targets are those the packager's rule picks (`single_object_tracking.pick_targets`)
from these boxes, with "clear" read as "at least half of the unclipped box inside the frame
and at least `min_visible_px` box pixels"; the static box (the init box repeated) is scored
with the project's metric (`scorers.vantage_metrics.single_object_tracking`, both rule sets),
beside the paper's Table 9 (24.64 / 18.28 / 13.75 at 8 / 16 / 32 frames).

Events: `events(spec)` over N seeded `warehouse` specs, beside the paper's 6.9 per DVC video.

    .venv/bin/python bench/sot_static_baseline.py [--n 60] [--n-events 60] [--long-side 640]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PAPER_STATIC = {8: 24.64, 16: 18.28, 32: 13.75}
PAPER_EVENTS_PER_VIDEO = 6.9
CATEGORIES = ("person", "forklift", "amr")


def _boxes(spec, track_id: str, frames: list[int], fps: float, long_side: int):
    """Per frame: (0–1000 box or None, pixel area of the box, fraction of the unclipped box in frame)."""
    from blender_envs.infra.warehouse import agent_vertices, projected_box
    from geometry.camera import project
    from geometry.clip import camera_pose
    from packagers.vantage_tasks.box_scene import box_1000, pixel_box

    out = []
    for n in frames:
        t = n / fps
        pose = camera_pose(spec.timeline.camera, t, long_side)
        K, T, w, h = pose.K_array(), pose.cam_to_world_array(), pose.width, pose.height
        box = projected_box(spec, track_id, t, K, T, w, h)
        if box is None:
            out.append((None, 0.0, 0.0, w, h))
            continue
        uv, z = project(agent_vertices(spec, track_id, t), K, T)
        uv = uv[z > 1e-3]
        lo, hi = uv.min(axis=0), uv.max(axis=0)
        full = float(np.prod(np.maximum(hi - lo, 1e-9)))
        px = pixel_box(box)
        area = (px[2] - px[0]) * (px[3] - px[1])
        out.append((box_1000(px, w, h), area, min(1.0, (box[2] - box[0]) * (box[3] - box[1]) / full), w, h))
    return out


def sot_figures(n: int, long_side: int) -> dict:
    from blender_envs.infra import warehouse_sot
    from packagers.vantage_tasks.box_scene import min_visible_px
    from packagers.vantage_tasks.single_object_tracking import ABSENT_BELOW_PX, RULE_HORIZON, pick_targets, tags
    from render_farm.seeds import rng_for
    from scorers.vantage_metrics import single_object_tracking
    from scorers.vantage_trackers import static_track

    fps = 30.0
    per_h = {k: [] for k, _ in warehouse_sot.SOT_HORIZONS}
    motions = {k: [] for k, _ in warehouse_sot.SOT_HORIZONS}
    n_targets, clips_without = 0, 0
    for i in range(n):
        spec = warehouse_sot.sample_scene(rng_for("bench", "sot_static_baseline", i, "scene"), f"b{i:03d}", i)
        frames = warehouse_sot.SOT_FRAMES
        cand = {}
        for a in spec.timeline.agents:
            if a.category not in CATEGORIES:
                continue
            rows = _boxes(spec, a.track_id, frames, fps, long_side)
            w, h = rows[0][3], rows[0][4]
            b0, area0, frac0 = rows[0][:3]
            clear = b0 is not None and area0 >= min_visible_px(w, h) and frac0 >= 0.5
            gt = {f: (r[0] if r[0] is not None and r[1] >= ABSENT_BELOW_PX else None) for f, r in zip(frames, rows)}
            cand[a.track_id] = (clear, gt)
        rule = warehouse_sot.horizon_frames(*RULE_HORIZON)
        chosen = pick_targets([(tid, clear, [gt[f] for f in rule]) for tid, (clear, gt) in cand.items()])
        clips_without += not chosen
        n_targets += len(chosen)
        for tid in chosen:
            gt = cand[tid][1]
            for k, stride in warehouse_sot.SOT_HORIZONS:
                seq = [gt[f] for f in warehouse_sot.horizon_frames(k, stride)]
                per_h[k].append(seq)
                motions[k].append(tags(seq[0], seq, "person", 0)["motion"])
    out = {"clips": n, "targets": n_targets, "clips_without_target": clips_without}
    for k in per_h:
        row = {}
        for compat in ("vantage", "strict"):
            tracks = [(seq, static_track(SimpleNamespace(task="single_object_tracking", id="bench",
                                                         answer=SimpleNamespace(init_box=seq[0]),
                                                         media=SimpleNamespace(frame_numbers=seq))))
                      for seq in per_h[k]]
            m = single_object_tracking(tracks, compat)
            row[compat] = (100 * m["auc"], 100 * m["freeze_rate"] if m["freeze_rate"] is not None else None)
        row["motion"] = {t: motions[k].count(t) for t in ("stationary", "moderate_motion", "fast_motion")}
        out[k] = row
    return out


def event_figures(n: int) -> dict:
    from blender_envs.infra import warehouse
    from render_farm.seeds import rng_for

    counts, kinds = [], {}
    for i in range(n):
        spec = warehouse.sample_scene(rng_for("bench", "sot_static_baseline", "events", i, "scene"), f"e{i:03d}", i)
        evs = warehouse.events(spec)
        counts.append(len(evs))
        for e in evs:
            kinds[e.type] = kinds.get(e.type, 0) + 1
    c = np.array(counts)
    with_events = c[c > 0]
    return {"clips": n, "mean": float(c.mean()), "mean_with_events": float(with_events.mean()) if len(with_events) else 0.0,
            "min": int(c.min()), "max": int(c.max()), "hist": np.bincount(c).tolist(), "types": dict(sorted(kinds.items()))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=60, help="warehouse_sot specs")
    ap.add_argument("--n-events", type=int, default=60, help="warehouse specs for the event count (0: skip)")
    ap.add_argument("--long-side", type=int, default=640)
    a = ap.parse_args(argv)
    if a.n > 0:
        s = sot_figures(a.n, a.long_side)
        print(f"SOT static box over {s['clips']} warehouse_sot specs: {s['targets']} targets "
              f"({s['clips_without_target']} clips without one)")
        for k in PAPER_STATIC:
            r = s[k]
            print(f"  {k:2d}f  AUC vantage {r['vantage'][0]:6.2f}  strict {r['strict'][0]:6.2f}  "
                  f"freeze vantage {r['vantage'][1]:6.2f}   paper {PAPER_STATIC[k]:6.2f}   motion {r['motion']}")
    if a.n_events > 0:
        e = event_figures(a.n_events)
        print(f"events per warehouse clip over {e['clips']} specs: mean {e['mean']:.2f} "
              f"(clips with events: {e['mean_with_events']:.2f}), min {e['min']}, max {e['max']}, "
              f"histogram {e['hist']}; paper {PAPER_EVENTS_PER_VIDEO} per DVC video")
        print(f"  by type: {e['types']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
