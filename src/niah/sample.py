"""The one sample model every benchmark shares, its JSONL form, and the dataset directory.

A sample is interleaved context parts (text, image, video), a question (parts), optional choices (each a list
of parts), a JSON gold answer and free metadata. Parts are a discriminated union on ``type``, like
inspect_ai's content types, so every stage can switch on ``part.type``.
"""

from __future__ import annotations

import glob
import hashlib
import json
import math
import os
import shutil
import sys
import tempfile
import threading
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from niah.util import interrupts
from niah.util.errors import ConfigError, DataError
from niah.util.iox import (
    LONE_SURROGATE,
    SURROGATE_ESCAPE,
    bounded_lines,
    dumps_line,
    file_digest,
    holds_lone_surrogate,
    iter_jsonl,
    loads_json,
    non_finite_field,
    read_json_file,
    replace_dir,
    resolve_under,
    too_long_message,
    write_json_atomic,
)

SAMPLES_FILE = "samples.jsonl"
MANIFEST_FILE = "manifest.json"
MEDIA_DIR = "media"
FORMAT_VERSION = 1


@dataclass(frozen=True, slots=True)
class TextPart:
    text: str
    type: Literal["text"] = "text"

    def to_json(self) -> dict[str, Any]:
        return {"type": "text", "text": self.text}


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image by path relative to the dataset's media root (never outside it)."""

    path: str
    type: Literal["image"] = "image"

    def to_json(self) -> dict[str, Any]:
        return {"type": "image", "path": self.path}


@dataclass(frozen=True, slots=True)
class VideoPart:
    """A video file, or a video given as ordered frame images (``frames``, a frame folder's images), all
    relative to the media root. ``fps`` is the frame rate of ``frames`` (1 when not given); ``subtitles`` an
    SRT or WebVTT file shown with the sampled frames (per frame or as one transcript, a prompt option)."""

    path: str | None = None
    frames: tuple[str, ...] | None = None
    fps: float | None = None
    subtitles: str | None = None
    type: Literal["video"] = "video"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "video"}
        if self.path is not None:
            out["path"] = self.path
        if self.frames is not None:
            out["frames"] = list(self.frames)
        if self.fps is not None:
            out["fps"] = self.fps
        if self.subtitles is not None:
            out["subtitles"] = self.subtitles
        return out


Part = TextPart | ImagePart | VideoPart


def merge_text_parts(parts: Sequence[Part]) -> list[Part]:
    """The parts as one would send them: each run of adjacent text parts joined into one, media as they are.
    The official prompt is one string with media where its placeholders stand; a server given two text parts
    joins them its own way (llama.cpp puts a newline between), so whatever sends a prompt sends it merged."""
    out: list[Part] = []
    for part in parts:
        if isinstance(part, TextPart) and out and isinstance(out[-1], TextPart):
            out[-1] = TextPart(out[-1].text + part.text)
        else:
            out.append(part)
    return out


def part_from_json(obj: Any, *, where: str) -> Part:
    if not isinstance(obj, dict):
        raise DataError("a part must be an object with a 'type'", field=where)
    kind = obj.get("type")
    if kind == "text":
        text = obj.get("text")
        if not isinstance(text, str):
            raise DataError("text part needs a string 'text'", field=f"{where}.text")
        return TextPart(text)
    if kind == "image":
        path = obj.get("path")
        if not isinstance(path, str) or not path:
            raise DataError("image part needs a string 'path'", field=f"{where}.path")
        return ImagePart(path)
    if kind == "video":
        path = obj.get("path")
        frames = obj.get("frames")
        if path is None and frames is None:
            raise DataError("video part needs 'path' or 'frames'", field=where)
        if path is not None and not isinstance(path, str):
            raise DataError("video 'path' must be a string", field=f"{where}.path")
        if frames is not None and (not isinstance(frames, list) or not all(isinstance(f, str) for f in frames)):
            raise DataError("video 'frames' must be a list of paths", field=f"{where}.frames")
        fps = obj.get("fps")
        if fps is not None and not isinstance(fps, (int, float)):
            raise DataError("video 'fps' must be a number", field=f"{where}.fps")
        if fps is not None and (isinstance(fps, bool) or not fps > 0):
            raise DataError("video 'fps' must be positive", field=f"{where}.fps")
        subtitles = obj.get("subtitles")
        if subtitles is not None and (not isinstance(subtitles, str) or not subtitles):
            raise DataError("video 'subtitles' must be a path string", field=f"{where}.subtitles")
        return VideoPart(path=path, frames=tuple(frames) if frames is not None else None, fps=fps,
                         subtitles=subtitles)
    raise DataError(f"unknown part type {kind!r} (expected text, image or video)", field=f"{where}.type")


def parts_from_json(obj: Any, *, where: str) -> list[Part]:
    if isinstance(obj, str):  # shorthand: a plain string is one text part
        return [TextPart(obj)]
    if not isinstance(obj, list):
        raise DataError("expected a list of parts", field=where)
    return [part_from_json(p, where=f"{where}[{i}]") for i, p in enumerate(obj)]


def parts_text(parts: list[Part]) -> str:
    """The text of a part list: text parts concatenated in order with nothing added between them."""
    return "".join(p.text for p in parts if isinstance(p, TextPart))


def media_paths(parts: list[Part]) -> list[str]:
    out: list[str] = []
    for p in parts:
        if isinstance(p, ImagePart):
            out.append(p.path)
        elif isinstance(p, VideoPart):
            if p.path is not None:
                out.append(p.path)
            if p.frames:
                out.extend(p.frames)
            if p.subtitles is not None:
                out.append(p.subtitles)
    return out


#: The longest sample id and the longest benchmark or task name a dataset may hold (ids name files in exports,
#: tasks name files and lmms-eval/inspect tasks: a name of megabytes is an attack, not a task).
MAX_ID_CHARS = 512
MAX_NAME_CHARS = 128
#: Unicode categories no name may hold: control characters (newlines, tabs, NUL, ESC), format characters
#: (bidirectional overrides, zero-width marks: text that reads other than it is) and line/paragraph separators.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def name_problem(value: str, kind: str) -> str | None:
    """Why ``value`` cannot be a sample's ``kind`` ("id", "benchmark" or "task"), or None when it can.

    A dataset is untrusted input, and these three strings leave niah as names: file names of exports (a family's
    official export may write ``annotations/<task>.jsonl``), lmms-eval YAML and inspect task files, HTTP requests,
    logs and report tables. So none may hold a control, format or separator character (a newline would start a
    new YAML key or log line), none may be blank or padded with spaces, and none may be read as a path that
    leaves its folder: a benchmark or task holds no ``/`` or ``\\`` and is not ``.`` or ``..``; an id may hold
    ``/`` (ids are ``task/index``) but no ``\\``, no leading ``/`` and no ``.`` or ``..`` segment."""
    limit = MAX_ID_CHARS if kind == "id" else MAX_NAME_CHARS
    if len(value) > limit:
        return f"is {len(value)} characters long; at most {limit}"
    for char in value:
        if unicodedata.category(char) in _UNSAFE_CATEGORIES:
            return f"holds the control or format character U+{ord(char):04X}; names are one line of plain text"
    if not value.strip():
        return "is blank"
    if value != value.strip():
        return "starts or ends with white space"
    if "\\" in value:
        return "holds a backslash (a path separator)"
    if kind == "id":
        if value.startswith("/"):
            return "starts with '/' (an absolute path)"
        if any(segment in (".", "..", "") for segment in value.split("/")):
            return "has an empty, '.' or '..' segment between slashes (a path that leaves its folder)"
    elif "/" in value:
        return "holds '/' (a path separator)"
    elif value in (".", ".."):
        return f"is {value!r} (a path, not a name)"
    return None


def check_names(sample_id: str, benchmark: str, task: str) -> None:
    """Raise DataError naming the field when a sample's id, benchmark or task cannot be used (:func:`name_problem`)."""
    for field_name, value in (("id", sample_id), ("benchmark", benchmark), ("task", task)):
        why = name_problem(value, field_name)
        if why is not None:
            raise DataError(f"{value[:80]!r} {why}", field=field_name)


@dataclass(slots=True)
class Sample:
    id: str
    benchmark: str
    task: str
    context: list[Part]
    question: list[Part]
    answer: Any
    choices: list[list[Part]] | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "benchmark": self.benchmark,
            "task": self.task,
            "context": [p.to_json() for p in self.context],
            "question": [p.to_json() for p in self.question],
            "choices": None if self.choices is None else [[p.to_json() for p in c] for c in self.choices],
            "answer": self.answer,
            "meta": self.meta,
        }

    def content_key(self) -> str:
        """SHA-256 of the sample as its dataset line states it (context, question, choices, gold, meta): a
        response row records it, so scoring sees when the dataset was rebuilt under the row."""
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        return hashlib.sha256(text.encode("ascii")).hexdigest()

    @classmethod
    def from_json(cls, obj: Any) -> Sample:
        if not isinstance(obj, dict):
            raise DataError("a sample must be a JSON object")
        for name in ("id", "benchmark", "task"):
            if not isinstance(obj.get(name), str) or not obj.get(name):
                raise DataError("missing or not a non-empty string", field=name)
        check_names(obj["id"], obj["benchmark"], obj["task"])
        if "context" not in obj:
            raise DataError("missing", field="context")
        if "question" not in obj:
            raise DataError("missing", field="question")
        if "answer" not in obj:
            raise DataError("missing", field="answer")
        choices_raw = obj.get("choices")
        choices = None
        if choices_raw is not None:
            if not isinstance(choices_raw, list):
                raise DataError("must be null or a list of part lists", field="choices")
            choices = [parts_from_json(c, where=f"choices[{i}]") for i, c in enumerate(choices_raw)]
        meta = obj.get("meta") or {}
        if not isinstance(meta, dict):
            raise DataError("must be an object", field="meta")
        return cls(
            id=obj["id"],
            benchmark=obj["benchmark"],
            task=obj["task"],
            context=parts_from_json(obj["context"], where="context"),
            question=parts_from_json(obj["question"], where="question"),
            answer=obj["answer"],
            choices=choices,
            meta=meta,
        )

    def media_kinds(self) -> list[tuple[str, str]]:
        """Every media path of the sample with what it must be: ("path", "image" | "video" | "subtitles")."""
        out: list[tuple[str, str]] = []
        parts: list[Part] = list(self.context) + list(self.question)
        for c in self.choices or []:
            parts.extend(c)
        for p in parts:
            if isinstance(p, ImagePart):
                out.append((p.path, "image"))
            elif isinstance(p, VideoPart):
                if p.path is not None:
                    out.append((p.path, "video"))
                out.extend((f, "image") for f in p.frames or ())
                if p.subtitles is not None:
                    out.append((p.subtitles, "subtitles"))
        return out

    def all_media(self) -> list[str]:
        out = media_paths(self.context) + media_paths(self.question)
        for c in self.choices or []:
            out.extend(media_paths(c))
        return out

    def image_count(self) -> int:
        """Image parts in the context, the question and the choices (a video's frames and subtitles are not
        images of the document)."""
        parts = [*self.context, *self.question, *(p for c in self.choices or [] for p in c)]
        return sum(isinstance(p, ImagePart) for p in parts)

    @property
    def depth(self) -> float | None:
        """Needle depth; for a sample with several needles, the mean of their depths."""
        d = self.meta.get("depth")
        if d is None:
            return None
        if isinstance(d, list):
            return sum(d) / len(d) if d else None
        return float(d)


#: Shared metadata fields every stage may read, with the check each must pass (family fields are free).
def _is_count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _is_depth(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and 0.0 <= float(v) <= 1.0


def check_shared_meta(meta: dict[str, Any]) -> list[tuple[str, str]]:
    """Problems with the shared ``meta`` fields (README, "Dataset directory"), as (field, message) pairs."""
    problems: list[tuple[str, str]] = []
    for name in ("context_length", "text_tokens", "image_tokens", "num_images"):
        if name in meta and meta[name] is not None and not _is_count(meta[name]):
            problems.append((f"meta.{name}", f"must be a non-negative integer, got {meta[name]!r}"))
    if "depth" in meta and meta["depth"] is not None:
        d = meta["depth"]
        if isinstance(d, list):
            bad = [x for x in d if not _is_depth(x)]
            if bad:
                problems.append(("meta.depth", f"every depth must be a number in [0, 1], got {bad[0]!r}"))
        elif not _is_depth(d):
            problems.append(("meta.depth", f"must be a number in [0, 1] or a list of them, got {d!r}"))
    for name in ("tokenizer", "image_tokens_rule", "lang"):
        if name in meta and meta[name] is not None and not isinstance(meta[name], str):
            problems.append((f"meta.{name}", f"must be a string, got {type(meta[name]).__name__}"))
    return problems


_STRICT_LOAD = threading.Lock()  # the PIL flag is global: one strict decode at a time flips it
_IMAGE_FORMATS = frozenset({"JPEG", "PNG", "WEBP", "GIF", "BMP", "TIFF", "MPO"})
_VIDEO_MAGIC = ((4, b"ftyp"), (0, b"\x1a\x45\xdf\xa3"), (0, b"RIFF"), (0, b"OggS"), (0, b"\x00\x00\x01\xba"))


def media_problem(path: Path, kind: str, *, decode: bool = True) -> str | None:
    """Why ``path`` is not the ``kind`` ("image" or "video") it claims to be, or None when it is.

    Subtitles (``kind == "subtitles"``) must parse as SRT or WebVTT.
    Images are decoded whole (JPEGs at reduced scale, which still reads every byte of the stream), so a
    text file named ``.jpg`` or a truncated image is refused before it is ever sent anywhere; with
    ``decode=False`` only the header is read (format and size: a text file or a decompression bomb is still
    refused, a truncated image is not). Videos are opened with PyAV when it is installed (a video stream must
    be present, its frames within the image pixel cap), else checked by container magic."""
    if not path.is_file():
        return "file not found" if not path.exists() else "not a regular file"
    if kind == "image":
        from PIL import Image, ImageFile

        try:
            with Image.open(path) as img:
                if img.format not in _IMAGE_FORMATS:
                    return f"not a supported image format ({img.format})"
                if not decode:
                    return None
                img.draft("RGB", (max(1, img.size[0] // 8), max(1, img.size[1] // 8)))
                # PIL's LOAD_TRUNCATED_IMAGES is process-wide and other libraries turn it on at import (lmms-eval
                # does): a truncated image must be refused whatever they set, so the check holds it off
                with _STRICT_LOAD:
                    permissive = ImageFile.LOAD_TRUNCATED_IMAGES
                    ImageFile.LOAD_TRUNCATED_IMAGES = False
                    try:
                        img.load()
                    finally:
                        ImageFile.LOAD_TRUNCATED_IMAGES = permissive
        except Image.DecompressionBombError as exc:
            return f"image too large: {exc}"
        except Exception as exc:  # PIL raises many types for undecodable input
            return f"not a decodable image ({type(exc).__name__}: {str(exc)[:120]})"
        return None
    if kind == "subtitles":
        from niah.video.subtitles import load_subtitles

        try:
            load_subtitles(path)
        except DataError as exc:
            return f"not readable subtitles ({exc.message})"
        return None
    try:
        import av  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        with path.open("rb") as fh:
            head = fh.read(16)
        if any(head[off:off + len(magic)] == magic for off, magic in _VIDEO_MAGIC):
            return None
        return "not a recognised video container"
    from niah.video.frames import frame_size_problem

    try:
        with av.open(str(path)) as container:
            if not container.streams.video:
                return "has no video stream"
            cc = container.streams.video[0].codec_context
            too_big = frame_size_problem(cc.width or 0, cc.height or 0)  # from the header: nothing decoded
            if too_big is not None:
                return too_big
    except Exception as exc:
        return f"not a decodable video ({type(exc).__name__}: {str(exc)[:120]})"
    return None


def _unusable_value(value: Any, where: str) -> tuple[str, str] | None:
    if isinstance(value, float) and not math.isfinite(value):
        return where, f"{value!r} is not a usable number (NaN or infinite)"
    if isinstance(value, str):
        return (where, "holds a lone UTF-16 surrogate (not valid Unicode text)") if LONE_SURROGATE.search(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            found = _unusable_value(key, where) or _unusable_value(item, f"{where}.{key}" if where else str(key))
            if found:
                return found
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = _unusable_value(item, f"{where}[{index}]")
            if found:
                return found
    return None


def check_sample_values(sample: Sample) -> None:
    """Refuse a sample holding a value no later stage can use: NaN or an infinite number (Python's JSON reader
    accepts them; an official file may carry one in a field nobody reads, which is why readers of official files
    accept them and only what reaches a sample is checked), or a lone surrogate (valid JSON, not encodable).
    Raises DataError naming the sample field."""
    found = _unusable_value(sample.to_json(), "")
    if found is not None:
        raise DataError(found[1], field=found[0])


class MediaChecker:
    """Checks the media an importer's records point at, before anything is written: each path must stay inside
    ``root`` (no ``..``, absolute path or symlink out) and be the kind it claims (:func:`media_problem`).
    Each file is checked once per checker, however many records name it. Images are checked by their header
    only unless ``decode`` (an official set holds hundreds of thousands of page images; ``niah run`` decodes
    every one before the first request anyway)."""

    def __init__(self, root: str | Path, *, decode: bool = False) -> None:
        self.root = Path(root).resolve()
        self.decode = decode
        self._checked: dict[str, str | None] = {}

    def check(self, rel: str, kind: str, *, file: str | Path | None = None, line: int | None = None,
              field: str | None = None) -> Path:
        """The resolved path of ``rel``; a DataError naming file, line and field when it escapes the root or
        is not a readable ``kind`` ("image", "video" or "subtitles")."""
        path = resolve_under(self.root, rel, file=file, line=line, field=field)
        key = f"{kind}:{path}"
        if key not in self._checked:
            self._checked[key] = media_problem(path, kind, decode=self.decode)
        why = self._checked[key]
        if why is not None:
            raise DataError(f"{rel!r}: {why}", file=file, line=line, field=field)
        return path




@dataclass(frozen=True, slots=True)
class DatasetProblem:
    file: str
    line: int | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = self.file + (f":{self.line}" if self.line is not None else "")
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


class DatasetInvalid(DataError):
    """A dataset that failed validation: every problem found (up to a cap), each with file:line: field."""

    def __init__(self, problems: list[DatasetProblem], *, total: int, root: Path) -> None:
        self.problems = problems
        self.total = total
        lines = [str(p) for p in problems]
        if total > len(problems):
            lines.append(f"... and {total - len(problems)} more")
        head = f"dataset {root} is invalid ({total} problem{'s' if total != 1 else ''}); nothing was run"
        super().__init__(head + ":\n  " + "\n  ".join(lines))
        first = problems[0] if problems else None
        if first is not None:
            self.file, self.line, self.field = first.file, first.line, first.field


@dataclass(slots=True)
class DatasetStats:
    """What a validation pass saw."""

    samples: int = 0
    media_files: int = 0
    benchmarks: dict[str, int] = field(default_factory=dict)
    tasks: dict[str, int] = field(default_factory=dict)


class Dataset:
    """A dataset directory: manifest.json, samples.jsonl, and media resolved under one media root.

    The media root is the dataset directory itself. A manifest may name another folder in ``media_root``
    (official importers do, to read images in place), but a dataset is untrusted input: a root outside the
    dataset directory is honoured only when the caller allows it in ``media_roots`` (the CLI's
    ``--media-root DIR``, the user's explicit say). Until then every media access raises a DataError that
    says which flag to pass; stages that need no media (scoring) work regardless.
    """

    def __init__(self, root: str | Path, *, media_roots: tuple[str | Path, ...] | list[str | Path] = ()) -> None:
        self.root = Path(root)
        if not self.root.is_dir():
            raise DataError("dataset directory does not exist", file=self.root)
        self.samples_path = self.root / SAMPLES_FILE
        if not self.samples_path.is_file():
            raise DataError(f"no {SAMPLES_FILE} in dataset directory", file=self.root)
        self.manifest_path = self.root / MANIFEST_FILE
        self.manifest: dict[str, Any] = {}
        if self.manifest_path.is_file():
            manifest = read_json_file(self.manifest_path, what="manifest", strict=True)
            if not isinstance(manifest, dict):
                raise DataError(f"must be a JSON object, not a {type(manifest).__name__}", file=self.manifest_path)
            self.manifest = manifest
        self.allowed_media_roots = tuple(Path(r).resolve() for r in media_roots)
        self._media_root, self._media_error = self._resolve_media_root()

    def _resolve_media_root(self) -> tuple[Path, DataError | None]:
        own = self.root.resolve()
        declared = self.manifest.get("media_root")
        if declared is None or declared == "":
            return own, None
        if not isinstance(declared, str) or "\x00" in declared:
            return own, DataError("must be a string path", file=self.manifest_path, field="media_root")
        target = (self.root / declared).resolve()
        if target.is_relative_to(own):
            return target, None
        if any(target.is_relative_to(allowed) for allowed in self.allowed_media_roots):
            return target, None
        return target, DataError(
            f"points outside the dataset directory ({target}); niah reads media there only when you allow it: "
            f"pass --media-root {target}", file=self.manifest_path, field="media_root")

    @property
    def media_root(self) -> Path:
        """Where media paths resolve; raises DataError when the manifest's root is outside and not allowed."""
        if self._media_error is not None:
            raise self._media_error
        return self._media_root

    @property
    def declared_media_root(self) -> Path:
        """The media root the manifest asks for, whether or not it is allowed (for messages)."""
        return self._media_root

    @property
    def media_allowed(self) -> bool:
        return self._media_error is None

    def __iter__(self) -> Iterator[Sample]:
        return self.iter_samples()

    def iter_samples(self, *, check_media: bool = False) -> Iterator[Sample]:
        """Stream samples, validating each; the first error raises, naming file, line and field."""
        for _, sample in self.iter_numbered(check_media=check_media):
            yield sample

    def iter_numbered(self, *, check_media: bool = False) -> Iterator[tuple[int, Sample]]:
        """:meth:`iter_samples` with each sample's 1-based line number in samples.jsonl (for messages)."""
        seen: set[str] = set()
        for lineno, obj in iter_jsonl(self.samples_path, strict=True):  # no NaN gold reaches a run
            try:
                sample = Sample.from_json(obj)
            except DataError as exc:
                raise exc.located(file=self.samples_path, line=lineno) from None
            if sample.id in seen:
                raise DataError(f"duplicate sample id {sample.id!r}", file=self.samples_path, line=lineno, field="id")
            seen.add(sample.id)
            if self._media_error is not None and not check_media:
                yield lineno, sample  # media cannot be read until the user allows the root; reading text is fine
                continue
            for i, rel in enumerate(sample.all_media()):
                path = resolve_under(self.media_root, rel, file=self.samples_path, line=lineno, field=f"media[{i}]")
                if check_media and not path.is_file():
                    raise DataError(f"media file {rel!r} not found", file=self.samples_path, line=lineno,
                                    field=f"media[{i}]")
            yield lineno, sample

    def validate(self, *, check_media: bool = True, max_problems: int = 50,
                 sample_check: Callable[[Sample], list[tuple[str, str]]] | None = None,
                 media: bool = True) -> DatasetStats:
        """One streaming pass over the whole dataset before any work: every line must be valid UTF-8 JSON of
        a sample, ids unique, shared meta well-typed, every media path inside the media root and (with
        ``check_media``) a decodable image or video; the manifest's ``num_samples`` must match. Raises
        :class:`DatasetInvalid` listing every problem (file:line: field: what); memory holds only the ids and
        the set of media files already checked. ``media=False`` (for transforms that never read media, e.g.
        deriving a text-only dataset) leaves the media root and media paths to the stage that reads them."""
        problems: list[DatasetProblem] = []
        total = 0
        stats = DatasetStats()
        samples_file = str(self.samples_path)

        def problem(line: int | None, fld: str | None, message: str, file: str = samples_file) -> None:
            nonlocal total
            total += 1
            if len(problems) < max_problems:
                problems.append(DatasetProblem(file, line, fld, message))

        if self._media_error is not None and media:
            err = self._media_error
            problem(None, err.field, err.message, file=str(err.file))
        manifest = self.manifest
        if "num_samples" in manifest and not _is_count(manifest["num_samples"]):
            problem(None, "num_samples", "must be a non-negative integer", file=str(self.manifest_path))
        if "benchmark" in manifest and not isinstance(manifest["benchmark"], str):
            problem(None, "benchmark", "must be a string", file=str(self.manifest_path))
        media_root = None if self._media_error is not None or not media else self._media_root
        seen_ids: set[str] = set()
        checked: dict[str, str | None] = {}
        lineno = 0
        with self.samples_path.open("rb") as fh:
            for lineno, raw in bounded_lines(fh):
                if raw is None:
                    problem(lineno, None, too_long_message())
                    continue
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    problem(lineno, None, f"invalid UTF-8 at byte {exc.start} of the line")
                    continue
                if not text.strip():
                    continue
                try:
                    obj = loads_json(text)
                except json.JSONDecodeError as exc:
                    problem(lineno, None, f"invalid JSON: {exc.msg} (column {exc.colno})")
                    continue
                except (ValueError, RecursionError) as exc:  # a 5000-digit integer, nesting 100000 deep
                    problem(lineno, None, f"invalid JSON: {str(exc)[:120] or 'nested too deeply'}")
                    continue
                if SURROGATE_ESCAPE.search(text) and holds_lone_surrogate(obj):
                    problem(lineno, None, "holds a lone UTF-16 surrogate escape (not valid Unicode text)")
                    continue
                bad_number = non_finite_field(obj)
                if bad_number is not None:  # NaN / Infinity / 1e999: Python reads them, strict JSON has none
                    problem(lineno, bad_number, "is not a finite number (NaN and infinities are not JSON)")
                    continue
                try:
                    sample = Sample.from_json(obj)
                except DataError as exc:
                    problem(lineno, exc.field, exc.message)
                    continue
                stats.samples += 1
                stats.benchmarks[sample.benchmark] = stats.benchmarks.get(sample.benchmark, 0) + 1
                stats.tasks[sample.task] = stats.tasks.get(sample.task, 0) + 1
                if sample.id in seen_ids:
                    problem(lineno, "id", f"duplicate sample id {sample.id!r}")
                seen_ids.add(sample.id)
                for fld, message in check_shared_meta(sample.meta):
                    problem(lineno, fld, message)
                if sample_check is not None:
                    for fld, message in sample_check(sample):
                        problem(lineno, fld, message)
                if media_root is None:
                    continue
                for i, (rel, kind) in enumerate(sample.media_kinds()):
                    try:
                        path = resolve_under(media_root, rel)
                    except DataError as exc:
                        problem(lineno, f"media[{i}]", exc.message)
                        continue
                    if not check_media:
                        continue
                    key = str(path)
                    if key not in checked:
                        checked[key] = media_problem(path, kind)
                        stats.media_files += 1
                    why = checked[key]
                    if why is not None:
                        problem(lineno, f"media[{i}]", f"{rel!r}: {why}")
        declared = manifest.get("num_samples")
        if _is_count(declared) and declared != stats.samples and total == 0:
            problem(None, "num_samples", f"says {declared} but {SAMPLES_FILE} holds {stats.samples} samples",
                    file=str(self.manifest_path))
        if total:
            raise DatasetInvalid(problems, total=total, root=self.root)
        return stats

    def resolve_media(self, rel: str) -> Path:
        return resolve_under(self.media_root, rel)

    def __len__(self) -> int:
        n = self.manifest.get("num_samples")
        if isinstance(n, int) and _is_count(n):
            return n
        with self.samples_path.open("rb") as fh:
            return sum(1 for line in fh if line.strip())


def _remove_stale_builds(out: Path) -> None:
    """Remove temporary build directories left by a killed build of ``out`` (their process is gone)."""
    for tmp in out.parent.glob(f".{glob.escape(out.name)}.*.building"):
        pid_text = tmp.name[len(out.name) + 2:].split(".", 1)[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid():
            continue
        try:
            os.kill(int(pid_text), 0)
        except ProcessLookupError:
            shutil.rmtree(tmp, ignore_errors=True)
        except PermissionError:  # alive, owned by someone else
            continue


def _replaceable(out: Path) -> bool:
    """Whether a dataset build may replace ``out``: an empty directory, or a dataset directory (a file or a
    link is never replaced)."""
    if out.is_symlink() or not out.is_dir():
        return False
    return (out / SAMPLES_FILE).is_file() or not any(out.iterdir())


def _replaced_dataset(out: Path, built: Path) -> int | None:
    """The sample count of the dataset at ``out`` when the one ``built`` replaces it with other samples (None:
    no dataset there, or the same samples.jsonl byte for byte, as a rebuild with the same seed writes)."""
    old = out / SAMPLES_FILE
    if not old.is_file():
        return None
    new = built / SAMPLES_FILE
    try:
        if old.stat().st_size == new.stat().st_size and file_digest(old) == file_digest(new):
            return None
        with old.open("rb") as fh:
            return sum(1 for line in fh if line.strip())
    except OSError:
        return None


def refuse_output_over_input(source: str | Path, out: str | Path, *, what: str = "--out",
                             source_kind: str = "input dataset") -> None:
    """A command deriving a dataset (or an export) from ``source`` must not write it over ``source`` (the
    finished output replaces ``out`` whole) nor into or around it (``source_kind`` names the input)."""
    src, dst = Path(source).resolve(), Path(out).resolve()
    if dst == src or dst.is_relative_to(src) or src.is_relative_to(dst):
        raise ConfigError(f"{what} {out} is the {source_kind} {source} (or holds it, or lies inside it); "
                          "writing there would replace the input: choose another folder")


class DatasetWriter:
    """Write a dataset directory atomically: everything goes to a temporary sibling, renamed on success.

    On any exception the temporary directory is removed, so a failed build leaves no half-written dataset
    (and an existing dataset at ``out`` is left untouched).
    """

    def __init__(self, out: str | Path, *, overwrite: bool = True) -> None:
        self.out = Path(out)
        self.overwrite = overwrite
        self.count = 0
        self._ids: set[str] = set()
        self._tmp: Path | None = None
        self._fh: IO[str] | None = None

    def __enter__(self) -> DatasetWriter:
        if self.out.exists() and not self.overwrite:
            raise DataError("output directory exists (use --overwrite)", file=self.out)
        if self.out.exists() and not _replaceable(self.out):
            # replacing removes the old directory: never an images folder, a data root or a home directory
            raise DataError("exists and is not a niah dataset (no samples.jsonl); refusing to replace it: "
                            "choose a new --out", file=self.out)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale_builds(self.out)
        try:
            with interrupts.deferred():  # a stop between creating the folder and naming it here would leave it
                self._tmp = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.{os.getpid()}.", suffix=".building",
                                                  dir=self.out.parent))
            (self._tmp / MEDIA_DIR).mkdir()
            self._fh = (self._tmp / SAMPLES_FILE).open("w", encoding="utf-8", newline="\n")
        except BaseException:  # __exit__ is not called when __enter__ fails
            if self._tmp is not None:
                shutil.rmtree(self._tmp, ignore_errors=True)
                self._tmp = None
            raise
        return self

    @property
    def media_dir(self) -> Path:
        assert self._tmp is not None
        return self._tmp / MEDIA_DIR

    @property
    def tmp_root(self) -> Path:
        assert self._tmp is not None
        return self._tmp

    def write(self, sample: Sample) -> None:
        """Append one sample; a sample id already written is a DataError (a dataset with two samples of one
        id would be refused by every later stage)."""
        assert self._fh is not None
        if sample.id in self._ids:
            raise DataError(f"duplicate sample id {sample.id!r}", field="id")
        check_names(sample.id, sample.benchmark, sample.task)  # what every reader refuses is never written
        obj = sample.to_json()
        found = _unusable_value(obj, "")
        if found is not None:
            raise DataError(f"sample {sample.id!r}: {found[1]}", field=found[0])
        self._ids.add(sample.id)
        self._fh.write(dumps_line(obj))
        self.count += 1

    def write_media(self, rel: str, data: bytes) -> str:
        """Store media bytes at media/<rel>; returns the path to put in parts (relative to the dataset)."""
        target = resolve_under(self.media_dir, rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return f"{MEDIA_DIR}/{rel}"

    def finish(self, manifest: dict[str, Any]) -> None:
        assert self._tmp is not None and self._fh is not None
        self._fh.close()
        manifest = dict(manifest)
        manifest.setdefault("format_version", FORMAT_VERSION)
        manifest["num_samples"] = self.count
        write_json_atomic(self._tmp / MANIFEST_FILE, manifest)
        replaced = _replaced_dataset(self.out, self._tmp)
        replace_dir(self._tmp, self.out)
        self._tmp = None
        if replaced is not None:
            # a rebuild with other settings: runs of the old samples are now stale (their request keys no longer
            # match, which score and report say), so the replacement is said, not silent
            print(f"note: replaced the dataset in {self.out} ({replaced} samples before, {self.count} now, other "
                  "contents): runs of the old samples are stale", file=sys.stderr)

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if self._fh is not None and not self._fh.closed:
            self._fh.close()
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None
        return None
