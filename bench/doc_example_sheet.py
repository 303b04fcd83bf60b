"""A contact sheet of an environment's docs examples, each labelled with its terms.

    .venv/bin/python bench/doc_examples.py --env car_view ... > examples.log
    .venv/bin/python bench/doc_example_sheet.py --env car_view --log examples.log

Reads the lines `bench/doc_examples.py` prints (`<file> <scene> <view> failing: <term>
{term: value, ...}`), and writes `docs/img/<env>_examples.jpg`: accepted frames first,
then rejected ones, each with its verdict, its failing term and every term's value.
"""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def parse(line: str) -> dict | None:
    """One doc_examples line -> {file, scene, view, failing, terms}; None for other lines."""
    head, sep, rest = line.partition(" failing: ")
    if not sep:
        return None
    name, scene, view = head.split()
    failing, _, terms = rest.partition(" ")
    return {"file": name, "scene": scene, "view": int(view), "failing": None if failing == "None" else failing,
            "terms": ast.literal_eval(terms)}


def label_lines(ex: dict) -> list[str]:
    """Where, the verdict, then one line per term value, value first (terms sharing a
    value, such as a distance's two bounds, on one line)."""
    verdict = "accept" if ex["failing"] is None else f"reject: {ex['failing']}"
    groups: dict[str, list[str]] = {}
    for k, v in ex["terms"].items():
        groups.setdefault("-" if v is None else format(v, ".3g"), []).append(k)
    return [f"{ex['scene']} view {ex['view']}: {verdict}"] + [f"{v}  {' / '.join(ks)}" for v, ks in groups.items()]


def main() -> None:
    from render_farm.contact_sheet import write_contact_sheet

    ap = argparse.ArgumentParser()
    ap.add_argument("--env", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--thumb", type=int, default=320)
    ap.add_argument("--columns", type=int, default=4)
    a = ap.parse_args()
    exs = [e for e in map(parse, Path(a.log).read_text().splitlines()) if e is not None]
    exs.sort(key=lambda e: (e["failing"] is not None, e["file"]))
    items = [{"image_path": ROOT / "docs" / "img" / e["file"], "status": "accept" if e["failing"] is None else "reject",
              "label_lines": label_lines(e)} for e in exs]
    out = ROOT / "docs" / "img" / f"{a.env}_examples.jpg"
    write_contact_sheet(out, items, thumb_long=a.thumb, columns=a.columns, title=f"{a.env}: docs examples")
    print(out)


if __name__ == "__main__":
    main()
