"""Generate one module's mutants in its work folder and record the listed equivalents as survived.

Why: a mutant that `docs/mutants-equivalent.yaml` lists cannot be killed, so testing it only costs
time, and the most (every test of the selection runs to the end): geometry/view_annotation.py's 53
equivalents took about 1,000 of its 2,800 s. mutmut 3.8.1 lets a recorded verdict stand (`mutmut run`
without names tests only mutants whose exit code is unset, and regenerating an unchanged file keeps
the codes), so this step, run by scripts/mutants_run.py before `mutmut run` in a new work folder,
generates the mutants with mutmut's own functions, matches each mutant's diff against the list
exactly as scripts/mutants_report.py does, and writes exit code 0 (survived) for the matches. The
report then counts them as equivalent, as it would have after testing them; an entry that no longer
holds is caught by taking it off the list, which changes the module's fingerprint and reruns it.

    python scripts/mutants_seed.py MODULE      (in the module's work folder)
"""
from __future__ import annotations

import ast
import json
import os
import sys
from pathlib import Path

from mutants_report import EQUIVALENT_FILE, Mutant, function_of, function_span, load_equivalents, matches, parse_diff

SURVIVED = 0   # mutmut's exit code for a mutant no test failed on


def equivalents_of(module: str, entries: list[dict]) -> list[dict]:
    return [e for e in entries if e["module"] == module]


def seed(codes: dict[str, int | None], diffs: dict[str, str], module: str, entries: list[dict]) -> list[str]:
    """Set the unset codes of the mutants whose diff an entry of `module` matches to SURVIVED, in
    place; returns their names. A verdict already recorded is kept."""
    seeded = []
    for name, code in codes.items():
        if code is not None:
            continue
        mutant = Mutant(name, module, "not checked")
        mutant.removed, mutant.added = parse_diff(diffs[name])
        if any(matches(e, mutant) for e in entries):
            codes[name] = SURVIVED
            seeded.append(name)
    return seeded


def candidates(codes: dict[str, int | None], source: str, entries: list[dict]) -> list[str]:
    """The unset mutants whose diff an entry could match: those of a function whose original source
    holds the first removed line of one of `entries` (a diff's removed lines are lines of that
    function). Computing a diff costs ~15 ms a mutant (a whole module's: 20-100 s), so only these are
    diffed; a function not found in the source keeps its mutants in, as does an entry removing nothing."""
    if any(not e["removed"].strip() for e in entries):
        return [name for name, code in codes.items() if code is None]
    firsts = {e["removed"].strip().splitlines()[0].strip() for e in entries}
    tree, lines = ast.parse(source), source.splitlines()
    holds: dict[tuple, bool] = {}
    out = []
    for name, code in codes.items():
        if code is not None:
            continue
        key = function_of(name)
        if key not in holds:
            span = function_span(tree, *key)
            holds[key] = span is None or bool(firsts & {ln.strip() for ln in lines[span[0] - 1:span[1]]})
        if holds[key]:
            out.append(name)
    return out


def write_json_atomically(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=4))
    os.replace(tmp, path)


def generate() -> None:
    """mutmut run's generation step alone (mutmut 3.8.1's own functions, pinned in pyproject)."""
    import mutmut.__main__ as mm

    mm.set_mutant_under_test("mutant_generation")
    mm.copy_src_dir()
    mm.copy_also_copy_files()
    mm.setup_source_paths()
    mm.store_lines_covered_by_tests()
    mm.create_mutants(1)


def main(argv: list[str] | None = None) -> int:
    (module,) = argv if argv is not None else sys.argv[1:]
    entries = equivalents_of(module, load_equivalents(EQUIVALENT_FILE))
    if not entries:
        return 0
    generate()
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    meta = Path("mutants") / (module + ".meta")
    data = json.loads(meta.read_text())
    codes = data["exit_code_by_key"]
    todo = candidates(codes, Path(module).read_text(), entries)
    diffs = {name: get_diff_for_mutant(name, path=module) for name in todo}
    seeded = seed({name: codes[name] for name in todo}, diffs, module, entries)
    for name in seeded:
        codes[name] = SURVIVED
    write_json_atomically(meta, data)
    print(f"mutants_seed: {len(seeded)} of {len(codes)} mutants of {module} recorded as listed equivalents "
          f"({len(todo)} diffed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
