"""Procedural video haystacks with needles: generated locally (no download), deterministic by seed.

A haystack is a run of scenes. Each scene is a painted photo-like panorama (niah's procedural painter:
landscapes, skies, skylines, fields, still lifes, bokeh) seen through a slowly panning camera, with a few shaded
objects drifting across it, so consecutive frames differ the way footage does. Scene lengths, kinds, pans and
objects are all drawn from the seed: same seed, same frames, and (libx264 on one thread, no scene-cut
keyframes) the same MP4 bytes.

Needles are placed at a depth: the needle's first frame is frame round(depth * (N - n)) of the N frames, for a
needle n frames long, so depth 0 is the first frame and depth 1 ends on the last. Placing a needle replaces
frames (the video's length never changes):
- ``OverlayNeedle``: a text caption drawn over the scene for a span of frames ("The secret word is ...");
- ``ImageNeedle``: any PIL image shown full-frame (letterboxed) for a span of frames;
- ``ClipNeedle``: a short clip (a list of images, one per frame) shown frame for frame.
``SubtitleNeedle`` adds a cue to an SRT file written next to the video (with optional filler cues).

The frames can also come from a user's video (``VideoSource``): it is sampled at the haystack's fps and
re-encoded with the needles in place.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import math
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from niah.util.errors import ConfigError
from niah.util.iox import write_atomic
from niah.video.writer import VideoWriter

SCENE_KINDS = ("landscape", "sky", "skyline", "fields", "still_life", "bokeh")


# ---------------------------------------------------------------------------------------------------------------
# Frame sources


class FrameSource(Protocol):
    width: int
    height: int
    fps: float
    num_frames: int

    def frames(self) -> Iterator[Image.Image]: ...


@dataclass(frozen=True, slots=True)
class _Scene:
    first: int  # first frame index
    length: int  # frames
    kind: str
    seed: int
    pan: float  # panorama pixels moved per frame (signed)
    objects: tuple[tuple[float, float, float, float, int, tuple[int, int, int], str], ...]  # x, y, vx, vy, r, rgb, shape


class ProceduralScenes:
    """Generated footage: ``duration`` seconds at ``fps``; scenes last ``scene_seconds`` (min, max)."""

    def __init__(self, duration: float, *, fps: float = 1.0, width: int = 640, height: int = 360, seed: int = 0,
                 scene_seconds: tuple[float, float] = (8.0, 30.0)) -> None:
        if duration <= 0 or fps <= 0:
            raise ConfigError("haystack duration and fps must be > 0")
        if width % 2 or height % 2 or width < 64 or height < 64:
            raise ConfigError("haystack width and height must be even and >= 64")
        self.width, self.height, self.fps, self.seed = width, height, fps, seed
        self.num_frames = max(1, round(duration * fps))
        self.scenes = self._plan(scene_seconds)

    def _plan(self, scene_seconds: tuple[float, float]) -> list[_Scene]:
        rng = np.random.default_rng([self.seed, 7919])
        lo = max(1, round(scene_seconds[0] * self.fps))
        hi = max(lo, round(scene_seconds[1] * self.fps))
        scenes, first = [], 0
        while first < self.num_frames:
            length = min(int(rng.integers(lo, hi + 1)), self.num_frames - first)
            kind = SCENE_KINDS[int(rng.integers(len(SCENE_KINDS)))]
            # The camera crosses at most the extra half-width of the panorama over the scene.
            pan = float(rng.uniform(0.2, 1.0)) * (self.width / 2) / max(1, length) * (1 if rng.random() < 0.5 else -1)
            objects = []
            for _ in range(int(rng.integers(1, 5))):
                r = int(rng.integers(self.height // 20, self.height // 7))
                speed = float(rng.uniform(0.02, 0.12)) * self.width / self.fps / 4
                angle = float(rng.uniform(0, 2 * math.pi))
                colour = tuple(int(c) for c in rng.integers(30, 240, 3))
                objects.append((float(rng.uniform(r, self.width - r)), float(rng.uniform(r, self.height - r)),
                                speed * math.cos(angle), speed * math.sin(angle), r, colour,
                                "disc" if rng.random() < 0.6 else "box"))
            scenes.append(_Scene(first, length, kind, int(rng.integers(2**31)), pan, tuple(objects)))  # type: ignore[arg-type]
            first += length
        return scenes

    def _panorama(self, scene: _Scene) -> Image.Image:
        from niah.corpus._painter import paint

        return paint(scene.kind, scene.seed, self.width * 3 // 2, self.height)

    def _draw(self, scene: _Scene, pano: Image.Image, k: float) -> Image.Image:
        """The scene's view ``k`` frames (any real number) after its first: the pan and the objects move on."""
        extra = pano.width - self.width
        start = extra if scene.pan < 0 else 0
        x0 = int(round(min(extra, max(0, start + scene.pan * k))))
        frame = pano.crop((x0, 0, x0 + self.width, self.height))
        draw = ImageDraw.Draw(frame)
        for x, y, vx, vy, r, colour, shape in scene.objects:
            cx = _bounce(x + vx * k, r, self.width - r)
            cy = _bounce(y + vy * k, r, self.height - r)
            box = (cx - r, cy - r, cx + r, cy + r)
            shade = tuple(max(0, c - 60) for c in colour)
            if shape == "disc":
                draw.ellipse(box, fill=colour, outline=shade, width=max(1, r // 8))
            else:
                draw.rectangle(box, fill=colour, outline=shade, width=max(1, r // 8))
        return frame

    def frames(self) -> Iterator[Image.Image]:
        for scene in self.scenes:
            pano = self._panorama(scene)
            for k in range(scene.length):
                yield self._draw(scene, pano, k)

    def frames_at(self, times: Sequence[float]) -> Iterator[Image.Image]:
        """The footage at the given times (seconds, increasing): the frames a uniform sampling of the whole
        video sees, rendered directly (a 1-hour haystack sampled to 64 frames paints at most 64 panoramas,
        never the 3,600 frames in between). A time on a frame boundary shows that frame exactly."""
        firsts = [sc.first for sc in self.scenes]
        cached: tuple[int, Image.Image] | None = None
        for t in times:
            position = min(max(0.0, t * self.fps), self.num_frames - 1e-9)
            index = max(0, bisect.bisect_right(firsts, math.floor(position + 1e-9)) - 1)
            scene = self.scenes[index]
            if cached is None or cached[0] != index:
                cached = (index, self._panorama(scene))
            yield self._draw(scene, cached[1], position - scene.first)


def _bounce(v: float, lo: float, hi: float) -> float:
    """Reflect a coordinate moving freely into [lo, hi] (objects bounce off the frame edges)."""
    span = hi - lo
    if span <= 0:
        return lo
    t = (v - lo) % (2 * span)
    return lo + (t if t <= span else 2 * span - t)


class VideoSource:
    """A user's video sampled at ``fps`` (frames resized to ``width`` x ``height``) as a haystack."""

    def __init__(self, path: str | Path, *, fps: float = 1.0, duration: float | None = None,
                 width: int | None = None, height: int | None = None) -> None:
        from niah.video.frames import probe

        info = probe(path)
        self.path = Path(path)
        self.fps = fps
        self.duration = min(info.duration, duration) if duration else info.duration
        self.num_frames = max(1, math.floor(self.duration * fps + 1e-9))
        w = width or info.width
        h = height or round(info.height * w / info.width)
        self.width, self.height = w - w % 2, h - h % 2
        self._start = info.start_time

    def frames(self) -> Iterator[Image.Image]:
        yield from self.frames_at([k / self.fps for k in range(self.num_frames)])

    def frames_at(self, times: Sequence[float]) -> Iterator[Image.Image]:
        """The frames on screen at the given times (seconds from the video's start), at the haystack size."""
        from niah.video.frames import iter_frames_at

        for fr in iter_frames_at(self.path, [self._start + t for t in times]):
            assert fr.image is not None
            yield fr.image if fr.image.size == (self.width, self.height) else \
                fr.image.resize((self.width, self.height), Image.Resampling.BILINEAR)


# ---------------------------------------------------------------------------------------------------------------
# Needles


@dataclass(frozen=True)
class OverlayNeedle:
    text: str
    depth: float
    seconds: float = 3.0
    position: str = "bottom"  # bottom | top | middle

    def render(self, frame: Image.Image) -> Image.Image:
        return render_caption(frame, self.text, self.position)


@dataclass(frozen=True)
class ImageNeedle:
    image: Image.Image
    depth: float
    seconds: float = 3.0
    label: str = "image"

    def render(self, frame: Image.Image) -> Image.Image:
        return letterbox(self.image, frame.size)


@dataclass(frozen=True)
class ClipNeedle:
    clip: Sequence[Image.Image]  # one image per haystack frame
    depth: float
    label: str = "clip"


@dataclass(frozen=True)
class SubtitleNeedle:
    text: str
    depth: float
    seconds: float = 3.0


Needle = OverlayNeedle | ImageNeedle | ClipNeedle | SubtitleNeedle


@dataclass(frozen=True, slots=True)
class PlacedNeedle:
    """Where a needle ended up. ``time`` is a frame time inside the span (decode it to see the needle)."""

    kind: str
    label: str
    depth: float
    first_frame: int
    num_frames: int
    start: float  # seconds: the first needle frame's presentation time
    end: float  # seconds: when the needle leaves the screen
    time: float  # seconds: the presentation time of the span's middle frame

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "label": self.label, "depth": self.depth, "first_frame": self.first_frame,
                "num_frames": self.num_frames, "start": self.start, "end": self.end, "time": self.time}


@dataclass(frozen=True, slots=True)
class Haystack:
    path: Path
    subtitles: Path | None
    fps: float
    num_frames: int
    width: int
    height: int
    needles: list[PlacedNeedle] = field(default_factory=list)
    build_seconds: float = 0.0

    @property
    def duration(self) -> float:
        return self.num_frames / self.fps

    @property
    def needle_times(self) -> list[float]:
        return [n.time for n in self.needles]


def _font(px: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=px)
    except (TypeError, OSError):  # Pillow without FreeType
        return ImageFont.load_default()


def render_caption(frame: Image.Image, text: str, position: str = "bottom") -> Image.Image:
    """A caption box over the frame, sized to the frame (the overlay needle's look)."""
    out = frame.convert("RGB").copy()
    w, h = out.size
    font = _font(max(10, h // 14))
    draw = ImageDraw.Draw(out)
    # Wrap to the frame width.
    words, lines, line = text.split(), [], ""
    for word in words:
        cand = f"{line} {word}".strip()
        if line and draw.textlength(cand, font=font) > w * 0.9:
            lines.append(line)
            line = word
        else:
            line = cand
    lines.append(line)
    asc, desc = font.getmetrics() if hasattr(font, "getmetrics") else (h // 14, 0)
    lh = asc + desc + 4
    box_h = lh * len(lines) + 12
    top = {"top": 8, "middle": (h - box_h) // 2}.get(position, h - box_h - 8)
    draw.rectangle((int(w * 0.03), top, int(w * 0.97), top + box_h), fill=(12, 12, 12))
    for i, ln in enumerate(lines):
        tw = draw.textlength(ln, font=font)
        draw.text(((w - tw) / 2, top + 6 + i * lh), ln, fill=(255, 240, 80), font=font)
    return out


def letterbox(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    """Fit ``image`` inside ``size`` keeping its aspect, on black."""
    w, h = size
    im = image.convert("RGB")
    scale = min(w / im.width, h / im.height)
    nw, nh = max(1, round(im.width * scale)), max(1, round(im.height * scale))
    canvas = Image.new("RGB", size, (0, 0, 0))
    canvas.paste(im.resize((nw, nh), Image.Resampling.LANCZOS), ((w - nw) // 2, (h - nh) // 2))
    return canvas


def _span_frames(needle: Needle, fps: float) -> int:
    if isinstance(needle, ClipNeedle):
        if not needle.clip:
            raise ConfigError("a clip needle needs at least one frame")
        return len(needle.clip)
    return max(1, round(needle.seconds * fps))


def place_needles(needles: Sequence[Needle], num_frames: int, fps: float) -> list[PlacedNeedle]:
    """Frame spans for the needles at their depths; visual needles may not overlap each other."""
    placed = []
    for needle in needles:
        if not 0.0 <= needle.depth <= 1.0:
            raise ConfigError(f"needle depth must be in [0, 1], got {needle.depth}")
        n = _span_frames(needle, fps)
        if n > num_frames:
            raise ConfigError(f"needle of {n} frames does not fit a {num_frames}-frame haystack")
        first = round(needle.depth * (num_frames - n))
        kind = {OverlayNeedle: "overlay", ImageNeedle: "frame", ClipNeedle: "clip",
                SubtitleNeedle: "subtitle"}[type(needle)]
        label = needle.text if isinstance(needle, (OverlayNeedle, SubtitleNeedle)) else needle.label
        mid = first + (n - 1) // 2
        placed.append(PlacedNeedle(kind, label, needle.depth, first, n, first / fps, (first + n) / fps, mid / fps))
    visual = sorted((p for p in placed if p.kind != "subtitle"), key=lambda p: p.first_frame)
    for a, b in zip(visual, visual[1:], strict=False):
        if b.first_frame < a.first_frame + a.num_frames:
            raise ConfigError(f"needles {a.label!r} and {b.label!r} overlap (frames {a.first_frame}-"
                              f"{a.first_frame + a.num_frames - 1} and {b.first_frame}-"
                              f"{b.first_frame + b.num_frames - 1})")
    return placed


def _srt_time(seconds: float) -> _dt.timedelta:
    return _dt.timedelta(milliseconds=round(seconds * 1000))


def write_srt(path: str | Path, cues: Sequence[tuple[float, float, str]]) -> None:
    """Write (start, end, text) cues as an SRT file (atomically), numbered in time order."""
    import srt  # type: ignore[import-untyped,unused-ignore]

    subs = [srt.Subtitle(index=i + 1, start=_srt_time(s), end=_srt_time(e), content=text)
            for i, (s, e, text) in enumerate(sorted(cues, key=lambda c: (c[0], c[1])))]
    write_atomic(path, srt.compose(subs, reindex=False))


def build_haystack(out: str | Path, source: FrameSource, needles: Sequence[Needle] = (), *,
                   keyframe_interval: float = 4.0, subtitles: Sequence[tuple[float, float, str]] = (),
                   subtitle_path: str | Path | None = None, progress: bool = False) -> Haystack:
    """Encode ``source`` to ``out`` (H.264 MP4) with the needles in place; an SRT next to it if any subtitles.

    ``subtitles`` are filler cues (start, end, text) written with the subtitle needles' cues.
    """
    t0 = time.perf_counter()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    placed = place_needles(needles, source.num_frames, source.fps)
    by_frame: dict[int, tuple[Needle, int]] = {}
    for needle, p in zip(needles, placed, strict=True):
        if p.kind != "subtitle":
            for k in range(p.num_frames):
                by_frame[p.first_frame + k] = (needle, k)
    tmp = out.with_name(f".{out.name}.partial.mp4")
    written = 0
    with VideoWriter(tmp, source.width, source.height, source.fps, keyframe_interval=keyframe_interval) as w:
        for index, frame in enumerate(source.frames()):
            hit = by_frame.get(index)
            if hit is not None:
                needle, k = hit
                if isinstance(needle, ClipNeedle):
                    frame = letterbox(needle.clip[k], frame.size)
                elif isinstance(needle, (OverlayNeedle, ImageNeedle)):
                    frame = needle.render(frame)
            w.write_rgb(frame)
            written += 1
            if progress and written % 600 == 0:
                print(f"  {written}/{source.num_frames} frames", file=sys.stderr)
    if written != source.num_frames:
        tmp.unlink(missing_ok=True)
        raise ConfigError(f"frame source gave {written} frames, expected {source.num_frames}")
    tmp.replace(out)
    sub_cues = list(subtitles) + [(p.start, p.end, p.label) for p in placed if p.kind == "subtitle"]
    srt_path: Path | None = None
    if sub_cues:
        srt_path = Path(subtitle_path) if subtitle_path else out.with_suffix(".srt")
        write_srt(srt_path, sub_cues)
    return Haystack(path=out, subtitles=srt_path, fps=source.fps, num_frames=written, width=source.width,
                    height=source.height, needles=placed, build_seconds=time.perf_counter() - t0)
