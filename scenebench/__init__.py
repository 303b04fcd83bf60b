"""scenebench: procedural Blender scenes turned into scored VLM benchmarks."""
from pathlib import Path

__version__ = "0.1.0"
REPO_ROOT = Path(__file__).resolve().parents[1]
CONFIG_DIR = REPO_ROOT / "configs"
