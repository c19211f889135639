"""Deterministic, photo-like images rendered from a seed: landscapes, skies, still lifes, city blocks, fields,
soft abstract backgrounds, seascapes, woodland and close-ups of wood grain.

Why render instead of ship: sixty-odd extra JPEGs would cost several megabytes of package data, while a
recipe (kind, seed, size) costs a few bytes and renders in tens of milliseconds. Only ``numpy`` generators'
``random``/``integers`` draws and Pillow's resampling are used, so the same recipe gives the same pixels on
every run. The pictures are meant to read as ordinary document photos; there are deliberately no animals or
cartoon objects in them (those are what image needles look like).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image

KINDS = ("landscape", "sky", "still_life", "skyline", "fields", "bokeh", "seascape", "forest", "wood")
_ASPECTS = ((4, 3), (3, 2), (16, 9), (1, 1), (3, 4), (2, 3), (5, 4), (21, 9))


@dataclass(frozen=True)
class Recipe:
    """Everything needed to render one procedural image."""

    kind: str
    seed: int
    width: int
    height: int


def recipe_for(index: int, pool_seed: int) -> Recipe:
    """The ``index``-th procedural image of the pool drawn with ``pool_seed`` (kinds cycle, sizes vary)."""
    rng = random.Random(f"niah-procedural/{pool_seed}/{index}")
    kind = KINDS[index % len(KINDS)]
    aw, ah = rng.choice(_ASPECTS)
    for _ in range(50):
        long_side = rng.randint(480, 1024)
        if aw >= ah:
            w, h = long_side, round(long_side * ah / aw)
        else:
            w, h = round(long_side * aw / ah), long_side
        if min(w, h) >= 320:
            break
    else:  # extreme aspect ratios at small sizes: fall back to the smallest legal size
        w, h = (1024, 439) if aw >= ah else (439, 1024)
    return Recipe(kind, rng.randrange(2**31), w, h)


def render(recipe: Recipe) -> Image.Image:
    """Render ``recipe`` as an RGB image of exactly (width, height)."""
    # The painter pulls in numpy and Pillow; importing it here keeps `import niah.corpus` fast.
    from niah.corpus import _painter

    if recipe.kind not in _painter.RENDERERS:
        raise ValueError(f"unknown procedural image kind {recipe.kind!r}")
    return _painter.paint(recipe.kind, recipe.seed, recipe.width, recipe.height)
