"""MM-NIAH image needles: procedural cartoons, pasting, image options and reasoning-image puzzles.

The paper pastes DALL-E 3 cartoons into document images (retrieval/counting) and BLINK jigsaw and
multi-view images into documents (reasoning). Neither set is redistributable here and nothing may be
downloaded at run time, so this module draws its own material with PIL only:

- ``draw_cartoon``: flat-coloured, dark-outlined cartoon objects on a transparent background, one per
  kind in ``CARTOON_KINDS``; the seed picks a colour variant and a small tilt, so the same (kind, size,
  seed) always gives byte-identical pixels and the generator can pin one look per kind (seed 0).
- ``paste_needle`` / ``paste_many``: alpha-composite cartoons into a haystack image at random positions,
  sized relative to the haystack's shorter side (``paste_many`` never overlaps two needles).
- ``make_image_options``: the four image options of a retrieval-image question.
- ``make_jigsaw`` / ``make_camera_motion`` / ``make_reasoning_image``: BLINK-style puzzles built from a
  haystack image (kinds in ``REASONING_IMAGE_KINDS``).

All randomness comes from the ``random.Random`` or seed passed in, so a build is reproducible.
Boxes are PIL boxes ``(left, top, right, bottom)`` with exclusive right/bottom edges.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from PIL import Image, ImageChops, ImageDraw, ImageFont, ImageStat

from niah.util.errors import ConfigError

Box = tuple[int, int, int, int]
RGB = tuple[int, int, int]

OUTLINE: RGB = (34, 30, 40)
WHITE: RGB = (255, 255, 255)
_HIRES_TARGET = 512  # cartoons are drawn at about this size, then downsampled (anti-aliasing)
_MAX_TILT_DEG = 8.0


# ===================================================================================== cartoon drawing


class _Pen:
    """Draws in unit coordinates (0..1 on a square canvas) with a stroke width relative to the canvas,
    so each cartoon is described once, independent of the output size."""

    def __init__(self, image: Image.Image, stroke: float = 0.022) -> None:
        self.draw = ImageDraw.Draw(image)
        self.px = image.width
        self.stroke = max(1, round(stroke * self.px))

    def _pt(self, x: float, y: float) -> tuple[float, float]:
        return (x * self.px, y * self.px)

    def _box(self, box: Sequence[float]) -> list[float]:
        x0, y0, x1, y1 = box
        return [x0 * self.px, y0 * self.px, x1 * self.px, y1 * self.px]

    def ellipse(self, box: Sequence[float], fill: RGB | None, outline: bool = True) -> None:
        self.draw.ellipse(self._box(box), fill=fill, outline=OUTLINE if outline else None,
                          width=self.stroke if outline else 0)

    def circle(self, cx: float, cy: float, r: float, fill: RGB | None, outline: bool = True) -> None:
        self.ellipse((cx - r, cy - r, cx + r, cy + r), fill, outline)

    def rect(self, box: Sequence[float], fill: RGB, radius: float = 0.0, outline: bool = True) -> None:
        self.draw.rounded_rectangle(self._box(box), radius=radius * self.px, fill=fill,
                                    outline=OUTLINE if outline else None,
                                    width=self.stroke if outline else 0)

    def polygon(self, points: Sequence[tuple[float, float]], fill: RGB | None, outline: bool = True) -> None:
        pts = [self._pt(x, y) for x, y in points]
        if fill is not None:
            self.draw.polygon(pts, fill=fill)
        if outline:
            self.draw.line([*pts, pts[0], pts[1]], fill=OUTLINE, width=self.stroke, joint="curve")

    def chord(self, box: Sequence[float], start: float, end: float, fill: RGB, outline: bool = True) -> None:
        self.draw.chord(self._box(box), start, end, fill=fill, outline=OUTLINE if outline else None,
                        width=self.stroke if outline else 0)

    def pieslice(self, box: Sequence[float], start: float, end: float, fill: RGB,
                 outline: bool = True) -> None:
        self.draw.pieslice(self._box(box), start, end, fill=fill, outline=OUTLINE if outline else None,
                           width=self.stroke if outline else 0)

    def line(self, points: Sequence[tuple[float, float]], colour: RGB = OUTLINE, width: float = 1.0) -> None:
        self.draw.line([self._pt(x, y) for x, y in points], fill=colour,
                       width=max(1, round(self.stroke * width)), joint="curve")

    def arc(self, box: Sequence[float], start: float, end: float, colour: RGB = OUTLINE,
            width: float = 1.0) -> None:
        self.draw.arc(self._box(box), start, end, fill=colour, width=max(1, round(self.stroke * width)))

    def eye(self, cx: float, cy: float, r: float) -> None:
        """A cute cartoon eye: white ball, dark pupil, small highlight."""
        self.circle(cx, cy, r, WHITE)
        self.circle(cx + r * 0.15, cy + r * 0.1, r * 0.55, OUTLINE, outline=False)
        self.circle(cx + r * 0.32, cy - r * 0.12, r * 0.2, WHITE, outline=False)

    def smile(self, cx: float, cy: float, w: float) -> None:
        self.arc((cx - w, cy - w * 0.8, cx + w, cy + w * 0.8), 20, 160, width=0.9)


def _shade(colour: RGB, factor: float) -> RGB:
    """Lighter (factor > 1) or darker (factor < 1) version of a colour, for highlights and shadows."""
    if factor >= 1:
        return tuple(round(c + (255 - c) * (factor - 1)) for c in colour)  # type: ignore[return-value]
    return tuple(round(c * factor) for c in colour)  # type: ignore[return-value]


def _star_points(cx: float, cy: float, r_out: float, r_in: float, n: int = 5,
                 rotation: float = -90.0) -> list[tuple[float, float]]:
    points = []
    for i in range(2 * n):
        r = r_out if i % 2 == 0 else r_in
        a = math.radians(rotation + i * 180.0 / n)
        points.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return points


def _draw_penguin(p: _Pen, c: RGB) -> None:
    orange = (247, 148, 29)
    p.ellipse((0.18, 0.42, 0.34, 0.74), c)  # flippers behind the body
    p.ellipse((0.66, 0.42, 0.82, 0.74), c)
    p.ellipse((0.30, 0.84, 0.48, 0.95), orange)  # feet
    p.ellipse((0.52, 0.84, 0.70, 0.95), orange)
    p.ellipse((0.24, 0.08, 0.76, 0.92), c)  # body
    p.ellipse((0.33, 0.36, 0.67, 0.88), (250, 250, 245))  # belly
    p.ellipse((0.33, 0.18, 0.67, 0.44), (250, 250, 245), outline=False)  # face patch
    p.eye(0.42, 0.29, 0.045)
    p.eye(0.58, 0.29, 0.045)
    p.polygon([(0.44, 0.36), (0.56, 0.36), (0.50, 0.44)], orange)  # beak
    p.circle(0.37, 0.38, 0.025, (255, 170, 180), outline=False)  # cheeks
    p.circle(0.63, 0.38, 0.025, (255, 170, 180), outline=False)


def _draw_cat(p: _Pen, c: RGB) -> None:
    pink = (255, 160, 175)
    p.polygon([(0.14, 0.42), (0.20, 0.08), (0.44, 0.26)], c)  # ears
    p.polygon([(0.86, 0.42), (0.80, 0.08), (0.56, 0.26)], c)
    p.polygon([(0.21, 0.34), (0.23, 0.17), (0.35, 0.27)], pink, outline=False)
    p.polygon([(0.79, 0.34), (0.77, 0.17), (0.65, 0.27)], pink, outline=False)
    p.ellipse((0.10, 0.20, 0.90, 0.90), c)  # head
    p.ellipse((0.30, 0.56, 0.70, 0.86), _shade(c, 1.6), outline=False)  # muzzle
    for cx in (0.34, 0.66):  # green eyes with slit pupils
        p.ellipse((cx - 0.08, 0.40, cx + 0.08, 0.56), (120, 200, 90))
        p.ellipse((cx - 0.018, 0.415, cx + 0.018, 0.545), OUTLINE, outline=False)
        p.circle(cx + 0.035, 0.44, 0.016, WHITE, outline=False)
    p.polygon([(0.45, 0.60), (0.55, 0.60), (0.50, 0.66)], pink)  # nose
    p.arc((0.40, 0.62, 0.50, 0.72), 0, 160, width=0.8)  # mouth
    p.arc((0.50, 0.62, 0.60, 0.72), 20, 180, width=0.8)
    for y, dy in ((0.64, -0.03), (0.69, 0.0), (0.74, 0.03)):  # whiskers
        p.line([(0.30, y), (0.04, y + dy)], width=0.6)
        p.line([(0.70, y), (0.96, y + dy)], width=0.6)


def _draw_star(p: _Pen, c: RGB) -> None:
    p.polygon(_star_points(0.5, 0.53, 0.47, 0.21), c)
    p.polygon(_star_points(0.5, 0.53, 0.33, 0.15), _shade(c, 1.35), outline=False)
    p.eye(0.43, 0.50, 0.04)
    p.eye(0.57, 0.50, 0.04)
    p.smile(0.5, 0.56, 0.06)


def _draw_sun(p: _Pen, c: RGB) -> None:
    ray = (247, 130, 30)
    for i in range(12):
        a = math.radians(i * 30)
        side = math.radians(i * 30 + 90)
        base_x, base_y = 0.5 + 0.28 * math.cos(a), 0.5 + 0.28 * math.sin(a)
        tip = (0.5 + 0.48 * math.cos(a), 0.5 + 0.48 * math.sin(a))
        half = 0.07
        p.polygon([(base_x + half * math.cos(side), base_y + half * math.sin(side)), tip,
                   (base_x - half * math.cos(side), base_y - half * math.sin(side))], ray)
    p.circle(0.5, 0.5, 0.31, c)
    p.eye(0.41, 0.45, 0.045)
    p.eye(0.59, 0.45, 0.045)
    p.circle(0.35, 0.56, 0.035, (255, 140, 120), outline=False)
    p.circle(0.65, 0.56, 0.035, (255, 140, 120), outline=False)
    p.smile(0.5, 0.54, 0.09)


def _draw_apple(p: _Pen, c: RGB) -> None:
    p.rect((0.47, 0.06, 0.53, 0.28), (120, 72, 40), radius=0.02)  # stem
    p.polygon([(0.53, 0.20), (0.66, 0.06), (0.82, 0.10), (0.70, 0.22)], (80, 170, 70))  # leaf
    p.ellipse((0.10, 0.22, 0.58, 0.92), c)
    p.ellipse((0.42, 0.22, 0.90, 0.92), c)
    p.ellipse((0.16, 0.26, 0.84, 0.94), c, outline=False)  # hide the inner outlines
    p.arc((0.10, 0.22, 0.58, 0.92), 110, 250)
    p.arc((0.42, 0.22, 0.90, 0.92), 290, 70)
    p.arc((0.16, 0.26, 0.84, 0.94), 40, 140)
    p.ellipse((0.22, 0.34, 0.32, 0.52), _shade(c, 1.6), outline=False)  # highlight


def _draw_fish(p: _Pen, c: RGB) -> None:
    fin = _shade(c, 0.75)
    p.polygon([(0.70, 0.50), (0.96, 0.24), (0.90, 0.50), (0.96, 0.76)], fin)  # tail
    p.polygon([(0.36, 0.30), (0.50, 0.12), (0.62, 0.32)], fin)  # dorsal fin
    p.ellipse((0.04, 0.26, 0.78, 0.76), c)  # body
    for x in (0.40, 0.52):  # stripes
        p.arc((x - 0.10, 0.27, x + 0.10, 0.75), 300, 60, colour=_shade(c, 1.5), width=1.8)
    p.eye(0.22, 0.45, 0.06)
    p.arc((0.06, 0.52, 0.18, 0.64), 300, 60, width=0.8)  # mouth
    p.polygon([(0.36, 0.56), (0.48, 0.60), (0.38, 0.68)], fin)  # side fin


def _draw_rocket(p: _Pen, c: RGB) -> None:
    flame_out, flame_in = (250, 120, 30), (255, 220, 60)
    p.polygon([(0.40, 0.78), (0.60, 0.78), (0.50, 0.98)], flame_out)
    p.polygon([(0.44, 0.78), (0.56, 0.78), (0.50, 0.91)], flame_in, outline=False)
    p.polygon([(0.36, 0.56), (0.20, 0.80), (0.38, 0.76)], c)  # fins
    p.polygon([(0.64, 0.56), (0.80, 0.80), (0.62, 0.76)], c)
    p.rect((0.36, 0.28, 0.64, 0.80), (236, 236, 244), radius=0.05)  # hull
    p.polygon([(0.36, 0.32), (0.50, 0.03), (0.64, 0.32)], c)  # nose cone
    p.circle(0.50, 0.47, 0.085, (120, 200, 240))  # window
    p.ellipse((0.45, 0.41, 0.50, 0.46), WHITE, outline=False)
    p.rect((0.46, 0.66, 0.54, 0.80), c, radius=0.0)


def _draw_flower(p: _Pen, c: RGB) -> None:
    green = (80, 170, 70)
    p.line([(0.5, 0.52), (0.5, 0.97)], width=2.2)
    p.line([(0.5, 0.52), (0.5, 0.97)], colour=green, width=1.2)
    p.ellipse((0.50, 0.70, 0.78, 0.82), green)  # leaves
    p.ellipse((0.22, 0.78, 0.50, 0.90), green)
    for i in range(6):
        a = math.radians(i * 60 - 90)
        cx, cy = 0.5 + 0.19 * math.cos(a), 0.36 + 0.19 * math.sin(a)
        p.circle(cx, cy, 0.13, c)
    p.circle(0.5, 0.36, 0.12, (255, 210, 60))
    p.eye(0.46, 0.34, 0.025)
    p.eye(0.54, 0.34, 0.025)
    p.smile(0.5, 0.37, 0.04)


def _draw_house(p: _Pen, c: RGB) -> None:
    p.rect((0.64, 0.10, 0.74, 0.36), (150, 90, 70))  # chimney
    p.rect((0.16, 0.42, 0.84, 0.94), (250, 226, 170))  # walls
    p.polygon([(0.06, 0.46), (0.50, 0.08), (0.94, 0.46)], c)  # roof
    p.rect((0.42, 0.64, 0.58, 0.94), (140, 84, 50), radius=0.02)  # door
    p.circle(0.545, 0.80, 0.012, (255, 210, 60), outline=False)
    for x in (0.22, 0.66):  # windows with crossbars
        p.rect((x, 0.54, x + 0.13, 0.68), (150, 215, 245))
        p.line([(x + 0.065, 0.54), (x + 0.065, 0.68)], width=0.8)
        p.line([(x, 0.61), (x + 0.13, 0.61)], width=0.8)


def _draw_car(p: _Pen, c: RGB) -> None:
    p.polygon([(0.24, 0.48), (0.34, 0.28), (0.66, 0.28), (0.78, 0.48)], c)  # cabin
    p.polygon([(0.30, 0.47), (0.37, 0.33), (0.48, 0.33), (0.48, 0.47)], (160, 220, 245))
    p.polygon([(0.53, 0.47), (0.53, 0.33), (0.64, 0.33), (0.72, 0.47)], (160, 220, 245))
    p.rect((0.04, 0.46, 0.96, 0.72), c, radius=0.08)  # body
    p.rect((0.88, 0.52, 0.95, 0.58), (255, 230, 120), radius=0.02)  # headlight
    p.line([(0.50, 0.50), (0.50, 0.68)], width=0.8)
    for cx in (0.26, 0.74):  # wheels
        p.circle(cx, 0.73, 0.12, (50, 50, 56))
        p.circle(cx, 0.73, 0.05, (190, 190, 200))


def _draw_ghost(p: _Pen, c: RGB) -> None:
    body = [(0.14, 0.52)]
    body += [(0.5 + 0.36 * math.cos(math.radians(a)), 0.46 + 0.38 * math.sin(math.radians(a)))
             for a in range(180, 361, 10)]
    body += [(0.86, 0.52), (0.86, 0.92)]
    for i in range(8):  # wavy hem
        x0 = 0.86 - i * 0.09
        body.append((x0 - 0.045, 0.84 if i % 2 == 0 else 0.92))
        body.append((x0 - 0.09, 0.92 if i % 2 == 0 else 0.84))
    p.polygon(body[:-1], c)
    p.ellipse((0.32, 0.34, 0.44, 0.52), OUTLINE, outline=False)
    p.ellipse((0.56, 0.34, 0.68, 0.52), OUTLINE, outline=False)
    p.circle(0.40, 0.39, 0.02, WHITE, outline=False)
    p.circle(0.64, 0.39, 0.02, WHITE, outline=False)
    p.ellipse((0.44, 0.56, 0.56, 0.70), OUTLINE, outline=False)  # "ooh" mouth
    p.circle(0.28, 0.56, 0.03, (255, 170, 190), outline=False)
    p.circle(0.72, 0.56, 0.03, (255, 170, 190), outline=False)


def _draw_cupcake(p: _Pen, c: RGB) -> None:
    wrapper = (120, 180, 235)
    p.polygon([(0.18, 0.56), (0.82, 0.56), (0.72, 0.95), (0.28, 0.95)], wrapper)
    for x in (0.34, 0.50, 0.66):
        p.line([(x, 0.58), (0.5 + (x - 0.5) * 0.75, 0.93)], width=0.7)
    p.ellipse((0.10, 0.42, 0.90, 0.66), c)  # frosting tiers
    p.ellipse((0.18, 0.28, 0.82, 0.50), c)
    p.ellipse((0.28, 0.16, 0.72, 0.36), c)
    for x, y, col in ((0.30, 0.52, (255, 230, 80)), (0.62, 0.44, (120, 210, 120)),
                      (0.45, 0.38, (120, 180, 235)), (0.70, 0.58, (255, 255, 255))):
        p.rect((x - 0.025, y - 0.01, x + 0.025, y + 0.01), col, radius=0.01, outline=False)  # sprinkles
    p.circle(0.5, 0.13, 0.08, (220, 30, 50))  # cherry
    p.arc((0.5, -0.04, 0.66, 0.10), 90, 200)


def _draw_umbrella(p: _Pen, c: RGB) -> None:
    p.line([(0.5, 0.40), (0.5, 0.84)], width=1.6)  # shaft
    p.arc((0.5, 0.74, 0.66, 0.92), 0, 180, width=1.6)  # J-hook handle
    tip, rim_y, ribs = (0.5, 0.14), 0.52, (0.04, 0.27, 0.5, 0.73, 0.96)

    def dome(x_from: float, x_to: float) -> list[tuple[float, float]]:
        # points of the canopy's upper edge (half ellipse) between two x positions
        pts = []
        for i in range(25):
            x = x_from + (x_to - x_from) * i / 24
            u = max(-1.0, min(1.0, (x - 0.5) / 0.46))
            pts.append((x, rim_y - 0.38 * math.sqrt(1 - u * u)))
        return pts

    def scallop(x_from: float, x_to: float) -> list[tuple[float, float]]:
        # the hem between two ribs curves up into the canopy
        return [(x_from + (x_to - x_from) * i / 12, rim_y - 0.07 * math.sin(math.pi * i / 12))
                for i in range(13)]

    outline = dome(ribs[0], ribs[-1])
    for a, b in zip(ribs[::-1], ribs[-2::-1], strict=False):
        outline += scallop(a, b)[1:]
    p.polygon(outline, c, outline=False)
    stripe = _shade(c, 1.45)
    p.polygon([tip, *scallop(ribs[1], ribs[2])], stripe, outline=False)
    p.polygon([tip, *scallop(ribs[3], ribs[4]), *dome(ribs[4], 0.5)], stripe, outline=False)
    for x in ribs[1:-1]:
        p.line([tip, (x, rim_y)], width=0.8)
    p.polygon(outline, None)
    p.polygon([(0.48, 0.15), (0.50, 0.06), (0.52, 0.15)], OUTLINE)  # tip


def _draw_heart_balloon(p: _Pen, c: RGB) -> None:
    p.line([(0.5, 0.70), (0.46, 0.80), (0.54, 0.88), (0.48, 0.98)], width=0.8)  # string
    heart = []
    for i in range(72):
        t = 2 * math.pi * i / 72
        x = 16 * math.sin(t) ** 3
        y = 13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t)
        heart.append((0.5 + x * 0.026, 0.36 - y * 0.026))
    p.polygon(heart, c)
    p.polygon([(0.46, 0.72), (0.54, 0.72), (0.50, 0.66)], c)  # knot
    p.ellipse((0.22, 0.18, 0.32, 0.32), _shade(c, 1.6), outline=False)  # highlight


def _draw_mushroom(p: _Pen, c: RGB) -> None:
    p.rect((0.34, 0.46, 0.66, 0.94), (250, 236, 210), radius=0.08)  # stem
    p.chord((0.06, 0.10, 0.94, 0.82), 180, 360, c)  # cap
    p.rect((0.06, 0.44, 0.94, 0.50), c, radius=0.03)
    for cx, cy, r in ((0.30, 0.30, 0.07), (0.55, 0.20, 0.06), (0.74, 0.35, 0.06), (0.45, 0.38, 0.04),
                      (0.16, 0.42, 0.035)):
        p.circle(cx, cy, r, WHITE, outline=False)
    p.eye(0.43, 0.66, 0.035)
    p.eye(0.57, 0.66, 0.035)
    p.smile(0.5, 0.71, 0.04)


def _draw_snowman(p: _Pen, c: RGB) -> None:
    snow = (246, 250, 255)
    p.circle(0.5, 0.76, 0.21, snow)
    p.circle(0.5, 0.46, 0.16, snow)
    p.circle(0.5, 0.22, 0.12, snow)
    p.rect((0.30, 0.10, 0.70, 0.14), (40, 40, 48))  # hat brim
    p.rect((0.38, 0.00, 0.62, 0.12), (40, 40, 48))
    p.rect((0.38, 0.08, 0.62, 0.11), c, outline=False)  # hat band in the variant colour
    p.rect((0.34, 0.32, 0.66, 0.38), c, radius=0.03)  # scarf
    p.rect((0.56, 0.34, 0.64, 0.52), c, radius=0.02)
    p.circle(0.45, 0.20, 0.018, OUTLINE, outline=False)
    p.circle(0.55, 0.20, 0.018, OUTLINE, outline=False)
    p.polygon([(0.49, 0.23), (0.49, 0.27), (0.64, 0.26)], (247, 130, 30))  # carrot nose
    for y in (0.45, 0.54, 0.68, 0.80):  # coal buttons
        p.circle(0.5, y, 0.02, OUTLINE, outline=False)
    p.line([(0.35, 0.46), (0.12, 0.34), (0.08, 0.28)], colour=(120, 80, 45), width=1.0)  # twig arms
    p.line([(0.65, 0.46), (0.88, 0.34), (0.92, 0.28)], colour=(120, 80, 45), width=1.0)


def _draw_frog(p: _Pen, c: RGB) -> None:
    p.ellipse((0.10, 0.78, 0.40, 0.92), c)  # feet
    p.ellipse((0.60, 0.78, 0.90, 0.92), c)
    p.ellipse((0.08, 0.34, 0.92, 0.88), c)  # body/head
    p.ellipse((0.26, 0.56, 0.74, 0.86), _shade(c, 1.5), outline=False)  # belly
    p.circle(0.30, 0.30, 0.13, c)  # eye bumps
    p.circle(0.70, 0.30, 0.13, c)
    p.eye(0.30, 0.30, 0.08)
    p.eye(0.70, 0.30, 0.08)
    p.arc((0.28, 0.38, 0.72, 0.62), 25, 155, width=1.0)  # wide grin
    p.circle(0.20, 0.52, 0.04, (255, 150, 160), outline=False)
    p.circle(0.80, 0.52, 0.04, (255, 150, 160), outline=False)


def _draw_owl(p: _Pen, c: RGB) -> None:
    p.polygon([(0.20, 0.30), (0.24, 0.06), (0.40, 0.22)], c)  # ear tufts
    p.polygon([(0.80, 0.30), (0.76, 0.06), (0.60, 0.22)], c)
    p.ellipse((0.04, 0.34, 0.30, 0.80), _shade(c, 0.75))  # wings
    p.ellipse((0.70, 0.34, 0.96, 0.80), _shade(c, 0.75))
    p.ellipse((0.16, 0.12, 0.84, 0.94), c)
    p.ellipse((0.30, 0.52, 0.70, 0.90), (250, 230, 190))  # chest
    for y in (0.62, 0.72, 0.82):
        p.arc((0.42, y - 0.04, 0.50, y + 0.04), 20, 160, width=0.7)
        p.arc((0.50, y - 0.04, 0.58, y + 0.04), 20, 160, width=0.7)
    p.circle(0.37, 0.36, 0.12, (250, 230, 190))
    p.circle(0.63, 0.36, 0.12, (250, 230, 190))
    p.eye(0.37, 0.36, 0.07)
    p.eye(0.63, 0.36, 0.07)
    p.polygon([(0.46, 0.44), (0.54, 0.44), (0.50, 0.54)], (247, 160, 40))  # beak
    p.ellipse((0.30, 0.90, 0.42, 0.97), (247, 160, 40))  # feet
    p.ellipse((0.58, 0.90, 0.70, 0.97), (247, 160, 40))


_Drawer = Callable[[_Pen, RGB], None]

#: kind -> (drawer, colour variants chosen by the seed). Variant 0 is the canonical look.
_CARTOONS: dict[str, tuple[_Drawer, tuple[RGB, ...]]] = {
    "penguin": (_draw_penguin, ((40, 48, 70), (30, 60, 90), (60, 50, 80))),
    "cat": (_draw_cat, ((245, 160, 60), (160, 160, 170), (200, 120, 70))),
    "star": (_draw_star, ((255, 215, 40), (255, 190, 60), (250, 230, 90))),
    "sun": (_draw_sun, ((255, 214, 50), (255, 200, 40), (255, 225, 80))),
    "apple": (_draw_apple, ((225, 40, 45), (150, 200, 60), (240, 70, 60))),
    "fish": (_draw_fish, ((40, 160, 220), (250, 140, 40), (230, 90, 150))),
    "rocket": (_draw_rocket, ((220, 50, 60), (60, 120, 220), (120, 70, 190))),
    "flower": (_draw_flower, ((240, 110, 170), (180, 110, 230), (250, 120, 90))),
    "house": (_draw_house, ((200, 60, 50), (70, 110, 190), (60, 150, 90))),
    "car": (_draw_car, ((230, 50, 50), (50, 120, 220), (250, 190, 40))),
    "ghost": (_draw_ghost, ((240, 244, 255), (230, 240, 250), (245, 240, 255))),
    "cupcake": (_draw_cupcake, ((250, 150, 190), (200, 150, 240), (255, 240, 235))),
    "umbrella": (_draw_umbrella, ((120, 70, 200), (230, 60, 90), (40, 160, 160))),
    "heart_balloon": (_draw_heart_balloon, ((235, 40, 80), (250, 90, 150), (200, 30, 60))),
    "mushroom": (_draw_mushroom, ((215, 40, 40), (230, 100, 30), (180, 50, 120))),
    "snowman": (_draw_snowman, ((220, 50, 50), (50, 130, 210), (60, 160, 80))),
    "frog": (_draw_frog, ((90, 190, 80), (60, 170, 120), (140, 200, 60))),
    "owl": (_draw_owl, ((150, 100, 60), (120, 110, 100), (170, 120, 80))),
}

#: Every cartoon kind ``draw_cartoon`` can draw.
CARTOON_KINDS: tuple[str, ...] = tuple(_CARTOONS)


def draw_cartoon(kind: str, size: int, seed: int = 0) -> Image.Image:
    """Draw cartoon ``kind`` as a ``size`` x ``size`` RGBA image on a transparent background.

    The seed picks one of the kind's colour variants and a small tilt; the same arguments always give
    identical pixels (the generator should reuse one seed per needle so the pasted cartoon and the correct
    image option match). The object is centred and fills the canvas up to a small margin.
    """
    if kind not in _CARTOONS:
        raise ConfigError(f"unknown cartoon kind {kind!r}; choose from {', '.join(CARTOON_KINDS)}")
    if isinstance(size, bool) or not isinstance(size, int) or size < 8:
        raise ConfigError(f"cartoon size must be an int >= 8, got {size!r}")
    return _draw_cartoon_cached(kind, size, seed).copy()


@lru_cache(maxsize=256)
def _draw_cartoon_cached(kind: str, size: int, seed: int) -> Image.Image:
    """Drawing is ~0.1 s at full quality and a build pastes the same few cartoons thousands of times."""
    drawer, palette = _CARTOONS[kind]
    rng = random.Random(f"cartoon:{kind}:{seed}")
    colour = palette[rng.randrange(len(palette))] if seed else palette[0]
    tilt = rng.uniform(-_MAX_TILT_DEG, _MAX_TILT_DEG) if seed else 0.0

    canvas_px = max(size, min(size * 2, _HIRES_TARGET))
    pad = canvas_px // 8  # room for outlines that poke past the unit square
    hires = Image.new("RGBA", (canvas_px + 2 * pad, canvas_px + 2 * pad), (*OUTLINE, 0))
    inner = Image.new("RGBA", (canvas_px, canvas_px), (*OUTLINE, 0))
    drawer(_Pen(inner), colour)
    hires.alpha_composite(inner, (pad, pad))
    if tilt:
        hires = hires.rotate(tilt, resample=Image.Resampling.BICUBIC, expand=True)
    bbox = hires.getchannel("A").getbbox()
    if bbox is None:  # pragma: no cover - every drawer paints something
        raise ConfigError(f"cartoon {kind!r} drew nothing")
    hires = hires.crop(bbox)

    margin = max(1, round(size * 0.04))
    room = size - 2 * margin
    ratio = room / max(hires.width, hires.height)
    fitted = hires.resize((max(1, round(hires.width * ratio)), max(1, round(hires.height * ratio))),
                          Image.Resampling.LANCZOS)
    out = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    out.alpha_composite(fitted, ((size - fitted.width) // 2, (size - fitted.height) // 2))
    return out


def on_paper(image: Image.Image, background: RGB = WHITE) -> Image.Image:
    """``image`` composited onto an opaque ``background`` and returned as RGB (a cartoon shown on its own, as
    the counting-image question's pattern, is a drawing on white paper like the option tiles).

    A dataset never ships transparency: one harness flattens it onto black, a server may blend it onto white,
    and the model would see a different picture depending on which it went through.
    """
    rgba = image.convert("RGBA")
    paper = Image.new("RGBA", rgba.size, (*background, 255))
    paper.alpha_composite(rgba)
    return paper.convert("RGB")


# ============================================================================================ pasting


def _check_scale(scale: tuple[float, float]) -> tuple[float, float]:
    low, high = scale
    if not 0 < low <= high <= 1:
        raise ConfigError(f"scale must satisfy 0 < low <= high <= 1, got {scale!r}")
    return low, high


def _prepare_needle(needle: Image.Image, base_short_side: int, fraction: float) -> Image.Image:
    """Trim transparent borders, then resize so the needle's longer side is ``fraction`` of the base's
    shorter side (aspect ratio kept)."""
    rgba = needle.convert("RGBA")
    bbox = rgba.getchannel("A").getbbox()
    if bbox is None:
        raise ConfigError("needle image is fully transparent")
    rgba = rgba.crop(bbox)
    target = max(1, round(base_short_side * fraction))
    ratio = target / max(rgba.width, rgba.height)
    return rgba.resize((max(1, round(rgba.width * ratio)), max(1, round(rgba.height * ratio))),
                       Image.Resampling.LANCZOS)


def paste_needle(base: Image.Image, needle: Image.Image, *, rng: random.Random,
                 scale: tuple[float, float] = (0.18, 0.3)) -> tuple[Image.Image, Box]:
    """Alpha-composite ``needle`` onto a copy of ``base`` at a random position.

    The needle's longer side becomes ``rng.uniform(*scale)`` times the base's shorter side. Returns the
    new RGB image and the pasted box; ``base`` is not modified. RGB needles (e.g. a jigsaw puzzle) paste
    as opaque rectangles.
    """
    low, high = _check_scale(scale)
    canvas = base.convert("RGBA")
    sized = _prepare_needle(needle, min(canvas.size), rng.uniform(low, high))
    x = rng.randint(0, canvas.width - sized.width)
    y = rng.randint(0, canvas.height - sized.height)
    canvas.alpha_composite(sized, (x, y))
    return canvas.convert("RGB"), (x, y, x + sized.width, y + sized.height)


def _boxes_overlap(a: Box, b: Box, gap: int) -> bool:
    return not (a[2] + gap <= b[0] or b[2] + gap <= a[0] or a[3] + gap <= b[1] or b[3] + gap <= a[1])


def paste_many(base: Image.Image, needles: Sequence[Image.Image], rng: random.Random,
               scale: tuple[float, float] = (0.18, 0.3), *, gap_fraction: float = 0.02,
               attempts: int = 200, restarts: int = 20) -> tuple[Image.Image, list[Box]]:
    """Paste every needle onto a copy of ``base`` so that no two pasted boxes overlap (counting-image).

    Boxes are kept at least ``gap_fraction`` x shorter side apart so that neighbouring cartoons stay
    countable. Placement is rejection sampling; if no arrangement is found after ``restarts`` full tries
    a ConfigError says so (use fewer needles, a smaller scale or a larger base image).
    """
    low, high = _check_scale(scale)
    canvas = base.convert("RGBA")
    short = min(canvas.size)
    gap = round(short * gap_fraction)
    if not needles:
        return canvas.convert("RGB"), []
    for _ in range(restarts):
        sized = [_prepare_needle(n, short, rng.uniform(low, high)) for n in needles]
        boxes: list[Box] = []
        for item in sized:
            for _ in range(attempts):
                x = rng.randint(0, canvas.width - item.width)
                y = rng.randint(0, canvas.height - item.height)
                box = (x, y, x + item.width, y + item.height)
                if not any(_boxes_overlap(box, other, gap) for other in boxes):
                    boxes.append(box)
                    break
            else:
                break
        if len(boxes) == len(sized):
            for item, box in zip(sized, boxes, strict=True):
                canvas.alpha_composite(item, box[:2])
            return canvas.convert("RGB"), boxes
    raise ConfigError(
        f"cannot paste {len(needles)} needles without overlap onto a {canvas.width}x{canvas.height} image "
        f"at scale {scale}; use fewer needles, a smaller scale or a larger image"
    )


# =================================================================================== retrieval options


def make_image_options(correct_kind: str, kinds: Sequence[str], rng: random.Random, n: int = 4, *,
                       size: int = 448, seed: int = 0, background: RGB = WHITE,
                       answer: int | None = None) -> tuple[list[Image.Image], int]:
    """The ``n`` image options of a retrieval-image question: the needle's cartoon and ``n - 1`` other
    kinds drawn from ``kinds``, each centred on a plain ``background`` square of ``size`` pixels.

    ``seed`` must be the seed the pasted needle was drawn with, so the correct option looks exactly like
    it. ``answer``: where the correct option stands (a build deals it from a balanced deck), else at random.
    Returns (RGB option images, 0-based index of the correct one).
    """
    if correct_kind not in _CARTOONS:
        raise ConfigError(f"unknown cartoon kind {correct_kind!r}")
    others = sorted({k for k in kinds if k != correct_kind})
    unknown = [k for k in others if k not in _CARTOONS]
    if unknown:
        raise ConfigError(f"unknown cartoon kinds {unknown}")
    if n < 2 or len(others) < n - 1:
        raise ConfigError(f"need n >= 2 and at least {n - 1} distractor kinds, got n={n} and {len(others)}")
    chosen = rng.sample(others, n - 1)
    if answer is None:
        answer = rng.randrange(n)
    elif not 0 <= answer < n:
        raise ConfigError(f"the correct option's index must lie in 0..{n - 1}, got {answer}")
    chosen.insert(answer, correct_kind)
    options = []
    inner = max(8, round(size * 0.8))
    for kind in chosen:
        tile = Image.new("RGBA", (size, size), (*background, 255))
        cartoon = draw_cartoon(kind, inner, seed)
        tile.alpha_composite(cartoon, ((size - inner) // 2, (size - inner) // 2))
        options.append(tile.convert("RGB"))
    return options, answer


# ====================================================================================== reasoning images

#: Reasoning-image puzzle kinds ``make_reasoning_image`` builds.
REASONING_IMAGE_KINDS: tuple[str, ...] = ("jigsaw", "jigsaw-panel", "camera-motion")

JIGSAW_FILL: RGB = (128, 128, 128)
_MIN_OPTION_DIFF = 12.0  # mean absolute RGB difference below which two options count as the same

JIGSAW_QUESTION = (
    "One of the images in the document contains a picture with a square region blanked out in grey. "
    "Which of the option images is the missing piece that completes that picture?"
)
JIGSAW_PANEL_QUESTION = (
    "One of the images in the document shows a picture with a square region blanked out in grey, "
    "followed by numbered candidate pieces. Which numbered piece completes the picture?"
)
CAMERA_MOTION_QUESTION = (
    "Two of the images in the document are photos of the same static scene taken while the camera moved "
    "sideways; the one that appears first in the document was taken first. "
    "Is the camera moving left or right?"
)
CAMERA_MOTION_CHOICES: tuple[str, str] = ("left", "right")


@dataclass(frozen=True, eq=False)
class ReasoningImagePuzzle:
    """One reasoning-image needle set.

    ``needle_images`` are pasted into the document in this order; exactly one of ``choices`` (text
    options) and ``choice_images`` (image options) is set; ``answer`` is the 0-based correct option.
    ``details`` records how the puzzle was made (e.g. the jigsaw hole box), for metadata and tests.
    """

    kind: str
    needle_images: tuple[Image.Image, ...]
    question: str
    choices: tuple[str, ...] | None
    choice_images: tuple[Image.Image, ...] | None
    answer: int
    details: Mapping[str, Any] = field(default_factory=dict)


def _mean_diff(a: Image.Image, b: Image.Image) -> float:
    """Mean absolute per-channel difference (0..255) of two same-size RGB images."""
    return sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 3.0


# A distractor piece is "of the same kind" as the true piece when its detail (mean luminance gradient) and
# mean colour are close to the truth's: a plain patch of sky is never offered against a piece of mountain.
_KIND_DETAIL_RATIO = 0.5  # detail may differ by this fraction of the truth's detail ...
_KIND_DETAIL_FLOOR = 3.0  # ... or by this many grey levels for near-plain pieces
_KIND_MAX_COLOUR = 60.0  # Euclidean distance of mean RGB (0..441)


def piece_texture(img: Image.Image) -> tuple[float, tuple[float, float, float]]:
    """(detail, mean colour) of a piece: detail is the mean absolute difference of neighbouring
    luminance pixels on a 64 x 64 version (0 for a flat colour, tens for foliage or rock)."""
    small = img.convert("RGB").resize((64, 64), Image.Resampling.BILINEAR)
    lum = small.convert("L")
    right = ImageChops.difference(lum.crop((1, 0, 64, 64)), lum.crop((0, 0, 63, 64)))
    down = ImageChops.difference(lum.crop((0, 1, 64, 64)), lum.crop((0, 0, 64, 63)))
    detail = (ImageStat.Stat(right).mean[0] + ImageStat.Stat(down).mean[0]) / 2.0
    r, g, b = ImageStat.Stat(small).mean
    return detail, (r, g, b)


def same_kind(truth: tuple[float, tuple[float, float, float]],
              other: tuple[float, tuple[float, float, float]]) -> bool:
    """Whether a candidate piece looks like the same kind of picture as the true piece (see above)."""
    (d0, c0), (d1, c1) = truth, other
    # symmetric in the two pieces (the allowance follows the plainer one), so that accepting a pair favours
    # neither: a rule scaled by the truth's detail alone kept distractors plainer than the truth on average
    if abs(d1 - d0) > max(_KIND_DETAIL_RATIO * min(d0, d1), _KIND_DETAIL_FLOOR):
        return False
    return math.dist(c0, c1) <= _KIND_MAX_COLOUR


#: Where the correct option stands, given the number of options (a build's deck; see ``make_reasoning_image``).
AnswerFor = Callable[[int], int]


def _checked(answer: int, n_options: int) -> int:
    if not 0 <= answer < n_options:
        raise ConfigError(f"the correct option's index must lie in 0..{n_options - 1}, got {answer}")
    return answer


_JIGSAW_TRIES = 400  # draws of a set of pieces before the source counts as too uniform


def _jigsaw_parts(source: Image.Image, rng: random.Random, n_options: int,
                  patch_fraction: tuple[float, float], answer_for: AnswerFor | None = None
                  ) -> tuple[Image.Image, list[Image.Image], int, Box]:
    """Cut the hole and choose distractors; returns (puzzle, options, answer index, hole box). The true piece
    stands where ``answer_for(n_options)`` says (see ``make_reasoning_image``), else at random."""
    if not 2 <= n_options <= 4:
        raise ConfigError(f"a jigsaw needs 2 to 4 options, got {n_options}")
    low, high = patch_fraction
    if not 0 < low <= high < 0.5:
        raise ConfigError(f"patch_fraction must satisfy 0 < low <= high < 0.5, got {patch_fraction!r}")
    src = source.convert("RGB")
    width, height = src.size
    side = round(min(width, height) * rng.uniform(low, high))
    if side < 16:
        raise ConfigError(f"source image {width}x{height} is too small for a jigsaw")
    # The hole and the wrong pieces are drawn together: n squares at uniform places, none overlapping another,
    # all of one kind (``same_kind`` for every pair) and visibly different, and then a random one of them is the
    # hole. Every piece is thus drawn the same way, so nothing about one piece's own pixels says which is the
    # truth; only fitting it to the hole does. (Never the truth turned or mirrored: such a copy was told from the
    # truth by its own pixels, a sky on the wrong side, and "pick the piece whose top is bluer" scored 69-70
    # against 50. Nor a hole drawn first and distractors around it: a central hole leaves only the edges free,
    # so the wrong pieces came from the picture's edges more often than the truth.)
    for _ in range(_JIGSAW_TRIES):
        boxes: list[Box] = []
        for _k in range(n_options):
            x, y = rng.randint(0, width - side), rng.randint(0, height - side)
            boxes.append((x, y, x + side, y + side))
        if any(_boxes_overlap(a, b, 0) for k, a in enumerate(boxes) for b in boxes[k + 1:]):
            continue
        pieces = [src.crop(b) for b in boxes]
        textures = [piece_texture(p) for p in pieces]
        if all(same_kind(textures[a], textures[b]) and _mean_diff(pieces[a], pieces[b]) >= _MIN_OPTION_DIFF
               for a in range(n_options) for b in range(a + 1, n_options)):
            break
    else:
        raise ConfigError("source image is too uniform to make distinct jigsaw options; pick a busier image")
    which = rng.randrange(n_options)
    hole: Box = boxes[which]
    truth = pieces[which]
    distractors = pieces[:which] + pieces[which + 1:]

    answer = rng.randrange(n_options) if answer_for is None else _checked(answer_for(n_options), n_options)
    options = list(distractors)
    options.insert(answer, truth)
    puzzle = src.copy()
    puzzle.paste(JIGSAW_FILL, hole)
    return puzzle, options, answer, hole


def make_jigsaw(source: Image.Image, rng: random.Random, *, n_options: int = 2,
                patch_fraction: tuple[float, float] = (0.28, 0.4)
                ) -> tuple[Image.Image, list[Image.Image], int, str]:
    """BLINK-style jigsaw from a haystack image: a square hole filled with grey and image options.

    The true option is the cut region pixel for pixel; distractors are squares of the same size cut from
    places that do not overlap the hole and look like the same kind of picture (``same_kind``: similar
    detail and colour), never a turned or mirrored copy of the truth, each at least visibly different
    from every other option. Returns (puzzle image, option images, answer index,
    question text).
    """
    puzzle, options, answer, _hole = _jigsaw_parts(source, rng, n_options, patch_fraction)
    return puzzle, options, answer, JIGSAW_QUESTION


def _label_font(px: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=px)
    except (TypeError, OSError, ImportError):  # Pillow without FreeType: fixed-size bitmap font
        return ImageFont.load_default()


def compose_jigsaw_panel(puzzle: Image.Image, options: Sequence[Image.Image],
                         background: RGB = WHITE) -> Image.Image:
    """One image showing the puzzle on top and the candidate pieces below, numbered 1..n.

    This is the text-option form of the jigsaw (for models or prompts without image options): the
    document holds this single panel and the choices read "piece 1", "piece 2", ...
    """
    if not options:
        raise ConfigError("a jigsaw panel needs at least one candidate piece")
    margin = max(8, puzzle.width // 40)
    label_px = max(12, puzzle.width // 18)
    # pieces keep the hole's own scale where they fit, so their size gives no hint
    piece = max(16, min(options[0].width, (puzzle.width - margin * (len(options) - 1)) // len(options)))
    width = puzzle.width + 2 * margin
    height = margin + puzzle.height + margin + label_px + margin // 2 + piece + margin
    panel = Image.new("RGB", (width, height), background)
    panel.paste(puzzle.convert("RGB"), (margin, margin))
    draw = ImageDraw.Draw(panel)
    font = _label_font(label_px)
    row_width = len(options) * piece + (len(options) - 1) * margin
    x = margin + (puzzle.width - row_width) // 2
    top = margin + puzzle.height + margin
    for number, option in enumerate(options, start=1):
        draw.text((x + piece // 2, top), str(number), fill=OUTLINE, font=font, anchor="mt")
        tile_top = top + label_px + margin // 2
        panel.paste(option.convert("RGB").resize((piece, piece), Image.Resampling.LANCZOS), (x, tile_top))
        draw.rectangle((x - 1, tile_top - 1, x + piece, tile_top + piece), outline=OUTLINE, width=2)
        x += piece + margin
    return panel


def make_camera_motion(source: Image.Image, rng: random.Random, *,
                       crop_fraction: tuple[float, float] = (0.6, 0.72),
                       shift_fraction: tuple[float, float] = (0.14, 0.24), answer_for: AnswerFor | None = None
                       ) -> tuple[Image.Image, Image.Image, int, str, tuple[str, str]]:
    """BLINK multi-view-style camera motion: two same-size crops of one image, shifted horizontally.

    If the camera moves right, the second view's window lies to the right of the first. Returns
    (first view, second view, answer index, question, choices) with choices ("left", "right"), so the
    answer maps to option A for left and B for right, as the official scorer's "the camera is moving
    left" -> a rule expects. ``answer_for(2)`` fixes the answer (a build deals it), else it is random.
    """
    src = source.convert("RGB")
    width, height = src.size
    crop_w = round(width * rng.uniform(*crop_fraction))
    shift = round(width * rng.uniform(*shift_fraction))
    if crop_w + shift > width or shift < 4 or crop_w < 16:
        raise ConfigError(f"source image {width}x{height} is too small for a camera-motion pair")
    crop_h = round(height * 0.9)
    top = rng.randint(0, height - crop_h)
    left = rng.randint(0, width - crop_w - shift)
    window_a = src.crop((left, top, left + crop_w, top + crop_h))
    window_b = src.crop((left + shift, top, left + shift + crop_w, top + crop_h))
    if _mean_diff(window_a, window_b) < _MIN_OPTION_DIFF / 2:
        raise ConfigError("source image is too uniform for a camera-motion pair; pick a busier image")
    moving_right = rng.random() < 0.5 if answer_for is None else (
        CAMERA_MOTION_CHOICES[_checked(answer_for(2), 2)] == "right")
    if moving_right:
        first, second = window_a, window_b
    else:
        first, second = window_b, window_a
    answer = CAMERA_MOTION_CHOICES.index("right" if moving_right else "left")
    return first, second, answer, CAMERA_MOTION_QUESTION, CAMERA_MOTION_CHOICES


def make_reasoning_image(kind: str, source: Image.Image, rng: random.Random,
                         answer_for: AnswerFor | None = None) -> ReasoningImagePuzzle:
    """Build one reasoning-image puzzle of ``kind`` (see ``REASONING_IMAGE_KINDS``) from ``source``.

    ``answer_for``: the correct option's index given the puzzle's option count (a build deals it from a
    balanced deck per count), else at random.

    - "jigsaw": one needle (the holed picture), 2 image options;
    - "jigsaw-panel": one needle (picture plus numbered pieces), text options "piece 1"...;
    - "camera-motion": two needles (first and second view, in document order), text options left/right.
    """
    if kind == "jigsaw":
        puzzle, options, answer, hole = _jigsaw_parts(source, rng, 2, (0.28, 0.4), answer_for)
        return ReasoningImagePuzzle(kind, (puzzle,), JIGSAW_QUESTION, None, tuple(options), answer,
                                    {"hole_box": hole})
    if kind == "jigsaw-panel":
        n_options = rng.randint(2, 4)
        puzzle, options, answer, hole = _jigsaw_parts(source, rng, n_options, (0.28, 0.4), answer_for)
        panel = compose_jigsaw_panel(puzzle, options)
        choices = tuple(f"piece {i}" for i in range(1, n_options + 1))
        return ReasoningImagePuzzle(kind, (panel,), JIGSAW_PANEL_QUESTION, choices, None, answer,
                                    {"hole_box": hole, "pieces": n_options})
    if kind == "camera-motion":
        first, second, answer, question, choices = make_camera_motion(source, rng, answer_for=answer_for)
        return ReasoningImagePuzzle(kind, (first, second), question, choices, None, answer,
                                    {"direction": choices[answer]})
    raise ConfigError(f"unknown reasoning-image kind {kind!r}; choose from {', '.join(REASONING_IMAGE_KINDS)}")
