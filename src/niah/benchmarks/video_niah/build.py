"""Video needle haystacks: a length x depth grid of needles hidden in long videos.

For each duration the haystack (niah's procedural scenes, or the user's video read where it lies) is sampled
once at ``fps`` and its frames are written once per build, as JPEGs named by their content hash (so a file
name tells nothing about what a frame shows). A sample is a frame list: the haystack's frames in order with
the needle's frames in place of the ones it covers, each needle frame written once too. Its video part has
the haystack's fps, so every frame's time is its index / fps, and the runner samples frames from it by
count or fps like any frame folder (``niah run --max-frames / --video-fps``).

Needles (``--needle``): ``overlay``, a caption over the scene ("The secret word is ..."); ``frame``, a cartoon
object shown full-frame; ``clip``, the cartoon moving across the frame for a few frames. Tasks:

- ``retrieval``: what the needle showed (open answer: the secret word or the object's name);
- ``retrieval-choice``: which of four options appeared (image options for frame and clip needles);
- ``counting``: how many times the object appears (1-4 times at random depths; overlay mode pastes the
  cartoon onto the scene, as MM-NIAH pastes image needles into its documents);
- ``ordering``: which of two needles came first.

The first needle of a sample sits at the cell's depth (``meta.cell_depth``); further needles (counting,
ordering) at random depths that do not overlap. ``meta.depth`` lists every needle's depth, ``meta.needle_times``
the presentation time (s) of each needle's middle frame, ``meta.num_frames`` and ``meta.image_tokens`` the
length in frames and in tokens under ``meta.image_tokens_rule``.
"""

from __future__ import annotations

import hashlib
import io
import random
import re
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from niah.errors import ConfigError
from niah.sample import DatasetWriter, ImagePart, Part, Sample, TextPart, VideoPart

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
DEFAULT_DEPTHS = "0,0.25,0.5,0.75,1"
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


def duration_label(seconds: float) -> str:
    if seconds >= 3600 and seconds % 3600 == 0:
        return f"{seconds / 3600:g}h"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{seconds / 60:g}m"
    return f"{seconds:g}s"


def _csv(value: Any) -> list[str]:
    items = [str(v) for v in value] if isinstance(value, (list, tuple)) else str(value).split(",")
    return [i.strip() for i in items if i.strip()]


@dataclass(frozen=True, slots=True)
class BuildOptions:
    durations: tuple[float, ...]
    depths: tuple[float, ...]
    needle: str
    fps: float
    per_cell: int
    seed: int
    tasks: tuple[str, ...]
    haystack: str  # "default" or a video path
    width: int
    height: int
    needle_seconds: float
    image_rule: str

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any]) -> BuildOptions:
        # niah eval passes its --lengths as "lengths": for video haystacks those are durations
        raw = options.get("lengths") or options.get("durations", DEFAULT_DURATIONS)
        durations = tuple(parse_duration(d) for d in _csv(raw))
        try:
            depths = tuple(float(d) for d in _csv(options.get("depths", DEFAULT_DEPTHS)))
        except ValueError:
            raise ConfigError("--depths must be numbers in [0, 1], e.g. 0,0.5,1") from None
        if not durations or not depths:
            raise ConfigError("give at least one duration and one depth")
        if any(d not in (0.0, 0.25, 0.5, 0.75, 1.0) for d in depths) or len(set(depths)) != len(depths):
            # the report's grid has one row per quarter depth; empty rows count 0 in its tables
            raise ConfigError("--depths must be distinct values among 0, 0.25, 0.5, 0.75 and 1 (the grid's rows)")
        needle = str(options.get("needle", "overlay"))
        if needle not in NEEDLE_KINDS:
            raise ConfigError(f"--needle must be one of {', '.join(NEEDLE_KINDS)}, not {needle!r}")
        tasks = tuple(_csv(options.get("tasks", ",".join(TASKS))))
        unknown = [t for t in tasks if t not in TASKS]
        if unknown or not tasks:
            raise ConfigError(f"unknown task(s) {', '.join(unknown) or '(none)'}; choose from {', '.join(TASKS)}")
        fps = float(options.get("fps", 1.0))
        per_cell = int(options.get("per_cell", 1))
        if not fps > 0 or per_cell < 1:
            raise ConfigError("--fps must be positive and --per-cell at least 1")
        from niah.tokens.image import get_image_rule

        rule = str(options.get("image_rule", "internvl-1tile"))
        get_image_rule(rule)  # an unknown rule fails before any work
        out = cls(durations=durations, depths=depths, needle=needle, fps=fps, per_cell=per_cell,
                  seed=int(options.get("seed", 0)), tasks=tasks, haystack=str(options.get("haystack") or "default"),
                  width=int(options.get("width", 640)), height=int(options.get("height", 360)),
                  needle_seconds=float(options.get("needle_seconds", 2.0)), image_rule=rule)
        span = max(1, round(out.needle_seconds * fps))
        for d in durations:
            frames = max(1, round(d * fps))
            if frames < 12 * span:
                raise ConfigError(f"a {duration_label(d)} haystack at {fps:g} fps has {frames} frames, too few for "
                                  f"needles of {span} frames (need at least {12 * span}); use a longer duration")
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


def _haystack_frames(opts: BuildOptions, duration: float, index: int) -> Iterator[Image.Image]:
    from niah.video.synth import ProceduralScenes, VideoSource

    if opts.haystack == "default":
        yield from ProceduralScenes(duration, fps=opts.fps, width=opts.width, height=opts.height,
                                    seed=opts.seed * 1000 + index).frames()
        return
    source = VideoSource(opts.haystack, fps=opts.fps, duration=duration, width=opts.width)
    if source.duration + 1e-6 < duration:
        raise ConfigError(f"{opts.haystack} lasts {source.duration:.1f} s, shorter than the {duration_label(duration)} "
                          "haystack asked for")
    yield from source.frames()


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
                    "procedural" if opts.haystack == "default" else str(Path(opts.haystack).resolve()))


# ---------------------------------------------------------------------------------------------------------------
# Needles


def _cartoon_tile(kind: str, size: tuple[int, int], offset: float = 0.5) -> Image.Image:
    """A cartoon on a plain light background, the full frame; ``offset`` moves it left to right (clips)."""
    from niah.benchmarks.mm_niah.needle_images import draw_cartoon

    w, h = size
    side = max(8, round(min(w, h) * 0.7))
    canvas = Image.new("RGBA", size, (236, 232, 222, 255))
    cartoon = draw_cartoon(kind, side, 0)
    x = round((w - side) * offset)
    canvas.alpha_composite(cartoon, (x, (h - side) // 2))
    return canvas.convert("RGB")


def _option_image(kind: str) -> Image.Image:
    return _cartoon_tile(kind, (224, 224))


def _cartoon_name(kind: str) -> str:
    return kind.replace("_", " ")


@dataclass(slots=True)
class _Needle:
    label: str  # the word or cartoon kind
    depth: float
    frames: int


def _spans(needles: Sequence[_Needle], num_frames: int) -> list[int]:
    """First frame of each needle (the video synth's placement rule: round(depth * (N - n)))."""
    return [round(n.depth * (num_frames - n.frames)) for n in needles]


def _random_depths(rng: random.Random, first: float, count: int, span: int, num_frames: int) -> list[float]:
    """``first`` and ``count - 1`` further depths whose needle spans neither overlap nor touch."""
    depths = [first]
    for _ in range(count - 1):
        for _attempt in range(500):
            d = round(rng.random(), 4)
            starts = [round(x * (num_frames - span)) for x in depths]
            s = round(d * (num_frames - span))
            if all(abs(s - t) > span for t in starts):
                depths.append(d)
                break
        else:
            raise ConfigError(f"cannot place {count} needles of {span} frames apart in {num_frames} frames; "
                              "use a longer duration or shorter needles")
    return depths


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
            image = _cartoon_tile(needle.label, size)
        else:  # clip: the cartoon crosses the frame
            image = _cartoon_tile(needle.label, size, offset=(k + 0.5) / needle.frames)
        out.append(store.put(image))
    return out


def _subtitle_file(rng: random.Random, firsts: Sequence[int], span: int, lines: Sequence[str], num_frames: int,
                   fps: float) -> str:
    """An SRT with the needle lines at their spans and filler talk every 6-12 s elsewhere (never overlapping a
    needle line, so no cue marks where the needle is by its shape)."""
    import datetime as dt

    import srt  # type: ignore[import-untyped,unused-ignore]

    duration = num_frames / fps
    cues = [(first / fps, (first + span) / fps, line) for first, line in zip(firsts, lines, strict=True)]
    t = rng.uniform(1.0, 6.0)
    while t < duration - 1.0:
        length = min(rng.uniform(1.5, 3.0), duration - t)
        if all(t + length <= s or t >= e for s, e, _ in cues):
            cues.append((t, t + length, rng.choice(FILLER_LINES)))
        t += rng.uniform(6.0, 12.0)
    cues.sort()
    return srt.compose([srt.Subtitle(index=i + 1, start=dt.timedelta(milliseconds=round(s * 1000)),
                                     end=dt.timedelta(milliseconds=round(e * 1000)), content=text)
                        for i, (s, e, text) in enumerate(cues)], reindex=False)


def make_sample(opts: BuildOptions, task: str, haystack: Haystack, depth: float, k: int,
                store: FrameStore) -> Sample:
    from niah.benchmarks.mm_niah.needle_images import CARTOON_KINDS
    from niah.tokens.image import get_image_rule

    rng = random.Random(f"video-niah/{opts.seed}/{task}/{haystack.label}/{depth}/{k}")
    n_frames = len(haystack.frames)
    span = max(1, round(opts.needle_seconds * opts.fps))
    kinds = sorted(CARTOON_KINDS)
    words = opts.needle == "subtitle" or (opts.needle == "overlay" and task != "counting")
    pool = list(WORDS) if words else kinds
    count = {"counting": rng.randint(1, 4), "ordering": 2}.get(task, 1)
    labels = [rng.choice(pool)] * count if task == "counting" else rng.sample(pool, count)
    depths = _random_depths(rng, depth, count, span, n_frames)
    needles = [_Needle(label, d, span) for label, d in zip(labels, depths, strict=True)]
    firsts = _spans(needles, n_frames)
    frames = list(haystack.frames)
    subtitles: str | None = None
    if opts.needle == "subtitle":
        lines = [f"The secret word is {n.label}." for n in needles]
        subtitles = store.put_subtitles(_subtitle_file(rng, firsts, span, lines, n_frames, opts.fps))
    else:
        for needle, first in zip(needles, firsts, strict=True):
            rendered = _render_needle_frames(opts.needle, needle, haystack, first, store, rng, task == "counting")
            frames[first:first + span] = rendered
    needle_times = [round((first + (span - 1) // 2) / opts.fps, 6) for first in firsts]
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
        answer = rng.randrange(4)
        option_labels = others[:answer] + [labels[0]] + others[answer:]
        option_names = [name(lab) for lab in option_labels]
        question = f"Which of these {noun}s appears in the video?"
        choices = ([[TextPart(n)] for n in option_names] if text_options
                   else [[ImagePart(store.put(_option_image(lab)))] for lab in option_labels])
    elif task == "counting":
        question = (f"How many times does a {name(labels[0])} appear in the video? "
                    "Answer with a number only.")
        answer = str(count)
        option_names = None
    else:
        order = [0, 1] if rng.random() < 0.5 else [1, 0]
        option_labels = [labels[i] for i in order]
        option_names = [name(lab) for lab in option_labels]
        earlier = 0 if firsts[0] < firsts[1] else 1
        answer = order.index(earlier)
        question = f"Both of these {noun}s appear in the video. Which one appears first?"
        choices = ([[TextPart(n)] for n in option_names] if text_options
                   else [[ImagePart(store.put(_option_image(lab)))] for lab in option_labels])
    rule = get_image_rule(opts.image_rule)
    frame_tokens = rule.tokens(haystack.width, haystack.height) * n_frames
    meta: dict[str, Any] = {
        "needle_kind": opts.needle, "duration_s": haystack.duration, "duration": haystack.label, "fps": opts.fps,
        "num_frames": n_frames, "num_images": n_frames, "image_tokens": frame_tokens, "image_tokens_rule": rule.name,
        "context_length": frame_tokens, "depth": depths, "cell_depth": depth, "needle_times": needle_times,
        "needle_labels": [name(lab) for lab in labels], "needle_frames": span, "haystack": haystack.source,
    }
    if option_names is not None:
        meta["options"] = option_names
    sample_id = f"{task}/{haystack.label}/d{depth:g}/{k:03d}"
    return Sample(id=sample_id, benchmark=BENCHMARK, task=task,
                  context=[VideoPart(frames=tuple(frames), fps=opts.fps, subtitles=subtitles)],
                  question=[TextPart(question)],
                  answer=answer, choices=choices, meta=meta)


def build(out: Path, options: Mapping[str, Any], progress: bool) -> dict[str, int]:
    """Write a video-niah dataset; returns sample counts per task."""
    opts = BuildOptions.from_mapping(options)
    counts: dict[str, int] = dict.fromkeys(opts.tasks, 0)
    started = time.perf_counter()
    with DatasetWriter(out) as writer:
        store = FrameStore(writer)
        haystacks = []
        for index, duration in enumerate(opts.durations):
            if progress:
                print(f"haystack {duration_label(duration)} at {opts.fps:g} fps", file=sys.stderr)
            hay = build_haystack_frames(opts, duration, index, store, progress)
            haystacks.append({"duration": hay.label, "frames": len(hay.frames), "width": hay.width,
                              "height": hay.height, "source": hay.source})
            for task in opts.tasks:
                for depth in opts.depths:
                    for k in range(opts.per_cell):
                        writer.write(make_sample(opts, task, hay, depth, k, store))
                        counts[task] += 1
        writer.finish({"benchmark": BENCHMARK, "tasks": list(opts.tasks), "needle": opts.needle, "fps": opts.fps,
                       "durations": [duration_label(d) for d in opts.durations], "depths": list(opts.depths),
                       "per_cell": opts.per_cell, "seed": opts.seed, "image_tokens_rule": opts.image_rule,
                       "haystacks": haystacks, "frames_written": store.written})
    if progress:
        print(f"built {sum(counts.values())} samples, {store.written} frames in {time.perf_counter() - started:.1f} s",
              file=sys.stderr)
    return counts
