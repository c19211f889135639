"""Small synthetic MM-NIAH-shaped datasets, written with niah.sample.DatasetWriter (no generator needed).

Every task of MM-NIAH is represented with its answer type: open-ended text (retrieval-text), counting lists
(counting-text, counting-image), text options with an int answer (reasoning-text, reasoning-image) and
image options (retrieval-image). Each question carries a marker ``[sample:<id>]`` so a test server can tell
which sample a request belongs to. Images are tiny PNGs with distinct random pixels (distinct hashes).
"""

from __future__ import annotations

import io
import random
import zlib
from pathlib import Path

from niah.sample import DatasetWriter, ImagePart, Sample, TextPart

FILLER = ("The river bends twice before it reaches the old mill. Farmers bring their grain there each autumn. "
          "Children watch the wheel turn while the miller sings. ")
MM_NIAH_TASKS = ("retrieval-text", "counting-text", "reasoning-text", "retrieval-image", "counting-image",
                 "reasoning-image")


def png_bytes(seed: int, size: tuple[int, int] = (24, 24)) -> bytes:
    from PIL import Image

    rng = random.Random(seed)
    img = Image.new("RGB", size)
    img.putdata([(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(size[0] * size[1])])
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def _meta(context_chars: int, num_images: int, depth: float) -> dict:
    text_tokens = max(context_chars // 4, 1)
    return {"context_length": text_tokens + 256 * num_images, "text_tokens": text_tokens,
            "image_tokens": 256 * num_images, "num_images": num_images, "depth": [depth],
            "tokenizer": "cl100k_base", "image_tokens_rule": "internvl-448-fixed256", "needles": []}


def make_sample(writer: DatasetWriter, task: str, index: int, *, filler_repeats: int = 3) -> Sample:
    sid = f"{task}/{index:03d}"
    marker = f" [sample:{sid}]"
    filler = FILLER * filler_repeats
    seed = zlib.crc32(f"{task}:{index}".encode()) & 0xFFFF
    images = [writer.write_media(f"{task}-{index}-{k}.png", png_bytes(seed * 10 + k)) for k in range(2)]
    depth = round((index % 5) / 5 + 0.1, 2)
    if task == "retrieval-text":
        context = [TextPart(filler + f"The secret ingredient of the soup is oak{index}. " + filler)]
        return Sample(sid, "mm-niah", task, context, [TextPart("What is the secret ingredient of the soup?" + marker)],
                      answer=f"oak{index}", meta=_meta(len(context[0].text), 0, depth))
    if task == "counting-text":
        n1, n2 = index % 4 + 1, index % 3 + 2
        context = [TextPart(filler + f"The little penguin counted {n1} needles. " + filler
                            + f"The little penguin counted {n2} needles. " + filler)]
        q = "How many needles did the little penguin count each time? Answer as a list." + marker
        return Sample(sid, "mm-niah", task, context, [TextPart(q)], answer=[n1, n2],
                      meta=_meta(len(context[0].text), 0, depth))
    if task == "reasoning-text":
        context = [TextPart(filler + "Anna is taller than Ben. " + filler + "Ben is taller than Carl. " + filler)]
        choices = [[TextPart("Carl")], [TextPart("Ben")], [TextPart("Anna")], [TextPart("Nobody")]]
        return Sample(sid, "mm-niah", task, context, [TextPart("Who is the tallest?" + marker)], answer=2,
                      choices=choices, meta=_meta(len(context[0].text), 0, depth))
    if task == "retrieval-image":
        options = [writer.write_media(f"{task}-{index}-opt{k}.png", png_bytes(seed * 10 + 5 + k)) for k in range(4)]
        context = [TextPart(filler), ImagePart(images[0]), TextPart(filler), ImagePart(images[1]), TextPart(filler)]
        q = "Which of the following images appears in a picture of the document?" + marker
        return Sample(sid, "mm-niah", task, context, [TextPart(q)], answer=index % 4,
                      choices=[[ImagePart(o)] for o in options], meta=_meta(3 * len(filler), 2, depth))
    if task == "counting-image":
        context = [TextPart(filler), ImagePart(images[0]), TextPart(filler), ImagePart(images[1])]
        q = "How many cartoon penguins are pasted in each image? Answer as a list." + marker
        return Sample(sid, "mm-niah", task, context, [TextPart(q)], answer=[index % 2, 1],
                      meta=_meta(2 * len(filler), 2, depth))
    if task == "reasoning-image":
        context = [TextPart(filler), ImagePart(images[0]), TextPart(filler), ImagePart(images[1]), TextPart(filler)]
        choices = [[TextPart("left")], [TextPart("right")], [TextPart("up")], [TextPart("down")]]
        q = "In which direction did the camera move between the two views?" + marker
        return Sample(sid, "mm-niah", task, context, [TextPart(q)], answer=index % 4, choices=choices,
                      meta=_meta(3 * len(filler), 2, depth))
    raise ValueError(task)


def write_mm_niah_like(out: str | Path, *, per_task: int = 2, tasks: tuple[str, ...] = MM_NIAH_TASKS,
                       filler_repeats: int = 3) -> Path:
    """Write ``per_task`` samples of each task to ``out`` (a dataset directory) and return its path."""
    out = Path(out)
    with DatasetWriter(out) as writer:
        for task in tasks:
            for i in range(per_task):
                writer.write(make_sample(writer, task, i, filler_repeats=filler_repeats))
        writer.finish({"benchmark": "mm-niah", "tasks": list(tasks), "tokenizer": "cl100k_base",
                       "image_tokens_rule": "internvl-448-fixed256", "source": "tests/support/datasets.py"})
    return out


def write_text_prompts(out: str | Path, prompts: list[str], *, task: str = "retrieval-text") -> Path:
    """A text-only dataset whose samples carry exactly the given context texts (benchmarks, llama.cpp tests)."""
    out = Path(out)
    with DatasetWriter(out) as writer:
        for i, text in enumerate(prompts):
            sid = f"{task}/{i:05d}"
            writer.write(Sample(sid, "mm-niah", task, [TextPart(text)],
                                [TextPart(f"What is the secret ingredient? [sample:{sid}]")], answer="oak",
                                meta=_meta(len(text), 0, 0.5)))
        writer.finish({"benchmark": "mm-niah", "tasks": [task]})
    return out
