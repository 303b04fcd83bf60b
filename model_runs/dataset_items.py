"""Items of an exported dataset (`packagers.hf_export` layout), read with pyarrow directly.

Why not `datasets.load_dataset`: it decodes every image into PIL and copies the data into
its cache; a model client only needs each row's id, prompt and the JPEG bytes as stored.
Shards are streamed batch by batch and merged in id order, so memory stays at a few
batches however large the export is.

Layout: `<root>/<config>/<split>-0000i-of-0000N.parquet`; `root` may also be the export's
parent directory (the one holding a single export with shards of the split). Which split a
benchmark predicts by default is the benchmark's (`scenebench.benchmarks`), not decided here.

Every benchmark's export reads the same way: RealityBench rows carry `env` and `prompt`;
EgoPathBench rows carry `task`, `system_prompt` and `user_prompt`, their split is
`benchmark`, and its text-only control rows have no image; VANTAGE-Bench rows carry `task`,
`prompt` and `images`, a list of frames sent in order (a clip's sampled frames, or one image).
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import pyarrow.parquet as pq

SPLIT = "test"
REQUIRED_COLUMNS = ("id",)
IMAGE_COLUMNS = ("image", "images")           # one image, or a list of frames
PROMPT_COLUMNS = ("prompt", "user_prompt")    # one of them names the user prompt
GROUP_COLUMNS = ("env", "task")               # one of them names what the item belongs to


class DatasetError(ValueError):
    """The dataset directory cannot be read as an export (the message says why)."""


@dataclass(frozen=True)
class Item:
    id: str
    config: str
    env: str
    stratum: str | None
    prompt: str
    image: bytes            # the JPEG exactly as exported (never decoded here); b"" for text-only rows
    system_prompt: str | None = None
    frames: tuple[bytes, ...] = ()   # a multi-frame row's images in order (then `image` is the first)

    @property
    def images(self) -> tuple[bytes, ...]:
        """What a request shows, in order: the frames, else the one image, else nothing."""
        return self.frames or ((self.image,) if self.image else ())


def _shards(config_dir: Path, split: str) -> list[Path]:
    return sorted(config_dir.glob(f"{split}-*.parquet"))


def _has_configs(path: Path, split: str) -> bool:
    return any(_shards(d, split) for d in path.iterdir() if d.is_dir())


def resolve_root(path: str | Path, split: str = SPLIT) -> Path:
    """The directory whose subdirectories are configs (accepts the export's parent too, when
    exactly one export below it has shards of `split`)."""
    path = Path(path)
    if not path.is_dir():
        raise DatasetError(f"dataset directory {path} does not exist")
    if not _has_configs(path, split):
        below = [d for d in sorted(path.iterdir())
                 if d.is_dir() and not d.name.startswith(".") and _has_configs(d, split)]  # not a staging dir
        if len(below) == 1:
            return below[0]
    return path


def list_configs(root: str | Path, split: str = SPLIT) -> list[str]:
    root = resolve_root(root, split)
    configs = sorted(d.name for d in root.iterdir() if d.is_dir() and _shards(d, split))
    if not configs:
        raise DatasetError(f"{root}: no <config>/{split}-*.parquet shards (not an exported dataset?)")
    return configs


def _select(root: Path, configs: Iterable[str] | None, split: str) -> list[str]:
    known = list_configs(root, split)
    if configs is None:
        return known
    chosen = sorted(set(configs))
    unknown = [c for c in chosen if c not in known]
    if unknown:
        raise DatasetError(f"unknown config(s) {', '.join(unknown)}; the dataset has {', '.join(known)}")
    return chosen


def _check_columns(path: Path, pf: pq.ParquetFile) -> None:
    names = pf.schema_arrow.names
    missing = [c for c in REQUIRED_COLUMNS if c not in names]
    missing += [" or ".join(alt) for alt in (IMAGE_COLUMNS, PROMPT_COLUMNS, GROUP_COLUMNS) if not set(alt) & set(names)]
    if missing:
        raise DatasetError(f"{path}: missing column(s) {', '.join(missing)}")


def _shard_ids(path: Path) -> list[str]:
    pf = pq.ParquetFile(path)
    _check_columns(path, pf)
    return pf.read(columns=["id"]).column("id").to_pylist()


def _all_shards(root: str | Path, configs, split) -> list[tuple[str, Path]]:
    root = resolve_root(root, split)
    return [(c, p) for c in _select(root, configs, split) for p in _shards(root / c, split)]


def item_ids(root: str | Path, configs: Iterable[str] | None = None, split: str = SPLIT) -> list[str]:
    """Every id of the chosen configs, sorted (reads the id column only)."""
    seen: dict[str, Path] = {}
    for _, path in _all_shards(root, configs, split):
        for i in _shard_ids(path):
            if i in seen:
                raise DatasetError(f"id {i} is in both {seen[i]} and {path}")
            seen[i] = path
    return sorted(seen)


def _rows(config: str, path: Path, wanted: set[str] | None, batch_size: int) -> Iterator[Item]:
    pf = pq.ParquetFile(path)
    _check_columns(path, pf)
    names = pf.schema_arrow.names
    prompt_col = next(c for c in PROMPT_COLUMNS if c in names)
    group_col = next(c for c in GROUP_COLUMNS if c in names)
    text_only = config.endswith("_text_only")   # EgoPathBench's Table S5 control: no image on purpose
    image_col = next(c for c in IMAGE_COLUMNS if c in names)
    cols = [c for c in ("id", group_col, "stratum", prompt_col, "system_prompt", image_col) if c in names]
    for batch in pf.iter_batches(batch_size=batch_size, columns=cols):
        ids = batch.column("id").to_pylist()
        keep = [k for k, i in enumerate(ids) if wanted is None or i in wanted]
        if not keep:
            continue
        env = batch.column(group_col).to_pylist()
        prompt = batch.column(prompt_col).to_pylist()
        stratum = batch.column("stratum").to_pylist() if "stratum" in cols else [None] * len(ids)
        system = batch.column("system_prompt").to_pylist() if "system_prompt" in cols else [None] * len(ids)
        media = batch.column(image_col).to_pylist()
        for k in keep:
            if image_col == "images":
                frames = tuple((f or {}).get("bytes") or b"" for f in media[k] or [])
                if not frames or not all(frames):
                    raise DatasetError(f"{path}: row {ids[k]} has a frame without embedded image bytes")
                yield Item(ids[k], config, env[k], stratum[k], prompt[k], frames[0], system[k], frames)
                continue
            image = (media[k] or {}).get("bytes") or b""
            if not image and not text_only:
                raise DatasetError(f"{path}: row {ids[k]} has no embedded image bytes")
            yield Item(ids[k], config, env[k], stratum[k], prompt[k], image, system[k])


def _sorted_rows(config: str, path: Path, wanted: set[str] | None, batch_size: int) -> Iterator[Item]:
    """Stream a shard if it is in id order (as the exporter writes it), else sort it in memory."""
    ids = _shard_ids(path)
    rows = _rows(config, path, wanted, batch_size)
    if all(a < b for a, b in zip(ids, ids[1:])):
        return rows
    return iter(sorted(rows, key=lambda it: it.id))


def iter_items(root: str | Path, configs: Iterable[str] | None = None, wanted: Iterable[str] | None = None,
               split: str = SPLIT, batch_size: int = 32) -> Iterator[Item]:
    """Items of the chosen configs (all when None) in id order; only `wanted` ids when given."""
    wanted = None if wanted is None else set(wanted)
    streams = [_sorted_rows(c, p, wanted, batch_size) for c, p in _all_shards(root, configs, split)]
    return heapq.merge(*streams, key=lambda it: it.id)
