"""Human ratings against the scorer (App. E, Table 13): the ratings CSV, the agreement report, its table.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from scorers.realitybench_grading import GradingItem
from scorers.realitybench_inputs import ReportError
from scorers.realitybench_markdown import _f

__all__ = ["read_ratings_csv", "ratings_report", "ratings_table"]

_YES = {"true", "1", "yes", "y", "accept", "accepted", "adequate"}
_NO = {"false", "0", "no", "n", "reject", "rejected", "inadequate"}


def read_ratings_csv(path: str | Path) -> dict[str, dict[str, bool]]:
    """{frame_id: {rater: acceptable}} from a CSV with columns frame_id, rater, acceptable.

    An empty `acceptable` is a skipped frame; any other unreadable value, a missing column or
    the same rater giving two different labels to one frame is an error naming the line.
    """
    import csv

    p = Path(path)
    if not p.is_file():
        raise ReportError(f"ratings file {p} does not exist")
    with p.open(newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        cols = [c.strip() for c in (reader.fieldnames or [])]
        missing = [c for c in ("frame_id", "rater", "acceptable") if c not in cols]
        if missing:
            raise ReportError(f"{p}: missing column(s) {', '.join(missing)} (need frame_id, rater, acceptable)")
        out: dict[str, dict[str, bool]] = {}
        for row in reader:
            # surplus fields sit under the key None; short rows have None values
            row = {k.strip(): (v or "").strip() for k, v in row.items() if k is not None}
            line = reader.line_num
            # the header check above guarantees all three keys
            fid, rater, val = row["frame_id"], row["rater"], row["acceptable"].lower()
            if not fid and not rater and not val:
                continue
            if not fid or not rater:
                raise ReportError(f"{p}:{line}: empty frame_id or rater")
            if val == "":
                continue
            if val not in _YES and val not in _NO:
                raise ReportError(f"{p}:{line}: acceptable must be true/false/1/0/yes/no, got {val!r}")
            b = val in _YES
            prev = out.setdefault(fid, {}).get(rater)
            if prev is not None and prev != b:
                raise ReportError(f"{p}:{line}: rater {rater!r} labels frame {fid!r} both ways")
            out[fid][rater] = b
    return out


def ratings_report(ratings: dict[str, dict[str, bool]], items: list[GradingItem] | None, seed: int = 0,
                   n_resamples: int = 1000, csv_path: str = "", dataset: str = "") -> dict:
    """Table 13 for the whole CSV and per environment, plus each rater against the others' majority."""
    from scorers.agreement import heldout_split, rater_vs_majority, scorer_vs_majority, table13_row

    by_id = {it.id: it for it in items or []}
    # the scorer's label: None where the frame is not scored for acceptability (car_plate, gray, unscored)
    scorer: dict[str, bool | None] = {}
    for fid, it in by_id.items():
        ok = it.acceptability_scored and not it.gray and it.scorer_verdict in ("accept", "reject")
        scorer[fid] = (it.scorer_verdict == "accept") if ok else None
    unknown = sorted(f for f in ratings if items is not None and f not in by_id)

    def env_of(fid: str) -> str:
        return by_id[fid].env if fid in by_id else fid.split("-")[0]

    envs: dict[str, dict] = {}
    for env in sorted({env_of(f) for f in ratings}):
        sub = {f: r for f, r in ratings.items() if env_of(f) == env}
        envs[env] = table13_row(sub, scorer).model_dump()
    overall = table13_row(ratings, scorer).model_dump()
    # scorer_vs_majority itself keeps only frames with >= 3 ratings
    overall["scorer"] = scorer_vs_majority(ratings, scorer, n_resamples=n_resamples, seed=seed).model_dump()
    split = Counter(heldout_split(f) for f in ratings)
    return {
        "csv": csv_path, "dataset": dataset or None, "seed": seed,
        "n_ratings": sum(len(r) for r in ratings.values()), "n_frames": len(ratings),
        "raters": sorted({k for r in ratings.values() for k in r}),
        "all": overall, "environments": envs,
        "rater_vs_majority": {k: v.model_dump() for k, v in rater_vs_majority(ratings).items()},
        "split": {"tune": split.get("tune", 0), "heldout": split.get("heldout", 0)},
        "unknown_frames": unknown,
        "scorer_available": items is not None,
    }


def ratings_table(rep: dict) -> str:
    """The Table 13-like text printed by `scenebench ratings`."""
    head = ("set", "frames", "raters", "ratings/frame", "agree", "alpha", "scorer (held-out)")
    rows = [head]

    def row(name: str, r: dict) -> tuple:
        s = r["scorer"]
        sc = "–" if s["agreement"] is None else f"{s['agreement']:.2f} ({s['n']})"
        return (name, str(r["frames"]), str(r["raters"]), _f(r["ratings_per_frame"], 1), _f(r["agree"]),
                _f(r["alpha"]), sc)

    for env, r in rep["environments"].items():
        rows.append(row(env, r))
    rows.append(row("all", rep["all"]))
    w = [max(len(r[i]) for r in rows) for i in range(len(head))]
    L = ["  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(r)) for r in rows]
    s = rep["all"]["scorer"]
    if s.get("ci") and s["ci"]["low"] is not None:
        L.append(f"scorer vs majority (held-out, >= 3 ratings, ties excluded): {s['agreement']:.2f} "
                 f"[{s['ci']['low']:.2f}, {s['ci']['high']:.2f}] on {s['n']} frames; accepts "
                 f"{s['accepts_of_majority_rejects']} of {s['n_majority_rejects']} majority rejects, rejects "
                 f"{s['rejects_of_majority_accepts']} of {s['n_majority_accepts']} majority accepts")
    L.append("each rater vs the majority of the others:")
    for k, v in rep["rater_vs_majority"].items():
        L.append(f"  {k}: {_f(v['agreement'])} ({v['n']} frames)")
    if rep["unknown_frames"]:
        L.append(f"{len(rep['unknown_frames'])} rated frame(s) not in the dataset (no scorer verdict): "
                 f"{', '.join(rep['unknown_frames'][:5])}")
    return "\n".join(L)
