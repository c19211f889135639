"""Text-only MM-NIAH datasets for the paper's LLM-vs-MLLM comparison (Tables 3-5: InternLM2-20B against
InternVL-1.5 on the text-needle tasks).

The paper: "We omit the images within the context and only evaluate InternLM2-20B on tasks with text needles."
So :func:`derive_text_only` keeps the three text-needle tasks, removes every image from the context and puts
nothing in its place by default (``replacement`` can name a string instead, e.g. a newline). Everything else
of a sample stays as it was: the question, the gold answer, the needles, and by default the multimodal
original's ``context_length`` and ``depth``, so that a text-only run bins into the same length and depth
cells as the MLLM's run on the original and the two report side by side (``length_from="text"`` bins by the
text tokens instead; depths always stay the original's, the paper gives no other). ``meta.text_only`` records
what was removed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from niah.sample import (
    Dataset,
    DatasetWriter,
    ImagePart,
    Part,
    Sample,
    TextPart,
    VideoPart,
    refuse_output_over_input,
)
from niah.util.errors import ConfigError, DataError

#: The tasks whose needles are text: the ones the paper evaluates an LLM on.
TEXT_TASKS: tuple[str, ...] = ("retrieval-text", "counting-text", "reasoning-text")
LENGTH_SOURCES = ("original", "text")


def strip_images(parts: list[Part], replacement: str) -> tuple[list[Part], int]:
    """Parts without images (each replaced by ``replacement``), adjacent text merged; returns the count removed."""
    out: list[Part] = []
    removed = 0
    for part in parts:
        if isinstance(part, (ImagePart, VideoPart)):
            removed += 1
            if not replacement:
                continue
            part = TextPart(replacement)
        if isinstance(part, TextPart) and out and isinstance(out[-1], TextPart):
            out[-1] = TextPart(out[-1].text + part.text)
        else:
            out.append(part)
    return out, removed


def text_only_sample(sample: Sample, *, replacement: str = "", length_from: str = "original") -> Sample:
    """The sample with its context images removed; question and options must hold no media."""
    media_elsewhere = [p for p in [*sample.question, *(q for c in sample.choices or [] for q in c)]
                       if isinstance(p, (ImagePart, VideoPart))]
    if media_elsewhere:
        raise DataError(f"sample {sample.id!r} has images in its question or options; it cannot be asked "
                        "without images", field="question")
    context, removed = strip_images(list(sample.context), replacement)
    meta: dict[str, Any] = dict(sample.meta)
    meta["text_only"] = {
        "images_removed": removed,
        "image_tokens_removed": meta.get("image_tokens"),
        "replacement": replacement,
        "length_from": length_from,
        "original_context_length": meta.get("context_length"),
    }
    meta["num_images"] = 0
    if length_from == "text":  # (derive_text_only refuses it with a replacement, whose tokens are not counted)
        text_tokens = meta.get("text_tokens")
        if not isinstance(text_tokens, int) or isinstance(text_tokens, bool):
            raise DataError(f"sample {sample.id!r}: --length-from text needs meta.text_tokens",
                            field="meta.text_tokens")
        meta["context_length"] = text_tokens
        meta["image_tokens"] = 0
    return Sample(id=sample.id, benchmark=sample.benchmark, task=sample.task, context=context,
                  question=list(sample.question), answer=sample.answer, choices=sample.choices, meta=meta)


def derive_text_only(source: str | Path, out: str | Path, *, tasks: list[str] | None = None, replacement: str = "",
                     length_from: str = "original", media_roots: tuple[Path, ...] = ()) -> dict[str, int]:
    """Write the text-only version of an MM-NIAH dataset (no media: the result needs nothing outside itself)."""
    if length_from not in LENGTH_SOURCES:
        raise ConfigError(f"--length-from must be one of {', '.join(LENGTH_SOURCES)}, got {length_from!r}")
    if length_from == "text" and replacement:
        raise ConfigError("--length-from text counts the original text tokens; it cannot be combined with "
                          "--replacement (whose tokens were never counted)")
    wanted = list(tasks or TEXT_TASKS)
    bad = [t for t in wanted if t not in TEXT_TASKS]
    if bad:
        raise ConfigError(f"text-only datasets hold the text-needle tasks ({', '.join(TEXT_TASKS)}); "
                          f"{', '.join(bad)} need their images")
    refuse_output_over_input(source, out)
    ds = Dataset(source, media_roots=media_roots)
    if ds.manifest.get("benchmark") not in (None, "mm-niah"):
        raise ConfigError(f"{source} is a {ds.manifest.get('benchmark')} dataset, not MM-NIAH")
    ds.validate(media=False)  # the whole input, file:line: field, before anything is written (no media read)
    counts: dict[str, int] = {}
    dropped = 0
    with DatasetWriter(out) as writer:
        for sample in ds.iter_samples():
            if sample.task not in wanted:
                dropped += 1
                continue
            try:
                writer.write(text_only_sample(sample, replacement=replacement, length_from=length_from))
            except DataError as exc:
                raise exc.located(file=ds.samples_path) from None
            counts[sample.task] = counts.get(sample.task, 0) + 1
        manifest = {k: v for k, v in ds.manifest.items()
                    if k not in ("num_samples", "media_root", "counts", "tasks", "format_version")}
        writer.finish({
            **manifest,
            "benchmark": "mm-niah",
            "tasks": [t for t in TEXT_TASKS if t in counts],
            "counts": counts,
            "derived": {"from": str(Path(source).resolve()), "transform": "text-only", "replacement": replacement,
                        "length_from": length_from, "samples_dropped": dropped},
        })
    return counts
