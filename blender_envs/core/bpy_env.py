"""Import bpy once, and refuse any Blender that is not 4.5 LTS.

The node and compositor APIs move between releases (5.x drops `scene.node_tree`),
so a silently newer bpy would render something else; fail at import instead.
"""
from __future__ import annotations

import bpy  # noqa: F401  (re-exported)

REQUIRED = (4, 5)
if tuple(bpy.app.version[:2]) != REQUIRED:  # pragma: no cover - depends on the wheel
    raise ImportError(
        f"scenebench needs bpy {REQUIRED[0]}.{REQUIRED[1]} LTS, found {bpy.app.version_string}; "
        "reinstall with `pip install 'bpy==4.5.*'` (make clean && make test does this)"
    )

BPY_VERSION = bpy.app.version_string
