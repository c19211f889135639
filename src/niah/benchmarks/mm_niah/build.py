"""MM-NIAH sample generator: all six tasks over a length x depth grid, exact lengths, deterministic by seed.

Paper section 3.2 and docs/mm-niah.md. Every sample is a fresh haystack drawn from the corpus (documents in
a random order, no passage twice, paragraph breaks kept, a separator between documents), about one image per
2K text tokens, and needles placed at random depths whose mean (the official convention) falls in the
requested official depth cell (``draw_depths``). Lengths are exact: the context text tokenized in one call
with the named tokenizer plus the image rule over the image parts equals ``meta.context_length``; contexts
end on a whole sentence unless no combination of sentences adds up (``meta.sentence_end``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from niah.benchmarks.mm_niah import bins
from niah.benchmarks.mm_niah.needles import IMAGE_COUNT_RANGE
from niah.benchmarks.registry import corpus_readers
from niah.build.buildkey import BuildKey, build_key, image_digest, pool_digest
from niah.build.deck import deal
from niah.build.haystack import (
    DEFAULT_DOC_SEPARATOR,
    ImageSpec,
    Layout,
    NeedleSpec,
    TextPool,
    assemble,
    make_unit,
    pool_document,
)
from niah.build.lengths import parse_length as parse_length_spec
from niah.sample import ImagePart, Part, Sample, TextPart
from niah.tokens.image import ImageTokenRule, get_image_rule
from niah.tokens.text import get_tokenizer
from niah.util.errors import ConfigError

TASKS: tuple[str, ...] = (
    "retrieval-text", "counting-text", "reasoning-text", "retrieval-image", "counting-image", "reasoning-image",
)
#: Probes built only on request (``--tasks image-count``), outside the official six and their aggregation.
#: ``image-count`` is the paper's Fig. 4 analysis: ask how many images the document holds.
OPTIONAL_TASKS: tuple[str, ...] = ("image-count",)
IMAGE_COUNT_QUESTION = "How many images are there in the above document? Answer with a number."
CATEGORY = {  # the official meta.category of each task (and a category of our own for the probe)
    "image-count": "count-images-in-context",
    "retrieval-text": "find-text", "retrieval-image": "find-image", "counting-text": "count-text",
    "counting-image": "count-image", "reasoning-text": "infer-choose", "reasoning-image": "visual-reasoning",
}
# The paper's context-length bins, as ranges to sample targets from (the last bin runs to 72K).
DEFAULT_LENGTHS = ("1k-2k", "2k-4k", "4k-8k", "8k-12k", "12k-16k", "16k-24k", "24k-32k", "32k-40k", "40k-48k",
                   "48k-64k", "64k-72k")
DEFAULT_DEPTHS = (0.0, 0.2, 0.4, 0.6, 0.8)  # lower edges of the five official depth cells
BENCHMARK = "mm-niah"
#: Builds of a reasoning-image position's dealt puzzle kind before it may take another (of the 25 a sample has)
KIND_TRIES = 5
HAYSTACK_EXCLUDE = ("penguin", "needle")
# Colour/tilt variants per cartoon kind: drawing is slow (~0.1 s) and cached, so a small fixed set is reused.
CARTOON_LOOKS = 4  # haystack sentences that could be mistaken for needles are dropped


def parse_length(spec: str) -> tuple[int, int]:
    """``"8k"`` -> (8000, 8000) exact; ``"8k-12k"`` -> [8000, 12000) range; plain integers are tokens
    (the one ``--lengths`` syntax, :mod:`niah.build.lengths`)."""
    return parse_length_spec(spec)


#: most same-type distractor facts a retrieval-text sample may hold (``--distractors``)
MAX_DISTRACTORS = 20


@dataclass
class BuildConfig:
    tasks: Sequence[str] = TASKS
    lengths: Sequence[str] = DEFAULT_LENGTHS
    depths: Sequence[float] = DEFAULT_DEPTHS
    per_cell: int = 1
    seed: int = 0
    corpus: str = "default"
    lang: str = "en"
    tokenizer: str = "cl100k_base"
    image_tokens: str = "internvl"
    text_tokens_per_image: int = 2000  # "about every 2k text tokens include one image"
    max_images: int = 36
    image_max_side: int = 768
    images: bool = True  # False: text-needle tasks with no images in the context (text-only grids)
    doc_separator: str | None = None  # between concatenated documents; None: DEFAULT_DOC_SEPARATOR
    reasoning_choices: bool = False  # reasoning-text as multiple choice (where a triple has options)
    distractors: int = 0  # retrieval-text: same-type facts about other keys beside the needle (RULER-style)

    def validate(self) -> None:
        bad = [t for t in self.tasks if t not in TASKS + OPTIONAL_TASKS]
        if bad:
            raise ConfigError(f"unknown task(s) {bad}; choose from {', '.join(TASKS + OPTIONAL_TASKS)}")
        if self.text_tokens_per_image <= 0:
            raise ConfigError(
                f"--text-tokens-per-image must be a positive number of text tokens per image, got "
                f"{self.text_tokens_per_image}; for contexts without images use --no-images")
        if not self.images:
            image_tasks = [t for t in self.tasks if t.endswith("-image") or t == "image-count"]
            if image_tasks:
                raise ConfigError(f"--no-images builds text-needle tasks only; {', '.join(image_tasks)} "
                                  "need images (drop them from --tasks)")
        for d in self.depths:
            if not 0.0 <= d <= 1.0:
                raise ConfigError(f"depth {d} outside [0, 1]")
            steps = d / bins.DEPTH_STEP
            if abs(steps - round(steps)) > 1e-6:
                # a depth names an official cell by its lower edge; 0.3 would silently become the 0.2-0.4 cell
                edges = ", ".join(f"{k * bins.DEPTH_STEP:g}" for k in range(bins.NUM_DEPTH_CELLS))
                raise ConfigError(f"--depths {d:g} is not an official depth cell: give a cell's lower edge "
                                  f"({edges}; 1 also names the last cell); {d:g} lies in the cell from "
                                  f"{min(int(steps), bins.NUM_DEPTH_CELLS - 1) * bins.DEPTH_STEP:g}")
        if self.per_cell < 1:
            raise ConfigError("--per-cell must be >= 1")
        if isinstance(self.distractors, bool) or not 0 <= self.distractors <= MAX_DISTRACTORS:
            raise ConfigError(f"--distractors must be a whole number in 0..{MAX_DISTRACTORS}, got {self.distractors!r}")
        for spec in self.lengths:
            parse_length(spec)


def depth_window(depth: float) -> tuple[int, float, float]:
    """The official cell of a requested depth and the range to draw realized depths from.

    A depth is read as the lower edge of its official cell (0.0, 0.2, ... 0.8); 1.0 means the last cell.
    """
    cell = min(int(round(depth / bins.DEPTH_STEP, 6)), bins.NUM_DEPTH_CELLS - 1)
    lo = cell * bins.DEPTH_STEP
    return cell, lo, min(lo + bins.DEPTH_STEP, 1.0)


def _in_cell(cell: int) -> Callable[[np.ndarray], np.ndarray]:
    """Vectorized test 'official depth_cell(d) == cell' (keeps the float quirks of the official binning)."""

    def test(d: np.ndarray) -> np.ndarray:
        return bins.depth_cells(d) == cell

    return test


@dataclass
class _HaystackImage:
    """A corpus image at a chosen size variant; written once per dataset however many samples use it."""

    key: str
    source: Any  # CorpusImage
    variant: str  # "orig" | "half" | "sq400" | "sq224"
    width: int
    height: int
    tokens: int


def _variant_size(w: int, h: int, variant: str, max_side: int) -> tuple[int, int]:
    scale = min(1.0, max_side / max(w, h))
    w, h = max(1, round(w * scale)), max(1, round(h * scale))
    if variant == "orig":
        return w, h
    if variant == "half":
        return max(1, w // 2), max(1, h // 2)
    side = 400 if variant == "sq400" else 224
    return side, side


def _render_variant(img: Any, variant: str, max_side: int) -> Any:
    from PIL import Image

    w, h = img.size
    tw, th = _variant_size(w, h, variant, max_side)
    if variant.startswith("sq"):
        s = min(w, h)
        left, top = (w - s) // 2, (h - s) // 2
        img = img.crop((left, top, left + s, top + s))
    if img.size != (tw, th):
        img = img.resize((tw, th), Image.Resampling.LANCZOS)
    return img


def _encode_jpeg(img: Any) -> bytes:
    buf = io.BytesIO()
    img.convert("RGB").save(buf, format="JPEG", quality=88, optimize=True)
    return buf.getvalue()


def _encode_png(img: Any) -> bytes:
    if img.mode not in ("RGB", "L"):  # every harness must see the same pixels: no alpha left to flatten
        raise ValueError(f"a generated PNG must be RGB or L, not {img.mode} (composite it onto its background)")
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


@dataclass
class _Context:
    """Everything a task generator needs, prepared once per build."""

    cfg: BuildConfig
    pool: TextPool
    rule: ImageTokenRule
    corpus_images: list[Any]
    image_sizes: list[tuple[int, int]]
    write_media: Callable[[str, bytes], str]
    written: set[str] = field(default_factory=set)
    _jpeg: dict[str, bytes] = field(default_factory=dict)  # variant key -> JPEG as written
    _bases: dict[str, bytes] = field(default_factory=dict)  # source id -> scaled source (LRU)

    def haystack_image(self, index: int, cap: int) -> _HaystackImage:
        """The first size variant of corpus image ``index`` whose token cost is within ``cap``."""
        src = self.corpus_images[index]
        w0, h0 = self.image_sizes[index]
        best: _HaystackImage | None = None
        for variant in ("orig", "half", "sq400", "sq224"):
            w, h = _variant_size(w0, h0, variant, self.cfg.image_max_side)
            t = self.rule.tokens(w, h)
            cand = _HaystackImage(f"{src.id}-{variant}", src, variant, w, h, t)
            if best is None or t < best.tokens:
                best = cand
            if t <= cap:
                return cand
        assert best is not None
        return best

    def variant_jpeg(self, im: _HaystackImage) -> bytes:
        """The variant as written to media (JPEG), rendered once per build: procedural corpus images are
        drawn on every load, so everything downstream (writing, pasting needles) starts from these bytes."""
        data = self._jpeg.get(im.key)
        if data is None:
            data = self._jpeg[im.key] = _encode_jpeg(
                _render_variant(self._base(im.source), im.variant, self.cfg.image_max_side))
        return data

    def _base(self, source: Any) -> Any:
        """The source scaled to ``image_max_side`` (decoded from a cached near-lossless JPEG), so that an
        image's variants do not each load (or, for procedural images, re-draw) the source."""
        from PIL import Image

        data = self._bases.pop(source.id, None)
        if data is None:
            img = source.load()
            w, h = _variant_size(img.size[0], img.size[1], "orig", self.cfg.image_max_side)
            if img.size != (w, h):
                img = img.resize((w, h), Image.Resampling.LANCZOS)
            buf = io.BytesIO()
            img.convert("RGB").save(buf, format="JPEG", quality=95)
            data = buf.getvalue()
            if len(self._bases) >= 256:  # bounded: memory stays flat however large the corpus
                self._bases.pop(next(iter(self._bases)))
        self._bases[source.id] = data  # most recently used last
        with Image.open(io.BytesIO(data)) as img:
            return img.convert("RGB")

    def store_haystack_image(self, im: _HaystackImage) -> str:
        return self._store_context_jpeg(self.variant_jpeg(im))

    def store_context_image(self, img: Any) -> str:
        """A context image (a needle, pasted or drawn) under the same kind of name a haystack image has."""
        return self._store_context_jpeg(_encode_jpeg(img))

    def _store_context_jpeg(self, data: bytes) -> str:
        # every context image is named by its content, in one folder: a file name never tells a needle from
        # the haystack (names like "-needle.jpg" would, to anything that reads paths: an export, a harness)
        rel = f"images/{hashlib.sha256(data).hexdigest()[:20]}.jpg"
        if rel not in self.written:
            self.write_media(rel, data)
            self.written.add(rel)
        return f"media/{rel}"

    def load_variant(self, im: _HaystackImage) -> Any:
        """The image exactly as the document shows it (decoded from its JPEG), ready to paste into."""
        from PIL import Image

        with Image.open(io.BytesIO(self.variant_jpeg(im))) as img:
            return img.convert("RGB")

    def store(self, rel: str, img: Any, *, png: bool = False) -> str:
        data = _encode_png(img) if png else _encode_jpeg(img)
        if rel not in self.written:
            self.write_media(rel, data)
            self.written.add(rel)
        return f"media/{rel}"

    def store_shared_png(self, img: Any, prefix: str) -> str:
        """Content-addressed PNG (option images repeat across samples; store each once)."""
        data = _encode_png(img)
        rel = f"{prefix}/{hashlib.sha256(data).hexdigest()[:16]}.png"
        if rel not in self.written:
            self.write_media(rel, data)
            self.written.add(rel)
        return f"media/{rel}"


@dataclass
class _Plan:
    """One grid cell instance: task, target length, depth cell, replicate number, its RNGs."""

    task: str
    length_label: str
    target: int
    cell: int
    depth_lo: float
    depth_hi: float
    index: int
    np_rng: np.random.Generator
    rng: random.Random
    #: (length index, depth index, replicate): where the sample stands in its task's grid, for the decks
    position: tuple[int, int, int] = (0, 0, 0)
    requested_cell: int | None = None  # set when the requested cell cannot exist at this exact length


def plan_grid(cfg: BuildConfig, key: BuildKey) -> list[_Plan]:
    """The grid in a fixed order; each sample's RNG depends only on the build's key (:attr:`MMNIAHBuilder.key`:
    the seed, the corpus content and every other input) and (task, length, depth, replicate)."""
    plans: list[_Plan] = []
    for task in cfg.tasks:
        counter = 0
        for length_index, length_spec in enumerate(cfg.lengths):
            lo, hi = parse_length(length_spec)
            for depth_index, depth in enumerate(cfg.depths):
                cell, dlo, dhi = depth_window(depth)
                for rep in range(cfg.per_cell):
                    s = key.seed_of(task, length_spec, depth, rep)
                    np_rng = np.random.default_rng(s)
                    target = lo if hi == lo else int(np_rng.integers(lo, hi))
                    plans.append(_Plan(task, length_spec, target, cell, dlo, dhi, counter, np_rng, random.Random(s),
                                       (length_index, depth_index, rep)))
                    counter += 1
    return plans


def _choose_images(ctx: _Context, plan: _Plan, *, min_images: int, reserve_tokens: int,
                   extra_tokens: int = 0, exclude: int | None = None, want_images: int = 0,
                   limit: int | None = None) -> list[_HaystackImage]:
    """About one image per ``text_tokens_per_image`` text tokens, each cheap enough for the target length.

    ``reserve_tokens`` is kept for needles/puzzles; images are drawn without replacement. ``want_images``
    more are added where the text keeps at least ``WANT_TEXT_SHARE`` of the context (counting-image needs
    several images even in a short document); ``limit`` caps the count below ``max_images``.
    """
    cfg = ctx.cfg
    target = plan.target
    if not cfg.images:
        return []
    cap = max(256, target // 6)
    order = plan.np_rng.permutation(len(ctx.corpus_images))
    chosen: list[_HaystackImage] = []
    spent = extra_tokens
    for idx in order:
        if idx == exclude:
            continue
        if len(chosen) >= (cfg.max_images if limit is None else min(limit, cfg.max_images)):
            break
        im = ctx.haystack_image(int(idx), cap)
        text_left = target - reserve_tokens - spent - im.tokens
        need_more = len(chosen) < min_images
        if not need_more and len(chosen) < want_images and text_left >= WANT_TEXT_SHARE * target:
            chosen.append(im)
            spent += im.tokens
            continue
        if text_left < 64:
            if need_more:
                continue  # try a cheaper image
            break
        if not need_more and text_left / (len(chosen) + 1) < cfg.text_tokens_per_image:
            break
        chosen.append(im)
        spent += im.tokens
    if len(chosen) < min_images:
        raise ConfigError(
            f"{plan.task}: a {target}-token context cannot hold {min_images} image(s) under rule "
            f"{ctx.rule.name}; use a longer length or a cheaper --image-tokens rule"
        )
    return chosen


WANT_TEXT_SHARE = 0.4
#: Draws of one sample before the build gives up: reasoning-text's six statements (needles and decoys) in the
#: first cell at 1K keep their mean there in about one draw of five, and 25 draws left about one plan in 400
#: without a sample (an audit's larger build of the README's 1K try failed on one)
SAMPLE_DRAWS = 60
DEPTH_MARGIN = 0.01  # drawn means stay this far inside their cell, so placement rounding rarely leaves it


def draw_depths(rng: random.Random, k: int, cell: int) -> list[float]:
    """k needle depths for official depth cell ``cell``, ascending.

    The depths are independent and uniform on [0, 1], conditioned on their mean lying in the cell (at
    least ``DEPTH_MARGIN`` inside its edges, and in the cell under the official float binning): every
    arrangement with such a mean is equally likely, so no needle is pinned to the start, the end, or a
    fixed spacing. Drawn by rejection (at most a few hundred tries for 5 needles in an edge cell).
    """
    lo = cell * bins.DEPTH_STEP
    hi = min(lo + bins.DEPTH_STEP, 1.0)
    if k == 1:
        return [rng.uniform(lo + DEPTH_MARGIN, hi - DEPTH_MARGIN)]
    for _ in range(200_000):
        depths = sorted(rng.random() for _ in range(k))
        mean = sum(depths) / k
        if lo + DEPTH_MARGIN <= mean <= hi - DEPTH_MARGIN and bins.depth_cell(mean) == cell:
            return depths
    raise AssertionError("unreachable: the acceptance region has positive probability")


#: counting-image documents hold at least this many images where the text keeps WANT_TEXT_SHARE of the
#: context, so that answers are lists, not single numbers, even at 1K-2K
COUNTING_MIN_IMAGES = 3
#: counting-image documents hold at most this many images: at most 5 get cartoons (the paper), and with every
#: image's count drawn uniformly from 0..COUNTING_MAX_PER_IMAGE no count is more frequent than another, so a
#: constant reply ([0, 0, ...]) scores what a blind guess does (1 in 4)
COUNTING_MAX_IMAGES = 5
COUNTING_MAX_PER_IMAGE = IMAGE_COUNT_RANGE[1]


def draw_image_counts(rng: random.Random, num_images: int, most: int | None = None) -> list[int]:
    """Cartoons pasted into each of a counting-image document's images: independent and uniform on
    0..COUNTING_MAX_PER_IMAGE, drawn again when no image gets any (a sample needs a needle) or more than
    ``most`` images get some (a short document cannot hold many needle images in a late or early cell)."""
    if not 1 <= num_images <= COUNTING_MAX_IMAGES:
        raise ValueError(f"a counting-image document holds 1..{COUNTING_MAX_IMAGES} images, not {num_images}")
    most = num_images if most is None else max(1, most)
    while True:
        counts = [rng.randint(0, COUNTING_MAX_PER_IMAGE) for _ in range(num_images)]
        if 1 <= sum(1 for c in counts if c) <= most:
            return counts


def max_needle_images(costs: Sequence[int], target: int, cell: int) -> int:
    """How many of these images can be needles whose mean depth reaches ``cell``: packed at the far end of the
    context (the cheapest first), their mean depth must still lie a margin inside the cell. Only short
    contexts limit it (at 1.6K tokens one 256-token image fits in the last cell, two do not)."""
    lo = cell * bins.DEPTH_STEP
    hi = min(lo + bins.DEPTH_STEP, 1.0)
    margin = 2 * DEPTH_MARGIN
    cheap = sorted(costs)
    best = 1
    for c in range(1, len(cheap) + 1):
        ahead = np.cumsum(cheap[:c])  # tokens of the needle images packed before (or after) each one
        late = 1.0 - float(ahead.sum()) / (c * target)  # packed at the end: the latest mean possible
        early = float((ahead - np.asarray(cheap[:c])).sum()) / (c * target)  # packed at the start
        if late >= lo + margin and early <= hi - margin:
            best = c
    return best


def _haystack_specs(images: Sequence[_HaystackImage], rng: random.Random, needles: int = 1,
                    cell: int = 0) -> list[ImageSpec]:
    """Haystack images of an image-needle task with ``needles`` needle images in depth cell ``cell``, each
    pinned to a depth drawn as one needle's is (the nearest paragraph boundary there).

    One needle: uniform on [0, 1]. Its depth is uniform in its cell and the cells are requested evenly, so
    over a build every image's depth is uniform and where an image stands tells nothing (spread evenly
    instead, haystack images never stood at either end or side by side, and any image there was the needle).
    Several needles, whose mean depth must lie in the cell, bunch together near it: one of the depths
    ``draw_depths(needles, cell)`` gives, so that haystack images bunch with them (drawn uniform on [0, 1],
    haystack images stood first or last more often than needles, which then filled the middle: the
    counting-image images between two others were needles 82% of the time against 75% of all, and the
    audit's image-position probe read 87.9 against 74.7 on the seed-1 default build)."""
    specs = []
    for im in images:
        depth = rng.random() if needles == 1 else rng.choice(draw_depths(rng, needles, cell))
        specs.append(ImageSpec(im.tokens, payload=im, target_depth=depth, window=(0.0, 1.0)))
    return specs


def _context_parts(layout: Layout, image_paths: dict[int, str]) -> list[Part]:
    parts: list[Part] = []
    for item in layout.items:
        if item.kind == "image":
            parts.append(ImagePart(image_paths[id(item.payload)]))
        elif parts and isinstance(parts[-1], TextPart):
            parts[-1] = TextPart(parts[-1].text + item.text)
        else:
            parts.append(TextPart(item.text))
    return parts


class MMNIAHBuilder:
    """Generates MM-NIAH samples into a dataset writer. Call ``samples()`` and write each one."""

    def __init__(self, cfg: BuildConfig, write_media: Callable[[str, bytes], str]) -> None:
        from niah.benchmarks.mm_niah import needles as needle_pool
        from niah.benchmarks.mm_niah import templates
        from niah.corpus import load_corpus

        cfg.validate()
        self.cfg = cfg
        tokenizer = get_tokenizer(cfg.tokenizer)
        rule = get_image_rule(cfg.image_tokens)
        corpus = load_corpus(cfg.corpus, lang=cfg.lang, seed=cfg.seed, readers=corpus_readers())
        # documents as a reader sees them: titles, headings and lists in place, kinds balanced
        docs = (pool_document(d) for d in corpus.documents())
        self.doc_separator = DEFAULT_DOC_SEPARATOR if cfg.doc_separator is None else cfg.doc_separator
        if "<image>" in self.doc_separator:
            raise ConfigError("--doc-separator must not contain the image placeholder <image>")
        pool = TextPool.build(docs, tokenizer, cfg.lang, exclude=HAYSTACK_EXCLUDE,
                              doc_separator=self.doc_separator)
        images = list(corpus.images())
        needs_images = any(t.endswith("-image") or t == "image-count" for t in cfg.tasks)
        if needs_images and not images:
            raise ConfigError(f"corpus {cfg.corpus!r} has no images; image-needle tasks need them")
        self.ctx = _Context(cfg, pool, rule, images, [im.size() for im in images], write_media)
        # every draw keyed on the whole build, the corpus content included (niah.build.buildkey): keyed on the seed
        # alone, a question -> answer table of the default build answered builds from other corpora
        inputs = {k: v for k, v in dataclasses.asdict(cfg).items() if k not in ("seed", "corpus")}
        self.key = build_key(BENCHMARK, cfg.seed, {
            **inputs, "tokenizer": tokenizer.name, "image_tokens": rule.name, "doc_separator": self.doc_separator,
            "corpus_text": pool_digest(pool.units, pool.doc_starts),
            "corpus_images": image_digest(images) if cfg.images else None})
        # retrieval and reasoning needles are templates whose slots every sample fills, so that no question
        # fixes its answer (niah.benchmarks.mm_niah.templates)
        self.retrieval = templates.load_retrieval_templates()
        self.reasoning = templates.load_reasoning_templates()
        self.pools = templates.load_pools()
        self.counting = needle_pool.load_counting_variants()
        self.word_cut_endings = 0  # contexts whose exact length needed a cut inside the last sentence
        self.images_off_boundary = 0  # needle images whose depth window held no paragraph boundary
        self.num_built = 0
        self.corpus_name = getattr(corpus, "name", cfg.corpus)
        self.warnings: list[str] = []  # samples that could not be built exactly as requested, and why
        self.redraws: Counter[str] = Counter()  # why the current sample's draws were thrown away
        self.warnings.extend(getattr(corpus, "notes", ()))  # what a corpus reader left out, and why
        self._decks: dict[tuple[str, str], dict[tuple[int, ...], Any]] = {}
        self._kind_tries: dict[tuple[str, tuple[int, ...]], int] = {}  # builds of a position's dealt kind

    def _grid(self) -> list[tuple[int, int, int]]:
        cfg = self.cfg
        return [(li, di, rep) for li in range(len(cfg.lengths)) for di in range(len(cfg.depths))
                for rep in range(cfg.per_cell)]

    def _dealt(self, plan: _Plan, what: str, values: Sequence[Any]) -> Any:
        """The plan's value of a balanced deck of ``values`` over its task's grid (:mod:`niah.build.deck`): each
        value as often as the task's sample count allows, and no length or depth one-sided. Drawn per sample
        instead, 55 samples put 17 correct options on one of four positions (a constant reply scored 31)."""
        deck = self._decks.get((plan.task, what))
        if deck is None:
            deck = self._decks[(plan.task, what)] = deal(
                list(values), self._grid(), self.key.label(plan.task, what))
        return deck[plan.position]

    def _answer_for(self, plan: _Plan, kind: str | None = None) -> Callable[[int], int]:
        """The correct option's index for a question of n options, from a deck of 0..n-1: one deck per option
        count over the task, or, given the puzzle ``kind`` a position was dealt (:meth:`_puzzle_kind`), one
        per kind and count over that kind's positions, so that each question text is balanced on its own (one
        deck over the task left a kind's 25 two-option puzzles at 15/10: its most frequent answer scored 54.5
        against 46.5). A position whose puzzle fell back to another kind draws at random."""
        if kind is None:
            return lambda n: int(self._dealt(plan, f"answer-of-{n}", range(n)))

        def answer(n: int) -> int:
            key = (plan.task, f"answer-of-{kind}-{n}")
            deck = self._decks.get(key)
            if deck is None:
                kinds = self._decks[(plan.task, "kind")]
                positions = sorted(pos for pos, k in kinds.items() if k == kind)
                deck = self._decks[key] = deal(list(range(n)), positions,
                                               self.key.label(plan.task, key[1]))
            got = deck.get(plan.position)
            return plan.rng.randrange(n) if got is None else int(got)

        return answer

    def _puzzle_kind(self, plan: _Plan, kinds: Sequence[str]) -> str:
        """The puzzle kind of a reasoning-image sample: dealt over the task's grid; after
        ``KIND_TRIES`` failed builds of it (a source too uniform, images too costly for a short context) the
        kinds in turn, the others first, so that a kind that cannot fit a length never stops the build (at
        3K tokens only a plain jigsaw may fit)."""
        dealt = str(self._dealt(plan, "kind", kinds))
        key = (plan.task, plan.position)
        tries = self._kind_tries[key] = self._kind_tries.get(key, 0) + 1
        if tries <= KIND_TRIES:
            return dealt
        return kinds[(kinds.index(dealt) + tries - KIND_TRIES) % len(kinds)]

    def _statement_counts(self, plan: _Plan) -> list[int]:
        """counting-text: the plan's statements (1 to 3, from a deck) and the count each states: one deck
        over every statement of the task, balanced per length, depth and statement slot."""
        from niah.benchmarks.mm_niah.needles import COUNT_RANGE

        key = (plan.task, "counts")
        deck = self._decks.get(key)
        if deck is None:
            statements = deal([1, 2, 3], self._grid(), self.key.label(plan.task, "statements"))
            slots = [(*pos, slot) for pos, k in sorted(statements.items()) for slot in range(k)]
            deck = self._decks[key] = deal(list(range(COUNT_RANGE[0], COUNT_RANGE[1] + 1)), slots,
                                           self.key.label(plan.task, "counts"),
                                           strata=[(0,), (1,), (3,)])
        k = self._dealt(plan, "statements", [1, 2, 3])
        return [deck[(*plan.position, slot)] for slot in range(k)]

    def manifest(self, num_by_task: dict[str, int]) -> dict[str, Any]:
        cfg = self.cfg
        return {
            "benchmark": BENCHMARK,
            # not an official split: reports say so when they show the paper's published rows beside it
            "split": "generated",
            "source": "niah build mm-niah",
            "tasks": list(cfg.tasks),
            "build": {
                "lengths": list(cfg.lengths), "depths": list(cfg.depths), "per_cell": cfg.per_cell,
                "seed": cfg.seed, "build_key": self.key.digest, "corpus": self.corpus_name, "lang": cfg.lang,
                "text_tokens_per_image": cfg.text_tokens_per_image, "max_images": cfg.max_images,
                "images": cfg.images, "doc_separator": self.doc_separator,
                "reasoning_choices": cfg.reasoning_choices, "distractors": cfg.distractors,
            },
            # how contexts end: on a whole sentence, or (when no sentences add up exactly) a word cut
            "context_endings": {"sentence": self.num_built - self.word_cut_endings,
                                "word_cut": self.word_cut_endings},
            # images stand between paragraphs; these needle images had none in their depth window and stand
            # between two sentences of one
            "images_off_paragraph_boundary": self.images_off_boundary,
            "tokenizer": cfg.tokenizer,
            "image_tokens_rule": self.ctx.rule.name,
            "counts": num_by_task,
            "warnings": list(self.warnings),
        }

    def samples(self, plans: Sequence[_Plan] | None = None) -> Iterator[Sample]:
        for plan in plans if plans is not None else plan_grid(self.cfg, self.key):
            yield self.build_one(plan)

    def _fit_target(self, plan: _Plan) -> None:
        """An image needle of cost c cannot start later than (L - c) / L, so a late depth cell needs
        L >= c / (1 - cell start). Raise the target within its length range when the draw was shorter; when
        the length is exact (or the range too short), use the deepest cell that exists and say so."""
        if not plan.task.endswith("-image") or plan.depth_lo <= 0:
            return
        smallest = min(self.ctx.rule.tokens(224, 224), self.ctx.rule.tokens(400, 400))
        needed = int(smallest / (1.0 - plan.depth_lo) * 1.15) + 1
        lo, hi = parse_length(plan.length_label)
        if plan.target >= needed:
            return
        if needed < max(hi, lo + 1):
            plan.target = int(plan.np_rng.integers(needed, hi))
            return
        deepest = (plan.target - smallest) / plan.target  # an image placed last starts here
        feasible = bins.depth_cell(max(0.0, deepest - 0.05)) + 1
        # the cells that can exist take the samples of those that cannot, dealt evenly over them (each to the
        # deepest one, a 1K build's cell 3 held two samples in five, each holding one needle image, which had
        # to be the last image: the last image was a needle 81% of the time against 67% of all images)
        cell = int(self._dealt(plan, f"fallback-cell-of-{feasible}", range(feasible)))
        self.warnings.append(
            f"{plan.task} at {plan.target} tokens: depth cell {plan.cell} cannot exist (an image costs at least "
            f"{smallest} tokens under {self.ctx.rule.name}); built in cell {cell}, one of the cells that can "
            f"(dealt evenly)")
        plan.requested_cell, plan.cell = plan.cell, cell
        plan.depth_lo = cell * bins.DEPTH_STEP
        plan.depth_hi = min(plan.depth_lo + bins.DEPTH_STEP, 1.0)

    def _redraw(self, reason: str) -> Sample | None:
        """Throw this draw away (None: no sample), counting why: the error after the last draw names the usual
        reason."""
        self.redraws[reason] += 1
        return None

    def build_one(self, plan: _Plan) -> Sample:
        make = getattr(self, "_" + plan.task.replace("-", "_"))
        self._fit_target(plan)
        self.redraws = Counter()
        draws = SAMPLE_DRAWS
        for _attempt in range(draws):
            sample = make(plan)
            if sample is not None:
                return sample
        why = "; ".join(f"{reason} ({n} of {draws})" for reason, n in self.redraws.most_common(2))
        raise ConfigError(f"{plan.task}: no sample with needles at a mean depth in cell {plan.cell} at "
                          f"{plan.target} tokens in {draws} draws" + (f": {why}" if why else ""))

    # ------------------------------------------------------------------ shared assembly
    def _finish_sample(self, plan: _Plan, layout: Layout, depths: list[float], *, question: list[Part],
                       answer: Any, choices: list[list[Part]] | None, needles_meta: list[Any],
                       image_paths: Callable[[], dict[int, str]], extra_meta: dict[str, Any] | None = None
                       ) -> Sample | None:
        """``image_paths`` stores the layout's haystack images (called only for a sample that is kept, so a
        redrawn one leaves no file that no sample names)."""
        if depths and bins.depth_cell(depths) != plan.cell:
            return self._redraw("the realized mean depth left the cell")
        context = _context_parts(layout, image_paths())
        num_images = sum(1 for p in context if isinstance(p, ImagePart))
        meta: dict[str, Any] = {
            "context_length": layout.context_length,
            "text_tokens": layout.text_tokens,
            "image_tokens": layout.image_tokens,
            "num_images": num_images,
            "depth": [round(d, 6) for d in depths] if depths else None,  # None: no needle (a probe)
            "tokenizer": self.cfg.tokenizer,
            "image_tokens_rule": self.ctx.rule.name,
            "needles": needles_meta,
            "lang": self.cfg.lang,
            "category": CATEGORY[plan.task],
            "target_length": plan.target,
            "length_bin": plan.length_label,
            "depth_cell": plan.cell if depths else None,
            "sentence_end": layout.sentence_end,
        }
        if plan.requested_cell is not None:
            meta["requested_depth_cell"] = plan.requested_cell
        if extra_meta:
            meta.update(extra_meta)
        self.num_built += 1
        self.word_cut_endings += not layout.sentence_end
        self.images_off_boundary += layout.images_off_boundary
        return Sample(
            id=f"{plan.task}/{plan.index:06d}", benchmark=BENCHMARK, task=plan.task, context=context,
            question=question, answer=answer, choices=choices, meta=meta,
        )

    def _store_layout_images(self, layout: Layout, override: dict[int, str] | None = None) -> dict[int, str]:
        paths: dict[int, str] = {}
        for item in layout.items:
            if item.kind == "image":
                spec = item.payload
                if override and id(spec) in override:
                    paths[id(spec)] = override[id(spec)]
                else:
                    paths[id(spec)] = self.ctx.store_haystack_image(spec.payload)
        return paths

    # ------------------------------------------------------------------ text-needle tasks
    def _text_needle_sample(self, plan: _Plan, statements: list[str], *, question: list[Part], answer: Any,
                            choices: list[list[Part]] | None, gold_text: str | None = None,
                            extra_meta: dict[str, Any] | None = None,
                            distractors: Sequence[str] = ()) -> Sample | None:
        """Text needles at drawn depths among haystack images; ``gold_text`` (an open answer, or the correct
        option's text) must not occur in the haystack itself, else the sample is drawn again: the answer is
        then found only in the needles. ``distractors`` (retrieval-text's same-type facts about other keys,
        reasoning-text's decoys) stand at depths uniform on the whole context; they are not needles
        (``meta.distractors`` lists them) and the sample's depth is the needles' alone."""
        k = len(statements)
        targets = draw_depths(plan.rng, k, plan.cell)
        windows = [(plan.depth_lo, plan.depth_hi)] if k == 1 else [(0.0, 1.0)] * k
        needle_specs = [NeedleSpec(make_unit(s, self.cfg.lang), t, w) for s, t, w in
                        zip(statements, targets, windows, strict=True)]
        needle_specs += [NeedleSpec(make_unit(d, self.cfg.lang), plan.rng.random(), (0.0, 1.0))
                         for d in distractors]
        reserve = sum(self.ctx.pool.tokenizer.unit_count(n.text) for n in needle_specs)
        # every document of the paper's data holds images (about one per 2K text tokens, at least one)
        images = _choose_images(self.ctx, plan, min_images=1 if self.cfg.images else 0, reserve_tokens=reserve)
        # no image is a needle here, so where an image stands tells nothing and the images keep the even spread
        # (measured: at uniform depths, as in the image tasks, needles opened paragraphs about half as often as
        # a random position does, 15 of 139 against 28 at seed 7; the main cause, found later: a needle never
        # opened a paragraph under a heading, which it now does)
        specs = [ImageSpec(im.tokens, payload=im) for im in images]
        # the official float binning of the one needle's cell (a distractor's window is the whole context, so
        # with distractors the plain window stands and the realized depth is checked after assembly)
        in_window = _in_cell(plan.cell) if k == 1 and not distractors else None
        # no needle ends the context (as none opens it): reasoning-text's three needles, placed in depth order,
        # made the last sentence a needle in 16% of 1K samples where 6% of sentences are needles; and a needle
        # opens, closes or sits inside its paragraph as often as a sentence does (like_sentences)
        layout = assemble(self.ctx.pool, plan.target, plan.np_rng, images=specs, needles=needle_specs,
                          in_window=in_window, needle_ends=False, like_sentences=True)
        if gold_text is not None:
            from niah.benchmarks.mm_niah.templates import mentions

            haystack = "".join(it.text for it in layout.items if it.kind == "text")
            if mentions(haystack, gold_text):
                return self._redraw("the haystack names the answer itself")
        paths = partial(self._store_layout_images, layout)
        if distractors:
            extra_meta = {**(extra_meta or {}), "distractors": list(distractors)}
        return self._finish_sample(plan, layout, layout.needle_depths[:k], question=question, answer=answer,
                                   choices=choices, needles_meta=list(statements), image_paths=paths,
                                   extra_meta=extra_meta)

    def _retrieval_text(self, plan: _Plan) -> Sample | None:
        """One fact; with ``--distractors N``, N more facts of the same template about other keys (another
        town, another cook) with other answers of the same type, so that the answer is not the one value of
        its type in the context and the needle must be found by its key (RULER's distractor needles)."""
        from niah.benchmarks.mm_niah.templates import decoys, fill

        filled = fill(plan.rng.choice(self.retrieval), plan.rng, self.pools)
        others = [text for text, _values in decoys(filled, plan.rng, self.cfg.distractors, self.pools)]
        return self._text_needle_sample(plan, list(filled.needles), question=[TextPart(filled.question)],
                                        answer=filled.answer, choices=None, gold_text=filled.answer,
                                        extra_meta={"needle_template": filled.template.id}, distractors=others)

    def _counting_text(self, plan: _Plan) -> Sample | None:
        variant = plan.rng.choice(self.counting)
        counts = self._statement_counts(plan)
        return self._text_needle_sample(plan, [variant.render(n) for n in counts],
                                        question=[TextPart(variant.question)], answer=counts, choices=None)

    def _reasoning_text(self, plan: _Plan) -> Sample | None:
        """Open-ended as in the paper (Table 1); multiple choice with ``reasoning_choices`` (four options in a
        random order, so neither the question nor the position tells the answer)."""
        from niah.benchmarks.mm_niah.templates import choice_values, decoys, fill

        filled = fill(plan.rng.choice(self.reasoning), plan.rng, self.pools)
        side = decoys(filled, plan.rng, len(filled.needles), self.pools)
        # the chain's three statements are the needles, in a random order (the template's order put the answer's
        # statement first or last); beside them stand as many decoys, placed anywhere like retrieval-text's
        # distractors: neither where nor how often a value is mentioned tells the answer
        statements = list(filled.needles)
        plan.rng.shuffle(statements)
        choices: list[list[Part]] | None = None
        answer: Any = filled.answer
        if self.cfg.reasoning_choices:
            pool = filled.template.answer_pool
            slot_pool = dict(filled.template.slots)
            same_type = [v for _text, values in side for slot, v in values.items() if slot_pool[slot] == pool]
            options, answer = choice_values(filled, plan.rng, self.pools, answer_for=self._answer_for(plan),
                                            decoy_values=same_type)
            choices = [[TextPart(c)] for c in options]
        return self._text_needle_sample(plan, statements, question=[TextPart(filled.question)],
                                        answer=answer, choices=choices, gold_text=filled.answer,
                                        extra_meta={"needle_template": filled.template.id,
                                                    "reasoning_kind": filled.template.kind},
                                        distractors=[text for text, _values in side])

    def _image_count(self, plan: _Plan) -> Sample | None:
        """The paper's Fig. 4 probe: a haystack as the other tasks have (about one image per 2K text tokens,
        so the count grows with the length), no needle, and the question how many images it holds. The answer
        is the count as an open-ended string, scored by the official word match ("3" matches "three"). Every
        document holds at least one image (a multimodal document, as in the paper's data)."""
        images = _choose_images(self.ctx, plan, min_images=1, reserve_tokens=0)
        specs = [ImageSpec(im.tokens, payload=im) for im in images]
        layout = assemble(self.ctx.pool, plan.target, plan.np_rng, images=specs)
        paths = partial(self._store_layout_images, layout)
        return self._finish_sample(plan, layout, [], question=[TextPart(IMAGE_COUNT_QUESTION)],
                                   answer=str(len(images)), choices=None, needles_meta=[], image_paths=paths,
                                   extra_meta={"image_count": len(images)})

    # ------------------------------------------------------------------ image-needle tasks
    def _pinned_layout(self, plan: _Plan, specs: list[ImageSpec], pinned: dict[int, float],
                       single: bool) -> tuple[Layout, dict[int, float]]:
        """Lay out images with the needle images pinned near target depths (the others at the uniform depths
        ``_haystack_specs`` gave them); returns depth per image index. The official cell of the result is
        checked by the caller (no in_window test: it would confine the haystack images to the cell too)."""
        window = (plan.depth_lo, plan.depth_hi) if single else (0.0, 1.0)
        for k, t in pinned.items():
            specs[k].target_depth, specs[k].window = t, window
        layout = assemble(self.ctx.pool, plan.target, plan.np_rng, images=specs)
        by_id = {id(s): k for k, s in enumerate(specs)}
        image_items = [item for item in layout.items if item.kind == "image"]
        depth_of = {by_id[id(item.payload)]: d for item, d in zip(image_items, layout.image_depths, strict=True)}
        return layout, depth_of

    def _retrieval_image(self, plan: _Plan) -> Sample | None:
        from niah.benchmarks.mm_niah import needle_images as ni

        ctx = self.ctx
        kind = plan.rng.choice(ni.CARTOON_KINDS)
        images = _choose_images(ctx, plan, min_images=1, reserve_tokens=0)
        k = plan.rng.randrange(len(images))
        target = draw_depths(plan.rng, 1, plan.cell)[0]
        specs = _haystack_specs(images, plan.rng)
        layout, depth_of = self._pinned_layout(plan, specs, {k: target}, single=True)
        depths = [depth_of[k]]
        if bins.depth_cell(depths) != plan.cell:
            return self._redraw("the realized mean depth left the cell")
        look = plan.rng.randrange(CARTOON_LOOKS)
        cartoon = ni.draw_cartoon(kind, 256, look)
        pasted, _box = ni.paste_needle(ctx.load_variant(images[k]), cartoon, rng=plan.rng)
        needle_path = ctx.store_context_image(pasted)
        options, answer = ni.make_image_options(kind, ni.CARTOON_KINDS, plan.rng, n=4, seed=look,
                                                answer=self._dealt(plan, "answer", range(4)))
        choices: list[list[Part]] = [[ImagePart(ctx.store_shared_png(o, "options"))] for o in options]
        paths = partial(self._store_layout_images, layout, {id(specs[k]): needle_path})
        question: list[Part] = [
            TextPart("Which of the following images appears in a certain image of the above document?")]
        return self._finish_sample(plan, layout, depths, question=question, answer=answer, choices=choices,
                                   needles_meta=[needle_path], image_paths=paths,
                                   extra_meta={"needle_kind": kind})

    def _counting_image(self, plan: _Plan) -> Sample | None:
        from niah.benchmarks.mm_niah import needle_images as ni

        ctx = self.ctx
        kind = plan.rng.choice(ni.CARTOON_KINDS)
        images = _choose_images(ctx, plan, min_images=1, reserve_tokens=0, want_images=COUNTING_MIN_IMAGES,
                                limit=COUNTING_MAX_IMAGES)
        costs = [im.tokens for im in images]
        draw = draw_image_counts(plan.rng, len(images), most=max_needle_images(costs, plan.target, plan.cell))
        needle_idx = [k for k, m in enumerate(draw) if m > 0]
        c = len(needle_idx)
        pinned = dict(zip(needle_idx, draw_depths(plan.rng, c, plan.cell), strict=True))
        specs = _haystack_specs(images, plan.rng, c, plan.cell)
        layout, depth_of = self._pinned_layout(plan, specs, pinned, single=(c == 1))
        depths = [depth_of[k] for k in sorted(needle_idx, key=lambda k: depth_of[k])]
        if bins.depth_cell(depths) != plan.cell:
            return self._redraw("the realized mean depth left the cell")
        counts: dict[int, int] = {}
        override: dict[int, str] = {}
        needle_paths: list[str] = []
        cartoon = ni.draw_cartoon(kind, 256, plan.rng.randrange(CARTOON_LOOKS))
        for k in needle_idx:
            m = draw[k]
            pasted, _boxes = ni.paste_many(ctx.load_variant(images[k]), [cartoon] * m, plan.rng)
            path = ctx.store_context_image(pasted)
            override[id(specs[k])] = path
            counts[k] = m
            needle_paths.append(path)
        paths = partial(self._store_layout_images, layout, override)
        # the answer lists every context image in reading order: pasted count, 0 for the others
        by_id = {id(s): k for k, s in enumerate(specs)}
        answer = [counts.get(by_id[id(it.payload)], 0) for it in layout.items if it.kind == "image"]
        pattern = ctx.store_shared_png(ni.on_paper(cartoon), "patterns")
        question: list[Part] = [
            TextPart("This is the object: "), ImagePart(pattern),
            TextPart(" How many of this object are pasted in each image of the document? List the number for "
                     "every image in the document, in order, as a Python list, e.g. [0, 2, 0, 1]."),
        ]
        return self._finish_sample(plan, layout, depths, question=question, answer=answer, choices=None,
                                   needles_meta=needle_paths, image_paths=paths,
                                   extra_meta={"needle_kind": kind})

    def _reasoning_image(self, plan: _Plan) -> Sample | None:
        from niah.benchmarks.mm_niah import needle_images as ni

        ctx = self.ctx
        kind = self._puzzle_kind(plan, ni.REASONING_IMAGE_KINDS)
        cap = max(256, plan.target // 6)
        src_idx = plan.rng.randrange(len(ctx.corpus_images))
        source = ctx.load_variant(ctx.haystack_image(src_idx, cap))
        try:
            puzzle = ni.make_reasoning_image(kind, source, plan.rng, answer_for=self._answer_for(plan, kind))
        except ConfigError as exc:  # e.g. a source too uniform for a camera-motion pair: draw another
            return self._redraw(f"no puzzle from the corpus image drawn ({exc}; the corpus images may be too "
                                "plain: reasoning-image needs pictures with texture)")
        costs = [ctx.rule.tokens(*im.size) for im in puzzle.needle_images]
        if sum(costs) > plan.target * 0.6:
            return self._redraw("the puzzle's images cost too many tokens for this length")
        # the source picture itself must not also appear in the document (it would give the piece away)
        images = _choose_images(ctx, plan, min_images=0, reserve_tokens=0, extra_tokens=sum(costs),
                                exclude=src_idx)
        n = len(puzzle.needle_images)
        # uniform, as for one needle: the audit's image-position probe reads at chance here (38.2 against 35.2,
        # seed-1 default build), and bunching them with a camera pair's views changed which puzzles fit
        specs = _haystack_specs(images, plan.rng)
        needle_specs = [ImageSpec(c, payload=("needle", i)) for i, c in enumerate(costs)]
        # places drawn in order, so that the first view stands first (drawn unordered, half the camera pairs
        # were built only to be thrown away, and a hard cell could run out of tries)
        insert_at = sorted(plan.rng.randint(0, len(specs)) for _ in range(n))
        for k in reversed(range(n)):  # the last needle first: an earlier one at the same place goes before it
            specs.insert(insert_at[k], needle_specs[k])
        idx = [specs.index(s) for s in needle_specs]
        targets = draw_depths(plan.rng, n, plan.cell)
        layout, depth_of = self._pinned_layout(plan, specs, dict(zip(idx, targets, strict=True)), single=(n == 1))
        depths = [depth_of[k] for k in idx]
        if depths != sorted(depths) or bins.depth_cell(depths) != plan.cell:
            return self._redraw("the needle order or the mean depth cell came out other than requested")
        override: dict[int, str] = {}
        needle_paths: list[str] = []
        for spec, img in zip(needle_specs, puzzle.needle_images, strict=True):
            path = ctx.store_context_image(img)
            override[id(spec)] = path
            needle_paths.append(path)
        paths = partial(self._store_layout_images, layout, override)
        if puzzle.choice_images is not None:
            choices: list[list[Part]] = [
                [ImagePart(ctx.store(f"{plan.task}/{plan.index:06d}-option{i}.jpg", img))]
                for i, img in enumerate(puzzle.choice_images)]
        else:
            assert puzzle.choices is not None
            choices = [[TextPart(c)] for c in puzzle.choices]
        return self._finish_sample(plan, layout, depths, question=[TextPart(puzzle.question)],
                                   answer=puzzle.answer, choices=choices, needles_meta=needle_paths,
                                   image_paths=paths, extra_meta={"puzzle_kind": kind})
