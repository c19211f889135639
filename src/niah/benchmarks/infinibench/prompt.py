"""The InfiniBench prompt: the episode (its frames or the video, with its subtitles), the question, and for
MCQ the options lettered A, B, C, ... with the instruction to answer with a letter.

The official release fixes no prompt wording or frame sampling (each model's own harness was used); niah
renders one plain prompt for every model and records the frame budget, fps and subtitle mode in the run.
Subtitles travel with the video part (``VideoPart.subtitles``), so the shared video stage places them per
frame or as one transcript, as ``niah run --subtitles`` says.
"""

from __future__ import annotations

from dataclasses import replace

from niah.models.base import GenerationSettings
from niah.prompts.types import PromptBody, PromptOptions, Role
from niah.sample import Part, Sample, TextPart, VideoPart

MCQ_INSTRUCTION = "\nAnswer with the letter of the correct option only."
OPEN_INSTRUCTION = "\nAnswer the question in a few sentences."
MCQ_GENERATION = GenerationSettings(temperature=0.0, max_tokens=64)
OPEN_GENERATION = GenerationSettings(temperature=0.0, max_tokens=512)


def option_letter(index: int) -> str:
    return chr(65 + index) if index < 26 else f"({index + 1})"


def render(sample: Sample, options: PromptOptions) -> PromptBody:
    subtitles = sample.meta.get("subtitles")
    segments: list[tuple[Role, Part]] = []
    for part in sample.context:
        if isinstance(part, VideoPart) and isinstance(subtitles, str) and part.subtitles is None:
            part = replace(part, subtitles=subtitles)
        segments.append(("context", part))
    segments.append(("question", TextPart("\n")))
    segments.extend(("question", p) for p in sample.question)
    if sample.choices:
        for i, choice in enumerate(sample.choices):
            segments.append(("choice", TextPart(f"\n{option_letter(i)}. ")))
            segments.extend(("choice", p) for p in choice)
        segments.append(("instruction", TextPart(MCQ_INSTRUCTION)))
        return PromptBody(segments=segments, generation=MCQ_GENERATION)
    segments.append(("instruction", TextPart(OPEN_INSTRUCTION)))
    return PromptBody(segments=segments, generation=OPEN_GENERATION)
