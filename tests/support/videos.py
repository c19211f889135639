"""Tiny generated test videos whose frames carry their own index as a barcode (so decoding can be checked)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from niah.video.writer import VideoWriter

BITS = 12
CELL = 24


def barcode_planes(index: int, width: int, height: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y = np.full((height, width), 60, np.uint8)
    for b in range(BITS):
        if index >> b & 1:
            y[0:32, b * CELL:(b + 1) * CELL] = 220
    y[120:160, (index * 3) % (width - 40):(index * 3) % (width - 40) + 40] = 180  # some motion
    u = np.full((height // 2, width // 2), 128, np.uint8)
    return y, u, u


def read_barcode(image) -> int:
    a = np.asarray(image.convert("L"))
    return sum(1 << b for b in range(BITS) if a[16, b * CELL + CELL // 2] > 140)


def barcode_video(path: Path, *, seconds: float = 20, fps: float = 24, keyframe_interval: float = 2,
                  width: int = 320, height: int = 240, preset: str = "ultrafast", bframes: int = 0) -> Path:
    with VideoWriter(path, width, height, fps, keyframe_interval=keyframe_interval, preset=preset,
                     bframes=bframes) as w:
        for i in range(round(seconds * fps)):
            w.write_yuv(*barcode_planes(i, width, height))
    return path
