"""Image (and video frame) token rules by name.

Rule specs:
- ``internvl`` / ``internvl:max_tiles=N,min_tiles=M,thumbnail=1``: InternVL-1.5 dynamic tiling. The image is
  matched to the closest-aspect grid of 448 px tiles with min..max tiles (InternVL's ``dynamic_preprocess``,
  including its tie-break toward larger grids for large images); a thumbnail tile is added when there is more
  than one tile; 256 tokens a tile. Default max_tiles=6.
- ``internvl-1tile``: every image resized to one 448x448 tile = 256 tokens (a single-tile evaluation setting).
- ``qwen2vl-28px`` / ``qwen2vl-28px:min_pixels=A,max_pixels=B``: Qwen2/2.5-VL smart resize to multiples of 28
  px, one token per 28x28 pixels (14 px patches, 2x2 merge), the Qwen2-VL processor's formula.
  Defaults min_pixels=4*28*28, max_pixels=16384*28*28.
- ``fixed:N``: every image costs N tokens.

Video: ``VideoTokenRule`` = frames x a per-frame image rule.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from pathlib import Path

from niah.util.errors import ConfigError, DataError


class ImageTokenRule:
    """Maps an image size (width, height) to the tokens a model spends on it."""

    name: str

    def tokens(self, width: int, height: int) -> int:
        raise NotImplementedError

    def tokens_for_file(self, path: str | Path) -> int:
        w, h = image_size(path)
        return self.tokens(w, h)


def image_size(path: str | Path) -> tuple[int, int]:
    """(width, height) from the image header, without decoding pixels."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as im:
            return im.size
    except (OSError, UnidentifiedImageError) as exc:
        raise DataError(f"unreadable image: {exc}", file=path) from None


def _closest_aspect_grid(width: int, height: int, min_tiles: int, max_tiles: int, tile: int) -> tuple[int, int]:
    """InternVL's ``find_closest_aspect_ratio`` over grids with min..max tiles, with its exact tie-break."""
    ratios = sorted(
        {(i, j) for n in range(min_tiles, max_tiles + 1) for i in range(1, n + 1) for j in range(1, n + 1)
         if min_tiles <= i * j <= max_tiles},
        key=lambda r: r[0] * r[1],
    )
    aspect = width / height
    area = width * height
    best_diff = float("inf")
    best = (1, 1)
    for i, j in ratios:
        diff = abs(aspect - i / j)
        if diff < best_diff:
            best_diff = diff
            best = (i, j)
        elif diff == best_diff and area > 0.5 * tile * tile * i * j:
            best = (i, j)
    return best


@dataclass(frozen=True)
class InternVLRule(ImageTokenRule):
    max_tiles: int = 6
    min_tiles: int = 1
    thumbnail: bool = True
    tile: int = 448
    tokens_per_tile: int = 256

    @property
    def name(self) -> str:  # type: ignore[override]
        return (f"internvl-{self.tile}-max{self.max_tiles}" + (f"-min{self.min_tiles}" if self.min_tiles != 1 else "")
                + ("" if self.thumbnail else "-nothumb"))

    def grid(self, width: int, height: int) -> tuple[int, int]:
        return _closest_aspect_grid(width, height, self.min_tiles, self.max_tiles, self.tile)

    def tokens(self, width: int, height: int) -> int:
        i, j = self.grid(width, height)
        blocks = i * j
        if self.thumbnail and blocks != 1:
            blocks += 1
        return blocks * self.tokens_per_tile


@dataclass(frozen=True)
class FixedRule(ImageTokenRule):
    per_image: int
    label: str | None = None

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.label or f"fixed-{self.per_image}"

    def tokens(self, width: int, height: int) -> int:
        return self.per_image


#: Most pixels a Qwen2-VL rule may allow per image: 8192 x 8192, the largest image side niah sends; the
#: official default is 16384 * 28 * 28 (12.8 Mpx).
MAX_QWEN_PIXELS = 8192 * 8192


@dataclass(frozen=True)
class Qwen2VLRule(ImageTokenRule):
    min_pixels: int = 4 * 28 * 28
    max_pixels: int = 16384 * 28 * 28
    factor: int = 28

    def __post_init__(self) -> None:
        # a build resizes images to these bounds: an unbounded min_pixels would upscale every image to it
        if not 0 < self.min_pixels <= self.max_pixels <= MAX_QWEN_PIXELS:
            raise ConfigError(f"qwen2vl-28px: need 0 < min_pixels <= max_pixels <= {MAX_QWEN_PIXELS} "
                              f"(got min_pixels={self.min_pixels}, max_pixels={self.max_pixels})")

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"qwen2vl-28px-min{self.min_pixels}-max{self.max_pixels}"

    def resized(self, width: int, height: int) -> tuple[int, int]:
        """(h, w) after the smart resize, exactly as the spec writes it (Python's round, like the original)."""
        f = self.factor
        h = max(f, round(height / f) * f)
        w = max(f, round(width / f) * f)
        if h * w > self.max_pixels:
            beta = math.sqrt(height * width / self.max_pixels)
            h = math.floor(height / beta / f) * f
            w = math.floor(width / beta / f) * f
        elif h * w < self.min_pixels:
            beta = math.sqrt(self.min_pixels / (height * width))
            h = math.ceil(height * beta / f) * f
            w = math.ceil(width * beta / f) * f
        return h, w

    def tokens(self, width: int, height: int) -> int:
        h, w = self.resized(width, height)
        return (h // self.factor) * (w // self.factor)


@dataclass(frozen=True)
class VideoTokenRule:
    """Tokens of a video: the per-frame image rule applied to each sampled frame."""

    frame_rule: ImageTokenRule
    num_frames: int | None = None

    def tokens(self, frame_sizes: list[tuple[int, int]]) -> int:
        sizes = frame_sizes if self.num_frames is None else frame_sizes[: self.num_frames]
        return sum(self.frame_rule.tokens(w, h) for w, h in sizes)


def _parse_params(spec: str, text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in filter(None, text.split(",")):
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"image token rule {spec!r}: expected key=value, got {item!r}")
        try:
            out[key.strip()] = int(value)
        except ValueError:
            raise ConfigError(f"image token rule {spec!r}: {key} must be an integer") from None
    return out


IMAGE_RULES = ("internvl", "internvl-1tile", "qwen2vl-28px", "fixed:N")


# The names rules record in datasets (``meta.image_tokens_rule``) parse back to the same rule.
_CANONICAL = (
    (re.compile(r"internvl-448-max(\d+)(?:-min(\d+))?(-nothumb)?"),
     lambda m: InternVLRule(max_tiles=int(m[1]), min_tiles=int(m[2] or 1), thumbnail=not m[3])),
    (re.compile(r"internvl-448-1tile"), lambda m: FixedRule(256, label="internvl-448-1tile")),
    (re.compile(r"qwen2vl-28px-min(\d+)-max(\d+)"),
     lambda m: Qwen2VLRule(min_pixels=int(m[1]), max_pixels=int(m[2]))),
    (re.compile(r"fixed-(\d+)"), lambda m: FixedRule(int(m[1]))),
)


#: Most InternVL tiles a rule may ask for: the official models use at most 12 (40 for InternVL2.5's largest
#: setting); the grid search is cubic in it, so a huge value would spin a build for minutes.
MAX_TILES = 64


@functools.lru_cache(maxsize=32)
def get_image_rule(spec: str) -> ImageTokenRule:
    """Parse an image token rule spec (see module docstring), or a rule's recorded ``name``."""
    rule = _parse_image_rule(spec)
    if isinstance(rule, InternVLRule) and rule.max_tiles > MAX_TILES:
        raise ConfigError(f"image token rule {spec!r}: max_tiles must be at most {MAX_TILES} (got {rule.max_tiles})")
    return rule


def _parse_image_rule(spec: str) -> ImageTokenRule:
    for pattern, make in _CANONICAL:
        match = pattern.fullmatch(spec)
        if match:
            return make(match)
    head, _, params = spec.partition(":")
    try:
        if head == "internvl":
            p = _parse_params(spec, params)
            allowed = {"max_tiles", "min_tiles", "thumbnail"}
            if set(p) - allowed:
                raise ConfigError(f"image token rule {spec!r}: unknown parameter(s) {sorted(set(p) - allowed)}")
            rule = InternVLRule(max_tiles=p.get("max_tiles", 6), min_tiles=p.get("min_tiles", 1),
                                thumbnail=bool(p.get("thumbnail", 1)))
            if not 1 <= rule.min_tiles <= rule.max_tiles:
                raise ConfigError(f"image token rule {spec!r}: need 1 <= min_tiles <= max_tiles")
            return rule
        if head == "internvl-1tile" and not params:
            return FixedRule(256, label="internvl-448-1tile")
        if head == "qwen2vl-28px":
            p = _parse_params(spec, params)
            allowed = {"min_pixels", "max_pixels"}
            if set(p) - allowed:
                raise ConfigError(f"image token rule {spec!r}: unknown parameter(s) {sorted(set(p) - allowed)}")
            return Qwen2VLRule(min_pixels=p.get("min_pixels", 4 * 28 * 28),
                               max_pixels=p.get("max_pixels", 16384 * 28 * 28))
        if head == "fixed":
            n = int(params)
            if n < 0:
                raise ValueError
            return FixedRule(n)
    except ValueError:
        raise ConfigError(f"bad image token rule {spec!r}") from None
    raise ConfigError(f"unknown image token rule {spec!r}; choose one of {', '.join(IMAGE_RULES)}")
