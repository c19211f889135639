"""Every image a generator writes is opaque (RGB or L): a transparent pixel would be flattened onto black by one
harness and blended onto white by a server, and the model would see a different picture through each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from niah.api import build

SMALL_BUILDS: dict[str, dict[str, Any]] = {
    # counting-image's pattern and retrieval-image's options are the PNGs a build draws on its own
    "mm-niah": {"lengths": "1k", "tasks": ["counting-image", "retrieval-image", "reasoning-image"], "per_cell": 1,
                "seed": 3},
    "milebench": {"lengths": ["4k"], "per_cell": 1, "seed": 3},
    "mmlongbench": {"lengths": ["8k"], "per_cell": 1, "needles": 2, "seed": 3},
    "video-niah": {"durations": "30s", "width": 160, "height": 96, "per_cell": 1, "seed": 3},
}


@pytest.mark.parametrize("benchmark", sorted(SMALL_BUILDS))
def test_every_generated_image_is_opaque(tmp_path: Path, benchmark: str) -> None:
    out = tmp_path / "ds"
    build(benchmark, out, progress=False, **SMALL_BUILDS[benchmark])
    images = [p for p in (out / "media").rglob("*") if p.suffix.lower() in (".png", ".jpg", ".jpeg")]
    assert images, f"{benchmark}: the small build wrote no image"
    for path in images:
        with Image.open(path) as im:
            assert im.mode in ("RGB", "L") and "transparency" not in im.info, (path, im.mode)
    if benchmark == "mm-niah":  # the counting pattern is a drawing on white paper, as the option tiles are
        patterns = sorted((out / "media" / "patterns").glob("*.png"))
        assert patterns
        for path in patterns:
            with Image.open(path) as im:
                corners = [im.getpixel(xy) for xy in ((0, 0), (im.width - 1, 0), (0, im.height - 1))]
            assert corners == [(255, 255, 255)] * 3, (path, corners)

