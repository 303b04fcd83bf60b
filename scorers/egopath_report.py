"""`scenebench score` for an exported EgoPathBench: load the questions, read prediction files
leniently, grade every model, write metrics.json, report.md and prediction overlays.

Dataset layout (the packager's contract): `<root>/benchmark.json` with
`{"benchmark": "egopathbench", ...}` and `<root>/<config>/<split>-*.parquet` whose `question`
column is the JSON of `Question.model_dump(mode="json")`; only that column is read to grade
(the `image` column only to draw overlays).

Predictions: the one schema and reader of `formats.predictions` (id and reply aliases, the
duplicate rule, torn and unreadable lines). Torn, unreadable and id-less lines and ids not in
the dataset are skipped with a warning; a question without a line is a format failure
(scored wrong).
"""
from __future__ import annotations

import io
import json
import math
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from formats import atomic
from formats.predictions import PredictionsError, read_predictions_file
from geometry.egopath_schema import ROUTE_TASKS, TASKS, TRAVERSABILITY_TASKS, Question
from scorers.egopath import CONFIDENCE, N_RESAMPLES, SEED, evaluate_model
from scorers.egopath_baselines import BASELINES

__all__ = ["EgoPathDataError", "PredictionFile", "find_egopath_root", "load_questions", "load_prediction_file",
           "load_controls", "control_metrics", "run_score", "models_from_files",
           "score_predictions", "write_report", "summary_table", "make_overlays", "load_images"]

BENCHMARK = "egopathbench"
SPLITS = ("train", "validation", "benchmark")
TASK_SHORT = {"point_traversability": "PT", "embodied_traversability": "ET", "point_path": "PP",
              "embodied_path": "EP", "intent_path": "IP"}


class EgoPathDataError(ValueError):
    """Bad input to the EgoPathBench scorer; the message says what and where."""


# ---------------------------------------------------------------- dataset

def find_egopath_root(path: str | os.PathLike) -> Path | None:
    """The dataset root if `path` (or `path/egopathbench`) is an exported EgoPathBench, else None."""
    p = Path(path)
    for cand in (p, p / BENCHMARK):
        f = cand / "benchmark.json"
        if f.is_file():
            try:
                meta = json.loads(f.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(meta, dict) and meta.get("benchmark") == BENCHMARK:
                return cand
    return None


def _root(dataset_root: str | os.PathLike) -> Path:
    p = Path(dataset_root)
    if not p.is_dir():
        raise EgoPathDataError(f"dataset directory {p} does not exist")
    root = find_egopath_root(p)
    if root is None:
        raise EgoPathDataError(f"{p} is not an exported EgoPathBench dataset "
                               f"(no benchmark.json with \"benchmark\": \"{BENCHMARK}\")")
    return root


def _shards(root: Path, config: str, split: str) -> list[Path]:
    return sorted((root / config).glob(f"{split}-*.parquet"))


def load_questions(dataset_root: str | os.PathLike, split: str = "benchmark",
                   configs: Sequence[str] | None = None) -> list[Question]:
    """Every Question of `split` in `configs` (default: the five tasks), in file order."""
    import pyarrow.parquet as pq

    root = _root(dataset_root)
    configs = list(configs) if configs is not None else list(TASKS)
    found = {c: _shards(root, c, split) for c in configs}
    if not any(found.values()):
        have = sorted({s.name.split("-")[0] for c in configs for s in (root / c).glob("*.parquet")})
        raise EgoPathDataError(f"{root}: no {split!r} split in configs {configs} "
                               f"(splits present: {', '.join(have) or 'none'})")
    out: list[Question] = []
    for c, shards in found.items():
        for s in shards:
            try:
                col = pq.read_table(s, columns=["question"]).column("question").to_pylist()
            except (KeyError, ValueError, OSError) as exc:
                raise EgoPathDataError(f"{s}: cannot read the `question` column ({exc})") from None
            for k, text in enumerate(col):
                try:
                    out.append(Question.model_validate_json(text))
                except (ValueError, TypeError) as exc:
                    raise EgoPathDataError(f"{s} row {k}: not a Question ({str(exc).splitlines()[0]})") from None
    ids = Counter(q.question_id for q in out)
    dup = [i for i, n in ids.items() if n > 1]
    if dup:
        raise EgoPathDataError(f"{root}: question id {dup[0]!r} appears {ids[dup[0]]} times")
    return out


CONTROLS = ("text_only", "mismatched_overlay")


def load_controls(dataset_root: str | os.PathLike, split: str = "benchmark") -> dict[str, list[Question]]:
    """{`<route task>_<control>`: questions} for the Table S5 control configs that exist (ids `<qid>@<control>`)."""
    root = _root(dataset_root)
    out = {}
    for t in ROUTE_TASKS:
        for c in CONTROLS:
            cfg = f"{t}_{c}"
            if _shards(root, cfg, split):
                out[cfg] = load_questions(root, split=split, configs=[cfg])
    return out


def control_metrics(questions: Sequence[Question], controls: Mapping[str, Sequence[Question]],
                    replies: Mapping[str, Any]) -> dict[str, dict]:
    """Table S5: route SR (%) on the paired questions, full input vs each control.

    A control is scored only if the model answered at least one of its questions (then a
    missing answer is wrong); "full" is SR on the main questions the controls pair with
    (the id before `@`)."""
    from scorers.egopath import evaluate_route

    by_id = {q.question_id: q for q in questions}
    out: dict[str, dict] = {}
    for t in ROUTE_TASKS:
        row: dict[str, Any] = {}
        paired: set[str] = set()
        for c in CONTROLS:
            cq = list(controls.get(f"{t}_{c}", ()))
            if not cq or not any(q.question_id in replies for q in cq):
                row[c] = None
                continue
            paired |= {q.question_id.split("@")[0] for q in cq}
            row[c] = 100 * sum(evaluate_route(q, replies.get(q.question_id)).success for q in cq) / len(cq)
            row[f"n_{c}"] = len(cq)
        if not paired:
            continue
        base = [by_id[i] for i in sorted(paired) if i in by_id]
        row["full"] = (100 * sum(evaluate_route(q, replies.get(q.question_id)).success for q in base) / len(base)
                       if base else None)
        row["n_full"] = len(base)
        out[t] = row
    return out


def load_images(dataset_root: str | os.PathLike, question_ids: Sequence[str], split: str = "benchmark",
                configs: Sequence[str] | None = None) -> dict[str, Any]:
    """PIL images of the given question ids (those whose row has image bytes)."""
    import pyarrow.parquet as pq
    from PIL import Image

    root = _root(dataset_root)
    want = set(question_ids)
    out: dict[str, Any] = {}
    for c in (configs or TASKS):
        for s in _shards(root, c, split):
            try:
                t = pq.read_table(s, columns=["id", "image"])
            except (KeyError, ValueError, OSError):
                continue
            for qid, img in zip(t.column("id").to_pylist(), t.column("image").to_pylist()):
                if qid in want and isinstance(img, dict) and img.get("bytes"):
                    try:
                        out[qid] = Image.open(io.BytesIO(img["bytes"])).convert("RGB")
                    except Exception:  # noqa: BLE001 - an undecodable image only loses an overlay
                        continue
    return out


# ---------------------------------------------------------------- predictions

@dataclass
class PredictionFile:
    path: Path
    model: str
    replies: dict[str, Any] = field(default_factory=dict)
    n_lines: int = 0
    torn_last_line: bool = False
    unreadable_lines: list[int] = field(default_factory=list)
    no_id_lines: int = 0
    duplicate_ids: list[str] = field(default_factory=list)
    model_names: list[str] = field(default_factory=list)


def load_prediction_file(path: str | os.PathLike) -> PredictionFile:
    """Read one predictions file (`formats.predictions` rules); EgoPathDataError if it cannot be read."""
    try:
        f = read_predictions_file(path)
    except PredictionsError as exc:
        raise EgoPathDataError(str(exc)) from None
    return PredictionFile(path=f.path, model=f.model, replies=f.replies, n_lines=f.n_lines,
                          torn_last_line=f.torn_last_line,
                          unreadable_lines=sorted(f.unreadable_lines + f.oversize_lines),
                          no_id_lines=len(f.no_id_lines), duplicate_ids=list(f.duplicate_ids),
                          model_names=f.model_names)


def _file_warnings(pf: PredictionFile) -> list[str]:
    w = []
    if pf.torn_last_line:
        w.append(f"{pf.path}: torn last line ignored")
    if pf.unreadable_lines:
        w.append(f"{pf.path}: {len(pf.unreadable_lines)} unreadable line(s) skipped "
                 f"(line {', '.join(map(str, pf.unreadable_lines[:5]))})")
    if pf.no_id_lines:
        w.append(f"{pf.path}: {pf.no_id_lines} line(s) without a string `id` skipped")
    if pf.duplicate_ids:
        w.append(f"{pf.path}: {len(pf.duplicate_ids)} repeated id(s); the last line of each counts")
    if len(pf.model_names) > 1:
        w.append(f"{pf.path}: several `model` values {pf.model_names}; using {pf.model!r}")
    return w


def models_from_files(files: Sequence[PredictionFile]) -> dict[str, dict[str, Any]]:
    """{model: replies}; clashing names fall back to file stems; still equal -> error."""
    counts = Counter(f.model for f in files)
    for f in files:
        if counts[f.model] > 1:
            f.model = f.path.stem
    counts = Counter(f.model for f in files)
    dup = sorted(k for k, v in counts.items() if v > 1)
    if dup:
        raise EgoPathDataError(f"two prediction files for model {dup[0]!r}; rename one file or fix its `model` field")
    clash = sorted(set(counts) & {f"baseline:{b}" for b in BASELINES})
    if clash:
        raise EgoPathDataError(f"model name {clash[0]!r} is reserved for a baseline")
    return {f.model: f.replies for f in files}


# ---------------------------------------------------------------- scoring

def score_predictions(questions: Sequence[Question], predictions_by_model: Mapping[str, Mapping[str, Any]],
                      n_resamples: int = N_RESAMPLES, seed: int = SEED, baselines: bool = True,
                      dataset: str = "", split: str = "benchmark",
                      controls: Mapping[str, Sequence[Question]] | None = None) -> dict:
    """metrics.json content: every model's Table 2 / Figure 3 / Table S7 numbers (percent, CIs).

    Baselines (reference, random, all-candidates, straight-to-nearest-goal) are scored as
    point estimates; `metrics["warnings"]` lists unknown and missing ids per model."""
    if not questions:
        raise EgoPathDataError("no questions to score")
    qids = {q.question_id for q in questions}
    control_ids = {q.question_id for qs in (controls or {}).values() for q in qs}
    warnings: list[str] = []
    models: dict[str, dict] = {}
    for name, replies in predictions_by_model.items():
        unknown = sorted(set(replies) - qids - control_ids)
        missing = sorted(qids - set(replies))
        nulls = sum(1 for k in qids if k in replies and replies[k] is None)
        non_text = sum(1 for k in qids if replies.get(k) is not None and not isinstance(replies[k], str))
        res = evaluate_model(questions, replies, n_resamples=n_resamples, seed=seed)
        res.pop("outcomes")
        if controls:
            res["controls"] = control_metrics(questions, controls, replies)
        res["predictions"] = {"matched": len(qids) - len(missing), "missing": len(missing), "missing_ids": missing[:20],
                              "unknown": len(unknown), "unknown_ids": unknown[:20], "null_replies": nulls,
                              "non_text_replies": non_text}
        models[name] = res
        if unknown:
            warnings.append(f"{name}: {len(unknown)} id(s) not in the dataset ignored (e.g. {', '.join(unknown[:3])})")
        if missing:
            warnings.append(f"{name}: {len(missing)} of {len(qids)} question(s) have no prediction (scored wrong)")
        if nulls:
            warnings.append(f"{name}: {nulls} null repl(ies) (scored wrong)")
        if non_text:
            warnings.append(f"{name}: {non_text} reply value(s) are not text (scored as format failures)")
    base: dict[str, dict] = {}
    if baselines:
        for b, fn in BASELINES.items():
            res = evaluate_model(questions, fn(questions, seed), n_resamples=0, seed=seed)
            res.pop("outcomes")
            base[f"baseline:{b}"] = res
    per_task = Counter(q.task for q in questions)
    return {
        "benchmark": BENCHMARK,
        "dataset": {"path": dataset, "split": split, "n_questions": len(questions),
                    "per_task": {t: per_task.get(t, 0) for t in TASKS},
                    "n_scene_groups": len({q.scene_group for q in questions}),
                    "strict_route_questions": {t: sum(1 for q in questions if q.task == t and q.strict_visible)
                                               for t in ROUTE_TASKS}},
        "settings": {
            "seed": seed, "n_resamples": n_resamples, "confidence": CONFIDENCE,
            "bootstrap": "scene-cluster percentile bootstrap over scene_group; per-task metrics resample that "
                         "task's groups; the EgoPath Score resamples groups jointly over all five tasks",
            "traversability": "confusion matrix pooled over all candidates of a task (micro BA/F1); "
                              "undisplayed predicted ids are false positives; unparseable = empty set",
            "route": "Table S4 order format > invalid_id > wrong_start > illegal_edge > wrong_goal; undirected "
                     "edges; repeated consecutive id = illegal self-loop; single-id route = no edge (valid; "
                     "success iff start is a goal); SPL = S*l/max(l,p) on the floor plane, l=p=0 -> S",
            "missing": "a missing, null or non-text prediction is a format failure",
            "units": "percent"},
        "model_order": list(predictions_by_model),
        "models": models,
        "baselines": base,
        "warnings": warnings,
    }


# ---------------------------------------------------------------- overlays

def make_overlays(dataset_root: str | os.PathLike, questions: Sequence[Question],
                  predictions_by_model: Mapping[str, Mapping[str, Any]], split: str = "benchmark",
                  per_task: int = 1) -> dict[str, Any]:
    """{name: PIL image}: for the first `per_task` questions (by id) of each task that have an
    image and pixels, one contact sheet of the reference answer and every model's answer."""
    from PIL import Image

    from scorers.egopath_overlay import contact_sheet, draw_prediction

    chosen: list[Question] = []
    for t in TASKS:
        qs = sorted((q for q in questions if q.task == t and q.waypoint_pixels), key=lambda q: q.question_id)
        chosen.extend(qs[: max(0, per_task) * 4])  # a few spares in case an image is missing
    imgs = load_images(dataset_root, [q.question_id for q in chosen], split=split)
    out: dict[str, Any] = {}
    for t in TASKS:
        done = 0
        for q in (q for q in chosen if q.task == t):
            if done >= per_task or q.question_id not in imgs:
                continue
            img = imgs[q.question_id]
            f = max(1.0, 320 / img.size[0])   # draw small renders at a readable size
            if f > 1:
                img = img.resize((round(img.size[0] * f), round(img.size[1] * f)), Image.Resampling.LANCZOS)
            px = {int(k): (uv[0] * f, uv[1] * f) for k, uv in q.waypoint_pixels.items()}
            panels = [draw_prediction(img, q, q.answer, px)]
            titles = ["reference"]
            for m, replies in predictions_by_model.items():
                panels.append(draw_prediction(img, q, replies.get(q.question_id), px))
                titles.append(m)
            out[f"{t}__{q.question_id}"] = contact_sheet(panels, titles)
            done += 1
    return out


# ---------------------------------------------------------------- writing

def _f(v: Any, d: int = 1) -> str:
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{d}f}"


def _ci(m: Mapping[str, Any] | None, d: int = 1) -> str:
    if not m or m.get("estimate") is None:
        return "–"
    if m.get("low") is None:
        return _f(m["estimate"], d)
    return f"{_f(m['estimate'], d)} [{_f(m['low'], d)}, {_f(m['high'], d)}]"


def _row(name: str, res: Mapping[str, Any], ci: bool = True) -> str:
    fmt = _ci if ci else (lambda m, d=1: _f(m.get("estimate") if m else None, d))
    cells = [name, fmt(res["score"])]
    for t in TRAVERSABILITY_TASKS:
        cells += [fmt(res["tasks"][t].get("ba")), fmt(res["tasks"][t].get("f1"))]
    for t in ROUTE_TASKS:
        cells += [fmt(res["tasks"][t].get(m)) for m in ("vpr", "sr", "spl")]
    return "| " + " | ".join(cells) + " |"


_HEAD = ("| Model | Score | PT BA | PT F1 | ET BA | ET F1 | PP VPR | PP SR | PP SPL | EP VPR | EP SR | EP SPL "
         "| IP VPR | IP SR | IP SPL |\n|" + "---|" * 15)
DIAG = (("evaluable", "Evaluable"), ("endpoint_hit", "Endpoint hit"), ("first_edge_legal", "First edge legal"),
        ("full_route_legal", "Full route legal"), ("sr", "Success"),
        ("illegal_later_given_first_legal", "Illegal later (first legal)"),
        ("illegal_later_given_first_and_end", "Illegal later (first legal + endpoint)"))


def summary_table(metrics: Mapping[str, Any]) -> str:
    """The Table 2 leaderboard (with CIs) as markdown."""
    lines = [_HEAD]
    for m in metrics["model_order"]:
        lines.append(_row(m, metrics["models"][m]))
    return "\n".join(lines)


def _report_md(metrics: Mapping[str, Any], overlay_names: Sequence[str]) -> str:
    ds, st = metrics["dataset"], metrics["settings"]
    L = ["# EgoPathBench report", "",
         f"Dataset `{ds['path']}`, split `{ds['split']}`: {ds['n_questions']} questions "
         f"({', '.join(f'{TASK_SHORT[t]} {n}' for t, n in ds['per_task'].items())}) "
         f"in {ds['n_scene_groups']} scene groups.", "",
         f"All numbers in percent. Intervals: {int(100 * st['confidence'])}% percentile, {st['n_resamples']} "
         f"scene-cluster bootstrap resamples, seed {st['seed']}.", "",
         "## Leaderboard (Table 2)", "", summary_table(metrics), ""]
    if metrics.get("baselines"):
        L += ["## Baselines (point estimates)", "", _HEAD]
        L += [_row(b, r, ci=False) for b, r in metrics["baselines"].items()]
        L += [""]
    L += ["## Route diagnostics (Figure 3, Table S11)", "",
          "| Model | Task | N | " + " | ".join(h for _, h in DIAG) + " | Single-ID routes |",
          "|" + "---|" * (len(DIAG) + 4)]
    for m in metrics["model_order"]:
        for t in ROUTE_TASKS:
            e = metrics["models"][m]["tasks"][t]
            dg = e["diagnostics"]
            L.append(f"| {m} | {TASK_SHORT[t]} | {e['n']} | " + " | ".join(_f(dg.get(k)) for k, _ in DIAG)
                     + f" | {e['single_id']} |")
    L += ["", "## Outcome stages (Table S4, counts)", "",
          "| Model | Task | format | invalid_id | wrong_start | illegal_edge | wrong_goal | success |",
          "|---|---|---|---|---|---|---|---|"]
    for m in metrics["model_order"]:
        for t in ROUTE_TASKS:
            s = metrics["models"][m]["tasks"][t]["stages"]
            L.append(f"| {m} | {TASK_SHORT[t]} | " + " | ".join(str(s[k]) for k in
                     ("format", "invalid_id", "wrong_start", "illegal_edge", "wrong_goal", "success")) + " |")
    pooled = {t: [0, 0, 0] for t in ROUTE_TASKS}
    by_len: dict[tuple[str, str], list[int]] = {}
    for m in metrics["model_order"]:
        for t in ROUTE_TASKS:
            e = metrics["models"][m]["tasks"][t]
            s11 = e["table_s11"]
            pooled[t][0] += s11["first_edge_legal_and_endpoint"]
            pooled[t][1] += s11["illegal_later_edge"]
            pooled[t][2] += s11["complete_route_legal"]
            for k, r in e["by_reference_edges"].items():
                acc = by_len.setdefault((t, k), [0, 0, 0, 0])
                for j, f in enumerate(("n", "endpoint_hit", "success", "illegal_edge")):
                    acc[j] += r[f]
    if metrics["model_order"]:
        L += ["", "## After a correct first step and endpoint (Table S11, pooled over models)", "",
              "| Task | First edge legal + endpoint correct | Illegal later edge | Complete route legal |",
              "|---|---|---|---|"]
        for t, (n, bad, ok) in pooled.items():
            L.append(f"| {TASK_SHORT[t]} | {n} | {bad} ({_f(100 * bad / n if n else None)}%) | "
                     f"{ok} ({_f(100 * ok / n if n else None)}%) |")
        L += ["", "## By reference length (Table S12, pooled over models; N counts predictions)", "",
              "| Task | Edges | N | End hit | Success | Illegal edge |", "|---|---|---|---|---|---|"]
        for (t, k), (n, end, suc, ill) in by_len.items():
            L.append(f"| {TASK_SHORT[t]} | {k} | {n} | {_f(100 * end / n)} | {_f(100 * suc / n)} | "
                     f"{_f(100 * ill / n)} |")
    L += ["", "## Visibility sensitivity (Table S7)", "",
          "| Model | Task | View | N | End | Full | Gap | Illegal |", "|---|---|---|---|---|---|---|---|"]
    for m in metrics["model_order"]:
        for t in ROUTE_TASKS:
            for v, r in metrics["models"][m]["strict"][t].items():
                L.append(f"| {m} | {TASK_SHORT[t]} | {v} | {r['n']} | {_f(r['end'])} | {_f(r['full'])} | "
                         f"{_f(r['gap'])} | {_f(r['illegal'])} |")
    L += ["", "## Traversability confusion (pooled)", "",
          "| Model | Task | TP | FP | FN | TN | invalid ids | unparseable | TPR | TNR | precision |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    for m in metrics["model_order"]:
        for t in TRAVERSABILITY_TASKS:
            e = metrics["models"][m]["tasks"][t]
            c, p = e["counts"], e["pooled"]
            L.append(f"| {m} | {TASK_SHORT[t]} | {c['tp']} | {c['fp']} | {c['fn']} | {c['tn']} | {c['n_invalid']} | "
                     f"{e['parse_failures']} | {_f(p['tpr'])} | {_f(p['tnr'])} | {_f(p['precision'])} |")
    ctl = [(m, t, r) for m in metrics["model_order"] for t, r in metrics["models"][m].get("controls", {}).items()]
    if ctl:
        L += ["", "## Input-dependence controls (Table S5, route SR on paired questions)", "",
              "| Model | Task | N | Full | Text only | Mismatched overlay |", "|---|---|---|---|---|---|"]
        L += [f"| {m} | {TASK_SHORT[t]} | {r.get('n_full', 0)} | {_f(r.get('full'))} | {_f(r.get('text_only'))} | "
              f"{_f(r.get('mismatched_overlay'))} |" for m, t, r in ctl]
    if overlay_names:
        L += ["", "## Prediction overlays", ""]
        L += [f"![{n}](overlays/{n}.png)" for n in overlay_names]
    if metrics.get("warnings"):
        L += ["", "## Warnings", ""] + [f"- {w}" for w in metrics["warnings"]]
    L += ["", "## Conventions", ""] + [f"- **{k}**: {v}" for k, v in st.items()
                                       if k in ("bootstrap", "traversability", "route", "missing")]
    return "\n".join(L) + "\n"


def write_report(metrics: Mapping[str, Any], out_dir: str | os.PathLike,
                 overlays: Mapping[str, Any] | None = None) -> Path:
    """metrics.json, report.md and overlays/<name>.png under out_dir; returns report.md's path."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    pngs: dict[str, bytes] = {}
    for name, img in sorted((overlays or {}).items()):
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        pngs[safe] = buf.getvalue()
    # everything is rendered before anything is written, and each file is replaced atomically
    metrics_text = json.dumps(metrics, indent=2, sort_keys=True, allow_nan=False) + "\n"
    md_text = _report_md(metrics, list(pngs))
    for safe, data in pngs.items():
        atomic.write_bytes(out / "overlays" / f"{safe}.png", data)
    atomic.write_text(out / "metrics.json", metrics_text)
    md = out / "report.md"
    atomic.write_bytes(md, md_text.encode("utf-8", "replace"))   # a path with undecodable bytes still writes
    return md


def run_score(dataset: str | os.PathLike, prediction_paths: Sequence[str | os.PathLike],
              report_dir: str | os.PathLike | None = None, seed: int = SEED, n_resamples: int = N_RESAMPLES,
              split: str = "benchmark", overlays: bool = True) -> tuple[dict, list[str], Path]:
    """The whole `scenebench score` flow for EgoPathBench: (metrics, warnings, report.md path)."""
    root = _root(dataset)
    questions = load_questions(root, split=split)
    files = [load_prediction_file(p) for p in prediction_paths]
    by_model = models_from_files(files)
    controls = load_controls(root, split=split) if split == "benchmark" else {}
    metrics = score_predictions(questions, by_model, n_resamples=n_resamples, seed=seed,
                                dataset=str(root), split=split, controls=controls)
    file_warn = [w for f in files for w in _file_warnings(f)]
    metrics["warnings"] = file_warn + metrics["warnings"]
    metrics["prediction_files"] = {f.model: {"file": str(f.path), "lines": f.n_lines,
                                             "torn_last_line": f.torn_last_line,
                                             "unreadable_lines": f.unreadable_lines[:20],
                                             "lines_without_id": f.no_id_lines,
                                             "n_duplicates": len(f.duplicate_ids)} for f in files}
    ov = make_overlays(root, questions, by_model, split=split) if overlays else None
    out = Path(report_dir) if report_dir else Path("reports") / root.name
    md = write_report(metrics, out, overlays=ov)
    return metrics, metrics["warnings"], md
