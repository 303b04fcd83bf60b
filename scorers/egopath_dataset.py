"""An exported EgoPathBench on disk: find it, load its questions, controls and images.

Dataset layout (the packager's contract): `<root>/benchmark.json` with
`{"benchmark": "egopathbench", ...}` and `<root>/<config>/<split>-*.parquet` whose `question`
column is the JSON of `Question.model_dump(mode="json")`; only that column is read to grade
(the `image` column only to draw overlays).
"""
from __future__ import annotations

import io
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from geometry.egopath_schema import ROUTE_TASKS, TASKS, Question

__all__ = ["BENCHMARK", "SPLITS", "CONTROLS", "EgoPathDataError", "find_egopath_root", "load_questions",
           "load_controls", "load_images", "require_root"]

BENCHMARK = "egopathbench"

SPLITS = ("train", "validation", "benchmark")


class EgoPathDataError(ValueError):
    """Bad input to the EgoPathBench scorer; the message says what and where."""


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


def require_root(dataset_root: str | os.PathLike) -> Path:
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

    root = require_root(dataset_root)
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
    root = require_root(dataset_root)
    out = {}
    for t in ROUTE_TASKS:
        for c in CONTROLS:
            cfg = f"{t}_{c}"
            if _shards(root, cfg, split):
                out[cfg] = load_questions(root, split=split, configs=[cfg])
    return out


def load_images(dataset_root: str | os.PathLike, question_ids: Sequence[str], split: str = "benchmark",
                configs: Sequence[str] | None = None) -> dict[str, Any]:
    """PIL images of the given question ids (those whose row has image bytes)."""
    import pyarrow.parquet as pq
    from PIL import Image

    root = require_root(dataset_root)
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
