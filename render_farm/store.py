"""The run store `OUT/<env>/`: frames/, passes/, scenes/, records.jsonl, failures.jsonl,
manifest.json (and for clip environments clips/ and clips.jsonl: render_farm.clips).

One process (the coordinator) appends records, so the append-only log needs no locks;
a torn last line left by a kill is cut off on open, a duplicate frame id keeps its first
record, and at the end the log is rewritten sorted by frame id so that two runs of the
same config give byte-identical files whatever order the workers finished in.

A rerun trusts nothing it did not check (`open_run`): the manifest must hold this
config's fingerprint, every record must belong to this config (its seed is re-derived),
and a record counts as finished only if its frame decodes, its passes load and its
scene's files are readable; everything else is dropped from the log and redone.
"""
from __future__ import annotations

import json
import logging
import os
import zipfile
from pathlib import Path
from typing import Callable

import numpy as np
from PIL import Image

from formats import atomic
from formats.records import FrameRecord

log = logging.getLogger(__name__)

PASS_ARRAYS = ("depth", "object_index")


class ConfigMismatchError(RuntimeError):
    """The run directory holds state that this config must not resume (one line, exit 2)."""


class RunStore:
    def __init__(self, run_dir: str | Path):
        self.dir = Path(run_dir)
        self.records_path = self.dir / "records.jsonl"
        self.failures_path = self.dir / "failures.jsonl"
        self.manifest_path = self.dir / "manifest.json"

    # -- layout ------------------------------------------------------------------
    def create(self) -> None:
        for sub in ("frames", "passes", "scenes"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)

    def frame_path(self, frame_id: str) -> Path:
        return self.dir / "frames" / f"{frame_id}.jpg"

    def passes_path(self, frame_id: str) -> Path:
        return self.dir / "passes" / f"{frame_id}.npz"

    def scene_json_path(self, scene_id: str) -> Path:
        return self.dir / "scenes" / f"{scene_id}.json"

    def scene_mesh_path(self, scene_id: str) -> Path:
        return self.dir / "scenes" / f"{scene_id}.npz"

    def rel(self, path: Path) -> str:
        return str(Path(path).relative_to(self.dir))

    # -- opening a run ----------------------------------------------------------------
    def open_run(self, fingerprint: dict, new_run: bool,
                 foreign: Callable[[FrameRecord], str | None]) -> tuple[str, dict[str, FrameRecord]]:
        """('new' | 'resume' | 'repaired', finished records by frame id).

        `foreign(rec)` says why a record cannot belong to this config (None if it can).
        Another config's manifest or records raise ConfigMismatchError, or with `new_run`
        move the directory aside; a missing or unreadable manifest is rebuilt when the
        records show they belong to this config."""
        if not self.dir.exists():
            return "new", {}
        manifest = self._read_manifest()
        old = manifest.get("fingerprint") if isinstance(manifest, dict) else None
        if isinstance(old, dict) and old != fingerprint:
            if new_run:
                self._archive()
                return "new", {}
            diffs = [f"{k}: {old.get(k)!r} -> {fingerprint.get(k)!r}" for k in sorted(fingerprint)
                     if old.get(k) != fingerprint.get(k)]
            raise ConfigMismatchError(
                f"{self.dir} holds a run with a different config ({'; '.join(diffs)}); "
                "rerun with new_run=true (make ... NEW_RUN=1) to move it aside and start over, or pick another OUT")
        records, dropped = self._read_log()
        alien = [(r, why) for r in records.values() if (why := foreign(r)) is not None]
        if alien:
            if new_run:
                self._archive()
                return "new", {}
            rec, why = alien[0]
            raise ConfigMismatchError(
                f"{self.records_path} holds {len(alien)} of {len(records)} frames of another config "
                f"(first: {rec.frame_id}: {why}); rerun with new_run=true (make ... NEW_RUN=1) to move it "
                "aside and start over, or pick another OUT")
        finished = self._verified(records)
        if dropped or len(finished) != len(records):
            bad = len(records) - len(finished)
            log.warning("%s: redoing %d frame(s) whose files are missing or corrupt and dropping %d unreadable "
                        "line(s) of records.jsonl", self.dir, bad, dropped)
            atomic.write_text(self.records_path, "".join(r.model_dump_json() + "\n" for r in finished.values()))
        self._remove_temp_files()
        if isinstance(old, dict):
            return "resume", finished
        if records:
            what = "missing" if manifest is None else "unreadable"
            log.warning("%s: manifest.json is %s; its %d records match this config (env, seed, image size), "
                        "so the run resumes and the manifest is rewritten", self.dir, what, len(records))
            return "repaired", finished
        return "new", finished

    def _read_manifest(self):
        """The manifest's JSON, None if absent, or the string 'unreadable'."""
        try:
            return json.loads(self.manifest_path.read_bytes().decode("utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):  # garbled bytes, invalid UTF-8 or JSON, a directory
            return "unreadable"

    def _archive(self) -> None:
        k = 1
        while (target := self.dir.with_name(f"{self.dir.name}.previous-{k}")).exists():
            k += 1
        os.replace(self.dir, target)

    def _remove_temp_files(self) -> None:
        """Temp files of atomic writes whose process was killed (formats.atomic names them .<name>.*.tmp)."""
        for sub in (self.dir, self.dir / "frames", self.dir / "passes", self.dir / "scenes", self.dir / "clips"):
            for tmp in sub.glob(".*.tmp") if sub.is_dir() else ():
                tmp.unlink(missing_ok=True)

    # -- records ------------------------------------------------------------------
    def _read_log(self) -> tuple[dict[str, FrameRecord], int]:
        """Records by frame id (first one wins) and the number of lines dropped; a torn
        trailing line is cut off, a line that is not UTF-8 or not a record is skipped."""
        try:
            raw = self.records_path.read_bytes()
        except FileNotFoundError:
            return {}, 0
        except OSError as exc:  # a directory, no permission, ...
            raise ConfigMismatchError(f"cannot read {self.records_path}: {exc.strerror}") from None
        dropped = 0
        if raw and not raw.endswith(b"\n"):
            raw = raw[: raw.rfind(b"\n") + 1]
            atomic.write_bytes(self.records_path, raw)
        out: dict[str, FrameRecord] = {}
        for line in raw.split(b"\n"):
            if not line.strip():
                continue
            try:
                rec = FrameRecord.model_validate_json(line.decode("utf-8"))
            except ValueError:  # UnicodeDecodeError and pydantic's ValidationError both are
                dropped += 1
                continue
            if rec.frame_id in out:
                dropped += 1
            else:
                out[rec.frame_id] = rec
        return out, dropped

    def load_records(self) -> dict[str, FrameRecord]:
        """The log's records, keyed by id (no file checks: see `open_run`)."""
        return self._read_log()[0]

    def _verified(self, records: dict[str, FrameRecord]) -> dict[str, FrameRecord]:
        scene_ok: dict[str, bool] = {}
        out = {}
        for fid, rec in records.items():
            if rec.scene_id not in scene_ok:
                scene_ok[rec.scene_id] = self._scene_files_ok(rec.scene_id)
            if scene_ok[rec.scene_id] and self._frame_files_ok(rec):
                out[fid] = rec
        return out

    def _inside(self, rel: str) -> Path | None:
        path = (self.dir / rel).resolve()
        return path if path.is_relative_to(self.dir.resolve()) else None

    def _frame_files_ok(self, rec: FrameRecord) -> bool:
        """The frame is a JPEG that decodes at the record's size; its passes load at that size."""
        image, passes = self._inside(rec.image), self._inside(rec.passes)
        if image is None or passes is None:
            return False
        size = (rec.camera.get("width"), rec.camera.get("height"))
        try:
            with Image.open(image) as im:
                if im.format != "JPEG" or im.size != size:
                    return False
                im.load()  # a truncated or garbled entropy stream raises here
            with np.load(passes, allow_pickle=False) as z:
                return all(z[k].shape == size[::-1] for k in PASS_ARRAYS)
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            return False

    def _scene_files_ok(self, scene_id: str) -> bool:
        try:
            json.loads(self.scene_json_path(scene_id).read_bytes().decode("utf-8"))
            with zipfile.ZipFile(self.scene_mesh_path(scene_id)) as z:
                return z.testzip() is None
        except (OSError, ValueError, zipfile.BadZipFile):
            return False

    def append_record(self, rec: FrameRecord) -> None:
        self._append(self.records_path, rec.model_dump_json())

    def append_failure(self, entry: dict) -> None:
        self._append(self.failures_path, json.dumps(entry, sort_keys=True))

    def _append(self, path: Path, line: str) -> None:
        with open(path, "a", encoding="utf-8") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())

    def canonicalise_records(self) -> list[FrameRecord]:
        """Rewrite records.jsonl deduplicated and sorted by frame id."""
        recs = sorted(self.load_records().values(), key=lambda r: r.frame_id)
        atomic.write_text(self.records_path, "".join(r.model_dump_json() + "\n" for r in recs))
        return recs

    def load_failures(self) -> list[dict]:
        if not self.failures_path.exists():
            return []
        out = []
        for line in self.failures_path.read_bytes().split(b"\n"):
            try:
                out.append(json.loads(line.decode("utf-8")))
            except ValueError:
                continue
        return out
