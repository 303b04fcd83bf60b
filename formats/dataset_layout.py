"""The on-disk layout of an exported dataset, in one place (every packager and reader uses it).

- Shards: `<root>/<config>/<split>-<i:05d>-of-<n:05d>.parquet`, found by `<split>-*.parquet`.
- Card: `README.md` opening with YAML front matter (`configs:` naming each config's split
  files, `dataset_info:` from `datasets.DatasetInfo`), the part the Hub and `load_dataset` read.
- `SHA256SUMS`: `sha256sum -c` format over every other file, sorted by path.
- Staged build: the tree is written into a sibling staging directory and swapped in whole
  (`formats.atomic.replace_tree`); on any failure the staging directory is removed and the
  previous tree stays as it was, so a reader never sees half an export.
- Containment: a path a packager reads from a run or dataset directory must resolve
  (symlinks included) inside that directory.
"""
from __future__ import annotations

import hashlib
import shutil
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from typing import Iterator

import pyarrow as pa
import pyarrow.parquet as pq
import yaml
from datasets import DatasetInfo, Features, SplitDict, SplitInfo

from formats import atomic

SUMS_FILE = "SHA256SUMS"
CARD_FILE = "README.md"
MEDIA_COLUMN = "image.bytes"  # already-compressed JPEG: stored uncompressed, no dictionary, no stats
# Every leaf holding already-compressed media (JPEG/PNG frames, mp4): VANTAGE rows carry a list of
# frames and a video besides RealityBench's one image.
MEDIA_COLUMNS = (MEDIA_COLUMN, "images.list.element.bytes", "frame0.bytes", "video")


class LayoutError(ValueError):
    """A dataset or run directory breaks the layout contract (the message says how)."""


# -- shards ------------------------------------------------------------------------------------
def shard_path(config: str, split: str, index: int = 0, count: int = 1) -> str:
    """A shard's path relative to the dataset root."""
    return f"{config}/{split}-{index:05d}-of-{count:05d}.parquet"


def split_pattern(config: str, split: str) -> str:
    """The card's `data_files` pattern of one config and split."""
    return f"{config}/{split}-*"


def find_shards(root: str | Path, config: str, split: str) -> list[Path]:
    """The shards of one config and split, in order (empty when the split is absent)."""
    return sorted((Path(root) / config).glob(f"{split}-*.parquet"))


def list_configs(root: str | Path) -> list[str]:
    """Config directories of a dataset root (hidden staging leftovers ignored)."""
    return sorted(p.name for p in Path(root).iterdir() if p.is_dir() and not p.name.startswith("."))


def _leaf_columns(schema: pa.Schema) -> list[str]:
    buf = pa.BufferOutputStream()
    pq.write_table(schema.empty_table(), buf)
    pschema = pq.ParquetFile(pa.BufferReader(buf.getvalue())).schema
    return [pschema.column(i).path for i in range(len(pschema))]


def writer_settings(schema: pa.Schema) -> dict:
    """Every setting that shapes the file bytes, fixed (so reruns are byte-identical)."""
    leaves = _leaf_columns(schema)
    others = [c for c in leaves if c not in MEDIA_COLUMNS]
    return {
        "compression": {c: ("NONE" if c in MEDIA_COLUMNS else "ZSTD") for c in leaves},
        "compression_level": {c: 3 for c in others},
        "use_dictionary": others,
        "write_statistics": others,
        "version": "2.6",
        "data_page_version": "1.0",
        "data_page_size": 1024 * 1024,
        "write_page_index": True,
        "write_page_checksum": False,
        "store_schema": True,
        "use_content_defined_chunking": False,
    }


def parquet_bytes(rows: list[dict], features: Features, row_group_size: int) -> tuple[bytes, int]:
    """(file bytes, Arrow in-memory size) of one shard; the schema carries the `huggingface`
    features metadata, so `load_dataset` decodes images without a loading script."""
    schema = features.arrow_schema
    table = pa.Table.from_pylist(rows, schema=schema)
    buf = pa.BufferOutputStream()
    with pq.ParquetWriter(buf, schema, **writer_settings(schema)) as w:
        w.write_table(table, row_group_size=row_group_size)
    return buf.getvalue().to_pybytes(), table.nbytes


def dataset_info(features: Features, splits: dict[str, tuple[int, int, int]]) -> DatasetInfo:
    """DatasetInfo of one config from {split: (arrow bytes, rows, file bytes)}, splits in the given order."""
    sd = SplitDict()
    for name, (nbytes, rows, _) in splits.items():
        sd.add(SplitInfo(name=name, num_bytes=nbytes, num_examples=rows))
    return DatasetInfo(features=features, splits=sd, download_size=sum(s[2] for s in splits.values()),
                       dataset_size=sum(s[0] for s in splits.values()))


# -- card header -------------------------------------------------------------------------------
def config_entry(config: str, splits: list[str], default: bool = False) -> dict:
    """One `configs:` entry of the card header."""
    return {"config_name": config, "data_files": [{"split": s, "path": split_pattern(config, s)} for s in splits],
            **({"default": True} if default else {})}


def card_header(header: dict, infos: dict[str, DatasetInfo]) -> list[str]:
    """The card's front matter lines: `header` (configs included) then `dataset_info` per config."""
    full = {**header, "dataset_info": [{"config_name": c, **infos[c]._to_yaml_dict()} for c in infos]}
    yml = yaml.safe_dump(full, sort_keys=False, allow_unicode=True, width=4096)
    return ["---", yml.rstrip("\n"), "---"]


def size_category(n: int) -> str:
    """The Hub's `size_categories` bucket of n rows."""
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return name
    return "n>1M"


def lib_versions() -> dict:
    """Versions of the libraries that shape the bytes (the card lists them)."""
    out = {}
    for dist in ("scenebench", "datasets", "pyarrow", "Pillow", "numpy"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def run_order(name: str, manifest: dict) -> tuple:
    """A run's place on the card (env, stratum, directory name): independent of the order the
    caller listed the runs in."""
    return (str((manifest.get("fingerprint") or {}).get("env")), str((manifest.get("config") or {}).get("stratum")),
            name)


def runs_table(runs: list[tuple[str, dict]]) -> list[str]:
    """The card's table of the runs exported, from each (run directory name, manifest.json) pair:
    what regenerating the dataset byte for byte needs (generator, seed, quality, commit)."""
    L = ["| env | stratum | generator version | root seed | quality | git commit |", "|---|---|---|---|---|---|"]
    for _, m in sorted(runs, key=lambda run: run_order(*run)):
        fp, cfg = m.get("fingerprint") or {}, m.get("config") or {}
        seed = (m.get("seeds") or {}).get("root_seed", fp.get("seed"))
        quality = (fp.get("quality") or {}).get("name", "")
        L.append(f"| {fp.get('env', cfg.get('env'))} | {cfg.get('stratum', '')} | {fp.get('generator_version')} | "
                 f"{seed} | {quality} | {m.get('git_commit')} |")
    return L


def quality_override_note(preset, runs: list[tuple[str, dict]]) -> list[str]:
    """A card line when the runs were rendered at another quality than the benchmark file's preset
    (`make benchmark QUALITY=preview`): the card must not pass a quick look off as the release."""
    names = {((m.get("fingerprint") or {}).get("quality") or {}).get("name") for _, m in runs}
    rendered = sorted({n or "unrecorded" for n in names})
    if not runs or rendered == [str(preset)]:
        return []
    return [f"Rendered at quality {', '.join(f'`{q}`' for q in rendered)}, not the file's preset (a `--quality` "
            "override): these are not the release's images.", ""]


def read_card_header(root: str | Path) -> dict:
    """The card's front matter as a dict."""
    text = (Path(root) / CARD_FILE).read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        raise LayoutError(f"{Path(root) / CARD_FILE}: no YAML front matter")
    return yaml.safe_load(text.split("---\n", 2)[1]) or {}


# -- SHA256SUMS ----------------------------------------------------------------------------------
def list_files(root: str | Path) -> list[str]:
    """Every file under root, relative and sorted (POSIX separators)."""
    root = Path(root)
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def sha256sums(root: str | Path) -> str:
    """`sha256sum` lines for every file under root except SHA256SUMS itself."""
    root = Path(root)
    lines = [f"{hashlib.sha256((root / rel).read_bytes()).hexdigest()}  {rel}"
             for rel in list_files(root) if rel != SUMS_FILE]
    return "\n".join(lines) + "\n"


def verify_sha256sums(root: str | Path) -> None:
    """Raise LayoutError (one line) unless SHA256SUMS lists exactly the files present, each with its digest."""
    root = Path(root)
    path = root / SUMS_FILE
    if not path.is_file():
        raise LayoutError(f"{root}: no {SUMS_FILE} (not an exported dataset?)")
    listed: dict[str, str] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        digest, sep, rel = line.partition("  ")
        if not sep or len(digest) != 64:
            raise LayoutError(f"{path}:{n}: not a sha256sum line")
        listed[rel] = digest
    present = set(list_files(root)) - {SUMS_FILE}
    if set(listed) != present:
        extra, missing = sorted(present - set(listed)), sorted(set(listed) - present)
        raise LayoutError(f"{root}: files differ from {SUMS_FILE} (unlisted: {extra[:3]}, missing: {missing[:3]})")
    for rel, digest in sorted(listed.items()):
        resolve_inside(root, rel, "listed file")
        if hashlib.sha256((root / rel).read_bytes()).hexdigest() != digest:
            raise LayoutError(f"{root / rel}: sha256 differs from {SUMS_FILE}")


# -- staged build ----------------------------------------------------------------------------------
def staging_path(root: str | Path) -> Path:
    root = Path(root)
    return root.parent / f".{root.name}.staging"


@contextmanager
def staged_tree(root: str | Path, sums: bool = True) -> Iterator[Path]:
    """Yield an empty staging directory for `root`'s tree; on a clean exit write SHA256SUMS
    (when `sums`) and swap the tree in for `root`; on any failure remove the staging
    directory (and the parent, when this call created it and it is empty again)."""
    root = Path(root)
    made = [p for p in (root.parent, *root.parent.parents) if not p.exists()]
    staging = staging_path(root)
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    try:
        yield staging
        if sums:
            atomic.write_text(staging / SUMS_FILE, sha256sums(staging))
        atomic.replace_tree(staging, root)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        for p in made:  # innermost first
            try:
                p.rmdir()
            except OSError:
                break
        raise


# -- containment ---------------------------------------------------------------------------------
def resolve_inside(base: str | Path, rel: str | Path, what: str = "path") -> Path:
    """`base / rel` resolved; LayoutError unless it lies inside `base` (symlinks followed)."""
    base = Path(base)
    path = base / rel
    try:
        real, real_base = path.resolve(), base.resolve()
    except (OSError, RuntimeError) as exc:  # symlink loop
        raise LayoutError(f"{path}: {what} cannot be resolved ({exc})") from None
    if not real.is_relative_to(real_base):
        raise LayoutError(f"{what} {str(rel)!r} resolves to {real}, outside {real_base}; refusing to read it")
    return path
