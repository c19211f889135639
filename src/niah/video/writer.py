"""Write H.264 MP4 files with PyAV (libx264 bundled in its wheels): fixed frame rate, fixed keyframe interval."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np


class VideoWriter:
    """Frames in, an MP4 out. Deterministic: same frames and settings give the same bytes.

    ``keyframe_interval`` is in seconds (a GOP of round(fps * interval) frames, scene-cut keyframes off so the
    layout does not depend on content). Frames are RGB uint8 arrays (H, W, 3) or PIL images, or planar
    YUV 4:2:0 through :meth:`write_yuv` (cheapest for generated content).
    """

    def __init__(self, path: str | Path, width: int, height: int, fps: float = 24.0, *,
                 keyframe_interval: float = 4.0, preset: str = "ultrafast", crf: int = 23,
                 bframes: int = 0) -> None:
        import av

        if width % 2 or height % 2:
            raise ValueError("H.264 4:2:0 needs even width and height")
        self.path = Path(path)
        self.width, self.height = width, height
        self.rate = Fraction(fps).limit_denominator(1001)
        self._container: Any = av.open(str(self.path), mode="w", format="mp4")
        stream = self._container.add_stream("libx264", rate=self.rate)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        gop = max(1, round(float(self.rate) * keyframe_interval))
        # threads=1 and no scene cut keep the output byte-identical across machines and runs.
        stream.options = {"preset": preset, "crf": str(crf), "g": str(gop), "keyint_min": str(gop),
                          "sc_threshold": "0", "threads": "1", "bf": str(bframes)}
        stream.codec_context.time_base = 1 / self.rate
        self._stream = stream
        self.frames = 0

    def _mux(self, frame: Any) -> None:
        frame.pts = self.frames
        frame.time_base = 1 / self.rate
        for packet in self._stream.encode(frame):
            self._container.mux(packet)
        self.frames += 1

    def write_rgb(self, image: Any) -> None:
        import av

        arr = np.asarray(image.convert("RGB")) if hasattr(image, "convert") else np.asarray(image)
        if arr.shape != (self.height, self.width, 3) or arr.dtype != np.uint8:
            raise ValueError(f"frame must be uint8 {self.height}x{self.width}x3, got {arr.dtype} {arr.shape}")
        self._mux(av.VideoFrame.from_ndarray(arr, format="rgb24").reformat(format="yuv420p"))

    def write_yuv(self, y: np.ndarray, u: np.ndarray, v: np.ndarray) -> None:
        import av

        h, w = self.height, self.width
        if y.shape != (h, w) or u.shape != (h // 2, w // 2) or v.shape != (h // 2, w // 2):
            raise ValueError("planes must be (H, W), (H/2, W/2), (H/2, W/2)")
        self._mux(av.VideoFrame.from_ndarray(np.concatenate([y, u.reshape(-1, w), v.reshape(-1, w)]),
                                             format="yuv420p"))

    def close(self) -> None:
        if self._container is None:
            return
        for packet in self._stream.encode():
            self._container.mux(packet)
        self._container.close()
        self._container = None

    @property
    def duration(self) -> float:
        return self.frames / float(self.rate)

    def __enter__(self) -> VideoWriter:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc_type is not None and self._container is not None:
            try:
                self._container.close()
            finally:
                self._container = None
                self.path.unlink(missing_ok=True)
            return
        self.close()
