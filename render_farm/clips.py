"""The clip half of the run store: OUT/<env>/clips/<clip_id>.json + .mp4 and clips.jsonl.

The coordinator writes them from what is already verified in the run store (the
frames' records, JPEGs and the scene's spec), after the frames are in: a clip is
written once all its sampled frames are finished, so a killed or partial clip has no
clip file yet and a rerun writes it when its last frames arrive. Everything is a
function of those files (events from the trajectories, per-frame objects from the
records), so a rerun or resume writes the same bytes.
"""
from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
from PIL import Image

from formats import atomic
from formats.canonical import canonical_json, pretty_json
from formats.records import FrameRecord
from render_farm.store import RunStore
from render_farm.video import decode_mp4, encode_mp4

CLIP_SCHEMA_VERSION = 1


def clip_id_for(env: str, scene_id: str) -> str:
    return f"{env}-{scene_id}"


def _frame_entry(r: FrameRecord) -> dict:
    cam = r.camera
    return {"index": r.view_index, "t": r.ground_truth["t"], "frame_number": r.ground_truth["frame_number"],
            "image": r.image, "passes": r.passes,
            "camera": {"K": cam["K"], "cam_to_world": cam["cam_to_world"], "width": cam["width"],
                       "height": cam["height"]},
            "objects": r.ground_truth["objects"]}


def clip_document(env, store: RunStore, scene_id: str, records: list[FrameRecord]) -> dict:
    """The clip's JSON (the output contract of docs/envs/calib_clip.md)."""
    state = json.loads(store.scene_json_path(scene_id).read_text(encoding="utf-8"))
    spec = env.spec_model.model_validate(state["spec"])
    timeline = env.timeline(spec)
    ids = {o["name"]: o["id"] for o in state["objects"]}
    clip_id = clip_id_for(env.name, scene_id)
    return {
        "schema_version": CLIP_SCHEMA_VERSION,
        "clip_id": clip_id, "env": env.name, "scene_id": scene_id, "seed": spec.seed,
        "fps": timeline.clip.fps, "duration_s": timeline.clip.duration_s,
        "events": [e.model_dump(exclude_none=True) for e in env.events(spec)],
        "tracks": [{"track_id": a.track_id, "object_id": ids[a.track_id], "category": a.category}
                   for a in timeline.agents],
        "video": f"clips/{clip_id}.mp4",
        "frames": [_frame_entry(r) for r in sorted(records, key=lambda r: r.view_index)],
    }


def _video_ok(path: Path, n_frames: int) -> bool:
    try:
        return len(decode_mp4(path.read_bytes())) == n_frames
    except Exception:  # noqa: BLE001 - a missing file, or PyAV's own error types for a damaged one
        return False


def write_clips(env, store: RunStore, records: list[FrameRecord]) -> list[dict]:
    """Write every complete clip (all `views_per_scene` frames finished) and clips.jsonl;
    a clip whose JSON and video are already there with these bytes is left alone."""
    by_scene: dict[str, list[FrameRecord]] = {}
    for r in records:
        by_scene.setdefault(r.scene_id, []).append(r)
    lines = []
    for scene_id in sorted(by_scene):
        recs = by_scene[scene_id]
        if sorted(r.view_index for r in recs) != list(range(env.views_per_scene)):
            continue
        doc = clip_document(env, store, scene_id, recs)
        text = pretty_json(doc)
        json_path = store.dir / "clips" / f"{doc['clip_id']}.json"
        video_path = store.dir / doc["video"]
        fresh = not (json_path.is_file() and json_path.read_text(encoding="utf-8") == text
                     and _video_ok(video_path, len(recs)))
        if fresh:
            frames = [np.asarray(Image.open(io.BytesIO((store.dir / f["image"]).read_bytes())).convert("RGB"))
                      for f in doc["frames"]]
            atomic.write_bytes(video_path, encode_mp4(frames, [f["frame_number"] for f in doc["frames"]],
                                                      doc["fps"]))
            atomic.write_text(json_path, text)
        lines.append({"clip_id": doc["clip_id"], "scene_id": scene_id, "path": store.rel(json_path),
                      "video": doc["video"], "frames": len(recs), "events": len(doc["events"])})
    atomic.write_text(store.dir / "clips.jsonl", "".join(canonical_json(x) + "\n" for x in lines))
    return lines
