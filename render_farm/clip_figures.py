"""Pictures of a rendered clip for people to look at: the ground truth drawn on a frame, and
the clip as an animated GIF that plays at the clip's own pace.

A clip's frames are not evenly spaced in time (warehouse_sot shows frames 0, 14, 15, 28, 30, ...
of a 30 fps stream), so each GIF frame is held until the next frame's time: the GIF shows the
motion at real speed (or `speed` times it), not one frame per tick. GIF delays are whole
centiseconds; each delay is the rounded interval, at least 2 cs (browsers raise shorter delays).
Reads only files inside the run directory.
"""
from __future__ import annotations

import io
import json
from pathlib import Path

from PIL import Image, ImageDraw

from formats import atomic

COLOURS = {"person": (255, 60, 60), "forklift": (255, 200, 0), "amr": (0, 200, 255), "pallet": (160, 255, 120),
           "car": (0, 200, 255), "motorcycle": (255, 200, 0), "bicycle": (160, 255, 120)}   # intersection
OTHER = (255, 255, 255)
MIN_DELAY_CS = 2


class ClipFigureError(ValueError):
    """A run directory, clip or frame that cannot be drawn (one line for the user)."""


def inside(run: Path, rel: str) -> Path:
    """`run / rel`, refusing a path that leaves the run directory."""
    root = run.resolve()
    path = (root / rel).resolve()
    if not path.is_relative_to(root):
        raise ClipFigureError(f"{rel!r} is outside the run directory {run}")
    return path


def read_clips(run: Path) -> list[dict]:
    """Every clip document listed in `run/clips.jsonl`, in its order."""
    try:
        lines = inside(run, "clips.jsonl").read_text(encoding="utf-8").splitlines()
        return [json.loads(inside(run, json.loads(line)["path"]).read_text(encoding="utf-8")) for line in lines]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ClipFigureError(f"cannot read the clips of {run}: {exc}") from exc


def find_clip(run: Path, clip_id: str) -> dict:
    clips = read_clips(run)
    for clip in clips:
        if clip.get("clip_id") == clip_id:
            return clip
    known = ", ".join(str(c.get("clip_id")) for c in clips[:5]) or "none"
    raise ClipFigureError(f"no clip {clip_id!r} in {run} (clips: {known}{', ...' if len(clips) > 5 else ''})")


def frame_image(run: Path, frame: dict) -> Image.Image:
    try:
        return Image.open(io.BytesIO(inside(run, frame["image"]).read_bytes())).convert("RGB")
    except (OSError, KeyError, TypeError) as exc:
        raise ClipFigureError(f"cannot read frame {frame.get('frame_number')}: {exc}") from exc


def draw_labels(im: Image.Image, clip: dict, frame: dict) -> Image.Image:
    """The frame with its modal boxes (by category) and the events active at its time, in place."""
    d = ImageDraw.Draw(im)
    for o in frame["objects"]:
        b = o["box_xyxy"]
        if b is not None:   # boxes hold the extreme pixels: the outline is the ring just outside them
            d.rectangle([round(b[0]) - 1, round(b[1]) - 1, round(b[2]) + 1, round(b[3]) + 1],
                        outline=COLOURS.get(o.get("category", ""), OTHER))
    active = [e for e in clip["events"] if e["t_start"] <= frame["t"] <= e["t_end"]]
    text = f"t={frame['t']:.2f}s " + ", ".join(e["type"] for e in active)
    d.rectangle([0, 0, 6 * len(text) + 4, 11], fill=(0, 0, 0))
    d.text((2, 0), text, fill=(255, 255, 255))
    return im


def delays_cs(times: list[float], speed: float = 1.0) -> list[int]:
    """Each frame's hold in centiseconds: until the next frame's time; the last one holds as long
    as the mean interval (one frame: 1 s)."""
    if not times:
        raise ClipFigureError("a clip without frames")
    gaps = [b - a for a, b in zip(times, times[1:])]
    if any(g <= 0 for g in gaps):
        raise ClipFigureError("frame times are not increasing")
    gaps.append(sum(gaps) / len(gaps) if gaps else 1.0)
    return [max(MIN_DELAY_CS, round(100 * g / speed)) for g in gaps]


def clip_gif(run: Path, clip_id: str, labels: bool = False, width: int | None = None,
             speed: float = 1.0) -> bytes:
    """The clip as an endlessly looping GIF (frames scaled to `width` px if given)."""
    if not 0.05 <= speed <= 20:
        raise ClipFigureError(f"speed {speed} is outside 0.05-20")
    if width is not None and not 16 <= width <= 2048:
        raise ClipFigureError(f"width {width} is outside 16-2048 px")
    clip = find_clip(run, clip_id)
    frames = clip.get("frames") or []
    images = []
    for f in frames:
        im = frame_image(run, f)
        if labels:
            draw_labels(im, clip, f)
        if width is not None:
            im = im.resize((width, round(im.height * width / im.width)), Image.LANCZOS)
        images.append(im)
    delays = delays_cs([float(f["t"]) for f in frames], speed)
    buf = io.BytesIO()
    images[0].save(buf, format="GIF", save_all=True, append_images=images[1:],
                   duration=[10 * d for d in delays], loop=0, disposal=1)
    return buf.getvalue()


def write_clip_gif(run: Path, clip_id: str, out: Path, **kw) -> None:
    atomic.write_bytes(out, clip_gif(run, clip_id, **kw))
