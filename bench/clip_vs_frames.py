"""A 16-frame clip against 16 single-frame renders of the same calib_clip scene.

clip:   one scene build (reset, Cycles setup, build, mesh export), then per timestamp
        move agents and camera and render (beauty with motion blur + static pass render),
        as render_farm.clip_job does; persistent data keeps the BVH between frames.
frames: for each of the 16 timestamps a fresh build of the same scene and one render,
        i.e. what the single-frame farm would do with 16 one-view scenes.
Also: the time to encode the 16 developed frames into the clip's mp4, and each mode's
peak resident memory (each mode runs in its own process, like a farm worker, measured
after `import bpy`). Not a test: numbers vary by about +-30% on a shared machine.

    .venv/bin/python bench/clip_vs_frames.py [--long-side 160] [--samples 8] [--frames 16]
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _spec(frames: int):
    """calib_clip scene 0 of seed 0, sampled at `frames` timestamps over its 4 s."""
    from blender_envs.registry import get_environment
    from geometry.clip import ClipSpec
    from render_farm.seeds import rng_for

    env = get_environment("calib_clip")
    spec = env.sample_scene(rng_for("bench", "clip_vs_frames", "scene"), "bench-00000", 0)
    stride = (int(spec.timeline.clip.duration_s * spec.timeline.clip.fps) - 1) // (frames - 1)
    clip = ClipSpec(duration_s=spec.timeline.clip.duration_s, sampling={"kind": "strided", "n": frames,
                                                                        "stride": stride})
    return env, spec.model_copy(update={"timeline": spec.timeline.model_copy(update={"clip": clip})})


def _build(env, spec, quality):
    from blender_envs.core.cycles_setup import configure_cycles, configure_device
    from blender_envs.core.mesh_export import export_world_triangles
    from blender_envs.core.scene_reset import reset_scene

    scene = reset_scene()
    configure_cycles(scene, quality, 1)
    configure_device(scene, "cpu")
    env.build_function()(scene, spec)
    export_world_triangles(scene)
    return scene


def _render_at(scene, spec, quality, t):
    from blender_envs.core.render_passes import render_frame
    from geometry.clip import camera_pose
    from render_farm.clip_job import pose_scene_at

    pose = camera_pose(spec.timeline.camera, t, quality.long_side_px)
    pose_scene_at(scene, spec.timeline, pose, t)
    return render_frame(scene, quality, seed=1)


def run_mode(mode: str, quality_dict: dict, frames: int) -> dict:
    import blender_envs.core.bpy_env  # noqa: F401  (pay the import before timing)
    from blender_envs.core.settings import RenderSettings
    from render_farm.isp import process_frame, sample_isp_params
    from render_farm.seeds import rng_for
    from render_farm.video import encode_mp4

    quality = RenderSettings.model_validate(quality_dict)
    env, spec = _spec(frames)
    ts = spec.timeline.clip.timestamps()
    rss_after_import = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    rendered = []
    if mode == "clip":
        scene = _build(env, spec, quality)
        rendered = [_render_at(scene, spec, quality, t) for t in ts]
    else:
        for t in ts:
            rendered.append(_render_at(_build(env, spec, quality), spec, quality, t))
    wall = time.perf_counter() - t0
    out = {"mode": mode, "frames": len(ts), "wall_s": wall, "fps": len(ts) / wall,
           "render_s": sum(p.render_s + p.pass_render_s for p in rendered),
           "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           "rss_after_import_mb": rss_after_import / 1024}
    if mode == "clip":
        isp = sample_isp_params(rng_for("bench", "isp"))
        images = [process_frame(p.linear_rgb, isp, rng_for("bench", k))[0] for k, p in enumerate(rendered)]
        t0 = time.perf_counter()
        mp4 = encode_mp4(images, spec.timeline.clip.frame_numbers(), spec.timeline.clip.fps)
        out.update(encode_s=time.perf_counter() - t0, mp4_bytes=len(mp4))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--long-side", type=int, default=160)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--frames", type=int, default=16)
    ap.add_argument("--mode", choices=("clip", "frames"))
    args = ap.parse_args()
    quality = yaml.safe_load((ROOT / "configs" / "render" / "preview.yaml").read_text())
    quality.update(long_side_px=args.long_side, samples=args.samples, threads=1)
    if args.mode:  # one measurement, in this process
        print(json.dumps(run_mode(args.mode, quality, args.frames)))
        return
    results = {}
    for mode in ("clip", "frames"):
        r = subprocess.run([sys.executable, __file__, "--mode", mode, "--long-side", str(args.long_side),
                            "--samples", str(args.samples), "--frames", str(args.frames)],
                           capture_output=True, text=True, check=True, cwd=ROOT)
        results[mode] = json.loads(r.stdout.strip().splitlines()[-1])
    c, f = results["clip"], results["frames"]
    print(f"calib_clip, {args.frames} timestamps at {args.long_side} px, {args.samples} samples, 1 thread")
    for r in (c, f):
        print(f"  {r['mode']:<6} {r['wall_s']:7.2f} s  {r['fps']:5.2f} frames/s  (Cycles {r['render_s']:6.2f} s)  "
              f"peak RSS {r['max_rss_mb']:6.0f} MB (after import bpy {r['rss_after_import_mb']:.0f} MB)")
    print(f"  clip / frames speed-up: {c['fps'] / f['fps']:.2f}x")
    print(f"  mp4 encode of {args.frames} frames: {1000 * c['encode_s']:.1f} ms ({c['mp4_bytes']} bytes)")


if __name__ == "__main__":
    main()
