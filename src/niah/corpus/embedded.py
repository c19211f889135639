"""The embedded default corpus: shipped English and Chinese prose plus a pool of real and procedural photos.

Text lives in ``niah/data/corpus/{en,zh}.jsonl.xz`` (written by tools/make_corpus.py and never regenerated at
run time, so datasets stay byte-identical across niah versions). Photos come from ``images/`` next to it;
the rest of the pool is procedural recipes, rendered only when an image is loaded.
"""

from __future__ import annotations

import json
import lzma
import random
from collections.abc import Iterator, Sequence
from functools import cache
from importlib import resources
from pathlib import Path

from niah.corpus.base import CorpusDocument, CorpusImage
from niah.corpus.procedural import recipe_for
from niah.util.errors import ConfigError, DataError

LANGS = ("en", "zh")
PROCEDURAL_IMAGES = 64


def data_dir() -> Path:
    """Folder holding the embedded corpus files (inside the installed package)."""
    return Path(str(resources.files("niah") / "data" / "corpus"))


@cache
def _raw_documents(lang: str) -> tuple[dict, ...]:
    path = data_dir() / f"{lang}.jsonl.xz"
    try:
        raw = lzma.decompress(path.read_bytes()).decode("utf-8")
    except (OSError, lzma.LZMAError, UnicodeDecodeError) as exc:
        raise DataError(f"embedded corpus is unreadable ({exc}); reinstall niah-bench", file=path) from None
    return tuple(json.loads(line) for line in raw.splitlines() if line)


@cache
def manifest() -> dict:
    """Counts and token totals recorded when the embedded corpus was generated."""
    return json.loads((data_dir() / "manifest.json").read_text(encoding="utf-8"))


@cache
def photo_records() -> tuple[dict, ...]:
    """Source and licence of each shipped photograph (from images.json)."""
    return tuple(json.loads((data_dir() / "images.json").read_text(encoding="utf-8")))


def default_images(seed: int = 0) -> list[CorpusImage]:
    """The embedded image pool: every shipped photo, then PROCEDURAL_IMAGES recipes drawn with ``seed``."""
    root = data_dir()
    pool = [
        CorpusImage(id=f"photo-{rec['id']}", source=f"{rec['source']} ({rec['licence']})",
                    path=root / rec["file"], origin_file=str(root / "images.json"))
        for rec in photo_records()
    ]
    for i in range(PROCEDURAL_IMAGES):
        recipe = recipe_for(i, seed)
        pool.append(CorpusImage(
            id=f"proc-{seed}-{i:03d}-{recipe.kind}",
            source=f"procedural:{recipe.kind} seed={recipe.seed} size={recipe.width}x{recipe.height}",
            recipe=recipe,
        ))
    return pool


class EmbeddedCorpus:
    """The shipped corpus for one language.

    Each document is given 1-3 images from the pool (about one per four paragraphs), spread evenly between
    its paragraphs; which images is a pure function of ``seed`` and the document id.
    """

    def __init__(self, lang: str = "en", seed: int = 0) -> None:
        if lang not in LANGS:
            raise ConfigError(f"the embedded corpus has languages {', '.join(LANGS)}, not {lang!r}")
        self.lang = lang
        self.seed = seed
        self.name = f"default-{lang}"
        self._pool = default_images(seed)

    def images(self) -> Sequence[CorpusImage]:
        return self._pool

    def documents(self) -> Iterator[CorpusDocument]:
        # A title is shown above the first document that has it only: generated forum threads, letters and
        # diaries share titles, and one haystack holding two pages of the same title would read as built.
        titles_seen: set[str] = set()
        for raw in _raw_documents(self.lang):
            title_shown = raw["title"] not in titles_seen
            titles_seen.add(raw["title"])
            paragraphs = tuple(raw["paragraphs"])
            rng = random.Random(f"niah-corpus-images/{self.seed}/{raw['id']}")
            n_images = max(1, min(3, len(paragraphs) // 4))
            images = tuple(rng.sample(self._pool, n_images))
            slots = tuple(round(len(paragraphs) * (k + 1) / (n_images + 1)) for k in range(n_images))
            yield CorpusDocument(
                id=raw["id"], lang=raw["lang"], title=raw["title"], paragraphs=paragraphs,
                images=images, image_slots=slots, source=f"embedded:{raw['id']}", genre=raw.get("genre", ""),
                headings=tuple((int(i), str(text)) for i, text in raw.get("headings", ())),
                kinds=tuple(raw.get("kinds", ())), title_in_text=title_shown,
            )
