"""The official Sequential-NIAH prompt: document prefix + text with needles, a blank line, question prefix,
question (``meta.doc_prefix`` is already part of the context text), as one user turn; greedy decoding."""

from __future__ import annotations

from niah.models.base import GenerationSettings
from niah.prompts.types import PromptBody, PromptOptions, Role
from niah.sample import Part, Sample, TextPart

#: Answers list up to 15 dated items; 1024 new tokens leaves room for models that explain before listing.
GENERATION = GenerationSettings(temperature=0.0, max_tokens=1024)


def render(sample: Sample, options: PromptOptions) -> PromptBody:
    """Segments whose text joined is exactly the official ``input`` of the sample."""
    m = sample.meta
    segments: list[tuple[Role, Part]] = [("context", p) for p in sample.context]
    segments.append(("question", TextPart(m.get("joiner", "\n\n") + m.get("question_prefix", ""))))
    segments.extend(("question", p) for p in sample.question)
    return PromptBody(segments=segments, generation=GENERATION)
