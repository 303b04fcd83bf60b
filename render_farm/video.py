"""Deterministic mp4 of a clip's rendered frames (PyAV, libx264 with fixed settings).

Each frame's presentation time is its frame number in the nominal stream (time base
1/fps), so a decoder sees the sampled frames at their true times t. One encoder thread,
no B-frames and a fixed CRF/preset make the bytes a function of the frames alone; the
muxer is told to write no creation time or library version (bitexact).
"""
from __future__ import annotations

import io
from fractions import Fraction

import av
import numpy as np

CODEC = "libx264"
PIX_FMT = "yuv420p"
CODEC_OPTIONS = {"crf": "18", "preset": "medium", "bf": "0", "g": "32", "threads": "1"}
AV_VERSION = av.__version__


def encode_mp4(frames: list[np.ndarray], frame_numbers: list[int], fps: int) -> bytes:
    """mp4 bytes of (H, W, 3) uint8 frames shown at frame_numbers / fps; an odd width or
    height is padded by one edge row/column (yuv420p needs even sizes)."""
    if not frames or len(frames) != len(frame_numbers):
        raise ValueError("need one frame number per frame, and at least one frame")
    h, w = frames[0].shape[:2]
    buf = io.BytesIO()
    with av.open(buf, mode="w", format="mp4", options={"fflags": "+bitexact"}) as out:
        stream = out.add_stream(CODEC, rate=fps, options={**CODEC_OPTIONS, "flags": "+bitexact"})
        stream.width, stream.height = w + w % 2, h + h % 2
        stream.pix_fmt = PIX_FMT
        stream.time_base = Fraction(1, fps)
        for img, n in zip(frames, frame_numbers):
            img = np.pad(img, ((0, h % 2), (0, w % 2), (0, 0)), mode="edge")
            vf = av.VideoFrame.from_ndarray(np.ascontiguousarray(img), format="rgb24")
            vf.pts = int(n)
            vf.time_base = Fraction(1, fps)
            for packet in stream.encode(vf):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    return buf.getvalue()


def decode_mp4(data: bytes) -> list[tuple[float, np.ndarray]]:
    """(time in seconds, RGB frame) of every frame of an mp4, in presentation order."""
    out = []
    with av.open(io.BytesIO(data)) as c:
        for f in c.decode(video=0):
            out.append((float(f.time), f.to_ndarray(format="rgb24")))
    return out
