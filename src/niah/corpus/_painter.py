"""Pixel work for niah.corpus.procedural: each renderer paints one kind of photo-like scene.

Only numpy ``Generator.random``/``integers`` draws and Pillow drawing/resampling are used, so a (kind, seed,
size) triple gives the same pixels on every run.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFilter


def paint(kind: str, seed: int, width: int, height: int) -> Image.Image:
    """Render one scene as RGB, exactly (width, height)."""
    rng = np.random.default_rng([seed, 104729])
    img = RENDERERS[kind](rng, width, height)
    return _photographic(img, rng)


# ---------------------------------------------------------------------------------------------- helpers

def _noise(rng: np.random.Generator, w: int, h: int, cells: int, octaves: int = 4) -> np.ndarray:
    """Smooth fractal value noise in [0, 1], shape (h, w)."""
    total = np.zeros((h, w), np.float32)
    amp, norm = 1.0, 0.0
    for o in range(octaves):
        cw = max(2, cells * 2**o)
        ch = max(2, round(cw * h / w))
        grid = (rng.random((ch, cw)) * 255).astype(np.uint8)
        layer = np.asarray(Image.fromarray(grid).resize((w, h), Image.Resampling.BICUBIC), np.float32) / 255
        total += amp * layer
        norm += amp
        amp *= 0.5
    return total / norm


def _ridge(rng: np.random.Generator, w: int, base: float, rough: float, cells: int) -> np.ndarray:
    """A 1-D mountain ridge: heights (in pixels from the top) per column."""
    line = np.zeros(w, np.float32)
    amp = 1.0
    for o in range(5):
        n = cells * 2**o + 1
        pts = rng.random(n).astype(np.float32)
        line += amp * np.interp(np.linspace(0, n - 1, w), np.arange(n), pts).astype(np.float32)
        amp *= 0.5
    line = (line - line.min()) / max(1e-6, float(line.max() - line.min()))
    return base - rough * line


def _vertical_gradient(w: int, h: int, top, bottom, power: float = 1.0) -> np.ndarray:
    t = np.linspace(0, 1, h, dtype=np.float32)[:, None, None] ** power
    top_a, bottom_a = np.array(top, np.float32), np.array(bottom, np.float32)
    return np.broadcast_to(top_a * (1 - t) + bottom_a * t, (h, w, 3)).copy()


def _mix(a, b, t: float) -> np.ndarray:
    return np.array(a, np.float32) * (1 - t) + np.array(b, np.float32) * t


def _pick(rng: np.random.Generator, options):
    return options[int(rng.integers(len(options)))]


def _jitter(rng: np.random.Generator, colour, amount: float = 18.0) -> np.ndarray:
    return np.clip(np.array(colour, np.float32) + (rng.random(3).astype(np.float32) - 0.5) * 2 * amount, 0, 255)


def _to_image(arr: np.ndarray) -> Image.Image:
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGB")


def _photographic(img: Image.Image, rng: np.random.Generator) -> Image.Image:
    """Lens softness, vignette and sensor grain so flat renders read as photographs."""
    img = img.filter(ImageFilter.GaussianBlur(0.6))
    arr = np.asarray(img, np.float32)
    h, w = arr.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r = np.sqrt(((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2)
    arr *= (1 - 0.22 * np.clip(r - 0.45, 0, None) ** 1.6)[..., None]
    grain = (rng.random((h, w)).astype(np.float32) + rng.random((h, w)).astype(np.float32) - 1.0) * 7
    arr += grain[..., None]
    return _to_image(arr)


SKIES = {
    "day": ((70, 120, 190), (185, 210, 235)),
    "dusk": ((48, 52, 110), (240, 150, 90)),
    "dawn": ((120, 140, 190), (250, 205, 160)),
    "overcast": ((130, 138, 148), (200, 202, 205)),
    "evening": ((25, 35, 75), (200, 110, 90)),
}


# ---------------------------------------------------------------------------------------------- renderers

def _landscape(rng: np.random.Generator, w: int, h: int) -> Image.Image:
    sky_top, sky_bottom = SKIES[_pick(rng, list(SKIES))]
    horizon = h * float(0.45 + rng.random() * 0.2)
    arr = _vertical_gradient(w, h, sky_top, sky_bottom, 1.3)
    # Sun or moon with a soft glow.
    sx, sy = w * float(0.15 + rng.random() * 0.7), horizon * float(0.25 + rng.random() * 0.6)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = np.sqrt((xx - sx) ** 2 + (yy - sy) ** 2) / max(w, h)
    glow = np.exp(-d * 9)[..., None] * 0.55 + (d < 0.025)[..., None] * 0.6
    arr = arr * (1 - glow) + np.array([255, 240, 210], np.float32) * glow
    # Layers of ridges, hazier with distance.
    far = _mix(sky_bottom, (90, 100, 120), 0.35)
    near = _pick(rng, [(45, 70, 45), (60, 60, 50), (35, 55, 60), (70, 80, 40)])
    layers = int(rng.integers(3, 6))
    for i in range(layers):
        t = i / max(1, layers - 1)
        base = horizon + (h - horizon) * 0.25 * t
        ridge = _ridge(rng, w, base, h * float(0.12 + 0.18 * (1 - t) * rng.random()), int(rng.integers(2, 6)))
        colour = _mix(far, near, t)
        mask = (yy >= ridge[None, :])[..., None]
        shade = (_noise(rng, w, h, 6, 3)[..., None] - 0.5) * 30 * (0.3 + t)
        arr = np.where(mask, colour + shade, arr)
    if rng.random() < 0.5:  # a lake reflecting the sky in the foreground
        lake_top = int(h * 0.78)
        refl = arr[lake_top - 1::-1][: h - lake_top] * 0.72 + np.array([10, 20, 35], np.float32)
        ripple = (_noise(rng, w, h - lake_top, 40, 2)[..., None] - 0.5) * 24
        arr[lake_top:] = refl[: h - lake_top] + ripple
    return _to_image(arr)


def _sky(rng: np.random.Generator, w: int, h: int) -> Image.Image:
    top, bottom = SKIES[_pick(rng, ["day", "dusk", "dawn", "evening", "day"])]
    arr = _vertical_gradient(w, h, top, bottom, 1.1)
    clouds = _noise(rng, w, h, int(rng.integers(3, 7)), 5)
    cover = float(0.35 + rng.random() * 0.3)
    alpha = np.clip((clouds - cover) * 3.2, 0, 1)[..., None]
    light = _mix((255, 255, 255), bottom, 0.25)
    shade = _noise(rng, w, h, 8, 3)[..., None]
    cloud_colour = light * (0.78 + 0.22 * shade)
    arr = arr * (1 - alpha) + cloud_colour * alpha
    # A low horizon of trees or roofs, in silhouette.
    ground = _ridge(rng, w, h * float(0.9 + rng.random() * 0.08), h * 0.08, 24)
    yy = np.arange(h, dtype=np.float32)[:, None]
    arr = np.where((yy >= ground[None, :])[..., None], np.array([28, 32, 30], np.float32), arr)
    return _to_image(arr)


def _still_life(rng: np.random.Generator, w: int, h: int) -> Image.Image:
    wall = _pick(rng, [(200, 190, 170), (150, 160, 165), (110, 95, 85), (215, 210, 200), (90, 100, 95)])
    table_y = int(h * float(0.55 + rng.random() * 0.15))
    arr = _vertical_gradient(w, h, _mix(wall, (255, 255, 255), 0.15), _mix(wall, (0, 0, 0), 0.25))
    wood = np.array(_pick(rng, [(120, 80, 50), (150, 110, 70), (90, 60, 40), (170, 150, 120)]), np.float32)
    yy, xx = np.mgrid[table_y:h, 0:w].astype(np.float32)
    grain = np.sin(xx / w * float(rng.integers(20, 60)) + _noise(rng, w, h - table_y, 3, 3) * 12)
    arr[table_y:] = wood * (0.85 + 0.08 * grain[..., None]) * (0.9 + 0.2 * (yy - table_y)[..., None] / h)
    img = _to_image(arr)
    n_objects = int(rng.integers(2, 5))
    light_from = -1 if rng.random() < 0.5 else 1
    for i in range(n_objects):
        cx = int(w * (0.15 + 0.7 * (i + rng.random() * 0.8) / n_objects))
        size = int(min(w, h) * float(0.12 + rng.random() * 0.14))
        base_y = table_y + int((h - table_y) * float(0.2 + rng.random() * 0.5))
        colour = _jitter(rng, _pick(rng, [(180, 60, 50), (70, 110, 160), (220, 200, 120), (90, 140, 90),
                                          (230, 230, 225), (120, 80, 130), (200, 140, 60)]), 20)
        shadow = Image.new("L", img.size, 0)
        ImageDraw.Draw(shadow).ellipse([cx - size + light_from * size // 2, base_y - size // 6,
                                        cx + size + light_from * size // 2, base_y + size // 6], fill=120)
        shadow = shadow.filter(ImageFilter.GaussianBlur(size / 6))
        img = Image.composite(Image.new("RGB", img.size, (20, 15, 10)), img, shadow)
        shape = _pick(rng, ["sphere", "cylinder", "box"])
        layer = _shaded_solid(shape, size, colour, light_from)
        img.paste(layer, (cx - layer.width // 2, base_y - layer.height + size // 8), layer)
    return img


def _shaded_solid(shape: str, size: int, colour: np.ndarray, light_from: int) -> Image.Image:
    """An RGBA sphere, cylinder or box lit from one side."""
    if shape == "sphere":
        w = h = size
    elif shape == "cylinder":
        w, h = int(size * 0.8), int(size * 1.5)
    else:
        w, h = size, int(size * 0.9)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    alpha = np.zeros((h, w), np.float32)
    if shape == "sphere":
        nx, ny = (xx - w / 2) / (w / 2), (yy - h / 2) / (h / 2)
        r2 = nx**2 + ny**2
        alpha = (r2 <= 1).astype(np.float32)
        nz = np.sqrt(np.clip(1 - r2, 0, 1))
        light = np.clip(0.25 + 0.75 * (light_from * -0.5 * nx - 0.5 * ny + 0.7 * nz), 0.15, 1.15)
    elif shape == "cylinder":
        nx = (xx - w / 2) / (w / 2)
        alpha = (np.abs(nx) <= 1).astype(np.float32)
        light = np.clip(0.3 + 0.7 * (np.sqrt(np.clip(1 - nx**2, 0, 1)) - light_from * 0.35 * nx), 0.15, 1.1)
        top = ((xx - w / 2) / (w / 2)) ** 2 + ((yy - w * 0.12) / (w * 0.12)) ** 2 <= 1
        light = np.where(top, 1.15, light)
        alpha = np.where(yy < w * 0.12, top.astype(np.float32), alpha)
    else:
        alpha[:] = 1.0
        light = np.where(xx < w * 0.62, 0.95 if light_from < 0 else 0.6, 0.6 if light_from < 0 else 0.95)
        light = np.where(yy < h * 0.2, 1.1, light)
    rgb = np.clip(colour[None, None, :] * light[..., None], 0, 255).astype(np.uint8)
    rgba = np.dstack([rgb, (alpha * 255).astype(np.uint8)])
    return Image.fromarray(rgba, "RGBA").filter(ImageFilter.GaussianBlur(0.7))


def _skyline(rng: np.random.Generator, w: int, h: int) -> Image.Image:
    top, bottom = SKIES[_pick(rng, ["dusk", "evening", "overcast", "dawn"])]
    arr = _vertical_gradient(w, h, top, bottom, 1.4)
    img = _to_image(arr)
    draw = ImageDraw.Draw(img)
    ground = int(h * float(0.8 + rng.random() * 0.1))
    for depth in range(2):
        x = -int(rng.integers(0, 40))
        while x < w:
            bw = int(w * float(0.04 + rng.random() * 0.08))
            bh = int(h * float(0.15 + rng.random() * (0.45 if depth else 0.3)))
            shade = 35 + (1 - depth) * 35 + int(rng.integers(0, 20))
            colour = (shade, shade + 3, shade + 10)
            draw.rectangle([x, ground - bh, x + bw, ground], fill=colour)
            if depth:
                win = max(3, bw // 8)
                for wy in range(ground - bh + win, ground - win, win * 2):
                    for wx in range(x + win, x + bw - win, win * 2):
                        if rng.random() < 0.35:
                            lit = tuple(int(c) for c in _jitter(rng, (250, 210, 130), 25))
                            draw.rectangle([wx, wy, wx + win - 1, wy + win - 1], fill=lit)
            x += bw + int(rng.integers(0, 8))
    draw.rectangle([0, ground, w, h], fill=(30, 32, 38))
    if rng.random() < 0.6:  # water in front of the city
        arr = np.asarray(img, np.float32).copy()
        depth_px = h - ground
        refl = arr[ground - 1: ground - 1 - depth_px: -1] * 0.55 if depth_px else arr[:0]
        ripple = (_noise(rng, w, depth_px, 60, 2)[..., None] - 0.5) * 40 if depth_px else 0
        arr[ground:] = refl[: depth_px] + ripple
        img = _to_image(arr)
    return img


def _fields(rng: np.random.Generator, w: int, h: int) -> Image.Image:
    top, bottom = SKIES[_pick(rng, ["day", "overcast", "dawn", "day"])]
    horizon = int(h * float(0.3 + rng.random() * 0.2))
    arr = _vertical_gradient(w, h, top, bottom, 1.2)
    clouds = _noise(rng, w, h, 4, 4)
    alpha = np.clip((clouds - 0.55) * 2.5, 0, 1)[..., None]
    arr = arr * (1 - alpha) + np.array([245, 245, 245], np.float32) * alpha
    crop = np.array(_pick(rng, [(90, 140, 50), (200, 170, 80), (120, 150, 60), (170, 140, 70)]), np.float32)
    soil = np.array((110, 85, 60), np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    vx = w * float(0.3 + rng.random() * 0.4)
    depth = np.clip((yy - horizon) / max(1, h - horizon), 1e-3, 1)
    rows = np.sin((xx - vx) / depth / w * float(rng.integers(25, 60)))
    field = np.where(rows[..., None] > -0.2, crop, soil) * (0.75 + 0.35 * depth[..., None])
    field += (_noise(rng, w, h, 30, 2)[..., None] - 0.5) * 30
    arr = np.where((yy > horizon)[..., None], field, arr)
    tree_line = _ridge(rng, w, horizon + 2, h * 0.05, 40)
    arr = np.where(((yy <= horizon + 2) & (yy >= tree_line[None, :]))[..., None],
                   np.array([40, 60, 40], np.float32), arr)
    return _to_image(arr)


def _bokeh(rng: np.random.Generator, w: int, h: int) -> Image.Image:
    a = _jitter(rng, _pick(rng, [(20, 30, 60), (60, 30, 40), (20, 50, 40), (50, 50, 55)]), 15)
    b = _jitter(rng, _pick(rng, [(200, 140, 80), (90, 140, 200), (220, 190, 150), (150, 90, 140)]), 25)
    arr = _vertical_gradient(w, h, a, b, float(0.8 + rng.random()))
    base = _to_image(arr)
    layer = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    for _ in range(int(rng.integers(25, 70))):
        r = int(min(w, h) * float(0.02 + rng.random() * 0.09))
        cx, cy = int(rng.integers(0, w)), int(rng.integers(0, h))
        colour = tuple(int(c) for c in _jitter(rng, _pick(rng, [(255, 220, 150), (255, 180, 120), (180, 220, 255),
                                                                 (255, 255, 230)]), 25))
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=(*colour, int(rng.integers(40, 140))))
    layer = layer.filter(ImageFilter.GaussianBlur(float(2 + rng.random() * 4)))
    base.paste(layer, (0, 0), layer)
    return base


def _seascape(rng: np.random.Generator, w: int, h: int) -> Image.Image:
    top, bottom = SKIES[_pick(rng, list(SKIES))]
    horizon = int(h * float(0.35 + rng.random() * 0.25))
    arr = _vertical_gradient(w, h, top, bottom, 1.4)
    clouds = _noise(rng, w, h, int(rng.integers(2, 6)), 5)
    alpha = np.clip((clouds - float(0.5 + rng.random() * 0.15)) * 2.2, 0, 1)[..., None]
    arr = arr * (1 - alpha) + _mix(bottom, (250, 250, 250), 0.6) * alpha
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    depth = np.clip((yy - horizon) / max(1, h - horizon), 0, 1)[..., None]
    deep = np.array(_pick(rng, [(20, 60, 90), (30, 70, 80), (40, 60, 70), (15, 45, 75)]), np.float32)
    sea = _mix(bottom, deep, 0.7) * (1 - depth) + deep * depth
    # Waves: horizontal streaks that widen towards the viewer, with lit crests.
    sea_h = max(2, h - horizon)
    flat = _noise(rng, max(2, w // 12), sea_h, 6, 3)  # narrow noise stretched sideways: long flat streaks
    streaks = np.asarray(Image.fromarray((flat * 255).astype(np.uint8)).resize((w, sea_h), Image.Resampling.BICUBIC),
                         np.float32) / 255
    waves = np.zeros((h, w), np.float32)
    waves[horizon:] = streaks
    crest = np.clip((waves - 0.6) * 3, 0, 1)[..., None] * (0.25 + 0.6 * depth)
    sea = sea * (1 - crest) + np.array([235, 240, 240], np.float32) * crest
    arr = np.where((yy >= horizon)[..., None], sea, arr)
    if rng.random() < 0.6:  # a headland on one side
        side = int(rng.integers(2))
        ridge = _ridge(rng, w, horizon + 1, h * float(0.08 + rng.random() * 0.15), 3)
        reach = np.linspace(1, 0, w) if side == 0 else np.linspace(0, 1, w)
        ridge = np.where(reach > float(0.45 + rng.random() * 0.3), ridge, horizon + 1)
        land = np.array(_pick(rng, [(60, 75, 50), (80, 80, 70), (50, 60, 55)]), np.float32)
        arr = np.where(((yy >= ridge[None, :]) & (yy <= horizon + 1))[..., None], land, arr)
    return _to_image(arr)


def _forest(rng: np.random.Generator, w: int, h: int) -> Image.Image:
    light = np.array(_pick(rng, [(200, 215, 170), (230, 210, 150), (180, 200, 190), (215, 190, 140)]), np.float32)
    dark = np.array(_pick(rng, [(25, 40, 25), (40, 35, 25), (20, 35, 35)]), np.float32)
    canopy = _noise(rng, w, h, 8, 5)
    yy = np.mgrid[0:h, 0:w][0].astype(np.float32) / h
    glow = np.clip(canopy * 1.3 - 0.25 + (0.5 - yy) * 0.4, 0, 1)[..., None]
    arr = dark * (1 - glow) + light * glow
    floor = float(0.7 + rng.random() * 0.15)
    ground = np.array(_pick(rng, [(90, 70, 40), (70, 80, 40), (110, 90, 60)]), np.float32)
    arr = np.where((yy > floor)[..., None], ground + (_noise(rng, w, h, 40, 2)[..., None] - 0.5) * 40, arr)
    img = _to_image(arr)
    draw = ImageDraw.Draw(img)
    # Trunks: nearer ones are darker, wider and reach lower.
    n = int(rng.integers(9, 22))
    for i in range(n):
        t = i / max(1, n - 1)
        x = int(rng.integers(0, w))
        tw = max(2, int(w * float(0.006 + 0.04 * t * rng.random())))
        bottom = int(h * (floor + (1 - floor) * t))
        tone = tuple(int(c) for c in _mix(light * 0.55, dark * 0.8, t))
        draw.rectangle([x, 0, x + tw, bottom], fill=tone)
    return img.filter(ImageFilter.GaussianBlur(1.0))


def _wood(rng: np.random.Generator, w: int, h: int) -> Image.Image:
    """A close-up of planks or a table top: grain lines bent by slow noise."""
    base = np.array(_pick(rng, [(150, 105, 65), (185, 140, 90), (120, 80, 50), (200, 170, 125)]), np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    warp = _noise(rng, w, h, 3, 3) * float(20 + rng.random() * 40)
    freq = float(0.15 + rng.random() * 0.35)
    grain = np.sin((yy + warp * 3) * freq) * 0.5 + 0.5
    fine = _noise(rng, w, h, 90, 2)
    arr = base[None, None, :] * (0.78 + 0.22 * grain[..., None]) * (0.9 + 0.2 * fine[..., None])
    planks = int(rng.integers(3, 8))
    for k in range(1, planks):  # dark seams between planks
        y = int(h * k / planks)
        arr[max(0, y - 1):y + 2] *= 0.45
    return _to_image(arr)


RENDERERS = {
    "seascape": _seascape,
    "forest": _forest,
    "wood": _wood,
    "landscape": _landscape,
    "sky": _sky,
    "still_life": _still_life,
    "skyline": _skyline,
    "fields": _fields,
    "bokeh": _bokeh,
}
