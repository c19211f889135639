"""Frame sampling from video files and frame folders, with exact timestamps.

A frame "at time t" is the frame on screen at t: the last frame whose presentation time is <= t. To get it we
seek to the keyframe at or before t and decode forward only to t, so the work is one partial GOP per target,
never the whole video. Consecutive targets inside the same GOP reuse the running decoder instead of seeking
again (the container's keyframe index says where the next keyframe is; without an index, the longest keyframe
interval seen so far stands in for it).
"""

from __future__ import annotations

import io
import math
import os
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar, Token
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from niah.util.errors import DataError, NiahError

if TYPE_CHECKING:
    from PIL.Image import Image

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp", ".gif", ".tif", ".tiff")
SamplingMode = Literal["count", "fps"]

# ---------------------------------------------------------------------------------------------------------------
# Limits, checked from the container's header before anything is decoded

#: Frames one video may become (a sampled file or a frame folder) unless raised: a frame budget beyond it, a
#: sampling fps that gives more, or a frame folder holding more fails with an error naming the limit.
DEFAULT_FRAME_LIMIT = 1024
#: The longest duration a video may claim (24 h) unless raised; a few bytes of container can claim years.
DEFAULT_MAX_VIDEO_SECONDS = 86_400.0
#: Frames a second a container may claim on average over its duration (counts above it are refused).
MAX_CLAIMED_FPS = 240


@dataclass(frozen=True, slots=True)
class VideoLimits:
    """What one video may cost: ``frame_limit`` frames sent, ``max_seconds`` of claimed duration (and at
    most ``MAX_CLAIMED_FPS`` frames a second of it claimed). Frame size shares the image pixel cap
    (:func:`max_frame_pixels`), which is not raised here."""

    frame_limit: int = DEFAULT_FRAME_LIMIT
    max_seconds: float = DEFAULT_MAX_VIDEO_SECONDS

    def check_frames(self, count: int, path: str | Path, what: str) -> None:
        """Refuse sending ``count`` frames of one video when that is over ``frame_limit``."""
        if count > self.frame_limit:
            raise DataError(f"{what} gives {count} frames, over the limit of {self.frame_limit} frames a video; "
                            "send fewer with --max-frames N, or raise the limit with --frame-limit",
                            file=path)

    def check_info(self, info: VideoInfo) -> None:
        """Refuse a header claiming more than ``max_seconds`` or more frames than that duration can hold."""
        if not info.duration <= self.max_seconds:  # NaN fails too
            raise DataError(f"video claims to last {info.duration:.0f} s, over the limit of {self.max_seconds:.0f} s "
                            "a video; raise it with --max-video-seconds if the video is that long", file=info.path)
        most = math.ceil(max(info.duration, 1.0) * MAX_CLAIMED_FPS)
        if info.num_frames is not None and info.num_frames > most:
            raise DataError(f"video claims {info.num_frames} frames in {info.duration:.1f} s (more than "
                            f"{MAX_CLAIMED_FPS} a second)", file=info.path)


def max_frame_pixels() -> int | None:
    """The most pixels a frame may have: the cap images get (Pillow refuses an image over twice
    ``Image.MAX_IMAGE_PIXELS`` as a decompression bomb), so a video cannot bring in what an image may not."""
    from PIL import Image as PILImage

    cap = PILImage.MAX_IMAGE_PIXELS
    return None if cap is None else 2 * int(cap)


def frame_size_problem(width: int, height: int) -> str | None:
    """Why frames of ``width`` x ``height`` may not be decoded, or None when they may."""
    cap = max_frame_pixels()
    if cap is not None and width * height > cap:
        return (f"video frames are {width}x{height} ({width * height:,} pixels), over the {cap:,}-pixel limit "
                "images have")
    return None


# ---------------------------------------------------------------------------------------------------------------
# Stopping decoding from outside (SIGTERM, Ctrl-C)


class DecodingStopped(NiahError):
    """Decoding was stopped from outside (the run it served was interrupted)."""


#: The event that stops the decoding started in this context: threads started through asyncio.to_thread copy
#: the context, so a run that sets one stops the sampling threads it started, at their next packet or frame.
_STOP: ContextVar[threading.Event | None] = ContextVar("niah_decode_stop", default=None)


class DecodeStop:
    """From creation to :meth:`close`, decoding started in the current context (and in threads started from
    it with asyncio.to_thread, which copy the context) stops at its next packet or frame with
    :class:`DecodingStopped` once :meth:`stop` is called. A run makes one so that SIGTERM or Ctrl-C does not
    wait for a sampling thread to finish a long video; close it in the context that created it."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self._token: Token[threading.Event | None] | None = _STOP.set(self.event)

    def stop(self) -> None:
        self.event.set()

    def close(self) -> None:
        """Stop what is still decoding and end the scope (decoding started afterwards runs normally)."""
        self.event.set()
        if self._token is not None:
            _STOP.reset(self._token)
            self._token = None


def _stop_check(extra: threading.Event | None = None) -> Callable[[], None]:
    """A check to call per packet and frame: raises DecodingStopped once the context's event (or ``extra``)
    is set. Captured once, so that pool threads (which do not copy the context) see the caller's event."""
    outer = _STOP.get()

    def check() -> None:
        if (outer is not None and outer.is_set()) or (extra is not None and extra.is_set()):
            raise DecodingStopped("decoding stopped: interrupted")

    return check


@dataclass(frozen=True, slots=True)
class VideoInfo:
    path: str
    duration: float  # seconds, from the first frame's presentation time to the end of the stream
    fps: float  # average frame rate (0.0 when the container does not say)
    width: int
    height: int
    codec: str
    start_time: float  # presentation time of the stream start, seconds
    num_frames: int | None  # as the container states it (None when unknown)


@dataclass(slots=True)
class Frame:
    """A sampled frame: ``time`` is its presentation time in seconds, ``requested`` the time asked for."""

    index: int  # position in the sample (0-based)
    requested: float
    time: float
    image: Image | None = None
    jpeg: bytes | None = None
    path: str | None = None  # for frames taken from a frame folder

    @property
    def size(self) -> tuple[int, int]:
        if self.image is not None:
            return self.image.size
        if self.jpeg is not None:
            from PIL import Image as PILImage

            with PILImage.open(io.BytesIO(self.jpeg)) as im:
                return im.size
        if self.path is not None:
            from niah.tokens.image import image_size

            return image_size(self.path)
        raise ValueError("frame holds no pixels")

    def to_image(self) -> Image:
        from PIL import Image as PILImage

        if self.image is not None:
            return self.image
        if self.jpeg is not None:
            return PILImage.open(io.BytesIO(self.jpeg)).convert("RGB")
        if self.path is not None:
            with PILImage.open(self.path) as im:
                return im.convert("RGB")
        raise ValueError("frame holds no pixels")

    def to_jpeg(self, quality: int = 90) -> bytes:
        if self.jpeg is not None:
            return self.jpeg
        return encode_jpeg(self.to_image(), quality)


def encode_jpeg(image: Image, quality: int = 90) -> bytes:
    buf = io.BytesIO()
    image.convert("RGB").save(buf, format="JPEG", quality=quality)
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------------------------
# Timestamp plans


def uniform_times(duration: float, count: int, *, start: float = 0.0) -> list[float]:
    """``count`` times at the centres of ``count`` equal segments of [start, start + duration)."""
    if count < 1:
        raise ValueError("frame count must be >= 1")
    if duration <= 0:
        raise ValueError("video duration must be > 0")
    step = duration / count
    return [start + (i + 0.5) * step for i in range(count)]


def fps_times(duration: float, fps: float, *, start: float = 0.0) -> list[float]:
    """One time every 1/fps seconds from ``start`` while inside the video: start, start + 1/fps, ..."""
    if fps <= 0:
        raise ValueError("sampling fps must be > 0")
    if duration <= 0:
        raise ValueError("video duration must be > 0")
    n = max(1, math.ceil(duration * fps - 1e-9))
    return [start + k / fps for k in range(n)]


def plan_times(duration: float, *, count: int | None = None, fps: float | None = None,
               max_frames: int | None = None, start: float = 0.0) -> list[float]:
    """Sampling times by count (uniform) or by fps; with fps, ``max_frames`` caps the count (uniform fallback)."""
    if (count is None) == (fps is None):
        raise ValueError("give exactly one of count or fps")
    if count is not None:
        return uniform_times(duration, count, start=start)
    assert fps is not None
    if fps > 0 and duration > 0 and max_frames is not None and math.ceil(duration * fps - 1e-9) > max_frames:
        return uniform_times(duration, max_frames, start=start)  # the fps list is never built
    return fps_times(duration, fps, start=start)


# ---------------------------------------------------------------------------------------------------------------
# Video files


def _open(path: str | Path) -> Any:
    import av

    p = Path(path)
    if not p.is_file():
        raise DataError("video file not found", file=p)
    try:
        container = av.open(str(p), mode="r")
    except (av.FFmpegError, OSError, UnicodeDecodeError) as exc:
        raise DataError(f"unreadable video: {exc}", file=p) from None
    if not container.streams.video:
        container.close()
        raise DataError("no video stream in file", file=p)
    cc = container.streams.video[0].codec_context
    too_big = frame_size_problem(cc.width or 0, cc.height or 0)
    if too_big is not None:
        container.close()
        raise DataError(too_big, file=p)
    return container


def _stream_times(container: Any, stream: Any) -> tuple[float, float]:
    """(start, duration) in seconds; the container's duration when the stream has none."""
    tb = stream.time_base
    start = float(stream.start_time * tb) if stream.start_time is not None and tb else 0.0
    if stream.duration is not None and tb:
        return start, float(stream.duration * tb)
    if container.duration is not None:
        return start, container.duration / 1_000_000
    return start, 0.0


def probe(path: str | Path, *, limits: VideoLimits | None = None) -> VideoInfo:
    """Read a video's header (no decoding unless the header lacks a duration; then frames are decoded up to
    the last one, or until past ``limits.max_seconds``). Frames over the image pixel cap are refused; with
    ``limits`` given, so is a claimed duration (or frame count) over them (without, the header is reported
    as it claims, for the caller to judge)."""
    info = _probe(path, (limits or VideoLimits()).max_seconds)
    if limits is not None and info.duration > 0:  # no duration at all is the caller's to refuse
        limits.check_info(info)
    return info


def _probe(path: str | Path, most: float) -> VideoInfo:
    container = _open(path)
    stopped = _stop_check()
    try:
        stream = container.streams.video[0]
        start, duration = _stream_times(container, stream)
        cc = stream.codec_context
        rate = stream.average_rate or stream.guessed_rate
        if duration <= 0:  # header without duration (raw streams): find the last frame
            last = None
            try:
                for frame in container.decode(stream):
                    stopped()
                    last = frame
                    if frame.time is not None and frame.time - start > most:
                        break  # long enough to be refused below: no need to decode the rest
            except NiahError:
                raise
            except Exception as exc:
                raise DataError(f"undecodable video: {exc}", file=path) from None
            if last is None or last.time is None:
                raise DataError("video has no frames", file=path)
            step = 1 / float(rate) if rate else 0.0
            duration = last.time + step - start
        return VideoInfo(path=str(path), duration=duration, fps=float(rate) if rate else 0.0,
                         width=cc.width, height=cc.height, codec=cc.name, start_time=start,
                         num_frames=stream.frames or None)
    finally:
        container.close()


class _KeyframeIndex:
    """Keyframe presentation times from the container index (empty when the container has none)."""

    def __init__(self, stream: Any) -> None:
        self.times: list[float] = []
        try:
            tb = stream.time_base
            self.times = sorted(float(e.timestamp * tb) for e in stream.index_entries if e.is_keyframe)
        except (AttributeError, TypeError):
            self.times = []

    def before(self, t: float) -> float | None:
        """The last keyframe time <= t, or None without an index."""
        if not self.times:
            return None
        import bisect

        i = bisect.bisect_right(self.times, t + 1e-9) - 1
        return self.times[max(i, 0)]


#: Targets per video below which sampling stays on one thread (a second decoder is not worth opening).
PARALLEL_MIN_TARGETS = 8


def default_decode_workers() -> int:
    """Decoders run side by side by default: one per core, at most 4 (each decodes on one core)."""
    return max(1, min(4, os.cpu_count() or 1))


def iter_frames_at(path: str | Path, times: Sequence[float], *, output: Literal["image", "jpeg"] = "image",
                   jpeg_quality: int = 90, max_side: int | None = None,
                   workers: int | None = None) -> Iterator[Frame]:
    """Yield the frame on screen at each requested time (in the order given; decoded in time order).

    Times outside the video clamp to its first or last frame. Only the kept frames are converted to RGB, and
    each is handed out as soon as it and every frame before it in the caller's order are decoded.

    ``workers`` decoders (default :func:`default_decode_workers`; 1 for one thread) each hold their own
    container and take contiguous runs of the time-sorted targets in turn; FFmpeg decodes without Python's lock,
    so they run on separate cores. Which frame answers a time does not depend on the split, and at most
    ``workers + 1`` runs are decoded ahead of the caller, so memory stays bounded by the frames handed out.
    """
    order = sorted(range(len(times)), key=lambda i: times[i])
    n = default_decode_workers() if workers is None else max(1, int(workers))
    if n == 1 or len(order) < PARALLEL_MIN_TARGETS:
        container = _open(path)
        try:
            yield from _in_caller_order(_decode_sorted(_prepare(container), path, times, order, output=output,
                                                       jpeg_quality=jpeg_quality, max_side=max_side,
                                                       stopped=_stop_check()))
        finally:
            container.close()
        return
    yield from _iter_parallel(path, times, order, n, output=output, jpeg_quality=jpeg_quality,
                              max_side=max_side)


def _prepare(container: Any) -> Any:
    # Slice threads only: frame threading refills its pipeline after every seek and is ~35% slower here.
    container.streams.video[0].thread_type = "SLICE"
    return container


def _in_caller_order(decoded: Iterator[tuple[int, Frame]]) -> Iterator[Frame]:
    results: dict[int, Frame] = {}
    next_out = 0
    for i, frame in decoded:
        results[i] = frame
        while next_out in results:
            yield results.pop(next_out)
            next_out += 1


def _iter_parallel(path: str | Path, times: Sequence[float], order: list[int], workers: int, *,
                   output: Literal["image", "jpeg"], jpeg_quality: int, max_side: int | None) -> Iterator[Frame]:
    import threading
    from collections import deque
    from concurrent.futures import Future, ThreadPoolExecutor

    # Runs of the time-sorted targets: several per worker, so that a slow run does not leave cores idle, and
    # each long enough that targets inside one GOP still share a decoder.
    runs_count = min(len(order), workers * 4)
    size, extra = divmod(len(order), runs_count)
    runs: list[list[int]] = []
    start = 0
    for r in range(runs_count):
        end = start + size + (1 if r < extra else 0)
        runs.append(order[start:end])
        start = end
    local = threading.local()
    opened: list[Any] = []
    lock = threading.Lock()
    # Set when the caller stops (closes the generator, or an error): runs still decoding end at their next
    # frame instead of being waited for; the check also carries the caller's stop event into the pool threads.
    halt = threading.Event()
    stopped = _stop_check(halt)

    def decode_run(run: list[int]) -> list[tuple[int, Frame]]:
        container = getattr(local, "container", None)
        if container is None:
            container = local.container = _prepare(_open(path))
            with lock:
                opened.append(container)
        return list(_decode_sorted(container, path, times, run, output=output, jpeg_quality=jpeg_quality,
                                   max_side=max_side, stopped=stopped))

    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="niah-decode")
    pending: deque[Future[list[tuple[int, Frame]]]] = deque()
    queued = iter(runs)
    try:
        for run in queued:
            pending.append(pool.submit(decode_run, run))
            if len(pending) > workers:
                break

        def results() -> Iterator[tuple[int, Frame]]:
            while pending:
                done = pending.popleft().result()
                following = next(queued, None)
                if following is not None:
                    pending.append(pool.submit(decode_run, following))
                yield from done

        yield from _in_caller_order(results())
    finally:
        halt.set()
        pool.shutdown(wait=True, cancel_futures=True)
        for container in opened:
            container.close()


def _decode_sorted(container: Any, path: str | Path, times: Sequence[float], order: list[int], *,
                   output: Literal["image", "jpeg"], jpeg_quality: int, max_side: int | None,
                   stopped: Callable[[], None]) -> Iterator[tuple[int, Frame]]:
    """(caller index, frame) for the targets ``order`` (indices into ``times``, time-sorted), decoded from the
    open ``container``: a fresh seek for the first target, the running decoder on while later targets allow.
    ``stopped()`` is called for every packet and target (it raises to stop)."""
    import av

    try:
        decoder = _SortedDecoder(container, path, stopped)
        for i in order:
            stopped()
            target = times[i]
            chosen = decoder.frame_at(target)
            if chosen is None:
                raise DataError(f"no frame decodable at {target:.3f} s", file=path)
            image = _converted(chosen, path, max_side)
            fr = Frame(index=i, requested=target, time=decoder.frame_time(chosen))
            if output == "jpeg":
                fr.jpeg = encode_jpeg(image, jpeg_quality)
            else:
                fr.image = image
            yield i, fr
    except DataError:
        raise
    except av.FFmpegError as exc:
        raise DataError(f"undecodable video: {exc}", file=path) from None


def _converted(frame: Any, path: str | Path, max_side: int | None) -> Image:
    """A decoded frame as an RGB image, scaled down to ``max_side``."""
    # the header's size was checked on opening; a stream may still change size mid-way
    too_big = frame_size_problem(frame.width, frame.height)
    if too_big is not None:
        raise DataError(too_big, file=path)
    image = _to_pil(frame)
    if max_side is not None and max(image.size) > max_side:
        scale = max_side / max(image.size)
        image = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))))
    return image


class _SortedDecoder:
    """The frames on screen at ascending target times, from one open container: it seeks only where a keyframe
    lies between the last decoded frame and the next target (without a keyframe index: where the target is
    further ahead than the longest GOP seen), and otherwise decodes on."""

    def __init__(self, container: Any, path: str | Path, stopped: Callable[[], None]) -> None:
        self.container, self.path, self.stopped = container, path, stopped
        self.stream = container.streams.video[0]
        self.tb = self.stream.time_base
        self.codec = self.stream.codec_context
        self.keyframes = _KeyframeIndex(self.stream)
        self.longest_gop = 0.0
        self.last_key: float | None = None
        self.decoder: Iterator[Any] | None = None
        self.held: Any = None  # the last decoded frame with time <= current target
        self.pending: Any = None  # a decoded frame past the previous target, not yet consumed
        self.position = -math.inf  # presentation time of the last decoded frame
        self.aim = 0.0  # the target being decoded towards, read by _decode_packets()

    def frame_time(self, frame: Any) -> float:
        if frame.pts is None:
            raise DataError("video frame without a timestamp", file=self.path)
        return float(frame.pts * self.tb)

    def frame_at(self, target: float) -> Any:
        """The frame on screen at ``target`` (the first frame for a target before it, the last one for a
        target after the end), or None when nothing decodes."""
        self.aim = target
        # Seek to the target itself: the index holds decode times, which with B-frames run ahead of a
        # keyframe's presentation time, and a seek to them lands one whole GOP early. A backward seek to the
        # target lands on the keyframe shown at or before it (a landing after it is backed off below).
        seek_to = target
        backoff = max(self.longest_gop, 1.0)
        just_sought = False
        if self._needs_seek(target):
            self.decoder = self._seek(seek_to)
            self.held = self.pending = None
            self.position = -math.inf
            just_sought = True
        while True:
            frame = self._next_frame()
            if frame is None:  # end of stream: the last frame stays on screen
                return self.held
            ft = self.frame_time(frame)
            if self.held is None and ft > target + 1e-9 and just_sought and seek_to > 0:
                # The seek landed after the target (a sparse or inexact index): back off and retry.
                seek_to = max(0.0, seek_to - backoff)
                backoff *= 2
                self.decoder = self._seek(seek_to)
                self.position = -math.inf
                continue
            self.position = ft
            if frame.key_frame:
                if self.last_key is not None and ft > self.last_key:
                    self.longest_gop = max(self.longest_gop, ft - self.last_key)
                self.last_key = ft
            if ft <= target + 1e-9:
                self.held = frame
                continue
            if self.held is None:  # target before the first frame: clamp to it
                self.held = frame
                return frame
            self.pending = frame  # past this target; the next target may still want `held`
            return self.held

    def _needs_seek(self, target: float) -> bool:
        """Seek when a keyframe lies between the current position and the target (or, without an index, when
        the target is further ahead than the longest GOP seen); otherwise decode on from here."""
        key = self.keyframes.before(target)
        if self.decoder is None:
            return True
        if key is not None:
            return bool(key > self.position + 1e-9)
        return self.longest_gop == 0.0 or target - self.position > self.longest_gop

    def _next_frame(self) -> Any:
        """The frame past the previous target if one waits, else the next decoded frame (None at the end)."""
        import av

        if self.pending is not None:
            frame, self.pending = self.pending, None
            return frame
        try:
            return next(self.decoder)  # type: ignore[arg-type]
        except StopIteration:
            return None
        except av.FFmpegError as exc:
            raise DataError(f"undecodable video: {exc}", file=self.path) from None

    def _seek(self, to: float) -> Iterator[Any]:
        import av

        try:
            # The small allowance keeps a keyframe's own time (float -> ticks) from rounding down one tick,
            # which would land the seek a whole GOP early.
            self.container.seek(max(0, math.floor(to / self.tb + 1e-6)), backward=True, any_frame=False,
                                stream=self.stream)
        except av.FFmpegError as exc:
            raise DataError(f"cannot seek in video: {exc}", file=self.path) from None
        return self._decode_packets()

    def _decode_packets(self) -> Iterator[Any]:
        # A packet shown before a packet already seen (B-frames arrive after the later frame they reference)
        # cannot be on screen at the target when that later frame is at or before the target: such packets are
        # decoded with skip_frame=NONREF, so a non-reference B-frame among them is never decoded. Skipping a
        # non-reference frame changes no other frame, so every kept frame stays exact.
        newest = -math.inf
        codec, tb = self.codec, self.tb
        for packet in self.container.demux(self.stream):
            self.stopped()
            mode = "DEFAULT"
            if packet.pts is not None:
                shown = float(packet.pts * tb)
                if shown < newest <= self.aim + 1e-9:
                    mode = "NONREF"
                newest = max(newest, shown)
            if codec.skip_frame != mode:
                codec.skip_frame = mode
            yield from packet.decode()


def _to_pil(frame: Any) -> Image:
    """RGB PIL image of a decoded frame (swscale, then one copy; ~10x faster than VideoFrame.to_image here)."""
    from PIL import Image as PILImage

    rgb = frame.reformat(format="rgb24")
    plane = rgb.planes[0]
    return PILImage.frombytes("RGB", (rgb.width, rgb.height), bytes(plane), "raw", "RGB", plane.line_size, 1)


def frames_at(path: str | Path, times: Sequence[float], **kwargs: Any) -> list[Frame]:
    return list(iter_frames_at(path, times, **kwargs))


@dataclass(frozen=True, slots=True)
class FrameSample:
    """Sampled frames with how they were chosen (record ``plan`` in a run)."""

    frames: list[Frame]
    plan: dict[str, Any]


def sample_video(path: str | Path, *, count: int | None = None, fps: float | None = None,
                 max_frames: int | None = None, output: Literal["image", "jpeg"] = "image",
                 jpeg_quality: int = 90, max_side: int | None = None,
                 limits: VideoLimits | None = None) -> FrameSample:
    """Sample frames uniformly by ``count`` or every 1/``fps`` seconds (capped by ``max_frames``).

    ``limits`` (default :class:`VideoLimits`) are checked against the header before any frame is decoded:
    the claimed duration and frame count, and the number of frames the plan asks for."""
    limits = limits or VideoLimits()
    info = probe(path, limits=limits)
    if info.duration <= 0:
        raise DataError("video has no duration", file=path)
    limits.check_info(info)
    if count is not None:
        limits.check_frames(count, path, f"sampling {count} frames")
    elif fps is not None:
        planned = max(1, math.ceil(info.duration * fps - 1e-9))
        if max_frames is not None:
            planned = min(planned, max_frames)
        limits.check_frames(planned, path, f"sampling at {fps:g} fps over {info.duration:.0f} s")
    times = plan_times(info.duration, count=count, fps=fps, max_frames=max_frames, start=info.start_time)
    frames = frames_at(path, times, output=output, jpeg_quality=jpeg_quality, max_side=max_side)
    plan = {"mode": "count" if count is not None else "fps", "count": count, "fps": fps,
            "max_frames": max_frames, "num_frames": len(frames), "duration": info.duration,
            "source_fps": info.fps}
    return FrameSample(frames=frames, plan=plan)


# ---------------------------------------------------------------------------------------------------------------
# Frame folders

_NUM = re.compile(r"(\d+)")


def _natural_key(name: str) -> list[Any]:
    return [int(tok) if tok.isdigit() else tok.lower() for tok in _NUM.split(name)]


def list_frame_folder(folder: str | Path) -> list[Path]:
    """The image files of a frame folder in natural order (frame2 before frame10)."""
    root = Path(folder)
    if not root.is_dir():
        raise DataError("frame folder not found", file=root)
    files = [p for p in root.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES]
    if not files:
        raise DataError("frame folder holds no image files", file=root)
    return sorted(files, key=lambda p: _natural_key(p.name))


def sample_frame_folder(folder: str | Path, *, count: int | None = None, fps: float | None = None,
                        folder_fps: float | None = None, max_frames: int | None = None,
                        load: bool = False, limits: VideoLimits | None = None) -> FrameSample:
    """Pick frames from a folder: ``count`` uniformly, or every 1/``fps`` s given the folder's ``folder_fps``.

    A frame's time is its index / folder_fps (the folder's own frame rate; 1 fps when not given, as frame
    folders of long-video benchmarks are usually extracted at one frame a second). More frames picked than
    ``limits.frame_limit`` is an error.
    """
    files = list_frame_folder(folder)
    rate = folder_fps or 1.0
    duration = len(files) / rate
    times = plan_times(duration, count=count, fps=fps, max_frames=max_frames)
    (limits or VideoLimits()).check_frames(len(times), folder, f"a frame folder of {len(files)} frames")
    frames = []
    for i, t in enumerate(times):
        k = min(len(files) - 1, max(0, int(math.floor(t * rate + 1e-9))))
        fr = Frame(index=i, requested=t, time=k / rate, path=str(files[k]))
        if load:
            fr.image = _load_image(files[k])
        frames.append(fr)
    plan = {"mode": "count" if count is not None else "fps", "count": count, "fps": fps,
            "max_frames": max_frames, "num_frames": len(frames), "duration": duration, "source_fps": rate}
    return FrameSample(frames=frames, plan=plan)


def _load_image(path: Path) -> Image:
    from PIL import Image as PILImage
    from PIL import UnidentifiedImageError

    try:
        with PILImage.open(path) as im:
            return im.convert("RGB")
    except (OSError, UnidentifiedImageError) as exc:
        raise DataError(f"unreadable image: {exc}", file=path) from None
