"""`scenebench new-env`: in a temporary copy of the repository, scaffold an environment,
render it through the CLI (N=2, preview, one worker) and run its own test and the
conformance test there; bad names are refused with one line and nothing written."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

NAME = "scaffold_probe"


def _copy_repo(dest):
    """Tracked files plus untracked, not ignored ones (what a clone of this tree holds)."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                         capture_output=True, check=True).stdout.decode()
    for rel in filter(None, out.split("\0")):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


def _tree_digest(root) -> str:
    h = hashlib.sha256()
    for p in sorted(q for q in root.rglob("*") if q.is_file() and "__pycache__" not in q.parts):
        h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def _run(repo, *args, timeout=600):
    env = dict(os.environ, PYTHONPATH=str(repo), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    return subprocess.run([sys.executable, *args], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    dest = tmp_path_factory.mktemp("scaffold_copy")
    _copy_repo(dest)
    yield dest
    shutil.rmtree(dest, ignore_errors=True)


@pytest.mark.parametrize("arg, message", [
    ("NAME=Bad-Name", "environment name 'Bad-Name' must be a lowercase identifier"),
    ("NAME=tape_gap", "environment 'tape_gap' already exists"),
    ("NAME=car_plate", "environment 'car_plate' already exists"),
    ("NAME=core", "environment name 'core' is reserved"),
    ("NAME=lambda", "environment name 'lambda' is reserved"),
    ("NAME=cli", "tests/test_cli.py already exists"),
])
def test_bad_names_are_refused_with_nothing_written(repo, arg, message):
    before = _tree_digest(repo)
    r = _run(repo, "-m", "scenebench.scaffold", arg)
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"scenebench new-env: {message}"), r.stderr
    assert _tree_digest(repo) == before


def test_a_name_with_a_prompt_but_no_environment_is_reserved(repo):
    """A paper environment whose prompt is written before its scene (as the vehicle ones were):
    the copy's prompts file gets one such entry; the name is refused and nothing is written."""
    prompts = repo / "packagers/prompts/realitybench.yaml"
    original = prompts.read_text(encoding="utf-8")
    try:
        prompts.write_text(original.rstrip("\n") + "\n  tyre_tread:\n    technician: a tyre fitter\n",
                           encoding="utf-8")
        before = _tree_digest(repo)
        r = _run(repo, "-m", "scenebench.scaffold", "NAME=tyre_tread")
        assert r.returncode == 2 and r.stdout == "" and _tree_digest(repo) == before
        assert r.stderr.strip() == ("scenebench new-env: environment name 'tyre_tread' is reserved: "
                                    "packagers/prompts/realitybench.yaml already has its prompt "
                                    "(an environment of the paper still to be built)")
    finally:
        prompts.write_text(original, encoding="utf-8")


def test_scaffolded_environment_renders_and_passes_its_tests(repo):
    r = _run(repo, "-m", "scenebench.scaffold", f"NAME={NAME}")
    assert r.returncode == 0, r.stderr
    written = [line.strip() for line in r.stdout.splitlines()[1:] if line.startswith("  ")]
    assert written == [f"blender_envs/{NAME}/__init__.py", f"blender_envs/{NAME}/build.py", f"scorers/{NAME}.py",
                       f"tests/test_{NAME}.py", f"docs/envs/{NAME}.md", f"configs/env/{NAME}.yaml",
                       "packagers/prompts/realitybench.yaml", "assets_manifest/manifest.yaml"]
    again = _run(repo, "-m", "scenebench.scaffold", NAME)
    assert again.returncode == 2 and f"environment '{NAME}' already exists" in again.stderr

    r = _run(repo, "-m", "scenebench", "render", f"env={NAME}", "n=2", "render=preview", "workers=1",
             "device=cpu", f"out={repo / 'out'}", "progress=false")
    assert r.returncode == 0, r.stderr
    run = repo / "out" / NAME
    records = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
    assert len(records) == 2 and {rec["env"] for rec in records} == {NAME}
    for rec in records:
        assert [t["name"] for t in rec["terms"]] == ["box_distance", "box_pixels"]
        assert rec["ground_truth"]["height_m"] > 0
        assert (run / rec["image"]).stat().st_size > 0
    assert (run / "contact_sheet.jpg").is_file()

    r = _run(repo, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"tests/test_{NAME}.py",
             "tests/test_env_conformance.py", "tests/test_prompts.py", "tests/test_assets_manifest.py",
             "-k", f"{NAME} or discovery or known_environments or no_env_config or prompt or manifest")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    summary = r.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary and "error" not in summary, summary
    assert int(summary.split()[0]) >= 40, summary      # its 4 tests + ~13 conformance checks + prompts


def test_a_failed_write_leaves_the_tree_as_it_was(repo, monkeypatch):
    """Atomic as a whole: a write failing half-way removes the new files and restores the edited ones."""
    from formats import atomic
    from scenebench import scaffold

    before = _tree_digest(repo)
    real, calls = atomic.write_text, []

    def flaky(path, text):
        calls.append(path)
        if len(calls) == 7:       # after the six new files, on the first edited file
            raise OSError("disk full")
        return real(path, text)

    monkeypatch.setattr(scaffold.atomic, "write_text", flaky)
    with pytest.raises(OSError, match="disk full"):
        scaffold.write("half_written", repo)
    assert _tree_digest(repo) == before
    assert not (repo / "blender_envs" / "half_written").exists()
