"""Loaders for user corpora: OBELICS-style interleaved files, folders of .txt files, long-text JSONL.

Every loader streams: JSONL is read line by line, Parquet batch by batch (pyarrow ``iter_batches``), text
folders file by file. Bad input raises DataError naming the file, the 1-based line (Parquet: row number,
with the 0-based row index in the message) and the field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from niah.corpus.base import CorpusDocument, CorpusImage, distinct_images
from niah.corpus.embedded import default_images
from niah.corpus.text import normalize_whitespace, split_paragraphs
from niah.util.errors import ConfigError, DataError
from niah.util.iox import iter_jsonl, resolve_under

_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://|^data:")
_BLANK_LINE = re.compile(r"\n[ \t\u3000]*\n")
PARQUET_BATCH_ROWS = 256
#: One .txt file is one document; a bigger file is refused rather than held in memory whole.
MAX_TEXT_FILE_BYTES = 256 << 20


def _files(paths: Sequence[Path]) -> list[Path]:
    return sorted(paths)


def _rows(path: Path, columns: Sequence[str] | None = None,
          required: Sequence[str] = ()) -> Iterator[tuple[int, Any, str]]:
    """(1-based line or row number, row object, human label) for a .jsonl or .parquet file.

    For Parquet, ``required`` columns are checked against the schema before any row is read.
    """
    if path.suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError as exc:  # pragma: no cover - pyarrow is a declared dependency
            raise ConfigError("reading Parquet corpora needs pyarrow (pip install pyarrow)") from exc
        try:
            pf = pq.ParquetFile(path)
        except Exception as exc:  # pyarrow raises ArrowInvalid/OSError subclasses for bad files
            raise DataError(f"not a readable Parquet file: {exc}", file=path) from None
        names = set(pf.schema_arrow.names)
        for column in required:
            if column not in names:
                raise DataError(f"Parquet file has no '{column}' column (columns: {', '.join(sorted(names))})",
                                file=path, field=column)
        wanted = [c for c in (columns or pf.schema_arrow.names) if c in names]
        row_index = 0
        batches = pf.iter_batches(batch_size=PARQUET_BATCH_ROWS, columns=wanted)
        while True:
            try:
                batch = next(batches, None)
                rows = [] if batch is None else batch.to_pylist()
            except Exception as exc:  # corrupt pages surface only when read (OSError, ArrowInvalid...)
                raise DataError(f"unreadable Parquet data in the batch from row index {row_index}: "
                                f"{str(exc)[:200]}", file=path, line=row_index + 1) from None
            if batch is None:
                break
            for row in rows:
                yield row_index + 1, row, f"row index {row_index}"
                row_index += 1
    else:
        for lineno, obj in iter_jsonl(path, strict=True, what="corpus file"):
            yield lineno, obj, f"line {lineno}"


def _doc_id(row: dict, path: Path, line: int) -> str:
    value = row.get("id")
    if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
        return str(value)
    return f"{path.stem}:{line}"


def _title(row: dict, path: Path, line: int) -> str:
    value = row.get("title")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise DataError(f"'title' must be a string, got {type(value).__name__}", file=path, line=line, field="title")
    return normalize_whitespace(value)


def _lang(row: dict, default: str, path: Path, line: int) -> str:
    """The row's own ``lang`` (absent, null or empty: the corpus default); anything but a string is an error."""
    value = row.get("lang")
    if value is None or value == "":
        return default
    if not isinstance(value, str):
        raise DataError(f"'lang' must be a string, got {type(value).__name__}", file=path, line=line, field="lang")
    return value


class ObelicsCorpus:
    """OBELICS-style interleaved documents: parallel ``texts`` and ``images`` lists per row.

    At each position exactly one of ``texts[i]`` / ``images[i]`` is non-null. Text items may hold several
    paragraphs separated by blank lines. Images are local paths, relative to the folder of the file that
    names them or absolute; either way they must stay inside that folder (URLs must be downloaded first,
    see docs/corpora.md).
    """

    def __init__(self, files: Sequence[Path], *, lang: str = "en", seed: int = 0, name: str | None = None) -> None:
        if not files:
            raise ConfigError("an OBELICS corpus needs at least one .jsonl or .parquet file")
        self.files = _files(files)
        self.lang = lang
        self.seed = seed
        self.name = name or f"obelics:{self.files[0].parent if len(self.files) > 1 else self.files[0]}"
        self._pool: list[CorpusImage] | None = None

    def documents(self) -> Iterator[CorpusDocument]:
        for path in self.files:
            for line, row, where in _rows(path, ["texts", "images", "id", "title", "lang"], required=("texts", "images")):
                doc = self._document(path, line, where, row)
                if doc is not None:
                    yield doc

    def _document(self, path: Path, line: int, where: str, row: Any) -> CorpusDocument | None:
        def bad(message: str, field: str) -> DataError:
            return DataError(f"{message} ({where})", file=path, line=line, field=field)

        if not isinstance(row, dict):
            raise bad("each row must be an object with 'texts' and 'images'", "texts")
        texts, images = row.get("texts"), row.get("images")
        if not isinstance(texts, list):
            raise bad("missing or non-list 'texts'", "texts")
        if not isinstance(images, list):
            raise bad("missing or non-list 'images'", "images")
        if len(texts) != len(images):
            raise bad(f"'texts' has {len(texts)} items but 'images' has {len(images)}; they must be parallel",
                      "images")
        paragraphs: list[str] = []
        doc_images: list[CorpusImage] = []
        slots: list[int] = []
        root = path.parent
        doc_id = _doc_id(row, path, line)
        for i, (text, image) in enumerate(zip(texts, images, strict=True)):
            if (text is None) == (image is None):
                raise bad("exactly one of texts[i] and images[i] must be non-null", f"texts[{i}]")
            if text is not None:
                if not isinstance(text, str):
                    raise bad(f"text item must be a string, got {type(text).__name__}", f"texts[{i}]")
                paragraphs.extend(p for p in (normalize_whitespace(b) for b in _BLANK_LINE.split(text)) if p)
                continue
            if not isinstance(image, str) or not image:
                raise bad("image item must be a non-empty path string", f"images[{i}]")
            if _URL.match(image):
                raise bad(f"image {image[:80]!r} is a URL; download the images and rewrite 'images' to local "
                          "paths first (see docs/corpora.md)", f"images[{i}]")
            resolved = resolve_under(root, image, file=path, line=line, field=f"images[{i}]")
            if not resolved.is_file():
                raise bad(f"image file not found: {resolved}", f"images[{i}]")
            doc_images.append(CorpusImage(
                id=f"{doc_id}#img{len(doc_images)}", source=str(resolved), path=resolved,
                origin_file=str(path), origin_line=line, origin_field=f"images[{i}]",
            ))
            slots.append(len(paragraphs))
        if not paragraphs:
            return None
        lang = _lang(row, self.lang, path, line)
        return CorpusDocument(
            id=doc_id, lang=lang, title=_title(row, path, line), paragraphs=tuple(paragraphs),
            images=tuple(doc_images), image_slots=tuple(slots), source=f"{path}:{line}",
        )

    def images(self) -> Sequence[CorpusImage]:
        """Every image the documents reference (one pass over the files, cached); the embedded pool if none."""
        if self._pool is None:
            self._pool = distinct_images(self.documents()) or default_images(self.seed)
        return self._pool


class TextDirCorpus:
    """A folder of UTF-8 .txt files (searched recursively, sorted): one document per file.

    Blank lines separate paragraphs; a file without any blank line is read one paragraph per line. The id
    is the path relative to the folder, the title the file name without extension. Text corpora have no
    images of their own, so ``images()`` is the embedded pool.
    """

    def __init__(self, root: Path, *, lang: str = "en", seed: int = 0, files: Sequence[Path] | None = None) -> None:
        self.root = root
        self.lang = lang
        self.seed = seed
        self._files = list(files) if files is not None else None
        # the corpus as given: one file is named itself (its folder would read every .txt beside it)
        self.name = f"textdir:{self._files[0]}" if self._files and len(self._files) == 1 else f"textdir:{root}"
        self._pool: list[CorpusImage] | None = None

    def _paths(self) -> list[Path]:
        if self._files is not None:
            return self._files
        found = sorted(p for p in self.root.rglob("*.txt") if p.is_file() and not _hidden(p, self.root))
        for path in found:  # a link inside the folder must not read a file outside it (e.g. /etc/passwd)
            resolve_under(self.root, str(path.relative_to(self.root)), file=path, field="text")
        return found

    def documents(self) -> Iterator[CorpusDocument]:
        for path in self._paths():
            try:
                size = path.stat().st_size
            except OSError as exc:
                raise DataError(f"cannot read text file: {exc.strerror}", file=path) from None
            if size > MAX_TEXT_FILE_BYTES:
                raise DataError(f"text file is larger than {MAX_TEXT_FILE_BYTES >> 20} MiB; split it into "
                                "documents (one file each)", file=path)
            data = path.read_bytes()
            try:
                text = data.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                line = data[: exc.start].count(b"\n") + 1
                raise DataError(f"not valid UTF-8 text: {exc.reason}", file=path, line=line, field="text") from None
            paragraphs = split_paragraphs(text)
            if not paragraphs:
                continue
            rel = path.relative_to(self.root) if path.is_relative_to(self.root) else Path(path.name)
            yield CorpusDocument(id=rel.as_posix(), lang=self.lang, title=path.stem, paragraphs=tuple(paragraphs),
                                 source=str(path))

    def images(self) -> Sequence[CorpusImage]:
        if self._pool is None:
            self._pool = default_images(self.seed)
        return self._pool


class LongTextJsonlCorpus:
    """Long-text JSONL (LongData-Corpus style): one document a line, ``text`` required, ``id``/``title``
    optional. Paragraphs are split as for .txt files. ``images()`` is the embedded pool."""

    def __init__(self, files: Sequence[Path], *, lang: str = "en", seed: int = 0, name: str | None = None) -> None:
        if not files:
            raise ConfigError("a long-text JSONL corpus needs at least one .jsonl file")
        self.files = _files(files)
        self.lang = lang
        self.seed = seed
        self.name = name or f"jsonl:{self.files[0].parent if len(self.files) > 1 else self.files[0]}"
        self._pool: list[CorpusImage] | None = None

    def documents(self) -> Iterator[CorpusDocument]:
        for path in self.files:
            for line, row in iter_jsonl(path, strict=True, what="corpus file"):
                if not isinstance(row, dict):
                    raise DataError("each line must be a JSON object with a 'text' field", file=path, line=line,
                                    field="text")
                if "text" not in row:
                    raise DataError("missing required field 'text'", file=path, line=line, field="text")
                text = row["text"]
                if not isinstance(text, str):
                    raise DataError(f"'text' must be a string, got {type(text).__name__}", file=path, line=line,
                                    field="text")
                paragraphs = split_paragraphs(text)
                if not paragraphs:
                    continue
                lang = _lang(row, self.lang, path, line)
                yield CorpusDocument(id=_doc_id(row, path, line), lang=lang, title=_title(row, path, line),
                                     paragraphs=tuple(paragraphs), source=f"{path}:{line}")

    def images(self) -> Sequence[CorpusImage]:
        if self._pool is None:
            self._pool = default_images(self.seed)
        return self._pool


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def _first_row(path: Path) -> tuple[int, Any]:
    for line, row in iter_jsonl(path, strict=True, what="corpus file"):
        return line, row
    return 0, None


def jsonl_kind(path: Path) -> str | None:
    """'obelics' or 'jsonl' from the first row of a .jsonl file (None when the file has no rows)."""
    line, row = _first_row(path)
    if row is None:
        return None
    if isinstance(row, dict) and "texts" in row:
        return "obelics"
    if isinstance(row, dict) and "text" in row:
        return "jsonl"
    raise DataError("cannot tell the corpus format: the first row has neither 'texts' (OBELICS) nor 'text' "
                    "(long-text JSONL); prefix the path with obelics:, jsonl: or textdir:",
                    file=path, line=line, field="text")


def _data_files(folder: Path, suffixes: Iterable[str]) -> list[Path]:
    suffixes = tuple(suffixes)
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in suffixes and not _hidden(p, folder))
