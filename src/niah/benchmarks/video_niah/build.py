"""Video needle haystacks: a length x depth grid of needles hidden in long videos.

For each duration D the haystack (niah's procedural scenes, or the user's video read where it lies) is sampled
once, as LongVA's V-NIAH does, at N = ``--frames`` times k x D / N spread evenly over it (``--frames all``: every
frame at ``--fps``), and its frames are written once per build, as JPEGs named by their content hash (so a file
name tells nothing about what a frame shows). A sample is a frame list: the haystack's N frames in order with
the needle's frames in place of the ones it covers, each needle frame written once too. Its video part's fps
is N / D, so every frame's time is its index / fps (the time it shows), and ``niah run --max-frames N`` sends
every frame, so every needle; a smaller budget samples them like any frame folder, and the run records which
samples lost a needle (``needle_shown``).

Needles (``--needle``): ``overlay``, a caption over the scene ("The secret word is ..."); ``frame``, a cartoon
object shown full-frame; ``clip``, the cartoon moving across the frame for a few frames. Tasks:

- ``retrieval``: what the needle showed (open answer: the secret word or the object's name);
- ``retrieval-choice``: which of four options appeared (image options for frame and clip needles);
- ``counting``: how many times the object appears (1-4 times at random depths; overlay mode pastes the
  cartoon onto the scene, as MM-NIAH pastes image needles into its documents);
- ``ordering``: which of two needles came first.

Each task's categorical golds (the count, the ordering answer, the correct option, the retrieval word or
object) are dealt from a balanced, seeded deck over the task's grid (``task_golds``), not drawn per sample.

Depth (``--depth-mode``): a needle n frames long starting at frame s of the sample's N frames has depth
s / (N - n) (0: it opens the video, 1: it ends on the last frame), a place among the frames the model is given.
The grid's rows are

- ``cell`` (default, as MM-NIAH): depth cells ``[lo, hi)`` (the last one closed at 1), five of width 0.2 unless
  ``--depth-cells`` gives a count or edges. The needles' start frames are drawn uniformly at random among all
  placements of the sample's needles that neither overlap nor touch and whose mean depth lies in the cell (one
  needle: a start frame uniform over the cell's frames), so no row pins a needle to a frame;
- ``exact`` (as LongVA's V-NIAH): the first needle starts exactly at frame round(depth x (N - n)) of each
  ``--depths`` value; further needles (counting, ordering) at uniformly random non-touching places.

``meta.depth`` lists every needle's exact depth, ``meta.depth_cell`` the row ([lo, hi]; [d, d] in exact mode),
``meta.needle_times`` the presentation time (s) of each needle's middle frame, ``meta.num_frames`` and
``meta.image_tokens`` the length in frames and in tokens under ``meta.image_tokens_rule``.
"""

from __future__ import annotations

import hashlib
import io
import math
import random
import re
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from PIL import Image

from niah.benchmarks.video_niah.durations import duration_label
from niah.benchmarks.video_niah.pools import COUNT_RANGE, shows_words
from niah.build.buildkey import BuildKey, build_key, path_digest
from niah.build.deck import deal
from niah.build.english import with_article
from niah.sample import DatasetWriter, ImagePart, Part, Sample, TextPart, VideoPart
from niah.util.errors import ConfigError

BENCHMARK = "video-niah"
TASKS: tuple[str, ...] = ("retrieval", "retrieval-choice", "counting", "ordering")
NEEDLE_KINDS: tuple[str, ...] = ("overlay", "frame", "clip", "subtitle")
#: Filler subtitle lines of subtitle-needle haystacks: everyday talk that names no needle word.
FILLER_LINES: tuple[str, ...] = (
    "Did you see the weather this morning?", "I think we should leave a little earlier.", "That was a long day.",
    "Can you pass me the map?", "We are almost there.", "Let me check the time.", "It is quieter than I expected.",
    "I will call you when I arrive.", "Look at the light over there.", "Nobody told me it would be this far.",
    "Do you remember the last time we came here?", "Let us wait for the others.", "Keep going, it is not far.",
    "I wonder what is behind that hill.", "Everything looks different today.", "We should write this down.",
)
DEFAULT_DURATIONS = "5m,15m,30m,60m"
#: Frames per sample: the long video is sampled to this many frames, uniformly over its duration, and the needle
#: is put among them (LongVA's V-NIAH design), so ``niah run --max-frames 64`` sends every needle.
DEFAULT_FRAMES = 64
#: ``--frames all``: every frame of the haystack at ``--fps`` (a runner's frame budget may then drop needles).
ALL_FRAMES = "all"
#: Rate at which the procedural footage is planned (scenes, pans) before ``--frames N`` samples it.
SOURCE_FPS = 1.0
#: Needle frames per needle with ``--frames N`` (``--needle-frames``): one frame, a clip three.
DEFAULT_NEEDLE_FRAMES = {"overlay": 1, "frame": 1, "clip": 3, "subtitle": 1}
DEPTH_MODES: tuple[str, ...] = ("cell", "exact")
DEFAULT_DEPTH_CELLS = "5"  # five cells of width 0.2, as MM-NIAH's grid
DEFAULT_DEPTHS = "0,0.25,0.5,0.75,1"  # exact mode: V-NIAH-style fixed depths
MAX_NEEDLES = {"retrieval": 1, "retrieval-choice": 1, "counting": COUNT_RANGE[1], "ordering": 2}
JPEG_QUALITY = 85

#: Secret words of overlay needles: short, concrete, unambiguous when read off a frame.
WORDS: tuple[str, ...] = (
    "lantern", "harbor", "violin", "meadow", "compass", "glacier", "pepper", "falcon", "ribbon", "canyon",
    "marble", "orchid", "thimble", "walnut", "saddle", "beacon", "quartz", "pillow", "tunnel", "ferry",
    "cactus", "kettle", "mango", "anchor", "copper", "spruce", "tulip", "badger", "candle", "pebble",
    "rocket", "velvet", "zipper", "basket", "cobalt", "dragon", "feather", "island", "jigsaw", "ladder",
)


def parse_duration(text: str) -> float:
    """``90s``, ``5m``, ``1h``, ``1h30m`` or plain seconds -> seconds."""
    value = text.strip().lower()
    if re.fullmatch(r"\d+(\.\d+)?", value):
        seconds = float(value)
    else:
        parts = re.findall(r"(\d+(?:\.\d+)?)\s*([hms])", value)
        if not parts or "".join(f"{n}{u}" for n, u in parts) != value.replace(" ", ""):
            raise ConfigError(f"duration {text!r} must look like 90s, 5m, 1h or 1h30m")
        seconds = sum(float(n) * {"h": 3600, "m": 60, "s": 1}[u] for n, u in parts)
    if seconds <= 0:
        raise ConfigError(f"duration {text!r} must be positive")
    return seconds


def _csv(value: Any) -> list[str]:
    items = [str(v) for v in value] if isinstance(value, (list, tuple)) else str(value).split(",")
    return [i.strip() for i in items if i.strip()]


@dataclass(frozen=True, slots=True)
class DepthRow:
    """One row of the grid: a depth cell ``[lo, hi)`` (closed at hi when hi is 1), or an exact depth (lo == hi).

    Bounds are Fractions of the decimals the user wrote, so "is this placement in the cell" is exact integer
    arithmetic on frame numbers, never a float comparison that a rounding could flip."""

    lo: Fraction
    hi: Fraction

    @property
    def exact(self) -> bool:
        return self.lo == self.hi

    @property
    def closed(self) -> bool:
        return self.exact or self.hi == 1

    @property
    def label(self) -> str:
        return f"{float(self.lo):g}" if self.exact else f"{float(self.lo):g}-{float(self.hi):g}"

    def bounds(self) -> list[float]:
        return [float(self.lo), float(self.hi)]

    def sum_range(self, count: int, room: int) -> tuple[int, int]:
        """The integer sums S of ``count`` start frames whose mean depth S / (count x room) lies in the row."""
        scale = count * room
        low = math.ceil(self.lo * scale)
        high = math.floor(self.hi * scale) if self.closed else math.ceil(self.hi * scale) - 1
        return low, high


def _fraction(text: str, what: str) -> Fraction:
    try:
        value = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise ConfigError(f"{what} must be numbers in [0, 1], got {text!r}") from None
    if not 0 <= value <= 1:
        raise ConfigError(f"{what} must lie in [0, 1], got {text!r}")
    return value


def parse_depth_rows(mode: str, depth_cells: Any, depths: Any) -> tuple[DepthRow, ...]:
    """The grid's rows from ``--depth-mode``, ``--depth-cells`` (a count or edges) and ``--depths`` (exact)."""
    if mode not in DEPTH_MODES:
        raise ConfigError(f"--depth-mode must be one of {', '.join(DEPTH_MODES)}, not {mode!r}")
    if mode == "cell":
        if depths is not None:
            raise ConfigError("--depths gives exact depths (--depth-mode exact); for depth cells give "
                              "--depth-cells N (N equal cells) or --depth-cells EDGES, e.g. 0,0.1,0.5,1")
        items = _csv(DEFAULT_DEPTH_CELLS if depth_cells is None else depth_cells)
        if len(items) == 1:
            try:
                count = int(items[0])
            except ValueError:
                raise ConfigError(f"--depth-cells must be a count (e.g. 5) or at least two edges (e.g. 0,0.5,1), "
                                  f"got {items[0]!r}") from None
            if not 1 <= count <= 100:
                raise ConfigError(f"--depth-cells: between 1 and 100 cells, got {count}")
            edges = [Fraction(i, count) for i in range(count + 1)]
        else:
            edges = [_fraction(e, "--depth-cells edges") for e in items]
            if any(b <= a for a, b in zip(edges, edges[1:], strict=False)):
                raise ConfigError(f"--depth-cells edges must increase, got {','.join(items)}")
        return tuple(DepthRow(a, b) for a, b in zip(edges, edges[1:], strict=False))
    if depth_cells is not None:
        raise ConfigError("--depth-cells gives depth cells (--depth-mode cell); exact mode takes --depths")
    values = [_fraction(d, "--depths") for d in _csv(DEFAULT_DEPTHS if depths is None else depths)]
    if not values:
        raise ConfigError("give at least one depth")
    if len(set(values)) != len(values):
        raise ConfigError("--depths must be distinct")
    return tuple(DepthRow(v, v) for v in sorted(values))


def parse_frames(value: Any) -> int | None:
    """``--frames``: a frame count (at least 12) or ``all`` (None: every frame at ``--fps``)."""
    text = str(DEFAULT_FRAMES if value is None else value).strip().lower()
    if text == ALL_FRAMES:
        return None
    try:
        count = int(text)
    except ValueError:
        raise ConfigError(f"--frames must be a number of frames (e.g. 64) or 'all', got {value!r}") from None
    if count < 12:
        raise ConfigError(f"--frames must be at least 12 (a needle among too few frames is no haystack), got {count}")
    return count


@dataclass(frozen=True, slots=True)
class BuildOptions:
    durations: tuple[float, ...]
    depth_mode: str
    rows: tuple[DepthRow, ...]
    needle: str
    #: frames per sample (the haystack sampled uniformly over its duration), or None: every frame at ``fps``
    frames: int | None
    fps: float
    per_cell: int
    seed: int
    tasks: tuple[str, ...]
    haystack: str  # "default" or a video path
    width: int
    height: int
    needle_seconds: float
    image_rule: str
    needle_frames: int | None = None  # with ``frames``: needle frames per needle (None: the kind's default)

    def rate(self, duration: float) -> float:
        """The sample's frame rate: N / duration with ``--frames N`` (frame k is the video at k x duration / N,
        so every frame keeps its time), else ``--fps``."""
        return self.frames / duration if self.frames is not None else self.fps

    def span(self, duration: float) -> int:
        """Frames one needle covers."""
        if self.frames is not None:
            return self.needle_frames or DEFAULT_NEEDLE_FRAMES[self.needle]
        return max(1, round(self.needle_seconds * self.fps))

    def frame_count(self, duration: float) -> int:
        """Frames of a procedural haystack of ``duration`` (a user video may have a frame less at ``--fps``)."""
        return self.frames if self.frames is not None else max(1, round(duration * self.fps))

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any]) -> BuildOptions:
        # niah eval passes its --lengths as "lengths": for video haystacks those are durations
        raw = options.get("lengths") or options.get("durations", DEFAULT_DURATIONS)
        durations = tuple(parse_duration(d) for d in _csv(raw))
        if not durations:
            raise ConfigError("give at least one duration")
        depth_mode = str(options.get("depth_mode") or "cell")
        rows = parse_depth_rows(depth_mode, options.get("depth_cells"), options.get("depths"))
        needle = str(options.get("needle", "overlay"))
        if needle not in NEEDLE_KINDS:
            raise ConfigError(f"--needle must be one of {', '.join(NEEDLE_KINDS)}, not {needle!r}")
        tasks = tuple(_csv(options.get("tasks", ",".join(TASKS))))
        unknown = [t for t in tasks if t not in TASKS]
        if unknown or not tasks:
            raise ConfigError(f"unknown task(s) {', '.join(unknown) or '(none)'}; choose from {', '.join(TASKS)}")
        frames = parse_frames(options.get("frames"))
        raw_fps, raw_seconds, raw_span = options.get("fps"), options.get("needle_seconds"), options.get("needle_frames")
        if frames is not None and raw_fps is not None:
            raise ConfigError("--fps is the frame rate of --frames all (every frame of the haystack); with --frames "
                              f"{frames} the frames are spread evenly over each duration (fps = {frames} / duration)")
        if frames is not None and raw_seconds is not None and needle != "subtitle":
            raise ConfigError(f"with --frames {frames} a needle covers --needle-frames frames; --needle-seconds "
                              "applies to --frames all and to subtitle lines")
        if frames is None and raw_span is not None:
            raise ConfigError("--needle-frames applies to --frames N; with --frames all a needle lasts "
                              "--needle-seconds")
        fps = SOURCE_FPS if raw_fps is None else float(raw_fps)
        per_cell = int(options.get("per_cell", 1))
        if not fps > 0 or per_cell < 1:
            raise ConfigError("--fps must be positive and --per-cell at least 1")
        needle_frames = None if raw_span is None else int(raw_span)
        if needle_frames is not None and needle_frames < 1:
            raise ConfigError("--needle-frames must be at least 1")
        from niah.tokens.image import get_image_rule

        # image_tokens is the shared name (niah eval, --image-tokens); image_rule the older one, still read
        rule = str(options.get("image_tokens") or options.get("image_rule") or "internvl-1tile")
        get_image_rule(rule)  # an unknown rule fails before any work
        out = cls(durations=durations, depth_mode=depth_mode, rows=rows, needle=needle, frames=frames, fps=fps,
                  per_cell=per_cell, seed=int(options.get("seed", 0)), tasks=tasks,
                  haystack=str(options.get("haystack") or "default"),
                  width=int(options.get("width", 640)), height=int(options.get("height", 360)),
                  needle_seconds=float(2.0 if raw_seconds is None else raw_seconds), image_rule=rule,
                  needle_frames=needle_frames)
        if not out.needle_seconds > 0:
            raise ConfigError("--needle-seconds must be positive")
        for d in durations:
            span = out.span(d)
            n_frames = out.frame_count(d)
            if n_frames < 12 * span:
                where = f"{n_frames} frames" if out.frames is not None else f"{n_frames} frames at {fps:g} fps"
                more = "more --frames" if out.frames is not None else "a longer duration or a higher --fps"
                raise ConfigError(f"a {duration_label(d)} haystack of {where} has too few frames for needles of "
                                  f"{span} frames (need at least {12 * span}); use {more} or shorter needles")
            if depth_mode == "cell":
                # every cell must hold every needle count a task may draw, before any frame is written
                counts = sorted({k for t in tasks for k in range(1, MAX_NEEDLES[t] + 1)})
                for row in rows:
                    for count in counts:
                        if not placement_feasible(row, count, span, n_frames):
                            raise ConfigError(
                                f"depth cell {row.label} of the {duration_label(d)} haystack ({n_frames} frames) "
                                f"cannot hold {count} needle(s) of {span} frames with their mean depth inside it; "
                                f"use fewer, wider depth cells, "
                                f"{'more --frames' if out.frames is not None else 'a longer duration'} or shorter "
                                "needles")
        return out


class FrameStore:
    """Writes frames once, as ``media/frames/<sha256 prefix>.jpg``; returns the dataset-relative path."""

    def __init__(self, writer: DatasetWriter) -> None:
        self.writer = writer
        self.known: set[str] = set()
        self.written = 0

    def put_jpeg(self, data: bytes) -> str:
        name = hashlib.sha256(data).hexdigest()[:24] + ".jpg"
        rel = f"media/frames/{name}"
        if name not in self.known:
            self.writer.write_media(f"frames/{name}", data)
            self.known.add(name)
            self.written += 1
        return rel

    def put(self, image: Image.Image) -> str:
        buf = io.BytesIO()
        image.convert("RGB").save(buf, format="JPEG", quality=JPEG_QUALITY)
        return self.put_jpeg(buf.getvalue())

    def put_subtitles(self, text: str) -> str:
        data = text.encode("utf-8")
        name = hashlib.sha256(data).hexdigest()[:24] + ".srt"
        if name not in self.known:
            self.writer.write_media(f"subtitles/{name}", data)
            self.known.add(name)
        return f"media/subtitles/{name}"

    def load(self, rel: str) -> Image.Image:
        path = self.writer.tmp_root / rel
        with Image.open(path) as im:
            return im.convert("RGB")


@dataclass(slots=True)
class Haystack:
    duration: float
    label: str
    frames: list[str]
    width: int
    height: int
    source: str
    fps: float  # the frames' rate: frame k shows the video at k / fps seconds


def sample_times(duration: float, count: int) -> list[float]:
    """``count`` times spread uniformly over ``duration`` seconds: k x duration / count, k = 0 .. count - 1, so
    frame k's time is k / fps for fps = count / duration (the rate the sample's video part records)."""
    return [k * duration / count for k in range(count)]


def _haystack_frames(opts: BuildOptions, duration: float, index: int) -> Iterator[Image.Image]:
    from niah.video.synth import ProceduralScenes, VideoSource

    if opts.haystack == "default":
        scenes = ProceduralScenes(duration, fps=opts.fps, width=opts.width, height=opts.height,
                                  seed=opts.seed * 1000 + index)
        if opts.frames is None:
            yield from scenes.frames()
        else:
            yield from scenes.frames_at(sample_times(duration, opts.frames))
        return
    source = VideoSource(opts.haystack, fps=opts.fps if opts.frames is None else opts.frames / duration,
                         duration=duration, width=opts.width)
    if source.duration + 1e-6 < duration:
        raise ConfigError(f"{opts.haystack} lasts {source.duration:.1f} s, shorter than the {duration_label(duration)} "
                          "haystack asked for")
    if opts.frames is None:
        yield from source.frames()
    else:
        yield from source.frames_at(sample_times(duration, opts.frames))


def build_haystack_frames(opts: BuildOptions, duration: float, index: int, store: FrameStore,
                          progress: bool) -> Haystack:
    frames: list[str] = []
    size = (opts.width, opts.height)
    for image in _haystack_frames(opts, duration, index):
        size = image.size
        frames.append(store.put(image))
        if progress and len(frames) % 600 == 0:
            print(f"  haystack {duration_label(duration)}: {len(frames)} frames", file=sys.stderr)
    return Haystack(duration, duration_label(duration), frames, size[0], size[1],
                    "procedural" if opts.haystack == "default" else str(Path(opts.haystack).resolve()),
                    opts.rate(duration))


# ---------------------------------------------------------------------------------------------------------------
# Needles


def _cartoon_tile(kind: str, size: tuple[int, int], offset: float = 0.5, rise: float = 0.5) -> Image.Image:
    """A cartoon on a plain light background, the full frame; ``offset`` moves it left to right (clips, and
    frame needles: each at its own place), ``rise`` top to bottom (each clip on its own line)."""
    from niah.benchmarks.mm_niah.needle_images import draw_cartoon

    w, h = size
    side = max(8, round(min(w, h) * 0.7))
    canvas = Image.new("RGBA", size, (236, 232, 222, 255))
    cartoon = draw_cartoon(kind, side, 0)
    x = round((w - side) * offset)
    canvas.alpha_composite(cartoon, (x, round((h - side) * rise)))
    return canvas.convert("RGB")


def _option_image(kind: str) -> Image.Image:
    return _cartoon_tile(kind, (224, 224))


def _cartoon_name(kind: str) -> str:
    return kind.replace("_", " ")


@dataclass(slots=True)
class _Needle:
    label: str  # the word or cartoon kind
    first: int  # its first frame
    frames: int
    place: float = 0.5  # frame needles: the cartoon's left-right place; clips: its height


#: Distinct places of frame and clip needles within a sample: every needle's frames differ from the others' (two
#: needles of one cartoon never share a frame file, so a frame sampling that keeps one never "shows" the other).
NEEDLE_PLACES = 16


MAX_PLACEMENT_TRIES = 1_000_000


def _non_touching_sums(count: int, span: int, room: int) -> tuple[int, int]:
    """The smallest and largest sum of ``count`` start frames (each in [0, room]) whose spans of ``span``
    frames neither overlap nor touch."""
    pad = (span + 1) * count * (count - 1) // 2
    return pad, count * room - pad


def placement_feasible(row: DepthRow, count: int, span: int, num_frames: int) -> bool:
    """Whether ``count`` non-touching needles of ``span`` frames can have their mean depth in ``row`` (every
    integer sum between the smallest and the largest is reachable, so comparing the ranges is exact)."""
    if num_frames - count * span + 1 < count:
        return False
    room = num_frames - span
    low, high = row.sum_range(count, room)
    smallest, largest = _non_touching_sums(count, span, room)
    return max(low, smallest) <= min(high, largest)


def place_in_cell(rng: random.Random, row: DepthRow, count: int, span: int, num_frames: int) -> list[int]:
    """Start frames (ascending) of ``count`` needles of ``span`` frames: uniform over every placement whose spans
    neither overlap nor touch and whose mean depth (start / (N - span)) lies in ``row``.

    Placements are s_i = u_i + i x span for the k-subsets u_0 < ... < u_(k-1) of range(N - k x span + 1), a
    one-to-one map onto non-touching placements, so a uniform subset is a uniform placement; the mean-depth
    condition is then met by rejection. The condition bounds the last start (at most the largest allowed sum
    less the smallest sum of the others) and the first (at least the smallest allowed sum less the largest sum
    of the others), so subsets are drawn from that narrower range: the same distribution, far fewer rejections
    in the edge cells."""
    room = num_frames - span
    low, high = row.sum_range(count, room)
    pad_others = (span + 1) * (count - 1) * (count - 2) // 2
    top = min(num_frames - count * span, high - pad_others - (count - 1) * span)
    bottom = max(0, low - ((count - 1) * room - pad_others))
    pool = range(bottom, top + 1)
    if len(pool) >= count:
        for _ in range(MAX_PLACEMENT_TRIES):
            starts = [u + i * span for i, u in enumerate(sorted(rng.sample(pool, count)))]
            if low <= sum(starts) <= high:
                return starts
    raise ConfigError(f"cannot place {count} needles of {span} frames with their mean depth in cell {row.label} "
                      f"of {num_frames} frames; use fewer, wider depth cells or more frames (--frames, or a longer "
                      "duration with --frames all)")


def place_exact(rng: random.Random, row: DepthRow, count: int, span: int, num_frames: int) -> list[int]:
    """The first needle exactly at the row's depth (first frame round(depth x (N - span))), the others at
    uniformly random start frames whose spans neither overlap nor touch any placed one."""
    room = num_frames - span
    starts = [round(row.lo * room)]
    for _ in range(count - 1):
        for _attempt in range(500):
            s = rng.randrange(room + 1)
            if all(abs(s - t) > span for t in starts):
                starts.append(s)
                break
        else:
            raise ConfigError(f"cannot place {count} needles of {span} frames apart in {num_frames} frames; "
                              "use more frames (--frames, or a longer duration with --frames all) or shorter "
                              "needles")
    return starts


def _render_needle_frames(kind: str, needle: _Needle, haystack: Haystack, first: int, store: FrameStore,
                          paste_rng: random.Random, counting: bool) -> list[str]:
    from niah.video.synth import render_caption

    out: list[str] = []
    size = (haystack.width, haystack.height)
    where = paste_rng.random()  # one position for the whole span: the object stays put while shown
    for k in range(needle.frames):
        if kind == "overlay" and not counting:
            image = render_caption(store.load(haystack.frames[first + k]), f"The secret word is {needle.label}.")
        elif kind == "overlay":  # counting with overlays: the cartoon pasted onto the scene
            from niah.benchmarks.mm_niah.needle_images import draw_cartoon, paste_needle

            image, _box = paste_needle(store.load(haystack.frames[first + k]), draw_cartoon(needle.label, 256, 0),
                                       rng=random.Random(where), scale=(0.3, 0.4))
        elif kind == "frame":
            image = _cartoon_tile(needle.label, size, offset=needle.place)
        else:  # clip: the cartoon crosses the frame
            image = _cartoon_tile(needle.label, size, offset=(k + 0.5) / needle.frames, rise=needle.place)
        out.append(store.put(image))
    return out


#: A subtitle line lasts this long (seconds) at most, needle or filler alike.
LINE_SECONDS = (1.5, 3.0)


def _line_length(rng: random.Random, room: float) -> float:
    """How long one line stays on screen, drawn the same way for needle and filler lines (so that no cue
    marks a needle by its length): 1.5-3 s, or within ``room`` when a needle line must fit less (the half of
    it up to all of it)."""
    high = min(LINE_SECONDS[1], room)
    return rng.uniform(min(LINE_SECONDS[0], high / 2), high)


def _subtitle_file(rng: random.Random, firsts: Sequence[int], span: int, lines: Sequence[str], num_frames: int,
                   fps: float, line_seconds: float | None = None) -> str:
    """An SRT with the needle lines inside their spans and filler talk every 6-12 s elsewhere (never
    overlapping a needle line). ``line_seconds``: the room a needle line has from its frame's time (sampled
    frames lie far apart; a line as long as a frame's span would leave a silence around it that marks it), else
    it has its frames' span. Needle and filler lines are shaped alike: lengths drawn from one distribution
    (:func:`_line_length`, capped by the needle's room), starts at any millisecond, not on the frame grid,
    so nothing in the file's timing tells a needle cue from a filler cue."""
    import datetime as dt

    import srt  # type: ignore[import-untyped,unused-ignore]

    duration = num_frames / fps
    room = line_seconds if line_seconds is not None else span / fps
    cues: list[tuple[float, float, str]] = []
    for first, line in zip(firsts, lines, strict=True):
        length = _line_length(rng, room)
        start = first / fps + rng.uniform(0.0, room - length)  # inside the span its frame shows
        cues.append((start, start + length, line))
    t = rng.uniform(1.0, 6.0)
    while t < duration - 1.0:
        length = min(_line_length(rng, room), duration - t)
        if all(t + length <= s or t >= e for s, e, _ in cues):
            cues.append((t, t + length, rng.choice(FILLER_LINES)))
        t += rng.uniform(6.0, 12.0)
    cues.sort()
    return srt.compose([srt.Subtitle(index=i + 1, start=dt.timedelta(milliseconds=round(s * 1000)),
                                     end=dt.timedelta(milliseconds=round(e * 1000)), content=text)
                        for i, (s, e, text) in enumerate(cues)], reindex=False)


def build_key_of(opts: BuildOptions) -> BuildKey:
    """The key every draw of the build is made from (:mod:`niah.build.buildkey`): the seed and every option (the
    needle kind among them), and a user haystack's file content. Keyed on the seed, task and depth row alone,
    an overlay build and a subtitle build drew the same words at the same frames, so the option words of the
    one answered the ordering questions of the other (100 against 50)."""
    inputs = {f: getattr(opts, f) for f in BuildOptions.__dataclass_fields__ if f not in ("seed", "rows", "haystack")}
    inputs["rows"] = [row.bounds() for row in opts.rows]
    inputs["haystack"] = "procedural" if opts.haystack == "default" else path_digest(opts.haystack)
    return build_key(BENCHMARK, opts.seed, inputs)


def label_pool(opts: BuildOptions, task: str) -> list[str]:
    """What a task's needles show: secret words, or cartoon kinds."""
    from niah.benchmarks.mm_niah.needle_images import CARTOON_KINDS

    return list(WORDS) if shows_words(opts.needle, task) else sorted(CARTOON_KINDS)


def task_golds(opts: BuildOptions, task: str, key: BuildKey) -> dict[tuple[int, ...], Any]:
    """Each sample's categorical gold, by its grid position (duration, depth row, replicate), from a balanced
    deck over the task (:mod:`niah.build.deck`): counting's count, ordering's answer, retrieval-choice's correct
    option and retrieval's word or object. Drawn per sample instead, a 20-sample task put 65% of ordering
    answers on one option and 40% of counts on one number, so a constant reply beat chance by 15 points."""
    values: list[Any] = {"counting": list(range(COUNT_RANGE[0], COUNT_RANGE[1] + 1)), "ordering": [0, 1],
                         "retrieval-choice": list(range(4))}.get(task) or label_pool(opts, task)
    positions = [(d, r, k) for d in range(len(opts.durations)) for r in range(len(opts.rows))
                 for k in range(opts.per_cell)]
    return deal(values, positions, key.label(task, "golds"))


def make_sample(opts: BuildOptions, task: str, haystack: Haystack, row: DepthRow, k: int,
                store: FrameStore, gold: Any, key: BuildKey) -> Sample:
    """One sample; ``gold`` is its value from ``task_golds``; ``key`` the build's (:func:`build_key_of`)."""
    from niah.tokens.image import get_image_rule

    rng = key.random(task, haystack.label, row.label, k)
    n_frames = len(haystack.frames)
    span = opts.span(haystack.duration)
    fps = haystack.fps
    words = shows_words(opts.needle, task)
    pool = label_pool(opts, task)
    count = int(gold) if task == "counting" else 2 if task == "ordering" else 1
    if task == "counting":
        labels = [rng.choice(pool)] * count
    elif task == "retrieval":
        labels = [str(gold)]
    else:
        labels = rng.sample(pool, count)
    place = place_exact if row.exact else place_in_cell
    firsts = place(rng, row, count, span, n_frames)
    depths = [round(first / (n_frames - span), 6) for first in firsts]
    places = [(p + 0.5) / NEEDLE_PLACES for p in rng.sample(range(NEEDLE_PLACES), count)]
    needles = [_Needle(label, first, span, place) for label, first, place in zip(labels, firsts, places, strict=True)]
    frames = list(haystack.frames)
    subtitles: str | None = None
    if opts.needle == "subtitle":
        lines = [f"The secret word is {n.label}." for n in needles]
        subtitles = store.put_subtitles(_subtitle_file(rng, firsts, span, lines, n_frames, fps,
                                                       # at most one frame's span: the line stays its frame's
                                                       None if opts.frames is None
                                                       else min(opts.needle_seconds, 1 / fps)))
    else:
        for needle, first in zip(needles, firsts, strict=True):
            rendered = _render_needle_frames(opts.needle, needle, haystack, first, store, rng, task == "counting")
            frames[first:first + span] = rendered
    needle_times = [round((first + (span - 1) // 2) / fps, 6) for first in firsts]
    # every frame a needle is on screen: [first, last] presentation times (the browser marks them all)
    needle_spans = [[round(first / fps, 6), round((first + span - 1) / fps, 6)] for first in firsts]
    text_options = words

    def name(label: str) -> str:
        return label if text_options else _cartoon_name(label)

    choices: list[list[Part]] | None = None
    noun = "secret word" if text_options else "object"
    shown = "said" if opts.needle == "subtitle" else "shown"
    if task == "counting" and opts.needle == "subtitle":
        question = (f"How many times is the secret word {labels[0]} said in the video? "
                    "Answer with a number only.")
        answer: Any = str(count)
        option_names: list[str] | None = None
    elif task == "retrieval":
        question = (f"What is the secret word {shown} in the video? Answer with the word only." if text_options else
                    "Which object is shown in the video, apart from the scenery? Answer with its name only.")
        answer = name(labels[0])
        option_names = None
    elif task == "retrieval-choice":
        others = rng.sample([p for p in pool if p != labels[0]], 3)
        answer = int(gold)
        option_labels = others[:answer] + [labels[0]] + others[answer:]
        option_names = [name(lab) for lab in option_labels]
        question = f"Which of these {noun}s appears in the video?"
        choices = ([[TextPart(n)] for n in option_names] if text_options
                   else [[ImagePart(store.put(_option_image(lab)))] for lab in option_labels])
    elif task == "counting":
        question = (f"How many times does {with_article(name(labels[0]))} appear in the video? "
                    "Answer with a number only.")
        answer = str(count)
        option_names = None
    else:
        earlier = 0 if firsts[0] < firsts[1] else 1
        answer = int(gold)  # the options are ordered so that the needle shown first is option ``gold``
        order = [0, 1] if answer == earlier else [1, 0]
        option_labels = [labels[i] for i in order]
        option_names = [name(lab) for lab in option_labels]
        question = f"Both of these {noun}s appear in the video. Which one appears first?"
        choices = ([[TextPart(n)] for n in option_names] if text_options
                   else [[ImagePart(store.put(_option_image(lab)))] for lab in option_labels])
    rule = get_image_rule(opts.image_rule)
    frame_tokens = rule.tokens(haystack.width, haystack.height) * n_frames
    meta: dict[str, Any] = {
        "needle_kind": opts.needle, "duration_s": haystack.duration, "duration": haystack.label, "fps": fps,
        "frame_sampling": "every" if opts.frames is None else "uniform", "num_frames": n_frames, "num_images": n_frames, "image_tokens": frame_tokens, "image_tokens_rule": rule.name,
        "context_length": frame_tokens, "depth": depths, "depth_mode": opts.depth_mode,
        "depth_cell": row.bounds(), "needle_times": needle_times, "needle_spans": needle_spans,
        "needle_labels": [name(lab) for lab in labels], "needle_frames": span, "needle_first_frames": firsts,
        "haystack": haystack.source,
    }
    if option_names is not None:
        meta["options"] = option_names
    sample_id = f"{task}/{haystack.label}/d{row.label}/{k:03d}"
    return Sample(id=sample_id, benchmark=BENCHMARK, task=task,
                  context=[VideoPart(frames=tuple(frames), fps=fps, subtitles=subtitles)],
                  question=[TextPart(question)],
                  answer=answer, choices=choices, meta=meta)


def build(out: Path, options: Mapping[str, Any], progress: bool) -> dict[str, int]:
    """Write a video-niah dataset; returns sample counts per task."""
    opts = BuildOptions.from_mapping(options)
    counts: dict[str, int] = dict.fromkeys(opts.tasks, 0)
    started = time.perf_counter()
    with DatasetWriter(out) as writer:
        store = FrameStore(writer)
        key = build_key_of(opts)
        golds = {task: task_golds(opts, task, key) for task in opts.tasks}
        haystacks = []
        for index, duration in enumerate(opts.durations):
            if progress:
                how = f"at {opts.fps:g} fps" if opts.frames is None else f"sampled to {opts.frames} frames"
                print(f"haystack {duration_label(duration)} {how}", file=sys.stderr)
            hay = build_haystack_frames(opts, duration, index, store, progress)
            haystacks.append({"duration": hay.label, "frames": len(hay.frames), "fps": hay.fps, "width": hay.width,
                              "height": hay.height, "source": hay.source})
            for task in opts.tasks:
                for row_index, row in enumerate(opts.rows):
                    for k in range(opts.per_cell):
                        gold = golds[task][(index, row_index, k)]
                        writer.write(make_sample(opts, task, hay, row, k, store, gold, key))
                        counts[task] += 1
        writer.finish({"benchmark": BENCHMARK, "tasks": list(opts.tasks), "needle": opts.needle,
                       "frames": opts.frames if opts.frames is not None else ALL_FRAMES,
                       "fps": opts.fps if opts.frames is None else None,
                       "durations": [duration_label(d) for d in opts.durations], "depth_mode": opts.depth_mode,
                       "depth_cells": [r.bounds() for r in opts.rows],
                       "per_cell": opts.per_cell, "seed": opts.seed, "build_key": key.digest, "image_tokens_rule": opts.image_rule,
                       "haystacks": haystacks, "frames_written": store.written})
    if progress:
        print(f"built {sum(counts.values())} samples, {store.written} frames in {time.perf_counter() - started:.1f} s",
              file=sys.stderr)
    return counts
