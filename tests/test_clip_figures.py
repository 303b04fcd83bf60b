"""The clip GIF and the drawn ground truth (render_farm.clip_figures, scripts/clip_gif.py,
scripts/clip_sheet.py) on a hand-made run directory: frame holds pinned to the frame times,
boxes drawn on the outer edge of their pixels, the event banner by time, and hostile input
(unknown clip, a frame path leaving the run directory) refused with one line."""
from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from render_farm.clip_figures import ClipFigureError, clip_gif, delays_cs, write_clip_gif

ROOT = Path(__file__).resolve().parents[1]
GREY = 128
TIMES = [0.0, 14 / 30, 15 / 30, 28 / 30]     # warehouse_sot's first frames: 0, 14, 15, 28 at 30 fps


def _run_dir(tmp_path: Path, image_paths=None) -> Path:
    run = tmp_path / "run"
    (run / "frames").mkdir(parents=True)
    (run / "clips").mkdir()
    frames = []
    for i, t in enumerate(TIMES):
        rel = image_paths[i] if image_paths else f"frames/f{i}.png"
        if not image_paths:
            a = np.full((48, 96, 3), GREY, np.uint8)
            a[-1, -1] = 40 * i          # frames differ (a GIF writer merges identical neighbours)
            Image.fromarray(a).save(run / rel)
        frames.append({"frame_number": round(t * 30), "t": t, "image": rel,
                       "objects": [{"box_xyxy": [20, 20, 30, 35], "category": "person"},
                                   {"box_xyxy": None, "category": "forklift"}]})
    clip = {"clip_id": "c0", "frames": frames, "events": [{"type": "fall", "t_start": 0.49, "t_end": 0.6}]}
    (run / "clips" / "c0.json").write_text(json.dumps(clip))
    (run / "clips.jsonl").write_text(json.dumps({"clip_id": "c0", "path": "clips/c0.json"}) + "\n")
    return run


def _frames(gif: bytes) -> list[tuple[np.ndarray, int]]:
    im = Image.open(io.BytesIO(gif))
    out = []
    for k in range(im.n_frames):
        im.seek(k)
        out.append((np.asarray(im.convert("RGB")).astype(int), im.info["duration"]))
    return out


def test_delays_hold_each_frame_until_the_next_frames_time():
    # gaps 0.4667, 0.0333, 0.4333 s; the last holds the mean gap 0.3111 s
    assert delays_cs(TIMES) == [47, 3, 43, 31]
    assert delays_cs(TIMES, speed=2.0) == [23, 2, 22, 16]        # 1.67 cs rounds to 2, the floor
    assert delays_cs(TIMES, speed=0.5) == [93, 7, 87, 62]
    assert delays_cs([5.0]) == [100]
    assert delays_cs([0.0, 0.001]) == [2, 2]                     # below the 2 cs browsers honour
    for bad in ([], [0.0, 0.0], [1.0, 0.5]):
        with pytest.raises(ClipFigureError):
            delays_cs(bad)


def test_gif_frames_delays_and_labels(tmp_path):
    run = _run_dir(tmp_path)
    plain, labelled = _frames(clip_gif(run, "c0")), _frames(clip_gif(run, "c0", labels=True))
    assert [d for _, d in plain] == [470, 30, 430, 310] == [d for _, d in labelled]
    assert all((a[:-1] == GREY).all() for a, _ in plain)
    a = labelled[0][0]
    red = (a[..., 0] > 200) & (a[..., 1] < 100)
    # box [20, 20, 30, 35] of extreme pixels: the outline is the ring of pixels just outside it
    ys, xs = np.nonzero(red)
    assert (xs.min(), ys.min(), xs.max(), ys.max()) == (19, 19, 31, 36)
    assert (a[20:36, 20:31] == GREY).all()                       # the box's own pixels untouched
    # the banner: "t=0.00s " (52 px) on frame 0, "t=0.50s fall" (76 px) on frame 2 (fall from 0.49 s)
    assert (a[5, 60] == GREY).all() and (a[5, 40] < 40).all()
    f2 = labelled[2][0]
    assert (f2[5, 70] < 40).all() and (f2[5, 80] == GREY).all()
    assert (labelled[1][0][5, 60] == GREY).all()                 # t = 0.4667: before the fall


def test_gif_width_speed_and_same_bytes(tmp_path):
    run = _run_dir(tmp_path)
    gif = clip_gif(run, "c0", width=32, speed=2.0)
    assert Image.open(io.BytesIO(gif)).size == (32, 16)
    assert [d for _, d in _frames(gif)] == [230, 20, 220, 160]
    assert gif == clip_gif(run, "c0", width=32, speed=2.0)
    for kw in ({"width": 8}, {"width": 5000}, {"speed": 0.0}, {"speed": 100.0}):
        with pytest.raises(ClipFigureError):
            clip_gif(run, "c0", **kw)


def test_refuses_unknown_clips_and_paths_outside_the_run(tmp_path):
    run = _run_dir(tmp_path)
    with pytest.raises(ClipFigureError, match="no clip 'nope'.*c0"):
        clip_gif(run, "nope")
    (tmp_path / "secret.png").write_bytes(b"x")
    escaping = _run_dir(tmp_path / "b", image_paths=["../../secret.png"] * 4)
    with pytest.raises(ClipFigureError, match="outside the run directory"):
        clip_gif(escaping, "c0")
    with pytest.raises(ClipFigureError, match="cannot read the clips"):
        clip_gif(tmp_path / "missing", "c0")


def test_scripts_exit_2_with_one_line_and_write_nothing(tmp_path):
    run = _run_dir(tmp_path)
    out = tmp_path / "o.gif"
    r = subprocess.run([sys.executable, str(ROOT / "scripts/clip_gif.py"), str(run), "nope", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("clip_gif: no clip")
    assert not out.exists()
    r = subprocess.run([sys.executable, str(ROOT / "scripts/clip_gif.py"), str(run), "c0", str(out), "--labels"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and len(_frames(out.read_bytes())) == 4
    sheet, labels = tmp_path / "s.jpg", tmp_path / "l.jpg"
    r = subprocess.run([sys.executable, str(ROOT / "scripts/clip_sheet.py"), str(run), str(sheet), str(labels)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and Image.open(sheet).size == (192, 48) == Image.open(labels).size
    r = subprocess.run([sys.executable, str(ROOT / "scripts/clip_sheet.py"), str(tmp_path / "x"), str(sheet),
                        str(labels)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1


def test_write_is_atomic_on_failure(tmp_path):
    run = _run_dir(tmp_path)
    out = tmp_path / "o.gif"
    out.write_bytes(b"old")
    with pytest.raises(ClipFigureError):
        write_clip_gif(run, "nope", out)
    assert out.read_bytes() == b"old" and list(tmp_path.glob(".o.gif*")) == []
