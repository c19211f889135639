"""The video-niah prompt: the video (frames in order), the question, lettered options (text or images)."""

from __future__ import annotations

from niah.models.base import GenerationSettings
from niah.prompts.types import PromptBody, PromptOptions, Role
from niah.sample import Part, Sample, TextPart

GENERATION = GenerationSettings(temperature=0.0, max_tokens=32)
CHOICE_INSTRUCTION = "\nAnswer with the letter of the correct option only."


def render(sample: Sample, options: PromptOptions) -> PromptBody:
    segments: list[tuple[Role, Part]] = [("context", p) for p in sample.context]
    segments.append(("question", TextPart("\n")))
    segments.extend(("question", p) for p in sample.question)
    if sample.choices:
        for i, choice in enumerate(sample.choices):
            segments.append(("choice", TextPart(f"\n{chr(65 + i)}. ")))
            segments.extend(("choice", p) for p in choice)
        segments.append(("instruction", TextPart(CHOICE_INSTRUCTION)))
    return PromptBody(segments=segments, generation=GENERATION)
