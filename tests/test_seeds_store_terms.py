"""Seeds, job planning, the run store's log repair and the term/verdict logic."""
from __future__ import annotations

import ast
import re

import numpy as np
import pytest

from conftest import ROOT
from render_farm.plan import frame_id_for, plan_jobs
from render_farm.seeds import cycles_seed, derive_seed, rng_for
from render_farm.store import RunStore
from scorers.terms import Verdict, first_failure, flag, term, verdict_of


def _blake_seed(key: str) -> int:
    """The documented scheme, computed here independently: blake2b-64 of the '/'-joined
    parts, read little-endian, top bit dropped (a 63-bit seed)."""
    import hashlib

    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little") >> 1


def test_seeds_are_stable_hierarchical_and_independent():
    # pinned literals: a changed hash scheme would silently change every benchmark
    assert derive_seed("scenebench", 0, "calib", "random", 3, "scene") == 6559230459346046109
    assert derive_seed("a", "b") == 5784844333763622278
    assert derive_seed("x", 1, "scene") == 3691181363759891732
    assert derive_seed("x", 1, "view") == 3949927523669796634
    # the same values from the documented scheme, computed by hand
    assert _blake_seed("scenebench/0/calib/random/3/scene") == 6559230459346046109
    assert _blake_seed("a/b") == 5784844333763622278
    assert _blake_seed("x/1/scene") == 3691181363759891732
    # parts are joined with '/', str()-ed, and order matters
    assert derive_seed("x", 1, "scene") == derive_seed("x/1", "scene") == derive_seed("x", "1", "scene")
    assert derive_seed("b", "a") != derive_seed("a", "b")
    assert all(0 <= derive_seed("s", i) < 2**63 for i in range(200))
    # the generator is seeded with exactly that seed (numpy's default PCG64 stream)
    assert rng_for("x").random() == 0.7434335106944744
    assert list(rng_for("x").integers(0, 2**32, size=3)) == [786982941, 3193022615, 270925453]
    assert rng_for("a", "b").random() == np.random.default_rng(5784844333763622278).random()
    assert cycles_seed(5784844333763622278) == 1266237458 == 5784844333763622278 % (2**31 - 1)


def test_plan_covers_n_frames_and_skips_done():
    jobs = plan_jobs("calib", 10, 4, "random", set(), root_seed=0, run_dir="/x", quality={}, device="cpu")
    assert [len(j.views) for j in jobs] == [4, 4, 2]
    done = {frame_id_for("calib", "random", 0, v) for v in range(4)} | {frame_id_for("calib", "random", 2, 1)}
    jobs = plan_jobs("calib", 10, 4, "random", done, root_seed=0, run_dir="/x", quality={}, device="cpu")
    assert [(j.scene_index, j.views) for j in jobs] == [(1, [0, 1, 2, 3]), (2, [0])]
    with pytest.raises(ValueError, match="positive"):
        plan_jobs("calib", 0, 4, "random", set())


def test_store_repairs_torn_line_and_dedupes(tmp_path):
    store = RunStore(tmp_path)
    store.create()
    good = (ROOT / "tests" / "data" / "record.json").read_text().strip()
    rec = __import__("formats.records", fromlist=["FrameRecord"]).FrameRecord.model_validate_json(good)
    (tmp_path / rec.image).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / rec.image).write_bytes(b"jpg")
    (tmp_path / rec.passes).write_bytes(b"npz")
    store.records_path.write_text(good + "\n" + good + "\n" + good[:40])
    loaded = store.load_records()
    assert list(loaded) == [rec.frame_id]
    assert store.records_path.read_text().endswith("\n")
    assert len(store.canonicalise_records()) == 1


def test_terms_and_verdicts():
    t = term("close", "scene", 0.7, "<=", 0.65, "m")
    assert not t.passed and not t.gray and t.value == 0.7 and t.threshold == "<= 0.65 m"
    g = term("yaw", "scene", 20.0, "<=", 15.0, "deg", gray_band=(15.0, 45.0))
    assert not g.passed and g.gray
    ok = flag("front", "scene", True)
    assert verdict_of([ok]) == Verdict.ACCEPT
    assert verdict_of([ok, g]) == Verdict.UNSCORED
    assert verdict_of([ok, g, t]) == Verdict.REJECT
    assert first_failure([ok, g, t]) == "close"
    assert term("nan", "frame", float("nan"), ">=", 1.0).passed is False


GENERATOR_DIRS = ("blender_envs", "geometry", "scorers")
BANNED = re.compile(r"np\.random\.(seed|rand|randn|randint|choice|uniform|normal|shuffle|random)\(|"
                    r"^\s*import random\b|\brandom\.(random|uniform|choice|randint)\(|time\.time\(|datetime\.now\(")


def test_no_global_rng_or_wall_clock_in_generators_and_scorers():
    """Infinigen's determinism ban: generators draw only from explicit Generators."""
    hits = []
    for d in GENERATOR_DIRS:
        for path in (ROOT / d).rglob("*.py"):
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if BANNED.search(line):
                    hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not hits, hits


def test_bpy_is_only_imported_inside_blender_envs():
    for d in ("geometry", "scorers", "render_farm", "packagers", "assets_manifest", "scenebench"):
        for path in (ROOT / d).rglob("*.py"):
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    names = [node.module or ""]
                else:
                    continue
                assert not any(n.split(".")[0] in ("bpy", "mathutils", "bmesh") for n in names), path
