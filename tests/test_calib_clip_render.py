"""calib_clip rendered for real (64x48, preview samples): the clip output contract
against independent computations, determinism, resume inside a clip, the mp4, and the
motion-blur streak of the fast agent against its predicted displacement."""
from __future__ import annotations

import io
import json
import shutil

import numpy as np
import pytest
from PIL import Image

from blender_envs.registry import get_environment
from conftest import preview_quality, run_config
from formats.records import FrameRecord
from geometry.camera import project
from geometry.clip import agent_moves, camera_pose, mesh_at
from geometry.raycast import Raycaster, SceneMesh
from render_farm.plan import FaultPlan
from render_farm.video import decode_mp4

pytestmark = pytest.mark.render

SEED = 22          # clip 0: a near miss, seen by a dollying camera; clip 1: none, a mounted camera
N_CLIPS = 2
FRAMES = 8
CLIPS = ("calib_clip-random-00000", "calib_clip-random-00001")


def _render(out, **kw):
    from render_farm.runner import render

    return render(run_config(out, env="calib_clip", n=N_CLIPS, seed=SEED, workers=1,
                             quality=preview_quality(long_side_px=64), **kw))


@pytest.fixture(scope="module")
def clip_run(tmp_path_factory):
    summary = _render(tmp_path_factory.mktemp("clip_a"))
    assert summary.clips == N_CLIPS and summary.frames == N_CLIPS * FRAMES and not summary.failed_scenes
    assert summary.line().startswith(f"{N_CLIPS} clips, {N_CLIPS * FRAMES} frames")
    return summary.run_dir


@pytest.fixture(scope="module")
def killed_run(tmp_path_factory):
    """The same config, its worker dying after 3 frames of clip 0 (the farm retries the
    clip, which resumes at its 4th frame) and the 4th frame of clip 1 raising once
    (retried inside the job)."""
    faults = FaultPlan(exit_in=["random-00000"], raise_in=["random-00001"], at_frame=3)
    summary = _render(tmp_path_factory.mktemp("clip_b"), faults=faults)
    assert summary.clips == N_CLIPS and not summary.failed_scenes
    return summary.run_dir


def _clip(run, clip_id):
    return json.loads((run / "clips" / f"{clip_id}.json").read_text())


def _frames(run):
    env = get_environment("calib_clip")
    for clip_id in CLIPS:
        clip = _clip(run, clip_id)
        state = json.loads((run / "scenes" / f"{clip['scene_id']}.json").read_text())
        spec = env.spec_model.model_validate(state["spec"])
        mesh = SceneMesh.load(run / state["meshes"])
        for f in clip["frames"]:
            index = np.load(run / f["passes"])["object_index"]
            yield clip, spec, mesh, f, index


# ------------------------------------------------------------------ the output contract

def test_clip_files_and_records(clip_run):
    recs = [FrameRecord.model_validate_json(x) for x in (clip_run / "records.jsonl").read_text().splitlines()]
    assert [r.frame_id for r in recs] == [f"{c}-{i:02d}" for c in CLIPS for i in range(FRAMES)]
    for c in range(N_CLIPS):                    # one CCTV pipeline per clip, its exposure drifting with t
        isp = [r.isp for r in recs[c * FRAMES:(c + 1) * FRAMES]]
        bias = np.array([p["exposure_bias_ev"] for p in isp])
        assert np.allclose(np.diff(bias), bias[1] - bias[0]) and 55 <= isp[0]["jpeg_quality"] <= 80
        assert all({k: v for k, v in p.items() if k != "exposure_bias_ev"} ==
                   {k: v for k, v in isp[0].items() if k != "exposure_bias_ev"} for p in isp)
    lines = [json.loads(x) for x in (clip_run / "clips.jsonl").read_text().splitlines()]
    assert [x["clip_id"] for x in lines] == list(CLIPS) and all(x["frames"] == FRAMES for x in lines)
    for clip_id in CLIPS:
        clip = _clip(clip_run, clip_id)
        assert set(clip) == {"schema_version", "clip_id", "env", "scene_id", "seed", "fps", "duration_s", "events",
                             "tracks", "video", "frames"}
        assert (clip["env"], clip["fps"], clip["duration_s"]) == ("calib_clip", 30, 4.0)
        assert [t["track_id"] for t in clip["tracks"]] == ["line", "circle", "stop_go"]
        assert [t["object_id"] for t in clip["tracks"]] == [5, 6, 7]
        assert [f["t"] for f in clip["frames"]] == [i * 0.5 for i in range(FRAMES)]   # stride 15 at 30 fps
        for f in clip["frames"]:
            assert set(f["camera"]) == {"K", "cam_to_world", "width", "height"}
            assert (f["camera"]["width"], f["camera"]["height"]) == (64, 48)
            assert [o["track_id"] for o in f["objects"]] == ["line", "circle", "stop_go"]
    near = _clip(clip_run, CLIPS[0])["events"]
    assert [(e["type"], e["actors"]) for e in near] == [("near_miss", ["line", "stop_go"])]
    assert _clip(clip_run, CLIPS[1])["events"] == []


def test_modal_box_is_the_bbox_of_the_index_pixels(clip_run):
    seen = 0
    for clip, spec, mesh, f, index in _frames(clip_run):
        for o in f["objects"]:
            mask = index == o["object_id"]
            assert o["visible_px"] == int(mask.sum())
            if not mask.any():
                assert o["box_xyxy"] is None
                continue
            rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
            assert o["box_xyxy"] == [cols[0], rows[0], cols[-1], rows[-1]]
            seen += 1
    assert seen >= 30


def test_index_pass_puts_agents_where_the_timeline_says(clip_run):
    """Ray casting the exported mesh, agents moved to their analytic poses at t, through
    the pixel centres gives the same agent masks as the rendered pass at t."""
    checked = 0
    for clip, spec, mesh, f, index in _frames(clip_run):
        ids = {t["track_id"]: t["object_id"] for t in clip["tracks"]}
        posed = mesh_at(mesh, agent_moves(spec.timeline.agents, ids, f["t"]))
        cam = f["camera"]
        ray_ids, _ = Raycaster(posed).first_hit_ids_for_pixels(np.array(cam["K"]), np.array(cam["cam_to_world"]),
                                                                cam["width"], cam["height"])
        for oid in ids.values():
            a, b = int((ray_ids == oid).sum()), int((index == oid).sum())
            assert abs(a - b) <= max(2, 0.1 * a), (clip["clip_id"], f["index"], oid, a, b)
            if a >= 10:
                overlap = ((ray_ids == oid) & (index == oid)).sum()
                assert overlap >= 0.8 * a
                checked += 1
    assert checked >= 25


def test_projected_centre_inside_mask_and_amodal_contains_modal(clip_run):
    inside = 0
    for clip, spec, mesh, f, index in _frames(clip_run):
        K, T = np.array(f["camera"]["K"]), np.array(f["camera"]["cam_to_world"])
        for o in f["objects"]:
            agent = spec.timeline.agent(o["track_id"])
            assert o["center_world"] == pytest.approx(list(agent.position(f["t"])), abs=1e-6)
            if o["box_xyxy"] is None:
                continue
            m, am = o["box_xyxy"], o["amodal_box_xyxy"]
            # the pass samples within 0.005 px of each pixel centre
            assert am[0] <= m[0] + 0.01 and am[1] <= m[1] + 0.01 and am[2] >= m[2] - 0.01 and am[3] >= m[3] - 0.01
            if o["visible_fraction"] < 0.9 or o["visible_px"] < 9:
                continue
            uv, _ = project(agent.position(f["t"])[None], K, T)
            u, v = uv[0]
            assert index[int(round(v)), int(round(u))] == o["object_id"], (clip["clip_id"], f["index"], o)
            inside += 1
    assert inside >= 20


def test_mp4_decodes_to_the_frames_in_order(clip_run):
    for clip_id in CLIPS:
        clip = _clip(clip_run, clip_id)
        decoded = decode_mp4((clip_run / clip["video"]).read_bytes())
        assert [t for t, _ in decoded] == pytest.approx([f["t"] for f in clip["frames"]])
        jpegs = [np.asarray(Image.open(clip_run / f["image"]).convert("RGB"), float) for f in clip["frames"]]
        for k, (_, img) in enumerate(decoded):
            err = [np.abs(img.astype(float) - j).mean() for j in jpegs]
            assert int(np.argmin(err)) == k and err[k] < 6.0, (clip_id, k, err)


# ------------------------------------------------------------------ determinism and resume

def _files(run):
    return {p.relative_to(run).as_posix(): p.read_bytes() for sub in ("frames", "passes", "clips", "scenes")
            for p in sorted((run / sub).iterdir())} | {"clips.jsonl": (run / "clips.jsonl").read_bytes()}


def _stable_records(run):
    return [FrameRecord.model_validate_json(x).stable_json() for x in (run / "records.jsonl").read_text().splitlines()]


def test_killed_clip_resumes_without_missing_or_duplicate_frames(clip_run, killed_run):
    failures = [json.loads(x) for x in (killed_run / "failures.jsonl").read_text().splitlines()]
    assert [(f["scene_id"], f["attempt"], f["views"]) for f in failures] == [("random-00000", 0, [3, 4, 5, 6, 7])]
    recs = [FrameRecord.model_validate_json(x) for x in (killed_run / "records.jsonl").read_text().splitlines()]
    assert [r.frame_id for r in recs] == [f"{c}-{i:02d}" for c in CLIPS for i in range(FRAMES)]
    assert [r.renders for r in recs] == [1] * (FRAMES + 3) + [2] + [1] * (FRAMES - 4)  # the retried frame
    # same seed, same bytes: records (but timings and that render count), frames, passes, scenes, clip JSON, mp4
    retried = FRAMES + 3
    stable, clean = _stable_records(killed_run), _stable_records(clip_run)
    assert stable[retried] == clean[retried].replace('"renders":1', '"renders":2')
    del stable[retried], clean[retried]
    assert stable == clean
    a, b = _files(clip_run), _files(killed_run)
    assert sorted(a) == sorted(b) and [k for k in a if a[k] != b[k]] == []


def test_rerun_resumes_a_half_written_clip(clip_run, tmp_path):
    """Kill state on disk: clip 1 has frames 0-3 and a torn record line, no clip file."""
    run = tmp_path / "calib_clip"
    shutil.copytree(clip_run, run)
    lines = (run / "records.jsonl").read_text().splitlines(keepends=True)
    (run / "records.jsonl").write_text("".join(lines[:FRAMES + 4]) + lines[FRAMES + 4][:40])
    for i in range(4, FRAMES):
        (run / "frames" / f"{CLIPS[1]}-{i:02d}.jpg").unlink()
    (run / "clips" / f"{CLIPS[1]}.json").unlink()
    (run / "clips" / f"{CLIPS[1]}.mp4").unlink()
    summary = _render(tmp_path)
    assert summary.rendered_now == 4 and summary.clips == N_CLIPS
    assert _stable_records(run) == _stable_records(clip_run)
    a, b = _files(clip_run), _files(run)
    assert [k for k in a if a[k] != b.get(k)] == []


# ------------------------------------------------------------------ motion blur

def test_motion_blur_streak_matches_the_predicted_displacement(tmp_path):
    """The fast `line` box alone, as white emission on black, blurred over a 0.25 s
    shutter: its coverage image is the static silhouette swept along the predicted image
    displacement D. Measured from the beauty render: the coverage centroid moves D/2 from
    the static mask's (within 8% + 0.5 px), the coverage integrates to the mean silhouette
    area (5%), and the streak's extent along D grows as the swept silhouette's does
    (within 1.5 px + 5%: the pixel filter's reach)."""
    from blender_envs.core.bpy_env import bpy
    from blender_envs.core.render_passes import render_frame
    from blender_envs.core.settings import RenderSettings
    from render_farm.clip_job import pose_scene_at
    from render_farm.job import build_scene
    from render_farm.plan import plan_jobs

    quality = preview_quality(long_side_px=160, samples=48)
    job = plan_jobs("calib_clip", 2 * FRAMES, FRAMES, "random", set(), root_seed=SEED, run_dir=str(tmp_path),
                    quality=quality, device="cpu")[1]                  # clip 1: a mounted (still) camera
    scene, geo, _ = build_scene(job)
    tl = geo.spec.timeline
    line = tl.agent("line")
    cam = tl.camera.model_copy(update={"shutter_s": 0.25})


    def swept_inside(t):  # the box at shutter open and close lies well inside the image
        p = camera_pose(cam, t, 160)
        uv, _ = project(np.vstack([line.box_corners(t), line.box_corners(t + 0.25)]), p.K_array(),
                        p.cam_to_world_array())
        return uv.min() >= 3 and uv[:, 0].max() <= p.width - 4 and uv[:, 1].max() <= p.height - 4

    t = next(t for t in tl.clip.timestamps() if swept_inside(t))
    pose = camera_pose(cam, t, 160)
    K, T = pose.K_array(), pose.cam_to_world_array()
    (u0, v0), (u1, v1) = project(np.array([line.position(t), line.position(t + 0.25)]), K, T)[0]
    D = np.array([u1 - u0, v1 - v0])
    assert np.linalg.norm(D) > 8.0                                     # a streak worth measuring

    for ob in scene.objects:
        if ob.name != "line" and ob.type in ("MESH", "LIGHT"):
            ob.hide_render = True
    scene.world = None
    mat = bpy.data.materials.new("white_emission")
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (0.0, 0.0, 0.0, 1.0)
    bsdf.inputs["Emission Color"].default_value = (1.0, 1.0, 1.0, 1.0)
    bsdf.inputs["Emission Strength"].default_value = 1.0
    bpy.data.objects["line"].data.materials[0] = mat
    pose_scene_at(scene, tl, pose, t)
    passes = render_frame(scene, RenderSettings.model_validate(quality), seed=7)

    cover = np.clip(passes.linear_rgb.mean(axis=-1), 0.0, None)
    static = passes.object_index == geo.object_id("line")
    assert static.sum() > 20
    vv, uu = np.mgrid[0:pose.height, 0:pose.width]
    d = D / np.linalg.norm(D)
    along = uu * d[0] + vv * d[1]
    c_static = np.array([uu[static].mean(), vv[static].mean()])
    c_blur = np.array([(uu * cover).sum(), (vv * cover).sum()]) / cover.sum()
    shift = c_blur - c_static
    assert np.linalg.norm(shift - D / 2) <= 0.08 * np.linalg.norm(D) / 2 + 0.5, (shift, D / 2)
    # blur spreads the box's light, it adds none: the coverage sums to the silhouette's area
    # averaged over the shutter (it shrinks as the box drives away); silhouettes by ray casting
    oid = geo.object_id("line")
    keep = geo.mesh.tri_object_id == oid
    solo = SceneMesh(geo.mesh.vertices, geo.mesh.triangles[keep], geo.mesh.tri_object_id[keep], np.array([oid]),
                     np.array(["line"]))
    silhouettes = [Raycaster(mesh_at(solo, agent_moves([line], {"line": oid}, t + dt)))
                   .first_hit_ids_for_pixels(K, T, pose.width, pose.height)[0] == oid
                   for dt in np.linspace(0.0, 0.25, 11)]
    assert abs(int(silhouettes[0].sum()) - int(static.sum())) <= 3
    assert cover.sum() == pytest.approx(np.mean([m.sum() for m in silhouettes]), rel=0.05)
    # the streak (pixels seen by the box for >= 1% of the shutter) is the swept silhouette
    swept = np.logical_or.reduce(silhouettes)
    predicted = np.ptp(along[swept]) - np.ptp(along[static])
    grown = np.ptp(along[cover > 0.01]) - np.ptp(along[static])
    assert predicted > 0.6 * np.linalg.norm(D)
    assert abs(grown - predicted) <= 1.5 + 0.05 * predicted, (grown, predicted, np.linalg.norm(D))


# ------------------------------------------------------------------ the command (`make render ENV=calib_clip N=...`)

def test_cli_renders_clips_and_prints_the_summary(tmp_path):
    from conftest import run_cli

    r = run_cli("render", "env=calib_clip", "n=1", "render=preview", f"out={tmp_path}", "workers=1", "progress=false")
    last = r.stdout.strip().splitlines()[-1]
    assert last.startswith("scenebench: 1 clips, 8 frames (8 accepted, 0 rejected, 0 unscored, 0 excluded), "
                           "0 failed scenes"), last
    assert (tmp_path / "calib_clip" / "clips" / "calib_clip-random-00000.mp4").is_file()
