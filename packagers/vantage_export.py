"""Export VANTAGE-Bench items as a Hugging Face dataset (Parquet + card), byte-reproducibly.

Layout (formats.dataset_layout): `vantage/<task>/test-0000i-of-0000N.parquet`, one config per
task, split `test`. A row is one item (formats.vantage_item): its prompt, the frames the model
is shown (`images`, a list of the HF `Image` feature: a clip's sampled frames, one image, or
SOT's frames with the target drawn on the first), the clip's mp4 for video items (`video`,
bytes), the frame numbers and times, and the ground truth as canonical JSON (`answer`). The
card counts items per task and domain beside the paper's Table 13 and Fig. 1.

Every file a row embeds is read only if it resolves inside its run directory; every check runs
before the first byte is written; two exports of the same items are byte-identical.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from datasets import DatasetInfo, Features, Image, List, Value

from formats import atomic
from formats import dataset_layout as layout
from formats.canonical import canonical_json
from formats.vantage_item import TASKS, VantageItem

DATASET_NAME = "vantage"
SPLIT = "test"
MAX_SHARD_BYTES = 200 * 1024 * 1024
MAX_SHARD_ROWS = 2000
ROW_GROUP_SIZE = 64

FEATURES = Features({
    "id": Value("string"),
    "task": Value("string"),
    "domain": Value("string"),
    "env": Value("string"),
    "clip_id": Value("string"),
    "prompt": Value("string"),
    "images": List(Image()),
    "frame0": Image(),
    "video": Value("binary"),
    "media_kind": Value("string"),
    "frame_numbers": List(Value("int64")),
    "times_s": List(Value("float64")),
    "fps": Value("float64"),
    "duration_s": Value("float64"),
    "width": Value("int64"),
    "height": Value("int64"),
    "answer": Value("string"),
    "tags": Value("string"),
})
FIELD_DOCS = {
    "id": "`<task>/<clip_id>/<k>`, unique in the export",
    "task": "one of the eight tasks (the config)",
    "domain": "W warehouse / logistics, T transportation, S smart spaces (§3)",
    "env": "the scenebench environment that generated the clip",
    "clip_id": "the rendered clip the item is built on",
    "prompt": "the text sent with the frames",
    "images": "what the model is shown, in order: a clip's sampled frames or one image (JPEG); for SOT the harness's "
              "target crop and frame 0 with the target box drawn (PNG), then frames 1, 2, ... (JPEG)",
    "frame0": "SOT only: frame 0 as rendered, without the drawn box (what a tracker baseline starts from); else null",
    "video": "the clip's mp4 (the sampled frames at their timestamps) for video items, else null",
    "media_kind": "video, image or frames (SOT)",
    "frame_numbers": "each shown frame's index in the clip's 30 fps stream",
    "times_s": "each shown frame's time, seconds from the clip start",
    "fps": "the clip's frame rate",
    "duration_s": "the clip's length (Temporal Localization's whole-clip answer)",
    "width": "frame width in pixels",
    "height": "frame height in pixels",
    "answer": "the ground truth, canonical JSON (formats.vantage_item's answer model of the task)",
    "tags": "hard-case controls (near-negative margins, target size, motion), canonical JSON",
}

# The paper's scored items and domains per task (Table 13 caption; Fig. 1), for the card.
PAPER_ITEMS = {"video_qa": (1195, "W T S"), "event_verification": (163, "W T S"),
               "spatial_pointing": (1005, "T (vehicle-mounted)"), "referring_expressions": (3276, "T (aerial)"),
               "object_localization": (628, "S"), "temporal_localization": (203, "W T S (videos)"),
               "dense_captioning": (104, "W T S"), "single_object_tracking": (200, "W (synthetic)")}
DOMAINS = ("W", "T", "S")
PAPER_BOXES_MEAN = 43.6     # Object Localization's boxes per image (Table 5's set)

# What the media of an item is read from: the item and its run directory -> the rendered frames'
# bytes (one per frame number, in order) and the mp4 bytes or None. The default reads the run
# store's clip file.
MediaReader = Callable[[VantageItem, Path], tuple[list[bytes], bytes | None]]


class VantageExportError(ValueError):
    """The items or run stores cannot be exported (one line, says which and why)."""


@dataclass
class VantageExportSummary:
    root: Path
    rows: dict[str, int]
    shards: dict[str, list[str]]
    files: list[str] = field(default_factory=list)


def _inside(run_dir: Path, rel: str, what: str) -> Path:
    try:
        return layout.resolve_inside(run_dir, rel, what)
    except layout.LayoutError as exc:
        raise VantageExportError(str(exc)) from None


def _json_file(path: Path, missing: str, what: str) -> dict:
    """A run store's JSON file; `missing` is the error when it is not there."""
    import json

    if not path.is_file():
        raise VantageExportError(missing)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise VantageExportError(f"{path}: unreadable {what} ({exc})") from None


def run_manifest(run_dir: Path) -> dict:
    """The run's manifest.json: the card names each run's generator version, seed, quality and commit."""
    return _json_file(Path(run_dir) / "manifest.json",
                      f"{run_dir}: no manifest.json (the card needs its seeds and versions)", "manifest")


def clip_file(run_dir: Path, clip_id: str) -> dict:
    """The run store's clip file (docs/envs/calib_clip.md), read inside the run directory."""
    path = _inside(run_dir, f"clips/{clip_id}.json", f"clip {clip_id}")
    return _json_file(path, f"{path}: clip file of {clip_id} missing", "clip file")


def clip_media(item: VantageItem, run_dir: Path) -> tuple[list[bytes], bytes | None]:
    """The shown frames (rendered images of the clip, by frame number) and, for a video item,
    the clip's mp4. A frame the item names that the clip did not render is an error."""
    clip = clip_file(run_dir, item.media.clip_id)
    by_number = {f.get("frame_number"): f for f in clip.get("frames") or []}
    frames = []
    for n in item.media.frame_numbers:
        f = by_number.get(n)
        if f is None or not f.get("image"):
            raise VantageExportError(f"{item.id}: clip {item.media.clip_id} has no rendered frame {n}")
        path = _inside(run_dir, f["image"], f"{item.id}: frame {n}")
        if not path.is_file():
            raise VantageExportError(f"{path}: frame {n} of {item.media.clip_id} missing")
        frames.append(path.read_bytes())
    video = None
    if item.media.kind == "video":
        rel = clip.get("video")
        path = _inside(run_dir, rel or f"clips/{item.media.clip_id}.mp4", f"{item.id}: video")
        if not rel or not path.is_file():
            raise VantageExportError(f"{item.id}: clip {item.media.clip_id} has no mp4")
        video = path.read_bytes()
    return frames, video


def _png(rgb) -> bytes:
    import io

    from PIL import Image as PILImage

    buf = io.BytesIO()
    PILImage.fromarray(rgb).save(buf, "PNG", optimize=False, compress_level=6)
    return buf.getvalue()


def sot_images(item: VantageItem, frames: list[bytes]) -> list[bytes]:
    """SOT's shown images as the harness builds them (vantage_sot.py): the target crop, frame 0
    with the box and "TARGET" drawn, then frames 1, 2, ... unmarked."""
    import io

    import numpy as np
    from PIL import Image as PILImage

    from packagers.vantage_tasks.single_object_tracking import init_frame, target_crop

    first = np.asarray(PILImage.open(io.BytesIO(frames[0])).convert("RGB"))
    crop = target_crop(first, item.answer.init_box)
    if crop is None:
        raise VantageExportError(f"{item.id}: the init box {item.answer.init_box} crops to nothing")
    return [_png(crop), _png(init_frame(first, item.answer.init_box)), *frames[1:]]


def row(item: VantageItem, frames: list[bytes], video: bytes | None) -> dict:
    """One item as a dataset row; `frames` are the rendered frames, one per frame number."""
    m = item.media
    sot = item.task == "single_object_tracking"
    shown = sot_images(item, frames) if sot else frames
    return {"id": item.id, "task": item.task, "domain": item.domain, "env": item.env, "clip_id": m.clip_id,
            "prompt": item.prompt, "images": [{"bytes": b, "path": None} for b in shown],
            "frame0": {"bytes": frames[0], "path": None} if sot else None, "video": video,
            "media_kind": m.kind, "frame_numbers": list(m.frame_numbers), "times_s": list(m.times_s),
            "fps": m.fps, "duration_s": m.duration_s, "width": m.width, "height": m.height,
            "answer": canonical_json(item.answer.model_dump(mode="json")), "tags": canonical_json(item.tags)}


def _boxes_line(n_boxes: list[int]) -> list[str]:
    """Object Localization's boxes per image beside the paper's (Table 5: 43.6 on average, up to 100+)."""
    if not n_boxes:
        return []
    return [f"Object Localization boxes per image: mean {statistics.fmean(n_boxes):.1f}, median "
            f"{statistics.median(n_boxes):g}, max {max(n_boxes)} over {len(n_boxes)} items (the paper's: "
            f"{PAPER_BOXES_MEAN} on average, up to 100+).", ""]


def _card(infos: dict[str, DatasetInfo], counts: dict[str, dict[str, int]], benchmark: dict | None,
          envs: dict[str, str], n_boxes: list[int] | None = None, runs: list[tuple[str, dict]] | None = None) -> str:
    tasks = [t for t in TASKS if t in infos]
    total = sum(sum(c.values()) for c in counts.values())
    header = {
        "pretty_name": "VANTAGE-Bench (scenebench reproduction)",
        "license": "cc-by-4.0",
        "language": ["en"],
        "task_categories": ["video-text-to-text", "visual-question-answering", "object-detection"],
        "size_categories": [layout.size_category(total)],
        "tags": ["synthetic", "blender", "benchmark", "vlm", "cctv", "vantage-bench"],
        "configs": [layout.config_entry(t, [SPLIT], default=i == 0) for i, t in enumerate(tasks)],
    }
    L = [*layout.card_header(header, {t: infos[t] for t in tasks}), "", "# VANTAGE-Bench (scenebench reproduction)", "",
         "Procedurally generated, Blender-rendered fixed-camera (CCTV) clips with every label computed from the "
         "simulation timeline: eight tasks over four pillars (semantic, spatial, temporal, spatio-temporal), as "
         "VANTAGE-Bench defines them. The paper used real footage with human labels; here everything is generated.",
         "", "## Items per task and domain", "",
         "| task | W | T | S | items | paper's items | paper's domains |", "|---|---|---|---|---|---|---|"]
    for t in TASKS:
        c = counts.get(t, {})
        n, where = PAPER_ITEMS[t]
        L.append(f"| {t} | " + " | ".join(str(c.get(d, 0)) for d in DOMAINS) + f" | {sum(c.values())} | {n} | {where} |")
    L += [""] + _boxes_line(n_boxes or [])
    L += ["Generated by: " + ", ".join(f"`{e}` ({v})" for e, v in sorted(envs.items())) + ".", ""]
    if benchmark:
        planned = benchmark.get("environments") or {}
        L += [f"Benchmark file: `vantage` version `{benchmark.get('version')}`, root seed "
              f"{benchmark.get('root_seed')}, quality preset `{benchmark.get('quality')}`; clips planned: "
              + ", ".join(f"{e} {c.get('random', 0)}" for e, c in sorted(planned.items())) + ".", ""]
        L += layout.quality_override_note(benchmark.get("quality"), runs or [])
    if runs:
        L += ["Runs exported (from each run's manifest.json):", "", *layout.runs_table(runs), ""]
    L += ["## Scoring", "", "`scenebench score` reports every metric twice: `strict` (the default, "
          "metrics.md's definitions) and `vantage` (the rules of the paper's official evaluation code, the only "
          "numbers comparable with its tables); see scenebench's docs/vantage-deviations.md.", "",
          "## Fields", "", "| column | meaning |", "|---|---|"]
    L += [f"| `{k}` | {v} |" for k, v in FIELD_DOCS.items()]
    L += ["", "Boxes: replies are 0–1000 normalised xyxy; `answer` boxes of referring_expressions and "
          "object_localization are pixel xyxy of `width` × `height` (pixel centres), single_object_tracking's are "
          "0–1000 like its replies; times are seconds.", "", "## Reproducibility", "",
          f"Rows sorted by `id`; shards cut in id order at {MAX_SHARD_BYTES // (1024 * 1024)} MiB of media or "
          f"{MAX_SHARD_ROWS} rows; media stored uncompressed, other columns zstd; no timestamps. `SHA256SUMS` "
          "covers every file.", "", "Library versions:", ""]
    L += [f"- {k}: {v}" for k, v in layout.lib_versions().items()]
    L += ["", "## Bias, risks and limitations", "", "Synthetic scenes from procedural generators: people are rigid "
          "bodies, traffic and events are scripted; the distributions are the generators', not the world's.", ""]
    return "\n".join(L)


def _plan(sizes: list[int]) -> list[tuple[int, int]]:
    from packagers.hf_export import plan_shards

    return plan_shards(sizes, MAX_SHARD_BYTES, MAX_SHARD_ROWS)


def export_vantage(items: Sequence[tuple[VantageItem, Path]], out_dir: str | Path, benchmark: dict | None = None,
                   media: MediaReader = clip_media) -> VantageExportSummary:
    """Write `out_dir/vantage/` from (item, run directory) pairs; replaces an earlier export.
    Every item's media is read and checked before anything is written."""
    if not items:
        raise VantageExportError("no items to export (no clips, or no task found an item in them)")
    seen: dict[str, Path] = {}
    manifests: dict[Path, dict] = {}
    by_task: dict[str, list[dict]] = {}
    envs: dict[str, str] = {}
    n_boxes: list[int] = []
    for item, run_dir in sorted(items, key=lambda x: x[0].id):
        if item.id in seen:
            raise VantageExportError(f"item {item.id} is built twice (from {seen[item.id]} and {run_dir})")
        seen[item.id] = run_dir
        if Path(run_dir) not in manifests:
            manifests[Path(run_dir)] = run_manifest(Path(run_dir))
        frames, video = media(item, Path(run_dir))
        if len(frames) != len(item.media.frame_numbers):
            raise VantageExportError(f"{item.id}: {len(frames)} frames for {len(item.media.frame_numbers)} frame numbers")
        by_task.setdefault(item.task, []).append(row(item, frames, video))
        envs.setdefault(item.env, item.domain)
        if item.task == "object_localization":
            n_boxes.append(len(item.answer.boxes))
    if benchmark is not None:
        unknown = sorted(set(by_task) - set(benchmark.get("tasks") or TASKS))
        if unknown:
            raise VantageExportError(f"task(s) {', '.join(unknown)} not in the benchmark file's tasks")
    counts = {t: {} for t in by_task}
    for t, rows in by_task.items():
        for r in rows:
            counts[t][r["domain"]] = counts[t].get(r["domain"], 0) + 1
    root = Path(out_dir) / DATASET_NAME
    infos, shards, rows_n = {}, {}, {}
    with layout.staged_tree(root) as staging:
        for t in [t for t in TASKS if t in by_task]:
            rows = by_task[t]
            sizes = [sum(len(i["bytes"]) for i in r["images"]) + len(r["video"] or b"")
                     + len((r["frame0"] or {}).get("bytes") or b"") for r in rows]
            plan = _plan(sizes)
            n_bytes = download = 0
            shards[t] = []
            for i, (a, b) in enumerate(plan):
                data, nbytes = layout.parquet_bytes(rows[a:b], FEATURES, ROW_GROUP_SIZE)
                rel = layout.shard_path(t, SPLIT, i, len(plan))
                atomic.write_bytes(staging / rel, data)
                shards[t].append(rel)
                n_bytes += nbytes
                download += len(data)
            rows_n[t] = len(rows)
            infos[t] = layout.dataset_info(FEATURES, {SPLIT: (n_bytes, len(rows), download)})
        atomic.write_text(staging / layout.CARD_FILE, _card(infos, counts, benchmark, envs, n_boxes,
                                                             [(d.name, m) for d, m in manifests.items()]))
    return VantageExportSummary(root=root, rows=rows_n, shards=shards, files=layout.list_files(root))
