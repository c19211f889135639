"""Corpora for haystacks: the embedded default corpus and loaders for user corpora.

``load_corpus(spec, lang=, seed=)`` is the single entry point:

* ``"default"``: the embedded English or Chinese corpus (no download);
* a path, auto-detected: an OBELICS-style ``.jsonl``/``.parquet`` file or folder of them, a folder of
  ``.txt`` files, or long-text JSONL with a ``text`` field per line;
* ``"obelics:PATH"``, ``"textdir:PATH"``, ``"jsonl:PATH"`` to force a format;
* ``"KIND:PATH"`` for a format a benchmark family contributes (``Family.corpora``, e.g. a family's official
  annotation files read as documents): the caller passes the readers it knows (a builder passes every
  family's, :func:`niah.benchmarks.registry.corpus_readers`), so this package neither names a family nor asks
  the registry, and the family protocol can use its types.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from niah.corpus.base import Corpus, CorpusDocument, CorpusImage, CorpusReader
from niah.corpus.embedded import EmbeddedCorpus, default_images
from niah.corpus.loaders import LongTextJsonlCorpus, ObelicsCorpus, TextDirCorpus, jsonl_kind
from niah.corpus.text import normalize_whitespace, split_paragraphs, split_sentences
from niah.util.errors import ConfigError

KINDS = ("obelics", "textdir", "jsonl")

__all__ = [
    "Corpus",
    "CorpusDocument",
    "CorpusImage",
    "CorpusReader",
    "EmbeddedCorpus",
    "LongTextJsonlCorpus",
    "ObelicsCorpus",
    "TextDirCorpus",
    "default_images",
    "load_corpus",
    "normalize_whitespace",
    "split_paragraphs",
    "split_sentences",
]


def load_corpus(spec: str, *, lang: str = "en", seed: int = 0, readers: Sequence[CorpusReader] = ()) -> Corpus:
    """Open a corpus. Nothing is read beyond what format detection needs; documents stream on iteration.

    ``lang`` selects the embedded corpus language and is the language of user documents that do not carry
    their own ``lang`` field. ``seed`` fixes the procedural part of the image pool and, for the embedded
    corpus, which pool images each document is given. ``readers``: the formats ``KIND:PATH`` may name beside the
    shared ones (what benchmark families contribute).
    """
    spec = spec.strip()
    if spec == "default":
        return EmbeddedCorpus(lang=lang, seed=seed)
    kind, _, rest = spec.partition(":")
    if kind in KINDS and rest:
        return _open(Path(rest).expanduser(), kind, lang=lang, seed=seed)
    if rest and kind:
        reader = next((r for r in readers if r.kind == kind), None)
        if reader is not None:
            path = Path(rest).expanduser()
            if not path.exists():
                raise ConfigError(f"corpus path not found: {path} (for --corpus {kind}:PATH)")
            return reader.open(path, lang, seed)
    if rest and kind and not Path(spec).expanduser().exists() and re.fullmatch(r"[a-z][a-z0-9-]*", kind):
        known = ", ".join([*KINDS, *(r.kind for r in readers)])
        raise ConfigError(f"--corpus {spec}: no corpus format {kind!r} here (known: {known}); a benchmark family's "
                          "format is read through the readers the caller passes (readers=corpus_readers() of "
                          "niah.benchmarks.registry)")
    return _open(Path(spec).expanduser(), None, lang=lang, seed=seed)


def _open(path: Path, kind: str | None, *, lang: str, seed: int) -> Corpus:
    if not path.exists():
        raise ConfigError(f"corpus path not found: {path} (use 'default' for the embedded corpus)")
    if path.is_file():
        return _open_file(path, kind, lang=lang, seed=seed)
    return _open_folder(path, kind, lang=lang, seed=seed)


def _open_file(path: Path, kind: str | None, *, lang: str, seed: int) -> Corpus:
    if kind == "textdir" and path.suffix.lower() != ".txt":
        # a text corpus is .txt files: JSON lines read as prose would put their braces and keys in the haystack
        raise ConfigError(f"--corpus textdir: reads .txt files (or a folder of them), not {path.name}: give a "
                          "JSONL corpus without the prefix, or as jsonl:PATH")
    if kind == "textdir" or (kind is None and path.suffix == ".txt"):
        return TextDirCorpus(path.parent, lang=lang, seed=seed, files=[path])
    if kind is None:
        if path.suffix == ".parquet":
            kind = "obelics"
        elif path.suffix == ".jsonl":
            kind = jsonl_kind(path) or "jsonl"
        else:
            raise ConfigError(f"cannot tell the corpus format of {path}: expected .jsonl, .parquet or .txt, "
                              "or a prefix obelics:, jsonl:, textdir:")
    if kind == "obelics":
        return ObelicsCorpus([path], lang=lang, seed=seed)
    if path.suffix == ".parquet":
        raise ConfigError(f"long-text corpora are read from JSONL, not Parquet: {path}")
    return LongTextJsonlCorpus([path], lang=lang, seed=seed)


def _open_folder(path: Path, kind: str | None, *, lang: str, seed: int) -> Corpus:
    from niah.corpus.loaders import _data_files

    if kind == "textdir":
        return TextDirCorpus(path, lang=lang, seed=seed)
    data = _data_files(path, (".jsonl", ".parquet"))
    if kind == "obelics":
        return ObelicsCorpus(_require(data, path), lang=lang, seed=seed, name=f"obelics:{path}")
    if kind == "jsonl":
        files = [p for p in data if p.suffix == ".jsonl"]
        return LongTextJsonlCorpus(_require(files, path), lang=lang, seed=seed, name=f"jsonl:{path}")
    if data:
        kinds = {p: ("obelics" if p.suffix == ".parquet" else jsonl_kind(p)) for p in data}
        found = {k for k in kinds.values() if k is not None}
        if len(found) > 1:
            raise ConfigError(f"{path} mixes OBELICS and long-text JSONL files; prefix the path with obelics: "
                              "or jsonl: and keep one kind per folder")
        files = [p for p, k in kinds.items() if k is not None]
        if found == {"obelics"}:
            return ObelicsCorpus(files, lang=lang, seed=seed, name=f"obelics:{path}")
        if found == {"jsonl"}:
            return LongTextJsonlCorpus(files, lang=lang, seed=seed, name=f"jsonl:{path}")
    if any(path.rglob("*.txt")):
        return TextDirCorpus(path, lang=lang, seed=seed)
    raise ConfigError(f"no corpus files (.jsonl, .parquet or .txt) under {path}")


def _require(files: list[Path], folder: Path) -> list[Path]:
    if not files:
        raise ConfigError(f"no corpus files of the requested kind under {folder}")
    return files
