"""Read an exported RealityBench dataset (Parquet) into `GradingItem`s.

Scorers must not import packagers or render_farm, so the shards are read here directly
with pyarrow: only the columns grading needs (`id`, `env`, `stratum`, `scorer_verdict`,
`gray`, `ground_truth` (canonical JSON string), `keys` (list of KeySpec structs)); the
image bytes are never loaded.

`acceptability_scored` follows RealityBench §4 (and the grading module's docstring), as
the environment declares it (`Environment.acceptability_scored`, e.g. car_plate: never)
or the frame's own ground truth says (`acceptability_scored: false`, e.g. rail_attachment
with its lag bolt or flashing missing, dropped "due to task ambiguity"); both are still
documented.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from blender_envs.registry import scores_acceptability
from scorers.answer_keys import KeySpec
from scorers.realitybench_grading import GradingItem

COLUMNS = ("id", "env", "stratum", "scorer_verdict", "gray", "ground_truth", "keys")

__all__ = ["DatasetError", "acceptability_scored", "dataset_root", "shard_paths", "item_from_row", "load_items",
           "COLUMNS"]


class DatasetError(ValueError):
    """The dataset directory cannot be read as an exported RealityBench (message says why)."""


def acceptability_scored(env: str, ground_truth: dict[str, Any]) -> bool:
    """False where the paper scores documentation only (the environment or the frame says so)."""
    return scores_acceptability(env, ground_truth)


def dataset_root(path: str | Path) -> Path:
    """The export root (`<env>/test-*.parquet` below it); `datasets/` also finds `datasets/realitybench`."""
    p = Path(path)
    if not p.is_dir():
        raise DatasetError(f"dataset directory {p} does not exist")
    if not any(p.glob("*/*.parquet")) and (p / "realitybench").is_dir():
        p = p / "realitybench"
    return p


def shard_paths(root: Path, split: str = "test") -> list[Path]:
    shards = sorted(q for q in root.glob(f"*/{split}-*.parquet") if not q.parent.name.startswith("."))
    if not shards:
        raise DatasetError(f"{root}: no <env>/{split}-*.parquet shards (is this an exported dataset?)")
    return shards


def _keyspec(k: dict) -> KeySpec:
    d = {f: k.get(f) for f in KeySpec.model_fields if f in k}
    d["options"] = list(d.get("options") or [])
    if d.get("scored_on") is None:
        d.pop("scored_on", None)
    return KeySpec(**d)


def item_from_row(row: dict) -> GradingItem:
    """One exported row (its COLUMNS; others ignored) as a GradingItem; ValueError/TypeError if malformed."""
    gt = json.loads(row["ground_truth"] or "{}")
    return GradingItem(
        id=row["id"], env=row["env"], stratum=row["stratum"], scorer_verdict=row["scorer_verdict"],
        gray=bool(row["gray"]), ground_truth=gt, keys=[_keyspec(k) for k in row["keys"] or []],
        acceptability_scored=acceptability_scored(row["env"], gt))


def load_items(path: str | Path, split: str = "test") -> list[GradingItem]:
    """Every row of the export as a GradingItem, sorted by id; raises DatasetError on bad data."""
    root = dataset_root(path)
    items: dict[str, GradingItem] = {}
    for shard in shard_paths(root, split):
        try:
            table = pq.read_table(shard, columns=list(COLUMNS))
        except Exception as exc:  # pyarrow raises several types for a bad file/missing column
            raise DatasetError(f"{shard}: unreadable ({type(exc).__name__}: {exc})") from None
        for row in table.to_pylist():
            try:
                item = item_from_row(row)
            except (ValueError, TypeError) as exc:
                raise DatasetError(f"{shard}: row {row.get('id')!r} is malformed: "
                                   f"{str(exc).splitlines()[0]}") from None
            if item.id in items:
                raise DatasetError(f"{shard}: duplicate frame id {item.id}")
            items[item.id] = item
    return [items[k] for k in sorted(items)]
