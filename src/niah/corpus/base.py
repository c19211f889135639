"""Corpus types shared by every loader: documents, images, and the Corpus protocol the haystack builder uses.

A corpus is a stream of documents (paragraph lists, optionally with the images that belong to them) plus an
image pool. Loaders only describe where text and pixels come from; nothing is decoded until it is needed, so
a multi-gigabyte OBELICS shard costs a file handle, not memory.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from niah.util.errors import DataError

if TYPE_CHECKING:
    from PIL import Image


def _image_errors() -> tuple[type[BaseException], ...]:
    """Exceptions Pillow raises for unreadable, truncated or hostile files (Pillow imported lazily)."""
    from PIL import Image, UnidentifiedImageError

    return (OSError, UnidentifiedImageError, SyntaxError, ValueError, Image.DecompressionBombError)


@dataclass(frozen=True)
class CorpusImage:
    """One image a haystack may use: a file on disk, or a procedural recipe rendered on demand.

    ``origin_file``/``origin_line``/``origin_field`` say which corpus file, line (or parquet row, 1-based)
    and field referenced the image, so a corrupt picture is reported where the user can fix it.
    """

    id: str
    source: str
    path: Path | None = None
    recipe: object | None = None  # niah.corpus.procedural.Recipe; typed loosely to keep imports light
    origin_file: str | None = None
    origin_line: int | None = None
    origin_field: str | None = None

    def _error(self, message: str) -> DataError:
        return DataError(message, file=self.origin_file or (str(self.path) if self.path else None),
                         line=self.origin_line, field=self.origin_field)

    def load(self) -> Image.Image:
        """Decode the image as RGB; a missing, truncated or undecodable file raises DataError."""
        if self.recipe is not None:
            from niah.corpus.procedural import render

            return render(self.recipe)  # type: ignore[arg-type]
        if self.path is None:
            raise self._error(f"image {self.id!r} has neither a file nor a recipe")
        from PIL import Image

        try:
            with Image.open(self.path) as im:
                im.load()
                return im.convert("RGB")
        except FileNotFoundError:
            raise self._error(f"image file not found: {self.path}") from None
        except _image_errors() as exc:
            raise self._error(f"cannot decode image {self.path}: {exc}") from None

    def size(self) -> tuple[int, int]:
        """(width, height) without decoding the pixels (only the file header is read)."""
        if self.recipe is not None:
            return (self.recipe.width, self.recipe.height)  # type: ignore[attr-defined]
        if self.path is None:
            raise self._error(f"image {self.id!r} has neither a file nor a recipe")
        from PIL import Image

        try:
            with Image.open(self.path) as im:
                return im.size
        except FileNotFoundError:
            raise self._error(f"image file not found: {self.path}") from None
        except _image_errors() as exc:
            raise self._error(f"cannot read image header of {self.path}: {exc}") from None

    def encoded(self) -> tuple[bytes, str]:
        """(bytes, extension) ready to store in a dataset's media folder.

        JPEG and PNG files are copied byte for byte after a full decode check (so a dataset never ships a
        picture that a model server would reject); other formats and procedural images are encoded as JPEG
        quality 90.
        """
        from PIL import Image

        if self.recipe is None and self.path is not None:
            img = self.load()  # raises DataError for a bad file
            with Image.open(self.path) as im:
                fmt = im.format
            if fmt in ("JPEG", "PNG"):
                return self.path.read_bytes(), ".jpg" if fmt == "JPEG" else ".png"
        else:
            img = self.load()
        buf = io.BytesIO()
        img.save(buf, format="JPEG", quality=90)
        return buf.getvalue(), ".jpg"


#: Paragraph kinds: a plain paragraph, an item of a bulleted list, an item of a numbered list.
PARAGRAPH_KINDS = ("p", "li", "ol")


@dataclass(frozen=True)
class CorpusDocument:
    """A document: plain paragraphs (no newlines, normalized whitespace) and its own images, if any.

    ``image_slots[i]`` is where ``images[i]`` stood in the source: the number of paragraphs before it
    (0 = before the first paragraph, len(paragraphs) = after the last). The haystack builder may keep these
    positions or place images itself.
    """

    id: str
    lang: str
    title: str
    paragraphs: tuple[str, ...]
    images: tuple[CorpusImage, ...] = ()
    image_slots: tuple[int, ...] = ()
    source: str = ""  # "file:line" (or "embedded:<id>") for error messages and provenance
    genre: str = ""
    # Structure, where the source has it: ``headings[k] = (i, text)`` is a section heading standing before
    # paragraph ``i`` (headings are not paragraphs: they have no sentence end); ``kinds[i]`` is "p", "li"
    # (an item of a bulleted list) or "ol" (an item of a numbered list). Empty when unknown. Haystacks print
    # headings on their own lines and list items as "- " / "1. " lines (niah.build.haystack.pool_document).
    headings: tuple[tuple[int, str], ...] = ()
    kinds: tuple[str, ...] = ()
    # Whether a reader sees ``title`` above the text: the embedded corpus keeps titles out of ``paragraphs``;
    # other sources have none or already carry it in their text (a text file's name is not a title).
    title_in_text: bool = False

    def __post_init__(self) -> None:
        if len(self.images) != len(self.image_slots):
            raise ValueError("images and image_slots must have the same length")
        if self.kinds and (len(self.kinds) != len(self.paragraphs) or set(self.kinds) - set(PARAGRAPH_KINDS)):
            raise ValueError("kinds must give 'p', 'li' or 'ol' for every paragraph")
        if any(not 0 <= i <= len(self.paragraphs) for i, _text in self.headings):
            raise ValueError("a heading must stand before a paragraph (or after the last)")


@runtime_checkable
class Corpus(Protocol):
    """What the haystack builder needs: a document stream and an image pool."""

    name: str
    lang: str

    def documents(self) -> Iterator[CorpusDocument]:
        """A fresh iterator over the documents, in a fixed order (each call starts again)."""
        ...

    def images(self) -> Sequence[CorpusImage]:
        """The image pool haystacks draw from (never empty)."""
        ...


def distinct_images(documents: Iterator[CorpusDocument] | Sequence[CorpusDocument]) -> list[CorpusImage]:
    """Every file-backed image the documents reference, once each, in first-seen order (a corpus's image pool)."""
    seen: dict[Path, CorpusImage] = {}
    for doc in documents:
        for image in doc.images:
            if image.path is not None and image.path not in seen:
                seen[image.path] = image
    return list(seen.values())


@dataclass(frozen=True)
class CorpusReader:
    """A corpus format a family contributes: ``--corpus KIND:PATH`` opens ``open(PATH, lang, seed)``.

    ``kind`` must not be one of the shared kinds (``obelics``, ``textdir``, ``jsonl``); the opener returns a
    :class:`Corpus` and raises DataError/ConfigError for bad input before any work starts.
    """

    kind: str
    help: str
    open: Callable[[Path, str, int], Corpus]
