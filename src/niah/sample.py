"""The one sample model every benchmark shares, its JSONL form, and the dataset directory.

A sample is interleaved context parts (text, image, video), a question (parts), optional choices (each a list
of parts), a JSON gold answer and free metadata. Parts are a discriminated union on ``type``, like
inspect_ai's content types, so every stage can switch on ``part.type``.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from niah.errors import DataError
from niah.iox import dumps_line, iter_jsonl, replace_dir, resolve_under, write_json_atomic

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
    """A video file, or a video given as ordered frame images (``frames``), both relative to the media root."""

    path: str | None = None
    frames: tuple[str, ...] | None = None
    fps: float | None = None
    type: Literal["video"] = "video"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "video"}
        if self.path is not None:
            out["path"] = self.path
        if self.frames is not None:
            out["frames"] = list(self.frames)
        if self.fps is not None:
            out["fps"] = self.fps
        return out


Part = TextPart | ImagePart | VideoPart


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
        return VideoPart(path=path, frames=tuple(frames) if frames is not None else None, fps=fps)
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
    return out


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

    @classmethod
    def from_json(cls, obj: Any) -> Sample:
        if not isinstance(obj, dict):
            raise DataError("a sample must be a JSON object")
        for name in ("id", "benchmark", "task"):
            if not isinstance(obj.get(name), str) or not obj.get(name):
                raise DataError("missing or not a non-empty string", field=name)
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

    def all_media(self) -> list[str]:
        out = media_paths(self.context) + media_paths(self.question)
        for c in self.choices or []:
            out.extend(media_paths(c))
        return out

    @property
    def depth(self) -> float | None:
        """Mean needle depth (the MM-NIAH convention for a list of depths)."""
        d = self.meta.get("depth")
        if d is None:
            return None
        if isinstance(d, list):
            return sum(d) / len(d) if d else None
        return float(d)


class Dataset:
    """A dataset directory: manifest.json, samples.jsonl, and media resolved under one media root.

    The media root is the dataset directory itself unless the manifest names another folder in
    ``media_root`` (official loaders use this to read images in place, without copying them).
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        if not self.root.is_dir():
            raise DataError("dataset directory does not exist", file=self.root)
        self.samples_path = self.root / SAMPLES_FILE
        if not self.samples_path.is_file():
            raise DataError(f"no {SAMPLES_FILE} in dataset directory", file=self.root)
        manifest_path = self.root / MANIFEST_FILE
        self.manifest: dict[str, Any] = {}
        if manifest_path.is_file():
            try:
                self.manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            except json.JSONDecodeError as exc:
                raise DataError(f"invalid JSON: {exc.msg}", file=manifest_path, line=exc.lineno) from None
        media_root = self.manifest.get("media_root")
        self.media_root = (self.root / media_root).resolve() if media_root else self.root.resolve()

    def __iter__(self) -> Iterator[Sample]:
        return self.iter_samples()

    def iter_samples(self, *, check_media: bool = False) -> Iterator[Sample]:
        """Stream samples, validating each; errors name file, line and field."""
        seen: set[str] = set()
        for lineno, obj in iter_jsonl(self.samples_path):
            try:
                sample = Sample.from_json(obj)
            except DataError as exc:
                raise exc.located(file=self.samples_path, line=lineno) from None
            if sample.id in seen:
                raise DataError(f"duplicate sample id {sample.id!r}", file=self.samples_path, line=lineno, field="id")
            seen.add(sample.id)
            for i, rel in enumerate(sample.all_media()):
                path = resolve_under(self.media_root, rel, file=self.samples_path, line=lineno, field=f"media[{i}]")
                if check_media and not path.is_file():
                    raise DataError(f"media file {rel!r} not found", file=self.samples_path, line=lineno,
                                    field=f"media[{i}]")
            yield sample

    def resolve_media(self, rel: str) -> Path:
        return resolve_under(self.media_root, rel)

    def __len__(self) -> int:
        n = self.manifest.get("num_samples")
        if isinstance(n, int):
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


class DatasetWriter:
    """Write a dataset directory atomically: everything goes to a temporary sibling, renamed on success.

    On any exception the temporary directory is removed, so a failed build leaves no half-written dataset
    (and an existing dataset at ``out`` is left untouched).
    """

    def __init__(self, out: str | Path, *, overwrite: bool = True) -> None:
        self.out = Path(out)
        self.overwrite = overwrite
        self.count = 0
        self._tmp: Path | None = None
        self._fh: IO[str] | None = None

    def __enter__(self) -> DatasetWriter:
        if self.out.exists() and not self.overwrite:
            raise DataError("output directory exists (use --overwrite)", file=self.out)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale_builds(self.out)
        self._tmp = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.{os.getpid()}.", suffix=".building",
                                          dir=self.out.parent))
        (self._tmp / MEDIA_DIR).mkdir()
        self._fh = (self._tmp / SAMPLES_FILE).open("w", encoding="utf-8", newline="\n")
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
        assert self._fh is not None
        self._fh.write(dumps_line(sample.to_json()))
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
        replace_dir(self._tmp, self.out)
        self._tmp = None

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if self._fh is not None and not self._fh.closed:
            self._fh.close()
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None
        return None
