"""The four VANTAGE box/point tasks on one real render: a warehouse_sot clip (46 frames at
160 x 120, preview samples, ~100 s on an idle machine), its items, their grading and the SOT baselines.

Answers written from the ground truth as a model would write them score perfectly in both
rule sets and wrong ones do not; the Referring Expressions' uniqueness and the Pointing
answers are recomputed here from the clip file and the spec's looks, with code of this file;
the SOT frames are the paper's; the OpenCV tracker beats the random box on the rendered frames
(numbers pinned on this render) and the static box freezes.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from PIL import Image

from packagers.vantage_tasks import box_scene as B
from packagers.vantage_tasks import object_localization as O
from packagers.vantage_tasks import referring_expressions as R
from packagers.vantage_tasks import single_object_tracking as S
from packagers.vantage_tasks import spatial_pointing as P
from scorers import vantage_grading_boxes as G
from scorers import vantage_trackers as T

pytestmark = pytest.mark.render

SEED = 11    # dusk; three workers (two in yellow vests) and two yellow forklifts: identical-colour distractors
LONG_SIDE = 160


@pytest.fixture(scope="module")
def clip(warehouse_sot_run):
    """conftest's shared render: seed SEED at LONG_SIDE px."""
    (cid,) = B.clip_ids(warehouse_sot_run)
    return B.load_clip(warehouse_sot_run, cid)


@pytest.fixture(scope="module")
def items(clip):
    return {"referring_expressions": R.items([clip]), "spatial_pointing": P.items([clip]),
            "object_localization": O.items([clip]), "single_object_tracking": S.items([clip])}


def _truth_reply(it) -> str:
    a, m = it.answer, it.media
    if it.task == "spatial_pointing":
        return f"The answer is {a.letter}."
    if it.task == "single_object_tracking":
        return "The target moves.\n" + T.track_reply(a.boxes)
    # rounded up to 0.01: the harness int-truncates Obj Loc pixels (vantage mode), and a coordinate
    # written a hair below the pixel edge (583.33 of 120 px = 69.9996) would lose a whole row
    boxes = [[math.ceil(v * 1000 / (m.width if k % 2 == 0 else m.height) * 100) / 100 for k, v in enumerate(b)]
             for b in a.boxes]
    if it.task == "referring_expressions":
        return f"The target: {json.dumps(boxes)}"
    return json.dumps([{"bbox_2d": b, "label": a.category} for b in boxes])


CORNERS = [(0.0, 0.0, 60.0, 60.0), (940.0, 0.0, 1000.0, 60.0), (0.0, 940.0, 60.0, 1000.0), (940.0, 940.0, 1000.0, 1000.0)]


def _far_corner(boxes) -> tuple:
    """A 60 x 60 corner box that overlaps none of `boxes` (0-1000)."""
    for c in CORNERS:
        if all(c[2] <= b[0] or b[2] <= c[0] or c[3] <= b[1] or b[3] <= c[1] for b in boxes if b is not None):
            return c
    raise AssertionError(f"every corner overlaps {boxes}")


def _wrong_reply(it) -> str:
    a, m = it.answer, it.media
    if it.task == "spatial_pointing":
        return "ABCD"[("ABCD".index(a.letter) + 1) % 4]
    if it.task == "single_object_tracking":
        return T.track_reply([None if b is None else _far_corner([b]) for b in a.boxes])
    return json.dumps([list(_far_corner([B.box_1000(b, m.width, m.height) for b in a.boxes]))])


def test_every_task_has_items_and_they_are_deterministic(clip, items):
    counts = {k: len(v) for k, v in items.items()}
    assert all(n > 0 for n in counts.values()), counts
    assert [it.model_dump() for it in R.items([clip])] == [it.model_dump() for it in items["referring_expressions"]]
    assert [it.model_dump() for it in P.items([clip])] == [it.model_dump() for it in items["spatial_pointing"]]
    for task, its in items.items():
        assert len({it.id for it in its}) == len(its) and all(it.task == task for it in its)


@pytest.mark.parametrize("task", G.BOX_TASKS)
def test_truth_scores_perfectly_and_wrong_answers_do_not(items, task):
    its = items[task]
    good = G.task_metrics(its, [G.grade(it, _truth_reply(it)) for it in its])
    bad = G.task_metrics(its, [G.grade(it, _wrong_reply(it)) for it in its])
    for c in ("strict", "vantage"):
        g, b = good[c], bad[c]
        if task == "spatial_pointing":
            assert g["accuracy"] == 1.0 and b["accuracy"] == 0.0
        elif task == "referring_expressions":
            assert g["miou"] > 0.999 and g["acc@0.75"] == 1.0 and b["acc@0.5"] == 0.0 and b["miou"] == 0.0
        elif task == "object_localization":
            assert g["f1@0.5"] == 1.0 and g["f1_by_threshold"]["0.95"] == 1.0 and b["f1@0.5"] == 0.0
        else:
            assert g["auc"] == (1.0 if c == "vantage" else pytest.approx(20 / 21))
            assert b["auc"] < 0.2
    assert good["n_parsed"] == len(its)
    for reply in (None, "x" * 70000, '{"frame_1": [NaN, 0, 1, 1]}', "[" * 3000, "I cannot see it."):
        hostile = G.task_metrics(its, [G.grade(it, reply) for it in its])
        assert hostile["n_parsed"] == 0
        for c in ("strict", "vantage"):
            h = hostile[c]
            assert {"spatial_pointing": lambda: h["accuracy"] == 0.0, "referring_expressions": lambda: h["miou"] == 0.0,
                    "object_localization": lambda: h["f1@0.5"] == 0.0,
                    "single_object_tracking": lambda: h["mean_iou"] == 0.0}[task]()


def _lifted(spec, forklift_id: str, t: float) -> bool | None:
    """Whether the forklift holds a lifted pallet at t (None: it has one, but not lifted now)."""
    fork = spec.timeline.agent(forklift_id).trajectory
    mine = [a.trajectory for a in spec.timeline.agents if a.category == "pallet"
            and a.trajectory.kind == "carried" and a.trajectory.carrier == fork]
    if not mine:
        return False
    return True if any(c.t_pick + c.lift_s <= t <= (c.t_drop - c.lift_s if c.t_drop is not None else 1e9)
                       for c in mine) else None


def test_refex_expressions_pick_exactly_their_box(clip, items):
    """Read back here with plain string tests: category word, colour word, load and position
    words, matched against every object with a pixel in the clip file."""
    spec = clip.spec
    hard = 0
    for it in items["referring_expressions"]:
        text = it.tags["expression"]
        frame = clip.frame_by_number(it.media.frame_numbers[0])
        w, h = it.media.width, it.media.height
        matches = []
        for o in frame["objects"]:
            if not o["visible_px"]:
                continue
            names = spec.looks[o["track_id"]].color_names
            cat = o["category"]
            if text.startswith("The worker in the "):
                colour = text[len("The worker in the "):].split(" ")[0]
                ok = (cat == "person" and names["vest"] == colour) or (cat == "forklift"
                                                                      and names["operator_vest"] == colour)
            else:
                colour, noun = text.split(" ")[1], text.split(" ")[2].rstrip(".")
                ok = names.get("paint") == colour and cat == {"forklift": "forklift", "mobile": "amr"}[noun]
                if ok and cat == "amr" and "tote" in text:
                    ok = ("tote" not in names) if "without a tote" in text else f"a {names.get('tote')} tote" in text
                if ok and cat == "forklift" and "carrying a pallet" in text:
                    ok = _lifted(spec, o["track_id"], frame["t"]) is not False
                if ok and cat == "forklift" and "with empty forks" in text:
                    ok = _lifted(spec, o["track_id"], frame["t"]) is not True
            u0, v0, u1, v1 = o["box_xyxy"]
            cx, cy = (u0 + u1 + 1) / 2, (v0 + v1 + 1) / 2
            if ok and " near the " in text:
                pos = text.split(" near the ")[1].removesuffix(" of the image.")
                ok = all({"left": cx < w / 3, "right": cx > 2 * w / 3, "top": cy < h / 3,
                          "bottom": cy > 2 * h / 3}[word] for word in pos.split())
            if ok:
                matches.append(o)
        assert [m["track_id"] for m in matches] == [it.tags["target"]], text
        u0, v0, u1, v1 = matches[0]["box_xyxy"]
        assert it.answer.boxes == [(u0, v0, u1 + 1, v1 + 1)]
        hard += it.tags["same_color_distractors"] > 0
        assert R.resolve(text, B.frame_things(clip, frame), w, h) == [it.tags["target"]]
    assert hard > 0                                                          # identical-colour distractors occur


def test_pointing_answer_is_the_box_centre_the_template_names(clip, items):
    for it in items["spatial_pointing"]:
        frame = clip.frame_by_number(it.media.frame_numbers[0])
        w, h = it.media.width, it.media.height
        cat = it.tags["category"]
        objs = [o for o in frame["objects"] if o["category"] == cat and o["visible_px"]]
        cx = {o["track_id"]: (o["box_xyxy"][0] + o["box_xyxy"][2] + 1) / 2 for o in objs}
        if it.tags["template"] == "leftmost":
            want = min(cx, key=cx.get)
        elif it.tags["template"] == "rightmost":
            want = max(cx, key=cx.get)
        elif it.tags["template"] == "nearest_camera":
            eye = [row[3] for row in frame["camera"]["cam_to_world"][:3]]
            want = min(objs, key=lambda o: math.dist(o["center_world"], eye))["track_id"]
        else:
            continue
        assert want == it.tags["target"], it.id
        o = next(o for o in objs if o["track_id"] == want)
        u0, v0, u1, v1 = o["box_xyxy"]
        point = (round((u0 + u1 + 1) / 2 * 1000 / w), round((v0 + v1 + 1) / 2 * 1000 / h))
        assert it.answer.points["ABCD".index(it.answer.letter)] == point
        assert len(set(it.answer.points)) == 4
    counts = P.letter_counts(items["spatial_pointing"])
    assert max(counts.values()) - min(counts.values()) <= 1


def test_objloc_boxes_are_every_clear_instance(clip, items):
    for it in items["object_localization"]:
        frame = clip.frame_by_number(it.media.frame_numbers[0])
        mine = [o for o in frame["objects"] if o["category"] == it.answer.category and o["visible_px"]]
        assert all(o["visible_px"] >= 12 and o["visible_fraction"] >= 0.5 for o in mine)
        want = sorted((u0, v0, u1 + 1, v1 + 1) for u0, v0, u1, v1 in (o["box_xyxy"] for o in mine))
        assert sorted(it.answer.boxes) == want


def test_sot_frames_prefix_and_gt(clip, items):
    sot = items["single_object_tracking"]
    by = {it.id: it for it in sot}
    for it in sot:
        n, stride = it.tags["frames"], it.tags["stride"]
        assert it.media.frame_numbers == [stride * k for k in range(n)]
        assert (n, stride) in ((8, 15), (16, 15), (32, 14))
        if n == 16:
            short = by[it.id.replace("-16f", "-8f")]
            assert it.media.frame_numbers[:8] == short.media.frame_numbers
            assert it.answer.boxes[:8] == short.answer.boxes
        for k, b in zip(it.media.frame_numbers, it.answer.boxes):
            o = next(o for o in clip.frame_by_number(k)["objects"] if o["track_id"] == it.tags["target"])
            if o["visible_px"] < 4:
                assert b is None
            else:
                u0, v0, u1, v1 = o["box_xyxy"]
                assert b == pytest.approx((u0 * 1000 / 160, v0 * 1000 / 120, (u1 + 1) * 1000 / 160,
                                           (v1 + 1) * 1000 / 120), abs=0.006)


def _frames(clip, it):
    return [np.asarray(Image.open(clip.image_path(clip.frame_by_number(k))).convert("RGB"))
            for k in it.media.frame_numbers]


def test_baselines_score_what_their_definitions_imply(clip, items):
    """Pinned on this render (seed 11, warehouse_sot-3): the targets that move over the first
    1.5 s (the standing workers of warehouse_sot-1, on which the static box was exact at 8 frames,
    are no longer tracked), at three horizons; the static box now scores near the paper's floor."""
    sot = items["single_object_tracking"]
    scores = {}
    for name in ("static", "random", "CSRT"):
        recs = []
        for it in sot:
            track = (T.static_track(it) if name == "static" else T.random_track(it) if name == "random"
                     else T.opencv_track(it, _frames(clip, it), name))
            recs.append(G.grade(it, T.track_reply(track)))
        scores[name] = {h: G.task_metrics([it for it in sot if it.tags["frames"] == h],
                                          [r for r, it in zip(recs, sot) if it.tags["frames"] == h])["vantage"]
                        for h in (8, 16, 32)}
    for h in (8, 16, 32):
        assert scores["CSRT"][h]["auc"] > scores["random"][h]["auc"] >= 1 / 21
        # frames 1.. are scored: the static box is frozen on each of them in view but the first of those,
        # over the n - 2 pairs of its n - 1 predictions: (present - 1) / (n - 2)
        present = [(sum(b is not None for b in it.answer.boxes[1:]) - 1) / (h - 2) for it in sot
                   if it.tags["frames"] == h]
        assert scores["static"][h]["freeze_rate"] == pytest.approx(np.mean(present), abs=1e-12)
        assert scores["random"][h]["freeze_rate"] == 0.0
    # one 32-frame target leaves the view on one frame: 29 of 30 pairs frozen there, 1 - 1/90 over the three
    assert [scores["static"][h]["freeze_rate"] for h in (8, 16, 32)] == [1.0, 1.0, pytest.approx(89 / 90)]
    assert scores["static"][8]["auc"] > scores["static"][16]["auc"] > scores["static"][32]["auc"]
    got = {n: [round(scores[n][h]["auc"], 4) for h in (8, 16, 32)] for n in scores}
    assert {n: got[n] for n in ("static", "random")} == {"static": [0.2766, 0.1545, 0.1019],
                                                          "random": [0.0476, 0.0476, 0.0502]}, got
    # CSRT runs OpenCV's own SIMD code over rendered pixels: on another processor a warehouse_sot-2
    # render gave 0.7517 / 0.6 / 0.3641 (CI, stop 24) against 0.7517 / 0.5952 / 0.3618 here, so its pin
    # has a tolerance; the box geometry and the metric stay exact through the two baselines above.
    assert got["CSRT"] == pytest.approx([0.7211, 0.5534, 0.4235], abs=0.01), got
    moving = [it for it in sot if it.tags["motion"] != "stationary"]
    for it in moving:
        rec = G.grade(it, T.track_reply(T.static_track(it)))
        in_view = sum(b is not None for b in it.answer.boxes[1:])
        assert rec["score"]["vantage"]["freeze_rate"] == (in_view - 1) / (len(it.answer.boxes) - 2)
        assert rec["score"]["vantage"]["auc"] < 1.0


def test_init_frame_png_of_a_rendered_frame(clip, items, tmp_path):
    it = next(it for it in items["single_object_tracking"]                  # a box clear of the frame's edges
              if 20 < it.answer.init_box[0] and it.answer.init_box[2] < 980 and 20 < it.answer.init_box[1])
    img = _frames(clip, it)[0]
    path = S.write_init_frame(img, it.answer.init_box, tmp_path / "f00_ann.png")
    back = np.asarray(Image.open(path).convert("RGB"))
    x1, y1 = int(it.answer.init_box[0] / 1000 * 160), int(it.answer.init_box[1] / 1000 * 120)
    x2 = int(it.answer.init_box[2] / 1000 * 160)
    assert tuple(back[min(y1 + 1, 119), x2]) == (0, 255, 0) and tuple(back[min(y1 + 1, 119), x1]) == (0, 255, 0)
    changed = np.any(back != img, axis=2)
    below = max(y1 + 3, 17)                       # under the box's top edge and under the label's baseline + stroke
    assert changed.sum() > 0 and not changed[below:, x2 + 3:].any()    # nothing drawn right of the box there
