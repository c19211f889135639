"""What fixes a build's draws: the seed together with everything else that makes the build.

A builder's random choices (needles, answers, passkeys, options, their places, the haystack text around them)
come from streams keyed on a :class:`BuildKey`: a SHA-256 over a canonical description of the build's inputs:
the builder's name, the seed, a digest of the corpus content it actually uses (the pooled text and the images,
not the corpus's name or path), the tokenizer, lengths, tasks and every other generation option. Keyed on the
seed alone, two builds with the same seed drew the same answers whatever their corpus, so a table of question ->
answer learned from the public default build answered a build made from a private corpus. Now any change of
input (one text file of the corpus, one image, another tokenizer or task list) gives other answers everywhere,
while the same inputs still give the same bytes.

The digests here are plain functions of content, so a corpus copied to another path builds the same samples.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from niah.util.iox import file_digest

if TYPE_CHECKING:
    import numpy as np

    from niah.corpus.base import CorpusImage

#: Bumped when the derivation changes, so that keys of different derivations never coincide.
KEY_VERSION = 1
_CHUNK = 1 << 20


def _update_text(h: Any, text: str) -> None:
    data = text.encode("utf-8")
    h.update(len(data).to_bytes(8, "little"))  # length-prefixed: ["ab", "c"] and ["a", "bc"] differ
    h.update(data)


def text_digest(texts: Iterable[str]) -> str:
    """SHA-256 (hex) of a sequence of texts, each length-prefixed (the order and the boundaries count)."""
    h = hashlib.sha256()
    for text in texts:
        _update_text(h, text)
    return h.hexdigest()


def path_digest(path: str | Path) -> str:
    """SHA-256 (hex) of a file's bytes, or of a folder's files (each relative name and content, sorted)."""
    root = Path(path)
    if not root.is_dir():
        return file_digest(root)
    files = sorted(p for p in root.rglob("*") if p.is_file())
    return text_digest(f"{p.relative_to(root).as_posix()}:{file_digest(p)}" for p in files)


def image_digest(images: Iterable[CorpusImage]) -> str:
    """SHA-256 (hex) of an image pool, in order: each file's bytes, or a procedural image's recipe (kind, seed,
    size: its pixels are a function of those). Ids and paths are left out: the same pictures elsewhere are the
    same pool."""
    h = hashlib.sha256()
    for image in images:
        recipe = getattr(image, "recipe", None)
        if recipe is not None:
            _update_text(h, "recipe:" + repr(recipe))
        elif image.path is not None:
            _update_text(h, "file:" + file_digest(image.path))
        else:
            _update_text(h, "none:" + image.source)
    return h.hexdigest()


def _canonical(value: Any) -> Any:
    """JSON-ready form of an input: tuples as lists, paths as text, mappings with string keys (sorted when
    dumped); anything else must already be JSON (a float's repr is exact, so it keys what it is)."""
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"build key input of type {type(value).__name__} has no canonical form")


@dataclass(frozen=True)
class BuildKey:
    """The digest every draw of one build is keyed on; ``inputs`` is what it was computed from."""

    digest: str
    inputs: Mapping[str, Any] = field(compare=False, repr=False)

    def __str__(self) -> str:
        return self.digest

    def label(self, *parts: Any) -> str:
        """A text key for a named stream of this build (``random.Random(label)``, :func:`niah.build.deck.deal`)."""
        return "/".join([self.digest, *(str(p) for p in parts)])

    def seed_of(self, *parts: Any) -> int:
        """A 64-bit seed for the stream named by ``parts`` (e.g. a sample's grid coordinates)."""
        return int.from_bytes(hashlib.sha256(repr((self.digest, *parts)).encode("utf-8")).digest()[:8], "little")

    def random(self, *parts: Any) -> random.Random:
        return random.Random(self.seed_of(*parts))

    def numpy(self, *parts: Any) -> np.random.Generator:
        import numpy as np

        return np.random.default_rng(self.seed_of(*parts))


def build_key(builder: str, seed: int, inputs: Mapping[str, Any]) -> BuildKey:
    """The key of a build by ``builder`` (its ``niah build`` name) with ``seed`` and ``inputs``: every other
    thing that makes the build, with content digests (:func:`text_digest`, :func:`image_digest`,
    :func:`file_digest`) for the corpus, images and files it reads."""
    described = {"key_version": KEY_VERSION, "builder": builder, "seed": int(seed), **_canonical(dict(inputs))}
    text = json.dumps(described, sort_keys=True, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return BuildKey(hashlib.sha256(text.encode("ascii")).hexdigest(), described)


def pool_digest(units: Sequence[str], doc_starts: Iterable[int]) -> str:
    """The digest of a pooled corpus text: its units in order and where each document starts."""
    return text_digest([*units, "\x00docs:" + ",".join(str(int(s)) for s in doc_starts)])
