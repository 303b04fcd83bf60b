"""EgoPathBench questions and Hugging Face export (egopathbench.txt §3, App. A).

Run store of env `egopath` -> `Question`s -> Parquet per task config and split.

Questions are built from each accepted view's `ViewAnnotation` (the record's ground
truth) only after its geometry fixed every label: Point/Embodied Traversability on the
traversability sheet (a pair, kept only when the sheet mixes feasible ground,
clearance-sensitive ground and surface negatives, so "select every ID" cannot solve
it), and per route unit Point Path, Embodied Path and Intent Path (derived from the
accepted Embodied Path: same target, start, candidates, edges, goals and reference).
Each answer is graded by the evaluator (`scorers.egopath`) before it is kept; language
is re-resolved against the view's visible objects (`scorers.egopath_language`).

Splits follow the scene group (salted SHA-256, thresholds from the benchmark file), so
no group crosses train / validation / benchmark. Controls for the three route tasks
(Table S5) exist on the benchmark split only: `_text_only` (image null) and
`_mismatched_overlay` (the overlay of another benchmark question of the same task and
the same number of displayed IDs, from another scene; deterministic pairing). A
control row's id is `<question id>@<control>` so ids stay globally unique; the pairing
is the part before `@`.

Layout (the contract with the evaluator, `formats.dataset_layout`): one shard
`<root>/<config>/<split>-00000-of-00001.parquet` per config and split, `README.md` (card with
configs + dataset_info), `benchmark.json`, `SHA256SUMS`; built in a staging tree and swapped in.
Byte-identical on re-export: rows sorted by id, fixed writer settings, JPEG overlays
from a deterministic drawer and encoder, no timestamps.
"""
from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Callable

import pyarrow.parquet as pq
import yaml
from datasets import DatasetInfo, Features, Image, Value
from PIL import Image as PILImage

from geometry.egopath_schema import (ROUTE_TASKS, TASKS, TRAVERSABILITY_TASKS, Question, RouteUnit, Sheet,
                                     ViewAnnotation)
from packagers.egopath_selection import select_benchmark
from formats import atomic
from formats.benchmark_config import BenchmarkConfigError, EgoPathBenchConfig, as_benchmark_dict
from formats import dataset_layout as layout
from formats.records import FrameRecord
from scorers.egopath import evaluate_route, evaluate_traversability
from scorers.egopath_language import resolve_explicit, resolve_intent

DATASET_NAME = "egopathbench"
SPLITS = ("train", "validation", "benchmark")
CONTROLS = ("text_only", "mismatched_overlay")
CONTROL_CONFIGS = tuple(f"{t}_{c}" for t in ROUTE_TASKS for c in CONTROLS)
PROMPTS_FILE = Path(__file__).with_name("prompts") / "egopathbench.yaml"
DEFAULT_FRACTIONS = {"benchmark": 0.2, "validation": 0.1, "train": 0.7}
DEFAULT_SALT = "egopathbench-split-v1"
JPEG_QUALITY = 92
ROW_GROUP_SIZE = 128

FEATURES = Features({
    "id": Value("string"),
    "task": Value("string"),
    "split": Value("string"),
    "scene_group": Value("string"),
    "image": Image(),
    "system_prompt": Value("string"),
    "user_prompt": Value("string"),
    "answer": Value("string"),
    "question": Value("string"),
})

FIELD_DOCS = {
    "id": "question id `<frame_id>/<task>[/<route_id>]` (controls: `...@text_only` / `...@mismatched_overlay`)",
    "task": "one of the five tasks (controls carry their route task)",
    "split": "`train`, `validation` or `benchmark` (by scene group)",
    "scene_group": "the source group; no group crosses splits",
    "image": "the first-person JPEG with the numbered waypoint overlay (null in `_text_only` controls)",
    "system_prompt": "Table S2 system prompt",
    "user_prompt": "Table S2 user prompt, filled from the question record",
    "answer": "the geometry-verified JSON answer (sorted positives, or the reference route)",
    "question": "JSON of the full `Question` record (display ids, world points, legal edges, goals, ...): "
                "the evaluator's only input besides the prediction",
}


class EgoPathExportError(ValueError):
    """The run stores cannot be turned into EgoPathBench questions (the message says why)."""


# ------------------------------------------------------------------------------------ prompts
@lru_cache(maxsize=4)
def load_prompts(path: str | Path = PROMPTS_FILE) -> dict:
    """{version, tasks: {task: {system, user}}}, checked for all five tasks and their placeholders."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    tasks = (data or {}).get("tasks") or {}
    missing = [t for t in TASKS if t not in tasks]
    if missing:
        raise EgoPathExportError(f"{path}: no prompt for task(s) {', '.join(missing)}")
    for t in ("point_path", "embodied_path"):
        if "{target}" not in tasks[t]["user"]:
            raise EgoPathExportError(f"{path}: {t} user prompt lacks {{target}}")
    if "{intent}" not in tasks["intent_path"]["user"]:
        raise EgoPathExportError(f"{path}: intent_path user prompt lacks {{intent}}")
    return data


def _prompt(task: str, target: str | None = None, intent: str | None = None) -> tuple[str, str]:
    p = load_prompts()["tasks"][task]
    user = p["user"]
    if "{target}" in user:
        user = user.replace("{target}", target or "")
    if "{intent}" in user:
        user = user.replace("{intent}", intent or "")
    return p["system"], user


# ------------------------------------------------------------------------------------- splits
def split_of_group(group: str, fractions: dict[str, float] | None = None, salt: str = DEFAULT_SALT) -> str:
    """Salted SHA-256 of the group -> split; thresholds in the order benchmark, validation, train,
    so a group never moves when more groups are added."""
    fr = dict(DEFAULT_FRACTIONS if fractions is None else fractions)
    unknown = set(fr) - set(SPLITS)
    # `not v >= 0` also refuses NaN, which every comparison would otherwise let through (all groups in train)
    if unknown or any(not v >= 0 for v in fr.values()) or abs(sum(fr.values()) - 1.0) > 1e-9:
        raise EgoPathExportError(f"split fractions must be non-negative over {SPLITS} and sum to 1, got {fr}")
    u = int.from_bytes(hashlib.sha256(f"{salt}:{group}".encode()).digest()[:8], "big") / 2 ** 64
    return _split_at(u, fr)


def _split_at(u: float, fr: dict[str, float]) -> str:
    """The split whose cumulative band (benchmark, validation, train) holds u in [0, 1); past the
    last band (fractions that sum to a hair under 1) it is train."""
    acc = 0.0
    for name in ("benchmark", "validation", "train"):
        acc += fr.get(name, 0.0)
        if u < acc:
            return name
    return "train"


def make_split_of(bench: dict | None) -> Callable[[str], str]:
    bench = bench or {}
    fr = bench.get("splits") or DEFAULT_FRACTIONS
    salt = str(bench.get("split_salt") or DEFAULT_SALT)
    split_of_group("check", fr, salt)  # validate once, loudly
    return lambda group: split_of_group(group, fr, salt)


# -------------------------------------------------------------------------------- run reading
@dataclass
class View:
    run_dir: Path
    record: FrameRecord
    annotation: ViewAnnotation
    scene_group: str


def read_records(run_dir: str | Path) -> list[FrameRecord]:
    """Strict read of records.jsonl (an export must not silently drop frames)."""
    path = Path(run_dir) / "records.jsonl"
    if not path.is_file():
        raise EgoPathExportError(f"{run_dir}: no records.jsonl (not a run store?)")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise EgoPathExportError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                out.append(FrameRecord.model_validate_json(line))
            except ValueError as exc:
                raise EgoPathExportError(f"{path}:{n}: unreadable record ({exc})") from exc
    return out


def read_views(run_dir: str | Path) -> list[View]:
    """Accepted views of a run, sorted by frame id, with their parsed annotations."""
    run_dir = Path(run_dir)
    views = []
    for rec in read_records(run_dir):
        if rec.verdict != "accept":
            continue
        gt = dict(rec.ground_truth)
        if "annotation_error" in gt:  # the view had no usable start; it carries no questions
            continue
        group = gt.pop("scene_group", None)
        if not group:
            raise EgoPathExportError(f"{rec.frame_id}: ground truth lacks scene_group")
        try:
            ann = ViewAnnotation.model_validate(gt)
        except ValueError as exc:
            raise EgoPathExportError(f"{rec.frame_id}: ground truth is not a ViewAnnotation ({exc})") from exc
        try:
            image = layout.resolve_inside(run_dir, rec.image, f"{rec.frame_id}: image")
        except layout.LayoutError as exc:
            raise EgoPathExportError(str(exc)) from None
        if not image.is_file():
            raise EgoPathExportError(f"{rec.frame_id}: frame {image} missing")
        views.append(View(run_dir, rec, ann, str(group)))
    return sorted(views, key=lambda v: v.record.frame_id)


# --------------------------------------------------------------------------- question building
@dataclass
class BuildStats:
    """What was left out and why (the card and benchmark.json report it)."""

    views: int = 0
    traversability_skipped: int = 0          # sheet lacks feasible / clearance-sensitive ground or surface negatives
    route_units: int = 0
    dropped: dict[str, int] = field(default_factory=dict)

    def drop(self, why: str) -> None:
        self.dropped[why] = self.dropped.get(why, 0) + 1


def _wp_maps(sheet: Sheet) -> tuple[list[int], dict[str, list[float]], dict[str, list[float]]]:
    ids = sorted(w.display_id for w in sheet.waypoints)
    if len(set(ids)) != len(ids):
        raise EgoPathExportError("a sheet repeats a display id")
    world = {str(w.display_id): [float(x) for x in w.world] for w in sheet.waypoints}
    pixels = {str(w.display_id): [float(x) for x in w.pixel] for w in sheet.waypoints}
    return ids, world, pixels


def traversability_mix(sheet: Sheet) -> dict[str, int]:
    """Counts of the three candidate kinds §3.3 requires on a traversability sheet."""
    g = [w for w in sheet.waypoints if w.kind == "ground"]
    return {"feasible_ground": sum(w.point_feasible and w.embodied_feasible for w in g),
            "clearance_sensitive_ground": sum(w.point_feasible and not w.embodied_feasible for w in g),
            "surface_negative": sum(w.kind == "surface" for w in sheet.waypoints)}


def _base(view: View, split: str, task: str) -> dict:
    rec = view.record
    return {"question_id": f"{rec.frame_id}/{task}", "task": task, "split": split, "scene_id": rec.scene_id,
            "scene_group": view.scene_group, "frame_id": rec.frame_id}


def _traversability(view: View, split: str, stats: BuildStats) -> list[Question]:
    sheet = view.annotation.traversability
    if min(traversability_mix(sheet).values()) == 0:
        stats.traversability_skipped += 1
        return []
    ids, world, pixels = _wp_maps(sheet)
    out = []
    for task in TRAVERSABILITY_TASKS:
        flag = "point_feasible" if task == "point_traversability" else "embodied_feasible"
        pos = sorted(w.display_id for w in sheet.waypoints if w.kind == "ground" and getattr(w, flag))
        system, user = _prompt(task)
        q = Question(**_base(view, split, task), system_prompt=system, user_prompt=user, display_ids=ids,
                     waypoint_world=world, waypoint_pixels=pixels, positives=pos, answer=json.dumps(pos))
        o = evaluate_traversability(q, q.answer)
        if o.fp or o.fn:
            raise EgoPathExportError(f"{q.question_id}: its own answer does not verify")
        out.append(q)
    return out


def _route_question(view: View, split: str, task: str, unit: RouteUnit, strict: bool | None) -> Question:
    sheet = view.annotation.route
    ids, world, pixels = _wp_maps(sheet)
    point = task == "point_path"
    ref = unit.point_reference if point else unit.embodied_reference
    edges = sorted(sorted(e) for e in (sheet.point_edges if point else sheet.embodied_edges))
    goals = sorted(unit.point_goal_ids if point else unit.embodied_goal_ids)
    shortest_m = unit.point_shortest_m if point else unit.embodied_shortest_m
    system, user = _prompt(task, target=unit.target_text, intent=unit.intent)
    base = _base(view, split, task)
    base["question_id"] += f"/{unit.route_id}"
    return Question(**base, route_id=unit.route_id, system_prompt=system, user_prompt=user, display_ids=ids,
                    waypoint_world=world, waypoint_pixels=pixels, start_id=unit.start_id,
                    legal_edges=edges, goal_ids=goals, reference_route=list(ref or []), shortest_m=shortest_m,
                    target_text=unit.target_text, intent=unit.intent if task == "intent_path" else None,
                    strict_visible=strict, answer=json.dumps(list(ref or [])))


def _routes(view: View, split: str, stats: BuildStats) -> list[Question]:
    ann = view.annotation
    vis = ann.visible_objects
    strict_of = {t.object_id: t.strict_visible for t in ann.targets}
    out = []
    for unit in sorted(ann.routes, key=lambda u: u.route_id):
        stats.route_units += 1
        if unit.start_id not in {w.display_id for w in ann.route.waypoints}:
            stats.drop("start not displayed")
            continue
        if vis and resolve_explicit(unit.target_text, vis) != [unit.target_object_id]:
            stats.drop("explicit target not unique among visible objects")
            continue
        strict = strict_of.get(unit.target_object_id)
        embodied_ok = False
        for task, ref in (("point_path", unit.point_reference), ("embodied_path", unit.embodied_reference)):
            if ref is None:
                continue
            q = _route_question(view, split, task, unit, strict)
            o = evaluate_route(q, q.answer)
            if not o.success:
                stats.drop(f"{task} reference does not verify")
                continue
            if o.spl < 1.0 - 1e-9:  # the answer must be a shortest legal route, or SPL cannot reach 100
                stats.drop(f"{task} reference is not a shortest legal route")
                continue
            out.append(q)
            embodied_ok |= task == "embodied_path"
        if unit.intent is None:
            continue
        if not embodied_ok:
            stats.drop("intent without an accepted embodied path")
        elif vis and resolve_intent(unit.intent, vis) != [unit.target_object_id]:
            stats.drop("intent not unique among visible objects")
        else:
            out.append(_route_question(view, split, "intent_path", unit, strict))
    return out


def questions_for_view(view: View, split: str, stats: BuildStats | None = None) -> list[Question]:
    stats = stats if stats is not None else BuildStats()
    stats.views += 1
    return _traversability(view, split, stats) + _routes(view, split, stats)


def build_questions(run_dirs, split_of: Callable[[str], str]) -> tuple[list[Question], list[View], BuildStats]:
    """Questions of every accepted view of the runs, sorted by id; ids must be globally unique."""
    stats, questions, views = BuildStats(), [], []
    for run_dir in run_dirs:
        for view in read_views(run_dir):
            split = split_of(view.scene_group)
            if split not in SPLITS:
                raise EgoPathExportError(f"split_of returned {split!r}; expected one of {SPLITS}")
            views.append(view)
            questions += questions_for_view(view, split, stats)
    seen: set[str] = set()
    for q in questions:
        if q.question_id in seen:
            raise EgoPathExportError(f"question id {q.question_id} occurs twice (same frame id in two runs?)")
        seen.add(q.question_id)
    return sorted(questions, key=lambda q: q.question_id), views, stats


def questions_from_run(run_dir: str | Path, split_of: Callable[[str], str]) -> list[Question]:
    """Every verified question of one run store's accepted views, sorted by id."""
    return build_questions([Path(run_dir)], split_of)[0]


# ------------------------------------------------------------------------------------- images
def sheet_kind(task: str) -> str:
    return "traversability" if task in TRAVERSABILITY_TASKS else "route"


def overlay_jpeg(view: View, kind: str) -> bytes:
    """The model input: the frame with the sheet's numbered markers (scorers.egopath_overlay)."""
    from scorers.egopath_overlay import draw_candidates

    sheet = view.annotation.traversability if kind == "traversability" else view.annotation.route
    path = view.run_dir / view.record.image  # inside the run: read_views checked it
    try:
        with PILImage.open(path) as im:
            drawn = draw_candidates(im.convert("RGB"), sheet.waypoints)
    except OSError as exc:  # truncated or not an image
        raise EgoPathExportError(f"{path}: frame cannot be decoded ({exc})") from None
    buf = io.BytesIO()
    drawn.convert("RGB").save(buf, format="JPEG", quality=JPEG_QUALITY, optimize=False, progressive=False)
    return buf.getvalue()


class OverlayCache:
    """Overlay bytes per (frame, sheet kind): paired questions share one drawing."""

    def __init__(self, views: list[View]):
        self.views = {v.record.frame_id: v for v in views}
        self._cache: dict[tuple[str, str], bytes] = {}

    def get(self, frame_id: str, kind: str) -> bytes:
        key = (frame_id, kind)
        if key not in self._cache:
            self._cache[key] = overlay_jpeg(self.views[frame_id], kind)
        return self._cache[key]

    def image(self, q: Question) -> dict:
        kind = sheet_kind(q.task)
        return {"bytes": self.get(q.frame_id, kind), "path": f"{q.frame_id}_{kind}.jpg"}


# ------------------------------------------------------------------------------------ controls
def mismatched_partner(q: Question, pool: list[Question]) -> Question | None:
    """Another benchmark question of the same task and displayed-ID count from a different scene,
    picked by a hash of the two ids (deterministic, independent of the pool's order)."""
    cands = [p for p in pool if p.task == q.task and len(p.display_ids) == len(q.display_ids)
             and p.scene_id != q.scene_id]
    if not cands:
        return None
    return min(cands, key=lambda p: (hashlib.sha256(f"{q.question_id}|{p.question_id}".encode()).hexdigest(),
                                     p.question_id))


def _row(q: Question, image: dict | None) -> dict:
    return {"id": q.question_id, "task": q.task, "split": q.split, "scene_group": q.scene_group, "image": image,
            "system_prompt": q.system_prompt, "user_prompt": q.user_prompt, "answer": q.answer,
            "question": json.dumps(q.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)}


def control_rows(bench_qs: list[Question], overlays: OverlayCache) -> tuple[dict[str, list[dict]], dict[str, int]]:
    """{control config: rows} for the route tasks on the benchmark split, and unpaired counts."""
    rows: dict[str, list[dict]] = {c: [] for c in CONTROL_CONFIGS}
    unpaired: dict[str, int] = {}
    for q in bench_qs:
        if q.task not in ROUTE_TASKS:
            continue
        tq = q.model_copy(update={"question_id": f"{q.question_id}@text_only"})
        rows[f"{q.task}_text_only"].append(_row(tq, None))
        partner = mismatched_partner(q, bench_qs)
        if partner is None:
            unpaired[q.task] = unpaired.get(q.task, 0) + 1
            continue
        mq = q.model_copy(update={"question_id": f"{q.question_id}@mismatched_overlay"})
        img = overlays.image(partner)
        rows[f"{q.task}_mismatched_overlay"].append(
            _row(mq, {"bytes": img["bytes"], "path": f"mismatched_{img['path']}"}))
    return rows, unpaired


# ------------------------------------------------------------------------------------- export
@dataclass(frozen=True)
class EgoPathExportSummary:
    root: Path
    counts: dict[str, dict[str, int]]       # config -> split -> rows
    stats: BuildStats
    unpaired: dict[str, int]
    files: list[str]
    selection: dict = field(default_factory=lambda: {"enabled": False})  # packagers.egopath_selection report

    @property
    def total_questions(self) -> int:
        return sum(n for c, s in self.counts.items() if c in TASKS for n in s.values())


def _parquet_bytes(rows: list[dict]) -> tuple[bytes, int]:
    return layout.parquet_bytes(rows, FEATURES, ROW_GROUP_SIZE)


def _card(infos: dict[str, DatasetInfo], counts: dict, bench: dict, stats: BuildStats, unpaired: dict,
          fractions: dict, salt: str) -> str:
    configs = [c for c in (*TASKS, *CONTROL_CONFIGS) if c in infos]
    total = sum(n for c in TASKS for n in counts.get(c, {}).values())
    header = {
        "pretty_name": "EgoPathBench (scenebench reproduction)",
        "license": str(bench.get("license", "cc-by-4.0")),
        "language": ["en"],
        "task_categories": ["visual-question-answering"],
        "size_categories": [layout.size_category(total)],
        "tags": ["synthetic", "blender", "navigation", "embodied", "vlm", "egopathbench"],
        "configs": [layout.config_entry(c, [s for s in SPLITS if counts.get(c, {}).get(s)], default=c == configs[0])
                    for c in configs],
    }
    L = [*layout.card_header(header, {c: infos[c] for c in configs}), "", "# EgoPathBench (scenebench reproduction)", "",
         "First-person indoor views rendered in Blender with numbered waypoint overlays. A model answers with a "
         "JSON array of display IDs: a traversable set (Point / Embodied Traversability) or an ordered route from "
         "display ID 1 to the target (Point / Embodied / Intent Path). Every label (feasibility, legal edges, goal "
         "sets, reference routes) comes from the scene geometry (occupancy grids, point and 0.30 m-radius swept "
         "corridors) before any language is attached.", "",
         "## Configs and splits", "", "| config | " + " | ".join(SPLITS) + " |", "|---|" + "---|" * len(SPLITS)]
    for c in configs:
        L.append(f"| {c} | " + " | ".join(str(counts.get(c, {}).get(s, 0)) for s in SPLITS) + " |")
    L += ["", f"**Split rule.** split = salted SHA-256 of the scene group (salt `{salt}`), thresholds in the order "
          f"benchmark {fractions.get('benchmark', 0)}, validation {fractions.get('validation', 0)}, train "
          f"{fractions.get('train', 0)}; no group crosses splits. Empty splits are not listed.", "",
          *([] if any(counts.get(c, {}).get("benchmark") for c in TASKS) else
            ["**The benchmark split is empty.** Too few scene groups for the split rule to put one in "
             "`benchmark`: this export has no questions to score, no controls and no audits.", ""]),
          "**Controls (Table S5).** On the benchmark split only: `<route task>_text_only` (same prompt, image null) "
          "and `<route task>_mismatched_overlay` (the overlay of another benchmark question of the same task and "
          "the same number of displayed IDs, from a different scene; the partner is the minimum of "
          "sha256(`<id>|<partner id>`)). A control row's id is `<question id>@<control>`. "
          f"Questions without a mismatched partner: {json.dumps(unpaired, sort_keys=True)}.", "",
          "## Fields", "", "| column | meaning |", "|---|---|"]
    L += [f"| `{k}` | {v} |" for k, v in FIELD_DOCS.items()]
    L += ["", "Grade with `scenebench score` (Table S4 route contract; BA / F1 for traversability; EgoPathScore).", "",
          "## Construction", "", f"Accepted views: {stats.views}; traversability pairs skipped because the sheet "
          f"lacked feasible ground, clearance-sensitive ground or surface negatives: {stats.traversability_skipped}; "
          f"route units: {stats.route_units}; dropped: {json.dumps(stats.dropped, sort_keys=True)}.", "",
          f"Benchmark file: `{bench.get('benchmark', DATASET_NAME)}` version `{bench.get('version')}`; prompts "
          f"`{load_prompts()['version']}` (Table S2 word for word).", "",
          "Deviations from the paper (procedural Blender scenes instead of InternScenes, template Spatial CoT "
          "instead of GPT-written, ...) are listed in scenebench's `docs/egopathbench-deviations.md`.", "",
          "## Reproducibility", "", "Rows sorted by `id`; one shard per config and split; zstd level 3 except the "
          "embedded JPEG bytes; no timestamps. `SHA256SUMS` covers every file.", "", "Library versions:", ""]
    L += [f"- {k}: {v}" for k, v in layout.lib_versions().items()]
    return "\n".join(L) + "\n"


def _bench(bench_yaml: str | Path | dict | None) -> dict:
    if isinstance(bench_yaml, dict):
        return bench_yaml
    if bench_yaml is None:
        return {}
    path = Path(bench_yaml)
    if not path.is_file():
        raise EgoPathExportError(f"benchmark file {path} does not exist")
    try:
        return as_benchmark_dict(path, EgoPathBenchConfig)
    except BenchmarkConfigError as exc:
        raise EgoPathExportError(str(exc)) from None


def write_egopathbench(runs, dest: str | Path, bench: dict, root: str | Path | None = None) -> EgoPathExportSummary:
    """Write the dataset tree (all but SHA256SUMS) into the empty directory `dest`; the summary
    names `root`, where the caller swaps it in (`layout.staged_tree`). Every question is built
    and every overlay drawn before the first file is written."""
    run_dirs = [Path(r) for r in runs]
    if not run_dirs:
        raise EgoPathExportError("no run directories given")
    envs = set((bench.get("environments") or {"egopath": {}}))
    for r in run_dirs:
        records = read_records(r)
        if not records:
            raise EgoPathExportError(f"{r}: records.jsonl holds no frames (the render wrote none); "
                                     "render it again or leave it out of the runs")
        for rec in records:
            if rec.env not in envs:
                raise EgoPathExportError(f"{r}: frame {rec.frame_id} is from env {rec.env!r}, not one of {sorted(envs)}")
    fractions = dict(bench.get("splits") or DEFAULT_FRACTIONS)
    salt = str(bench.get("split_salt") or DEFAULT_SALT)
    questions, views, stats = build_questions(run_dirs, make_split_of(bench))
    if not questions:
        raise EgoPathExportError(f"no questions: {stats.views} accepted view(s), dropped {stats.dropped}")
    selection = {"enabled": False}
    if bench.get("benchmark_selection") is not None:  # challenge subset of the benchmark split, whole bundles
        questions, selection = select_benchmark(questions, views, bench["benchmark_selection"])
    overlays = OverlayCache(views)

    rows: dict[str, dict[str, list[dict]]] = {}
    for q in questions:
        rows.setdefault(q.task, {}).setdefault(q.split, []).append(_row(q, overlays.image(q)))
    ctrl, unpaired = {}, {}
    if (bench.get("export") or {}).get("controls", True):
        ctrl, unpaired = control_rows([q for q in questions if q.split == "benchmark"], overlays)
    for c, r in ctrl.items():
        if r:
            rows.setdefault(c, {})["benchmark"] = r

    dest = Path(dest)
    infos, counts = {}, {}
    for config in sorted(rows):
        sizes = {}
        counts[config] = {}
        for split in SPLITS:
            r = sorted(rows[config].get(split, []), key=lambda x: x["id"])
            if not r:
                continue
            data, nbytes = _parquet_bytes(r)
            atomic.write_bytes(dest / layout.shard_path(config, split), data)
            sizes[split] = (nbytes, len(r), len(data))
            counts[config][split] = len(r)
        infos[config] = layout.dataset_info(FEATURES, sizes)
    atomic.write_text(dest / layout.CARD_FILE, _card(infos, counts, bench, stats, unpaired, fractions, salt))
    meta = {"benchmark": DATASET_NAME, "version": str(bench.get("version", "0")),
            "prompts_version": load_prompts()["version"], "tasks": list(TASKS), "controls": list(CONTROL_CONFIGS),
            "splits": list(SPLITS), "split_fractions": fractions, "split_salt": salt, "counts": counts,
            "unpaired_mismatched": unpaired,
            "build": {"views": stats.views, "traversability_skipped": stats.traversability_skipped,
                      "route_units": stats.route_units, "dropped": stats.dropped},
            "benchmark_selection": selection,
            "runs": sorted(r.name for r in run_dirs)}
    atomic.write_json(dest / "benchmark.json", meta)
    return EgoPathExportSummary(root=Path(root) if root is not None else dest, counts=counts, stats=stats,
                                unpaired=unpaired, files=[], selection=selection)


def export_egopathbench(runs, out: str | Path, bench_yaml: str | Path | dict | None = None) -> EgoPathExportSummary:
    """Write `<out>/egopathbench/` from the run stores; replaces an earlier export there.
    A failure leaves the earlier export as it was and no staging tree."""
    bench = _bench(bench_yaml)
    root = Path(out) / DATASET_NAME
    with layout.staged_tree(root) as staging:
        summary = write_egopathbench(runs, staging, bench, root)
    return replace(summary, files=layout.list_files(root))


def load_questions(root: str | Path, config: str, split: str) -> list[Question]:
    """The `Question` records of one exported config/split (pyarrow only, no image decoding)."""
    path = Path(root) / layout.shard_path(config, split)
    if not path.is_file():
        raise EgoPathExportError(f"{path} does not exist")
    col = pq.read_table(path, columns=["question"]).column("question").to_pylist()
    return [Question.model_validate_json(s) for s in col]
