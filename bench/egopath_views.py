"""egopath views without Blender: ground-truth cost per view and Table S10's route structure.

    .venv/bin/python bench/egopath_views.py [--scenes 12] [--views 4] [--seed 0] [--long-side 640]

For K procedural scenes x V views it does what a farm worker does, minus rendering:
draw the spec (`sample_scene`), build its mesh as data (`blender_envs.indoor.mesh.spec_mesh`,
equal to the Blender export), draw poses with the farm's seeds until the scene-side terms
accept one (positive stratum, at most --max-attempts), then compute the view's ground truth
(`scorers.egopath_view.ground_truth`). It prints

* timings: occupancy per scene; per view the pose search, graph building + route search
  (goal rings, grid search and string pulling, both feasibility graphs, shortest routes and
  verification) against the 1 s budget, waypoint display/insertion, and the whole ground truth;
* Table S10 (b), benchmark route structure (median / P90 / max next to the paper's), over
  route questions as the packager forms them: a Point Path question per unit with a point
  reference, an Embodied Path question per unit with an embodied reference, an Intent Path
  question per unit with both an embodied reference and an accepted intent;
* the share of route units with point / embodied / intent references.

Numbers vary by +-30% on a shared machine; the structure numbers are deterministic.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from blender_envs.indoor.egopath import sample_scene, sample_view  # noqa: E402
from blender_envs.indoor.mesh import spec_mesh, spec_objects  # noqa: E402
from geometry.egopath_schema import ViewAnnotation  # noqa: E402
from geometry.raycast import Raycaster, camera_inside_mesh  # noqa: E402
from geometry.scene import SceneState  # noqa: E402
from render_farm.seeds import derive_seed, rng_for  # noqa: E402
from scorers import egopath_view  # noqa: E402
from scorers.context import SceneGeometry  # noqa: E402
from scorers.terms import Verdict, verdict_of  # noqa: E402

BUDGET_S = 1.0
# Table S10 (b): signal -> (N, median, P90, max)
PAPER = {
    "same-type target ambiguity": (819, 4, 8, 16),
    "reference segments (Point Path)": (309, 1, 2, 3),
    "reference segments (Body Path)": (309, 2, 3, 9),
    "reference segments (Intent Path)": (201, 2, 3, 9),
    "reference path length (m)": (819, 3.2, 4.8, 8.5),
    "embodied narrow-passage fraction": (510, 0.40, 0.81, 1.00),
}


def scene_geometry(spec, scene_id: str) -> SceneGeometry:
    """What a scorer sees after a farm build, from the spec alone."""
    mesh = spec_mesh(spec)
    state = SceneState(env="egopath", scene_id=scene_id, spec=spec.model_dump(mode="json"),
                       objects=spec_objects(spec), meshes="")
    return SceneGeometry(spec=spec, state=state, mesh=mesh, raycaster=Raycaster(mesh))


def _length(ann: ViewAnnotation, ref: list[int]) -> float:
    xy = {w.display_id: np.asarray(w.world[:2], float) for w in ann.route.waypoints}
    return float(sum(np.linalg.norm(xy[b] - xy[a]) for a, b in zip(ref[:-1], ref[1:])))


def route_structure(anns: list[ViewAnnotation]) -> tuple[dict[str, list[float]], dict[str, float]]:
    """(Table S10 (b) samples per signal, unit shares) over the annotations' route questions."""
    sig: dict[str, list[float]] = {k: [] for k in PAPER}
    n_units = n_point = n_emb = n_int = 0
    for ann in anns:
        same = {t.object_id: t.same_category_in_view for t in ann.targets}
        for u in ann.routes:
            n_units += 1
            qs = []
            if u.point_reference is not None:
                n_point += 1
                qs.append(("Point Path", u.point_reference))
            if u.embodied_reference is not None:
                n_emb += 1
                qs.append(("Body Path", u.embodied_reference))
                if u.intent is not None:
                    n_int += 1
                    qs.append(("Intent Path", u.embodied_reference))
            for task, ref in qs:
                sig["same-type target ambiguity"].append(same[u.target_object_id])
                sig[f"reference segments ({task})"].append(len(ref) - 1)
                sig["reference path length (m)"].append(_length(ann, ref))
                if task != "Point Path":
                    sig["embodied narrow-passage fraction"].append(float(u.embodied_narrow_fraction))
    d = max(n_units, 1)
    return sig, {"units": n_units, "point": n_point / d, "embodied": n_emb / d, "intent": n_int / d}


def _stats(v) -> tuple[int, float, float, float]:
    if not len(v):
        return 0, float("nan"), float("nan"), float("nan")
    a = np.asarray(v, float)
    return len(a), float(np.median(a)), float(np.percentile(a, 90)), float(a.max())


def run(n_scenes: int, n_views: int, seed: int, long_side: int, max_attempts: int, verbose: bool = True):
    """Returns (annotations, timings dict of lists, counters)."""
    anns: list[ViewAnnotation] = []
    T = {k: [] for k in ("spec_s", "mesh_s", "occupancy_s", "pose_s", "search_s", "insert_s", "gt_s")}
    counts = {"views": 0, "no_pose": 0, "no_start": 0, "attempts": 0}
    for s in range(n_scenes):
        parts = ("scenebench", seed, "egopath", "positive", s)
        t0 = time.perf_counter()
        spec = sample_scene(rng_for(*parts, "scene"), f"egopath-bench-{s:03d}", derive_seed(*parts, "scene"))
        t1 = time.perf_counter()
        geo = scene_geometry(spec, spec.scene_id)
        t2 = time.perf_counter()
        egopath_view.occupancy_grid(geo)
        t3 = time.perf_counter()
        T["spec_s"].append(t1 - t0)
        T["mesh_s"].append(t2 - t1)
        T["occupancy_s"].append(t3 - t2)
        for v in range(n_views):
            t0 = time.perf_counter()
            view = None
            for attempt in range(max_attempts):
                counts["attempts"] += 1
                cand = sample_view(spec, rng_for(*parts, v, "view", attempt), v, long_side, attempt=attempt)
                if camera_inside_mesh(geo.raycaster, geo.mesh, cand.pose.center):
                    continue
                if verdict_of(egopath_view.score_scene(geo, cand)) == Verdict.ACCEPT:
                    view = cand
                    break
            T["pose_s"].append(time.perf_counter() - t0)
            if view is None:
                counts["no_pose"] += 1
                continue
            tim: dict = {}
            t0 = time.perf_counter()
            gt = egopath_view.ground_truth(geo, view, None, timings=tim)
            T["gt_s"].append(time.perf_counter() - t0)
            if "annotation_error" in gt:
                counts["no_start"] += 1
                continue
            T["search_s"].append(tim.get("route_search_s", 0.0) + tim.get("graphs_s", 0.0) + tim.get("verify_s", 0.0))
            T["insert_s"].append(tim.get("insert_s", 0.0))
            anns.append(ViewAnnotation.model_validate({k: x for k, x in gt.items() if k != "scene_group"}))
            counts["views"] += 1
        if verbose:
            print(f"  scene {s:2d}: {len(spec.rooms)} rooms, {len(spec.furniture)} pieces, "
                  f"{sum(len(a.routes) for a in anns)} units so far", flush=True)
    return anns, T, counts


def _views(n_scenes: int, seed: int, long_side: int, max_attempts: int, n_views: int = 4):
    """(scene index, spec, geometry, accepted view, annotation) for every annotated view."""
    out = []
    for s in range(n_scenes):
        parts = ("scenebench", seed, "egopath", "positive", s)
        spec = sample_scene(rng_for(*parts, "scene"), f"egopath-bench-{s:03d}", derive_seed(*parts, "scene"))
        geo = scene_geometry(spec, spec.scene_id)
        for v in range(n_views):
            for attempt in range(max_attempts):
                view = sample_view(spec, rng_for(*parts, v, "view", attempt), v, long_side, attempt=attempt)
                if not camera_inside_mesh(geo.raycaster, geo.mesh, view.pose.center) and \
                        verdict_of(egopath_view.score_scene(geo, view)) == Verdict.ACCEPT:
                    gt = egopath_view.ground_truth(geo, view)
                    if "annotation_error" not in gt:
                        ann = ViewAnnotation.model_validate({k: x for k, x in gt.items() if k != "scene_group"})
                        out.append((s, spec, geo, view, ann))
                    break
    return out


def doc_images(out_dir: Path, n_scenes: int, seed: int, samples: int = 24) -> list[Path]:
    """Render the docs' example views (640 x 480, Cycles, the farm's phone ISP) with their
    route sheets; the longest embodied reference of the view is drawn as a line under the
    markers. Needs bpy."""
    from PIL import Image, ImageDraw

    from blender_envs.core.camera_rig import apply_camera_pose
    from blender_envs.core.cycles_setup import configure_cycles, configure_device
    from blender_envs.core.render_passes import render_frame
    from blender_envs.core.scene_reset import reset_scene
    from blender_envs.core.settings import RenderSettings
    from blender_envs.indoor.build import build
    from blender_envs.indoor.layout import room_at
    from render_farm.isp import process_frame, sample_isp_params
    from scorers.egopath_overlay import draw_candidates

    views = _views(n_scenes, seed, 640, 60)

    def room(v):
        return room_at(v[1], v[4].camera_xy) or ""

    def n_emb(v):
        return sum(u.embodied_reference is not None for u in v[4].routes)

    def ambiguity(v):
        return max((t.same_category_in_view for t in v[4].targets), default=0)

    picks = {}
    kitchen = [v for v in views if room(v) == "kitchen"] or views
    picks["egopath_kitchen"] = max(kitchen, key=lambda v: (n_emb(v), len(v[4].routes)))
    dining = [v for v in views if room(v) == "dining room" and v is not picks["egopath_kitchen"]] or views
    picks["egopath_dining"] = max(dining, key=lambda v: (n_emb(v), len(v[4].routes)))
    rest = [v for v in views if all(v is not p for p in picks.values())]
    picks["egopath_clutter"] = max(rest, key=lambda v: (ambiguity(v), n_emb(v)))
    quality = RenderSettings(name="docs", long_side_px=640, samples=samples, denoise=True, max_bounces=4)
    written = []
    for stem, (s, spec, geo, view, ann) in picks.items():
        scene = reset_scene()
        configure_cycles(scene, quality, s)
        configure_device(scene, "cpu")
        build(scene, spec)
        apply_camera_pose(scene, view.pose)
        passes = render_frame(scene, quality, seed=s)
        rgb, _ = process_frame(passes.linear_rgb, sample_isp_params(np.random.default_rng([seed, s, 1])),
                               np.random.default_rng([seed, s, 2]))
        base = Image.fromarray(rgb)
        sheets = [("route", ann.route)] + ([("traversability", ann.traversability)] if stem == "egopath_kitchen" else [])
        for kind, sheet in sheets:
            img = base.copy()
            if kind == "route":
                refs = [u.embodied_reference for u in ann.routes if u.embodied_reference]
                if refs:
                    px = {w.display_id: tuple(w.pixel) for w in sheet.waypoints}
                    ImageDraw.Draw(img).line([px[d] for d in max(refs, key=len)], fill=(255, 170, 0), width=3)
            path = out_dir / f"{stem}_{kind}.jpg"
            draw_candidates(img, sheet.waypoints).save(path, quality=90)
            written.append(path)
        print(f"  {path.name}: scene {s} view {view.view_index}, room {room((s, spec, geo, view, ann))}, "
              f"{len(ann.routes)} units, targets {[t.name for t in ann.targets]}")
    return written


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenes", type=int, default=12)
    ap.add_argument("--views", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--long-side", type=int, default=640)
    ap.add_argument("--max-attempts", type=int, default=60)
    ap.add_argument("--doc-images", type=Path, default=None,
                    help="render the docs' example views into this folder instead (needs bpy)")
    a = ap.parse_args(argv)
    if a.scenes < 1 or a.views < 1:
        raise SystemExit("--scenes and --views must be >= 1")
    if a.doc_images is not None:
        for p in doc_images(a.doc_images, a.scenes, a.seed):
            print(p)
        return
    anns, T, counts = run(a.scenes, a.views, a.seed, a.long_side, a.max_attempts)

    print(f"\n{a.scenes} scenes x {a.views} views at {a.long_side} px: {counts['views']} annotated views "
          f"({counts['no_pose']} without an accepted pose in {a.max_attempts} draws, {counts['no_start']} without "
          f"a start; {counts['attempts']} pose draws)")
    print("\ntimings (mean / max, seconds)")
    for k, label in (("spec_s", "spec draw / scene"), ("mesh_s", "spec mesh + raycaster / scene"),
                     ("occupancy_s", "occupancy grid / scene"), ("pose_s", "pose search + scene terms / view"),
                     ("search_s", "graph building + route search / view"), ("insert_s", "route waypoint display / view"),
                     ("gt_s", "whole ground truth / view")):
        v = np.asarray(T[k]) if T[k] else np.zeros(1)
        print(f"  {label:40s} {v.mean():7.3f} / {v.max():7.3f}")
    gs = np.asarray(T["search_s"]) if T["search_s"] else np.zeros(1)
    print(f"  graph building + route search vs {BUDGET_S:.0f} s budget: mean ratio {gs.mean() / BUDGET_S:.3f}, "
          f"max ratio {gs.max() / BUDGET_S:.3f}")

    sig, share = route_structure(anns)
    print("\nTable S10 (b) benchmark route structure      ours: N   median    P90     max | paper: N median  P90   max")
    for k, (pn, pm, pp, px) in PAPER.items():
        n, m, p, x = _stats(sig[k])
        print(f"  {k:40s} {n:5d} {m:8.2f} {p:7.2f} {x:7.2f} | {pn:7d} {pm:6.2f} {pp:5.2f} {px:5.2f}")
    for agent in ("point", "embodied"):
        n, m, p, x = _stats([getattr(u, f"{agent}_shortest_m") for ann in anns for u in ann.routes
                             if getattr(u, f"{agent}_shortest_m") is not None])
        print(f"  {agent + ' shortest route (m), per unit':40s} {n:5d} {m:8.2f} {p:7.2f} {x:7.2f}")
    # Table S12's N column: share of questions whose reference is one edge (paper 250/309, 135/309, 91/201)
    one_edge = {"Point Path": 250 / 309, "Body Path": 135 / 309, "Intent Path": 91 / 201}
    for task, paper in one_edge.items():
        segs = sig[f"reference segments ({task})"]
        mine = float(np.mean(np.asarray(segs) == 1)) if segs else float("nan")
        print(f"  {'one-edge references (' + task + ')':40s} {len(segs):5d} {mine:8.2f}{'':17s}| paper {paper:.2f}")
    print(f"\nroute units: {share['units']} ({share['units'] / max(counts['views'], 1):.2f} per view); with a point "
          f"reference {share['point']:.0%}, embodied {share['embodied']:.0%}, intent {share['intent']:.0%}")


if __name__ == "__main__":
    main()
