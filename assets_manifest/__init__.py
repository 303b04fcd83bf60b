"""The manifest of every asset: procedural generators (our licence) or external files."""
from __future__ import annotations

from pathlib import Path

import yaml

MANIFEST = Path(__file__).with_name("manifest.yaml")
REQUIRED = {"procedural": ("generator", "license", "attribution"),
            "external": ("source_url", "license", "attribution", "sha256")}


def load_manifest(path: Path = MANIFEST) -> dict:
    data = yaml.safe_load(path.read_text())
    errors = []
    for name, entry in (data.get("assets") or {}).items():
        kind = entry.get("kind")
        if kind not in REQUIRED:
            errors.append(f"{name}: kind must be procedural or external, got {kind!r}")
            continue
        errors += [f"{name}: missing {k}" for k in REQUIRED[kind] if not entry.get(k)]
    if errors:
        raise ValueError("asset manifest invalid: " + "; ".join(errors))
    return data
