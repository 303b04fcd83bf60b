"""Pinned rules of the EgoPathBench packager (packagers/egopath.py): the salted split rule at its
thresholds, the card's text in full, the control pairing, question rows, the benchmark file and
run-store checks, and benchmark.json of a small synthetic run (tests/test_egopath_export.py)."""
from __future__ import annotations

import hashlib
import json
import os

os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"

import pytest
import yaml

from formats import dataset_layout as layout
from packagers import egopath as E
from packagers.egopath import EgoPathExportError, split_of_group
from egopath_run_cache import cached_run
from test_egopath_export import BENCH, VISIBLE, H, W, annotation, record
from tests.synthetic_runs import jpeg_bytes


def test_constants():
    assert (E.DATASET_NAME, E.SPLITS, E.CONTROLS) == ("egopathbench", ("train", "validation", "benchmark"),
                                                      ("text_only", "mismatched_overlay"))
    assert E.CONTROL_CONFIGS == ("point_path_text_only", "point_path_mismatched_overlay", "embodied_path_text_only",
                                 "embodied_path_mismatched_overlay", "intent_path_text_only",
                                 "intent_path_mismatched_overlay")
    assert E.DEFAULT_FRACTIONS == {"benchmark": 0.2, "validation": 0.1, "train": 0.7}
    assert (E.DEFAULT_SALT, E.JPEG_QUALITY, E.ROW_GROUP_SIZE) == ("egopathbench-split-v1", 92, 128)
    assert list(E.FEATURES) == ["id", "task", "split", "scene_group", "image", "system_prompt", "user_prompt",
                                "answer", "question"]
    assert E.PROMPTS_FILE.name == "egopathbench.yaml"


def _u(group: str, salt: str = "egopathbench-split-v1") -> float:
    """The documented rule: the first 8 bytes of SHA-256("<salt>:<group>"), big-endian, over 2^64."""
    return int.from_bytes(hashlib.sha256(f"{salt}:{group}".encode()).digest()[:8], "big") / 2 ** 64


def test_split_rule_at_its_thresholds():
    ua = _u("a")
    assert round(ua, 6) == 0.263081                    # in [0.2, 0.3): validation under the defaults
    assert split_of_group("a") == "validation"
    assert split_of_group("b") == "train" and round(_u("b"), 6) == 0.879483
    # a group lands in benchmark exactly when u < the benchmark share (strict), whatever the dict's order
    assert split_of_group("a", {"train": 1 - (ua + 1e-12), "benchmark": ua + 1e-12}) == "benchmark"
    assert split_of_group("a", {"train": 1 - ua, "benchmark": ua}) == "train"
    assert split_of_group("a", {"validation": ua + 1e-12, "train": 1 - (ua + 1e-12)}) == "validation"
    assert split_of_group("a", {"benchmark": 0.2, "validation": ua - 0.2 - 1e-12, "train": 1 - ua + 1e-12}) == "train"
    assert split_of_group("a", {"benchmark": 0.2, "validation": ua - 0.2 + 1e-12, "train": 1 - ua - 1e-12}) == "validation"
    # the salt matters: the same group under another salt
    ux = _u("a", "x")
    assert split_of_group("a", {"benchmark": ux + 1e-12, "train": 1 - ux - 1e-12}, "x") == "benchmark"
    assert split_of_group("a", {"benchmark": ux - 1e-12, "train": 1 - ux + 1e-12}, "x") == "train"
    assert split_of_group("zz", {"train": 1.0}) == "train" and split_of_group("zz", {"benchmark": 1.0}) == "benchmark"


def test_split_past_every_band_is_train():
    # fractions may sum to a hair under 1 (tolerance 1e-9): a u beyond the last band is train, even with no
    # train share; just below the bands' end it is the last band's split
    fr = {"benchmark": 0.5, "validation": 0.5 - 5e-10}
    assert split_of_group("a", fr) == "benchmark" and E._split_at(0.5, fr) == "validation"
    assert E._split_at(1 - 1e-10, fr) == "train"
    assert E._split_at(1 - 1e-9, fr) == "validation"
    assert E._split_at(1 - 1e-10, {"benchmark": 1 - 5e-10}) == "train"


@pytest.mark.parametrize("fr", [{"test": 1.0}, {"benchmark": 1.2, "train": -0.2}, {"benchmark": 0.5, "train": 0.4},
                                {"benchmark": 0.5, "train": 0.5 + 2e-9},
                                # NaN passes every comparison (`< 0` and `> 1e-9` are both False): refused, not all-train
                                {"benchmark": float("nan"), "train": 1.0}])
def test_split_fractions_refused(fr):
    with pytest.raises(EgoPathExportError, match=r"split fractions must be non-negative over \('train', "
                                                  r"'validation', 'benchmark'\) and sum to 1, got "):
        split_of_group("g", fr)


def test_split_fractions_within_rounding_are_accepted():
    assert split_of_group("b", {"benchmark": 0.5, "train": 0.5 + 5e-10}) == "train"
    assert split_of_group("b", {"benchmark": 0.0, "validation": 0.0, "train": 1.0}) == "train"


def test_make_split_of():
    f = E.make_split_of(None)
    assert (f("a"), f("b")) == ("validation", "train")
    ua = _u("a", "s")
    g = E.make_split_of({"splits": {"benchmark": ua + 1e-12, "train": 1 - ua - 1e-12}, "split_salt": "s"})
    assert g("a") == "benchmark"
    assert E.make_split_of({"splits": None, "split_salt": None})("a") == "validation"   # the defaults
    with pytest.raises(EgoPathExportError, match="sum to 1"):
        E.make_split_of({"splits": {"benchmark": 0.5}})


# -- the card -------------------------------------------------------------------------------------
# Every sentence after the YAML header, for three configs with hand-made counts and build stats.
# The header's YAML and the library-version lines are formats.dataset_layout's.
CARD_BODY = """
# EgoPathBench (scenebench reproduction)

First-person indoor views rendered in Blender with numbered waypoint overlays. A model answers with a JSON array of display IDs: a traversable set (Point / Embodied Traversability) or an ordered route from display ID 1 to the target (Point / Embodied / Intent Path). Every label (feasibility, legal edges, goal sets, reference routes) comes from the scene geometry (occupancy grids, point and 0.30 m-radius swept corridors) before any language is attached.

## Configs and splits

| config | train | validation | benchmark |
|---|---|---|---|
| point_traversability | 3 | 0 | 0 |
| point_path | 2 | 0 | 1 |
| point_path_text_only | 0 | 0 | 1 |

**Split rule.** split = salted SHA-256 of the scene group (salt `salt-x`), thresholds in the order benchmark 0.3, validation 0, train 0.7; no group crosses splits. Empty splits are not listed.

**Controls (Table S5).** On the benchmark split only: `<route task>_text_only` (same prompt, image null) and `<route task>_mismatched_overlay` (the overlay of another benchmark question of the same task and the same number of displayed IDs, from a different scene; the partner is the minimum of sha256(`<id>|<partner id>`)). A control row's id is `<question id>@<control>`. Questions without a mismatched partner: {"point_path": 1}.

## Fields

| column | meaning |
|---|---|
| `id` | question id `<frame_id>/<task>[/<route_id>]` (controls: `...@text_only` / `...@mismatched_overlay`) |
| `task` | one of the five tasks (controls carry their route task) |
| `split` | `train`, `validation` or `benchmark` (by scene group) |
| `scene_group` | the source group; no group crosses splits |
| `image` | the first-person JPEG with the numbered waypoint overlay (null in `_text_only` controls) |
| `system_prompt` | Table S2 system prompt |
| `user_prompt` | Table S2 user prompt, filled from the question record |
| `answer` | the geometry-verified JSON answer (sorted positives, or the reference route) |
| `question` | JSON of the full `Question` record (display ids, world points, legal edges, goals, ...): the evaluator's only input besides the prediction |

Grade with `scenebench score` (Table S4 route contract; BA / F1 for traversability; EgoPathScore).

## Construction

Accepted views: 4; traversability pairs skipped because the sheet lacked feasible ground, clearance-sensitive ground or surface negatives: 1; route units: 5; dropped: {"a why": 1, "b why": 2}.

Benchmark file: `epb-test` version `v3`; prompts `{prompts}` (Table S2 word for word).

Deviations from the paper (procedural Blender scenes instead of InternScenes, template Spatial CoT instead of GPT-written, ...) are listed in scenebench's `docs/egopathbench-deviations.md`.

## Reproducibility

Rows sorted by `id`; one shard per config and split; zstd level 3 except the embedded JPEG bytes; no timestamps. `SHA256SUMS` covers every file.

Library versions:

{libs}
"""


def _card_inputs():
    infos = {"point_path": layout.dataset_info(E.FEATURES, {"train": (10, 2, 9), "benchmark": (5, 1, 4)}),
             "point_traversability": layout.dataset_info(E.FEATURES, {"train": (10, 3, 9)}),
             "point_path_text_only": layout.dataset_info(E.FEATURES, {"benchmark": (5, 1, 4)})}
    counts = {"point_path": {"train": 2, "benchmark": 1}, "point_traversability": {"train": 3},
              "point_path_text_only": {"benchmark": 1}}
    stats = E.BuildStats(views=4, traversability_skipped=1, route_units=5, dropped={"b why": 2, "a why": 1})
    bench = {"benchmark": "epb-test", "version": "v3", "license": "cc0"}
    return infos, counts, bench, stats, {"point_path": 1}, {"benchmark": 0.3, "train": 0.7}, "salt-x"


def _split_card(text):
    assert text.startswith("---\n")
    head, body = text[4:].split("\n---\n", 1)
    return yaml.safe_load(head), body


def test_card_text_in_full():
    """Configs in task order then controls (point_traversability before point_path); a split a
    config lacks is 0 in the table and absent from its data_files; fractions the file leaves out
    are 0; unpaired counts and drop reasons as sorted JSON."""
    front, body = _split_card(E._card(*_card_inputs()))
    libs = "\n".join(f"- {k}: {v}" for k, v in layout.lib_versions().items())
    assert body == CARD_BODY.replace("{prompts}", E.load_prompts()["version"]).replace("{libs}", libs)
    assert front["pretty_name"] == "EgoPathBench (scenebench reproduction)" and front["license"] == "cc0"
    assert front["language"] == ["en"] and front["task_categories"] == ["visual-question-answering"]
    assert front["size_categories"] == ["n<1K"]
    assert front["tags"] == ["synthetic", "blender", "navigation", "embodied", "vlm", "egopathbench"]
    assert front["configs"] == [
        {"config_name": "point_traversability", "data_files": [{"split": "train", "path": "point_traversability/train-*"}],
         "default": True},
        {"config_name": "point_path", "data_files": [{"split": "train", "path": "point_path/train-*"},
                                                     {"split": "benchmark", "path": "point_path/benchmark-*"}]},
        {"config_name": "point_path_text_only",
         "data_files": [{"split": "benchmark", "path": "point_path_text_only/benchmark-*"}]}]
    assert [i["config_name"] for i in front["dataset_info"]] == ["point_traversability", "point_path",
                                                                 "point_path_text_only"]


def test_card_empty_benchmark_and_defaults():
    """No task has benchmark questions (a control alone does not count): the card says so; the
    licence defaults to cc-by-4.0 and the benchmark name to egopathbench; the size category counts
    task rows only."""
    infos, counts, _, stats, unpaired, fractions, salt = _card_inputs()
    counts = {"point_path": {"train": 2}, "point_traversability": {"train": 3}, "point_path_text_only": {"benchmark": 1}}
    front, body = _split_card(E._card(infos, counts, {"version": "v1"}, stats, {}, fractions, salt))
    assert ("**The benchmark split is empty.** Too few scene groups for the split rule to put one in `benchmark`: "
            "this export has no questions to score, no controls and no audits.\n\n**Controls") in body
    assert front["license"] == "cc-by-4.0"
    assert "Benchmark file: `egopathbench` version `v1`; prompts" in body
    assert "Questions without a mismatched partner: {}." in body
    assert "**The benchmark split is empty.**" not in E._card(*_card_inputs())
    big = {"point_path": {"train": 999}, "point_path_text_only": {"benchmark": 5000}}
    assert _split_card(E._card(infos, big, {}, stats, {}, fractions, salt))[0]["size_categories"] == ["n<1K"]
    big["point_path"]["benchmark"] = 1
    assert _split_card(E._card(infos, big, {}, stats, {}, fractions, salt))[0]["size_categories"] == ["1K<n<10K"]


@pytest.mark.parametrize("fractions,words", [
    ({"validation": 0.25, "train": 0.75}, "benchmark 0, validation 0.25, train 0.75"),
    ({"benchmark": 0.4, "validation": 0.6}, "benchmark 0.4, validation 0.6, train 0"),
])
def test_card_split_rule_names_a_missing_share_zero(fractions, words):
    infos, counts, bench, stats, unpaired, _, salt = _card_inputs()
    _, body = _split_card(E._card(infos, counts, bench, stats, unpaired, fractions, salt))
    assert f"(salt `salt-x`), thresholds in the order {words}; no group crosses splits." in body


def test_card_lists_unpaired_counts_sorted_by_task():
    infos, counts, bench, stats, _, fractions, salt = _card_inputs()
    unpaired = {"point_path": 4, "intent_path": 2, "embodied_path": 1}          # control_rows' order of discovery
    _, body = _split_card(E._card(infos, counts, bench, stats, unpaired, fractions, salt))
    assert 'Questions without a mismatched partner: {"embodied_path": 1, "intent_path": 2, "point_path": 4}.' in body


# -- rows, prompts, controls -----------------------------------------------------------------------
def test_traversability_mix_and_sheet_kind():
    ann = annotation(0)
    assert E.traversability_mix(ann.traversability) == {"feasible_ground": 2, "clearance_sensitive_ground": 2,
                                                        "surface_negative": 1}
    assert E.traversability_mix(ann.route) == {"feasible_ground": 4, "clearance_sensitive_ground": 2,
                                               "surface_negative": 0}
    assert E.sheet_kind("point_traversability") == E.sheet_kind("embodied_traversability") == "traversability"
    assert {E.sheet_kind(t) for t in ("point_path", "embodied_path", "intent_path")} == {"route"}


def test_prompts_filled():
    system, user = E._prompt("point_path", target="red chair", intent="ignored")
    assert system == "You are a navigation planning assistant."
    assert user == ("The image shows numbered candidate points. Start at display ID 1. Navigate to the red chair. "
                    "Output a JSON array of display IDs representing a valid path.")
    _, user = E._prompt("intent_path", target="ignored", intent="I need a seat")
    assert "A person says: \u201cI need a seat.\u201d Return" in user and "ignored" not in user
    _, user = E._prompt("intent_path")
    assert "A person says: \u201c.\u201d Return" in user and "{intent}" not in user
    _, user = E._prompt("point_path")
    assert "Navigate to the . Output" in user


def test_build_stats_drop():
    s = E.BuildStats()
    s.drop("x"); s.drop("x"); s.drop("y")
    assert s.dropped == {"x": 2, "y": 1} and (s.views, s.traversability_skipped, s.route_units) == (0, 0, 0)


@pytest.fixture(scope="module")
def run():
    """Two groups of two views (tests/test_egopath_export.make_run), built once per process."""
    return cached_run(2)


@pytest.fixture(scope="module")
def built(run):
    return E.build_questions([run], lambda g: "benchmark")


def test_build_stats_of_the_run(built):
    """Two groups of two views: view g1/v0 has no surface negative (its pair is skipped); each
    view has two route units, and unit 1's embodied side is absent (no embodied reference)."""
    qs, views, stats = built
    assert (stats.views, stats.traversability_skipped, stats.route_units) == (4, 1, 8)
    assert [v.record.frame_id for v in views] == [f"egopath-random-0000{g}-0{v}" for g in (0, 1) for v in (0, 1)]
    assert len(qs) == 21 and [q.question_id for q in qs] == sorted(q.question_id for q in qs)
    assert sum(q.task == "point_traversability" for q in qs) == 3


def test_mismatched_partner(built):
    qs = [q for q in built[0] if q.task == "point_path"]
    q = qs[0]
    cands = [p for p in qs if p.scene_id != q.scene_id and len(p.display_ids) == len(q.display_ids)]
    assert cands and all(p.task == "point_path" for p in cands)
    best = min(cands, key=lambda p: hashlib.sha256(f"{q.question_id}|{p.question_id}".encode()).hexdigest())
    assert E.mismatched_partner(q, qs) == best
    assert E.mismatched_partner(q, list(reversed(qs))) == best                 # not the pool's order
    assert E.mismatched_partner(q, [p for p in qs if p.scene_id == q.scene_id]) is None
    other = [p for p in built[0] if p.task == "embodied_path"]
    assert E.mismatched_partner(q, other) is None                              # another task
    assert E.mismatched_partner(q, [p for p in qs if len(p.display_ids) != len(q.display_ids)]) is None


def test_control_rows(built, run):
    qs, views, _ = built
    rows, unpaired = E.control_rows(qs, E.OverlayCache(views))
    assert list(rows) == list(E.CONTROL_CONFIGS)
    pp = [q for q in qs if q.task == "point_path"]
    assert [r["id"] for r in rows["point_path_text_only"]] == [f"{q.question_id}@text_only" for q in pp]
    assert all(r["image"] is None for r in rows["point_path_text_only"])
    mm = rows["point_path_mismatched_overlay"]
    assert len(mm) == len(pp) == 8                       # every point path has a partner of its sheet size
    assert unpaired == {"intent_path": 1}                # g1/v0's intent (6 ids): g0/v0 carries no intent
    for r in mm:
        q = next(q for q in pp if f"{q.question_id}@mismatched_overlay" == r["id"])
        partner = E.mismatched_partner(q, qs)
        assert r["image"]["path"] == f"mismatched_{partner.frame_id}_route.jpg"
        assert r["image"]["bytes"] == E.overlay_jpeg(next(v for v in views if v.record.frame_id == partner.frame_id),
                                                     "route")
        assert json.loads(r["question"])["question_id"] == r["id"] and r["answer"] == q.answer
    assert not any(r["id"].split("/")[1].endswith("traversability") for c in rows.values() for r in c)


def test_row(built):
    q = built[0][0]
    row = E._row(q, {"bytes": b"x", "path": "p.jpg"})
    assert row == {"id": q.question_id, "task": q.task, "split": "benchmark", "scene_group": q.scene_group,
                   "image": {"bytes": b"x", "path": "p.jpg"}, "system_prompt": q.system_prompt,
                   "user_prompt": q.user_prompt, "answer": q.answer,
                   "question": json.dumps(q.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)}
    assert list(json.loads(row["question"])) == sorted(json.loads(row["question"]))


# -- inputs refused --------------------------------------------------------------------------------
def test_bench_argument(tmp_path):
    assert E._bench({"a": 1}) == {"a": 1} and E._bench(None) == {}
    with pytest.raises(EgoPathExportError, match=r"benchmark file .*nope\.yaml does not exist"):
        E._bench(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("benchmark: egopathbench\nsplits: 3\n")
    with pytest.raises(EgoPathExportError, match=r"bad\.yaml: version: Field required"):
        E._bench(bad)


def test_run_store_checks(tmp_path, run):
    with pytest.raises(EgoPathExportError, match="no run directories given"):
        E.write_egopathbench([], tmp_path / "d", {})
    with pytest.raises(EgoPathExportError, match=r"nope: no records\.jsonl \(not a run store\?\)"):
        E.read_records(tmp_path / "nope")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "records.jsonl").write_text("\n")
    with pytest.raises(EgoPathExportError, match="records.jsonl holds no frames"):
        E.write_egopathbench([empty], tmp_path / "d", {})
    with pytest.raises(EgoPathExportError, match=r"is from env 'egopath', not one of \['calib'\]"):
        E.write_egopathbench([run], tmp_path / "d", {"environments": {"calib": {}}})
    (empty / "records.jsonl").write_text("\n{not json\n")
    with pytest.raises(EgoPathExportError, match=r"records\.jsonl:2: unreadable record"):
        E.read_records(empty)
    with pytest.raises(EgoPathExportError, match=r"does not exist"):
        E.load_questions(tmp_path, "point_path", "train")


def test_view_checks(tmp_path, run):
    import shutil

    bad = tmp_path / "egopath"
    shutil.copytree(run, bad)
    recs = [json.loads(line) for line in (bad / "records.jsonl").read_text().splitlines()]

    def write(rs):
        (bad / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rs))

    write([dict(recs[0], ground_truth={"annotation_error": "no start"}), recs[1]])
    assert [v.record.frame_id for v in E.read_views(bad)] == [recs[1]["frame_id"]]
    write([dict(recs[0], verdict="reject"), dict(recs[1], verdict="excluded")])
    assert E.read_views(bad) == []
    write([dict(recs[0], verdict="reject"), recs[1]])                      # a rejected view ends nothing
    assert [v.record.frame_id for v in E.read_views(bad)] == [recs[1]["frame_id"]]
    gt = {k: v for k, v in recs[0]["ground_truth"].items() if k != "scene_group"}
    write([dict(recs[0], ground_truth=gt)])
    with pytest.raises(EgoPathExportError, match="egopath-random-00000-00: ground truth lacks scene_group"):
        E.read_views(bad)
    write([dict(recs[0], ground_truth={"scene_group": "g", "image_size": "x"})])
    with pytest.raises(EgoPathExportError, match="egopath-random-00000-00: ground truth is not a ViewAnnotation"):
        E.read_views(bad)
    write([dict(recs[0], image="frames/none.jpg")])
    with pytest.raises(EgoPathExportError, match=r"egopath-random-00000-00: frame .*none\.jpg missing"):
        E.read_views(bad)
    write([recs[1], recs[0]])
    assert [v.scene_group for v in E.read_views(bad)] == ["group-000", "group-000"]
    assert [v.record.frame_id for v in E.read_views(bad)] == [recs[0]["frame_id"], recs[1]["frame_id"]]
    with pytest.raises(EgoPathExportError, match=r"split_of returned 'test'"):
        E.build_questions([bad], lambda g: "test")
    with pytest.raises(EgoPathExportError, match="occurs twice"):
        E.build_questions([bad, bad], lambda g: "train")


def test_benchmark_json_of_a_small_export(run, tmp_path):
    s = E.export_egopathbench([run], tmp_path / "ds", dict(BENCH, version=7, export={"controls": False}))
    meta = json.loads((s.root / "benchmark.json").read_text())
    assert meta["benchmark"] == "egopathbench" and meta["version"] == "7"
    assert meta["prompts_version"] == "egopathbench-prompts-1"
    assert meta["tasks"] == ["point_traversability", "embodied_traversability", "point_path", "embodied_path",
                             "intent_path"]
    assert meta["controls"] == list(E.CONTROL_CONFIGS) and meta["splits"] == list(E.SPLITS)
    assert meta["split_fractions"] == BENCH["splits"] and meta["split_salt"] == BENCH["split_salt"]
    assert meta["counts"] == s.counts and meta["unpaired_mismatched"] == {}
    assert not any(c.endswith(("_text_only", "_mismatched_overlay")) for c in meta["counts"])    # controls off
    assert meta["counts"]["point_path"] == {"train": 4, "benchmark": 4}
    assert meta["build"] == {"views": 4, "traversability_skipped": 1, "route_units": 8, "dropped": {}}
    assert meta["benchmark_selection"] == {"enabled": False} and meta["runs"] == ["egopath"]
    assert s.total_questions == 21 and s.root == tmp_path / "ds" / "egopathbench"
    assert s.files == layout.list_files(s.root)
    assert E.load_questions(s.root, "point_path", "train")[0].split == "train"


def test_unpaired_controls_are_counted(built):
    """A pool from one scene has no mismatched partner for anyone: every route question is unpaired."""
    qs, views, _ = built
    one = [q for q in qs if q.scene_id == qs[0].scene_id]
    rows, unpaired = E.control_rows(one, E.OverlayCache(views))
    expect = {t: n for t in ("point_path", "embodied_path", "intent_path") if (n := sum(q.task == t for q in one))}
    assert unpaired == expect and expect["point_path"] == 4
    assert all(rows[f"{t}_mismatched_overlay"] == [] for t in expect)
    assert len(rows["point_path_text_only"]) == 4


def test_overlay_draws_the_sheet_of_the_task(built):
    """View g0/v1's route sheet has a seventh waypoint its traversability sheet lacks."""
    _, views, _ = built
    v = views[1]
    trav, route = E.overlay_jpeg(v, "traversability"), E.overlay_jpeg(v, "route")
    assert trav != route and trav[:2] == b"\xff\xd8"
    cache = E.OverlayCache(views)
    assert cache.get(v.record.frame_id, "traversability") == trav
    # the decoded overlays show the markers of their own sheet: marker 7 is on the route one only
    import io

    import numpy as np
    from PIL import Image as PILImage

    from scorers.egopath_overlay import draw_candidates

    with PILImage.open(v.run_dir / v.record.image) as im:
        frame = im.convert("RGB")
    want = {k: np.asarray(draw_candidates(frame, s.waypoints), float)
            for k, s in (("traversability", v.annotation.traversability), ("route", v.annotation.route))}
    mask = np.abs(want["route"] - want["traversability"]).max(axis=2) > 60
    assert mask.sum() > 30
    for kind, data in (("traversability", trav), ("route", route)):
        got = np.asarray(PILImage.open(io.BytesIO(data)).convert("RGB"), float)
        other = "route" if kind == "traversability" else "traversability"
        assert np.abs(got - want[kind])[mask].mean() < 0.25 * np.abs(got - want[other])[mask].mean(), kind


def test_question_json_keeps_non_ascii(built):
    q = next(q for q in built[0] if q.task == "intent_path")
    assert "\u201c" in q.user_prompt
    assert "\u201c" in E._row(q, None)["question"]


# -- questions of one hand-made view, field by field -----------------------------------------------
def _one_view_run(root, ann, frame="f-0", scene="s", group="g"):
    from formats import atomic

    run = root / "egopath"
    atomic.write_text(run / "records.jsonl", json.dumps(record(frame, scene, group, ann)) + "\n")
    atomic.write_bytes(run / "frames" / f"{frame}.jpg", jpeg_bytes(0, (W, H)))
    return run


# tests/test_egopath_export.annotation: waypoint i is drawn at pixel [8 + 10 i, 60 - 4 i]
PIXELS = {str(i): [8.0 + 10 * i, 60.0 - 4 * i] for i in range(1, 7)}
TRAV_WORLD = {"1": [0.0, 0.0, 0.0], "2": [1.0, 0.0, 0.0], "3": [1.0, 1.0, 0.0], "4": [2.0, 1.0, 0.0],
              "5": [2.0, 2.0, 0.5], "6": [3.0, 0.0, 0.0]}
ROUTE_WORLD = {"1": [0.0, 0.0, 0.0], "2": [1.0, 0.0, 0.0], "3": [2.0, 0.5, 0.0], "4": [2.0, -0.5, 0.0],
               "5": [3.0, 0.0, 0.0], "6": [3.0, 1.0, 0.0]}
POINT_EDGES = [[1, 2], [2, 3], [2, 4], [3, 5], [3, 6], [4, 5]]    # sorted pairs of the sheet's point edges
EMBODIED_EDGES = [[1, 2], [2, 4], [4, 5]]
SHORTEST = 1 + 2 * 5 ** 0.5 / 2                                     # 1 + 2 * hypot(1, 0.5) = 3.2360679...
INTENT = "I need a seat for one person while I tie my shoes; take me to the red one"   # intent_request(11, rng [0, 11])


def test_questions_of_one_view_field_by_field(tmp_path):
    """annotation(0): traversability 1,2 feasible for both agents, 3,4 point only, 5 a surface, 6
    neither; route unit 0 to the red chair (11, strictly visible) with point, embodied and intent
    paths; unit 1 to the blue chair with a point path only."""
    qs, views, stats = E.build_questions([_one_view_run(tmp_path, annotation(0))], lambda g: "validation")
    assert (stats.views, stats.traversability_skipped, stats.route_units, stats.dropped) == (1, 0, 2, {})
    assert [v.scene_group for v in views] == ["g"]
    by = {q.question_id: q for q in qs}
    assert list(by) == ["f-0/embodied_path/0", "f-0/embodied_traversability", "f-0/intent_path/0",
                        "f-0/point_path/0", "f-0/point_path/1", "f-0/point_traversability"]
    for q in qs:
        assert (q.split, q.scene_id, q.scene_group, q.frame_id, q.display_ids) == ("validation", "s", "g", "f-0",
                                                                                 [1, 2, 3, 4, 5, 6])
        assert q.waypoint_pixels == PIXELS
        assert q.system_prompt == E.load_prompts()["tasks"][q.task]["system"]
    pt, et = by["f-0/point_traversability"], by["f-0/embodied_traversability"]
    assert (pt.task, pt.positives, pt.answer, pt.route_id) == ("point_traversability", [1, 2, 3, 4], "[1, 2, 3, 4]", None)
    assert (et.task, et.positives, et.answer) == ("embodied_traversability", [1, 2], "[1, 2]")
    assert pt.waypoint_world == et.waypoint_world == TRAV_WORLD
    assert pt.user_prompt == ("The image shows numbered candidate points. Output a JSON array of display IDs that are "
                              "walkable.")
    assert et.user_prompt == ("The image shows numbered candidate points. The robot has diameter 0.6m. Output a JSON "
                              "array of display IDs that are walkable for the robot.")
    for q in (pt, et):
        assert (q.start_id, q.legal_edges, q.goal_ids, q.reference_route, q.shortest_m) == (None, [], [], [], None)
        assert (q.target_text, q.intent, q.strict_visible) == (None, None, None)
    pp0, pp1, ep, ip = (by[f"f-0/{k}"] for k in ("point_path/0", "point_path/1", "embodied_path/0", "intent_path/0"))
    assert (pp0.task, pp0.route_id, pp0.legal_edges, pp0.goal_ids, pp0.reference_route, pp0.answer) == \
        ("point_path", "0", POINT_EDGES, [5, 6], [1, 2, 3, 5], "[1, 2, 3, 5]")
    assert (pp1.route_id, pp1.legal_edges, pp1.goal_ids, pp1.reference_route, pp1.answer) == \
        ("1", POINT_EDGES, [6], [1, 2, 3, 6], "[1, 2, 3, 6]")
    assert (ep.task, ep.route_id, ep.legal_edges, ep.goal_ids, ep.reference_route, ep.answer) == \
        ("embodied_path", "0", EMBODIED_EDGES, [5], [1, 2, 4, 5], "[1, 2, 4, 5]")
    assert (ip.task, ip.route_id, ip.legal_edges, ip.goal_ids, ip.reference_route, ip.answer) == \
        ("intent_path", "0", EMBODIED_EDGES, [5], [1, 2, 4, 5], "[1, 2, 4, 5]")
    for q in (pp0, pp1, ep, ip):
        assert q.waypoint_world == ROUTE_WORLD and q.start_id == 1 and q.positives == []
        assert q.shortest_m == pytest.approx(SHORTEST, abs=1e-12)
    assert (pp0.target_text, pp0.strict_visible, pp0.intent) == ("red chair", True, None)
    assert (pp1.target_text, pp1.strict_visible, pp1.intent) == ("blue chair", False, None)
    assert (ep.target_text, ep.strict_visible, ep.intent) == ("red chair", True, None)
    assert (ip.target_text, ip.strict_visible, ip.intent) == ("red chair", True, INTENT)
    assert pp0.user_prompt == ("The image shows numbered candidate points. Start at display ID 1. Navigate to the red "
                               "chair. Output a JSON array of display IDs representing a valid path.")
    assert pp1.user_prompt == pp0.user_prompt.replace("red chair", "blue chair")
    assert ep.user_prompt == ("The image shows numbered candidate points. You are the robot, and your body diameter is "
                              "0.6 m. Start at display ID 1. Navigate to the red chair. Return a JSON array of display "
                              "IDs representing a valid collision-free path for the robot.")
    assert ip.user_prompt == ("The image shows numbered candidate points. You are the robot, and your body diameter is "
                              f"0.6 m. Start at display ID 1. A person says: \u201c{INTENT}.\u201d Return a JSON array "
                              "of display IDs representing a valid collision-free path to the resolved target.")
    assert E.questions_from_run(tmp_path / "egopath", lambda g: "validation") == qs


def test_route_units_are_dropped_with_their_reason(tmp_path):
    """One unit per reason, each a copy of annotation(0)'s unit 0 with one thing wrong; the sheet
    lacks a surface negative, so its traversability pair is skipped."""
    ann = annotation(0, full_mix=False)
    u = ann.routes[0]
    units = [u.model_copy(update={"route_id": "a", "start_id": 9}),                          # not on the sheet
             u.model_copy(update={"route_id": "b", "target_text": "chair"}),                 # two chairs visible
             u.model_copy(update={"route_id": "c", "embodied_reference": [1, 3, 5]}),        # 1-3 not an embodied edge
             u.model_copy(update={"route_id": "d", "point_shortest_m": 2.0, "intent": None}),  # SPL 2 / 3.24 < 1
             u.model_copy(update={"route_id": "e", "target_object_id": 12, "target_text": "blue chair"}),  # intent -> 11
             u.model_copy(update={"route_id": "f", "embodied_reference": None})]            # intent, no embodied path
    qs, _, stats = E.build_questions([_one_view_run(tmp_path, ann.model_copy(update={"routes": units}))],
                                     lambda g: "train")
    assert [q.question_id for q in qs] == ["f-0/embodied_path/d", "f-0/embodied_path/e", "f-0/point_path/c",
                                           "f-0/point_path/e", "f-0/point_path/f"]
    assert (stats.views, stats.traversability_skipped, stats.route_units) == (1, 1, 6)
    assert stats.dropped == {"start not displayed": 1, "explicit target not unique among visible objects": 1,
                             "embodied_path reference does not verify": 1,
                             "intent without an accepted embodied path": 2,
                             "point_path reference is not a shortest legal route": 1,
                             "intent not unique among visible objects": 1}
    assert next(q for q in qs if q.question_id == "f-0/point_path/e").strict_visible is False   # 12 is not strict


def test_without_visible_objects_language_is_not_checked(tmp_path):
    """A view that lists no visible objects keeps a target text and an intent that would be
    ambiguous among objects (nothing to resolve them against)."""
    ann = annotation(0)
    unit = ann.routes[0].model_copy(update={"target_text": "chair", "intent": "somewhere"})
    ann = ann.model_copy(update={"routes": [unit], "visible_objects": []})
    qs, _, stats = E.build_questions([_one_view_run(tmp_path, ann)], lambda g: "train")
    assert [q.question_id for q in qs if q.route_id] == ["f-0/embodied_path/0", "f-0/intent_path/0",
                                                         "f-0/point_path/0"]
    assert stats.dropped == {}
    assert next(q for q in qs if q.task == "intent_path").intent == "somewhere"


# -- the export, read back with pyarrow ------------------------------------------------------------
def _table(root, config, split):
    import pyarrow.parquet as pq

    return pq.read_table(root / layout.shard_path(config, split)).to_pylist()


def test_export_of_the_run_shard_by_shard(run, tmp_path):
    """BENCH's salt puts group-000 in train and group-001 in benchmark (the split rule is pinned
    above). Views g0/v0, g0/v1, g1/v1 have a traversability pair, g1/v0 none; every view has point
    paths for units 0 and 1 and an embodied path for unit 0; intents on g0/v1, g1/v0, g1/v1.
    Both benchmark views are from scene-001, so no mismatched partner exists."""
    s = E.export_egopathbench([run], tmp_path / "ds", BENCH)
    root = tmp_path / "ds" / "egopathbench"
    assert s.root == root and s.files == layout.list_files(root)
    counts = {"point_traversability": {"train": 2, "benchmark": 1}, "embodied_traversability": {"train": 2, "benchmark": 1},
              "point_path": {"train": 4, "benchmark": 4}, "embodied_path": {"train": 2, "benchmark": 2},
              "intent_path": {"train": 1, "benchmark": 2}, "point_path_text_only": {"benchmark": 4},
              "embodied_path_text_only": {"benchmark": 2}, "intent_path_text_only": {"benchmark": 2}}
    assert s.counts == counts and list(s.counts) == sorted(counts)
    assert s.unpaired == {"point_path": 4, "embodied_path": 2, "intent_path": 2}
    assert s.total_questions == 21 and s.selection == {"enabled": False}
    assert (s.stats.views, s.stats.traversability_skipped, s.stats.route_units) == (4, 1, 8)
    assert s.files == sorted(["README.md", "SHA256SUMS", "benchmark.json",
                              *(layout.shard_path(c, sp) for c, d in counts.items() for sp in d)])
    views = {v.record.frame_id: v for v in E.read_views(run)}
    g0 = ("egopath-random-00000-00", "egopath-random-00000-01")
    for config, splits in counts.items():
        task = config.split("_text_only")[0]
        for split, n in splits.items():
            rows = _table(root, config, split)
            assert len(rows) == n and [r["id"] for r in rows] == sorted(r["id"] for r in rows)
            for r in rows:
                q = E.Question.model_validate_json(r["question"])
                assert (r["task"], q.task, r["split"], q.split) == (task, task, split, split)
                assert r["id"] == q.question_id and r["answer"] == q.answer and r["scene_group"] == q.scene_group
                assert (r["system_prompt"], r["user_prompt"]) == (q.system_prompt, q.user_prompt)
                assert (q.frame_id in g0) == (split == "train") and q.scene_group == f"group-00{split == 'benchmark':d}"
                kind = "traversability" if task.endswith("traversability") else "route"
                if config.endswith("_text_only"):
                    assert r["image"] is None and r["id"].endswith("@text_only")
                else:
                    assert r["image"] == {"bytes": E.overlay_jpeg(views[q.frame_id], kind),
                                          "path": f"{q.frame_id}_{kind}.jpg"}
    pp = _table(root, "point_path", "benchmark")
    assert [r["id"] for r in _table(root, "point_path_text_only", "benchmark")] == [f"{r['id']}@text_only" for r in pp]
    meta = json.loads((root / "benchmark.json").read_text())
    assert meta["counts"] == counts and meta["unpaired_mismatched"] == s.unpaired and meta["version"] == "test"
    card = (root / "README.md").read_text()
    assert "| intent_path | 1 | 0 | 2 |" in card and "(salt `egopath-test-salt`), thresholds in the order benchmark 0.3," in card
    assert 'Questions without a mismatched partner: {"embodied_path": 2, "intent_path": 2, "point_path": 4}.' in card
    front = layout.read_card_header(root)
    assert [i["config_name"] for i in front["dataset_info"]] == [c for c in (*E.TASKS, *E.CONTROL_CONFIGS) if c in counts]
    for info in front["dataset_info"]:
        assert [(f["name"], f["dtype"]) for f in info["features"]] == [
            ("id", "string"), ("task", "string"), ("split", "string"), ("scene_group", "string"), ("image", "image"),
            ("system_prompt", "string"), ("user_prompt", "string"), ("answer", "string"), ("question", "string")]
        assert [(sp["name"], sp["num_examples"]) for sp in info["splits"]] == list(counts[info["config_name"]].items())
    layout.verify_sha256sums(root)


def test_controls_of_an_all_benchmark_export(run, tmp_path):
    """Everything in benchmark: point and embodied paths all find a partner of the same sheet size
    (v0 sheets show 6 ids, v1 sheets 7) in the other scene; the intent of g1/v0 (6 ids) has none,
    g0/v0 carrying no intent. A mismatched row is its question with the partner's overlay."""
    s = E.export_egopathbench([run], tmp_path / "ds", dict(BENCH, splits={"benchmark": 1.0}))
    assert s.counts == {"point_traversability": {"benchmark": 3}, "embodied_traversability": {"benchmark": 3},
                        "point_path": {"benchmark": 8}, "embodied_path": {"benchmark": 4}, "intent_path": {"benchmark": 3},
                        "point_path_text_only": {"benchmark": 8}, "embodied_path_text_only": {"benchmark": 4},
                        "intent_path_text_only": {"benchmark": 3}, "point_path_mismatched_overlay": {"benchmark": 8},
                        "embodied_path_mismatched_overlay": {"benchmark": 4},
                        "intent_path_mismatched_overlay": {"benchmark": 2}}
    assert s.unpaired == {"intent_path": 1}
    rows = _table(s.root, "intent_path_mismatched_overlay", "benchmark")
    assert [r["id"] for r in rows] == ["egopath-random-00000-01/intent_path/0@mismatched_overlay",
                                       "egopath-random-00001-01/intent_path/0@mismatched_overlay"]
    views = {v.record.frame_id: v for v in E.read_views(run)}
    for r, partner in zip(rows, ("egopath-random-00001-01", "egopath-random-00000-01")):
        assert r["image"] == {"bytes": E.overlay_jpeg(views[partner], "route"),
                              "path": f"mismatched_{partner}_route.jpg"}
        assert json.loads(r["question"])["question_id"] == r["id"] and r["split"] == "benchmark"


def test_reexport_is_byte_identical(run, tmp_path):
    """Exporting the same runs again into the same place replaces the tree with the same bytes."""
    a = E.export_egopathbench([run], tmp_path, BENCH)
    before = {f: (a.root / f).read_bytes() for f in a.files}
    b = E.export_egopathbench([run], tmp_path, BENCH)
    assert b.files == a.files and len(a.files) == 16
    assert {f: (b.root / f).read_bytes() for f in b.files} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["egopathbench"]      # no staging tree left


def test_benchmark_selection_applies_to_the_benchmark_split_only(run, tmp_path):
    """A selection of zero bundles empties the benchmark split (and so its controls) and leaves
    train as it was; benchmark.json and the summary carry the selection's report."""
    sel = {"traversability_bundles": 0, "route_bundles": 0}
    s = E.export_egopathbench([run], tmp_path / "ds", dict(BENCH, benchmark_selection=sel))
    assert s.counts == {"point_traversability": {"train": 2}, "embodied_traversability": {"train": 2},
                        "point_path": {"train": 4}, "embodied_path": {"train": 2}, "intent_path": {"train": 1}}
    assert s.unpaired == {} and s.selection["enabled"] is True
    assert s.selection["selected_bundles"] == {"traversability": 0, "route": 0}
    assert s.selection["pool_bundles"] == {"traversability": 1, "route": 4}      # g1/v1's pair; 2 units x 2 views
    assert s.selection["questions"]["kept"] == {} and sum(s.selection["questions"]["pool"].values()) == 10   # g1/v0: 4, g1/v1: 6
    assert json.loads((s.root / "benchmark.json").read_text())["benchmark_selection"] == s.selection


def test_environments_default_to_egopath_and_controls_to_on(run, tmp_path):
    bench = {k: v for k, v in BENCH.items() if k not in ("environments", "version")} | {"export": {}}
    s = E.write_egopathbench([run], tmp_path / "d", bench)
    assert s.total_questions == 21 and s.counts["point_path_text_only"] == {"benchmark": 4}
    assert json.loads((tmp_path / "d" / "benchmark.json").read_text())["version"] == "0"      # no version given
    assert (s.root, s.files) == (tmp_path / "d", [])        # no root given: dest; files are listed after the swap


def test_export_errors_are_whole_sentences(tmp_path, run):
    """The CLI prints these on one line: pinned word for word."""
    with pytest.raises(EgoPathExportError) as exc:
        E.write_egopathbench([], tmp_path / "d", {})
    assert str(exc.value) == "no run directories given"
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "records.jsonl").write_text("\n")
    with pytest.raises(EgoPathExportError) as exc:
        E.write_egopathbench([empty], tmp_path / "d", {})
    assert str(exc.value) == (f"{empty}: records.jsonl holds no frames (the render wrote none); render it again or "
                              "leave it out of the runs")
    ann = annotation(0, full_mix=False)
    ann = ann.model_copy(update={"routes": [u.model_copy(update={"target_text": "chair"}) for u in ann.routes]})
    with pytest.raises(EgoPathExportError) as exc:
        E.write_egopathbench([_one_view_run(tmp_path, ann)], tmp_path / "d", {})
    assert str(exc.value) == "no questions: 1 accepted view(s), dropped {'explicit target not unique among visible objects': 2}"


def test_unreadable_runs_are_refused(tmp_path, run):
    import shutil

    bad = tmp_path / "egopath"
    shutil.copytree(run, bad)
    good = (bad / "records.jsonl").read_bytes()
    (bad / "records.jsonl").write_bytes(good + b"\xff\n")
    with pytest.raises(EgoPathExportError) as exc:
        E.read_records(bad)
    assert str(exc.value) == f"{bad / 'records.jsonl'}: not UTF-8 (invalid start byte at byte {len(good)})"
    recs = [json.loads(line) for line in good.decode().splitlines()]
    (bad / "frames" / "link.jpg").symlink_to("/etc/passwd")
    (bad / "records.jsonl").write_text(json.dumps(dict(recs[0], image="frames/link.jpg")) + "\n")
    with pytest.raises(EgoPathExportError, match="egopath-random-00000-00: image .*outside"):
        E.read_views(bad)
    (bad / "records.jsonl").write_bytes(good)
    (bad / recs[0]["image"]).write_bytes(b"\xff\xd8 not a jpeg")
    with pytest.raises(EgoPathExportError, match=r"egopath-random-00000-00\.jpg: frame cannot be decoded \("):
        E.export_egopathbench([bad], tmp_path / "ds", BENCH)
    assert not (tmp_path / "ds").exists()


# -- the image and shard writer settings -----------------------------------------------------------
# ITU T.81 Annex K: the example luminance / chrominance quantization tables (natural order) and the
# four Huffman tables a baseline encoder writes when it does not optimise them.
LUMA = [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
        14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99]
CHROMA = [17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99,
          47, 66, 99, 99, 99, 99, 99, 99] + [99] * 32
HUFFMAN_BITS = {(0, 0): "00010501010101010100000000000000", (1, 0): "0002010303020403050504040000017d",
                (0, 1): "00030101010101010101010000000000", (1, 1): "00020102040403040705040400010277"}


def _jpeg_segments(data: bytes) -> list[tuple[int, bytes]]:
    i, out = 2, []
    while data[i + 1] != 0xDA:                      # up to the start of scan
        n = int.from_bytes(data[i + 2:i + 4], "big")
        out.append((data[i + 1], data[i + 4:i + 2 + n]))
        i += 2 + n
    return out


def test_overlay_jpeg_is_baseline_quality_92_with_standard_tables(run):
    """libjpeg scales the Annex K tables by 200 - 2 * 92 = 16 %: entry (16 q + 50) // 100 (16 -> 3);
    baseline (SOF0, not progressive SOF2); the standard Huffman tables (not optimised)."""
    import io

    from PIL import Image as PILImage

    data = E.overlay_jpeg(E.read_views(run)[0], "route")
    with PILImage.open(io.BytesIO(data)) as im:
        assert (im.format, im.mode, im.size) == ("JPEG", "RGB", (W, H))
        assert [list(im.quantization[k]) for k in (0, 1)] == [[(16 * q + 50) // 100 for q in t] for t in (LUMA, CHROMA)]
    segs = _jpeg_segments(data)
    markers = [m for m, _ in segs]
    assert 0xC0 in markers and 0xC2 not in markers
    dht = {}
    for m, body in segs:
        if m == 0xC4:
            j = 0
            while j < len(body):
                tc, n = body[j], sum(body[j + 1:j + 17])
                dht[(tc >> 4, tc & 15)] = body[j:j + 17 + n]
                j += 17 + n
    assert {k: v[1:17].hex() for k, v in dht.items()} == HUFFMAN_BITS      # (class, id): code counts per length


def test_shards_hold_128_rows_per_row_group():
    import io

    import pyarrow.parquet as pq

    rows = [{"id": f"q{i:03d}", "task": "point_path", "split": "train", "scene_group": "g", "image": None,
             "system_prompt": "s", "user_prompt": "u", "answer": "[1]", "question": "{}"} for i in range(129)]
    data, nbytes = E._parquet_bytes(rows)
    meta = pq.ParquetFile(io.BytesIO(data)).metadata
    assert (meta.num_rows, meta.num_row_groups, meta.row_group(0).num_rows, meta.row_group(1).num_rows) == (129, 2, 128, 1)
    assert nbytes > 0


def test_a_sheet_that_repeats_a_display_id_is_refused(tmp_path):
    ann = annotation(0)
    trav = ann.traversability.model_copy(update={"waypoints": ann.traversability.waypoints + ann.traversability.waypoints[:1]})
    with pytest.raises(EgoPathExportError) as exc:
        E.build_questions([_one_view_run(tmp_path, ann.model_copy(update={"traversability": trav}))], lambda g: "train")
    assert str(exc.value) == "a sheet repeats a display id"
    ids, world, pixels = E._wp_maps(ann.route)
    assert ids == [1, 2, 3, 4, 5, 6] and world == ROUTE_WORLD and pixels == PIXELS


def test_skipped_traversability_pairs_are_counted_per_view(tmp_path):
    from formats import atomic

    run = tmp_path / "egopath"
    ann = annotation(0, full_mix=False)
    atomic.write_text(run / "records.jsonl", "".join(json.dumps(record(f, "s", "g", ann)) + "\n" for f in ("f-0", "f-1")))
    for f in ("f-0", "f-1"):
        atomic.write_bytes(run / "frames" / f"{f}.jpg", jpeg_bytes(0, (W, H)))
    _, _, stats = E.build_questions([run], lambda g: "train")
    assert (stats.views, stats.traversability_skipped, stats.route_units) == (2, 2, 4)


def test_a_traversability_answer_that_cannot_verify_is_refused(tmp_path):
    """A display id of 10 digits (the grader reads at most 9, scorers.egopath.MAX_ID_DIGITS) makes
    the sheet's own answer unparseable: every positive a miss, so the question is refused."""
    ann = annotation(0)
    wps = [w.model_copy(update={"display_id": 1_000_000_000}) if w.display_id == 1 else w
           for w in ann.traversability.waypoints]
    ann = ann.model_copy(update={"traversability": ann.traversability.model_copy(update={"waypoints": wps})})
    with pytest.raises(EgoPathExportError) as exc:
        E.build_questions([_one_view_run(tmp_path, ann)], lambda g: "train")
    assert str(exc.value) == "f-0/point_traversability: its own answer does not verify"


def test_route_units_keep_their_embodied_path_when_the_point_side_fails(tmp_path):
    """Unit 0 of annotation(0) (shortest route 1 + 2 hypot(1, 0.5) = 3.2360679775 m) with the point
    side changed: absent, or crossing 1-4 (no point edge); its embodied path is kept either way.
    SPL must reach 1 - 1e-9: a stated shortest length of 3.236067974263722 m gives exactly that
    (kept), 3.2360679678 m gives 1 - 3e-9 (dropped)."""
    u = annotation(0).routes[0].model_copy(update={"intent": None})
    units = [u.model_copy(update={"route_id": "i", "point_reference": None}),
             u.model_copy(update={"route_id": "j", "point_reference": [1, 4, 5]}),
             u.model_copy(update={"route_id": "k", "point_shortest_m": 3.236067974263722}),
             u.model_copy(update={"route_id": "l", "point_shortest_m": 3.2360679678})]
    ann = annotation(0, full_mix=False).model_copy(update={"routes": units})
    qs, _, stats = E.build_questions([_one_view_run(tmp_path, ann)], lambda g: "train")
    assert [q.question_id for q in qs] == ["f-0/embodied_path/i", "f-0/embodied_path/j", "f-0/embodied_path/k",
                                           "f-0/embodied_path/l", "f-0/point_path/k"]
    assert stats.dropped == {"point_path reference does not verify": 1,
                             "point_path reference is not a shortest legal route": 1}


def test_questions_for_view_keeps_its_own_stats_when_given_none(tmp_path):
    view = E.read_views(_one_view_run(tmp_path, annotation(0)))[0]
    assert len(E.questions_for_view(view, "train")) == 6
    stats = E.BuildStats()
    E.questions_for_view(view, "train", stats)
    assert (stats.views, stats.route_units) == (1, 2)


def test_records_are_read_as_utf8_whatever_the_locale(tmp_path):
    """A run store is UTF-8 on every machine: under the C locale (ASCII) a non-ASCII scene group
    still reads back."""
    import locale

    run = _one_view_run(tmp_path, annotation(0))
    rec = record("f-0", "s", "gruppe-\u00e9", annotation(0))
    (run / "records.jsonl").write_bytes((json.dumps(rec, ensure_ascii=False) + "\n").encode("utf-8"))   # raw UTF-8
    old = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        recs = E.read_records(run)
    finally:
        locale.setlocale(locale.LC_CTYPE, old)
    assert [r.ground_truth["scene_group"] for r in recs] == ["gruppe-\u00e9"]
