"""Deterministic mp4 of a clip's rendered frames (PyAV, libx264 with fixed settings).

Each frame's presentation time is its frame number in the nominal stream (time base
1/fps), so a decoder sees the sampled frames at their true times t. One encoder thread,
no B-frames and a fixed CRF/preset make the bytes a function of the frames alone; the
muxer is told to write no creation time or library version (bitexact).

The RGB -> yuv420p conversion is done here in integers, not by swscale inside PyAV: identical
frames once encoded to other bytes late in a long, loaded process (docs/testing.md, "mp4 bytes"),
and a conversion whose every output byte is a function of the input pixels takes that step out of
the question. The frames handed to x264 are already in its pixel format, so nothing reformats them.
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


def rgb_to_yuv420p(img: np.ndarray) -> np.ndarray:
    """(H * 3 / 2, W) uint8 planar yuv420p (Y, then U, then V) of an (H, W, 3) uint8 RGB image with
    even H and W: BT.601 limited range in the usual 8-bit integer form (16..235 luma, 16..240
    chroma, what an untagged stream's decoder assumes), chroma the rounded mean of each 2 x 2 block."""
    h, w = img.shape[:2]
    if img.dtype != np.uint8 or img.ndim != 3 or img.shape[2] != 3 or h % 2 or w % 2:
        raise ValueError(f"need an (even H, even W, 3) uint8 image, got {img.shape} {img.dtype}")
    r, g, b = (img[..., k].astype(np.int32) for k in range(3))
    y = ((66 * r + 129 * g + 25 * b + 128) >> 8) + 16
    u = ((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128
    v = ((112 * r - 94 * g - 18 * b + 128) >> 8) + 128

    def half(c: np.ndarray) -> np.ndarray:
        return (c[0::2, 0::2] + c[1::2, 0::2] + c[0::2, 1::2] + c[1::2, 1::2] + 2) >> 2

    planes = [y.reshape(-1), half(u).reshape(-1), half(v).reshape(-1)]
    return np.concatenate(planes).astype(np.uint8).reshape(h * 3 // 2, w)


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
            vf = av.VideoFrame.from_ndarray(rgb_to_yuv420p(img), format=PIX_FMT)
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
