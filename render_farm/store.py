"""The run store `OUT/<env>/`: frames/, passes/, scenes/, records.jsonl, failures.jsonl,
manifest.json.

One process (the coordinator) appends records, so the append-only log needs no locks;
a torn last line left by a kill is cut off on open, a duplicate frame id keeps its first
record, and at the end the log is rewritten sorted by frame id so that two runs of the
same config give byte-identical files whatever order the workers finished in.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from formats import atomic
from formats.records import FrameRecord


class ConfigMismatchError(RuntimeError):
    pass


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

    # -- config fingerprint -------------------------------------------------------
    def check_config(self, fingerprint: dict, new_run: bool) -> str:
        """'new', 'resume'; raises ConfigMismatchError if the directory holds another config."""
        if not self.manifest_path.exists():
            return "new"
        old = json.loads(self.manifest_path.read_text()).get("fingerprint")
        if old == fingerprint:
            return "resume"
        if new_run:
            self._archive()
            return "new"
        diffs = [f"{k}: {old.get(k)!r} -> {fingerprint.get(k)!r}" for k in sorted(fingerprint)
                 if (old or {}).get(k) != fingerprint.get(k)]
        raise ConfigMismatchError(
            f"{self.dir} holds a run with a different config ({'; '.join(diffs)}); "
            "rerun with new_run=true (make ... NEW_RUN=1) to move it aside and start over, or pick another OUT")

    def _archive(self) -> None:
        k = 1
        while (target := self.dir.with_name(f"{self.dir.name}.previous-{k}")).exists():
            k += 1
        os.replace(self.dir, target)

    # -- records ------------------------------------------------------------------
    def load_records(self) -> dict[str, FrameRecord]:
        """Finished frames, keyed by id; repairs a torn trailing line first."""
        if not self.records_path.exists():
            return {}
        raw = self.records_path.read_bytes()
        if raw and not raw.endswith(b"\n"):
            raw = raw[: raw.rfind(b"\n") + 1]
            atomic.write_bytes(self.records_path, raw)
        out: dict[str, FrameRecord] = {}
        for line in raw.decode().splitlines():
            if not line.strip():
                continue
            try:
                rec = FrameRecord.model_validate_json(line)
            except ValueError:
                continue  # unreadable line: the frame is simply redone
            if rec.frame_id not in out and self._files_exist(rec):
                out[rec.frame_id] = rec
        return out

    def _files_exist(self, rec: FrameRecord) -> bool:
        return (self.dir / rec.image).exists() and (self.dir / rec.passes).exists()

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
        for line in self.failures_path.read_text().splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
        return out
