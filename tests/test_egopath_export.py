"""EgoPathBench packager: questions from a synthetic `egopath` run store (hand-made
ViewAnnotations, real small JPEGs), splits by scene group, Parquet export that loads back
with `datasets`, byte-identical re-export, Table S5 controls, SFT export, and the CLI."""
from __future__ import annotations

import hashlib
import json
import os

os.environ["HF_DATASETS_OFFLINE"] = "1"  # before `datasets` is imported
os.environ["HF_HUB_OFFLINE"] = "1"
from pathlib import Path

import numpy as np
import pytest
import yaml

from geometry.egopath_schema import ROUTE_TASKS, TASKS, RouteUnit, Sheet, TargetInfo, ViewAnnotation, Waypoint
from formats import atomic
from scorers.egopath_language import explicit_target_text, intent_request, resolve_intent
from tests.synthetic_runs import jpeg_bytes

ROOT = Path(__file__).resolve().parents[1]
PAPER = Path("/work/shared/papers/egopathbench.txt")
BENCH = {"benchmark": "egopathbench", "version": "test", "environments": {"egopath": {}},
         "split_salt": "egopath-test-salt", "splits": {"train": 0.5, "validation": 0.2, "benchmark": 0.3},
         "export": {"controls": True}}

# ------------------------------------------------------------------------- synthetic run store
W, H = 96, 72
VISIBLE = [
    {"object_id": 11, "name": "chair_a", "category": "chair", "color": "red", "size_word": "", "room": "living room",
     "distance_m": 2.0, "bbox_px": [10, 10, 40, 40], "centre_xy": [2.0, 1.0]},
    {"object_id": 12, "name": "chair_b", "category": "chair", "color": "blue", "size_word": "", "room": "living room",
     "distance_m": 3.0, "bbox_px": [50, 10, 80, 40], "centre_xy": [4.0, 1.0]},
    {"object_id": 13, "name": "bin_a", "category": "bin", "color": "grey", "size_word": "", "room": "living room",
     "distance_m": 1.5, "bbox_px": [60, 40, 70, 60], "centre_xy": [1.0, -1.0]},
]


def wp(i, kind, x, y, pf, ef, z=0.0):
    return Waypoint(display_id=i, kind=kind, pixel=[8.0 + 10 * i, 60.0 - 4 * i], world=[x, y, z],
                    object_id=1 if kind == "ground" else 11, point_feasible=pf, embodied_feasible=ef,
                    clearance_m=0.5 if ef else 0.2)


def annotation(k: int, extra_route_wp: int = 0, full_mix: bool = True, intent: bool = True) -> ViewAnnotation:
    """Traversability: 1,2 feasible; 3,4 point-only; 5 surface; 6 infeasible ground.
    Route: 1 -> 2 -> 3 -> 5 (point), 1 -> 2 -> 4 -> 5 (embodied); goal 5 (both), 6 point goal too."""
    trav = [wp(1, "ground", 0, 0, True, True), wp(2, "ground", 1, 0, True, True),
            wp(3, "ground", 1, 1, True, False), wp(4, "ground", 2, 1, True, False),
            wp(6, "ground", 3, 0, False, False)]
    if full_mix:
        trav.insert(4, wp(5, "surface", 2, 2, False, False, z=0.5))
    route = [wp(1, "ground", 0, 0, True, True), wp(2, "ground", 1, 0, True, True),
             wp(3, "ground", 2, 0.5, True, False), wp(4, "ground", 2, -0.5, True, True),
             wp(5, "ground", 3, 0, True, True), wp(6, "ground", 3, 1, True, False)]
    route += [wp(7 + j, "ground", 0.5 + j, -1.5, True, True) for j in range(extra_route_wp)]
    text = explicit_target_text(11, VISIBLE)
    unit = RouteUnit(route_id="0", target_object_id=11, target_text=text, point_goal_ids=[5, 6],
                     embodied_goal_ids=[5], point_reference=[1, 2, 3, 5], embodied_reference=[1, 2, 4, 5],
                     point_shortest_m=1 + 2 * np.hypot(1, 0.5), embodied_shortest_m=1 + 2 * np.hypot(1, 0.5))
    if intent:
        req = intent_request(11, VISIBLE, np.random.default_rng([k, 11]))
        unit = unit.model_copy(update={"intent": req[0], "intent_cues": req[1]})
    unit2 = RouteUnit(route_id="1", target_object_id=12, target_text=explicit_target_text(12, VISIBLE),
                      point_goal_ids=[6], embodied_goal_ids=[], point_reference=[1, 2, 3, 6],
                      point_shortest_m=1 + np.hypot(1, 0.5) + np.hypot(1, 0.5))
    targets = [TargetInfo(object_id=o["object_id"], name=o["name"], category=o["category"], color=o["color"],
                          bbox_px=o["bbox_px"], visible_surface=0.7, distance_m=o["distance_m"],
                          strict_visible=o["object_id"] == 11, same_category_in_view=2) for o in VISIBLE[:2]]
    return ViewAnnotation(image_size=[W, H], camera_xy=[0.0, -0.5],
                          traversability=Sheet(kind="traversability", waypoints=trav),
                          route=Sheet(kind="route", waypoints=route,
                                      point_edges=[[1, 2], [2, 3], [3, 5], [3, 6], [2, 4], [4, 5]],
                                      embodied_edges=[[1, 2], [2, 4], [4, 5]]),
                          targets=targets, routes=[unit, unit2], visible_objects=VISIBLE)


def record(frame_id: str, scene_id: str, group: str, ann: ViewAnnotation, verdict: str = "accept") -> dict:
    K = [[80.0, 0, W / 2], [0, 80.0, H / 2], [0, 0, 1]]
    c2w = [[1, 0, 0, 0], [0, 0, 1, -0.5], [0, -1, 0, 1.2], [0, 0, 0, 1]]
    return {"schema_version": 1, "frame_id": frame_id, "env": "egopath", "scene_id": scene_id, "view_index": 0,
            "seed": 1, "stratum": "random", "target": "", "camera": {"width": W, "height": H, "K": K,
                                                                     "cam_to_world": c2w},
            "terms": [], "verdict": verdict, "failing_term": None, "sanity": {"ok": True, "reasons": []},
            "ground_truth": ann.model_dump(mode="json") | {"scene_group": group},
            "image": f"frames/{frame_id}.jpg", "passes": f"passes/{frame_id}.npz", "isp": {},
            "pose_attempts": 1, "renders": 1, "timings": {}}


def make_run(root: Path, n_groups: int = 10, views_per_group: int = 2) -> Path:
    """Groups g00..; each view varies the route sheet size (0 or 1 extra waypoint) so that the
    mismatched-overlay pairing has candidates of equal and unequal counts; one rejected view
    and one view whose traversability sheet has no surface negative."""
    run = Path(root) / "egopath"
    recs = []
    for g in range(n_groups):
        for v in range(views_per_group):
            fid = f"egopath-random-{g:05d}-{v:02d}"
            ann = annotation(g * 10 + v, extra_route_wp=v % 2, full_mix=not (g == 1 and v == 0),
                             intent=(g + v) % 3 != 0)
            recs.append(record(fid, f"scene-{g:03d}", f"group-{g:03d}", ann,
                               verdict="reject" if (g == 2 and v == 1) else "accept"))
            atomic.write_bytes(run / "frames" / f"{fid}.jpg", jpeg_bytes(g * 10 + v, (W, H)))
            atomic.save_npz(run / "passes" / f"{fid}.npz", depth=np.full((H, W), np.inf, np.float32),
                            object_index=np.zeros((H, W), np.int32))
    atomic.write_text(run / "records.jsonl", "".join(json.dumps(r, sort_keys=True) + "\n" for r in recs))
    atomic.write_json(run / "manifest.json", {"fingerprint": {"env": "egopath"}, "config": {}, "seeds": {}})
    return run


# ----------------------------------------------------------------------------------- fixtures
@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    import datasets.config
    import huggingface_hub.constants

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True, raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return make_run(tmp_path_factory.mktemp("runs"))


@pytest.fixture(scope="module")
def exported(run, tmp_path_factory):
    from packagers.egopath import export_egopathbench

    out = tmp_path_factory.mktemp("export")
    return export_egopathbench([run], out, BENCH)


def _split_of(bench=BENCH):
    from packagers.egopath import make_split_of
    return make_split_of(bench)


# ------------------------------------------------------------------------------------ prompts
def _paper_table_s2() -> dict[str, tuple[str, str]]:
    text = PAPER.read_text(encoding="utf-8")
    body = text[text.index("Task\tSystem prompt\tUser-prompt template"):text.index("Table S2:")]
    body = body.replace(" \n", " ")          # the paper text wraps lines after a space
    names = {"Point Traversability": "point_traversability", "Embodied Traversability": "embodied_traversability",
             "Point Path": "point_path", "Embodied Path": "embodied_path", "Intent Path": "intent_path"}
    out = {}
    for line in body.strip().split("\n")[1:]:
        name, system, user = line.split("\t")
        user = user.strip().replace("[explicit target]", "{target}").replace("[intent request]", "{intent}")
        out[names[name]] = (system.strip(), user)
    return out


@pytest.mark.skipif(not PAPER.exists(), reason="paper text not available")
def test_prompts_word_for_word():
    from packagers.egopath import load_prompts

    paper = _paper_table_s2()
    assert set(paper) == set(TASKS)
    mine = yaml.safe_load((ROOT / "packagers/prompts/egopathbench.yaml").read_text(encoding="utf-8"))["tasks"]
    for task, (system, user) in paper.items():
        assert mine[task]["system"] == system, task
        assert mine[task]["user"] == user, task
    assert "“{intent}.”" in mine["intent_path"]["user"]
    assert load_prompts()["tasks"] == mine


# ------------------------------------------------------------------------------------ questions
def _by_id(qs):
    return {q.question_id: q for q in qs}


def test_questions_from_run(run):
    from packagers.egopath import questions_from_run
    from scorers.egopath import evaluate_route, evaluate_traversability

    qs = questions_from_run(run, _split_of())
    ids = _by_id(qs)
    assert len(ids) == len(qs)
    recs = [json.loads(l) for l in (run / "records.jsonl").read_text().splitlines()]
    accepted = [r for r in recs if r["verdict"] == "accept"]
    rejected = [r["frame_id"] for r in recs if r["verdict"] != "accept"]
    assert rejected and not any(q.frame_id in rejected for q in qs)
    for r in accepted:
        fid = r["frame_id"]
        ann = ViewAnnotation.model_validate({k: v for k, v in r["ground_truth"].items() if k != "scene_group"})
        has_surface = any(w.kind == "surface" for w in ann.traversability.waypoints)
        pt, et = ids.get(f"{fid}/point_traversability"), ids.get(f"{fid}/embodied_traversability")
        if not has_surface:
            assert pt is None and et is None            # "select every ID" must not solve a sheet
            continue
        # positives by hand from the fixture's definition: 1,2 both; 3,4 point only; 5 surface; 6 none
        assert pt.positives == [1, 2, 3, 4] and et.positives == [1, 2]
        assert pt.display_ids == et.display_ids == [1, 2, 3, 4, 5, 6]
        assert pt.waypoint_world == et.waypoint_world
        for q in (pt, et):
            o = evaluate_traversability(q, q.answer)
            assert (o.fp, o.fn) == (0, 0) and o.tp == len(q.positives)
            assert evaluate_traversability(q, json.dumps(q.display_ids)).fp > 0
        pp, ep = ids[f"{fid}/point_path/0"], ids[f"{fid}/embodied_path/0"]
        assert pp.answer == "[1, 2, 3, 5]" and ep.answer == "[1, 2, 4, 5]"
        assert (pp.target_text, pp.start_id, pp.display_ids, pp.waypoint_world, pp.waypoint_pixels) == \
               (ep.target_text, ep.start_id, ep.display_ids, ep.waypoint_world, ep.waypoint_pixels)
        assert pp.target_text == "red chair" and pp.strict_visible is True
        assert "Navigate to the red chair." in pp.user_prompt and "Start at display ID 1." in pp.user_prompt
        assert [1, 3] not in ep.legal_edges and [2, 3] in pp.legal_edges
        for q in (pp, ep):
            assert evaluate_route(q, q.answer).success
        assert not evaluate_route(ep, pp.answer).success     # the point route crosses an embodied-illegal edge
        assert abs(pp.shortest_m - (1 + 2 * np.hypot(1, 0.5))) < 1e-9
        # route unit 1 has only a point reference: no embodied / intent question for it
        assert f"{fid}/point_path/1" in ids and f"{fid}/embodied_path/1" not in ids
        assert f"{fid}/intent_path/1" not in ids
        ip = ids.get(f"{fid}/intent_path/0")
        unit = ann.routes[0]
        if unit.intent is None:
            assert ip is None
            continue
        for k in ("legal_edges", "goal_ids", "reference_route", "display_ids", "start_id", "shortest_m", "answer"):
            assert getattr(ip, k) == getattr(ep, k), k
        assert ip.intent == unit.intent and f"“{unit.intent}.”" in ip.user_prompt
        assert resolve_intent(ip.intent, VISIBLE) == [11]
        assert ip.system_prompt.startswith("You are an embodied navigation robot. A user gives you")


def test_unverifiable_and_ambiguous_units_are_dropped(tmp_path):
    from packagers.egopath import build_questions

    ann = annotation(0)
    bad = ann.routes[0].model_copy(update={"embodied_reference": [1, 3, 5], "route_id": "2"})  # 1-3 illegal
    amb = ann.routes[0].model_copy(update={"target_text": "chair", "route_id": "3"})           # two chairs
    ann = ann.model_copy(update={"routes": [bad, amb]})
    run = tmp_path / "egopath"
    atomic.write_text(run / "records.jsonl", json.dumps(record("f-0", "s", "g", ann)) + "\n")
    atomic.write_bytes(run / "frames" / "f-0.jpg", jpeg_bytes(0, (W, H)))
    qs, _, stats = build_questions([run], lambda g: "train")
    got = sorted(q.question_id for q in qs)
    assert got == ["f-0/embodied_traversability", "f-0/point_path/2", "f-0/point_traversability"]
    assert stats.dropped == {"embodied_path reference does not verify": 1, "intent without an accepted embodied path": 1,
                             "explicit target not unique among visible objects": 1}


def test_bad_run_input(tmp_path):
    from packagers.egopath import EgoPathExportError, build_questions

    with pytest.raises(EgoPathExportError, match="no records.jsonl"):
        build_questions([tmp_path], lambda g: "train")
    run = tmp_path / "egopath"
    rec = record("f-0", "s", "g", annotation(0))
    del rec["ground_truth"]["scene_group"]
    atomic.write_text(run / "records.jsonl", json.dumps(rec) + "\n")
    atomic.write_bytes(run / "frames" / "f-0.jpg", jpeg_bytes(0, (W, H)))
    with pytest.raises(EgoPathExportError, match="scene_group"):
        build_questions([run], lambda g: "train")


# ------------------------------------------------------------------------------------- splits
def test_splits_by_group(run):
    from packagers.egopath import EgoPathExportError, questions_from_run, split_of_group

    qs = questions_from_run(run, _split_of())
    group_splits: dict[str, set] = {}
    for q in qs:
        group_splits.setdefault(q.scene_group, set()).add(q.split)
    assert all(len(s) == 1 for s in group_splits.values())
    assert {q.split for q in qs} == {"train", "validation", "benchmark"}
    # independent recomputation of the rule
    for g, (s,) in group_splits.items():
        u = int.from_bytes(hashlib.sha256(f"egopath-test-salt:{g}".encode()).digest()[:8], "big") / 2 ** 64
        assert s == ("benchmark" if u < 0.3 else "validation" if u < 0.5 else "train")
    fr = {"train": 0.7, "validation": 0.1, "benchmark": 0.2}
    got = [split_of_group(f"g{i}", fr, "s") for i in range(4000)]
    assert abs(got.count("benchmark") / 4000 - 0.2) < 0.025 and abs(got.count("validation") / 4000 - 0.1) < 0.02
    # adding groups never moves old ones; the salt does
    assert got[:100] == [split_of_group(f"g{i}", fr, "s") for i in range(100)]
    assert got[:200] != [split_of_group(f"g{i}", fr, "t") for i in range(200)]
    with pytest.raises(EgoPathExportError):
        split_of_group("g", {"train": 0.7, "test": 0.3})
    with pytest.raises(EgoPathExportError):
        split_of_group("g", {"train": 0.7, "benchmark": 0.2})


# ------------------------------------------------------------------------------------- export
def _load(root, config, split, cache):
    from datasets import load_dataset
    return load_dataset(str(root), config, split=split, cache_dir=str(cache))


def test_export_loads_back(exported, run, tmp_path):
    from PIL import Image as PILImage

    from geometry.egopath_schema import Question
    from packagers.egopath import CONTROL_CONFIGS, questions_from_run
    from scorers.egopath import evaluate

    root = exported.root
    meta = json.loads((root / "benchmark.json").read_text())
    assert meta["benchmark"] == "egopathbench" and meta["version"] == "test"
    card = (root / "README.md").read_text()
    header = yaml.safe_load(card.split("---")[1])
    assert {c["config_name"] for c in header["configs"]} == set(TASKS) | set(CONTROL_CONFIGS)
    qs = _by_id(questions_from_run(run, _split_of()))
    n = 0
    for task in TASKS:
        for split in ("train", "validation", "benchmark"):
            expect = sorted(i for i, q in qs.items() if q.task == task and q.split == split)
            if not expect:
                assert not (root / task / f"{split}-00000-of-00001.parquet").exists()
                continue
            ds = _load(root, task, split, tmp_path / "cache")
            assert ds["id"] == expect
            for row in ds:
                q = Question.model_validate_json(row["question"])
                assert q == qs[row["id"]] and row["answer"] == q.answer and row["scene_group"] == q.scene_group
                assert isinstance(row["image"], PILImage.Image) and row["image"].size == (W, H)
                o = evaluate(q, row["answer"])
                assert getattr(o, "success", None) is True or (getattr(o, "fp", 1), getattr(o, "fn", 1)) == (0, 0)
            n += len(ds)
    assert n == exported.total_questions == len(qs)
    sums = dict(l.split("  ")[::-1] for l in (root / "SHA256SUMS").read_text().splitlines())
    for rel, h in sums.items():
        assert hashlib.sha256((root / rel).read_bytes()).hexdigest() == h
    assert "README.md" in sums and "benchmark.json" in sums


def test_overlay_is_the_model_input(exported, run):
    """The exported image is the frame with draw_candidates' markers of the right sheet."""
    import io

    import pyarrow.parquet as pq
    from PIL import Image as PILImage

    from scorers.egopath_overlay import draw_candidates

    t = pq.read_table(exported.root / "point_path" / "train-00000-of-00001.parquet").to_pylist()[0]
    q = json.loads(t["question"])
    rec = next(json.loads(l) for l in (run / "records.jsonl").read_text().splitlines()
               if json.loads(l)["frame_id"] == q["frame_id"])
    ann = ViewAnnotation.model_validate({k: v for k, v in rec["ground_truth"].items() if k != "scene_group"})
    frame = PILImage.open(run / rec["image"]).convert("RGB")
    want = np.asarray(draw_candidates(frame, ann.route.waypoints), float)
    got = np.asarray(PILImage.open(io.BytesIO(t["image"]["bytes"])).convert("RGB"), float)
    raw = np.asarray(frame, float)
    # JPEG re-encoding of noise leaves ~6 grey levels; the markers change far more than that
    mask = np.abs(want - raw).max(axis=2) > 60
    assert mask.sum() > 50
    assert np.abs(got - want)[mask].mean() < 0.25 * np.abs(got - raw)[mask].mean()


def test_controls(exported, run, tmp_path):
    import pyarrow.parquet as pq

    from packagers.egopath import questions_from_run

    qs = _by_id(questions_from_run(run, _split_of()))
    root = exported.root
    bench_route = {i: q for i, q in qs.items() if q.split == "benchmark" and q.task in ROUTE_TASKS}
    assert bench_route
    images = {}
    for task in ROUTE_TASKS:
        p = root / task / "benchmark-00000-of-00001.parquet"
        if p.exists():
            for r in pq.read_table(p).to_pylist():
                images[r["id"]] = r["image"]["bytes"]
    for task in ROUTE_TASKS:
        want = sorted(f"{i}@text_only" for i, q in bench_route.items() if q.task == task)
        if not want:
            continue
        text = _load(root, f"{task}_text_only", "benchmark", tmp_path / "c")
        assert text["id"] == want and all(im is None for im in text["image"])
        p = root / f"{task}_mismatched_overlay" / "benchmark-00000-of-00001.parquet"
        rows = pq.read_table(p).to_pylist() if p.exists() else []
        paired = {r["id"].split("@")[0] for r in rows}
        for r in rows:
            q = qs[r["id"].split("@")[0]]
            assert json.loads(r["question"])["question_id"] == r["id"]
            # the image is the overlay of some other benchmark question: same task and id count, other scene
            partners = [o for o in bench_route.values() if o.task == task and images[o.question_id] == r["image"]["bytes"]]
            assert partners and all(o.scene_id != q.scene_id and len(o.display_ids) == len(q.display_ids)
                                    for o in partners)
        for i, q in bench_route.items():
            if q.task == task and i not in paired:   # unpaired only when no eligible partner exists
                assert not any(o.task == task and o.scene_id != q.scene_id and len(o.display_ids) == len(q.display_ids)
                               for o in bench_route.values())
    assert not (root / "point_path_text_only" / "train-00000-of-00001.parquet").exists()


def test_reexport_is_byte_identical(run, exported, tmp_path):
    from packagers.egopath import export_egopathbench

    again = export_egopathbench([run], tmp_path / "again", BENCH)
    a, b = exported.root, again.root
    assert exported.files == again.files
    for rel in exported.files:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    # export into the same place again (replaces, no staging leftovers)
    export_egopathbench([run], tmp_path / "again", BENCH)
    assert sorted(p.name for p in (tmp_path / "again").iterdir()) == ["egopathbench"]


def test_export_rejects_other_env(tmp_path):
    from packagers.egopath import EgoPathExportError, export_egopathbench

    run = tmp_path / "egopath"
    rec = record("f-0", "s", "g", annotation(0)) | {"env": "calib"}
    atomic.write_text(run / "records.jsonl", json.dumps(rec) + "\n")
    with pytest.raises(EgoPathExportError, match="calib"):
        export_egopathbench([run], tmp_path / "out", BENCH)


# ---------------------------------------------------------------------------------- SFT + CLI
def test_sft_export_and_audit(exported, tmp_path):
    import pyarrow.parquet as pq

    from packagers.egopath_sft import export_sft, rationale
    from scorers.egopath import parse_id_list

    audit = export_sft(exported.root, tmp_path / "sft")
    n_train = sum(c.get("train", 0) for k, c in exported.counts.items() if k in TASKS)
    assert audit["training_rows"] == audit["complete_training_rows"] == n_train > 0
    assert (audit["missing_image"], audit["missing_rationale"], audit["answer_failures"]) == (0, 0, [])
    assert audit["format_and_answer_audit"] == "pass"
    items = json.loads((tmp_path / "sft" / "egopathbench_sft.json").read_text())
    assert len(items) == n_train and [i["id"] for i in items] == sorted(i["id"] for i in items)
    for it in items:
        human, gpt = it["conversations"]
        assert human["from"] == "human" and human["value"].startswith("<image>\nThe image shows numbered")
        assert gpt["from"] == "gpt" and (tmp_path / "sft" / it["image"]).is_file()
        assert it["system"].startswith("You are a")  # Table S2's system prompt travels with the row
        rat, ans = gpt["value"].rsplit("\n", 1)
        assert rat and parse_id_list(ans) is not None
    ep = next(i for i in items if "/embodied_path/" in i["id"])
    assert "1 -> 2" in ep["conversations"][1]["value"] and "red chair" in ep["conversations"][1]["value"]
    assert ep["conversations"][1]["value"].endswith("[1, 2, 4, 5]")
    # the audit can fail: a rationale-bearing conversation with a wrong answer is caught
    from geometry.egopath_schema import Question
    from packagers.egopath_sft import _answer_verifies
    q = Question.model_validate_json(pq.read_table(exported.root / "embodied_path" / "train-00000-of-00001.parquet")
                                     .column("question")[0].as_py())
    assert _answer_verifies(q, rationale(q) + "\n" + q.answer)
    assert not _answer_verifies(q, rationale(q) + "\n[1, 2, 3, 5]")


def test_cli_export(run, tmp_path, capsys):
    from scenebench.cli import main

    bench = dict(BENCH, export={"controls": True, "sft": True, "audits": False})
    bench_file = tmp_path / "egopathbench.yaml"
    bench_file.write_text(yaml.safe_dump(bench))
    rc = main(["export", "--benchmark", str(bench_file), "--runs", str(run), "--out", str(tmp_path / "ds")])
    assert rc == 0
    out = capsys.readouterr().out
    assert "questions from 1 run(s)" in out and "audit pass" in out
    root = tmp_path / "ds" / "egopathbench"
    assert json.loads((root / "benchmark.json").read_text())["benchmark"] == "egopathbench"
    assert (tmp_path / "ds" / "egopathbench_sft" / "sft_audit.json").is_file()
    # the shipped benchmark file selects the same packager
    shipped = yaml.safe_load((ROOT / "configs/benchmark/egopathbench.yaml").read_text())
    assert shipped["benchmark"] == "egopathbench" and "egopath" in shipped["environments"]
    assert abs(sum(shipped["splits"].values()) - 1) < 1e-9
    assert main(["export", "--benchmark", "egopathbench", "--runs", str(tmp_path / "nope"),
                 "--out", str(tmp_path / "x")]) == 2


# ------------------------------------------------------------------------------------- audits
def _box(x0, x1, y0, y1, z0, z1):
    v = np.array([[x, y, z] for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)], float)
    f = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],
         [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    return v, np.array(f)


def _audit_run(root: Path) -> Path:
    """Floor 4 x 3 m with a wall across x = 2 leaving a 0.9 m gap; target box at the far end.
    Labels computed with the nominal geometry contract, as the environment does."""
    from geometry.feasibility import agent_radius, feasibility_graph, goal_mask, shortest_route
    from geometry.occupancy import occupancy_from_mesh
    from geometry.raycast import SceneMesh

    parts = [(1, (np.array([[0, -1.5, 0], [4, -1.5, 0], [4, 1.5, 0], [0, 1.5, 0]], float),
                  np.array([[0, 1, 2], [0, 2, 3]]))),
             (11, _box(1.9, 2.1, 0.45, 1.5, 0, 1.0)), (12, _box(1.9, 2.1, -1.5, -0.45, 0, 1.0)),
             (13, _box(3.6, 3.8, -0.1, 0.1, 0, 0.5))]
    verts, tris, ids, off = [], [], [], 0
    for oid, (v, f) in parts:
        verts.append(v); tris.append(f + off); ids += [oid] * len(f); off += len(v)
    mesh = SceneMesh(vertices=np.concatenate(verts), triangles=np.concatenate(tris), tri_object_id=np.array(ids),
                     object_ids=np.array([1, 11, 12, 13]), object_names=np.array(["floor", "wall_a", "wall_b", "box"]))
    run = root / "egopath"
    atomic.save_npz(run / "scenes" / "scene-000.npz", vertices=mesh.vertices, triangles=mesh.triangles,
                    tri_object_id=mesh.tri_object_id, object_ids=mesh.object_ids, object_names=mesh.object_names)
    atomic.write_json(run / "scenes" / "scene-000.json", {"objects": [
        {"id": 1, "category": "floor"}, {"id": 11, "category": "wall"}, {"id": 12, "category": "wall"},
        {"id": 13, "category": "box"}]})
    from geometry.egopath_schema import GeometryParams
    params = GeometryParams()
    grid = occupancy_from_mesh(mesh, {1}, params)
    pts = {1: (0.5, 0.0), 2: (1.5, 0.0), 3: (2.5, 0.0), 4: (3.25, 0.0), 5: (1.5, 1.0), 6: (3.53, 0.0)}
    wps = [Waypoint(display_id=i, kind="ground", pixel=[10.0 * i, 60.0], world=[x, y, 0.0], object_id=1,
                    point_feasible=True, embodied_feasible=True, clearance_m=0.5) for i, (x, y) in pts.items()]
    labels = {}
    for agent in ("point", "embodied"):
        r = agent_radius(agent, params)
        G = feasibility_graph(grid, pts, r, params.corridor_step_m)
        m = goal_mask(grid, 13, r, params.goal_ring_m)
        goals = [i for i in pts if grid.lookup(m, np.array([pts[i]]))[0] and G.nodes[i]["feasible"]]
        length, route = shortest_route(G, 1, goals)
        labels[agent] = (sorted(sorted(e) for e in G.edges), goals, route, length)
    assert [2, 3] in labels["embodied"][0]         # the gap is passable at 0.30 m
    unit = RouteUnit(route_id="0", target_object_id=13, target_text="box", point_goal_ids=labels["point"][1],
                     embodied_goal_ids=labels["embodied"][1], point_reference=labels["point"][2],
                     embodied_reference=labels["embodied"][2], point_shortest_m=labels["point"][3],
                     embodied_shortest_m=labels["embodied"][3])
    trav = Sheet(kind="traversability", waypoints=wps)
    ann = ViewAnnotation(image_size=[W, H], camera_xy=[0.0, 0.0], traversability=trav,
                         route=Sheet(kind="route", waypoints=wps, point_edges=labels["point"][0],
                                     embodied_edges=labels["embodied"][0]),
                         targets=[], routes=[unit], visible_objects=[])
    rec = record("f-0", "scene-000", "g0", ann)
    atomic.write_text(run / "records.jsonl", json.dumps(rec) + "\n")
    atomic.write_bytes(run / "frames" / "f-0.jpg", jpeg_bytes(0, (W, H)))
    atomic.save_npz(run / "passes" / "f-0.npz", depth=np.full((H, W), np.inf, np.float32),
                    object_index=np.zeros((H, W), np.int32))
    return run


def test_audits(tmp_path):
    from packagers.egopath import export_egopathbench
    from packagers.egopath_audits import obstruction_audit, run_audits, sensitivity_audit

    run = _audit_run(tmp_path)
    bench = dict(BENCH, splits={"benchmark": 1.0})
    root = export_egopathbench([run], tmp_path / "ds", bench).root
    s = sensitivity_audit([run], root, variants={"nominal": {}, "radius_0.50": {"body_radius_m": 0.50}})
    nom, wide = s["variants"]["nominal"], s["variants"]["radius_0.50"]
    assert s["variants"]["nominal"]["n_questions"] == 2           # point + embodied path
    assert (nom["ref"], nom["edge_flip"], nom["success_flip"]) == (1.0, 0.0, 0.0)
    # a 0.5 m radius cannot pass the 0.9 m gap: the embodied route loses its solution and its gap edge
    assert wide["ref"] == 0.5 and wide["edge_flip"] > 0 and wide["success_flip"] == 0.5
    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({"id": "f-0/embodied_path/0", "response": "[1, 5, 3, 4]"}) + "\n"
                     + json.dumps({"id": "f-0/point_path/0", "answer": "[1, 2, 3, 4]"}) + "\n")
    o = obstruction_audit([run], root, preds)
    assert o["total"]["n"] == 1 and o["cases"][0]["edge"] == [5, 3]
    assert o["total"]["inconclusive"] == 1          # empty renders: no evidence either way
    written = run_audits([run], root, tmp_path / "audits")
    assert [p.name for p in written] == ["obstruction.json", "sensitivity.json"]
    full = json.loads(written[1].read_text())
    assert set(full["variants"]) == {"nominal", "radius_0.25", "radius_0.35", "grid_0.04", "grid_0.06",
                                     "ring_0.05", "ring_0.15"}
    assert full["variants"]["nominal"]["edge_flip"] == 0.0
