import pytest
import yaml

from assets_manifest import load_manifest
from conftest import ROOT


def test_manifest_is_valid_and_generators_exist():
    data = load_manifest()
    for name, entry in data["assets"].items():
        assert (ROOT / entry["generator"].split(":")[0]).exists(), name


def test_manifest_rejects_incomplete_entries(tmp_path):
    bad = tmp_path / "m.yaml"
    bad.write_text(yaml.safe_dump({"assets": {"x": {"kind": "external", "license": "CC0"}}}))
    with pytest.raises(ValueError, match="x: missing source_url"):
        load_manifest(bad)
