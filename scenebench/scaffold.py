"""`scenebench new-env NAME=<name>`: write a new environment that renders and tests at once.

The scaffold is the list of files an environment touches, and nothing else
(docs/adding-an-environment.md): a pure module (spec, samplers, exact geometry, `ENV`),
a bpy builder, a scorer (one scene term, one frame term, an answer key), a test, a docs
page, the Hydra env config, and an entry in the prompt file and the assets manifest.
The registry discovers the new `ENV`; no list is edited. The environment is a box on a
ground plane photographed by a drawn phone: small, real, and meant to be rewritten.

Every check runs before anything is written: a bad name is one line on stderr and
exit 2 with nothing written. Files are then written atomically; if one write fails,
the ones already written are removed and the edited files restored.
"""
from __future__ import annotations

import keyword
import re
import sys
from pathlib import Path
from string import Template

from formats import atomic

ROOT = Path(__file__).resolve().parents[1]
NAME_RE = re.compile(r"^[a-z][a-z0-9_]{1,31}$")
# Names that would shadow a package, a shared module or a word the tools use.
RESERVED = frozenset({"core", "registry", "geometry", "formats", "scorers", "packagers", "render_farm",
                      "scenebench", "model_runs", "bench", "tests", "configs", "docs", "assets_manifest",
                      "env", "envs", "all", "test", "new_env", "protocol", "context", "terms"})


class ScaffoldError(ValueError):
    """Why the name cannot be scaffolded (one line)."""


def _class_name(name: str) -> str:
    return "".join(p.capitalize() for p in name.split("_") if p)


def _existing_envs(root: Path) -> set[str]:
    from blender_envs.registry import discover

    return set(discover(root / "blender_envs"))


def _prompt_names(root: Path) -> set[str]:
    import yaml

    data = yaml.safe_load((root / PROMPTS).read_text(encoding="utf-8")) or {}
    return set(data.get("environments") or {})


PROMPTS = Path("packagers/prompts/realitybench.yaml")
MANIFEST = Path("assets_manifest/manifest.yaml")


def new_files(name: str) -> dict[Path, str]:
    """Relative path -> text of every new file."""
    subs = {"name": name, "Name": _class_name(name)}
    return {Path(rel.format(**subs)): Template(text).substitute(subs) for rel, text in _TEMPLATES.items()}


def plan(name: str, root: Path = ROOT) -> tuple[dict[Path, str], dict[Path, str]]:
    """(new files, edited files with their new text), or ScaffoldError; writes nothing."""
    if not NAME_RE.match(name) or not name.isidentifier():
        raise ScaffoldError(f"environment name {name!r} must be a lowercase identifier "
                            "(a letter, then 1-31 of a-z, 0-9, _)")
    if keyword.iskeyword(name) or keyword.issoftkeyword(name) or name in RESERVED:
        raise ScaffoldError(f"environment name {name!r} is reserved")
    if name in _existing_envs(root):
        raise ScaffoldError(f"environment {name!r} already exists")
    if name in _prompt_names(root):
        raise ScaffoldError(f"environment name {name!r} is reserved: {PROMPTS} already has its prompt "
                            "(an environment of the paper still to be built)")
    files = new_files(name)
    for rel in files:
        if (root / rel).exists():
            raise ScaffoldError(f"{rel} already exists")
    if (root / "blender_envs" / name).exists():
        raise ScaffoldError(f"blender_envs/{name} already exists")
    edits = {}
    for rel, entry in ((PROMPTS, _PROMPT_ENTRY), (MANIFEST, _MANIFEST_ENTRY)):
        text = (root / rel).read_text(encoding="utf-8")
        edits[rel] = text.rstrip("\n") + "\n" + Template(entry).substitute(name=name)
    _check_edits(root, edits, name)
    return files, edits


def _check_edits(root: Path, edits: dict[Path, str], name: str) -> None:
    """The edited prompt file and manifest must still load and hold the new entry."""
    import tempfile

    from assets_manifest import load_manifest
    from packagers.prompts import load_prompts

    with tempfile.TemporaryDirectory() as tmp:
        p, m = Path(tmp) / "prompts.yaml", Path(tmp) / "manifest.yaml"
        p.write_text(edits[PROMPTS], encoding="utf-8")
        m.write_text(edits[MANIFEST], encoding="utf-8")
        try:
            prompts, manifest = load_prompts(p), load_manifest(m)
        except Exception as exc:  # a prompt file not ending in its environments: block
            raise ScaffoldError(f"cannot add {name} to {PROMPTS} / {MANIFEST}: {str(exc).splitlines()[0]}") from None
        if name not in prompts or f"{name}_scene" not in manifest["assets"]:
            raise ScaffoldError(f"{PROMPTS} must end with its environments: block and {MANIFEST} with its assets: "
                                "block for the scaffold to append to them")


def write(name: str, root: Path = ROOT) -> list[Path]:
    """Scaffold `name` under `root`; returns the files written or edited."""
    files, edits = plan(name, root)
    originals = {rel: (root / rel).read_text(encoding="utf-8") for rel in edits}
    done: list[Path] = []
    try:
        for rel, text in files.items():
            atomic.write_text(root / rel, text)
            done.append(rel)
        for rel, text in edits.items():
            atomic.write_text(root / rel, text)
            done.append(rel)
    except BaseException:
        for rel in done:
            if rel in originals:
                atomic.write_text(root / rel, originals[rel])
            else:
                (root / rel).unlink(missing_ok=True)
        pkg = root / "blender_envs" / name
        if pkg.is_dir() and not any(pkg.iterdir()):
            pkg.rmdir()
        raise
    return done


def _parse(argv: list[str]) -> tuple[str, Path]:
    root, args = ROOT, list(argv)
    if "--root" in args:
        i = args.index("--root")
        if i + 1 >= len(args):
            raise ScaffoldError("--root needs a directory")
        root = Path(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        raise ScaffoldError("usage: scenebench new-env NAME=<name>  (or: python -m scenebench.scaffold <name>)")
    arg = args[0]
    key, eq, value = arg.partition("=")
    name = value if eq and key.lower() == "name" else arg
    return name, root


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        name, root = _parse(argv)
        written = write(name, root)
    except ScaffoldError as exc:
        print(f"scenebench new-env: {exc}", file=sys.stderr)
        return 2
    print(f"scenebench new-env: {name}: wrote {len(written)} files")
    for rel in written:
        print(f"  {rel}")
    print(f"next: make render ENV={name} N=2 QUALITY=preview   and   "
          f"make test PYTEST_ARGS='tests/test_{name}.py tests/test_env_conformance.py'")
    return 0


# ---------------------------------------------------------------- templates
# $name / $Name are substituted; everything else is literal Python/YAML/Markdown.

_PURE = '''"""`$name`: the pure half (no bpy) — spec, samplers and the exact geometry that the
builder and the scorer share. Scaffolded by `scenebench new-env`: one box on a ground
plane, photographed by a drawn phone from 1-5 m. Rewrite it into the real scene and
bump GENERATOR_VERSION whenever a distribution changes.
"""
from __future__ import annotations

import math

import numpy as np

from blender_envs.registry import Environment
from geometry.camera import Phone, look_at, sample_phone, sample_phone_pose
from geometry.scene import SceneSpec, View

GENERATOR_VERSION = "$name-1"
BOX_OBJECT = "box"        # the object the scorer asks about (pass_index 2; the ground is 1)


class ${Name}Spec(SceneSpec):
    """Every random draw of one scene."""

    box_size: list[float]          # x, y, z extents in metres; it stands on the ground at the origin
    box_yaw_deg: float
    box_color: list[float]
    ground_color: list[float]
    sun_elevation_deg: float
    sun_azimuth_deg: float
    phone: Phone


def sample_scene(rng: np.random.Generator, scene_id: str, seed: int) -> ${Name}Spec:
    def color():
        return [round(float(c), 4) for c in rng.uniform(0.15, 0.85, size=3)]

    return ${Name}Spec(
        env="$name", scene_id=scene_id, seed=seed,
        box_size=[round(float(v), 4) for v in rng.uniform([0.2, 0.2, 0.2], [0.8, 0.8, 1.0])],
        box_yaw_deg=round(float(rng.uniform(-45.0, 45.0)), 3),
        box_color=color(), ground_color=color(),
        sun_elevation_deg=round(float(rng.uniform(25.0, 70.0)), 3),
        sun_azimuth_deg=round(float(rng.uniform(0.0, 360.0)), 3),
        phone=sample_phone(rng),
    )


# ---- exact geometry (shared by the builder and the scorer) --------------------------

def box_matrix(spec: ${Name}Spec) -> np.ndarray:
    """Box local -> world: yaw about z, centre half its height above the origin."""
    yaw = math.radians(spec.box_yaw_deg)
    M = np.eye(4)
    M[:3, :3] = [[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]]
    M[:3, 3] = [0.0, 0.0, spec.box_size[2] / 2]
    return M


def box_center(spec: ${Name}Spec) -> np.ndarray:
    return box_matrix(spec)[:3, 3].copy()


def sample_view(spec: ${Name}Spec, rng: np.random.Generator, view_index: int, long_side_px: int,
                attempt: int = 0) -> View:
    """A person 1-5 m from the box, eye 0.4-2.0 m high, aiming by hand."""
    center = box_center(spec)
    azimuth = float(rng.uniform(0.0, 2 * math.pi))
    dist = float(rng.uniform(1.0, 5.0))
    eye = center + np.array([math.cos(azimuth) * dist, math.sin(azimuth) * dist, 0.0])
    eye[2] = float(rng.uniform(0.4, 2.0))
    aim = center + rng.normal(0.0, 0.08 * dist, size=3) * np.array([1, 1, 0.5])
    cam_to_world = look_at(eye, aim, roll_rad=math.radians(float(rng.normal(0.0, 4.0))))
    pose = sample_phone_pose(rng, spec.phone, cam_to_world, center, long_side_px)
    return View(view_index=view_index, pose=pose, target=BOX_OBJECT, attempt=attempt)


ENV = Environment(
    name="$name",
    family="$name",
    version=GENERATOR_VERSION,
    views_per_scene=2,
    sample_scene=sample_scene,
    sample_view=sample_view,
    builder="blender_envs.$name.build:build",
    scorer="scorers.$name",
    spec_model=${Name}Spec,
    prompts="realitybench",
)
'''

_BUILD = '''"""Build a `${Name}Spec` in Blender: the environment's only bpy module."""
from __future__ import annotations

import numpy as np

from blender_envs.$name import BOX_OBJECT, ${Name}Spec, box_matrix
from blender_envs.core import materials, primitives
from geometry.scene import BuildInfo, SceneObject

GROUND_SIZE_M = 14.0


def build(scene, spec: ${Name}Spec) -> BuildInfo:
    objects: list[SceneObject] = []

    def add(ob, category):  # pass_index is the object-index value and the mesh's triangle id
        objects.append(SceneObject(id=ob.pass_index, name=ob.name, category=category, pass_index=ob.pass_index))

    add(primitives.plane(scene, "ground", GROUND_SIZE_M, GROUND_SIZE_M, np.eye(4),
                         materials.principled("ground", spec.ground_color, 0.9), 1), "ground")
    add(primitives.box(scene, BOX_OBJECT, spec.box_size, box_matrix(spec),
                       materials.principled(BOX_OBJECT, spec.box_color, 0.5), 2), "box")
    materials.sun_and_sky(scene, spec.sun_elevation_deg, spec.sun_azimuth_deg)
    return BuildInfo(objects=objects)
'''

_SCORER = '''"""Scorer of `$name`: is the box photographed usably? (scaffolded: one term per side)

scene side  box_distance  camera centre to the box centre <= 4 m
frame side  box_pixels    the box's object-index mask holds >= 0.1% of the frame's pixels
Answer key: `height_m`, the box's height (the prompt entry in packagers/prompts/realitybench.yaml).
"""
from __future__ import annotations

import numpy as np

from blender_envs.$name import BOX_OBJECT, ${Name}Spec, box_center
from geometry.camera import project
from geometry.scene import View
from scorers.context import RenderedFrame, SceneGeometry
from scorers.image_stats import mask_pixels
from scorers.terms import TermResult, term

DISTANCE_MAX_M = 4.0
PIXELS_MIN = 0.001


def box_distance_m(spec: ${Name}Spec, view: View) -> float:
    return float(np.linalg.norm(box_center(spec) - view.pose.center))


def score_scene(geo: SceneGeometry, view: View) -> list[TermResult]:
    return [term("box_distance", "scene", box_distance_m(geo.spec, view), "<=", DISTANCE_MAX_M, "m")]


def score_frame(geo: SceneGeometry, view: View, frame: RenderedFrame) -> list[TermResult]:
    frac = mask_pixels(frame.object_index, geo.object_id(BOX_OBJECT)) / frame.object_index.size
    return [term("box_pixels", "frame", frac, ">=", PIXELS_MIN)]


def ground_truth(geo: SceneGeometry, view: View, frame: RenderedFrame | None = None) -> dict:
    spec: ${Name}Spec = geo.spec
    pose = view.pose
    uv, z = project(box_center(spec)[None], pose.K_array(), pose.cam_to_world_array())
    gt = {
        "height_m": round(float(spec.box_size[2]), 4),
        "box_distance_m": round(box_distance_m(spec, view), 6),
        "target_center_px": [round(float(uv[0, 0]), 4), round(float(uv[0, 1]), 4)] if z[0] > 0 else None,
    }
    if frame is not None:
        gt["box_mask_px"] = int(mask_pixels(frame.object_index, geo.object_id(BOX_OBJECT)))
    return gt
'''

_TEST = '''"""`$name`: every term just inside and just outside its threshold, the answer key
against the spec, and the rendered mask against the projected box centre."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from blender_envs.$name import ENV, box_center
from conftest import preview_quality
from geometry.camera import look_at, pose_for_phone
from geometry.scene import View
from render_farm.seeds import rng_for
from scorers import $name as sc
from scorers.context import RenderedFrame


@pytest.fixture(scope="module")
def geo(tmp_path_factory):
    from render_farm.job import build_scene
    from render_farm.plan import plan_jobs

    job = plan_jobs("$name", 1, 1, "random", set(), root_seed=0, run_dir=str(tmp_path_factory.mktemp("$name")),
                    quality=preview_quality(), device="cpu")[0]
    return build_scene(job)


def _view(spec, distance: float, long_side: int = 320) -> View:
    c = box_center(spec)
    T = look_at(c + np.array([distance, 0.0, 0.0]), c)
    pose = pose_for_phone(spec.phone, "main", 1.0, "landscape", long_side, T, "pinhole", None, 1 / 250)
    return View(view_index=0, pose=pose, target="box")


def test_distance_term_edges():
    spec = ENV.sample_scene(rng_for("$name", 1), "s", 1)
    geo = SimpleNamespace(spec=spec)               # the scene term needs only the spec
    (inside,) = sc.score_scene(geo, _view(spec, sc.DISTANCE_MAX_M - 0.01))
    (outside,) = sc.score_scene(geo, _view(spec, sc.DISTANCE_MAX_M + 0.01))
    assert inside.passed and inside.value == pytest.approx(3.99, abs=1e-6)
    assert not outside.passed and outside.value == pytest.approx(4.01, abs=1e-6)


def test_pixels_term_edges(geo):
    _, g, _ = geo
    oid = g.object_id("box")
    index = np.zeros((100, 100), np.int32)          # 10,000 px: the threshold is 10 px
    index.flat[:10] = oid
    frame = RenderedFrame(image=np.zeros((100, 100, 3), np.uint8), depth=np.ones((100, 100), np.float32),
                          object_index=index)
    assert sc.score_frame(g, None, frame)[0].passed
    index.flat[9] = 0
    assert not sc.score_frame(g, None, frame)[0].passed


def test_answer_key_is_the_drawn_height_and_the_aim_point_is_the_principal_point(geo):
    _, g, _ = geo
    view = _view(g.spec, 2.0)
    gt = sc.ground_truth(g, view)
    assert gt["height_m"] == round(g.spec.box_size[2], 4)
    assert gt["box_distance_m"] == pytest.approx(2.0, abs=1e-9)
    K = view.pose.K_array()
    assert gt["target_center_px"] == pytest.approx([K[0, 2], K[1, 2]], abs=1e-3)


@pytest.mark.render
def test_rendered_mask_is_centred_on_the_projected_box(geo):
    from blender_envs.core.settings import RenderSettings
    from render_farm.job import photograph
    from scorers.image_stats import mask_centroid

    scene, g, _ = geo
    view = _view(g.spec, 2.5, long_side=96)
    photo = photograph(scene, view.pose, RenderSettings.model_validate(preview_quality()), ("test", "$name"), 0)
    cu, cv = mask_centroid(photo.passes.object_index, g.object_id("box"))
    u, v = sc.ground_truth(g, view)["target_center_px"]
    assert abs(cu - u) < 3.0 and abs(cv - v) < 3.0
'''

_DOCS = '''# $name

Scaffolded by `scenebench new-env NAME=$name`: a box on a ground plane, photographed by
a drawn phone. Replace this page with the environment's real description (its source
in the paper, the scene, the field pose, the scorer's terms with thresholds, the
answer keys), as the other pages in `docs/envs/` do.

## Scene (`blender_envs/$name/`)
- `__init__.py` (pure) — `${Name}Spec`: the box's size (0.2-0.8 x 0.2-0.8 x 0.2-1.0 m),
  yaw (+-45 deg) and colour, the ground colour, the sun and the phone; `box_matrix`,
  `box_center` (exact geometry shared with the scorer); `ENV`.
- `build.py` (bpy) — ground (pass_index 1) and box (pass_index 2), sun and sky.

## Field pose (`sample_view`)
1-5 m from the box, eye 0.4-2.0 m high, aimed by hand (sigma = 8% of the distance),
roll sigma = 4 deg; phone, lens, focus and shake from `geometry.camera.sample_phone_pose`.

## Scorer (`scorers/$name.py`)
| term | side | threshold |
|---|---|---|
| box_distance | scene | camera centre to box centre <= 4 m |
| box_pixels | frame | object-index mask >= 0.1% of the frame |

Answer key: `height_m` (tolerance 0.05 m).
'''

_ENV_YAML = '''# $name: scaffolded by `scenebench new-env` (the Hydra group file of `env=$name`).
name: $name
'''

_PROMPT_ENTRY = '''
  $name:
    technician: a field technician
    requirement: >-
      The whole box in the frame, close enough to judge its size and in focus.
      Reject a photo where the box is cut off or a speck in the distance.
    question: >-
      How tall is the box, in metres?
    keys:
      - {name: height_m, type: number, grammar: "a number (JSON number, no units, no quotes)", tolerance: 0.05}
'''

_MANIFEST_ENTRY = '''  ${name}_scene:
    kind: procedural
    generator: blender_envs/$name/build.py:build
    license: Apache-2.0
    attribution: scenebench authors (procedural)
'''

_TEMPLATES = {
    "blender_envs/{name}/__init__.py": _PURE,
    "blender_envs/{name}/build.py": _BUILD,
    "scorers/{name}.py": _SCORER,
    "tests/test_{name}.py": _TEST,
    "docs/envs/{name}.md": _DOCS,
    "configs/env/{name}.yaml": _ENV_YAML,
}


if __name__ == "__main__":
    raise SystemExit(main())
