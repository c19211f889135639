"""Official MM-NIAH annotation files read as a haystack corpus (``--corpus mm-niah:DIR``).

The official haystacks are real OBELICS documents, concatenated and separated by a literal ``</s>``. This reader
turns them back into documents so that new lengths and depths can be built from real text and images:

* ``DIR`` is an official split folder (``mm_niah_val``): ``DIR/annotations/*.jsonl`` and ``DIR/images/`` (or,
  without ``annotations/``, the ``*.jsonl`` files directly in ``DIR``, with images relative to ``DIR``);
* each record's ``context`` is split at ``</s>`` into documents; ``<image>`` placeholders keep their position
  (``CorpusDocument.image_slots``) and their image from ``images_list`` (context images come first in it);
* the official needles are stripped so that old needles never leak into new samples: every text needle listed
  in ``meta.needles`` is cut out of the context (a record whose text needle cannot be found verbatim is left
  out entirely, and counted), and every image listed there (pictures with pasted cartoons, puzzle pieces) is
  dropped with its placeholder;
* the same document appears in many official records: each is read once (by a hash of its text);
* image paths must stay inside the images folder; a bad record raises DataError naming file, line and field.

The builder draws haystack images from ``images()`` (every context image that is not a needle) and copies
them into the built dataset's own media, so the built dataset never refers back to ``DIR``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from niah.corpus.base import CorpusDocument, CorpusImage, distinct_images
from niah.corpus.text import split_paragraphs
from niah.util.errors import ConfigError, DataError
from niah.util.iox import iter_jsonl, resolve_under

#: What separates the documents of an official haystack (also what ``build mm-niah --format official`` writes).
DOC_SEPARATOR = "</s>"
IMAGE_PLACEHOLDER = "<image>"


def annotation_layout(root: Path) -> tuple[list[Path], Path]:
    """(annotation files, images folder) of an official split folder."""
    if root.is_file():
        raise ConfigError(f"--corpus mm-niah:DIR takes the official split folder (with annotations/ and "
                          f"images/), not a file: {root}")
    annotations = root / "annotations"
    files = sorted((annotations if annotations.is_dir() else root).glob("*.jsonl"))
    if not files:
        raise ConfigError(f"no MM-NIAH annotation files (*.jsonl) in {annotations if annotations.is_dir() else root}")
    images = root / "images" if (root / "images").is_dir() else root
    return files, images


class MMNIAHCorpus:
    """Documents and images of official MM-NIAH annotation files, with the official needles removed."""

    def __init__(self, root: Path, *, lang: str = "en", seed: int = 0) -> None:
        self.root = root
        self.files, self.images_root = annotation_layout(root)
        self.lang = lang
        self.seed = seed
        self.name = f"mm-niah:{root}"
        self._pool: list[CorpusImage] | None = None
        #: records left out because a text needle could not be found verbatim (its text might leak), per pass
        self.skipped_records = 0
        self.notes: list[str] = []

    def documents(self) -> Iterator[CorpusDocument]:
        seen: set[bytes] = set()
        self.skipped_records = 0
        for path in self.files:
            for line, obj in iter_jsonl(path, strict=True, what="annotation file"):
                try:
                    docs = self._record_documents(obj, path, line)
                except DataError as exc:
                    raise exc.located(file=path, line=line) from None
                if docs is None:
                    self.skipped_records += 1
                    continue
                for doc in docs:
                    key = hashlib.sha256("\n".join(doc.paragraphs).encode()).digest()
                    if key in seen:
                        continue
                    seen.add(key)
                    yield doc
        if self.skipped_records:
            note = (f"{self.name}: {self.skipped_records} record(s) left out because a text needle of meta.needles "
                    "does not occur verbatim in the context (its text could leak into new samples)")
            if note not in self.notes:
                self.notes.append(note)

    def _record_documents(self, obj: Any, path: Path, line: int) -> list[CorpusDocument] | None:
        if not isinstance(obj, dict):
            raise DataError("an annotation line must be a JSON object")
        context = obj.get("context")
        if not isinstance(context, str):
            raise DataError("missing or not a string", field="context")
        question = obj.get("question", "")
        if not isinstance(question, str):
            raise DataError("must be a string", field="question")
        images = obj.get("images_list")
        if not isinstance(images, list):
            raise DataError("missing or not a list of image paths", field="images_list")
        for i, rel in enumerate(images):
            if not isinstance(rel, str) or not rel:
                raise DataError("must be a non-empty string", field=f"images_list[{i}]")
        in_context = context.count(IMAGE_PLACEHOLDER)
        if in_context + question.count(IMAGE_PLACEHOLDER) != len(images):
            raise DataError(f"{in_context + question.count(IMAGE_PLACEHOLDER)} <image> placeholders in "
                            f"context+question but {len(images)} images", field="images_list")
        meta = obj.get("meta")
        if not isinstance(meta, dict):
            raise DataError("missing or not an object (meta.needles is needed to strip the old needles)",
                            field="meta")
        needles = meta.get("needles")
        if not isinstance(needles, list) or not all(isinstance(n, str) for n in needles):
            raise DataError("missing or not a list of strings (needed to strip the old needles)",
                            field="meta.needles")
        context_images = images[:in_context]
        needle_images = {n for n in needles if n in images}
        # Distinct needles, all found in the original context before any is cut (a counting record lists the
        # same statement once per occurrence), then cut longest first so that a needle that is part of a longer
        # one cannot break the longer one's match.
        text_needles = sorted({n for n in needles if n not in needle_images and n.strip()}, key=lambda n: (-len(n), n))
        if any(needle not in context for needle in text_needles):
            return None
        for needle in text_needles:
            context = context.replace(needle, " ")
        record_id = obj.get("id")
        rid = record_id if isinstance(record_id, (int, str)) and not isinstance(record_id, bool) else line
        out: list[CorpusDocument] = []
        image_index = 0
        for k, chunk in enumerate(context.split(DOC_SEPARATOR)):
            paragraphs: list[str] = []
            doc_images: list[CorpusImage] = []
            slots: list[int] = []
            pieces = chunk.split(IMAGE_PLACEHOLDER)
            for j, piece in enumerate(pieces):
                paragraphs.extend(split_paragraphs(piece))
                if j == len(pieces) - 1:
                    break
                rel = context_images[image_index]
                field = f"images_list[{image_index}]"
                image_index += 1
                if rel in needle_images:
                    continue  # a picture carrying an old needle: dropped with its placeholder
                resolved = resolve_under(self.images_root, rel, file=path, line=line, field=field)
                if not resolved.is_file():
                    raise DataError(f"image file not found: {resolved}", field=field)
                doc_images.append(CorpusImage(
                    id=f"mm-niah:{rel}", source=str(resolved), path=resolved, origin_file=str(path),
                    origin_line=line, origin_field=field))
                slots.append(len(paragraphs))
            if paragraphs:
                out.append(CorpusDocument(
                    id=f"{path.stem}/{rid}/{k}", lang=self.lang, title="", paragraphs=tuple(paragraphs),
                    images=tuple(doc_images), image_slots=tuple(slots), source=f"{path}:{line}"))
        return out

    def images(self) -> Sequence[CorpusImage]:
        """Every context image that carries no needle (one pass, cached); the embedded pool if there is none."""
        if self._pool is None:
            from niah.corpus.embedded import default_images

            self._pool = distinct_images(self.documents()) or default_images(self.seed)
        return self._pool


def open_corpus(path: Path, lang: str, seed: int) -> MMNIAHCorpus:
    return MMNIAHCorpus(path, lang=lang, seed=seed)
