"""One syntax for ``--lengths`` everywhere: ``8k`` (8,000 tokens), ``8192`` (tokens), ``8k-12k`` (a range).

``k`` multiplies by 1,000 (``1.5k`` is 1,500), so ``8k`` and ``8000`` are the same length; a range is
``LOW-HIGH`` with LOW <= HIGH, both positive. Builders decide what a range means for them (a bin to draw
lengths from, or a set of official bins it must name exactly) and say so in their help.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from niah.util.errors import ConfigError

VALID = "a length is tokens (8192), thousands of tokens (8k, 1.5k) or a range (8k-12k), each above 0"
_ONE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kK]?)\s*$")


def parse_tokens(text: str, *, spec: str | None = None) -> int:
    """``"8k"`` -> 8000, ``"8192"`` -> 8192; anything else (0, negative, ``8x``) is a ConfigError saying what
    a valid length looks like."""
    m = _ONE.match(text)
    value = 0
    if m:
        number = float(m.group(1))
        value = round(number * 1000) if m.group(2) else (int(number) if number.is_integer() else 0)
    if value <= 0:
        raise ConfigError(f"--lengths {spec if spec is not None else text!r}: {VALID}")
    return value


def parse_length(spec: str) -> tuple[int, int]:
    """``"8k"`` -> (8000, 8000); ``"8k-12k"`` -> (8000, 12000); plain integers are tokens."""
    lo, sep, hi = spec.partition("-")
    a = parse_tokens(lo, spec=spec)
    b = parse_tokens(hi, spec=spec) if sep else a
    if b < a:
        raise ConfigError(f"--lengths {spec!r}: a range goes from low to high (e.g. 8k-12k)")
    return a, b


def length_items(values: Iterable[str | int]) -> list[str]:
    """The items of repeated, comma-separated ``--lengths`` options as written (``["8k,16k", "32k"]`` ->
    ``["8k", "16k", "32k"]``); an integer (a Python caller's length in tokens) is its decimal spelling."""
    return [item.strip() for value in values for item in str(value).split(",") if item.strip()]


def parse_lengths(values: Iterable[str | int]) -> list[tuple[int, int]]:
    """Every comma-separated item of repeated ``--lengths`` options, parsed."""
    return [parse_length(item) for item in length_items(values)]


def exact_lengths(values: Iterable[str | int], *, builder: str) -> list[int]:
    """Lengths in tokens for a builder that makes every sample exactly one length: a range is refused in one
    line naming ``--lengths`` and the ``builder``. A length written twice (``4k,4000``) is built once."""
    lengths: list[int] = []
    for item in length_items(values):
        lo, hi = parse_length(item)
        if lo != hi:
            raise ConfigError(f"--lengths {item!r}: {builder} builds exact lengths, not ranges; give each length "
                              "as tokens (8192) or thousands of tokens (8k)")
        if lo not in lengths:
            lengths.append(lo)
    return lengths


def format_tokens(tokens: int) -> str:
    """8000 -> ``8k``, 8192 -> ``8192``: how a length is written back in labels."""
    return f"{tokens // 1000}k" if tokens % 1000 == 0 else str(tokens)
