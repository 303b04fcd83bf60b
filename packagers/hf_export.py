"""Export RealityBench run stores as a Hugging Face dataset (Parquet + card), byte-reproducibly.

Layout (shared/notes/hf_export.md): `realitybench/<env>/test-0000i-of-0000N.parquet`, one
config per environment, split `test`; image bytes embedded (HF `Image` feature, declared in
both the Parquet schema metadata and the card); README.md card with `configs:` and
`dataset_info:`; ATTRIBUTION.md from the asset manifest; SHA256SUMS over every file. Shard names,
card header, SHA256SUMS, Parquet writer settings and the staged swap are `formats.dataset_layout`'s.
Every path a record names is read only if it resolves inside its run directory.

Column encoding (decided here, documented in the card):
- `keys`: a list of structs, one per `KeySpec` (same shape in every environment, so the
  viewer and `datasets` show real columns);
- `terms`: a list of structs, one per `TermResult`; a yes/no term's value is 1.0/0.0;
- `ground_truth`, `scene`: canonical JSON strings (sorted keys): their shape differs per
  environment and nests (breaker entries, scene specs), and a JSON string keeps ints,
  floats, bools and nulls exactly as the scorer wrote them.

Two exports of the same run stores give byte-identical files: rows sorted by id, shards cut
by a size rule that depends only on the data, fixed Parquet writer settings, no timestamps.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from datasets import DatasetInfo, Features, Image, List, Value

from assets_manifest import load_manifest
from blender_envs.registry import get_environment, known_environments
from packagers.prompts import get_prompt, prompts_version, render_prompt, require_prompts
from formats import atomic
from formats import dataset_layout as layout
from formats.canonical import canonical_json
from formats.records import FrameRecord
from formats.benchmark_config import RealityBenchConfig, as_benchmark_dict

DATASET_NAME = "realitybench"
SPLIT = "test"
# Shard rule: rows in id order, a new shard when the next image would take the shard's
# image bytes over MAX_SHARD_BYTES or its rows over MAX_SHARD_ROWS (hf_export.md: 200-500 MB).
MAX_SHARD_BYTES = 200 * 1024 * 1024
MAX_SHARD_ROWS = 2000
ROW_GROUP_SIZE = 128          # ~64 MB of 1600x1200 JPEGs per row group (viewer limit ~300 MB)

KEY_FEATURE = {"name": Value("string"), "type": Value("string"), "grammar": Value("string"),
               "tolerance": Value("float64"), "options": List(Value("string")), "scored_on": Value("string")}
TERM_FEATURE = {"name": Value("string"), "side": Value("string"), "value": Value("float64"),
                "threshold": Value("string"), "unit": Value("string"), "passed": Value("bool"),
                "gray": Value("bool")}
FEATURES = Features({
    "id": Value("string"),
    "env": Value("string"),
    "stratum": Value("string"),
    "image": Image(),
    "prompt": Value("string"),
    "requirement": Value("string"),
    "question": Value("string"),
    "keys": List(KEY_FEATURE),
    "scorer_verdict": Value("string"),
    "gray": Value("bool"),
    "terms": List(TERM_FEATURE),
    "ground_truth": Value("string"),
    "scene": Value("string"),
    "seed": Value("int64"),
})

FIELD_DOCS = {
    "id": "frame id (`<env>-<stratum>-<scene>-<view>`), unique; rows are sorted by it",
    "env": "the environment (= the config name)",
    "stratum": "`random` (a field pose from the environment's pose distribution) or `positive` "
               "(a scorer-acceptable pose found by rejection sampling from the same distribution)",
    "image": "the phone JPEG a model sees (bytes embedded; decodes to a PIL image)",
    "prompt": "the full prompt (App. C template with this environment's Table 3 parts)",
    "requirement": "the environment's photo requirement (Table 3)",
    "question": "the environment's documentation question (Table 3)",
    "keys": "the answer keys after `adequate`: list of {name, type, grammar, tolerance (null = exact), "
            "options, scored_on (`acceptable` = scored on scorer-acceptable frames, `all` = on every frame)}",
    "scorer_verdict": "the acceptability scorer's verdict: `accept`, `reject` or `unscored` (the verdict hinges "
                      "only on a gray term; such frames are not scored for acceptability)",
    "gray": "true when the verdict depends only on gray terms (it fails at least one term, and every failing term "
            "fails inside that term's gray zone); such frames are left out of every score (§4). A frame that "
            "also fails a hard term is a plain `reject` with `gray` false; `terms` shows its gray failures",
    "terms": "every acceptability term: {name, side (`scene` or `frame`), value (a yes/no term is 1.0/0.0; null = "
             "not computable), threshold, unit, passed, gray}",
    "ground_truth": "JSON object: the answer key for every key in `keys`, plus diagnostics (e.g. tape_gap's "
                    "geometric_reading_in); computed from the scene, never from a person",
    "scene": "JSON object: the scene spec, every random draw of the scene (privileged parameters)",
    "seed": "the frame's 63-bit seed (derived from the root seed, environment, stratum, scene and view)",
}


class ExportError(ValueError):
    """The run stores cannot be exported as they are (the message says why)."""


@dataclass(frozen=True)
class ExportSummary:
    root: Path
    rows: dict[str, int]                   # env -> exported frames
    excluded: dict[str, int]               # env -> frames left out by the render sanity check
    shards: dict[str, list[str]]           # env -> shard paths relative to root
    files: list[str] = field(default_factory=list)  # every file written, relative to root

    @property
    def total_rows(self) -> int:
        return sum(self.rows.values())


# -- reading run stores ----------------------------------------------------------------------
@dataclass
class _Run:
    dir: Path
    manifest: dict
    records: list[FrameRecord]


def _read_run(run_dir: Path) -> _Run:
    """Strict read: an export must not silently drop or repair frames (unlike a resume)."""
    run_dir = Path(run_dir)
    rec_path, man_path = run_dir / "records.jsonl", run_dir / "manifest.json"
    if not rec_path.exists():
        raise ExportError(f"{run_dir}: no records.jsonl (not a run store?)")
    if not man_path.exists():
        raise ExportError(f"{run_dir}: no manifest.json (the card needs its seeds and versions)")
    records = []
    try:
        text = rec_path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ExportError(f"{rec_path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                records.append(FrameRecord.model_validate_json(line))
            except ValueError as exc:
                raise ExportError(f"{rec_path}:{n}: unreadable record ({exc})") from exc
    if not records:  # a render that wrote no frame: say so rather than export an empty config
        raise ExportError(f"{run_dir}: records.jsonl holds no frames (the render wrote none); "
                          "render it again or leave it out of the runs")
    try:
        manifest = json.loads(man_path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ExportError(f"{man_path}: not JSON ({exc})") from None
    return _Run(run_dir, manifest, records)


def _inside(run_dir: Path, rel: str, what: str) -> Path:
    """A path from a record, refused unless it resolves inside its run directory."""
    try:
        return layout.resolve_inside(run_dir, rel, what)
    except layout.LayoutError as exc:
        raise ExportError(str(exc)) from None


def _scene_spec(run_dir: Path, scene_id: str, cache: dict) -> str:
    key = (run_dir, scene_id)
    if key not in cache:
        path = _inside(run_dir, f"scenes/{scene_id}.json", f"scene {scene_id!r}: state")
        if not path.exists():
            raise ExportError(f"{path}: scene state missing")
        state = json.loads(path.read_text(encoding="utf-8"))
        cache[key] = canonical_json(state.get("spec", state))
    return cache[key]


def gray_only(terms) -> bool:
    """The verdict depends only on gray terms: some term fails and every failing term is gray
    (RealityBench §4: such a frame is not scored). A frame that also fails a hard term is a
    plain reject, whatever its gray terms say."""
    failing = [t for t in terms if not t.passed]
    return bool(failing) and all(t.gray for t in failing)


def _term_row(t) -> dict:
    v = t.value
    return {"name": t.name, "side": t.side, "value": None if v is None else float(v), "threshold": t.threshold,
            "unit": t.unit, "passed": t.passed, "gray": t.gray}


def _row(run_dir: Path, rec: FrameRecord, scenes: dict) -> dict:
    ep = get_prompt(rec.env)
    return {
        "id": rec.frame_id,
        "env": rec.env,
        "stratum": rec.stratum,
        "image": {"bytes": _inside(run_dir, rec.image, f"{rec.frame_id}: image").read_bytes(),
                  "path": Path(rec.image).name},
        "prompt": render_prompt(rec.env),
        "requirement": ep.requirement,
        "question": ep.question,
        "keys": [k.model_dump() for k in ep.keys],
        "scorer_verdict": rec.verdict,
        "gray": gray_only(rec.terms),
        "terms": [_term_row(t) for t in rec.terms],
        "ground_truth": canonical_json(rec.ground_truth),
        "scene": _scene_spec(run_dir, rec.scene_id, scenes),
        "seed": rec.seed,
    }


# -- Parquet -----------------------------------------------------------------------------------
def _parquet_bytes(rows: list[dict]) -> tuple[bytes, int]:
    """(file bytes, Arrow in-memory size) of one shard."""
    return layout.parquet_bytes(rows, FEATURES, ROW_GROUP_SIZE)


def plan_shards(sizes: list[int], max_bytes: int = MAX_SHARD_BYTES, max_rows: int = MAX_SHARD_ROWS
                ) -> list[tuple[int, int]]:
    """[start, stop) row ranges: a pure function of the sizes in id order."""
    out, start, acc = [], 0, 0
    for i, size in enumerate(sizes):
        if i > start and (acc + size > max_bytes or i - start >= max_rows):
            out.append((start, i))
            start, acc = i, 0
        acc += size
    if sizes:
        out.append((start, len(sizes)))
    return out


# -- card ----------------------------------------------------------------------------------------
def _license(manifest: dict) -> str:
    lic = {str(a.get("license", "")).lower() for a in (manifest.get("assets") or {}).values()}
    return lic.pop() if len(lic) == 1 else "other"


def _card(infos: dict[str, DatasetInfo], runs: list[_Run], excluded: dict[str, int], strata: dict,
          benchmark: dict | None, manifest: dict) -> str:
    envs = sorted(infos)
    default = next((e for e in envs if e in known_environments() and get_environment(e).card_default), envs[0])
    total = sum(info.splits[SPLIT].num_examples for info in infos.values())
    header = {
        "pretty_name": "RealityBench (scenebench reproduction)",
        "license": _license(manifest),
        "language": ["en"],
        "task_categories": ["visual-question-answering"],
        "size_categories": [layout.size_category(total)],
        "tags": ["synthetic", "blender", "benchmark", "vlm", "realitybench"],
        "configs": [layout.config_entry(e, [SPLIT], default=e == default) for e in envs],
    }
    L: list[str] = [*layout.card_header(header, {e: infos[e] for e in envs}), "",
                    "# RealityBench (scenebench reproduction)", ""]
    L += ["Procedurally generated, Blender-rendered photos of field documentation work (rooftop solar, "
          "an electrical panel, vehicle intake), each with an acceptability verdict and an answer key "
          "computed from the scene itself. Reproduces RealityBench's 11 environments; every label comes "
          "from the scene spec and its geometry, never from a person.", ""]
    if benchmark:
        planned = sorted(benchmark.get("environments") or {})
        missing = [e for e in planned if e not in infos]
        L += [f"Environments in this export: {len(planned) - len(missing)} of the benchmark's {len(planned)}"
              + (f" (missing: {', '.join(missing)})" if missing else "") + ".", ""]
    L += ["## Uses", "", "Direct use: zero-shot evaluation of vision-language models (acceptability: `adequate` "
          "against `scorer_verdict`; documentation: each key against `ground_truth`, with the key's tolerance). "
          "Out of scope: training (there is only a `test` split), and any claim about real photos beyond "
          "what the paper's real-photo comparison supports.", ""]
    L += ["## Configs and splits", "", "One config per environment; one split, `test`.", "",
          "| config | frames | random | positive | excluded (render sanity check) |", "|---|---|---|---|---|"]
    for e in envs:
        s = strata.get(e, {})
        L.append(f"| {e} | {infos[e].splits[SPLIT].num_examples} | {s.get('random', 0)} | {s.get('positive', 0)} "
                 f"| {excluded.get(e, 0)} |")
    L += ["", f"Frames whose render failed the sanity check (camera inside a mesh, black or blown frame, "
          f"intersecting meshes; App. D) have verdict `excluded` and are left out: {sum(excluded.values())} in all.",
          "", "**Split rule.** RealityBench is evaluation-only: every exported frame is in `test`. Scenes are "
          "generated per environment and stratum from their own seeds, so no scene is shared between configs.", ""]
    L += ["**Strata.** `random`: the camera is drawn from the environment's field-pose distribution (the "
          "false-accept rate is measured on these only). `positive`: scorer-acceptable frames found by rejection "
          "sampling from the same distribution, added where random frames are rarely acceptable, so that a "
          "model's miss rate can be estimated per environment. Bootstrap intervals resample each stratum "
          "separately.", ""]
    L += ["## Fields", "", "| column | type | meaning |", "|---|---|---|"]
    yaml_feats = {f["name"]: f for f in infos[envs[0]]._to_yaml_dict()["features"]}
    for name in FEATURES:
        f = yaml_feats[name]
        typ = f.get("dtype") or ("list<struct>" if isinstance(f.get("list"), list) else f"list<{f.get('list')}>")
        L.append(f"| `{name}` | {typ} | {FIELD_DOCS[name]} |")
    L += ["", "Encoding: `keys` and `terms` are lists of structs (one shape across all configs); "
          "`ground_truth` and `scene` are canonical JSON strings (sorted keys), because their shape differs "
          "per environment and nests, and JSON keeps ints, floats, booleans and nulls exactly. "
          "Parse them with `json.loads`.", ""]
    L += ["## Dataset creation", ""]
    if benchmark:
        L += [f"Benchmark file: `{benchmark.get('benchmark', DATASET_NAME)}` version `{benchmark.get('version')}`, "
              f"root seed {benchmark.get('root_seed')}, quality preset `{benchmark.get('quality')}`.", "",
              *layout.quality_override_note(benchmark.get("quality"), [(r.dir.name, r.manifest) for r in runs]),
              "| environment | planned random | planned positive | generator version (planned) |", "|---|---|---|---|"]
        for e, c in sorted((benchmark.get("environments") or {}).items()):
            L.append(f"| {e} | {c.get('random', 0)} | {c.get('positive', 0)} | "
                     f"{(benchmark.get('generator_versions') or {}).get(e, '')} |")
        L.append("")
    L += [f"Prompts: `{prompts_version()}` (App. C template word for word, Table 3 parts). Wording the paper "
          "does not print is ours and marked INFERRED in scenebench's `packagers/prompts/realitybench.yaml`: "
          "horizon_peak's set-level variant (it asks whether this one photo belongs in such a set), the grammar "
          "words of string, enum, list and circuit-entry keys, and the 10 body styles.", "",
          "Runs exported (from each run's manifest.json):", ""]
    L += layout.runs_table([(run.dir.name, run.manifest) for run in runs])
    schemes = sorted({str((r.manifest.get("seeds") or {}).get("scheme")) for r in runs})
    L += ["", f"Seed scheme: {'; '.join(schemes)}. Each row's `seed` is its frame seed.", ""]
    L += ["## Reproducibility", "", "Rows sorted by `id`; shards cut in id order when the next image would take a "
          f"shard over {MAX_SHARD_BYTES // (1024 * 1024)} MiB of image bytes or {MAX_SHARD_ROWS} rows; row groups of "
          f"{ROW_GROUP_SIZE} rows; zstd level 3 except the embedded JPEG bytes (stored uncompressed); no "
          "timestamps. The same run stores and library versions give byte-identical files; `SHA256SUMS` "
          "(`sha256sum -c SHA256SUMS`) covers every file.", "", "Library versions:", ""]
    L += [f"- {k}: {v}" for k, v in layout.lib_versions().items()]
    L += ["", "## Bias, risks and limitations", "", "Synthetic scenes from procedural generators: the "
          "distributions of roofs, panels, vehicles and lighting are the generators', not the world's. "
          "Acceptability labels are one scorer's reading of each requirement.", "",
          "## Attribution", "", "See `ATTRIBUTION.md` (generated from the asset manifest).", ""]
    return "\n".join(L)


def _attribution(manifest: dict) -> str:
    L = ["# Attribution", "", "Every asset a frame may contain (from scenebench's `assets_manifest/manifest.yaml`).", "",
         "| asset | kind | source | license | attribution | sha256 |", "|---|---|---|---|---|---|"]
    for name, a in sorted((manifest.get("assets") or {}).items()):
        src = a.get("generator") or a.get("source_url") or ""
        L.append(f"| {name} | {a.get('kind')} | `{src}` | {a.get('license')} | {a.get('attribution')} | "
                 f"{a.get('sha256') or ''} |")
    return "\n".join(L) + "\n"


# -- entry point ---------------------------------------------------------------------------------
def _check_frame(run_dir: Path, rec: FrameRecord) -> None:
    """Before anything is written: the frame's answer keys, and every file the row embeds
    (image, scene state) exists inside its run directory."""
    missing = [k.name for k in get_prompt(rec.env).keys if k.name not in rec.ground_truth]
    if missing:
        raise ExportError(f"{rec.frame_id}: ground truth lacks answer key(s) {', '.join(missing)}")
    for rel, what in ((rec.image, "image"), (f"scenes/{rec.scene_id}.json", "scene state")):
        path = _inside(run_dir, rel, f"{rec.frame_id}: {what}")
        if not path.is_file():
            raise ExportError(f"{path}: {what} of {rec.frame_id} missing")


def export_realitybench(run_dirs: list[Path], out_dir: Path, benchmark_file: Path | None = None,
                        max_shard_bytes: int = MAX_SHARD_BYTES, max_shard_rows: int = MAX_SHARD_ROWS
                        ) -> ExportSummary:
    """Write `out_dir/realitybench/` from the run stores; replaces an earlier export there.
    Every check runs before the first byte is written; a failure leaves no staging tree."""
    runs = [_read_run(Path(d)) for d in run_dirs]
    if not runs:
        raise ExportError("no run directories given")
    by_env: dict[str, list[tuple[Path, FrameRecord]]] = {}
    seen: dict[str, Path] = {}
    for run in runs:
        for rec in run.records:
            if rec.frame_id in seen:
                raise ExportError(f"frame {rec.frame_id} is in both {seen[rec.frame_id]} and {run.dir}")
            seen[rec.frame_id] = run.dir
            by_env.setdefault(rec.env, []).append((run.dir, rec))
    require_prompts(by_env)  # before any work: names every environment without a prompt
    benchmark = None
    if benchmark_file is not None:
        benchmark = as_benchmark_dict(benchmark_file, RealityBenchConfig)  # path or validated model
        unknown = sorted(set(by_env) - set(benchmark.get("environments") or {}))
        if unknown:
            raise ExportError(f"environment(s) {', '.join(unknown)} not in the benchmark file {benchmark_file}")
    manifest = load_manifest()

    kept_by_env, excluded, strata = {}, {}, {}
    for env in sorted(by_env):
        kept = sorted((x for x in by_env[env] if x[1].verdict != "excluded"), key=lambda x: x[1].frame_id)
        excluded[env] = len(by_env[env]) - len(kept)
        if not kept:
            raise ExportError(f"{env}: every frame was excluded; nothing to export")
        for d, rec in kept:
            _check_frame(d, rec)
        strata[env] = {}
        for _, rec in kept:
            strata[env][rec.stratum] = strata[env].get(rec.stratum, 0) + 1
        kept_by_env[env] = kept

    root = Path(out_dir) / DATASET_NAME
    rows_n, shards, infos = {}, {}, {}
    scenes: dict = {}
    with layout.staged_tree(root) as staging:
        for env, kept in kept_by_env.items():
            sizes = [(d / rec.image).stat().st_size for d, rec in kept]
            plan = plan_shards(sizes, max_shard_bytes, max_shard_rows)
            n_bytes = download = 0
            shards[env] = []
            for i, (a, b) in enumerate(plan):
                data, nbytes = _parquet_bytes([_row(d, rec, scenes) for d, rec in kept[a:b]])
                rel = layout.shard_path(env, SPLIT, i, len(plan))
                atomic.write_bytes(staging / rel, data)
                shards[env].append(rel)
                n_bytes += nbytes
                download += len(data)
            rows_n[env] = len(kept)
            infos[env] = layout.dataset_info(FEATURES, {SPLIT: (n_bytes, len(kept), download)})
        atomic.write_text(staging / "README.md", _card(infos, runs, excluded, strata, benchmark, manifest))
        atomic.write_text(staging / "ATTRIBUTION.md", _attribution(manifest))
    return ExportSummary(root=root, rows=rows_n, excluded=excluded, shards=shards, files=layout.list_files(root))
