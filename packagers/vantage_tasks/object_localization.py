"""2D Object Localization (Table 5: f(I, Q_c) -> {B_k}; F1@0.5, COCO mAP) from rendered frames.

One item per frame and named category (person, forklift, mobile robot: the categories whose
every instance is an agent with a track; the rack and floor pallets are not): the answer is
the modal pixel box of every clear instance (box_scene: at least `min_visible_px` pixels, at
least half unhidden). A frame is asked about a category only when each of its instances is
either clear or has no pixel at all: an instance in between (a sliver at the frame's edge, a
worker mostly behind a rack) would be a box a careful model may or may not report, and the
harness has no ignore regions, so such a frame-category pair is left out rather than scored
either way. Frames without any instance of the category are left out too (strict and vantage
F1 disagree there: 1 vs 0). Boxes are sorted by (x1, y1), which no metric depends on.

The harness asks for 'person' only (Table 5, §4); the forklift and mobile-robot items are
ours (docs/vantage-deviations.md). The person category is named 'person on foot', since a
seated forklift operator is part of the forklift's object (and box) and has no box of its own;
a carried pallet is its own object, not part of the forklift's box.

The crossroads (T) ask for pedestrians, cars, motorcycles and cyclists (a rider is part of
the motorcycle's or bicycle's object and box, so people on foot are 'pedestrian'); the
entrance (S), the paper's own domain for this task, asks for 'person', the harness's word.
"""
from __future__ import annotations

from typing import Sequence

from formats.vantage_item import BoxesAnswer, VantageItem
from packagers.vantage_tasks.box_scene import (Clip, domain, frame_things, image_media, min_visible_px, nouns,
                                               prompt_template)

TASK = "object_localization"
CATEGORY_WORDS = {"person": "person on foot", "forklift": "forklift", "amr": "mobile robot"}
CATEGORY_WORDS_BY_DOMAIN = {"W": CATEGORY_WORDS,
                            "T": {"person": "pedestrian", "car": "car", "motorcycle": "motorcycle",
                                  "bicycle": "cyclist"},
                            "S": {"person": "person"}}
assert all(set(CATEGORY_WORDS_BY_DOMAIN[d]) == set(nouns(d)) for d in CATEGORY_WORDS_BY_DOMAIN)


def frame_boxes(things, category: str, min_px: int) -> list | None:
    """The clear instances' boxes, or None when an instance is neither clear nor absent."""
    mine = [t for t in things if t.category == category and t.seen]
    if any(not t.clear(min_px) for t in mine):
        return None
    return sorted((t.box for t in mine), key=lambda b: (b[0], b[1]))


def items_for_clip(clip: Clip, frame_indices: Sequence[int] | None = None) -> list[VantageItem]:
    out = []
    frames = clip.frames if frame_indices is None else [clip.frames[i] for i in frame_indices]
    for frame in frames:
        media = image_media(clip, frame)
        min_px = min_visible_px(media.width, media.height)
        things = frame_things(clip, frame)
        for cat, word in CATEGORY_WORDS_BY_DOMAIN[domain(clip)].items():
            boxes = frame_boxes(things, cat, min_px)
            if not boxes:
                continue
            out.append(VantageItem(
                id=f"{TASK}/{clip.clip_id}/f{frame['frame_number']:04d}-{cat}", task=TASK, domain=domain(clip),
                env=clip.env, media=media, prompt=prompt_template(TASK).format(category=word),
                answer=BoxesAnswer(task=TASK, boxes=boxes, category=cat),
                tags={"category": cat, "n_boxes": len(boxes), "min_visible_px": min_px,
                      "lighting": clip.spec.lighting.condition}))
    return out


def items(clips: Sequence[Clip]) -> list[VantageItem]:
    return [it for c in clips for it in items_for_clip(c)]
