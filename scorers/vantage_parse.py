"""Read VANTAGE-Bench replies the way the official harness does (vantage_metrics.md §1–7).

One reader per answer form: yes/no (Event Verification), an option letter (Video QA,
Spatial Pointing), boxes (Referring Expressions, Object Localization), one segment
(Temporal Localization), timed captions (Dense Video Captioning) and a per-frame track
(Single Object Tracking). Each returns plain values in the model's own convention (boxes
as 0–1000 numbers, times in seconds); conversion and scoring are the metrics' business.

Hostile replies read as "nothing", never raise and never hang: a non-text reply or one over
`MAX_REPLY_CHARS` reads as None; JSON is decoded with scorers.answers' strict loader (no
NaN/Infinity, no duplicate keys, nesting capped) and never evaluated; every regex is linear;
non-finite numbers are refused; at most `MAX_BOXES` boxes and `MAX_EVENTS` events are kept.
"""
from __future__ import annotations

import math
import re
from typing import Any

from scorers.answers import MAX_REPLY_CHARS, strict_decoder

MAX_BOXES = 1000   # Object Localization crowds reach 100+ boxes (§4); more is spray
MAX_EVENTS = 200   # DVC: 6.9 events per video on average (§6)
MAX_JSON_TRIES = 64

__all__ = ["MAX_BOXES", "MAX_EVENTS", "read_text", "parse_yes_no", "parse_choice", "parse_time",
           "parse_boxes", "parse_segment", "parse_events", "parse_track"]

_YES_NO = re.compile(r"\b(yes|no)\b", re.IGNORECASE)
_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)"
_NUM_RE = re.compile(_NUM)
_BOX_RE = re.compile(r"\[\s*(" + _NUM + r")\s*,\s*(" + _NUM + r")\s*,\s*(" + _NUM + r")\s*,\s*(" + _NUM + r")\s*\]")
_TIME_RE = re.compile(r"^\s*(?:(\d+)\s*:\s*)?(\d+(?:\.\d*)?|\.\d+)\s*s?\s*$")
_FRAME_KEY = re.compile(r"^frame_(\d{1,6})$")
_BOX_KEYS = ("bbox_2d", "bbox", "box")


def read_text(reply: Any) -> str | None:
    """The reply as text, or None when it is not text or longer than the cap."""
    if not isinstance(reply, str) or len(reply) > MAX_REPLY_CHARS:
        return None
    return reply


def _finite(v: Any) -> float | None:
    """A JSON number or numeric string as a finite float, else None (bool is not a number)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, str):
        if not _NUM_RE.fullmatch(v.strip()):
            return None
        v = v.strip()
    if not isinstance(v, (int, float, str)):
        return None
    try:
        f = float(v)
    except (OverflowError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _json_values(text: str) -> list[Any]:
    """Decoded JSON values: the whole text when it is JSON, else each value starting at a
    `[` or `{` that decodes (in order, non-overlapping; after MAX_JSON_TRIES failed starts
    the search stops, so a failing decode, which may scan the rest of the text, is bounded)."""
    dec = strict_decoder(text)
    if dec is None:
        return []
    s = text.strip()
    try:
        return [dec.decode(s)]
    except (ValueError, RecursionError):
        pass
    out: list[Any] = []
    pos, tries = 0, 0
    while tries < MAX_JSON_TRIES:
        starts = [i for i in (s.find("[", pos), s.find("{", pos)) if i != -1]
        if not starts:
            break
        start = min(starts)
        try:
            val, end = dec.raw_decode(s, start)
        except (ValueError, RecursionError):
            tries += 1
            pos = start + 1
            continue
        out.append(val)
        pos = end
    return out


def parse_yes_no(reply: Any) -> str | None:
    """'yes'/'no': the first whole word `yes` or `no` anywhere (harness `_extract_answer`)."""
    text = read_text(reply)
    if text is None:
        return None
    m = _YES_NO.search(text)
    return m.group(1).lower() if m else None


def parse_choice(reply: Any, letters: str = "ABCD") -> str | None:
    """Option letter in the harness order (vantage_vqa.extract_answer): `Answer: X`, then a
    leading `X.`/`X:`/`(X)`, then `answer is|option|choose|select|pick X`, then the last
    standalone letter."""
    text = read_text(reply)
    if text is None:
        return None
    cls = "[" + re.escape(letters) + "]"
    rules = (r"(?i:answer)\s*:\s*\(?(" + cls + r")\b",
             r"^\s*\(?(" + cls + r")\s*(?:[.:)]|$)",
             r"(?i:answer\s+is|option|choose|select|pick)\s*:?\s*\(?(" + cls + r")\b")
    for rule in rules:
        m = re.search(rule, text)
        if m:
            return m.group(1)
    found = re.findall(r"\b(" + cls + r")\b", text)
    return found[-1] if found else None


def parse_time(v: Any) -> float | None:
    """Seconds from a number or `mm:ss.ff` (ff = hundredths, as the harness reads it: 60·mm +
    float('ss.ff')); an optional trailing `s`. None when it is neither or negative."""
    if isinstance(v, str):
        m = _TIME_RE.match(v)
        if not m:
            return None
        t = 60.0 * int(m.group(1) or 0) + float(m.group(2))
    else:
        t = _finite(v)
        if t is None:
            return None
    return t if math.isfinite(t) and t >= 0 else None


def _as_box(v: Any) -> tuple[float, float, float, float] | None:
    if isinstance(v, dict):
        for k in _BOX_KEYS:
            if k in v:
                return _as_box(v[k])
        return None
    if not isinstance(v, list) or len(v) != 4:
        return None
    nums = [_finite(x) for x in v]
    if any(x is None or isinstance(y, str) for x, y in zip(nums, v)):
        return None
    return tuple(nums)  # type: ignore[return-value]


def _collect_boxes(v: Any, out: list, depth: int = 0) -> None:
    """Boxes in a decoded value: a 4-number list, an object with a box key, or lists of them,
    at most 4 levels down (deeper nesting is garbage, not an answer)."""
    if len(out) >= MAX_BOXES or depth > 4:
        return
    b = _as_box(v)
    if b is not None:
        out.append(b)
    elif isinstance(v, list):
        for x in v:
            _collect_boxes(x, out, depth + 1)
    elif isinstance(v, dict):
        for x in v.values():
            if isinstance(x, (list, dict)):
                _collect_boxes(x, out, depth + 1)


def parse_boxes(reply: Any) -> list[tuple[float, float, float, float]]:
    """Every box in the reply, in output order: from its JSON (lists of 4 numbers, objects with
    a `bbox_2d`/`bbox`/`box` key), else every `[a, b, c, d]` in the text. [] when none."""
    text = read_text(reply)
    if text is None:
        return []
    out: list = []
    for v in _json_values(text):
        _collect_boxes(v, out)
    if out:
        return out
    for m in _BOX_RE.finditer(text):
        nums = [_finite(g) for g in m.groups()]
        if all(x is not None for x in nums):
            out.append(tuple(nums))
        if len(out) >= MAX_BOXES:
            break
    return out


def _segment_of(v: Any) -> tuple[float, float] | None:
    if isinstance(v, list) and v:
        return _segment_of(v[0])
    if isinstance(v, dict) and "start" in v and "end" in v:
        s, e = parse_time(v["start"]), parse_time(v["end"])
        if s is not None and e is not None:
            return s, e
    return None


def parse_segment(reply: Any) -> tuple[float, float] | None:
    """(start, end) seconds as written (not yet ordered or clipped): the first JSON object with
    `start` and `end` (the first element of a list), else the first two numbers in the text."""
    text = read_text(reply)
    if text is None:
        return None
    for v in _json_values(text):
        seg = _segment_of(v)
        if seg is not None:
            return seg
    times = re.findall(r"(?:\d+\s*:\s*)?(?:\d+(?:\.\d*)?|\.\d+)", text)
    vals = [t for t in (parse_time(x) for x in times[:2]) if t is not None]
    return (vals[0], vals[1]) if len(vals) == 2 else None


def _event_of(v: Any) -> tuple[float, float, str] | None:
    if not isinstance(v, dict):
        return None
    cap = v.get("caption")
    if not isinstance(cap, str) or not cap.strip():
        return None
    s, e = parse_time(v.get("start")), parse_time(v.get("end"))
    if s is None or e is None:
        return None
    return s, e, cap.strip()


def parse_events(reply: Any) -> list[tuple[float, float, str]] | None:
    """Timed captions {start, end, caption} from the first JSON list holding any (else the first
    object), sorted by start (stable). Events without a caption or times are dropped.
    None = no event could be read at all (the harness then drops the video, §0)."""
    text = read_text(reply)
    if text is None:
        return None
    for v in _json_values(text):
        rows = v if isinstance(v, list) else [v]
        evs = [e for e in (_event_of(x) for x in rows[:MAX_EVENTS]) if e is not None]
        if evs:
            return sorted(evs, key=lambda e: e[0])
    return None


def parse_track(reply: Any, n_frames: int) -> list[tuple[float, float, float, float] | None]:
    """Per-frame boxes for keys `frame_1`…`frame_{n-1}` (index 0, the init frame, stays None);
    null, missing or malformed entries are None. Boxes are as written (0–1000 xyxy)."""
    out: list = [None] * max(0, n_frames)
    text = read_text(reply)
    if text is None:
        return out
    for v in _json_values(text):
        if not isinstance(v, dict):
            continue
        for k, box in v.items():
            m = _FRAME_KEY.match(k)
            if m and 1 <= int(m.group(1)) < n_frames:
                out[int(m.group(1))] = _as_box(box)
        break
    return out
