"""MM-NIAH's official evaluation prompt (specs/mm-niah.md, "Prompt").

One user turn: ``{context}\\n{question}``, then each option as ``\\n`` + letter + ``. `` + option (text, or
the option image where the official string has ``<image>``), then ``\\n`` and the instruction line. Because
the rendered prompt is a list of parts, each image sits exactly where the official string has its
``<image>`` placeholder: context and question images in place, option images after them, i.e. the official
image order (images_list, then choice images).

Decoding is greedy with at most 32 new tokens for the counting tasks and 16 otherwise. Resizing every image
to one 448x448 tile is what the official evaluation did *on the model side* (InternVL's preprocessing);
the prompt keeps the original images and a backend may resize them (``image_size`` option).

The question-before-context variant (paper, Appendix A.1) renders the question and options first, then the
context, then the instruction line; the paper reports it makes models collapse and gives no numbers for it.
The exact layout of that variant was not published, so this one is our reading of it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from niah.models.base import GenerationSettings
from niah.prompts.types import PromptBody, PromptOptions, Role
from niah.sample import ImagePart, Part, Sample, TextPart

MULTIPLE_CHOICE_INSTRUCTION = "Answer with the option's letter from the given choices directly."
OPEN_INSTRUCTION = "Answer the question using a single word or phrase."
COUNTING_MAX_NEW_TOKENS = 32
DEFAULT_MAX_NEW_TOKENS = 16


def is_multiple_choice(sample: Sample) -> bool:
    return sample.choices is not None


def instruction_for(sample: Sample) -> str:
    return MULTIPLE_CHOICE_INSTRUCTION if is_multiple_choice(sample) else OPEN_INSTRUCTION


def official_generation(task: str) -> GenerationSettings:
    """Greedy; 32 new tokens for counting tasks, 16 for every other task."""
    max_tokens = COUNTING_MAX_NEW_TOKENS if task.startswith("counting") else DEFAULT_MAX_NEW_TOKENS
    return GenerationSettings(temperature=0.0, max_tokens=max_tokens)


def option_segments(sample: Sample) -> list[tuple[Role, Part]]:
    """``\\nA. text`` per text option; ``\\nA. `` followed by the option image for image options."""
    out: list[tuple[Role, Part]] = []
    for i, choice in enumerate(sample.choices or []):
        out.append(("choice", TextPart(f"\n{chr(65 + i)}. ")))
        out.extend(("choice", part) for part in choice)
    return out


def render(sample: Sample, options: PromptOptions) -> PromptBody:
    context: list[tuple[Role, Part]] = [("context", p) for p in sample.context]
    question: list[tuple[Role, Part]] = [("question", p) for p in sample.question]
    instruction: list[tuple[Role, Part]] = [("instruction", TextPart("\n" + instruction_for(sample)))]
    if options.question_first:
        segments = question + option_segments(sample) + [("question", TextPart("\n"))] + context + instruction
    else:
        segments = context + [("question", TextPart("\n"))] + question + option_segments(sample) + instruction
    return PromptBody(segments=segments, generation=official_generation(sample.task))


def extractive_answer(sample: Sample, sentences: Sequence[str], scores: Sequence[float]) -> str | None:
    """The rag baseline's model-free reader on a counting task: a JSON list of the first number of each sentence
    that matches the question (:func:`niah.models.rag.evidence`), in document order; for counting-image one 0 per
    context image (it cannot count pasted pictures). Other tasks take the default reader."""
    if sample.choices is not None or not sample.task.startswith("counting"):
        return None
    if sample.task.endswith("image"):
        return json.dumps([0] * sum(1 for p in sample.context if isinstance(p, ImagePart)))
    from niah.models.rag import evidence, first_int

    return json.dumps([n for s in evidence(sentences, scores) if (n := first_int(s)) is not None])


def random_answer(sample: Sample, shape: Any) -> str | None:
    """The random baseline's reply to a counting task: a JSON list the official scorer parses, guessed in the
    range the builder draws from, so that it scores the chance level (``niah.benchmarks.mm_niah.audit``): one
    count in 0..3 per context image for counting-image, ``count_items`` (3, the most statements a sample has)
    counts in 1..``count_max`` (10) for counting-text (extra items cost nothing, missing ones do). Other tasks
    take the default (a random option letter, or a random context word)."""
    from niah.benchmarks.mm_niah.needles import IMAGE_COUNT_RANGE

    if sample.choices is not None or not sample.task.startswith("counting"):
        return None
    rng = shape.rng
    if sample.task.endswith("image"):
        n = sum(1 for p in sample.context if isinstance(p, ImagePart))
        low, high = IMAGE_COUNT_RANGE
        return json.dumps([rng.randint(low, min(high, shape.count_max)) for _ in range(n)])
    return json.dumps([rng.randint(1, shape.count_max) for _ in range(shape.count_items)])
