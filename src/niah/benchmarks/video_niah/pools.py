"""The closed answer pools of video-niah: what a needle can show, so what a blind guess picks from.

Overlay and subtitle needles say a secret word drawn from :data:`~niah.benchmarks.video_niah.build.WORDS`; frame
and clip needles (and overlay counting) show a cartoon of :data:`~niah.benchmarks.mm_niah.needle_images.CARTOON_KINDS`,
named with spaces. Counting draws a count uniformly from :data:`COUNT_RANGE`. The scorer reads the pools to
reject a reply naming several answers; the random baseline and the audit's chance levels read them too.
"""

from __future__ import annotations

from functools import cache

from niah.sample import Sample

#: The counts the counting task draws (uniformly), kept here so that scoring never imports the builder.
COUNT_RANGE = (1, 4)


@cache
def word_pool() -> tuple[str, ...]:
    from niah.benchmarks.video_niah.build import WORDS

    return WORDS


@cache
def object_pool() -> tuple[str, ...]:
    from niah.benchmarks.mm_niah.needle_images import CARTOON_KINDS

    return tuple(kind.replace("_", " ") for kind in sorted(CARTOON_KINDS))


def shows_words(needle_kind: object, task: str) -> bool:
    """Whether the needles of a sample are secret words (else cartoons), as the builder draws them."""
    return needle_kind == "subtitle" or (needle_kind == "overlay" and task != "counting")


def answer_pool(sample: Sample) -> tuple[str, ...] | None:
    """The closed pool the sample's open retrieval answer is drawn from (None for other tasks or unknown
    needles)."""
    if sample.task != "retrieval":
        return None
    kind = (sample.meta or {}).get("needle_kind")
    if kind not in ("overlay", "subtitle", "frame", "clip"):
        return None
    return word_pool() if shows_words(kind, sample.task) else object_pool()
