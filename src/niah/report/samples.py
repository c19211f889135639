"""The per-sample browser's data: prompt previews, thumbnails and page chunks, written while streaming.

Nothing here holds a whole run or dataset in memory. scored.jsonl is read row by row; each dataset sample is
read on demand through a byte-offset index of samples.jsonl; records are written in fixed-size chunk files
(``assets/samples/<slug>/chunk-NNNNN.js``) as they fill, and only a small per-sample index (task, bin, depth
cell, status, score, chunk position, id) stays in memory for the page's filters.

Chunks are JavaScript files that call ``window.NIAH_addChunk(k, [...])`` because a page opened from file://
may load ``<script src>`` but may not ``fetch`` JSON. All embedded JSON goes through :func:`safe_json`, which
escapes ``<``, ``>``, ``&`` and the JS line separators, so no text can close a script element or become markup;
the page script then inserts every string with ``textContent``.

Thumbnails are small JPEGs written into ``assets/thumbs`` (the report never links outside its folder), made
only for the first ``thumbs_per_cell`` samples of each (task, length bin, depth cell), and each source image
once. Media paths are resolved with ``Dataset.resolve_media``, which refuses paths that leave the dataset.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from niah.benchmarks.protocol import JUDGES_DISAGREE, UNSCORED, Axis
from niah.report.inputs import ReportInput, ScoredRow, iter_scored_rows
from niah.report.tables import ordered_tasks
from niah.sample import Dataset, ImagePart, Part, Sample, TextPart, VideoPart
from niah.util.errors import DataError, NiahError
from niah.util.iox import write_atomic
from niah.video.frames import IMAGE_SUFFIXES

STATUSES: tuple[str, ...] = ("correct", "partial", "wrong", "error", "unscored")
THUMBS_DIR = "assets/thumbs"
SAMPLES_ASSETS_DIR = "assets/samples"
MAX_RESPONSE_CHARS = 5000
MAX_QUESTION_CHARS = 4000
MAX_OPTION_CHARS = 600


def safe_json(obj: Any) -> str:
    """JSON that is also safe inside a <script> element and in a JS file: ``</script>``, ``<!--`` and the
    U+2028/U+2029 separators cannot occur literally (they only ever appear inside JSON strings)."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def status_of(row: ScoredRow) -> str:
    """correct (score 1), partial (0 < score < 1: soft accuracy), wrong, error (no response), or unscored (the
    family marks the score a placeholder no aggregate counts, e.g. a reply waiting for its judge)."""
    if row.error or row.response is None:
        return "error"
    if row.extra.get(UNSCORED):
        return "unscored"
    if row.score >= 1.0:
        return "correct"
    return "partial" if row.score > 0.0 else "wrong"


def gold_text(answer: Any, num_choices: int | None) -> str:
    """The gold answer as a reader wants it: option letter for an option index, JSON for lists."""
    if isinstance(answer, str):
        return answer
    if isinstance(answer, int) and not isinstance(answer, bool) and num_choices and 0 <= answer < num_choices:
        return f"{chr(65 + answer)} (option index {answer})"
    return json.dumps(answer, ensure_ascii=False)


# ------------------------------------------------------------------------------------------------ needles

def _flatten_strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _flatten_strings(item)
    elif isinstance(value, dict):
        for key in ("text", "needle", "sentence", "path", "image"):
            if key in value:
                yield from _flatten_strings(value[key])


def needle_strings(meta: dict[str, Any]) -> list[str]:
    """Strings from ``meta.needles`` (text needles are their text, image needles their image path)."""
    seen: list[str] = []
    for s in _flatten_strings(meta.get("needles")):
        s = s.strip()
        if len(s) >= 3 and s not in seen:
            seen.append(s)
    return seen


def _image_is_needle(path: str, needles: Sequence[str]) -> bool:
    name = PurePosixPath(path).name
    for needle in needles:
        if needle == path or path.endswith("/" + needle.lstrip("/")) or PurePosixPath(needle).name == name:
            return True
    return False


# ------------------------------------------------------------------------------------------------ preview

def _merge(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(intervals):
        if start >= end:
            continue
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _highlighted(text: str, offset: int, spans: list[tuple[int, int]]) -> list[list[Any]]:
    """Split ``text`` (starting at global ``offset``) into plain ("t") and needle ("n") segments."""
    out: list[list[Any]] = []
    cursor = 0
    for start, end in spans:
        s, e = max(start - offset, 0), min(end - offset, len(text))
        if e <= cursor or s >= len(text):
            continue
        s = max(s, cursor)
        if s > cursor:
            out.append(["t", text[cursor:s]])
        out.append(["n", text[s:e]])
        cursor = e
    if cursor < len(text):
        out.append(["t", text[cursor:]])
    return out


_SNAP_CHARS = 40
_SPACE = re.compile(r"\s")


def _snap_to_words(text: str, offset: int, start: int, end: int, spans: list[tuple[int, int]], *,
                   cut_start: bool, cut_end: bool) -> tuple[int, int]:
    """Move the cut ends of a kept stretch (global ``start``..``end``; ``text`` begins at ``offset``) to the
    nearest whitespace within a few characters, so the preview does not start or stop mid-word. A needle
    span is never cut by the move."""
    def inside_needle(pos: int) -> bool:
        return any(s < pos < e for s, e in spans)

    if cut_start:
        match = _SPACE.search(text, start - offset, min(start - offset + _SNAP_CHARS, end - offset))
        if match and not any(start <= s < match.end() + offset for s, _ in spans):
            start = match.end() + offset
    if cut_end:
        lo = max(end - offset - _SNAP_CHARS, start - offset)
        last = None
        for match in _SPACE.finditer(text, lo, end - offset):
            last = match
        if last is not None and not inside_needle(last.start() + offset) and not any(
                last.start() + offset < e <= end for _, e in spans):
            end = last.start() + offset
    return start, max(start, end)


def preview_parts(parts: Sequence[Part], needles: Sequence[str],
                  image_ref: Callable[[str, bool], dict[str, Any]], *,
                  head: int = 600, tail: int = 300, window: int = 250, max_spans: int = 24,
                  video_ref: Callable[[VideoPart], dict[str, Any]] | None = None) -> list[list[Any]]:
    """A readable preview of interleaved parts: the start, the end, and a window around each needle occurrence
    of the text, with omitted stretches as gap segments ("g", count); every image is kept (as a reference
    from ``image_ref(path, is_needle)``), needle text is marked ("n") so the page can highlight it; a video
    becomes ``video_ref(part)`` (sampled frames as thumbnails with their timestamps) when given.
    """
    starts: dict[int, int] = {}
    total = 0
    for i, part in enumerate(parts):
        if isinstance(part, TextPart):
            starts[i] = total
            total += len(part.text)
    spans: list[tuple[int, int]] = []
    for i, start in starts.items():
        text = parts[i].text  # type: ignore[union-attr]
        for needle in needles:
            pos = text.find(needle)
            while pos >= 0 and len(spans) < max_spans:
                spans.append((start + pos, start + pos + len(needle)))
                pos = text.find(needle, pos + len(needle))
    spans = _merge(spans)
    if total <= head + tail + 2 * window:
        keep = [(0, total)]
    else:
        keep = _merge([(0, head), (total - tail, total)] + [(max(s - window, 0), min(e + window, total))
                                                           for s, e in spans])
    out: list[list[Any]] = []

    def gap(count: int) -> None:
        if count <= 0:
            return
        if out and out[-1][0] == "g":
            out[-1][1] += count
        else:
            out.append(["g", count])

    for i, part in enumerate(parts):
        if isinstance(part, TextPart):
            s0, e0 = starts[i], starts[i] + len(part.text)
            cursor = s0
            for ks, ke in keep:
                ks, ke = max(ks, s0), min(ke, e0)
                if ks >= ke:
                    continue
                ks, ke = _snap_to_words(part.text, s0, ks, ke, spans, cut_start=ks > cursor, cut_end=ke < e0)
                gap(ks - cursor)
                out.extend(_highlighted(part.text[ks - s0:ke - s0], ks, spans))
                cursor = ke
            gap(e0 - cursor)
        elif isinstance(part, ImagePart):
            out.append(["i", image_ref(part.path, _image_is_needle(part.path, needles))])
        elif isinstance(part, VideoPart):
            if video_ref is not None:
                out.append(["v", video_ref(part)])
                continue
            ref = image_ref(part.frames[0], False) if part.frames else {"src": None}
            ref = dict(ref, name=video_name(part), video=True, frames=len(part.frames) if part.frames else None)
            out.append(["v", ref])
    return out


#: Frames of a video shown in the sample browser (spread uniformly), besides its needle frames.
VIDEO_THUMBS = 8


#: Frames shown per needle span at most (a needle on screen for many frames is marked on this many).
SPAN_THUMBS = 6


def video_name(part: VideoPart) -> str:
    """What a reader calls the video: its file name, or "frame folder" (frame files are content hashes)."""
    if part.path:
        return PurePosixPath(part.path).name
    return "frame folder"


def _span_frame_indices(span: tuple[float, float], rate: float, n_frames: int) -> list[int]:
    """Indices of the frames on screen during ``span`` (seconds), at most SPAN_THUMBS spread evenly; recorded
    times are rounded to 1 us, so t x rate may fall just short of a frame index."""
    lo = max(0, min(n_frames - 1, int(span[0] * rate + 1e-5)))
    hi = max(lo, min(n_frames - 1, int(span[1] * rate + 1e-5)))
    count = hi - lo + 1
    if count <= SPAN_THUMBS:
        return list(range(lo, hi + 1))
    return sorted({lo + round(i * (count - 1) / (SPAN_THUMBS - 1)) for i in range(SPAN_THUMBS)})


def video_thumbnails(part: VideoPart, dataset: Dataset | None, thumbs: ThumbnailWriter | None,
                     needle_times: Sequence[float] = (), count: int = VIDEO_THUMBS,
                     needle_spans: Sequence[tuple[float, float]] = ()) -> dict[str, Any]:
    """A video's reference for the browser: ``count`` frames sampled uniformly plus the needle frames, each
    ``{"src", "t", "needle"}`` in time order. Needle frames are every frame on screen during each of
    ``needle_spans`` (the shared ``meta.needle_spans``: [start, end] seconds per needle, so a needle shown on
    several frames is marked on all of them, up to SPAN_THUMBS each), else the frame at each of ``needle_times``
    (``meta.needle_times``). Frame folders are read by index (time = index / fps); video files are decoded at
    those times (cached frames)."""
    from niah.video.expand import pick_folder_frames, sample_video_frames

    ref: dict[str, Any] = {"src": None, "name": video_name(part), "video": True,
                           "frames": len(part.frames) if part.frames else None, "thumbs": []}
    if dataset is None or thumbs is None:
        return ref
    rate = part.fps or 1.0
    spans = list(needle_spans) or [(t, t) for t in needle_times]
    picks: dict[float, tuple[Path, bool]] = {}
    try:
        if part.frames:
            _, times = pick_folder_frames(part.frames, folder_fps=part.fps, fps=None, cap=count)
            chosen = [(t, False) for t in times]
            chosen += [(k / rate, True) for span in spans
                       for k in _span_frame_indices(span, rate, len(part.frames))]
            for t, needle in chosen:
                k = min(len(part.frames) - 1, max(0, round(t * rate)))
                source = dataset.resolve_media(part.frames[k])
                if t not in picks or needle:
                    picks[t] = (source, needle)
        elif part.path is not None:
            video = dataset.resolve_media(part.path)
            uniform = sample_video_frames(video, count=count, fps=None, max_frames=None)
            for path, t in zip(uniform.paths, uniform.times, strict=True):
                picks[t] = (path, False)
            at_times = sorted({round(t, 6) for lo, hi in spans
                               for t in ((lo, hi) if hi - lo > 1e-6 else (lo,)) + ((lo + hi) / 2,)})
            if at_times:
                at = sample_video_frames(video, count=None, fps=None, max_frames=None, times=at_times)
                for path, t in zip(at.paths, at.times, strict=True):
                    picks[t] = (path, True)
    except (NiahError, OSError, ValueError) as exc:
        ref["note"] = f"video could not be read: {exc}"
        return ref
    for t in sorted(picks):
        source, needle = picks[t]
        ref["thumbs"].append({"src": thumbs.thumb(source), "t": round(t, 3), "needle": needle})
    return ref


def _capped_text_segments(parts: Sequence[Part], image_ref: Callable[[str, bool], dict[str, Any]],
                          limit: int) -> list[list[Any]]:
    """Short part lists (question, options): kept whole up to ``limit`` characters."""
    out: list[list[Any]] = []
    used = 0
    for part in parts:
        if isinstance(part, TextPart):
            room = limit - used
            if room <= 0:
                out.append(["g", len(part.text)])
                continue
            out.append(["t", part.text[:room]])
            if len(part.text) > room:
                out.append(["g", len(part.text) - room])
            used += len(part.text)
        elif isinstance(part, ImagePart):
            out.append(["i", image_ref(part.path, False)])
        elif isinstance(part, VideoPart):
            out.append(["v", {"src": None, "name": video_name(part), "video": True}])
    return out


# --------------------------------------------------------------------------------------------- thumbnails

class ThumbnailWriter:
    """Small JPEG thumbnails inside the report folder, one per source image (cached by path, size, mtime)."""

    def __init__(self, out_root: Path, *, max_px: int = 160, quality: int = 75,
                 earlier: Mapping[str, Path] | None = None) -> None:
        self.out_root = out_root
        self.max_px = max_px
        self.quality = quality
        self.written = 0
        #: Thumbnails an earlier report into the same folder drew, checked unchanged: linked, not drawn again.
        self.earlier = dict(earlier or {})
        self._done: dict[str, str | None] = {}

    def thumb(self, source: Path) -> str | None:
        """Relative path (from the report root) of the thumbnail of ``source``, or None if it cannot be read."""
        from PIL import Image

        key = str(source)
        if key in self._done:
            return self._done[key]
        rel: str | None = None
        try:
            st = source.stat()
            digest = hashlib.sha256(f"{source}|{st.st_size}|{st.st_mtime_ns}|{self.max_px}".encode()).hexdigest()
            rel = f"{THUMBS_DIR}/{digest[:24]}.jpg"
            target = self.out_root / rel
            if not target.is_file() and not _link_earlier(self.earlier.get(rel), target):
                write_atomic(target, self._render(source))
                self.written += 1
        except (OSError, ValueError, Image.DecompressionBombError):  # unreadable, not an image, too large
            rel = None
        self._done[key] = rel
        return rel

    def _render(self, source: Path) -> bytes:
        from PIL import Image

        with Image.open(source) as im:
            im.draft("RGB", (self.max_px * 2, self.max_px * 2))  # JPEG: decode at reduced size, much faster
            im.thumbnail((self.max_px, self.max_px))
            if im.mode in ("RGBA", "LA", "P"):
                rgba = im.convert("RGBA")
                canvas = Image.new("RGB", rgba.size, (255, 255, 255))
                canvas.paste(rgba, mask=rgba.getchannel("A"))
                im_rgb = canvas
            else:
                im_rgb = im.convert("RGB")
            buf = io.BytesIO()
            im_rgb.save(buf, format="JPEG", quality=self.quality, optimize=True)
        return buf.getvalue()


def _link_earlier(earlier: Path | None, target: Path) -> bool:
    """Put the earlier report's thumbnail at ``target`` (a hard link: the old folder goes after the swap)."""
    if earlier is None:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(earlier, target)
    except OSError:
        try:
            shutil.copyfile(earlier, target)
        except OSError:
            return False
    return True


# ------------------------------------------------------------------------------------------ dataset lookup

_ID_AT_START = re.compile(rb'^\s*\{\s*"id"\s*:\s*"((?:[^"\\]|\\.)*)"')


class DatasetLookup:
    """Sample by id without holding the dataset: one scan records each line's byte offset."""

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset
        self._where: dict[str, tuple[int, int]] = {}
        with dataset.samples_path.open("rb") as fh:
            lineno = 0
            while True:
                offset = fh.tell()
                raw = fh.readline()
                if not raw:
                    break
                lineno += 1
                if not raw.strip():
                    continue
                match = _ID_AT_START.match(raw)
                try:
                    sample_id = (json.loads(b'"' + match.group(1) + b'"') if match
                                 else json.loads(raw).get("id"))
                except (json.JSONDecodeError, AttributeError):
                    continue  # reported when (if) that sample is asked for: it simply is not found
                if isinstance(sample_id, str):
                    self._where.setdefault(sample_id, (offset, lineno))

    def get(self, sample_id: str) -> Sample | None:
        where = self._where.get(sample_id)
        if where is None:
            return None
        offset, lineno = where
        with self.dataset.samples_path.open("rb") as fh:
            fh.seek(offset)
            raw = fh.readline()
        try:
            return Sample.from_json(json.loads(raw))
        except json.JSONDecodeError as exc:
            raise DataError(f"invalid JSON: {exc.msg}", file=self.dataset.samples_path, line=lineno) from None
        except DataError as exc:
            raise exc.located(file=self.dataset.samples_path, line=lineno) from None


# ---------------------------------------------------------------------------------------------- browser

@dataclass(slots=True)
class BrowserOptions:
    thumbs_per_cell: int = 3         # samples per (task, length bin, depth cell) that get image thumbnails
    samples_per_cell: int = 0        # samples per cell listed in the browser; 0 = all
    chunk_size: int = 100            # samples per chunk file
    thumb_px: int = 160
    max_images_per_sample: int = 48  # thumbnails per sample at most (the rest are listed by name)
    #: folders outside the dataset that media may be read from (the user's --media-root)
    media_roots: tuple[Path, ...] = ()


@dataclass(slots=True)
class BrowserSummary:
    slug: str
    page: str                        # file name of the page, relative to the report root
    total_rows: int = 0
    shown: int = 0
    chunks: int = 0
    thumbnails: int = 0
    notes: list[str] = field(default_factory=list)
    #: the dataset's media root lies outside it and the user did not allow it: no media were read
    media_refused: str | None = None


class _ImageRefs:
    """Builds the image references of one sample: thumbnail when allowed, else name only."""

    def __init__(self, dataset: Dataset | None, thumbs: ThumbnailWriter | None, limit: int) -> None:
        self.dataset = dataset
        self.thumbs = thumbs
        self.left = limit

    def __call__(self, rel: str, needle: bool) -> dict[str, Any]:
        ref: dict[str, Any] = {"src": None, "name": PurePosixPath(rel).name or rel}
        if needle:
            ref["needle"] = True
        if self.dataset is None:
            return ref
        try:
            source = self.dataset.resolve_media(rel)
        except DataError:
            ref["note"] = "path outside the dataset (refused)"
            return ref
        if self.thumbs is not None and self.left > 0:
            self.left -= 1
            src = self.thumbs.thumb(source)
            if src is None:
                ref["note"] = "image could not be read"
            ref["src"] = src
        return ref


def _axis_bin(axis: Axis | None, row: ScoredRow) -> int | None:
    if axis is None:
        return None
    value = row.value(axis.field)
    return None if value is None else axis.bin_of(value)


def axis_ranges(axis: Axis | None) -> list[str]:
    """Filter labels of an axis: "0.0-0.2" from edge labels, else the bin labels."""
    if axis is None:
        return []
    if axis.edges is not None:
        return [f"{lo}-{hi}" for lo, hi in zip(axis.edges, axis.edges[1:], strict=False)]
    return list(axis.labels)


def _sample_record(row: ScoredRow, sample: Sample | None, dataset: Dataset | None,
                   thumbs: ThumbnailWriter | None, options: BrowserOptions, note: str | None,
                   columns: Axis | None = None, rows: Axis | None = None) -> dict[str, Any]:
    bin_index = _axis_bin(columns, row)
    response = row.response
    if response is not None and len(response) > MAX_RESPONSE_CHARS:
        response = response[:MAX_RESPONSE_CHARS] + f"\n[... {len(response) - MAX_RESPONSE_CHARS} more characters]"
    scores = {k: v for k, v in row.scores.items()
              if isinstance(v, (int, float)) and not isinstance(v, bool)}
    record: dict[str, Any] = {
        "id": row.id, "task": row.task,
        "bin": columns.labels[bin_index] if columns is not None and bin_index is not None else None,
        "context_length": row.context_length, "depth": row.depth,
        "cell": _axis_bin(rows, row),
        "num_images": row.num_images, "score": row.score, "scores": scores, "status": status_of(row),
        "response": response, "error": row.error,
    }
    answer = row.answer if row.answer is not None or sample is None else sample.answer
    num_choices = len(sample.choices) if sample is not None and sample.choices is not None else None
    record["gold"] = gold_text(answer, num_choices)
    disagree = row.extra.get(JUDGES_DISAGREE)
    if disagree:
        note = "; ".join(x for x in (note, f"judges disagree: {disagree}") if x)
    if note:
        record["note"] = note
    if sample is not None:
        refs = _ImageRefs(dataset, thumbs, options.max_images_per_sample)
        needles = needle_strings(sample.meta)
        record["question"] = _capped_text_segments(sample.question, refs, MAX_QUESTION_CHARS)
        record["options"] = ([_capped_text_segments(c, refs, MAX_OPTION_CHARS) for c in sample.choices]
                             if sample.choices is not None else None)
        needle_times = _numbers(sample.meta.get("needle_times"))
        needle_spans = _spans(sample.meta.get("needle_spans"))
        record["context"] = preview_parts(
            sample.context, needles, refs,
            video_ref=lambda part: video_thumbnails(part, dataset, thumbs, needle_times,
                                                    needle_spans=needle_spans))
        record["context_label"] = context_label(sample, record["context"], needles)
    record["meta_line"] = meta_line(row, record["bin"], columns, sample)
    return record


def _numbers(value: Any) -> list[float]:
    if not isinstance(value, list):
        return []
    return [float(t) for t in value if isinstance(t, (int, float)) and not isinstance(t, bool)]


def _spans(value: Any) -> list[tuple[float, float]]:
    if not isinstance(value, list):
        return []
    out = []
    for item in value:
        pair = _numbers(item)
        if len(pair) == 2 and pair[0] <= pair[1]:
            out.append((pair[0], pair[1]))
    return out


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


#: Column axes that measure the context in tokens (the card says "length <bin> (<n> tokens)").
LENGTH_FIELDS = frozenset({"context_length", "length_k", "length_bin"})


def media_summary(parts: Sequence[Part]) -> list[str]:
    """What media a part list holds, as a reader counts it: "3 images", "a video of 64 frames", "a video"."""
    images = sum(1 for p in parts if isinstance(p, ImagePart))
    out = [plural(images, "image")] if images else []
    for part in parts:
        if isinstance(part, VideoPart):
            out.append(f"a video of {plural(len(part.frames), 'frame')}" if part.frames
                       else f"a video ({video_name(part)})")
    return out


def meta_line(row: ScoredRow, bin_label: str | None, columns: Axis | None, sample: Sample | None) -> list[str]:
    """The card header's facts: task, the column bin named by its own axis (a length, a duration, a format),
    the token count, the depth, and the media (images, or a video's frames, never frames called images)."""
    known = row.context_length is not None
    tokens = (int(row.context_length) if isinstance(row.context_length, float) and row.context_length.is_integer()
              else row.context_length)
    out = [row.task]
    if columns is None or columns.field in LENGTH_FIELDS:
        if bin_label:
            out.append(f"length {bin_label}" + (f" ({tokens} tokens)" if known else ""))
        else:
            out.append(f"length {tokens} (not binned)" if known else "no length")
    else:
        out.append(f"{columns.title.lower()} {bin_label}" if bin_label else f"{columns.title.lower()}: not binned")
        if known:
            out.append(f"{tokens} tokens")
    out.append(f"depth {row.depth:.3f}" if isinstance(row.depth, (int, float)) else "no depth")
    if sample is not None:
        out.extend(media_summary(sample.context))
    elif row.num_images is not None:
        out.append(plural(row.num_images, "image"))
    return out


def context_label(sample: Sample, context: list[list[Any]], needles: Sequence[str]) -> str:
    """The context preview's summary: what it holds per part type and how its needles are shown."""
    chars = sum(len(p.text) for p in sample.context if isinstance(p, TextPart))
    holds = ([f"{chars} characters of text"] if chars or not sample.context else []) + media_summary(sample.context)
    image_paths = [p.path for p in sample.context if isinstance(p, ImagePart)]
    text_needles = [n for n in needles if not n.lower().endswith(IMAGE_SUFFIXES)
                    and not any(_image_is_needle(path, [n]) for path in image_paths)]
    marks: list[str] = []
    if any(seg[0] == "n" for seg in context):
        marks.append("needle text highlighted")
    elif text_needles and chars:
        marks.append("needle text not found verbatim")
    if any(seg[0] == "i" and seg[1].get("needle") for seg in context):
        marks.append("needle images marked")
    if any(seg[0] == "v" and any(t.get("needle") for t in seg[1].get("thumbs", ())) for seg in context):
        marks.append("needle frames marked")
    return "Context preview (" + ", ".join(holds + marks) + ")"


def write_sample_browser(inp: ReportInput, out_root: Path, slug: str, options: BrowserOptions,
                         thumbs: ThumbnailWriter) -> BrowserSummary:
    """Stream ``inp``'s scored rows into chunk files and an index under ``assets/samples/<slug>/``."""
    if inp.scored_path is None:
        raise ValueError("a sample browser needs a run directory with scored.jsonl")
    summary = BrowserSummary(slug=slug, page=f"samples-{slug}.html")
    chunk_dir = out_root / SAMPLES_ASSETS_DIR / slug
    chunk_dir.mkdir(parents=True, exist_ok=True)
    for stale in chunk_dir.glob("chunk-*.js"):  # left by an earlier report into the same folder
        stale.unlink()
    dataset: Dataset | None = None
    lookup: DatasetLookup | None = None
    if inp.dataset_path is None:
        summary.notes.append("run.json names no dataset: prompts and images are not shown")
    else:
        try:
            dataset = Dataset(inp.dataset_path, media_roots=options.media_roots)
            lookup = DatasetLookup(dataset)
            if not dataset.media_allowed:
                refused = (f"{inp.name}: the dataset's media root lies outside it and was not allowed: images "
                           f"are listed by name only (pass --media-root {dataset.declared_media_root})")
                summary.notes.append(refused)
                summary.media_refused = refused
        except (NiahError, OSError) as exc:
            summary.notes.append(f"dataset not readable ({exc}): prompts and images are not shown")
            dataset = None
    tasks: list[str] = []
    index_rows: list[list[Any]] = []
    listed_per_cell: dict[tuple[str, int | None, int | None], int] = {}
    chunk: list[dict[str, Any]] = []
    before_thumbs = thumbs.written

    def flush() -> None:
        if not chunk:
            return
        write_atomic(chunk_dir / f"chunk-{summary.chunks:05d}.js",
                     f"window.NIAH_addChunk({summary.chunks},{safe_json(chunk)});\n")
        summary.chunks += 1
        chunk.clear()

    columns = inp.spec.columns if inp.spec is not None else None
    rows_axis = inp.rows_axis if inp.rows_axis is not None else (inp.spec.rows if inp.spec is not None else None)
    disagreements = 0
    for row in iter_scored_rows(inp.scored_path):
        summary.total_rows += 1
        disagreements += bool(row.extra.get(JUDGES_DISAGREE))
        bin_index = _axis_bin(columns, row)
        cell = _axis_bin(rows_axis, row)
        key = (row.task, bin_index, cell)
        seen = listed_per_cell.get(key, 0)
        listed_per_cell[key] = seen + 1
        if options.samples_per_cell and seen >= options.samples_per_cell:
            continue
        sample: Sample | None = None
        note: str | None = None
        if lookup is not None:
            try:
                sample = lookup.get(row.id)
            except DataError as exc:
                note = f"dataset sample unreadable: {exc}"
            if sample is None and note is None:
                note = "sample id not found in the dataset"
        use_thumbs = thumbs if seen < options.thumbs_per_cell else None
        record = _sample_record(row, sample, dataset, use_thumbs, options, note, columns, rows_axis)
        if row.task not in tasks:
            tasks.append(row.task)
        index_rows.append([tasks.index(row.task), -1 if bin_index is None else bin_index,
                           -1 if cell is None else cell, STATUSES.index(record["status"]), row.score,
                           summary.chunks, len(chunk), row.id])
        chunk.append(record)
        summary.shown += 1
        if len(chunk) >= options.chunk_size:
            flush()
    flush()
    summary.thumbnails = thumbs.written - before_thumbs
    if disagreements:
        summary.notes.append(f"{disagreements} sample(s) where the LLM judge and the rule judge disagree (marked "
                             f"'judges disagree' in the sample list)")
    if options.samples_per_cell and summary.shown < summary.total_rows:
        summary.notes.append(f"showing the first {options.samples_per_cell} samples of each (task, length, depth)"
                             f" cell: {summary.shown} of {summary.total_rows}")
    # Task codes follow the table order; remap the first-seen order used while streaming.
    order = ordered_tasks(tasks, inp.task_order)
    remap = {tasks.index(t): i for i, t in enumerate(order)}
    for entry in index_rows:
        entry[0] = remap[entry[0]]
    index = {
        "name": inp.name, "tasks": order, "bins": list(columns.labels) if columns is not None else [],
        "depths": axis_ranges(rows_axis), "statuses": list(STATUSES),
        "chunk_dir": f"{SAMPLES_ASSETS_DIR}/{slug}/", "rows": index_rows, "notes": summary.notes,
        "total_rows": summary.total_rows,
    }
    write_atomic(chunk_dir / "index.js", f"window.NIAH_INDEX={safe_json(index)};\n")
    return summary
