"""Kill rate per module and the surviving mutants of the last `make mutants` run (mutmut 3.8.1).

Reads mutmut's result files under mutants/ (one `<module>.meta` per mutated module) and the list of
equivalent mutants in docs/mutants-equivalent.yaml. The kill rate of a module is
detected / (checked - equivalent), where detected = killed + timeout and equivalent counts only
surviving mutants that the list names; a module below --min-rate makes the exit status 1.

    python scripts/mutants_report.py [MODULE ...] [--min-rate 90] [--no-fail] [--markdown FILE]

MODULE is a file or folder (scorers/terms.py, geometry/); without one, every mutated module is shown.
"""
from __future__ import annotations

import argparse
import ast
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "mutants"
EQUIVALENT_FILE = ROOT / "docs" / "mutants-equivalent.yaml"

# mutmut's exit-code convention (mutmut/stats.py status_by_exit_code), reduced to what the rate needs.
DETECTED = {1: "killed", 3: "killed", 36: "timeout", -24: "timeout", 24: "timeout", 152: "timeout",
            255: "timeout", 37: "killed"}
SURVIVED = {0: "survived", 5: "no tests", 33: "no tests"}
NOT_CHECKED = {None: "not checked", 2: "interrupted", 34: "skipped"}
CLASS_SEP = "ǁ"


@dataclass
class Mutant:
    name: str
    module: str
    status: str
    line: int = 0
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    equivalent: str = ""


@dataclass
class ModuleStats:
    module: str
    mutants: list[Mutant] = field(default_factory=list)
    missing: bool = False   # configured, but no result on disk

    def count(self, *statuses: str) -> int:
        return sum(m.status in statuses and not m.equivalent for m in self.mutants)

    @property
    def detected(self) -> int:
        return self.count("killed", "timeout")

    @property
    def equivalent(self) -> int:
        return sum(bool(m.equivalent) for m in self.mutants)

    @property
    def checked(self) -> int:
        return sum(m.status not in NOT_CHECKED.values() for m in self.mutants)

    @property
    def rate(self) -> float | None:
        denominator = self.checked - self.equivalent
        return None if denominator <= 0 else 100.0 * self.detected / denominator

    def shortfall(self, min_rate: float) -> str:
        """Why the module fails the report ("" when it passes). A module nobody ran, or one whose run
        stopped part-way, has no kill rate to speak of; one mutmut found nothing to mutate in
        (pydantic models only) passes."""
        if self.missing:
            return "has no results"
        if self.checked < len(self.mutants):
            return f"was checked on {self.checked} of {len(self.mutants)} mutants only"
        if self.rate is not None and self.rate < min_rate:
            return f"kills {self.rate:.1f}% < {min_rate:g}%"
        return ""


def status_of(exit_code: int | None) -> str:
    for table in (DETECTED, SURVIVED, NOT_CHECKED):
        if exit_code in table:
            return table[exit_code]
    return "suspicious"  # mutmut's name for any other exit code (e.g. a crash); counted as not detected


def function_of(name: str) -> tuple[str, str | None]:
    """(function, class) of a mutant key such as `scorers.terms.x_band__mutmut_3` or `m.xǁCǁf__mutmut_1`."""
    last = name.partition("__mutmut_")[0].rpartition(".")[2]
    if CLASS_SEP in last:
        _, cls, func = last.split(CLASS_SEP)
        return func, cls
    return last.removeprefix("x_"), None


def function_span(tree: ast.Module, func: str, cls: str | None) -> tuple[int, int] | None:
    body = tree.body
    if cls is not None:
        owners = [n for n in body if isinstance(n, ast.ClassDef) and n.name == cls]
        if not owners:
            return None
        body = owners[0].body
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == func:
            return node.lineno, node.end_lineno or node.lineno
    return None


def parse_diff(diff: str) -> tuple[list[str], list[str]]:
    removed = [ln[1:] for ln in diff.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    added = [ln[1:] for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    return removed, added


def locate(source_lines: list[str], span: tuple[int, int] | None, removed: list[str]) -> int:
    """Line number in the original file of the first line the mutant changes (0 if not found)."""
    if span is None:
        return 0
    start, end = span
    wanted = removed[0].strip() if removed else ""
    for number in range(start, end + 1):
        if source_lines[number - 1].strip() == wanted:
            return number
    return start


def load_equivalents(path: Path) -> list[dict]:
    if not path.exists():
        return []
    entries = yaml.safe_load(path.read_text()) or []
    for entry in entries:
        missing = {"module", "removed", "added", "reason"} - set(entry)
        if missing:
            raise SystemExit(f"{path}: entry {entry!r} lacks {sorted(missing)}")
    return entries


def matches(entry: dict, mutant: Mutant) -> bool:
    return (entry["module"] == mutant.module
            and entry["removed"].strip() == "\n".join(s.strip() for s in mutant.removed)
            and entry["added"].strip() == "\n".join(s.strip() for s in mutant.added))


def diff_of(name: str, module: str) -> str:
    from mutmut.mutation.diff_apply import get_diff_for_mutant  # the tool's own rendering of a mutant

    return get_diff_for_mutant(name, path=module)


def selected(module: str, selection: list[str]) -> bool:
    return not selection or any(module == s or module.startswith(s.rstrip("/") + "/") for s in selection)


def collect(selection: list[str], equivalents: list[dict]) -> list[ModuleStats]:
    """Results of every configured module in `selection`; a module without results is listed with
    none (and fails the report), so that a module nobody ran cannot pass unnoticed."""
    from mutants_run import configured_modules, load_settings

    modules = []
    configured = configured_modules(load_settings(ROOT)[1], ROOT)
    for module in (m for m in configured if selected(m, selection)):
        meta = RESULTS / (module + ".meta")
        if not meta.is_file():
            modules.append(ModuleStats(module, missing=True))
            continue
        try:
            codes = json.loads(meta.read_text())["exit_code_by_key"]
        except (ValueError, KeyError) as exc:
            raise SystemExit(f"mutants_report: {meta.relative_to(ROOT)} is damaged ({exc}); rerun it with "
                             f"`make mutants MODULES={module} MUTANTS_ARGS=--fresh`") from None
        source = (ROOT / module).read_text()
        tree, lines = ast.parse(source), source.splitlines()
        stats = ModuleStats(module)
        for name, code in sorted(codes.items(), key=lambda kv: natural_key(kv[0])):
            mutant = Mutant(name, module, status_of(code))
            if mutant.status not in ("killed", "timeout") and mutant.status not in NOT_CHECKED.values():
                mutant.removed, mutant.added = parse_diff(diff_of(name, module))
                mutant.line = locate(lines, function_span(tree, *function_of(name)), mutant.removed)
                if mutant.status == "survived":
                    mutant.equivalent = next((e["reason"] for e in equivalents if matches(e, mutant)), "")
            stats.mutants.append(mutant)
        modules.append(stats)
    return modules


def natural_key(name: str) -> tuple[str, int]:
    head, _, number = name.rpartition("__mutmut_")
    return head, int(number) if number.isdigit() else 0


def table(modules: list[ModuleStats]) -> list[str]:
    rows = ["| module | mutants | killed | timeout | survived | no tests | suspicious | equivalent | not run "
            "| kill rate |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in modules:
        if s.missing:
            rows.append(f"| {s.module} | – | – | – | – | – | – | – | – | no results |")
            continue
        rate = ("no mutants" if not s.mutants else "all equivalent" if s.rate is None else f"{s.rate:.1f}%")
        rows.append(f"| {s.module} | {len(s.mutants)} | {s.count('killed')} | {s.count('timeout')} | "
                    f"{s.count('survived')} | {s.count('no tests')} | {s.count('suspicious')} | {s.equivalent} | "
                    f"{len(s.mutants) - s.checked} | {rate} |")
    return rows


def survivors(modules: list[ModuleStats]) -> list[str]:
    out = []
    for s in modules:
        alive = [m for m in s.mutants if m.status in ("survived", "no tests", "suspicious") and not m.equivalent]
        if not alive:
            continue
        out += ["", f"### {s.module} ({len(alive)} surviving)", ""]
        for m in alive:
            out.append(f"- `{m.module}:{m.line}` {m.status} `{m.name}`")
            out += ["  ```diff"] + [f"  -{r}" for r in m.removed] + [f"  +{a}" for a in m.added] + ["  ```"]
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("modules", nargs="*", help="files or folders to report (default: all mutated modules)")
    p.add_argument("--min-rate", type=float, default=90.0, help="fail below this kill rate in %% (default 90)")
    p.add_argument("--no-fail", action="store_true", help="always exit 0 (report only)")
    p.add_argument("--markdown", type=Path, help="also write the report to this file")
    p.add_argument("--equivalent", type=Path, default=EQUIVALENT_FILE, help="list of equivalent mutants")
    args = p.parse_args(argv)

    if not RESULTS.is_dir():
        print("mutants_report: no mutants/ folder; run `make mutants` first", file=sys.stderr)
        return 2
    modules = collect(args.modules, load_equivalents(args.equivalent))
    if not modules:
        print(f"mutants_report: no mutation results for {args.modules or 'any module'}", file=sys.stderr)
        return 2
    lines = table(modules) + survivors(modules)
    if args.markdown:
        args.markdown.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))

    low = [s for s in modules if s.shortfall(args.min_rate)]
    for s in low:
        print(f"mutants_report: {s.module} {s.shortfall(args.min_rate)}", file=sys.stderr)
    return 1 if low and not args.no_fail else 0


if __name__ == "__main__":
    sys.exit(main())
