"""The layering of ../shared/ARCHITECTURE.md as data, checked over every module of the repo.

Every `import` and `from ... import` (also inside functions and `if TYPE_CHECKING:`
blocks, and relative ones) of every module under the packages below is parsed with `ast`
and resolved to a module of ours; importing `a.b.c` also runs the packages `a` and
`a.b`, so those count too. The dependency is then followed through the module graph:
when A imports B and B imports C, A depends on C, and C's layer must be one that A's
layer may import. A violation is reported as its import chain.

Layers (bottom to top): formats; assets_manifest; geometry; blender_envs spec modules
(pure: spec models, samplers, exact geometry, textures as arrays); blender_envs bpy side
(`blender_envs/core/` and every builder, i.e. a module named `build` or `*_build`);
scorers; render_farm; packagers; model_runs; scenebench and bench (everything).
Only `blender_envs.core.bpy_env` imports bpy and only the bpy side imports mathutils or
bmesh; since reaching the bpy side is a layer dependency, no scorer, packager, model run
or spec module reaches Blender even through a chain.

Imports made from strings at run time (`importlib.import_module`, the environment
registry) are not seen here; the registry's targets are checked by the conformance tests.
"""
from __future__ import annotations

import ast
from collections import deque
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("formats", "assets_manifest", "geometry", "blender_envs", "scorers", "render_farm", "packagers",
            "model_runs", "scenebench", "bench")

SPEC, BPY_SIDE = "blender_envs.spec", "blender_envs.bpy"
_BELOW_FARM = {"scorers", SPEC, "geometry", "formats"}
_ALL = {"formats", "assets_manifest", "geometry", SPEC, BPY_SIDE, "scorers", "render_farm", "packagers",
        "model_runs", "scenebench", "bench"}

# layer -> the layers its modules may import (directly or through a chain); its own layer always
MAY_IMPORT: dict[str, set[str]] = {
    "formats": set(),
    "assets_manifest": {"formats"},
    "geometry": {"formats"},
    SPEC: {"geometry", "formats"},
    BPY_SIDE: {SPEC, "geometry", "formats"},
    "scorers": {SPEC, "geometry", "formats"},                       # spec modules, never builders
    "render_farm": _BELOW_FARM | {BPY_SIDE},                         # the farm builds and renders
    "packagers": _BELOW_FARM | {"render_farm", "assets_manifest"},   # reads the run store, never Blender
    "model_runs": _BELOW_FARM | {"render_farm", "packagers", "assets_manifest"},
    "scenebench": _ALL,
    "bench": _ALL,
}

# third-party module -> the layers (or single modules) that may import it directly
BLENDER_MODULES: dict[str, set[str]] = {
    "bpy": {"blender_envs.core.bpy_env"},
    "mathutils": {BPY_SIDE},
    "bmesh": {BPY_SIDE},
}

# Known violations, tolerated for now: (importer module, layer it may not import) -> the
# reason and who removes it. Every chain through an import of that module into that layer
# is tolerated. Remove an entry when the import is gone: test_allowlist_is_not_stale
# fails for an entry that no longer matches an import.
TEMPORARY: dict[tuple[str, str], str] = {}  # (module, layer) -> reason; empty: the tree keeps the table


def layer_of(module: str) -> str:
    """The layer of one of our modules (dotted name)."""
    parts = module.split(".")
    if parts[0] != "blender_envs":
        return parts[0]
    if (len(parts) > 1 and parts[1] == "core") or parts[-1] == "build" or parts[-1].endswith("_build"):
        return BPY_SIDE
    return SPEC


def may_import(importer: str, imported: str) -> bool:
    a, b = layer_of(importer), layer_of(imported)
    return a == b or b in MAY_IMPORT[a]


def discover(root: Path) -> dict[str, Path]:
    """dotted module name -> file, for every .py under the packages."""
    mods = {}
    for pkg in PACKAGES:
        for p in sorted((root / pkg).rglob("*.py")):
            parts = list(p.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            mods[".".join(parts)] = p
    return mods


def imported_names(module: str, path: Path) -> set[str]:
    """Every dotted name an import statement of the module may load (absolute)."""
    out: set[str] = set()
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module
            out.add(name)
            out.update(f"{name}.{a.name}" for a in node.names if a.name != "*")
    return out


def _ours(name: str, mods: dict[str, Path]) -> list[str]:
    """The module an imported name lands in (`pkg.mod.func` -> `pkg.mod`) and its parent packages."""
    while name not in mods and "." in name:
        name = name.rsplit(".", 1)[0]
    if name not in mods:
        return []
    parts = name.split(".")
    return [m for m in (".".join(parts[:k]) for k in range(1, len(parts) + 1)) if m in mods]


def module_graph(root: Path) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(module -> modules of ours it imports, module -> Blender modules it imports directly)."""
    mods = discover(root)
    graph, blender = {}, {}
    for m, p in mods.items():
        names = imported_names(m, p)
        graph[m] = {d for n in names for d in _ours(n, mods)} - {m}
        blender[m] = {n.split(".")[0] for n in names} & set(BLENDER_MODULES)
    return graph, blender


def _tolerated(chain: list[str], tolerated) -> bool:
    return any((a, layer_of(b)) in tolerated for a, b in zip(chain[:-1], chain[1:]))


def _chains(graph: dict[str, set[str]], start: str):
    """BFS from `start`: for every module it may not depend on, the shortest import chain
    to it, first crossings only (a chain through a forbidden module is that module's)."""
    prev: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        m = queue.popleft()
        for d in sorted(graph.get(m, ())):
            if d not in prev:
                prev[d] = m
                queue.append(d)
    for target in sorted(prev):
        if may_import(start, target):
            continue
        if any(d.startswith(target + ".") and prev[d] == prev[target] for d in prev):
            continue  # a package run for its submodule: the submodule's chain says it
        chain = [target]
        while prev[chain[-1]] is not None:
            chain.append(prev[chain[-1]])
        chain.reverse()
        if all(may_import(start, m) for m in chain[1:-1]):
            yield chain


def violations(root: Path, tolerated=frozenset()) -> list[str]:
    """Every layer violation and Blender import of the tree at `root`, one line each;
    `tolerated` holds (module, layer) pairs as in TEMPORARY."""
    graph, blender = module_graph(root)
    out = []
    for m in sorted(graph):
        for chain in _chains(graph, m):
            if not _tolerated(chain, tolerated):
                out.append(f"{layer_of(m)} may not depend on {layer_of(chain[-1])}: " + " -> ".join(chain))
        for b in sorted(blender[m]):
            allowed = BLENDER_MODULES[b]
            if m not in allowed and layer_of(m) not in allowed:
                out.append(f"only {sorted(allowed)} may import {b}: {m} imports it")
    return out


# --------------------------------------------------------------------------- the repo


def test_the_repo_keeps_its_layers():
    found = violations(ROOT, set(TEMPORARY))
    assert not found, "import-contract violations:\n  " + "\n  ".join(found)


def test_allowlist_is_not_stale():
    """Each tolerated edge is still an import, and still a violation (else remove it)."""
    graph, _ = module_graph(ROOT)
    for (module, layer), reason in TEMPORARY.items():
        assert layer not in MAY_IMPORT[layer_of(module)] | {layer_of(module)}, \
            f"remove TEMPORARY entry ({module}, {layer}): that import is allowed now"
        assert any(layer_of(d) == layer for d in graph.get(module, ())), \
            f"remove TEMPORARY entry ({module}, {layer}): the import is gone ({reason})"


def test_every_package_module_is_seen():
    graph, _ = module_graph(ROOT)
    assert {m.split(".")[0] for m in graph} == set(PACKAGES)
    assert {"bench.egopath_views", "model_runs.predict", "blender_envs.core.bpy_env", "formats.atomic"} <= set(graph)


def test_layer_classification():
    assert layer_of("blender_envs.indoor.layout") == SPEC
    assert layer_of("blender_envs.registry") == SPEC
    assert layer_of("blender_envs.solar.tape_texture") == SPEC
    assert layer_of("blender_envs.calib.build") == BPY_SIDE
    assert layer_of("blender_envs.solar.roof_build") == BPY_SIDE
    assert layer_of("blender_envs.core.settings") == BPY_SIDE
    assert layer_of("geometry.polygons") == "geometry"
    assert set(MAY_IMPORT) == _ALL


# --------------------------------------------------------------------------- the checker itself


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    for pkg in PACKAGES:
        (root / pkg).mkdir(exist_ok=True)
    return root


def test_checker_follows_chains_through_functions_and_relative_imports(tmp_path):
    root = _tree(tmp_path, {
        "geometry/__init__.py": "",
        "geometry/a.py": "def f():\n    from .b import g\n",              # relative, inside a function
        "geometry/b.py": "from formats import x\nimport scorers.c\n",       # geometry -> scorers: forbidden
        "formats/__init__.py": "", "formats/x.py": "",
        "scorers/__init__.py": "", "scorers/c.py": "from blender_envs.solar.roof_build import y\n",
        "blender_envs/__init__.py": "", "blender_envs/solar/__init__.py": "",
        "blender_envs/solar/roof_build.py": "from blender_envs.core.bpy_env import bpy\nimport mathutils\n",
        "blender_envs/core/__init__.py": "", "blender_envs/core/bpy_env.py": "import bpy\n",
        "packagers/__init__.py": "", "packagers/p.py": "import render_farm.job\n",
        "render_farm/__init__.py": "", "render_farm/job.py": "from blender_envs.core import bpy_env\n",
        "render_farm/store.py": "import formats.x\n",
        "model_runs/m.py": "import packagers.q\n", "packagers/q.py": "from render_farm import store\n",
    })
    found = violations(root)
    assert "geometry may not depend on scorers: geometry.a -> geometry.b -> scorers.c" in found
    assert "geometry may not depend on scorers: geometry.a -> geometry.b -> scorers" not in found  # its package
    assert not [v for v in found if v.startswith("geometry") and "roof_build" in v]  # first crossing only
    assert "scorers may not depend on blender_envs.bpy: scorers.c -> blender_envs.solar.roof_build" in found
    assert ("packagers may not depend on blender_envs.bpy: packagers.p -> render_farm.job -> "
            "blender_envs.core.bpy_env") in found
    assert not [v for v in found if v.startswith("model_runs")]       # packagers -> run store: fine
    assert not [v for v in found if "may import" in v]                # bpy and mathutils where allowed
    tolerated = violations(root, {("geometry.b", "scorers"), ("scorers.c", BPY_SIDE)})
    assert tolerated and all(v.startswith("packagers may not depend on blender_envs.bpy: packagers.p -> "
                                          "render_farm.job -> blender_envs.core") for v in tolerated)


def test_checker_flags_blender_imports_outside_their_place(tmp_path):
    root = _tree(tmp_path, {"scorers/s.py": "def f():\n    import bpy\n",
                            "blender_envs/solar/spec.py": "from mathutils import Vector\n",
                            "blender_envs/core/materials.py": "import bpy\nimport bmesh\n"})
    assert violations(root) == [
        "only ['blender_envs.core.bpy_env'] may import bpy: blender_envs.core.materials imports it",
        "only ['blender_envs.bpy'] may import mathutils: blender_envs.solar.spec imports it",
        "only ['blender_envs.core.bpy_env'] may import bpy: scorers.s imports it",
    ]


@pytest.mark.parametrize("importer,imported,ok", [
    ("scorers.tape_gap", "blender_envs.solar.tape_spec", True),
    ("scorers.tape_gap", "blender_envs.solar.tape_build", False),
    ("packagers.hf_export", "render_farm.store", True),
    ("render_farm.job", "packagers.hf_export", False),
    ("formats.atomic", "geometry.camera", False),
    ("geometry.camera", "formats.atomic", True),
    ("model_runs.predict", "scenebench.cli", False),
    ("bench.egopath_views", "blender_envs.indoor.build", True),
])
def test_layer_table_edges(importer, imported, ok):
    assert may_import(importer, imported) is ok
