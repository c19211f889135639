"""``niah build mmlongbench-vh``: visual-haystack samples at exactly 8K..128K tokens.

A sample is the official visual-haystack prompt (``vh`` template: instruction, one ``<image>`` line per haystack
image, the question, ``Answer:``) with query image(s) in the question:

* single needle: "Here is a query image: <image> Is this picture one of the given images? (A copy may be
  resized, re-encoded or slightly cropped.)" The answer is
  ``yes`` when a copy of the query stands at a random place in the haystack, ``no`` when it does not.
* multi needle (``--needles K``): K query images; ``yes`` when all K are in the haystack (each at a random
  place), ``no`` when exactly one of them is missing (the others still present).

Answers alternate yes/no over a shuffled order, so half of the samples of each length are ``yes``. Haystack
images are drawn from any image folder (default: niah's embedded photos and procedural images).

Nothing but the pictures answers the question:

* every sample of a build shows the same number of distinct pictures in its haystack (the pool less one per
  query, when the haystack is long enough to show them all; otherwise as many as it holds), ``yes`` or ``no``:
  a ``no`` sample's set is the queries' place taken by other pictures. When the haystack holds more images
  than the set, it repeats the whole set (needles included, each round in a fresh random order), so how often a
  picture appears says nothing either;
* a query is a transformed copy of its picture, decided per sample from the seed: cropped by a few percent
  on each side, resized to another patch grid, re-encoded at another JPEG quality. Neither its bytes, its pixels
  nor its file (each query has its own) match a haystack image, while a person still sees the same picture.

Length is exact under the stated rules: the text of the whole user turn (``prompt.text()``: instruction, the
newlines between images, question, prefix line) counted with the text tokenizer (default ``llama2-sp``), plus
each image's tokens under the image rule (default ``qwen2vl-28px`` with ``min_pixels``/``max_pixels`` as
parameters: one token per 28x28 pixels after the smart resize). Images are embedded in the dataset (never
linked): each is resized to a multiple of 28 pixels so the rule maps it to itself, and the last two (or a few
more) distractors get the sizes (kept near their aspect ratios) whose tokens make the total exact. Tiny images
have few such sizes: when none sums to the gap, the last distractor is dropped and the fit tried again, and a
length still out of reach after a few drops is a ConfigError, never an endless search.
"""

from __future__ import annotations

import io
import math
import random
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from niah.benchmarks.mmlongbench.datasets import LENGTHS_K
from niah.build.buildkey import build_key, file_digest, image_digest, text_digest
from niah.prompts.render import render_prompt
from niah.prompts.types import PromptOptions
from niah.sample import DatasetWriter, ImagePart, Part, Sample, TextPart
from niah.tokens import TextTokenizer, get_tokenizer
from niah.tokens.image import Qwen2VLRule
from niah.util.errors import ConfigError, DataError

BENCHMARK = "mmlongbench"
PATCH = 28
#: The query is a transformed copy (see the module docstring), and the question says so: a model must not be
#: asked for byte identity it cannot have.
SINGLE_QUESTION = ("Is this picture one of the given images? (A copy may be resized, re-encoded or slightly "
                   "cropped.)")
MULTI_QUESTION = ("Are all of these pictures among the given images? (A copy may be resized, re-encoded or "
                  "slightly cropped.)")
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp")
#: Longest side (in 28-pixel patches) of a haystack image before the exact-fit adjustment (~ 12x12 = 144 tokens).
DEFAULT_MAX_SIDE = 12


@dataclass(frozen=True)
class PoolImage:
    id: str
    load: Any  # () -> PIL.Image.Image
    content: str = ""  # what the picture is (its file's digest, or its procedural recipe): keys the build


def image_pool(folder: str | Path | None, seed: int) -> list[PoolImage]:
    """Images of ``folder`` (sorted by path), or niah's embedded pool when None."""
    if folder is None:
        from niah.corpus import load_corpus

        return [PoolImage(im.id, im.load, image_digest([im])) for im in load_corpus("default", seed=seed).images()]
    root = Path(folder)
    if not root.is_dir():
        raise ConfigError(f"image folder not found: {root}")
    files = sorted(p for p in root.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
    if len(files) < 3:
        raise ConfigError(f"{root} holds {len(files)} images; a visual haystack needs at least 3")

    def loader(path: Path) -> Any:
        def load() -> Any:
            from PIL import Image

            try:
                with Image.open(path) as im:
                    return im.convert("RGB")
            except OSError as exc:
                raise DataError(f"unreadable image: {exc}", file=path) from None
        return load

    return [PoolImage(str(p.relative_to(root)), loader(p), file_digest(p)) for p in files]


def _pool_digest(pool: Sequence[PoolImage]) -> str:
    """The content digest of an image pool, in pool order (each picture's file bytes or procedural recipe)."""
    return text_digest(image.content for image in pool)


def natural_grid(width: int, height: int, rule: Qwen2VLRule, max_side: int) -> tuple[int, int]:
    """(columns, rows) of 28-pixel patches the image gets: the rule's resize, then capped at ``max_side``."""
    h, w = rule.resized(width, height)
    cols, rows = w // PATCH, h // PATCH
    scale = min(1.0, max_side / max(cols, rows))
    return max(1, round(cols * scale)), max(1, round(rows * scale))


def grid_for(tokens: int, aspect: float, rule: Qwen2VLRule) -> tuple[int, int] | None:
    """(columns, rows) with exactly ``tokens`` patches, within the rule's pixel limits, closest to ``aspect``
    (width / height) and within a factor 2 of it; None when there is none."""
    best: tuple[float, tuple[int, int]] | None = None
    for rows in range(1, int(math.isqrt(tokens)) + 1):
        if tokens % rows:
            continue
        for cols, r in ((tokens // rows, rows), (rows, tokens // rows)):
            pixels = cols * r * PATCH * PATCH
            if not rule.min_pixels <= pixels <= rule.max_pixels:
                continue
            error = abs(math.log((cols / r) / aspect))
            if error <= math.log(2) and (best is None or error < best[0]):
                best = (error, (cols, r))
    return None if best is None else best[1]


def _nearest(center: float, low: int, high: int) -> Iterator[int]:
    """The integers of ``[low, high]`` in order of their distance from ``center``, the lower first on a tie (as
    sorting the range by that distance would give them, without building and sorting it)."""
    below = min(high, math.floor(center))
    above = max(low, below + 1)
    while below >= low or above <= high:
        if above > high or (below >= low and center - below <= above - center):
            yield below
            below -= 1
        else:
            yield above
            above += 1


def _exact_grids(aspects: Sequence[float], left: int, rule: Qwen2VLRule) -> list[tuple[int, int]] | None:
    """Grids for images of these aspects whose tokens sum to exactly ``left`` (each near an equal share and
    within the rule's limits), or None."""
    if len(aspects) < 2 or left < 2:
        return None
    most = rule.max_pixels // (PATCH * PATCH)
    if left > len(aspects) * most:
        return None
    grids: list[tuple[int, int]] = []
    for index, aspect in enumerate(aspects[:-2]):
        share = left / (len(aspects) - index)
        for t in _nearest(share, 1, min(most, left)):
            grid = grid_for(t, aspect, rule)
            if grid is not None:
                grids.append(grid)
                left -= t
                break
        else:
            return None
    for t1 in _nearest(left / 2, 1, left - 1):
        g1 = grid_for(t1, aspects[-2], rule)
        g2 = grid_for(left - t1, aspects[-1], rule) if g1 is not None else None
        if g1 is not None and g2 is not None:
            return [*grids, g1, g2]
    return None


#: Largest crop of a query image per side (fraction of its width or height), and the JPEG qualities a query is
#: re-encoded at (haystack images are written at 90).
QUERY_MAX_CROP = 0.06
QUERY_QUALITIES = (70, 75, 80, 85, 95)


@dataclass(frozen=True)
class QueryTransform:
    """How one query image differs from its picture: the crop box (fractions of each side), the longest side
    of its patch grid and its JPEG quality."""

    crop: tuple[float, float, float, float]  # left, top, right, bottom
    max_side: int
    quality: int

    @classmethod
    def draw(cls, rng: random.Random, max_side: int) -> QueryTransform:
        crop = tuple(rng.uniform(0.01, QUERY_MAX_CROP) for _ in range(4))
        low = max(2, (2 * max_side) // 3)
        side = rng.choice([s for s in range(low, max_side + 2) if s != max_side] or [max_side + 1])
        return cls((crop[0], crop[1], crop[2], crop[3]), side, rng.choice(QUERY_QUALITIES))

    def cropped(self, image: Any) -> Any:
        w, h = image.size
        left, top, right, bottom = self.crop
        return image.crop((round(w * left), round(h * top), w - round(w * right), h - round(h * bottom)))


@dataclass
class _Slot:
    image: PoolImage
    aspect: float
    grid: tuple[int, int]
    role: str  # "distractor" | "needle"

    @property
    def tokens(self) -> int:
        return self.grid[0] * self.grid[1]


def _prompt_text_tokens(tokenizer: TextTokenizer, n_context: int, question: list[Part]) -> int:
    sample = _sample_shell([ImagePart("x")] * n_context, question)
    prompt = render_prompt(sample, Path("."), PromptOptions())
    return tokenizer.count(prompt.text())


def _context_parts(paths: Sequence[str]) -> list[Part]:
    parts: list[Part] = []
    for index, path in enumerate(paths):
        if index:
            parts.append(TextPart("\n"))
        parts.append(ImagePart(path))
    return parts


def _sample_shell(context_images: list[Part], question: list[Part]) -> Sample:
    paths = [p.path for p in context_images if isinstance(p, ImagePart)]
    return Sample(id="shell", benchmark=BENCHMARK, task="vh_single", context=_context_parts(paths),
                  question=question, answer="yes", meta={"prompt": "vh", "max_new_tokens": 128})


def _question(query_paths: Sequence[str]) -> list[Part]:
    if len(query_paths) == 1:
        return [TextPart("Here is a query image: "), ImagePart(query_paths[0]), TextPart(" " + SINGLE_QUESTION)]
    parts: list[Part] = [TextPart("Here are the query images:")]
    for path in query_paths:
        parts += [TextPart("\n"), ImagePart(path)]
    return parts + [TextPart("\n" + MULTI_QUESTION)]


def _other_grid(grid: tuple[int, int], avoid: tuple[int, int], rule: Qwen2VLRule) -> tuple[int, int]:
    """``grid``, or a neighbour of it when it equals ``avoid`` (the haystack copy's grid), so that a query never
    has its picture's haystack size (a flat picture would otherwise come out pixel for pixel the same)."""
    if grid != avoid:
        return grid
    cols, rows = grid
    fewest = -(-rule.min_pixels // (PATCH * PATCH))
    most = rule.max_pixels // (PATCH * PATCH)
    for option in ((cols - 1, rows), (cols, rows - 1), (cols + 1, rows), (cols, rows + 1)):
        if min(option) >= 1 and fewest <= option[0] * option[1] <= most:
            return option
    return grid


def _aspect(image: Any) -> float:
    return image.width / max(1, image.height)


def build_vh(out: str | Path, *, lengths: Sequence[int] = LENGTHS_K, per_length: int = 4, needles: int = 1,
             images: str | Path | None = None, seed: int = 0, tokenizer: str = "llama2-sp",
             min_pixels: int = 4 * PATCH * PATCH, max_pixels: int = 16384 * PATCH * PATCH,
             max_side: int = DEFAULT_MAX_SIDE, progress: bool = False) -> dict[str, int]:
    """Write a visual-haystack dataset; returns sample counts per task (``vh_single`` or ``vh_multi``)."""
    if needles < 1:
        raise ConfigError("--needles must be at least 1")
    bad = [k for k in lengths if k not in LENGTHS_K]
    if bad:
        raise ConfigError(f"lengths must be among {', '.join(map(str, LENGTHS_K))} (K tokens), got {bad}")
    if per_length < 1:
        raise ConfigError("--per-cell must be at least 1")
    rule = Qwen2VLRule(min_pixels=min_pixels, max_pixels=max_pixels)
    tok = get_tokenizer(tokenizer)
    pool = image_pool(images, seed)
    if len(pool) < needles + 2:
        raise ConfigError(f"the image pool holds {len(pool)} images; {needles} needle(s) need at least "
                          f"{needles + 2}")
    # every draw keyed on the whole build, the pictures' content included (niah.build.buildkey)
    key = build_key("mmlongbench-vh", seed, {
        "lengths_k": list(lengths), "per_length": per_length, "needles": needles, "tokenizer": tok.name,
        "image_tokens_rule": rule.name, "max_side": max_side, "images": _pool_digest(pool)})
    rng = key.random("samples")
    task = "vh_single" if needles == 1 else "vh_multi"
    aspects: dict[str, float] = {}
    loaded: dict[str, Any] = {}

    def get(image: PoolImage) -> Any:
        if image.id not in loaded:
            loaded[image.id] = image.load().convert("RGB")
            aspects[image.id] = _aspect(loaded[image.id])
        return loaded[image.id]

    count = 0
    with DatasetWriter(out) as writer:
        written: dict[tuple[str, tuple[int, int]], str] = {}
        files = [0]  # media files written: one numbering for haystack and query images alike

        def save(image: Any, quality: int) -> str:
            buffer = io.BytesIO()
            image.save(buffer, format="JPEG", quality=quality)
            files[0] += 1
            return writer.write_media(f"vh/{files[0] - 1:05d}.jpg", buffer.getvalue())

        def media(image: PoolImage, grid: tuple[int, int], query: QueryTransform | None = None) -> str:
            if query is not None:  # a query: its own file, never shared with a haystack image or another query
                return save(query.cropped(get(image)).resize((grid[0] * PATCH, grid[1] * PATCH)), query.quality)
            key = (image.id, grid)
            if key not in written:
                written[key] = save(get(image).resize((grid[0] * PATCH, grid[1] * PATCH)), 90)
            return written[key]

        for k in lengths:
            target = k * 1024
            answers = ["yes" if i % 2 == 0 else "no" for i in range(per_length)]
            rng.shuffle(answers)
            for index, answer in enumerate(answers):
                sample = _one(target, answer, needles, pool, rng, rule, tok, max_side, get, aspects, media,
                              task=task, sample_id=f"{task}/K{k}/{index}", length_k=k)
                writer.write(sample)
                count += 1
            if progress:
                import sys

                print(f"mmlongbench-vh: {k}K done ({count} samples)", file=sys.stderr)
        writer.finish({"benchmark": BENCHMARK, "source": "niah build mmlongbench-vh", "tasks": [task], "seed": seed,
                       "build_key": key.digest, "tokenizer": tok.name, "image_tokens_rule": rule.name, "lengths_k": list(lengths),
                       "needles": needles, "images": str(images) if images is not None else "embedded"})
    return {task: count}


def _one(target: int, answer: str, needles: int, pool: list[PoolImage], rng: random.Random, rule: Qwen2VLRule,
         tok: TextTokenizer, max_side: int, get: Any, aspects: dict[str, float], media: Any, *, task: str,
         sample_id: str, length_k: int) -> Sample:
    chosen = rng.sample(range(len(pool)), needles)
    queries = [pool[i] for i in chosen]
    distractors = [p for i, p in enumerate(pool) if i not in set(chosen)]
    present = list(queries) if answer == "yes" else [q for q in queries if q is not queries[-1]]
    # the haystack's pictures: the same number for yes and no (the pool less one per query), so that counting
    # distinct pictures does not answer; a no sample's missing query is replaced by one more distractor
    shown = present + rng.sample(distractors, len(pool) - needles - len(present))
    present_ids = {q.id for q in present}

    def slot(image: PoolImage, role: str) -> _Slot:
        im = get(image)
        return _Slot(image, aspects[image.id], natural_grid(im.width, im.height, rule, max_side), role)

    def role_of(image: PoolImage) -> str:
        return "needle" if image.id in present_ids else "distractor"

    transforms = [QueryTransform.draw(rng, max_side) for _ in queries]
    query_slots = []
    for q, tf in zip(queries, transforms, strict=True):
        w, h = tf.cropped(get(q)).size
        grid = _other_grid(natural_grid(w, h, rule, tf.max_side), slot(q, "needle").grid, rule)
        query_slots.append(_Slot(q, w / max(1, h), grid, "query"))
    query_tokens = sum(s.tokens for s in query_slots)
    question_shell = _question(["q"] * needles)
    # fill order: the needles, then the other pictures in a random order (a short haystack shows a random
    # subset that always holds the needles), then the whole set again in fresh random orders
    context: list[_Slot] = [slot(q, "needle") for q in present]
    rest = shown[len(present):]
    order = rng.sample(rest, len(rest))
    # text grows by the same newline tokens per image: estimate it while filling, count it exactly at the end
    base = _prompt_text_tokens(tok, 1, question_shell)
    step = _prompt_text_tokens(tok, 2, question_shell) - base
    cursor = 0
    used = sum(s.tokens for s in context) + query_tokens
    while True:
        if cursor == len(order):
            order, cursor = rng.sample(shown, len(shown)), 0
        nxt = slot(order[cursor], role_of(order[cursor]))
        if used + nxt.tokens + base + step * len(context) > target:
            break
        context.append(nxt)
        used += nxt.tokens
        cursor += 1
    text_tokens = _fit_exactly(context, query_tokens, target, tok, question_shell, rule)
    # every image to a random place (the needles, filled first, and every repeat alike)
    context = rng.sample(context, len(context))
    context_paths = [media(s.image, s.grid) for s in context]
    query_paths = [media(s.image, s.grid, tf) for s, tf in zip(query_slots, transforms, strict=True)]
    positions = [i for i, s in enumerate(context) if s.role == "needle"]
    sample = Sample(id=sample_id, benchmark=BENCHMARK, task=task, context=_context_parts(context_paths),
                    question=_question(query_paths), answer=answer, meta={
                        "dataset": task, "category": "niah", "length_k": length_k, "input_max_length": target,
                        "metric": "binary_acc", "prompt": "vh", "max_new_tokens": 128,
                        "num_images": len(context) + len(query_slots), "needle_positions": positions,
                        "needles": sorted({context_paths[i] for i in positions}),
                        "query_present": [q.id in present_ids for q in queries],
                        "query_transforms": [{"crop": [round(c, 4) for c in tf.crop], "max_side": tf.max_side,
                                              "quality": tf.quality} for tf in transforms],
                        "depth": [p / max(1, len(context) - 1) for p in positions] or None,
                        "context_length": target, "tokenizer": tok.name, "image_tokens_rule": rule.name,
                        "image_tokens": sum(s.tokens for s in context) + query_tokens, "text_tokens": text_tokens,
                        "generator": "mmlongbench-vh"})
    return sample


#: How many of the last distractors the exact fit may re-size at once, and how many it may drop. What is left
#: after filling is under one image's tokens, so a few images absorb it; trying every distractor of a haystack
#: of thousands of tiny images never ended, and could not succeed when their sizes cannot sum to the gap.
MAX_MOVABLE = 32
MAX_DROPPED = 8


def _fit_exactly(context: list[_Slot], query_tokens: int, target: int, tok: TextTokenizer,
                 question_shell: list[Part], rule: Qwen2VLRule) -> int:
    """Re-size the last few distractors of ``context`` (in place) so that the prompt is exactly ``target``
    tokens; returns its text tokens. When no re-sizing reaches it (small images have few token counts near their
    aspect: 56x56 pictures take 4, 6, 8, 9 ... tokens, never a gap of 4m+1 over m of them), the last distractor
    is dropped, giving its tokens and its newline back, and the fit tried again; a ConfigError after a few."""
    for _ in range(MAX_DROPPED + 1):
        text_tokens = _prompt_text_tokens(tok, len(context), question_shell)
        total = sum(s.tokens for s in context) + query_tokens
        distractor_at = [i for i, s in enumerate(context) if s.role == "distractor"]
        movable: list[int] = []
        for i in reversed(distractor_at[-MAX_MOVABLE:]):
            movable.insert(0, i)
            if len(movable) < 2:
                continue
            fixed = total - sum(context[j].tokens for j in movable)
            grids = _exact_grids([context[j].aspect for j in movable], target - text_tokens - fixed, rule)
            if grids is not None:
                for j, grid in zip(movable, grids, strict=True):
                    context[j].grid = grid
                return text_tokens
        if len(distractor_at) <= 2:
            break
        del context[distractor_at[-1]]
    raise ConfigError(f"cannot fill {target} tokens exactly with these images: re-sizing up to {MAX_MOVABLE} of "
                      f"the last distractors (each within a factor 2 of its aspect and within the pixel limits "
                      f"{rule.min_pixels}..{rule.max_pixels}) and dropping up to {MAX_DROPPED} never sums to the "
                      f"tokens left (images too few, too large for the pixel limits, or too small to take the "
                      f"sizes the gap needs; try larger images or other --min-pixels/--max-pixels)")


def measure(sample: Sample, media_root: str | Path, tokenizer: str | TextTokenizer, rule: Qwen2VLRule) -> int:
    """A sample's length as stated: tokens of its rendered user text plus its images' tokens under ``rule``
    (images read from disk)."""
    from niah.tokens.image import image_size

    tok = get_tokenizer(tokenizer) if isinstance(tokenizer, str) else tokenizer
    prompt = render_prompt(sample, media_root)
    images = [p for p in prompt.parts if isinstance(p, ImagePart)]
    return tok.count(prompt.text()) + sum(rule.tokens(*image_size(prompt.resolve(p.path))) for p in images)


def build_from_options(out: Path, options: Mapping[str, Any], progress: bool) -> Mapping[str, int]:
    """The shared builder vocabulary (``niah eval``'s options) in this builder's terms: ``per_cell`` is its
    ``per_length``; ``lengths`` are written as ``--lengths`` is (``8k`` or ``8192``: the official 8K length,
    :func:`~niah.benchmarks.mmlongbench.datasets.length_bins`)."""
    from niah.benchmarks.mmlongbench.datasets import length_bins

    kwargs = dict(options)
    if "per_cell" in kwargs:
        kwargs["per_length"] = kwargs.pop("per_cell")
    if "lengths" in kwargs:
        kwargs["lengths"] = length_bins(kwargs["lengths"])
    if "source" in kwargs:
        kwargs["images"] = kwargs.pop("source")
    elif "images" in kwargs:
        print("note: the images key is deprecated; use source (the folder of images to build from, as --source)",
              file=sys.stderr)
    return build_vh(out, progress=progress, **kwargs)


# ------------------------------------------------------------------------ text/image needles (MM-NIAH tasks)

NIAH_TASKS: tuple[str, ...] = ("retrieval-text", "counting-text", "reasoning-text", "retrieval-image",
                               "counting-image", "reasoning-image")


def to_mmlongbench(sample: Sample, length_k: int) -> Sample:
    """An MM-NIAH-built sample in MMLongBench's form: the official prompts of the MM-NIAH sets (options folded
    into the question as ``\\nA. <option>`` lines, as the official image multiple-choice loader writes them)
    and their rules (SubEM for text retrieval/reasoning, the sum rule for counting, option letter for images)."""
    from niah.benchmarks.mmlongbench.datasets import DATASETS

    name = f"mm_niah_{sample.task}"
    info = DATASETS[name]
    question = list(sample.question)
    for index, choice in enumerate(sample.choices or []):
        question.append(TextPart(f"\n{chr(ord('A') + index)}. "))
        question.extend(choice)
    answer = sample.answer
    if info.metric == "sub_em" and sample.choices is not None and isinstance(answer, int):
        answer = "".join(p.text for p in sample.choices[answer] if isinstance(p, TextPart))
    meta = {**sample.meta, "dataset": name, "category": "niah", "length_k": length_k,
            "input_max_length": length_k * 1024, "metric": info.metric, "prompt": info.prompt,
            "max_new_tokens": info.max_new_tokens, "generator": "mmlongbench-niah"}
    return Sample(id=f"{name}/K{length_k}/{sample.id.split('/', 1)[-1]}", benchmark=BENCHMARK, task=name,
                  context=list(sample.context), question=question, answer=answer, meta=meta)


def build_niah(out: str | Path, *, tasks: Sequence[str] = NIAH_TASKS, lengths: Sequence[int] = LENGTHS_K,
               per_cell: int = 1, depths: Sequence[float] = (0.0, 0.2, 0.4, 0.6, 0.8), seed: int = 0,
               corpus: str = "default", tokenizer: str = "llama2-sp", min_pixels: int = 4 * PATCH * PATCH,
               max_pixels: int = 16384 * PATCH * PATCH, text_tokens_per_image: int = 2000,
               progress: bool = False) -> dict[str, int]:
    """MMLongBench's six MM-NIAH sets at exactly ``k x 1024`` haystack tokens (context text in ``tokenizer``
    plus context images under ``qwen2vl-28px`` with these pixel limits), built by niah's MM-NIAH generator
    (whole sentences, random depths in each requested cell, needles never marked) and written in MMLongBench's
    form. Images are embedded."""
    import shutil
    import tempfile

    from niah.benchmarks.mm_niah.build import BuildConfig
    from niah.benchmarks.mm_niah.cli import build_mm_niah
    from niah.sample import Dataset

    bad = [k for k in lengths if k not in LENGTHS_K]
    if bad:
        raise ConfigError(f"lengths must be among {', '.join(map(str, LENGTHS_K))} (K tokens), got {bad}")
    unknown = [t for t in tasks if t not in NIAH_TASKS]
    if unknown:
        raise ConfigError(f"unknown task(s) {unknown}; choose from {', '.join(NIAH_TASKS)}")
    rule = f"qwen2vl-28px:min_pixels={min_pixels},max_pixels={max_pixels}"
    counts: dict[str, int] = {}
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=f".{out.name}.mmniah-") as tmp, \
            DatasetWriter(out) as writer:
        copied: set[str] = set()
        part_keys: dict[str, str] = {}  # each length is an MM-NIAH build keyed on all its inputs (niah.build.buildkey)
        for k in lengths:
            part = Path(tmp) / f"K{k}"
            config = BuildConfig(tasks=tuple(tasks), lengths=(str(k * 1024),), depths=tuple(depths), per_cell=per_cell,
                                 seed=seed + k, corpus=corpus, tokenizer=tokenizer, image_tokens=rule,
                                 text_tokens_per_image=text_tokens_per_image)
            build_mm_niah(config, part, progress=progress)
            ds = Dataset(part)
            part_keys[f"K{k}"] = str(ds.manifest.get("build", {}).get("build_key", ""))
            for sample in ds:
                converted = to_mmlongbench(sample, k)
                rename: dict[str, str] = {}
                for rel in converted.all_media():
                    if rel not in rename:
                        inner = rel.removeprefix("media/")
                        target = f"K{k}/{inner}"
                        if target not in copied:
                            writer.write_media(target, ds.resolve_media(rel).read_bytes())
                            copied.add(target)
                        rename[rel] = f"media/{target}"
                converted = _renamed(converted, rename)
                writer.write(converted)
                counts[converted.task] = counts.get(converted.task, 0) + 1
            shutil.rmtree(part)
        writer.finish({"benchmark": BENCHMARK, "source": "niah build mmlongbench-niah", "tasks": sorted(counts),
                       "seed": seed, "build_key": build_key("mmlongbench-niah", seed, part_keys).digest,
                       "build_keys": part_keys, "tokenizer": tokenizer, "image_tokens_rule": rule, "lengths_k": list(lengths),
                       "corpus": corpus})
    return counts


def _renamed(sample: Sample, rename: Mapping[str, str]) -> Sample:
    """``sample`` with its media under their new names: the image parts and every path its meta records (the
    image needles of ``meta.needles``), so that the needle list names the very files the parts show (the
    needle locator matches them by path)."""
    def parts(items: Sequence[Part]) -> list[Part]:
        return [ImagePart(rename.get(p.path, p.path)) if isinstance(p, ImagePart) else p for p in items]

    def renamed(value: Any) -> Any:
        if isinstance(value, str):
            return rename.get(value, value)
        if isinstance(value, list):
            return [renamed(v) for v in value]
        if isinstance(value, dict):
            return {k: renamed(v) for k, v in value.items()}
        return value

    sample.context = parts(sample.context)
    sample.question = parts(sample.question)
    sample.meta = renamed(sample.meta)
    return sample
