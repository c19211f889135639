"""Small official-layout MM-NIAH folders written from the spec (docs/mm-niah.md, "Record schema"), never copied
from official files: ``ROOT/annotations/<task>.jsonl`` and ``ROOT/images/...``.

Documents are made of sentences that never repeat (a counter in each), joined into paragraphs, with ``<image>``
placeholders between paragraphs and documents separated by ``</s>`` as in the official haystacks. Each record
carries needles (listed in ``meta.needles``) so that readers can be checked for stripping them.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

SUBJECTS = ("The harbour committee", "A local baker", "The museum guide", "Our neighbour", "The river ferry",
            "A visiting botanist", "The county library", "An old lighthouse keeper", "The school choir",
            "A delivery cyclist")
VERBS = ("described", "remembered", "photographed", "repaired", "mapped", "questioned", "painted", "counted")
OBJECTS = ("the stone bridge", "a row of chestnut trees", "the autumn market", "the tide tables",
           "a broken weather vane", "the northern footpath", "an unusual cloud", "the festival posters")
TEXT_NEEDLES = (
    ("The secret ingredient of the harbour soup is cardamom.", "What is the secret ingredient of the harbour soup?",
     "cardamom"),
    ("The violinist's favourite colour is turquoise.", "What is the violinist's favourite colour?", "turquoise"),
)


def _sentence(counter: int, rng: random.Random) -> str:
    return f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} in week {counter}."


def write_png(path: Path, color: tuple[int, int, int], size: tuple[int, int] = (320, 240)) -> None:
    from PIL import Image, ImageDraw

    path.parent.mkdir(parents=True, exist_ok=True)
    img = Image.new("RGB", size, color)
    draw = ImageDraw.Draw(img)
    for k in range(0, size[0], 40):  # a little structure so that crops and resizes differ
        draw.line([(k, 0), (size[0] - k, size[1])], fill=(255 - color[0], color[1], 255 - color[2]), width=3)
    img.save(path, format="PNG")


class OfficialFolder:
    """Builds an official split folder record by record; ``write()`` returns its root."""

    def __init__(self, root: Path, seed: int = 0) -> None:
        self.root = root
        self.rng = random.Random(seed)
        self.counter = 0
        self.images_written = 0
        self.records: dict[str, list[dict[str, Any]]] = {}

    def image(self, name: str | None = None) -> str:
        self.images_written += 1
        rel = name or f"obelics/img_{self.images_written:04d}.png"
        shade = (37 * self.images_written % 256, 91 * self.images_written % 256, 53 * self.images_written % 256)
        write_png(self.root / "images" / rel, shade)
        return rel

    def paragraph(self, sentences: int = 6) -> str:
        out = []
        for _ in range(sentences):
            self.counter += 1
            out.append(_sentence(self.counter, self.rng))
        return " ".join(out)

    def document(self, paragraphs: int, images: list[str]) -> tuple[str, list[str]]:
        """A document of ``paragraphs`` paragraphs with one ``<image>`` after each of the first len(images)."""
        parts: list[str] = []
        used: list[str] = []
        for k in range(paragraphs):
            parts.append(self.paragraph())
            if k < len(images):
                parts.append("<image>")
                used.append(images[k])
        return "\n\n".join(parts), used

    def add(self, task: str, record: dict[str, Any]) -> dict[str, Any]:
        rows = self.records.setdefault(task, [])
        record = {"id": len(rows), **record}
        rows.append(record)
        return record

    def retrieval_text(self, *, docs: int = 3, paragraphs: int = 4, answer: Any = "cardamom",
                       needle_index: int = 0, with_answer: bool = True) -> dict[str, Any]:
        needle, question, gold = TEXT_NEEDLES[needle_index]
        texts, images = [], []
        for d in range(docs):
            text, used = self.document(paragraphs, [self.image()] if d % 2 == 0 else [])
            texts.append(text)
            images.extend(used)
        # the needle goes inside the second document, between two of its sentences
        first, rest = texts[1].split(". ", 1)
        texts[1] = f"{first}. {needle} {rest}"
        context = "</s>".join(texts)
        record: dict[str, Any] = {
            "images_list": images, "context": context, "question": question,
            "meta": self._meta(context, images, [needle], 0.4, "find-text"),
        }
        if with_answer:
            record["answer"] = gold if answer == "cardamom" else answer
        return self.add("retrieval-text", record)

    def counting_text(self, counts: list[int], *, docs: int = 2) -> dict[str, Any]:
        texts, images = [], []
        for _ in range(docs):
            text, used = self.document(3, [self.image()])
            texts.append(text)
            images.extend(used)
        needles = [f"The little penguin counted {n} needles." for n in counts]
        texts[0] = texts[0] + " " + needles[0]
        for n in needles[1:]:
            texts[-1] = n + " " + texts[-1]
        context = "</s>".join(texts)
        return self.add("counting-text", {
            "images_list": images, "context": context,
            "question": "How many needles did the little penguin count in each statement?",
            "answer": json.dumps(counts),
            "meta": self._meta(context, images, needles, [0.1, 0.9][: len(needles)] or 0.5, "count-text")})

    def retrieval_image(self, *, with_answer: bool = True) -> dict[str, Any]:
        needle_image = self.image("needles/pasted_0001.png")
        haystack = [self.image(), self.image()]
        doc1, used1 = self.document(3, [haystack[0], needle_image])
        doc2, used2 = self.document(2, [haystack[1]])
        context = doc1 + "</s>" + doc2
        images = used1 + used2
        options = [self.image(f"choices/option_{k}.png") for k in range(4)]
        meta = self._meta(context, images, [needle_image], 0.3, "find-image")
        meta["choices_image_path"] = options
        record: dict[str, Any] = {
            "images_list": images, "context": context,
            "question": "Which of the following images appears in a certain image of the above document?",
            "meta": meta}
        if with_answer:
            record["answer"] = 2
        return self.add("retrieval-image", record)

    def _meta(self, context: str, images: list[str], needles: list[str], depth: Any, category: str
              ) -> dict[str, Any]:
        text_tokens = len(context.split())
        return {"placed_depth": depth, "context_length": text_tokens + 256 * len(images),
                "context_length_text": text_tokens, "context_length_image": 256 * len(images),
                "num_images": len(images), "needles": needles, "choices": None, "choices_image_path": None,
                "category": category}

    def write(self) -> Path:
        ann = self.root / "annotations"
        ann.mkdir(parents=True, exist_ok=True)
        for task, rows in self.records.items():
            (ann / f"{task}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        return self.root


def standard_folder(root: Path, *, records: int = 8, with_answer: bool = True) -> Path:
    """A folder with retrieval-text, counting-text and retrieval-image records (enough text for 2K contexts)."""
    folder = OfficialFolder(root)
    for k in range(records):
        folder.retrieval_text(needle_index=k % 2, with_answer=with_answer)
        folder.counting_text([k % 4 + 1, (k + 2) % 5 + 1])
    folder.retrieval_image(with_answer=with_answer)
    return folder.write()
