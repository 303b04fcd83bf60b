"""The RealityBench Parquet export (packagers/hf_export.py): shard planning at its byte and row
limits, licence, attribution, the card's text and run order, the row of a record, and the run-store
checks, on hand-made inputs and tests/test_hf_export.py's small synthetic runs."""
from __future__ import annotations

from pathlib import Path

import pytest

from formats import dataset_layout as layout
from packagers import hf_export as hf
from packagers.hf_export import plan_shards


def test_limits():
    assert hf.MAX_SHARD_BYTES == 200 * 1024 * 1024 and hf.MAX_SHARD_ROWS == 2000
    assert hf.ROW_GROUP_SIZE == 128
    assert (hf.DATASET_NAME, hf.SPLIT) == ("realitybench", "test")


def test_plan_shards_byte_limit_just_inside_and_outside():
    assert plan_shards([], 10, 5) == []
    assert plan_shards([4, 6], 10, 5) == [(0, 2)]                    # exactly 10: one shard
    assert plan_shards([4, 7], 10, 5) == [(0, 1), (1, 2)]            # 11: split
    assert plan_shards([4, 6, 1], 10, 5) == [(0, 2), (2, 3)]
    assert plan_shards([25], 10, 5) == [(0, 1)]                      # an oversized row still gets a shard
    assert plan_shards([25, 1, 25], 10, 5) == [(0, 1), (1, 2), (2, 3)]
    assert plan_shards([3, 3, 3, 3], 6, 5) == [(0, 2), (2, 4)]


def test_plan_shards_row_limit_just_inside_and_outside():
    assert plan_shards([1] * 3, 100, 3) == [(0, 3)]
    assert plan_shards([1] * 4, 100, 3) == [(0, 3), (3, 4)]
    assert plan_shards([1] * 7, 100, 3) == [(0, 3), (3, 6), (6, 7)]
    assert plan_shards([1] * 2, 100, 1) == [(0, 1), (1, 2)]
    assert plan_shards([1] * 4001) == [(0, 2000), (2000, 4000), (4000, 4001)]
    mb = 1024 * 1024
    assert plan_shards([100 * mb, 100 * mb, 1]) == [(0, 2), (2, 3)]


def test_license_and_attribution():
    assets = {"b": {"kind": "texture", "source_url": "https://x/b", "license": "CC0", "attribution": "B. Person",
                    "sha256": "ab12"},
              "a": {"kind": "procedural", "generator": "blender_envs/a.py", "license": "cc0", "attribution": "us"}}
    assert hf._license({"assets": assets}) == "cc0"
    assert hf._license({"assets": {**assets, "c": {"license": "MIT"}}}) == "other"
    assert hf._license({}) == "other" and hf._license({"assets": None}) == "other"
    assert hf._attribution({"assets": assets}) == (
        "# Attribution\n\nEvery asset a frame may contain (from scenebench's `assets_manifest/manifest.yaml`).\n\n"
        "| asset | kind | source | license | attribution | sha256 |\n|---|---|---|---|---|---|\n"
        "| a | procedural | `blender_envs/a.py` | cc0 | us |  |\n"
        "| b | texture | `https://x/b` | CC0 | B. Person | ab12 |\n")
    assert hf._attribution({}).endswith("|---|---|---|---|---|---|\n")


def test_run_order():
    class R:
        def __init__(self, env, stratum, name):
            self.manifest = {"fingerprint": {"env": env}, "config": {"stratum": stratum}}
            self.dir = Path("/o") / name
    runs = [R("tape_gap", "random", "z"), R("calib", "positive", "b"), R("calib", "positive", "a"),
            R("calib", "random", "c")]
    order = lambda r: layout.run_order(r.dir.name, r.manifest)  # noqa: E731
    assert [(r.manifest["fingerprint"]["env"], r.dir.name) for r in sorted(runs, key=order)] == [
        ("calib", "a"), ("calib", "b"), ("calib", "c"), ("tape_gap", "z")]
    bare = R("x", "y", "n")
    bare.manifest = {}
    assert order(bare) == ("None", "None", "n")


# -- the card ---------------------------------------------------------------------------------------
# The card's text after its YAML header for two configs (hand-made DatasetInfos, run manifests and
# benchmark file), written out in full: every sentence of the card is part of the published dataset.
# The header's YAML and the library-version lines are formats.dataset_layout's; `{prompts}` and
# `{libs}` are spliced in.
CARD_BODY = """
# RealityBench (scenebench reproduction)

Procedurally generated, Blender-rendered photos of field documentation work (rooftop solar, an electrical panel, vehicle intake), each with an acceptability verdict and an answer key computed from the scene itself. Reproduces RealityBench's 11 environments; every label comes from the scene spec and its geometry, never from a person.

Environments in this export: 2 of the benchmark's 2.

## Uses

Direct use: zero-shot evaluation of vision-language models (acceptability: `adequate` against `scorer_verdict`; documentation: each key against `ground_truth`, with the key's tolerance). Out of scope: training (there is only a `test` split), and any claim about real photos beyond what the paper's real-photo comparison supports.

## Configs and splits

One config per environment; one split, `test`.

| config | frames | random | positive | excluded (render sanity check) |
|---|---|---|---|---|
| slope_gauge | 2 | 0 | 2 | 0 |
| tape_gap | 3 | 2 | 1 | 1 |

Frames whose render failed the sanity check (camera inside a mesh, black or blown frame, intersecting meshes; App. D) have verdict `excluded` and are left out: 1 in all.

**Split rule.** RealityBench is evaluation-only: every exported frame is in `test`. Scenes are generated per environment and stratum from their own seeds, so no scene is shared between configs.

**Strata.** `random`: the camera is drawn from the environment's field-pose distribution (the false-accept rate is measured on these only). `positive`: scorer-acceptable frames found by rejection sampling from the same distribution, added where random frames are rarely acceptable, so that a model's miss rate can be estimated per environment. Bootstrap intervals resample each stratum separately.

## Fields

| column | type | meaning |
|---|---|---|
| `id` | string | frame id (`<env>-<stratum>-<scene>-<view>`), unique; rows are sorted by it |
| `env` | string | the environment (= the config name) |
| `stratum` | string | `random` (a field pose from the environment's pose distribution) or `positive` (a scorer-acceptable pose found by rejection sampling from the same distribution) |
| `image` | image | the phone JPEG a model sees (bytes embedded; decodes to a PIL image) |
| `prompt` | string | the full prompt (App. C template with this environment's Table 3 parts) |
| `requirement` | string | the environment's photo requirement (Table 3) |
| `question` | string | the environment's documentation question (Table 3) |
| `keys` | list<struct> | the answer keys after `adequate`: list of {name, type, grammar, tolerance (null = exact), options, scored_on (`acceptable` = scored on scorer-acceptable frames, `all` = on every frame)} |
| `scorer_verdict` | string | the acceptability scorer's verdict: `accept`, `reject` or `unscored` (the verdict hinges only on a gray term; such frames are not scored for acceptability) |
| `gray` | bool | true when the verdict depends only on gray terms (it fails at least one term, and every failing term fails inside that term's gray zone); such frames are left out of every score (§4). A frame that also fails a hard term is a plain `reject` with `gray` false; `terms` shows its gray failures |
| `terms` | list<struct> | every acceptability term: {name, side (`scene` or `frame`), value (a yes/no term is 1.0/0.0; null = not computable), threshold, unit, passed, gray} |
| `ground_truth` | string | JSON object: the answer key for every key in `keys`, plus diagnostics (e.g. tape_gap's geometric_reading_in); computed from the scene, never from a person |
| `scene` | string | JSON object: the scene spec, every random draw of the scene (privileged parameters) |
| `seed` | int64 | the frame's 63-bit seed (derived from the root seed, environment, stratum, scene and view) |

Encoding: `keys` and `terms` are lists of structs (one shape across all configs); `ground_truth` and `scene` are canonical JSON strings (sorted keys), because their shape differs per environment and nests, and JSON keeps ints, floats, booleans and nulls exactly. Parse them with `json.loads`.

## Dataset creation

Benchmark file: `rb-test` version `v9`, root seed 42, quality preset `final`.

Rendered at quality `preview`, `unrecorded`, not the file's preset (a `--quality` override): these are not the release's images.

| environment | planned random | planned positive | generator version (planned) |
|---|---|---|---|
| slope_gauge | 2 | 0 |  |
| tape_gap | 3 | 1 | tg-3 |

Prompts: `{prompts}` (App. C template word for word, Table 3 parts). Wording the paper does not print is ours and marked INFERRED in scenebench's `packagers/prompts/realitybench.yaml`: horizon_peak's set-level variant (it asks whether this one photo belongs in such a set), the grammar words of string, enum, list and circuit-entry keys, and the 10 body styles.

Runs exported (from each run's manifest.json):

| env | stratum | generator version | root seed | quality | git commit |
|---|---|---|---|---|---|
| slope_gauge | positive | sg-1 | 5 |  | None |
| tape_gap | random | tg-3 | 7 | preview | abc123 |

Seed scheme: None; sha256-v1. Each row's `seed` is its frame seed.

## Reproducibility

Rows sorted by `id`; shards cut in id order when the next image would take a shard over 200 MiB of image bytes or 2000 rows; row groups of 128 rows; zstd level 3 except the embedded JPEG bytes (stored uncompressed); no timestamps. The same run stores and library versions give byte-identical files; `SHA256SUMS` (`sha256sum -c SHA256SUMS`) covers every file.

Library versions:

{libs}

## Bias, risks and limitations

Synthetic scenes from procedural generators: the distributions of roofs, panels, vehicles and lighting are the generators', not the world's. Acceptability labels are one scorer's reading of each requirement.

## Attribution

See `ATTRIBUTION.md` (generated from the asset manifest)."""


def _card_inputs():
    from formats import dataset_layout as layout

    infos = {"tape_gap": layout.dataset_info(hf.FEATURES, {"test": (1000, 3, 900)}),
             "slope_gauge": layout.dataset_info(hf.FEATURES, {"test": (500, 2, 400)})}
    runs = [hf._Run(Path("/r/b"), {"fingerprint": {"env": "tape_gap", "generator_version": "tg-3",
                                                   "quality": {"name": "preview"}, "seed": 9},
                                   "config": {"stratum": "random"}, "seeds": {"root_seed": 7, "scheme": "sha256-v1"},
                                   "git_commit": "abc123"}, []),
            hf._Run(Path("/r/a"), {"fingerprint": {"env": "slope_gauge", "generator_version": "sg-1", "seed": 5},
                                   "config": {"env": "slope_gauge", "stratum": "positive"}, "git_commit": None}, [])]
    bench = {"benchmark": "rb-test", "version": "v9", "root_seed": 42, "quality": "final",
             "environments": {"tape_gap": {"random": 3, "positive": 1}, "slope_gauge": {"random": 2}},
             "generator_versions": {"tape_gap": "tg-3"}}
    strata = {"tape_gap": {"random": 2, "positive": 1}, "slope_gauge": {"positive": 2}}
    manifest = {"assets": {"a": {"license": "CC0"}, "b": {"license": "cc0"}}}
    return infos, runs, {"tape_gap": 1}, strata, bench, manifest


def _split_card(text: str) -> tuple[dict, str]:
    import yaml

    assert text.startswith("---\n")
    head, body = text[4:].split("\n---\n", 1)
    return yaml.safe_load(head), body


def test_card_text_in_full():
    """Rows of the tables: strata and exclusions per config (slope_gauge has no random frame),
    1 excluded in all; planned counts with a blank generator version where the file names none;
    runs in (env, stratum, dir) order whatever order they came in, the root seed falling back to
    the fingerprint's seed, a missing quality blank; seed schemes sorted, a missing one `None`."""
    from formats import dataset_layout as layout
    from packagers.prompts import prompts_version

    front, body = _split_card(hf._card(*_card_inputs()))
    libs = "\n".join(f"- {k}: {v}" for k, v in layout.lib_versions().items())
    assert body == CARD_BODY.replace("{prompts}", prompts_version()).replace("{libs}", libs) + "\n"
    assert front["pretty_name"] == "RealityBench (scenebench reproduction)"
    assert front["license"] == "cc0" and front["language"] == ["en"]
    assert front["task_categories"] == ["visual-question-answering"] and front["size_categories"] == ["n<1K"]
    assert front["tags"] == ["synthetic", "blender", "benchmark", "vlm", "realitybench"]
    assert front["configs"] == [
        {"config_name": "slope_gauge", "data_files": [{"split": "test", "path": "slope_gauge/test-*"}]},
        {"config_name": "tape_gap", "data_files": [{"split": "test", "path": "tape_gap/test-*"}], "default": True}]
    assert [(i["config_name"], i["splits"][0]["num_examples"]) for i in front["dataset_info"]] == [
        ("slope_gauge", 2), ("tape_gap", 3)]


def test_card_without_a_benchmark_file_and_default_config():
    """No benchmark file: no planned-counts table, and the benchmark name defaults. Without
    tape_gap (the registry's card default) the first config opens the card; a config the
    registry does not know is allowed."""
    from formats import dataset_layout as layout

    infos, runs, excluded, strata, _, manifest = _card_inputs()
    front, body = _split_card(hf._card(infos, runs, excluded, strata, None, manifest))
    assert "Benchmark file:" not in body and "planned random" not in body
    assert "## Dataset creation\n\nPrompts: `" in body
    del infos["tape_gap"]
    infos["zz_unknown"] = infos["slope_gauge"]
    front, body = _split_card(hf._card(infos, runs, {}, {}, {"version": "v1", "environments": {}}, {}))
    assert [c.get("default", False) for c in front["configs"]] == [True, False]
    assert front["license"] == "other"
    assert "Benchmark file: `realitybench` version `v1`, root seed None, quality preset `None`." in body
    assert "| zz_unknown | 2 | 0 | 0 | 0 |" in body and "left out: 0 in all." in body
    big = {"slope_gauge": layout.dataset_info(hf.FEATURES, {"test": (1, 1000, 1)})}
    assert _split_card(hf._card(big, runs, {}, {}, None, {}))[0]["size_categories"] == ["1K<n<10K"]


# -- rows and run reading ----------------------------------------------------------------------------
def _small_run(tmp_path, verdicts=("accept", "unscored")):
    from test_hf_export import make_run

    return make_run(tmp_path / "tg", "tape_gap", "random", list(verdicts))


def test_row_of_a_record(tmp_path):
    """One Parquet row per frame: prompt parts from the prompt file, keys as dicts, a yes/no term's
    value as 1.0, a missing value as None, the scene spec (not the whole state) as canonical JSON."""
    from packagers.prompts import get_prompt, render_prompt

    run = _small_run(tmp_path)
    r = hf._read_run(run)
    assert [x.frame_id for x in r.records] == ["tape_gap-random-00000-01", "tape_gap-random-00000-00"]  # file order
    rec = r.records[1]
    scenes = {}
    row = hf._row(run, rec, scenes)
    ep = get_prompt("tape_gap")
    assert row["id"] == "tape_gap-random-00000-00" and row["env"] == "tape_gap" and row["stratum"] == "random"
    assert row["image"] == {"bytes": (run / "frames" / "tape_gap-random-00000-00.jpg").read_bytes(),
                            "path": "tape_gap-random-00000-00.jpg"}
    assert row["prompt"] == render_prompt("tape_gap")
    assert (row["requirement"], row["question"]) == (ep.requirement, ep.question)
    assert row["keys"] == [k.model_dump() for k in ep.keys] and row["keys"][0]["name"] == "reading_in"
    assert (row["scorer_verdict"], row["gray"], row["seed"]) == ("accept", False, 2**62)
    assert row["terms"] == [
        {"name": "in_frame", "side": "scene", "value": 1.0, "threshold": ">= 0.9", "unit": "", "passed": True,
         "gray": False},
        {"name": "from_front", "side": "scene", "value": 1.0, "threshold": "true", "unit": "", "passed": True,
         "gray": False}]
    assert row["ground_truth"] == ('{"gap_in":3.0,"geometric_reading_in":3.2,"reading_in":3.25,"tilted":false}')
    assert row["scene"] == '{"nested":{"a":null,"b":[1,2.5]},"pitch_deg":20,"seed":7}'
    assert list(scenes) == [(run, "random-00000")]
    gray = hf._row(run, r.records[0], scenes)
    assert gray["gray"] is True and gray["scorer_verdict"] == "unscored"
    assert gray["terms"][1] == {"name": "yaw", "side": "scene", "value": 20.0, "threshold": "<= 15 deg",
                                "unit": "deg", "passed": False, "gray": True}
    # a state without "spec" is embedded whole; a missing state is refused
    (run / "scenes" / "plain.json").write_text('{"b": 1, "a": [true]}')
    assert hf._scene_spec(run, "plain", {}) == '{"a":[true],"b":1}'
    with pytest.raises(hf.ExportError, match=r"scenes/gone\.json: scene state missing"):
        hf._scene_spec(run, "gone", {})
    assert hf._term_row(r.records[0].terms[0])["value"] == 1.0


def test_read_run_refusals(tmp_path):
    import json

    run = _small_run(tmp_path)
    (run / "manifest.json").write_text("{not json")
    with pytest.raises(hf.ExportError, match=r"manifest\.json: not JSON"):
        hf._read_run(run)
    (run / "manifest.json").unlink()
    with pytest.raises(hf.ExportError, match=r"no manifest\.json \(the card needs its seeds and versions\)"):
        hf._read_run(run)
    with pytest.raises(hf.ExportError, match=r"no records\.jsonl \(not a run store\?\)"):
        hf._read_run(tmp_path / "nothing")
    (run / "manifest.json").write_text("{}")
    lines = (run / "records.jsonl").read_text().splitlines()
    (run / "records.jsonl").write_text(lines[0] + "\n\n" + '{"frame_id": 3}\n')
    with pytest.raises(hf.ExportError, match=r"records\.jsonl:3: unreadable record"):
        hf._read_run(run)
    (run / "records.jsonl").write_text("\n" + lines[0] + "\n  \n")
    assert len(hf._read_run(run).records) == 1 and hf._read_run(run).manifest == {}
    assert json.loads(lines[0])["frame_id"] == hf._read_run(run).records[0].frame_id


def test_check_frame(tmp_path):
    run = _small_run(tmp_path)
    rec = hf._read_run(run).records[1]
    hf._check_frame(run, rec)
    no_keys = rec.model_copy(update={"ground_truth": {"gap_in": 1.0}})
    with pytest.raises(hf.ExportError, match="tape_gap-random-00000-00: ground truth lacks answer key"
                                             r"\(s\) reading_in, tilted"):
        hf._check_frame(run, no_keys)
    (run / "frames" / "tape_gap-random-00000-00.jpg").unlink()
    with pytest.raises(hf.ExportError, match=r"tape_gap-random-00000-00\.jpg: image of tape_gap-random-00000-00 missing"):
        hf._check_frame(run, rec)
    (run / "scenes" / "random-00000.json").unlink()
    other = hf._read_run(run).records[0]
    (run / "frames" / "x").mkdir()
    with pytest.raises(hf.ExportError, match=r"random-00000\.json: scene state of tape_gap-random-00000-01 missing"):
        hf._check_frame(run, other)


def test_export_summary_and_refusals(tmp_path):
    run = _small_run(tmp_path, ("accept", "excluded", "reject"))
    s = hf.export_realitybench([run], tmp_path / "out")
    assert s.root == tmp_path / "out" / "realitybench"
    assert (s.rows, s.excluded, s.total_rows) == ({"tape_gap": 2}, {"tape_gap": 1}, 2)
    assert s.shards == {"tape_gap": ["tape_gap/test-00000-of-00001.parquet"]}
    assert s.files == ["ATTRIBUTION.md", "README.md", "SHA256SUMS", "tape_gap/test-00000-of-00001.parquet"]
    s2 = hf.export_realitybench([run], tmp_path / "out2", max_shard_rows=1)
    assert s2.shards == {"tape_gap": ["tape_gap/test-00000-of-00002.parquet", "tape_gap/test-00001-of-00002.parquet"]}
    size = (run / "frames" / "tape_gap-random-00000-00.jpg").stat().st_size
    s3 = hf.export_realitybench([run], tmp_path / "out3", max_shard_bytes=size)
    assert len(s3.shards["tape_gap"]) == 2
    with pytest.raises(hf.ExportError, match="no run directories given"):
        hf.export_realitybench([], tmp_path / "o")
    with pytest.raises(hf.ExportError, match=r"frame tape_gap-random-00001-00 is in both .*/tg and .*/tg$"):
        hf.export_realitybench([run, run], tmp_path / "o")
    only_excluded = _small_run(tmp_path / "ex", ("excluded",))
    with pytest.raises(hf.ExportError, match="tape_gap: every frame was excluded; nothing to export"):
        hf.export_realitybench([only_excluded], tmp_path / "o")
    assert not (tmp_path / "o").exists()
