"""2D Spatial Pointing (Table 5: 4-way MCQ over [x, y] points; accuracy) from rendered frames.

The paper's Pointing Data Engine (§3.4) builds the question from a template over relative box
geometry and the answer from the same geometry, with same-class distractors. Templates here:
  * leftmost / rightmost {noun}: the smallest / largest box-centre x;
  * {noun} nearest to the camera: the smallest 3-D distance from the camera to the agent's
    centre (privileged state; the image alone shows it only through size and height);
  * {noun} closest to {reference}: the smallest ground-plane distance between centres, the
    reference being an object of another category that its colour names uniquely among the
    seen objects ("the red forklift", "the worker in the orange vest": no other seen worker,
    and no seen forklift's operator, wears that vest).
A question needs two clear objects of the class, and its answer must win by a margin over
every *seen* object of the class (any visible pixel, not only the clear ones): `X_MARGIN` of
the frame width for left/right, `DISTANCE_MARGIN_M` for the distances. Options are box
centres in 0–1000 (integers): the answer, up to three clear same-class distractors, then
clear objects of other classes when the class has fewer than four; options closer than
`MIN_OPTION_GAP` to one already taken are skipped, and a question without four options is
dropped. The correct letter is balanced over A–D across the whole item set: items are sorted
by id and every block of four takes a seeded permutation of ABCD (counts differ by at most 1).

The crossroads (T: the CCTV view and the vehicle-mounted `intersection_forward`, the paper's
own source for this task) ask about cars, motorcycles, cyclists and pedestrians ("Where is the
leftmost car in this image?", Fig. 2), the entrance (S) about people; a reference is named by
box_scene.head ("the white car", "the person in the black coat") and must be the only seen
object that phrase names.
"""
from __future__ import annotations

import math
from typing import Sequence

from formats.vantage_item import LETTERS, ChoiceAnswer, VantageItem
from packagers.vantage_tasks.box_scene import (NOUNS, Clip, Thing, centre, domain, frame_things, head, image_media,
                                               min_visible_px, nouns, prompt_template)
from render_farm.seeds import rng_for

TASK = "spatial_pointing"
X_MARGIN = 0.04
DISTANCE_MARGIN_M = 1.0
MIN_OPTION_GAP = 30.0            # 0–1000 units between any two options


def point_1000(box, width: int, height: int) -> tuple[int, int]:
    cx, cy = centre(box)
    return (int(round(cx * 1000.0 / width)), int(round(cy * 1000.0 / height)))


def _noun_phrase(t: Thing) -> str:
    h = head(t)
    return h[0].lower() + h[1:]


def _winner(scores: dict[str, float], margin: float) -> str | None:
    """The id with the smallest score if it beats every other by `margin`."""
    order = sorted(scores, key=lambda k: (scores[k], k))
    if len(order) < 2 or scores[order[1]] - scores[order[0]] < margin:
        return None
    return order[0]


def questions(things: Sequence[Thing], camera_xyz, width: int, height: int,
              names: dict[str, str] = NOUNS) -> list[tuple[str, str, str]]:
    """(template key, question, answer track id) for every template that has a clear answer;
    `names` is the domain's category -> noun (box_scene.nouns)."""
    min_px = min_visible_px(width, height)
    out = []
    for cat, noun in names.items():
        seen = [t for t in things if t.seen and t.category == cat]
        if sum(t.clear(min_px) for t in seen) < 2:
            continue
        xs = {t.track_id: centre(t.box)[0] for t in seen}
        cams = {t.track_id: math.dist(t.center_world, camera_xyz) for t in seen}
        for key, scores, margin, q in (
                ("leftmost", xs, X_MARGIN * width, f"Where is the leftmost {noun} in this image?"),
                ("rightmost", {k: -v for k, v in xs.items()}, X_MARGIN * width,
                 f"Where is the rightmost {noun} in this image?"),
                ("nearest_camera", cams, DISTANCE_MARGIN_M, f"Where is the {noun} nearest to the camera?")):
            win = _winner(scores, margin)
            if win is not None and _by_id(things, win).clear(min_px):
                out.append((key, q, win))
        for ref in things:
            if ref.category == cat or ref.category not in names or not ref.clear(min_px):
                continue
            twins = [t for t in things if t.seen and t.category == ref.category and head(t) == head(ref)]
            if ref.category == "person" and ref.domain == "W":  # a seated operator in that vest is a worker in it too
                twins += [t for t in things if t.seen and t.category == "forklift" and t.operator_vest == ref.color]
            if len(twins) != 1:
                continue
            d = {t.track_id: math.dist(t.center_world[:2], ref.center_world[:2]) for t in seen}
            win = _winner(d, DISTANCE_MARGIN_M)
            if win is not None and _by_id(things, win).clear(min_px):
                out.append((f"closest_to_{ref.track_id}", f"Where is the {noun} closest to {_noun_phrase(ref)}?", win))
    return out


def _by_id(things: Sequence[Thing], track_id: str) -> Thing:
    return next(t for t in things if t.track_id == track_id)


def _options(answer: Thing, things: Sequence[Thing], width: int, height: int) -> list[tuple[int, int]] | None:
    """The answer's point first, then distractor points (same class first, then others)."""
    min_px = min_visible_px(width, height)
    same = [t for t in things if t.clear(min_px) and t.category == answer.category and t.track_id != answer.track_id]
    other = [t for t in things if t.clear(min_px) and t.category != answer.category]
    pts = [point_1000(answer.box, width, height)]
    for t in same + other:
        p = point_1000(t.box, width, height)
        if all(math.dist(p, q) >= MIN_OPTION_GAP for q in pts):
            pts.append(p)
        if len(pts) == 4:
            return pts
    return None


def _candidates(clip: Clip) -> list[dict]:
    out = []
    for frame in clip.frames:
        media = image_media(clip, frame)
        w, h = media.width, media.height
        things = frame_things(clip, frame)
        cam = [row[3] for row in frame["camera"]["cam_to_world"][:3]]
        for key, q, win in questions(things, cam, w, h, nouns(domain(clip))):
            target = _by_id(things, win)
            pts = _options(target, things, w, h)
            if pts is None:
                continue
            same = sum(1 for t in things if t.category == target.category and t.track_id != win
                       and t.clear(min_visible_px(w, h)))
            out.append({"id": f"{TASK}/{clip.clip_id}/f{frame['frame_number']:04d}-{key}-{target.category}",
                        "clip": clip, "media": media, "question": q, "points": pts, "target": win,
                        "template": key.split("_to_")[0] if key.startswith("closest") else key,
                        "category": target.category, "same": min(same, 3)})
    return out


def items(clips: Sequence[Clip], seed: int = 0) -> list[VantageItem]:
    """Every pointing item of the clips, correct letters balanced over the whole set."""
    cands = sorted((c for clip in clips for c in _candidates(clip)), key=lambda c: c["id"])
    out = []
    for block in range(0, len(cands), 4):
        perm = rng_for("vantage", TASK, seed, "letters", block // 4).permutation(4)
        for j, c in enumerate(cands[block:block + 4]):
            correct = int(perm[j])
            rng = rng_for("vantage", TASK, seed, "order", c["id"])
            wrong = [c["points"][k] for k in 1 + rng.permutation(3)]
            pts = wrong[:correct] + [c["points"][0]] + wrong[correct:]
            texts = tuple(f"{x}, {y}" for x, y in pts)
            opts = "".join(f"{L}. {t}\n" for L, t in zip(LETTERS, texts))
            clip = c["clip"]
            out.append(VantageItem(
                id=c["id"], task=TASK, domain=domain(clip), env=clip.env, media=c["media"],
                prompt=prompt_template(TASK).format(question=c["question"], options=opts),
                answer=ChoiceAnswer(task=TASK, letter=LETTERS[correct], options=texts,
                                    points=tuple((float(x), float(y)) for x, y in pts)),
                tags={"question": c["question"], "template": c["template"], "target": c["target"],
                      "category": c["category"], "same_class_distractors": c["same"],
                      "lighting": clip.spec.lighting.condition}))
    return out


def letter_counts(items_: Sequence[VantageItem]) -> dict[str, int]:
    return {L: sum(1 for it in items_ if it.answer.letter == L) for L in LETTERS}


