"""Text tokenizers by name, all offline.

Names:
- ``cl100k_base``, ``o200k_base``: OpenAI BPE (tiktoken-compatible) through ``bpe-openai``'s Rust backend;
- ``llama2-sp``: the Llama-style 32K SentencePiece BPE model that mistral-common ships (``tokenizer.model.v1``),
  a stand-in for the Llama-2 tokenizer, which cannot be downloaded here (see docs/tokens.md for measured counts);
- ``hf:PATH`` (or a bare path): a local Hugging Face ``tokenizer.json`` or a directory holding one.

Counts never include special tokens (no BOS/EOS): a count is the number of tokens the text itself becomes.

Haystack assembly needs a second notion, ``unit_count``: the tokens a text *unit* adds when it follows
another unit in a context. For a unit that begins with a single space (how the builder joins sentences) this
is counted in the context where the unit will stand, once, by ``count(ANCHOR + unit) - count(ANCHOR)``. For the
tokenizers marked ``additive`` the count of a concatenation of such units is then exactly the sum of their unit
counts (pre-tokenization always splits at "non-space | space + non-space" boundaries, and SentencePiece with
whitespace splitting never merges across a space); the tests check this on random concatenations. Tokenizers
that are not marked additive (any ``hf:`` tokenizer, and Chinese text whose sentences are not separated by
spaces) are handled by the builder's verify-and-repair pass instead.
"""

from __future__ import annotations

import functools
import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path

from niah.util.errors import ConfigError

# A short text that ends like every unit ends (a word and a period), used to count a unit in context.
_ANCHOR = "Anchor."


class TextTokenizer(ABC):
    """A named text tokenizer. ``count`` is the exact length of a text; ``encode`` gives the ids."""

    name: str
    #: True when sums of ``unit_count`` over space-led units equal the count of their concatenation.
    additive: bool = False

    @abstractmethod
    def encode(self, text: str) -> list[int]: ...

    @abstractmethod
    def decode(self, ids: Sequence[int]) -> str: ...

    def count(self, text: str) -> int:
        return len(self.encode(text)) if text else 0

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        return [self.count(t) for t in texts]

    @functools.cached_property
    def _anchor_count(self) -> int:
        return self.count(_ANCHOR)

    def unit_count(self, unit: str) -> int:
        """Tokens ``unit`` adds after a preceding unit (counted once, in the context where it stands)."""
        return self.count(_ANCHOR + unit) - self._anchor_count

    def unit_counts(self, units: Sequence[str]) -> list[int]:
        anchor = self._anchor_count
        return [c - anchor for c in self.count_batch([_ANCHOR + u for u in units])]


class OpenAIBPE(TextTokenizer):
    """cl100k_base / o200k_base through bpe-openai's Rust backend (no length cap, no network)."""

    additive = True

    def __init__(self, encoding: str) -> None:
        from bpe_openai import _bindings

        self.name = encoding
        self._tok = _bindings.tokenizer_for_encoding(encoding)

    def encode(self, text: str) -> list[int]:
        return list(self._tok.encode(text)) if text else []

    def decode(self, ids: Sequence[int]) -> str:
        return self._tok.decode(list(ids))

    def count(self, text: str) -> int:
        return self._tok.count(text) if text else 0

    def pretokenize(self, text: str) -> list[str]:
        return list(self._tok.pretokenize(text))


def _mistral_common_sp_model() -> Path:
    import mistral_common

    path = Path(mistral_common.__file__).parent / "data" / "tokenizer.model.v1"
    if not path.is_file():
        raise ConfigError(f"mistral-common does not ship {path.name} in this version; cannot load llama2-sp")
    return path


class SentencePieceTokenizer(TextTokenizer):
    """A SentencePiece model; counts exclude BOS/EOS. Whitespace-split BPE, so space-led units are additive."""

    additive = True

    def __init__(self, name: str, model_file: str | Path) -> None:
        import sentencepiece as spm

        self.name = name
        self.model_file = str(model_file)
        self._sp = spm.SentencePieceProcessor(model_file=self.model_file)

    def encode(self, text: str) -> list[int]:
        return list(self._sp.encode(text)) if text else []

    def decode(self, ids: Sequence[int]) -> str:
        return self._sp.decode(list(ids))

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        return [len(ids) for ids in self._sp.encode(list(texts))]


class HFTokenizer(TextTokenizer):
    """A local Hugging Face ``tokenizer.json`` (fast tokenizers library); special tokens are not added."""

    additive = False

    def __init__(self, path: str | Path) -> None:
        from tokenizers import Tokenizer

        p = Path(path)
        file = p / "tokenizer.json" if p.is_dir() else p
        if not file.is_file():
            raise ConfigError(f"no tokenizer.json at {path}")
        self.name = f"hf:{p}"
        self._tok = Tokenizer.from_file(str(file))

    def encode(self, text: str) -> list[int]:
        return self._tok.encode(text, add_special_tokens=False).ids if text else []

    def decode(self, ids: Sequence[int]) -> str:
        return self._tok.decode(list(ids))

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        return [len(e.ids) for e in self._tok.encode_batch(list(texts), add_special_tokens=False)]


TEXT_TOKENIZERS = ("cl100k_base", "o200k_base", "llama2-sp")


@functools.lru_cache(maxsize=16)
def get_tokenizer(name: str) -> TextTokenizer:
    """Return the tokenizer called ``name`` (see module docstring); raises ConfigError for unknown names."""
    if name in ("cl100k_base", "o200k_base"):
        return OpenAIBPE(name)
    if name == "llama2-sp":
        return SentencePieceTokenizer("llama2-sp", _mistral_common_sp_model())
    if name.startswith("hf:"):
        return HFTokenizer(name[3:])
    if name.startswith("sp:"):
        return SentencePieceTokenizer(name, name[3:])
    if os.sep in name or name.endswith(".json") or Path(name).is_dir():
        return HFTokenizer(name)
    raise ConfigError(
        f"unknown tokenizer {name!r}; choose one of {', '.join(TEXT_TOKENIZERS)}, "
        "hf:PATH (tokenizer.json or its folder) or sp:PATH (a SentencePiece .model)"
    )
