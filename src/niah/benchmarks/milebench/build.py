"""``niah build milebench-niah``: MileBench-style passkey haystacks at exact lengths.

Two tasks, as MileBench's diagnostic sets: ``TextNeedleInAHaystack`` (a sentence giving the passkey sits in the
text between the images) and ``ImageNeedleInAHaystack`` (the passkey is written on one of the images). The
haystack is real prose (whole sentences from the corpus, the shared exact-length assembler) interleaved with
corpus images; the needle's depth is drawn uniformly at random, and nothing marks where it is.

Length is exact the way MileBench's official truncation measures a prompt: tokens of the task instruction, plus
the tokens of every text fragment between images counted on its own (in the named tokenizer), plus a fixed
per-image cost (576, the official LLaVA-1.5 config, by default). A sample of length N therefore fits
``max_context = N`` whole under ``--over-limit official`` and loses its first fragment at ``N - 1``.
Scoring is MileBench's needle rule (the passkey must be a whole token of the processed reply).
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from niah.benchmarks.registry import corpus_readers
from niah.sample import DatasetWriter, ImagePart, Part, Sample, TextPart
from niah.tokens import TextTokenizer, get_tokenizer
from niah.util.errors import ConfigError

BENCHMARK = "milebench"
TASKS: tuple[str, ...] = ("TextNeedleInAHaystack", "ImageNeedleInAHaystack")
INSTRUCTION = ("Read the following document, which mixes text and images. A passkey is hidden somewhere in it, "
               "either in the text or written on one of the images. Find it and reply with the passkey only.")
QUESTION = "\n\nWhat is the passkey?"
NEEDLE = "The passkey is {key}, and it must be kept safe."
IMAGE_SIDE = 448
DEFAULT_IMAGE_TOKENS = 576


def passkey_image(base: Any, key: str) -> Any:
    """A corpus image with a white card reading ``PASSKEY <key>`` in its middle (large, legible)."""
    from PIL import ImageDraw, ImageFont

    image = base.convert("RGB").resize((IMAGE_SIDE, IMAGE_SIDE))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=44)
    text = f"PASSKEY {key}"
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    w, h = right - left, bottom - top
    x, y = (IMAGE_SIDE - w) // 2, (IMAGE_SIDE - h) // 2
    draw.rectangle((x - 16, y - 16, x + w + 16, y + h + 16), fill=(255, 255, 255))
    draw.text((x - left, y - top), text, fill=(0, 0, 0), font=font)
    return image


def _store_context_image(writer: DatasetWriter, data: bytes) -> str:
    """A context image named by its content, in one folder: no file name tells the passkey image from the
    haystack (to an export or a harness that reads paths)."""
    return writer.write_media(f"images/{hashlib.sha256(data).hexdigest()[:20]}.jpg", data)


def _jpeg(image: Any) -> bytes:
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="JPEG", quality=90)
    return buffer.getvalue()


def official_length(sample: Sample, tokenizer: TextTokenizer, image_tokens: int) -> int:
    """The length MileBench's truncation compares with ``max_context``: instruction tokens, each text fragment
    between images counted on its own, and ``image_tokens`` per image (choices, if any, are in the last
    fragment)."""
    from niah.benchmarks.milebench.prompt import choice_suffix, instruction_of

    fragments = [""]
    images = 0
    for part in sample.context + sample.question:
        if isinstance(part, TextPart):
            fragments[-1] += part.text
        else:
            images += 1
            fragments.append("")
    fragments[-1] += choice_suffix(sample) or ""
    return tokenizer.count(instruction_of(sample)) + sum(tokenizer.count(f) for f in fragments) + images * image_tokens


def needle_depth(parts: Sequence[Part], needle_path: str | None, needle_text: str, tokenizer: TextTokenizer,
                 image_tokens: int) -> float:
    """The needle's depth as the README's Design section defines it: the fraction of the context's tokens
    (text + ``image_tokens`` per image) before it, each text fragment between images counted on its own as
    the official measure counts them. ``needle_path``: the needle image's part path; else the needle is
    ``needle_text`` inside a text part.

    Computed from the finished parts, not taken from the layout: the layout's image depths are in placement
    order, so indexing them by the needle's draw index gave another image's depth."""
    before: int | None = None
    total = 0
    for part in parts:
        if isinstance(part, ImagePart):
            if before is None and part.path == needle_path:
                before = total
            total += image_tokens
        elif isinstance(part, TextPart):
            if before is None and needle_path is None and needle_text in part.text:
                before = total + tokenizer.count(part.text[:part.text.index(needle_text)])
            total += tokenizer.count(part.text)
    if before is None:
        raise ValueError("the needle is not in the context")
    return before / total if total else 0.0


def fixed_image_cost(rule: int | str) -> int:
    """``--image-tokens`` for MileBench: its official length counts every image at one fixed cost, so the
    rule is ``N`` or ``fixed:N`` (any other image rule is refused, naming what it takes)."""
    text = str(rule).strip()
    value = text.removeprefix("fixed:")
    if isinstance(rule, bool) or not re.fullmatch(r"[0-9]+", value) or int(value) < 1:
        raise ConfigError(f"--image-tokens {text!r}: MileBench's official length counts one fixed positive cost "
                          "per image; give N or fixed:N (LLaVA-1.5: 576)")
    return int(value)


def build_milebench_niah(out: str | Path, *, lengths: Sequence[int] = (4096,), per_length: int = 4,
                         tasks: Sequence[str] = TASKS, images_per_sample: int = 4, seed: int = 0,
                         corpus: str = "default", tokenizer: str = "cl100k_base",
                         image_tokens: int | str = DEFAULT_IMAGE_TOKENS, progress: bool = False) -> dict[str, int]:
    """Write passkey haystacks; returns sample counts per task. ``image_tokens`` is the per-image cost, as a
    number or as the rule ``fixed:N`` (``--image-tokens``)."""
    from niah.build.buildkey import build_key, image_digest, pool_digest
    from niah.build.haystack import ImageSpec, NeedleSpec, TextPool, assemble, make_unit, pool_document
    from niah.corpus import load_corpus

    unknown = [t for t in tasks if t not in TASKS]
    if unknown:
        raise ConfigError(f"unknown task(s) {unknown}; choose from {', '.join(TASKS)}")
    if per_length < 1:
        raise ConfigError(f"--per-cell must be at least 1 sample per task and length, not {per_length}")
    if images_per_sample < 1:
        raise ConfigError("--images must be at least 1 (MileBench haystacks interleave images)")
    image_tokens = fixed_image_cost(image_tokens)
    tok = get_tokenizer(tokenizer)
    source = load_corpus(corpus, seed=seed, readers=corpus_readers())
    docs = (pool_document(d) for d in source.documents())  # titles, headings and lists printed; kinds balanced
    pool = TextPool.build(docs, tok, "en", exclude=("passkey",))
    pictures = list(source.images())
    if len(pictures) < images_per_sample:
        raise ConfigError(f"corpus {corpus!r} has {len(pictures)} images; {images_per_sample} are needed")
    # every draw (passkeys, images, depths, layouts) keyed on the whole build, the corpus content included: keyed
    # on the seed alone, a reply listing the default build's passkeys scored 100 on a build from another corpus
    draws = build_key("milebench-niah", seed, {
        "lengths": list(lengths), "per_length": per_length, "tasks": list(tasks), "images": images_per_sample,
        "tokenizer": tok.name, "image_tokens": image_tokens, "corpus_text": pool_digest(pool.units, pool.doc_starts),
        "corpus_images": image_digest(pictures)})
    rng = draws.random("samples")
    instruction_tokens = tok.count(INSTRUCTION)
    counts: dict[str, int] = {}
    with DatasetWriter(out) as writer:
        stored: dict[str, str] = {}

        def haystack_image(index: int) -> str:
            picture = pictures[index]
            if picture.id not in stored:
                image = picture.load().convert("RGB").resize((IMAGE_SIDE, IMAGE_SIDE))
                stored[picture.id] = _store_context_image(writer, _jpeg(image))
            return stored[picture.id]

        for task in tasks:
            for target in lengths:
                for index in range(per_length):
                    key = str(rng.randint(10000, 99999))
                    chosen = rng.sample(range(len(pictures)), images_per_sample)
                    needle_image = rng.randrange(images_per_sample) if task == "ImageNeedleInAHaystack" else None
                    depth = rng.random()
                    # each sample's layout draws from a stream of its own: how many draws one sample takes
                    # (a redrawn haystack, a needle standing alone) never shifts the samples after it
                    sample_rng = draws.numpy(task, target, index)
                    sample = _exact_sample(
                        target, task, key, chosen, needle_image, depth, pool, sample_rng, tok, image_tokens,
                        instruction_tokens, haystack_image, writer, pictures, f"{task}/{target}/{index}",
                        ImageSpec, NeedleSpec, assemble, make_unit)
                    writer.write(sample)
                    counts[task] = counts.get(task, 0) + 1
            if progress:
                import sys

                print(f"milebench-niah: {task} done", file=sys.stderr)
        writer.finish({"benchmark": BENCHMARK, "source": "niah build milebench-niah", "tasks": list(counts),
                       "seed": seed, "build_key": draws.digest, "tokenizer": tok.name, "image_tokens": image_tokens, "lengths": list(lengths),
                       "corpus": corpus, "task_instruction": [INSTRUCTION]})
    return counts


def _exact_sample(target: int, task: str, key: str, chosen: list[int], needle_image: int | None, depth: float,
                  pool: Any, np_rng: Any, tok: TextTokenizer, image_tokens: int, instruction_tokens: int,
                  haystack_image: Any, writer: DatasetWriter, pictures: list[Any], sample_id: str,
                  image_spec: Any, needle_spec: Any, assemble: Any, make_unit: Any) -> Sample:
    """Assemble until the official measure is exact (a merge at a fragment's edge can shift a count; the
    haystack target is corrected by the difference and assembled again)."""
    adjust = 0
    # Image-needle samples: every image at its own uniformly drawn depth, the needle's included, so that no
    # position (first, last, next to another image) tells which image holds the passkey; evenly spread
    # haystack images beside one uniformly placed needle made "not the first image" a cue.
    depths = ([depth if i == needle_image else float(np_rng.random()) for i in range(len(chosen))]
              if needle_image is not None else [None] * len(chosen))
    for _ in range(8):
        context_target = target - instruction_tokens - tok.count(QUESTION) + adjust
        if context_target <= len(chosen) * image_tokens:
            raise ConfigError(f"{target} tokens cannot hold {len(chosen)} images of {image_tokens} tokens and text")
        specs = [image_spec(image_tokens, payload=i, target_depth=depths[i],
                            **({"window": (0.0, 1.0)} if needle_image is not None else {}))
                 for i in range(len(chosen))]
        needles = [] if needle_image is not None else [needle_spec(make_unit(NEEDLE.format(key=key), "en"), depth)]
        layout = assemble(pool, context_target, np_rng, images=specs, needles=needles)
        parts: list[Part] = []
        needle_rel = ""
        for item in layout.items:
            if item.kind == "image":
                i = item.payload.payload
                if i == needle_image:
                    rel = needle_rel = _store_context_image(
                        writer, _jpeg(passkey_image(pictures[chosen[i]].load(), key)))
                else:
                    rel = haystack_image(chosen[i])
                parts.append(ImagePart(rel))
            elif item.text:
                if parts and isinstance(parts[-1], TextPart):
                    parts[-1] = TextPart(parts[-1].text + item.text)
                else:
                    parts.append(TextPart(item.text))
        parts.append(TextPart(QUESTION))
        if len(parts) >= 2 and isinstance(parts[-2], TextPart):
            parts[-2:] = [TextPart(parts[-2].text + QUESTION)]
        num_images = sum(isinstance(p, ImagePart) for p in parts)
        needle_path = needle_rel if needle_image is not None else None
        needle_text = NEEDLE.format(key=key)
        depth_realized = needle_depth(parts, needle_path, needle_text, tok, image_tokens)
        from niah.benchmarks.milebench.official import image_count_bucket

        sample = Sample(id=sample_id, benchmark=BENCHMARK, task=task, context=parts, question=[], answer=key, meta={
            "dataset": task, "sample_id": sample_id, "instruction": INSTRUCTION, "task_instruction_id": 0,
            "question_type": "open-ended", "metric": "milebench/needle", "num_images": num_images,
            "image_quantity_level": image_count_bucket(num_images), "choice_labels": None,
            "context_length": target, "depth": depth_realized, "tokenizer": tok.name,
            "milebench_image_tokens": image_tokens, "needle": "image" if needle_image is not None else "text",
            "needles": [needle_path if needle_path is not None else needle_text],
            "generator": "milebench-niah"})
        diff = official_length(sample, tok, image_tokens) - target
        if diff == 0:
            return sample
        adjust -= diff
    raise ConfigError(f"could not make {sample_id} exactly {target} tokens")


def build_from_options(out: Path, options: Mapping[str, Any], progress: bool) -> Mapping[str, int]:
    """The shared builder vocabulary (``niah eval``'s options) in this builder's terms: ``per_cell`` is its
    ``per_length``; ``lengths`` are written as ``--lengths`` is (``8k``, ``8192``; exact, so no ranges)."""
    from niah.build.lengths import exact_lengths

    kwargs = dict(options)
    if "per_cell" in kwargs:
        kwargs["per_length"] = kwargs.pop("per_cell")
    if "lengths" in kwargs:
        kwargs["lengths"] = exact_lengths(kwargs["lengths"], builder="milebench-niah")
    return build_milebench_niah(out, progress=progress, **kwargs)
