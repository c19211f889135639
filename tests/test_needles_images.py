"""MM-NIAH image needles: cartoons, pasting, retrieval options and reasoning-image puzzles."""

from __future__ import annotations

import io
import itertools
import random

import numpy as np
import pytest
from PIL import Image, ImageChops, ImageStat

from niah.benchmarks.mm_niah import needle_images as ni
from niah.benchmarks.mm_niah.needle_images import (
    CAMERA_MOTION_CHOICES,
    CARTOON_KINDS,
    JIGSAW_FILL,
    REASONING_IMAGE_KINDS,
    ReasoningImagePuzzle,
    draw_cartoon,
    make_camera_motion,
    make_image_options,
    make_jigsaw,
    make_reasoning_image,
    paste_many,
    paste_needle,
)
from niah.util.errors import ConfigError


def png_bytes(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def mean_diff(a: Image.Image, b: Image.Image) -> float:
    return sum(ImageStat.Stat(ImageChops.difference(a.convert("RGB"), b.convert("RGB"))).mean) / 3.0


def on_white(image: Image.Image) -> Image.Image:
    canvas = Image.new("RGBA", image.size, (255, 255, 255, 255))
    canvas.alpha_composite(image)
    return canvas.convert("RGB")


def noise_image(width: int, height: int, seed: int = 0) -> Image.Image:
    """A busy synthetic haystack image (every crop differs from every other)."""
    rng = random.Random(seed)
    small = Image.frombytes("RGB", (width // 4 + 1, height // 4 + 1), rng.randbytes((width // 4 + 1) * (height // 4 + 1) * 3))
    return small.resize((width, height), Image.Resampling.BICUBIC)


@pytest.fixture(scope="module")
def haystack() -> Image.Image:
    return noise_image(320, 240, seed=7)


# ---------------------------------------------------------------------------------------------- cartoons


def test_there_are_at_least_14_distinct_kinds() -> None:
    assert len(CARTOON_KINDS) >= 14
    assert len(set(CARTOON_KINDS)) == len(CARTOON_KINDS)


@pytest.mark.parametrize("size", [8, 37, 128])
def test_cartoon_is_square_rgba_with_transparent_background_and_dark_outline(size: int) -> None:
    for kind in CARTOON_KINDS:
        image = draw_cartoon(kind, size, 0)
        assert image.mode == "RGBA" and image.size == (size, size)
        pixels = np.asarray(image).astype(int)
        alpha = pixels[..., 3]
        assert alpha[0, 0] == 0 and alpha[-1, -1] == 0 and alpha[0, -1] == 0, kind
        coverage = alpha.sum() / 255 / size**2
        assert 0.15 < coverage < 0.95, (kind, coverage)
        if size >= 128:  # at small sizes the outline is anti-aliased away from pure dark
            dark = ((alpha > 200) & (pixels[..., :3].max(axis=2) < 70)).mean()
            assert dark > 0.02, (kind, dark)


def test_cartoons_are_pairwise_visually_distinct() -> None:
    flat = {kind: on_white(draw_cartoon(kind, 64, 0)) for kind in CARTOON_KINDS}
    for a, b in itertools.combinations(CARTOON_KINDS, 2):
        assert mean_diff(flat[a], flat[b]) > 20, (a, b)


def test_cartoon_is_deterministic_by_seed_even_without_the_cache() -> None:
    first = png_bytes(draw_cartoon("penguin", 96, 5))
    ni._draw_cartoon_cached.cache_clear()
    assert png_bytes(draw_cartoon("penguin", 96, 5)) == first
    varied = [png_bytes(draw_cartoon(kind, 96, seed)) for kind in ("cat", "car") for seed in (0, 1, 2, 3)]
    assert len(set(varied)) > 2  # seeds change colour variant / tilt


def test_cartoon_returns_a_private_copy() -> None:
    image = draw_cartoon("star", 32, 0)
    image.paste((0, 0, 0, 255), (0, 0, 32, 32))
    assert draw_cartoon("star", 32, 0).getchannel("A").getpixel((0, 0)) == 0


@pytest.mark.parametrize("kind, size", [("dragon", 64), ("star", 4), ("star", 64.0)])
def test_cartoon_rejects_bad_arguments(kind: str, size: object) -> None:
    with pytest.raises(ConfigError):
        draw_cartoon(kind, size, 0)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------------------------- pasting


def test_paste_needle_stays_in_bounds_and_only_changes_its_box(haystack: Image.Image) -> None:
    before = png_bytes(haystack)
    needle = draw_cartoon("apple", 200, 0)
    for seed in range(20):
        out, box = paste_needle(haystack, needle, rng=random.Random(seed))
        left, top, right, bottom = box
        assert out.mode == "RGB" and out.size == haystack.size
        assert 0 <= left < right <= haystack.width and 0 <= top < bottom <= haystack.height
        longer = max(right - left, bottom - top)
        assert 0.18 * 240 - 1 <= longer <= 0.3 * 240 + 1
        changed = ImageChops.difference(out, haystack).getbbox()
        assert changed is not None
        assert box[0] <= changed[0] and box[1] <= changed[1] and changed[2] <= box[2] and changed[3] <= box[3]
    assert png_bytes(haystack) == before  # the base is not modified


def test_paste_needle_is_deterministic_and_accepts_rgb_needles(haystack: Image.Image) -> None:
    needle = draw_cartoon("fish", 150, 2)
    a = paste_needle(haystack, needle, rng=random.Random(3), scale=(0.2, 0.2))
    b = paste_needle(haystack, needle, rng=random.Random(3), scale=(0.2, 0.2))
    assert a[1] == b[1] and png_bytes(a[0]) == png_bytes(b[0])
    opaque = Image.new("RGB", (50, 30), (255, 0, 0))
    out, (left, top, right, bottom) = paste_needle(haystack, opaque, rng=random.Random(0), scale=(0.5, 0.5))
    assert (right - left, bottom - top) == (120, 72)
    assert out.getpixel((left + 5, top + 5)) == (255, 0, 0)
    with pytest.raises(ConfigError):
        paste_needle(haystack, needle, rng=random.Random(0), scale=(0.3, 1.5))


def test_paste_many_boxes_are_in_bounds_and_never_overlap(haystack: Image.Image) -> None:
    needles = [draw_cartoon(kind, 128, 0) for kind in ("penguin", "star", "cat", "fish", "ghost")]
    for seed in range(10):
        out, boxes = paste_many(haystack, needles, random.Random(seed), (0.18, 0.3))
        assert len(boxes) == 5 and out.size == haystack.size
        for left, top, right, bottom in boxes:
            assert 0 <= left < right <= haystack.width and 0 <= top < bottom <= haystack.height
        for a, b in itertools.combinations(boxes, 2):
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
    again = paste_many(haystack, needles, random.Random(9), (0.18, 0.3))
    assert again[1] == boxes and png_bytes(again[0]) == png_bytes(out)


def test_paste_many_with_no_needles_returns_the_base(haystack: Image.Image) -> None:
    out, boxes = paste_many(haystack, [], random.Random(0))
    assert boxes == [] and png_bytes(out) == png_bytes(haystack)


def test_paste_many_raises_a_clear_error_when_needles_cannot_fit(haystack: Image.Image) -> None:
    needles = [draw_cartoon("sun", 64, 0)] * 12
    with pytest.raises(ConfigError, match="cannot paste 12 needles without overlap"):
        paste_many(haystack, needles, random.Random(0), (0.4, 0.45), attempts=50, restarts=3)


# ----------------------------------------------------------------------------------- retrieval options


def test_image_options_hold_the_needle_kind_once_and_are_distinct() -> None:
    answers = set()
    for seed in range(12):
        options, answer = make_image_options("rocket", CARTOON_KINDS, random.Random(seed), size=96, seed=1)
        answers.add(answer)
        assert len(options) == 4 and 0 <= answer < 4
        assert all(o.mode == "RGB" and o.size == (96, 96) for o in options)
        assert options[0].getpixel((0, 0)) == (255, 255, 255)  # plain background
        expected = Image.new("RGBA", (96, 96), (255, 255, 255, 255))
        cartoon = draw_cartoon("rocket", round(96 * 0.8), 1)
        expected.alpha_composite(cartoon, ((96 - cartoon.width) // 2, (96 - cartoon.height) // 2))
        matches = [i for i, o in enumerate(options) if png_bytes(o) == png_bytes(expected.convert("RGB"))]
        assert matches == [answer]
        for a, b in itertools.combinations(options, 2):
            assert mean_diff(a, b) > 5
    assert len(answers) >= 3  # the correct position varies


def test_image_options_need_enough_distractors() -> None:
    with pytest.raises(ConfigError):
        make_image_options("star", ["star", "sun", "cat"], random.Random(0))
    with pytest.raises(ConfigError):
        make_image_options("unicorn", CARTOON_KINDS, random.Random(0))
    options, answer = make_image_options("star", ["star", "sun"], random.Random(0), n=2, size=32)
    assert len(options) == 2 and answer in (0, 1)


# ----------------------------------------------------------------------------------- reasoning images


def test_jigsaw_true_piece_is_the_cut_region_pixel_for_pixel(haystack: Image.Image) -> None:
    for seed in range(10):
        puzzle = make_reasoning_image("jigsaw", haystack, random.Random(seed))
        assert isinstance(puzzle, ReasoningImagePuzzle)
        hole = puzzle.details["hole_box"]
        assert puzzle.choices is None and puzzle.choice_images is not None
        assert len(puzzle.choice_images) == 2 and len(puzzle.needle_images) == 1
        truth = puzzle.choice_images[puzzle.answer]
        assert png_bytes(truth) == png_bytes(haystack.crop(hole))
        holed = puzzle.needle_images[0]
        assert holed.crop(hole).getcolors() == [(truth.width * truth.height, JIGSAW_FILL)]
        outside = holed.copy()
        outside.paste(haystack.crop(hole), hole[:2])
        assert png_bytes(outside) == png_bytes(haystack)  # only the hole changed


@pytest.mark.parametrize("n_options", [2, 3, 4])
def test_make_jigsaw_options_are_distinct_and_answer_is_correct(haystack: Image.Image, n_options: int) -> None:
    puzzle, options, answer, question = make_jigsaw(haystack, random.Random(n_options), n_options=n_options)
    assert len(options) == n_options and 0 <= answer < n_options
    assert "missing" in question and "option" in question
    grey = [(x, y) for x in range(puzzle.width) for y in range(puzzle.height)
            if puzzle.getpixel((x, y)) == JIGSAW_FILL and haystack.getpixel((x, y)) != JIGSAW_FILL]
    xs, ys = [p[0] for p in grey], [p[1] for p in grey]
    hole = (min(xs), min(ys), max(xs) + 1, max(ys) + 1)
    assert png_bytes(options[answer]) == png_bytes(haystack.crop(hole))
    for a, b in itertools.combinations(options, 2):
        assert a.size == b.size and mean_diff(a, b) >= 12


def test_jigsaw_is_deterministic_and_refuses_bad_input(haystack: Image.Image) -> None:
    a = make_jigsaw(haystack, random.Random(11))
    b = make_jigsaw(haystack, random.Random(11))
    assert a[2] == b[2] and png_bytes(a[0]) == png_bytes(b[0])
    assert [png_bytes(o) for o in a[1]] == [png_bytes(o) for o in b[1]]
    with pytest.raises(ConfigError, match="too uniform"):
        make_jigsaw(Image.new("RGB", (200, 200), (90, 90, 90)), random.Random(0))
    with pytest.raises(ConfigError):
        make_jigsaw(haystack, random.Random(0), n_options=5)
    with pytest.raises(ConfigError):
        make_jigsaw(Image.new("RGB", (30, 30)), random.Random(0))


def test_jigsaw_panel_uses_numbered_text_options(haystack: Image.Image) -> None:
    seen = set()
    for seed in range(6):
        puzzle = make_reasoning_image("jigsaw-panel", haystack, random.Random(seed))
        assert puzzle.choice_images is None and puzzle.choices is not None
        assert puzzle.choices == tuple(f"piece {i}" for i in range(1, len(puzzle.choices) + 1))
        assert 2 <= len(puzzle.choices) <= 4 and 0 <= puzzle.answer < len(puzzle.choices)
        panel = puzzle.needle_images[0]
        assert panel.width > haystack.width and panel.height > haystack.height
        seen.add(len(puzzle.choices))
    assert len(seen) >= 2


def _locate(view: Image.Image, source: Image.Image) -> tuple[int, int]:
    """Where ``view`` was cropped from in ``source`` (exact match search)."""
    target = view.tobytes()
    for top in range(source.height - view.height + 1):
        for left in range(source.width - view.width + 1):
            if source.crop((left, top, left + view.width, top + view.height)).tobytes() == target:
                return left, top
    raise AssertionError("view is not a crop of the source")


def test_camera_motion_answer_matches_the_direction_of_the_shift() -> None:
    source = noise_image(96, 40, seed=3)
    directions = set()
    for seed in range(8):
        first, second, answer, question, choices = make_camera_motion(source, random.Random(seed))
        assert choices == CAMERA_MOTION_CHOICES == ("left", "right")
        assert "left or right" in question
        assert first.size == second.size
        (x1, y1), (x2, y2) = _locate(first, source), _locate(second, source)
        assert y1 == y2 and x1 != x2
        moving = "right" if x2 > x1 else "left"
        assert choices[answer] == moving
        # official scorer: "the camera is moving left" -> option a (index 0)
        assert (answer == 0) == (moving == "left")
        directions.add(moving)
    assert directions == {"left", "right"}


def test_camera_motion_refuses_flat_images() -> None:
    with pytest.raises(ConfigError, match="too uniform"):
        make_camera_motion(Image.new("RGB", (200, 100), (10, 200, 10)), random.Random(0))


def test_every_reasoning_image_kind_builds(haystack: Image.Image) -> None:
    for kind in REASONING_IMAGE_KINDS:
        puzzle = make_reasoning_image(kind, haystack, random.Random(1))
        assert puzzle.kind == kind
        assert (puzzle.choices is None) != (puzzle.choice_images is None)
        options = puzzle.choices if puzzle.choices is not None else puzzle.choice_images
        assert options is not None and 0 <= puzzle.answer < len(options)
        assert 1 <= len(puzzle.needle_images) <= 2
    with pytest.raises(ConfigError):
        make_reasoning_image("spot-the-difference", haystack, random.Random(0))


def _detail(img: Image.Image) -> float:
    """Mean absolute luminance gradient at full resolution (the test's own measure of texture)."""
    lum = np.asarray(img.convert("L"), dtype=np.float64)
    return float((np.abs(np.diff(lum, axis=0)).mean() + np.abs(np.diff(lum, axis=1)).mean()) / 2)


def _sky_and_rock(width: int = 480, height: int = 320) -> Image.Image:
    """Left half a smooth sky gradient, right half busy rock-like texture."""
    sky = Image.linear_gradient("L").resize((width // 2, height)).convert("RGB")
    sky = ImageChops.multiply(sky, Image.new("RGB", sky.size, (150, 190, 255)))
    sky = ImageChops.add(sky, Image.new("RGB", sky.size, (90, 110, 140)))
    rock = noise_image(width - width // 2, height, seed=3)
    out = Image.new("RGB", (width, height))
    out.paste(sky, (0, 0))
    out.paste(rock, (width // 2, 0))
    return out


def test_jigsaw_distractors_are_the_same_kind_of_picture_as_the_answer() -> None:
    """A plain patch of sky is never offered against a piece of rock (nor rock against sky)."""
    source = _sky_and_rock()
    checked = 0
    for seed in range(40):
        try:
            _puzzle, options, answer, _q = make_jigsaw(source, random.Random(seed), n_options=3)
        except ConfigError:
            continue  # a piece of plain sky has too few distinct look-alikes: the builder draws again
        truth = _detail(options[answer])
        for i, option in enumerate(options):
            if i != answer:
                assert truth / 3 - 1 <= _detail(option) <= truth * 3 + 3, (seed, truth, _detail(option))
        checked += 1
    assert checked >= 20


def test_a_dealt_answer_places_the_correct_option(haystack: Image.Image) -> None:
    """A build deals where the correct option stands (a balanced deck); the options follow it."""
    for where in range(4):
        options, answer = make_image_options("rocket", CARTOON_KINDS, random.Random(0), size=96, seed=1,
                                             answer=where)
        expected = Image.new("RGBA", (96, 96), (255, 255, 255, 255))
        cartoon = draw_cartoon("rocket", round(96 * 0.8), 1)
        expected.alpha_composite(cartoon, ((96 - cartoon.width) // 2, (96 - cartoon.height) // 2))
        assert answer == where
        assert [i for i, o in enumerate(options) if png_bytes(o) == png_bytes(expected.convert("RGB"))] == [where]
    with pytest.raises(ConfigError):
        make_image_options("rocket", CARTOON_KINDS, random.Random(0), answer=4)
    for kind in REASONING_IMAGE_KINDS:
        for last in (False, True):
            puzzle = make_reasoning_image(kind, haystack, random.Random(1),
                                          answer_for=lambda n, last=last: n - 1 if last else 0)
            options = puzzle.choices if puzzle.choices is not None else puzzle.choice_images
            assert options is not None
            assert puzzle.answer == (len(options) - 1 if last else 0), (kind, last)


def test_no_jigsaw_option_is_the_true_piece_turned_or_mirrored(haystack: Image.Image) -> None:
    """A turned or mirrored copy of the truth was told from it by its own pixels ("the piece whose top is bluer"
    scored 69-70 against 50); every distractor is now a piece cut elsewhere from the same picture."""
    turns = (Image.Transpose.FLIP_LEFT_RIGHT, Image.Transpose.FLIP_TOP_BOTTOM, Image.Transpose.ROTATE_180,
             Image.Transpose.ROTATE_90, Image.Transpose.ROTATE_270, Image.Transpose.TRANSPOSE,
             Image.Transpose.TRANSVERSE)
    source = np.asarray(haystack.convert("RGB"))
    for seed in range(12):
        _puzzle, options, answer, _q = make_jigsaw(haystack, random.Random(seed), n_options=2)
        truth = options[answer]
        copies = {png_bytes(truth.transpose(t)) for t in turns}
        for i, option in enumerate(options):
            if i == answer:
                continue
            assert png_bytes(option) not in copies, seed
            piece = np.asarray(option)
            side = piece.shape[0]
            # the distractor is some square of the source, pixel for pixel
            found = any(np.array_equal(source[y:y + side, x:x + side], piece)
                        for y in range(source.shape[0] - side + 1) for x in range(source.shape[1] - side + 1)
                        if source[y, x].tolist() == piece[0, 0].tolist())
            assert found, seed


def test_the_kind_test_favours_neither_piece() -> None:
    """Accepting a pair must not depend on which piece is the truth (a one-sided rule kept distractors plainer)."""
    rng = random.Random(0)
    for _ in range(500):
        a = (rng.uniform(0, 40), (rng.uniform(0, 255), rng.uniform(0, 255), rng.uniform(0, 255)))
        b = (rng.uniform(0, 40), (rng.uniform(0, 255), rng.uniform(0, 255), rng.uniform(0, 255)))
        assert ni.same_kind(a, b) == ni.same_kind(b, a)
