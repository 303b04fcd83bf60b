"""One rendered clip as an animated GIF for the docs, at the clip's own pace (each frame held
until the next frame's time), optionally with the ground truth drawn on.

    python scripts/clip_gif.py OUT/warehouse_sot <clip_id> docs/img/warehouse_sot_clip.gif \
        [--labels] [--width 320] [--speed 1.0]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from render_farm.clip_figures import ClipFigureError, write_clip_gif


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=Path)
    ap.add_argument("clip_id")
    ap.add_argument("out", type=Path)
    ap.add_argument("--labels", action="store_true", help="draw modal boxes and active events")
    ap.add_argument("--width", type=int, default=None, help="scale frames to this width (px)")
    ap.add_argument("--speed", type=float, default=1.0, help="playback speed (1 = real time)")
    a = ap.parse_args(argv)
    try:
        write_clip_gif(a.run, a.clip_id, a.out, labels=a.labels, width=a.width, speed=a.speed)
    except ClipFigureError as exc:
        print(f"clip_gif: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
