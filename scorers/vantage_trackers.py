"""SOT baselines of VANTAGE-Bench (Table 9's floors, and a classical specialist stand-in).

* `static_track`: the init box repeated on every frame (the paper's "static box" floor): its
  vantage-mode freeze rate is 1 whenever the target stays in view, and its AUC falls as the
  target moves away from where it started;
* `random_track`: a box of the init box's size at a uniformly random position inside the
  frame, drawn per frame from a seed hashed with the item id (the "random" floor: AUC a little
  above 1/21 in vantage mode, where IoU >= 0 always counts);
* `opencv_track`: OpenCV's CSRT or KCF tracker (opencv-contrib) initialised with the init box on
  frame 0 and updated over the shown frames in order; a frame it reports lost is None. The
  paper did not run classical trackers (D.3: bounded by the modern ones and the floors); the
  issue asks for one as the specialist stand-in, since SAM 3 / SAMURAI need model weights.

Tracks are 0–1000 xyxy per shown frame, index 0 the init box (as TrackAnswer.boxes);
`track_reply` writes one as the JSON reply a model would give, so baselines go through the
same reader and grader as models.
"""
from __future__ import annotations

import json
from typing import Sequence

import numpy as np

from formats.vantage_item import VantageItem
from scorers.vantage_uncertainty import cell_seed

TRACKERS = ("CSRT", "KCF")


class TrackerUnavailable(RuntimeError):
    """OpenCV lacks the tracker (opencv-python-headless without the contrib modules)."""


def _check(item: VantageItem) -> None:
    if item.task != "single_object_tracking":
        raise ValueError(f"{item.id}: trackers run on single_object_tracking items, not {item.task}")


def static_track(item: VantageItem) -> list:
    _check(item)
    b = tuple(item.answer.init_box)
    return [b] * len(item.media.frame_numbers)


def random_track(item: VantageItem, seed: int = 0) -> list:
    _check(item)
    x1, y1, x2, y2 = item.answer.init_box
    w, h = x2 - x1, y2 - y1
    rng = np.random.default_rng(cell_seed("vantage", "sot_random_box", str(seed), item.id))
    out = [tuple(item.answer.init_box)]
    for _ in item.media.frame_numbers[1:]:
        x, y = rng.uniform(0.0, 1000.0 - w), rng.uniform(0.0, 1000.0 - h)
        out.append((float(x), float(y), float(x + w), float(y + h)))
    return out


def _create(kind: str):
    import cv2

    name = f"Tracker{kind}_create"
    factory = getattr(cv2, name, None)
    if kind not in TRACKERS or factory is None:
        raise TrackerUnavailable(f"OpenCV {cv2.__version__} has no {name} (install opencv-contrib-python-headless)")
    return factory()


def opencv_track(item: VantageItem, frames: Sequence[np.ndarray], kind: str = "CSRT") -> list:
    """The tracker's boxes over `frames` (RGB arrays, one per shown frame, frame 0 first)."""
    import cv2

    _check(item)
    if len(frames) != len(item.media.frame_numbers):
        raise ValueError(f"{item.id}: {len(frames)} frames for {len(item.media.frame_numbers)} shown")
    hh, ww = frames[0].shape[:2]
    sx, sy = ww / 1000.0, hh / 1000.0
    x1, y1, x2, y2 = item.answer.init_box
    rect = (int(round(x1 * sx)), int(round(y1 * sy)), max(1, int(round((x2 - x1) * sx))),
            max(1, int(round((y2 - y1) * sy))))
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)               # one thread: the same boxes on every run
    try:
        tracker = _create(kind)
        out: list = [tuple(item.answer.init_box)]
        try:
            tracker.init(np.ascontiguousarray(frames[0][..., ::-1]), rect)
        except cv2.error:
            return out + [None] * (len(frames) - 1)   # the tracker refuses this box: nothing tracked
        for f in frames[1:]:
            try:
                ok, r = tracker.update(np.ascontiguousarray(f[..., ::-1]))
            except cv2.error:
                ok = False
            if not ok:
                out.append(None)
                continue
            bx, by, bw, bh = (float(v) for v in r)
            box = (max(0.0, bx / sx), max(0.0, by / sy), min(1000.0, (bx + bw) / sx), min(1000.0, (by + bh) / sy))
            out.append(tuple(round(v, 2) for v in box) if box[2] > box[0] and box[3] > box[1] else None)
        return out
    finally:
        cv2.setNumThreads(threads)


BASELINES = ("static", "random", *TRACKERS)


def baseline_track(name: str, item: VantageItem, frames: Sequence[np.ndarray] | None = None, seed: int = 0) -> list:
    """The track of baseline `name` (static, random, CSRT, KCF); the OpenCV ones need the frames."""
    if name == "static":
        return static_track(item)
    if name == "random":
        return random_track(item, seed)
    if name not in TRACKERS:
        raise ValueError(f"unknown SOT baseline {name!r}; known: {', '.join(BASELINES)}")
    if frames is None:
        raise ValueError(f"the {name} tracker runs over the shown frames: pass them")
    return opencv_track(item, frames, name)


def track_reply(track: Sequence) -> str:
    """The track as the JSON reply the SOT prompt asks for (frames 1..n-1)."""
    return json.dumps({f"frame_{k}": (None if b is None else [float(x) for x in b])
                       for k, b in enumerate(track) if k >= 1})
